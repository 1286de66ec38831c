// SPDX-License-Identifier: MIT
// SGLang: a token pool (page_size granularity) sized from mem_fraction_static of the memory
// free before loading; MLA pools hold the 576-wide latent; hybrid SWA and Mamba pools.
// Facts from python/sglang/srt/model_executor/{pool_configurator,model_runner_kv_cache_mixin}.py,
// server_args.py, mem_cache/memory_pool.py (see docs/engines.md).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>  // std::max, std::min
#include <string_view>  // std::string_view
#include <cstdint>    // std::uint32_t, std::uint64_t

#include "common.hpp"
#include "engine_concept.hpp"

namespace kvsize::engines::sglang {

/// python/sglang/srt/configs/model_config.py `_get_and_verify_dtype`: float32 (or absent) becomes
/// float16, bfloat16 for model_type gemma*; server_args.py forces bfloat16 for gpt-oss with mxfp4
/// weights ("use bf16 for mxfp4 triton kernels").
[[nodiscard]] constexpr auto serving_dtype(const config_dtype_facts& f) -> dtype {
  if (f.mxfp4) {
    return kvsize::detail::given_or(f, dtype::bf16);
  }
  const dtype from_float32 = f.gemma ? dtype::bf16 : dtype::f16;
  return kvsize::detail::given_or(f, kvsize::detail::float32_config(f) ? from_float32 : f.config_dtype);
}

/// K and V in the serving dtype. The states, as python/sglang/srt/configs/mamba_utils.py
/// `mamba2_state_dtype` gives them: the conv state in SGLANG_MAMBA_CONV_DTYPE, whose default is
/// "bfloat16" whatever the model's dtype (sglang/srt/environ.py), the SSM state in
/// `--mamba-ssm-dtype` (here `--state-dtype`), else float32. (SGLang reads the config key
/// mamba_ssm_dtype, not NemotronH's mamba_ssm_cache_dtype, so m.state.ssm_dtype does not apply.)
[[nodiscard]] constexpr auto stage_types(const model_spec& m, const engine_options& o)
    -> kvsize::detail::stage_dtypes {
  const dtype served = serving_dtype(dtype_facts(m, o));
  return {kvsize::detail::kv_or(o, kv_dtypes::same(served)), {dtype::bf16, o.state_dtype ? *o.state_dtype : dtype::f32}};
}

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
///   H (0.5.10 – 0.5.19): G plus, before the floor, the prefill CUDA graphs' 8 MiB per capture size
///     (1.5 GiB for an MLA model; none at pp > 1, where 0.5.10 turns those graphs off; PR #16331);
/// fraction = round((memory − reserve) / memory, 3). Rule A is legacy_mem_fraction_static.
[[nodiscard]] constexpr auto auto_mem_fraction_static(bytes device_memory, std::uint32_t tp, std::uint32_t pp,
                                                      fraction_rule rule = fraction_rule::v0_5,
                                                      bool latent_cache = false) -> double {
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
    if (rule == fraction_rule::v0_5_10 && pp == 1) {
      reserved += latent_cache ? 1.5 * 1024 : 8.0 * prefill_graph_sizes(static_cast<std::uint32_t>(chunked));
    }
    if (mem > 60 * 1024.0) {
      reserved = std::max(reserved, 10 * 1024.0);
    }
  }
  const double fraction = (mem - reserved) / mem;
  return static_cast<double>(static_cast<std::int64_t>(fraction * 1000.0 + 0.5)) / 1000.0;
}

/// Memory in use before the weights load (the CUDA context, NCCL and custom all-reduce buffers):
/// model_runner.py's total_gpu_memory is the free memory measured then ("Load weight begin. avail
/// mem=…"), not the device. Public H100 logs (docs/research/sglang-budget.md): 0.60 GiB at tp 1
/// (S2: 79.19 − 78.59), 1.76 GiB at tp 8 (S9: 79.19 − 77.43); any tp ≥ 2 takes the tp-8 figure, the
/// largest seen (no public log at tp 2 or 4), so the budget errs low.
[[nodiscard]] constexpr auto non_torch_memory(const engine_options& o) -> bytes {
  return std::uint64_t{o.tp} * o.pp >= 2 ? MiB * 1'803 : MiB * 615;  // 1.76 GiB, 0.60 GiB (rounded up)
}

