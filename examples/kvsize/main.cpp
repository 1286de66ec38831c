// SPDX-License-Identifier: MIT
// kvsize: how much memory a model's KV cache, logits and weights need, and what fits.
//   kvsize CONFIG.json [--context N] [--batch N] [--kv-dtype T] [--gpu NAME | --gpu-memory SIZE | --kv-memory SIZE] [--json]
// Exit codes: 0 success (and only then anything on stdout); 2 bad input, one message on stderr.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <kvsize/error.hpp>
#include <kvsize/hf_config.hpp>

#include "options.hpp"
#include "plan_report.hpp"
#include "report.hpp"
#include "sizing.hpp"

namespace {

constexpr int exit_ok = 0;
constexpr int exit_bad_input = 2;

auto fail(const std::string& message) -> int {
  std::fputs(fmt::format("kvsize: {}\n", message).c_str(), stderr);
  return exit_bad_input;
}

// CLI11's own number checks print "not in range 0.000000 to 1.79e308"; say plainly what is wanted.
const CLI::Validator positive_integer(
    [](const std::string& text) -> std::string {
      const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
      if (!digits || text.find_first_not_of('0') == std::string::npos) {
        return "expected a positive integer, got '" + text + "'";
      }
      // CLI11 saturates an out-of-range number to the type's maximum; refuse it instead.
      if (text.size() > 18) {
        return "expected a positive integer below 10^18, got '" + text + "'";
      }
      return {};
    },
    "POSITIVE");

/// The options, in groups: --help prints one section per group, and CLI11 checks a new option's
/// names only against the options of its own group, so setting up ~35 options costs ~5 small
/// quadratic checks instead of one large one (callgrind: CLI11's add_option was 40 % of a run).
void define_options(CLI::App& app, kvsize::cli::options& o) {
  app.add_option("config", o.config_path, "a model's Hugging Face config.json");

  CLI::Option_group& cache = *app.add_option_group("Sequences and cache");
  cache.add_option("--context", o.context, "tokens per sequence (default 4096, capped at the model's maximum)")
      ->check(positive_integer);
  cache.add_option("--batch", o.batch, "sequences held at once (default 1)")
      ->check(positive_integer);
  cache.add_option("--kv-dtype", o.kv_dtype, "element type of K and V (default: the model's dtype)");
  cache.add_option("--k-dtype", o.k_dtype, "element type of K alone");
  cache.add_option("--v-dtype", o.v_dtype, "element type of V alone");
  cache.add_option("--weights-dtype", o.weights_dtype, "element type of the weights (default: from the config)");
  cache.add_option("--shared-prefix", o.shared_prefix, "tokens of a prompt prefix shared by all --batch sequences")
      ->check(positive_integer);

  CLI::Option_group& device = *app.add_option_group("Device");
  device.add_option("--gpu", o.gpu, "a GPU from the catalog (see --list-gpus)");
  device.add_option("--gpu-memory", o.gpu_memory, "memory of one device, e.g. 24GiB or 12.49GB");
  device.add_option("--kv-memory", o.kv_memory, "memory given to the KV cache on one device");
  device.add_option("--bandwidth", o.bandwidth, "peak memory bandwidth of one device, e.g. 936GB/s (overrides --gpu's)");

  CLI::Option_group& engine = *app.add_option_group("Engine");
  engine.add_option("--engine", o.engine, "exact, vllm, sglang, llama.cpp, trtllm or transformers (default exact)");
  engine.add_option("--tp", o.tp, "tensor-parallel degree (default 1)")
      ->check(positive_integer);
  engine.add_option("--pp", o.pp, "pipeline-parallel degree (default 1)")
      ->check(positive_integer);
  engine.add_option("--block-size", o.block_size, "vLLM block / SGLang page / TensorRT-LLM tokens per block")
      ->check(positive_integer);
  engine.add_option("--max-num-batched-tokens", o.max_num_batched_tokens, "vLLM scheduler token budget")
      ->check(positive_integer);
  engine.add_option("--gpu-memory-utilization", o.gpu_memory_utilization, "vLLM budget fraction (default 0.9)")
      ->check(CLI::Range(0.0, 1.0));
  engine.add_option("--mem-fraction-static", o.mem_fraction_static, "SGLang budget fraction")
      ->check(CLI::Range(0.0, 1.0));
  engine.add_option("--parallel", o.parallel, "llama.cpp slots (-np, default 1)")
      ->check(positive_integer);
  engine.add_option("--ubatch", o.ubatch, "llama.cpp physical batch (-ub, default 512)")
      ->check(positive_integer);
  engine.add_flag("--kv-unified", o.kv_unified, "llama.cpp: one KV buffer shared by all slots");
  engine.add_flag("--swa-full", o.swa_full, "llama.cpp: full-size sliding-window cache");

  // The planner (needs --gpu or --gpu-memory): workspace terms, each replacing the engine's default.
  CLI::Option_group& plan = *app.add_option_group("Planner (with --gpu or --gpu-memory)");
  plan.add_option("--reserve", o.reserve, "runtime / context overhead outside the KV budget, e.g. 512MiB");
  plan.add_option("--logits", o.logits, "logits kept on the device: all (every position), last, or none");
  plan.add_flag("--logits-f32", o.logits_f32, "logits upcast to float32");
  plan.add_option("--activations", o.activations, "the activation peak of a forward pass, e.g. 1GiB");
  plan.add_option("--prefill-chunk", o.prefill_chunk, "tokens of one forward pass for the activation peak")
      ->check(positive_integer);
  plan.add_option("--sampler", o.sampler, "the sampler's float32 copy of the logits, e.g. 256MiB");
  plan.add_option("--sweep-context", o.sweep_context, "plan at contexts A, 2A, 4A, ... B (e.g. 1k:128k; k = 1,024)");
  plan.add_option("--sweep-batch", o.sweep_batch, "plan for users A, 2A, 4A, ... B (e.g. 1:256)");

  CLI::Option_group& output = *app.add_option_group("Output");
  output.add_flag("--json", o.json, "print one JSON object instead of the report");
  output.add_flag("--csv", o.csv, "print the plan (or its sweep) as CSV, one row per point, every term in bytes");
  output.add_option("--svg", o.svg, "write a chart of memory against context, stacked by term, to FILE");
  output.add_flag("--explain", o.explain, "show what each group of layers keeps, and which key decided it");
  output.add_flag("--list-gpus", o.list_gpus, "print the GPU catalog and exit");
}

}  // namespace

