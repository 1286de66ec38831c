// SPDX-License-Identifier: MIT
// kvsize::weights_bytes: the bytes of a model_spec's weights in a weights_format, split into
// quantized values, their scales, and the tensors left in a float type; a sum over for_each_weight
// (weights_enumeration.hpp), one step per scheme. Part of <kvsize/weights.hpp>.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint64_t

#include "bytes.hpp"
#include "detail/checked.hpp"
#include "dtype.hpp"
#include "model_spec.hpp"
#include "weights_enumeration.hpp"
#include "weights_format.hpp"
#include "weights_gguf.hpp"
#include "weights_split.hpp"
#include "weights_tensor.hpp"

namespace kvsize {

/// Weight bytes, split by what they are.
struct weights_bytes_breakdown {
  bytes quantized{0};    ///< quantized values (packed)
  bytes scales{0};       ///< scales, zeros, absmax, g_idx of quantized tensors
  bytes unquantized{0};  ///< tensors the scheme leaves in a float type
  bytes total{0};
  friend constexpr auto operator==(const weights_bytes_breakdown&, const weights_bytes_breakdown&) -> bool = default;
};

namespace detail {

/// The three sums of weights_bytes_breakdown, as integers while they are added up.
struct weights_sum {
  std::uint64_t quantized = 0;
  std::uint64_t scales = 0;
  std::uint64_t unquantized = 0;

