// SPDX-License-Identifier: MIT
// kvsize/vision_tower.hpp: the vision towers' parameter formulas, in constant expressions and on
// the configs in configs/ that have a vision_config (the figures weights.test.cpp checks against
// published totals: parameters().vision = with_extras − total there).
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <type_traits>

#include <kvsize/hf_config.hpp>
#include <kvsize/vision_tower.hpp>
#include <kvsize/weights.hpp>
#include <nlohmann/json.hpp>

#ifndef KVSIZE_SOURCE_DIR
#error "define KVSIZE_SOURCE_DIR as the project root (the CMake build does)"
#endif

namespace {
using kvsize::vision_projector_kind;
using kvsize::vision_tower;
using kvsize::vision_tower_kind;

// LLaVA-1.5-7B's vision_config (CLIP ViT-L/14 at 336 px) and its 4096-wide Llama: the tower
// 303,507,456 (24 layers of 12,596,224 = 302,309,376; class 1,024; patch conv 3 × 14² × 1,024 =
// 602,112; 577 positions × 1,024 = 590,848; pre and post LayerNorm 4,096) and the projector
// 1,024 × 4,096 + 4,096 + 4,096² + 4,096 = 20,979,712.
constexpr vision_tower llava{.kind = vision_tower_kind::clip, .hidden = 1'024, .intermediate = 4'096, .layers = 24,
                             .patch = 14, .image = 336, .projector = vision_projector_kind::llava_mlp,
                             .text_hidden = 4'096};
static_assert(kvsize::detail::vit_layer_parameters(1'024, 4'096) == 12'596'224);
static_assert(kvsize::vision_tower_parameters(llava) == 303'507'456 + 20'979'712);
static_assert(kvsize::detail::projector_parameters(llava) == 20'979'712);
static_assert(kvsize::vision_tower_bytes(llava, kvsize::dtype::f16) == kvsize::bytes{2 * (303'507'456 + 20'979'712)});
// Without a projector: the tower alone.
constexpr vision_tower clip_alone = [] {
  vision_tower v = llava;
  v.projector = vision_projector_kind::none;
  return v;
}();
static_assert(kvsize::vision_tower_parameters(clip_alone) == 303'507'456);
// Qwen2.5-VL-7B: 676,550,144 (the SFT log's "visual" count).
constexpr vision_tower qwen_vl{.kind = vision_tower_kind::qwen2_5_vl, .hidden = 1'280, .intermediate = 3'420,
                               .layers = 32, .patch = 14, .output_dim = 3'584, .text_hidden = 3'584};
static_assert(kvsize::vision_tower_parameters(qwen_vl) == 676'550'144);
static_assert(kvsize::vision_tower_parameters(vision_tower{}) == 0);

// Qwen3.5-35B-A3B's vision_config (Qwen3_5VisionModel): d 1,152, inner 4,304, 27 blocks, 16 × 16 × 2
// patches of 3 channels, 2,304 positions, merge 2, out 2,048. By hand:
//   patch embed 1,152 × 3 × 2 × 256 + 1,152 = 1,770,624; positions 2,304 × 1,152 = 2,654,208;
//   a block 4 d² + 2 d·inner + 9 d + inner = 5,308,416 + 9,916,416 + 10,368 + 4,304 = 15,239,504, × 27 =
//   411,466,608; merger 2 d + (4 d)² + 4 d + 4 d × 2,048 + 2,048 = 2,304 + 21,233,664 + 4,608 + 9,437,184
//   + 2,048 = 30,679,808. Sum 446,571,248: the published total less kvsize's text and MTP counts
//   (weights_parameters.test.cpp).
constexpr vision_tower qwen3_5_35b{.kind = vision_tower_kind::qwen3_5, .hidden = 1'152, .intermediate = 4'304,
                                   .layers = 27, .patch = 16, .positions = 2'304, .output_dim = 2'048};
static_assert(kvsize::vision_tower_parameters(qwen3_5_35b) == 446'571'248);
// Qwen3-VL-30B-A3B's tower: the same, with 3 DeepStack mergers (deepstack_visual_indexes [8, 16, 24]),
// each 2 × 4,608 (LayerNorm over d·merge²) + the merger's linears 21,233,664 + 4,608 + 9,437,184 + 2,048
// = 30,686,720: 446,571,248 + 3 × 30,686,720 = 538,631,408.
constexpr vision_tower qwen3_vl_30b = [] {
  vision_tower v = qwen3_5_35b;
  v.kind = vision_tower_kind::qwen3_vl;
  v.deepstack = 3;
  return v;
}();
static_assert(kvsize::vision_tower_parameters(qwen3_vl_30b) == 538'631'408);

/// A constant expression is a compile-time test only if the expression can fail: a patch of 0
/// must not give a count.
template <vision_tower V>
constexpr bool counts = requires { typename std::integral_constant<std::uint64_t, kvsize::vision_tower_parameters(V)>; };
static_assert(counts<llava>);
static_assert(!counts<vision_tower{.kind = vision_tower_kind::clip, .hidden = 1'024, .layers = 1, .patch = 0}>);

auto spec_of(const std::string& name) -> kvsize::model_spec {
  return kvsize::hf::load_config(std::filesystem::path(KVSIZE_SOURCE_DIR) / "configs" / (name + ".config.json")).spec;
}
}  // namespace

TEST_CASE("vision_tower: the configs with a vision tower", "[vision_tower][weights]") {
  // Expected: with_extras − total of the published checkpoint totals in weights.test.cpp.
  CHECK(spec_of("Qwen__Qwen2.5-VL-7B-Instruct").weights.vision == 676'550'144);
  CHECK(spec_of("llava-hf__llava-1.5-7b-hf").weights.vision == 303'507'456 + 20'979'712);
  CHECK(spec_of("google__gemma-3-4b-it").weights.vision == 4'300'079'472 - 3'880'263'168);
  CHECK(spec_of("meta-llama__Llama-4-Scout-17B-16E-Instruct").weights.vision == 108'641'793'536 - 107'769'861'120);
  // Gemma 3 27B: the same SigLIP tower as 4B (416,866,032 = 4B's 419,816,304 minus its projector
  // 1,152 × 2,560 + 1,152), with a projector into 5,376: 1,152 × 5,376 + 1,152.
  const std::uint64_t siglip = 4'300'079'472 - 3'880'263'168 - (1'152ULL * 2'560 + 1'152);
  CHECK(spec_of("google__gemma-3-27b-it").weights.vision == siglip + 1'152ULL * 5'376 + 1'152);
  // Qwen3.5: the same tower with a merger into 2,048 (35B-A3B) or 5,120 (27B): 4 d × 3,072 + 3,072 more.
  CHECK(spec_of("Qwen__Qwen3.5-35B-A3B").weights.vision == 446'571'248);
  CHECK(spec_of("Qwen__Qwen3.5-27B").weights.vision == 446'571'248 + 4'608ULL * 3'072 + 3'072);
  // An empty vision_config takes Qwen3_5VisionConfig's defaults (out_hidden_size 3,584): as transformers
  // builds it, not an error and not 0.
  std::ifstream file(std::filesystem::path(KVSIZE_SOURCE_DIR) / "configs" / "Qwen__Qwen3.5-35B-A3B.config.json");
  nlohmann::json root = nlohmann::json::parse(file);
  root["vision_config"] = nlohmann::json::object();
  const auto empty_vision = kvsize::hf::parse_config(root.dump(), "empty_vision.json");
  CHECK(empty_vision.spec.weights.vision == 446'571'248 + 4'608ULL * (3'584 - 2'048) + (3'584 - 2'048));
  // Qwen3-VL: deepstack_visual_indexes counts the DeepStack mergers; anything but an array is a warning
  // naming it (the tower is weights only), and the tower goes uncounted.
  std::ifstream vl_file(std::filesystem::path(KVSIZE_SOURCE_DIR) / "configs" / "Qwen__Qwen3-VL-8B-Instruct.config.json");
  nlohmann::json vl = nlohmann::json::parse(vl_file);
  vl["vision_config"]["deepstack_visual_indexes"] = 3;
  const auto bad_deepstack = kvsize::hf::parse_config(vl.dump(), "deepstack.json");
  CHECK(bad_deepstack.spec.weights.vision == 0);
  CHECK(std::any_of(bad_deepstack.warnings.begin(), bad_deepstack.warnings.end(), [](const std::string& w) {
    return w.rfind("/vision_config/deepstack_visual_indexes: expected an array", 0) == 0;
  }));
  // Two indexes: one merger less, into 4,096: 2 × 4,608 + 4,608² + 4,608 + 4,608 × 4,096 + 4,096 = 40,125,952.
  vl["vision_config"]["deepstack_visual_indexes"] = nlohmann::json::array({8, 16});
  CHECK(kvsize::hf::parse_config(vl.dump(), "deepstack.json").spec.weights.vision == 576'388'336 - 40'125'952);

  // The same figures from the core formula on vision_config's numbers, run time.
  vision_tower gemma{.kind = vision_tower_kind::siglip, .hidden = 1'152, .intermediate = 4'304, .layers = 27,
                     .patch = 14, .image = 896, .projector = vision_projector_kind::gemma3, .text_hidden = 2'560};
  CHECK(kvsize::vision_tower_parameters(gemma) == 4'300'079'472 - 3'880'263'168);
  const vision_tower scout{.kind = vision_tower_kind::llama4, .hidden = 1'408, .intermediate = 5'632, .layers = 34,
                           .patch = 14, .image = 336, .projector_input = 4'096, .projector_output = 4'096,
                           .output_dim = 4'096, .projector = vision_projector_kind::llama4, .text_hidden = 5'120};
  CHECK(kvsize::vision_tower_parameters(scout) == 108'641'793'536 - 107'769'861'120);

  // Overflow is an error, never a wrap (a merger width d · merge² past 2^32 squares past 2^64).
  vision_tower huge = qwen_vl;
  huge.spatial_merge = 1U << 24U;
  CHECK_THROWS_AS(kvsize::vision_tower_parameters(huge), kvsize::overflow_error);
  // From config.json: a warning at /vision_config and no count, never a wrapped one; the KV answer stands.
  const std::string text = R"({"model_type": "qwen2_5_vl", "hidden_size": 3584, "num_hidden_layers": 28,
    "num_attention_heads": 28, "num_key_value_heads": 4, "intermediate_size": 18944, "vocab_size": 152064,
    "torch_dtype": "bfloat16", "vision_config": {"hidden_size": 16777216, "intermediate_size": 3420, "depth": 32,
    "patch_size": 14, "spatial_merge_size": 16777216, "out_hidden_size": 3584}})";
  const auto hostile = kvsize::hf::parse_config(text, "hostile.json");
  CHECK(hostile.spec.weights.vision == 0);
  CHECK(std::any_of(hostile.warnings.begin(), hostile.warnings.end(), [](const std::string& w) {
    return w.rfind("/vision_config: the vision tower's parameter count overflows 2^64", 0) == 0;
  }));
}
