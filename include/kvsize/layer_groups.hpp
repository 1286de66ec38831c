// SPDX-License-Identifier: MIT
// Layer groups: what the layers of one pipeline stage keep, on one tensor-parallel rank, merged by
// shape. kvsize's counterpart of vLLM's per-layer KVCacheSpec (vllm/v1/kv_cache_interface.py:
// FullAttentionSpec, SlidingWindowSpec, ChunkedLocalAttentionSpec, MLAAttentionSpec, MambaSpec),
// which every engine profile sizes from: the engines differ in how they page, pad and pool these
// groups, not in what a layer holds.
//
// Standard library only, constexpr and allocation-free: a fixed-capacity array and a count.
//
// Adding a cache kind (an indexer key cache, compressed entries, a separate conv state, ...): add a
// `group_kind`, fill its rows in detail::group_layers (the one loop over layers), give it a name, and
// route it in for_each_group: to the per-token callable if every engine pages it like K/V rows, else
// to a new callable, which makes each engine's size_stage fail to compile until it says how it pages
// the kind (and -Wswitch names the engines' own switches over group_kind). No engine grows a loop of
// its own. A per-token term stored beside K and V is such a kind unless every engine pages it with its layer's rows,
// one token a cell or a block (DSA's and MiniMax-M3's index keys: index_row, carried in k_row and v_row).
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>        // std::array
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint8_t, std::uint32_t, std::uint64_t
#include <string_view>  // std::string_view

#include "bytes.hpp"
#include "detail/checked.hpp"
#include "dtype.hpp"
#include "error.hpp"
#include "model_spec.hpp"

