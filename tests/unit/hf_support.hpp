// SPDX-License-Identifier: MIT
// Helpers for the config.json reader's tests: the configs/ folder, the config_error a text or a
// file throws, and a search of the warnings.
#pragma once

#include <kvsize/hf_config.hpp>

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>

#ifndef KVSIZE_SOURCE_DIR
#error "define KVSIZE_SOURCE_DIR as the project root (the CMake build does)"
#endif

namespace kvsize::test {

inline auto configs_dir() -> std::filesystem::path { return std::filesystem::path(KVSIZE_SOURCE_DIR) / "configs"; }

/// The config_error that parsing `text` throws; FAILs if none.
inline auto error_of(std::string_view text) -> hf::config_error {
  try {
    (void)hf::parse_config(text);
  } catch (const hf::config_error& e) {
    return e;
  }
  FAIL("no config_error thrown");
  return hf::config_error(hf::config_errc::io, "", "", "");
}

/// The config_error that loading `path` throws; FAILs if none.
inline auto error_of_file(const std::filesystem::path& path) -> hf::config_error {
  try {
    (void)hf::load_config(path);
  } catch (const hf::config_error& e) {
    return e;
  }
  FAIL("no config_error thrown for " << path);
  return hf::config_error(hf::config_errc::io, "", "", "");
}

/// The reason loading `path` leaves the weights unknown (parsed_config::weights_unknown_because: a
/// malformed key only the weights read); FAILs where the config is refused or its weights were read.
inline auto weights_unknown_of_file(const std::filesystem::path& path) -> std::string {
  const std::filesystem::path full = path.is_absolute() ? path : configs_dir() / path;
  const hf::parsed_config c = hf::load_config(full);
  if (c.weights_unknown_because.empty()) {
    FAIL("the weights of " << full << " were read");
  }
  return c.weights_unknown_because;
}

/// The same for a config.json's text.
inline auto weights_unknown_of(std::string_view text) -> std::string {
  const hf::parsed_config c = hf::parse_config(text);
  if (c.weights_unknown_because.empty()) {
    FAIL("the weights were read");
  }
  return c.weights_unknown_because;
}

inline auto has_warning(const hf::parsed_config& c, std::string_view part) -> bool {
  return std::any_of(c.warnings.begin(), c.warnings.end(),
                     [&](const std::string& w) { return w.find(part) != std::string::npos; });
}

}  // namespace kvsize::test
