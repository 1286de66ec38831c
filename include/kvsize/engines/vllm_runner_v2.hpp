// SPDX-License-Identifier: MIT
// vLLM 0.22's Model Runner V2 (vllm/v1/worker/gpu/, "V2"): which models 0.22 runs on it, and the
// terms of its profile run, from which gpu_worker.py computes the KV budget as for V1 (issue 13).
// Read in source at upstream main 3cb83c959 (2026-05-22), inside the window 39d5fa96a … 52a31ccec
// that 0.22.0's logged line numbers place it in; no commit of that window touches what follows
// (docs/research/vllm-model-runner-v2.md). No public 0.22 start-up log of a V2 run was found: the
// forward pass's equality with V1 and the non-torch term are inferred from identical code paths.
// Standard library only, constexpr, allocation-free.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>      // std::uint32_t, std::uint64_t
#include <string_view>  // std::string_view

#include "../bytes.hpp"
#include "../detail/checked.hpp"
#include "../dtype.hpp"
#include "../model_spec.hpp"
#include "engine_options.hpp"
#include "vllm_startup.hpp"  // release_of, max_num_batched_tokens, sampler_rows

namespace kvsize::engines::vllm {

/// The first release with Model Runner V2 as a default for some models (PR #39337,
/// https://github.com/vllm-project/vllm/pull/39337, merged 2026-05-14).
inline constexpr std::uint32_t model_runner_v2_since = 22;

/// Whether the release release_of(o) has a choice of model runner (0.22+: VLLM_USE_V2_MODEL_RUNNER, a
/// reasoning parser and the checkpoint decide it); before 0.22 V1 is the only runner.
[[nodiscard]] constexpr auto chooses_model_runner(const engine_options& o) -> bool {
  return release_of(o) >= model_runner_v2_since;
}

/// Whether release release_of(o) runs `m` on Model Runner V2 (vllm/config/vllm.py
/// VllmConfig.use_v2_model_runner): before 0.22 never; else VLLM_USE_V2_MODEL_RUNNER where set
/// (o.vllm.model_runner), else V2 for a default-V2 checkpoint (o.vllm.v2_default_checkpoint:
/// Qwen3ForCausalLM, no quantization_config) without experts (is_moe) and without recurrent layers
/// (has_inner_state: the hybrid models are V2's first unsupported feature), served without a
/// reasoning parser (any reasoning_config is another; so is speculative decoding other than
/// eagle/eagle3/mtp, pooling and the rest of _get_v2_model_runner_unsupported_features, which
/// kvsize does not model: with them, give model_runner v1).
[[nodiscard]] constexpr auto uses_model_runner_v2(const model_spec& m, const engine_options& o) -> bool {
  if (!chooses_model_runner(o)) {
    return false;
  }
  if (o.vllm.model_runner != vllm_model_runner::automatic) {
    return o.vllm.model_runner == vllm_model_runner::v2;
  }
  return o.vllm.v2_default_checkpoint && m.weights.moe.experts == 0 && recurrent_layers(m) == 0 &&
         !o.vllm.reasoning_parser;
}

/// Why V2, forced by VLLM_USE_V2_MODEL_RUNNER=1, cannot run `m` as `o` serves it, in words; empty when it
/// can or when V2 is not forced. _validate_v2_model_runner raises at start-up on the features
/// _get_v2_model_runner_unsupported_features lists; kvsize knows two of them: recurrent layers
/// (has_inner_state) and a reasoning config.
[[nodiscard]] constexpr auto forced_model_runner_v2_refusal(const model_spec& m, const engine_options& o)
    -> std::string_view {
  if (!chooses_model_runner(o) || o.vllm.model_runner != vllm_model_runner::v2) {
    return {};
  }
  if (recurrent_layers(m) != 0) {
    return "vLLM's Model Runner V2 does not run models with recurrent layers: VLLM_USE_V2_MODEL_RUNNER=1 fails at "
           "start-up (give model runner v1)";
  }
  if (o.vllm.reasoning_parser) {
    return "vLLM's Model Runner V2 does not support a reasoning parser: VLLM_USE_V2_MODEL_RUNNER=1 with one fails "
           "at start-up (give model runner v1, or no reasoning parser)";
  }
  return {};
}

/// V2's sampler holds, per element of the R × vocab logits and beyond the logits in the model dtype,
/// one float32 copy (gpu/sample/sampler.py: `empty_like(..., float32)` then copy): 4 B. The profile's
/// dummy requests have the default sampling state (temperature 0, no top-k/top-p, no penalties, no
/// logprobs), so nothing else of that size is made.
inline constexpr std::uint32_t v2_sampler_element_bytes = 4;

/// Bytes live beside V2's float32 logits at the sampler's peak (its Gumbel kernel): the forward
/// pass's T × hidden output and the R gathered hidden states, in the model dtype, both kept until
/// profile_run drops them; and gumbel.py's two scratch tensors of R × ⌈vocab / 1024⌉, int64 block
/// arg-maxes and float32 block maxima (12 B an element; fp64 Gumbel, off by default, is not modelled).
///   extra = (T + R) × hidden × b + 12 × R × ⌈vocab / 1024⌉
[[nodiscard]] constexpr auto v2_sampler_phase_extra(const model_spec& m, const engine_options& o, dtype served)
    -> bytes {
  using detail::checked_add;
  using detail::checked_mul;
  const std::uint64_t t = max_num_batched_tokens(o);
  const std::uint64_t r = sampler_rows(o);
  const bytes kept = storage_bytes(served, checked_mul(checked_add(t, r), m.hidden_size));
  const std::uint64_t blocks = detail::ceil_div(m.vocab_size, 1'024);
  return kept + bytes{checked_mul(checked_mul(12, r), blocks)};
}

}  // namespace kvsize::engines::vllm
