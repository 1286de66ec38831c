// SPDX-License-Identifier: MIT
// kvsize/kv_cache.hpp: the per-kind KV sums against the layer-by-layer definition.
#include <catch2/catch_test_macros.hpp>

#include <cstdint>
#include <iterator>

#include <kvsize/kv_cache.hpp>
#include <kvsize/presets.hpp>

using kvsize::bytes;
namespace presets = kvsize::presets;

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
