// SPDX-License-Identifier: MIT
// Workspace: the memory a serving engine needs on a device besides the weights and the KV cache —
// the logits, the activations of a forward pass, the sampler's float32 copy and the runtime's own
// overhead — as explicit terms, each with the engine's documented default and each overridable.
// Engine-generic: each engine's defaults are its type's `workspace` (engines/<engine>.hpp).
// Standard library only, constexpr, allocation-free.
//
//   kvsize::engine_options o{.context = 2'048, .batch = 160};
//   const auto w = kvsize::engine_workspace(model, kvsize::engine_kind::vllm, o);
//   w.logits; w.activations; w.sampler; w.runtime; w.total();
//
// The terms are summed, except where the engine's profile runs the forward pass and the sampler one
// after the other and measures the peak (vLLM's profile_run: `phased`): there the peak is
// max(activations, logits + sampler). A summed peak is an upper bound, never an under-estimate.
// Beside the peak, an engine may name memory outside its allocator (`non_torch`) and device buffers
// loaded with the weights (`buffers`) and CUDA-graph memory it subtracts (`cuda_graphs`); all are
// part of total().
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
#include "engine.hpp"
#include "layer_widths.hpp"
#include "model_spec.hpp"

namespace kvsize {

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
  bytes non_torch{0};    ///< memory outside the framework's allocator (the engine's estimate)
  bytes buffers{0};      ///< device buffers loaded with the weights (vLLM: rotary cache, vocab padding)
  bytes cuda_graphs{0};  ///< CUDA-graph memory the engine subtracts (vLLM 0.20 – 0.22's estimate, V1)
  bool phased = false;   ///< forward pass and sampler peak one after the other (see the header comment)

  logits_kept logits_positions = logits_kept::none;
  std::uint64_t logits_rows = 0;
  dtype logits_dtype = dtype::bf16;
  std::uint64_t activation_tokens = 0;
  dtype activation_dtype = dtype::bf16;
  std::uint64_t sampler_rows = 0;
  std::uint32_t sampler_element_bytes = 4;  ///< bytes the sampler holds per row × vocab element

  /// The allocator's peak: the sum of logits, activations and sampler, or for a phased profile the
  /// larger of the forward pass (activations) and the sampler phase (logits + sampler).
  [[nodiscard]] constexpr auto peak() const -> bytes {
    return phased ? max(activations, logits + sampler) : logits + activations + sampler;
  }
  [[nodiscard]] constexpr auto total() const -> bytes { return peak() + runtime + non_torch + buffers + cuda_graphs; }
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
/// heads (the widest layer's, widest_query_heads), kv and I (the widest layer's, widest_mlp_width) are split over
/// tp ranks (heads and I rounded up, kv at least 1), h is not.
/// Mixture-of-experts layers are counted with one expert's width (the widest of intermediate_size and moe.expert_width; each token's
/// experts run one after another: a lower bound); latent attention with the expanded head sizes.
[[nodiscard]] constexpr auto activation_peak_elements(const model_spec& m, std::uint32_t tp = 1) -> std::uint64_t {
  using detail::ceil_div;
  using detail::checked_add;
  using detail::checked_mul;
  detail::check_model_shape(m);  // the model-wide rules of validate(); layers are read only for their query heads
  if (tp == 0) {
    throw kvsize::invalid_argument("kvsize: tp must be positive");
  }
  const std::uint64_t h = m.hidden_size;
  const std::uint64_t d = effective_head_dim(m);
  const std::uint64_t dv = effective_head_dim_v(m);
  const std::uint64_t heads = ceil_div(widest_query_heads(m), tp);
  const std::uint64_t kv = std::max<std::uint64_t>(1, effective_kv_heads(m) / tp);
  const std::uint64_t inter = ceil_div(widest_mlp_width(m), tp);
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


/// The workspace engine E needs on one device for `o.batch` sequences of `o.context` tokens:
/// the engine's defaults (E::workspace: which positions' logits, rows, activation tokens and dtype,
/// sampler rows, runtime buffer; each engine's type documents its own and why), each replaced by
/// the matching override, turned into bytes:
///   logits       logits_rows × vocab × sizeof(compute dtype, or float32)
///                (rows: `last` → the engine's last rows; `all` → context × sequences)
///   activations  activation_bytes(activation_tokens, dtype, the engine's activation tp)
///   sampler      sampler_rows × vocab × the engine's bytes per element (a float32 copy: 4) + its extra
///   runtime      the engine's runtime buffer, or the override (the CLI's --reserve)
///   non_torch, buffers, phased   the engine's (see workspace_defaults)
/// Activations are counted per tensor-parallel rank (activation_peak_elements); logits and sampler
/// rows are whole on every rank (the vocabulary is gathered before sampling).
template <engine E>
[[nodiscard]] constexpr auto engine_workspace_as(const model_spec& m, const engine_options& o,
                                                 const workspace_overrides& w = {}) -> workspace_terms {
  using detail::checked_mul;
  detail::check_model(m);
  const std::uint64_t context = o.context != 0 ? o.context : detail::model_context_as<E>(m, o);
  const workspace_defaults d = E::workspace(m, o);
  logits_kept positions = d.positions;
  std::uint64_t last_rows = d.last_rows;
  if (w.logits_positions) {  // overrides of the assumptions, then of the terms themselves
    positions = *w.logits_positions;
    if (positions == logits_kept::last && !d.last_rows_fixed) {
      last_rows = d.sequences;
    }
  }
  workspace_terms t{};
  t.logits_positions = positions;
  t.logits_dtype = w.logits_float32.value_or(d.logits_float32) ? dtype::f32 : m.compute_dtype;
  t.logits_rows = positions == logits_kept::all ? checked_mul(context, d.sequences)
                                                : (positions == logits_kept::last ? last_rows : 0);
  t.logits = w.logits ? *w.logits
                      : (d.logits_bytes && !w.logits_positions && !w.logits_float32
                             ? *d.logits_bytes
                             : storage_bytes(t.logits_dtype, checked_mul(t.logits_rows, m.vocab_size)));
  t.activation_tokens = w.activation_tokens.value_or(d.activation_tokens);
  t.activation_dtype = d.activation_dtype.value_or(m.compute_dtype);
  t.activations = w.activations ? *w.activations
                                : (d.activations_bytes && !w.activation_tokens
                                       ? *d.activations_bytes
                                       : activation_bytes(m, t.activation_tokens, t.activation_dtype, d.activation_tp));
  t.sampler_rows = w.sampler_rows.value_or(d.sampler_rows);
  t.sampler_element_bytes = d.sampler_element_bytes;
  t.sampler = w.sampler ? *w.sampler
                        : bytes{checked_mul(checked_mul(t.sampler_rows, m.vocab_size), d.sampler_element_bytes)} +
                              d.sampler_extra;
  t.runtime = w.runtime ? *w.runtime : d.runtime;
  t.non_torch = d.non_torch;
  t.buffers = d.buffers;
  t.cuda_graphs = d.cuda_graphs;
  t.phased = d.phased;
  return t;
}

/// engine_workspace_as for engine `e`.
[[nodiscard]] constexpr auto engine_workspace(const model_spec& m, engine_kind e, const engine_options& o,
                                              const workspace_overrides& w = {}) -> workspace_terms {
  return visit_engine(e, [&]<engine E>(E) { return engine_workspace_as<E>(m, o, w); });
}

}  // namespace kvsize
