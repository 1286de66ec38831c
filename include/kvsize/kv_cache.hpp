// SPDX-License-Identifier: MIT
// KV cache formulas: bytes per token, per sequence and per batch, and the GQA ratio (the recurrent
// state of hybrid models is state_cache.hpp's, included here). The "exact" cache: what the model
// must keep, no engine overhead.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint32_t, std::uint64_t

#include "bytes.hpp"
#include "detail/checked.hpp"
#include "detail/layer_scan.hpp"  // or_of_layer_entries, count_kinds: the vectorised passes over the layers
#include "dtype.hpp"
#include "layer_groups.hpp"  // the row formulas (detail::attention_row, ...)
#include "model_spec.hpp"
#include "state_cache.hpp"  // state_bytes_per_sequence, which every KV query user needs beside it

namespace kvsize {

namespace detail {
/// layer_kv_bytes_per_token for a spec already checked.
[[nodiscard]] constexpr auto layer_kv_row_bytes(const model_spec& m, std::uint32_t il, kv_dtypes t) -> bytes {
  switch (kind_of_layer(m, il)) {
    case layer_kind::full:
    case layer_kind::sliding:
    case layer_kind::chunked: return layer_attention_row(m, il, kv_heads_of_layer(m, il), t).total();
    case layer_kind::latent: return row_bytes(t.k, latent_width(m)) + indexer_row(m, false, t.k);
    case layer_kind::indexed:
      return layer_attention_row(m, il, kv_heads_of_layer(m, il), t).total() + sparse_index_row(m, t.k);
    case layer_kind::inherit:  // resolved by kind_of_layer; listed for -Wswitch
    case layer_kind::none:
    case layer_kind::shared:
      break;
  }
  return bytes{0};
}
}  // namespace detail

/// Bytes one token adds to layer `il`'s cache.
///   full, sliding, chunked: row(K, kv_heads × head_dim) + row(V, kv_heads × head_dim_v)
///   latent:                 row(K, kv_lora_rank + rope_head_dim)   (one vector, no separate V)
///                           + row(K, index_head_dim) with a DSA indexer (DeepSeek-V3.2, GLM-5)
///   indexed:                full's rows + row(K, sparse_index_dim)   (MiniMax-M3's index key)
///   none, shared:           0
/// Throws kvsize::invalid_argument if the model's shape or layer `il` breaks a rule of validate().
[[nodiscard]] constexpr auto layer_kv_bytes_per_token(const model_spec& m, std::uint32_t il, kv_dtypes t) -> bytes {
  detail::check_model_shape(m);
  detail::check_layer(m, il);
  return detail::layer_kv_row_bytes(m, il, t);
}

/// Tokens layer `il` holds for one sequence of `tokens` tokens:
///   full, latent, indexed: tokens;  sliding: min(tokens, W);  chunked: min(tokens, C)
/// (a chunked layer attends within its chunk, so it never needs more than C tokens; taking the
/// bound rather than (tokens − 1) mod C + 1 keeps memory monotone, as an allocator needs).
[[nodiscard]] constexpr auto layer_tokens_held(const model_spec& m, std::uint32_t il, std::uint64_t tokens)
    -> std::uint64_t {
  detail::check_model_shape(m);
  detail::check_layer(m, il);
  switch (kind_of_layer(m, il)) {
    case layer_kind::sliding: return detail::min_of(tokens, m.sliding_window);
    case layer_kind::chunked: return detail::min_of(tokens, m.attention_chunk);
    case layer_kind::none:
    case layer_kind::shared: return 0;
    default: return tokens;
  }
}

/// A model's KV bytes per token, summed by how many tokens each kind of layer holds. Computed in
/// one pass over the layers (kv_token_bytes_of); after that, the KV of a sequence of any length is
/// O(1). A scheduler that sizes many requests of one model can keep one.
struct kv_token_bytes {
  bytes growing;                     ///< full, latent and indexed layers: hold every token
  bytes sliding;                     ///< sliding layers: hold min(tokens, sliding_window)
  bytes chunked;                     ///< chunked layers: hold min(tokens, attention_chunk)
  std::uint64_t sliding_window = 0;  ///< W
  std::uint64_t attention_chunk = 0; ///< C
  /// Σ over layers of layer_kv_bytes_per_token.
  [[nodiscard]] constexpr auto per_token() const -> bytes { return growing + sliding + chunked; }
  /// Σ over layers of layer_kv_bytes_per_token × layer_tokens_held(tokens).
  [[nodiscard]] constexpr auto per_sequence(std::uint64_t tokens) const -> bytes {
    if (sliding.count() == 0 && chunked.count() == 0) {  // no windowed layer: one product
      return growing * tokens;
    }
    return growing * tokens + sliding * detail::min_of(tokens, sliding_window) +
           chunked * detail::min_of(tokens, attention_chunk);
  }
  friend constexpr auto operator==(const kv_token_bytes&, const kv_token_bytes&) -> bool = default;
};

namespace detail {

/// kv_token_bytes_of for a model whose layers are not all full attention with the model's KV heads:
/// the per-kind counts (a counting pass, or layer by layer where layers have KV heads of their own)
/// and their rules. Apart from kv_token_bytes_of so that the usual query stays small enough for
/// the compilers to inline.
[[nodiscard]] constexpr auto kv_token_bytes_by_kind(const model_spec& m, kv_dtypes t, layer_entries_or entries,
                                                    layer_kind model_kind) -> kv_token_bytes {
  const std::size_t listed = m.layers;
  const std::uint64_t any_kind = entries.kinds;
  const std::uint64_t any_shape = entries.shape;
  // Layers of each kind with the model's shape; layers of their own shape are summed apart.
  kind_counts n{};
  kv_token_bytes own_shape{};
  const auto count = [&n](layer_kind k, std::uint32_t layers) {
    switch (k) {
      case layer_kind::full: n.full += layers; break;
      case layer_kind::sliding: n.sliding += layers; break;
      case layer_kind::chunked: n.chunked += layers; break;
      case layer_kind::latent: n.latent += layers; break;
      case layer_kind::indexed: n.indexed += layers; break;
      case layer_kind::inherit:  // resolved by kind_of_layer
      case layer_kind::none:
      case layer_kind::shared: break;
    }
  };
  if (any_kind == 0 && any_shape == 0) {
    count(model_kind, m.layers);
  } else if (any_shape == 0) {
    n = count_kinds_of(m, listed, model_kind, any_kind);  // pass 2: count the kinds (branch-free, vectorised)
  } else {
    for (std::size_t il = 0; il < listed; ++il) {
      const auto index = static_cast<std::uint32_t>(il);
      const std::uint32_t own = m.layer[il].kv_heads;
      const layer_kind k = kind_of_layer(m, index);
      if (!kv_heads_divide(m, own, m.weights.layer[il].query_heads)) {
        refuse<check_layer_kv_heads>(m, own, m.weights.layer[il].query_heads);
      }
      if (k == layer_kind::latent || layer_has_model_shape(m, index)) {
        count(k, 1);
        continue;
      }
      if ((k == layer_kind::sliding && m.sliding_window == 0) || (k == layer_kind::chunked && m.attention_chunk == 0) ||
          (k == layer_kind::indexed && m.sparse_index_dim == 0)) {
        refuse<check_layer_kind>(m, k);  // counted apart from `sliding` and `chunked` below
      }
      const bytes b = layer_kv_row_bytes(m, index, t);
      switch (k) {
        case layer_kind::sliding: own_shape.sliding += b; break;
        case layer_kind::chunked: own_shape.chunked += b; break;
        default: own_shape.growing += b; break;
      }
    }
  }
  // The rules of the kinds the pass found (layers with heads of their own were checked in their
  // loop); tested inline, thrown out of line.
  if (n.sliding != 0 && m.sliding_window == 0) {
    refuse<check_layer_kind>(m, layer_kind::sliding);
  }
  if (n.chunked != 0 && m.attention_chunk == 0) {
    refuse<check_layer_kind>(m, layer_kind::chunked);
  }
  if (n.latent != 0 && m.latent.kv_lora_rank == 0 && m.latent.rope_head_dim == 0) {
    refuse<check_layer_kind>(m, layer_kind::latent);
  }
  if (n.indexed != 0 && m.sparse_index_dim == 0) {
    refuse<check_layer_kind>(m, layer_kind::indexed);
  }
  const bool any_row = n.full + n.sliding + n.chunked + n.indexed != 0;
  const bytes row = any_row ? attention_row(m, effective_kv_heads(m), t).total() : bytes{0};
  const bytes latent_row = n.latent != 0 ? row_bytes(t.k, latent_width(m)) + indexer_row(m, false, t.k) : bytes{0};
  const bytes indexed_row = n.indexed != 0 ? row + sparse_index_row(m, t.k) : bytes{0};
  return {row * n.full + latent_row * n.latent + indexed_row * n.indexed + own_shape.growing,
          row * n.sliding + own_shape.sliding, row * n.chunked + own_shape.chunked, m.sliding_window, m.attention_chunk};
}
}  // namespace detail

/// The per-kind sums of model `m` with K and V in `t`. Layers of the model's shape share one row
/// size, computed once. The scans are written so that GCC and Clang vectorise them: a uniform model
/// costs one OR over its `layer` entries, a model of mixed kinds one counting pass more; only layers
/// with KV heads or head dimensions of their own (Nemotron-Super, Gemma 4) take the per-layer formula.
/// Checks the spec as it goes, at O(1) extra cost: the model-wide rules first, then the rules of the
/// kinds of layer the pass found (a sliding layer needs a window, ...), a recurrent layer's state
/// size, and each layer's own KV heads. Every rule of validate() but one: overrides beyond `layers`,
/// which no formula reads. Throws kvsize::invalid_argument naming the rule (a compile error in a
/// constant expression), as validate() does.
[[nodiscard]] constexpr auto kv_token_bytes_of(const model_spec& m, kv_dtypes t) -> kv_token_bytes {
  if (!detail::model_shape_ok(m)) {  // one branch here; the throw is out of line
    detail::refuse<detail::check_model_shape>(m);
  }
  const std::size_t listed = m.layers;  // 1 ≤ layers ≤ max_layers from here on
  // Does any layer set its kind, KV heads or head dimensions, or keep a state?
  const detail::layer_entries_or entries = detail::or_of_layer_entries(m, listed);
  const std::uint64_t any_kind = entries.kinds;
  const std::uint64_t any_shape = entries.shape;
  if (entries.recurrent != 0 && m.state.conv_elements == 0 && m.state.ssm_elements == 0) {
    detail::refuse<detail::check_recurrent_state>(m);
  }
  const layer_kind model_kind = kind_of_layer(m, max_layers);
  if (any_kind == 0 && any_shape == 0 && model_kind == layer_kind::full) {
    // The usual case, every layer full attention with the model's KV heads: one row × layers (what
    // the general sums below give, without their bookkeeping, which pays for the checks above).
    const bytes row = detail::attention_row(m, effective_kv_heads(m), t).total();
    return {row * m.layers, bytes{0}, bytes{0}, m.sliding_window, m.attention_chunk};
  }
  return detail::kv_token_bytes_by_kind(m, t, entries, model_kind);
}
[[nodiscard]] constexpr auto kv_token_bytes_of(const model_spec& m) -> kv_token_bytes {
  return kv_token_bytes_of(m, kv_dtypes::same(m.compute_dtype));
}

/// Bytes one more token adds to one sequence while it is shorter than every window:
/// Σ over KV-holding layers of layer_kv_bytes_per_token. For a uniform model,
/// 2 × layers × kv_heads × head_dim × sizeof(element).
[[nodiscard]] constexpr auto kv_bytes_per_token(const model_spec& m, kv_dtypes t) -> bytes {
  return kv_token_bytes_of(m, t).per_token();
}
/// ... with K and V in one element type.
[[nodiscard]] constexpr auto kv_bytes_per_token(const model_spec& m, dtype t) -> bytes {
  return kv_bytes_per_token(m, kv_dtypes::same(t));
}
/// ... with K and V in the model's compute dtype.
[[nodiscard]] constexpr auto kv_bytes_per_token(const model_spec& m) -> bytes {
  return kv_bytes_per_token(m, m.compute_dtype);
}

namespace detail {
/// layer_kv_bytes_per_token_mha for a spec already checked.
[[nodiscard]] constexpr auto layer_kv_row_bytes_mha(const model_spec& m, std::uint32_t il, kv_dtypes t) -> bytes {
  if (kind_of_layer(m, il) == layer_kind::latent) {
    return expanded_latent_row(m, m.attention_heads, t).total();
  }
  if (!layer_keeps_kv(m, il)) {
    return bytes{0};
  }
  // An indexed layer keeps its index key whatever the heads do: only K and V are expanded.
  const bytes index = kind_of_layer(m, il) == layer_kind::indexed ? sparse_index_row(m, t.k) : bytes{0};
  return layer_attention_row(m, il, m.attention_heads, t).total() + index;
}
}  // namespace detail

/// Bytes one token would add to layer `il` if every query head kept its own K and V: no GQA,
/// MQA or latent compression. A latent layer counts its expanded per-head K (nope + rope) and
/// V (v_head_dim), an indexed layer its index key too; layers without KV of their own count 0.
/// Throws kvsize::invalid_argument if the model's shape or layer `il` breaks a rule of validate().
[[nodiscard]] constexpr auto layer_kv_bytes_per_token_mha(const model_spec& m, std::uint32_t il, kv_dtypes t)
    -> bytes {
  detail::check_model_shape(m);
  detail::check_layer(m, il);
  return detail::layer_kv_row_bytes_mha(m, il, t);
}

/// The same as kv_bytes_per_token if every query head kept its own K and V:
/// Σ over layers of layer_kv_bytes_per_token_mha.
[[nodiscard]] constexpr auto kv_bytes_per_token_mha(const model_spec& m, kv_dtypes t) -> bytes {
  detail::check_model(m);
  bytes total{0};
  for (std::uint32_t il = 0; il < m.layers; ++il) {
    total += detail::layer_kv_row_bytes_mha(m, il, t);
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
/// hence a double; the spec's check requires divisibility, so in practice it is one.
[[nodiscard]] constexpr auto gqa_ratio(const model_spec& m) -> double {
  detail::check_model(m);
  const bool latent = m.attention == layer_kind::latent || count_layers(m, layer_kind::latent) > 0;
  const std::uint32_t kv = latent ? 1U : effective_kv_heads(m);
  return kv == 0 ? 0.0 : static_cast<double>(m.attention_heads) / static_cast<double>(kv);
}

/// KV bytes of one sequence of `tokens` tokens: Σ_layers bytes_per_token(layer) × tokens_held(layer).
/// Linear in `tokens` until the shortest window, then each windowed layer stops growing.
[[nodiscard]] constexpr auto kv_bytes_per_sequence(const model_spec& m, std::uint64_t tokens, kv_dtypes t)
    -> bytes {
  return kv_token_bytes_of(m, t).per_sequence(tokens);
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

}  // namespace kvsize
