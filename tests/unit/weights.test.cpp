// SPDX-License-Identifier: MIT
// kvsize::parameters and kvsize::weights_bytes (issue 5): published parameter counts of the
// configs in configs/, and weight bytes of quantization schemes derived by hand.
//
// Convention: parameters(spec).total counts module parameters of the language model (what
// model.num_parameters(), keras-hub and GGUF general.parameter_count report). A published
// checkpoint total (Hugging Face safetensors.total, index total_size) can also hold: MTP
// modules (.mtp, .mtp_embeddings), the vision tower (.vision), a tied LM head stored as its own
// tensor (+ .embeddings), Llama-2's rotary inv_freq buffers (+ layers × head_dim / 2) and FP8
// scales; each row below says which. Sources: docs/research/param-counts.md (S1-S5 and the
// search ids there; "derivation" marks a count with no exact published figure).
#include <kvsize/hf_config.hpp>
#include <kvsize/kvsize.hpp>
#include <kvsize/weights.hpp>

#include <catch2/catch_test_macros.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#ifndef KVSIZE_SOURCE_DIR
#error "define KVSIZE_SOURCE_DIR as the project root (the CMake build does)"
#endif

namespace {

namespace fs = std::filesystem;
using kvsize::bytes;
using kvsize::gguf_ftype;
using kvsize::weights_format;

auto load(const std::string& name) -> kvsize::hf::parsed_config {
  return kvsize::hf::load_config(fs::path(KVSIZE_SOURCE_DIR) / "configs" / (name + ".config.json"));
}

auto params(const std::string& name) -> kvsize::parameter_breakdown { return kvsize::parameters(load(name).spec); }

}  // namespace

