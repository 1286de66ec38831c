// SPDX-License-Identifier: MIT
// kvsize: how much memory a model's KV cache, logits and weights need, and what fits.
//   kvsize CONFIG.json|DIR|- [--context N] [--batch N] [--kv-dtype T] [--gpu NAME | --gpu-memory SIZE | --kv-memory SIZE] [--json]
// Exit codes: 0 success (and only then anything on stdout); 2 bad input, one message on stderr.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <kvsize/error.hpp>
#include <kvsize/gguf.hpp>
#include <kvsize/hf_config.hpp>
#include <kvsize/version.hpp>

#include "command_line.hpp"
#include "options.hpp"
#include "plan_report.hpp"
#include "report.hpp"
#include "engine_table.hpp"
#include "sizing.hpp"
#include "text.hpp"

namespace {

constexpr int exit_ok = 0;
constexpr int exit_bad_input = 2;

auto fail(const std::string& message) -> int {
  std::fputs(fmt::format("kvsize: {}\n", message).c_str(), stderr);
  return exit_bad_input;
}

/// A positive integer of at most `max` (CLI11's own checks print "not in range 0.000000 to
/// 1.79e308", and it saturates an out-of-range number to the type's maximum: refuse it instead).
auto positive_integer(std::uint64_t max = 999'999'999'999'999'999ULL, bool zero_allowed = false) -> CLI::Validator {
  const std::string_view what = zero_allowed ? "a whole number" : "a positive integer";
  return CLI::Validator(
      [max, zero_allowed, what](const std::string& text) -> std::string {
        const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || (!zero_allowed && text.find_first_not_of('0') == std::string::npos)) {
          return fmt::format("expected {}, got '{}'", what, text);
        }
        std::uint64_t value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec != std::errc{} || end != text.data() + text.size() || value > max) {
          return fmt::format("expected {} of at most {}, got '{}'", what, max, text);
        }
        return {};
      },
      zero_allowed ? "COUNT" : "POSITIVE");
}
constexpr std::uint64_t max_u32 = 0xFFFF'FFFFULL;

/// An engine's memory fraction: a finite number above 0 and at most 1, as vLLM's CacheConfig
/// (gpu_memory_utilization: Field(gt=0, le=1)) checks it. NaN and infinities are refused here, by
/// the option's name, before any engine sees them.
const CLI::Validator memory_fraction(
    [](const std::string& text) -> std::string {
      double value = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(value) ||
          !(value > 0.0 && value <= 1.0)) {
        return "expected a fraction above 0 and at most 1 (e.g. 0.9), got '" + text + "'";
      }
      return {};
    },
    "FRACTION");

/// A name kvsize prints back in the run-it line (vLLM's --reasoning-parser): not empty, no control character.
/// Checked here, once, not per engine row of --engine all.
const CLI::Validator printed_name(
    [](const std::string& text) -> std::string {
      if (text.empty() || kvsize::cli::has_control_character(text)) {
        return "expected a parser name (vLLM's --reasoning-parser, e.g. qwen3), got an empty value or one with a "
               "control character";
      }
      return {};
    },
    "NAME");

/// The --help footer: every engine flag and the kvsize option it is read as.
auto engine_flags_footer() -> std::string {
  std::string out = "Engine flags, read as the kvsize option they mean (long ones may also be spelled with _):\n";
  for (const auto& a : kvsize::cli::engine_aliases) {
    out += fmt::format("  {:<26} = {:<16} {}\n", a.spelling, a.canonical, a.engine);
  }
  return out;
}

/// vLLM's max_num_seqs default in words, from the library's rule (engines/vllm.hpp max_num_seqs).
/// --gpu-memory-utilization's help: the library's default by release (0.9, and 0.92 from 0.20).
auto vllm_utilization_words() -> std::string {
  namespace vllm = kvsize::engines::vllm;
  kvsize::engine_options first_graph_release;
  first_graph_release.vllm.release_minor = vllm::graph_estimate_since;
  return fmt::format("vLLM budget fraction (default {:g}; {:g} from vLLM {})",
                     vllm::gpu_memory_utilization(kvsize::engine_options{}),
                     vllm::gpu_memory_utilization(first_graph_release), vllm::release_name(vllm::graph_estimate_since));
}

