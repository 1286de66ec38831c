// SPDX-License-Identifier: MIT
// kvsize command line: number formatting shared by the report, the plan and the charts.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>

#include <kvsize/bytes.hpp>
#include <kvsize/fmt.hpp>

namespace kvsize::cli {

/// 1234567 → "1,234,567".
inline auto grouped(std::uint64_t n) -> std::string {
  // Built back to front; std::string::insert here trips GCC 12's -Wrestrict false positive at -O3.
  const std::string digits = std::to_string(n);
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) {
      out.push_back(',');
    }
    out.push_back(digits[i]);
  }
  return out;
}

/// "28 KiB (28,672 B)": scaled IEC, then the exact count with thousands separators.
inline auto exact(bytes b) -> std::string { return fmt::format("{} ({} B)", b, grouped(b.count())); }

}  // namespace kvsize::cli
