// SPDX-License-Identifier: MIT
// The ggml tensor types as a GGUF file numbers them (ggml.h `enum ggml_type`, 43 ids, Q2_0 = 42 the
// newest), each with its block: `block_elements` values stored in `block_bytes` bytes (ggml.c
// `type_traits[]`, the block structs of ggml-common.h). Ids ggml removed (Q4_2, Q4_3, the
// Q4_0_4_4 / IQ4_NL_4_4 repack layouts) have a zero block, and a file that uses one is refused, as
// ggml's gguf_init_from_reader refuses it. Figures and sources: docs/research/gguf-format.md §2.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>        // std::array
#include <cstdint>      // std::uint8_t, std::uint32_t
#include <optional>     // std::optional
#include <string_view>  // std::string_view

#include "../dtype.hpp"

namespace kvsize::gguf {

/// One on-disk ggml type id.
struct ggml_id_traits {
  std::string_view name;         ///< as ggml_type_name prints it: "q4_K", "bf16", "mxfp4"
  std::uint32_t block_elements;  ///< values per block; 0 for a removed id
  std::uint32_t block_bytes;     ///< bytes per block; 0 for a removed id
};

// clang-format off
inline constexpr std::array<ggml_id_traits, 43> ggml_ids{{
    {"f32", 1, 4},        {"f16", 1, 2},        {"q4_0", 32, 18},     {"q4_1", 32, 20},
    {"q4_2", 0, 0},       {"q4_3", 0, 0},       {"q5_0", 32, 22},     {"q5_1", 32, 24},
    {"q8_0", 32, 34},     {"q8_1", 32, 36},     {"q2_K", 256, 84},    {"q3_K", 256, 110},
    {"q4_K", 256, 144},   {"q5_K", 256, 176},   {"q6_K", 256, 210},   {"q8_K", 256, 292},
    {"iq2_xxs", 256, 66}, {"iq2_xs", 256, 74},  {"iq3_xxs", 256, 98}, {"iq1_s", 256, 50},
    {"iq4_nl", 32, 18},   {"iq3_s", 256, 110},  {"iq2_s", 256, 82},   {"iq4_xs", 256, 136},
    {"i8", 1, 1},         {"i16", 1, 2},        {"i32", 1, 4},        {"i64", 1, 8},
    {"f64", 1, 8},        {"iq1_m", 256, 56},   {"bf16", 1, 2},       {"q4_0_4_4", 0, 0},
    {"q4_0_4_8", 0, 0},   {"q4_0_8_8", 0, 0},   {"tq1_0", 256, 54},   {"tq2_0", 256, 66},
    {"iq4_nl_4_4", 0, 0}, {"iq4_nl_4_8", 0, 0}, {"iq4_nl_8_8", 0, 0}, {"mxfp4", 32, 17},
    {"nvfp4", 64, 36},    {"q1_0", 128, 18},    {"q2_0", 64, 18},
}};
// clang-format on

/// The row for on-disk id `id`, or nullopt past the table's end.
[[nodiscard]] constexpr auto ggml_id(std::uint32_t id) -> std::optional<ggml_id_traits> {
  if (id >= ggml_ids.size()) {
    return std::nullopt;
  }
  return ggml_ids[id];
}

/// kvsize's own element type for on-disk id `id`, where kvsize sizes caches or weights in it
/// (f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1, iq4_nl and the K-quants q2_K..q6_K); else nullopt.
[[nodiscard]] constexpr auto kvsize_type_of(std::uint32_t id) -> std::optional<kvsize::ggml_type> {
  switch (id) {
    case 0: return kvsize::ggml_type::f32;
    case 1: return kvsize::ggml_type::f16;
    case 2: return kvsize::ggml_type::q4_0;
    case 3: return kvsize::ggml_type::q4_1;
    case 6: return kvsize::ggml_type::q5_0;
    case 7: return kvsize::ggml_type::q5_1;
    case 8: return kvsize::ggml_type::q8_0;
    case 10: return kvsize::ggml_type::q2_K;
    case 11: return kvsize::ggml_type::q3_K;
    case 12: return kvsize::ggml_type::q4_K;
    case 13: return kvsize::ggml_type::q5_K;
    case 14: return kvsize::ggml_type::q6_K;
    case 20: return kvsize::ggml_type::iq4_nl;
    case 30: return kvsize::ggml_type::bf16;
    default: return std::nullopt;
  }
}

}  // namespace kvsize::gguf
