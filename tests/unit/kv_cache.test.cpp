// SPDX-License-Identifier: MIT
// kvsize/kv_cache.hpp: the per-kind KV sums against the layer-by-layer definition.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

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
                                          kvsize::layer_kind::shared,  kvsize::layer_kind::indexed};
  constexpr std::uint16_t divisors_of_16[] = {1, 2, 4, 8, 16};
  for (int trial = 0; trial < 2'000; ++trial) {
    kvsize::model_spec m{.layers = static_cast<std::uint32_t>(1 + next(80)), .attention_heads = 16,
                         .kv_heads = divisors_of_16[next(4)], .head_dim = 64, .hidden_size = 1'024,
                         .vocab_size = 1'000, .sliding_window = static_cast<std::uint32_t>(1 + next(4'096)),
                         .attention_chunk = static_cast<std::uint32_t>(1 + next(8'192)),
                         .sparse_index_dim = static_cast<std::uint32_t>(1 + next(256)),
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

TEST_CASE("kv_cache: an indexed layer keeps K, V and its index key", "[kv_cache]") {
  // A MiniMax-M3-shaped toy: 4 layers, 8 query heads, 2 KV heads of 64, layers 1 and 3 indexed with a
  // 32-element index key. bf16: K + V = 2 · 2 · 64 · 2 B = 512 B per layer; index key 32 · 2 B = 64 B.
  constexpr auto toy = [] {
    kvsize::model_spec m{.layers = 4, .attention_heads = 8, .kv_heads = 2, .head_dim = 64, .hidden_size = 512,
                         .vocab_size = 1'000, .sparse_index_dim = 32};
    m.layer[1].kind = kvsize::layer_kind::indexed;
    m.layer[3].kind = kvsize::layer_kind::indexed;
    return m;
  }();
  STATIC_REQUIRE(kvsize::layer_kv_bytes_per_token(toy, 0, kvsize::kv_dtypes::same(kvsize::dtype::bf16)) == bytes{512});
  STATIC_REQUIRE(kvsize::layer_kv_bytes_per_token(toy, 1, kvsize::kv_dtypes::same(kvsize::dtype::bf16)) == bytes{576});
  STATIC_REQUIRE(kvsize::kv_bytes_per_token(toy) == bytes{4 * 512 + 2 * 64});        // 2,176
  STATIC_REQUIRE(kvsize::kv_bytes_per_sequence(toy, 1'000) == bytes{2'176'000});     // every token, no window
  // The index key is a key: in K's type. fp8 K, bf16 V: 4 · (128 + 256) + 2 · 32 = 1,600.
  STATIC_REQUIRE(kvsize::kv_bytes_per_token(toy, {kvsize::dtype::fp8_e4m3, kvsize::dtype::bf16}) == bytes{1'600});
  // Without GQA each of the 8 heads keeps K and V (2 · 8 · 64 · 2 B = 2,048 B a layer); the index key
  // stays: 4 · 2,048 + 2 · 64 = 8,320, so GQA saves 8,320 − 2,176 (4x on K and V).
  STATIC_REQUIRE(kvsize::kv_bytes_per_token_mha(toy) == bytes{8'320});
  STATIC_REQUIRE(kvsize::count_layers(toy, kvsize::layer_kind::indexed) == 2);
  STATIC_REQUIRE(kvsize::kv_layers(toy) == 4);
  // The same through the per-layer path (a layer with KV heads of its own takes it): layer 3 with
  // 1 KV head is 2 · 1 · 64 · 2 + 64 = 320 B.
  constexpr auto own_heads = [](kvsize::model_spec m) {
    m.layer[3].kv_heads = 1;
    return m;
  }(toy);
  STATIC_REQUIRE(kvsize::kv_bytes_per_token(own_heads) == bytes{3 * 512 + 64 + 320});
  // An indexed layer needs the key's width.
  auto no_width = toy;
  no_width.sparse_index_dim = 0;
  REQUIRE_THROWS_WITH(kvsize::kv_bytes_per_token(no_width), Catch::Matchers::Equals("kvsize::model_spec: an indexed layer needs sparse_index_dim > 0"));
  REQUIRE_THROWS_WITH(kvsize::validate(no_width), Catch::Matchers::Equals("kvsize::model_spec: an indexed layer needs sparse_index_dim > 0"));
  no_width.layer[3].kv_heads = 1;  // the per-layer path checks it too
  REQUIRE_THROWS_WITH(kvsize::kv_bytes_per_token(no_width), Catch::Matchers::Equals("kvsize::model_spec: an indexed layer needs sparse_index_dim > 0"));
}
