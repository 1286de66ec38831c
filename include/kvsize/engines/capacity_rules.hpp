// SPDX-License-Identifier: MIT
// Budget arithmetic the engines share (max(0, a − b), a fraction of a budget) and the plain capacity
// rule "sequences × bytes per sequence ≤ budget". Standard library only, constexpr.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint64_t

#include "../bytes.hpp"
#include "../error.hpp"
#include "engine_sizing.hpp"

namespace kvsize::detail {

/// max(0, a − b) for budgets.
[[nodiscard]] constexpr auto saturating_sub(bytes a, bytes b) -> bytes { return a > b ? a - b : bytes{0}; }

/// floor(fraction × b), for the engines' budget fractions (0 ≤ fraction ≤ 1).
[[nodiscard]] constexpr auto fraction_of(bytes b, double fraction) -> bytes {
  if (!(fraction >= 0.0 && fraction <= 1.0)) {
    throw kvsize::invalid_argument("kvsize: a memory fraction must lie in [0, 1]");
  }
  return bytes{static_cast<std::uint64_t>(static_cast<double>(b.count()) * fraction)};
}

/// The capacity of an engine whose only rule is "sequences × bytes per sequence ≤ budget".
[[nodiscard]] constexpr auto plain_capacity(const engine_sizing& s, bytes budget) -> engine_capacity {
  engine_capacity c{};
  c.kv_budget = budget;
  c.max_tokens = s.kv_bytes_per_token.count() == 0 ? ~std::uint64_t{0} : budget / s.kv_bytes_per_token;
  const bytes per_sequence = s.kv_bytes_per_sequence + s.state_bytes_per_sequence;
  if (per_sequence.count() == 0) {
    c.max_sequences = ~std::uint64_t{0};
    c.max_sequences_shared = c.max_sequences;
    c.max_concurrency = 0;
    return c;
  }
  c.max_sequences = budget / per_sequence;
  c.max_concurrency = static_cast<double>(budget.count()) / static_cast<double>(per_sequence.count());
  // A shared prefix is held once: budget ≥ prefix + n × (per_sequence − prefix).
  const bytes prefix = s.prefix_bytes_per_sequence;
  if (prefix.count() != 0 && prefix < per_sequence && budget >= prefix) {
    c.max_sequences_shared = (budget - prefix) / (per_sequence - prefix);
  } else {
    c.max_sequences_shared = c.max_sequences;
  }
  c.allocated = per_sequence * c.max_sequences;
  return c;
}

}  // namespace kvsize::detail
