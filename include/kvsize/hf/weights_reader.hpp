// SPDX-License-Identifier: MIT
// model_spec::weights from config.json, in named steps: attention and block facts
// (attention_weights.hpp), the mixture of experts (moe_weights.hpp), the per-layer blocks and
// recurrent mixers (mixer_weights.hpp), multi-token prediction, and the vision tower (here:
// read_vision_tower). quantization_config is read by quantization_reader.hpp. Sources per family are
// the transformers modeling files (models/<family>/modeling_<family>.py) and the remote code the
// checkpoints ship; the family rows (families.hpp) and each step name their own.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>    // std::ranges::none_of
#include <cstdint>      // std::uint32_t, std::uint64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::forward, std::move
#include <vector>       // std::vector

#include "../detail/checked.hpp"
#include "../layer_widths.hpp"  // ffn_of_layer, first_layer_without_mlp_width
#include "../model_spec.hpp"
#include "../vision_tower.hpp"
#include "../weights.hpp"
#include "aliases.hpp"
#include "attention_weights.hpp"
#include "config_view.hpp"
#include "context_reader.hpp"  // the engines' rope terms of the context
#include "json_reader.hpp"
#include "layer_plan.hpp"
#include "mixer_weights.hpp"
#include "moe_weights.hpp"
#include "parsed_config.hpp"
#include "quantization_reader.hpp"
#include "rotary_reader.hpp"
#include "weights_only.hpp"

