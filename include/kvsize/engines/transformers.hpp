// SPDX-License-Identifier: MIT
// transformers: DynamicCache grows one tensor per layer by concatenation; sliding-window layers
// keep the last W − 1 tokens; latent-attention models cache the expanded per-head K and V;
// the logits of every position unless `logits_to_keep`. Facts from src/transformers/cache_utils.py
// and the models' modeling_*.py (see docs/engines.md).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>  // std::max, std::min
#include <string_view>  // std::string_view
#include <cstdint>    // std::uint32_t, std::uint64_t
#include <optional>   // std::optional

#include "common.hpp"
#include "engine_concept.hpp"

namespace kvsize::engines::transformers {

/// The model's own dtype for K, V and states (DynamicCache stores what the layers compute; a
/// Mamba cache is made in the model's dtype); `--state-dtype` for the states.
[[nodiscard]] constexpr auto stage_types(const model_spec& m, const engine_options& o)
    -> kvsize::detail::stage_dtypes {
  return {kvsize::detail::kv_or(o, kv_dtypes::same(m.compute_dtype)), kvsize::detail::state_in(o, m.compute_dtype)};
}

/// Tokens a DynamicCache layer of kind `k` keeps after `tokens` tokens: sliding and chunked
/// layers (DynamicSlidingWindowLayer) keep the last W − 1 (they return W to attention).
[[nodiscard]] constexpr auto tokens_kept(group_kind k, std::uint64_t window, std::uint64_t tokens) -> std::uint64_t {
  if (is_windowed(k)) {
    return std::min(tokens, window == 0 ? 0 : window - 1);
  }
  return tokens;
}

/// What the context and the batch change, from the parts' rates (size_stage's last step, and all
/// of with_context and with_users): each part's bytes per token × the tokens it keeps, the batch's
/// allocation, and the logits of `logits_to_keep` positions (every one by default).
constexpr void charge(const model_spec& m, const engine_options& o, engine_sizing& s) {
  s.kv_bytes_per_sequence = bytes{0};
  for (std::uint32_t i = 0; i < s.part_count; ++i) {
    const cache_part& p = s.part(i);
    s.kv_bytes_per_sequence += p.bytes_per_token * tokens_kept(p.group, p.window, s.context);
  }
  s.kv_bytes = s.kv_bytes_per_sequence * o.batch;
  const transformers_knobs& k = o.transformers;
  const std::uint64_t positions = k.logits_to_keep != 0 ? std::min(k.logits_to_keep, s.context) : s.context;
  s.logits_bytes = storage_bytes(k.logits_float32 ? dtype::f32 : m.compute_dtype, m.vocab_size) * positions * o.batch;
}

/// Heads per rank max(1, n // tp) (the model's attention splits its heads; latent layers cache
/// K = heads·(nope + rope), V = heads·v_head_dim over the query heads), the state in the compute
/// dtype unless `state_dtype`, then `charge`. One part per kind and window holds the rates
/// (kvsize::detail::add_rate_part).
[[nodiscard]] constexpr auto size_stage(const model_spec& m, const engine_options& o, kvsize::detail::stage_range r)
    -> engine_sizing {
  engine_sizing s = kvsize::detail::start_plain_sizing(engine_kind::transformers, m, o, r, stage_types(m, o));
  // MiniMaxM3VLSparseCacheLayer keeps idx_keys in the activation dtype (models/minimax_m3_vl @01a05aad).
  const layer_groups groups = kvsize::detail::engine_groups(m, o, s, head_split::replicate, mla_cache_layout::expanded,
                                                            false, index_key_type::fixed, m.compute_dtype);
  for_each_group(
      groups,
      [&](const layer_group& g) {
        s.kv_bytes_per_token += g.row() * g.layers;
        kvsize::detail::add_rate_part(s, g);
      },
      [&](const layer_group& g) { s.state_bytes_per_sequence += g.state() * g.layers; });
  charge(m, o, s);
  return s;  // a batch's rows are independent tensors: no prefix is shared
}

}  // namespace kvsize::engines::transformers

