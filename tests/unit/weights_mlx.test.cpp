// SPDX-License-Identifier: MIT
// MLX (mlx-lm) quantized folders: config.json's `quantization` object read as weights_scheme::mlx,
// and its bytes (weights_bytes.hpp mlx_bytes). Facts and sources: docs/research/mlx-folders.md.
#include <kvsize/hf_config.hpp>
#include <kvsize/kvsize.hpp>
#include <kvsize/weights.hpp>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace {

/// configs/<name>.config.json with `quantization` (and mlx-lm's copy as quantization_config) set to `q`.
auto mlx_config(const std::string& name, const nlohmann::json& q, bool copy = true) -> kvsize::hf::parsed_config {
  std::ifstream in(std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs" / (name + ".config.json"));
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json c = nlohmann::json::parse(text.str());
  c["quantization"] = q;
  if (copy) {
    c["quantization_config"] = q;
  }
  return kvsize::hf::parse_config(c.dump(), name + "/config.json");
}

auto warnings_text(const kvsize::hf::parsed_config& c) -> std::string {
  std::string all;
  for (const auto& w : c.warnings) {
    all += w + "\n";
  }
  return all;
}

}  // namespace

TEST_CASE("MLX: Qwen2.5-1.5B at affine 2-bit, groups of 128: the published index total_size", "[weights][mlx]") {
  // https://huggingface.co/TheBlueObserver/Qwen2.5-1.5B-Instruct-MLX-c6059/commit/2883667f3f358c9d86c44c6390df4eee268c3cd4:
  // model.safetensors.index.json "total_size": 434418688, with embed_tokens quantized (its .scales and .biases).
  // Every Linear and the (tied) embedding: rows × cols × 2 / 8 B, plus a 16-bit scale and bias per 128 inputs;
  // norms and the q/k/v biases in bf16.
  const auto c = mlx_config("Qwen__Qwen2.5-1.5B", {{"group_size", 128}, {"bits", 2}});
  REQUIRE(c.quantization);
  REQUIRE(c.quantization->format);
  CHECK(c.quantization->format->scheme == kvsize::weights_scheme::mlx);
  CHECK(kvsize::weights_bytes(c.spec, *c.quantization->format) == kvsize::bytes{434'418'688});
  CHECK(c.warnings.empty());
  // Only "quantization" (mlx-lm before its quantization_config copy, 2024-09): the same.
  const auto old = mlx_config("Qwen__Qwen2.5-1.5B", {{"group_size", 128}, {"bits", 2}}, false);
  REQUIRE(old.quantization);
  CHECK(old.quantization->format == c.quantization->format);
}

TEST_CASE("MLX: Llama-3.1-8B at mlx-lm's default 4-bit g64, as the Hub counts its tensors", "[weights][mlx]") {
  // https://huggingface.co/mlx-community/Meta-Llama-3.1-8B-Instruct-4bit (mlx-lm 0.16.0, FP16 scales): the Hub
  // shows "1.25B params", its count of stored elements: one per uint32 word, per scale and per bias, plus
  // the unquantized norms. The default mode, bits and group size fill in what the object leaves out.
  const auto c = mlx_config("meta-llama__Llama-3.1-8B", nlohmann::json::object({{"bits", 4}}));
  REQUIRE(c.quantization);
  REQUIRE(c.quantization->format);
  CHECK(c.quantization->format->group_size == 64);
  const auto b = kvsize::weights_bytes_detail(c.spec, *c.quantization->format);
  const std::uint64_t stored_elements = b.quantized.count() / 4 + b.scales.count() / 2 + b.unquantized.count() / 2;
  CHECK(stored_elements == 1'254'952'960);  // 1.25B
  CHECK(b.total == kvsize::bytes{4'517'404'672});
  // 4-bit g64 with a 16-bit scale and bias: 32 B of values and 4 B beside them per 64 inputs (4.5 bits a weight).
  CHECK(b.scales.count() * 8 == b.quantized.count());
}

TEST_CASE("MLX: the fp modes keep one uint8 scale per group and no bias", "[weights][mlx]") {
  const auto mx = mlx_config("meta-llama__Llama-3.1-8B", {{"mode", "mxfp4"}});  // defaults: 4 bits, groups of 32
  REQUIRE(mx.quantization->format);
  CHECK(mx.quantization->format->mlx == kvsize::mlx_mode::mxfp4);
  const auto b = kvsize::weights_bytes_detail(mx.spec, *mx.quantization->format);
  CHECK(b.scales.count() * 16 == b.quantized.count());  // 16 B of values and 1 B of scale per 32 inputs
  const auto nv = mlx_config("meta-llama__Llama-3.1-8B", {{"mode", "nvfp4"}, {"bits", 4}, {"group_size", 16}});
  const auto bn = kvsize::weights_bytes_detail(nv.spec, *nv.quantization->format);
  CHECK(bn.scales.count() * 8 == bn.quantized.count());  // 8 B and 1 B per 16
  CHECK(bn.quantized == b.quantized);
}

TEST_CASE("MLX: what mlx does not make is a warning, and the KV answer stands", "[weights][mlx][hostile]") {
  const auto seven = mlx_config("Qwen__Qwen2.5-1.5B", {{"group_size", 64}, {"bits", 7}});
  CHECK_FALSE(seven.quantization->format);
  CHECK_THAT(warnings_text(seven), Catch::Matchers::ContainsSubstring("MLX affine with 7 bits in groups of 64 is not"));
  CHECK(seven.spec.layers == 28);
  const auto odd = mlx_config("Qwen__Qwen2.5-1.5B", {{"mode", "fp3"}});
  CHECK_FALSE(odd.quantization->format);
  CHECK_THAT(warnings_text(odd), Catch::Matchers::ContainsSubstring("/quantization_config/mode = \"fp3\""));
  const auto wrong_group = mlx_config("Qwen__Qwen2.5-1.5B", {{"mode", "mxfp4"}, {"group_size", 64}});
  CHECK_FALSE(wrong_group.quantization->format);
  // Per-module entries (a mixed recipe): sized at the top level, and said so.
  const auto mixed = mlx_config("Qwen__Qwen2.5-1.5B", {{"group_size", 64},
                                                        {"bits", 3},
                                                        {"model.layers.0.mlp.down_proj", {{"group_size", 64}, {"bits", 6}}},
                                                        {"lm_head", false}});
  REQUIRE(mixed.quantization->format);
  CHECK(mixed.quantization->format->bits == 3);
  CHECK_THAT(warnings_text(mixed), Catch::Matchers::ContainsSubstring("2 per-module entries"));
  // A transformers quantization_config always names its method: not taken for MLX.
  const auto gptq = mlx_config("Qwen__Qwen2.5-1.5B", {{"quant_method", "gptq"}, {"bits", 4}, {"group_size", 128}});
  CHECK(gptq.quantization->format->scheme == kvsize::weights_scheme::gptq);
}
