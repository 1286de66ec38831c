// SPDX-License-Identifier: MIT
// kvsize::checkpoint_kv_cache: the KV cache a quantized checkpoint declares (ModelOpt's kv_cache_scheme /
// kv_cache_quant_algo, compressed-tensors' kv_cache_scheme), in the forms the serving engines' default cache dtype
// reads. The config reader fills it (hf::parsed_config::checkpoint_kv), engine_options carries it, each engine's
// checkpoint_kv_dtype decides. Standard library only.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint8_t

namespace kvsize {

/// The KV cache a quantized checkpoint declares, in the forms the engines' default cache dtype ("auto") reads
/// (docs/engines.md, "An FP8 KV cache the checkpoint declares").
enum class checkpoint_kv_cache : std::uint8_t {
  none,
  /// NVIDIA ModelOpt: kv_cache_scheme {"type": "float", "num_bits": 8, "dynamic": false} (or the string "FP8"), else,
  /// with no kv_cache_scheme, kv_cache_quant_algo "FP8" (hf_quant_config.json's form): vLLM's
  /// get_kv_cache_quant_algo_string, which reads the scheme first. Weights in an FP8 form (SGLang's ModelOptFp8Config,
  /// which passes it to SGLang's default only from 0.5.4).
  modelopt_fp8,
  /// The same, with NVFP4 weights (quant_algo NVFP4 / W4A16_NVFP4): SGLang's ModelOptFp4Config, which passes it to
  /// SGLang's default from 0.5.3rc1.
  modelopt_nvfp4_fp8,
  /// compressed-tensors: kv_cache_scheme {"type": "float", "num_bits": 8}.
  compressed_tensors_fp8,
};

}  // namespace kvsize
