// SPDX-License-Identifier: MIT
// kvsize-codegen: turns a Hugging Face config.json into a C++ header holding the model as a
// constexpr kvsize::model_spec, for static_assert-ed deployment checks. CMake's
// kvsize_add_model() (cmake/kvsize-add-model.cmake) runs it at build time.
//
//   kvsize-codegen --name qwen2_5_7b [--namespace models] [--display-name "Qwen/Qwen2.5-7B"]
//                  --output qwen2_5_7b.hpp configs/Qwen__Qwen2.5-7B.config.json
//
// The header defines, in the namespace given (default: the global one):
//   inline constexpr kvsize::model_spec <name>{...};     designated initialisers; a layer override
//                                                        only for layers that have one
//   inline constexpr std::string_view <name>_name;       the display name
//   inline constexpr std::uint64_t <name>_parameters;    only for dense Llama/Qwen2/Mistral models,
//                                                        = kvsize::dense_decoder_parameters(<name>)
// Exit codes: 0 written; 2 bad arguments, a bad config.json, or the header cannot be written (the
// message names the file and says why, e.g. "No such file or directory"). A failed write leaves no
// partial header behind: a build system would take a truncated file for up to date.
#include <kvsize/hf_config.hpp>
#include <kvsize/model_spec.hpp>
#include <kvsize/version.hpp>

#include <nlohmann/json.hpp>

#include <array>        // std::array
#include <cerrno>       // errno
#include <cstdint>      // std::uint32_t, std::uint64_t
#include <cstdio>       // std::fopen, std::fwrite, std::fclose, std::fputs, stderr
#include <exception>    // std::exception
#include <filesystem>   // std::filesystem::path
#include <fstream>      // std::ifstream
#include <iterator>     // std::istreambuf_iterator
#include <sstream>      // std::ostringstream
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <system_error> // std::generic_category
#include <vector>       // std::vector

namespace {

constexpr std::string_view usage =
    "usage: kvsize-codegen --name IDENTIFIER [--namespace NS] [--display-name TEXT] --output FILE CONFIG.json\n";

struct arguments {
  std::string name;
  std::string name_space;
  std::string display_name;
  std::string output;
  std::string config;
};

struct usage_error {
  std::string message;
};

[[nodiscard]] auto is_identifier(std::string_view s) -> bool {
  if (s.empty() || (s.front() >= '0' && s.front() <= '9')) {
    return false;
  }
  for (const char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) {
      return false;
    }
  }
  return true;
}

/// "a::b::c", each part an identifier.
[[nodiscard]] auto is_namespace(std::string_view s) -> bool {
  while (true) {
    const auto sep = s.find("::");
    if (!is_identifier(s.substr(0, sep))) {
      return false;
    }
    if (sep == std::string_view::npos) {
      return true;
    }
    s.remove_prefix(sep + 2);
  }
}

[[nodiscard]] auto parse_arguments(int argc, char** argv) -> arguments {
  arguments a;
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) {
        throw usage_error{std::string(arg) + " needs a value"};
      }
      return std::string(args[++i]);
    };
    if (arg == "--name") {
      a.name = value();
    } else if (arg == "--namespace") {
      a.name_space = value();
    } else if (arg == "--display-name") {
      a.display_name = value();
    } else if (arg == "--output") {
      a.output = value();
    } else if (arg.starts_with("-")) {
      throw usage_error{"unknown option " + std::string(arg)};
    } else if (a.config.empty()) {
      a.config = std::string(arg);
    } else {
      throw usage_error{"more than one config.json given"};
    }
  }
  if (a.config.empty() || a.output.empty() || a.name.empty()) {
    throw usage_error{"--name, --output and a config.json are required"};
  }
  if (!is_identifier(a.name)) {
    throw usage_error{"--name must be a C++ identifier, got \"" + a.name + "\""};
  }
  if (!a.name_space.empty() && !is_namespace(a.name_space)) {
    throw usage_error{"--namespace must be identifiers joined by ::, got \"" + a.name_space + "\""};
  }
  return a;
}

