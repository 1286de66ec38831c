// SPDX-License-Identifier: MIT
// Reading a size such as "24GiB", "12.49GB" or "80 GB" into exact bytes.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <string_view>  // std::string_view

#include "bytes.hpp"

namespace kvsize {

/// Parses "<number>[ ]<unit>" into bytes. Units: B; KiB, MiB, GiB, TiB (powers of 1024);
/// KB or kB, MB, GB, TB (powers of 1000); a bare number is bytes. The number may have a
/// decimal fraction, evaluated exactly: "12.49GB" is 12,490,000,000 B and "58.11GiB" is
/// floor(5,811 × 2^30 / 100) = 62,395,137,392 B (rounded down to whole bytes).
/// Returns nullopt for malformed text, an unknown unit, or a value beyond 2^64 − 1.
[[nodiscard]] constexpr auto parse_size(std::string_view text) -> std::optional<bytes> {
  std::size_t i = 0;
  std::uint64_t mantissa = 0;   // all digits, integer and fraction, as one integer
  std::uint64_t divisor = 1;    // 10^(fraction digits)
  bool any_digit = false;
  bool in_fraction = false;
  constexpr std::uint64_t max = ~std::uint64_t{0};
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9') {
      const auto d = static_cast<std::uint64_t>(c - '0');
      if (mantissa > (max - d) / 10 || (in_fraction && divisor > max / 10)) {
        return std::nullopt;
      }
      mantissa = mantissa * 10 + d;
      divisor *= in_fraction ? 10 : 1;
      any_digit = true;
    } else if (c == '.' && !in_fraction) {
      in_fraction = true;
    } else if (c == '\'' || c == '_') {
      continue;  // digit separators: 12'490MB
    } else {
      break;
    }
  }
  if (!any_digit) {
    return std::nullopt;
  }
  while (i < text.size() && text[i] == ' ') {
    ++i;
  }
  const std::string_view unit_text = text.substr(i);
  struct unit_entry {
    std::string_view name;
    std::uint64_t size;
  };
  constexpr unit_entry units[] = {
      {"", 1},         {"B", 1},           {"KiB", 1ULL << 10},       {"MiB", 1ULL << 20},
      {"GiB", 1ULL << 30}, {"TiB", 1ULL << 40}, {"KB", 1'000},           {"kB", 1'000},
      {"MB", 1'000'000},   {"GB", 1'000'000'000}, {"TB", 1'000'000'000'000},
  };
  for (const auto& u : units) {
    if (u.name == unit_text) {
      // value = mantissa × unit / divisor, exactly, rounded down; split to avoid overflow.
      const std::uint64_t whole = mantissa / divisor;
      const std::uint64_t frac = mantissa % divisor;
      if (whole != 0 && u.size > max / whole) {
        return std::nullopt;
      }
      const std::uint64_t head = whole * u.size;
      // frac < divisor ≤ 10^19; frac × unit may overflow, so divide the unit first when it can.
      std::uint64_t tail = 0;
      if (u.size % divisor == 0) {
        tail = frac * (u.size / divisor);
      } else if (frac == 0 || u.size <= max / frac) {
        tail = frac * u.size / divisor;
      } else {
        return std::nullopt;
      }
      if (head > max - tail) {
        return std::nullopt;
      }
      return bytes{head + tail};
    }
  }
  return std::nullopt;
}

}  // namespace kvsize