auto vllm_max_num_seqs_words() -> std::string {
  kvsize::engine_options big;
  big.device_memory = kvsize::GiB * 70;
  kvsize::engine_options small;
  small.device_memory = kvsize::GiB * 70 - kvsize::bytes{1};
  return fmt::format("vLLM: most sequences scheduled at once (default {} on >= 70 GiB devices, else {})",
                     kvsize::engines::vllm::max_num_seqs(big), kvsize::engines::vllm::max_num_seqs(small));
}

/// "Sequences and cache": context, batch, element types, a shared prefix.
void cache_options(CLI::App& app, kvsize::cli::options& o) {
  using kvsize::cli::default_context;
  CLI::Option_group& cache = *app.add_option_group("Sequences and cache");
  cache.add_option("--context", o.context,
                   fmt::format("tokens per sequence (default {}, capped at the model's maximum)", default_context))
      ->check(positive_integer());
  // vLLM's --max-model-len auto / -1 arrives as this (command_line.cpp): no name of kvsize's own.
  cache.add_flag("--context-auto", o.context_auto)->group("");
  // llama.cpp's -c 0 arrives as this (command_line.cpp).
  cache.add_flag("--context-model", o.context_model)->group("");
  cache.add_option("--batch", o.batch, "sequences held at once (default 1)")
      ->check(positive_integer());
  cache.add_option("--kv-dtype", o.kv_dtype,
                   "element type of K and V (default: the engine's for this checkpoint)");
  cache.add_option("--k-dtype", o.k_dtype, "element type of K alone");
  cache.add_option("--v-dtype", o.v_dtype, "element type of V alone");
  cache.add_option("--weights-dtype", o.weights_dtype, "weights' type: auto, bf16, fp8, int4, nvfp4, q4_K_M, ... (default: the config's)");
  cache.add_option("--dtype", o.model_dtype,
                   "the dtype the model runs in (vLLM/SGLang --dtype: auto, half/float16, bfloat16, "
                   "float/float32): the default of the KV cache, the state and unquantized weights");
  cache.add_option("--shared-prefix", o.shared_prefix, "tokens of a prompt prefix shared by all --batch sequences")
      ->check(positive_integer());
}

/// "Device": a catalog GPU, or its memory and bandwidth.
void device_options(CLI::App& app, kvsize::cli::options& o) {
  CLI::Option_group& device = *app.add_option_group("Device");
  device.add_option("--gpu", o.gpu, "a GPU from the catalog (see --list-gpus)");
  device.add_option("--gpu-memory", o.gpu_memory, "memory of one device, e.g. 24GiB or 12.49GB");
  device.add_option("--kv-memory", o.kv_memory, "memory given to the KV cache on one device");
  device.add_option("--bandwidth", o.bandwidth, "peak memory bandwidth of one device, e.g. 936GB/s (overrides --gpu's)");
}

/// vLLM's start-up options beyond the scheduler's: the CUDA-graph estimate (0.20 – 0.22) and 0.22's
/// model runner.
void vllm_start_up_knobs(CLI::Option_group& engine, kvsize::cli::options& o) {
  engine.add_flag("--enforce-eager", o.enforce_eager,
                  "vLLM: no CUDA graphs (vLLM 0.20 to 0.22 then subtract no CUDA-graph estimate; from 0.14 "
                  "DeepSeek's yarn rotary table stays float32)")
      ->disable_flag_override();
  engine.add_option("--cuda-graph-memory", o.cuda_graph_memory,
                    "vLLM 0.20 to 0.22 (V1): the \"Estimated CUDA graph memory\" of a start-up log, which they subtract "
                    "from the KV budget, e.g. 0.55GiB (0 for VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0)");
  engine.add_option("--model-runner", o.model_runner,
                    "vLLM 0.22: v2 or v1 as VLLM_USE_V2_MODEL_RUNNER=1 or 0 sets it; auto (the default): 0.22's rule, "
                    "Model Runner V2 for an unquantized dense Qwen3ForCausalLM served without a reasoning parser")
      ->check(CLI::IsMember({"auto", "v1", "v2"}));
  engine.add_option("--reasoning-parser", o.reasoning_parser,
                    "vLLM's flag, read for one thing: with a reasoning parser vLLM 0.22 runs the model on Model Runner V1")
      ->check(printed_name);
}

