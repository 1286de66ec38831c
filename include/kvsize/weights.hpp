// SPDX-License-Identifier: MIT
// Parameters and weight bytes of a model_spec, exactly and in constant expressions.
//
//   constexpr kvsize::parameter_breakdown p = kvsize::parameters(spec);   // p.total, p.experts_routed, ...
//   constexpr kvsize::bytes w = kvsize::weights_bytes(spec, kvsize::gptq_weights(4, 128));
//
// Convention. `total` counts the module parameters of the language model, as
// model.num_parameters() of the *ForCausalLM class, keras-hub and GGUF general.parameter_count do:
// no buffers (rotary inv_freq, causal masks), a tied LM head once. Checkpoint extras are separate
// terms: multi-token-prediction modules (`mtp`, and `mtp_embeddings` for the embedding and head
// copies DeepSeek-V3 and GLM-4.5 store with them) and the vision tower with its projector
// (`vision`); `with_extras` adds them. A checkpoint that stores a tied head as its own tensor
// (Qwen3-0.6B, gemma-2b-it, Falcon) holds `embeddings` more than `total`; Llama-2's holds
// layers × head_dim / 2 rotary inv_freq floats more. Neither follows from config.json.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>        // std::array
#include <cstdint>      // std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t
#include <initializer_list>  // range-for over a braced list
#include <optional>     // std::optional
#include <string_view>  // std::string_view

#include "bytes.hpp"
#include "detail/checked.hpp"
#include "dtype.hpp"
#include "model_spec.hpp"
#include "weights_shape.hpp"

