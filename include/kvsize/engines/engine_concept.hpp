// SPDX-License-Identifier: MIT
// The engine concept: the fixed set of functions and facts every engine profile provides, and the
// small vocabulary those functions return (workspace defaults, knobs, KV types offered).
// An engine is one type, `struct <engine>_engine` at the end of include/kvsize/engines/<engine>.hpp,
// with static members only; include/kvsize/engine.hpp registers it and dispatches on engine_kind.
// Standard library only, constexpr.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>        // std::array
#include <concepts>     // std::same_as, std::convertible_to
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint8_t, std::uint32_t, std::uint64_t
#include <optional>     // std::optional
#include <string_view>  // std::string_view

#include "../bytes.hpp"
#include "../dtype.hpp"
#include "../model_spec.hpp"
#include "common.hpp"

namespace kvsize {

/// Which positions' logits a forward pass keeps.
enum class logits_kept : std::uint8_t {
  none,  ///< none on the device (llama.cpp keeps its output buffer in host memory; SGLang's reserve covers them)
  last,  ///< the last position of each sequence (serving engines; decoding)
  all,   ///< every position of every sequence (a naive forward pass, transformers without logits_to_keep)
};

[[nodiscard]] constexpr auto name(logits_kept k) -> std::string_view {
  switch (k) {
    case logits_kept::none: return "none";
    case logits_kept::last: return "last";
    case logits_kept::all: return "all";
  }
  return "?";
}

/// What an engine assumes for each workspace term before any override (workspace.hpp turns these
/// into bytes; see engine_workspace for the formulas).
struct workspace_defaults {
  logits_kept positions = logits_kept::none;  ///< which positions' logits are on the device
  bool logits_float32 = false;                ///< logits upcast to float32
  std::uint64_t last_rows = 0;  ///< rows when `positions` is `last` (0: the workspace's sequences)
  bool last_rows_fixed = false; ///< an override to `last` keeps last_rows (vLLM, llama.cpp); else it counts sequences
  std::uint64_t activation_tokens = 0;  ///< tokens of the forward pass whose activations are counted
  std::optional<dtype> activation_dtype{};  ///< none → the model's compute dtype
  std::uint64_t sampler_rows = 0;       ///< rows of the sampler's float32 copy
  bytes runtime{0};                     ///< the engine's own runtime buffer
  std::uint64_t sequences = 0;          ///< sequences the workspace is for (llama.cpp: -np slots; else batch)
  std::uint32_t activation_tp = 1;      ///< ranks the activations split over (llama.cpp splits layers: 1)
  std::uint32_t sampler_element_bytes = 4;  ///< bytes per row × vocab element the sampler holds (a float32 copy: 4)
  bytes sampler_extra{0};  ///< other bytes live while the sampler runs (vLLM: the forward pass's hidden states)
  bool phased = false;     ///< the forward pass and the sampler peak one after the other (vLLM's profile run):
                           ///< the peak is max(activations, logits + sampler), not their sum
  bytes non_torch{0};      ///< memory outside the framework's allocator (CUDA context, NCCL, cuBLAS)
  bytes buffers{0};        ///< device buffers loaded with the weights (vLLM: rotary cos/sin cache, vocab padding)
  bytes cuda_graphs{0};    ///< CUDA-graph memory the engine subtracts from the budget (vLLM 0.20 – 0.22's estimate)
  /// The engine's own figures for the forward pass's peak and the logits' (llama.cpp's graph
  /// allocator: engines/llama_cpp_compute.hpp), in place of the generic per-layer formulas.
  std::optional<bytes> activations_bytes{};
  std::optional<bytes> logits_bytes{};
};

/// The CLI knobs an engine reads (a bit each); a knob given to an engine that does not read it is
/// warned about, never silently applied.
enum class engine_knob : std::uint32_t {
  none = 0,
  block_size = 1U << 0,                ///< --block-size (vLLM block, SGLang page, TRT-LLM tokens per block)
  max_num_batched_tokens = 1U << 1,    ///< vLLM
  max_num_seqs = 1U << 2,              ///< vLLM
  gpu_memory_utilization = 1U << 3,    ///< vLLM
  mem_fraction_static = 1U << 4,       ///< SGLang
  max_running_requests = 1U << 5,      ///< SGLang
  free_gpu_memory_fraction = 1U << 6,  ///< TensorRT-LLM
  parallel = 1U << 7,                  ///< llama.cpp -np
  ubatch = 1U << 8,                    ///< llama.cpp -ub
  kv_unified = 1U << 9,                ///< llama.cpp -kvu
  swa_full = 1U << 10,                 ///< llama.cpp --swa-full
  flash_attn = 1U << 11,               ///< llama.cpp -fa
  gpu_layers = 1U << 12,               ///< llama.cpp -ngl
  engine_version = 1U << 13,           ///< --engine-version: the release whose rules apply (vLLM, SGLang)
  prefix_caching = 1U << 14,           ///< vLLM --enable-prefix-caching / --no-enable-prefix-caching
  cuda_graphs = 1U << 15,              ///< vLLM --enforce-eager / --cuda-graph-memory (0.20 – 0.22's graph estimate)
  model_runner = 1U << 16,             ///< vLLM 0.22 --model-runner / --reasoning-parser (Model Runner V1 or V2)
  dp_attention = 1U << 17,             ///< SGLang --enable-dp-attention --dp (at dp = tp)
};
[[nodiscard]] constexpr auto operator|(engine_knob a, engine_knob b) -> engine_knob {
  return static_cast<engine_knob>(static_cast<std::uint32_t>(a) | static_cast<std::uint32_t>(b));
}
/// Whether the set `set` holds knob `k`.
[[nodiscard]] constexpr auto has_knob(engine_knob set, engine_knob k) -> bool {
  return (static_cast<std::uint32_t>(set) & static_cast<std::uint32_t>(k)) != 0;
}

/// The parts of one device's KV budget as an engine's rule computes it, f = sized_fraction():
///   kv = fraction_of(device_memory, f) − weights − overhead − margin   (vLLM, SGLang)
///   kv = (device_memory − weights − overhead − margin) × f             (TensorRT-LLM: `of_free`)
struct budget_rule {
  double fraction = 1.0;  ///< gpu_memory_utilization, mem_fraction_static, free_gpu_memory_fraction; 1 for none
  bool of_free = false;   ///< the fraction applies to what is left after weights and overhead (TRT-LLM)
  bytes margin{0};        ///< a fixed amount also kept free (llama.cpp --fit: 1 GiB; SGLang 0.5.18+: a VLM's 100 MiB)
  std::string_view setting{};  ///< the engine's name for `fraction` ("gpu_memory_utilization"); empty if none
  std::uint8_t decimals = 0;   ///< digits the engine shows the fraction with (SGLang 3); 0: shortest
  /// What the engine multiplies `fraction` by before it sizes, whatever the user set (SGLang on an AMD GPU's aiter
  /// backend past 8,192 tokens: 0.85); 1 for none. The command line gives `fraction`.
  double engine_factor = 1.0;

