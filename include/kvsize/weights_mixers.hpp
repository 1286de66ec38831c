// SPDX-License-Identifier: MIT
// The tensors of one recurrent mixer (model_spec::weights.recurrent), a step of for_each_weight
// (weights_enumeration.hpp): Mamba2, Mamba1, gated DeltaNet, Kimi Delta Attention, lightning attention,
// LFM2's short convolution.
// Part of <kvsize/weights.hpp>.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint64_t

#include "detail/checked.hpp"
#include "weights_emitter.hpp"

namespace kvsize::detail {

/// HF NemotronHMamba2Mixer / Mamba2Mixer: in_proj → [z, x, B, C, dt], conv1d over [x, B, C],
/// dt_bias, A_log, D (one per head), a gated RMSNorm over d_inner, out_proj.
template <class F>
constexpr void emit_mamba2(const layer_emitter<F>& e) {
  const recurrent_shape& r = e.m.weights.recurrent;
  const std::uint64_t hidden = e.m.hidden_size;
  const std::uint64_t heads = r.heads;
  const std::uint64_t d_inner = checked_mul(heads, r.head_dim);
  const std::uint64_t bc = checked_mul(checked_mul(2, r.groups), r.state_dim);
  const std::uint64_t conv = checked_add(d_inner, bc);
  const std::uint64_t in_rows = checked_add(checked_add(checked_mul(2, d_inner), bc), heads);
  e.matrix(weight_part::recurrent, tensor_role::ssm_in, in_rows, hidden);
  if (r.proj_bias) {
    e.vector(weight_part::recurrent, tensor_role::vector, in_rows);
  }
  e.matrix(weight_part::recurrent, tensor_role::ssm_conv, conv, r.conv_kernel);
  if (r.conv_bias) {
    e.vector(weight_part::recurrent, tensor_role::vector, conv);
  }
  e.vector(weight_part::recurrent, tensor_role::vector, checked_mul(3, heads));
  e.matrix_split(weight_part::recurrent, tensor_role::norm, 1, d_inner, 0);  // Mixer2RMSNormGated: split by head
  e.matrix(weight_part::recurrent, tensor_role::ssm_out, hidden, d_inner);
  if (r.proj_bias) {
    e.output_bias(weight_part::recurrent, hidden);
  }
}

/// HF JambaMambaMixer: in_proj → [x, z] (2 × d_inner), a depthwise conv1d over x, x_proj →
/// [dt (dt_rank), B, C (d_state each)], dt_proj (with bias) back to d_inner, A_log (d_inner ×
/// d_state), D (d_inner), RMSNorms on dt, B and C, out_proj.
template <class F>
constexpr void emit_mamba1(const layer_emitter<F>& e) {
  const recurrent_shape& r = e.m.weights.recurrent;
  const std::uint64_t hidden = e.m.hidden_size;
  const std::uint64_t d_inner = r.head_dim;
  const std::uint64_t d_state = r.state_dim;
  const std::uint64_t dt_rank = r.dt_rank;
  e.matrix(weight_part::recurrent, tensor_role::ssm_in, checked_mul(2, d_inner), hidden);
  if (r.proj_bias) {
    e.vector(weight_part::recurrent, tensor_role::vector, checked_mul(2, d_inner));
  }
  e.matrix(weight_part::recurrent, tensor_role::ssm_conv, d_inner, r.conv_kernel);
  if (r.conv_bias) {
    e.vector(weight_part::recurrent, tensor_role::vector, d_inner);
  }
  e.matrix(weight_part::recurrent, tensor_role::ssm_x, checked_add(dt_rank, checked_mul(2, d_state)), d_inner);
  e.matrix(weight_part::recurrent, tensor_role::ssm_dt, d_inner, dt_rank);
  e.vector(weight_part::recurrent, tensor_role::vector, d_inner);                      // dt_proj bias
  e.vector(weight_part::recurrent, tensor_role::vector, checked_mul(d_inner, d_state));  // A_log
  e.vector(weight_part::recurrent, tensor_role::vector, d_inner);                      // D
  e.vector(weight_part::recurrent, tensor_role::norm, checked_add(dt_rank, checked_mul(2, d_state)));
  e.matrix(weight_part::recurrent, tensor_role::ssm_out, hidden, d_inner);
  if (r.proj_bias) {
    e.output_bias(weight_part::recurrent, hidden);
  }
}

/// HF Qwen3NextGatedDeltaNet: in_proj_qkvz (2·key + 2·value), in_proj_ba (2 × value heads),
/// conv1d over [q, k, v], dt_bias and A_log per value head, a gated RMSNorm of one value head, out_proj.
template <class F>
constexpr void emit_gated_delta(const layer_emitter<F>& e) {
  const recurrent_shape& r = e.m.weights.recurrent;
  const std::uint64_t hidden = e.m.hidden_size;
  const std::uint64_t heads = r.heads;
  const std::uint64_t key = checked_mul(r.groups, r.state_dim);
  const std::uint64_t value = checked_mul(heads, r.head_dim);
  const std::uint64_t conv = checked_add(checked_mul(2, key), value);
  e.matrix(weight_part::recurrent, tensor_role::ssm_in, checked_add(checked_mul(2, key), checked_mul(2, value)), hidden);
  e.matrix(weight_part::recurrent, tensor_role::ssm_in, checked_mul(2, heads), hidden);
  e.matrix(weight_part::recurrent, tensor_role::ssm_conv, conv, r.conv_kernel);
  if (r.conv_bias) {
    e.vector(weight_part::recurrent, tensor_role::vector, conv);
  }
  e.vector(weight_part::recurrent, tensor_role::vector, checked_mul(2, heads));
  e.vector(weight_part::recurrent, tensor_role::norm, r.head_dim);
  e.matrix(weight_part::recurrent, tensor_role::ssm_out, hidden, value);
}

/// Kimi-Linear's KimiDeltaAttention (vllm layers/kda.py KimiDeltaAttention.__init__; H heads of d,
/// P = H·d): q, k, v projections (P × hidden each), the decay gate's low-rank f_a (d × hidden) and
/// f_b (P × d), the output gate's g_a and g_b alike, the beta projection b (H × hidden), dt_bias (P)
/// and A_log (H), three depthwise convs (P × kernel, no bias), the output RMSNorm (d), o_proj.
template <class F>
constexpr void emit_kda(const layer_emitter<F>& e) {
  const recurrent_shape& r = e.m.weights.recurrent;
  const std::uint64_t hidden = e.m.hidden_size;
  const std::uint64_t d = r.head_dim;
  const std::uint64_t p = checked_mul(r.heads, d);
  for (int i = 0; i < 3; ++i) {  // q, k, v
    e.matrix(weight_part::recurrent, tensor_role::ssm_in, p, hidden);
  }
  for (int i = 0; i < 2; ++i) {  // f_a / f_b, then g_a / g_b; f_a and g_a are ReplicatedLinear
    e.matrix_split(weight_part::recurrent, tensor_role::ssm_in, d, hidden, 1);
    e.matrix(weight_part::recurrent, tensor_role::ssm_in, p, d);
  }
  e.matrix(weight_part::recurrent, tensor_role::ssm_in, r.heads, hidden);  // b_proj
  e.vector(weight_part::recurrent, tensor_role::vector, p);                // dt_bias
  e.vector(weight_part::recurrent, tensor_role::vector, r.heads);          // A_log
  for (int i = 0; i < 3; ++i) {
    e.matrix(weight_part::recurrent, tensor_role::ssm_conv, p, r.conv_kernel);
  }
  e.vector(weight_part::recurrent, tensor_role::norm, d);
  e.matrix(weight_part::recurrent, tensor_role::ssm_out, hidden, p);
}

/// MiniMax-Text-01's lightning attention (vLLM layers/mamba/linear_attn.py MiniMaxText01LinearAttention;
/// H heads of d, P = H·d): qkv_proj (3P × hidden), output_gate (P × hidden) and out_proj (hidden × P),
/// no biases, and an RMSNorm over P. The decay slopes are computed, not stored.
template <class F>
constexpr void emit_lightning(const layer_emitter<F>& e) {
  const recurrent_shape& r = e.m.weights.recurrent;
  const std::uint64_t hidden = e.m.hidden_size;
  const std::uint64_t p = checked_mul(r.heads, r.head_dim);
  e.matrix(weight_part::recurrent, tensor_role::ssm_in, checked_mul(3, p), hidden);
  e.matrix(weight_part::recurrent, tensor_role::ssm_in, p, hidden);
  e.matrix_split(weight_part::recurrent, tensor_role::norm, 1, p, 0);  // MiniMaxText01RMSNormTP: split by head
  e.matrix(weight_part::recurrent, tensor_role::ssm_out, hidden, p);
}

/// LFM2's gated short convolution (transformers models/lfm2 Lfm2ShortConv; vLLM layers/mamba/short_conv.py
/// ShortConv), C = head_dim channels: in_proj (3C × hidden: the B, C and x gates), a depthwise conv of
/// conv_kernel taps (C × conv_kernel), out_proj (hidden × C); all three carry a bias when conv_bias is set
/// (conv_bias and proj_bias are the config's one conv_bias).
template <class F>
constexpr void emit_short_conv(const layer_emitter<F>& e) {
  const recurrent_shape& r = e.m.weights.recurrent;
  const std::uint64_t hidden = e.m.hidden_size;
  const std::uint64_t channels = r.head_dim;
  e.matrix(weight_part::recurrent, tensor_role::ssm_in, checked_mul(3, channels), hidden);
  if (r.proj_bias) {
    e.vector(weight_part::recurrent, tensor_role::vector, checked_mul(3, channels));
  }
  e.matrix(weight_part::recurrent, tensor_role::ssm_conv, channels, r.conv_kernel);
  if (r.conv_bias) {
    e.vector(weight_part::recurrent, tensor_role::vector, channels);
  }
  e.matrix(weight_part::recurrent, tensor_role::ssm_out, hidden, channels);
  if (r.proj_bias) {
    e.output_bias(weight_part::recurrent, hidden);
  }
}

}  // namespace kvsize::detail
