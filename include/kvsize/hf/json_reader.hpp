// SPDX-License-Identifier: MIT
// The checked reader: the only way kvsize takes a value out of an untrusted config.json.
// Never nlohmann's get<Int>(): it turns -1 into 4294967295, 8.5 into 8 and true into 1.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cmath>        // std::isfinite
#include <cstdint>      // std::uint64_t, std::int64_t
#include <limits>       // std::numeric_limits
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::move
#include <vector>       // std::vector

#include <nlohmann/json.hpp>

#include "error.hpp"
#include "json_text.hpp"

namespace kvsize::hf::detail {

/// A key looked up in an object: `value` is nullptr when the key is absent. A JSON null is a
/// present value (null is not absence). The key's JSON pointer is rendered only when asked for
/// (pointer()): by an error, a warning or a layer note. Until then the slot keeps the pointer of
/// the object holding the key (usually "" or "/text_config": no allocation), the key, and an
/// element index. `key` must outlive the slot: it is a literal or a key of the document.
struct slot {
  static constexpr std::size_t no_index = static_cast<std::size_t>(-1);
  const json* value = nullptr;
  std::string base;              ///< pointer of the object (or array) the key was looked up in
  std::string_view key;          ///< the key, when has_key
  std::size_t index = no_index;  ///< an element of the array at base[/key]
  bool has_key = false;
  [[nodiscard]] auto present() const -> bool { return value != nullptr; }
  /// Present and not null.
  [[nodiscard]] auto set() const -> bool { return value != nullptr && !value->is_null(); }
  /// RFC 6901 pointer of the key: base + "/" + escaped key [+ "/" + index].
  [[nodiscard]] auto pointer() const -> std::string {
    std::string p;
    p.reserve(base.size() + key.size() + (index == no_index ? 1 : 12));
    p += base;
    if (has_key) {
      p += '/';
      append_pointer_token(p, key);
    }
    if (index != no_index) {
      p += '/';
      p += std::to_string(index);
    }
    return p;
  }
};

/// A key written twice with different values (json_text.hpp, document_builder) is refused where
/// it is read: which value the file means is ambiguous.
inline void refuse_conflict(const slot& s) {
  if (s.value != nullptr && is_conflict(*s.value)) {
    fail(config_errc::inconsistent, s.pointer(),
         "expected the key once, got it more than once with different values (" + conflict_values(*s.value) +
             "); Python's json keeps the last, some readers the first: remove the wrong ones");
  }
}

[[nodiscard]] inline auto lookup(const json& object, std::string base, std::string_view key) -> slot {
  slot s;
  s.base = std::move(base);
  s.key = key;
  s.has_key = true;
  if (object.is_object()) {
    const auto it = object.find(key);
    if (it != object.end()) {
      s.value = &*it;
      refuse_conflict(s);
    }
  }
  return s;
}

/// The first of `keys` that is present and not null; if all are absent or null, the first
/// present one (a null), else an absent slot pointing at keys[0].
[[nodiscard]] inline auto lookup_first(const json& object, const std::string& base,
                                       std::span<const std::string_view> keys) -> slot {
  const json* first_null = nullptr;
  std::string_view first_null_key;
  if (object.is_object()) {
    for (const auto key : keys) {
      const auto it = object.find(key);
      if (it == object.end()) {
        continue;
      }
      if (!it->is_null()) {
        slot s;
        s.value = &*it;
        s.base = base;
        s.key = key;
        s.has_key = true;
        refuse_conflict(s);
        return s;
      }
      if (first_null == nullptr) {
        first_null = &*it;
        first_null_key = key;
      }
    }
  }
  slot s;
  s.value = first_null;  // nullptr: none is present
  s.base = base;
  s.key = first_null != nullptr ? first_null_key : (keys.empty() ? std::string_view{} : keys.front());
  s.has_key = true;
  return s;
}

/// "a, b or c"
[[nodiscard]] inline auto list_keys(std::span<const std::string_view> keys) -> std::string {
  std::string s;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (i > 0) {
      s += (i + 1 == keys.size()) ? " or " : ", ";
    }
    s += keys[i];
  }
  return s;
}

