// SPDX-License-Identifier: MIT
// The module names a quantization_config lists as left unquantized (modules_to_not_convert,
// llm_int8_skip_modules, compressed-tensors' ignore) → the parts of the model kvsize sizes
// (weights_format::unquantized_parts): names and regex patterns, one per layer or one for all, the
// attention by its module or its projections, and warnings for what kvsize cannot place.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>    // std::find, std::find_if
#include <array>        // std::array
#include <cstdint>      // std::uint8_t, std::uint16_t, std::uint32_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

#include "../weights.hpp"
#include "json_reader.hpp"

namespace kvsize::hf::detail {

/// `name` with each run of digits after a '.' replaced by "N": one spelling for every layer's copy
/// ("model.layers.N.input_layernorm").
[[nodiscard]] inline auto layer_pattern(const std::string& name) -> std::string {
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] >= '0' && name[i] <= '9' && i != 0 && name[i - 1] == '.') {
      out += 'N';
      while (i + 1 < name.size() && name[i + 1] >= '0' && name[i + 1] <= '9') {
        ++i;
      }
    } else {
      out += name[i];
    }
  }
  return out;
}

/// The attention's own projections as the families name them (Llama q/k/v/o_proj, DeepSeek's MLA q_a/q_b/kv_a/kv_b,
/// InternLM2 wqkv/wo, Falcon query_key_value/dense, GPT-2 c_attn/c_proj); a set of them is a bit mask over this list.
inline constexpr std::array<std::string_view, 19> attention_projections{
    "q_proj", "k_proj",    "v_proj", "o_proj", "qkv_proj", "q_a_proj", "q_b_proj", "kv_a_proj_with_mqa", "kv_b_proj",
    "wqkv",   "wq",        "wk",     "wv",     "wo",       "query_key_value", "dense", "out_proj", "c_attn", "c_proj"};

/// The projections that make up a whole attention, one family's set per entry: listing every one of a set keeps the
/// attention unquantized, as listing "self_attn" does; a part of a set (vLLM's MXFP8 recipes keep only kv_b_proj) is
/// less than the part kvsize sizes.
inline constexpr std::array<std::string_view, 9> whole_attention_sets{
    "q_proj k_proj v_proj o_proj", "qkv_proj o_proj", "q_a_proj q_b_proj kv_a_proj_with_mqa kv_b_proj o_proj",
    "q_proj kv_a_proj_with_mqa kv_b_proj o_proj", "wqkv wo", "wq wk wv wo", "query_key_value dense",
    "q_proj k_proj v_proj out_proj", "c_attn c_proj"};

/// The tensor role of each of attention_projections, in the same order (weights_enumeration.hpp names them so).
inline constexpr std::array<tensor_role, 19> attention_projection_roles{
    tensor_role::attn_q,      tensor_role::attn_k,      tensor_role::attn_v,      tensor_role::attn_output,
    tensor_role::attn_qkv,    tensor_role::attn_q_a,    tensor_role::attn_q_b,    tensor_role::attn_kv_a,
    tensor_role::attn_kv_b,   tensor_role::attn_qkv,    tensor_role::attn_q,      tensor_role::attn_k,
    tensor_role::attn_v,      tensor_role::attn_output, tensor_role::attn_qkv,    tensor_role::attn_output,
    tensor_role::attn_output, tensor_role::attn_qkv,    tensor_role::attn_output};

static_assert(attention_projection_roles.size() == attention_projections.size(), "kvsize: one role per projection");
static_assert([] {
  for (tensor_role r : attention_projection_roles) {
    if (r == tensor_role::token_embedding) {  // a slot left out of the list above
      return false;
    }
  }
  return true;
}(), "kvsize: every projection has its attention role");

[[nodiscard]] constexpr auto projection_bit(std::string_view name) -> std::uint32_t {
  for (std::size_t i = 0; i < attention_projections.size(); ++i) {
    if (attention_projections[i] == name) {
      return 1U << i;
    }
  }
  return 0;
}

/// The roles (role_bit) of the projections `listed` (a mask over attention_projections).
[[nodiscard]] constexpr auto roles_of_projections(std::uint32_t listed) -> std::uint64_t {
  std::uint64_t roles = 0;
  for (std::size_t i = 0; i < attention_projections.size(); ++i) {
    roles |= (listed & (1U << i)) != 0 ? role_bit(attention_projection_roles[i]) : 0U;
  }
  return roles;
}

/// Whether the projections `listed` (a mask) hold one of whole_attention_sets.
[[nodiscard]] constexpr auto covers_attention(std::uint32_t listed) -> bool {
  for (std::string_view set : whole_attention_sets) {
    bool all = true;
    while (!set.empty()) {
      const std::size_t space = set.find(' ');
      all = all && (listed & projection_bit(set.substr(0, space))) != 0;
      set.remove_prefix(space == std::string_view::npos ? set.size() : space + 1);
    }
    if (all) {
      return true;
    }
  }
  return false;
}

