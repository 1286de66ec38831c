// SPDX-License-Identifier: MIT
// kvsize::weights_split: weights_bytes divided by how tensor parallelism shares each tensor out, so the
// weights one of tp ranks holds are (split)/tp + (whole) + (K/V)/min(tp, KV heads), not all/tp. A plain
// struct (bytes.hpp only), so that plan_types.hpp can hold one; weights_bytes.hpp fills it (weights_split_of).
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint32_t

#include "bytes.hpp"

namespace kvsize {

/// The weights of format f, by how vLLM and SGLang share them over tensor-parallel ranks (the layer type each model
/// builds a tensor with: weight_tensor::tp_max_ways; sources in docs/research/replicated-weights.md):
///   split       ColumnParallelLinear, RowParallelLinear, VocabParallelEmbedding, FusedMoE: 1/tp on each rank
///   whole       ReplicatedLinear (routers, MLA's q_a/kv_a projections, DSA's indexer), norms, a RowParallelLinear's
///               bias, e_score_correction_bias, the MTP eh_proj: every rank holds all of it
///   by_kv_head  K and V projections (QKVParallelLinear): split over at most `kv_heads` ranks, each KV head copied
///               to tp / kv_heads ranks past that
/// DeepSeek-V3 FP8: whole = 1,138,633,568 B (the q_a/kv_a projections and their scales, four norms a layer, the
/// routers and their correction biases, the final norm), which all/8 counted as 142,329,196 B a rank at tp 8.
struct weights_split {
  bytes split{0};
  bytes whole{0};
  bytes by_kv_head{0};
  std::uint32_t kv_heads = 0;  ///< the fewest KV heads of a by_kv_head tensor (0: there is none)

  [[nodiscard]] constexpr auto total() const -> bytes { return split + whole + by_kv_head; }

  /// The weights one of `tp` tensor-parallel ranks holds, each share rounded up:
  ///   split / tp + whole + by_kv_head / min(tp, kv_heads)
  [[nodiscard]] constexpr auto per_rank(std::uint32_t tp) const -> bytes {
    const std::uint32_t ranks = tp == 0 ? 1U : tp;
    const std::uint32_t kv_ways = kv_heads != 0 && kv_heads < ranks ? kv_heads : ranks;
    return split / ranks + whole + by_kv_head / kv_ways;
  }

  /// The weights of one of tp × pp devices: per_rank(tp) over pp pipeline stages (an even split of the layers:
  /// the embedding and the head make the first and last stage a little heavier in reality).
  [[nodiscard]] constexpr auto per_device(std::uint32_t tp, std::uint32_t pp) const -> bytes {
    return per_rank(tp) / (pp == 0 ? 1U : pp);
  }
};

}  // namespace kvsize
