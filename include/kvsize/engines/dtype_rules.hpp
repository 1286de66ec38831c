// SPDX-License-Identifier: MIT
// The element-type vocabulary engines share: what a config says about its dtype (config_dtype_facts),
// the element types of a stage (stage_dtypes) and the rules most engines share for them. Each
// engine's own rules are in its header (`serving_dtype`, `stage_types`). Standard library only,
// constexpr.
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

/// The facts a model_spec and the engine's options carry: the spec's compute dtype, as named, and
/// whether the user named it (engine_options::dtype_given, vLLM/SGLang `--dtype`). Byte-exact for
/// every engine's rule (gemma and mxfp4 change SGLang's choice between f16 and bf16, never the size).
[[nodiscard]] constexpr auto dtype_facts(const model_spec& m, const engine_options& o) -> config_dtype_facts {
  return {m.compute_dtype, true, false, false, o.dtype_given};
}

namespace detail {

/// The element types of one stage's cache, as the engine's own rules give them (each engine's
/// `stage_types`, in its header): K and V, and the two recurrent states.
struct stage_dtypes {
  kv_dtypes kv{dtype::f16, dtype::f16};
  state_dtypes state{};
};

/// `o.kv` when given, else the engine's default K/V types `automatic`.
[[nodiscard]] constexpr auto kv_or(const engine_options& o, kv_dtypes automatic) -> kv_dtypes {
  return o.kv ? *o.kv : automatic;
}

/// The state rule most engines share (vLLM's mamba_cache_dtype / mamba_ssm_cache_dtype "auto",
/// TensorRT-LLM, transformers, exact): `--state-dtype` for both states, else the serving dtype.
[[nodiscard]] constexpr auto state_in(const engine_options& o, dtype served) -> state_dtypes {
  const dtype t = o.state_dtype ? *o.state_dtype : served;
  return {t, t};
}

}  // namespace detail
}  // namespace kvsize
