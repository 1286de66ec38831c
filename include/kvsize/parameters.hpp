// SPDX-License-Identifier: MIT
// Parameter count and weight bytes of a dense decoder (Llama, Qwen2, Mistral style).
#pragma once

#include <cstdint>  // std::uint64_t

#include "bytes.hpp"
#include "detail/checked.hpp"
#include "dtype.hpp"
#include "model_spec.hpp"

namespace kvsize {

/// Parameters of a dense decoder with RMSNorm, rotary positions and a (gated) MLP, i.e. the
/// Llama / Qwen2 / Mistral family:
///   embeddings            vocab × hidden              (+ the same again for an untied LM head)
///   per layer  Q          hidden × heads × head_dim    (+ heads × head_dim bias if qkv_bias)
///              K, V       hidden × kv_heads × head_dim (+ biases if qkv_bias)
///              O          heads × head_dim_v × hidden
///              MLP        (gated ? 3 : 2) × hidden × intermediate
///              2 norms    2 × hidden
///   final norm            hidden
/// Qwen2.5-1.5B: 1,543,714,304; Llama-3-8B: 8,030,261,248. Models with other blocks (MoE,
/// latent attention, recurrent layers) need their own terms.
[[nodiscard]] constexpr auto dense_decoder_parameters(const model_spec& m) -> std::uint64_t {
  using detail::checked_add;
  using detail::checked_mul;
  const std::uint64_t hidden = m.hidden_size;
  const std::uint64_t heads = m.attention_heads;
  const std::uint64_t kv = effective_kv_heads(m);
  const std::uint64_t hd = effective_head_dim(m);
  const std::uint64_t hdv = effective_head_dim_v(m);

  std::uint64_t per_layer = 0;
  per_layer = checked_add(per_layer, checked_mul(hidden, checked_mul(heads, hd)));   // Q
  per_layer = checked_add(per_layer, checked_mul(hidden, checked_mul(kv, hd)));      // K
  per_layer = checked_add(per_layer, checked_mul(hidden, checked_mul(kv, hdv)));     // V
  per_layer = checked_add(per_layer, checked_mul(checked_mul(heads, hdv), hidden));  // O
  if (m.qkv_bias) {
    per_layer = checked_add(per_layer, heads * hd + kv * hd + kv * hdv);
  }
  per_layer = checked_add(per_layer, checked_mul(m.gated_mlp ? 3U : 2U, checked_mul(hidden, m.intermediate_size)));
  per_layer = checked_add(per_layer, checked_mul(2, hidden));  // input and post-attention norms

  const std::uint64_t embeddings = checked_mul(m.vocab_size, hidden);
  std::uint64_t total = checked_mul(per_layer, m.layers);
  total = checked_add(total, embeddings);
  total = checked_add(total, m.tied_embeddings ? 0 : embeddings);  // LM head
  return checked_add(total, hidden);                                // final norm
}

/// Bytes of `parameters` weights stored as `t` (whole quantization blocks).
[[nodiscard]] constexpr auto weights_bytes(std::uint64_t parameters, dtype t) -> bytes {
  return storage_bytes(t, parameters);
}

}  // namespace kvsize
