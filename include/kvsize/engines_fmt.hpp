// SPDX-License-Identifier: MIT
// The log lines each engine prints about its KV cache, rendered from a kvsize sizing so that a
// user can diff them against their own engine's log. Opt-in: needs fmt (CMake target kvsize::fmt).
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <fmt/format.h>

#include <cstdint>   // std::uint64_t
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include "engine.hpp"
#include "startup_budget.hpp"

namespace kvsize {

namespace detail {
/// 1234567 → "1,234,567" (Python's "{:,}").
[[nodiscard]] inline auto with_commas(std::uint64_t n) -> std::string {
  std::string digits = fmt::format("{}", n);
  std::string out;
  const std::size_t lead = digits.size() % 3;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (i + 3 - lead) % 3 == 0) {
      out += ',';
    }
    out += digits[i];
  }
  return out;
}
/// llama.cpp computes MiB in float: (float)bytes / (1024.0f * 1024.0f).
[[nodiscard]] inline auto llama_mib(bytes b) -> double {
  return static_cast<double>(static_cast<float>(b.count()) / (1024.0F * 1024.0F));
}
[[nodiscard]] inline auto gib(bytes b) -> double { return b.in(GiB); }

/// vLLM's start-up lines (0.10 – 0.19): gpu_model_runner.py load_model's INFO "Model loading took
/// %.4f GiB and %.6f seconds" (the time is not modelled, so the line stops at the size) and
/// gpu_worker.py determine_available_memory's profile, logged at DEBUG as MemoryProfilingResult
/// prints it (vllm/utils/mem_utils.py __repr__, without its leading "Memory profiling takes %.2f
/// seconds."): non-KV memory = weights + torch peak increase + non-torch increase.
inline void vllm_startup_lines(std::vector<std::string>& out, const startup_budget& b) {
  out.push_back(fmt::format("Model loading took {:.4f} GiB", gib(b.weights)));
  out.push_back(fmt::format("Total non KV cache memory: {:.2f}GiB; torch peak memory increase: {:.2f}GiB; "
                            "non-torch forward increase memory: {:.2f}GiB; weights memory: {:.2f}GiB.",
                            gib(b.weights + b.activation_peak + b.non_torch), gib(b.activation_peak),
                            gib(b.non_torch), gib(b.weights)));
  // 0.20: the CUDA-graph estimate it subtracts (gpu_model_runner.py profile_cudagraph_memory's
  // "Estimated CUDA graph memory: %.2f GiB total"), with --enforce-eager or on ROCm not measured.
  if (b.cuda_graphs.count() != 0) {
    out.push_back(fmt::format("Estimated CUDA graph memory: {:.2f} GiB total", gib(b.cuda_graphs)));
  }
}

/// SGLang's load lines (model_runner.py ModelRunner.load_model: "Load weight begin. avail mem=%.2f GB",
/// "Load weight end. type=…, dtype=…, avail mem=%.2f GB, mem usage=%.2f GB."; its GB is GiB), without
/// the type and dtype fields: free memory before the load is the device less the non-torch memory.
inline void sglang_startup_lines(std::vector<std::string>& out, const startup_budget& b) {
  const bytes before = b.device - b.non_torch;
  out.push_back(fmt::format("Load weight begin. avail mem={:.2f} GB", gib(before)));
  out.push_back(fmt::format("Load weight end. avail mem={:.2f} GB, mem usage={:.2f} GB.",
                            gib(kvsize::detail::saturating_sub(before, b.weights)), gib(b.weights)));
}

/// TensorRT-LLM's profile line (tensorrt_llm/_torch/pyexecutor/_util.py KvCacheCreator): the peak of
/// the profiling run (weights, activations, non-torch) and the fraction of what is left.
inline void trtllm_startup_lines(std::vector<std::string>& out, const engine_sizing& s, const startup_budget& b) {
  const bytes peak = kvsize::detail::saturating_sub(b.device, b.kv + b.unused);
  out.push_back(fmt::format("Peak memory during memory usage profiling (torch + non-torch): {:.2f} GiB, available KV "
                            "cache memory when calculating max tokens: {:.2f} GiB, fraction is set {}, kv size is {}",
                            gib(peak), gib(b.kv), b.fraction, s.kv_bytes_per_token.count()));
}

