// SPDX-License-Identifier: MIT
// kvsize/dtype.hpp: the one element-type table, seen from dtype and from ggml_type.
#include <catch2/catch_test_macros.hpp>

#include <string_view>

#include <kvsize/bytes.hpp>
#include <kvsize/dtype.hpp>
#include <kvsize/error.hpp>

using kvsize::bytes;

namespace {
using kvsize::dtype;
using kvsize::ggml_type;

// A ggml_type that shares a dtype's row has the dtype's name and sizes: one row, two views.
static_assert(&kvsize::traits(ggml_type::q8_0) == &kvsize::traits(dtype::q8_0));
static_assert(&kvsize::traits(ggml_type::bf16) == &kvsize::traits(dtype::bf16));
static_assert(kvsize::name(ggml_type::iq4_nl) == kvsize::name(dtype::iq4_nl));
// ggml-common.h block sizes of the K-quants: 256 elements per super-block.
static_assert(kvsize::traits(ggml_type::q2_K).block_bytes == 84);
static_assert(kvsize::traits(ggml_type::q3_K).block_bytes == 110);
static_assert(kvsize::traits(ggml_type::q4_K).block_bytes == 144);
static_assert(kvsize::traits(ggml_type::q5_K).block_bytes == 176);
static_assert(kvsize::traits(ggml_type::q6_K).block_bytes == 210);
static_assert(kvsize::traits(ggml_type::q6_K).block_elements == 256);
static_assert(kvsize::name(ggml_type::q4_K) == "q4_K");
// Aliases are part of the row, and parse in constant expressions.
static_assert(kvsize::parse_dtype("float8_e4m3fn") == dtype::fp8_e4m3);
static_assert(kvsize::parse_dtype("HALF") == dtype::f16);
static_assert(kvsize::all_dtypes.size() == kvsize::dtype_count);
static_assert(kvsize::all_dtypes.back() == dtype::iq4_nl);
}  // namespace

TEST_CASE("dtype table: names, aliases and K-quants", "[dtype]") {
  // Every row's name is unique, and no alias spells another row's name or alias.
  std::size_t spellings = 0;
  for (const auto& row : kvsize::detail::element_types) {
    for (const auto& other : kvsize::detail::element_types) {
      if (&row == &other) {
        continue;
      }
      CHECK(row.name != other.name);
      for (const std::string_view a : other.aliases) {
        CHECK((a.empty() || a != row.name));
        for (const std::string_view b : row.aliases) {
          CHECK((a.empty() || a != b));
        }
      }
    }
    for (const std::string_view a : row.aliases) {
      spellings += a.empty() ? 0U : 1U;
    }
  }
  CHECK(spellings == 12);  // float32 float fp32 float16 half fp16 bfloat16 fp8 float8_e4m3fn e4m3 float8_e5m2 e5m2
  // Every dtype alias parses to its row's type.
  for (const dtype t : kvsize::all_dtypes) {
    for (const std::string_view a : kvsize::traits(t).aliases) {
      if (!a.empty()) {
        CHECK(kvsize::parse_dtype(a) == t);
      }
    }
  }
  // The K-quants are GGUF tensor types only: parse_dtype refuses them (no K-quant KV cache).
  CHECK_FALSE(kvsize::parse_dtype("q4_K"));
  CHECK_FALSE(kvsize::parse_dtype("q6_K"));
  // bits per element of a K-quant, from its row: q4_K 144 × 8 / 256 = 4.5.
  const auto& q4k = kvsize::traits(ggml_type::q4_K);
  CHECK(8 * q4k.block_bytes == 9 * q4k.block_elements / 2);
}

TEST_CASE("dtype: names and aliases parse, unknown spellings do not", "[dtype]") {
  REQUIRE(kvsize::parse_dtype("bfloat16") == kvsize::dtype::bf16);
  REQUIRE(kvsize::parse_dtype("BF16") == kvsize::dtype::bf16);
  REQUIRE(kvsize::parse_dtype("fp8") == kvsize::dtype::fp8_e4m3);
  REQUIRE(kvsize::parse_dtype("float16") == kvsize::dtype::f16);
  REQUIRE(kvsize::parse_dtype("q8_0") == kvsize::dtype::q8_0);
  REQUIRE_FALSE(kvsize::parse_dtype("fp9"));
  REQUIRE_FALSE(kvsize::parse_dtype(""));
  for (kvsize::dtype t : kvsize::all_dtypes) {
    REQUIRE(kvsize::parse_dtype(kvsize::name(t)) == t);  // every canonical name round-trips
  }
}

TEST_CASE("dtype: GGML block types have exact sizes and refuse partial blocks", "[dtype]") {
  // ggml-common.h: q8_0 34 B / 32, q4_0 18 / 32, q4_1 20 / 32, q5_0 22 / 32, q5_1 24 / 32, iq4_nl 18 / 32.
  REQUIRE(kvsize::row_bytes(kvsize::dtype::q8_0, 128) == bytes{136});
  REQUIRE(kvsize::row_bytes(kvsize::dtype::q4_0, 128) == bytes{72});
  REQUIRE(kvsize::row_bytes(kvsize::dtype::q4_1, 128) == bytes{80});
  REQUIRE(kvsize::row_bytes(kvsize::dtype::q5_0, 128) == bytes{88});
  REQUIRE(kvsize::row_bytes(kvsize::dtype::q5_1, 128) == bytes{96});
  REQUIRE(kvsize::row_bytes(kvsize::dtype::iq4_nl, 128) == bytes{72});
  REQUIRE(kvsize::row_bytes(kvsize::dtype::int4, 128) == bytes{64});
  REQUIRE_THROWS_AS(kvsize::row_bytes(kvsize::dtype::q8_0, 80), kvsize::invalid_argument);  // 80 % 32 ≠ 0
  REQUIRE(kvsize::storage_bytes(kvsize::dtype::q8_0, 80) == bytes{3 * 34});           // weights round up
  REQUIRE(kvsize::bits_per_element(kvsize::dtype::q4_0) == 4.5);
}