namespace kvsize {

namespace detail {
// The row formulas, each written once: the exact cache (kv_cache.hpp) and every engine's layer
// groups are built from these three.

/// K and V bytes one token adds to one layer (on one rank).
struct kv_row {
  bytes k{0};
  bytes v{0};
  [[nodiscard]] constexpr auto total() const -> bytes { return k + v; }
  friend constexpr auto operator==(const kv_row&, const kv_row&) -> bool = default;
};

/// An attention layer of which a rank holds `heads` KV heads of K width `head_dim` and V width
/// `head_dim_v`:  K = row(t.k, heads × head_dim),  V = row(t.v, heads × head_dim_v).
[[nodiscard]] constexpr auto attention_row(std::uint64_t heads, std::uint64_t head_dim, std::uint64_t head_dim_v,
                                           kv_dtypes t) -> kv_row {
  kv_row r{};
  r.v = row_bytes(t.v, heads * head_dim_v);  // V first: the order the queries were tuned in
  r.k = row_bytes(t.k, heads * head_dim);
  return r;
}
/// ... with the model's head dimensions.
[[nodiscard]] constexpr auto attention_row(const model_spec& m, std::uint64_t heads, kv_dtypes t) -> kv_row {
  return attention_row(heads, effective_head_dim(m), effective_head_dim_v(m), t);
}
/// ... with layer `il`'s head dimensions (Gemma 4: global_head_dim on its full-attention layers).
[[nodiscard]] constexpr auto layer_attention_row(const model_spec& m, std::uint32_t il, std::uint64_t heads, kv_dtypes t)
    -> kv_row {
  return attention_row(heads, head_dim_of_layer(m, il), head_dim_v_of_layer(m, il), t);
}

/// Elements of one MLA latent vector: kv_lora_rank + rope_head_dim (576 for DeepSeek-V3).
[[nodiscard]] constexpr auto latent_width(const model_spec& m) -> std::uint64_t {
  return std::uint64_t{m.latent.kv_lora_rank} + m.latent.rope_head_dim;
}

/// One token's DSA indexer key in one layer: index_head_dim elements, as fp8 plus a float32 scale per
/// 128 elements (index_head_dim + index_head_dim / 128 × 4 bytes: 132 for DeepSeek-V3.2's 128; vLLM
/// models/deepseek_v2.py DeepseekV32IndexerCache.get_kv_cache_spec, SGLang NSATokenToKVPool's
/// index_k_with_scale_buffer), or in the element type `t`; 0 without an indexer.
[[nodiscard]] constexpr auto indexer_row(const model_spec& m, bool fp8, dtype t) -> bytes {
  const std::uint64_t d = m.latent.index_head_dim;
  if (d == 0) {
    return bytes{0};
  }
  return fp8 ? bytes{d + d / 128 * 4} : row_bytes(t, d);
}

/// One token's index key in an `indexed` layer (MiniMax-M3): sparse_index_dim elements of `t` (one head, on every rank).
[[nodiscard]] constexpr auto sparse_index_row(const model_spec& m, dtype t) -> bytes { return row_bytes(t, m.sparse_index_dim); }

/// A latent (MLA) layer expanded per head, for `heads` query heads, as an engine that decompresses
/// the latent before caching stores it: K = row(t.k, heads × (nope + rope)), V = row(t.v, heads × v_head_dim).
[[nodiscard]] constexpr auto expanded_latent_row(const model_spec& m, std::uint64_t heads, kv_dtypes t) -> kv_row {
  return {row_bytes(t.k, heads * (std::uint64_t{m.latent.nope_head_dim} + m.latent.rope_head_dim)),
          row_bytes(t.v, heads * std::uint64_t{m.latent.v_head_dim})};
}

/// Layers [first, first + count) of one pipeline stage (engines/common.hpp's pp_stage computes them).
struct stage_range {
  std::uint32_t first = 0;
  std::uint32_t count = 0;
};
}  // namespace detail

/// What a group of layers keeps. Attention kinds hold K/V rows per token; a recurrent state is a
/// fixed size per sequence. A layer may be in two groups (Falcon-H1: attention and a state).
enum class group_kind : std::uint8_t {
  full,             ///< K and V of every token
  sliding,          ///< K and V of the last `window` tokens (sliding-window attention)
  chunked,          ///< K and V of at most `window` tokens (Llama 4 chunked local attention)
  latent,           ///< one MLA latent per token (or its per-head expansion: mla_cache_layout)
  recurrent_state,  ///< conv and SSM state per sequence (Mamba, gated-delta linear attention)
};

[[nodiscard]] constexpr auto name(group_kind k) -> std::string_view {
  switch (k) {
    case group_kind::full: return "full";
    case group_kind::sliding: return "sliding";
    case group_kind::chunked: return "chunked";
    case group_kind::latent: return "latent";
    case group_kind::recurrent_state: return "recurrent state";
  }
  return "?";
}

/// Whether a group of kind `k` keeps tokens of a window only (sliding, chunked).
[[nodiscard]] constexpr auto is_windowed(group_kind k) -> bool {
  return k == group_kind::sliding || k == group_kind::chunked;
}

/// How an engine spreads KV heads over tensor-parallel ranks.
enum class head_split : std::uint8_t {
  replicate,  ///< max(1, heads // tp): heads replicated when tp > heads (vLLM, SGLang, transformers)
  ceil,       ///< ceil(heads / tp) (TensorRT-LLM's KV cache manager)
  none,       ///< every head on the one device: no tensor parallelism (llama.cpp, the exact total)
};

/// KV heads one rank holds of `heads`, under `split` over `tp` ranks.
[[nodiscard]] constexpr auto heads_per_rank(head_split split, std::uint32_t heads, std::uint32_t tp)
    -> std::uint32_t {
  switch (split) {
    case head_split::replicate: return heads / tp > 1 ? heads / tp : 1U;
    case head_split::ceil: return static_cast<std::uint32_t>(detail::ceil_div(heads, tp));
    case head_split::none: break;
  }
  return heads;
}

/// How an engine stores a latent-attention (MLA) layer; llama.cpp changed it twice.
enum class mla_cache_layout : std::uint8_t {
  latent_k_only,   ///< K = kv_lora_rank + rope, no V (vLLM, SGLang, TRT-LLM; llama.cpp 2026 `is_mla()`)
  latent_k_and_v,  ///< llama.cpp mid-2025: K = kv_lora_rank + rope (576), V = kv_lora_rank (512)
  expanded,        ///< per-head K = heads·(nope + rope), V = heads·v_head_dim (transformers; llama.cpp early 2025)
};

/// The element type an engine keeps an `indexed` layer's index key in.
enum class index_key_type : std::uint8_t {
  k_type,   ///< K's element type (the exact cache)
  fixed,    ///< group_choices::sparse_index_dtype, whatever the KV cache's (vLLM bf16; SGLang the served dtype)
  k_and_v,  ///< K's type, and a V row of one head in V's type beside it (llama.cpp's one-head index cache)
};

/// Element types of a recurrent state: conv and SSM (SGLang keeps them apart).
struct state_dtypes {
  dtype conv = dtype::bf16;
  dtype ssm = dtype::bf16;
  friend constexpr auto operator==(state_dtypes, state_dtypes) -> bool = default;
};

/// What an engine decides about the layers' shapes before it pages anything.
struct group_choices {
  kv_dtypes kv{dtype::bf16, dtype::bf16};               ///< K and V element types
  state_dtypes state{};                                 ///< recurrent-state element types
  std::uint32_t tp = 1;                                 ///< tensor-parallel ranks
  head_split split = head_split::replicate;             ///< KV heads (and MLA query heads) per rank
  mla_cache_layout mla = mla_cache_layout::latent_k_only;
  /// The DSA indexer's keys in fp8 with a float32 scale per 128 elements (vLLM
  /// DeepseekV32IndexerCache, SGLang's NSA pool, TensorRT-LLM), else in the K element type.
  bool fp8_indexer = false;
  index_key_type sparse_index = index_key_type::k_type;  ///< an indexed layer's index key
  dtype sparse_index_dtype = dtype::bf16;                ///< its type when sparse_index is `fixed`
};

/// Layers of one shape in one stage, on one rank. Row fields are per layer; multiply by `layers`.
struct layer_group {
  group_kind kind = group_kind::full;
  std::uint32_t window = 0;    ///< W (sliding) or C (chunked) in tokens; 0 for other kinds
  std::uint32_t layers = 0;    ///< layers of this shape in the stage
  std::uint32_t kv_heads = 0;  ///< KV heads on the rank (latent MLA: 1, its one vector; expanded: query heads); 0 for a state
  bytes k_row{0};              ///< K bytes per token, one layer (latent: the latent vector)
  bytes v_row{0};              ///< V bytes per token, one layer (0 for a K-only latent)
  bytes index_row{0};          ///< of k_row (and v_row, index_key_type::k_and_v): a DSA indexer or index key per token
  bytes conv_state{0};         ///< conv state bytes per sequence, one layer
  bytes ssm_state{0};          ///< SSM state bytes per sequence, one layer
  std::uint64_t conv_elements = 0;  ///< conv state elements on the rank, one layer
  std::uint64_t ssm_elements = 0;   ///< SSM state elements on the rank, one layer
  kv_dtypes types{dtype::bf16, dtype::bf16};  ///< K and V types; for a state, conv and SSM types