TEST_CASE("parameters: published module-parameter counts equal total", "[weights][published]") {
  struct row {
    const char* config;
    std::uint64_t published;
    const char* source;
  };
  const std::vector<row> rows{
      {"Qwen__Qwen2.5-0.5B", 494'032'768, "HF safetensors.total of -Instruct (S3); card 0.49B"},
      {"Qwen__Qwen2.5-1.5B", 1'543'714'304, "HF safetensors.total of -Instruct (S3); issue 5 anchor"},
      {"Qwen__Qwen2.5-7B", 7'615'616'512, "HF safetensors.total (S3); index total_size 15,231,233,024 bf16"},
      {"Qwen__Qwen2.5-72B", 72'706'203'648, "keras-hub qwen2.5_instruct_72b_en params; S2"},
      {"Qwen__Qwen3-8B", 8'190'735'360, "HF API {BF16: 8190735360} (id 67469160833)"},
      {"Qwen__Qwen3-32B", 32'762'123'264, "S2, S3"},
      {"Qwen__Qwen3-30B-A3B", 30'532'122'624, "GGUF general.parameter_count; header-sum check (id 68391653552)"},
      {"Qwen__Qwen3-235B-A22B", 235'093'634'560, "HF API {BF16: 235093634560}; keras-hub"},
      {"meta-llama__Llama-2-7b-hf", 6'738'415'616, "keras-hub params; PEFT 'all params'; llama-bench model_n_params"},
      {"meta-llama__Llama-2-70b-hf", 68'976'648'192, "Together SDK table; training logs"},
      {"meta-llama__Llama-3.1-8B", 8'030'261'248, "HF safetensors.total (S1, rev d04e592b); issue 5 anchor"},
      {"meta-llama__Llama-3.1-70B", 70'553'706'496, "HF safetensors.total (S1, rev 349b2ddb)"},
      {"meta-llama__Llama-3.1-405B", 405'853'388'800, "HF safetensors.total (S1, rev b906e4dc)"},
      {"meta-llama__Llama-3.2-1B-Instruct", 1'235'814'400, "HF safetensors.total (S3); GPTQModel LLAMA_3_2_1B_PARAMETER_COUNT"},
      {"mistralai__Mistral-7B-v0.1", 7'241'732'096, "S2; index total_size 14,483,464,192 bf16; issue 5 anchor"},
      {"mistralai__Mixtral-8x7B-v0.1", 46'702'792'704, "keras-hub mixtral_8_7b_en params; HF total of -Instruct"},
      {"mistralai__Mixtral-8x22B-v0.1", 140'620'634'112, "HF total (mistral-community); index 281,241,268,224 bf16"},
      {"google__gemma-2b-it", 2'506'172'416, "keras-hub; issue 5 anchor"},
      {"google__gemma-2-9b", 9'241'705'984, "HF API safetensors.total; keras-hub gemma2_9b_en; GGUF parameter_count"},
      {"microsoft__Phi-3-mini-4k-instruct", 3'821'079'552, "HF API NumWeights; keras-hub phi3_mini_4k_instruct_en; S2, S3"},
      {"microsoft__phi-4", 14'659'507'200, "GGUF general.parameter_count; NeMo customizer num_parameters; S2, S3"},
      {"openai-community__gpt2-xl", 1'557'611'200, "keras-hub gpt2_extra_large_en params"},
      {"togethercomputer__RedPajama-INCITE-7B-Base", 6'857'302'016, "Together SDK model_param_count (id 4120541175)"},
      {"THUDM__chatglm3-6b", 6'243'584'000, "model.num_parameters() in fine-tuning logs; PEFT 'all params'"},
      {"deepseek-ai__DeepSeek-R1", 671'026'419'200, "README 671B main model; HF per-dtype totals (below)"},
      {"moonshotai__Kimi-K2-Instruct", 1'026'408'232'448, "safetensors header audit, logical params (S5)"},
      {"zai-org__GLM-4.5", 352'797'829'024, "calculator unit test, 'glm-4.7' without MTP (id 53856668549)"},
      {"openai__gpt-oss-20b", 20'914'757'184, "GGUF general.parameter_count (Ollama); S2, S3; card 20.9B"},
      {"openai__gpt-oss-120b", 116'829'156'672, "GGUF general.parameter_count (Ollama); S2, S3; card 116.8B"},
      {"nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", 31'577'940'288, "llama-bench model_n_params; llama-server n_params"},
  };
  for (const auto& r : rows) {
    INFO(r.config << " — " << r.source);
    CHECK(params(r.config).total == r.published);
  }
}

TEST_CASE("parameters: published checkpoint totals = total + the separate terms", "[weights][published]") {
  // Vision towers and projectors (has_vision; never in total).
  const auto vl = params("Qwen__Qwen2.5-VL-7B-Instruct");  // HF numParameters; SFT log "visual 676550144"
  CHECK(vl.total == 7'615'616'512);
  CHECK(vl.vision == 676'550'144);
  CHECK(vl.has_vision);
  CHECK(vl.with_extras == 8'292'166'656);
  CHECK(params("google__gemma-3-4b-it").with_extras == 4'300'079'472);    // S2, S3 (SigLIP + projector)
  CHECK(params("google__gemma-3-4b-it").total == 3'880'263'168);
  CHECK(params("google__gemma-3-27b-it").with_extras == 27'432'406'640);  // S2; keras-hub MedGemma 27B
  CHECK(params("llava-hf__llava-1.5-7b-hf").with_extras == 7'063'427'072);  // count_parameters test
  CHECK(params("llava-hf__llava-1.5-7b-hf").vision == 303'507'456 + 20'979'712);  // CLIP ViT-L/14-336 + projector
  const auto scout = params("meta-llama__Llama-4-Scout-17B-16E-Instruct");  // HF total (S2, S3)
  CHECK(scout.total == 107'769'861'120);
  CHECK(scout.with_extras == 108'641'793'536);

  // Multi-token prediction.
  const auto r1 = params("deepseek-ai__DeepSeek-R1");
  CHECK(r1.mtp == 11'610'068'224);            // layer 61 without its embed/head copies
  CHECK(r1.mtp_embeddings == 2 * 129'280ULL * 7'168);
  CHECK(r1.with_extras == 684'489'845'504);  // HF total 684,531,386,000 minus 41,540,496 FP8 scales (below)
  const auto glm = params("zai-org__GLM-4.5");
  CHECK(glm.with_extras == 358'337'791'296);  // HF total (S2); the calculator test "with MTP"
  const auto next = params("Qwen__Qwen3-Next-80B-A3B-Thinking");
  CHECK(next.total == 79'674'391'296);
  CHECK(next.total + next.mtp == 81'324'862'720);  // HF total (S2): mtp.* module, not announced by the config

  // Tied heads the checkpoint stores anyway, and Llama-2's rotary inv_freq buffers: not in the
  // config, so the test adds them.
  const auto qwen3 = params("Qwen__Qwen3-0.6B");
  CHECK(qwen3.total == 596'049'920);
  CHECK(qwen3.total + qwen3.embeddings == 751'632'384);  // HF total (S3): a separate lm_head.weight
  const auto falcon7 = params("tiiuae__falcon-7b");
  CHECK(falcon7.total + falcon7.embeddings == 7'217'189'760);  // training config model_size (id 14269230532)
  const auto falcon40 = params("tiiuae__falcon-40b");
  CHECK(falcon40.total + falcon40.embeddings == 41'835'970'560);  // model catalog total_parameters
  CHECK(params("meta-llama__Llama-2-7b-hf").total + 32 * 64 == 6'738'417'664);    // HF total (S1)
  CHECK(params("meta-llama__Llama-2-70b-hf").total + 80 * 64 == 68'976'653'312);  // HF total (S1)
}

TEST_CASE("parameters: derivations without an exact published figure", "[weights]") {
  // transformers' module trees as in docs/research/derive_params.py; published only rounded.
  CHECK(params("CohereForAI__c4ai-command-r-v01").total == 34'980'831'232);  // card "35 billion"
  CHECK(params("mosaicml__mpt-7b-instruct").total == 6'649'286'656);         // blog "6.7B"
  CHECK(params("nvidia__Nemotron-H-56B-Base-8K").total == 56'324'350'464);
  CHECK(params("nvidia__Llama-3_3-Nemotron-Super-49B-v1").total == 49'867'145'216);  // GGUF page "49.9B"
}

TEST_CASE("parameters: Jamba-v0.1, Mamba1 mixers and experts on every other layer", "[weights]") {
  // By hand from the config (JambaForCausalLM in transformers): hidden 4,096, vocab 65,536 untied,
  // 32 layers, attention at i % 8 == 4 (4 layers), Mamba1 elsewhere (28), MoE at i % 2 == 1 (16 layers
  // of 16 experts, top 2), a dense MLP (intermediate 14,336) on the other 16.
  //   embeddings + LM head   2 × 65,536 × 4,096                                   =    536,870,912
  //   norms                  32 × 2 × 4,096 + 4,096                               =        266,240
  //   attention (4)          4,096 × (4,096 + 1,024 + 1,024) + 4,096 × 4,096, × 4 =    167,772,160
  //   Mamba1 (28)            d_inner 8,192, d_state 16, d_conv 4, dt_rank 256:
  //                          in_proj 4,096 × 16,384 = 67,108,864; conv1d 8,192 × 4 + bias 8,192 = 40,960;
  //                          x_proj 8,192 × 288 = 2,359,296; dt_proj 256 × 8,192 + bias 8,192 = 2,105,344;
  //                          A_log 8,192 × 16 = 131,072; D 8,192; dt/B/C norms 256 + 16 + 16 = 288;
  //                          out_proj 8,192 × 4,096 = 33,554,432; sum 105,308,448, × 28 =   2,948,636,544
  //   dense MLPs (16)        3 × 4,096 × 14,336 = 176,160,768, × 16                 =  2,818,572,288
  //   MoE (16)               router 4,096 × 16 + 16 × 176,160,768, × 16             = 45,098,205,184
  //   total                                                                         = 51,570,323,328
  // Card: "52B total parameters, 12B active"; a third-party reproduction of the checkpoint prints the
  // same 51,570,323,328 (public code search id 69433612685).
  const auto p = params("ai21labs__Jamba-v0.1");
  CHECK(p.total == 51'570'323'328);
  CHECK(p.recurrent == 2'948'636'544);
  // Active: 2 of 16 experts per MoE layer: 51,570,323,328 − 16 × 14 × 176,160,768 = 12,110,311,296.
  CHECK(p.active == 12'110'311'296);
}

TEST_CASE("parameters: terms add up; MoE active parameters", "[weights]") {
  const auto p = params("deepseek-ai__DeepSeek-R1");
  CHECK(p.embeddings + p.lm_head + p.attention + p.mlp + p.experts_routed + p.experts_shared + p.router + p.norms +
            p.recurrent ==
        p.total);
  CHECK(p.mlp == 3 * 3 * 7'168ULL * 18'432);  // first_k_dense_replace = 3 dense layers
  CHECK(p.experts_routed == 58ULL * 256 * 3 * 7'168 * 2'048);
  CHECK(p.experts_shared == 58ULL * 3 * 7'168 * 2'048);
  CHECK(p.router == 58ULL * (256 * 7'168 + 256));  // gate + e_score_correction_bias
  // gpt-oss card: 5.13B / 3.61B active, without the input embedding table (a lookup).
  const auto oss120 = params("openai__gpt-oss-120b");
  CHECK((oss120.active - oss120.embeddings + 5'000'000) / 10'000'000 == 513);
  const auto oss20 = params("openai__gpt-oss-20b");
  CHECK((oss20.active - oss20.embeddings + 5'000'000) / 10'000'000 == 361);
  // Mixtral-8x7B: 2 of 8 experts, "12.9B active".
  CHECK(params("mistralai__Mixtral-8x7B-v0.1").active == 12'879'925'248);
  CHECK(params("Qwen__Qwen3-30B-A3B").active == 3'353'032'704);  // "3.3B activated"
  // A dense model: active = total.
  CHECK(params("meta-llama__Llama-3.1-8B").active == 8'030'261'248);
}

TEST_CASE("parameters: constexpr, and dense_decoder_parameters keeps its results", "[weights][constexpr]") {
  namespace presets = kvsize::presets;
  STATIC_REQUIRE(kvsize::parameters(presets::qwen2_5_1_5b).total == 1'543'714'304);
  STATIC_REQUIRE(kvsize::parameters(presets::llama_3_8b).total == 8'030'261'248);
  STATIC_REQUIRE(kvsize::dense_decoder_parameters(presets::llama_3_8b) == 8'030'261'248);
  // A MoE model built by hand: Mixtral-8x7B.
  constexpr kvsize::model_spec mixtral{.layers = 32, .attention_heads = 32, .kv_heads = 8, .head_dim = 128,
                                       .hidden_size = 4'096, .vocab_size = 32'000, .intermediate_size = 14'336,
                                       .weights = {.moe = {.experts = 8, .experts_per_token = 2}}};
  STATIC_REQUIRE(kvsize::parameters(mixtral).total == 46'702'792'704);
  STATIC_REQUIRE(kvsize::parameters(mixtral).active == 12'879'925'248);
  // GGUF Q4_0 of Llama-2-7B, in a constant expression.
  constexpr kvsize::model_spec llama2{.layers = 32, .attention_heads = 32, .hidden_size = 4'096, .vocab_size = 32'000,
                                      .intermediate_size = 11'008};
  STATIC_REQUIRE(kvsize::weights_bytes(llama2, kvsize::gguf_weights(gguf_ftype::q4_0)) == bytes{3'825'065'984});
}

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
  // gpt-oss-120b: the tensor bytes 65,248,815,744 of a checkpoint inventory (id 59724567210).
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
  // (id 55787068532). q4_K base, output q6_K, attn_v and ffn_down q6_K on the 16 use_more_bits layers.
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
  // build 067de93; a public benchmark table, find_string id 70644669334). The old rule (attn_k
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

TEST_CASE("hf: quantization_config is read in full", "[weights][hf]") {
  const std::string base = R"({"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2,
      "hidden_size": 1024, "intermediate_size": 4096, "vocab_size": 32000, "torch_dtype": "float16", "quantization_config": )";
  const auto gptq = kvsize::hf::parse_config(base + R"({"quant_method": "gptq", "bits": 4, "group_size": -1, "desc_act": true, "sym": false}})");
  REQUIRE(gptq.quantization);
  CHECK(gptq.quantization->group_size == 0U);
  CHECK(gptq.quantization->desc_act == true);
  CHECK(gptq.quantization->sym == false);
  CHECK(gptq.quantization->format == kvsize::gptq_weights(4, 0));
  const auto awq = kvsize::hf::parse_config(base + R"({"quant_method": "awq", "bits": 4, "group_size": 64, "zero_point": true, "version": "gemm"}})");
  CHECK(awq.quantization->format == kvsize::awq_weights(4, 64));
  CHECK(awq.quantization->version == "gemm");
  const auto bnb = kvsize::hf::parse_config(
      base + R"({"quant_method": "bitsandbytes", "load_in_4bit": true, "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": true, "llm_int8_skip_modules": ["lm_head"]}})");
  CHECK(bnb.quantization->format->scheme == kvsize::weights_scheme::bnb_4bit);
  CHECK(bnb.quantization->format->double_quant);
  CHECK(bnb.quantization->bnb_4bit_quant_type == "nf4");
  CHECK(bnb.quantization->format->unquantized_parts == kvsize::part_bit(kvsize::weight_part::lm_head));
  CHECK_FALSE(bnb.quantization->format->unquantized);  // float16 from the config's dtype
  const auto other = kvsize::hf::parse_config(base + R"({"quant_method": "compressed-tensors"}})");
  CHECK_FALSE(other.quantization->format);
  CHECK(other.quantization_method == "compressed-tensors");
}

TEST_CASE("hf: weights facts of the families", "[weights][hf]") {
  const auto gpt2 = load("openai-community__gpt2-xl").spec.weights;
  CHECK(gpt2.norm == kvsize::norm_kind::layer_norm);
  CHECK(gpt2.position_embeddings == 1'024);
  CHECK(gpt2.o_bias);
  CHECK(gpt2.mlp_bias);
  const auto falcon = load("tiiuae__falcon-7b").spec.weights;
  CHECK(falcon.parallel_block);
  CHECK(falcon.norms_per_ffn == 0);
  CHECK(load("tiiuae__falcon-40b").spec.weights.norms_per_ffn == 1);
  const auto r1 = load("deepseek-ai__DeepSeek-R1").spec.weights;
  CHECK(r1.q_lora_rank == 1'536);
  CHECK(r1.moe.first_dense_layers == 3);
  CHECK(r1.moe.shared_width == 2'048);
  CHECK(r1.moe.score_correction_bias);
  CHECK(r1.mtp_layers == 1);
  CHECK(r1.mtp_embeddings);
  const auto nano = load("nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16").spec;
  CHECK(nano.weights.recurrent.kind == kvsize::recurrent_kind::mamba2);
  CHECK(kvsize::ffn_of_layer(nano, 0) == kvsize::ffn_kind::none);  // pattern "MEMEM...": a Mamba2 block
  CHECK(kvsize::ffn_of_layer(nano, 1) == kvsize::ffn_kind::moe);   // an MoE block
  const auto next = load("Qwen__Qwen3-Next-80B-A3B-Thinking");
  CHECK(next.spec.weights.recurrent.kind == kvsize::recurrent_kind::gated_delta);
  CHECK(next.spec.weights.output_gate);
  CHECK(next.spec.weights.moe.shared_gate);
  const auto nas = load("nvidia__Llama-3_3-Nemotron-Super-49B-v1").spec;
  CHECK(kvsize::ffn_width_of_layer(nas, 0) == 14'336);  // ffn_mult 2.625: find_multiple(int(2·2.625·8192/3), 256)
  CHECK(kvsize::ffn_width_of_layer(nas, 1) == 28'672);  // ffn_mult 5.25
}
