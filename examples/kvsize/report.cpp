// SPDX-License-Identifier: MIT
// kvsize command line: the human report and --json, rendered from the result model through the
// field tables (field_tables.hpp); the plan's sections come from plan_report.cpp.
#include "report.hpp"

#include "field_tables.hpp"
#include <kvsize/engines_command.hpp>
#include "plan_report.hpp"
#include "results_of.hpp"
#include "text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <utility>
#include <nlohmann/json.hpp>

#include <kvsize/engines_fmt.hpp>
#include <kvsize/fmt.hpp>

namespace kvsize::cli {

auto model_name(const sizing& s) -> std::string {
  if (!s.config.architecture.empty()) {
    return s.config.architecture;
  }
  return s.config.model_type.empty() ? std::string{"unknown"} : s.config.model_type;
}

namespace {

/// Layers that keep the same thing for the same reason, whatever their index: Nemotron-H's 54
/// Mamba layers are one line, not 54.
struct explain_group {
  layer_kind kind;
  bool recurrent;
  std::string reason;  ///< rendered for any one of its layers (hf::reason_index::any_layer)
  std::uint32_t count = 0;
  std::string spans;   ///< "0-6, 9, 11-13"
};

auto explain_groups(const std::vector<hf::layer_group_note>& notes) -> std::vector<explain_group> {
  std::vector<explain_group> groups;
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> ranges;
  for (const auto& n : notes) {
    const std::string reason = hf::render_reason(n.why, n.first_layer, n.count, hf::reason_index::any_layer);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const explain_group& g) {
      return g.kind == n.kind && g.recurrent == n.recurrent && g.reason == reason;
    });
    if (it == groups.end()) {
      groups.push_back({n.kind, n.recurrent, reason, 0, {}});
      ranges.emplace_back();
      it = std::prev(groups.end());
    }
    auto& r = ranges[static_cast<std::size_t>(it - groups.begin())];
    if (!r.empty() && r.back().second + 1 == n.first_layer) {
      r.back().second = n.first_layer + n.count - 1;
    } else {
      r.emplace_back(n.first_layer, n.first_layer + n.count - 1);
    }
    it->count += n.count;
  }
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (const auto& [first, last] : ranges[g]) {
      groups[g].spans += fmt::format("{}{}", groups[g].spans.empty() ? "" : ", ",
                                     first == last ? fmt::format("{}", first) : fmt::format("{}-{}", first, last));
    }
  }
  return groups;
}

void row(fmt::memory_buffer& out, std::string_view label, std::string_view value) {
  const std::string text = row_text(label, value, 36);
  out.append(text.data(), text.data() + text.size());
}

/// A line of prose (a section title, a note): wrapped within the report's width.
void prose(fmt::memory_buffer& out, std::string_view head, std::string_view text, std::size_t hanging) {
  const std::string lines = wrapped(head, text, hanging);
  out.append(lines.data(), lines.data() + lines.size());
}

/// Where the context came from: "option" (--context), "default" (4,096), "default_capped" (4,096
/// capped at a smaller model maximum), "auto" (vLLM's --max-model-len auto; "auto_failed" where the weights or not
/// one token fit, sized at the derived length) or "model" (llama.cpp's -c 0: the model's own). JSON's
/// "context_source".
auto context_source(const sizing& s) -> std::string_view {
  const std::uint64_t model_max = s.model_context;
  if (s.context_from_model) {
    return "model";
  }
  if (s.context_given) {
    return "option";
  }
  if (s.auto_fit_from != 0) {
    return s.auto_fit_failed ? "auto_failed" : "auto";
  }
  return model_max != 0 && s.context == model_max && model_max < default_context ? "default_capped" : "default";
}

/// Whether the engine found no length in the config and took its own fallback (2,048: vllm_context.hpp,
/// sglang_context.hpp, trtllm_context.hpp): the keys each reads differ (SGLang reads neither seq_len nor
/// max_target_positions, max_seq_length or n_ctx, vLLM never n_ctx, TensorRT-LLM max_position_embeddings alone).
auto engine_falls_back(const sizing& s) -> bool {
  const stated_context& c = s.config.spec.stated;
  if (!c.keys_read) {
    return false;
  }
  return s.engine == engine_kind::vllm     ? engines::vllm::stated_max_model_len(c) == 0
         : s.engine == engine_kind::sglang ? engines::sglang::stated_context_length(c) == 0
         : s.engine == engine_kind::trtllm ? engines::trtllm::falls_back_to_default(s.config.spec)
                                           : false;
}