namespace kvsize {

// ---------------------------------------------------------------------------------------------
// Tensors
// ---------------------------------------------------------------------------------------------

/// The term of parameter_breakdown a tensor belongs to.
enum class weight_part : std::uint8_t {
  embeddings,      ///< token embedding (+ learned position embedding)
  lm_head,         ///< untied output projection
  attention,       ///< attention projections, their biases, sinks (MLA projections included)
  mlp,             ///< dense MLPs
  experts_routed,  ///< routed experts of MoE layers
  experts_shared,  ///< shared (always-on) experts
  router,          ///< routers, their biases, shared-expert gates
  norms,           ///< every normalization weight and bias (layer, final, Q/K, MLA's)
  recurrent,       ///< Mamba2 / gated-delta mixers (their gated norm included)
  mtp,             ///< multi-token-prediction modules (not in total)
  mtp_embeddings,  ///< the embedding and head copies MTP modules store (not in total)
  vision,          ///< vision tower and projector (not in total)
};
inline constexpr std::uint32_t weight_part_count = 12;

/// [[nodiscard]] A bit for weights_format::unquantized_parts.
[[nodiscard]] constexpr auto part_bit(weight_part p) -> std::uint16_t {
  return static_cast<std::uint16_t>(1U << static_cast<unsigned>(p));
}

/// What a tensor is, in the vocabulary the quantizers' rules use.
enum class tensor_role : std::uint8_t {
  token_embedding,
  position_embedding,
  output,  ///< the LM head
  attn_q,
  attn_k,
  attn_v,
  attn_qkv,  ///< fused Q/K/V (weights_shape::fused_qkv)
  attn_output,
  attn_q_a,   ///< MLA: hidden → q_lora_rank
  attn_q_b,   ///< MLA: q_lora_rank → heads × (nope + rope)
  attn_kv_a,  ///< MLA: hidden → kv_lora_rank + rope
  attn_kv_b,  ///< MLA: kv_lora_rank → heads × (nope + v)
  ffn_gate,
  ffn_up,
  ffn_gate_up,  ///< fused gate and up (weights_shape::fused_gate_up)
  ffn_down,
  router,              ///< experts × hidden
  shared_expert_gate,  ///< 1 × hidden
  ssm_in,
  ssm_conv,  ///< depthwise conv1d weight: channels × kernel
  ssm_out,
  ssm_x,   ///< Mamba1 x_proj: d_inner → dt_rank + 2 × d_state
  ssm_dt,  ///< Mamba1 dt_proj: dt_rank → d_inner
  mtp_projection,   ///< MTP: 2 × hidden → hidden
  norm,             ///< a 1-D normalization weight or bias
  vector,           ///< another 1-D tensor: a bias, attention sinks, SSM dt_bias / A_log / D
  correction_bias,  ///< e_score_correction_bias: a float32 buffer in every checkpoint
  vision,           ///< the vision tower and projector, as one opaque count
};

/// Layer index of model-wide tensors.
inline constexpr std::uint32_t no_layer = 0xFFFF'FFFFU;

/// One weight tensor (or `copies` identical ones: the experts of a layer). A matrix is
/// rows (output features) × cols (input features, the stored row length); a vector has rows = 1.
struct weight_tensor {
  weight_part part = weight_part::embeddings;
  tensor_role role = tensor_role::vector;
  std::uint32_t layer = no_layer;  ///< decoder layer; layers + i for MTP module i
  std::uint64_t rows = 0;
  std::uint64_t cols = 0;
  std::uint64_t copies = 1;
  [[nodiscard]] constexpr auto elements() const -> std::uint64_t {
    return detail::checked_mul(detail::checked_mul(rows, cols), copies);
  }
  [[nodiscard]] constexpr auto is_vector() const -> bool {
    return role == tensor_role::norm || role == tensor_role::vector || role == tensor_role::correction_bias;
  }
  /// A Linear layer's weight inside a decoder block: what GPTQ, AWQ, FP8 and bitsandbytes quantize.
  [[nodiscard]] constexpr auto is_block_linear() const -> bool {
    switch (role) {
      case tensor_role::attn_q:
      case tensor_role::attn_k:
      case tensor_role::attn_v:
      case tensor_role::attn_qkv:
      case tensor_role::attn_output:
      case tensor_role::attn_q_a:
      case tensor_role::attn_q_b:
      case tensor_role::attn_kv_a:
      case tensor_role::attn_kv_b:
      case tensor_role::ffn_gate:
      case tensor_role::ffn_up:
      case tensor_role::ffn_gate_up:
      case tensor_role::ffn_down:
      case tensor_role::ssm_in:
      case tensor_role::ssm_out:
      case tensor_role::ssm_x:
      case tensor_role::ssm_dt: return true;
      default: return false;
    }
  }
};

namespace detail {

/// Emits the tensors of one decoder layer (or MTP module, `mtp` true: every part becomes weight_part::mtp).
template <class F>
constexpr void emit_layer(const model_spec& m, std::uint32_t il, layer_kind attention_kind, bool recurrent,
                          std::uint32_t kv_heads, ffn_kind ffn, std::uint64_t ffn_width, bool mtp, F& f) {
  const weights_shape& w = m.weights;
  const std::uint64_t hidden = m.hidden_size;
  const auto emit = [&](weight_part part, tensor_role role, std::uint64_t rows, std::uint64_t cols,
                        std::uint64_t copies = 1) {
    if (rows != 0 && cols != 0 && copies != 0) {
      f(weight_tensor{mtp ? weight_part::mtp : part, role, il, rows, cols, copies});
    }
  };
  const auto vec = [&](weight_part part, tensor_role role, std::uint64_t n, std::uint64_t copies = 1) {
    emit(part, role, 1, n, copies);
  };
  const auto norm = [&](weight_part part, std::uint64_t n) {
    vec(part, tensor_role::norm, n);
    if (w.norm == norm_kind::layer_norm) {
      vec(part, tensor_role::norm, n);  // bias
    }
  };
  const bool has_attention = attention_kind != layer_kind::none;
  const std::uint64_t mixer_norms = (has_attention || recurrent) ? w.norms_per_mixer : 0U;
  for (std::uint64_t i = 0; i < mixer_norms; ++i) {
    norm(weight_part::norms, hidden);
  }

  if (attention_kind == layer_kind::latent) {
    const std::uint64_t heads = m.attention_heads;
    const std::uint64_t nope = m.latent.nope_head_dim;
    const std::uint64_t rope = m.latent.rope_head_dim;
    const std::uint64_t vd = m.latent.v_head_dim;
    const std::uint64_t kvl = m.latent.kv_lora_rank;
    const std::uint64_t ql = w.q_lora_rank;
    if (ql != 0) {
      emit(weight_part::attention, tensor_role::attn_q_a, ql, hidden);
      vec(weight_part::norms, tensor_role::norm, ql);
      emit(weight_part::attention, tensor_role::attn_q_b, checked_mul(heads, nope + rope), ql);
    } else {
      emit(weight_part::attention, tensor_role::attn_q, checked_mul(heads, nope + rope), hidden);
    }
    emit(weight_part::attention, tensor_role::attn_kv_a, kvl + rope, hidden);
    vec(weight_part::norms, tensor_role::norm, kvl);
    emit(weight_part::attention, tensor_role::attn_kv_b, checked_mul(heads, nope + vd), kvl);
    emit(weight_part::attention, tensor_role::attn_output, hidden, checked_mul(heads, vd));
    if (w.o_bias) {
      vec(weight_part::attention, tensor_role::vector, hidden);
    }
  } else if (has_attention) {
    const std::uint64_t heads = m.attention_heads;
    const std::uint64_t kv = kv_heads;
    const std::uint64_t hd = effective_head_dim(m);
    const std::uint64_t hdv = effective_head_dim_v(m);
    const std::uint64_t q_rows = checked_mul(checked_mul(heads, hd), w.output_gate ? 2U : 1U);
    const std::uint64_t k_rows = checked_mul(kv, hd);
    const std::uint64_t v_rows = checked_mul(kv, hdv);
    if (w.fused_qkv) {
      emit(weight_part::attention, tensor_role::attn_qkv, checked_add(q_rows, checked_add(k_rows, v_rows)), hidden);
    } else {
      emit(weight_part::attention, tensor_role::attn_q, q_rows, hidden);
      emit(weight_part::attention, tensor_role::attn_k, k_rows, hidden);
      emit(weight_part::attention, tensor_role::attn_v, v_rows, hidden);
    }
    if (m.qkv_bias) {
      vec(weight_part::attention, tensor_role::vector, checked_add(q_rows, checked_add(k_rows, v_rows)));
    }
    emit(weight_part::attention, tensor_role::attn_output, hidden, checked_mul(heads, hdv));
    if (w.o_bias) {
      vec(weight_part::attention, tensor_role::vector, hidden);
    }
    if (w.attention_sinks) {
      vec(weight_part::attention, tensor_role::vector, heads);
    }
    if (w.qk_norm == qk_norm_kind::head) {
      vec(weight_part::norms, tensor_role::norm, hd);
      vec(weight_part::norms, tensor_role::norm, hd);
    } else if (w.qk_norm == qk_norm_kind::full) {
      vec(weight_part::norms, tensor_role::norm, checked_mul(heads, hd));
      vec(weight_part::norms, tensor_role::norm, k_rows);
    }
  }

  if (recurrent) {
    const recurrent_shape& r = w.recurrent;
    const std::uint64_t heads = r.heads;
    const std::uint64_t k = r.conv_kernel;
    if (r.kind == recurrent_kind::mamba2) {
      // HF NemotronHMamba2Mixer / Mamba2Mixer: in_proj → [z, x, B, C, dt], conv1d over [x, B, C],
      // dt_bias, A_log, D (one per head), a gated RMSNorm over d_inner, out_proj.
      const std::uint64_t d_inner = checked_mul(heads, r.head_dim);
      const std::uint64_t bc = checked_mul(checked_mul(2, r.groups), r.state_dim);
      const std::uint64_t conv = checked_add(d_inner, bc);
      emit(weight_part::recurrent, tensor_role::ssm_in, checked_add(checked_add(checked_mul(2, d_inner), bc), heads), hidden);
      if (r.proj_bias) {
        vec(weight_part::recurrent, tensor_role::vector, checked_add(checked_add(checked_mul(2, d_inner), bc), heads));
      }
      emit(weight_part::recurrent, tensor_role::ssm_conv, conv, k);
      if (r.conv_bias) {
        vec(weight_part::recurrent, tensor_role::vector, conv);
      }
      vec(weight_part::recurrent, tensor_role::vector, checked_mul(3, heads));
      vec(weight_part::recurrent, tensor_role::norm, d_inner);
      emit(weight_part::recurrent, tensor_role::ssm_out, hidden, d_inner);
      if (r.proj_bias) {
        vec(weight_part::recurrent, tensor_role::vector, hidden);
      }
    } else if (r.kind == recurrent_kind::mamba1) {
      // HF JambaMambaMixer: in_proj → [x, z] (2 × d_inner), a depthwise conv1d over x, x_proj →
      // [dt (dt_rank), B, C (d_state each)], dt_proj (with bias) back to d_inner, A_log (d_inner ×
      // d_state), D (d_inner), RMSNorms on dt, B and C, out_proj.
      const std::uint64_t d_inner = r.head_dim;
      const std::uint64_t d_state = r.state_dim;
      const std::uint64_t dt_rank = r.dt_rank;
      emit(weight_part::recurrent, tensor_role::ssm_in, checked_mul(2, d_inner), hidden);
      if (r.proj_bias) {
        vec(weight_part::recurrent, tensor_role::vector, checked_mul(2, d_inner));
      }
      emit(weight_part::recurrent, tensor_role::ssm_conv, d_inner, k);
      if (r.conv_bias) {
        vec(weight_part::recurrent, tensor_role::vector, d_inner);
      }
      emit(weight_part::recurrent, tensor_role::ssm_x, checked_add(dt_rank, checked_mul(2, d_state)), d_inner);
      emit(weight_part::recurrent, tensor_role::ssm_dt, d_inner, dt_rank);
      vec(weight_part::recurrent, tensor_role::vector, d_inner);                      // dt_proj bias
      vec(weight_part::recurrent, tensor_role::vector, checked_mul(d_inner, d_state));  // A_log
      vec(weight_part::recurrent, tensor_role::vector, d_inner);                      // D
      vec(weight_part::recurrent, tensor_role::norm, checked_add(dt_rank, checked_mul(2, d_state)));
      emit(weight_part::recurrent, tensor_role::ssm_out, hidden, d_inner);
      if (r.proj_bias) {
        vec(weight_part::recurrent, tensor_role::vector, hidden);
      }
    } else if (r.kind == recurrent_kind::gated_delta) {
      // HF Qwen3NextGatedDeltaNet: in_proj_qkvz (2·key + 2·value), in_proj_ba (2 × value heads),
      // conv1d over [q, k, v], dt_bias and A_log per value head, a gated RMSNorm of one value head, out_proj.
      const std::uint64_t key = checked_mul(r.groups, r.state_dim);
      const std::uint64_t value = checked_mul(heads, r.head_dim);
      const std::uint64_t conv = checked_add(checked_mul(2, key), value);
      emit(weight_part::recurrent, tensor_role::ssm_in, checked_add(checked_mul(2, key), checked_mul(2, value)), hidden);
      emit(weight_part::recurrent, tensor_role::ssm_in, checked_mul(2, heads), hidden);
      emit(weight_part::recurrent, tensor_role::ssm_conv, conv, k);
      if (r.conv_bias) {
        vec(weight_part::recurrent, tensor_role::vector, conv);
      }
      vec(weight_part::recurrent, tensor_role::vector, checked_mul(2, heads));
      vec(weight_part::recurrent, tensor_role::norm, r.head_dim);
      emit(weight_part::recurrent, tensor_role::ssm_out, hidden, value);
    }
  }

  const auto mlp = [&](weight_part part, std::uint64_t width, std::uint64_t copies, bool bias) {
    if (m.gated_mlp) {
      if (w.fused_gate_up) {
        emit(part, tensor_role::ffn_gate_up, checked_mul(2, width), hidden, copies);
      } else {
        emit(part, tensor_role::ffn_gate, width, hidden, copies);
        emit(part, tensor_role::ffn_up, width, hidden, copies);
      }
    } else {
      emit(part, tensor_role::ffn_up, width, hidden, copies);
    }
    emit(part, tensor_role::ffn_down, hidden, width, copies);
    if (bias) {
      vec(part, tensor_role::vector, m.gated_mlp ? checked_mul(2, width) : width, copies);
      vec(part, tensor_role::vector, hidden, copies);
    }
  };
  if (ffn != ffn_kind::none) {
    for (std::uint64_t i = 0; i < w.norms_per_ffn; ++i) {
      norm(weight_part::norms, hidden);
    }
  }
  if (ffn == ffn_kind::dense) {
    mlp(weight_part::mlp, ffn_width, 1, w.mlp_bias);
  } else if (ffn == ffn_kind::moe) {
    const moe_shape& e = w.moe;
    const std::uint64_t width = e.expert_width != 0 ? e.expert_width : m.intermediate_size;
    mlp(weight_part::experts_routed, width, e.experts, e.expert_bias);
    emit(weight_part::router, tensor_role::router, e.experts, hidden);
    if (e.router_bias) {
      vec(weight_part::router, tensor_role::vector, e.experts);
    }
    if (e.score_correction_bias) {
      vec(weight_part::router, tensor_role::correction_bias, e.experts);
    }
    if (e.shared_width != 0) {
      mlp(weight_part::experts_shared, e.shared_width, 1, false);
      if (e.shared_gate) {
        emit(weight_part::router, tensor_role::shared_expert_gate, 1, hidden);
      }
    }
  }
}

}  // namespace detail

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
  layer_kind main_attention = layer_kind::none;
  const std::uint32_t layers = m.layers < max_layers ? m.layers : max_layers;
  for (std::uint32_t il = 0; il < layers; ++il) {
    const layer_kind k = kind_of_layer(m, il);
    if (main_attention == layer_kind::none && k != layer_kind::none && k != layer_kind::shared) {
      main_attention = k == layer_kind::latent ? layer_kind::latent : layer_kind::full;
    }
    const ffn_kind ffn = ffn_of_layer(m, il);
    detail::emit_layer(m, il, k, layer_keeps_state(m, il), kv_heads_of_layer(m, il), ffn, ffn_width_of_layer(m, il),
                       false, f);
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
    const std::uint32_t il = layers + j;
    const layer_kind k = main_attention == layer_kind::none ? layer_kind::full : main_attention;
    const ffn_kind ffn = w.moe.experts != 0 ? ffn_kind::moe : ffn_kind::dense;
    detail::emit_layer(m, il, k, false, effective_kv_heads(m), ffn, m.intermediate_size, true, f);
    // DeepSeek-V3 enorm, hnorm, shared_head.norm (Qwen3-Next: pre_fc_norm_embedding, pre_fc_norm_hidden, norm).
    for (int i = 0; i < 3; ++i) {
      f(weight_tensor{weight_part::mtp, tensor_role::norm, il, 1, hidden, 1});
      if (w.norm == norm_kind::layer_norm) {
        f(weight_tensor{weight_part::mtp, tensor_role::norm, il, 1, hidden, 1});
      }
    }
    f(weight_tensor{weight_part::mtp, tensor_role::mtp_projection, il, hidden, detail::checked_mul(2, hidden), 1});
    if (w.mtp_embeddings) {
      f(weight_tensor{weight_part::mtp_embeddings, tensor_role::token_embedding, il, vocab, hidden, 1});
      f(weight_tensor{weight_part::mtp_embeddings, tensor_role::output, il, vocab, hidden, 1});
    }
  }
  if (w.vision != 0) {
    f(weight_tensor{weight_part::vision, tensor_role::vision, no_layer, 1, w.vision, 1});
  }
}