/// SGLang's own knobs in the "Engine" group: its budget fraction, request limit and data-parallel layouts.
void sglang_knobs(CLI::Option_group& engine, kvsize::cli::options& o) {
  engine.add_option("--mem-fraction-static", o.mem_fraction_static, "SGLang budget fraction")
      ->check(memory_fraction);
  engine.add_option("--max-running-requests", o.max_running_requests,
                    "SGLang: most requests running at once (default: SGLang's rule from the pool size)")
      ->check(positive_integer());
  engine.add_option("--dp", o.dp,
                    "SGLang: data-parallel ranks; with --enable-dp-attention attention ranks of tp / dp GPUs "
                    "(dp must divide --tp), without it replicas of the tp group (one is sized)")
      ->check(positive_integer(max_u32));
  engine.add_flag("--enable-dp-attention", o.enable_dp_attention,
                  "SGLang: DP attention; the figures are then one rank's, each with its own pool and requests");
  engine.add_flag("--enable-dp-lm-head", o.enable_dp_lm_head,
                  "SGLang: the LM head over each DP-attention rank's GPUs, not over all tp (needs DP attention)");
  engine.add_option("--moe-dense-tp-size", o.moe_dense_tp_size,
                    "SGLang: 1 keeps a MoE model's dense MLP layers whole on every GPU (SGLang takes 1 only)")
      ->check(positive_integer(1));
}

/// "Engine": which engine, its parallelism and its knobs; the help names the library's defaults.
void engine_knobs(CLI::App& app, kvsize::cli::options& o) {
  const kvsize::engine_options defaults;
  CLI::Option_group& engine = *app.add_option_group("Engine");
  engine.add_option("--engine", o.engine,
                    "exact, vllm, sglang, llama.cpp, trtllm or transformers (default exact; any case, and "
                    "spellings such as vLLM, llamacpp, trt-llm, tensorrt_llm, hf), or all: a table of every engine");
  engine.add_option("--engine-version", o.engine_version,
                    fmt::format("the engine release whose start-up rules apply: vLLM {} to {} (default {}); SGLang "
                                "0.4.0 to 0.4.5.post2 and 0.4.7.post1 to 0.5.19, whose default --mem-fraction-static rule it "
                                "picks (default {})",
                                kvsize::engines::vllm::release_name(kvsize::engines::vllm::oldest_release_minor),
                                kvsize::engines::vllm::release_name(kvsize::engines::vllm::newest_release_minor),
                                kvsize::engines::vllm::release_name(kvsize::engines::vllm::default_release_minor),
                                kvsize::engines::sglang::version_name(kvsize::engines::sglang::default_rule)));
  engine.add_option("--tp", o.tp, "tensor-parallel degree (default 1)")
      ->check(positive_integer(max_u32));
  engine.add_option("--pp", o.pp, "pipeline-parallel degree (default 1)")
      ->check(positive_integer(max_u32));
  engine.add_option("--block-size", o.block_size,
                    "vLLM block / SGLang page / TensorRT-LLM tokens per block")
      ->check(positive_integer(max_u32));
  engine.add_option("--max-num-batched-tokens", o.max_num_batched_tokens, "vLLM scheduler token budget")
      ->check(positive_integer());
  engine.add_option("--max-num-seqs", o.max_num_seqs,
                    vllm_max_num_seqs_words())
      ->check(positive_integer(max_u32));
  engine.add_option("--gpu-memory-utilization", o.gpu_memory_utilization, vllm_utilization_words())
      ->check(memory_fraction);
  vllm_start_up_knobs(engine, o);
  auto* prefix_on = engine
                        .add_flag("--enable-prefix-caching", o.enable_prefix_caching,
                                  "vLLM: cache prompt prefixes (its default, but off for models with recurrent "
                                  "layers; for those, 0.15+ keeps 2 state pages a request for gated-DeltaNet, KDA "
                                  "and short-conv layers, and Mamba1/Mamba2 layers are refused)")
                        ->disable_flag_override();
  engine.add_flag("--no-enable-prefix-caching", o.no_enable_prefix_caching,
                  "vLLM: no prefix caching (a --shared-prefix is then stored by every request)")
      ->disable_flag_override()
      ->excludes(prefix_on);
  sglang_knobs(engine, o);
  engine.add_option("--kv-cache-free-gpu-memory-fraction", o.free_gpu_memory_fraction,
                    fmt::format("TensorRT-LLM: fraction of the memory left after weights and activations that "
                                "the KV cache takes (default {:g})",
                                defaults.trtllm.free_gpu_memory_fraction))
      ->check(memory_fraction);
  engine.add_option("--parallel", o.parallel, "llama.cpp slots (default 1)")
      ->check(positive_integer(max_u32));
  engine.add_option("--ubatch", o.ubatch,
                    fmt::format("llama.cpp physical batch (default {})", kvsize::engines::llama_cpp::default_ubatch))
      ->check(positive_integer(max_u32));
  engine.add_flag("--kv-unified", o.kv_unified,
                  "llama.cpp: one KV buffer shared by all slots");
  engine.add_flag("--swa-full", o.swa_full, "llama.cpp: full-size sliding-window cache");
  engine.add_option("--flash-attn", o.flash_attn,
                    "llama.cpp flash attention: on, off or auto (the cache is the same; off adds the attention scores to the compute buffer, and "
                                 "refuses a quantized V cache, as llama.cpp does)");
  engine.add_option("--n-gpu-layers", o.gpu_layers,
                    "llama.cpp layers on the GPU: N, auto (the most that leave --fit's 1 GiB free) or all; "
                    "a GGUF input with --gpu gets the offload split");
  engine.add_option("--n-cpu-moe", o.n_cpu_moe, "llama.cpp: the experts of the first N blocks in host memory")
      ->check(positive_integer(max_u32, true));
  engine.add_flag("--cpu-moe", o.cpu_moe, "llama.cpp: every block's experts in host memory");
  engine.add_flag("--no-kv-offload", o.no_kv_offload, "llama.cpp: the KV cache in host memory");
  engine.add_option("--override-tensor", o.override_tensor,
                    "llama.cpp: <tensor name pattern>=CPU,... keeps the GGUF tensors whose names match in host "
                    "memory (-ot; may be repeated)")
      ->allow_extra_args(false);  // one value per -ot, so a model path after it is not taken as a pattern
  engine.add_option("--tensor-split", o.tensor_split,
                    "llama.cpp: the GPUs' shares of the layers, e.g. 3,1 (-ts); as many GPUs as values, or --tp x --pp");
}

