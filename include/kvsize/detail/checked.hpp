// SPDX-License-Identifier: MIT
// Overflow-checked unsigned 64-bit arithmetic shared by every kvsize formula.
#pragma once
#include "require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>    // std::uint64_t
#include <limits>     // std::numeric_limits

#include "../error.hpp"

namespace kvsize::detail {

// Unsigned overflow wraps silently, even in a constant expression. Every size in kvsize goes
// through these helpers instead: in a constant expression the throw makes the expression
// non-constant, so the compiler reports the message below; at run time it is an exception.
// GCC and Clang check with their overflow builtins (usable in constant expressions): one
// instruction and a flag test, where the portable test of a product costs a 64-bit division.
#if defined(__GNUC__) || defined(__clang__)
#define KVSIZE_DETAIL_OVERFLOW_BUILTINS 1
#else
#define KVSIZE_DETAIL_OVERFLOW_BUILTINS 0
#endif

[[nodiscard]] constexpr auto checked_add(std::uint64_t a, std::uint64_t b) -> std::uint64_t {
#if KVSIZE_DETAIL_OVERFLOW_BUILTINS
  std::uint64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) {
    throw kvsize::overflow_error("kvsize: addition overflows 2^64 bytes");
  }
  return sum;
#else
  if (a > std::numeric_limits<std::uint64_t>::max() - b) {
    throw kvsize::overflow_error("kvsize: addition overflows 2^64 bytes");
  }
  return a + b;
#endif
}

[[nodiscard]] constexpr auto checked_sub(std::uint64_t a, std::uint64_t b) -> std::uint64_t {
  if (b > a) {
    throw kvsize::underflow_error("kvsize: subtraction goes below zero bytes");
  }
  return a - b;
}

[[nodiscard]] constexpr auto checked_mul(std::uint64_t a, std::uint64_t b) -> std::uint64_t {
#if KVSIZE_DETAIL_OVERFLOW_BUILTINS
  std::uint64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) {
    throw kvsize::overflow_error("kvsize: multiplication overflows 2^64 bytes");
  }
  return product;
#else
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) {
    throw kvsize::overflow_error("kvsize: multiplication overflows 2^64 bytes");
  }
  return a * b;
#endif
}

/// ceil(a / b); b must be non-zero.
[[nodiscard]] constexpr auto ceil_div(std::uint64_t a, std::uint64_t b) -> std::uint64_t {
  if (b == 0) {
    throw kvsize::domain_error("kvsize: division by zero");
  }
  return a / b + (a % b != 0 ? 1 : 0);
}

/// floor(a / b); b must be non-zero.
[[nodiscard]] constexpr auto floor_div(std::uint64_t a, std::uint64_t b) -> std::uint64_t {
  if (b == 0) {
    throw kvsize::domain_error("kvsize: division by zero");
  }
  return a / b;
}

/// The smaller and the larger of two byte or token counts. Not std::min/std::max: <algorithm>
/// would add ~65 ms to every translation unit that includes the core umbrella, for two one-line
/// functions; and not named min/max, which <windows.h> defines as macros.
[[nodiscard]] constexpr auto min_of(std::uint64_t a, std::uint64_t b) -> std::uint64_t { return b < a ? b : a; }
[[nodiscard]] constexpr auto max_of(std::uint64_t a, std::uint64_t b) -> std::uint64_t { return a < b ? b : a; }

/// The smallest multiple of `step` that is >= a (llama.cpp's GGML_PAD, vLLM's round_up).
[[nodiscard]] constexpr auto round_up(std::uint64_t a, std::uint64_t step) -> std::uint64_t {
  return checked_mul(ceil_div(a, step), step);
}

}  // namespace kvsize::detail
