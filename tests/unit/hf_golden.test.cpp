// SPDX-License-Identifier: MIT
// Golden figures for every Hugging Face config in configs/, derived BY HAND from the config's own
// values and the architecture's documented semantics (transformers' configuration/modeling code,
// vLLM, llama.cpp), never from kvsize's parser. Each row carries its derivation. An independent
// check of <kvsize/hf_config.hpp>: if a row and the parser disagree, re-derive from the sources
// before touching the number.
//
// Conventions used in every derivation:
//   * KV bytes per token = Σ_layers that keep KV  kv_heads × (head_dim_K + head_dim_V) × sizeof(dtype),
//     i.e. "L × kv × hd × 2 (K,V) × B"; latent (MLA) layers keep one vector of kv_lora_rank + qk_rope
//     elements, no ×2 and no head factor.
//   * "MHA" = the same with every query head keeping its own K and V (kvsize::kv_bytes_per_token_mha);
//     for MLA: heads × (qk_nope + qk_rope) for K + heads × v_head_dim for V.
//   * ratio = attention heads / kv heads (MLA: attention heads, one latent serves every head).
//   * compute dtype: `dtype` over `torch_dtype`; when a config has neither (GPT-2, GPT-OSS) the config
//     means float32: transformers' PretrainedConfig leaves torch_dtype None and from_pretrained then loads
//     in torch's default float32; vLLM's _get_and_verify_dtype reads a missing dtype as torch.float32.
//     The parser reads float32 there too (with a warning); the "without dtype or torch_dtype" case checks it.
//   * recurrent state per sequence, in the compute dtype (the comment on kvsize::recurrent_state):
//       Mamba2      conv = (d_conv − 1) × (d_inner + 2 × n_groups × d_state), ssm = n_heads × head_dim × d_state
//       gated delta conv = (d_conv − 1) × (2 × k_heads × k_dim + v_heads × v_dim), ssm = v_heads × k_dim × v_dim
//       Mamba1      conv = (d_conv − 1) × d_inner, ssm = d_inner × d_state, d_inner = mamba_expand × hidden_size
//                   (the Mamba2 formula with n_groups = 0 and one row per inner channel)
//   * "seq@T" = kvsize::kv_bytes_per_sequence(spec, T): full/latent layers hold T tokens, sliding layers
//     min(T, W), chunked layers min(T, C). "growth" = bytes one more token adds once T is past every
//     window = the bytes per token of the full/latent layers only.
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/generators/catch_generators_adapters.hpp>
#include <catch2/generators/catch_generators_range.hpp>

#include <algorithm>    // std::sort, std::max, std::unique
#include <array>        // std::array
#include <cstdint>      // std::uint32_t, std::uint64_t
#include <filesystem>   // std::filesystem::path, directory_iterator
#include <fstream>      // std::ifstream
#include <initializer_list>  // std::initializer_list
#include <iterator>     // std::istreambuf_iterator
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <kvsize/hf_config.hpp>
#include <kvsize/kvsize.hpp>