inline void vllm_lines(std::vector<std::string>& out, const engine_sizing& s,
                       const std::optional<engine_capacity>& c) {
  if (s.vllm.mamba_block_size != 0) {
    out.push_back(fmt::format("Setting attention block size to {} tokens to ensure that attention page size is >= "
                              "mamba page size.",
                              s.vllm.mamba_block_size));
  }
  for (std::uint32_t i = 0; i < s.part_count; ++i) {
    if (s.part(i).group == group_kind::recurrent_state && s.vllm.mamba_padding_percent > 0) {
      out.push_back(fmt::format("Padding mamba page size by {:.2f}% to ensure that mamba page size and attention "
                                "page size are exactly equal.",
                                s.vllm.mamba_padding_percent));
      break;
    }
  }
  if (c) {
    out.push_back(fmt::format("Available KV cache memory: {:.2f} GiB", gib(c->kv_budget)));
  }
  for (std::uint32_t i = 0; i < s.part_count; ++i) {
    const cache_part& p = s.part(i);
    if (p.padding_layers != 0) {
      out.push_back(fmt::format("Add {} padding layers, may waste at most {:.2f}% KV cache memory", p.padding_layers,
                                100.0 * p.padding_layers / p.layers));
    }
  }
  if (c) {
    out.push_back(fmt::format("GPU KV cache size: {} tokens", with_commas(c->max_tokens)));
    out.push_back(fmt::format("Maximum concurrency for {} tokens per request: {:.2f}x", with_commas(s.context),
                              c->max_concurrency));
  }
}

/// SGLang's pool lines. A DSA pool's "KV size" counts the indexer's keys from 0.5.3.post1 (PR #11309 added them to
/// the log with the count; engines/sglang_dsa.hpp), the latent alone before.
inline void sglang_lines(std::vector<std::string>& out, const model_spec& m, const engine_options& o,
                         const engine_sizing& s, const std::optional<engine_capacity>& c) {
  if (!c) {
    return;
  }
  const std::uint64_t page = s.block_size;
  for (std::uint32_t i = 1; i < s.part_count; ++i) {
    const cache_part& p = s.part(i);
    if (p.group == group_kind::recurrent_state) {
      out.push_back(fmt::format("Mamba Cache is allocated. max_mamba_cache_size: {}, conv_state size: {:.2f}GB, "
                                "ssm_state size: {:.2f}GB",
                                c->state_slots, gib(p.k_per_token * (c->state_slots + 1)),
                                gib(p.v_per_token * (c->state_slots + 1))));
    } else {
      out.push_back(fmt::format("Use sliding window memory pool. full_layer_tokens={}, swa_layer_tokens={}",
                                c->max_tokens, c->swa_tokens));
    }
  }
  const cache_part& full = s.part(0);
  const bool latent = count_layers(m, layer_kind::latent) != 0 && full.v_per_token.count() == 0;
  if (latent) {
    const bool indexer_unlogged = m.latent.index_head_dim != 0 &&
                                  !engines::sglang::at_least(engines::sglang::version_of(o),
                                                             engines::sglang::dsa_indexer_counted_since);
    const bytes indexer = indexer_unlogged ? detail::indexer_row(m, true, s.kv.k) * full.layers : bytes{0};
    out.push_back(fmt::format("KV Cache is allocated. #tokens: {}, KV size: {:.2f} GB", c->max_tokens,
                              gib((full.k_per_token - indexer) * (c->max_tokens + page))));
  } else {
    bytes k = full.k_per_token * (c->max_tokens + page);
    bytes v = full.v_per_token * (c->max_tokens + page);
    for (std::uint32_t i = 1; i < s.part_count; ++i) {
      if (s.part(i).group != group_kind::recurrent_state) {
        k += s.part(i).k_per_token * (c->swa_tokens + page);
        v += s.part(i).v_per_token * (c->swa_tokens + page);
      }
    }
    out.push_back(fmt::format("KV Cache is allocated. #tokens: {}, K size: {:.2f} GB, V size: {:.2f} GB", c->max_tokens,
                              gib(k), gib(v)));
  }
}

inline void llama_cpp_size_line(std::vector<std::string>& out, const cache_part& p, std::uint32_t n_seq) {
  out.push_back(fmt::format("llama_kv_cache: size = {:7.2f} MiB ({:6d} cells, {:3d} layers, {:2d}/{} seqs), "
                            "K ({}): {:7.2f} MiB, V ({}): {:7.2f} MiB",
                            llama_mib(p.k_bytes + p.v_bytes), p.cells, p.layers, n_seq, p.streams, name(p.types.k),
                            llama_mib(p.k_bytes), name(p.types.v), llama_mib(p.v_bytes)));
}

