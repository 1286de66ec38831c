// SPDX-License-Identifier: MIT
// Each engine's own defaults where kvsize used to take the config's: the element type it serves a
// model in, its KV cache type, the weights it loads, and the context it sizes when told none.
// Sources are cited beside each rule in its engine header, include/kvsize/engines/<engine>.hpp.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <kvsize/engine.hpp>
#include <kvsize/presets.hpp>

#include "cli_support.hpp"

using Catch::Matchers::ContainsSubstring;
using kvsize::config_dtype_facts;
using kvsize::dtype;
using kvsize::engine_kind;
using kvsize::test::config;
using kvsize::test::json_of;

namespace {
constexpr config_dtype_facts float32_config{dtype::f32, true, false, false};
constexpr config_dtype_facts no_dtype_config{dtype::f32, false, false, false};
constexpr config_dtype_facts bf16_config{dtype::bf16, true, false, false};
constexpr config_dtype_facts f16_config{dtype::f16, true, false, false};
constexpr config_dtype_facts gemma_float32{dtype::f32, true, true, false};
constexpr config_dtype_facts gpt_oss{dtype::f32, false, false, true};  // no dtype key, mxfp4 experts
}  // namespace

TEST_CASE("engine defaults: the dtype each engine serves a config in (dtype=auto)", "[engines][defaults]") {
  using kvsize::serving_dtype;
  // vLLM _resolve_auto_dtype: float32 (or none) → bf16 on Ampere and later; 16-bit kept.
  STATIC_CHECK(serving_dtype(engine_kind::vllm, float32_config) == dtype::bf16);
  STATIC_CHECK(serving_dtype(engine_kind::vllm, no_dtype_config) == dtype::bf16);
  STATIC_CHECK(serving_dtype(engine_kind::vllm, f16_config) == dtype::f16);
  STATIC_CHECK(serving_dtype(engine_kind::vllm, bf16_config) == dtype::bf16);
  // SGLang _get_and_verify_dtype: float32 → f16, except gemma* → bf16; gpt-oss mxfp4 → bf16.
  STATIC_CHECK(serving_dtype(engine_kind::sglang, float32_config) == dtype::f16);
  STATIC_CHECK(serving_dtype(engine_kind::sglang, no_dtype_config) == dtype::f16);
  STATIC_CHECK(serving_dtype(engine_kind::sglang, gemma_float32) == dtype::bf16);
  STATIC_CHECK(serving_dtype(engine_kind::sglang, gpt_oss) == dtype::bf16);
  STATIC_CHECK(serving_dtype(engine_kind::sglang, bf16_config) == dtype::bf16);
  // TensorRT-LLM ModelConfig.torch_dtype: the config's, bf16 when none.
  STATIC_CHECK(serving_dtype(engine_kind::trtllm, float32_config) == dtype::f32);
  STATIC_CHECK(serving_dtype(engine_kind::trtllm, no_dtype_config) == dtype::bf16);
  STATIC_CHECK(serving_dtype(engine_kind::trtllm, f16_config) == dtype::f16);
  // llama.cpp: ggml computes in f32 whatever the weights.
  STATIC_CHECK(serving_dtype(engine_kind::llama_cpp, float32_config) == dtype::f32);
  STATIC_CHECK(serving_dtype(engine_kind::llama_cpp, bf16_config) == dtype::f32);
  // exact and transformers keep the config's.
  STATIC_CHECK(serving_dtype(engine_kind::exact, float32_config) == dtype::f32);
  STATIC_CHECK(serving_dtype(engine_kind::transformers, float32_config) == dtype::f32);
  STATIC_CHECK(serving_dtype(engine_kind::transformers, bf16_config) == dtype::bf16);
}

