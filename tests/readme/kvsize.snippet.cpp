#include <kvsize/kvsize.hpp>  // the whole core: constexpr, standard library only

#include <cstdio>

int main() {
  constexpr auto qwen = kvsize::presets::qwen2_5_7b;
  constexpr auto per_token = kvsize::kv_bytes_per_token(qwen);  // 2 × 28 layers × 4 heads × 128 × 2 B
  static_assert(per_token == 56 * kvsize::KiB);
  std::printf("kvsize %s: Qwen2.5-7B keeps %llu B of KV per token\n", KVSIZE_VERSION,
              static_cast<unsigned long long>(per_token.count()));
}
