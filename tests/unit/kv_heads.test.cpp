// SPDX-License-Identifier: MIT
// kvsize::cache_kv_heads (model_spec.hpp): the KV heads a model's cache keeps per token, 1 for a
// latent (MLA) cache; and the model_spec formatter (fmt.hpp) printing it.
#include <catch2/catch_test_macros.hpp>

#include <fmt/format.h>

#include <kvsize/fmt.hpp>
#include <kvsize/hf_config.hpp>
#include <kvsize/kvsize.hpp>

#include <string>

#include "hf_support.hpp"

using kvsize::layer_kind;
using kvsize::model_spec;

namespace {
// A GQA model (Qwen2.5-1.5B: 12 heads, 2 KV heads), its MHA twin (kv_heads 0 → every head keeps
// K/V), and the same shape with layer 3 made latent: one latent layer makes the cache a latent one.
constexpr model_spec gqa = kvsize::presets::qwen2_5_1_5b;
constexpr model_spec mha = [] {
  model_spec m = gqa;
  m.kv_heads = 0;
  return m;
}();
constexpr model_spec one_latent_layer = [] {
  model_spec m = gqa;
  m.latent = {.kv_lora_rank = 512, .rope_head_dim = 64};
  m.layer[3].kind = layer_kind::latent;
  return m;
}();
static_assert(kvsize::cache_kv_heads(gqa) == 2);
static_assert(kvsize::cache_kv_heads(mha) == 12);
static_assert(kvsize::count_layers(one_latent_layer, layer_kind::latent) == 1);
static_assert(kvsize::cache_kv_heads(one_latent_layer) == 1);
static_assert(kvsize::effective_kv_heads(one_latent_layer) == 2);  // the config's figure is unchanged
}  // namespace

TEST_CASE("cache_kv_heads: the KV heads, or 1 for a latent (MLA) cache", "[model_spec][kv_heads]") {
  CHECK(kvsize::cache_kv_heads(gqa) == 2);
  CHECK(kvsize::cache_kv_heads(mha) == 12);  // kv_heads 0: multi-head attention
  CHECK(kvsize::cache_kv_heads(kvsize::presets::llama_3_8b) == 8);
  CHECK(kvsize::cache_kv_heads(one_latent_layer) == 1);
}

TEST_CASE("cache_kv_heads: DeepSeek-R1 caches one latent per token for its 128 heads", "[model_spec][kv_heads]") {
  // deepseek-ai/DeepSeek-R1 config.json: num_attention_heads 128, num_key_value_heads 128, kv_lora_rank 512.
  const model_spec r1 = kvsize::hf::load_config(kvsize::test::configs_dir() / "deepseek-ai__DeepSeek-R1.config.json").spec;
  REQUIRE(r1.attention == layer_kind::latent);
  CHECK(kvsize::effective_kv_heads(r1) == 128);
  CHECK(kvsize::cache_kv_heads(r1) == 1);
  // The one-line summary prints the cache's heads, as the CLI's text and --json do.
  const std::string line = fmt::format("{}", r1);
  CHECK(line.find("128 heads, 1 KV heads,") != std::string::npos);
  CHECK(line.find("128 KV heads") == std::string::npos);
}

TEST_CASE("fmt: a model_spec prints cache_kv_heads", "[fmt][kv_heads]") {
  CHECK(fmt::format("{}", one_latent_layer).find("12 heads, 1 KV heads,") != std::string::npos);
  CHECK(fmt::format("{}", mha).find("12 heads, 12 KV heads,") != std::string::npos);
}
