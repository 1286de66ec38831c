// SPDX-License-Identifier: MIT
// kvsize::hf: read a Hugging Face config.json into a kvsize::model_spec. Opt-in: needs
// nlohmann_json (target kvsize::hf); the core <kvsize/kvsize.hpp> does not include this.
//
//   const kvsize::hf::parsed_config c = kvsize::hf::load_config("config.json");
//   kvsize::kv_bytes(c.spec, 32'768, 1);          // bytes for one 32k-token sequence
//   for (const auto& g : c.layers) { ... }        // what each group of layers keeps, and why
//
// Every failure is one exception type, kvsize::hf::config_error, with a code, the JSON pointer of the key,
// and "expected X, got Y". No number is read with a conversion that wraps or truncates. Limits: 16 MiB, 64 levels of nesting, 512 layers.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cerrno>       // errno
#include <cstdint>      // std::uint32_t
#include <filesystem>   // std::filesystem::path
#include <fstream>      // std::ifstream
#include <iostream>     // std::cin
#include <span>         // std::span
#include <istream>      // std::istream
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <system_error> // std::error_code
#include <utility>      // std::pair
#include <vector>       // std::vector

#include <nlohmann/json.hpp>

#include "error.hpp"  // kvsize::invalid_argument, kvsize::overflow_error
#include "hf/capped_read.hpp"
#include "hf/composites.hpp"
#include "hf/config_view.hpp"
#include "hf/error.hpp"
#include "hf/families.hpp"
#include "hf/hf_quant_config.hpp"
#include "hf/json_reader.hpp"
#include "hf/json_text.hpp"
#include "hf/layer_plan.hpp"
#include "hf/layer_reason.hpp"
#include "hf/model_reader.hpp"
#include "hf/parsed_config.hpp"
#include "hf/quantization_reader.hpp"
#include "hf/unmodelled.hpp"
#include "hf/weights_reader.hpp"
#include "model_spec.hpp"

