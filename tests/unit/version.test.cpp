// SPDX-License-Identifier: MIT
// The version in include/kvsize/version.hpp agrees with CMake's project(VERSION).
#include <kvsize/version.hpp>

#include <catch2/catch_test_macros.hpp>

#include <string>       // std::to_string
#include <string_view>  // std::string_view

#ifndef KVSIZE_EXPECTED_VERSION
#error "KVSIZE_EXPECTED_VERSION (CMake's PROJECT_VERSION) must be defined by tests/CMakeLists.txt"
#endif

TEST_CASE("version: KVSIZE_VERSION equals the CMake project version", "[version]") {
  STATIC_REQUIRE(std::string_view{KVSIZE_VERSION} == std::string_view{KVSIZE_EXPECTED_VERSION});
}

TEST_CASE("version: the number macros spell KVSIZE_VERSION", "[version]") {
  const auto spelled = std::to_string(KVSIZE_VERSION_MAJOR) + '.' + std::to_string(KVSIZE_VERSION_MINOR) + '.' +
                       std::to_string(KVSIZE_VERSION_PATCH);
  REQUIRE(spelled == KVSIZE_VERSION);
}

TEST_CASE("version: kvsize::version and kvsize::version_string mirror the macros", "[version]") {
  STATIC_REQUIRE(kvsize::version.major == KVSIZE_VERSION_MAJOR);
  STATIC_REQUIRE(kvsize::version.minor == KVSIZE_VERSION_MINOR);
  STATIC_REQUIRE(kvsize::version.patch == KVSIZE_VERSION_PATCH);
  STATIC_REQUIRE(kvsize::version_string == KVSIZE_VERSION);
}
