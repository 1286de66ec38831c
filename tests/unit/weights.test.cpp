// SPDX-License-Identifier: MIT
// kvsize::weights_bytes (issue 5) on whole models: checkpoint totals of the configs in configs/
// and weight bytes of quantization schemes derived by hand (one matrix per scheme:
// weights_bytes.test.cpp; parameter counts: weights_parameters.test.cpp).
//
// Convention: parameters(spec).total counts module parameters of the language model (what
// model.num_parameters(), keras-hub and GGUF general.parameter_count report). A published
// checkpoint total (Hugging Face safetensors.total, index total_size) can also hold: MTP
// modules (.mtp, .mtp_embeddings), the vision tower (.vision), a tied LM head stored as its own
// tensor (+ .embeddings), Llama-2's rotary inv_freq buffers (+ layers × head_dim / 2) and FP8
// scales; each row says which. Sources: docs/research/param-counts.md (S1-S5 and the
// other sources there; "derivation" marks a count with no exact published figure).
#include <kvsize/hf_config.hpp>
#include <kvsize/kvsize.hpp>
#include <kvsize/weights.hpp>

#include "weights_support.hpp"

#include <catch2/catch_test_macros.hpp>

#include <cstdint>
#include <string>
#include <vector>

using kvsize::bytes;
using kvsize::gguf_ftype;
using kvsize::weights_format;
using namespace kvsize::test::weights_configs;

