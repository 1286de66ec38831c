// SPDX-License-Identifier: MIT
// kvsize::hf against hostile config.json files (issue 11, part 1), one defect class per test case:
//  * per-layer keys are read once, by the layer plan, and shared with the weights reader: a stray
//    one of another architecture is ignored (with a warning), a malformed one that decides the
//    layers is an error naming it; never an out-of-bounds read, a raw nlohmann exception or a
//    wrong number;
//  * Python's bare NaN / Infinity / -Infinity in a key kvsize reads is an error that names the
//    literal; in a key it never reads it is harmless;
//  * impossible values (a negative window nobody uses, 0 routed experts, Mamba groups that do not
//    divide the heads, bytes after the document, conflicting duplicate keys) are refused.
// The files of configs/invalid/ these tests name also have their row (code + pointer) in
// hf_config.test.cpp.
#include <kvsize/hf_config.hpp>
#include <kvsize/kv_cache.hpp>
#include <kvsize/weights.hpp>

#include "hf_support.hpp"
#ifdef KVSIZE_CLI_PATH
#include "cli_support.hpp"
#endif

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

using kvsize::hf::config_errc;
using kvsize::hf::config_error;
using kvsize::test::configs_dir;
using kvsize::test::weights_unknown_of;
using kvsize::test::weights_unknown_of_file;
using kvsize::test::error_of;
using kvsize::test::has_warning;

auto text_of(const std::string& name) -> std::string {
  std::ifstream in(configs_dir() / name, std::ios::binary);
  REQUIRE(in);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// `text` with its one occurrence of `from` replaced by `to` (REQUIREs exactly one).
auto replaced(std::string text, std::string_view from, std::string_view to) -> std::string {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  REQUIRE(text.find(from, at + 1) == std::string::npos);
  text.replace(at, from.size(), to);
  return text;
}

/// `text` (an object) with `members` added first.
auto with_members(std::string text, std::string_view members) -> std::string {
  const std::size_t brace = text.find('{');
  REQUIRE(brace != std::string::npos);
  text.insert(brace + 1, std::string(members) + ",");
  return text;
}

/// The config_error loading configs/`name` throws.
auto error_of_file(const std::string& name) -> config_error { return kvsize::test::error_of_file(configs_dir() / name); }

auto contains(const std::string& s, std::string_view part) -> bool { return s.find(part) != std::string::npos; }

constexpr std::uint64_t r1_parameters = 671'026'419'200;  // cli.test.cpp: docs/research/param-counts.md

const std::string llama = R"({"model_type": "llama", "num_hidden_layers": 8, "num_attention_heads": 8,
  "num_key_value_heads": 2, "hidden_size": 1024, "intermediate_size": 4096, "vocab_size": 32000,
  "max_position_embeddings": 8192, "torch_dtype": "bfloat16", "tie_word_embeddings": false})";

}  // namespace

TEST_CASE("hostile: a stray per-layer key of another architecture is ignored, never misread", "[hf][hostile]") {
  const std::string r1 = text_of("deepseek-ai__DeepSeek-R1.config.json");
  REQUIRE(kvsize::parameters(kvsize::hf::parse_config(r1).spec).total == r1_parameters);
  // Before: [] segfaulted (out-of-bounds read), [{}] read past the array under ASan, a string let
  // nlohmann's type_error escape, and 200 'M's gave 13,267,349,504 parameters.
  for (const char* stray : {R"("block_configs": [])", R"("block_configs": [{"ffn": {"ffn_mult": 1.0}}])",
                            R"("block_configs": "abc")", R"("block_configs": ["attention", 7])",
                            R"("block_configs": NaN)", R"("hybrid_override_pattern": "MMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMM")",
                            R"("hybrid_override_pattern": "E*-E")", R"("hybrid_override_pattern": 5)",
                            R"("layers_block_type": ["mamba"])"}) {
    INFO(stray);
    const auto c = kvsize::hf::parse_config(with_members(r1, stray));
    CHECK(kvsize::parameters(c.spec).total == r1_parameters);
    CHECK(c.spec.latent.kv_lora_rank == 512);
    CHECK(has_warning(c, "is not read: the layers are decided by /kv_lora_rank, which takes precedence"));
  }
  // The quirk file: both strays at once on a small latent model, the same numbers as without them.
  const auto quirk = kvsize::hf::load_config(configs_dir() / "quirks" / "stray_per_layer_keys_ignored.json");
  nlohmann::json clean = nlohmann::json::parse(text_of("quirks/stray_per_layer_keys_ignored.json"));
  clean.erase("block_configs");
  clean.erase("hybrid_override_pattern");
  const auto plain = kvsize::hf::parse_config(clean.dump());
  CHECK(kvsize::parameters(quirk.spec).total == kvsize::parameters(plain.spec).total);
  CHECK(kvsize::kv_bytes(quirk.spec, 4096, 1) == kvsize::kv_bytes(plain.spec, 4096, 1));
  CHECK(has_warning(quirk, "/block_configs is not read"));
  CHECK(has_warning(quirk, "/hybrid_override_pattern is not read"));
}

