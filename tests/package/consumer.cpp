// SPDX-License-Identifier: MIT
// A program using kvsize as a package user would; built by the consumer projects beside this file.
#include <kvsize/kvsize.hpp>
#if KVSIZE_CONSUMER_COMPONENTS  // the consumer links kvsize::hf and kvsize::fmt too
#include <kvsize/fmt.hpp>
#include <kvsize/hf_config.hpp>

#include <fmt/core.h>
#include <nlohmann/json.hpp>
#endif

#include <cstdio>  // std::puts

static_assert(KVSIZE_VERSION_MAJOR == 0, "the umbrella header provides the version macros");
static_assert(kvsize::version.major == KVSIZE_VERSION_MAJOR);

int main() {
#if KVSIZE_CONSUMER_COMPONENTS
  const auto config = nlohmann::json::parse(R"({"kvsize": true})");  // the include path reaches nlohmann
  fmt::print("kvsize {} (json: {})\n", kvsize::version_string, config.at("kvsize").get<bool>());  // links fmt
#else
  std::puts(KVSIZE_VERSION);
#endif
  return 0;
}
