// SPDX-License-Identifier: MIT
// NVIDIA ModelOpt checkpoints (quantization_config.quant_method "modelopt"): NVFP4, W4A16_NVFP4 and the FP8 forms,
// sized tensor by tensor as the checkpoint stores them (vllm model_executor/layers/quantization/modelopt.py,
// ModelOptNvFp4LinearMethod.create_weights / ModelOptFp8LinearMethod.create_weights: weight, weight_scale,
// weight_scale_2, input_scale per Linear and per expert). Each figure is derived by hand beside it.
#include <kvsize/hf_config.hpp>
#include <kvsize/kvsize.hpp>
#include <kvsize/weights.hpp>

#include "cli_support.hpp"
#include "hf_support.hpp"
#include "weights_support.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

using kvsize::bytes;
using kvsize::part_bit;
using kvsize::weight_part;
using kvsize::test::has_warning;
using kvsize::test::json_of;
using namespace kvsize::test::weights_configs;

namespace {

namespace d = kvsize::detail;

// One 4,096 × 4,096 projection. NVFP4: two E2M1 values a byte (8,388,608 B), an FP8 scale per 16 inputs
// (4,096 × 256 = 1,048,576 B), weight_scale_2 and input_scale (8 B); W4A16_NVFP4 has no input_scale.
static_assert(d::nvfp4_bytes(kvsize::nvfp4_weights(), 4'096, 4'096).data == 8'388'608);
static_assert(d::nvfp4_bytes(kvsize::nvfp4_weights(), 4'096, 4'096).scales == 1'048'576 + 8);
static_assert(d::nvfp4_bytes(kvsize::nvfp4_weights(16, 1), 4'096, 4'096).scales == 1'048'576 + 4);
// An odd input width rounds up: 17 inputs hold 9 bytes and 2 scales a row.
static_assert(d::nvfp4_bytes(kvsize::nvfp4_weights(), 3, 17).data == 27);
static_assert(d::nvfp4_bytes(kvsize::nvfp4_weights(), 3, 17).scales == 6 + 8);

/// Llama-3.1-8B's config.json with `quantization_config` replaced.
auto llama_with(const std::string& quantization_config) -> kvsize::hf::parsed_config {
  return with_quantization("meta-llama__Llama-3.1-8B", quantization_config);
}

}  // namespace

TEST_CASE("modelopt: Gemma-4-31B-IT-NVFP4 keeps its attention bf16 and packs the MLP", "[weights][hf][modelopt]") {
  // nvidia/Gemma-4-31B-IT-NVFP4 (configs/SOURCES.md): quant_algo NVFP4, the group size only in config_groups (16),
  // `ignore` lists lm_head, the vision tower and every layer's self_attn. So only the MLP is NVFP4: 60 layers of
  // gate and up (21,504 × 5,376) and down (5,376 × 21,504); each matrix 21,504 × 5,376 / 2 = 57,802,752 B of values,
  // 21,504 × 5,376 / 16 = 7,225,344 B of FP8 scales and 8 B of scalars: 65,028,104 B, 60 × 3 of them
  // 11,705,058,720 B, where bf16 took 60 × 3 × 21,504 × 5,376 × 2 = 41,617,981,440 B. Everything else is bf16 in both.
  const auto c = load("nvidia__Gemma-4-31B-IT-NVFP4");
  REQUIRE(c.quantization);
  REQUIRE(c.quantization->format);
  const kvsize::weights_format& f = *c.quantization->format;
  CHECK(f.scheme == kvsize::weights_scheme::nvfp4);
  CHECK(f.group_size == 16);
  CHECK(f.tensor_scalars == 2);
  CHECK(f.unquantized_parts ==
        (part_bit(weight_part::lm_head) | part_bit(weight_part::vision) | part_bit(weight_part::attention)));
  const bytes bf16 = kvsize::weights_bytes(c.spec, kvsize::uniform_weights(kvsize::dtype::bf16));
  CHECK(kvsize::weights_bytes(c.spec, f) == bf16 - bytes{41'617'981'440} + bytes{11'705'058'720});
  const auto detail = kvsize::weights_bytes_detail(c.spec, f);
  CHECK(detail.quantized == bytes{60ULL * 3 * 57'802'752});
  CHECK(detail.scales == bytes{60ULL * 3 * (7'225'344 + 8)});
  // The text model alone, by hand: the tied 262,144 × 5,376 embedding (2,818,572,288 B); 50 sliding layers' q, k,
  // v, o (5,376 × (8,192 + 4,096 + 4,096 + 8,192) × 2 B = 264,241,152 B) and 10 full layers' q, k, o (k_eq_v: no
  // v_proj; 5,376 × (16,384 + 2,048 + 16,384) × 2 B = 374,341,632 B); per layer four 5,376-wide norms, q_norm and
  // k_norm over the head (256, or 512 on full layers) and layer_scalar (one element, a buffer transformers'
  // Gemma4TextDecoderLayer registers and the checkpoints store), in bf16; the final norm; the MLP above.
  auto text_only = f;
  text_only.include_vision = false;
  const std::uint64_t norms = 50ULL * (4 * 5'376 + 2 * 256 + 1) * 2 + 10ULL * (4 * 5'376 + 2 * 512 + 1) * 2 + 5'376 * 2;
  CHECK(kvsize::weights_bytes(c.spec, text_only) ==
        bytes{2'818'572'288ULL + 50 * 264'241'152ULL + 10 * 374'341'632ULL + norms + 11'705'058'720ULL});
}

