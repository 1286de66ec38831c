// SPDX-License-Identifier: MIT
// The core umbrella header pulls in neither fmt nor nlohmann_json (they cost seconds per translation unit).
#include <kvsize/kvsize.hpp>  // first, so nothing included before it can define the macros below

#ifdef FMT_VERSION
#error "<kvsize/kvsize.hpp> includes fmt; only <kvsize/fmt.hpp> may"
#endif
#ifdef NLOHMANN_JSON_VERSION_MAJOR
#error "<kvsize/kvsize.hpp> includes nlohmann/json; only <kvsize/hf_config.hpp> may"
#endif

#include <catch2/catch_test_macros.hpp>

TEST_CASE("core_is_light: <kvsize/kvsize.hpp> compiles without fmt and nlohmann_json", "[core]") {
  // The real check is the #error lines above: this file compiling is the test.
  STATIC_REQUIRE(KVSIZE_VERSION_MAJOR >= 0);
}