namespace kvsize::hf {
namespace detail {

/// Where the language model is, and its model_type: the root's, the text config's, or the
/// text model a composite model_type implies. Sets architecture, text_config_pointer and model_type.
inline auto read_model_type(const json& root, parsed_config& out) -> std::pair<std::string, slot> {
  if (!root.is_object()) {
    fail(config_errc::wrong_type, "", "expected a JSON object at the top level, got " + describe(root));
  }
  const slot root_type = lookup(root, "", "model_type");
  std::string top_type = root_type.set() ? read_string(root_type) : std::string{};
  if (const slot arch = lookup(root, "", "architectures"); arch.set()) {
    out.architectures = read_strings(arch);
    out.architecture = out.architectures.empty() ? std::string{} : out.architectures.front();
  }
  const slot text = find_text_config(root);
  std::string mt = top_type;
  std::string type_pointer = root_type.pointer();
  if (text.present()) {
    out.text_config_pointer = text.pointer();
    const slot sub_type = lookup(*text.value, text.pointer(), "model_type");
    if (sub_type.set()) {
      mt = read_string(sub_type);
      type_pointer = sub_type.pointer();
    } else if (const auto d = default_text_model_type(top_type); !d.empty()) {
      mt = std::string(d);
      out.warnings.push_back(sub_type.pointer() + " is absent; took \"" + mt + "\", the text model of model_type \"" +
                             top_type + "\"");
    }
  }
  refuse_unmodelled(root, text, mt, type_pointer, top_type, root_type.pointer());
  out.model_type = mt;
  return {std::move(top_type), text};
}

/// The layer count: num_hidden_layers (or an alias). A family of one block per layer whose layers
/// layers_block_type decides (NemotronHConfig: its num_hidden_layers property is the list's length,
/// and a stored value that differs only draws a warning) takes the length; Nemotron-3 Ultra's
/// config has no num_hidden_layers.
[[nodiscard]] inline auto read_layer_count(const config_view& v, const std::string& mt) -> std::uint32_t {
  const slot lbt = v.get("layers_block_type");
  if (!v.facts().one_block_per_layer || !lbt.set() || choose_plan_source(v, false) != plan_source::layers_block_type) {
    const slot layers_slot = v.get_first(keys::layers);
    const std::uint32_t n = require_count(v, keys::layers, mt);
    if (n > kvsize::max_layers) {
      fail(config_errc::unsupported, layers_slot.pointer(),
           "expected at most 512 layers (kvsize::max_layers), got " + std::to_string(n));
    }
    return n;
  }
  if (!lbt.value->is_array() || lbt.value->empty() || lbt.value->size() > kvsize::max_layers) {
    fail(lbt.value->is_array() ? config_errc::unsupported : config_errc::wrong_type, lbt.pointer(),
         "expected an array of 1 to 512 block types (one per layer; kvsize::max_layers), got " + describe(*lbt.value));
  }
  const auto n = static_cast<std::uint32_t>(lbt.value->size());
  const slot stated = v.get_first(keys::layers);
  if (stated.set() && !(stated.value->is_number_unsigned() && stated.value->get<std::uint64_t>() == n)) {
    v.warn(stated.pointer() + " = " + plan_detail::str(*stated.value) + " is not read: the layers are the " + std::to_string(n) +
           " entries of " + lbt.pointer() + ", as NemotronHConfig counts them");
  }
  return n;
}

/// The config class's head_dim for an absent key (its defaults' "head_dim": Gemma, Qwen3, Qwen3-Next,
/// Qwen3.5, ...), or 0 where the class derives it from hidden_size / num_attention_heads.
[[nodiscard]] inline auto class_head_dim(const config_view& v) -> std::uint32_t {
  if (v.fam() == nullptr || v.fam()->nested_defaults.empty()) {
    return 0;
  }
  json own;
  const json& defaults = nested_defaults(*v.fam(), own);
  const auto it = defaults.find("head_dim");
  return it != defaults.end() && it->is_number_unsigned() ? it->get<std::uint32_t>() : 0U;
}

/// Layers, heads, widths, vocabulary; then latent attention, or KV heads and head widths.
inline void read_attention_shape(const config_view& v, const std::string& mt, kvsize::model_spec& m, plan_facts& facts,
                                 std::vector<std::string>& kv_notes) {
  m.layers = read_layer_count(v, mt);
  m.attention_heads = require_count(v, keys::heads, mt, 1U << 20U);
  m.hidden_size = require_count(v, keys::hidden, mt, 1U << 24U);
  m.vocab_size = require_count(v, keys::vocab, mt, 1U << 28U);
  facts = plan_facts{mt, m.layers, m.attention_heads, m.hidden_size, 0, false, {}};
  facts.latent = read_latent(v, mt, m, facts.latent_reason);
  if (facts.latent) {
    return;
  }
  // block_configs gives each block's KV heads (the plan reads them) only when it decides the layers.
  if (choose_plan_source(v, false) != plan_source::block_configs) {
    m.kv_heads = read_kv_heads(v, m.attention_heads, kv_notes);
  }
  if (const slot hd = v.get_first(keys::head_dim); hd.set()) {
    m.head_dim = read_u32(hd, 1, 1U << 16U);
  } else if (const std::uint32_t d = class_head_dim(v); d != 0) {
    // A top-level config without head_dim (a nested one gets the default from get_first): the
    // engines load it through the config class, whose default head_dim is not hidden / heads.
    m.head_dim = d;
    v.warn(hd.pointer() + " is absent: " + std::to_string(d) + ", " + std::string(config_class(v.facts())) +
           "'s default, as transformers and vLLM read it (not hidden_size / num_attention_heads)");
  } else {
    const slot hidden = v.get_first(keys::hidden);
    if (m.hidden_size % m.attention_heads != 0) {
      fail(config_errc::inconsistent, hidden.pointer(),
           "expected a multiple of num_attention_heads (" + std::to_string(m.attention_heads) +
               ") when head_dim is absent, got " + std::to_string(m.hidden_size));
    }
    m.head_dim = m.hidden_size / m.attention_heads;
  }
  facts.head_dim = m.head_dim;
  if (const slot hdv = v.get_first(keys::head_dim_v); hdv.set()) {
    m.head_dim_v = read_u32(hdv, 1, 1U << 16U);
  }
}

/// The plan's decisions into the spec: window, chunk, state, and each layer's kind and KV heads.
inline void apply_plan(const layer_plan& plan, kvsize::model_spec& m) {
  m.sliding_window = plan.sliding_window;
  m.attention_chunk = plan.attention_chunk;
  m.sparse_index_dim = plan.sparse_index_dim;
  m.state = plan.state;
  if (m.kv_heads == 0) {  // block_configs: the first attention block's heads are the model's
    for (const auto& d : plan.layer) {
      if (d.kv_heads != 0) {
        m.kv_heads = d.kv_heads;
        break;
      }
    }
  }
  bool uniform = true;
  for (const auto& d : plan.layer) {
    uniform = uniform && d.kind == plan.layer.front().kind;
  }
  m.attention = uniform ? plan.layer.front().kind : layer_kind::full;
  for (std::uint32_t i = 0; i < m.layers; ++i) {
    const auto& d = plan.layer[i];
    m.layer[i].kind = (uniform || d.kind == layer_kind::full) ? layer_kind::inherit : d.kind;
    m.layer[i].recurrent = d.recurrent;
    if (d.kv_heads != 0 && d.kv_heads != m.kv_heads) {
      if (d.kv_heads > 0xFFFFU) {
        fail(config_errc::unsupported, "", "a layer's KV heads exceed 65535");
      }
      m.layer[i].kv_heads = static_cast<std::uint16_t>(d.kv_heads);
    }
    // A layer's own head_dim sets K and, unless head_dim_v is given, V (≤ 0xFFFF); stored where either differs.
    if (d.head_dim != 0 || d.head_dim_v != 0) {
      const std::uint32_t k = d.head_dim != 0 ? d.head_dim : effective_head_dim(m);
      const std::uint32_t v = d.head_dim_v != 0 ? d.head_dim_v : (d.head_dim != 0 ? d.head_dim : effective_head_dim_v(m));
      if (k != effective_head_dim(m) || v != effective_head_dim_v(m)) {
        m.layer[i].head_dim = static_cast<std::uint16_t>(k);
        m.layer[i].head_dim_v = static_cast<std::uint16_t>(v);
      }
    }
    m.weights.layer[i].v_from_k = d.v_from_k;
    m.weights.layer[i].attention_sinks = d.sinks;
    m.weights.layer[i].query_heads = d.query_heads == m.attention_heads ? 0U : d.query_heads;  // weights only
  }
}

/// Groups consecutive equal decisions into parsed_config::layers; the first KV-head note goes on attention groups.
inline void group_layers(const layer_plan& plan, const std::vector<std::string>& kv_notes, parsed_config& out) {
  const std::uint32_t layers = out.spec.layers;
  const auto same = [&](std::uint32_t a, std::uint32_t b) {
    const auto& x = plan.layer[a];
    const auto& y = plan.layer[b];
    const bool shared = x.kind == layer_kind::shared && y.kind == layer_kind::shared;  // no cache: its shape is weights'
    return x.kind == y.kind && x.recurrent == y.recurrent && x.reason == y.reason &&
           (shared || (x.kv_heads == y.kv_heads && x.head_dim == y.head_dim && x.head_dim_v == y.head_dim_v &&
                       x.sinks == y.sinks));
  };
  std::size_t groups = layers == 0 ? 0 : 1;
  for (std::uint32_t i = 1; i < layers; ++i) {
    groups += same(i - 1, i) ? 0U : 1U;
  }
  out.layers.reserve(groups);
  const std::optional<layer_reason> kv_note =
      kv_notes.empty() ? std::nullopt : std::optional<layer_reason>({"", reason_rule::note, kv_notes.front(), {}});
  for (std::uint32_t i = 0; i < layers;) {
    std::uint32_t j = i + 1;
    const auto& d = plan.layer[i];
    while (j < layers && same(i, j)) {
      ++j;
    }
    const bool attends = d.kind != layer_kind::none && d.kind != layer_kind::shared && d.kind != layer_kind::latent;
    layer_reasons why = plan.reasons[d.reason];
    if (attends && d.kv_heads == 0 && kv_note) {
      why.push_back(*kv_note);
    }
    std::string rendered = render_reason(why, i, j - i);
    out.layers.push_back(layer_group_note{i, j - i, d.kind, d.recurrent, std::move(rendered), std::move(why)});
    i = j;
  }
}

/// An unknown model_type: one warning, before the assumptions it lists, saying what was assumed.
inline void note_generic_decoder(const config_view& v, const plan_facts& facts, const std::vector<std::string>& kv_notes,
                                 std::size_t first_assumption, parsed_config& out) {
  const std::string& mt = out.model_type;
  std::string list;
  for (std::size_t k = first_assumption; k < out.warnings.size(); ++k) {
    list += (list.empty() ? "" : "; ") + out.warnings[k];
  }
  out.warnings.insert(out.warnings.begin() + static_cast<std::ptrdiff_t>(first_assumption),
                      "model_type " + (mt.empty() ? std::string("absent") : "\"" + printable(mt) + "\" unknown") +
                          ": sized as a generic decoder from the standard keys, assuming: every layer keeps full K and V "
                          "unless layer_types or sliding_window say otherwise; " +
                          (facts.latent ? std::string("latent attention from kv_lora_rank")
                                        : (kv_notes.empty() ? std::string("KV heads per block") : kv_notes.front())) +
                          "; head_dim " + std::to_string(out.spec.head_dim) +
                          (v.get_first(keys::head_dim).set() ? " as given" : " = hidden_size / num_attention_heads") +
                          "; a gated (SwiGLU) MLP; no recurrent layers unless a hybrid key says so; and: " +
                          (list.empty() ? std::string("nothing else") : list));
}

/// Reads a parsed document. The file name is added by the caller. `table` holds the families
/// kvsize knows (families.hpp); a test may bring its own.
[[nodiscard]] inline auto read_document(const json& root, std::vector<std::string> warnings,
                                        std::span<const family> table = families) -> parsed_config {
  parsed_config out;
  out.warnings = std::move(warnings);
  const auto [top_type, text] = read_model_type(root, out);
  const std::string& mt = out.model_type;
  const family* fam = find_family(mt, table);
  const config_view v(text.present() ? *text.value : root, out.text_config_pointer, fam, text.present(), out.warnings);
  const std::size_t first_assumption = out.warnings.size();

  plan_facts facts;
  std::vector<std::string> kv_notes;
  read_attention_shape(v, mt, out.spec, facts, kv_notes);
  read_max_context(v, out);
  read_dtype(root, text, out);
  read_weights_facts(root, v, out);  // the MLP width (activations read it); biases and tying weights-only
  const layer_plan plan = plan_layers(v, facts);
  apply_plan(plan, out.spec);
  read_weights_shape(root, v, mt, top_type, plan, out);
  read_vision_size(root, out);  // after the weights reader: one warning for a malformed key both read
  const slot& text_config = text;  // a lambda cannot capture a structured binding before Clang 16
  read_weights_only(out, [&] { read_quantization_config(root, text_config, out); });
  group_layers(plan, kv_notes, out);
  if (fam == nullptr) {
    note_generic_decoder(v, facts, kv_notes, first_assumption, out);
  }
  try {
    kvsize::validate(out.spec);
  } catch (const kvsize::invalid_argument& e) {
    fail(config_errc::inconsistent, "", e.what());
  }
  return out;
}

/// Adds the file name to an error thrown inside the reader.
template <class F>
auto with_file(std::string_view file, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const config_error& e) {
    throw config_error(e.code(), std::string(file), e.pointer(), e.message());
  } catch (const kvsize::overflow_error& e) {  // kvsize::detail::checked_* on absurd state sizes
    throw config_error(config_errc::out_of_range, std::string(file), "", e.what());
  } catch (const kvsize::invalid_argument& e) {  // a core check the reader did not make first
    throw config_error(config_errc::inconsistent, std::string(file), "", e.what());
  } catch (const nlohmann::json::exception& e) {
    // The last line of defence: every reader checks a value's type before it takes it (json_reader.hpp),
    // so this is a kvsize bug, but the caller still gets the one exception type, naming the file.
    throw config_error(config_errc::wrong_type, std::string(file), "",
                       std::string("a value of an unexpected type (") + printable(e.what(), 200) + ")");
  }
}

}  // namespace detail

