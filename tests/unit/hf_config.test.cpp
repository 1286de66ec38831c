// SPDX-License-Identifier: MIT
// kvsize::hf (config.json reader): aliases, nesting, null handling, layer patterns, hybrids,
// quirks and errors. Every file of configs/invalid/ has a row below asserting code AND pointer.
#include <kvsize/hf_config.hpp>
#include <kvsize/kv_cache.hpp>
#include <kvsize/parameters.hpp>
#include <kvsize/state_cache.hpp>

#include "hf_support.hpp"

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <string_view>
#include <vector>


namespace {

namespace fs = std::filesystem;
using kvsize::layer_kind;
using kvsize::hf::config_errc;
using kvsize::hf::config_error;

using kvsize::test::configs_dir;
using kvsize::test::error_of;
using kvsize::test::error_of_file;
using kvsize::test::has_warning;
using kvsize::test::weights_unknown_of;

auto load(std::string_view name) -> kvsize::hf::parsed_config {
  return kvsize::hf::load_config(configs_dir() / name);
}

/// A small valid config with `extra` members spliced in; a base member that `extra` also sets is
/// left out (a key written twice with different values is refused where it is read).
auto llama_with(const std::string& extra) -> std::string {
  static const std::pair<const char*, const char*> base[] = {
      {"model_type", R"("llama")"}, {"num_hidden_layers", "8"}, {"num_attention_heads", "8"},
      {"num_key_value_heads", "2"}, {"hidden_size", "1024"},     {"vocab_size", "32000"},
      {"intermediate_size", "2816"},  {"torch_dtype", R"("bfloat16")"}};
  std::string out = "{";
  for (const auto& [key, value] : base) {
    if (extra.find("\"" + std::string(key) + "\"") == std::string::npos) {
      out += (out.size() > 1 ? ", \"" : "\"") + std::string(key) + "\": " + value;
    }
  }
  if (!extra.empty()) {
    out += (out.size() > 1 ? ", " : "") + extra;
  }
  return out + "}";
}

}  // namespace

TEST_CASE("parse_config: every real config in configs/ parses, and its layer notes cover every layer", "[hf][corpus]") {
  std::size_t count = 0;
  for (const auto& entry : fs::directory_iterator(configs_dir())) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || name.size() < 12 || name.substr(name.size() - 12) != ".config.json") {
      continue;
    }
    ++count;
    INFO(name);
    const auto c = kvsize::hf::load_config(entry.path());
    const auto& m = c.spec;
    REQUIRE_NOTHROW(kvsize::validate(m));
    std::uint32_t next = 0;
    for (const auto& g : c.layers) {
      CHECK(g.first_layer == next);
      CHECK(g.count > 0);
      CHECK_FALSE(g.reason.empty());
      CHECK(g.reason.find("{i}") == std::string::npos);
      for (std::uint32_t il = g.first_layer; il < g.first_layer + g.count; ++il) {
        CHECK(kvsize::kind_of_layer(m, il) == g.kind);
        CHECK(kvsize::layer_keeps_state(m, il) == g.recurrent);
      }
      next += g.count;
    }
    CHECK(next == m.layers);
  }
  CHECK(count == 66);
}

TEST_CASE("parse_config: plain configs read their shape through every alias", "[hf][aliases]") {
  const auto q = load("Qwen__Qwen2.5-7B.config.json");
  CHECK(q.model_type == "qwen2");
  CHECK(q.architecture == "Qwen2ForCausalLM");
  CHECK(q.spec.layers == 28);
  CHECK(q.spec.attention_heads == 28);
  CHECK(q.spec.kv_heads == 4);
  CHECK(q.spec.head_dim == 128);
  CHECK(q.spec.vocab_size == 152064);
  CHECK(q.spec.max_context == 131072);
  CHECK(q.spec.qkv_bias);  // Qwen2Attention: bias=True on q/k/v whatever the keys say
  CHECK_FALSE(q.spec.tied_embeddings);
  CHECK(q.dtype_key == "/torch_dtype");

  const auto gpt2 = load("openai-community__gpt2-xl.config.json");  // n_layer / n_head / n_embd / n_positions
  CHECK(gpt2.spec.layers == 48);
  CHECK(gpt2.spec.attention_heads == 25);
  CHECK(gpt2.spec.kv_heads == 25);
  CHECK(gpt2.spec.hidden_size == 1600);
  CHECK(gpt2.spec.head_dim == 64);
  CHECK(gpt2.spec.max_context == 1024);
  CHECK_FALSE(gpt2.spec.gated_mlp);
  CHECK(gpt2.spec.intermediate_size == 6400);
  CHECK(gpt2.dtype_key.empty());
  CHECK(gpt2.spec.compute_dtype == kvsize::dtype::f32);  // no dtype key: what transformers loads
  CHECK(has_warning(gpt2, "no dtype or torch_dtype key: compute dtype float32"));

  const auto mpt = load("mosaicml__mpt-7b-instruct.config.json");  // n_layers / n_heads / d_model / max_seq_len
  CHECK(mpt.spec.layers == 32);
  CHECK(mpt.spec.attention_heads == 32);
  CHECK(mpt.spec.kv_heads == 32);
  CHECK(mpt.spec.hidden_size == 4096);
  CHECK(mpt.spec.max_context == 2048);
  CHECK(mpt.spec.compute_dtype == kvsize::dtype::f16);

  const auto glm = load("THUDM__chatglm3-6b.config.json");  // num_layers / multi_query_group_num / kv_channels
  CHECK(glm.spec.layers == 28);
  CHECK(glm.spec.kv_heads == 2);
  CHECK(glm.spec.head_dim == 128);
  CHECK(glm.spec.vocab_size == 65024);
  CHECK(glm.spec.max_context == 8192);
  CHECK(glm.spec.intermediate_size == 13696);
  CHECK(glm.spec.qkv_bias);

  CHECK(load("tiiuae__falcon-7b.config.json").spec.kv_heads == 1);   // multi_query: true
  CHECK(load("tiiuae__falcon-40b.config.json").spec.kv_heads == 8);  // n_head_kv
  const auto nh = load("nvidia__Nemotron-H-56B-Base-8K.config.json");  // attention_head_dim
  CHECK(nh.spec.head_dim == 128);
}

TEST_CASE("parse_config: an explicit head_dim wins over hidden_size / heads", "[hf]") {
  CHECK(load("Qwen__Qwen3-0.6B.config.json").spec.head_dim == 128);  // 1024 / 16 = 64
  CHECK(load("Qwen__Qwen3-32B.config.json").spec.head_dim == 128);   // 5120 / 64 = 80
  CHECK(load("zai-org__GLM-4.5.config.json").spec.head_dim == 128);  // 5120 / 96 is not whole
  CHECK(load("google__gemma-2b-it.config.json").spec.head_dim == 256);
  CHECK(load("nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.config.json").spec.head_dim == 128);  // 2688 / 32 = 84
}

TEST_CASE("parse_config: a top-level config without head_dim takes its config class's default", "[hf][defaults]") {
  // Qwen3Config's head_dim is 128 whatever hidden_size / heads is (Qwen3-4B's shape: 2560 / 32 = 80), with a
  // warning; Qwen3MoeConfig has no head_dim field, so hidden_size / heads; Gemma2Config's is 256 (3584 / 16 = 224).
  const std::string shape = R"("hidden_size": 2560, "num_attention_heads": 32, "num_key_value_heads": 8,
      "num_hidden_layers": 36, "intermediate_size": 9728, "vocab_size": 151936, "torch_dtype": "bfloat16")";
  const auto q3 = kvsize::hf::parse_config(R"({"model_type": "qwen3", )" + shape + "}");
  CHECK(q3.spec.head_dim == 128);
  CHECK(std::count_if(q3.warnings.begin(), q3.warnings.end(), [](const std::string& w) {
          return w.find("/head_dim is absent: 128, Qwen3Config's default") != std::string::npos;
        }) == 1);
  const auto moe = kvsize::hf::parse_config(R"({"model_type": "qwen3_moe", "num_experts": 8, "num_experts_per_tok": 2,
      "moe_intermediate_size": 768, )" + shape + "}");
  CHECK(moe.spec.head_dim == 80);
  const auto g2 = kvsize::hf::parse_config(R"({"model_type": "gemma2", "hidden_size": 3584, "num_attention_heads": 16,
      "num_key_value_heads": 8, "num_hidden_layers": 42, "intermediate_size": 14336, "vocab_size": 256000,
      "sliding_window": 4096, "torch_dtype": "bfloat16"})");
  CHECK(g2.spec.head_dim == 256);
  // A head_dim given is read as given.
  CHECK(kvsize::hf::parse_config(R"({"model_type": "qwen3", "head_dim": 64, )" + shape + "}").spec.head_dim == 64);
}

