// SPDX-License-Identifier: MIT
// How SGLang's prefill CUDA graphs (0.5.10+) treat a model class: the architecture lists of
// python/sglang/srt/configs/model_config.py that turn them off or keep them, which the default mem_fraction_static's
// reserve follows (sglang_fraction.hpp prefill_graphs_for_model). Part of the SGLang engine
// (engines/sglang.hpp). Standard library only, constexpr.
//
// Sources (sgl-project/sglang at the tags v0.5.10 – v0.5.18; docs/research/sglang-fraction-history.md):
// - ModelConfig.is_multimodal: enable_multimodal and (is_multimodal_model(architectures), the
//   multimodal_model_archs list, or a config whose text model sits apart, `hf_config is not hf_text_config`);
//   enable_multimodal defaults to False for Gemma3ForConditionalGeneration, Llama4ForConditionalGeneration,
//   Step3VLForConditionalGeneration (and InklingForConditionalGeneration at v0.5.18).
// - server_args.py turns the prefill graphs off for a multimodal model (0.5.10 – 0.5.13 _handle_piecewise_cuda_graph,
//   0.5.14+ _handle_cuda_graph_config) unless multimodal_breakable_cuda_graph_supported_model_archs names it
//   (v0.5.16: the two Qwen3.5 classes; v0.5.18 adds InternS2-Mobius, MuseGlimmer, Kimi-K3, Kimi-K2.5), and keeps
//   those v0.5.16 – v0.5.18 move to piecewise graphs first (Cohere2-Vision, Kimi-K2.5, MiniMax-M3-Sparse).
// - piecewise_cuda_graph_disabled_model_archs: Qwen3NextForCausalLM, BailingMoeV2_5ForCausalLM, LLaDAModelLM at
//   v0.5.10 – v0.5.14 (and the DSA classes to v0.5.12: sglang_fraction.hpp reads them from the model's facts).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>        // std::array
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint8_t
#include <string_view>  // std::string_view

