// SPDX-License-Identifier: MIT
// The kvsize program as scripts use it: exit codes, stdout only on success, the JSON keys of
// docs/cli-contract.md, errors that name the file and the JSON pointer.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_support.hpp"

using Catch::Matchers::ContainsSubstring;
using kvsize::test::json_of;
using kvsize::test::run_cli;
using kvsize::test::read_file;
using kvsize::test::require_refused;
using kvsize::test::run_shell;

namespace {
/// A bundled config by file name, unquoted (the tests quote it where they build a command line).
auto config(const std::string& name) -> std::string {
  return (std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs" / name).string();
}

/// Whether one of the report's warnings (--json "warnings") holds `words`.
auto noted(const nlohmann::json& j, const std::string& words) -> bool {
  const auto& w = j.at("warnings");
  return std::any_of(w.begin(), w.end(), [&](const nlohmann::json& one) {
    return one.get<std::string>().find(words) != std::string::npos;
  });
}
}  // namespace

TEST_CASE("kvsize: Qwen2.5-1.5B --json reports the lesson's figures", "[cli]") {
  const auto j = json_of("'" + config("Qwen__Qwen2.5-1.5B.config.json") + "'");
  // Lesson 000 §3: 2 × 28 × 2 × 128 × 2 = 28,672 B/token; §2: GQA 12/2 = 6.
  CHECK(j.at("kv_bytes_per_token").get<std::uint64_t>() == 28'672);
  CHECK(j.at("kv_bytes_per_token_mha").get<std::uint64_t>() == 172'032);  // 168 KiB, lesson §2
  CHECK(j.at("gqa_ratio").get<double>() == 6.0);
  // Published parameter count (lesson 000 §6: 3.087 GB of bf16 weights) = 1,543,714,304 × 2 B.
  CHECK(j.at("parameters").get<std::uint64_t>() == 1'543'714'304);
  CHECK(j.at("weights_bytes").get<std::uint64_t>() == 3'087'428'608);
  // Default context 4,096 (below the model's 131,072): 4,096 × 28,672 = 117,440,512 B (lesson §1).
  CHECK(j.at("context").get<std::uint64_t>() == 4'096);
  CHECK(j.at("kv_bytes_per_sequence").get<std::uint64_t>() == 117'440'512);
  CHECK(j.at("kv_bytes").get<std::uint64_t>() == 117'440'512);
  CHECK(j.at("state_bytes_per_sequence").get<std::uint64_t>() == 0);
  // 151,936 × 2 B = 303,872 B per position (lesson §4); × 4,096 positions.
  CHECK(j.at("logits_bytes_per_token").get<std::uint64_t>() == 303'872);
  CHECK(j.at("logits_bytes_prefill").get<std::uint64_t>() == 303'872ULL * 4'096);
  const auto& model = j.at("model");
  CHECK(model.at("layers") == 28);
  CHECK(model.at("kv_layers") == 28);
  CHECK(model.at("attention_heads") == 12);
  CHECK(model.at("kv_heads") == 2);
  CHECK(model.at("head_dim") == 128);
  CHECK(model.at("vocab_size") == 151'936);
  CHECK(model.at("dtype") == "bf16");
  CHECK(model.at("architecture") == "Qwen2ForCausalLM");
  CHECK_FALSE(j.contains("capacity"));  // no memory given
}

TEST_CASE("kvsize: capacity on the lesson's 12.49 GB RTX 3060", "[cli]") {
  const auto j =
      json_of("'" + config("Qwen__Qwen2.5-1.5B.config.json") + "' --gpu-memory 12.49GB --context 2048 --batch 160");
  const auto& c = j.at("capacity");
  // Lesson 000 §6: 12,490,000,000 − 3,087,428,608 = 9,402,571,392 B; / 28,672 = 327,935 tokens (≈ 328,000);
  // / (2,048 × 28,672) = 160 users.
  CHECK(c.at("kv_budget_bytes").get<std::uint64_t>() == 9'402'571'392);
  CHECK(c.at("max_tokens").get<std::uint64_t>() == 327'935);
  CHECK(c.at("max_sequences").get<std::uint64_t>() == 160);
  CHECK(c.at("max_concurrency").get<double>() > 160.0);
  CHECK(c.at("max_concurrency").get<double>() < 161.0);
  CHECK(c.at("max_context").get<std::uint64_t>() == 2'049);  // 160 × 2,049 × 28,672 ≤ budget < 160 × 2,050 × …
  CHECK(j.at("kv_bytes").get<std::uint64_t>() == 160ULL * 58'720'256);
  // The one budget is also top level, with its start-up terms: exact mode keeps nothing back, so
  // device = weights + kv and nothing is unused.
  CHECK(j.at("kv_budget_bytes").get<std::uint64_t>() == 9'402'571'392);
  const auto& b = j.at("budget");
  CHECK(b.at("device_bytes").get<std::uint64_t>() == 12'490'000'000);
  CHECK(b.at("weights_bytes").get<std::uint64_t>() == 3'087'428'608);
  CHECK(b.at("kv_bytes").get<std::uint64_t>() == 9'402'571'392);
  CHECK(b.at("activation_peak_bytes").get<std::uint64_t>() == 0);
  CHECK(b.at("unused_bytes").get<std::uint64_t>() == 0);
}

TEST_CASE("kvsize: --json budget terms add up to the device under each engine", "[cli]") {
  const std::string qwen = "'" + config("Qwen__Qwen2.5-1.5B.config.json") + "' --gpu rtx-3060 --context 2048";
  for (const std::string engine : {"vllm", "sglang", "llama.cpp", "trtllm", "transformers"}) {
    INFO(engine);
    const auto j = json_of(qwen + " --engine " + engine);
    const auto& b = j.at("budget");
    const auto term = [&](const char* k) { return b.at(k).get<std::uint64_t>(); };
    CHECK(term("kv_bytes") == j.at("kv_budget_bytes").get<std::uint64_t>());
    CHECK(term("kv_bytes") == j.at("capacity").at("kv_budget_bytes").get<std::uint64_t>());
    CHECK(term("kv_bytes") + term("weights_bytes") + term("activation_peak_bytes") + term("non_torch_bytes") +
              term("cuda_graphs_bytes") + term("reserve_bytes") + term("unused_bytes") ==
          term("device_bytes"));
  }
  // --kv-memory gives the budget instead of computing it: no start-up terms.
  const auto given = json_of("'" + config("Qwen__Qwen2.5-1.5B.config.json") + "' --kv-memory 1GiB");
  CHECK(given.at("kv_budget_bytes").get<std::uint64_t>() == 1'073'741'824);
  CHECK_FALSE(given.contains("budget"));
}

TEST_CASE("kvsize: --kv-memory skips weights; --kv-dtype and --k-dtype/--v-dtype change the bytes", "[cli]") {
  const std::string qwen = "'" + config("Qwen__Qwen2.5-1.5B.config.json") + "'";
  const auto j = json_of(qwen + " --kv-memory 1GiB --kv-dtype fp8");
  // fp8: 1 B per element → 14,336 B/token; 2^30 / 14,336 = 74,898 tokens.
  CHECK(j.at("kv_bytes_per_token").get<std::uint64_t>() == 14'336);
  CHECK(j.at("capacity").at("kv_budget_bytes").get<std::uint64_t>() == 1'073'741'824);
  CHECK(j.at("capacity").at("max_tokens").get<std::uint64_t>() == 74'898);
  // K in q8_0 (34 B per 32), V in f16: 28 × 256 × 34/32 + 28 × 256 × 2 = 7,616 + 14,336 = 21,952 B.
  const auto mixed = json_of(qwen + " --k-dtype q8_0 --v-dtype f16");
  CHECK(mixed.at("kv_bytes_per_token").get<std::uint64_t>() == 21'952);
  CHECK(mixed.at("k_dtype") == "q8_0");
  CHECK(mixed.at("v_dtype") == "f16");
}

TEST_CASE("kvsize: a context above the model's maximum is honoured with a warning", "[cli]") {
  const auto r = run_cli("'" + config("Qwen__Qwen2.5-1.5B.config.json") + "' --context 200000 --json");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.err, ContainsSubstring("exceeds the model's maximum"));
  CHECK(nlohmann::json::parse(r.out).at("kv_bytes_per_sequence").get<std::uint64_t>() == 200'000ULL * 28'672);
}

TEST_CASE("kvsize: the human report names its units", "[cli]") {
  const auto r = run_cli("'" + config("Qwen__Qwen2.5-1.5B.config.json") + "' --gpu rtx-3060");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, ContainsSubstring("28 KiB (28,672 B)"));
  CHECK_THAT(r.out, ContainsSubstring("1,543,714,304"));
  CHECK_THAT(r.out, ContainsSubstring("powers of 1024"));
  CHECK(r.err.empty());
}

namespace {
/// Every `--option` spelled in `text`, once each, in order of first appearance.
auto long_options_in(const std::string& text) -> std::vector<std::string> {
  std::vector<std::string> found;
  for (std::size_t at = text.find("--"); at != std::string::npos; at = text.find("--", at + 2)) {
    std::size_t end = at + 2;
    while (end < text.size() && ((text[end] >= 'a' && text[end] <= 'z') || (text[end] >= '0' && text[end] <= '9') ||
                                 (text[end] == '-' && end + 1 < text.size() && text[end + 1] != '-'))) {
      ++end;
    }
    const std::string name = text.substr(at, end - at);
    if (end > at + 2 && name.back() != '-' && std::find(found.begin(), found.end(), name) == found.end()) {
      found.push_back(name);
    }
  }
  return found;
}
}  // namespace

TEST_CASE("kvsize: --help lists every option of the CLI contract, and the README documents every one it lists",
          "[cli]") {
  const auto help = run_cli("--help");
  REQUIRE(help.exit_code == 0);
  const auto help_options = long_options_in(help.out);
  REQUIRE(help_options.size() >= 30);  // 35 options in five groups today
  // The options scripts rely on (docs/cli-contract.md, the project's copy of the contract).
  const auto contract = long_options_in(read_file(std::filesystem::path{KVSIZE_SOURCE_DIR} / "docs/cli-contract.md"));
  REQUIRE(contract.size() >= 20);
  for (const auto& option : contract) {
    INFO(option << " is in docs/cli-contract.md");
    CHECK(std::find(help_options.begin(), help_options.end(), option) != help_options.end());
  }
  // ... and every option --help lists is spelled somewhere in the README.
  const auto readme = read_file(std::filesystem::path{KVSIZE_SOURCE_DIR} / "README.md");
  for (const auto& option : help_options) {
    INFO(option << " is in kvsize --help");
    CHECK((readme.find(option + " ") != std::string::npos || readme.find(option + "`") != std::string::npos ||
           readme.find(option + "=") != std::string::npos));
  }
  // The option groups of --help.
  for (const char* group : {"Sequences and cache", "Device", "Engine", "Planner", "Output"}) {
    CHECK_THAT(help.out, ContainsSubstring(group));
  }
}

TEST_CASE("kvsize: --list-gpus prints the catalog", "[cli]") {
  const auto r = run_cli("--list-gpus");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, ContainsSubstring("h100-80gb"));
  CHECK_THAT(r.out, ContainsSubstring("rtx-3060"));
}

TEST_CASE("kvsize: bad input exits 2 with one message naming the file, and prints nothing on stdout", "[cli]") {
  const std::string qwen = "'" + config("Qwen__Qwen2.5-1.5B.config.json") + "'";
  struct bad_case {
    std::string args;
    std::string message_part;
  };
  const bad_case cases[] = {
      {"/nonexistent/config.json", "/nonexistent/config.json"},
      {qwen + " --kv-dtype fp9", "--kv-dtype: unknown element type 'fp9'"},
      {qwen + " --gpu rtx-9999", "--gpu: unknown GPU 'rtx-9999'"},
      // A family name with several catalog variants: the variants are named, none is taken.
      {qwen + " --gpu H100", "--gpu: unknown GPU 'H100': name one of h100-80gb, h100-nvl, h100-pcie, which differ"},
      {qwen + " --gpu mi250", "--gpu: unknown GPU 'mi250': did you mean mi250x? (known: "},
      {qwen + " --gpu-memory 12gigs", "--gpu-memory: '12gigs' is not a size"},
      {qwen + " --batch 0", "--batch"},
      {qwen + " --context 0", "--context"},
      {qwen + " --batch -3", "--batch"},
      {qwen + " --engine warp", "unknown engine 'warp'"},
      {qwen + " --no-such-flag", "no-such-flag"},
      {"", "no config.json given"},
      {qwen + " --gpu rtx-3060 --gpu-memory 24GiB", "pass one of them"},
      // SGLang's --kv-cache-dtype has no float32 (engines/sglang.hpp named_type_refusal): refused, not sized.
      {qwen + " --engine sglang --kv-dtype f32", "SGLang's --kv-cache-dtype names auto"},
  };
  for (const auto& c : cases) {
    INFO(c.args);
    require_refused(run_cli(c.args), c.message_part);  // exit 2, one message, one line, nothing on stdout
  }
}

TEST_CASE("kvsize: a bad config names the file and the JSON pointer", "[cli]") {
  const auto dir = std::filesystem::temp_directory_path() / ("kvsize-cli-bad-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "config.json";
  {
    std::ofstream out(path);
    out << R"({"model_type": "llama", "num_hidden_layers": 32, "num_attention_heads": 32,
              "num_key_value_heads": -1, "hidden_size": 4096, "vocab_size": 32000})";
  }
  const auto r = run_cli("'" + path.string() + "' --json");
  std::filesystem::remove_all(dir);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, ContainsSubstring(path.string() + ":/num_key_value_heads:"));
  CHECK_THAT(r.err, ContainsSubstring("-1"));
}

TEST_CASE("kvsize: a malformed key only the weights read never blocks the KV answer", "[cli]") {
  // Mixtral-style routing with num_local_experts 0: the weights cannot be counted, the KV cache can.
  const std::string bad = "'" + config("weights_unknown/num_local_experts_zero.json") + "'";
  const auto r = run_cli(bad + " --context 4096");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, ContainsSubstring("KV cache"));
  CHECK_THAT(r.out, ContainsSubstring("per sequence of 4,096 tokens"));
  CHECK_THAT(r.err, ContainsSubstring(config("weights_unknown/num_local_experts_zero.json") +
                                      ":/num_local_experts: expected a positive integer, got 0"));
  const auto j = json_of(bad + " --context 4096");
  CHECK(j.at("kv_bytes_per_token").get<std::uint64_t>() > 0);
  CHECK(j.at("weights_bytes").is_null());
  CHECK(j.at("parameters").is_null());
  // The same KV figures as the document with a valid expert count, whose weights are counted.
  std::ifstream in(config("weights_unknown/num_local_experts_zero.json"));
  nlohmann::json doc = nlohmann::json::parse(in);
  doc["num_local_experts"] = 8;
  const auto dir = std::filesystem::temp_directory_path() / ("kvsize-cli-weights-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto fixed = dir / "config.json";
  std::ofstream(fixed) << doc.dump();
  const auto good = json_of("'" + fixed.string() + "' --context 4096");
  // Under every engine the KV figures and the engine's own log lines (llama.cpp's compute buffers
  // included) are the valid config's.
  for (const std::string engine : {"vllm", "sglang", "llama.cpp", "trtllm", "transformers"}) {
    CAPTURE(engine);
    const auto b = json_of(bad + " --context 4096 --engine " + engine);
    const auto g = json_of("'" + fixed.string() + "' --context 4096 --engine " + engine);
    CHECK(b.at("kv_bytes_per_sequence") == g.at("kv_bytes_per_sequence"));
    CHECK(b.at("log_lines") == g.at("log_lines"));
    CHECK(b.at("k_dtype") == g.at("k_dtype"));
  }
  std::filesystem::remove_all(dir);
  CHECK(j.at("kv_bytes_per_token") == good.at("kv_bytes_per_token"));
  CHECK(j.at("kv_bytes_per_sequence") == good.at("kv_bytes_per_sequence"));
  CHECK(good.at("weights_bytes").get<std::uint64_t>() > 0);
  // --weights-dtype is still checked (exit 2 for a bad one) and, a good one, said to have no effect.
  require_refused(run_cli(bad + " --weights-dtype q9_Z"), "--weights-dtype");
  const auto dtype_given = run_cli(bad + " --weights-dtype bf16");
  CHECK(dtype_given.exit_code == 0);
  CHECK_THAT(dtype_given.err, ContainsSubstring("--weights-dtype has no effect"));
  // A device's KV budget needs the weights: exit 2 naming the file, the key and --kv-memory; with
  // --kv-memory the capacity is answered.
  const auto device = run_cli(bad + " --gpu h100-80gb --engine vllm");
  require_refused(device, "--kv-memory");
  CHECK_THAT(device.err, ContainsSubstring(":/num_local_experts: expected a positive integer, got 0"));
  const auto budget = json_of(bad + " --gpu h100-80gb --kv-memory 20GiB --context 4096");
  CHECK(budget.at("kv_bytes_per_token") == good.at("kv_bytes_per_token"));
}

TEST_CASE("kvsize: --engine llama.cpp prints the iSWA cache lines llama.cpp logs", "[cli][engines]") {
  // Gemma-3-27B, -c 131072, one slot, -ub 512 (docs/engines.md, llama.cpp iSWA cells): the 10 global layers
  // hold 131,072 cells × 16 KV heads × 128 × 2 (K,V) × 2 B = 10,240 MiB; the 52 sliding layers hold
  // pad256(min(131072, 1024 + 512)) = 1,536 cells = 624 MiB. The cache is f16, llama.cpp's default -ctk/-ctv
  // (common/common.h cache_type_k = GGML_TYPE_F16), not the model's bf16: same bytes, the name llama.cpp prints.
  const auto j = json_of("'" + config("google__gemma-3-27b-it.config.json") + "' --engine llama.cpp --context 131072");
  const auto lines = j.at("log_lines").get<std::vector<std::string>>();
  const auto has = [&](const std::string& text) { return std::find(lines.begin(), lines.end(), text) != lines.end(); };
  CHECK(has("llama_kv_cache: size = 10240.00 MiB (131072 cells,  10 layers,  1/1 seqs), K (f16): 5120.00 MiB, "
            "V (f16): 5120.00 MiB"));
  CHECK(has("llama_kv_cache: size =  624.00 MiB (  1536 cells,  52 layers,  1/1 seqs), K (f16):  312.00 MiB, "
            "V (f16):  312.00 MiB"));
  CHECK(j.at("kv_bytes").get<std::uint64_t>() == 10'240ULL * 1'048'576 + 624ULL * 1'048'576);
}

TEST_CASE("kvsize: --engine vllm counts blocks of 16 tokens as vLLM does", "[cli][engines]") {
  // Llama-3.1-8B, bf16: one block of 16 tokens over 32 layers is 16 × 32 × 8 × 128 × 2 × 2 B = 2 MiB.
  // 40 GiB of KV memory → 20,480 blocks → "GPU KV cache size: 327,680 tokens"; a 32,768-token request
  // takes 2,048 blocks → "Maximum concurrency for 32,768 tokens per request: 10.00x".
  const auto j = json_of("'" + config("meta-llama__Llama-3.1-8B.config.json") +
                         "' --engine vllm --kv-memory 40GiB --context 32768");
  CHECK(j.at("block_size") == 16);
  CHECK(j.at("capacity").at("num_blocks") == 20'480);
  CHECK(j.at("capacity").at("max_tokens") == 327'680);
  CHECK(j.at("capacity").at("max_concurrency").get<double>() == 10.0);
  const auto lines = j.at("log_lines").get<std::vector<std::string>>();
  CHECK(std::find(lines.begin(), lines.end(), "GPU KV cache size: 327,680 tokens") != lines.end());
  CHECK(std::find(lines.begin(), lines.end(), "Maximum concurrency for 32,768 tokens per request: 10.00x") !=
        lines.end());
}

TEST_CASE("kvsize: a DSA model's fp8 cache under vLLM in the layout the device gets", "[cli][engines]") {
  // DeepSeek-V3.2 (61 layers, 128 query heads, architectures DeepseekV32ForCausalLM), --kv-dtype fp8, vLLM 0.19:
  // fp8_ds_mla on Hopper, 61 × (656 + 132) = 48,068 B a token; a plain fp8 row on B200 / GB200 (SM100),
  // 61 × (576 + 132) = 43,188 (engines/vllm_sparse_mla.hpp has the sources). With no --gpu, Hopper's rule and a note.
  const std::string v32 = "'" + config("deepseek-ai__DeepSeek-V3.2.config.json") + "' --engine vllm --kv-dtype fp8";
  const auto no_device = json_of(v32);
  CHECK(no_device.at("kv_bytes_per_token") == 48'068);
  CHECK(noted(no_device, "vLLM 0.19 keeps DeepSeek sparse attention's fp8 latent in the fp8_ds_mla layout (656 B a "
                         "token and layer) on Hopper, the device assumed; on a B200 or GB200 (--gpu b200) it keeps a "
                         "plain 576-byte fp8 row"));
  const auto h200 = json_of(v32 + " --gpu h200 --tp 8");
  CHECK(h200.at("kv_bytes_per_token") == 48'068);  // the latent is replicated on every rank
  CHECK_FALSE(noted(h200, "fp8_ds_mla"));
  CHECK(json_of(v32 + " --gpu b200 --tp 8").at("kv_bytes_per_token") == 43'188);
  CHECK(json_of(v32 + " --gpu b200 --tp 8 --engine-version 0.17").at("kv_bytes_per_token") == 48'068);
  CHECK(json_of(v32 + " --gpu b200 --tp 4 --engine-version 0.18").at("kv_bytes_per_token") == 48'068);  // 32 heads
  CHECK(json_of(v32 + " --gpu b200 --tp 8 --engine-version 0.18").at("kv_bytes_per_token") == 43'188);  // 16
  // GLM-5 (GlmMoeDsaForCausalLM): 0.17's hook does not name it and no sparse backend there takes "fp8": exit 2;
  // before 0.16 vLLM does not register it at all. On an A100 no sparse MLA backend runs at all, nor on ROCm in 0.11.
  for (const std::string& refused : {"'" + config("zai-org__GLM-5.config.json") +
                                         "' --engine vllm --kv-dtype fp8 --engine-version 0.17",
                                     "'" + config("zai-org__GLM-5.config.json") + "' --engine vllm --engine-version 0.15",
                                     "'" + config("deepseek-ai__DeepSeek-V3.2.config.json") +
                                         "' --engine vllm --gpu mi300x --engine-version 0.11",
                                     v32 + " --gpu a100-80gb", v32 + " --gpu h200 --dtype float16",
                                     "'" + config("deepseek-ai__DeepSeek-V3.2.config.json") +
                                         "' --engine vllm --kv-dtype fp8_e5m2 --gpu h200"}) {
    INFO(refused);
    require_refused(run_cli(refused), "--engine vllm: vLLM");
  }
  CHECK(run_cli("'" + config("zai-org__GLM-5.config.json") + "' --engine vllm --engine-version 0.16").exit_code == 0);
  // A float16 model: FLASHMLA_SPARSE runs bfloat16 only; a B200's FLASHINFER_MLA_SPARSE takes it, in plain rows.
  CHECK(json_of(v32 + " --gpu b200 --dtype float16").at("kv_bytes_per_token") == 43'188);
  // With no --gpu only a B200 serves it: sized there, and a note says so (Hopper refuses it, above).
  const auto float16_no_device = json_of(v32 + " --dtype float16");
  CHECK(float16_no_device.at("kv_bytes_per_token") == 43'188);
  CHECK(noted(float16_no_device, "runs a float16 DeepSeek-sparse-attention model on a B200 or GB200 only"));
  CHECK_FALSE(noted(json_of(v32 + " --gpu b200 --dtype float16"), "float16 DeepSeek-sparse-attention"));
  // GLM-5 (78 layers, qk_nope_head_dim 192) at 8 heads a rank: FLASHINFER_MLA_SPARSE takes a nope dim of 128 only
  // before 0.19 (supports_combination), so 0.18 falls through to FLASHMLA_SPARSE's 656-byte rows; 0.19 plain rows.
  const std::string glm_5 = "'" + config("zai-org__GLM-5.config.json") + "' --engine vllm --kv-dtype fp8 --gpu b200 --tp 8";
  CHECK(json_of(glm_5 + " --engine-version 0.18").at("kv_bytes_per_token") == 78 * (656 + 132));
  CHECK(json_of(glm_5 + " --engine-version 0.19").at("kv_bytes_per_token") == 78 * (576 + 132));
  // With no --gpu, 0.18 keeps GLM-5's 656-byte rows on a B200 as on Hopper: no note says otherwise.
  const auto glm_5_no_device =
      json_of("'" + config("zai-org__GLM-5.config.json") + "' --engine vllm --kv-dtype fp8 --tp 8 --engine-version 0.18");
  CHECK(glm_5_no_device.at("kv_bytes_per_token") == 78 * (656 + 132));
  CHECK_FALSE(noted(glm_5_no_device, "plain 576-byte"));
  CHECK(run_cli("'" + config("deepseek-ai__DeepSeek-V3.2.config.json") + "' --engine vllm --gpu mi300x --engine-version "
                "0.12").exit_code == 0);
  // bf16 (the default cache): no fp8 layout, no note.
  const auto bf16 = json_of("'" + config("deepseek-ai__DeepSeek-V3.2.config.json") + "' --engine vllm");
  CHECK(bf16.at("kv_bytes_per_token") == 61 * (1'152 + 132));
  CHECK_FALSE(noted(bf16, "fp8_ds_mla"));
}

TEST_CASE("kvsize: a DSA model under SGLang: the cache type, rows and pages SGLang sets for it", "[cli][engines]") {
  // DeepSeek-V3.2 (61 layers): engines/sglang_dsa.hpp has the sources. Hopper, auto: bf16 from 0.5.5,
  // 61 × (1,152 + 132) = 78,324 B a token; fp8_e4m3 named: DeepSeek's 656-byte rows, 61 × (656 + 132) = 48,068;
  // B200, auto: fp8_e4m3, in plain rows under 0.5.10+'s trtllm backends (61 × (576 + 132) = 43,188), in 656-byte
  // rows before. Pages of 64 whatever --block-size says.
  const std::string v32 = "'" + config("deepseek-ai__DeepSeek-V3.2.config.json") + "' --engine sglang";
  const auto no_device = json_of(v32);
  CHECK(no_device.at("kv_bytes_per_token") == 78'324);
  CHECK(no_device.at("block_size") == 64);
  CHECK(noted(no_device, "SGLang 0.5.15-0.5.19 keeps DeepSeek sparse attention's cache in bf16 on Hopper, the device "
                         "assumed, and in fp8_e4m3 on compute capability 10+"));
  const auto h200 = json_of(v32 + " --gpu h200 --tp 8");
  CHECK(h200.at("kv_bytes_per_token") == 78'324);
  CHECK_FALSE(noted(h200, "the device assumed"));
  CHECK(json_of(v32 + " --gpu h200 --tp 8 --kv-dtype fp8_e4m3").at("kv_bytes_per_token") == 48'068);
  CHECK(json_of(v32 + " --gpu b200 --tp 8").at("kv_bytes_per_token") == 43'188);
  const auto b200_0_5_9 = json_of(v32 + " --gpu b200 --tp 8 --engine-version 0.5.9");
  CHECK(b200_0_5_9.at("kv_bytes_per_token") == 48'068);
  // 0.5.9 counts the pool's tokens at 61 × 708 B and allocates 61 × 788: the note says what that takes.
  CHECK(noted(b200_0_5_9, "SGLang 0.5.9 counts DeepSeek sparse attention's pool at 43,188 B a token and allocates "
                          "48,068 B"));
  const auto tokens = b200_0_5_9.at("capacity").at("max_tokens").get<std::uint64_t>();
  CHECK(tokens == b200_0_5_9.at("capacity").at("kv_budget_bytes").get<std::uint64_t>() / 43'188 / 64 * 64);
  // 0.5.3rc2 – 0.5.4 set fp8_e4m3 on B200 over a named type, and 0.5.3 mem_fraction_static 0.8 over any.
  const auto forced = json_of(v32 + " --gpu b200 --tp 8 --engine-version 0.5.4 --kv-dtype bf16");
  CHECK(forced.at("kv_bytes_per_token") == 48'068);
  CHECK(noted(forced, "SGLang 0.5.4 sets fp8_e4m3 for DeepSeek sparse attention on compute capability 10+ over "
                      "--kv-cache-dtype"));
  // From 0.5.4.post2 a named bf16 stays (and the command line names it, SGLang's default there being fp8_e4m3).
  const auto kept = run_cli(v32 + " --gpu b200 --tp 8 --engine-version 0.5.4.post2 --kv-dtype bf16");
  REQUIRE(kept.exit_code == 0);
  CHECK_THAT(kept.out, ContainsSubstring("78,324 B"));
  CHECK_THAT(kept.out, ContainsSubstring("--kv-cache-dtype bf16"));
  CHECK_THAT(kept.out, !ContainsSubstring("sets fp8_e4m3"));
  const auto fraction =
      json_of(v32 + " --gpu h200 --tp 8 --engine-version 0.5.3 --mem-fraction-static 0.9").at("budget").at("fraction");
  CHECK(fraction.get<double>() == 0.8);
  CHECK(noted(json_of(v32 + " --gpu h200 --tp 8 --engine-version 0.5.3 --mem-fraction-static 0.9"),
              "--mem-fraction-static 0.9: SGLang 0.5.3 sets mem_fraction_static 0.8 for DeepSeek sparse attention"));
  // 0.5.3rc2 – 0.5.5.post3 turn DP attention on at dp = tp (server_args.py, PR #11061): each GPU holds q_b, kv_b and
  // o_proj with their float32 block scales (37,757,952 + 16,781,312 + 117,469,184 B a layer × 61 = 10,492,515,328 B)
  // and the bf16 embedding (129,280 × 7,168 × 2 = 1,853,358,080 B) whole, 7/8 of 12,345,873,408 B more than at
  // 0.5.6 (docs/research/sglang-dp-attention.md derives the figure by hand). At tp 1 and from 0.5.6: no change.
  const auto weights_at = [&](const std::string& flags) {
    return json_of(v32 + " --gpu h200 " + flags).at("capacity").at("weights_per_device_bytes").get<std::uint64_t>();
  };
  CHECK(weights_at("--tp 8 --engine-version 0.5.5.post3") - weights_at("--tp 8 --engine-version 0.5.6") ==
        10'802'639'232ULL);
  CHECK(weights_at("--tp 8 --engine-version 0.5.4") == weights_at("--tp 8 --engine-version 0.5.5"));
  CHECK(noted(json_of(v32 + " --gpu h200 --tp 8 --engine-version 0.5.4"),
              "DP attention: SGLang 0.5.4 turns it on for DeepSeek sparse attention at dp = tp = 8"));
  CHECK_FALSE(noted(json_of(v32 + " --gpu h200 --tp 8 --engine-version 0.5.6"), "DP attention"));
  CHECK_FALSE(noted(json_of(v32 + " --engine-version 0.5.4"), "DP attention"));  // tp 1
  // SGLang sets the page size itself: the command line passes none.
  CHECK_THAT(run_cli(v32 + " --gpu h200 --tp 8 --block-size 16").out, !ContainsSubstring("--page-size 16"));
  CHECK(noted(json_of(v32 + " --gpu h200 --tp 8 --block-size 16"), "--block-size 16: SGLang 0.5.15-0.5.19 sets a page "
                                                                   "size of 64 for DeepSeek sparse attention"));
  // MI300X keeps fp8_e4m3 as e4m3fnuz, in plain rows, in pages of one token from 0.5.8 (a note where another was
  // given; from 0.5.12 the page depends on the runtime, and no note is given).
  CHECK(noted(json_of(v32 + " --gpu mi300x --tp 8 --engine-version 0.5.8 --block-size 16"), "sets a page size of 1 "));
  CHECK_FALSE(noted(json_of(v32 + " --gpu mi300x --tp 8 --block-size 16"), "sets a page size"));
  const auto mi300x = json_of(v32 + " --gpu mi300x --tp 8 --kv-dtype fp8_e4m3");
  CHECK(mi300x.at("kv_bytes_per_token") == 43'188);
  CHECK(mi300x.at("block_size") == 1);
  // Refused: any DSA model before 0.5.3rc2, GLM-5 before 0.5.9, a type but bf16 / fp8_e4m3 from 0.5.5.
  for (const std::string& refused : {v32 + " --engine-version 0.5.2",
                                     "'" + config("zai-org__GLM-5.config.json") + "' --engine sglang --engine-version 0.5.8",
                                     v32 + " --kv-dtype f16"}) {
    INFO(refused);
    require_refused(run_cli(refused), "--engine sglang: SGLang");
  }
  CHECK(run_cli("'" + config("zai-org__GLM-5.config.json") + "' --engine sglang --engine-version 0.5.9").exit_code == 0);
}

TEST_CASE("kvsize: SGLang's DP attention (--dp tp --enable-dp-attention), one GPU's figures", "[cli][engines][dp]") {
  // engines/sglang_dp.hpp; docs/research/sglang-dp-attention.md. Qwen3-235B-A22B (94 layers, 64 heads, 4 KV heads
  // of 128, hidden 4,096, vocabulary 151,936, bf16) on 8 × H200.
  const std::string q235 = "'" + config("Qwen__Qwen3-235B-A22B.config.json") + "' --engine sglang --gpu h200 --tp 8";
  const auto tp = json_of(q235);
  const auto dp = json_of(q235 + " --dp 8 --enable-dp-attention");
  // Every KV head of a GPU's own requests: 94 × 4 × 128 × 2 × 2 B (1 head a GPU under TP attention).
  CHECK(tp.at("kv_bytes_per_token") == 48'128);
  CHECK(dp.at("kv_bytes_per_token") == 192'512);
  // Each GPU holds the attention and the embedding whole. Under TP attention q_proj and o_proj (2 × 4,096 × 8,192
  // × 2 B × 94 layers = 12,616,466,432 B) and the embedding (151,936 × 4,096 × 2 = 1,244,659,712 B) are split 8
  // ways, k_proj and v_proj (2 × 4,096 × 512 × 2 B × 94 = 788,529,152 B) 4 ways (one KV head each): DP attention
  // adds 7/8 × 13,861,126,144 + 3/4 × 788,529,152 = 12,719,882,240 B a GPU.
  const auto weights = [](const nlohmann::json& j) {
    return j.at("capacity").at("weights_per_device_bytes").get<std::uint64_t>();
  };
  CHECK(weights(dp) - weights(tp) == 12'719'882'240ULL);
  // The default fraction reserves the graph batch × dp × 3 (× 1.5 more above 300) MiB: less room for the pool.
  CHECK(dp.at("budget").at("fraction").get<double>() < tp.at("budget").at("fraction").get<double>());
  CHECK(noted(dp, "DP attention (--dp 8 --enable-dp-attention): each of the 8 GPUs holds the attention projections"));
  // --json's dp_attention: the ranks' totals beside one GPU's capacity.
  CHECK(dp.at("dp_attention").at("ranks") == 8);
  CHECK(dp.at("dp_attention").at("max_tokens").get<std::uint64_t>() ==
        8 * dp.at("capacity").at("max_tokens").get<std::uint64_t>());
  CHECK(dp.at("dp_attention").at("max_sequences").get<std::uint64_t>() ==
        8 * dp.at("capacity").at("max_sequences").get<std::uint64_t>());
  CHECK_FALSE(tp.contains("dp_attention"));
  // The command names DP attention and all the requests: SGLang divides --max-running-requests by dp.
  const std::string command = json_of(q235 + " --dp-size 8 --enable-dp-attention --batch 4 --context 8192")
                                  .at("plan")
                                  .at("command_line")
                                  .get<std::string>();
  CHECK_THAT(command, ContainsSubstring("--tp-size 8 --dp 8 --enable-dp-attention"));
  CHECK_THAT(command, ContainsSubstring("--max-running-requests 32 "));
  const auto text = run_cli(q235 + " --dp-size 8 --enable-dp-attention --batch 4 --context 8192");
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, ContainsSubstring("with DP attention:"));  // the verdict: users per GPU
  // What kvsize does not size, or SGLang does not run: exit 2, naming the option as typed.
  const struct {
    std::string flags;
    std::string words;
  } refused[] = {
      {" --dp 3 --enable-dp-attention", "--dp 3: SGLang requires --tp 8 to be a multiple of it"},
      {" --dp-size 16 --enable-dp-attention", "--dp-size 16: SGLang requires --tp 8 to be a multiple of it"},
      {" --dp 8 --enable-dp-attention --max-running-requests 4", "--max-running-requests 4: under DP attention SGLang gives each of"},
      {" --dp 2 --enable-dp-attention --max-running-requests 1", "each of the 2 ranks 1 // 2 = 0 requests"},
      // server_args.py: "Please set a dp-size > 1" to 0.5.2rc2; the LM head's own assert in 0.5.2; no such option.
      {" --enable-dp-attention --engine-version 0.5.2rc2", "--enable-dp-attention: SGLang 0.5.2rc2 asserts a dp above 1"},
      {" --dp 2 --enable-dp-attention --engine-version 0.4.4", "--enable-dp-attention: SGLang 0.4.4 sets dp to tp under"},
      {" --enable-dp-lm-head --engine-version 0.5.2", "--enable-dp-lm-head: SGLang 0.5.2 asserts DP attention with it"},
      {" --enable-dp-lm-head --engine-version 0.4.5", "--enable-dp-lm-head: SGLang 0.4.5 has no such option"},
      {" --moe-dense-tp-size 1 --engine-version 0.4.5.post1", "--moe-dense-tp-size: SGLang 0.4.5.post1 has no such"},
  };
  for (const auto& r : refused) {
    CAPTURE(r.flags);
    const auto result = run_cli(q235 + r.flags);
    CHECK(result.exit_code == 2);
    CHECK(result.out.empty());
    CHECK_THAT(result.err, ContainsSubstring(r.words));
  }
  // dp < tp (PR #4390): 2 ranks of 4 GPUs. Each GPU caches 4 KV heads / 4 = 1 of its rank's requests (as under
  // TP: 48,128 B a token); q_proj and o_proj split 4 ways, not 8 (12,616,466,432 / 8 B more a GPU), and the
  // embedding over the rank's 4 GPUs from 0.5.9 (1,244,659,712 / 8 more), whole before (7/8 of it more).
  const auto dp2 = json_of(q235 + " --dp 2 --enable-dp-attention --batch 4 --context 8192");
  CHECK(dp2.at("kv_bytes_per_token") == 48'128);
  CHECK(weights(dp2) - weights(tp) == 1'577'058'304ULL + 155'582'464ULL);
  const auto dp2_058 = json_of(q235 + " --dp 2 --enable-dp-attention --engine-version 0.5.8");
  CHECK(weights(dp2_058) - weights(json_of(q235 + " --engine-version 0.5.8")) == 1'577'058'304ULL + 1'089'077'248ULL);
  CHECK(dp2.at("dp_attention").at("ranks") == 2);
  CHECK(dp2.at("dp_attention").at("attention_tp") == 4);
  CHECK(dp.at("dp_attention").at("attention_tp") == 1);
  CHECK(noted(dp2, "DP attention (--dp 2 --enable-dp-attention): 2 ranks of 4 GPUs"));
  const std::string dp2_command = dp2.at("plan").at("command_line").get<std::string>();
  CHECK_THAT(dp2_command, ContainsSubstring("--tp-size 8 --dp 2 --enable-dp-attention"));
  CHECK_THAT(dp2_command, ContainsSubstring("--max-running-requests 8 "));
  const auto dp2_text = run_cli(q235 + " --dp 2 --enable-dp-attention --batch 4 --context 8192");
  REQUIRE(dp2_text.exit_code == 0);
  CHECK_THAT(dp2_text.out, ContainsSubstring("with DP attention: users per rank of 4 GPUs"));
  // --enable-dp-lm-head: the LM head over a rank's GPUs (whole at dp = tp): 7/8 of 1,244,659,712 B more a GPU, and
  // the command names it. Without DP attention SGLang asserts: exit 2; at dp 1 it is off (a note).
  const auto head = json_of(q235 + " --dp 8 --enable-dp-attention --enable-dp-lm-head");
  CHECK(weights(head) - weights(dp) == 1'089'077'248ULL);
  CHECK_THAT(head.at("plan").at("command_line").get<std::string>(),
             ContainsSubstring("--dp 8 --enable-dp-attention --enable-dp-lm-head"));
  CHECK(noted(head, "--enable-dp-lm-head: the LM head is split over a rank's 1 GPU"));
  const auto head_alone = run_cli(q235 + " --dp 8 --enable-dp-lm-head");
  CHECK(head_alone.exit_code == 2);
  CHECK(head_alone.out.empty());
  CHECK_THAT(head_alone.err, ContainsSubstring("--enable-dp-lm-head: SGLang asserts DP attention with it"));
  CHECK(noted(json_of(q235 + " --enable-dp-lm-head"), "--enable-dp-lm-head at dp 1: SGLang turns it off"));
  // Releases that assert where later ones turn the flags off at dp 1, or lack the option: refused above.
  CHECK(noted(json_of(q235 + " --enable-dp-attention --engine-version 0.5.2"), "--enable-dp-attention at dp 1"));
  CHECK(noted(json_of(q235 + " --enable-dp-lm-head --engine-version 0.5.3rc0"), "--enable-dp-lm-head at dp 1"));
  // --moe-dense-tp-size 1: DeepSeek-R1's 3 dense MLP layers (FP8: 3 × 7,168 × 18,432 B and 3 × 144 × 56 float32
  // block scales a layer, 396,458,496 B; 1,189,375,488 B in all) whole on every GPU: 7/8 of it more at tp 8. A class
  // whose file does not read it (qwen3_moe.py): no effect, a note. SGLang takes 1 only.
  const std::string r1 = "'" + config("deepseek-ai__DeepSeek-R1.config.json") + "' --engine sglang --gpu h200 --tp 8";
  const auto r1_dense = json_of(r1 + " --moe-dense-tp-size 1");
  CHECK(weights(r1_dense) - weights(json_of(r1)) == 1'040'703'552ULL);
  CHECK_THAT(r1_dense.at("plan").at("command_line").get<std::string>(), ContainsSubstring("--moe-dense-tp-size 1"));
  CHECK(noted(json_of(q235 + " --moe-dense-tp-size 1"), "--moe-dense-tp-size 1: config.json's architectures name no"));
  // By release: glm4_moe.py reads it from 0.4.9.post5. GLM-4.5's 3 dense layers, 3 × 3 × 5,120 × 12,288 × 2 B =
  // 1,132,462,080 B, whole: 7/8 of it, 990,904,320 B, more a GPU at tp 8 than under 0.4.9.post4 (a note there).
  const std::string glm = "'" + config("zai-org__GLM-4.5.config.json") +
                          "' --engine sglang --gpu h200 --tp 8 --moe-dense-tp-size 1 --engine-version 0.4.9.post";
  const auto glm_post4 = json_of(glm + "4");
  CHECK(noted(glm_post4, "--moe-dense-tp-size 1: config.json's architectures name no class whose file reads it in "
                         "SGLang 0.4.9.post4"));
  CHECK(weights(json_of(glm + "5")) - weights(glm_post4) == 990'904'320ULL);
  const auto dense_2 = run_cli(r1 + " --moe-dense-tp-size 2");
  CHECK(dense_2.exit_code == 2);
  CHECK(dense_2.out.empty());
  CHECK_THAT(dense_2.err, ContainsSubstring("--moe-dense-tp-size"));
  // A hybrid's state pools under DP attention are not modelled: refused, not sized as TP.
  const auto hybrid = run_cli("'" + config("Qwen__Qwen3-Next-80B-A3B-Thinking.config.json") +
                              "' --engine sglang --tp 2 --dp 2 --enable-dp-attention");
  CHECK(hybrid.exit_code == 2);
  CHECK_THAT(hybrid.err, ContainsSubstring("recurrent layers"));
  // --dp alone is replicas of the tp group; --enable-dp-attention at dp 1 is off: notes, TP attention's figures.
  const auto replicas = json_of(q235 + " --dp 4");
  CHECK(replicas.at("kv_bytes_per_token") == 48'128);
  CHECK(noted(replicas, "--dp 4 without --enable-dp-attention: SGLang runs 4 replicas"));
  const auto flag_at_dp_1 = json_of(q235 + " --enable-dp-attention");
  CHECK(noted(flag_at_dp_1, "--enable-dp-attention at dp 1: SGLang turns DP attention off"));
  // ... after its memory settings reserved for the flag: graph batch 512 × 1 × (3 + 1.5) = 2,304 MiB of the H200's
  // 143,771 MiB (server_args.py _handle_gpu_memory_settings, before _handle_data_parallelism).
  CHECK(json_of(q235).at("budget").at("fraction") == 0.893);
  CHECK(flag_at_dp_1.at("budget").at("fraction") == 0.877);
  CHECK(flag_at_dp_1.at("kv_bytes_per_token") == 48'128);
  // What each GPU holds whole at dp = tp: the replicated layers (100,162,560 B), and the attention, the embedding
  // (over a rank of one GPU) and all K/V: 12,616,466,432 + 1,244,659,712 + 788,529,152 B.
  CHECK(dp.at("capacity").at("weights_whole_per_device_bytes") ==
        100'162'560ULL + 12'616'466'432ULL + 1'244'659'712ULL + 788'529'152ULL);
  CHECK(tp.at("capacity").at("weights_whole_per_device_bytes") == 100'162'560ULL);
  // A model class SGLang builds without the attention-TP size (llama.py): not DP attention at dp = tp, refused.
  const auto llama = run_cli("'" + config("meta-llama__Llama-3.1-8B.config.json") +
                             "' --engine sglang --tp 2 --dp 2 --enable-dp-attention");
  CHECK(llama.exit_code == 2);
  CHECK_THAT(llama.err, ContainsSubstring("model classes it builds with the attention-TP size"));
  // Where the release sets dp = tp itself (DeepSeek-V3.2 under 0.5.4): the flags change nothing (a note), and the
  // command asks for all of the GPUs' requests: --batch 2 on each of 8 GPUs.
  const std::string v32 = "'" + config("deepseek-ai__DeepSeek-V3.2.config.json") +
                          "' --engine sglang --gpu h200 --tp 8 --engine-version 0.5.4 --batch 2 --context 4096";
  const auto set_by_release = json_of(v32 + " --dp 2 --enable-dp-attention");
  CHECK(noted(set_by_release, "SGLang 0.5.4 sets DP attention at dp = tp for DeepSeek sparse attention over the flags"));
  const std::string v32_command = json_of(v32).at("plan").at("command_line").get<std::string>();
  CHECK_THAT(v32_command, ContainsSubstring("--max-running-requests 16 "));
  CHECK_THAT(v32_command, !ContainsSubstring("--enable-dp-attention"));
  // 0.5.6 – 0.5.7 set enable_dp_attention for a DSA model without a dp: --dp 8 alone is DP attention there.
  const std::string v32_056 = "'" + config("deepseek-ai__DeepSeek-V3.2.config.json") +
                              "' --engine sglang --gpu h200 --tp 8 --engine-version 0.5.6 --dp 8";
  const auto dp_alone = json_of(v32_056);
  CHECK(dp_alone.at("dp_attention").at("ranks") == 8);
  // ... set in _handle_model_specific_adjustments, after the memory settings: the default fraction has no DP
  // reserve then, and has it with --enable-dp-attention (server_args.py v0.5.6 __post_init__).
  const double no_dp = json_of("'" + config("deepseek-ai__DeepSeek-V3.2.config.json") +
                               "' --engine sglang --gpu h200 --tp 8 --engine-version 0.5.6")
                           .at("budget").at("fraction").get<double>();
  CHECK(dp_alone.at("budget").at("fraction").get<double>() == no_dp);
  CHECK(json_of(v32_056 + " --enable-dp-attention").at("budget").at("fraction").get<double>() < no_dp);
  // Where the release sets DP attention itself, the command still names --enable-dp-lm-head.
  CHECK_THAT(json_of(v32 + " --enable-dp-lm-head").at("plan").at("command_line").get<std::string>(),
             ContainsSubstring("--enable-dp-lm-head"));
  // Another engine: no effect, said so.
  const auto vllm = run_cli("'" + config("Qwen__Qwen3-235B-A22B.config.json") + "' --engine vllm --tp 8 --dp 8");
  CHECK(vllm.exit_code == 0);
  CHECK_THAT(vllm.err, ContainsSubstring("--dp has no effect with --engine vllm"));
}

TEST_CASE("kvsize: --tp splits KV heads per device", "[cli][engines]") {
  // Llama-3.1-8B: 8 KV heads over tp 2 → 4 per rank: 131,072 / 2 = 65,536 B per token per device.
  const auto j = json_of("'" + config("meta-llama__Llama-3.1-8B.config.json") + "' --engine vllm --tp 2");
  CHECK(j.at("kv_heads_per_rank") == 4);
  CHECK(j.at("kv_bytes_per_token").get<std::uint64_t>() == 65'536);
  // tp 16 > 8 KV heads: vLLM replicates, max(1, 8 // 16) = 1 head per rank (16,384 B per token).
  const auto r = json_of("'" + config("meta-llama__Llama-3.1-8B.config.json") + "' --engine vllm --tp 16");
  CHECK(r.at("kv_heads_per_rank") == 1);
  CHECK(r.at("kv_bytes_per_token").get<std::uint64_t>() == 16'384);
  // DeepSeek-R1 (MLA): the latent vector is one "KV head", replicated on every rank (vLLM, SGLang,
  // llama.cpp), as model.kv_heads says; transformers caches the expanded K and V of 128 query heads,
  // 16 per rank at tp 8. (It printed 128 / 8 = 16 for every engine, from num_key_value_heads.)
  const std::string r1 = "'" + config("deepseek-ai__DeepSeek-R1.config.json") + "' --tp 8 --engine ";
  for (const char* engine : {"vllm", "sglang", "trtllm", "exact"}) {
    INFO(engine);
    CHECK(json_of(r1 + engine).at("kv_heads_per_rank") == 1);
  }
  CHECK(json_of(r1 + "transformers").at("kv_heads_per_rank") == 16);
}

TEST_CASE("kvsize: parameters and weights for every architecture, in the checkpoint's own format", "[cli][weights]") {
  // DeepSeek-R1: 671,026,419,200 module parameters (docs/research/param-counts.md: HF API per-dtype counts,
  // README "685B = 671B + 14B MTP"); its fp8 quantization_config (128 × 128 blocks) is the format.
  const auto r1 = json_of("'" + config("deepseek-ai__DeepSeek-R1.config.json") + "'");
  CHECK(r1.at("parameters").get<std::uint64_t>() == 671'026'419'200);
  CHECK(r1.at("weights_dtype") == "fp8-block128x128");
  // gpt-oss-20b: MXFP4 experts; 13,761,264,768 B is its model.safetensors.index.json total_size.
  const auto oss = json_of("'" + config("openai__gpt-oss-20b.config.json") + "'");
  CHECK(oss.at("weights_dtype") == "mxfp4");
  CHECK(oss.at("weights_bytes").get<std::uint64_t>() == 13'761'264'768);
  // Llama-3.1-8B as GGUF Q4_K_M: 4,912,898,048 B (the size a llama-server /v1/models example reports).
  const auto q4 = json_of("'" + config("meta-llama__Llama-3.1-8B.config.json") + "' --weights-dtype q4_K_M");
  CHECK(q4.at("weights_dtype") == "q4_K_M");
  CHECK(q4.at("weights_bytes").get<std::uint64_t>() == 4'912'898'048);
  const auto bad = run_cli("'" + config("meta-llama__Llama-3.1-8B.config.json") + "' --weights-dtype q9_Z");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, ContainsSubstring("--weights-dtype: unknown weights format 'q9_Z'"));
}

TEST_CASE("kvsize: the report shown in the README is what kvsize prints, byte for byte", "[cli][readme]") {
  // README.md: <!-- kvsize-report: ARGS --> then a ``` block holding the output of `kvsize ARGS`, run from the
  // repository root.
  const std::string readme = read_file(std::filesystem::path{KVSIZE_SOURCE_DIR} / "README.md");
  const std::string marker = "<!-- kvsize-report: ";
  const auto at = readme.find(marker);
  REQUIRE(at != std::string::npos);
  const auto args_end = readme.find(" -->\n", at);
  REQUIRE(args_end != std::string::npos);
  const std::string args = readme.substr(at + marker.size(), args_end - at - marker.size());
  const std::string fence = "```\n";
  REQUIRE(readme.compare(args_end + 5, fence.size(), fence) == 0);
  const auto body = args_end + 5 + fence.size();
  const auto close = readme.find("\n```\n", body);
  REQUIRE(close != std::string::npos);
  const std::string shown = readme.substr(body, close + 1 - body);
  const auto r = run_shell("cd '" + std::string{KVSIZE_SOURCE_DIR} + "' && '" + KVSIZE_CLI_PATH + "' " + args);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == shown);
}

namespace {
/// `kvsize ARGS --json` parsed, with "warnings" set apart (they name options as typed).
auto figures_of(const std::string& args) -> nlohmann::json {
  auto j = json_of(args);
  j.erase("warnings");
  return j;
}
}  // namespace

TEST_CASE("kvsize: engine users' own flags give exactly what the kvsize option gives", "[cli][aliases]") {
  const std::string qwen = "'" + config("Qwen__Qwen2.5-1.5B.config.json") + "'";
  const std::string gemma = "'" + config("google__gemma-3-4b-it.config.json") + "'";
  struct alias_case {
    std::string model;
    std::string common;     ///< arguments both runs share
    std::string canonical;  ///< the kvsize option
    std::vector<std::string> spellings;
  };
  const alias_case cases[] = {
      {qwen, "", "--context 8192",
       {"--max-model-len 8192", "--context-length 8192", "-c 8192", "-c8192", "--ctx-size 8192", "--ctx-size=8192",
        "--max-seq-len 8192", "--max_seq_len 8192", "--max_model_len=8192", "--max-model-len 8K", "--max_model_len=8K"}},
      // vLLM's human_readable_int (vllm/engine/arg_utils.py): k, m, g, t are powers of 1,000, decimals allowed and
      // truncated; K, M, G, T powers of 1,024.
      {qwen, "", "--context 8000", {"--max-model-len 8k", "--max-model-len=8.0k", "--max-model-len ' 8k '"}},
      {qwen, "", "--context 25600", {"--max-model-len 25.6k"}},
      {qwen, "", "--context 1000", {"--max-model-len 1.001k"}},  // int(1.001 * 1000) = int(1000.9999999999999)
      {qwen, "--engine vllm --gpu h100-80gb", "--max-num-batched-tokens 4096",
       {"--max-num-batched-tokens 4K", "--max_num_batched_tokens=4K"}},
      {qwen, "--engine trtllm", "--batch 4", {"--max-batch-size 4", "--max_batch_size 4"}},
      {qwen, "--engine vllm", "--kv-dtype fp8", {"--kv-cache-dtype fp8", "--kv_cache_dtype fp8"}},
      {qwen, "--engine llama.cpp", "--k-dtype q8_0", {"-ctk q8_0", "--cache-type-k q8_0"}},
      {qwen, "--engine llama.cpp", "--v-dtype q8_0", {"-ctv q8_0", "--cache-type-v q8_0"}},
      {qwen, "--engine vllm", "--tp 2",
       {"-tp 2", "-tp=2", "--tensor-parallel-size 2", "--tp-size 2", "--tp_size 2"}},
      {qwen, "--engine vllm", "--pp 2", {"-pp 2", "--pipeline-parallel-size 2", "--pp-size 2", "--pp_size 2"}},
      {qwen, "--engine sglang --kv-memory 4GiB", "--block-size 16", {"--page-size 16"}},
      {qwen, "--engine llama.cpp -c 8192", "--parallel 4", {"-np 4"}},
      {gemma, "--engine llama.cpp -c 32768", "--ubatch 2048", {"-ub 2048", "--ubatch-size 2048"}},
      {qwen, "--engine llama.cpp -c 8192 -np 4", "--kv-unified", {"-kvu"}},
      {qwen, "--engine trtllm --gpu-memory 24GiB", "--prefill-chunk 2048",
       {"--max-num-tokens 2048", "--max_num_tokens 2048"}},
      {qwen, "--engine llama.cpp", "--flash-attn on", {"-fa", "-fa on", "-fa 1", "--flash-attn=on"}},
      {qwen, "--engine llama.cpp", "--n-gpu-layers 99", {"-ngl 99", "--gpu-layers 99"}},
  };
  for (const auto& c : cases) {
    const auto canonical = figures_of(c.model + " " + c.common + " " + c.canonical);
    for (const auto& spelling : c.spellings) {
      INFO(c.canonical << " spelled " << spelling);
      CHECK(figures_of(c.model + " " + c.common + " " + spelling) == canonical);
    }
    // The option changes the answer (flash attention and -ngl excepted: they do not change sizes), so
    // an alias that were dropped would be caught.
    if (c.canonical.find("flash") == std::string::npos && c.canonical.find("gpu-layers") == std::string::npos) {
      INFO(c.canonical << " changes the figures");
      CHECK(figures_of(c.model + " " + c.common) != canonical);
    }
  }
}

TEST_CASE("kvsize: messages name the alias the user typed", "[cli][aliases]") {
  const std::string qwen = "'" + config("Qwen__Qwen2.5-1.5B.config.json") + "'";
  const struct {
    std::string args;
    std::string message;
  } cases[] = {
      {"--max-model-len x", "kvsize: --max-model-len: expected a positive integer, got 'x'"},
      {"--max-model-len 1.5K",
       "kvsize: --max-model-len: '1.5K': vLLM allows no decimals with a binary suffix such as K (did you mean 1.5k?)"},
      {"--max-model-len 99999999999999T", "kvsize: --max-model-len: '99999999999999T' is more than 2^64"},
      {"--context 8k", "kvsize: --context: expected a positive integer, got '8k'"},  // kvsize's own: digits only
      {"-tp 5", "kvsize: -tp 5: this model's 12 attention heads"},
      {"--max_seq_len 0", "kvsize: --max_seq_len: expected a positive integer"},
      {"-ctk fp9", "kvsize: -ctk: unknown element type 'fp9'"},
      {"--context 1024 --max-model-len 2048", "--context and --max-model-len are the same option; pass one"},
      {"-c 1024 --ctx-size 2048", "-c and --ctx-size are the same option (--context); pass one"},
      {"--tp 2 --tp 2", "--tp is given twice; pass it once"},
      {"--engine llama.cpp --flash-attn=maybe", "kvsize: --flash-attn: expected on, off or auto, got 'maybe'"},
      {"--engine llama.cpp -ngl lots", "kvsize: -ngl: expected a number of layers, auto or all"},
      {"--dtype fp8", "kvsize: --dtype: expected auto, half (float16), bfloat16 or float (float32), got 'fp8'"},
  };
  for (const auto& c : cases) {
    INFO(c.args);
    require_refused(run_cli(qwen + " " + c.args), c.message);
  }
  // Knobs for another engine warn under the name given.
  const auto r = run_cli(qwen + " --engine vllm -np 4 --json");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, ContainsSubstring("warning: -np has no effect with --engine vllm"));
}

TEST_CASE("kvsize: the engine knobs nobody could set before", "[cli][aliases]") {
  const std::string qwen = "'" + config("Qwen__Qwen2.5-1.5B.config.json") + "'";
  // vLLM's max_num_seqs caps the sequences that run at once (default 1024 on an 80 GiB device).
  const std::string vllm = qwen + " --engine vllm --gpu-memory 80GiB --context 1024";
  CHECK(json_of(vllm).at("capacity").at("max_sequences") == 1024);
  CHECK(json_of(vllm + " --max-num-seqs 8").at("capacity").at("max_sequences") == 8);
  // SGLang's max_running_requests likewise.
  const std::string sglang = qwen + " --engine sglang --gpu-memory 80GiB --context 1024";
  CHECK(json_of(sglang).at("capacity").at("max_sequences").get<std::uint64_t>() > 8);
  CHECK(json_of(sglang + " --max-running-requests 8").at("capacity").at("max_sequences") == 8);
  // TensorRT-LLM: (memory − weights) × fraction; 0.45 is half of the default 0.9.
  const std::string trt = qwen + " --engine trtllm --gpu-memory 24GiB";
  const auto full = json_of(trt).at("capacity").at("kv_budget_bytes").get<std::uint64_t>();
  const auto half = json_of(trt + " --kv-cache-free-gpu-memory-fraction 0.45")
                        .at("capacity")
                        .at("kv_budget_bytes")
                        .get<std::uint64_t>();
  CHECK(half * 2 <= full);
  CHECK(half * 2 + 2 >= full);
  // --dtype: the dtype the model runs in, so the default KV element type (Qwen2.5 is bf16: 28,672 B/token).
  CHECK(json_of(qwen).at("kv_bytes_per_token") == 28'672);
  CHECK(json_of(qwen + " --dtype float32").at("kv_bytes_per_token") == 57'344);
  CHECK(json_of(qwen + " --dtype half").at("model").at("dtype") == "f16");
  CHECK(json_of(qwen + " --dtype auto").at("kv_bytes_per_token") == 28'672);
  // -fa off refuses a quantized V cache, as llama_init_from_model does; -fa on takes it.
  const auto off = run_cli(qwen + " --engine llama.cpp -fa off -ctv q8_0");
  CHECK(off.exit_code == 2);
  CHECK_THAT(off.err, ContainsSubstring("-fa off: llama.cpp refuses a quantized V cache (q8_0)"));
  CHECK(run_cli(qwen + " --engine llama.cpp -fa on -ctv q8_0 --json").exit_code == 0);
  CHECK(run_cli(qwen + " --engine llama.cpp -fa off -ctk q8_0 --json").exit_code == 0);  // K alone is allowed
  // -ngl below the layer count without a device: the split needs one, and kvsize says so.
  const auto ngl = run_cli(qwen + " --engine llama.cpp -ngl 10 --json");
  CHECK(ngl.exit_code == 0);
  CHECK_THAT(ngl.err, ContainsSubstring("the offload split needs the device: give --gpu or --gpu-memory"));
  CHECK(run_cli(qwen + " --engine llama.cpp -ngl all --json").err.empty());
}

TEST_CASE("kvsize: engine names in any case and their common spellings", "[cli][aliases]") {
  const std::string qwen = "'" + config("Qwen__Qwen2.5-1.5B.config.json") + "'";
  const struct {
    std::string canonical;
    std::vector<std::string> spellings;
  } engines[] = {
      {"vllm", {"vLLM", "VLLM"}},
      {"sglang", {"SGLang"}},
      {"llama.cpp", {"llamacpp", "llama-cpp", "llama_cpp", "Llama.cpp", "LLAMA.CPP"}},
      {"trtllm", {"trt-llm", "TRT-LLM", "tensorrt_llm", "tensorrt-llm", "TensorRT-LLM", "trtllm", "TRTLLM"}},
      {"transformers", {"hf", "HF", "Transformers", "huggingface"}},
      {"exact", {"EXACT"}},
  };
  for (const auto& e : engines) {
    const auto canonical = json_of(qwen + " --engine " + e.canonical);
    CHECK(canonical.at("engine") == e.canonical);
    for (const auto& spelling : e.spellings) {
      INFO(spelling);
      CHECK(json_of(qwen + " --engine " + spelling) == canonical);
    }
  }
}

TEST_CASE("kvsize: a mistyped option or engine gets the nearest name", "[cli][aliases]") {
  const std::string qwen = "'" + config("Qwen__Qwen2.5-1.5B.config.json") + "'";
  const struct {
    std::string args;
    std::string message;
  } cases[] = {
      {"--max-modl-len 8192", "unknown option '--max-modl-len' (did you mean --max-model-len?)"},
      {"--gpu-memroy 24GiB", "unknown option '--gpu-memroy' (did you mean --gpu-memory?)"},
      {"--contxt 8192", "unknown option '--contxt' (did you mean --context?)"},
      {"--tensor-paralel-size 2", "(did you mean --tensor-parallel-size?)"},
      {"--max_num_seq 4", "unknown option '--max_num_seq' (did you mean --max-num-seqs?)"},
      {"--frobnicate", "unknown option '--frobnicate' (--help lists the options)"},
      {"--engine vlm", "unknown engine 'vlm' (expected exact, vllm, sglang, llama.cpp, trtllm or transformers; did "
                       "you mean vllm?)"},
      {"--engine trtlm", "did you mean trtllm?"},
      {"other.json", "unexpected argument 'other.json'"},
  };
  for (const auto& c : cases) {
    INFO(c.args);
    require_refused(run_cli(qwen + " " + c.args), c.message);
  }
  // One substituted letter (the British spelling) is still a near miss.
  const auto far = run_cli(qwen + " --gpu-memory-utilisation 0.9");
  CHECK_THAT(far.err, ContainsSubstring("did you mean --gpu-memory-utilization?"));
}

TEST_CASE("kvsize: --version prints the project version", "[cli][version]") {
  const auto r = run_cli("--version");
  CHECK(r.exit_code == 0);
  CHECK(r.out == std::string{"kvsize "} + KVSIZE_EXPECTED_VERSION + "\n");
  CHECK(r.err.empty());
}

TEST_CASE("kvsize: an MLP width no key gives leaves the weights and llama.cpp's compute buffer out", "[cli][weights]") {
  // Kimi-Linear without intermediate_size: KimiLinearConfig's default differs between transformers (9,216)
  // and vLLM / SGLang (11,008), so kvsize takes none, and layer 0 has a dense MLP
  // (hf/weights_reader.hpp check_dense_widths). The KV lines stand.
  std::ifstream in(std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs" /
                   "moonshotai__Kimi-Linear-48B-A3B-Instruct.config.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  const auto full_dir = kvsize::test::temp_path("-kimi-linear");
  std::filesystem::create_directories(full_dir);
  std::ofstream(full_dir / "full.json") << doc.dump();
  doc.erase("intermediate_size");
  std::ofstream(full_dir / "no_width.json") << doc.dump();
  const std::string args = " --context 4096 --engine llama.cpp";
  const auto full = json_of("'" + (full_dir / "full.json").string() + "'" + args);
  const auto r = run_cli("'" + (full_dir / "no_width.json").string() + "'" + args + " --json");
  CHECK(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("parameters").is_null());
  CHECK(j.at("kv_bytes_per_sequence") == full.at("kv_bytes_per_sequence"));
  for (const auto& line : j.at("log_lines")) {
    CHECK(line.get<std::string>().find("compute buffer size") == std::string::npos);
  }
  bool full_has_compute = false;
  for (const auto& line : full.at("log_lines")) {
    full_has_compute = full_has_compute || line.get<std::string>().find("compute buffer size") != std::string::npos;
  }
  CHECK(full_has_compute);
  CHECK_THAT(r.err, ContainsSubstring("/intermediate_size: expected the MLP width"));
  const auto text = run_cli("'" + (full_dir / "no_width.json").string() + "'" + args);
  CHECK_THAT(text.out, ContainsSubstring("llama.cpp's compute buffer lines are left out"));
  std::filesystem::remove_all(full_dir);
}

TEST_CASE("cli: SGLang scales a vision model's default fraction by its tower", "[cli][sglang][vlm]") {
  // server_args.py adjust_mem_fraction_for_vlm (engines/sglang_vlm.hpp). 0.5.4 on an H100 at tp 1: round(68,119 /
  // 81,559, 3) = 0.835, then × 0.95 × (1 − 0.1 × (24 · 1,280² / (24 · 1,024²) − 1)) = 0.8965624999999999: L is 24,
  // getattr's default (Qwen2.5-VL's vision_config says depth 32, which SGLang does not read), H 1,280. Python's
  // product, 0.7486296874999999, is not rounded again: the command gives it in full.
  const std::string qwen25 =
      "'" + config("Qwen__Qwen2.5-VL-7B-Instruct.config.json") + "' --engine sglang --gpu h100-80gb";
  const auto v054 = json_of(qwen25 + " --engine-version 0.5.4");
  CHECK(v054.at("budget").at("fraction") == 0.7486296874999999);
  CHECK_THAT(v054.at("plan").at("command_line").get<std::string>(),
             ContainsSubstring("--mem-fraction-static 0.7486296874999999"));
  CHECK(noted(v054, "SGLang 0.5.4 multiplies its default mem_fraction_static by 0.8965624999999999 for a vision "
                    "model (server_args.py adjust_mem_fraction_for_vlm"));
  CHECK(noted(v054, "num_hidden_layers L = 24 (absent: getattr's default; SGLang does not read `depth`) and "
                    "hidden_size H = 1280"));
  // 0.4.9: a flat 0.90 on rule E's 0.874 (__post_init__, PR #7748).
  CHECK(json_of(qwen25 + " --engine-version 0.4.9").at("budget").at("fraction") == 0.874 * 0.90);
  // A fraction given is not scaled; Gemma 3 is not multimodal to SGLang by default (mm_disabled_models): no factor.
  CHECK(json_of(qwen25 + " --engine-version 0.5.4 --mem-fraction-static 0.8").at("budget").at("fraction") == 0.8);
  const auto gemma3 = json_of("'" + config("google__gemma-3-4b-it.config.json") +
                              "' --engine sglang --gpu h100-80gb --engine-version 0.5.4");
  CHECK(gemma3.at("budget").at("fraction") == 0.835);
  // Before 0.4.9 the ModelRunner scales the fraction it runs with (not the printed one): kvsize says so; Gemma 3
  // counts there only before 0.4.6 (mm_disabled_models), by 0.90 from 0.4.4.post4.
  const auto runner_era = json_of(qwen25 + " --engine-version 0.4.7.post1");
  CHECK(noted(runner_era, "SGLang 0.4.7.post1's ModelRunner multiplies the fraction it runs with by 0.90"));
  // The budget takes it, on a given fraction too; the command line gives the fraction before it.
  CHECK(runner_era.at("budget").at("fraction") == 0.874 * 0.90);  // rule E's 0.874 on an H100
  const auto runner_given = json_of(qwen25 + " --engine-version 0.4.7.post1 --mem-fraction-static 0.8");
  CHECK(runner_given.at("budget").at("fraction") == 0.8 * 0.90);
  CHECK_THAT(runner_given.at("plan").at("command_line").get<std::string>(),
             ContainsSubstring("--mem-fraction-static 0.800"));
  const std::string gemma3_old = "'" + config("google__gemma-3-4b-it.config.json") + "' --engine sglang --engine-version ";
  CHECK(noted(json_of(gemma3_old + "0.4.5"), "SGLang 0.4.5's ModelRunner multiplies the fraction it runs with by 0.90"));
  CHECK_FALSE(noted(json_of(gemma3_old + "0.4.7.post1"), "ModelRunner multiplies"));
}

TEST_CASE("cli: SGLang 0.5.18 keeps 100 MiB of a multimodal model's KV budget", "[cli][sglang][vlm]") {
  // mem_cache/kv_cache_configurator.py mm_runtime_reservation_gb (v0.5.18, PR #34141; engines/sglang_vlm.hpp): rest
  // loses SGLANG_VLM_CACHE_SIZE_MB (100 MiB) for a model SGLang takes as multimodal, a given fraction too. At a
  // given fraction the fraction rules of 0.5.17 and 0.5.18 do not enter: the budgets differ by the reserve alone.
  const std::string qwen25 = "'" + config("Qwen__Qwen2.5-VL-7B-Instruct.config.json") +
                             "' --engine sglang --gpu h100-80gb --mem-fraction-static 0.8 --engine-version ";
  const auto v0518 = json_of(qwen25 + "0.5.18");
  const auto v0517 = json_of(qwen25 + "0.5.17");
  const auto at = [](const nlohmann::json& j, const char* key) { return j.at("budget").at(key).get<std::uint64_t>(); };
  CHECK(at(v0518, "reserve_bytes") - at(v0517, "reserve_bytes") == 104'857'600);
  CHECK(at(v0517, "kv_bytes") - at(v0518, "kv_bytes") == 104'857'600);
  CHECK(at(v0518, "unused_bytes") == at(v0517, "unused_bytes"));
  const std::string line = "Reserving 0.10 GB of the KV budget for post-sizing multimodal allocations "
                           "(feature-transport pools + embedding cache).";
  const auto logs = [](const nlohmann::json& j) { return j.at("log_lines").get<std::vector<std::string>>(); };
  const auto v0518_lines = logs(v0518);
  const auto reserving = std::find(v0518_lines.begin(), v0518_lines.end(), line);
  REQUIRE(reserving != v0518_lines.end());
  CHECK_THAT(*(reserving - 1), ContainsSubstring("Load weight end."));  // SGLang's order: load, reserve, pool
  CHECK_THAT(*(reserving + 1), ContainsSubstring("KV Cache is allocated."));
  const auto v0517_lines = logs(v0517);
  CHECK(std::count(v0517_lines.begin(), v0517_lines.end(), line) == 0);
  CHECK(noted(v0518, "SGLang 0.5.18 keeps 100 MiB (104,857,600 B) of the KV budget for a multimodal model's "
                     "embedding cache (SGLANG_VLM_CACHE_SIZE_MB"));
  CHECK_FALSE(noted(v0517, "SGLANG_VLM_CACHE_SIZE_MB"));
  // The default release (0.5.19, taken to follow 0.5.18) keeps it; a text model and Gemma 3 (not multimodal to
  // SGLang by default: mm_disabled_models) do not.
  const auto newest = json_of("'" + config("Qwen__Qwen2.5-VL-7B-Instruct.config.json") +
                              "' --engine sglang --gpu h100-80gb --mem-fraction-static 0.8");
  CHECK(newest.at("kv_budget_bytes") == v0518.at("kv_budget_bytes"));
  CHECK(noted(newest, "SGLang 0.5.18 and later (kvsize's default, 0.5.19) keeps 100 MiB (104,857,600 B)"));
  // The plan's engine reserve row names it beside the fraction (not llama.cpp's --fit margin).
  const auto report = run_cli("'" + config("Qwen__Qwen2.5-VL-7B-Instruct.config.json") +
                              "' --engine sglang --gpu h100-80gb --engine-version 0.5.18");
  REQUIRE(report.exit_code == 0);
  std::string flat;  // the report's rows wrap: one space for each run of blanks and newlines
  for (const char ch : report.out) {
    const bool blank = ch == ' ' || ch == '\n';
    if (!blank || (!flat.empty() && flat.back() != ' ')) {
      flat.push_back(blank ? ' ' : ch);
    }
  }
  CHECK_THAT(flat, ContainsSubstring("and 100 MiB more kept from the KV cache (SGLang's multimodal embedding cache)"));
  CHECK_THAT(flat, !ContainsSubstring("--fit margin"));
  // --kv-memory gives the budget: nothing is taken from it, and no note says otherwise.
  const auto given_budget =
      json_of("'" + config("Qwen__Qwen2.5-VL-7B-Instruct.config.json") + "' --engine sglang --kv-memory 10GiB");
  CHECK(given_budget.at("kv_budget_bytes") == 10'737'418'240ULL);
  CHECK_FALSE(noted(given_budget, "SGLANG_VLM_CACHE_SIZE_MB"));
  // A text class on SGLang's piecewise-graph list (MiniMaxM3SparseForCausalLM) is not in multimodal_model_archs:
  // no reserve (the ConditionalGeneration class is multimodal).
  const auto renamed = [](const std::string& architecture) {
    const auto r = run_shell("sed 's/\"MiniMaxM3ForCausalLM\"/\"" + architecture + "\"/' " +
                             config("MiniMaxAI__MiniMax-M3.config.json") + " | '" + KVSIZE_CLI_PATH +
                             "' - --engine sglang --gpu b200 --tp 8 --mem-fraction-static 0.9 --json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return nlohmann::json::parse(r.out).at("budget").at("reserve_bytes").get<std::uint64_t>();
  };
  CHECK(renamed("MiniMaxM3SparseForConditionalGeneration") - renamed("MiniMaxM3SparseForCausalLM") == 104'857'600);
  for (const char* text : {"Qwen__Qwen2.5-7B.config.json", "google__gemma-3-4b-it.config.json"}) {
    INFO(text);
    const auto j = json_of("'" + config(text) + "' --engine sglang --gpu h100-80gb --mem-fraction-static 0.8");
    CHECK_FALSE(noted(j, "SGLANG_VLM_CACHE_SIZE_MB"));
    const auto text_lines = logs(j);
    CHECK(std::count(text_lines.begin(), text_lines.end(), line) == 0);
  }
  // The plan sizes with the same rule: its budget loses the same 100 MiB.
  const auto plan_budget = [](const nlohmann::json& j) { return j.at("plan").at("kv_budget_bytes").get<std::uint64_t>(); };
  CHECK(plan_budget(v0517) - plan_budget(v0518) == 104'857'600);
}

TEST_CASE("cli: SGLang lowers a --max-running-requests above its cap, by release", "[cli][sglang]") {
  // engines/sglang_requests.hpp. Qwen3-8B: 147,456 B a token; --kv-memory 1GiB holds 7,281 tokens. From 0.5.14
  // (resolve_max_num_reqs) a given value is capped at 7,281 // 2 = 3,640; in 0.5.10 – 0.5.13.post1 at the estimate,
  // min(max(int(7,281 / 4,096 · 512), 2,048), 4,096) = 2,048; before, taken as given.
  const std::string qwen = "'" + config("Qwen__Qwen3-8B.config.json") +
                           "' --engine sglang --kv-memory 1GiB --context 4096 --max-running-requests 5000";
  const auto newest = json_of(qwen);
  CHECK(noted(newest, "SGLang 0.5.15-0.5.19 runs at most 3,640 requests, not the 5,000 of --max-running-requests: "
                      "half the pool's 7,281 tokens (_resolve_max_num_reqs, resolve_max_num_reqs from 0.5.16; from 0.5.14)"));
  CHECK(noted(json_of(qwen + " --engine-version 0.5.12"),
              "SGLang 0.5.12 runs at most 2,048 requests, not the 5,000 of --max-running-requests: its estimate from "
              "the pool"));
  CHECK_FALSE(noted(json_of(qwen + " --engine-version 0.5.9"), "runs at most"));
  // Under DP attention a value given is each rank's share: 20,000 // 4.
  CHECK(noted(json_of("'" + config("Qwen__Qwen3-8B.config.json") +
                      "' --engine sglang --kv-memory 1GiB --context 4096 --tp 4 --dp 4 --enable-dp-attention "
                      "--max-running-requests 20000"),
              "runs at most 3,640 requests a rank, not the 5,000 (20,000 // 4) that --max-running-requests gives "
              "each DP-attention rank"));
  // SGLang 0.4.0 – 0.4.1.post6 give every DP-attention rank the whole value (tp_worker.py; // dp from 0.4.1.post7).
  const std::string r1 = "'" + config("deepseek-ai__DeepSeek-R1.config.json") +
                         "' --engine sglang --tp 8 --dp 8 --enable-dp-attention --kv-memory 10GiB --context 1024 "
                         "--max-running-requests 16 --engine-version ";
  CHECK(noted(json_of(r1 + "0.4.0"), "SGLang 0.4.0 gives every rank the whole --max-running-requests"));
  CHECK(noted(json_of(r1 + "0.4.5"), "SGLang divides --max-running-requests by 8"));
  // A value under the cap is not noted; nor is SGLang's own rule.
  CHECK_FALSE(noted(json_of("'" + config("Qwen__Qwen3-8B.config.json") +
                            "' --engine sglang --kv-memory 1GiB --context 4096 --max-running-requests 100"),
                    "runs at most"));
  CHECK_FALSE(noted(json_of("'" + config("Qwen__Qwen3-8B.config.json") + "' --engine sglang --kv-memory 1GiB"),
                    "runs at most"));
}

TEST_CASE("cli: SGLang on an AMD GPU sizes with the aiter factor past 8,192 tokens", "[cli][sglang][rocm]") {
  // engines/sglang_aiter.hpp: SGLang multiplies mem_fraction_static, a given one too, by 0.85 where its attention
  // backend is aiter (the HIP default for a GQA model) and context_len > 8192. The command line gives the fraction
  // before the factor (SGLang applies it to what it is given); budget.fraction is the one the pool is sized with.
  const std::string qwen = "'" + config("Qwen__Qwen3-8B.config.json") + "' --engine sglang --gpu mi300x";
  const auto short_context = json_of(qwen + " --context 8192");
  const auto long_context = json_of(qwen + " --context 32768");
  const double setting = short_context.at("budget").at("fraction").get<double>();
  CHECK(long_context.at("budget").at("fraction") == setting * 0.85);
  CHECK_FALSE(noted(short_context, "aiter"));
  CHECK(noted(long_context, "on an AMD GPU multiplies mem_fraction_static, a given one too, by 0.85 where its "
                            "attention backend is aiter"));
  std::array<char, 32> shown{};
  std::snprintf(shown.data(), shown.size(), "%.3f", setting);  // SGLang's 3 decimals
  CHECK_THAT(long_context.at("plan").at("command_line").get<std::string>(),
             ContainsSubstring(std::string{"--mem-fraction-static "} + shown.data()));
  CHECK(long_context.at("kv_budget_bytes").get<std::uint64_t>() < short_context.at("kv_budget_bytes").get<std::uint64_t>());
  CHECK(long_context.at("budget").at("engine_factor") == 0.85);
  CHECK(short_context.at("budget").at("engine_factor") == 1.0);
  // The longest context is the scaled budget's (the factor applies above 8,192), at any report context: the
  // capacity's and the plan's agree.
  for (const char* context : {"4096", "8192", "8193", "32768"}) {
    INFO(context);
    const auto llama = json_of("'" + config("meta-llama__Llama-3.1-70B.config.json") +
                               "' --engine sglang --gpu mi300x --context " + context);
    CHECK(llama.at("capacity").at("max_context") == llama.at("plan").at("max_context"));
    CHECK(llama.at("capacity").at("max_context").get<std::uint64_t>() > 8'192);
    // At a context of 8,192 or less the report's own budget is the unscaled one: a note says why the longest
    // context is shorter than that budget would give.
    CHECK(noted(llama, "with the budget SGLang sizes above 8,192 tokens of context") ==
          (std::string_view{context} == "4096" || std::string_view{context} == "8192"));
  }
  // A sweep across the step says where its budget steps; one on either side of it, or on an NVIDIA GPU, does not.
  CHECK(noted(json_of(qwen + " --sweep-context 4096:32768 --mem-fraction-static 0.8"),
              "the sweep's KV budget steps between 8,192 and 16,384 tokens of context: SGLang sizes its pool at 0.800 "
              "up to 8,192 tokens and at 0.800 × 0.85 above"));
  CHECK_FALSE(noted(json_of(qwen + " --sweep-context 16384:65536"), "the sweep's KV budget steps"));
  CHECK_FALSE(noted(json_of("'" + config("Qwen__Qwen3-8B.config.json") +
                            "' --engine sglang --gpu h100-80gb --sweep-context 4096:32768"),
                    "the sweep's KV budget steps"));
  // A fraction given is scaled too; an NVIDIA GPU has no factor.
  CHECK(json_of(qwen + " --context 32768 --mem-fraction-static 0.8").at("budget").at("fraction") == 0.8 * 0.85);
  const auto h100 = json_of("'" + config("Qwen__Qwen3-8B.config.json") +
                            "' --engine sglang --gpu h100-80gb --context 32768 --mem-fraction-static 0.8");
  CHECK(h100.at("budget").at("fraction") == 0.8);
  // 0.5.4 scales ModelRunner's copy (server_args prints it unscaled); 0.5.4.post1 by 0.90.
  CHECK(noted(json_of(qwen + " --context 32768 --engine-version 0.5.4"), "ModelRunner.model_specific_adjustment"));
  CHECK(json_of(qwen + " --context 32768 --engine-version 0.5.4.post1 --mem-fraction-static 0.8")
            .at("budget")
            .at("fraction") == 0.8 * 0.90);
  // C12's device (sglang_budget.test.cpp): an MI355X under 0.5.7, rule G's 0.911 on rocminfo's 294,896 MiB, × 0.85.
  const auto mi355x = json_of("'" + config("Qwen__Qwen3-8B.config.json") +
                              "' --engine sglang --gpu mi355x --context 32768 --engine-version 0.5.7");
  CHECK(mi355x.at("budget").at("fraction") == 0.911 * 0.85);
  // gpt-oss runs triton on HIP in 0.5.0rc0 – 0.5.9: no factor.
  const auto gpt_oss = json_of("'" + config("openai__gpt-oss-20b.config.json") +
                               "' --engine sglang --gpu mi300x --context 32768 --mem-fraction-static 0.8 "
                               "--engine-version 0.5.9");
  CHECK(gpt_oss.at("budget").at("fraction") == 0.8);
}

TEST_CASE("cli: a malformed vision_config size key is warned of once, and the KV answer stands", "[cli][sglang][vlm]") {
  // vision_config/num_hidden_layers is read by SGLang's factor only (the Qwen tower's depth is `depth`): one warning,
  // getattr's 24 taken, and the note says why. vision_config/hidden_size is read by the weights too: one warning
  // (the weights reader's), the weights unknown; without a device the KV lines stand (exit 0), with one the budget
  // cannot be formed (exit 2, naming the file and the key).
  std::ifstream in(std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs" / "Qwen__Qwen2.5-VL-7B-Instruct.config.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  const auto dir = kvsize::test::temp_path("-vision-size");
  std::filesystem::create_directories(dir);
  const auto count = [](const nlohmann::json& j, const std::string& pointer) {  // warnings naming the key
    const auto& w = j.at("warnings");
    return std::count_if(w.begin(), w.end(),
                         [&](const nlohmann::json& one) { return one.get<std::string>().starts_with(pointer + ": "); });
  };
  const std::string args = " --engine sglang --engine-version 0.5.4";
  const auto intact = json_of("'" + config("Qwen__Qwen2.5-VL-7B-Instruct.config.json") + "'" + args);

  doc["vision_config"]["num_hidden_layers"] = "deep";
  const auto layers_path = (dir / "layers.json").string();
  std::ofstream(layers_path) << doc.dump();
  const auto layers = run_cli("'" + layers_path + "'" + args + " --gpu h100-80gb --json");
  REQUIRE(layers.exit_code == 0);
  const auto layers_json = nlohmann::json::parse(layers.out);
  CHECK(count(layers_json, "/vision_config/num_hidden_layers") == 1);
  CHECK(layers_json.at("budget").at("fraction") == 0.7486296874999999);  // as with the key absent
  CHECK(noted(layers_json, "num_hidden_layers L = 24 (not an integer from 1 to 16,777,216: kvsize takes getattr's "
                           "default)"));

  doc["vision_config"].erase("num_hidden_layers");
  doc["vision_config"]["hidden_size"] = -1280;
  const auto hidden_path = (dir / "hidden.json").string();
  std::ofstream(hidden_path) << doc.dump();
  const auto no_device = run_cli("'" + hidden_path + "'" + args + " --json");
  REQUIRE(no_device.exit_code == 0);
  const auto no_device_json = nlohmann::json::parse(no_device.out);
  CHECK(count(no_device_json, "/vision_config/hidden_size") == 1);
  CHECK(noted(no_device_json, "/vision_config/hidden_size: expected a positive integer"));
  CHECK(noted(no_device_json, "the weights are not counted"));
  CHECK(no_device_json.at("kv_bytes_per_sequence") == intact.at("kv_bytes_per_sequence"));
  CHECK(no_device_json.at("parameters").is_null());
  const auto with_device = run_cli("'" + hidden_path + "'" + args + " --gpu h100-80gb");
  CHECK(with_device.exit_code == 2);
  CHECK(with_device.out.empty());
  CHECK_THAT(with_device.err, ContainsSubstring("hidden.json"));
  CHECK_THAT(with_device.err, ContainsSubstring("/vision_config/hidden_size"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("kvsize: llama.cpp's -c 0 is the model's own context", "[cli][aliases]") {
  // common/arg.cpp: -c, --ctx-size N: "size of the prompt context (default: ..., 0 = loaded from model)".
  const std::string qwen = "'" + config("Qwen__Qwen2.5-0.5B.config.json") + "' --engine llama.cpp";  // 32,768
  const auto without_source = [](nlohmann::json j) {
    j.erase("context_source");  // "option" for --context, "model" for -c 0
    return j;
  };
  const auto canonical = without_source(figures_of(qwen + " --context 32768"));
  for (const char* spelling : {"-c 0", "-c0", "--ctx-size 0", "--ctx-size=0", "--ctx_size 0"}) {
    INFO(spelling);
    CHECK(without_source(figures_of(qwen + " " + spelling)) == canonical);
    CHECK(json_of(qwen + " " + spelling).at("context_source") == "model");
  }
  CHECK(json_of(qwen + " -c 00").at("context") == 32'768);  // llama.cpp's std::stoi reads "00" as 0
  // Under another engine, the longest it takes from the config: Command-R's 131,072 under vLLM (model_max_length),
  // Phi-4-mini's 131,072 under vLLM 0.19 (not its longrope default of 4,096).
  const std::string command_r = "'" + config("CohereForAI__c4ai-command-r-v01.config.json") + "'";
  CHECK(json_of(command_r + " --engine vllm -c 0").at("context") == 131'072);
  // llama.cpp's converter writes Command-R's model_max_length (CommandR2Model.__init__), not its 8,192; 2^20 for
  // Nemotron-3-Nano (GraniteHybridModel), 262,144 for Hunyuan-A13B's dynamic rope; -c 0 sizes what the report names.
  for (const auto& [name, length] : {std::pair{"CohereForAI__c4ai-command-r-v01", 131'072},
                                     std::pair{"nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", 1'048'576},
                                     std::pair{"tencent__Hunyuan-A13B-Instruct", 262'144}}) {
    INFO(name);
    const nlohmann::json j = json_of("'" + config(std::string{name} + ".config.json") + "' --engine llama.cpp -c 0");
    CHECK(j.at("context") == length);
    CHECK(j.at("engine_default_context") == length);
  }
  const std::string phi = "'" + config("microsoft__Phi-4-mini-instruct.config.json") + "' --engine vllm";
  CHECK(json_of(phi + " -c 0").at("context") == 131'072);
  CHECK(json_of(phi).at("engine_default_context") == 4'096);
  require_refused(run_cli(qwen + " -c 0 --context 4096"), "kvsize: --context and -c both give the context; pass one");
  require_refused(run_cli(qwen + " -c 4096 -c 0"), "kvsize: -c is given twice; pass it once");
  require_refused(run_cli(qwen + " -c 0 --ctx-size 0"), "(--context)");
  require_refused(run_cli("'" + config("Qwen__Qwen2.5-0.5B.config.json") + "' --engine all -c 0"),
                  "kvsize: -c 0 and --engine all: the engines take different");
  // llama.cpp's --fit may start it shorter: the context row says so.
  const auto fit = run_cli(qwen + " -c 0");
  REQUIRE(fit.exit_code == 0);
  CHECK_THAT(fit.out, ContainsSubstring("32,768 tokens (-c 0: the model's own,"));  // the row wraps there
  CHECK_THAT(fit.out, ContainsSubstring("or less with --fit)"));
  // Falcon-7B states no length, but llama.cpp's converter writes 2,048 for every Falcon (FalconModel).
  CHECK(json_of("'" + config("tiiuae__falcon-7b.config.json") + "' --engine llama.cpp -c 0").at("context") == 2'048);
  // A config with no length key and no family rule: refused, the file read from stdin.
  require_refused(run_shell("grep -v max_position_embeddings '" + config("quirks/no_model_type.json") + "' | '" +
                            KVSIZE_CLI_PATH + "' - --engine llama.cpp -c 0"),
                  "kvsize: -c 0 takes the model's context, which the config does not state");
}
