// SPDX-License-Identifier: MIT
// Composite (multimodal) model_types: where the language model of a checkpoint whose config nests
// it (text_config) is read from, and which family row reads it when the sub-config names none.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <string_view>  // std::string_view

namespace kvsize::hf::detail {

/// Composite (multimodal) model_types whose language model is a nested sub-config, with the
/// model_type the sub-config has when it omits its own (LlavaConfig: text_config defaults to
/// LlamaConfig; Gemma3Config: Gemma3TextConfig; Llama4Config: Llama4TextConfig; PaliGemmaConfig:
/// "gemma" (not "gemma2"); transformers
/// models/paligemma/configuration_paligemma.py @04d596e6).
struct composite {
  std::string_view model_type = {};
  std::string_view text_model_type;
};
inline constexpr composite composites[] = {
    {"llava", "llama"},
    {"llava_next", "llama"},
    {"gemma3", "gemma3_text"},
    {"gemma3n", "gemma3n_text"},
    {"gemma4", "gemma4_text"},
    {"paligemma", "gemma"},
    {"llama4", "llama4_text"},
    {"mistral3", "mistral"},
    {"qwen2_5_vl", "qwen2_5_vl_text"},
    {"qwen3_vl", "qwen3_vl_text"},
    {"qwen3_vl_moe", "qwen3_vl_moe_text"},
    {"qwen3_5", "qwen3_5_text"},
    {"qwen3_5_moe", "qwen3_5_moe_text"},
    // MiniMax-M3's vision-language checkpoints: a text_config with no model_type, spelled as minimax_m3's own config
    // (sparse_attention_config, moe_layer_freq; checked on nvidia/MiniMax-M3-NVFP4's config.json, ai-dynamo/
    // aiconfigurator @095f58a51 model_configs/nvidia--MiniMax-M3-NVFP4_config.json, blob 19e336f6).
    {"minimax_m3_vl", "minimax_m3"},
};

/// The text model_type of composite `model_type`; empty when it is not a composite kvsize knows.
[[nodiscard]] constexpr auto default_text_model_type(std::string_view model_type) -> std::string_view {
  for (const auto& c : composites) {
    if (c.model_type == model_type) {
      return c.text_model_type;
    }
  }
  return {};
}

}  // namespace kvsize::hf::detail
