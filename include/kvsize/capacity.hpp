// SPDX-License-Identifier: MIT
// Capacity: how many tokens, sequences, or how long a context fit in the memory left for the cache.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>    // std::uint64_t
#include <limits>     // std::numeric_limits

#include "error.hpp"
#include "bytes.hpp"
#include "detail/checked.hpp"
#include "dtype.hpp"
#include "detail/search.hpp"
#include "kv_cache.hpp"
#include "model_spec.hpp"

namespace kvsize {

/// Returned where nothing bounds the answer (a model that keeps no per-token cache).
inline constexpr std::uint64_t unbounded = std::numeric_limits<std::uint64_t>::max();

/// Element types of everything a sequence keeps: K, V and the recurrent state.
struct cache_format {
  kv_dtypes kv;
  dtype state;
  /// Everything in the model's compute dtype.
  [[nodiscard]] static constexpr auto of(const model_spec& m) -> cache_format {
    return {kv_dtypes::same(m.compute_dtype), m.compute_dtype};
  }
  /// K and V in `t`, the state in the model's compute dtype.
  [[nodiscard]] static constexpr auto with_kv(const model_spec& m, kv_dtypes t) -> cache_format {
    return {t, m.compute_dtype};
  }
};

/// What one sequence costs, for repeated queries on one model: the per-kind KV sums and the state,
/// computed once (one pass over the layers); each query after that is O(1).
struct sequence_cost {
  kv_token_bytes kv;  ///< KV bytes per token by kind of layer
  bytes state;        ///< recurrent state per sequence
  [[nodiscard]] static constexpr auto of(const model_spec& m, cache_format f) -> sequence_cost {
    // kv_token_bytes_of checks the spec, the state's size included, in its one pass.
    return {kv_token_bytes_of(m, f.kv), detail::state_row_bytes(m, f.state)};
  }
  /// KV plus state of one sequence of `tokens` tokens.
  [[nodiscard]] constexpr auto per_sequence(std::uint64_t tokens) const -> bytes {
    return kv.per_sequence(tokens) + state;
  }
};

/// All one sequence of `tokens` tokens keeps: its KV plus its recurrent state.
[[nodiscard]] constexpr auto cache_bytes_per_sequence(const model_spec& m, std::uint64_t tokens, cache_format f)
    -> bytes {
  return sequence_cost::of(m, f).per_sequence(tokens);
}

/// Memory left for the cache on one device: device_memory − weights − reserve, or 0 when the
/// weights and reserve alone do not fit (see weights_fit).
[[nodiscard]] constexpr auto kv_budget(bytes device_memory, bytes weights, bytes reserve = bytes{0}) -> bytes {
  const bytes used = weights + reserve;
  return used < device_memory ? device_memory - used : bytes{0};
}

/// Whether the weights and the reserve fit in device memory with room to spare.
[[nodiscard]] constexpr auto weights_fit(bytes device_memory, bytes weights, bytes reserve = bytes{0}) -> bool {
  return weights + reserve < device_memory;
}

/// Tokens whose K and V fit in `budget`, counting the full per-token cost (every sequence
/// shorter than every window): floor(budget / kv_bytes_per_token).
[[nodiscard]] constexpr auto max_tokens(const model_spec& m, bytes budget, kv_dtypes t) -> std::uint64_t {
  const bytes per_token = kv_bytes_per_token(m, t);
  return per_token.count() == 0 ? unbounded : budget / per_token;
}

/// Sequences of `context` tokens that fit in `budget` at once:
/// floor(budget / (kv_bytes_per_sequence(context) + state)).
[[nodiscard]] constexpr auto max_sequences(const sequence_cost& c, bytes budget, std::uint64_t context)
    -> std::uint64_t {
  const bytes per_sequence = c.per_sequence(context);
  return per_sequence.count() == 0 ? unbounded : budget / per_sequence;
}
[[nodiscard]] constexpr auto max_sequences(const model_spec& m, bytes budget, std::uint64_t context, cache_format f)
    -> std::uint64_t {
  return max_sequences(sequence_cost::of(m, f), budget, context);
}

/// The longest context (≤ `limit`) at which `batch` sequences fit in `budget`; 0 if none does.
/// KV per sequence is non-decreasing in context, so this is a binary search.
[[nodiscard]] constexpr auto max_context(const sequence_cost& c, bytes budget, std::uint64_t batch,
                                         std::uint64_t limit) -> std::uint64_t {
  if (batch == 0) {
    throw kvsize::invalid_argument("kvsize: batch must be positive");
  }
  const auto fits = [&](std::uint64_t context) {
    const bytes per_sequence = c.per_sequence(context);
    return per_sequence.count() == 0 || budget / per_sequence >= batch;
  };
  if (!fits(0)) {
    return 0;
  }
  // Bound the search so that no probe can overflow: layers that grow without bound cap the
  // context at budget / their per-token bytes (beyond it not even one sequence fits); windowed
  // layers stop growing at their window.
  std::uint64_t hi = limit;
  const bool grows_without_bound = c.kv.growing.count() != 0;
  if (grows_without_bound) {
    hi = detail::min_of(hi, budget / c.kv.growing);
  }
  const std::uint64_t longest_window = detail::max_of(c.kv.sliding.count() != 0 ? c.kv.sliding_window : 0,
                                                c.kv.chunked.count() != 0 ? c.kv.attention_chunk : 0);
  if (!grows_without_bound && longest_window < limit && fits(longest_window)) {
    return limit;  // only windowed layers, and their full windows fit: any length does
  }
  return detail::last_true(0, hi, fits);  // fits(0) holds
}
[[nodiscard]] constexpr auto max_context(const model_spec& m, bytes budget, std::uint64_t batch, cache_format f,
                                         std::uint64_t limit) -> std::uint64_t {
  if (batch == 0) {
    throw kvsize::invalid_argument("kvsize: batch must be positive");
  }
  return max_context(sequence_cost::of(m, f), budget, batch, limit);
}

}  // namespace kvsize

