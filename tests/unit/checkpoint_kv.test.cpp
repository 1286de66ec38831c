// SPDX-License-Identifier: MIT
// A quantized checkpoint that declares an FP8 KV cache (ModelOpt's kv_cache_scheme or kv_cache_quant_algo "FP8",
// compressed-tensors' kv_cache_scheme): the reader records the key and its form (parsed_config::checkpoint_kv_fp8,
// checkpoint_kv), and vLLM, SGLang and TensorRT-LLM take it at their default cache dtype from the releases that read
// it (each engine's checkpoint_kv_dtype; docs/engines.md, "An FP8 KV cache the checkpoint declares", has the sources).
#include <kvsize/engine.hpp>
#include <kvsize/hf_config.hpp>
#include <kvsize/kvsize.hpp>

#include "cli_support.hpp"
#include "hf_support.hpp"
#include "weights_support.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <string>

using Catch::Matchers::ContainsSubstring;
using kvsize::checkpoint_kv_cache;
using kvsize::dtype;
using kvsize::engine_kind;
using kvsize::test::has_warning;
using kvsize::test::json_of;
using namespace kvsize::test::weights_configs;

namespace {

auto llama_with(const std::string& quantization_config) -> kvsize::hf::parsed_config {
  return with_quantization("meta-llama__Llama-3.1-8B", quantization_config);
}

/// Whether a warning of the command's JSON report contains `words`.
auto noted(const nlohmann::json& j, const std::string& words) -> bool {
  const auto& w = j["warnings"];
  return std::any_of(w.begin(), w.end(), [&](const nlohmann::json& one) {
    return one.get<std::string>().find(words) != std::string::npos;
  });
}

}  // namespace

