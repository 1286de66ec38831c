// SPDX-License-Identifier: MIT
// SGLang's DP attention: how many data-parallel attention ranks serve the model and over how many GPUs each runs
// attention. Part of the SGLang engine (engines/sglang.hpp). Standard library only, constexpr.
//
// Sources (sgl-project/sglang at the tags v0.4.6 – v0.5.18, python/sglang/srt/; docs/research/sglang-dp-attention.md):
// - layers/dp_attention.py compute_dp_attention_world_info: attn_tp_size = tp_size // dp_size (v0.5.9 on, also
//   // attn_cp_size, which kvsize does not model); server_args.py asserts tp_size % dp_size == 0. kvsize models
//   dp = tp (attn_tp_size 1), the deployments SGLang documents for DeepSeek and the case DSA forces.
// - Each DP rank has its own scheduler, request pool and KV pool (managers/data_parallel_controller.py
//   launch_dp_attention_schedulers); KV heads a rank: get_num_kv_heads(attn_tp_size), an MLA latent whole.
// - The default mem_fraction_static reserves for it (server_args.py: 4,096 MiB from 0.4.7.post1; from 0.5.3rc2
//   cuda_graph_max_bs × dp × 3, and × 1.5 more above a graph batch of 300: sglang_fraction.hpp).
// - max_running_requests: a value the user gives is divided by dp (model_runner.py v0.5.9
//   `server_args.max_running_requests // self.dp_size`; v0.5.18 kv_cache_configurator.resolve_max_num_reqs); the
//   default from the pool is not.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint32_t

#include "../model_spec.hpp"
#include "engine_options.hpp"
#include "sglang_dsa.hpp"  // dsa_forces_dp_attention

namespace kvsize::engines::sglang {

/// DP attention's ranks under `o`: tp where the user asks for it at dp = tp (o.sglang.dp_attention) or the release
/// turns it on for a DeepSeek-sparse-attention model (`dsa_model`; dsa_forces_dp_attention), else 1
/// (tensor-parallel attention).
[[nodiscard]] constexpr auto attention_dp(const engine_options& o, bool dsa_model) -> std::uint32_t {
  const bool on = o.sglang.dp_attention || (dsa_model && dsa_forces_dp_attention(o));
  return on && o.tp > 1 ? o.tp : 1;
}

/// attention_dp for model `m`.
[[nodiscard]] constexpr auto attention_dp_of(const model_spec& m, const engine_options& o) -> std::uint32_t {
  return attention_dp(o, m.latent.index_head_dim != 0);
}

/// The GPUs one DP rank runs attention over (attn_tp_size = tp // dp), at least 1.
[[nodiscard]] constexpr auto attention_tp_of(const model_spec& m, const engine_options& o) -> std::uint32_t {
  const std::uint32_t dp = attention_dp_of(m, o);
  const std::uint32_t attn_tp = dp == 0 ? o.tp : o.tp / dp;
  return attn_tp == 0 ? 1 : attn_tp;
}

/// A --max-running-requests the user gave, as one DP rank takes it (the value // dp); 0 (SGLang's rule) stays 0.
/// The model's DSA flag is o.sglang.sparse_index (with_model_facts).
[[nodiscard]] constexpr auto running_requests_per_rank(const engine_options& o) -> std::uint64_t {
  const std::uint64_t given = o.sglang.max_running_requests;
  const std::uint32_t dp = attention_dp(o, o.sglang.sparse_index);
  if (given == 0 || dp <= 1) {
    return given;
  }
  const std::uint64_t per_rank = given / dp;
  return per_rank == 0 ? 1 : per_rank;  // below dp SGLang would run none: the command refuses such a value
}

}  // namespace kvsize::engines::sglang
