// SPDX-License-Identifier: MIT
// vLLM (v1) at start-up: the release whose rules apply, the scheduler defaults that depend on the
// device, and the terms of its profile run, from which gpu_worker.py computes the KV budget (issue 13).
// Standard library only, constexpr, allocation-free.
//
// vllm/v1/worker/gpu_worker.py, Worker.determine_available_memory
// (https://github.com/vllm-project/vllm/blob/main/vllm/v1/worker/gpu_worker.py), 0.9.1 to 0.19:
//   available KV = total × gpu_memory_utilization
//                  − (weights as loaded + torch peak increase of the profile run + non-torch increase)
// where total is cudaMemGetInfo's total, "weights as loaded" is what the allocator gained while the
// model loaded (GPUModelRunner.load_model: parameters and buffers such as the rotary cos/sin cache),
// and the profile run (gpu_model_runner.py GPUModelRunner.profile_run) is
//   1. _dummy_run(max_num_batched_tokens): one forward pass of T tokens split into
//      R = min(max_num_seqs, T) requests; then
//   2. _dummy_sampler_run(the R last hidden states): the LM head gives R × vocab logits in the model
//      dtype (vocab padded to 64), the sampler copies them to float32 and samples with top-k and
//      top-p set (vllm/v1/sample/sampler.py Sampler.forward, ops/topk_topp_sampler.py); since 0.10
//      (PR #16188) the forward pass's T × hidden output stays alive meanwhile.
// The two phases do not overlap, so the torch peak is max(forward, sampler phase).
// 0.20 also subtracts a CUDA-graph estimate, measured by capturing the two largest graphs of each
// mode and extrapolating (gpu_model_runner.py GPUModelRunner.profile_cudagraph_memory; subtracted
// since PR #38284, https://github.com/vllm-project/vllm/pull/38284, merged 2026-04-21, which also
// raised the default gpu_memory_utilization from 0.9 to 0.92 in vllm/config/cache.py CacheConfig):
//   available KV = total × gpu_memory_utilization − (the three terms above) − graph estimate
// The estimate is a free-memory delta that depends on the allocator and the driver, not on the
// config (docs/research/vllm-cudagraph-estimate.md), so kvsize takes it from the user (a previous
// start-up log's "Estimated CUDA graph memory"), or knows it is 0: with --enforce-eager
// (cudagraph_mode NONE) and on ROCm the probe is skipped (gpu_worker.py determine_available_memory).
// Read at upstream main 4d51588e2 (2026-04-26, the code of v0.20.0: its log line numbers
// gpu_model_runner.py:5963/6042 and gpu_worker.py:440/455 match it exactly), where profile_run and
// _dummy_sampler_run are as in 0.19. 0.18.1 – 0.19 measure the estimate and only log it.
// 0.21 (upstream main 0b272a6e0, 2026-05-10: the line numbers its logs print, gpu_model_runner.py:6063/6142
// and gpu_worker.py:462/477, are that commit's) keeps 0.20's rule: determine_available_memory's text is
// unchanged, and the sampler warm-up, though it now runs FlashInfer's top-k/top-p sampler (PR #40376,
// the default since) and then forward_native a second time (PR #41375), runs them one after the other,
// each at 0.19's 12 B per element (a float32 copy, the masked logits or the Triton path, the
// probabilities), the first one's tensors freed before the second starts. 0.22 keeps that rule for the
// models it runs on Model Runner V1 (determine_available_memory, profile_run and _dummy_run unchanged),
// and runs Qwen3ForCausalLM dense models on Model Runner V2 (PR #39337), whose profile samples without
// top-k/top-p and whose CUDA-graph estimate is 0 (vllm_runner_v2.hpp). 0.25.1 makes V2 the default for
// dense models: not modelled (docs/research/vllm-model-runner-v2.md, vllm-cudagraph-estimate.md §4b).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>        // std::array
#include <cstdint>      // std::uint32_t, std::uint64_t
#include <optional>     // std::optional
#include <string_view>  // std::string_view

#include "../bytes.hpp"
#include "../detail/checked.hpp"
#include "../detail/release_text.hpp"
#include "../dtype.hpp"
#include "../model_spec.hpp"
#include "engine_options.hpp"

