// SPDX-License-Identifier: MIT
// The compiling twin of sanity.fail.cpp: the same file without the defect.
#include <kvsize/version.hpp>

template <class>
inline constexpr bool false_v = false;

static_assert(!false_v<int>, "kvsize-sanity");