/// Where the context came from, and what the engine would size without --context.
auto context_words(const sizing& s) -> std::string {
  const std::uint64_t engine_default = engine_default_context(s.engine, s.config.spec, s.engine_opts);
  const std::string_view from = context_source(s);
  if (from == "model") {
    const std::string_view caveat = default_context_caveat(s.engine);  // llama.cpp: "or less with --fit"
    return fmt::format("{} tokens (-c 0: the model's own, {}{}{})", grouped(s.context),
                       engine_default == 0 ? std::string{"as the config states it"}
                                           : fmt::format("as {} takes it", display_name(s.engine)),
                       caveat.empty() ? "" : ", ", caveat);
  }
  if (from == "auto" || from == "auto_failed") {
    // vLLM's log: "Auto-fit max_model_len: reduced from %d to %d to fit in available GPU memory", or "full model
    // context length %d fits in available GPU memory".
    if (s.auto_fit_failed) {
      return fmt::format("{} tokens (--max-model-len auto: vLLM's derived length; {}, so vLLM stops before its fit)",
                         grouped(s.context),
                         s.capacity && !s.capacity->weights_fit ? "the weights do not fit" : "not one token fits");
    }
    return fmt::format("{} tokens (--max-model-len auto: vLLM's fit to the KV budget, {})", grouped(s.context),
                       s.context < s.auto_fit_from ? fmt::format("reduced from {}", grouped(s.auto_fit_from))
                                                   : std::string{"the model's full length fits"});
  }
  const std::string source =
      from == "option"           ? std::string{"--context"}
      : from == "default_capped" ? fmt::format("kvsize's default {}, capped at the model's maximum", grouped(default_context))
                                 : std::string{"kvsize's default"};
  std::string engine;
  if (engine_falls_back(s)) {
    engine = fmt::format("; the config states no length {} reads: it falls back to {}{}", display_name(s.engine),
                         grouped(engine_default),
                         engine_default == s.context ? std::string{} : fmt::format(": pass --context {}", engine_default));
  } else if (engine_default == 0) {
    // transformers has no setting; llama.cpp has one, but no length the config states.
    engine = !is_engine(s.engine)                   ? std::string{}
             : s.engine == engine_kind::transformers ? fmt::format("; {} has no context setting", display_name(s.engine))
                                                     : std::string{"; the config states no maximum: pass --context"};
  } else if (engine_default == s.context) {
    engine = fmt::format("; {} would use the same by default", display_name(s.engine));
  } else {
    const std::string_view setting = default_context_setting(s.engine);
    const std::string_view caveat = default_context_caveat(s.engine);
    engine = fmt::format("; {}{}{} would use the model's {}{}{}: pass --context {}", display_name(s.engine),
                         setting.empty() ? "" : "'s ", setting, grouped(engine_default), caveat.empty() ? "" : ", ",
                         caveat, engine_default);
  }
  return fmt::format("{} tokens ({}{})", grouped(s.context), source, engine);
}

/// The rows of `keys`, each field of `table` rendered from `model`, as row() lays them out.
template <typename M, std::size_t N, std::size_t K>
void rows(fmt::memory_buffer& out, const std::array<field<M>, N>& table, const std::array<std::string_view, K>& keys,
          const M& model) {
  for (const std::string_view key : keys) {
    if (const auto r = text_row(table, key, model)) {
      row(out, r->first, r->second);
    }
  }
}

/// The config's path, the model line (model_fields through model_line) and where the language
/// model was read from.
void model_section(fmt::memory_buffer& out, const sizing& s) {
  prose(out, "", s.config_path, 2);
  prose(out, "  ", filled(model_line, model_of(s)), 4);
  if (!s.config.text_config_pointer.empty()) {
    put(out, "  language model read from {}\n", s.config.text_config_pointer);
  }
}