/// "configs/Qwen__Qwen2.5-7B.config.json" → "Qwen/Qwen2.5-7B" (the Hub id, as configs/ names files).
[[nodiscard]] auto display_name_of(const std::filesystem::path& config) -> std::string {
  std::string stem = config.filename().string();
  for (const std::string_view suffix : {".config.json", ".json"}) {
    if (stem.size() > suffix.size() && stem.ends_with(suffix)) {
      stem.resize(stem.size() - suffix.size());
      break;
    }
  }
  if (const auto at = stem.find("__"); at != std::string::npos) {
    stem.replace(at, 2, "/");
  }
  return stem;
}

/// A C++ string literal for `s`.
[[nodiscard]] auto cpp_literal(std::string_view s) -> std::string {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      static constexpr char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[(static_cast<unsigned char>(c) >> 4) & 0xF];
      out += hex[static_cast<unsigned char>(c) & 0xF];
    } else {
      out += c;
    }
  }
  return out + '"';
}

/// 151936 → "151'936".
[[nodiscard]] auto grouped(std::uint64_t n) -> std::string {
  const std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) {
      out += '\'';
    }
    out += digits[i];
  }
  return out;
}

[[nodiscard]] auto enumerator(kvsize::layer_kind k) -> std::string {
  return "kvsize::layer_kind::" + std::string(kvsize::name(k));
}

[[nodiscard]] auto enumerator(kvsize::dtype t) -> std::string { return "kvsize::dtype::" + std::string(kvsize::name(t)); }

/// ".a = 1, .b = 2" for the fields of `fields` whose value differs from the default.
struct field_list {
  std::vector<std::string> items;
  template <class T>
  void add(std::string_view field, const T& value, const T& default_value, std::string text) {
    if (!(value == default_value)) {
      items.push_back("." + std::string(field) + " = " + std::move(text));
    }
  }
  void add_always(std::string_view field, std::string text) { items.push_back("." + std::string(field) + " = " + std::move(text)); }
};

[[nodiscard]] auto layer_initialiser(const kvsize::layer_spec& l) -> std::string {
  const kvsize::layer_spec d{};
  field_list f;
  f.add("kind", l.kind, d.kind, enumerator(l.kind));
  f.add("recurrent", l.recurrent, d.recurrent, l.recurrent ? "true" : "false");
  f.add("kv_heads", l.kv_heads, d.kv_heads, std::to_string(l.kv_heads));
  f.add("head_dim", l.head_dim, d.head_dim, std::to_string(l.head_dim));
  f.add("head_dim_v", l.head_dim_v, d.head_dim_v, std::to_string(l.head_dim_v));
  std::string out = "kvsize::layer_spec{";
  for (std::size_t i = 0; i < f.items.size(); ++i) {
    out += (i == 0 ? "" : ", ") + f.items[i];
  }
  return out + "}";
}

/// A double as a C++ literal that reads back the same value (17 significant digits, and a point).
[[nodiscard]] auto double_literal(double v) -> std::string {
  std::array<char, 40> text{};
  const int n = std::snprintf(text.data(), text.size(), "%.17g", v);
  std::string out(text.data(), static_cast<std::size_t>(n));
  return out.find_first_of(".e") == std::string::npos ? out + ".0" : out;
}

