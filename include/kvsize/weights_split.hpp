// SPDX-License-Identifier: MIT
// kvsize::weights_split: weights_bytes divided by how tensor parallelism shares each tensor out, so the
// weights one of tp ranks holds are (split)/tp + (whole) + (K/V)/min(tp, KV heads), not all/tp. A plain
// struct (bytes.hpp only), so that plan_types.hpp can hold one; weights_bytes.hpp fills it (weights_split_of).
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>    // std::array
#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint32_t

#include "bytes.hpp"

namespace kvsize {

/// Where an engine keeps the token embedding under data-parallel attention.
enum class dp_embedding : std::uint8_t {
  whole,            ///< every GPU holds it whole (VocabParallelEmbedding enable_tp=False)
  attention_group,  ///< split over one attention rank's GPUs (use_attn_tp_group=True)
  tensor_parallel,  ///< split over all tp GPUs, as without DP attention
};

/// SGLang's data-parallel layouts. Data-parallel attention: each attention rank runs attention for its own requests
/// over `attention_tp` GPUs (attn_tp_size = tp / dp: layers/dp_attention.py compute_dp_attention_world_info); 0:
/// none. Data-parallel dense MLPs (`dense_mlp_whole`), with or without it.
struct dp_attention_layout {
  std::uint32_t attention_tp = 0;
  dp_embedding embedding = dp_embedding::whole;
  bool lm_head_over_group = false;  ///< the LM head over the attention group too (SGLang --enable-dp-lm-head)
  /// The dense MLP layers of a MoE model whole on every GPU, DP attention or not (SGLang --moe-dense-tp-size 1).
  bool dense_mlp_whole = false;
};

/// The weights of format f, by how vLLM and SGLang share them over tensor-parallel ranks (the layer type each model
/// builds a tensor with: weight_tensor::tp_max_ways; sources in docs/research/replicated-weights.md):
///   split       ColumnParallelLinear, RowParallelLinear, VocabParallelEmbedding, FusedMoE: 1/tp on each rank
///   whole       ReplicatedLinear (routers, MLA's q_a/kv_a projections, DSA's indexer, a latent MoE's projections),
///               norms (not those split by head), a RowParallelLinear's bias, e_score_correction_bias, the MTP
///               eh_proj: every rank holds all of it
///   by_kv_head  K and V projections (QKVParallelLinear): split over at most as many ranks as the layer has KV
///               heads, each KV head copied to tp / kv_heads ranks past that
///   attention   under data-parallel attention (SGLang's DP attention, attention_tp set): the attention tensors
///               that tensor parallelism splits, and the token embedding where the engine shares it so, split over
///               the attention_tp GPUs of one attention rank; by_kv_head then splits over at most attention_tp
///   dp_whole    what the engine keeps whole only while DP attention is on (SGLang's token embedding,
///               VocabParallelEmbedding enable_tp=False): whole at tp > attention_tp, split over tp at
///               tp <= attention_tp, where there is one rank and SGLang turns DP attention off
/// DeepSeek-V3 FP8: whole = 1,138,633,568 B (the q_a/kv_a projections and their scales, four norms a layer, the
/// routers and their correction biases, the final norm), which all/8 counted as 142,329,196 B a rank at tp 8.
struct weights_split {
  /// K/V bytes of the layers with `heads` KV heads (one layer type: Gemma 4's full layers have fewer than its
  /// sliding ones).
  struct kv_share {
    std::uint32_t heads = 0;  ///< 0: an unused slot
    bytes size{0};
  };
  /// Slots for distinct KV head counts; a fifth count joins the slot with the fewest heads (more copies: the
  /// figure errs high, never low).
  static constexpr std::size_t kv_slots = 4;

  bytes split{0};
  bytes whole{0};
  std::array<kv_share, kv_slots> by_kv_head{};
  bytes attention{0};
  bytes dp_whole{0};
  /// The GPUs one data-parallel attention rank splits `attention` and the K/V projections over (SGLang's
  /// attn_tp_size = tp / dp); 0: no DP attention, both split over tp.
  std::uint32_t attention_tp = 0;

  /// Adds `size` bytes of K/V split over at most `heads` ranks.
  constexpr void add_kv(std::uint32_t heads, bytes size) {
    kv_share* fewest = nullptr;
    for (kv_share& s : by_kv_head) {
      if (s.heads == heads || s.heads == 0) {
        s.heads = heads;
        s.size += size;
        return;
      }
      fewest = fewest == nullptr || s.heads < fewest->heads ? &s : fewest;
    }
    fewest->heads = heads < fewest->heads ? heads : fewest->heads;
    fewest->size += size;
  }
  /// Every K/V byte, whatever its head count.
  [[nodiscard]] constexpr auto kv_total() const -> bytes {
    bytes sum{0};
    for (const kv_share& s : by_kv_head) {
      sum += s.size;
    }
    return sum;
  }
  [[nodiscard]] constexpr auto total() const -> bytes { return split + whole + kv_total() + attention + dp_whole; }

  /// Calls share(size, ranks) for each share: its bytes and how many of `tp` ranks split it (1: every rank holds
  /// it whole). DP attention is on at tp > attention_tp (attention_tp set): `attention` and the K/V over a rank's
  /// attention_tp GPUs, `dp_whole` whole; at tp <= attention_tp (one rank: off) both over tp, as without it.
  template <class Share>
  constexpr void for_each_share(std::uint32_t tp, Share&& share) const {
    const std::uint32_t ranks = tp == 0 ? 1U : tp;
    const bool dp_attention = attention_tp != 0 && attention_tp < ranks;
    const std::uint32_t attention_ranks = dp_attention ? attention_tp : ranks;
    share(split, ranks);
    share(whole, 1U);
    share(dp_whole, dp_attention ? 1U : ranks);
    share(attention, attention_ranks);
    for (const kv_share& s : by_kv_head) {
      share(s.size, s.heads != 0 && s.heads < attention_ranks ? s.heads : attention_ranks);
    }
  }

  /// The weights one of `tp` tensor-parallel ranks holds, each share rounded up:
  ///   split / tp + whole + dp_whole (/ tp without DP attention) + attention / a + Σ kv_i / min(a, heads_i),
  /// a = attention_tp under DP attention (tp > attention_tp), else tp.
  [[nodiscard]] constexpr auto per_rank(std::uint32_t tp) const -> bytes {
    bytes sum{0};
    for_each_share(tp, [&](bytes size, std::uint32_t ranks) { sum += size / ranks; });
    return sum;
  }

  /// The part of per_rank(tp) every rank holds whole: `whole`, and each share split over one rank (the K/V of a
  /// single KV head; under DP attention with one GPU a rank, its attention and K/V; dp_whole under DP attention).
  [[nodiscard]] constexpr auto whole_per_rank(std::uint32_t tp) const -> bytes {
    bytes sum{0};
    for_each_share(tp, [&](bytes size, std::uint32_t ranks) { sum += ranks == 1 ? size : bytes{0}; });
    return sum;
  }

  /// The weights of one of tp × pp devices: per_rank(tp) over pp pipeline stages (an even split of the layers:
  /// the embedding and the head make the first and last stage a little heavier in reality).
  [[nodiscard]] constexpr auto per_device(std::uint32_t tp, std::uint32_t pp) const -> bytes {
    return per_rank(tp) / (pp == 0 ? 1U : pp);
  }
};

}  // namespace kvsize
