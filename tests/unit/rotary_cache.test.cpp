// SPDX-License-Identifier: MIT
// kvsize/hf/rotary_reader.hpp and engines/vllm_startup.hpp loaded_buffers: the rotary cos/sin tables vLLM loads
// with the weights, by scaling class, rotary dim and table dtype. Every figure is rows × width × element bytes, from
// vLLM's source at the tags v0.10.0 – v0.24.0: layers/rotary_embedding/__init__.py get_rope (one table per parameter
// set; rotary_dim = int(head_size × partial_rotary_factor)), and each class's _compute_cos_sin_cache:
// linear_scaling_rope.py (max × factor rows), yarn_scaling_rope.py and deepseek_scaling_rope.py (original × factor),
// dynamic_ntk_scaling_rope.py (max × factor until 0.21, max from 0.22), dynamic_ntk_alpha_rope.py (max),
// phi3_long_rope_scaled_rope.py (original + max), mrope.py (4 × rows).
#include <kvsize/engines/vllm.hpp>
#include <kvsize/hf_config.hpp>
#include <kvsize/kvsize.hpp>

#include "weights_support.hpp"

#include <catch2/catch_test_macros.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using kvsize::bytes;
using kvsize::dtype;
using kvsize::engine_options;
using kvsize::model_spec;
using namespace kvsize::test::weights_configs;

namespace {

/// configs/<name>.config.json as a JSON document, to edit.
auto document(const std::string& name) -> nlohmann::json {
  std::ifstream in(std::filesystem::path(KVSIZE_SOURCE_DIR) / "configs" / (name + ".config.json"));
  return nlohmann::json::parse(std::string(std::istreambuf_iterator<char>(in), {}));
}

/// The rotary tables' share of vLLM's loaded buffers: the buffers less those of the same model without rope.
auto rope_bytes(const model_spec& m, const engine_options& o = {}, dtype served = dtype::bf16) -> bytes {
  model_spec without = m;
  without.weights.rotary.none = true;
  return kvsize::engines::vllm::loaded_buffers(m, o, served) - kvsize::engines::vllm::loaded_buffers(without, o, served);
}

}  // namespace