namespace kvsize {

/// A deployment's memory need against a device: weights + reserve + batch × cache per sequence.
struct fit_report {
  bytes weights;    ///< model weights on the device
  bytes reserve;    ///< runtime overhead / headroom the caller sets aside
  bytes cache;      ///< batch × (KV + recurrent state) of one sequence at the context
  bytes available;  ///< device memory
  [[nodiscard]] constexpr auto needed() const -> bytes { return weights + reserve + cache; }
  [[nodiscard]] constexpr auto fits() const -> bool { return needed() <= available; }
};

/// Whether `batch` sequences of `context` tokens of model `m` fit in `device_memory` next to
/// `weights` and `reserve`. Usable in static_assert:
///   static_assert(kvsize::check_fit(kvsize::presets::qwen2_5_1_5b, kvsize::gpu("rtx-3060").memory,
///                                   2'048, 100, kvsize::bytes{3'087'428'608}).fits());
[[nodiscard]] constexpr auto check_fit(const model_spec& m, bytes device_memory, std::uint64_t context,
                                       std::uint64_t batch, bytes weights, cache_format f, bytes reserve = bytes{0})
    -> fit_report {
  return {weights, reserve, cache_bytes_per_sequence(m, context, f) * batch, device_memory};
}
/// ... with the sequence's cost computed once (sequence_cost::of) for many queries.
[[nodiscard]] constexpr auto check_fit(const sequence_cost& c, bytes device_memory, std::uint64_t context,
                                       std::uint64_t batch, bytes weights, bytes reserve = bytes{0}) -> fit_report {
  return {weights, reserve, c.per_sequence(context) * batch, device_memory};
}
/// ... with everything cached in the model's compute dtype.
[[nodiscard]] constexpr auto check_fit(const model_spec& m, bytes device_memory, std::uint64_t context,
                                       std::uint64_t batch, bytes weights, bytes reserve = bytes{0}) -> fit_report {
  return check_fit(m, device_memory, context, batch, weights, cache_format::of(m), reserve);
}

}  // namespace kvsize
