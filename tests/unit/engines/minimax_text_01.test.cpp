// SPDX-License-Identifier: MIT
// MiniMax-Text-01 / M1 (minimax_text_01, minimax_m1, transformers' minimax): 70 lightning-attention layers that
// keep a heads × head_dim × head_dim state and no KV, and 10 softmax GQA layers, under each engine. The shape is
// the model card's (80 layers, a softmax layer after every 7 lightning ones, 64 heads of 128, hidden 6144,
// 32 experts of 9216, top-2, vocab 200,064; https://huggingface.co/MiniMaxAI/MiniMax-Text-01) with vLLM's keys
// (models/minimax_text_01.py: attn_type_list, num_key_value_heads 8). MiniMax-M1's own config.json is bundled
// (configs/MiniMax-AI__MiniMax-M1.config.json, from the model's GitHub repository) and has this shape.
// Figures derived by hand beside each check; the engine rules are cited in docs/engines.md (lightning attention).
#include "engine_logs_support.hpp"  // Catch2, the kvsize headers, and the names the cases use

#include <catch2/matchers/catch_matchers_string.hpp>

#include <string>  // std::string

using namespace kvsize::test::engine_logs;

namespace {

/// attn_type_list for 80 layers: 0 (lightning) seven times, then 1 (softmax), ten times over.
auto attn_types() -> std::string {
  std::string list = "[";
  for (int i = 0; i < 80; ++i) {
    list += std::string(i == 0 ? "" : ", ") + ((i + 1) % 8 == 0 ? "1" : "0");
  }
  return list + "]";
}

auto minimax_text_01(const std::string& model_type = "minimax_text_01") -> std::string {
  return R"({"architectures": ["MiniMaxText01ForCausalLM"], "model_type": ")" + model_type +
         R"(", "num_hidden_layers": 80, "hidden_size": 6144, "intermediate_size": 9216,
    "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 200064,
    "num_local_experts": 32, "num_experts_per_tok": 2, "rotary_dim": 64, "shared_intermediate_size": 0,
    "tie_word_embeddings": false, "torch_dtype": "bfloat16", "attn_type_list": )" +
         attn_types() + "}";
}

// One lightning layer's state: 64 × 128 × 128 = 1,048,576 elements (vLLM linear_attention_state_shape).
constexpr std::uint64_t state_elements = 1'048'576;
constexpr std::uint64_t lightning_layers = 70;
// The 10 softmax layers: 8 KV heads × 128 × (K + V) × 2 B = 4,096 B a layer and token, 40,960 over the ten.
constexpr std::uint64_t kv_per_token = 10 * 8 * 128 * 2 * 2;

}  // namespace

