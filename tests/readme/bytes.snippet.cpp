#include <kvsize/bytes.hpp>

#include <cstdio>

using namespace kvsize::literals;

int main() {
  static_assert(28 * 1_KiB == kvsize::bytes{28'672});  // IEC: powers of 1024
  static_assert(80_GB != 80_GiB);                      // SI and IEC never mix silently
  constexpr auto budget = 12'490_MB;                   // no 12.49_GB: no silent rounding
  constexpr std::uint64_t tokens = budget / 28_KiB;    // bytes / bytes: how many fit, rounded down
  std::printf("%llu tokens of 28 KiB fit in 12.49 GB (%.2f GiB)\n", static_cast<unsigned long long>(tokens),
              budget.in(kvsize::GiB));
}
