// SPDX-License-Identifier: MIT
// kvsize command line: THE field tables. Each figure kvsize prints is one row here — its name, its
// --json key, its --csv column, its text label and unit, and the accessor reading it from the
// result model (results.hpp) — and the text report, --json and --csv are all rendered from these
// rows (fields.hpp). JSON keys and CSV columns are a contract (docs/cli-contract.md): add, never rename.
//   point_fields:   one point of the plan or of its sweep ("plan" and "sweep.points" in --json, a --csv row)
//   figure_fields:  the report's KV cache, logits and weights rows (top-level --json keys)
//   model_fields:   the model's shape (the report's first line, --json "model")
// A --csv row holds the point's columns, then the figures' and the model's (the same on every row of
// one run, so that the CSVs of several runs concatenate into one table).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "fields.hpp"
#include "results.hpp"

namespace kvsize::cli {

/// "user" or "users" (any noun pair) for `n`.
constexpr auto plural(std::uint64_t n, std::string_view one, std::string_view many) -> std::string_view {
  return n == 1 ? one : many;
}

// ---------------------------------------------------------------------------------------------
// One point of the plan.

/// The slots of point_fields' labels.
inline auto label_var(const point_result& p, std::string_view var) -> std::string {
  if (var == "users") {
    return grouped(p.users);
  }
  if (var == "context") {
    return grouped(p.context);
  }
  if (var == "users_noun") {
    return std::string{plural(p.users, "user", "users")};
  }
  if (var == "on_this_device") {
    return p.tp * p.pp > 1 ? " on this device" : "";
  }
  throw std::logic_error(fmt::format("kvsize: a point label has no slot '{}'", var));
}

namespace detail {
using P = point_result;
inline auto words(const std::string& w) -> std::string { return w.empty() ? std::string{} : ": " + w; }

/// Why the point does not fit, after "NO".
inline auto verdict(const P& p) -> std::string {
  const auto count = [](std::uint64_t n) { return n == unbounded ? std::string{"unbounded"} : grouped(n); };
  if (p.limited_by == "weights") {
    const bytes alone = p.weights + p.workspace;
    return fmt::format(": weights and workspace alone exceed the device by {}", exact(alone - min(p.device_memory, alone)));
  }
  if (p.limited_by == "memory") {
    return fmt::format(": the engine admits {} at this context (KV needs {}, its budget is {})", count(p.admitted),
                       exact(p.kv), exact(p.kv_budget));
  }
  if (p.limited_by == "slots") {
    return fmt::format(": the scheduler runs at most {} sequences at once", count(p.slot_cap));
  }
  return {};
}
}  // namespace detail

/// CSV order is the contract's (engine, device_memory_bytes, tp, pp, context, users, ...); columns
/// added later go at the end (kv_budget_bytes, slot_cap), so that old columns keep their places.
inline constexpr std::array<field<point_result>, 26> point_fields{{
    {"engine", "engine", "engine", "engine", field_unit::text, [](const detail::P& p) -> field_value { return p.engine; }},
    {"device memory", "device_memory_bytes", "device_memory_bytes", "device memory", field_unit::bytes,
     [](const detail::P& p) -> field_value { return p.device_memory.count(); }},
    {"tensor-parallel degree", "tp", "tp", "tp", field_unit::count,
     [](const detail::P& p) -> field_value { return std::uint64_t{p.tp}; }},
    {"pipeline-parallel degree", "pp", "pp", "pp", field_unit::count,
     [](const detail::P& p) -> field_value { return std::uint64_t{p.pp}; }},
    {"tokens per user", "context", "context", "context", field_unit::tokens,
     [](const detail::P& p) -> field_value { return p.context; }},
    {"users", "users", "users", "users", field_unit::count, [](const detail::P& p) -> field_value { return p.users; }},
    {"weights on this device", "weights_bytes", "weights_bytes", "weights{on_this_device}", field_unit::bytes,
     [](const detail::P& p) -> field_value { return p.weights.count(); }},
    {"KV cache of the users", "kv_bytes", "kv_bytes", "KV cache, {users} × {context} tokens", field_unit::bytes,
     [](const detail::P& p) -> field_value { return p.kv.count(); }},
    {"logits", "logits_bytes", "logits_bytes", "  logits", field_unit::bytes,
     [](const detail::P& p) -> field_value { return p.logits.count(); },
     [](const detail::P& p) { return detail::words(p.logits_words); }},
    {"activation peak", "activations_bytes", "activations_bytes", "  activations", field_unit::bytes,
     [](const detail::P& p) -> field_value { return p.activations.count(); },
     [](const detail::P& p) { return detail::words(p.activations_words); }},
    {"sampler", "sampler_bytes", "sampler_bytes", "  sampler", field_unit::bytes,
     [](const detail::P& p) -> field_value { return p.sampler.count(); },
     [](const detail::P& p) { return detail::words(p.sampler_words); }},
    {"runtime", "runtime_bytes", "runtime_bytes", "  runtime", field_unit::bytes,
     [](const detail::P& p) -> field_value { return p.runtime.count(); },
     [](const detail::P& p) { return detail::words(p.runtime_words); }},
    {"workspace", "workspace_bytes", "workspace_bytes", "workspace", field_unit::bytes,
     [](const detail::P& p) -> field_value { return p.workspace.count(); }},
    {"engine reserve", "reserve_bytes", "reserve_bytes", "engine reserve", field_unit::bytes,
     [](const detail::P& p) -> field_value { return p.reserve.count(); },
     [](const detail::P& p) { return detail::words(p.reserve_words); }},
    {"free", "free_bytes", "free_bytes", "free", field_unit::bytes,
     [](const detail::P& p) -> field_value { return p.free.count(); }},
    {"needed", "needed_bytes", "needed_bytes", "needed", field_unit::bytes,
     [](const detail::P& p) -> field_value { return p.needed.count(); }},
    {"fits", "fits", "fits", "fits", field_unit::flag, [](const detail::P& p) -> field_value { return p.fits; },
     detail::verdict},
    {"what stops it", "limited_by", "limited_by", "limited by", field_unit::text,
     [](const detail::P& p) -> field_value {
       return p.fits ? field_value{} : field_value{p.limited_by};
     }},
    {"sequences admitted", "admitted", "admitted", "admitted", field_unit::count,
     [](const detail::P& p) -> field_value { return p.admitted; }},
    {"max users at the context", "max_users", "max_users_at_context", "max users at {context} tokens",
     field_unit::count, [](const detail::P& p) -> field_value { return p.max_users; }},
    {"max context for the users", "max_context", "max_context_for_users", "max context for {users} {users_noun}",
     field_unit::tokens, [](const detail::P& p) -> field_value { return p.max_context; },
     [](const detail::P& p) -> std::string {
       return p.max_context == p.context_limit && p.max_context != 0 ? " (the search limit)" : "";
     }},
    {"the engine's KV budget", "kv_budget_bytes", "kv_budget_bytes", "KV budget", field_unit::bytes,
     [](const detail::P& p) -> field_value { return p.kv_budget.count(); }},
    {"the scheduler's cap on running sequences", "slot_cap", "slot_cap", "scheduler cap on running sequences",
     field_unit::count,
     [](const detail::P& p) -> field_value { return p.slot_cap == unbounded ? field_value{} : field_value{p.slot_cap}; },
     nullptr, [](const detail::P& p) { return p.slot_cap != unbounded; }},
    {"memory outside the allocator", "non_torch_bytes", "non_torch_bytes", "  non-torch", field_unit::bytes,
     [](const detail::P& p) -> field_value { return p.non_torch.count(); },
     [](const detail::P& p) { return detail::words(p.non_torch_words); },
     [](const detail::P& p) { return p.non_torch.count() != 0; }},
    {"buffers loaded with the weights", "buffers_bytes", "buffers_bytes", "  buffers", field_unit::bytes,
     [](const detail::P& p) -> field_value { return p.buffers.count(); },
     [](const detail::P& p) { return detail::words(p.buffers_words); },
     [](const detail::P& p) { return p.buffers.count() != 0; }},
    {"CUDA-graph memory subtracted from the budget", "cuda_graphs_bytes", "cuda_graphs_bytes", "  CUDA graphs",
     field_unit::bytes, [](const detail::P& p) -> field_value { return p.cuda_graphs.count(); },
     [](const detail::P& p) { return detail::words(p.cuda_graphs_words); },
     [](const detail::P& p) { return p.cuda_graphs.count() != 0; }},
}};

/// The plan section's rows (in this order), then its ceilings' rows.
inline constexpr std::array<std::string_view, 14> plan_point_rows{
    "device_memory_bytes", "weights_bytes",   "kv_bytes",      "workspace_bytes", "logits_bytes",
    "activations_bytes",   "sampler_bytes",   "runtime_bytes", "non_torch_bytes", "buffers_bytes",
    "cuda_graphs_bytes",   "reserve_bytes",   "free_bytes",    "fits"};
inline constexpr std::array<std::string_view, 3> plan_ceiling_rows{"max_users", "max_context", "slot_cap"};
/// In the section's title (engine, tp, pp, context, users), the verdict (limited_by, admitted,
/// kv_budget) or the sweep table (needed).
inline constexpr std::array<std::string_view, 9> plan_point_elsewhere{
    "engine", "tp", "pp", "context", "users", "needed_bytes", "limited_by", "admitted", "kv_budget_bytes"};
static_assert(placed_once(point_fields, {plan_point_rows, plan_ceiling_rows, plan_point_elsewhere}),
              "every point field is placed in the text once, with a JSON key and a CSV column of its own");

// ---------------------------------------------------------------------------------------------
// The report's figure rows.

inline auto label_var(const figures_result& f, std::string_view var) -> std::string {
  if (var == "context") {
    return grouped(f.context);
  }
  if (var == "sequences") {
    return f.slots ? fmt::format("whole cache ({} slot{})", f.n_seq, f.n_seq == 1 ? "" : "s")
                   : fmt::format("{} sequence{}", grouped(f.batch), f.batch == 1 ? "" : "s");
  }
  if (var == "shared_prefix") {
    return grouped(f.shared_prefix);
  }
  if (var == "weights_dtype") {
    return f.weights_dtype.value_or("");
  }
  if (var == "checkpoint_source") {
    return f.checkpoint_source;
  }
  throw std::logic_error(fmt::format("kvsize: a figure label has no slot '{}'", var));
}

namespace detail {
using F = figures_result;
}

/// In the order of the --json keys (kv_bytes_per_token ... weights_bytes, as the contract lists them).
inline constexpr std::array<field<figures_result>, 21> figure_fields{{
    {"KV bytes per token", "kv_bytes_per_token", "kv_bytes_per_token", "per token", field_unit::bytes,
     [](const detail::F& f) -> field_value { return f.kv_per_token.count(); }},
    {"KV bytes per token without sharing", "kv_bytes_per_token_mha", "kv_bytes_per_token_mha",
     "per token without sharing", field_unit::bytes,
     [](const detail::F& f) -> field_value { return f.kv_per_token_mha.count(); },
     [](const detail::F& f) { return fmt::format(": query heads per KV head {:g}", f.gqa_ratio); }},
    {"query heads per KV head", "gqa_ratio", "gqa_ratio", "query heads per KV head", field_unit::ratio,
     [](const detail::F& f) -> field_value { return f.gqa_ratio; }},
    {"KV bytes of one sequence", "kv_bytes_per_sequence", "kv_bytes_per_sequence", "per sequence of {context} tokens",
     field_unit::bytes, [](const detail::F& f) -> field_value { return f.kv_per_sequence.count(); }},
    // kv_bytes is also a point column (the plan's users); here it is --batch's sequences.
    {"KV bytes of the sequences", "kv_bytes", "batch_kv_bytes", "{sequences}", field_unit::bytes,
     [](const detail::F& f) -> field_value { return f.kv_bytes.count(); }},
    {"recurrent state per sequence", "state_bytes_per_sequence", "state_bytes_per_sequence",
     "recurrent state per sequence", field_unit::bytes,
     [](const detail::F& f) -> field_value { return f.state_per_sequence.count(); },
     [](const detail::F& f) {
       return f.state_pages > 1 ? fmt::format(": {} pages a request (vLLM Mamba cache mode align)", f.state_pages)
                                : std::string{};
     },
     [](const detail::F& f) { return f.state_per_sequence.count() != 0; }},
    {"allocation unit", "block_size", "block_size", "allocation unit", field_unit::count,
     [](const detail::F& f) -> field_value { return std::uint64_t{f.block_size}; }, nullptr,
     [](const detail::F& f) { return f.block_size > 1; }, "none",
     [](const detail::F& f) { return fmt::format("blocks of {} tokens", f.block_size); }},
    {"KV heads per rank", "kv_heads_per_rank", "kv_heads_per_rank", "KV heads per rank", field_unit::count,
     [](const detail::F& f) -> field_value { return std::uint64_t{f.kv_heads_per_rank}; }},
    {"shared prefix", "shared_prefix", "shared_prefix", "shared prefix", field_unit::tokens,
     [](const detail::F& f) -> field_value { return f.shared_prefix; }},
    {"bytes the shared prefix saves", "prefix_bytes_saved", "prefix_bytes_saved",
     "saved by a shared {shared_prefix}-token prefix", field_unit::bytes,
     [](const detail::F& f) -> field_value { return f.prefix_saved.count(); }, nullptr,
     [](const detail::F& f) { return f.prefix_saved.count() != 0; }},
    {"logits per position", "logits_bytes_per_token", "logits_bytes_per_token", "per position", field_unit::bytes,
     [](const detail::F& f) -> field_value { return f.logits_per_token.count(); }},
    {"logits of a naive prefill", "logits_bytes_prefill", "logits_bytes_prefill",
     "all {context} positions (naive prefill)", field_unit::bytes,
     [](const detail::F& f) -> field_value { return f.logits_prefill.count(); }},
    {"parameters", "parameters", "parameters", "parameters", field_unit::count,
     [](const detail::F& f) -> field_value { return f.parameters ? field_value{*f.parameters} : field_value{}; },
     nullptr, nullptr, "unknown (see notes)"},
    {"active parameters per token", "active_parameters", "active_parameters", "  active per token (MoE)",
     field_unit::count, [](const detail::F& f) -> field_value { return f.active_parameters; }, nullptr,
     [](const detail::F& f) { return f.moe; }},
    {"vision tower parameters", "vision_parameters", "vision_parameters", "  + vision tower (apart)",
     field_unit::count, [](const detail::F& f) -> field_value { return f.vision_parameters; }, nullptr,
     [](const detail::F& f) { return f.has_vision; }},
    {"multi-token prediction parameters", "mtp_parameters", "mtp_parameters", "  + multi-token prediction (apart)",
     field_unit::count, [](const detail::F& f) -> field_value { return f.mtp_parameters; }, nullptr,
     [](const detail::F& f) { return f.mtp_parameters != 0; }},
    {"weights format", "weights_dtype", "weights_dtype", "weights format", field_unit::text,
     [](const detail::F& f) -> field_value { return f.weights_dtype ? field_value{*f.weights_dtype} : field_value{}; }},
    // weights_bytes is also a point column (one device's); here it is every device's.
    {"weights", "weights_bytes", "total_weights_bytes", "weights in {weights_dtype}", field_unit::bytes,
     [](const detail::F& f) -> field_value { return f.weights ? field_value{f.weights->count()} : field_value{}; },
     [](const detail::F& f) { return f.weights ? fmt::format(" = {}", as_si(*f.weights)) : std::string{}; },
     [](const detail::F& f) { return f.weights.has_value(); }},
    {"checkpoint files", "checkpoint_source", "checkpoint_source", "checkpoint files", field_unit::text,
     [](const detail::F& f) -> field_value {
       return f.checkpoint_weights ? field_value{f.checkpoint_source} : field_value{};
     }},
    // A model folder's safetensors as stored, beside the weights as the engine loads them.
    {"checkpoint on disk", "checkpoint_weights_bytes", "checkpoint_weights_bytes", "  on disk ({checkpoint_source})",
     field_unit::bytes,
     [](const detail::F& f) -> field_value {
       return f.checkpoint_weights ? field_value{f.checkpoint_weights->count()} : field_value{};
     },
     [](const detail::F& f) { return f.checkpoint_weights ? fmt::format(" = {}", as_si(*f.checkpoint_weights)) : std::string{}; },
     [](const detail::F& f) { return f.checkpoint_weights.has_value(); }},
    // vLLM: 2 with --enable-prefix-caching on gated-DeltaNet / KDA / short-conv layers (Mamba cache
    // mode align); the text says so in the recurrent-state row's words.
    {"state pages per request", "state_pages_per_request", "state_pages_per_request", "state pages per request",
     field_unit::count, [](const detail::F& f) -> field_value { return std::uint64_t{f.state_pages}; }},
}};

inline constexpr std::array<std::string_view, 7> kv_rows{
    "kv_bytes_per_token", "kv_bytes_per_token_mha", "kv_bytes_per_sequence", "kv_bytes",
    "block_size",         "state_bytes_per_sequence", "prefix_bytes_saved"};
inline constexpr std::array<std::string_view, 2> logits_rows{"logits_bytes_per_token", "logits_bytes_prefill"};
inline constexpr std::array<std::string_view, 6> weights_rows{"parameters", "active_parameters", "mtp_parameters",
                                                              "vision_parameters", "weights_bytes",
                                                              "checkpoint_weights_bytes"};
/// In another row's words or label: gqa_ratio (per token without sharing), shared_prefix, checkpoint_source and
/// weights_dtype (the labels of their rows).
inline constexpr std::array<std::string_view, 4> figure_elsewhere{"gqa_ratio", "shared_prefix", "weights_dtype",
                                                                  "checkpoint_source"};
/// Not in the text: kv_heads_per_rank (the title names tp; a row of its own would change the
/// byte-compared README report), state_pages_per_request (in the recurrent-state row's words).
inline constexpr std::array<std::string_view, 2> figure_json_csv_only{"kv_heads_per_rank", "state_pages_per_request"};
static_assert(placed_once(figure_fields, {kv_rows, logits_rows, weights_rows, figure_elsewhere, figure_json_csv_only}),
              "every figure field is placed in the text once, with a JSON key and a CSV column of its own");

// ---------------------------------------------------------------------------------------------
// The model's shape.

namespace detail {
using M = model_result;
}

inline constexpr std::array<field<model_result>, 11> model_fields{{
    {"architecture", "architecture", "model_architecture", "architecture", field_unit::text,
     [](const detail::M& m) -> field_value { return m.architecture; }},
    {"model_type", "model_type", "model_type", "model_type", field_unit::text,
     [](const detail::M& m) -> field_value { return m.model_type; }},
    {"layers", "layers", "model_layers", "layers", field_unit::count,
     [](const detail::M& m) -> field_value { return std::uint64_t{m.layers}; }},
    {"layers that keep KV", "kv_layers", "model_kv_layers", "KV layers", field_unit::count,
     [](const detail::M& m) -> field_value { return std::uint64_t{m.kv_layers}; }},
    {"query heads", "attention_heads", "model_attention_heads", "heads", field_unit::count,
     [](const detail::M& m) -> field_value { return std::uint64_t{m.attention_heads}; }},
    {"KV heads the cache keeps", "kv_heads", "model_kv_heads", "KV heads", field_unit::count,
     [](const detail::M& m) -> field_value { return std::uint64_t{m.kv_heads}; }},
    {"head dimension of K", "head_dim", "model_head_dim", "head_dim", field_unit::count,
     [](const detail::M& m) -> field_value { return std::uint64_t{m.head_dim}; }},
    {"head dimension of V", "head_dim_v", "model_head_dim_v", "head_dim_v", field_unit::count,
     [](const detail::M& m) -> field_value { return std::uint64_t{m.head_dim_v}; }},
    {"vocabulary", "vocab_size", "model_vocab_size", "vocab", field_unit::count,
     [](const detail::M& m) -> field_value { return m.vocab_size; }},
    {"compute dtype", "dtype", "model_dtype", "dtype", field_unit::text,
     [](const detail::M& m) -> field_value { return m.dtype; }},
    {"the model's maximum context", "max_context", "model_max_context", "max context", field_unit::tokens,
     [](const detail::M& m) -> field_value { return m.max_context; }},
}};

/// The report's first line. Its slots are model_fields' JSON keys (each in its plain form, so the
/// text and the JSON show one figure), plus layer_kinds and head_dims.
inline constexpr std::string_view model_line =
    "{architecture}: {layers} layers ({layer_kinds}), {attention_heads} heads, {kv_heads} KV heads, {head_dims}, "
    "vocab {vocab_size}, {dtype}";

inline auto label_var(const model_result& m, std::string_view var) -> std::string {
  if (var == "layer_kinds") {
    return m.layer_kinds;
  }
  if (var == "head_dims") {
    return kvsize::head_dims_text(m.head_dim, m.head_dim_v) + m.own_shapes;
  }
  const std::size_t i = index_of(model_fields, var);
  if (i == model_fields.size()) {
    throw std::logic_error(fmt::format("kvsize: the model line has no slot '{}'", var));
  }
  return plain_of(model_fields[i].value(m));
}

/// Named by the first line: architecture, layers, heads, KV heads, head dims, vocab, dtype.
inline constexpr std::array<std::string_view, 8> model_elsewhere{
    "architecture", "layers", "attention_heads", "kv_heads", "head_dim", "head_dim_v", "vocab_size", "dtype"};
/// Not in the text: model_type (the architecture stands for it), kv_layers (the layer kinds give
/// it), max_context (the context row says when the default was capped at it).
inline constexpr std::array<std::string_view, 3> model_json_csv_only{"model_type", "kv_layers", "max_context"};
static_assert(placed_once(model_fields, {model_elsewhere, model_json_csv_only}),
              "every model field is placed in the text once, with a JSON key and a CSV column of its own");

/// No two columns of one --csv row share a name (the three tables are one row).
constexpr auto csv_columns_unique() -> bool {
  for (const auto& p : point_fields) {
    for (const auto& f : figure_fields) {
      if (p.csv_column == f.csv_column) {
        return false;
      }
    }
    for (const auto& m : model_fields) {
      if (p.csv_column == m.csv_column) {
        return false;
      }
    }
  }
  for (const auto& f : figure_fields) {
    for (const auto& m : model_fields) {
      if (f.csv_column == m.csv_column) {
        return false;
      }
    }
  }
  return true;
}
static_assert(csv_columns_unique(), "a --csv column name is used twice");

}  // namespace kvsize::cli