TEST_CASE("engine defaults: the KV cache type when none is given", "[engines][defaults]") {
  using kvsize::default_kv_dtypes;
  // llama.cpp: -ctk / -ctv default to f16 whatever the model (common/common.h).
  for (const auto& f : {float32_config, bf16_config, f16_config, gemma_float32, gpt_oss}) {
    CHECK(default_kv_dtypes(engine_kind::llama_cpp, f) == kvsize::kv_dtypes::same(dtype::f16));
  }
  // The others: the serving dtype (--kv-cache-dtype auto).
  STATIC_CHECK(default_kv_dtypes(engine_kind::vllm, float32_config) == kvsize::kv_dtypes::same(dtype::bf16));
  STATIC_CHECK(default_kv_dtypes(engine_kind::sglang, gemma_float32) == kvsize::kv_dtypes::same(dtype::bf16));
  STATIC_CHECK(default_kv_dtypes(engine_kind::trtllm, float32_config) == kvsize::kv_dtypes::same(dtype::f32));
  STATIC_CHECK(default_kv_dtypes(engine_kind::exact, float32_config) == kvsize::kv_dtypes::same(dtype::f32));
  STATIC_CHECK(kvsize::default_weights_dtype(engine_kind::vllm, float32_config) == dtype::bf16);
  STATIC_CHECK(kvsize::default_weights_dtype(engine_kind::llama_cpp, float32_config) == dtype::f16);  // an f16 GGUF
  STATIC_CHECK(kvsize::default_weights_dtype(engine_kind::llama_cpp, bf16_config) == dtype::f16);
}

