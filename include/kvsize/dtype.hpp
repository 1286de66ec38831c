// SPDX-License-Identifier: MIT
// Element types of weights and caches, with exact sizes as (elements per block, bytes per block).
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>        // std::array
#include <cstdint>      // std::uint8_t, std::uint64_t
#include <optional>     // std::optional
#include <string_view>  // std::string_view

#include "error.hpp"
#include "bytes.hpp"
#include "detail/checked.hpp"

namespace kvsize {

/// An element type. Sizes are exact integers: GGML's quantized types pack a block of 32
/// elements with its scale(s) into a whole number of bytes (ggml-common.h static_asserts),
/// so q8_0 is 34 bytes per 32 elements, never "1.0625 bytes".
enum class dtype : std::uint8_t {
  f32,
  f16,
  bf16,
  fp8_e4m3,
  fp8_e5m2,
  int8,
  int4,    // two 4-bit values per byte, no scales
  q8_0,    // 32 × int8 + one f16 scale            = 34 B / 32
  q4_0,    // 32 × 4 bit + one f16 scale           = 18 B / 32
  q4_1,    // 32 × 4 bit + f16 scale + f16 minimum = 20 B / 32
  q5_0,    // 32 × 5 bit + one f16 scale           = 22 B / 32
  q5_1,    // 32 × 5 bit + f16 scale + f16 minimum = 24 B / 32
  iq4_nl,  // 32 × 4 bit non-linear + f16 scale    = 18 B / 32
};

/// The size rule of one element type: `block_bytes` bytes hold `block_elements` elements.
struct dtype_traits {
  std::string_view name;
  std::uint64_t block_elements;
  std::uint64_t block_bytes;
};

namespace detail {
// clang-format off
inline constexpr std::array<dtype_traits, 13> dtype_table{{
    {"f32",       1,  4},
    {"f16",       1,  2},
    {"bf16",      1,  2},
    {"fp8_e4m3",  1,  1},
    {"fp8_e5m2",  1,  1},
    {"int8",      1,  1},
    {"int4",      2,  1},
    {"q8_0",     32, 34},
    {"q4_0",     32, 18},
    {"q4_1",     32, 20},
    {"q5_0",     32, 22},
    {"q5_1",     32, 24},
    {"iq4_nl",   32, 18},
}};
// clang-format on

struct dtype_alias {
  std::string_view spelling;
  dtype type;
};
// Spellings accepted by parse_dtype besides the canonical names: config.json's torch dtypes
// and the engines' --kv-cache-dtype / --cache-type-k values.
inline constexpr std::array<dtype_alias, 12> dtype_aliases{{
    {"float32", dtype::f32},   {"float", dtype::f32},        {"fp32", dtype::f32},
    {"float16", dtype::f16},   {"half", dtype::f16},         {"fp16", dtype::f16},
    {"bfloat16", dtype::bf16}, {"fp8", dtype::fp8_e4m3},     {"float8_e4m3fn", dtype::fp8_e4m3},
    {"e4m3", dtype::fp8_e4m3}, {"float8_e5m2", dtype::fp8_e5m2}, {"e5m2", dtype::fp8_e5m2},
}};
}  // namespace detail

/// All element types, in declaration order.
inline constexpr std::array<dtype, 13> all_dtypes{
    dtype::f32,  dtype::f16,  dtype::bf16, dtype::fp8_e4m3, dtype::fp8_e5m2, dtype::int8,  dtype::int4,
    dtype::q8_0, dtype::q4_0, dtype::q4_1, dtype::q5_0,     dtype::q5_1,     dtype::iq4_nl};

[[nodiscard]] constexpr auto traits(dtype t) -> const dtype_traits& {
  return detail::dtype_table[static_cast<std::uint8_t>(t)];
}

/// Canonical name: "f16", "q8_0", ...
[[nodiscard]] constexpr auto name(dtype t) -> std::string_view { return traits(t).name; }

/// Exact bytes of a row of `elements` values (ggml_row_size): elements / block × block bytes.
/// Throws kvsize::invalid_argument if `elements` is not a whole number of blocks, as llama.cpp
/// refuses such a cache (a q8_0 row needs a multiple of 32 elements).
[[nodiscard]] constexpr auto row_bytes(dtype t, std::uint64_t elements) -> bytes {
  const auto& tr = traits(t);
  if (tr.block_elements == 1) {  // every unquantized type: no division on the hot path
    return bytes{detail::checked_mul(elements, tr.block_bytes)};
  }
  if (elements % tr.block_elements != 0) {
    throw kvsize::invalid_argument(
        "kvsize: row length is not a whole number of quantization blocks for this element type");
  }
  return bytes{detail::checked_mul(elements / tr.block_elements, tr.block_bytes)};
}

/// Bytes of `elements` values when they need not fill whole blocks (weights of odd shapes):
/// rounds up to whole blocks.
[[nodiscard]] constexpr auto storage_bytes(dtype t, std::uint64_t elements) -> bytes {
  const auto& tr = traits(t);
  if (tr.block_elements == 1) {
    return bytes{detail::checked_mul(elements, tr.block_bytes)};
  }
  return bytes{detail::checked_mul(detail::ceil_div(elements, tr.block_elements), tr.block_bytes)};
}

/// Bits per element, for display (q4_0 → 4.5).
[[nodiscard]] constexpr auto bits_per_element(dtype t) -> double {
  const auto& tr = traits(t);
  return 8.0 * static_cast<double>(tr.block_bytes) / static_cast<double>(tr.block_elements);
}

/// Parses a canonical name or a common alias ("bfloat16", "fp8", "float16", ...), ASCII
/// case-insensitively. Returns nullopt for anything else.
[[nodiscard]] constexpr auto parse_dtype(std::string_view text) -> std::optional<dtype> {
  const auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; };
  const auto equal = [&](std::string_view a, std::string_view b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (lower(a[i]) != lower(b[i])) {
        return false;
      }
    }
    return true;
  };
  for (dtype t : all_dtypes) {
    if (equal(text, name(t))) {
      return t;
    }
  }
  for (const auto& alias : detail::dtype_aliases) {
    if (equal(text, alias.spelling)) {
      return alias.type;
    }
  }
  return std::nullopt;
}

/// K and V element types, which llama.cpp lets differ (--cache-type-k / --cache-type-v).
struct kv_dtypes {
  dtype k;
  dtype v;
  /// Both K and V in one type.
  [[nodiscard]] static constexpr auto same(dtype t) -> kv_dtypes { return {t, t}; }
  friend constexpr auto operator==(kv_dtypes, kv_dtypes) -> bool = default;
};

}  // namespace kvsize
