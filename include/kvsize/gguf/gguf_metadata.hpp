// SPDX-License-Identifier: MIT
// Reading GGUF metadata values: strings, typed scalars and arrays (nested arrays refused, as
// ggml refuses them), with every length checked against the bytes left before it is allocated
// (gguf.cpp gguf_reader::read; docs/research/gguf-format.md §1.2-1.3).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint32_t, std::uint64_t, std::int32_t, std::int64_t
#include <cstring>  // std::memcpy
#include <string>   // std::string
#include <type_traits>  // std::conditional_t, std::is_signed_v

#include "byte_source.hpp"
#include "gguf_error.hpp"
#include "gguf_header.hpp"

namespace kvsize::gguf {

/// How much of the header to read.
struct read_options {
  /// Stop at the first tokenizer.* key once general.architecture and `<arch>.block_count` have been
  /// read: the model's shape is known, and the tokenizer's arrays (99.9 % of a vocabulary-heavy
  /// header) and the tensor table are left unread. Everything the KV cache needs comes before.
  bool metadata_only = false;
  /// Arrays with more elements than this are counted and skipped, not kept (per-layer arrays have
  /// at most 512 elements; a tokenizer's run to hundreds of thousands).
  std::uint64_t keep_elements = 4096;
};

namespace detail {

// ggml's own limits (gguf.cpp GGUF_MAX_STRING_LENGTH, GGUF_MAX_ARRAY_ELEMENTS; ggml.h GGML_MAX_NAME,
// GGML_MAX_DIMS). The least bytes a key/value pair and a tensor entry can take bound the counts
// before anything is reserved: a header claiming 2^62 keys in a 1 KiB file is refused at once.
inline constexpr std::uint64_t max_string = std::uint64_t{1} << 30U;
inline constexpr std::uint64_t max_array = std::uint64_t{1} << 30U;
inline constexpr std::uint64_t max_tensor_name = 63;
inline constexpr std::uint64_t min_kv_bytes = 8 + 1 + 4 + 1;       // length, 1-byte key, type, 1-byte value
inline constexpr std::uint64_t min_tensor_bytes = 8 + 1 + 4 + 4 + 8;  // length, name, n_dims, type, offset

[[nodiscard]] inline auto quote_name(const std::string& s) -> std::string {
  std::string out = "\"";
  for (const char c : s.substr(0, 80)) {  // a hostile key is shown, not dumped
    const auto u = static_cast<unsigned char>(c);
    out += (u < 0x20 || u >= 0x7F || c == '"') ? '?' : c;
  }
  return out + (s.size() > 80 ? "...\"" : "\"");
}

[[nodiscard]] inline auto read_string(byte_source& in, const std::string& subject, const char* what)
    -> std::string {
  const std::uint64_t at = in.offset();
  const auto n = in.scalar<std::uint64_t>(subject, "a string's length");
  if (n > max_string) {
    throw gguf_error(gguf_errc::out_of_range, in.file(), at, subject,
                     std::string(what) + " of " + std::to_string(n) + " bytes; ggml allows at most 2^30");
  }
  in.require(n, subject, what);
  std::string s(n, '\0');
  in.read(s.data(), n, subject, what);
  return s;
}

[[nodiscard]] inline auto read_type(byte_source& in, const std::string& subject, const char* what) -> gguf_type {
  const std::uint64_t at = in.offset();
  const auto id = in.scalar<std::int32_t>(subject, what);
  if (id < 0 || static_cast<std::uint32_t>(id) >= gguf_type_count) {
    throw gguf_error(gguf_errc::invalid, in.file(), at, subject,
                     std::string(what) + " " + std::to_string(id) + " is not a GGUF type (0 to 12)");
  }
  return static_cast<gguf_type>(id);
}

/// Appends one integer element of on-disk type T: signed values sign-extended to 64 bits.
template <class T>
inline void read_integer(byte_source& in, gguf_value& v, const std::string& subject) {
  using wide = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;
  v.integers.push_back(static_cast<std::uint64_t>(static_cast<wide>(in.scalar<T>(subject, "a value"))));
}

/// Appends one element of fixed-size type `t` to `v`.
inline void read_element(byte_source& in, gguf_type t, gguf_value& v, const std::string& subject) {
  switch (t) {
    case gguf_type::u8: return read_integer<std::uint8_t>(in, v, subject);
    case gguf_type::i8: return read_integer<std::int8_t>(in, v, subject);
    case gguf_type::u16: return read_integer<std::uint16_t>(in, v, subject);
    case gguf_type::i16: return read_integer<std::int16_t>(in, v, subject);
    case gguf_type::u32: return read_integer<std::uint32_t>(in, v, subject);
    case gguf_type::i32: return read_integer<std::int32_t>(in, v, subject);
    case gguf_type::u64: return read_integer<std::uint64_t>(in, v, subject);
    case gguf_type::i64: return read_integer<std::int64_t>(in, v, subject);
    case gguf_type::boolean:  // gguf.cpp reads an int8: any nonzero byte is true
      v.integers.push_back(in.scalar<std::uint8_t>(subject, "a value") != 0 ? 1 : 0);
      return;
    case gguf_type::f32: {
      const auto bits = in.scalar<std::uint32_t>(subject, "a value");
      float f = 0;
      std::memcpy(&f, &bits, sizeof f);
      v.reals.push_back(f);
      return;
    }
    case gguf_type::f64: {
      const auto bits = in.scalar<std::uint64_t>(subject, "a value");
      double d = 0;
      std::memcpy(&d, &bits, sizeof d);
      v.reals.push_back(d);
      return;
    }
    case gguf_type::string:
    case gguf_type::array: return;  // not fixed-size: read by read_value
  }
}

inline void read_value(byte_source& in, gguf_value& v, const read_options& o, const std::string& subject) {
  v.type = read_type(in, subject, "the value type");
  if (v.type != gguf_type::array) {
    v.element = v.type;
    if (v.type == gguf_type::string) {
      v.strings.push_back(read_string(in, subject, "a string value"));
    } else {
      read_element(in, v.type, v, subject);
    }
    return;
  }
  const std::uint64_t at = in.offset();
  v.element = read_type(in, subject, "the array's element type");
  if (v.element == gguf_type::array) {
    throw gguf_error(gguf_errc::invalid, in.file(), at, subject,
                     "an array of arrays; ggml's reader refuses nested arrays");
  }
  const std::uint64_t count_at = in.offset();
  v.count = in.scalar<std::uint64_t>(subject, "the array's length");
  const std::uint64_t least = v.element == gguf_type::string ? 8 : fixed_size(v.element);
  if (v.count > max_array || v.count > in.remaining() / least) {
    throw gguf_error(v.count > max_array ? gguf_errc::out_of_range : gguf_errc::truncated, in.file(), count_at,
                     subject,
                     "an array of " + std::to_string(v.count) + " " + std::string(name(v.element)) +
                         " elements; " +
                         (v.count > max_array ? std::string("ggml allows at most 2^30")
                                              : "only " + std::to_string(in.remaining()) + " bytes are left"));
  }
  v.kept = v.count <= o.keep_elements;
  if (v.element != gguf_type::string) {
    if (!v.kept) {
      in.skip(v.count * least, subject, "the array");  // count × size ≤ remaining: checked above
      return;
    }
    for (std::uint64_t i = 0; i < v.count; ++i) {
      read_element(in, v.element, v, subject);
    }
    return;
  }
  for (std::uint64_t i = 0; i < v.count; ++i) {
    if (v.kept) {
      v.strings.push_back(read_string(in, subject, "a string element"));
    } else {
      const std::uint64_t len_at = in.offset();
      const auto n = in.scalar<std::uint64_t>(subject, "the length of a string element");
      if (n > max_string) {
        throw gguf_error(gguf_errc::out_of_range, in.file(), len_at, subject,
                         "a string element of " + std::to_string(n) + " bytes; ggml allows at most 2^30");
      }
      in.skip(n, subject, "a string element");
    }
  }
}

}  // namespace detail
}  // namespace kvsize::gguf
