// SPDX-License-Identifier: MIT
// Compile-time facts of kvsize::bytes and its units (compiling is passing).
#include <concepts>
#include <type_traits>

#include <kvsize/bytes.hpp>

using namespace kvsize::literals;
using kvsize::bytes;

// IEC and SI are different numbers.
static_assert(1024_B == 1_KiB);
static_assert(1_GiB == bytes{1'073'741'824});
static_assert(1_GB == bytes{1'000'000'000});
static_assert(80_GiB - 80_GB == bytes{5'899'345'920});  // the 7.4% between an "80 GB" label and 80 GiB
static_assert(1_kB == 1_KB);
static_assert(1_TiB == 1'024 * 1_GiB);
// Only meaningful arithmetic.
static_assert(28 * 1_KiB == bytes{28'672});
static_assert(1_KiB * 28 == bytes{28'672});
static_assert(9'402'571'392_B / bytes{28'672} == 327'935);  // how many fit: rounds down
static_assert(bytes{10} / 3 == bytes{4});                   // a share of a need: rounds up
static_assert(bytes{10} % bytes{4} == bytes{2});
static_assert(kvsize::min(1_KiB, 1_KB) == 1_KB);
static_assert(kvsize::max(1_KiB, 1_KB) == 1_KiB);
static_assert((3_MiB).in(kvsize::MiB) == 3.0);

// The API's shape: what must NOT compile, checked in-process (style-anchors §6.9).
template <typename A, typename B>
concept addable = requires(A a, B b) { a + b; };
template <typename A, typename B>
concept multipliable = requires(A a, B b) { a * b; };
static_assert(!std::convertible_to<int, bytes>);             // no implicit construction from a number
static_assert(!std::convertible_to<bytes, std::uint64_t>);   // no implicit way back out
static_assert(!std::convertible_to<bytes, double>);
static_assert(!addable<bytes, int>);                         // bytes + 1: 1 of what?
static_assert(!addable<int, bytes>);
static_assert(!multipliable<bytes, bytes>);                  // bytes² means nothing
static_assert(addable<bytes, bytes>);
static_assert(multipliable<bytes, std::uint64_t>);
static_assert(std::is_trivially_copyable_v<bytes>);
static_assert(sizeof(bytes) == 8);
