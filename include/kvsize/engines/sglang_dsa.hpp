// SPDX-License-Identifier: MIT
// SGLang under DeepSeek sparse attention (DSA: DeepSeek-V3.2, GLM-5): the cache dtype and page size it sets for
// these models, the layout of an fp8 latent in its pool, and the cell its token count divides the budget by, by
// release and device. Part of the SGLang engine (engines/sglang.hpp). Standard library only, constexpr.
//
// Sources (sgl-project/sglang at the release tags; docs/research/sglang-dsa-cache.md has the table):
// - The pool: mem_cache/memory_pool.py NSATokenToKVPool (DSATokenToKVPool from 0.5.14), first in 0.5.3rc2, a
//   MLATokenToKVPool whose latent rows hold, for a float8_e4m3fn cache, DeepSeek's layout: 512 fp8 values, 4 float32
//   scales (one per 128), 64 bf16 RoPE values = 656 B (`nsa_kv_cache_store_fp8`; 0.5.5+ `override_kv_cache_dim`),
//   and beside them the indexer's key, 128 fp8 + one float32 scale = 132 B a token and layer. From 0.5.9
//   model_runner_kv_cache_mixin.py calculate_mla_kv_cache_dim (0.5.18: mem_cache/kv_cache_configurator.py) keeps a
//   plain 576-byte row where a DSA backend is `trtllm` or, on HIP, tilelang / aiter. On MI300X / MI325X fp8_e4m3 is
//   float8_e4m3fnuz (model_runner.py: "natively supported format"), never the 656-byte layout; the MI355X's
//   (gfx950) is float8_e4m3fn: the 656-byte layout until 0.5.10, whose HIP default (tilelang) keeps the plain row.
// - The token count: max_total_num_tokens = budget // cell, the cell from model_runner.py profile_max_num_token
//   (0.5.9: get_cell_size_per_token; 0.5.11 – 0.5.16: model_executor/pool_configurator.py _compute_cell_size):
//   576 × element size alone until 0.5.3 (the indexer left out), + 132 from 0.5.3.post1 (PR #11309), and from 0.5.17
//   calculate_mla_kv_cache_dim's width (656 for DeepSeek's layout). Until then the pool allocates 656-byte rows for
//   tokens counted at 576: it takes more than the budget (what `mem_fraction_static` leaves outside absorbs it).
// - server_args.py, for a model `is_deepseek_nsa` names (GlmMoeDsaForCausalLM from 0.5.9): page size 64 over
//   --page-size (1 on HIP from 0.5.8); mem_fraction_static 0.8 over any value in 0.5.3rc2 – 0.5.3 (removed by PR
//   #11309); on compute capability 10+ the cache dtype fp8_e4m3 over --kv-cache-dtype in 0.5.3rc2 – 0.5.4.post1;
//   from 0.5.4.post2 only `auto` is defaulted (fp8_e4m3 on 10+, bfloat16 below; 0.5.9 – 0.5.12
//   _set_default_nsa_kv_cache_dtype, 0.5.15+ arg_groups/overrides.py) and a named type must be bf16 / bfloat16 or
//   fp8_e4m3 (its assert); from 0.5.10rc0 the default DSA backends on 10+ with fp8 are `trtllm`
//   (_set_default_nsa_backends), except GLM-5 on 12.x from 0.5.17 (`flashinfer_sparse_mla`, DeepSeek's rows:
//   overrides.py _dsa_split_backend_resolution). Pages of 1 token on HIP from 0.5.8 (memory_pool.py asserts it;
//   from 0.5.12 64 where aiter's preshuffled paged MQA runs, Triton 3.5+, a runtime fact not modelled).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>      // std::uint32_t
#include <optional>     // std::optional
#include <string_view>  // std::string_view

#include "../dtype.hpp"
#include "dsa_fp8_layout.hpp"
#include "engine_options.hpp"
#include "sglang_release.hpp"