/// The planner (needs --gpu or --gpu-memory): workspace terms, each replacing the engine's
/// default; sweeps. Then what stdout gets.
void planner_and_output_options(CLI::App& app, kvsize::cli::options& o) {
  CLI::Option_group& plan = *app.add_option_group("Planner (with --gpu or --gpu-memory)");
  plan.add_option("--reserve", o.reserve, "runtime / context overhead outside the KV budget, e.g. 512MiB");
  plan.add_option("--logits", o.logits, "logits kept on the device: all (every position), last, or none");
  plan.add_flag("--logits-f32", o.logits_f32, "logits upcast to float32");
  plan.add_option("--activations", o.activations, "the activation peak of a forward pass, e.g. 1GiB");
  plan.add_option("--prefill-chunk", o.prefill_chunk,
                  "tokens of one forward pass for the activation peak")
      ->check(positive_integer());
  plan.add_option("--sampler", o.sampler, "the sampler's float32 copy of the logits, e.g. 256MiB");
  plan.add_option("--sweep-context", o.sweep_context, "plan at contexts A, 2A, 4A, ... B (e.g. 1k:128k; k = 1,024)");
  plan.add_option("--sweep-batch", o.sweep_batch, "plan for users A, 2A, 4A, ... B (e.g. 1:256)");

  CLI::Option_group& output = *app.add_option_group("Output");
  output.add_flag("--json", o.json, "print one JSON object instead of the report");
  output.add_flag("--csv", o.csv, "print the plan (or its sweep) as CSV, one row per point, every term in bytes");
  output.add_option("--svg", o.svg, "write a chart of memory against context, stacked by term, to FILE");
  output.add_flag("--explain", o.explain, "show what each group of layers keeps, and which key decided it");
  output.add_flag("--list-gpus", o.list_gpus, "print the GPU catalog and exit");
  output.add_flag("--version", o.version, "print kvsize's version and exit");
}

/// The options, in groups: --help prints one section per group, and CLI11 checks a new option's
/// names only against the options of its own group, so setting up ~40 options costs ~5 small
/// quadratic checks instead of one large one (callgrind: CLI11's add_option was 40 % of a run).
/// Engine users' own flags (vLLM --max-model-len, llama.cpp -c, ...) are not options here: the
/// command line is rewritten to the options they mean before CLI11 sees it (command_line.hpp).
void define_options(CLI::App& app, kvsize::cli::options& o) {
  app.add_option("config", o.config_path,
                 "a model's Hugging Face config.json, a model folder (its config.json), or - for stdin");
  cache_options(app, o);
  device_options(app, o);
  engine_knobs(app, o);
  planner_and_output_options(app, o);
}