/// Reads the text of a config.json. Throws config_error (file = `file_name`) on any defect.
[[nodiscard]] inline auto parse_config(std::string_view text, std::string_view file_name = "config.json")
    -> parsed_config {
  return detail::with_file(file_name, [&] {
    std::vector<std::string> warnings;
    const detail::json doc = detail::parse_json_text(text, parse_limits{}, warnings);
    return detail::read_document(doc, std::move(warnings));
  });
}

/// Reads a config.json from a stream (a pipe, a socket, an in-memory buffer) to its end; `file_name`
/// names it in errors. More than 16 MiB is refused (io) without reading past the limit.
[[nodiscard]] inline auto load_config(std::istream& in, std::string_view file_name = "<stdin>") -> parsed_config {
  const std::string file(file_name);
  return parse_config(detail::read_capped(in, file, parse_limits{}.max_bytes), file);
}

/// Reads a model's config.json. `path` may be the file itself, a model folder (its config.json is
/// read, and errors name DIR/config.json; its hf_quant_config.json too where config.json has no
/// quantization_config: read_hf_quant_config), "-" (standard input, named "<stdin>" in errors), or
/// anything that can be read to its end: a named pipe, /dev/stdin, a shell's <(...) substitution.
/// io errors carry the path as file(); more than 16 MiB is refused (io) without reading past it.
[[nodiscard]] inline auto load_config(const std::filesystem::path& path) -> parsed_config {
  if (path == "-") {
    return load_config(std::cin, "<stdin>");
  }
  std::error_code ec;
  const std::filesystem::path file_path =
      std::filesystem::is_directory(path, ec) ? path / "config.json" : path;
  const std::string file = file_path.string();
  if (std::filesystem::is_directory(file_path, ec)) {
    throw config_error(config_errc::io, file, "", "cannot read the file: it is a directory");
  }
  errno = 0;
  std::ifstream in(file_path, std::ios::binary);
  if (!in) {
    const int saved = errno;
    throw config_error(config_errc::io, file, "",
                       "cannot read the file: " + (saved != 0 ? std::generic_category().message(saved)
                                                               : std::string("cannot open it for reading")));
  }
  parsed_config out = parse_config(detail::read_capped(in, file, parse_limits{}.max_bytes), file);
  if (file_path != path) {  // a model folder: a ModelOpt export may keep its quantization in hf_quant_config.json
    detail::read_hf_quant_config(path, out);
  } else {
    detail::note_hf_quant_config_beside(file_path, out);
  }
  return out;
}

}  // namespace kvsize::hf

namespace kvsize {

/// nlohmann ADL hook: `j.get<kvsize::model_spec>()` with the same checks as parse_config
/// (every defect is a kvsize::hf::config_error, file "<json>").
inline void from_json(const nlohmann::json& j, model_spec& m) {
  m = hf::detail::with_file("<json>", [&] { return hf::detail::read_document(j, {}); }).spec;
}

}  // namespace kvsize
