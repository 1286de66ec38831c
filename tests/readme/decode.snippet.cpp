#include <kvsize/decode.hpp>
#include <kvsize/kv_cache.hpp>
#include <kvsize/parameters.hpp>
#include <kvsize/presets.hpp>

#include <cstdio>

int main() {
  constexpr auto m = kvsize::presets::qwen2_5_1_5b;
  constexpr kvsize::decode_traffic step{
      .weights = kvsize::weights_bytes(kvsize::dense_decoder_parameters(m), kvsize::dtype::bf16),
      .kv = kvsize::kv_bytes(m, 4'096, 1)};
  std::printf("KV adds %.1f%% to each step's reads; without a cache, 1,000 tokens after a 1,000-token "
              "prompt cost %.0fx the work\n",
              100 * step.kv_over_weights(), kvsize::no_cache_work_ratio(1'000, 1'000));
}
