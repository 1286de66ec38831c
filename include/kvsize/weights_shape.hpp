// SPDX-License-Identifier: MIT
// kvsize::weights_shape: what model_spec needs, beyond the attention shape, to count every
// parameter of a decoder (norms, biases, MoE, latent projections, recurrent mixers, MTP, vision).
// Plain data like model_spec: integers, enums and bools only, usable as a template argument.
// The defaults describe a Llama block (RMSNorm before attention and before the MLP, no biases,
// dense MLP, final norm), so a model_spec that never mentions `weights` counts as before.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>    // std::array
#include <cstdint>  // std::uint8_t, std::uint32_t, std::uint64_t

#include "rotary_cache_shape.hpp"

namespace kvsize {

/// What one normalization layer holds.
enum class norm_kind : std::uint8_t {
  rms,                 ///< RMSNorm: a weight of `hidden` elements
  layer_norm,          ///< LayerNorm with weight and bias: 2 × hidden (GPT-2, GPT-NeoX, Falcon)
  layer_norm_no_bias,  ///< LayerNorm without bias: hidden (MPT no_bias, Cohere)
};

/// Q/K normalization inside attention.
enum class qk_norm_kind : std::uint8_t {
  none,
  head,  ///< one weight of head_dim shared by the heads, for Q and for K (Qwen3, Gemma 3, GLM-4.5)
  full,  ///< a weight over all heads: heads × head_dim for Q, kv_heads × head_dim for K (OLMo 2)
};

/// The feed-forward sub-block of a layer.
enum class ffn_kind : std::uint8_t {
  inherit,  ///< the model's rule: MoE if moe.experts > 0 and the layer index >= moe.first_dense_layers, else dense
  dense,    ///< one MLP of the layer's width
  moe,      ///< routed experts (+ shared experts, router)
  none,     ///< no MLP (Nemotron-H Mamba and attention blocks, DeciLM no-op FFN)
};

/// The mixer of `recurrent` layers (layer_spec::recurrent).
enum class recurrent_kind : std::uint8_t {
  none,
  mamba2,       ///< Mamba2 mixer (Nemotron-H, Granite 4, Falcon-H1)
  gated_delta,  ///< gated DeltaNet linear attention (Qwen3-Next)
  kda,          ///< Kimi Delta Attention (Kimi-Linear): heads × head_dim, short convs of conv_kernel
  mamba1,       ///< Mamba1 mixer with Jamba's dt/B/C norms (Jamba); head_dim is d_inner, heads unused
  lightning,    ///< lightning attention (MiniMax-Text-01 / M1): heads × head_dim, an output gate, no conv
  short_conv,   ///< LFM2's gated short convolution: head_dim channels (conv_dim), a conv of conv_kernel taps
};

/// Per-layer exceptions for the weights.
struct layer_weights {
  ffn_kind ffn = ffn_kind::inherit;
  std::uint32_t ffn_width = 0;  ///< width of this layer's dense MLP; 0 → model_spec::intermediate_size
  /// V is K's projection, normed apart (Gemma 4's attention_k_eq_v on full-attention layers): no
  /// v_proj tensor. The cache still holds both K and V.
  bool v_from_k = false;
  /// One learned sink logit per query head on this layer, where the model-wide
  /// weights_shape::attention_sinks is off (MiMo-V2-Flash: sliding layers only).
  bool attention_sinks = false;
  /// This layer's query heads, where they differ from model_spec::attention_heads (0: the model's). Weights
  /// only (Q, O, the head gate, sinks): the cache holds K and V, whose heads are layer_spec::kv_heads.
  /// Step-3.5-Flash's sliding layers: 96 of the full layers' 64; MiMo-V2-Flash's swa_num_attention_heads.
  std::uint32_t query_heads = 0;
  friend constexpr auto operator==(const layer_weights&, const layer_weights&) -> bool = default;
};

/// Mixture of experts. A MoE layer holds `experts` MLPs of `expert_width`, a router (experts ×
/// hidden, plus biases if set), and optionally one always-on shared MLP of `shared_width`.
struct moe_shape {
  std::uint32_t experts = 0;             ///< routed experts per MoE layer; 0: a dense model
  std::uint32_t experts_per_token = 0;   ///< top-k (for active parameters); 0: unknown (all)
  std::uint32_t expert_width = 0;        ///< expert intermediate size; 0 → intermediate_size
  std::uint32_t shared_width = 0;        ///< total width of the shared expert(s), fused; 0: none
  /// Latent MoE (Nemotron-3 Super / Ultra, NemotronHConfig moe_latent_size): the routed experts read
  /// and write vectors of this width, which a hidden → latent and a latent → hidden projection
  /// around them make; 0: the experts work on hidden_size (no projections).
  std::uint32_t latent_width = 0;
  std::uint32_t first_dense_layers = 0;  ///< first_k_dense_replace: layers below this index are dense
  bool shared_gate = false;              ///< a hidden → 1 sigmoid gate on the shared expert (Qwen2-MoE, Qwen3-Next)
  bool router_bias = false;              ///< the router Linear has a bias (gpt-oss)
  bool score_correction_bias = false;    ///< e_score_correction_bias, experts floats (DeepSeek-V3 noaux_tc, GLM-4.5); float32 buffer
  bool router_f32 = false;               ///< the checkpoint stores the router's weight in float32 (ERNIE-4.5-MoE, MiniMax-M2/M3)
  bool expert_bias = false;              ///< each expert's projections have biases (gpt-oss)
  friend constexpr auto operator==(const moe_shape&, const moe_shape&) -> bool = default;
};

/// The parameters of a recurrent mixer.
/// Mamba2:      heads × head_dim = d_inner, groups = n_groups, state_dim = d_state.
/// Gated delta: heads = value heads, head_dim = value head dim, groups = key heads, state_dim = key head dim.
struct recurrent_shape {
  recurrent_kind kind = recurrent_kind::none;
  std::uint32_t heads = 0;
  std::uint32_t head_dim = 0;
  std::uint32_t groups = 0;
  std::uint32_t state_dim = 0;
  std::uint32_t conv_kernel = 0;
  std::uint32_t dt_rank = 0;  ///< Mamba1: rank of the time-step projection (x_proj → dt → dt_proj)
  bool conv_bias = false;  ///< conv1d has a bias (Mamba2 use_conv_bias; Qwen3-Next: none)
  bool proj_bias = false;  ///< in_proj / out_proj have biases (Mamba2 use_bias)
  friend constexpr auto operator==(const recurrent_shape&, const recurrent_shape&) -> bool = default;
};

/// Everything model_spec's attention shape does not say about the weights.
struct weights_shape {
  // Norms. A layer has `norms_per_mixer` norms if it has attention or a recurrent mixer, and
  // `norms_per_ffn` if it has an MLP; a parallel block whose MLP reads the attention's norm
  // (Falcon-7B, Cohere) has norms_per_ffn = 0. Gemma 2/3 (pre and post norms): 2 and 2.
  norm_kind norm = norm_kind::rms;
  std::uint8_t norms_per_mixer = 1;
  std::uint8_t norms_per_ffn = 1;
  bool final_norm = true;
  bool parallel_block = false;  ///< attention and MLP read the same input (Falcon, Cohere, GPT-J); informational
  /// Each decoder layer stores `layer_scalar`, a one-element buffer that scales its output (Gemma 4:
  /// transformers Gemma4TextDecoderLayer registers it, and the checkpoints hold it): in the weight bytes,
  /// not in parameters() (tensor_role::buffer).
  bool layer_scalar = false;

