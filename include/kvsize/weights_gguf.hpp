// SPDX-License-Identifier: MIT
// The GGUF per-tensor rules: which GGML type llama.cpp's llama-quantize gives each tensor under a
// preset (gguf_ftype), and the bytes that tensor takes. weights_bytes (weights_bytes.hpp) calls
// gguf_tensor for every tensor of a weights_scheme::gguf format. Part of <kvsize/weights.hpp>.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint64_t

#include "detail/checked.hpp"
#include "dtype.hpp"
#include "model_spec.hpp"
#include "weights_enumeration.hpp"
#include "weights_format.hpp"
#include "weights_tensor.hpp"

namespace kvsize::detail {

[[nodiscard]] constexpr auto ggml_bytes(ggml_type t, std::uint64_t rows, std::uint64_t cols) -> std::uint64_t {
  const auto& tr = traits(t);
  return checked_mul(checked_mul(ceil_div(cols, tr.block_elements), tr.block_bytes), rows);
}

[[nodiscard]] constexpr auto is_k_type(ggml_type t) -> bool {
  return t == ggml_type::q2_K || t == ggml_type::q3_K || t == ggml_type::q4_K || t == ggml_type::q5_K ||
         t == ggml_type::q6_K;
}

// The rules below follow llama.cpp src/llama-quant.cpp at ggml-org/llama.cpp@8784689fee07
// (llama_tensor_get_type, llama_model_quantize_impl), checked line by line; the table, and what
// is not modelled, is in docs/research/gguf-rules.md. "llama-quant.cpp@8784689" below means that file.

/// llama.cpp use_more_bits (llama-quant.cpp@8784689, the lambda in llama_tensor_get_type): the first
/// and last eighth of the layers, and every third layer in between.
[[nodiscard]] constexpr auto use_more_bits(std::uint64_t i, std::uint64_t n) -> bool {
  return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

/// What llama.cpp's counters and model facts are while quantizing (quantize_state_impl).
struct gguf_state {
  std::uint64_t n_attention_wv = 0;  ///< attn_v + attn_qkv + attn_kv_b tensors in the file
  std::uint64_t i_attention_wv = 0;  ///< attn_v tensors seen so far (attn_qkv does not advance it)
  std::uint64_t i_ffn_down = 0;      ///< ffn_down* tensors seen so far: the layer index of a model without experts
  std::uint64_t n_layer = 0;         ///< hparams.n_layer (blocks in the file, MTP blocks included)
  std::uint64_t n_expert = 0;
  std::uint64_t n_gqa = 1;
  bool is_70b = false;
};

/// The GGML type llama.cpp gives a 2-D weight under preset `ft` (llama_tensor_get_type).
/// Tensors arrive in llama.cpp's order (llama_model_loader's weight_name_comparer: by block index,
/// model-wide tensors first), which is for_each_weight's layer order, so the counters agree.
/// long-function: it is a transcription of llama_tensor_get_type's if-chain, branch by
/// branch and in its order (the order decides which rule wins), so that it can be checked against
/// llama-quant.cpp line by line and updated the same way when llama.cpp changes a rule.
[[nodiscard]] constexpr auto gguf_matrix_type(const weight_tensor& t, gguf_ftype ft, bool tied, gguf_state& s)
    -> ggml_type {
  using enum gguf_ftype;
  const ggml_type base = base_type(ft);
  if (ft == f32 || ft == f16 || ft == bf16) {
    return base;
  }
  ggml_type type = base;
  // output.weight, or token_embd.weight when the file has no output.weight (a tied head). Only the
  // model-wide tensors have those names: an MTP block's embedding/head copies are
  // blk.N.nextn.embed_tokens / shared_head_head and take the base type (llama-quant.cpp@8784689:
  // `name == tn(LLM_TENSOR_OUTPUT, "weight") || (!qs.has_output && name == ...TOKEN_EMBD...)`).
  const bool model_wide = t.layer == no_layer;
  const bool output = model_wide && (t.role == tensor_role::output || (tied && t.role == tensor_role::token_embedding));
  if (output) {
    // llama-quant.cpp@8784689: q8_0 if the row is not a whole number of the base type's blocks, else
    // q6_K unless the base is q8_0. For a 32-element base type and a row that is a multiple of 32
    // but not of 256 llama.cpp picks q6_K and its fallback turns that into q8_0: the same result.
    // (Falcon always gets q8_0 there; kvsize has no architecture to tell Falcon apart.)
    if (t.cols % 256 != 0) {
      type = ggml_type::q8_0;
    } else if (type != ggml_type::q8_0) {
      type = ggml_type::q6_K;
    }
  } else if (t.role == tensor_role::token_embedding) {
    // llama-quant.cpp@8784689: token_embd changes only under the IQ1/IQ2/IQ3_XXS/TQ presets, which
    // kvsize does not offer: the base type.
  } else if (t.role == tensor_role::attn_v) {
    // llama-quant.cpp@8784689, the `attn_v.weight` branch, in its order.
    if (ft == q2_K) {
      type = s.n_gqa >= 4 ? ggml_type::q4_K : ggml_type::q3_K;
    } else if (ft == q3_K_M) {
      type = s.i_attention_wv < 2 ? ggml_type::q5_K : ggml_type::q4_K;
    } else if (ft == q3_K_L) {
      type = ggml_type::q5_K;
    } else if (ft == iq4_nl && s.n_gqa >= 4) {
      type = ggml_type::q5_K;
    } else if ((ft == q4_K_M || ft == q5_K_M) && use_more_bits(s.i_attention_wv, s.n_attention_wv)) {
      type = ggml_type::q6_K;
    } else if (ft == q4_K_S && s.i_attention_wv < 4) {
      type = ggml_type::q5_K;
    }
    if (s.is_70b && (type == ggml_type::q3_K || type == ggml_type::q4_K)) {
      type = ggml_type::q5_K;  // LLM_TYPE_70B
    }
    if (s.n_expert == 8) {
      type = ggml_type::q8_0;
    }
    ++s.i_attention_wv;
  } else if (t.role == tensor_role::attn_k || t.role == tensor_role::attn_index_k) {  // the indexers' K as before
    // llama-quant.cpp@8784689, the `attn_k.weight` branch: q8_0 in 8-expert models under every
    // preset kvsize offers (its other cases are IQ3 presets).
    if (s.n_expert == 8) {
      type = ggml_type::q8_0;
    }
  } else if (t.role == tensor_role::ffn_down) {
    // llama-quant.cpp@8784689 layer_info: with experts (n_expert > 1) the layer is the block index
    // in the tensor's name; without, it is the count of ffn_down tensors seen so far, so a model
    // whose FFN skips layers (Nemotron-H, DeciLM no-op FFNs) numbers its FFNs 0, 1, 2, ... against
    // n = hparams.n_layer, every block counted.
    const std::uint64_t i = s.n_expert > 1 ? t.layer : s.i_ffn_down;
    const std::uint64_t n = s.n_layer;
    ++s.i_ffn_down;
    if (ft == q2_K) {
      type = ggml_type::q3_K;
    } else if (ft == q3_K_M) {
      type = i < n / 16 ? ggml_type::q5_K : ggml_type::q4_K;  // Falcon: q3_K outside use_more_bits
    } else if (ft == q3_K_L) {
      type = ggml_type::q5_K;  // Falcon: q4_K
    } else if (ft == q4_K_M) {
      if (use_more_bits(i, n)) {
        type = ggml_type::q6_K;  // Falcon: q6_K on i < n/16, q5_K on use_more_bits
      }
    } else if (i < n / 8 && ft == iq4_nl) {
      type = ggml_type::q5_K;  // without an imatrix
    } else if (ft == q5_K_M && use_more_bits(i, n)) {
      type = ggml_type::q6_K;
    } else if (ft == q4_K_S && i < n / 8) {
      type = ggml_type::q5_K;  // not Falcon
    }
    // (q4_0/q5_0 with an imatrix give the first eighth q4_1/q5_1; kvsize assumes no imatrix.)
  } else if (t.role == tensor_role::attn_output) {
    // llama-quant.cpp@8784689, the `attn_output.weight` branch (not Falcon).
    if (s.n_expert == 8) {
      if (ft == q2_K || ft == q3_K_S || ft == q3_K_M || ft == iq4_nl || ft == q4_K_S || ft == q4_K_M) {
        type = ggml_type::q5_K;
      }
    } else if (ft == q2_K) {
      type = ggml_type::q3_K;
    } else if (ft == q3_K_M) {
      type = ggml_type::q4_K;
    } else if (ft == q3_K_L) {
      type = ggml_type::q5_K;
    }
  } else if (t.role == tensor_role::attn_qkv) {
    // llama-quant.cpp@8784689, the `attn_qkv.weight` branch; it does not advance i_attention_wv.
    if (ft == q3_K_M || ft == q3_K_L) {
      type = ggml_type::q4_K;
    } else if (ft == q4_K_M) {
      type = ggml_type::q5_K;
    } else if (ft == q5_K_M) {
      type = ggml_type::q6_K;
    }
  }
  // llama-quant.cpp@8784689 convert_incompatible_tensor: a row (ne[0]) that is not a whole number
  // of the chosen type's blocks falls back: q2_K, q3_K → iq4_nl; q4_K → q5_0; q5_K → q5_1;
  // q6_K → q8_0; then f16 if the row does not divide into 32 either. (llama.cpp refuses a
  // 32-element type on such a row; kvsize counts it as f16.)
  if (is_k_type(type) && t.cols % 256 != 0) {
    switch (type) {
      case ggml_type::q2_K:
      case ggml_type::q3_K: type = ggml_type::iq4_nl; break;
      case ggml_type::q4_K: type = ggml_type::q5_0; break;
      case ggml_type::q5_K: type = ggml_type::q5_1; break;
      default: type = ggml_type::q8_0; break;
    }
  }
  if (t.cols % traits(type).block_elements != 0) {
    type = ggml_type::f16;
  }
  return type;
}

/// The counters and model facts of quantize_state_impl before the first tensor: n_attention_wv
/// counts the file's attn_v, attn_qkv and attn_kv_b tensors (a pass over the tensors, as
/// llama_model_quantize_impl's first loop does).
[[nodiscard]] constexpr auto gguf_state_of(const model_spec& m, const weights_format& f) -> gguf_state {
  gguf_state g;
  // hparams.n_layer is the file's block count: a converter that keeps the MTP blocks counts them
  // (convert_hf_to_gguf.py Glm4MoeModel: num_hidden_layers + num_nextn_predict_layers); DeepSeek's
  // and Qwen3-Next's drop them, which is include_mtp = false.
  g.n_layer = m.layers + (f.include_mtp ? m.weights.mtp_layers : 0U);
  g.n_expert = m.weights.moe.experts;
  g.n_gqa = effective_kv_heads(m) != 0 ? m.attention_heads / effective_kv_heads(m) : 1;
  // LLM_TYPE_70B (llama-model.cpp): 80 blocks for Llama (with GQA; 65B without), Qwen2, DeciLM,
  // OLMoE. kvsize has no architecture, so every 80-layer model counts (Falcon-180B would not).
  g.is_70b = m.layers == 80;
  for_each_weight(m, [&](const weight_tensor& t) {
    if ((t.part == weight_part::mtp || t.part == weight_part::mtp_embeddings) && !f.include_mtp) {
      return;
    }
    if (t.role == tensor_role::attn_v || t.role == tensor_role::attn_qkv || t.role == tensor_role::attn_kv_b) {
      ++g.n_attention_wv;
    }
  });
  return g;
}

/// Bytes of one tensor of a GGUF file, and whether a GGML block type (quantized) holds them.
struct gguf_bytes {
  std::uint64_t bytes = 0;
  bool quantized = false;
};

/// One tensor under preset f.gguf: the vision tower f16 (the mmproj file); 1-D tensors, routers
/// (ffn_gate_inp), position embeddings and SSM conv1d float32; a tensor of a part in
/// f.unquantized_parts in `rest`; every other matrix the type gguf_matrix_type picks. Call in
/// for_each_weight's order: `s` carries llama.cpp's counters from one tensor to the next.
[[nodiscard]] constexpr auto gguf_tensor(const weight_tensor& t, const weights_format& f, dtype rest, bool tied,
                                         gguf_state& s) -> gguf_bytes {
  if (t.role == tensor_role::vision) {
    return {tensor_bytes(t, dtype::f16), false};
  }
  const bool kept = (f.unquantized_parts & part_bit(t.part)) != 0;
  const bool stays_f32 = t.is_vector() || t.role == tensor_role::router || t.role == tensor_role::shared_expert_gate ||
                         t.role == tensor_role::position_embedding || t.role == tensor_role::ssm_conv;
  if (stays_f32 || kept) {
    return {tensor_bytes(t, kept && !stays_f32 ? rest : dtype::f32), false};
  }
  const ggml_type type = gguf_matrix_type(t, f.gguf, tied, s);
  const std::uint64_t b = checked_mul(ggml_bytes(type, t.rows, t.cols), t.copies);
  return {b, !(type == ggml_type::f32 || type == ggml_type::f16 || type == ggml_type::bf16)};
}

}  // namespace kvsize::detail