/// An integer in [min, max]. Rejects bool, float (even 8.0), string, null, array and object
/// with wrong_type; negative, too small or too large integers with out_of_range (or `over`
/// above max, e.g. unsupported for > 512 layers). Numbers beyond 2^64 arrive from nlohmann as
/// floats; they are out_of_range, not wrong_type.
[[nodiscard]] inline auto read_integer(const slot& s, std::uint64_t min, std::uint64_t max,
                                       config_errc over = config_errc::out_of_range) -> std::uint64_t {
  const std::string expected = min == 0 ? "a non-negative integer" : (min == 1 ? "a positive integer" : "an integer");
  const auto range = [&] {
    return expected + " from " + std::to_string(min) + " to " + std::to_string(max);
  };
  if (s.value == nullptr) {
    fail(config_errc::missing_key, s.pointer(), "expected " + expected + ", got nothing (the key is absent)");
  }
  const json& v = *s.value;
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (!std::isfinite(d)) {  // Python's bare NaN / Infinity / -Infinity (json_text.hpp keeps them)
      fail(config_errc::wrong_type, s.pointer(),
           "expected " + expected + ", got " + describe(v) + " (a bare non-finite literal, Python's json extension)");
    }
    if (d >= 18446744073709551616.0 || d <= -9223372036854775808.0) {
      fail(config_errc::out_of_range, s.pointer(), "expected " + range() + ", got " + describe(v));
    }
  }
  if (!v.is_number_integer()) {
    fail(config_errc::wrong_type, s.pointer(), "expected " + expected + ", got " + describe(v));
  }
  std::uint64_t value = 0;
  if (v.is_number_unsigned()) {
    value = v.get<std::uint64_t>();  // stored unsigned: exact
  } else {
    const std::int64_t signed_value = v.get<std::int64_t>();  // stored signed: exact
    if (signed_value < 0) {
      fail(config_errc::out_of_range, s.pointer(), "expected " + expected + ", got " + describe(v));
    }
    value = static_cast<std::uint64_t>(signed_value);
  }
  if (value < min) {  // above 1 the bound itself is the news ("an integer from 2 to 1024")
    fail(config_errc::out_of_range, s.pointer(), "expected " + (min > 1 ? range() : expected) + ", got " + describe(v));
  }
  if (value > max) {
    fail(over, s.pointer(), "expected " + range() + ", got " + describe(v));
  }
  return value;
}

/// The largest count or width a model_spec field takes from a config: 2^31 − 1 (int32, as the engines hold it).
inline constexpr std::uint32_t max_count = static_cast<std::uint32_t>(std::numeric_limits<std::int32_t>::max());

/// read_integer for a field of model_spec (32 bits).
[[nodiscard]] inline auto read_u32(const slot& s, std::uint32_t min = 1, std::uint32_t max = max_count,
                                   config_errc over = config_errc::out_of_range) -> std::uint32_t {
  return static_cast<std::uint32_t>(read_integer(s, min, max, over));  // range-checked just above
}

/// Fails unless `n` divides `total` (a head count split into whole groups); `what` names the
/// total ("num_attention_heads", or another key's pointer), `s` is the key that set `n`.
inline void require_divisor(const slot& s, std::uint64_t n, const std::string& what, std::uint64_t total) {
  if (n == 0 || n > total || total % n != 0) {
    fail(config_errc::inconsistent, s.pointer(),
         "expected a divisor of " + what + " (" + std::to_string(total) + "), got " + std::to_string(n));
  }
}

[[nodiscard]] inline auto read_bool(const slot& s) -> bool {
  if (s.value == nullptr) {
    fail(config_errc::missing_key, s.pointer(), "expected true or false, got nothing (the key is absent)");
  }
  if (!s.value->is_boolean()) {
    fail(config_errc::wrong_type, s.pointer(), "expected true or false, got " + describe(*s.value));
  }
  return s.value->get<bool>();
}

/// A bool key that may be absent or null: `fallback` then.
[[nodiscard]] inline auto read_bool_or(const slot& s, bool fallback) -> bool {
  return s.set() ? read_bool(s) : fallback;
}

[[nodiscard]] inline auto read_string(const slot& s) -> std::string {
  if (s.value == nullptr) {
    fail(config_errc::missing_key, s.pointer(), "expected a string, got nothing (the key is absent)");
  }
  if (!s.value->is_string()) {
    fail(config_errc::wrong_type, s.pointer(), "expected a string, got " + describe(*s.value));
  }
  return s.value->get<std::string>();
}

/// read_string without the copy: a view of the document's string.
[[nodiscard]] inline auto read_string_ref(const slot& s) -> std::string_view {
  if (s.value == nullptr) {
    fail(config_errc::missing_key, s.pointer(), "expected a string, got nothing (the key is absent)");
  }
  if (!s.value->is_string()) {
    fail(config_errc::wrong_type, s.pointer(), "expected a string, got " + describe(*s.value));
  }
  return s.value->get_ref<const std::string&>();
}

