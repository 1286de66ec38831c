// MESSAGE[multiplication overflows 2\^64]
// SPDX-License-Identifier: MIT
// Overflow in a constant expression is a compile error that says so. Twin: constexpr_overflow.pass.cpp.
#include <kvsize/bytes.hpp>

using namespace kvsize::literals;

constexpr kvsize::bytes huge = 1_TiB * (1ULL << 40);  // 2^80 bytes