  /// K + V bytes per token of one layer.
  [[nodiscard]] constexpr auto row() const -> bytes { return k_row + v_row; }
  /// Conv + SSM bytes per sequence of one layer.
  [[nodiscard]] constexpr auto state() const -> bytes { return conv_state + ssm_state; }
  /// Whether `o` has this group's shape (everything but `layers`): layers of one shape merge.
  [[nodiscard]] constexpr auto same_shape(const layer_group& o) const -> bool {
    return kind == o.kind && window == o.window && kv_heads == o.kv_heads && k_row == o.k_row &&
           index_row == o.index_row && v_row == o.v_row && conv_state == o.conv_state && ssm_state == o.ssm_state &&
           conv_elements == o.conv_elements && ssm_elements == o.ssm_elements && types == o.types;
  }
  friend constexpr auto operator==(const layer_group&, const layer_group&) -> bool = default;
};

/// Most distinct groups one stage may have: real models have at most four (Falcon-H1, Gemma 3n);
/// a spec whose layers have more distinct head counts than this is refused with an error.
inline constexpr std::size_t max_layer_groups = 32;

/// The groups of one stage, in the order their first layer appears (engines number their pools,
/// parts and vLLM groups in that order).
struct layer_groups {
  std::array<layer_group, max_layer_groups> group{};
  std::uint32_t count = 0;