/// mem_fraction_static: the user's value (o.sglang.mem_fraction_static != 0), else the default rule of
/// o.sglang.release on the device's nvidia-smi total (o.sglang.reported_memory, else o.device_memory,
/// else `device`).
[[nodiscard]] constexpr auto default_fraction(const engine_options& o, bytes device) -> double {
  if (o.sglang.mem_fraction_static != 0) {
    return o.sglang.mem_fraction_static;
  }
  const bytes memory = o.sglang.reported_memory.count() != 0 ? o.sglang.reported_memory
                       : o.device_memory.count() != 0       ? o.device_memory
                                                            : device;
  return auto_mem_fraction_static(memory, o.tp, o.pp, o.sglang.release, o.sglang.latent_cache);
}

[[nodiscard]] constexpr auto mem_fraction_static(const engine_options& o) -> double {
  return default_fraction(o, bytes{0});
}

/// What the context changes, from the parts (size_stage's last step, and all of with_context): a
/// sequence takes whole pages of the full pool, and of the SWA pool min(context, W) tokens; the
/// radix cache holds a shared prefix once, in whole pages. Part 0 is the full pool.
constexpr void charge(const engine_options& o, engine_sizing& s) {
  using kvsize::detail::round_up;
  const cache_part& full = s.part(0);
  bytes swa_per_token{0};
  std::uint64_t window = 0;
  for (std::uint32_t i = 1; i < s.part_count; ++i) {
    if (s.part(i).group == group_kind::sliding) {
      swa_per_token = s.part(i).bytes_per_token;
      window = s.part(i).window;
    }
  }
  const std::uint64_t shared = o.shared_prefix / s.block_size * s.block_size;  // radix cache shares whole pages
  const std::uint64_t tokens = round_up(s.context, s.block_size);
  s.kv_bytes_per_sequence = full.bytes_per_token * tokens +
                            swa_per_token * round_up(std::min<std::uint64_t>(s.context, window), s.block_size);
  s.kv_bytes = s.kv_bytes_per_sequence * o.batch;
  s.prefix_bytes_per_sequence =
      full.bytes_per_token * std::min(shared, s.context) +
      swa_per_token * kvsize::detail::prefix_tokens_held(group_kind::sliding, window, shared, s.context);
  s.prefix_bytes_saved = s.prefix_bytes_per_sequence * (o.batch - 1);
}

/// Cell sizes (bytes per token of each pool) on one attention-TP rank for layers of `r`: KV heads
/// max(1, n_kv // tp). Parts: the full pool (K, V per token; latent: K only), the SWA pool when
/// `swa_pool`, the mamba state (R = conv, S = ssm per request).
[[nodiscard]] constexpr auto size_stage(const model_spec& m, const engine_options& o, kvsize::detail::stage_range r)
    -> engine_sizing {
  engine_sizing s =
      kvsize::detail::start_plain_sizing(engine_kind::sglang, m, o, r, stage_types(m, o));
  s.block_size = o.block_size != 0 ? o.block_size : 1;

  cache_part full = kvsize::detail::part_of(group_kind::full, s.kv);
  full.block_size = s.block_size;
  cache_part swa = kvsize::detail::part_of(group_kind::sliding, s.kv);
  swa.block_size = s.block_size;
  swa.window = m.sliding_window != 0 ? m.sliding_window : m.attention_chunk;
  cache_part state = kvsize::detail::part_of(group_kind::recurrent_state, {s.state.conv, s.state.ssm});
  const auto add = [](cache_part& c, const layer_group& g, bytes k, bytes v) {
    c.layers += g.layers;
    c.k_per_token += k * g.layers;
    c.v_per_token += v * g.layers;
  };
  for_each_group(
      kvsize::detail::engine_groups(m, o, s, head_split::replicate, mla_cache_layout::latent_k_only,
                                    true),  // the NSA pool's index_k_with_scale_buffer: fp8 + scales
      [&](const layer_group& g) { add(o.sglang.swa_pool && is_windowed(g.kind) ? swa : full, g, g.k_row, g.v_row); },
      [&](const layer_group& g) { add(state, g, g.conv_state, g.ssm_state); });  // state: R, S per request
  full.bytes_per_token = full.k_per_token + full.v_per_token;
  swa.bytes_per_token = swa.k_per_token + swa.v_per_token;
  state.bytes_per_token = state.k_per_token + state.v_per_token;
  s.add_part(full);
  if (swa.layers != 0) {
    s.add_part(swa);
  }
  if (state.layers != 0) {
    s.add_part(state);
  }
  s.kv_bytes_per_token = full.bytes_per_token + swa.bytes_per_token;
  s.state_bytes_per_sequence = state.bytes_per_token;
  charge(o, s);
  return s;
}

