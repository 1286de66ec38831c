// SPDX-License-Identifier: MIT
// What kvsize reads from a GGUF file's header: its metadata (key → typed value, in file order) and
// its tensor table (name, shape, ggml type, offset, exact bytes). Tensor data is never read.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>        // std::array
#include <cstdint>      // std::uint8_t, std::uint32_t, std::uint64_t
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

namespace kvsize::gguf {

/// The value types of GGUF metadata, numbered as the file numbers them (gguf.h `enum gguf_type`).
enum class gguf_type : std::uint8_t {
  u8 = 0, i8 = 1, u16 = 2, i16 = 3, u32 = 4, i32 = 5, f32 = 6, boolean = 7, string = 8, array = 9,
  u64 = 10, i64 = 11, f64 = 12,
};
inline constexpr std::uint32_t gguf_type_count = 13;

/// "UINT32", "ARRAY", ... as gguf.cpp's GGUF_TYPE_NAME spells them (what llama.cpp's errors print).
[[nodiscard]] constexpr auto name(gguf_type t) -> std::string_view {
  constexpr std::array<std::string_view, gguf_type_count> names{
      "UINT8", "INT8", "UINT16", "INT16", "UINT32", "INT32", "FLOAT32", "BOOL", "STRING", "ARRAY",
      "UINT64", "INT64", "FLOAT64"};
  return names[static_cast<std::uint8_t>(t)];
}

/// Bytes of one stored value of a fixed-size type; 0 for string and array.
[[nodiscard]] constexpr auto fixed_size(gguf_type t) -> std::uint32_t {
  constexpr std::array<std::uint32_t, gguf_type_count> sizes{1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
  return sizes[static_cast<std::uint8_t>(t)];
}

[[nodiscard]] constexpr auto is_integer(gguf_type t) -> bool {
  return t != gguf_type::f32 && t != gguf_type::f64 && t != gguf_type::string && t != gguf_type::array;
}
[[nodiscard]] constexpr auto is_signed(gguf_type t) -> bool {
  return t == gguf_type::i8 || t == gguf_type::i16 || t == gguf_type::i32 || t == gguf_type::i64;
}

/// One metadata value. A scalar holds one element; an array `count` elements of `element`, kept in
/// the vectors below unless there are more than the reader keeps (the tokenizer's 262,144 tokens
/// are counted and skipped: `kept` is false then).
struct gguf_value {
  gguf_type type = gguf_type::u8;     ///< array for an array
  gguf_type element = gguf_type::u8;  ///< the element type: `type` for a scalar
  std::uint64_t count = 1;            ///< elements (1 for a scalar)
  bool kept = true;                   ///< whether the elements below are all there
  /// Integer and bool elements: unsigned values as they are, signed ones as their two's-complement
  /// 64-bit pattern (read with as_signed); a bool is 0 or 1 (ggml takes any nonzero byte as true).
  std::vector<std::uint64_t> integers;
  std::vector<double> reals;         ///< FLOAT32 / FLOAT64 elements
  std::vector<std::string> strings;  ///< STRING elements
};

/// A key, its value and where it starts in the file.
struct gguf_kv {
  std::string key;
  gguf_value value;
  std::uint64_t offset = 0;  ///< byte offset of the key's length field
};

/// One tensor's header entry: ne[] as ggml orders it (ne[0] is the row length, contiguous).
struct gguf_tensor_info {
  std::string name;
  std::uint32_t n_dims = 0;
  std::array<std::uint64_t, 4> ne{1, 1, 1, 1};
  std::uint32_t type = 0;          ///< on-disk ggml type id (ggml_ids.hpp)
  std::uint64_t data_offset = 0;   ///< relative to the data section, as stored
  std::uint64_t size = 0;          ///< exact bytes: elements / block_elements × block_bytes
  std::uint64_t info_offset = 0;   ///< byte offset of the entry in the file
  [[nodiscard]] auto elements() const -> std::uint64_t { return ne[0] * ne[1] * ne[2] * ne[3]; }  // checked on read
};

/// A GGUF header as read.
struct gguf_header {
  std::uint32_t version = 0;
  std::uint64_t tensor_count = 0;  ///< as the header states it
  std::uint64_t kv_count = 0;      ///< as the header states it
  std::vector<gguf_kv> metadata;   ///< in file order; all kv_count of them unless `stopped_at` is set
  std::vector<gguf_tensor_info> tensors;
  std::uint32_t alignment = 32;    ///< general.alignment, or ggml's default 32
  std::uint64_t data_offset = 0;   ///< where tensor data starts (0 when the read stopped early)
  std::uint64_t data_size = 0;     ///< Σ tensor sizes, each padded to `alignment`
  std::uint64_t file_size = 0;
  /// 0, or the byte offset where a metadata-only read stopped (the first tokenizer.* key after the
  /// architecture's own keys): the rest of the metadata and the tensor table were not read.
  std::uint64_t stopped_at = 0;
  std::uint64_t bytes_read = 0;    ///< bytes the reader took from the stream (the cost of the read)
  /// false for a header built from a listing without its tensors (Ollama's /api/show without them):
  /// the weights are unknown, not zero.
  bool has_tensor_table = true;

  /// The entry for `key`, or nullptr.
  [[nodiscard]] auto find(std::string_view key) const -> const gguf_kv* {
    for (const auto& kv : metadata) {
      if (kv.key == key) {
        return &kv;
      }
    }
    return nullptr;
  }
  /// Whether the file holds every tensor's data (a header-only copy does not; kvsize never reads it).
  [[nodiscard]] auto data_present() const -> bool {
    return stopped_at == 0 && data_offset <= file_size && data_size <= file_size - data_offset;
  }
};

}  // namespace kvsize::gguf