/// A finite number in (0, `upper`], read as double (the formulas then evaluate it as Python does); `expected` names
/// what the key may hold, for the error where it is missing or not a number.
[[nodiscard]] inline auto read_number_in(const slot& s, std::uint32_t upper, std::string_view expected) -> double {
  if (!s.set() || !s.value->is_number()) {
    fail(s.set() ? config_errc::wrong_type : config_errc::missing_key, s.pointer(),
         "expected " + std::string(expected) + ", got " + (s.set() ? describe(*s.value) : std::string("nothing")));
  }
  const double number = s.value->get<double>();
  if (!std::isfinite(number) || number <= 0 || number > upper) {
    fail(config_errc::out_of_range, s.pointer(),
         "expected a number in (0, " + std::to_string(upper) + "], got " + describe(*s.value));
  }
  return number;
}

/// A multiplier of an MLP width (LFM2's block_ffn_dim_multiplier, DeciLM's ffn_mult): a finite number
/// in (0, 64]. `expected` names what the key may hold, for the error ("a positive number", "a number or null").
[[nodiscard]] inline auto read_width_multiplier(const slot& s, std::string_view expected = "a positive number")
    -> double {
  return read_number_in(s, 64, expected);
}

/// One flag of a per-layer 0/1 list (moe_layer_freq, sparse_attention_freq): true, false, 0 or 1.
[[nodiscard]] inline auto read_flag(const slot& entry) -> bool {
  return entry.value->is_boolean() ? read_bool(entry) : read_u32(entry, 0, 1) == 1;
}

inline void require_object(const slot& s) {
  if (s.value == nullptr || !s.value->is_object()) {
    fail(s.value == nullptr ? config_errc::missing_key : config_errc::wrong_type, s.pointer(),
         "expected an object, got " + (s.value == nullptr ? std::string("nothing") : describe(*s.value)));
  }
}

/// An array of exactly `size` elements (inconsistent otherwise, naming the expected size).
inline void require_array(const slot& s, std::size_t size, std::string_view size_meaning) {
  if (s.value == nullptr || !s.value->is_array()) {
    fail(s.value == nullptr ? config_errc::missing_key : config_errc::wrong_type, s.pointer(),
         "expected an array, got " + (s.value == nullptr ? std::string("nothing") : describe(*s.value)));
  }
  if (s.value->size() != size) {
    fail(config_errc::inconsistent, s.pointer(),
         "expected " + std::to_string(size) + " entries (" + std::string(size_meaning) + "), got " +
             std::to_string(s.value->size()));
  }
}

/// Element `i` of an array slot. The caller has checked the array's type and size
/// (require_array); a slot that is not an array that long is refused here too, naming it, so that
/// no reader can index past the end of the document.
[[nodiscard]] inline auto element(const slot& array, std::size_t i) -> slot {
  if (array.value == nullptr || !array.value->is_array() || i >= array.value->size()) {
    fail(array.value == nullptr ? config_errc::missing_key
                                : (array.value->is_array() ? config_errc::inconsistent : config_errc::wrong_type),
         array.pointer(),
         "expected an array of more than " + std::to_string(i) + " entries, got " +
             (array.value == nullptr ? std::string("nothing")
                                     : (array.value->is_array() ? std::to_string(array.value->size()) + " entries"
                                                                : describe(*array.value))));
  }
  slot s;
  if (array.index == slot::no_index) {
    s.base = array.base;
    s.key = array.key;
    s.has_key = array.has_key;
  } else {
    s.base = array.pointer();
  }
  s.index = i;
  s.value = &(*array.value)[i];
  return s;
}

/// An array of strings of any length (`architectures`): each entry checked, named by its pointer.
[[nodiscard]] inline auto read_strings(const slot& array) -> std::vector<std::string> {
  if (array.value == nullptr || !array.value->is_array()) {
    fail(array.value == nullptr ? config_errc::missing_key : config_errc::wrong_type, array.pointer(),
         "expected an array of strings, got " + (array.value == nullptr ? std::string("nothing") : describe(*array.value)));
  }
  std::vector<std::string> out;
  out.reserve(array.value->size());
  for (std::size_t i = 0; i < array.value->size(); ++i) {
    out.push_back(read_string(element(array, i)));
  }
  return out;
}

}  // namespace kvsize::hf::detail
