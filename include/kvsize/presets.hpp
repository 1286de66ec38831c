// SPDX-License-Identifier: MIT
// Ready-made model specs: the models of the KV cache lessons, as constants.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include "model_spec.hpp"

namespace kvsize::presets {

// Each field is the model's config.json value (configs/ holds the files).

/// Qwen2.5-0.5B: 24 layers, 14 query heads, 2 KV heads, head_dim 64 → 12 KiB of KV per token (bf16).
inline constexpr model_spec qwen2_5_0_5b{.layers = 24, .attention_heads = 14, .kv_heads = 2, .head_dim = 64,
                                         .hidden_size = 896, .vocab_size = 151'936, .max_context = 32'768,
                                         .intermediate_size = 4'864, .qkv_bias = true, .tied_embeddings = true};

/// Qwen2.5-1.5B: 28 layers, 12 query heads, 2 KV heads, head_dim 128 → 28 KiB per token (bf16).
inline constexpr model_spec qwen2_5_1_5b{.layers = 28, .attention_heads = 12, .kv_heads = 2, .head_dim = 128,
                                         .hidden_size = 1'536, .vocab_size = 151'936, .max_context = 131'072,
                                         .intermediate_size = 8'960, .qkv_bias = true, .tied_embeddings = true};

/// Qwen2.5-7B: 28 layers, 28 query heads, 4 KV heads, head_dim 128 → 56 KiB per token (bf16).
inline constexpr model_spec qwen2_5_7b{.layers = 28, .attention_heads = 28, .kv_heads = 4, .head_dim = 128,
                                       .hidden_size = 3'584, .vocab_size = 152'064, .max_context = 131'072,
                                       .intermediate_size = 18'944, .qkv_bias = true};

/// Meta-Llama-3-8B: 32 layers, 32 query heads, 8 KV heads, head_dim 128 → 128 KiB per token (bf16).
inline constexpr model_spec llama_3_8b{.layers = 32, .attention_heads = 32, .kv_heads = 8, .head_dim = 128,
                                       .hidden_size = 4'096, .vocab_size = 128'256, .max_context = 8'192,
                                       .intermediate_size = 14'336};

/// The lesson's "model A" (24 layers, 32 query heads, 8 KV heads, d_h 128) in 16-bit: 96 KiB per
/// token. Only its attention shape is given, so hidden_size is heads × head_dim.
inline constexpr model_spec lesson_model_a{.layers = 24, .attention_heads = 32, .kv_heads = 8, .head_dim = 128,
                                           .hidden_size = 4'096, .compute_dtype = dtype::f16};

/// The lesson's self-check model (32 layers, 32 query heads, 8 KV heads, d_h 128) in 16-bit:
/// 128 KiB per token, the same attention shape as Llama-3-8B.
inline constexpr model_spec lesson_self_check{.layers = 32, .attention_heads = 32, .kv_heads = 8, .head_dim = 128,
                                              .hidden_size = 4'096, .compute_dtype = dtype::f16};

}  // namespace kvsize::presets
