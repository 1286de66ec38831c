#include <kvsize/gpus.hpp>

#include <cstdio>

int main() {
  constexpr auto h100 = kvsize::gpu("h100-80gb");  // an unknown id does not compile
  static_assert(h100.memory == 81'559 * kvsize::MiB);
  for (const auto& g : kvsize::gpu_catalog) {
    std::printf("%-10s %-30s %6.1f GiB (sold as %s)\n", g.id.data(), g.name.data(), g.memory.in(kvsize::GiB),
                g.marketed.data());
  }
  return kvsize::find_gpu("no-such-gpu") ? 1 : 0;
}
