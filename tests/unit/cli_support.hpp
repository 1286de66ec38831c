// SPDX-License-Identifier: MIT
// Running the kvsize program from a test: stdout, stderr and the exit code, captured apart.
#pragma once

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <sys/wait.h>  // WIFEXITED, WEXITSTATUS
#include <unistd.h>    // getpid

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#ifndef KVSIZE_CLI_PATH
#error "the CLI tests need KVSIZE_CLI_PATH (the kvsize program built by examples/)"
#endif

namespace kvsize::test {

struct run_result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline auto read_file(const std::filesystem::path& p) -> std::string {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A fresh path in the temporary directory, unique to this process: "<prefix>-<pid>-<n><suffix>".
inline auto temp_path(const std::string& suffix) -> std::filesystem::path {
  static int counter = 0;
  return std::filesystem::temp_directory_path() /
         ("kvsize-test-" + std::to_string(::getpid()) + "-" + std::to_string(++counter) + suffix);
}

/// "'<repo>/configs/<name>'", quoted for the shell.
inline auto config(const std::string& name) -> std::string {
  return "'" + (std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs" / name).string() + "'";
}

/// Runs a shell command, capturing stdout and stderr separately.
inline auto run_shell(const std::string& command_line) -> run_result {
  const auto err_path = temp_path(".err");
  const std::string command = "{ " + command_line + "; } 2>'" + err_path.string() + "'";
  run_result r;
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) {
    r.out.append(buffer, n);
  }
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = read_file(err_path);
  std::filesystem::remove(err_path);
  return r;
}

/// Runs `kvsize ARGS` (ARGS already shell-quoted).
inline auto run_cli(const std::string& args) -> run_result {
  return run_shell(std::string{"'"} + KVSIZE_CLI_PATH + "' " + args);
}

/// `kvsize ARGS --json`, which must succeed, parsed.
inline auto json_of(const std::string& args) -> nlohmann::json {
  const auto r = run_cli(args + " --json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

/// A refusal as the contract wants it: exit 2, nothing on stdout, one line on stderr, "kvsize: ..."
/// holding `part`.
inline void require_refused(const run_result& r, const std::string& part) {
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::Matchers::StartsWith("kvsize: "));
  CHECK_THAT(r.err, Catch::Matchers::ContainsSubstring(part));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

}  // namespace kvsize::test
