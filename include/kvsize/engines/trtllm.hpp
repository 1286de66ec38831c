// SPDX-License-Identifier: MIT
// TensorRT-LLM: paged KV cache of `tokens_per_block` tokens, one pool per attention window,
// ceil(n_kv / tp) heads per rank, 0.9 of the free memory after profiling.
// Facts from tensorrt_llm/_torch/pyexecutor/{_util,resource_manager}.py,
// cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp, llmapi/llm_args.py (see docs/engines.md).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>  // std::max, std::min
#include <string_view>  // std::string_view
#include <cstdint>    // std::uint32_t, std::uint64_t
#include <optional>   // std::optional

#include "../error.hpp"
#include "common.hpp"
#include "engine_concept.hpp"
#include "trtllm_context.hpp"  // max_seq_len when none is given

namespace kvsize::engines::trtllm {

/// TensorRT-LLM sizes its blocks for max_seq_len: a context of 0 is its default (trtllm_context.hpp); a spec built by
/// hand with no max_context and no context is refused.
inline constexpr const char* needs_context = "kvsize: TensorRT-LLM needs a context (max_seq_len)";

/// The config's dtype; bfloat16 when it names none (tensorrt_llm/_torch/model_config.py
/// `ModelConfig.torch_dtype`). float32 stays float32.
[[nodiscard]] constexpr auto serving_dtype(const config_dtype_facts& f) -> dtype {
  return kvsize::detail::given_or(f, f.named ? f.config_dtype : dtype::bf16);
}

/// The K/V type TensorRT-LLM takes from the checkpoint: its KvCacheConfig dtype "auto" keeps a ModelOpt checkpoint's
/// kv_cache_quant_algo (hf_quant_config.json / config.json; "Using checkpoint KV quantization.":
/// tensorrt_llm/_torch/pyexecutor/model_loader.py validate_and_set_kv_cache_quant). compressed-tensors' 8-bit float
/// kv_cache_scheme reads as FP8 only from PR #17334 (August 2026; _torch/models/checkpoints/hf/compressed_tensors.py),
/// a release kvsize cannot tell apart: not taken, the serving dtype.
[[nodiscard]] constexpr auto checkpoint_kv_dtype(const engine_options& o) -> std::optional<dtype> {
  const bool modelopt = o.checkpoint_kv == checkpoint_kv_cache::modelopt_fp8 ||
                        o.checkpoint_kv == checkpoint_kv_cache::modelopt_nvfp4_fp8;
  return modelopt ? std::optional<dtype>{dtype::fp8_e4m3} : std::nullopt;
}

/// What TensorRT-LLM refuses of an explicit K/V type on such a checkpoint: validate_and_set_kv_cache_quant accepts
/// only "auto" and the quantized types, and raises where one conflicts with the checkpoint's FP8 (empty: accepted).
[[nodiscard]] constexpr auto checkpoint_kv_refusal(const engine_options& o) -> std::string_view {
  const auto fp8 = [](dtype t) { return t == dtype::fp8_e4m3; };
  return checkpoint_kv_dtype(o) && o.kv && !(fp8(o.kv->k) && fp8(o.kv->v))
             ? "TensorRT-LLM keeps the FP8 KV cache the checkpoint declares: validate_and_set_kv_cache_quant "
               "(tensorrt_llm/_torch/pyexecutor/model_loader.py) accepts auto or fp8 there, no other type"
             : std::string_view{};
}

/// K and V in the serving dtype, or the checkpoint's FP8 (checkpoint_kv_dtype); the recurrent state in the serving
/// dtype (`--state-dtype` for the state).
[[nodiscard]] constexpr auto stage_types(const model_spec& m, const engine_options& o)
    -> kvsize::detail::stage_dtypes {
  const dtype served = serving_dtype(dtype_facts(m, o));
  return {kvsize::detail::kv_or(o, kv_dtypes::same(checkpoint_kv_dtype(o).value_or(served))),
          kvsize::detail::state_in(o, served)};
}

inline constexpr std::uint32_t default_tokens_per_block = 32;  ///< KvCacheConfig (TRT engines: 64)

namespace detail {
/// The part of `s` for attention window `window` (full layers: the context), made on first sight:
/// parts keep the order in which their first layer appears.
[[nodiscard]] constexpr auto window_part(engine_sizing& s, std::uint64_t window) -> cache_part& {
  for (std::uint32_t i = 0; i < s.part_count; ++i) {
    if (s.parts[i].window == window) {
      return s.parts[i];
    }
  }
  cache_part p = kvsize::detail::part_of(window < s.context ? group_kind::sliding : group_kind::full, s.kv);
  p.window = static_cast<std::uint32_t>(window);
  p.block_size = s.block_size;
  return s.add_part(p);
}

/// What the context changes, from the parts (size_stage's last step, and with_context's): blocks
/// per sequence ceil(min(context, w) / tokens_per_block) per window, the bytes of whole blocks, and
/// what block reuse shares of a prefix (whole blocks).
constexpr void charge(const engine_options& o, engine_sizing& s) {
  const std::uint64_t shared = o.shared_prefix / s.block_size * s.block_size;  // block reuse: whole blocks
  s.kv_bytes_per_sequence = bytes{0};
  s.prefix_bytes_per_sequence = bytes{0};
  for (std::uint32_t i = 0; i < s.part_count; ++i) {
    cache_part& p = s.parts[i];
    // The full part's window is the context (its 32-bit `window` field may not hold it).
    const std::uint64_t tokens = p.group == group_kind::sliding ? std::min<std::uint64_t>(s.context, p.window) : s.context;
    p.blocks_per_sequence = kvsize::detail::ceil_div(tokens, s.block_size);
    s.kv_bytes_per_sequence += p.bytes_per_token * (p.blocks_per_sequence * s.block_size);
    const std::uint64_t held = kvsize::detail::prefix_tokens_held(p.group, p.window, shared, s.context);
    s.prefix_bytes_per_sequence += p.bytes_per_token * (held / s.block_size * s.block_size);
  }
  s.kv_bytes = s.kv_bytes_per_sequence * o.batch;
  s.prefix_bytes_saved = s.prefix_bytes_per_sequence * (o.batch - 1);
}

/// Parts `keep` < `drop` become one: `drop`'s layers and rates added to `keep`'s, `drop` removed
/// (the later parts move up one, as size_stage orders parts by their first layer).
constexpr void merge_parts(engine_sizing& s, std::uint32_t keep, std::uint32_t drop) {
  cache_part& k = s.parts[keep];
  const cache_part& d = s.parts[drop];
  k.layers += d.layers;
  k.k_per_token += d.k_per_token;
  k.v_per_token += d.v_per_token;
  k.bytes_per_token += d.bytes_per_token;
  for (std::uint32_t i = drop; i + 1 < s.part_count; ++i) {
    s.parts[i] = s.parts[i + 1];
  }
  s.parts[--s.part_count] = cache_part{};
}
}  // namespace detail

/// Why TensorRT-LLM's cache for this model is not modelled, in words; empty when it is. Not checked:
/// whether (and how) TensorRT-LLM caches MiniMax's lightning state; refused rather than guessed.
[[nodiscard]] constexpr auto model_refusal(const model_spec& m, const engine_options& o) -> std::string_view {
  if (m.weights.recurrent.kind == recurrent_kind::lightning) {
    return "kvsize has not checked whether TensorRT-LLM serves MiniMax's lightning attention or how it would keep "
           "its state; size it with --engine vllm, llama.cpp or exact";
  }
  return checkpoint_kv_refusal(o);
}

/// One part per attention window (full layers: the context), each with its bytes per token
/// cs(w) and blocks per sequence ceil(min(context, w) / tokens_per_block). KV heads ceil(n_kv / tp)
/// (the KV cache manager's rule); latent layers K only (SELFKONLY: kv_factor 1). Chunked layers are
/// sized as full attention (TRT-LLM has no chunked-attention cache). Recurrent layers: the state
/// per sequence in the serving dtype (or `state_dtype`).
[[nodiscard]] constexpr auto size_stage(const model_spec& m, const engine_options& o, kvsize::detail::stage_range r)
    -> engine_sizing {
  kvsize::detail::require_served(model_refusal(m, o));
  engine_sizing s =
      kvsize::detail::start_plain_sizing(engine_kind::trtllm, m, o, r, stage_types(m, o));
  kvsize::detail::require_context(s.context, needs_context);
  s.block_size = o.block_size != 0 ? o.block_size : default_tokens_per_block;
  const auto add_rows = [&](const layer_group& g) {
    const std::uint64_t window =
        g.kind == group_kind::sliding ? std::min<std::uint64_t>(g.window, s.context) : s.context;
    cache_part& p = detail::window_part(s, window);
    p.layers += g.layers;
    p.k_per_token += g.k_row * g.layers;
    p.v_per_token += g.v_row * g.layers;
    p.bytes_per_token += g.row() * g.layers;
    s.kv_bytes_per_token += g.row() * g.layers;
  };
  // MiniMax-M3's INDEX_KEY buffer: f16 or f32 with such a cache, else bf16 (attention_backend/sparse/minimax_m3/
  // cache_manager.py _torch_dtype_for_index_cache @0462117e).
  const bool wide_k = s.kv.k == dtype::f16 || s.kv.k == dtype::f32;
  for_each_group(kvsize::detail::engine_groups(m, o, s, head_split::ceil, mla_cache_layout::latent_k_only,
                                               true,  // the DSA indexer's keys in fp8 + scales
                                               index_key_type::fixed, wide_k ? s.kv.k : dtype::bf16),
                 add_rows,
                 [&](const layer_group& g) { s.state_bytes_per_sequence += g.state() * g.layers; });
  detail::charge(o, s);
  return s;
}

/// The sizing `s` (size_stage's, made with options that differ from `o` in the context only) at
/// o.context, or none. The parts are windows: the full part's is the context, and a sliding
/// window W ≥ the context joins it (size_stage's window_part). Windows are the model's, so the
/// stage has one sliding window at most: going to a context ≤ W merges the sliding part into the
/// full one (the earlier of the two keeps its place); a sizing whose sliding layers were merged
/// cannot be split again (none: the caller sizes).
[[nodiscard]] constexpr auto with_context(const model_spec& m, const engine_options& o, engine_sizing s)
    -> std::optional<engine_sizing> {
  const std::uint64_t context = kvsize::detail::context_of(m, o);
  kvsize::detail::require_context(context, needs_context);
  const bool sliding = count_layers(m, layer_kind::sliding) != 0;
  if (sliding && m.sliding_window >= s.context && m.sliding_window < context) {
    return std::nullopt;  // merged at s.context, apart at `context`
  }
  std::optional<std::uint32_t> full;
  std::optional<std::uint32_t> window;
  for (std::uint32_t i = 0; i < s.part_count; ++i) {
    (s.parts[i].group == group_kind::sliding ? window : full) = i;
  }
  if (window && m.sliding_window >= context) {  // apart at s.context, merged at `context`
    if (full) {
      detail::merge_parts(s, std::min(*full, *window), std::max(*full, *window));
    }
    full = std::min(full.value_or(*window), *window);
    cache_part& p = s.parts[*full];
    p.group = group_kind::full;
  }
  if (full) {
    s.parts[*full].window = static_cast<std::uint32_t>(context);
  }
  s.context = context;
  detail::charge(o, s);
  return s;
}

/// One window: max_tokens = budget / bytes_per_token, blocks = ceil(max_tokens / tpb), and the
/// pool is blocks × tpb tokens ("Allocated X GiB for max tokens in paged KV cache (N)").
/// Several windows: each pool gets share(w) = cs(w)·w / Σ cs·w of the budget, blocks(w) =
/// ceil(share·budget / cs(w) / tpb). A recurrent state for `batch` sequences comes off first.
[[nodiscard]] constexpr auto capacity(const engine_sizing& s, const engine_options& o, bytes budget)
    -> engine_capacity {
  engine_capacity c{};
  c.kv_budget = budget;
  const bytes kv_budget = kvsize::detail::saturating_sub(budget, s.state_bytes_per_sequence * o.batch);
  const std::uint64_t tpb = s.block_size;
  double weight_sum = 0;
  for (std::uint32_t i = 0; i < s.part_count; ++i) {
    weight_sum += static_cast<double>(s.part(i).bytes_per_token.count()) * s.part(i).window;
  }
  std::uint64_t sequences = ~std::uint64_t{0};
  std::uint64_t shared = ~std::uint64_t{0};
  for (std::uint32_t i = 0; i < s.part_count; ++i) {
    const cache_part& p = s.part(i);
    std::uint64_t blocks = 0;
    if (s.part_count == 1) {
      blocks = kvsize::detail::ceil_div(kv_budget / p.bytes_per_token, tpb);
    } else {
      const double share = static_cast<double>(p.bytes_per_token.count()) * p.window / weight_sum;
      const double tokens = share * static_cast<double>(kv_budget.count()) / static_cast<double>(p.bytes_per_token.count());
      const auto whole = static_cast<std::uint64_t>(tokens / static_cast<double>(tpb));
      blocks = static_cast<double>(whole) * static_cast<double>(tpb) < tokens ? whole + 1 : whole;
    }
    c.allocated += p.bytes_per_token * (blocks * tpb);
    if (p.group == group_kind::full || s.part_count == 1 || c.num_blocks == 0) {
      c.num_blocks = blocks;
      c.max_tokens = blocks * tpb;
    }
    sequences = std::min(sequences, blocks / p.blocks_per_sequence);
    const std::uint64_t prefix_blocks =
        p.bytes_per_token.count() == 0 ? 0 : s.prefix_bytes_per_sequence / p.bytes_per_token / tpb;
    shared = std::min(shared, prefix_blocks != 0 && prefix_blocks < p.blocks_per_sequence && blocks >= prefix_blocks
                                  ? (blocks - prefix_blocks) / (p.blocks_per_sequence - prefix_blocks)
                                  : blocks / p.blocks_per_sequence);
  }
  if (s.part_count == 0) {
    return kvsize::detail::plain_capacity(s, budget);
  }
  c.max_sequences = sequences;
  c.max_sequences_shared = s.part_count == 1 ? shared : sequences;
  const cache_part& first = s.part(0);
  c.max_concurrency = static_cast<double>(c.num_blocks) / static_cast<double>(first.blocks_per_sequence);
  return c;
}

}  // namespace kvsize::engines::trtllm

