// SPDX-License-Identifier: MIT
// What one family row says (families.hpp holds the rows): the rules a model_type places its layers,
// heads, norms, biases, experts and state by, each a named field with the generic decoder's value as
// its default.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>      // std::uint8_t, std::uint32_t
#include <string_view>  // std::string_view

namespace kvsize::hf::detail {

/// How a family places its windows when the config has no `layer_types` (which always wins).
enum class window_rule : std::uint8_t {
  plain,      ///< a non-null `sliding_window` applies to every layer (Mistral v0.1, Phi-3: HF
              ///< MistralAttention / Phi3Attention pass config.sliding_window to every layer)
  qwen,       ///< only if use_sliding_window, and only layers il >= max_window_layers (HF Qwen2Attention)
  alternate,  ///< Gemma 2: layer i slides iff (i + 1) % 2 != 0 (HF Gemma2Config.layer_types default;
              ///< before layer_types, Gemma2Attention: sliding iff layer_idx is even, the same layers). Step-3.5
              ///< without layer_types: vLLM's Step3p5Attention slides iff layer_idx % 2 == 0, the same layers
  pattern,    ///< Gemma 3 / Cohere2: i slides iff (i + 1) % sliding_window_pattern != 0. Gemma 3n: the
              ///< same with a fixed period 5 (Gemma3nTextConfig has no sliding_window_pattern key)
  chunked,    ///< Llama 4: i is chunked iff no_rope_layers[i] (an absent or empty list defaults to
              ///< (i + 1) % no_rope_layer_interval != 0, interval 4; HF Llama4TextConfig)
  nope_slides,  ///< SmolLM3: with use_sliding_window and a sliding_window, i slides iff no_rope_layers[i] == 0
                ///< (a NoPE layer; absent: (i + 1) % no_rope_layer_interval == 0, interval 4; HF SmolLM3Config)
  hybrid_layer_pattern,  ///< MiMo-V2-Flash: i slides iff hybrid_layer_pattern[i] == 1 (vLLM models/mimo_v2_flash.py
                         ///< is_compressed_softmax_layer); absent: MiMoV2FlashConfig's default, layer 0 and
                         ///< every 6th layer full
};

/// Which rule places the layers when no per-layer key (layer_types, block_configs, ...) is set.
enum class layer_rule : std::uint8_t {
  window,                   ///< every layer attends; the family's window_rule says which slide
  full_attention_interval,  ///< Qwen3-Next: every n-th layer is full attention, the others gated delta
  jamba_period,             ///< Jamba: attention iff i % attn_layer_period == attn_layer_offset, else Mamba
  falcon_h1,                ///< Falcon-H1: attention and Mamba2 in every layer
};

/// The recurrent mixer of a family's state-keeping layers (when a layer key does not say).
enum class mixer_rule : std::uint8_t { mamba2, mamba1, gated_delta, short_conv, kda, lightning };

/// How the K/V head count is found (vLLM get_total_num_kv_heads' special cases).
enum class kv_heads_rule : std::uint8_t {
  standard,            ///< num_key_value_heads & aliases; a present multi_query key is read too
  falcon_multi_query,  ///< FalconConfig: multi_query defaults to true (1 KV head)
  mpt_attn_config,     ///< MPT: attn_config.attn_type / attn_config.kv_n_heads
  chatglm,             ///< ChatGLM: multi_query_attention + multi_query_group_num
};

/// The normalisation layers (weights_shape.hpp norm_kind), and whether a key chooses.
enum class norm_rule : std::uint8_t {
  rms,                        ///< RMSNorm: weight only
  layer_norm,                 ///< LayerNorm: weight and bias
  layer_norm_no_bias,         ///< CohereLayerNorm: weight only
  layer_norm_unless_no_bias,  ///< MPT: LayerNorm, without bias when no_bias is true
};

/// Whether attention and MLP share one input norm, and who decides.
enum class block_rule : std::uint8_t {
  sequential,  ///< input_layernorm → attention, post_attention_layernorm → MLP
  parallel,    ///< one input_layernorm feeds attention and MLP (Cohere, Phi)
  falcon,      ///< FalconDecoderLayer: new_decoder_architecture / parallel_attn decide
};

/// Q/K normalisation inside attention.
enum class qk_norm_rule : std::uint8_t {
  none,
  head,              ///< RMSNorm over head_dim (Qwen3, Gemma 3)
  head_if_use_key,   ///< head, when use_qk_norm is true (Glm4Moe)
  full_if_use_key,   ///< CohereLayerNorm over (heads, head_dim), when use_qk_norm is true
  full,              ///< RMSNorm over heads × head_dim for Q and kv_heads × head_dim for K, always (FlexOlmo, MiniMax-M2)
};

/// The o_proj and MLP biases when no mlp_bias / attention_bias key says otherwise.
enum class linear_bias_rule : std::uint8_t {
  none,
  always,            ///< GPT-2, GPT-BigCode, GPT-NeoX
  unless_no_bias,    ///< MPT: unless no_bias is true
  add_bias_linear,   ///< ChatGLM: the add_bias_linear key (default false)
  like_qkv,          ///< Falcon: the same switch as the Q/K/V bias
};

/// What an `attention_bias` key does to o_proj.
enum class attention_bias_rule : std::uint8_t {
  sets_o_bias,  ///< LlamaAttention & co.: o_proj bias = attention_bias
  ignored,      ///< the modeling code does not read the key (Qwen2: fixed biases; ChatGLM)
  no_o_bias,    ///< Glm4MoeAttention: q/k/v biased by the key, o_proj never
};

/// Facts of one model_type. Sources are transformers' configuration_*.py / modeling_*.py.
struct family {
  std::string_view model_type = {};
  std::string_view source = {};  ///< the config class that documents the defaults (its name first)

