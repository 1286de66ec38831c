// SPDX-License-Identifier: MIT
// SGLang: a token pool (page_size granularity) sized from mem_fraction_static of the memory free before loading; MLA
// pools hold the 576-wide latent; hybrid SWA and Mamba pools. Facts from python/sglang/srt/model_executor/
// {pool_configurator,model_runner_kv_cache_mixin}.py, server_args.py, mem_cache/memory_pool.py (docs/engines.md).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>  // std::max, std::min
#include <string_view>  // std::string_view
#include <cstdint>    // std::uint32_t, std::uint64_t
#include <optional>   // std::optional

#include "common.hpp"
#include "engine_concept.hpp"
#include "sglang_dp.hpp"        // DP attention's ranks and attention-TP group
#include "sglang_dsa.hpp"       // DeepSeek sparse attention's pool, cache dtype and page size
#include "sglang_fraction.hpp"  // the default mem_fraction_static of each release
#include "sglang_requests.hpp"  // max_running_requests by release

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

/// The K/V type SGLang's `--kv-cache-dtype auto` takes from the checkpoint: float8_e4m3fn where the quant config's
/// kv_cache_quant_algo is "FP8" (PR #10336, commit 80572c83, first in 0.5.3rc1: model_runner.py's memory-pool setup;
/// later ModelRunner.configure_kv_cache_dtype, then mem_cache/kv_cache_dtype.py configure_kv_cache_dtype). Of
/// ModelOpt's configs (layers/quantization/modelopt_quant.py) ModelOptFp4Config sets that attribute from the start;
/// ModelOptFp8Config kept the key as kv_cache_quant_method until PR #12018 (commit a9849683, first in 0.5.4) gave it
/// the ModelOptQuantConfig base that sets it. By kvsize's release groups: NVFP4 weights from 0.5.3rc2 (group
/// v0_5_3; 0.5.3rc1 ends group v0_4_7, sized without), FP8 weights from 0.5.4.post1 (group v0_5; 0.5.4 ends group
/// v0_5_3, sized without): both err low. compressed-tensors' kv_cache_scheme is not taken (PR #35455, August 2026;
/// its first release is not known): nullopt, the serving dtype. A DSA model (o.sglang.sparse_index) from 0.5.4.post2
/// has its `auto` resolved before the model loads (sglang_dsa.hpp dsa_cache_dtype): nullopt.
[[nodiscard]] constexpr auto checkpoint_kv_dtype(const engine_options& o) -> std::optional<dtype> {
  const auto from = [&](fraction_rule first) {
    return static_cast<std::uint8_t>(o.sglang.release) >= static_cast<std::uint8_t>(first);
  };
  const bool takes = (o.checkpoint_kv == checkpoint_kv_cache::modelopt_nvfp4_fp8 && from(fraction_rule::v0_5_3)) ||
                     (o.checkpoint_kv == checkpoint_kv_cache::modelopt_fp8 && from(fraction_rule::v0_5));
  const bool dsa_default = o.sglang.sparse_index && at_least(version_of(o), dsa_named_type_checked_since);
  return takes && !dsa_default ? std::optional<dtype>{dtype::fp8_e4m3} : std::nullopt;
}

/// The first release whose --kv-cache-dtype names bf16 / bfloat16 (server_args.py choices, v0.5.4; auto, fp8_e5m2
/// and fp8_e4m3 before).
inline constexpr release named_bf16_since = release_0_5(4);

