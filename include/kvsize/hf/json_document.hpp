// SPDX-License-Identifier: MIT
// The document built from pre-scanned text (json_prescan.hpp) through nlohmann's SAX interface:
// non-finite literals put back, duplicate keys found and, when their values differ, marked as
// conflicts; and describe(), how any value is shown in a message.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cmath>        // std::isfinite
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint8_t
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <nlohmann/json.hpp>

#include "error.hpp"
#include "json_prescan.hpp"

namespace kvsize::hf::detail {

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

}  // namespace kvsize::hf::detail
