// SPDX-License-Identifier: MIT
// kvsize/bytes.hpp: checked arithmetic of byte counts (overflow and underflow throw, division rounds
// the way its use needs).
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cstdint>
#include <limits>

#include <kvsize/bytes.hpp>
#include <kvsize/error.hpp>

using namespace kvsize::literals;
using Catch::Matchers::ContainsSubstring;
using kvsize::bytes;

TEST_CASE("bytes: overflow is an exception at run time, never a wrap", "[bytes]") {
  const bytes big{std::numeric_limits<std::uint64_t>::max() / 2 + 1};
  REQUIRE_THROWS_AS(big + big, kvsize::overflow_error);
  REQUIRE_THROWS_AS(big * 2, kvsize::overflow_error);
  REQUIRE_THROWS_WITH(big * 3, ContainsSubstring("overflows 2^64"));
  REQUIRE_NOTHROW(big * 1);
}

TEST_CASE("bytes: subtraction below zero throws", "[bytes]") {
  REQUIRE_THROWS_AS(1_KiB - 1_MiB, kvsize::underflow_error);
  REQUIRE(1_MiB - 1_KiB == bytes{1'047'552});
}

TEST_CASE("bytes: division rounds down for 'how many fit' and up for 'a share of'", "[bytes]") {
  REQUIRE(bytes{10} / bytes{3} == 3);
  REQUIRE(bytes{10} / 3 == bytes{4});
  REQUIRE_THROWS_AS(bytes{10} / bytes{0}, kvsize::domain_error);
}
