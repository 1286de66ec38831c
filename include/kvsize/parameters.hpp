// SPDX-License-Identifier: MIT
// Parameter count and weight bytes of a dense decoder (Llama, Qwen2, Mistral style); the general
// counting is in weights.hpp.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint64_t

#include "bytes.hpp"
#include "detail/checked.hpp"
#include "dtype.hpp"
#include "model_spec.hpp"
#include "weights.hpp"

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
/// Qwen2.5-1.5B: 1,543,714,304; Llama-3-8B: 8,030,261,248. Now parameters(m).total
/// (weights.hpp), which also counts what `m.weights` adds: MoE, latent attention, recurrent
/// layers, biases, LayerNorms (for a spec that leaves `weights` default, the formula above).
[[nodiscard]] constexpr auto dense_decoder_parameters(const model_spec& m) -> std::uint64_t {
  return parameters(m).total;
}

/// Bytes of `parameters` weights stored as `t` (whole quantization blocks).
[[nodiscard]] constexpr auto weights_bytes(std::uint64_t parameters, dtype t) -> bytes {
  return storage_bytes(t, parameters);
}

}  // namespace kvsize
