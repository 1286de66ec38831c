// SPDX-License-Identifier: MIT
// MiniMax-M3's block-sparse attention (sparse_attention_config): the layers it marks keep, beside their K
// and V, one index key per token that the lightning indexer scores to pick the blocks a query attends to.
// Read as vLLM (models/minimax_m3/nvidia/model.py @90215894, MiniMaxM3SparseAttention and, in
// common/indexer.py, MiniMaxM3IndexerCache.get_kv_cache_spec: one head of sparse_index_dim, key only),
// SGLang (configs/model_config.py: a layer is sparse iff sparse_attention_freq[i] != 0; mem_cache/memory_pool.py
// MiniMaxSparseKVPool) and transformers (models/minimax_m3_vl MiniMaxM3VLSparseCacheLayer, idx_keys) build it.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint32_t
#include <string>   // std::string, std::to_string

#include "config_view.hpp"
#include "layer_decision.hpp"

namespace kvsize::hf::detail::plan_detail {

/// sparse_attention_config, for the families that read it (family::sparse_attention_keys):
/// - absent or null, or use_sparse_attention false: no layer is sparse, every layer plain attention;
/// - sparse_attention_freq: one 0/1 entry per layer, 1 where the layer is sparse (layer_kind::indexed);
/// - sparse_index_dim: the index key's elements (one head: MiniMaxM3IndexerCache num_kv_heads = 1);
/// - sparse_disable_index_value: one 0/1 entry per layer, 1 on every sparse layer. Where a sparse layer has 0
///   SGLang also caches an index value (MiniMaxSparseKVPool.index_kv_pool), which vLLM never creates: kvsize
///   refuses it rather than guess;
/// - sparse_block_size: 128, the block every engine's kernels select (vLLM's SPARSE_BLOCK_SIZE, TensorRT-LLM's
///   MSA backend); another value is refused, as no engine runs it.
inline void apply_sparse_attention_config(const config_view& v, const plan_facts& f, layer_plan& p) {
  if (!v.facts().sparse_attention_keys) {
    return;
  }
  const slot config = v.get("sparse_attention_config");
  if (!config.set()) {
    return;
  }
  require_object(config);
  const json& c = *config.value;
  if (const slot use = lookup(c, config.pointer(), "use_sparse_attention"); use.set() && !read_bool(use)) {
    return;
  }
  const slot freq = lookup(c, config.pointer(), "sparse_attention_freq");
  require_array(freq, f.layers, "one per layer: 1 where the layer is sparse and keeps an index key");
  const slot disable = lookup(c, config.pointer(), "sparse_disable_index_value");
  if (disable.set()) {
    require_array(disable, f.layers, "one per layer: 1 where a sparse layer keeps no index value");
  }
  const slot dim = lookup(c, config.pointer(), "sparse_index_dim");
  const std::uint32_t width = dim.set() ? read_u32(dim, 1, 0xFFFFU) : 0;
  // sparse_num_index_heads is weights only: attention_weights.hpp reads it, and a bad value is a warning there.
  if (const slot block = lookup(c, config.pointer(), "sparse_block_size"); block.set() && read_u32(block, 1) != 128) {
    fail(config_errc::unsupported, block.pointer(),
         "expected 128, the sparse block every engine's kernels use, got " + describe(*block.value));
  }
  std::uint32_t sparse = 0;
  for (std::uint32_t i = 0; i < f.layers; ++i) {
    const bool keeps_no_value = disable.set() && read_flag(element(disable, i));
    if (!read_flag(element(freq, i))) {
      continue;
    }
    if (p.layer[i].kind != layer_kind::full) {
      fail(config_errc::unsupported, element(freq, i).pointer(),
           "a sparse layer must be a full-attention layer; layer " + std::to_string(i) + " is " +
               std::string(kvsize::name(p.layer[i].kind)));
    }
    if (!disable.set()) {  // the value list is needed once a layer is sparse
      require_array(disable, f.layers, "one per layer: 1 where a sparse layer keeps no index value");
    }
    if (!keeps_no_value) {
      fail(config_errc::unsupported, element(disable, i).pointer(),
           "a sparse layer that keeps an index value (SGLang's index_kv_pool) is not modelled; every published "
           "MiniMax-M3 config sets 1 here");
    }
    p.layer[i].kind = layer_kind::indexed;
    ++sparse;
  }
  if (sparse == 0) {
    return;
  }
  p.sparse_index_dim = width != 0 ? width : read_u32(dim, 1, 0xFFFFU);  // absent: the missing-key error
  p.append_reason([](const layer_decision& d) { return d.kind == layer_kind::indexed; },
                  {freq.pointer(), reason_rule::note,
                   "sparse: K and V, and one index key of " + std::to_string(p.sparse_index_dim) +
                       " elements per token from " + dim.pointer() + " (" + freq.pointer() + " is 1)",
                   {}});
}

}  // namespace kvsize::hf::detail::plan_detail
