// SPDX-License-Identifier: MIT
// model_spec::stated's rope terms: the rope object as the engines' context rules read it (rope_scaling, else
// transformers 5's rope_parameters; per layer type or flat), each set's type, factor and
// original_max_position_embeddings, and the top-level original_max_position_embeddings. Read after the rotary table
// (weights_reader.hpp): a key the table reads too, when malformed, leaves the weights unknown; one only these read is
// warned of and leaves the engines' default context unscaled. Never the KV per token. The context keys themselves
// are read with max_context (model_reader.hpp read_max_context).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>      // std::uint64_t, std::uint8_t
#include <string>       // std::string
#include <string_view>  // std::string_view

#include "../model_spec.hpp"
#include "config_view.hpp"
#include "error.hpp"
#include "json_reader.hpp"
#include "parsed_config.hpp"

namespace kvsize::hf::detail::weights_detail {

/// A rope type's class for the context rules (rope_type, else the legacy `type`; vLLM's patch_rope_parameters
/// renames su to longrope, deepseek_v2.py yarn to deepseek_yarn).
[[nodiscard]] inline auto rope_kind_of(std::string_view type) -> kvsize::rope_kind {
  if (type == "yarn" || type == "deepseek_yarn") {
    return kvsize::rope_kind::yarn;
  }
  if (type == "longrope" || type == "su") {
    return kvsize::rope_kind::longrope;
  }
  return type == "llama3" ? kvsize::rope_kind::llama3 : kvsize::rope_kind::other;
}

/// One set of rope parameters at `s` (the callers pass objects only; the check guards a new caller).
[[nodiscard]] inline auto read_stated_rope(const slot& s) -> kvsize::stated_rope {
  if (!s.value->is_object()) {
    fail(config_errc::wrong_type, s.pointer(), "expected an object of rope parameters, got " + describe(*s.value));
  }
  kvsize::stated_rope r;
  slot type = lookup(*s.value, s.pointer(), "rope_type");
  if (!type.set()) {
    type = lookup(*s.value, s.pointer(), "type");
  }
  if (type.set()) {
    r.kind = rope_kind_of(read_string_ref(type));
  }
  if (const slot factor = lookup(*s.value, s.pointer(), "factor"); factor.set()) {
    r.factor = read_number_in(factor, 1024, "a positive number, the rope scaling factor");
  }
  if (const slot original = lookup(*s.value, s.pointer(), "original_max_position_embeddings"); original.set()) {
    r.original_set = true;
    r.original = read_integer(original, 1, std::uint64_t{1} << 40U);
  }
  return r;
}

/// Fills m.stated's rope terms (the keys are already read). An empty rope object counts as none: SGLang's
/// get_context_length tests its truth. A rope object that is not an object is left to the rotary reader, which
/// refuses it (one warning); read_stated_context_rope_or_warn handles the rest.
inline void read_stated_context_rope(const config_view& v, kvsize::model_spec& m) {
  kvsize::stated_context& c = m.stated;
  c.gemma3 = v.facts().model_type.find("gemma3") != std::string_view::npos;
  slot rope = v.get("rope_scaling");
  c.rope_from_scaling = rope.set();
  if (!rope.set()) {
    rope = v.get("rope_parameters");
  }
  if (rope.set()) {
    if (!rope.value->is_object()) {
      return;  // rope_read stays false
    }
    // Nested: every member an object (transformers 5's per-layer-type form); flat: scalars and lists.
    bool nested = !rope.value->empty();
    for (const auto& member : rope.value->items()) {
      nested = nested && member.value().is_object();
    }
    c.rope_nested = nested;
    if (nested) {
      for (const auto& member : rope.value->items()) {
        if (c.rope_entries == kvsize::max_rope_entries) {
          fail(config_errc::unsupported, rope.pointer(),
               "more than " + std::to_string(kvsize::max_rope_entries) + " layer types of rope parameters");
        }
        c.rope[c.rope_entries++] = read_stated_rope(lookup(*rope.value, rope.pointer(), member.key()));
      }
    } else if (!rope.value->empty()) {
      c.rope[c.rope_entries++] = read_stated_rope(rope);
    }
  }
  // vLLM uses the top-level length for a longrope or yarn model only; another model's is not read (nor refused).
  bool uses_original = false;
  for (std::uint8_t i = 0; i < c.rope_entries; ++i) {
    uses_original = uses_original || c.rope[i].kind == kvsize::rope_kind::longrope || c.rope[i].kind == kvsize::rope_kind::yarn;
  }
  if (const slot top = v.get("original_max_position_embeddings"); uses_original && top.set()) {
    c.top_original = read_integer(top, 1, std::uint64_t{1} << 40U);
  }
  c.rope_read = true;
}

/// read_stated_context_rope after the rotary table (weights_reader.hpp): a key only these terms read, when malformed,
/// leaves the engines' default context without its rope factor and is warned of, once (not where the rotary reader
/// already warned of the same key); the weights and the KV stand.
inline void read_stated_context_rope_or_warn(const config_view& v, parsed_config& out) {
  const kvsize::stated_context keys_only = out.spec.stated;
  try {
    read_stated_context_rope(v, out.spec);
  } catch (const config_error& e) {
    out.spec.stated = keys_only;
    const std::string prefix = e.pointer() + ": ";
    for (const std::string& w : out.warnings) {
      if (w.starts_with(prefix)) {
        return;
      }
    }
    out.warnings.push_back(prefix + e.message() + "; the engines' default context is taken without a rope factor");
  }
}

}  // namespace kvsize::hf::detail::weights_detail