TEST_CASE("MiniMax-Text-01: lightning layers keep a state, softmax layers K and V", "[engines][minimax][hf]") {
  const auto c = kvsize::hf::parse_config(minimax_text_01());
  const model_spec& m = c.spec;
  for (std::uint32_t il = 0; il < 80; ++il) {
    INFO("layer " << il);
    const bool softmax = (il + 1) % 8 == 0;
    CHECK(kvsize::kind_of_layer(m, il) == (softmax ? layer_kind::full : layer_kind::none));
    CHECK(kvsize::layer_keeps_state(m, il) == !softmax);
  }
  CHECK(m.weights.recurrent.kind == kvsize::recurrent_kind::lightning);
  CHECK(m.state.conv_elements == 0);
  CHECK(m.state.ssm_elements == state_elements);
  // By hand: embeddings and untied head 2 × 200,064 × 6,144 = 2,458,386,432; 70 lightning layers of qkv 3 × 8,192
  // × 6,144, output_gate and out_proj 8,192 × 6,144 each, norm 8,192 (251,666,432); 10 softmax layers of q/o
  // 2 × 8,192 × 6,144, k/v 2 × 1,024 × 6,144 (113,246,208); 80 MoE layers of 32 experts × 3 × 6,144 × 9,216, a
  // router 32 × 6,144 and 2 norms (5,436,026,880); final norm 6,144. Total 456,089,655,296: the model card's "456
  // billion total parameters". Active (2 of 32 experts): 48,403,306,496, which less the embeddings and head is
  // 45,944,920,064, the card's "45.9 billion ... activated per token".
  const auto p = kvsize::parameters(m);
  CHECK(p.total == 456'089'655'296ULL);
  CHECK(p.active == 48'403'306'496ULL);

  // The other spellings of the layers give the same model: decoder_attention_types, and transformers' MiniMaxConfig
  // (model_type "minimax", layer_types "linear_attention" / "full_attention").
  std::string types = attn_types();
  std::string named = "[";
  for (std::size_t i = 1; i < types.size(); ++i) {
    named += types[i] == '0' ? "\"linear_attention\"" : types[i] == '1' ? "\"full_attention\"" : std::string(1, types[i]);
  }
  const std::string text = minimax_text_01();
  const std::string renamed = text.substr(0, text.find("\"attn_type_list\"")) + "\"decoder_attention_types\": " + types + "}";
  CHECK(kvsize::hf::parse_config(renamed).spec == m);
  const std::string hf = minimax_text_01("minimax");
  const auto port = kvsize::hf::parse_config(hf.substr(0, hf.find("\"attn_type_list\"")) + "\"layer_types\": " + named + "}");
  CHECK(port.spec == m);
  // Without either, vLLM's MiniMaxText01Model makes every layer softmax attention; kvsize does too, and says so.
  const auto bare = kvsize::hf::parse_config(text.substr(0, text.find(", \"attn_type_list\"")) + "}");
  CHECK(kvsize::kv_bytes_per_token(bare.spec) == bytes{80 * 8 * 128 * 2 * 2});
  bool warned = false;
  for (const auto& w : bare.warnings) {
    warned = warned || w.find("/attn_type_list and /layer_types are absent") != std::string::npos;
  }
  CHECK(warned);
}

TEST_CASE("MiniMax-M1's config.json: the same model, and the checkpoint's bytes", "[engines][minimax][hf]") {
  // MiniMax-AI/MiniMax-M1 @2abb4f45 config.json (minimax_m1, no dtype key: float32 as transformers reads it).
  const auto c = kvsize::hf::load_config(std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs" /
                                         "MiniMax-AI__MiniMax-M1.config.json");
  model_spec synthetic = kvsize::hf::parse_config(minimax_text_01("minimax_m1")).spec;
  synthetic.compute_dtype = dtype::f32;
  synthetic.max_context = 10'240'000;  // its max_position_embeddings
  CHECK(stated(c.spec.stated, kvsize::context_key::max_position_embeddings) == 10'240'000);
  synthetic.stated = c.spec.stated;  // the length keys as read (the synthetic text states another length)
  CHECK(c.spec == synthetic);
  CHECK(kvsize::parameters(c.spec).total == 456'089'655'296ULL);
  // The repository's model.safetensors.index.json total_size, 912,210,767,872 B, is 2 B for each of those
  // parameters plus 2 B more for each of the 80 routers' 32 × 6,144 elements, which the checkpoint stores in float32
  // (moe_shape::router_f32; vLLM's MiniMaxText01MoE keeps the gate in float32 too).
  CHECK(c.spec.weights.moe.router_f32);
  CHECK(kvsize::weights_bytes(c.spec, kvsize::published_weights(dtype::bf16)) ==
        bytes{2 * 456'089'655'296ULL + 2 * 80 * 32 * 6'144ULL});
  CHECK(kvsize::weights_bytes(c.spec, kvsize::published_weights(dtype::bf16)) == bytes{912'210'767'872ULL});
}

TEST_CASE("MiniMax-Text-01 per engine, one 4,096-token sequence", "[engines][minimax]") {
  const model_spec m = kvsize::hf::parse_config(minimax_text_01()).spec;
  const engine_options o{.context = 4'096};
  // exact and transformers (MiniMaxCache): the state in the model dtype, 70 × 1,048,576 × 2 B = 146,800,640.
  for (const engine_kind e : {engine_kind::exact, engine_kind::transformers}) {
    CAPTURE(e);
    const auto s = kvsize::size_cache(m, e, o);
    CHECK(s.kv_bytes_per_token == bytes{kv_per_token});
    CHECK(s.kv_bytes_per_sequence == bytes{kv_per_token * 4'096});  // 167,772,160
    CHECK(s.state_bytes_per_sequence == bytes{lightning_layers * state_elements * 2});
  }
  // llama.cpp (minimax-01: n_embd_s = head_dim² × heads, no conv; the recurrent memory is float32):
  // 70 × 1,048,576 × 4 B = 293,601,280; K and V f16.
  const auto llama = kvsize::size_cache(m, engine_kind::llama_cpp, o);
  CHECK(llama.kv_bytes_per_token == bytes{kv_per_token});
  CHECK(llama.state_bytes_per_sequence == bytes{lightning_layers * state_elements * 4});
  // vLLM (linear_attention_state_dtype: mamba_cache_dtype "auto" → the model dtype): the page is 2,097,152 B;
  // an attention layer's token is 4,096 B, so HybridAttentionMambaModelConfig sets the attention block to
  // 2,097,152 / 4,096 = 512 tokens (a multiple of 16), the pages equal with no padding. Groups of 10 layers (the
  // softmax count): 1 attention group and 70 / 10 = 7 state groups, one 2,097,152 B page a slot.
  const auto vllm = kvsize::size_cache(m, engine_kind::vllm, o);
  CHECK(vllm.state.ssm == dtype::bf16);
  CHECK(vllm.block_size == 512);
  CHECK(vllm.state_bytes_per_sequence == bytes{7 * 10 * 2'097'152ULL});
  CHECK(vllm.kv_bytes_per_sequence == bytes{4'096 / 512 * 10 * 2'097'152ULL});
  const auto logged = lines(m, engine_kind::vllm, o, 40_GiB);
  CHECK(has_line(logged, "Setting attention block size to 512 tokens to ensure that attention page size is >= "
                         "mamba page size."));
  // Tensor parallel 8: 8 heads and 1 KV head a rank, a 8 × 128 × 128 × 2 B = 262,144 B page over 1 × 128 × 2 × 2 B
  // = 512 B a token: blocks of 512 still, and an eighth of the state, 7 × 10 × 262,144 B.
  engine_options tp8 = o;
  tp8.tp = 8;
  const auto rank = kvsize::size_cache(m, engine_kind::vllm, tp8);
  CHECK(rank.block_size == 512);
  CHECK(rank.state_bytes_per_sequence == bytes{7 * 10 * 262'144ULL});
  // vLLM 0.10(.0) ran the model on its V0 engine (the V1 state came with PR #22151, 0.10.1): refused.
  engine_options v10 = o;
  v10.vllm.release_minor = 10;
  CHECK_THROWS_AS(kvsize::size_cache(m, engine_kind::vllm, v10), kvsize::invalid_argument);
  // SGLang keeps the state in a fixed float32 MinimaxCacheManager of 32 sequences, allocated with the weights
  // (models/minimax_text_01.py): not modelled, refused.
  CHECK_THROWS_AS(kvsize::size_cache(m, engine_kind::sglang, o), kvsize::invalid_argument);
}

TEST_CASE("MiniMax-Text-01: what vLLM and the other engines refuse, and how vLLM finds the layers", "[engines][minimax]") {
  const std::string text = minimax_text_01();
  const model_spec m = kvsize::hf::parse_config(text).spec;
  // vLLM 0.11 to 0.19 refuse mamba_cache_dtype "float32" for it (linear_attention_state_dtype: "fp32 state for
  // minimax is not yet supported"); upstream dropped the check in April 2026, so 0.20 sizes a float32 state.
  engine_options f32{.context = 4'096, .state_dtype = dtype::f32};
  f32.vllm.release_minor = 19;
  CHECK_THROWS_AS(kvsize::size_cache(m, engine_kind::vllm, f32), kvsize::invalid_argument);
  f32.vllm.release_minor = 20;
  CHECK(kvsize::size_cache(m, engine_kind::vllm, f32).state_bytes_per_sequence == bytes{70 * 1'048'576ULL * 4});
  // TensorRT-LLM: not checked, refused.
  CHECK_THROWS_AS(kvsize::size_cache(m, engine_kind::trtllm, engine_options{.context = 4'096}), kvsize::invalid_argument);
  // The same refusals asked without a try block (kvsize::model_refusal), in the words size_cache throws.
  const engine_options plain{.context = 4'096};
  f32.vllm.release_minor = 19;
  CHECK_THAT(std::string{kvsize::model_refusal(engine_kind::vllm, m, f32)}, Catch::Matchers::ContainsSubstring("fp32 state for minimax"));
  CHECK(kvsize::model_refusal(engine_kind::vllm, m, plain).empty());
  CHECK_THAT(std::string{kvsize::model_refusal(engine_kind::sglang, m, plain)}, Catch::Matchers::ContainsSubstring("MinimaxCacheManager"));
  CHECK_THAT(std::string{kvsize::model_refusal(engine_kind::trtllm, m, plain)}, Catch::Matchers::ContainsSubstring("lightning"));
  CHECK(kvsize::model_refusal(engine_kind::llama_cpp, m, plain).empty());
  CHECK(kvsize::model_refusal(engine_kind::exact, m, plain).empty());
  try {
    (void)kvsize::size_cache(m, engine_kind::sglang, plain);
    FAIL("sglang sized a lightning model");
  } catch (const kvsize::invalid_argument& e) {
    CHECK(std::string{e.what()} == kvsize::model_refusal(engine_kind::sglang, m, plain));
  }
  // An empty attn_type_list is falsy to vLLM ("getattr(...) or getattr(...)"): decoder_attention_types decides.
  const std::string empty_first = text.substr(0, text.find("\"attn_type_list\"")) + "\"attn_type_list\": [], " +
                                  "\"decoder_attention_types\": " + text.substr(text.find("\"attn_type_list\": ") + 18);
  CHECK(kvsize::hf::parse_config(empty_first).spec == m);
}
