// SPDX-License-Identifier: MIT
// Workspace: the memory a serving engine needs on a device besides the weights and the KV cache —
// the logits, the activations of a forward pass, the sampler's float32 copy and the runtime's own
// overhead — as explicit terms, each with the engine's documented default and each overridable.
// Standard library only, constexpr, allocation-free.
//
//   kvsize::engine_options o{.context = 2'048, .batch = 160};
//   const auto w = kvsize::engine_workspace(model, kvsize::engine_kind::vllm, o);
//   w.logits; w.activations; w.sampler; w.runtime; w.total();
//
// The terms are summed. They need not all be live at the same instant (the sampler runs after the
// forward pass), so the sum is an upper bound of the engine's peak, never an under-estimate.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>  // std::max, std::min
#include <cstdint>    // std::uint8_t, std::uint64_t
#include <optional>   // std::optional
#include <string_view>

#include "error.hpp"
#include "bytes.hpp"
#include "detail/checked.hpp"
#include "dtype.hpp"
#include "engines/common.hpp"
#include "engines/llama_cpp.hpp"
#include "engines/vllm.hpp"
#include "model_spec.hpp"

namespace kvsize {

/// Which positions' logits a forward pass keeps.
enum class logits_kept : std::uint8_t {
  none,  ///< none on the device (llama.cpp keeps its output buffer in host memory; SGLang's reserve covers them)
  last,  ///< the last position of each sequence (serving engines; decoding)
  all,   ///< every position of every sequence (a naive forward pass, transformers without logits_to_keep)
};

[[nodiscard]] constexpr auto name(logits_kept k) -> std::string_view {
  switch (k) {
    case logits_kept::none: return "none";
    case logits_kept::last: return "last";
    case logits_kept::all: return "all";
  }
  return "?";
}

/// Engines' documented constants used by the workspace defaults (sources: shared/reference/engines.md).
namespace workspace_constants {
/// vLLM: the fixed redundancy buffer of its suggested --kv-cache-memory
/// (gpu_worker.py: requested − (weights + peak activations + non-torch + CUDA graphs) − 150 MiB).
inline constexpr bytes vllm_runtime_buffer = MiB * 150;
/// TensorRT-LLM (PyTorch flow): max_num_tokens, the tokens of the profiling forward pass (default 8192).
inline constexpr std::uint64_t trtllm_max_num_tokens = 8'192;
}  // namespace workspace_constants

/// Every workspace term can be replaced; unset fields take the engine's default.
struct workspace_overrides {
  std::optional<logits_kept> logits_positions{};  ///< which positions' logits are kept
  std::optional<bool> logits_float32{};            ///< logits upcast to float32 (4 B per value)
  std::optional<std::uint64_t> activation_tokens{};  ///< tokens of one forward pass (prefill chunk)
  std::optional<std::uint64_t> sampler_rows{};       ///< rows of the sampler's float32 copy
  std::optional<bytes> logits{};       ///< the logits term itself
  std::optional<bytes> activations{};  ///< the activation peak itself
  std::optional<bytes> sampler{};      ///< the sampler copy itself
  std::optional<bytes> runtime{};      ///< runtime / context overhead (the CLI's --reserve)
};

/// The workspace of one device, term by term, with what each term assumed.
struct workspace_terms {
  bytes logits{0};       ///< logits_rows × vocab × sizeof(logits_dtype)
  bytes activations{0};  ///< activation_tokens × per-token peak of one layer (activation_peak_elements)
  bytes sampler{0};      ///< sampler_rows × vocab × 4 B
  bytes runtime{0};      ///< runtime / context overhead (engine constant or override)

  logits_kept logits_positions = logits_kept::none;
  std::uint64_t logits_rows = 0;
  dtype logits_dtype = dtype::bf16;
  std::uint64_t activation_tokens = 0;
  dtype activation_dtype = dtype::bf16;
  std::uint64_t sampler_rows = 0;