/// An explicit K/V type SGLang cannot be given where its `auto` takes the checkpoint's FP8 cache (checkpoint_kv_dtype):
/// any but fp8_e4m3, fp8_e5m2 and, from 0.5.4, bf16 (server_args.py --kv-cache-dtype: auto, the fp8 types, bf16 /
/// bfloat16 from 0.5.4; fp4 recipes kvsize does not size). The model's own 16-bit dtype is no choice there: `auto`
/// gives the FP8. Empty: the type can be named.
[[nodiscard]] constexpr auto checkpoint_kv_type_refusal(const engine_options& o) -> std::string_view {
  if (!o.kv || !checkpoint_kv_dtype(o)) {
    return {};
  }
  const bool bf16_named = at_least(version_of(o), named_bf16_since);
  const auto nameable = [&](dtype t) {
    return is_fp8(t) || (t == dtype::bf16 && bf16_named);
  };
  if (nameable(o.kv->k) && nameable(o.kv->v)) {
    return {};
  }
  return bf16_named ? "SGLang's --kv-cache-dtype auto takes the FP8 KV cache the checkpoint declares, and its other "
                      "choices are fp8_e5m2 and bf16 (server_args.py --kv-cache-dtype): no float16, float32 or "
                      "integer cache"
                    : "SGLang's --kv-cache-dtype auto takes the FP8 KV cache the checkpoint declares, and before 0.5.4 "
                      "its one other choice is fp8_e5m2 (server_args.py --kv-cache-dtype names bf16 from 0.5.4): no "
                      "16-bit, float32 or integer cache";
}

/// A K/V type (o.kv) SGLang's one --kv-cache-dtype cannot be given: K and V apart, or a type that is neither what
/// `auto` gives (the serving dtype) nor among its choices (server_args.py at every tag from 0.4.6 to 0.5.18: auto,
/// fp8_e5m2, fp8_e4m3, and bf16 / bfloat16 from 0.5.4; fp4 recipes kvsize does not size). A float16, float32 or
/// integer cache is had only as the model's own dtype. Empty: the type can be had.
[[nodiscard]] constexpr auto named_type_refusal(const model_spec& m, const engine_options& o) -> std::string_view {
  if (!o.kv) {
    return {};
  }
  if (o.kv->k != o.kv->v) {
    return "SGLang's --kv-cache-dtype sets K and V together: name one type for both";
  }
  const dtype t = o.kv->k;
  if (t == serving_dtype(kvsize::dtype_facts(m, o)) || is_fp8(t)) {
    return {};
  }
  if (t == dtype::bf16) {
    return at_least(version_of(o), named_bf16_since)
               ? std::string_view{}
               : "SGLang's --kv-cache-dtype names bf16 from 0.5.4 (0.5.3 and before: auto, fp8_e5m2, fp8_e4m3); "
                 "there a bf16 cache is the model's own dtype only";
  }
  return "SGLang's --kv-cache-dtype names auto (the model's dtype), fp8_e5m2, fp8_e4m3 and, from 0.5.4, bf16: a "
         "float16, float32 or integer cache only as the dtype the model is served in (--dtype)";
}

/// The cache type named (o.kv's K; none: `auto`).
[[nodiscard]] constexpr auto named_kv(const engine_options& o) -> std::optional<dtype> {
  return o.kv ? std::optional<dtype>{o.kv->k} : std::nullopt;
}

/// K and V in the serving dtype, or the checkpoint's FP8 (checkpoint_kv_dtype); a DSA model's latent in the type
/// SGLang sets for it (dsa_cache_dtype). The states, as python/sglang/srt/configs/mamba_utils.py `mamba2_state_dtype`
/// gives them: the conv state in SGLANG_MAMBA_CONV_DTYPE, whose default is "bfloat16" whatever the model's dtype
/// (sglang/srt/environ.py), the SSM state in `--mamba-ssm-dtype` (here `--state-dtype`), else float32. (SGLang
/// reads the config key mamba_ssm_dtype, not NemotronH's mamba_ssm_cache_dtype, so m.state.ssm_dtype does not apply.)
[[nodiscard]] constexpr auto stage_types(const model_spec& m, const engine_options& o)
    -> kvsize::detail::stage_dtypes {
  const dtype served = serving_dtype(dtype_facts(m, o));
  const dtype automatic = checkpoint_kv_dtype(o).value_or(served);
  const state_dtypes state{dtype::bf16, o.state_dtype ? *o.state_dtype : dtype::f32};
  if (m.latent.index_head_dim != 0) {
    return {kv_dtypes::same(dsa_cache_dtype(o, named_kv(o), automatic)), state};
  }
  return {kvsize::detail::kv_or(o, kv_dtypes::same(automatic)), state};
}

