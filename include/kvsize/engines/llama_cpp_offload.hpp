// SPDX-License-Identifier: MIT
// llama.cpp's partial offload on one GPU (-ngl, --n-cpu-moe, --cpu-moe, -nkvo): the weights, KV cache
// and compute buffer each side holds, and the largest -ngl that leaves --fit's margin free.
// Facts (docs/research/llama-cpp-offload.md): src/llama-model.cpp `llama_model::load_tensors`
// (`get_layer_buft_list`): n_layer + 1 slots, the blocks 0 … n_layer−1 and the output layer n_layer;
// since PR #18148 (https://github.com/ggml-org/llama.cpp/pull/18148) `i_gpu_start = max(n_layer + 1 − N, 0)`,
// so -ngl N offloads the output layer first, then the blocks from the top down; the input layer
// (token_embd) stays on the host. The KV cache of a block lives on its block's device (-nkvo: all on
// the host); common/common.h `llm_ffn_exps_block_regex` moves a block's ffn_*_exps to the host.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>   // std::uint32_t, std::uint64_t
#include <limits>    // std::numeric_limits
#include <optional>  // std::optional
#include <span>      // std::span

#include "../error.hpp"
#include "llama_cpp.hpp"

namespace kvsize::engines::llama_cpp {

/// A model's weights by llama.cpp's layer slot, in bytes (from a GGUF's tensor table). Blocks
/// llama.cpp does not load (NextN/MTP blocks, created with TENSOR_SKIP) have 0 bytes here.
struct slot_weights {
  std::span<const std::uint64_t> block;          ///< Σ blk.<il>.* bytes, one entry per block
  std::span<const std::uint64_t> block_experts;  ///< of which blk.<il>.ffn_*_(ch)exps; empty for a dense model
  bytes output{0};           ///< the output slot: output.weight, output_norm and the other non-block tensors
  bytes token_embedding{0};  ///< token_embd.weight: always on the host (llama.cpp's dev_input is the CPU)
  bool tied_output = false;  ///< no output.weight: the output slot holds its own copy of token_embd
  /// The other input-layer tensors (src/llama-arch.cpp LLM_TENSOR_INFOS, LLM_TENSOR_LAYER_INPUT:
  /// position_embd, token_types, per_layer_token_embd): on the host too.
  bytes other_input{0};
};

/// The flags of one llama.cpp run that decide where things go.
struct offload_request {
  std::uint32_t n_gpu_layers = std::numeric_limits<std::uint32_t>::max();  ///< -ngl; ≥ n_layer + 1: all
  std::uint32_t n_cpu_moe = 0;  ///< --n-cpu-moe N: blocks 0 … N−1 keep their experts on the host
  bool cpu_moe = false;         ///< --cpu-moe: every block keeps its experts on the host
  bool kv_offload = true;       ///< false is -nkvo: every layer's KV cache on the host
  /// true: builds since PR #18148 (December 2025), the output layer goes first. false: older builds,
  /// `i_gpu_start = max(n_layer − N, 0)`, so the output layer goes only with -ngl ≥ n_layer + 1.
  bool output_layer_first = true;
};

/// Where one run puts its bytes: "offloaded X/Y layers to GPU", the GPU's model, KV and compute
/// buffers, and the host's model and KV buffers (the host compute and output buffers are not counted).
struct offload_split {
  std::uint32_t gpu_slots = 0;        ///< X: slots on the GPU (the output layer counts as one)
  std::uint32_t slots = 0;            ///< Y = n_layer + 1
  std::uint32_t first_gpu_block = 0;  ///< blocks [first_gpu_block, n_layer) are on the GPU
  bool output_on_gpu = false;         ///< the output slot (output.weight, output_norm) is on the GPU
  bytes device_weights{0};
  bytes device_kv{0};
  bytes device_state{0};    ///< recurrent state ("RS buffer") of the GPU blocks
  bytes device_compute{0};  ///< the full-offload compute buffer: a floor (see split_layers)
  bytes host_weights{0};
  bytes host_kv{0};
  bytes host_state{0};