  // Layers and attention.
  layer_rule layers = layer_rule::window;
  /// Each layer is one block of one kind (NemotronHBlock): layers_block_type also names MoE and MLP
  /// blocks, and its length is the layer count (NemotronHConfig.num_hidden_layers is that length).
  bool one_block_per_layer = false;
  window_rule window = window_rule::plain;
  std::uint32_t pattern = 0;      ///< default period for `pattern` (sliding_window_pattern)
  bool pattern_key = true;        ///< `pattern`: the period may come from sliding_window_pattern
  bool latent = false;            ///< a multi-head latent attention family (vLLM's MLA list)
  kv_heads_rule kv_heads = kv_heads_rule::standard;
  mixer_rule mixer = mixer_rule::mamba2;

  // MLP, embeddings.
  bool gated_mlp = true;          ///< gate + up + down; false for GELU/ReLU² two-matrix MLPs
  bool ffn_4x_hidden = false;     ///< no intermediate key: 4 × hidden (GPT2, GPTBigCode n_inner None; Falcon)
  bool lfm2_mlp = false;          ///< Lfm2MLP's width rule: block_ff_dim, adjusted (hf/mlp_width.hpp)
  bool tied = false;              ///< the config class's tie_word_embeddings default
  /// A key the config class reads before tie_word_embeddings (Lfm2Config: "tie_embedding", "to fit
  /// original config keys"); empty: none.
  std::string_view tie_alias = {};
  std::uint32_t learned_positions = 0;  ///< rows of a learned position table when no key says (0: none)

  // Block layout, norms.
  norm_rule norm = norm_rule::rms;
  bool sandwich_norms = false;    ///< Gemma 2/3: pre- and post- norms around attention and MLP
  bool layer_scalar = false;      ///< Gemma 4: a one-element layer_scalar buffer in each decoder layer
  /// Gemma 3 / 3n / 4: the sliding layers rotate with parameters of their own (rope_local_base_freq, or
  /// rope_parameters' sliding_attention entry): weights_shape::sliding_rope_apart.
  bool sliding_rope_apart = false;
  bool rotary_float32 = false;  ///< the model class keeps its rotary table in float32 (rotary_cache_shape::float32)
  /// The model has no rotary embedding in vLLM (rotary_cache_shape::none): Nemotron-H, Jamba, Kimi-Linear (MLA with
  /// rotary_emb=None, kimi_linear.py), GPT-2 / GPTBigCode (learned positions), MPT (ALiBi).
  bool rotary_none = false;
  /// MiniMax-Text-01 / M1: rows min(max_position_embeddings, max_model_len) (rotary_cache_shape::rows_max_model_len).
  bool rotary_rows_max_model_len = false;
  bool rotary_half = false;  ///< ChatGLM rotates half of each head (chatglm.py GLMAttention: head_dim // 2)
  /// Rows where the config names no length: RWConfig has no max_position_embeddings, and falcon.py takes
  /// getattr(config, "max_position_embeddings", 8192); transformers' FalconConfig defaults it to 2048.
  std::uint32_t rotary_default_positions = 0;
  /// Gemma 3n / Gemma 4: per-layer inputs (weights_shape::per_layer_input_width) from hidden_size_per_layer_input
  /// and vocab_size_per_layer_input; absent keys take these defaults (Gemma3nTextConfig: 256 and 262,144).
  bool per_layer_inputs = false;
  std::uint32_t per_layer_input_default = 0;
  /// Gemma 4: use_double_wide_mlp doubles the MLP width of the KV-shared layers.
  bool double_wide_mlp_key = false;
  block_rule block = block_rule::sequential;
  bool new_decoder_default = false;  ///< block_rule::falcon: new_decoder_architecture's default
  qk_norm_rule qk_norm = qk_norm_rule::none;
  bool output_gate = false;       ///< q_proj also produces a per-head output gate (Qwen3-Next)
  bool attention_sinks = false;   ///< one learned sink logit per head (gpt-oss)

  // Fused tensors, biases.
  bool fused_qkv = false;
  bool fused_gate_up = false;
  bool qkv_bias = false;          ///< Q/K/V bias when no key says
  bool qkv_bias_fixed = false;    ///< the modeling code ignores the keys (Qwen2: always biased)
  linear_bias_rule linear_bias = linear_bias_rule::none;
  attention_bias_rule attention_bias = attention_bias_rule::sets_o_bias;