TEST_CASE("weights_bytes: unquantized checkpoints match their index total_size", "[weights][bytes]") {
  const auto bf16 = kvsize::uniform_weights(kvsize::dtype::bf16);
  CHECK(kvsize::weights_bytes(load("Qwen__Qwen2.5-7B").spec, bf16) == bytes{15'231'233'024});
  CHECK(kvsize::weights_bytes(load("mistralai__Mistral-7B-v0.1").spec, bf16) == bytes{14'483'464'192});
  CHECK(kvsize::weights_bytes(load("meta-llama__Llama-3.1-8B").spec, bf16) == bytes{16'060'522'496});
  CHECK(kvsize::weights_bytes(load("Qwen__Qwen3-235B-A22B").spec, bf16) == bytes{470'187'269'120});
  CHECK(kvsize::weights_bytes(load("mistralai__Mixtral-8x22B-v0.1").spec, bf16) == bytes{281'241'268'224});
  CHECK(kvsize::weights_bytes(load("google__gemma-2-9b").spec, bf16) == bytes{18'483'411'968});  // -it index
  // The old entry point agrees with uniform_weights for float types.
  const auto llama = load("meta-llama__Llama-3.1-8B").spec;
  CHECK(kvsize::weights_bytes(llama, kvsize::uniform_weights(kvsize::dtype::f16)) ==
        kvsize::weights_bytes(std::uint64_t{8'030'261'248}, kvsize::dtype::f16));
}

TEST_CASE("weights_bytes: GPTQ and AWQ, derived by hand", "[weights][bytes][gptq]") {
  // Llama-3.1-8B, 4 bits, group 128. Per layer the linears (in × out) are q 4096×4096,
  // k and v 4096×1024, o 4096×4096, gate and up 4096×14336, down 14336×4096.
  //   qweight  in × out / 2 B:           8,388,608 + 2 × 2,097,152 + 8,388,608 + 3 × 29,360,128 = 109,051,904
  //   scales   (in/128) × out × 2 B (f16): 262,144 + 2 × 65,536 + 262,144 + 3 × 917,504        =   3,407,872
  //   qzeros   (in/128) × out / 2 B:        65,536 + 2 × 16,384 + 65,536 + 3 × 229,376          =     851,968
  //   g_idx    in × 4 B (GPTQ only):        6 × 16,384 + 57,344                                 =     155,648
  // × 32 layers: qweight 3,489,660,928; GPTQ scales+zeros+g_idx 141,295,616 (AWQ 136,314,880).
  // Unquantized (bf16, the config's dtype): embed + lm_head 2 × 128256 × 4096 × 2 = 2,101,346,304,
  // 65 norms × 4096 × 2 = 532,480 → 2,101,878,784.
  const auto m = load("meta-llama__Llama-3.1-8B").spec;
  const auto gptq = kvsize::weights_bytes_detail(m, kvsize::gptq_weights(4, 128));
  CHECK(gptq.quantized == bytes{3'489'660'928});
  CHECK(gptq.scales == bytes{141'295'616});
  CHECK(gptq.unquantized == bytes{2'101'878'784});
  CHECK(gptq.total == bytes{5'732'835'328});
  const auto awq = kvsize::weights_bytes_detail(m, kvsize::awq_weights(4, 128));
  CHECK(awq.scales == bytes{136'314'880});
  CHECK(awq.total == bytes{5'727'854'592});
  // group_size -1 (one group): per linear 1 × out scales and zeros; 8 bits doubles qweight.
  const auto g8 = kvsize::weights_bytes_detail(m, kvsize::gptq_weights(8, 0));
  CHECK(g8.quantized == bytes{2 * 3'489'660'928ULL});
  CHECK(g8.scales == bytes{32 * ((4'096 + 1'024 + 1'024 + 4'096 + 2 * 14'336 + 4'096) * (1 + 2) + 155'648)});
}

TEST_CASE("weights_bytes: FP8 block scales reproduce DeepSeek-R1's published per-dtype totals", "[weights][bytes][fp8]") {
  // HF API for deepseek-ai/DeepSeek-V3 (same checkpoint layout; S4):
  //   {"BF16": 3,918,786,560, "F8_E4M3": 680,571,043,840, "F32": 41,555,600}, total 684,531,386,000.
  // F8: every Linear of the 61 layers and the MTP layer; F32: one weight_scale_inv per 128 × 128
  // block (41,540,496) + e_score_correction_bias (59 × 256 = 15,104); BF16: embeddings, heads,
  // routers, norms and the MTP eh_proj. Bytes: 2 × BF16 + F8 + 4 × F32 = 688,574,839,360.
  const auto r1 = load("deepseek-ai__DeepSeek-R1");
  REQUIRE(r1.quantization);
  REQUIRE(r1.quantization->format);
  weights_format f = *r1.quantization->format;
  CHECK(f.scheme == kvsize::weights_scheme::fp8);
  CHECK(f.block_rows == 128);
  CHECK(f.block_cols == 128);
  f.include_mtp = true;
  const auto b = kvsize::weights_bytes_detail(r1.spec, f);
  CHECK(b.quantized == bytes{680'571'043'840});
  CHECK(b.scales == bytes{4 * 41'540'496ULL});
  CHECK(b.unquantized == bytes{2 * 3'918'786'560ULL + 4 * 15'104ULL});
  CHECK(b.total == bytes{688'574'839'360});
  // Without the MTP layer (what vLLM loads without speculative decoding).
  f.include_mtp = false;
  CHECK(kvsize::weights_bytes(r1.spec, f) < b.total);
  // Kimi-K2-Instruct: the header audit's payload is 1,029,173,256,720 B; ours is 6,832 B less,
  // i.e. the 3,416 bf16 elements by which its HF total exceeds the logical count (unexplained, S5).
  const auto k2 = load("moonshotai__Kimi-K2-Instruct");
  CHECK(kvsize::weights_bytes(k2.spec, *k2.quantization->format) == bytes{1'029'173'256'720ULL - 2 * 3'416});
}

TEST_CASE("parameters: DeepSeek sparse attention's indexer weights give DeepSeek-V3.2's and GLM-5's Hub totals",
          "[weights][parameters][fp8]") {
  // The Hub's safetensors totals (https://huggingface.co/api/models/<repo>?expand[]=safetensors, as quoted in a
  // public table of MoE variants; docs/research/param-counts.md): deepseek-ai/DeepSeek-V3.2 685,355,329,792,
  // DeepSeek-V3.2-Exp 685,396,921,376; zai-org/GLM-5 753,864,139,008, GLM-5-FP8 753,910,024,032.
  // By hand, DeepSeek-V3.2: DeepSeek-R1's 671,026,419,200 + its MTP layer 13,463,426,304 + the indexer in 62
  // layers (61 + MTP): wq_b 64 × 128 × 1,536 = 12,582,912, wk 128 × 7,168 = 917,504, k_norm 2 × 128, weights_proj
  // 64 × 7,168 = 458,752: 13,959,424 a layer, 865,484,288 in all.
  const auto v32 = load("deepseek-ai__DeepSeek-V3.2");
  CHECK(v32.spec.weights.dsa_index_heads == 64);  // index_n_heads
  const auto p = kvsize::parameters(v32.spec);
  CHECK(p.total == 671'026'419'200 + 61ULL * 13'959'424);
  CHECK(p.with_extras == 671'026'419'200 + 13'463'426'304 + 62ULL * 13'959'424);
  CHECK(p.with_extras == 685'355'329'792);
  // -Exp's total also counts one scale per 128 × 128 block of the FP8 matrices: R1's 41,540,496 and, per layer,
  // wq_b's 64 × 12 and wk's 1 × 56 (824; weights_proj stays bf16): 51,088.
  weights_format f = *v32.quantization->format;
  f.include_mtp = true;
  const auto b = kvsize::weights_bytes_detail(v32.spec, f);
  CHECK(b.scales == bytes{4 * (41'540'496ULL + 62 * 824)});
  CHECK(p.with_extras + b.scales.count() / 4 == 685'396'921'376);
  // GLM-5: 78 layers and an MTP layer with no embedding or head of its own (eh_proj, its norms and a decoder
  // layer); the indexer: wq_b 32 × 128 × 2,048 = 8,388,608, wk 128 × 6,144 = 786,432, k_norm 256, weights_proj
  // 32 × 6,144 = 196,608: 9,371,904 a layer, in 79.
  const auto glm5 = load("zai-org__GLM-5");
  CHECK(glm5.spec.weights.dsa_index_heads == 32);
  const auto g = kvsize::parameters(glm5.spec);
  CHECK(g.mtp_embeddings == 0);
  CHECK(g.with_extras == 753'864'139'008);
  // GLM-5-FP8 counts the parameters and one scale per 128 × 128 block: 45,885,024 blocks, over every attention
  // (indexer wq_b and wk included), MLP and expert matrix of the 79 layers.
  weights_format g8 = kvsize::fp8_weights(128, 128);
  g8.include_mtp = true;
  CHECK(g.with_extras + kvsize::weights_bytes_detail(glm5.spec, g8).scales.count() / 4 == 753'910'024'032);
}

TEST_CASE("weights_bytes: MXFP4 reproduces gpt-oss's index total_size", "[weights][bytes][mxfp4]") {
  // Routed experts: 16 B of 4-bit values + 1 E8M0 scale per 32 input features; the rest bf16.
  // gpt-oss-20b: expert weights 24 × 32 × 3 × 2880 × 2880 = 19,110,297,600 elements →
  // 9,555,148,800 B of blocks + 597,196,800 scales (the 597,196,800 by which
  // gpt-oss-safeguard-20b's safetensors total exceeds the parameter count); 1,804,459,584 other
  // parameters × 2 B = 3,608,919,168. Total 13,761,264,768 = model.safetensors.index.json total_size.
  const auto oss = load("openai__gpt-oss-20b");
  REQUIRE(oss.quantization);
  CHECK(oss.quantization->method == "mxfp4");
  REQUIRE(oss.quantization->format);
  const weights_format f = *oss.quantization->format;
  CHECK(f.scheme == kvsize::weights_scheme::mxfp4);
  CHECK(f.unquantized == kvsize::dtype::bf16);  // no dtype key: the rest is taken as bf16 (warned)
  CHECK((f.unquantized_parts & kvsize::part_bit(kvsize::weight_part::attention)) != 0);
  CHECK((f.unquantized_parts & kvsize::part_bit(kvsize::weight_part::router)) != 0);
  CHECK((f.unquantized_parts & kvsize::part_bit(kvsize::weight_part::embeddings)) != 0);
  CHECK((f.unquantized_parts & kvsize::part_bit(kvsize::weight_part::lm_head)) != 0);
  const auto b = kvsize::weights_bytes_detail(oss.spec, f);
  CHECK(b.quantized == bytes{9'555'148'800});
  CHECK(b.scales == bytes{597'196'800});
  CHECK(b.total == bytes{13'761'264'768});
  // gpt-oss-120b: the tensor bytes 65,248,815,744 of a public checkpoint inventory.
  const auto big = load("openai__gpt-oss-120b");
  CHECK(kvsize::weights_bytes(big.spec, *big.quantization->format) == bytes{65'248'815'744});
}

TEST_CASE("weights_bytes: GGUF presets with llama.cpp's per-tensor rules", "[weights][bytes][gguf]") {
  // Q4_0 of Llama-2-7B: llama-bench's README JSON ("llama 7B mostly Q4_0", model_size
  // 3,825,065,984, model_n_params 6,738,415,616). token_embd q4_0: 131,072,000 × 18/32 =
  // 73,728,000; output q6_K: 131,072,000 × 210/256 = 107,520,000; layer matrices q4_0:
  // 32 × 202,375,168 × 18/32 = 3,642,753,024; 65 norms f32: 65 × 4096 × 4 = 1,064,960.
  const auto llama2 = load("meta-llama__Llama-2-7b-hf").spec;
  CHECK(kvsize::weights_bytes(llama2, kvsize::gguf_weights(gguf_ftype::q4_0)) == bytes{3'825'065'984});
  // Q4_K_M of Llama-3.1-8B: llama-server /v1/models meta {n_params 8030261248, size 4912898048}
  // (a public log). q4_K base, output q6_K, attn_v and ffn_down q6_K on the 16 use_more_bits layers.
  const auto llama3 = load("meta-llama__Llama-3.1-8B").spec;
  CHECK(kvsize::weights_bytes(llama3, kvsize::gguf_weights(gguf_ftype::q4_K_M)) == bytes{4'912'898'048});
  // Q8_0: every matrix 34 B per 32 (output too, under q8_0), norms f32:
  // (8,030,261,248 − 266,240) × 34 / 32 = 8,531,869,696 + 266,240 × 4 = 8,532,934,656.
  const auto q8 = kvsize::weights_bytes_detail(llama3, kvsize::gguf_weights(gguf_ftype::q8_0));
  CHECK(q8.quantized == bytes{8'531'869'696});
  CHECK(q8.unquantized == bytes{1'064'960});
  // A tied model's token embedding follows the output rule. Qwen2.5-1.5B's 1536-wide rows are
  // 6 × 256, so nothing falls back there; Qwen2.5-0.5B's 896-wide rows are not multiples of 256
  // (its exact Q4_K_M bytes, with the fallbacks, are in the next test case).
  const auto qwen = load("Qwen__Qwen2.5-1.5B").spec;
  const auto q4km = kvsize::weights_bytes(qwen, kvsize::gguf_weights(gguf_ftype::q4_K_M));
  CHECK(q4km > kvsize::weights_bytes(qwen, kvsize::gguf_weights(gguf_ftype::q4_0)));
  // Exact sizes: q4_K = 144 B / 256.
  CHECK(kvsize::traits(kvsize::ggml_type::q4_K).block_bytes == 144);
  CHECK(kvsize::traits(kvsize::ggml_type::q5_K).block_bytes == 176);
  CHECK(kvsize::traits(kvsize::ggml_type::q6_K).block_bytes == 210);
  CHECK(kvsize::parse_gguf_ftype("Q4_K_M") == gguf_ftype::q4_K_M);
  CHECK_FALSE(kvsize::parse_gguf_ftype("q4_K_X"));
  // --weights-dtype: GGML names are llama.cpp presets; other names a uniform element type.
  CHECK(kvsize::parse_weights_format("q8_0")->scheme == kvsize::weights_scheme::gguf);
  CHECK(kvsize::parse_weights_format("bf16")->scheme == kvsize::weights_scheme::uniform);
  // An element type is the published checkpoint in it: --weights-dtype bf16 gives the default bf16 figure.
  CHECK(kvsize::parse_weights_format("bf16") == kvsize::published_weights(kvsize::dtype::bf16));
  CHECK(kvsize::parse_weights_format("fp8") == kvsize::published_weights(kvsize::dtype::fp8_e4m3));
  CHECK_FALSE(kvsize::parse_weights_format("q9_K"));
}

// GGUF rules checked against llama.cpp src/llama-quant.cpp at ggml-org/llama.cpp@8784689fee07
// (llama_tensor_get_type); docs/research/gguf-rules.md has the table. Block sizes (ggml-common.h):
// q4_0 18 B, q5_0 22 B, q8_0 34 B per 32; q4_K 144 B, q5_K 176 B, q6_K 210 B per 256. So per
// element: q4_0 = q4_K = 0.5625 B, q5_0 = 0.6875 B, q5_K = 0.6875 B, q6_K = 0.8203125 B, q8_0 = 1.0625 B.
TEST_CASE("weights_bytes: GGUF, published llama-bench sizes", "[weights][bytes][gguf][published]") {
  // Qwen2.5-7B(-Instruct) Q4_K_M: ggml-org/llama.cpp tools/llama-bench/README.md, JSON/CSV example
  // output (build 8cf427ff, models/Qwen2.5-7B-Instruct-Q4_K_M.gguf): model_size 4677120000,
  // model_n_params 7615616512. model_size is the sum of the tensors' bytes (no header/metadata).
  // By hand (28 layers, hidden 3584, 4 KV heads of 128, FFN 18944, vocab 152064, untied):
  //   token_embd q4_K 544,997,376 × 0.5625 = 306,561,024; output q6_K × 0.8203125 = 447,068,160;
  //   q, k, o, gate, up q4_K: 28 × 163,315,712 × 0.5625 = 2,572,222,464;
  //   use_more_bits(i, 28) holds for 14 layers (0-2, 5, 8, 11, 14, 17, 20, 23, 24-27):
  //   attn_v (1,835,008) 14 × 1,505,280 (q6_K) + 14 × 1,032,192 (q4_K) = 35,524,608;
  //   ffn_down (67,895,296) 14 × 55,695,360 + 14 × 38,191,104 = 1,314,410,496;
  //   f32 norms and Q/K/V biases: (28 × (2 × 3584 + 4608) + 3584) × 4 = 1,333,248.
  //   Sum 4,677,120,000.
  CHECK(kvsize::weights_bytes(load("Qwen__Qwen2.5-7B").spec, kvsize::gguf_weights(gguf_ftype::q4_K_M)) ==
        bytes{4'677'120'000});

  // Mixtral-8x7B Q4_K_M, the 8-expert rules (llama-quant.cpp@8784689: attn_v and attn_k q8_0 when
  // n_expert == 8, attn_output q5_K under q4_K_M, ffn_down_exps by the block index in the name).
  // By hand (32 layers, hidden 4096, 8 KV heads of 128, 8 experts of 14336, vocab 32000):
  //   token_embd q4_K 131,072,000 × 0.5625 = 73,728,000; output q6_K = 107,520,000;
  //   per layer: attn_q q4_K 9,437,184; attn_k q8_0 4,194,304 × 1.0625 = 4,456,448; attn_v q8_0
  //   4,456,448; attn_output q5_K 16,777,216 × 0.6875 = 11,534,336; gate_exps and up_exps q4_K
  //   2 × 264,241,152; router f32 131,072; 2 norms 32,768: 558,530,560, × 32 = 17,872,977,920;
  //   ffn_down_exps (469,762,048): use_more_bits(i, 32) on 16 layers: 16 × 385,351,680 (q6_K)
  //   + 16 × 264,241,152 (q4_K) = 10,393,485,312; output norm 16,384.
  //   Sum 28,447,727,616 = 26.494 GiB.
  const auto mixtral = load("mistralai__Mixtral-8x7B-v0.1").spec;
  const bytes mixtral_q4km = kvsize::weights_bytes(mixtral, kvsize::gguf_weights(gguf_ftype::q4_K_M));
  CHECK(mixtral_q4km == bytes{28'447'727'616});
  // Published, rounded: llama-bench "llama 8x7B Q4_K - Medium | 26.49 GiB | 46.70 B" (Vulkan,
  // build 067de93; a public benchmark table). The old rule (attn_k
  // left at q4_K: 32 × 2,097,152 B less, 28,380,618,752 = 26.43 GiB) falls outside 26.49.
  constexpr std::uint64_t gib = 1'073'741'824;
  CHECK(mixtral_q4km.count() * 1000 >= 26'485 * gib);
  CHECK(mixtral_q4km.count() * 1000 < 26'495 * gib);
}

TEST_CASE("weights_bytes: GGUF rules fixed against llama-quant.cpp, derived by hand", "[weights][bytes][gguf]") {
  using kvsize::ggml_type;
  using kvsize::tensor_role;
  using kvsize::weight_part;
  using kvsize::weight_tensor;

  SECTION("attn_k is q8_0 in 8-expert models only (llama-quant.cpp@8784689, attn_k.weight branch)") {
    const weight_tensor k{weight_part::attention, tensor_role::attn_k, 0, 1'024, 4'096, 1};
    kvsize::detail::gguf_state eight;
    eight.n_layer = 32;
    eight.n_expert = 8;
    CHECK(kvsize::detail::gguf_matrix_type(k, gguf_ftype::q4_0, false, eight) == ggml_type::q8_0);
    CHECK(kvsize::detail::gguf_matrix_type(k, gguf_ftype::q4_K_M, false, eight) == ggml_type::q8_0);
    kvsize::detail::gguf_state sixteen = eight;
    sixteen.n_expert = 16;
    CHECK(kvsize::detail::gguf_matrix_type(k, gguf_ftype::q4_K_M, false, sixteen) == ggml_type::q4_K);
  }

  SECTION("ffn_down without experts: the layer is the count of FFNs so far (layer_info)") {
    // 32 attention layers (4 heads of 64, hidden 256, vocab 512), an FFN of 512 only on layers
    // 8-15, Q4_K_M. llama.cpp numbers those ffn_down tensors 0-7 against n = 32 (i_ffn_down,
    // n_ffn_down = hparams.n_layer): use_more_bits holds for 0, 1, 2, 3 and 6, so 5 q6_K and
    // 3 q4_K (block indices 8-15 would give 9, 12, 15: 3 q6_K).
    //   token_embd q4_K 131,072 × 0.5625 = 73,728; output q6_K 107,520;
    //   q, k, o q4_K: 32 × 3 × 36,864 = 3,538,944;
    //   attn_v: use_more_bits(i, 32) on 16 of 32: 16 × 53,760 + 16 × 36,864 = 1,449,984;
    //   gate, up q4_K: 8 × 2 × 73,728 = 1,179,648;
    //   ffn_down (131,072): 5 × 107,520 + 3 × 73,728 = 758,784;
    //   f32 norms: (32 + 8 + 1) × 256 × 4 = 41,984.
    //   Sum 7,150,592 (the block index rule gave 67,584 B less).
    kvsize::model_spec m{.layers = 32, .attention_heads = 4, .kv_heads = 4, .head_dim = 64, .hidden_size = 256,
                         .vocab_size = 512, .intermediate_size = 512};
    for (std::uint32_t il = 0; il < 32; ++il) {
      m.weights.layer[il].ffn = (il >= 8 && il < 16) ? kvsize::ffn_kind::dense : kvsize::ffn_kind::none;
    }
    CHECK(kvsize::weights_bytes(m, kvsize::gguf_weights(gguf_ftype::q4_K_M)) == bytes{7'150'592});

    // Nemotron-H-56B (118 blocks, no experts; an MLP only on the 54 "-" blocks of its pattern
    // M-M-M-M*-...): under q3_K_M the FFNs numbered below n/16 = 7 get q5_K, i.e. the first 7
    // MLPs (blocks 1, 3, 5, 8, 10, 12, 14), not the 3 MLPs among blocks 0-6.
    const auto nemotron = load("nvidia__Nemotron-H-56B-Base-8K").spec;
    kvsize::detail::gguf_state s;
    s.n_layer = nemotron.layers;
    int q5 = 0;
    kvsize::for_each_weight(nemotron, [&](const weight_tensor& t) {
      if (t.role == tensor_role::ffn_down &&
          kvsize::detail::gguf_matrix_type(t, gguf_ftype::q3_K_M, false, s) == ggml_type::q5_K) {
        ++q5;
      }
    });
    CHECK(q5 == 7);
  }

  SECTION("an MTP block's embedding/head copies take the base type, not the output rule") {
    // 2 layers + 1 MTP block with its own embed/head copies (hidden 256, vocab 512, 4 heads of 64,
    // FFN 512), Q4_0, MTP included. llama.cpp names the copies blk.2.nextn.embed_tokens and
    // blk.2.nextn.shared_head_head: neither is output.weight, so q4_0 (0.5625 B) like the rest.
    //   token_embd q4_0 73,728; output q6_K 107,520;
    //   3 blocks × (4 × 65,536 + 3 × 131,072) × 0.5625 = 1,105,920;
    //   eh_proj 256 × 512 q4_0 = 73,728; embed copy 73,728; head copy 73,728 (was q6_K 107,520);
    //   f32 norms: (2 × 2 + 5 + 1) × 256 × 4 = 10,240.
    //   Sum 1,518,592.
    kvsize::model_spec m{.layers = 2, .attention_heads = 4, .kv_heads = 4, .head_dim = 64, .hidden_size = 256,
                         .vocab_size = 512, .intermediate_size = 512};
    m.weights.mtp_layers = 1;
    m.weights.mtp_embeddings = true;
    weights_format f = kvsize::gguf_weights(gguf_ftype::q4_0);
    f.include_mtp = true;
    CHECK(kvsize::weights_bytes(m, f) == bytes{1'518'592});
  }

  SECTION("Qwen2.5-0.5B Q4_K_M: 896-wide rows fall back (convert_incompatible_tensor)") {
    // 24 layers, hidden 896 (3.5 × 256), 2 KV heads of 64, FFN 4864 (19 × 256), vocab 151936, tied.
    //   token_embd = tied output: 896 % 256 != 0 → q8_0: 136,134,656 × 1.0625 = 144,643,072;
    //   q, k, o, gate, up q4_K → q5_0 (rows of 896): 24 × 10,436,608 × 0.6875 = 172,204,032;
    //   attn_v (114,688) on the 12 use_more_bits(i, 24) layers q6_K → q8_0: 12 × 121,856,
    //   else q4_K → q5_0: 12 × 78,848; together 2,408,448;
    //   ffn_down (rows of 4864 keep K-types): 12 × 3,575,040 (q6_K) + 12 × 2,451,456 (q4_K) = 72,317,952;
    //   f32 norms and Q/K/V biases: (24 × (2 × 896 + 1152) + 896) × 4 = 286,208.
    //   Sum 391,859,712.
    CHECK(kvsize::weights_bytes(load("Qwen__Qwen2.5-0.5B").spec, kvsize::gguf_weights(gguf_ftype::q4_K_M)) ==
          bytes{391'859'712});
  }
}

TEST_CASE("weights_bytes: bitsandbytes, derived by hand", "[weights][bytes][bnb]") {
  // Llama-3.1-8B: 6,979,321,856 elements in quantized Linear weights (7 per layer, 32 layers).
  //   nf4: ceil(n/2) = 3,489,660,928 B; absmax float32 per 64: 6,979,321,856 / 64 × 4 = 436,207,616;
  //        + a 16-entry float32 code per tensor: 224 × 64 = 14,336 → scales 436,221,952.
  //   int8: n B + one float32 SCB per output row: 32 × (4096 + 1024 + 1024 + 4096 + 2 × 14336 + 4096) × 4 = 5,505,024.
  const auto m = load("meta-llama__Llama-3.1-8B").spec;
  const auto nf4 = kvsize::weights_bytes_detail(m, kvsize::bnb_4bit_weights());
  CHECK(nf4.quantized == bytes{3'489'660'928});
  CHECK(nf4.scales == bytes{436'221'952});
  const auto int8 = kvsize::weights_bytes_detail(m, kvsize::bnb_8bit_weights());
  CHECK(int8.quantized == bytes{6'979'321'856});
  CHECK(int8.scales == bytes{5'505'024});
  CHECK(kvsize::weights_bytes(m, kvsize::bnb_4bit_weights(true)) < nf4.total);  // double quant
}
