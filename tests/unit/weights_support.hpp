// SPDX-License-Identifier: MIT
// Helpers for the weights tests (weights.test.cpp, weights_parameters.test.cpp, the hf readers'
// weights tests): a config of configs/ by name, and its parameter count.
#pragma once

#include <kvsize/hf_config.hpp>
#include <kvsize/kvsize.hpp>
#include <kvsize/weights.hpp>

#include <nlohmann/json.hpp>

#include <unistd.h>  // getpid

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>

#ifndef KVSIZE_SOURCE_DIR
#error "define KVSIZE_SOURCE_DIR as the project root (the CMake build does)"
#endif

namespace kvsize::test::weights_configs {

/// configs/<name>.config.json, parsed.
inline auto load(const std::string& name) -> kvsize::hf::parsed_config {
  return kvsize::hf::load_config(std::filesystem::path(KVSIZE_SOURCE_DIR) / "configs" / (name + ".config.json"));
}

/// configs/<name>.config.json with `quantization_config` (JSON text) in place of its own, as JSON text.
inline auto text_with_quantization(const std::string& name, const std::string& quantization_config) -> std::string {
  std::ifstream in(std::filesystem::path(KVSIZE_SOURCE_DIR) / "configs" / (name + ".config.json"));
  nlohmann::json doc = nlohmann::json::parse(std::string(std::istreambuf_iterator<char>(in), {}));
  doc["quantization_config"] = nlohmann::json::parse(quantization_config);
  return doc.dump();
}

/// The same, parsed.
inline auto with_quantization(const std::string& name, const std::string& quantization_config)
    -> kvsize::hf::parsed_config {
  return kvsize::hf::parse_config(text_with_quantization(name, quantization_config));
}

/// A fresh folder under the temporary directory, named `name` and the process id; removed with what it holds when
/// the guard goes, also when a REQUIRE ends the test early.
struct temp_folder {
  std::filesystem::path path;
  explicit temp_folder(const std::string& name)
      : path(std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path);
  }
  temp_folder(const temp_folder&) = delete;
  auto operator=(const temp_folder&) -> temp_folder& = delete;
  ~temp_folder() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

/// parameters() of configs/<name>.config.json.
inline auto params(const std::string& name) -> kvsize::parameter_breakdown { return kvsize::parameters(load(name).spec); }

}  // namespace kvsize::test::weights_configs