namespace kvsize::hf::detail {

/// Qwen3_5VisionConfig (transformers models/qwen3_5/configuration_qwen3_5.py) and Qwen3VLVisionConfig,
/// which share these keys and defaults: an absent key takes the class default, as transformers reads
/// it. `kind` says which tower: Qwen3.5's builds nothing from deepstack_visual_indexes
/// (Qwen3_5VisionModel deletes Qwen3-VL's DeepStack mergers); the caller reads it for Qwen3-VL.
inline void read_qwen3_5_tower(const slot& vc, kvsize::vision_tower_kind kind, kvsize::vision_tower& v) {
  const auto u = [&](std::string_view key, std::uint64_t class_default) -> std::uint64_t {
    const slot s = lookup(*vc.value, vc.pointer(), key);
    return s.set() ? read_integer(s, 1, 1U << 24U) : class_default;
  };
  v.kind = kind;
  v.hidden = u("hidden_size", 1'152);
  v.intermediate = u("intermediate_size", 4'304);
  v.layers = u("depth", 27);
  v.patch = u("patch_size", 16);
  v.temporal_patch = u("temporal_patch_size", 2);
  v.spatial_merge = u("spatial_merge_size", 2);
  v.channels = u("in_channels", 3);
  v.positions = u("num_position_embeddings", 2'304);
  v.output_dim = u("out_hidden_size", 3'584);
}

/// vision_config's num_hidden_layers and hidden_size by those names, which SGLang's default fraction reads for a
/// vision model (engines/sglang_vlm.hpp). Keys of the budget only: a malformed one counts as absent, with a warning
/// unless the weights reader (read_vision_tower, run first) already warned of the same key (the weights are then
/// unknown, and with them any device budget the factor would scale).
inline void read_vision_size(const json& root, parsed_config& out) {
  const slot vc = lookup(root, "", "vision_config");
  if (!vc.set() || !vc.value->is_object()) {
    return;
  }
  out.vision_config_given = true;
  const auto take = [&](std::string_view key) -> vision_size_key {
    const slot s = lookup(*vc.value, vc.pointer(), key);
    if (!s.set()) {
      return {};
    }
    const std::uint64_t n = s.value->is_number_unsigned() ? s.value->get<std::uint64_t>() : 0;
    if (n >= 1 && n <= 1U << 24U) {
      return {.value = static_cast<std::uint32_t>(n), .malformed = false};
    }
    const std::string named = s.pointer() + ": ";
    if (std::ranges::none_of(out.warnings, [&](const std::string& w) { return w.starts_with(named); })) {
      out.warnings.push_back(s.pointer() + ": expected an integer from 1 to 16,777,216, got " + describe(*s.value) +
                             "; SGLang's vision-model factor takes its default instead");
    }
    return {.value = std::nullopt, .malformed = true};
  };
  out.vision_num_hidden_layers = take("num_hidden_layers");
  out.vision_hidden_size = take("hidden_size");
}

/// Parameters of the vision tower and its projector, from vision_config (0 and a warning when
/// the tower type is not known). `text_hidden` is the language model's width. The formulas are
/// the core's (kvsize/vision_tower.hpp); this reads the keys, in the order they are checked, and
/// throws config_error for a value it cannot take.
[[nodiscard]] inline auto read_vision_tower(const json& root, std::uint32_t text_hidden, const std::string& top_type,
                                            std::vector<std::string>& warnings) -> std::uint64_t {
  const slot vc = lookup(root, "", "vision_config");
  if (!vc.present()) {
    return 0;
  }
  require_object(vc);
  const auto u = [&](std::string_view key, std::optional<std::uint64_t> fallback = std::nullopt) -> std::uint64_t {
    const slot s = lookup(*vc.value, vc.pointer(), key);
    if (!s.set() && fallback) {
      return *fallback;
    }
    return read_integer(s, 1, 1U << 24U);
  };
  const slot vt = lookup(*vc.value, vc.pointer(), "model_type");
  const std::string type = vt.set() ? read_string(vt) : std::string{};
  kvsize::vision_tower v;
  v.text_hidden = text_hidden;
  const auto read_vit = [&](kvsize::vision_tower_kind kind) {
    v.kind = kind;
    v.hidden = u("hidden_size");
    v.intermediate = u("intermediate_size");
    v.layers = u("num_hidden_layers");
    v.patch = u("patch_size");
    v.image = u("image_size");
    v.channels = u("num_channels", 3);
  };
  if (type == "clip_vision_model") {
    read_vit(kvsize::vision_tower_kind::clip);
    if (top_type == "llava" || top_type == "llava_next") {
      v.projector = kvsize::vision_projector_kind::llava_mlp;
    }
  } else if (type == "siglip_vision_model") {
    read_vit(kvsize::vision_tower_kind::siglip);
    const slot head = lookup(*vc.value, vc.pointer(), "vision_use_head");
    if (read_bool_or(head, true)) {
      warnings.push_back(head.pointer() + ": a SigLIP attention-pooling head is not counted");
    }
    if (top_type == "gemma3") {
      v.projector = kvsize::vision_projector_kind::gemma3;
    }
  } else if (type == "llama4_vision_model") {
    read_vit(kvsize::vision_tower_kind::llama4);
    v.projector_output = u("projector_output_dim");
    v.projector_input = u("projector_input_dim");
    v.output_dim = u("vision_output_dim");
    v.projector = kvsize::vision_projector_kind::llama4;
  } else if (top_type == "qwen2_5_vl") {
    v.kind = kvsize::vision_tower_kind::qwen2_5_vl;
    v.hidden = u("hidden_size");
    v.intermediate = u("intermediate_size");
    v.layers = u("depth");
    v.patch = u("patch_size");
    v.temporal_patch = u("temporal_patch_size", 2);
    v.spatial_merge = u("spatial_merge_size", 2);
    v.channels = u("in_chans", 3);
    v.output_dim = u("out_hidden_size");
  } else if (top_type == "qwen3_5" || top_type == "qwen3_5_moe") {
    read_qwen3_5_tower(vc, kvsize::vision_tower_kind::qwen3_5, v);
  } else if (top_type == "qwen3_vl" || top_type == "qwen3_vl_moe") {
    read_qwen3_5_tower(vc, kvsize::vision_tower_kind::qwen3_vl, v);  // and the DeepStack layers:
    const slot deepstack = lookup(*vc.value, vc.pointer(), "deepstack_visual_indexes");
    if (deepstack.present() && !deepstack.value->is_array()) {  // null too: transformers takes its len()
      fail(config_errc::wrong_type, deepstack.pointer(), "expected an array of layer indexes, got " + describe(*deepstack.value));
    }
    v.deepstack = deepstack.set() ? deepstack.value->size() : 3;  // the class default [8, 16, 24]
  } else {
    warnings.push_back(vc.pointer() + (type.empty() ? std::string{} : " (model_type \"" + printable(type) + "\")") +
                       ": vision tower of an unknown kind; its parameters are not counted");
    return 0;
  }
  try {
    return kvsize::vision_tower_parameters(v);
  } catch (const kvsize::overflow_error&) {
    fail(config_errc::out_of_range, vc.pointer(), "the vision tower's parameter count overflows 2^64");
  } catch (const kvsize::error& e) {
    fail(config_errc::out_of_range, vc.pointer(), e.what());
  }
}

namespace weights_detail {

/// Multi-token prediction: num_nextn_predict_layers (Qwen3.5: mtp_num_hidden_layers), or the
/// family's default (with a warning).
inline void read_mtp(const config_view& v, parsed_config& out) {
  auto& w = out.spec.weights;
  const family& fam = v.facts();
  slot nextn = v.get("num_nextn_predict_layers");
  if (!nextn.set()) {
    if (slot qwen = v.get("mtp_num_hidden_layers"); qwen.set()) {
      nextn = qwen;
    }
  }
  if (nextn.set() && !fam.mtp_uncounted.empty()) {
    if (read_u32(nextn, 0, 16) != 0) {
      out.warnings.push_back(nextn.pointer() + ": the MTP layers' weights are not counted (" + std::string(fam.mtp_uncounted) +
                             "); they are not in the parameter count or the weight bytes (the KV cache is not affected)");
    }
  } else if (nextn.set()) {
    w.mtp_layers = read_u32(nextn, 0, 16);
    w.mtp_embeddings = w.mtp_layers != 0 && fam.mtp_embeddings;
  } else if (fam.mtp_default != 0) {
    w.mtp_layers = fam.mtp_default;
    out.warnings.push_back(nextn.pointer() + " is absent; took " + std::to_string(fam.mtp_default) + ": " +
                           std::string(fam.mtp_default_note));
  }
}

}  // namespace weights_detail

/// Gemma 3n / Gemma 4 per-layer inputs (weights_shape::per_layer_input_width, per_layer_input_vocab):
/// hidden_size_per_layer_input (0: none, as Gemma 4's dense and MoE models write it) and vocab_size_per_layer_input,
/// each the family's default where absent.
inline void read_per_layer_inputs(const config_view& v, kvsize::weights_shape& w) {
  const family& fam = v.facts();
  if (!fam.per_layer_inputs) {
    return;
  }
  const slot width = v.get("hidden_size_per_layer_input");
  w.per_layer_input_width = width.set() ? read_u32(width, 0, 1U << 20U) : fam.per_layer_input_default;
  if (w.per_layer_input_width != 0) {
    const slot vocab = v.get("vocab_size_per_layer_input");
    w.per_layer_input_vocab = vocab.set() ? read_u32(vocab, 1, 1U << 24U) : 262'144U;  // both config classes' default
  }
}

/// Gemma 4's use_double_wide_mlp: the KV-shared layers' MLP is 2 × intermediate_size wide (Gemma4TextMLP, and vLLM's
/// gemma4.py, for layer_idx >= num_hidden_layers − num_kv_shared_layers > 0). Weights only.
inline void read_double_wide_mlp(const config_view& v, kvsize::model_spec& m) {
  if (!v.facts().double_wide_mlp_key || !read_bool_or(v.get("use_double_wide_mlp"), false) || m.intermediate_size == 0) {
    return;
  }
  if (m.intermediate_size > 0x7FFF'FFFFU) {  // the doubled width must fit the 32-bit layer width
    fail(config_errc::out_of_range, v.get_first(keys::intermediate).pointer(),
         "expected a width whose double (use_double_wide_mlp) fits 32 bits, got " + std::to_string(m.intermediate_size));
  }
  const std::uint32_t layers = m.layers < kvsize::max_layers ? m.layers : kvsize::max_layers;
  for (std::uint32_t il = 0; il < layers; ++il) {
    if (kind_of_layer(m, il) == layer_kind::shared && ffn_of_layer(m, il) != ffn_kind::moe) {
      m.weights.layer[il].ffn_width = 2 * m.intermediate_size;
    }
  }
}

/// Reads model_spec::weights. Runs after the layer plan (it needs which layers are which).
/// The per-layer keys (block_configs, hybrid_override_pattern) come from `plan`, as it checked them.
/// Keys that add weights kvsize does not count yet (Kimi-K3, per SGLang models/kimi_k3.py): one warning
/// naming them, so that a parameter count that leaves them out says so. The KV cache is not affected.
inline void warn_uncounted_weights(const config_view& v, std::vector<std::string>& warnings) {
  std::string list;
  const auto add = [&](const slot& s, const char* what) {
    if (s.set() && !(s.value->is_boolean() && !s.value->get<bool>())) {
      list += (list.empty() ? "" : "; ") + s.pointer() + " (" + what + ")";
    }
  };
  add(v.get("latent_moe_use_norm"), "routed_expert_norm, routed_expert_hidden_size elements per MoE layer");
  add(v.get("mla_use_output_gate"), "g_proj, heads × v_head_dim × hidden_size per MLA layer");
  add(v.get("attn_res_block_size"), "attention-residual norms and projections, 4 × hidden_size per layer");
  if (v.facts().model_type.starts_with("ernie4_5")) {  // transformers Ernie4_5Attention / Ernie4_5MLP / _MoeMLP
    add(v.get("use_bias"), "q/k/v/o, MLP, shared and routed expert biases (bias=config.use_bias), and ERNIE MoE's "
                           "LM head bias");
  }
  if (v.facts().sparse_attention_keys) {  // MiniMax-M3: false in every published config; its shape is not read
    add(v.get("attention_output_gate"), "an attention output gate's projection on every layer");
  }
  if (const slot lac = v.get("linear_attn_config"); lac.set() && lac.value->is_object()) {
    add(lookup(*lac.value, lac.pointer(), "use_full_rank_gate"),
        "a full-rank g_proj, heads × head_dim × hidden_size per KDA layer, where g_a_proj / g_b_proj are counted");
  }
  if (v.facts().model_type.starts_with("gemma3n")) {  // transformers Gemma3nTextModel / Gemma3nTextDecoderLayer
    list += std::string(list.empty() ? "" : "; ") + v.base() +
            " (Gemma 3n's AltUp: altup_num_inputs − 1 pairs of hidden × hidden projections and a router and "
            "coefficients a layer; its Laurel blocks of laurel_rank)";
  }
  if (!list.empty()) {
    warnings.push_back("weights not counted yet: " + list +
                       "; the parameter count and the weight bytes are off by these (the KV cache is not affected)");
  }
}

/// A dense layer whose MLP takes intermediate_size while the config gives none (and kvsize knows no
/// class default, read_mlp_width): its width, the weights and the MLP term of the activation and
/// compute-buffer estimates are unknown; the KV cache does not read it.
inline void check_dense_widths(const config_view& v, parsed_config& out) {
  const auto& m = out.spec;
  if (m.intermediate_size != 0 || !out.mlp_width_unknown_because.empty()) {
    return;
  }
  const std::uint32_t il = first_layer_without_mlp_width(m);
  if (il >= m.layers) {
    return;
  }
  if (!out.weights_unknown_because.empty()) {  // a reader failed first (an expert width, a layer rule),
    out.mlp_width_unknown_because = out.weights_unknown_because;  // leaving widths unset: name its key
    return;
  }
  const slot inter = v.get_first(keys::intermediate);
  const std::string why = "expected the MLP width (layer " + std::to_string(il) +
                          (ffn_of_layer(m, il) == ffn_kind::moe ? "'s experts take it" : " has a dense MLP") +
                          "), got " + (inter.present() ? "null" : "nothing") + ", and kvsize knows no default for " +
                          std::string(v.facts().source);
  out.mlp_width_unknown_because = inter.pointer() + ": " + why;
  out.warnings.push_back(out.mlp_width_unknown_because +
                         "; the weights are not counted, nor the MLP term of the activation and llama.cpp "
                         "compute-buffer estimates; the KV cache and the recurrent state do not read it");
  if (out.weights_unknown_because.empty()) {
    out.weights_unknown_because = out.mlp_width_unknown_because;
  }
}

inline void read_weights_shape(const json& root, const config_view& v, const std::string& mt,
                               const std::string& top_type, const layer_plan& plan, parsed_config& out) {
  using namespace weights_detail;
  auto& m = out.spec;
  auto& w = m.weights;
  read_weights_only(out, [&] {
    read_norms_and_block(v, w);
    read_learned_positions(v, w, out.warnings);
    read_linear_biases(v, m, w);
    read_attention_extras(v, m, w);
    read_per_layer_inputs(v, w);
  });
  read_weights_only(out, [&] { read_rotary_cache(v, m); });
  read_stated_context_rope_or_warn(v, out);  // after the rotary table: one warning for a key both read
  read_weights_only(out, [&] { read_moe(v, plan, mt, out); });
  read_weights_only(out, [&] {  // FFN kinds and widths (block_configs' ffn): the MLP width too
    try {
      read_per_layer_blocks(plan, m);
    } catch (const config_error& e) {
      out.mlp_width_unknown_because = e.pointer() + ": " + e.message();
      throw;
    }
  });
  check_dense_widths(v, out);
  read_weights_only(out, [&] { read_double_wide_mlp(v, m); });
  read_weights_only(out, [&] { read_recurrent_mixers(v, out); });
  read_weights_only(out, [&] { read_mtp(v, out); });
  read_weights_only(out, [&] { warn_uncounted_weights(v, out.warnings); });

  // A vision_config kvsize cannot read leaves the weights unknown, as any weights-only key does (a tower
  // of a kind it does not know is a warning, and not counted: vision_tower.hpp lists the kinds).
  read_weights_only(out, [&] { w.vision = read_vision_tower(root, m.hidden_size, top_type, out.warnings); });
  // An audio tower (Gemma 3n, Gemma 4 E models: audio_config) is not counted; say so rather than leave it out unsaid.
  if (const slot audio = lookup(root, "", "audio_config"); audio.set() && audio.value->is_object() && !audio.value->empty()) {
    out.warnings.push_back(audio.pointer() + ": an audio tower, which kvsize does not count: it is in neither the "
                                             "parameter count nor the weight bytes");
  }
}

}  // namespace kvsize::hf::detail