// ---------------------------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------------------------

/// Parameters by term. total = embeddings + lm_head + attention + mlp + experts_routed +
/// experts_shared + router + norms + recurrent; mtp, mtp_embeddings and vision are not in it.
struct parameter_breakdown {
  std::uint64_t embeddings = 0;
  std::uint64_t lm_head = 0;  ///< 0 when tied
  std::uint64_t attention = 0;
  std::uint64_t mlp = 0;
  std::uint64_t experts_routed = 0;
  std::uint64_t experts_shared = 0;
  std::uint64_t router = 0;
  std::uint64_t norms = 0;
  std::uint64_t recurrent = 0;
  std::uint64_t mtp = 0;             ///< MTP modules, without their embedding/head copies
  std::uint64_t mtp_embeddings = 0;  ///< the embedding and head copies stored with the MTP modules
  std::uint64_t vision = 0;          ///< vision tower + projector; has_vision says it is separate
  std::uint64_t total = 0;           ///< the language model's module parameters
  std::uint64_t active = 0;          ///< per token: total minus the routed experts outside the top-k
  std::uint64_t with_extras = 0;     ///< total + mtp + mtp_embeddings + vision: what the checkpoint holds
  bool has_vision = false;           ///< a vision tower is counted (in `vision`, never in `total`)
  friend constexpr auto operator==(const parameter_breakdown&, const parameter_breakdown&) -> bool = default;
};