auto main(int argc, char** argv) -> int {
  CLI::App app{"kvsize: KV cache, logits and weights of an LLM from its config.json, and what fits", "kvsize"};
  kvsize::cli::options opts;
  define_options(app, opts);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return exit_ok;
  } catch (const CLI::ParseError& e) {
    return fail(e.what());
  }

  try {
    if (opts.list_gpus) {
      std::fputs(kvsize::cli::gpu_list().c_str(), stdout);
      return exit_ok;
    }
    if (opts.config_path.empty()) {
      return fail("no config.json given (usage: kvsize CONFIG.json [options]; --help lists them)");
    }
    if (opts.json && opts.csv) {
      return fail("--json and --csv both choose what stdout gets; pass one of them");
    }
    std::vector<std::string> warnings;
    const auto sizing = kvsize::cli::compute_sizing(opts, warnings);
    // Render fully before printing anything, so stdout gets all of it or nothing.
    const std::string text = opts.json  ? kvsize::cli::json_report(sizing)
                             : opts.csv ? kvsize::cli::plan_csv(sizing)
                                        : kvsize::cli::human_report(sizing, opts.explain);
    if (opts.svg) {
      const std::string svg = kvsize::cli::plan_svg(sizing);
      std::FILE* file = std::fopen(opts.svg->c_str(), "wb");
      const bool written = file != nullptr && std::fwrite(svg.data(), 1, svg.size(), file) == svg.size();
      if (file == nullptr || std::fclose(file) != 0 || !written) {
        return fail(fmt::format("--svg: cannot write '{}'", *opts.svg));
      }
    }
    for (const auto& w : warnings) {
      std::fputs(fmt::format("kvsize: warning: {}\n", w).c_str(), stderr);
    }
    std::fputs(text.c_str(), stdout);
    return exit_ok;
  } catch (const kvsize::hf::config_error& e) {
    return fail(e.what());
  } catch (const kvsize::cli::usage_error& e) {
    return fail(e.message);
  } catch (const kvsize::overflow_error&) {
    return fail(fmt::format("{}: the sizes asked for (--context {}, --batch {}) exceed 2^64 bytes",
                            opts.config_path, opts.context ? std::to_string(*opts.context) : std::string{"default"},
                            opts.batch));
  } catch (const std::exception& e) {
    // Overflow in a size, a quantized row that does not divide, ...: still bad input, never a crash.
    return fail(fmt::format("{}: {}", opts.config_path, e.what()));
  }
}
