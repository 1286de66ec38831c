// SPDX-License-Identifier: MIT
// kvsize::engines::sglang: max_running_requests on one rank, the request slots SGLang sizes its req_to_token pool
// with, by release. Part of the SGLang engine (engines/sglang.hpp). Standard library only, constexpr.
//
// Sources (sgl-project/sglang, read at every tag named). The pool's request slots:
//   v0.4.0 – v0.5.6      model_executor/model_runner.py ModelRunner.init_memory_pool
//   v0.5.7 – v0.5.9      model_executor/model_runner_kv_cache_mixin.py init_memory_pool
//   v0.5.10rc0 – v0.5.15 the same mixin, _resolve_max_num_reqs
//   v0.5.16 – v0.5.18    mem_cache/kv_cache_configurator.py KVCacheConfigurator.resolve_max_num_reqs
// and the scheduler's cap over them, min(N // 2 or the value given, req_to_token_pool.size): managers/tp_worker.py
// TpModelWorker.__init__ to v0.5.6, model_runner.py ("Init max running requests") in v0.5.7 – v0.5.9. With N the
// pool's tokens after page alignment and L SGLang's context_len:
//   estimated = min(max(int(N / L · 512), 2048), 4096)
//   none given:  min(N // 2, estimated), the pool's slots (estimated + 1 before 0.4.7: ReqToTokenPool(size=
//                max_num_reqs + 1)); from 0.5.10rc0 the pool itself is sized so
//   given:       as given to 0.5.9; min(given, estimated) in 0.5.10rc0 – 0.5.13.post1; min(given, N // 2) from
//                0.5.14. Under DP attention each rank's share, given // dp (running_requests_per_rank), from
//                0.4.1.post7 (tp_worker.py, PR #2925); every rank takes the whole value before.
// Not modelled: the hybrid models' cap max_mamba_cache_size // ratio (ratio 3 or more with the radix cache).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>  // std::min, std::max
#include <cstdint>    // std::uint64_t

#include "engine_options.hpp"
#include "sglang_dp.hpp"       // running_requests_per_rank
#include "sglang_dsa.hpp"      // version_of
#include "sglang_release.hpp"  // release_0_5, at_least

namespace kvsize::engines::sglang {

/// The first release whose req_to_token pool holds max_num_reqs slots, not max_num_reqs + 1 (0.4.6.post5 still adds
/// one; kvsize refuses the releases between 0.4.5.post2 and 0.4.7.post1).
inline constexpr release pool_slots_exact_since{.minor = 4, .patch = 7, .rc = 0, .candidate = false, .post = 0};
/// The first release that caps a given value by the estimate (_resolve_max_num_reqs), and the first that caps it by
/// half the pool's tokens instead.
inline constexpr release given_estimate_cap_since = release_0_5(10, 0);
inline constexpr release given_half_pool_cap_since = release_0_5(14);
/// The first release that gives each DP-attention rank the value // dp.
inline constexpr release dp_requests_divided_since{.minor = 4, .patch = 1, .rc = 0, .candidate = false, .post = 7};

/// A --max-running-requests given, as one rank of release version_of(o) takes it before any cap; 0: none given.
[[nodiscard]] constexpr auto given_requests_per_rank(const engine_options& o) -> std::uint64_t {
  return at_least(version_of(o), dp_requests_divided_since) ? running_requests_per_rank(o)
                                                            : o.sglang.max_running_requests;
}

/// max_running_requests on one rank for a pool of `tokens` (page-aligned) at context_len `context` (> 0), under the
/// release of `o` (version_of) and the value given (o.sglang.max_running_requests, 0: none).
[[nodiscard]] constexpr auto max_running_requests(const engine_options& o, std::uint64_t tokens, std::uint64_t context)
    -> std::uint64_t {
  const auto by_tokens =
      static_cast<std::uint64_t>(static_cast<double>(tokens) / static_cast<double>(context) * 512.0);
  const std::uint64_t estimated = std::min<std::uint64_t>(std::max<std::uint64_t>(by_tokens, 2'048), 4'096);
  const release version = version_of(o);
  const std::uint64_t given = given_requests_per_rank(o);
  if (given == 0) {
    return std::min(tokens / 2, at_least(version, pool_slots_exact_since) ? estimated : estimated + 1);
  }
  if (at_least(version, given_half_pool_cap_since)) {
    return std::min(given, tokens / 2);
  }
  return at_least(version, given_estimate_cap_since) ? std::min(given, estimated) : given;
}

}  // namespace kvsize::engines::sglang
