// SPDX-License-Identifier: MIT
// vLLM's sparse MLA backends under DeepSeek sparse attention (DSA: DeepSeek-V3.2, GLM-5): which one serves the
// model on this device and release, and with it the layout of an fp8 latent cache, DeepSeek's fp8_ds_mla (656 B a
// token and layer: 512 fp8 NoPE values, 4 float32 scales, 64 bf16 RoPE values;
// vllm/v1/attention/backends/mla/flashmla_sparse.py) or a plain 576-byte fp8 row, or none (refused). Part of the vLLM
// engine (engines/vllm.hpp). Standard library only, constexpr.
//
// Sources (vllm-project/vllm at the release tags v0.17.1, v0.18.0, v0.19.0, v0.22.0; docs/research/vllm-v32-fp8-ds-mla.md):
// - The backends (vllm/v1/attention/backends/mla/): FLASHMLA_SPARSE, compute capability 9.x or 10.x, cache dtypes
//   auto, bfloat16, fp8_ds_mla and, from 0.18, "fp8" (an alias of fp8_ds_mla); FLASHINFER_MLA_SPARSE, 10.x only,
//   auto and bfloat16 until 0.17, then also float16, fp8 and fp8_e4m3 (a plain fp8 row); ROCm's
//   rocm_aiter_mla_sparse, auto, float16 and bfloat16, and from 0.21 fp8 and fp8_e4m3 (a plain row). No sparse
//   backend on any other device (8.x, 12.x).
// - 0.11 – 0.17: vllm/model_executor/models/config.py DeepseekV32ForCausalLM.verify_and_update_config rewrites any
//   cache dtype starting "fp8" to "fp8_ds_mla" before a backend is chosen, for that architecture only.
// - 0.18 on: vllm/platforms/cuda.py _get_backend_priorities puts FLASHINFER_MLA_SPARSE first on SM100 at ≤ 16 query
//   heads a rank (0.18), or for any fp8 cache (0.19 on, PR #37252); the first backend that takes the dtype is used,
//   and MLAAttention.__init__ (layers/attention/mla_attention.py) gives FLASHMLA_SPARSE's fp8 cache the fp8_ds_mla
//   layout. A checkpoint's FP8 cache reaches the backend as "fp8_e4m3" (get_kv_cache_quant_algo_string), a typed
//   --kv-cache-dtype fp8 as "fp8".
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>      // std::uint32_t
#include <string_view>  // std::string_view

#include "../dtype.hpp"
#include "engine_options.hpp"
#include "vllm_startup.hpp"  // release_of

