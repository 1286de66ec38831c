// SPDX-License-Identifier: MIT
// Twin of bytes_from_int.fail.cpp: explicit construction compiles.
#include <kvsize/bytes.hpp>

auto f() -> kvsize::bytes { return kvsize::bytes{28'672}; }
