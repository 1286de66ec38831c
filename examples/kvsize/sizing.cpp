// SPDX-License-Identifier: MIT
// kvsize command line: from options and config.json to figures (the exact engine).
#include "sizing.hpp"
#include "model_input.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <span>
#include <string_view>
#include <utility>

#include <kvsize/engines_command.hpp>  // fraction_text
#include <kvsize/fmt.hpp>

#include "command_line.hpp"
#include "text.hpp"  // grouped

namespace kvsize::cli {
namespace {

auto dtype_list() -> std::string {
  std::string list;
  for (dtype t : all_dtypes) {
    list += fmt::format("{}{}", list.empty() ? "" : ", ", name(t));
  }
  return list + ", auto";
}

/// An element-type option: a name from the contract, or "auto" for `auto_dtype` (the engine's default).
auto dtype_option(std::string_view flag, const std::string& text, dtype auto_dtype) -> dtype {
  if (text == "auto") {
    return auto_dtype;
  }
  if (const auto t = parse_dtype(text)) {
    return *t;
  }
  throw usage_error{fmt::format("{}: unknown element type '{}' (expected one of {})", flag, text, dtype_list())};
}

/// True when `text` is a bare number: no unit at all ("24", "12.5").
auto has_no_unit(std::string_view text) -> bool {
  return std::none_of(text.begin(), text.end(), [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); });
}

/// A size given on the command line. It needs a unit: "24" could be 24 GiB, 24 GB or 24 bytes, and
/// reading it as bytes gives a silently wrong answer. Only a bare 0 is unambiguous (where 0 is allowed).
auto size_option(std::string_view flag, const std::string& text, bool zero_allowed = false) -> bytes {
  const auto b = parse_size(text);
  if (!b) {
    throw usage_error{fmt::format("{}: '{}' is not a size (expected a number with a unit: B, KiB, MiB, GiB, TiB, "
                                  "kB, MB, GB, TB, e.g. 24GiB or 12.49GB)",
                                  flag, text)};
  }
  if (b->count() == 0 && !zero_allowed) {
    throw usage_error{fmt::format("{}: '{}' is no memory at all (expected a size above 0, e.g. 24GiB)", flag, text)};
  }
  if (has_no_unit(text) && b->count() != 0) {
    throw usage_error{fmt::format("{}: '{}' has no unit; write {}GiB or {}GB ({}B for bytes)", flag, text, text,
                                  text, text)};
  }
  return *b;
}

/// --bandwidth RATE: a size per second, "936GB/s" or "3.35TB/s" ("/s" may be left out), as bytes per
/// second. Positive, with a unit, and whole bytes: "1.5B/s" is refused like any fractional byte count.
auto bandwidth_option(std::string_view flag, const std::string& text) -> std::uint64_t {
  std::string_view size = text;
  if (size.ends_with("/s")) {
    size.remove_suffix(2);
  }
  const auto rate = parse_size(size);
  if (rate && rate->count() != 0 && has_no_unit(size)) {
    throw usage_error{fmt::format("{}: '{}' has no unit; write {}GB/s or {}GiB/s", flag, text, size, size)};
  }
  if (!rate || rate->count() == 0) {
    throw usage_error{fmt::format("{}: '{}' is not a positive rate (expected a size per second: a number "
                                  "with a unit and '/s', e.g. 936GB/s or 3.35TB/s)",
                                  flag, text)};
  }
  return rate->count();
}

/// The config's `architectures` names `architecture` (vLLM and SGLang pick the model class by it).
auto architectures_hold(const sizing& s, std::string_view architecture) -> bool {
  return std::ranges::find(s.config.architectures, architecture) != s.config.architectures.end();
}

/// config.json's architectures name one of `classes`.
auto architectures_hold_any(const sizing& s, std::span<const std::string_view> classes) -> bool {
  return std::ranges::any_of(classes, [&](std::string_view c) { return architectures_hold(s, c); });
}

/// tp / --dp: the GPUs one DP-attention rank runs attention over (1 where --dp is tp or more).
auto tp_per_dp_rank(const options& opts, std::uint32_t dp) -> std::uint32_t { return dp >= opts.tp ? 1U : opts.tp / dp; }

/// An FP8 format's name by the extent of its scale: "fp8-per-tensor" (0 × 0), "fp8-per-channel" (1 × 0),
/// "fp8-block128x128"; "+input-scale" where each matrix also stores ModelOpt's static float32 input_scale.
auto fp8_format_name(const weights_format& f) -> std::string {
  const std::string extent = f.block_rows == 0 && f.block_cols == 0 ? std::string{"per-tensor"}
                             : f.block_rows == 1 && f.block_cols == 0
                                 ? std::string{"per-channel"}
                                 : fmt::format("block{}x{}", f.block_rows, f.block_cols);
  return fmt::format("fp8-{}{}", extent, f.tensor_scalars > 0 ? "+input-scale" : "");
}

/// How a weights format reads in the report and in JSON: "bf16", "q4_K_M", "gptq-4bit-g128", ...
auto weights_format_name(const weights_format& f) -> std::string {
  switch (f.scheme) {
    case weights_scheme::uniform: return std::string{name(f.type)};
    case weights_scheme::gguf: return std::string{name(f.gguf)};
    case weights_scheme::gptq: return fmt::format("gptq-{}bit-g{}", f.bits, f.group_size);
    case weights_scheme::awq: return fmt::format("awq-{}bit-g{}", f.bits, f.group_size);
    case weights_scheme::fp8: return fp8_format_name(f);
    case weights_scheme::mxfp4: return "mxfp4";
    case weights_scheme::bnb_4bit: return f.double_quant ? "bnb-4bit-double-quant" : "bnb-4bit";
    case weights_scheme::bnb_8bit: return "bnb-8bit";
    case weights_scheme::mlx:
      return fmt::format("mlx-{}-{}bit-g{}", mlx_mode_names[static_cast<std::uint8_t>(f.mlx)], f.bits, f.group_size);
    case weights_scheme::packed_int: return fmt::format("pack-quantized-int{}-g{}", f.bits, f.group_size);
    case weights_scheme::nvfp4: return fmt::format("nvfp4-g{}{}", f.group_size, f.tensor_scalars == 1 ? "-w4a16" : "");
  }
  return "?";
}

/// A sweep bound: digits with an optional k/K (× 1,024) or m/M (× 1,048,576).
auto sweep_bound(std::string_view flag, std::string_view text, std::string_view whole) -> std::uint64_t {
  std::uint64_t scale = 1;
  if (!text.empty() && (text.back() == 'k' || text.back() == 'K')) {
    scale = 1'024;
    text.remove_suffix(1);
  } else if (!text.empty() && (text.back() == 'm' || text.back() == 'M')) {
    scale = 1'048'576;
    text.remove_suffix(1);
  }
  const bool digits = !text.empty() && text.size() <= 12 && text.find_first_not_of("0123456789") == std::string_view::npos;
  std::uint64_t n = 0;
  for (char c : digits ? text : std::string_view{}) {
    n = n * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (!digits || n == 0) {
    throw usage_error{fmt::format("{}: '{}' is not a range A:B of positive integers (k = 1,024, m = 1,048,576; "
                                  "e.g. 1k:128k)",
                                  flag, whole)};
  }
  return n * scale;
}

/// A, 2A, 4A, … below B, then B.
auto doubling(std::uint64_t from, std::uint64_t to) -> std::vector<std::uint64_t> {
  std::vector<std::uint64_t> points;
  for (std::uint64_t x = from; x < to; x *= 2) {
    points.push_back(x);
  }
  points.push_back(to);
  return points;
}

auto workspace_overrides_of(const options& opts) -> workspace_overrides {
  workspace_overrides w;
  if (opts.reserve) {
    w.runtime = size_option(opts.flag("--reserve"), *opts.reserve, true);
  }
  if (opts.logits) {
    if (*opts.logits == "all") {
      w.logits_positions = logits_kept::all;
    } else if (*opts.logits == "last") {
      w.logits_positions = logits_kept::last;
    } else if (*opts.logits == "none") {
      w.logits_positions = logits_kept::none;
    } else {
      throw usage_error{fmt::format("{}: expected all, last or none, got '{}'", opts.flag("--logits"), *opts.logits)};
    }
  }
  if (opts.logits_f32) {
    w.logits_float32 = true;
  }
  if (opts.activations) {
    w.activations = size_option(opts.flag("--activations"), *opts.activations, true);
  }
  if (opts.prefill_chunk) {
    w.activation_tokens = *opts.prefill_chunk;
  }
  if (opts.sampler) {
    w.sampler = size_option(opts.flag("--sampler"), *opts.sampler, true);
  }
  return w;
}

}  // namespace

auto scaling_options_given(const options& opts) -> std::string {
  std::string out = opts.context ? fmt::format("{} {}", opts.flag("--context"), *opts.context)
                                 : std::string{"--context default"};
  out += fmt::format(", {} {}", opts.flag("--batch"), opts.batch);
  const auto add = [&](std::string_view canonical, const auto& value) {
    if (value) {
      out += fmt::format(", {} {}", opts.flag(canonical), *value);
    }
  };
  add("--shared-prefix", opts.shared_prefix);
  add("--max-num-batched-tokens", opts.max_num_batched_tokens);
  add("--max-num-seqs", opts.max_num_seqs);
  add("--max-running-requests", opts.max_running_requests);
  add("--dp", opts.dp);
  if (opts.enable_dp_attention) {
    out += fmt::format(", {}", opts.flag("--enable-dp-attention"));
  }
  if (opts.enable_dp_lm_head) {
    out += fmt::format(", {}", opts.flag("--enable-dp-lm-head"));
  }
  add("--moe-dense-tp-size", opts.moe_dense_tp_size);
  add("--prefill-chunk", opts.prefill_chunk);
  add("--parallel", opts.parallel);
  add("--ubatch", opts.ubatch);
  add("--block-size", opts.block_size);
  add("--sweep-context", opts.sweep_context);
  add("--sweep-batch", opts.sweep_batch);
  return out;
}

auto parse_sweep(std::string_view flag, const std::string& text) -> std::vector<std::uint64_t> {
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos) {
    throw usage_error{fmt::format("{}: '{}' is not a range A:B (e.g. 1k:128k, k = 1,024)", flag, text)};
  }
  const std::uint64_t from = sweep_bound(flag, std::string_view{text}.substr(0, colon), text);
  const std::uint64_t to = sweep_bound(flag, std::string_view{text}.substr(colon + 1), text);
  if (from > to) {
    throw usage_error{fmt::format("{}: '{}' runs backwards (A must not exceed B)", flag, text)};
  }
  return doubling(from, to);
}

