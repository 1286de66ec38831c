// SPDX-License-Identifier: MIT
// The human report of the kvsize program: sweeps printed as a table, every line within 100 columns
// for every bundled config and engine, and the context it assumed said per engine (text and JSON).
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <array>
#include <cstdint>
#include <filesystem>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "../../examples/kvsize/text.hpp"
#include "cli_support.hpp"

using Catch::Matchers::ContainsSubstring;
using kvsize::test::config;
using kvsize::test::json_of;
using kvsize::test::run_cli;

namespace {

auto lines_of(const std::string& text) -> std::vector<std::string> {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  return lines;
}

/// The lines of `text` from the one equal to `title` up to the next empty line.
auto section(const std::string& text, std::string_view title) -> std::vector<std::string> {
  std::vector<std::string> out;
  bool in = false;
  for (const auto& line : lines_of(text)) {
    if (line == title) {
      in = true;
    } else if (in && line.empty()) {
      break;
    } else if (in) {
      out.push_back(line);
    }
  }
  return out;
}

/// UTF-8 code points: what a terminal shows as columns for the characters kvsize prints.
auto code_points(std::string_view s) -> std::size_t {
  std::size_t n = 0;
  for (char c : s) {
    n += (static_cast<unsigned char>(c) & 0xC0U) != 0x80U ? 1 : 0;
  }
  return n;
}

auto split_words(const std::string& line) -> std::vector<std::string> {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string w; in >> w;) {
    words.push_back(w);
  }
  return words;
}

}  // namespace

TEST_CASE("kvsize report: --sweep-context and --sweep-batch print a table in the text report", "[cli][report][sweep]") {
  const std::string args = config("meta-llama__Llama-3.1-8B.config.json") +
                           " --gpu l40s --engine vllm --sweep-context 1k:4k --sweep-batch 1:64";
  const auto r = run_cli(args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto rows = section(r.out, "Plan: sweep, memory of one device (every term in bytes: --csv or --json)");
  REQUIRE(rows.size() == 3 + 3 * 7);  // weights, reserve, column heads; contexts 1k, 2k, 4k × users 1 … 64
  CHECK(split_words(rows[2]) == std::vector<std::string>{"context", "users", "KV", "cache", "workspace", "needed",
                                                         "free", "fits"});
  // Every point of the JSON sweep is one row, in the same order, with the same verdict.
  const auto j = json_of(args);
  const auto& points = j.at("sweep").at("points");
  REQUIRE(points.size() == 21);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto words = split_words(rows[3 + i]);
    INFO(rows[3 + i]);
    REQUIRE(words.size() >= 11);
    CHECK(words[0] == kvsize::cli::grouped(points[i].at("context").get<std::uint64_t>()));
    CHECK(words[1] == kvsize::cli::grouped(points[i].at("users").get<std::uint64_t>()));
    CHECK(words[10] == (points[i].at("fits").get<bool>() ? "yes" : "NO:"));
  }
  // 4,096 tokens × 64 users is 32 GiB of bf16 KV on a 45 GiB L40S with vLLM's 0.9 budget: no.
  CHECK_THAT(rows.back(), ContainsSubstring("32 GiB"));
  CHECK_THAT(rows.back(), ContainsSubstring("NO: memory"));
  // The ceilings of each swept context and users count follow, as --json's sweep.max_users / max_context.
  const auto ceilings = section(r.out, "Plan: sweep ceilings");
  REQUIRE(ceilings.size() == 3 + 7);
  CHECK_THAT(ceilings[0], ContainsSubstring("max users at 1,024 tokens"));
  CHECK_THAT(ceilings[0],
             ContainsSubstring(kvsize::cli::grouped(j.at("sweep").at("max_users")[0].at("max_users").get<std::uint64_t>())));
  CHECK_THAT(ceilings[3], ContainsSubstring("max context for 1 user"));

  // --sweep-batch alone: the plan's context, one row per users count.
  const auto batch_only = run_cli(config("Qwen__Qwen2.5-1.5B.config.json") + " --gpu rtx-3060 --sweep-batch 1:4");
  REQUIRE(batch_only.exit_code == 0);
  CHECK(section(batch_only.out, "Plan: sweep, memory of one device (every term in bytes: --csv or --json)").size() ==
        3 + 3);
  // The widest sweep rows (a million tokens, thousands of users, TiB of KV) stay within the width.
  const auto wide = run_cli(config("meta-llama__Llama-3.1-405B.config.json") +
                            " --gpu h200 --engine vllm --tp 8 --sweep-context 1k:1m --sweep-batch 1:4k");
  REQUIRE(wide.exit_code == 0);
  for (const auto& line : lines_of(wide.out)) {
    CHECK(code_points(line) <= kvsize::cli::report_width);
  }
  // No sweep asked: no sweep section.
  const auto plain = run_cli(config("Qwen__Qwen2.5-1.5B.config.json") + " --gpu rtx-3060");
  REQUIRE(plain.exit_code == 0);
  CHECK_FALSE(plain.out.find("Plan: sweep") != std::string::npos);
}