/// The sizing `s` (size_stage's, made with options that differ from `o` in the context only) at
/// o.context: the pools' cells do not depend on the context, so only `charge` is redone.
[[nodiscard]] constexpr auto with_context(const model_spec& m, const engine_options& o, engine_sizing s)
    -> engine_sizing {
  s.context = kvsize::detail::context_of(m, o);
  charge(o, s);
  return s;
}

/// #tokens = budget // cell, floored to the page size; with a mamba state, the budget is first
/// split r : 1 (mamba_full_memory_ratio) between state slots and tokens; with a SWA pool,
/// cell = full + ratio × swa. max_running_requests = min(max(int(N / context · 512), 2048), 4096).
[[nodiscard]] constexpr auto capacity(const engine_sizing& s, const engine_options& o, bytes budget)
    -> engine_capacity {
  engine_capacity c{};
  c.kv_budget = budget;
  const std::uint64_t page = s.block_size;
  const cache_part& full = s.part(0);
  bytes swa_per_token{0};
  bytes state_per_request{0};
  for (std::uint32_t i = 1; i < s.part_count; ++i) {
    if (s.part(i).group == group_kind::recurrent_state) {
      state_per_request = s.part(i).bytes_per_token;
    } else {
      swa_per_token = s.part(i).bytes_per_token;
    }
  }
  bytes kv_budget = budget;
  if (state_per_request.count() != 0) {
    const double r = o.sglang.mamba_full_memory_ratio;
    const bytes mamba = kvsize::detail::fraction_of(budget, r / (1.0 + r));
    c.state_slots = mamba / state_per_request;
    kv_budget = budget - mamba;
  }
  if (swa_per_token.count() != 0) {
    const double cell = static_cast<double>(full.bytes_per_token.count()) +
                        o.sglang.swa_full_tokens_ratio * static_cast<double>(swa_per_token.count());
    const auto tokens = static_cast<std::uint64_t>(static_cast<double>(kv_budget.count()) / cell);
    c.max_tokens = tokens / page * page;
    c.swa_tokens = static_cast<std::uint64_t>(static_cast<double>(c.max_tokens) * o.sglang.swa_full_tokens_ratio) / page * page;
  } else {
    c.max_tokens = full.bytes_per_token.count() == 0 ? 0 : kv_budget / full.bytes_per_token / page * page;
  }
  const std::uint64_t context = kvsize::detail::round_up(s.context, page);
  c.max_running_requests = o.sglang.max_running_requests;
  if (c.max_running_requests == 0) {
    const auto by_tokens = static_cast<std::uint64_t>(static_cast<double>(c.max_tokens) / static_cast<double>(s.context) * 512.0);
    c.max_running_requests = std::min<std::uint64_t>(std::max<std::uint64_t>(by_tokens, 2'048), 4'096);
  }
  c.max_concurrency = static_cast<double>(c.max_tokens) / static_cast<double>(context);
  c.max_sequences = std::min(c.max_tokens / context, c.max_running_requests);
  if (state_per_request.count() != 0) {
    c.max_sequences = std::min(c.max_sequences, c.state_slots);
  }
  const std::uint64_t prefix_tokens =
      full.bytes_per_token.count() == 0 ? 0 : s.prefix_bytes_per_sequence / full.bytes_per_token;
  c.max_sequences_shared = prefix_tokens != 0 && prefix_tokens < context && c.max_tokens >= prefix_tokens
                               ? std::min((c.max_tokens - prefix_tokens) / (context - prefix_tokens), c.max_running_requests)
                               : c.max_sequences;
  c.allocated = full.bytes_per_token * (c.max_tokens + page) + swa_per_token * (c.swa_tokens + (c.swa_tokens != 0 ? page : 0));
  return c;
}

}  // namespace kvsize::engines::sglang

