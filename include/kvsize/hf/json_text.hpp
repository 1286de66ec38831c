// SPDX-License-Identifier: MIT
// From the bytes of a config.json to a nlohmann::json document, tolerating the quirks real
// checkpoints have and enforcing the input limits. Only headers under kvsize/hf include nlohmann.
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

/// A value that JSON text never produces (a binary value) stands in the document for a key
/// written more than once with different values: what the file means there is ambiguous (Python's
/// json keeps the last; other readers keep the first). json_reader's lookups refuse it where
/// kvsize reads the key; a key kvsize never reads may hold it (a warning says so).
inline constexpr std::uint8_t conflict_subtype = 0x6b;

[[nodiscard]] inline auto is_conflict(const json& v) -> bool {
  return v.is_binary() && v.get_binary().has_subtype() && v.get_binary().subtype() == conflict_subtype;
}

/// "8, then 32": the values a conflicting key was given, in file order.
[[nodiscard]] inline auto conflict_values(const json& v) -> std::string {
  const auto& b = v.get_binary();
  return std::string(b.begin(), b.end());
}

/// How a value is shown in a message: 8.5, "32", true, null, an array, an object, Infinity.
[[nodiscard]] inline auto describe(const json& v) -> std::string {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return v.get<bool>() ? "true" : "false";
    case json::value_t::string: return "\"" + printable(v.get_ref<const std::string&>()) + "\"";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    case json::value_t::binary:  // only from a document built in code (from_json), or a conflict marker
      return is_conflict(v) ? "conflicting duplicates (" + conflict_values(v) + ")" : std::string("binary data");
    case json::value_t::number_float: {
      const double d = v.get<double>();
      if (!std::isfinite(d)) {
        return d > 0 ? "Infinity" : (d < 0 ? "-Infinity" : "NaN");
      }
      return v.dump();
    }
    default: return v.dump();  // integers
  }
}

/// Builds the document through nlohmann's SAX interface (json::sax_parse), which the DOM parser
/// does not offer hooks for: it gives every `null` that stood for a non-finite literal its double
/// back (prepared_text::nulls), and sees each key of an object as it arrives, so that a key written
/// twice is found (the DOM parser silently keeps the last) and, if the values differ, marked as a
/// conflict (is_conflict) with a warning naming its pointer.
class document_builder {
 public:
  document_builder(const std::vector<null_literal>& nulls, std::vector<std::string>& warnings)
      : nulls_(nulls), warnings_(warnings) {}

