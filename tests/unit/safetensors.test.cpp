// SPDX-License-Identifier: MIT
// kvsize::hf::read_checkpoint / read_safetensors_header (issue 15, part 2): a model folder's
// weights from its safetensors headers, checked as the safetensors crate checks them
// (huggingface/safetensors safetensors/src/tensor.rs). Shards are written here as sparse files:
// a real header, and a hole for the data, so a 3 GB checkpoint takes a few kilobytes.
#include <kvsize/hf/safetensors.hpp>
#include <kvsize/hf_config.hpp>
#include <kvsize/weights.hpp>
#ifdef KVSIZE_CLI_PATH
#include "cli_support.hpp"
#endif

#include <unistd.h>  // getpid

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;
using kvsize::hf::config_errc;
using kvsize::hf::config_error;

struct tensor_row {
  std::string name;
  std::vector<std::uint64_t> shape;
};

/// A fresh empty folder under the temporary directory.
auto fresh_dir(const std::string& name) -> fs::path {
  const fs::path d = fs::temp_directory_path() / ("kvsize-st-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

/// A safetensors file with `header` (JSON text) and `data` bytes of hole after it.
void write_raw(const fs::path& p, const std::string& header, std::uint64_t data) {
  std::ofstream out(p, std::ios::binary);
  const std::uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) {
    out.put(static_cast<char>((n >> (8 * i)) & 0xFFU));
  }
  out << header;
  out.close();
  fs::resize_file(p, 8 + n + data);
}

/// A valid shard of BF16 tensors laid out back to back; returns its data bytes.
auto write_shard(const fs::path& p, const std::vector<tensor_row>& rows) -> std::uint64_t {
  nlohmann::json h = {{"__metadata__", {{"format", "pt"}}}};
  std::uint64_t at = 0;
  for (const auto& r : rows) {
    std::uint64_t n = 2;
    for (const auto d : r.shape) {
      n *= d;
    }
    h[r.name] = {{"dtype", "BF16"}, {"shape", r.shape}, {"data_offsets", {at, at + n}}};
    at += n;
  }
  write_raw(p, h.dump(), at);
  return at;
}

/// Qwen2.5-1.5B's tensors, as its checkpoint names them (tied embeddings: no lm_head).
auto qwen2_5_1_5b_tensors() -> std::vector<tensor_row> {
  const std::uint64_t h = 1'536, i = 8'960, kv = 256;
  std::vector<tensor_row> t{{"model.embed_tokens.weight", {151'936, h}}, {"model.norm.weight", {h}}};
  for (int l = 0; l < 28; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    for (tensor_row r : std::vector<tensor_row>{{"self_attn.q_proj.weight", {h, h}}, {"self_attn.q_proj.bias", {h}},
                                                {"self_attn.k_proj.weight", {kv, h}}, {"self_attn.k_proj.bias", {kv}},
                                                {"self_attn.v_proj.weight", {kv, h}}, {"self_attn.v_proj.bias", {kv}},
                                                {"self_attn.o_proj.weight", {h, h}}, {"mlp.gate_proj.weight", {i, h}},
                                                {"mlp.up_proj.weight", {i, h}},      {"mlp.down_proj.weight", {h, i}},
                                                {"input_layernorm.weight", {h}},     {"post_attention_layernorm.weight", {h}}}) {
      t.push_back({p + r.name, r.shape});
    }
  }
  return t;
}

/// The Qwen2.5-1.5B folder: config.json, an index and two shards.
auto qwen_folder(const std::string& name) -> fs::path {
  const fs::path d = fresh_dir(name);
  fs::copy_file(fs::path{KVSIZE_SOURCE_DIR} / "configs" / "Qwen__Qwen2.5-1.5B.config.json", d / "config.json");
  const auto rows = qwen2_5_1_5b_tensors();
  const std::vector<tensor_row> first(rows.begin(), rows.begin() + 100);
  const std::vector<tensor_row> second(rows.begin() + 100, rows.end());
  const std::uint64_t total = write_shard(d / "model-00001-of-00002.safetensors", first) +
                              write_shard(d / "model-00002-of-00002.safetensors", second);
  nlohmann::json index = {{"metadata", {{"total_size", total}}}, {"weight_map", nlohmann::json::object()}};
  for (const auto& r : first) {
    index["weight_map"][r.name] = "model-00001-of-00002.safetensors";
  }
  for (const auto& r : second) {
    index["weight_map"][r.name] = "model-00002-of-00002.safetensors";
  }
  std::ofstream(d / "model.safetensors.index.json") << index.dump();
  return d;
}

void require_header_refused(const std::string& header, std::uint64_t data, config_errc code,
                            const std::string& words) {
  const fs::path p = fresh_dir("bad") / "model.safetensors";
  write_raw(p, header, data);
  try {
    (void)kvsize::hf::read_safetensors_header(p);
    FAIL("accepted: " << words);
  } catch (const config_error& e) {
    INFO(e.what());
    CHECK(e.code() == code);
    CHECK(e.file() == p.string());
    CHECK_THAT(e.what(), Catch::Matchers::ContainsSubstring(words));
  }
}

}  // namespace

TEST_CASE("safetensors: a model folder's checkpoint, to the byte", "[safetensors]") {
  const fs::path d = qwen_folder("qwen");
  const auto w = kvsize::hf::read_checkpoint(d);
  REQUIRE(w.has_value());
  CHECK(w->source == "safetensors, 2 shards");
  CHECK(w->tensors == 2 + 28 * 12);
  // The checkpoint's elements are the config's parameter count (kvsize::parameters, the model
  // card's 1.54 B): 1,543,714,304, in BF16 3,087,428,608 bytes, and the index's total_size agrees.
  const auto config = kvsize::hf::load_config(d);
  CHECK(w->parameters == kvsize::parameters(config.spec).total);
  CHECK(w->parameters == 1'543'714'304ULL);
  CHECK(w->bytes == 3'087'428'608ULL);
  CHECK(w->stated_bytes == w->bytes);
  // One model.safetensors and no index: the same reading.
  const fs::path single = fresh_dir("single");
  write_shard(single / "model.safetensors", {{"a", {4, 8}}, {"b", {3}}});
  const auto s = kvsize::hf::read_checkpoint(single);
  REQUIRE(s.has_value());
  CHECK(s->bytes == 70);
  CHECK(s->source == "safetensors, 1 file");
  // A folder with neither: nothing.
  CHECK_FALSE(kvsize::hf::read_checkpoint(fresh_dir("none")).has_value());
}

TEST_CASE("safetensors hostile: headers the safetensors crate refuses", "[safetensors][hostile]") {
  const std::string ok_entry = R"("t":{"dtype":"BF16","shape":[2,3],"data_offsets":[0,12]})";
  require_header_refused("{" + ok_entry + "}", 11, config_errc::inconsistent, "the tensors end at byte");
  require_header_refused("not json", 0, config_errc::syntax, "not a JSON object");
  require_header_refused(R"({"t":{"dtype":"Q4","shape":[2],"data_offsets":[0,1]}})", 1, config_errc::unsupported,
                         "/t/dtype");
  require_header_refused(R"({"t":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", 8, config_errc::wrong_type,
                         "/t/shape");
  require_header_refused(R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0,9]}})", 9, config_errc::inconsistent,
                         "does not hold 8 bytes of F32");
  require_header_refused(R"({"t":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}})", 2, config_errc::inconsistent,
                         "a whole number of bytes");
  require_header_refused(R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[4],"data_offsets":[8,12]}})",
                         12, config_errc::inconsistent, "/b/data_offsets: begins at 8, expected 4");
  require_header_refused(R"({"a/b~c":{"dtype":"U8","shape":[4],"data_offsets":[4,0]}})", 4, config_errc::inconsistent,
                         "/a~1b~0c/data_offsets");
  require_header_refused(R"({"t":{"dtype":"U8","shape":[4294967296,4294967296,16],"data_offsets":[0,1]}})", 1,
                         config_errc::out_of_range, "exceeds 2^64 bits");
  // A length of 2^40 (past the crate's 100,000,000) and one past the file's end.
  const fs::path p = fresh_dir("len") / "x.safetensors";
  {
    std::ofstream out(p, std::ios::binary);
    const std::uint64_t n = std::uint64_t{1} << 40U;
    for (int i = 0; i < 8; ++i) {
      out.put(static_cast<char>((n >> (8 * i)) & 0xFFU));
    }
    out << "{}";
  }
  CHECK_THROWS_WITH(kvsize::hf::read_safetensors_header(p),
                    Catch::Matchers::ContainsSubstring("a header of 1099511627776 bytes"));
  // Within the crate's cap but past the file's end: 64 bytes announced, 2 present.
  {
    std::ofstream out(p, std::ios::binary);
    out.put(64);
    for (int i = 1; i < 8; ++i) {
      out.put(0);
    }
    out << "{}";
  }
  CHECK_THROWS_WITH(kvsize::hf::read_safetensors_header(p),
                    Catch::Matchers::ContainsSubstring("a header of 64 bytes; safetensors allows 100,000,000, and 2 bytes"));
  // An empty tensor with a huge dimension is fine (the crate multiplies the shape: 0).
  const fs::path empty = fresh_dir("empty") / "model.safetensors";
  write_raw(empty, R"({"e":{"dtype":"BF16","shape":[4611686018427387904,0],"data_offsets":[0,0]}})", 0);
  CHECK(kvsize::hf::read_safetensors_header(empty).tensors.size() == 1);
  std::ofstream(p, std::ios::binary) << "abc";
  CHECK_THROWS_WITH(kvsize::hf::read_safetensors_header(p), Catch::Matchers::ContainsSubstring("8-byte header length"));
}

