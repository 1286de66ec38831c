// SPDX-License-Identifier: MIT
// Formatting of kvsize types through fmt: exact strings.
#include <catch2/catch_test_macros.hpp>

#include <fmt/format.h>

#include <kvsize/fmt.hpp>

using namespace kvsize::literals;
using kvsize::bytes;

TEST_CASE("fmt: bytes print auto-scaled IEC with the unit named", "[fmt]") {
  REQUIRE(fmt::format("{}", bytes{28'672}) == "28 KiB");
  REQUIRE(fmt::format("{}", bytes{303'872}) == "296.8 KiB");  // the lesson's logits per token
  REQUIRE(fmt::format("{}", bytes{512}) == "512 B");
  REQUIRE(fmt::format("{}", 750_MiB) == "750 MiB");
  REQUIRE(fmt::format("{}", bytes{15'231'233'024}) == "14.19 GiB");
  REQUIRE(fmt::format("{}", 2_TiB * 1'024) == "2048 TiB");  // no unit above TiB: stays fixed-point
}

TEST_CASE("fmt: SI on request, never mixed up with IEC", "[fmt]") {
  REQUIRE(fmt::format("{}", kvsize::as_si(bytes{3'087'428'608})) == "3.087 GB");
  REQUIRE(fmt::format("{}", kvsize::as_si(bytes{117'440'512})) == "117.4 MB");
  REQUIRE(fmt::format("{}", kvsize::as_si(24_GiB)) == "25.77 GB");
  REQUIRE(fmt::format("{}", kvsize::as_iec(24_GB)) == "22.35 GiB");
}

TEST_CASE("fmt: fill, align and width apply to the whole quantity", "[fmt]") {
  REQUIRE(fmt::format("[{:>10}]", bytes{28'672}) == "[    28 KiB]");
  REQUIRE(fmt::format("[{:*<10}]", bytes{28'672}) == "[28 KiB****]");
}

TEST_CASE("fmt: element types, layer kinds and model specs", "[fmt]") {
  REQUIRE(fmt::format("{}", kvsize::dtype::q8_0) == "q8_0");
  REQUIRE(fmt::format("{}", kvsize::layer_kind::sliding) == "sliding");
  REQUIRE(fmt::format("{}", kvsize::presets::qwen2_5_1_5b) ==
          "28 layers (28 full), 12 heads, 2 KV heads, head_dim 128, vocab 151936, bf16");
}
