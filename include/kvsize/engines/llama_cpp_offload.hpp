// SPDX-License-Identifier: MIT
// llama.cpp's partial offload (-ngl, --n-cpu-moe, --cpu-moe, -ot, -nkvo, -ts over several GPUs): the
// weights, KV cache and compute buffer each GPU and the host hold, and the largest -ngl that leaves
// --fit's margin free on every GPU.
// Facts (docs/research/llama-cpp-offload.md): src/llama-model.cpp `llama_model::load_tensors`
// (`get_layer_buft_list`): n_layer + 1 slots, the blocks 0 … n_layer−1 and the output layer n_layer;
// since PR #18148 (https://github.com/ggml-org/llama.cpp/pull/18148) `i_gpu_start = max(n_layer + 1 − N, 0)`,
// so -ngl N offloads the output layer first, then the blocks from the top down; the input layer
// (token_embd) stays on the host. The KV cache of a block lives on its block's device (-nkvo: all on
// the host); common/common.h `llm_ffn_exps_block_regex` moves a block's ffn_*_exps to the host, and
// -ot's patterns (src/llama-model-loader.cpp `create_tensor`, gguf/gguf_overrides.hpp) any tensor.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>     // std::array
#include <cstdint>   // std::uint32_t, std::uint64_t
#include <limits>    // std::numeric_limits
#include <optional>  // std::optional
#include <span>      // std::span

#include "../error.hpp"
#include "llama_cpp.hpp"
#include "llama_cpp_tensor_split.hpp"

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
  /// What tensor overrides to the host (-ot "<pattern>=CPU") keep there whatever -ngl (gguf::host_overrides_of;
  /// empty spans: none): per block, its tensors other than experts, and its experts; then the output slot's.
  std::span<const std::uint64_t> block_override{};
  std::span<const std::uint64_t> block_override_experts{};
  bytes output_override{0};
  /// -ot matches token_embd.weight of a tied model: the output layer's copy goes to the host, where llama.cpp
  /// (create_tensor, TENSOR_DUPLICATED) reuses the input layer's tensor: it leaves the GPU, adds nothing to the host.
  bool tied_copy_override = false;
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
  std::uint32_t devices = 1;  ///< GPUs the offloaded slots are split over (-sm layer), 1 … max_devices
  tensor_split split{};       ///< -ts: their shares (all 0: equal, as by free memory on like devices)
  /// -ot given (even a pattern that matches nothing): llama.cpp then keeps pipeline parallelism off
  /// (llama-context.cpp: `!model.has_tensor_overrides()`); the bytes are slot_weights' *_override.
  bool tensor_overrides = false;
};

/// What one GPU holds: a contiguous run of blocks, perhaps the output slot, and their buffers.
struct device_share {
  std::uint32_t first_block = 0;  ///< blocks [first_block, first_block + blocks)
  std::uint32_t blocks = 0;
  bool output = false;  ///< the output slot (output.weight, output_norm) is here
  bytes weights{0};     ///< "CUDAd model buffer size"
  bytes kv{0};          ///< "CUDAd KV buffer size"
  bytes state{0};       ///< "CUDAd RS buffer size": recurrent state of its blocks
  bytes compute{0};     ///< "CUDAd compute buffer size", an estimate and a floor (see split_layers)

  [[nodiscard]] constexpr auto total() const -> bytes { return weights + kv + state + compute; }
};

/// Where one run puts its bytes: "offloaded X/Y layers to GPU", each GPU's model, KV and compute
/// buffers (device_* are their sums), and the host's model and KV buffers (the host compute and
/// output buffers are not counted).
struct offload_split {
  std::uint32_t gpu_slots = 0;        ///< X: slots on the GPUs (the output layer counts as one)
  std::uint32_t slots = 0;            ///< Y = n_layer + 1
  std::uint32_t first_gpu_block = 0;  ///< blocks [first_gpu_block, n_layer) are on a GPU
  bool output_on_gpu = false;         ///< the output slot (output.weight, output_norm) is on a GPU
  bytes device_weights{0};
  bytes device_kv{0};
  bytes device_state{0};    ///< recurrent state ("RS buffer") of the GPU blocks
  bytes device_compute{0};  ///< the GPUs' compute buffers: a floor (see split_layers)
  bytes host_weights{0};
  bytes host_kv{0};
  bytes host_state{0};
  std::uint32_t devices = 1;
  std::array<device_share, max_devices> device{};  ///< the first `devices` entries are used
  /// llama-context.cpp's condition for pipeline parallelism (more than one GPU, every slot offloaded,
  /// the KV cache too, no expert override): the scheduler then keeps GGML_SCHED_MAX_COPIES (4) copies
  /// of each GPU's graph inputs, which the compute estimates leave out.
  bool pipeline_parallel = false;

