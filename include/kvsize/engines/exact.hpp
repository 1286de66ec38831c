// SPDX-License-Identifier: MIT
// The `exact` profile: the mathematical minimum a model must keep, no engine overhead.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint32_t, std::uint64_t

#include "common.hpp"

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

/// Device memory minus weights minus the caller's overhead.
[[nodiscard]] constexpr auto kv_budget(bytes device_memory, bytes weights, const engine_options& o) -> bytes {
  return detail::saturating_sub(device_memory, weights + o.engine_overhead);
}

[[nodiscard]] constexpr auto capacity(const engine_sizing& s, bytes budget) -> engine_capacity {
  return detail::plain_capacity(s, budget);
}

}  // namespace kvsize::engines::exact
