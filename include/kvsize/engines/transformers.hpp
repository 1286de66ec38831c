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
[[nodiscard]] constexpr auto tokens_kept(group_kind k, std::uint64_t window, std::uint64_t tokens) -> std::uint64_t {
  if (is_windowed(k)) {
    return std::min(tokens, window == 0 ? 0 : window - 1);
  }
  return tokens;
}

/// Heads per rank max(1, n // tp) (the model's attention splits its heads; latent layers cache
/// K = heads·(nope + rope), V = heads·v_head_dim over the query heads), the state in the compute
/// dtype unless `state_dtype`, and the logits of `logits_to_keep` positions (every one by default).
[[nodiscard]] constexpr auto size_stage(const model_spec& m, const engine_options& o, kvsize::detail::stage_range r)
    -> engine_sizing {
  engine_sizing s = kvsize::detail::start_sizing(engine_kind::transformers, m, o, r);
  kvsize::detail::require_plain_types(s.kv, "transformers");
  s.kv_heads_per_rank = heads_per_rank(head_split::replicate, effective_kv_heads(m), o.tp);
  const layer_groups groups = kvsize::detail::engine_groups(engine_kind::transformers, m, o, s, head_split::replicate,
                                                            mla_cache_layout::expanded);
  for_each_group(
      groups,
      [&](const layer_group& g) {
        s.kv_bytes_per_token += g.row() * g.layers;
        s.kv_bytes_per_sequence += g.row() * g.layers * tokens_kept(g.kind, g.window, s.context);
      },
      [&](const layer_group& g) { s.state_bytes_per_sequence += g.state() * g.layers; });
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
