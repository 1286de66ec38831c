// SPDX-License-Identifier: MIT
// vLLM's layout of an fp8 latent cache under DeepSeek sparse attention (DSA: DeepSeek-V3.2, GLM-5): DeepSeek's
// fp8_ds_mla (656 B a token and layer: 512 fp8 NoPE values, 4 float32 scales, 64 bf16 RoPE values;
// vllm/v1/attention/backends/mla/flashmla_sparse.py) or a plain 576-byte fp8 latent row. Which one depends on the
// release, the checkpoint's architecture, the device and the heads a rank holds. Part of the vLLM engine
// (engines/vllm.hpp). Standard library only, constexpr.
//
// Sources (vllm-project/vllm at the release tags; docs/research/vllm-v32-fp8-ds-mla.md):
// - 0.11 – 0.17: vllm/model_executor/models/config.py DeepseekV32ForCausalLM.verify_and_update_config rewrites any
//   cache dtype starting "fp8" to "fp8_ds_mla" before a backend is chosen, for that architecture only (v0.17.1).
// - 0.18 on: the rewrite moved to vllm/model_executor/layers/attention/mla_attention.py MLAAttention.__init__ (PR
//   #35891), and happens where the backend chosen is FLASHMLA_SPARSE; FLASHINFER_MLA_SPARSE keeps the plain fp8 row.
//   vllm/platforms/cuda.py _get_backend_priorities lists only FLASHMLA_SPARSE for sparse MLA on every CUDA
//   device but SM100 (compute capability 10.x), where FLASHINFER_MLA_SPARSE comes first at ≤ 16 heads a rank (v0.18.0)
//   and, from v0.19.0 (PR #37252), for any fp8 cache whatever the heads.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint32_t

#include "../dtype.hpp"
#include "engine_options.hpp"
#include "vllm_startup.hpp"  // release_of

namespace kvsize::engines::vllm {

/// The first release that chooses the layout by backend (MLAAttention.__init__), not by architecture.
inline constexpr std::uint32_t sparse_mla_by_backend_since = 18;
/// The first release that puts FLASHINFER_MLA_SPARSE first on SM100 for an fp8 cache at any head count.
inline constexpr std::uint32_t sm100_fp8_flashinfer_since = 19;
/// At or below this many query heads a rank, 0.18 puts FLASHINFER_MLA_SPARSE first on SM100 (FlashMLA pads heads).
inline constexpr std::uint32_t sm100_flashinfer_max_heads = 16;

/// Whether vLLM keeps a DSA model's latent cache, of element type `latent_type`, in the fp8_ds_mla layout on a rank
/// that holds `heads_per_rank` query heads. `o.vllm.fp8_ds_mla` decides where it is set (an explicit
/// --attention-backend); else the rule above, for a cache type that starts "fp8" (fp8_e4m3, fp8_e5m2):
/// 0.11 – 0.17 for DeepseekV32ForCausalLM checkpoints (o.vllm.deepseek_v32_checkpoint); from 0.18 on every device
/// but SM100, and on SM100 in 0.18 above 16 heads a rank. A device of unknown compute capability (0) takes
/// Hopper's rule, the devices DSA's kernels were first written for.
[[nodiscard]] constexpr auto stores_fp8_ds_mla(const engine_options& o, std::uint32_t heads_per_rank, dtype latent_type)
    -> bool {
  if (o.vllm.fp8_ds_mla) {
    return *o.vllm.fp8_ds_mla;
  }
  if (latent_type != dtype::fp8_e4m3 && latent_type != dtype::fp8_e5m2) {
    return false;
  }
  const std::uint32_t release = release_of(o);
  if (release < sparse_mla_by_backend_since) {
    return o.vllm.deepseek_v32_checkpoint;
  }
  const bool sm100 = o.vllm.compute_capability / 10 == 10;
  if (!sm100) {
    return true;
  }
  return release < sm100_fp8_flashinfer_since && heads_per_rank > sm100_flashinfer_max_heads;
}

}  // namespace kvsize::engines::vllm