  [[nodiscard]] constexpr auto device_total() const -> bytes {
    return device_weights + device_kv + device_state + device_compute;
  }
  [[nodiscard]] constexpr auto host_total() const -> bytes { return host_weights + host_kv + host_state; }
  /// The GPU that holds the most (the first of equals).
  [[nodiscard]] constexpr auto fullest_device() const -> std::uint32_t {
    std::uint32_t best = 0;
    for (std::uint32_t d = 1; d < devices; ++d) {
      best = device[d].total() > device[best].total() ? d : best;
    }
    return best;
  }
  /// Whether every GPU of `memory` keeps `margin` free.
  [[nodiscard]] constexpr auto fits(bytes memory, bytes margin) const -> bool {
    return device[fullest_device()].total() + margin <= memory;
  }
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

/// The largest n in [low, high) at which `holds(n)` is true, for a predicate that is true at `low`,
/// false at `high` and never true again once false: ⌈log2(high − low)⌉ calls, none at low or high.
/// The two searches below keep, inside their predicates, the placement of the last call that
/// answered the way they want.
template <class Holds>
[[nodiscard]] constexpr auto last_holding(std::uint32_t low, std::uint32_t high, Holds&& holds) -> std::uint32_t {
  while (high - low > 1) {
    const std::uint32_t mid = low + (high - low) / 2;
    (holds(mid) ? low : high) = mid;
  }
  return low;
}

}  // namespace detail

/// One GPU's compute buffer when the offloaded slots are split over several (-sm layer): the graph's
/// parts it runs, the larger of one layer's attention and MLP when it holds blocks, and the output
/// peak too when it holds the output slot. (With one GPU the whole buffer: detail::set_compute.)
[[nodiscard]] constexpr auto split_device_compute(const compute_buffers& b, bool holds_blocks, bool holds_output)
    -> bytes {
  const bytes layer = holds_blocks ? max(b.attention, b.mlp) : bytes{0};
  return holds_output ? max(layer, b.output) : layer;
}