TEST_CASE("hostile: layer_types over a stray block_configs still reads the KV heads", "[hf][hostile]") {
  // The KV heads used to be skipped whenever block_configs was set, even when layer_types decided
  // the layers: 0 KV heads reached validate().
  const auto c = kvsize::hf::parse_config(with_members(
      llama, R"("layer_types": ["full_attention", "full_attention", "full_attention", "full_attention",
                 "full_attention", "full_attention", "full_attention", "full_attention"], "block_configs": [])"));
  CHECK(c.spec.kv_heads == 2);
  CHECK(has_warning(c, "/block_configs is not read: the layers are decided by /layer_types"));
}

TEST_CASE("hostile: a per-layer key that decides the layers is checked once, wherever it is read", "[hf][hostile]") {
  const std::string super = text_of("nvidia__Llama-3_3-Nemotron-Super-49B-v1.config.json");
  nlohmann::json doc = nlohmann::json::parse(super);
  const auto variant = [&](const nlohmann::json& block_configs) {
    nlohmann::json d = doc;
    d["block_configs"] = block_configs;
    return error_of(d.dump());
  };
  const config_error empty = variant(nlohmann::json::array());
  CHECK(empty.code() == config_errc::inconsistent);
  CHECK(empty.pointer() == "/block_configs");
  CHECK(empty.message() == "expected 80 entries (one per layer, num_hidden_layers = 80), got 0");
  nlohmann::json short_list = doc["block_configs"];
  short_list.erase(short_list.size() - 1);
  CHECK(variant(short_list).pointer() == "/block_configs");
  nlohmann::json with_string = doc["block_configs"];
  with_string[79] = "ffn";
  const config_error str = variant(with_string);
  CHECK(str.code() == config_errc::wrong_type);
  CHECK(str.pointer() == "/block_configs/79");
  // A block without its FFN entry: the FFN is weights only, so the weights are unknown and the KV stands.
  nlohmann::json ffn_missing = doc;
  ffn_missing["block_configs"][3].erase("ffn");
  CHECK(weights_unknown_of(ffn_missing.dump()).starts_with("/block_configs/3/ffn: expected"));
  CHECK(error_of_file("invalid/block_configs_entry_string.json").message() == "expected an object, got \"attention\"");
  CHECK(error_of_file("invalid/block_configs_not_array.json").message() == "expected an array, got \"8,8,8,8\"");
}

