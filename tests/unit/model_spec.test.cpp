// SPDX-License-Identifier: MIT
// Invalid model specs (issue 11): every sizing function refuses a spec that breaks a rule of
// validate(), with validate()'s kvsize::invalid_argument and message, instead of computing from it.
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/generators/catch_generators_range.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cstdint>
#include <vector>

#include <kvsize/engine.hpp>
#include <kvsize/kvsize.hpp>
#include <kvsize/planner.hpp>
#include <kvsize/workspace.hpp>

using Catch::Matchers::ContainsSubstring;
using kvsize::bytes;
namespace presets = kvsize::presets;

/// `expr` throws kvsize::invalid_argument, and its message contains `words`.
#define REQUIRE_REFUSED(expr, words)                     \
  do {                                                   \
    REQUIRE_THROWS_AS(expr, kvsize::invalid_argument);   \
    REQUIRE_THROWS_WITH(expr, ContainsSubstring(words)); \
  } while (false)

namespace {

/// A valid 32-layer GQA model (Llama-3-8B's attention shape) with sliding layers on the even
/// indices, so that every per-layer rule has a layer to apply to.
auto base_spec() -> kvsize::model_spec {
  kvsize::model_spec m{.layers = 32, .attention_heads = 32, .kv_heads = 8, .head_dim = 128, .hidden_size = 4'096,
                       .vocab_size = 128'256, .max_context = 8'192, .sliding_window = 4'096,
                       .intermediate_size = 14'336};
  for (std::uint32_t il = 0; il < m.layers; il += 2) {
    m.layer[il].kind = kvsize::layer_kind::sliding;
  }
  return m;
}

/// One broken rule: the spec and the words of validate()'s message.
struct broken {
  const char* what;
  kvsize::model_spec spec;
  const char* message;
};

auto broken_specs() -> std::vector<broken> {
  std::vector<broken> out;
  kvsize::model_spec m = base_spec();
  m.attention_heads = 0;
  out.push_back({"0 attention heads", m, "attention_heads must be positive"});
  m = base_spec();
  m.kv_heads = 5;  // 32 % 5 != 0
  out.push_back({"kv_heads not dividing heads", m, "attention_heads is not a multiple of kv_heads"});
  m = base_spec();
  m.kv_heads = 64;
  out.push_back({"more kv_heads than heads", m, "kv_heads exceeds attention_heads"});
  m = base_spec();
  m.layers = 0;
  out.push_back({"0 layers", m, "layers must be positive"});
  m = base_spec();
  m.layers = kvsize::max_layers + 1;
  out.push_back({"more layers than max_layers", m, "more layers than kvsize::max_layers"});
  m = base_spec();
  m.sliding_window = 0;
  out.push_back({"a sliding layer with window 0", m, "a sliding layer needs sliding_window > 0"});
  m = base_spec();
  m.layer[1].kind = kvsize::layer_kind::chunked;  // attention_chunk stays 0
  out.push_back({"a chunked layer with chunk 0", m, "a chunked layer needs attention_chunk > 0"});
  m = base_spec();
  m.layer[3].kind = kvsize::layer_kind::latent;  // no latent width
  out.push_back({"a latent layer with no width", m, "a latent layer needs kv_lora_rank or rope_head_dim"});
  m = base_spec();
  m.layer[5].recurrent = true;  // no state size
  out.push_back({"a recurrent layer with no state", m, "a recurrent layer needs a state size"});
  m = base_spec();
  m.layer[7].kv_heads = 3;  // 32 % 3 != 0
  out.push_back({"a layer's kv_heads not dividing heads", m, "a layer's kv_heads does not divide its query heads"});
  m = base_spec();
  m.layer[7].kv_heads = 16;  // divides the model's 32 heads, not the layer's own 24 (layer_weights::query_heads)
  m.weights.layer[7].query_heads = 24;
  out.push_back({"a layer's kv_heads not dividing its own query heads", m, "a layer's kv_heads does not divide its query heads"});
  m = base_spec();
  m.layer[6].kv_heads = 4;  // a sliding layer of its own heads, window 0: the per-layer path
  m.sliding_window = 0;
  out.push_back({"a sliding layer of its own heads with window 0", m, "a sliding layer needs sliding_window > 0"});
  m = base_spec();
  m.head_dim = 0;
  m.hidden_size = 4'100;  // 4,100 / 32 is not whole
  out.push_back({"hidden_size not a multiple of heads", m, "hidden_size is not a multiple of attention_heads"});
  m = base_spec();
  m.head_dim = 0;
  m.hidden_size = 0;
  out.push_back({"no head dimension", m, "head_dim is zero"});
  return out;
}

}  // namespace

TEST_CASE("model_spec: the test's base spec is valid and sized", "[model_spec][validation]") {
  const kvsize::model_spec m = base_spec();
  REQUIRE_NOTHROW(kvsize::validate(m));
  // 16 full + 16 sliding layers, 2 × 8 × 128 × 2 B each = 4 KiB per token per layer.
  REQUIRE(kvsize::kv_bytes_per_token(m) == bytes{32 * 4'096});
  REQUIRE(kvsize::kv_bytes_per_sequence(m, 8'192) == bytes{16 * 4'096 * (8'192 + 4'096)});
}

TEST_CASE("model_spec: every sizing entry point refuses a spec that breaks a rule of validate()",
          "[model_spec][validation]") {
  const auto cases = broken_specs();
  const broken& c = cases[GENERATE(range(std::size_t{0}, broken_specs().size()))];
  INFO(c.what);
  const kvsize::model_spec& m = c.spec;
  const auto f = kvsize::cache_format::of(m);
  const auto kv = kvsize::kv_dtypes::same(kvsize::dtype::bf16);

  // validate() itself, then each public function that sizes from a spec.
  REQUIRE_REFUSED(kvsize::validate(m), c.message);
  // KV cache (kv_cache.hpp)
  REQUIRE_REFUSED(kvsize::kv_token_bytes_of(m), c.message);
  REQUIRE_REFUSED(kvsize::kv_bytes_per_token(m), c.message);
  REQUIRE_REFUSED(kvsize::kv_bytes_per_token(m, kvsize::dtype::fp8_e4m3), c.message);
  REQUIRE_REFUSED(kvsize::kv_bytes_per_sequence(m, 4'096), c.message);
  REQUIRE_REFUSED(kvsize::kv_bytes(m, 4'096, 8), c.message);
  REQUIRE_REFUSED(kvsize::kv_bytes_per_token_mha(m), c.message);
  REQUIRE_REFUSED(kvsize::gqa_ratio(m), c.message);
  REQUIRE_REFUSED(kvsize::state_bytes_per_sequence(m), c.message);
  // Capacity (capacity.hpp)
  REQUIRE_REFUSED(kvsize::sequence_cost::of(m, f), c.message);
  REQUIRE_REFUSED(kvsize::cache_bytes_per_sequence(m, 4'096, f), c.message);
  REQUIRE_REFUSED(kvsize::max_tokens(m, bytes{1ULL << 34U}, kv), c.message);
  REQUIRE_REFUSED(kvsize::max_sequences(m, bytes{1ULL << 34U}, 4'096, f), c.message);
  REQUIRE_REFUSED(kvsize::max_context(m, bytes{1ULL << 34U}, 4, f, 1ULL << 20U), c.message);
  REQUIRE_REFUSED(kvsize::check_fit(m, bytes{1ULL << 36U}, 4'096, 4, bytes{1ULL << 33U}), c.message);
  // Weights (weights.hpp, parameters.hpp)
  REQUIRE_REFUSED(kvsize::parameters(m), c.message);
  REQUIRE_REFUSED(kvsize::dense_decoder_parameters(m), c.message);
  REQUIRE_REFUSED(kvsize::weights_bytes(m, kvsize::weights_format{}), c.message);
  // Engines (engine.hpp) and the planner
  for (const kvsize::engine_kind e : {kvsize::engine_kind::exact, kvsize::engine_kind::vllm,
                                      kvsize::engine_kind::sglang, kvsize::engine_kind::llama_cpp,
                                      kvsize::engine_kind::trtllm, kvsize::engine_kind::transformers}) {
    INFO(kvsize::name(e));
    const kvsize::engine_options o{.context = 4'096, .device_memory = bytes{80ULL << 30U}};
    REQUIRE_REFUSED(kvsize::size_cache(m, e, o), c.message);
    REQUIRE_REFUSED(kvsize::size_stage(m, e, o, {0, 1}), c.message);
    REQUIRE_REFUSED(kvsize::engine_capacity_for(m, e, o, bytes{1ULL << 34U}), c.message);
    REQUIRE_REFUSED(kvsize::engine_workspace(m, e, o), c.message);
    const kvsize::plan_inputs in{.weights = bytes{16ULL << 30U}, .device_memory = bytes{80ULL << 30U}, .engine = e,
                                 .options = o};
    REQUIRE_REFUSED(kvsize::plan(m, in), c.message);
    REQUIRE_REFUSED(kvsize::plan_at(m, in, 4'096, 1, 1), c.message);
    REQUIRE_REFUSED(kvsize::plan_max_users(m, in, 4'096, 1), c.message);
    REQUIRE_REFUSED(kvsize::plan_max_context(m, in, 1, 1, 1ULL << 20U), c.message);
  }
}

TEST_CASE("model_spec: functions that read no layer check the model-wide rules", "[model_spec][validation]") {
  kvsize::model_spec m = base_spec();
  m.attention_heads = 0;
  REQUIRE_REFUSED(kvsize::logits_bytes_per_token(m), "attention_heads must be positive");
  REQUIRE_REFUSED(kvsize::logits_bytes_last(m, 8), "attention_heads must be positive");
  REQUIRE_REFUSED(kvsize::activation_peak_elements(m), "attention_heads must be positive");
  m = base_spec();
  m.layers = 0;
  REQUIRE_REFUSED(kvsize::logits_bytes_prefill(m, 128), "layers must be positive");
  REQUIRE_REFUSED(kvsize::activation_bytes(m, 128, kvsize::dtype::bf16), "layers must be positive");
  // A sliding window does not change the logits: they are still sized.
  m = base_spec();
  m.sliding_window = 0;
  REQUIRE(kvsize::logits_bytes_per_token(m) == bytes{128'256 * 2});
}

TEST_CASE("model_spec: the per-layer functions check the model and the layer they read", "[model_spec][validation]") {
  kvsize::model_spec m = base_spec();
  const auto kv = kvsize::kv_dtypes::same(kvsize::dtype::bf16);
  REQUIRE(kvsize::layer_kv_bytes_per_token(m, 1, kv) == bytes{4'096});
  REQUIRE(kvsize::layer_tokens_held(m, 0, 10'000) == 4'096);
  REQUIRE(kvsize::layer_kv_bytes_per_token_mha(m, 1, kv) == bytes{2 * 32 * 128 * 2});
  // A layer index beyond `layers` is not a layer of the model.
  REQUIRE_REFUSED(kvsize::layer_kv_bytes_per_token(m, 32, kv), "not below `layers`");
  REQUIRE_REFUSED(kvsize::layer_tokens_held(m, 600, 1), "not below `layers`");
  m.sliding_window = 0;
  REQUIRE_REFUSED(kvsize::layer_tokens_held(m, 0, 10'000), "sliding_window > 0");
  REQUIRE_REFUSED(kvsize::layer_kv_bytes_per_token(m, 0, kv), "sliding_window > 0");
  REQUIRE(kvsize::layer_kv_bytes_per_token(m, 1, kv) == bytes{4'096});  // layer 1 is full: no window read
  m = base_spec();
  m.kv_heads = 5;
  REQUIRE_REFUSED(kvsize::layer_kv_bytes_per_token_mha(m, 1, kv), "not a multiple of kv_heads");
}

TEST_CASE("model_spec: only validate() rejects overrides beyond `layers`", "[model_spec][validation]") {
  // No formula reads layer[il] for il >= layers, so the sizing functions answer; validate() says the
  // spec is likely a mistake.
  kvsize::model_spec m = base_spec();
  m.layer[40].kind = kvsize::layer_kind::full;
  REQUIRE_REFUSED(kvsize::validate(m), "beyond `layers`");
  REQUIRE(kvsize::kv_bytes_per_token(m) == kvsize::kv_bytes_per_token(base_spec()));
}

TEST_CASE("model_spec: every preset and every uniform, windowed and per-layer-heads shape is still sized",
          "[model_spec][validation]") {
  for (const kvsize::model_spec& p : {kvsize::presets::qwen2_5_0_5b, kvsize::presets::qwen2_5_1_5b,
                                      kvsize::presets::qwen2_5_7b, kvsize::presets::llama_3_8b}) {
    REQUIRE_NOTHROW(kvsize::validate(p));
    REQUIRE(kvsize::kv_bytes_per_token(p).count() > 0);
    REQUIRE(kvsize::parameters(p).total > 0);
  }
  // Per-layer heads that divide the heads (Nemotron block_configs style) are fine.
  kvsize::model_spec m = base_spec();
  m.layer[7].kv_heads = 4;
  REQUIRE_NOTHROW(kvsize::validate(m));
  REQUIRE(kvsize::kv_bytes_per_token(m) == bytes{31 * 4'096 + 2'048});
  // MQA: one KV head.
  m = base_spec();
  m.kv_heads = 1;
  REQUIRE(kvsize::kv_bytes_per_token(m) == bytes{32 * 512});
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