namespace detail {
/// Each GPU's compute buffer: with one GPU the full-offload buffer whatever -ngl (a CUDA build
/// reserves it even at -ngl 0); with several, split_device_compute, and the first GPU the whole
/// buffer when no slot is offloaded.
constexpr void set_compute(offload_split& s, const compute_buffers& b) {
  if (s.devices == 1 || s.gpu_slots == 0) {
    s.device[0].compute = b.device;
    return;
  }
  for (std::uint32_t d = 0; d < s.devices; ++d) {
    device_share& g = s.device[d];
    g.compute = split_device_compute(b, g.blocks > 0, g.output);
  }
}

/// What of block il stays on the host: all of it off the GPU; on a GPU, what -ot keeps (its other
/// tensors) and its experts, all of them under --n-cpu-moe / --cpu-moe (the union, by part), else
/// the experts -ot keeps. `w`'s lists are checked to be empty or of its blocks' length.
[[nodiscard]] constexpr auto block_on_host(const slot_weights& w, const offload_request& r, std::uint32_t il,
                                           bool on_gpu) -> bytes {
  const auto at = [il](std::span<const std::uint64_t> per_block) {
    return bytes{per_block.empty() ? 0 : per_block[il]};
  };
  const bytes block{w.block[il]};
  const bytes experts = at(w.block_experts);
  const bytes kept = at(w.block_override);                  // -ot: tensors other than experts
  const bytes kept_experts = at(w.block_override_experts);  // -ot: experts
  if (experts > block || kept_experts > experts || kept > block - experts) {
    throw kvsize::invalid_argument("kvsize: a block's experts or overrides exceed the block's weights");
  }
  const bool experts_on_host = r.cpu_moe || il < r.n_cpu_moe;
  return !on_gpu ? block : kept + (experts_on_host ? experts : kept_experts);
}

/// split_layers with the compute buffers given: they do not depend on -ngl, so a search over -ngl
/// computes them once.
[[nodiscard]] constexpr auto place_slots(const model_spec& m, const engine_options& o, const slot_weights& w,
                                         const offload_request& r, const compute_buffers& compute) -> offload_split {
  const auto matches_blocks = [&](std::span<const std::uint64_t> per_block) {
    return per_block.empty() || per_block.size() == w.block.size();
  };
  if (m.layers > max_layers || w.block.size() > m.layers || !matches_blocks(w.block_experts) ||
      !matches_blocks(w.block_override) || !matches_blocks(w.block_override_experts)) {
    throw kvsize::invalid_argument("kvsize: the weights by slot do not match the model's blocks");
  }
  // The output slot: its own tensors, and a tied model's copy of token_embd unless -ot sent that to the host.
  const bytes output_slot = w.output + (w.tied_output && !w.tied_copy_override ? w.token_embedding : bytes{0});
  if (w.output_override > output_slot) {  // wherever -ngl puts the slot
    throw kvsize::invalid_argument("kvsize: the output layer's overrides exceed its weights");
  }
  offload_split s{};
  s.devices = r.devices;
  s.slots = m.layers + 1;
  s.gpu_slots = r.n_gpu_layers < s.slots ? r.n_gpu_layers : s.slots;  // act_gpu_layers
  // i_gpu_start: max(n_layer + 1 − N, 0) since PR #18148, max(n_layer − N, 0) before.
  const std::uint32_t start =
      r.output_layer_first ? s.slots - s.gpu_slots : m.layers - (s.gpu_slots < m.layers ? s.gpu_slots : m.layers);
  const run_placement placed = place_run(m.layers, r.split, r.devices, start, s.gpu_slots);
  s.first_gpu_block = start < m.layers ? start : m.layers;
  s.output_on_gpu = placed.output_offloaded;
  const auto block_weights = [&](std::uint32_t il, bool on_gpu) -> bytes {  // what of block il is on its GPU
    const bytes on_host = block_on_host(w, r, il, on_gpu);
    s.host_weights += on_host;
    return bytes{w.block[il]} - on_host;
  };
  const auto known = static_cast<std::uint32_t>(w.block.size());  // blocks past it weigh nothing here
  for (std::uint32_t il = 0; il < s.first_gpu_block && il < known; ++il) {
    (void)block_weights(il, false);
  }
  for (std::uint32_t d = 0; d < s.devices; ++d) {  // each GPU's run of blocks
    device_share& g = s.device[d];
    g.first_block = placed.blocks[d].first;
    g.blocks = placed.blocks[d].count;
    for (std::uint32_t il = g.first_block; il < g.first_block + g.blocks && il < known; ++il) {
      g.weights += block_weights(il, true);
    }
  }
  if (s.output_on_gpu) {
    device_share& g = s.device[placed.output_device];
    g.output = true;
    g.weights += output_slot - w.output_override;
    s.host_weights += w.output_override;
  } else {
    s.host_weights += w.output;
  }
  s.host_weights += w.token_embedding + w.other_input;
  // Each layer's KV and recurrent state live on its layer's device (llama_kv_cache and
  // llama_memory_recurrent take model.dev_layer(il) when offloading), all on the host with -nkvo.
  for (std::uint32_t d = 0; d < s.devices && r.kv_offload; ++d) {
    device_share& g = s.device[d];
    const cache_bytes c = caches_of_blocks(m, o, g.first_block, g.blocks);
    g.kv = c.kv;
    g.state = c.state;
  }
  const cache_bytes on_host = caches_of_blocks(m, o, 0, r.kv_offload ? s.first_gpu_block : m.layers);
  s.host_kv = on_host.kv;
  s.host_state = on_host.state;
  set_compute(s, compute);
  for (std::uint32_t d = 0; d < s.devices; ++d) {
    s.device_weights += s.device[d].weights;
    s.device_kv += s.device[d].kv;
    s.device_state += s.device[d].state;
    s.device_compute += s.device[d].compute;
  }
  s.pipeline_parallel = s.devices > 1 && s.gpu_slots == s.slots && r.kv_offload && !r.cpu_moe && r.n_cpu_moe == 0 &&
                        !r.tensor_overrides;
  return s;
}
}  // namespace detail

/// The placement of `r` for model `m` at the context and slots of `o`: the slots from -ngl as
/// load_tensors takes them, each offloaded slot on its GPU by the -ts rule (llama_cpp_tensor_split.hpp).
/// The GPU compute buffers are estimates and floors: with one GPU the full-offload buffer whatever
/// -ngl (llama.cpp does not shrink it), though for a batch the scheduler also copies host weights
/// into it (the one public partial-offload log, Mistral-7B Q4_K_M at 20/33 and n_ubatch 256, prints
/// 137.79 MiB where the full-offload buffer is 50.75 MiB); with several, the parts of the graph each
/// runs (detail::set_compute), without the copies of pipeline parallelism or of the hidden state
/// passed between GPUs. Throws invalid_argument when `m` has more layers than max_layers, `w` more
/// blocks than the model, an experts or overrides list of another length, a block whose experts or
/// overrides exceed it, output overrides above the output slot, or a device count or split
/// split_points refuses.
[[nodiscard]] constexpr auto split_layers(const model_spec& m, const engine_options& o, const slot_weights& w,
                                          const offload_request& r) -> offload_split {
  return detail::place_slots(m, o, w, r, compute_buffers_for(m, o));
}

