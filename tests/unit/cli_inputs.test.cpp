// SPDX-License-Identifier: MIT
// What kvsize reads: a config.json, a model folder (DIR/config.json), "-" (stdin) and streams with no
// size (pipes, /dev/stdin, FIFOs), each read to its end under the 16 MiB cap; the library's
// load_config does the same for its users.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <sys/stat.h>  // mkfifo

#include <filesystem>
#include <sstream>
#include <string>

#include <kvsize/hf_config.hpp>
#include <kvsize/kvsize.hpp>

#include "cli_support.hpp"

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;
using kvsize::test::read_file;
using kvsize::test::run_cli;
using kvsize::test::run_shell;
using kvsize::test::temp_path;

namespace {

auto bundled(const std::string& name) -> std::filesystem::path {
  return std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs" / name;
}
auto shell_quoted(const std::filesystem::path& p) -> std::string { return "'" + p.string() + "'"; }
auto cli() -> std::string { return shell_quoted(KVSIZE_CLI_PATH); }

}  // namespace

TEST_CASE("kvsize inputs: stdin, pipes and FIFOs give the same answer as the file", "[cli][inputs]") {
  const auto file = bundled("meta-llama__Llama-3.1-8B.config.json");
  const std::string args = " --engine vllm --gpu-memory 80GiB --context 8192 --json";
  const auto direct = run_cli(shell_quoted(file) + args);
  REQUIRE(direct.exit_code == 0);
  REQUIRE(direct.out.find("\"kv_bytes_per_token\": 131072") != std::string::npos);  // 32 × 8 × 128 × 2 × 2 B

  const std::string ways[] = {
      cli() + " -" + args + " < " + shell_quoted(file),             // kvsize - < config.json
      "cat " + shell_quoted(file) + " | " + cli() + " -" + args,    // a pipe on stdin
      "cat " + shell_quoted(file) + " | " + cli() + " /dev/stdin" + args,  // the pipe by its /dev name
  };
  for (const auto& way : ways) {
    INFO(way);
    const auto r = run_shell(way);
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out == direct.out);
  }

  // A named pipe (what bash's <(...) gives): no size to ask for, read until the writer closes it.
  const auto fifo = temp_path(".fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // The writer holds neither of the test's pipes, and gives up after 30 s, so a kvsize that never opened the
  // FIFO fails the test instead of hanging it.
  const auto r = run_shell("timeout 30 sh -c \"cat " + shell_quoted(file) + " > " + shell_quoted(fifo) +
                           "\" >/dev/null 2>&1 & " + cli() + " " + shell_quoted(fifo) + args);
  std::filesystem::remove(fifo);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == direct.out);
}

TEST_CASE("kvsize inputs: errors on stdin name <stdin>", "[cli][inputs]") {
  const auto r = run_shell("printf '{\"model_type\": \"llama\"}' | " + cli() + " -");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, StartsWith("kvsize: <stdin>:"));
  // The human report names it too.
  const auto ok = run_shell(cli() + " - < " + shell_quoted(bundled("Qwen__Qwen2.5-1.5B.config.json")));
  CHECK(ok.exit_code == 0);
  CHECK_THAT(ok.out, StartsWith("<stdin>\n"));
}

TEST_CASE("kvsize inputs: an endless or oversized stream stops at the 16 MiB cap", "[cli][inputs]") {
  // /dev/zero never ends: kvsize must stop, not fill memory or hang.
  const auto zero = run_cli("/dev/zero");
  CHECK(zero.exit_code == 2);
  CHECK(zero.out.empty());
  CHECK_THAT(zero.err, ContainsSubstring("/dev/zero: expected at most 16 MiB (16777216 bytes)"));
  // One byte over the cap on a pipe is refused; the cap itself would be parsed.
  const auto over = run_shell("head -c 16777217 /dev/zero | tr '\\000' ' ' | " + cli() + " -");
  CHECK(over.exit_code == 2);
  CHECK_THAT(over.err, ContainsSubstring("<stdin>: expected at most 16 MiB"));
  const auto at_cap = run_shell("head -c 16777216 /dev/zero | tr '\\000' ' ' | " + cli() + " -");
  CHECK(at_cap.exit_code == 2);
  CHECK_THAT(at_cap.err, !ContainsSubstring("at most 16 MiB"));  // read in full: blank JSON, a syntax error
}

TEST_CASE("kvsize inputs: a model folder reads DIR/config.json", "[cli][inputs]") {
  const auto dir = temp_path("-model");
  std::filesystem::create_directories(dir);
  const auto file = bundled("Qwen__Qwen2.5-1.5B.config.json");
  // A folder without config.json: the error names the file that was looked for.
  const auto missing = run_cli(shell_quoted(dir));
  CHECK(missing.exit_code == 2);
  CHECK(missing.out.empty());
  CHECK_THAT(missing.err, ContainsSubstring((dir / "config.json").string() + ": cannot read the file"));
  CHECK_THAT(missing.err, ContainsSubstring("No such file or directory"));

  std::filesystem::copy_file(file, dir / "config.json");
  const auto from_dir = run_cli(shell_quoted(dir) + " --json");
  const auto from_file = run_cli(shell_quoted(file) + " --json");
  CHECK(from_dir.exit_code == 0);
  CHECK(from_dir.out == from_file.out);
  // A trailing slash is the same folder.
  CHECK(run_cli(shell_quoted(dir.string() + "/") + " --json").out == from_file.out);
  std::filesystem::remove_all(dir);
}

TEST_CASE("load_config: folders, streams and the cap for library users", "[hf][io][inputs]") {
  const auto file = bundled("Qwen__Qwen2.5-1.5B.config.json");
  const std::string text = read_file(file);
  const auto from_file = kvsize::hf::load_config(file);

  std::istringstream stream(text);
  const auto from_stream = kvsize::hf::load_config(stream, "piped.json");
  CHECK(from_stream.spec.layers == from_file.spec.layers);
  CHECK(kvsize::kv_bytes_per_token(from_stream.spec) == kvsize::kv_bytes_per_token(from_file.spec));

  // Errors name the stream as told.
  std::istringstream bad(R"({"model_type": "llama"})");
  try {
    (void)kvsize::hf::load_config(bad, "piped.json");
    FAIL("a config without layers was accepted");
  } catch (const kvsize::hf::config_error& e) {
    CHECK(e.file() == "piped.json");
  }

  // A stream past the cap: refused without reading it all.
  std::istringstream huge(std::string((std::size_t{16} << 20U) + 1, ' '));
  try {
    (void)kvsize::hf::load_config(huge);
    FAIL("a stream over 16 MiB was accepted");
  } catch (const kvsize::hf::config_error& e) {
    CHECK(e.code() == kvsize::hf::config_errc::io);
    CHECK(e.file() == "<stdin>");
    CHECK_THAT(std::string(e.what()), ContainsSubstring("at most 16 MiB"));
  }

  // A folder: DIR/config.json, named so in errors.
  const auto dir = temp_path("-lib-model");
  std::filesystem::create_directories(dir);
  try {
    (void)kvsize::hf::load_config(dir);
    FAIL("a folder without config.json was accepted");
  } catch (const kvsize::hf::config_error& e) {
    CHECK(e.code() == kvsize::hf::config_errc::io);
    CHECK(e.file() == (dir / "config.json").string());
  }
  std::filesystem::copy_file(file, dir / "config.json");
  CHECK(kvsize::hf::load_config(dir).spec.layers == from_file.spec.layers);
  std::filesystem::remove_all(dir);
}
