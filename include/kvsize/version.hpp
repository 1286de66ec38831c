// SPDX-License-Identifier: MIT
// The library version, as macros (for #if) and as constants; CMake's project(VERSION) must agree.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <string_view>  // std::string_view

#define KVSIZE_VERSION_MAJOR 0
#define KVSIZE_VERSION_MINOR 1
#define KVSIZE_VERSION_PATCH 0
/// "MAJOR.MINOR.PATCH"; tests/unit/version.test.cpp checks it against CMake's PROJECT_VERSION.
#define KVSIZE_VERSION "0.1.0"

namespace kvsize {

/// A release number; compare the fields, e.g. `kvsize::version.minor >= 1`.
struct version_info {
  int major;
  int minor;
  int patch;
};

/// This library's version as numbers (the KVSIZE_VERSION_* macros).
inline constexpr version_info version{KVSIZE_VERSION_MAJOR, KVSIZE_VERSION_MINOR, KVSIZE_VERSION_PATCH};

/// This library's version as text, e.g. "0.1.0" (the KVSIZE_VERSION macro).
inline constexpr std::string_view version_string = KVSIZE_VERSION;

}  // namespace kvsize