/// The projections that `rest`, what follows "self_attn." (or "attention.") in a pattern, names: all of them for a
/// wildcard ("*", regex ".*"), those ending in what follows a leading wildcard ("*_proj"), one, or a regex group
/// ("(q|k|v)_proj", "(?:q|k)_proj"); nullopt where it names anything else (DSA's "indexers_proj", "indexer.wk").
[[nodiscard]] inline auto projections_named(std::string_view rest) -> std::optional<std::uint32_t> {
  if (rest.ends_with(".*")) {
    rest.remove_suffix(2);
  } else if (rest.size() > 1 && rest.ends_with('*')) {
    rest.remove_suffix(1);  // a glob "q_proj*"
  }
  std::uint32_t named = 0;
  if (rest.empty()) {
    return (1U << attention_projections.size()) - 1U;
  }
  if (rest.starts_with('*')) {  // "*_proj": every projection with that ending ("*": every one)
    const std::string_view tail = rest.substr(1);
    for (std::string_view p : attention_projections) {
      named |= p.ends_with(tail) ? projection_bit(p) : 0U;
    }
    return named != 0 ? std::optional(named) : std::nullopt;
  }
  const std::size_t open = rest.find('(');
  const std::size_t close = rest.find(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    named = projection_bit(rest);
    return named != 0 ? std::optional(named) : std::nullopt;
  }
  std::string_view alternatives = rest.substr(open + 1, close - open - 1);
  if (alternatives.starts_with("?:")) {
    alternatives.remove_prefix(2);  // a non-capturing group
  }
  while (true) {  // each alternative of the group, with what surrounds it, a projection
    const std::size_t bar = alternatives.find('|');
    const std::uint32_t one = projection_bit(std::string(rest.substr(0, open)) +
                                             std::string(alternatives.substr(0, bar)) + std::string(rest.substr(close + 1)));
    if (one == 0) {
      return std::nullopt;
    }
    named |= one;
    if (bar == std::string_view::npos) {
      return named;
    }
    alternatives.remove_prefix(bar + 1);
  }
}

/// How a module name of such a list is matched: compressed-tensors' "re:" patterns as the names they spell
/// (".*mlp\\.gate$" ends in ".gate": the prefix, backslashes and a final '$' dropped).
[[nodiscard]] inline auto module_name_of(const std::string& raw) -> std::string {
  const bool regex = raw.starts_with("re:");
  std::string name = regex ? raw.substr(3) : raw;
  std::erase(name, '\\');
  if (regex && name.ends_with('$')) {
    name.pop_back();
  }
  return name;
}

/// What one module name keeps unquantized: nothing (a vector, an MTP projection), parts of the model, some of an
/// attention module's projections (decided once the list is read), or something kvsize cannot place (a warning).
struct module_match {
  enum class kind : std::uint8_t { nothing, parts, projections, inside_attention, unknown };
  kind what = kind::nothing;
  std::uint16_t parts = 0;
  std::string attention_module;  ///< projections: the attention module's layer pattern ("model.layers.N.self_attn")
  std::uint32_t projections = 0;  ///< projections: a mask over attention_projections
};

[[nodiscard]] inline auto match_module(const std::string& name) -> module_match {
  using kind = module_match::kind;
  const auto has = [&](std::string_view part) { return name.find(part) != std::string::npos; };
  const auto ends = [&](std::string_view tail) { return std::string_view(name).ends_with(tail); };
  const std::string leaf = name.substr(name.rfind('.') == std::string::npos ? 0 : name.rfind('.') + 1);
  const auto below = [&](std::string_view module) -> std::optional<std::string_view> {  // what follows "module."
    const std::size_t at = name.find(module);
    if (at == std::string::npos || at + module.size() >= name.size() || name[at + module.size()] != '.') {
      return std::nullopt;
    }
    return std::string_view(name).substr(at + module.size() + 1);
  };
  const auto part = [](weight_part p) { return module_match{kind::parts, part_bit(p), {}, 0}; };
  const auto self_attn = below("self_attn");
  const auto in_attention = self_attn ? self_attn : below("attention");
  if (leaf.find("norm") != std::string::npos || leaf == "bias" || ends("_bias")) {
    return {};  // a vector: never quantized
  }
  if (has("audio")) {
    return {};  // an audio tower (Gemma 3n's audio_tower, Qwen2.5-Omni's thinker.audio_tower), which kvsize does not
                // size: its attention and MLP are not the decoder's
  }
  if (has("vision") || has("visual") || has("multi_modal_projector") || has("mm_projector")) {
    return part(weight_part::vision);  // first: a tower has attention and MLP modules of its own
  }
  if (in_attention) {
    const auto named = projections_named(*in_attention);
    return named ? module_match{kind::projections, 0,
                                layer_pattern(name.substr(0, name.size() - in_attention->size() - 1)), *named}
                 : module_match{kind::inside_attention, 0, {}, 0};
  }
  if (has("lm_head")) {
    return part(weight_part::lm_head);
  }
  // A name segment that starts so ("….per_layer_projection", not "upper_layer…").
  const auto segment_starts = [&](std::string_view head) {
    for (std::size_t at = name.find(head); at != std::string::npos; at = name.find(head, at + 1)) {
      if (at == 0 || name[at - 1] == '.') {
        return true;
      }
    }
    return false;
  };
  if (segment_starts("per_layer")) {  // Gemma 3n / 4 E per_layer_model_projection, per_layer_input_gate, per_layer_projection
    return part(weight_part::embeddings);
  }
  if (has("embed")) {
    return part(weight_part::embeddings);
  }
  if (has("self_attn") || has("attention") || ends("attn")) {
    return part(weight_part::attention);
  }
  if (has("router") || ends(".gate") || name == "gate" || has("shared_expert_gate")) {
    return part(weight_part::router);
  }
  if (has("shared_expert")) {
    return part(weight_part::experts_shared);
  }
  if (has("mlp") && !has("expert") && (has("gate") || has("up") || has("down"))) {
    return part(weight_part::mlp);  // the dense MLP (Kimi: "re:.*mlp\\.(gate|up|gate_up|down)_proj.*")
  }
  if (has("eh_proj") || has("shared_head")) {
    return {};  // a DeepSeek-style MTP module's projection and head copy, which no scheme here quantizes
  }
  return {kind::unknown, 0, {}, 0};
}

