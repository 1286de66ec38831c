// SPDX-License-Identifier: MIT
// Engine profiles: the KV cache as vLLM, SGLang, llama.cpp, TensorRT-LLM and transformers
// really allocate it, and the exact minimum. Standard library only, constexpr, allocation-free.
//
//   kvsize::engine_options o{.context = 32'768, .tp = 2};
//   const auto s = kvsize::size_cache(model, kvsize::engine_kind::vllm, o);   // per device
//   const auto c = kvsize::capacity_of(kvsize::engine_kind::vllm, s, o, 44 * kvsize::GiB);
//   c.max_tokens;       // vLLM's "GPU KV cache size: N tokens"
//   c.max_concurrency;  // vLLM's "Maximum concurrency for 32,768 tokens per request: X.XXx"
//
// The registry: every engine is a type satisfying kvsize::engine (engines/engine_concept.hpp), defined
// in its own header, and listed once in `registered_engines` below. Every function here that takes an
// engine_kind dispatches through visit_engine, the one dispatch site; each has a template twin taking
// the engine type (`size_cache_as<E>`), which is what the generic code is written against.
// The log lines themselves are text: see the opt-in <kvsize/engines_fmt.hpp>.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>        // std::array
#include <cstdint>      // std::uint32_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string_view>  // std::string_view

#include "error.hpp"
#include "bytes.hpp"
#include "engines/common.hpp"
#include "engines/engine_concept.hpp"
#include "engines/exact.hpp"
#include "engines/llama_cpp.hpp"
#include "engines/llama_cpp_offload.hpp"  // -ngl, --n-cpu-moe, -nkvo, -ts over GPUs
#include "engines/sglang.hpp"
#include "engines/transformers.hpp"
#include "engines/trtllm.hpp"
#include "engines/vllm.hpp"
#include "model_spec.hpp"