/// "KV cache (engine ..., K ..., V ...)", the context, then the KV rows of figure_fields; then the
/// logits' and the weights' rows.
void figure_sections(fmt::memory_buffer& out, const sizing& s) {
  const engine_sizing& cache = s.cache;
  const figures_result f = figures_of(s);
  const bool split = s.engine_opts.tp > 1 || s.engine_opts.pp > 1;
  put(out, "\n");
  prose(out, "",
        fmt::format("KV cache (engine {}, K {}, V {}{})", name(s.engine), name(s.kv.k), name(s.kv.v),
                    split ? fmt::format("; per device: tp {}, pp {}, layers {}-{}", s.engine_opts.tp,
                                        s.engine_opts.pp, cache.first_layer,
                                        cache.first_layer + cache.stage_layers - 1)
                          : std::string{}),
        2);
  row(out, "context", context_words(s));
  rows(out, figure_fields, kv_rows, f);
  put(out, "\nLogits ({})\n", name(serving_dtype(s.engine, s.dtype_facts)));
  rows(out, figure_fields, logits_rows, f);
  put(out, "\nWeights\n");
  rows(out, figure_fields, weights_rows, f);
}

/// "KV capacity on ...": the engine's budget rule applied to the device (or --kv-memory).
void capacity_section(fmt::memory_buffer& out, const sizing& s) {
  const auto& c = *s.capacity;
  const auto& f = c.figures;
  put(out, "\n");
  prose(out, "", fmt::format("KV capacity on {}", c.source), 2);
  put(out, "{}", c.weights_per_device ? "  (the engine's KV budget rule, after the workspace of the plan below)\n"
                                      : "  (the engine's KV budget rule; the plan below adds workspace)\n");
  if (c.device_memory) {
    row(out, "device memory", fmt::format("{} = {}", exact(*c.device_memory), fmt::format("{}", as_si(*c.device_memory))));
  }
  if (c.weights_per_device) {
    row(out, "weights per device", exact(*c.weights_per_device));
    if (c.weights_whole_per_device && *c.weights_whole_per_device != bytes{0}) {
      row(out, "", fmt::format("of which {} held whole on every tensor-parallel rank (the engines' replicated "
                               "layers: norms, routers, MLA's down-projections; K/V of a single KV head; under DP "
                               "attention what a rank does not split)",
                               exact(*c.weights_whole_per_device)));
    }
    if (!c.weights_fit) {
      row(out, "", "the weights DO NOT FIT: nothing is left for the KV cache");
    }
  }
  row(out, "memory for the KV cache", exact(c.kv_budget));
  row(out, "max tokens", count_or_unbounded(f.max_tokens));
  row(out, fmt::format("max sequences of {} tokens", grouped(s.context)),
      count_or_unbounded(f.max_sequences));
  if (f.max_sequences_shared != f.max_sequences && f.max_sequences_shared != 0) {
    row(out, "  … with the prefix held once", grouped(f.max_sequences_shared));
  }
  const bool at_limit = s.model_context != 0 && c.max_context == s.model_context;
  row(out, fmt::format("max context for {} sequence{}", grouped(s.batch), s.batch == 1 ? "" : "s"),
      fmt::format("{}{}", grouped(c.max_context), at_limit ? " (the model's maximum)" : ""));
}

/// llama-server's command line with the split's -ngl and the offload flags of `f`.
auto offload_command(const sizing& s, const offload_figures& f, const engines::llama_cpp::offload_split& split)
    -> std::string {
  return with_offload_flags(engine_command_line(s.engine, f.options, budget_rule{}, model_placeholder), f,
                            split.gpu_slots);
}

/// One row per GPU of a layer split: its slots and buffers, as llama.cpp's per-device log lines.
void device_rows(fmt::memory_buffer& out, const engines::llama_cpp::offload_split& a, bytes memory) {
  for (std::uint32_t d = 0; d < a.devices; ++d) {
    const engines::llama_cpp::device_share& g = a.device.at(d);
    const std::string blocks = g.blocks == 0 ? std::string{}
                               : g.blocks == 1 ? fmt::format("block {}", g.first_block)
                                               : fmt::format("blocks {}-{}", g.first_block, g.first_block + g.blocks - 1);
    const std::string holds = blocks.empty() ? (g.output ? "the output layer" : "nothing")
                                             : g.output ? blocks + " + output" : blocks;
    const std::string state = g.state == bytes{0} ? std::string{} : fmt::format(", RS {}", g.state);
    row(out, fmt::format("GPU {} ({})", d, holds),
        fmt::format("model {}, KV {}{}, compute {}: {} of {}", g.weights, g.kv, state, g.compute, exact(g.total()),
                    memory));
  }
  if (a.pipeline_parallel) {
    prose(out, "  ",
          "pipeline parallelism: llama.cpp keeps 4 copies of each GPU's graph inputs (GGML_SCHED_MAX_COPIES), which "
          "the compute estimates leave out; they are floors",
          4);
  }
}

