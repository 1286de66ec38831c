// SPDX-License-Identifier: MIT
// kvsize/hf/weights_reader.hpp: the weights facts (norms, biases, MoE, MTP, mixers) the reader
// takes from each family's config.
#include <kvsize/engine.hpp>
#include <kvsize/hf_config.hpp>
#include <kvsize/kvsize.hpp>
#include <kvsize/weights.hpp>

#include "weights_support.hpp"

#include <catch2/catch_test_macros.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using kvsize::bytes;
using kvsize::engine_kind;
using kvsize::gguf_ftype;
using kvsize::weights_format;
using namespace kvsize::test::weights_configs;

TEST_CASE("hf: weights facts of the families", "[weights][hf]") {
  const auto gpt2 = load("openai-community__gpt2-xl").spec.weights;
  CHECK(gpt2.norm == kvsize::norm_kind::layer_norm);
  CHECK(gpt2.position_embeddings == 1'024);
  CHECK(gpt2.o_bias);
  CHECK(gpt2.mlp_bias);
  const auto falcon = load("tiiuae__falcon-7b").spec.weights;
  CHECK(falcon.parallel_block);
  CHECK(falcon.norms_per_ffn == 0);
  CHECK(load("tiiuae__falcon-40b").spec.weights.norms_per_ffn == 1);
  const auto r1 = load("deepseek-ai__DeepSeek-R1").spec.weights;
  CHECK(r1.q_lora_rank == 1'536);
  CHECK(r1.moe.first_dense_layers == 3);
  CHECK(r1.moe.shared_width == 2'048);
  CHECK(r1.moe.score_correction_bias);
  CHECK(r1.mtp_layers == 1);
  CHECK(r1.mtp_embeddings);
  const auto nano = load("nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16").spec;
  CHECK(nano.weights.recurrent.kind == kvsize::recurrent_kind::mamba2);
  CHECK(kvsize::ffn_of_layer(nano, 0) == kvsize::ffn_kind::none);  // pattern "MEMEM...": a Mamba2 block
  CHECK(kvsize::ffn_of_layer(nano, 1) == kvsize::ffn_kind::moe);   // an MoE block
  const auto next = load("Qwen__Qwen3-Next-80B-A3B-Thinking");
  CHECK(next.spec.weights.recurrent.kind == kvsize::recurrent_kind::gated_delta);
  CHECK(next.spec.weights.output_gate);
  CHECK(next.spec.weights.moe.shared_gate);
  // Qwen3.5 (text in /text_config): the same layer kinds; the MTP count from mtp_num_hidden_layers
  // (the family has no MTP default: 0 without the key); the dense 27B has no experts.
  const auto q35 = load("Qwen__Qwen3.5-35B-A3B");
  CHECK(q35.spec.weights.recurrent.kind == kvsize::recurrent_kind::gated_delta);
  CHECK(q35.spec.weights.output_gate);
  CHECK(q35.spec.weights.moe.shared_gate);
  CHECK(q35.spec.weights.mtp_layers == 1);
  const auto q27 = load("Qwen__Qwen3.5-27B").spec;
  CHECK(q27.weights.mtp_layers == 1);
  CHECK(kvsize::ffn_of_layer(q27, 0) == kvsize::ffn_kind::dense);
  CHECK(kvsize::ffn_of_layer(q35.spec, 0) == kvsize::ffn_kind::moe);
  const auto nas = load("nvidia__Llama-3_3-Nemotron-Super-49B-v1").spec;
  CHECK(kvsize::ffn_width_of_layer(nas, 0) == 14'336);  // ffn_mult 2.625: find_multiple(int(2·2.625·8192/3), 256)
  CHECK(kvsize::ffn_width_of_layer(nas, 1) == 28'672);  // ffn_mult 5.25
}

namespace {
/// configs/<name>.config.json's text.
auto config_text(const std::string& name) -> std::string {
  std::ifstream in(std::filesystem::path(KVSIZE_SOURCE_DIR) / "configs" / (name + ".config.json"));
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
/// Whether one of `c`'s warnings starts with `prefix`.
auto warns_first(const kvsize::hf::parsed_config& c, const std::string& prefix) -> bool {
  for (const auto& warning : c.warnings) {
    if (warning.rfind(prefix, 0) == 0) {
      return true;
    }
  }
  return false;
}

auto replaced(std::string text, const std::string& from, const std::string& to) -> std::string {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}
}  // namespace

TEST_CASE("hf: NemotronH's layers_block_type form (Nemotron-3 Ultra) and its latent MoE", "[weights][hf][nemotron_h]") {
  const std::string ultra_name = "nvidia__NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16";
  const auto ultra = load(ultra_name);
  // 108 layers from the list's length (the file has no num_hidden_layers), in the pattern's letters.
  CHECK(ultra.spec.layers == 108);
  const auto& moe = ultra.spec.weights.moe;
  CHECK(moe.experts == 512);
  CHECK(moe.latent_width == 2'048);  // moe_latent_size
  CHECK(moe.expert_width == 5'120);
  CHECK(moe.shared_width == 10'240);
  // Published: model.safetensors.index.json total_size 1,121,049,257,984 B = 2 B × 560,524,578,816 BF16
  // + 4 B × 25,088 F32 (49 MoE blocks' e_score_correction_bias, the MTP block's included), i.e.
  // 560,524,603,904 parameters with MTP (docs/research/param-counts.md "Nemotron-3").
  const auto p = kvsize::parameters(ultra.spec);
  CHECK(p.total == 549'308'993'536);
  CHECK(p.total + p.mtp == 560'524'603'904);

  const std::string text = config_text(ultra_name);
  // The v5 names ("full_attention", "linear_attention") are the legacy ones ("attention", "mamba").
  const auto renamed = kvsize::hf::parse_config(
      replaced(replaced(text, "\"attention\"", "\"full_attention\""), "\"mamba\"", "\"linear_attention\""));
  CHECK(renamed.spec == ultra.spec);
  // A stored num_hidden_layers that differs is not read, and says so.
  const auto stated = kvsize::hf::parse_config(replaced(text, "\"layers_block_type\"", "\"num_hidden_layers\": 88, \"layers_block_type\""));
  CHECK(stated.spec.layers == 108);
  bool warned = false;
  for (const auto& w : stated.warnings) {
    warned = warned || w.find("/num_hidden_layers = 88 is not read") != std::string::npos;
  }
  CHECK(warned);
  // Without moe_latent_size the experts work on hidden_size: 4× the expert weights.
  const auto wide = kvsize::hf::parse_config(replaced(text, "\"moe_latent_size\": 2048", "\"moe_latent_size\": null"));
  CHECK(wide.spec.weights.moe.latent_width == 0);
  CHECK(kvsize::parameters(wide.spec).total > p.total);
  // A block type NemotronH does not know names its element.
  try {
    (void)kvsize::hf::parse_config(replaced(text, "\"moe\"", "\"dense\""));
    FAIL("a \"dense\" block was accepted");
  } catch (const kvsize::hf::config_error& e) {
    CHECK(std::string(e.what()).find("/layers_block_type/1") != std::string::npos);
  }
}

TEST_CASE("hf: MiniMax-M2 (minimax_m2): Q and K normed over all heads, every layer routed", "[weights][hf][minimax]") {
  // MiniMax-M2.5's attention and MoE keys, as ai-dynamo/aiconfigurator's model_configs list them (that copy is
  // not verbatim, so it is not bundled).
  const auto c = kvsize::hf::parse_config(R"({"architectures": ["MiniMaxM2ForCausalLM"], "model_type": "minimax_m2",
    "num_hidden_layers": 62, "hidden_size": 3072, "num_attention_heads": 48, "num_key_value_heads": 8, "head_dim": 128,
    "intermediate_size": 1536, "vocab_size": 200064, "num_experts_per_tok": 8, "num_local_experts": 256,
    "max_position_embeddings": 196608, "rotary_dim": 64, "tie_word_embeddings": false, "use_qk_norm": true,
    "qk_norm_type": "per_layer", "use_routing_bias": true, "shared_intermediate_size": 0, "torch_dtype": "bfloat16"})");
  for (const auto& w : c.warnings) {
    CHECK(w.find("unknown") == std::string::npos);  // a known family, not a generic decoder
  }
  const auto& m = c.spec;
  CHECK(m.weights.qk_norm == kvsize::qk_norm_kind::full);
  CHECK(m.weights.moe.score_correction_bias);
  CHECK(kvsize::ffn_of_layer(m, 0) == kvsize::ffn_kind::moe);
  // Full attention everywhere: 62 × 8 × 128 × 2 (K, V) × 2 B.
  CHECK(kvsize::kv_bytes_per_token(m) == bytes{62 * 8 * 128 * 2 * 2});
  // By hand: embeddings and head 2 × 200,064 × 3,072 = 1,229,193,216; final norm 3,072; per layer: norms
  // 2 × 3,072, q/o 2 × 48 × 128 × 3,072, k/v 2 × 8 × 128 × 3,072 (44,040,192), q_norm 6,144 + k_norm 1,024
  // (MiniMaxM2Attention from FlexOlmoAttention), 256 experts × 3 × 3,072 × 1,536, router 256 × 3,072,
  // e_score_correction_bias 256: 62 × 3,668,718,848 + 1,229,196,288.
  const auto p = kvsize::parameters(m);
  CHECK(p.total == 228'689'764'864ULL);
  CHECK(p.active == 11'030'553'088ULL);  // top 8 of 256 experts
}

TEST_CASE("hf: Kimi-K3's latent experts are counted, and its uncounted weights are named", "[weights][hf][kimi]") {
  // Kimi-Linear-48B's config with Kimi-K3's keys spliced in (SGLang models/kimi_k3.py KimiK3MoE: the routed experts
  // run on routed_expert_hidden_size, between routed_expert_down_proj and routed_expert_up_proj).
  const std::string base = config_text("moonshotai__Kimi-Linear-48B-A3B-Instruct");
  const std::string k3_keys = R"("routed_expert_hidden_size": 1024, "latent_moe_use_norm": true, "mla_use_output_gate": true, )";
  const std::string text = replaced(base, "\"model_type\": \"kimi_linear\",", "\"model_type\": \"kimi_linear\", " + k3_keys);
  REQUIRE(text != base);
  const auto plain = kvsize::hf::parse_config(base);
  const auto k3 = kvsize::hf::parse_config(text);
  CHECK(plain.spec.weights.moe.latent_width == 0);
  REQUIRE(k3.spec.weights.moe.latent_width == 1'024);
  // The KV cache does not depend on the weights' keys.
  CHECK(kvsize::kv_bytes_per_token(k3.spec) == kvsize::kv_bytes_per_token(plain.spec));
  // Per MoE layer the experts shrink from hidden 2,304 to the 1,024 latent, and two 1,024 × 2,304 projections appear:
  // experts × 3 × expert_width × (2,304 − 1,024) fewer, 2 × 1,024 × 2,304 more.
  const auto& w = plain.spec.weights.moe;
  std::uint64_t moe_layers = 0;
  for (std::uint32_t il = 0; il < plain.spec.layers; ++il) {
    moe_layers += kvsize::ffn_of_layer(plain.spec, il) == kvsize::ffn_kind::moe ? 1U : 0U;
  }
  REQUIRE(moe_layers > 0);
  REQUIRE(plain.spec.hidden_size == 2'304);
  const std::uint64_t per_layer_less = std::uint64_t{w.experts} * 3 * w.expert_width * (2'304 - 1'024);
  const std::uint64_t per_layer_more = 2ULL * 1'024 * 2'304;
  CHECK(kvsize::parameters(k3.spec).total ==
        kvsize::parameters(plain.spec).total - moe_layers * per_layer_less + moe_layers * per_layer_more);
  bool named = false;
  for (const auto& s : k3.warnings) {
    named = named || (s.find("weights not counted yet: /latent_moe_use_norm") != std::string::npos &&
                      s.find("/mla_use_output_gate") != std::string::npos);
  }
  CHECK(named);
}

TEST_CASE("hf: SmolLM3 (smollm3): tied by default, NoPE layers keep K and V, windows only on NoPE layers", "[weights][hf][smollm3]") {
  const std::string name = "HuggingFaceTB__SmolLM3-3B";
  const auto c = load(name);
  for (const auto& w : c.warnings) {
    CHECK(w.find("unknown") == std::string::npos);  // a known family, not a generic decoder
  }
  // The file has no tie_word_embeddings; SmolLM3Config's default is true (a generic decoder's too, but Llama's is not).
  CHECK(c.spec.tied_embeddings);
  // By hand: embeddings 128,256 × 2,048 = 262,668,288 (tied: no head of its own); per layer q/o 2 × 2,048²
  // (8,388,608), k/v 2 × 512 × 2,048 (2,097,152), MLP 3 × 2,048 × 11,008 (67,633,152), 2 norms (4,096) =
  // 78,123,008; × 36 = 2,812,428,288; final norm 2,048. Total 3,075,098,624, the "total_parameters" of the
  // checkpoint's model.safetensors.index.json (https://huggingface.co/HuggingFaceTB/SmolLM3-3B, as its git mirror
  // fetchwiki/HuggingFaceTB-SmolLM3-3B holds it: total_size 6,150,197,248 = 2 B each).
  CHECK(kvsize::parameters(c.spec).total == 3'075'098'624);

  // Without layer_types, SmolLM3Config places a window only with use_sliding_window and only on NoPE layers
  // (no_rope_layers[i] == 0): here 3, 7, ..., 35.
  const std::string text = config_text(name);
  const std::string no_types = replaced(replaced(text, "\"layer_types\"", "\"unused_layer_types\""),
                                        "\"use_sliding_window\": false", "\"use_sliding_window\": true");
  const std::string windowed = replaced(no_types, "\"sliding_window\": null", "\"sliding_window\": 4096");
  const auto w = kvsize::hf::parse_config(windowed);
  for (std::uint32_t il = 0; il < 36; ++il) {
    CHECK(kvsize::kind_of_layer(w.spec, il) == ((il + 1) % 4 == 0 ? kvsize::layer_kind::sliding : kvsize::layer_kind::full));
  }
  CHECK(w.spec.sliding_window == 4'096);
  // The derived pattern (no no_rope_layers) is the same, from no_rope_layer_interval.
  const auto derived = kvsize::hf::parse_config(replaced(windowed, "\"no_rope_layers\"", "\"unused_no_rope_layers\""));
  CHECK(derived.spec == w.spec);
  // use_sliding_window true but sliding_window null: no window.
  const auto none = kvsize::hf::parse_config(no_types);
  CHECK(kvsize::kv_bytes_per_token(none.spec) == kvsize::kv_bytes_per_token(c.spec));
  for (std::uint32_t il = 0; il < 36; ++il) {
    CHECK(kvsize::kind_of_layer(none.spec, il) == kvsize::layer_kind::full);
  }
}

TEST_CASE("hf: Phi-4-mini (phi3): a window above the context, and each engine's cache", "[weights][hf][phi3]") {
  const auto c = load("microsoft__Phi-4-mini-instruct");
  const kvsize::model_spec& m = c.spec;
  // By hand: embeddings 200,064 × 3,072 = 614,596,608 (tied); per layer qkv_proj (3,072 + 2 × 1,024) × 3,072 =
  // 15,728,640, o_proj 3,072² = 9,437,184, gate_up_proj 2 × 8,192 × 3,072 = 50,331,648, down_proj 25,165,824, two
  // norms 6,144: 100,669,440; × 32 = 3,221,422,080; final norm 3,072. Total 3,836,021,760 = the checkpoint index's
  // total_size 7,672,043,520 / 2 B (configs/SOURCES.md).
  CHECK(m.tied_embeddings);
  CHECK(kvsize::parameters(m).total == 3'836'021'760);
  // sliding_window 262,144 on every layer (Phi3Attention), above the 131,072 positions: no layer ever drops a token.
  CHECK(m.sliding_window == 262'144);
  CHECK(kvsize::count_layers(m, kvsize::layer_kind::sliding) == 32);
  // One sequence of the full 131,072 tokens, 32 × 8 × 128 × 2 × 2 B = 131,072 B a token: 17,179,869,184 B wherever
  // the window is a window. vLLM serves Phi3ForCausalLM with models/llama.py, whose layers take
  // cache_config.sliding_window (no layer_types: layers/attention/attention.py Attention.__init__), so its
  // SlidingWindowSpec.max_memory_usage_bytes reserves cdiv(min(W − 1 + T, max_model_len), 16) + 1 blocks: one more
  // block of 16 tokens, 2,097,152 B. SGLang, llama.cpp, TensorRT-LLM and transformers keep every token (no window
  // binds below 262,144).
  kvsize::engine_options o;
  o.context = 131'072;
  for (const auto engine : {engine_kind::exact, engine_kind::transformers, engine_kind::sglang, engine_kind::llama_cpp,
                            engine_kind::trtllm}) {
    INFO(kvsize::name(engine));
    CHECK(kvsize::size_cache(m, engine, o).kv_bytes_per_sequence == bytes{17'179'869'184});
  }
  CHECK(kvsize::size_cache(m, engine_kind::vllm, o).kv_bytes_per_sequence == bytes{17'179'869'184 + 2'097'152});
}

TEST_CASE("hf: MiniMax-M3 (minimax_m3): dense_intermediate_size, moe_layer_freq flags, the sparse indexer", "[weights][hf][minimax_m3]") {
  const std::string name = "MiniMaxAI__MiniMax-M3";
  const auto c = load(name);
  const auto& w = c.spec.weights;
  CHECK(w.qk_norm == kvsize::qk_norm_kind::head);  // qk_norm_type "per_head"
  CHECK(w.moe.experts == 128);                       // num_local_experts
  CHECK(w.moe.experts_per_token == 4);
  CHECK(w.moe.expert_width == 3'072);
  CHECK(w.moe.shared_width == 3'072);  // shared_intermediate_size × n_shared_experts 1
  CHECK(w.moe.score_correction_bias);  // use_routing_bias
  CHECK(w.sparse_index_heads == 4);    // sparse_num_index_heads
  CHECK(w.mtp_layers == 0);            // num_mtp_modules / num_nextn_predict_layers: named in a warning
  for (std::uint32_t il = 0; il < 60; ++il) {
    CAPTURE(il);
    CHECK(kvsize::ffn_of_layer(c.spec, il) == (il < 3 ? kvsize::ffn_kind::dense : kvsize::ffn_kind::moe));
    CHECK(kvsize::kind_of_layer(c.spec, il) == (il < 3 ? kvsize::layer_kind::full : kvsize::layer_kind::indexed));
  }
  CHECK(w.layer[0].ffn_width == 12'288);  // dense_intermediate_size, not intermediate_size (3,072)
  // By hand (vLLM models/minimax_m3/nvidia/model.py @90215894): embeddings and untied head 2 × 200,064 × 6,144 =
  // 2,458,386,432, final norm 6,144, layer norms 60 × 12,288 = 737,280. Attention: qkv_proj (64 + 4 + 4) × 128 =
  // 9,216 rows and o_proj 8,192 columns of 6,144, Q/K norms 256: 106,955,008 on the 3 dense layers (320,865,024);
  // the 57 sparse layers add index_q (4 × 128) and index_k (128) rows (qkv_proj 9,856 × 6,144) and two norms of
  // 128: 110,887,424 each (6,320,583,168). Dense MLP (layers 0-2) 3 × 3 × 12,288 × 6,144 = 679,477,248. MoE (57):
  // experts 128 × 3 × 3,072 × 6,144 = 7,247,757,312, shared expert 56,623,104, router 786,432 and its bias 128:
  // 7,305,166,976 a layer, 416,394,517,632. Total 426,174,572,928 (the model card's "~428B" is the vision-language
  // checkpoint). Active: 4 of 128 experts, 124 × 56,623,104 = 7,021,264,896 a layer fewer: 25,962,473,856.
  const auto p = kvsize::parameters(c.spec);
  CHECK(p.total == 426'174'572'928);
  CHECK(p.active == 25'962'473'856);
  CHECK(warns_first(c, "/num_nextn_predict_layers: the MTP layers' weights are not counted"));
  // Without sparse attention no layer keeps an index key, and no indexer weights are counted: 57 × 3,932,416 fewer.
  const auto dense = kvsize::hf::parse_config(replaced(config_text(name), "\"use_sparse_attention\": true", "\"use_sparse_attention\": false"));
  CHECK(kvsize::count_layers(dense.spec, kvsize::layer_kind::indexed) == 0);
  CHECK(kvsize::kv_bytes_per_token(dense.spec) == bytes{122'880});
  CHECK(kvsize::parameters(dense.spec).total == 426'174'572'928 - 57ULL * 3'932'416);
  // An output gate, false in the published config, is a weight kvsize does not count: named, never a refusal.
  const auto gated = kvsize::hf::parse_config(replaced(config_text(name), "\"attention_output_gate\": false", "\"attention_output_gate\": true"));
  CHECK(warns_first(gated, "weights not counted yet: /attention_output_gate"));
  CHECK(kvsize::kv_bytes_per_token(gated.spec) == bytes{137'472});
}

TEST_CASE("hf: Step-3.5-Flash (step3p5): 96 query heads on sliding layers, a head gate, moe_layers_enum", "[weights][hf][step3p5]") {
  const std::string name = "stepfun-ai__Step-3.5-Flash";
  const auto c = load(name);
  const auto& w = c.spec.weights;
  CHECK(c.spec.kv_heads == 8);  // num_attention_groups
  CHECK(w.head_gate);           // use_head_wise_attn_gate: g_proj, hidden → heads
  CHECK(w.qk_norm == kvsize::qk_norm_kind::head);
  CHECK(w.moe.experts == 288);  // moe_num_experts
  CHECK(w.moe.experts_per_token == 8);  // moe_top_k
  CHECK(w.moe.expert_width == 1'280);
  CHECK(w.moe.shared_width == 1'280);  // share_expert_dim
  CHECK(w.moe.score_correction_bias);  // router_bias, moe_num_experts float32
  CHECK(w.mtp_layers == 0);             // the 3 MTP layers are named in a warning, not counted
  for (std::uint32_t il = 0; il < 45; ++il) {
    CAPTURE(il);
    CHECK(w.layer[il].query_heads == (il % 4 == 0 ? 0U : 96U));  // attention_other_setting on sliding layers
    CHECK(kvsize::ffn_of_layer(c.spec, il) == (il < 3 ? kvsize::ffn_kind::dense : kvsize::ffn_kind::moe));
  }
  // By hand (vLLM models/step3p5.py): embeddings and untied head 2 × 128,896 × 4,096 = 1,055,916,032, final norm
  // 4,096. Attention with H query heads: Q and O 2 × H × 128 × 4,096, K and V 2 × 1,024 × 4,096 (8,388,608),
  // Q/K norms 256, g_proj H × 4,096: H = 64 (12 full layers) 75,759,872, H = 96 (33 sliding) 109,445,376 →
  // 909,118,464 + 3,611,697,408. Layer norms 45 × 8,192 = 368,640. Dense MLP (layers 0-2) 3 × 3 × 11,264 ×
  // 4,096 = 415,236,096. MoE (layers 3-44, 42): experts 288 × 3 × 1,280 × 4,096 (4,529,848,320), router 288 ×
  // 4,096 (1,179,648), router_bias 288, share_expert 3 × 1,280 × 4,096 (15,728,640) = 4,546,756,896 a layer,
  // 190,963,789,632. Total 196,956,130,368. The model card (huggingface.co/stepfun-ai/Step-3.5-Flash) gives
  // 196.81B ("196B backbone + 0.81B head"); kvsize's backbone without embeddings and head is 195.90B.
  // Active: 8 of 288 experts, 142,737,696 a MoE layer (5,994,983,232 for 42): 11,987,323,968 (the card: ~11B).
  const auto p = kvsize::parameters(c.spec);
  CHECK(p.total == 196'956'130'368);
  CHECK(p.active == 11'987'323'968);
  CHECK(warns_first(c, "/num_nextn_predict_layers: the MTP layers' weights are not counted"));
  const std::string text = config_text(name);
  // moe_layers_enum decides: without it vLLM makes every layer but 0 MoE; a string it cannot read (vLLM's int()
  // raises on "3,,") leaves the weights unknown (weights only), the KV answer standing.
  const auto by_default = kvsize::hf::parse_config(replaced(text, "\"moe_layers_enum\"", "\"unused_moe_layers_enum\""));
  CHECK(kvsize::ffn_of_layer(by_default.spec, 0) == kvsize::ffn_kind::dense);
  CHECK(kvsize::ffn_of_layer(by_default.spec, 1) == kvsize::ffn_kind::moe);
  const auto unreadable = kvsize::hf::parse_config(replaced(text, "\"moe_layers_enum\": \"3,", "\"moe_layers_enum\": \"3,,"));
  CHECK(unreadable.weights_unknown_because.starts_with("/moe_layers_enum: expected a string of comma-separated layer indices"));
  CHECK(unreadable.spec.kv_heads == c.spec.kv_heads);  // the KV answer stands
  CHECK(kvsize::kv_token_bytes_of(unreadable.spec) == kvsize::kv_token_bytes_of(c.spec));
  // The head gate's switch: a value that is not a bool leaves the weights unknown too.
  const auto gate = kvsize::hf::parse_config(
      replaced(text, "\"use_head_wise_attn_gate\": true", "\"use_head_wise_attn_gate\": \"yes\""));
  CHECK(gate.weights_unknown_because.starts_with("/use_head_wise_attn_gate: expected true or false"));
  CHECK(kvsize::kv_token_bytes_of(gate.spec) == kvsize::kv_token_bytes_of(c.spec));
  // The checkpoint's layer_types lists the 3 MTP layers too (48 entries); vLLM's Step3p5Config keeps the first 45,
  // and a config saved from it has 45: both read the same. Fewer than 45 is refused.
  auto json = nlohmann::json::parse(text);
  auto& listed = json["layer_types"];
  listed.erase(listed.begin() + 45, listed.end());
  CHECK(kvsize::hf::parse_config(json.dump()).spec == c.spec);
  json["layer_types"].erase(44);  // one index
  try {
    (void)kvsize::hf::parse_config(json.dump());
    FAIL("44 layer_types entries were accepted for 45 layers");
  } catch (const kvsize::hf::config_error& e) {
    CHECK(std::string(e.what()).find("/layer_types: expected 45 entries") != std::string::npos);
  }
  // Without layer_types vLLM's Step3p5Attention slides the even layers (layer_idx % 2 == 0), and the other
  // setting does not apply (it needs layer_types): 23 sliding layers, 22 full.
  json = nlohmann::json::parse(text);
  json.erase("layer_types");
  const auto alternating = kvsize::hf::parse_config(json.dump()).spec;
  CHECK(kvsize::kind_of_layer(alternating, 0) == kvsize::layer_kind::sliding);
  CHECK(kvsize::kind_of_layer(alternating, 1) == kvsize::layer_kind::full);
  CHECK(kvsize::count_layers(alternating, kvsize::layer_kind::sliding) == 23);
  CHECK(alternating.weights.layer[0].query_heads == 0);
  // The other setting's null or 0 values are the top-level keys' (vLLM: "x if x else config.x").
  json = nlohmann::json::parse(text);
  json["attention_other_setting"]["num_attention_heads"] = nullptr;
  json["attention_other_setting"]["num_attention_groups"] = 0;
  const auto top_level = kvsize::hf::parse_config(json.dump()).spec;
  CHECK(top_level.weights.layer[1].query_heads == 0);
  CHECK(kvsize::kv_heads_of_layer(top_level, 1) == 8);
  // moe_layers_enum as Python reads it: whitespace around an index, an index past the layers (ignored).
  json = nlohmann::json::parse(text);
  json["moe_layers_enum"] = " 3,\t4 ,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,"
                            "36,37,38,39,40,41,42,43,44,45,99999999999\n";
  CHECK(kvsize::parameters(kvsize::hf::parse_config(json.dump()).spec).total == p.total);
  // The other setting's KV heads must divide its query heads.
  try {
    (void)kvsize::hf::parse_config(replaced(text, "\"num_attention_groups\": 8,\n    \"head_dim\"", "\"num_attention_groups\": 7,\n    \"head_dim\""));
    FAIL("7 KV groups of 96 heads were accepted");
  } catch (const kvsize::hf::config_error& e) {
    CHECK(std::string(e.what()).find("/attention_other_setting/num_attention_groups") != std::string::npos);
  }
}

TEST_CASE("hf: Hunyuan-A13B (hunyuan): per-layer MoE arrays, a shared MLP, cross-layer KV refused", "[weights][hf][hunyuan]") {
  const std::string name = "tencent__Hunyuan-A13B-Instruct";
  const auto c = load(name);
  for (const auto& w : c.warnings) {
    CHECK(w.find("unknown") == std::string::npos);
  }
  const auto& moe = c.spec.weights.moe;
  CHECK(c.spec.head_dim == 128);             // attention_head_dim
  CHECK(moe.experts == 64);                  // num_experts
  CHECK(moe.experts_per_token == 8);         // moe_topk, 8 on every layer
  CHECK(moe.expert_width == 3'072);          // moe_intermediate_size, 3,072 on every layer
  CHECK(moe.shared_width == 3'072);          // use_mixed_mlp_moe: intermediate_size × num_shared_expert (1)
  CHECK(c.spec.weights.qk_norm == kvsize::qk_norm_kind::head);  // use_qk_norm: query_layernorm / key_layernorm
  // By hand (vLLM models/hunyuan_v1.py): embeddings 128,167 × 4,096 = 524,972,032 (tied); per layer q/o
  // 2 × 4,096² (33,554,432), k/v 2 × 1,024 × 4,096 (8,388,608), Q/K norms 2 × 128, 2 norms 8,192, router
  // 64 × 4,096 (262,144), experts 64 × 3 × 4,096 × 3,072 (2,415,919,104), shared MLP 3 × 4,096 × 3,072
  // (37,748,736) = 2,495,881,472; × 32 = 79,868,207,104; final norm 4,096. Total 80,393,183,232 (the README of
  // Tencent-Hunyuan/Hunyuan-A13B: "a total of 80 billion parameters with 13 billion active"). Active: 8 of 64
  // experts, 381,952,256 a layer: 12,222,472,192 + 524,976,128 = 12,747,448,320.
  const auto p = kvsize::parameters(c.spec);
  CHECK(p.total == 80'393'183'232);
  CHECK(p.active == 12'747'448'320);

  const std::string text = config_text(name);
  // Per-layer values that differ: counted at the largest, with a warning that names the key.
  const auto uneven = kvsize::hf::parse_config(replaced(text, "\"moe_topk\": [\n    8,", "\"moe_topk\": [\n    2,"));
  CHECK(uneven.spec.weights.moe.experts_per_token == 8);
  bool warned = false;
  for (const auto& w : uneven.warnings) {
    warned = warned || (w.find("/moe_topk differs between layers (2 to 8)") != std::string::npos &&
                        w.find("upper bound") != std::string::npos);
  }
  CHECK(warned);
  // An array of the wrong length names the key, and leaves the weights uncounted (the KV stands).
  const auto short_topk = kvsize::hf::parse_config(replaced(text, "\"moe_topk\": [\n    8,", "\"moe_topk\": [\n"));
  CHECK(short_topk.weights_unknown_because.starts_with("/moe_topk: expected one entry per layer (32 layers), got 31"));
  CHECK(kvsize::kv_bytes_per_token(short_topk.spec) == kvsize::kv_bytes_per_token(c.spec));
  // Without use_mixed_mlp_moe there is no shared MLP.
  const auto unshared = kvsize::hf::parse_config(replaced(text, "\"use_mixed_mlp_moe\": true", "\"use_mixed_mlp_moe\": false"));
  CHECK(unshared.spec.weights.moe.shared_width == 0);
  CHECK(kvsize::parameters(unshared.spec).total == p.total - 32ULL * 37'748'736);
  // use_cla with a share factor of 1 shares nothing (vLLM _get_cla_factor; layer_id % 1 is 0): sized as it is.
  const auto factor_one = kvsize::hf::parse_config(
      replaced(replaced(text, "\"use_cla\": false", "\"use_cla\": true"), "\"cla_share_factor\": 2", "\"cla_share_factor\": 1"));
  CHECK(factor_one.spec == c.spec);
  // Per-layer MoE arrays are HunYuan's: another family's array is still a type error at its key, one
  // that leaves the weights uncounted (the KV cache does not read it).
  const auto qwen_array = kvsize::hf::parse_config(replaced(
      config_text("Qwen__Qwen3-30B-A3B"), "\"moe_intermediate_size\": 768", "\"moe_intermediate_size\": [768]"));
  CHECK(qwen_array.weights_unknown_because.starts_with("/moe_intermediate_size: expected a positive integer"));
  // Cross-layer attention (a share factor of 2) is refused at its key, not sized.
  try {
    (void)kvsize::hf::parse_config(replaced(text, "\"use_cla\": false", "\"use_cla\": true"));
    FAIL("use_cla true was accepted");
  } catch (const kvsize::hf::config_error& e) {
    CHECK(e.code() == kvsize::hf::config_errc::unsupported);
    CHECK(e.pointer() == "/use_cla");
  }
}

TEST_CASE("hf: ERNIE 4.5 (ernie4_5, ernie4_5_moe): moe_* keys, a dense first layer, tied embeddings",
          "[weights][hf][ernie]") {
  const auto moe = load("baidu__ERNIE-4.5-21B-A3B-Thinking");
  CHECK(moe.warnings.empty());
  const auto& e = moe.spec.weights.moe;
  CHECK(e.experts == 64);                 // moe_num_experts
  CHECK(e.experts_per_token == 6);        // moe_k
  CHECK(e.expert_width == 1'536);         // moe_intermediate_size
  CHECK(e.shared_width == 3'072);         // moe_num_shared_experts 2 × 1,536, one MLP (vLLM Ernie4_5_MoeMoE)
  CHECK(e.score_correction_bias);         // Ernie4_5_MoeStatics.e_score_correction_bias
  CHECK(kvsize::ffn_of_layer(moe.spec, 0) == kvsize::ffn_kind::dense);  // moe_layer_start_index 1
  CHECK(kvsize::ffn_of_layer(moe.spec, 1) == kvsize::ffn_kind::moe);
  CHECK(kvsize::ffn_of_layer(moe.spec, 27) == kvsize::ffn_kind::moe);  // no moe_layer_end_index: the last layer
  // By hand (transformers modeling_ernie4_5_moe.py, vLLM models/ernie45_moe.py): embeddings 103,424 × 2,560 =
  // 264,765,440 (tied); per layer q/o 2 × 2,560² (13,107,200), k/v 2 × 512 × 2,560 (2,621,440), 2 norms 5,120:
  // 15,733,760 × 28 = 440,545,280; layer 0's MLP 3 × 2,560 × 12,288 = 94,371,840; layers 1-27: experts 64 × 3 ×
  // 2,560 × 1,536 (754,974,720), shared 3 × 2,560 × 3,072 (23,592,960), gate 64 × 2,560 (163,840), bias 64:
  // 778,731,584 × 27 = 21,025,752,768; final norm 2,560. Total 21,825,437,888: the Hub's safetensors total
  // (F32 4,425,408 + BF16 21,821,012,480; docs/research/param-counts.md). Active: 6 of 64 experts,
  // 94,535,744 a MoE layer: 2,552,465,088 + 440,545,280 + 94,371,840 + 264,765,440 + 2,560 = 3,352,150,208.
  const auto p = kvsize::parameters(moe.spec);
  CHECK(p.total == 21'825'437'888);
  CHECK(p.active == 3'352'150'208);
  // Bytes as published: the Hub counts F32 4,425,408 and BF16 21,821,012,480 elements (the record above). The F32
  // ones are the 27 routers (64 × 2,560) and their e_score_correction_bias (64): 27 × 163,904 = 4,425,408
  // (Ernie4_5_MoeForCausalLM._keep_in_fp32_modules_strict). 4 × 4,425,408 + 2 × 21,821,012,480 = 43,659,726,592.
  CHECK(e.router_f32);
  CHECK(kvsize::weights_bytes(moe.spec, kvsize::published_weights(kvsize::dtype::bf16)) == kvsize::bytes{43'659'726'592});
  // The what-if "every tensor in bf16" stays 2 B an element; FP8 keeps the routers float32 beside the bf16 rest:
  // 27 × 163,840 × 4 B, where 2 B would give 8,847,360 B less.
  CHECK(kvsize::weights_bytes(moe.spec, kvsize::uniform_weights(kvsize::dtype::bf16)) == kvsize::bytes{2 * p.total});
  kvsize::model_spec bf16_router = moe.spec;
  bf16_router.weights.moe.router_f32 = false;
  CHECK(kvsize::weights_bytes(moe.spec, kvsize::fp8_weights()) -
            kvsize::weights_bytes(bf16_router, kvsize::fp8_weights()) ==
        kvsize::bytes{27ULL * 163'840 * 2});
  // bitsandbytes packs the routers of other models (every nn.Linear but lm_head), not ERNIE's: transformers leaves
  // the modules of _keep_in_fp32_modules_strict unconverted (quantizers/base.py get_modules_to_not_convert), so the
  // gate stays float32, 4 B an element, where a bf16 router would be packed.
  const auto bnb = kvsize::bnb_4bit_weights();
  const auto packed_router = kvsize::weights_bytes_detail(bf16_router, bnb);
  const auto f32_router = kvsize::weights_bytes_detail(moe.spec, bnb);
  CHECK(f32_router.unquantized - packed_router.unquantized == kvsize::bytes{27ULL * 163'840 * 4});
  CHECK(packed_router.quantized - f32_router.quantized == kvsize::bytes{27ULL * 163'840 / 2});
  // The range keys as Ernie4_5_MoeConfig reads them: an end index and an interval move the MoE layers.
  const std::string text = config_text("baidu__ERNIE-4.5-21B-A3B-Thinking");
  const auto ranged = kvsize::hf::parse_config(
      replaced(text, "\"moe_layer_interval\": 1,", "\"moe_layer_end_index\": 20,\n    \"moe_layer_interval\": 2,"));
  for (std::uint32_t il = 0; il < 28; ++il) {
    INFO(il);
    const bool moe_layer = il >= 1 && il <= 20 && (il + 1) % 2 == 0;
    CHECK((kvsize::ffn_of_layer(ranged.spec, il) == kvsize::ffn_kind::moe) == moe_layer);
  }
  const auto last = kvsize::hf::parse_config(
      replaced(text, "\"moe_layer_interval\": 1,", "\"moe_layer_end_index\": -1,\n    \"moe_layer_interval\": 1,"));
  CHECK(last.spec == moe.spec);  // -1: the last layer, Ernie4_5_MoeConfig's default
  // The dense ERNIE: head_dim 128 from its key (1,024 / 16 would be 64). By hand: embeddings 103,424 × 1,024 =
  // 105,906,176 (tied); per layer q/o 2 × 1,024 × 2,048 (4,194,304), k/v 2 × 256 × 1,024 (524,288), MLP 3 × 1,024
  // × 3,072 (9,437,184), 2 norms 2,048: 14,157,824 × 18 = 254,840,832; final norm 1,024. Total 360,748,032 (the
  // model card's "0.36B").
  const auto dense = load("baidu__ERNIE-4.5-0.3B-Base-PT");
  CHECK(dense.spec.head_dim == 128);
  CHECK(kvsize::parameters(dense.spec).total == 360'748'032);
  // use_bias true (false in both published configs) gives every Linear but the dense LM head a bias, which
  // kvsize does not count yet: a warning names the key rather than a count that silently leaves them out.
  const auto biased = kvsize::hf::parse_config(replaced(config_text("baidu__ERNIE-4.5-0.3B-Base-PT"),
                                                        "\"use_bias\": false", "\"use_bias\": true"));
  CHECK(std::any_of(biased.warnings.begin(), biased.warnings.end(), [](const std::string& w) {
    return w.find("weights not counted yet: /use_bias") != std::string::npos;
  }));
  CHECK(std::none_of(dense.warnings.begin(), dense.warnings.end(), [](const std::string& w) {
    return w.find("/use_bias") != std::string::npos;
  }));
}

TEST_CASE("hf: LFM2-MoE (lfm2_moe): LFM2's layers, leading dense MLPs, experts with a float32 expert_bias",
          "[weights][hf][lfm2]") {
  // Not a published file (no verbatim LFM2-8B-A1B config.json is in a public repository: docs/research/lfm2-moe.md
  // §4): Lfm2MoeConfig's defaults (hidden 2,048, 32 heads, 8 KV heads, intermediate 7,168, moe_intermediate 1,792,
  // 32 experts, top 4, conv_L_cache 3, vocab 65,536, tied) with LFM2-8B-A1B's 24 layers and its attention layers
  // 2, 6, 10, 14, 18, 21 (§1, §4).
  nlohmann::json doc = {{"architectures", {"Lfm2MoeForCausalLM"}}, {"model_type", "lfm2_moe"},
                        {"hidden_size", 2'048}, {"num_attention_heads", 32}, {"num_key_value_heads", 8},
                        {"intermediate_size", 7'168}, {"moe_intermediate_size", 1'792}, {"num_experts", 32},
                        {"num_experts_per_tok", 4}, {"num_dense_layers", 2}, {"use_expert_bias", true},
                        {"conv_L_cache", 3}, {"conv_bias", false}, {"vocab_size", 65'536},
                        {"max_position_embeddings", 128'000}, {"num_hidden_layers", 24}, {"dtype", "bfloat16"},
                        {"tie_word_embeddings", true}};
  nlohmann::json types = nlohmann::json::array();
  for (int il = 0; il < 24; ++il) {
    const bool attention = il == 2 || il == 6 || il == 10 || il == 14 || il == 18 || il == 21;
    types.push_back(attention ? "full_attention" : "conv");
  }
  doc["layer_types"] = types;
  const auto c = kvsize::hf::parse_config(doc.dump());
  CHECK(c.warnings.empty());
  const auto& e = c.spec.weights.moe;
  CHECK(e.experts == 32);
  CHECK(e.experts_per_token == 4);
  CHECK(e.expert_width == 1'792);
  CHECK(e.first_dense_layers == 2);  // num_dense_layers
  CHECK(e.score_correction_bias);    // expert_bias, a float32 buffer
  CHECK(c.spec.intermediate_size == 7'168);  // no Lfm2MLP adjustment
  CHECK(kvsize::ffn_of_layer(c.spec, 1) == kvsize::ffn_kind::dense);
  CHECK(kvsize::ffn_of_layer(c.spec, 2) == kvsize::ffn_kind::moe);
  // By hand (transformers modeling_lfm2_moe.py; vLLM models/lfm2_moe.py): embeddings 65,536 × 2,048 = 134,217,728
  // (tied); 6 attention layers × (q, o 2 × 2,048² + k, v 2 × 512 × 2,048 + q/k norms 2 × 64) = 6 × 10,485,888;
  // 18 conv layers × (in_proj 3 × 2,048² + conv 2,048 × 3 + out_proj 2,048²) = 18 × 16,783,360; 24 × 2 norms of
  // 2,048; layers 0-1: 3 × 2,048 × 7,168 = 44,040,192 each; layers 2-23: router 32 × 2,048 + experts 32 × 3 ×
  // 2,048 × 1,792 + expert_bias 32 = 352,387,104 each; embedding_norm 2,048. Total 8,339,930,560 (card: 8.3B).
  const auto p = kvsize::parameters(c.spec);
  CHECK(p.total == 8'339'930'560);
  // Active: 4 of 32 experts, 22 × 28 × 3 × 2,048 × 1,792 fewer: 1,557,740,992 (card: 1.5B).
  CHECK(p.active == 8'339'930'560 - 22ULL * 28 * 3 * 2'048 * 1'792);
  CHECK(kvsize::weights_bytes(c.spec, kvsize::published_weights(kvsize::dtype::bf16)) ==
        bytes{2 * (8'339'930'560 - 22 * 32) + 4 * 22 * 32});
  // The cache: 6 attention layers × 2 × 8 × 64 × 2 B = 12,288 B a token; 18 conv layers of (3 − 1) × 2,048 channels
  // (hidden_size: Lfm2MoeConfig has no conv_dim; vLLM short_conv_state_shape(intermediate_size=hidden_size)).
  CHECK(kvsize::kv_bytes_per_token(c.spec) == bytes{12'288});
  const kvsize::engine_options o{.context = 4'096};
  CHECK(kvsize::size_cache(c.spec, kvsize::engine_kind::exact, o).state_bytes_per_sequence == bytes{18 * 4'096 * 2});
  CHECK(kvsize::size_cache(c.spec, kvsize::engine_kind::llama_cpp, o).state_bytes_per_sequence ==
        bytes{18 * 4'096 * 4});
  // Without use_expert_bias no bias; without num_dense_layers the class's 2, with a warning.
  doc["use_expert_bias"] = false;
  doc.erase("num_dense_layers");
  const auto defaulted = kvsize::hf::parse_config(doc.dump());
  CHECK_FALSE(defaulted.spec.weights.moe.score_correction_bias);
  CHECK(defaulted.spec.weights.moe.first_dense_layers == 2);
  CHECK(std::any_of(defaulted.warnings.begin(), defaulted.warnings.end(), [](const std::string& w) {
    return w.find("/num_dense_layers is absent: took 2, the default of Lfm2MoeConfig") != std::string::npos;
  }));
  CHECK(kvsize::parameters(defaulted.spec).total == 8'339'930'560 - 22 * 32);
}

TEST_CASE("hf: quantization_config inside a composite's text_config; modules_to_not_convert's norms and sub-modules",
          "[weights][hf][quantization]") {
  // Kimi-K2.5 (model_type kimi_k25) keeps its quantization_config in text_config, beside the text model's keys
  // (moonshotai/Kimi-K2.5's config.json; ai-dynamo/aiconfigurator @095f58a51
  // model_configs/moonshotai--Kimi-K2.5_config.json). The bundled Kimi-K2-Instruct config wrapped the same way reads
  // its FP8 blocks from there: the same weights as the unwrapped file, not bf16.
  const std::string text = config_text("moonshotai__Kimi-K2-Instruct");
  const auto plain = kvsize::hf::parse_config(text);
  nlohmann::json wrapped = {{"architectures", {"KimiK25ForConditionalGeneration"}}, {"model_type", "kimi_k25"},
                            {"text_config", nlohmann::json::parse(text)}};
  const auto c = kvsize::hf::parse_config(wrapped.dump());
  REQUIRE(c.quantization);
  CHECK(c.quantization->pointer == "/text_config/quantization_config");
  CHECK(c.quantization_config_given);
  CHECK(c.quantization_method == std::optional<std::string>{"fp8"});
  REQUIRE(c.quantization->format);
  CHECK(kvsize::weights_bytes(c.spec, *c.quantization->format) ==
        kvsize::weights_bytes(plain.spec, *plain.quantization->format));
  // modules_to_not_convert as GLM-5-FP8 writes it (zai-org/GLM-5-FP8: 712 entries, every layer's norms, its
  // indexer's k_norm and indexers_proj, the router and its e_score_correction_bias): the norms and biases need
  // nothing, the sub-module of self_attn does not keep the whole attention in bf16, and each pattern is named once.
  nlohmann::json doc = nlohmann::json::parse(config_text("deepseek-ai__DeepSeek-R1"));
  const auto r1 = kvsize::hf::parse_config(doc.dump());
  nlohmann::json kept = nlohmann::json::array();
  for (int il = 0; il < 3; ++il) {
    const std::string layer = "model.layers." + std::to_string(il) + ".";
    for (const char* module : {"input_layernorm", "post_attention_layernorm", "self_attn.kv_a_layernorm",
                               "self_attn.indexer.k_norm.bias", "mlp.gate.e_score_correction_bias",
                               "self_attn.indexers_proj"}) {
      kept.push_back(layer + module);
    }
  }
  kept.push_back("model.layers.61.eh_proj");
  kept.push_back("model.layers.61.shared_head.norm");
  doc["quantization_config"]["modules_to_not_convert"] = kept;
  const auto listed = kvsize::hf::parse_config(doc.dump());
  REQUIRE(listed.quantization->format);
  CHECK(listed.quantization->format->unquantized_parts == 0);
  CHECK(kvsize::weights_bytes(listed.spec, *listed.quantization->format) ==
        kvsize::weights_bytes(r1.spec, *r1.quantization->format));
  const auto named = std::count_if(listed.warnings.begin(), listed.warnings.end(), [](const std::string& w) {
    return w.find("indexers_proj") != std::string::npos;
  });
  CHECK(named == 1);
  CHECK(std::none_of(listed.warnings.begin(), listed.warnings.end(), [](const std::string& w) {
    return w.find("layernorm") != std::string::npos || w.find("e_score_correction_bias") != std::string::npos;
  }));
  // The whole attention named: kept unquantized, as before.
  doc["quantization_config"]["modules_to_not_convert"] = {"model.layers.0.self_attn"};
  const auto whole = kvsize::hf::parse_config(doc.dump());
  CHECK(whole.quantization->format->unquantized_parts == kvsize::part_bit(kvsize::weight_part::attention));
}

TEST_CASE("hf: modules_to_not_convert names the attention by its projections; a vision tower's modules are vision",
          "[weights][hf][quantization]") {
  using kvsize::part_bit;
  using kvsize::weight_part;
  nlohmann::json doc = nlohmann::json::parse(config_text("deepseek-ai__DeepSeek-R1"));
  const auto parts_and_warnings = [&](const nlohmann::json& kept) {
    doc["quantization_config"]["modules_to_not_convert"] = kept;
    const auto c = kvsize::hf::parse_config(doc.dump());
    REQUIRE(c.quantization->format);
    const auto inside = std::count_if(c.warnings.begin(), c.warnings.end(), [](const std::string& w) {
      return w.find("takes it as quantized") != std::string::npos ||
             w.find("the attention is taken as quantized") != std::string::npos;
    });
    return std::pair{c.quantization->format->unquantized_parts, inside};
  };
  const auto attention = part_bit(weight_part::attention);
  // Each projection listed, layer by layer (MLA's, Llama's, InternLM2's, Falcon's): the attention, no warning.
  nlohmann::json listed = nlohmann::json::array();
  for (int il = 0; il < 3; ++il) {
    const std::string layer = "model.layers." + std::to_string(il) + ".self_attn.";
    for (const char* p : {"q_a_proj", "q_b_proj", "kv_a_proj_with_mqa", "kv_b_proj", "o_proj"}) {
      listed.push_back(layer + p);
    }
  }
  CHECK(parts_and_warnings(listed) == std::pair{attention, std::ptrdiff_t{0}});
  const std::vector<nlohmann::json> whole{
      {"model.layers.0.self_attn.q_proj", "model.layers.0.self_attn.k_proj", "model.layers.0.self_attn.v_proj",
       "model.layers.0.self_attn.o_proj"},
      {"model.layers.0.attention.wqkv", "model.layers.0.attention.wo"},
      {"transformer.h.0.self_attention.query_key_value", "transformer.h.0.self_attention.dense"},
      {"model.layers.*.self_attn.*"}, {"re:.*self_attn.*"}, {"re:.*self_attn.*_proj"},
      {"re:.*self_attn\\.(q|k|v|o)_proj$"}, {"re:.*self_attn\\.(?:q|k|v|o)_proj"}};
  for (const auto& list : whole) {
    INFO(list.dump());
    CHECK(parts_and_warnings(list) == std::pair{attention, std::ptrdiff_t{0}});
  }
  // Some of the projections only (vLLM's MXFP8 recipes keep kv_b_proj alone): those roles stay unquantized, in every
  // layer (as a named module does), the rest of the attention is quantized; no warning.
  const auto roles_of = [&](const nlohmann::json& kept) {
    doc["quantization_config"]["modules_to_not_convert"] = kept;
    const auto c = kvsize::hf::parse_config(doc.dump());
    REQUIRE(c.quantization->format);
    CHECK(c.quantization->format->unquantized_parts == 0);
    CHECK_FALSE(std::any_of(c.warnings.begin(), c.warnings.end(), [](const std::string& w) {
      return w.find("as quantized") != std::string::npos;  // the partial-set and inside-attention warnings
    }));
    return c.quantization->format->unquantized_roles;
  };
  using kvsize::role_bit;
  using kvsize::tensor_role;
  CHECK(roles_of({"model.layers.0.self_attn.q_proj"}) == role_bit(tensor_role::attn_q));
  CHECK(roles_of({"model.layers.0.self_attn.kv_b_proj", "model.layers.1.self_attn.kv_b_proj"}) ==
        role_bit(tensor_role::attn_kv_b));
  CHECK(roles_of({"re:.*self_attn.q_proj.*"}) == role_bit(tensor_role::attn_q));
  CHECK(roles_of({"re:.*self_attn\\.(q|k)_proj"}) == (role_bit(tensor_role::attn_q) | role_bit(tensor_role::attn_k)));
  CHECK(roles_of({"model.layers.0.attention.wo"}) == role_bit(tensor_role::attn_output));
  // Another module inside the attention, as a name or a regex (DSA's indexer): the attention stays quantized and
  // each pattern is named once.
  for (const char* one : {"model.layers.0.self_attn.indexers_proj", "re:.*self_attn.indexers_proj",
                          "model.layers.0.self_attn.indexer.wk", "re:.*self_attn\\.(q_proj|indexers_proj)"}) {
    INFO(one);
    CHECK(parts_and_warnings({one}) == std::pair{std::uint16_t{0}, std::ptrdiff_t{1}});
  }
  // A vision tower's attention and MLP are the tower's, not the text model's (Qwen2.5-VL "visual.blocks", LLaVA's
  // "multi_modal_projector", "mm_projector").
  for (const char* one : {"model.visual.blocks.0.mlp.gate_proj", "visual.blocks.3.attn.qkv",
                          "vision_tower.vision_model.encoder.layers.0.self_attn.k_proj",
                          "vision_tower.vision_model.encoder.layers.0.self_attn.indexers_proj",
                          "multi_modal_projector.linear_1", "re:.*mm_projector.*"}) {
    INFO(one);
    CHECK(parts_and_warnings({one}) == std::pair{part_bit(weight_part::vision), std::ptrdiff_t{0}});
  }
  // Gemma 3n / 4 E's per-layer-input modules are the embeddings' part; a name segment must start with "per_layer"
  // ("upper_layer_down" in an MLP stays the MLP's).
  for (const char* one : {"model.language_model.per_layer_model_projection", "model.layers.3.per_layer_input_gate",
                          "per_layer_projection"}) {
    INFO(one);
    CHECK(parts_and_warnings({one}) == std::pair{part_bit(weight_part::embeddings), std::ptrdiff_t{0}});
  }
  CHECK(parts_and_warnings({"model.layers.0.mlp.upper_layer_down"}) ==
        std::pair{part_bit(weight_part::mlp), std::ptrdiff_t{0}});
  // An audio tower's (Gemma 3n "model.audio_tower", Qwen2.5-Omni "thinker.audio_tower") keeps nothing kvsize sizes:
  // no decoder projection role, no part, no warning.
  for (const char* one : {"model.audio_tower.conformer.0.attention.attn.q_proj", "thinker.audio_tower.layers.0.self_attn.k_proj",
                          "re:.*audio_tower.*self_attn.*", "model.embed_audio.embedding_projection"}) {
    INFO(one);
    CHECK(parts_and_warnings({one}) == std::pair{std::uint16_t{0}, std::ptrdiff_t{0}});
    CHECK(roles_of({one}) == 0);
  }
}

TEST_CASE("hf: compressed-tensors pack-quantized (Kimi-K2.5's int4 experts), its ignore list", "[weights][hf][quantization]") {
  // Kimi-K2.5's text model has Kimi-K2-Instruct's shape (hidden 7,168, 61 layers, 384 experts of 2,048, vocab
  // 163,840); its quantization_config (text_config of moonshotai/Kimi-K2.5's config.json; ai-dynamo/aiconfigurator
  // @095f58a51 model_configs/moonshotai--Kimi-K2.5_config.json) packs int4, group 32, symmetric, every Linear but
  // lm_head, the attention, the shared experts and the dense MLP: the 60 × 384 routed experts' three matrices.
  nlohmann::json doc = nlohmann::json::parse(config_text("moonshotai__Kimi-K2-Instruct"));
  doc["quantization_config"] = nlohmann::json::parse(R"({"config_groups": {"group_0": {"input_activations": null,
      "output_activations": null, "targets": ["Linear"], "weights": {"actorder": null, "block_structure": null,
      "dynamic": false, "group_size": 32, "num_bits": 4, "observer": "minmax", "observer_kwargs": {},
      "strategy": "group", "symmetric": true, "type": "int"}}}, "format": "pack-quantized",
      "ignore": ["lm_head", "re:.*self_attn.*", "re:.*shared_experts.*", "re:.*mlp\\.(gate|up|gate_up|down)_proj.*"],
      "kv_cache_scheme": null, "quant_method": "compressed-tensors", "quantization_status": "compressed"})");
  const auto c = kvsize::hf::parse_config(doc.dump());
  REQUIRE(c.quantization);
  REQUIRE(c.quantization->format);
  const weights_format& f = *c.quantization->format;
  CHECK(f.scheme == kvsize::weights_scheme::packed_int);
  CHECK(f.bits == 4);
  CHECK(f.group_size == 32);
  using kvsize::part_bit;
  using kvsize::weight_part;
  CHECK(f.unquantized_parts == (part_bit(weight_part::lm_head) | part_bit(weight_part::attention) |
                                part_bit(weight_part::experts_shared) | part_bit(weight_part::mlp)));
  // By hand: each expert matrix of 2,048 × 7,168 (or 7,168 × 2,048) packs to 7,340,032 B (rows × cols / 2) plus
  // rows × cols / 32 bf16 scales (917,504 B) and an int32[2] shape (8 B): 8,257,544 B; 60 × 384 × 3 of them
  // (570,761,441,280 B). The rest in bf16 (router weights too: MoEGate is no Linear), the 23,040 routing biases in
  // float32: 2 × (1,026,408,232,448 − 60 × 384 × 3 × 14,680,064 − 23,040) + 4 × 23,040 = 23,444,463,616 B.
  // Total 594,205,904,896 B: Kimi-K2.5's model.safetensors.index.json total_size, 595,148,192,736 B
  // (https://huggingface.co/moonshotai/Kimi-K2.5/blob/main/model.safetensors.index.json; Kimi-K2.6's the same, as
  // https://ollama.com/api/tags lists kimi-k2.6), less its MoonViT tower and projector, 471,143,920 bf16
  // parameters derived from its vision_config (docs/research/compressed-tensors.md).
  CHECK(kvsize::parameters(c.spec).total == 1'026'408'232'448);
  CHECK(kvsize::weights_bytes(c.spec, f) == bytes{594'205'904'896});
  CHECK(bytes{595'148'192'736} - kvsize::weights_bytes(c.spec, f) == bytes{2 * 471'143'920ULL});
  // A form kvsize does not size yet (asymmetric: a packed zero point per group) leaves the format unset, the
  // method named; the KV cache is read as before.
  doc["quantization_config"]["config_groups"]["group_0"]["weights"]["symmetric"] = false;
  const auto asymmetric = kvsize::hf::parse_config(doc.dump());
  CHECK_FALSE(asymmetric.quantization->format);
  CHECK(asymmetric.quantization_method == std::optional<std::string>{"compressed-tensors"});
  CHECK(kvsize::kv_bytes_per_token(asymmetric.spec) == kvsize::kv_bytes_per_token(c.spec));
  // Nor one whose group targets more than every Linear (an Embedding too: its packing is not this one); its
  // `ignore` list then warns about nothing.
  doc["quantization_config"]["config_groups"]["group_0"]["weights"]["symmetric"] = true;
  doc["quantization_config"]["config_groups"]["group_0"]["targets"] = {"Linear", "Embedding"};
  doc["quantization_config"]["ignore"].push_back("model.layers.0.self_attn.indexers_proj");
  const auto embedding = kvsize::hf::parse_config(doc.dump());
  CHECK_FALSE(embedding.quantization->format);
  CHECK(std::none_of(embedding.warnings.begin(), embedding.warnings.end(), [](const std::string& w) {
    return w.find("indexers_proj") != std::string::npos;
  }));
  doc["quantization_config"]["config_groups"]["group_0"]["targets"] = {"Linear"};
  const auto linear = kvsize::hf::parse_config(doc.dump());
  REQUIRE(linear.quantization->format);
  CHECK(kvsize::weights_bytes(linear.spec, *linear.quantization->format) == bytes{594'205'904'896});
  CHECK(std::count_if(linear.warnings.begin(), linear.warnings.end(), [](const std::string& w) {
          return w.find("indexers_proj") != std::string::npos;
        }) == 1);
}
