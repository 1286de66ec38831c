#include <kvsize/parameters.hpp>
#include <kvsize/presets.hpp>

#include <cstdio>

int main() {
  constexpr std::uint64_t n = kvsize::dense_decoder_parameters(kvsize::presets::llama_3_8b);
  static_assert(n == 8'030'261'248);
  constexpr auto q4 = kvsize::weights_bytes(n, kvsize::dtype::q4_0);  // whole 18-byte blocks of 32
  std::printf("Llama-3-8B: %llu parameters, %llu B in q4_0\n", static_cast<unsigned long long>(n),
              static_cast<unsigned long long>(q4.count()));
}
