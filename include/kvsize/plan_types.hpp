// SPDX-License-Identifier: MIT
// What the deployment planner (planner.hpp) is asked and what it answers: the inputs, one point's
// terms in bytes, the options it quantifies and the decode cost. Plain structs; standard library only.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>      // std::uint8_t, std::uint32_t, std::uint64_t
#include <optional>     // std::optional
#include <string_view>  // std::string_view

#include "bytes.hpp"
#include "capacity.hpp"  // unbounded
#include "decode.hpp"
#include "dtype.hpp"
#include "engines/common.hpp"
#include "engines/engine_concept.hpp"  // budget_rule
#include "weights_split.hpp"
#include "workspace.hpp"

namespace kvsize {

/// The weights one of tp × pp devices holds: `split`'s share where tensor parallelism shares tensors out (what each
/// rank holds whole stays whole), else weights / (tp·pp). `split` is none for a layer split (llama.cpp).
[[nodiscard]] constexpr auto shared_weights_per_device(bytes weights, const std::optional<weights_split>& split,
                                                       std::uint32_t tp, std::uint32_t pp) -> bytes {
  return split ? split->per_device(tp, pp) : weights / (std::uint64_t{tp} * pp);
}

/// What the planner is asked.
struct plan_inputs {
  bytes weights{0};             ///< all the model's weights; each of tp × pp devices holds 1/(tp·pp), rounded up,
                                ///< unless `split` says how tensor parallelism shares them out
  /// `weights` by how tensor-parallel ranks share them (weights_split_of): a device holds split.per_device(tp, pp),
  /// which keeps what every rank holds whole (norms, routers, MLA's q_a/kv_a, DSA's indexer) whole.
  std::optional<weights_split> split{};
  /// The weights of the device that holds the most, where the engine's split is not even (llama.cpp's
  /// layer split, -ts): used instead of weights / (tp·pp) at the options' own tp and pp.
  std::optional<bytes> weights_per_device{};
  bytes device_memory{0};       ///< memory of one device (gpu_spec::memory)
  std::uint64_t bandwidth = 0;  ///< memory bandwidth of one device, bytes/s (gpu_spec::bandwidth); 0 = unknown
  engine_kind engine = engine_kind::exact;
  engine_options options{};     ///< context (tokens per user), batch (users), tp, pp, kv dtypes, engine knobs
  workspace_overrides workspace{};
  std::uint64_t context_limit = 0;  ///< longest context searched; 0 → max(the model's maximum, options.context)

  /// The weights one of tp × pp devices holds: weights_per_device at the options' own tp and pp, else `split`'s
  /// share, else an even split.
  [[nodiscard]] constexpr auto weights_on_device(std::uint32_t tp, std::uint32_t pp) const -> bytes {
    if (weights_per_device && tp == options.tp && pp == options.pp) {
      return *weights_per_device;
    }
    return shared_weights_per_device(weights, split, tp, pp);
  }
};

/// What bounds a point that does not fit.
enum class plan_limit : std::uint8_t {
  none,     ///< it fits
  weights,  ///< weights and workspace alone exceed the device
  memory,   ///< the KV cache of these users exceeds the engine's budget
  slots,    ///< the memory would do, the engine's scheduler admits fewer sequences at once
};

[[nodiscard]] constexpr auto name(plan_limit l) -> std::string_view {
  switch (l) {
    case plan_limit::none: return "none";
    case plan_limit::weights: return "weights";
    case plan_limit::memory: return "memory";
    case plan_limit::slots: return "slots";
  }
  return "?";
}

/// One (context, users) point on one device, every term in bytes.
struct plan_point {
  std::uint64_t context = 0;  ///< tokens per user
  std::uint64_t users = 0;
  std::uint32_t tp = 1;
  std::uint32_t pp = 1;
  bytes device_memory{0};
  bytes weights{0};    ///< weights on this device
  bytes kv{0};         ///< KV cache (and recurrent state) of the users at the context, as the engine allocates it
  workspace_terms workspace{};
  bytes reserve{0};    ///< kept away from the KV cache by the engine's budget rule
  bytes kv_budget{0};  ///< what the engine's rule leaves for the KV cache
  budget_rule rule{};  ///< that rule, for this device and model (its fraction: what the engine is started with)
  std::uint64_t admitted = 0;  ///< sequences of `context` tokens the engine admits in kv_budget (caps applied)
  std::uint64_t admitted_shared = 0;  ///< the same with the shared prefix held once
  std::uint64_t slot_cap = unbounded;  ///< the scheduler's cap on running sequences (vLLM, SGLang)
  bytes prefix_saved{0};       ///< bytes the shared prefix saves across the users
  plan_limit limited_by = plan_limit::none;

  [[nodiscard]] constexpr auto fits() const -> bool { return limited_by == plan_limit::none; }
  /// Everything accounted: weights + KV + workspace + reserve.
  [[nodiscard]] constexpr auto needed() const -> bytes { return weights + kv + workspace.total() + reserve; }
  /// Device memory left over (0 when over).
  [[nodiscard]] constexpr auto free() const -> bytes {
    return detail::saturating_sub(device_memory, needed());
  }
};

/// One KV-cache option: an element type, and what it buys.
struct kv_option {
  bool available = false;  ///< the engine offers such a cache and the model's rows hold whole blocks of it
  kv_dtypes kv{dtype::f16, dtype::f16};
  bool fits = false;              ///< the users at the context fit with it
  std::uint64_t max_users = 0;    ///< at the context
  std::uint64_t max_context = 0;  ///< for the users
  bytes kv_bytes{0};              ///< KV of the users at the context with it
};

/// Prefix sharing: a prompt prefix of `shared_prefix` tokens held once for all users.
struct prefix_option {
  std::uint64_t shared_prefix = 0;
  bytes saved{0};               ///< bytes saved across the users at the context
  std::uint64_t max_users = 0;  ///< users that fit at the context with the prefix held once
};

/// What one decode step costs on one device.
struct decode_cost {
  /// Weights + KV of the users at the context, read per step by one device, or with a layer split
  /// (stages > 1) by one rank of each stage in turn: the sum over the stages.
  decode_traffic traffic{};
  std::uint64_t stages = 1;     ///< layer-split stages a token passes in turn (pp; llama.cpp: every device)
  std::uint64_t bandwidth = 0;  ///< bytes/s; 0 = unknown
  double seconds_per_token = 0;  ///< total / bandwidth: a lower bound on the time per output token (0 if unknown)
};

struct plan_result {
  plan_point point;               ///< the question as asked
  std::uint64_t max_users = 0;    ///< users that fit at the context (option "fewer users")
  std::uint64_t max_context = 0;  ///< longest context (≤ context_limit) that fits the users (option "shorter context")
  std::uint64_t context_limit = 0;
  std::uint32_t min_tp = 0;       ///< smallest tp of 1, 2, 4, 8 that fits (heads divisible); 0 if none
  kv_option kv_8bit;              ///< fp8 (llama.cpp: q8_0)
  kv_option kv_4bit;              ///< int4 (exact) or q4_0 (llama.cpp); unavailable elsewhere
  prefix_option prefix;
  decode_cost decode;
};

}  // namespace kvsize
