// SPDX-License-Identifier: MIT
// kvsize/hf/error.hpp: the config_error codes and their names.
#include <kvsize/hf/error.hpp>

#include <catch2/catch_test_macros.hpp>

using kvsize::hf::config_errc;

TEST_CASE("config_errc: each code has its name", "[hf]") {
  CHECK(kvsize::hf::name(config_errc::syntax) == "syntax");
  CHECK(kvsize::hf::name(config_errc::missing_key) == "missing_key");
  CHECK(kvsize::hf::name(config_errc::wrong_type) == "wrong_type");
  CHECK(kvsize::hf::name(config_errc::out_of_range) == "out_of_range");
  CHECK(kvsize::hf::name(config_errc::inconsistent) == "inconsistent");
  CHECK(kvsize::hf::name(config_errc::unsupported) == "unsupported");
  CHECK(kvsize::hf::name(config_errc::io) == "io");
}
