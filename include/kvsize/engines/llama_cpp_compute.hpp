// SPDX-License-Identifier: MIT
// llama.cpp's compute and output buffers: what a context reserves besides the model and KV buffers
// (issue 13). Standard library only, constexpr, allocation-free.
//
// src/llama-context.cpp, llama_context::llama_context (https://github.com/ggml-org/llama.cpp): after
// the KV cache, the context reserves its worst-case graph, a prompt-processing ubatch of
// T = min(n_ctx, n_ubatch) tokens with every token an output (graph_reserve(n_tokens, n_seqs,
// n_tokens)), then the one-token graph, and logs "<backend> compute buffer size = X MiB" for each
// backend. ggml-alloc (ggml/src/ggml-alloc.c, ggml_gallocr_allocate_node) frees a tensor after its
// last consumer and reuses the memory, so a buffer is the peak of the tensors live at once, not a
// sum; it only grows, so the printed size is the largest of the reserves: the prompt graph. Its
// three peaks (llama-graph.cpp build_attn_mha, build_inp_out_ids):
//   output     the logits of all T tokens and the last norm: T × (n_vocab + n_embd) × 4 B
//   attention  the tensors live beside the scores: the residual, the normed input, Q and the attention
//              output (T × (2·n_embd + heads·(d + d_v)) × 4 B; K and V are views of the cache), the KQ
//              mask's copy on the device (n_kv × pad(T, 64) × 4 B, and its f16 cast with flash
//              attention), and without flash attention the score matrix KQ, n_kv × T × n_head × 4 B
//              (the softmax runs in place)
//   MLP        the residual, the normed input, gate, up and their product (T × (2·n_embd + 3·n_ff) × 4
//              B; 2·n_ff ungated) and the mask
// The host compute buffer holds the graph's inputs: the f32 mask and the token-embedding lookup
// (n_kv × pad(T, 64) × 4 + T × n_embd × 4 B); the output buffer n_vocab × n_seq_max × 4 B (host).
// Public logs and the error of this model: docs/research/llama-cpp-compute.md.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint64_t

#include "../bytes.hpp"
#include "../detail/checked.hpp"
#include "../model_spec.hpp"
#include "../layer_widths.hpp"
#include "engine_options.hpp"

namespace kvsize::engines::llama_cpp {

/// GGML_KQ_MASK_PAD: the mask's token dimension is padded to 64 (2025 builds; 32 before).
inline constexpr std::uint64_t kq_mask_pad = 64;

/// The buffers a llama.cpp context reserves beside the model and the KV cache, in bytes.
struct compute_buffers {
  bytes device{0};  ///< "CUDA0 compute buffer size": the largest of output, attention and MLP
  bytes output{0};  ///< the output peak: T × (n_vocab + n_embd) × 4 B
  bytes attention{0};
  bytes mlp{0};
  bytes host{0};           ///< "CUDA_Host compute buffer size": the graph's inputs
  bytes output_buffer{0};  ///< "CUDA_Host output buffer size": n_vocab × n_seq_max × 4 B
};

/// The compute buffers of a context with `n_ctx` cells (padded, as the cache has them) in `streams`
/// streams, `n_seq` sequences, physical batch `ubatch`, flash attention on or off.
[[nodiscard]] constexpr auto compute_buffers_of(const model_spec& m, std::uint64_t n_ctx, std::uint64_t streams,
                                                std::uint64_t n_seq, std::uint64_t ubatch, bool flash_attn)
    -> compute_buffers {
  using kvsize::detail::checked_add;
  using kvsize::detail::checked_mul;
  using kvsize::detail::round_up;
  const std::uint64_t t = ubatch;
  const std::uint64_t h = m.hidden_size;
  const std::uint64_t d = effective_head_dim(m);
  const std::uint64_t dv = effective_head_dim_v(m);
  const std::uint64_t heads = m.attention_heads;
  const std::uint64_t n_ff = widest_mlp_width(m);  // the widest layer's n_ff (hparams.n_ff(il))
  // The mask: per stream, its cells × the stream's tokens padded to 64.
  const std::uint64_t per_stream_cells = n_ctx / (streams == 0 ? 1 : streams);
  const std::uint64_t mask_elements =
      checked_mul(checked_mul(per_stream_cells, round_up(kvsize::detail::ceil_div(t, streams), kq_mask_pad)), streams);
  const bytes mask = bytes{checked_mul(mask_elements, 4)};
  compute_buffers b{};
  b.output = bytes{checked_mul(checked_mul(t, checked_add(m.vocab_size, h)), 4)};
  const std::uint64_t attention_elements = checked_add(checked_mul(2, h), checked_mul(heads, d + dv));
  b.attention = bytes{checked_mul(checked_mul(t, attention_elements), 4)} + mask;
  if (flash_attn) {
    b.attention += bytes{checked_mul(mask_elements, 2)};  // the f16 cast FLASH_ATTN_EXT reads
  } else {
    // KQ: every token's scores over its stream's cells, all heads, float32.
    b.attention += bytes{checked_mul(checked_mul(checked_mul(t, per_stream_cells), heads), 4)};
  }
  const std::uint64_t mlp_elements = checked_add(checked_mul(2, h), checked_mul(m.gated_mlp ? 3 : 2, n_ff));
  b.mlp = bytes{checked_mul(checked_mul(t, mlp_elements), 4)} + mask;
  b.device = max(b.output, max(b.attention, b.mlp));
  b.host = mask + bytes{checked_mul(checked_mul(t, h), 4)};
  b.output_buffer = bytes{checked_mul(checked_mul(m.vocab_size, n_seq), 4)};
  return b;
}

/// Whether compute_buffers_of can be estimated for `m`: it reads the widest layer's MLP, which a spec
/// read from a config that gives no width does not hold (first_layer_without_mlp_width). A GGUF's
/// layers of feed_forward_length 0 have no MLP (ffn_kind::none), so a GGUF's buffer is always known.
[[nodiscard]] constexpr auto compute_buffer_known(const model_spec& m) -> bool {
  return first_layer_without_mlp_width(m) >= m.layers;
}

}  // namespace kvsize::engines::llama_cpp
