// SPDX-License-Identifier: MIT
// kvsize --engine all: the same config and device under every engine (engine_table.hpp).
#include "engine_table.hpp"
#include "model_input.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <optional>
#include <string_view>

#include <kvsize/engines/sglang_dp.hpp>
#include <kvsize/engines_command.hpp>
#include <kvsize/fmt.hpp>

#include "command_line.hpp"
#include "plan_report.hpp"
#include "sizing.hpp"
#include "text.hpp"

namespace kvsize::cli {
namespace {

/// One engine's row: its sizing, or why it refused.
struct engine_row {
  engine_kind engine = engine_kind::exact;
  std::optional<sizing> result;
  std::string refusal;
};

/// The engine release whose start-up rules sized the row ("0.19"), or empty where the engine names none
/// or no device was given.
auto release_of(const sizing& s) -> std::string_view {
  return s.capacity && s.capacity->startup ? s.capacity->startup->engine_version : std::string_view{};
}

/// The vLLM model runner that sized the row ("v1", "v2": vLLM 0.22+), or empty where there is no choice of
/// runner or no device was given.
auto runner_of(const sizing& s) -> std::string_view {
  return s.capacity && s.capacity->startup ? s.capacity->startup->model_runner : std::string_view{};
}

/// SGLang's DP-attention ranks in the row (engines/sglang_dp.hpp), 1 where attention is tensor-parallel: the row's
/// tokens and users are then one rank's, of tp / ranks GPUs.
auto dp_ranks_of(const sizing& s) -> std::uint32_t {
  return s.engine == engine_kind::sglang ? kvsize::engines::sglang::attention_dp_of(s.config.spec, s.engine_opts) : 1;
}

/// "fits", or "no: " and what limits the request ("no: memory"); "—" without a plan.
auto plan_words(const sizing& s) -> std::string {
  if (!s.plan) {
    return "—";
  }
  const plan_point& p = s.plan->result.point;
  return p.fits() ? std::string{"fits"} : fmt::format("no: {}", name(p.limited_by));
}

auto text_table(const options& opts, const std::vector<engine_row>& rows) -> std::string {
  std::string out = fmt::format("{}: every engine", opts.config_path == "-" ? "<stdin>" : opts.config_path);
  const sizing* any = nullptr;
  for (const auto& r : rows) {
    any = any != nullptr ? any : (r.result ? &*r.result : nullptr);
  }
  if (any != nullptr && any->capacity) {
    out += fmt::format(" on {}", any->capacity->source);
  }
  const std::uint64_t asked_users = any != nullptr ? any->batch : opts.batch;
  out += fmt::format(", {} user{} × {} tokens\n\n", grouped(asked_users), asked_users == 1 ? "" : "s",
                     grouped(any != nullptr ? any->context : 0));
  out += fmt::format("{:<12} {:>11} {:>12} {:>11} {:>11} {:>9} {:>11}  {}\n", "engine", "KV/token", "KV/sequence",
                     "KV budget", "max tokens", "max users", "max context", "request");
  for (const auto& r : rows) {
    if (!r.result) {
      out += wrapped(fmt::format("{:<12} ", display_name(r.engine)), "refused: " + r.refusal, 13);
      continue;
    }
    const sizing& s = *r.result;
    const auto cell = [](const auto& v) { return v ? fmt::format("{}", *v) : std::string{"—"}; };
    std::optional<std::string> budget;
    std::optional<std::string> tokens;
    if (s.capacity) {
      budget = fmt::format("{}", s.capacity->kv_budget);
      tokens = grouped(s.capacity->figures.max_tokens);
    }
    std::optional<std::string> users;
    std::optional<std::string> context;
    if (s.plan) {
      users = grouped(s.plan->result.max_users);
      context = grouped(s.plan->result.max_context);
    }
    out += fmt::format("{:<12} {:>11} {:>12} {:>11} {:>11} {:>9} {:>11}  {}\n", display_name(r.engine),
                       fmt::format("{}", s.cache.kv_bytes_per_token), fmt::format("{}", s.cache.kv_bytes_per_sequence),
                       cell(budget), cell(tokens), cell(users), cell(context), plan_words(s));
  }
  out += "\nPer device (one TP rank). KV budget: the engine's rule on the device; max users: at the context; "
         "max context: for the users. --json has every figure in bytes.\n";
  for (const auto& r : rows) {
    if (r.result && dp_ranks_of(*r.result) > 1) {
      const sizing& s = *r.result;
      const std::uint32_t ranks = dp_ranks_of(s);
      out += fmt::format("{}: DP attention, {} ranks of {} GPU{}: its tokens and users are one rank's requests, the "
                         "ranks serve {} × as many.\n",
                         display_name(r.engine), ranks, s.engine_opts.tp / ranks, s.engine_opts.tp / ranks == 1 ? "" : "s",
                         ranks);
    }
  }
  std::string releases;
  for (const auto& r : rows) {
    if (r.result && !release_of(*r.result).empty()) {
      releases += fmt::format("{}{} {}", releases.empty() ? "" : ", ", display_name(r.engine), release_of(*r.result));
    }
  }
  if (!releases.empty()) {
    out += fmt::format("Budget rules of: {} (--engine-version picks another release for one engine).\n", releases);
  }
  std::string wrapped_out;
  for (std::string_view rest = out; !rest.empty();) {
    const std::size_t end = rest.find('\n');
    const std::string_view line = rest.substr(0, end);
    wrapped_out += columns(line) > report_width ? wrapped("", line, 2) : std::string{line} + "\n";
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
  }
  return wrapped_out;
}

auto json_table(const options& opts, const std::vector<engine_row>& rows) -> std::string {
  nlohmann::ordered_json j;
  j["config"] = opts.config_path == "-" ? "<stdin>" : opts.config_path;
  nlohmann::ordered_json engines = nlohmann::ordered_json::array();
  for (const auto& r : rows) {
    nlohmann::ordered_json e;
    e["engine"] = name(r.engine);
    if (!r.result) {
      e["refused"] = r.refusal;
      engines.push_back(e);
      continue;
    }
    const sizing& s = *r.result;
    e["refused"] = nullptr;
    e["engine_version"] = release_of(s).empty() ? nlohmann::ordered_json(nullptr)
                                                : nlohmann::ordered_json(std::string{release_of(s)});
    e["model_runner"] = runner_of(s).empty() ? nlohmann::ordered_json(nullptr)
                                             : nlohmann::ordered_json(std::string{runner_of(s)});
    e["context"] = s.context;
    e["batch"] = s.batch;
    e["kv_bytes_per_token"] = s.cache.kv_bytes_per_token.count();
    e["kv_bytes_per_sequence"] = s.cache.kv_bytes_per_sequence.count();
    e["state_bytes_per_sequence"] = s.cache.state_bytes_per_sequence.count();
    e["kv_budget_bytes"] = s.capacity ? nlohmann::ordered_json(s.capacity->kv_budget.count()) : nullptr;
    e["max_tokens"] = s.capacity ? nlohmann::ordered_json(s.capacity->figures.max_tokens) : nullptr;
    e["max_users"] = s.plan ? nlohmann::ordered_json(s.plan->result.max_users) : nullptr;
    e["max_context"] = s.plan ? nlohmann::ordered_json(s.plan->result.max_context) : nullptr;
    e["fits"] = s.plan ? nlohmann::ordered_json(s.plan->result.point.fits()) : nullptr;
    e["limited_by"] = s.plan ? nlohmann::ordered_json(name(s.plan->result.point.limited_by)) : nullptr;
    const std::string command = verdict_command(s);
    e["command_line"] = command.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(command);
    e["dp_attention_ranks"] = dp_ranks_of(s);  // > 1: the row's tokens and users are one rank's
    engines.push_back(e);
  }
  j["engines"] = engines;
  return j.dump(2) + "\n";
}

}  // namespace

auto is_engine_all(const options& opts) -> bool { return lowercase(opts.engine) == "all"; }

auto engine_table(const options& opts, std::vector<std::string>& stderr_warnings) -> std::string {
  for (const auto& [given, flag] : {std::pair{opts.csv, "--csv"}, std::pair{opts.svg.has_value(), "--svg"},
                                    std::pair{opts.sweep_context.has_value(), "--sweep-context"},
                                    std::pair{opts.sweep_batch.has_value(), "--sweep-batch"}}) {
    if (given) {
      throw usage_error{fmt::format("{} and --engine all: the table has one row per engine; pick one engine for {}",
                                    opts.flag(flag), opts.flag(flag))};
    }
  }
  if (opts.context_auto) {
    throw usage_error{fmt::format("{} auto and --engine all: auto is vLLM's fit to memory; give a number of tokens, "
                                  "or --engine vllm",
                                  opts.flag("--context-auto"))};
  }
  if (opts.context_model) {  // each engine's own length would differ by row, and the table shows one context
    throw usage_error{fmt::format("{} 0 and --engine all: the engines take different lengths from the model; give a "
                                  "number of tokens, or one engine",
                                  opts.flag("--context-model"))};
  }
  const hf::parsed_config config = load_model(opts.config_path);
  std::vector<engine_row> rows;
  for (engine_kind e : all_engines) {
    options one = opts;
    one.engine = std::string{name(e)};
    engine_row row;
    row.engine = e;
    std::vector<std::string> warnings;
    try {
      row.result = compute_sizing(one, warnings, config);
    } catch (const usage_error& error) {
      if (e == all_engines.front()) {
        throw;  // exact refuses only what no engine takes: the input itself is wrong
      }
      row.refusal = error.message;
    }
    for (const std::string& w : warnings) {
      const bool per_engine = w.find("has no effect with --engine") != std::string::npos;
      if (!per_engine && std::find(stderr_warnings.begin(), stderr_warnings.end(), w) == stderr_warnings.end()) {
        stderr_warnings.push_back(w);
      }
    }
    rows.push_back(std::move(row));
  }
  return opts.json ? json_table(opts, rows) : text_table(opts, rows);
}

}  // namespace kvsize::cli
