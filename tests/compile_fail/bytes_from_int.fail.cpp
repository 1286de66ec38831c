// MESSAGE[(could not convert|no viable conversion|cannot convert|conversion from)]
// SPDX-License-Identifier: MIT
// An integer never becomes bytes implicitly. Twin: bytes_from_int.pass.cpp.
#include <kvsize/bytes.hpp>

auto f() -> kvsize::bytes { return 28'672; }
