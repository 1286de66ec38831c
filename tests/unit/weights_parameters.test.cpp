// SPDX-License-Identifier: MIT
// kvsize/weights_parameters.hpp (issue 5): published parameter counts of the configs in configs/.
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
      {"Qwen__Qwen3-8B", 8'190'735'360, "HF API {BF16: 8190735360}"},
      {"Qwen__Qwen3-32B", 32'762'123'264, "S2, S3"},
      {"Qwen__Qwen3-30B-A3B", 30'532'122'624, "GGUF general.parameter_count; header-sum check"},
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
      {"microsoft__Phi-4-mini-instruct", 3'836'021'760, "index total_size 7,672,043,520 bf16 (SOURCES.md); card 3.8B"},
      {"microsoft__phi-4", 14'659'507'200, "GGUF general.parameter_count; NeMo customizer num_parameters; S2, S3"},
      {"openai-community__gpt2-xl", 1'557'611'200, "keras-hub gpt2_extra_large_en params"},
      {"togethercomputer__RedPajama-INCITE-7B-Base", 6'857'302'016, "Together SDK model_param_count"},
      {"THUDM__chatglm3-6b", 6'243'584'000, "model.num_parameters() in fine-tuning logs; PEFT 'all params'"},
      {"deepseek-ai__DeepSeek-R1", 671'026'419'200, "README 671B main model; HF per-dtype totals (below)"},
      {"moonshotai__Kimi-K2-Instruct", 1'026'408'232'448, "safetensors header audit, logical params (S5)"},
      {"zai-org__GLM-4.5", 352'797'829'024, "calculator unit test, 'glm-4.7' without MTP"},
      {"openai__gpt-oss-20b", 20'914'757'184, "GGUF general.parameter_count (Ollama); S2, S3; card 20.9B"},
      {"openai__gpt-oss-120b", 116'829'156'672, "GGUF general.parameter_count (Ollama); S2, S3; card 116.8B"},
      {"nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", 31'577'940'288, "llama-bench model_n_params; llama-server n_params"},
      // Tied by Lfm2Config's default; short-conv mixers and the adjusted MLP width 8,192 (param-counts.md).
      {"LiquidAI__LFM2-1.2B", 1'170'340'608, "model card table 'Parameters 1,170,340,608'"},
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
  // Qwen3.5: HF totals are the text model, the MTP layer (mtp_num_hidden_layers) and the vision
  // tower (transformers' Qwen3_5VisionModel; docs/research/param-counts.md "Qwen3.5").
  const auto q35 = params("Qwen__Qwen3.5-35B-A3B");
  CHECK(q35.vision == 446'571'248);
  CHECK(q35.with_extras == 35'951'822'704);  // HF safetensors.total
  CHECK(q35.total + q35.mtp + q35.vision == q35.with_extras);
  const auto q27 = params("Qwen__Qwen3.5-27B");
  CHECK(q27.vision == 460'730'096);  // a public index of a same-shape checkpoint: n_vision_parameters
  CHECK(q27.with_extras == 27'781'427'952);  // HF safetensors.total
  // Qwen3.5-397B-A17B: text + vision = 396,802,360,816, the num_parameters public model records give for it
  // and for a fine-tune of the same shape (the MTP layer, 6,595,568,128, is counted apart there).
  const auto q397 = params("Qwen__Qwen3.5-397B-A17B");
  CHECK(q397.total + q397.vision == 396'802'360'816);
  // Qwen3-VL (transformers Qwen3VLVisionModel: Qwen3.5's tower with 3 DeepStack mergers), Qwen3 text
  // models with per-head q/k norms: HF safetensors.total of Qwen/Qwen3-VL-8B-Instruct at revision
  // 0c351dd0 is 8,767,123,696 (also the model card of nvidia/Cosmos-Reason2-8B, "the same model
  // architecture"); Qwen3-VL-30B-A3B-Instruct's 31,070,754,032 (a public fine-tuning catalog's paramCount).
  const auto vl8 = params("Qwen__Qwen3-VL-8B-Instruct");
  CHECK(vl8.vision == 576'388'336);
  CHECK(vl8.with_extras == 8'767'123'696);
  const auto vl30 = params("Qwen__Qwen3-VL-30B-A3B-Instruct");
  CHECK(vl30.vision == 538'631'408);
  CHECK(vl30.with_extras == 31'070'754'032);

  // Tied heads the checkpoint stores anyway, and Llama-2's rotary inv_freq buffers: not in the
  // config, so the test adds them.
  const auto qwen3 = params("Qwen__Qwen3-0.6B");
  CHECK(qwen3.total == 596'049'920);
  CHECK(qwen3.total + qwen3.embeddings == 751'632'384);  // HF total (S3): a separate lm_head.weight
  const auto falcon7 = params("tiiuae__falcon-7b");
  CHECK(falcon7.total + falcon7.embeddings == 7'217'189'760);  // training config model_size (a public training config)
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
  // same 51,570,323,328 (in a public repository).
  const auto p = params("ai21labs__Jamba-v0.1");
  CHECK(p.total == 51'570'323'328);
  CHECK(p.recurrent == 2'948'636'544);
  // Active: 2 of 16 experts per MoE layer: 51,570,323,328 − 16 × 14 × 176,160,768 = 12,110,311,296.
  CHECK(p.active == 12'110'311'296);
}

TEST_CASE("parameters: Kimi-Linear-48B-A3B, KDA mixers beside MLA layers", "[weights]") {
  // By hand from the config and the module tree (vllm models/kimi_linear.py, layers/kda.py
  // KimiDeltaAttention.__init__; docs/research/kimi-linear.md section 6): hidden 2,304, vocab 163,840 untied,
  // 27 layers, MLA on the 1-based full_attn_layers (7), KDA on the other 20, layer 0 a dense MLP of
  // 9,216, layers 1-26 MoE of 256 experts of 1,024 (top 8) with one shared expert and the router's
  // e_score_correction_bias.
  //   embeddings + LM head   2 × 163,840 × 2,304                                  =    754,974,720
  //   norms                  27 × 2 × 2,304 + 2,304                               =        126,720
  //   KDA (20)               q, k, v 3 × 4,096 × 2,304 = 28,311,552; f_a, g_a 2 × 128 × 2,304 = 589,824;
  //                          f_b, g_b 2 × 4,096 × 128 = 1,048,576; b 32 × 2,304 = 73,728; dt_bias 4,096;
  //                          A_log 32; 3 convs 4,096 × 4 = 49,152; o_norm 128; o_proj 2,304 × 4,096 =
  //                          9,437,184; sum 39,514,272, × 20                          =    790,285,440
  //   MLA (7)                q_proj 6,144 × 2,304 = 14,155,776; kv_a 576 × 2,304 = 1,327,104; kv_a norm 512;
  //                          kv_b 8,192 × 512 = 4,194,304; o_proj 9,437,184; sum 29,114,880, × 7 = 203,804,160
  //   dense MLP (layer 0)    3 × 2,304 × 9,216                                    =     63,700,992
  //   MoE (26)               256 × 7,077,888 + router 589,824 + bias 256 + shared 7,077,888, × 26
  //                                                                                = 47,309,789,696
  //   total                                                                        = 49,122,681,728
  // The card says "48B total, 3B activated"; no published safetensors total was found.
  const auto p = params("moonshotai__Kimi-Linear-48B-A3B-Instruct");
  CHECK(p.total == 49'122'681'728);
  CHECK(p.recurrent == 790'285'440);
  // Active: 8 of 256 experts: 49,122,681,728 − 26 × 248 × 7,077,888 = 3,484,459,904.
  CHECK(p.active == 3'484'459'904);
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