TEST_CASE("checkpoint_kv_fp8: the key by which a quantization_config declares an FP8 KV cache", "[hf][kv][quantization]") {
  // nvidia/Gemma-4-31B-IT-NVFP4: kv_cache_scheme {"dynamic": false, "num_bits": 8, "type": "float"}.
  CHECK(load("nvidia__Gemma-4-31B-IT-NVFP4").checkpoint_kv_fp8 == "/quantization_config/kv_cache_scheme");
  CHECK(llama_with(R"({"quant_method": "modelopt", "quant_algo": "FP8", "kv_cache_quant_algo": "fp8"})")
            .checkpoint_kv_fp8 == "/quantization_config/kv_cache_quant_algo");
  // The scheme first, as vLLM's get_kv_cache_quant_algo_string reads them.
  CHECK(llama_with(R"({"quant_method": "modelopt", "quant_algo": "FP8", "kv_cache_quant_algo": "FP8",
      "kv_cache_scheme": {"type": "float", "num_bits": 8, "dynamic": false}})")
            .checkpoint_kv_fp8 == "/quantization_config/kv_cache_scheme");
  CHECK(llama_with(R"({"quant_method": "compressed-tensors", "format": "float-quantized",
      "kv_cache_scheme": {"num_bits": 8, "type": "float", "strategy": "tensor", "dynamic": false}})")
            .checkpoint_kv_fp8 == "/quantization_config/kv_cache_scheme");
  // None declared; a form kvsize does not read (an int8 cache: a warning); another method's keys.
  CHECK(llama_with(R"({"quant_method": "modelopt", "quant_algo": "FP8", "kv_cache_quant_algo": null})")
            .checkpoint_kv_fp8.empty());
  const auto int8 = llama_with(R"({"quant_method": "compressed-tensors", "kv_cache_scheme": {"num_bits": 8,
      "type": "int"}})");
  CHECK(int8.checkpoint_kv_fp8.empty());
  CHECK(int8.checkpoint_kv == checkpoint_kv_cache::none);
  CHECK(has_warning(int8, "/quantization_config/kv_cache_scheme: a KV cache quantization kvsize does not take"));
  // ModelOpt's scheme as vLLM reads it: a dynamic one is not taken, and the algo behind it is not read; the string
  // form ModelOpt 0.31 - 0.33 wrote is.
  const auto dynamic = llama_with(R"({"quant_method": "modelopt", "quant_algo": "FP8", "kv_cache_quant_algo": "FP8",
      "kv_cache_scheme": {"type": "float", "num_bits": 8, "dynamic": true}})");
  CHECK(dynamic.checkpoint_kv == checkpoint_kv_cache::none);
  CHECK(has_warning(dynamic, "/quantization_config/kv_cache_scheme: a KV cache quantization kvsize does not take"));
  // An empty scheme is none, and the algo is read; an NVFP4 cache is named, the larger default sized.
  CHECK(llama_with(R"({"quant_method": "modelopt", "quant_algo": "FP8", "kv_cache_scheme": {},
      "kv_cache_quant_algo": "FP8"})").checkpoint_kv == checkpoint_kv_cache::modelopt_fp8);
  CHECK(has_warning(llama_with(R"({"quant_method": "modelopt", "quant_algo": "NVFP4", "kv_cache_quant_algo": "NVFP4"})"),
                    "/quantization_config/kv_cache_quant_algo: a KV cache quantization kvsize does not take (only a "
                    "static FP8 one); the cache is sized in each engine's default type, which is larger than the "
                    "NVFP4 cache TensorRT-LLM keeps"));
  CHECK(llama_with(R"({"quant_method": "modelopt", "quant_algo": "NVFP4", "kv_cache_scheme": "FP8"})").checkpoint_kv ==
        checkpoint_kv_cache::modelopt_nvfp4_fp8);
  CHECK(llama_with(R"({"quant_method": "modelopt", "quant_algo": "FP8", "kv_cache_quant_algo": "FP8"})").checkpoint_kv ==
        checkpoint_kv_cache::modelopt_fp8);
  CHECK(load("nvidia__Gemma-4-31B-IT-NVFP4").checkpoint_kv == checkpoint_kv_cache::modelopt_nvfp4_fp8);
  CHECK(llama_with(R"({"quant_method": "compressed-tensors", "kv_cache_scheme": {"num_bits": 8, "type": "float"}})")
            .checkpoint_kv == checkpoint_kv_cache::compressed_tensors_fp8);
  CHECK(llama_with(R"({"quant_method": "gptq", "bits": 4, "group_size": 128, "kv_cache_quant_algo": "FP8"})")
            .checkpoint_kv_fp8.empty());
  // A malformed weights key after it leaves the weights unknown, not the KV fact.
  const auto bad = llama_with(R"({"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": "16",
      "kv_cache_quant_algo": "FP8"})");
  CHECK_FALSE(bad.weights_unknown_because.empty());
  CHECK(bad.checkpoint_kv_fp8 == "/quantization_config/kv_cache_quant_algo");
}

