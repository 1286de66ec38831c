// SPDX-License-Identifier: MIT
// Compile-time facts of model_spec and the KV formulas: presets as template arguments,
// per-layer kinds, windows (compiling is passing).
#include <kvsize/kvsize.hpp>

using namespace kvsize::literals;
using kvsize::bytes;
using kvsize::layer_kind;

// A model spec is a literal type usable as a template argument (C++20 class-type NTTP).
template <kvsize::model_spec M>
struct kv_per_token_of {
  static constexpr bytes value = kvsize::kv_bytes_per_token(M);
};
static_assert(kv_per_token_of<kvsize::presets::llama_3_8b>::value == 128_KiB);  // 2·32·8·128·2
static_assert(kv_per_token_of<kvsize::presets::qwen2_5_1_5b>::value == 28_KiB);

// Uniform models are one line.
constexpr kvsize::model_spec mistral_7b{.layers = 32, .attention_heads = 32, .kv_heads = 8, .hidden_size = 4'096,
                                        .vocab_size = 32'000};
static_assert(kvsize::effective_head_dim(mistral_7b) == 128);  // 4096 / 32
static_assert(kvsize::kv_bytes_per_token(mistral_7b) == 128_KiB);
static_assert(kvsize::gqa_ratio(mistral_7b) == 4.0);

// MHA when kv_heads is left 0: GPT-2 XL, 48 layers × 25 heads × 64 → 2·48·1600·2 = 307,200 B (f16).
constexpr kvsize::model_spec gpt2_xl{.layers = 48, .attention_heads = 25, .hidden_size = 1'600, .vocab_size = 50'257,
                                     .compute_dtype = kvsize::dtype::f16};
static_assert(kvsize::kv_bytes_per_token(gpt2_xl) == bytes{307'200});
static_assert(kvsize::gqa_ratio(gpt2_xl) == 1.0);

// Sliding window on every layer (Mistral-7B-v0.1, W = 4096): per-sequence KV stops growing at W.
constexpr kvsize::model_spec mistral_v01_swa = [] {
  auto m = mistral_7b;
  m.attention = layer_kind::sliding;
  m.sliding_window = 4'096;
  return m;
}();
static_assert(kvsize::kv_bytes_per_sequence(mistral_v01_swa, 2'048) == 256_MiB);  // 2,048 × 128 KiB
static_assert(kvsize::kv_bytes_per_sequence(mistral_v01_swa, 32'768) == 512_MiB); // capped at 4,096 × 128 KiB
static_assert(kvsize::kv_bytes_per_token(mistral_v01_swa) == 128_KiB);             // still 128 KiB while short

// Gemma-3-style 5 sliding : 1 full over 12 layers, window 1024 (illustrative shape: 4 KV heads × 256).
constexpr kvsize::model_spec five_to_one = [] {
  kvsize::model_spec m{.layers = 12, .attention_heads = 8, .kv_heads = 4, .head_dim = 256, .hidden_size = 2'560,
                       .vocab_size = 262'208, .sliding_window = 1'024};
  for (std::uint32_t il = 0; il < m.layers; ++il) {
    m.layer[il].kind = (il + 1) % 6 != 0 ? layer_kind::sliding : layer_kind::full;
  }
  return m;
}();
static_assert(kvsize::count_layers(five_to_one, layer_kind::sliding) == 10);
static_assert(kvsize::count_layers(five_to_one, layer_kind::full) == 2);
// per layer per token: 2 × 4 × 256 × 2 B = 4 KiB; 12 layers → 48 KiB/token while short.
static_assert(kvsize::kv_bytes_per_token(five_to_one) == 48_KiB);
// At 8,192 tokens: 2 full × 8,192 × 4 KiB + 10 sliding × 1,024 × 4 KiB = 64 MiB + 40 MiB.
static_assert(kvsize::kv_bytes_per_sequence(five_to_one, 8'192) == 104_MiB);

// Latent attention (DeepSeek-V3 shape): 61 layers × (512 + 64) elements × 2 B = 70,272 B/token,
// whatever num_key_value_heads says; the expanded MHA form is 128 × (128 + 64) K + 128 × 128 V.
constexpr kvsize::model_spec deepseek_v3{.layers = 61, .attention_heads = 128, .kv_heads = 128, .head_dim = 192,
                                         .head_dim_v = 128, .hidden_size = 7'168, .vocab_size = 129'280,
                                         .attention = layer_kind::latent,
                                         .latent = {.kv_lora_rank = 512, .rope_head_dim = 64, .nope_head_dim = 128,
                                                    .v_head_dim = 128}};
static_assert(kvsize::kv_bytes_per_token(deepseek_v3) == bytes{70'272});
static_assert(kvsize::kv_bytes_per_token_mha(deepseek_v3) == bytes{61ULL * 128 * (192 + 128) * 2});
static_assert(kvsize::gqa_ratio(deepseek_v3) == 128.0);

// Hybrid: 4 layers, one attention layer, three Mamba layers with a 1,000-element state.
constexpr kvsize::model_spec tiny_hybrid = [] {
  kvsize::model_spec m{.layers = 4, .attention_heads = 8, .kv_heads = 2, .head_dim = 64, .hidden_size = 512,
                       .vocab_size = 1'000, .state = {.conv_elements = 600, .ssm_elements = 400}};
  for (std::uint32_t il : {0U, 1U, 2U}) {
    m.layer[il] = {.kind = layer_kind::none, .recurrent = true};
  }
  return m;
}();
static_assert(kvsize::kv_layers(tiny_hybrid) == 1);
static_assert(kvsize::kv_bytes_per_token(tiny_hybrid) == bytes{2 * 2 * 64 * 2});
static_assert(kvsize::state_bytes_per_sequence(tiny_hybrid) == bytes{3 * 1'000 * 2});
static_assert(kvsize::state_bytes_per_sequence(tiny_hybrid, kvsize::dtype::f32) == bytes{3 * 1'000 * 4});

// Separate K and V element types (llama.cpp --cache-type-k q8_0 --cache-type-v f16):
// Llama-3-8B K: 32 × 1,024 elements × 34/32 B = 34,816 B; V: 32 × 1,024 × 2 B = 65,536 B.
static_assert(kvsize::kv_bytes_per_token(kvsize::presets::llama_3_8b, kvsize::kv_dtypes{kvsize::dtype::q8_0,
                                                                                          kvsize::dtype::f16}) ==
              bytes{34'816 + 65'536});

// validate() accepts the presets.
static_assert((kvsize::validate(kvsize::presets::qwen2_5_7b), true));
static_assert((kvsize::validate(deepseek_v3), true));
static_assert((kvsize::validate(five_to_one), true));
