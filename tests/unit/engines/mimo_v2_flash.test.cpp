// SPDX-License-Identifier: MIT
// MiMo-V2-Flash (mimo_v2_flash): sliding layers with more KV heads than the full layers, and K and V
// of different widths. hybrid_layer_pattern[i] == 1 slides; those layers take swa_num_key_value_heads,
// swa_head_dim and swa_v_head_dim, and the window sliding_window_size (vLLM models/mimo_v2_flash.py
// MiMoV2FlashDecoderLayer.__init__). Each figure's derivation is beside it; the engine rules are cited
// in docs/engines.md (MiMo-V2-Flash).
#include "engine_logs_support.hpp"  // Catch2, the kvsize headers, and the names the cases use

#include <algorithm>  // std::count_if
#include <string>     // std::string

using namespace kvsize::test::engine_logs;

namespace {

constexpr const char* flash_file = "XiaomiMiMo__MiMo-V2-Flash.config.json";

/// A 6-layer MiMo-V2-Flash shape, every key spelled out; `extra` is spliced in before the last key.
auto small_config(const std::string& extra) -> std::string {
  return R"({"model_type": "mimo_v2_flash", "num_hidden_layers": 6, "hidden_size": 4096,
  "num_attention_heads": 64, "num_key_value_heads": 4, "head_dim": 192, "v_head_dim": 128,
  "intermediate_size": 16384, "vocab_size": 152576, "sliding_window": 128,
  "moe_layer_freq": [0, 1, 1, 1, 1, 1], "moe_intermediate_size": 2048, "n_routed_experts": 256,
  "num_experts_per_tok": 8, )" +
         extra + R"("torch_dtype": "bfloat16"})";
}

}  // namespace

