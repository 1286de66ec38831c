// SPDX-License-Identifier: MIT
// kvsize on Ollama's two forms of a model (issue 15, part 3): a local manifest, which names the
// GGUF blob (ollama manifest/paths.go BlobsPath: models/blobs/sha256-<hex>), and /api/show output,
// whose model_info holds the GGUF keys and tensors each tensor's name, type and shape (ollama
// server/routes.go GetModelInfo; without "verbose" it empties arrays of more than 5 elements).
#include "gguf_support.hpp"
#ifdef KVSIZE_CLI_PATH
#include "cli_support.hpp"

#include <unistd.h>  // getpid

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;
using kvsize::test::run_cli;

const std::string digest_hex(64, 'a');

/// models/manifests/registry.ollama.ai/library/gemma4/latest and models/blobs/sha256-aaa...
auto ollama_tree(bool with_blob) -> fs::path {
  const fs::path models = fs::temp_directory_path() / ("kvsize-ollama-" + std::to_string(::getpid())) / "models";
  fs::remove_all(models.parent_path());
  const fs::path manifest_dir = models / "manifests" / "registry.ollama.ai" / "library" / "gemma4";
  fs::create_directories(manifest_dir);
  fs::create_directories(models / "blobs");
  if (with_blob) {
    std::ofstream(models / "blobs" / ("sha256-" + digest_hex), std::ios::binary)
        << kvsize_test::gemma4_26b_header().bytes();
  }
  const nlohmann::json manifest = {
      {"schemaVersion", 2},
      {"mediaType", "application/vnd.docker.distribution.manifest.v2+json"},
      {"config", {{"mediaType", "application/vnd.docker.container.image.v1+json"}, {"digest", "sha256:" + std::string(64, 'c')}, {"size", 500}}},
      {"layers",
       {{{"mediaType", "application/vnd.ollama.image.model"}, {"digest", "sha256:" + digest_hex}, {"size", 17'000'000'000ULL}},
        {{"mediaType", "application/vnd.ollama.image.projector"}, {"digest", "sha256:" + std::string(64, 'b')}, {"size", 1'200'000'000ULL}},
        {{"mediaType", "application/vnd.ollama.image.license"}, {"digest", "sha256:" + std::string(64, 'd')}, {"size", 11'000}}}}};
  std::ofstream(manifest_dir / "latest") << manifest.dump(1);
  return manifest_dir / "latest";
}

/// /api/show output for the same model: model_info as Ollama prints the keys, one tensor.
auto show_json(bool verbose) -> nlohmann::json {
  nlohmann::json info = {{"general.architecture", "gemma4"},
                         {"gemma4.block_count", 30},
                         {"gemma4.context_length", 262'144},
                         {"gemma4.embedding_length", 2'816},
                         {"gemma4.attention.head_count", 16},
                         {"gemma4.attention.key_length", 512},
                         {"gemma4.attention.value_length", 512},
                         {"gemma4.attention.key_length_swa", 256},
                         {"gemma4.attention.value_length_swa", 256},
                         {"gemma4.attention.sliding_window", 1'024},
                         {"gemma4.attention.layer_norm_rms_epsilon", 1e-6},
                         {"gemma4.expert_count", 128},
                         {"gemma4.expert_used_count", 8}};
  nlohmann::json kv = nlohmann::json::array();
  nlohmann::json pattern = nlohmann::json::array();
  nlohmann::json tokens = nlohmann::json::array();
  if (verbose) {
    for (int il = 0; il < 30; ++il) {
      kv.push_back(il % 6 == 5 ? 2 : 8);
      pattern.push_back(il % 6 != 5);
    }
    for (int t = 0; t < 262'144; ++t) {
      tokens.push_back("t");
    }
  }
  info["gemma4.attention.head_count_kv"] = kv;
  info["gemma4.attention.sliding_window_pattern"] = pattern;
  info["tokenizer.ggml.tokens"] = tokens;
  return {{"details", {{"format", "gguf"}, {"quantization_level", "Q4_K_M"}}},
          {"model_info", info},
          {"tensors", {{{"name", "token_embd.weight"}, {"type", "Q6_K"}, {"shape", {2'816, 262'144}}}}}};
}

}  // namespace

TEST_CASE("kvsize on an Ollama manifest reads its GGUF blob", "[ollama][cli]") {
  const fs::path manifest = ollama_tree(true);
  const auto j = kvsize::test::json_of("'" + manifest.string() + "' --context 4096");
  CHECK(j["model"]["model_type"] == "gemma4");
  CHECK(j["kv_bytes_per_sequence"] == 293'601'280);  // Gemma-4-26B at 4k (tests/unit/engines/gemma4.test.cpp)
  CHECK_THAT(j["warnings"].dump(), Catch::Matchers::ContainsSubstring("projector (vision) blob, 1200000000 bytes"));
  CHECK_THAT(j["warnings"].dump(), Catch::Matchers::ContainsSubstring("sha256-" + digest_hex));
  // No blob where the manifest's models folder keeps them: exit 2, the manifest and the key named.
  const fs::path orphan = ollama_tree(false);
  kvsize::test::require_refused(run_cli("'" + orphan.string() + "'"), "latest:/layers/0/digest: the model blob sha256-");
  // A digest that is not sha256 + 64 hex digits.
  nlohmann::json bad = nlohmann::json::parse(std::ifstream(orphan));
  bad["layers"][0]["digest"] = "sha256:../../etc/passwd";
  std::ofstream(orphan) << bad.dump();
  kvsize::test::require_refused(run_cli("'" + orphan.string() + "'"), "/layers/0/digest: expected \"sha256:\"");
  // 71 characters, as a digest is, but not hexadecimal: a path never leaves the blobs folder.
  bad["layers"][0]["digest"] = "sha256:../../../../../../../../../../../../../../../../../../etc/passwd";
  REQUIRE(bad["layers"][0]["digest"].get<std::string>().size() == 71);
  std::ofstream(orphan) << bad.dump();
  kvsize::test::require_refused(run_cli("'" + orphan.string() + "'"), "/layers/0/digest: expected \"sha256:\"");
  fs::remove_all(orphan.parent_path().parent_path().parent_path().parent_path().parent_path().parent_path());
}

TEST_CASE("kvsize on /api/show output: the GGUF keys as JSON", "[ollama][cli]") {
  const fs::path path = kvsize::test::temp_path(".json");
  std::ofstream(path) << show_json(true).dump();
  const auto j = kvsize::test::json_of("'" + path.string() + "' --context 4096");
  CHECK(j["kv_bytes_per_sequence"] == 293'601'280);
  // The one tensor listed: 262,144 rows of 2,816 Q6_K values, 11 blocks of 210 B each.
  CHECK(j["weights_bytes"] == 262'144ULL * 11 * 210);
  // The same from standard input, as `curl -s localhost:11434/api/show -d ... | kvsize -` gives it.
  const auto piped = kvsize::test::run_shell("cat '" + path.string() + "' | '" + KVSIZE_CLI_PATH + "' - --json");
  REQUIRE(piped.exit_code == 0);
  CHECK(nlohmann::json::parse(piped.out)["kv_bytes_per_sequence"] == 293'601'280);
  // Without "verbose", Ollama empties the per-layer arrays: refused, and told why.
  std::ofstream(path) << show_json(false).dump();
  kvsize::test::require_refused(run_cli("'" + path.string() + "'"), "\"verbose\": true");
  const auto r = run_cli("'" + path.string() + "'");
  CHECK_THAT(r.err, Catch::Matchers::ContainsSubstring(":/model_info/gemma4.vocab_size: absent"));
  // An array of mixed types is no GGUF array: refused at its key.
  nlohmann::json mixed = show_json(true);
  mixed["model_info"]["gemma4.attention.head_count_kv"] = {"x", 8};
  std::ofstream(path) << mixed.dump();
  kvsize::test::require_refused(run_cli("'" + path.string() + "'"),
                                ":/model_info/gemma4.attention.head_count_kv: not a value a GGUF key holds");
  fs::remove(path);
}
#endif