TEST_CASE("kvsize report: no line is longer than 100 columns, for every bundled config and engine", "[cli][report][width]") {
  std::vector<std::filesystem::path> configs;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs")) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") {
      configs.push_back(entry.path());
    }
  }
  REQUIRE(configs.size() >= 40);
  constexpr std::array<std::string_view, 6> engines{"exact", "vllm", "sglang", "llama.cpp", "trtllm", "transformers"};
  // Without a device; with one (capacity, plan, engine log lines, budget notes); with --explain and tp 2.
  constexpr std::array<std::string_view, 3> devices{"", " --gpu h100-80gb", " --gpu rtx-3060 --explain --tp 2"};
  std::size_t reports = 0;
  for (const auto& path : configs) {
    for (std::string_view engine : engines) {
      for (std::string_view device : devices) {
        const std::string args = "'" + path.string() + "' --engine " + std::string{engine} + std::string{device};
        const auto r = run_cli(args);
        if (r.exit_code != 0) {  // e.g. tp 2 does not divide a model's heads: an error, not a report
          CHECK(r.out.empty());
          continue;
        }
        ++reports;
        for (const auto& line : lines_of(r.out)) {
          if (code_points(line) > kvsize::cli::report_width) {
            FAIL_CHECK(args << "\n" << code_points(line) << " columns: " << line);
          }
        }
      }
    }
  }
  CHECK(reports >= configs.size() * engines.size() * 2);  // every config and engine, at least with and without --gpu
}

TEST_CASE("kvsize report: a long line wraps at spaces, the value under itself, a number kept with its unit",
          "[cli][report][width]") {
  using kvsize::cli::wrapped;
  const std::string row = kvsize::cli::row_text(
      "fits", "NO: the engine admits 129 at this context (KV needs 8.75 GiB (9,395,240,960 B), its budget is 7.08 GiB)",
      38);
  const auto lines = lines_of(row);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == "  fits                                   NO: the engine admits 129 at this context (KV needs");
  CHECK(lines[1] == "                                         8.75 GiB (9,395,240,960 B), its budget is 7.08 GiB)");
  // Log lines keep their runs of spaces and break after a clause; "×" and "µs" count one column each.
  const std::string log = wrapped("  ", "llama_kv_cache: size =  624.00 MiB (  1536 cells,  52 layers,  1/1 seqs), "
                                        "K (f16):  312.00 MiB, V (f16):  312.00 MiB", 6);
  CHECK(log == "  llama_kv_cache: size =  624.00 MiB (  1536 cells,  52 layers,  1/1 seqs), K (f16):  312.00 MiB,\n"
               "      V (f16):  312.00 MiB\n");
  CHECK(kvsize::cli::columns("256 rows × vocab, 34.67 µs") == 26);
  // A word no line can hold is cut at the width rather than overflow it.
  const auto cut = lines_of(wrapped("", std::string(130, 'x'), 2, 100));
  REQUIRE(cut.size() == 2);
  CHECK(cut[0].size() == 100);
  CHECK(cut[1] == "  " + std::string(30, 'x'));
  // An option stays with its value.
  CHECK(wrapped("", "pass the figure as --context 131072", 2, 30) == "pass the figure as\n  --context 131072\n");
  // Short text is left alone.
  CHECK(wrapped("  - ", "a short note", 4) == "  - a short note\n");
}

namespace {

/// The report's context row, its wrapped lines joined.
auto context_row(const std::string& out) -> std::string {
  std::string joined;
  bool in = false;
  for (const auto& line : lines_of(out)) {
    if (line.rfind("  context ", 0) == 0) {
      in = true;
      joined = line;
    } else if (in && line.rfind("                                       ", 0) == 0) {
      joined += " " + line.substr(line.find_first_not_of(' '));
    } else if (in) {
      break;
    }
  }
  return joined;
}

}  // namespace