TEST_CASE("hostile: nothing but config_error leaves parse_config", "[hf][hostile]") {
  // Values of every JSON type (and the non-finite literals) at every per-layer key and at keys
  // the readers index or iterate, on configs whose plan each key would decide.
  const std::vector<std::string> values{"null", "true", "0", "-1", "1.5", "NaN", "-Infinity", R"("x")", "[]",
                                        "[1]", R"(["x"])", "[{}]", "{}", R"({"a": []})"};
  const std::vector<std::string> keys{"block_configs", "hybrid_override_pattern", "layer_types", "layers_block_type",
                                      "no_rope_layers", "mlp_only_layers", "quantization_config", "vision_config",
                                      "text_config", "attn_config", "architectures", "rope_scaling"};
  std::size_t parsed = 0;
  for (const char* base : {"deepseek-ai__DeepSeek-R1.config.json", "nvidia__Nemotron-H-56B-Base-8K.config.json",
                           "meta-llama__Llama-4-Scout-17B-16E-Instruct.config.json", "Qwen__Qwen3-30B-A3B.config.json"}) {
    std::string source = text_of(base);
    for (std::size_t at = source.find("Infinity"); at != std::string::npos; at = source.find("Infinity")) {
      source.replace(at, 8, "1e300");  // Nemotron-H's time_step_limit: nlohmann reads JSON only
    }
    nlohmann::json doc = nlohmann::json::parse(source);
    for (const auto& key : keys) {
      for (const auto& value : values) {
        nlohmann::json d = doc;
        d.erase(key);  // one member only: a second one with another value would be a conflict
        const std::string text = with_members(d.dump(), "\"" + key + "\": " + value);
        INFO(base << " " << key << " = " << value);
        try {
          (void)kvsize::hf::parse_config(text);
          ++parsed;
        } catch (const config_error&) {
        }
      }
    }
  }
  CHECK(parsed > 0);
}

TEST_CASE("hostile: a non-finite number in a key kvsize reads is an error that names it", "[hf][hostile]") {
  struct row {
    const char* file;
    const char* pointer;
    const char* literal;
  };
  for (const row& r : {row{"invalid/kv_lora_rank_nan.json", "/kv_lora_rank", "NaN"},
                       row{"invalid/sliding_window_nan.json", "/sliding_window", "NaN"},
                       row{"invalid/intermediate_size_nan.json", "/intermediate_size", "NaN"},
                       row{"invalid/kv_heads_nan.json", "/num_key_value_heads", "NaN"},
                       row{"invalid/max_position_embeddings_minus_infinity.json", "/max_position_embeddings", "-Infinity"},
                       row{"invalid/layers_bare_infinity.json", "/num_hidden_layers", "Infinity"}}) {
    INFO(r.file);
    const config_error e = error_of_file(r.file);
    CHECK(e.pointer() == r.pointer);
    CHECK(contains(e.message(), std::string("got ") + r.literal));
    CHECK_FALSE(contains(e.message(), "null"));
    CHECK_FALSE(contains(e.message(), "absent"));
  }
  // In a key only the weights read, the same words, and the config is read with its weights uncounted.
  CHECK(weights_unknown_of_file("weights_unknown/num_local_experts_nan.json").starts_with("/num_local_experts: expected a positive integer, got NaN"));
  CHECK(weights_unknown_of_file("weights_unknown/decilm_ffn_mult_infinity.json")
            .starts_with("/block_configs/0/ffn/ffn_mult: expected a number in (0, 64], got Infinity"));
  CHECK(error_of_file("invalid/kv_heads_nan.json").message() ==
        "expected a positive integer, got NaN (a bare non-finite literal, Python's json extension)");
  // In the real configs: each was taken as absent before (DeepSeek-R1 41 times too large, Mistral
  // without its window, Mixtral dense, MHA instead of GQA).
  const std::string r1 = text_of("deepseek-ai__DeepSeek-R1.config.json");
  CHECK(error_of(replaced(r1, R"("kv_lora_rank": 512)", R"("kv_lora_rank": NaN)")).pointer() == "/kv_lora_rank");
  CHECK(weights_unknown_of(replaced(r1, R"("n_routed_experts": 256)", R"("n_routed_experts": Infinity)")).starts_with("/n_routed_experts: "));
  CHECK(weights_unknown_of(replaced(r1, R"("q_lora_rank": 1536)", R"("q_lora_rank": NaN)")).starts_with("/q_lora_rank: "));
  const std::string mistral = text_of("mistralai__Mistral-7B-v0.1.config.json");
  CHECK(error_of(replaced(mistral, R"("sliding_window": 4096)", R"("sliding_window": NaN)")).pointer() ==
        "/sliding_window");
  // The MLP width is read by the activation and compute-buffer estimates too: refused, not weights-only.
  CHECK(error_of(replaced(mistral, R"("intermediate_size": 14336)", R"("intermediate_size": NaN)")).pointer() ==
        "/intermediate_size");
  const std::string mixtral = text_of("mistralai__Mixtral-8x7B-v0.1.config.json");
  CHECK(weights_unknown_of(replaced(mixtral, R"("num_local_experts": 8)", R"("num_local_experts": NaN)"))
            .starts_with("/num_local_experts: expected a positive integer, got NaN"));
  CHECK(error_of(replaced(mixtral, R"("num_key_value_heads": 8)", R"("num_key_value_heads": -Infinity)")).pointer() ==
        "/num_key_value_heads");
  // An optional key that null would switch off: NaN is not null.
  CHECK(weights_unknown_of(replaced(llama, R"("tie_word_embeddings": false)", R"("tie_word_embeddings": NaN)")) ==
        "/tie_word_embeddings: expected true or false, got NaN");
  CHECK(error_of(replaced(llama, R"("torch_dtype": "bfloat16")", R"("torch_dtype": Infinity)")).message() ==
        "expected a string, got Infinity");
  // The nlohmann ADL hook: a document built in code may hold a NaN double; the same check applies.
  nlohmann::json j = nlohmann::json::parse(llama);
  j["num_key_value_heads"] = std::numeric_limits<double>::quiet_NaN();
  try {
    (void)j.get<kvsize::model_spec>();
    FAIL("no config_error");
  } catch (const config_error& e) {
    CHECK(e.pointer() == "/num_key_value_heads");
    CHECK(contains(e.message(), "got NaN"));
  }
}

