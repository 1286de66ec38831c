// SPDX-License-Identifier: MIT
// Included first by every public kvsize header, so that a compile in a mode older than C++20 stops
// at one clear message instead of pages of errors from the C++20 code that follows. Compilers default
// to less than C++20 (GCC 12 to C++17, Clang 14 to C++14), so `c++ app.cpp` without -std=c++20 lands
// here; kvsize's CMake targets and its pkg-config files add -std=c++20 (or the MSVC equivalent).
#pragma once

// MSVC leaves __cplusplus at 199711L unless /Zc:__cplusplus is given; _MSVC_LANG is its language mode.
// (`defined(X) && X` keeps -Wundef quiet where X is not defined.)
#if (defined(_MSVC_LANG) && _MSVC_LANG < 202002L) || (!defined(_MSVC_LANG) && __cplusplus < 202002L)
#error "kvsize needs C++20 (__cplusplus >= 202002L): compile with -std=c++20 or later (GCC, Clang) or /std:c++20 (MSVC)"
// #error does not stop GCC, Clang or MSVC, but a missing header does: the compile ends here, and the
// #error above stays the only message about the language mode.
#include <kvsize/C++20 or later is required: see the #error above>
#endif