TEST_CASE("modelopt: the quant_algo forms and exclude_modules", "[weights][hf][modelopt]") {
  // Llama-3.1-8B (32 layers, hidden 4,096, MLP 14,336, 8 KV heads of 128). W4A16_NVFP4: one scalar (weight_scale_2)
  // a matrix; the group size at the top level.
  const auto w4a16 = llama_with(R"({"quant_method": "modelopt", "quant_algo": "W4A16_NVFP4", "group_size": 16,
      "exclude_modules": ["lm_head"]})");
  REQUIRE(w4a16.quantization);
  REQUIRE(w4a16.quantization->format);
  CHECK(*w4a16.quantization->format == [] {
    auto f = kvsize::nvfp4_weights(16, 1);
    f.unquantized_parts = part_bit(weight_part::lm_head);
    return f;
  }());
  // FP8, per tensor: one byte a weight, weight_scale and input_scale (8 B) a matrix; 7 matrices a layer.
  const auto fp8 = llama_with(R"({"quant_method": "modelopt", "quant_algo": "FP8", "ignore": ["lm_head"]})");
  REQUIRE(fp8.quantization);
  REQUIRE(fp8.quantization->format);
  const auto detail = kvsize::weights_bytes_detail(fp8.spec, *fp8.quantization->format);
  // q, o 4,096²; k, v 1,024 × 4,096; gate, up 14,336 × 4,096; down 4,096 × 14,336.
  CHECK(detail.quantized == bytes{32ULL * (2 * 16'777'216 + 2 * 4'194'304 + 3 * 58'720'256)});
  CHECK(detail.scales == bytes{32ULL * 7 * 8});
  CHECK(fp8.quantization->format->block_rows == 0);
  // FP8_PER_CHANNEL_PER_TOKEN: a float32 scale per output row; fp8_pb_wo (lower case, as ModelOpt may write it):
  // per 128 × 128 block.
  const auto channel = llama_with(R"({"quant_method": "modelopt", "quant_algo": "FP8_PER_CHANNEL_PER_TOKEN"})");
  REQUIRE(channel.quantization);
  REQUIRE(channel.quantization->format);
  CHECK(kvsize::weights_bytes_detail(channel.spec, *channel.quantization->format).scales ==
        bytes{32ULL * (4'096 + 1'024 + 1'024 + 4'096 + 14'336 + 14'336 + 4'096) * 4});
  const auto block = llama_with(R"({"quant_method": "modelopt", "quant_algo": "fp8_pb_wo"})");
  REQUIRE(block.quantization);
  REQUIRE(block.quantization->format);
  CHECK(*block.quantization->format == kvsize::fp8_weights(128, 128));
}

TEST_CASE("modelopt: an algorithm kvsize does not size leaves the weights unsized, never the KV cache",
          "[weights][hf][modelopt]") {
  const auto plain = load("meta-llama__Llama-3.1-8B");
  const auto mixed = llama_with(R"({"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION"})");
  REQUIRE(mixed.quantization);
  CHECK_FALSE(mixed.quantization->format);
  CHECK(has_warning(mixed, "/quantization_config/quant_algo = \"MIXED_PRECISION\": a ModelOpt algorithm"));
  CHECK_FALSE(has_warning(mixed, "a scheme kvsize does not size"));  // one warning, the specific one
  CHECK(kvsize::kv_bytes_per_token(mixed.spec) == kvsize::kv_bytes_per_token(plain.spec));
  const auto none = llama_with(R"({"quant_method": "modelopt"})");
  REQUIRE(none.quantization);
  CHECK_FALSE(none.quantization->format);
  CHECK(has_warning(none, "without quant_algo"));
  // A malformed key only the weights read: the weights are unknown, named by pointer; the KV cache stands.
  const auto bad = llama_with(R"({"quant_method": "modelopt", "quant_algo": 4})");
  CHECK(bad.weights_unknown_because.find("/quantization_config/quant_algo") != std::string::npos);
  CHECK(kvsize::kv_bytes_per_token(bad.spec) == kvsize::kv_bytes_per_token(plain.spec));
  const auto bad_group = llama_with(R"({"quant_method": "modelopt", "quant_algo": "NVFP4",
      "config_groups": {"group_0": {"weights": {"group_size": 0}}}})");
  CHECK(bad_group.weights_unknown_because.find("/quantization_config/config_groups/group_0/weights/group_size") !=
        std::string::npos);
  // config_groups, read for the group size, is an object: another type is named, never read as the default 16.
  const auto bad_groups = llama_with(R"({"quant_method": "modelopt", "quant_algo": "NVFP4", "config_groups": "16"})");
  CHECK(bad_groups.weights_unknown_because.starts_with("/quantization_config/config_groups: "));
  CHECK(kvsize::kv_bytes_per_token(bad_groups.spec) == kvsize::kv_bytes_per_token(plain.spec));
  const auto bad_weights = llama_with(R"({"quant_method": "modelopt", "quant_algo": "NVFP4",
      "config_groups": {"group_0": {"weights": [16]}}})");
  CHECK(bad_weights.weights_unknown_because.starts_with("/quantization_config/config_groups/group_0/weights: "));
}

