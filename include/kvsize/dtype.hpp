// SPDX-License-Identifier: MIT
// Element types of weights and caches, with exact sizes as (elements per block, bytes per block):
// one table (detail::element_types) holds every type's size, name and spellings, for `dtype`
// (caches, uniform weights) and for `ggml_type` (the tensor types of a GGUF file).
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>        // std::array
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint8_t, std::uint64_t
#include <optional>     // std::optional
#include <string_view>  // std::string_view

#include "error.hpp"
#include "bytes.hpp"
#include "detail/checked.hpp"

namespace kvsize {

/// An element type. Sizes are exact integers: GGML's quantized types pack a block of 32
/// elements with its scale(s) into a whole number of bytes (ggml-common.h static_asserts),
/// so q8_0 is 34 bytes per 32 elements, never "1.0625 bytes". The enumerator is the row of
/// detail::element_types that describes the type.
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
inline constexpr std::size_t dtype_count = 13;

/// One of the two 8-bit floating-point formats (e4m3, e5m2): the engines' "fp8" cache rules apply to both.
[[nodiscard]] constexpr auto is_fp8(dtype t) -> bool { return t == dtype::fp8_e4m3 || t == dtype::fp8_e5m2; }

/// GGML tensor types a GGUF file stores weights in (weights_gguf.hpp picks one per tensor). The
/// types kvsize also sizes caches in share dtype's rows; the K-quants (256-element super-blocks)
/// have rows of their own, after dtype's. The enumerator is the row of detail::element_types.
enum class ggml_type : std::uint8_t {
  f32 = static_cast<std::uint8_t>(dtype::f32),
  f16 = static_cast<std::uint8_t>(dtype::f16),
  bf16 = static_cast<std::uint8_t>(dtype::bf16),
  q8_0 = static_cast<std::uint8_t>(dtype::q8_0),
  q4_0 = static_cast<std::uint8_t>(dtype::q4_0),
  q4_1 = static_cast<std::uint8_t>(dtype::q4_1),
  q5_0 = static_cast<std::uint8_t>(dtype::q5_0),
  q5_1 = static_cast<std::uint8_t>(dtype::q5_1),
  iq4_nl = static_cast<std::uint8_t>(dtype::iq4_nl),
  q2_K = dtype_count,  // 16 B scales + 64 B quants + 2 f16                    =  84 B / 256
  q3_K,                // 32 B hmask + 64 B quants + 12 B scales + f16         = 110 B / 256
  q4_K,                // 2 f16 + 12 B scales + 128 B quants                   = 144 B / 256
  q5_K,                // 2 f16 + 12 B scales + 32 B high bits + 128 B quants  = 176 B / 256
  q6_K,                // 128 B low bits + 64 B high bits + 16 B scales + f16  = 210 B / 256
};

/// One row of the element-type table: `block_bytes` bytes hold `block_elements` elements;
/// `name` is the canonical spelling, `aliases` the others parse_dtype accepts (config.json's
/// torch dtypes, the engines' --kv-cache-dtype / --cache-type-k values); "" entries are unused
/// (spelled out in every row: GCC 12 cannot evaluate a defaulted string_view member of a
/// brace-elided row in a constant expression).
struct dtype_traits {
  std::string_view name;
  std::uint64_t block_elements;
  std::uint64_t block_bytes;
  std::array<std::string_view, 3> aliases;
};
using ggml_type_traits = dtype_traits;  ///< the same rows, seen from a ggml_type

namespace detail {
/// The one element-type table: every type kvsize knows, one row each, in the order of dtype then
/// ggml_type's K-quants. Block sizes are ggml-common.h's (block_q8_0 ... block_q6_K static_asserts).
// clang-format off
inline constexpr std::array<dtype_traits, 18> element_types{{
    {"f32",       1,   4, {"float32", "float", "fp32"}},
    {"f16",       1,   2, {"float16", "half", "fp16"}},
    {"bf16",      1,   2, {"bfloat16", "", ""}},
    {"fp8_e4m3",  1,   1, {"fp8", "float8_e4m3fn", "e4m3"}},
    {"fp8_e5m2",  1,   1, {"float8_e5m2", "e5m2", ""}},
    {"int8",      1,   1, {"", "", ""}},
    {"int4",      2,   1, {"", "", ""}},
    {"q8_0",     32,  34, {"", "", ""}},
    {"q4_0",     32,  18, {"", "", ""}},
    {"q4_1",     32,  20, {"", "", ""}},
    {"q5_0",     32,  22, {"", "", ""}},
    {"q5_1",     32,  24, {"", "", ""}},
    {"iq4_nl",   32,  18, {"", "", ""}},
    {"q2_K",    256,  84, {"", "", ""}},
    {"q3_K",    256, 110, {"", "", ""}},
    {"q4_K",    256, 144, {"", "", ""}},
    {"q5_K",    256, 176, {"", "", ""}},
    {"q6_K",    256, 210, {"", "", ""}},
}};
// clang-format on
static_assert(static_cast<std::size_t>(ggml_type::q6_K) + 1 == element_types.size(),
              "kvsize: every ggml_type has a row of element_types");
}  // namespace detail

namespace detail {
/// ASCII case-insensitive equality, for the spellings of element types and presets.
[[nodiscard]] constexpr auto ascii_iequal(std::string_view a, std::string_view b) -> bool {
  const auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; };
  if (a.size() != b.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) {
      return false;
    }
  }
  return true;
}
}  // namespace detail

/// All element types of `dtype`, in declaration order.
inline constexpr std::array<dtype, dtype_count> all_dtypes = [] {
  std::array<dtype, dtype_count> all{};
  for (std::size_t i = 0; i < dtype_count; ++i) {
    all[i] = static_cast<dtype>(i);
  }
  return all;
}();

[[nodiscard]] constexpr auto traits(dtype t) -> const dtype_traits& {
  return detail::element_types[static_cast<std::uint8_t>(t)];
}
[[nodiscard]] constexpr auto traits(ggml_type t) -> const ggml_type_traits& {
  return detail::element_types[static_cast<std::uint8_t>(t)];
}

/// Canonical name: "f16", "q8_0", ...
[[nodiscard]] constexpr auto name(dtype t) -> std::string_view { return traits(t).name; }
/// Canonical name: "q4_K", "f16", ...
[[nodiscard]] constexpr auto name(ggml_type t) -> std::string_view { return traits(t).name; }

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

/// Parses a canonical name or a common alias ("bfloat16", "fp8", "float16", ...) of a `dtype`,
/// ASCII case-insensitively. Returns nullopt for anything else, the K-quants included (they are
/// GGUF tensor types, never a cache or uniform weight type).
[[nodiscard]] constexpr auto parse_dtype(std::string_view text) -> std::optional<dtype> {
  using detail::ascii_iequal;
  for (dtype t : all_dtypes) {  // canonical names first, then the aliases (no alias is another row's name)
    if (ascii_iequal(text, name(t))) {
      return t;
    }
  }
  for (dtype t : all_dtypes) {
    for (const std::string_view alias : traits(t).aliases) {
      if (!alias.empty() && ascii_iequal(text, alias)) {
        return t;
      }
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
