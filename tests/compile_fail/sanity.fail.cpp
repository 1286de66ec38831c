// MESSAGE[kvsize-sanity]
// SPDX-License-Identifier: MIT
// Proves the compile-fail machinery: this file must fail, with the message above. Twin: sanity.pass.cpp.
#include <kvsize/version.hpp>

template <class>
inline constexpr bool false_v = false;

static_assert(false_v<int>, "kvsize-sanity");