/// Every parameter of `m`, by term.
/// Qwen2.5-1.5B: 1,543,714,304; Llama-3-8B: 8,030,261,248; DeepSeek-R1: 671,026,419,200.
[[nodiscard]] constexpr auto parameters(const model_spec& m) -> parameter_breakdown {
  using detail::checked_add;
  using detail::checked_mul;
  parameter_breakdown p;
  std::uint64_t inactive = 0;
  const std::uint64_t experts = m.weights.moe.experts;
  const std::uint64_t top_k = m.weights.moe.experts_per_token == 0 || m.weights.moe.experts_per_token > experts
                                  ? experts
                                  : m.weights.moe.experts_per_token;
  for_each_weight(m, [&](const weight_tensor& t) {
    const std::uint64_t n = t.elements();
    std::uint64_t* term = nullptr;
    switch (t.part) {
      case weight_part::embeddings: term = &p.embeddings; break;
      case weight_part::lm_head: term = &p.lm_head; break;
      case weight_part::attention: term = &p.attention; break;
      case weight_part::mlp: term = &p.mlp; break;
      case weight_part::experts_routed: term = &p.experts_routed; break;
      case weight_part::experts_shared: term = &p.experts_shared; break;
      case weight_part::router: term = &p.router; break;
      case weight_part::norms: term = &p.norms; break;
      case weight_part::recurrent: term = &p.recurrent; break;
      case weight_part::mtp: term = &p.mtp; break;
      case weight_part::mtp_embeddings: term = &p.mtp_embeddings; break;
      case weight_part::vision: term = &p.vision; break;
    }
    *term = checked_add(*term, n);
    if (t.part == weight_part::experts_routed && t.copies == experts && experts != 0) {
      inactive = checked_add(inactive, checked_mul(checked_mul(t.rows, t.cols), experts - top_k));
    }
  });
  for (const std::uint64_t term : {p.embeddings, p.lm_head, p.attention, p.mlp, p.experts_routed, p.experts_shared,
                                   p.router, p.norms, p.recurrent}) {
    p.total = checked_add(p.total, term);
  }
  p.active = p.total - inactive;
  p.with_extras = checked_add(checked_add(p.total, p.mtp), checked_add(p.mtp_embeddings, p.vision));
  p.has_vision = p.vision != 0;
  return p;
}

// ---------------------------------------------------------------------------------------------
// Weight formats
// ---------------------------------------------------------------------------------------------

// ggml_type (the GGML tensor types) and its sizes are rows of dtype.hpp's element-type table.

/// llama.cpp's quantization presets (llama-quantize's ftype): a base type plus per-tensor rules.
enum class gguf_ftype : std::uint8_t {
  f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1, iq4_nl, q2_K, q3_K_S, q3_K_M, q3_K_L, q4_K_S, q4_K_M, q5_K_S, q5_K_M, q6_K,
};
inline constexpr std::array<std::string_view, 18> gguf_ftype_names{
    "f32",  "f16",    "bf16",   "q8_0",   "q4_0",   "q4_1",   "q5_0",   "q5_1",   "iq4_nl",
    "q2_K", "q3_K_S", "q3_K_M", "q3_K_L", "q4_K_S", "q4_K_M", "q5_K_S", "q5_K_M", "q6_K"};

[[nodiscard]] constexpr auto name(gguf_ftype t) -> std::string_view {
  return gguf_ftype_names[static_cast<std::uint8_t>(t)];
}

/// The type most tensors of a preset get (llama-quant.cpp: default_type).
[[nodiscard]] constexpr auto base_type(gguf_ftype t) -> ggml_type {
  switch (t) {
    case gguf_ftype::f32: return ggml_type::f32;
    case gguf_ftype::f16: return ggml_type::f16;
    case gguf_ftype::bf16: return ggml_type::bf16;
    case gguf_ftype::q8_0: return ggml_type::q8_0;
    case gguf_ftype::q4_0: return ggml_type::q4_0;
    case gguf_ftype::q4_1: return ggml_type::q4_1;
    case gguf_ftype::q5_0: return ggml_type::q5_0;
    case gguf_ftype::q5_1: return ggml_type::q5_1;
    case gguf_ftype::iq4_nl: return ggml_type::iq4_nl;
    case gguf_ftype::q2_K: return ggml_type::q2_K;
    case gguf_ftype::q3_K_S:
    case gguf_ftype::q3_K_M:
    case gguf_ftype::q3_K_L: return ggml_type::q3_K;
    case gguf_ftype::q4_K_S:
    case gguf_ftype::q4_K_M: return ggml_type::q4_K;
    case gguf_ftype::q5_K_S:
    case gguf_ftype::q5_K_M: return ggml_type::q5_K;
    case gguf_ftype::q6_K: return ggml_type::q6_K;
  }
  return ggml_type::f16;
}

/// How weights are stored.
enum class weights_scheme : std::uint8_t {
  uniform,   ///< every tensor in `type` (the old weights_bytes(parameters, dtype))
  gguf,      ///< llama.cpp preset `gguf` with its per-tensor rules
  gptq,      ///< GPTQ: qweight, qzeros (int32-packed), f16 scales per group, int32 g_idx
  awq,       ///< AWQ GEMM: qweight, qzeros (int32-packed), f16 scales per group
  fp8,       ///< FP8 e4m3 weights with float32 scales per block_rows × block_cols block
  mxfp4,     ///< OCP MX FP4: routed experts as 4-bit + one E8M0 scale per 32 (gpt-oss)
  bnb_4bit,  ///< bitsandbytes NF4/FP4 (Linear4bit), absmax per bnb_block
  bnb_8bit,  ///< bitsandbytes LLM.int8 (Linear8bitLt): int8 + one float32 scale per row
};

