#include <kvsize/error.hpp>
#include <kvsize/gpus.hpp>
#include <kvsize/kv_cache.hpp>
#include <kvsize/presets.hpp>

#include <cstdint>
#include <cstdio>

int main() {
  // 10^15 tokens × 128 KiB of Llama-3-8B KV per token is past 2^64 bytes: an exception, never a wrap.
  try {
    const std::uint64_t tokens = 1'000'000'000'000'000;
    (void)kvsize::kv_bytes_per_sequence(kvsize::presets::llama_3_8b, tokens);
  } catch (const kvsize::overflow_error& e) {
    std::printf("overflow_error: %s\n", e.what());
  }
  try {
    (void)kvsize::gpu("rtx-9999");
  } catch (const kvsize::error& e) {  // the base of every kvsize exception
    std::printf("error: %s\n", e.what());
  }
}
