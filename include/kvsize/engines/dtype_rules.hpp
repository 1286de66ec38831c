// SPDX-License-Identifier: MIT
// The element-type rules engines share: what a config says about its dtype (config_dtype_facts),
// the serving and default K/V dtype dispatch (declared here, defined in <kvsize/engine.hpp>), the
// K/V types a sizing uses, and the one recurrent-state dtype rule. Standard library only, constexpr.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include "../dtype.hpp"
#include "../layer_groups.hpp"  // state_dtypes
#include "../model_spec.hpp"
#include "engine_options.hpp"

namespace kvsize {

/// What the engines' `dtype="auto"` rules read from a config.json: the dtype it names (float32 when
/// it names none, as transformers and vLLM's _find_dtype read such a file), and two model facts that
/// SGLang's rule also reads.
struct config_dtype_facts {
  dtype config_dtype = dtype::f32;  ///< `dtype` / `torch_dtype`; f32 when absent
  bool named = true;                ///< the config names its dtype
  bool gemma = false;               ///< model_type starts with "gemma"
  bool mxfp4 = false;               ///< quantization_config.quant_method is "mxfp4" (gpt-oss)
  bool given = false;               ///< the user named the dtype (vLLM/SGLang `--dtype`, not auto):
                                    ///< every engine but llama.cpp then computes in it, float32 too
};

/// The facts a model_spec alone carries: its compute dtype, as named. Byte-exact for every rule
/// below (gemma and mxfp4 change SGLang's choice between f16 and bf16, never the size).
[[nodiscard]] constexpr auto dtype_facts(const model_spec& m) -> config_dtype_facts {
  return {m.compute_dtype, true, false, false};
}

/// The element type engine `e` computes in (its weights when unquantized, activations, and the
/// KV cache unless told otherwise) when started with its default `--dtype auto`. Each engine's rule,
/// with its source, is its type's `serving_dtype` (include/kvsize/engines/<engine>.hpp); this is the
/// dispatch, defined in <kvsize/engine.hpp> (declared here because start_sizing and the engines'
/// size_stage read it).
[[nodiscard]] constexpr auto serving_dtype(engine_kind e, const config_dtype_facts& f) -> dtype;

/// The K and V element types engine `e` gives its cache when told nothing (its type's
/// `default_kv_dtypes`); defined in <kvsize/engine.hpp>.
[[nodiscard]] constexpr auto default_kv_dtypes(engine_kind e, const config_dtype_facts& f) -> kv_dtypes;

namespace detail {

/// K and V element types of stage sizing: `o.kv`, else the engine's own default for this model.
[[nodiscard]] constexpr auto kv_types(engine_kind e, const model_spec& m, const engine_options& o) -> kv_dtypes {
  return o.kv ? *o.kv : default_kv_dtypes(e, dtype_facts(m));
}

/// The element types engine `e` keeps a recurrent state in (the one state-dtype rule):
///   vLLM (mamba_ssm_cache_dtype / mamba_cache_dtype "auto"), TensorRT-LLM, transformers, exact:
///     `--state-dtype`, else the serving dtype (vLLM serves a float32 config in bfloat16).
///   SGLang: conv in the serving dtype; SSM in `--state-dtype`, else float32 (server_args.py
///     `mamba_ssm_dtype` "float32").
///   llama.cpp: float32 for both whatever is asked (src/llama-model.cpp `create_memory` makes its
///     llama_memory_recurrent with GGML_TYPE_F32 for the r and s tensors).
[[nodiscard]] constexpr auto state_types(engine_kind e, const model_spec& m, const engine_options& o)
    -> state_dtypes {
  const dtype served = serving_dtype(e, dtype_facts(m));
  switch (e) {
    case engine_kind::llama_cpp: return {dtype::f32, dtype::f32};
    case engine_kind::sglang: return {served, o.state_dtype ? *o.state_dtype : dtype::f32};
    case engine_kind::exact:
    case engine_kind::vllm:
    case engine_kind::trtllm:
    case engine_kind::transformers: break;
  }
  const dtype t = o.state_dtype ? *o.state_dtype : served;
  return {t, t};
}

}  // namespace detail
}  // namespace kvsize