TEST_CASE("MiMo-V2-Flash from config.json: the sliding layers' own heads and widths", "[engines][mimo][hf]") {
  const auto c = kvsize::hf::load_config(std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs" / flash_file);
  const model_spec& m = c.spec;
  REQUIRE(m.layers == 48);
  // hybrid_layer_pattern: 0 at layers 0, 5, 11, 17, 23, 29, 35, 41, 47 (full), 1 elsewhere (sliding).
  for (std::uint32_t il = 0; il < m.layers; ++il) {
    const bool full = il == 0 || (il + 1) % 6 == 0;
    INFO("layer " << il);
    CHECK(kvsize::kind_of_layer(m, il) == (full ? layer_kind::full : layer_kind::sliding));
    CHECK(kvsize::kv_heads_of_layer(m, il) == (full ? 4U : 8U));  // num_key_value_heads / swa_num_key_value_heads
    CHECK(kvsize::head_dim_of_layer(m, il) == 192);               // head_dim / swa_head_dim
    CHECK(kvsize::head_dim_v_of_layer(m, il) == 128);             // v_head_dim / swa_v_head_dim
    CHECK(m.weights.layer[il].attention_sinks == !full);          // add_swa_attention_sink_bias: sliding only
  }
  CHECK(m.sliding_window == 128);
  // Per token, bf16: full 9 × 4 × (192 + 128) × 2 B = 23,040; sliding 39 × 8 × 320 × 2 B = 199,680.
  CHECK(kvsize::kv_bytes_per_token(m) == bytes{23'040 + 199'680});
  // Parameters, by hand: embeddings and untied head 2 × 152,576 × 4,096 = 1,249,902,592; norms
  // 4,096 + 48 × 2 × 4,096 = 397,312; full attention 9 × (q 64·192 + k 4·192 + v 4·128 + o 64·128) × 4,096
  // = 9 × 89,128,960; sliding 39 × (q 64·192 + k 8·192 + v 8·128 + o 64·128) × 4,096 + 64 sinks
  // = 39 × 94,371,904; layer 0's dense MLP 3 × 4,096 × 16,384 = 201,326,592; 47 MoE layers of 256 experts
  // × 3 × 4,096 × 2,048 + router 256 × 4,096 + 256 e_score_correction_bias = 47 × 6,443,499,776.
  // Total 308,778,780,864: the model card's "309B total parameters"
  // (https://huggingface.co/XiaomiMiMo/MiMo-V2-Flash). Active (top 8 of 256): 15,445,936,320 ("15B active").
  const auto p = kvsize::parameters(m);
  CHECK(p.total == 308'778'780'864ULL);
  CHECK(p.active == 15'445'936'320ULL);
}

TEST_CASE("MiMo-V2-Flash per engine, one 4,096-token sequence", "[engines][mimo]") {
  const model_spec& m = config(flash_file);
  const engine_options o{.context = 4'096};
  // exact: 23,040 × 4,096 + 199,680 × min(4,096, 128) = 94,371,840 + 25,559,040.
  CHECK(kvsize::size_cache(m, engine_kind::exact, o).kv_bytes_per_sequence == bytes{119'930'880});
  // transformers DynamicSlidingWindowLayer keeps W − 1 = 127 tokens: 94,371,840 + 199,680 × 127.
  CHECK(kvsize::size_cache(m, engine_kind::transformers, o).kv_bytes_per_sequence == bytes{94'371'840 + 25'359'360});
  // llama.cpp, flash attention on: SWA cells PAD256(min(4,096, 128 + n_ubatch 512)) = 768
  // (llama-kv-cache-iswa.cpp): 94,371,840 + 199,680 × 768.
  CHECK(kvsize::size_cache(m, engine_kind::llama_cpp, o).kv_bytes_per_sequence == bytes{94'371'840 + 153'354'240});
  // SGLang without its hybrid SWA pool (kvsize's default profile): every layer keeps every token, 222,720 × 4,096.
  CHECK(kvsize::size_cache(m, engine_kind::sglang, o).kv_bytes_per_sequence == bytes{222'720ULL * 4'096});
  // vLLM 0.20 (hybrid manager; V at its own width since PR #40045's FlashAttentionDiffKV backend): sliding
  // pages 16 × 8 × 320 × 2 B = 81,920, full 16 × 4 × 320 × 2 B = 40,960, so the full layers get blocks of 32
  // tokens (kv_cache_utils.py unify_kv_cache_spec_page_size). Groups of 9 layers (the smaller type's count):
  // 1 full, ⌈39 / 9⌉ = 5 sliding (6 padding layers). Admission reserves cdiv(min(127 + 8,192, 4,096), 16) + 1
  // = 257 blocks per sliding group and 4,096 / 32 = 128 full blocks: (5 × 257 + 128) × 81,920 × 9 = 1,041,776,640.
  engine_options v20 = o;
  v20.vllm.release_minor = 20;
  const auto v = kvsize::size_cache(m, engine_kind::vllm, v20);
  CHECK(v.vllm.kv_cache_groups == 6);
  CHECK(v.kv_bytes_per_sequence == bytes{(5 * 257 + 128) * 81'920ULL * 9});
  // vLLM 0.14 – 0.19 (the default release): MiMoV2Attention.forward pads V to K's 192, so every page holds
  // 192 + 192: sliding 16 × 8 × 384 × 2 = 98,304, full 49,152; the same groups: (5 × 257 + 128) × 98,304 × 9.
  const auto v19 = kvsize::size_cache(m, engine_kind::vllm, o);
  CHECK(v19.vllm.kv_cache_groups == 6);
  CHECK(v19.kv_bytes_per_sequence == bytes{1'250'131'968});
  CHECK(bytes{1'250'131'968} == bytes{(5 * 257 + 128) * 98'304ULL * 9});
}

TEST_CASE("MiMo-V2-Flash: absent keys, the window's other spelling, a sink flag that is not a bool",
          "[engines][mimo][hf]") {
  // No hybrid_layer_pattern: MiMoV2FlashConfig's layer_types, full iff i == 0 or (i + 1) % 6 == 0, with a warning.
  const auto d = kvsize::hf::parse_config(small_config(R"("swa_num_key_value_heads": 8, )"));
  CHECK(kvsize::kind_of_layer(d.spec, 0) == layer_kind::full);
  CHECK(kvsize::kind_of_layer(d.spec, 1) == layer_kind::sliding);
  CHECK(kvsize::kind_of_layer(d.spec, 5) == layer_kind::full);
  CHECK(std::count_if(d.warnings.begin(), d.warnings.end(), [](const std::string& w) {
          return w.find("/hybrid_layer_pattern is absent") != std::string::npos;
        }) == 1);
  // Without swa_head_dim the sliding layers keep the model's K / V widths, and say so.
  CHECK(kvsize::head_dim_v_of_layer(d.spec, 1) == 128);
  CHECK(std::count_if(d.warnings.begin(), d.warnings.end(), [](const std::string& w) {
          return w.find("/swa_head_dim is absent") != std::string::npos;
        }) == 1);
  // swa_head_dim without swa_v_head_dim: V as wide as K (vLLM MiMoV2Attention, v_head_dim None).
  const auto k_only = kvsize::hf::parse_config(small_config(R"("hybrid_layer_pattern": [0, 1, 1, 1, 1, 0], "swa_head_dim": 64, )"));
  CHECK(kvsize::head_dim_of_layer(k_only.spec, 1) == 64);
  CHECK(kvsize::head_dim_v_of_layer(k_only.spec, 1) == 64);
  CHECK(kvsize::head_dim_v_of_layer(k_only.spec, 0) == 128);
  // Only sliding_window_size (vLLM's spelling): the window is read from it.
  std::string text = small_config(R"("hybrid_layer_pattern": [0, 1, 1, 1, 1, 0], "sliding_window_size": 256, )");
  text.replace(text.find(R"("sliding_window": 128)"), 21, R"("sliding_window": null)");
  CHECK(kvsize::hf::parse_config(text).spec.sliding_window == 256);
  // The sinks are weights only: a flag that is not a bool is a warning, and the KV answer stands.
  const auto odd = kvsize::hf::parse_config(
      small_config(R"("hybrid_layer_pattern": [0, 1, 1, 1, 1, 0], "add_swa_attention_sink_bias": "yes", )"));
  CHECK_FALSE(odd.spec.weights.layer[1].attention_sinks);
  CHECK(std::count_if(odd.warnings.begin(), odd.warnings.end(), [](const std::string& w) {
          return w.find("/add_swa_attention_sink_bias: expected true or false") != std::string::npos;
        }) == 1);
  // No swa_* key here: every layer 4 KV heads × (192 + 128) × 2 B.
  CHECK(kvsize::kv_bytes_per_token(odd.spec) == bytes{6 * 4 * (192 + 128) * 2});
}
