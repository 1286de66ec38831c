// SPDX-License-Identifier: MIT
// Gemma 4: layers whose head shape is not the model's. The full-attention layers take
// global_head_dim 512 (the sliding ones head_dim 256) and, under attention_k_eq_v,
// num_global_key_value_heads; K and V are both cached. Each figure's derivation is beside it; the
// engine rules are cited in docs/engines.md (Gemma 4).
#include "engine_logs_support.hpp"  // Catch2, the kvsize headers, and the names the cases use

#include <fstream>   // std::ifstream
#include <iterator>  // std::istreambuf_iterator
#include <string>    // std::string

#include <kvsize/fmt.hpp>

using namespace kvsize::test::engine_logs;

namespace {

/// Gemma-4-26B-A4B's attention as a literal: 30 layers, every 6th full (5, 11, ..., 29) with 2 KV
/// heads × 512, the other 25 sliding (window 1024) with the model's 8 × 256.
constexpr auto gemma4_26b_like() -> model_spec {
  model_spec m{.layers = 30, .attention_heads = 16, .kv_heads = 8, .head_dim = 256, .hidden_size = 2'816,
               .vocab_size = 262'144, .attention = layer_kind::sliding, .sliding_window = 1'024};
  for (std::uint32_t il = 5; il < 30; il += 6) {
    m.layer[il] = {.kind = layer_kind::full, .kv_heads = 2, .head_dim = 512};
  }
  return m;
}
constexpr model_spec gemma4_26b = gemma4_26b_like();

// Per token, bf16: sliding 25 × 8 × 256 × 2 (K, V) × 2 B = 204,800; full 5 × 2 × 512 × 2 × 2 B = 20,480.
static_assert(kvsize::kv_bytes_per_token(gemma4_26b) == bytes{225'280});
static_assert(kvsize::head_dim_of_layer(gemma4_26b, 5) == 512 && kvsize::head_dim_v_of_layer(gemma4_26b, 5) == 512);
static_assert(kvsize::head_dim_of_layer(gemma4_26b, 4) == 256 && kvsize::head_dim_v_of_layer(gemma4_26b, 4) == 256);
// One 4,096-token sequence: 20,480 × 4,096 + 204,800 × min(4,096, 1,024) = 83,886,080 + 209,715,200.
static_assert(kvsize::kv_bytes_per_sequence(gemma4_26b, 4'096) == bytes{293'601'280});

}  // namespace

TEST_CASE("Gemma 4: a layer's own head dimensions size its K and V", "[engines][gemma4][kv]") {
  CHECK(kvsize::layer_kv_bytes_per_token(gemma4_26b, 5, kvsize::kv_dtypes::same(dtype::bf16)) == bytes{2 * 512 * 2 * 2});
  CHECK(kvsize::layer_kv_bytes_per_token(gemma4_26b, 0, kvsize::kv_dtypes::same(dtype::bf16)) == bytes{8 * 256 * 2 * 2});
  // A V width of its own: K 512, V 128 → 2 × (512 + 128) × 2 B.
  model_spec m = gemma4_26b;
  m.layer[5].head_dim_v = 128;
  CHECK(kvsize::layer_kv_bytes_per_token(m, 5, kvsize::kv_dtypes::same(dtype::bf16)) == bytes{2 * (512 + 128) * 2});
  // Without sharing every query head keeps its K and V: 25 × 16 × 256 × 4 + 5 × 16 × 512 × 4.
  CHECK(kvsize::kv_bytes_per_token_mha(gemma4_26b, kvsize::kv_dtypes::same(dtype::bf16)) == bytes{409'600 + 163'840});
  // The layer groups keep the two shapes apart: one sliding group of 25, one full group of 5.
  const auto g = kvsize::make_layer_groups(gemma4_26b, {});
  REQUIRE(g.count == 2);
  CHECK(g.group[0].kind == kvsize::group_kind::sliding);
  CHECK(g.group[0].layers == 25);
  CHECK(g.group[0].k_row == bytes{8 * 256 * 2});
  CHECK(g.group[1].kind == kvsize::group_kind::full);
  CHECK(g.group[1].layers == 5);
  CHECK(g.group[1].k_row == bytes{2 * 512 * 2});
  CHECK(g.group[1].v_row == bytes{2 * 512 * 2});
  CHECK(fmt::format("{}", gemma4_26b).find("(5 full layers: 2 KV heads, head_dim 512)") != std::string::npos);
}

TEST_CASE("Gemma 4 from config.json: global_head_dim and the k_eq_v heads", "[engines][gemma4][hf]") {
  const auto c = kvsize::hf::load_config(std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs" /
                                         "google__gemma-4-26B-A4B.config.json");
  const model_spec& m = c.spec;
  // The literal above is the config's attention, layer for layer.
  for (std::uint32_t il = 0; il < m.layers; ++il) {
    CHECK(kvsize::kind_of_layer(m, il) == kvsize::kind_of_layer(gemma4_26b, il));
    CHECK(kvsize::kv_heads_of_layer(m, il) == kvsize::kv_heads_of_layer(gemma4_26b, il));
    CHECK(kvsize::head_dim_of_layer(m, il) == kvsize::head_dim_of_layer(gemma4_26b, il));
    CHECK(m.weights.layer[il].v_from_k == (il % 6 == 5));  // no v_proj on the k_eq_v layers
  }
  // Weights: the full layers have no v_proj; q_proj and o_proj are 16 × 512 wide there.
  // Gemma4TextDecoderLayer: a dense MLP of 2,112 beside 128 experts of 704 (top 8). Text parameters
  // 25,232,800,000; the model card's 25.2 B total (https://huggingface.co/google/gemma-4-26B-A4B).
  REQUIRE(c.spec.weights.moe.experts == 128);
  CHECK(c.spec.weights.moe.experts_per_token == 8);
  CHECK(kvsize::parameters(m).total == 25'232'800'000ULL);
  // Each decoder layer's layer_scalar, a one-element buffer (transformers Gemma4TextDecoderLayer register_buffer):
  // in the checkpoint and the weight bytes (30 × 2 B in bf16), not among the parameters.
  std::uint64_t buffer_elements = 0;
  kvsize::for_each_weight(m, [&](const kvsize::weight_tensor& t) {
    buffer_elements += t.role == kvsize::tensor_role::buffer ? t.elements() : 0;
  });
  CHECK(buffer_elements == 30);
  // attention_k_eq_v false: the full layers keep num_key_value_heads (8), with global_head_dim.
  std::ifstream in(std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs" / "google__gemma-4-26B-A4B.config.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string from = "\"attention_k_eq_v\": true";
  REQUIRE(text.find(from) != std::string::npos);
  text.replace(text.find(from), from.size(), "\"attention_k_eq_v\": false");
  const model_spec no_share = kvsize::hf::parse_config(text).spec;
  CHECK(kvsize::kv_heads_of_layer(no_share, 5) == 8);
  CHECK(kvsize::head_dim_of_layer(no_share, 5) == 512);
  CHECK_FALSE(no_share.weights.layer[5].v_from_k);
  CHECK(kvsize::kv_bytes_per_token(no_share) == bytes{204'800 + 5 * 8 * 512 * 2 * 2});
}

TEST_CASE("Gemma 4 E2B from config.json: KV-shared layers, per-layer inputs, the double-wide MLP", "[engines][gemma4][hf]") {
  // google/gemma-4-E2B-it: 35 layers, the last 20 (num_kv_shared_layers) read an earlier layer's cache; hidden 1,536,
  // 8 heads, 1 KV head, head_dim 256 (sliding, window 512) and global_head_dim 512 (full: 4, 9, ..., 34).
  const auto c = kvsize::hf::load_config(std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs" /
                                         "google__gemma-4-E2B-it.config.json");
  const model_spec& m = c.spec;
  for (std::uint32_t il = 0; il < m.layers; ++il) {
    INFO("layer " << il);
    const bool full = il % 5 == 4;
    CHECK(kvsize::kind_of_layer(m, il) ==
          (il >= 15 ? layer_kind::shared : full ? layer_kind::full : layer_kind::sliding));
    // A shared layer keeps its own shape for its weights (the checkpoint holds its K and V projections).
    CHECK(kvsize::head_dim_of_layer(m, il) == (full ? 512U : 256U));
    // use_double_wide_mlp: the shared layers' MLP is 2 × 6,144 wide (Gemma4TextMLP).
    CHECK(kvsize::ffn_width_of_layer(m, il) == (il >= 15 ? 12'288U : 6'144U));
  }
  // KV (bf16): 12 sliding × 1 × 256 × 2 × 2 B + 3 full × 1 × 512 × 2 × 2 B = 12,288 + 6,144 (hf_golden.test.cpp).
  CHECK(kvsize::kv_bytes_per_token(m) == bytes{18'432});
  // Weights: the checkpoint's text model (google/gemma-4-E2B-it @9dbdf8a8 model.safetensors, its header as
  // ohdearquant/lattice @9de1520b crates/inference/tests/fixtures/gemma4/e2b_tensor_manifest.json lists it: 600
  // language-model tensors, all BF16) holds 4,647,449,891 elements, 35 of them the layer_scalar buffers:
  //   embed_tokens 262,144 × 1,536 = 402,653,184; embed_tokens_per_layer 262,144 × (35 × 256) = 2,348,810,240;
  //   per_layer_model_projection 8,960 × 1,536 = 13,762,560; its norm 256 and the final norm 1,536;
  //   every layer 5 norms of 1,536 and per_layer_input_gate + per_layer_projection 2 × 256 × 1,536 (794,112);
  //   sliding attention 2 × 2,048 × 1,536 + 256 (q, o, q_norm) + 2 × 256 × 1,536 + 256 (k, v, k_norm) = 7,078,400,
  //   full 2 × 4,096 × 1,536 + 512 + 2 × 512 × 1,536 + 512 = 14,156,800 (the shared layers' K and V included);
  //   MLP 3 × 1,536 × 6,144 = 28,311,552, doubled (56,623,104) in the 20 shared layers:
  //   12 × 36,184,064 + 3 × 43,262,464 + 16 × 64,495,616 + 4 × 71,574,016 + 2,765,227,776 = 4,647,449,856.
  // transformers' own parameters() (no K/V in the shared layers) is 18,880,512 fewer; vLLM loads the checkpoint's.
  CHECK(kvsize::parameters(m).total == 4'647'449'856ULL);
  CHECK(kvsize::parameters(m).embeddings == 402'653'184ULL + 2'348'810'240 + 13'762'560 + 35 * 786'432ULL);
  CHECK(kvsize::weights_bytes(m, kvsize::published_weights(dtype::bf16)) == bytes{2 * 4'647'449'891ULL});
  // The audio tower is not counted, and a warning says so.
  CHECK(std::any_of(c.warnings.begin(), c.warnings.end(), [](const std::string& w) {
    return w.starts_with("/audio_config: an audio tower, which kvsize does not count");
  }));
  // vLLM 0.19 loads, beside the weights, gemma4_mm.py's per_layer_embeddings buffer: max_num_batched_tokens (8,192
  // on a device of 70 GiB or more) × 35 layers × 256 × 2 B = 146,800,640 (vllm_startup.hpp loaded_buffers).
  engine_options big{.context = 4'096};
  big.device_memory = 80_GiB;
  model_spec without = m;
  without.weights.per_layer_input_width = 0;
  CHECK(kvsize::engines::vllm::loaded_buffers(m, big, dtype::bf16) -
            kvsize::engines::vllm::loaded_buffers(without, big, dtype::bf16) ==
        bytes{146'800'640ULL});
  // The text-only class (Gemma4ForCausalLM, models/gemma4.py) allocates no such buffer.
  engine_options text_only = big;
  text_only.vllm.text_only_class = true;
  CHECK(kvsize::engines::vllm::loaded_buffers(m, text_only, dtype::bf16) ==
        kvsize::engines::vllm::loaded_buffers(without, big, dtype::bf16));
  // Gemma 4's dense and MoE checkpoints write hidden_size_per_layer_input 0: no per-layer inputs.
  CHECK(config("google__gemma-4-26B-A4B.config.json").weights.per_layer_input_width == 0);
  // Two rotary cos/sin tables (vllm/model_executor/models/gemma4.py Gemma4Attention: rope_parameters by layer type;
  // layers/rotary_embedding get_rope caches one per parameter set): the sliding layers' at head_dim 256, the full
  // layers' Gemma4RotaryEmbedding at global_head_dim 512 whole (gemma4_rope.py), each max_position_embeddings 131,072
  // rows × 2 B: 67,108,864 + 134,217,728 = 201,326,592. Without the flag, one table of 256: 67,108,864.
  model_spec one_table = without;
  one_table.weights.sliding_rope_apart = false;
  CHECK(kvsize::engines::vllm::loaded_buffers(without, big, dtype::bf16) == bytes{201'326'592ULL});
  CHECK(kvsize::engines::vllm::loaded_buffers(one_table, big, dtype::bf16) == bytes{67'108'864ULL});
}

TEST_CASE("Gemma 4 per engine, one 4,096-token sequence", "[engines][gemma4]") {
  const model_spec& m = config("google__gemma-4-26B-A4B.config.json");
  const engine_options o{.context = 4'096};
  // exact: 293,601,280 (above).
  CHECK(kvsize::size_cache(m, engine_kind::exact, o).kv_bytes_per_sequence == bytes{293'601'280});
  // transformers DynamicSlidingWindowLayer keeps W − 1 = 1,023 tokens: 20,480 × 4,096 + 204,800 × 1,023.
  CHECK(kvsize::size_cache(m, engine_kind::transformers, o).kv_bytes_per_sequence == bytes{83'886'080 + 209'510'400});
  // llama.cpp, flash attention on: the SWA cache holds PAD256(min(4,096, 1,024 + n_ubatch 512)) = 1,536
  // cells (llama-kv-cache-iswa.cpp): 20,480 × 4,096 + 204,800 × 1,536 = 83,886,080 + 314,572,800.
  CHECK(kvsize::size_cache(m, engine_kind::llama_cpp, o).kv_bytes_per_sequence == bytes{398'458'880});
  // Flash attention off: V transposed, every layer's V row as wide as the widest (8 × 256 = 2 × 512 × 2:
  // 4,096 B), so the full layers' V rows double: 5 × (2,048 + 4,096) × 4,096 + 314,572,800.
  engine_options no_fa = o;
  no_fa.llama_cpp.flash_attn = false;
  CHECK(kvsize::size_cache(m, engine_kind::llama_cpp, no_fa).kv_bytes_per_sequence ==
        bytes{5 * (2'048 + 4'096) * 4'096ULL + 314'572'800});
  // vLLM (hybrid manager): pages unified at the sliding layers' 16 × 8,192 B, so the full layers get
  // blocks of 32 tokens (kv_cache_utils.py unify_kv_cache_spec_page_size); groups of 5 layers
  // (25 sliding: 5 groups, 5 full: 1). Admission reserves cdiv(min(1,023 + 8,192, 4,096), 16) + 1 = 257
  // sliding blocks and 4,096 / 32 = 128 full blocks: (5 × 257 + 128) × 16 × 8,192 × 5 = 926,023,680.
  const auto v = kvsize::size_cache(m, engine_kind::vllm, o);
  CHECK(v.vllm.kv_cache_groups == 6);
  CHECK(v.kv_bytes_per_sequence == bytes{(5 * 257 + 128) * 16ULL * 8'192 * 5});
}
