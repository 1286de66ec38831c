// SPDX-License-Identifier: MIT
// kvsize/capacity.hpp: what fits in a KV budget (max sequences, max context) and the budget itself.
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>

#include <cstdint>

#include <kvsize/capacity.hpp>
#include <kvsize/kv_cache.hpp>
#include <kvsize/presets.hpp>

using namespace kvsize::literals;
using kvsize::bytes;
namespace presets = kvsize::presets;

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