TEST_CASE("hostile: a non-finite number in a key kvsize never reads stays harmless", "[hf][hostile]") {
  const std::string r1 = text_of("deepseek-ai__DeepSeek-R1.config.json");
  const auto c = kvsize::hf::parse_config(replaced(r1, R"("initializer_range": 0.02)", R"("initializer_range": NaN)"));
  CHECK(kvsize::parameters(c.spec).total == r1_parameters);
  CHECK(has_warning(c, "/initializer_range: bare NaN (Python's json extension, not JSON); no key kvsize reads may hold it"));
  const auto nested = kvsize::hf::parse_config(
      replaced(r1, R"("beta_fast": 32)", R"("beta_fast": -Infinity, "limits": [NaN, Infinity, null])"));
  CHECK(kvsize::parameters(nested.spec).total == r1_parameters);
  CHECK(has_warning(nested, "/rope_scaling/beta_fast: bare -Infinity"));
  CHECK(has_warning(nested, "/rope_scaling/limits/1: bare Infinity"));
  // A real null after the literals is still null (the literals are matched to the nulls in order).
  const auto nulls = kvsize::hf::parse_config(with_members(llama, R"("a": [NaN, null, Infinity], "head_dim": null)"));
  CHECK(nulls.spec.head_dim == 128);
  // Nemotron-H's "time_step_limit": [0.0, Infinity] is such a key.
  CHECK_NOTHROW(kvsize::hf::load_config(configs_dir() / "nvidia__Nemotron-H-56B-Base-8K.config.json"));
}

TEST_CASE("hostile: a window no layer uses must still be a window size", "[hf][hostile]") {
  const config_error e = error_of_file("invalid/sliding_window_negative_unused.json");
  CHECK(e.code() == config_errc::out_of_range);
  CHECK(e.message() == "expected a non-negative integer, got -4096");
  const std::string qwen = text_of("Qwen__Qwen2.5-7B.config.json");  // use_sliding_window false
  CHECK(error_of(replaced(qwen, R"("sliding_window": 131072)", R"("sliding_window": -1)")).pointer() == "/sliding_window");
  CHECK(error_of(replaced(qwen, R"("sliding_window": 131072)", R"("sliding_window": 4096.5)")).code() ==
        config_errc::wrong_type);
  // null and 0 are "no window" to transformers; an unused positive window is fine.
  CHECK(kvsize::hf::parse_config(replaced(qwen, R"("sliding_window": 131072)", R"("sliding_window": 0)")).spec.sliding_window == 0);
  CHECK(kvsize::hf::parse_config(replaced(qwen, R"("sliding_window": 131072)", R"("sliding_window": null)")).spec.sliding_window == 0);
  CHECK(kvsize::hf::parse_config(qwen).spec.sliding_window == 0);
}

