// SPDX-License-Identifier: MIT
// The `exact` profile: the mathematical minimum a model must keep, no engine overhead.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <string_view>  // std::string_view
#include <cstdint>  // std::uint32_t, std::uint64_t
#include <optional>  // std::optional

#include "common.hpp"
#include "engine_concept.hpp"

namespace kvsize::engines::exact {

/// The model as published: K, V and states in its compute dtype (`--state-dtype` for the states).
[[nodiscard]] constexpr auto stage_types(const model_spec& m, const engine_options& o) -> detail::stage_dtypes {
  return {detail::kv_or(o, kv_dtypes::same(m.compute_dtype)), detail::state_in(o, m.compute_dtype)};
}

/// Tokens a group of kind `k` (window `window`) holds of a sequence of `context` tokens: full,
/// latent: context; sliding, chunked: min(context, window) (kv_cache.hpp's layer_tokens_held); a
/// state: none.
[[nodiscard]] constexpr auto tokens_held(group_kind k, std::uint64_t window, std::uint64_t context) -> std::uint64_t {
  switch (k) {
    case group_kind::sliding:
    case group_kind::chunked: return detail::min_of(context, window);
    case group_kind::recurrent_state: return 0;
    case group_kind::full:
    case group_kind::latent: break;
  }
  return context;
}

/// What the context changes, from the parts' rates (size_stage's last step, and all of
/// with_context): each part's bytes per token × the tokens it holds, and of a shared prefix,
/// summed whole and then divided over the tp ranks.
constexpr void charge(const engine_options& o, engine_sizing& s) {
  bytes per_sequence{0};
  bytes prefix{0};
  for (std::uint32_t i = 0; i < s.part_count; ++i) {
    const cache_part& p = s.part(i);
    per_sequence += p.bytes_per_token * tokens_held(p.group, p.window, s.context);
    prefix += p.bytes_per_token * detail::prefix_tokens_held(p.group, p.window, o.shared_prefix, s.context);
  }
  s.kv_bytes_per_sequence = per_sequence / o.tp;
  s.kv_bytes = s.kv_bytes_per_sequence * o.batch;
  s.prefix_bytes_per_sequence = prefix / o.tp;
  s.prefix_bytes_saved = s.prefix_bytes_per_sequence * (o.batch - 1);
}

/// Every KV layer of [r.first, r.first + r.count) holds exactly the tokens its attention reads
/// (full, latent: context; sliding: min(context, W); chunked: min(context, C)); recurrent layers
/// keep their state in `state_dtype` (default: the compute dtype). Under tensor parallelism each
/// device holds 1/tp of every figure, rounded down to whole bytes: the ideal shard of the totals,
/// which is why the groups are taken whole (head_split::none) and divided at the end. One part per
/// kind and window holds the whole rates (detail::add_rate_part).
[[nodiscard]] constexpr auto size_stage(const model_spec& m, const engine_options& o, detail::stage_range r)
    -> engine_sizing {
  engine_sizing s = detail::start_sizing(engine_kind::exact, m, o, r, stage_types(m, o));
  bytes per_token{0};
  bytes state{0};
  const auto add_rows = [&](const layer_group& g) {
    per_token += g.row() * g.layers;
    detail::add_rate_part(s, g);
  };
  const auto add_state = [&](const layer_group& g) {
    // One array of conv + ssm elements, as state_bytes_per_sequence counts it.
    state += storage_bytes(g.types.k, g.conv_elements + g.ssm_elements) * g.layers;
  };
  for_each_group(detail::engine_groups(m, o, s, head_split::none), add_rows, add_state);
  // The ideal shard: each rank's share of the heads the groups hold whole.
  s.kv_heads_per_rank = static_cast<std::uint32_t>(detail::ceil_div(s.kv_heads_per_rank, o.tp));
  s.kv_bytes_per_token = per_token / o.tp;
  s.state_bytes_per_sequence = state / o.tp;
  charge(o, s);
  return s;
}

/// The sizing `s` (size_stage's, made with options that differ from `o` in the context only) at
/// o.context: the parts' rates do not depend on it, so only `charge` is redone.
[[nodiscard]] constexpr auto with_context(const model_spec& m, const engine_options& o, engine_sizing s)
    -> engine_sizing {
  s.context = kvsize::detail::context_of(m, o);
  charge(o, s);
  return s;
}

}  // namespace kvsize::engines::exact

namespace kvsize {

/// The mathematical minimum as an engine type (see engine_concept.hpp).
struct exact_engine : engine_defaults<exact_engine> {
  static constexpr engine_kind kind = engine_kind::exact;
  static constexpr std::string_view name = "exact";
  static constexpr std::string_view display_name = "exact";
  /// No engine: the mathematical minimum.
  static constexpr bool is_engine = false;
  static constexpr std::optional<dtype> kv_4bit = dtype::int4;
  /// The config's dtype: the model as published.
  [[nodiscard]] static constexpr auto serving_dtype(const config_dtype_facts& f) -> dtype { return f.config_dtype; }
  [[nodiscard]] static constexpr auto stage_types(const model_spec& m, const engine_options& o)
      -> detail::stage_dtypes {
    return engines::exact::stage_types(m, o);
  }
  /// No context setting: 0.
  [[nodiscard]] static constexpr auto default_context(const model_spec& /*m*/, const engine_options& /*o*/)
      -> std::uint64_t {
    return 0;
  }
  [[nodiscard]] static constexpr auto size_stage(const model_spec& m, const engine_options& o, detail::stage_range r)
      -> engine_sizing {
    return engines::exact::size_stage(m, o, r);
  }
  /// Its context terms follow from the sizing's rates (engines::exact::with_context).
  [[nodiscard]] static constexpr auto with_context(const model_spec& m, const engine_options& o,
                                                   const engine_sizing& s) -> std::optional<engine_sizing> {
    return engines::exact::with_context(m, o, s);
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
