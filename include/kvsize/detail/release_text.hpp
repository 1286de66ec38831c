// SPDX-License-Identifier: MIT
// Reading an engine release as users write it ("v0.5.10", "0.19"): the pieces every engine's release
// parser shares. Each engine decides what may follow (SGLang: .PATCH, rcN, .postN; vLLM: anything
// after a dot), not this header.
#pragma once
#include "require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint32_t
#include <string_view>  // std::string_view

namespace kvsize::detail {

/// Removes an optional 'v' and the "0." that every 0.x release starts with from `text`'s front;
/// false (text unchanged) when it does not start so.
constexpr auto take_release_zero(std::string_view& text) -> bool {
  std::string_view rest = text;
  if (!rest.empty() && (rest.front() == 'v' || rest.front() == 'V')) {
    rest.remove_prefix(1);
  }
  if (!rest.starts_with("0.")) {
    return false;
  }
  rest.remove_prefix(2);
  text = rest;
  return true;
}

/// Reads the number at `text`'s front into `out` and removes it: 1 to 4 decimal digits, no leading
/// zero except "0" itself. False (text unchanged) for none, five or more (no release number has five,
/// and four keep `out` from overflowing), or a leading zero ("05" names no release).
constexpr auto take_release_number(std::string_view& text, std::uint32_t& out) -> bool {
  constexpr std::size_t most_digits = 4;
  std::size_t digits = 0;
  std::uint32_t value = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') {
    if (digits == most_digits) {
      return false;
    }
    value = value * 10 + static_cast<std::uint32_t>(text[digits] - '0');
    ++digits;
  }
  if (digits == 0 || (digits > 1 && text.front() == '0')) {
    return false;
  }
  out = value;
  text.remove_prefix(digits);
  return true;
}

}  // namespace kvsize::detail
