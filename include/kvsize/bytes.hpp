// SPDX-License-Identifier: MIT
// kvsize::bytes: an exact, overflow-checked count of bytes, with IEC and SI units kept apart.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <compare>      // operator<=>
#include <cstdint>      // std::uint64_t
#include <type_traits>  // std::is_trivially_copyable_v

#include "error.hpp"
#include "detail/checked.hpp"

namespace kvsize {

/// An exact number of bytes (64-bit, unsigned). Construction is explicit; arithmetic is
/// limited to what is meaningful and every operation is overflow-checked: a constant
/// expression that overflows does not compile, a run-time one throws kvsize::overflow_error.
///
/// Example:
///   using namespace kvsize::literals;
///   static_assert(28 * 1_KiB == kvsize::bytes{28'672});
///   static_assert(12'490_MB / kvsize::bytes{28'672} == 435'616);   // how many fit: rounds down
class bytes {
 public:
  constexpr bytes() = default;
  constexpr explicit bytes(std::uint64_t count) : count_{count} {}

  /// The raw byte count.
  [[nodiscard]] constexpr auto count() const -> std::uint64_t { return count_; }

  /// This quantity expressed in `unit` (e.g. kvsize::GiB), as a double for display only.
  [[nodiscard]] constexpr auto in(bytes unit) const -> double {
    return static_cast<double>(count_) / static_cast<double>(unit.count_);
  }

  [[nodiscard]] friend constexpr auto operator+(bytes a, bytes b) -> bytes {
    return bytes{detail::checked_add(a.count_, b.count_)};
  }
  /// Throws kvsize::underflow_error if b > a: a byte count is never negative.
  [[nodiscard]] friend constexpr auto operator-(bytes a, bytes b) -> bytes {
    return bytes{detail::checked_sub(a.count_, b.count_)};
  }
  [[nodiscard]] friend constexpr auto operator*(bytes a, std::uint64_t n) -> bytes {
    return bytes{detail::checked_mul(a.count_, n)};
  }
  [[nodiscard]] friend constexpr auto operator*(std::uint64_t n, bytes a) -> bytes {
    return bytes{detail::checked_mul(a.count_, n)};
  }
  /// Splitting a requirement n ways rounds UP: a share never shrinks below its need.
  [[nodiscard]] friend constexpr auto operator/(bytes a, std::uint64_t n) -> bytes {
    return bytes{detail::ceil_div(a.count_, n)};
  }
  /// How many `b` fit in `a`: rounds DOWN.
  [[nodiscard]] friend constexpr auto operator/(bytes a, bytes b) -> std::uint64_t {
    return detail::floor_div(a.count_, b.count_);
  }
  [[nodiscard]] friend constexpr auto operator%(bytes a, bytes b) -> bytes {
    if (b.count_ == 0) {
      throw kvsize::domain_error("kvsize: remainder by zero bytes");
    }
    return bytes{a.count_ % b.count_};
  }
  constexpr auto operator+=(bytes b) -> bytes& { return *this = *this + b; }
  constexpr auto operator-=(bytes b) -> bytes& { return *this = *this - b; }
  constexpr auto operator*=(std::uint64_t n) -> bytes& { return *this = *this * n; }

  friend constexpr auto operator<=>(bytes, bytes) = default;
  friend constexpr auto operator==(bytes, bytes) -> bool = default;

  // Deleted so that mixing bytes with a raw integer or multiplying two sizes is a compile error
  // that names the intent, rather than a silent conversion.
  template <typename T>
  friend auto operator+(bytes, T) -> bytes = delete;
  template <typename T>
  friend auto operator+(T, bytes) -> bytes = delete;
  template <typename T>
  friend auto operator-(bytes, T) -> bytes = delete;
  friend auto operator*(bytes, bytes) -> bytes = delete;

 private:
  std::uint64_t count_ = 0;
};

static_assert(std::is_trivially_copyable_v<bytes>);

/// Smaller of two sizes / larger of two sizes.
[[nodiscard]] constexpr auto min(bytes a, bytes b) -> bytes { return a < b ? a : b; }
[[nodiscard]] constexpr auto max(bytes a, bytes b) -> bytes { return a < b ? b : a; }

// Units. IEC (binary, 2^10k) and SI (decimal, 10^3k) are different numbers: an "80 GB" card
// and 80 GiB differ by 7.4%. kvsize never prints one as the other.
inline constexpr bytes B{1};
inline constexpr bytes KiB{1ULL << 10};
inline constexpr bytes MiB{1ULL << 20};
inline constexpr bytes GiB{1ULL << 30};
inline constexpr bytes TiB{1ULL << 40};
inline constexpr bytes KB{1'000ULL};
inline constexpr bytes MB{1'000'000ULL};
inline constexpr bytes GB{1'000'000'000ULL};
inline constexpr bytes TB{1'000'000'000'000ULL};

namespace literals {
// Integer literals only: 12.49_GB would need rounding, which kvsize refuses to do silently.
// Write 12'490_MB instead.
[[nodiscard]] consteval auto operator""_B(unsigned long long n) -> bytes { return bytes{n}; }
[[nodiscard]] consteval auto operator""_KiB(unsigned long long n) -> bytes { return KiB * n; }
[[nodiscard]] consteval auto operator""_MiB(unsigned long long n) -> bytes { return MiB * n; }
[[nodiscard]] consteval auto operator""_GiB(unsigned long long n) -> bytes { return GiB * n; }
[[nodiscard]] consteval auto operator""_TiB(unsigned long long n) -> bytes { return TiB * n; }
[[nodiscard]] consteval auto operator""_KB(unsigned long long n) -> bytes { return KB * n; }
[[nodiscard]] consteval auto operator""_kB(unsigned long long n) -> bytes { return KB * n; }
[[nodiscard]] consteval auto operator""_MB(unsigned long long n) -> bytes { return MB * n; }
[[nodiscard]] consteval auto operator""_GB(unsigned long long n) -> bytes { return GB * n; }
[[nodiscard]] consteval auto operator""_TB(unsigned long long n) -> bytes { return TB * n; }
}  // namespace literals

}  // namespace kvsize