/// llama.cpp's offload split on one GPU or several (-ts): the asked -ngl's device and host bytes, and
/// the largest -ngl that leaves --fit's 1 GiB free on every GPU.
void offload_section(fmt::memory_buffer& out, const sizing& s) {
  const offload_figures& o = *s.offload;
  const auto& a = o.asked;
  put(out, "\n");
  const std::uint32_t layers = s.config.spec.layers;
  const std::string blocks = a.first_gpu_block < layers ? fmt::format("blocks {}-{}", a.first_gpu_block, layers - 1)
                                                         : std::string{};
  const std::string which = a.gpu_slots == 0 ? "nothing on the GPU"
                            : !a.output_on_gpu ? blocks
                            : blocks.empty()   ? "the output layer alone"
                                               : "the output layer and " + blocks;
  prose(out, "",
        fmt::format("llama.cpp offload (-ngl {}): offloaded {}/{} layers to GPU ({}; token_embd stays on the host)",
                    o.ngl, a.gpu_slots, a.slots, which),
        2);
  if (a.devices == 1) {
    row(out, "GPU model buffer", exact(a.device_weights));
    row(out, "GPU KV buffer", exact(a.device_kv));
    if (a.device_state + a.host_state != bytes{0}) {
      row(out, "GPU RS buffer", exact(a.device_state));
    }
    row(out, "GPU compute buffer", exact(a.device_compute));
    row(out, "GPU total", fmt::format("{} of {}; {}", exact(a.device_total()), o.device,
                                      o.fits ? "leaves --fit's 1 GiB free" : "does NOT leave --fit's 1 GiB free"));
  } else {
    device_rows(out, a, o.device);
    row(out, "every GPU", o.fits ? "leaves --fit's 1 GiB free" : "does NOT leave --fit's 1 GiB free on each");
  }
  row(out, "host model buffer", exact(a.host_weights));
  if (!o.override_tensor.empty()) {
    row(out, "of which -ot keeps",
        fmt::format("{} tensor{}, {} (wherever their layer is)", grouped(o.overridden_tensors),
                    o.overridden_tensors == 1 ? "" : "s", exact(o.overridden_bytes)));
  }
  row(out, "host KV buffer", exact(a.host_kv));
  if (a.device_state + a.host_state != bytes{0}) {
    row(out, "host RS buffer", exact(a.host_state));
  }
  if (o.largest) {
    row(out, "largest -ngl that fits", fmt::format("{} ({} on the GPU{})", o.largest->gpu_slots,
                                                   o.largest->device_total(), o.largest->devices > 1 ? "s" : ""));
    prose(out, "  run it: ", offload_command(s, o, *o.largest), 4);
  } else {
    row(out, "largest -ngl that fits", "none: even -ngl 0 (the compute buffer) leaves less than 1 GiB free");
  }
  if (!o.has_experts || o.request.cpu_moe) {
    return;  // no experts to move, or --cpu-moe already keeps every block's on the host
  }
  if (o.cpu_moe) {
    row(out, "smallest --n-cpu-moe that fits",
        fmt::format("{} with every layer on the GPU ({} on the GPU{}, a floor: for a batch llama.cpp also copies "
                    "host experts into the compute buffer)",
                    o.cpu_moe->n_cpu_moe, o.cpu_moe->split.device_total(), o.cpu_moe->split.devices > 1 ? "s" : ""));
    offload_figures with_n = o;
    with_n.request.n_cpu_moe = o.cpu_moe->n_cpu_moe;
    prose(out, "  run it: ", offload_command(s, with_n, o.cpu_moe->split), 4);
  } else {
    row(out, "smallest --n-cpu-moe that fits", "none: even every block's experts on the host leaves less than 1 GiB free");
  }
}

