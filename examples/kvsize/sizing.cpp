// SPDX-License-Identifier: MIT
// kvsize command line: from options and config.json to figures (the exact engine).
#include "sizing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>

#include <kvsize/fmt.hpp>

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

auto size_option(std::string_view flag, const std::string& text) -> bytes {
  if (const auto b = parse_size(text)) {
    return *b;
  }
  throw usage_error{fmt::format("{}: '{}' is not a size (expected a number with a unit: B, KiB, MiB, GiB, TiB, "
                                "kB, MB, GB, TB, e.g. 24GiB or 12.49GB)",
                                flag, text)};
}

/// --bandwidth RATE: a size per second, "936GB/s" or "3.35TB/s" ("/s" may be left out), as bytes per
/// second. Positive, and whole bytes: "1.5B/s" is refused like any fractional byte count.
auto bandwidth_option(const std::string& text) -> std::uint64_t {
  std::string_view size = text;
  if (size.ends_with("/s")) {
    size.remove_suffix(2);
  }
  const auto rate = parse_size(size);
  if (!rate || rate->count() == 0) {
    throw usage_error{fmt::format("--bandwidth: '{}' is not a positive rate (expected a size per second: a number "
                                  "with a unit and '/s', e.g. 936GB/s or 3.35TB/s)",
                                  text)};
  }
  return rate->count();
}

/// How a weights format reads in the report and in JSON: "bf16", "q4_K_M", "gptq-4bit-g128", ...
auto weights_format_name(const weights_format& f) -> std::string {
  switch (f.scheme) {
    case weights_scheme::uniform: return std::string{name(f.type)};
    case weights_scheme::gguf: return std::string{name(f.gguf)};
    case weights_scheme::gptq: return fmt::format("gptq-{}bit-g{}", f.bits, f.group_size);
    case weights_scheme::awq: return fmt::format("awq-{}bit-g{}", f.bits, f.group_size);
    case weights_scheme::fp8: return fmt::format("fp8-block{}x{}", f.block_rows, f.block_cols);
    case weights_scheme::mxfp4: return "mxfp4";
    case weights_scheme::bnb_4bit: return f.double_quant ? "bnb-4bit-double-quant" : "bnb-4bit";
    case weights_scheme::bnb_8bit: return "bnb-8bit";
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
    w.runtime = size_option("--reserve", *opts.reserve);
  }
  if (opts.logits) {
    if (*opts.logits == "all") {
      w.logits_positions = logits_kept::all;
    } else if (*opts.logits == "last") {
      w.logits_positions = logits_kept::last;
    } else if (*opts.logits == "none") {
      w.logits_positions = logits_kept::none;
    } else {
      throw usage_error{fmt::format("--logits: expected all, last or none, got '{}'", *opts.logits)};
    }
  }
  if (opts.logits_f32) {
    w.logits_float32 = true;
  }
  if (opts.activations) {
    w.activations = size_option("--activations", *opts.activations);
  }
  if (opts.prefill_chunk) {
    w.activation_tokens = *opts.prefill_chunk;
  }
  if (opts.sampler) {
    w.sampler = size_option("--sampler", *opts.sampler);
  }
  return w;
}

}  // namespace

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

/// The engine knobs of the command line, on top of the engine's own defaults.
auto engine_options_of(const options& opts, const sizing& s) -> engine_options {
  engine_options o;
  o.context = s.context;
  o.batch = s.batch;
  o.kv = s.kv;
  o.tp = opts.tp;
  o.pp = opts.pp;
  o.block_size = opts.block_size.value_or(0);
  o.shared_prefix = opts.shared_prefix.value_or(0);
  o.max_num_batched_tokens = opts.max_num_batched_tokens.value_or(0);
  o.gpu_memory_utilization = opts.gpu_memory_utilization.value_or(0.9);
  o.mem_fraction_static = opts.mem_fraction_static.value_or(0.0);
  o.parallel = opts.parallel.value_or(1);
  o.ubatch = opts.ubatch.value_or(512);
  o.kv_unified = opts.kv_unified;
  o.swa_full = opts.swa_full;
  return o;
}

