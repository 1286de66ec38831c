// SPDX-License-Identifier: MIT
// SGLang's DP attention: how many data-parallel attention ranks serve the model and over how many GPUs each runs
// attention. Part of the SGLang engine (engines/sglang.hpp). Standard library only, constexpr.
//
// Sources (sgl-project/sglang at the tags v0.4.6 – v0.5.18, python/sglang/srt/; docs/research/sglang-dp-attention.md):
// - layers/dp_attention.py compute_dp_attention_world_info: attn_tp_size = tp_size // dp_size (v0.5.9 on, also
//   attn_cp_size, which kvsize does not model); server_args.py asserts tp_size % dp_size == 0. dp < tp came with
//   PR #4390 ("--tp 8 --dp 2"); dp = tp (attn_tp_size 1) is what SGLang documents for DeepSeek and what DSA forces.
// - The model classes that read get_attention_tp_size build their attention projections over the attention-TP
//   group; the token embedding (VocabParallelEmbedding) is whole under DP attention (enable_tp=not
//   is_dp_attention_enabled()) until deepseek_v2.py 0.5.8 and the other files 0.5.9 put it over that group
//   (use_attn_tp_group=is_dp_attention_enabled()); step3p5.py keeps it whole at every release.
// - Each DP rank has its own scheduler, request pool and KV pool (managers/data_parallel_controller.py
//   launch_dp_attention_schedulers); KV heads a rank: get_num_kv_heads(attn_tp_size), an MLA latent whole.
// - The default mem_fraction_static reserves for it (server_args.py: 4,096 MiB from 0.4.7.post1; from 0.5.3rc2
//   cuda_graph_max_bs × dp × 3, and × 1.5 more above a graph batch of 300: sglang_fraction.hpp).
// - max_running_requests: a value the user gives is divided by dp (model_runner.py v0.5.9
//   `server_args.max_running_requests // self.dp_size`; v0.5.18 kv_cache_configurator.resolve_max_num_reqs); the
//   default from the pool is not.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>      // std::uint32_t
#include <string_view>  // std::string_view

#include "../model_spec.hpp"
#include "../weights_split.hpp"  // dp_attention_layout
#include "engine_options.hpp"
#include "sglang_dsa.hpp"  // dsa_forces_dp_attention