/// The offload split as --json gives it (device_* the sums over the GPUs, `devices` each one).
auto offload_json(const offload_figures& o) -> nlohmann::ordered_json {
  const auto split = [](const engines::llama_cpp::offload_split& x) {
    nlohmann::ordered_json j;
    j["n_gpu_layers"] = x.gpu_slots;
    j["layers"] = x.slots;
    j["first_gpu_block"] = x.first_gpu_block;
    j["output_on_gpu"] = x.output_on_gpu;
    j["device_weights_bytes"] = x.device_weights.count();
    j["device_kv_bytes"] = x.device_kv.count();
    j["device_state_bytes"] = x.device_state.count();
    j["device_compute_bytes"] = x.device_compute.count();
    j["device_total_bytes"] = x.device_total().count();
    j["host_weights_bytes"] = x.host_weights.count();
    j["host_kv_bytes"] = x.host_kv.count();
    j["host_state_bytes"] = x.host_state.count();
    j["pipeline_parallel"] = x.pipeline_parallel;
    nlohmann::ordered_json devices = nlohmann::ordered_json::array();
    for (std::uint32_t d = 0; d < x.devices; ++d) {
      const engines::llama_cpp::device_share& g = x.device.at(d);
      devices.push_back({{"first_block", g.first_block},
                         {"blocks", g.blocks},
                         {"output", g.output},
                         {"weights_bytes", g.weights.count()},
                         {"kv_bytes", g.kv.count()},
                         {"state_bytes", g.state.count()},
                         {"compute_bytes", g.compute.count()},
                         {"total_bytes", g.total().count()}});
    }
    j["devices"] = devices;
    return j;
  };
  nlohmann::ordered_json j;
  j["ngl"] = o.ngl;
  j["device_memory_bytes"] = o.device.count();
  j["margin_bytes"] = engines::llama_cpp::fit_margin.count();
  j["fits"] = o.fits;
  j["asked"] = split(o.asked);
  j["largest_fitting"] = o.largest ? split(*o.largest) : nlohmann::ordered_json{};
  if (o.has_experts && !o.request.cpu_moe) {
    j["smallest_n_cpu_moe"] = o.cpu_moe ? nlohmann::ordered_json{{"n_cpu_moe", o.cpu_moe->n_cpu_moe},
                                                                 {"split", split(o.cpu_moe->split)}}
                                        : nlohmann::ordered_json{};
  }
  j["override_tensor"] = o.override_tensor;
  j["overridden_tensors"] = o.overridden_tensors;
  j["overridden_bytes"] = o.overridden_bytes.count();
  return j;
}

/// The lines the engine logs for this configuration (--json's log_lines).
auto log_lines(const sizing& s) -> std::vector<std::string> {
  std::optional<engine_capacity> capacity_for_log;
  std::optional<startup_budget> startup;
  if (s.capacity) {
    capacity_for_log = s.capacity->figures;
    startup = s.capacity->startup;
  }
  return engine_log_lines(s.config.spec, s.engine, s.engine_opts, s.cache, capacity_for_log, startup);
}

void log_section(fmt::memory_buffer& out, const sizing& s) {
  const auto log = log_lines(s);
  if (log.empty()) {
    return;
  }
  const bool long_lines =
      std::any_of(log.begin(), log.end(), [](const std::string& l) { return columns(l) + 2 > report_width; });
  put(out, "\nWhat {} logs for this configuration{}\n", name(s.engine),
      long_lines ? " (long lines wrapped; --json's log_lines has them whole)" : "");
  for (const auto& l : log) {
    prose(out, "  ", l, 6);
  }
}

/// --explain: each group of layers, what it keeps and the key that decided it.
void explain_section(fmt::memory_buffer& out, const sizing& s) {
  put(out, "\nLayers (what each keeps, and the key that decided it)\n");
  for (const auto& g : explain_groups(s.config.layers)) {
    prose(out, "  ",
          fmt::format("{} layer{} {}: {}{}", g.count, g.count == 1 ? "" : "s", g.spans, name(g.kind),
                      g.recurrent ? " + recurrent state" : ""),
          4);
    prose(out, "    ", g.reason, 4);
  }
}

