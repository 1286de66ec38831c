#include <kvsize/capacity.hpp>
#include <kvsize/gpus.hpp>
#include <kvsize/parameters.hpp>
#include <kvsize/presets.hpp>

#include <cstdio>

int main() {
  constexpr auto m = kvsize::presets::qwen2_5_1_5b;
  constexpr auto weights = kvsize::weights_bytes(kvsize::dense_decoder_parameters(m), kvsize::dtype::bf16);
  constexpr auto budget = kvsize::kv_budget(kvsize::gpu("rtx-3060").memory, weights);
  constexpr auto users = kvsize::max_sequences(m, budget, 2'048, kvsize::cache_format::of(m));
  static_assert(kvsize::check_fit(m, kvsize::gpu("rtx-3060").memory, 2'048, users, weights).fits());
  std::printf("%llu users at 2,048 tokens, or %llu tokens in all\n", static_cast<unsigned long long>(users),
              static_cast<unsigned long long>(kvsize::max_tokens(m, budget, kvsize::kv_dtypes::same(m.compute_dtype))));
}