TEST_CASE("engine defaults: engine_options without kv sizes the engine's default cache", "[engines][defaults]") {
  // Llama-3-8B as a float32 checkpoint: 32 layers × 8 heads × 128 × 2 (K, V) = 65,536 elements per token.
  constexpr kvsize::model_spec f32_llama = [] {
    kvsize::model_spec m = kvsize::presets::llama_3_8b;
    m.compute_dtype = dtype::f32;
    return m;
  }();
  constexpr kvsize::engine_options o{.context = 4'096};
  STATIC_CHECK(kvsize::size_cache(f32_llama, engine_kind::exact, o).kv_bytes_per_token.count() == 65'536 * 4);
  STATIC_CHECK(kvsize::size_cache(f32_llama, engine_kind::transformers, o).kv_bytes_per_token.count() == 65'536 * 4);
  STATIC_CHECK(kvsize::size_cache(f32_llama, engine_kind::trtllm, o).kv_bytes_per_token.count() == 65'536 * 4);
  STATIC_CHECK(kvsize::size_cache(f32_llama, engine_kind::vllm, o).kv_bytes_per_token.count() == 65'536 * 2);
  STATIC_CHECK(kvsize::size_cache(f32_llama, engine_kind::sglang, o).kv_bytes_per_token.count() == 65'536 * 2);
  const auto llama = kvsize::size_cache(f32_llama, engine_kind::llama_cpp, o);
  CHECK(llama.kv_bytes_per_token.count() == 65'536 * 2);
  CHECK(llama.kv == kvsize::kv_dtypes::same(dtype::f16));
  // An explicit kv still wins.
  constexpr kvsize::engine_options q8{.context = 4'096, .kv = kvsize::kv_dtypes::same(dtype::q8_0)};
  CHECK(kvsize::size_cache(f32_llama, engine_kind::llama_cpp, q8).kv == kvsize::kv_dtypes::same(dtype::q8_0));
}

TEST_CASE("engine defaults: the context an engine sizes when told none", "[engines][defaults]") {
  constexpr kvsize::model_spec m = kvsize::presets::qwen2_5_1_5b;  // max_context 131,072
  for (engine_kind e : {engine_kind::vllm, engine_kind::sglang, engine_kind::llama_cpp, engine_kind::trtllm}) {
    CHECK(kvsize::engine_default_context(e, m) == m.max_context);
  }
  CHECK(kvsize::engine_default_context(engine_kind::exact, m) == 0);
  CHECK(kvsize::engine_default_context(engine_kind::transformers, m) == 0);
  CHECK(kvsize::display_name(engine_kind::trtllm) == "TensorRT-LLM");
  CHECK(kvsize::display_name(engine_kind::vllm) == "vLLM");
}

TEST_CASE("engine defaults: gpt-oss-20b (no dtype key) is served in bf16, its KV half of float32's", "[engines][defaults][cli]") {
  // 12 full + 12 sliding layers × 8 KV heads × 64 × 2 (K, V): 24,576 elements per token.
  const std::string oss = config("openai__gpt-oss-20b.config.json");
  const auto per_token = [&](const std::string& engine) {
    const auto j = json_of(oss + " --engine " + engine);
    return std::pair{j.at("k_dtype").get<std::string>(), j.at("kv_bytes_per_token").get<std::uint64_t>()};
  };
  CHECK(per_token("exact") == std::pair{std::string{"f32"}, std::uint64_t{98'304}});
  CHECK(per_token("transformers") == std::pair{std::string{"f32"}, std::uint64_t{98'304}});
  CHECK(per_token("vllm") == std::pair{std::string{"bf16"}, std::uint64_t{49'152}});
  CHECK(per_token("sglang") == std::pair{std::string{"bf16"}, std::uint64_t{49'152}});  // mxfp4 → bf16
  CHECK(per_token("trtllm") == std::pair{std::string{"bf16"}, std::uint64_t{49'152}});  // no dtype → bf16
  CHECK(per_token("llama.cpp") == std::pair{std::string{"f16"}, std::uint64_t{49'152}});
  // The MXFP4 checkpoint's weights are its own format whatever the engine: 13,761,264,768 B.
  CHECK(json_of(oss + " --engine vllm").at("weights_bytes") == 13'761'264'768ULL);
  // An explicit --kv-dtype still wins; "auto" names the engine's default.
  CHECK(json_of(oss + " --engine vllm --kv-dtype f32").at("kv_bytes_per_token") == 98'304);
  CHECK(json_of(oss + " --engine llama.cpp --kv-dtype auto").at("k_dtype") == "f16");
  CHECK(json_of(oss + " --engine vllm").at("serving_dtype") == "bf16");
}

TEST_CASE("engine defaults: an explicit --dtype is what the engine serves, float32 included", "[engines][defaults][cli]") {
  // vLLM's and SGLang's auto rule downcasts a float32 config; `--dtype float32` asks for float32 and
  // gets it (vllm/config/model.py _get_and_verify_dtype only resolves "auto"). llama.cpp has no
  // --dtype: its cache stays f16.
  const std::string oss = config("openai__gpt-oss-20b.config.json");
  for (const char* engine : {"vllm", "sglang", "trtllm"}) {
    INFO(engine);
    const auto j = json_of(oss + " --engine " + engine + " --dtype float32");
    CHECK(j.at("serving_dtype") == "f32");
    CHECK(j.at("kv_bytes_per_token") == 98'304);
    CHECK(json_of(oss + " --engine " + engine + " --dtype auto").at("kv_bytes_per_token") == 49'152);
  }
  CHECK(json_of(oss + " --engine llama.cpp --dtype float32").at("kv_bytes_per_token") == 49'152);
  CHECK(kvsize::serving_dtype(engine_kind::vllm, config_dtype_facts{dtype::f32, true, false, false, true}) ==
        dtype::f32);
  CHECK(kvsize::serving_dtype(engine_kind::llama_cpp, config_dtype_facts{dtype::bf16, true, false, false, true}) ==
        dtype::f32);
}

TEST_CASE("engine defaults: a float32 config's weights and KV as each engine loads them", "[engines][defaults][cli]") {
  // google/gemma-2-9b ships torch_dtype float32. vLLM serves it in bf16 (gemma2 refuses f16 anyway),
  // SGLang in bf16 (gemma*), llama.cpp from an f16 GGUF, TensorRT-LLM and transformers in float32.
  const std::string gemma = config("google__gemma-2-9b.config.json");
  const auto exact = json_of(gemma);
  const auto vllm = json_of(gemma + " --engine vllm");
  const auto sglang = json_of(gemma + " --engine sglang");
  const auto llama = json_of(gemma + " --engine llama.cpp");
  const auto trt = json_of(gemma + " --engine trtllm");
  CHECK(exact.at("weights_dtype") == "f32");
  CHECK(vllm.at("weights_dtype") == "bf16");
  CHECK(sglang.at("weights_dtype") == "bf16");
  CHECK(llama.at("weights_dtype") == "f16");
  CHECK(trt.at("weights_dtype") == "f32");
  CHECK(vllm.at("weights_bytes").get<std::uint64_t>() * 2 == exact.at("weights_bytes").get<std::uint64_t>());
  CHECK(llama.at("weights_bytes") == vllm.at("weights_bytes"));
  CHECK(vllm.at("k_dtype") == "bf16");
  CHECK(sglang.at("k_dtype") == "bf16");
  CHECK(trt.at("k_dtype") == "f32");
  CHECK(vllm.at("kv_bytes_per_token").get<std::uint64_t>() * 2 == exact.at("kv_bytes_per_token").get<std::uint64_t>());
}

TEST_CASE("engine defaults: llama.cpp prints K (f16) for a bf16 model, as llama.cpp does", "[engines][defaults][cli]") {
  const auto j = json_of(config("meta-llama__Llama-3.1-8B.config.json") + " --engine llama.cpp");
  CHECK(j.at("k_dtype") == "f16");
  CHECK(j.at("v_dtype") == "f16");
  const auto lines = j.at("log_lines").get<std::vector<std::string>>();
  // 4,096 cells × 32 layers × 8 × 128 × 2 B = 256 MiB for K, the same for V.
  CHECK(std::find(lines.begin(), lines.end(),
                  "llama_kv_cache: size =  512.00 MiB (  4096 cells,  32 layers,  1/1 seqs), K (f16):  256.00 MiB, "
                  "V (f16):  256.00 MiB") != lines.end());
  // The bf16 weights convert to an f16 GGUF of the same size.
  const auto exact = json_of(config("meta-llama__Llama-3.1-8B.config.json"));
  CHECK(j.at("weights_dtype") == "f16");
  CHECK(j.at("weights_bytes") == exact.at("weights_bytes"));
}

TEST_CASE("engine defaults: logits and the plan's workspace in the dtype the engine computes in", "[engines][defaults][cli]") {
  // gpt-oss-20b (read as float32): vLLM computes in bf16, so its logits row is 201,088 × 2 B and the
  // plan's activations and logits are bf16; exact and transformers keep float32 (201,088 × 4 B).
  const std::string oss = config("openai__gpt-oss-20b.config.json");
  const auto vllm = json_of(oss + " --engine vllm --gpu h100-80gb");
  CHECK(vllm.at("logits_bytes_per_token") == 402'176);
  CHECK(vllm.at("plan").at("workspace").at("logits_dtype") == "bf16");
  CHECK(vllm.at("plan").at("workspace").at("activation_dtype") == "bf16");
  CHECK(json_of(oss).at("logits_bytes_per_token") == 804'352);
  const auto hf = json_of(oss + " --engine transformers --gpu h100-80gb");
  CHECK(hf.at("logits_bytes_per_token") == 804'352);
  CHECK(hf.at("plan").at("workspace").at("activation_dtype") == "f32");
}

TEST_CASE("engine defaults: the element types of a stage's cache and states (stage_types)", "[engines][defaults]") {
  // A float32 spec: the auto rules change it (vLLM → bf16, SGLang → f16); --dtype float32
  // (dtype_given) keeps it; --state-dtype (state_dtype) sets the states; llama.cpp's states are f32
  // whatever is asked, its K/V f16 (each rule is cited in its engine header).
  constexpr kvsize::model_spec m = [] {
    kvsize::model_spec x{.layers = 2, .attention_heads = 4, .kv_heads = 2, .head_dim = 64, .hidden_size = 256,
                         .vocab_size = 1'000};
    x.compute_dtype = dtype::f32;
    return x;
  }();
  constexpr kvsize::engine_options automatic{};
  constexpr kvsize::engine_options given{.dtype_given = true};
  constexpr kvsize::engine_options state_f16{.state_dtype = dtype::f16};
  using kvsize::kv_dtypes;
  using kvsize::state_dtypes;
  STATIC_CHECK(kvsize::vllm_engine::stage_types(m, automatic).kv == kv_dtypes::same(dtype::bf16));
  STATIC_CHECK(kvsize::vllm_engine::stage_types(m, automatic).state == state_dtypes{dtype::bf16, dtype::bf16});
  STATIC_CHECK(kvsize::vllm_engine::stage_types(m, given).state == state_dtypes{dtype::f32, dtype::f32});
  STATIC_CHECK(kvsize::vllm_engine::stage_types(m, state_f16).state == state_dtypes{dtype::f16, dtype::f16});
  STATIC_CHECK(kvsize::trtllm_engine::stage_types(m, automatic).state == state_dtypes{dtype::f32, dtype::f32});
  STATIC_CHECK(kvsize::sglang_engine::stage_types(m, automatic).state == state_dtypes{dtype::bf16, dtype::f32});
  STATIC_CHECK(kvsize::sglang_engine::stage_types(m, given).state == state_dtypes{dtype::bf16, dtype::f32});
  STATIC_CHECK(kvsize::llama_cpp_engine::stage_types(m, state_f16).state == state_dtypes{dtype::f32, dtype::f32});
  STATIC_CHECK(kvsize::llama_cpp_engine::stage_types(m, automatic).kv == kv_dtypes::same(dtype::f16));
  STATIC_CHECK(kvsize::exact_engine::stage_types(m, automatic).state == state_dtypes{dtype::f32, dtype::f32});
  constexpr kvsize::engine_options kv_given{.kv = kv_dtypes::same(dtype::fp8_e4m3)};
  STATIC_CHECK(kvsize::transformers_engine::stage_types(m, kv_given).kv == kv_dtypes::same(dtype::fp8_e4m3));
}
