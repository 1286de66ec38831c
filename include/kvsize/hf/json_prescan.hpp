// SPDX-License-Identifier: MIT
// The pre-scan of config.json text before nlohmann parses it: the input limits, nesting depth,
// numbers beyond a double, Python's bare Infinity / NaN (rewritten to null, remembered), and the
// printable rendering of untrusted bytes that every message uses.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>     // std::min
#include <charconv>      // std::from_chars
#include <cmath>         // std::isfinite
#include <cstddef>       // std::size_t
#include <cstdint>       // std::uint64_t
#include <limits>        // std::numeric_limits
#include <string>        // std::string
#include <string_view>   // std::string_view
#include <system_error>  // std::errc
#include <vector>        // std::vector

#include <nlohmann/json.hpp>

#include "error.hpp"

namespace kvsize::hf {

/// Input limits for untrusted text. A config.json is a few KiB; Nemotron-Super's, the largest
/// in configs/, is 28 KiB and 5 levels deep.
struct parse_limits {
  std::size_t max_bytes = std::size_t{16} << 20U;  ///< 16 MiB
  std::size_t max_depth = 64;                      ///< nested arrays/objects
};

namespace detail {

using json = nlohmann::json;

/// Printable rendering of bytes from an untrusted file: control and non-ASCII bytes as \xNN,
/// at most `limit` bytes (then "...").
[[nodiscard]] inline auto printable(std::string_view s, std::size_t limit = 40) -> std::string {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < s.size() && i < limit; ++i) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x20U || b >= 0x7fU) {
      out += "\\x";
      out += hex[b >> 4U];
      out += hex[b & 0xfU];
    } else {
      out += static_cast<char>(b);
    }
  }
  if (s.size() > limit) {
    out += "...";
  }
  return out;
}

/// 1-based line and column of byte `offset` of `text`.
[[nodiscard]] inline auto line_column(std::string_view text, std::size_t offset) -> std::string {
  std::size_t line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(offset - line_start + 1);
}

/// What the pre-scan found. The text nlohmann parses is source(original): the original bytes
/// when the pre-scan replaced nothing (no copy), else the rewritten `text`.
/// At most this many notes of one kind (bare non-finite literals, duplicate keys) are listed; then
/// one more says how many were left out. A 16 MiB file may hold millions of either.
inline constexpr std::size_t max_notes_per_kind = 16;

/// What a `null` the parser will see stood for in the file: JSON's null or one of Python's
/// non-finite literals (rewritten to null so that nlohmann accepts the text).
enum class null_literal : std::uint8_t { null, nan, infinity, minus_infinity };

struct prepared_text {
  std::string text;                    ///< bare Infinity/NaN replaced by null; empty unless `rewritten`
  bool rewritten = false;              ///< some literal was replaced
  std::vector<std::size_t> nan_sites;  ///< offsets in `text` where "NaN" (3 bytes) became "null" (4)
  /// One entry per `null` the parser will report, in document order (every null of a valid JSON
  /// document other than a top-level one stands where the scan sees a value): what the file held.
  std::vector<null_literal> nulls;
  std::vector<std::string> warnings;   ///< one per replaced literal, with its pointer
  /// The bytes to parse: `text` if rewritten, else `original` (the text given to prepare).
  [[nodiscard]] auto source(std::string_view original) const -> std::string_view {
    return rewritten ? std::string_view(text) : original;
  }
};

