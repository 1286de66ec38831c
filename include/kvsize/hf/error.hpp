// SPDX-License-Identifier: MIT
// kvsize::hf::config_error: the one exception type the config.json reader throws.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>      // std::uint8_t
#include <stdexcept>    // std::runtime_error
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::move

namespace kvsize::hf {

/// What kind of defect a config.json has.
enum class config_errc : std::uint8_t {
  syntax,        ///< not JSON (after the tolerated quirks: BOM, CRLF, bare Infinity/NaN)
  missing_key,   ///< a required quantity has none of its key spellings
  wrong_type,    ///< a value has the wrong JSON type (a float or a bool where an integer belongs)
  out_of_range,  ///< a number or a size outside what is meaningful (0 heads, -1, 1e400, > 16 MiB)
  inconsistent,  ///< values that contradict each other (heads not a multiple of kv heads)
  unsupported,   ///< valid, but beyond what kvsize models (> 512 layers, an unknown layer type)
  io,            ///< the file could not be read
};

/// "syntax", "missing_key", ...
[[nodiscard]] constexpr auto name(config_errc c) -> std::string_view {
  switch (c) {
    case config_errc::syntax: return "syntax";
    case config_errc::missing_key: return "missing_key";
    case config_errc::wrong_type: return "wrong_type";
    case config_errc::out_of_range: return "out_of_range";
    case config_errc::inconsistent: return "inconsistent";
    case config_errc::unsupported: return "unsupported";
    case config_errc::io: return "io";
  }
  return "?";
}

/// A defect in a config.json, located by an RFC 6901 JSON pointer.
/// what() has one fixed shape: "<file>:<pointer>: <message>", e.g.
///   config.json:/num_key_value_heads: expected a positive integer, got -1
/// and, when no pointer applies (the root, a syntax error), "<file>: <message>", e.g.
///   config.json: syntax error at line 3, column 17: ...
class config_error : public std::runtime_error {
 public:
  config_error(config_errc code, std::string file, std::string pointer, std::string message)
      : std::runtime_error(compose(file, pointer, message)),
        code_(code),
        file_(std::move(file)),
        pointer_(std::move(pointer)),
        message_(std::move(message)) {}

  [[nodiscard]] auto code() const noexcept -> config_errc { return code_; }
  /// RFC 6901 pointer of the offending key ("" for the whole document).
  [[nodiscard]] auto pointer() const noexcept -> const std::string& { return pointer_; }
  /// The file name given to parse_config, or the path given to load_config.
  [[nodiscard]] auto file() const noexcept -> const std::string& { return file_; }
  /// The message without the "<file>:<pointer>: " prefix.
  [[nodiscard]] auto message() const noexcept -> const std::string& { return message_; }

 private:
  static auto compose(const std::string& file, const std::string& pointer, const std::string& message)
      -> std::string {
    std::string s = file;
    if (!pointer.empty()) {
      s += ':';
      s += pointer;
    }
    s += ": ";
    s += message;
    return s;
  }

  config_errc code_;
  std::string file_;
  std::string pointer_;
  std::string message_;
};

namespace detail {

/// Thrown inside the reader, before the file name is known; parse_config adds it.
[[noreturn]] inline void fail(config_errc code, std::string pointer, std::string message) {
  throw config_error(code, std::string{}, std::move(pointer), std::move(message));
}

/// RFC 6901: "~" → "~0", "/" → "~1", appended to `out`.
inline void append_pointer_token(std::string& out, std::string_view key) {
  for (const char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
}

[[nodiscard]] inline auto escape_pointer_token(std::string_view key) -> std::string {
  std::string out;
  out.reserve(key.size());
  append_pointer_token(out, key);
  return out;
}

[[nodiscard]] inline auto child_pointer(const std::string& base, std::string_view key) -> std::string {
  std::string out;
  out.reserve(base.size() + 1 + key.size());
  out += base;
  out += '/';
  append_pointer_token(out, key);
  return out;
}

[[nodiscard]] inline auto child_pointer(const std::string& base, std::size_t index) -> std::string {
  return base + "/" + std::to_string(index);
}

}  // namespace detail
}  // namespace kvsize::hf