/// `{...}` of model_spec::stated: the keys as read and the rope terms (kvsize/stated_context.hpp).
[[nodiscard]] auto stated_initialiser(const kvsize::stated_context& c) -> std::string {
  const auto b = [](bool v) { return std::string(v ? "true" : "false"); };
  std::string keys;
  for (std::size_t i = 0; i < c.keys.size(); ++i) {
    keys += (i == 0 ? "" : ", ") + std::to_string(c.keys[i]);
  }
  std::string rope;
  for (std::size_t i = 0; i < c.rope.size(); ++i) {
    const kvsize::stated_rope& r = c.rope[i];
    rope += std::string(i == 0 ? "" : ", ") + "kvsize::stated_rope{.kind = kvsize::rope_kind::" +
            (r.kind == kvsize::rope_kind::yarn       ? "yarn"
             : r.kind == kvsize::rope_kind::longrope ? "longrope"
             : r.kind == kvsize::rope_kind::llama3   ? "llama3"
                                                     : "other") +
            ", .factor = " + double_literal(r.factor) + ", .original_set = " + b(r.original_set) +
            ", .original = " + std::to_string(r.original) + "}";
  }
  return "{.keys = {" + keys + "}, .keys_read = " + b(c.keys_read) + ", .rope = {" + rope +
         "}, .rope_entries = " + std::to_string(c.rope_entries) + ", .rope_nested = " + b(c.rope_nested) +
         ", .rope_from_scaling = " + b(c.rope_from_scaling) + ", .gemma3 = " + b(c.gemma3) +
         ", .family = kvsize::length_family::" +
         (c.family == kvsize::length_family::falcon            ? "falcon"
          : c.family == kvsize::length_family::command_r       ? "command_r"
          : c.family == kvsize::length_family::mamba           ? "mamba"
          : c.family == kvsize::length_family::hunyuan_dynamic ? "hunyuan_dynamic"
          : c.family == kvsize::length_family::chatglm_hidden  ? "chatglm_hidden"
                                                               : "plain") +
         ", .rope_read = " + b(c.rope_read) + ", .top_original = " + std::to_string(c.top_original) + "}";
}