namespace kvsize::engines::sglang {

/// DP attention asked for under `o`: o.sglang.dp_attention (the flag with a dp), or in 0.5.6 – 0.5.7 a dp alone
/// (o.sglang.attention_tp set) for a DeepSeek-sparse-attention model (dsa_dp_alone_is_dp_attention).
[[nodiscard]] constexpr auto dp_attention_asked(const engine_options& o, bool dsa_model) -> bool {
  return o.sglang.dp_attention ||
         (dsa_model && o.sglang.attention_tp != 0 && dsa_dp_alone_is_dp_attention(version_of(o)));
}

/// DP attention's ranks under `o`: tp where the release turns it on for a DeepSeek-sparse-attention model
/// (`dsa_model`; dsa_forces_dp_attention sets dp_size = tp_size); tp / o.sglang.attention_tp (tp where none is
/// given) where it is asked for (dp_attention_asked); else 1 (tensor-parallel attention; also where that leaves one
/// rank).
[[nodiscard]] constexpr auto attention_dp(const engine_options& o, bool dsa_model) -> std::uint32_t {
  if (o.tp <= 1) {
    return 1;
  }
  if (dsa_model && dsa_forces_dp_attention(o)) {
    return o.tp;
  }
  const std::uint32_t attention_tp = o.sglang.attention_tp == 0 ? 1 : o.sglang.attention_tp;
  return dp_attention_asked(o, dsa_model) && attention_tp < o.tp ? o.tp / attention_tp : 1;
}

/// DP attention asked for in ranks of o.sglang.attention_tp GPUs at a tp above that and no multiple of it (the
/// planner's other tp: no --dp gives those ranks there, SGLang asserting tp_size % dp_size == 0); not where the
/// release sets dp = tp itself.
[[nodiscard]] constexpr auto uneven_attention_ranks(const engine_options& o, bool dsa_model) -> bool {
  const std::uint32_t attention_tp = o.sglang.attention_tp;
  return !(dsa_model && dsa_forces_dp_attention(o)) && dp_attention_asked(o, dsa_model) && attention_tp > 1 &&
         attention_tp < o.tp && o.tp % attention_tp != 0;
}

/// Why kvsize does not size SGLang's DP attention for `m` under `o` (empty: it does, or it is off): a model with
/// recurrent layers (their state pools per DP rank), or uneven_attention_ranks.
[[nodiscard]] constexpr auto dp_attention_refusal(const model_spec& m, const engine_options& o) -> std::string_view {
  if (m.weights.recurrent.kind != recurrent_kind::none && attention_dp(o, m.latent.index_head_dim != 0) > 1) {
    return "kvsize does not model SGLang's DP attention for a model with recurrent layers (their state pools per "
           "DP rank); size it with tensor-parallel attention";
  }
  if (uneven_attention_ranks(o, m.latent.index_head_dim != 0)) {
    return "SGLang's DP attention needs tp to be a multiple of a rank's GPUs (server_args.py: tp_size % dp_size == 0)";
  }
  return {};
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

/// The SGLang model file that builds a model class, where the embedding's rule under DP attention differs.
enum class dp_model_file : std::uint8_t {
  deepseek_v2,  ///< deepseek_v2.py: DeepSeek V2 / V3 / V3.2 and GlmMoeDsaForCausalLM (GLM-5), built on it
  step3p5,      ///< step3p5.py
  other,        ///< qwen3.py, qwen2_moe.py (Qwen3-MoE), glm4_moe.py, gpt_oss.py, llama4.py, mimo_v2_flash.py, ...
};

/// --enable-dp-attention at dp 1: from 0.5.2 _handle_data_parallelism turns it off, after the memory settings have
/// reserved for it (sglang_fraction.hpp); before, from 0.4.4.post1, __post_init__ asserts dp_size > 1 under it
/// ("Please set a dp-size > 1", read at v0.4.4.post1 – v0.5.2rc2; cleared at v0.5.2), and up to 0.4.4 it sets
/// dp_size = tp_size instead (read at v0.4.0, v0.4.3, v0.4.4).
inline constexpr release dp_attention_off_at_dp_1_since = release_0_5(2);
inline constexpr release dp_attention_sets_dp_until{.minor = 4, .patch = 4, .rc = 0, .candidate = false, .post = 1};
/// --enable-dp-lm-head at dp 1: turned off there too from 0.5.3rc0; before, its assert that DP attention is on fails.
inline constexpr release dp_lm_head_off_at_dp_1_since = release_0_5(3, 0);
/// --enable-dp-lm-head's first release (server_args.py at v0.4.6.post4; none at v0.4.6.post3).
inline constexpr release dp_lm_head_since{.minor = 4, .patch = 6, .rc = 0, .candidate = false, .post = 4};

/// The first releases whose embedding is split over the attention-TP group under DP attention
/// (use_attn_tp_group=is_dp_attention_enabled()): deepseek_v2.py at v0.5.8, the other files at v0.5.9.
inline constexpr release deepseek_embedding_attention_group_since = release_0_5(8);
inline constexpr release embedding_attention_group_since = release_0_5(9);

/// Where `file` keeps the token embedding under DP attention at release r.
[[nodiscard]] constexpr auto dp_embedding_of(dp_model_file file, release r) -> dp_embedding {
  switch (file) {
    case dp_model_file::step3p5: return dp_embedding::whole;
    case dp_model_file::deepseek_v2:
      return at_least(r, deepseek_embedding_attention_group_since) ? dp_embedding::attention_group : dp_embedding::whole;
    case dp_model_file::other: break;
  }
  return at_least(r, embedding_attention_group_since) ? dp_embedding::attention_group : dp_embedding::whole;
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