/// A weights format and which tensors it leaves unquantized.
struct weights_format {
  weights_scheme scheme = weights_scheme::uniform;
  dtype type = dtype::bf16;                 ///< uniform: the type of every tensor
  gguf_ftype gguf = gguf_ftype::q8_0;       ///< gguf: the preset
  std::uint32_t bits = 4;                   ///< gptq, awq
  std::uint32_t group_size = 128;           ///< gptq, awq: input features per scale; 0: one group (group_size -1)
  std::uint32_t block_rows = 128;           ///< fp8: output features per scale; 0: all (per-tensor / per-channel)
  std::uint32_t block_cols = 128;           ///< fp8: input features per scale; 0: all
  std::uint32_t bnb_block = 64;             ///< bnb_4bit: elements per absmax (bnb blocksize)
  bool double_quant = false;                ///< bnb_4bit: bnb_4bit_use_double_quant
  /// Tensors the scheme leaves unquantized are in `unquantized`, or in the model's compute
  /// dtype if unset (a GPTQ/AWQ checkpoint's config says float16 for them).
  std::optional<dtype> unquantized{};
  /// Parts left unquantized on top of the scheme's rule (quantization_config.modules_to_not_convert).
  std::uint16_t unquantized_parts = 0;
  bool include_mtp = false;    ///< count the MTP modules (and their copies): a checkpoint's bytes, or speculative decoding
  bool include_vision = true;  ///< count the vision tower (a GGUF keeps it in a separate mmproj file; counted at f16)
  friend constexpr auto operator==(const weights_format&, const weights_format&) -> bool = default;
};

[[nodiscard]] constexpr auto uniform_weights(dtype t) -> weights_format {
  weights_format f;
  f.type = t;
  return f;
}
[[nodiscard]] constexpr auto gguf_weights(gguf_ftype t) -> weights_format {
  weights_format f;
  f.scheme = weights_scheme::gguf;
  f.gguf = t;
  return f;
}
/// GPTQ with `bits` and `group_size` (0: one group per column, config group_size -1).
[[nodiscard]] constexpr auto gptq_weights(std::uint32_t bits, std::uint32_t group_size) -> weights_format {
  weights_format f;
  f.scheme = weights_scheme::gptq;
  f.bits = bits;
  f.group_size = group_size;
  return f;
}
[[nodiscard]] constexpr auto awq_weights(std::uint32_t bits, std::uint32_t group_size) -> weights_format {
  weights_format f = gptq_weights(bits, group_size);
  f.scheme = weights_scheme::awq;
  return f;
}
/// FP8 with one float32 scale per block_rows × block_cols (DeepSeek-V3: 128 × 128; 0 × 0 per tensor).
[[nodiscard]] constexpr auto fp8_weights(std::uint32_t block_rows = 128, std::uint32_t block_cols = 128) -> weights_format {
  weights_format f;
  f.scheme = weights_scheme::fp8;
  f.block_rows = block_rows;
  f.block_cols = block_cols;
  return f;
}
[[nodiscard]] constexpr auto mxfp4_weights() -> weights_format {
  weights_format f;
  f.scheme = weights_scheme::mxfp4;
  return f;
}
[[nodiscard]] constexpr auto bnb_4bit_weights(bool double_quant = false) -> weights_format {
  weights_format f;
  f.scheme = weights_scheme::bnb_4bit;
  f.double_quant = double_quant;
  return f;
}
[[nodiscard]] constexpr auto bnb_8bit_weights() -> weights_format {
  weights_format f;
  f.scheme = weights_scheme::bnb_8bit;
  return f;
}

/// ASCII case-insensitive: a llama.cpp preset name ("q4_K_M", "Q8_0", "f16").
[[nodiscard]] constexpr auto parse_gguf_ftype(std::string_view text) -> std::optional<gguf_ftype> {
  const auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; };
  for (std::size_t i = 0; i < gguf_ftype_names.size(); ++i) {
    const std::string_view n = gguf_ftype_names[i];
    bool equal = n.size() == text.size();
    for (std::size_t j = 0; equal && j < n.size(); ++j) {
      equal = lower(n[j]) == lower(text[j]);
    }
    if (equal) {
      return static_cast<gguf_ftype>(i);
    }
  }
  return std::nullopt;
}

