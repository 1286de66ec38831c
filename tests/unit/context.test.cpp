// SPDX-License-Identifier: MIT
// The context each serving engine takes from config.json when given none (model_spec::stated, the engines'
// default_context). Figures follow from the engines' source, as cited in the headers:
//   vLLM: engines/vllm_context.hpp (vllm/config/model.py _get_and_verify_max_len, tags v0.10.0 – v0.24.0):
//         the smallest key, model_max_length over all, × the rope factor (yarn: original × factor, the top-level
//         original from 0.12; none for su, longrope, llama3, or a gemma3 model_type), a longrope model's top-level
//         original length from 0.11.1 (kvsize's 0.11);
//   SGLang: engines/sglang_context.hpp (get_context_length, every tag v0.4.0 – v0.5.18): the first of
//         max_sequence_length, seq_length, max_seq_len, model_max_length, max_position_embeddings, × rope_scaling's
//         factor unless it holds original_max_position_embeddings or is llama3 (transformers 5: Gemma 3 nested).
// The configs are the bundled ones (configs/SOURCES.md), some with a rope_scaling added as model cards tell users to.
#include <kvsize/engine.hpp>
#include <kvsize/engines_command.hpp>
#include <kvsize/hf/aliases.hpp>
#include <kvsize/hf_config.hpp>
#include <kvsize/planner.hpp>

#include "hf_support.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>

using Catch::Matchers::ContainsSubstring;
using kvsize::engine_kind;
using kvsize::engine_options;
using kvsize::model_spec;

namespace {

auto document(const std::string& name) -> nlohmann::json {
  std::ifstream in(kvsize::test::configs_dir() / (name + ".config.json"));
  return nlohmann::json::parse(std::string(std::istreambuf_iterator<char>(in), {}));
}

auto bundled(const std::string& name) -> model_spec {
  return kvsize::hf::load_config(kvsize::test::configs_dir() / (name + ".config.json")).spec;
}

auto spec_of(const nlohmann::json& doc) -> model_spec { return kvsize::hf::parse_config(doc.dump()).spec; }

auto vllm_release(std::uint32_t minor) -> engine_options {
  engine_options o;
  o.vllm.release_minor = minor;
  return o;
}

auto sglang_release(std::string_view text) -> engine_options {
  engine_options o;
  o.sglang.version = kvsize::engines::sglang::parse_release(text);
  REQUIRE(o.sglang.version.has_value());
  return o;
}

auto vllm_default(const model_spec& m, const engine_options& o = {}) -> std::uint64_t {
  return kvsize::engine_default_context(engine_kind::vllm, m, o);
}
auto sglang_default(const model_spec& m, const engine_options& o = {}) -> std::uint64_t {
  return kvsize::engine_default_context(engine_kind::sglang, m, o);
}

}  // namespace

