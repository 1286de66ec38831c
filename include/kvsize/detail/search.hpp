// SPDX-License-Identifier: MIT
// The one binary search behind every "largest context / most users that still fits" answer.
#pragma once
#include "require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint64_t

namespace kvsize::detail {

/// Largest n in [lo, hi] with pred(n), given that pred(lo) holds and that pred is non-increasing
/// (true up to some n, false after it). O(log(hi − lo)) calls of pred; never overflows.
template <typename Pred>
[[nodiscard]] constexpr auto last_true(std::uint64_t lo, std::uint64_t hi, Pred pred) -> std::uint64_t {
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo + 1) / 2;
    if (pred(mid)) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

}  // namespace kvsize::detail