namespace kvsize::engines::sglang {

/// A model class as SGLang's prefill CUDA graphs see it.
enum class prefill_graph_class : std::uint8_t {
  text,                    ///< no rule of its own
  multimodal,              ///< ModelConfig.is_multimodal on no allowlist: graphs off from 0.5.10
  multimodal_from_0_5_16,  ///< Qwen3.5: off in 0.5.10 – 0.5.15, kept from 0.5.16
  multimodal_from_0_5_18,  ///< InternS2-Mobius, MuseGlimmer, Kimi-K3: kept from 0.5.18
  /// Cohere2-Vision, Kimi-K2.5, MiniMax-M3-Sparse: v0.5.16 – v0.5.18 move them from breakable to piecewise graphs
  /// before the rules run (_apply_cuda_graph_compatibility), whose rules keep them, MLA or not; v0.5.14 has a
  /// multimodal piecewise allowlist. Counted from 0.5.14 (0.5.15's breakable rules turn them off: errs low there).
  multimodal_piecewise,
  piecewise_blocked,       ///< Qwen3-Next, Bailing-MoE-V2.5, LLaDA: off in 0.5.10 – 0.5.14
};

namespace graph_lists {
// clang-format off
/// multimodal_model_archs, the union of v0.5.10's and v0.5.18's (a class the older release lacks it does not serve).
inline constexpr std::array<std::string_view, 70> sglang_multimodal_archs{
    "CLIPModel", "Cohere2VisionForConditionalGeneration", "DeepseekVL2ForCausalLM",
    "Ernie4_5_VLMoeForConditionalGeneration", "MiniMaxM3SparseForConditionalGeneration",
    "Gemma3ForConditionalGeneration", "Gemma3nForConditionalGeneration", "Gemma4ForConditionalGeneration",
    "Gemma4UnifiedForConditionalGeneration", "Glm4vForConditionalGeneration", "Glm4vMoeForConditionalGeneration",
    "GlmOcrForConditionalGeneration", "GlmAsrForConditionalGeneration", "GlmImageForConditionalGeneration",
    "Grok1VForCausalLM", "Grok1AForCausalLM", "LlavaLlamaForCausalLM", "Llama4ForConditionalGeneration",
    "LlavaMistralForCausalLM", "LlavaQwenForCausalLM", "LlavaForConditionalGeneration", "LlavaVidForCausalLM",
    "Lfm2VlForConditionalGeneration", "LightOnOCRForConditionalGeneration", "MiMoV2ASRForCausalLM", "MiniCPMO",
    "MiniCPMV", "Mistral3ForConditionalGeneration", "MultiModalityCausalLM", "MllamaForConditionalGeneration",
    "MossVLForConditionalGeneration", "NemotronH_Nano_VL_V2", "NemotronH_Nano_Omni_Reasoning_V3",
    "MuseGlimmerForConditionalGeneration", "PixtralForConditionalGeneration", "Qwen2AudioForConditionalGeneration",
    "Qwen2VLForConditionalGeneration", "Qwen2_5_VLForConditionalGeneration", "Qwen3VLForConditionalGeneration",
    "Qwen3VLMoeForConditionalGeneration", "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration",
    "InternS2PreviewForConditionalGeneration", "InternS2MobiusForConditionalGeneration",
    "Qwen3ASRForConditionalGeneration", "Qwen3OmniMoeForConditionalGeneration", "KimiVLForConditionalGeneration",
    "LocateAnythingForConditionalGeneration", "InternVLChatModel", "InternS1ForConditionalGeneration",
    "InternS1ProForConditionalGeneration", "Phi4MMForCausalLM", "VoxtralForConditionalGeneration",
    "WhisperForConditionalGeneration", "Step3VLForConditionalGeneration", "POINTSV15ChatModel", "DotsVLMForCausalLM",
    "DotsOCRForCausalLM", "Sarashina2VisionForCausalLM", "NVILAForConditionalGeneration",
    "NVILALiteForConditionalGeneration", "DeepseekOCRForCausalLM", "UnlimitedOCRForCausalLM",
    "JetVLMForConditionalGeneration", "PaddleOCRVLForConditionalGeneration", "MiDashengLMModel",
    "StepVLForConditionalGeneration", "Step3p7ForConditionalGeneration", "KimiK25ForConditionalGeneration",
    "KimiK3ForConditionalGeneration"};
// clang-format on
/// enable_multimodal's default is False for these (ModelConfig.__init__, mm_disabled_models).
inline constexpr std::array<std::string_view, 4> sglang_multimodal_off_by_default{
    "Gemma3ForConditionalGeneration", "Llama4ForConditionalGeneration", "Step3VLForConditionalGeneration",
    "InklingForConditionalGeneration"};
inline constexpr std::array<std::string_view, 2> sglang_breakable_multimodal_0_5_16{
    "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration"};
inline constexpr std::array<std::string_view, 3> sglang_breakable_multimodal_0_5_18{
    "InternS2MobiusForConditionalGeneration", "MuseGlimmerForConditionalGeneration", "KimiK3ForConditionalGeneration"};
/// The piecewise allowlist of v0.5.16 – v0.5.18 (v0.5.18 keeps Kimi-K2.5 breakable, on its breakable list too:
/// kept either way).
inline constexpr std::array<std::string_view, 4> sglang_piecewise_multimodal{
    "Cohere2VisionForConditionalGeneration", "KimiK25ForConditionalGeneration", "MiniMaxM3SparseForCausalLM",
    "MiniMaxM3SparseForConditionalGeneration"};
inline constexpr std::array<std::string_view, 3> sglang_piecewise_blocked{"Qwen3NextForCausalLM",
                                                                          "BailingMoeV2_5ForCausalLM", "LLaDAModelLM"};

template <std::size_t N>
[[nodiscard]] constexpr auto names(const std::array<std::string_view, N>& list, std::string_view name) -> bool {
  for (const std::string_view entry : list) {
    if (entry == name) {
      return true;
    }
  }
  return false;
}
}  // namespace graph_lists

/// The class of `architecture` (config.json's architectures[0]); `text_config_apart`: the config keeps its language
/// model in a text_config of its own (SGLang's `hf_config is not hf_text_config`).
[[nodiscard]] constexpr auto prefill_graph_class_of(std::string_view architecture, bool text_config_apart)
    -> prefill_graph_class {
  if (graph_lists::names(graph_lists::sglang_piecewise_multimodal, architecture)) {
    return prefill_graph_class::multimodal_piecewise;
  }
  if (graph_lists::names(graph_lists::sglang_breakable_multimodal_0_5_16, architecture)) {
    return prefill_graph_class::multimodal_from_0_5_16;
  }
  if (graph_lists::names(graph_lists::sglang_breakable_multimodal_0_5_18, architecture)) {
    return prefill_graph_class::multimodal_from_0_5_18;
  }
  if (graph_lists::names(graph_lists::sglang_piecewise_blocked, architecture)) {
    return prefill_graph_class::piecewise_blocked;
  }
  if (graph_lists::names(graph_lists::sglang_multimodal_off_by_default, architecture)) {
    return prefill_graph_class::text;
  }
  const bool multimodal = text_config_apart || graph_lists::names(graph_lists::sglang_multimodal_archs, architecture);
  return multimodal ? prefill_graph_class::multimodal : prefill_graph_class::text;
}

}  // namespace kvsize::engines::sglang
