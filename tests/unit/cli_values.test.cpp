// SPDX-License-Identifier: MIT
// kvsize option values that would give a wrong answer are errors: exit 2, one line on stderr naming
// the option as the user typed it, nothing on stdout. Each refusal sits next to the nearest value
// that is accepted, so a check that refused everything would fail too.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli_support.hpp"

using Catch::Matchers::ContainsSubstring;
using kvsize::test::config;
using kvsize::test::read_file;
using kvsize::test::require_refused;
using kvsize::test::run_cli;
using kvsize::test::run_result;
using kvsize::test::run_shell;
using kvsize::test::temp_path;

namespace {

void require_accepted(const run_result& r) {
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 0);
  CHECK_FALSE(r.out.empty());
}

struct value_case {
  std::string refused;   ///< arguments after the config
  std::string message;   ///< part of the one-line error
  std::string accepted;  ///< the nearest arguments that work
};

void check_cases(const std::string& model, const std::vector<value_case>& cases) {
  for (const auto& c : cases) {
    INFO(model << " " << c.refused);
    require_refused(run_cli(model + " " + c.refused + " --json"), c.message);
    INFO("accepted: " << c.accepted);
    require_accepted(run_cli(model + " " + c.accepted + " --json"));
  }
}

}  // namespace

TEST_CASE("kvsize values: --tp must split the heads as the engines split them", "[cli][values]") {
  // Llama-3.1-8B: 32 attention heads, 8 KV heads. vLLM: "Total number of attention heads (32) must be
  // divisible by tensor parallel size (3)"; with tp 16 > 8 KV heads each rank keeps a replica of one.
  check_cases(config("meta-llama__Llama-3.1-8B.config.json"),
              {
                  {"--engine vllm --tp 3", "--tp 3: this model's 32 attention heads do not split evenly over 3 ranks",
                   "--engine vllm --tp 4"},
                  {"--tp 1000000", "--tp 1000000: this model's 32 attention heads", "--tp 32"},
                  {"--engine sglang --tp 6", "degrees that work: 1, 2, 4, 8, 16, 32", "--engine sglang --tp 16"},
                  {"--engine trtllm --tp 99999999999", "--tp: expected a positive integer of at most 4294967295",
                   "--engine trtllm --tp 8"},
              });
  // Qwen2.5-1.5B: 12 heads, 2 KV heads: tp 3 splits the heads but not the KV heads (2/3 per rank).
  check_cases(config("Qwen__Qwen2.5-1.5B.config.json"),
              {
                  {"--engine vllm --tp 3", "2 KV heads and 3 ranks do not divide one another",
                   "--engine vllm --tp 6"},
                  {"--tp 3", "degrees that work: 1, 2, 4, 6, 12", "--tp 12"},
              });
}

TEST_CASE("kvsize values: --pp and llama.cpp's layer split cannot exceed the layers", "[cli][values]") {
  // Qwen2.5-1.5B has 28 layers; the message names --pp, not --engine.
  check_cases(config("Qwen__Qwen2.5-1.5B.config.json"),
              {
                  {"--pp 29", "--pp 29: this model has 28 layers", "--pp 28"},
                  {"--engine vllm -pp 29", "-pp 29: this model has 28 layers", "--engine vllm -pp 4"},
                  // llama.cpp splits over at most 16 devices (llama_max_devices).
                  {"--engine llama.cpp --tp 4 --pp 8", "--tp 4 × --pp 8: 32 devices; llama.cpp splits layers over "
                   "at most 16", "--engine llama.cpp --tp 4 --pp 4"},
                  // 65,536 × 65,536 wraps to 0 in 32 bits: computed in 64.
                  {"--engine llama.cpp --tp 65536 --pp 65536", ": 4294967296 devices", "--engine llama.cpp --tp 2"},
                  {"--engine llama.cpp --tp 2 -ts 1,1,1", "-ts 1,1,1: 3 shares for 2 devices",
                   "--engine llama.cpp --tp 2 -ts 1,1"},
                  {"--engine llama.cpp -ts 1,x", "-ts 1,x: 'x' is not a share", "--engine llama.cpp -ts 1/3"},
                  {"--engine llama.cpp -ts 1,nan", "'nan' is not a share", "--engine llama.cpp -ts 1,,0.5"},
                  {"--engine llama.cpp -ts ,1", "-ts ',1': a share before the first separator is missing",
                   "--engine llama.cpp -ts 1,"},  // llama.cpp's std::stof throws on the empty first piece
                  {"--engine llama.cpp -ts +1,1", "'+1' is not a share", "--engine llama.cpp -ts 2"},
                  {"--engine llama.cpp -ts 1e-45,1", "'1e-45' is not a share", "--engine llama.cpp -ts 1e-3,1"},
                  {"--engine llama.cpp -ts 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1", "at most 15 shares",
                   "--engine llama.cpp -ts 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1"},
              });
}

