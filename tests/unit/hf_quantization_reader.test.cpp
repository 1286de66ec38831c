// SPDX-License-Identifier: MIT
// kvsize/hf/quantization_reader.hpp: quantization_config, read once and in full.
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
