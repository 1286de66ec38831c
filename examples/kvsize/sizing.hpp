// SPDX-License-Identifier: MIT
// kvsize command line: every figure the reports print, computed once from the config and the options.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <kvsize/device_fit.hpp>
#include <kvsize/engine.hpp>
#include <kvsize/hf_config.hpp>
#include <kvsize/weights.hpp>
#include <kvsize/kvsize.hpp>
#include <kvsize/planner.hpp>

#include "options.hpp"

namespace kvsize::cli {

/// Memory available to the cache on one device and what fits in it.
struct capacity_figures {
  std::string source;                 ///< "RTX 3060 (--gpu rtx-3060)", "--gpu-memory 24GiB", "--kv-memory 8GiB"
  std::optional<bytes> device_memory; ///< absent with --kv-memory
  std::optional<bytes> weights_per_device;  ///< weights_split::per_device(tp, pp), else weights / (tp × pp)
  /// Of weights_per_device, what every tensor-parallel rank holds whole (weights_split::whole / pp); absent
  /// where the weights are not known tensor by tensor (a GGUF's table) or split by layers (llama.cpp).
  std::optional<bytes> weights_whole_per_device;
  bytes kv_budget;                    ///< the engine's budget rule applied to device memory, or --kv-memory
  engine_capacity figures;            ///< max tokens, sequences, concurrency, blocks, as the engine counts
  std::uint64_t max_context = 0;      ///< longest context at which --batch sequences fit (≤ the model's maximum)
  bool weights_fit = true;
  /// The one KV budget in the engine's start-up terms (device, weights, activation peak, ...);
  /// absent with --kv-memory, where the budget is given, not computed.
  std::optional<startup_budget> startup;
};

/// llama.cpp's placement on one GPU of a GGUF's layers (-ngl, --n-cpu-moe, --cpu-moe, -ot, -nkvo).
struct offload_figures {
  engines::llama_cpp::offload_split asked;  ///< the -ngl given (all when none; auto: the largest that fits)
  std::string ngl;                          ///< as given: "all", "auto" or a number
  engines::llama_cpp::offload_request request;  ///< the other flags (--n-cpu-moe, --cpu-moe, -nkvo)
  std::vector<std::string> override_tensor;     ///< -ot as given, one entry per -ot
  std::uint64_t overridden_tensors = 0;         ///< tensors -ot's patterns keep on the host
  bytes overridden_bytes{0};                    ///< their bytes (the input layer's, on the host anyway, left out)
  engine_options options;  ///< the options sized: -np is --batch's users when not given, as the plan's
  bytes device{0};                          ///< the device memory it must fit in
  bool fits = false;                        ///< asked.device_total() + --fit's 1 GiB margin <= device
  std::optional<engines::llama_cpp::offload_split> largest;  ///< the largest -ngl that fits, same other flags
  bool has_experts = false;  ///< the model has routed experts (*_exps tensors), which --n-cpu-moe moves
  /// With experts (and no --cpu-moe): the smallest --n-cpu-moe that fits with every layer on the GPU.
  std::optional<engines::llama_cpp::cpu_moe_fit> cpu_moe;
};

/// The planner's answer for the device given (--gpu / --gpu-memory), and the sweeps asked for.
struct plan_figures {
  std::string source;             ///< as capacity_figures::source
  plan_inputs inputs;             ///< weights (all devices), memory, bandwidth, engine, options, overrides
  plan_result result;
  std::vector<plan_point> sweep;  ///< --sweep-context × --sweep-batch (and the --svg chart's points)
  std::vector<std::uint64_t> sweep_contexts;
  std::vector<std::uint64_t> sweep_users;
  std::vector<std::uint64_t> sweep_max_users;    ///< per sweep_contexts entry: max users at that context
  std::vector<std::uint64_t> sweep_max_context;  ///< per sweep_users entry: max context for that many users
  bool swept = false;             ///< --sweep-context, --sweep-batch or --svg given
  std::string llama_mapping;      ///< llama.cpp: "-np N -c M", how users and context were mapped
};

/// --context when not given: 4,096 tokens, capped at the model's maximum (the CLI contract's default).
inline constexpr std::uint64_t default_context = 4'096;

/// -ts as llama.cpp reads it (common/arg.cpp): shares split on ',' or '/', each a float; at most 15
/// (llama.cpp refuses 16 or more). Throws usage_error naming the option for anything else: an empty
/// list or first share, a share that is not a plain finite number ≥ 0 (no sign, space, hex or trailing
/// text, which std::stof would take; no subnormal, which it refuses). `count` is how many were given.
struct tensor_split_option {
  engines::llama_cpp::tensor_split split;
  std::uint32_t count = 0;
};

struct sizing {
  hf::parsed_config config;
  std::string config_path;
  engine_kind engine = engine_kind::exact;
  /// -ts as given, parsed once (llama.cpp only; another engine warns that it has no effect).
  std::optional<tensor_split_option> tensor_split;
  engine_options engine_opts;
  std::string reasoning_parser;       ///< --reasoning-parser's name, for the printed vLLM command (else empty)
  engine_sizing cache;                ///< what the engine allocates, per device
  kv_dtypes kv;
  std::uint64_t context = 0;
  bool context_given = false;         ///< --context was given (else 4,096, capped at the model's maximum)
  /// --max-model-len auto: the max_model_len vLLM derived and fitted `context` from (the profile run's); 0 otherwise.
  std::uint64_t auto_fit_from = 0;
  /// --max-model-len auto found no length: the weights or not one token fit the device (vLLM stops there).
  bool auto_fit_failed = false;
  /// llama.cpp's -c 0: the context is the model's own (the engine's default context).
  bool context_from_model = false;
  /// The model's maximum as the engine derives it (model_context_limit: vLLM's max_model_len, SGLang's context_len
  /// when none is given; else model_spec::max_context); 0 = unknown.
  std::uint64_t model_context = 0;
  std::uint64_t batch = 1;
  config_dtype_facts dtype_facts;     ///< what the engines' dtype="auto" rules read from the config