namespace kvsize {

/// A list of engine types.
template <engine... E>
struct engine_list {
  static constexpr std::size_t size = sizeof...(E);
};

/// Every engine kvsize knows, in engine_kind order. Adding an engine: its header, its engine_kind
/// value, and one entry here.
using registered_engines =
    engine_list<exact_engine, vllm_engine, sglang_engine, llama_cpp_engine, trtllm_engine, transformers_engine>;

namespace detail {
template <class F, engine E, engine... Rest>
constexpr auto visit_from(engine_kind e, F& f) -> decltype(auto) {
  if (e == E::kind) {
    return f(E{});
  }
  if constexpr (sizeof...(Rest) == 0) {
    throw kvsize::invalid_argument("kvsize: unknown engine");
  } else {
    return visit_from<F, Rest...>(e, f);
  }
}
template <class F, engine... E>
constexpr auto visit_list(engine_list<E...> /*list*/, engine_kind e, F& f) -> decltype(auto) {
  return visit_from<F, E...>(e, f);
}
template <engine... E>
constexpr auto kinds_of(engine_list<E...> /*list*/) -> std::array<engine_kind, sizeof...(E)> {
  return {E::kind...};
}
}  // namespace detail

/// THE dispatch: calls `f(E{})` with the registered engine type whose kind is `e`; every function
/// below that takes an engine_kind goes through it. Throws kvsize::invalid_argument for a value
/// no engine is registered under.
template <class F>
constexpr auto visit_engine(engine_kind e, F&& f) -> decltype(auto) {
  return detail::visit_list(registered_engines{}, e, f);
}

inline constexpr std::array<engine_kind, registered_engines::size> all_engines = detail::kinds_of(registered_engines{});

/// The `--engine` spelling: "exact", "vllm", "sglang", "llama.cpp", "trtllm", "transformers".
[[nodiscard]] constexpr auto name(engine_kind e) -> std::string_view {
  return visit_engine(e, []<engine E>(E) { return std::string_view{E::name}; });
}

/// The engine's name as its project writes it: "vLLM", "SGLang", "llama.cpp", "TensorRT-LLM", ...
[[nodiscard]] constexpr auto display_name(engine_kind e) -> std::string_view {
  return visit_engine(e, []<engine E>(E) { return std::string_view{E::display_name}; });
}

/// The other spellings of engine `e` that `--engine` accepts (its type's `aliases`).
[[nodiscard]] constexpr auto aliases(engine_kind e) -> std::span<const std::string_view> {
  return visit_engine(e, []<engine E>(E) { return std::span<const std::string_view>{E::aliases}; });
}

/// Parses an engine name: its `name` ("llama.cpp", "trtllm") or one of its aliases ("llama_cpp",
/// "tensorrt-llm", "hf"), exactly (the CLI lowercases first).
[[nodiscard]] constexpr auto parse_engine(std::string_view text) -> std::optional<engine_kind> {
  for (engine_kind e : all_engines) {
    if (text == name(e)) {
      return e;
    }
  }
  for (engine_kind e : all_engines) {
    for (std::string_view a : aliases(e)) {
      if (text == a) {
        return e;
      }
    }
  }
  return std::nullopt;
}

/// The element type engine `e` computes in with `--dtype auto` (each engine's rule and its source:
/// its type's serving_dtype).
[[nodiscard]] constexpr auto serving_dtype(engine_kind e, const config_dtype_facts& f) -> dtype {
  return visit_engine(e, [&]<engine E>(E) { return E::serving_dtype(f); });
}

/// The K and V element types engine `e` gives its cache when told nothing, for a checkpoint that declares no KV cache
/// of its own (checkpoint_kv_dtype says where a declared one wins).
[[nodiscard]] constexpr auto default_kv_dtypes(engine_kind e, const config_dtype_facts& f) -> kv_dtypes {
  return visit_engine(e, [&]<engine E>(E) { return E::default_kv_dtypes(f); });
}

/// The K/V type engine `e`'s default takes from the KV cache the checkpoint declares (o.checkpoint_kv, and the
/// release in `o`); nullopt where it keeps its own default (default_kv_dtypes).
[[nodiscard]] constexpr auto checkpoint_kv_dtype(engine_kind e, const engine_options& o) -> std::optional<dtype> {
  return visit_engine(e, [&]<engine E>(E) { return E::checkpoint_kv_dtype(o); });
}

/// Why engine `e` cannot be given the explicit K/V type `o.kv` over the FP8 KV cache the checkpoint declares
/// (o.checkpoint_kv): a type its cache-dtype option cannot name where its default takes the checkpoint's (vLLM,
/// SGLang), or any type but FP8 (TensorRT-LLM). Empty: it can. model_refusal includes it.
[[nodiscard]] constexpr auto checkpoint_kv_type_refusal(engine_kind e, const engine_options& o) -> std::string_view {
  return visit_engine(e, [&]<engine E>(E) { return E::checkpoint_kv_type_refusal(o); });
}

/// The format of unquantized weights as engine `e` loads them (quantized checkpoints keep theirs).
[[nodiscard]] constexpr auto default_weights_dtype(engine_kind e, const config_dtype_facts& f) -> dtype {
  return visit_engine(e, [&]<engine E>(E) { return E::default_weights_dtype(f); });
}

/// The context (tokens per sequence) engine `e` sizes when told none, under the release in `o`: the model's maximum
/// as the engine derives it from config.json (model_spec::stated: vLLM's max_model_len, SGLang's context_len,
/// TensorRT-LLM's inferred max_seq_len, llama.cpp's n_ctx_train as its converter writes it), 0 when unknown, and 0
/// for exact and transformers.
[[nodiscard]] constexpr auto engine_default_context(engine_kind e, const model_spec& m, const engine_options& o = {})
    -> std::uint64_t {
  return visit_engine(e, [&]<engine E>(E) { return E::default_context(m, o); });
}

/// The longest context engine `e` takes from the model without an override (its default, engine_default_context,
/// unless it defaults below it: vLLM's longrope rule), else the model's own maximum (m.max_context; exact and
/// transformers): what a context is capped at, warned above and searched up to.
[[nodiscard]] constexpr auto model_context_limit(engine_kind e, const model_spec& m, const engine_options& o = {})
    -> std::uint64_t {
  return visit_engine(e, [&]<engine E>(E) { return detail::model_limit_as<E>(m, o); });
}

/// Whether `e` models an engine's allocator (false for exact, the mathematical minimum).
[[nodiscard]] constexpr auto is_engine(engine_kind e) -> bool {
  return visit_engine(e, []<engine E>(E) { return bool{E::is_engine}; });
}

/// The setting that asks engine `e` for its own default context ("-c 0"; empty: none is needed),
/// and what may lower it ("or less with --fit"; empty: nothing).
[[nodiscard]] constexpr auto default_context_setting(engine_kind e) -> std::string_view {
  return visit_engine(e, []<engine E>(E) { return std::string_view{E::default_context_setting}; });
}
[[nodiscard]] constexpr auto default_context_caveat(engine_kind e) -> std::string_view {
  return visit_engine(e, []<engine E>(E) { return std::string_view{E::default_context_caveat}; });
}

/// Whether engine `e` reads knob `k` (a knob it does not read is warned about by the CLI).
[[nodiscard]] constexpr auto reads_knob(engine_kind e, engine_knob k) -> bool {
  return visit_engine(e, [&]<engine E>(E) { return has_knob(E::knobs, k); });
}

/// Why engine `e` refuses block size `b` (empty: it accepts it).
[[nodiscard]] constexpr auto block_size_refusal(engine_kind e, std::uint32_t b) -> std::string_view {
  return visit_engine(e, [&]<engine E>(E) { return E::block_size_refusal(b); });
}

/// Why engine `e` refuses K/V element type `t` (empty: it accepts it).
[[nodiscard]] constexpr auto kv_type_refusal(engine_kind e, dtype t) -> std::string_view {
  return visit_engine(e, [&]<engine E>(E) { return E::kv_type_refusal(t); });
}

/// Devices a model's layers are split over (llama.cpp: tp × pp; the others: pp).
[[nodiscard]] constexpr auto layer_split_devices(engine_kind e, const engine_options& o) -> std::uint64_t {
  return visit_engine(e, [&]<engine E>(E) { return E::layer_split_devices(o); });
}

/// Why engine `e` does not serve model `m` under `o`, or serves it with a cache kvsize does not model (empty:
/// sized): what size_stage and every figure built on it would throw first, asked without a try block. Not
/// included: defects of the spec or the options, and vLLM's own layout refusals (page sizes it cannot unify).
[[nodiscard]] constexpr auto model_refusal(engine_kind e, const model_spec& m, const engine_options& o)
    -> std::string_view {
  return visit_engine(e, [&]<engine E>(E) { return E::model_refusal(m, o); });
}

/// Whether engine `e` can run model `m` at tensor-parallel degree `tp` with `pp` stages.
[[nodiscard]] constexpr auto valid_tp(engine_kind e, const model_spec& m, std::uint32_t tp, std::uint32_t pp) -> bool {
  return visit_engine(e, [&]<engine E>(E) { return E::valid_tp(m, tp, pp); });
}

/// The sizing of layers `r` on one device (one TP rank).
[[nodiscard]] constexpr auto size_stage(const model_spec& m, engine_kind e, const engine_options& o,
                                        detail::stage_range r) -> engine_sizing {
  return visit_engine(e, [&]<engine E>(E) { return E::size_stage(m, o, r); });
}

/// What engine E allocates for model `m` on one device: one TP rank of the pipeline stage whose
/// cache is largest (for llama.cpp: the device with the most layers' cache).
template <engine E>
[[nodiscard]] constexpr auto size_cache_as(const model_spec& m, const engine_options& o) -> engine_sizing {
  detail::check_options(m, o);
  if (E::layer_split_devices(o) > m.layers) {
    throw kvsize::invalid_argument("kvsize: more devices in the layer split than layers");
  }
  const auto stages = static_cast<std::uint32_t>(E::layer_split_devices(o));  // ≤ the layers, a uint32_t
  engine_sizing best{};
  bytes best_bytes{0};
  bool sized = false;
  for (std::uint32_t stage = 0; stage < stages; ++stage) {
    const detail::stage_range layers = E::stage_layers(m, o, stage, stages);
    if (layers.count == 0) {  // a device of share 0 in llama.cpp's -ts: no layer, no cache
      continue;
    }
    const engine_sizing s = E::size_stage(m, o, layers);
    const bytes total = s.kv_bytes_per_sequence + s.state_bytes_per_sequence + s.kv_bytes;
    if (!sized || total > best_bytes) {
      sized = true;
      best = s;
      best_bytes = total;
    }
  }
  return best;
}

/// size_cache_as<E>(m, o), from `seed` (a sizing E made with options that differ from `o` in the
/// context only) where E::with_context can say it without sizing: the layers on one device (one
/// stage; a layer split keeps the stage with the most bytes, which the context can change) and an
/// engine whose context terms follow from its sizing. Otherwise it sizes, and the sizing becomes
/// the seed. The same result and the same throws as size_cache_as.
template <engine E>
[[nodiscard]] constexpr auto size_cache_from_as(const model_spec& m, const engine_options& o,
                                                std::optional<engine_sizing>& seed) -> engine_sizing {
  if (seed && E::layer_split_devices(o) == 1) {
    detail::check_options(m, o);  // what size_cache_as checks first
    if (std::optional<engine_sizing> s = E::with_context(m, o, *seed)) {
      return *s;
    }
  }
  seed = size_cache_as<E>(m, o);
  return *seed;
}

/// size_cache_as for engine `e`.
/// Throws kvsize::invalid_argument for an invalid model or option, kvsize::overflow_error on overflow.
[[nodiscard]] constexpr auto size_cache(const model_spec& m, engine_kind e, const engine_options& o)
    -> engine_sizing {
  return visit_engine(e, [&]<engine E>(E) { return size_cache_as<E>(m, o); });
}

/// What fits in `kv_budget` bytes on one device, counted as engine `e` counts it, from a sizing `s`
/// the engine made (size_cache with the same options): nothing is sized again.
[[nodiscard]] constexpr auto capacity_of(engine_kind e, const engine_sizing& s, const engine_options& o,
                                         bytes kv_budget) -> engine_capacity {
  return visit_engine(e, [&]<engine E>(E) { return E::capacity(s, o, kv_budget); });
}

/// size_cache, then capacity_of: for one question. A caller that has the sizing passes it to
/// capacity_of instead of sizing again.
[[nodiscard]] constexpr auto engine_capacity_for(const model_spec& m, engine_kind e, const engine_options& o,
                                                 bytes kv_budget) -> engine_capacity {
  return capacity_of(e, size_cache(m, e, o), o, kv_budget);
}

/// How engine `e` turns one device's memory and the weights it holds into a KV budget
/// (budget_rule; each engine's type says why):
///   exact, transformers: memory − weights − overhead
///   vLLM:      gpu_memory_utilization × memory − weights − overhead (peak activations, non-torch)
///   SGLang:    mem_fraction_static (given, or its auto rule) × memory − weights − overhead
///   llama.cpp: memory − weights − overhead − 1 GiB (--fit's margin)
///   TRT-LLM:   (memory − weights − overhead) × free_gpu_memory_fraction
[[nodiscard]] constexpr auto engine_kv_budget(engine_kind e, bytes device_memory, bytes weights_per_device,
                                              const engine_options& o) -> bytes {
  return visit_engine(e, [&]<engine E>(E) { return E::kv_budget(device_memory, weights_per_device, o); });
}

/// Engine `e`'s budget rule (its fraction and margin) for options `o` as given. SGLang's default
/// fraction also depends on the model (MLA, DSA: engines::sglang::with_model_facts), which
/// fit_on_device adds: its device_fit::budget.rule (and plan_point::rule) is the rule for a model.
[[nodiscard]] constexpr auto engine_budget_rule(engine_kind e, const engine_options& o) -> budget_rule {
  return visit_engine(e, [&]<engine E>(E) { return E::budget(o); });
}

}  // namespace kvsize
