// SPDX-License-Identifier: MIT
// kvsize::vision_tower: the shape of a multimodal model's vision tower and projector, and its
// parameter count and bytes, exactly and in constant expressions. The config reader fills one
// from vision_config (kvsize/hf/weights_reader.hpp) and stores the count in
// model_spec::weights.vision, which for_each_weight reports as one opaque tensor (never in
// parameters().total; in with_extras and in weights_bytes). Part of <kvsize/weights.hpp>.
//
// Sources: the transformers modeling files of each tower (models/<family>/modeling_<family>.py):
// CLIPVisionTransformer and LlavaMultiModalProjector (clip, llava), SiglipVisionTransformer and
// Gemma3MultiModalProjector (siglip, gemma3), Llama4VisionModel and Llama4MultiModalProjector
// (llama4), Qwen2_5_VisionTransformerPretrainedModel and its PatchMerger (qwen2_5_vl),
// Qwen3_5VisionModel (qwen3_5: Qwen3VLVisionModel with its DeepStack mergers deleted),
// Qwen3VLVisionModel (qwen3_vl).
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint8_t, std::uint64_t

#include "bytes.hpp"
#include "detail/checked.hpp"
#include "dtype.hpp"

namespace kvsize {

/// Which vision encoder.
enum class vision_tower_kind : std::uint8_t {
  none,
  clip,        ///< CLIP ViT (LLaVA): class embedding, patch conv without bias, pre and post LayerNorm
  siglip,      ///< SigLIP ViT without its attention-pooling head (Gemma 3): patch conv with bias, post LayerNorm
  llama4,      ///< Llama 4's ViT with its pixel-shuffle MLP
  qwen2_5_vl,  ///< Qwen2.5-VL's window-attention ViT (RMSNorm, gated MLP) with its patch merger
  qwen3_5,     ///< Qwen3.5's ViT (Qwen3-VL's without DeepStack: LayerNorm, plain MLP, learned positions) and merger
  qwen3_vl,    ///< Qwen3-VL's ViT: Qwen3.5's with `deepstack` more mergers (a LayerNorm over d·merge² each)
};

/// Which projector maps the tower's output into the language model's width (text_hidden).
enum class vision_projector_kind : std::uint8_t {
  none,       ///< none, or built into the tower (Qwen2.5-VL's merger outputs output_dim)
  llava_mlp,  ///< LlavaMultiModalProjector: linear_1 (hidden → text) and linear_2 (text → text), with biases
  gemma3,     ///< Gemma3MultiModalProjector: mm_input_projection_weight (hidden × text) and mm_soft_emb_norm (hidden)
  llama4,     ///< Llama4MultiModalProjector: output_dim × text, no bias
};

/// A vision tower and its projector, in vision_config's terms. Plain data.
struct vision_tower {
  vision_tower_kind kind = vision_tower_kind::none;
  std::uint64_t hidden = 0;        ///< hidden_size: the encoder's width d
  std::uint64_t intermediate = 0;  ///< intermediate_size: the encoder MLP's width
  std::uint64_t layers = 0;        ///< num_hidden_layers (Qwen2.5-VL: depth)
  std::uint64_t patch = 0;         ///< patch_size: a patch is patch × patch pixels
  std::uint64_t image = 0;         ///< image_size: (image / patch)² position embeddings (not the Qwen towers)
  std::uint64_t positions = 0;     ///< Qwen3.5 num_position_embeddings: rows of the learned position table
  std::uint64_t deepstack = 0;     ///< Qwen3-VL: DeepStack mergers (len(deepstack_visual_indexes))
  std::uint64_t channels = 3;      ///< num_channels (Qwen2.5-VL: in_chans; Qwen3.5: in_channels)
  std::uint64_t temporal_patch = 2;     ///< Qwen temporal_patch_size: frames per 3-D patch
  std::uint64_t spatial_merge = 2;      ///< Qwen spatial_merge_size: the merger joins merge² patches
  std::uint64_t projector_input = 0;    ///< Llama 4 projector_input_dim: the pixel-shuffle MLP's fc1 width
  std::uint64_t projector_output = 0;   ///< Llama 4 projector_output_dim: its fc2 is output² (no bias)
  std::uint64_t output_dim = 0;         ///< Llama 4 vision_output_dim; Qwen out_hidden_size
  vision_projector_kind projector = vision_projector_kind::none;
  std::uint64_t text_hidden = 0;        ///< the language model's hidden_size: the projector's output width
  friend constexpr auto operator==(const vision_tower&, const vision_tower&) -> bool = default;
};

namespace detail {

/// One pre-norm ViT encoder layer of CLIP, SigLIP and Llama 4: q, k, v, o with biases
/// (4 × (d² + d)), two LayerNorms with biases (4 d), fc1 (d × inner + inner), fc2 (inner × d + d).
[[nodiscard]] constexpr auto vit_layer_parameters(std::uint64_t d, std::uint64_t inner) -> std::uint64_t {
  const std::uint64_t attention = checked_mul(4, checked_add(checked_mul(d, d), d));
  const std::uint64_t mlp = checked_add(checked_add(checked_mul(d, inner), inner), checked_add(checked_mul(inner, d), d));
  return checked_add(checked_add(attention, checked_mul(4, d)), mlp);
}

/// The patch embedding's weight: a conv of channels × patch² (× frames) inputs per output feature.
[[nodiscard]] constexpr auto patch_weight(const vision_tower& v, std::uint64_t frames) -> std::uint64_t {
  return checked_mul(checked_mul(checked_mul(v.channels, frames), checked_mul(v.patch, v.patch)), v.hidden);
}

/// Patches per image side, squared: the position embeddings of a fixed-size ViT.
[[nodiscard]] constexpr auto patches(const vision_tower& v) -> std::uint64_t {
  const std::uint64_t side = floor_div(v.image, v.patch);
  return checked_mul(side, side);
}

/// CLIPVisionTransformer: class_embedding (d), patch conv without bias, (patches + 1) positions,
/// pre_layrnorm (2 d), the layers, post_layernorm (2 d).
[[nodiscard]] constexpr auto clip_parameters(const vision_tower& v) -> std::uint64_t {
  const std::uint64_t d = v.hidden;
  std::uint64_t n = checked_add(d, patch_weight(v, 1));
  n = checked_add(n, checked_mul(checked_add(patches(v), 1), d));
  n = checked_add(n, checked_mul(2, d));
  n = checked_add(n, checked_mul(v.layers, vit_layer_parameters(d, v.intermediate)));
  return checked_add(n, checked_mul(2, d));
}

/// SiglipVisionTransformer without head: patch conv with bias, `patches` positions, the layers,
/// post_layernorm (2 d).
[[nodiscard]] constexpr auto siglip_parameters(const vision_tower& v) -> std::uint64_t {
  const std::uint64_t d = v.hidden;
  std::uint64_t n = checked_add(patch_weight(v, 1), d);
  n = checked_add(n, checked_mul(patches(v), d));
  n = checked_add(n, checked_mul(v.layers, vit_layer_parameters(d, v.intermediate)));
  return checked_add(n, checked_mul(2, d));
}

/// Llama4VisionModel: unfold-conv linear without bias, class embedding, (patches + 1) positions,
/// layernorm_pre and layernorm_post (4 d), the layers, the pixel-shuffle MLP without biases:
/// fc1 (inner × projector_input) and fc2 (projector_output²).
[[nodiscard]] constexpr auto llama4_parameters(const vision_tower& v) -> std::uint64_t {
  const std::uint64_t d = v.hidden;
  std::uint64_t n = checked_add(patch_weight(v, 1), d);
  n = checked_add(n, checked_mul(checked_add(patches(v), 1), d));
  n = checked_add(n, checked_mul(4, d));
  n = checked_add(n, checked_mul(v.layers, vit_layer_parameters(d, v.intermediate)));
  n = checked_add(n, checked_mul(v.intermediate, v.projector_input));
  return checked_add(n, checked_mul(v.projector_output, v.projector_output));
}

/// Qwen2_5_VisionTransformerPretrainedModel: a Conv3d patch embed without bias (channels ×
/// temporal_patch × patch² per feature); per block 2 RMSNorms (2 d), fused qkv and proj with
/// biases (3 d² + 3 d, d² + d), a gated MLP with biases (3 d × inner + 2 inner + d); the merger:
/// ln_q (d), then an MLP of width d·merge² with biases to output_dim.
[[nodiscard]] constexpr auto qwen2_5_vl_parameters(const vision_tower& v) -> std::uint64_t {
  const std::uint64_t d = v.hidden;
  const std::uint64_t inner = v.intermediate;
  const std::uint64_t norms = checked_mul(2, d);
  const std::uint64_t qkv = checked_add(checked_mul(3, checked_mul(d, d)), checked_mul(3, d));
  const std::uint64_t proj = checked_add(checked_mul(d, d), d);
  const std::uint64_t mlp = checked_add(checked_add(checked_mul(3, checked_mul(d, inner)), checked_mul(2, inner)), d);
  const std::uint64_t block = checked_add(checked_add(norms, qkv), checked_add(proj, mlp));
  std::uint64_t n = checked_add(patch_weight(v, v.temporal_patch), checked_mul(v.layers, block));
  const std::uint64_t merged = checked_mul(d, checked_mul(v.spatial_merge, v.spatial_merge));
  n = checked_add(n, d);                                                 // ln_q
  n = checked_add(n, checked_add(checked_mul(merged, merged), merged));  // mlp.0
  return checked_add(n, checked_add(checked_mul(merged, v.output_dim), v.output_dim));  // mlp.2
}

/// Qwen3_5VisionModel (transformers models/qwen3_5/modeling_qwen3_5.py, which derives it from
/// Qwen3VLVisionModel and deletes the DeepStack mergers): a Conv3d patch embed with bias
/// (channels × temporal_patch × patch² per feature, + d); a learned position table (positions × d);
/// per block two LayerNorms with biases (4 d), fused qkv and proj with biases (3 d² + 3 d, d² + d),
/// a plain MLP with biases (d × inner + inner, inner × d + d); the merger: a LayerNorm over d (2 d),
/// then linear_fc1 (d·merge² square, with bias) and linear_fc2 (to output_dim, with bias).
/// Qwen3.5-35B-A3B (d 1,152, inner 4,304, 27 blocks, patch 16, 2,304 positions, out 2,048): 446,571,248.
/// Qwen3-VL (qwen3_vl) adds `deepstack` mergers of 2 d·merge² + the merger's two linears each.
[[nodiscard]] constexpr auto qwen3_5_parameters(const vision_tower& v) -> std::uint64_t {
  const std::uint64_t d = v.hidden;
  const std::uint64_t inner = v.intermediate;
  const std::uint64_t norms = checked_mul(4, d);
  const std::uint64_t attention = checked_mul(4, checked_add(checked_mul(d, d), d));  // qkv + proj
  const std::uint64_t mlp = checked_add(checked_mul(2, checked_mul(d, inner)), checked_add(inner, d));
  const std::uint64_t block = checked_add(checked_add(norms, attention), mlp);
  std::uint64_t n = checked_add(patch_weight(v, v.temporal_patch), d);
  n = checked_add(n, checked_mul(v.positions, d));
  n = checked_add(n, checked_mul(v.layers, block));
  const std::uint64_t merged = checked_mul(d, checked_mul(v.spatial_merge, v.spatial_merge));
  const std::uint64_t merger_linears =  // linear_fc1 (merged square) and linear_fc2 (to output_dim), with biases
      checked_add(checked_add(checked_mul(merged, merged), merged), checked_add(checked_mul(merged, v.output_dim), v.output_dim));
  n = checked_add(n, checked_add(checked_mul(2, d), merger_linears));  // the merger: a LayerNorm over d
  // Qwen3VLVisionModel's DeepStack mergers (use_postshuffle_norm: the LayerNorm over d·merge²).
  return checked_add(n, checked_mul(v.deepstack, checked_add(checked_mul(2, merged), merger_linears)));
}

/// The projector's parameters (text_hidden = H, hidden = d).
[[nodiscard]] constexpr auto projector_parameters(const vision_tower& v) -> std::uint64_t {
  const std::uint64_t h = v.text_hidden;
  switch (v.projector) {
    case vision_projector_kind::llava_mlp:  // d × H + H, H × H + H
      return checked_add(checked_add(checked_mul(v.hidden, h), h), checked_add(checked_mul(h, h), h));
    case vision_projector_kind::gemma3: return checked_add(checked_mul(v.hidden, h), v.hidden);
    case vision_projector_kind::llama4: return checked_mul(v.output_dim, h);
    case vision_projector_kind::none: break;
  }
  return 0;
}

}  // namespace detail

/// Parameters of the vision tower and its projector; 0 for vision_tower_kind::none.
/// LLaVA-1.5-7B (CLIP ViT-L/14-336 + MLP projector): 303,507,456 + 20,979,712; Qwen2.5-VL-7B: 676,550,144;
/// Qwen3.5-27B: 460,730,096.
/// Throws kvsize::overflow_error if the count overflows 2^64, kvsize::domain_error for patch 0.
[[nodiscard]] constexpr auto vision_tower_parameters(const vision_tower& v) -> std::uint64_t {
  std::uint64_t tower = 0;
  switch (v.kind) {
    case vision_tower_kind::none: return 0;
    case vision_tower_kind::clip: tower = detail::clip_parameters(v); break;
    case vision_tower_kind::siglip: tower = detail::siglip_parameters(v); break;
    case vision_tower_kind::llama4: tower = detail::llama4_parameters(v); break;
    case vision_tower_kind::qwen2_5_vl: tower = detail::qwen2_5_vl_parameters(v); break;
    case vision_tower_kind::qwen3_5:
    case vision_tower_kind::qwen3_vl: tower = detail::qwen3_5_parameters(v); break;
  }
  return detail::checked_add(tower, detail::projector_parameters(v));
}

/// Bytes of the tower and projector stored as `t` (whole blocks): what weights_bytes counts for
/// the vision term of a checkpoint in one element type.
[[nodiscard]] constexpr auto vision_tower_bytes(const vision_tower& v, dtype t) -> bytes {
  return storage_bytes(t, vision_tower_parameters(v));
}

}  // namespace kvsize
