// SPDX-License-Identifier: MIT
// DeepSeek's fp8 latent layout for sparse attention (DSA: DeepSeek-V3.2, GLM-5), as vLLM's fp8_ds_mla and SGLang's DSA
// pool keep it: a row's bytes a token and layer. Shared by engines/vllm.hpp and engines/sglang_dsa.hpp. Standard
// library only, constexpr.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include "../bytes.hpp"

namespace kvsize::engines {

/// 512 fp8 NoPE values, 512 / 128 × 4 B of float32 scales and 64 bf16 RoPE values: 656 B a token and layer (vLLM
/// v1/attention/backends/mla/flashmla_sparse.py; SGLang mem_cache/memory_pool.py NSATokenToKVPool). The kernels fix
/// the shape, kv_lora_rank 512 and qk_rope_head_dim 64, which every DSA model has.
inline constexpr bytes dsa_fp8_latent_row{656};

}  // namespace kvsize::engines