void notes_section(fmt::memory_buffer& out, const sizing& s) {
  if (s.notes.empty() && s.config.warnings.empty()) {
    return;
  }
  put(out, "\nNotes\n");
  for (const auto& n : s.config.warnings) {
    prose(out, "  - ", n, 4);
  }
  for (const auto& n : s.notes) {
    prose(out, "  - ", n, 4);
  }
}

/// The inputs of the run as --json gives them: engine, parallelism, context, batch, dtypes.
void inputs_json(nlohmann::ordered_json& j, const sizing& s) {
  j["engine"] = std::string{name(s.engine)};
  j["tp"] = s.engine_opts.tp;
  j["pp"] = s.engine_opts.pp;
  j["context"] = s.context;
  j["context_source"] = std::string{context_source(s)};
  const std::uint64_t engine_context = engine_default_context(s.engine, s.config.spec, s.engine_opts);
  j["engine_default_context"] =
      engine_context != 0 ? nlohmann::ordered_json(engine_context) : nlohmann::ordered_json(nullptr);
  j["serving_dtype"] = std::string{name(serving_dtype(s.engine, s.dtype_facts))};
  j["batch"] = s.batch;
  j["k_dtype"] = std::string{name(s.kv.k)};
  j["v_dtype"] = std::string{name(s.kv.v)};
}

auto capacity_json(const capacity_figures& c) -> nlohmann::ordered_json {
  nlohmann::ordered_json cap;
  cap["source"] = c.source;
  cap["device_memory_bytes"] =
      c.device_memory ? nlohmann::ordered_json(c.device_memory->count()) : nlohmann::ordered_json(nullptr);
  cap["weights_per_device_bytes"] =
      c.weights_per_device ? nlohmann::ordered_json(c.weights_per_device->count()) : nlohmann::ordered_json(nullptr);
  cap["weights_whole_per_device_bytes"] = c.weights_whole_per_device
                                              ? nlohmann::ordered_json(c.weights_whole_per_device->count())
                                              : nlohmann::ordered_json(nullptr);
  cap["weights_fit"] = c.weights_fit;
  cap["kv_budget_bytes"] = c.kv_budget.count();
  cap["max_tokens"] = c.figures.max_tokens;
  cap["max_sequences"] = c.figures.max_sequences;
  cap["max_concurrency"] = c.figures.max_concurrency;
  cap["max_sequences_shared_prefix"] = c.figures.max_sequences_shared;
  cap["num_blocks"] = c.figures.num_blocks;
  cap["allocated_bytes"] = c.figures.allocated.count();
  cap["max_context"] = c.max_context;
  return cap;
}

/// --json's `budget`: the one KV budget's start-up terms, in bytes (docs/cli-contract.md).
auto budget_json(const startup_budget& b) -> nlohmann::ordered_json {
  nlohmann::ordered_json j;
  j["device_bytes"] = b.device.count();
  j["fraction"] = b.fraction;
  j["weights_bytes"] = b.weights.count();
  j["activation_peak_bytes"] = b.activation_peak.count();
  j["non_torch_bytes"] = b.non_torch.count();
  j["cuda_graphs_bytes"] = b.cuda_graphs.count();
  j["reserve_bytes"] = b.reserve.count();
  j["unused_bytes"] = b.unused.count();
  j["engine_factor"] = b.engine_factor;
  j["kv_bytes"] = b.kv.count();
  j["engine_version"] = b.engine_version.empty() ? nlohmann::ordered_json(nullptr)
                                                  : nlohmann::ordered_json(std::string{b.engine_version});
  j["model_runner"] = b.model_runner.empty() ? nlohmann::ordered_json(nullptr)
                                              : nlohmann::ordered_json(std::string{b.model_runner});
  return j;
}

auto layers_json(const sizing& s) -> nlohmann::ordered_json {
  nlohmann::ordered_json layers = nlohmann::ordered_json::array();
  for (const auto& g : s.config.layers) {
    layers.push_back({{"first_layer", g.first_layer},
                      {"count", g.count},
                      {"kind", std::string{name(g.kind)}},
                      {"recurrent", g.recurrent},
                      {"reason", g.reason}});
  }
  return layers;
}

auto warnings_json(const sizing& s) -> nlohmann::ordered_json {
  nlohmann::ordered_json warnings = nlohmann::ordered_json::array();
  for (const auto& w : s.config.warnings) {
    warnings.push_back(w);
  }
  for (const auto& w : s.notes) {
    warnings.push_back(w);
  }
  return warnings;
}

}  // namespace

