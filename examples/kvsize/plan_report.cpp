// SPDX-License-Identifier: MIT
// kvsize command line: the planner's figures as text — the "Plan" sections with the memory bar. The
// point's rows and the ceilings come from point_fields (field_tables.hpp); --json and --csv render
// the same table (plan_output.cpp), the --svg chart is plan_svg.cpp.
#include "plan_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <string_view>
#include <utility>

#include <kvsize/engines_command.hpp>

#include "field_tables.hpp"
#include "results_of.hpp"
#include "text.hpp"

namespace kvsize::cli {
namespace {

void row(fmt::memory_buffer& out, std::string_view label, std::string_view value) {
  const std::string text = row_text(label, value, 38);
  out.append(text.data(), text.data() + text.size());
}

/// The rows of `keys` of point_fields, rendered from `p`.
template <std::size_t K>
void point_rows(fmt::memory_buffer& out, const std::array<std::string_view, K>& keys, const point_result& p) {
  for (const std::string_view key : keys) {
    if (const auto r = text_row(point_fields, key, p)) {
      row(out, r->first, r->second);
    }
  }
}

/// A section title, wrapped within the report's width.
void title(fmt::memory_buffer& out, std::string_view text) {
  const std::string lines = wrapped("", text, 2);
  out.append(lines.data(), lines.data() + lines.size());
}

/// What the engine's budget rule keeps away from the KV cache, in words.
auto reserve_rule(const sizing& s) -> std::string {
  const budget_rule& r = s.plan->result.point.rule;  // as the fit applied it, with the model's facts
  if (r.setting.empty()) {  // llama.cpp's --fit margin; none for exact and transformers
    return r.margin.count() != 0 ? fmt::format("the --fit margin, {}", r.margin) : std::string{"none"};
  }
  const std::string_view of = r.of_free ? "what is left" : "the device";
  // SGLang's own factor on the setting (budget_rule::engine_factor).
  std::string rule = r.engine_factor != 1.0
                         ? fmt::format("1 − ({} {} × {}) of {}", r.setting, fraction_text(r), r.engine_factor, of)
                         : fmt::format("1 − {} {} of {}", r.setting, fraction_text(r), of);
  if (r.margin.count() != 0) {  // SGLang 0.5.18+: a multimodal model's embedding cache (engines/sglang_vlm.hpp)
    rule += fmt::format(", and {} more kept from the KV cache (SGLang's multimodal embedding cache)", r.margin);
  }
  return rule;
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
  return fmt::format("a forward pass of {} tokens, one layer at a time, {}{}", grouped(w.activation_tokens),
                     name(w.activation_dtype),
                     w.phased ? "; the peak is the larger of this and logits + sampler, which are not live with it"
                              : "");
}

/// The sampler's rows and what each of its elements costs.
auto sampler_words(const sizing& s, const workspace_terms& w, const workspace_overrides& o) -> std::string {
  if (o.sampler) {
    return "--sampler";
  }
  if (s.engine == engine_kind::vllm && kvsize::engines::vllm::uses_model_runner_v2(s.config.spec, s.engine_opts)) {
    return fmt::format("{} rows × vocab, float32, and the Gumbel scratch (Model Runner V2's sampler warm-up), beside "
                       "the forward pass's output",
                       grouped(w.sampler_rows));
  }
  if (w.sampler_rows == 0 || w.sampler_element_bytes == 4) {
    return fmt::format("{} rows × vocab, float32", grouped(w.sampler_rows));
  }
  const std::string_view version = s.capacity && s.capacity->startup ? s.capacity->startup->engine_version : "";
  return fmt::format("{} rows × vocab × {} B ({}{}{}'s sampler warm-up), beside the forward pass's output",
                     grouped(w.sampler_rows), w.sampler_element_bytes, display_name(s.engine),
                     version.empty() ? "" : " ", version);
}

auto runtime_words(const sizing& s) -> std::string {
  if (s.plan->inputs.workspace.runtime) {
    return "--reserve";
  }
  const bytes runtime = s.plan->result.point.workspace.runtime;
  return runtime.count() != 0 ? fmt::format("{}'s runtime buffer", display_name(s.engine))
                              : std::string{"none assumed (--reserve SIZE adds it)"};
}

/// The plan's own point, with its ceilings and the words the text puts beside its figures.
auto plan_point_of(const sizing& s) -> point_result {
  const plan_figures& pf = *s.plan;
  const plan_result& r = pf.result;
  const plan_point& p = r.point;
  point_result q = point_of(p, name(s.engine), r.max_users, r.max_context);
  q.logits_words = logits_words(p.workspace);
  q.activations_words = activations_words(p.workspace, pf.inputs.workspace);
  q.sampler_words = sampler_words(s, p.workspace, pf.inputs.workspace);
  q.runtime_words = runtime_words(s);
  q.non_torch_words = fmt::format("at tp {}: outside the allocator (all-reduce buffers, workspaces; from public "
                                  "start-up logs)",
                                  pf.inputs.options.tp);
  q.buffers_words = "rotary cos/sin cache and vocabulary padding, loaded with the weights";
  q.cuda_graphs_words = "vLLM's estimate (0.20 to 0.22 on V1), as given by --cuda-graph-memory; 0 on Model Runner V2";
  q.reserve_words = reserve_rule(s);
  q.context_limit = r.context_limit;
  return q;
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

/// "Plan: sweep": one line per point of --sweep-context × --sweep-batch (or the --svg chart's points),
/// scaled sizes; then the ceilings per context and per users (point_fields' labels). Exact bytes:
/// --csv and --json.
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
    point_result c;
    c.context = pf.sweep_contexts[i];
    c.max_users = pf.sweep_max_users[i];
    point_rows(out, std::array<std::string_view, 1>{"max_users"}, c);
  }
  for (std::size_t i = 0; i < pf.sweep_users.size(); ++i) {
    point_result u;
    u.users = pf.sweep_users[i];
    u.max_context = pf.sweep_max_context[i];
    point_rows(out, std::array<std::string_view, 1>{"max_context"}, u);
  }
}

/// "Plan: U users × C tokens on DEVICE": the point's rows, the verdict and the memory bar.
void point_section(fmt::memory_buffer& out, const sizing& s, const point_result& q) {
  const plan_figures& pf = *s.plan;
  const plan_point& p = pf.result.point;
  put(out, "\n");
  title(out, fmt::format("Plan: {} {} × {} tokens on {}, engine {}{}", grouped(q.users),
                         plural(q.users, "user", "users"), grouped(q.context), pf.source, q.engine,
                         q.tp * q.pp > 1 ? fmt::format(", tp {} × pp {} (per device)", q.tp, q.pp) : std::string{}));
  if (!pf.llama_mapping.empty()) {
    row(out, "llama.cpp sized as", fmt::format("{} (every slot holds {} tokens)", pf.llama_mapping, grouped(q.context)));
  }
  point_rows(out, plan_point_rows, q);
  put(out, "  {}\n", memory_bar(p));
  put(out, "   {} weights  {} KV cache  {} workspace  {} engine reserve  {} free{}\n", bar_weights, bar_kv,
      bar_workspace, bar_reserve, bar_free, q.fits ? "" : fmt::format("  {} device capacity", bar_capacity));
}

/// "Plan: ceilings": point_fields' ceilings, then the smallest tensor-parallel degree that fits.
void ceilings_section(fmt::memory_buffer& out, const plan_result& r, const point_result& q) {
  put(out, "\nPlan: ceilings\n");
  point_rows(out, plan_ceiling_rows, q);
  const std::uint32_t gpus_per_tp = q.pp;
  row(out, "smallest tensor-parallel degree",
      r.min_tp == 0 ? std::string{"none of 1, 2, 4, 8 fits"}
                    : fmt::format("tp {} ({} {})", r.min_tp, r.min_tp * gpus_per_tp,
                                  plural(r.min_tp * gpus_per_tp, "GPU", "GPUs")));
}

/// "Plan: the options": what a shorter context, fewer users, a smaller KV type or a shared prefix buys.
void options_section(fmt::memory_buffer& out, const plan_result& r) {
  const plan_point& p = r.point;
  put(out, "\nPlan: the options (shorter context, fewer users, a smaller KV cache, a shared prefix)\n");
  row(out, "shorter context",
      r.max_context == 0 ? std::string{"none fits these users"}
                         : fmt::format("{} tokens for {} {}", grouped(r.max_context), grouped(p.users),
                                       plural(p.users, "user", "users")));
  row(out, "fewer users", fmt::format("{} at {} tokens", count_or_unbounded(r.max_users), grouped(p.context)));
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
}

/// "Plan: decode cost": the bytes one decode step reads, and the bandwidth bound on a token.
void decode_section(fmt::memory_buffer& out, const plan_result& r) {
  const plan_point& p = r.point;
  put(out, "\nPlan: decode cost (one step reads every weight and every user's KV once)\n");
  const decode_cost& d = r.decode;
  row(out, "bytes read per step", exact(d.traffic.total()));
  if (d.stages > 1) {
    row(out, "  layer split", fmt::format("a token passes the {} stages in turn: every stage's weights and KV, as one "
                                          "device of each reads them",
                                          d.stages));
  }
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

/// "user" or "users".
auto users_text(std::uint64_t n) -> std::string { return fmt::format("{} user{}", grouped(n), n == 1 ? "" : "s"); }

/// " under vLLM 0.19 at gpu_memory_utilization 0.9": the engine, its release, its fraction setting.
auto engine_words(const sizing& s) -> std::string {
  if (!is_engine(s.engine)) {
    return " with no engine (exact sizing)";
  }
  std::string words = fmt::format(" under {}", display_name(s.engine));
  if (s.capacity && s.capacity->startup && !s.capacity->startup->engine_version.empty()) {
    words += fmt::format(" {}", s.capacity->startup->engine_version);
  }
  const budget_rule& r = s.plan->result.point.rule;  // as the fit applied it, with the model's facts
  if (!r.setting.empty()) {
    words += fmt::format(" at {} {}", r.setting, fraction_text(r));
  }
  // SGLang's DP attention: each rank (one GPU at dp = tp) serves that many users of its own (engines/sglang_dp.hpp).
  if (s.engine == engine_kind::sglang && kvsize::engines::sglang::attention_dp_of(s.config.spec, s.engine_opts) > 1) {
    const std::uint32_t attention_tp = kvsize::engines::sglang::attention_tp_of(s.config.spec, s.engine_opts);
    words += attention_tp == 1 ? std::string{", with DP attention: users per GPU"}
                               : fmt::format(", with DP attention: users per rank of {} GPUs", attention_tp);
  }
  return words;
}

/// What the verdict offers when the question does not fit: fewer users, a shorter context, more GPUs.
auto nearest_words(const plan_result& r) -> std::string {
  const plan_point& p = r.point;
  std::string words;
  const auto add = [&](const std::string& option) { words += (words.empty() ? "; nearest that fits: " : ", or ") + option; };
  if (p.limited_by != plan_limit::weights && r.max_users != 0) {
    add(fmt::format("{} × {} tokens", users_text(r.max_users), grouped(p.context)));
  }
  if (p.limited_by != plan_limit::weights && r.max_context != 0) {
    add(fmt::format("{} × {} tokens", users_text(p.users), grouped(r.max_context)));
  }
  if (r.min_tp > p.tp) {
    add(fmt::format("tp {} ({} GPUs per pipeline stage)", r.min_tp, r.min_tp));
  }
  return words.empty() ? std::string{"; nothing smaller fits on this device"} : words;
}

auto with_offload_flags(std::string command, const offload_figures& f, std::uint32_t gpu_slots) -> std::string {
  const engines::llama_cpp::offload_request& r = f.request;
  std::string flags = gpu_slots != 0 ? fmt::format(" -ngl {}", gpu_slots) : std::string{" -ngl 999"};
  if (r.n_cpu_moe != 0) {
    flags += fmt::format(" --n-cpu-moe {}", r.n_cpu_moe);
  }
  flags += r.cpu_moe ? " --cpu-moe" : "";
  flags += r.kv_offload ? "" : " -nkvo";
  for (const std::string& value : f.override_tensor) {  // quoted for a POSIX shell: ' becomes '\''
    std::string quoted;
    for (const char c : value) {
      quoted += c == '\'' ? std::string{"'\\''"} : std::string(1, c);
    }
    flags += fmt::format(" -ot '{}'", quoted);
  }
  const std::string all_layers = " -ngl 999";
  if (const auto at = command.find(all_layers); at != std::string::npos) {
    command.replace(at, all_layers.size(), flags);
  }
  return command;
}

auto verdict_command(const sizing& s) -> std::string {
  if (!s.plan || !s.plan->result.point.fits()) {
    return {};
  }
  const plan_point& point = s.plan->result.point;
  std::string command =
      engine_command_line(s.engine, point_options(s.plan->inputs, point), point.rule, model_placeholder,
                          s.reasoning_parser, s.model_context);
  if (s.offload) {  // the offload flags the user gave, with every layer on the GPU as the plan sizes it
    command = with_offload_flags(std::move(command), *s.offload, 0);
  }
  return command;
}

auto verdict_command_lines(const sizing& s) -> std::string {
  const std::string command = verdict_command(s);
  if (command.empty()) {
    return {};
  }
  // Words, each flag with its value: "--max-model-len 4096" is one piece.
  std::vector<std::string> pieces;
  std::string_view rest = command;
  while (!rest.empty()) {
    const std::size_t end = rest.find(' ');
    const std::string_view word = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
    if (!pieces.empty() && !word.starts_with('-') && pieces.back().starts_with('-') &&
        pieces.back().find(' ') == std::string::npos) {
      pieces.back() += ' ';
      pieces.back() += word;
    } else {
      pieces.emplace_back(word);
    }
  }
  const std::string_view head = "  run it: ";
  const std::string indent(head.size() + 2, ' ');
  std::string out;
  std::string line{head};
  for (const std::string& piece : pieces) {
    const bool first = line.size() == head.size() || line == indent;
    if (!first && line.size() + 1 + piece.size() + 2 > report_width) {  // room for " \"
      out += line + " \\\n";
      line = indent;
    }
    line += (line.size() == head.size() || line == indent) ? piece : " " + piece;
  }
  return out + line + "\n";
}

auto verdict_line(const sizing& s) -> std::string {
  if (!s.plan) {
    return {};
  }
  const plan_result& r = s.plan->result;
  const plan_point& p = r.point;
  // "1 × NVIDIA L4 (--gpu l4)", or for a size given by hand "1 device of 11.63 GiB (--gpu-memory 12.49GB)".
  const std::uint64_t n = std::uint64_t{p.tp} * p.pp;
  const std::string devices = s.plan->source.rfind("--", 0) == 0
                                  ? fmt::format("{} device{} of {} ({})", n, n == 1 ? "" : "s", p.device_memory,
                                                s.plan->source)
                                  : fmt::format("{} × {}", n, s.plan->source);
  const std::string asked = fmt::format("{} × {} tokens", users_text(p.users), grouped(p.context));
  if (p.fits()) {
    const std::string most = r.max_users > p.users ? fmt::format(" (up to {})", grouped(r.max_users)) : "";
    return wrapped("", fmt::format("fits: {}{} on {}{}", asked, most, devices, engine_words(s)), 2);
  }
  const std::string_view why = p.limited_by == plan_limit::weights ? "the weights and workspace exceed the device"
                               : p.limited_by == plan_limit::slots ? "the scheduler admits fewer sequences"
                                                                   : "the KV cache exceeds the budget";
  // llama.cpp can leave layers (and, with the offload flags, experts or the cache) on the host: say
  // what the split found, the user's own -ngl first.
  std::string partial;
  if (s.offload && s.offload->fits && s.offload->ngl != "all" && s.offload->ngl != "auto") {
    partial = fmt::format("; -ngl {} as asked fits ({} of {} layers on the GPU)", s.offload->ngl,
                          s.offload->asked.gpu_slots, s.offload->asked.slots);
  } else if (s.offload && s.offload->largest && s.offload->largest->gpu_slots > 0) {
    const auto& best = *s.offload->largest;
    partial = fmt::format("; llama.cpp's split fits at -ngl {} ({} of {} layers on the GPU; see the offload section)",
                          best.gpu_slots, best.gpu_slots, best.slots);
  }
  return wrapped("",
                 fmt::format("does not fit: {} on {}{} ({}){}{}", asked, devices, engine_words(s), why,
                             nearest_words(r), partial),
                 2);
}

auto plan_section(const sizing& s) -> std::string {
  if (!s.plan) {
    return {};
  }
  const point_result q = plan_point_of(s);
  fmt::memory_buffer out;
  point_section(out, s, q);
  ceilings_section(out, s.plan->result, q);
  options_section(out, s.plan->result);
  decode_section(out, s.plan->result);
  if (s.plan->swept) {
    sweep_section(out, s);
  }
  return fmt::to_string(out);
}

}  // namespace kvsize::cli