/// `.weights = {...}`: the fields of model_spec::weights that differ from weights_shape's
/// defaults, in declaration order (per-layer entries are set after construction); "" if none.
[[nodiscard]] auto weights_initialiser(const kvsize::weights_shape& w) -> std::string {
  const kvsize::weights_shape d{};
  const auto b = [](bool v) { return std::string(v ? "true" : "false"); };
  const auto n = [](std::uint64_t v) { return std::to_string(v); };
  field_list f;
  f.add("norm", w.norm, d.norm, "kvsize::norm_kind::" + std::string(w.norm == kvsize::norm_kind::rms ? "rms" : w.norm == kvsize::norm_kind::layer_norm ? "layer_norm" : "layer_norm_no_bias"));
  f.add("norms_per_mixer", w.norms_per_mixer, d.norms_per_mixer, n(w.norms_per_mixer));
  f.add("norms_per_ffn", w.norms_per_ffn, d.norms_per_ffn, n(w.norms_per_ffn));
  f.add("final_norm", w.final_norm, d.final_norm, b(w.final_norm));
  f.add("parallel_block", w.parallel_block, d.parallel_block, b(w.parallel_block));
  f.add("layer_scalar", w.layer_scalar, d.layer_scalar, b(w.layer_scalar));
  f.add("position_embeddings", w.position_embeddings, d.position_embeddings, n(w.position_embeddings));
  f.add("per_layer_input_width", w.per_layer_input_width, d.per_layer_input_width, n(w.per_layer_input_width));
  f.add("per_layer_input_vocab", w.per_layer_input_vocab, d.per_layer_input_vocab, n(w.per_layer_input_vocab));
  f.add("o_bias", w.o_bias, d.o_bias, b(w.o_bias));
  f.add("qk_norm", w.qk_norm, d.qk_norm, "kvsize::qk_norm_kind::" + std::string(w.qk_norm == kvsize::qk_norm_kind::none ? "none" : w.qk_norm == kvsize::qk_norm_kind::head ? "head" : "full"));
  f.add("attention_sinks", w.attention_sinks, d.attention_sinks, b(w.attention_sinks));
  f.add("output_gate", w.output_gate, d.output_gate, b(w.output_gate));
  f.add("head_gate", w.head_gate, d.head_gate, b(w.head_gate));
  f.add("sliding_rope_apart", w.sliding_rope_apart, d.sliding_rope_apart, b(w.sliding_rope_apart));
  if (!(w.rotary == d.rotary)) {
    const auto& r = w.rotary;
    f.add_always("rotary", "{.positions = " + n(r.positions) + ", .rotary_dim = " + n(r.rotary_dim) +
                               ", .positions_dynamic = " + b(r.positions_dynamic) + ", .multimodal = " +
                               b(r.multimodal) + ", .float32 = " + b(r.float32) + ", .none = " + b(r.none) +
                               ", .rows_max_model_len = " + b(r.rows_max_model_len) + ", .sliding_rotary_dim = " +
                               n(r.sliding_rotary_dim) + ", .indexer_table = " + b(r.indexer_table) +
                               ", .deepseek_scaling = " + b(r.deepseek_scaling) + "}");
  }
  f.add("sparse_index_heads", w.sparse_index_heads, d.sparse_index_heads, n(w.sparse_index_heads));
  f.add("dsa_index_heads", w.dsa_index_heads, d.dsa_index_heads, n(w.dsa_index_heads));
  f.add("fused_qkv", w.fused_qkv, d.fused_qkv, b(w.fused_qkv));
  f.add("fused_gate_up", w.fused_gate_up, d.fused_gate_up, b(w.fused_gate_up));
  f.add("q_lora_rank", w.q_lora_rank, d.q_lora_rank, n(w.q_lora_rank));
  f.add("mlp_bias", w.mlp_bias, d.mlp_bias, b(w.mlp_bias));
  if (!(w.moe == d.moe)) {
    const auto& e = w.moe;
    f.add_always("moe", "{.experts = " + n(e.experts) + ", .experts_per_token = " + n(e.experts_per_token) +
                            ", .expert_width = " + n(e.expert_width) + ", .shared_width = " + n(e.shared_width) +
                            ", .latent_width = " + n(e.latent_width) + ", .first_dense_layers = " + n(e.first_dense_layers) + ", .shared_gate = " + b(e.shared_gate) +
                            ", .router_bias = " + b(e.router_bias) + ", .score_correction_bias = " +
                            b(e.score_correction_bias) + ", .router_f32 = " + b(e.router_f32) +
                            ", .expert_bias = " + b(e.expert_bias) + "}");
  }
  if (!(w.recurrent == d.recurrent)) {
    const auto& r = w.recurrent;
    f.add_always("recurrent", "{.kind = kvsize::recurrent_kind::" +
                                  std::string(r.kind == kvsize::recurrent_kind::mamba2        ? "mamba2"
                                              : r.kind == kvsize::recurrent_kind::gated_delta ? "gated_delta"
                                              : r.kind == kvsize::recurrent_kind::mamba1      ? "mamba1"
                                              : r.kind == kvsize::recurrent_kind::kda         ? "kda"
                                              : r.kind == kvsize::recurrent_kind::lightning   ? "lightning"
                                              : r.kind == kvsize::recurrent_kind::short_conv  ? "short_conv"
                                                                                              : "none") +
                                  ", .heads = " + n(r.heads) + ", .head_dim = " + n(r.head_dim) + ", .groups = " +
                                  n(r.groups) + ", .state_dim = " + n(r.state_dim) + ", .conv_kernel = " +
                                  n(r.conv_kernel) + ", .dt_rank = " + n(r.dt_rank) + ", .conv_bias = " + b(r.conv_bias) + ", .proj_bias = " +
                                  b(r.proj_bias) + "}");
  }
  f.add("mtp_layers", w.mtp_layers, d.mtp_layers, n(w.mtp_layers));
  f.add("mtp_embeddings", w.mtp_embeddings, d.mtp_embeddings, b(w.mtp_embeddings));
  f.add("vision", w.vision, d.vision, n(w.vision));
  if (f.items.empty()) {
    return {};
  }
  std::string out = "{";
  for (std::size_t i = 0; i < f.items.size(); ++i) {
    out += (i == 0 ? "" : ", ") + f.items[i];
  }
  return out + "}";
}

