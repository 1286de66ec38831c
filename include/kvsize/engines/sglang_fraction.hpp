// SPDX-License-Identifier: MIT
// SGLang's default mem_fraction_static, by the rule of each release (sglang_release.hpp), as
// python/sglang/srt/server_args.py computes it at each tag (docs/research/sglang-fraction-history.md).
// Standard library only, constexpr, allocation-free.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>  // std::max
#include <bit>        // std::bit_cast
#include <cstdint>    // std::int64_t, std::uint32_t, std::uint64_t
#include <optional>   // std::optional

#include "../bytes.hpp"
#include "../model_spec.hpp"
#include "engine_options.hpp"
#include "sglang_aiter.hpp"  // aiter_fraction_factor
#include "sglang_context.hpp"  // default_context_length
#include "sglang_dp.hpp"     // attention_dp
#include "sglang_vlm.hpp"  // vlm_default_factor
#include "sglang_dsa.hpp"  // dsa_forced_fraction
#include "sglang_release.hpp"

namespace kvsize::engines::sglang {

/// SGLang 0.4.0 – 0.4.5.post2 (rule A; python/sglang/srt/server_args.py, ServerArgs.__post_init__, "Set
/// mem fraction static, which depends on the tensor parallelism size"): 0.79 at tp ≥ 16, 0.81 at ≥ 8,
/// 0.85 at ≥ 4, 0.87 at ≥ 2, else 0.88, whatever the memory. Public logs agree: 0.88 at tp 1
/// (sgl-project/sglang PR #4760, S2), 0.85 at tp 4 (S3).
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

/// The prefill CUDA-graph capture sizes of 0.5.10+ up to `max_tokens` (the chunked-prefill size):
/// 4 … 32 by 4, 48 … 256 by 16, 288 … 512 by 32, 576 … 1024 by 64, 1280 … 4096 by 256, then by 512
/// (server_args.py _generate_piecewise_cuda_graph_tokens / _generate_prefill_cuda_graph_batch_sizes):
/// 42 sizes at 2048, 50 at 4096, 58 at 8192, 74 at 16384.
[[nodiscard]] constexpr auto prefill_graph_sizes(std::uint32_t max_tokens) -> std::uint32_t {
  struct run {
    std::uint32_t first, last, step;
  };
  constexpr run runs[] = {{4, 32, 4}, {48, 256, 16}, {288, 512, 32}, {576, 1024, 64}, {1280, 4096, 256}};
  std::uint32_t n = 0;
  for (const run& r : runs) {
    for (std::uint32_t t = r.first; t <= r.last && t <= max_tokens; t += r.step) {
      ++n;
    }
  }
  for (std::uint32_t t = 4608; t <= max_tokens; t += 512) {
    ++n;
  }
  return n;
}

/// Python's round(x, 3) for 0 < x ≤ 1: the exact binary value of x rounded to 3 decimals, halves to
/// even (CPython rounds the double's exact value, so 0.6625, stored as 0.66249999…, becomes 0.662;
/// x × 1000 + 0.5 would give 0.663). Exact: x = mantissa / 2^shift, and mantissa × 1000 < 2^63.
[[nodiscard]] constexpr auto python_round3(double x) -> double {
  const auto raw = std::bit_cast<std::uint64_t>(x);
  const auto exponent = static_cast<int>((raw >> 52U) & 0x7FFU);
  if (!(x > 0.0 && x <= 1.0) || exponent == 0) {  // not a fraction, or subnormal: no SGLang rule gives one
    return static_cast<double>(static_cast<std::int64_t>(x * 1000.0 + 0.5)) / 1000.0;
  }
  const std::uint64_t mantissa = (raw & ((std::uint64_t{1} << 52U) - 1)) | (std::uint64_t{1} << 52U);
  const int shift = 1075 - exponent;  // x = mantissa × 2^(exponent − 1075); 52 ≤ shift for x ≤ 1
  if (shift >= 64) {                  // x < 2^-11: x × 1000 < 0.49, which rounds to 0
    return 0.0;
  }
  const std::uint64_t scaled = mantissa * 1000;  // < 2^53 × 1000 < 2^63
  const auto s = static_cast<unsigned>(shift);
  std::uint64_t whole = scaled >> s;
  const std::uint64_t rest = scaled & ((std::uint64_t{1} << s) - 1);
  const std::uint64_t half = std::uint64_t{1} << (s - 1);
  if (rest > half || (rest == half && (whole & 1U) != 0)) {
    ++whole;
  }
  return static_cast<double>(whole) / 1000.0;
}

/// The first release that keeps the prefill CUDA graphs under DP attention (v0.5.17 drops the "DP attention" rule
/// of _disable_breakable_cudagraph_if_incompatible: 0.5.10 – 0.5.14's piecewise and 0.5.15 – 0.5.16's breakable
/// graphs are off there).
inline constexpr release dp_prefill_graphs_since = release_0_5(17);
/// The first release whose breakable prefill graphs run an MLA model without DSA (v0.5.18 drops 0.5.15 – 0.5.17's
/// "MLA attention (non-DSA)" rule of _disable_breakable_cudagraph_if_incompatible), so it reserves 1.5 GiB for it.
inline constexpr release mla_prefill_graphs_since = release_0_5(18);
/// The first release whose breakable prefill graphs run an MLA model with DSA: 0.5.15 – 0.5.16's rule is "MLA
/// attention" (use_mla_backend(), every MLA model), v0.5.17's "MLA attention (non-DSA)".
inline constexpr release dsa_breakable_graphs_since = release_0_5(17);
/// The first release whose piecewise prefill graphs run DeepSeek sparse attention: v0.5.13 drops
/// DeepseekV32ForCausalLM and GlmMoeDsaForCausalLM from piecewise_cuda_graph_disabled_model_archs.
inline constexpr release dsa_piecewise_graphs_since = release_0_5(13);
/// The last release that blocks the classes of prefill_graph_class::piecewise_blocked (v0.5.15 makes the
/// breakable graphs, whose rules do not name them, the default on CUDA).
inline constexpr release piecewise_blocklist_until = release_0_5(15);

/// What the prefill CUDA graphs of 0.5.10+ add to the reserve, in MiB, before the 10 GiB floor
/// (server_args.py _handle_gpu_memory_settings, PR #16331): 8 MiB per capture size up to the
/// chunked-prefill size, 1.5 GiB for an MLA model. 0.5.10 – 0.5.14 turn those graphs off at pp > 1
/// (_handle_piecewise_cuda_graph) and, to 0.5.12, for DSA models (piecewise_cuda_graph_disabled_model_archs);
/// 0.5.15+ (the breakable graphs, PR #29458) keep them at pp > 1, and turn them off for every MLA model in
/// 0.5.15 – 0.5.16, for one without DSA in 0.5.17 (`version`: the release inside the rule). The model class and the
/// device (prefill_graphs_for_model) and DP attention: the caller (auto_mem_fraction_static). Not modelled:
/// speculative decoding, LoRA and the other flags that turn them off, where the budget errs low.
[[nodiscard]] constexpr auto prefill_graph_reserve_mib(fraction_rule rule, std::uint32_t pp, double chunked,
                                                       bool latent_cache, bool sparse_index, const release& version)
    -> double {
  if (rule != fraction_rule::v0_5_10 && rule != fraction_rule::v0_5_15) {
    return 0;  // the releases before 0.5.10 capture no prefill CUDA graphs
  }
  if (rule == fraction_rule::v0_5_10 && (pp > 1 || (sparse_index && !at_least(version, dsa_piecewise_graphs_since)))) {
    return 0;
  }
  const release mla_since = sparse_index ? dsa_breakable_graphs_since : mla_prefill_graphs_since;
  if (rule == fraction_rule::v0_5_15 && latent_cache && !at_least(version, mla_since)) {
    return 0;
  }
  return latent_cache ? 1.5 * 1024 : 8.0 * prefill_graph_sizes(static_cast<std::uint32_t>(chunked));
}

/// The decimals a fraction is shown with: 3 where it is a rounded one, all of it (0) where SGLang leaves it unrounded
/// (a vision model's scaled default, sglang_vlm.hpp, or a given value with more digits).
[[nodiscard]] constexpr auto shown_decimals(double fraction) -> std::uint8_t {
  return python_round3(fraction) == fraction ? std::uint8_t{3} : std::uint8_t{0};
}

/// How the model's class and the device leave 0.5.10+'s prefill CUDA graphs (prefill_graphs_for_model).
enum class prefill_graphs : std::uint8_t {
  by_release,  ///< the release's own rules (prefill_graph_reserve_mib)
  off,         ///< none captured: no reserve
  piecewise,   ///< piecewise graphs kept whatever the breakable rules say (off at pp > 1 or under DP attention)
};

/// What piecewise prefill graphs reserve (H's term without the breakable graphs' MLA rules), in MiB: none at pp > 1
/// or under DP attention (their rules in _handle_piecewise_cuda_graph and the tc_piecewise list), before 0.5.10.
[[nodiscard]] constexpr auto piecewise_graph_reserve_mib(fraction_rule rule, std::uint32_t pp, double chunked,
                                                         bool latent_cache, std::uint32_t dp_attention) -> double {
  if ((rule != fraction_rule::v0_5_10 && rule != fraction_rule::v0_5_15) || pp > 1 || dp_attention != 0) {
    return 0;
  }
  return latent_cache ? 1.5 * 1024 : 8.0 * prefill_graph_sizes(static_cast<std::uint32_t>(chunked));
}

/// How the model's class and the device leave 0.5.10+'s prefill CUDA graphs by the time the memory settings read
/// them (server_args.py __post_init__: _handle_piecewise_cuda_graph in 0.5.10 – 0.5.13, _handle_cuda_graph_config
/// from 0.5.14, both ahead of _handle_gpu_memory_settings): ROCm at every release (is_hip(), and TC_PIECEWISE, whose
/// rules refuse HIP, the default backend off CUDA from 0.5.15), off; a multimodal model off unless allowlisted, or
/// on piecewise graphs from 0.5.14 (sglang_graph_class.hpp); the piecewise blocklist off in 0.5.10 – 0.5.14.
[[nodiscard]] constexpr auto prefill_graphs_for_model(const engine_options& o) -> prefill_graphs {
  const release v = version_of(o);
  const auto off_before = [&](release since) { return at_least(v, since) ? prefill_graphs::by_release : prefill_graphs::off; };
  if (o.sglang.rocm) {
    return prefill_graphs::off;
  }
  switch (o.sglang.graph_class) {
    case prefill_graph_class::text: break;
    case prefill_graph_class::multimodal: return prefill_graphs::off;
    case prefill_graph_class::multimodal_from_0_5_16: return off_before(release_0_5(16));
    case prefill_graph_class::multimodal_from_0_5_18: return off_before(release_0_5(18));
    case prefill_graph_class::multimodal_piecewise:
      return at_least(v, release_0_5(14)) ? prefill_graphs::piecewise : prefill_graphs::off;
    case prefill_graph_class::piecewise_blocked:
      return at_least(v, piecewise_blocklist_until) ? prefill_graphs::by_release : prefill_graphs::off;
  }
  return prefill_graphs::by_release;
}

/// SGLang's automatic mem_fraction_static from the device memory (nvidia-smi's memory.total, in MiB:
/// server_args.py get_device_memory_capacity), tp and pp, by the rule of its release
/// (sglang_release.hpp; constants: docs/research/sglang-fraction-history.md); 0.88 if the memory is
/// unknown. For a text model with default flags (no speculative decoding, DP attention or LoRA):
///   E (0.4.7.post1 – 0.5.3rc1, __post_init__, PR #7054): reserve (2.8 + tp·pp/10) GiB under 35 GiB,
///     (9.5 + tp·pp/2) GiB under 90 GiB, (12 + tp·pp/2) GiB under 160 GiB, else 32 GiB;
///   F, G (0.5.3rc2 – 0.5.9, _handle_gpu_memory_settings, PR #10975): reserve = 512 + max(chunked
///     prefill, 2048)·1.5 + cuda-graph batch·2 + tp·pp/8·1024 MiB, at least 10 GiB above 60 GiB, with
///     the chunked size and graph batch by memory (the graph batch under 35 GiB at tp < 4: 16 in F,
///     24 in G, PR #12124);
///   H (0.5.10+): G plus, before the floor, prefill_graph_reserve_mib;
/// fraction = round((memory − reserve) / memory, 3), as Python rounds. Rule A is legacy_mem_fraction_static.
/// --enable-dp-attention (`dp_attention`: SGLang's dp_size where the flag is given, 1 at dp 1; 0 without it) adds,
/// before the floor: 4,096 MiB under E; cuda-graph batch × dp × 3 MiB, and × 1.5 more above a batch of 300, from F
/// on (server_args.py, PR #10975); and H's prefill-graph term is dropped there in 0.5.10 – 0.5.16, which turn those
/// graphs off under the flag. At dp 1 too: the memory settings read the flag before _handle_data_parallelism clears
/// it (0.5.2+; older releases refuse the flag at dp 1).
/// `version`: the release inside the rule where a fact changes (none: the rule's newest, last_release_of).
/// `graphs`: how the model or device leave H's prefill graphs (prefill_graphs_for_model).
[[nodiscard]] constexpr auto auto_mem_fraction_static(bytes device_memory, std::uint32_t tp, std::uint32_t pp,
                                                      fraction_rule rule = default_rule, bool latent_cache = false,
                                                      bool sparse_index = false, std::uint32_t dp_attention = 0,
                                                      std::optional<release> version = std::nullopt,
                                                      prefill_graphs graphs = prefill_graphs::by_release) -> double {
  if (rule == fraction_rule::v0_4) {
    return legacy_mem_fraction_static(tp);
  }
  if (device_memory.count() == 0) {
    return 0.88;
  }
  const double mem = device_memory.in(MiB);
  const double devices = static_cast<double>(tp) * pp;
  double reserved = 0;
  if (rule == fraction_rule::v0_4_7) {
    reserved = mem < 35 * 1024.0    ? (2.8 + devices / 10) * 1024
               : mem < 90 * 1024.0  ? (9.5 + devices / 2) * 1024
               : mem < 160 * 1024.0 ? (12 + devices / 2) * 1024
                                    : 32 * 1024.0;
    reserved += dp_attention != 0 ? 4 * 1024.0 : 0.0;
  } else {
    const bool big_tp = tp >= 4;
    double chunked = 0;
    double graph_bs = 0;
    if (mem < 20 * 1024.0) {
      chunked = 2048, graph_bs = 8;
    } else if (mem < 35 * 1024.0) {
      chunked = 2048, graph_bs = big_tp ? 80 : rule == fraction_rule::v0_5_3 ? 16 : 24;
    } else if (mem < 60 * 1024.0) {
      chunked = 4096, graph_bs = big_tp ? 160 : 32;
    } else if (mem < 160 * 1024.0) {
      chunked = 8192, graph_bs = big_tp ? 512 : 256;
    } else {
      chunked = 16384, graph_bs = 512;
    }
    reserved = 512 + std::max(chunked, 2048.0) * 1.5 + graph_bs * 2 + devices / 8.0 * 1024;
    const release v = version.value_or(last_release_of(rule));
    if (graphs == prefill_graphs::piecewise) {
      reserved += piecewise_graph_reserve_mib(rule, pp, chunked, latent_cache, dp_attention);
    } else if (graphs == prefill_graphs::by_release && (dp_attention == 0 || at_least(v, dp_prefill_graphs_since))) {
      reserved += prefill_graph_reserve_mib(rule, pp, chunked, latent_cache, sparse_index, v);
    }
    if (dp_attention != 0) {
      const double dp = dp_attention;
      reserved += graph_bs * dp * 3 + (graph_bs > 300 ? graph_bs * dp * 1.5 : 0.0);
    }
    if (mem > 60 * 1024.0) {
      reserved = std::max(reserved, 10 * 1024.0);
    }
  }
  return python_round3((mem - reserved) / mem);
}

/// mem_fraction_static: 0.8 for a DSA model in 0.5.3rc2 – 0.5.3 over any value (dsa_forced_fraction), the user's
/// value (o.sglang.mem_fraction_static != 0), else the default rule of o.sglang.release on the device's nvidia-smi
/// total (o.sglang.reported_memory, else o.device_memory, else `device`), times a vision model's factor.
[[nodiscard]] constexpr auto default_fraction(const engine_options& o, bytes device) -> double {
  if (const std::optional<double> forced = dsa_forced_fraction(o)) {
    return *forced;
  }
  if (o.sglang.mem_fraction_static != 0) {
    return o.sglang.mem_fraction_static;
  }
  const bytes memory = o.sglang.reported_memory.count() != 0 ? o.sglang.reported_memory
                       : o.device_memory.count() != 0       ? o.device_memory
                                                            : device;
  // --enable-dp-attention as given, at the dp given (1 at dp 1, which SGLang clears only after the memory settings;
  // the forced DSA case adds nothing of its own: its handler runs after them too).
  const std::uint32_t dp = o.sglang.dp_attention || o.sglang.dp_attention_flag ? attention_dp(o, false) : 0;
  // A vision model's default is scaled after the rounding, and not rounded again (sglang_vlm.hpp).
  return auto_mem_fraction_static(memory, o.tp, o.pp, o.sglang.release, o.sglang.latent_cache, o.sglang.sparse_index,
                                  dp, version_of(o), prefill_graphs_for_model(o)) *
         vlm_default_factor(o.sglang.vlm, version_of(o));
}

[[nodiscard]] constexpr auto mem_fraction_static(const engine_options& o) -> double {
  return default_fraction(o, bytes{0});
}

/// The factor SGLang puts on mem_fraction_static, a given one too, on an AMD GPU whose attention backend is aiter
/// past 8,192 tokens of context (sglang_aiter.hpp): 0.85, 0.90 in 0.5.4.post1; 1 elsewhere. The budget is sized with
/// the fraction times it; the command line gives the fraction.
[[nodiscard]] constexpr auto aiter_factor(const engine_options& o) -> double {
  const aiter_model m{.attention_class = o.sglang.hip_attention, .latent = o.sglang.latent_cache,
                      .sparse_index = o.sglang.sparse_index, .kv_heads = o.sglang.kv_heads};
  return aiter_fraction_factor(o.sglang.rocm, m, version_of(o), o.tp,
                               o.context != 0 ? o.context : o.sglang.model_context);
}

/// What SGLang multiplies mem_fraction_static by before it sizes, a given one too: the aiter factor on an AMD GPU,
/// and before 0.4.9 the runner's factor for a multimodal model (sglang_vlm.hpp runner_vlm_factor). The budget is
/// sized with the fraction times it (budget_rule::engine_factor); the command line gives the fraction.
[[nodiscard]] constexpr auto engine_factor(const engine_options& o) -> double {
  return aiter_factor(o) * runner_vlm_factor(o.sglang.vlm, version_of(o));
}

/// `o` with the model facts the default fraction and the aiter factor read, from `m`: an MLA latent cache, DSA's
/// indexer, the KV heads and the context SGLang takes when given none (its context_len).
[[nodiscard]] constexpr auto with_model_facts(engine_options o, const model_spec& m) -> engine_options {
  o.sglang.latent_cache = m.latent.kv_lora_rank != 0;
  o.sglang.sparse_index = m.latent.index_head_dim != 0;
  o.sglang.kv_heads = m.kv_heads;
  const std::uint64_t context_len = default_context_length(m, o);
  o.sglang.model_context = context_len != 0 ? context_len : m.max_context;
  return o;
}

}  // namespace kvsize::engines::sglang