namespace kvsize::engines::sglang {

/// The first release with a DSA pool (NSATokenToKVPool; DeepseekV32ForCausalLM in models/deepseek_v2.py).
inline constexpr release dsa_since = release_0_5(3, 2);
/// The first release that counts the indexer's 132 B in the cell (PR #11309), and sets no mem_fraction_static.
inline constexpr release dsa_indexer_counted_since{.minor = 5, .patch = 3, .rc = 0, .candidate = false, .post = 1};
/// The first release that defaults only `auto` and checks a named type (bf16 / fp8_e4m3).
inline constexpr release dsa_named_type_checked_since{.minor = 5, .patch = 4, .rc = 0, .candidate = false, .post = 2};
/// The first release that registers GLM-5 (GlmMoeDsaForCausalLM, models/glm4_moe.py).
inline constexpr release glm_moe_dsa_since = release_0_5(9);
/// The first release that keeps DSA pages of 1 token on HIP ("Setting page size to 1 for DeepSeek DSA on ROCm").
inline constexpr release dsa_hip_page_one_since = release_0_5(8);
/// The first release whose default DSA backends on compute capability 10+ with fp8 are `trtllm` (plain rows).
inline constexpr release dsa_trtllm_since = release_0_5(10, 0);
/// The first release that gives GLM-5's fp8 cache on compute capability 12.x `flashinfer_sparse_mla` (DeepSeek's
/// rows), not trtllm.
inline constexpr release glm_sm120_flashinfer_since = release_0_5(17);
/// The first release whose cell is the pool's own row width (calculate_mla_kv_cache_dim): 656 for DeepSeek's layout.
inline constexpr release dsa_layout_counted_since = release_0_5(17);
/// mem_fraction_static in 0.5.3rc2 – 0.5.3, over any value given ("Setting mem fraction static to 0.8 for DeepSeek
/// NSA").
inline constexpr double dsa_fraction_0_5_3 = 0.8;
/// Tokens a DSA page holds on CUDA (and on HIP before 0.5.8).
inline constexpr std::uint32_t dsa_page_size = 64;

/// The release whose rules apply: o.sglang.version, else the newest release of o.sglang.release's rule.
[[nodiscard]] constexpr auto version_of(const engine_options& o) -> release {
  return o.sglang.version.value_or(last_release_of(o.sglang.release));
}

/// The first release after those that turn DP attention on for every DSA model (0.5.3rc2 – 0.5.5.post3, PR #11061;
/// 0.5.6's PR #13646 sets enable_dp_attention without dp_size, which dp 1 turns off again).
inline constexpr release dsa_dp_attention_until = release_0_5(6, 0);

/// The releases whose server_args.py take --dp N alone as DP attention for a DSA model (PR #13646 sets
/// enable_dp_attention for is_deepseek_nsa without touching dp_size): 0.5.6 – 0.5.7.
inline constexpr release dsa_dp_alone_until = release_0_5(8, 0);

/// --dp > 1 alone asks a DSA model for DP attention under release r (0.5.6 – 0.5.7).
[[nodiscard]] constexpr auto dsa_dp_alone_is_dp_attention(release r) -> bool {
  return at_least(r, dsa_dp_attention_until) && !at_least(r, dsa_dp_alone_until);
}

/// SGLang serves a DSA model with DP attention at dp = tp on its own: server_args.py
/// _handle_model_specific_adjustments, for is_deepseek_nsa ("DP attention is enabled for DeepSeek NSA."), sets
/// enable_dp_attention and dp_size = tp_size in 0.5.3rc2 – 0.5.5.post3 (not on NPU). At tp 1 that changes nothing.
/// The handler runs after the memory settings, so the default mem_fraction_static has no DP-attention term there.
[[nodiscard]] constexpr auto dsa_forces_dp_attention(const engine_options& o) -> bool {
  const release r = version_of(o);
  return o.tp > 1 && at_least(r, dsa_since) && !at_least(r, dsa_dp_attention_until);
}

/// The device's compute capability is 10 or more (B200, GB200, RTX 50): SGLang's `major >= 10` (its
/// torch.cuda.get_device_capability; 9 on MI300X / MI325X). Unknown (0): Hopper's rules.
[[nodiscard]] constexpr auto dsa_sm100(const engine_options& o) -> bool {
  return !o.sglang.rocm && o.sglang.compute_capability >= 100;
}

/// The cache type SGLang keeps a DSA model's latent in, from the type named (none: `auto`) and what `auto` is
/// for other models (`automatic`: the serving dtype, or the checkpoint's FP8).
[[nodiscard]] constexpr auto dsa_cache_dtype(const engine_options& o, std::optional<dtype> named, dtype automatic)
    -> dtype {
  const release r = version_of(o);
  if (!at_least(r, dsa_named_type_checked_since)) {  // 0.5.3rc2 – 0.5.4.post1: fp8_e4m3 on 10+ whatever was named
    return dsa_sm100(o) ? dtype::fp8_e4m3 : named.value_or(automatic);
  }
  return named.value_or(dsa_sm100(o) ? dtype::fp8_e4m3 : dtype::bf16);
}

/// Whether the type named is one that 0.5.3rc2 – 0.5.4.post1 replace on this device (a note's matter).
[[nodiscard]] constexpr auto dsa_replaces_named_type(const engine_options& o, dtype named) -> bool {
  return !at_least(version_of(o), dsa_named_type_checked_since) && dsa_sm100(o) && named != dtype::fp8_e4m3;
}

/// Why SGLang cannot serve this DSA model so, in words; empty when it can. `named`: the cache type given (none:
/// `auto`).
[[nodiscard]] constexpr auto dsa_refusal(const engine_options& o, std::optional<dtype> named) -> std::string_view {
  const release r = version_of(o);
  if (!at_least(r, dsa_since)) {
    return "SGLang serves DeepSeek sparse attention from 0.5.3rc2 (NSATokenToKVPool, DeepseekV32ForCausalLM)";
  }
  if (o.glm_moe_dsa_checkpoint && !at_least(r, glm_moe_dsa_since)) {
    return "SGLang registers GLM-5 (GlmMoeDsaForCausalLM) from 0.5.9";
  }
  if (named && at_least(r, dsa_named_type_checked_since) && *named != dtype::bf16 && *named != dtype::fp8_e4m3) {
    return "SGLang keeps DeepSeek sparse attention's cache in bf16 or fp8_e4m3 only (server_args.py "
           "_set_default_nsa_kv_cache_dtype: \"only supports bf16/bfloat16 or fp8_e4m3 kv_cache_dtype\")";
  }
  return {};
}

/// A DSA model's pool under SGLang for a latent of type `latent`.
struct dsa_pool {
  bytes latent_row{0};   ///< the latent's bytes a token and layer as allocated (656 in DeepSeek's layout)
  bytes counted_row{0};  ///< the latent's bytes a token and layer in the cell the token count divides by
  bool indexer_counted = false;  ///< the cell counts the indexer's key
  std::uint32_t page_size = dsa_page_size;
};

/// The pool for `latent` (a row of `plain_row` bytes: kv_lora_rank + rope elements of `latent`) under `o`.
[[nodiscard]] constexpr auto dsa_pool_of(const engine_options& o, dtype latent, bytes plain_row) -> dsa_pool {
  const release r = version_of(o);
  const bool glm_sm120 = o.glm_moe_dsa_checkpoint && o.sglang.compute_capability / 10 == 12 &&
                         at_least(r, glm_sm120_flashinfer_since);
  const bool trtllm = dsa_sm100(o) && at_least(r, dsa_trtllm_since) && !glm_sm120;  // fp8 on 10+: trtllm
  // HIP: gfx94x's e4m3fnuz keeps the plain row; gfx950's e4m3fn too from 0.5.10, whose default tilelang backend
  // keeps it (model_runner_kv_cache_mixin.py calculate_mla_kv_cache_dim; not in 0.5.10rc0).
  const bool hip_plain = o.sglang.rocm && (!o.sglang.gfx950 || at_least(r, release_0_5(10)));
  const bool deepseek_layout = latent == dtype::fp8_e4m3 && !hip_plain && !trtllm;
  dsa_pool p;
  p.latent_row = deepseek_layout ? dsa_fp8_latent_row : plain_row;
  p.counted_row = at_least(r, dsa_layout_counted_since) ? p.latent_row : plain_row;
  p.indexer_counted = at_least(r, dsa_indexer_counted_since);
  p.page_size = o.sglang.rocm && at_least(r, dsa_hip_page_one_since) ? 1 : dsa_page_size;
  return p;
}

/// mem_fraction_static as 0.5.3rc2 – 0.5.3 set it for a DSA model (o.sglang.sparse_index), over any value; none
/// in other releases.
[[nodiscard]] constexpr auto dsa_forced_fraction(const engine_options& o) -> std::optional<double> {
  const release r = version_of(o);
  return o.sglang.sparse_index && at_least(r, dsa_since) && !at_least(r, dsa_indexer_counted_since)
             ? std::optional<double>{dsa_fraction_0_5_3}
             : std::nullopt;
}

}  // namespace kvsize::engines::sglang
