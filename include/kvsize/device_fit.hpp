// SPDX-License-Identifier: MIT
// One budget per device: from ONE sizing, the KV budget of one device with its parts (device memory,
// weights, the workspace the engine profiles, the engine's rule), and what fits in it. The planner's
// points, the CLI's "KV capacity" and the engine's log lines all come from this one computation.
// Standard library only, constexpr, allocation-free.
//
//   const auto s = kvsize::size_cache(model, kvsize::engine_kind::vllm, o);
//   const auto f = kvsize::fit_on_device(model, kvsize::engine_kind::vllm, s, o, 24 * kvsize::GiB, weights);
//   f.budget.kv;           // what vLLM's rule leaves for the KV cache after its profiling run
//   f.capacity.max_tokens; // its "GPU KV cache size"
//
// Why the workspace is subtracted: every serving engine sizes its cache from what is left AFTER its
// own profiling (vLLM gpu_worker.py `determine_available_memory`: requested memory − weights − peak
// activations − non-torch memory; TensorRT-LLM's profiling forward pass; llama.cpp reserves its
// compute buffer before the cache). The workspace terms are kvsize's estimate of that profile.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <string_view>  // std::string_view

#include "error.hpp"
#include "bytes.hpp"
#include "detail/search.hpp"
#include "engine.hpp"
#include "model_spec.hpp"
#include "startup_budget.hpp"
#include "workspace.hpp"

