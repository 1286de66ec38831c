// SPDX-License-Identifier: MIT
// Helpers for the weights tests (weights.test.cpp, weights_parameters.test.cpp, the hf readers'
// weights tests): a config of configs/ by name, and its parameter count.
#pragma once

#include <kvsize/hf_config.hpp>
#include <kvsize/kvsize.hpp>
#include <kvsize/weights.hpp>

#include <filesystem>
#include <string>

#ifndef KVSIZE_SOURCE_DIR
#error "define KVSIZE_SOURCE_DIR as the project root (the CMake build does)"
#endif

namespace kvsize::test::weights_configs {

/// configs/<name>.config.json, parsed.
inline auto load(const std::string& name) -> kvsize::hf::parsed_config {
  return kvsize::hf::load_config(std::filesystem::path(KVSIZE_SOURCE_DIR) / "configs" / (name + ".config.json"));
}

/// parameters() of configs/<name>.config.json.
inline auto params(const std::string& name) -> kvsize::parameter_breakdown { return kvsize::parameters(load(name).spec); }

}  // namespace kvsize::test::weights_configs
