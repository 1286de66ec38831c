#include <kvsize/parse_size.hpp>

#include <cstdio>

int main() {
  static_assert(kvsize::parse_size("12.49GB") == kvsize::bytes{12'490'000'000});  // exact decimals
  static_assert(kvsize::parse_size("24 GiB") == 24 * kvsize::GiB);
  static_assert(!kvsize::parse_size("24 gigs"));  // unknown unit: nullopt
  if (const auto b = kvsize::parse_size("58.11GiB")) {
    std::printf("58.11GiB = %llu B\n", static_cast<unsigned long long>(b->count()));
  }
}
