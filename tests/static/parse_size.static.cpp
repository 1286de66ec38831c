// SPDX-License-Identifier: MIT
// Compile-time facts of kvsize::parse_size (compiling is passing).
#include <kvsize/parse_size.hpp>

using namespace kvsize::literals;

static_assert(*kvsize::parse_size("12.49GB") == 12'490_MB);  // the lesson's RTX 3060, exactly
static_assert(*kvsize::parse_size("58.11GiB") == kvsize::bytes{62'395'137'392});  // floor(5,811·2^30/100)
static_assert(*kvsize::parse_size("24GiB") == 24_GiB);
static_assert(*kvsize::parse_size("80 GB") == 80_GB);         // one space allowed
static_assert(*kvsize::parse_size("512") == 512_B);           // bare number: bytes
static_assert(*kvsize::parse_size("1.5kB") == 1'500_B);
static_assert(*kvsize::parse_size("1.5KB") == 1'500_B);
static_assert(*kvsize::parse_size("0.000000001GB") == 1_B);
static_assert(*kvsize::parse_size("16'384MiB") == 16_GiB);    // digit separators
static_assert(!kvsize::parse_size("GB"));                     // no number
static_assert(!kvsize::parse_size("12 gb"));                  // units are case-sensitive: gb is neither GB nor GiB
static_assert(!kvsize::parse_size("-1GB"));                   // sizes are never negative
static_assert(!kvsize::parse_size("99999999999TB"));          // beyond 2^64 − 1
static_assert(!kvsize::parse_size("1.2.3GB"));
static_assert(!kvsize::parse_size("12GBs"));