  [[nodiscard]] constexpr auto begin() const -> const layer_group* { return group.data(); }
  [[nodiscard]] constexpr auto end() const -> const layer_group* { return group.data() + count; }
  [[nodiscard]] constexpr auto operator[](std::uint32_t i) const -> const layer_group& { return group[i]; }
  /// The most KV heads one rank holds in a layer (a latent layer: 1); 0 without KV layers.
  [[nodiscard]] constexpr auto max_kv_heads() const -> std::uint32_t {
    std::uint32_t most = 0;
    for (const layer_group& g : *this) {
      most = g.kv_heads > most ? g.kv_heads : most;
    }
    return most;
  }
  /// Adds one layer of `g`'s shape: to the group of that shape, else as a new group. Returns the
  /// group's index.
  constexpr auto add_layer(layer_group g) -> std::uint32_t {
    for (std::uint32_t i = 0; i < count; ++i) {
      if (group[i].same_shape(g)) {
        ++group[i].layers;
        return i;
      }
    }
    if (count == max_layer_groups) {
      throw kvsize::invalid_argument("kvsize: more distinct layer shapes than kvsize::max_layer_groups (32)");
    }
    g.layers = 1;
    group[count] = g;
    return count++;
  }
  /// Layers of kind `k` over all groups.
  [[nodiscard]] constexpr auto layers_of(group_kind k) const -> std::uint32_t {
    std::uint32_t n = 0;
    for (const layer_group& g : *this) {
      n += g.kind == k ? g.layers : 0U;
    }
    return n;
  }
};

/// Calls `on_tokens(g)` for each group that keeps rows per token (full, sliding, chunked, latent)
/// and `on_state(g)` for each recurrent state, in group order: how an engine reads its groups. A new
/// kind that an engine must page in its own way (an indexer key cache, ...) gets a callable of its
/// own here, so every engine's call stops compiling until the engine says how it pages that kind.
template <class OnTokens, class OnState>
constexpr void for_each_group(const layer_groups& groups, OnTokens&& on_tokens, OnState&& on_state) {
  for (const layer_group& g : groups) {
    switch (g.kind) {
      case group_kind::recurrent_state: on_state(g); break;
      case group_kind::full:
      case group_kind::sliding:
      case group_kind::chunked:
      case group_kind::latent: on_tokens(g); break;
    }
  }
}

namespace detail {
/// The KV group of layer `il` (kind full, sliding, chunked, latent or indexed, which is a full group
/// whose k_row holds the index key too) under `c`.
[[nodiscard]] constexpr auto kv_group_of(const model_spec& m, std::uint32_t il, layer_kind k, const group_choices& c)
    -> layer_group {
  layer_group g{};
  g.types = c.kv;
  if (k == layer_kind::latent) {
    g.kind = group_kind::latent;
    g.kv_heads = 1;  // the latent vector, replicated on every rank
    switch (c.mla) {
      case mla_cache_layout::latent_k_only: g.k_row = row_bytes(c.kv.k, latent_width(m)); break;
      case mla_cache_layout::latent_k_and_v:
        g.k_row = row_bytes(c.kv.k, latent_width(m));
        g.v_row = row_bytes(c.kv.v, m.latent.kv_lora_rank);
        break;
      case mla_cache_layout::expanded: {
        g.kv_heads = heads_per_rank(c.split, m.attention_heads, c.tp);
        const kv_row r = expanded_latent_row(m, g.kv_heads, c.kv);
        g.k_row = r.k;
        g.v_row = r.v;
        break;
      }
    }
    g.index_row = indexer_row(m, c.fp8_indexer, c.kv.k);  // DSA: the indexer's key beside the latent
    g.k_row += g.index_row;
    return g;
  }
  g.kind = k == layer_kind::sliding ? group_kind::sliding : (k == layer_kind::chunked ? group_kind::chunked : group_kind::full);
  g.window = k == layer_kind::sliding ? m.sliding_window : (k == layer_kind::chunked ? m.attention_chunk : 0U);
  g.kv_heads = heads_per_rank(c.split, kv_heads_of_layer(m, il), c.tp);
  const kv_row r = layer_attention_row(m, il, g.kv_heads, c.kv);
  g.k_row = r.k;
  g.v_row = r.v;
  if (k == layer_kind::indexed) {  // the index key, paged with the layer's K and V
    const index_key_type x = c.sparse_index;
    const bytes key = sparse_index_row(m, x == index_key_type::fixed ? c.sparse_index_dtype : c.kv.k);
    const bytes value = x == index_key_type::k_and_v ? row_bytes(c.kv.v, effective_head_dim_v(m)) : bytes{0};
    g.index_row = key + value;
    g.k_row += key;
    g.v_row += value;
  }
  return g;
}

/// The recurrent-state group of a layer under `c`: conv and SSM each split over the ranks (rounded
/// up) unless the engine has no tensor parallelism.
[[nodiscard]] constexpr auto state_group_of(const model_spec& m, const group_choices& c) -> layer_group {
  const std::uint32_t tp = c.split == head_split::none ? 1U : c.tp;
  layer_group g{};
  g.kind = group_kind::recurrent_state;
  g.conv_elements = ceil_div(m.state.conv_elements, tp);
  g.ssm_elements = ceil_div(m.state.ssm_elements, tp);
  g.conv_state = storage_bytes(c.state.conv, g.conv_elements);
  g.ssm_state = storage_bytes(c.state.ssm, g.ssm_elements);
  g.types = {c.state.conv, c.state.ssm};
  return g;
}

/// The groups of stage `r` of a spec already checked: the one loop over layers that every engine
/// sizes from. A layer adds its KV group first, then its state group (the order vLLM registers specs).
/// Layers of one (kind, KV heads, head dimensions) shape share their rows, worked out once per shape
/// (the last shape seen is tried first: layers come in runs) and once for the state.
[[nodiscard]] constexpr auto group_layers(const model_spec& m, stage_range r, const group_choices& c) -> layer_groups {
  if (c.tp == 0) {
    throw kvsize::invalid_argument("kvsize: --tp and --pp must be positive");
  }
  if (r.first > m.layers || r.count > m.layers - r.first) {
    throw kvsize::invalid_argument("kvsize: pipeline stage out of range");
  }
  struct pair_seen {  // one layer shape: kind, KV heads and head dimensions
    layer_kind kind = layer_kind::full;
    std::uint32_t heads = 0;
    std::uint32_t head_dim = 0;
    std::uint32_t head_dim_v = 0;
    std::uint32_t group = 0;
    [[nodiscard]] constexpr auto same(const pair_seen& o) const -> bool {
      return kind == o.kind && heads == o.heads && head_dim == o.head_dim && head_dim_v == o.head_dim_v;
    }
  };
  std::array<pair_seen, max_layer_groups> seen{};
  std::uint32_t n_seen = 0;
  std::uint32_t last = 0;           // index in `seen` of the previous KV layer's pair
  std::uint32_t state_group = ~0U;  // index of the state group, once made
  layer_groups out{};
  for (std::uint32_t il = r.first; il < r.first + r.count; ++il) {
    const layer_kind k = kind_of_layer(m, il);
    if (k != layer_kind::none && k != layer_kind::shared) {
      const pair_seen shape{k, kv_heads_of_layer(m, il), head_dim_of_layer(m, il), head_dim_v_of_layer(m, il), 0};
      if (n_seen == 0 || !seen[last].same(shape)) {
        last = 0;
        while (last < n_seen && !seen[last].same(shape)) {
          ++last;
        }
      }
      if (last < n_seen) {
        ++out.group[seen[last].group].layers;
      } else {
        if (n_seen == max_layer_groups) {
          throw kvsize::invalid_argument("kvsize: more distinct layer shapes than kvsize::max_layer_groups (32)");
        }
        seen[n_seen] = shape;
        seen[n_seen++].group = out.add_layer(kv_group_of(m, il, k, c));
      }
    }
    if (layer_keeps_state(m, il)) {
      if (state_group == ~0U) {
        state_group = out.add_layer(state_group_of(m, c));
      } else {
        ++out.group[state_group].layers;
      }
    }
  }
  return out;
}
}  // namespace detail

/// The layer groups of layers [r.first, r.first + r.count) of `m` on one rank under `c`. Checks the
/// spec as validate() does (but for overrides beyond `layers`) and the range; throws
/// kvsize::invalid_argument naming the rule (a compile error in a constant expression).
[[nodiscard]] constexpr auto make_layer_groups(const model_spec& m, detail::stage_range r, const group_choices& c)
    -> layer_groups {
  detail::check_model(m);
  return detail::group_layers(m, r, c);
}
/// ... for every layer of `m`.
[[nodiscard]] constexpr auto make_layer_groups(const model_spec& m, const group_choices& c) -> layer_groups {
  return make_layer_groups(m, detail::stage_range{0, m.layers}, c);
}

}  // namespace kvsize
