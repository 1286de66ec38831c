// SPDX-License-Identifier: MIT
// Each layer's MLP kind and width (ffn_of_layer, ffn_width_of_layer, first_layer_without_mlp_width) and
// the widest layer of a model_spec (widest_query_heads, widest_mlp_width), whose activations set the
// peak of a forward pass (workspace.hpp) and of llama.cpp's compute buffer (engines/llama_cpp_compute.hpp).
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>    // std::uint32_t

#include "model_spec.hpp"

namespace kvsize {

/// The most query heads any layer has: its own (layer_weights::query_heads: Step-3.5's sliding layers have 96,
/// its full layers the model's 64) or the model's. The activation peak is that layer's.
[[nodiscard]] constexpr auto widest_query_heads(const model_spec& m) -> std::uint32_t {
  std::uint32_t most = m.attention_heads;
  for (std::uint32_t il = 0; il < m.layers && il < max_layers; ++il) {
    const std::uint32_t own = m.weights.layer[il].query_heads;
    most = own > most ? own : most;
  }
  return most;
}

/// The widest MLP any layer runs: intermediate_size, or a layer's own dense width where wider
/// (layer_weights::ffn_width: Nemotron-NAS block_configs, whose intermediate_size is null; Llama 4's
/// intermediate_size_mlp; MiniMax-M3's dense_intermediate_size), or the experts' width where wider
/// (a MoE config with no dense width: Qwen3.5-MoE). The activation peak's MLP phase is that layer's.
[[nodiscard]] constexpr auto widest_mlp_width(const model_spec& m) -> std::uint32_t {
  std::uint32_t most = m.intermediate_size;
  for (std::uint32_t il = 0; il < m.layers && il < max_layers; ++il) {
    const std::uint32_t own = m.weights.layer[il].ffn_width;
    most = own > most ? own : most;
  }
  const std::uint32_t experts = m.weights.moe.experts != 0 ? m.weights.moe.expert_width : 0U;
  return experts > most ? experts : most;
}

/// The feed-forward kind of layer `il`, with `inherit` resolved.
[[nodiscard]] constexpr auto ffn_of_layer(const model_spec& m, std::uint32_t il) -> ffn_kind {
  const ffn_kind k = il < max_layers ? m.weights.layer[il].ffn : ffn_kind::inherit;
  if (k != ffn_kind::inherit) {
    return k;
  }
  return (m.weights.moe.experts != 0 && il >= m.weights.moe.first_dense_layers) ? ffn_kind::moe : ffn_kind::dense;
}

/// Width of layer `il`'s dense MLP.
[[nodiscard]] constexpr auto ffn_width_of_layer(const model_spec& m, std::uint32_t il) -> std::uint32_t {
  const std::uint32_t own = il < max_layers ? m.weights.layer[il].ffn_width : 0U;
  return own != 0 ? own : m.intermediate_size;
}

/// The first layer whose MLP width the spec does not hold: a dense MLP with neither its own width nor
/// intermediate_size, or experts with neither expert_width nor intermediate_size (an expert_width of 0
/// means intermediate_size, as in Mixtral); `m.layers` when every layer's is known. A config
/// reader leaves a width 0 where the config gives none and no class default applies
/// (hf::parsed_config::mlp_width_unknown_because names the key); what reads the width (the weights,
/// llama.cpp's compute buffer) is then unknown, while the KV cache, which never reads it, is not.
[[nodiscard]] constexpr auto first_layer_without_mlp_width(const model_spec& m) -> std::uint32_t {
  for (std::uint32_t il = 0; il < m.layers && il < max_layers; ++il) {
    const ffn_kind k = ffn_of_layer(m, il);
    if ((k == ffn_kind::dense && ffn_width_of_layer(m, il) == 0) ||
        (k == ffn_kind::moe && m.weights.moe.expert_width == 0 && m.intermediate_size == 0)) {
      return il;
    }
  }
  return m.layers;
}

}  // namespace kvsize
