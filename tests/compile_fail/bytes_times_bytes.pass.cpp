// SPDX-License-Identifier: MIT
// Twin of bytes_times_bytes.fail.cpp: bytes × count compiles.
#include <kvsize/bytes.hpp>

using namespace kvsize::literals;

auto f() -> kvsize::bytes { return 2_KiB * 2; }