TEST_CASE("rotary tables: each bundled config's, as vLLM builds them", "[weights][hf][vllm]") {
  // Gemma 3 (27B: head_dim 128; 4B: 256, Gemma3TextConfig's default): the full layers' linear factor 8 over
  // max_position_embeddings 131,072 (the class default), the sliding layers' own table at rope_local_base_freq
  // (gemma3.py Gemma3Attention): 8 × 131,072 × 128 × 2 + 131,072 × 128 × 2.
  const model_spec gemma3_27b = load("google__gemma-3-27b-it").spec;
  CHECK(gemma3_27b.weights.rotary.positions == 1'048'576);
  CHECK(rope_bytes(gemma3_27b) == bytes{301'989'888ULL});
  CHECK(rope_bytes(load("google__gemma-3-4b-it").spec) == bytes{603'979'776ULL});
  // Qwen2.5-VL-7B: mrope, 4 × 128,000 rows × 128 × 2.
  const model_spec qwen25_vl = load("Qwen__Qwen2.5-VL-7B-Instruct").spec;
  CHECK(qwen25_vl.weights.rotary.multimodal);
  CHECK(rope_bytes(qwen25_vl) == bytes{131'072'000ULL});
  // Qwen3.5-27B: interleaved mrope at partial_rotary_factor 0.25 of head_dim 256: 4 × 262,144 × 64 × 2.
  const model_spec qwen35 = load("Qwen__Qwen3.5-27B").spec;
  CHECK(qwen35.weights.rotary.rotary_dim == 64);
  CHECK(rope_bytes(qwen35) == bytes{134'217'728ULL});
  // GLM-4.5: partial_rotary_factor 0.5 of 128 (glm4_moe.py): 131,072 × 64 × 2.
  CHECK(rope_bytes(load("zai-org__GLM-4.5").spec) == bytes{16'777'216ULL});
  // MiMo-V2-Flash: int(192 × 0.334) = 64 dims; the sliding layers' swa_rope_theta makes a second table
  // (mimo_v2_flash.py MiMoV2Attention): 2 × 262,144 × 64 × 2.
  const model_spec mimo = load("XiaomiMiMo__MiMo-V2-Flash").spec;
  CHECK(mimo.weights.rotary.rotary_dim == 64);
  CHECK(rope_bytes(mimo) == bytes{67'108'864ULL});
  // gpt-oss-20b: YaRN, 4,096 × 32 = 131,072 rows × 64, float32 (gpt_oss.py: get_rope(..., dtype=torch.float32)).
  const model_spec gpt_oss = load("openai__gpt-oss-20b").spec;
  CHECK(gpt_oss.weights.rotary.float32);
  CHECK(rope_bytes(gpt_oss) == bytes{33'554'432ULL});
  // Kimi-K2 (deepseek_yarn on MLA): 4,096 × 32 rows × qk_rope_head_dim 64 × 2; DeepSeek-R1: 4,096 × 40.
  CHECK(rope_bytes(load("moonshotai__Kimi-K2-Instruct").spec) == bytes{131'072ULL * 64 * 2});
  CHECK(rope_bytes(load("deepseek-ai__DeepSeek-R1").spec) == bytes{163'840ULL * 64 * 2});
  // Hunyuan-A13B: dynamic with alpha (DynamicNTKAlphaRotaryEmbedding): max_position_embeddings rows.
  CHECK(rope_bytes(load("tencent__Hunyuan-A13B-Instruct").spec) == bytes{32'768ULL * 128 * 2});
  // Llama 3.1 (llama3 scaling keeps max rows): 131,072 × 128 × 2, as vLLM's "Model loading took" shows
  // (engines/vllm_budget.test.cpp).
  CHECK(rope_bytes(load("meta-llama__Llama-3.1-8B").spec) == bytes{33'554'432ULL});
  // Nemotron-H and Jamba have no rope (nemotron_h.py, jamba.py call no get_rope): no table.
  const model_spec nemotron = load("nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16").spec;
  CHECK(nemotron.weights.rotary.none);
  CHECK(kvsize::engines::vllm::loaded_buffers(nemotron, {}, dtype::bf16) ==
        kvsize::engines::vllm::loaded_buffers(nemotron, {}, dtype::bf16) - rope_bytes(nemotron));
  CHECK(load("ai21labs__Jamba-v0.1").spec.weights.rotary.none);
  // Kimi-Linear's MLA layers rotate nothing (kimi_linear.py: rotary_emb=None); GPT-2 has learned positions.
  CHECK(load("moonshotai__Kimi-Linear-48B-A3B-Instruct").spec.weights.rotary.none);
  CHECK(load("openai-community__gpt2-xl").spec.weights.rotary.none);
}

TEST_CASE("rotary tables: the model classes that build theirs apart", "[weights][hf][vllm]") {
  // MiniMax-M1 (rotary_dim 64 of head_dim 128, max_position_embeddings 10,240,000): MiniMaxText01ForCausalLM writes
  // max_model_len over max_position_embeddings and asks get_rope for float32 (models/minimax_text_01.py, v0.10.2 –
  // v0.23): min(10,240,000, max_model_len) × 64 × 4 B. At the model's own length (context 0) 2,621,440,000 B.
  const model_spec m1 = load("MiniMax-AI__MiniMax-M1").spec;
  CHECK(m1.weights.rotary.float32);
  CHECK(m1.weights.rotary.rows_max_model_len);
  CHECK(rope_bytes(m1, engine_options{.context = 8'192}) == bytes{8'192ULL * 64 * 4});
  CHECK(rope_bytes(m1, engine_options{.context = 0}) == bytes{2'621'440'000ULL});
  // DeepSeek-V3.2: deepseek_yarn, 4,096 × 40 = 163,840 rows × qk_rope_head_dim 64; from 0.12 the indexer's
  // indexer_rope_emb (is_neox_style true, the MLA's false) is a second table: 2 × 20,971,520 B. GLM-5 sets
  // indexer_rope_interleave, so one table (default rope, max_position_embeddings 202,752 rows).
  const model_spec v32 = load("deepseek-ai__DeepSeek-V3.2").spec;
  engine_options at_11;
  at_11.vllm.release_minor = 11;
  CHECK(rope_bytes(v32, at_11) == bytes{20'971'520ULL});
  CHECK(rope_bytes(v32) == bytes{41'943'040ULL});
  const model_spec glm5 = load("zai-org__GLM-5").spec;
  CHECK_FALSE(glm5.weights.rotary.indexer_table);
  CHECK(rope_bytes(glm5) == bytes{202'752ULL * 64 * 2});
  // Under --enforce-eager from 0.14 the rotary custom op runs and DeepseekScalingRotaryEmbedding keeps its float32
  // table (deepseek_scaling_rope.py use_flashinfer; rotary_embedding/base.py casts only otherwise); not on ROCm,
  // not before 0.14, not GLM-5's default rope.
  engine_options eager;
  eager.vllm.enforce_eager = true;
  CHECK(rope_bytes(v32, eager) == bytes{83'886'080ULL});
  CHECK(rope_bytes(load("deepseek-ai__DeepSeek-R1").spec, eager) == bytes{163'840ULL * 64 * 4});
  CHECK(rope_bytes(glm5, eager) == bytes{202'752ULL * 64 * 2});
  engine_options eager_13 = eager;
  eager_13.vllm.release_minor = 13;
  CHECK(rope_bytes(v32, eager_13) == bytes{41'943'040ULL});
  engine_options eager_rocm = eager;
  eager_rocm.vllm.rocm = true;
  CHECK(rope_bytes(v32, eager_rocm) == bytes{41'943'040ULL});
  // Step-3.5-Flash: partial_rotary_factors 0.5 on the full layers, 1.0 on the sliding ones, each its own get_rope
  // (models/step3p5.py Step3p5Attention): 262,144 × 64 × 2 + 262,144 × 128 × 2 = 96 MiB.
  const model_spec step = load("stepfun-ai__Step-3.5-Flash").spec;
  CHECK(step.weights.rotary.rotary_dim == 64);
  CHECK(step.weights.rotary.sliding_rotary_dim == 128);
  CHECK(rope_bytes(step) == bytes{100'663'296ULL});
  // Falcon's RWConfig names no length: falcon.py takes getattr(config, "max_position_embeddings", 8192) rows of
  // head_dim 64 (4,544 / 71; 8,192 / 128); with alibi, no rope at all (use_rotary = not alibi).
  CHECK(rope_bytes(load("tiiuae__falcon-7b").spec) == bytes{8'192ULL * 64 * 2});
  CHECK(rope_bytes(load("tiiuae__falcon-40b").spec) == bytes{8'192ULL * 64 * 2});
  // transformers' FalconConfig (model_type "falcon") defaults max_position_embeddings to 2,048.
  nlohmann::json falcon_hf = document("tiiuae__falcon-7b");
  falcon_hf["model_type"] = "falcon";
  CHECK(rope_bytes(kvsize::hf::parse_config(falcon_hf.dump()).spec) == bytes{2'048ULL * 64 * 2});
  nlohmann::json falcon_alibi = document("tiiuae__falcon-7b");
  falcon_alibi["alibi"] = true;
  CHECK(kvsize::hf::parse_config(falcon_alibi.dump()).spec.weights.rotary.none);
  // ChatGLM rotates half of each head (chatglm.py GLMAttention: rotary_dim head_dim // 2) over seq_length rows:
  // chatglm3-6b 8,192 × 64 × 2.
  const model_spec chatglm = load("THUDM__chatglm3-6b").spec;
  CHECK(chatglm.weights.rotary.rotary_dim == 64);
  CHECK(rope_bytes(chatglm) == bytes{8'192ULL * 64 * 2});
}

TEST_CASE("rotary tables: the scaling classes and rotary fractions a config may name", "[weights][hf][vllm]") {
  // Qwen3-30B-A3B (max_position_embeddings 40,960, head_dim 128) with the rope_scaling its card suggests for long
  // contexts: YaRN over original 32,768 × factor 4 = 131,072 rows, not 40,960.
  nlohmann::json qwen3 = document("Qwen__Qwen3-30B-A3B");
  qwen3["rope_scaling"] = {{"rope_type", "yarn"}, {"factor", 4.0}, {"original_max_position_embeddings", 32'768}};
  const model_spec yarn = kvsize::hf::parse_config(qwen3.dump()).spec;
  CHECK(yarn.weights.rotary.positions == 131'072);
  CHECK(rope_bytes(yarn) == bytes{131'072ULL * 128 * 2});
  // Without original_max_position_embeddings, transformers' default: max_position_embeddings.
  qwen3["rope_scaling"] = {{"type", "yarn"}, {"factor", 2}};
  CHECK(kvsize::hf::parse_config(qwen3.dump()).spec.weights.rotary.positions == 81'920);
  // linear: ⌈max × factor⌉ (torch.arange of a float end): 40,960 × 2.5 = 102,400; 40,960 × 1.00001 = 40,960.4096.
  qwen3["rope_scaling"] = {{"rope_type", "linear"}, {"factor", 2.5}};
  CHECK(kvsize::hf::parse_config(qwen3.dump()).spec.weights.rotary.positions == 102'400);
  qwen3["rope_scaling"] = {{"rope_type", "linear"}, {"factor", 1.00001}};
  CHECK(kvsize::hf::parse_config(qwen3.dump()).spec.weights.rotary.positions == 40'961);
  // longrope: the short (original) and long (max) caches side by side.
  qwen3["rope_scaling"] = {{"rope_type", "longrope"}, {"original_max_position_embeddings", 4'096}};
  CHECK(kvsize::hf::parse_config(qwen3.dump()).spec.weights.rotary.positions == 45'056);
  // dynamic with a factor: max × factor rows until vLLM 0.21, max from 0.22; with alpha: max.
  qwen3["rope_scaling"] = {{"rope_type", "dynamic"}, {"factor", 2.0}};
  const model_spec dynamic = kvsize::hf::parse_config(qwen3.dump()).spec;
  engine_options v021;
  v021.vllm.release_minor = 21;
  engine_options v022 = v021;
  v022.vllm.release_minor = 22;
  CHECK(rope_bytes(dynamic, v021) == bytes{81'920ULL * 128 * 2});
  CHECK(rope_bytes(dynamic, v022) == bytes{40'960ULL * 128 * 2});
  qwen3["rope_scaling"] = {{"rope_type", "dynamic"}, {"alpha", 1000.0}};
  CHECK(kvsize::hf::parse_config(qwen3.dump()).spec.weights.rotary.positions == 0);
  // transformers v5's per-layer-type rope_parameters: the full_attention entry decides.
  qwen3.erase("rope_scaling");
  qwen3["rope_parameters"] = {{"full_attention", {{"rope_type", "linear"}, {"factor", 4}}},
                              {"sliding_attention", {{"rope_type", "default"}}}};
  CHECK(kvsize::hf::parse_config(qwen3.dump()).spec.weights.rotary.positions == 163'840);
  // A top-level original_max_position_embeddings reaches the rope parameters (patch_rope_parameters): Phi-3-style
  // longrope with 4,096 original positions over 40,960.
  qwen3.erase("rope_parameters");
  qwen3["rope_scaling"] = {{"rope_type", "longrope"}};
  qwen3["original_max_position_embeddings"] = 4'096;
  CHECK(kvsize::hf::parse_config(qwen3.dump()).spec.weights.rotary.positions == 45'056);
  // mrope_section under a linear type: get_rope builds LinearScalingRotaryEmbedding, no 4 × rows.
  qwen3["rope_scaling"] = {{"rope_type", "linear"}, {"factor", 2}, {"mrope_section", {16, 24, 24}}};
  CHECK_FALSE(kvsize::hf::parse_config(qwen3.dump()).spec.weights.rotary.multimodal);
  qwen3["rope_scaling"] = {{"rope_type", "default"}, {"mrope_section", {16, 24, 24}}};
  CHECK(kvsize::hf::parse_config(qwen3.dump()).spec.weights.rotary.multimodal);
  // A rotary fraction: rotary_pct 0.25 of 128 → 32 dims; rotary_dim names them outright.
  nlohmann::json partial = document("Qwen__Qwen3-30B-A3B");
  partial["rotary_pct"] = 0.25;
  CHECK(kvsize::hf::parse_config(partial.dump()).spec.weights.rotary.rotary_dim == 32);
  partial["rope_scaling"] = {{"rope_type", "default"}, {"partial_rotary_factor", 0.5}};  // the top-level key wins
  CHECK(kvsize::hf::parse_config(partial.dump()).spec.weights.rotary.rotary_dim == 32);
  partial.erase("rope_scaling");
  partial.erase("rotary_pct");
  partial["rotary_dim"] = 64;
  CHECK(kvsize::hf::parse_config(partial.dump()).spec.weights.rotary.rotary_dim == 64);
  // position_embedding_type "nope" (GraniteMoeHybrid): no table.
  partial.erase("rotary_dim");
  partial["position_embedding_type"] = "nope";
  CHECK(kvsize::hf::parse_config(partial.dump()).spec.weights.rotary.none);
}

TEST_CASE("rotary tables: malformed rope keys leave the weights unknown, never the KV cache", "[weights][hf][hostile]") {
  const nlohmann::json base = document("Qwen__Qwen3-30B-A3B");
  const auto reference = kvsize::hf::parse_config(base.dump());
  REQUIRE(reference.weights_unknown_because.empty());
  const auto unknown_because = [&](const char* key, const nlohmann::json& value) {
    nlohmann::json doc = base;
    doc[key] = value;
    const auto parsed = kvsize::hf::parse_config(doc.dump());
    CHECK(kvsize::kv_token_bytes_of(parsed.spec) == kvsize::kv_token_bytes_of(reference.spec));
    return parsed.weights_unknown_because;
  };
  using nlohmann::json;
  CHECK(unknown_because("rope_scaling", json{{"rope_type", "linear"}, {"factor", "8"}})
            .starts_with("/rope_scaling/factor: expected a positive number"));
  CHECK(unknown_because("rope_scaling", json{{"rope_type", "linear"}, {"factor", 0}})
            .starts_with("/rope_scaling/factor: expected a number in (0, 1024]"));
  CHECK(unknown_because("rope_scaling", json{{"rope_type", "linear"}}).starts_with("/rope_scaling/factor"));
  CHECK(unknown_because("rope_scaling", json{{"rope_type", "yarn"}, {"factor", 4}, {"original_max_position_embeddings", -1}})
            .starts_with("/rope_scaling/original_max_position_embeddings"));
  CHECK(unknown_because("rope_scaling", json::array({1, 2})).starts_with("/rope_scaling: expected an object"));
  CHECK(unknown_because("rope_scaling", json{{"rope_type", 7}}).starts_with("/rope_scaling/rope_type"));
  CHECK(unknown_because("partial_rotary_factor", 1.5).starts_with("/partial_rotary_factor: expected a number in (0, 1]"));
  CHECK(unknown_because("partial_rotary_factor", "half").starts_with("/partial_rotary_factor"));
  CHECK(unknown_because("rotary_dim", 4'096).starts_with("/rotary_dim"));
  // partial_rotary_factors is Step-3.5's key (vLLM reads it in models/step3p5.py only): Qwen3 ignores it.
  CHECK(unknown_because("partial_rotary_factors", "half").empty());
  CHECK(unknown_because("partial_rotary_factors", json(std::vector<double>(48, 0.5))).empty());
  nlohmann::json qwen_with_factors = base;
  qwen_with_factors["partial_rotary_factors"] = json(std::vector<double>(48, 0.5));
  CHECK(kvsize::hf::parse_config(qwen_with_factors.dump()).spec.weights.rotary.rotary_dim == 0);
  // Step-3.5-Flash (45 layers, 3 MTP): every layer needs one fraction, each in (0, 1].
  const nlohmann::json step = document("stepfun-ai__Step-3.5-Flash");
  const auto step_unknown_because = [&](const nlohmann::json& value) {
    nlohmann::json doc = step;
    doc["partial_rotary_factors"] = value;
    return kvsize::hf::parse_config(doc.dump()).weights_unknown_because;
  };
  CHECK(step_unknown_because(json::array({0.5})).starts_with("/partial_rotary_factors: expected an array of more than 44"));
  CHECK(step_unknown_because("half").starts_with("/partial_rotary_factors"));
  CHECK(step_unknown_because(json(std::vector<double>(48, 2.0)))
            .starts_with("/partial_rotary_factors/0: expected a number in (0, 1]"));
  CHECK(unknown_because("alibi", "yes").empty());  // not a Falcon: the key is not read
  nlohmann::json falcon = document("tiiuae__falcon-7b");
  falcon["alibi"] = "yes";
  const auto falcon_parsed = kvsize::hf::parse_config(falcon.dump());
  CHECK(falcon_parsed.weights_unknown_because.starts_with("/alibi"));
  CHECK(kvsize::kv_token_bytes_of(falcon_parsed.spec) == kvsize::kv_token_bytes_of(load("tiiuae__falcon-7b").spec));
}
