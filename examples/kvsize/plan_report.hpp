// SPDX-License-Identifier: MIT
// kvsize command line: the planner's figures as people look at them — the report section with a
// memory bar, the "plan" and "sweep" JSON, the --csv sweep and the --svg chart.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sizing.hpp"

namespace kvsize::cli {

/// Marks of the memory bar: weights, KV, workspace, engine reserve, free.
inline constexpr char bar_weights = 'W';
inline constexpr char bar_kv = 'K';
inline constexpr char bar_workspace = 'a';
inline constexpr char bar_reserve = 'r';
inline constexpr char bar_free = '.';
inline constexpr char bar_capacity = '|';

/// "[WWWWKKKKKKKKaar.....]": `width` marks for max(device memory, needed); when the point does not
/// fit, a '|' marks the device's capacity.
auto memory_bar(const plan_point& p, std::size_t width = 64) -> std::string;

/// The report's first line, the verdict (empty without a plan): "fits: 1 user × 4,096 tokens (up to 64)
/// on 1 × NVIDIA L4 under vLLM 0.19 at gpu_memory_utilization 0.9", or "does not fit: …" with what
/// limits it and the nearest configurations that fit.
auto verdict_line(const sizing& s) -> std::string;

/// What --json's plan.command_line holds and the report's "run it:" lines show: the engine's command
/// for the verdict's configuration, when it fits and the engine has one (kvsize::engine_command_line),
/// for the model `model_placeholder`; else empty.
auto verdict_command(const sizing& s) -> std::string;
/// A llama-server command with `-ngl 999` replaced by `-ngl gpu_slots` and the offload flags of `f`
/// (--n-cpu-moe N, --cpu-moe, -nkvo, each -ot in single quotes) added; gpu_slots 0 keeps -ngl 999.
auto with_offload_flags(std::string command, const offload_figures& f, std::uint32_t gpu_slots) -> std::string;
inline constexpr std::string_view model_placeholder = "<model>";

/// verdict_command as shell lines of at most 100 columns ("  run it: vllm serve <model> … \"), a
/// flag never apart from its value; empty when there is no command.
auto verdict_command_lines(const sizing& s) -> std::string;

/// The "Plan" section of the human report (empty without a plan).
auto plan_section(const sizing& s) -> std::string;

/// {"plan": …} and, with sweeps, the sweep points; merged into the report's JSON object.
void plan_json(const sizing& s, nlohmann::ordered_json& j);

/// --csv: a header, then one row per sweep point (the plan's point without sweeps), every term in bytes.
auto plan_csv(const sizing& s) -> std::string;

/// --svg: memory against context, stacked by term, with the device's capacity line. Each bar
/// segment carries its exact bytes (data-bytes) so that a script can add them up.
auto plan_svg(const sizing& s) -> std::string;

}  // namespace kvsize::cli
