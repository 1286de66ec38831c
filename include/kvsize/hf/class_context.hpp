// SPDX-License-Identifier: MIT
// The length a config class sets for a length key config.json leaves out. vLLM and SGLang read the length
// with getattr() on the loaded config object (vLLM derive_max_model_len_and_key, SGLang get_context_length), so a
// class default in the config class's __init__ (transformers 4) or field (transformers 5) is what they see; only
// where the class sets none do they fall back to 2,048 (engines/vllm_context.hpp, engines/sglang_context.hpp).
// Read into model_spec::stated only, for the one key a row names, where the file leaves that key out (whatever else
// it states: getattr sees the default either way); model_spec::max_context stays what the file states.
// Rows naming a transformers 5 class (gemma4, glm_moe_dsa, mimo_v2_flash): vLLM releases that pin transformers 4
// load such a model through remote code or a newer transformers, whose defaults kvsize has not read.
//
// Each row is the class both engines load for that model_type (vLLM 0.19's _CONFIG_REGISTRY in
// vllm/transformers_utils/config.py, else transformers' AutoConfig; SGLang 0.5.18's _CONFIG_REGISTRY in
// python/sglang/srt/utils/hf_transformers/common.py, else transformers'), with the default read in
// https://github.com/huggingface/transformers src/transformers/models/<name>/configuration_<name>.py, or the
// engine's own class where it registers one. Left out, so the engines' 2,048 fallback applies: classes that set no
// length (vLLM's RWConfig for RefinedWeb / RefinedWebModel), and classes whose default differs between the two
// engines or was not read: step3p5 (vLLM's Step3p5Config max_seq_len 4,096, SGLang's 128,000), kimi_linear
// (vLLM's KimiLinearConfig none, SGLang's 4,096), granitemoehybrid (transformers' 2,048, SGLang's own 131,072),
// minicpm3, minimax_m3, minimax_text_01, hunyuan and nemotron-nas (remote code).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <string_view>  // std::string_view

#include "../stated_context.hpp"