TEST_CASE("checkpoint_kv_dtype: the engines that take a declared FP8 cache at their default, from which release",
          "[engines][kv][quantization]") {
  // Llama-3.1-8B: 32 layers × 8 KV heads × 128 × 2 (K, V) = 65,536 elements a token: 131,072 B in bf16, 65,536 in fp8.
  const auto m = load("meta-llama__Llama-3.1-8B").spec;
  const auto per_token = [&](engine_kind e, kvsize::engine_options o) {
    return kvsize::size_cache(m, e, o).kv_bytes_per_token.count();
  };
  kvsize::engine_options modelopt;  // NVFP4 weights, FP8 cache
  modelopt.checkpoint_kv = checkpoint_kv_cache::modelopt_nvfp4_fp8;
  CHECK(per_token(engine_kind::vllm, modelopt) == 65'536);  // 0.19, the default release
  CHECK(kvsize::size_cache(m, engine_kind::vllm, modelopt).kv.k == dtype::fp8_e4m3);
  CHECK(per_token(engine_kind::sglang, modelopt) == 65'536);
  CHECK(per_token(engine_kind::trtllm, modelopt) == 65'536);
  CHECK(per_token(engine_kind::exact, modelopt) == 131'072);         // the mathematical minimum in the model dtype
  CHECK(per_token(engine_kind::transformers, modelopt) == 131'072);  // does not read it
  CHECK(per_token(engine_kind::llama_cpp, modelopt) == 65'536 * 2);  // f16: -ctk / -ctv, never the checkpoint
  auto v13 = modelopt;  // vLLM 0.13 and before keep the serving dtype (PR #30785 is in 0.14)
  v13.vllm.release_minor = 13;
  CHECK(per_token(engine_kind::vllm, v13) == 131'072);
  v13.vllm.release_minor = 14;
  CHECK(per_token(engine_kind::vllm, v13) == 65'536);
  // SGLang: NVFP4 weights from 0.5.3rc1 (PR #10336; kvsize's group from 0.5.3rc2), FP8 weights from 0.5.4 (PR
  // #12018; kvsize's group from 0.5.4.post1).
  using kvsize::engines::sglang::fraction_rule;
  auto sglang_old = modelopt;
  sglang_old.sglang.release = fraction_rule::v0_4_7;  // 0.4.7.post1 - 0.5.3rc1
  CHECK(per_token(engine_kind::sglang, sglang_old) == 131'072);
  sglang_old.sglang.release = fraction_rule::v0_5_3;  // 0.5.3rc2 - 0.5.4
  CHECK(per_token(engine_kind::sglang, sglang_old) == 65'536);
  auto fp8_weights = modelopt;  // FP8 weights: SGLang's ModelOptFp8Config passes the cache type on from 0.5.4
  fp8_weights.checkpoint_kv = checkpoint_kv_cache::modelopt_fp8;
  CHECK(per_token(engine_kind::sglang, fp8_weights) == 65'536);  // the default, 0.5.15 - 0.5.19
  fp8_weights.sglang.release = fraction_rule::v0_5_3;
  CHECK(per_token(engine_kind::sglang, fp8_weights) == 131'072);
  fp8_weights.sglang.release = fraction_rule::v0_5;
  CHECK(per_token(engine_kind::sglang, fp8_weights) == 65'536);
  fp8_weights.sglang.release = kvsize::engines::sglang::default_rule;
  CHECK(per_token(engine_kind::vllm, fp8_weights) == 65'536);
  CHECK(per_token(engine_kind::trtllm, fp8_weights) == 65'536);
  auto bf16 = modelopt;  // an explicit type wins under vLLM and SGLang; TensorRT-LLM refuses it
  bf16.kv = kvsize::kv_dtypes::same(dtype::bf16);
  CHECK(per_token(engine_kind::vllm, bf16) == 131'072);
  CHECK(per_token(engine_kind::sglang, bf16) == 131'072);
  CHECK_THROWS_WITH(kvsize::size_cache(m, engine_kind::trtllm, bf16),
                    ContainsSubstring("validate_and_set_kv_cache_quant"));

  // compressed-tensors: vLLM from 0.15 (PR #30141), over an explicit type until 0.22 (PR #42782); SGLang and
  // TensorRT-LLM not in the releases kvsize models (PR #35455, PR #17334: August 2026).
  kvsize::engine_options ct;
  ct.checkpoint_kv = checkpoint_kv_cache::compressed_tensors_fp8;
  CHECK(per_token(engine_kind::vllm, ct) == 65'536);
  CHECK(per_token(engine_kind::sglang, ct) == 131'072);
  CHECK(per_token(engine_kind::trtllm, ct) == 131'072);
  auto ct_bf16 = ct;
  ct_bf16.kv = kvsize::kv_dtypes::same(dtype::bf16);
  CHECK(per_token(engine_kind::vllm, ct_bf16) == 65'536);  // 0.19 overrides the explicit bf16
  ct_bf16.vllm.release_minor = 22;
  CHECK(per_token(engine_kind::vllm, ct_bf16) == 131'072);
  ct.vllm.release_minor = 14;
  CHECK(per_token(engine_kind::vllm, ct) == 131'072);
  CHECK_FALSE(kvsize::checkpoint_kv_dtype(engine_kind::vllm, ct));
  CHECK_FALSE(kvsize::checkpoint_kv_dtype(engine_kind::trtllm, ct));
  CHECK(kvsize::checkpoint_kv_dtype(engine_kind::trtllm, modelopt) == dtype::fp8_e4m3);
  // compressed-tensors' scheme reaches Attention.__init__ only, never MLAAttention: an MLA model keeps its own type,
  // 61 × 576 × 2 B = 70,272 B a token for DeepSeek-R1 in bf16, and an explicit type stands (checkpoint_kv_for).
  const auto r1 = load("deepseek-ai__DeepSeek-R1").spec;
  kvsize::engine_options r1_ct;
  r1_ct.checkpoint_kv = checkpoint_kv_cache::compressed_tensors_fp8;
  CHECK(kvsize::size_cache(r1, engine_kind::vllm, r1_ct).kv_bytes_per_token.count() == 61 * 576 * 2);
  r1_ct.kv = kvsize::kv_dtypes::same(dtype::bf16);
  CHECK(kvsize::size_cache(r1, engine_kind::vllm, r1_ct).kv_bytes_per_token.count() == 61 * 576 * 2);
  r1_ct.checkpoint_kv = checkpoint_kv_cache::modelopt_fp8;  // ModelOpt's, resolved in create_engine_config, does
  r1_ct.kv.reset();
  CHECK(kvsize::size_cache(r1, engine_kind::vllm, r1_ct).kv_bytes_per_token.count() == 61 * 576);
  auto q8 = ct;  // a GGML block type is refused (vLLM has none), never overridden
  q8.vllm.release_minor = 19;
  q8.kv = kvsize::kv_dtypes::same(dtype::q8_0);
  CHECK_THROWS(kvsize::size_cache(m, engine_kind::vllm, q8));

  // A type the engine's option cannot name over a cache it takes: vLLM float32, float16 before 0.18 (CacheDType,
  // PR #37199); SGLang float16 and float32. The same words from model_refusal and size_cache.
  const auto with_kv = [](kvsize::engine_options o, dtype k, dtype v, std::uint32_t vllm_minor) {
    o.kv = kvsize::kv_dtypes{k, v};
    o.vllm.release_minor = vllm_minor;
    return o;
  };
  for (const auto& [o, refused] : {std::pair{with_kv(modelopt, dtype::f32, dtype::f32, 19), true},
                                   std::pair{with_kv(modelopt, dtype::bf16, dtype::f32, 19), true},
                                   std::pair{with_kv(modelopt, dtype::f16, dtype::f16, 17), true},
                                   std::pair{with_kv(modelopt, dtype::f16, dtype::f16, 18), false},
                                   std::pair{with_kv(modelopt, dtype::f32, dtype::f32, 13), false},  // not taken
                                   std::pair{with_kv(ct, dtype::f32, dtype::f32, 19), false}}) {     // fp8 over it
    INFO(kvsize::name(o.kv->k) << " " << kvsize::name(o.kv->v) << " vLLM 0." << o.vllm.release_minor);
    const std::string_view why = kvsize::checkpoint_kv_type_refusal(engine_kind::vllm, o);
    CHECK(why.empty() == !refused);
    CHECK(kvsize::model_refusal(engine_kind::vllm, m, o) == why);
    if (refused) {
      const bool f32 = o.kv->k == dtype::f32 || o.kv->v == dtype::f32;
      CHECK_THROWS_WITH(kvsize::size_cache(m, engine_kind::vllm, o),
                        ContainsSubstring(f32 ? "no float32" : "names float16 from 0.18): no float16"));
    } else {
      CHECK_NOTHROW(kvsize::size_cache(m, engine_kind::vllm, o));
    }
  }
  CHECK(per_token(engine_kind::vllm, with_kv(modelopt, dtype::f16, dtype::f16, 18)) == 131'072);
  CHECK(per_token(engine_kind::vllm, with_kv(ct, dtype::f32, dtype::f32, 19)) == 65'536);
  const auto sglang_f16 = with_kv(modelopt, dtype::f16, dtype::f16, 19);
  CHECK_THROWS_WITH(kvsize::size_cache(m, engine_kind::sglang, sglang_f16), ContainsSubstring("no float16, float32"));
  CHECK_FALSE(kvsize::model_refusal(engine_kind::sglang, m, sglang_f16).empty());
  // Over the checkpoint's FP8, SGLang's --kv-cache-dtype names fp8_e5m2, and bf16 from 0.5.4 only (server_args.py):
  // at 0.5.3 the model's own bf16 is no choice, for `auto` gives the FP8.
  const auto sglang_at = [&](dtype t, std::string_view release) {
    auto o = with_kv(modelopt, t, t, 19);
    o.sglang.version = *kvsize::engines::sglang::parse_release(release);
    o.sglang.release = *kvsize::engines::sglang::rule_of(*o.sglang.version);
    return o;
  };
  CHECK_THAT(std::string{kvsize::checkpoint_kv_type_refusal(engine_kind::sglang, sglang_at(dtype::bf16, "0.5.3"))},
             ContainsSubstring("names bf16 from 0.5.4"));
  CHECK(kvsize::checkpoint_kv_type_refusal(engine_kind::sglang, sglang_at(dtype::bf16, "0.5.4")).empty());
  CHECK(kvsize::checkpoint_kv_type_refusal(engine_kind::sglang, sglang_at(dtype::fp8_e5m2, "0.5.3")).empty());
  CHECK(per_token(engine_kind::sglang, sglang_at(dtype::bf16, "0.5.4")) == 131'072);
  CHECK_FALSE(kvsize::checkpoint_kv_type_refusal(engine_kind::sglang, sglang_at(dtype::int8, "0.5.4")).empty());
  CHECK(kvsize::checkpoint_kv_type_refusal(engine_kind::sglang, with_kv(ct, dtype::f16, dtype::f16, 19)).empty());
  CHECK(kvsize::checkpoint_kv_type_refusal(engine_kind::llama_cpp, sglang_f16).empty());
  CHECK_FALSE(kvsize::checkpoint_kv_type_refusal(engine_kind::trtllm, sglang_f16).empty());
}

TEST_CASE("kvsize: a declared FP8 KV cache is sized where the engine keeps it, and named", "[cli][kv]") {
  // Gemma-4-31B-IT-NVFP4 (hf_golden.test.cpp: 901,120 B a token in bf16 over its 60 layers; 450,560 in fp8),
  // kv_cache_scheme {"dynamic": false, "num_bits": 8, "type": "float"}: vLLM 0.14+, SGLang and TensorRT-LLM keep it.
  const std::string gemma = kvsize::test::config("nvidia__Gemma-4-31B-IT-NVFP4.config.json");
  const auto vllm = json_of(gemma + " --engine vllm");
  CHECK(vllm["k_dtype"] == "fp8_e4m3");
  CHECK(vllm["kv_bytes_per_token"] == 450'560ULL);
  const auto v13 = json_of(gemma + " --engine vllm --engine-version 0.13");
  CHECK(v13["k_dtype"] == "bf16");
  CHECK(v13["kv_bytes_per_token"] == 901'120ULL);
  const auto bf16 = json_of(gemma + " --engine vllm --kv-dtype bf16");
  CHECK(bf16["kv_bytes_per_token"] == 901'120ULL);
  CHECK(json_of(gemma + " --engine sglang")["kv_bytes_per_token"] == 450'560ULL);
  CHECK(json_of(gemma + " --engine trtllm")["kv_bytes_per_token"] == 450'560ULL);
  CHECK(json_of(gemma)["kv_bytes_per_token"] == 901'120ULL);                         // exact: the model dtype
  CHECK(json_of(gemma + " --engine llama.cpp")["kv_bytes_per_token"] == 450'560ULL * 2);  // f16
  const std::string declares = "/quantization_config/kv_cache_scheme declares an FP8 KV cache, which ";
  CHECK(noted(vllm, declares + "vLLM 0.19 keeps at its default cache dtype"));
  CHECK(noted(v13, declares + "vLLM 0.13 does not take at its default cache dtype"));
  CHECK_FALSE(noted(bf16, declares));  // the cache type was named
  CHECK(noted(json_of(gemma + " --engine sglang --kv-dtype auto"), declares + "SGLang "));
  CHECK_FALSE(noted(json_of(gemma + " --engine llama.cpp"), declares));  // never keeps it: -ctk / -ctv
  CHECK_FALSE(noted(json_of(gemma), declares));
  CHECK_THAT(kvsize::test::run_cli(gemma + " --engine vllm").out, ContainsSubstring("declares an FP8 KV cache"));
  // TensorRT-LLM refuses a 16-bit cache on it: exit 2, the option and the key named, nothing on stdout.
  const auto refused = kvsize::test::run_cli(gemma + " --engine trtllm --kv-dtype bf16");
  CHECK(refused.exit_code == 2);
  CHECK(refused.out.empty());
  CHECK_THAT(refused.err, ContainsSubstring("--kv-dtype bf16: TensorRT-LLM keeps the FP8 KV cache the checkpoint "
                                            "declares"));
  CHECK_THAT(refused.err, ContainsSubstring("nvidia__Gemma-4-31B-IT-NVFP4.config.json:/quantization_config/kv_cache_scheme)"));
  CHECK(kvsize::test::run_cli(gemma + " --engine trtllm --k-dtype fp8").exit_code == 0);
  // The engine's command line names a 16-bit cache that the release would otherwise replace with the checkpoint's.
  const auto vllm_bf16 = json_of(gemma + " --engine vllm --kv-dtype bf16 --gpu h100-80gb");
  CHECK_THAT(vllm_bf16["plan"]["command_line"].get<std::string>(), ContainsSubstring("--kv-cache-dtype bfloat16"));
  const auto vllm_auto = json_of(gemma + " --engine vllm --gpu h100-80gb");
  // At auto the checkpoint's FP8 is what vLLM takes (as "fp8_e4m3"): the command leaves the flag out.
  CHECK(vllm_auto["kv_bytes_per_token"] == 450'560ULL);
  CHECK_THAT(vllm_auto["plan"]["command_line"].get<std::string>(), !ContainsSubstring("--kv-cache-dtype"));
  const auto sglang_bf16 = json_of(gemma + " --engine sglang --kv-dtype bf16 --gpu h100-80gb");
  CHECK_THAT(sglang_bf16["plan"]["command_line"].get<std::string>(), ContainsSubstring("--kv-cache-dtype bf16"));
  // A type the engine's option cannot name over it: exit 2 naming the option that gave it and the key; vLLM's
  // float16 from 0.18 is named.
  for (const std::string& args : {std::string{" --engine vllm --kv-dtype f32"},
                                  std::string{" --engine vllm --kv-dtype f16 --engine-version 0.17"},
                                  std::string{" --engine sglang --v-dtype f16"}}) {
    INFO(args);
    const auto unnamed = kvsize::test::run_cli(gemma + args);
    CHECK(unnamed.exit_code == 2);
    CHECK(unnamed.out.empty());
    CHECK_THAT(unnamed.err, ContainsSubstring(args.find("--v-dtype") != std::string::npos ? "--v-dtype f16: SGLang's"
                                                                                           : "--kv-dtype f"));
    CHECK_THAT(unnamed.err, ContainsSubstring("nvidia__Gemma-4-31B-IT-NVFP4.config.json:/quantization_config/kv_cache_scheme)"));
  }
  // K float16 (named from 0.18), V float32: the option that set the type vLLM cannot name.
  const auto mixed = kvsize::test::run_cli(gemma + " --engine vllm --k-dtype f16 --v-dtype f32");
  CHECK(mixed.exit_code == 2);
  CHECK_THAT(mixed.err, ContainsSubstring("--v-dtype f32: vLLM's --kv-cache-dtype auto"));
  const auto vllm_f16 = json_of(gemma + " --engine vllm --kv-dtype f16 --engine-version 0.18 --gpu h100-80gb");
  CHECK(vllm_f16["kv_bytes_per_token"] == 901'120ULL);
  CHECK_THAT(vllm_f16["plan"]["command_line"].get<std::string>(), ContainsSubstring("--kv-cache-dtype float16"));
  const auto plain_bf16 = json_of(kvsize::test::config("meta-llama__Llama-3.1-8B.config.json") +
                                  " --engine vllm --kv-dtype bf16 --gpu h100-80gb");  // declares nothing: auto
  CHECK_THAT(plain_bf16["plan"]["command_line"].get<std::string>(), !ContainsSubstring("--kv-cache-dtype"));
}

TEST_CASE("kvsize: compressed-tensors' FP8 cache under vLLM's releases", "[cli][kv]") {
  // Llama-3.1-8B with a compressed-tensors kv_cache_scheme: 131,072 B a token in bf16, 65,536 in fp8.
  const temp_folder dir("kvsize-ct-kv");
  std::ofstream(dir.path / "config.json") << text_with_quantization("meta-llama__Llama-3.1-8B",
      R"({"quant_method": "compressed-tensors", "kv_cache_scheme": {"num_bits": 8, "type": "float",
      "strategy": "tensor", "dynamic": false, "symmetric": true}})");
  const std::string config = "'" + (dir.path / "config.json").string() + "'";
  CHECK(json_of(config + " --engine vllm")["kv_bytes_per_token"] == 65'536ULL);
  CHECK(json_of(config + " --engine vllm --engine-version 0.14")["kv_bytes_per_token"] == 131'072ULL);
  const auto over = json_of(config + " --engine vllm --kv-dtype bf16");  // 0.19 puts fp8 over the option
  CHECK(over["kv_bytes_per_token"] == 65'536ULL);
  const std::string overridden =
      "/quantization_config/kv_cache_scheme declares an FP8 KV cache, which vLLM 0.19 keeps at its default cache "
      "dtype and over an explicit one (Attention.__init__, until 0.22; docs/engines.md): kvsize sized fp8_e4m3; "
      "--engine-version 0.22 --kv-dtype bf16 sizes a 16-bit cache";
  CHECK(noted(over, overridden));
  CHECK(noted(json_of(config + " --engine vllm"), overridden));
  // A GGML block type is refused as vLLM refuses it, not overridden.
  const auto q8 = kvsize::test::run_cli(config + " --engine vllm --kv-dtype q8_0");
  CHECK(q8.exit_code == 2);
  CHECK(q8.out.empty());
  CHECK(json_of(config + " --engine vllm --kv-dtype bf16 --engine-version 0.22")["kv_bytes_per_token"] == 131'072ULL);
  CHECK(json_of(config + " --engine sglang")["kv_bytes_per_token"] == 131'072ULL);
  // The FP8 the option names is not "overridden": no note.
  const auto named_fp8 = json_of(config + " --engine vllm --kv-dtype fp8");
  CHECK(named_fp8["kv_bytes_per_token"] == 65'536ULL);
  CHECK_FALSE(noted(named_fp8, "declares an FP8 KV cache"));
  // TensorRT-LLM reads the scheme from PR #17334 only, a release kvsize cannot name: the serving dtype, hedged.
  const auto trtllm = json_of(config + " --engine trtllm");
  CHECK(trtllm["kv_bytes_per_token"] == 131'072ULL);
  CHECK(noted(trtllm, "declares an FP8 KV cache, which TensorRT-LLM takes only from PR #17334 (August 2026; kvsize "
                      "sizes the releases before it) at its default cache dtype"));
}
