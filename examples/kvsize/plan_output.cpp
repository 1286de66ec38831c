// SPDX-License-Identifier: MIT
// kvsize command line: the planner's figures as --json ("plan", "sweep") and --csv. A point's figures
// are point_fields (field_tables.hpp), rendered here as JSON keys and CSV columns and by
// plan_report.cpp as text rows; a --csv row adds the run's figure_fields and model_fields.
#include <fmt/format.h>

#include <string>

#include "field_tables.hpp"
#include "plan_report.hpp"
#include "results_of.hpp"

namespace kvsize::cli {
namespace {

using json = nlohmann::ordered_json;

auto kv_option_json(const kv_option& k) -> json {
  json j;
  j["available"] = k.available;
  j["dtype"] = std::string{name(k.kv.k)};
  if (k.available) {
    j["fits"] = k.fits;
    j["kv_bytes"] = k.kv_bytes.count();
    j["max_users"] = k.max_users;
    j["max_context"] = k.max_context;
  }
  return j;
}

/// The workspace's terms and what each assumes (rows, positions, dtypes): the plan's detail, kept
/// apart from point_fields because a sweep point has no such words.
auto workspace_json(const workspace_terms& w) -> json {
  json ws;
  ws["logits_bytes"] = w.logits.count();
  ws["logits_positions"] = std::string{name(w.logits_positions)};
  ws["logits_rows"] = w.logits_rows;
  ws["logits_dtype"] = std::string{name(w.logits_dtype)};
  ws["activations_bytes"] = w.activations.count();
  ws["activation_tokens"] = w.activation_tokens;
  ws["activation_dtype"] = std::string{name(w.activation_dtype)};
  ws["sampler_bytes"] = w.sampler.count();
  ws["sampler_rows"] = w.sampler_rows;
  ws["runtime_bytes"] = w.runtime.count();
  ws["total_bytes"] = w.total().count();
  return ws;
}

/// "options": what a shorter context, fewer users, a smaller KV type or a shared prefix buys.
auto options_json(const plan_result& r) -> json {
  json options;
  options["shorter_context"] = {{"context", r.max_context}, {"users", r.point.users}};
  options["fewer_users"] = {{"users", r.max_users}, {"context", r.point.context}};
  options["kv_8bit"] = kv_option_json(r.kv_8bit);
  options["kv_4bit"] = kv_option_json(r.kv_4bit);
  options["prefix_sharing"] = {{"shared_prefix", r.prefix.shared_prefix},
                               {"bytes_saved", r.prefix.saved.count()},
                               {"max_users", r.prefix.max_users}};
  return options;
}

auto decode_json(const decode_cost& d) -> json {
  json decode;
  decode["bytes_per_step"] = d.traffic.total().count();
  decode["weights_bytes"] = d.traffic.weights.count();
  decode["kv_bytes"] = d.traffic.kv.count();
  decode["kv_share"] = d.traffic.kv_share();
  decode["stages"] = d.stages;
  decode["bandwidth_bytes_per_second"] = d.bandwidth != 0 ? json(d.bandwidth) : json(nullptr);
  decode["seconds_per_token"] = d.bandwidth != 0 ? json(d.seconds_per_token) : json(nullptr);
  return decode;
}

/// Each sweep point with its ceilings: the max users at its context and the max context for its
/// users. The sweep runs contexts outer, users inner.
auto sweep_points(const sizing& s) -> std::vector<point_result> {
  const plan_figures& pf = *s.plan;
  std::vector<point_result> points;
  std::size_t i = 0;
  for (std::size_t c = 0; c < pf.sweep_contexts.size(); ++c) {
    for (std::size_t u = 0; u < pf.sweep_users.size(); ++u, ++i) {
      points.push_back(point_of(pf.sweep[i], name(s.engine), pf.sweep_max_users[c], pf.sweep_max_context[u]));
    }
  }
  return points;
}

auto sweep_json(const sizing& s) -> json {
  const plan_figures& pf = *s.plan;
  json sweep;
  sweep["contexts"] = pf.sweep_contexts;
  sweep["users"] = pf.sweep_users;
  json points = json::array();
  for (const auto& q : sweep_points(s)) {
    json point;
    put_json(point, point_fields, q);
    points.push_back(point);
  }
  sweep["points"] = points;
  json max_users = json::array();
  for (std::size_t i = 0; i < pf.sweep_contexts.size(); ++i) {
    max_users.push_back({{"context", pf.sweep_contexts[i]}, {"max_users", pf.sweep_max_users[i]}});
  }
  sweep["max_users"] = max_users;
  json max_context = json::array();
  for (std::size_t i = 0; i < pf.sweep_users.size(); ++i) {
    max_context.push_back({{"users", pf.sweep_users[i]}, {"max_context", pf.sweep_max_context[i]}});
  }
  sweep["max_context"] = max_context;
  return sweep;
}

}  // namespace

void plan_json(const sizing& s, json& j) {
  if (!s.plan) {
    return;
  }
  const plan_figures& pf = *s.plan;
  const plan_result& r = pf.result;
  const plan_point& p = r.point;
  json plan;
  plan["source"] = pf.source;
  plan["bandwidth_bytes_per_second"] = pf.inputs.bandwidth != 0 ? json(pf.inputs.bandwidth) : json(nullptr);
  put_json(plan, point_fields, point_of(p, name(s.engine), r.max_users, r.max_context));
  plan["gpus"] = p.tp * p.pp;
  if (!pf.llama_mapping.empty()) {
    plan["llama_cpp"] = pf.llama_mapping;
  }
  // The engine's command for the request when it fits (<model> stands for the model's id or path).
  const std::string command = verdict_command(s);
  plan["command_line"] = command.empty() ? json(nullptr) : json(command);
  plan["workspace"] = workspace_json(p.workspace);
  plan["context_limit"] = r.context_limit;
  plan["min_tp"] = r.min_tp == 0 ? json(nullptr) : json(r.min_tp);
  plan["options"] = options_json(r);
  plan["decode"] = decode_json(r.decode);
  j["plan"] = plan;
  if (pf.swept) {
    j["sweep"] = sweep_json(s);
  }
}

auto plan_csv(const sizing& s) -> std::string {
  const plan_figures& pf = *s.plan;
  std::string run;  // the run's figures and model: the same cells on every row
  put_csv_cells(run, figure_fields, figures_of(s));
  put_csv_cells(run, model_fields, model_of(s));
  run.back() = '\n';
  std::string out;
  put_csv_header(out, point_fields);
  put_csv_header(out, figure_fields);
  put_csv_header(out, model_fields);
  out.back() = '\n';
  const auto emit = [&](const point_result& q) {
    put_csv_cells(out, point_fields, q);
    out += run;
  };
  if (!pf.swept) {
    emit(point_of(pf.result.point, name(s.engine), pf.result.max_users, pf.result.max_context));
    return out;
  }
  for (const auto& q : sweep_points(s)) {
    emit(q);
  }
  return out;
}

}  // namespace kvsize::cli