namespace kvsize {

/// SGLang as an engine type (see engine_concept.hpp).
struct sglang_engine : engine_defaults<sglang_engine> {
  static constexpr engine_kind kind = engine_kind::sglang;
  static constexpr std::string_view name = "sglang";
  static constexpr std::string_view display_name = "SGLang";
  /// The releases whose default mem_fraction_static rule applies (--engine-version; sglang_release.hpp).
  [[nodiscard]] static constexpr auto version_name(const engine_options& o) -> std::string_view {
    return engines::sglang::version_name(o.sglang.release);
  }
  static constexpr engine_knob knobs = engine_knob::block_size | engine_knob::mem_fraction_static |
                                       engine_knob::max_running_requests | engine_knob::engine_version;
  [[nodiscard]] static constexpr auto serving_dtype(const config_dtype_facts& f) -> dtype {
    return engines::sglang::serving_dtype(f);
  }
  [[nodiscard]] static constexpr auto stage_types(const model_spec& m, const engine_options& o)
      -> detail::stage_dtypes {
    return engines::sglang::stage_types(m, o);
  }
  /// No GGML block-quantized cache (any positive page size is accepted: server_args.py
  /// --page-size, type=int).
  [[nodiscard]] static constexpr auto kv_type_refusal(dtype t) -> std::string_view {
    return traits(t).block_elements != 1
               ? "sglang has no GGML block-quantized KV cache (q8_0, q4_0, ...); its 8-bit cache is fp8"
               : std::string_view{};
  }
  [[nodiscard]] static constexpr auto size_stage(const model_spec& m, const engine_options& o, detail::stage_range r)
      -> engine_sizing {
    return engines::sglang::size_stage(m, o, r);
  }
  /// Its context terms follow from the sizing's pools (engines::sglang::with_context).
  [[nodiscard]] static constexpr auto with_context(const model_spec& m, const engine_options& o,
                                                   const engine_sizing& s) -> std::optional<engine_sizing> {
    return engines::sglang::with_context(m, o, s);
  }
  [[nodiscard]] static constexpr auto budget(const engine_options& o) -> budget_rule {
    return {.fraction = engines::sglang::mem_fraction_static(o), .setting = "mem_fraction_static", .decimals = 3};
  }
  /// model_runner.py ModelRunner.profile_max_num_token: rest = free_after_load −
  /// free_before_load·(1 − mem_fraction_static), where free_before_load = device − non-torch (the
  /// workspace's non_torch) and free_after_load = free_before_load − weights; so
  ///   kv = mem_fraction_static × (device − non-torch) − weights − the rest of the overhead (--reserve).
  /// The same rule, from measured figures, is sglang_budget.hpp's sglang_startup_budget.
  [[nodiscard]] static constexpr auto kv_budget(bytes device_memory, bytes weights, const engine_options& o) -> bytes {
    const bytes non_torch = engines::sglang::non_torch_memory(o);
    const bytes other = detail::saturating_sub(o.engine_overhead, non_torch);
    const bytes before_load = detail::saturating_sub(device_memory, non_torch);
    return detail::saturating_sub(detail::fraction_of(before_load, budget(o).fraction), weights + other);
  }
  [[nodiscard]] static constexpr auto capacity(const engine_sizing& s, const engine_options& o, bytes budget)
      -> engine_capacity {
    return engines::sglang::capacity(s, o, budget);
  }
  /// The memory in use before the weights load (non_torch_memory); nothing else: the
  /// mem_fraction_static rule reserves 512 MiB + 1.5 × chunked prefill + 2 × cuda-graph batch +
  /// tp·pp/8 GiB outside the pool for logits, activations and graphs.
  [[nodiscard]] static constexpr auto workspace(const model_spec& /*m*/, const engine_options& o)
      -> workspace_defaults {
    return {.last_rows = o.batch, .sequences = o.batch, .activation_tp = o.tp,
            .non_torch = engines::sglang::non_torch_memory(o)};
  }
  /// The scheduler's max_running_requests (given, or its rule from the pool's tokens).
  [[nodiscard]] static constexpr auto slot_cap(const engine_options& /*o*/, const engine_capacity& c)
      -> std::uint64_t {
    return c.max_running_requests;
  }
};
static_assert(engine<sglang_engine>);

}  // namespace kvsize

// The registry and the dispatch, so that this header alone is usable (engine.hpp includes every
// engine header; this one is already complete here).
#include "../engine.hpp"