/// The largest -ngl (with the other flags of `r`) whose use leaves `margin` of `device` free on every
/// GPU, the split of `r` kept: on one GPU as --fit's layer step looks for it (at the context of `o`:
/// --fit would first lower an unset -c; with several GPUs --fit gives up under -ts and otherwise moves
/// layers between them first); nullopt when not even -ngl 0 does. With one GPU, under either rule, a larger -ngl only adds
/// slots, and every slot's bytes are ≥ 0, so its use never falls as -ngl grows and the count is found
/// by bisection. With several, a larger -ngl moves the split points' slots between GPUs, so one GPU's
/// use can fall: every -ngl is tried, from the top.
[[nodiscard]] constexpr auto largest_fitting_split(const model_spec& m, const engine_options& o, const slot_weights& w,
                                                   offload_request r, bytes device, bytes margin = fit_margin)
    -> std::optional<offload_split> {
  const compute_buffers compute = compute_buffers_for(m, o);
  const auto fits = [&](std::uint32_t n) {
    r.n_gpu_layers = n;
    const offload_split s = detail::place_slots(m, o, w, r, compute);
    return s.fits(device, margin) ? std::optional<offload_split>{s} : std::nullopt;
  };
  if (r.devices > 1) {
    for (std::uint32_t n = m.layers + 1;; --n) {
      if (auto s = fits(n)) {
        return s;
      }
      if (n == 0) {
        return std::nullopt;
      }
    }
  }
  std::optional<offload_split> best = fits(0);
  if (!best) {
    return std::nullopt;
  }
  // -ngl 0 fits; one past every slot (m.layers + 2) is taken not to: the largest -ngl that fits.
  (void)detail::last_holding(0, m.layers + 2, [&](std::uint32_t n) {
    std::optional<offload_split> s = fits(n);
    best = s ? s : best;
    return s.has_value();
  });
  return best;
}

/// A --n-cpu-moe count and the split it gives.
struct cpu_moe_fit {
  std::uint32_t n_cpu_moe = 0;
  offload_split split{};
};

/// The smallest --n-cpu-moe N (blocks 0 … N−1 keep their routed experts on the host) at which the -ngl
/// and other flags of `r` leave `margin` of `device` free on every GPU: how a MoE model that does not
/// fit whole keeps every layer's attention on the GPU (llama.cpp's own --fit moves experts to the host
/// layer by layer too, common/fit.cpp "dense-only" layers, but gives up once the user sets -ngl, -ts or
/// an override). A larger N only moves expert bytes from a GPU to the host, so every GPU's use never
/// rises with N, and N is found by bisection over 0 … n_layer. nullopt when even every block's experts
/// on the host does not fit; r.n_cpu_moe and r.cpu_moe are replaced. The GPU figures are split_layers'
/// (its compute buffer a floor: for a batch llama.cpp also copies host experts into it, so past N = 0
/// the real use is higher).
[[nodiscard]] constexpr auto smallest_fitting_cpu_moe(const model_spec& m, const engine_options& o,
                                                      const slot_weights& w, offload_request r, bytes device,
                                                      bytes margin = fit_margin) -> std::optional<cpu_moe_fit> {
  const compute_buffers compute = compute_buffers_for(m, o);
  r.cpu_moe = false;
  const auto at = [&](std::uint32_t n) {
    r.n_cpu_moe = n;
    return detail::place_slots(m, o, w, r, compute);
  };
  std::uint32_t high = m.layers;  // fits (checked below)
  cpu_moe_fit best{high, at(high)};
  if (!best.split.fits(device, margin)) {
    return std::nullopt;
  }
  if (const offload_split none = at(0); none.fits(device, margin)) {
    return cpu_moe_fit{0, none};
  }
  // N = 0 does not fit, N = n_layer does: the largest N that does not fit, one below the answer.
  (void)detail::last_holding(0, high, [&](std::uint32_t n) {
    const offload_split s = at(n);
    const bool fits = s.fits(device, margin);
    best = fits ? cpu_moe_fit{n, s} : best;
    return !fits;
  });
  return best;
}

}  // namespace kvsize::engines::llama_cpp