TEST_CASE("kvsize report: the context assumed, and what each engine would use itself", "[cli][report][context]") {
  const std::string qwen = config("Qwen__Qwen2.5-1.5B.config.json");  // max_position_embeddings 131,072
  SECTION("kvsize's default, and the engine's own: the model's maximum") {
    const auto vllm = run_cli(qwen + " --engine vllm");
    REQUIRE(vllm.exit_code == 0);
    CHECK_THAT(context_row(vllm.out), ContainsSubstring("4,096 tokens (kvsize's default; vLLM would use the model's "
                                                        "131,072: pass --context 131072)"));
    const auto j = json_of(qwen + " --engine vllm");
    CHECK(j.at("context") == 4'096);
    CHECK(j.at("context_source") == "default");
    CHECK(j.at("engine_default_context") == 131'072);
    for (const auto& [engine, shown] : {std::pair{"sglang", "SGLang"}, std::pair{"trtllm", "TensorRT-LLM"}}) {
      const auto r = run_cli(qwen + " --engine " + engine);
      CHECK_THAT(context_row(r.out), ContainsSubstring(std::string{shown} + " would use the model's 131,072"));
    }
    // llama.cpp: -c 0 is its default, the training context; --fit may lower it.
    const auto llama = run_cli(qwen + " --engine llama.cpp");
    CHECK_THAT(context_row(llama.out), ContainsSubstring("llama.cpp's -c 0 would use the model's 131,072, or less "
                                                         "with --fit: pass --context 131072"));
    // exact has no context of its own; transformers has no setting.
    const auto ex = json_of(qwen);
    CHECK(ex.at("engine_default_context").is_null());
    CHECK_THAT(context_row(run_cli(qwen).out), ContainsSubstring("4,096 tokens (kvsize's default)"));
    CHECK_THAT(context_row(run_cli(qwen + " --engine transformers").out),
               ContainsSubstring("transformers has no context setting"));
  }
  SECTION("--context given") {
    const auto j = json_of(qwen + " --engine sglang --context 32768");
    CHECK(j.at("context_source") == "option");
    CHECK(j.at("engine_default_context") == 131'072);
    CHECK_THAT(context_row(run_cli(qwen + " --engine sglang --context 32768").out),
               ContainsSubstring("32,768 tokens (--context; SGLang would use the model's 131,072"));
    CHECK_THAT(context_row(run_cli(qwen + " --engine vllm --context 131072").out),
               ContainsSubstring("131,072 tokens (--context; vLLM would use the same by default)"));
  }
  SECTION("the default capped at a smaller model maximum") {
    const std::string gpt2 = config("openai-community__gpt2-xl.config.json");  // n_positions 1,024
    const auto j = json_of(gpt2 + " --engine vllm");
    CHECK(j.at("context") == 1'024);
    CHECK(j.at("context_source") == "default_capped");
    CHECK_THAT(context_row(run_cli(gpt2 + " --engine vllm").out),
               ContainsSubstring("1,024 tokens (kvsize's default 4,096, capped at the model's maximum; vLLM would "
                                 "use the same by default)"));
  }
  SECTION("the engine's own maximum: Command-R's model_max_length, a longrope model's original length") {
    // vLLM and SGLang take model_max_length 131,072 over max_position_embeddings 8,192 (engines/vllm_context.hpp,
    // engines/sglang_context.hpp); llama.cpp's converter writes max_position_embeddings.
    const std::string command_r = config("CohereForAI__c4ai-command-r-v01.config.json");
    for (const auto& [engine, shown] : {std::pair{"vllm", "vLLM"}, std::pair{"sglang", "SGLang"}}) {
      const auto r = run_cli(command_r + " --engine " + engine);
      CHECK_THAT(context_row(r.out), ContainsSubstring("4,096 tokens (kvsize's default; " + std::string{shown} +
                                                       " would use the model's 131,072: pass --context 131072)"));
      CHECK(json_of(command_r + " --engine " + engine).at("engine_default_context") == 131'072);
      const auto at_max = run_cli(command_r + " --engine " + engine + " --context 131072");
      CHECK(at_max.exit_code == 0);
      CHECK_THAT(at_max.err, !ContainsSubstring("exceeds the model's maximum"));
      CHECK_THAT(context_row(at_max.out), ContainsSubstring("would use the same by default"));
    }
    // Falcon-7B's RefinedWebModel config states no length, nor does the class either engine loads it with: both
    // fall back to 2,048 (vllm/config/model.py _get_and_verify_max_len, SGLang get_context_length). vLLM takes a
    // longer --max-model-len as given (no limit: kvsize's 4,096 stands); SGLang refuses one above 2,048 without
    // SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 (model_config.py _derive_context_length), so kvsize caps there.
    const std::string falcon = "'" + config("tiiuae__falcon-7b.config.json") + "' --gpu h100-80gb";
    const auto falcon_vllm = run_cli(falcon + " --engine vllm");
    CHECK_THAT(context_row(falcon_vllm.out),
               ContainsSubstring("4,096 tokens (kvsize's default; the config states no length vLLM reads: it falls "
                                 "back to 2,048: pass --context 2048)"));
    CHECK(json_of(falcon + " --engine vllm").at("plan").at("command_line").get<std::string>().starts_with(
        "vllm serve <model> --max-model-len 4096"));
    CHECK(json_of(falcon + " --engine vllm").at("engine_default_context") == 2'048);
    const auto falcon_sglang = run_cli(falcon + " --engine sglang");
    CHECK_THAT(context_row(falcon_sglang.out),
               ContainsSubstring("2,048 tokens (kvsize's default 4,096, capped at the model's maximum; the config "
                                 "states no length SGLang reads: it falls back to 2,048)"));
    const auto longer = run_cli(falcon + " --engine sglang --context 4096");
    CHECK_THAT(longer.err, ContainsSubstring("--context 4096 exceeds the model's maximum of 2048 tokens; sizing it "
                                             "anyway (SGLang refuses to start there unless "
                                             "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 is set)"));
    CHECK(json_of(falcon + " --engine sglang --context 4096").at("plan").at("command_line").get<std::string>().starts_with(
        "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 python -m sglang.launch_server --model-path <model> "
        "--context-length 4096"));
    // 0.5.0rc2 defaults the variable to true: a warning, and no variable on the command line.
    const auto allowed = run_cli(falcon + " --engine sglang --context 4096 --engine-version 0.5.0rc2");
    CHECK_THAT(allowed.err, !ContainsSubstring("refuses to start"));
    CHECK(json_of(falcon + " --engine sglang --context 4096 --engine-version 0.5.0rc2")
              .at("plan").at("command_line").get<std::string>().starts_with("python -m sglang.launch_server"));
    // llama.cpp's n_ctx_train for Command-R is its converter's model_max_length, 131,072.
    const auto at_limit = run_cli(command_r + " --engine llama.cpp --context 131072");
    REQUIRE(at_limit.exit_code == 0);
    CHECK_THAT(at_limit.err, !ContainsSubstring("exceeds"));
    const auto llama = run_cli(command_r + " --engine llama.cpp --context 262144");
    CHECK_THAT(llama.err, ContainsSubstring("--context 262144 exceeds the model's maximum of 131072 tokens"));
    // Phi-4-mini: vLLM 0.11.1+ serves a longrope model's original_max_position_embeddings, 4,096.
    const std::string phi = config("microsoft__Phi-4-mini-instruct.config.json");
    CHECK_THAT(context_row(run_cli(phi + " --engine vllm").out), ContainsSubstring("vLLM would use the same by default"));
    CHECK(json_of(phi + " --engine vllm --engine-version 0.10").at("engine_default_context") == 131'072);
    // It defaults below its maximum: 8,192 is accepted (--max-model-len up to the derived 131,072), no warning.
    const auto phi_long = run_cli(phi + " --engine vllm --context 8192");
    CHECK(phi_long.exit_code == 0);
    CHECK_THAT(phi_long.err, !ContainsSubstring("exceeds the model's maximum"));
    CHECK_THAT(context_row(phi_long.out), ContainsSubstring("vLLM would use the model's 4,096"));
    CHECK(json_of(phi + " --engine sglang").at("engine_default_context") == 131'072);
  }
}

namespace {
/// The report's first paragraph (the verdict) as one line: its wrapped continuation lines, which
/// start with two spaces, joined back.
auto verdict_of(const std::string& report) -> std::string {
  std::string v;
  for (const std::string& line : lines_of(report)) {
    if (!v.empty() && line.rfind("  ", 0) != 0) {
      break;
    }
    v += v.empty() ? line : " " + line.substr(2);
  }
  return v;
}
}  // namespace

TEST_CASE("kvsize report: the first line is the verdict, and it agrees with the plan below it", "[cli][verdict]") {
  const std::string qwen = "'" + config("Qwen__Qwen2.5-1.5B.config.json") + "' --gpu rtx-3060 --engine vllm";
  // 61 sequences of 4,096 tokens fit the RTX 3060's vLLM 0.19 budget (the plan's "max users" ceiling, which
  // the JSON gives as plan.max_users).
  const auto fits = run_cli(qwen);
  REQUIRE(fits.exit_code == 0);
  const auto max_users = json_of(qwen).at("plan").at("max_users").get<std::uint64_t>();
  CHECK(max_users == 61);
  const std::string verdict = verdict_of(fits.out);
  CHECK_THAT(verdict, ContainsSubstring("fits: 1 user × 4,096 tokens (up to 61) on 1 × NVIDIA GeForce RTX 3060"));
  CHECK_THAT(verdict, ContainsSubstring("under vLLM 0.19 at gpu_memory_utilization 0.9"));
  // 100 users do not: the verdict says why and names the nearest configuration that does.
  const auto over = run_cli(qwen + " --batch 100");
  REQUIRE(over.exit_code == 0);
  const std::string no = verdict_of(over.out);
  CHECK_THAT(no, ContainsSubstring("does not fit: 100 users × 4,096 tokens"));
  CHECK_THAT(no, ContainsSubstring("(the KV cache exceeds the budget); nearest that fits: 61 users × 4,096 tokens"));
  // ... and the plan's ceilings below it say the same: 64 users, and the longest context for 100.
  const auto plan = json_of(qwen + " --batch 100").at("plan");
  CHECK_THAT(no, ContainsSubstring("or 100 users × " + kvsize::cli::grouped(plan.at("max_context").get<std::uint64_t>()) +
                                   " tokens"));
  // Without a device there is no plan and no verdict: the report starts with the config.
  const auto bare = run_cli("'" + config("Qwen__Qwen2.5-1.5B.config.json") + "'");
  CHECK_THAT(lines_of(bare.out).at(0), ContainsSubstring("Qwen__Qwen2.5-1.5B.config.json"));
}

TEST_CASE("kvsize report: under the verdict, the engine's command for it", "[cli][verdict][command]") {
  // 4 users × 2,048 tokens of Qwen2.5-1.5B fit an RTX 3060 under every engine. The command carries
  // the request (each engine's own flags: kvsize/engines_command.hpp), and SGLang's fraction is the
  // one its rule gives this device, as the verdict prints it: 0.5.10+ on nvidia-smi's 12,288 MiB reserve
  // 512 + 2,048 × 1.5 + 8 × 2 + 1/8 GiB + 42 prefill graphs × 8 MiB = 4,064 MiB → round(8,224 / 12,288, 3).
  const std::string qwen = "'" + config("Qwen__Qwen2.5-1.5B.config.json") + "' --gpu rtx-3060 --batch 4 --context 2048";
  const std::vector<std::pair<std::string, std::string>> expected{
      {"vllm", "vllm serve <model> --max-model-len 2048 --max-num-seqs 4 --gpu-memory-utilization 0.9"},
      {"sglang", "python -m sglang.launch_server --model-path <model> --context-length 2048 --max-running-requests 4 "
                 "--mem-fraction-static 0.669"},
      {"llama.cpp", "llama-server -m <model>.gguf -c 8192 -np 4 -ngl 999"},  // -c = 4 slots × 2,048
      {"trtllm", "trtllm-serve <model> --max_seq_len 2048 --max_batch_size 4 --kv_cache_free_gpu_memory_fraction 0.9"},
  };
  for (const auto& [engine, command] : expected) {
    INFO(engine);
    CHECK(json_of(qwen + " --engine " + engine).at("plan").at("command_line") == command);
    // The report's "run it:" lines are the same command, cut into shell lines ending in " \".
    const auto report = run_cli(qwen + " --engine " + engine);
    REQUIRE(report.exit_code == 0);
    std::string joined;
    bool in_command = false;
    for (const std::string& line : lines_of(report.out)) {
      if (line.rfind("  run it: ", 0) == 0) {
        in_command = true;
        joined = line.substr(10);
      } else if (in_command && line.rfind("            ", 0) == 0) {
        joined += " " + line.substr(12);
      } else if (in_command) {
        break;
      }
      if (in_command && joined.size() >= 2 && joined.ends_with(" \\")) {
        joined.resize(joined.size() - 2);
      }
    }
    CHECK(joined == command);
  }
  // No command where there is no server (exact, transformers) or the request does not fit.
  CHECK(json_of(qwen + " --engine transformers").at("plan").at("command_line").is_null());
  CHECK(json_of(qwen + " --engine exact").at("plan").at("command_line").is_null());
  const std::string too_many = "'" + config("Qwen__Qwen2.5-1.5B.config.json") + "' --gpu rtx-3060 --batch 400 --engine vllm";
  const auto over = run_cli(too_many);
  REQUIRE(over.exit_code == 0);
  CHECK(over.out.find("run it:") == std::string::npos);
  CHECK(json_of(too_many).at("plan").at("command_line").is_null());
  // tp, the cache type and quantized-V flags come along (llama.cpp needs -fa on for a q8_0 V cache).
  const std::string llama = "'" + config("meta-llama__Llama-3.1-8B.config.json") + "' --gpu rtx-4090";
  CHECK(json_of(llama + " --engine llama.cpp -c 16384 -np 4 --kv-dtype q8_0").at("plan").at("command_line") ==
        "llama-server -m <model>.gguf -c 16384 -np 4 -ngl 999 -ctk q8_0 -ctv q8_0 -fa on");
  CHECK(json_of(llama + " --engine vllm --tp 2 --kv-dtype fp8 --context 8192").at("plan").at("command_line") ==
        "vllm serve <model> --max-model-len 8192 --max-num-seqs 1 --gpu-memory-utilization 0.9 "
        "--tensor-parallel-size 2 --kv-cache-dtype fp8");
}

TEST_CASE("kvsize --engine all: one row per engine, the figures of each engine's own run", "[cli][engine-all]") {
  const std::string qwen = "'" + config("Qwen__Qwen2.5-1.5B.config.json") + "' --gpu rtx-3060 --batch 4 --context 2048";
  const auto table = json_of(qwen + " --engine all").at("engines");
  const std::vector<std::string> engines{"exact", "vllm", "sglang", "llama.cpp", "trtllm", "transformers"};
  REQUIRE(table.size() == engines.size());
  for (std::size_t i = 0; i < engines.size(); ++i) {
    INFO(engines[i]);
    const auto& row = table.at(i);
    CHECK(row.at("engine") == engines[i]);
    CHECK(row.at("refused").is_null());
    const auto one = json_of(qwen + " --engine " + engines[i]);
    CHECK(row.at("kv_budget_bytes") == one.at("kv_budget_bytes"));
    CHECK(row.at("kv_bytes_per_sequence") == one.at("kv_bytes_per_sequence"));
    CHECK(row.at("max_tokens") == one.at("capacity").at("max_tokens"));
    CHECK(row.at("max_users") == one.at("plan").at("max_users"));
    CHECK(row.at("max_context") == one.at("plan").at("max_context"));
    CHECK(row.at("command_line") == one.at("plan").at("command_line"));
    CHECK(row.at("fits") == true);
    CHECK(row.at("engine_version") == one.at("budget").at("engine_version"));  // the release whose rules sized it
    CHECK(row.at("model_runner") == one.at("budget").at("model_runner"));
  }
  CHECK(table.at(1).at("model_runner").is_null());  // vLLM 0.19 has one runner
  // 0.22: Qwen3-8B runs on Model Runner V2 (vllm/config/vllm.py use_v2_model_runner); its row says so.
  const auto v22 = json_of("'" + config("Qwen__Qwen3-8B.config.json") +
                           "' --gpu-memory 79.18GiB --context 16000 --engine all --engine-version 0.22")
                       .at("engines");
  CHECK(v22.at(1).at("model_runner") == "v2");
  CHECK(v22.at(3).at("model_runner").is_null());  // llama.cpp
  CHECK(table.at(1).at("engine_version") == "0.19");
  CHECK(table.at(2).at("engine_version") == "0.5.15-0.5.19");
  CHECK(table.at(0).at("engine_version").is_null());  // exact names no release
  // The text table: a row per engine, no line over 100 columns.
  const auto text = run_cli(qwen + " --engine ALL");
  REQUIRE(text.exit_code == 0);
  for (const std::string& line : lines_of(text.out)) {
    CHECK(kvsize::cli::columns(line) <= 100);
  }
  CHECK_THAT(text.out, ContainsSubstring("TensorRT-LLM"));
  CHECK_THAT(text.out, ContainsSubstring("4 users × 2,048 tokens"));
  CHECK_THAT(text.out, ContainsSubstring("Budget rules of: vLLM 0.19, SGLang 0.5.15-0.5.19"));
  // One --engine-version names one engine's release: that engine's rules, the other's row refused.
  const auto sglang_052 = json_of(qwen + " --engine all --engine-version 0.5.2").at("engines");
  CHECK(sglang_052.at(2).at("engine_version") == "0.4.7.post1-0.5.3rc1");
  CHECK_THAT(sglang_052.at(1).at("refused").get<std::string>(), ContainsSubstring("--engine-version 0.5.2: vLLM"));
  // An engine that refuses the request gets a row saying why; the others are sized.
  const auto q8 = json_of("'" + config("Qwen__Qwen2.5-1.5B.config.json") + "' --engine all --kv-dtype q8_0").at("engines");
  CHECK_THAT(q8.at(1).at("refused").get<std::string>(), ContainsSubstring("no GGML block-quantized KV cache"));
  CHECK(q8.at(3).at("refused").is_null());  // llama.cpp stores q8_0
  CHECK(q8.at(3).at("kv_budget_bytes").is_null());  // no device: no budget
  // SGLang's DP attention (--dp 8 --enable-dp-attention): its row is one rank's requests, said under the table and
  // in dp_attention_ranks; the other engines ignore the flags (1).
  const std::string q235 = "'" + config("Qwen__Qwen3-235B-A22B.config.json") +
                           "' --gpu h200 --tp 8 --dp 8 --enable-dp-attention --engine all";
  const auto dp = json_of(q235).at("engines");
  CHECK(dp.at(2).at("engine") == "sglang");
  CHECK(dp.at(2).at("dp_attention_ranks") == 8);
  CHECK(dp.at(1).at("dp_attention_ranks") == 1);
  CHECK(dp.at(2).at("kv_bytes_per_token") == 192'512);  // every KV head of a GPU's own requests
  const auto dp_text = run_cli(q235);
  REQUIRE(dp_text.exit_code == 0);
  CHECK_THAT(dp_text.out, ContainsSubstring("SGLang: DP attention, 8 ranks of 1 GPU:"));
  // One row per engine leaves no room for a plan's CSV or sweep.
  const auto csv = run_cli(qwen + " --engine all --csv");
  CHECK(csv.exit_code == 2);
  CHECK(csv.out.empty());
  CHECK_THAT(csv.err, ContainsSubstring("--csv and --engine all"));
}

TEST_CASE("kvsize: --max-model-len auto is vLLM's fit of the context to the KV budget", "[cli][context]") {
  // vLLM 0.14+ (vllm/engine/arg_utils.py human_readable_int_or_auto: "auto" or -1) profiles at the max_model_len
  // it derives, then kv_cache_utils.py _auto_fit_max_model_len takes the longest length, at most the derived one,
  // whose one request fits the budget. kvsize: the capacity's max context for 1 sequence at the derived length.
  const std::string llama = "'" + config("meta-llama__Llama-3.1-8B.config.json") + "' --engine vllm --gpu rtx-4090";
  const auto at_derived = json_of(llama + " --context 131072");
  const std::uint64_t fitted = at_derived.at("capacity").at("max_context").get<std::uint64_t>();
  // kvsize's budget there: 2,886 blocks of 16 tokens (the RTX 4090's KV budget at 0.9, Llama-3.1-8B's 128 KiB a token).
  CHECK(fitted == 46'176);
  for (const char* spelling : {"--max-model-len auto", "--max-model-len -1", "--max_model_len=auto", "--max-model-len AUTO"}) {
    INFO(spelling);
    const auto j = json_of(llama + " " + spelling);
    CHECK(j.at("context") == fitted);
    CHECK(j.at("context_source") == "auto");
    // The budget is the derived length's (the profile run precedes the fit).
    CHECK(j.at("kv_budget_bytes") == at_derived.at("kv_budget_bytes"));
    CHECK(j.at("capacity").at("max_sequences").get<std::uint64_t>() >= 1);
  }
  CHECK(json_of(llama + " --context " + std::to_string(fitted + 16)).at("capacity").at("max_sequences") == 0);
  const auto report = run_cli(llama + " --max-model-len auto");
  REQUIRE(report.exit_code == 0);
  CHECK_THAT(context_row(report.out),
             ContainsSubstring("(--max-model-len auto: vLLM's fit to the KV budget, reduced from 131,072)"));

  // Where the derived length fits whole, it stands (Qwen2.5-0.5B's 32,768 on an H100).
  const std::string qwen_h100 = "'" + config("Qwen__Qwen2.5-0.5B.config.json") + "' --gpu h100-80gb";
  const std::string qwen = qwen_h100 + " --engine vllm";
  const auto whole = json_of(qwen + " --max-model-len auto");
  CHECK(whole.at("context") == 32'768);
  CHECK_THAT(context_row(run_cli(qwen + " --max-model-len auto").out),
             ContainsSubstring("32,768 tokens (--max-model-len auto: vLLM's fit to the KV budget, the model's full "
                               "length fits)"));

  // Refused: another engine, a release before 0.14, no device, a context given twice.
  require_refused(run_cli(qwen_h100 + " --engine sglang --max-model-len auto"),
                  "kvsize: --max-model-len auto: only vLLM (0.14+) fits max_model_len to memory");
  require_refused(run_cli(qwen + " --engine-version 0.13 --max-model-len auto"),
                  "kvsize: --max-model-len auto: vLLM 0.13 takes no auto (-1); 0.14 added the fit to memory");
  require_refused(run_cli("'" + config("Qwen__Qwen2.5-0.5B.config.json") + "' --engine vllm --max-model-len auto"),
                  "kvsize: --max-model-len auto fits the context to the KV budget: give --gpu, --gpu-memory or "
                  "--kv-memory");
  require_refused(run_cli(qwen_h100 + " --engine all --max-model-len auto"),
                  "kvsize: --max-model-len auto and --engine all: auto is vLLM's fit to memory");
  require_refused(run_cli(qwen + " --context 4096 --max-model-len auto"),
                  "kvsize: --context and --max-model-len both give the context; pass one");
  require_refused(run_cli(qwen + " --max-model-len 4096 --max-model-len auto"),
                  "kvsize: --max-model-len is given twice; pass it once");
  // A config with no length vLLM reads: vLLM takes -1 itself as the length and its fit fails.
  require_refused(run_cli("'" + config("tiiuae__falcon-7b.config.json") + "' --engine vllm --gpu h100-80gb "
                          "--max-model-len auto"),
                  "kvsize: --max-model-len auto: the config states no length vLLM reads");

  // A knob another engine reads is warned of once, not once a pass; a shared prefix is checked at the fitted length.
  const auto knob = run_cli(llama + " --max-model-len auto -np 4");
  REQUIRE(knob.exit_code == 0);
  REQUIRE(knob.err.find("-np has no effect") != std::string::npos);
  CHECK(knob.err.find("-np has no effect") == knob.err.rfind("-np has no effect"));
  // --batch 8: the fit is one request's; a note says the users share the budget at that length.
  const auto batch = json_of(llama + " --max-model-len auto --batch 8");
  CHECK(batch.at("context") == 46'176);
  CHECK_THAT(batch.at("warnings").dump(), ContainsSubstring("auto fits one request of the context"));
  require_refused(run_cli(llama + " --max-model-len auto --shared-prefix 50000"),
                  "--max-model-len auto (46176)");

  // Weights that do not fit: vLLM stops before its fit, and the report says why at the derived length (exit 0).
  const auto heavy = run_cli("'" + config("Qwen__Qwen3-Next-80B-A3B-Thinking.config.json") +
                             "' --engine vllm --gpu a100-80gb --max-model-len auto");
  REQUIRE(heavy.exit_code == 0);
  CHECK_THAT(context_row(heavy.out), ContainsSubstring("(--max-model-len auto: vLLM's derived length; the weights do "
                                                       "not fit, so vLLM stops before its fit)"));
  CHECK(json_of("'" + config("Qwen__Qwen3-Next-80B-A3B-Thinking.config.json") +
                "' --engine vllm --gpu a100-80gb --max-model-len auto").at("context_source") == "auto_failed");
  // Not one token in the budget: the same, "Cannot auto-fit max_model_len".
  const auto tiny = run_cli(llama + " --kv-memory 1KiB --max-model-len auto");
  REQUIRE(tiny.exit_code == 0);
  CHECK_THAT(context_row(tiny.out), ContainsSubstring("not one token fits, so vLLM stops before its fit"));
}