namespace kvsize::hf::detail {

/// One config class's default length: `key` = `length` (tokens).
struct class_context {
  std::string_view model_type;
  std::string_view config_class;
  context_key key = context_key::max_position_embeddings;
  std::uint64_t length = 0;
};

// clang-format off
inline constexpr class_context class_contexts[] = {
    {"llama", "LlamaConfig", context_key::max_position_embeddings, 2'048},
    {"smollm3", "SmolLM3Config", context_key::max_position_embeddings, 32'768},
    {"mistral", "MistralConfig", context_key::max_position_embeddings, 131'072},  // 4096 * 32
    {"mixtral", "MixtralConfig", context_key::max_position_embeddings, 131'072},
    {"ministral", "MinistralConfig", context_key::max_position_embeddings, 131'072},
    {"phi3", "Phi3Config", context_key::max_position_embeddings, 4'096},
    {"phi", "PhiConfig", context_key::max_position_embeddings, 2'048},
    {"qwen2", "Qwen2Config", context_key::max_position_embeddings, 32'768},
    {"qwen2_moe", "Qwen2MoeConfig", context_key::max_position_embeddings, 32'768},
    {"qwen2_vl", "Qwen2VLTextConfig", context_key::max_position_embeddings, 32'768},
    {"qwen2_5_vl", "Qwen2_5_VLTextConfig", context_key::max_position_embeddings, 32'768},
    {"qwen2_5_vl_text", "Qwen2_5_VLTextConfig", context_key::max_position_embeddings, 32'768},
    {"qwen3", "Qwen3Config", context_key::max_position_embeddings, 32'768},
    {"qwen3_moe", "Qwen3MoeConfig", context_key::max_position_embeddings, 32'768},
    {"qwen3_next", "Qwen3NextConfig (vLLM's and SGLang's own)", context_key::max_position_embeddings, 32'768},
    {"qwen3_5_text", "Qwen3_5TextConfig (vLLM's and SGLang's own)", context_key::max_position_embeddings, 32'768},
    {"qwen3_5_moe_text", "Qwen3_5MoeTextConfig (vLLM's and SGLang's own)", context_key::max_position_embeddings, 32'768},
    {"qwen3_vl_text", "Qwen3VLTextConfig", context_key::max_position_embeddings, 128'000},
    {"qwen3_vl_moe_text", "Qwen3VLMoeTextConfig", context_key::max_position_embeddings, 128'000},
    {"gemma", "GemmaConfig", context_key::max_position_embeddings, 8'192},
    {"gemma2", "Gemma2Config", context_key::max_position_embeddings, 8'192},
    {"gemma3_text", "Gemma3TextConfig", context_key::max_position_embeddings, 131'072},
    {"gemma3", "Gemma3TextConfig", context_key::max_position_embeddings, 131'072},
    {"gemma3n_text", "Gemma3nTextConfig", context_key::max_position_embeddings, 32'768},
    {"gemma3n", "Gemma3nTextConfig", context_key::max_position_embeddings, 32'768},
    {"gemma4_text", "Gemma4TextConfig", context_key::max_position_embeddings, 131'072},
    {"gemma4", "Gemma4TextConfig", context_key::max_position_embeddings, 131'072},
    {"minimax_m2", "MiniMaxM2Config", context_key::max_position_embeddings, 196'608},
    {"ernie4_5", "Ernie4_5Config", context_key::max_position_embeddings, 131'072},
    {"ernie4_5_moe", "Ernie4_5_MoeConfig", context_key::max_position_embeddings, 131'072},
    {"mimo_v2_flash", "MiMoV2FlashConfig", context_key::max_position_embeddings, 131'072},
    {"cohere", "CohereConfig", context_key::max_position_embeddings, 8'192},
    {"cohere2", "Cohere2Config", context_key::max_position_embeddings, 8'192},
    {"llama4_text", "Llama4TextConfig", context_key::max_position_embeddings, 131'072},
    {"llama4", "Llama4TextConfig", context_key::max_position_embeddings, 131'072},
    {"gpt_oss", "GptOssConfig", context_key::max_position_embeddings, 131'072},
    {"deepseek_v2", "DeepseekV2Config", context_key::max_position_embeddings, 2'048},
    {"deepseek_v3", "DeepseekV3Config", context_key::max_position_embeddings, 4'096},
    {"deepseek_v32", "DeepseekV3Config", context_key::max_position_embeddings, 4'096},  // both engines' alias
    {"kimi_k2", "DeepseekV3Config", context_key::max_position_embeddings, 4'096},       // both engines' alias
    {"longcat_flash", "LongcatFlashConfig", context_key::max_position_embeddings, 131'072},
    {"hunyuan_v1_dense", "HunYuanDenseV1Config", context_key::max_position_embeddings, 2'048},
    {"lfm2", "Lfm2Config", context_key::max_position_embeddings, 128'000},
    {"lfm2_moe", "Lfm2MoeConfig (vLLM's and SGLang's own)", context_key::max_position_embeddings, 128'000},
    {"glm_moe_dsa", "GlmMoeDsaConfig", context_key::max_position_embeddings, 202'752},
    {"glm4_moe", "Glm4MoeConfig", context_key::max_position_embeddings, 131'072},
    // ChatGLMConfig (vLLM's and SGLang's own, configs/chatglm.py): seq_length 2,048, max_position_embeddings the same.
    {"chatglm", "ChatGLMConfig (vLLM's and SGLang's own)", context_key::seq_length, 2'048},
    // GPT2Config / GPTBigCodeConfig: n_positions 1,024, which their attribute_map also answers for
    // max_position_embeddings (SGLang's only way to it).
    {"gpt2", "GPT2Config", context_key::n_positions, 1'024},
    {"gpt_bigcode", "GPTBigCodeConfig", context_key::n_positions, 1'024},
    {"gpt_neox", "GPTNeoXConfig", context_key::max_position_embeddings, 2'048},
    {"falcon", "FalconConfig", context_key::max_position_embeddings, 2'048},
    {"mpt", "MptConfig", context_key::max_seq_len, 2'048},
    {"nemotron_h", "NemotronHConfig", context_key::max_position_embeddings, 4'096},
    {"jamba", "JambaConfig", context_key::max_position_embeddings, 262'144},
    {"falcon_h1", "FalconH1Config", context_key::max_position_embeddings, 8'192},
};
// clang-format on

/// The class default of `model_type`'s length, where the table knows one.
[[nodiscard]] constexpr auto class_context_of(std::string_view model_type) -> std::optional<class_context> {
  for (const class_context& row : class_contexts) {
    if (row.model_type == model_type) {
      return row;
    }
  }
  return std::nullopt;
}

}  // namespace kvsize::hf::detail
