// SPDX-License-Identifier: MIT
// model_spec::weights.rotary: the shape of the rotary cos/sin table vLLM builds for the full-attention layers, from
// the config's rope keys (rope_scaling, or transformers v5's rope_parameters; partial_rotary_factor, rotary_pct,
// rotary_emb_fraction, rotary_dim; position_embedding_type) and the family's row. vLLM patches the legacy keys into
// rope_parameters (transformers_utils/config.py patch_rope_parameters) and get_rope reads them there
// (layers/rotary_embedding/__init__.py; sources at the tags v0.10.0 – v0.24.0). A device buffer, not a weight:
// read among the weights-only keys (weights_only.hpp), so a malformed one leaves the weights unknown, never the KV.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>      // std::uint32_t, std::uint64_t
#include <string>       // std::string
#include <string_view>  // std::string_view

#include "../model_spec.hpp"
#include "config_view.hpp"
#include "families.hpp"
#include "json_reader.hpp"

namespace kvsize::hf::detail::weights_detail {

/// The full-attention layers' rope parameters: rope_scaling, else rope_parameters, whose per-layer-type form
/// ({"full_attention": {...}, "sliding_attention": {...}}: Gemma 3 / 4 under transformers v5) gives its
/// full_attention entry. Absent or null: an unset slot. Anything but an object is refused.
[[nodiscard]] inline auto full_layers_rope(const config_view& v) -> slot {
  slot rope = v.get("rope_scaling");
  if (!rope.set()) {
    rope = v.get("rope_parameters");
  }
  if (!rope.set()) {
    return rope;
  }
  if (!rope.value->is_object()) {
    fail(config_errc::wrong_type, rope.pointer(),
         "expected an object of rope parameters, got " + describe(*rope.value));
  }
  if (slot full = lookup(*rope.value, rope.pointer(), "full_attention"); full.set()) {
    if (!full.value->is_object()) {
      fail(config_errc::wrong_type, full.pointer(),
           "expected an object of rope parameters, got " + describe(*full.value));
    }
    return full;
  }
  return rope;
}

/// A rope scaling factor: a finite number in (0, 1024] (Gemma 3: 8, DeepSeek-V3: 40).
[[nodiscard]] inline auto read_rope_factor(const slot& s) -> double {
  return read_number_in(s, 1024, "a positive number, the rope scaling factor");
}

/// A fraction of the head dim that rotates (partial_rotary_factor, rotary_pct, rotary_emb_fraction): (0, 1].
[[nodiscard]] inline auto read_rotary_fraction(const slot& s) -> double {
  return read_number_in(s, 1, "a number in (0, 1]");
}

/// torch.arange(n × factor)'s length, ⌈n × factor⌉, with n × factor evaluated in double as Python does; n < 2^41
/// and factor ≤ 1024 keep it below 2^51, where double is exact on integers.
[[nodiscard]] inline auto scaled_positions(std::uint64_t n, double factor) -> std::uint64_t {
  const double end = static_cast<double>(n) * factor;
  auto rows = static_cast<std::uint64_t>(end);
  if (static_cast<double>(rows) < end) {
    ++rows;
  }
  return rows;
}

/// Rows of the full layers' table by the scaling class get_rope picks for rope_type (or the legacy `type`).
inline void read_rotary_positions(const config_view& v, const slot& rope, const std::string& type,
                                  const kvsize::model_spec& m, kvsize::rotary_cache_shape& r) {
  const std::uint64_t max = m.max_context;
  const auto key = [&](std::string_view k) { return lookup(*rope.value, rope.pointer(), k); };
  const auto original = [&] {  // vLLM copies a top-level key in (patch_rope_parameters); absent: max
    slot o = key("original_max_position_embeddings");
    if (!o.set()) {
      o = v.get("original_max_position_embeddings");
    }
    return o.set() ? read_integer(o, 1, std::uint64_t{1} << 40U) : max;
  };
  if (type == "linear") {
    r.positions = scaled_positions(max, read_rope_factor(key("factor")));
  } else if (type == "dynamic" && !key("alpha").present()) {  // DynamicNTKAlphaRotaryEmbedding keeps max rows
    r.positions = scaled_positions(max, read_rope_factor(key("factor")));
    r.positions_dynamic = true;
  } else if (type == "yarn" || type == "deepseek_yarn") {
    r.positions = scaled_positions(original(), read_rope_factor(key("factor")));
  } else if (type == "longrope" || type == "su") {
    r.positions = original() + max;
  }
}

/// The rotated dims a head: rotary_dim (MiniMax), else the first rotary fraction present, at the top level or in
/// the rope parameters, as int(head_dim × fraction) (get_rope); 0 where the whole head rotates.
[[nodiscard]] inline auto read_rotary_dim(const config_view& v, const slot& rope, std::uint32_t head_dim)
    -> std::uint32_t {
  if (const slot dim = v.get("rotary_dim"); dim.set()) {
    const std::uint32_t d = read_u32(dim, 1, head_dim);
    return d == head_dim ? 0 : d;
  }
  // A top-level key wins: vLLM's patch_rope_parameters copies it over the rope parameters' own.
  slot fraction;
  for (const std::string_view k : {"partial_rotary_factor", "rotary_pct", "rotary_emb_fraction"}) {
    if (!fraction.set()) {
      fraction = v.get(k);
    }
  }
  if (!fraction.set() && rope.set()) {
    fraction = lookup(*rope.value, rope.pointer(), "partial_rotary_factor");
  }
  if (!fraction.set()) {
    return 0;
  }
  const auto d = static_cast<std::uint32_t>(static_cast<double>(head_dim) * read_rotary_fraction(fraction));
  return d == head_dim ? 0 : d;
}

/// Step-3.5's partial_rotary_factors, one fraction a layer (models/step3p5.py Step3p5Attention passes each layer's
/// to get_rope): the full layers' width (the first full layer's fraction) in rotary_dim, the sliding layers' in
/// sliding_rotary_dim. False where the key is absent, and for every other family: vLLM's other model classes do not
/// read it (family::step_attention_keys).
inline auto read_layer_rotary_fractions(const config_view& v, const kvsize::model_spec& m, kvsize::rotary_cache_shape& r)
    -> bool {
  if (!v.facts().step_attention_keys) {
    return false;
  }
  const slot fractions = v.get("partial_rotary_factors");
  if (!fractions.set()) {
    return false;
  }
  // One a layer, MTP layers' after the model's (Step-3.5-Flash: 48 over 45 layers): every model layer needs one.
  if (m.layers != 0) {
    static_cast<void>(element(fractions, m.layers - 1));  // refuses a non-array or a shorter one, naming the key
  }
  const auto width = [&](std::uint32_t il) {
    const std::uint32_t head_dim = kvsize::head_dim_of_layer(m, il);
    return static_cast<std::uint32_t>(static_cast<double>(head_dim) *
                                      read_rotary_fraction(element(fractions, il)));
  };
  bool full_seen = false;
  bool sliding_seen = false;
  for (std::uint32_t il = 0; il < m.layers && !(full_seen && sliding_seen); ++il) {
    const bool sliding = kvsize::kind_of_layer(m, il) == kvsize::layer_kind::sliding;
    if (sliding && !sliding_seen) {
      r.sliding_rotary_dim = width(il);
      sliding_seen = true;
    } else if (!sliding && !full_seen) {
      const std::uint32_t d = width(il);
      r.rotary_dim = d == kvsize::head_dim_of_layer(m, il) ? 0 : d;
      full_seen = true;
    }
  }
  return true;
}

/// model_spec::weights.rotary from the config (m's attention shape and max_context already read).
inline void read_rotary_cache(const config_view& v, kvsize::model_spec& m) {
  const family& fam = v.facts();
  kvsize::rotary_cache_shape& r = m.weights.rotary;
  r.float32 = fam.rotary_float32;
  r.rows_max_model_len = fam.rotary_rows_max_model_len;
  const slot position_type = v.get("position_embedding_type");  // GraniteMoeHybrid: "rope" or "nope"
  // Falcon rotates unless ALiBi (FalconConfig.rotary and RWConfig.rotary: not alibi; falcon.py use_rotary).
  const bool alibi = fam.block == block_rule::falcon && read_bool_or(v.get("alibi"), false);
  r.none = fam.rotary_none || alibi ||
           (position_type.set() && position_type.value->is_string() && read_string(position_type) == "nope");
  // DeepSeek sparse attention's indexer table (deepseek_v2.py: is_neox_style = not indexer_rope_interleave).
  r.indexer_table = m.latent.index_head_dim != 0 && !read_bool_or(v.get("indexer_rope_interleave"), false);
  const slot rope = full_layers_rope(v);
  std::string type;
  if (rope.set()) {
    slot t = lookup(*rope.value, rope.pointer(), "rope_type");
    if (!t.set()) {
      t = lookup(*rope.value, rope.pointer(), "type");
    }
    if (t.set()) {
      type = read_string(t);
    }
    read_rotary_positions(v, rope, type, m, r);
    // deepseek_v2.py renames its MLA's yarn deepseek_yarn: DeepseekScalingRotaryEmbedding.
    r.deepseek_scaling = m.latent.kv_lora_rank != 0 && (type == "yarn" || type == "deepseek_yarn");
    // get_rope builds MRotaryEmbedding for the default and yarn types only (legacy "mrope" is default).
    const bool mrope_class = type.empty() || type == "default" || type == "mrope" || type == "yarn";
    r.multimodal = mrope_class && (type == "mrope" || lookup(*rope.value, rope.pointer(), "mrope_section").set());
  }
  // Gemma4RotaryEmbedding ("proportional") rotates a zero-padded whole head (rotary_embedding/gemma4_rope.py); a
  // latent model's table is qk_rope_head_dim wide whatever the fraction.
  if (r.positions == 0 && fam.rotary_default_positions != 0 && !v.get("max_position_embeddings").set()) {
    r.positions = fam.rotary_default_positions;
  }
  if (type == "proportional" || m.latent.kv_lora_rank != 0 || kvsize::effective_head_dim(m) == 0 ||
      read_layer_rotary_fractions(v, m, r)) {
    return;
  }
  r.rotary_dim = fam.rotary_half ? kvsize::effective_head_dim(m) / 2 : read_rotary_dim(v, rope, kvsize::effective_head_dim(m));
}

}  // namespace kvsize::hf::detail::weights_detail