TEST_CASE("parse_config: nested text_config takes omitted keys from the transformers class defaults", "[hf][nested]") {
  const auto g = load("google__gemma-3-4b-it.config.json");
  CHECK(g.text_config_pointer == "/text_config");
  CHECK(g.model_type == "gemma3_text");
  CHECK(g.architecture == "Gemma3ForConditionalGeneration");
  CHECK(g.spec.layers == 34);
  CHECK(g.spec.attention_heads == 8);
  CHECK(g.spec.kv_heads == 4);
  CHECK(g.spec.head_dim == 256);
  CHECK(g.spec.hidden_size == 2560);
  CHECK(g.spec.vocab_size == 262208);
  CHECK(g.spec.sliding_window == 1024);
  CHECK(g.spec.compute_dtype == kvsize::dtype::bf16);
  CHECK(kvsize::count_layers(g.spec, layer_kind::full) == 5);  // layers 5, 11, 17, 23, 29
  CHECK(kvsize::count_layers(g.spec, layer_kind::sliding) == 29);
  CHECK(kvsize::kind_of_layer(g.spec, 5) == layer_kind::full);
  CHECK(kvsize::kind_of_layer(g.spec, 4) == layer_kind::sliding);
  CHECK(has_warning(g, "/text_config/num_attention_heads is absent; took 8"));
  CHECK(has_warning(g, "Gemma3TextConfig"));

  const auto l = load("llava-hf__llava-1.5-7b-hf.config.json");
  CHECK(l.model_type == "llama");
  CHECK(l.spec.layers == 32);
  CHECK(l.spec.attention_heads == 32);
  CHECK(l.spec.kv_heads == 32);
  CHECK(l.spec.hidden_size == 4096);
  CHECK(l.spec.vocab_size == 32064);
  CHECK(l.spec.max_context == 4096);
  CHECK(l.spec.compute_dtype == kvsize::dtype::f16);
  CHECK(has_warning(l, "LlamaConfig"));

  // A top-level config gets no defaults: an absent key is an error, not a guess.
  const auto e = error_of(R"({"model_type": "gemma3_text", "num_hidden_layers": 4, "hidden_size": 1024, "vocab_size": 10})");
  CHECK(e.code() == config_errc::missing_key);
  CHECK(e.pointer() == "/num_attention_heads");
}

