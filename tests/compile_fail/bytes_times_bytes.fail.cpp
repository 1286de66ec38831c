// MESSAGE[(use of deleted function|call to deleted|deleted)]
// SPDX-License-Identifier: MIT
// bytes × bytes does not compile: square bytes mean nothing. Twin: bytes_times_bytes.pass.cpp.
#include <kvsize/bytes.hpp>

using namespace kvsize::literals;

auto f() -> kvsize::bytes { return 2_KiB * 2_KiB; }
