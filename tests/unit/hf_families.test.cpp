// SPDX-License-Identifier: MIT
// kvsize/hf/families.hpp: the family table is data. Every row is well-formed, and a family that
// is not in the table is added by one row (here: a toy table handed to the reader).
#include <kvsize/hf_config.hpp>
#include <kvsize/kv_cache.hpp>

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace hf = kvsize::hf;
namespace d = kvsize::hf::detail;

auto read_with(std::string_view text, std::span<const d::family> table) -> hf::parsed_config {
  return d::with_file("toy.json", [&] {
    std::vector<std::string> warnings;
    const d::json doc = d::parse_json_text(text, hf::parse_limits{}, warnings);
    return d::read_document(doc, std::move(warnings), table);
  });
}

constexpr std::string_view toy_config = R"({"model_type": "toy_gpt", "num_hidden_layers": 4,
  "num_attention_heads": 8, "hidden_size": 512, "vocab_size": 1000, "intermediate_size": 2048,
  "num_key_value_heads": 8, "torch_dtype": "bfloat16", "max_position_embeddings": 2048})";

}  // namespace

TEST_CASE("families: every row has a unique model_type, a source, and valid class defaults", "[hf][families]") {
  std::set<std::string_view> seen;
  for (const auto& f : d::families) {
    INFO(f.model_type);
    CHECK_FALSE(f.model_type.empty());
    CHECK(seen.insert(f.model_type).second);
    CHECK_FALSE(d::config_class(f).empty());
    CHECK(d::config_class(f).ends_with("Config"));
    CHECK(d::find_family(f.model_type) == &f);
    if (!f.nested_defaults.empty()) {
      CHECK(d::json::parse(std::string(f.nested_defaults)).is_object());
    }
    // A window period belongs to the rules that use one.
    if (f.window == d::window_rule::alternate || f.window == d::window_rule::pattern) {
      CHECK(f.pattern >= 2);
    }
    // Routing, MTP and dense-width keys name keys the reader knows: an alias, or a family's own spelling that
    // read_routed_experts reads for that family only (Step-3.5's moe_num_experts; ERNIE 4.5 writes an array there).
    if (!f.experts_key.empty()) {
      const bool alias = std::find(d::keys::experts.begin(), d::keys::experts.end(), f.experts_key) != d::keys::experts.end();
      CHECK((alias || f.experts_key == "moe_num_experts"));
    }
    CHECK((f.mtp_default == 0) == f.mtp_default_note.empty());
  }
  CHECK(d::find_family("no_such_family") == nullptr);
}

TEST_CASE("families: every composite's text model has a row", "[hf][families]") {
  for (const auto& c : d::composites) {
    INFO(c.model_type);
    CHECK(d::find_family(c.text_model_type) != nullptr);
  }
}

TEST_CASE("families: the Falcon rows differ only in the new decoder architecture's default", "[hf][families]") {
  const d::family& falcon = *d::find_family("falcon");
  const d::family& rw = *d::find_family("RefinedWeb");
  const d::family& rwm = *d::find_family("RefinedWebModel");
  CHECK(rw.new_decoder_default);
  CHECK_FALSE(falcon.new_decoder_default);
  CHECK_FALSE(rwm.new_decoder_default);
  for (const d::family* f : {&falcon, &rw, &rwm}) {
    CHECK(f->kv_heads == d::kv_heads_rule::falcon_multi_query);
    CHECK(f->block == d::block_rule::falcon);
    CHECK(f->ffn_4x_hidden);
    CHECK(f->fused_qkv);
  }
}

TEST_CASE("families: a toy family is one row", "[hf][families]") {
  // Unknown to the built-in table: a generic decoder, with the assumption stated.
  const hf::parsed_config generic = hf::parse_config(toy_config, "toy.json");
  CHECK(generic.spec.gated_mlp);
  CHECK(generic.spec.weights.norm == kvsize::norm_kind::rms);
  CHECK(generic.warnings.front().starts_with("model_type \"toy_gpt\" unknown"));

  // One row: a GPT-2-like block (two-matrix MLP, LayerNorm, fused QKV, biased linears).
  static constexpr d::family toy[] = {
      {.model_type = "toy_gpt", .source = "ToyGptConfig (a test)", .gated_mlp = false, .tied = true,
       .norm = d::norm_rule::layer_norm, .fused_qkv = true, .qkv_bias = true, .linear_bias = d::linear_bias_rule::always},
  };
  const hf::parsed_config c = read_with(toy_config, toy);
  CHECK_FALSE(c.spec.gated_mlp);
  CHECK(c.spec.tied_embeddings);
  CHECK(c.spec.qkv_bias);
  CHECK(c.spec.weights.norm == kvsize::norm_kind::layer_norm);
  CHECK(c.spec.weights.fused_qkv);
  CHECK(c.spec.weights.o_bias);
  CHECK(c.spec.weights.mlp_bias);
  for (const auto& w : c.warnings) {
    CHECK(w.find("unknown") == std::string::npos);
  }

  // A routing row: its expert count is required to count the weights, at the key the row names; without
  // it the weights are not counted (the KV cache does not read the key).
  static constexpr d::family toy_moe[] = {
      {.model_type = "toy_gpt", .source = "ToyMoeConfig (a test)", .experts_key = "num_experts"},
  };
  const auto routed = read_with(toy_config, toy_moe);
  CHECK(routed.weights_unknown_because.starts_with("/num_experts: expected the number of routed experts"));
  CHECK(kvsize::kv_bytes_per_token(routed.spec) == kvsize::kv_bytes_per_token(c.spec));
}

TEST_CASE("families: a toy row selects an existing layer rule", "[hf][families]") {
  // Jamba's period rule with Mamba1 mixers, for a model_type kvsize has never seen.
  static constexpr d::family toy[] = {
      {.model_type = "toy_gpt", .source = "ToyHybridConfig (a test)", .layers = d::layer_rule::jamba_period,
       .mixer = d::mixer_rule::mamba1},
  };
  const std::string text = std::string(toy_config.substr(0, toy_config.size() - 1)) +
                           R"(, "attn_layer_period": 2, "attn_layer_offset": 1, "mamba_d_state": 16,
                                "mamba_d_conv": 4, "mamba_expand": 2})";
  const hf::parsed_config c = read_with(text, toy);
  REQUIRE(c.layers.size() == 4);
  CHECK(c.layers[0].kind == kvsize::layer_kind::none);
  CHECK(c.layers[0].recurrent);
  CHECK(c.layers[1].kind == kvsize::layer_kind::full);
  CHECK(c.layers[1].reason.starts_with("layer 1 % attn_layer_period (2) == attn_layer_offset (1): attention"));
  CHECK(c.spec.weights.recurrent.kind == kvsize::recurrent_kind::mamba1);
}
