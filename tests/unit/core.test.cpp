// SPDX-License-Identifier: MIT
// Run-time behaviour of the core: checked arithmetic, element types, validation, capacity.
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <limits>

#include <kvsize/kvsize.hpp>

using namespace kvsize::literals;
using Catch::Matchers::ContainsSubstring;
using kvsize::bytes;
namespace presets = kvsize::presets;

TEST_CASE("bytes: overflow is an exception at run time, never a wrap", "[bytes]") {
  const bytes big{std::numeric_limits<std::uint64_t>::max() / 2 + 1};
  REQUIRE_THROWS_AS(big + big, kvsize::overflow_error);
  REQUIRE_THROWS_AS(big * 2, kvsize::overflow_error);
  REQUIRE_THROWS_WITH(big * 3, ContainsSubstring("overflows 2^64"));
  REQUIRE_NOTHROW(big * 1);
}

TEST_CASE("bytes: subtraction below zero throws", "[bytes]") {
  REQUIRE_THROWS_AS(1_KiB - 1_MiB, kvsize::underflow_error);
  REQUIRE(1_MiB - 1_KiB == bytes{1'047'552});
}

TEST_CASE("bytes: division rounds down for 'how many fit' and up for 'a share of'", "[bytes]") {
  REQUIRE(bytes{10} / bytes{3} == 3);
  REQUIRE(bytes{10} / 3 == bytes{4});
  REQUIRE_THROWS_AS(bytes{10} / bytes{0}, kvsize::domain_error);
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

namespace {
/// The KV of one sequence summed layer by layer (layer_kv_bytes_per_token × layer_tokens_held):
/// the definition, against which the fast per-kind sums of kv_token_bytes_of are checked.
constexpr auto kv_per_sequence_layer_by_layer(const kvsize::model_spec& m, std::uint64_t tokens, kvsize::kv_dtypes t)
    -> bytes {
  bytes total{0};
  for (std::uint32_t il = 0; il < m.layers; ++il) {
    total += kvsize::layer_kv_bytes_per_token(m, il, t) * kvsize::layer_tokens_held(m, il, tokens);
  }
  return total;
}
}  // namespace

TEST_CASE("kv_cache: the per-kind sums equal the layer-by-layer definition, at run and compile time", "[kv_cache]") {
  // Random valid specs (fixed seed): each layer entry left unset, or given a kind, the recurrent flag
  // and/or KV heads of its own; the run-time scan reads entries as words, the constant one by field.
  // KV heads are divisors of the 16 query heads and recurrent layers have a state, as the spec's
  // check requires (model_spec.test.cpp tests the refusals).
  std::uint64_t x = 0x2545F4914F6CDD1DULL;
  const auto next = [&x](std::uint64_t n) {
    x ^= x << 13U;
    x ^= x >> 7U;
    x ^= x << 17U;
    return x % n;
  };
  constexpr kvsize::layer_kind kinds[] = {kvsize::layer_kind::inherit, kvsize::layer_kind::full,
                                          kvsize::layer_kind::sliding, kvsize::layer_kind::chunked,
                                          kvsize::layer_kind::latent,  kvsize::layer_kind::none,
                                          kvsize::layer_kind::shared};
  constexpr std::uint16_t divisors_of_16[] = {1, 2, 4, 8, 16};
  for (int trial = 0; trial < 2'000; ++trial) {
    kvsize::model_spec m{.layers = static_cast<std::uint32_t>(1 + next(80)), .attention_heads = 16,
                         .kv_heads = divisors_of_16[next(4)], .head_dim = 64, .hidden_size = 1'024,
                         .vocab_size = 1'000, .sliding_window = static_cast<std::uint32_t>(1 + next(4'096)),
                         .attention_chunk = static_cast<std::uint32_t>(1 + next(8'192)),
                         .latent = {.kv_lora_rank = 512, .rope_head_dim = 64},
                         .state = {.conv_elements = 3 * 1'024, .ssm_elements = 16 * 64 * 128}};
    m.attention = kinds[next(5)];  // inherit .. latent
    const auto shape = next(4);    // 0: uniform; 1: kinds only; 2: + recurrent flags; 3: + own KV heads
    for (std::uint32_t il = 0; il < m.layers && shape != 0; ++il) {
      if (next(3) == 0) {
        continue;  // left as the model's
      }
      m.layer[il].kind = kinds[next(std::size(kinds))];
      m.layer[il].recurrent = shape >= 2 && next(2) == 0;
      m.layer[il].kv_heads = shape == 3 && next(2) == 0 ? divisors_of_16[next(5)] : std::uint16_t{0};
    }
    const auto t = kvsize::kv_dtypes{kvsize::dtype::bf16, next(2) == 0 ? kvsize::dtype::bf16 : kvsize::dtype::fp8_e4m3};
    const auto sums = kvsize::kv_token_bytes_of(m, t);
    for (const std::uint64_t tokens : {std::uint64_t{0}, std::uint64_t{1}, 1 + next(20'000), std::uint64_t{100'000}}) {
      INFO("trial " << trial << ", shape " << shape << ", tokens " << tokens);
      REQUIRE(sums.per_sequence(tokens) == kv_per_sequence_layer_by_layer(m, tokens, t));
    }
  }
  // The constant-expression path of the same scan (field by field) on three shapes.
  constexpr auto gemma_like = [] {
    kvsize::model_spec m = presets::llama_3_8b;
    m.sliding_window = 4'096;
    for (std::uint32_t il = 0; il < m.layers; il += 2) {
      m.layer[il].kind = kvsize::layer_kind::sliding;
    }
    m.layer[3].kv_heads = 4;  // one layer with KV heads of its own
    return m;
  }();
  constexpr auto t = kvsize::kv_dtypes::same(kvsize::dtype::bf16);
  STATIC_REQUIRE(kvsize::kv_token_bytes_of(gemma_like, t).per_sequence(10'000) ==
                 kv_per_sequence_layer_by_layer(gemma_like, 10'000, t));
  STATIC_REQUIRE(kvsize::kv_token_bytes_of(presets::llama_3_8b, t).per_sequence(10'000) ==
                 kv_per_sequence_layer_by_layer(presets::llama_3_8b, 10'000, t));
  REQUIRE(kvsize::kv_token_bytes_of(gemma_like, t).per_sequence(10'000) ==
          kv_per_sequence_layer_by_layer(gemma_like, 10'000, t));
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
  REQUIRE_THROWS_AS(kvsize::gpu("rtx-9999"), kvsize::invalid_argument);
}