/// Every option name the command line knows: CLI11's long and short names (of the app and of its
/// option groups, which CLI11 keeps as nameless subcommands) and the engine aliases.
auto known_option_names(const CLI::App& app) -> std::vector<std::string> {
  std::vector<std::string> names;
  const auto add = [&](const CLI::App& from) {
    for (const CLI::Option* opt : from.get_options()) {
      if (opt->get_group().empty()) {
        continue;  // hidden: --context-auto, what --max-model-len auto becomes
      }
      for (const auto& l : opt->get_lnames()) {
        names.push_back("--" + l);
      }
      for (const auto& s : opt->get_snames()) {
        names.push_back("-" + s);
      }
    }
  };
  add(app);
  for (const CLI::App* group : app.get_subcommands([](const CLI::App*) { return true; })) {
    add(*group);
  }
  for (const auto& a : kvsize::cli::engine_aliases) {
    names.emplace_back(a.spelling);
  }
  return names;
}

/// "unknown option '--max-modl-len' (did you mean --max-model-len?)", or the unexpected argument.
auto unknown_argument_message(const CLI::App& app, const kvsize::cli::command_line& line,
                              const std::vector<std::string>& remaining) -> std::string {
  // The first option-like leftover is what the user mistyped; a bare word is an extra argument.
  const auto option = std::find_if(remaining.begin(), remaining.end(),
                                   [](const std::string& a) { return a.size() > 1 && a.front() == '-'; });
  if (option == remaining.end()) {
    return fmt::format("unexpected argument '{}' (one config.json, folder or - is read; --help lists the options)",
                       remaining.front());
  }
  const std::string typed = line.typed_spelling(*option);
  const std::string name = typed.substr(0, typed.find('='));
  const auto suggestion = kvsize::cli::nearest_name(name, known_option_names(app));
  return suggestion ? fmt::format("unknown option '{}' (did you mean {}?)", name, *suggestion)
                    : fmt::format("unknown option '{}' (--help lists the options)", name);
}

/// Writes `text` to stdout and flushes it; false when the stream failed (a full disk, a closed pipe).
auto write_stdout(const std::string& text) -> bool {
  const bool written = std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
  return std::fflush(stdout) == 0 && written && std::ferror(stdout) == 0;
}

/// Writes `text` to stdout: exit_ok, or the failure when stdout does not take it (a full disk, a closed pipe).
auto write_or_fail(const std::string& text) -> int {
  if (!write_stdout(text)) {
    return fail(fmt::format("cannot write to standard output: {}", std::strerror(errno)));
  }
  return exit_ok;
}

/// --svg must not replace the config it was computed from (kvsize c.json --svg c.json).
void refuse_svg_over_input(const kvsize::cli::options& opts) {
  if (!opts.svg || opts.config_path == "-") {
    return;
  }
  std::error_code ec;
  std::filesystem::path input{opts.config_path};
  if (std::filesystem::is_directory(input, ec)) {
    input /= "config.json";
  }
  if (std::filesystem::equivalent(*opts.svg, input, ec)) {
    throw kvsize::cli::usage_error{
        fmt::format("--svg: '{}' is the input config ({}); choose another file for the chart", *opts.svg,
                    input.string())};
  }
}

/// Writes the chart to FILE, the error saying why not (errno).
void write_svg(const std::string& path, const std::string& svg) {
  errno = 0;
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    throw kvsize::cli::usage_error{fmt::format("--svg: cannot write '{}': {}", path, std::strerror(errno))};
  }
  const bool written = std::fwrite(svg.data(), 1, svg.size(), file) == svg.size() && std::fflush(file) == 0;
  const int saved = errno;
  if (std::fclose(file) != 0 || !written) {
    throw kvsize::cli::usage_error{
        fmt::format("--svg: cannot write '{}': {}", path, std::strerror(written ? errno : saved))};
  }
}

/// --engine all: one row per engine, rendered whole before it is printed (errors propagate to main's handlers).
auto print_engine_table(const kvsize::cli::options& opts) -> int {
  std::vector<std::string> warnings;
  const std::string table = kvsize::cli::engine_table(opts, warnings);
  for (const auto& w : warnings) {
    std::fputs(fmt::format("kvsize: warning: {}\n", w).c_str(), stderr);
  }
  return write_or_fail(table);
}

