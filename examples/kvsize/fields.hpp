// SPDX-License-Identifier: MIT
// kvsize command line: one field of a result model (name, JSON key, CSV column, text label, unit,
// accessor), and the three renderers that show a table of them: a JSON object, CSV cells, text rows.
// An output never lists figures by hand: it renders a table, so a field added to a table appears
// in the text, the JSON and the CSV at once.
#pragma once

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include <nlohmann/json.hpp>

#include <kvsize/bytes.hpp>
#include <kvsize/fmt.hpp>

#include "text.hpp"

namespace kvsize::cli {

/// How a value reads in the text report (JSON and CSV always print it whole).
enum class field_unit {
  bytes,   ///< "28 KiB (28,672 B)": scaled IEC and exact
  count,   ///< "1,543,714,304"; `unbounded` reads "unbounded"
  tokens,  ///< "2,049 tokens"
  ratio,   ///< "6", "0.75"
  flag,    ///< "yes" / "NO"
  text,    ///< a name, as it is
};

/// A field's value: absent (JSON null, an empty CSV cell), an integer (bytes are integers), a
/// ratio, a yes/no, or a name.
using field_value = std::variant<std::monostate, std::uint64_t, double, bool, std::string>;

/// One figure of a result model `M`. Everything but `name`, the keys, `label`, `unit` and `value`
/// is for the text report only.
template <typename M>
struct field {
  std::string_view name;        ///< what it is, in words
  std::string_view json_key;    ///< its key in the JSON object the table is rendered into
  std::string_view csv_column;  ///< its column in --csv (unique across the CSV's tables)
  std::string_view label;       ///< the text row's label; "{users}"-style slots are filled by label_var(M, name)
  field_unit unit;
  field_value (*value)(const M&);
  std::string (*note)(const M&) = nullptr;  ///< text after the value (": none on the device")
  bool (*shown)(const M&) = nullptr;        ///< the text row only when this holds; nullptr: always
  std::string_view absent = "none";         ///< the text of an absent value
  std::string (*text)(const M&) = nullptr;  ///< the whole text value, where the unit's form is not it
};

/// The index of the field whose JSON key is `key` (the table's size when there is none).
template <typename M, std::size_t N>
constexpr auto index_of(const std::array<field<M>, N>& table, std::string_view key) -> std::size_t {
  for (std::size_t i = 0; i < N; ++i) {
    if (table[i].json_key == key) {
      return i;
    }
  }
  return N;
}

/// The compile-time check of a table: every field is named exactly once in `placement` — the lists
/// of where the text report shows it (its own rows, a title or another row's words, or nowhere, with
/// the reason beside that list) — every name there is a field, and no field lacks a name, a JSON
/// key, a CSV column, a label or an accessor, or repeats another's key or column. So a field added
/// to a table cannot be left out of the text by accident.
template <typename M, std::size_t N>
constexpr auto placed_once(const std::array<field<M>, N>& table,
                           std::initializer_list<std::span<const std::string_view>> placement) -> bool {
  std::array<int, N> seen{};
  for (const auto list : placement) {
    for (const std::string_view key : list) {
      const std::size_t i = index_of(table, key);
      if (i == N) {
        return false;
      }
      ++seen[i];
    }
  }
  for (std::size_t i = 0; i < N; ++i) {
    if (seen[i] != 1 || table[i].json_key.empty() || table[i].csv_column.empty() || table[i].label.empty() ||
        table[i].name.empty() || table[i].value == nullptr) {
      return false;
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (table[i].json_key == table[j].json_key || table[i].csv_column == table[j].csv_column) {
        return false;
      }
    }
  }
  return true;
}

/// A value as JSON: integers and ratios as numbers, absent as null.
inline auto json_of(const field_value& v) -> nlohmann::ordered_json {
  return std::visit(
      [](const auto& x) -> nlohmann::ordered_json {
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::monostate>) {
          return nullptr;
        } else {
          return x;
        }
      },
      v);
}