/// llama_context's buffer lines (src/llama-context.cpp: "%10s compute buffer size = %8.2f MiB", the
/// output buffer's "%10s output buffer size = %8.2f MiB"), for a CUDA device with its pinned host.
/// Without an MLP width (engines::llama_cpp::compute_buffer_known) only the output buffer's line.
inline void llama_cpp_buffer_lines(std::vector<std::string>& out, const model_spec& m, const engine_options& o) {
  const auto b = engines::llama_cpp::compute_buffers_for(m, o);
  out.push_back(fmt::format("llama_context: {:>10}  output buffer size = {:8.2f} MiB", "CUDA_Host",
                            llama_mib(b.output_buffer)));
  if (!engines::llama_cpp::compute_buffer_known(m)) {
    return;
  }
  out.push_back(fmt::format("llama_context: {:>10} compute buffer size = {:8.2f} MiB", "CUDA0", llama_mib(b.device)));
  out.push_back(fmt::format("llama_context: {:>10} compute buffer size = {:8.2f} MiB", "CUDA_Host", llama_mib(b.host)));
}

inline void llama_cpp_lines(std::vector<std::string>& out, const engine_sizing& s) {
  out.push_back(fmt::format("llama_context: n_ctx         = {}", s.context));
  out.push_back(fmt::format("llama_context: n_ctx_seq     = {}", s.llama_cpp.n_ctx_seq));
  bool iswa = false;
  for (std::uint32_t i = 0; i < s.part_count; ++i) {
    iswa = iswa || is_windowed(s.part(i).group);
  }
  for (std::uint32_t i = 0; i < s.part_count; ++i) {
    const cache_part& p = s.part(i);
    if (p.group == group_kind::recurrent_state) {
      out.push_back(fmt::format("llama_memory_recurrent: size = {:7.2f} MiB ({:6d} cells, {:3d} layers, {:2d} seqs), "
                                "R (f32): {:7.2f} MiB, S (f32): {:7.2f} MiB",
                                llama_mib(p.k_bytes + p.v_bytes), p.cells, p.layers, s.llama_cpp.n_seq, llama_mib(p.k_bytes),
                                llama_mib(p.v_bytes)));
      continue;
    }
    if (iswa) {
      const bool swa = is_windowed(p.group);
      out.push_back(fmt::format("llama_kv_cache_iswa: creating {} KV cache, size = {} cells",
                                swa ? "    SWA" : "non-SWA", p.cells));
    }
    llama_cpp_size_line(out, p, s.llama_cpp.n_seq);
  }
}

inline void trtllm_lines(std::vector<std::string>& out, const engine_sizing& s,
                         const std::optional<engine_capacity>& c) {
  if (!c) {
    return;
  }
  out.push_back(fmt::format("[TensorRT-LLM][INFO] Number of blocks in KV cache primary pool: {}", c->num_blocks));
  out.push_back(fmt::format("[TensorRT-LLM][INFO] Number of tokens per block: {}.", s.block_size));
  out.push_back(fmt::format("[TensorRT-LLM][INFO] [MemUsageChange] Allocated {:.2f} GiB for max tokens in paged KV "
                            "cache ({}).",
                            gib(c->allocated), c->max_tokens));
}