/// What a list of module names keeps unquantized: whole parts (weights_format::unquantized_parts) and attention
/// projections that are not a whole attention (weights_format::unquantized_roles).
struct kept_modules {
  std::uint16_t parts = 0;
  std::uint64_t roles = 0;
  constexpr auto operator|=(const kept_modules& o) -> kept_modules& {
    parts |= o.parts;
    roles |= o.roles;
    return *this;
  }
};

/// modules_to_not_convert / llm_int8_skip_modules / compressed-tensors' ignore → kept_modules (match_module per
/// name). A norm or a bias (input_layernorm, indexer.k_norm, e_score_correction_bias) needs nothing: no scheme
/// quantizes a vector. The attention's projections, listed one by one, are the attention where they make up a whole
/// set (covers_attention), else those projections' roles (vLLM's MXFP8 recipes keep kv_b_proj alone;
/// DeepSeek-V3.1-NVFP4 MLA's q and kv projections): like a named module, a projection listed for some layers is
/// taken for all. Another module inside the attention (self_attn.indexers_proj) keeps less than the part kvsize
/// sizes: the attention stays quantized, with one warning per pattern ("model.layers.N.…"), not one per layer.
[[nodiscard]] inline auto parts_of_patterns(const slot& s, std::vector<std::string>& names,
                                            std::vector<std::string>& warnings) -> kept_modules {
  using kind = module_match::kind;
  kept_modules kept;
  if (!s.set()) {
    return kept;
  }
  if (!s.value->is_array()) {
    fail(config_errc::wrong_type, s.pointer(), "expected an array of module names, got " + describe(*s.value));
  }
  std::vector<std::string> warned;  // layer patterns already named
  const auto warn_once = [&](std::size_t i, const std::string& name, std::string_view why) {
    const std::string pattern = layer_pattern(name);
    if (std::find(warned.begin(), warned.end(), pattern) == warned.end()) {
      warned.push_back(pattern);
      warnings.push_back(element(s, i).pointer() + " = \"" + printable(name) + "\"" +
                         (pattern != name ? " (and the same module of other layers)" : "") + ": " + std::string(why));
    }
  };
  std::vector<module_match> listed;  // the projections named, per attention module
  for (std::size_t i = 0; i < s.value->size(); ++i) {
    const std::string raw = read_string(element(s, i));
    names.push_back(raw);
    const std::string name = module_name_of(raw);
    const module_match m = match_module(name);
    if (m.what == kind::parts) {
      kept.parts |= m.parts;
    } else if (m.what == kind::inside_attention) {
      warn_once(i, name, "a module inside the attention, which kvsize sizes as one part; the attention is taken "
                         "as quantized");
    } else if (m.what == kind::unknown) {
      warn_once(i, name, "not a module kvsize can map to a part of the model; assumed quantized");
    } else if (m.what == kind::projections) {
      const auto same = [&](const module_match& l) { return l.attention_module == m.attention_module; };
      if (const auto at = std::find_if(listed.begin(), listed.end(), same); at != listed.end()) {
        at->projections |= m.projections;
      } else {
        listed.push_back(m);
      }
    }
  }
  for (const module_match& m : listed) {
    if (covers_attention(m.projections)) {
      kept.parts |= part_bit(weight_part::attention);
    } else {
      kept.roles |= roles_of_projections(m.projections);
    }
  }
  return kept;
}

}  // namespace kvsize::hf::detail