TEST_CASE("context_key follows the reader's list of context keys", "[context]") {
  // The enum indexes stated_context::keys in hf::detail::keys::max_context's order.
  constexpr std::array<std::string_view, kvsize::context_key_count> in_enum_order{
      "max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "model_max_length",
      "max_target_positions", "max_sequence_length", "max_seq_length", "seq_len", "n_ctx"};
  REQUIRE(kvsize::hf::detail::keys::max_context.size() == in_enum_order.size());
  for (std::size_t i = 0; i < in_enum_order.size(); ++i) {
    CHECK(kvsize::hf::detail::keys::max_context[i] == in_enum_order[i]);
  }
  const model_spec m = bundled("CohereForAI__c4ai-command-r-v01");
  CHECK(stated(m.stated, kvsize::context_key::max_position_embeddings) == 8'192);
  CHECK(stated(m.stated, kvsize::context_key::model_max_length) == 131'072);
  CHECK(stated(m.stated, kvsize::context_key::n_ctx) == 0);
}

TEST_CASE("Command-R: vLLM and SGLang serve model_max_length, 131,072, not max_position_embeddings", "[context]") {
  const model_spec m = bundled("CohereForAI__c4ai-command-r-v01");
  CHECK(m.max_context == 8'192);  // the smallest key: kvsize's engine-neutral figure
  CHECK(vllm_default(m) == 131'072);  // model_max_length over the smallest key
  CHECK(sglang_default(m) == 131'072);  // model_max_length comes before max_position_embeddings
  // llama.cpp's converter writes model_max_length too (CommandR2Model.__init__; llama_cpp_context.hpp).
  CHECK(kvsize::engine_default_context(engine_kind::llama_cpp, m) == 131'072);
  CHECK(kvsize::engine_default_context(engine_kind::exact, m) == 0);
  CHECK(kvsize::model_context_limit(engine_kind::exact, m) == 8'192);
  CHECK(kvsize::model_context_limit(engine_kind::vllm, m) == 131'072);

  // A library caller that asks for the model's context (0) sizes the engine's: 131,072 tokens a sequence.
  engine_options o;
  o.context = 0;
  const auto vllm = kvsize::size_stage(m, engine_kind::vllm, o, kvsize::detail::stage_range{0, m.layers});
  CHECK(vllm.context == 131'072);
  const auto sglang = kvsize::size_stage(m, engine_kind::sglang, o, kvsize::detail::stage_range{0, m.layers});
  CHECK(sglang.context == 131'072);
  const auto exact = kvsize::size_stage(m, engine_kind::exact, o, kvsize::detail::stage_range{0, m.layers});
  CHECK(exact.context == 8'192);
  // And a plan with no context plans the engine's, searching up to it.
  kvsize::plan_inputs in;
  in.engine = engine_kind::vllm;
  in.options.batch = 1;
  in.options.context = 0;
  in.device_memory = kvsize::bytes{std::uint64_t{1} << 40U};
  in.weights = kvsize::bytes{0};
  const kvsize::plan_result p = kvsize::plan(m, in);
  CHECK(p.point.context == 131'072);
  CHECK(p.context_limit == 131'072);
}

TEST_CASE("Phi-4-mini: vLLM 0.11.1+ serves a longrope model's original 4,096 tokens", "[context]") {
  // rope_scaling {"type": "longrope", long_factor, short_factor}, top-level original_max_position_embeddings 4096,
  // max_position_embeddings 131072.
  const model_spec m = bundled("microsoft__Phi-4-mini-instruct");
  CHECK(m.stated.top_original == 4'096);
  CHECK(vllm_default(m) == 4'096);                    // 0.19, the default release
  CHECK(vllm_default(m, vllm_release(11)) == 4'096);  // 0.11.1 – 0.11.2, the first with the longrope default
  CHECK(vllm_default(m, vllm_release(10)) == 131'072);
  CHECK(sglang_default(m) == 131'072);  // no factor in its rope_scaling
  // vLLM defaults below its maximum there: a --max-model-len up to the derived 131,072 is accepted, so that is the
  // limit a context is warned above and searched up to.
  CHECK(kvsize::model_context_limit(engine_kind::vllm, m) == 131'072);
}

TEST_CASE("GPT-2: SGLang reads n_positions through GPT2Config's max_position_embeddings alias", "[context]") {
  const model_spec m = bundled("openai-community__gpt2-xl");  // n_positions 1024, n_ctx 1024
  CHECK(sglang_default(m) == 1'024);
  CHECK(vllm_default(m) == 1'024);
}

TEST_CASE("Gemma 3: vLLM skips its factor; SGLang applies it under transformers 4 only", "[context]") {
  // text_config without max_position_embeddings (Gemma3TextConfig's default 131,072); rope_scaling linear, 8.
  const model_spec m = bundled("google__gemma-3-27b-it");
  CHECK(m.max_context == 131'072);
  CHECK(m.stated.gemma3);
  CHECK(vllm_default(m) == 131'072);
  CHECK(sglang_default(m, sglang_release("0.5.9")) == 1'048'576);  // transformers 4.57.1: 131,072 × 8
  CHECK(sglang_default(m, sglang_release("0.4.6")) == 1'048'576);
  CHECK(sglang_default(m, sglang_release("0.5.6.post1")) == 131'072);  // transformers 5.0.0rc0
  CHECK(sglang_default(m, sglang_release("0.5.6.post2")) == 1'048'576);
  CHECK(sglang_default(m, sglang_release("0.5.10rc0")) == 131'072);  // transformers 5.3.0: per layer type
  CHECK(sglang_default(m) == 131'072);                                // the newest release
}

TEST_CASE("rope_scaling added to a config: yarn, linear, dynamic, llama3", "[context]") {
  // Qwen2.5-0.5B (max_position_embeddings 32768) with the yarn entry Qwen's model cards ask users to add.
  nlohmann::json doc = document("Qwen__Qwen2.5-0.5B");
  doc["rope_scaling"] = {{"type", "yarn"}, {"factor", 4.0}, {"original_max_position_embeddings", 32768}};
  model_spec m = spec_of(doc);
  CHECK(vllm_default(m) == 131'072);  // original 32,768 × 4
  CHECK(sglang_default(m) == 32'768);  // an original length: no factor
  doc["rope_scaling"] = {{"type", "linear"}, {"factor", 2.0}};
  m = spec_of(doc);
  CHECK(vllm_default(m) == 65'536);
  CHECK(sglang_default(m) == 65'536);
  doc["rope_scaling"] = {{"rope_type", "dynamic"}, {"factor", 1.5}};
  m = spec_of(doc);
  CHECK(vllm_default(m) == 49'152);
  CHECK(sglang_default(m) == 49'152);
  doc["rope_scaling"] = {{"rope_type", "llama3"}, {"factor", 8.0}, {"original_max_position_embeddings", 8192},
                         {"low_freq_factor", 1.0}, {"high_freq_factor", 4.0}};
  m = spec_of(doc);
  CHECK(vllm_default(m) == 32'768);
  CHECK(sglang_default(m) == 32'768);
  // SGLang takes the first key of its list, not the smallest: seq_length 65536 before max_position_embeddings.
  doc.erase("rope_scaling");
  doc["seq_length"] = 65536;
  m = spec_of(doc);
  CHECK(m.max_context == 32'768);
  CHECK(vllm_default(m) == 32'768);
  CHECK(sglang_default(m) == 65'536);
}

TEST_CASE("the bundled configs whose engines agree with max_context", "[context]") {
  // DeepSeek-R1: yarn, factor 40, original 4096: vLLM 163,840 = 4,096 × 40; SGLang keeps max_position_embeddings.
  for (const std::string name : {"deepseek-ai__DeepSeek-R1", "meta-llama__Llama-3.1-8B", "openai__gpt-oss-20b",
                                 "Qwen__Qwen3-8B", "google__gemma-4-E2B-it", "Qwen__Qwen3.5-27B"}) {
    const model_spec m = bundled(name);
    INFO(name);
    CHECK(vllm_default(m) == m.max_context);
    CHECK(sglang_default(m) == m.max_context);
  }
}

TEST_CASE("a malformed rope factor leaves the weights unknown and the context unscaled, never the KV", "[context]") {
  nlohmann::json doc = document("Qwen__Qwen2.5-0.5B");
  doc["rope_scaling"] = {{"type", "linear"}, {"factor", "eight"}};
  const kvsize::hf::parsed_config c = kvsize::hf::parse_config(doc.dump());
  CHECK_THAT(c.weights_unknown_because, ContainsSubstring("/rope_scaling/factor"));
  CHECK_FALSE(c.spec.stated.rope_read);
  CHECK(vllm_default(c.spec) == 32'768);
  CHECK(sglang_default(c.spec) == 32'768);
  // A key only the context's rope terms read (a default rope's factor; five layer types, more than kvsize keeps):
  // the weights stand, one warning says the context takes no rope factor.
  const auto warned = [](const kvsize::hf::parsed_config& p, std::string_view pointer) {
    return std::count_if(p.warnings.begin(), p.warnings.end(), [&](const std::string& w) {
      return w.starts_with(std::string{pointer} + ": ") && w.find("without a rope factor") != std::string::npos;
    });
  };
  CHECK(warned(c, "/rope_scaling/factor") == 0);  // the rotary reader's warning already names it
  doc["rope_scaling"] = {{"rope_type", "default"}, {"factor", "eight"}};
  const kvsize::hf::parsed_config plain_rope = kvsize::hf::parse_config(doc.dump());
  CHECK(plain_rope.weights_unknown_because.empty());
  CHECK(warned(plain_rope, "/rope_scaling/factor") == 1);
  CHECK_FALSE(plain_rope.spec.stated.rope_read);
  CHECK(plain_rope.spec.stated.keys_read);
  CHECK(vllm_default(plain_rope.spec) == 32'768);
  doc.erase("rope_scaling");
  nlohmann::json nested = nlohmann::json::object();
  for (const char* type : {"a", "b", "c", "d", "e"}) {
    nested[type] = {{"rope_type", "default"}};
  }
  doc["rope_parameters"] = nested;
  const kvsize::hf::parsed_config five = kvsize::hf::parse_config(doc.dump());
  CHECK(five.weights_unknown_because.empty());
  CHECK(warned(five, "/rope_parameters") == 1);
}

TEST_CASE("a spec built by hand: every serving engine takes max_context", "[context]") {
  constexpr model_spec m{.layers = 2, .attention_heads = 4, .kv_heads = 2, .head_dim = 64, .hidden_size = 256,
                         .vocab_size = 1'000, .max_context = 2'048};
  static_assert(kvsize::engine_default_context(engine_kind::vllm, m) == 2'048);
  static_assert(kvsize::engine_default_context(engine_kind::sglang, m) == 2'048);
  static_assert(kvsize::model_context_limit(engine_kind::transformers, m) == 2'048);
  CHECK(vllm_default(m) == 2'048);
}

TEST_CASE("a hand-built rope factor out of bounds is refused, never cast", "[context]") {
  // stated_context.hpp scaled_context / ceil_scaled_context: the reader bounds the factor to (0, 1,024] and a
  // length to 2^40; a spec built by hand may not, and a NaN or 1e300 product would be an undefined cast.
  static_assert(kvsize::scaled_context(32'768, 4.0) == 131'072);
  static_assert(kvsize::ceil_scaled_context(1'001, 1.5) == 1'502);
  static_assert(kvsize::scaled_context((1ULL << 41) - 1, 1.0) == (1ULL << 41) - 1);
  CHECK_THROWS_AS(kvsize::scaled_context(1ULL << 41, 1.0), kvsize::invalid_argument);
  model_spec m = spec_of(document("Qwen__Qwen2.5-0.5B"));
  REQUIRE(m.stated.keys_read);
  m.stated.rope_read = true;
  m.stated.rope_from_scaling = true;
  m.stated.rope_entries = 1;
  m.stated.rope[0].kind = kvsize::rope_kind::other;  // linear: every engine's rule applies its factor
  m.stated.rope[0].factor = 2.0;
  CHECK(vllm_default(m) == 65'536);
  CHECK(kvsize::engine_default_context(engine_kind::trtllm, m, engine_options{}) == 65'536);
  for (const double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(), -2.0,
                           1'025.0}) {
    INFO(bad);
    m.stated.rope[0].factor = bad;
    for (const engine_kind e : {engine_kind::vllm, engine_kind::sglang, engine_kind::trtllm}) {
      INFO(kvsize::name(e));
      CHECK_THROWS_AS(kvsize::engine_default_context(e, m, engine_options{}), kvsize::invalid_argument);
    }
  }
}

TEST_CASE("the top-level original length is read for a longrope model only", "[context]") {
  nlohmann::json doc = document("Qwen__Qwen2.5-0.5B");
  doc["original_max_position_embeddings"] = "not a number";  // no engine reads it without longrope
  const kvsize::hf::parsed_config plain = kvsize::hf::parse_config(doc.dump());
  CHECK(plain.weights_unknown_because.empty());
  CHECK(plain.spec.stated.top_original == 0);
  doc["rope_scaling"] = {{"type", "longrope"}, {"short_factor", {1.0}}, {"long_factor", {1.0}}};
  CHECK_THAT(kvsize::test::weights_unknown_of(doc.dump()), ContainsSubstring("/original_max_position_embeddings"));
  doc["original_max_position_embeddings"] = 2048;
  const model_spec m = spec_of(doc);
  CHECK(m.stated.top_original == 2'048);
  CHECK(vllm_default(m) == 2'048);
  CHECK(vllm_default(m, vllm_release(10)) == 32'768);
}

TEST_CASE("vLLM 0.12+ takes a top-level original length over a yarn entry's, and reads rope_parameters", "[context]") {
  // patch_rope_parameters (transformers_utils/config.py, 0.12+) copies the top-level original_max_position_embeddings
  // into the rope set; 0.10 – 0.11 read rope_scaling as written.
  nlohmann::json doc = document("Qwen__Qwen2.5-0.5B");
  doc["rope_scaling"] = {{"type", "yarn"}, {"factor", 4.0}, {"original_max_position_embeddings", 32768}};
  doc["original_max_position_embeddings"] = 16384;
  model_spec m = spec_of(doc);
  CHECK(vllm_default(m) == 65'536);                    // 16,384 × 4
  CHECK(vllm_default(m, vllm_release(11)) == 131'072);  // 32,768 × 4
  CHECK(sglang_default(m) == 32'768);                  // an original length: no factor
  // A factor in rope_parameters alone: 0.12+ and SGLang on transformers 5 read it; 0.10 – 0.11 and SGLang on
  // transformers 4 do not.
  doc.erase("rope_scaling");
  doc.erase("original_max_position_embeddings");
  doc["rope_parameters"] = {{"rope_type", "linear"}, {"factor", 2.0}, {"rope_theta", 1000000.0}};
  m = spec_of(doc);
  CHECK(vllm_default(m) == 65'536);
  CHECK(vllm_default(m, vllm_release(11)) == 32'768);
  CHECK(sglang_default(m) == 65'536);
  CHECK(sglang_default(m, sglang_release("0.5.9")) == 32'768);
  // A longrope set in rope_parameters alone: 0.11 tests rope_scaling's type only, 0.12+ reads it.
  doc["rope_parameters"] = {{"rope_type", "longrope"}, {"short_factor", {1.0}}, {"long_factor", {1.0}}};
  doc["original_max_position_embeddings"] = 2048;
  m = spec_of(doc);
  CHECK(vllm_default(m) == 2'048);
  CHECK(vllm_default(m, vllm_release(11)) == 32'768);
}

TEST_CASE("a config with no length key: vLLM and SGLang fall back to 2,048", "[context]") {
  // Falcon-7B's RefinedWebModel config states no length; RWConfig, the class vLLM registers for it
  // (vllm/transformers_utils/configs/falcon.py), and tiiuae's remote-code class set none either.
  const model_spec falcon = bundled("tiiuae__falcon-7b");
  CHECK(falcon.max_context == 0);
  CHECK(vllm_default(falcon) == 2'048);  // _get_and_verify_max_len: default_max_len = 2048
  CHECK(sglang_default(falcon) == 2'048);  // get_context_length: return 2048
  // vLLM takes a given --max-model-len as is then (no limit); SGLang refuses one above its 2,048.
  CHECK(kvsize::model_context_limit(engine_kind::vllm, falcon) == 0);
  CHECK(kvsize::model_context_limit(engine_kind::sglang, falcon) == 2'048);
  // llama.cpp's converter writes 2,048 for any Falcon (convert_hf_to_gguf.py FalconModel.set_gguf_parameters).
  CHECK(kvsize::model_context_limit(engine_kind::llama_cpp, falcon) == 2'048);

  // vLLM applies the rope factor after the fallback (the factor's loop follows the default in the function);
  // SGLang returns 2,048 before it looks at the factor's key.
  nlohmann::json doc = document("tiiuae__falcon-7b");
  doc["rope_scaling"] = {{"type", "linear"}, {"factor", 4.0}};
  const model_spec scaled = spec_of(doc);
  CHECK(vllm_default(scaled) == 8'192);
  CHECK(kvsize::model_context_limit(engine_kind::vllm, scaled) == 0);
  CHECK(sglang_default(scaled) == 2'048);

  // Only n_ctx (a key neither engine reads): the same fallback; SGLang reads neither seq_len nor
  // max_target_positions, which vLLM takes.
  doc.erase("rope_scaling");
  doc["n_ctx"] = 1'024;
  CHECK(vllm_default(spec_of(doc)) == 2'048);
  doc["seq_len"] = 4'096;
  CHECK(vllm_default(spec_of(doc)) == 4'096);
  CHECK(sglang_default(spec_of(doc)) == 2'048);
}

TEST_CASE("above the engine's limit: the variable vLLM or SGLang needs to start", "[context]") {
  using kvsize::context_override_variable;
  const model_spec qwen = bundled("Qwen__Qwen2.5-0.5B");  // max_position_embeddings 32,768
  engine_options o;
  o.context = 32'768;
  CHECK(context_override_variable(engine_kind::vllm, o, 32'768).empty());
  o.context = 65'536;
  CHECK(context_override_variable(engine_kind::vllm, o, 32'768) == "VLLM_ALLOW_LONG_MAX_MODEL_LEN");
  CHECK(context_override_variable(engine_kind::vllm, o, 0).empty());  // no limit (no length stated)
  CHECK(context_override_variable(engine_kind::sglang, o, 32'768) == "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN");
  CHECK(context_override_variable(engine_kind::llama_cpp, o, 32'768).empty());  // llama.cpp warns and runs
  // SGLang 0.4.4 – 0.5.0rc2 default the variable to true (get_bool_env_var(..., default="True")).
  for (const char* allowed : {"0.4.4", "0.4.10", "0.5.0rc2"}) {
    engine_options s = sglang_release(allowed);
    s.context = 65'536;
    CHECK(context_override_variable(engine_kind::sglang, s, 32'768).empty());
  }
  for (const char* refused : {"0.4.3.post4", "0.5.1", "0.5.18"}) {
    engine_options s = sglang_release(refused);
    s.context = 65'536;
    CHECK(context_override_variable(engine_kind::sglang, s, 32'768) == "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN");
  }
  const std::string line = kvsize::engine_command_line(engine_kind::vllm, o, {.fraction = 0.9}, "<model>", {},
                                                       kvsize::model_context_limit(engine_kind::vllm, qwen));
  CHECK(line.starts_with("VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve <model> --max-model-len 65536"));
  o.context = 4'096;
  CHECK(kvsize::engine_command_line(engine_kind::vllm, o, {.fraction = 0.9}, "<model>", {}, 32'768)
            .starts_with("vllm serve"));
}

TEST_CASE("no length key: vLLM and SGLang read the config class's default", "[context]") {
  // The engines getattr() the loaded config object, so the class's default answers (hf/class_context.hpp).
  nlohmann::json mistral = document("mistralai__Mistral-7B-v0.1");
  mistral.erase("max_position_embeddings");
  const kvsize::hf::parsed_config parsed = kvsize::hf::parse_config(mistral.dump());
  CHECK(parsed.spec.max_context == 0);  // the file states none
  CHECK(vllm_default(parsed.spec) == 131'072);  // MistralConfig: max_position_embeddings = 4096 * 32
  CHECK(sglang_default(parsed.spec) == 131'072);
  CHECK(kvsize::engine_default_context(engine_kind::llama_cpp, parsed.spec) == 131'072);  // AutoConfig's to_dict()
  CHECK(std::any_of(parsed.warnings.begin(), parsed.warnings.end(), [](const std::string& w) {
    return w.find("vLLM, SGLang, TensorRT-LLM and llama.cpp take MistralConfig's default max_position_embeddings, "
                  "131072") !=
           std::string::npos;
  }));

  // A GPT-2 config that states max_position_embeddings states n_positions (GPT2Config's attribute_map): no fill.
  nlohmann::json gpt2_aliased = document("openai-community__gpt2-xl");
  gpt2_aliased.erase("n_positions");
  gpt2_aliased.erase("n_ctx");
  gpt2_aliased["max_position_embeddings"] = 2'048;
  CHECK(vllm_default(spec_of(gpt2_aliased)) == 2'048);
  CHECK(stated(spec_of(gpt2_aliased).stated, kvsize::context_key::n_positions) == 0);

  // GPT2Config: n_positions 1,024, which SGLang reaches through the max_position_embeddings alias.
  nlohmann::json gpt2 = document("openai-community__gpt2-xl");
  gpt2.erase("n_positions");
  gpt2.erase("n_ctx");
  CHECK(vllm_default(spec_of(gpt2)) == 1'024);
  CHECK(sglang_default(spec_of(gpt2)) == 1'024);

  // MptConfig's is max_seq_len; ChatGLMConfig's seq_length.
  nlohmann::json mpt = document("mosaicml__mpt-7b-instruct");
  mpt.erase("max_seq_len");
  CHECK(vllm_default(spec_of(mpt)) == 2'048);
  CHECK(stated(spec_of(mpt).stated, kvsize::context_key::max_seq_len) == 2'048);
  nlohmann::json chatglm = document("THUDM__chatglm3-6b");
  chatglm.erase("seq_length");  // 8,192 in the file
  CHECK(stated(spec_of(chatglm).stated, kvsize::context_key::seq_length) == 2'048);
  CHECK(sglang_default(spec_of(chatglm)) == 2'048);

  // Jamba-v0.1 states only n_ctx, which neither engine reads: JambaConfig's max_position_embeddings, 262,144.
  const model_spec jamba = bundled("ai21labs__Jamba-v0.1");
  CHECK(stated(jamba.stated, kvsize::context_key::max_position_embeddings) == 262'144);
  CHECK(vllm_default(jamba) == 262'144);
  CHECK(sglang_default(jamba) == 262'144);

  // A class the table leaves out (RWConfig sets none): the 2,048 fallback, and the warning says so.
  const kvsize::hf::parsed_config falcon =
      kvsize::hf::load_config(kvsize::test::configs_dir() / "tiiuae__falcon-7b.config.json");
  CHECK(std::any_of(falcon.warnings.begin(), falcon.warnings.end(), [](const std::string& w) {
    return w.ends_with("max_context unknown (0); vLLM, SGLang and TensorRT-LLM take 2,048; llama.cpp's converter "
                       "writes 2,048 for any Falcon");
  }));
}

TEST_CASE("vLLM's --max-model-len auto: the workspace at the derived length, the cache at the fitted one", "[context]") {
  // MiniMax-M1's rope rows follow max_model_len (vllm_startup.hpp loaded_buffers), so the profile's length shows.
  const model_spec m = bundled("MiniMax-AI__MiniMax-M1");
  engine_options derived = vllm_release(19);
  derived.device_memory = kvsize::GiB * 80;
  derived.context = 0;  // the model's: vLLM's derived max_model_len
  engine_options fitted = derived;
  fitted.context = 4'096;
  engine_options auto_fit = fitted;
  auto_fit.vllm.auto_fit_context = true;
  const auto at_derived = kvsize::vllm_engine::workspace(m, derived);  // context 0: the derived max_model_len
  const auto at_fitted = kvsize::vllm_engine::workspace(m, fitted);
  const auto under_auto = kvsize::vllm_engine::workspace(m, auto_fit);
  REQUIRE(at_derived.buffers != at_fitted.buffers);
  CHECK(under_auto.buffers == at_derived.buffers);
  CHECK(under_auto.activation_tokens == at_derived.activation_tokens);
  // The cache itself is sized at the fitted context.
  CHECK(kvsize::size_cache(m, engine_kind::vllm, auto_fit).context == 4'096);
  // 0.13 and older have no auto (human_readable_int_or_auto is 0.14's).
  auto_fit.vllm.release_minor = 13;
  CHECK_THROWS_WITH(kvsize::vllm_engine::workspace(m, auto_fit), ContainsSubstring("vLLM 0.13 and older take no"));
}

TEST_CASE("TensorRT-LLM: max_position_embeddings, else 2,048, times a rope factor other than yarn's", "[context]") {
  // tensorrt_llm/_torch/models/modeling_utils.py DecoderModelForCausalLM.infer_max_seq_len (trtllm_context.hpp).
  const auto trtllm_default = [](const model_spec& m) {
    return kvsize::engine_default_context(engine_kind::trtllm, m, engine_options{});
  };
  // Command-R: max_position_embeddings 8,192; model_max_length (vLLM's and SGLang's 131,072) is not read.
  CHECK(trtllm_default(bundled("CohereForAI__c4ai-command-r-v01")) == 8'192);
  // Llama-3.1: llama3 rope gives no factor.
  CHECK(trtllm_default(bundled("meta-llama__Llama-3.1-8B")) == 131'072);
  // Gemma 3: its text config's linear factor 8 over 131,072 (the VLM wrapper reads the text config).
  CHECK(trtllm_default(bundled("google__gemma-3-4b-it")) == 1'048'576);
  // Llama 4: Llama4ForConditionalGeneration.infer_max_seq_len returns 8,192.
  CHECK(trtllm_default(bundled("meta-llama__Llama-4-Scout-17B-16E-Instruct")) == 8'192);
  // Falcon-7B: no max_position_embeddings (RWConfig sets none): 2,048.
  CHECK(trtllm_default(bundled("tiiuae__falcon-7b")) == 2'048);
  // A yarn entry is not applied; a linear or dynamic one is, rounded up.
  nlohmann::json qwen = document("Qwen__Qwen2.5-0.5B");
  qwen["rope_scaling"] = {{"type", "yarn"}, {"factor", 4.0}, {"original_max_position_embeddings", 32'768}};
  CHECK(trtllm_default(spec_of(qwen)) == 32'768);
  qwen["rope_scaling"] = {{"rope_type", "dynamic"}, {"factor", 1.5}};
  CHECK(trtllm_default(spec_of(qwen)) == 49'152);
  qwen["max_position_embeddings"] = 1'001;
  qwen["rope_scaling"] = {{"type", "linear"}, {"factor", 1.5}};
  CHECK(trtllm_default(spec_of(qwen)) == 1'502);  // ceil(1,501.5)
  // The limit is the default: a longer --max_seq_len is lowered to it (or kept under TLLM_ALLOW_LONG_MAX_MODEL_LEN).
  engine_options longer;
  longer.context = 4'096;
  CHECK(kvsize::context_override_variable(engine_kind::trtllm, longer, 2'048) == "TLLM_ALLOW_LONG_MAX_MODEL_LEN");
  // A library caller with context 0 sizes TensorRT-LLM's own length.
  engine_options zero;
  zero.context = 0;
  CHECK(kvsize::size_cache(bundled("CohereForAI__c4ai-command-r-v01"), engine_kind::trtllm, zero).context == 8'192);
}

TEST_CASE("llama.cpp: n_ctx_train as its converter writes it from config.json", "[context]") {
  // convert_hf_to_gguf.py (https://github.com/ggml-org/llama.cpp): TextModel.set_gguf_parameters takes the first of
  // max_position_embeddings, n_ctx, n_positions, max_length, max_sequence_length, model_max_length
  // (llama_cpp_context.hpp); FalconModel writes 2,048, CommandR2Model model_max_length first.
  const auto llama_cpp_default = [](const model_spec& m) {
    return kvsize::engine_default_context(engine_kind::llama_cpp, m, engine_options{});
  };
  const model_spec command_r = bundled("CohereForAI__c4ai-command-r-v01");
  CHECK(command_r.stated.family == kvsize::length_family::command_r);
  CHECK(llama_cpp_default(command_r) == 131'072);  // not max_position_embeddings' 8,192, kvsize's max_context
  CHECK(command_r.max_context == 8'192);
  // An Aya-23-style Cohere config, with no model_max_length: max_position_embeddings.
  nlohmann::json aya = document("CohereForAI__c4ai-command-r-v01");
  aya.erase("model_max_length");
  CHECK(llama_cpp_default(spec_of(aya)) == 8'192);
  // Every Falcon: 2,048, whether the config states a length (FalconForCausalLM) or none (RWForCausalLM).
  CHECK(llama_cpp_default(bundled("tiiuae__falcon-40b")) == 2'048);
  nlohmann::json falcon = document("tiiuae__falcon-7b");
  falcon["model_type"] = "falcon";
  falcon["max_position_embeddings"] = 8'192;
  CHECK(llama_cpp_default(spec_of(falcon)) == 2'048);
  // The generic list's order, not the smallest key: a Qwen2 config that also states a shorter model_max_length.
  nlohmann::json qwen = document("Qwen__Qwen2.5-0.5B");
  qwen["model_max_length"] = 4'096;
  CHECK(llama_cpp_default(spec_of(qwen)) == 32'768);
  CHECK(spec_of(qwen).max_context == 4'096);
  // n_ctx before n_positions (GPT-2 states both; here they differ); Jamba's class fills max_position_embeddings.
  nlohmann::json gpt2 = document("openai-community__gpt2-xl");
  gpt2["n_ctx"] = 2'048;
  CHECK(llama_cpp_default(spec_of(gpt2)) == 2'048);
  CHECK(spec_of(gpt2).max_context == 1'024);
  CHECK(llama_cpp_default(bundled("ai21labs__Jamba-v0.1")) == 262'144);
  // Mamba hybrids without rope: 2^20 (GraniteHybridModel.set_gguf_parameters), whatever the config states.
  const model_spec nano = bundled("nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16");
  CHECK(nano.stated.family == kvsize::length_family::mamba);
  CHECK(llama_cpp_default(nano) == 1'048'576);
  CHECK(nano.max_context == 262'144);
  CHECK(llama_cpp_default(bundled("nvidia__Nemotron-H-56B-Base-8K")) == 1'048'576);
  // Granite 4.0-H: 2^20 with Mamba layers; a Granite 4.0 whose layers all attend keeps its rope and the generic rule.
  nlohmann::json granite = document("meta-llama__Llama-3.1-8B");
  granite["model_type"] = "granitemoehybrid";
  granite["num_hidden_layers"] = 4;
  granite["layer_types"] = {"mamba", "mamba", "attention", "mamba"};
  granite.update({{"mamba_n_heads", 32}, {"mamba_d_head", 64}, {"mamba_d_state", 128}, {"mamba_d_conv", 4},
                  {"mamba_n_groups", 1}});
  CHECK(llama_cpp_default(spec_of(granite)) == 1'048'576);
  granite["layer_types"] = {"attention", "attention", "attention", "attention"};
  CHECK(spec_of(granite).stated.family == kvsize::length_family::mamba);
  CHECK(llama_cpp_default(spec_of(granite)) == 131'072);
  // Hunyuan-A13B's dynamic (NTK alpha) rope: 262,144, not its 32,768 (HunYuanMoEModel.set_gguf_parameters);
  // another rope type keeps the generic rule.
  nlohmann::json hunyuan = document("tencent__Hunyuan-A13B-Instruct");
  CHECK(spec_of(hunyuan).stated.family == kvsize::length_family::hunyuan_dynamic);
  CHECK(llama_cpp_default(spec_of(hunyuan)) == 262'144);
  CHECK(spec_of(hunyuan).max_context == 32'768);
  hunyuan["rope_scaling"]["factor"] = "one";  // a malformed factor the converter never reads: still 262,144
  CHECK(llama_cpp_default(spec_of(hunyuan)) == 262'144);
  for (const char* model_type : {"hunyuan_v1_moe", "hunyuan_v1_dense"}) {  // HunYuanMoEV1 / DenseV1ForCausalLM
    nlohmann::json v1 = hunyuan;
    v1["model_type"] = model_type;
    CHECK(llama_cpp_default(spec_of(v1)) == 262'144);
  }
  // rope_parameters, where present (even null), before rope_scaling: the converter reads the former first.
  nlohmann::json both = hunyuan;
  both["rope_parameters"] = nullptr;
  CHECK(llama_cpp_default(spec_of(both)) == 32'768);
  hunyuan["rope_scaling"]["factor"] = 1.0;
  hunyuan["rope_scaling"]["type"] = "linear";
  CHECK(llama_cpp_default(spec_of(hunyuan)) == 32'768);
  // Families that write their own key: MPT's max_seq_len, ChatGLM's seq_length; MptConfig's 2,048 where the file
  // leaves max_seq_len out (AutoConfig's to_dict() holds it).
  CHECK(llama_cpp_default(bundled("mosaicml__mpt-7b-instruct")) == 2'048);
  nlohmann::json mpt = document("mosaicml__mpt-7b-instruct");
  mpt["max_seq_len"] = 4'096;
  CHECK(llama_cpp_default(spec_of(mpt)) == 4'096);
  mpt.erase("max_seq_len");
  CHECK(llama_cpp_default(spec_of(mpt)) == 2'048);
  CHECK(spec_of(mpt).max_context == 0);
  CHECK(llama_cpp_default(bundled("THUDM__chatglm3-6b")) == 8'192);
  // ChatGLM is remote code, read as written: with no seq_length, ChatGLMModel writes hidden_size (4,096), not the
  // engines' ChatGLMConfig default of 2,048; the no-length warning says so.
  nlohmann::json chatglm = document("THUDM__chatglm3-6b");
  chatglm.erase("seq_length");
  const kvsize::hf::parsed_config no_seq = kvsize::hf::parse_config(chatglm.dump());
  CHECK(llama_cpp_default(no_seq.spec) == 4'096);
  CHECK(kvsize::engine_default_context(engine_kind::vllm, no_seq.spec, engine_options{}) == 2'048);
  CHECK(std::any_of(no_seq.warnings.begin(), no_seq.warnings.end(), [](const std::string& w) {
    return w.ends_with("vLLM and SGLang take ChatGLMConfig (vLLM's and SGLang's own)'s default seq_length, 2048; "
                       "llama.cpp's converter writes hidden_size");
  }));
  // A spec built by hand: its max_context.
  constexpr model_spec hand{.layers = 2, .attention_heads = 4, .kv_heads = 2, .head_dim = 64, .hidden_size = 256,
                            .vocab_size = 1'000, .max_context = 3'000};
  static_assert(kvsize::engine_default_context(engine_kind::llama_cpp, hand) == 3'000);
}
