// SPDX-License-Identifier: MIT
// Run-time behaviour of the core: checked arithmetic, element types, validation, capacity.
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <limits>
#include <stdexcept>

#include <kvsize/kvsize.hpp>

using namespace kvsize::literals;
using Catch::Matchers::ContainsSubstring;
using kvsize::bytes;
namespace presets = kvsize::presets;

TEST_CASE("bytes: overflow is an exception at run time, never a wrap", "[bytes]") {
  const bytes big{std::numeric_limits<std::uint64_t>::max() / 2 + 1};
  REQUIRE_THROWS_AS(big + big, std::overflow_error);
  REQUIRE_THROWS_AS(big * 2, std::overflow_error);
  REQUIRE_THROWS_WITH(big * 3, ContainsSubstring("overflows 2^64"));
  REQUIRE_NOTHROW(big * 1);
}

TEST_CASE("bytes: subtraction below zero throws", "[bytes]") {
  REQUIRE_THROWS_AS(1_KiB - 1_MiB, std::underflow_error);
  REQUIRE(1_MiB - 1_KiB == bytes{1'047'552});
}

TEST_CASE("bytes: division rounds down for 'how many fit' and up for 'a share of'", "[bytes]") {
  REQUIRE(bytes{10} / bytes{3} == 3);
  REQUIRE(bytes{10} / 3 == bytes{4});
  REQUIRE_THROWS_AS(bytes{10} / bytes{0}, std::domain_error);
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
  REQUIRE_THROWS_AS(kvsize::row_bytes(kvsize::dtype::q8_0, 80), std::invalid_argument);  // 80 % 32 ≠ 0
  REQUIRE(kvsize::storage_bytes(kvsize::dtype::q8_0, 80) == bytes{3 * 34});           // weights round up
  REQUIRE(kvsize::bits_per_element(kvsize::dtype::q4_0) == 4.5);
}

TEST_CASE("model_spec: validate names the broken invariant", "[model_spec]") {
  kvsize::model_spec m = presets::llama_3_8b;
  REQUIRE_NOTHROW(kvsize::validate(m));
  m.kv_heads = 5;
  REQUIRE_THROWS_WITH(kvsize::validate(m), ContainsSubstring("not a multiple of kv_heads"));
  m = presets::llama_3_8b;
  m.attention = kvsize::layer_kind::sliding;
  REQUIRE_THROWS_WITH(kvsize::validate(m), ContainsSubstring("sliding_window"));
  m = presets::llama_3_8b;
  m.layer[40].kind = kvsize::layer_kind::full;  // beyond the 32 layers
  REQUIRE_THROWS_WITH(kvsize::validate(m), ContainsSubstring("beyond"));
  m = presets::llama_3_8b;
  m.layers = 0;
  REQUIRE_THROWS_WITH(kvsize::validate(m), ContainsSubstring("layers must be positive"));
}

TEST_CASE("capacity: the max users at a context fit, and one more does not", "[capacity]") {
  const auto model = GENERATE(presets::qwen2_5_0_5b, presets::qwen2_5_1_5b, presets::qwen2_5_7b, presets::llama_3_8b);
  const auto context = GENERATE(std::uint64_t{512}, std::uint64_t{4'096}, std::uint64_t{32'768});
  const auto format = kvsize::cache_format::of(model);
  const bytes budget = 40_GiB;
  const auto users = kvsize::max_sequences(model, budget, context, format);
  REQUIRE(kvsize::kv_bytes(model, context, users) <= budget);
  REQUIRE(kvsize::kv_bytes(model, context, users + 1) > budget);
  // The longest context for that many users is at least `context`, and one token more does not fit.
  const auto longest = kvsize::max_context(model, budget, users, format, 1'000'000);
  REQUIRE(longest >= context);
  REQUIRE(kvsize::kv_bytes(model, longest, users) <= budget);
  REQUIRE(kvsize::kv_bytes(model, longest + 1, users) > budget);
}

TEST_CASE("capacity: windowed layers stop growing, so a windowed-only model fits any context", "[capacity]") {
  kvsize::model_spec swa = presets::llama_3_8b;
  swa.attention = kvsize::layer_kind::sliding;
  swa.sliding_window = 4'096;
  const auto format = kvsize::cache_format::of(swa);
  // One sequence of 4,096 tokens is 4,096 × 128 KiB = 512 MiB; any longer one is the same.
  REQUIRE(kvsize::max_context(swa, 512_MiB, 1, format, 1'000'000) == 1'000'000);
  REQUIRE(kvsize::max_context(swa, 512_MiB - 1_B, 1, format, 1'000'000) == 4'095);
  REQUIRE(kvsize::max_context(swa, 512_MiB, 2, format, 1'000'000) == 2'048);
}

TEST_CASE("capacity: weights that do not fit leave no KV budget", "[capacity]") {
  REQUIRE(kvsize::kv_budget(12_GiB, bytes{15'231'233'024}) == bytes{0});
  REQUIRE_FALSE(kvsize::weights_fit(12_GiB, bytes{15'231'233'024}));
  REQUIRE(kvsize::kv_budget(24_GiB, 16_GiB, 1_GiB) == 7_GiB);
}

TEST_CASE("gpus: catalog lookups by id, case-insensitive", "[gpus]") {
  REQUIRE(kvsize::find_gpu("H100-80GB")->memory == 81'559_MiB);
  REQUIRE(kvsize::find_gpu("rtx-3060")->memory == 12_GiB);
  REQUIRE_FALSE(kvsize::find_gpu("rtx-9999"));
  REQUIRE_THROWS_AS(kvsize::gpu("rtx-9999"), std::invalid_argument);
}