TEST_CASE("kvsize values: sizes and rates need a unit; memory must be positive and fit the device",
          "[cli][values]") {
  check_cases(config("Qwen__Qwen2.5-1.5B.config.json"),
              {
                  {"--gpu-memory 24", "--gpu-memory: '24' has no unit; write 24GiB or 24GB", "--gpu-memory 24GiB"},
                  {"--kv-memory 8", "--kv-memory: '8' has no unit", "--kv-memory 8GB"},
                  {"--gpu-memory 0GiB", "--gpu-memory: '0GiB' is no memory at all", "--gpu-memory 1GiB"},
                  {"--gpu-memory 24GiB --bandwidth 1000", "--bandwidth: '1000' has no unit; write 1000GB/s",
                   "--gpu-memory 24GiB --bandwidth 1000GB/s"},
                  {"--gpu-memory 24GiB --reserve 512", "--reserve: '512' has no unit",
                   "--gpu-memory 24GiB --reserve 0"},
                  {"--gpu-memory 24GiB --kv-memory 25GiB", "--kv-memory 25GiB (26843545600 B) is more than the device",
                   "--gpu-memory 24GiB --kv-memory 24GiB"},
                  {"--gpu rtx-3060 --kv-memory 13GB", "is more than the device holds (NVIDIA GeForce RTX 3060 12 GB (--gpu rtx-3060)",
                   "--gpu rtx-3060 --kv-memory 12GB"},
              });
}

TEST_CASE("kvsize values: a shared prefix fits in the sequence it is part of", "[cli][values]") {
  check_cases(config("Qwen__Qwen2.5-1.5B.config.json"),
              {
                  {"--shared-prefix 4097", "--shared-prefix 4097 is longer than the sequence (--context 4096 (the "
                                           "default))",
                   "--shared-prefix 4096 --batch 4"},
                  {"--max-model-len 1000 --shared-prefix 1001", "(--max-model-len 1000)",
                   "--max-model-len 1000 --shared-prefix 1000"},
                  // llama.cpp: -c 8192 over -np 4 slots is 2,048 cells a slot.
                  {"--engine llama.cpp -c 8192 -np 4 --shared-prefix 3000", "longer than a llama.cpp slot",
                   "--engine llama.cpp -c 8192 -np 4 --shared-prefix 2000"},
              });
}

TEST_CASE("kvsize values: --block-size takes only what the engine allows", "[cli][values]") {
  check_cases(config("meta-llama__Llama-3.1-8B.config.json"),
              {
                  // vllm/config/cache.py BlockSize: 1, 8, 16, 32, 64, 128, 256.
                  {"--engine vllm --block-size 24", "--block-size 24: vLLM's block size is one of 1, 8, 16",
                   "--engine vllm --block-size 32"},
                  {"--engine vllm --block-size 512", "vLLM's block size", "--engine vllm --block-size 256"},
                  // TensorRT-LLM's tokens_per_block is a power of 2 (KVBlockArray's log2 shift).
                  {"--engine trtllm --block-size 48", "--block-size 48: TensorRT-LLM's tokens_per_block must be a "
                                                      "power of 2",
                   "--engine trtllm --block-size 64"},
                  // SGLang takes any page size, and names it --page-size.
                  {"--engine sglang --page-size 0", "--page-size: expected a positive integer",
                   "--engine sglang --page-size 7"},
              });
}

