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
//   max_num_token        = int(rest_memory × 2^30 // cell_size)
// Terms of kvsize::startup_budget:
//   pre_load_free = device − non_torch          (CUDA context, NCCL/custom all-reduce buffers)
//   unused        = pre_load_free × (1 − f)     (kept for activations, CUDA graphs, logits)
//   kv            = pre_load_free − weights − unused   (0 when that is negative: SGLang raises
//                   "Not enough memory. Please try to increase --mem-fraction-static.")
// so kv + weights + non_torch + unused == device. SGLang's "GB" in its logs is 2^30 bytes (GiB).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>      // std::int64_t, std::uint32_t
#include <string_view>  // std::string_view

#include "../bytes.hpp"
#include "../error.hpp"
#include "../startup_budget.hpp"
#include "engine_options.hpp"
#include "sglang.hpp"  // engines::sglang::auto_mem_fraction_static (the 0.5 reserve rule)

namespace kvsize::engines::sglang {

/// Which release's default mem_fraction_static rule applies when the user gives none.
enum class fraction_rule : std::uint8_t {
  v0_4,  ///< SGLang 0.4.x server_args.py __post_init__: a table by TP (0.88 at tp 1, 0.85 at tp 4)
  v0_5,  ///< SGLang 0.5.x server_args.py _handle_gpu_memory_settings: reserve from GPU memory, TP, graphs
};

/// The release named in the budget for each rule.
[[nodiscard]] constexpr auto version_name(fraction_rule r) -> std::string_view {
  return r == fraction_rule::v0_4 ? "0.4" : "0.5";
}

/// SGLang 0.4.x default (python/sglang/srt/server_args.py, ServerArgs.__post_init__, "Set mem fraction
/// static, which depends on the tensor parallelism size": 0.79 at tp ≥ 16, 0.81 at ≥ 8, 0.85 at ≥ 4,
/// 0.87 at ≥ 2, else 0.88, in the 0.4.x releases of https://github.com/sgl-project/sglang).
/// Public logs agree: 0.88 at tp 1 (sgl-project/sglang PR #4760, S2), 0.85 at tp 4 (S3).
[[nodiscard]] constexpr auto legacy_mem_fraction_static(std::uint32_t tp) -> double {
  if (tp >= 16) {
    return 0.79;
  }
  if (tp >= 8) {
    return 0.81;
  }
  if (tp >= 4) {
    return 0.85;
  }
  if (tp >= 2) {
    return 0.87;
  }
  return 0.88;
}

/// mem_fraction_static: the user's value (o.sglang.mem_fraction_static != 0), else the rule of `rule`.
/// The 0.5 rule needs the device memory (o.device_memory, or `device` when that is 0).
[[nodiscard]] constexpr auto default_fraction(const engine_options& o, bytes device, fraction_rule rule) -> double {
  if (o.sglang.mem_fraction_static != 0) {
    return o.sglang.mem_fraction_static;
  }
  if (rule == fraction_rule::v0_4) {
    return legacy_mem_fraction_static(o.tp);
  }
  return auto_mem_fraction_static(o.device_memory.count() != 0 ? o.device_memory : device, o.tp, o.pp);
}

}  // namespace kvsize::engines::sglang

namespace kvsize {

/// SGLang's KV budget on one device (one TP rank).
///   device    : total memory as the process sees it (cudaMemGetInfo total), bytes
///   non_torch : memory in use before the weights load (CUDA context, NCCL, custom all-reduce), bytes
///   weights   : memory the weight load took ("Load weight end … mem usage"), bytes
///   o         : tp, pp, mem_fraction_static (0 → the rule of `rule`), device_memory
/// kv is the pool's budget in bytes; #tokens = kv // cell_size (engines::sglang::capacity).
/// Throws kvsize::invalid_argument for a fraction outside (0, 1] or non_torch > device; never wraps.
[[nodiscard]] constexpr auto sglang_startup_budget(bytes device, bytes non_torch, bytes weights,
                                                   const engine_options& o,
                                                   engines::sglang::fraction_rule rule =
                                                       engines::sglang::fraction_rule::v0_5)
    -> startup_budget {
  const double fraction = engines::sglang::default_fraction(o, device, rule);
  if (!(fraction > 0.0 && fraction <= 1.0)) {
    throw kvsize::invalid_argument("kvsize: sglang mem_fraction_static must lie in (0, 1]");
  }
  if (non_torch > device) {
    throw kvsize::invalid_argument("kvsize: sglang non-torch memory exceeds the device memory");
  }
  startup_budget b{.device = device, .fraction = fraction, .non_torch = non_torch,
                   .engine_version = engines::sglang::version_name(rule)};
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
  b.kv = after_load - unused;
  return b;
}

}  // namespace kvsize