TEST_CASE("hostile: 0 routed experts where the architecture routes leaves the weights uncounted", "[hf][hostile]") {
  CHECK(weights_unknown_of_file("weights_unknown/num_local_experts_zero.json") ==
        "/num_local_experts: expected a positive integer, got 0");
  CHECK(weights_unknown_of_file("weights_unknown/n_routed_experts_zero.json").starts_with("/n_routed_experts: "));
  // No expert count at all: sized as dense it would count one MLP per layer instead of eight, so the
  // weights are not counted (the KV cache does not read the key).
  CHECK(weights_unknown_of_file("weights_unknown/num_local_experts_missing.json") ==
        "/num_local_experts: expected the number of routed experts (num_local_experts, num_experts or n_routed_experts) "
        "as model_type mixtral routes tokens to experts, got nothing");
  const std::string mixtral = text_of("mistralai__Mixtral-8x7B-v0.1.config.json");
  CHECK(weights_unknown_of(replaced(mixtral, R"("num_local_experts": 8)", R"("num_local_experts": 0)")).starts_with("/num_local_experts: "));
  const std::string qwen_moe = text_of("Qwen__Qwen3-30B-A3B.config.json");
  CHECK(weights_unknown_of(replaced(qwen_moe, R"("num_experts": 128)", R"("num_experts": 0)")).starts_with("/num_experts: "));
  CHECK(weights_unknown_of(replaced(qwen_moe, R"("num_experts": 128,)", "")).starts_with("/num_experts: "));
  // Granite 4 builds no MoE block for num_local_experts 0 (a dense model), Jamba none for 0 or 1.
  const std::string granite = R"({"model_type": "granitemoehybrid", "num_hidden_layers": 4, "num_attention_heads": 32,
    "num_key_value_heads": 8, "hidden_size": 2048, "vocab_size": 100352, "intermediate_size": 8192,
    "torch_dtype": "bfloat16", "tie_word_embeddings": true, "max_position_embeddings": 131072,
    "layers_block_type": ["mamba", "mamba", "attention", "mamba"], "num_local_experts": 0, "num_experts_per_tok": 0,
    "mamba_n_heads": 64, "mamba_d_head": 64, "mamba_d_state": 128, "mamba_d_conv": 4, "mamba_n_groups": 1,
    "mamba_expand": 2})";
  CHECK(kvsize::hf::parse_config(granite).spec.weights.moe.experts == 0);
  const std::string jamba = text_of("ai21labs__Jamba-v0.1.config.json");
  REQUIRE(kvsize::hf::parse_config(jamba).spec.weights.moe.experts == 16);
  for (const char* n : {"0", "1"}) {
    INFO(n);
    const auto dense = kvsize::hf::parse_config(replaced(jamba, R"("num_experts": 16)", std::string(R"("num_experts": )") + n));
    CHECK(dense.spec.weights.moe.experts == 0);
  }
  // A Nemotron-H pattern with MoE blocks needs its experts to count its weights; its KV and state stand.
  CHECK(weights_unknown_of_file("weights_unknown/hybrid_pattern_moe_without_experts.json")
            .starts_with("/n_routed_experts: expected the number of routed experts"));
}