/// Memory in use before the weights load (the CUDA context, NCCL and custom all-reduce buffers): model_runner.py's
/// total_gpu_memory is the free memory measured then ("Load weight begin. avail mem=…"), not the device. Public H100
/// logs (docs/research/sglang-budget.md): 0.60 GiB at tp 1 (S2: 79.19 − 78.59), 1.76 GiB at tp 8 (S9: 79.19 −
/// 77.43); any tp ≥ 2 takes the tp-8 figure, the largest seen (no public log at tp 2 or 4), so the budget errs low.
[[nodiscard]] constexpr auto non_torch_memory(const engine_options& o) -> bytes {
  return std::uint64_t{o.tp} * o.pp >= 2 ? MiB * 1'803 : MiB * 615;  // 1.76 GiB, 0.60 GiB (rounded up)
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

/// Why SGLang's cache for this model is not modelled or cannot be had, in words; empty when it is: a DSA model
/// before its release or in a type it does not keep (dsa_refusal), an explicit K/V type it cannot name over the
/// checkpoint's FP8 (checkpoint_kv_type_refusal) or at all (named_type_refusal). SGLang keeps MiniMax's
/// lightning state out of its pools: models/minimax_text_01.py MiniMaxText01Model.__init__ allocates a float32
/// MinimaxCacheManager of (lightning layers, max_num_seqs (32 unless the scheduler config says), heads / tp,
/// head_dim, head_dim) with the weights, and serves at most that many sequences.
[[nodiscard]] constexpr auto model_refusal(const model_spec& m, const engine_options& o) -> std::string_view {
  if (m.weights.recurrent.kind == recurrent_kind::lightning) {
    return "sglang keeps MiniMax's lightning-attention state in a fixed float32 cache of 32 sequences allocated "
           "with the weights (models/minimax_text_01.py MinimaxCacheManager), which kvsize does not model yet; size "
           "it with --engine vllm or exact";
  }
  if (const std::string_view why = dp_attention_refusal(m, o); !why.empty()) {
    return why;
  }
  if (m.latent.index_head_dim != 0) {
    if (const std::string_view why = dsa_refusal(o, named_kv(o)); !why.empty()) {
      return why;
    }
  }
  if (const std::string_view why = checkpoint_kv_type_refusal(o); !why.empty()) {
    return why;
  }
  return named_type_refusal(m, o);
}

/// Cell sizes (bytes per token of each pool) on one attention-TP rank for layers of `r`: KV heads
/// max(1, n_kv // tp). Parts: the full pool (K, V per token; latent: K only), the SWA pool when
/// `swa_pool`, the mamba state (R = conv, S = ssm per request). A DSA model's pool (dsa_pool_of): its page size,
/// its latent rows as allocated, and the cell its token count divides by where that differs.
[[nodiscard]] constexpr auto size_stage(const model_spec& m, const engine_options& o, kvsize::detail::stage_range r)
    -> engine_sizing {
  kvsize::detail::require_served(model_refusal(m, o));
  engine_sizing s =
      kvsize::detail::start_plain_sizing(engine_kind::sglang, m, o, r, stage_types(m, o));
  const bool dsa = m.latent.index_head_dim != 0;
  const dsa_pool pool = dsa ? dsa_pool_of(o, s.kv.k, row_bytes(s.kv.k, kvsize::detail::latent_width(m))) : dsa_pool{};
  s.block_size = dsa ? pool.page_size : (o.block_size != 0 ? o.block_size : 1);

  cache_part full = kvsize::detail::part_of(group_kind::full, s.kv);
  full.block_size = s.block_size;
  cache_part swa = kvsize::detail::part_of(group_kind::sliding, s.kv);
  swa.block_size = s.block_size;
  swa.window = m.sliding_window != 0 ? m.sliding_window : m.attention_chunk;
  cache_part state = kvsize::detail::part_of(group_kind::recurrent_state, {s.state.conv, s.state.ssm});
  // A DSA layer's K: the latent as the pool allocates it, and the indexer's key; `counted`: the full pool's cell
  // as the token count reads it (dsa_pool_of).
  bytes counted{0};
  const auto add = [&](cache_part& c, const layer_group& g, bytes k, bytes v) {
    const bool dsa_layer = g.kind == group_kind::latent && g.index_row != bytes{0};
    c.layers += g.layers;
    c.k_per_token += (dsa_layer ? pool.latent_row + g.index_row : k) * g.layers;
    c.v_per_token += v * g.layers;
    if (&c == &full) {
      counted += (dsa_layer ? pool.counted_row + (pool.indexer_counted ? g.index_row : bytes{0}) : k + v) * g.layers;
    }
  };
  engine_options attention = o;  // KV heads a rank: over the attention-TP group (tp // dp under DP attention)
  attention.tp = attention_tp_of(m, o);
  for_each_group(
      kvsize::detail::engine_groups(m, attention, s, head_split::replicate, mla_cache_layout::latent_k_only,
                                    true,  // the NSA pool's index_k_with_scale_buffer: fp8 + scales
                                    // MiniMax-M3's index_k_pool: one head in the served (model) dtype, whatever
                                    // the KV's (pool_configurator.py DefaultPoolConfigurator._compute_cell_size)
                                    index_key_type::fixed, serving_dtype(dtype_facts(m, o))),
      [&](const layer_group& g) { add(o.sglang.swa_pool && is_windowed(g.kind) ? swa : full, g, g.k_row, g.v_row); },
      [&](const layer_group& g) { add(state, g, g.conv_state, g.ssm_state); });  // state: R, S per request
  full.bytes_per_token = full.k_per_token + full.v_per_token;
  full.counted_per_token = dsa && counted != full.bytes_per_token ? counted : bytes{0};
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

/// #tokens = budget // cell, floored to the page size (a DSA pool's cell: dsa_pool_of's counted row, the pool then
/// allocates its own rows for those tokens); with a mamba state, the budget is first
/// split r : 1 (mamba_full_memory_ratio) between state slots and tokens; with a SWA pool,
/// cell = full + ratio × swa. max_running_requests: min(N // 2, max(int(N / context · 512), 2048), 4096), a given
/// value capped by release (sglang_requests.hpp).
[[nodiscard]] constexpr auto capacity(const engine_sizing& s, const engine_options& o, bytes budget)
    -> engine_capacity {
  engine_capacity c{};
  c.kv_budget = budget;
  const std::uint64_t page = s.block_size;
  const cache_part& full = s.part(0);
  // The cell the token count divides by: the full pool's bytes a token, or what the release counts instead (DSA).
  const bytes cell = full.counted_per_token.count() != 0 ? full.counted_per_token : full.bytes_per_token;
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
    const double swa_cell = static_cast<double>(cell.count()) +
                            o.sglang.swa_full_tokens_ratio * static_cast<double>(swa_per_token.count());
    const auto tokens = static_cast<std::uint64_t>(static_cast<double>(kv_budget.count()) / swa_cell);
    c.max_tokens = tokens / page * page;
    c.swa_tokens = static_cast<std::uint64_t>(static_cast<double>(c.max_tokens) * o.sglang.swa_full_tokens_ratio) / page * page;
  } else {
    c.max_tokens = cell.count() == 0 ? 0 : kv_budget / cell / page * page;
  }
  const std::uint64_t context = kvsize::detail::round_up(s.context, page);
  c.max_running_requests = max_running_requests(o, c.max_tokens, s.context);  // by release: sglang_requests.hpp
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
  static constexpr engine_knob knobs = engine_knob::block_size | engine_knob::mem_fraction_static | engine_knob::dp_attention |
                                       engine_knob::max_running_requests | engine_knob::engine_version;
  [[nodiscard]] static constexpr auto serving_dtype(const config_dtype_facts& f) -> dtype {
    return engines::sglang::serving_dtype(f);
  }
  [[nodiscard]] static constexpr auto checkpoint_kv_dtype(const engine_options& o) -> std::optional<dtype> {
    return engines::sglang::checkpoint_kv_dtype(o);
  }
  [[nodiscard]] static constexpr auto checkpoint_kv_type_refusal(const engine_options& o) -> std::string_view {
    return engines::sglang::checkpoint_kv_type_refusal(o);
  }
  [[nodiscard]] static constexpr auto stage_types(const model_spec& m, const engine_options& o) -> detail::stage_dtypes {
    return engines::sglang::stage_types(m, o);
  }
  /// No GGML block-quantized cache (any positive page size is accepted: server_args.py --page-size, type=int).
  [[nodiscard]] static constexpr auto kv_type_refusal(dtype t) -> std::string_view {
    return traits(t).block_elements != 1
               ? "sglang has no GGML block-quantized KV cache (q8_0, q4_0, ...); its 8-bit cache is fp8"
               : std::string_view{};
  }
  [[nodiscard]] static constexpr auto model_refusal(const model_spec& m, const engine_options& o) -> std::string_view {
    return engines::sglang::model_refusal(m, o);
  }
  /// context_len when none is given: get_context_length's first key, times the rope factor (sglang_context.hpp).
  [[nodiscard]] static constexpr auto default_context(const model_spec& m, const engine_options& o) -> std::uint64_t {
    return engines::sglang::default_context_length(m, o);
  }
  [[nodiscard]] static constexpr auto size_stage(const model_spec& m, const engine_options& o, detail::stage_range r)
      -> engine_sizing {
    return engines::sglang::size_stage(m, detail::with_default_context(o, default_context(m, o)), r);
  }
  /// Its context terms follow from the sizing's pools (engines::sglang::with_context).
  [[nodiscard]] static constexpr auto with_context(const model_spec& m, const engine_options& o,
                                                   const engine_sizing& s) -> std::optional<engine_sizing> {
    return engines::sglang::with_context(m, detail::with_default_context(o, default_context(m, o)), s);
  }
  /// The options with the model facts the default fraction reads (fit_on_device applies it).
  [[nodiscard]] static constexpr auto with_model_facts(const engine_options& o, const model_spec& m) -> engine_options {
    return engines::sglang::with_model_facts(o, m);
  }
  [[nodiscard]] static constexpr auto budget(const engine_options& o) -> budget_rule {
    const double f = engines::sglang::mem_fraction_static(o);  // a VLM's default in full (shown_decimals)
    return {.fraction = f, .margin = engines::sglang::multimodal_reserve(o.sglang.vlm, engines::sglang::version_of(o)),
            .setting = "mem_fraction_static", .decimals = engines::sglang::shown_decimals(f),
            .engine_factor = engines::sglang::engine_factor(o)};
  }
  /// model_runner.py ModelRunner.profile_max_num_token: rest = free_after_load −
  /// free_before_load·(1 − mem_fraction_static), where free_before_load = device − non-torch (the
  /// workspace's non_torch) and free_after_load = free_before_load − weights; so
  ///   kv = mem_fraction_static × (device − non-torch) − weights − the rest of the overhead (--reserve) − margin
  /// (0.5.18's multimodal reserve). The same rule, from measured figures, is sglang_budget.hpp's sglang_startup_budget.
  [[nodiscard]] static constexpr auto kv_budget(bytes device_memory, bytes weights, const engine_options& o) -> bytes {
    const bytes non_torch = engines::sglang::non_torch_memory(o);
    const bytes other = detail::saturating_sub(o.engine_overhead, non_torch) + budget(o).margin;
    const bytes before_load = detail::saturating_sub(device_memory, non_torch);
    return detail::saturating_sub(detail::fraction_of(before_load, budget(o).sized_fraction()), weights + other);
  }
  [[nodiscard]] static constexpr auto capacity(const engine_sizing& s, const engine_options& o, bytes budget)
      -> engine_capacity {
    return engines::sglang::capacity(s, o, budget);
  }
  /// The memory in use before the weights load (non_torch_memory); nothing else: the default mem_fraction_static
  /// rule of the release (auto_mem_fraction_static) reserves the room outside the pool for logits, activations, graphs.
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

// The registry and the dispatch, so that this header alone is usable (engine.hpp includes every engine header).
#include "../engine.hpp"