/// `kvsize::layer_weights{...}` of one layer.
[[nodiscard]] auto layer_weights_initialiser(const kvsize::layer_weights& l) -> std::string {
  const char* kind = l.ffn == kvsize::ffn_kind::dense ? "dense" : l.ffn == kvsize::ffn_kind::moe ? "moe"
                   : l.ffn == kvsize::ffn_kind::none ? "none" : "inherit";
  return "kvsize::layer_weights{.ffn = kvsize::ffn_kind::" + std::string(kind) +
         ", .ffn_width = " + std::to_string(l.ffn_width) + (l.v_from_k ? ", .v_from_k = true" : "") +
         (l.attention_sinks ? ", .attention_sinks = true" : "") +
         (l.query_heads != 0 ? ", .query_heads = " + std::to_string(l.query_heads) : "") + "}";
}

/// The designated initialisers of every non-layer field of `m` (the shape fields always, the
/// others when they differ from model_spec's defaults), one per line.
[[nodiscard]] auto spec_fields(const kvsize::model_spec& m) -> std::vector<std::string> {
  const kvsize::model_spec d{};
  field_list f;
  f.add_always("layers", grouped(m.layers));
  f.add_always("attention_heads", grouped(m.attention_heads));
  f.add("kv_heads", m.kv_heads, d.kv_heads, grouped(m.kv_heads));
  f.add("head_dim", m.head_dim, d.head_dim, grouped(m.head_dim));
  f.add("head_dim_v", m.head_dim_v, d.head_dim_v, grouped(m.head_dim_v));
  f.add("hidden_size", m.hidden_size, d.hidden_size, grouped(m.hidden_size));
  f.add("vocab_size", m.vocab_size, d.vocab_size, grouped(m.vocab_size));
  f.add("max_context", m.max_context, d.max_context, grouped(m.max_context));
  f.add("stated", m.stated, d.stated, stated_initialiser(m.stated));
  f.add_always("compute_dtype", enumerator(m.compute_dtype));
  f.add("attention", m.attention, d.attention, enumerator(m.attention));
  f.add("sliding_window", m.sliding_window, d.sliding_window, grouped(m.sliding_window));
  f.add("attention_chunk", m.attention_chunk, d.attention_chunk, grouped(m.attention_chunk));
  f.add("sparse_index_dim", m.sparse_index_dim, d.sparse_index_dim, grouped(m.sparse_index_dim));
  if (!(m.latent == d.latent)) {
    f.add_always("latent", "{.kv_lora_rank = " + grouped(m.latent.kv_lora_rank) +
                               ", .rope_head_dim = " + grouped(m.latent.rope_head_dim) +
                               ", .nope_head_dim = " + grouped(m.latent.nope_head_dim) +
                               ", .v_head_dim = " + grouped(m.latent.v_head_dim) +
                               ", .index_head_dim = " + grouped(m.latent.index_head_dim) + "}");
  }
  if (!(m.state == d.state)) {
    std::string ssm_dtype;
    if (m.state.ssm_dtype_set) {
      ssm_dtype = ", .ssm_dtype = " + enumerator(m.state.ssm_dtype) + ", .ssm_dtype_set = true" +
                  (m.state.ssm_dtype_defaulted ? ", .ssm_dtype_defaulted = true" : "");
    }
    f.add_always("state", "{.conv_elements = " + grouped(m.state.conv_elements) +
                              ", .ssm_elements = " + grouped(m.state.ssm_elements) + ssm_dtype + "}");
  }
  // `layer` (between `state` and `intermediate_size`) is set after construction: designated
  // initialisers cannot name an array element.
  f.add("intermediate_size", m.intermediate_size, d.intermediate_size, grouped(m.intermediate_size));
  f.add("gated_mlp", m.gated_mlp, d.gated_mlp, m.gated_mlp ? "true" : "false");
  f.add("qkv_bias", m.qkv_bias, d.qkv_bias, m.qkv_bias ? "true" : "false");
  f.add("tied_embeddings", m.tied_embeddings, d.tied_embeddings, m.tied_embeddings ? "true" : "false");
  if (std::string w = weights_initialiser(m.weights); !w.empty()) {
    f.add_always("weights", std::move(w));  // its per-layer entries are set after construction
  }
  return f.items;
}

