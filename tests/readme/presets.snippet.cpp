#include <kvsize/kv_cache.hpp>
#include <kvsize/presets.hpp>

#include <cstdio>

int main() {
  namespace p = kvsize::presets;
  for (const auto& [name, m] : {std::pair{"Qwen2.5-0.5B", p::qwen2_5_0_5b}, std::pair{"Qwen2.5-1.5B", p::qwen2_5_1_5b},
                                std::pair{"Qwen2.5-7B", p::qwen2_5_7b}, std::pair{"Llama-3-8B", p::llama_3_8b}}) {
    std::printf("%-13s %3llu KiB of KV per token\n", name,
                static_cast<unsigned long long>(kvsize::kv_bytes_per_token(m) / kvsize::KiB));
  }
}
