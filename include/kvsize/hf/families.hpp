// SPDX-License-Identifier: MIT
// What kvsize knows per model_type: which rule places sliding windows, the MLP and embedding
// facts of the family, and the transformers class defaults for keys a nested config omits.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>        // std::array
#include <cstdint>      // std::uint8_t, std::uint32_t
#include <string_view>  // std::string_view

namespace kvsize::hf::detail {

/// How a family places its windows when the config has no `layer_types` (which always wins).
enum class window_rule : std::uint8_t {
  plain,      ///< a non-null `sliding_window` applies to every layer (Mistral v0.1, Phi-3: HF
              ///< MistralAttention / Phi3Attention pass config.sliding_window to every layer)
  qwen,       ///< only if use_sliding_window, and only layers il >= max_window_layers (HF Qwen2Attention)
  alternate,  ///< Gemma 2: layer i slides iff (i + 1) % 2 != 0 (HF Gemma2Config.layer_types default;
              ///< before layer_types, Gemma2Attention: sliding iff layer_idx is even, the same layers)
  pattern,    ///< Gemma 3 / Cohere2: i slides iff (i + 1) % sliding_window_pattern != 0. Gemma 3n: the
              ///< same with a fixed period 5 (Gemma3nTextConfig has no sliding_window_pattern key)
  chunked,    ///< Llama 4: i is chunked iff no_rope_layers[i] (an absent or empty list defaults to
              ///< (i + 1) % no_rope_layer_interval != 0, interval 4; HF Llama4TextConfig)
};

/// Facts of one model_type. Sources are transformers' configuration_*.py / modeling_*.py.
struct family {
  std::string_view model_type;
  window_rule window = window_rule::plain;
  std::uint32_t pattern = 0;       ///< default period for `pattern` (sliding_window_pattern)
  bool gated_mlp = true;           ///< gate + up + down; false for GELU/ReLU² two-matrix MLPs
  bool tied = false;               ///< the config class's tie_word_embeddings default
  bool qkv_bias = false;           ///< Q/K/V bias when no key says
  bool qkv_bias_fixed = false;     ///< the modeling code ignores the keys (Qwen2: always biased)
  bool latent = false;             ///< a multi-head latent attention family (vLLM's MLA list)
  std::string_view source;         ///< the config class that documents the defaults
  std::string_view nested_defaults;  ///< JSON: class defaults for keys a nested text_config omits
};

// clang-format off
inline constexpr family families[] = {
    // Llama and relatives. LlamaConfig: vocab 32000, hidden 4096, intermediate 11008, 32 layers,
    // 32 heads, num_key_value_heads None (→ heads), max_position_embeddings 2048, untied.
    {"llama", window_rule::plain, 0, true, false, false, false, false, "LlamaConfig (transformers models/llama/configuration_llama.py)",
     R"({"vocab_size":32000,"hidden_size":4096,"intermediate_size":11008,"num_hidden_layers":32,"num_attention_heads":32,"max_position_embeddings":2048})"},
    {"mistral", window_rule::plain, 0, true, false, false, false, false, "MistralConfig (models/mistral/configuration_mistral.py)", ""},
    {"mixtral", window_rule::plain, 0, true, false, false, false, false, "MixtralConfig (models/mixtral/configuration_mixtral.py)", ""},
    {"ministral", window_rule::plain, 0, true, false, false, false, false, "MinistralConfig", ""},
    {"phi3", window_rule::plain, 0, true, false, false, false, false, "Phi3Config (models/phi3/configuration_phi3.py)", ""},
    {"phi", window_rule::plain, 0, false, false, true, false, false, "PhiConfig (models/phi/configuration_phi.py)", ""},
    {"nemotron-nas", window_rule::plain, 0, true, false, false, false, false, "DeciLMConfig (nvidia remote code)", ""},
    // Qwen: Qwen2Attention has bias=True on q/k/v regardless of attention_bias; Qwen3 reads attention_bias.
    {"qwen2", window_rule::qwen, 0, true, false, true, true, false, "Qwen2Config (models/qwen2/configuration_qwen2.py)", ""},
    {"qwen2_moe", window_rule::qwen, 0, true, false, true, true, false, "Qwen2MoeConfig (models/qwen2_moe/configuration_qwen2_moe.py)", ""},
    {"qwen2_vl", window_rule::qwen, 0, true, false, true, true, false, "Qwen2VLConfig (models/qwen2_vl/configuration_qwen2_vl.py)", ""},
    {"qwen2_5_vl", window_rule::qwen, 0, true, false, true, true, false, "Qwen2_5_VLConfig (models/qwen2_5_vl/configuration_qwen2_5_vl.py)", ""},
    {"qwen2_5_vl_text", window_rule::qwen, 0, true, false, true, true, false, "Qwen2_5_VLTextConfig", ""},
    {"qwen3", window_rule::qwen, 0, true, false, false, false, false, "Qwen3Config (models/qwen3/configuration_qwen3.py)", ""},
    {"qwen3_moe", window_rule::qwen, 0, true, false, false, false, false, "Qwen3MoeConfig (models/qwen3_moe/configuration_qwen3_moe.py)", ""},
    {"qwen3_next", window_rule::qwen, 0, true, false, false, false, false, "Qwen3NextConfig (models/qwen3_next/configuration_qwen3_next.py)", ""},
    // Gemma: tie_word_embeddings defaults to True in every Gemma config class.
    {"gemma", window_rule::plain, 0, true, true, false, false, false, "GemmaConfig (models/gemma/configuration_gemma.py)", ""},
    // Gemma2Config (checked against transformers models/gemma2/configuration_gemma2.py @008e5743,
    // and @19f53461 before layer_types existed): vocab 256000, hidden 2304, intermediate 9216,
    // 26 layers, 8 heads, 4 KV heads, head_dim 256, max_position_embeddings 8192, sliding_window
    // 4096, tied; layer_types default: layer i slides iff (i + 1) % 2 != 0. See
    // docs/research/transformers-defaults.md.
    {"gemma2", window_rule::alternate, 2, true, true, false, false, false, "Gemma2Config (models/gemma2/configuration_gemma2.py)",
     R"({"vocab_size":256000,"hidden_size":2304,"intermediate_size":9216,"num_hidden_layers":26,"num_attention_heads":8,"num_key_value_heads":4,"head_dim":256,"max_position_embeddings":8192,"sliding_window":4096})"},
    // Gemma3TextConfig: vocab 262208, hidden 2304, intermediate 9216, 26 layers, 8 heads, 4 kv heads,
    // head_dim 256, max_position_embeddings 131072, sliding_window 4096, sliding_window_pattern 6.
    {"gemma3_text", window_rule::pattern, 6, true, true, false, false, false, "Gemma3TextConfig (transformers models/gemma3/configuration_gemma3.py)",
     R"({"vocab_size":262208,"hidden_size":2304,"intermediate_size":9216,"num_hidden_layers":26,"num_attention_heads":8,"num_key_value_heads":4,"head_dim":256,"max_position_embeddings":131072,"sliding_window":4096,"sliding_window_pattern":6})"},
    {"gemma3", window_rule::pattern, 6, true, true, false, false, false, "Gemma3TextConfig (transformers models/gemma3/configuration_gemma3.py)", ""},
    // Gemma3nTextConfig (transformers models/gemma3n/configuration_gemma3n.py @01854809, the same
    // in @c5d9fba1): vocab 262400, hidden 2048, intermediate 16384, 35 layers, 8 heads, 2 KV heads,
    // head_dim 256, max_position_embeddings 32768, sliding_window 512, num_kv_shared_layers 15, tied;
    // layer_types default: layer i is full iff (i + 1) % 5 == 0. No sliding_window_pattern key.
    {"gemma3n_text", window_rule::pattern, 5, true, true, false, false, false, "Gemma3nTextConfig (transformers models/gemma3n/configuration_gemma3n.py)",
     R"({"vocab_size":262400,"hidden_size":2048,"intermediate_size":16384,"num_hidden_layers":35,"num_attention_heads":8,"num_key_value_heads":2,"head_dim":256,"max_position_embeddings":32768,"sliding_window":512,"num_kv_shared_layers":15})"},
    {"gemma3n", window_rule::pattern, 5, true, true, false, false, false, "Gemma3nTextConfig", ""},
    {"cohere", window_rule::plain, 0, true, true, false, false, false, "CohereConfig (models/cohere/configuration_cohere.py)", ""},
    // Cohere2Config (transformers models/cohere2/configuration_cohere2.py @008e5743; @eab64a0e had
    // sliding_window_pattern as an attribute, now it is read from the kwargs for old configs, default
    // 4 in both): vocab 256000, hidden 8192, intermediate 22528, 40 layers, 64 heads,
    // num_key_value_heads None (→ heads), head_dim always hidden / heads, max_position_embeddings
    // 8192, sliding_window 4096, tied.
    {"cohere2", window_rule::pattern, 4, true, true, false, false, false, "Cohere2Config (transformers models/cohere2/configuration_cohere2.py)",
     R"({"vocab_size":256000,"hidden_size":8192,"intermediate_size":22528,"num_hidden_layers":40,"num_attention_heads":64,"max_position_embeddings":8192,"sliding_window":4096,"sliding_window_pattern":4})"},
    // Llama4TextConfig (transformers models/llama4/configuration_llama4.py @008e5743, the same
    // values in @b17cfe48): vocab 202048, hidden 5120, intermediate 8192, 48 layers, 40 heads, 8 KV
    // heads, head_dim 128, max_position_embeddings 131072, attention_chunk_size 8192,
    // no_rope_layer_interval 4, untied, num_local_experts 16, num_experts_per_tok 1,
    // intermediate_size_mlp 16384, interleave_moe_layer_step 1 (checked @008e5743: the dataclass
    // fields of Llama4TextConfig); no_rope_layers absent or [] → int((i + 1) % interval != 0),
    // and layer_types → "chunked_attention" where that is 1, else "full_attention".
    {"llama4_text", window_rule::chunked, 4, true, false, false, false, false, "Llama4TextConfig (transformers models/llama4/configuration_llama4.py)",
     R"({"vocab_size":202048,"hidden_size":5120,"intermediate_size":8192,"num_hidden_layers":48,"num_attention_heads":40,"num_key_value_heads":8,"head_dim":128,"max_position_embeddings":131072,"attention_chunk_size":8192,"num_local_experts":16,"num_experts_per_tok":1,"intermediate_size_mlp":16384,"interleave_moe_layer_step":1})"},
    {"llama4", window_rule::chunked, 4, true, false, false, false, false, "Llama4TextConfig", ""},
    {"gpt_oss", window_rule::plain, 0, true, false, true, false, false, "GptOssConfig (models/gpt_oss/configuration_gpt_oss.py)", ""},
    // Latent attention: vLLM's MLA list (config/model.py is_deepseek_mla).
    {"deepseek_v2", window_rule::plain, 0, true, false, false, false, true, "DeepseekV2Config", ""},
    {"deepseek_v3", window_rule::plain, 0, true, false, false, false, true, "DeepseekV3Config (models/deepseek_v3/configuration_deepseek_v3.py)", ""},
    {"deepseek_v32", window_rule::plain, 0, true, false, false, false, true, "DeepseekV32Config", ""},
    {"kimi_k2", window_rule::plain, 0, true, false, false, false, true, "DeepseekV3Config (Kimi-K2 remote code)", ""},
    {"longcat_flash", window_rule::plain, 0, true, false, false, false, true, "LongcatFlashConfig", ""},
    {"minicpm3", window_rule::plain, 0, true, false, false, false, true, "MiniCPM3Config", ""},
    {"glm4_moe", window_rule::plain, 0, true, false, false, false, false, "Glm4MoeConfig (models/glm4_moe/configuration_glm4_moe.py)", ""},
    {"chatglm", window_rule::plain, 0, true, false, false, false, false, "ChatGLMConfig (THUDM remote code)", ""},
    // Two-matrix MLPs (GELU / ReLU²): gpt2, gpt_neox, falcon, mpt, nemotron_h.
    {"gpt2", window_rule::plain, 0, false, true, true, false, false, "GPT2Config (models/gpt2/configuration_gpt2.py)", ""},
    {"gpt_bigcode", window_rule::plain, 0, false, true, true, false, false, "GPTBigCodeConfig", ""},
    {"gpt_neox", window_rule::plain, 0, false, false, true, false, false, "GPTNeoXConfig (models/gpt_neox/configuration_gpt_neox.py)", ""},
    {"falcon", window_rule::plain, 0, false, true, false, false, false, "FalconConfig (models/falcon/configuration_falcon.py)", ""},
    {"RefinedWeb", window_rule::plain, 0, false, true, false, false, false, "RWConfig (tiiuae remote code)", ""},
    {"RefinedWebModel", window_rule::plain, 0, false, true, false, false, false, "RWConfig (tiiuae remote code)", ""},
    {"mpt", window_rule::plain, 0, false, true, false, false, false, "MptConfig (models/mpt/configuration_mpt.py)", ""},
    {"nemotron_h", window_rule::plain, 0, false, false, false, false, false, "NemotronHConfig (models/nemotron_h/configuration_nemotron_h.py)", ""},
    // Hybrids with Mamba state.
    {"jamba", window_rule::plain, 0, true, false, false, false, false, "JambaConfig (models/jamba/configuration_jamba.py)", ""},
    {"granitemoehybrid", window_rule::plain, 0, true, false, false, false, false, "GraniteMoeHybridConfig (models/granitemoehybrid/configuration_granitemoehybrid.py)", ""},
    {"falcon_h1", window_rule::plain, 0, true, false, false, false, false, "FalconH1Config (models/falcon_h1/configuration_falcon_h1.py)", ""},
};
// clang-format on

/// Composite (multimodal) model_types whose language model is a nested sub-config, with the
/// model_type the sub-config has when it omits its own (LlavaConfig: text_config defaults to
/// LlamaConfig; Gemma3Config: Gemma3TextConfig; Llama4Config: Llama4TextConfig; PaliGemmaConfig:
/// "gemma" (not "gemma2"); transformers
/// models/paligemma/configuration_paligemma.py @04d596e6).
struct composite {
  std::string_view model_type;
  std::string_view text_model_type;
};
inline constexpr composite composites[] = {
    {"llava", "llama"},
    {"llava_next", "llama"},
    {"gemma3", "gemma3_text"},
    {"gemma3n", "gemma3n_text"},
    {"paligemma", "gemma"},
    {"llama4", "llama4_text"},
    {"mistral3", "mistral"},
    {"qwen2_5_vl", "qwen2_5_vl_text"},
};

[[nodiscard]] constexpr auto find_family(std::string_view model_type) -> const family* {
  for (const auto& f : families) {
    if (f.model_type == model_type) {
      return &f;
    }
  }
  return nullptr;
}

[[nodiscard]] constexpr auto default_text_model_type(std::string_view model_type) -> std::string_view {
  for (const auto& c : composites) {
    if (c.model_type == model_type) {
      return c.text_model_type;
    }
  }
  return {};
}

}  // namespace kvsize::hf::detail