/// A --weights-dtype choice: a llama.cpp preset (q8_0, q4_0, q4_K_M, ...: GGUF layout with its
/// float32 norms and per-tensor rules), else an element type for every tensor (bf16, fp8, int4).
[[nodiscard]] constexpr auto parse_weights_format(std::string_view text) -> std::optional<weights_format> {
  if (const auto g = parse_gguf_ftype(text); g && *g != gguf_ftype::f32 && *g != gguf_ftype::f16 && *g != gguf_ftype::bf16) {
    return gguf_weights(*g);
  }
  if (const auto t = parse_dtype(text)) {
    return uniform_weights(*t);
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Bytes
// ---------------------------------------------------------------------------------------------

/// Weight bytes, split by what they are.
struct weights_bytes_breakdown {
  bytes quantized{0};    ///< quantized values (packed)
  bytes scales{0};       ///< scales, zeros, absmax, g_idx of quantized tensors
  bytes unquantized{0};  ///< tensors the scheme leaves in a float type
  bytes total{0};
  friend constexpr auto operator==(const weights_bytes_breakdown&, const weights_bytes_breakdown&) -> bool = default;
};

namespace detail {

[[nodiscard]] constexpr auto ggml_bytes(ggml_type t, std::uint64_t rows, std::uint64_t cols) -> std::uint64_t {
  const auto& tr = traits(t);
  return checked_mul(checked_mul(ceil_div(cols, tr.block_elements), tr.block_bytes), rows);
}

[[nodiscard]] constexpr auto is_k_type(ggml_type t) -> bool {
  return t == ggml_type::q2_K || t == ggml_type::q3_K || t == ggml_type::q4_K || t == ggml_type::q5_K ||
         t == ggml_type::q6_K;
}

// The rules below follow llama.cpp src/llama-quant.cpp at ggml-org/llama.cpp@8784689fee07
// (llama_tensor_get_type, llama_model_quantize_impl), checked line by line; the table, and what
// is not modelled, is in docs/research/gguf-rules.md. "llama-quant.cpp@8784689" below means that file.

/// llama.cpp use_more_bits (llama-quant.cpp@8784689, the lambda in llama_tensor_get_type): the first
/// and last eighth of the layers, and every third layer in between.
[[nodiscard]] constexpr auto use_more_bits(std::uint64_t i, std::uint64_t n) -> bool {
  return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

/// What llama.cpp's counters and model facts are while quantizing (quantize_state_impl).
struct gguf_state {
  std::uint64_t n_attention_wv = 0;  ///< attn_v + attn_qkv + attn_kv_b tensors in the file
  std::uint64_t i_attention_wv = 0;  ///< attn_v tensors seen so far (attn_qkv does not advance it)
  std::uint64_t i_ffn_down = 0;      ///< ffn_down* tensors seen so far: the layer index of a model without experts
  std::uint64_t n_layer = 0;         ///< hparams.n_layer (blocks in the file, MTP blocks included)
  std::uint64_t n_expert = 0;
  std::uint64_t n_gqa = 1;
  bool is_70b = false;
};

/// The GGML type llama.cpp gives a 2-D weight under preset `ft` (llama_tensor_get_type).
/// Tensors arrive in llama.cpp's order (llama_model_loader's weight_name_comparer: by block index,
/// model-wide tensors first), which is for_each_weight's layer order, so the counters agree.
[[nodiscard]] constexpr auto gguf_matrix_type(const weight_tensor& t, gguf_ftype ft, bool tied, gguf_state& s)
    -> ggml_type {
  using enum gguf_ftype;
  const ggml_type base = base_type(ft);
  if (ft == f32 || ft == f16 || ft == bf16) {
    return base;
  }
  ggml_type type = base;
  // output.weight, or token_embd.weight when the file has no output.weight (a tied head). Only the
  // model-wide tensors have those names: an MTP block's embedding/head copies are
  // blk.N.nextn.embed_tokens / shared_head_head and take the base type (llama-quant.cpp@8784689:
  // `name == tn(LLM_TENSOR_OUTPUT, "weight") || (!qs.has_output && name == ...TOKEN_EMBD...)`).
  const bool model_wide = t.layer == no_layer;
  const bool output = model_wide && (t.role == tensor_role::output || (tied && t.role == tensor_role::token_embedding));
  if (output) {
    // llama-quant.cpp@8784689: q8_0 if the row is not a whole number of the base type's blocks, else
    // q6_K unless the base is q8_0. For a 32-element base type and a row that is a multiple of 32
    // but not of 256 llama.cpp picks q6_K and its fallback turns that into q8_0: the same result.
    // (Falcon always gets q8_0 there; kvsize has no architecture to tell Falcon apart.)
    if (t.cols % 256 != 0) {
      type = ggml_type::q8_0;
    } else if (type != ggml_type::q8_0) {
      type = ggml_type::q6_K;
    }
  } else if (t.role == tensor_role::token_embedding) {
    // llama-quant.cpp@8784689: token_embd changes only under the IQ1/IQ2/IQ3_XXS/TQ presets, which
    // kvsize does not offer: the base type.
  } else if (t.role == tensor_role::attn_v) {
    // llama-quant.cpp@8784689, the `attn_v.weight` branch, in its order.
    if (ft == q2_K) {
      type = s.n_gqa >= 4 ? ggml_type::q4_K : ggml_type::q3_K;
    } else if (ft == q3_K_M) {
      type = s.i_attention_wv < 2 ? ggml_type::q5_K : ggml_type::q4_K;
    } else if (ft == q3_K_L) {
      type = ggml_type::q5_K;
    } else if (ft == iq4_nl && s.n_gqa >= 4) {
      type = ggml_type::q5_K;
    } else if ((ft == q4_K_M || ft == q5_K_M) && use_more_bits(s.i_attention_wv, s.n_attention_wv)) {
      type = ggml_type::q6_K;
    } else if (ft == q4_K_S && s.i_attention_wv < 4) {
      type = ggml_type::q5_K;
    }
    if (s.is_70b && (type == ggml_type::q3_K || type == ggml_type::q4_K)) {
      type = ggml_type::q5_K;  // LLM_TYPE_70B
    }
    if (s.n_expert == 8) {
      type = ggml_type::q8_0;
    }
    ++s.i_attention_wv;
  } else if (t.role == tensor_role::attn_k) {
    // llama-quant.cpp@8784689, the `attn_k.weight` branch: q8_0 in 8-expert models under every
    // preset kvsize offers (its other cases are IQ3 presets).
    if (s.n_expert == 8) {
      type = ggml_type::q8_0;
    }
  } else if (t.role == tensor_role::ffn_down) {
    // llama-quant.cpp@8784689 layer_info: with experts (n_expert > 1) the layer is the block index
    // in the tensor's name; without, it is the count of ffn_down tensors seen so far, so a model
    // whose FFN skips layers (Nemotron-H, DeciLM no-op FFNs) numbers its FFNs 0, 1, 2, ... against
    // n = hparams.n_layer, every block counted.
    const std::uint64_t i = s.n_expert > 1 ? t.layer : s.i_ffn_down;
    const std::uint64_t n = s.n_layer;
    ++s.i_ffn_down;
    if (ft == q2_K) {
      type = ggml_type::q3_K;
    } else if (ft == q3_K_M) {
      type = i < n / 16 ? ggml_type::q5_K : ggml_type::q4_K;  // Falcon: q3_K outside use_more_bits
    } else if (ft == q3_K_L) {
      type = ggml_type::q5_K;  // Falcon: q4_K
    } else if (ft == q4_K_M) {
      if (use_more_bits(i, n)) {
        type = ggml_type::q6_K;  // Falcon: q6_K on i < n/16, q5_K on use_more_bits
      }
    } else if (i < n / 8 && ft == iq4_nl) {
      type = ggml_type::q5_K;  // without an imatrix
    } else if (ft == q5_K_M && use_more_bits(i, n)) {
      type = ggml_type::q6_K;
    } else if (ft == q4_K_S && i < n / 8) {
      type = ggml_type::q5_K;  // not Falcon
    }
    // (q4_0/q5_0 with an imatrix give the first eighth q4_1/q5_1; kvsize assumes no imatrix.)
  } else if (t.role == tensor_role::attn_output) {
    // llama-quant.cpp@8784689, the `attn_output.weight` branch (not Falcon).
    if (s.n_expert == 8) {
      if (ft == q2_K || ft == q3_K_S || ft == q3_K_M || ft == iq4_nl || ft == q4_K_S || ft == q4_K_M) {
        type = ggml_type::q5_K;
      }
    } else if (ft == q2_K) {
      type = ggml_type::q3_K;
    } else if (ft == q3_K_M) {
      type = ggml_type::q4_K;
    } else if (ft == q3_K_L) {
      type = ggml_type::q5_K;
    }
  } else if (t.role == tensor_role::attn_qkv) {
    // llama-quant.cpp@8784689, the `attn_qkv.weight` branch; it does not advance i_attention_wv.
    if (ft == q3_K_M || ft == q3_K_L) {
      type = ggml_type::q4_K;
    } else if (ft == q4_K_M) {
      type = ggml_type::q5_K;
    } else if (ft == q5_K_M) {
      type = ggml_type::q6_K;
    }
  }
  // llama-quant.cpp@8784689 convert_incompatible_tensor: a row (ne[0]) that is not a whole number
  // of the chosen type's blocks falls back: q2_K, q3_K → iq4_nl; q4_K → q5_0; q5_K → q5_1;
  // q6_K → q8_0; then f16 if the row does not divide into 32 either. (llama.cpp refuses a
  // 32-element type on such a row; kvsize counts it as f16.)
  if (is_k_type(type) && t.cols % 256 != 0) {
    switch (type) {
      case ggml_type::q2_K:
      case ggml_type::q3_K: type = ggml_type::iq4_nl; break;
      case ggml_type::q4_K: type = ggml_type::q5_0; break;
      case ggml_type::q5_K: type = ggml_type::q5_1; break;
      default: type = ggml_type::q8_0; break;
    }
  }
  if (t.cols % traits(type).block_elements != 0) {
    type = ggml_type::f16;
  }
  return type;
}

}  // namespace detail

/// Bytes of the weights of `m` in format `f`, split into quantized values, scales and
/// unquantized tensors. What each scheme quantizes, and how (sources in docs of each case):
///
///  uniform   every tensor in f.type, whole blocks per tensor.
///  gguf      llama.cpp (src/llama-quant.cpp llama_model_quantize_impl / llama_tensor_get_type at
///            ggml-org/llama.cpp@8784689; convert_hf_to_gguf.py; table and gaps in
///            docs/research/gguf-rules.md): 1-D tensors (norms, biases, sinks, SSM vectors), routers
///            (ffn_gate_inp), position embeddings and SSM conv1d stay float32; every other matrix
///            gets the preset's type with these rules: the LM head (or the tied token embedding)
///            q6_K (q8_0 if its rows are not a multiple of 256, q8_0 under q8_0); attn_v: q4_K_M
///            and q5_K_M q6_K on use_more_bits layers (i < n/8, i >= 7n/8, (i − n/8) % 3 == 2),
///            q4_K_S q5_K on the first 4, q3_K_M q5_K on the first 2 then q4_K, q3_K_L q5_K,
///            q2_K q4_K if heads/kv_heads >= 4 else q3_K, iq4_nl q5_K if heads/kv_heads >= 4;
///            80-layer models (LLM_TYPE_70B) q5_K for a q3_K/q4_K attn_v; 8-expert models q8_0
///            for attn_v and attn_k; ffn_down (dense, expert, shared; i = the block index with
///            experts, else the count of FFNs so far): q4_K_M and q5_K_M q6_K on use_more_bits
///            layers, q4_K_S and iq4_nl q5_K on i < n/8, q3_K_M q5_K on i < n/16 then q4_K, q3_K_L
///            q5_K, q2_K q3_K; attn_output: q2_K q3_K, q3_K_M q4_K, q3_K_L q5_K (8 experts: q5_K for
///            q2_K..q4_K_M); fused attn_qkv: q4_K_M q5_K, q5_K_M q6_K, q3_K_M/L q4_K. A K-type on
///            rows not a multiple of 256 falls back to iq4_nl (q2_K, q3_K), q5_0 (q4_K), q5_1
///            (q5_K), q8_0 (q6_K); a row no type divides is f16. Not modelled: imatrix-dependent
///            rules, Falcon's own rules, the IQ presets, DeepSeek's attn_kv_b split into k_b/v_b.
///  gptq      every Linear weight inside the decoder blocks (attention, MLP, experts, shared
///            experts, Mamba in/out projections): AutoGPTQ/GPTQModel QuantLinear buffers qweight
///            int32 [in·bits/32, out], qzeros int32 [groups, out·bits/32], scales f16 [groups, out],
///            g_idx int32 [in], groups = ceil(in / group_size). Embeddings, LM head, norms, biases,
///            routers, conv1d stay unquantized (AutoGPTQ inside_layer_modules; lm_head off by default).
///  awq       the same tensors; AutoAWQ WQLinear_GEMM: qweight int32 [in, out·bits/32], qzeros
///            int32 [groups, out·bits/32], scales f16 [groups, out]; no g_idx.
///  fp8       the same tensors in e4m3 (1 B) with float32 weight_scale_inv
///            [ceil(out/block_rows), ceil(in/block_cols)] (DeepSeek-V3 quantization_config
///            weight_block_size [128, 128]); routers, the MTP eh_proj, embeddings, head and norms
///            stay bf16: checked against DeepSeek-V3's published safetensors totals per dtype.
///  mxfp4     routed experts only (gpt-oss modules_to_not_convert: self_attn, router, embed_tokens,
///            lm_head): 16 B of 4-bit values + 1 B E8M0 scale per 32 input features (*_blocks,
///            *_scales tensors); expert biases and everything else unquantized.
///  bnb_4bit  every Linear weight in the decoder blocks, routers included (transformers replaces
///            each nn.Linear but lm_head): packed 4-bit ceil(n/2) B, absmax float32 per bnb_block
///            (double_quant: uint8 per block + float32 per 256 blocks + a 256-entry float32 code
///            + offset), a 16-entry float32 quant map per tensor. In memory; a file adds a small
///            JSON blob per tensor.
///  bnb_8bit  the same Linear weights as int8 plus one float32 scale (SCB) per output row.
///
/// Everywhere but `uniform`, e_score_correction_bias is float32 (a float32 buffer in the checkpoints).
[[nodiscard]] constexpr auto weights_bytes_detail(const model_spec& m, const weights_format& f) -> weights_bytes_breakdown {
  using detail::ceil_div;
  using detail::checked_add;
  using detail::checked_mul;
  const dtype rest = f.unquantized ? *f.unquantized : m.compute_dtype;
  std::uint64_t q = 0;
  std::uint64_t s = 0;
  std::uint64_t u = 0;
  detail::gguf_state g;
  if (f.scheme == weights_scheme::gguf) {
    // hparams.n_layer is the file's block count: a converter that keeps the MTP blocks counts them
    // (convert_hf_to_gguf.py Glm4MoeModel: num_hidden_layers + num_nextn_predict_layers); DeepSeek's
    // and Qwen3-Next's drop them, which is include_mtp = false.
    g.n_layer = m.layers + (f.include_mtp ? m.weights.mtp_layers : 0U);
    g.n_expert = m.weights.moe.experts;
    g.n_gqa = effective_kv_heads(m) != 0 ? m.attention_heads / effective_kv_heads(m) : 1;
    // LLM_TYPE_70B (llama-model.cpp): 80 blocks for Llama (with GQA; 65B without), Qwen2, DeciLM,
    // OLMoE. kvsize has no architecture, so every 80-layer model counts (Falcon-180B would not).
    g.is_70b = m.layers == 80;
    for_each_weight(m, [&](const weight_tensor& t) {
      if ((t.part == weight_part::mtp || t.part == weight_part::mtp_embeddings) && !f.include_mtp) {
        return;
      }
      if (t.role == tensor_role::attn_v || t.role == tensor_role::attn_qkv || t.role == tensor_role::attn_kv_b) {
        ++g.n_attention_wv;
      }
    });
  }
  const auto add_rest = [&](const weight_tensor& t, dtype type) {
    u = checked_add(u, checked_mul(storage_bytes(type, checked_mul(t.rows, t.cols)).count(), t.copies));
  };
  for_each_weight(m, [&](const weight_tensor& t) {
    if ((t.part == weight_part::mtp || t.part == weight_part::mtp_embeddings) && !f.include_mtp) {
      return;
    }
    if (t.part == weight_part::vision && !f.include_vision) {
      return;
    }
    if (f.scheme == weights_scheme::uniform) {
      add_rest(t, f.type);
      return;
    }
    if (t.role == tensor_role::correction_bias) {
      add_rest(t, dtype::f32);
      return;
    }
    const bool kept = (f.unquantized_parts & part_bit(t.part)) != 0;
    const std::uint64_t rows = t.rows;
    const std::uint64_t cols = t.cols;
    const std::uint64_t n = checked_mul(rows, cols);
    switch (f.scheme) {
      case weights_scheme::uniform: break;
      case weights_scheme::gguf: {
        if (t.role == tensor_role::vision) {
          add_rest(t, dtype::f16);
          return;
        }
        const bool stays_f32 = t.is_vector() || t.role == tensor_role::router || t.role == tensor_role::shared_expert_gate ||
                               t.role == tensor_role::position_embedding || t.role == tensor_role::ssm_conv;
        if (stays_f32 || kept) {
          add_rest(t, kept && !stays_f32 ? rest : dtype::f32);
          return;
        }
        const ggml_type type = detail::gguf_matrix_type(t, f.gguf, m.tied_embeddings, g);
        const std::uint64_t b = checked_mul(detail::ggml_bytes(type, rows, cols), t.copies);
        if (type == ggml_type::f32 || type == ggml_type::f16 || type == ggml_type::bf16) {
          u = checked_add(u, b);
        } else {
          q = checked_add(q, b);
        }
        return;
      }
      case weights_scheme::gptq:
      case weights_scheme::awq:
      case weights_scheme::fp8:
      case weights_scheme::bnb_8bit:
      case weights_scheme::bnb_4bit: {
        if (!t.is_block_linear() && !(f.scheme == weights_scheme::bnb_4bit || f.scheme == weights_scheme::bnb_8bit
                                          ? (t.role == tensor_role::router || t.role == tensor_role::shared_expert_gate)
                                          : false)) {
          add_rest(t, rest);
          return;
        }
        if (kept) {
          add_rest(t, rest);
          return;
        }
        std::uint64_t data = 0;
        std::uint64_t scale = 0;
        if (f.scheme == weights_scheme::gptq || f.scheme == weights_scheme::awq) {
          const std::uint64_t bits = f.bits;
          const std::uint64_t groups = f.group_size == 0 ? 1 : ceil_div(cols, f.group_size);
          data = f.scheme == weights_scheme::gptq ? checked_mul(checked_mul(ceil_div(checked_mul(cols, bits), 32), 4), rows)
                                                  : checked_mul(checked_mul(ceil_div(checked_mul(rows, bits), 32), 4), cols);
          scale = checked_mul(checked_mul(groups, ceil_div(checked_mul(rows, bits), 32)), 4);  // qzeros
          scale = checked_add(scale, checked_mul(checked_mul(groups, rows), 2));                // f16 scales
          if (f.scheme == weights_scheme::gptq) {
            scale = checked_add(scale, checked_mul(cols, 4));  // g_idx
          }
        } else if (f.scheme == weights_scheme::fp8) {
          data = n;
          const std::uint64_t br = f.block_rows == 0 ? rows : f.block_rows;
          const std::uint64_t bc = f.block_cols == 0 ? cols : f.block_cols;
          scale = checked_mul(checked_mul(ceil_div(rows, br), ceil_div(cols, bc)), 4);
        } else if (f.scheme == weights_scheme::bnb_8bit) {
          data = n;
          scale = checked_mul(rows, 4);
        } else {
          data = ceil_div(n, 2);
          const std::uint64_t blocks = ceil_div(n, f.bnb_block == 0 ? 64 : f.bnb_block);
          scale = f.double_quant ? checked_add(checked_add(blocks, checked_mul(ceil_div(blocks, 256), 4)), 256 * 4 + 4)
                                 : checked_mul(blocks, 4);
          scale = checked_add(scale, 16 * 4);  // the NF4/FP4 code
        }
        q = checked_add(q, checked_mul(data, t.copies));
        s = checked_add(s, checked_mul(scale, t.copies));
        return;
      }
      case weights_scheme::mxfp4: {
        if (t.part != weight_part::experts_routed || t.is_vector() || kept) {
          add_rest(t, rest);
          return;
        }
        const std::uint64_t blocks = checked_mul(ceil_div(cols, 32), rows);
        q = checked_add(q, checked_mul(checked_mul(blocks, 16), t.copies));
        s = checked_add(s, checked_mul(blocks, t.copies));
        return;
      }
    }
  });
  weights_bytes_breakdown b;
  b.quantized = bytes{q};
  b.scales = bytes{s};
  b.unquantized = bytes{u};
  b.total = b.quantized + b.scales + b.unquantized;
  return b;
}

/// Total weight bytes of `m` in format `f` (weights_bytes_detail(m, f).total).
[[nodiscard]] constexpr auto weights_bytes(const model_spec& m, const weights_format& f) -> bytes {
  return weights_bytes_detail(m, f).total;
}

}  // namespace kvsize
