// SPDX-License-Identifier: MIT
// kvsize::model_spec: the shape of a decoder model, as a literal type usable in constant expressions and as a template argument.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>        // std::array
#include <cstdint>      // std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t
#include <string_view>  // std::string_view
#include <type_traits>  // std::is_trivially_copyable_v

#include "error.hpp"
#include "dtype.hpp"
#include "stated_context.hpp"
#include "weights_shape.hpp"

namespace kvsize {

/// What one layer keeps in the KV cache for each token of a sequence.
enum class layer_kind : std::uint8_t {
  inherit,  ///< whatever the model's `attention` field says (the default for every layer)
  full,     ///< K and V of every token of the sequence
  sliding,  ///< K and V of the last `sliding_window` tokens only
  chunked,  ///< K and V of at most `attention_chunk` tokens (Llama 4 local layers)
  latent,   ///< one compressed latent of `kv_lora_rank + rope_head_dim` elements (MLA)
  none,     ///< nothing: recurrent-only, MLP-only or no-op blocks
  shared,   ///< reads the cache of an earlier layer (Gemma 3n): nothing of its own
  /// K and V of every token, as `full`, and one index key of `sparse_index_dim` elements per token
  /// that selects the blocks a query attends to (MiniMax-M3's sparse-attention layers)
  indexed,
};

/// Per-layer exceptions to the model-wide defaults.
struct layer_spec {
  layer_kind kind = layer_kind::inherit;
  /// The layer keeps the model's fixed recurrent state per sequence (Mamba, gated-delta
  /// linear attention). A layer may keep both KV and a state (Falcon-H1).
  bool recurrent = false;
  /// KV heads of this layer; 0 means the model's `kv_heads`.
  std::uint16_t kv_heads = 0;
  /// K (and Q) head dimension of this layer; 0 means the model's (effective_head_dim). Gemma 4's
  /// full-attention layers use global_head_dim 512 where its sliding layers use head_dim 256.
  std::uint16_t head_dim = 0;
  /// V head dimension of this layer; 0 means this layer's K head dimension when `head_dim` is set,
  /// else the model's (effective_head_dim_v).
  std::uint16_t head_dim_v = 0;
  friend constexpr auto operator==(const layer_spec&, const layer_spec&) -> bool = default;
};

/// Multi-head latent attention (DeepSeek-V2/V3/R1, Kimi-K2): each layer caches one vector of
/// `kv_lora_rank + rope_head_dim` elements per token, shared by every head. `nope_head_dim` and
/// `v_head_dim` describe the per-head K and V that an engine gets by expanding the latent.
struct latent_attention {
  std::uint32_t kv_lora_rank = 0;
  std::uint32_t rope_head_dim = 0;
  std::uint32_t nope_head_dim = 0;
  std::uint32_t v_head_dim = 0;
  /// DeepSeek sparse attention (DSA: DeepSeek-V3.2, GLM-5): every latent layer also caches its
  /// lightning indexer's key, one vector of index_head_dim elements per token; 0 = no indexer.
  std::uint32_t index_head_dim = 0;
  friend constexpr auto operator==(const latent_attention&, const latent_attention&) -> bool = default;
};

/// The fixed-size state one recurrent layer keeps per sequence, in elements.
/// Mamba2:      conv = (d_conv − 1) × (d_inner + 2 × n_groups × d_state), ssm = n_heads × head_dim × d_state.
/// Gated delta: conv = (d_conv − 1) × (2 × k_heads × k_dim + v_heads × v_dim), ssm = v_heads × k_dim × v_dim.
/// `ssm_dtype` (when `ssm_dtype_set`): the element type the model's config asks serving engines to
/// keep the SSM state in (NemotronH's mamba_ssm_cache_dtype, float16 when absent, as vLLM 0.13 to
/// 0.19's NemotronH hook reads it); an engine that reads no such key keeps its own rule.
/// `ssm_dtype_defaulted`: the key was absent and ssm_dtype is the family's default, which an engine
/// release may replace (vLLM 0.20's NemotronH hook: float32).
struct recurrent_state {
  std::uint64_t conv_elements = 0;
  std::uint64_t ssm_elements = 0;
  dtype ssm_dtype = dtype::f32;
  bool ssm_dtype_set = false;
  bool ssm_dtype_defaulted = false;
  friend constexpr auto operator==(const recurrent_state&, const recurrent_state&) -> bool = default;
};

/// Layers a model_spec can describe one by one.
inline constexpr std::uint32_t max_layers = 512;

/// The shape of a decoder-only transformer, enough to size its KV cache, state, logits and
/// weights. An aggregate of integers and enums: build it with designated initialisers, use it
/// in constant expressions or as a template argument. Fields left 0 take a derived default
/// (see effective_*); a uniform model is one line:
///
///   constexpr kvsize::model_spec qwen2_5_1_5b{.layers = 28, .attention_heads = 12, .kv_heads = 2,
///                                             .head_dim = 128, .hidden_size = 1536, .vocab_size = 151'936};
///
/// Per-layer variation goes in `layer`: layer[i] overrides layer i. Gemma 3 (5 sliding : 1 full):
///   il = 0..4: sliding, il = 5: full, il = 6..10: sliding, il = 11: full, ...
struct model_spec {
  // Attention shape.
  std::uint32_t layers = 0;           ///< decoder layers (blocks)
  std::uint32_t attention_heads = 0;  ///< query heads
  std::uint32_t kv_heads = 0;         ///< K/V heads; 0 → attention_heads (multi-head attention)
  std::uint32_t head_dim = 0;         ///< K (and Q) head dimension; 0 → hidden_size / attention_heads
  std::uint32_t head_dim_v = 0;       ///< V head dimension; 0 → head_dim
  std::uint32_t hidden_size = 0;      ///< residual stream width
  std::uint32_t vocab_size = 0;       ///< rows of the embedding / logits width
  std::uint64_t max_context = 0;      ///< longest context the model was configured for; 0 = unknown
  stated_context stated{};  ///< the length keys and rope terms engines derive their context from; {}: max_context
  /// config.json's dtype/torch_dtype: the element type of activations, and by default of the KV cache, the logits and
  /// unquantized weights.
  dtype compute_dtype = dtype::bf16;

