// SPDX-License-Identifier: MIT
// kvsize::weight_tensor: one weight tensor of a model, as for_each_weight (weights_enumeration.hpp)
// reports it: which term of the parameter count it belongs to (weight_part), what it is in the
// quantizers' vocabulary (tensor_role), its layer and its shape. Part of <kvsize/weights.hpp>.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t

#include "detail/checked.hpp"
#include "dtype.hpp"

namespace kvsize {

/// The term of parameter_breakdown a tensor belongs to.
enum class weight_part : std::uint8_t {
  embeddings,      ///< token embedding (+ learned position embedding; Gemma 3n / 4 E per-layer inputs, their Linears too)
  lm_head,         ///< untied output projection
  attention,       ///< attention projections, their biases, sinks (MLA projections included)
  mlp,             ///< dense MLPs
  experts_routed,  ///< routed experts of MoE layers
  experts_shared,  ///< shared (always-on) experts, and a latent MoE's projections around the routed ones
  router,          ///< routers, their biases, shared-expert gates
  norms,           ///< every normalization weight and bias (layer, final, Q/K, MLA's)
  recurrent,       ///< recurrent mixers: Mamba, gated delta, KDA, lightning, short conv (their norms included)
  mtp,             ///< multi-token-prediction modules (not in total)
  mtp_embeddings,  ///< the embedding and head copies MTP modules store (not in total)
  vision,          ///< vision tower and projector (not in total)
};
inline constexpr std::uint32_t weight_part_count = 12;
static_assert(static_cast<std::uint32_t>(weight_part::vision) + 1 == weight_part_count, "kvsize: one count per weight_part");

/// A bit of weights_format::unquantized_parts.
[[nodiscard]] constexpr auto part_bit(weight_part p) -> std::uint16_t {
  return static_cast<std::uint16_t>(1U << static_cast<unsigned>(p));
}

/// What a tensor is, in the vocabulary the quantizers' rules use.
enum class tensor_role : std::uint8_t {
  token_embedding,
  position_embedding,
  output,  ///< the LM head
  attn_q,
  attn_k,
  attn_v,
  attn_qkv,  ///< fused Q/K/V (weights_shape::fused_qkv)
  attn_output,
  attn_q_a,   ///< MLA: hidden → q_lora_rank
  attn_q_b,   ///< MLA: q_lora_rank → heads × (nope + rope)
  attn_kv_a,  ///< MLA: hidden → kv_lora_rank + rope
  attn_kv_b,  ///< MLA: kv_lora_rank → heads × (nope + v)
  attn_head_gate,  ///< heads × hidden: one sigmoid gate per query head on the attention output (Step-3.5's g_proj)
  /// index_n_heads × hidden: DSA's indexer weights_proj, one weight per indexer head; GPTQ, AWQ, FP8, bitsandbytes
  /// and compressed-tensors leave it unquantized (vLLM and SGLang build it with quant_config=None; DeepSeek-V3.2's
  /// and GLM-5's FP8 checkpoints keep it bf16); MLX, which quantizes every Linear, packs it
  attn_index_weights,
  /// A sparse-attention indexer's query projection (DSA's wq_b, q_lora_rank → index heads × index_head_dim; MiniMax-M3's
  /// index_q_proj): quantized as the attention's Linears are, but not the attention's own Q (an exclude list's q_b_proj)
  attn_index_q,
  attn_index_k,  ///< the indexer's key projection (DSA's wk, MiniMax-M3's index_k_proj): one head, not the attention's K
  ffn_gate,
  ffn_up,
  ffn_gate_up,  ///< fused gate and up (weights_shape::fused_gate_up)
  ffn_down,
  router,              ///< experts × hidden
  moe_latent_in,       ///< latent MoE: hidden → latent before the routed experts (fc1_latent_proj)
  moe_latent_out,      ///< latent MoE: latent → hidden after them (fc2_latent_proj)
  shared_expert_gate,  ///< 1 × hidden
  ssm_in,
  ssm_conv,  ///< depthwise conv1d weight: channels × kernel
  ssm_out,
  ssm_x,   ///< Mamba1 x_proj: d_inner → dt_rank + 2 × d_state
  ssm_dt,  ///< Mamba1 dt_proj: dt_rank → d_inner
  mtp_projection,   ///< MTP: 2 × hidden → hidden
  norm,             ///< a 1-D normalization weight or bias
  vector,           ///< another 1-D tensor: a bias, attention sinks, SSM dt_bias / A_log / D
  buffer,           ///< a persistent buffer the checkpoint stores, not a parameter (Gemma 4's layer_scalar)
  per_layer_embedding,  ///< Gemma 3n / 4 embed_tokens_per_layer: vocab rows × (layers × P), split by vocabulary
  per_layer_input,      ///< Gemma 3n / 4 per_layer_model_projection, per_layer_input_gate, per_layer_projection
  correction_bias,  ///< e_score_correction_bias: a float32 buffer in every checkpoint
  vision,           ///< the vision tower and projector, as one opaque count
};

static_assert(static_cast<unsigned>(tensor_role::vision) < 64, "kvsize: a role is a bit of a 64-bit mask");

/// A bit of weights_format::unquantized_roles.
[[nodiscard]] constexpr auto role_bit(tensor_role r) -> std::uint64_t {
  return std::uint64_t{1} << static_cast<unsigned>(r);
}

/// Layer index of model-wide tensors.
inline constexpr std::uint32_t no_layer = 0xFFFF'FFFFU;

/// The most tensor-parallel ranks vLLM and SGLang split a tensor of this part and role over, from the layer type
/// their models build it with (docs/research/replicated-weights.md; vllm model_executor/layers/linear.py): 1 for
/// what every rank holds whole (ReplicatedLinear: the router part, MLA's q_a/kv_a projections, DSA's indexer
/// weights_proj, a latent MoE's fc1/fc2_latent_proj; RMSNorm/LayerNorm weights; the MTP eh_proj, an nn.Linear;
/// GPT-2's position table, an nn.Embedding), 0 for any number (ColumnParallel, RowParallel, VocabParallel,
/// FusedMoE). Set where they are emitted, as their roles say nothing of it: K/V projections (by KV head), a
/// RowParallelLinear's bias (whole), norms split by head (Mamba-2's Mixer2RMSNormGated, MiniMax's
/// MiniMaxText01RMSNormTP, full-width Q/K norms), KDA's replicated f_a/g_a (weights_enumeration.hpp, _mixers.hpp).
/// Qwen3-Next's MTP fc, a ColumnParallelLinear, is counted whole like DeepSeek's eh_proj.
[[nodiscard]] constexpr auto default_tp_max_ways(weight_part part, tensor_role role) -> std::uint32_t {
  if (part == weight_part::router) {
    return 1U;  // routers (nn.Linear / ReplicatedLinear / GateLinear), their biases, gates, correction biases
  }
  switch (role) {
    case tensor_role::norm:
    case tensor_role::moe_latent_in:
    case tensor_role::moe_latent_out:
    case tensor_role::position_embedding:
    case tensor_role::attn_q_a:
    case tensor_role::attn_kv_a:
    case tensor_role::attn_index_weights:
    case tensor_role::router:
    case tensor_role::shared_expert_gate:
    case tensor_role::mtp_projection:
    case tensor_role::per_layer_input:  // each layer's gate and projection: ReplicatedLinear in vLLM's gemma4.py
    case tensor_role::correction_bias: return 1U;
    default: return 0U;
  }
}

/// One weight tensor (or `copies` identical ones: the experts of a layer). A matrix is
/// rows (output features) × cols (input features, the stored row length); a vector has rows = 1.
struct weight_tensor {
  weight_part part = weight_part::embeddings;
  tensor_role role = tensor_role::vector;
  std::uint32_t layer = no_layer;  ///< decoder layer; layers + i for MTP module i
  std::uint64_t rows = 0;
  std::uint64_t cols = 0;
  std::uint64_t copies = 1;
  /// The most tensor-parallel ranks that split it: 0 any number (1/tp each), 1 none (whole on every rank), n its
  /// n KV heads (split over min(tp, n) ranks). weights_split_of sums by it.
  std::uint32_t tp_max_ways = default_tp_max_ways(part, role);
  [[nodiscard]] constexpr auto elements() const -> std::uint64_t {
    return detail::checked_mul(detail::checked_mul(rows, cols), copies);
  }
  [[nodiscard]] constexpr auto is_vector() const -> bool {
    return role == tensor_role::norm || role == tensor_role::vector || role == tensor_role::correction_bias ||
           role == tensor_role::buffer;
  }
  /// A Linear layer's weight inside a decoder block: what GPTQ, AWQ, FP8 and bitsandbytes quantize.
  [[nodiscard]] constexpr auto is_block_linear() const -> bool {
    switch (role) {
      case tensor_role::attn_q:
      case tensor_role::attn_k:
      case tensor_role::attn_v:
      case tensor_role::attn_qkv:
      case tensor_role::attn_output:
      case tensor_role::attn_q_a:
      case tensor_role::attn_q_b:
      case tensor_role::attn_kv_a:
      case tensor_role::attn_kv_b:
      case tensor_role::attn_head_gate:
      case tensor_role::attn_index_q:
      case tensor_role::attn_index_k:
      case tensor_role::ffn_gate:
      case tensor_role::ffn_up:
      case tensor_role::ffn_gate_up:
      case tensor_role::ffn_down:
      case tensor_role::moe_latent_in:
      case tensor_role::moe_latent_out:
      case tensor_role::ssm_in:
      case tensor_role::ssm_out:
      case tensor_role::ssm_x:
      case tensor_role::ssm_dt:
      case tensor_role::per_layer_input: return true;  // Linears vLLM builds with quant_config (gemma4.py)
      default: return false;
    }
  }
};

namespace detail {
/// Bytes of tensor `t` stored as `type`: its rows × cols elements in whole blocks
/// (storage_bytes), times its copies.
[[nodiscard]] constexpr auto tensor_bytes(const weight_tensor& t, dtype type) -> std::uint64_t {
  return checked_mul(storage_bytes(type, checked_mul(t.rows, t.cols)).count(), t.copies);
}
}  // namespace detail

}  // namespace kvsize