namespace kvsize {

/// The KV budget of one device, with its parts:
///   kv = rule(device_memory, weights, workspace)        (apply_budget_rule)
///   device_memory = weights + workspace + reserve + kv  (when the weights and workspace fit)
struct device_budget {
  bytes device_memory{0};
  bytes weights{0};    ///< weights on this device
  bytes workspace{0};  ///< the engine's workspace (logits, activations, sampler, runtime): its overhead
  budget_rule rule{};  ///< the engine's fraction and margin
  bytes reserve{0};    ///< kept away from the KV cache by the rule beyond weights and workspace
  bytes kv{0};         ///< what the rule leaves for the KV cache
};

/// One device's budget and what fits in it, from one sizing.
struct device_fit {
  device_budget budget{};
  workspace_terms workspace{};  ///< the terms of budget.workspace
  engine_capacity capacity{};   ///< what fits in budget.kv, as the engine counts
  startup_budget startup{};     ///< the same budget in the engine's start-up terms (startup.kv == budget.kv)
};

/// The release of engine E whose rules kvsize applies under options `o` ("0.19"), or empty where the
/// engine type does not name one (an engine type may: `static constexpr std::string_view version`, or
/// `version_name(o)` where the release is a knob, as vLLM's `--engine-version`).
template <class E>
[[nodiscard]] constexpr auto engine_version_of(const engine_options& o) -> std::string_view {
  if constexpr (requires { E::version_name(o); }) {
    return E::version_name(o);
  } else if constexpr (requires { std::string_view{E::version}; }) {
    return E::version;
  } else {
    return {};
  }
}

namespace detail {
/// The start-up terms of a budget computed by the rule (apply_budget_rule over the workspace): the
/// weights as loaded are the weights plus the buffers loaded with them, the activation peak is the
/// workspace's allocator peak, non-torch and CUDA graphs its terms of those names, the reserve the
/// runtime term and the rule's margin, and what the fraction withholds is `unused`.
[[nodiscard]] constexpr auto startup_of(const device_budget& b, const workspace_terms& w, std::string_view version)
    -> startup_budget {
  startup_budget s{.device = b.device_memory, .fraction = b.rule.sized_fraction(), .weights = b.weights + w.buffers,
                   .activation_peak = w.peak(), .non_torch = w.non_torch, .cuda_graphs = w.cuda_graphs,
                   .reserve = w.runtime + b.rule.margin,
                   .kv = b.kv, .engine_factor = b.rule.engine_factor, .engine_version = version};
  // unused = device − everything else; 0 (and not balanced) when the terms exceed the device.
  s.unused = saturating_sub(b.device_memory, s.kv + s.overhead());
  return s;
}
}  // namespace detail

/// The budget and capacity of one device for engine E, from the sizing `s` E made with options `o`
/// (nothing is sized again). `o.engine_overhead` is replaced by the workspace; `o.device_memory` by
/// `device_memory` (the engines' memory-dependent defaults read it).
template <engine E>
[[nodiscard]] constexpr auto fit_on_device_as(const model_spec& m, const engine_sizing& s, engine_options o,
                                              bytes device_memory, bytes weights_per_device,
                                              const workspace_overrides& w = {}) -> device_fit {
  device_fit f{};
  o.device_memory = device_memory;
  if constexpr (requires { E::with_model_facts(o, m); }) {
    o = E::with_model_facts(o, m);  // SGLang's default fraction depends on the attention kind
  }
  f.workspace = engine_workspace_as<E>(m, o, w);
  o.engine_overhead = f.workspace.total();
  f.budget.device_memory = device_memory;
  f.budget.weights = weights_per_device;
  f.budget.workspace = f.workspace.total();
  f.budget.rule = E::budget(o);
  f.budget.kv = E::kv_budget(device_memory, weights_per_device, o);
  f.budget.reserve = detail::saturating_sub(device_memory, weights_per_device + f.budget.workspace + f.budget.kv);
  f.capacity = E::capacity(s, o, f.budget.kv);
  f.startup = detail::startup_of(f.budget, f.workspace, engine_version_of<E>(o));
  if constexpr (requires { E::runner_name(m, o); }) {
    f.startup.model_runner = E::runner_name(m, o);
  }
  return f;
}

/// fit_on_device_as for engine `e`.
[[nodiscard]] constexpr auto fit_on_device(const model_spec& m, engine_kind e, const engine_sizing& s,
                                           const engine_options& o, bytes device_memory, bytes weights_per_device,
                                           const workspace_overrides& w = {}) -> device_fit {
  return visit_engine(e, [&]<engine E>(E) { return fit_on_device_as<E>(m, s, o, device_memory, weights_per_device, w); });
}

/// The longest context (≤ limit) at which `batch` sequences fit in a fixed KV budget, as engine E
/// counts them (its capacity's max_sequences); 0 if not even one token does. Capacity falls as the
/// context grows, so a binary search finds it. Each probe is sized from `sized` (a sizing E made
/// with `o` at any context, e.g. the report's own) where E::with_context allows
/// (size_cache_from_as): one sizing in all, or none when `sized` is given; else about log2(limit).
/// An overflow counts as not fitting.
template <engine E>
[[nodiscard]] constexpr auto max_context_in_budget_as(const model_spec& m, engine_options o, bytes kv_budget,
                                                      std::uint64_t batch, std::uint64_t limit,
                                                      std::optional<engine_sizing> sized = std::nullopt)
    -> std::uint64_t {
  const auto fits = [&](std::uint64_t context) {
    o.context = context;
    try {
      return E::capacity(size_cache_from_as<E>(m, o, sized), o, kv_budget).max_sequences >= batch;
    } catch (const kvsize::overflow_error&) {
      return false;
    }
  };
  if (!fits(1)) {
    return 0;
  }
  return detail::last_true(1, limit, fits);
}

/// max_context_in_budget_as for engine `e`.
[[nodiscard]] constexpr auto max_context_in_budget(const model_spec& m, engine_kind e, const engine_options& o,
                                                   bytes kv_budget, std::uint64_t batch, std::uint64_t limit,
                                                   std::optional<engine_sizing> sized = std::nullopt)
    -> std::uint64_t {
  return visit_engine(e, [&]<engine E>(E) {
    return max_context_in_budget_as<E>(m, o, kv_budget, batch, limit, sized);
  });
}

}  // namespace kvsize
