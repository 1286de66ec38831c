// SPDX-License-Identifier: MIT
// KV cache formulas: bytes per token, per sequence and per batch, the GQA ratio, and the
// recurrent state of hybrid models. The "exact" cache: what the model must keep, no engine overhead.
#pragma once

#include <algorithm>  // std::min
#include <cstdint>    // std::uint32_t, std::uint64_t

#include "bytes.hpp"
#include "dtype.hpp"
#include "model_spec.hpp"

namespace kvsize {

/// Bytes one token adds to layer `il`'s cache.
///   full, sliding, chunked: row(K, kv_heads × head_dim) + row(V, kv_heads × head_dim_v)
///   latent:                 row(K, kv_lora_rank + rope_head_dim)   (one vector, no separate V)
///   none, shared:           0
[[nodiscard]] constexpr auto layer_kv_bytes_per_token(const model_spec& m, std::uint32_t il, kv_dtypes t) -> bytes {
  switch (kind_of_layer(m, il)) {
    case layer_kind::full:
    case layer_kind::sliding:
    case layer_kind::chunked: {
      const std::uint64_t heads = kv_heads_of_layer(m, il);
      return row_bytes(t.k, heads * effective_head_dim(m)) + row_bytes(t.v, heads * effective_head_dim_v(m));
    }
    case layer_kind::latent:
      return row_bytes(t.k, std::uint64_t{m.latent.kv_lora_rank} + m.latent.rope_head_dim);
    case layer_kind::inherit:  // resolved by kind_of_layer; listed for -Wswitch
    case layer_kind::none:
    case layer_kind::shared:
      break;
  }
  return bytes{0};
}

/// Tokens layer `il` holds for one sequence of `tokens` tokens:
///   full, latent: tokens;  sliding: min(tokens, W);  chunked: min(tokens, C)
/// (a chunked layer attends within its chunk, so it never needs more than C tokens; taking the
/// bound rather than (tokens − 1) mod C + 1 keeps memory monotone, as an allocator needs).
[[nodiscard]] constexpr auto layer_tokens_held(const model_spec& m, std::uint32_t il, std::uint64_t tokens)
    -> std::uint64_t {
  switch (kind_of_layer(m, il)) {
    case layer_kind::sliding: return std::min<std::uint64_t>(tokens, m.sliding_window);
    case layer_kind::chunked: return std::min<std::uint64_t>(tokens, m.attention_chunk);
    case layer_kind::none:
    case layer_kind::shared: return 0;
    default: return tokens;
  }
}

/// Bytes one more token adds to one sequence while it is shorter than every window:
/// Σ over KV-holding layers of layer_kv_bytes_per_token. For a uniform model,
/// 2 × layers × kv_heads × head_dim × sizeof(element).
[[nodiscard]] constexpr auto kv_bytes_per_token(const model_spec& m, kv_dtypes t) -> bytes {
  bytes total{0};
  for (std::uint32_t il = 0; il < m.layers; ++il) {
    total += layer_kv_bytes_per_token(m, il, t);
  }
  return total;
}
/// ... with K and V in one element type.
[[nodiscard]] constexpr auto kv_bytes_per_token(const model_spec& m, dtype t) -> bytes {
  return kv_bytes_per_token(m, kv_dtypes::same(t));
}
/// ... with K and V in the model's compute dtype.
[[nodiscard]] constexpr auto kv_bytes_per_token(const model_spec& m) -> bytes {
  return kv_bytes_per_token(m, m.compute_dtype);
}

/// Bytes one token would add to layer `il` if every query head kept its own K and V: no GQA,
/// MQA or latent compression. A latent layer counts its expanded per-head K (nope + rope) and
/// V (v_head_dim); layers without KV of their own count 0.
[[nodiscard]] constexpr auto layer_kv_bytes_per_token_mha(const model_spec& m, std::uint32_t il, kv_dtypes t)
    -> bytes {
  const std::uint64_t heads = m.attention_heads;
  if (kind_of_layer(m, il) == layer_kind::latent) {
    return row_bytes(t.k, heads * (std::uint64_t{m.latent.nope_head_dim} + m.latent.rope_head_dim)) +
           row_bytes(t.v, heads * std::uint64_t{m.latent.v_head_dim});
  }
  if (!layer_keeps_kv(m, il)) {
    return bytes{0};
  }
  return row_bytes(t.k, heads * effective_head_dim(m)) + row_bytes(t.v, heads * effective_head_dim_v(m));
}

/// The same as kv_bytes_per_token if every query head kept its own K and V:
/// Σ over layers of layer_kv_bytes_per_token_mha.
[[nodiscard]] constexpr auto kv_bytes_per_token_mha(const model_spec& m, kv_dtypes t) -> bytes {
  bytes total{0};
  for (std::uint32_t il = 0; il < m.layers; ++il) {
    total += layer_kv_bytes_per_token_mha(m, il, t);
  }
  return total;
}
[[nodiscard]] constexpr auto kv_bytes_per_token_mha(const model_spec& m, dtype t) -> bytes {
  return kv_bytes_per_token_mha(m, kv_dtypes::same(t));
}
[[nodiscard]] constexpr auto kv_bytes_per_token_mha(const model_spec& m) -> bytes {
  return kv_bytes_per_token_mha(m, m.compute_dtype);
}

/// Query heads per K/V head (GQA group size): 1 for MHA, attention_heads for MQA and for
/// latent attention (one latent serves every head). Not always an integer in principle,
/// hence a double; validate() requires divisibility, so in practice it is one.
[[nodiscard]] constexpr auto gqa_ratio(const model_spec& m) -> double {
  const bool latent = m.attention == layer_kind::latent || count_layers(m, layer_kind::latent) > 0;
  const std::uint32_t kv = latent ? 1U : effective_kv_heads(m);
  return kv == 0 ? 0.0 : static_cast<double>(m.attention_heads) / static_cast<double>(kv);
}

/// KV bytes of one sequence of `tokens` tokens: Σ_layers bytes_per_token(layer) × tokens_held(layer).
/// Linear in `tokens` until the shortest window, then each windowed layer stops growing.
[[nodiscard]] constexpr auto kv_bytes_per_sequence(const model_spec& m, std::uint64_t tokens, kv_dtypes t)
    -> bytes {
  bytes total{0};
  for (std::uint32_t il = 0; il < m.layers; ++il) {
    total += layer_kv_bytes_per_token(m, il, t) * layer_tokens_held(m, il, tokens);
  }
  return total;
}
[[nodiscard]] constexpr auto kv_bytes_per_sequence(const model_spec& m, std::uint64_t tokens, dtype t) -> bytes {
  return kv_bytes_per_sequence(m, tokens, kv_dtypes::same(t));
}
[[nodiscard]] constexpr auto kv_bytes_per_sequence(const model_spec& m, std::uint64_t tokens) -> bytes {
  return kv_bytes_per_sequence(m, tokens, m.compute_dtype);
}

/// KV bytes of `batch` sequences of `tokens` tokens each: batch × kv_bytes_per_sequence.
[[nodiscard]] constexpr auto kv_bytes(const model_spec& m, std::uint64_t tokens, std::uint64_t batch, kv_dtypes t)
    -> bytes {
  return kv_bytes_per_sequence(m, tokens, t) * batch;
}
[[nodiscard]] constexpr auto kv_bytes(const model_spec& m, std::uint64_t tokens, std::uint64_t batch, dtype t)
    -> bytes {
  return kv_bytes(m, tokens, batch, kv_dtypes::same(t));
}
[[nodiscard]] constexpr auto kv_bytes(const model_spec& m, std::uint64_t tokens, std::uint64_t batch) -> bytes {
  return kv_bytes(m, tokens, batch, m.compute_dtype);
}

/// Recurrent state of one sequence: recurrent layers × (conv + ssm elements) in `t`.
/// Independent of the sequence's length.
[[nodiscard]] constexpr auto state_bytes_per_sequence(const model_spec& m, dtype t) -> bytes {
  return storage_bytes(t, m.state.conv_elements + m.state.ssm_elements) * recurrent_layers(m);
}
/// ... with the state in the model's compute dtype (transformers' cache classes do so).
[[nodiscard]] constexpr auto state_bytes_per_sequence(const model_spec& m) -> bytes {
  return state_bytes_per_sequence(m, m.compute_dtype);
}

}  // namespace kvsize