namespace kvsize {

/// TensorRT-LLM (PyTorch backend) as an engine type (see engine_concept.hpp).
struct trtllm_engine : engine_defaults<trtllm_engine> {
  static constexpr engine_kind kind = engine_kind::trtllm;
  static constexpr std::string_view name = "trtllm";
  static constexpr std::string_view display_name = "TensorRT-LLM";
  static constexpr std::array<std::string_view, 5> aliases{"trt-llm", "trt_llm", "tensorrt-llm", "tensorrt_llm",
                                                            "tensorrtllm"};
  static constexpr engine_knob knobs = engine_knob::block_size | engine_knob::free_gpu_memory_fraction;
  /// max_num_tokens, the tokens of the profiling forward pass (default 8192).
  static constexpr std::uint64_t max_num_tokens = 8'192;
  [[nodiscard]] static constexpr auto serving_dtype(const config_dtype_facts& f) -> dtype {
    return engines::trtllm::serving_dtype(f);
  }
  [[nodiscard]] static constexpr auto checkpoint_kv_dtype(const engine_options& o) -> std::optional<dtype> {
    return engines::trtllm::checkpoint_kv_dtype(o);
  }
  [[nodiscard]] static constexpr auto stage_types(const model_spec& m, const engine_options& o)
      -> detail::stage_dtypes {
    return engines::trtllm::stage_types(m, o);
  }
  /// A power of 2: its paged-KV kernels address a token by shifting by log2(tokens_per_block)
  /// (KVBlockArray in cpp/tensorrt_llm/kernels/kvCacheUtils.h).
  [[nodiscard]] static constexpr auto block_size_refusal(std::uint32_t b) -> std::string_view {
    return (b & (b - 1)) != 0 ? "TensorRT-LLM's tokens_per_block must be a power of 2 (e.g. 32 or 64)"
                              : std::string_view{};
  }
  [[nodiscard]] static constexpr auto kv_type_refusal(dtype t) -> std::string_view {
    return traits(t).block_elements != 1
               ? "trtllm has no GGML block-quantized KV cache (q8_0, q4_0, ...); its 8-bit cache is fp8"
               : std::string_view{};
  }
  [[nodiscard]] static constexpr auto checkpoint_kv_type_refusal(const engine_options& o) -> std::string_view {
    return engines::trtllm::checkpoint_kv_refusal(o);
  }
  [[nodiscard]] static constexpr auto model_refusal(const model_spec& m, const engine_options& o) -> std::string_view {
    return engines::trtllm::model_refusal(m, o);
  }
  /// max_seq_len when none is given: max_position_embeddings (else 2,048) × the rope factor, Llama 4's 8,192
  /// (trtllm_context.hpp). A longer one is lowered to it: it is the limit too.
  [[nodiscard]] static constexpr auto default_context(const model_spec& m, const engine_options& /*o*/)
      -> std::uint64_t {
    return engines::trtllm::default_max_seq_len(m);
  }
  [[nodiscard]] static constexpr auto size_stage(const model_spec& m, const engine_options& o, detail::stage_range r)
      -> engine_sizing {
    return engines::trtllm::size_stage(m, detail::with_default_context(o, default_context(m, o)), r);
  }
  /// Its context terms follow from the sizing's windows where no sliding layer must leave the full
  /// pool (engines::trtllm::with_context).
  [[nodiscard]] static constexpr auto with_context(const model_spec& m, const engine_options& o,
                                                   const engine_sizing& s) -> std::optional<engine_sizing> {
    return engines::trtllm::with_context(m, detail::with_default_context(o, default_context(m, o)), s);
  }
  /// available = (device − weights − peak activations [engine_overhead]) × free_gpu_memory_fraction.
  [[nodiscard]] static constexpr auto budget(const engine_options& o) -> budget_rule {
    return {.fraction = o.trtllm.free_gpu_memory_fraction, .of_free = true, .setting = "free_gpu_memory_fraction"};
  }
  [[nodiscard]] static constexpr auto capacity(const engine_sizing& s, const engine_options& o, bytes budget)
      -> engine_capacity {
    return engines::trtllm::capacity(s, o, budget);
  }
  /// Logits of the last position of each sequence, a float32 sampler copy of the same rows, and the
  /// activations of the profiling forward pass of max_num_tokens tokens.
  [[nodiscard]] static constexpr auto workspace(const model_spec& /*m*/, const engine_options& o)
      -> workspace_defaults {
    return {.positions = logits_kept::last,
            .last_rows = o.batch,
            .activation_tokens = max_num_tokens,
            .sampler_rows = o.batch,
            .sequences = o.batch,
            .activation_tp = o.tp};
  }
};
static_assert(engine<trtllm_engine>);

}  // namespace kvsize

// The registry and the dispatch, so that this header alone is usable (engine.hpp includes every
// engine header; this one is already complete here).
#include "../engine.hpp"