TEST_CASE("hostile: Mamba2 groups must divide the heads", "[hf][hostile]") {
  const config_error e = error_of_file("invalid/mamba_n_groups_not_dividing_heads.json");
  CHECK(e.code() == config_errc::inconsistent);
  CHECK(e.pointer() == "/n_groups");
  CHECK(e.message() == "expected a divisor of /mamba_num_heads (128), got 3");
  const std::string nh = text_of("nvidia__Nemotron-H-56B-Base-8K.config.json");
  REQUIRE_NOTHROW(kvsize::hf::parse_config(nh));
  CHECK(error_of(replaced(nh, R"("n_groups": 8)", R"("n_groups": 7)")).pointer() == "/n_groups");
  CHECK(error_of(replaced(nh, R"("n_groups": 8)", R"("n_groups": 512)")).pointer() == "/n_groups");
  CHECK_NOTHROW(kvsize::hf::parse_config(replaced(nh, R"("n_groups": 8)", R"("n_groups": 256)")));
}

TEST_CASE("hostile: nothing but whitespace may follow the document", "[hf][hostile]") {
  CHECK(error_of_file("invalid/syntax_trailing_nul.json").message() ==
        "syntax error at line 16, column 1: a NUL byte, which JSON text may not contain");
  CHECK(error_of_file("invalid/syntax_second_bom.json").message() ==
        "syntax error at line 1, column 1: a second UTF-8 byte order mark");
  CHECK(error_of_file("invalid/syntax_text_after_document.json").code() == config_errc::syntax);
  for (const std::string& tail : {std::string(1, '\0'), std::string("\0{}", 3), std::string("\xEF\xBB\xBF"), std::string(" x"),
                                 std::string("}"), std::string("\n{}"), std::string("\x1a")}) {
    INFO(nlohmann::json(nlohmann::json::binary_t(std::vector<std::uint8_t>(tail.begin(), tail.end()))).dump());
    CHECK(error_of(llama + tail).code() == config_errc::syntax);
  }
  CHECK(error_of(replaced(llama, R"("llama")", std::string("\"lla\0ma\"", 8))).code() == config_errc::syntax);
  CHECK_NOTHROW(kvsize::hf::parse_config(llama + " \t\r\n\n"));
  CHECK_NOTHROW(kvsize::hf::parse_config("\xEF\xBB\xBF" + llama));
}

TEST_CASE("hostile: a key written twice with different values is refused where it is read", "[hf][hostile]") {
  const config_error e = error_of_file("invalid/duplicate_key_conflicting_values.json");
  CHECK(e.code() == config_errc::inconsistent);
  CHECK(e.pointer() == "/num_hidden_layers");
  CHECK(e.message() ==
        "expected the key once, got it more than once with different values (16, then 32); Python's json keeps the "
        "last, some readers the first: remove the wrong ones");
  // In a key only the weights read (quantization_config): the weights are not counted, the config is read.
  CHECK(weights_unknown_of_file("weights_unknown/duplicate_key_nested_conflict.json")
            .starts_with("/quantization_config/bits: expected the key once"));
  // Three values; an escaped spelling of the same key; inside text_config; a whole sub-object twice.
  CHECK(contains(error_of(with_members(llama, R"("num_key_value_heads": 1, "num_key_value_heads": 4)")).message(),
                 "(1, then 4, then 2)"));
  CHECK(error_of(with_members(llama, R"("num_key_value_h\u0065ads": 4)")).pointer() == "/num_key_value_heads");
  const std::string gemma = text_of("google__gemma-3-4b-it.config.json");
  CHECK(error_of(replaced(gemma, R"("sliding_window": 1024)", R"("sliding_window": 1024, "sliding_window": 512)")).pointer() ==
        "/text_config/sliding_window");
  CHECK(weights_unknown_of(with_members(llama, R"("quantization_config": {"quant_method": "gptq"}, "quantization_config": {"quant_method": "awq"})")).starts_with("/quantization_config: "));
  // A key kvsize never reads may be written twice (a warning); so may a key with the same value.
  const auto harmless = kvsize::hf::load_config(configs_dir() / "quirks" / "duplicate_keys_harmless.json");
  CHECK(harmless.spec.kv_heads == 8);
  CHECK(has_warning(harmless, "/num_key_value_heads appears more than once with the same value (8)"));
  CHECK(has_warning(harmless, "/rope_theta appears more than once with different values (10000.0, then 500000.0)"));
  CHECK(has_warning(harmless, "/rope_scaling/factor appears more than once with different values (8.0, then 32.0)"));
  // Arrays are no objects: equal elements are no duplicates.
  CHECK_NOTHROW(kvsize::hf::parse_config(with_members(llama, R"("architectures": ["A", "A"])")));
}