  // Embeddings.
  std::uint32_t position_embeddings = 0;  ///< rows of a learned absolute position table (GPT-2 n_positions)
  /// Per-layer inputs (Gemma 3n, Gemma 4 "E" models): P = hidden_size_per_layer_input features a layer, looked up in
  /// an embed_tokens_per_layer table of per_layer_input_vocab rows × (layers × P) and mixed with a
  /// per_layer_model_projection of the embeddings, (layers × P) × hidden, normed over P; each layer gates them in
  /// with per_layer_input_gate (P × hidden), per_layer_projection (hidden × P) and post_per_layer_input_norm
  /// (transformers Gemma4TextModel / Gemma4TextDecoderLayer). 0: none.
  std::uint32_t per_layer_input_width = 0;
  std::uint32_t per_layer_input_vocab = 0;

  // Attention (model_spec::qkv_bias covers the Q/K/V biases).
  bool o_bias = false;             ///< the output projection has a bias (GPT-2, GPT-NeoX, gpt-oss)
  qk_norm_kind qk_norm = qk_norm_kind::none;
  bool attention_sinks = false;    ///< one learned sink logit per head (gpt-oss)
  bool output_gate = false;        ///< Q projection doubled for a sigmoid output gate (Qwen3-Next)
  bool head_gate = false;          ///< a heads × hidden projection gates each head's output (Step-3.5 g_proj)
  /// The sliding layers rotate with parameters of their own (Gemma 3 / 3n / 4: rope_local_base_freq, or
  /// rope_parameters' sliding_attention entry): vLLM's get_rope builds a second cos/sin table for them (its cache
  /// key holds the parameters). No weight; the loaded buffers (engines/vllm_startup.hpp loaded_buffers).
  bool sliding_rope_apart = false;
  rotary_cache_shape rotary{};  ///< the full layers' rotary table, where rope scaling or a partial rotary shape it
  /// An indexed layer's indexer query heads (MiniMax-M3 sparse_num_index_heads): index_q_proj of these heads and
  /// index_k_proj of one, each of model_spec::sparse_index_dim, with a norm each
  std::uint32_t sparse_index_heads = 0;
  /// DeepSeek sparse attention's indexer heads (index_n_heads; DeepSeek-V3.2 64, GLM-5 32) in a latent layer with
  /// latent.index_head_dim: wq_b, wk, k_norm and weights_proj (weights_enumeration.hpp emit_dsa_indexer)
  std::uint32_t dsa_index_heads = 0;
  bool fused_qkv = false;          ///< Q, K and V are one matrix in the checkpoint (Falcon, GPT-2, Phi-3, ChatGLM); quantization only
  bool fused_gate_up = false;      ///< gate and up are one matrix in the checkpoint (Phi-3, ChatGLM); quantization only
  std::uint32_t q_lora_rank = 0;   ///< MLA: Q through a rank-q_lora_rank bottleneck with its norm; 0 → a full Q projection

  // MLP (model_spec::intermediate_size and gated_mlp give its shape).
  bool mlp_bias = false;  ///< MLP projections have biases (GPT-2, GPT-NeoX)

  moe_shape moe{};
  recurrent_shape recurrent{};

  /// Multi-token-prediction modules (DeepSeek-V3 num_nextn_predict_layers, GLM-4.5, Qwen3-Next):
  /// each is one decoder layer (the model's attention, MoE if the model has experts) plus two
  /// input norms, a 2·hidden → hidden projection and an output norm. Not part of `total`.
  std::uint32_t mtp_layers = 0;
  bool mtp_embeddings = false;  ///< each MTP module stores its own embed_tokens and head copies (DeepSeek-V3, GLM-4.5)

  /// Vision tower and projector parameters (read or derived by the config reader). Never in `total`.
  std::uint64_t vision = 0;

  std::array<layer_weights, 512> layer{};  ///< per-layer exceptions (index < model_spec::layers)

  friend constexpr auto operator==(const weights_shape&, const weights_shape&) -> bool = default;
};

}  // namespace kvsize
