// SPDX-License-Identifier: MIT
// startup_budget.hpp: the terms of one device's start-up KV budget add up to the device.
#include <catch2/catch_test_macros.hpp>

#include <kvsize/startup_budget.hpp>

using namespace kvsize::literals;

TEST_CASE("startup_budget: terms add up to the device", "[startup_budget]") {
  // vLLM-shaped: 0.9 of 80 GiB requested, 8 GiB unused; weights 15 GiB, peak 2 GiB, non-torch 1 GiB.
  kvsize::startup_budget b{.device = 80_GiB, .fraction = 0.9, .weights = 15_GiB, .activation_peak = 2_GiB,
                           .non_torch = 1_GiB, .unused = 8_GiB, .kv = 54_GiB, .engine_version = "0.19"};
  CHECK(b.overhead() == 18_GiB);
  CHECK(b.balanced());
  b.kv = 53_GiB;  // one GiB unaccounted for
  CHECK_FALSE(b.balanced());
  static_assert(kvsize::startup_budget{.device = 1_GiB, .kv = 1_GiB}.balanced());
}
