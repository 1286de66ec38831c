// SPDX-License-Identifier: MIT
// The recurrent state of hybrid and state-space models (Mamba, gated-delta linear attention): a fixed
// number of bytes per sequence, whatever its length. The per-token KV cache is kv_cache.hpp's.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint64_t

#include "bytes.hpp"
#include "dtype.hpp"
#include "model_spec.hpp"

namespace kvsize {

namespace detail {
/// state_bytes_per_sequence for a spec already checked (kv_token_bytes_of checks the state size of
/// a model with recurrent layers).
[[nodiscard]] constexpr auto state_row_bytes(const model_spec& m, dtype t) -> bytes {
  const std::uint64_t elements = m.state.conv_elements + m.state.ssm_elements;
  if (elements == 0) {  // no state to keep: no need to count the recurrent layers
    return bytes{0};
  }
  return storage_bytes(t, elements) * recurrent_layers(m);
}
}  // namespace detail

/// Recurrent state of one sequence: recurrent layers × (conv + ssm elements) in `t`.
/// Independent of the sequence's length.
[[nodiscard]] constexpr auto state_bytes_per_sequence(const model_spec& m, dtype t) -> bytes {
  detail::check_model(m);
  return detail::state_row_bytes(m, t);
}
/// ... with the state in the model's compute dtype (transformers' cache classes do so).
[[nodiscard]] constexpr auto state_bytes_per_sequence(const model_spec& m) -> bytes {
  return state_bytes_per_sequence(m, m.compute_dtype);
}

}  // namespace kvsize