/// Knobs that only mean something to one engine: warn when they are given to another.
void warn_unused_knobs(const options& opts, engine_kind e, std::vector<std::string>& warnings) {
  struct knob {
    bool given;
    std::string_view flag;
    bool used;
  };
  const bool vllm = e == engine_kind::vllm;
  const bool sglang = e == engine_kind::sglang;
  const bool llama = e == engine_kind::llama_cpp;
  const bool paged = vllm || sglang || e == engine_kind::trtllm;
  const knob knobs[] = {
      {opts.block_size.has_value(), "--block-size", paged},
      {opts.max_num_batched_tokens.has_value(), "--max-num-batched-tokens", vllm},
      {opts.gpu_memory_utilization.has_value(), "--gpu-memory-utilization", vllm},
      {opts.mem_fraction_static.has_value(), "--mem-fraction-static", sglang},
      {opts.parallel.has_value(), "--parallel", llama},
      {opts.ubatch.has_value(), "--ubatch", llama},
      {opts.kv_unified, "--kv-unified", llama},
      {opts.swa_full, "--swa-full", llama},
  };
  for (const auto& k : knobs) {
    if (k.given && !k.used) {
      warnings.push_back(fmt::format("{} has no effect with --engine {}", k.flag, name(e)));
    }
  }
}

/// The longest context (≤ limit) at which `batch` sequences fit in the budget, as the engine counts.
/// Capacity falls as context grows, so a binary search finds it.
auto engine_max_context(const model_spec& m, engine_kind e, engine_options o, bytes budget, std::uint64_t batch,
                        std::uint64_t limit) -> std::uint64_t {
  const auto fits = [&](std::uint64_t context) {
    o.context = context;
    try {
      return engine_capacity_for(m, e, o, budget).max_sequences >= batch;
    } catch (const kvsize::overflow_error&) {
      return false;
    }
  };
  if (!fits(1)) {
    return 0;
  }
  return detail::last_true(1, limit, fits);
}

/// The planner for the device given, and the sweeps; refuses --csv, --svg and sweeps it cannot serve.
void compute_plan(const options& opts, sizing& s, std::optional<bytes> device_memory, std::uint64_t bandwidth,
                  const std::string& device_source, const workspace_overrides& overrides) {
  const bool wants_plan_output = opts.csv || opts.svg || opts.sweep_context || opts.sweep_batch;
  const std::string_view flag = opts.csv ? "--csv" : opts.svg ? "--svg" : opts.sweep_context ? "--sweep-context"
                                                                                             : "--sweep-batch";
  // Parse the ranges first: a bad range is a bad option whatever else is missing.
  std::vector<std::uint64_t> contexts;
  std::vector<std::uint64_t> users_list;
  if (opts.sweep_context) {
    contexts = parse_sweep("--sweep-context", *opts.sweep_context);
  }
  if (opts.sweep_batch) {
    users_list = parse_sweep("--sweep-batch", *opts.sweep_batch);
  }
  if (!device_memory) {
    if (wants_plan_output) {
      throw usage_error{fmt::format("{} plans for a device: give --gpu NAME or --gpu-memory SIZE", flag)};
    }
    return;
  }
  if (!s.weights) {
    if (wants_plan_output) {
      throw usage_error{fmt::format("{}: the weights of this model cannot be sized yet (see the notes of the "
                                    "report), so no plan can be made",
                                    flag)};
    }
    s.notes.push_back("plan: the weights of this model are unknown, so the planner (fit, options, decode cost) "
                      "is not shown");
    return;
  }
  // The model as the engine serves it: activations and logits in its serving dtype (vLLM runs a
  // float32 config in bf16).
  model_spec served = s.config.spec;
  served.compute_dtype = serving_dtype(s.engine, s.dtype_facts);
  const model_spec& m = served;
  plan_figures p;
  p.source = device_source;
  p.inputs.weights = *s.weights;
  p.inputs.device_memory = *device_memory;
  p.inputs.bandwidth = bandwidth;
  p.inputs.engine = s.engine;
  p.inputs.options = s.engine_opts;
  p.inputs.options.engine_overhead = bytes{0};  // the planner adds the workspace itself
  p.inputs.workspace = overrides;
  std::uint64_t users = s.batch;
  std::uint64_t context = s.context;
  if (s.engine == engine_kind::llama_cpp && opts.parallel) {
    // -c is shared by the -np slots: each user holds its slot's share.
    users = *opts.parallel;
    context = std::max<std::uint64_t>(1, s.context / users);
  }
  p.inputs.options.batch = users;
  p.inputs.options.context = context;
  p.inputs.context_limit = std::max<std::uint64_t>(m.max_context, context);
  try {
    p.result = plan(m, p.inputs);
  } catch (const kvsize::invalid_argument& e) {
    throw usage_error{fmt::format("--engine {}: {}", name(s.engine), e.what())};
  }
  if (s.engine == engine_kind::llama_cpp) {
    p.llama_mapping = fmt::format("-np {} -c {}", users, users * context);
  }

  p.swept = opts.sweep_context || opts.sweep_batch || opts.svg;
  if (p.swept) {
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
          throw usage_error{fmt::format("--engine {}: {} (at {} tokens, {} users)", name(s.engine), e.what(), c, u)};
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
  s.plan = std::move(p);
}

}  // namespace

