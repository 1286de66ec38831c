// SPDX-License-Identifier: MIT
// kvsize command line: number formatting and line wrapping shared by the report, the plan and the charts.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <kvsize/bytes.hpp>
#include <kvsize/capacity.hpp>  // unbounded
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

/// `n`, or "unbounded" for kvsize's `unbounded` (a count no memory limit bounds).
inline auto count_or_unbounded(std::uint64_t n) -> std::string {
  return n == unbounded ? std::string{"unbounded"} : grouped(n);
}

/// Appends fmt's formatting of `args` to `out`.
template <typename... Args>
void put(fmt::memory_buffer& out, fmt::format_string<Args...> format, Args&&... args) {
  fmt::format_to(std::back_inserter(out), format, std::forward<Args>(args)...);
}

/// "28 KiB (28,672 B)": scaled IEC, then the exact count with thousands separators.
inline auto exact(bytes b) -> std::string { return fmt::format("{} ({} B)", b, grouped(b.count())); }

/// The human report's width: no line of it is longer (in columns = UTF-8 code points; every character
/// kvsize prints, × − … µ included, takes one column). Exact bytes that do not fit wrap onto the next
/// line; --json and --csv keep every figure whole.
inline constexpr std::size_t report_width = 100;

/// Columns `text` takes: its UTF-8 code points (continuation bytes 10xxxxxx do not count).
inline auto columns(std::string_view text) -> std::size_t {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U;
  }));
}

/// Whether `text` holds a control character (C0: newline, tab, escape, ...; or DEL). A value kvsize prints
/// back in a command line (a -ot pattern, a reasoning parser's name) may hold none: it would break the line.
inline auto has_control_character(std::string_view text) -> bool {
  return std::any_of(text.begin(), text.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20U || static_cast<unsigned char>(c) == 0x7FU;
  });
}

namespace detail {
/// Whether a line may break at the space between `before` and `after`: never between a number and
/// its unit ("2.875 GiB", "34.67 ms"), around "×" ("256 rows × vocab"), or between an option and its
/// value ("--context 131072").
inline auto may_break_between(std::string_view before, std::string_view after) -> bool {
  if (before.starts_with("--") && !after.empty() && after.front() != '-') {
    return false;
  }
  static constexpr std::array<std::string_view, 14> units{"B",  "KiB", "MiB", "GiB", "TiB", "kB", "KB",
                                                           "MB", "GB",  "TB",  "ms",  "µs",  "s",  "GB/s"};
  if (before == "×" || after == "×") {
    return false;
  }
  const std::string_view unit = after.substr(0, after.find_first_of("),:;."));
  const bool number_before = !before.empty() && before.back() >= '0' && before.back() <= '9';
  return !(number_before && std::find(units.begin(), units.end(), unit) != units.end());
}
/// `text` split at its spaces into chunks, words joined (by one space) where may_break_between
/// says no line may break; an empty chunk stands for each extra space of a run.
inline auto unbreakable_chunks(std::string_view text) -> std::vector<std::string> {
  std::vector<std::string> chunks;
  std::string_view previous;
  bool first = true;
  while (true) {
    const std::size_t space = text.find(' ');
    const std::string_view word = text.substr(0, space);
    if (!first && !word.empty() && !previous.empty() && !detail::may_break_between(previous, word)) {
      chunks.back() += ' ';
      chunks.back() += word;
    } else {
      chunks.emplace_back(word);
    }
    first = false;
    if (!word.empty()) {
      previous = word;
    }
    if (space == std::string_view::npos) {
      break;
    }
    text.remove_prefix(space + 1);
  }
  return chunks;
}
}  // namespace detail

/// `head` then `text`, broken at spaces into lines of at most `width` columns; every line after the
/// first starts with `hanging` spaces. Each line ends in '\n'. Runs of spaces inside `text` are kept
/// (engine log lines align their figures with them); a word longer than a line is cut.
inline auto wrapped(std::string_view head, std::string_view text, std::size_t hanging,
                    std::size_t width = report_width) -> std::string {
  const std::vector<std::string> chunks = detail::unbreakable_chunks(text);
  std::string out;
  std::string line{head};
  std::size_t used = columns(head);
  bool empty_line = true;  // nothing of `text` on this line yet
  // After a word ending in ',' or ';' (the end of a clause) is where a line best breaks, if that
  // leaves it nearly full (within 20 columns of the width).
  std::size_t clause_end = std::string::npos;  // byte index in `line` of the space after such a word
  std::size_t clause_columns = 0;
  const auto finish_line = [&] {
    while (!line.empty() && line.back() == ' ') {
      line.pop_back();
    }
    out += line;
    out += '\n';
    line.assign(hanging, ' ');
    used = hanging;
    empty_line = true;
    clause_end = std::string::npos;
  };
  for (std::string_view chunk : chunks) {
    const std::size_t need = columns(chunk) + (empty_line ? 0 : 1);
    if (!empty_line && used + need > width) {
      if (clause_end != std::string::npos && clause_columns + 20 >= width) {
        const std::string carried = clause_end + 1 < line.size() ? line.substr(clause_end + 1) : std::string{};
        line.erase(clause_end);
        finish_line();
        line += carried;
        used += columns(carried);
        empty_line = carried.empty();
      } else {
        finish_line();
      }
      clause_end = std::string::npos;
      if (!empty_line && used + need > width) {
        finish_line();
      }
    }
    if (empty_line && chunk.empty() && used == hanging && !out.empty()) {
      continue;  // no run of spaces at the start of a continuation line
    }
    if (!empty_line) {
      line += ' ';
      ++used;
    }
    while (used + columns(chunk) > width && used < width) {  // cut what no line can hold
      std::size_t take = 0;
      for (std::size_t cols = 0; take < chunk.size() && used + cols < width; ++cols) {
        ++take;
        while (take < chunk.size() && (static_cast<unsigned char>(chunk[take]) & 0xC0U) == 0x80U) {
          ++take;
        }
      }
      line += chunk.substr(0, take);
      chunk.remove_prefix(take);
      finish_line();
    }
    line += chunk;
    used += columns(chunk);
    empty_line = false;
    if (!chunk.empty() && (chunk.back() == ',' || chunk.back() == ';')) {
      clause_end = line.size();
      clause_columns = used;
    }
  }
  finish_line();
  return out;
}

/// One row of a report section: "  label.....  value", the value wrapped under itself.
inline auto row_text(std::string_view label, std::string_view value, std::size_t label_width) -> std::string {
  const std::string head = fmt::format("  {:<{}} ", label, label_width);
  const std::size_t hanging = columns(head) <= report_width / 2 ? columns(head) : 6;
  return wrapped(head, value, hanging);
}

}  // namespace kvsize::cli
