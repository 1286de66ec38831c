// SPDX-License-Identifier: MIT
// kvsize/layer_groups.hpp: the groups every engine sizes from. Expected figures are worked out by
// hand from the formulas of the header (row = elements × bytes per element).
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cstdint>
#include <utility>

#include <kvsize/layer_groups.hpp>

using kvsize::bytes;
using kvsize::dtype;
using kvsize::group_choices;
using kvsize::group_kind;
using kvsize::head_split;
using kvsize::layer_kind;
using kvsize::make_layer_groups;
using kvsize::mla_cache_layout;
using kvsize::model_spec;

namespace {

constexpr model_spec qwen2_5_7b{.layers = 28, .attention_heads = 28, .kv_heads = 4, .head_dim = 128,
                                .hidden_size = 3'584, .vocab_size = 152'064};

/// Gemma-3-style: 5 sliding layers to 1 full, window 1,024, 8 KV heads of 256 (head_dim_v 128 to tell K from V).
constexpr auto gemma_style() -> model_spec {
  model_spec m{.layers = 12, .attention_heads = 16, .kv_heads = 8, .head_dim = 256, .head_dim_v = 128,
               .hidden_size = 3'840, .vocab_size = 262'208, .sliding_window = 1'024};
  for (std::uint32_t il = 0; il < m.layers; ++il) {
    m.layer[il].kind = il % 6 == 5 ? layer_kind::full : layer_kind::sliding;
  }
  return m;
}

/// DeepSeek-V3-style latent attention, 4 layers.
constexpr model_spec deepseek_style{.layers = 4, .attention_heads = 128, .kv_heads = 128, .head_dim = 192,
                                    .hidden_size = 7'168, .vocab_size = 129'280, .attention = layer_kind::latent,
                                    .latent = {.kv_lora_rank = 512, .rope_head_dim = 64, .nope_head_dim = 128,
                                               .v_head_dim = 128}};

/// Jamba-style hybrid: 8 layers, every 4th attention (il 3, 7), the rest Mamba; layer 3 also keeps
/// a state (Falcon-H1-style: both).
constexpr auto hybrid_style() -> model_spec {
  model_spec m{.layers = 8, .attention_heads = 32, .kv_heads = 8, .head_dim = 128, .hidden_size = 4'096,
               .vocab_size = 65'536, .attention = layer_kind::none,
               .state = {.conv_elements = 3 * 8'192, .ssm_elements = 8'192 * 16}};
  for (std::uint32_t il = 0; il < m.layers; ++il) {
    m.layer[il].recurrent = il % 4 != 3;
  }
  m.layer[3].kind = layer_kind::full;
  m.layer[3].recurrent = true;
  m.layer[7].kind = layer_kind::full;
  return m;
}

constexpr group_choices bf16_choices{.kv = kvsize::kv_dtypes::same(dtype::bf16),
                                     .state = {.conv = dtype::bf16, .ssm = dtype::f32}};

}  // namespace

TEST_CASE("layer groups: a uniform model is one full group", "[layer_groups]") {
  const auto g = make_layer_groups(qwen2_5_7b, bf16_choices);
  REQUIRE(g.count == 1);
  CHECK(g[0].kind == group_kind::full);
  CHECK(g[0].layers == 28);
  CHECK(g[0].window == 0);
  CHECK(g[0].kv_heads == 4);
  CHECK(g[0].k_row == bytes{4 * 128 * 2});
  CHECK(g[0].v_row == bytes{4 * 128 * 2});
  CHECK(g[0].state() == bytes{0});
  // The sum over groups is the exact cache's per-token figure (kv_cache.hpp).
  CHECK(g[0].row() * g[0].layers == bytes{2ULL * 28 * 4 * 128 * 2});
}

TEST_CASE("layer groups: KV heads per rank under each split, tp > kv_heads", "[layer_groups]") {
  for (const auto& [split, heads] : {std::pair{head_split::replicate, 1U}, std::pair{head_split::ceil, 1U},
                                     std::pair{head_split::none, 4U}}) {
    group_choices c = bf16_choices;
    c.tp = 8;
    c.split = split;
    const auto g = make_layer_groups(qwen2_5_7b, c);
    REQUIRE(g.count == 1);
    CHECK(g[0].kv_heads == heads);
    CHECK(g[0].k_row == bytes{heads * 128ULL * 2});
  }
  CHECK(kvsize::heads_per_rank(head_split::replicate, 8, 3) == 2);  // floor
  CHECK(kvsize::heads_per_rank(head_split::ceil, 8, 3) == 3);       // rounded up
  CHECK(kvsize::heads_per_rank(head_split::replicate, 4, 8) == 1);  // replicated
  CHECK(kvsize::heads_per_rank(head_split::none, 8, 4) == 8);
}

TEST_CASE("layer groups: Gemma-style sliding + full, in first-appearance order", "[layer_groups]") {
  const auto g = make_layer_groups(gemma_style(), bf16_choices);
  REQUIRE(g.count == 2);
  CHECK(g[0].kind == group_kind::sliding);  // layer 0 is sliding
  CHECK(g[0].window == 1'024);
  CHECK(g[0].layers == 10);
  CHECK(g[1].kind == group_kind::full);
  CHECK(g[1].window == 0);
  CHECK(g[1].layers == 2);
  CHECK(g[0].k_row == bytes{8 * 256 * 2});
  CHECK(g[0].v_row == bytes{8 * 128 * 2});
  CHECK(g.layers_of(group_kind::sliding) == 10);
  CHECK(kvsize::is_windowed(g[0].kind));
  CHECK_FALSE(kvsize::is_windowed(g[1].kind));
}

TEST_CASE("layer groups: MLA latent, latent with V, and expanded", "[layer_groups]") {
  group_choices c = bf16_choices;
  const auto latent = make_layer_groups(deepseek_style, c);
  REQUIRE(latent.count == 1);
  CHECK(latent[0].kind == group_kind::latent);
  CHECK(latent[0].k_row == bytes{576 * 2});  // kv_lora_rank + rope
  CHECK(latent[0].v_row == bytes{0});

  c.mla = mla_cache_layout::latent_k_and_v;
  const auto with_v = make_layer_groups(deepseek_style, c);
  CHECK(with_v[0].k_row == bytes{576 * 2});
  CHECK(with_v[0].v_row == bytes{512 * 2});

  c.mla = mla_cache_layout::expanded;
  c.tp = 8;
  c.split = head_split::replicate;
  const auto expanded = make_layer_groups(deepseek_style, c);
  REQUIRE(expanded.count == 1);
  CHECK(expanded[0].kind == group_kind::latent);
  CHECK(expanded[0].kv_heads == 16);                                 // 128 query heads / 8
  CHECK(expanded[0].k_row == bytes{16ULL * (128 + 64) * 2});         // heads·(nope + rope)
  CHECK(expanded[0].v_row == bytes{16ULL * 128 * 2});                // heads·v_head_dim
  CHECK(expanded[0].layers == 4);
}

TEST_CASE("layer groups: a hybrid model's state is a group kind of its own", "[layer_groups]") {
  group_choices c = bf16_choices;
  c.tp = 2;
  const auto g = make_layer_groups(hybrid_style(), c);
  REQUIRE(g.count == 2);
  CHECK(g[0].kind == group_kind::recurrent_state);  // layer 0 is Mamba
  CHECK(g[0].layers == 7);                          // 6 Mamba layers + layer 3's state
  CHECK(g[0].conv_elements == 3 * 8'192 / 2);       // split over 2 ranks
  CHECK(g[0].conv_state == bytes{3 * 8'192 / 2 * 2});    // bf16
  CHECK(g[0].ssm_state == bytes{8'192 * 16 / 2 * 4});    // f32
  CHECK(g[0].row() == bytes{0});
  CHECK(g[0].types.k == dtype::bf16);
  CHECK(g[0].types.v == dtype::f32);
  CHECK(g[1].kind == group_kind::full);
  CHECK(g[1].layers == 2);
  CHECK(g[1].kv_heads == 4);
  CHECK(kvsize::name(g[0].kind) == "recurrent state");

  c.split = head_split::none;  // no tensor parallelism: the whole state
  CHECK(make_layer_groups(hybrid_style(), c)[0].conv_elements == 3 * 8'192);
}

TEST_CASE("layer groups: a pipeline stage sees its own layers only", "[layer_groups]") {
  const model_spec m = gemma_style();
  const auto first = make_layer_groups(m, {0, 5}, bf16_choices);  // layers 0-4: sliding only
  REQUIRE(first.count == 1);
  CHECK(first[0].kind == group_kind::sliding);
  CHECK(first[0].layers == 5);
  const auto second = make_layer_groups(m, {5, 7}, bf16_choices);  // 5 full, 6-10 sliding, 11 full
  REQUIRE(second.count == 2);
  CHECK(second[0].kind == group_kind::full);
  CHECK(second[0].layers == 2);
  CHECK(second[1].layers == 5);
  CHECK_THROWS_WITH(make_layer_groups(m, {10, 3}, bf16_choices), "kvsize: pipeline stage out of range");
}

TEST_CASE("layer groups: layers with their own KV heads form their own groups", "[layer_groups]") {
  model_spec m = qwen2_5_7b;
  m.layer[1].kv_heads = 2;
  m.layer[2].kv_heads = 2;
  m.layer[3].kind = layer_kind::none;  // no-op block: in no group
  const auto g = make_layer_groups(m, bf16_choices);
  REQUIRE(g.count == 2);
  CHECK(g[0].layers == 25);
  CHECK(g[1].layers == 2);
  CHECK(g[1].kv_heads == 2);
  model_spec bad = qwen2_5_7b;
  bad.layer[0].kv_heads = 3;  // does not divide 28
  CHECK_THROWS_WITH(make_layer_groups(bad, bf16_choices),
                    "kvsize::model_spec: a layer's kv_heads does not divide its query heads");
}

// Constant expressions: the groups of a model are known at compile time, without allocation.
static_assert(make_layer_groups(qwen2_5_7b, bf16_choices).count == 1);
static_assert(make_layer_groups(gemma_style(), bf16_choices)[1].layers == 2);
static_assert(make_layer_groups(hybrid_style(), bf16_choices)[0].kind == group_kind::recurrent_state);
static_assert(make_layer_groups(deepseek_style, bf16_choices)[0].k_row == bytes{1'152});

TEST_CASE("layer groups: for_each_group routes rows and states to their own callables", "[layer_groups]") {
  const auto g = make_layer_groups(hybrid_style(), bf16_choices);
  std::uint32_t token_layers = 0;
  std::uint32_t state_layers = 0;
  kvsize::for_each_group(
      g, [&](const kvsize::layer_group& x) { token_layers += x.layers; },
      [&](const kvsize::layer_group& x) { state_layers += x.layers; });
  CHECK(token_layers == 2);  // layers 3 and 7
  CHECK(state_layers == 7);
}

TEST_CASE("layer groups: an indexed layer's index key rides in its K row, in the engine's type", "[layer_groups]") {
  // MiniMax-M3-shaped: 4 layers, 64 query heads, 4 KV heads of 128, layers 2 and 3 indexed with a
  // 128-element key. bf16 K = 4 · 128 · 2 = 1,024 B, V the same; the key 128 · 2 = 256 B.
  model_spec m{.layers = 4, .attention_heads = 64, .kv_heads = 4, .head_dim = 128, .hidden_size = 6'144,
               .vocab_size = 200'064, .sparse_index_dim = 128};
  m.layer[2].kind = layer_kind::indexed;
  m.layer[3].kind = layer_kind::indexed;
  group_choices c = bf16_choices;
  const auto groups = make_layer_groups(m, c);
  REQUIRE(groups.count == 2);  // the dense layers, then the indexed ones: two shapes, both full
  CHECK(groups[0].kind == group_kind::full);
  CHECK(groups[0].layers == 2);
  CHECK(groups[0].index_row == bytes{0});
  CHECK(groups[1].kind == group_kind::full);
  CHECK(groups[1].layers == 2);
  CHECK(groups[1].index_row == bytes{256});
  CHECK(groups[1].k_row == bytes{1'024 + 256});
  CHECK(groups[1].v_row == bytes{1'024});
  // Under tp 8 the 4 KV heads are replicated (one a rank) but the one index head is not split:
  // K 128 · 2 + 256, V 256. With fp8 K/V, the key as each engine keeps it: K's type (1 B), a type
  // of the engine's (fixed: bf16 2 B, f32 4 B), or K's type with a V row of one head of head_dim_v
  // (96 here, to tell it from the key's 128) in V's type (k_and_v).
  c.tp = 8;
  c.kv = kvsize::kv_dtypes::same(dtype::fp8_e4m3);
  CHECK(make_layer_groups(m, c)[1].k_row == bytes{128 + 128});
  CHECK(make_layer_groups(m, c)[1].index_row == bytes{128});
  c.sparse_index = kvsize::index_key_type::fixed;
  CHECK(make_layer_groups(m, c)[1].k_row == bytes{128 + 256});  // bf16, group_choices' default
  c.sparse_index_dtype = dtype::f32;
  CHECK(make_layer_groups(m, c)[1].k_row == bytes{128 + 512});
  CHECK(make_layer_groups(m, c)[1].v_row == bytes{128});
  c.sparse_index = kvsize::index_key_type::k_and_v;
  c.kv = {dtype::fp8_e4m3, dtype::bf16};
  m.head_dim_v = 96;  // V of 1 · 96 · 2 B = 192 a layer; the index cache's V row one head of 96: 192 more
  const auto both = make_layer_groups(m, c)[1];
  CHECK(both.k_row == bytes{128 + 128});
  CHECK(both.v_row == bytes{192 + 192});
  CHECK(both.index_row == bytes{128 + 192});
}