  // What layers keep.
  layer_kind attention = layer_kind::full;  ///< the kind of every layer left as `inherit`
  std::uint32_t sliding_window = 0;         ///< W of `sliding` layers, in tokens
  std::uint32_t attention_chunk = 0;        ///< C of `chunked` layers, in tokens
  std::uint32_t sparse_index_dim = 0;       ///< elements of the index key an `indexed` layer keeps per token
  latent_attention latent{};                ///< dimensions of `latent` layers
  recurrent_state state{};                  ///< state of `recurrent` layers, per sequence
  std::array<layer_spec, max_layers> layer{};

  // Dense weights (parameters()).
  std::uint32_t intermediate_size = 0;  ///< MLP width
  bool gated_mlp = true;                ///< gate + up + down (SwiGLU) rather than up + down
  bool qkv_bias = false;                ///< Q, K and V projections have biases (Qwen2)
  bool tied_embeddings = false;         ///< the LM head reuses the token embedding
  /// Norms, biases, MoE, latent projections, recurrent mixers, MTP, vision (weights.hpp's parameters()).
  weights_shape weights{};

  friend constexpr auto operator==(const model_spec&, const model_spec&) -> bool = default;
};

static_assert(std::is_trivially_copyable_v<model_spec>, "model_spec must stay plain data");
static_assert(std::tuple_size_v<decltype(weights_shape::layer)> == max_layers, "one layer_weights per layer");

/// K/V heads, with 0 meaning multi-head attention.
[[nodiscard]] constexpr auto effective_kv_heads(const model_spec& m) -> std::uint32_t {
  return m.kv_heads != 0 ? m.kv_heads : m.attention_heads;
}

/// K head dimension, hidden_size / attention_heads unless given.
[[nodiscard]] constexpr auto effective_head_dim(const model_spec& m) -> std::uint32_t {
  if (m.head_dim != 0) {
    return m.head_dim;
  }
  return m.attention_heads != 0 ? m.hidden_size / m.attention_heads : 0;
}

/// V head dimension, the K head dimension unless given.
[[nodiscard]] constexpr auto effective_head_dim_v(const model_spec& m) -> std::uint32_t {
  return m.head_dim_v != 0 ? m.head_dim_v : effective_head_dim(m);
}

/// The kind of layer `il`, with `inherit` resolved.
[[nodiscard]] constexpr auto kind_of_layer(const model_spec& m, std::uint32_t il) -> layer_kind {
  const layer_kind k = il < max_layers ? m.layer[il].kind : layer_kind::inherit;
  return k == layer_kind::inherit ? (m.attention == layer_kind::inherit ? layer_kind::full : m.attention) : k;
}

/// KV heads of layer `il`.
[[nodiscard]] constexpr auto kv_heads_of_layer(const model_spec& m, std::uint32_t il) -> std::uint32_t {
  const std::uint32_t own = il < max_layers ? m.layer[il].kv_heads : 0;
  return own != 0 ? own : effective_kv_heads(m);
}

/// K head dimension of layer `il`: its own, else the model's.
[[nodiscard]] constexpr auto head_dim_of_layer(const model_spec& m, std::uint32_t il) -> std::uint32_t {
  const std::uint32_t own = il < max_layers ? m.layer[il].head_dim : 0;
  return own != 0 ? own : effective_head_dim(m);
}

/// V head dimension of layer `il`: its own; else, for a layer with its own K head dimension, that; else the model's.
[[nodiscard]] constexpr auto head_dim_v_of_layer(const model_spec& m, std::uint32_t il) -> std::uint32_t {
  if (il >= max_layers) {
    return effective_head_dim_v(m);
  }
  const layer_spec& l = m.layer[il];
  return l.head_dim_v != 0 ? l.head_dim_v : (l.head_dim != 0 ? l.head_dim : effective_head_dim_v(m));
}

/// Whether layer `il` attends with the model's shape: its KV heads and head dimensions are the model's.
[[nodiscard]] constexpr auto layer_has_model_shape(const model_spec& m, std::uint32_t il) -> bool {
  return kv_heads_of_layer(m, il) == effective_kv_heads(m) && head_dim_of_layer(m, il) == effective_head_dim(m) &&
         head_dim_v_of_layer(m, il) == effective_head_dim_v(m);
}

/// Whether layer `il` holds K/V of its own.
[[nodiscard]] constexpr auto layer_keeps_kv(const model_spec& m, std::uint32_t il) -> bool {
  const layer_kind k = kind_of_layer(m, il);
  return k != layer_kind::none && k != layer_kind::shared;
}

/// Whether layer `il` keeps a recurrent state per sequence.
[[nodiscard]] constexpr auto layer_keeps_state(const model_spec& m, std::uint32_t il) -> bool {
  return il < max_layers && m.layer[il].recurrent;
}

/// Layers that hold K/V of their own.
[[nodiscard]] constexpr auto kv_layers(const model_spec& m) -> std::uint32_t {
  std::uint32_t n = 0;
  for (std::uint32_t il = 0; il < m.layers; ++il) {
    n += layer_keeps_kv(m, il) ? 1U : 0U;
  }
  return n;
}

/// Layers that keep a recurrent state.
[[nodiscard]] constexpr auto recurrent_layers(const model_spec& m) -> std::uint32_t {
  std::uint32_t n = 0;
  for (std::uint32_t il = 0; il < m.layers; ++il) {
    n += layer_keeps_state(m, il) ? 1U : 0U;
  }
  return n;
}

/// Layers of kind `k` (after resolving `inherit`).
[[nodiscard]] constexpr auto count_layers(const model_spec& m, layer_kind k) -> std::uint32_t {
  std::uint32_t n = 0;
  for (std::uint32_t il = 0; il < m.layers; ++il) {
    n += kind_of_layer(m, il) == k ? 1U : 0U;
  }
  return n;
}

/// Heads the model's KV cache keeps per token, as a report prints them: 1 for a model with latent
/// (MLA) layers, whose cache holds one compressed latent per token that serves every query head
/// (DeepSeek-V3/R1: kv_lora_rank 512 + rope_head_dim 64 elements, for 128 query heads), else the KV heads
/// (effective_kv_heads). What an engine that expands the latent stores per rank is that engine's
/// layer groups (mla_cache_layout), not this.
[[nodiscard]] constexpr auto cache_kv_heads(const model_spec& m) -> std::uint32_t {
  return count_layers(m, layer_kind::latent) != 0 ? 1U : effective_kv_heads(m);
}

namespace detail {
/// Whether `d` (≥ 1) divides `n`. A power of two (GQA's usual 1, 2, 4, 8 KV heads) is tested with a
/// mask: a hardware division costs about a tenth of a whole KV query (BENCHMARKS.md), which checks
/// this on every call.
[[nodiscard]] constexpr auto divides(std::uint32_t d, std::uint32_t n) -> bool {
  if ((d & (d - 1U)) == 0) {
    return (n & (d - 1U)) == 0;
  }
  return n % d == 0;
}

// The invariants of validate(), in pieces that the sizing functions call where they already read the
// fields concerned (kv_token_bytes_of folds the per-layer ones into its one pass over the layers).
// Each throw names its rule in a string literal on the throw's own line: in a constant expression
// the compilers quote that line, so the message is the compile error.

/// The model-wide invariants, O(1): 1 ≤ layers ≤ max_layers, attention_heads > 0, kv_heads (0 = MHA)
/// divides attention_heads, and a head dimension that is given or hidden_size / attention_heads exactly.
constexpr void check_model_shape(const model_spec& m) {
  if (m.layers == 0) {
    throw kvsize::invalid_argument("kvsize::model_spec: layers must be positive");
  }
  if (m.layers > max_layers) {
    throw kvsize::invalid_argument("kvsize::model_spec: more layers than kvsize::max_layers (512)");
  }
  if (m.attention_heads == 0) {
    throw kvsize::invalid_argument("kvsize::model_spec: attention_heads must be positive");
  }
  const std::uint32_t kv = effective_kv_heads(m);
  if (kv > m.attention_heads) {
    throw kvsize::invalid_argument("kvsize::model_spec: kv_heads exceeds attention_heads");
  }
  if (!divides(kv, m.attention_heads)) {
    throw kvsize::invalid_argument("kvsize::model_spec: attention_heads is not a multiple of kv_heads");
  }
  if (m.head_dim == 0) {
    if (m.hidden_size / m.attention_heads == 0) {
      throw kvsize::invalid_argument("kvsize::model_spec: head_dim is zero (give head_dim or hidden_size)");
    }
    if (m.hidden_size % m.attention_heads != 0) {
      throw kvsize::invalid_argument("kvsize::model_spec: hidden_size is not a multiple of attention_heads; give head_dim");
    }
  }
}

/// Whether check_model_shape(m) passes, without a throw: the same rules as one expression, so that a
/// query's hot path takes one well-predicted branch and keeps the throws out of line.
[[nodiscard]] constexpr auto model_shape_ok(const model_spec& m) -> bool {
  const std::uint32_t kv = effective_kv_heads(m);
  return m.layers - 1U < max_layers                  // 1 ≤ layers ≤ max_layers
         && kv - 1U < m.attention_heads              // 1 ≤ kv ≤ heads (false for heads = 0)
         && divides(kv, m.attention_heads)           //
         && (m.head_dim != 0 || (m.hidden_size >= m.attention_heads && m.hidden_size % m.attention_heads == 0));
}

/// What a layer of kind `k` (inherit resolved) needs from the model: sliding a window, chunked a
/// chunk, latent a latent width, indexed an index key width. O(1).
constexpr void check_layer_kind(const model_spec& m, layer_kind k) {
  if (k == layer_kind::sliding && m.sliding_window == 0) {
    throw kvsize::invalid_argument("kvsize::model_spec: a sliding layer needs sliding_window > 0");
  }
  if (k == layer_kind::chunked && m.attention_chunk == 0) {
    throw kvsize::invalid_argument("kvsize::model_spec: a chunked layer needs attention_chunk > 0");
  }
  if (k == layer_kind::latent && std::uint64_t{m.latent.kv_lora_rank} + m.latent.rope_head_dim == 0) {
    throw kvsize::invalid_argument("kvsize::model_spec: a latent layer needs kv_lora_rank or rope_head_dim");
  }
  if (k == layer_kind::indexed && m.sparse_index_dim == 0) {
    throw kvsize::invalid_argument("kvsize::model_spec: an indexed layer needs sparse_index_dim > 0");
  }
}

/// Whether a layer's own KV heads (`own`, 0 = the model's) divide its query heads (`query`: its own
/// layer_weights::query_heads, 0 = attention_heads). O(1).
[[nodiscard]] constexpr auto kv_heads_divide(const model_spec& m, std::uint32_t own, std::uint32_t query) -> bool {
  const std::uint32_t heads = query != 0 ? query : m.attention_heads;
  return own == 0 || (own <= heads && divides(own, heads));
}

/// check_layer_kv_heads: kv_heads_divide, or an error. O(1).
constexpr void check_layer_kv_heads(const model_spec& m, std::uint32_t own, std::uint32_t query = 0) {
  if (!kv_heads_divide(m, own, query)) {
    throw kvsize::invalid_argument("kvsize::model_spec: a layer's kv_heads does not divide its query heads");
  }
}

/// A model with a recurrent layer gives the state's size. O(1).
constexpr void check_recurrent_state(const model_spec& m) {
  if (m.state.conv_elements == 0 && m.state.ssm_elements == 0) {
    throw kvsize::invalid_argument("kvsize::model_spec: a recurrent layer needs a state size");
  }
}

/// For kv_token_bytes_of's hot path, which tests a rule inline and calls this only when the rule
/// fails: throws what `check(m, rest...)` throws. At run time through reject<check>, out of line and
/// [[noreturn]], which keeps the throws (and the registers and code they need) out of the query and
/// lets the code after the test rely on the rule; in a constant expression `check` itself, whose
/// throw is the compile error naming the rule.
template <auto check, class... Rest>
[[noreturn, gnu::noinline, gnu::cold]] void reject(const model_spec& m, Rest... rest) {
  check(m, rest...);
  throw kvsize::invalid_argument("kvsize::model_spec: invalid");  // not reached: the test and `check` agree
}
template <auto check, class... Rest>
constexpr void refuse(const model_spec& m, Rest... rest) {
  if (std::is_constant_evaluated()) {
    check(m, rest...);
  } else {
    reject<check>(m, rest...);
  }
}

/// Layer `il` exists and keeps its rules (the model-wide ones are check_model_shape's). O(1).
constexpr void check_layer(const model_spec& m, std::uint32_t il) {
  if (il >= m.layers) {
    throw kvsize::invalid_argument("kvsize::model_spec: a layer index is not below `layers`");
  }
  check_layer_kind(m, kind_of_layer(m, il));
  if (m.layer[il].recurrent) {
    check_recurrent_state(m);
  }
  check_layer_kv_heads(m, m.layer[il].kv_heads, m.weights.layer[il].query_heads);
}

/// Every rule of validate() except the one about entries beyond `layers`: the model-wide rules and
/// each layer's. O(layers); what sizing functions that walk the layers anyway call.
constexpr void check_model(const model_spec& m) {
  check_model_shape(m);
  for (std::uint32_t il = 0; il < m.layers; ++il) {
    check_layer(m, il);
  }
}

}  // namespace detail

/// Checks every invariant the formulas rely on; throws kvsize::invalid_argument naming the first
/// violated one. In a constant expression the throw is a compile error showing that message.
///
/// The sizing functions check the spec they are given too, so an invalid spec cannot be used by
/// mistake: each one refuses what validate() refuses, with the same message, except overrides in
/// `layer` / `weights.layer` beyond `layers` (entries no formula reads; only validate() looks at
/// them). The KV and capacity queries fold the per-layer rules into the pass over the layers they
/// make anyway (kv_token_bytes_of), at O(1) extra cost; functions that read no layer (logits,
/// activations) check the model-wide rules only (detail::check_model_shape).
constexpr void validate(const model_spec& m) {
  detail::check_model(m);
  for (std::uint32_t il = m.layers; il < max_layers; ++il) {
    if (!(m.layer[il] == layer_spec{})) {
      throw kvsize::invalid_argument("kvsize::model_spec: a layer override lies beyond `layers`");
    }
    if (!(m.weights.layer[il] == layer_weights{})) {
      throw kvsize::invalid_argument("kvsize::model_spec: a weights.layer override lies beyond `layers`");
    }
  }
}

/// Human name of a layer kind ("full", "sliding", ...).
[[nodiscard]] constexpr auto name(layer_kind k) -> std::string_view {
  switch (k) {
    case layer_kind::inherit: return "inherit";
    case layer_kind::full: return "full";
    case layer_kind::sliding: return "sliding";
    case layer_kind::chunked: return "chunked";
    case layer_kind::latent: return "latent";
    case layer_kind::none: return "none";
    case layer_kind::shared: return "shared";
    case layer_kind::indexed: return "indexed";
  }
  return "?";
}

}  // namespace kvsize
