// SPDX-License-Identifier: MIT
// transformers: DynamicCache grows one tensor per layer by concatenation; sliding-window layers
// keep the last W − 1 tokens; latent-attention models cache the expanded per-head K and V;
// the logits of every position unless `logits_to_keep`. Facts from src/transformers/cache_utils.py
// and the models' modeling_*.py (see docs/engines.md).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>  // std::max, std::min
#include <cstdint>    // std::uint32_t, std::uint64_t

#include "common.hpp"

namespace kvsize::engines::transformers {

/// Tokens a DynamicCache layer of kind `k` keeps after `tokens` tokens: sliding and chunked
/// layers (DynamicSlidingWindowLayer) keep the last W − 1 (they return W to attention).
[[nodiscard]] constexpr auto tokens_kept(layer_kind k, std::uint64_t window, std::uint64_t tokens) -> std::uint64_t {
  if (k == layer_kind::sliding || k == layer_kind::chunked) {
    return std::min(tokens, window == 0 ? 0 : window - 1);
  }
  return tokens;
}

[[nodiscard]] constexpr auto size_stage(const model_spec& m, const engine_options& o, kvsize::detail::stage_range r)
    -> engine_sizing {
  engine_sizing s = kvsize::detail::start_sizing(engine_kind::transformers, m, o, r);
  kvsize::detail::require_plain_types(s.kv, "transformers");
  s.kv_heads_per_rank = std::max<std::uint32_t>(1, effective_kv_heads(m) / o.tp);
  const dtype state_type = o.state_dtype ? *o.state_dtype : m.compute_dtype;
  for (std::uint32_t il = r.first; il < r.first + r.count; ++il) {
    if (layer_keeps_kv(m, il)) {
      const layer_kind k = kind_of_layer(m, il);
      bytes per_token{0};
      if (k == layer_kind::latent) {  // K = heads·(nope + rope), V = heads·v_head_dim, per rank
        const std::uint64_t heads = std::max<std::uint32_t>(1, m.attention_heads / o.tp);
        per_token = row_bytes(s.kv.k, heads * (std::uint64_t{m.latent.nope_head_dim} + m.latent.rope_head_dim)) +
                    row_bytes(s.kv.v, heads * std::uint64_t{m.latent.v_head_dim});
      } else {
        per_token = kvsize::detail::attention_bytes_per_token(
            m, std::max<std::uint32_t>(1, kv_heads_of_layer(m, il) / o.tp), s.kv);
      }
      const std::uint64_t window = kvsize::detail::window_of(m, k);
      s.kv_bytes_per_token += per_token;
      s.kv_bytes_per_sequence += per_token * tokens_kept(k, window, s.context);
    }
    if (layer_keeps_state(m, il)) {
      const auto st = kvsize::detail::state_per_rank(m, o.tp);
      s.state_bytes_per_sequence += storage_bytes(state_type, st.conv) + storage_bytes(state_type, st.ssm);
    }
  }
  s.kv_bytes = s.kv_bytes_per_sequence * o.batch;
  const std::uint64_t positions = o.logits_to_keep != 0 ? std::min(o.logits_to_keep, s.context) : s.context;
  s.logits_bytes = storage_bytes(o.logits_float32 ? dtype::f32 : m.compute_dtype, m.vocab_size) * positions * o.batch;
  return s;  // a batch's rows are independent tensors: no prefix is shared
}

/// Nothing is reserved: device − weights − the caller's overhead.
[[nodiscard]] constexpr auto kv_budget(bytes device_memory, bytes weights, const engine_options& o) -> bytes {
  return kvsize::detail::saturating_sub(device_memory, weights + o.engine_overhead);
}

[[nodiscard]] constexpr auto capacity(const engine_sizing& s, bytes budget) -> engine_capacity {
  return kvsize::detail::plain_capacity(s, budget);
}

}  // namespace kvsize::engines::transformers