  [[nodiscard]] constexpr auto device_total() const -> bytes {
    return device_weights + device_kv + device_state + device_compute;
  }
  [[nodiscard]] constexpr auto host_total() const -> bytes { return host_weights + host_kv + host_state; }
};

namespace detail {
/// K + V bytes ("KV buffer size") and recurrent state bytes ("RS buffer size") of blocks
/// [first, first + count) at the cells of `o`; an empty range (no block on that side) holds none,
/// and size_stage sizes at least one layer, so it is not asked.
struct cache_bytes {
  bytes kv{0};
  bytes state{0};
};
[[nodiscard]] constexpr auto caches_of_blocks(const model_spec& m, const engine_options& o, std::uint32_t first,
                                              std::uint32_t count) -> cache_bytes {
  cache_bytes c;
  if (count == 0) {
    return c;
  }
  const engine_sizing s = size_stage(m, o, {first, count});
  for (std::uint32_t i = 0; i < s.part_count; ++i) {
    const cache_part& p = s.part(i);
    (p.group == group_kind::recurrent_state ? c.state : c.kv) += p.k_bytes + p.v_bytes;
  }
  return c;
}

/// split_layers with the GPU compute buffer given (`device_compute`): it does not depend on -ngl, so
/// a search over -ngl computes it once.
[[nodiscard]] constexpr auto place_slots(const model_spec& m, const engine_options& o, const slot_weights& w,
                                         const offload_request& r, bytes device_compute) -> offload_split {
  if (m.layers > max_layers || w.block.size() > m.layers ||
      (!w.block_experts.empty() && w.block_experts.size() != w.block.size())) {
    throw kvsize::invalid_argument("kvsize: the weights by slot do not match the model's blocks");
  }
  offload_split s{};
  s.slots = m.layers + 1;
  s.gpu_slots = r.n_gpu_layers < s.slots ? r.n_gpu_layers : s.slots;
  if (r.output_layer_first) {
    const std::uint32_t first_slot = s.slots - s.gpu_slots;  // i_gpu_start = max(n_layer + 1 − N, 0)
    s.first_gpu_block = first_slot < m.layers ? first_slot : m.layers;
    s.output_on_gpu = s.gpu_slots > 0;
  } else {  // i_gpu_start = max(n_layer − N, 0): N blocks from the top, the output slot only at N = n_layer + 1
    s.first_gpu_block = m.layers - (s.gpu_slots < m.layers ? s.gpu_slots : m.layers);
    s.output_on_gpu = s.gpu_slots == s.slots;
  }
  for (std::uint32_t il = 0; il < w.block.size(); ++il) {
    const bytes block{w.block[il]};
    const bytes experts{w.block_experts.empty() ? 0 : w.block_experts[il]};
    if (experts > block) {
      throw kvsize::invalid_argument("kvsize: a block's experts exceed the block's weights");
    }
    const bool experts_on_host = r.cpu_moe || il < r.n_cpu_moe;
    if (il >= s.first_gpu_block) {
      s.device_weights += experts_on_host ? block - experts : block;
      s.host_weights += experts_on_host ? experts : bytes{0};
    } else {
      s.host_weights += block;
    }
  }
  if (s.output_on_gpu) {
    s.device_weights += w.output + (w.tied_output ? w.token_embedding : bytes{0});
  } else {
    s.host_weights += w.output;
  }
  s.host_weights += w.token_embedding + w.other_input;
  // Each layer's KV and recurrent state live on its layer's device (llama_kv_cache and
  // llama_memory_recurrent take model.dev_layer(il) when offloading), all on the host with -nkvo.
  const std::uint32_t gpu_blocks = m.layers - s.first_gpu_block;
  const detail::cache_bytes on_gpu =
      r.kv_offload ? detail::caches_of_blocks(m, o, s.first_gpu_block, gpu_blocks) : detail::cache_bytes{};
  const detail::cache_bytes on_host = detail::caches_of_blocks(m, o, 0, r.kv_offload ? s.first_gpu_block : m.layers);
  s.device_kv = on_gpu.kv;
  s.device_state = on_gpu.state;
  s.host_kv = on_host.kv;
  s.host_state = on_host.state;
  s.device_compute = device_compute;
  return s;
}
}  // namespace detail

/// The placement of `r` for model `m` at the context and slots of `o`. The GPU compute buffer is
/// the full-offload one whatever -ngl (a CUDA build reserves it even at -ngl 0, and llama.cpp does
/// not shrink it): a floor, since for a batch the scheduler also copies host weights into it (the
/// one public partial-offload log, Mistral-7B Q4_K_M at 20/33 and n_ubatch 256, prints 137.79 MiB
/// where the full-offload buffer is 50.75 MiB). Throws invalid_argument when `m` has more layers
/// than max_layers, `w` more blocks than the model, an experts list of another length, or a block
/// whose experts exceed it.
[[nodiscard]] constexpr auto split_layers(const model_spec& m, const engine_options& o, const slot_weights& w,
                                          const offload_request& r) -> offload_split {
  return detail::place_slots(m, o, w, r, compute_buffers_for(m, o).device);
}

/// The largest -ngl (with the other flags of `r`) whose GPU use leaves `margin` of `device` free,
/// as --fit's layer step looks for it (at the context of `o`: --fit would first lower an unset -c);
/// nullopt when not even -ngl 0 does. Under either rule a larger -ngl only adds slots, and every
/// slot's bytes are ≥ 0, so GPU use never falls as -ngl grows and the count is found by bisection.
[[nodiscard]] constexpr auto largest_fitting_split(const model_spec& m, const engine_options& o, const slot_weights& w,
                                                   offload_request r, bytes device, bytes margin = fit_margin)
    -> std::optional<offload_split> {
  const bytes device_compute = compute_buffers_for(m, o).device;
  const auto fits = [&](std::uint32_t n) {
    r.n_gpu_layers = n;
    const offload_split s = detail::place_slots(m, o, w, r, device_compute);
    return s.device_total() + margin <= device ? std::optional<offload_split>{s} : std::nullopt;
  };
  std::optional<offload_split> best = fits(0);
  if (!best) {
    return std::nullopt;
  }
  std::uint32_t low = 0;  // fits
  std::uint32_t high = m.layers + 2;  // does not fit (one past every slot)
  while (high - low > 1) {
    const std::uint32_t mid = low + (high - low) / 2;
    if (auto s = fits(mid)) {
      best = s;
      low = mid;
    } else {
      high = mid;
    }
  }
  return best;
}

}  // namespace kvsize::engines::llama_cpp
