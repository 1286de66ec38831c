// SPDX-License-Identifier: MIT
// kvsize::widest_query_heads, kvsize::widest_mlp_width: the widest layer of a model_spec, whose
// activations set the peak of a forward pass (workspace.hpp) and of llama.cpp's compute buffer
// (engines/llama_cpp_compute.hpp).
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>  // std::max
#include <cstdint>    // std::uint32_t

#include "model_spec.hpp"

namespace kvsize {

/// The most query heads any layer has: its own (layer_weights::query_heads: Step-3.5's sliding layers have 96,
/// its full layers the model's 64) or the model's. The activation peak is that layer's.
[[nodiscard]] constexpr auto widest_query_heads(const model_spec& m) -> std::uint32_t {
  std::uint32_t most = m.attention_heads;
  for (std::uint32_t il = 0; il < m.layers && il < max_layers; ++il) {
    most = std::max(most, m.weights.layer[il].query_heads);
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
    most = std::max(most, m.weights.layer[il].ffn_width);
  }
  return m.weights.moe.experts != 0 ? std::max(most, m.weights.moe.expert_width) : most;
}

}  // namespace kvsize
