// SPDX-License-Identifier: MIT
// kvsize/weights_bytes.hpp: each scheme's step on one matrix, derived by hand from the layouts its
// comment names, and which tensors each scheme quantizes. The totals against published
// checkpoints are in weights.test.cpp.
#include <catch2/catch_test_macros.hpp>

#include <kvsize/weights_bytes.hpp>

namespace {
using kvsize::tensor_role;
using kvsize::weight_part;
using kvsize::weight_tensor;
namespace d = kvsize::detail;

// One 4096 × 4096 matrix (rows = out, cols = in).
// GPTQ 4-bit, group 128: qweight 4096·4/32 × 4096 int32 = 8,388,608 B; 32 groups: qzeros 32 × 512
// int32 = 65,536, scales 32 × 4096 f16 = 262,144, g_idx 4096 int32 = 16,384.
constexpr auto gptq = d::gptq_awq_bytes(kvsize::gptq_weights(4, 128), 4'096, 4'096);
static_assert(gptq.data == 8'388'608 && gptq.scales == 65'536 + 262'144 + 16'384);
// AWQ: the same qweight size (transposed packing), no g_idx.
constexpr auto awq = d::gptq_awq_bytes(kvsize::awq_weights(4, 128), 4'096, 4'096);
static_assert(awq.data == 8'388'608 && awq.scales == 65'536 + 262'144);
// One group (group_size 0): 1 qzeros row and 1 scales row.
static_assert(d::gptq_awq_bytes(kvsize::gptq_weights(4, 0), 4'096, 4'096).scales == 2'048 + 8'192 + 16'384);
// FP8 128 × 128: 1 B per value, 32 × 32 float32 scales.
constexpr auto fp8 = d::fp8_bytes(kvsize::fp8_weights(), 4'096, 4'096);
static_assert(fp8.data == 16'777'216 && fp8.scales == 4'096);
static_assert(d::fp8_bytes(kvsize::fp8_weights(0, 0), 4'096, 4'096).scales == 4);  // per tensor
// LLM.int8: int8 values, a float32 per row.
static_assert(d::bnb_8bit_bytes(4'096, 4'096).scales == 16'384);
// NF4, block 64: 262,144 absmax floats + the 16-entry code; double quant: a byte per block, a
// float per 256 blocks (1,024), the 256-entry code and its offset (1,028 B), + the 16-entry code.
constexpr auto nf4 = d::bnb_4bit_bytes(kvsize::bnb_4bit_weights(), 4'096, 4'096);
static_assert(nf4.data == 8'388'608 && nf4.scales == 262'144 * 4 + 64);
static_assert(d::bnb_4bit_bytes(kvsize::bnb_4bit_weights(true), 4'096, 4'096).scales == 262'144 + 4'096 + 1'028 + 64);
// MXFP4 on a gpt-oss expert row of 2880: 90 blocks of 32 per row, 16 B + 1 scale byte each.
constexpr auto mx = d::mxfp4_bytes(2'880, 2'880);
static_assert(mx.data == 90ULL * 2'880 * 16 && mx.scales == 90ULL * 2'880);

// What each scheme quantizes.
constexpr weight_tensor q{weight_part::attention, tensor_role::attn_q, 0, 4'096, 4'096, 1};
constexpr weight_tensor router{weight_part::router, tensor_role::router, 0, 8, 4'096, 1};
constexpr weight_tensor expert{weight_part::experts_routed, tensor_role::ffn_up, 0, 2'880, 2'880, 32};
static_assert(d::quantizes(kvsize::gptq_weights(4, 128), q, false));
static_assert(!d::quantizes(kvsize::gptq_weights(4, 128), router, false));
static_assert(d::quantizes(kvsize::bnb_4bit_weights(), router, false));  // bitsandbytes replaces every nn.Linear
// ... but a module the class keeps in float32 (ERNIE-4.5-MoE's gate.weight, _keep_in_fp32_modules_strict)
static_assert(!d::quantizes(kvsize::bnb_8bit_weights(), router, true) && d::quantizes(kvsize::fp8_weights(), q, true));
static_assert(d::quantizes(kvsize::mxfp4_weights(), expert, false) && !d::quantizes(kvsize::mxfp4_weights(), q, false));
constexpr kvsize::weights_format attention_kept = [] {
  kvsize::weights_format f = kvsize::fp8_weights();
  f.unquantized_parts = kvsize::part_bit(weight_part::attention);
  return f;
}();
static_assert(!d::quantizes(attention_kept, q, false));  // modules_to_not_convert
// What a format stores: MTP modules only with include_mtp, the vision tower unless include_vision is off.
constexpr weight_tensor mtp{weight_part::mtp, tensor_role::attn_q, 61, 1, 1, 1};
static_assert(!d::stores(kvsize::uniform_weights(kvsize::dtype::bf16), mtp));
constexpr weight_tensor vision{weight_part::vision, tensor_role::vision, kvsize::no_layer, 1, 1'000, 1};
static_assert(d::stores(kvsize::uniform_weights(kvsize::dtype::bf16), vision));
constexpr kvsize::weights_format text_only = [] {
  kvsize::weights_format f = kvsize::gguf_weights(kvsize::gguf_ftype::q4_K_M);
  f.include_vision = false;
  return f;
}();
static_assert(!d::stores(text_only, vision));
}  // namespace

TEST_CASE("weights_bytes: a spec's bytes are the sum of the steps", "[weights][bytes]") {
  // 1 layer, hidden 256, 4 heads of 64 (MHA), FFN 512, vocab 512, untied; f16 compute dtype.
  // GPTQ 4-bit, group 128 quantizes Q, K, V, O (256 × 256) and gate, up (512 × 256), down (256 × 512);
  // embeddings, head (2 × 512 × 256) and 3 norms (3 × 256) stay f16.
  kvsize::model_spec m{.layers = 1, .attention_heads = 4, .head_dim = 64, .hidden_size = 256, .vocab_size = 512,
                       .intermediate_size = 512};
  m.compute_dtype = kvsize::dtype::f16;
  const auto f = kvsize::gptq_weights(4, 128);
  const auto square = d::gptq_awq_bytes(f, 256, 256);
  const auto up = d::gptq_awq_bytes(f, 512, 256);
  const auto down = d::gptq_awq_bytes(f, 256, 512);
  const auto b = kvsize::weights_bytes_detail(m, f);
  CHECK(b.quantized.count() == 4 * square.data + 2 * up.data + down.data);
  CHECK(b.scales.count() == 4 * square.scales + 2 * up.scales + down.scales);
  CHECK(b.unquantized.count() == (2 * 512 * 256 + 3 * 256) * 2);
  CHECK(b.total == b.quantized + b.scales + b.unquantized);
}
