// SPDX-License-Identifier: MIT
// kvsize::for_each_weight: the one enumeration of a model_spec's weight tensors. Parameter counts
// (weights_parameters.hpp) and weight bytes in every format (weights_bytes.hpp) are sums over it,
// so a tensor added here is counted everywhere. Part of <kvsize/weights.hpp>.
//
// The order is llama.cpp's (model-wide tensors, then block by block), which the GGUF rules'
// counters rely on (weights_gguf.hpp). Each layer is one call of detail::emit_layer, in steps:
// mixer norms, attention (full or latent), recurrent mixer, FFN norms, FFN.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint32_t, std::uint64_t

#include "detail/checked.hpp"
#include "layer_widths.hpp"  // ffn_of_layer, ffn_width_of_layer
#include "model_spec.hpp"
#include "weights_shape.hpp"
#include "weights_emitter.hpp"
#include "weights_mixers.hpp"
#include "weights_tensor.hpp"

namespace kvsize {

namespace detail {

/// DeepSeek sparse attention's lightning indexer in a latent layer (DeepSeek-V3.2, GLM-5; vLLM models/deepseek_v2.py
/// Indexer.__init__, SGLang layers/attention/nsa/nsa_indexer.py Indexer): wq_b (index_n_heads × index_head_dim rows
/// over the q_lora_rank latent) and wk (index_head_dim × hidden), quantized like the attention; k_norm, a LayerNorm
/// (weight and bias); weights_proj (index_n_heads × hidden), which only MLX quantizes (tensor_role::attn_index_weights).
/// DeepSeek-V3.2: 13,959,424 a layer.
template <class F>
constexpr void emit_dsa_indexer(const layer_emitter<F>& e) {
  const model_spec& m = e.m;
  const std::uint64_t d = m.latent.index_head_dim;
  const std::uint64_t heads = m.weights.dsa_index_heads;
  const std::uint64_t q_in = m.weights.q_lora_rank != 0 ? m.weights.q_lora_rank : m.hidden_size;
  e.matrix_split(weight_part::attention, tensor_role::attn_index_q, checked_mul(heads, d), q_in, 1);  // ReplicatedLinear
  e.matrix_split(weight_part::attention, tensor_role::attn_index_k, d, m.hidden_size, 1);
  e.vector(weight_part::norms, tensor_role::norm, d);
  e.vector(weight_part::norms, tensor_role::norm, d);
  e.matrix(weight_part::attention, tensor_role::attn_index_weights, heads, m.hidden_size);
}

/// MLA (DeepSeek-V2/V3): Q directly or through the q_lora_rank bottleneck with its norm, the joint
/// KV down-projection (kv_lora_rank + rope) with its norm, the up-projection to heads × (nope + v), O.
template <class F>
constexpr void emit_latent_attention(const layer_emitter<F>& e) {
  const model_spec& m = e.m;
  const std::uint64_t hidden = m.hidden_size;
  const std::uint64_t heads = m.attention_heads;
  const std::uint64_t nope = m.latent.nope_head_dim;
  const std::uint64_t rope = m.latent.rope_head_dim;
  const std::uint64_t vd = m.latent.v_head_dim;
  const std::uint64_t kvl = m.latent.kv_lora_rank;
  const std::uint64_t ql = m.weights.q_lora_rank;
  if (ql != 0) {
    e.matrix(weight_part::attention, tensor_role::attn_q_a, ql, hidden);
    e.vector(weight_part::norms, tensor_role::norm, ql);
    e.matrix(weight_part::attention, tensor_role::attn_q_b, checked_mul(heads, nope + rope), ql);
  } else {
    e.matrix(weight_part::attention, tensor_role::attn_q, checked_mul(heads, nope + rope), hidden);
  }
  e.matrix(weight_part::attention, tensor_role::attn_kv_a, kvl + rope, hidden);
  e.vector(weight_part::norms, tensor_role::norm, kvl);
  e.matrix(weight_part::attention, tensor_role::attn_kv_b, checked_mul(heads, nope + vd), kvl);
  e.matrix(weight_part::attention, tensor_role::attn_output, hidden, checked_mul(heads, vd));
  if (m.weights.o_bias) {
    e.output_bias(weight_part::attention, hidden);
  }
  if (m.latent.index_head_dim != 0 && m.weights.dsa_index_heads != 0) {
    emit_dsa_indexer(e);
  }
}

/// Multi-head / grouped-query attention with `kv_heads` KV heads: Q (doubled for an output gate),
/// K, V (or one fused QKV), their biases, O and its bias, sinks, Q/K norms.
template <class F>
constexpr void emit_attention(const layer_emitter<F>& e, std::uint64_t kv_heads) {
  const model_spec& m = e.m;
  const weights_shape& w = m.weights;
  const std::uint64_t hidden = m.hidden_size;
  const std::uint32_t own_heads = e.il < max_layers ? w.layer[e.il].query_heads : 0U;
  const std::uint64_t heads = own_heads != 0 ? own_heads : m.attention_heads;  // Step-3.5's sliding layers
  const std::uint64_t hd = head_dim_of_layer(m, e.il);  // Gemma 4: global_head_dim on full layers
  const std::uint64_t hdv = head_dim_v_of_layer(m, e.il);
  const bool v_from_k = e.il < max_layers && w.layer[e.il].v_from_k;
  const std::uint64_t q_rows = checked_mul(checked_mul(heads, hd), w.output_gate ? 2U : 1U);
  const std::uint64_t k_rows = checked_mul(kv_heads, hd);
  const std::uint64_t v_rows = v_from_k ? 0U : checked_mul(kv_heads, hdv);
  const auto kv_ways = static_cast<std::uint32_t>(kv_heads);  // a head count of model_spec: 32 bits
  if (w.fused_qkv) {
    e.matrix(weight_part::attention, tensor_role::attn_qkv, checked_add(q_rows, checked_add(k_rows, v_rows)), hidden);
  } else {
    e.matrix(weight_part::attention, tensor_role::attn_q, q_rows, hidden);
    // QKVParallelLinear: K and V split by head, each head copied to tp / kv_heads ranks past kv_heads
    e.matrix_split(weight_part::attention, tensor_role::attn_k, k_rows, hidden, kv_ways);
    e.matrix_split(weight_part::attention, tensor_role::attn_v, v_rows, hidden, kv_ways);
  }
  if (m.qkv_bias) {
    e.vector(weight_part::attention, tensor_role::vector, checked_add(q_rows, checked_add(k_rows, v_rows)));
  }
  e.matrix(weight_part::attention, tensor_role::attn_output, hidden, checked_mul(heads, hdv));
  if (w.o_bias) {
    e.output_bias(weight_part::attention, hidden);
  }
  if (w.head_gate) {  // Step3p5Attention.g_proj: hidden → one gate per head, no bias
    e.matrix(weight_part::attention, tensor_role::attn_head_gate, heads, hidden);
  }
  if (w.attention_sinks || (e.il < max_layers && w.layer[e.il].attention_sinks)) {  // model-wide or this layer's
    e.vector(weight_part::attention, tensor_role::vector, heads);
  }
  if (w.qk_norm == qk_norm_kind::head) {
    e.vector(weight_part::norms, tensor_role::norm, hd);
    e.vector(weight_part::norms, tensor_role::norm, hd);
  } else if (w.qk_norm == qk_norm_kind::full) {  // split by head in vLLM (MiniMaxText01RMSNormTP; Command-R's LayerNorm)
    e.matrix_split(weight_part::norms, tensor_role::norm, 1, checked_mul(heads, hd), 0);
    e.matrix_split(weight_part::norms, tensor_role::norm, 1, k_rows, kv_ways);
  }
}

/// An indexed layer's lightning indexer (MiniMax-M3): index_q_proj (sparse_index_heads × sparse_index_dim rows) and
/// index_k_proj (one head), which vLLM fuses into qkv_proj (MinimaxM3QKVParallelLinearWithIndexer) and so quantizes
/// as Q and K, and their RMSNorms over sparse_index_dim (index_q_norm, index_k_norm).
template <class F>
constexpr void emit_sparse_indexer(const layer_emitter<F>& e) {
  const model_spec& m = e.m;
  const std::uint64_t d = m.sparse_index_dim;
  e.matrix(weight_part::attention, tensor_role::attn_index_q, checked_mul(m.weights.sparse_index_heads, d),
           m.hidden_size);
  e.matrix_split(weight_part::attention, tensor_role::attn_index_k, d, m.hidden_size, 1);  // one head: on every rank
  e.vector(weight_part::norms, tensor_role::norm, d);
  e.vector(weight_part::norms, tensor_role::norm, d);
}

/// One MLP of `width` (`copies`: a layer's routed experts) on vectors of `hidden` (a latent MoE's experts:
/// the latent width): gate and up (or one fused gate_up; only up when not gated), down, their biases.
template <class F>
constexpr void emit_mlp(const layer_emitter<F>& e, weight_part part, std::uint64_t width, std::uint64_t copies,
                        bool bias, std::uint64_t hidden) {
  const model_spec& m = e.m;
  if (m.gated_mlp) {
    if (m.weights.fused_gate_up) {
      e.matrix(part, tensor_role::ffn_gate_up, checked_mul(2, width), hidden, copies);
    } else {
      e.matrix(part, tensor_role::ffn_gate, width, hidden, copies);
      e.matrix(part, tensor_role::ffn_up, width, hidden, copies);
    }
  } else {
    e.matrix(part, tensor_role::ffn_up, width, hidden, copies);
  }
  e.matrix(part, tensor_role::ffn_down, hidden, width, copies);
  if (bias) {
    e.vector(part, tensor_role::vector, m.gated_mlp ? checked_mul(2, width) : width, copies);
    e.output_bias(part, hidden, copies);
  }
}

/// The feed-forward block: its norms, then a dense MLP of `ffn_width`, or the routed experts, the
/// router (its bias, the score-correction buffer) and the shared expert with its gate.
template <class F>
constexpr void emit_ffn(const layer_emitter<F>& e, ffn_kind ffn, std::uint64_t ffn_width) {
  const weights_shape& w = e.m.weights;
  if (ffn == ffn_kind::none) {
    return;
  }
  for (std::uint64_t i = 0; i < w.norms_per_ffn; ++i) {
    e.norm(weight_part::norms, e.m.hidden_size);
  }
  if (ffn == ffn_kind::dense) {
    emit_mlp(e, weight_part::mlp, ffn_width, 1, w.mlp_bias, e.m.hidden_size);
  } else if (ffn == ffn_kind::moe) {
    const moe_shape& x = w.moe;
    const std::uint64_t width = x.expert_width != 0 ? x.expert_width : e.m.intermediate_size;
    const std::uint64_t hidden = e.m.hidden_size;
    if (x.latent_width == 0) {
      emit_mlp(e, weight_part::experts_routed, width, x.experts, x.expert_bias, hidden);
    } else {  // NemotronHMoE: fc1_latent_proj, the experts on the latent, fc2_latent_proj (biased with mlp_bias)
      e.matrix(weight_part::experts_shared, tensor_role::moe_latent_in, x.latent_width, hidden);
      emit_mlp(e, weight_part::experts_routed, width, x.experts, x.expert_bias, x.latent_width);
      e.matrix(weight_part::experts_shared, tensor_role::moe_latent_out, hidden, x.latent_width);
      if (w.mlp_bias) {  // the two projections' biases, latent + hidden elements, as one vector (ReplicatedLinear)
        e.matrix_split(weight_part::experts_shared, tensor_role::vector, 1, checked_add(x.latent_width, hidden), 1);
      }
    }
    e.matrix(weight_part::router, tensor_role::router, x.experts, e.m.hidden_size);
    if (x.router_bias) {
      e.vector(weight_part::router, tensor_role::vector, x.experts);
    }
    if (x.score_correction_bias) {
      e.vector(weight_part::router, tensor_role::correction_bias, x.experts);
    }
    if (x.shared_width != 0) {
      emit_mlp(e, weight_part::experts_shared, x.shared_width, 1, false, hidden);
      if (x.shared_gate) {
        e.matrix(weight_part::router, tensor_role::shared_expert_gate, 1, e.m.hidden_size);
      }
    }
  }
}

/// Emits the tensors of one decoder layer (or MTP module, `mtp` true: every part becomes weight_part::mtp).
template <class F>
constexpr void emit_layer(const model_spec& m, std::uint32_t il, layer_kind attention_kind, bool recurrent,
                          std::uint32_t kv_heads, ffn_kind ffn, std::uint64_t ffn_width, bool mtp, F& f) {
  const layer_emitter<F> e{m, il, mtp, f};
  const bool has_attention = attention_kind != layer_kind::none;
  const std::uint64_t mixer_norms = (has_attention || recurrent) ? m.weights.norms_per_mixer : 0U;
  for (std::uint64_t i = 0; i < mixer_norms; ++i) {
    e.norm(weight_part::norms, m.hidden_size);
  }
  if (attention_kind == layer_kind::latent) {
    emit_latent_attention(e);
  } else if (has_attention) {
    emit_attention(e, kv_heads);
  }
  if (attention_kind == layer_kind::indexed) {
    emit_sparse_indexer(e);
  }
  if (recurrent) {
    switch (m.weights.recurrent.kind) {
      case recurrent_kind::mamba2: emit_mamba2(e); break;
      case recurrent_kind::mamba1: emit_mamba1(e); break;
      case recurrent_kind::gated_delta: emit_gated_delta(e); break;
      case recurrent_kind::kda: emit_kda(e); break;
      case recurrent_kind::lightning: emit_lightning(e); break;
      case recurrent_kind::short_conv: emit_short_conv(e); break;
      case recurrent_kind::none: break;
    }
  }
  emit_ffn(e, ffn, ffn_width);
  if (const std::uint64_t p = m.weights.per_layer_input_width; p != 0 && !mtp) {
    e.matrix(weight_part::embeddings, tensor_role::per_layer_input, p, m.hidden_size);  // per_layer_input_gate
    e.matrix(weight_part::embeddings, tensor_role::per_layer_input, m.hidden_size, p);  // per_layer_projection
    e.norm(weight_part::norms, m.hidden_size);                                          // post_per_layer_input_norm
  }
  if (m.weights.layer_scalar) {
    e.matrix_split(weight_part::norms, tensor_role::buffer, 1, 1, 1);  // every rank holds it
  }
}

/// MTP module `j` (block layers + j): one decoder layer of the model's main attention kind, MoE if
/// the model has experts, then DeepSeek-V3's enorm, hnorm, shared_head.norm (Qwen3-Next:
/// pre_fc_norm_embedding, pre_fc_norm_hidden, norm), the 2·hidden → hidden eh_proj, and the
/// embedding and head copies where the checkpoint stores them.
template <class F>
constexpr void emit_mtp_module(const model_spec& m, std::uint32_t il, layer_kind main_attention, F& f) {
  const weights_shape& w = m.weights;
  const std::uint64_t hidden = m.hidden_size;
  const layer_kind k = main_attention == layer_kind::none ? layer_kind::full : main_attention;
  const ffn_kind ffn = w.moe.experts != 0 ? ffn_kind::moe : ffn_kind::dense;
  emit_layer(m, il, k, false, effective_kv_heads(m), ffn, m.intermediate_size, true, f);
  for (int i = 0; i < 3; ++i) {
    f(weight_tensor{weight_part::mtp, tensor_role::norm, il, 1, hidden, 1});
    if (w.norm == norm_kind::layer_norm) {
      f(weight_tensor{weight_part::mtp, tensor_role::norm, il, 1, hidden, 1});
    }
  }
  // Whole on every tensor-parallel rank (tensor_role::mtp_projection): DeepSeek-V3's and GLM-4.5's eh_proj and
  // SGLang's Qwen3.5 fc are nn.Linear; vLLM's Qwen3-Next/Qwen3.5 fc is a ColumnParallelLinear (qwen3_next_mtp.py
  // Qwen3NextMultiTokenPredictor), so under vLLM a rank holds fc·(1 − 1/tp) less than counted: the error is high.
  f(weight_tensor{weight_part::mtp, tensor_role::mtp_projection, il, hidden, checked_mul(2, hidden), 1});
  if (w.mtp_embeddings) {
    f(weight_tensor{weight_part::mtp_embeddings, tensor_role::token_embedding, il, m.vocab_size, hidden, 1});
    f(weight_tensor{weight_part::mtp_embeddings, tensor_role::output, il, m.vocab_size, hidden, 1});
  }
}

}  // namespace detail

/// Calls f(const weight_tensor&) for every weight tensor: embeddings, each layer in order, the
/// final norm, the LM head, the MTP modules, the vision count.
/// Throws kvsize::invalid_argument for a spec that breaks a rule of validate() (the one about
/// entries beyond `layers` aside), before calling `f`.
template <class F>
constexpr void for_each_weight(const model_spec& m, F&& f) {
  detail::check_model(m);
  const weights_shape& w = m.weights;
  const std::uint64_t hidden = m.hidden_size;
  const std::uint64_t vocab = m.vocab_size;
  f(weight_tensor{weight_part::embeddings, tensor_role::token_embedding, no_layer, vocab, hidden, 1});
  if (w.position_embeddings != 0) {
    f(weight_tensor{weight_part::embeddings, tensor_role::position_embedding, no_layer, w.position_embeddings, hidden, 1});
  }
  layer_kind main_attention = layer_kind::none;  // the first attention layer's kind: the MTP modules'
  const std::uint32_t layers = m.layers < max_layers ? m.layers : max_layers;
  if (const std::uint64_t p = w.per_layer_input_width; p != 0) {  // Gemma 3n / 4 per-layer inputs
    const std::uint64_t all = detail::checked_mul(layers, p);
    f(weight_tensor{weight_part::embeddings, tensor_role::per_layer_embedding, no_layer, w.per_layer_input_vocab, all, 1});
    weight_tensor projection{weight_part::embeddings, tensor_role::per_layer_input, no_layer, all, hidden, 1};
    projection.tp_max_ways = 0;  // per_layer_model_projection: a ColumnParallelLinear in vLLM's gemma4.py / gemma3n.py
    f(projection);
    f(weight_tensor{weight_part::norms, tensor_role::norm, no_layer, 1, p, 1});  // per_layer_projection_norm
  }
  for (std::uint32_t il = 0; il < layers; ++il) {
    const layer_kind k = kind_of_layer(m, il);
    if (main_attention == layer_kind::none && k != layer_kind::none && k != layer_kind::shared) {
      main_attention = k == layer_kind::latent ? layer_kind::latent : layer_kind::full;
    }
    detail::emit_layer(m, il, k, layer_keeps_state(m, il), kv_heads_of_layer(m, il), ffn_of_layer(m, il),
                       ffn_width_of_layer(m, il), false, f);
  }
  if (w.final_norm) {
    f(weight_tensor{weight_part::norms, tensor_role::norm, no_layer, 1, hidden, 1});
    if (w.norm == norm_kind::layer_norm) {
      f(weight_tensor{weight_part::norms, tensor_role::norm, no_layer, 1, hidden, 1});
    }
  }
  if (!m.tied_embeddings) {
    f(weight_tensor{weight_part::lm_head, tensor_role::output, no_layer, vocab, hidden, 1});
  }
  for (std::uint32_t j = 0; j < w.mtp_layers; ++j) {
    detail::emit_mtp_module(m, layers + j, main_attention, f);
  }
  if (w.vision != 0) {
    f(weight_tensor{weight_part::vision, tensor_role::vision, no_layer, 1, w.vision, 1});
  }
}

}  // namespace kvsize