/// A value in its plain form: integers in full ("151936"), ratios in the shortest form that reads
/// back, "true"/"false", names as they are, absent as nothing.
inline auto plain_of(const field_value& v) -> std::string {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return {};
        } else if constexpr (std::is_same_v<T, bool>) {
          return x ? "true" : "false";
        } else if constexpr (std::is_same_v<T, std::string>) {
          return x;
        } else {
          return fmt::format("{}", x);
        }
      },
      v);
}

/// A value as one CSV cell: its plain form, a name holding a comma, a quote or a newline quoted
/// (RFC 4180).
inline auto csv_of(const field_value& v) -> std::string {
  std::string cell = plain_of(v);
  if (cell.find_first_of(",\"\n") == std::string::npos) {
    return cell;
  }
  std::string quoted = "\"";
  for (char c : cell) {
    quoted += c == '"' ? std::string{"\"\""} : std::string(1, c);
  }
  return quoted + "\"";
}

/// The value of field `f` of `m` as the text report prints it, `note` included.
template <typename M>
auto text_of(const field<M>& f, const M& m) -> std::string {
  std::string out;
  if (f.text != nullptr) {
    out = f.text(m);
  } else {
    const field_value v = f.value(m);
    if (std::holds_alternative<std::monostate>(v)) {
      out = std::string{f.absent};
    } else if (f.unit == field_unit::flag) {
      out = std::get<bool>(v) ? "yes" : "NO";
    } else if (f.unit == field_unit::text) {
      out = std::get<std::string>(v);
    } else if (f.unit == field_unit::ratio) {
      out = fmt::format("{:g}", std::get<double>(v));
    } else {
      const std::uint64_t n = std::get<std::uint64_t>(v);
      out = f.unit == field_unit::bytes    ? exact(bytes{n})
            : f.unit == field_unit::tokens ? grouped(n) + " tokens"
                                           : count_or_unbounded(n);
    }
  }
  return f.note != nullptr ? out + f.note(m) : out;
}

/// `pattern` with every "{name}" replaced by label_var(m, name) (found by argument-dependent lookup
/// for M). A label is data: its slots name what the model knows ("{users}", "{context}").
template <typename M>
auto filled(std::string_view pattern, const M& m) -> std::string {
  std::string out;
  while (true) {
    const std::size_t open = pattern.find('{');
    if (open == std::string_view::npos) {
      return out += pattern;
    }
    const std::size_t close = pattern.find('}', open);
    if (close == std::string_view::npos) {
      throw std::logic_error(fmt::format("kvsize: an unclosed slot in the label '{}'", pattern));
    }
    out += pattern.substr(0, open);
    out += label_var(m, pattern.substr(open + 1, close - open - 1));
    pattern.remove_prefix(close + 1);
  }
}

/// Every field of `table`, in its order, as keys of the JSON object `j`.
template <typename M, std::size_t N>
void put_json(nlohmann::ordered_json& j, const std::array<field<M>, N>& table, const M& m) {
  for (const auto& f : table) {
    j[std::string{f.json_key}] = json_of(f.value(m));
  }
}

/// The CSV columns of `table`, in its order, each followed by a comma.
template <typename M, std::size_t N>
void put_csv_header(std::string& line, const std::array<field<M>, N>& table) {
  for (const auto& f : table) {
    line += f.csv_column;
    line += ',';
  }
}

/// The CSV cells of `m`, in the table's order, each followed by a comma.
template <typename M, std::size_t N>
void put_csv_cells(std::string& line, const std::array<field<M>, N>& table, const M& m) {
  for (const auto& f : table) {
    line += csv_of(f.value(m));
    line += ',';
  }
}

/// The label and the value of the text row of the field keyed `key`; nothing when its `shown` says so.
template <typename M, std::size_t N>
auto text_row(const std::array<field<M>, N>& table, std::string_view key, const M& m)
    -> std::optional<std::pair<std::string, std::string>> {
  const std::size_t i = index_of(table, key);
  if (i == N) {
    throw std::logic_error(fmt::format("kvsize: no field '{}' in the table", key));
  }
  const field<M>& f = table[i];
  if (f.shown != nullptr && !f.shown(m)) {
    return std::nullopt;
  }
  return std::pair{filled(f.label, m), text_of(f, m)};
}

}  // namespace kvsize::cli