  /// quantized + scales + unquantized: the tensor's (or the sum's) bytes; overflow throws.
  [[nodiscard]] constexpr auto total() const -> std::uint64_t {
    return checked_add(checked_add(quantized, scales), unquantized);
  }
};

/// What a quantized matrix holds besides its float tensors: packed values and their scales, for
/// one copy of a rows (output features) × cols (input features) matrix.
struct packed_bytes {
  std::uint64_t data = 0;
  std::uint64_t scales = 0;
};

/// GPTQ (AutoGPTQ/GPTQModel QuantLinear): qweight int32 [in·bits/32, out], qzeros int32
/// [groups, out·bits/32], scales f16 [groups, out], g_idx int32 [in]. AWQ (AutoAWQ
/// WQLinear_GEMM): qweight int32 [in, out·bits/32], the same qzeros and scales, no g_idx.
/// groups = ceil(in / group_size), one group for group_size 0.
[[nodiscard]] constexpr auto gptq_awq_bytes(const weights_format& f, std::uint64_t rows, std::uint64_t cols)
    -> packed_bytes {
  const std::uint64_t bits = f.bits;
  const std::uint64_t groups = f.group_size == 0 ? 1 : ceil_div(cols, f.group_size);
  const bool gptq = f.scheme == weights_scheme::gptq;
  packed_bytes p;
  p.data = gptq ? checked_mul(checked_mul(ceil_div(checked_mul(cols, bits), 32), 4), rows)
                : checked_mul(checked_mul(ceil_div(checked_mul(rows, bits), 32), 4), cols);
  p.scales = checked_mul(checked_mul(groups, ceil_div(checked_mul(rows, bits), 32)), 4);  // qzeros
  p.scales = checked_add(p.scales, checked_mul(checked_mul(groups, rows), 2));            // f16 scales
  if (gptq) {
    p.scales = checked_add(p.scales, checked_mul(cols, 4));  // g_idx
  }
  return p;
}

/// FP8 e4m3: one byte per value, a float32 scale per block_rows × block_cols block (0: the whole
/// dimension, i.e. per tensor or per channel), and f.tensor_scalars float32 scalars (ModelOpt FP8's input_scale).
[[nodiscard]] constexpr auto fp8_bytes(const weights_format& f, std::uint64_t rows, std::uint64_t cols)
    -> packed_bytes {
  const std::uint64_t br = f.block_rows == 0 ? rows : f.block_rows;
  const std::uint64_t bc = f.block_cols == 0 ? cols : f.block_cols;
  return {checked_mul(rows, cols), checked_add(checked_mul(checked_mul(ceil_div(rows, br), ceil_div(cols, bc)), 4),
                                               checked_mul(f.tensor_scalars, 4))};
}

/// NVFP4 as ModelOpt stores one Linear (vllm model_executor/layers/quantization/modelopt.py,
/// ModelOptNvFp4LinearMethod.create_weights; each expert's projections alike): weight, uint8 [rows, cols/2], two E2M1
/// values a byte; weight_scale, float8_e4m3fn [rows, cols/group_size]; and f.tensor_scalars float32 scalars
/// (weight_scale_2, input_scale). A 4,096 × 4,096 q_proj: 8,388,608 + 1,048,576 + 8 B.
[[nodiscard]] constexpr auto nvfp4_bytes(const weights_format& f, std::uint64_t rows, std::uint64_t cols)
    -> packed_bytes {
  const std::uint64_t groups = f.group_size == 0 ? 1 : ceil_div(cols, f.group_size);
  return {checked_mul(rows, ceil_div(cols, 2)), checked_add(checked_mul(rows, groups), checked_mul(f.tensor_scalars, 4))};
}

/// compressed-tensors pack-quantized (compressed_tensors/compressors/pack_quantized: weight_packed, weight_scale,
/// weight_shape), symmetric: each row's cols values of `bits` bits packed 32 / bits to an int32 word
/// (rows × ⌈cols·bits/32⌉ × 4 B), a scale per group of group_size inputs in the weights' own type `rest`
/// (rows × ⌈cols/group⌉), and the int32[2] original shape, 8 B, as the Kimi-K2 checkpoints store it. Kimi-K2.5,
/// int4 g32 on the routed experts: 595,148,192,736 B with its vision tower, the index's total_size.
[[nodiscard]] constexpr auto packed_int_bytes(const weights_format& f, std::uint64_t rows, std::uint64_t cols, dtype rest)
    -> packed_bytes {
  const std::uint64_t groups = f.group_size == 0 ? 1 : ceil_div(cols, f.group_size);
  return {checked_mul(checked_mul(ceil_div(checked_mul(cols, f.bits), 32), 4), rows),
          checked_add(storage_bytes(rest, checked_mul(rows, groups)).count(), 8)};
}

/// bitsandbytes Linear8bitLt: int8 values and one float32 scale (SCB) per output row.
[[nodiscard]] constexpr auto bnb_8bit_bytes(std::uint64_t rows, std::uint64_t cols) -> packed_bytes {
  return {checked_mul(rows, cols), checked_mul(rows, 4)};
}

/// bitsandbytes Linear4bit (NF4/FP4): ceil(n/2) packed bytes, a float32 absmax per bnb_block
/// (double_quant: a uint8 per block, a float32 per 256 blocks, a 256-entry float32 code and an
/// offset), and the 16-entry float32 quant map.
[[nodiscard]] constexpr auto bnb_4bit_bytes(const weights_format& f, std::uint64_t rows, std::uint64_t cols)
    -> packed_bytes {
  const std::uint64_t n = checked_mul(rows, cols);
  const std::uint64_t blocks = ceil_div(n, f.bnb_block == 0 ? 64 : f.bnb_block);
  std::uint64_t scales = f.double_quant ? checked_add(checked_add(blocks, checked_mul(ceil_div(blocks, 256), 4)), 256 * 4 + 4)
                                        : checked_mul(blocks, 4);
  scales = checked_add(scales, 16 * 4);  // the NF4/FP4 code
  return {ceil_div(n, 2), scales};
}

/// OCP MX FP4: 16 B of 4-bit values and one E8M0 byte per 32 input features of each row.
[[nodiscard]] constexpr auto mxfp4_bytes(std::uint64_t rows, std::uint64_t cols) -> packed_bytes {
  const std::uint64_t blocks = checked_mul(ceil_div(cols, 32), rows);
  return {checked_mul(blocks, 16), blocks};
}

/// MLX (mlx ops.cpp `affine_quantize` / `fp_quantize`): a rows × cols matrix quantized along its
/// input features: rows × cols × bits / 8 B packed in uint32 words, and per group of group_size
/// inputs one scale (affine: a scale and a bias, each in the weights' float type `rest`; the fp
/// modes: one uint8 scale).
[[nodiscard]] constexpr auto mlx_bytes(const weights_format& f, std::uint64_t rows, std::uint64_t cols, dtype rest)
    -> packed_bytes {
  const std::uint64_t words = ceil_div(checked_mul(cols, f.bits), 32);
  const std::uint64_t groups = checked_mul(rows, cols / f.group_size);
  const bool affine = f.mlx == mlx_mode::affine;  // a scale and a bias in `rest`, else one uint8 scale
  return {checked_mul(checked_mul(rows, words), 4),
          affine ? checked_mul(storage_bytes(rest, groups).count(), 2) : groups};
}

/// Whether scheme `f` quantizes tensor `t`: the Linear weights inside the decoder blocks for
/// GPTQ, AWQ, FP8 and NVFP4, the routers and shared-expert gates too for bitsandbytes (it replaces every
/// nn.Linear but lm_head, and but a module the model class keeps in float32: `stored_f32`, see
/// stored_f32()), the routed experts' matrices only for MXFP4; never a part in f.unquantized_parts, nor a role in
/// f.unquantized_roles.
[[nodiscard]] constexpr auto quantizes(const weights_format& f, const weight_tensor& t, bool stored_f32)
    -> bool {
  if ((f.unquantized_parts & part_bit(t.part)) != 0 || (f.unquantized_roles & role_bit(t.role)) != 0) {
    return false;
  }
  switch (f.scheme) {
    case weights_scheme::bnb_4bit:
    case weights_scheme::bnb_8bit:  // transformers quantizers/base.py get_modules_to_not_convert adds the class's
                                    // _keep_in_fp32_modules(_strict): ERNIE-4.5-MoE's float32 gate.weight stays f32
      return !stored_f32 &&
             (t.is_block_linear() || t.role == tensor_role::router || t.role == tensor_role::shared_expert_gate);
    case weights_scheme::gptq:
    case weights_scheme::awq:
    case weights_scheme::fp8:    // ModelOpt (fp8, nvfp4) quantizes each nn.Linear of the blocks; its recipes leave
    case weights_scheme::nvfp4:  // routers, lm_head, embeddings and the vision tower alone (exclude_modules lists more)
      return t.is_block_linear();
    case weights_scheme::packed_int:  // targets ["Linear"]: the block's and lm_head, less `ignore` (unquantized_parts);
                                      // a DeepSeek-style MoEGate is no Linear, so routers are never packed
      return t.is_block_linear() || t.role == tensor_role::output;
    case weights_scheme::mxfp4: return t.part == weight_part::experts_routed && !t.is_vector();
    case weights_scheme::mlx:  // nn.quantize: every leaf with to_quantized (Linear, Embedding, the expert and
                               // MLA stacks) whose input dim is a multiple of group_size; not conv1d
      return !t.is_vector() && t.role != tensor_role::ssm_conv && t.role != tensor_role::vision &&
             f.group_size != 0 && t.cols % f.group_size == 0;
    case weights_scheme::uniform:
    case weights_scheme::gguf: return false;
  }
  return false;
}

/// The packed bytes of one copy of matrix `t` under the (non-GGUF) quantizing scheme of `f`.
[[nodiscard]] constexpr auto packed_bytes_of(const weights_format& f, const weight_tensor& t, dtype rest)
    -> packed_bytes {
  switch (f.scheme) {
    case weights_scheme::gptq:
    case weights_scheme::awq: return gptq_awq_bytes(f, t.rows, t.cols);
    case weights_scheme::fp8: return fp8_bytes(f, t.rows, t.cols);
    case weights_scheme::nvfp4: return nvfp4_bytes(f, t.rows, t.cols);
    case weights_scheme::bnb_8bit: return bnb_8bit_bytes(t.rows, t.cols);
    case weights_scheme::bnb_4bit: return bnb_4bit_bytes(f, t.rows, t.cols);
    case weights_scheme::mxfp4: return mxfp4_bytes(t.rows, t.cols);
    case weights_scheme::mlx: return mlx_bytes(f, t.rows, t.cols, rest);
    case weights_scheme::packed_int: return packed_int_bytes(f, t.rows, t.cols, rest);
    case weights_scheme::uniform:
    case weights_scheme::gguf: break;
  }
  return {};
}

/// Whether format `f` stores tensor `t` at all: MTP modules only with include_mtp, the vision
/// tower only with include_vision.
[[nodiscard]] constexpr auto stores(const weights_format& f, const weight_tensor& t) -> bool {
  if (t.part == weight_part::mtp || t.part == weight_part::mtp_embeddings) {
    return f.include_mtp;
  }
  return t.part != weight_part::vision || f.include_vision;
}

/// Whether a checkpoint keeps tensor `t` of `m` in float32 whatever its dtype: e_score_correction_bias (a
/// float32 buffer in every checkpoint) and the router of a moe_shape::router_f32 model.
[[nodiscard]] constexpr auto stored_f32(const model_spec& m, const weight_tensor& t) -> bool {
  return t.role == tensor_role::correction_bias || (t.role == tensor_role::router && m.weights.moe.router_f32);
}

/// Adds tensor `t` to `sum` under format `f`; `rest` is the type of what the scheme leaves
/// unquantized, `f32` whether the checkpoint keeps `t` float32 (stored_f32), `g` the GGUF counters
/// (unused by the other schemes).
constexpr void add_tensor(weights_sum& sum, const weight_tensor& t, const weights_format& f, dtype rest, bool tied,
                          bool f32, gguf_state& g) {
  if (f.scheme == weights_scheme::uniform) {
    sum.unquantized = checked_add(sum.unquantized, tensor_bytes(t, f32 && f.keeps_f32_tensors ? dtype::f32 : f.type));
    return;
  }
  if (t.role == tensor_role::correction_bias) {
    sum.unquantized = checked_add(sum.unquantized, tensor_bytes(t, dtype::f32));
    return;
  }
  if (f.scheme == weights_scheme::gguf) {
    const gguf_bytes b = gguf_tensor(t, f, rest, tied, g);
    std::uint64_t& into = b.quantized ? sum.quantized : sum.unquantized;
    into = checked_add(into, b.bytes);
    return;
  }
  // A float32 router that the scheme leaves unquantized stays float32 beside the scheme's unquantized type.
  if (!quantizes(f, t, f32)) {
    sum.unquantized = checked_add(sum.unquantized, tensor_bytes(t, f32 ? dtype::f32 : rest));
    return;
  }
  const packed_bytes p = packed_bytes_of(f, t, rest);
  sum.quantized = checked_add(sum.quantized, checked_mul(p.data, t.copies));
  sum.scales = checked_add(sum.scales, checked_mul(p.scales, t.copies));
  if (t.role == tensor_role::attn_k || t.role == tensor_role::attn_qkv) {  // one K projection a layer
    sum.scales = checked_add(sum.scales, checked_mul(f.kv_cache_scalars, 4));
  }
}

/// Calls visit(t, one) for every tensor of `m` that format `f` stores, `one` being that tensor's
/// bytes as weights_bytes counts them: the one walk behind weights_bytes_detail and weights_by_layer.
template <class Visit>
constexpr void for_each_stored_tensor(const model_spec& m, const weights_format& f, Visit&& visit) {
  const dtype rest = f.unquantized ? *f.unquantized : m.compute_dtype;
  gguf_state g = f.scheme == weights_scheme::gguf ? gguf_state_of(m, f) : gguf_state{};
  for_each_weight(m, [&](const weight_tensor& t) {
    if (stores(f, t)) {
      weights_sum one;
      add_tensor(one, t, f, rest, m.tied_embeddings, stored_f32(m, t), g);
      visit(t, one);
    }
  });
}

}  // namespace detail

/// Bytes of the weights of `m` in format `f`, split into quantized values, scales and
/// unquantized tensors. What each scheme quantizes, and how (sources in docs of each case):
///
///  uniform   every tensor in f.type, whole blocks per tensor.
///  gguf      llama.cpp (src/llama-quant.cpp llama_model_quantize_impl / llama_tensor_get_type at
///            ggml-org/llama.cpp@8784689; convert_hf_to_gguf.py; table and gaps in
///            docs/research/gguf-rules.md): 1-D tensors (norms, biases, sinks, SSM vectors), routers
///            (ffn_gate_inp), position embeddings and SSM conv1d stay float32; every other matrix
///            gets the preset's type with these rules: the LM head (or the tied token embedding)
///            q6_K (q8_0 if its rows are not a multiple of 256, q8_0 under q8_0); attn_v: q4_K_M
///            and q5_K_M q6_K on use_more_bits layers (i < n/8, i >= 7n/8, (i − n/8) % 3 == 2),
///            q4_K_S q5_K on the first 4, q3_K_M q5_K on the first 2 then q4_K, q3_K_L q5_K,
///            q2_K q4_K if heads/kv_heads >= 4 else q3_K, iq4_nl q5_K if heads/kv_heads >= 4;
///            80-layer models (LLM_TYPE_70B) q5_K for a q3_K/q4_K attn_v; 8-expert models q8_0
///            for attn_v and attn_k; ffn_down (dense, expert, shared; i = the block index with
///            experts, else the count of FFNs so far): q4_K_M and q5_K_M q6_K on use_more_bits
///            layers, q4_K_S and iq4_nl q5_K on i < n/8, q3_K_M q5_K on i < n/16 then q4_K, q3_K_L
///            q5_K, q2_K q3_K; attn_output: q2_K q3_K, q3_K_M q4_K, q3_K_L q5_K (8 experts: q5_K for
///            q2_K..q4_K_M); fused attn_qkv: q4_K_M q5_K, q5_K_M q6_K, q3_K_M/L q4_K. A K-type on
///            rows not a multiple of 256 falls back to iq4_nl (q2_K, q3_K), q5_0 (q4_K), q5_1
///            (q5_K), q8_0 (q6_K); a row no type divides is f16. Not modelled: imatrix-dependent
///            rules, Falcon's own rules, the IQ presets, DeepSeek's attn_kv_b split into k_b/v_b.
///  gptq      every Linear weight inside the decoder blocks (attention, MLP, experts, shared
///            experts, Mamba in/out projections): AutoGPTQ/GPTQModel QuantLinear buffers qweight
///            int32 [in·bits/32, out], qzeros int32 [groups, out·bits/32], scales f16 [groups, out],
///            g_idx int32 [in], groups = ceil(in / group_size). Embeddings, LM head, norms, biases,
///            routers, conv1d stay unquantized (AutoGPTQ inside_layer_modules; lm_head off by default).
///  awq       the same tensors; AutoAWQ WQLinear_GEMM: qweight int32 [in, out·bits/32], qzeros
///            int32 [groups, out·bits/32], scales f16 [groups, out]; no g_idx.
///  fp8       the same tensors in e4m3 (1 B) with float32 weight_scale_inv
///            [ceil(out/block_rows), ceil(in/block_cols)] (DeepSeek-V3 quantization_config
///            weight_block_size [128, 128]); routers, the MTP eh_proj, the DSA indexer's weights_proj,
///            embeddings, head and norms stay bf16: checked against DeepSeek-V3's published safetensors
///            totals per dtype (and DeepSeek-V3.2-Exp's, GLM-5-FP8's for the indexer).
///  mxfp4     routed experts only (gpt-oss modules_to_not_convert: self_attn, router, embed_tokens,
///            lm_head): 16 B of 4-bit values + 1 B E8M0 scale per 32 input features (*_blocks,
///            *_scales tensors); expert biases and everything else unquantized.
///  bnb_4bit  every Linear weight in the decoder blocks, routers included (transformers replaces
///            each nn.Linear but lm_head, and but a router the class keeps float32, ERNIE-4.5-MoE's:
///            quantizes()): packed 4-bit ceil(n/2) B, absmax float32 per bnb_block
///            (double_quant: uint8 per block + float32 per 256 blocks + a 256-entry float32 code
///            + offset), a 16-entry float32 quant map per tensor. In memory; a file adds a small
///            JSON blob per tensor.
///  bnb_8bit  the same Linear weights as int8 plus one float32 scale (SCB) per output row.
///  mlx       every Linear and Embedding, lm_head and routers included, whose input dim is a multiple of
///            group_size (mlx nn.quantize, mlx-lm quantize_model): uint32-packed bits plus per group a
///            scale and a bias in the model dtype (affine) or one uint8 scale (mxfp4, nvfp4, mxfp8);
///            norms, biases and conv1d unquantized; a tied lm_head is not stored. Checked against a
///            published MLX index total_size (docs/research/mlx-folders.md).
///  packed_int compressed-tensors pack-quantized, symmetric int (targets ["Linear"]): every Linear of the blocks
///            and lm_head, less the parts of its `ignore` list; bits packed into int32 words per row, a scale per
///            group of group_size inputs in the model dtype, an int32[2] weight_shape (8 B); embeddings, norms,
///            biases and the routers (MoEGate is no Linear) unquantized. Checked against Kimi-K2.5's index
///            total_size (docs/research/compressed-tensors.md).
///
/// Everywhere but `uniform`, e_score_correction_bias is float32 (a float32 buffer in the checkpoints), and so is a
/// moe_shape::router_f32 router the scheme leaves unquantized; `uniform` keeps both float32 only with
/// keeps_f32_tensors (published_weights), and is otherwise the what-if "every tensor in `type`".
[[nodiscard]] constexpr auto weights_bytes_detail(const model_spec& m, const weights_format& f) -> weights_bytes_breakdown {
  using detail::checked_add;
  detail::weights_sum sum;
  detail::for_each_stored_tensor(m, f, [&](const weight_tensor&, const detail::weights_sum& one) {
    sum.quantized = checked_add(sum.quantized, one.quantized);
    sum.scales = checked_add(sum.scales, one.scales);
    sum.unquantized = checked_add(sum.unquantized, one.unquantized);
  });
  weights_bytes_breakdown b;
  b.quantized = bytes{sum.quantized};
  b.scales = bytes{sum.scales};
  b.unquantized = bytes{sum.unquantized};
  b.total = bytes{sum.total()};
  return b;
}

/// weights_bytes(m, f), tensor by tensor, into the shares of weights_split; total() is weights_bytes(m, f).
/// Under data-parallel attention (`dp`, attention_tp set) the attention's tensors (weight_part::attention:
/// projections, biases, sinks) that tensor parallelism splits go to the `attention` share, split over attention_tp
/// GPUs (SGLang's model classes build q/k/v/o, MLA's q_b, kv_b and o_proj with tp_size=attn_tp_size), the K/V
/// projections split over at most attention_tp, the token embedding where dp.embedding puts it (dp_whole: whole only
/// while DP attention is on), and the LM head over the group with dp.lm_head_over_group (else over tp).
/// dp.dense_mlp_whole keeps weight_part::mlp whole.
[[nodiscard]] constexpr auto weights_split_of(const model_spec& m, const weights_format& f,
                                              dp_attention_layout dp = {}) -> weights_split {
  weights_split s;
  s.attention_tp = dp.attention_tp;
  const bool dp_attention = dp.attention_tp != 0;
  detail::for_each_stored_tensor(m, f, [&](const weight_tensor& t, const detail::weights_sum& one) {
    const bytes b{one.total()};
    const bool embedding = dp_attention && t.role == tensor_role::token_embedding;
    if (embedding && dp.embedding == dp_embedding::whole) {
      s.dp_whole += b;
    } else if (dp.dense_mlp_whole && t.part == weight_part::mlp) {
      s.whole += b;
    } else if ((embedding && dp.embedding == dp_embedding::attention_group) ||
               (dp_attention && t.part == weight_part::attention && t.tp_max_ways == 0) ||
               (dp_attention && dp.lm_head_over_group && t.role == tensor_role::output)) {
      s.attention += b;
    } else if (t.tp_max_ways == 0) {
      s.split += b;
    } else if (t.tp_max_ways == 1) {
      s.whole += b;
    } else {
      s.add_kv(t.tp_max_ways, b);
    }
  });
  return s;
}

/// Total weight bytes of `m` in format `f` (weights_bytes_detail(m, f).total).
[[nodiscard]] constexpr auto weights_bytes(const model_spec& m, const weights_format& f) -> bytes {
  return weights_bytes_detail(m, f).total;
}

}  // namespace kvsize