  // Mixture of experts.
  std::string_view experts_key = {};   ///< non-empty: every MoE layer routes; the count's key when it is missing
  bool single_expert_dense = false;  ///< 1 expert is a dense MLP (JambaDecoderLayer: num_experts > 1)
  bool expert_layer_period = false;  ///< MoE iff il % expert_layer_period == expert_layer_offset (Jamba)
  /// ERNIE 4.5: MoE iff moe_layer_start_index <= il <= moe_layer_end_index and (il + 1) % moe_layer_interval == 0
  /// (Ernie4_5_MoeConfig's defaults 1, -1 = the last layer, 1).
  bool moe_layer_range = false;
  bool expert_biases = false;     ///< router and experts biased (GptOssTopKRouter, gate_up/down_proj_bias)
  bool shared_expert_gate = false;   ///< shared_expert_gate: Linear(hidden, 1) on the shared expert
  bool shared_expert_is_mlp = false; ///< the shared expert is an MLP of intermediate_size (Llama4TextMoe)
  std::string_view dense_width_key = {};  ///< the width of the dense layers' MLP, when it is its own key
  /// The count of leading dense layers (moe_shape::first_dense_layers); absent: nested_defaults' value for it,
  /// else 0. LFM2-MoE spells it num_dense_layers (Lfm2MoeConfig default 2).
  std::string_view first_dense_key = "first_k_dense_replace";
  bool score_correction_bias = false;  ///< e_score_correction_bias whatever topk_method says
  bool router_f32 = false;  ///< the checkpoint stores the router's weight in float32 (moe_shape::router_f32)
  /// A boolean key that turns score_correction_bias off when false (LFM2-MoE: use_expert_bias, true by default).
  std::string_view correction_bias_key = {};
  std::string_view expert_latent_key = {};  ///< the latent MoE's width (moe_shape::latent_width), when the family has one
  /// HunYuan (vLLM models/hunyuan_v1.py): moe_topk, moe_intermediate_size and num_shared_expert may be one
  /// value per layer (an array); elsewhere an array there is a type error.
  bool moe_keys_per_layer = false;
  /// HunYuan (vLLM models/hunyuan_v1.py HunYuanSparseMoeBlock): with use_mixed_mlp_moe, each MoE layer
  /// also runs a shared MLP of intermediate_size × num_shared_expert (an int, or one per layer).
  bool mixed_mlp_shared = false;
  /// HunYuan's use_cla: layers i % cla_share_factor != 0 attend to the K and V of the layer before
  /// (cross-layer attention), which vLLM runs as encoder-decoder attention; refused when true.
  bool cross_layer_kv = false;

  /// Gemma 4: full-attention layers take global_head_dim (K and V) and, with attention_k_eq_v,
  /// num_global_key_value_heads and no v_proj.
  bool global_attention_keys = false;
  /// MiMo-V2-Flash: sliding layers take swa_num_key_value_heads, swa_head_dim and swa_v_head_dim (the
  /// window may be spelled sliding_window_size), and with add_swa_attention_sink_bias one sink per head.
  bool swa_attention_keys = false;
  /// Step-3.5: the layers whose layer_types entry is attention_other_setting.attention_type take that
  /// object's num_attention_heads, num_attention_groups (KV heads) and head_dim; layer_types also lists
  /// the num_nextn_predict_layers MTP layers after the decoder's; MoE layers from moe_layers_enum; each layer's
  /// rotary width from partial_rotary_factors (vLLM reads it in models/step3p5.py only).
  bool step_attention_keys = false;
  /// MiniMax-M3: sparse_attention_config.sparse_attention_freq marks the layers that also cache one
  /// index key of sparse_index_dim elements per token (layer_kind::indexed).
  bool sparse_attention_keys = false;

  // Multi-token prediction.
  bool mtp_embeddings = false;    ///< the MTP layers keep their own embedding and head (DeepSeek-V3)
  std::uint32_t mtp_default = 0;  ///< MTP layers when num_nextn_predict_layers is absent
  std::string_view mtp_default_note = {};  ///< why, for the warning
  /// Non-empty: the MTP layers are not counted, and this says why (their shape is not the main layers').
  std::string_view mtp_uncounted = {};

  /// JSON: class defaults for keys a nested text_config omits; its "intermediate_size" also stands in
  /// for an absent MLP width at the top level (mlp_width.hpp; values in
  /// docs/research/intermediate-size-defaults.md).
  std::string_view nested_defaults = {};

  // Recurrent state.
  std::string_view ssm_dtype_key = {};      ///< the key naming the SSM state dtype (recurrent_state::ssm_dtype)
  std::string_view ssm_dtype_default = {};  ///< its value when the key is absent; empty: the engines' own rule
  std::string_view ssm_dtype_source = {};   ///< who reads the key, and where the default comes from
};

}  // namespace kvsize::hf::detail