  bytes kv_per_token_mha;             ///< per device: the stage's layers, heads split over tp
  double gqa_ratio = 0;
  bytes logits_per_token;
  bytes logits_prefill;

  std::optional<std::uint64_t> parameters;  ///< absent for families kvsize cannot count yet
  parameter_breakdown parameter_terms;      ///< every term of the count (MoE active, vision, MTP apart)
  std::optional<std::string> weights_format;  ///< "bf16", "q4_K_M", "gptq-4bit-g128", ...
  std::optional<bytes> weights;
  std::optional<kvsize::weights_format> formula_format;  ///< the format `weights` was sized in (absent for a GGUF's table)
  std::optional<weights_split> weights_shares;  ///< `weights` by tensor-parallel share (with formula_format)
  std::optional<bytes> checkpoint_weights;  ///< a model folder's safetensors, summed (beside `weights`)
  std::string checkpoint_source;            ///< "safetensors, 4 shards"
  dtype stored_dtype = dtype::bf16;         ///< the config's dtype, before --dtype

  std::optional<capacity_figures> capacity;
  std::optional<plan_figures> plan;  ///< present when device memory and the weights are known
  std::optional<offload_figures> offload;  ///< llama.cpp, a GGUF input and one GPU
  /// llama.cpp's layer split over several GPUs: its heaviest GPU's weights (heaviest_gpu_weights), found
  /// once with the engine options for the capacity section and the plan.
  std::optional<bytes> layer_split_heaviest;
  std::vector<std::string> notes;  ///< assumptions and limits, printed under the report / in "warnings"

  /// `weights_shares` where the engine shares tensors out over tensor-parallel ranks; none for llama.cpp, whose
  /// tp × pp is a layer split that replicates nothing (the capacity and the planner both ask here).
  [[nodiscard]] auto tensor_parallel_shares() const -> std::optional<weights_split> {
    return engine == engine_kind::llama_cpp ? std::nullopt : weights_shares;
  }
};

/// Computes every figure; throws usage_error for bad option values and hf::config_error for
/// config problems. Warnings meant for stderr (e.g. a context above the model's maximum) are
/// appended to `stderr_warnings`.
auto compute_sizing(const options& opts, std::vector<std::string>& stderr_warnings) -> sizing;
/// The same for a config already read (--engine all sizes one config under every engine).
auto compute_sizing(const options& opts, std::vector<std::string>& stderr_warnings, hf::parsed_config config)
    -> sizing;

auto parse_tensor_split(const options& opts) -> std::optional<tensor_split_option>;

/// The pipeline degree sized: --pp, or given -ts (`ts`, parsed for llama.cpp) but neither --tp nor
/// --pp, as many layer-split devices as -ts has shares.
auto layer_split_pp(const options& opts, const std::optional<tensor_split_option>& ts) -> std::uint32_t;

/// llama.cpp over several GPUs (tp × pp > 1) with every slot offloaded: the weights of the GPU that holds
/// the most by its layer split (-ts), from a GGUF's table or the formula per layer; nullopt for another
/// engine, one GPU, or weights not known per layer (offload.cpp).
auto heaviest_gpu_weights(const sizing& s) -> std::optional<bytes>;

/// llama.cpp on a GGUF input with a device: where -ngl puts the weights and the KV cache (offload.cpp).
void compute_offload(const options& opts, sizing& s, std::optional<bytes> device_memory,
                     std::vector<std::string>& stderr_warnings);

/// The options that scale the sizes, as the user gave them ("--max-model-len 8192, --batch 1,
/// --max-num-batched-tokens 999..."), for an overflow message that names what was asked for.
auto scaling_options_given(const options& opts) -> std::string;

/// Parses a --sweep-context / --sweep-batch range "A:B": A, 2A, 4A, … up to B, and B itself.
/// A number may end in k or K (× 1,024) or m or M (× 1,048,576): "1k:128k" is 1,024 … 131,072.
/// Throws usage_error naming `flag`.
auto parse_sweep(std::string_view flag, const std::string& text) -> std::vector<std::uint64_t>;

}  // namespace kvsize::cli