TEST_CASE("modelopt: --weights-dtype nvfp4 is ModelOpt's default NVFP4 recipe", "[weights][modelopt]") {
  CHECK(kvsize::parse_weights_format("nvfp4") == kvsize::nvfp4_weights());
  CHECK(kvsize::parse_weights_format("NVFP4") == kvsize::nvfp4_weights());
  // Llama-3.1-8B: 32 layers of q, o (4,096²), k, v (1,024 × 4,096), gate, up (14,336 × 4,096), down (4,096 × 14,336):
  // 218,103,808 weights a layer, a half byte each and an FP8 scale per 16 (13,631,488 B), 8 B of scalars a matrix;
  // the embedding and the LM head (128,256 × 4,096 each) and the norms (65 × 4,096) stay bf16.
  const auto m = load("meta-llama__Llama-3.1-8B").spec;
  CHECK(kvsize::weights_bytes(m, kvsize::nvfp4_weights()) ==
        bytes{32ULL * (218'103'808 / 2 + 218'103'808 / 16 + 7 * 8) + 2ULL * 128'256 * 4'096 * 2 + 65ULL * 4'096 * 2});
}

TEST_CASE("kvsize --json: a ModelOpt NVFP4 config is sized, and --weights-dtype nvfp4 is the what-if",
          "[cli][weights][modelopt]") {
  const std::string dir = "'" + std::string{KVSIZE_SOURCE_DIR} + "/configs/";
  const auto gemma = json_of(dir + "nvidia__Gemma-4-31B-IT-NVFP4.config.json'");
  CHECK(gemma["weights_dtype"] == "nvfp4-g16");
  const auto c = load("nvidia__Gemma-4-31B-IT-NVFP4");
  REQUIRE(c.quantization);
  REQUIRE(c.quantization->format);
  CHECK(gemma["weights_bytes"] == kvsize::weights_bytes(c.spec, *c.quantization->format).count());
  const auto llama = json_of(dir + "meta-llama__Llama-3.1-8B.config.json' --weights-dtype nvfp4");
  CHECK(llama["weights_dtype"] == "nvfp4-g16");
  CHECK(llama["weights_bytes"] == kvsize::weights_bytes(load("meta-llama__Llama-3.1-8B").spec, kvsize::nvfp4_weights()).count());
}

TEST_CASE("kvsize --json: each FP8 form has its own weights_dtype name", "[cli][weights][modelopt]") {
  // An FP8 checkpoint's name says the extent of its weight scale, and ModelOpt's static input_scale: ModelOpt FP8
  // (8 B a matrix) and transformers' per-tensor fp8 (4 B) size differently and must not read alike.
  const temp_folder dir("kvsize-fp8-names");
  const auto name_of = [&](const std::string& quantization_config) {
    std::ofstream(dir.path / "config.json") << text_with_quantization("meta-llama__Llama-3.1-8B", quantization_config);
    return json_of("'" + (dir.path / "config.json").string() + "'")["weights_dtype"].get<std::string>();
  };
  CHECK(name_of(R"({"quant_method": "modelopt", "quant_algo": "FP8"})") == "fp8-per-tensor+input-scale");
  CHECK(name_of(R"({"quant_method": "modelopt", "quant_algo": "FP8_PER_CHANNEL_PER_TOKEN"})") == "fp8-per-channel");
  CHECK(name_of(R"({"quant_method": "modelopt", "quant_algo": "FP8_PB_WO"})") == "fp8-block128x128");
  CHECK(name_of(R"({"quant_method": "fp8"})") == "fp8-per-tensor");
  CHECK(name_of(R"({"quant_method": "modelopt", "quant_algo": "W4A16_NVFP4"})") == "nvfp4-g16-w4a16");
}

TEST_CASE("modelopt: a model folder's hf_quant_config.json, where config.json has none (Llama-3.3-70B-FP4)",
          "[weights][hf][modelopt][inputs]") {
  // nvidia/Llama-3.3-70B-Instruct-FP4 (ModelOpt ≤ 0.29: the settings only in hf_quant_config.json; NVFP4, group 16,
  // lm_head excluded, FP8 KV cache). Its model.safetensors.index.json states total_size 42,709,045,632
  // (https://huggingface.co/nvidia/Llama-3.3-70B-Instruct-FP4/blob/main/model.safetensors.index.json; the -NVFP4
  // repository's weights, whose total neronain/dgx-spark-all-controllers `llama33-70b-nvfp4-single.sh` @a4e92cba checks
  // a download against: docs/research/modelopt.md).
  // By hand, Llama-3.1/3.3-70B (80 layers, hidden 8,192, 64 heads, 8 KV heads, MLP 28,672, vocab 128,256): q and o
  // 8,192² (33,554,432 + 4,194,304 + 8 B each), k and v 1,024 × 8,192 (4,194,304 + 524,288 + 8), gate, up, down
  // 28,672 × 8,192 (117,440,512 + 14,680,064 + 8): 481,296,440 B a layer; embed_tokens and lm_head
  // 2 × 2,101,346,304 B and 161 norms of 8,192 in bf16: 38,503,715,200 + 4,202,692,608 + 2,637,824.
  const temp_folder scratch("kvsize-modelopt");
  const std::filesystem::path& dir = scratch.path;
  std::filesystem::copy_file(std::filesystem::path(KVSIZE_SOURCE_DIR) / "configs" / "meta-llama__Llama-3.1-70B.config.json",
                             dir / "config.json", std::filesystem::copy_options::overwrite_existing);
  const auto write = [&](const std::string& text) { std::ofstream(dir / "hf_quant_config.json") << text; };
  write(R"({"producer": {"name": "modelopt", "version": "0.23.0"}, "quantization": {"quant_algo": "NVFP4",
      "kv_cache_quant_algo": "FP8", "group_size": 16, "exclude_modules": ["lm_head"]}})");
  const auto c = kvsize::hf::load_config(dir);
  REQUIRE(c.quantization);
  REQUIRE(c.quantization->format);
  CHECK(c.quantization_method == std::optional<std::string>{"modelopt"});
  CHECK(kvsize::weights_bytes(c.spec, *c.quantization->format) == bytes{42'709'045'632});
  CHECK(kvsize::weights_bytes(c.spec, *c.quantization->format) ==
        bytes{38'503'715'200ULL + 4'202'692'608ULL + 2'637'824ULL});
  const std::string file = (dir / "hf_quant_config.json").string();
  CHECK(c.checkpoint_kv_fp8 == file + ":/quantization/kv_cache_quant_algo");
  const auto folder = json_of("'" + dir.string() + "'");
  CHECK(folder["weights_bytes"] == 42'709'045'632ULL);
  const auto warnings = json_of("'" + dir.string() + "' --engine vllm")["warnings"];
  CHECK(std::any_of(warnings.begin(), warnings.end(), [&](const nlohmann::json& w) {
    return w.get<std::string>().find(file + ":/quantization/kv_cache_quant_algo declares an FP8 KV cache") !=
           std::string::npos;
  }));
  // The file given alone is config.json only: unquantized, with a warning that names the file beside it.
  const auto alone = kvsize::hf::load_config(dir / "config.json");
  CHECK_FALSE(alone.quantization);
  CHECK(has_warning(alone, file + ": a quantization config beside this config.json"));
  {  // A bare config.json in the working directory: the folder to give is "."
    const auto before = std::filesystem::current_path();
    std::filesystem::current_path(dir);
    const auto here = kvsize::hf::load_config("config.json");
    std::filesystem::current_path(before);
    CHECK(has_warning(here, "hf_quant_config.json: a quantization config beside this config.json, which has none; "
                            "kvsize reads it when given the folder (.)"));
  }
  // A defect in it is a weights-only problem: a warning naming the file and the key, the KV answer kept.
  write(R"({"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "NVFP4", "group_size": "16"}})");
  const auto bad = kvsize::hf::load_config(dir);
  CHECK(bad.weights_unknown_because.starts_with(file + ":/quantization/group_size: "));
  CHECK(bad.weights_unknown_file == file);
  CHECK(has_warning(bad, file + ":/quantization/group_size: "));
  CHECK(kvsize::kv_bytes_per_token(bad.spec) == kvsize::kv_bytes_per_token(c.spec));
  write("{not json");
  CHECK(kvsize::hf::load_config(dir).weights_unknown_because.starts_with(file + ": "));
  write(R"({"producer": {"name": "modelopt"}})");
  CHECK(kvsize::hf::load_config(dir).weights_unknown_because.starts_with(file + ":/quantization: "));
  // The command sizes the KV cache and names the file and key once on stderr.
  const auto r = kvsize::test::run_cli("'" + dir.string() + "' --json");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Matchers::ContainsSubstring(file + ":/quantization: "));
  CHECK_THAT(r.err, !Catch::Matchers::ContainsSubstring(dir.string() + ":" + file));
}