namespace kvsize::engines::vllm {

/// The releases whose start-up rules kvsize models: 0.10 to 0.22 (vllm_knobs::release_minor).
inline constexpr std::uint32_t oldest_release_minor = 10;
inline constexpr std::uint32_t newest_release_minor = 22;
/// The release applied when none is given: 0.19, the newest whose budget follows from the config
/// alone for every model (0.20 – 0.22's V1 runs need the CUDA-graph estimate of a start-up log, or
/// --enforce-eager).
inline constexpr std::uint32_t default_release_minor = 19;
/// The first release that subtracts the CUDA-graph estimate and defaults to 0.92 of the device (every
/// modelled release after it too).
inline constexpr std::uint32_t graph_estimate_since = 20;

/// "0.10" … "0.22": the name of release 0.`minor` (a static string, for startup_budget::engine_version).
[[nodiscard]] constexpr auto release_name(std::uint32_t minor) -> std::string_view {
  constexpr std::array<std::string_view, newest_release_minor - oldest_release_minor + 1> names{
      "0.10", "0.11", "0.12", "0.13", "0.14", "0.15", "0.16", "0.17", "0.18", "0.19", "0.20", "0.21", "0.22"};
  if (minor < oldest_release_minor || minor > newest_release_minor) {
    return {};
  }
  return names[minor - oldest_release_minor];
}

/// Reads a vLLM release as users write it ("0.19", "v0.19.1", "0.10.1.1") into its minor number;
/// none where it is not 0.X with X a number. Whether X is modelled is release_refusal's question.
[[nodiscard]] constexpr auto parse_release(std::string_view text) -> std::optional<std::uint32_t> {
  std::uint32_t minor = 0;
  if (!detail::take_release_zero(text) || !detail::take_release_number(text, minor) ||
      (!text.empty() && text.front() != '.')) {
    return std::nullopt;
  }
  return minor;
}

/// Why release 0.`minor` is not modelled, in words; empty when it is.
[[nodiscard]] constexpr auto release_refusal(std::uint32_t minor) -> std::string_view {
  if (minor < oldest_release_minor) {
    return "vLLM releases before 0.10 are not modelled (the V0 engine and 0.9's start-up rule differ); "
           "modelled: 0.10 to 0.22";
  }
  if (minor > newest_release_minor) {
    return "vLLM 0.23 and later are not modelled: 0.25.1 makes Model Runner V2 the default for dense models, later "
           "releases fold V2's CUDA-graph reservation into the budget, and no public start-up log of them settles "
           "either; modelled: 0.10 to 0.22";
  }
  return {};
}

/// The release in force: the knob, else the default.
[[nodiscard]] constexpr auto release_of(const engine_options& o) -> std::uint32_t {
  return o.vllm.release_minor != 0 ? o.vllm.release_minor : default_release_minor;
}

/// gpu_memory_utilization: the knob, else the release's default, 0.9 until 0.19 and 0.92 from 0.20
/// (vllm/config/cache.py CacheConfig.gpu_memory_utilization; PR #38284).
[[nodiscard]] constexpr auto gpu_memory_utilization(const engine_options& o) -> double {
  if (o.vllm.gpu_memory_utilization != 0) {
    return o.vllm.gpu_memory_utilization;
  }
  return release_of(o) >= graph_estimate_since ? 0.92 : 0.9;
}

/// The CUDA-graph estimate the release subtracts from the budget: 0 before 0.20 (0.18.1 – 0.19 only
/// log it); from 0.20, 0 where the probe is skipped (enforce_eager: cudagraph_mode NONE; rocm:
/// gpu_worker.py's `not current_platform.is_rocm()`), else the user's figure from a start-up log;
/// none where it is not known (the budget is then refused: cuda_graph_refusal).
[[nodiscard]] constexpr auto cuda_graph_memory(const engine_options& o) -> std::optional<bytes> {
  if (release_of(o) < graph_estimate_since || o.vllm.enforce_eager || o.vllm.rocm) {
    return bytes{0};
  }
  return o.vllm.cuda_graph_estimate;
}

/// Why the budget of release release_of(o) cannot be computed, in words; empty when it can.
[[nodiscard]] constexpr auto cuda_graph_refusal(const engine_options& o) -> std::string_view {
  if (cuda_graph_memory(o)) {
    return {};
  }
  return "vLLM 0.20 to 0.22 (on Model Runner V1) subtract a CUDA-graph estimate that they measure by capturing graphs and that a config cannot "
         "give: set enforce_eager (vLLM's --enforce-eager; no graphs, no estimate), or give the \"Estimated CUDA "
         "graph memory\" of a start-up log";
}

/// vllm/engine/arg_utils.py (EngineArgs.get_batch_defaults; _set_default_args_v1 before 0.11), for
/// `vllm serve` (UsageContext.OPENAI_API_SERVER): a device of ≥ 70 GiB that is not an A100 (PR
/// #17885: larger batches slowed A100s) gets max_num_seqs 1024 and max_num_batched_tokens 8192; any
/// other device 256 and 2048. An unknown device (no --gpu / --gpu-memory) keeps 8192 tokens and 256
/// sequences, kvsize's defaults before the device was known.
[[nodiscard]] constexpr auto large_device(const engine_options& o) -> bool {
  return o.device_memory >= GiB * 70 && !o.vllm.a100;
}

/// max_num_seqs: the knob, else 1024 on a large device (see large_device), else 256.
[[nodiscard]] constexpr auto max_num_seqs(const engine_options& o) -> std::uint64_t {
  if (o.vllm.max_num_seqs != 0) {
    return o.vllm.max_num_seqs;
  }
  return large_device(o) ? 1'024 : 256;
}

/// max_num_batched_tokens: the knob, else 8192 on a large or unknown device and 2048 on a smaller
/// one; from 0.12 (PR #28665) a default never exceeds max_num_seqs × max_model_len.
[[nodiscard]] constexpr auto max_num_batched_tokens(const engine_options& o) -> std::uint64_t {
  if (o.vllm.max_num_batched_tokens != 0) {
    return o.vllm.max_num_batched_tokens;
  }
  const bool known_small = o.device_memory.count() != 0 && !large_device(o);
  const std::uint64_t t = known_small ? 2'048 : 8'192;
  if (release_of(o) >= 12 && o.context != 0) {
    return detail::min_of(t, detail::checked_mul(max_num_seqs(o), o.context));
  }
  return t;
}

/// Rows of the profile run's sampler warm-up: one per dummy request, R = min(max_num_seqs, T).
[[nodiscard]] constexpr auto sampler_rows(const engine_options& o) -> std::uint64_t {
  return detail::min_of(max_num_seqs(o), max_num_batched_tokens(o));
}

/// Bytes per element of the R × vocab logits the sampler holds at its peak, beyond the logits in
/// the model dtype (counted apart), by release:
///   0.10        FlashInfer top-k/top-p sampling (the default where FlashInfer is installed, as in
///               the release images, until PR #26859): float32 copy 4 + masked logits 4 + probs 4 = 12
///   0.11 – 0.16 PyTorch sort path (apply_top_k_top_p): float32 copy 4, sorted values 4, int64
///               indices 8, two bool masks 2, probs 4, scattered logits 4 (= 26), plus torch.sort's
///               scratch. The measured peaks of the public vLLM 0.11 profiles in
///               docs/research/vllm-budget.md, less the model-dtype logits and the hidden states kept
///               beside them, are 36.20 – 36.30 B/element; 37 is that rounded up, so the budget errs low
///   0.17 – 0.21 Triton top-k/top-p in place (PR #33538, topk_topp_triton.py): float32 copy 4 +
///               probs 4 + the exponential draws 4 = 12, plus a float32 scratch of min(R, SMs) rows
///               (sampler_scratch_rows); below 8 rows the PyTorch path (as 0.11 – 0.16). 0.21 runs
///               FlashInfer's sampler (12) first and this path after it, the first freed: the same peak
[[nodiscard]] constexpr auto sampler_element_bytes(std::uint32_t release, std::uint64_t rows) -> std::uint32_t {
  if (release <= 10) {
    return 12;
  }
  if (release <= 16 || rows < 8) {
    return 37;  // measured 36.2 – 36.3, rounded up: a budget errs low, never high
  }
  return 12;
}

/// The Triton sampler's cached scratch: min(R, streaming multiprocessors) rows of the vocabulary in
/// float32. 132 is the H100's / H200's SM count (the GPU catalog holds no SM counts; other devices
/// have 108 – 170: at most 38 rows × vocab × 4 B of difference).
inline constexpr std::uint64_t sampler_scratch_sms = 132;

/// Memory outside PyTorch's allocator that the profile adds (gpu_worker.py: non_torch_increase,
/// measured from the start-up snapshot). Since 0.11 (PR #25359) NCCL is set up before that snapshot;
/// what remains is cuBLAS/cuDNN workspaces and, with tensor parallelism, the custom all-reduce's
/// buffers and the communicators' per-stream memory. From the public H100 profiles of
/// docs/research/vllm-budget.md (vLLM 0.11): 0.13 – 0.14 GiB at tp 1, 0.54 – 0.55 GiB at tp 2; the
/// larger of each is taken. Larger tp reuse the tp-2 figure (no public profile of 0.11+ at tp ≥ 4).
[[nodiscard]] constexpr auto non_torch_memory(const engine_options& o) -> bytes {
  return o.tp >= 2 ? MiB * 564 : MiB * 144;  // 0.55 GiB, 0.14 GiB (rounded up to whole MiB)
}

/// Device buffers loaded with the weights beyond the parameters kvsize counts, on one rank:
///   rotary cos/sin cache  rows × rotary dim × model dtype (one per parameter set: layers/rotary_embedding
///                         get_rope caches it by head size, rotary dim, position and rope parameters;
///                         RotaryEmbedding.__init__ keeps it in the default dtype, float32 where the class asks):
///                         rows max_position_embeddings, or as the scaling class sizes them (weights_shape::rotary:
///                         Gemma 3's linear factor 8 gives 8 × 131,072), × 4 under mrope; the rotary dim
///                         int(head_dim × partial_rotary_factor), or qk_rope_head_dim (MLA); none without rope
///                         (Nemotron-H). One table for most models; with weights_shape::sliding_rope_apart one for
///                         the full layers and one, max_position_embeddings rows, for the sliding layers' head dim
///                         (Gemma 4's full layers: global_head_dim, which Gemma4RotaryEmbedding caches whole,
///                         rotary_embedding/gemma4_rope.py; Step-3.5's sliding layers their own fraction); from
///                         0.12 a second for DeepSeek sparse attention's indexer; MiniMax-Text-01 / M1's float32,
///                         min(max_position_embeddings, max_model_len) rows; DeepSeek's yarn float32 under
///                         --enforce-eager from 0.14 (rotary_cache_shape says where each comes from)
///   vocabulary padding    (round_up(vocab, 64) − vocab) × hidden, in the embedding and, untied, the
///                         LM head, split over tp (layers/vocab_parallel_embedding.py pad_vocab_size)
///   per-layer inputs     max_num_batched_tokens × layers × hidden_size_per_layer_input × model dtype, whole on
///                         every rank (Gemma 3n / Gemma 4 "E": the per_layer_embeddings buffer that
///                         gemma3n_mm.py, from 0.10.1, and gemma4_mm.py, from 0.19, allocate at load "for CUDA graph
///                         compatibility"; the multimodal classes every published E checkpoint names; none under
///                         a text-only class, vllm_knobs::text_only_class)
/// Llama-3.1-8B: 131,072 × 128 × 2 B = 32 MiB, which is why vLLM's "Model loading took 14.9889 GiB"
/// is 16,094,076,928 B, not the parameters' 16,060,522,496 B.
[[nodiscard]] constexpr auto loaded_buffers(const model_spec& m, const engine_options& o, dtype served) -> bytes {
  using detail::checked_mul;
  const rotary_cache_shape& r = m.weights.rotary;
  // DeepseekScalingRotaryEmbedding keeps float32 where the rotary custom op runs (use_flashinfer: CUDA, a 16-bit
  // model, custom ops "all", which --enforce-eager sets) from 0.14.
  const bool deepseek_float32 = r.deepseek_scaling && o.vllm.enforce_eager && !o.vllm.rocm && release_of(o) >= 14 &&
                                (served == dtype::bf16 || served == dtype::f16);
  const dtype table_type = r.float32 || deepseek_float32 ? dtype::f32 : served;
  // DynamicNTKScalingRotaryEmbedding caches max_position rows again from 0.22 (max_trained_positions).
  const bool scaled = r.positions != 0 && !(r.positions_dynamic && release_of(o) >= 22);
  std::uint64_t base_rows = scaled ? r.positions : m.max_context;
  if (r.rows_max_model_len && o.context != 0) {
    base_rows = detail::min_of(base_rows, std::uint64_t{o.context});
  }
  const std::uint64_t full_rows = checked_mul(base_rows, r.multimodal ? 4 : 1);
  const auto rope_table = [&](std::uint64_t rows, std::uint64_t width) {
    return r.none ? bytes{0} : storage_bytes(table_type, checked_mul(rows, width));
  };
  const std::uint64_t full_head = m.latent.rope_head_dim != 0 ? m.latent.rope_head_dim : effective_head_dim(m);
  bytes rope = rope_table(full_rows, r.rotary_dim != 0 ? r.rotary_dim : full_head);
  if (r.indexer_table && release_of(o) >= 12) {  // the DSA indexer's own, alike but for is_neox_style
    rope += rope_table(full_rows, full_head);
  }
  const auto first_of = [&](layer_kind k) {  // the first layer of kind k; m.layers when none is
    std::uint32_t il = 0;
    while (il < m.layers && kind_of_layer(m, il) != k) {
      ++il;
    }
    return il;
  };
  const std::uint32_t full = first_of(layer_kind::full);
  const std::uint32_t sliding = first_of(layer_kind::sliding);
  if (m.weights.sliding_rope_apart && full != m.layers && sliding != m.layers) {
    const std::uint32_t sliding_width = r.sliding_rotary_dim != 0 ? r.sliding_rotary_dim
                                        : r.rotary_dim != 0       ? r.rotary_dim
                                                                  : head_dim_of_layer(m, sliding);
    rope = rope_table(full_rows, r.rotary_dim != 0 ? r.rotary_dim : head_dim_of_layer(m, full)) +
           rope_table(m.max_context, sliding_width);
  }
  const std::uint64_t padded = detail::round_up(m.vocab_size, 64);
  const std::uint64_t tables = m.tied_embeddings ? 1 : 2;
  const bytes padding = storage_bytes(served, checked_mul(checked_mul(padded - m.vocab_size, m.hidden_size), tables));
  const std::uint64_t per_layer_elements =
      checked_mul(checked_mul(max_num_batched_tokens(o), m.layers), m.weights.per_layer_input_width);
  const bytes per_layer_inputs = o.vllm.text_only_class ? bytes{0} : storage_bytes(served, per_layer_elements);
  return rope + padding / (o.tp == 0 ? 1 : o.tp) + per_layer_inputs;
}

/// Bytes live beside the sampler's float32 work while it runs: since 0.10 the forward pass's whole
/// output (T × hidden, model dtype), the R last hidden states and their random stand-in
/// (_dummy_sampler_run's torch.rand_like), and from 0.17 the Triton scratch.
[[nodiscard]] constexpr auto sampler_phase_extra(const model_spec& m, const engine_options& o, dtype served)
    -> bytes {
  using detail::checked_mul;
  const std::uint64_t t = max_num_batched_tokens(o);
  const std::uint64_t r = sampler_rows(o);
  bytes extra = storage_bytes(served, checked_mul(detail::checked_add(t, checked_mul(2, r)), m.hidden_size));
  if (release_of(o) >= 17 && r >= 8) {
    extra += storage_bytes(dtype::f32, checked_mul(detail::min_of(r, sampler_scratch_sms), m.vocab_size));
  }
  return extra;
}

}  // namespace kvsize::engines::vllm
