#include <kvsize/kv_cache.hpp>
#include <kvsize/presets.hpp>

#include <cstdio>

int main() {
  constexpr auto m = kvsize::presets::llama_3_8b;
  static_assert(kvsize::kv_bytes_per_token(m) == 128 * kvsize::KiB);
  static_assert(kvsize::kv_bytes_per_token_mha(m) == 512 * kvsize::KiB);  // without GQA: 4 ×
  constexpr auto fp8 = kvsize::kv_bytes(m, 8'000, 20, kvsize::dtype::fp8_e4m3);  // 20 users × 8,000 tokens
  std::printf("GQA ratio %.0f; 20 x 8,000 tokens in fp8: %llu B\n", kvsize::gqa_ratio(m),
              static_cast<unsigned long long>(fp8.count()));
}
