// SPDX-License-Identifier: MIT
// Helpers for the weights tests (weights.test.cpp, weights_parameters.test.cpp, the hf readers'
// weights tests): a config of configs/ by name, and its parameter count.
#pragma once

#include <kvsize/hf_config.hpp>
#include <kvsize/kvsize.hpp>
#include <kvsize/weights.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#ifndef KVSIZE_SOURCE_DIR
#error "define KVSIZE_SOURCE_DIR as the project root (the CMake build does)"
#endif

namespace kvsize::test::weights_configs {

/// configs/<name>.config.json, parsed.
inline auto load(const std::string& name) -> kvsize::hf::parsed_config {
  return kvsize::hf::load_config(std::filesystem::path(KVSIZE_SOURCE_DIR) / "configs" / (name + ".config.json"));
}

/// configs/<name>.config.json with `quantization_config` (JSON text) in place of its own, parsed.
inline auto with_quantization(const std::string& name, const std::string& quantization_config)
    -> kvsize::hf::parsed_config {
  std::ifstream in(std::filesystem::path(KVSIZE_SOURCE_DIR) / "configs" / (name + ".config.json"));
  nlohmann::json doc = nlohmann::json::parse(std::string(std::istreambuf_iterator<char>(in), {}));
  doc["quantization_config"] = nlohmann::json::parse(quantization_config);
  return kvsize::hf::parse_config(doc.dump());
}

/// parameters() of configs/<name>.config.json.
inline auto params(const std::string& name) -> kvsize::parameter_breakdown { return kvsize::parameters(load(name).spec); }

}  // namespace kvsize::test::weights_configs