namespace {

using kvsize::dtype;
using kvsize::layer_kind;

/// One config's hand-derived figures. Byte figures are at the row's compute dtype unless named fp8.
struct golden {
  std::string_view file;  ///< configs/<file>
  dtype compute;          ///< config.json's dtype / torch_dtype
  std::uint32_t layers;
  std::uint32_t kv_layers;  ///< layers that keep K/V of their own
  std::uint32_t attention_heads;
  std::uint32_t kv_heads;
  std::uint32_t head_dim;    ///< K head dim
  std::uint32_t head_dim_v;  ///< V head dim
  std::uint32_t vocab;
  std::uint64_t kv_per_token;      ///< at `compute`
  std::uint64_t kv_per_token_fp8;  ///< at fp8_e4m3 (= elements per token)
  std::uint64_t kv_per_token_mha;  ///< at `compute`, no sharing
  std::uint32_t gqa_ratio;
  std::uint64_t context;          ///< T for the per-sequence figure
  std::uint64_t kv_per_sequence;  ///< at T, `compute`
  std::uint64_t growth;           ///< bytes/token past every window (full/latent layers only)
  // Layer kinds; 0 when the model has none.
  std::uint32_t sliding = 0;
  std::uint32_t chunked = 0;
  std::uint32_t latent = 0;
  std::uint32_t none = 0;
  std::uint32_t recurrent = 0;
  std::uint32_t indexed = 0;  ///< full layers that also keep an index key (MiniMax-M3's sparse layers)
  std::uint32_t shared = 0;   ///< layers that read an earlier layer's cache (Gemma 3n / Gemma 4 E: num_kv_shared_layers)
  std::uint32_t window = 0;  ///< W of the sliding layers
  std::uint32_t chunk = 0;   ///< C of the chunked layers
  std::uint64_t state_per_sequence = 0;
  /// false when the config has neither `dtype` nor `torch_dtype` (GPT-2, GPT-OSS): `compute` is then the
  /// float32 that transformers reads into a missing dtype, and is checked in its own test case below.
  bool dtype_in_config = true;
};

// clang-format off
const std::array goldens{
// Command R v01 (cohere): 40 L, 64 heads / 64 kv (no GQA), hd 8192/64 = 128, float16.
//   40 × 64 × 128 × 2 (K,V) × 2 B = 1,310,720 B/token; fp8 655,360; MHA = same (64 heads); ratio 1.
//   seq@4096 = 1,310,720 × 4096 = 5,368,709,120.
golden{.file = "CohereForAI__c4ai-command-r-v01.config.json", .compute = dtype::f16,
       .layers = 40, .kv_layers = 40, .attention_heads = 64, .kv_heads = 64, .head_dim = 128, .head_dim_v = 128,
       .vocab = 256'000, .kv_per_token = 1'310'720, .kv_per_token_fp8 = 655'360, .kv_per_token_mha = 1'310'720,
       .gqa_ratio = 1, .context = 4'096, .kv_per_sequence = 5'368'709'120, .growth = 1'310'720},
// Qwen2.5-0.5B: 24 L, 14 heads / 2 kv, hd 896/14 = 64, bf16. sliding_window 32768 but
//   use_sliding_window false → no window (Qwen2Config: sliding_window = sliding_window if use_sliding_window else None).
//   24 × 2 × 64 × 2 × 2 B = 12,288 B/token; fp8 6,144; MHA 24 × 14 × 64 × 2 × 2 = 86,016; ratio 7.
//   seq@4096 = 12,288 × 4096 = 50,331,648.
golden{.file = "Qwen__Qwen2.5-0.5B.config.json", .compute = dtype::bf16,
       .layers = 24, .kv_layers = 24, .attention_heads = 14, .kv_heads = 2, .head_dim = 64, .head_dim_v = 64,
       .vocab = 151'936, .kv_per_token = 12'288, .kv_per_token_fp8 = 6'144, .kv_per_token_mha = 86'016,
       .gqa_ratio = 7, .context = 4'096, .kv_per_sequence = 50'331'648, .growth = 12'288},
// Qwen2.5-1.5B: 28 L, 12 heads / 2 kv, hd 1536/12 = 128, bf16, use_sliding_window false → all full.
//   28 × 2 × 128 × 2 × 2 B = 28,672 B/token; fp8 14,336; MHA 28 × 12 × 128 × 4 = 172,032; ratio 6.
//   seq@4096 = 28,672 × 4096 = 117,440,512.
golden{.file = "Qwen__Qwen2.5-1.5B.config.json", .compute = dtype::bf16,
       .layers = 28, .kv_layers = 28, .attention_heads = 12, .kv_heads = 2, .head_dim = 128, .head_dim_v = 128,
       .vocab = 151'936, .kv_per_token = 28'672, .kv_per_token_fp8 = 14'336, .kv_per_token_mha = 172'032,
       .gqa_ratio = 6, .context = 4'096, .kv_per_sequence = 117'440'512, .growth = 28'672},
// Qwen2.5-72B: 80 L, 64 heads / 8 kv, hd 8192/64 = 128, bf16, use_sliding_window false → all full.
//   80 × 8 × 128 × 2 × 2 B = 327,680 B/token; fp8 163,840; MHA 80 × 64 × 128 × 4 = 2,621,440; ratio 8.
//   seq@4096 = 327,680 × 4096 = 1,342,177,280.
golden{.file = "Qwen__Qwen2.5-72B.config.json", .compute = dtype::bf16,
       .layers = 80, .kv_layers = 80, .attention_heads = 64, .kv_heads = 8, .head_dim = 128, .head_dim_v = 128,
       .vocab = 152'064, .kv_per_token = 327'680, .kv_per_token_fp8 = 163'840, .kv_per_token_mha = 2'621'440,
       .gqa_ratio = 8, .context = 4'096, .kv_per_sequence = 1'342'177'280, .growth = 327'680},
// Qwen2.5-7B: 28 L, 28 heads / 4 kv, hd 3584/28 = 128, bf16; sliding_window 131072 with use_sliding_window false → all full.
//   28 × 4 × 128 × 2 × 2 B = 57,344 B/token; fp8 28,672; MHA 28 heads → 401,408; ratio 7.
//   seq@4096 = 57,344 × 4096 = 234,881,024.
golden{.file = "Qwen__Qwen2.5-7B.config.json", .compute = dtype::bf16,
       .layers = 28, .kv_layers = 28, .attention_heads = 28, .kv_heads = 4, .head_dim = 128, .head_dim_v = 128,
       .vocab = 152'064, .kv_per_token = 57'344, .kv_per_token_fp8 = 28'672, .kv_per_token_mha = 401'408,
       .gqa_ratio = 7, .context = 4'096, .kv_per_sequence = 234'881'024, .growth = 57'344},
// Qwen2.5-VL-7B-Instruct: LLM fields at the top level (no text_config): 28 L, 28 / 4 kv, hd 128, bf16,
//   sliding_window null → all full. Same as Qwen2.5-7B: 57,344 B/token; fp8 28,672; MHA 401,408; ratio 7.
golden{.file = "Qwen__Qwen2.5-VL-7B-Instruct.config.json", .compute = dtype::bf16,
       .layers = 28, .kv_layers = 28, .attention_heads = 28, .kv_heads = 4, .head_dim = 128, .head_dim_v = 128,
       .vocab = 152'064, .kv_per_token = 57'344, .kv_per_token_fp8 = 28'672, .kv_per_token_mha = 401'408,
       .gqa_ratio = 7, .context = 4'096, .kv_per_sequence = 234'881'024, .growth = 57'344},
// Qwen3-0.6B: 28 L, 16 heads / 8 kv, head_dim 128 given (≠ 1024/16 = 64), bf16, sliding_window null.
//   28 × 8 × 128 × 2 × 2 B = 114,688 B/token; fp8 57,344; MHA 28 × 16 × 128 × 4 = 229,376; ratio 2.
//   seq@4096 = 114,688 × 4096 = 469,762,048.
golden{.file = "Qwen__Qwen3-0.6B.config.json", .compute = dtype::bf16,
       .layers = 28, .kv_layers = 28, .attention_heads = 16, .kv_heads = 8, .head_dim = 128, .head_dim_v = 128,
       .vocab = 151'936, .kv_per_token = 114'688, .kv_per_token_fp8 = 57'344, .kv_per_token_mha = 229'376,
       .gqa_ratio = 2, .context = 4'096, .kv_per_sequence = 469'762'048, .growth = 114'688},
// Qwen3-235B-A22B: 94 L, 64 heads / 4 kv, head_dim 128, bf16, sliding_window null.
//   94 × 4 × 128 × 2 × 2 B = 192,512 B/token; fp8 96,256; MHA 94 × 64 × 128 × 4 = 3,080,192; ratio 16.
//   seq@4096 = 192,512 × 4096 = 788,529,152.
golden{.file = "Qwen__Qwen3-235B-A22B.config.json", .compute = dtype::bf16,
       .layers = 94, .kv_layers = 94, .attention_heads = 64, .kv_heads = 4, .head_dim = 128, .head_dim_v = 128,
       .vocab = 151'936, .kv_per_token = 192'512, .kv_per_token_fp8 = 96'256, .kv_per_token_mha = 3'080'192,
       .gqa_ratio = 16, .context = 4'096, .kv_per_sequence = 788'529'152, .growth = 192'512},
// Qwen3-30B-A3B: 48 L, 32 heads / 4 kv, head_dim 128, bf16, sliding_window null.
//   48 × 4 × 128 × 2 × 2 B = 98,304 B/token; fp8 49,152; MHA 48 × 32 × 128 × 4 = 786,432; ratio 8.
//   seq@4096 = 98,304 × 4096 = 402,653,184.
golden{.file = "Qwen__Qwen3-30B-A3B.config.json", .compute = dtype::bf16,
       .layers = 48, .kv_layers = 48, .attention_heads = 32, .kv_heads = 4, .head_dim = 128, .head_dim_v = 128,
       .vocab = 151'936, .kv_per_token = 98'304, .kv_per_token_fp8 = 49'152, .kv_per_token_mha = 786'432,
       .gqa_ratio = 8, .context = 4'096, .kv_per_sequence = 402'653'184, .growth = 98'304},
// Qwen3-32B: 64 L, 64 heads / 8 kv, head_dim 128 (≠ 5120/64 = 80), bf16, sliding_window null.
//   64 × 8 × 128 × 2 × 2 B = 262,144 B/token; fp8 131,072; MHA 64 × 64 × 128 × 4 = 2,097,152; ratio 8.
//   seq@4096 = 262,144 × 4096 = 1,073,741,824.
golden{.file = "Qwen__Qwen3-32B.config.json", .compute = dtype::bf16,
       .layers = 64, .kv_layers = 64, .attention_heads = 64, .kv_heads = 8, .head_dim = 128, .head_dim_v = 128,
       .vocab = 151'936, .kv_per_token = 262'144, .kv_per_token_fp8 = 131'072, .kv_per_token_mha = 2'097'152,
       .gqa_ratio = 8, .context = 4'096, .kv_per_sequence = 1'073'741'824, .growth = 262'144},
// Qwen3-8B: 36 L, 32 heads / 8 kv, head_dim 128, bf16, sliding_window null.
//   36 × 8 × 128 × 2 × 2 B = 147,456 B/token; fp8 73,728; MHA 36 × 32 × 128 × 4 = 589,824; ratio 4.
//   seq@4096 = 147,456 × 4096 = 603,979,776.
golden{.file = "Qwen__Qwen3-8B.config.json", .compute = dtype::bf16,
       .layers = 36, .kv_layers = 36, .attention_heads = 32, .kv_heads = 8, .head_dim = 128, .head_dim_v = 128,
       .vocab = 151'936, .kv_per_token = 147'456, .kv_per_token_fp8 = 73'728, .kv_per_token_mha = 589'824,
       .gqa_ratio = 4, .context = 4'096, .kv_per_sequence = 603'979'776, .growth = 147'456},
// Qwen3-Next-80B-A3B: 48 L; full_attention_interval 4 → Qwen3NextConfig.layer_types =
//   "linear_attention" if (i+1) % 4 else "full_attention": layers 3,7,...,47 = 12 full attention, 36 gated-delta
//   (no KV, recurrent state). 16 heads / 2 kv, head_dim 256, bf16.
//   KV: 12 × 2 × 256 × 2 × 2 B = 24,576 B/token; fp8 12,288; MHA 12 × 16 × 256 × 4 = 196,608; ratio 8.
//   State per layer (linear_conv_kernel_dim 4, 16 k heads × 128, 32 v heads × 128):
//     conv = 3 × (2 × 16 × 128 + 32 × 128) = 3 × 8,192 = 24,576; ssm = 32 × 128 × 128 = 524,288;
//     (24,576 + 524,288) × 2 B × 36 layers = 548,864 × 2 × 36 = 39,518,208 B/sequence.
//   seq@4096 = 24,576 × 4096 = 100,663,296.
golden{.file = "Qwen__Qwen3-Next-80B-A3B-Thinking.config.json", .compute = dtype::bf16,
       .layers = 48, .kv_layers = 12, .attention_heads = 16, .kv_heads = 2, .head_dim = 256, .head_dim_v = 256,
       .vocab = 151'936, .kv_per_token = 24'576, .kv_per_token_fp8 = 12'288, .kv_per_token_mha = 196'608,
       .gqa_ratio = 8, .context = 4'096, .kv_per_sequence = 100'663'296, .growth = 24'576,
       .none = 36, .recurrent = 36, .state_per_sequence = 39'518'208},
// Qwen3.5-35B-A3B (qwen3_5_moe, read from /text_config): 40 L, layer_types every 4th "full_attention" → 10 full,
//   30 gated-delta. 16 heads / 2 kv, head_dim 256, bf16.
//   KV: 10 × 2 × 256 × 2 × 2 B = 20,480 B/token; fp8 10,240; MHA 10 × 16 × 256 × 4 = 163,840; ratio 8.
//   State per layer (conv 4, 16 k heads × 128, 32 v heads × 128): conv 3 × (2 × 2,048 + 4,096) = 24,576,
//   ssm 32 × 128 × 128 = 524,288; in bf16 × 30 layers: 548,864 × 2 × 30 = 32,931,840 B/sequence
//   (mamba_ssm_dtype float32 is an engine's rule: vLLM's state is larger, tests/unit/engines).
//   seq@4096 = 20,480 × 4096 = 83,886,080.
golden{.file = "Qwen__Qwen3.5-35B-A3B.config.json", .compute = dtype::bf16,
       .layers = 40, .kv_layers = 10, .attention_heads = 16, .kv_heads = 2, .head_dim = 256, .head_dim_v = 256,
       .vocab = 248'320, .kv_per_token = 20'480, .kv_per_token_fp8 = 10'240, .kv_per_token_mha = 163'840,
       .gqa_ratio = 8, .context = 4'096, .kv_per_sequence = 83'886'080, .growth = 20'480,
       .none = 30, .recurrent = 30, .state_per_sequence = 32'931'840},
// Qwen3.5-27B (qwen3_5, dense): 64 L → 16 full, 48 gated-delta; 24 heads / 4 kv, head_dim 256, bf16.
//   KV: 16 × 4 × 256 × 2 × 2 B = 65,536 B/token; fp8 32,768; MHA 16 × 24 × 256 × 4 = 393,216; ratio 6.
//   State per layer (48 v heads): conv 3 × (2 × 2,048 + 6,144) = 30,720, ssm 48 × 128 × 128 = 786,432;
//   817,152 × 2 B × 48 = 78,446,592 B/sequence. seq@4096 = 65,536 × 4096 = 268,435,456.
golden{.file = "Qwen__Qwen3.5-27B.config.json", .compute = dtype::bf16,
       .layers = 64, .kv_layers = 16, .attention_heads = 24, .kv_heads = 4, .head_dim = 256, .head_dim_v = 256,
       .vocab = 248'320, .kv_per_token = 65'536, .kv_per_token_fp8 = 32'768, .kv_per_token_mha = 393'216,
       .gqa_ratio = 6, .context = 4'096, .kv_per_sequence = 268'435'456, .growth = 65'536,
       .none = 48, .recurrent = 48, .state_per_sequence = 78'446'592},
// Qwen3.5-397B-A17B (qwen3_5_moe): 60 L → 15 full, 45 gated-delta; 32 heads / 2 kv, head_dim 256, bf16.
//   KV: 15 × 2 × 256 × 2 × 2 B = 30,720 B/token; fp8 15,360; MHA 15 × 32 × 256 × 4 = 491,520; ratio 16.
//   State per layer (16 key / 64 value heads of 128): conv 3 × (2 × 2,048 + 8,192) = 36,864, ssm
//   64 × 128 × 128 = 1,048,576; 1,085,440 × 2 B × 45 = 97,689,600 B/sequence. seq@4096 = 125,829,120.
golden{.file = "Qwen__Qwen3.5-397B-A17B.config.json", .compute = dtype::bf16,
       .layers = 60, .kv_layers = 15, .attention_heads = 32, .kv_heads = 2, .head_dim = 256, .head_dim_v = 256,
       .vocab = 248'320, .kv_per_token = 30'720, .kv_per_token_fp8 = 15'360, .kv_per_token_mha = 491'520,
       .gqa_ratio = 16, .context = 4'096, .kv_per_sequence = 125'829'120, .growth = 30'720,
       .none = 45, .recurrent = 45, .state_per_sequence = 97'689'600},
// Qwen3-VL-8B-Instruct (qwen3_vl, read from /text_config): 36 L, 32 heads / 8 kv, head_dim 128, bf16.
//   36 × 8 × 128 × 2 × 2 B = 147,456 B/token; fp8 73,728; MHA 36 × 32 × 128 × 4 = 589,824; ratio 4.
//   seq@4096 = 147,456 × 4096 = 603,979,776.
golden{.file = "Qwen__Qwen3-VL-8B-Instruct.config.json", .compute = dtype::bf16,
       .layers = 36, .kv_layers = 36, .attention_heads = 32, .kv_heads = 8, .head_dim = 128, .head_dim_v = 128,
       .vocab = 151'936, .kv_per_token = 147'456, .kv_per_token_fp8 = 73'728, .kv_per_token_mha = 589'824,
       .gqa_ratio = 4, .context = 4'096, .kv_per_sequence = 603'979'776, .growth = 147'456},
// Qwen3-VL-30B-A3B-Instruct (qwen3_vl_moe): 48 L, 32 heads / 4 kv, head_dim 128, bf16.
//   48 × 4 × 128 × 2 × 2 B = 98,304 B/token; fp8 49,152; MHA 48 × 32 × 128 × 4 = 786,432; ratio 8.
//   seq@4096 = 98,304 × 4096 = 402,653,184.
golden{.file = "Qwen__Qwen3-VL-30B-A3B-Instruct.config.json", .compute = dtype::bf16,
       .layers = 48, .kv_layers = 48, .attention_heads = 32, .kv_heads = 4, .head_dim = 128, .head_dim_v = 128,
       .vocab = 151'936, .kv_per_token = 98'304, .kv_per_token_fp8 = 49'152, .kv_per_token_mha = 786'432,
       .gqa_ratio = 8, .context = 4'096, .kv_per_sequence = 402'653'184, .growth = 98'304},
// ChatGLM3-6B: num_layers 28, 32 heads, multi_query_group_num 2 (the KV heads), kv_channels 128 (head dim),
//   padded_vocab_size 65024, float16.
//   28 × 2 × 128 × 2 × 2 B = 28,672 B/token; fp8 14,336; MHA 28 × 32 × 128 × 4 = 458,752; ratio 16.
//   seq@4096 = 28,672 × 4096 = 117,440,512.
golden{.file = "THUDM__chatglm3-6b.config.json", .compute = dtype::f16,
       .layers = 28, .kv_layers = 28, .attention_heads = 32, .kv_heads = 2, .head_dim = 128, .head_dim_v = 128,
       .vocab = 65'024, .kv_per_token = 28'672, .kv_per_token_fp8 = 14'336, .kv_per_token_mha = 458'752,
       .gqa_ratio = 16, .context = 4'096, .kv_per_sequence = 117'440'512, .growth = 28'672},
// Jamba-v0.1 (jamba): 32 L; JambaConfig.layers_block_type: attention iff i % attn_layer_period (8) ==
//   attn_layer_offset (4) → layers 4, 12, 20, 28 = 4 attention layers, 28 Mamba (Mamba1, no KV, recurrent state).
//   32 heads / 8 kv, no head_dim key → hd 4096/32 = 128, torch_dtype bfloat16, sliding_window null.
//   KV: 4 × 8 × 128 × 2 × 2 B = 16,384 B/token; fp8 8,192; MHA 4 × 32 × 128 × 4 = 65,536; ratio 4.
//   Mamba1 state per layer (mamba_expand 2 → d_inner 2 × 4,096 = 8,192; mamba_d_state 16; mamba_d_conv 4):
//     conv = 3 × 8,192 = 24,576; ssm = 8,192 × 16 = 131,072;
//     (24,576 + 131,072) × 2 B × 28 layers = 155,648 × 2 × 28 = 8,716,288 B/sequence.
//   seq@4096 = 16,384 × 4,096 = 67,108,864.
golden{.file = "ai21labs__Jamba-v0.1.config.json", .compute = dtype::bf16,
       .layers = 32, .kv_layers = 4, .attention_heads = 32, .kv_heads = 8, .head_dim = 128, .head_dim_v = 128,
       .vocab = 65'536, .kv_per_token = 16'384, .kv_per_token_fp8 = 8'192, .kv_per_token_mha = 65'536,
       .gqa_ratio = 4, .context = 4'096, .kv_per_sequence = 67'108'864, .growth = 16'384,
       .none = 28, .recurrent = 28, .state_per_sequence = 8'716'288},
// DeepSeek-R1 (deepseek_v3, MLA): 61 L (num_nextn_predict_layers 1 is an extra MTP module outside
//   num_hidden_layers, not counted), 128 heads, kv_lora_rank 512, qk_rope 64, qk_nope 128, v_head 128, bf16.
//   Latent: 61 × (512 + 64) × 2 B = 61 × 1,152 = 70,272 B/token; fp8 35,136.
//   MHA: 61 × [128 × (128 + 64) + 128 × 128] × 2 B = 61 × 40,960 × 2 = 4,997,120; ratio 128 (one latent, 128 heads).
//   Per-head dims an engine expands the latent to: K = qk_nope + qk_rope = 192, V = v_head_dim = 128.
//   kv heads: num_key_value_heads 128 = heads (ignored by the latent; see the property test below).
//   seq@4096 = 70,272 × 4096 = 287,834,112.
golden{.file = "deepseek-ai__DeepSeek-R1.config.json", .compute = dtype::bf16,
       .layers = 61, .kv_layers = 61, .attention_heads = 128, .kv_heads = 128, .head_dim = 192, .head_dim_v = 128,
       .vocab = 129'280, .kv_per_token = 70'272, .kv_per_token_fp8 = 35'136, .kv_per_token_mha = 4'997'120,
       .gqa_ratio = 128, .context = 4'096, .kv_per_sequence = 287'834'112, .growth = 70'272,
       .latent = 61},
// Kimi-Linear-48B-A3B (kimi_linear): 27 L; linear_attn_config.full_attn_layers is 1-based (KimiLinearConfig
//   is_kda_layer: layer_idx + 1 not in full_attn_layers): [4, 8, 12, 16, 20, 24, 27] → 0-based 3, 7, 11, 15,
//   19, 23, 26 = 7 MLA layers; the other 20 are KDA (no KV, a recurrent state). 32 heads, kv_lora_rank 512,
//   qk_rope 64, qk_nope 128, v_head 128, num_key_value_heads 32 (ignored by the latent), dtype bfloat16.
//   Latent: 7 × 576 × 2 B = 8,064 B/token; fp8 4,032. MHA: 7 × [32 × 192 + 32 × 128] × 2 B = 143,360; ratio 32.
//   KDA state per layer (linear_attn_config: num_heads 32, head_dim 128, short_conv_kernel_size 4): conv over
//   q, k and v, 3 × (4 − 1) × 32 × 128 = 36,864; recurrent 32 × 128 × 128 = 524,288;
//   (36,864 + 524,288) × 2 B × 20 layers = 22,446,080 B/sequence. seq@4096 = 8,064 × 4096 = 33,030,144.
golden{.file = "moonshotai__Kimi-Linear-48B-A3B-Instruct.config.json", .compute = dtype::bf16,
       .layers = 27, .kv_layers = 7, .attention_heads = 32, .kv_heads = 32, .head_dim = 192, .head_dim_v = 128,
       .vocab = 163'840, .kv_per_token = 8'064, .kv_per_token_fp8 = 4'032, .kv_per_token_mha = 143'360,
       .gqa_ratio = 32, .context = 4'096, .kv_per_sequence = 33'030'144, .growth = 8'064,
       .latent = 7, .none = 20, .recurrent = 20, .state_per_sequence = 22'446'080},
// Gemma-2-9B: 42 L, 16 heads / 8 kv, head_dim 256 (≠ 3584/16 = 224), torch_dtype float32 (4 B).
//   Gemma 2 alternates, sliding first: layer i sliding iff i even (transformers Gemma2: is_sliding = not
//   bool(layer_idx % 2)) → 21 sliding (W 4096) + 21 full.
//   Per layer per token 8 × 256 × 2 × 4 B = 16,384. 42 × 16,384 = 688,128 B/token; fp8 172,032.
//   MHA 42 × 16 × 256 × 2 × 4 = 1,376,256; ratio 2. growth = 21 full × 16,384 = 344,064.
//   seq@16384 = 344,064 × 16,384 (full) + 344,064 × 4,096 (sliding) = 5,637,144,576 + 1,409,286,144 = 7,046,430,720.
golden{.file = "google__gemma-2-9b.config.json", .compute = dtype::f32,
       .layers = 42, .kv_layers = 42, .attention_heads = 16, .kv_heads = 8, .head_dim = 256, .head_dim_v = 256,
       .vocab = 256'000, .kv_per_token = 688'128, .kv_per_token_fp8 = 172'032, .kv_per_token_mha = 1'376'256,
       .gqa_ratio = 2, .context = 16'384, .kv_per_sequence = 7'046'430'720, .growth = 344'064,
       .sliding = 21, .window = 4'096},
// Gemma-2B-it (gemma): 18 L, 8 heads / 1 kv (MQA), head_dim 256, bf16, no window.
//   18 × 1 × 256 × 2 × 2 B = 18,432 B/token; fp8 9,216; MHA 18 × 8 × 256 × 4 = 147,456; ratio 8.
//   seq@4096 = 18,432 × 4096 = 75,497,472.
golden{.file = "google__gemma-2b-it.config.json", .compute = dtype::bf16,
       .layers = 18, .kv_layers = 18, .attention_heads = 8, .kv_heads = 1, .head_dim = 256, .head_dim_v = 256,
       .vocab = 256'000, .kv_per_token = 18'432, .kv_per_token_fp8 = 9'216, .kv_per_token_mha = 147'456,
       .gqa_ratio = 8, .context = 4'096, .kv_per_sequence = 75'497'472, .growth = 18'432},
// Gemma-3-27B-it: text_config 62 L, 32 heads / 16 kv, head_dim 128, sliding_window 1024; vocab_size omitted →
//   Gemma3TextConfig default 262,208; top-level torch_dtype bfloat16. Pattern 6 (default sliding_window_pattern):
//   layer i full iff (i+1) % 6 == 0 → i = 5, 11, ..., 59: 10 full, 52 sliding.
//   Per layer per token 16 × 128 × 2 × 2 B = 8,192. 62 × 8,192 = 507,904 B/token; fp8 253,952.
//   MHA 62 × 32 × 128 × 4 = 1,015,808; ratio 2. growth = 10 × 8,192 = 81,920.
//   seq@4096 = 81,920 × 4,096 + 52 × 8,192 × 1,024 = 335,544,320 + 436,207,616 = 771,751,936.
golden{.file = "google__gemma-3-27b-it.config.json", .compute = dtype::bf16,
       .layers = 62, .kv_layers = 62, .attention_heads = 32, .kv_heads = 16, .head_dim = 128, .head_dim_v = 128,
       .vocab = 262'208, .kv_per_token = 507'904, .kv_per_token_fp8 = 253'952, .kv_per_token_mha = 1'015'808,
       .gqa_ratio = 2, .context = 4'096, .kv_per_sequence = 771'751'936, .growth = 81'920,
       .sliding = 52, .window = 1'024},
// Gemma-4-26B-A4B (gemma4 / gemma4_text): 30 L, 16 heads, layer_types: 25 sliding_attention (window 1024,
//   num_key_value_heads 8 × head_dim 256) and 5 full_attention (5, 11, 17, 23, 29), which take global_head_dim 512
//   and, as attention_k_eq_v is true, num_global_key_value_heads 2 (vLLM models/gemma4.py
//   Gemma4DecoderLayer.__init__; transformers Gemma4TextAttention.__init__). K and V are both cached. bf16.
//   Sliding 25 × 8 × 256 × 2 × 2 B = 204,800; full 5 × 2 × 512 × 2 × 2 B = 20,480 → 225,280 B/token; fp8 112,640.
//   MHA: 25 × 16 × 256 × 4 + 5 × 16 × 512 × 4 = 409,600 + 163,840 = 573,440; ratio 16 / 8 = 2 (model-wide).
//   seq@4096 = 20,480 × 4,096 + 204,800 × 1,024 = 83,886,080 + 209,715,200 = 293,601,280. growth 20,480.
golden{.file = "google__gemma-4-26B-A4B.config.json", .compute = dtype::bf16,
       .layers = 30, .kv_layers = 30, .attention_heads = 16, .kv_heads = 8, .head_dim = 256, .head_dim_v = 256,
       .vocab = 262'144, .kv_per_token = 225'280, .kv_per_token_fp8 = 112'640, .kv_per_token_mha = 573'440,
       .gqa_ratio = 2, .context = 4'096, .kv_per_sequence = 293'601'280, .growth = 20'480,
       .sliding = 25, .window = 1'024},
// Gemma-4-31B-IT (NVIDIA's NVFP4 export; the text model is the bf16 one's): 60 L, 32 heads; 50 sliding (16 kv ×
//   256, window 1024), 10 full (4 global kv × 512, attention_k_eq_v). bf16 compute.
//   Sliding 50 × 16 × 256 × 4 = 819,200; full 10 × 4 × 512 × 4 = 81,920 → 901,120 B/token; fp8 450,560.
//   MHA: 50 × 32 × 256 × 4 + 10 × 32 × 512 × 4 = 1,638,400 + 655,360 = 2,293,760; ratio 2.
//   seq@4096 = 81,920 × 4,096 + 819,200 × 1,024 = 335,544,320 + 838,860,800 = 1,174,405,120. growth 81,920.
golden{.file = "nvidia__Gemma-4-31B-IT-NVFP4.config.json", .compute = dtype::bf16,
       .layers = 60, .kv_layers = 60, .attention_heads = 32, .kv_heads = 16, .head_dim = 256, .head_dim_v = 256,
       .vocab = 262'144, .kv_per_token = 901'120, .kv_per_token_fp8 = 450'560, .kv_per_token_mha = 2'293'760,
       .gqa_ratio = 2, .context = 4'096, .kv_per_sequence = 1'174'405'120, .growth = 81'920,
       .sliding = 50, .window = 1'024},
// Gemma-4-E2B-it (gemma4 / gemma4_text): 35 L, 8 heads, num_key_value_heads 1, head_dim 256, global_head_dim 512
//   (num_global_key_value_heads null: the full layers keep num_key_value_heads; attention_k_eq_v false: K and V).
//   layer_types: full at 4, 9, ..., 34, sliding (window 512) elsewhere. num_kv_shared_layers 20: layers 15 – 34 read
//   the cache of the last earlier layer of their type (transformers Gemma4TextAttention, as Gemma 3n), so 15 keep
//   their own: 0 – 14, full at 4, 9, 14 (3) and 12 sliding. bf16.
//   Sliding 12 × 1 × 256 × 2 × 2 B = 12,288; full 3 × 1 × 512 × 2 × 2 B = 6,144 → 18,432 B/token; fp8 9,216.
//   MHA (8 KV heads, the same 15 layers): 12 × 8 × 256 × 4 + 3 × 8 × 512 × 4 = 98,304 + 49,152 = 147,456; ratio 8.
//   seq@4096 = 6,144 × 4,096 + 12,288 × 512 = 25,165,824 + 6,291,456 = 31,457,280. growth 6,144.
golden{.file = "google__gemma-4-E2B-it.config.json", .compute = dtype::bf16,
       .layers = 35, .kv_layers = 15, .attention_heads = 8, .kv_heads = 1, .head_dim = 256, .head_dim_v = 256,
       .vocab = 262'144, .kv_per_token = 18'432, .kv_per_token_fp8 = 9'216, .kv_per_token_mha = 147'456,
       .gqa_ratio = 8, .context = 4'096, .kv_per_sequence = 31'457'280, .growth = 6'144,
       .sliding = 12, .shared = 20, .window = 512},
// MiniMax-M1 (minimax_m1; MiniMaxText01Config): 80 L, 64 heads / 8 kv, head_dim 128. attn_type_list: 1 (softmax)
//   at 7, 15, ..., 79 (10 layers), 0 (lightning attention) elsewhere (70). No dtype key: float32 (transformers'
//   reading; checked in its own case). Softmax: 10 × 8 × 128 × 2 × 4 B = 81,920 B/token; fp8 20,480;
//   MHA 10 × 64 × 128 × 2 × 4 = 655,360; ratio 8. seq@4096 = 81,920 × 4,096 = 335,544,320.
//   Lightning state (a head_dim × head_dim matrix per head): 70 × 64 × 128 × 128 × 4 B = 293,601,280 B/sequence.
golden{.file = "MiniMax-AI__MiniMax-M1.config.json", .compute = dtype::f32,
       .layers = 80, .kv_layers = 10, .attention_heads = 64, .kv_heads = 8, .head_dim = 128, .head_dim_v = 128,
       .vocab = 200'064, .kv_per_token = 81'920, .kv_per_token_fp8 = 20'480, .kv_per_token_mha = 655'360,
       .gqa_ratio = 8, .context = 4'096, .kv_per_sequence = 335'544'320, .growth = 81'920,
       .none = 70, .recurrent = 70, .state_per_sequence = 293'601'280, .dtype_in_config = false},
// Gemma-3-4B-it: sparse text_config: 34 L, hidden 2560, sliding_window 1024 set; heads 8, kv 4, head_dim 256,
//   vocab 262,208 are Gemma3TextConfig defaults (configuration_gemma3.py __init__); bf16.
//   Full iff (i+1) % 6 == 0 → i = 5, 11, 17, 23, 29: 5 full, 29 sliding.
//   Per layer per token 4 × 256 × 2 × 2 B = 4,096. 34 × 4,096 = 139,264 B/token; fp8 69,632.
//   MHA 34 × 8 × 256 × 4 = 278,528; ratio 2. growth = 5 × 4,096 = 20,480.
//   seq@4096 = 20,480 × 4,096 + 29 × 4,096 × 1,024 = 83,886,080 + 121,634,816 = 205,520,896.
golden{.file = "google__gemma-3-4b-it.config.json", .compute = dtype::bf16,
       .layers = 34, .kv_layers = 34, .attention_heads = 8, .kv_heads = 4, .head_dim = 256, .head_dim_v = 256,
       .vocab = 262'208, .kv_per_token = 139'264, .kv_per_token_fp8 = 69'632, .kv_per_token_mha = 278'528,
       .gqa_ratio = 2, .context = 4'096, .kv_per_sequence = 205'520'896, .growth = 20'480,
       .sliding = 29, .window = 1'024},
// LLaVA-1.5-7B: text_config model_type llama with little besides vocab 32064 → LlamaConfig defaults:
//   32 L, hidden 4096, 32 heads, num_key_value_heads None → 32 (MHA), hd 4096/32 = 128; float16.
//   32 × 32 × 128 × 2 × 2 B = 524,288 B/token; fp8 262,144; MHA same; ratio 1.
//   seq@4096 = 524,288 × 4096 = 2,147,483,648.
golden{.file = "llava-hf__llava-1.5-7b-hf.config.json", .compute = dtype::f16,
       .layers = 32, .kv_layers = 32, .attention_heads = 32, .kv_heads = 32, .head_dim = 128, .head_dim_v = 128,
       .vocab = 32'064, .kv_per_token = 524'288, .kv_per_token_fp8 = 262'144, .kv_per_token_mha = 524'288,
       .gqa_ratio = 1, .context = 4'096, .kv_per_sequence = 2'147'483'648, .growth = 524'288},
// Llama-2-70B: 80 L, 64 heads / 8 kv, hd 8192/64 = 128, float16.
//   80 × 8 × 128 × 2 × 2 B = 327,680 B/token; fp8 163,840; MHA 80 × 64 × 128 × 4 = 2,621,440; ratio 8.
golden{.file = "meta-llama__Llama-2-70b-hf.config.json", .compute = dtype::f16,
       .layers = 80, .kv_layers = 80, .attention_heads = 64, .kv_heads = 8, .head_dim = 128, .head_dim_v = 128,
       .vocab = 32'000, .kv_per_token = 327'680, .kv_per_token_fp8 = 163'840, .kv_per_token_mha = 2'621'440,
       .gqa_ratio = 8, .context = 4'096, .kv_per_sequence = 1'342'177'280, .growth = 327'680},
// Llama-2-7B: 32 L, 32 heads / 32 kv (MHA), hd 4096/32 = 128, float16.
//   32 × 32 × 128 × 2 × 2 B = 524,288 B/token; fp8 262,144; MHA same; ratio 1. seq@4096 = 2,147,483,648.
golden{.file = "meta-llama__Llama-2-7b-hf.config.json", .compute = dtype::f16,
       .layers = 32, .kv_layers = 32, .attention_heads = 32, .kv_heads = 32, .head_dim = 128, .head_dim_v = 128,
       .vocab = 32'000, .kv_per_token = 524'288, .kv_per_token_fp8 = 262'144, .kv_per_token_mha = 524'288,
       .gqa_ratio = 1, .context = 4'096, .kv_per_sequence = 2'147'483'648, .growth = 524'288},
// Llama-3.1-405B: 126 L, 128 heads / 8 kv, hd 16384/128 = 128, bf16.
//   126 × 8 × 128 × 2 × 2 B = 516,096 B/token; fp8 258,048; MHA 126 × 128 × 128 × 4 = 8,257,536; ratio 16.
//   seq@4096 = 516,096 × 4096 = 2,113,929,216.
golden{.file = "meta-llama__Llama-3.1-405B.config.json", .compute = dtype::bf16,
       .layers = 126, .kv_layers = 126, .attention_heads = 128, .kv_heads = 8, .head_dim = 128, .head_dim_v = 128,
       .vocab = 128'256, .kv_per_token = 516'096, .kv_per_token_fp8 = 258'048, .kv_per_token_mha = 8'257'536,
       .gqa_ratio = 16, .context = 4'096, .kv_per_sequence = 2'113'929'216, .growth = 516'096},
// Llama-3.1-70B: 80 L, 64 heads / 8 kv, hd 128, bf16.
//   80 × 8 × 128 × 2 × 2 B = 327,680 B/token; fp8 163,840; MHA 2,621,440; ratio 8.
golden{.file = "meta-llama__Llama-3.1-70B.config.json", .compute = dtype::bf16,
       .layers = 80, .kv_layers = 80, .attention_heads = 64, .kv_heads = 8, .head_dim = 128, .head_dim_v = 128,
       .vocab = 128'256, .kv_per_token = 327'680, .kv_per_token_fp8 = 163'840, .kv_per_token_mha = 2'621'440,
       .gqa_ratio = 8, .context = 4'096, .kv_per_sequence = 1'342'177'280, .growth = 327'680},
// Llama-3.1-8B: 32 L, 32 heads / 8 kv, hd 4096/32 = 128, bf16.
//   32 × 8 × 128 × 2 × 2 B = 131,072 B/token (128 KiB); fp8 65,536; MHA 524,288; ratio 4.
//   seq@4096 = 131,072 × 4096 = 536,870,912 (512 MiB).
golden{.file = "meta-llama__Llama-3.1-8B.config.json", .compute = dtype::bf16,
       .layers = 32, .kv_layers = 32, .attention_heads = 32, .kv_heads = 8, .head_dim = 128, .head_dim_v = 128,
       .vocab = 128'256, .kv_per_token = 131'072, .kv_per_token_fp8 = 65'536, .kv_per_token_mha = 524'288,
       .gqa_ratio = 4, .context = 4'096, .kv_per_sequence = 536'870'912, .growth = 131'072},
// Llama-3.2-1B-Instruct: 16 L, 32 heads / 8 kv, head_dim 64, bf16.
//   16 × 8 × 64 × 2 × 2 B = 32,768 B/token; fp8 16,384; MHA 16 × 32 × 64 × 4 = 131,072; ratio 4.
//   seq@4096 = 32,768 × 4096 = 134,217,728.
golden{.file = "meta-llama__Llama-3.2-1B-Instruct.config.json", .compute = dtype::bf16,
       .layers = 16, .kv_layers = 16, .attention_heads = 32, .kv_heads = 8, .head_dim = 64, .head_dim_v = 64,
       .vocab = 128'256, .kv_per_token = 32'768, .kv_per_token_fp8 = 16'384, .kv_per_token_mha = 131'072,
       .gqa_ratio = 4, .context = 4'096, .kv_per_sequence = 134'217'728, .growth = 32'768},
// Llama-4-Scout-17B-16E: text_config 48 L, 40 heads / 8 kv, head_dim 128, attention_chunk_size 8192, bf16.
//   no_rope_layers absent → Llama4TextConfig default [int((i+1) % 4 != 0)], layer_types "chunked_attention"
//   where no_rope else "full_attention": layers 3, 7, ..., 47 = 12 full, 36 chunked (C 8192).
//   Per layer per token 8 × 128 × 2 × 2 B = 4,096. 48 × 4,096 = 196,608 B/token; fp8 98,304.
//   MHA 48 × 40 × 128 × 4 = 983,040; ratio 5. growth = 12 × 4,096 = 49,152.
//   seq@32768 = 49,152 × 32,768 + 36 × 4,096 × 8,192 = 1,610,612,736 + 1,207,959,552 = 2,818,572,288.
golden{.file = "meta-llama__Llama-4-Scout-17B-16E-Instruct.config.json", .compute = dtype::bf16,
       .layers = 48, .kv_layers = 48, .attention_heads = 40, .kv_heads = 8, .head_dim = 128, .head_dim_v = 128,
       .vocab = 202'048, .kv_per_token = 196'608, .kv_per_token_fp8 = 98'304, .kv_per_token_mha = 983'040,
       .gqa_ratio = 5, .context = 32'768, .kv_per_sequence = 2'818'572'288, .growth = 49'152,
       .chunked = 36, .chunk = 8'192},
// Phi-3-mini-4k-instruct: 32 L, 32 heads / 32 kv, hd 3072/32 = 96, bf16, sliding_window 2047. Phi3 has no
//   layer_types: Phi3Attention passes sliding_window=config.sliding_window on every layer (Mistral-style), and
//   Phi3Model builds a sliding-window mask when it is set → 32 sliding layers, W 2047.
//   32 × 32 × 96 × 2 × 2 B = 393,216 B/token; fp8 196,608; MHA same; ratio 1. growth 0 (every layer windowed).
//   seq@4096 = 393,216 × 2,047 = 804,913,152.
golden{.file = "microsoft__Phi-3-mini-4k-instruct.config.json", .compute = dtype::bf16,
       .layers = 32, .kv_layers = 32, .attention_heads = 32, .kv_heads = 32, .head_dim = 96, .head_dim_v = 96,
       .vocab = 32'064, .kv_per_token = 393'216, .kv_per_token_fp8 = 196'608, .kv_per_token_mha = 393'216,
       .gqa_ratio = 1, .context = 4'096, .kv_per_sequence = 804'913'152, .growth = 0,
       .sliding = 32, .window = 2'047},
// Phi-4: 40 L, 40 heads / 10 kv, hd 5120/40 = 128, bf16, sliding_window null → all full.
//   40 × 10 × 128 × 2 × 2 B = 204,800 B/token; fp8 102,400; MHA 40 × 40 × 128 × 4 = 819,200; ratio 4.
//   seq@4096 = 204,800 × 4096 = 838,860,800.
golden{.file = "microsoft__phi-4.config.json", .compute = dtype::bf16,
       .layers = 40, .kv_layers = 40, .attention_heads = 40, .kv_heads = 10, .head_dim = 128, .head_dim_v = 128,
       .vocab = 100'352, .kv_per_token = 204'800, .kv_per_token_fp8 = 102'400, .kv_per_token_mha = 819'200,
       .gqa_ratio = 4, .context = 4'096, .kv_per_sequence = 838'860'800, .growth = 204'800},
// Phi-4-mini-instruct (phi3): 32 L, 24 heads / 8 kv, hd 3072/24 = 128, bf16, sliding_window 262144 on every layer
//   (Phi3Attention, as Phi-3-mini), above max_position_embeddings 131,072: the window never binds.
//   32 × 8 × 128 × 2 × 2 B = 131,072 B/token; fp8 65,536; MHA 32 × 24 × 128 × 4 = 393,216; ratio 3. growth at
//   4,096 tokens 131,072 (the window is far off). seq@4096 = 131,072 × 4,096 = 536,870,912.
golden{.file = "microsoft__Phi-4-mini-instruct.config.json", .compute = dtype::bf16,
       .layers = 32, .kv_layers = 32, .attention_heads = 24, .kv_heads = 8, .head_dim = 128, .head_dim_v = 128,
       .vocab = 200'064, .kv_per_token = 131'072, .kv_per_token_fp8 = 65'536, .kv_per_token_mha = 393'216,
       .gqa_ratio = 3, .context = 4'096, .kv_per_sequence = 536'870'912, .growth = 131'072,
       .sliding = 32, .window = 262'144},
// Mistral-7B-v0.1: 32 L, 32 heads / 8 kv, hd 128, bf16, sliding_window 4096 on every layer.
//   32 × 8 × 128 × 2 × 2 B = 131,072 B/token; fp8 65,536; MHA 524,288; ratio 4. growth 0.
//   seq@16384 = 131,072 × 4,096 = 536,870,912 (flat past 4096).
golden{.file = "mistralai__Mistral-7B-v0.1.config.json", .compute = dtype::bf16,
       .layers = 32, .kv_layers = 32, .attention_heads = 32, .kv_heads = 8, .head_dim = 128, .head_dim_v = 128,
       .vocab = 32'000, .kv_per_token = 131'072, .kv_per_token_fp8 = 65'536, .kv_per_token_mha = 524'288,
       .gqa_ratio = 4, .context = 16'384, .kv_per_sequence = 536'870'912, .growth = 0,
       .sliding = 32, .window = 4'096},
// Mixtral-8x22B: 56 L, 48 heads / 8 kv, hd 6144/48 = 128, bf16, sliding_window null.
//   56 × 8 × 128 × 2 × 2 B = 229,376 B/token; fp8 114,688; MHA 56 × 48 × 128 × 4 = 1,376,256; ratio 6.
//   seq@4096 = 229,376 × 4096 = 939,524,096.
golden{.file = "mistralai__Mixtral-8x22B-v0.1.config.json", .compute = dtype::bf16,
       .layers = 56, .kv_layers = 56, .attention_heads = 48, .kv_heads = 8, .head_dim = 128, .head_dim_v = 128,
       .vocab = 32'000, .kv_per_token = 229'376, .kv_per_token_fp8 = 114'688, .kv_per_token_mha = 1'376'256,
       .gqa_ratio = 6, .context = 4'096, .kv_per_sequence = 939'524'096, .growth = 229'376},
// Mixtral-8x7B: 32 L, 32 heads / 8 kv, hd 128, bf16, sliding_window null.
//   32 × 8 × 128 × 2 × 2 B = 131,072 B/token; fp8 65,536; MHA 524,288; ratio 4.
golden{.file = "mistralai__Mixtral-8x7B-v0.1.config.json", .compute = dtype::bf16,
       .layers = 32, .kv_layers = 32, .attention_heads = 32, .kv_heads = 8, .head_dim = 128, .head_dim_v = 128,
       .vocab = 32'000, .kv_per_token = 131'072, .kv_per_token_fp8 = 65'536, .kv_per_token_mha = 524'288,
       .gqa_ratio = 4, .context = 4'096, .kv_per_sequence = 536'870'912, .growth = 131'072},
// Kimi-K2-Instruct (kimi_k2, DeepSeek-V3 MLA): 61 L, 64 heads, kv_lora_rank 512, qk_rope 64, qk_nope 128,
//   v_head 128, bf16 (quantization_config fp8 is the weights, not the cache).
//   Latent: 61 × 576 × 2 B = 70,272 B/token; fp8 35,136.
//   MHA: 61 × [64 × 192 + 64 × 128] × 2 B = 61 × 20,480 × 2 = 2,498,560; ratio 64.
golden{.file = "moonshotai__Kimi-K2-Instruct.config.json", .compute = dtype::bf16,
       .layers = 61, .kv_layers = 61, .attention_heads = 64, .kv_heads = 64, .head_dim = 192, .head_dim_v = 128,
       .vocab = 163'840, .kv_per_token = 70'272, .kv_per_token_fp8 = 35'136, .kv_per_token_mha = 2'498'560,
       .gqa_ratio = 64, .context = 4'096, .kv_per_sequence = 287'834'112, .growth = 70'272,
       .latent = 61},
// DeepSeek-V3.2 (deepseek_v32, DeepSeek sparse attention): 61 L, 128 heads, kv_lora_rank 512, qk_rope 64,
//   qk_nope 128, v_head 128, bf16, and the lightning indexer's key per token per layer, index_head_dim 128.
//   Latent + indexer: 61 × (576 + 128) × 2 B = 61 × 1,408 = 85,888 B/token; fp8 61 × 704 = 42,944.
//   MHA (the expanded heads, no indexer): 61 × [128 × 192 + 128 × 128] × 2 B = 4,997,120; ratio 128.
//   (Engines keep the indexer key in fp8 + a float32 scale, 132 B: vLLM 61 × (1,152 + 132) = 78,324;
//   tests/unit/engines/vllm.test.cpp.)
golden{.file = "deepseek-ai__DeepSeek-V3.2.config.json", .compute = dtype::bf16,
       .layers = 61, .kv_layers = 61, .attention_heads = 128, .kv_heads = 128, .head_dim = 192, .head_dim_v = 128,
       .vocab = 129'280, .kv_per_token = 85'888, .kv_per_token_fp8 = 42'944, .kv_per_token_mha = 4'997'120,
       .gqa_ratio = 128, .context = 4'096, .kv_per_sequence = 351'797'248, .growth = 85'888,
       .latent = 61},
// GLM-5 (glm_moe_dsa, DeepSeek sparse attention in a GLM MoE): 78 L, 64 heads, kv_lora_rank 512,
//   qk_rope 64, qk_nope 192, v_head 256, bf16, index_head_dim 128.
//   Latent + indexer: 78 × 1,408 = 109,824 B/token; fp8 78 × 704 = 54,912.
//   MHA: 78 × [64 × 256 + 64 × 256] × 2 B = 5,111,808; ratio 64.
golden{.file = "zai-org__GLM-5.config.json", .compute = dtype::bf16,
       .layers = 78, .kv_layers = 78, .attention_heads = 64, .kv_heads = 64, .head_dim = 256, .head_dim_v = 256,
       .vocab = 154'880, .kv_per_token = 109'824, .kv_per_token_fp8 = 54'912, .kv_per_token_mha = 5'111'808,
       .gqa_ratio = 64, .context = 4'096, .kv_per_sequence = 449'839'104, .growth = 109'824,
       .latent = 78},
// LFM2-1.2B (lfm2, launch config): 16 layers; full_attn_idxs [2, 5, 8, 10, 12, 14] attend, the other 10 are
//   short convolutions. 32 heads / 8 kv, head_dim 2,048 / 32 = 64, bf16.
//   KV: 6 × 8 × 64 × 2 × 2 B = 12,288 B/token; fp8 6,144; MHA 6 × 32 × 64 × 2 × 2 = 49,152; ratio 4.
//   Conv state (Lfm2ShortConv: conv_L_cache 3 taps over conv_dim 2,048): (3 − 1) × 2,048 = 4,096 elements ×
//   2 B × 10 layers = 81,920 B/sequence; no SSM state.
golden{.file = "LiquidAI__LFM2-1.2B.config.json", .compute = dtype::bf16,
       .layers = 16, .kv_layers = 6, .attention_heads = 32, .kv_heads = 8, .head_dim = 64, .head_dim_v = 64,
       .vocab = 65'536, .kv_per_token = 12'288, .kv_per_token_fp8 = 6'144, .kv_per_token_mha = 49'152,
       .gqa_ratio = 4, .context = 4'096, .kv_per_sequence = 50'331'648, .growth = 12'288,
       .none = 10, .recurrent = 10, .state_per_sequence = 81'920},
// MPT-7B-instruct: n_layers 32, n_heads 32, d_model 4096 → hd 128; attn_config has no kv_n_heads → MHA; float16.
//   32 × 32 × 128 × 2 × 2 B = 524,288 B/token; fp8 262,144; MHA same; ratio 1.
golden{.file = "mosaicml__mpt-7b-instruct.config.json", .compute = dtype::f16,
       .layers = 32, .kv_layers = 32, .attention_heads = 32, .kv_heads = 32, .head_dim = 128, .head_dim_v = 128,
       .vocab = 50'432, .kv_per_token = 524'288, .kv_per_token_fp8 = 262'144, .kv_per_token_mha = 524'288,
       .gqa_ratio = 1, .context = 4'096, .kv_per_sequence = 2'147'483'648, .growth = 524'288},
// Llama-3.3-Nemotron-Super-49B (nemotron-nas / DeciLM): 80 block_configs; 49 with attention n_heads_in_group 8
//   (→ 64 / 8 = 8 kv heads), 31 with attention.no_op true (no KV). hd 8192/64 = 128, bf16.
//   49 × 8 × 128 × 2 × 2 B = 200,704 B/token; fp8 100,352; MHA 49 × 64 × 128 × 4 = 1,605,632; ratio 8.
//   seq@4096 = 200,704 × 4096 = 822,083,584.
golden{.file = "nvidia__Llama-3_3-Nemotron-Super-49B-v1.config.json", .compute = dtype::bf16,
       .layers = 80, .kv_layers = 49, .attention_heads = 64, .kv_heads = 8, .head_dim = 128, .head_dim_v = 128,
       .vocab = 128'256, .kv_per_token = 200'704, .kv_per_token_fp8 = 100'352, .kv_per_token_mha = 1'605'632,
       .gqa_ratio = 8, .context = 4'096, .kv_per_sequence = 822'083'584, .growth = 200'704,
       .none = 31},
// Nemotron-3-Nano-30B-A3B (nemotron_h): hybrid_override_pattern of 52: 23 M (Mamba2), 23 E (MoE), 6 * (attention,
//   at 5, 12, 19, 26, 33, 42). 32 heads / 2 kv, head_dim 128, bf16.
//   KV: 6 × 2 × 128 × 2 × 2 B = 6,144 B/token; fp8 3,072; MHA 6 × 32 × 128 × 4 = 98,304; ratio 16.
//   Mamba2 (NemotronHMamba2Mixer: d_inner = mamba_num_heads × mamba_head_dim = 64 × 64 = 4,096; n_groups 8,
//   ssm_state_size 128, conv_kernel 4): conv = 3 × (4,096 + 2 × 8 × 128) = 3 × 6,144 = 18,432;
//   ssm = 64 × 64 × 128 = 524,288; (18,432 + 524,288) × 2 B × 23 = 542,720 × 2 × 23 = 24,965,120 B/sequence.
//   (mamba_ssm_cache_dtype float32 is an engine cache choice; kvsize states the state in the compute dtype.)
golden{.file = "nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.config.json", .compute = dtype::bf16,
       .layers = 52, .kv_layers = 6, .attention_heads = 32, .kv_heads = 2, .head_dim = 128, .head_dim_v = 128,
       .vocab = 131'072, .kv_per_token = 6'144, .kv_per_token_fp8 = 3'072, .kv_per_token_mha = 98'304,
       .gqa_ratio = 16, .context = 4'096, .kv_per_sequence = 25'165'824, .growth = 6'144,
       .none = 46, .recurrent = 23, .state_per_sequence = 24'965'120},
// MiMo-V2-Flash (mimo_v2_flash): 48 L; hybrid_layer_pattern 0 (full) at 0, 5, 11, 17, 23, 29, 35, 41, 47, 1 (sliding,
//   window sliding_window = sliding_window_size = 128) at the other 39. 64 heads; full layers num_key_value_heads 4 ×
//   head_dim 192 (K) / v_head_dim 128 (V); sliding layers swa_num_key_value_heads 8 × swa_head_dim 192 /
//   swa_v_head_dim 128 (vLLM models/mimo_v2_flash.py MiMoV2FlashDecoderLayer.__init__). bf16.
//   Full 9 × 4 × (192 + 128) × 2 B = 23,040; sliding 39 × 8 × 320 × 2 B = 199,680 → 222,720 B/token; fp8 111,360.
//   MHA 48 × 64 × 320 × 2 B = 1,966,080; ratio 64 / 4 = 16 (model-wide). growth 23,040.
//   seq@4096 = 23,040 × 4,096 + 199,680 × 128 = 94,371,840 + 25,559,040 = 119,930,880.
golden{.file = "XiaomiMiMo__MiMo-V2-Flash.config.json", .compute = dtype::bf16,
       .layers = 48, .kv_layers = 48, .attention_heads = 64, .kv_heads = 4, .head_dim = 192, .head_dim_v = 128,
       .vocab = 152'576, .kv_per_token = 222'720, .kv_per_token_fp8 = 111'360, .kv_per_token_mha = 1'966'080,
       .gqa_ratio = 16, .context = 4'096, .kv_per_sequence = 119'930'880, .growth = 23'040,
       .sliding = 39, .window = 128},
// Nemotron-3-Ultra-550B-A55B (nemotron_h, NemotronHConfig v5 form): no num_hidden_layers; layers_block_type of
//   108 entries (its length is the layer count): 48 "mamba", 48 "moe", 12 "attention". 64 heads / 2 kv,
//   head_dim 128, bf16. KV: 12 × 2 × 128 × 2 × 2 B = 12,288 B/token; fp8 6,144; MHA 12 × 64 × 128 × 4 = 393,216;
//   ratio 32. Mamba2: d_inner = 256 × 64 = 16,384, n_groups 8, ssm_state_size 128, conv_kernel 4:
//   conv = 3 × (16,384 + 2 × 8 × 128) = 3 × 18,432 = 55,296; ssm = 256 × 64 × 128 = 2,097,152;
//   (55,296 + 2,097,152) × 2 B × 48 = 206,635,008 B/sequence.
golden{.file = "nvidia__NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16.config.json", .compute = dtype::bf16,
       .layers = 108, .kv_layers = 12, .attention_heads = 64, .kv_heads = 2, .head_dim = 128, .head_dim_v = 128,
       .vocab = 131'072, .kv_per_token = 12'288, .kv_per_token_fp8 = 6'144, .kv_per_token_mha = 393'216,
       .gqa_ratio = 32, .context = 4'096, .kv_per_sequence = 50'331'648, .growth = 12'288,
       .none = 96, .recurrent = 48, .state_per_sequence = 206'635'008},
// Nemotron-H-56B-Base-8K: pattern of 118: 54 M, 54 -, 10 * (at 7, 18, ..., 106). 64 heads / 8 kv,
//   attention_head_dim 128, bf16 (the file has a bare `Infinity` in time_step_limit).
//   KV: 10 × 8 × 128 × 2 × 2 B = 40,960 B/token; fp8 20,480; MHA 10 × 64 × 128 × 4 = 327,680; ratio 8.
//   Mamba2: d_inner = 256 × 64 = 16,384 (= expand 2 × 8192), n_groups 8, d_state 256, conv 4:
//   conv = 3 × (16,384 + 2 × 8 × 256) = 3 × 20,480 = 61,440; ssm = 256 × 64 × 256 = 4,194,304;
//   (61,440 + 4,194,304) × 2 B × 54 = 4,255,744 × 2 × 54 = 459,620,352 B/sequence.
golden{.file = "nvidia__Nemotron-H-56B-Base-8K.config.json", .compute = dtype::bf16,
       .layers = 118, .kv_layers = 10, .attention_heads = 64, .kv_heads = 8, .head_dim = 128, .head_dim_v = 128,
       .vocab = 131'072, .kv_per_token = 40'960, .kv_per_token_fp8 = 20'480, .kv_per_token_mha = 327'680,
       .gqa_ratio = 8, .context = 4'096, .kv_per_sequence = 167'772'160, .growth = 40'960,
       .none = 108, .recurrent = 54, .state_per_sequence = 459'620'352},
// GPT-2 XL: n_layer 48, n_head 25, n_embd 1600 → hd 64, MHA; no torch_dtype → float32 (see top).
//   48 × 25 × 64 × 2 × 4 B = 614,400 B/token; fp8 153,600; MHA same; ratio 1.
//   seq@4096 = 614,400 × 4096 = 2,516,582,400.
golden{.file = "openai-community__gpt2-xl.config.json", .compute = dtype::f32,
       .layers = 48, .kv_layers = 48, .attention_heads = 25, .kv_heads = 25, .head_dim = 64, .head_dim_v = 64,
       .vocab = 50'257, .kv_per_token = 614'400, .kv_per_token_fp8 = 153'600, .kv_per_token_mha = 614'400,
       .gqa_ratio = 1, .context = 4'096, .kv_per_sequence = 2'516'582'400, .growth = 614'400,
       .dtype_in_config = false},
// GPT-OSS-120B: 36 L, layer_types 18 sliding_attention (even i) + 18 full_attention, sliding_window 128;
//   64 heads / 8 kv, head_dim 64; no torch_dtype → float32 (see top).
//   Per layer per token 8 × 64 × 2 × 4 B = 4,096. 36 × 4,096 = 147,456 B/token; fp8 36,864.
//   MHA 36 × 64 × 64 × 2 × 4 = 1,179,648; ratio 8. growth = 18 × 4,096 = 73,728.
//   seq@4096 = 73,728 × 4,096 + 18 × 4,096 × 128 = 301,989,888 + 9,437,184 = 311,427,072.
golden{.file = "openai__gpt-oss-120b.config.json", .compute = dtype::f32,
       .layers = 36, .kv_layers = 36, .attention_heads = 64, .kv_heads = 8, .head_dim = 64, .head_dim_v = 64,
       .vocab = 201'088, .kv_per_token = 147'456, .kv_per_token_fp8 = 36'864, .kv_per_token_mha = 1'179'648,
       .gqa_ratio = 8, .context = 4'096, .kv_per_sequence = 311'427'072, .growth = 73'728,
       .sliding = 18, .window = 128, .dtype_in_config = false},
// GPT-OSS-20B: 24 L, layer_types 12 sliding + 12 full, W 128; 64 heads / 8 kv, head_dim 64; float32 (absent).
//   24 × 4,096 = 98,304 B/token; fp8 24,576; MHA 24 × 64 × 64 × 2 × 4 = 786,432; ratio 8. growth 12 × 4,096 = 49,152.
//   seq@4096 = 49,152 × 4,096 + 12 × 4,096 × 128 = 201,326,592 + 6,291,456 = 207,618,048.
golden{.file = "openai__gpt-oss-20b.config.json", .compute = dtype::f32,
       .layers = 24, .kv_layers = 24, .attention_heads = 64, .kv_heads = 8, .head_dim = 64, .head_dim_v = 64,
       .vocab = 201'088, .kv_per_token = 98'304, .kv_per_token_fp8 = 24'576, .kv_per_token_mha = 786'432,
       .gqa_ratio = 8, .context = 4'096, .kv_per_sequence = 207'618'048, .growth = 49'152,
       .sliding = 12, .window = 128, .dtype_in_config = false},
// Falcon-40B (RefinedWeb): n_layer 60, n_head 128, n_head_kv 8, hidden 8192 → hd 64, bf16.
//   60 × 8 × 64 × 2 × 2 B = 122,880 B/token; fp8 61,440; MHA 60 × 128 × 64 × 4 = 1,966,080; ratio 16.
//   seq@4096 = 122,880 × 4096 = 503,316,480.
golden{.file = "tiiuae__falcon-40b.config.json", .compute = dtype::bf16,
       .layers = 60, .kv_layers = 60, .attention_heads = 128, .kv_heads = 8, .head_dim = 64, .head_dim_v = 64,
       .vocab = 65'024, .kv_per_token = 122'880, .kv_per_token_fp8 = 61'440, .kv_per_token_mha = 1'966'080,
       .gqa_ratio = 16, .context = 4'096, .kv_per_sequence = 503'316'480, .growth = 122'880},
// Falcon-7B (RefinedWebModel): n_layer 32, n_head 71, multi_query true → 1 kv head, hidden 4544 → hd 64, bf16.
//   32 × 1 × 64 × 2 × 2 B = 8,192 B/token; fp8 4,096; MHA 32 × 71 × 64 × 4 = 581,632; ratio 71.
//   seq@4096 = 8,192 × 4096 = 33,554,432.
golden{.file = "tiiuae__falcon-7b.config.json", .compute = dtype::bf16,
       .layers = 32, .kv_layers = 32, .attention_heads = 71, .kv_heads = 1, .head_dim = 64, .head_dim_v = 64,
       .vocab = 65'024, .kv_per_token = 8'192, .kv_per_token_fp8 = 4'096, .kv_per_token_mha = 581'632,
       .gqa_ratio = 71, .context = 4'096, .kv_per_sequence = 33'554'432, .growth = 8'192},
// RedPajama-INCITE-7B (gpt_neox): 32 L, 32 heads, no kv key → MHA, hd 4096/32 = 128, float16.
//   32 × 32 × 128 × 2 × 2 B = 524,288 B/token; fp8 262,144; MHA same; ratio 1.
golden{.file = "togethercomputer__RedPajama-INCITE-7B-Base.config.json", .compute = dtype::f16,
       .layers = 32, .kv_layers = 32, .attention_heads = 32, .kv_heads = 32, .head_dim = 128, .head_dim_v = 128,
       .vocab = 50'432, .kv_per_token = 524'288, .kv_per_token_fp8 = 262'144, .kv_per_token_mha = 524'288,
       .gqa_ratio = 1, .context = 4'096, .kv_per_sequence = 2'147'483'648, .growth = 524'288},
// GLM-4.5 (glm4_moe): 92 L (the num_nextn_predict_layers 1 MTP layer is outside num_hidden_layers),
//   96 heads / 8 kv, head_dim 128 (≠ 5120/96), bf16.
//   92 × 8 × 128 × 2 × 2 B = 376,832 B/token; fp8 188,416; MHA 92 × 96 × 128 × 4 = 4,521,984; ratio 12.
//   seq@4096 = 376,832 × 4096 = 1,543,503,872.
golden{.file = "zai-org__GLM-4.5.config.json", .compute = dtype::bf16,
       .layers = 92, .kv_layers = 92, .attention_heads = 96, .kv_heads = 8, .head_dim = 128, .head_dim_v = 128,
       .vocab = 151'552, .kv_per_token = 376'832, .kv_per_token_fp8 = 188'416, .kv_per_token_mha = 4'521'984,
       .gqa_ratio = 12, .context = 4'096, .kv_per_sequence = 1'543'503'872, .growth = 376'832},
// SmolLM3-3B (smollm3): 36 L, 16 heads / 4 kv, no head_dim → 2048 / 16 = 128, bf16. layer_types: 36 ×
//   "full_attention" (no_rope_layers' 0s at 3, 7, ..., 35 only drop RoPE there; use_sliding_window false).
//   36 × 4 × 128 × 2 × 2 B = 73,728 B/token; fp8 36,864; MHA 36 × 16 × 128 × 4 = 294,912; ratio 4.
//   seq@4096 = 73,728 × 4,096 = 301,989,888.
golden{.file = "HuggingFaceTB__SmolLM3-3B.config.json", .compute = dtype::bf16,
       .layers = 36, .kv_layers = 36, .attention_heads = 16, .kv_heads = 4, .head_dim = 128, .head_dim_v = 128,
       .vocab = 128'256, .kv_per_token = 73'728, .kv_per_token_fp8 = 36'864, .kv_per_token_mha = 294'912,
       .gqa_ratio = 4, .context = 4'096, .kv_per_sequence = 301'989'888, .growth = 73'728},
// Hunyuan-A13B-Instruct (hunyuan, remote code): 32 L, 32 heads / 8 kv, attention_head_dim 128, bf16; use_cla
//   false (every layer its own K and V), use_mla false. 32 × 8 × 128 × 2 × 2 B = 131,072 B/token; fp8 65,536;
//   MHA 32 × 32 × 128 × 4 = 524,288; ratio 4. seq@4096 = 131,072 × 4,096 = 536,870,912.
golden{.file = "tencent__Hunyuan-A13B-Instruct.config.json", .compute = dtype::bf16,
       .layers = 32, .kv_layers = 32, .attention_heads = 32, .kv_heads = 8, .head_dim = 128, .head_dim_v = 128,
       .vocab = 128'167, .kv_per_token = 131'072, .kv_per_token_fp8 = 65'536, .kv_per_token_mha = 524'288,
       .gqa_ratio = 4, .context = 4'096, .kv_per_sequence = 536'870'912, .growth = 131'072},
// Step-3.5-Flash (step3p5, remote code): 45 L; layer_types has 48 entries (the last 3 are the MTP layers'),
//   full at i % 4 == 0 (12 layers: 0, 4, ..., 44), sliding elsewhere (33), window 512. KV heads from
//   num_attention_groups 8 on full layers and attention_other_setting.num_attention_groups 8 on sliding ones,
//   head_dim 128 both (vLLM models/step3p5.py Step3p5DecoderLayer); the sliding layers' 96 query heads are weights
//   only. 45 × 8 × 128 × 2 × 2 B = 184,320 B/token; fp8 92,160; MHA (64 heads) 45 × 64 × 128 × 4 = 1,474,560;
//   ratio 8. seq@4096 = 12 × 4,096 × 4,096 + 33 × 4,096 × 512 = 201,326,592 + 69,206,016 = 270,532,608;
//   growth past the window 12 × 4,096 = 49,152.
golden{.file = "stepfun-ai__Step-3.5-Flash.config.json", .compute = dtype::bf16,
       .layers = 45, .kv_layers = 45, .attention_heads = 64, .kv_heads = 8, .head_dim = 128, .head_dim_v = 128,
       .vocab = 128'896, .kv_per_token = 184'320, .kv_per_token_fp8 = 92'160, .kv_per_token_mha = 1'474'560,
       .gqa_ratio = 8, .context = 4'096, .kv_per_sequence = 270'532'608, .growth = 49'152,
       .sliding = 33, .window = 512},
// MiniMax-M3 (minimax_m3): 60 L, 64 heads / 4 kv, head_dim 128, bf16; sparse_attention_config.sparse_attention_freq
//   is 0 on layers 0-2 and 1 on the 57 others, which also keep one index key of sparse_index_dim 128 per token
//   (vLLM MiniMaxM3IndexerCache: 1 head, key only). K + V: 60 × 4 × 128 × 2 × 2 B = 122,880; index keys
//   57 × 128 × 2 B = 14,592; 137,472 B/token (vLLM and SGLang's figure). fp8: 61,440 + 7,296 = 68,736. MHA: 60 ×
//   64 × 128 × 4 = 1,966,080 + the same 14,592 = 1,980,672; ratio 16. seq@4096 = 137,472 × 4,096 = 563,085,312.
golden{.file = "MiniMaxAI__MiniMax-M3.config.json", .compute = dtype::bf16,
       .layers = 60, .kv_layers = 60, .attention_heads = 64, .kv_heads = 4, .head_dim = 128, .head_dim_v = 128,
       .vocab = 200'064, .kv_per_token = 137'472, .kv_per_token_fp8 = 68'736, .kv_per_token_mha = 1'980'672,
       .gqa_ratio = 16, .context = 4'096, .kv_per_sequence = 563'085'312, .growth = 137'472, .indexed = 57},
// ERNIE-4.5-21B-A3B-Thinking (ernie4_5_moe): 28 L, 20 heads / 4 kv, no head_dim → 2560 / 20 = 128, bf16; no window.
//   28 × 4 × 128 × 2 × 2 B = 57,344 B/token; fp8 28,672; MHA 28 × 20 × 128 × 4 = 286,720; ratio 5.
//   seq@4096 = 57,344 × 4,096 = 234,881,024.
golden{.file = "baidu__ERNIE-4.5-21B-A3B-Thinking.config.json", .compute = dtype::bf16,
       .layers = 28, .kv_layers = 28, .attention_heads = 20, .kv_heads = 4, .head_dim = 128, .head_dim_v = 128,
       .vocab = 103'424, .kv_per_token = 57'344, .kv_per_token_fp8 = 28'672, .kv_per_token_mha = 286'720,
       .gqa_ratio = 5, .context = 4'096, .kv_per_sequence = 234'881'024, .growth = 57'344},
// ERNIE-4.5-0.3B-Base-PT (ernie4_5): 18 L, 16 heads / 2 kv, head_dim 128 from its key (hidden_size / heads would be
//   1024 / 16 = 64), bf16. 18 × 2 × 128 × 2 × 2 B = 18,432 B/token; fp8 9,216; MHA 18 × 16 × 128 × 4 = 147,456;
//   ratio 8. seq@4096 = 18,432 × 4,096 = 75,497,472.
golden{.file = "baidu__ERNIE-4.5-0.3B-Base-PT.config.json", .compute = dtype::bf16,
       .layers = 18, .kv_layers = 18, .attention_heads = 16, .kv_heads = 2, .head_dim = 128, .head_dim_v = 128,
       .vocab = 103'424, .kv_per_token = 18'432, .kv_per_token_fp8 = 9'216, .kv_per_token_mha = 147'456,
       .gqa_ratio = 8, .context = 4'096, .kv_per_sequence = 75'497'472, .growth = 18'432},
};
// clang-format on

auto configs_dir() -> std::filesystem::path { return std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs"; }

/// Every configs/*.config.json, by file name, sorted.
auto config_files() -> std::vector<std::string> {
  std::vector<std::string> names;
  constexpr std::string_view suffix = ".config.json";
  for (const auto& entry : std::filesystem::directory_iterator{configs_dir()}) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name.size() > suffix.size() &&
        std::string_view{name}.substr(name.size() - suffix.size()) == suffix) {
      names.push_back(name);
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

auto read_text(const std::filesystem::path& path) -> std::string {
  std::ifstream in{path, std::ios::binary};
  REQUIRE(in.good());
  return {std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{}};
}

/// Bytes one more token adds once every window is full: the full and latent layers only.
auto unwindowed_bytes_per_token(const kvsize::model_spec& m, dtype t) -> std::uint64_t {
  std::uint64_t total = 0;
  for (std::uint32_t il = 0; il < m.layers; ++il) {
    const layer_kind k = kvsize::kind_of_layer(m, il);
    if (k == layer_kind::full || k == layer_kind::latent || k == layer_kind::indexed) {
      total += kvsize::layer_kv_bytes_per_token(m, il, kvsize::kv_dtypes::same(t)).count();
    }
  }
  return total;
}

/// The token counts at which some layer stops growing: W of sliding layers, C of chunked ones.
auto breakpoints(const kvsize::model_spec& m) -> std::vector<std::uint64_t> {
  std::vector<std::uint64_t> points;
  if (kvsize::count_layers(m, layer_kind::sliding) > 0) {
    points.push_back(m.sliding_window);
  }
  if (kvsize::count_layers(m, layer_kind::chunked) > 0) {
    points.push_back(m.attention_chunk);
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  return points;
}

auto seq(const kvsize::model_spec& m, std::uint64_t tokens) -> std::uint64_t {
  return kvsize::kv_bytes_per_sequence(m, tokens).count();
}
auto seq(const kvsize::model_spec& m, std::uint64_t tokens, dtype t) -> std::uint64_t {
  return kvsize::kv_bytes_per_sequence(m, tokens, t).count();
}

}  // namespace

TEST_CASE("hf golden: every config in configs/ has a golden row, and every row a config", "[hf][golden]") {
  std::vector<std::string> rows;
  for (const golden& g : goldens) {
    rows.emplace_back(g.file);
  }
  std::sort(rows.begin(), rows.end());
  CHECK(rows == config_files());
  CHECK(goldens.size() == 66);
}

TEST_CASE("hf golden: each config parses to its hand-derived shape and KV figures", "[hf][golden][kv]") {
  const golden g = GENERATE(from_range(goldens));
  CAPTURE(g.file);
  const auto path = configs_dir() / std::string{g.file};
  const kvsize::hf::parsed_config parsed = kvsize::hf::load_config(path);
  const kvsize::model_spec& m = parsed.spec;

  // load_config(path) and parse_config(text) agree.
  CHECK(kvsize::hf::parse_config(read_text(path), g.file).spec == m);

  // Shape.
  CHECK(m.layers == g.layers);
  CHECK(m.attention_heads == g.attention_heads);
  CHECK(kvsize::effective_kv_heads(m) == g.kv_heads);
  CHECK(kvsize::effective_head_dim(m) == g.head_dim);
  CHECK(kvsize::effective_head_dim_v(m) == g.head_dim_v);
  CHECK(m.vocab_size == g.vocab);
  if (g.dtype_in_config) {
    CHECK(m.compute_dtype == g.compute);
  }

  // Which layers keep what.
  CHECK(kvsize::kv_layers(m) == g.kv_layers);
  CHECK(kvsize::count_layers(m, layer_kind::sliding) == g.sliding);
  CHECK(kvsize::count_layers(m, layer_kind::chunked) == g.chunked);
  CHECK(kvsize::count_layers(m, layer_kind::latent) == g.latent);
  CHECK(kvsize::count_layers(m, layer_kind::none) == g.none);
  CHECK(kvsize::count_layers(m, layer_kind::shared) == g.shared);
  CHECK(kvsize::count_layers(m, layer_kind::indexed) == g.indexed);
  CHECK(kvsize::count_layers(m, layer_kind::full) == g.kv_layers - g.sliding - g.chunked - g.latent - g.indexed);
  CHECK(kvsize::recurrent_layers(m) == g.recurrent);
  if (g.sliding > 0) {
    CHECK(m.sliding_window == g.window);
  }
  if (g.chunked > 0) {
    CHECK(m.attention_chunk == g.chunk);
  }

  // Bytes, at the row's dtype given explicitly (for the rows whose config names no dtype, that the
  // parser's default is that dtype is the separate "without dtype or torch_dtype" case below).
  const dtype t = g.compute;
  CHECK(kvsize::kv_bytes_per_token(m, t).count() == g.kv_per_token);
  CHECK(kvsize::kv_bytes_per_token(m, dtype::fp8_e4m3).count() == g.kv_per_token_fp8);
  CHECK(kvsize::kv_bytes_per_token_mha(m, t).count() == g.kv_per_token_mha);
  CHECK(kvsize::gqa_ratio(m) == static_cast<double>(g.gqa_ratio));
  CHECK(kvsize::state_bytes_per_sequence(m, t).count() == g.state_per_sequence);
  CHECK(seq(m, g.context, t) == g.kv_per_sequence);
  // Past every window, one more token costs exactly the full/latent layers' bytes.
  CHECK(seq(m, g.context + 1, t) - seq(m, g.context, t) == g.growth);
  if (g.dtype_in_config) {  // the one-argument forms use the parsed compute dtype
    CHECK(kvsize::kv_bytes_per_token(m).count() == g.kv_per_token);
    CHECK(kvsize::kv_bytes_per_token_mha(m).count() == g.kv_per_token_mha);
    CHECK(kvsize::state_bytes_per_sequence(m).count() == g.state_per_sequence);
    CHECK(seq(m, g.context) == g.kv_per_sequence);
  }
}

// A config with neither `dtype` nor `torch_dtype` (GPT-2 XL, GPT-OSS-20B/120B). transformers' PretrainedConfig
// leaves torch_dtype None and from_pretrained then loads in torch's default float32; vLLM's _get_and_verify_dtype
// also reads a missing dtype as torch.float32 (its dtype="auto" then *serves* a float32 model in 16 bits, an
// engine choice that the engine profiles model: tests/unit/engine_defaults.test.cpp). The parser reads float32,
// as this file derives, and says so in a warning.
TEST_CASE("hf golden: a config without dtype or torch_dtype is float32 (transformers' reading)",
          "[hf][golden][dtype]") {
  const golden g = GENERATE(filter([](const golden& r) { return !r.dtype_in_config; }, from_range(goldens)));
  CAPTURE(g.file);
  const kvsize::model_spec m = kvsize::hf::load_config(configs_dir() / std::string{g.file}).spec;
  CHECK(m.compute_dtype == dtype::f32);
  // GPT-2 XL 614,400; GPT-OSS-120B 147,456; GPT-OSS-20B 98,304 B/token at 4 B (derivations in the table).
  CHECK(kvsize::kv_bytes_per_token(m).count() == g.kv_per_token);
  CHECK(kvsize::kv_bytes_per_token_mha(m).count() == g.kv_per_token_mha);
  CHECK(seq(m, g.context) == g.kv_per_sequence);
}

TEST_CASE("hf golden: KV bytes per sequence are non-decreasing and linear between the windows", "[hf][golden][kv]") {
  const std::string file = GENERATE(from_range(config_files()));
  CAPTURE(file);
  const kvsize::model_spec m = kvsize::hf::load_config(configs_dir() / file).spec;

  // Segments [0, b1], [b1, b2], ..., [bn, end]: f is affine on each closed segment (second difference 0
  // inside), and the slope drops at each breakpoint as another group of windowed layers stops growing.
  std::vector<std::uint64_t> edges{0};
  for (const std::uint64_t b : breakpoints(m)) {
    edges.push_back(b);
  }
  edges.push_back(edges.back() + std::max<std::uint64_t>(4 * edges.back(), 8'192));
  CHECK(seq(m, 0) == 0);

  std::uint64_t previous_slope = 0;
  for (std::size_t s = 0; s + 1 < edges.size(); ++s) {
    const std::uint64_t a = edges[s];
    const std::uint64_t b = edges[s + 1];
    CAPTURE(a, b);
    REQUIRE(b > a + 1);
    const std::uint64_t slope = seq(m, a + 1) - seq(m, a);
    for (const std::uint64_t x : {a + 1, a + 2, (a + b) / 2, b - 1, b}) {
      CAPTURE(x);
      CHECK(seq(m, x) >= seq(m, x - 1));                 // non-decreasing
      CHECK(seq(m, x) == seq(m, a) + slope * (x - a));  // affine on [a, b]
      if (x < b) {
        CHECK(seq(m, x + 1) + seq(m, x - 1) == 2 * seq(m, x));  // second difference 0 inside
      }
    }
    if (s == 0) {
      CHECK(slope == kvsize::kv_bytes_per_token(m).count());  // below every window: all KV layers grow
    } else {
      CHECK(slope < previous_slope);  // a window filled: its layers stopped growing
    }
    previous_slope = slope;
  }
  // The last segment grows by the non-windowed layers only.
  CHECK(previous_slope == unwindowed_bytes_per_token(m, m.compute_dtype));
}

TEST_CASE("hf golden: windowed layers flatten past their window", "[hf][golden][kv]") {
  const std::string file = GENERATE(from_range(config_files()));
  CAPTURE(file);
  const kvsize::model_spec m = kvsize::hf::load_config(configs_dir() / file).spec;
  const auto points = breakpoints(m);
  const std::uint64_t largest = points.empty() ? 0 : points.back();
  const std::uint64_t growth = unwindowed_bytes_per_token(m, m.compute_dtype);
  for (const std::uint64_t t : {largest, largest + 1, largest + 1'000, 2 * largest + 7, largest + 100'000}) {
    CAPTURE(t);
    CHECK(seq(m, t + 1) - seq(m, t) == growth);
    CHECK(seq(m, t + 1'000) - seq(m, t) == 1'000 * growth);
  }
  if (!points.empty()) {
    // A windowed model keeps less than the same context at full size would.
    CHECK(seq(m, 2 * largest) < kvsize::kv_bytes_per_token(m).count() * (2 * largest));
  }
}

TEST_CASE("hf golden: latent attention ignores num_key_value_heads", "[hf][golden][kv]") {
  // DeepSeek-R1 and Kimi-K2 carry num_key_value_heads = heads next to kv_lora_rank; the latent cache is
  // kv_lora_rank + qk_rope = 576 elements per layer per token whatever it says. Rewrite the key, parse again.
  const auto [file, original] = GENERATE(table<std::string_view, std::string_view>({
      {"deepseek-ai__DeepSeek-R1.config.json", "\"num_key_value_heads\": 128,"},
      {"moonshotai__Kimi-K2-Instruct.config.json", "\"num_key_value_heads\": 64,"},
  }));
  const std::string_view replacement = GENERATE(as<std::string_view>{}, "\"num_key_value_heads\": 1,",
                                                "\"num_key_value_heads\": 8,", "\"num_key_value_heads\": 32,");
  CAPTURE(file, replacement);
  const std::string text = read_text(configs_dir() / std::string{file});
  const auto at = text.find(original);
  REQUIRE(at != std::string::npos);
  REQUIRE(text.find(original, at + 1) == std::string::npos);
  std::string edited = text;
  edited.replace(at, original.size(), replacement);

  const kvsize::model_spec base = kvsize::hf::parse_config(text, file).spec;
  const kvsize::model_spec changed = kvsize::hf::parse_config(edited, file).spec;
  CHECK(kvsize::count_layers(changed, layer_kind::latent) == 61);
  CHECK(kvsize::kv_bytes_per_token(changed) == kvsize::kv_bytes_per_token(base));
  CHECK(kvsize::kv_bytes_per_token(changed).count() == 70'272);  // 61 × 576 × 2 B
  CHECK(kvsize::kv_bytes_per_token(changed, dtype::fp8_e4m3) == kvsize::kv_bytes_per_token(base, dtype::fp8_e4m3));
  CHECK(kvsize::kv_bytes_per_token_mha(changed) == kvsize::kv_bytes_per_token_mha(base));
  CHECK(kvsize::kv_bytes_per_sequence(changed, 100'000) == kvsize::kv_bytes_per_sequence(base, 100'000));
  CHECK(kvsize::gqa_ratio(changed) == kvsize::gqa_ratio(base));
}

TEST_CASE("hf golden: KV with sharing never exceeds KV without it", "[hf][golden][kv]") {
  const std::string file = GENERATE(from_range(config_files()));
  CAPTURE(file);
  const kvsize::model_spec m = kvsize::hf::load_config(configs_dir() / file).spec;
  CHECK(kvsize::kv_bytes_per_token(m) <= kvsize::kv_bytes_per_token_mha(m));
  CHECK(kvsize::kv_bytes_per_token(m, dtype::fp8_e4m3) <= kvsize::kv_bytes_per_token_mha(m, dtype::fp8_e4m3));
  CHECK(kvsize::gqa_ratio(m) >= 1.0);
}

TEST_CASE("hf golden: an fp8 cache is half a bf16 cache, for every config", "[hf][golden][kv]") {
  const std::string file = GENERATE(from_range(config_files()));
  CAPTURE(file);
  const kvsize::model_spec m = kvsize::hf::load_config(configs_dir() / file).spec;
  CHECK(kvsize::kv_bytes_per_token(m, dtype::bf16) == 2 * kvsize::kv_bytes_per_token(m, dtype::fp8_e4m3));
  CHECK(kvsize::kv_bytes_per_token(m, dtype::f32) == 2 * kvsize::kv_bytes_per_token(m, dtype::bf16));
  CHECK(kvsize::kv_bytes_per_token_mha(m, dtype::bf16) == 2 * kvsize::kv_bytes_per_token_mha(m, dtype::fp8_e4m3));
  for (const std::uint64_t t : std::initializer_list<std::uint64_t>{1, 4'096, 131'072}) {
    CAPTURE(t);
    CHECK(kvsize::kv_bytes_per_sequence(m, t, dtype::bf16) ==
          2 * kvsize::kv_bytes_per_sequence(m, t, dtype::fp8_e4m3));
  }
}

TEST_CASE("hf golden: LFM2's layer_types (\"conv\") reads as its launch config's full_attn_idxs", "[hf][golden][lfm2]") {
  // Newer LFM2 configs give the same layers as layer_types ("full_attention" / "conv").
  std::string text = read_text(configs_dir() / "LiquidAI__LFM2-1.2B.config.json");
  const std::string idxs = "\"full_attn_idxs\": [\n    2,\n    5,\n    8,\n    10,\n    12,\n    14\n  ],";
  const auto at = text.find(idxs);
  REQUIRE(at != std::string::npos);
  std::string types = "\"layer_types\": [";
  for (int i = 0; i < 16; ++i) {
    const bool full = i == 2 || i == 5 || i == 8 || i == 10 || i == 12 || i == 14;
    types += std::string(i == 0 ? "" : ", ") + (full ? "\"full_attention\"" : "\"conv\"");
  }
  types += "],";
  text.replace(at, idxs.size(), types);
  const auto a = kvsize::hf::parse_config(text).spec;
  const auto b = kvsize::hf::load_config(configs_dir() / "LiquidAI__LFM2-1.2B.config.json").spec;
  CHECK(a.state == b.state);
  CHECK(kvsize::kv_bytes_per_token(a) == kvsize::kv_bytes_per_token(b));
  for (std::uint32_t il = 0; il < 16; ++il) {
    CHECK(kvsize::kind_of_layer(a, il) == kvsize::kind_of_layer(b, il));
    CHECK(kvsize::layer_keeps_state(a, il) == kvsize::layer_keeps_state(b, il));
  }
}