// Each config below nests a text_config that leaves out every key its class defaults, so every
// figure comes from a transformers class default (docs/research/transformers-defaults.md has the
// file and commit of each) and the arithmetic in the comments.
TEST_CASE("parse_config: Gemma2Config defaults and alternation in a nested config", "[hf][nested][defaults]") {
  const auto g = kvsize::hf::parse_config(
      R"({"model_type": "paligemma", "torch_dtype": "bfloat16", "text_config": {"model_type": "gemma2"}})");
  CHECK(g.model_type == "gemma2");
  // Gemma2Config: 26 layers, 8 heads, 4 KV heads, head_dim 256, hidden 2304, vocab 256000,
  // max_position_embeddings 8192, sliding_window 4096, tie_word_embeddings True.
  CHECK(g.spec.layers == 26);
  CHECK(g.spec.attention_heads == 8);
  CHECK(g.spec.kv_heads == 4);
  CHECK(g.spec.head_dim == 256);
  CHECK(g.spec.hidden_size == 2304);
  CHECK(g.spec.vocab_size == 256000);
  CHECK(g.spec.max_context == 8192);
  CHECK(g.spec.sliding_window == 4096);
  CHECK(g.spec.tied_embeddings);
  // layer_types default: layer i slides iff (i + 1) % 2 != 0, so the 13 even layers slide and
  // the 13 odd ones are global.
  CHECK(kvsize::kind_of_layer(g.spec, 0) == layer_kind::sliding);
  CHECK(kvsize::kind_of_layer(g.spec, 1) == layer_kind::full);
  CHECK(kvsize::kind_of_layer(g.spec, 25) == layer_kind::full);
  CHECK(kvsize::count_layers(g.spec, layer_kind::sliding) == 13);
  CHECK(kvsize::count_layers(g.spec, layer_kind::full) == 13);
  // Per layer per token: 4 KV heads × 256 × 2 (K and V) × 2 B (bf16) = 4,096 B; 26 × 4,096 = 106,496.
  CHECK(kvsize::kv_bytes_per_token(g.spec).count() == 106'496U);
  CHECK(kvsize::kv_token_bytes_of(g.spec).growing.count() == 13U * 4'096U);
  CHECK(kvsize::kv_token_bytes_of(g.spec).sliding.count() == 13U * 4'096U);
  CHECK(has_warning(g, "/text_config/num_key_value_heads is absent; took 4, the default of transformers' Gemma2Config"));

  // PaliGemmaConfig: a text_config without model_type is a GemmaConfig ("gemma": no windows), not Gemma 2.
  const auto pg = kvsize::hf::parse_config(
      R"({"model_type": "paligemma", "torch_dtype": "bfloat16", "text_config": {"hidden_size": 2048,
          "num_hidden_layers": 18, "intermediate_size": 16384, "num_attention_heads": 8, "num_key_value_heads": 1,
          "vocab_size": 257216}})");
  CHECK(pg.model_type == "gemma");
  CHECK(pg.spec.attention == layer_kind::full);
  CHECK(kvsize::count_layers(pg.spec, layer_kind::sliding) == 0);
  // 18 layers × 1 KV head × (2048 / 8 = 256) × 2 × 2 B = 18,432.
  CHECK(kvsize::kv_bytes_per_token(pg.spec).count() == 18'432U);
}

TEST_CASE("parse_config: Gemma3nTextConfig defaults, period 5 and KV sharing in a nested config", "[hf][nested][defaults]") {
  const auto g = kvsize::hf::parse_config(R"({"model_type": "gemma3n", "torch_dtype": "bfloat16", "text_config": {}})");
  CHECK(g.model_type == "gemma3n_text");  // Gemma3nConfig's text_config class
  // Gemma3nTextConfig: 35 layers, 8 heads, 2 KV heads, head_dim 256, hidden 2048, vocab 262400,
  // max_position_embeddings 32768, sliding_window 512, num_kv_shared_layers 15, tied.
  CHECK(g.spec.layers == 35);
  CHECK(g.spec.attention_heads == 8);
  CHECK(g.spec.kv_heads == 2);
  CHECK(g.spec.head_dim == 256);
  CHECK(g.spec.hidden_size == 2048);
  CHECK(g.spec.vocab_size == 262400);
  CHECK(g.spec.max_context == 32768);
  CHECK(g.spec.sliding_window == 512);
  CHECK(g.spec.tied_embeddings);
  // layer_types default: full iff (i + 1) % 5 == 0 (layers 4, 9, ..., 34). The last 15 layers
  // (20..34) reuse an earlier layer's cache, so only layers 0..19 keep KV: 4 full (4, 9, 14, 19)
  // and 16 sliding.
  CHECK(kvsize::kind_of_layer(g.spec, 4) == layer_kind::full);
  CHECK(kvsize::kind_of_layer(g.spec, 5) == layer_kind::sliding);
  CHECK(kvsize::kind_of_layer(g.spec, 19) == layer_kind::full);
  CHECK(kvsize::kind_of_layer(g.spec, 20) == layer_kind::shared);
  CHECK(kvsize::count_layers(g.spec, layer_kind::shared) == 15);
  CHECK(kvsize::kv_layers(g.spec) == 20);
  CHECK(kvsize::count_layers(g.spec, layer_kind::full) == 4);
  CHECK(kvsize::count_layers(g.spec, layer_kind::sliding) == 16);
  // Per layer per token: 2 × 256 × 2 × 2 B = 2,048 B; 20 KV layers × 2,048 = 40,960.
  CHECK(kvsize::kv_bytes_per_token(g.spec).count() == 40'960U);
  CHECK(kvsize::kv_token_bytes_of(g.spec).growing.count() == 4U * 2'048U);
  CHECK(kvsize::kv_token_bytes_of(g.spec).sliding.count() == 16U * 2'048U);
  CHECK(has_warning(g, "/text_config/num_kv_shared_layers is absent; took 15"));
  // Weights: the per-layer inputs at Gemma3nTextConfig's defaults (256 features a layer, 262,144 rows), and a warning
  // for the AltUp and Laurel modules, which kvsize does not count.
  CHECK(g.spec.weights.per_layer_input_width == 256);
  CHECK(g.spec.weights.per_layer_input_vocab == 262'144);
  CHECK(has_warning(g, "Gemma 3n's AltUp"));

  // Gemma3nTextConfig has no sliding_window_pattern: the period stays 5 even if one is written.
  const auto p = kvsize::hf::parse_config(
      R"({"model_type": "gemma3n", "text_config": {"sliding_window_pattern": 2, "num_kv_shared_layers": 0}})");
  CHECK(kvsize::count_layers(p.spec, layer_kind::full) == 7);  // 35 / 5
  CHECK(kvsize::kind_of_layer(p.spec, 1) == layer_kind::sliding);
}

TEST_CASE("parse_config: Llama4TextConfig defaults and the no_rope_layers rule in a nested config", "[hf][nested][defaults]") {
  const auto l = kvsize::hf::parse_config(R"({"model_type": "llama4", "torch_dtype": "bfloat16", "text_config": {}})");
  CHECK(l.model_type == "llama4_text");  // Llama4Config's text_config class
  // Llama4TextConfig: 48 layers, 40 heads, 8 KV heads, head_dim 128, hidden 5120, vocab 202048,
  // max_position_embeddings 131072, attention_chunk_size 8192, tie_word_embeddings False.
  CHECK(l.spec.layers == 48);
  CHECK(l.spec.attention_heads == 40);
  CHECK(l.spec.kv_heads == 8);
  CHECK(l.spec.head_dim == 128);
  CHECK(l.spec.hidden_size == 5120);
  CHECK(l.spec.vocab_size == 202048);
  CHECK(l.spec.max_context == 131072);
  CHECK(l.spec.attention_chunk == 8192);
  CHECK_FALSE(l.spec.tied_embeddings);
  // no_rope_layers default int((i + 1) % 4 != 0): layers 3, 7, ..., 47 are global NoPE layers
  // (12), the other 36 are chunked.
  CHECK(kvsize::kind_of_layer(l.spec, 2) == layer_kind::chunked);
  CHECK(kvsize::kind_of_layer(l.spec, 3) == layer_kind::full);
  CHECK(kvsize::kind_of_layer(l.spec, 47) == layer_kind::full);
  CHECK(kvsize::count_layers(l.spec, layer_kind::full) == 12);
  CHECK(kvsize::count_layers(l.spec, layer_kind::chunked) == 36);
  // Per layer per token: 8 × 128 × 2 × 2 B = 4,096 B; 48 × 4,096 = 196,608.
  CHECK(kvsize::kv_bytes_per_token(l.spec).count() == 196'608U);
  CHECK(kvsize::kv_token_bytes_of(l.spec).growing.count() == 12U * 4'096U);
  CHECK(kvsize::kv_token_bytes_of(l.spec).chunked.count() == 36U * 4'096U);
  CHECK(has_warning(l, "/text_config/attention_chunk_size is absent; took 8192"));
  // The MoE defaults too: a routing model without an expert count would be sized dense.
  CHECK(l.spec.weights.moe.experts == 16);
  CHECK(l.spec.weights.moe.experts_per_token == 1);
  CHECK(has_warning(l, "/text_config/num_local_experts is absent; took 16"));

  // An empty no_rope_layers is falsy in Llama4TextConfig, so the default is derived (not an error).
  const auto e = kvsize::hf::parse_config(llama_with(
      R"("model_type": "llama4_text", "num_local_experts": 16, "attention_chunk_size": 8192, "no_rope_layers": [])"));
  CHECK(kvsize::count_layers(e.spec, layer_kind::full) == 2);  // layers 3 and 7 of 8
  CHECK(kvsize::count_layers(e.spec, layer_kind::chunked) == 6);
  CHECK(e.layers.front().reason.find("/no_rope_layers = [] (empty, so derived)") != std::string::npos);
  // no_rope_layer_interval sets the period: with 2, layers 1, 3, 5 and 7 of 8 are global.
  const auto i2 = kvsize::hf::parse_config(llama_with(
      R"("model_type": "llama4_text", "num_local_experts": 16, "attention_chunk_size": 8192, "no_rope_layer_interval": 2)"));
  CHECK(kvsize::count_layers(i2.spec, layer_kind::full) == 4);
  CHECK(kvsize::kind_of_layer(i2.spec, 1) == layer_kind::full);
  CHECK(kvsize::kind_of_layer(i2.spec, 2) == layer_kind::chunked);
}

TEST_CASE("parse_config: Cohere2Config defaults and sliding_window_pattern in a nested config", "[hf][nested][defaults]") {
  const auto c = kvsize::hf::parse_config(
      R"({"model_type": "aya_vision", "torch_dtype": "float16", "text_config": {"model_type": "cohere2"}})");
  CHECK(c.model_type == "cohere2");
  // Cohere2Config: 40 layers, 64 heads, num_key_value_heads None (→ 64), head_dim = 8192 / 64 = 128,
  // hidden 8192, vocab 256000, max_position_embeddings 8192, sliding_window 4096, tied.
  CHECK(c.spec.layers == 40);
  CHECK(c.spec.attention_heads == 64);
  CHECK(c.spec.kv_heads == 64);
  CHECK(c.spec.head_dim == 128);
  CHECK(c.spec.hidden_size == 8192);
  CHECK(c.spec.intermediate_size == 22528);
  CHECK(c.spec.vocab_size == 256000);
  CHECK(c.spec.max_context == 8192);
  CHECK(c.spec.sliding_window == 4096);
  CHECK(c.spec.tied_embeddings);
  // sliding_window_pattern default 4: layer i slides iff (i + 1) % 4 != 0, so layers 3, 7, ..., 39
  // (10) are global and 30 slide.
  CHECK(kvsize::kind_of_layer(c.spec, 3) == layer_kind::full);
  CHECK(kvsize::kind_of_layer(c.spec, 4) == layer_kind::sliding);
  CHECK(kvsize::count_layers(c.spec, layer_kind::full) == 10);
  CHECK(kvsize::count_layers(c.spec, layer_kind::sliding) == 30);
  // Per layer per token: 64 × 128 × 2 × 2 B (fp16) = 32,768 B; 40 × 32,768 = 1,310,720.
  CHECK(kvsize::kv_bytes_per_token(c.spec).count() == 1'310'720U);
  CHECK(kvsize::kv_token_bytes_of(c.spec).growing.count() == 10U * 32'768U);
  CHECK(kvsize::kv_token_bytes_of(c.spec).sliding.count() == 30U * 32'768U);
  CHECK(has_warning(c, "/text_config/num_attention_heads is absent; took 64, the default of transformers' Cohere2Config"));
}

TEST_CASE("parse_config: null is not absence, and a key is not a switch", "[hf][null]") {
  const auto q7 = load("Qwen__Qwen2.5-7B.config.json");  // sliding_window 131072, use_sliding_window false
  CHECK(q7.spec.attention == layer_kind::full);
  CHECK(kvsize::count_layers(q7.spec, layer_kind::sliding) == 0);
  CHECK(q7.layers.front().reason.find("/use_sliding_window = false") != std::string::npos);

  const auto mix = load("mistralai__Mixtral-8x7B-v0.1.config.json");  // sliding_window: null
  CHECK(mix.spec.attention == layer_kind::full);
  CHECK(mix.layers.front().reason.find("/sliding_window = null") != std::string::npos);
  CHECK(load("microsoft__phi-4.config.json").spec.attention == layer_kind::full);

  const auto m7 = load("mistralai__Mistral-7B-v0.1.config.json");  // 4096 on every layer
  CHECK(m7.spec.attention == layer_kind::sliding);
  CHECK(m7.spec.sliding_window == 4096);
  const auto phi3 = load("microsoft__Phi-3-mini-4k-instruct.config.json");  // HF Phi3 applies it to every layer
  CHECK(phi3.spec.attention == layer_kind::sliding);
  CHECK(phi3.spec.sliding_window == 2047);

  // Qwen2 with use_sliding_window true: layers >= max_window_layers slide (HF Qwen2Attention).
  const auto q = kvsize::hf::parse_config(llama_with(
      R"("model_type": "qwen2", "use_sliding_window": true, "sliding_window": 4096, "max_window_layers": 6)"));
  CHECK(kvsize::count_layers(q.spec, layer_kind::full) == 6);
  CHECK(kvsize::kind_of_layer(q.spec, 6) == layer_kind::sliding);
  CHECK(q.spec.sliding_window == 4096);
  CHECK(q.layers.back().reason.find("layer 6..7 >= /max_window_layers (6)") != std::string::npos);

  // num_key_value_heads: null and head_dim: null take the documented fallbacks.
  const auto n = kvsize::hf::parse_config(llama_with(R"("num_key_value_heads": null, "head_dim": null)"));
  CHECK(n.spec.kv_heads == 8);
  CHECK(n.spec.head_dim == 128);
  CHECK(has_warning(n, "/num_key_value_heads is null"));
}

TEST_CASE("parse_config: per-layer patterns", "[hf][patterns]") {
  const auto g2 = load("google__gemma-2-9b.config.json");  // implicit alternation, even layers slide
  CHECK(kvsize::kind_of_layer(g2.spec, 0) == layer_kind::sliding);
  CHECK(kvsize::kind_of_layer(g2.spec, 1) == layer_kind::full);
  CHECK(kvsize::count_layers(g2.spec, layer_kind::sliding) == 21);
  CHECK(g2.spec.compute_dtype == kvsize::dtype::f32);

  const auto oss = load("openai__gpt-oss-20b.config.json");
  CHECK(kvsize::count_layers(oss.spec, layer_kind::sliding) == 12);
  CHECK(oss.spec.sliding_window == 128);
  CHECK(oss.layers[0].reason == "/layer_types[0] = \"sliding_attention\"; window from /sliding_window = 128; "
                                "/num_key_value_heads = 8 KV heads");
  CHECK(oss.quantization_method == "mxfp4");

  const auto l4 = load("meta-llama__Llama-4-Scout-17B-16E-Instruct.config.json");
  CHECK(l4.spec.attention_chunk == 8192);
  CHECK(kvsize::count_layers(l4.spec, layer_kind::chunked) == 36);
  CHECK(kvsize::kind_of_layer(l4.spec, 3) == layer_kind::full);
  CHECK(kvsize::kind_of_layer(l4.spec, 47) == layer_kind::full);

  // Llama 4 with an explicit no_rope_layers, Cohere2's pattern 4, Gemma 3n KV sharing.
  const auto l4e = kvsize::hf::parse_config(llama_with(
      R"("model_type": "llama4_text", "num_local_experts": 16, "attention_chunk_size": 8192, "no_rope_layers": [1,1,0,1,1,1,1,0])"));
  CHECK(kvsize::kind_of_layer(l4e.spec, 2) == layer_kind::full);
  CHECK(kvsize::count_layers(l4e.spec, layer_kind::chunked) == 6);
  const auto c2 = kvsize::hf::parse_config(llama_with(R"("model_type": "cohere2", "sliding_window": 4096)"));
  CHECK(kvsize::count_layers(c2.spec, layer_kind::full) == 2);  // layers 3 and 7
  CHECK(kvsize::kind_of_layer(c2.spec, 3) == layer_kind::full);
  const auto g3n = kvsize::hf::parse_config(llama_with(
      R"("model_type": "gemma3n_text", "sliding_window": 512, "num_kv_shared_layers": 3)"));
  CHECK(kvsize::count_layers(g3n.spec, layer_kind::shared) == 3);
  CHECK(kvsize::kv_layers(g3n.spec) == 5);
  CHECK(kvsize::kind_of_layer(g3n.spec, 4) == layer_kind::full);  // (4 + 1) % 5 == 0
}

TEST_CASE("parse_config: latent attention keeps kv_lora_rank + qk_rope_head_dim per layer", "[hf][latent]") {
  const auto r1 = load("deepseek-ai__DeepSeek-R1.config.json");
  CHECK(r1.spec.attention == layer_kind::latent);
  CHECK(r1.spec.layers == 61);
  CHECK(r1.spec.latent.kv_lora_rank == 512);
  CHECK(r1.spec.latent.rope_head_dim == 64);
  CHECK(r1.spec.latent.nope_head_dim == 128);
  CHECK(r1.spec.latent.v_head_dim == 128);
  CHECK(kvsize::kv_bytes_per_token(r1.spec).count() == 61U * 576U * 2U);
  CHECK(r1.layers.size() == 1);
  CHECK(r1.layers[0].reason.find("/num_key_value_heads = 128 is not used for the cache") != std::string::npos);
  CHECK(r1.quantization_method == "fp8");
  CHECK_FALSE(r1.quantization_bits.has_value());
  CHECK(load("moonshotai__Kimi-K2-Instruct.config.json").spec.attention == layer_kind::latent);
}

TEST_CASE("parse_config: hybrids keep KV only in attention layers and a state in recurrent ones", "[hf][hybrid]") {
  const auto nh = load("nvidia__Nemotron-H-56B-Base-8K.config.json");
  CHECK(kvsize::kv_layers(nh.spec) == 10);
  CHECK(kvsize::recurrent_layers(nh.spec) == 54);
  CHECK(nh.spec.state.conv_elements == 3U * (16384U + 2U * 8U * 256U));
  CHECK(nh.spec.state.ssm_elements == 256U * 64U * 256U);
  CHECK(has_warning(nh, "/time_step_limit/1: bare Infinity"));

  const auto nano = load("nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.config.json");
  CHECK(kvsize::kv_layers(nano.spec) == 6);
  CHECK(kvsize::recurrent_layers(nano.spec) == 23);
  CHECK(nano.spec.state.conv_elements == 3U * (64U * 64U + 2U * 8U * 128U));
  CHECK(nano.spec.state.ssm_elements == 64U * 64U * 128U);
  // NemotronH's SSM state dtype: the Nano's config says mamba_ssm_cache_dtype "float32"; the 56B's
  // has no key, and vLLM 0.13 – 0.19's NemotronHForCausalLMConfig falls back to float16 (families.hpp).
  CHECK(nano.spec.state.ssm_dtype_set);
  CHECK(nano.spec.state.ssm_dtype == kvsize::dtype::f32);
  CHECK(nh.spec.state.ssm_dtype_set);
  CHECK(nh.spec.state.ssm_dtype == kvsize::dtype::f16);
  CHECK(std::any_of(nano.layers.begin(), nano.layers.end(), [](const auto& g) {
    return g.reason.find("SSM state in f32 (/mamba_ssm_cache_dtype)") != std::string::npos;
  }));
  CHECK(std::any_of(nh.layers.begin(), nh.layers.end(), [](const auto& g) {
    return g.reason.find("/mamba_ssm_cache_dtype absent: the default") != std::string::npos;
  }));

  const auto qn = load("Qwen__Qwen3-Next-80B-A3B-Thinking.config.json");
  CHECK(kvsize::kv_layers(qn.spec) == 12);
  CHECK(kvsize::recurrent_layers(qn.spec) == 36);
  CHECK(qn.spec.state.conv_elements == 24576);
  CHECK(qn.spec.state.ssm_elements == 524288);
  CHECK_FALSE(qn.spec.state.ssm_dtype_set);  // Qwen3-Next names no SSM dtype: each engine's own rule

  const auto nas = load("nvidia__Llama-3_3-Nemotron-Super-49B-v1.config.json");
  CHECK(kvsize::kv_layers(nas.spec) == 49);
  CHECK(kvsize::count_layers(nas.spec, layer_kind::none) == 31);
  CHECK(nas.spec.kv_heads == 8);

  // Jamba (Mamba1, attn_layer_period/offset), Granite 4 (layer_types "mamba"), Falcon-H1 (both).
  const auto jamba = kvsize::hf::parse_config(llama_with(
      R"("model_type": "jamba", "num_hidden_layers": 16, "attn_layer_period": 8, "attn_layer_offset": 4,
         "mamba_d_state": 16, "mamba_d_conv": 4, "mamba_expand": 2)"));
  CHECK(kvsize::kv_layers(jamba.spec) == 2);
  CHECK(kvsize::kind_of_layer(jamba.spec, 4) == layer_kind::full);
  CHECK(jamba.spec.state.conv_elements == 3U * 2048U);
  CHECK(jamba.spec.state.ssm_elements == 2048U * 16U);
  // Its Mamba1 weights read the same inner width (2 × 1,024) and JambaConfig's mamba_dt_rank "auto":
  // ceil(hidden_size / 16) = ceil(1,024 / 16) = 64.
  CHECK(jamba.spec.weights.recurrent.kind == kvsize::recurrent_kind::mamba1);
  CHECK(jamba.spec.weights.recurrent.head_dim == 2048U);
  CHECK(jamba.spec.weights.recurrent.dt_rank == 64U);
  const std::string jamba_base = R"("model_type": "jamba", "num_hidden_layers": 16, "mamba_d_state": 16, "mamba_d_conv": 4)";
  // The time-step rank is the mixer's weights only: a bad one leaves the weights uncounted, and the
  // mixer's kind (which the engines read to page the state) and the state stand.
  const auto bad_dt_rank = kvsize::hf::parse_config(llama_with(jamba_base + R"(, "mamba_expand": 2, "mamba_dt_rank": "big")"));
  CHECK(bad_dt_rank.weights_unknown_because.starts_with("/mamba_dt_rank: "));
  CHECK(bad_dt_rank.spec.weights.recurrent.kind == kvsize::recurrent_kind::mamba1);
  const auto good_dt_rank = kvsize::hf::parse_config(llama_with(jamba_base + R"(, "mamba_expand": 2, "mamba_dt_rank": 64)"));
  CHECK(good_dt_rank.weights_unknown_because.empty());
  CHECK(bad_dt_rank.spec.state == good_dt_rank.spec.state);
  CHECK(kvsize::kv_token_bytes_of(bad_dt_rank.spec) == kvsize::kv_token_bytes_of(good_dt_rank.spec));
  // An expert layer rule that cannot hold is a weights-only problem: the KV and the state stand.
  CHECK(weights_unknown_of(llama_with(
            jamba_base + R"(, "mamba_expand": 2, "num_experts": 4, "num_experts_per_tok": 2, "expert_layer_period": 2,
                      "expert_layer_offset": 2)"))
            .starts_with("/expert_layer_offset: "));
  // 1,048,576 heads × 2,048 = 2^31 inner channels: past the 2^30 the weights take.
  // The state takes them (its conv and SSM rows are 64-bit); the mixer's weights do not.
  CHECK(weights_unknown_of(llama_with(jamba_base + R"(, "mamba_num_heads": 1048576, "mamba_head_dim": 2048)"))
            .find("expected a Mamba inner width of at most 2^30") != std::string::npos);
  const auto granite = kvsize::hf::parse_config(llama_with(
      R"("model_type": "granitemoehybrid", "num_hidden_layers": 4, "layer_types": ["mamba", "mamba", "attention", "mamba"],
         "mamba_n_heads": 32, "mamba_d_head": 64, "mamba_d_state": 128, "mamba_d_conv": 4, "mamba_n_groups": 1)"));
  CHECK(kvsize::kv_layers(granite.spec) == 1);
  CHECK(kvsize::recurrent_layers(granite.spec) == 3);
  CHECK(granite.spec.state.conv_elements == 3U * (2048U + 2U * 128U));
  const auto fh1 = kvsize::hf::parse_config(llama_with(
      R"("model_type": "falcon_h1", "mamba_d_ssm": 2048, "mamba_n_heads": 32, "mamba_d_head": 64,
         "mamba_d_state": 128, "mamba_d_conv": 4, "mamba_n_groups": 1)"));
  CHECK(kvsize::kv_layers(fh1.spec) == 8);
  CHECK(kvsize::recurrent_layers(fh1.spec) == 8);
}

TEST_CASE("parse_config: families' KV-head switches", "[hf][kv]") {
  const auto mpt = kvsize::hf::parse_config(llama_with(R"("model_type": "mpt", "num_key_value_heads": null,
      "attn_config": {"attn_type": "grouped_query_attention", "kv_n_heads": 4})"));
  CHECK(mpt.spec.kv_heads == 4);
  const auto glm = kvsize::hf::parse_config(llama_with(
      R"("model_type": "chatglm", "multi_query_attention": false, "multi_query_group_num": 2)"));
  CHECK(glm.spec.kv_heads == 8);
  const auto bigcode = kvsize::hf::parse_config(llama_with(R"("model_type": "gpt_bigcode", "num_key_value_heads": null, "multi_query": true)"));
  CHECK(bigcode.spec.kv_heads == 1);
}

TEST_CASE("parse_config: dtype over torch_dtype, quantization_config read", "[hf][dtype]") {
  const auto d = kvsize::hf::parse_config(llama_with(R"("dtype": "float16")"));
  CHECK(d.spec.compute_dtype == kvsize::dtype::f16);
  CHECK(d.dtype_key == "/dtype");
  const auto nested = kvsize::hf::parse_config(
      R"({"model_type": "llava", "text_config": {"model_type": "llama", "torch_dtype": "float32", "vocab_size": 32064}})");
  CHECK(nested.spec.compute_dtype == kvsize::dtype::f32);
  CHECK(nested.dtype_key == "/text_config/torch_dtype");
  const auto q = kvsize::hf::parse_config(llama_with(R"("quantization_config": {"quant_method": "gptq", "bits": 4})"));
  CHECK(q.quantization_method == "gptq");
  CHECK(q.quantization_bits == 4U);
}

TEST_CASE("parse_config: real-world JSON quirks are accepted", "[hf][quirks]") {
  const auto plain = kvsize::hf::parse_config(llama_with(""));
  for (const char* name : {"bom.json", "crlf.json", "no_final_newline.json", "bom_crlf_no_final_newline.json",
                           "bare_infinity_nan.json", "dtype_over_torch_dtype.json", "duplicate_keys_harmless.json",
                           "head_dim_null_derived.json", "kv_heads_null_means_mha.json", "no_model_type.json",
                           "unknown_model_type_standard_keys.json", "gpt2_style_aliases.json",
                           "stray_per_layer_keys_ignored.json"}) {
    INFO(name);
    CHECK_NOTHROW(kvsize::hf::load_config(configs_dir() / "quirks" / name));
  }
  // MiniMax-M3's indexer query heads are weights only: 0 (the published config with that one value
  // changed) is a warning, and the KV heads (4, as vLLM requires) stand in: the same spec as the real one.
  const auto heads = load("quirks/minimax_m3_index_heads_zero.json");
  CHECK(has_warning(heads, "/sparse_attention_config/sparse_num_index_heads: expected a head count from 1 to 65,536, "
                           "got 0; took the KV heads (4)"));
  CHECK(heads.spec == load("MiniMaxAI__MiniMax-M3.config.json").spec);  // the published config's 4 heads
  // MiniMax-M3's vision-language wrapper (minimax_m3_vl): its text_config, keys and values as nvidia/MiniMax-M3-NVFP4's
  // config.json has them (ai-dynamo/aiconfigurator @095f58a51, model_configs/nvidia--MiniMax-M3-NVFP4_config.json;
  // no model_type, the dense layers from moe_layer_freq alone, intermediate_size as the experts' width, dtype), with
  // its vision_config and without its quantization_config. The language model is the published MiniMax-M3's: the same
  // cache layer by layer, the same parameters (its MTP keys differ and are not counted either way).
  const auto wrapped = load("quirks/minimax_m3_vl_text_config.json");
  const auto text = load("MiniMaxAI__MiniMax-M3.config.json");
  CHECK(wrapped.spec.layers == 60);
  CHECK(kvsize::kv_bytes_per_token(wrapped.spec) == kvsize::kv_bytes_per_token(text.spec));
  CHECK(kvsize::state_bytes_per_sequence(wrapped.spec) == kvsize::state_bytes_per_sequence(text.spec));
  for (std::uint32_t il = 0; il < 60; ++il) {
    CHECK(kvsize::kind_of_layer(wrapped.spec, il) == kvsize::kind_of_layer(text.spec, il));
  }
  CHECK(kvsize::parameters(wrapped.spec).total == kvsize::parameters(text.spec).total);
  // A vision_config kvsize cannot read leaves the weights unknown (configs/weights_unknown): the tower,
  // read last, is all that differs from the real config's spec.
  const auto bad_tower = load("weights_unknown/qwen3_5_vision_depth_zero.json");
  CHECK(bad_tower.weights_unknown_because.starts_with("/vision_config/depth: expected"));
  kvsize::model_spec bad = bad_tower.spec;
  const kvsize::model_spec good = load("Qwen__Qwen3.5-35B-A3B.config.json").spec;
  CHECK(good.weights.vision != 0);
  bad.weights.vision = good.weights.vision;
  CHECK(bad == good);
  const auto inf = load("quirks/bare_infinity_nan.json");
  CHECK(has_warning(inf, "/time_step_limit/1: bare Infinity"));
  CHECK(has_warning(inf, "/rope_eps: bare NaN"));
  CHECK(has_warning(inf, "/floor: bare -Infinity"));
  CHECK(inf.spec.layers == 32);
  // Inside strings nothing is replaced.
  const auto s = kvsize::hf::parse_config(llama_with(R"("note": "NaN, Infinity", "x": [NaN, -Infinity])"));
  CHECK(std::count_if(s.warnings.begin(), s.warnings.end(), [](const std::string& w) { return w.find("bare") != std::string::npos; }) == 2);

  const auto unknown = load("quirks/unknown_model_type_standard_keys.json");
  CHECK(unknown.model_type == "acme_lm");
  CHECK(unknown.spec.kv_heads == 8);
  CHECK(has_warning(unknown, "model_type \"acme_lm\" unknown: sized as a generic decoder"));
  CHECK(has_warning(unknown, "head_dim 128 = hidden_size / num_attention_heads"));
}

TEST_CASE("parse_config: moe_layer_freq as one 0/1 entry per layer (MiMo-V2-Flash, MiniMax-M3)", "[hf][moe]") {
  // DeepSeek-R1 with its first_k_dense_replace 3 / moe_layer_freq 1 spelled as 61 flags (0, 0, 0, 1, ...):
  // the same model, so the same weights shape and KV (transformers MiMoV2FlashDecoderLayer reads
  // config.moe_layer_freq[layer_idx]). It was refused: "expected a positive integer, got [0,0,...]".
  const auto r1 = load("deepseek-ai__DeepSeek-R1.config.json");
  const auto flags = load("quirks/moe_layer_freq_per_layer.json");
  CHECK(flags.spec.weights == r1.spec.weights);
  CHECK(kvsize::kv_bytes_per_token(flags.spec) == kvsize::kv_bytes_per_token(r1.spec));
  CHECK(kvsize::parameters(flags.spec).total == kvsize::parameters(r1.spec).total);
  // Only layer 3 of the 61 routed: 57 more dense MLPs, far fewer parameters, the same KV cache.
  std::ifstream in(configs_dir() / "quirks/moe_layer_freq_per_layer.json");
  nlohmann::json j = nlohmann::json::parse(in);
  for (std::size_t il = 0; il < 61; ++il) {
    j["moe_layer_freq"][il] = il == 3 ? 1 : 0;
  }
  const auto one = kvsize::hf::parse_config(j.dump());
  CHECK(kvsize::kv_bytes_per_token(one.spec) == kvsize::kv_bytes_per_token(r1.spec));
  CHECK(kvsize::parameters(one.spec).total < kvsize::parameters(r1.spec).total);
  // Flags may be booleans too.
  for (std::size_t il = 0; il < 61; ++il) {
    j["moe_layer_freq"][il] = il >= 3;
  }
  CHECK(kvsize::hf::parse_config(j.dump()).spec.weights == r1.spec.weights);
}

TEST_CASE("parse_config: messages say where, what was expected and what was found", "[hf][errors]") {
  CHECK(std::string(error_of(llama_with(R"("num_key_value_heads": -1)")).what()) ==
        "config.json:/num_key_value_heads: expected a positive integer, got -1");
  CHECK(std::string(error_of(llama_with(R"("num_key_value_heads": 8.5)")).what()) ==
        "config.json:/num_key_value_heads: expected a positive integer, got 8.5");
  CHECK(std::string(error_of(llama_with(R"("num_key_value_heads": 3)")).what()) ==
        "config.json:/num_key_value_heads: expected a divisor of num_attention_heads (8), got 3");
  CHECK(std::string(error_of("{\"a\": 1,}").what()) ==
        "config.json: syntax error at line 1, column 9: while parsing object key - unexpected '}'; expected string literal");
  const auto missing = error_of(R"({"model_type": "mystery_lm"})");
  CHECK(std::string(missing.what()) ==
        "config.json:/num_hidden_layers: expected one of num_hidden_layers, n_layer, n_layers or num_layers, got none "
        "of them (model_type \"mystery_lm\")");
  const auto named = [] {
    try {
      (void)kvsize::hf::parse_config("[]", "qwen.json");
    } catch (const config_error& e) {
      return e;
    }
    return config_error(config_errc::io, "", "", "");
  }();
  CHECK(named.file() == "qwen.json");
  CHECK(std::string(named.what()) == "qwen.json: expected a JSON object at the top level, got an array");
  // A syntax error after a replaced NaN still points at the right column of the original text.
  const auto after_nan = error_of("{\"a\": NaN, \"b\": }");
  CHECK(after_nan.code() == config_errc::syntax);
  CHECK(std::string(after_nan.what()).find("line 1, column 17") != std::string::npos);
}

TEST_CASE("parse_config: every file of configs/invalid fails with its code and pointer", "[hf][invalid]") {
  struct expectation {
    const char* file;
    config_errc code;
    std::string pointer;
  };
  std::string bomb = "/x";
  for (int i = 0; i < 63; ++i) {
    bomb += "/0";
  }
  using enum config_errc;
  const std::vector<expectation> table{
      {"architectures_entry_not_string", wrong_type, "/architectures/1"},
      {"architectures_not_array", wrong_type, "/architectures"},
      {"attention_chunk_size_zero", out_of_range, "/attention_chunk_size"},
      {"block_config_attention_missing", missing_key, "/block_configs/0/attention"},
      {"block_config_no_op_not_bool", wrong_type, "/block_configs/2/attention/no_op"},
      {"block_configs_entry_string", wrong_type, "/block_configs/1"},
      {"block_configs_not_array", wrong_type, "/block_configs"},
      {"block_configs_wrong_length", inconsistent, "/block_configs"},
      {"deepseek_v4_not_sized", unsupported, "/model_type"},
      {"deepseek_v4_other_model_type", unsupported, "/compress_ratios"},
      {"dtype_newer_key_wrong_type", wrong_type, "/dtype"},
      {"dtype_unknown_string", unsupported, "/torch_dtype"},
      {"dtype_wrong_type", wrong_type, "/torch_dtype"},
      {"duplicate_key_conflicting_values", inconsistent, "/num_hidden_layers"},
      {"full_attention_interval_zero", out_of_range, "/full_attention_interval"},
      {"intermediate_size_nan", wrong_type, "/intermediate_size"},
      {"gated_delta_key_missing", missing_key, "/linear_num_value_heads"},
      {"gemma4_attention_k_eq_v_string", wrong_type, "/attention_k_eq_v"},
      {"gemma4_global_head_dim_huge", out_of_range, "/global_head_dim"},
      {"gemma4_global_head_dim_string", wrong_type, "/global_head_dim"},
      {"gemma4_global_head_dim_zero", out_of_range, "/global_head_dim"},
      {"gemma4_global_kv_heads_negative", out_of_range, "/num_global_key_value_heads"},
      {"gemma4_global_kv_heads_not_dividing", inconsistent, "/num_global_key_value_heads"},
      {"head_dim_negative", out_of_range, "/head_dim"},
      {"head_dim_zero", out_of_range, "/head_dim"},
      {"heads_array", wrong_type, "/num_attention_heads"},
      {"heads_bool", wrong_type, "/num_attention_heads"},
      {"heads_missing", missing_key, "/num_attention_heads"},
      {"heads_string", wrong_type, "/num_attention_heads"},
      {"hidden_not_multiple_of_heads_without_head_dim", inconsistent, "/hidden_size"},
      {"hidden_size_huge", out_of_range, "/hidden_size"},
      {"hybrid_pattern_bad_char", unsupported, "/hybrid_override_pattern"},
      {"hybrid_pattern_not_string", wrong_type, "/hybrid_override_pattern"},
      {"hybrid_pattern_wrong_length", inconsistent, "/hybrid_override_pattern"},
      {"index_head_dim_nan", wrong_type, "/index_head_dim"},
      {"index_head_dim_negative", out_of_range, "/index_head_dim"},
      {"index_head_dim_string", wrong_type, "/index_head_dim"},
      {"index_head_dim_zero", out_of_range, "/index_head_dim"},
      {"lfm2_block_ff_dim_zero_after_adjust", out_of_range, "/block_ff_dim"},
      {"lfm2_block_ffn_dim_multiplier_string", wrong_type, "/block_ffn_dim_multiplier"},
      {"lfm2_block_multiple_of_zero", out_of_range, "/block_multiple_of"},
      {"lfm2_conv_L_cache_one", out_of_range, "/conv_L_cache"},
      {"lfm2_full_attn_idxs_duplicate", inconsistent, "/full_attn_idxs/5"},
      {"lfm2_full_attn_idxs_not_array", wrong_type, "/full_attn_idxs"},
      {"lfm2_full_attn_idxs_out_of_range", out_of_range, "/full_attn_idxs/5"},
      {"lfm2_layer_types_unknown", unsupported, "/layer_types/15"},
      {"jamba_offset_not_below_period", inconsistent, "/attn_layer_offset"},
      {"kimi_full_attn_layers_zero", out_of_range, "/linear_attn_config/full_attn_layers/0"},  // 1-based
      {"kimi_full_attn_layers_past_layers", out_of_range, "/linear_attn_config/full_attn_layers/6"},
      {"kimi_full_attn_layers_duplicate", inconsistent, "/linear_attn_config/full_attn_layers/6"},
      {"kimi_full_attn_layers_missing", missing_key, "/linear_attn_config/full_attn_layers"},
      {"kimi_kda_layers_overlap", inconsistent, "/linear_attn_config/kda_layers/0"},
      {"kimi_kda_layers_short", inconsistent, "/linear_attn_config/kda_layers"},
      {"kimi_linear_attn_config_not_object", wrong_type, "/linear_attn_config"},
      {"kimi_kda_conv_kernel_one", out_of_range, "/linear_attn_config/short_conv_kernel_size"},
      {"kimi_kda_num_heads_missing", missing_key, "/linear_attn_config/num_heads"},
      {"kv_heads_bool", wrong_type, "/num_key_value_heads"},
      {"kv_heads_exceed_heads", inconsistent, "/num_key_value_heads"},
      {"kv_heads_float", wrong_type, "/num_key_value_heads"},
      {"kv_heads_integral_float", wrong_type, "/num_key_value_heads"},
      {"kv_heads_nan", wrong_type, "/num_key_value_heads"},
      {"kv_heads_negative", out_of_range, "/num_key_value_heads"},
      {"kv_heads_negative_zero", out_of_range, "/num_key_value_heads"},
      {"kv_heads_not_dividing_heads", inconsistent, "/num_key_value_heads"},
      {"kv_heads_string", wrong_type, "/num_key_value_heads"},
      {"kv_heads_zero", out_of_range, "/num_key_value_heads"},
      {"kv_lora_rank_nan", wrong_type, "/kv_lora_rank"},
      {"kv_lora_rank_negative", out_of_range, "/kv_lora_rank"},
      {"layer_types_entry_not_string", wrong_type, "/layer_types/5"},
      {"layer_types_not_array", wrong_type, "/layer_types"},
      {"layer_types_sliding_without_window", wrong_type, "/sliding_window"},
      {"layer_types_unknown_string", unsupported, "/layer_types/3"},
      {"layer_types_wrong_length", inconsistent, "/layer_types"},
      {"layers_bare_infinity", wrong_type, "/num_hidden_layers"},
      {"layers_beyond_uint64", out_of_range, "/num_hidden_layers"},
      {"layers_float", wrong_type, "/num_hidden_layers"},
      {"layers_huge_unsupported", unsupported, "/num_hidden_layers"},
      {"layers_missing", missing_key, "/num_hidden_layers"},
      {"layers_null", wrong_type, "/num_hidden_layers"},
      {"layers_zero", out_of_range, "/num_hidden_layers"},
      {"mamba_conv_kernel_zero_groups_bool", wrong_type, "/n_groups"},
      {"mamba_n_groups_not_dividing_heads", inconsistent, "/n_groups"},
      {"mamba_ssm_state_size_missing", missing_key, "/ssm_state_size"},
      {"mamba_ssm_cache_dtype_unknown", unsupported, "/mamba_ssm_cache_dtype"},
      {"mamba_ssm_cache_dtype_not_string", wrong_type, "/mamba_ssm_cache_dtype"},
      {"max_position_embeddings_1e400", out_of_range, "/max_position_embeddings"},
      {"max_position_embeddings_minus_infinity", wrong_type, "/max_position_embeddings"},
      {"max_position_embeddings_string", wrong_type, "/max_position_embeddings"},
      {"max_window_layers_exceeds_layers", inconsistent, "/max_window_layers"},
      {"minimax_m3_disable_index_value_missing", missing_key, "/sparse_attention_config/sparse_disable_index_value"},
      {"minimax_m3_sparse_freq_short", inconsistent, "/sparse_attention_config/sparse_attention_freq"},
      {"minimax_m3_sparse_freq_value_2", out_of_range, "/sparse_attention_config/sparse_attention_freq/2"},
      {"minimax_m3_index_value_kept", unsupported, "/sparse_attention_config/sparse_disable_index_value/2"},
      {"minimax_m3_sparse_index_dim_zero", out_of_range, "/sparse_attention_config/sparse_index_dim"},
      {"minimax_m3_sparse_index_dim_missing", missing_key, "/sparse_attention_config/sparse_index_dim"},
      {"minimax_m3_sparse_config_not_object", wrong_type, "/sparse_attention_config"},
      {"minimax_m3_use_sparse_string", wrong_type, "/sparse_attention_config/use_sparse_attention"},
      {"minimax_m3_sparse_block_size_64", unsupported, "/sparse_attention_config/sparse_block_size"},
      {"minimax_m3_disable_index_value_string", wrong_type, "/sparse_attention_config/sparse_disable_index_value/0"},
      {"minimax_attn_type_list_value_2", out_of_range, "/attn_type_list/3"},
      {"minimax_attn_type_list_short", inconsistent, "/attn_type_list"},
      {"mimo_hybrid_layer_pattern_short", inconsistent, "/hybrid_layer_pattern"},
      {"mimo_hybrid_layer_pattern_string", wrong_type, "/hybrid_layer_pattern"},
      {"mimo_hybrid_layer_pattern_value_2", out_of_range, "/hybrid_layer_pattern/2"},
      {"mimo_sliding_window_size_differs", inconsistent, "/sliding_window_size"},
      {"mimo_swa_head_dim_string", wrong_type, "/swa_head_dim"},
      {"mimo_swa_kv_heads_not_dividing", inconsistent, "/swa_num_key_value_heads"},
      {"mimo_swa_kv_heads_zero", out_of_range, "/swa_num_key_value_heads"},
      {"mimo_swa_v_head_dim_huge", out_of_range, "/swa_v_head_dim"},
      {"model_type_not_string", wrong_type, "/model_type"},
      {"n_heads_in_group_not_dividing_heads", inconsistent, "/block_configs/1/attention/n_heads_in_group"},
      {"nesting_bomb", out_of_range, bomb},
      {"num_kv_shared_layers_all_layers", inconsistent, "/num_kv_shared_layers"},
      {"qk_rope_head_dim_missing_with_kv_lora_rank", missing_key, "/qk_rope_head_dim"},
      {"sliding_window_nan", wrong_type, "/sliding_window"},
      {"sliding_window_negative", out_of_range, "/sliding_window"},
      {"sliding_window_negative_unused", out_of_range, "/sliding_window"},
      {"sliding_window_pattern_zero", out_of_range, "/sliding_window_pattern"},
      {"sliding_window_zero_with_sliding_layers", out_of_range, "/sliding_window"},
      {"syntax_comment", syntax, ""},
      {"syntax_empty_file", syntax, ""},
      {"syntax_invalid_utf8", syntax, ""},
      {"syntax_nan_inside_key_position", syntax, ""},
      {"syntax_second_bom", syntax, ""},
      {"syntax_single_quotes", syntax, ""},
      {"syntax_text_after_document", syntax, ""},
      {"syntax_trailing_comma", syntax, ""},
      {"syntax_trailing_nul", syntax, ""},
      {"syntax_truncated", syntax, ""},
      {"text_config_layers_float", wrong_type, "/text_config/num_hidden_layers"},
      {"text_config_not_object", wrong_type, "/text_config"},
      {"top_level_array", wrong_type, ""},
      {"top_level_number", wrong_type, ""},
      {"unknown_model_type_without_standard_keys", missing_key, "/num_hidden_layers"},
      {"use_sliding_window_not_bool", wrong_type, "/use_sliding_window"},
      {"vocab_missing", missing_key, "/vocab_size"},
  };
  std::set<std::string> covered;
  for (const auto& row : table) {
    const fs::path path = configs_dir() / "invalid" / (std::string(row.file) + ".json");
    INFO(path.string());
    const config_error e = error_of_file(path);
    CHECK(kvsize::hf::name(e.code()) == kvsize::hf::name(row.code));
    CHECK(e.pointer() == row.pointer);
    CHECK(e.file() == path.string());
    CHECK(std::string(e.what()).rfind(path.string() + (row.pointer.empty() ? ": " : ":" + row.pointer + ": "), 0) == 0);
    covered.insert(std::string(row.file) + ".json");
  }
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(configs_dir() / "invalid")) {
    ++files;
    INFO("configs/invalid/" << entry.path().filename().string() << " needs a row in this test");
    CHECK(covered.count(entry.path().filename().string()) == 1);
  }
  CHECK(files >= 40);
  CHECK(files == table.size());
}

// A key only the weights read, malformed: the config is read (a weights-only problem never blocks the
// KV answer), the KV side stands, and weights_unknown_because names the key. Each file's KV side is
// the same as that of the file without the key (erased at its pointer), so the bad value decided nothing
// the KV cache, the state or the logits read.
TEST_CASE("parse_config: every file of configs/weights_unknown is read, the weights not counted", "[hf][invalid]") {
  struct expectation {
    const char* file;
    std::string pointer;
  };
  const std::vector<expectation> table{
      {"duplicate_key_nested_conflict", "/quantization_config/bits"},
      {"ernie4_5_moe_layer_end_index_string", "/moe_layer_end_index"},
      {"ernie4_5_moe_layer_interval_zero", "/moe_layer_interval"},
      {"ernie4_5_moe_layer_start_index_negative", "/moe_layer_start_index"},
      {"experts_per_token_exceeds_experts", "/num_experts_per_tok"},
      {"first_k_dense_replace_exceeds_layers", "/first_k_dense_replace"},
      {"hybrid_pattern_moe_without_experts", "/n_routed_experts"},
      {"mlp_only_layers_index_out_of_range", "/mlp_only_layers/1"},
      {"moe_intermediate_size_string", "/moe_intermediate_size"},
      {"moe_layer_freq_array_entry_two", "/moe_layer_freq/10"},
      {"moe_layer_freq_array_wrong_length", "/moe_layer_freq"},
      {"n_routed_experts_zero", "/n_routed_experts"},
      {"num_local_experts_missing", "/num_local_experts"},
      {"num_local_experts_nan", "/num_local_experts"},
      {"num_local_experts_zero", "/num_local_experts"},
      {"num_nextn_predict_layers_negative", "/num_nextn_predict_layers"},
      {"quantization_bits_float", "/quantization_config/bits"},
      {"quantization_config_not_object", "/quantization_config"},
      {"quantization_desc_act_string", "/quantization_config/desc_act"},
      {"quantization_group_size_float", "/quantization_config/group_size"},
      {"quantization_modules_to_not_convert_not_array", "/quantization_config/modules_to_not_convert"},
      {"quantization_weight_block_size_wrong_length", "/quantization_config/weight_block_size"},
      {"tie_word_embeddings_string", "/tie_word_embeddings"},
      {"vision_config_not_object", "/vision_config"},
      {"vision_patch_size_zero", "/vision_config/patch_size"},
      {"qwen3_5_vision_depth_zero", "/vision_config/depth"},
      {"jamba_mamba_dt_rank_string", "/mamba_dt_rank"},
      {"nemotron_h_use_conv_bias_string", "/use_conv_bias"},
      {"decilm_ffn_mult_infinity", "/block_configs/0/ffn/ffn_mult"},
      {"decilm_ffn_mult_string", "/block_configs/4/ffn/ffn_mult"},
      {"lfm2_moe_num_dense_layers_past_layers", "/num_dense_layers"},
      {"lfm2_moe_use_expert_bias_string", "/use_expert_bias"},
      {"compressed_tensors_config_groups_not_object", "/quantization_config/config_groups"},
      {"compressed_tensors_group_size_zero", "/quantization_config/config_groups/group_0/weights/group_size"},
      {"compressed_tensors_num_bits_sixteen", "/quantization_config/config_groups/group_0/weights/num_bits"},
      {"compressed_tensors_num_bits_string", "/quantization_config/config_groups/group_0/weights/num_bits"},
      {"modelopt_quant_algo_not_string", "/quantization_config/quant_algo"},
      {"modelopt_group_size_zero", "/quantization_config/config_groups/group_0/weights/group_size"},
      {"gemma4_per_layer_input_string", "/text_config/hidden_size_per_layer_input"},
      {"gemma4_double_wide_mlp_string", "/text_config/use_double_wide_mlp"},
      {"gemma3_rope_scaling_factor_string", "/text_config/rope_scaling/factor"},
      {"glm4_5_partial_rotary_factor_above_one", "/partial_rotary_factor"},
  };
  std::set<std::string> covered;
  for (const auto& row : table) {
    const fs::path path = configs_dir() / "weights_unknown" / (std::string(row.file) + ".json");
    INFO(path.string());
    const auto c = kvsize::hf::load_config(path);
    CHECK(c.weights_unknown_because.rfind(row.pointer + ": ", 0) == 0);
    CHECK(has_warning(c, row.pointer + ": "));
    CHECK(has_warning(c, "the weights are not counted"));
    std::ifstream in(path);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::string> notes;  // the reader's own document, so bare NaN / Infinity read as it reads them
    nlohmann::json j = kvsize::hf::detail::parse_json_text(text, kvsize::hf::parse_limits{}, notes);
    const nlohmann::json::json_pointer at(row.pointer);
    if (j.contains(at)) {  // a missing key (an expert count) has nothing to erase: its row compares the same
                           // file, and the tests of hf_hostile.test.cpp compare it with a valid one
      nlohmann::json& parent = j.at(at.parent_pointer());
      if (parent.is_array()) {
        parent.erase(static_cast<std::size_t>(std::stoul(at.back())));
      } else {
        parent.erase(at.back());
      }
    }
    const auto without = kvsize::hf::parse_config(j.dump());
    CHECK(kvsize::kv_token_bytes_of(c.spec) == kvsize::kv_token_bytes_of(without.spec));
    CHECK(kvsize::state_bytes_per_sequence(c.spec) == kvsize::state_bytes_per_sequence(without.spec));
    CHECK(c.spec.vocab_size == without.spec.vocab_size);
    CHECK(c.spec.layers == without.spec.layers);
    // And what the engines, the activation and the compute-buffer estimates read beside the KV rows.
    CHECK(c.spec.intermediate_size == without.spec.intermediate_size);
    CHECK(c.spec.gated_mlp == without.spec.gated_mlp);
    CHECK(c.spec.compute_dtype == without.spec.compute_dtype);
    CHECK(c.spec.weights.recurrent.kind == without.spec.weights.recurrent.kind);
    CHECK(c.quantization_method == without.quantization_method);
    for (std::uint32_t il = 0; il < c.spec.layers; ++il) {
      CHECK(c.spec.weights.layer[il].query_heads == without.spec.weights.layer[il].query_heads);
    }
    covered.insert(std::string(row.file) + ".json");
  }
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(configs_dir() / "weights_unknown")) {
    ++files;
    INFO("configs/weights_unknown/" << entry.path().filename().string() << " needs a row in this test");
    CHECK(covered.count(entry.path().filename().string()) == 1);
  }
  CHECK(files == table.size());
}

TEST_CASE("load_config: io errors name the path; inputs over the limits are refused", "[hf][io]") {
  const fs::path missing = configs_dir() / "no-such-config.json";
  const config_error e = error_of_file(missing);
  CHECK(e.code() == config_errc::io);
  CHECK(e.file() == missing.string());

  const fs::path big = fs::temp_directory_path() / "kvsize_hf_too_big.json";
  {
    std::ofstream out(big, std::ios::binary);
    out << "{\"pad\": \"";
    out << std::string((std::size_t{16} << 20U), 'x');
    out << "\"}";
  }
  const config_error too_big = error_of_file(big);
  CHECK(too_big.code() == config_errc::io);
  CHECK(std::string(too_big.what()).find("at most 16 MiB") != std::string::npos);
  fs::remove(big);

  const std::string huge((std::size_t{16} << 20U) + 1, ' ');
  CHECK(error_of(huge).code() == config_errc::out_of_range);
}

TEST_CASE("from_json: nlohmann users get the same checks through ADL", "[hf][adl]") {
  const auto j = nlohmann::json::parse(llama_with(""));
  const auto m = j.get<kvsize::model_spec>();
  CHECK(m.layers == 8);
  CHECK(m.kv_heads == 2);
  auto bad = j;
  bad["num_key_value_heads"] = -1;  // get<std::uint32_t>() would give 4294967295
  try {
    (void)bad.get<kvsize::model_spec>();
    FAIL("no config_error");
  } catch (const config_error& err) {
    CHECK(err.code() == config_errc::out_of_range);
    CHECK(err.pointer() == "/num_key_value_heads");
    CHECK(err.file() == "<json>");
  }
}
