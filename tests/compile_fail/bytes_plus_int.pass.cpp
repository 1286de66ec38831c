// SPDX-License-Identifier: MIT
// Twin of bytes_plus_int.fail.cpp: with a unit, the sum compiles.
#include <kvsize/bytes.hpp>

using namespace kvsize::literals;

auto f() -> kvsize::bytes { return 1_KiB + 1_B; }
