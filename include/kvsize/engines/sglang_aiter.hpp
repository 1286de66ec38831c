// SPDX-License-Identifier: MIT
// kvsize::engines::sglang: the factor SGLang puts on mem_fraction_static on an AMD GPU, where its attention backend
// is aiter and the context is long. Part of the SGLang engine (engines/sglang.hpp). Standard library only, constexpr.
//
// Sources (sgl-project/sglang; read at every tag from v0.4.6.post5 to v0.5.18):
// - The factor: `if attention_backend == "aiter": if model_config.context_len > 8192: mem_fraction_static *= 0.85`.
//   v0.4.7 – v0.5.4 in model_executor/model_runner.py ModelRunner.model_specific_adjustment (called from __init__),
//   on ModelRunner's own copy: the value server_args prints is not scaled. From v0.5.4.post1 in server_args.py
//   _handle_attention_backend_compatibility, after the default is rounded and the vision factor applied
//   (sglang_vlm.hpp), on the printed value; 0.90 in v0.5.4.post1 only. A --mem-fraction-static given is scaled too.
// - context_len (configs/model_config.py ModelConfig.__init__): --context-length where given (the command always
//   gives it), else the model's maximum.
// - The default backend on HIP (server_args.py _handle_attention_backend_compatibility, and the model-specific
//   handlers that run before it): aiter for an MHA / GQA model; for an MLA model aiter only where
//   get_num_kv_heads(tp_size) = max(1, num_key_value_heads // tp) is 16 or 128, else triton (before v0.5.3rc2 also
//   only without speculative decoding, which kvsize does not model). Overrides: GptOssForCausalLM triton in
//   v0.5.0rc0 – v0.5.9 (aiter from v0.5.10rc0); Olmo2ForCausalLM triton from v0.5.4; MiniMax-M3-Sparse triton from
//   v0.5.16 (arg_groups/overrides.py _minimax_m3_overrides); DeepSeek sparse attention's own backend (nsa, dsa).
//   Not modelled: an --attention-backend given (kvsize has no such option), dual-chunk models (v0.5.0rc1 – v0.5.4),
//   Llama 4 on HIP in v0.4.9.post6 – v0.5.5 (which starts only with --attention-backend given).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>      // std::uint8_t, std::uint32_t, std::uint64_t
#include <string_view>  // std::string_view

#include "sglang_release.hpp"

namespace kvsize::engines::sglang {

/// A model class as SGLang's default attention backend on HIP sees it (its architectures[0]).
enum class hip_attention_class : std::uint8_t {
  generic,            ///< the default rule: aiter (MLA: by KV heads per rank)
  gpt_oss,            ///< GptOssForCausalLM: triton in v0.5.0rc0 – v0.5.9
  olmo2,              ///< Olmo2ForCausalLM: triton from v0.5.4
  minimax_m3_sparse,  ///< MiniMaxM3Sparse{ForCausalLM, ForConditionalGeneration}: triton from v0.5.16
};

[[nodiscard]] constexpr auto hip_attention_class_of(std::string_view architecture) -> hip_attention_class {
  if (architecture == "GptOssForCausalLM") {
    return hip_attention_class::gpt_oss;
  }
  if (architecture == "Olmo2ForCausalLM") {
    return hip_attention_class::olmo2;
  }
  if (architecture == "MiniMaxM3SparseForCausalLM" || architecture == "MiniMaxM3SparseForConditionalGeneration") {
    return hip_attention_class::minimax_m3_sparse;
  }
  return hip_attention_class::generic;
}

/// The releases of the factor and of the overrides (see the sources above).
inline constexpr release aiter_factor_since{.minor = 4, .patch = 7, .rc = 0, .candidate = false, .post = 0};
/// v0.5.4.post1 multiplies by 0.90; v0.5.4.post2 on by 0.85 again.
inline constexpr release aiter_factor_0_90_since{.minor = 5, .patch = 4, .rc = 0, .candidate = false, .post = 1};
inline constexpr release aiter_factor_0_90_until{.minor = 5, .patch = 4, .rc = 0, .candidate = false, .post = 2};
inline constexpr release gpt_oss_triton_since = release_0_5(0, 0);
inline constexpr release gpt_oss_aiter_since = release_0_5(10, 0);
inline constexpr release olmo2_triton_since = release_0_5(4);
inline constexpr release minimax_m3_sparse_triton_since = release_0_5(16);
/// The context above which the factor applies (context_len > 8192).
inline constexpr std::uint64_t aiter_long_context = 8'192;

/// The model as the factor reads it: its class, whether it caches MLA latents, whether it has DeepSeek sparse
/// attention's indexer (its own backend), and its num_key_value_heads (MLA: the config's, not the latent's 1).
struct aiter_model {
  hip_attention_class attention_class = hip_attention_class::generic;
  bool latent = false;
  bool sparse_index = false;
  std::uint32_t kv_heads = 0;
};

/// SGLang release `v` picks aiter by default on HIP for this model at tensor parallelism `tp`.
[[nodiscard]] constexpr auto aiter_by_default(const aiter_model& m, const release& v, std::uint32_t tp) -> bool {
  if (m.sparse_index) {
    return false;  // nsa (v0.5.3rc2 – v0.5.14), dsa (v0.5.15+)
  }
  switch (m.attention_class) {
    case hip_attention_class::gpt_oss:
      if (at_least(v, gpt_oss_triton_since) && !at_least(v, gpt_oss_aiter_since)) {
        return false;
      }
      break;
    case hip_attention_class::olmo2:
      if (at_least(v, olmo2_triton_since)) {
        return false;
      }
      break;
    case hip_attention_class::minimax_m3_sparse:
      if (at_least(v, minimax_m3_sparse_triton_since)) {
        return false;
      }
      break;
    case hip_attention_class::generic:
      break;
  }
  if (!m.latent) {
    return true;
  }
  const std::uint32_t per_rank = tp == 0 || m.kv_heads / tp == 0 ? 1 : m.kv_heads / tp;  // max(1, kv // tp)
  return per_rank == 16 || per_rank == 128;
}

/// The factor release `v` puts on mem_fraction_static (a given one too) on an AMD GPU (`rocm`) for model `m` at
/// tensor parallelism `tp` and context_len `context`: 0.85 (0.90 in v0.5.4.post1) where the backend is aiter and the
/// context is above 8,192 tokens; 1 otherwise.
[[nodiscard]] constexpr auto aiter_fraction_factor(bool rocm, const aiter_model& m, const release& v, std::uint32_t tp,
                                                   std::uint64_t context) -> double {
  if (!rocm || context <= aiter_long_context || !at_least(v, aiter_factor_since) || !aiter_by_default(m, v, tp)) {
    return 1.0;
  }
  return at_least(v, aiter_factor_0_90_since) && !at_least(v, aiter_factor_0_90_until) ? 0.90 : 0.85;
}

}  // namespace kvsize::engines::sglang