  [[nodiscard]] constexpr auto total() const -> bytes { return logits + activations + sampler + runtime; }
};

/// Elements live per token at the peak of one decoder layer, on one of `tp` ranks.
///
/// The model (inference, no autograd: a layer's activations are freed when the next layer runs, so
/// one layer at a time is live; attention scores are never materialised — flash/paged attention):
///   attention phase  residual h + normed input h + Q (heads·d) + K, V (kv·(d + d_v)) + attention
///                    output (heads·d_v) + O projection output h
///                    = 3h + heads·(d + d_v) + kv·(d + d_v)
///   MLP phase        residual h + normed input h + gate and up (2·I) + act(gate)·up (I) + down output h
///                    = 3h + 3I  (an ungated MLP: 3h + 2I)
///   peak             max(attention, MLP)
/// heads, kv and I are split over tp ranks (heads and I rounded up, kv at least 1), h is not.
/// Mixture-of-experts layers are counted with `intermediate_size` as one expert's width (each token's
/// experts run one after another: a lower bound); latent attention with the expanded head sizes.
[[nodiscard]] constexpr auto activation_peak_elements(const model_spec& m, std::uint32_t tp = 1) -> std::uint64_t {
  using detail::ceil_div;
  using detail::checked_add;
  using detail::checked_mul;
  detail::check_model_shape(m);  // the model-wide rules of validate(): no layer is read
  if (tp == 0) {
    throw kvsize::invalid_argument("kvsize: tp must be positive");
  }
  const std::uint64_t h = m.hidden_size;
  const std::uint64_t d = effective_head_dim(m);
  const std::uint64_t dv = effective_head_dim_v(m);
  const std::uint64_t heads = ceil_div(m.attention_heads, tp);
  const std::uint64_t kv = std::max<std::uint64_t>(1, effective_kv_heads(m) / tp);
  const std::uint64_t inter = ceil_div(m.intermediate_size, tp);
  const std::uint64_t attention =
      checked_add(checked_mul(3, h), checked_add(checked_mul(heads, d + dv), checked_mul(kv, d + dv)));
  const std::uint64_t mlp = checked_add(checked_mul(3, h), checked_mul(m.gated_mlp ? 3U : 2U, inter));
  return std::max(attention, mlp);
}

/// The activation peak of a forward pass over `tokens` tokens (all sequences of the pass together),
/// one layer at a time, in `t`: tokens × activation_peak_elements × sizeof(t).
[[nodiscard]] constexpr auto activation_bytes(const model_spec& m, std::uint64_t tokens, dtype t,
                                              std::uint32_t tp = 1) -> bytes {
  return storage_bytes(t, detail::checked_mul(tokens, activation_peak_elements(m, tp)));
}


/// The workspace engine `e` needs on one device for `o.batch` sequences of `o.context` tokens.
/// Engine defaults (each replaced by the matching override):
///   exact         nothing: the KV ceiling alone, the lessons' arithmetic.
///   vLLM          logits: min(max_num_seqs, max_num_batched_tokens) last positions in the compute dtype;
///                 sampler: the same rows in float32 (max_num_seqs × vocab × 4 B, the profile's dummy
///                 sampler run); activations: a chunk of max_num_batched_tokens tokens (profile_run);
///                 runtime: 150 MiB (the redundancy buffer of its suggested --kv-cache-memory).
///   SGLang        nothing: its mem_fraction_static rule reserves 512 MiB + 1.5 × chunked prefill
///                 + 2 × cuda-graph batch + tp·pp/8 GiB outside the pool for all of these.
///   llama.cpp     the compute buffer: logits of a whole ubatch (n_ubatch = min(-ub, -b, n_ctx) rows,
///                 float32) and its activations (n_ubatch tokens, float32); the output buffer
///                 (n_vocab × n_seq × 4 B) is host memory and not counted; the --fit 1 GiB margin is
///                 the engine's reserve (engine_kv_budget), not workspace.
///   TensorRT-LLM  logits: the last position of each sequence, float32 sampler copy of the same rows;
///                 activations: max_num_tokens = 8192 tokens (the profiling forward pass).
///   transformers  logits: every position of every sequence (unless logits_to_keep) in the compute
///                 dtype, or float32 with logits_float32 — the lesson's naive forward pass;
///                 sampler: generate()'s float32 copy of the last logits (batch × vocab × 4 B);
///                 activations: one forward pass over batch × context tokens.
/// Activations are counted per tensor-parallel rank (activation_peak_elements); logits and sampler
/// rows are whole on every rank (the vocabulary is gathered before sampling).
[[nodiscard]] constexpr auto engine_workspace(const model_spec& m, engine_kind e, const engine_options& o,
                                              const workspace_overrides& w = {}) -> workspace_terms {
  using detail::checked_mul;
  detail::check_model(m);
  workspace_terms t{};
  const std::uint64_t context = o.context != 0 ? o.context : m.max_context;
  const std::uint64_t batch = e == engine_kind::llama_cpp ? o.parallel : o.batch;

  // Engine defaults.
  logits_kept positions = logits_kept::none;
  bool float32 = false;
  std::uint64_t last_rows = batch;
  std::uint64_t act_tokens = 0;
  dtype act_dtype = m.compute_dtype;
  std::uint64_t sampler_rows = 0;
  bytes runtime{0};
  switch (e) {
    case engine_kind::exact:
    case engine_kind::sglang: break;
    case engine_kind::vllm:
      positions = logits_kept::last;
      // the profile's dummy sampler run: min(max_num_seqs, max_num_batched_tokens) rows
      last_rows = std::min(engines::vllm::max_num_seqs(o), engines::vllm::max_num_batched_tokens(o));
      sampler_rows = last_rows;
      act_tokens = engines::vllm::max_num_batched_tokens(o);
      runtime = workspace_constants::vllm_runtime_buffer;
      break;
    case engine_kind::llama_cpp: {
      // the compute buffer's worst case: every position of a ubatch is an output
      engine_options p = o;
      p.context = context;
      positions = logits_kept::last;
      float32 = true;
      last_rows = engines::llama_cpp::plan(m, p).n_ubatch;
      act_tokens = last_rows;
      act_dtype = dtype::f32;
      break;
    }
    case engine_kind::trtllm:
      positions = logits_kept::last;
      sampler_rows = batch;
      act_tokens = workspace_constants::trtllm_max_num_tokens;
      break;
    case engine_kind::transformers:
      positions = o.logits_to_keep != 0 ? logits_kept::last : logits_kept::all;
      last_rows = o.logits_to_keep != 0 ? checked_mul(std::min(o.logits_to_keep, context), batch) : batch;
      float32 = o.logits_float32;
      sampler_rows = batch;
      act_tokens = checked_mul(batch, context);
      break;
  }

  // Overrides of the assumptions, then of the terms themselves.
  if (w.logits_positions) {
    positions = *w.logits_positions;
    if (positions == logits_kept::last && e != engine_kind::vllm && e != engine_kind::llama_cpp) {
      last_rows = batch;
    }
  }
  float32 = w.logits_float32.value_or(float32);
  act_tokens = w.activation_tokens.value_or(act_tokens);
  sampler_rows = w.sampler_rows.value_or(sampler_rows);

  t.logits_positions = positions;
  t.logits_dtype = float32 ? dtype::f32 : m.compute_dtype;
  t.logits_rows = positions == logits_kept::all ? checked_mul(context, batch)
                                                : (positions == logits_kept::last ? last_rows : 0);
  t.logits = w.logits ? *w.logits : storage_bytes(t.logits_dtype, checked_mul(t.logits_rows, m.vocab_size));
  t.activation_tokens = act_tokens;
  t.activation_dtype = act_dtype;
  // llama.cpp splits layers, not tensors, over devices: each device runs whole layers.
  const std::uint32_t tp = e == engine_kind::llama_cpp ? 1U : o.tp;
  t.activations = w.activations ? *w.activations : activation_bytes(m, act_tokens, act_dtype, tp);
  t.sampler_rows = sampler_rows;
  t.sampler = w.sampler ? *w.sampler : storage_bytes(dtype::f32, checked_mul(sampler_rows, m.vocab_size));
  t.runtime = w.runtime ? *w.runtime : runtime;
  return t;
}

}  // namespace kvsize
