// SPDX-License-Identifier: MIT
// SGLang's start-up KV budget on one device, as SGLang computes it (issue 13).
// Standard library only, constexpr, allocation-free.
//
// python/sglang/srt/model_executor/model_runner.py, ModelRunner.profile_max_num_token
// (https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/model_executor/model_runner.py):
//   total_gpu_memory     = free memory (GiB, cudaMemGetInfo) after the distributed init, BEFORE the
//                          weights load ("Load weight begin. avail mem=…"): device − non-torch
//   available_gpu_memory = free memory after the weights load ("Load weight end. avail mem=…")
//   rest_memory          = available_gpu_memory − total_gpu_memory × (1 − mem_fraction_static)
//                          − from 0.5.18 a multimodal model's reserve (mem_cache/kv_cache_configurator.py
//                          KVCacheConfigurator._profile_available_bytes, mm_runtime_reservation_gb; sglang_vlm.hpp)
//   max_num_token        = int(rest_memory × 2^30 // cell_size)
// Terms of kvsize::startup_budget:
//   pre_load_free = device − non_torch          (CUDA context, NCCL/custom all-reduce buffers)
//   unused        = pre_load_free × (1 − f)     (kept for activations, CUDA graphs, logits)
//   reserve       = multimodal_reserve (100 MiB for a multimodal model from 0.5.18, else 0)
//   kv            = pre_load_free − weights − unused − reserve   (0 when that is negative: SGLang raises
//                   "Not enough memory. Please try to increase --mem-fraction-static.")
// so kv + weights + non_torch + reserve + unused == device. SGLang's "GB" in its logs is 2^30 bytes (GiB).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>  // std::min
#include <cstdint>    // std::uint64_t

#include "../bytes.hpp"
#include "../error.hpp"
#include "../startup_budget.hpp"
#include "engine_options.hpp"
#include "sglang_dsa.hpp"       // engines::sglang::version_of
#include "sglang_fraction.hpp"  // engines::sglang::default_fraction
#include "sglang_vlm.hpp"       // engines::sglang::multimodal_reserve

namespace kvsize {

/// SGLang's KV budget on one device (one TP rank).
///   device    : total memory as the process sees it (cudaMemGetInfo total), bytes
///   non_torch : memory in use before the weights load (CUDA context, NCCL, custom all-reduce), bytes
///   weights   : memory the weight load took ("Load weight end … mem usage"), bytes
///   o         : tp, pp, mem_fraction_static (0 → the default rule of sglang.release, on
///               sglang.reported_memory, else device_memory, else `device`), times engine_factor(o): the aiter
///               factor on an AMD GPU (sglang.rocm, the context, the model facts) and the runner's multimodal
///               factor before 0.4.9 (sglang.vlm); from 0.5.18 a multimodal model's reserve (sglang.vlm, the release)
/// kv is the pool's budget in bytes; #tokens = kv // cell_size (engines::sglang::capacity).
/// Throws kvsize::invalid_argument for a fraction outside (0, 1] or non_torch > device; never wraps.
[[nodiscard]] constexpr auto sglang_startup_budget(bytes device, bytes non_torch, bytes weights,
                                                   const engine_options& o) -> startup_budget {
  const double factor = engines::sglang::engine_factor(o);  // the aiter factor, the runner's multimodal factor
  const double fraction = engines::sglang::default_fraction(o, device) * factor;
  if (!(fraction > 0.0 && fraction <= 1.0)) {
    throw kvsize::invalid_argument("kvsize: sglang mem_fraction_static must lie in (0, 1]");
  }
  if (non_torch > device) {
    throw kvsize::invalid_argument("kvsize: sglang non-torch memory exceeds the device memory");
  }
  startup_budget b{.device = device, .fraction = fraction, .non_torch = non_torch, .engine_factor = factor,
                   .engine_version = engines::sglang::version_name(o.sglang.release)};
  const bytes pre_load_free = device - non_torch;
  // total_gpu_memory × (1 − f), floored to whole bytes (the engine works in float GiB).
  const bytes unused{static_cast<std::uint64_t>(static_cast<double>(pre_load_free.count()) * (1.0 - fraction))};
  if (weights > pre_load_free) {  // the load itself ran out: everything free went to weights
    b.weights = pre_load_free;
    b.unused = bytes{0};
    return b;  // kv 0; balanced(): weights + non_torch == device
  }
  b.weights = weights;
  const bytes after_load = pre_load_free - weights;
  if (unused >= after_load) {  // rest_memory <= 0: SGLang refuses to start
    b.unused = after_load;
    return b;
  }
  b.unused = unused;
  const bytes reserve = engines::sglang::multimodal_reserve(o.sglang.vlm, engines::sglang::version_of(o));
  b.reserve = std::min(reserve, after_load - unused);  // all that is left when the reserve does not fit: kv 0
  b.kv = after_load - unused - b.reserve;
  return b;
}

}  // namespace kvsize
