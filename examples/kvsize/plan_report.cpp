// SPDX-License-Identifier: MIT
// kvsize command line: the planner's figures as text, JSON, CSV and SVG.
#include "plan_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <string_view>
#include <utility>

#include "report.hpp"
#include "text.hpp"

namespace kvsize::cli {
namespace {

using json = nlohmann::ordered_json;

template <typename... Args>
void put(fmt::memory_buffer& out, fmt::format_string<Args...> format, Args&&... args) {
  fmt::format_to(std::back_inserter(out), format, std::forward<Args>(args)...);
}

void row(fmt::memory_buffer& out, std::string_view label, std::string_view value) {
  const std::string text = row_text(label, value, 38);
  out.append(text.data(), text.data() + text.size());
}

/// A section title, wrapped within the report's width.
void title(fmt::memory_buffer& out, std::string_view text) {
  const std::string lines = wrapped("", text, 2);
  out.append(lines.data(), lines.data() + lines.size());
}

auto count_or_unbounded(std::uint64_t n) -> std::string {
  return n == unbounded ? std::string{"unbounded"} : grouped(n);
}

auto plural(std::uint64_t n, std::string_view one, std::string_view many) -> std::string_view {
  return n == 1 ? one : many;
}

/// What the engine's budget rule keeps away from the KV cache, in words (from its budget_rule).
auto reserve_rule(const sizing& s) -> std::string {
  const plan_figures& p = *s.plan;
  engine_options o = p.inputs.options;
  o.device_memory = p.inputs.device_memory;
  const budget_rule r = engine_budget_rule(s.engine, o);
  if (r.margin.count() != 0) {
    return fmt::format("the --fit margin, {}", r.margin);
  }
  if (r.setting.empty()) {
    return "none";
  }
  const std::string fraction = r.decimals != 0 ? fmt::format("{:.{}f}", r.fraction, int{r.decimals}) : fmt::format("{:g}", r.fraction);
  return fmt::format("1 − {} {} of {}", r.setting, fraction, r.of_free ? "what is left" : "the device");
}

auto logits_words(const workspace_terms& w) -> std::string {
  switch (w.logits_positions) {
    case logits_kept::none: return "none on the device";
    case logits_kept::last:
      return fmt::format("{} last positions × vocab, {}", grouped(w.logits_rows), name(w.logits_dtype));
    case logits_kept::all:
      return fmt::format("all {} positions × vocab, {}", grouped(w.logits_rows), name(w.logits_dtype));
  }
  return "?";
}

/// "given" when the user replaced a term, else the assumption behind it.
auto activations_words(const workspace_terms& w, const workspace_overrides& o) -> std::string {
  if (o.activations) {
    return "--activations";
  }
  if (w.activation_tokens == 0) {
    return "none assumed";
  }
  return fmt::format("a forward pass of {} tokens, one layer at a time, {}", grouped(w.activation_tokens),
                     name(w.activation_dtype));
}

auto runtime_words(const sizing& s) -> std::string {
  if (s.plan->inputs.workspace.runtime) {
    return "--reserve";
  }
  const bytes runtime = s.plan->result.point.workspace.runtime;
  return runtime.count() != 0 ? fmt::format("{}'s {} redundancy buffer", display_name(s.engine), runtime)
                              : std::string{"none assumed (--reserve SIZE adds it)"};
}

auto duration(double seconds) -> std::string {
  if (seconds < 1e-3) {
    return fmt::format("{:.1f} µs", seconds * 1e6);
  }
  if (seconds < 1.0) {
    return fmt::format("{:.2f} ms", seconds * 1e3);
  }
  return fmt::format("{:.2f} s", seconds);
}

auto kv_option_line(const kv_option& k, std::uint64_t context, std::uint64_t users) -> std::string {
  if (!k.available) {
    return "not offered by this engine's KV cache (or the model's rows are not whole blocks)";
  }
  return fmt::format("{}: {} {} at {} tokens, {} tokens for {} {}", k.fits ? "fits" : "does not fit",
                     count_or_unbounded(k.max_users), plural(k.max_users, "user", "users"), grouped(context),
                     grouped(k.max_context), grouped(users), plural(users, "user", "users"));
}

auto context_label(std::uint64_t c) -> std::string {
  if (c % 1'048'576 == 0) {
    return fmt::format("{}M", c / 1'048'576);
  }
  if (c % 1'024 == 0) {
    return fmt::format("{}k", c / 1'024);
  }
  return grouped(c);
}

auto point_json(const plan_point& p) -> json {
  json j;
  j["context"] = p.context;
  j["users"] = p.users;
  j["weights_bytes"] = p.weights.count();
  j["kv_bytes"] = p.kv.count();
  j["logits_bytes"] = p.workspace.logits.count();
  j["activations_bytes"] = p.workspace.activations.count();
  j["sampler_bytes"] = p.workspace.sampler.count();
  j["runtime_bytes"] = p.workspace.runtime.count();
  j["workspace_bytes"] = p.workspace.total().count();
  j["reserve_bytes"] = p.reserve.count();
  j["kv_budget_bytes"] = p.kv_budget.count();
  j["free_bytes"] = p.free().count();
  j["needed_bytes"] = p.needed().count();
  j["fits"] = p.fits();
  j["limited_by"] = p.fits() ? json(nullptr) : json(std::string{name(p.limited_by)});
  j["admitted"] = p.admitted;
  return j;
}

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

auto xml_escape(std::string_view text) -> std::string {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

/// The points the chart draws: the sweep at the plan's users (else at the first users swept).
auto chart_points(const plan_figures& p) -> std::vector<plan_point> {
  std::vector<plan_point> points;
  const std::uint64_t users = std::find(p.sweep_users.begin(), p.sweep_users.end(), p.result.point.users) !=
                                      p.sweep_users.end()
                                  ? p.result.point.users
                                  : (p.sweep_users.empty() ? p.result.point.users : p.sweep_users.front());
  for (const auto& q : p.sweep) {
    if (q.users == users) {
      points.push_back(q);
    }
  }
  if (points.empty()) {
    points.push_back(p.result.point);
  }
  return points;
}

/// "Plan: sweep": one line per point of --sweep-context × --sweep-batch (or the --svg chart's points),
/// scaled sizes; then the ceilings per context and per users. Exact bytes: --csv and --json.
void sweep_section(fmt::memory_buffer& out, const sizing& s) {
  const plan_figures& pf = *s.plan;
  put(out, "\nPlan: sweep, memory of one device (every term in bytes: --csv or --json)\n");
  const plan_point& first = pf.sweep.front();
  const bool same_reserve = std::all_of(pf.sweep.begin(), pf.sweep.end(),
                                        [&](const plan_point& q) { return q.reserve == first.reserve; });
  row(out, "weights at every point", exact(first.weights));
  row(out, "engine reserve", same_reserve ? exact(first.reserve) : std::string{"varies: see --csv"});
  put(out, "  {:>11}  {:>9}  {:>11}  {:>11}  {:>11}  {:>11}  {}\n", "context", "users", "KV cache", "workspace",
      "needed", "free", "fits");
  for (const plan_point& q : pf.sweep) {
    put(out, "  {:>11}  {:>9}  {:>11}  {:>11}  {:>11}  {:>11}  {}\n", grouped(q.context), grouped(q.users),
        fmt::format("{}", q.kv), fmt::format("{}", q.workspace.total()), fmt::format("{}", q.needed()),
        fmt::format("{}", q.free()), q.fits() ? std::string{"yes"} : fmt::format("NO: {}", name(q.limited_by)));
  }
  put(out, "\nPlan: sweep ceilings\n");
  for (std::size_t i = 0; i < pf.sweep_contexts.size(); ++i) {
    row(out, fmt::format("max users at {} tokens", grouped(pf.sweep_contexts[i])),
        count_or_unbounded(pf.sweep_max_users[i]));
  }
  for (std::size_t i = 0; i < pf.sweep_users.size(); ++i) {
    row(out, fmt::format("max context for {} {}", grouped(pf.sweep_users[i]), plural(pf.sweep_users[i], "user", "users")),
        fmt::format("{} tokens", grouped(pf.sweep_max_context[i])));
  }
}

}  // namespace

auto memory_bar(const plan_point& p, std::size_t width) -> std::string {
  const std::array<std::pair<bytes, char>, 5> parts{{{p.weights, bar_weights},
                                                     {p.kv, bar_kv},
                                                     {p.workspace.total(), bar_workspace},
                                                     {p.reserve, bar_reserve},
                                                     {p.free(), bar_free}}};
  const bytes scale = max(p.device_memory, p.needed());
  std::string bar(width, bar_free);
  if (scale.count() == 0) {
    return "[" + bar + "]";
  }
  // Cumulative rounding: the marks of all parts add up to `width` exactly.
  const auto mark = [&](bytes b) {
    return static_cast<std::size_t>(std::floor(b.in(scale) * static_cast<double>(width) + 0.5));
  };
  bytes cumulative{0};
  std::size_t from = 0;
  for (const auto& [size, c] : parts) {
    cumulative += size;
    const std::size_t to = std::min(width, mark(cumulative));
    for (std::size_t i = from; i < to; ++i) {
      bar[i] = c;
    }
    from = std::max(from, to);
  }
  if (p.needed() > p.device_memory) {
    bar[std::min(width - 1, mark(p.device_memory))] = bar_capacity;
  }
  return "[" + bar + "]";
}

auto plan_section(const sizing& s) -> std::string {
  if (!s.plan) {
    return {};
  }
  const plan_figures& pf = *s.plan;
  const plan_result& r = pf.result;
  const plan_point& p = r.point;
  fmt::memory_buffer out;
  put(out, "\n");
  title(out, fmt::format("Plan: {} {} × {} tokens on {}, engine {}{}", grouped(p.users),
                         plural(p.users, "user", "users"), grouped(p.context), pf.source, name(s.engine),
                         p.tp * p.pp > 1 ? fmt::format(", tp {} × pp {} (per device)", p.tp, p.pp) : std::string{}));
  if (!pf.llama_mapping.empty()) {
    row(out, "llama.cpp sized as", fmt::format("{} (every slot holds {} tokens)", pf.llama_mapping, grouped(p.context)));
  }
  row(out, "device memory", exact(p.device_memory));
  row(out, fmt::format("weights{}", p.tp * p.pp > 1 ? " on this device" : ""), exact(p.weights));
  row(out, fmt::format("KV cache, {} × {} tokens", grouped(p.users), grouped(p.context)), exact(p.kv));
  row(out, "workspace", exact(p.workspace.total()));
  row(out, "  logits", fmt::format("{}: {}", exact(p.workspace.logits), logits_words(p.workspace)));
  row(out, "  activations",
      fmt::format("{}: {}", exact(p.workspace.activations), activations_words(p.workspace, pf.inputs.workspace)));
  row(out, "  sampler",
      fmt::format("{}: {}", exact(p.workspace.sampler),
                  pf.inputs.workspace.sampler
                      ? std::string{"--sampler"}
                      : fmt::format("{} rows × vocab, float32", grouped(p.workspace.sampler_rows))));
  row(out, "  runtime", fmt::format("{}: {}", exact(p.workspace.runtime), runtime_words(s)));
  row(out, "engine reserve", fmt::format("{}: {}", exact(p.reserve), reserve_rule(s)));
  row(out, "free", exact(p.free()));
  std::string verdict;
  switch (p.limited_by) {
    case plan_limit::none: verdict = "yes"; break;
    case plan_limit::weights:
      verdict = fmt::format("NO: weights and workspace alone exceed the device by {}",
                            exact(p.weights + p.workspace.total() - min(p.device_memory, p.weights + p.workspace.total())));
      break;
    case plan_limit::memory:
      verdict = fmt::format("NO: the engine admits {} at this context (KV needs {}, its budget is {})",
                            count_or_unbounded(p.admitted), exact(p.kv), exact(p.kv_budget));
      break;
    case plan_limit::slots:
      verdict = fmt::format("NO: the scheduler runs at most {} sequences at once", count_or_unbounded(p.slot_cap));
      break;
  }
  row(out, "fits", verdict);
  put(out, "  {}\n", memory_bar(p));
  put(out, "   {} weights  {} KV cache  {} workspace  {} engine reserve  {} free{}\n", bar_weights, bar_kv,
      bar_workspace, bar_reserve, bar_free, p.fits() ? "" : fmt::format("  {} device capacity", bar_capacity));

  put(out, "\nPlan: ceilings\n");
  row(out, fmt::format("max users at {} tokens", grouped(p.context)), count_or_unbounded(r.max_users));
  row(out, fmt::format("max context for {} {}", grouped(p.users), plural(p.users, "user", "users")),
      fmt::format("{} tokens{}", grouped(r.max_context),
                  r.max_context == r.context_limit && r.max_context != 0 ? " (the search limit)" : ""));
  if (p.slot_cap != unbounded) {
    row(out, "scheduler cap on running sequences", grouped(p.slot_cap));
  }
  const std::uint32_t gpus_per_tp = p.pp;
  row(out, "smallest tensor-parallel degree",
      r.min_tp == 0 ? std::string{"none of 1, 2, 4, 8 fits"}
                    : fmt::format("tp {} ({} {})", r.min_tp, r.min_tp * gpus_per_tp,
                                  plural(r.min_tp * gpus_per_tp, "GPU", "GPUs")));

  put(out, "\nPlan: the options (shorter context, fewer users, a smaller KV cache, a shared prefix)\n");
  row(out, "shorter context",
      r.max_context == 0 ? std::string{"none fits these users"}
                         : fmt::format("{} tokens for {} {}", grouped(r.max_context), grouped(p.users),
                                       plural(p.users, "user", "users")));
  row(out, "fewer users",
      fmt::format("{} at {} tokens", count_or_unbounded(r.max_users), grouped(p.context)));
  row(out, fmt::format("8-bit KV cache ({})", name(r.kv_8bit.kv.k)), kv_option_line(r.kv_8bit, p.context, p.users));
  row(out, fmt::format("4-bit KV cache ({})", name(r.kv_4bit.kv.k)), kv_option_line(r.kv_4bit, p.context, p.users));
  if (r.prefix.shared_prefix == 0) {
    row(out, "prefix sharing", "give --shared-prefix N (tokens every user's prompt shares)");
  } else {
    row(out, fmt::format("prefix sharing ({} tokens)", grouped(r.prefix.shared_prefix)),
        r.prefix.saved.count() == 0
            ? std::string{"saves nothing: this engine holds no shared prefix once here (llama.cpp: only with --kv-unified)"}
            : fmt::format("saves {}; {} users at {} tokens", exact(r.prefix.saved),
                          count_or_unbounded(r.prefix.max_users), grouped(p.context)));
  }

  put(out, "\nPlan: decode cost (one step reads every weight and every user's KV once)\n");
  const decode_cost& d = r.decode;
  row(out, "bytes read per step", exact(d.traffic.total()));
  row(out, "  weights", fmt::format("{}", d.traffic.weights));
  row(out, "  KV cache", fmt::format("{}: {:.1f}% of the bytes read", d.traffic.kv, 100.0 * d.traffic.kv_share()));
  if (d.bandwidth != 0) {
    const double steps = 1.0 / d.seconds_per_token;
    row(out, "time per output token (lower bound)",
        fmt::format("{} at {:g} GB/s: at most {:.1f} tokens/s per user; {} tokens/s for {} {}",
                    duration(d.seconds_per_token), static_cast<double>(d.bandwidth) / 1e9, steps,
                    grouped(static_cast<std::uint64_t>(steps * static_cast<double>(p.users))), grouped(p.users),
                    plural(p.users, "user", "users")));
  } else {
    row(out, "time per output token", "needs the device's bandwidth: give --gpu NAME or --bandwidth RATE");
  }
  if (pf.swept) {
    sweep_section(out, s);
  }
  return fmt::to_string(out);
}

void plan_json(const sizing& s, json& j) {
  if (!s.plan) {
    return;
  }
  const plan_figures& pf = *s.plan;
  const plan_result& r = pf.result;
  const plan_point& p = r.point;
  json plan;
  plan["source"] = pf.source;
  plan["device_memory_bytes"] = p.device_memory.count();
  plan["bandwidth_bytes_per_second"] = pf.inputs.bandwidth != 0 ? json(pf.inputs.bandwidth) : json(nullptr);
  plan["engine"] = std::string{name(s.engine)};
  plan["context"] = p.context;
  plan["users"] = p.users;
  plan["tp"] = p.tp;
  plan["pp"] = p.pp;
  plan["gpus"] = p.tp * p.pp;
  if (!pf.llama_mapping.empty()) {
    plan["llama_cpp"] = pf.llama_mapping;
  }
  plan["weights_bytes"] = p.weights.count();
  plan["kv_bytes"] = p.kv.count();
  json ws;
  ws["logits_bytes"] = p.workspace.logits.count();
  ws["logits_positions"] = std::string{name(p.workspace.logits_positions)};
  ws["logits_rows"] = p.workspace.logits_rows;
  ws["logits_dtype"] = std::string{name(p.workspace.logits_dtype)};
  ws["activations_bytes"] = p.workspace.activations.count();
  ws["activation_tokens"] = p.workspace.activation_tokens;
  ws["activation_dtype"] = std::string{name(p.workspace.activation_dtype)};
  ws["sampler_bytes"] = p.workspace.sampler.count();
  ws["sampler_rows"] = p.workspace.sampler_rows;
  ws["runtime_bytes"] = p.workspace.runtime.count();
  ws["total_bytes"] = p.workspace.total().count();
  plan["workspace"] = ws;
  plan["workspace_bytes"] = p.workspace.total().count();
  plan["reserve_bytes"] = p.reserve.count();
  plan["kv_budget_bytes"] = p.kv_budget.count();
  plan["free_bytes"] = p.free().count();
  plan["needed_bytes"] = p.needed().count();
  plan["fits"] = p.fits();
  plan["limited_by"] = p.fits() ? json(nullptr) : json(std::string{name(p.limited_by)});
  plan["admitted"] = p.admitted;
  plan["slot_cap"] = p.slot_cap == unbounded ? json(nullptr) : json(p.slot_cap);
  plan["max_users"] = r.max_users;
  plan["max_context"] = r.max_context;
  plan["context_limit"] = r.context_limit;
  plan["min_tp"] = r.min_tp == 0 ? json(nullptr) : json(r.min_tp);
  json options;
  options["shorter_context"] = {{"context", r.max_context}, {"users", p.users}};
  options["fewer_users"] = {{"users", r.max_users}, {"context", p.context}};
  options["kv_8bit"] = kv_option_json(r.kv_8bit);
  options["kv_4bit"] = kv_option_json(r.kv_4bit);
  options["prefix_sharing"] = {{"shared_prefix", r.prefix.shared_prefix},
                               {"bytes_saved", r.prefix.saved.count()},
                               {"max_users", r.prefix.max_users}};
  plan["options"] = options;
  const decode_cost& d = r.decode;
  json decode;
  decode["bytes_per_step"] = d.traffic.total().count();
  decode["weights_bytes"] = d.traffic.weights.count();
  decode["kv_bytes"] = d.traffic.kv.count();
  decode["kv_share"] = d.traffic.kv_share();
  decode["bandwidth_bytes_per_second"] = d.bandwidth != 0 ? json(d.bandwidth) : json(nullptr);
  decode["seconds_per_token"] = d.bandwidth != 0 ? json(d.seconds_per_token) : json(nullptr);
  plan["decode"] = decode;
  j["plan"] = plan;

  if (pf.swept) {
    json sweep;
    sweep["contexts"] = pf.sweep_contexts;
    sweep["users"] = pf.sweep_users;
    json points = json::array();
    for (const auto& q : pf.sweep) {
      points.push_back(point_json(q));
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
    j["sweep"] = sweep;
  }
}

auto plan_csv(const sizing& s) -> std::string {
  const plan_figures& pf = *s.plan;
  fmt::memory_buffer out;
  put(out,
      "engine,device_memory_bytes,tp,pp,context,users,weights_bytes,kv_bytes,logits_bytes,activations_bytes,"
      "sampler_bytes,runtime_bytes,workspace_bytes,reserve_bytes,free_bytes,needed_bytes,fits,limited_by,admitted,"
      "max_users_at_context,max_context_for_users\n");
  const auto emit = [&](const plan_point& p, std::uint64_t max_users, std::uint64_t max_context) {
    put(out, "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", name(s.engine),
        p.device_memory.count(), p.tp, p.pp, p.context, p.users, p.weights.count(), p.kv.count(),
        p.workspace.logits.count(), p.workspace.activations.count(), p.workspace.sampler.count(),
        p.workspace.runtime.count(), p.workspace.total().count(), p.reserve.count(), p.free().count(),
        p.needed().count(), p.fits() ? "true" : "false", p.fits() ? std::string_view{} : name(p.limited_by),
        p.admitted, max_users, max_context);
  };
  if (!pf.swept) {
    emit(pf.result.point, pf.result.max_users, pf.result.max_context);
    return fmt::to_string(out);
  }
  std::size_t i = 0;
  for (std::size_t c = 0; c < pf.sweep_contexts.size(); ++c) {
    for (std::size_t u = 0; u < pf.sweep_users.size(); ++u, ++i) {
      emit(pf.sweep[i], pf.sweep_max_users[c], pf.sweep_max_context[u]);
    }
  }
  return fmt::to_string(out);
}

auto plan_svg(const sizing& s) -> std::string {
  const plan_figures& pf = *s.plan;
  const std::vector<plan_point> points = chart_points(pf);
  constexpr double width = 960;
  constexpr double height = 560;
  constexpr double left = 100;
  constexpr double right = 30;
  constexpr double top = 70;
  constexpr double bottom = 80;
  const double plot_w = width - left - right;
  const double plot_h = height - top - bottom;
  bytes highest = pf.inputs.device_memory;
  for (const auto& p : points) {
    highest = max(highest, p.needed());
  }
  // y axis: GiB ticks at 1, 2 or 5 × 10^k GiB, at most 10 of them.
  const double highest_gib = std::max(highest.in(GiB), 1e-9);
  double step = 1e-3;
  for (double decade = 1e-3; decade < 1e6; decade *= 10) {
    bool found = false;
    for (double m : {1.0, 2.0, 5.0}) {
      if (highest_gib / (m * decade) <= 10) {
        step = m * decade;
        found = true;
        break;
      }
    }
    if (found) {
      break;
    }
  }
  const double top_gib = std::ceil(highest_gib * 1.05 / step) * step;
  const double top_bytes = top_gib * static_cast<double>(GiB.count());
  const auto y_of = [&](double b) { return top + plot_h * (1.0 - b / top_bytes); };

  fmt::memory_buffer out;
  const plan_point& asked = pf.result.point;
  put(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  put(out,
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"12\" data-engine=\"{2}\" data-users=\"{3}\" "
      "data-device-memory=\"{4}\">\n",
      width, height, xml_escape(name(s.engine)), points.front().users, pf.inputs.device_memory.count());
  put(out, "<title>{}</title>\n",
      xml_escape(fmt::format("{}: memory of one device against context, {} users, engine {}", model_name(s),
                             points.front().users, name(s.engine))));
  put(out, "<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"white\"/>\n", width, height);
  put(out, "<text x=\"{}\" y=\"24\" font-size=\"16\" font-weight=\"bold\">{}</text>\n", left,
      xml_escape(fmt::format("{} on {}", model_name(s), pf.source)));
  put(out, "<text x=\"{}\" y=\"44\">{}</text>\n", left,
      xml_escape(fmt::format("engine {}, {} users, KV {}/{}, tp {}, pp {}: bytes per device against context (tokens "
                             "per user)",
                             name(s.engine), grouped(points.front().users), name(s.kv.k), name(s.kv.v), asked.tp,
                             asked.pp)));

  // Axes and ticks.
  put(out, "<g class=\"axes\" stroke=\"#333\">\n");
  put(out, "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", left, top, top + plot_h);
  put(out, "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\n", left, top + plot_h, left + plot_w);
  put(out, "</g>\n<g class=\"y-ticks\" fill=\"#333\" text-anchor=\"end\">\n");
  for (double g = 0; g <= top_gib + step / 2; g += step) {
    const double y = y_of(g * static_cast<double>(GiB.count()));
    put(out, "<line x1=\"{}\" y1=\"{:.2f}\" x2=\"{}\" y2=\"{:.2f}\" stroke=\"#ddd\"/>\n", left, y, left + plot_w, y);
    put(out, "<text x=\"{}\" y=\"{:.2f}\">{:g} GiB</text>\n", left - 6, y + 4, g);
  }
  put(out, "</g>\n");

  // Bars.
  struct term {
    const char* name;
    const char* color;
  };
  constexpr std::array<term, 4> terms{{{"weights", "#4e79a7"},
                                       {"kv", "#f28e2b"},
                                       {"workspace", "#59a14f"},
                                       {"reserve", "#bab0ac"}}};
  const double slot = plot_w / static_cast<double>(points.size());
  const double bar_w = slot * 0.7;
  put(out, "<g class=\"bars\">\n");
  for (std::size_t i = 0; i < points.size(); ++i) {
    const plan_point& p = points[i];
    const double x = left + slot * static_cast<double>(i) + (slot - bar_w) / 2;
    put(out,
        "<g class=\"point\" data-context=\"{}\" data-users=\"{}\" data-needed=\"{}\" data-free=\"{}\" "
        "data-fits=\"{}\">\n",
        p.context, p.users, p.needed().count(), p.free().count(), p.fits() ? "true" : "false");
    const std::array<bytes, 4> sizes{p.weights, p.kv, p.workspace.total(), p.reserve};
    double below = 0;
    for (std::size_t t = 0; t < terms.size(); ++t) {
      const double above = below + static_cast<double>(sizes[t].count());
      const double y1 = y_of(above);
      const double y0 = y_of(below);
      put(out,
          "<rect class=\"{0}\" data-term=\"{0}\" data-bytes=\"{1}\" x=\"{2:.2f}\" y=\"{3:.2f}\" width=\"{4:.2f}\" "
          "height=\"{5:.2f}\" fill=\"{6}\"><title>{7}</title></rect>\n",
          terms[t].name, sizes[t].count(), x, y1, bar_w, std::max(0.0, y0 - y1), terms[t].color,
          xml_escape(fmt::format("{} at {} tokens: {} ({} B)", terms[t].name, grouped(p.context), sizes[t],
                                 grouped(sizes[t].count()))));
      below = above;
    }
    put(out, "<text x=\"{:.2f}\" y=\"{:.2f}\" text-anchor=\"middle\">{}</text>\n", x + bar_w / 2,
        top + plot_h + 16, xml_escape(context_label(p.context)));
    if (!p.fits()) {
      put(out, "<text x=\"{:.2f}\" y=\"{:.2f}\" text-anchor=\"middle\" fill=\"#e15759\">✗</text>\n", x + bar_w / 2,
          y_of(below) - 4);
    }
    put(out, "</g>\n");
  }
  put(out, "</g>\n");

  // The device's capacity.
  const double cap_y = y_of(static_cast<double>(pf.inputs.device_memory.count()));
  put(out,
      "<line class=\"capacity\" data-bytes=\"{}\" x1=\"{}\" y1=\"{:.2f}\" x2=\"{}\" y2=\"{:.2f}\" stroke=\"#e15759\" "
      "stroke-width=\"2\" stroke-dasharray=\"6 4\"/>\n",
      pf.inputs.device_memory.count(), left, cap_y, left + plot_w, cap_y);
  put(out, "<text x=\"{}\" y=\"{:.2f}\" text-anchor=\"end\" fill=\"#e15759\">{}</text>\n", left + plot_w, cap_y - 6,
      xml_escape(fmt::format("device memory {} ({} B)", pf.inputs.device_memory, grouped(pf.inputs.device_memory.count()))));
  put(out, "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">context (tokens per user; k = 1,024)</text>\n",
      left + plot_w / 2, top + plot_h + 40);

  // Legend.
  put(out, "<g class=\"legend\">\n");
  double lx = left;
  const double ly = height - 22;
  for (const auto& t : terms) {
    put(out, "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>\n", lx, ly - 10, t.color);
    put(out, "<text x=\"{}\" y=\"{}\">{}</text>\n", lx + 16, ly, t.name);
    lx += 110;
  }
  put(out, "</g>\n</svg>\n");
  return fmt::to_string(out);
}

}  // namespace kvsize::cli