  bool null() {
    null_literal k = null_literal::null;
    if (!stack_.empty() && next_null_ < nulls_.size()) {  // a top-level value is not in the scan's list
      k = nulls_[next_null_++];
    }
    switch (k) {
      case null_literal::nan: return put(json(std::numeric_limits<double>::quiet_NaN()));
      case null_literal::infinity: return put(json(std::numeric_limits<double>::infinity()));
      case null_literal::minus_infinity: return put(json(-std::numeric_limits<double>::infinity()));
      case null_literal::null: break;
    }
    return put(json(nullptr));
  }
  bool boolean(bool v) { return put(json(v)); }
  bool number_integer(json::number_integer_t v) { return put(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return put(json(v)); }
  bool number_float(json::number_float_t v, const json::string_t& /*lexeme*/) { return put(json(v)); }
  bool string(json::string_t& v) { return put(json(std::move(v))); }
  bool binary(json::binary_t& v) { return put(json(std::move(v))); }  // not produced by JSON text
  bool start_object(std::size_t /*elements*/) {
    open(place(json(json::value_t::object)));
    return true;
  }
  bool start_array(std::size_t /*elements*/) {
    open(place(json(json::value_t::array)));
    return true;
  }
  bool end_object() { return end_container(); }
  bool end_array() { return end_container(); }
  bool key(json::string_t& k) {
    frame& f = stack_.back();
    f.key = std::move(k);
    const auto it = f.container->find(f.key);
    f.repeated = it != f.container->end();
    if (f.repeated) {
      f.earlier = std::move(*it);
    }
    return true;
  }
  bool parse_error(std::size_t position, const std::string& /*last_token*/, const json::exception& e) {
    error_byte_ = position;
    error_what_ = e.what();
    return false;
  }

  [[nodiscard]] auto root() -> json& { return root_; }
  [[nodiscard]] auto error_byte() const -> std::size_t { return error_byte_; }
  [[nodiscard]] auto error_what() const -> const std::string& { return error_what_; }

 private:
  struct frame {
    json* container = nullptr;  ///< an object or array of the document; never moves while open
    std::string key;            ///< the object's current key
    bool repeated = false;      ///< `key` was already in the object; its value is in `earlier`
    json earlier;
  };

  /// Stores `v` where the parser is: the root, the end of the open array, or the open object's key.
  auto place(json v) -> json* {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    json& c = *stack_.back().container;
    if (c.is_array()) {
      c.push_back(std::move(v));
      return &c.back();
    }
    json& member = c[stack_.back().key];
    member = std::move(v);
    return &member;
  }
  void open(json* container) {
    stack_.emplace_back();
    stack_.back().container = container;
  }
  auto put(json v) -> bool {
    (void)place(std::move(v));
    complete();
    return true;
  }
  auto end_container() -> bool {
    stack_.pop_back();
    complete();
    return true;
  }
  /// The open object's current key has its whole value: compare it with an earlier one.
  void complete() {
    if (stack_.empty() || !stack_.back().repeated) {
      return;
    }
    frame& f = stack_.back();
    f.repeated = false;
    json& now = (*f.container)[f.key];
    if (now == f.earlier) {
      note(pointer() + " appears more than once with the same value (" + describe(now) + ")");
      return;
    }
    const bool again = is_conflict(f.earlier);  // a third value: the key was noted already
    std::string values = again ? conflict_values(f.earlier) : describe(f.earlier);
    if (values.size() < 200) {  // bounded: a key written a million times must not cost a million-value list
      values += ", then " + describe(now);
    } else if (values.compare(values.size() - 5, 5, ", ...") != 0) {
      values += ", ...";
    }
    if (!again) {
      note(pointer() + " appears more than once with different values (" + values +
           "): Python's json keeps the last, some readers the first; kvsize refuses the key wherever it reads it");
    }
    now = json::binary(json::binary_t::container_type(values.begin(), values.end()), conflict_subtype);
  }
  void note(std::string sentence) {
    if (++duplicates_ <= max_notes_per_kind) {
      warnings_.push_back(std::move(sentence));
    }
  }

 public:
  /// Call once the document is complete: says how many duplicate-key notes were left out.
  void finish() {
    if (duplicates_ > max_notes_per_kind) {
      warnings_.push_back("and " + std::to_string(duplicates_ - max_notes_per_kind) +
                          " more keys written more than once, not listed");
    }
  }

 private:
  /// RFC 6901 pointer of the open object's current key.
  [[nodiscard]] auto pointer() const -> std::string {
    std::string p;
    for (std::size_t i = 0; i < stack_.size(); ++i) {
      if (stack_[i].container->is_array()) {
        p = child_pointer(p, stack_[i].container->size() - 1);
      } else {
        p = child_pointer(p, stack_[i].key);
      }
    }
    return p;
  }

  const std::vector<null_literal>& nulls_;
  std::size_t next_null_ = 0;
  std::vector<std::string>& warnings_;
  std::size_t duplicates_ = 0;
  std::vector<frame> stack_;
  json root_;
  std::size_t error_byte_ = 0;
  std::string error_what_;
};

/// Parses `text` into a document; every failure is a config_error (file name added by the caller).
/// Tolerates a UTF-8 BOM, CRLF and a missing final newline (all plain JSON whitespace to nlohmann
/// once the BOM is gone), and bare Infinity/NaN (see prepare). Comments and trailing commas are
/// syntax errors, as in Python's json.loads, which is what transformers uses. So are a second BOM
/// and any byte after the document but whitespace, a NUL included (nlohmann's lexer alone takes a
/// NUL byte for the end of the input and would ignore what follows it).
[[nodiscard]] inline auto parse_json_text(std::string_view text, const parse_limits& limits,
                                          std::vector<std::string>& warnings) -> json {
  if (text.size() > limits.max_bytes) {
    fail(config_errc::out_of_range, "",
         "expected at most " + std::to_string(limits.max_bytes) + " bytes of JSON, got " + std::to_string(text.size()));
  }
  static constexpr std::string_view bom = "\xEF\xBB\xBF";
  if (text.substr(0, 3) == bom) {
    text.remove_prefix(3);
    warnings.emplace_back("the file starts with a UTF-8 byte order mark; it was skipped");
    if (text.substr(0, 3) == bom) {
      fail(config_errc::syntax, "", "syntax error at line 1, column 1: a second UTF-8 byte order mark");
    }
  }
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    fail(config_errc::syntax, "",
         "syntax error at " + line_column(text, nul) + ": a NUL byte, which JSON text may not contain");
  }
  prepared_text p = prepare(text, limits);
  const std::string_view source = p.source(text);
  document_builder builder(p.nulls, warnings);
  bool parsed = false;
  try {
    parsed = json::sax_parse(source.begin(), source.end(), &builder, json::input_format_t::json, /*strict=*/true,
                             /*ignore_comments=*/false);
  } catch (const json::exception& e) {  // not expected from the SAX parser; a last line of defence
    fail(config_errc::syntax, "", std::string("syntax error: ") + printable(e.what(), 200));
  }
  if (!parsed) {
    // error_byte is the 1-based offset of the offending byte in the parsed bytes; map it back to `text`.
    std::size_t offset = builder.error_byte() > 0 ? builder.error_byte() - 1 : 0;
    std::size_t shift = 0;
    for (const std::size_t site : p.nan_sites) {
      shift += site < offset ? 1U : 0U;
    }
    offset -= shift;
    const std::string& what = builder.error_what();
    const std::size_t col = what.find("column ");
    const std::size_t colon = col == std::string::npos ? std::string::npos : what.find(": ", col);
    std::string detail = colon == std::string::npos ? what : what.substr(colon + 2);
    if (detail.rfind("syntax error ", 0) == 0) {
      detail.erase(0, 13);
    }
    fail(config_errc::syntax, "", "syntax error at " + line_column(text, offset) + ": " + printable(detail, 200));
  }
  builder.finish();
  for (auto& w : p.warnings) {
    warnings.push_back(std::move(w));
  }
  return std::move(builder.root());
}

}  // namespace detail
}  // namespace kvsize::hf