TEST_CASE("kvsize values: fractions are finite, above 0 and at most 1, and blamed on their option",
          "[cli][values]") {
  const std::string model = config("Qwen__Qwen2.5-1.5B.config.json") + " --gpu-memory 24GiB";
  check_cases(model,
              {
                  {"--engine vllm --gpu-memory-utilization nan", "--gpu-memory-utilization: expected a fraction",
                   "--engine vllm --gpu-memory-utilization 0.5"},
                  {"--engine vllm --gpu-memory-utilization inf", "got 'inf'", "--engine vllm --gpu-memory-utilization 1"},
                  {"--engine vllm --gpu-memory-utilization 0", "got '0'", "--engine vllm --gpu-memory-utilization 0.01"},
                  {"--engine sglang --mem-fraction-static 1.5", "--mem-fraction-static: expected a fraction",
                   "--engine sglang --mem-fraction-static 0.8"},
                  {"--engine trtllm --kv-cache-free-gpu-memory-fraction -0.1",
                   "--kv-cache-free-gpu-memory-fraction: expected a fraction",
                   "--engine trtllm --kv-cache-free-gpu-memory-fraction 0.5"},
              });
  // Never the config file's fault.
  const auto r = run_cli(model + " --engine vllm --gpu-memory-utilization nan");
  CHECK_THAT(r.err, !ContainsSubstring("config.json"));
}

TEST_CASE("kvsize values: an overflow names the options that scale the sizes", "[cli][values]") {
  const auto r = run_cli(config("Qwen__Qwen2.5-1.5B.config.json") +
                         " --engine vllm --gpu-memory 24GiB --max-num-batched-tokens 999999999999999999");
  require_refused(r, "--max-num-batched-tokens 999999999999999999");
  CHECK_THAT(r.err, ContainsSubstring("exceed 2^64 bytes"));
}

TEST_CASE("kvsize values: a stdout that cannot be written is an error, whatever the format", "[cli][values]") {
  if (!std::filesystem::exists("/dev/full")) {
    SKIP("no /dev/full on this system");
  }
  const std::string model = config("Qwen__Qwen2.5-1.5B.config.json");
  for (const std::string format : {"", " --json", " --gpu-memory 24GiB --csv", " --help", " --version", " --list-gpus"}) {
    INFO(format);
    require_refused(run_shell("'" + std::string{KVSIZE_CLI_PATH} + "' " + model + format + " > /dev/full"),
                    "cannot write to standard output: No space left on device");
  }
  // The chart itself: fclose/fflush on /dev/full fail, and errno says why.
  require_refused(run_cli(model + " --gpu-memory 24GiB --svg /dev/full"),
                  "--svg: cannot write '/dev/full': No space left on device");
}

TEST_CASE("kvsize values: --svg never overwrites the input config", "[cli][values][svg]") {
  const auto dir = temp_path("-svg");
  std::filesystem::create_directories(dir / "model");
  const auto input = dir / "model" / "config.json";
  std::filesystem::copy_file(std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs/Qwen__Qwen2.5-1.5B.config.json",
                             input);
  const std::string before = read_file(input);
  const auto q = [](const std::filesystem::path& p) { return "'" + p.string() + "'"; };
  // The same file under three names: itself, a path through "..", and the folder it is read from.
  for (const auto& [in, svg] : {std::pair{input, input}, std::pair{input, dir / "model" / ".." / "model" / "config.json"},
                                std::pair{dir / "model", input}}) {
    INFO(in << " --svg " << svg);
    require_refused(run_cli(q(in) + " --gpu-memory 24GiB --svg " + q(svg)), "is the input config");
    CHECK(read_file(input) == before);
  }
  // Another file is written.
  const auto chart = dir / "chart.svg";
  require_accepted(run_cli(q(input) + " --gpu-memory 24GiB --svg " + q(chart) + " --json"));
  CHECK_THAT(read_file(chart), ContainsSubstring("<svg"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("kvsize values: a cache type the engine cannot store is refused under its option", "[cli][values]") {
  check_cases(config("Qwen__Qwen2.5-1.5B.config.json"),
              {
                  {"--engine vllm --kv-cache-dtype q8_0", "--kv-cache-dtype q8_0: vllm has no GGML block-quantized",
                   "--engine vllm --kv-cache-dtype fp8"},
                  {"--engine sglang -ctk q4_0", "-ctk q4_0: sglang has no GGML", "--engine sglang --kv-dtype fp8_e5m2"},
                  {"--engine llama.cpp --kv-dtype fp8", "--kv-dtype fp8: llama.cpp's KV cache types are f32, f16",
                   "--engine llama.cpp --kv-dtype q8_0"},
                  {"--engine llama.cpp -ctv int8", "-ctv int8: llama.cpp's KV cache types", "--engine llama.cpp -ctv q4_0"},
              });
}