/// Whether kvsize::dense_decoder_parameters counts this model's weights: a Llama / Qwen2 /
/// Mistral decoder with attention in every layer, no experts, latent or recurrent parts.
[[nodiscard]] auto dense_parameters_apply(const kvsize::hf::parsed_config& c, const nlohmann::json& root) -> bool {
  const kvsize::model_spec& m = c.spec;
  if (c.model_type != "llama" && c.model_type != "qwen2" && c.model_type != "mistral") {
    return false;
  }
  if (m.intermediate_size == 0 || m.hidden_size == 0 || m.vocab_size == 0) {
    return false;
  }
  for (std::uint32_t il = 0; il < m.layers; ++il) {
    const kvsize::layer_kind k = kvsize::kind_of_layer(m, il);
    const bool attention = k == kvsize::layer_kind::full || k == kvsize::layer_kind::sliding;
    if (!attention || m.layer[il].recurrent || !kvsize::layer_has_model_shape(m, il)) {
      return false;
    }
  }
  const nlohmann::json* text = &root;
  if (!c.text_config_pointer.empty()) {
    text = &root.at(nlohmann::json::json_pointer(c.text_config_pointer));
  }
  for (const char* key : {"num_experts", "num_local_experts", "n_routed_experts", "moe_intermediate_size"}) {
    for (const nlohmann::json* j : {&root, text}) {
      if (j->is_object() && j->contains(key) && !j->at(key).is_null() && j->at(key) != 0) {
        return false;
      }
    }
  }
  return true;
}

[[nodiscard]] auto generate(const arguments& a, const kvsize::hf::parsed_config& c, bool with_parameters)
    -> std::string {
  const kvsize::model_spec& m = c.spec;
  const std::string display = a.display_name.empty() ? display_name_of(a.config) : a.display_name;
  std::ostringstream out;
  out << "// Generated by kvsize-codegen " << KVSIZE_VERSION << " from "
      << std::filesystem::path(a.config).filename().string() << ". Do not edit: the build regenerates it\n"
      << "// (kvsize_add_model) whenever that file changes.\n";
  out << "// model_type " << cpp_literal(c.model_type) << ", architecture " << cpp_literal(c.architecture) << ".\n";
  for (const std::string& w : c.warnings) {
    out << "// Parser note: " << w << "\n";
  }
  out << "#pragma once\n\n#include <cstdint>      // std::uint64_t\n#include <string_view>  // std::string_view\n\n"
      << "#include <kvsize/model_spec.hpp>\n";
  if (with_parameters) {
    out << "#include <kvsize/parameters.hpp>\n";
  }
  out << "\n";
  if (!a.name_space.empty()) {
    out << "namespace " << a.name_space << " {\n\n";
  }
  out << "/// " << display << ", as read from its config.json by kvsize::hf::load_config.\n";

  std::vector<std::uint32_t> overridden;
  for (std::uint32_t il = 0; il < kvsize::max_layers; ++il) {
    if (!(m.layer[il] == kvsize::layer_spec{}) || !(m.weights.layer[il] == kvsize::layer_weights{})) {
      overridden.push_back(il);
    }
  }
  const std::vector<std::string> fields = spec_fields(m);
  const std::string indent = overridden.empty() ? "    " : "      ";
  if (overridden.empty()) {
    out << "inline constexpr kvsize::model_spec " << a.name << "{\n";
  } else {
    out << "inline constexpr kvsize::model_spec " << a.name << " = [] {\n  kvsize::model_spec m{\n";
  }
  for (std::size_t i = 0; i < fields.size(); ++i) {
    out << indent << fields[i] << (i + 1 < fields.size() ? ",\n" : "\n");
  }
  if (overridden.empty()) {
    out << "};\n";
  } else {
    out << "  };\n  // Layers that differ from the model-wide `attention`, `kv_heads`, head dimensions or recurrence.\n";
    for (const std::uint32_t il : overridden) {
      if (!(m.layer[il] == kvsize::layer_spec{})) {
        out << "  m.layer[" << il << "] = " << layer_initialiser(m.layer[il]) << ";\n";
      }
      if (!(m.weights.layer[il] == kvsize::layer_weights{})) {
        out << "  m.weights.layer[" << il << "] = " << layer_weights_initialiser(m.weights.layer[il]) << ";\n";
      }
    }
    out << "  return m;\n}();\n";
  }
  out << "\n/// The display name of " << a.name << ", for messages (KVSIZE_STATIC_REQUIRE_FIT).\n"
      << "inline constexpr std::string_view " << a.name << "_name = " << cpp_literal(display) << ";\n";
  if (with_parameters) {
    out << "\n/// Parameters of " << a.name << " (kvsize::dense_decoder_parameters: a dense Llama/Qwen2/Mistral "
        << "decoder).\ninline constexpr std::uint64_t " << a.name << "_parameters = kvsize::dense_decoder_parameters("
        << a.name << ");\n";
  }
  if (!a.name_space.empty()) {
    out << "\n}  // namespace " << a.name_space << "\n";
  }
  return out.str();
}

