// SPDX-License-Identifier: MIT
// model_spec::weights from config.json, in named steps: attention and block facts
// (attention_weights.hpp), the mixture of experts (moe_weights.hpp), the per-layer blocks and
// recurrent mixers (mixer_weights.hpp), multi-token prediction, and the vision tower (here:
// read_vision). quantization_config is read by quantization_reader.hpp. Sources per family are
// the transformers modeling files (models/<family>/modeling_<family>.py) and the remote code the
// checkpoints ship; the family rows (families.hpp) and each step name their own.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>      // std::uint32_t, std::uint64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "../detail/checked.hpp"
#include "../model_spec.hpp"
#include "../weights.hpp"
#include "attention_weights.hpp"
#include "config_view.hpp"
#include "json_reader.hpp"
#include "layer_plan.hpp"
#include "mixer_weights.hpp"
#include "moe_weights.hpp"
#include "parsed_config.hpp"
#include "quantization_reader.hpp"

namespace kvsize::hf::detail {

/// Parameters of the vision tower and its projector, from vision_config (0 and a warning when
/// the tower type is not known). `text_hidden` is the language model's width.
[[nodiscard]] inline auto read_vision(const json& root, std::uint32_t text_hidden, const std::string& top_type,
                                      std::vector<std::string>& warnings) -> std::uint64_t {
  using kvsize::detail::checked_add;
  using kvsize::detail::checked_mul;
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
  const std::uint64_t H = text_hidden;
  if (type == "clip_vision_model") {
    // CLIPVisionTransformer: class_embedding, patch conv (no bias), position embedding of
    // (image/patch)^2 + 1, pre_layrnorm, layers (q/k/v/o with bias, 2 LayerNorms, fc1/fc2 with
    // bias), post_layernorm; LlavaMultiModalProjector: linear_1 (vision → text) and linear_2, with biases.
    const std::uint64_t d = u("hidden_size");
    const std::uint64_t inner = u("intermediate_size");
    const std::uint64_t layers = u("num_hidden_layers");
    const std::uint64_t p = u("patch_size");
    const std::uint64_t img = u("image_size");
    const std::uint64_t ch = u("num_channels", 3);
    const std::uint64_t pos = (img / p) * (img / p) + 1;
    std::uint64_t n = d + checked_mul(checked_mul(ch, p * p), d) + checked_mul(pos, d) + 2 * d;
    const std::uint64_t layer = 4 * (d * d + d) + 4 * d + d * inner + inner + inner * d + d;
    n = checked_add(n, checked_mul(layers, layer) + 2 * d);
    if (top_type == "llava" || top_type == "llava_next") {
      n = checked_add(n, d * H + H + H * H + H);
    }
    return n;
  }
  if (type == "siglip_vision_model") {
    // SiglipVisionTransformer without head: patch conv with bias, position embedding of
    // (image/patch)^2, layers (q/k/v/o with bias, 2 LayerNorms, fc1/fc2 with bias), post_layernorm;
    // Gemma3MultiModalProjector: mm_input_projection_weight (vision × text) and mm_soft_emb_norm.
    const std::uint64_t d = u("hidden_size");
    const std::uint64_t inner = u("intermediate_size");
    const std::uint64_t layers = u("num_hidden_layers");
    const std::uint64_t p = u("patch_size");
    const std::uint64_t img = u("image_size");
    const std::uint64_t ch = u("num_channels", 3);
    const slot head = lookup(*vc.value, vc.pointer(), "vision_use_head");
    if (read_bool_or(head, true)) {
      warnings.push_back(head.pointer() + ": a SigLIP attention-pooling head is not counted");
    }
    std::uint64_t n = checked_mul(checked_mul(ch, p * p), d) + d + checked_mul((img / p) * (img / p), d);
    const std::uint64_t layer = 4 * (d * d + d) + 4 * d + d * inner + inner + inner * d + d;
    n = checked_add(n, checked_mul(layers, layer) + 2 * d);
    if (top_type == "gemma3") {
      n = checked_add(n, d * H + d);
    }
    return n;
  }
  if (type == "llama4_vision_model") {
    // Llama4VisionModel: unfold-conv linear (no bias), class embedding, (image/patch)^2 + 1
    // positions, layernorm_pre/post (w+b), layers (biased q/k/v/o, fc1/fc2, 2 LayerNorms),
    // pixel-shuffle MLP fc1 (inner → projector_input_dim) and fc2 (projector_output_dim²), no
    // biases; Llama4MultiModalProjector: vision_output_dim × text hidden, no bias.
    const std::uint64_t d = u("hidden_size");
    const std::uint64_t inner = u("intermediate_size");
    const std::uint64_t layers = u("num_hidden_layers");
    const std::uint64_t p = u("patch_size");
    const std::uint64_t img = u("image_size");
    const std::uint64_t ch = u("num_channels", 3);
    const std::uint64_t npatch = (img / p) * (img / p);
    std::uint64_t n = checked_mul(checked_mul(ch, p * p), d) + d + checked_mul(npatch + 1, d) + 4 * d;
    n = checked_add(n, checked_mul(layers, 4 * (d * d + d) + (d * inner + inner) + (inner * d + d) + 4 * d));
    const std::uint64_t out = u("projector_output_dim");
    n = checked_add(n, checked_mul(inner, u("projector_input_dim")) + out * out);
    n = checked_add(n, checked_mul(u("vision_output_dim"), H));
    return n;
  }
  if (top_type == "qwen2_5_vl") {
    // Qwen2_5_VisionTransformer: Conv3d patch embed (no bias); blocks with 2 RMSNorms, fused qkv
    // and proj with biases, a gated MLP with biases; merger: ln_q, then (d·m²)² and d·m² → out, with biases.
    const std::uint64_t d = u("hidden_size");
    const std::uint64_t inner = u("intermediate_size");
    const std::uint64_t depth = u("depth");
    const std::uint64_t p = u("patch_size");
    const std::uint64_t tp = u("temporal_patch_size", 2);
    const std::uint64_t m = u("spatial_merge_size", 2);
    const std::uint64_t ch = u("in_chans", 3);
    const std::uint64_t out = u("out_hidden_size");
    std::uint64_t n = checked_mul(checked_mul(checked_mul(ch, tp), p * p), d);
    n = checked_add(n, checked_mul(depth, 2 * d + (3 * d * d + 3 * d) + (d * d + d) + 3 * d * inner + 2 * inner + d));
    const std::uint64_t mh = d * m * m;
    n = checked_add(n, d + (mh * mh + mh) + checked_mul(mh, out) + out);
    return n;
  }
  warnings.push_back(vc.pointer() + (type.empty() ? std::string{} : " (model_type \"" + printable(type) + "\")") +
                     ": vision tower of an unknown kind; its parameters are not counted");
  return 0;
}

namespace weights_detail {

/// Multi-token prediction: num_nextn_predict_layers, or the family's default (with a warning).
inline void read_mtp(const config_view& v, parsed_config& out) {
  auto& w = out.spec.weights;
  const family& fam = v.facts();
  const slot nextn = v.get("num_nextn_predict_layers");
  if (nextn.set()) {
    w.mtp_layers = read_u32(nextn, 0, 16);
    w.mtp_embeddings = w.mtp_layers != 0 && fam.mtp_embeddings;
  } else if (fam.mtp_default != 0) {
    w.mtp_layers = fam.mtp_default;
    out.warnings.push_back(nextn.pointer() + " is absent; took " + std::to_string(fam.mtp_default) + ": " +
                           std::string(fam.mtp_default_note));
  }
}

}  // namespace weights_detail

/// Reads model_spec::weights. Runs after the layer plan (it needs which layers are which).
/// The per-layer keys (block_configs, hybrid_override_pattern) come from `plan`, as it checked them.
inline void read_weights_shape(const json& root, const config_view& v, const std::string& mt,
                               const std::string& top_type, const layer_plan& plan, parsed_config& out) {
  using namespace weights_detail;
  auto& m = out.spec;
  auto& w = m.weights;
  read_norms_and_block(v, w);
  read_learned_positions(v, w, out.warnings);
  read_linear_biases(v, m, w);
  read_attention_extras(v, m, w);
  read_moe(v, plan, mt, out);
  read_per_layer_blocks(plan, m);
  read_recurrent_mixers(v, out);
  read_mtp(v, out);

  w.vision = read_vision(root, m.hidden_size, top_type, out.warnings);
}

}  // namespace kvsize::hf::detail