  /// The fraction the engine sizes its budget with.
  [[nodiscard]] constexpr auto sized_fraction() const -> double { return fraction * engine_factor; }
};

namespace detail {
/// The `--dtype` rule every engine but llama.cpp shares: a dtype the user names is served as is;
/// otherwise the engine's dtype="auto" rule, `automatic`.
[[nodiscard]] constexpr auto given_or(const config_dtype_facts& f, dtype automatic) -> dtype {
  return f.given ? f.config_dtype : automatic;
}
/// The config names float32, or no dtype at all (the auto rules' "float32" case).
[[nodiscard]] constexpr auto float32_config(const config_dtype_facts& f) -> bool {
  return !f.named || f.config_dtype == dtype::f32;
}
}  // namespace detail

/// What every engine type provides (all static). `o` is the engine's options, `s` a sizing it made,
/// `r` a stage's layers, `f` the config's dtype facts, `b` a byte count.
template <class E>
concept engine = requires(const model_spec& m, const engine_options& o, const engine_sizing& s, detail::stage_range r,
                          bytes b, const config_dtype_facts& f, const engine_capacity& c, std::uint32_t n,
                          std::uint64_t u) {
  // Identity: the enum value, the --engine spelling, the project's own name.
  { E::kind } -> std::convertible_to<engine_kind>;
  { E::name } -> std::convertible_to<std::string_view>;
  { E::display_name } -> std::convertible_to<std::string_view>;
  // Whether it models an engine (false for exact, the mathematical minimum), and how its own
  // default context reads: the setting that asks for it ("-c 0"), and what may lower it.
  { E::is_engine } -> std::convertible_to<bool>;
  // Other spellings --engine accepts (lowercase): "hf" for transformers.
  { E::aliases.size() } -> std::convertible_to<std::size_t>;
  { E::default_context_setting } -> std::convertible_to<std::string_view>;
  { E::default_context_caveat } -> std::convertible_to<std::string_view>;
  // Knobs read (engine_knob bits) and KV types the planner offers (8-bit, 4-bit; none: not offered).
  { E::knobs } -> std::convertible_to<engine_knob>;
  { E::kv_8bit } -> std::convertible_to<std::optional<dtype>>;
  { E::kv_4bit } -> std::convertible_to<std::optional<dtype>>;
  // dtype rules.
  { E::serving_dtype(f) } -> std::same_as<dtype>;
  { E::default_kv_dtypes(f) } -> std::same_as<kv_dtypes>;
  // The K/V type the engine's default takes from a checkpoint that declares its cache (o.checkpoint_kv); none: its own.
  { E::checkpoint_kv_dtype(o) } -> std::same_as<std::optional<dtype>>;
  // Why an explicit K/V type (o.kv) cannot be had over that declared cache; empty: it can.
  { E::checkpoint_kv_type_refusal(o) } -> std::same_as<std::string_view>;
  { E::default_weights_dtype(f) } -> std::same_as<dtype>;
  { E::default_context(m, o) } -> std::same_as<std::uint64_t>;
  // The longest context it takes from the model unasked (its default, unless it defaults below it).
  { E::context_limit(m, o) } -> std::same_as<std::uint64_t>;
  // The element types of a stage's cache: K/V (o.kv, else the default) and the recurrent states.
  { E::stage_types(m, o) } -> std::same_as<detail::stage_dtypes>;
  // Sizing: one stage's layers on one device; devices the layers are split over.
  { E::size_stage(m, o, r) } -> std::same_as<engine_sizing>;
  { E::layer_split_devices(o) } -> std::same_as<std::uint64_t>;
  { E::stage_layers(m, o, n, n) } -> std::same_as<detail::stage_range>;
  // Budget and capacity: from device memory and weights; from an EXISTING sizing (never re-sizes).
  { E::budget(o) } -> std::same_as<budget_rule>;
  { E::kv_budget(b, b, o) } -> std::same_as<bytes>;
  { E::capacity(s, o, b) } -> std::same_as<engine_capacity>;
  // The planner's rules: workspace defaults, the scheduler's cap, valid tp, users → options.
  { E::workspace(m, o) } -> std::same_as<workspace_defaults>;
  { E::slot_cap(o, c) } -> std::same_as<std::uint64_t>;
  { E::valid_tp(m, n, n) } -> std::same_as<bool>;
  { E::plan_options(o, u, u) } -> std::same_as<engine_options>;
  { E::with_users(m, o, s) } -> std::same_as<std::optional<engine_sizing>>;
  { E::with_context(m, o, s) } -> std::same_as<std::optional<engine_sizing>>;
  // What it refuses, in words (empty: accepted): a block size, a K/V element type, a model under options
  // (size_stage throws the same words).
  { E::block_size_refusal(n) } -> std::same_as<std::string_view>;
  { E::kv_type_refusal(dtype{}) } -> std::same_as<std::string_view>;
  { E::model_refusal(m, o) } -> std::same_as<std::string_view>;
};

/// A budget rule applied: see budget_rule. fraction_of floors; saturating: 0 when nothing is left.
[[nodiscard]] constexpr auto apply_budget_rule(const budget_rule& r, bytes device_memory, bytes weights,
                                               bytes overhead) -> bytes {
  const double f = r.sized_fraction();
  if (r.of_free) {
    return detail::fraction_of(detail::saturating_sub(device_memory, weights + overhead + r.margin), f);
  }
  const bytes usable = f == 1.0 ? device_memory : detail::fraction_of(device_memory, f);
  return detail::saturating_sub(usable, weights + overhead + r.margin);
}

/// Defaults most engines share; an engine type `X` derives from engine_defaults<X> and replaces
/// what differs (a member of X hides the default of the same name).
template <class Self>
struct engine_defaults {
  /// The cache holds what the layers compute (`--kv-cache-dtype auto`): the serving dtype.
  [[nodiscard]] static constexpr auto default_kv_dtypes(const config_dtype_facts& f) -> kv_dtypes {
    return kv_dtypes::same(Self::serving_dtype(f));
  }
  /// A checkpoint's declared KV cache leaves the engine's default as it is.
  [[nodiscard]] static constexpr auto checkpoint_kv_dtype(const engine_options& /*o*/) -> std::optional<dtype> {
    return std::nullopt;
  }
  /// ... and refuses no explicit type over it.
  [[nodiscard]] static constexpr auto checkpoint_kv_type_refusal(const engine_options& /*o*/) -> std::string_view {
    return {};
  }
  /// K and V: `o.kv`, else default_kv_dtypes; both states: `--state-dtype`, else the serving dtype
  /// (the rule of vLLM's "auto" state dtypes). An engine whose size_stage is written ahead of its
  /// type gives its own, which its size_stage passes to start_sizing.
  [[nodiscard]] static constexpr auto stage_types(const model_spec& m, const engine_options& o)
      -> detail::stage_dtypes {
    const config_dtype_facts f = dtype_facts(m, o);
    return {detail::kv_or(o, Self::default_kv_dtypes(f)), detail::state_in(o, Self::serving_dtype(f))};
  }
  /// Unquantized weights are loaded in the serving dtype.
  [[nodiscard]] static constexpr auto default_weights_dtype(const config_dtype_facts& f) -> dtype {
    return Self::serving_dtype(f);
  }
  /// The engine's budget rule applied (apply_budget_rule), with the caller's overhead.
  [[nodiscard]] static constexpr auto kv_budget(bytes device_memory, bytes weights, const engine_options& o) -> bytes {
    return apply_budget_rule(Self::budget(o), device_memory, weights, o.engine_overhead);
  }
  /// "sequences × bytes per sequence ≤ budget" (plain_capacity).
  [[nodiscard]] static constexpr auto capacity(const engine_sizing& s, const engine_options& /*o*/, bytes budget)
      -> engine_capacity {
    return detail::plain_capacity(s, budget);
  }
  static constexpr engine_knob knobs = engine_knob::none;
  /// No other spelling than `name`.
  static constexpr std::array<std::string_view, 0> aliases{};
  /// A serving engine (or library) whose allocator the type reproduces.
  static constexpr bool is_engine = true;
  /// The model's maximum is what the engine sizes when given no context: no setting asks for it.
  static constexpr std::string_view default_context_setting{};
  static constexpr std::string_view default_context_caveat{};
  static constexpr std::optional<dtype> kv_8bit = dtype::fp8_e4m3;
  static constexpr std::optional<dtype> kv_4bit = std::nullopt;
  /// Layers are split over pipeline stages only (tensor parallelism splits heads).
  [[nodiscard]] static constexpr auto layer_split_devices(const engine_options& o) -> std::uint64_t { return o.pp; }
  /// The layers of device `stage` of `stages` in the layer split: vLLM's get_pp_indices (pp_stage).
  [[nodiscard]] static constexpr auto stage_layers(const model_spec& m, const engine_options& /*o*/,
                                                   std::uint32_t stage, std::uint32_t stages) -> detail::stage_range {
    return detail::pp_stage(m.layers, stages, stage);
  }
  /// No scheduler cap on running sequences.
  [[nodiscard]] static constexpr auto slot_cap(const engine_options& /*o*/, const engine_capacity& /*c*/)
      -> std::uint64_t {
    return ~std::uint64_t{0};
  }
  /// Attention heads divisible by tp (a layer's own query heads too: vLLM's Step3p5Attention asserts it on
  /// its 96-head layers), and KV heads divisible by tp or tp by the KV heads (replication).
  [[nodiscard]] static constexpr auto valid_tp(const model_spec& m, std::uint32_t tp, std::uint32_t /*pp*/) -> bool {
    if (tp == 0) {
      return false;
    }
    for (std::uint32_t il = 0; il < m.layers && il < max_layers; ++il) {
      if (m.weights.layer[il].query_heads % tp != 0) {
        return false;
      }
    }
    const std::uint32_t kv = effective_kv_heads(m);
    return m.attention_heads % tp == 0 && (kv % tp == 0 || tp % kv == 0);
  }
  /// `users` sequences of `context` tokens at tensor-parallel degree `tp` (already set in `o`).
  [[nodiscard]] static constexpr auto plan_options(engine_options o, std::uint64_t context, std::uint64_t users)
      -> engine_options {
    o.batch = users;
    o.context = context;
    return o;
  }
  /// The planner's cheap users question: the sizing `s`, made with options that differ from `o` in
  /// the batch only, as size_stage would make it for `o` (o.batch sequences), or none where the
  /// engine's sizing is not affine in the batch. Here it is: size_stage reads the batch only in
  /// kv_bytes = per sequence × batch and prefix_bytes_saved = prefix per sequence × (batch − 1), so
  /// those two are recomputed (the same products, the same overflow checks) and nothing is sized
  /// again. An engine whose size_stage reads the batch elsewhere replaces this (transformers:
  /// logits; llama.cpp: slots change -c, so none).
  [[nodiscard]] static constexpr auto with_users(const model_spec& /*m*/, const engine_options& o, engine_sizing s)
      -> std::optional<engine_sizing> {
    s.kv_bytes = s.kv_bytes_per_sequence * o.batch;
    s.prefix_bytes_saved = s.prefix_bytes_per_sequence * (o.batch - 1);
    return s;
  }
  /// The planner's cheap context question: the sizing `s`, made with options that differ from `o`
  /// in the context only, as size_stage would make it for `o` (o.context tokens), or none where the
  /// engine cannot say so without sizing again. Here: none, so the caller sizes (an engine whose
  /// context terms can be recomputed from its sizing's parts replaces this; planner_count's tests
  /// compare every replacement with a fresh sizing).
  [[nodiscard]] static constexpr auto with_context(const model_spec& /*m*/, const engine_options& /*o*/,
                                                   const engine_sizing& /*s*/) -> std::optional<engine_sizing> {
    return std::nullopt;
  }
  /// Any block size is accepted.
  [[nodiscard]] static constexpr auto block_size_refusal(std::uint32_t /*b*/) -> std::string_view { return {}; }
  /// Any element type is accepted (as a plain element or a GGML block).
  [[nodiscard]] static constexpr auto kv_type_refusal(dtype /*t*/) -> std::string_view { return {}; }
  /// Every model the spec describes is served and modelled.
  [[nodiscard]] static constexpr auto model_refusal(const model_spec& /*m*/, const engine_options& /*o*/)
      -> std::string_view {
    return {};
  }
  /// The model's maximum; the serving engines derive theirs (vllm_context.hpp, sglang_context.hpp,
  /// trtllm_context.hpp, llama_cpp_context.hpp).
  [[nodiscard]] static constexpr auto default_context(const model_spec& m, const engine_options& /*o*/)
      -> std::uint64_t {
    return m.max_context;
  }
  /// The longest context the engine takes from the model without an override: its default context, unless the
  /// engine defaults below its maximum (vLLM's longrope rule: vllm_context.hpp max_model_len_limit).
  [[nodiscard]] static constexpr auto context_limit(const model_spec& m, const engine_options& o) -> std::uint64_t {
    return Self::default_context(m, o);
  }
};

namespace detail {

/// The longest context engine E takes from the model when told none (its default_context), else the model's own
/// maximum (m.max_context: exact, transformers, or an engine that finds no length in the config).
template <class E>
[[nodiscard]] constexpr auto model_context_as(const model_spec& m, const engine_options& o) -> std::uint64_t {
  const std::uint64_t engine_context = E::default_context(m, o);
  return engine_context != 0 ? engine_context : m.max_context;
}

/// The longest context engine E takes from the model without an override (its context_limit), else m.max_context:
/// what a context is capped at, warned above and searched up to.
template <class E>
[[nodiscard]] constexpr auto model_limit_as(const model_spec& m, const engine_options& o) -> std::uint64_t {
  const std::uint64_t limit = E::context_limit(m, o);
  return limit != 0 ? limit : m.max_context;
}

}  // namespace detail

}  // namespace kvsize
