// SPDX-License-Identifier: MIT
// Engine profiles: the KV cache as vLLM, SGLang, llama.cpp, TensorRT-LLM and transformers
// really allocate it, and the exact minimum. Standard library only, constexpr, allocation-free.
//
//   kvsize::engine_options o{.context = 32'768, .tp = 2};
//   const auto s = kvsize::size_cache(model, kvsize::engine_kind::vllm, o);   // per device
//   const auto c = kvsize::engine_capacity_for(model, kvsize::engine_kind::vllm, o, 44 * kvsize::GiB);
//   c.max_tokens;       // vLLM's "GPU KV cache size: N tokens"
//   c.max_concurrency;  // vLLM's "Maximum concurrency for 32,768 tokens per request: X.XXx"
//
// The log lines themselves are text: see the opt-in <kvsize/engines_fmt.hpp>.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint32_t

#include "error.hpp"
#include "bytes.hpp"
#include "engines/common.hpp"
#include "engines/exact.hpp"
#include "engines/llama_cpp.hpp"
#include "engines/sglang.hpp"
#include "engines/transformers.hpp"
#include "engines/trtllm.hpp"
#include "engines/vllm.hpp"
#include "model_spec.hpp"

namespace kvsize {

/// Devices a model's layers are split over. llama.cpp has no tensor parallelism of the cache:
/// its multi-device mode splits layers, so --tp and --pp both count layer-split devices there.
[[nodiscard]] constexpr auto layer_split_devices(engine_kind e, const engine_options& o) -> std::uint32_t {
  return e == engine_kind::llama_cpp ? o.tp * o.pp : o.pp;
}

/// The sizing of layers `r` on one device (one TP rank).
[[nodiscard]] constexpr auto size_stage(const model_spec& m, engine_kind e, const engine_options& o,
                                        detail::stage_range r) -> engine_sizing {
  switch (e) {
    case engine_kind::exact: return engines::exact::size_stage(m, o, r);
    case engine_kind::vllm: return engines::vllm::size_stage(m, o, r);
    case engine_kind::sglang: return engines::sglang::size_stage(m, o, r);
    case engine_kind::llama_cpp: return engines::llama_cpp::size_stage(m, o, r);
    case engine_kind::trtllm: return engines::trtllm::size_stage(m, o, r);
    case engine_kind::transformers: return engines::transformers::size_stage(m, o, r);
  }
  throw kvsize::invalid_argument("kvsize: unknown engine");
}

/// What engine `e` allocates for model `m` on one device: one TP rank of the pipeline stage
/// whose cache is largest (for llama.cpp: the device with the most layers' cache).
/// Throws kvsize::invalid_argument for an invalid model or option, kvsize::overflow_error on overflow.
[[nodiscard]] constexpr auto size_cache(const model_spec& m, engine_kind e, const engine_options& o)
    -> engine_sizing {
  detail::check_options(m, o);
  const std::uint32_t stages = layer_split_devices(e, o);
  if (stages > m.layers) {
    throw kvsize::invalid_argument("kvsize: more devices in the layer split than layers");
  }
  engine_sizing best{};
  bytes best_bytes{0};
  for (std::uint32_t stage = 0; stage < stages; ++stage) {
    const engine_sizing s = size_stage(m, e, o, detail::pp_stage(m.layers, stages, stage));
    const bytes total = s.kv_bytes_per_sequence + s.state_bytes_per_sequence + s.kv_bytes;
    if (stage == 0 || total > best_bytes) {
      best = s;
      best_bytes = total;
    }
  }
  return best;
}

/// What fits in `kv_budget` bytes on one device, counted as engine `e` counts it.
[[nodiscard]] constexpr auto engine_capacity_for(const model_spec& m, engine_kind e, const engine_options& o,
                                                 bytes kv_budget) -> engine_capacity {
  const engine_sizing s = size_cache(m, e, o);
  switch (e) {
    case engine_kind::exact: return engines::exact::capacity(s, kv_budget);
    case engine_kind::vllm: return engines::vllm::capacity(s, o, kv_budget);
    case engine_kind::sglang: return engines::sglang::capacity(s, o, kv_budget);
    case engine_kind::llama_cpp: return engines::llama_cpp::capacity(s, kv_budget);
    case engine_kind::trtllm: return engines::trtllm::capacity(s, o, kv_budget);
    case engine_kind::transformers: return engines::transformers::capacity(s, kv_budget);
  }
  throw kvsize::invalid_argument("kvsize: unknown engine");
}

/// How engine `e` turns one device's memory and the weights it holds into a KV budget:
///   exact, transformers: memory − weights − overhead
///   vLLM:      gpu_memory_utilization × memory − weights − overhead (peak activations, non-torch)
///   SGLang:    mem_fraction_static (given, or its auto rule) × memory − weights − overhead
///   llama.cpp: memory − weights − overhead − 1 GiB (--fit's margin)
///   TRT-LLM:   (memory − weights − overhead) × free_gpu_memory_fraction
[[nodiscard]] constexpr auto engine_kv_budget(engine_kind e, bytes device_memory, bytes weights_per_device,
                                              const engine_options& o) -> bytes {
  switch (e) {
    case engine_kind::exact: return engines::exact::kv_budget(device_memory, weights_per_device, o);
    case engine_kind::vllm: return engines::vllm::kv_budget(device_memory, weights_per_device, o);
    case engine_kind::sglang: return engines::sglang::kv_budget(device_memory, weights_per_device, o);
    case engine_kind::llama_cpp: return engines::llama_cpp::kv_budget(device_memory, weights_per_device, o);
    case engine_kind::trtllm: return engines::trtllm::kv_budget(device_memory, weights_per_device, o);
    case engine_kind::transformers: return engines::transformers::kv_budget(device_memory, weights_per_device, o);
  }
  throw kvsize::invalid_argument("kvsize: unknown engine");
}

}  // namespace kvsize
