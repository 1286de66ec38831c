// SPDX-License-Identifier: MIT
// Key spellings per quantity, as data: the union of what transformers (attribute_map), vLLM
// (vllm/config/model.py), SGLang (configs/model_config.py) and llama.cpp (convert_hf_to_gguf.py)
// accept (vLLM get_total_num_kv_heads / _get_and_verify_max_len; SGLang ModelConfig; llama.cpp
// convert_hf_to_gguf.py TextModel.find_hparam). The first present, non-null key wins. Every key
// read under more than one spelling is listed here, and only here.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>        // std::array
#include <string_view>  // std::string_view

namespace kvsize::hf::detail::keys {

// clang-format off
/// Decoder layers. GPT-2/Falcon: n_layer; MPT: n_layers; ChatGLM: num_layers.
inline constexpr std::array<std::string_view, 4> layers{"num_hidden_layers", "n_layer", "n_layers", "num_layers"};
/// Query heads. GPT-2/Falcon: n_head; MPT: n_heads.
inline constexpr std::array<std::string_view, 3> heads{"num_attention_heads", "n_head", "n_heads"};
/// K/V heads, in vLLM's get_total_num_kv_heads order after its special cases (Falcon's
/// multi_query, MPT's attn_config.kv_n_heads, ChatGLM's multi_query_attention, Nemotron-NAS). Step-3 and
/// Step-3.5: num_attention_groups (vLLM models/step3p5.py Step3p5DecoderLayer: num_kv_heads).
inline constexpr std::array<std::string_view, 5> kv_heads{"num_key_value_heads", "num_kv_heads", "n_head_kv", "multi_query_group_num",
                                                          "num_attention_groups"};
/// Residual width. GPT-2: n_embd; MPT: d_model.
inline constexpr std::array<std::string_view, 3> hidden{"hidden_size", "n_embd", "d_model"};
/// Explicit K head dimension. ChatGLM: kv_channels; Nemotron-H (56B) and Zamba2: attention_head_dim.
inline constexpr std::array<std::string_view, 3> head_dim{"head_dim", "attention_head_dim", "kv_channels"};
/// Explicit V head dimension, when it differs from K's (MiMo; MLA reads v_head_dim itself).
inline constexpr std::array<std::string_view, 2> head_dim_v{"v_head_dim", "head_dim_v"};
/// Vocabulary. ChatGLM: padded_vocab_size.
inline constexpr std::array<std::string_view, 3> vocab{"vocab_size", "padded_vocab_size", "n_vocab"};
/// Longest context. vLLM _get_and_verify_max_len takes the minimum over the present keys; so do we.
inline constexpr std::array<std::string_view, 10> max_context{
    "max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "model_max_length",
    "max_target_positions", "max_sequence_length", "max_seq_length", "seq_len", "n_ctx"};
/// MLP width. ChatGLM: ffn_hidden_size; GPT-2: n_inner (null → 4 × n_embd).
inline constexpr std::array<std::string_view, 3> intermediate{"intermediate_size", "ffn_hidden_size", "n_inner"};
/// Compute dtype: transformers ≥ 4.56 writes dtype, older versions torch_dtype.
inline constexpr std::array<std::string_view, 2> dtype{"dtype", "torch_dtype"};
/// Q/K/V bias switches. ChatGLM: add_qkv_bias; Falcon: bias.
inline constexpr std::array<std::string_view, 4> qkv_bias{"qkv_bias", "add_qkv_bias", "attention_bias", "bias"};
/// Sub-configs that hold the language model of a multimodal checkpoint (HF get_text_config;
/// vLLM get_hf_text_config). thinker_config.text_config (Qwen-Omni) is handled by the reader.
inline constexpr std::array<std::string_view, 3> text_config{"text_config", "llm_config", "language_config"};
/// Rows of a learned position table (GPT-2 / GPT-BigCode wpe).
inline constexpr std::array<std::string_view, 2> positions{"n_positions", "max_position_embeddings"};

// quantization_config (read once, by quantization_reader.hpp).
/// Weight bits (GPTQ/AWQ: bits; some: weight_bits; compressed-tensors: num_bits; AutoAWQ: w_bit).
inline constexpr std::array<std::string_view, 4> quant_bits{"bits", "weight_bits", "num_bits", "w_bit"};
/// Quantization group (GPTQ/AWQ: group_size; AutoAWQ: q_group_size).
inline constexpr std::array<std::string_view, 2> quant_group{"group_size", "q_group_size"};

// Mixture of experts.
/// Routed experts: Mixtral/Llama 4/gpt-oss num_local_experts, Qwen-MoE num_experts, DeepSeek/GLM/Nemotron-H
/// n_routed_experts. A family's own spelling is its row's experts_key (Step-3.5 moe_num_experts, which ERNIE 4.5
/// also writes, as an array in its VL configs: not an alias for every model).
inline constexpr std::array<std::string_view, 3> experts{"num_local_experts", "num_experts", "n_routed_experts"};
/// Top-k: num_experts_per_tok; Hunyuan moe_topk; Gemma 4 top_k_experts; Kimi-Linear num_experts_per_token;
/// Step-3.5 moe_top_k; ERNIE 4.5 moe_k.
inline constexpr std::array<std::string_view, 6> experts_per_token{"num_experts_per_tok", "moe_topk", "top_k_experts",
                                                                 "num_experts_per_token", "moe_top_k", "moe_k"};
inline constexpr std::array<std::string_view, 1> expert_width{"moe_intermediate_size"};
/// Shared expert width: Qwen2-MoE/Qwen3-Next shared_expert_intermediate_size, Nemotron-H
/// moe_shared_expert_intermediate_size, MiniMax-Text-01 shared_intermediate_size (vLLM MiniMaxText01DecoderLayer),
/// Step-3.5 share_expert_dim (Step3p5 FusedMoEBlock's share_expert).
inline constexpr std::array<std::string_view, 4> shared_expert_width{"shared_expert_intermediate_size", "moe_shared_expert_intermediate_size",
                                                                    "shared_intermediate_size", "share_expert_dim"};
/// MiniMax-Text-01's per-layer attention kinds (0 lightning, 1 softmax), in vLLM's order of precedence.
inline constexpr std::array<std::string_view, 2> attn_type_list{"attn_type_list", "decoder_attention_types"};
/// Shared experts of the routed width: DeepSeek n_shared_experts, Kimi-Linear num_shared_experts, ERNIE 4.5
/// moe_num_shared_experts.
inline constexpr std::array<std::string_view, 3> shared_expert_count{"n_shared_experts", "num_shared_experts",
                                                                     "moe_num_shared_experts"};

// Recurrent state (Mamba2 / Mamba1 / gated delta): transformers Mamba2Config / JambaConfig /
// FalconH1Config / NemotronHConfig spellings, as vLLM's MambaStateShapeCalculator reads them.
inline constexpr std::array<std::string_view, 3> ssm_state{"ssm_state_size", "mamba_d_state", "state_size"};
inline constexpr std::array<std::string_view, 3> conv_kernel{"conv_kernel", "mamba_d_conv", "d_conv"};
inline constexpr std::array<std::string_view, 2> n_groups{"n_groups", "mamba_n_groups"};
inline constexpr std::array<std::string_view, 2> mamba_heads{"mamba_num_heads", "mamba_n_heads"};
inline constexpr std::array<std::string_view, 2> mamba_head_dim{"mamba_head_dim", "mamba_d_head"};
inline constexpr std::array<std::string_view, 2> expand{"mamba_expand", "expand"};
inline constexpr std::array<std::string_view, 1> d_inner{"mamba_d_ssm"};
// clang-format on

}  // namespace kvsize::hf::detail::keys
