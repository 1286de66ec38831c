// SPDX-License-Identifier: MIT
// kvsize/gpus.hpp: the GPU catalog.
#include <catch2/catch_test_macros.hpp>

#include <kvsize/error.hpp>
#include <kvsize/gpus.hpp>

using namespace kvsize::literals;

TEST_CASE("gpus: catalog lookups by id, case-insensitive", "[gpus]") {
  REQUIRE(kvsize::find_gpu("H100-80GB")->memory == 81'559_MiB);
  REQUIRE(kvsize::find_gpu("rtx-3060")->memory == 12_GiB);
  REQUIRE_FALSE(kvsize::find_gpu("rtx-9999"));
  REQUIRE_THROWS_AS(kvsize::gpu("rtx-9999"), kvsize::invalid_argument);
}
