// SPDX-License-Identifier: MIT
// kvsize::weights_format: how a checkpoint stores its weights (a uniform element type, a llama.cpp
// GGUF preset, GPTQ, AWQ, FP8, MXFP4, bitsandbytes, MLX, compressed-tensors packed int, NVFP4) and which
// tensors it leaves unquantized; the llama.cpp presets (gguf_ftype) and the --weights-dtype
// spellings. What each scheme costs per tensor is weights_bytes.hpp; the GGUF per-tensor rules are
// weights_gguf.hpp. Part of <kvsize/weights.hpp>.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>        // std::array
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint8_t, std::uint16_t, std::uint32_t
#include <optional>     // std::optional
#include <string_view>  // std::string_view

#include "dtype.hpp"

namespace kvsize {

/// llama.cpp's quantization presets (llama-quantize's ftype): a base type plus per-tensor rules.
enum class gguf_ftype : std::uint8_t {
  f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1, iq4_nl, q2_K, q3_K_S, q3_K_M, q3_K_L, q4_K_S, q4_K_M, q5_K_S, q5_K_M, q6_K,
};
inline constexpr std::array<std::string_view, 18> gguf_ftype_names{
    "f32",  "f16",    "bf16",   "q8_0",   "q4_0",   "q4_1",   "q5_0",   "q5_1",   "iq4_nl",
    "q2_K", "q3_K_S", "q3_K_M", "q3_K_L", "q4_K_S", "q4_K_M", "q5_K_S", "q5_K_M", "q6_K"};

[[nodiscard]] constexpr auto name(gguf_ftype t) -> std::string_view {
  return gguf_ftype_names[static_cast<std::uint8_t>(t)];
}

/// The type most tensors of a preset get (llama-quant.cpp: default_type).
[[nodiscard]] constexpr auto base_type(gguf_ftype t) -> ggml_type {
  switch (t) {
    case gguf_ftype::f32: return ggml_type::f32;
    case gguf_ftype::f16: return ggml_type::f16;
    case gguf_ftype::bf16: return ggml_type::bf16;
    case gguf_ftype::q8_0: return ggml_type::q8_0;
    case gguf_ftype::q4_0: return ggml_type::q4_0;
    case gguf_ftype::q4_1: return ggml_type::q4_1;
    case gguf_ftype::q5_0: return ggml_type::q5_0;
    case gguf_ftype::q5_1: return ggml_type::q5_1;
    case gguf_ftype::iq4_nl: return ggml_type::iq4_nl;
    case gguf_ftype::q2_K: return ggml_type::q2_K;
    case gguf_ftype::q3_K_S:
    case gguf_ftype::q3_K_M:
    case gguf_ftype::q3_K_L: return ggml_type::q3_K;
    case gguf_ftype::q4_K_S:
    case gguf_ftype::q4_K_M: return ggml_type::q4_K;
    case gguf_ftype::q5_K_S:
    case gguf_ftype::q5_K_M: return ggml_type::q5_K;
    case gguf_ftype::q6_K: return ggml_type::q6_K;
  }
  return ggml_type::f16;
}

/// How weights are stored.
enum class weights_scheme : std::uint8_t {
  uniform,   ///< every tensor in `type` (the old weights_bytes(parameters, dtype))
  gguf,      ///< llama.cpp preset `gguf` with its per-tensor rules
  gptq,      ///< GPTQ: qweight, qzeros (int32-packed), f16 scales per group, int32 g_idx
  awq,       ///< AWQ GEMM: qweight, qzeros (int32-packed), f16 scales per group
  fp8,       ///< FP8 e4m3 weights with float32 scales per block_rows × block_cols block
  mxfp4,     ///< OCP MX FP4: routed experts as 4-bit + one E8M0 scale per 32 (gpt-oss)
  bnb_4bit,  ///< bitsandbytes NF4/FP4 (Linear4bit), absmax per bnb_block
  bnb_8bit,  ///< bitsandbytes LLM.int8 (Linear8bitLt): int8 + one float32 scale per row
  mlx,       ///< MLX (mlx-lm): every Linear and Embedding packed in uint32, scales (and biases) per group
  /// compressed-tensors "pack-quantized" (llm-compressor W4A16, Kimi-K2-Thinking / K2.5): symmetric integer
  /// weights packed 32 / bits to an int32 word, one scale per group in the unquantized type, an int32[2] shape
  packed_int,
  /// NVFP4 (NVIDIA ModelOpt): E2M1 values two to a byte, one FP8 E4M3 scale per group_size (16) input features,
  /// and tensor_scalars float32 scalars a matrix (weight_scale_2, input_scale)
  nvfp4,
};

/// MLX's quantization modes (mlx ops.cpp `quantize`): affine keeps a scale and a bias per group in
/// the weights' float type; the fp modes keep one uint8 scale per group and no bias.
enum class mlx_mode : std::uint8_t { affine, mxfp4, nvfp4, mxfp8 };
inline constexpr std::array<std::string_view, 4> mlx_mode_names{"affine", "mxfp4", "nvfp4", "mxfp8"};

/// A weights format and which tensors it leaves unquantized.
struct weights_format {
  weights_scheme scheme = weights_scheme::uniform;
  dtype type = dtype::bf16;                 ///< uniform: the type of every tensor
  gguf_ftype gguf = gguf_ftype::q8_0;       ///< gguf: the preset
  std::uint32_t bits = 4;                   ///< gptq, awq, mlx, packed_int (nvfp4: 4)
  std::uint32_t group_size = 128;           ///< gptq, awq, mlx, packed_int, nvfp4: input features per scale; 0: one group (group_size -1)
  mlx_mode mlx = mlx_mode::affine;          ///< mlx: the mode
  std::uint32_t block_rows = 128;           ///< fp8: output features per scale; 0: all (per-tensor / per-channel)
  std::uint32_t block_cols = 128;           ///< fp8: input features per scale; 0: all
  std::uint32_t bnb_block = 64;             ///< bnb_4bit: elements per absmax (bnb blocksize)
  /// fp8, nvfp4: float32 scalars each quantized matrix stores beside its scales, 4 B each (ModelOpt: input_scale,
  /// and NVFP4's second-level weight_scale_2)
  std::uint32_t tensor_scalars = 0;
  /// fp8, nvfp4: float32 scalars each quantized attention layer stores for its KV cache, 4 B each (ModelOpt 0.25 –
  /// 0.42 with an FP8 or NVFP4 KV cache: k_proj.k_scale and v_proj.v_scale, 2); counted with the layer's K projection
  std::uint32_t kv_cache_scalars = 0;
  bool double_quant = false;                ///< bnb_4bit: bnb_4bit_use_double_quant
  /// Tensors the scheme leaves unquantized are in `unquantized`, or in the model's compute
  /// dtype if unset (a GPTQ/AWQ checkpoint's config says float16 for them).
  std::optional<dtype> unquantized{};
  /// Parts left unquantized on top of the scheme's rule (quantization_config.modules_to_not_convert).
  std::uint16_t unquantized_parts = 0;
  /// Tensor roles left unquantized on top of that, in every layer (role_bit): the attention projections an exclude
  /// list names where they are not the whole attention (DeepSeek-V3.1-NVFP4 keeps MLA's q_a, q_b, kv_a, kv_b in
  /// bf16 and packs o_proj).
  std::uint64_t unquantized_roles = 0;
  bool include_mtp = false;    ///< count the MTP modules (and their copies): a checkpoint's bytes, or speculative decoding
  bool include_vision = true;  ///< count the vision tower (a GGUF keeps it in a separate mmproj file; counted at f16)
  /// uniform: the tensors a checkpoint keeps in float32 whatever its dtype (e_score_correction_bias, the routers of
  /// moe_shape::router_f32) stay float32, 4 B an element: a published checkpoint (published_weights), not the
  /// what-if "every tensor in `type`". The other schemes always keep them float32.
  bool keeps_f32_tensors = false;
  friend constexpr auto operator==(const weights_format&, const weights_format&) -> bool = default;
};

[[nodiscard]] constexpr auto uniform_weights(dtype t) -> weights_format {
  weights_format f;
  f.type = t;
  return f;
}
/// An unquantized checkpoint as published (and as engines load it) in `t`: uniform_weights(t), but with the
/// tensors every such checkpoint keeps in float32 at 4 B (weights_format::keeps_f32_tensors).
[[nodiscard]] constexpr auto published_weights(dtype t) -> weights_format {
  weights_format f = uniform_weights(t);
  f.keeps_f32_tensors = true;
  return f;
}
[[nodiscard]] constexpr auto gguf_weights(gguf_ftype t) -> weights_format {
  weights_format f;
  f.scheme = weights_scheme::gguf;
  f.gguf = t;
  return f;
}
/// GPTQ with `bits` and `group_size` (0: one group per column, config group_size -1).
[[nodiscard]] constexpr auto gptq_weights(std::uint32_t bits, std::uint32_t group_size) -> weights_format {
  weights_format f;
  f.scheme = weights_scheme::gptq;
  f.bits = bits;
  f.group_size = group_size;
  return f;
}
[[nodiscard]] constexpr auto awq_weights(std::uint32_t bits, std::uint32_t group_size) -> weights_format {
  weights_format f = gptq_weights(bits, group_size);
  f.scheme = weights_scheme::awq;
  return f;
}
/// FP8 with one float32 scale per block_rows × block_cols (DeepSeek-V3: 128 × 128; 0 × 0 per tensor).
[[nodiscard]] constexpr auto fp8_weights(std::uint32_t block_rows = 128, std::uint32_t block_cols = 128) -> weights_format {
  weights_format f;
  f.scheme = weights_scheme::fp8;
  f.block_rows = block_rows;
  f.block_cols = block_cols;
  return f;
}
[[nodiscard]] constexpr auto mxfp4_weights() -> weights_format {
  weights_format f;
  f.scheme = weights_scheme::mxfp4;
  return f;
}
[[nodiscard]] constexpr auto bnb_4bit_weights(bool double_quant = false) -> weights_format {
  weights_format f;
  f.scheme = weights_scheme::bnb_4bit;
  f.double_quant = double_quant;
  return f;
}
/// MLX with `bits`, `group_size` and `mode` (mlx-lm's config.json `quantization` object).
[[nodiscard]] constexpr auto mlx_weights(std::uint32_t bits, std::uint32_t group_size, mlx_mode mode = mlx_mode::affine)
    -> weights_format {
  weights_format f;
  f.scheme = weights_scheme::mlx;
  f.bits = bits;
  f.group_size = group_size;
  f.mlx = mode;
  return f;
}
/// compressed-tensors pack-quantized: `bits`-bit symmetric integers, one scale per `group_size` input features.
[[nodiscard]] constexpr auto packed_int_weights(std::uint32_t bits, std::uint32_t group_size) -> weights_format {
  weights_format f = gptq_weights(bits, group_size);  // the same two fields
  f.scheme = weights_scheme::packed_int;
  return f;
}
/// NVFP4 as NVIDIA ModelOpt exports it: 4-bit E2M1 values, one FP8 E4M3 scale per `group_size` inputs, and
/// `tensor_scalars` float32 scalars a matrix (2 for quant_algo NVFP4: weight_scale_2 and input_scale; 1 for
/// W4A16_NVFP4, which quantizes no activations).
[[nodiscard]] constexpr auto nvfp4_weights(std::uint32_t group_size = 16, std::uint32_t tensor_scalars = 2)
    -> weights_format {
  weights_format f;
  f.scheme = weights_scheme::nvfp4;
  f.bits = 4;
  f.group_size = group_size;
  f.tensor_scalars = tensor_scalars;
  return f;
}
[[nodiscard]] constexpr auto bnb_8bit_weights() -> weights_format {
  weights_format f;
  f.scheme = weights_scheme::bnb_8bit;
  return f;
}

/// ASCII case-insensitive: a llama.cpp preset name ("q4_K_M", "Q8_0", "f16").
[[nodiscard]] constexpr auto parse_gguf_ftype(std::string_view text) -> std::optional<gguf_ftype> {
  for (std::size_t i = 0; i < gguf_ftype_names.size(); ++i) {
    if (detail::ascii_iequal(gguf_ftype_names[i], text)) {
      return static_cast<gguf_ftype>(i);
    }
  }
  return std::nullopt;
}

/// A --weights-dtype choice: a llama.cpp preset (q8_0, q4_0, q4_K_M, ...: GGUF layout with its
/// float32 norms and per-tensor rules), "nvfp4" (ModelOpt's NVFP4 recipe: every Linear of the blocks, nvfp4_weights),
/// else an element type for every tensor (bf16, fp8, int4) but those a checkpoint keeps in float32 whatever its
/// dtype (published_weights): "bf16" is the published bf16 checkpoint.
[[nodiscard]] constexpr auto parse_weights_format(std::string_view text) -> std::optional<weights_format> {
  if (detail::ascii_iequal(text, "nvfp4")) {
    return nvfp4_weights();
  }
  if (const auto g = parse_gguf_ftype(text); g && *g != gguf_ftype::f32 && *g != gguf_ftype::f16 && *g != gguf_ftype::bf16) {
    return gguf_weights(*g);
  }
  if (const auto t = parse_dtype(text)) {
    return published_weights(*t);
  }
  return std::nullopt;
}

}  // namespace kvsize