/// Each engine's lines, chosen by overload on its type; an engine without an overload here (exact,
/// transformers, a new one) logs nothing. `b`: the start-up budget the capacity came from, if any.
struct log_inputs {
  const model_spec& m;
  const engine_options& o;
  const engine_sizing& s;
  const std::optional<engine_capacity>& c;
  const std::optional<startup_budget>& b;
};
template <engine E>
inline void lines_of(E /*engine*/, std::vector<std::string>& /*out*/, const log_inputs& /*in*/) {}
inline void lines_of(vllm_engine /*engine*/, std::vector<std::string>& out, const log_inputs& in) {
  if (in.b && in.c) {
    vllm_startup_lines(out, *in.b);
  }
  vllm_lines(out, in.s, in.c);
}
inline void lines_of(sglang_engine /*engine*/, std::vector<std::string>& out, const log_inputs& in) {
  if (in.b && in.c) {
    sglang_startup_lines(out, *in.b);
    // kv_cache_configurator.py mm_runtime_reservation_gb (0.5.18+), as it logs reserved_mb / 1024.
    if (const bytes mm = engines::sglang::multimodal_reserve(in.o.sglang.vlm, engines::sglang::version_of(in.o));
        mm.count() != 0) {
      out.push_back(fmt::format("Reserving {:.2f} GB of the KV budget for post-sizing multimodal allocations "
                                "(feature-transport pools + embedding cache).",
                                gib(mm)));
    }
  }
  sglang_lines(out, in.m, in.o, in.s, in.c);
}
/// llama.cpp over `devices` GPUs (-sm layer, every slot offloaded): the cache lines of the whole model
/// (llama_kv_cache sizes every layer), then, from the offload split of every slot (detail::place_slots
/// with the compute buffers computed once here, no weights needed), one "KV buffer size" line per GPU for the blocks the -ts rule gives it
/// (llama_kv_cache's buffers, one per device) and each GPU's compute buffer as the split estimates it.
inline void llama_cpp_split_lines(std::vector<std::string>& out, const model_spec& m, const engine_options& o,
                                  std::uint32_t devices) {
  namespace lc = engines::llama_cpp;
  llama_cpp_lines(out, lc::size_stage(m, o, {0, m.layers}));
  lc::offload_request every_slot;  // -ngl all, the KV cache offloaded
  every_slot.devices = devices;
  every_slot.split = o.llama_cpp.split;
  const auto b = lc::compute_buffers_for(m, o);
  const lc::offload_split split = lc::detail::place_slots(m, o, lc::slot_weights{}, every_slot, b);
  const bool compute_known = lc::compute_buffer_known(m);
  std::vector<std::string> compute;
  for (std::uint32_t d = 0; d < devices; ++d) {
    const lc::device_share& g = split.device.at(d);
    const std::string name = fmt::format("CUDA{}", d);
    if (g.blocks != 0) {
      out.push_back(fmt::format("llama_kv_cache: {:>10} KV buffer size = {:8.2f} MiB", name, llama_mib(g.kv)));
    }
    if (g.compute != bytes{0} && compute_known) {
      compute.push_back(
          fmt::format("llama_context: {:>10} compute buffer size = {:8.2f} MiB", name, llama_mib(g.compute)));
    }
  }
  out.push_back(fmt::format("llama_context: {:>10}  output buffer size = {:8.2f} MiB", "CUDA_Host",
                            llama_mib(b.output_buffer)));
  out.insert(out.end(), compute.begin(), compute.end());
  if (compute_known) {
    out.push_back(fmt::format("llama_context: {:>10} compute buffer size = {:8.2f} MiB", "CUDA_Host", llama_mib(b.host)));
  }
}

inline void lines_of(llama_cpp_engine /*engine*/, std::vector<std::string>& out, const log_inputs& in) {
  const std::uint64_t devices = llama_cpp_engine::layer_split_devices(in.o);
  if (devices > 1 && devices <= engines::llama_cpp::max_devices) {
    llama_cpp_split_lines(out, in.m, in.o, static_cast<std::uint32_t>(devices));
    return;
  }
  llama_cpp_lines(out, in.s);
  llama_cpp_buffer_lines(out, in.m, in.o);
}
inline void lines_of(trtllm_engine /*engine*/, std::vector<std::string>& out, const log_inputs& in) {
  if (in.b && in.c) {
    trtllm_startup_lines(out, in.s, *in.b);
  }
  trtllm_lines(out, in.s, in.c);
}
}  // namespace detail

/// The lines `e` would log about this cache (vLLM, SGLang and TRT-LLM figures need the
/// capacity; llama.cpp's need only the sizing, and leave out the compute-buffer lines where the
/// spec holds no MLP width: engines::llama_cpp::compute_buffer_known; `exact` and transformers log nothing). With the
/// start-up budget the capacity came from, vLLM's, SGLang's and TensorRT-LLM's lines begin with
/// their load and profile lines.
[[nodiscard]] inline auto engine_log_lines(const model_spec& m, engine_kind e, const engine_options& o,
                                           const engine_sizing& s, const std::optional<engine_capacity>& c,
                                           const std::optional<startup_budget>& startup = std::nullopt)
    -> std::vector<std::string> {
  std::vector<std::string> out;
  const detail::log_inputs in{m, o, s, c, startup};
  visit_engine(e, [&]<engine E>(E x) { detail::lines_of(x, out, in); });
  return out;
}

/// The same, sizing (once) and, when a budget is given, its capacity computed here.
[[nodiscard]] inline auto engine_log_lines(const model_spec& m, engine_kind e, const engine_options& o,
                                           std::optional<bytes> kv_budget = std::nullopt) -> std::vector<std::string> {
  const engine_sizing s = size_cache(m, e, o);
  std::optional<engine_capacity> c;
  if (kv_budget) {
    c = capacity_of(e, s, o, *kv_budget);
  }
  return engine_log_lines(m, e, o, s, c);
}

}  // namespace kvsize