#ifdef KVSIZE_CLI_PATH
TEST_CASE("kvsize DIR: the checkpoint beside the formula; a broken shard never blocks the KV answer",
          "[safetensors][cli]") {
  const fs::path d = qwen_folder("cli");
  const auto j = kvsize::test::json_of("'" + d.string() + "'");
  CHECK(j["checkpoint_weights_bytes"] == 3'087'428'608ULL);
  CHECK(j["checkpoint_source"] == "safetensors, 2 shards");
  CHECK(j["weights_bytes"] == 3'087'428'608ULL);  // the formula, bf16 as served
  // A shard whose header is not JSON: a warning, and the report all the same.
  std::fstream shard(d / "model-00002-of-00002.safetensors", std::ios::in | std::ios::out | std::ios::binary);
  shard.seekp(8);
  shard << "garbage";
  shard.close();
  const auto r = kvsize::test::run_cli("'" + d.string() + "' --json");
  REQUIRE(r.exit_code == 0);
  const auto broken = nlohmann::json::parse(r.out);
  CHECK_THAT(broken["warnings"].dump(), Catch::Matchers::ContainsSubstring("the checkpoint's weights were not read"));
  CHECK(broken["checkpoint_weights_bytes"].is_null());
  CHECK(broken["kv_bytes_per_token"] == 28'672);  // 28 layers × 2 KV heads × 128 × 2 (K, V) × 2 B
  fs::remove_all(d);
}
#endif