auto compute_sizing(const options& opts, std::vector<std::string>& stderr_warnings) -> sizing {
  const auto engine = parse_engine(opts.engine);
  if (!engine) {
    throw usage_error{fmt::format(
        "--engine: unknown engine '{}' (expected exact, vllm, sglang, llama.cpp, trtllm or transformers)",
        opts.engine)};
  }
  if (opts.gpu_memory && opts.gpu) {
    throw usage_error{"--gpu and --gpu-memory both give the device's memory; pass one of them"};
  }
  warn_unused_knobs(opts, *engine, stderr_warnings);

  sizing s;
  s.config = hf::load_config(opts.config_path);
  s.config_path = opts.config_path;
  s.engine = *engine;
  const model_spec& m = s.config.spec;
  const dtype model_dtype = m.compute_dtype;

  // Element types: --k-dtype / --v-dtype override --kv-dtype, which overrides the engine's own default
  // for this model ("auto" names that default, as the engines' --kv-cache-dtype auto does).
  s.dtype_facts = {model_dtype, !s.config.dtype_key.empty(), s.config.model_type.starts_with("gemma"),
                   s.config.quantization_method == "mxfp4"};
  const dtype engine_kv = default_kv_dtypes(s.engine, s.dtype_facts).k;
  const dtype kv_all = opts.kv_dtype ? dtype_option("--kv-dtype", *opts.kv_dtype, engine_kv) : engine_kv;
  s.kv.k = opts.k_dtype ? dtype_option("--k-dtype", *opts.k_dtype, engine_kv) : kv_all;
  s.kv.v = opts.v_dtype ? dtype_option("--v-dtype", *opts.v_dtype, engine_kv) : kv_all;
  s.state_dtype = model_dtype;
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
  check_rows(s.kv.k, "--k-dtype");
  check_rows(s.kv.v, "--v-dtype");

  // Context: 4,096 by default, capped at the model's maximum; a larger explicit value is honoured.
  s.context_given = opts.context.has_value();
  s.context = opts.context.value_or(default_context);
  if (!opts.context && m.max_context != 0 && m.max_context < s.context) {
    s.context = m.max_context;
  }
  if (opts.context && m.max_context != 0 && *opts.context > m.max_context) {
    stderr_warnings.push_back(fmt::format("--context {} exceeds the model's maximum of {} tokens; sizing it anyway",
                                          *opts.context, m.max_context));
  }
  s.batch = opts.batch;

  // Weights: every parameter of the language model (kvsize::parameters), in the format the
  // config's quantization_config gives, or --weights-dtype.
  s.parameter_terms = parameters(m);
  s.parameters = s.parameter_terms.total;
  std::optional<weights_format> format;
  if (opts.weights_dtype) {
    if (*opts.weights_dtype == "auto") {
      format = uniform_weights(default_weights_dtype(s.engine, s.dtype_facts));
    } else {
      format = parse_weights_format(*opts.weights_dtype);
    }
    if (!format) {
      throw usage_error{fmt::format("--weights-dtype: unknown weights format '{}' (expected an element type such as "
                                    "bf16 or fp8, or a GGUF preset such as q8_0, q4_0 or q4_K_M)",
                                    *opts.weights_dtype)};
    }
  } else if (s.config.quantization) {
    format = s.config.quantization->format;
    if (!format) {
      s.notes.push_back(fmt::format("weights: quantization_config ({}) is a scheme kvsize does not size; pass "
                                    "--weights-dtype to size the weights",
                                    s.config.quantization_method.value_or("?")));
    }
  } else {  // unquantized: the dtype the engine loads it in (vLLM serves a float32 config in bf16)
    format = uniform_weights(default_weights_dtype(s.engine, s.dtype_facts));
  }
  if (format) {
    s.weights_format = weights_format_name(*format);
    s.weights = weights_bytes(m, *format);
  }

  // Device memory, when given: the engines' memory-dependent defaults read it.
  std::optional<bytes> device_memory;
  std::uint64_t bandwidth = 0;
  std::string device_source;
  if (opts.gpu) {
    const auto g = find_gpu(*opts.gpu);
    if (!g) {
      std::string ids;
      for (const auto& entry : gpu_catalog) {
        ids += fmt::format("{}{}", ids.empty() ? "" : ", ", entry.id);
      }
      throw usage_error{fmt::format("--gpu: unknown GPU '{}' (known: {}; or give --gpu-memory SIZE)", *opts.gpu, ids)};
    }
    device_memory = g->memory;
    bandwidth = g->bandwidth;
    device_source = fmt::format("{} (--gpu {})", g->name, g->id);
  } else if (opts.gpu_memory) {
    device_memory = size_option("--gpu-memory", *opts.gpu_memory);
    device_source = fmt::format("--gpu-memory {}", *opts.gpu_memory);
  }
  if (opts.bandwidth) {  // the device's own figure, e.g. a clocked-down or a different-memory part
    bandwidth = bandwidth_option(*opts.bandwidth);
    if (!device_memory) {
      stderr_warnings.push_back("--bandwidth has no effect without --gpu or --gpu-memory (it times the plan's decode step)");
    }
  }

  s.engine_opts = engine_options_of(opts, s);
  const workspace_overrides overrides = workspace_overrides_of(opts);
  s.engine_opts.engine_overhead = overrides.runtime.value_or(bytes{0});  // --reserve: outside the KV budget
  if (device_memory) {
    s.engine_opts.device_memory = *device_memory;
  }
  try {
    s.cache = size_cache(m, s.engine, s.engine_opts);
  } catch (const kvsize::invalid_argument& e) {
    // The engine cannot hold this configuration (e.g. a GGML cache type in vLLM, --pp > layers).
    throw usage_error{fmt::format("--engine {}: {}", name(s.engine), e.what())};
  }

  // Per device: the stage's layers, heads split over tensor-parallel ranks.
  bytes mha{0};
  for (std::uint32_t il = s.cache.first_layer; il < s.cache.first_layer + s.cache.stage_layers; ++il) {
    mha += layer_kv_bytes_per_token_mha(m, il, s.kv);
  }
  s.kv_per_token_mha = mha / opts.tp;
  s.gqa_ratio = gqa_ratio(m);
  model_spec served = m;  // logits in the dtype the engine computes in
  served.compute_dtype = serving_dtype(s.engine, s.dtype_facts);
  s.logits_per_token = logits_bytes_per_token(served);
  s.logits_prefill = logits_bytes_prefill(served, s.context);

  // Capacity.
  if (device_memory || opts.kv_memory) {
    capacity_figures c;
    if (opts.kv_memory) {
      c.kv_budget = size_option("--kv-memory", *opts.kv_memory);
      c.source = fmt::format("--kv-memory {}", *opts.kv_memory);
      c.device_memory = device_memory;
    } else {
      c.device_memory = device_memory;
      c.source = device_source;
      if (!s.weights) {
        throw usage_error{fmt::format("{}: the weights of this model cannot be sized yet, so the memory left for "
                                      "the KV cache is unknown; give --kv-memory SIZE instead",
                                      opts.gpu ? "--gpu" : "--gpu-memory")};
      }
      // Weights split evenly over the tp × pp devices (embeddings and LM head make the first and
      // last stage a little heavier in reality).
      c.weights_per_device = *s.weights / (std::uint64_t{opts.tp} * opts.pp);
      c.weights_fit = weights_fit(*device_memory, *c.weights_per_device);
      c.kv_budget = engine_kv_budget(s.engine, *device_memory, *c.weights_per_device, s.engine_opts);
      if (s.engine != engine_kind::exact) {
        s.notes.push_back(fmt::format(
            "the {} budget here is its rule applied to device memory minus weights; the engine also subtracts "
            "what it measures at start-up (activation peak, CUDA graphs, non-torch memory), which a config "
            "cannot tell. For an exact match with a log, pass the KV memory it reports as --kv-memory",
            name(s.engine)));
      }
    }
    c.figures = engine_capacity_for(m, s.engine, s.engine_opts, c.kv_budget);
    const std::uint64_t limit = std::max<std::uint64_t>(m.max_context, s.context);
    c.max_context = engine_max_context(m, s.engine, s.engine_opts, c.kv_budget, s.batch, limit);
    s.capacity = c;
  }

  compute_plan(opts, s, device_memory, bandwidth, device_source, overrides);
  return s;
}

}  // namespace kvsize::cli