namespace kvsize {

/// transformers (generate() with a DynamicCache) as an engine type (see engine_concept.hpp).
struct transformers_engine : engine_defaults<transformers_engine> {
  static constexpr engine_kind kind = engine_kind::transformers;
  static constexpr std::string_view name = "transformers";
  static constexpr std::array<std::string_view, 2> aliases{"hf", "huggingface"};
  static constexpr std::string_view display_name = "transformers";
  /// v5 `from_pretrained(dtype="auto")`: the config's dtype (v4 loaded float32 unless told); a config
  /// without dtype stays float32 here (v5 would read the checkpoint). DynamicCache holds what the
  /// layers compute.
  [[nodiscard]] static constexpr auto serving_dtype(const config_dtype_facts& f) -> dtype { return f.config_dtype; }
  [[nodiscard]] static constexpr auto stage_types(const model_spec& m, const engine_options& o)
      -> detail::stage_dtypes {
    return engines::transformers::stage_types(m, o);
  }
  /// No context setting: 0.
  [[nodiscard]] static constexpr auto default_context(const model_spec& /*m*/, const engine_options& /*o*/)
      -> std::uint64_t {
    return 0;
  }
  [[nodiscard]] static constexpr auto kv_type_refusal(dtype t) -> std::string_view {
    return traits(t).block_elements != 1 ? "transformers has no GGML block-quantized KV cache (q8_0, q4_0, ...)"
                                         : std::string_view{};
  }
  [[nodiscard]] static constexpr auto size_stage(const model_spec& m, const engine_options& o, detail::stage_range r)
      -> engine_sizing {
    return engines::transformers::size_stage(m, o, r);
  }
  /// Affine in the batch: the KV allocation and the logits (engines::transformers::charge, the last
  /// step of size_stage) for o.batch sequences; nothing is sized again.
  [[nodiscard]] static constexpr auto with_users(const model_spec& m, const engine_options& o, engine_sizing s)
      -> std::optional<engine_sizing> {
    engines::transformers::charge(m, o, s);
    return s;
  }
  /// The same step for o.context tokens: the parts' rates do not depend on the context.
  [[nodiscard]] static constexpr auto with_context(const model_spec& m, const engine_options& o, engine_sizing s)
      -> std::optional<engine_sizing> {
    s.context = kvsize::detail::context_of(m, o);
    engines::transformers::charge(m, o, s);
    return s;
  }
  /// Nothing is reserved: device − weights − the caller's overhead.
  [[nodiscard]] static constexpr auto budget(const engine_options& /*o*/) -> budget_rule { return {}; }
  /// The lesson's naive forward pass: logits of every position of every sequence (unless
  /// logits_to_keep) in the compute dtype, or float32 with logits_float32; generate()'s float32
  /// sampler copy of the last logits (batch × vocab × 4 B); activations of one forward pass over
  /// batch × context tokens.
  [[nodiscard]] static constexpr auto workspace(const model_spec& m, const engine_options& o) -> workspace_defaults {
    const std::uint64_t context = kvsize::detail::context_of(m, o);
    const bool keep = o.transformers.logits_to_keep != 0;
    return {.positions = keep ? logits_kept::last : logits_kept::all,
            .logits_float32 = o.transformers.logits_float32,
            .last_rows = keep ? detail::checked_mul(std::min(o.transformers.logits_to_keep, context), o.batch) : o.batch,
            .activation_tokens = detail::checked_mul(o.batch, context),
            .sampler_rows = o.batch,
            .sequences = o.batch,
            .activation_tp = o.tp};
  }
};
static_assert(engine<transformers_engine>);

}  // namespace kvsize

// The registry and the dispatch, so that this header alone is usable (engine.hpp includes every
// engine header; this one is already complete here).
#include "../engine.hpp"
