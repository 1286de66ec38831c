// SPDX-License-Identifier: MIT
// Twin of constexpr_overflow.fail.cpp: 2^60 bytes is representable.
#include <kvsize/bytes.hpp>

using namespace kvsize::literals;

constexpr kvsize::bytes huge = 1_TiB * (1ULL << 20);
static_assert(huge.count() == 1ULL << 60);
