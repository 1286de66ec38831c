// SPDX-License-Identifier: MIT
// The steps every engine's size_stage shares: the layers of a pipeline stage, the options check, the
// sizing a stage starts from, the stage's layer groups as the engine shapes them, and the cache_part
// of a group kind. Standard library only, constexpr.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>    // std::min
#include <cstdint>      // std::uint32_t, std::uint64_t
#include <string_view>  // std::string_view

#include "../dtype.hpp"
#include "../error.hpp"
#include "../layer_groups.hpp"
#include "../model_spec.hpp"
#include "dtype_rules.hpp"
#include "engine_options.hpp"
#include "engine_sizing.hpp"

namespace kvsize::detail {

/// Layers [first, first + count) of PP stage `stage` of `pp` (vLLM's get_pp_indices: the
/// remainder goes to the stages before the last). stage_range is layer_groups.hpp's.
[[nodiscard]] constexpr auto pp_stage(std::uint32_t layers, std::uint32_t pp, std::uint32_t stage) -> stage_range {
  if (pp == 0 || stage >= pp) {
    throw kvsize::invalid_argument("kvsize: pipeline stage out of range");
  }
  const std::uint32_t base = layers / pp;
  const std::uint32_t rest = layers % pp;
  // stages pp-1-rest .. pp-2 get one more layer.
  stage_range r{};
  for (std::uint32_t s = 0; s <= stage; ++s) {
    const bool extra = rest != 0 && s + 1 + rest >= pp && s + 1 < pp;
    const std::uint32_t n = base + (extra ? 1U : 0U);
    if (s == stage) {
      r.count = n;
    } else {
      r.first += n;
    }
  }
  return r;
}

/// The context a sizing is for: `o.context`, or the model's maximum when 0 (vLLM and SGLang fill in their own
/// first: with_default_context).
[[nodiscard]] constexpr auto context_of(const model_spec& m, const engine_options& o) -> std::uint64_t {
  return o.context != 0 ? o.context : m.max_context;
}

/// `o`, its context the engine's default `engine_default` where none is given (an engine's default_context; 0
/// leaves it unset: the model's maximum).
[[nodiscard]] constexpr auto with_default_context(engine_options o, std::uint64_t engine_default) -> engine_options {
  if (o.context == 0) {
    o.context = engine_default;
  }
  return o;
}

/// An engine that pages by the context needs one: `why` says so in its words ("kvsize: vLLM needs
/// a context (max_model_len)").
constexpr void require_context(std::uint64_t context, const char* why) {
  if (context == 0) {
    throw kvsize::invalid_argument(why);
  }
}

/// An engine that does not serve this model (or whose cache for it kvsize does not model) says why in
/// its model_refusal, a string literal; its size_stage starts by refusing it here.
constexpr void require_served(std::string_view why) {
  if (!why.empty()) {
    throw kvsize::invalid_argument(why.data());  // a string literal: null-terminated
  }
}

/// What every engine's sizing of stage `r` starts from: the engine, the element types its own rules
/// chose (`t`: K/V and states, its `stage_types`), the stage's layers, and the context (--context,
/// or the model's maximum when 0; llama.cpp then replaces it with its padded n_ctx).
[[nodiscard]] constexpr auto start_sizing(engine_kind e, const model_spec& m, const engine_options& o,
                                          stage_range r, const stage_dtypes& t) -> engine_sizing {
  check_model(m);  // every engine's size_stage starts here: none sizes an invalid spec
  engine_sizing s{};
  s.engine = e;
  s.kv = t.kv;
  s.state = t.state;
  s.first_layer = r.first;
  s.stage_layers = r.count;
  s.context = context_of(m, o);
  return s;
}

/// The layer groups of the stage `s` sizes, as its engine shapes them: `s.kv` K/V types, `s.state`
/// state types, `o.tp` ranks split by `split`, MLA stored as `mla`, index keys as `sparse_index` (in
/// `sparse_index_dtype` when fixed); and s.kv_heads_per_rank, the
/// most KV heads a rank holds in them (a latent layer's one vector: 1). For a spec start_sizing
/// has checked.
[[nodiscard]] constexpr auto engine_groups(const model_spec& m, const engine_options& o, engine_sizing& s,
                                           head_split split,
                                           mla_cache_layout mla = mla_cache_layout::latent_k_only,
                                           bool fp8_indexer = false,
                                           index_key_type sparse_index = index_key_type::k_type,
                                           dtype sparse_index_dtype = dtype::bf16) -> layer_groups {
  const group_choices c{.kv = s.kv, .state = s.state, .tp = o.tp, .split = split, .mla = mla, .fp8_indexer = fp8_indexer,
                        .sparse_index = sparse_index, .sparse_index_dtype = sparse_index_dtype};
  const layer_groups groups = group_layers(m, {s.first_layer, s.stage_layers}, c);
  s.kv_heads_per_rank = groups.max_kv_heads();
  return groups;
}

/// A cache_part of kind `k` with `types`.
[[nodiscard]] constexpr auto part_of(group_kind k, kv_dtypes types) -> cache_part {
  cache_part p{};
  p.group = k;
  p.types = types;
  return p;
}

/// Adds group `g`'s K, V and K+V bytes per token (whole rows × layers) to the part of `s` of its
/// kind and window, made on first sight: the rates an engine that charges every layer by the
/// tokens it holds (exact, transformers) re-derives a context from (with_context). Windows are
/// the model's (one per windowed kind), so there are at most four such parts.
constexpr void add_rate_part(engine_sizing& s, const layer_group& g) {
  cache_part* p = nullptr;
  for (std::uint32_t i = 0; i < s.part_count && p == nullptr; ++i) {
    p = s.parts[i].group == g.kind && s.parts[i].window == g.window ? &s.parts[i] : nullptr;
  }
  if (p == nullptr) {
    p = &s.add_part(part_of(g.kind, s.kv));
    p->window = g.window;
  }
  p->layers += g.layers;
  p->k_per_token += g.k_row * g.layers;
  p->v_per_token += g.v_row * g.layers;
  p->bytes_per_token += g.row() * g.layers;
}

/// Serving engines that store one element per byte-addressable unit (no GGML blocks).
constexpr void require_plain_types(kv_dtypes t) {
  if (traits(t.k).block_elements != 1 || traits(t.v).block_elements != 1) {
    throw kvsize::invalid_argument("kvsize: this engine has no GGML block-quantized KV cache (q8_0, q4_0, ...)");
  }
}

/// start_sizing for an engine that stores plain elements (vLLM, SGLang, TensorRT-LLM,
/// transformers: require_plain_types).
[[nodiscard]] constexpr auto start_plain_sizing(engine_kind e, const model_spec& m, const engine_options& o,
                                                stage_range r, const stage_dtypes& t) -> engine_sizing {
  engine_sizing s = start_sizing(e, m, o, r, t);
  require_plain_types(s.kv);
  return s;
}

/// Tokens of a shared prefix of `s` tokens still held by a group of kind `k` at `context` tokens:
/// windowed groups hold the part of the prefix inside their last `window` tokens; a state none.
[[nodiscard]] constexpr auto prefix_tokens_held(group_kind k, std::uint64_t window, std::uint64_t s,
                                                std::uint64_t context) -> std::uint64_t {
  s = std::min(s, context);
  switch (k) {
    case group_kind::sliding:
    case group_kind::chunked: {
      const std::uint64_t oldest = context > window ? context - window : 0;  // first position still held
      return s > oldest ? s - oldest : 0;
    }
    case group_kind::recurrent_state: return 0;
    case group_kind::full:
    case group_kind::latent: break;
  }
  return s;
}

constexpr void check_options(const model_spec& m, const engine_options& o) {
  validate(m);
  if (o.tp == 0 || o.pp == 0) {
    throw kvsize::invalid_argument("kvsize: --tp and --pp must be positive");
  }
  if (o.pp > m.layers) {
    throw kvsize::invalid_argument("kvsize: more pipeline stages than layers");
  }
  if (o.batch == 0 || o.llama_cpp.parallel == 0) {
    throw kvsize::invalid_argument("kvsize: batch and parallel must be positive");
  }
}

}  // namespace kvsize::detail