/// CLI11's words for a value given to a flag that takes none ("--enable-prefix-caching=false": "X was
/// given a disallowed flag override") say neither what was wrong nor what to type; vLLM's flags take
/// no value either, and each "off" has its own spelling.
auto flag_value_message(std::string message) -> std::string {
  constexpr std::string_view marker = " was given a disallowed flag override";
  const std::size_t at = message.find(marker);
  if (at == std::string::npos) {
    return message;
  }
  const std::string flag = "--" + message.substr(0, at);
  std::string off;
  if (flag == "--enable-prefix-caching") {
    off = "; for no prefix caching pass --no-enable-prefix-caching";
  } else if (flag == "--no-enable-prefix-caching") {
    off = "; for prefix caching pass --enable-prefix-caching, or neither for vLLM's default";
  } else if (flag == "--enforce-eager") {
    off = "; leave it out for CUDA graphs";
  }
  return fmt::format("{} takes no value (as in vLLM): give the flag alone{}", flag, off);
}

}  // namespace

auto main(int argc, char** argv) -> int {
  CLI::App app{"kvsize: KV cache, logits and weights of an LLM from its config.json, and what fits", "kvsize"};
  app.allow_extras();  // unknown options are reported below, with the nearest known name
  app.footer(engine_flags_footer());
  kvsize::cli::options opts;
  define_options(app, opts);
  kvsize::cli::command_line line;
  try {
    line = kvsize::cli::rewrite_command_line(argc, argv, app);
    opts.given_as = line.given_as;
    std::vector<std::string> args = line.args;
    std::reverse(args.begin(), args.end());  // CLI11 takes the arguments last first
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    return write_or_fail(app.help());
  } catch (const CLI::ParseError& e) {
    return fail(line.name_as_typed(flag_value_message(e.what())));
  } catch (const kvsize::cli::usage_error& e) {
    return fail(e.message);
  }

  try {
    if (!app.remaining().empty()) {
      return fail(unknown_argument_message(app, line, app.remaining()));
    }
    if (opts.version) {
      return write_or_fail(fmt::format("kvsize {}\n", kvsize::version_string));
    }
    if (opts.list_gpus) {
      return write_or_fail(kvsize::cli::gpu_list());
    }
    if (opts.config_path.empty()) {
      return fail("no config.json given (usage: kvsize CONFIG.json|DIR|- [options]; --help lists them)");
    }
    if (opts.json && opts.csv) {
      return fail("--json and --csv both choose what stdout gets; pass one of them");
    }
    refuse_svg_over_input(opts);
    std::vector<std::string> warnings;
    if (kvsize::cli::is_engine_all(opts)) {
      return print_engine_table(opts);
    }
    const auto sizing = kvsize::cli::compute_sizing(opts, warnings);
    // Render fully before printing anything, so stdout gets all of it or nothing.
    const std::string text = opts.json  ? kvsize::cli::json_report(sizing)
                             : opts.csv ? kvsize::cli::plan_csv(sizing)
                                        : kvsize::cli::human_report(sizing, opts.explain);
    if (opts.svg) {
      write_svg(*opts.svg, kvsize::cli::plan_svg(sizing));
    }
    for (const auto& w : warnings) {
      std::fputs(fmt::format("kvsize: warning: {}\n", w).c_str(), stderr);
    }
    // A full disk or a closed pipe is an error too: the caller must not take a cut-off report.
    return write_or_fail(text);
  } catch (const kvsize::hf::config_error& e) {
    return fail(e.what());
  } catch (const kvsize::gguf::gguf_error& e) {
    return fail(e.what());
  } catch (const kvsize::cli::usage_error& e) {
    return fail(e.message);
  } catch (const kvsize::overflow_error&) {
    return fail(fmt::format("{}: the sizes asked for ({}) exceed 2^64 bytes",
                            opts.config_path == "-" ? "<stdin>" : opts.config_path,
                            kvsize::cli::scaling_options_given(opts)));
  } catch (const std::exception& e) {
    // A quantized row that does not divide, ...: still bad input, never a crash.
    return fail(fmt::format("{}: {}", opts.config_path == "-" ? "<stdin>" : opts.config_path, e.what()));
  }
}