namespace kvsize::engines::vllm {

/// The first release that serves DeepSeek sparse attention (DeepseekV32ForCausalLM, PR #25896).
inline constexpr std::uint32_t sparse_mla_since = 11;
/// The first release that registers GLM-5 (GlmMoeDsaForCausalLM, vllm/model_executor/models/registry.py).
inline constexpr std::uint32_t glm_moe_dsa_since = 16;
/// The first release with a sparse MLA backend on ROCm (vllm/platforms/rocm.py: 0.11 raises "Sparse Attention is
/// not supported on ROCm").
inline constexpr std::uint32_t rocm_sparse_since = 12;
/// The first release whose ROCm sparse MLA backend keeps an fp8 cache (rocm_aiter_mla_sparse.py: "fp8", "fp8_e4m3").
inline constexpr std::uint32_t rocm_fp8_sparse_since = 21;
/// The first release that chooses the layout by backend (MLAAttention.__init__), not by architecture.
inline constexpr std::uint32_t sparse_mla_by_backend_since = 18;
/// The first release that puts FLASHINFER_MLA_SPARSE first on SM100 for an fp8 cache at any head count.
inline constexpr std::uint32_t sm100_fp8_flashinfer_since = 19;
/// At or below this many query heads a rank, 0.18 puts FLASHINFER_MLA_SPARSE first on SM100 (FlashMLA pads heads).
inline constexpr std::uint32_t sm100_flashinfer_max_heads = 16;
/// The first release with FLASHINFER_MLA_SPARSE (SM100's backend list in vllm/platforms/cuda.py), whose
/// supported_dtypes take a float16 model; FLASHMLA_SPARSE's are bfloat16 only at every release.
inline constexpr std::uint32_t sm100_float16_sparse_since = 17;
/// The first release whose FLASHINFER_MLA_SPARSE takes a qk_nope_head_dim other than 128 (supports_combination:
/// [128, 192] from v0.19.0; GLM-5's is 192).
inline constexpr std::uint32_t flashinfer_sparse_nope_192_since = 19;
/// The first release whose ROCm sparse backend takes a float16 model (rocm_aiter_mla_sparse.py supported_dtypes).
inline constexpr std::uint32_t rocm_float16_sparse_since = 18;

/// A DSA model's latent cache as vLLM is given it on one rank.
struct sparse_mla_case {
  std::uint32_t heads_per_rank = 0;   ///< query heads a rank (num_heads // tp, as deepseek_v2.py passes them)
  dtype latent = dtype::bf16;         ///< the cache's element type
  dtype model = dtype::bf16;          ///< the dtype vLLM serves the model in (the backends' supported_dtypes)
  std::uint32_t nope_head_dim = 128;  ///< qk_nope_head_dim (FLASHINFER_MLA_SPARSE takes 128 only before 0.19)
  bool checkpoint_fp8 = false;        ///< the type is a checkpoint's FP8 taken at `auto` (vLLM: "fp8_e4m3")
};

/// What serves it: the sparse backend and the layout of its fp8 latent, or why nothing does.
struct sparse_mla_choice {
  bool fp8_ds_mla = false;   ///< the 656-byte layout (else the latent row in the cache type)
  std::string_view refusal;  ///< non-empty: vLLM cannot serve this configuration, in words
};

/// Why no sparse MLA backend runs the model's dtype `c.model`, in words; empty when one does. bfloat16 everywhere;
/// float16 on ROCm from 0.18 and on SM100 (or an unknown device) from 0.17 (FlashInfer's backend, which 0.17 gives
/// only an `auto` or bfloat16 cache, at a qk_nope_head_dim it supports: `flashinfer_shape`); float32 nowhere.
[[nodiscard]] constexpr auto model_dtype_refusal(const engine_options& o, const sparse_mla_case& c,
                                                 bool flashinfer_shape) -> std::string_view {
  const std::uint32_t release = release_of(o);
  const std::uint32_t major = o.vllm.compute_capability / 10;
  const bool fp8 = is_fp8(c.latent);
  const bool sm100_or_unknown = major == 10 || major == 0;
  const bool float16_served =
      o.vllm.rocm ? release >= rocm_float16_sparse_since
                  : sm100_or_unknown && release >= sm100_float16_sparse_since && flashinfer_shape &&
                        (release >= sparse_mla_by_backend_since || !fp8);
  if (c.model == dtype::bf16 || (c.model == dtype::f16 && float16_served)) {
    return {};
  }
  if (c.model == dtype::f16 && !o.vllm.rocm && sm100_or_unknown && release >= sm100_float16_sparse_since &&
      !flashinfer_shape) {
    return "FLASHINFER_MLA_SPARSE, vLLM's one sparse MLA backend for a float16 model on a B200 / GB200, takes a "
           "qk_nope_head_dim of 128, or 192 (GLM-5's) from 0.19 (supports_combination): --dtype bfloat16";
  }
  return "vLLM's sparse MLA backends run a bfloat16 model (FLASHMLA_SPARSE at every release), or a float16 one on a "
         "B200 / GB200 from 0.17 (FLASHINFER_MLA_SPARSE, at a qk_nope_head_dim of 128, or 192 from 0.19; with an fp8 "
         "cache from 0.18) or on ROCm from 0.18: --dtype bfloat16";
}

/// A float16 cache over a bfloat16 model, which vLLM names "float16" from 0.18 (an `auto` cache is the model's
/// type): FLASHMLA_SPARSE's supported_kv_cache_dtypes (auto, bfloat16, fp8_ds_mla, fp8) leave it out;
/// FLASHINFER_MLA_SPARSE (0.18 on) and ROCm's rocm_aiter_mla_sparse take it.
[[nodiscard]] constexpr auto named_float16_cache(const sparse_mla_case& c) -> bool {
  return c.latent == dtype::f16 && c.model != dtype::f16;
}

/// The cache under an explicit --attention-backend (o.vllm.fp8_ds_mla set), whatever its type. FLASHMLA_SPARSE
/// (true) runs a bfloat16 model only (its supported_dtypes) and takes a 16-bit cache, a bfloat16 model's "fp8" from
/// 0.18 (as fp8_ds_mla) and, before that, only the fp8_ds_mla that DeepseekV32ForCausalLM's config hook makes of any
/// fp8 type. FLASHINFER_MLA_SPARSE (false) exists from 0.17, runs on compute capability 10.x at a qk_nope_head_dim it
/// supports (`flashinfer_shape`) and takes "fp8" or "fp8_e4m3" (a plain row) from 0.18. Neither takes "fp8_e5m2"
/// from 0.18. The compute capability (9.x or 10.x, or unknown) and a model dtype that no backend runs are checked by
/// the caller.
[[nodiscard]] constexpr auto explicit_sparse_backend(const engine_options& o, const sparse_mla_case& c,
                                                     bool flashinfer_shape) -> sparse_mla_choice {
  const std::uint32_t release = release_of(o);
  const bool fp8 = is_fp8(c.latent);
  const bool by_backend = release >= sparse_mla_by_backend_since;
  if (*o.vllm.fp8_ds_mla) {
    if (c.model != dtype::bf16) {
      return {false, "FLASHMLA_SPARSE runs a bfloat16 model only (its supported_dtypes): --dtype bfloat16"};
    }
    if (named_float16_cache(c)) {
      return {false, "FLASHMLA_SPARSE takes auto, bfloat16 or fp8 caches, not float16 (its "
                     "supported_kv_cache_dtypes): --kv-dtype bf16"};
    }
    if (!fp8) {
      return {};
    }
    if (by_backend && c.latent == dtype::fp8_e5m2) {
      return {false, "vLLM's sparse MLA backends take fp8 or fp8_e4m3 caches, not fp8_e5m2: --kv-dtype fp8"};
    }
    if (by_backend ? c.checkpoint_fp8 : !o.vllm.deepseek_v32_checkpoint) {
      return {false, by_backend ? "FLASHMLA_SPARSE takes --kv-cache-dtype fp8, not the fp8_e4m3 that a checkpoint's "
                                  "FP8 cache resolves to at auto: --kv-dtype fp8 names it so"
                                : "vLLM 0.17 and before convert only DeepseekV32ForCausalLM's fp8 cache to fp8_ds_mla "
                                  "(models/config.py), the one fp8 type FLASHMLA_SPARSE takes there: --kv-dtype bf16"};
    }
    return {true, {}};
  }
  const std::uint32_t major = o.vllm.compute_capability / 10;
  if (release < sm100_float16_sparse_since || (major != 0 && major != 10) || !flashinfer_shape) {
    return {false, "FLASHINFER_MLA_SPARSE runs from 0.17, on compute capability 10.x (B200 / GB200), at a "
                   "qk_nope_head_dim of 128, or 192 (GLM-5's) from 0.19"};
  }
  if (fp8 && (!by_backend || c.latent == dtype::fp8_e5m2)) {
    return {false, by_backend ? "vLLM's sparse MLA backends take fp8 or fp8_e4m3 caches, not fp8_e5m2: --kv-dtype fp8"
                              : "FLASHINFER_MLA_SPARSE keeps an fp8 cache from 0.18; 0.17's takes auto or bfloat16: "
                                "--kv-dtype bf16"};
  }
  return {};
}

/// Why this release serves no DSA model (or not GLM-5, or not on ROCm), in words; empty when it does.
[[nodiscard]] constexpr auto release_refusal(const engine_options& o) -> std::string_view {
  const std::uint32_t release = release_of(o);
  if (release < sparse_mla_since) {
    return "vLLM serves DeepSeek sparse attention from 0.11 (DeepseekV32ForCausalLM, PR #25896)";
  }
  if (o.glm_moe_dsa_checkpoint && release < glm_moe_dsa_since) {
    return "vLLM registers GLM-5 (GlmMoeDsaForCausalLM) from 0.16";
  }
  if (o.vllm.rocm && release < rocm_sparse_since) {
    return "vLLM 0.11 has no sparse attention on ROCm (platforms/rocm.py: \"Sparse Attention is not supported on "
           "ROCm\"); its sparse MLA backend comes in 0.12";
  }
  return {};
}

/// vLLM's choice for `c` under `o` (the release, o.vllm.compute_capability, o.vllm.rocm,
/// o.vllm.deepseek_v32_checkpoint, o.glm_moe_dsa_checkpoint; o.vllm.fp8_ds_mla, an explicit backend, decides the
/// layout of an fp8 cache). A device of unknown compute capability (0) takes Hopper's rule, the devices DSA's
/// kernels were first written for, unless only SM100's FLASHINFER_MLA_SPARSE takes the model or the cache (a float16
/// model, a checkpoint's "fp8_e4m3"): then SM100's.
[[nodiscard]] constexpr auto sparse_mla_choice_of(const engine_options& o, const sparse_mla_case& c)
    -> sparse_mla_choice {
  const bool fp8 = is_fp8(c.latent);
  const std::uint32_t release = release_of(o);
  const std::uint32_t major = o.vllm.compute_capability / 10;
  if (const std::string_view too_old = release_refusal(o); !too_old.empty()) {
    return {false, too_old};
  }
  const bool flashinfer_shape =
      c.nope_head_dim == 128 || (c.nope_head_dim == 192 && release >= flashinfer_sparse_nope_192_since);
  if (const std::string_view dtype_refusal = model_dtype_refusal(o, c, flashinfer_shape); !dtype_refusal.empty()) {
    return {false, dtype_refusal};
  }
  if (o.vllm.rocm) {
    const bool refused = fp8 && (release < rocm_fp8_sparse_since || c.latent == dtype::fp8_e5m2);
    return refused ? sparse_mla_choice{false, "vLLM's ROCm sparse MLA backend (rocm_aiter_mla_sparse) keeps auto, "
                                              "float16 or bfloat16 caches, and from 0.21 fp8 or fp8_e4m3"}
                   : sparse_mla_choice{};
  }
  if (major != 0 && major != 9 && major != 10) {
    return {false, "vLLM's sparse MLA backends need compute capability 9.x or 10.x (FLASHMLA_SPARSE) or 10.x "
                   "(FLASHINFER_MLA_SPARSE): none serves DeepSeek sparse attention on this GPU"};
  }
  if (o.vllm.fp8_ds_mla) {  // an explicit backend: its own rules, whatever the cache type
    return explicit_sparse_backend(o, c, flashinfer_shape);
  }
  if (named_float16_cache(c) && (major == 9 || !flashinfer_shape)) {
    return {false, "vLLM's FLASHMLA_SPARSE takes auto, bfloat16 or fp8 caches, not float16 (its "
                   "supported_kv_cache_dtypes); FLASHINFER_MLA_SPARSE takes it on a B200 / GB200 only, at a "
                   "qk_nope_head_dim of 128, or 192 from 0.19: --kv-dtype bf16"};
  }
  if (!fp8) {
    return {};  // a float16 cache on SM100 (or an unknown device, where only FlashInfer takes it): FlashInfer's
  }
  const bool e5m2 = c.latent == dtype::fp8_e5m2;
  if (release < sparse_mla_by_backend_since) {
    return o.vllm.deepseek_v32_checkpoint
               ? sparse_mla_choice{true, {}}
               : sparse_mla_choice{false, "vLLM 0.17 and before convert only DeepseekV32ForCausalLM's fp8 cache to "
                                          "fp8_ds_mla (models/config.py); no sparse backend there takes another fp8 "
                                          "cache: --kv-dtype bf16"};
  }
  // From 0.18, by the name vLLM is given: FLASHMLA_SPARSE takes "fp8" (as fp8_ds_mla), FLASHINFER_MLA_SPARSE "fp8"
  // and "fp8_e4m3" (a plain row); neither takes "fp8_e5m2".
  const bool named_e4m3 = c.checkpoint_fp8 && !e5m2;
  const bool flashmla_takes = !e5m2 && !named_e4m3 && c.model == dtype::bf16;
  const bool flashinfer_takes = !e5m2 && flashinfer_shape;
  if (major == 10 || (major == 0 && !flashmla_takes && flashinfer_takes)) {  // SM100, or unknown and only it serves
    const bool flashinfer_first =
        release >= sm100_fp8_flashinfer_since || c.heads_per_rank <= sm100_flashinfer_max_heads;
    if (flashinfer_takes && (flashinfer_first || !flashmla_takes)) {
      return {false, {}};
    }
    if (flashmla_takes) {
      return {true, {}};
    }
    return {false, e5m2 ? "vLLM's sparse MLA backends take fp8 or fp8_e4m3 caches, not fp8_e5m2: --kv-dtype fp8"
                        : "no sparse MLA backend of this vLLM takes this cache on a B200 / GB200: FLASHMLA_SPARSE "
                          "takes fp8 (not the fp8_e4m3 a checkpoint's FP8 resolves to), FLASHINFER_MLA_SPARSE fp8 "
                          "or fp8_e4m3 but, before 0.19, only a qk_nope_head_dim of 128: --kv-dtype fp8"};
  }
  if (flashmla_takes) {  // Hopper (or an unknown device): FLASHMLA_SPARSE only
    return {true, {}};
  }
  return {false,
          e5m2 ? "vLLM's sparse MLA backend on Hopper (FLASHMLA_SPARSE) takes fp8, not fp8_e5m2: --kv-dtype fp8"
          : flashinfer_shape
              ? "vLLM's sparse MLA backend on Hopper (FLASHMLA_SPARSE) takes --kv-cache-dtype fp8, not the fp8_e4m3 "
                "that a checkpoint's FP8 cache resolves to at auto: --kv-dtype fp8 names it so (on a B200 or GB200, "
                "--gpu b200, FLASHINFER_MLA_SPARSE takes fp8_e4m3)"
              : "vLLM's sparse MLA backend on Hopper (FLASHMLA_SPARSE) takes --kv-cache-dtype fp8, not the fp8_e4m3 "
                "that a checkpoint's FP8 cache resolves to at auto: --kv-dtype fp8 names it so (on a B200 or GB200 "
                "FLASHINFER_MLA_SPARSE takes fp8_e4m3 at a qk_nope_head_dim of 192, GLM-5's, only from 0.19)"};
}

}  // namespace kvsize::engines::vllm
