// MESSAGE[(use of deleted function|call to deleted|deleted)]
// SPDX-License-Identifier: MIT
// bytes + int does not compile: an integer has no unit. Twin: bytes_plus_int.pass.cpp.
#include <kvsize/bytes.hpp>

using namespace kvsize::literals;

auto f() -> kvsize::bytes { return 1_KiB + 1; }