auto human_report(const sizing& s, bool explain) -> std::string {
  fmt::memory_buffer out;
  put(out, "{}", verdict_line(s));
  put(out, "{}", verdict_command_lines(s));
  model_section(out, s);
  figure_sections(out, s);
  if (s.capacity) {
    capacity_section(out, s);
  }
  put(out, "{}", plan_section(s));
  if (s.offload) {
    offload_section(out, s);
  }
  log_section(out, s);
  if (explain) {
    explain_section(out, s);
  }
  notes_section(out, s);
  put(out, "\nSizes: KiB/MiB/GiB are powers of 1024, kB/MB/GB powers of 1000.\n");
  return fmt::to_string(out);
}

auto json_report(const sizing& s) -> std::string {
  nlohmann::ordered_json j;
  nlohmann::ordered_json model;
  put_json(model, model_fields, model_of(s));
  j["model"] = model;
  inputs_json(j, s);
  put_json(j, figure_fields, figures_of(s));
  if (s.capacity) {
    // The one KV budget: capacity, plan and log lines all derive from it.
    j["kv_budget_bytes"] = s.capacity->kv_budget.count();
    if (s.capacity->startup) {
      j["budget"] = budget_json(*s.capacity->startup);
    }
    j["capacity"] = capacity_json(*s.capacity);
    // SGLang's DP attention: `capacity` is one rank's pool; the ranks together hold ranks × as much.
    const std::uint32_t ranks = s.engine == engine_kind::sglang
                                    ? kvsize::engines::sglang::attention_dp_of(s.config.spec, s.engine_opts)
                                    : 1;
    if (ranks > 1) {
      nlohmann::ordered_json dp;
      dp["ranks"] = ranks;
      dp["attention_tp"] = kvsize::engines::sglang::attention_tp_of(s.config.spec, s.engine_opts);
      dp["max_tokens"] = kvsize::detail::checked_mul(ranks, s.capacity->figures.max_tokens);
      dp["max_sequences"] = kvsize::detail::checked_mul(ranks, s.capacity->figures.max_sequences);
      j["dp_attention"] = dp;
    }
  }
  plan_json(s, j);
  if (s.offload) {
    j["offload"] = offload_json(*s.offload);
  }
  j["layers"] = layers_json(s);
  j["log_lines"] = log_lines(s);
  j["warnings"] = warnings_json(s);
  return j.dump(2) + "\n";
}

auto gpu_list() -> std::string {
  // Two device totals per GPU: nvidia-smi's (rocm-smi's) and the smaller one CUDA (HIP) reports to
  // a process, which is what vLLM and SGLang budget from; "derived" marks a CUDA total that no
  // public log gives (nvidia-smi's less a sibling board's measured reservation). GiB (2^30 B) to two
  // decimals keeps a row under 100 columns; the exact bytes are in kvsize/gpus.hpp and in the
  // JSON report of any --gpu run (capacity/device_memory_bytes, the CUDA-visible total).
  const auto gib = [](bytes b) { return fmt::format("{:.2f} GiB", static_cast<double>(b.count()) / 1073741824.0); };
  fmt::memory_buffer out;
  fmt::format_to(std::back_inserter(out), "{:<14} {:<32} {:>10}  {:>19}  {:>6}  {:>9}\n", "id", "name", "nvidia-smi",
                 "CUDA-visible", "sold", "bandwidth");
  for (const auto& g : gpu_catalog) {
    const char* how = g.visible_source == visible_memory_source::measured ? "measured" : "derived";
    fmt::format_to(std::back_inserter(out), "{:<14} {:<32} {:>10}  {:>10} {:<8}  {:>6}  {:>4.0f} GB/s\n", g.id, g.name,
                   gib(g.memory), gib(g.process_visible_memory()), how, g.marketed,
                   static_cast<double>(g.bandwidth) / 1e9);
  }
  out.append(std::string_view{"GiB = 2^30 bytes; GB/s = 10^9 bytes per second; \"sold\" is the label, whose GB "
                              "are GiB of DRAM\n"});
  return fmt::to_string(out);
}

}  // namespace kvsize::cli
