// SPDX-License-Identifier: MIT
// What one decode step reads, and how much work dropping the KV cache costs.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>    // std::uint64_t

#include "error.hpp"
#include "bytes.hpp"
#include "detail/checked.hpp"

namespace kvsize {

/// Bytes one decode step reads from memory: every weight once, plus the KV cache of every
/// sequence in the batch. Decode at small batch is bandwidth-bound, so this sets its pace.
struct decode_traffic {
  bytes weights;  ///< weights read once per step (shared by the batch)
  bytes kv;       ///< batch × KV bytes of one sequence at its current length

  [[nodiscard]] constexpr auto total() const -> bytes { return weights + kv; }
  /// KV as a fraction of all bytes read.
  [[nodiscard]] constexpr auto kv_share() const -> double {
    const bytes t = total();
    return t.count() == 0 ? 0.0 : static_cast<double>(kv.count()) / static_cast<double>(t.count());
  }
  /// KV relative to the weights: the extra a step reads because of the context (3.8% for
  /// Qwen2.5-1.5B at 4,096 tokens).
  [[nodiscard]] constexpr auto kv_over_weights() const -> double {
    return weights.count() == 0 ? 0.0 : static_cast<double>(kv.count()) / static_cast<double>(weights.count());
  }
  /// Seconds per step if the step were purely bandwidth-bound: total / bandwidth.
  /// A lower bound on the time per output token.
  [[nodiscard]] constexpr auto seconds_at(std::uint64_t bandwidth_bytes_per_second) const -> double {
    if (bandwidth_bytes_per_second == 0) {
      throw kvsize::invalid_argument("kvsize: bandwidth must be positive");
    }
    return static_cast<double>(total().count()) / static_cast<double>(bandwidth_bytes_per_second);
  }
};

/// Token positions a model processes to generate `generated` tokens after a `prompt`-token
/// prompt with a KV cache: one prefill of P, then N − 1 single-token steps: P + (N − 1).
[[nodiscard]] constexpr auto positions_with_cache(std::uint64_t prompt, std::uint64_t generated) -> std::uint64_t {
  if (generated == 0) {
    throw kvsize::invalid_argument("kvsize: generated must be positive");
  }
  return detail::checked_add(prompt, generated - 1);
}

/// ... without a cache: step i reprocesses all P + i tokens, Σ_{i=0}^{N−1} (P + i) = N·P + N(N−1)/2.
[[nodiscard]] constexpr auto positions_without_cache(std::uint64_t prompt, std::uint64_t generated)
    -> std::uint64_t {
  if (generated == 0) {
    throw kvsize::invalid_argument("kvsize: generated must be positive");
  }
  // N(N−1)/2: divide the even factor first so the product cannot overflow early.
  const std::uint64_t n = generated;
  const std::uint64_t triangle = (n % 2 == 0) ? detail::checked_mul(n / 2, n - 1) : detail::checked_mul(n, (n - 1) / 2);
  return detail::checked_add(detail::checked_mul(n, prompt), triangle);
}

/// How many times more positions a model processes without a KV cache than with one.
/// P = 128: 53× for N = 64, 96× for 128, 171× for 256, 307× for 512. Grows linearly in N.
[[nodiscard]] constexpr auto no_cache_work_ratio(std::uint64_t prompt, std::uint64_t generated) -> double {
  return static_cast<double>(positions_without_cache(prompt, generated)) /
         static_cast<double>(positions_with_cache(prompt, generated));
}

}  // namespace kvsize
