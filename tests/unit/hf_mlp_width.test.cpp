// SPDX-License-Identifier: MIT
// kvsize/hf/mlp_width.hpp and kvsize/layer_widths.hpp: the MLP width a config gives, LFM2's
// adjusted width, the class default where the key is missing, and the widest layer's width that
// the activation peak and llama.cpp's compute buffer read.
#include <kvsize/engines/llama_cpp_compute.hpp>
#include <kvsize/hf_config.hpp>
#include <kvsize/kvsize.hpp>
#include <kvsize/workspace.hpp>

#include "hf_support.hpp"

#include <catch2/catch_test_macros.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

using kvsize::test::configs_dir;
using kvsize::test::has_warning;

namespace {

auto document(const std::string& file) -> nlohmann::json {
  std::ifstream in(configs_dir() / file);
  return nlohmann::json::parse(in);
}

auto read(const nlohmann::json& doc) -> kvsize::hf::parsed_config { return kvsize::hf::parse_config(doc.dump()); }

}  // namespace

TEST_CASE("LFM2: Lfm2MLP's adjusted width, the short-conv mixers and the tied head", "[hf][lfm2][weights]") {
  // LFM2-1.2B: block_ff_dim 12,288 → int(2 × 12,288 / 3) = 8,192 → × 1.0 → a multiple of 256: 8,192
  // (transformers models/lfm2/modeling_lfm2.py Lfm2MLP; SGLang models/lfm2.py Lfm2MLP; vLLM's the same at 1.0).
  const auto lfm2 = kvsize::hf::load_config(configs_dir() / "LiquidAI__LFM2-1.2B.config.json");
  CHECK(lfm2.spec.intermediate_size == 8'192);
  CHECK(lfm2.spec.tied_embeddings);  // Lfm2Config.__init__: tie_word_embeddings=True; the file has no key
  CHECK(lfm2.spec.weights.recurrent.kind == kvsize::recurrent_kind::short_conv);
  CHECK(lfm2.spec.weights.recurrent.head_dim == 2'048);
  CHECK(lfm2.spec.weights.recurrent.conv_kernel == 3);
  CHECK(lfm2.weights_unknown_because.empty());
  CHECK_FALSE(has_warning(lfm2, "not counted"));

  nlohmann::json doc = document("LiquidAI__LFM2-1.2B.config.json");
  SECTION("a null multiplier: int(2w/3) and no rounding") {
    doc["block_ff_dim"] = 12'000;
    doc["block_ffn_dim_multiplier"] = nullptr;
    CHECK(read(doc).spec.intermediate_size == 8'000);
  }
  SECTION("a multiplier truncates, then rounds up to block_multiple_of") {
    doc["block_ffn_dim_multiplier"] = 1.3;  // int(1.3 × 8,192) = 10,649 → 10,752 (42 × 256)
    CHECK(read(doc).spec.intermediate_size == 10'752);
    doc["block_multiple_of"] = 1'000;  // → 11,000
    CHECK(read(doc).spec.intermediate_size == 11'000);
  }
  SECTION("auto-adjust off: the width as given") {
    doc["block_auto_adjust_ff_dim"] = false;
    CHECK(read(doc).spec.intermediate_size == 12'288);
  }
  SECTION("block_ff_dim first, then intermediate_size (Lfm2Config), then 12,288") {
    doc["intermediate_size"] = 6'144;
    CHECK(read(doc).spec.intermediate_size == 8'192);
    doc.erase("block_ff_dim");
    CHECK(read(doc).spec.intermediate_size == 4'096);
    doc.erase("intermediate_size");
    const auto defaulted = read(doc);
    CHECK(defaulted.spec.intermediate_size == 8'192);
    CHECK(has_warning(defaulted, "took 12288, the default of Lfm2Config"));
  }
  SECTION("tie_embedding, read before tie_word_embeddings (Lfm2Config: kwargs.get(\"tie_embedding\", ...))") {
    const std::uint64_t tied = kvsize::parameters(read(doc).spec).total;
    doc["tie_word_embeddings"] = true;
    doc["tie_embedding"] = false;
    const auto untied = read(doc);
    CHECK_FALSE(untied.spec.tied_embeddings);
    CHECK(kvsize::parameters(untied.spec).total == tied + 65'536ULL * 2'048);  // lm_head: vocab × hidden
    doc["tie_embedding"] = nullptr;  // null: as absent, tie_word_embeddings decides
    CHECK(read(doc).spec.tied_embeddings);
    doc["tie_embedding"] = "no";  // malformed: only the weights need it, so the KV answer stands
    const auto malformed = read(doc);
    CHECK(malformed.weights_unknown_because.rfind("/tie_embedding: ", 0) == 0);
    CHECK(malformed.spec.kv_heads == 8);
  }
  SECTION("conv_bias: every projection and the conv carry a bias") {
    const std::uint64_t before = kvsize::parameters(read(doc).spec).total;
    doc["conv_bias"] = true;
    // 10 conv layers × (3 × 2,048 + 2,048 + 2,048) bias elements
    CHECK(kvsize::parameters(read(doc).spec).total == before + 10 * 5 * 2'048);
  }
}

TEST_CASE("a missing intermediate_size takes the config class's default, or leaves the width unknown", "[hf][weights]") {
  SECTION("Llama: LlamaConfig's 11,008 (what transformers, and so vLLM, would build)") {
    nlohmann::json doc = document("meta-llama__Llama-3.1-8B.config.json");
    const auto full = read(doc);
    doc.erase("intermediate_size");
    const auto c = read(doc);
    CHECK(c.spec.intermediate_size == 11'008);
    CHECK(has_warning(c, "/intermediate_size is absent: took 11008, the default of LlamaConfig"));
    CHECK(c.weights_unknown_because.empty());
    CHECK(c.mlp_width_unknown_because.empty());
    CHECK(kvsize::kv_bytes_per_token(c.spec) == kvsize::kv_bytes_per_token(full.spec));
  }
  SECTION("each family's class default (docs/research/intermediate-size-defaults.md), named in a warning") {
    struct row {
      const char* file;
      std::uint32_t width;  // the config class's __init__ / field default
      const char* source;   // family::source, as the warning names it
    };
    for (const row& r : {row{"mistralai__Mistral-7B-v0.1.config.json", 14'336, "MistralConfig"},
                         row{"Qwen__Qwen2.5-7B.config.json", 22'016, "Qwen2Config"},
                         row{"Qwen__Qwen3-8B.config.json", 22'016, "Qwen3Config"},
                         row{"Qwen__Qwen3-30B-A3B.config.json", 6'144, "Qwen3MoeConfig"},
                         row{"Qwen__Qwen3-Next-80B-A3B-Thinking.config.json", 5'632, "Qwen3NextConfig"},
                         row{"microsoft__Phi-3-mini-4k-instruct.config.json", 8'192, "Phi3Config"},
                         row{"google__gemma-2b-it.config.json", 24'576, "GemmaConfig"},
                         row{"HuggingFaceTB__SmolLM3-3B.config.json", 11'008, "SmolLM3Config"},
                         row{"baidu__ERNIE-4.5-0.3B-Base-PT.config.json", 3'072, "Ernie4_5Config"},
                         row{"baidu__ERNIE-4.5-21B-A3B-Thinking.config.json", 12'288, "Ernie4_5_MoeConfig"},
                         row{"CohereForAI__c4ai-command-r-v01.config.json", 22'528, "CohereConfig"},
                         row{"deepseek-ai__DeepSeek-R1.config.json", 18'432, "DeepseekV3Config"},
                         row{"zai-org__GLM-4.5.config.json", 10'944, "Glm4MoeConfig"},
                         row{"zai-org__GLM-5.config.json", 12'288, "GlmMoeDsaConfig"},
                         row{"XiaomiMiMo__MiMo-V2-Flash.config.json", 16'384, "MiMoV2FlashConfig"},
                         row{"ai21labs__Jamba-v0.1.config.json", 14'336, "JambaConfig"},
                         row{"nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.config.json", 21'504, "NemotronHConfig"},
                         row{"togethercomputer__RedPajama-INCITE-7B-Base.config.json", 24'576, "GPTNeoXConfig"}}) {
      INFO(r.file);
      nlohmann::json doc = document(r.file);
      const auto full = read(doc);
      REQUIRE(doc.contains("intermediate_size"));
      doc.erase("intermediate_size");
      const auto c = read(doc);
      CHECK(c.spec.intermediate_size == r.width);
      CHECK(has_warning(c, "/intermediate_size is absent: took " + std::to_string(r.width) + ", the default of " +
                               r.source));
      CHECK(c.mlp_width_unknown_because.empty());
      CHECK(kvsize::kv_bytes_per_token(c.spec) == kvsize::kv_bytes_per_token(full.spec));
    }
  }
  SECTION("GPTBigCode: a null n_inner is 4 × hidden_size (GPTBigCodeBlock), as for GPT-2") {
    nlohmann::json doc = document("openai-community__gpt2-xl.config.json");
    doc["model_type"] = "gpt_bigcode";
    doc["multi_query"] = true;
    doc["n_inner"] = nullptr;
    const auto c = read(doc);
    CHECK(c.spec.intermediate_size == 4 * 1'600);
    CHECK(has_warning(c, "took 4 × hidden_size = 6400, the width a GPTBigCodeConfig model builds"));
    CHECK(c.weights_unknown_because.empty());
  }
  SECTION("Kimi-Linear: engines disagree on the default, a dense layer needs one: width and weights unknown") {
    // KimiLinearConfig: transformers 9,216, vLLM's and SGLang's own classes 11,008; no default is taken.
    nlohmann::json doc = document("moonshotai__Kimi-Linear-48B-A3B-Instruct.config.json");
    const auto full = read(doc);
    nlohmann::json null_width = doc;
    null_width["intermediate_size"] = nullptr;
    doc.erase("intermediate_size");
    for (const auto& variant : {doc, null_width}) {
      const auto c = read(variant);
      CHECK(c.spec.intermediate_size == 0);
      CHECK(c.mlp_width_unknown_because.starts_with("/intermediate_size: expected the MLP width (layer 0 has a dense MLP)"));
      CHECK(c.weights_unknown_because == c.mlp_width_unknown_because);
      CHECK(kvsize::kv_bytes_per_token(c.spec) == kvsize::kv_bytes_per_token(full.spec));
      // The library says the same from the spec alone, and leaves llama.cpp's compute buffer out.
      CHECK(kvsize::first_layer_without_mlp_width(c.spec) == 0);
      CHECK_FALSE(kvsize::engines::llama_cpp::compute_buffer_known(c.spec));
      CHECK(kvsize::first_layer_without_mlp_width(full.spec) == full.spec.layers);
      CHECK(kvsize::engines::llama_cpp::compute_buffer_known(full.spec));
    }
  }
  SECTION("Qwen3.5-MoE: every layer's experts have their own width, so none is needed") {
    const auto c = kvsize::hf::load_config(configs_dir() / "Qwen__Qwen3.5-35B-A3B.config.json");
    CHECK(c.spec.intermediate_size == 0);
    CHECK(c.mlp_width_unknown_because.empty());
    CHECK(c.weights_unknown_because.empty());
    CHECK(kvsize::widest_mlp_width(c.spec) == 512);  // moe_intermediate_size
    CHECK(kvsize::first_layer_without_mlp_width(c.spec) == c.spec.layers);
    CHECK(kvsize::engines::llama_cpp::compute_buffer_known(c.spec));
  }
  SECTION("Mixtral: experts of intermediate_size (expert_width 0 means it) are known") {
    const auto c = kvsize::hf::load_config(configs_dir() / "mistralai__Mixtral-8x7B-v0.1.config.json");
    REQUIRE(c.spec.weights.moe.experts == 8);
    CHECK(kvsize::first_layer_without_mlp_width(c.spec) == c.spec.layers);
    CHECK(kvsize::engines::llama_cpp::compute_buffer_known(c.spec));
    kvsize::model_spec no_width = c.spec;
    no_width.intermediate_size = 0;  // neither width: layer 0's experts have none
    CHECK(kvsize::first_layer_without_mlp_width(no_width) == 0);
  }
  SECTION("a weights-only key that fails elsewhere leaves the width alone where no layer needs intermediate_size") {
    nlohmann::json doc = document("Qwen__Qwen3.5-35B-A3B.config.json");
    doc["text_config"]["tie_word_embeddings"] = "x";  // weights unknown; the experts' width is still 512
    const auto tie = read(doc);
    CHECK(tie.weights_unknown_because.starts_with("/text_config/tie_word_embeddings"));
    CHECK(tie.mlp_width_unknown_because.empty());
    doc = document("Qwen__Qwen3.5-35B-A3B.config.json");
    doc["text_config"]["moe_intermediate_size"] = "wide";  // the experts' width itself: named, not /intermediate_size
    const auto moe = read(doc);
    CHECK(moe.mlp_width_unknown_because.starts_with("/text_config/moe_intermediate_size"));
  }
  SECTION("a malformed block_configs width leaves the MLP width unknown with the weights") {
    const auto c = kvsize::hf::load_config(configs_dir() / "weights_unknown" / "decilm_ffn_mult_string.json");
    CHECK(c.mlp_width_unknown_because.starts_with("/block_configs/"));
    CHECK_FALSE(c.weights_unknown_because.empty());
  }
}

TEST_CASE("the activation peak and llama.cpp's compute buffer read the widest layer's MLP", "[workspace][hf]") {
  // Llama-3.3-Nemotron-Super-49B: intermediate_size null; block_configs' ffn_mult gives each layer's width,
  // find_multiple(int(2 × mult × 8,192 / 3), 256), the widest 28,672 (mult 5.25).
  const auto super = kvsize::hf::load_config(configs_dir() / "nvidia__Llama-3_3-Nemotron-Super-49B-v1.config.json");
  CHECK(super.spec.intermediate_size == 0);
  CHECK(super.mlp_width_unknown_because.empty());
  CHECK(kvsize::widest_mlp_width(super.spec) == 28'672);
  // MLP phase 3 × 8,192 + 3 × 28,672 = 110,592 elements a token (the attention phase, 3 × 8,192 + 64 × 256 +
  // 8 × 256 = 43,008, is smaller); it read 3 × 8,192 = 24,576 for the MLP before.
  CHECK(kvsize::activation_peak_elements(super.spec) == 110'592);
  // llama.cpp's MLP term: ubatch 512 × (2 × 8,192 + 3 × 28,672) × 4 B + the mask.
  const auto b = kvsize::engines::llama_cpp::compute_buffers_of(super.spec, 4'096, 1, 1, 512, true);
  const std::uint64_t mask = 4'096ULL * 512 * 4;
  CHECK(b.mlp.count() == 512ULL * (2 * 8'192 + 3 * 28'672) * 4 + mask);

  // A model whose intermediate_size is its widest MLP reads the same as before (Llama-3.1-8B: 14,336).
  const auto llama = kvsize::hf::load_config(configs_dir() / "meta-llama__Llama-3.1-8B.config.json");
  CHECK(kvsize::widest_mlp_width(llama.spec) == 14'336);
  CHECK(kvsize::activation_peak_elements(llama.spec) == 3 * 4'096 + 3 * 14'336);
}