TEST_CASE("modelopt: the k/v scales an FP8 KV cache adds, by the exporting release", "[weights][hf][modelopt]") {
  // ModelOpt 0.25 - 0.42 store k_proj.k_scale and v_proj.v_scale, two float32 scalars, in each quantized attention
  // layer of a checkpoint with a quantized KV cache (docs/research/modelopt.md, "k_scale / v_scale"); 0.23 and 0.43+
  // (fp8_cast) none.
  const auto scalars = [](const std::string& producer, const std::string& kv) {
    const auto c = llama_with(R"({"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16)" + kv +
                              (producer.empty() ? std::string{} : R"(, "producer": )" + producer) + "}");
    REQUIRE(c.quantization);
    REQUIRE(c.quantization->format);
    return c.quantization->format->kv_cache_scalars;
  };
  const std::string fp8_scheme = R"(, "kv_cache_scheme": {"dynamic": false, "num_bits": 8, "type": "float"})";
  const auto version = [](const std::string& v) { return R"({"name": "modelopt", "version": ")" + v + R"("})"; };
  CHECK(scalars(version("0.35.0"), fp8_scheme) == 2);
  CHECK(scalars(version("0.25.0"), R"(, "kv_cache_quant_algo": "FP8")") == 2);
  CHECK(scalars(version("0.42.1"), R"(, "kv_cache_quant_algo": "NVFP4")") == 2);
  CHECK(scalars(version("0.40.0rc1"), fp8_scheme) == 2);
  CHECK(scalars(version("0.23.0"), fp8_scheme) == 0);
  CHECK(scalars(version("0.24.9"), fp8_scheme) == 0);
  CHECK(scalars(version("0.43.0"), fp8_scheme) == 0);
  CHECK(scalars(version("1.0.0"), fp8_scheme) == 0);
  CHECK(scalars(version("latest"), fp8_scheme) == 0);
  CHECK(scalars("", fp8_scheme) == 0);                 // no producer: never guessed
  CHECK(scalars(R"({"version": 35})", fp8_scheme) == 0);
  CHECK(scalars(version("0.35.0"), "") == 0);          // no KV cache quantization
  CHECK(scalars(version("0.35.0"), R"(, "kv_cache_scheme": {})") == 0);  // an empty scheme is none
  CHECK(scalars(version("0.35.0"), R"(, "kv_cache_quant_algo": null)") == 0);
  // Llama-3.1-8B, 32 layers: 8 B a layer, 256 B in all, counted with the scales.
  const auto with = llama_with(R"({"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16,
      "kv_cache_quant_algo": "FP8", "producer": {"name": "modelopt", "version": "0.33.0"}})");
  const auto without = llama_with(R"({"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16,
      "kv_cache_quant_algo": "FP8", "producer": {"name": "modelopt", "version": "0.23.0"}})");
  REQUIRE(with.quantization->format);
  REQUIRE(without.quantization->format);
  CHECK(kvsize::weights_bytes_detail(with.spec, *with.quantization->format).scales ==
        kvsize::weights_bytes_detail(without.spec, *without.quantization->format).scales + bytes{256});
  // An attention the export leaves unquantized (Gemma-4-31B-IT-NVFP4 ignores every self_attn) stores none.
  const auto gemma = load("nvidia__Gemma-4-31B-IT-NVFP4");
  REQUIRE(gemma.quantization->format);
  CHECK(gemma.quantization->format->kv_cache_scalars == 2);  // ModelOpt 0.37.0, kv_cache_scheme FP8
  CHECK(kvsize::weights_bytes(gemma.spec, *gemma.quantization->format) == bytes{31'481'767'960});
}

TEST_CASE("modelopt: nvidia/Qwen3-8B-NVFP4 and Qwen3-235B-A22B-NVFP4 match their published totals with the k/v scales",
          "[weights][hf][modelopt]") {
  // nvidia/Qwen3-8B-NVFP4 (ModelOpt 0.35.0: NVFP4, group 16, lm_head ignored, an FP8 KV cache): its
  // model.safetensors.index.json total_size is 6,396,932,352 B (as meyowu/nvfp4-doctor
  // experiments/E004-qwen3-layer-capture/metadata.json @229e4190 records it; docs/research/modelopt.md). Without the
  // k/v scales the rule gives 288 B less: 36 layers × 8 B.
  const auto qwen8 = with_quantization("Qwen__Qwen3-8B", R"({"quant_method": "modelopt", "quant_algo": "NVFP4",
      "config_groups": {"group_0": {"weights": {"dynamic": false, "num_bits": 4, "type": "float", "group_size": 16},
      "targets": ["Linear"]}}, "ignore": ["lm_head"], "kv_cache_scheme": {"dynamic": false, "num_bits": 8,
      "type": "float"}, "producer": {"name": "modelopt", "version": "0.35.0"}})");
  REQUIRE(qwen8.quantization);
  REQUIRE(qwen8.quantization->format);
  CHECK(kvsize::weights_bytes(qwen8.spec, *qwen8.quantization->format) == bytes{6'396'932'352});
  auto no_scalars = *qwen8.quantization->format;
  no_scalars.kv_cache_scalars = 0;
  CHECK(kvsize::weights_bytes(qwen8.spec, no_scalars) == bytes{6'396'932'352 - 36 * 8});
  // nvidia/Qwen3-235B-A22B-NVFP4 (ModelOpt 0.33.0; the routers and lm_head excluded, which ModelOpt's rule leaves
  // unquantized anyway): total_size 134,101,652,144 B (ytworks/kairyu
  // verification/l1/correctness/g4_ma1_qwen3_235b_nvfp4_bench.py @cc6c478a, EXPECTED_INDEX_TOTAL_SIZE), 94 layers.
  const auto qwen235 = with_quantization("Qwen__Qwen3-235B-A22B", R"({"quant_method": "modelopt",
      "quant_algo": "NVFP4", "group_size": 16, "exclude_modules": ["lm_head"], "kv_cache_quant_algo": "FP8",
      "producer": {"name": "modelopt", "version": "0.33.0"}})");
  REQUIRE(qwen235.quantization);
  REQUIRE(qwen235.quantization->format);
  CHECK(kvsize::weights_bytes(qwen235.spec, *qwen235.quantization->format) == bytes{134'101'652'144});
}

TEST_CASE("modelopt: an exclude list that keeps some attention projections (DeepSeek-V3.1-NVFP4's MLA q and kv)",
          "[weights][hf][modelopt]") {
  // nvidia/DeepSeek-V3.1-NVFP4's exclude list (ai-dynamo/aiconfigurator model_configs, docs/research/modelopt.md) keeps
  // every layer's q_a_proj, q_b_proj, kv_a_proj_with_mqa and kv_b_proj in bf16 and packs o_proj. On DeepSeek-R1's
  // shape (61 layers, hidden 7,168, q_lora 1,536, 128 heads of 128 + 64, kv_lora 512, v 128) those are
  // 1,536 × 7,168 + 24,576 × 1,536 + 576 × 7,168 + 32,768 × 512 = 69,664,768 weights a layer, 4,249,550,848 in all:
  // 8,499,101,696 B in bf16 where NVFP4 takes 4,249,550,848 × 9 / 16 + 61 × 4 × 8 B of scalars = 2,390,374,304 B.
  nlohmann::json list = nlohmann::json::array({"lm_head"});
  for (int layer = 0; layer < 61; ++layer) {
    for (const char* p : {"q_a_proj", "q_b_proj", "kv_a_proj_with_mqa", "kv_b_proj"}) {
      list.push_back("model.layers." + std::to_string(layer) + ".self_attn." + p);
    }
  }
  const auto kept = with_quantization("deepseek-ai__DeepSeek-R1", R"({"quant_method": "modelopt",
      "quant_algo": "NVFP4", "group_size": 16, "exclude_modules": )" + list.dump() + "}");
  const auto packed = with_quantization("deepseek-ai__DeepSeek-R1", R"({"quant_method": "modelopt",
      "quant_algo": "NVFP4", "group_size": 16, "exclude_modules": ["lm_head"]})");
  REQUIRE(kept.quantization->format);
  REQUIRE(packed.quantization->format);
  CHECK(kept.quantization->format->unquantized_roles ==
        (kvsize::role_bit(kvsize::tensor_role::attn_q_a) | kvsize::role_bit(kvsize::tensor_role::attn_q_b) |
         kvsize::role_bit(kvsize::tensor_role::attn_kv_a) | kvsize::role_bit(kvsize::tensor_role::attn_kv_b)));
  CHECK_FALSE(has_warning(kept, "as quantized"));  // no partial-set warning: the projections are kept
  CHECK_FALSE(has_warning(kept, "some of the projections"));
  CHECK(kvsize::weights_bytes(kept.spec, *kept.quantization->format) -
            kvsize::weights_bytes(packed.spec, *packed.quantization->format) ==
        bytes{8'499'101'696 - 2'390'374'304});
}
