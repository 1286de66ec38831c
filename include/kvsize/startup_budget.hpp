// SPDX-License-Identifier: MIT
// The KV budget an engine computes at start-up on ONE device, term by term, in the engine's own
// words. Every serving engine sizes its KV cache from what it measures while it starts: device memory
// as CUDA/HIP reports it to the process, the weights as loaded, the peak of a profiling run, memory
// outside the framework's allocator (NCCL, CUDA context, cuBLAS workspaces), CUDA graphs, and a rule
// (a fraction of the total or of what is free). This struct holds those terms; each engine's
// `<engine>_budget.hpp` fills it the way that engine's source does, and the report, the plan and the
// engine's log lines all read the one `kv` it gives.
// Standard library only, constexpr, allocation-free.
//
//   kv = engine rule(device, fraction, weights, activation_peak, non_torch, cuda_graphs, reserve)
//
// The identity every engine's budget keeps (checked by tests/unit/startup_budget.test.cpp):
//   kv + weights + activation_peak + non_torch + cuda_graphs + reserve + unused == device
// where `unused` is what the rule leaves to nobody (vLLM: (1 − gpu_memory_utilization) × device).
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <string_view>  // std::string_view

#include "bytes.hpp"

namespace kvsize {

/// One device's start-up budget, as engine `engine_version` computes it. Every field is bytes on
/// that one device (one tensor-parallel rank, the largest pipeline stage).
struct startup_budget {
  bytes device{0};           ///< total device memory as the process sees it (cudaMemGetInfo total)
  double fraction = 1.0;     ///< the engine's fraction setting (gpu_memory_utilization, mem_fraction_static,
                             ///< free_gpu_memory_fraction) as it sizes with it (budget_rule::sized_fraction:
                             ///< SGLang's aiter factor on an AMD GPU included); 1 where the engine has none
  bytes weights{0};          ///< weights as the engine loads them on this device
  bytes activation_peak{0};  ///< the framework allocator's peak increase during the profiling run
  bytes non_torch{0};        ///< memory outside the allocator (NCCL buffers, CUDA context, cuBLAS)
  bytes cuda_graphs{0};      ///< CUDA-graph memory the engine subtracts (0 where it does not)
  bytes reserve{0};          ///< any other amount the rule keeps away from the KV cache (margins)
  bytes unused{0};           ///< what the rule leaves to nobody ((1 − fraction) of the device or of the free)
  bytes kv{0};               ///< what is left for the KV cache: the one KV budget of the device
  /// The factor the engine put on its setting before sizing (`fraction` / engine_factor is the setting the command
  /// line gives: budget_rule::engine_factor); 1 for none.
  double engine_factor = 1.0;
  std::string_view engine_version{};  ///< the release whose rules were applied ("0.19")
  std::string_view model_runner{};    ///< the engine's runner that profiled ("v1", "v2": vLLM 0.22+); else empty

  /// The terms that are not KV: everything on the device the cache cannot use.
  [[nodiscard]] constexpr auto overhead() const -> bytes {
    return weights + activation_peak + non_torch + cuda_graphs + reserve;
  }
  /// Whether the terms add up to the device (see the identity above); false when the rule ran out
  /// of memory (kv == 0 and the terms exceed what was there).
  [[nodiscard]] constexpr auto balanced() const -> bool {
    return kv + overhead() + unused == device;
  }
};

}  // namespace kvsize
