// SPDX-License-Identifier: MIT
// Kimi-Linear-48B-A3B (kimi_linear): 7 MLA layers (the 1-based linear_attn_config.full_attn_layers) and
// 20 KDA layers that keep a state and no KV, under each engine. Figures derived by hand beside each
// check from the config and the engines' code (docs/research/kimi-linear.md; docs/engines.md).
#include "engine_logs_support.hpp"  // Catch2, the kvsize headers, and the names the cases use

using namespace kvsize::test::engine_logs;

namespace {
const char* const kimi = "moonshotai__Kimi-Linear-48B-A3B-Instruct.config.json";
// One KDA layer's state (num_heads 32, head_dim 128, short_conv_kernel_size 4): the conv over q, k and v
// keeps 3 × (4 − 1) × 32 × 128 = 36,864 elements, the delta-rule state 32 × 128 × 128 = 524,288.
constexpr std::uint64_t conv_elements = 36'864;
constexpr std::uint64_t state_elements = 524'288;
constexpr std::uint64_t kda_layers = 20;
}  // namespace

TEST_CASE("Kimi-Linear: latent KV on 7 layers and a KDA state on 20, per engine", "[engines][kimi_linear][hybrid]") {
  const model_spec& m = config(kimi);
  const engine_options o{.context = 4'096};
  // Every engine but transformers caches the MLA latent: 512 + 64 = 576 elements × 2 B on 7 layers.
  for (const engine_kind e : {engine_kind::exact, engine_kind::vllm, engine_kind::sglang, engine_kind::llama_cpp}) {
    CAPTURE(e);
    CHECK(kvsize::size_cache(m, e, o).kv_bytes_per_token == bytes{7 * 576 * 2});
  }
  // transformers' remote code (KimiMLAAttention.forward → past_key_values.update) caches the expanded
  // heads: K 32 × 192 and V 32 × 128 per token and layer, as for DeepSeek.
  CHECK(kvsize::size_cache(m, engine_kind::transformers, o).kv_bytes_per_token == bytes{7 * 32 * (192 + 128) * 2});

  // SGLang (KimiLinearStateShape, mamba2_state_dtype): conv bf16, temporal float32.
  const auto sglang = kvsize::size_cache(m, engine_kind::sglang, o);
  CHECK(sglang.state_bytes_per_sequence == bytes{kda_layers * (conv_elements * 2 + state_elements * 4)});  // 43,417,600
  // llama.cpp: r_s and s_s in float32 (n_embd_r = 3 (K − 1) H d, n_embd_s = d d H).
  const auto llama = kvsize::size_cache(m, engine_kind::llama_cpp, o);
  CHECK(llama.state_bytes_per_sequence == bytes{kda_layers * (conv_elements + state_elements) * 4});  // 44,892,160
  // vLLM (kda_state_shape, kda_state_dtype): conv in the model dtype, the recurrent state float32 always.
  const auto vllm = kvsize::size_cache(m, engine_kind::vllm, o);
  CHECK(vllm.state.conv == dtype::bf16);
  CHECK(vllm.state.ssm == dtype::f32);
  // The KDA page, 36,864 × 2 + 524,288 × 4 = 2,170,880 B, over an MLA page of 1,152 B a token: vLLM's
  // HybridAttentionMambaModelConfig rounds cdiv(2,170,880, 1,152) = 1,885 up to a multiple of 64 (MLA's
  // kernel block alignment) = 1,920 tokens, and pads the KDA page to 1,920 × 1,152 = 2,211,840 B (1.89 %).
  CHECK(vllm.block_size == 1'920);
  const auto logged = lines(m, engine_kind::vllm, o, 40_GiB);
  CHECK(has_line(logged, "Setting attention block size to 1920 tokens to ensure that attention page size is >= "
                         "mamba page size."));
  CHECK(has_line(logged, "Padding mamba page size by 1.89% to ensure that mamba page size and attention page size "
                         "are exactly equal."));
  // vLLM's hybrid allocator groups layers by the attention group's size (7): 20 KDA layers fill 3 groups of 7,
  // so 21 slots (one padding layer) of one 2,211,840 B page each.
  CHECK(vllm.state_bytes_per_sequence == bytes{21 * 1'920 * 1'152});
}