TEST_CASE("hostile: a million notes are not listed: repeated keys and literals cost bounded memory", "[hf][hostile]") {
  std::string many_nan = R"("x": [)";
  std::string many_keys;
  std::string many_values;
  for (int i = 0; i < 100'000; ++i) {
    many_nan += i == 0 ? "NaN" : ", NaN";
    many_keys += R"("rope_theta": 1, )";
    many_values += R"("num_key_value_heads": )" + std::to_string(i % 2 + 1) + ", ";
  }
  const auto nans = kvsize::hf::parse_config(with_members(llama, many_nan + "]"));
  CHECK(nans.warnings.size() < 40);
  CHECK(has_warning(nans, "and 99984 more bare NaN / Infinity / -Infinity literals, not listed"));
  const auto keys = kvsize::hf::parse_config(with_members(llama, many_keys.substr(0, many_keys.size() - 2)));
  CHECK(keys.warnings.size() < 40);
  CHECK(has_warning(keys, "and 99983 more keys written more than once, not listed"));
  const config_error e = error_of(with_members(llama, many_values.substr(0, many_values.size() - 2)));
  CHECK(e.pointer() == "/num_key_value_heads");
  CHECK(e.message().size() < 400);
  CHECK(contains(e.message(), "(1, then 2, then 1, then 2"));
  CHECK(contains(e.message(), ", ...)"));
}

#ifdef KVSIZE_CLI_PATH
TEST_CASE("hostile: the kvsize program on hostile files: right numbers or exit 2, never a crash", "[hf][hostile][cli]") {
  const std::string r1 = text_of("deepseek-ai__DeepSeek-R1.config.json");
  const auto write = [](const std::string& text) {
    const auto path = kvsize::test::temp_path(".json");
    std::ofstream(path, std::ios::binary) << text;
    return path;
  };
  // The Release binary segfaulted on this one (an empty block_configs read by the weights reader).
  const auto stray = write(with_members(r1, R"("block_configs": [], "hybrid_override_pattern": "MMMM")"));
  const auto ok = kvsize::test::run_cli("'" + stray.string() + "' --json");
  INFO(ok.err);
  REQUIRE(ok.exit_code == 0);
  CHECK(nlohmann::json::parse(ok.out).at("parameters").get<std::uint64_t>() == r1_parameters);
  const auto nan = write(replaced(r1, R"("kv_lora_rank": 512)", R"("kv_lora_rank": NaN)"));
  const auto bad = kvsize::test::run_cli("'" + nan.string() + "' --json");
  CHECK(bad.exit_code == 2);
  CHECK(bad.out.empty());
  CHECK(contains(bad.err, nan.string() + ":/kv_lora_rank: expected a positive integer, got NaN"));
  std::filesystem::remove(stray);
  std::filesystem::remove(nan);
}
#endif

TEST_CASE("hostile: DeepSeek-V4's compress_ratios under an unknown model_type is refused, the name printed safely",
          "[hf][hostile]") {
  std::ifstream in(configs_dir() / "invalid" / "deepseek_v4_other_model_type.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  doc["model_type"] = "deepseek_ref\x1b[2J";  // a terminal escape in the value
  const config_error e = error_of(doc.dump());
  CHECK(e.code() == config_errc::unsupported);
  CHECK(e.pointer() == "/compress_ratios");
  const std::string what = e.what();
  CHECK(what.find("\"deepseek_ref\\x1b[2J\" with compress_ratios") != std::string::npos);
  CHECK(what.find('\x1b') == std::string::npos);
  // compress_ratios null says no compression, as if absent: no refusal (a generic decoder, with a warning).
  doc["compress_ratios"] = nullptr;
  const auto c = kvsize::hf::parse_config(doc.dump());
  CHECK(c.spec.layers == 4);
}
