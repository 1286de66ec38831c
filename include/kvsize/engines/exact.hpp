// SPDX-License-Identifier: MIT
// The `exact` profile: the mathematical minimum a model must keep, no engine overhead.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <string_view>  // std::string_view
#include <cstdint>  // std::uint32_t, std::uint64_t

#include "common.hpp"
#include "engine_concept.hpp"

namespace kvsize::engines::exact {

/// Every KV layer of [r.first, r.first + r.count) holds exactly the tokens its attention reads
/// (full, latent: context; sliding: min(context, W); chunked: min(context, C)); recurrent layers
/// keep their state in `state_dtype` (default: the compute dtype). Under tensor parallelism each
/// device holds 1/tp of every figure, rounded up to whole bytes: the ideal shard.
[[nodiscard]] constexpr auto size_stage(const model_spec& m, const engine_options& o, detail::stage_range r)
    -> engine_sizing {
  engine_sizing s = detail::start_sizing(engine_kind::exact, m, o, r);
  s.kv_heads_per_rank = static_cast<std::uint32_t>(detail::ceil_div(effective_kv_heads(m), o.tp));
  const dtype state_type = o.state_dtype ? *o.state_dtype : m.compute_dtype;
  bytes per_token{0};
  bytes per_sequence{0};
  bytes prefix{0};
  bytes state{0};
  for (std::uint32_t il = r.first; il < r.first + r.count; ++il) {
    const bytes layer = layer_kv_bytes_per_token(m, il, s.kv);
    const layer_kind k = kind_of_layer(m, il);
    per_token += layer;
    per_sequence += layer * layer_tokens_held(m, il, s.context);
    prefix += layer * detail::prefix_tokens_held(k, detail::window_of(m, k), o.shared_prefix, s.context);
    if (layer_keeps_state(m, il)) {
      state += storage_bytes(state_type, m.state.conv_elements + m.state.ssm_elements);
    }
  }
  s.kv_bytes_per_token = per_token / o.tp;
  s.kv_bytes_per_sequence = per_sequence / o.tp;
  s.kv_bytes = s.kv_bytes_per_sequence * o.batch;
  s.state_bytes_per_sequence = state / o.tp;
  s.prefix_bytes_per_sequence = prefix / o.tp;
  s.prefix_bytes_saved = s.prefix_bytes_per_sequence * (o.batch - 1);
  return s;
}

}  // namespace kvsize::engines::exact

namespace kvsize {

/// The mathematical minimum as an engine type (see engine_concept.hpp).
struct exact_engine : engine_defaults<exact_engine> {
  static constexpr engine_kind kind = engine_kind::exact;
  static constexpr std::string_view name = "exact";
  static constexpr std::string_view display_name = "exact";
  static constexpr std::optional<dtype> kv_4bit = dtype::int4;
  /// The config's dtype: the model as published.
  [[nodiscard]] static constexpr auto serving_dtype(const config_dtype_facts& f) -> dtype { return f.config_dtype; }
  /// No context setting: 0.
  [[nodiscard]] static constexpr auto default_context(const model_spec& /*m*/) -> std::uint64_t { return 0; }
  [[nodiscard]] static constexpr auto size_stage(const model_spec& m, const engine_options& o, detail::stage_range r)
      -> engine_sizing {
    return engines::exact::size_stage(m, o, r);
  }
  /// Device memory minus weights minus the caller's overhead.
  [[nodiscard]] static constexpr auto budget(const engine_options& /*o*/) -> budget_rule { return {}; }
  /// Nothing: the KV ceiling alone, the lessons' arithmetic.
  [[nodiscard]] static constexpr auto workspace(const model_spec& /*m*/, const engine_options& o)
      -> workspace_defaults {
    return {.last_rows = o.batch, .sequences = o.batch, .activation_tp = o.tp};
  }
};
static_assert(engine<exact_engine>);

}  // namespace kvsize

// The registry and the dispatch, so that this header alone is usable (engine.hpp includes every
// engine header; this one is already complete here).
#include "../engine.hpp"
