// SPDX-License-Identifier: MIT
// A quantized checkpoint that declares an FP8 KV cache (ModelOpt's kv_cache_scheme or kv_cache_quant_algo "FP8",
// compressed-tensors' kv_cache_scheme): the reader records the key (parsed_config::checkpoint_kv_fp8), and the
// command says, for the serving engines that may keep it at their default cache dtype (docs/engines.md, "An FP8 KV
// cache the checkpoint declares"), which dtype it sized and which option sizes FP8. kvsize does not yet switch an
// engine's default to it.
#include <kvsize/hf_config.hpp>

#include "cli_support.hpp"
#include "hf_support.hpp"
#include "weights_support.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

using Catch::Matchers::ContainsSubstring;
using kvsize::test::has_warning;
using kvsize::test::json_of;
using namespace kvsize::test::weights_configs;

namespace {

auto llama_with(const std::string& quantization_config) -> kvsize::hf::parsed_config {
  return with_quantization("meta-llama__Llama-3.1-8B", quantization_config);
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
  CHECK(has_warning(int8, "/quantization_config/kv_cache_scheme: a KV cache quantization kvsize does not read"));
  CHECK(llama_with(R"({"quant_method": "gptq", "bits": 4, "group_size": 128, "kv_cache_quant_algo": "FP8"})")
            .checkpoint_kv_fp8.empty());
  // A malformed weights key after it leaves the weights unknown, not the KV fact.
  const auto bad = llama_with(R"({"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": "16",
      "kv_cache_quant_algo": "FP8"})");
  CHECK_FALSE(bad.weights_unknown_because.empty());
  CHECK(bad.checkpoint_kv_fp8 == "/quantization_config/kv_cache_quant_algo");
}

TEST_CASE("kvsize: a declared FP8 KV cache is named, and --kv-dtype fp8 sizes it", "[cli][kv]") {
  // Gemma-4-31B-IT-NVFP4 (hf_golden.test.cpp: 901,120 B a token in bf16 over its 60 layers): kvsize sizes the
  // engine's default for the model, bf16, and says that the engine may keep the checkpoint's FP8 instead.
  const std::string gemma = kvsize::test::config("nvidia__Gemma-4-31B-IT-NVFP4.config.json");
  const auto vllm = json_of(gemma + " --engine vllm");
  CHECK(vllm["k_dtype"] == "bf16");
  CHECK(vllm["kv_bytes_per_token"] == 901'120ULL);
  const auto fp8 = json_of(gemma + " --engine vllm --kv-dtype fp8");
  CHECK(fp8["k_dtype"] == "fp8_e4m3");
  CHECK(fp8["kv_bytes_per_token"] == 450'560ULL);
  const auto noted = [](const nlohmann::json& j) {
    const auto& w = j["warnings"];
    return std::any_of(w.begin(), w.end(), [](const nlohmann::json& one) {
      return one.get<std::string>().find("/quantization_config/kv_cache_scheme declares an FP8 KV cache") !=
             std::string::npos;
    });
  };
  CHECK(noted(vllm));
  CHECK_FALSE(noted(fp8));  // the cache type was named
  CHECK(noted(json_of(gemma + " --engine sglang --kv-dtype auto")));
  CHECK(noted(json_of(gemma + " --engine trtllm --k-dtype fp8")));  // V took the default
  CHECK_FALSE(noted(json_of(gemma + " --engine llama.cpp")));  // never keeps it: -ctk / -ctv
  CHECK_FALSE(noted(json_of(gemma)));                         // exact: the model dtype
  CHECK_THAT(kvsize::test::run_cli(gemma + " --engine vllm").out, ContainsSubstring("declares an FP8 KV cache"));
}
