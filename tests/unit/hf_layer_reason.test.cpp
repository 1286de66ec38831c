// SPDX-License-Identifier: MIT
// kvsize/hf/layer_reason.hpp: layer reasons are data ({pointer, rule, value}) with the layer index
// put in by one renderer; the reader's text is that renderer's output.
#include <kvsize/hf_config.hpp>

#include "hf_support.hpp"

#include <catch2/catch_test_macros.hpp>

#include <filesystem>
#include <string>

namespace {

namespace hf = kvsize::hf;
using hf::layer_reason;
using hf::reason_index;
using hf::reason_rule;

}  // namespace

TEST_CASE("layer_reason: each rule's sentence, with the layers' index or \"i\"", "[hf][layer_reason]") {
  const hf::layer_reasons element{{"/layer_types", reason_rule::list_element, "\"sliding_attention\"", {}},
                                  {"/sliding_window", reason_rule::window_from, "4096", {}}};
  CHECK(hf::render_reason(element, 3, 1) == "/layer_types[3] = \"sliding_attention\"; window from /sliding_window = 4096");
  CHECK(hf::render_reason(element, 3, 1, reason_index::any_layer) ==
        "/layer_types[i] = \"sliding_attention\"; window from /sliding_window = 4096");
  // A run of equal entries keeps its range, as the report has always printed it.
  CHECK(hf::render_reason(element, 0, 5, reason_index::any_layer) ==
        "/layer_types[0..4] = \"sliding_attention\"; window from /sliding_window = 4096");

  const hf::layer_reasons block{{"/block_configs", reason_rule::block_entry, "no_op = true: no attention, no KV", {}}};
  CHECK(hf::render_reason(block, 6, 2) == "/block_configs/6..7/attention/no_op = true: no attention, no KV");
  CHECK(hf::render_reason(block, 6, 2, reason_index::any_layer) == hf::render_reason(block, 6, 2));

  const hf::layer_reasons test{{"/max_window_layers", reason_rule::layer_test, "/use_sliding_window = true and ",
                                " >= /max_window_layers (28)"},
                               {"", reason_rule::note, "/num_key_value_heads = 4 KV heads", {}}};
  CHECK(hf::render_reason(test, 28, 8) ==
        "/use_sliding_window = true and layer 28..35 >= /max_window_layers (28); /num_key_value_heads = 4 KV heads");
  CHECK(hf::render_reason(test, 28, 8, reason_index::any_layer) ==
        "/use_sliding_window = true and layer i >= /max_window_layers (28); /num_key_value_heads = 4 KV heads");

  CHECK(hf::render_reason({{"", reason_rule::no_layer_key, "", {}}}, 0, 32) == "no per-layer key: full attention");
  CHECK(hf::render_reason({{"/attention_chunk_size", reason_rule::chunk_from, "8192", {}}}, 0, 1) ==
        "chunk from /attention_chunk_size = 8192");
  CHECK(hf::render_reason({}, 0, 1).empty());
}

TEST_CASE("layer_reason: every bundled config's reasons are their data rendered", "[hf][layer_reason]") {
  std::size_t groups = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kvsize::test::configs_dir())) {
    if (entry.path().extension() != ".json") {
      continue;
    }
    const hf::parsed_config c = hf::load_config(entry.path());
    for (const auto& g : c.layers) {
      INFO(entry.path().filename().string() << " layers " << g.first_layer);
      CHECK_FALSE(g.why.empty());
      CHECK(hf::render_reason(g.why, g.first_layer, g.count) == g.reason);
      for (const auto& r : g.why) {
        // No index is stored in the data: it is the group's.
        CHECK(r.value.find("{i}") == std::string::npos);
        CHECK(r.pointer.find("{i}") == std::string::npos);
      }
      ++groups;
    }
  }
  CHECK(groups > 40);
}

TEST_CASE("layer_reason: layers with one reason compare equal as data, whatever their index", "[hf][layer_reason]") {
  const hf::parsed_config c = hf::load_config(kvsize::test::configs_dir() / "google__gemma-2-9b.config.json");
  REQUIRE(c.layers.size() == 42);
  CHECK(c.layers[0].why == c.layers[2].why);
  CHECK(c.layers[0].why != c.layers[1].why);
  CHECK(c.layers[0].reason != c.layers[2].reason);  // the text names each layer
  CHECK(hf::render_reason(c.layers[0].why, 0, 1, reason_index::any_layer) ==
        hf::render_reason(c.layers[2].why, 2, 1, reason_index::any_layer));
}
