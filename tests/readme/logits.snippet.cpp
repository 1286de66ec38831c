#include <kvsize/logits.hpp>
#include <kvsize/presets.hpp>

#include <cstdio>

int main() {
  constexpr auto m = kvsize::presets::qwen2_5_1_5b;
  constexpr auto prefill = kvsize::logits_bytes_prefill(m, 8'192);  // every position: 8,192 × vocab × 2 B
  constexpr auto decode = kvsize::logits_bytes_last(m, 1);          // the last position only
  static_assert(prefill == kvsize::bytes{2'489'319'424});
  std::printf("logits: %llu B for a naive prefill, %llu B per decode step\n",
              static_cast<unsigned long long>(prefill.count()), static_cast<unsigned long long>(decode.count()));
}
