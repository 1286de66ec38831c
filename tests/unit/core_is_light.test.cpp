// SPDX-License-Identifier: MIT
// The core umbrella header pulls in neither fmt nor nlohmann_json (they cost seconds per translation unit),
// nor <stdexcept>, <string> or <algorithm> (together ~0.25 s of the ~0.45 s the umbrella cost before
// kvsize::error replaced the std exception types: BENCHMARKS.md, compile cost).
#include <kvsize/kvsize.hpp>  // first, so nothing included before it can define the macros below

#ifdef FMT_VERSION
#error "<kvsize/kvsize.hpp> includes fmt; only <kvsize/fmt.hpp> may"
#endif
#ifdef NLOHMANN_JSON_VERSION_MAJOR
#error "<kvsize/kvsize.hpp> includes nlohmann/json; only <kvsize/hf_config.hpp> may"
#endif

// The include guards of libstdc++ and libc++; other standard libraries are not checked.
#if defined(_GLIBCXX_STDEXCEPT) || defined(_LIBCPP_STDEXCEPT)
#error "<kvsize/kvsize.hpp> includes <stdexcept>; throw kvsize::error's kinds (kvsize/error.hpp) instead"
#endif
#if defined(_GLIBCXX_STRING) || defined(_LIBCPP_STRING)
#error "<kvsize/kvsize.hpp> includes <string>; the core uses std::string_view and string literals"
#endif
#if defined(_GLIBCXX_ALGORITHM) || defined(_LIBCPP_ALGORITHM)
#error "<kvsize/kvsize.hpp> includes <algorithm>; use detail::min_of / max_of (kvsize/detail/checked.hpp)"
#endif

#include <catch2/catch_test_macros.hpp>

TEST_CASE("core_is_light: <kvsize/kvsize.hpp> compiles without fmt, nlohmann_json, <stdexcept>, <string> or <algorithm>", "[core]") {
  // The real check is the #error lines above: this file compiling is the test.
  STATIC_REQUIRE(KVSIZE_VERSION_MAJOR >= 0);
}