[[nodiscard]] auto read_json(const std::string& path) -> nlohmann::json {
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The file has just been read by load_config, whose reader accepts what nlohmann's strict
  // parser may not (bare NaN, a BOM): then leave the MoE keys unknown (no parameter count).
  return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/false);
}

/// Writes `text` to the file `path`. Returns "" on success, else why not: the C library's message
/// for errno ("Permission denied", "No space left on device") of the open, write or close that failed
/// (a buffered write may fail only when the file is closed). A regular file left half-written is
/// removed; a device such as /dev/stdout is written to but never removed.
[[nodiscard]] auto write_file(const std::string& path, std::string_view text) -> std::string {
  // errno is POSIX's report for fopen/fwrite/fclose; ISO C does not promise it, hence the fallback.
  const auto reason = [](int error) {
    return error != 0 ? std::generic_category().message(error) : std::string("the C library gave no reason");
  };
  errno = 0;
#if defined(_MSC_VER)
#pragma warning(suppress : 4996)  // MSVC's CRT calls fopen "unsafe" and wants fopen_s, which is not ISO C++
#endif
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    return reason(errno);
  }
  bool failed = std::fwrite(text.data(), 1, text.size(), file) != text.size();
  int error = failed ? errno : 0;
  if (std::fclose(file) != 0 && !failed) {
    failed = true;
    error = errno;
  }
  if (!failed) {
    return {};
  }
  std::error_code ignored;
  if (std::filesystem::is_regular_file(path, ignored)) {
    std::filesystem::remove(path, ignored);
  }
  return reason(error);
}

}  // namespace

int main(int argc, char** argv) {
  arguments a;
  try {
    a = parse_arguments(argc, argv);
  } catch (const usage_error& e) {
    std::fputs(("kvsize-codegen: " + e.message + "\n").c_str(), stderr);
    std::fputs(usage.data(), stderr);
    return 2;
  }
  std::string header;
  try {
    const kvsize::hf::parsed_config c = kvsize::hf::load_config(a.config);
    if (!c.weights_unknown_because.empty()) {
      // The spec it emits carries the weights, which a static_assert on a device's fit reads: a
      // spec whose weights are incomplete would pass that check wrongly, so none is emitted.
      std::fputs(("kvsize-codegen: " + a.config + ":" + c.weights_unknown_because +
                  "; the weights cannot be counted, and the model_spec it would emit carries them\n")
                     .c_str(),
                 stderr);
      return 2;
    }
    const nlohmann::json root = read_json(a.config);
    header = generate(a, c, !root.is_discarded() && dense_parameters_apply(c, root));
  } catch (const kvsize::hf::config_error& e) {
    std::fputs(("kvsize-codegen: " + std::string(e.what()) + "\n").c_str(), stderr);
    return 2;
  } catch (const std::exception& e) {
    std::fputs(("kvsize-codegen: " + a.config + ": " + e.what() + "\n").c_str(), stderr);
    return 2;
  }
  if (const std::string why = write_file(a.output, header); !why.empty()) {
    std::fputs(("kvsize-codegen: cannot write " + a.output + ": " + why + "\n").c_str(), stderr);
    return 2;
  }
  return 0;
}