namespace {

/// --engine-version for vLLM: 0.X with X from 0.10 to 0.19 ("0.19", "v0.10.1.1"); else exit 2.
auto vllm_release_option(const options& opts) -> std::uint32_t {
  namespace vllm = kvsize::engines::vllm;
  const auto minor = vllm::parse_release(*opts.engine_version);
  if (!minor) {
    throw usage_error{fmt::format("{}: '{}' is not a vLLM release (expected 0.X, e.g. 0.19 or v0.10.1.1)",
                                  opts.flag("--engine-version"), *opts.engine_version)};
  }
  if (const std::string_view why = vllm::release_refusal(*minor); !why.empty()) {
    throw usage_error{fmt::format("{} {}: {}", opts.flag("--engine-version"), *opts.engine_version, why)};
  }
  return *minor;
}

/// --engine-version for SGLang: a release 0.4.0 – 0.4.5.post2 or 0.4.7.post1 – 0.5.19 ("0.5.10",
/// "v0.5.4.post1", "0.5.3rc2"), whose default mem_fraction_static rule applies; else exit 2.
auto sglang_release_option(const options& opts) -> kvsize::engines::sglang::release {
  namespace sglang = kvsize::engines::sglang;
  const auto r = sglang::parse_release(*opts.engine_version);
  if (!r) {
    throw usage_error{fmt::format("{}: '{}' is not an SGLang release (expected 0.X.Y, e.g. 0.5.10, v0.5.4.post1 or "
                                  "0.5.3rc2)",
                                  opts.flag("--engine-version"), *opts.engine_version)};
  }
  if (sglang::rule_of(*r)) {
    return *r;
  }
  throw usage_error{
      fmt::format("{} {}: {}", opts.flag("--engine-version"), *opts.engine_version, sglang::release_refusal(*r))};
}

/// The SGLang release of --engine-version: its rule and, for the facts that change inside a rule, itself.
void set_sglang_release(engine_options& o, const kvsize::engines::sglang::release& r) {
  o.sglang.version = r;
  o.sglang.release = *kvsize::engines::sglang::rule_of(r);  // sglang_release_option took only modelled releases
}

/// Whether K's or V's type is the engine's own default: its option (`own`: --k-dtype / --v-dtype), else --kv-dtype,
/// absent or "auto".
auto takes_default_type(const options& opts, const std::optional<std::string>& own) -> bool {
  const std::optional<std::string>& given = own ? own : opts.kv_dtype;
  return !given || *given == "auto";
}

/// The checkpoint's declared KV cache as the engine's attention layers read it (vLLM: compressed-tensors' scheme never
/// reaches MLAAttention, engines::vllm::checkpoint_kv_for).
auto checkpoint_kv_read(const sizing& s) -> kvsize::checkpoint_kv_cache {
  return s.engine == engine_kind::vllm ? kvsize::engines::vllm::checkpoint_kv_for(s.config.spec, s.config.checkpoint_kv)
                                       : s.config.checkpoint_kv;
}

auto sglang_dp_asked(const options& opts, const sizing& s) -> bool;  // below, with SGLang's other DP-attention rules
auto sglang_attention_tp(const options& opts, const sizing& s) -> std::uint32_t;  // below
auto sglang_moe_dense_whole(const options& opts, const sizing& s) -> bool;         // below

/// The model classes SGLang's rules read, from config.json's architectures[0]: the prefill CUDA graphs', the
/// default attention backend's on HIP (the aiter factor), and the vision tower's (the vision factor).
void set_sglang_model_classes(engine_options& o, const kvsize::hf::parsed_config& c) {
  namespace sglang = kvsize::engines::sglang;
  o.sglang.graph_class = sglang::prefill_graph_class_of(c.architecture, !c.text_config_pointer.empty());
  o.sglang.hip_attention = sglang::hip_attention_class_of(c.architecture);
  o.sglang.vlm = sglang::vlm_tower_of(c.architecture, !c.text_config_pointer.empty(), c.vision_config_given,
                                      c.vision_num_hidden_layers.value, c.vision_hidden_size.value);
}

/// The engine knobs of the command line, on top of the engine's own defaults.
auto engine_options_of(const options& opts, const sizing& s) -> engine_options {
  engine_options o;
  o.context = s.context;
  o.batch = s.batch;
  o.kv = s.kv;
  o.tp = opts.tp;
  o.pp = layer_split_pp(opts, s.tensor_split);
  if (s.tensor_split) {
    o.llama_cpp.split = s.tensor_split->split;
  }
  // A knob not given keeps the library's default (engine_options{}; 0 there: the engine's rule).
  const auto given = [](const auto& option, auto& field) {
    if (option) {
      field = *option;
    }
  };
  given(opts.block_size, o.block_size);
  given(opts.shared_prefix, o.shared_prefix);
  given(opts.max_num_batched_tokens, o.vllm.max_num_batched_tokens);
  given(opts.max_num_seqs, o.vllm.max_num_seqs);
  given(opts.gpu_memory_utilization, o.vllm.gpu_memory_utilization);
  given(opts.mem_fraction_static, o.sglang.mem_fraction_static);
  given(opts.max_running_requests, o.sglang.max_running_requests);
  // The flag, as the default fraction's reserve reads it (0.5.6 – 0.5.7 turn DP attention on for a DSA model given
  // a dp after the memory settings: attention_dp reads that from attention_tp); tp % dp == 0: check_sglang_dp.
  o.sglang.dp_attention = opts.enable_dp_attention && opts.dp.value_or(1) > 1;
  o.sglang.dp_attention_flag = opts.enable_dp_attention;  // read at dp 1 too (sglang_fraction.hpp)
  if (opts.dp) {
    o.sglang.attention_tp = tp_per_dp_rank(opts, *opts.dp);
  }
  o.sglang.dp_lm_head = opts.enable_dp_lm_head;
  o.sglang.moe_dense_fully_dp = sglang_moe_dense_whole(opts, s);
  set_sglang_model_classes(o, s.config);
  given(opts.free_gpu_memory_fraction, o.trtllm.free_gpu_memory_fraction);
  given(opts.parallel, o.llama_cpp.parallel);
  given(opts.ubatch, o.llama_cpp.ubatch);
  if (opts.engine_version && s.engine == engine_kind::vllm) {
    o.vllm.release_minor = vllm_release_option(opts);
  }
  if (opts.engine_version && s.engine == engine_kind::sglang) {
    set_sglang_release(o, sglang_release_option(opts));
  }
  o = kvsize::engines::sglang::with_model_facts(o, s.config.spec);  // the fraction and DSA rules read them
  if (opts.enable_prefix_caching || opts.no_enable_prefix_caching) {
    o.vllm.prefix_caching = opts.enable_prefix_caching ? kvsize::vllm_prefix_caching::enabled
                                                       : kvsize::vllm_prefix_caching::disabled;
  }
  o.vllm.enforce_eager = opts.enforce_eager;
  if (opts.model_runner) {
    o.vllm.model_runner = *opts.model_runner == "v2"   ? kvsize::vllm_model_runner::v2
                          : *opts.model_runner == "v1" ? kvsize::vllm_model_runner::v1
                                                       : kvsize::vllm_model_runner::automatic;
  }
  o.vllm.reasoning_parser = opts.reasoning_parser.has_value();
  o.vllm.auto_fit_context = opts.context_auto;
  // VllmConfig._is_default_v2_model_runner_model, as far as config.json says (any entry of
  // `architectures`; the expert count is the spec's, read by uses_model_runner_v2).
  // A quantization_config kvsize cannot read is still one; a folder's safetensors beside its config.json
  // are the same checkpoint, a GGUF file is not (V2's GGUF path untraced).
  const bool quantized = s.config.quantization_config_given;
  o.vllm.v2_default_checkpoint = architectures_hold(s, "Qwen3ForCausalLM") && !quantized &&
                                 !(s.config.checkpoint && s.config.checkpoint->as_loaded);
  o.vllm.deepseek_v32_checkpoint = architectures_hold(s, "DeepseekV32ForCausalLM");
  o.vllm.text_only_class = architectures_hold(s, "Gemma3nForCausalLM") || architectures_hold(s, "Gemma4ForCausalLM");
  o.glm_moe_dsa_checkpoint = architectures_hold(s, "GlmMoeDsaForCausalLM");
  // No type named (or "auto"): s.kv is what the engine's auto resolved to, which vLLM names apart (kv_cache_auto).
  o.vllm.kv_cache_auto = takes_default_type(opts, opts.k_dtype) && takes_default_type(opts, opts.v_dtype);
  if (opts.cuda_graph_memory) {
    o.vllm.cuda_graph_estimate = size_option(opts.flag("--cuda-graph-memory"), *opts.cuda_graph_memory, true);
  }
  o.llama_cpp.kv_unified = opts.kv_unified;
  o.llama_cpp.swa_full = opts.swa_full;
  // --dtype (not auto): the spec's compute dtype is the user's, which each engine's rules serve as is.
  o.dtype_given = s.dtype_facts.given;
  o.checkpoint_kv = checkpoint_kv_read(s);
  return o;
}

/// Knobs that only mean something to some engines: warn when they are given to another (each engine
/// type lists the knobs it reads: reads_knob).
void warn_unused_knobs(const options& opts, engine_kind e, std::vector<std::string>& warnings) {
  struct knob {
    bool given;
    std::string_view flag;
    bool used;
  };
  const auto reads = [&](engine_knob k) { return reads_knob(e, k); };
  const knob knobs[] = {
      {opts.block_size.has_value(), "--block-size", reads(engine_knob::block_size)},
      {opts.max_num_batched_tokens.has_value(), "--max-num-batched-tokens", reads(engine_knob::max_num_batched_tokens)},
      {opts.max_num_seqs.has_value(), "--max-num-seqs", reads(engine_knob::max_num_seqs)},
      {opts.gpu_memory_utilization.has_value(), "--gpu-memory-utilization", reads(engine_knob::gpu_memory_utilization)},
      {opts.mem_fraction_static.has_value(), "--mem-fraction-static", reads(engine_knob::mem_fraction_static)},
      {opts.max_running_requests.has_value(), "--max-running-requests", reads(engine_knob::max_running_requests)},
      {opts.dp.has_value(), "--dp", reads(engine_knob::dp_attention)},
      {opts.enable_dp_attention, "--enable-dp-attention", reads(engine_knob::dp_attention)},
      {opts.enable_dp_lm_head, "--enable-dp-lm-head", reads(engine_knob::dp_attention)},
      {opts.moe_dense_tp_size.has_value(), "--moe-dense-tp-size", reads(engine_knob::dp_attention)},
      {opts.free_gpu_memory_fraction.has_value(), "--kv-cache-free-gpu-memory-fraction",
       reads(engine_knob::free_gpu_memory_fraction)},
      {opts.parallel.has_value(), "--parallel", reads(engine_knob::parallel)},
      {opts.ubatch.has_value(), "--ubatch", reads(engine_knob::ubatch)},
      {opts.enable_prefix_caching, "--enable-prefix-caching", reads(engine_knob::prefix_caching)},
      {opts.no_enable_prefix_caching, "--no-enable-prefix-caching", reads(engine_knob::prefix_caching)},
      {opts.kv_unified, "--kv-unified", reads(engine_knob::kv_unified)},
      {opts.swa_full, "--swa-full", reads(engine_knob::swa_full)},
      {opts.flash_attn.has_value(), "--flash-attn", reads(engine_knob::flash_attn)},
      {opts.gpu_layers.has_value(), "--n-gpu-layers", reads(engine_knob::gpu_layers)},
      {opts.n_cpu_moe.has_value(), "--n-cpu-moe", reads(engine_knob::gpu_layers)},
      {opts.cpu_moe, "--cpu-moe", reads(engine_knob::gpu_layers)},
      {opts.no_kv_offload, "--no-kv-offload", reads(engine_knob::gpu_layers)},
      {!opts.override_tensor.empty(), "--override-tensor", reads(engine_knob::gpu_layers)},
      {opts.tensor_split.has_value(), "--tensor-split", reads(engine_knob::gpu_layers)},
      {opts.engine_version.has_value(), "--engine-version", reads(engine_knob::engine_version)},
      {opts.enforce_eager, "--enforce-eager", reads(engine_knob::cuda_graphs)},
      {opts.cuda_graph_memory.has_value(), "--cuda-graph-memory", reads(engine_knob::cuda_graphs)},
      {opts.model_runner.has_value(), "--model-runner", reads(engine_knob::model_runner)},
      {opts.reasoning_parser.has_value(), "--reasoning-parser", reads(engine_knob::model_runner)},
  };
  for (const auto& k : knobs) {
    if (k.given && !k.used) {
      warnings.push_back(fmt::format("{} has no effect with --engine {}", opts.flag(k.flag), name(e)));
    }
  }
}

/// --engine: the profile names, in any case, and the spellings engine users write (each engine
/// type's `aliases`).
auto engine_option(const options& opts) -> engine_kind {
  const std::string lower = lowercase(opts.engine);
  if (const auto e = parse_engine(lower)) {
    return *e;
  }
  std::vector<std::string> known;
  for (engine_kind e : all_engines) {
    known.emplace_back(name(e));
    for (std::string_view a : aliases(e)) {
      known.emplace_back(a);
    }
  }
  std::string hint;
  if (const auto near = nearest_name(lower, known)) {
    hint = fmt::format("; did you mean {}?", name(*parse_engine(*near)));
  }
  throw usage_error{fmt::format("{}: unknown engine '{}' (expected exact, vllm, sglang, llama.cpp, trtllm or "
                                "transformers{})",
                                opts.flag("--engine"), opts.engine, hint)};
}

/// "--context 4096 (the default)" / "--max-model-len 8192": the context as the user set it, for messages.
auto context_given(const options& opts, std::uint64_t context) -> std::string {
  if (opts.context_model) {
    return fmt::format("{} 0 ({}, the model's)", opts.flag("--context-model"), context);
  }
  if (opts.context_auto) {
    return fmt::format("{} auto ({})", opts.flag("--context-auto"), context);
  }
  return opts.context ? fmt::format("{} {}", opts.flag("--context"), context)
                      : fmt::format("--context {} (the default)", context);
}

/// llama.cpp's layer split: at most 16 devices (llama_max_devices), at most one per layer (kvsize's
/// limit: llama.cpp leaves the extra devices empty), and no more -ts shares than devices.
void check_llama_cpp_devices(const options& opts, const model_spec& m, std::uint64_t devices,
                             const std::optional<tensor_split_option>& ts) {
  const std::string given = opts.tensor_split ? fmt::format("{} {}", opts.flag("--tensor-split"), *opts.tensor_split)
                                              : fmt::format("{} {} × {} {}", opts.flag("--tp"), opts.tp,
                                                            opts.flag("--pp"), opts.pp);
  if (devices > engines::llama_cpp::max_devices) {
    throw usage_error{fmt::format("{}: {} devices; llama.cpp splits layers over at most {} (llama_max_devices)", given,
                                  devices, engines::llama_cpp::max_devices)};
  }
  if (devices > m.layers) {
    throw usage_error{fmt::format("{}: {} devices for a model of {} layers: llama.cpp would leave some of them "
                                  "empty, and kvsize plans at most one device per layer",
                                  given, devices, m.layers)};
  }
  if (ts && opts.tp * opts.pp > 1 && ts->count > devices) {
    throw usage_error{fmt::format("{}: {} shares for {} devices ({} {} × {} {}); give one share per device",
                                  given, ts->count, devices, opts.flag("--tp"), opts.tp, opts.flag("--pp"), opts.pp)};
  }
}

/// The parallel split must be one the engine can run:
/// * an engine that splits layers over all tp × pp devices (llama.cpp, which has no tensor
///   parallelism: layer_split_devices) needs a layer for each device;
/// * every tensor-parallel engine shards the attention heads evenly: vLLM refuses a degree that does
///   not divide them ("Total number of attention heads (32) must be divisible by tensor parallel size
///   (3)", ModelConfig.verify_with_parallel_config in vllm/config/model.py); kvsize would print a
///   fractional head per rank;
/// * each rank holds KV heads / tp heads or, with more ranks than KV heads, a replica of one (vLLM's
///   and SGLang's QKVParallelLinear: divide(tp_size, total_num_kv_heads), which asserts), so one must
///   divide the other; kvsize keeps "KV heads per rank" a whole number for every engine (valid_tp);
/// * every pipeline stage holds at least one layer (vLLM get_pp_indices).
void check_parallel_split(const options& opts, const model_spec& m, engine_kind e,
                          const std::optional<tensor_split_option>& ts) {
  const std::uint64_t tp = opts.tp;
  const std::uint64_t pp = layer_split_pp(opts, ts);
  engine_options split;
  split.tp = opts.tp;
  split.pp = static_cast<std::uint32_t>(pp);
  if (e == engine_kind::llama_cpp) {
    check_llama_cpp_devices(opts, m, layer_split_devices(e, split), ts);
    return;
  }
  if (const std::uint64_t devices = layer_split_devices(e, split); devices != pp) {
    if (devices > m.layers) {
      throw usage_error{fmt::format("{} {} × {} {} = {} devices: {} splits layers over devices, and this "
                                    "model has {} layers (each device needs at least one)",
                                    opts.flag("--tp"), tp, opts.flag("--pp"), pp, devices, display_name(e), m.layers)};
    }
    return;
  }
  if (pp > m.layers) {
    throw usage_error{fmt::format("{} {}: this model has {} layers, and every pipeline stage needs at least one",
                                  opts.flag("--pp"), pp, m.layers)};
  }
  if (tp == 1 || kv_layers(m) == 0) {
    return;
  }
  const auto valid = [&](std::uint64_t t) { return valid_tp(e, m, static_cast<std::uint32_t>(t), opts.pp); };
  if (valid(tp)) {
    return;
  }
  std::string degrees;
  for (std::uint64_t t = 1; t <= m.attention_heads; ++t) {
    if (valid(t)) {
      degrees += fmt::format("{}{}", degrees.empty() ? "" : ", ", t);
    }
  }
  if (m.attention_heads % tp != 0) {
    throw usage_error{fmt::format("{} {}: this model's {} attention heads do not split evenly over {} ranks "
                                  "(vLLM refuses it: the heads must be divisible by tensor_parallel_size); "
                                  "degrees that work: {}",
                                  opts.flag("--tp"), tp, m.attention_heads, tp, degrees)};
  }
  throw usage_error{fmt::format("{} {}: this model's {} KV heads and {} ranks do not divide one another (a rank "
                                "holds KV heads / tp of them, or a replica of one when tp exceeds them); degrees "
                                "that work: {}",
                                opts.flag("--tp"), tp, effective_kv_heads(m), tp, degrees)};
}

/// Block sizes the engine accepts (each engine's block_size_refusal says which, and why).
void check_block_size(const options& opts, engine_kind e) {
  if (!opts.block_size) {
    return;
  }
  const std::uint32_t b = *opts.block_size;
  if (const std::string_view why = block_size_refusal(e, b); !why.empty()) {
    throw usage_error{fmt::format("{} {}: {}", opts.flag("--block-size"), b, why)};
  }
}

/// --dtype: vLLM's and SGLang's model dtype (auto, half, float16, bfloat16, float, float32).
auto model_dtype_option(const options& opts, dtype config_dtype) -> dtype {
  if (!opts.model_dtype || *opts.model_dtype == "auto") {
    return config_dtype;
  }
  const auto t = parse_dtype(*opts.model_dtype);
  if (!t || (*t != dtype::f32 && *t != dtype::f16 && *t != dtype::bf16)) {
    throw usage_error{fmt::format("{}: expected auto, half (float16), bfloat16 or float (float32), got '{}'",
                                  opts.flag("--dtype"), *opts.model_dtype)};
  }
  return *t;
}

/// An engine's refusal, without the library's "kvsize: " prefix (the message gets its own).
auto refusal(const std::exception& e) -> std::string_view {
  std::string_view what = e.what();
  if (what.starts_with("kvsize: ")) {
    what.remove_prefix(8);
  }
  return what;
}

/// K/V element types the engine can store (its kv_type_refusal), refused under the option that
/// chose them.
void check_cache_types(const options& opts, engine_kind e, const kv_dtypes& kv) {
  const auto check = [&](dtype t, const std::optional<std::string>& own, std::string_view own_flag,
                         std::string_view which) {
    const std::string_view why = kv_type_refusal(e, t);
    if (why.empty()) {
      return;
    }
    const std::string given = own              ? fmt::format("{} {}", opts.flag(own_flag), *own)
                              : opts.kv_dtype ? fmt::format("{} {}", opts.flag("--kv-dtype"), *opts.kv_dtype)
                                              : fmt::format("the model's dtype {} ({})", name(t), which);
    throw usage_error{fmt::format("{}: {}", given, why)};
  };
  check(kv.k, opts.k_dtype, "--k-dtype", "K");
  check(kv.v, opts.v_dtype, "--v-dtype", "V");
}

/// llama.cpp -fa: "on", "off" or "auto" (flash_attn_setting reads llama-bench's 1 / 0 too).
auto flash_attn_option(const options& opts) -> std::string_view {
  if (const auto setting = flash_attn_setting(*opts.flash_attn)) {
    return *setting;
  }
  throw usage_error{fmt::format("{}: expected on, off or auto, got '{}'", opts.flag("--flash-attn"), *opts.flash_attn)};
}

/// The plan's sweeps: a plan point for every --sweep-context × --sweep-batch pair, the most users at
/// each context and the longest context for each number of users (`context`, `users`: the request's,
/// for an axis not swept; --svg alone sweeps the context from 1,024 to the plan's limit).
void compute_sweeps(const options& opts, engine_kind engine, const model_spec& m, plan_figures& p,
                    std::vector<std::uint64_t> contexts, std::vector<std::uint64_t> users_list, std::uint64_t context,
                    std::uint64_t users) {
  if (contexts.empty()) {
    contexts = opts.svg && !opts.sweep_batch ? doubling(std::min<std::uint64_t>(1'024, p.result.context_limit),
                                                        p.result.context_limit)
                                             : std::vector<std::uint64_t>{context};
  }
  if (users_list.empty()) {
    users_list.push_back(users);
  }
  if (contexts.size() * users_list.size() > 4'096) {
    throw usage_error{"--sweep-context × --sweep-batch: more than 4,096 points; narrow the ranges"};
  }
  const std::uint32_t tp = p.inputs.options.tp;
  for (std::uint64_t c : contexts) {
    for (std::uint64_t u : users_list) {
      try {
        p.sweep.push_back(plan_at(m, p.inputs, c, u, tp));
      } catch (const kvsize::invalid_argument& e) {
        throw usage_error{
            fmt::format("--engine {}: {} (at {} tokens, {} users)", name(engine), refusal(e), c, u)};
      }
    }
    p.sweep_max_users.push_back(plan_max_users(m, p.inputs, c, tp));
  }
  for (std::uint64_t u : users_list) {
    p.sweep_max_context.push_back(plan_max_context(m, p.inputs, u, tp, std::max(p.result.context_limit, contexts.back())));
  }
  p.sweep_contexts = contexts;
  p.sweep_users = users_list;
}

/// The malformed key the weights need, as "<file>:<pointer>: <what is wrong>": config.json's pointer after the input's
/// path, or a model folder's hf_quant_config.json, which the reader names itself (weights_unknown_file).
auto weights_unknown_where(const sizing& s) -> std::string {
  const std::string& because = s.config.weights_unknown_because;
  return s.config.weights_unknown_file.empty() ? s.config_path + ":" + because : because;
}

/// Why the weights are unknown, as the end of a sentence: the malformed key a config.json's weights
/// need (file and JSON pointer), else that kvsize cannot size them (a GGUF without its tensors, a
/// quantization scheme it does not know: the report's notes say which).
auto weights_unknown_words(const sizing& s) -> std::string {
  if (!s.config.weights_unknown_because.empty()) {
    return fmt::format("are not counted ({})", weights_unknown_where(s));
  }
  return "cannot be sized yet (see the notes of the report)";
}

/// A sweep whose points the engine sizes with different factors on its memory fraction (SGLang's aiter factor on an
/// AMD GPU, 0.85 above 8,192 tokens of context: engines/sglang_aiter.hpp) says where its budget steps, so the jump
/// in the table reads as the engine's rule.
void note_sweep_factor_step(sizing& s, const plan_figures& p) {
  const plan_point* unscaled = nullptr;  // the longest context at the largest factor
  const plan_point* scaled = nullptr;    // the shortest context at the smallest factor
  for (const plan_point& q : p.sweep) {
    const double f = q.rule.engine_factor;
    if (unscaled == nullptr || f > unscaled->rule.engine_factor ||
        (f == unscaled->rule.engine_factor && q.context > unscaled->context)) {
      unscaled = &q;
    }
    if (scaled == nullptr || f < scaled->rule.engine_factor ||
        (f == scaled->rule.engine_factor && q.context < scaled->context)) {
      scaled = &q;
    }
  }
  if (unscaled == nullptr || unscaled->rule.engine_factor == scaled->rule.engine_factor) {
    return;
  }
  const auto sized = [](const kvsize::budget_rule& r) {  // "0.867", or "0.867 × 0.85" where a factor applies
    return r.engine_factor == 1.0 ? kvsize::fraction_text(r)
                                  : fmt::format("{} × {}", kvsize::fraction_text(r), r.engine_factor);
  };
  s.notes.push_back(fmt::format(
      "the sweep's KV budget steps between {} and {} tokens of context: {} sizes its pool at {} up to 8,192 tokens "
      "and at {} above (the aiter factor on an AMD GPU: engines/sglang_aiter.hpp)",
      grouped(unscaled->context), grouped(scaled->context), display_name(s.engine), sized(unscaled->rule),
      sized(scaled->rule)));
}

/// The planner for the device given, and the sweeps; refuses --csv, --svg and sweeps it cannot serve.
/// `served`: the model as the engine serves it (activations and logits in its serving dtype: vLLM
/// runs a float32 config in bf16).
void compute_plan(const options& opts, sizing& s, const model_spec& served, std::optional<bytes> device_memory,
                  std::uint64_t bandwidth, const std::string& device_source, const workspace_overrides& overrides) {
  const bool wants_plan_output = opts.csv || opts.svg || opts.sweep_context || opts.sweep_batch;
  const std::string_view flag = opts.csv ? "--csv" : opts.svg ? "--svg" : opts.sweep_context ? "--sweep-context"
                                                                                             : "--sweep-batch";
  // Parse the ranges first: a bad range is a bad option whatever else is missing.
  std::vector<std::uint64_t> contexts;
  std::vector<std::uint64_t> users_list;
  if (opts.sweep_context) {
    contexts = parse_sweep(opts.flag("--sweep-context"), *opts.sweep_context);
  }
  if (opts.sweep_batch) {
    users_list = parse_sweep(opts.flag("--sweep-batch"), *opts.sweep_batch);
  }
  if (!device_memory) {
    if (wants_plan_output) {
      throw usage_error{fmt::format("{} plans for a device: give --gpu NAME or --gpu-memory SIZE", flag)};
    }
    return;
  }
  if (!s.weights) {
    if (wants_plan_output) {
      throw usage_error{fmt::format("{}: the weights of this model {}, so no plan can be made", flag,
                                    weights_unknown_words(s))};
    }
    s.notes.push_back("plan: the weights of this model are unknown, so the planner (fit, options, decode cost) "
                      "is not shown");
    return;
  }
  const model_spec& m = served;
  plan_figures p;
  p.source = device_source;
  p.inputs.weights = *s.weights;
  p.inputs.split = s.tensor_parallel_shares();
  p.inputs.weights_per_device = s.layer_split_heaviest;
  p.inputs.device_memory = *device_memory;
  p.inputs.bandwidth = bandwidth;
  p.inputs.engine = s.engine;
  p.inputs.options = s.engine_opts;
  p.inputs.options.engine_overhead = bytes{0};  // the planner adds the workspace itself
  p.inputs.workspace = overrides;
  std::uint64_t users = s.batch;
  std::uint64_t context = s.context;
  if (opts.parallel && reads_knob(s.engine, engine_knob::parallel)) {
    // -c is shared by the -np slots: each user holds its slot's share.
    users = *opts.parallel;
    context = std::max<std::uint64_t>(1, s.context / users);
  }
  p.inputs.options.batch = users;
  p.inputs.options.context = context;
  p.inputs.context_limit = std::max<std::uint64_t>(s.model_context, context);
  try {
    p.result = plan(m, p.inputs);
  } catch (const kvsize::invalid_argument& e) {
    throw usage_error{fmt::format("--engine {}: {}", name(s.engine), refusal(e))};
  }
  if (reads_knob(s.engine, engine_knob::parallel)) {  // users are slots (llama.cpp's plan_options)
    p.llama_mapping = fmt::format("-np {} -c {}", users, users * context);
  }

  p.swept = opts.sweep_context || opts.sweep_batch || opts.svg;
  if (p.swept) {
    compute_sweeps(opts, s.engine, m, p, std::move(contexts), std::move(users_list), context, users);
    note_sweep_factor_step(s, p);
  }
  s.plan = std::move(p);
}

/// The engine and the release whose rules read the checkpoint's KV cache: "vLLM 0.19", "SGLang 0.5.15-0.5.19".
auto engine_release_words(engine_kind e, const engine_options& o) -> std::string {
  if (e == engine_kind::vllm) {
    return fmt::format("vLLM {}", kvsize::engines::vllm::release_name(kvsize::engines::vllm::release_of(o)));
  }
  if (e == engine_kind::sglang) {
    return fmt::format("SGLang {}", kvsize::engines::sglang::version_name(o.sglang.release));
  }
  return std::string{display_name(e)};
}

/// The K/V types as the note names them: "fp8_e4m3", or "K fp8_e4m3, V bf16".
auto kv_words(const kv_dtypes& kv) -> std::string {
  return kv.k == kv.v ? std::string{name(kv.k)} : fmt::format("K {}, V {}", name(kv.k), name(kv.v));
}

/// The note on a checkpoint that declares an FP8 KV cache (parsed_config::checkpoint_kv_fp8), where the serving
/// engine's default cache type was taken: whether the engine's release keeps it (checkpoint_kv_dtype; vLLM 0.15 –
/// 0.21 over an explicit type too), what kvsize sized, and the option that sizes the other.
auto checkpoint_kv_note(const options& opts, const sizing& s, const engine_options& declared) -> std::string {
  const std::string engine = engine_release_words(s.engine, declared);
  const std::string head = fmt::format("KV cache: {} declares an FP8 KV cache, which {}", s.config.checkpoint_kv_fp8,
                                       engine);
  if (s.engine == engine_kind::vllm && kvsize::engines::vllm::checkpoint_kv_overrides_option(declared)) {
    return fmt::format("{} keeps at its default cache dtype and over an explicit one (Attention.__init__, until "
                       "0.22; docs/engines.md): kvsize sized {}; {} 0.22 {} bf16 sizes a 16-bit cache",
                       head, kv_words(s.kv), opts.flag("--engine-version"), opts.flag("--kv-dtype"));
  }
  if (checkpoint_kv_dtype(s.engine, declared)) {
    return fmt::format("{} keeps at its default cache dtype (docs/engines.md): kvsize sized {}; {}", head,
                       kv_words(s.kv),
                       s.engine == engine_kind::trtllm
                           ? std::string{"TensorRT-LLM accepts no other type there"}
                           : fmt::format("{} bf16 sizes a 16-bit cache", opts.flag("--kv-dtype")));
  }
  // TensorRT-LLM reads compressed-tensors' scheme as FP8 from PR #17334 (August 2026), a release kvsize cannot name.
  const bool trtllm_unknown = s.engine == engine_kind::trtllm &&
                              s.config.checkpoint_kv == checkpoint_kv_cache::compressed_tensors_fp8;
  return fmt::format("{} {} at its default cache dtype (docs/engines.md): kvsize sized {}; {} fp8 sizes "
                     "the FP8 cache, half the bytes a token",
                     head,
                     trtllm_unknown ? "takes only from PR #17334 (August 2026; kvsize sizes the releases before it)"
                                    : "does not take",
                     kv_words(s.kv), opts.flag("--kv-dtype"));
}

/// The key that declares the checkpoint's KV cache, with its file: config.json's pointer after the input's path, or
/// a model folder's hf_quant_config.json, which the reader names itself (parsed_config::checkpoint_kv_file).
auto checkpoint_kv_where(const sizing& s) -> std::string {
  const std::string& key = s.config.checkpoint_kv_fp8;
  return s.config.checkpoint_kv_file.empty() ? s.config_path + ":" + key : key;
}

struct device_choice {
  std::optional<bytes> memory;  ///< what the engines budget from; absent without --gpu / --gpu-memory
  std::uint64_t bandwidth = 0;  ///< bytes per second (0: unknown)
  std::string source;           ///< "NVIDIA GeForce RTX 3060 12 GB (--gpu rtx-3060)", "--gpu-memory 24GiB"
  bool a100 = false;            ///< an A100 from the catalog (vLLM's defaults single it out)
  bool rocm = false;            ///< an AMD GPU from the catalog (vLLM 0.20+ measures no CUDA-graph estimate there)
  bool gfx950 = false;          ///< the MI355X (SGLang's DSA pool: fp8 as e4m3fn, not e4m3fnuz)
  std::uint32_t compute_capability = 0;  ///< a catalog GPU's CUDA compute capability × 10 (0: AMD, or not known)
  std::optional<bytes> reported_memory;  ///< nvidia-smi's total of a catalog GPU (SGLang's default rule reads it)
};

/// What the engine's default reads of the checkpoint's KV cache: its form, the release given and, for SGLang's
/// defaults under DeepSeek sparse attention, the device and the model's indexer.
auto declared_kv_options(const options& opts, const sizing& s, const device_choice& d) -> engine_options {
  engine_options o;
  o.checkpoint_kv = checkpoint_kv_read(s);
  o.sglang.rocm = d.rocm;
  o.sglang.gfx950 = d.gfx950;
  o.sglang.compute_capability = d.compute_capability;
  o.sglang.sparse_index = s.config.spec.latent.index_head_dim != 0;
  o.glm_moe_dsa_checkpoint = architectures_hold(s, "GlmMoeDsaForCausalLM");
  if (opts.engine_version && s.engine == engine_kind::vllm) {
    o.vllm.release_minor = vllm_release_option(opts);
  }
  if (opts.engine_version && s.engine == engine_kind::sglang) {
    set_sglang_release(o, sglang_release_option(opts));
  }
  return o;
}

/// An explicit K/V type against the checkpoint's FP8 cache, once the types are checked: a type the engine cannot be
/// given there is exit 2, naming the option and the key (checkpoint_kv_type_refusal: vLLM float32 and, before 0.18,
/// float16; SGLang float16 and float32; TensorRT-LLM anything but FP8); vLLM 0.15 – 0.21 put compressed-tensors'
/// FP8 over the others. Returns whether it did so (the types given were not FP8 already).
auto apply_checkpoint_kv_rules(const options& opts, const engine_options& declared, sizing& s) -> bool {
  engine_options given = declared;
  given.kv = s.kv;
  if (!checkpoint_kv_type_refusal(s.engine, given).empty()) {
    // The option that set the first of K and V the engine refuses, asked of each type alone.
    const auto refusal_of = [&](dtype t) {
      engine_options alone = declared;
      alone.kv = kv_dtypes::same(t);
      return checkpoint_kv_type_refusal(s.engine, alone);
    };
    const bool k_refused = !refusal_of(s.kv.k).empty();
    const dtype t = k_refused ? s.kv.k : s.kv.v;
    const std::string flag = k_refused ? (opts.k_dtype ? opts.flag("--k-dtype") : opts.flag("--kv-dtype"))
                                       : (opts.v_dtype ? opts.flag("--v-dtype") : opts.flag("--kv-dtype"));
    throw usage_error{fmt::format("{} {}: {} ({})", flag, name(t), refusal_of(t), checkpoint_kv_where(s))};
  }
  const kv_dtypes fp8 = kv_dtypes::same(dtype::fp8_e4m3);
  if (s.engine == engine_kind::vllm && kvsize::engines::vllm::checkpoint_kv_overrides_option(given) && s.kv != fp8) {
    s.kv = fp8;
    return true;
  }
  return false;
}

/// The SGLang release the options name: the release given ("0.5.16"), else its rule's releases ("0.5.15-0.5.19").
auto sglang_release_words(const engine_options& o) -> std::string {
  if (!o.sglang.version) {
    return std::string{kvsize::engines::sglang::version_name(o.sglang.release)};
  }
  const kvsize::engines::sglang::release& r = *o.sglang.version;
  const std::string tail = r.candidate ? fmt::format("rc{}", r.rc) : r.post != 0 ? fmt::format(".post{}", r.post) : "";
  return fmt::format("0.{}.{}{}", r.minor, r.patch, tail);
}

/// SGLang 0.5.3rc2 – 0.5.4.post1 on compute capability 10+ keep a DeepSeek-sparse-attention model's cache in fp8_e4m3
/// over the type named (engines::sglang::dsa_cache_dtype): s.kv becomes that, with a note. With no device known,
/// the type `auto` gives there follows the GPU: a note says which was taken. A page size given is not the one
/// SGLang sets for these models: a note.
void sglang_dsa_types(const options& opts, const engine_options& declared, sizing& s) {
  namespace sglang = kvsize::engines::sglang;
  const std::string release = fmt::format("SGLang {}", sglang_release_words(declared));
  engine_options at_tp = declared;
  at_tp.tp = opts.tp;
  if (sglang::dsa_forces_dp_attention(at_tp)) {
    s.notes.push_back(fmt::format("DP attention: {} turns it on for DeepSeek sparse attention at dp = tp = {} "
                                  "(server_args.py _handle_model_specific_adjustments, PR #11061): each GPU holds the "
                                  "attention projections and the embedding whole, which the weights per device "
                                  "count, and keeps its own pool for its own requests: the tokens and users shown "
                                  "are one GPU's, the {} GPUs serve {} × as many (0.5.6 and later serve it with "
                                  "tensor-parallel attention unless asked)",
                                  release, opts.tp, opts.tp, opts.tp));
  }
  const bool named = !takes_default_type(opts, opts.k_dtype) || !takes_default_type(opts, opts.v_dtype);
  if (const std::optional<double> forced = sglang::dsa_forced_fraction(declared);
      forced && opts.mem_fraction_static && *opts.mem_fraction_static != *forced) {
    s.notes.push_back(fmt::format("{} {}: {} sets mem_fraction_static {} for DeepSeek sparse attention over any "
                                  "value (server_args.py, 0.5.3rc2 – 0.5.3): kvsize sized that",
                                  opts.flag("--mem-fraction-static"), *opts.mem_fraction_static, release, *forced));
  }
  if (const std::uint32_t page = sglang::dsa_pool_of(declared, s.kv.k, bytes{0}).page_size;
      opts.block_size && *opts.block_size != page &&
      !(declared.sglang.rocm && sglang::at_least(sglang::version_of(declared), sglang::release_0_5(12)))) {
    s.notes.push_back(fmt::format("{} {}: {} sets a page size of {} for DeepSeek sparse attention over "
                                  "--page-size (server_args.py): kvsize sized pages of {}",
                                  opts.flag("--block-size"), *opts.block_size, release, page, page));
  }
  if (named && (sglang::dsa_replaces_named_type(declared, s.kv.k) || sglang::dsa_replaces_named_type(declared, s.kv.v))) {
    s.notes.push_back(fmt::format("KV cache: {} sets fp8_e4m3 for DeepSeek sparse attention on compute capability "
                                  "10+ over --kv-cache-dtype (server_args.py, 0.5.3rc2 – 0.5.4.post1): kvsize sized "
                                  "fp8_e4m3, not {}",
                                  release, kv_words(s.kv)));
    s.kv = kv_dtypes::same(dtype::fp8_e4m3);
    return;
  }
  if (!named && declared.sglang.compute_capability == 0 && !declared.sglang.rocm && s.kv.k != dtype::fp8_e4m3) {
    s.notes.push_back(fmt::format("KV cache: {} keeps DeepSeek sparse attention's cache in {} on Hopper, the device "
                                  "assumed, and in fp8_e4m3 on compute capability 10+ (server_args.py's default for "
                                  "these models); {} b200 sizes that",
                                  release, kv_words(s.kv), opts.flag("--gpu")));
  }
}

/// The element types: --k-dtype / --v-dtype override --kv-dtype, which overrides the engine's own
/// default for this model ("auto" names that default, as the engines' --kv-cache-dtype auto does: the checkpoint's
/// FP8 cache where the engine's release takes it, else the serving dtype).
/// An explicit --dtype (not auto) is what vLLM / SGLang / TensorRT-LLM then serve, float32 included.
/// SGLang sets a DeepSeek-sparse-attention model's type itself (sglang_dsa_types).
void set_cache_types(const options& opts, sizing& s, const device_choice& d) {
  const model_spec& m = s.config.spec;
  const dtype model_dtype = m.compute_dtype;
  const bool dtype_given = opts.model_dtype && *opts.model_dtype != "auto";
  s.dtype_facts = {model_dtype, !s.config.dtype_key.empty(), s.config.model_type.starts_with("gemma"),
                   s.config.quantization_method == "mxfp4", dtype_given};
  const engine_options declared = declared_kv_options(opts, s, d);
  const dtype automatic =
      checkpoint_kv_dtype(s.engine, declared).value_or(default_kv_dtypes(s.engine, s.dtype_facts).k);
  const bool sglang_dsa = s.engine == engine_kind::sglang && m.latent.index_head_dim != 0;
  const dtype engine_kv =
      sglang_dsa ? kvsize::engines::sglang::dsa_cache_dtype(declared, std::nullopt, automatic) : automatic;
  const dtype kv_all =
      opts.kv_dtype ? dtype_option(opts.flag("--kv-dtype"), *opts.kv_dtype, engine_kv) : engine_kv;
  s.kv.k = opts.k_dtype ? dtype_option(opts.flag("--k-dtype"), *opts.k_dtype, engine_kv) : kv_all;
  s.kv.v = opts.v_dtype ? dtype_option(opts.flag("--v-dtype"), *opts.v_dtype, engine_kv) : kv_all;
  const auto check_rows = [&](dtype t, std::string_view which) {
    // A quantized cache stores whole blocks: every row must be a multiple of the block.
    try {
      (void)kv_bytes_per_token(m, kv_dtypes::same(t));
    } catch (const kvsize::invalid_argument&) {
      throw usage_error{fmt::format("{}: {} stores blocks of {} elements, which do not divide this model's "
                                    "K/V rows (head_dim {}, {} KV heads)",
                                    which, name(t), traits(t).block_elements, effective_head_dim(m),
                                    effective_kv_heads(m))};
    }
  };
  check_cache_types(opts, s.engine, s.kv);
  check_rows(s.kv.k, opts.k_dtype ? opts.flag("--k-dtype") : opts.flag("--kv-dtype"));
  check_rows(s.kv.v, opts.v_dtype ? opts.flag("--v-dtype") : opts.flag("--kv-dtype"));
  const bool overridden = apply_checkpoint_kv_rules(opts, declared, s);
  if (sglang_dsa) {
    sglang_dsa_types(opts, declared, s);
  }
  const bool serving = s.engine == engine_kind::vllm || s.engine == engine_kind::sglang || s.engine == engine_kind::trtllm;
  if (!s.config.checkpoint_kv_fp8.empty() && serving &&
      (takes_default_type(opts, opts.k_dtype) || takes_default_type(opts, opts.v_dtype) || overridden)) {
    s.notes.push_back(checkpoint_kv_note(opts, s, declared));
  }
}

/// A context given by two options (`first`, then `second`, as typed): the same spelling twice (-c 0 -c 0,
/// --max-model-len auto twice), or two that each set it (--context 4096 with --max-model-len auto).
[[noreturn]] void refuse_second_context(const std::string& first, const std::string& second) {
  throw usage_error{first == second ? fmt::format("{} is given twice; pass it once", second)
                                    : fmt::format("{} and {} both give the context; pass one", first, second)};
}

/// --max-model-len auto (vLLM 0.14+): the first pass sizes at the max_model_len vLLM derives (the profile run's),
/// the second (compute_sizing) at the length fitted to its budget. Only vLLM has it; a fit needs a device.
void set_auto_fit_context(const options& opts, sizing& s, const engine_options& engine_opts) {
  const std::string flag = opts.flag("--context-auto");
  if (s.engine != engine_kind::vllm) {
    throw usage_error{fmt::format("{} auto: only vLLM (0.14+) fits max_model_len to memory; give a number of tokens "
                                  "under {} {}",
                                  flag, opts.flag("--engine"), name(s.engine))};
  }
  if (kvsize::engines::vllm::release_of(engine_opts) < kvsize::engines::vllm::auto_fit_since_minor) {
    throw usage_error{fmt::format("{} auto: vLLM {} takes no auto (-1); 0.14 added the fit to memory", flag,
                                  kvsize::engines::vllm::release_name(kvsize::engines::vllm::release_of(engine_opts)))};
  }
  if (opts.context) {
    refuse_second_context(opts.flag("--context"), flag);
  }
  if (s.config.spec.stated.keys_read && kvsize::engines::vllm::stated_max_model_len(s.config.spec.stated) == 0) {
    // _get_and_verify_max_len returns a given length as is when the config states none: -1 itself, which the fit
    // then refuses ("Cannot auto-fit max_model_len").
    throw usage_error{fmt::format("{} auto: the config states no length vLLM reads, so vLLM takes -1 as the length "
                                  "and cannot fit it; give a number of tokens",
                                  flag)};
  }
  if (!opts.gpu && !opts.gpu_memory && !opts.kv_memory) {
    throw usage_error{fmt::format("{} auto fits the context to the KV budget: give {}, {} or {}", flag,
                                  opts.flag("--gpu"), opts.flag("--gpu-memory"), opts.flag("--kv-memory"))};
  }
  // The first pass: vLLM's derived length (its default), which the profile run sees in either pass.
  s.context = opts.fitted_context.value_or(engine_default_context(engine_kind::vllm, s.config.spec, engine_opts));
}

/// llama.cpp's -c 0: the model's own context, the length the model was trained for (llama.cpp's n_ctx_train); under
/// another engine the longest it takes from the config (model_context_limit: Phi-4-mini's 131,072 under vLLM, not
/// its longrope default of 4,096), else its default; refused where the config states none.
void set_model_context(const options& opts, sizing& s, const engine_options& engine_opts) {
  const std::string flag = opts.flag("--context-model");
  if (opts.context || opts.context_auto) {
    refuse_second_context(opts.context ? opts.flag("--context") : opts.flag("--context-auto"), flag);
  }
  const std::uint64_t engine_context = engine_default_context(s.engine, s.config.spec, engine_opts);
  s.context = s.model_context != 0 ? s.model_context
              : engine_context != 0 ? engine_context
                                    : s.config.spec.max_context;
  if (s.context == 0) {
    throw usage_error{fmt::format("{} 0 takes the model's context, which the config does not state; give a number of "
                                  "tokens",
                                  flag)};
  }
  s.context_given = true;
  s.context_from_model = true;
}

/// The context: 4,096 by default, capped at the model's maximum; a larger explicit value is honoured.
/// The batch, and a shared prefix no longer than the sequence it is part of.
void set_context(const options& opts, sizing& s, std::vector<std::string>& stderr_warnings) {
  const model_spec& m = s.config.spec;
  engine_options engine_opts = engine_options_of(opts, s);
  s.model_context = model_context_limit(s.engine, m, engine_opts);
  const std::uint64_t model_max = s.model_context;
  s.context_given = opts.context.has_value();
  s.context = opts.context.value_or(default_context);
  if (!opts.context && model_max != 0 && model_max < s.context) {
    s.context = model_max;
  }
  if (opts.context_model) {
    set_model_context(opts, s, engine_opts);
  } else if (opts.context_auto) {
    set_auto_fit_context(opts, s, engine_opts);
  } else if (opts.context && model_max != 0 && *opts.context > model_max) {
    engine_opts.context = *opts.context;
    const std::string_view variable = context_override_variable(s.engine, engine_opts, model_max);
    stderr_warnings.push_back(fmt::format(
        "{} {} exceeds the model's maximum of {} tokens; sizing it anyway{}", opts.flag("--context"), *opts.context,
        model_max,
        variable.empty()                  ? std::string{}
        : s.engine == engine_kind::trtllm ? fmt::format(" (TensorRT-LLM's max_seq_len for this config, from "
                                                        "max_position_embeddings or its 2,048: it lowers a longer one "
                                                        "unless {}=1 is set, which its newest releases read)",
                                                        variable)
                                          : fmt::format(" ({} refuses to start there unless {}=1 is set)",
                                                        display_name(s.engine), variable)));
  }
  s.batch = opts.batch;
  if (opts.shared_prefix && *opts.shared_prefix > s.context) {
    throw usage_error{fmt::format("{} {} is longer than the sequence ({}): a shared prefix is part of every sequence",
                                  opts.flag("--shared-prefix"), *opts.shared_prefix, context_given(opts, s.context))};
  }
}

/// -fa and -ngl, for an engine that reads them (llama.cpp): refusals, and what kvsize does not model.
void check_attention_and_offload(const options& opts, sizing& s) {
  if (opts.flash_attn && reads_knob(s.engine, engine_knob::flash_attn)) {
    const std::string_view fa = flash_attn_option(opts);
    if (fa == "off" && traits(s.kv.v).block_elements > 1) {
      // llama_init_from_model (src/llama-context.cpp) refuses it: "V cache quantization requires flash_attn".
      throw usage_error{fmt::format("{} off: llama.cpp refuses a quantized V cache ({}) without flash attention; "
                                    "use -fa on or an f16 V cache",
                                    opts.flag("--flash-attn"), name(s.kv.v))};
    }
    s.notes.push_back(fmt::format("{} {}: flash attention changes how llama.cpp computes attention, not the size of "
                                  "its cache; without it the compute buffer also holds each layer's attention scores "
                                  "(n_kv × n_ubatch × heads × 4 B)",
                                  opts.flag("--flash-attn"), fa));
  }
  if (opts.gpu_layers && reads_knob(s.engine, engine_knob::gpu_layers)) {
    const std::string& ngl = *opts.gpu_layers;
    const bool number = !ngl.empty() && ngl.find_first_not_of("0123456789") == std::string::npos && ngl.size() <= 9;
    if (!number && ngl != "auto" && ngl != "all") {
      throw usage_error{fmt::format("{}: expected a number of layers, auto or all, got '{}'",
                                    opts.flag("--n-gpu-layers"), ngl)};
    }
    // What the split needs and lacks (a GGUF's table or a weights format, a device) is said by
    // compute_offload, once the weights are sized.
  }
}

/// The weights: every parameter of the language model (kvsize::parameters), in the format the
/// config's quantization_config gives, or --weights-dtype.
/// A model folder's safetensors, beside the formula: the bytes on disk, and a note where they and the
/// formula over the same storage (quantization_config, else the config's dtype) differ by over 1 %.
void compare_checkpoint(sizing& s) {
  if (!s.config.checkpoint || s.config.checkpoint->as_loaded) {
    return;
  }
  const hf::checkpoint_weights& w = *s.config.checkpoint;
  s.checkpoint_weights = bytes{w.bytes};
  s.checkpoint_source = w.source;
  const model_spec& m = s.config.spec;
  const std::optional<weights_format> stored =
      s.config.quantization ? s.config.quantization->format : std::optional{published_weights(s.stored_dtype)};
  if (!stored) {
    return;
  }
  const bytes formula = weights_bytes(m, *stored);
  const double ratio = static_cast<double>(w.bytes) / static_cast<double>(std::max<std::uint64_t>(formula.count(), 1));
  if (ratio < 0.99 || ratio > 1.01) {
    s.notes.push_back(fmt::format("weights: the checkpoint holds {} ({}, {} tensors); the config's shape in {} gives "
                                  "{} ({:+.1f} %): parts of the checkpoint kvsize does not model (a vision tower, "
                                  "MTP layers, extra scales) or a config that does not match it",
                                  as_si(bytes{w.bytes}), w.source, w.tensors, weights_format_name(*stored),
                                  as_si(formula), (1.0 / ratio - 1.0) * 100.0));
  }
}

/// The SGLang release the options name (its rule and, where given, the release itself), and tp.
auto sglang_options_of(const options& opts) -> engine_options {
  engine_options o;
  o.tp = opts.tp;
  if (opts.engine_version) {
    set_sglang_release(o, sglang_release_option(opts));
  }
  return o;
}

/// 0.5.3rc2 – 0.5.5.post3 set DP attention at dp = tp for a DSA model themselves, at any tp the planner tries
/// (engines::sglang::dsa_forces_dp_attention, read here without its tp > 1).
auto sglang_dsa_sets_dp(const options& opts, const sizing& s) -> bool {
  if (s.engine != engine_kind::sglang || s.config.spec.latent.index_head_dim == 0) {
    return false;  // and --engine-version names another engine's release
  }
  engine_options o = sglang_options_of(opts);
  o.tp = 2;
  return kvsize::engines::sglang::dsa_forces_dp_attention(o);
}

/// DP attention the user asks SGLang for: --enable-dp-attention with --dp > 1, or --dp > 1 alone for a DSA model
/// under 0.5.6 – 0.5.7, whose server_args.py sets enable_dp_attention for it without a dp (PR #13646).
auto sglang_dp_asked(const options& opts, const sizing& s) -> bool {
  namespace sglang = kvsize::engines::sglang;
  if (s.engine != engine_kind::sglang || opts.dp.value_or(1) <= 1) {
    return false;
  }
  const sglang::release r = sglang::version_of(sglang_options_of(opts));
  return opts.enable_dp_attention ||
         (s.config.spec.latent.index_head_dim != 0 && sglang::dsa_dp_alone_is_dp_attention(r));
}

/// The GPUs one DP-attention rank runs attention over, tp / --dp where the user asks for DP attention (1 at dp = tp
/// and where the release sets dp = tp itself; check_sglang_dp refuses a dp that does not divide tp).
auto sglang_attention_tp(const options& opts, const sizing& s) -> std::uint32_t {
  return sglang_dp_asked(opts, s) ? tp_per_dp_rank(opts, *opts.dp) : 1U;  // asked: --dp > 1
}

/// The SGLang file that builds the model's class (engines::sglang::dp_embedding_of reads it).
auto sglang_model_file(const sizing& s) -> kvsize::engines::sglang::dp_model_file {
  using kvsize::engines::sglang::dp_model_file;
  if (architectures_hold(s, "Step3p5ForCausalLM")) {
    return dp_model_file::step3p5;
  }
  constexpr std::array<std::string_view, 4> deepseek_v2_classes{"DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM",
                                                                 "DeepseekV32ForCausalLM", "GlmMoeDsaForCausalLM"};
  return architectures_hold_any(s, deepseek_v2_classes) ? dp_model_file::deepseek_v2 : dp_model_file::other;
}

/// --moe-dense-tp-size's first release (server_args.py at v0.4.5.post2; none at v0.4.5.post1).
constexpr kvsize::engines::sglang::release sglang_moe_dense_tp_size_since{
    .minor = 4, .patch = 5, .rc = 0, .candidate = false, .post = 2};

/// A MoE model class whose SGLang file keeps its dense MLP layers whole under --moe-dense-tp-size 1, from `since`.
struct sglang_moe_dense_class {
  std::string_view architecture;
  kvsize::engines::sglang::release since;
};

/// The classes whose file reads layers/communicator.py enable_moe_dense_fully_dp (or moe_dense_tp_size), from the
/// first tag that does: deepseek_v2.py v0.4.5.post2 (with the option; GlmMoeDsaForCausalLM builds on it),
/// glm4_moe.py v0.4.9.post5, ernie4.py v0.5.0rc0, bailing_moe.py v0.5.3rc0, llada2.py v0.5.6, mimo_v2_flash.py
/// v0.5.7 (mimo_v2.py from v0.5.11, which adds MiMoV2ForCausalLM), glm4_moe_lite.py v0.5.8, sarvam_moe.py
/// v0.5.10rc0, minimax_m3.py v0.5.16. qwen2_moe.py / qwen3_moe.py read it only in 0.4.6.post5, a release kvsize
/// does not model.
constexpr auto sglang_moe_dense_classes = [] {
  using kvsize::engines::sglang::release;
  using kvsize::engines::sglang::release_0_5;
  const release deepseek = sglang_moe_dense_tp_size_since;
  const release glm4_moe{.minor = 4, .patch = 9, .rc = 0, .candidate = false, .post = 5};
  return std::array<sglang_moe_dense_class, 16>{{
      {"DeepseekV2ForCausalLM", deepseek},          {"DeepseekV3ForCausalLM", deepseek},
      {"DeepseekV32ForCausalLM", deepseek},         {"GlmMoeDsaForCausalLM", deepseek},
      {"Glm4MoeForCausalLM", glm4_moe},             {"Ernie4_5_MoeForCausalLM", release_0_5(0, 0)},
      {"BailingMoeForCausalLM", release_0_5(3, 0)}, {"BailingMoEForCausalLM", release_0_5(3, 0)},
      {"BailingMoeV2ForCausalLM", release_0_5(3, 0)}, {"LLaDA2MoeModelLM", release_0_5(6)},
      {"MiMoV2FlashForCausalLM", release_0_5(7)},   {"MiMoV2ForCausalLM", release_0_5(11)},
      {"Glm4MoeLiteForCausalLM", release_0_5(8)},   {"SarvamMLAForCausalLM", release_0_5(10, 0)},
      {"SarvamMoEForCausalLM", release_0_5(10, 0)}, {"MiniMaxM3SparseForCausalLM", release_0_5(16)},
  }};
}();

/// --moe-dense-tp-size 1 under SGLang, for a class whose file reads it in the release run.
auto sglang_moe_dense_whole(const options& opts, const sizing& s) -> bool {
  if (s.engine != engine_kind::sglang || opts.moe_dense_tp_size != 1U) {
    return false;
  }
  const kvsize::engines::sglang::release version = kvsize::engines::sglang::version_of(sglang_options_of(opts));
  return std::ranges::any_of(sglang_moe_dense_classes, [&](const sglang_moe_dense_class& c) {
    return architectures_hold(s, c.architecture) && kvsize::engines::sglang::at_least(version, c.since);
  });
}

/// The weights' layout under SGLang's DP attention, asked for or set by the release for a DSA model (at every tp
/// the planner tries: at tp 1 it is tensor-parallel attention's), and under --moe-dense-tp-size 1.
auto sglang_dp_layout(const options& opts, const sizing& s) -> dp_attention_layout {
  namespace sglang = kvsize::engines::sglang;
  dp_attention_layout layout;
  layout.dense_mlp_whole = sglang_moe_dense_whole(opts, s);
  const bool release_sets_dp = sglang_dsa_sets_dp(opts, s);
  if (!release_sets_dp && !sglang_dp_asked(opts, s)) {
    return layout;
  }
  const sglang::dp_model_file file = sglang_model_file(s);
  layout.attention_tp = release_sets_dp ? 1U : sglang_attention_tp(opts, s);
  layout.embedding = sglang::dp_embedding_of(file, sglang::version_of(sglang_options_of(opts)));
  layout.lm_head_over_group = opts.enable_dp_lm_head;
  return layout;
}

/// The model classes SGLang builds with the attention-TP size (models/*.py read get_attention_tp_size at v0.5.9):
/// the others keep their attention split over the whole tp, which DP attention at dp = tp does not describe.
/// grok.py is not among them: its attention reads the whole tensor-parallel world size.
constexpr std::array<std::string_view, 14> sglang_dp_attention_classes{
    "DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "GlmMoeDsaForCausalLM",
    "Qwen3ForCausalLM",      "Qwen3MoeForCausalLM",   "Qwen2MoeForCausalLM",    "Glm4MoeForCausalLM",
    "GptOssForCausalLM",     "Llama4ForCausalLM",     "Llama4ForConditionalGeneration",
    "Step3p5ForCausalLM",    "MiMoV2FlashForCausalLM", "Qwen3NextForCausalLM"};

/// The note on DP attention asked for at `dp` ranks (check_sglang_dp): what one GPU holds and what the figures count.
auto sglang_dp_note(const options& opts, const sizing& s, std::uint32_t dp) -> std::string {
  namespace sglang = kvsize::engines::sglang;
  const bool latent = s.config.spec.latent.kv_lora_rank != 0;
  const std::uint32_t attention_tp = opts.tp / dp;
  // tp_worker.py: each rank takes max_running_requests // dp from 0.4.1.post7 (PR #2925), the whole value before.
  const std::string requests =
      sglang::at_least(sglang::version_of(sglang_options_of(opts)), sglang::dp_requests_divided_since)
          ? fmt::format("SGLang divides {} by {}", opts.flag("--max-running-requests"), dp)
          : fmt::format("SGLang {} gives every rank the whole {}", sglang_release_words(sglang_options_of(opts)),
                        opts.flag("--max-running-requests"));
  if (attention_tp == 1) {
    // An attention group of one GPU: the embedding is whole on each whether whole or over the group.
    return fmt::format("DP attention ({} {} {}): each of the {} GPUs holds the attention projections and "
                       "the embedding whole, which the weights per device count, {} and keeps its own pool "
                       "for its own requests: the tokens and users shown are one GPU's ({} counts a GPU's "
                       "requests), the {} serve {} × as many; {}",
                       opts.flag("--dp"), dp, opts.flag("--enable-dp-attention"), dp,
                       latent ? "caches the whole latent of its requests"
                              : "caches every KV head of its requests",
                       opts.flag("--batch"), dp, dp, requests);
  }
  const dp_attention_layout layout = sglang_dp_layout(opts, s);
  const std::string embedding = layout.embedding == dp_embedding::whole ? std::string{"the embedding whole"}
                                : layout.embedding == dp_embedding::attention_group
                                    ? fmt::format("1/{} of the embedding", attention_tp)
                                    : fmt::format("1/{} of the embedding", opts.tp);
  return fmt::format("DP attention ({} {} {}): {} ranks of {} GPUs, each running attention for its own "
                     "requests with its own pool; each GPU holds 1/{} of the attention projections and {}, "
                     "which the weights per device count, and caches {} of its rank's requests: the tokens "
                     "and users shown are one rank's ({} counts a rank's requests), the {} ranks serve {} × "
                     "as many; {}",
                     opts.flag("--dp"), dp, opts.flag("--enable-dp-attention"), dp, attention_tp,
                     attention_tp, embedding,
                     latent ? std::string{"the whole latent"}
                            : fmt::format("1/{} of the KV heads (at least one)", attention_tp),
                     opts.flag("--batch"), dp, dp, requests);
}

/// A --max-running-requests SGLang lowers (engines/sglang_requests.hpp): to its estimate from the pool in 0.5.10rc0 –
/// 0.5.13.post1, to half the pool's tokens from 0.5.14. The capacity already takes it; a note says why.
void note_sglang_requests_cap(const options& opts, sizing& s) {
  namespace sglang = kvsize::engines::sglang;
  if (s.engine != engine_kind::sglang || !opts.max_running_requests || !s.capacity) {
    return;
  }
  const std::uint64_t given = sglang::given_requests_per_rank(s.engine_opts);
  const kvsize::engine_capacity& c = s.capacity->figures;
  if (c.max_running_requests >= given) {
    return;
  }
  const bool half_pool = sglang::at_least(sglang::version_of(s.engine_opts), sglang::given_half_pool_cap_since);
  const std::string asked =
      given == *opts.max_running_requests
          ? fmt::format("the {} of {}", grouped(given), opts.flag("--max-running-requests"))
          : fmt::format("the {} ({} // {}) that {} gives each DP-attention rank", grouped(given),
                        grouped(*opts.max_running_requests),
                        sglang::attention_dp(s.engine_opts, s.engine_opts.sglang.sparse_index),
                        opts.flag("--max-running-requests"));
  s.notes.push_back(fmt::format(
      "SGLang {} runs at most {} requests{}, not {}: {} ({})", sglang_release_words(s.engine_opts),
      grouped(c.max_running_requests), given == *opts.max_running_requests ? "" : " a rank", asked,
      half_pool ? fmt::format("half the pool's {} tokens", grouped(c.max_tokens))
                : std::string{"its estimate from the pool, min(max(int(tokens / context_len · 512), 2,048), 4,096)"},
      half_pool ? "_resolve_max_num_reqs, resolve_max_num_reqs from 0.5.16; from 0.5.14"
                : "_resolve_max_num_reqs, 0.5.10rc0 – 0.5.13.post1"));
}

/// 0.5.18+ keeps SGLANG_VLM_CACHE_SIZE_MB of a multimodal model's KV budget for the embedding cache
/// (engines::sglang::multimodal_reserve): a note, since no flag of SGLang's names it. Not where the budget is not
/// SGLang's rule (--kv-memory, or no device).
void note_sglang_mm_reserve(const options& opts, sizing& s, const engine_options& o) {
  namespace sglang = kvsize::engines::sglang;
  const kvsize::bytes reserve = sglang::multimodal_reserve(o.sglang.vlm, sglang::version_of(o));
  if (reserve == kvsize::bytes{0} || opts.kv_memory || (!opts.gpu && !opts.gpu_memory)) {
    return;
  }
  // No release named: the rule's range (0.5.15-0.5.19), of which kvsize takes the newest.
  const std::string release =
      o.sglang.version ? sglang_release_words(o) : std::string{"0.5.18 and later (kvsize's default, 0.5.19)"};
  s.notes.push_back(fmt::format(
      "SGLang {} keeps {} of the KV budget for a multimodal model's embedding cache (SGLANG_VLM_CACHE_SIZE_MB; "
      "mem_cache/kv_cache_configurator.py mm_runtime_reservation_gb, from 0.5.18), on top of what {}{} leaves out; a GPU "
      "feature transport (--mm-feature-transport cuda_ipc or cuda_vmm, not the default on one node) would keep "
      "SGLANG_MM_FEATURE_CACHE_MB (1,024 MiB) more, which kvsize does not size",
      release, exact(reserve), opts.flag("--mem-fraction-static"),
      opts.mem_fraction_static ? " as given" : "'s default rule"));
}

/// SGLang's factor on a vision model's default fraction, or before 0.4.9 the ModelRunner's on the fraction it runs
/// with, in a note (the figures take both: sglang_fraction.hpp, budget_rule::engine_factor); and 0.5.18's reserve.
void note_sglang_vlm(const options& opts, sizing& s) {
  namespace sglang = kvsize::engines::sglang;
  if (s.engine != engine_kind::sglang) {
    return;
  }
  const engine_options o = engine_options_of(opts, s);
  note_sglang_mm_reserve(opts, s, o);
  const sglang::vlm_tower t = o.sglang.vlm;
  const sglang::release version = sglang::version_of(o);
  const std::string release_words = sglang_release_words(o);
  // No mm_disabled_models before 0.4.6: Gemma 3 (and Llama 4 in 0.4.5.post1 – post2) count as multimodal there.
  if (const double runner = sglang::runner_vlm_factor(t, version); runner != 1.0) {
    s.notes.push_back(fmt::format("SGLang {}'s ModelRunner multiplies the fraction it runs with by {}, a given one "
                                  "too, for a multimodal model (model_runner.py ModelRunner; server_args prints it "
                                  "unscaled): a device's budget takes it, the command line gives the fraction",
                                  release_words, fmt::format("{:.2f}", runner)));
    return;
  }
  const double factor = sglang::vlm_default_factor(t, version);
  if (factor == 1.0 || opts.mem_fraction_static) {
    return;
  }
  // A key config.json leaves out: SGLang's getattr reads the config class's attribute, getattr's default only where
  // the class has none (the Qwen towers' num_hidden_layers: their depth is `depth`); kvsize takes getattr's default.
  const bool qwen_tower = s.config.architecture.starts_with("Qwen");
  const auto absent_words = [&](const kvsize::hf::vision_size_key& key, bool layers) -> std::string {
    if (key.value) {
      return {};
    }
    if (key.malformed) {
      return " (not an integer from 1 to 16,777,216: kvsize takes getattr's default)";
    }
    return layers && qwen_tower ? " (absent: getattr's default; SGLang does not read `depth`)"
                                : " (absent: getattr's default, taken for the config class's own, which may differ)";
  };
  // 0.4.9 – 0.4.9.post2: a flat 0.90 in __post_init__ (PR #7748); then adjust_mem_fraction_for_vlm (PR #6881).
  const std::string source =
      !sglang::at_least(version, sglang::vlm_tower_factor_since)
          ? std::string{"server_args.py __post_init__"}
          : fmt::format("server_args.py adjust_mem_fraction_for_vlm: 0.95 × clamp(1 − 0.1 × (L·H² / (24·1,024²) − 1), "
                        "0.8, 1.05) with vision_config's num_hidden_layers L = {}{} and hidden_size H = {}{}",
                        t.layers, absent_words(s.config.vision_num_hidden_layers, true), t.hidden,
                        absent_words(s.config.vision_hidden_size, false));
  s.notes.push_back(fmt::format("SGLang {} multiplies its default mem_fraction_static by {} for a vision model ({}), "
                                "after rounding",
                                release_words, factor, source));
}

/// The DP flags the release refuses: --enable-dp-lm-head before it existed, and at dp 1 --enable-dp-attention before
/// 0.5.2 and --enable-dp-lm-head before 0.5.3rc0 (they assert there; later releases turn the flags off).
void check_sglang_dp_release(const options& opts, std::uint32_t dp) {
  namespace sglang = kvsize::engines::sglang;
  const engine_options o = sglang_options_of(opts);
  const sglang::release version = sglang::version_of(o);
  const auto refused = [&](std::string_view flag, const std::string& why) {
    return usage_error{fmt::format("{}: SGLang {} {}", opts.flag(flag), sglang_release_words(o), why)};
  };
  if (opts.enable_dp_lm_head && !sglang::at_least(version, sglang::dp_lm_head_since)) {
    throw refused("--enable-dp-lm-head", "has no such option (server_args.py, from 0.4.6.post4)");
  }
  if (opts.moe_dense_tp_size && !sglang::at_least(version, sglang_moe_dense_tp_size_since)) {
    throw refused("--moe-dense-tp-size", "has no such option (server_args.py, from 0.4.5.post2)");
  }
  if (opts.enable_dp_attention && !sglang::at_least(version, sglang::dp_attention_sets_dp_until) && dp != opts.tp) {
    throw refused("--enable-dp-attention",
                  fmt::format("sets dp to tp under it (server_args.py __post_init__: dp_size = tp_size), which kvsize "
                              "sizes only as given: add {} {}",
                              opts.flag("--dp"), opts.tp));
  }
  if (dp > 1) {
    return;
  }
  if (opts.enable_dp_attention && sglang::at_least(version, sglang::dp_attention_sets_dp_until) &&
      !sglang::at_least(version, sglang::dp_attention_off_at_dp_1_since)) {
    throw refused("--enable-dp-attention",
                  fmt::format("asserts a dp above 1 with it (server_args.py __post_init__: \"Please set a dp-size > "
                              "1\"; from 0.5.2 it turns the flag off at dp 1): give {} N or leave the flag out",
                              opts.flag("--dp")));
  }
  if (opts.enable_dp_lm_head && !sglang::at_least(version, sglang::dp_lm_head_off_at_dp_1_since)) {
    throw refused("--enable-dp-lm-head", "asserts DP attention with it, which is off at dp 1 (server_args.py; from "
                                         "0.5.3rc0 it turns this flag off at dp 1 too)");
  }
}

/// --dp and --enable-dp-attention under SGLang: kvsize sizes DP attention where SGLang's own assert tp % dp == 0
/// holds (exit 2 otherwise), for the model classes that read the attention-TP size, and not a
/// --max-running-requests SGLang would divide to nothing; a --dp without DP attention is replicas of the tp group,
/// one of which is sized (a note). Where the release sets dp = tp itself (a DSA model in 0.5.3rc2 – 0.5.5.post3),
/// the flags change nothing but the default fraction's reserve (a note).
void check_sglang_dp(const options& opts, sizing& s) {
  if (s.engine != engine_kind::sglang) {
    return;
  }
  const std::uint32_t dp = opts.dp.value_or(1);
  const bool release_sets_dp = sglang_dsa_sets_dp(opts, s);
  const bool forced = release_sets_dp && opts.tp > 1;
  const bool asked = sglang_dp_asked(opts, s);
  const std::uint32_t ranks = forced ? opts.tp : dp;
  if ((forced || asked) && opts.max_running_requests && *opts.max_running_requests < ranks) {
    throw usage_error{fmt::format("{} {}: under DP attention SGLang gives each of the {} ranks {} // {} = 0 requests",
                                  opts.flag("--max-running-requests"), *opts.max_running_requests, ranks,
                                  *opts.max_running_requests, ranks)};
  }
  check_sglang_dp_release(opts, dp);
  if (opts.moe_dense_tp_size && !sglang_moe_dense_whole(opts, s)) {
    s.notes.push_back(fmt::format("{} 1: config.json's architectures name no class whose file reads it in SGLang "
                                  "{} (deepseek_v2.py, glm4_moe.py, glm4_moe_lite.py, mimo_v2_flash.py, mimo_v2.py, "
                                  "ernie4.py, bailing_moe.py, llada2.py, sarvam_moe.py, minimax_m3.py, each from a "
                                  "release of its own): no effect",
                                  opts.flag("--moe-dense-tp-size"), sglang_release_words(sglang_options_of(opts))));
  }
  if (opts.enable_dp_lm_head && !forced && !asked) {
    if (dp > 1) {
      throw usage_error{fmt::format("{}: SGLang asserts DP attention with it (server_args.py "
                                    "_handle_data_parallelism): add {}",
                                    opts.flag("--enable-dp-lm-head"), opts.flag("--enable-dp-attention"))};
    }
    s.notes.push_back(fmt::format("{} at dp 1: SGLang turns it off with DP attention (server_args.py "
                                  "_handle_data_parallelism); kvsize sized the LM head over tp",
                                  opts.flag("--enable-dp-lm-head")));
  }
  if (release_sets_dp) {
    if (opts.dp || opts.enable_dp_attention) {
      s.notes.push_back(fmt::format("{}: SGLang {} sets DP attention at dp = tp for DeepSeek sparse attention over "
                                    "the flags given (server_args.py, PR #11061)",
                                    opts.dp ? opts.flag("--dp") : opts.flag("--enable-dp-attention"),
                                    sglang_release_words(sglang_options_of(opts))));
    }
    return;
  }
  if (!opts.dp && !opts.enable_dp_attention) {
    return;
  }
  if (!asked) {
    if (dp > 1) {
      s.notes.push_back(fmt::format("{} {} without {}: SGLang runs {} replicas of the {}-GPU group, each with its own "
                                    "weights, pool and requests; kvsize sizes one (the figures × {} for all)",
                                    opts.flag("--dp"), dp, opts.flag("--enable-dp-attention"), dp, opts.tp, dp));
    } else {
      s.notes.push_back(fmt::format("{} at dp 1: SGLang turns DP attention off (server_args.py "
                                    "_handle_data_parallelism, from 0.5.2) after its memory settings have reserved "
                                    "for it, which the default fraction counts; kvsize sized tensor-parallel attention",
                                    opts.flag("--enable-dp-attention")));
    }
    return;
  }
  if (opts.tp % dp != 0) {
    throw usage_error{fmt::format("{} {}: SGLang requires {} {} to be a multiple of it (server_args.py: "
                                  "tp_size % dp_size == 0)",
                                  opts.flag("--dp"), dp, opts.flag("--tp"), opts.tp)};
  }
  const bool known = architectures_hold_any(s, sglang_dp_attention_classes);
  if (!known) {
    throw usage_error{fmt::format("{}: kvsize models SGLang's DP attention for the model classes it builds with "
                                  "the attention-TP size (DeepSeek V2 / V3 / V3.2, GLM-4.5 / GLM-5, Qwen3, Qwen3-MoE, "
                                  "Qwen2-MoE, gpt-oss, Llama 4, Step-3.5, MiMo-V2-Flash); config.json's "
                                  "architectures name none of them",
                                  opts.flag("--enable-dp-attention"))};
  }
  s.notes.push_back(sglang_dp_note(opts, s, dp));
  if (opts.enable_dp_lm_head) {
    s.notes.push_back(fmt::format("{}: the LM head is split over a rank's {} GPU{} (ParallelLMHead "
                                  "use_attn_tp_group), not over tp, which the weights per device count",
                                  opts.flag("--enable-dp-lm-head"), opts.tp / dp, opts.tp / dp == 1 ? "" : "s"));
  }
}

void set_weights(const options& opts, sizing& s, std::vector<std::string>& stderr_warnings) {
  const model_spec& m = s.config.spec;
  std::optional<weights_format> format;
  if (opts.weights_dtype && s.config.checkpoint && s.config.checkpoint->as_loaded) {
    throw usage_error{fmt::format("{}: a GGUF file states its weights tensor by tensor; the option applies to a "
                                  "config.json", opts.flag("--weights-dtype"))};
  }
  if (opts.weights_dtype) {  // checked whatever follows: a bad value is exit 2 even where nothing reads it
    if (*opts.weights_dtype == "auto") {
      format = published_weights(default_weights_dtype(s.engine, s.dtype_facts));
    } else {
      format = parse_weights_format(*opts.weights_dtype);
      if (format && format->scheme == weights_scheme::nvfp4) {  // what it leaves unquantized, as the engine serves it
        format->unquantized = default_weights_dtype(s.engine, s.dtype_facts);
      }
    }
    if (!format) {
      throw usage_error{fmt::format("{}: unknown weights format '{}' (expected an element type such as bf16 or fp8, "
                                    "a GGUF preset such as q8_0, q4_0 or q4_K_M, or nvfp4)",
                                    opts.flag("--weights-dtype"), *opts.weights_dtype)};
    }
  }
  if (!s.config.weights_unknown_because.empty()) {  // a malformed key only the weights read: no formula stands
    // engine_log_lines leaves them out (engines_fmt.hpp); say why.
    if (!kvsize::engines::llama_cpp::compute_buffer_known(s.config.spec) && s.engine == engine_kind::llama_cpp) {
      s.notes.push_back("llama.cpp's compute buffer lines are left out: they read the MLP width, which is unknown "
                        "(the note above)");
    }
    s.parameters.reset();
    s.parameter_terms = parameter_breakdown{};
    stderr_warnings.push_back(fmt::format("{}; the weights are not counted (the KV cache is){}", weights_unknown_where(s),
                                          opts.weights_dtype ? fmt::format(", and {} has no effect",
                                                                           opts.flag("--weights-dtype"))
                                                             : std::string{}));
    return;
  }
  s.parameter_terms = parameters(m);
  s.parameters = s.parameter_terms.total;
  if (!opts.weights_dtype && s.config.checkpoint && s.config.checkpoint->as_loaded) {  // a GGUF file: its table
    const hf::checkpoint_weights& w = *s.config.checkpoint;
    if (!w.unknown_because.empty()) {
      s.parameters.reset();
      s.parameter_terms = parameter_breakdown{};
      s.notes.push_back("weights: " + w.unknown_because);
      return;
    }
    s.weights_format = w.format.empty() ? w.source : fmt::format("{} ({})", w.format, w.source);
    s.weights = bytes{w.bytes};
    s.parameters = w.parameters;
    s.parameter_terms = parameter_breakdown{};  // the formula's terms do not apply: the table is the count
    s.parameter_terms.total = w.parameters;
    s.parameter_terms.active = w.active_parameters;
    return;
  }
  if (opts.weights_dtype) {
    // the option's format, read above
  } else if (s.config.quantization) {
    format = s.config.quantization->format;
    if (!format) {
      s.notes.push_back(fmt::format("weights: quantization_config ({}) is a scheme kvsize does not size; pass "
                                    "--weights-dtype to size the weights",
                                    s.config.quantization_method.value_or("?")));
    }
  } else {  // unquantized: the dtype the engine loads it in (vLLM serves a float32 config in bf16)
    format = published_weights(default_weights_dtype(s.engine, s.dtype_facts));
  }
  if (format) {
    s.weights_format = weights_format_name(*format);
    s.weights_shares = weights_split_of(m, *format, sglang_dp_layout(opts, s));
    s.weights = s.weights_shares->total();
    s.formula_format = format;
  }
  compare_checkpoint(s);
}

/// The device the request is for (--gpu, --gpu-memory, --bandwidth), when one is given: the engines'
/// memory-dependent defaults read its memory.
auto device_of(const options& opts, std::vector<std::string>& stderr_warnings) -> device_choice {
  device_choice d;
  if (opts.gpu) {
    const auto g = find_gpu(*opts.gpu);
    if (!g) {
      // The catalog's ids that start with what was typed ("h100" → h100-80gb, h100-nvl, h100-pcie): the variants
      // differ in memory, so none is taken for the user.
      std::string ids;
      std::string variants;
      std::size_t variant_count = 0;
      for (const auto& entry : gpu_catalog) {
        ids += fmt::format("{}{}", ids.empty() ? "" : ", ", entry.id);
        if (!opts.gpu->empty() && gpu_id_starts_with(entry.id, *opts.gpu)) {
          variants += fmt::format("{}{}", variants.empty() ? "" : ", ", entry.id);
          ++variant_count;
        }
      }
      // One entry that starts so ("mi250" → mi250x) may be another board: asked, not taken.
      const std::string which = variant_count == 0 ? std::string{}
                                : variant_count == 1
                                    ? fmt::format(": did you mean {}?", variants)
                                    : fmt::format(": name one of {}, which differ in memory", variants);
      throw usage_error{fmt::format("{}: unknown GPU '{}'{} (known: {}; or give --gpu-memory SIZE)",
                                    opts.flag("--gpu"), *opts.gpu, which, ids)};
    }
    // The total CUDA/HIP reports to a process (cudaMemGetInfo), which every engine budgets from:
    // vLLM's and SGLang's total_gpu_memory, llama.cpp's device memory. nvidia-smi's total is
    // 450-900 MiB higher (the driver's own reservation; docs/research/gpu-catalog.md).
    d.memory = g->process_visible_memory();
    d.a100 = g->id.starts_with("a100");  // vLLM gives A100s its small-device batch defaults
    d.rocm = g->name.starts_with("AMD ");
    d.gfx950 = g->id == "mi355x";  // fp8 is e4m3fn there, e4m3fnuz on the MI300X / MI325X (gfx94x)
    d.compute_capability = g->compute_capability;
    d.reported_memory = g->memory;
    d.bandwidth = g->bandwidth;
    d.source = fmt::format("{} (--gpu {})", g->name, g->id);
  } else if (opts.gpu_memory) {
    d.memory = size_option(opts.flag("--gpu-memory"), *opts.gpu_memory);
    d.source = fmt::format("{} {}", opts.flag("--gpu-memory"), *opts.gpu_memory);
  }
  if (opts.bandwidth) {  // the device's own figure, e.g. a clocked-down or a different-memory part
    d.bandwidth = bandwidth_option(opts.flag("--bandwidth"), *opts.bandwidth);
    if (!d.memory) {
      stderr_warnings.push_back("--bandwidth has no effect without --gpu or --gpu-memory (it times the plan's decode step)");
    }
  }

  return d;
}

/// --kv-memory, which must fit on the device it is for.
auto kv_memory_of(const options& opts, const device_choice& d) -> std::optional<bytes> {
  std::optional<bytes> kv_memory;
  if (opts.kv_memory) {
    kv_memory = size_option(opts.flag("--kv-memory"), *opts.kv_memory);
    if (d.memory && *kv_memory > *d.memory) {
      throw usage_error{fmt::format("{} {} ({} B) is more than the device holds ({}: {} B); the KV cache lives on "
                                    "the device",
                                    opts.flag("--kv-memory"), *opts.kv_memory, kv_memory->count(), d.source,
                                    d.memory->count())};
    }
  }
  return kv_memory;
}

/// The note on a DeepSeek-sparse-attention model under vLLM with no device known, where the GPU decides what serves
/// it (engines::vllm::sparse_mla_choice_of): a float16 model, which only a B200 / GB200 runs (that device taken), or
/// an fp8 cache under 0.18+, whose layout follows the GPU (Hopper's taken unless only SM100's backend takes it).
/// Empty where there is nothing to say.
auto sparse_mla_note(const sizing& s) -> std::string {
  namespace vllm = kvsize::engines::vllm;
  const engine_options& o = s.engine_opts;
  const model_spec& m = s.config.spec;
  const bool fp8 = is_fp8(s.kv.k);
  const std::uint32_t release = vllm::release_of(o);
  if (s.engine != engine_kind::vllm || m.latent.index_head_dim == 0 || o.vllm.fp8_ds_mla ||
      o.vllm.compute_capability != 0 || o.vllm.rocm) {
    return {};
  }
  const bool float16 = vllm::serving_dtype(kvsize::dtype_facts(m, o)) == dtype::f16;
  const vllm::sparse_mla_choice assumed = vllm::sparse_mla_of(m, o);  // on the device the rule assumes
  if (float16 && assumed.refusal.empty()) {
    return fmt::format("KV cache: vLLM {} runs a float16 DeepSeek-sparse-attention model on a B200 or GB200 only "
                       "(FLASHINFER_MLA_SPARSE{}), the device assumed; Hopper's FLASHMLA_SPARSE runs bfloat16 models "
                       "(--dtype bfloat16)",
                       vllm::release_name(release), fp8 ? ", in plain 576-byte fp8 latent rows" : "");
  }
  if (!fp8 || release < vllm::sparse_mla_by_backend_since) {
    return {};
  }
  engine_options on_b200 = o;
  on_b200.vllm.compute_capability = 100;
  if (const auto b200 = vllm::sparse_mla_of(m, on_b200); !b200.refusal.empty() || b200.fp8_ds_mla) {
    return {};  // a B200 keeps the layout Hopper does, or serves nothing: the device changes no figure
  }
  if (!assumed.fp8_ds_mla) {  // only SM100's backend takes the checkpoint's fp8_e4m3
    return fmt::format("KV cache: vLLM {} keeps this checkpoint's fp8 cache (fp8_e4m3 at auto) as a plain 576-byte "
                       "latent row on a B200 or GB200 (FLASHINFER_MLA_SPARSE), the device assumed; Hopper's "
                       "FLASHMLA_SPARSE refuses fp8_e4m3 ({} fp8 names it as Hopper takes it, in 656-byte rows)",
                       vllm::release_name(release), "--kv-dtype");
  }
  return fmt::format("KV cache: vLLM {} keeps DeepSeek sparse attention's fp8 latent in the fp8_ds_mla layout (656 B "
                     "a token and layer) on Hopper, the device assumed; on a B200 or GB200 (--gpu b200) it keeps a "
                     "plain 576-byte fp8 row",
                     vllm::release_name(release));
}

/// SGLang counts a DeepSeek-sparse-attention pool's tokens at fewer bytes a token than it allocates (before 0.5.17,
/// engines/sglang_dsa.hpp): what its pool then takes beyond the budget. Empty where it counts what it allocates.
auto sglang_counted_cell_note(const sizing& s) -> std::string {
  if (s.engine != engine_kind::sglang || !s.capacity || s.cache.part_count == 0 ||
      s.cache.part(0).counted_per_token.count() == 0) {
    return {};
  }
  const kvsize::cache_part& full = s.cache.part(0);
  const engine_capacity& c = s.capacity->figures;
  const bytes counted = full.counted_per_token * (c.max_tokens + s.cache.block_size);
  const bytes over = kvsize::detail::saturating_sub(c.allocated, counted);
  return fmt::format("KV cache: SGLang {} counts DeepSeek sparse attention's pool at {} B a token and allocates "
                     "{} B (its count leaves out the indexer's keys until 0.5.3.post1, and DeepSeek's 656-byte fp8 rows, "
                     "counted at 576, until 0.5.17; engines/sglang_dsa.hpp): the pool of "
                     "{} tokens takes {} ({} B) more than that count, out of the memory mem_fraction_static leaves "
                     "outside the pool",
                     sglang_release_words(s.engine_opts), grouped(full.counted_per_token.count()),
                     grouped(full.bytes_per_token.count()), grouped(c.max_tokens), over, grouped(over.count()));
}

/// SGLang's aiter factor on an AMD GPU (engines/sglang_aiter.hpp), in a note: the figures take it, the command line
/// gives the fraction before it.
void note_sglang_aiter(sizing& s) {
  namespace sglang = kvsize::engines::sglang;
  if (s.engine != engine_kind::sglang) {
    return;
  }
  const double factor = sglang::aiter_factor(s.engine_opts);
  if (factor == 1.0) {
    return;
  }
  const kvsize::budget_rule rule = kvsize::sglang_engine::budget(s.engine_opts);
  const bool in_runner = !sglang::at_least(sglang::version_of(s.engine_opts), sglang::aiter_factor_0_90_since);
  s.notes.push_back(fmt::format(
      "SGLang {} on an AMD GPU multiplies mem_fraction_static, a given one too, by {} where its attention backend is "
      "aiter (its default here) and the context is above 8,192 tokens ({}): the pool is sized at {} × {} = {}{}; an "
      "--attention-backend other than aiter would leave the factor out",
      sglang_release_words(s.engine_opts), factor,
      in_runner ? "model_runner.py ModelRunner.model_specific_adjustment, on the runner's copy: server_args prints "
                  "the value unscaled"
                : "server_args.py _handle_attention_backend_compatibility, on the value server_args prints",
      kvsize::fraction_text(rule), rule.engine_factor, rule.sized_fraction(),
      rule.engine_factor == factor ? "" : " (with the runner's factor for a multimodal model)"));
}

/// The engine's options and its sizing of the cache on one device.
void size_request(const options& opts, sizing& s, const device_choice& d, const workspace_overrides& overrides) {
  const model_spec& m = s.config.spec;
  s.engine_opts = engine_options_of(opts, s);
  s.reasoning_parser = opts.reasoning_parser.value_or("");
  s.engine_opts.engine_overhead = overrides.runtime.value_or(bytes{0});  // --reserve: outside the KV budget
  if (d.memory) {
    s.engine_opts.device_memory = *d.memory;
  }
  s.engine_opts.vllm.a100 = d.a100;
  s.engine_opts.vllm.rocm = d.rocm;
  s.engine_opts.vllm.compute_capability = d.compute_capability;
  s.engine_opts.sglang.rocm = d.rocm;
  s.engine_opts.sglang.gfx950 = d.gfx950;
  s.engine_opts.sglang.compute_capability = d.compute_capability;
  s.engine_opts.sglang.reported_memory = d.reported_memory.value_or(bytes{0});
  note_sglang_aiter(s);
  s.layer_split_heaviest = heaviest_gpu_weights(s);
  if (opts.flash_attn && reads_knob(s.engine, engine_knob::flash_attn) && flash_attn_option(opts) == "off") {
    s.engine_opts.llama_cpp.flash_attn = false;  // the compute buffer holds the KQ scores
  }
  try {
    s.cache = size_cache(m, s.engine, s.engine_opts);
  } catch (const kvsize::invalid_argument& e) {
    // The engine cannot hold this configuration (e.g. a GGML cache type in vLLM, --pp > layers).
    throw usage_error{fmt::format("--engine {}: {}", name(s.engine), refusal(e))};
  }
  if (std::string note = sparse_mla_note(s); !note.empty()) {
    s.notes.push_back(std::move(note));
  }

  // An engine that shares its context over slots (llama.cpp: -c over -np) gives a sequence less than
  // the context; a shared prefix must fit in that (the prefix ≤ context check above covers the rest).
  if (const std::uint64_t held = s.cache.tokens_per_sequence(); opts.shared_prefix && *opts.shared_prefix > held) {
    throw usage_error{fmt::format("{} {} is longer than a {} slot: {} shares {} cells over {} slots, {} each",
                                  opts.flag("--shared-prefix"), *opts.shared_prefix, display_name(s.engine),
                                  context_given(opts, s.context), s.cache.context, s.cache.context / held, held)};
  }
}

/// vLLM 0.20 – 0.22's CUDA-graph estimate: a budget from the device needs it (--cuda-graph-memory), or needs
/// to know it is 0 (--enforce-eager, an AMD GPU, 0.22's Model Runner V2); before 0.20 --cuda-graph-memory
/// changes nothing.
void check_cuda_graph_term(const options& opts, const sizing& s, const device_choice& d,
                           std::vector<std::string>& warnings) {
  namespace vllm = kvsize::engines::vllm;
  if (s.engine != engine_kind::vllm) {
    return;  // warn_unused_knobs has said that the options have no effect
  }
  const std::uint32_t release = vllm::release_of(s.engine_opts);
  for (const auto& [given, flag] : {std::pair{opts.model_runner.has_value(), "--model-runner"},
                                    std::pair{opts.reasoning_parser.has_value(), "--reasoning-parser"}}) {
    if (given && !vllm::chooses_model_runner(s.engine_opts)) {
      warnings.push_back(fmt::format("{} has no effect under vLLM {}: releases before 0.22 have one model runner",
                                     opts.flag(flag), vllm::release_name(release)));
    }
  }
  if (opts.cuda_graph_memory && release < vllm::graph_estimate_since) {
    warnings.push_back(fmt::format("{} has no effect under vLLM {}: releases before 0.20 log the CUDA-graph estimate "
                                   "but do not subtract it (give {} 0.20, 0.21 or 0.22 for a release that does)",
                                   opts.flag("--cuda-graph-memory"), vllm::release_name(release),
                                   opts.flag("--engine-version")));
  }
  if (const std::string_view why = vllm::forced_model_runner_v2_refusal(s.config.spec, s.engine_opts); !why.empty()) {
    throw usage_error{fmt::format("{} v2: {}", opts.flag("--model-runner"), why)};
  }
  if (vllm::uses_model_runner_v2(s.config.spec, s.engine_opts)) {  // profile_cudagraph_memory returns 0 on V2
    if (opts.cuda_graph_memory) {
      warnings.push_back(fmt::format("{} has no effect on vLLM 0.22's Model Runner V2, which subtracts no CUDA-graph "
                                     "estimate (pass {} v1 for the V1 runner)",
                                     opts.flag("--cuda-graph-memory"), opts.flag("--model-runner")));
    }
    return;
  }
  if (d.memory && !opts.kv_memory && !vllm::cuda_graph_refusal(s.engine_opts).empty()) {
    throw usage_error{fmt::format(
        "{} {}: vLLM {} subtracts from the KV budget a CUDA-graph estimate that it measures by capturing graphs, "
        "which a config cannot give (docs/research/vllm-cudagraph-estimate.md); pass {} (vLLM's own flag: no "
        "graphs, no estimate), or {} SIZE with the \"Estimated CUDA graph memory\" of a start-up log of the same "
        "model, device and flags, or {} 0.19",
        opts.flag("--engine-version"), opts.engine_version.value_or(""), vllm::release_name(release),
        opts.flag("--enforce-eager"),
        opts.flag("--cuda-graph-memory"), opts.flag("--engine-version"))};
  }
}

/// The per-token figures beside the engine's: the cache without sharing (the stage's layers, heads
/// split over tensor-parallel ranks), the GQA ratio, and logits in the dtype the engine computes in.
void set_per_token_figures(const options& opts, sizing& s, const model_spec& served) {
  const model_spec& m = s.config.spec;
  bytes mha{0};
  for (std::uint32_t il = s.cache.first_layer; il < s.cache.first_layer + s.cache.stage_layers; ++il) {
    mha += layer_kv_bytes_per_token_mha(m, il, s.kv);
  }
  // Heads over the ranks that share a request's attention: tp, or tp / dp under SGLang's DP attention.
  const bool dp_attention =
      s.engine == engine_kind::sglang && kvsize::engines::sglang::attention_dp_of(m, s.engine_opts) > 1;
  s.kv_per_token_mha = mha / (dp_attention ? kvsize::engines::sglang::attention_tp_of(m, s.engine_opts) : opts.tp);
  s.gqa_ratio = gqa_ratio(m);
  s.logits_per_token = logits_bytes_per_token(served);
  s.logits_prefill = logits_bytes_prefill(served, s.context);
}

/// SGLang's aiter factor (engines/sglang_aiter.hpp) shrinks the budget above 8,192 tokens of context, so the longest
/// context that fits is not one budget's: it is the scaled budget's where that reaches past 8,192, else the unscaled
/// budget's up to 8,192. `max_context` (the search at the report's own budget) is replaced where the factor changes
/// at the step.
void sglang_max_context_across_aiter(sizing& s, const model_spec& served, bytes device_memory,
                                     bytes weights_per_device, const workspace_overrides& overrides,
                                     std::uint64_t limit, std::uint64_t& max_context) {
  namespace sglang = kvsize::engines::sglang;
  if (s.engine != engine_kind::sglang) {
    return;
  }
  engine_options short_context = s.engine_opts;
  short_context.context = sglang::aiter_long_context;
  engine_options long_context = s.engine_opts;
  long_context.context = sglang::aiter_long_context + 1;
  if (sglang::aiter_factor(short_context) == sglang::aiter_factor(long_context)) {
    return;
  }
  const model_spec& m = s.config.spec;
  const auto longest = [&](const engine_options& o, std::uint64_t up_to) {
    const bytes budget = fit_on_device(served, s.engine, s.cache, o, device_memory, weights_per_device, overrides).budget.kv;
    return max_context_in_budget(m, s.engine, o, budget, s.batch, up_to, s.cache);
  };
  const std::uint64_t scaled = longest(long_context, limit);
  const std::uint64_t across = scaled > sglang::aiter_long_context
                                   ? scaled
                                   : longest(short_context, std::min<std::uint64_t>(limit, sglang::aiter_long_context));
  if (across != max_context) {
    s.notes.push_back(fmt::format("max context: {} tokens, with the budget SGLang sizes above 8,192 tokens of context "
                                  "on this AMD GPU (mem_fraction_static × {}, the aiter factor) where this "
                                  "context's budget would give {}",
                                  grouped(across), sglang::aiter_factor(long_context), grouped(max_context)));
  }
  max_context = across;
}

/// The KV budget on one device and what fits in it: --kv-memory, or the engine's rule applied to the
/// device after weights and the workspace (`served`: the model in the dtype the engine computes in).
auto capacity_figures_of(const options& opts, sizing& s, const device_choice& d, std::optional<bytes> kv_memory,
                         const model_spec& served, const workspace_overrides& overrides) -> capacity_figures {
  const model_spec& m = s.config.spec;
  capacity_figures c;
  if (opts.kv_memory) {
    c.kv_budget = *kv_memory;
    c.source = fmt::format("{} {}", opts.flag("--kv-memory"), *opts.kv_memory);
    c.device_memory = d.memory;
  } else {
    c.device_memory = d.memory;
    c.source = d.source;
    if (!s.weights) {
      throw usage_error{fmt::format("{}: the weights of this model {}, so the memory left for the KV cache is "
                                    "unknown; give {} SIZE instead",
                                    opts.gpu ? opts.flag("--gpu") : opts.flag("--gpu-memory"), weights_unknown_words(s),
                                    opts.flag("--kv-memory"))};
    }
    // Weights shared out as tensor parallelism does (weights_split: what each rank holds whole, the rest split)
    // and evenly over the pp stages (embeddings and LM head make the first and last stage a little heavier in
    // reality); or, for llama.cpp's layer split, its heaviest GPU's.
    const std::uint32_t tp = s.engine_opts.tp;
    const std::uint32_t pp = s.engine_opts.pp;
    const std::optional<weights_split> shares = s.tensor_parallel_shares();
    c.weights_per_device = shared_weights_per_device(*s.weights, shares, tp, pp);
    if (shares && tp > 1) {
      c.weights_whole_per_device = shares->whole_per_rank(tp) / pp;
    }
    if (const auto heaviest = s.layer_split_heaviest) {
      c.weights_whole_per_device.reset();
      c.weights_per_device = *heaviest;
      s.notes.push_back(fmt::format("weights per device: llama.cpp's layer split puts {} on its heaviest GPU (every "
                                    "slot offloaded; token_embd on the host); the sections above size it with the "
                                    "cache of the GPU that holds the most layers, an upper bound where they differ",
                                    *heaviest));
    }
    c.weights_fit = weights_fit(*d.memory, *c.weights_per_device);
    // One budget per device: the engine's rule after its workspace, from the sizing above; the
    // plan's point and the log lines read the same figures.
    // `served`: the workspace in the dtype the engine computes in, as the plan's.
    const device_fit fit = fit_on_device(served, s.engine, s.cache, s.engine_opts, *d.memory,
                                         *c.weights_per_device, overrides);
    c.kv_budget = fit.budget.kv;
    c.figures = fit.capacity;
    c.startup = fit.startup;
    if (s.engine == engine_kind::vllm) {
      s.notes.push_back(fmt::format(
          "the vllm budget is vLLM {}'s start-up rule (gpu_worker.py determine_available_memory): "
          "gpu_memory_utilization × device − (weights as loaded + the profile run's peak + non-torch "
          "memory){}, each term estimated from the config (docs/research/vllm-budget.md gives the error on "
          "public logs); --engine-version picks another release. For an exact match with a log, pass the "
          "KV memory it reports as --kv-memory",
          fit.startup.engine_version,
          kvsize::engines::vllm::release_of(s.engine_opts) >= kvsize::engines::vllm::graph_estimate_since
              ? " − the CUDA-graph estimate (--cuda-graph-memory; 0 with --enforce-eager, on ROCm or on Model "
                "Runner V2)"
              : ""));
    } else if (is_engine(s.engine)) {
      s.notes.push_back(fmt::format(
          "the {} budget here is its rule applied to device memory minus weights and the workspace of the "
          "plan (kvsize's estimate of what the engine measures at start-up: activation peak, logits, "
          "sampler, runtime); CUDA graphs and non-torch memory a config cannot tell. For an exact match with "
          "a log, pass the KV memory it reports as --kv-memory",
          name(s.engine)));
    }
  }
  if (opts.kv_memory) {
    c.figures = capacity_of(s.engine, s.cache, s.engine_opts, c.kv_budget);
  }
  const std::uint64_t limit = std::max<std::uint64_t>(s.model_context, s.context);
  c.max_context = max_context_in_budget(m, s.engine, s.engine_opts, c.kv_budget, s.batch, limit, s.cache);
  if (!opts.kv_memory && d.memory && c.weights_per_device) {
    sglang_max_context_across_aiter(s, served, *d.memory, *c.weights_per_device, overrides, limit, c.max_context);
  }
  return c;
}

}  // namespace

namespace {

/// --max-model-len auto after the first pass (at the derived length `s.context`): vLLM's fit is the longest
/// max_model_len, at most the derived one, whose one request fits the budget (kv_cache_utils.py
/// _auto_fit_max_model_len; max_context_in_budget for 1 sequence); "not enough GPU memory available to serve even a
/// single token" is vLLM's refusal. A shorter fit is sized again, the workspace still at the derived length; none
/// (nullopt, `s` marked auto_fit_failed) where the weights or not one token fit.
auto auto_fit_pass(const options& opts, sizing& s, const model_spec& served, std::vector<std::string>& stderr_warnings,
                   std::size_t warnings_before, hf::parsed_config config) -> std::optional<sizing> {
  if (!s.capacity) {
    throw usage_error{fmt::format("{} auto needs the KV budget of a device", opts.flag("--context-auto"))};
  }
  const std::uint64_t derived = s.context;
  const std::uint64_t fitted =
      s.capacity->weights_fit
          ? max_context_in_budget(served, engine_kind::vllm, s.engine_opts, s.capacity->kv_budget, 1, derived, s.cache)
          : 0;
  if (fitted == 0) {
    // The weights do not fit (vLLM stops loading them), or not one token does ("Cannot auto-fit max_model_len: not
    // enough GPU memory available to serve even a single token"): the report at the derived length says so.
    s.auto_fit_from = derived;
    s.auto_fit_failed = true;
    return std::nullopt;
  }
  options refit = opts;
  refit.fitted_context = fitted;
  stderr_warnings.resize(warnings_before);  // the second pass says them again
  sizing r = compute_sizing(refit, stderr_warnings, std::move(config));
  r.auto_fit_from = derived;
  if (opts.batch > 1) {
    r.notes.push_back(fmt::format("{} auto fits one request of the context (vLLM's fit); the {} users of {} share "
                                  "the budget at that length",
                                  opts.flag("--context-auto"), opts.batch, opts.flag("--batch")));
  }
  return r;
}

}  // namespace

auto compute_sizing(const options& opts, std::vector<std::string>& stderr_warnings) -> sizing {
  (void)engine_option(opts);  // an unknown engine is refused before the file is read
  return compute_sizing(opts, stderr_warnings, load_model(opts.config_path));
}

auto compute_sizing(const options& opts, std::vector<std::string>& stderr_warnings, hf::parsed_config config)
    -> sizing {
  const engine_kind engine = engine_option(opts);
  if (opts.gpu_memory && opts.gpu) {
    throw usage_error{fmt::format("{} and {} both give the device's memory; pass one of them", opts.flag("--gpu"),
                                  opts.flag("--gpu-memory"))};
  }
  // --max-model-len auto sizes twice: the second pass starts from the config as read, and says the warnings again.
  std::optional<hf::parsed_config> original =
      opts.context_auto && !opts.fitted_context ? std::optional{config} : std::nullopt;
  const std::size_t warnings_before = stderr_warnings.size();
  warn_unused_knobs(opts, engine, stderr_warnings);
  check_block_size(opts, engine);

  sizing s;
  s.config = std::move(config);
  s.config_path = opts.config_path == "-" ? "<stdin>" : opts.config_path;  // as load_config names it
  s.engine = engine;
  s.stored_dtype = s.config.spec.compute_dtype;
  s.config.spec.compute_dtype = model_dtype_option(opts, s.config.spec.compute_dtype);
  const model_spec& m = s.config.spec;
  if (engine == engine_kind::llama_cpp) {  // another engine only warns that -ts has no effect
    s.tensor_split = parse_tensor_split(opts);
  }
  check_parallel_split(opts, m, engine, s.tensor_split);
  check_sglang_dp(opts, s);
  note_sglang_vlm(opts, s);

  const device_choice device = device_of(opts, stderr_warnings);
  set_cache_types(opts, s, device);
  set_context(opts, s, stderr_warnings);
  check_attention_and_offload(opts, s);
  set_weights(opts, s, stderr_warnings);
  const workspace_overrides overrides = workspace_overrides_of(opts);
  const std::optional<bytes> kv_memory = kv_memory_of(opts, device);
  size_request(opts, s, device, overrides);
  check_cuda_graph_term(opts, s, device, stderr_warnings);
  if (s.engine == engine_kind::vllm && kvsize::engines::vllm::uses_model_runner_v2(s.config.spec, s.engine_opts)) {
    s.notes.push_back(fmt::format(
        "vLLM {} runs this model on Model Runner V2 ({}: vllm/config/vllm.py use_v2_model_runner): its profile "
        "samples without top-k/top-p and subtracts no CUDA-graph estimate; {} v1 gives the V1 runner "
        "(VLLM_USE_V2_MODEL_RUNNER=0)",
        kvsize::engines::vllm::release_name(kvsize::engines::vllm::release_of(s.engine_opts)),
        opts.model_runner == "v2" ? "--model-runner v2"
                                  : "an unquantized dense Qwen3ForCausalLM served without a reasoning parser",
        opts.flag("--model-runner")));
  }
  model_spec served = m;  // activations and logits in the dtype the engine computes in
  served.compute_dtype = serving_dtype(s.engine, s.dtype_facts);
  set_per_token_figures(opts, s, served);
  if (device.memory || kv_memory) {
    s.capacity = capacity_figures_of(opts, s, device, kv_memory, served, overrides);
    if (std::string note = sglang_counted_cell_note(s); !note.empty()) {
      s.notes.push_back(std::move(note));
    }
    note_sglang_requests_cap(opts, s);
  }
  if (original) {
    if (std::optional<sizing> fitted = auto_fit_pass(opts, s, served, stderr_warnings, warnings_before,
                                                     std::move(*original))) {
      return std::move(*fitted);
    }
  }
  compute_plan(opts, s, served, device.memory, device.bandwidth, device.source, overrides);
  compute_offload(opts, s, device.memory, stderr_warnings);
  return s;
}

}  // namespace kvsize::cli