/// Pre-scan outside strings, tracking the JSON pointer of the current value, to
///  * refuse nesting deeper than limits.max_depth (out_of_range at the container's pointer);
///  * refuse numbers beyond a double (1e400: nlohmann would throw without a position);
///  * replace Python's bare `Infinity`, `-Infinity` and `NaN`, where they stand as a value, by
///    `null` padded to the same width (nlohmann rejects them), record which literal each `null`
///    of the text stands for (prepared_text::nulls) and a warning naming the pointer. The
///    Nemotron-H config has `"time_step_limit": [0.0, Infinity]`. parse_json_text puts the
///    non-finite double back into the document, so a key holding one is never taken as null or
///    absent: every reader rejects it, naming the literal (an optional key read as "not set" would
///    turn NaN kv_lora_rank into a model 41 times too large). Keys kvsize never reads may hold
///    them. Inside strings nothing is touched. Malformed input passes through unchanged for
///    nlohmann to reject.
/// Nothing is copied while scanning: keys are kept as views of `text` and decoded only when a
/// pointer is rendered (an error or a warning); the text is rewritten only when a literal is replaced.
/// long-function: ~150 lines on purpose, a single pass over untrusted bytes whose state (the
/// pointer stack, inside-a-string, the pending key) every branch shares; split, each piece would
/// take all of it by reference.
[[nodiscard]] inline auto prepare(std::string_view text, const parse_limits& limits) -> prepared_text {
  struct frame {
    bool object;
    bool expect_key;
    std::string_view key;  // raw bytes between the quotes, escapes not yet decoded
    std::size_t index;
  };
  struct site {
    std::size_t at;      // offset in `text`
    std::size_t length;  // of the literal
  };
  prepared_text out;
  std::vector<frame> stack;
  stack.reserve(16);
  std::vector<site> sites;
  const auto here = [&] {
    std::string p;
    for (const auto& f : stack) {
      if (f.object) {
        std::string key;  // the escapes the scanner knows; \uXXXX stays as written
        for (std::size_t j = 0; j < f.key.size(); ++j) {
          if (f.key[j] == '\\' && j + 1 < f.key.size()) {
            const char e = f.key[++j];
            key += (e == 'n') ? '\n' : (e == 't') ? '\t' : (e == 'r') ? '\r' : (e == 'b') ? '\b' : (e == 'f') ? '\f' : e;
          } else {
            key += f.key[j];
          }
        }
        p = child_pointer(p, key);
      } else {
        p = child_pointer(p, f.index);
      }
    }
    return p;
  };
  char last = 0;  // last structural character or token class seen outside strings
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (i < n) {
    const char c = text[i];
    if (c == '"') {
      std::size_t j = i + 1;
      while (j < n && text[j] != '"') {
        j += (text[j] == '\\' && j + 1 < n) ? std::size_t{2} : std::size_t{1};
      }
      if (!stack.empty() && stack.back().object && stack.back().expect_key) {
        stack.back().key = text.substr(i + 1, std::min(j, n) - (i + 1));
      }
      i = j < n ? j + 1 : n;
      last = '"';
      continue;
    }
    if (c == '{' || c == '[') {
      if (stack.size() >= limits.max_depth) {
        fail(config_errc::out_of_range, here(),
             "expected at most " + std::to_string(limits.max_depth) + " levels of nested arrays and objects, got more at " +
                 line_column(text, i));
      }
      stack.push_back(frame{c == '{', c == '{', std::string_view{}, 0});
    } else if (c == '}' || c == ']') {
      if (!stack.empty()) {
        stack.pop_back();
      }
    } else if (c == ',') {
      if (!stack.empty()) {
        if (stack.back().object) {
          stack.back().expect_key = true;
        } else {
          ++stack.back().index;
        }
      }
    } else if (c == ':') {
      if (!stack.empty() && stack.back().object) {
        stack.back().expect_key = false;
      }
    } else if (c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') ||
               (c >= 'a' && c <= 'z')) {
      std::size_t j = i;
      while (j < n && (text[j] == '-' || text[j] == '+' || text[j] == '.' || (text[j] >= '0' && text[j] <= '9') ||
                       (text[j] >= 'A' && text[j] <= 'Z') || (text[j] >= 'a' && text[j] <= 'z'))) {
        ++j;
      }
      const std::string_view token = text.substr(i, j - i);
      // A value follows ':' in an object, '[' or ',' in an array; after ',' in an object comes a key.
      const bool value_position =
          !stack.empty() && (stack.back().object ? (!stack.back().expect_key && last == ':') : (last == '[' || last == ','));
      if (value_position && (token == "Infinity" || token == "-Infinity" || token == "NaN")) {
        sites.push_back(site{i, token.size()});
        out.nulls.push_back(token == "NaN" ? null_literal::nan
                                           : (token == "Infinity" ? null_literal::infinity : null_literal::minus_infinity));
        if (sites.size() <= max_notes_per_kind) {  // a bounded list: a file may hold millions
          out.warnings.push_back(here() + ": bare " + std::string(token) +
                                 " (Python's json extension, not JSON); no key kvsize reads may hold it");
        }
      } else if (value_position && token == "null") {
        out.nulls.push_back(null_literal::null);
      } else if (c == '-' || (c >= '0' && c <= '9')) {
        double d = 0;
        const auto r = std::from_chars(token.data(), token.data() + token.size(), d);
        if (r.ec == std::errc::result_out_of_range) {
          // Overflow, not underflow, when the decimal exponent of the leading digit is positive.
          const std::size_t e_at = token.find_first_of("eE");
          long exp10 = 0;
          if (e_at != std::string_view::npos) {
            const auto* first = token.data() + e_at + 1;
            if (first < token.data() + token.size() && *first == '+') {
              ++first;
            }
            (void)std::from_chars(first, token.data() + token.size(), exp10);
          }
          const std::string_view mantissa = token.substr(0, e_at);
          const std::size_t int_digits = mantissa.find('.') == std::string_view::npos ? mantissa.size()
                                                                                       : mantissa.find('.');
          if (exp10 + static_cast<long>(int_digits) > 0) {
            fail(config_errc::out_of_range, here(),
                 "expected a number within the range of a double, got " + printable(token));
          }
        }
      }
      i = j;
      last = 'v';
      continue;
    }
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
      last = c;
    }
    ++i;
  }
  if (sites.size() > max_notes_per_kind) {
    out.warnings.push_back("and " + std::to_string(sites.size() - max_notes_per_kind) +
                           " more bare NaN / Infinity / -Infinity literals, not listed");
  }
  if (!sites.empty()) {  // rewrite: each literal becomes null, padded to its width (NaN grows by one byte)
    out.rewritten = true;
    out.text.reserve(text.size() + sites.size());
    std::size_t from = 0;
    for (const site& s : sites) {
      out.text.append(text.substr(from, s.at - from));
      if (s.length == 3) {
        out.nan_sites.push_back(out.text.size());
      }
      out.text += "null";
      if (s.length > 4) {
        out.text.append(s.length - 4, ' ');
      }
      from = s.at + s.length;
    }
    out.text.append(text.substr(from));
  }
  return out;
}

}  // namespace detail
}  // namespace kvsize::hf
