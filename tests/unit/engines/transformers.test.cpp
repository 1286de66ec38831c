// SPDX-License-Identifier: MIT
// kvsize/engines/transformers.hpp against the transformers maintainers' figures and source
// (engine_logs_support.hpp says how the cases read a log).
#include "engine_logs_support.hpp"  // Catch2, the kvsize headers, and the names the cases use

using namespace kvsize::test::engine_logs;

// ─────────────────────────────────────────── transformers ───────────────────────────────────────────
// No measured transformers cache size with full settings was found (docs/research/engine-logs.md Part
// F): these cases check the formulas against the maintainers' own statement and source.

TEST_CASE("transformers: Llama-2-7B, 4096 + 100 tokens in fp16 is 2.05 GB", "[engines][transformers][mha]") {
  // jy-yuan/KIVI#17 (https://github.com/jy-yuan/KIVI/issues/17): the maintainer's figure for the
  // DynamicCache of Llama-2-7B at 4196 tokens in fp16: 4196·2·32·32·128·2 B = "2.05 GB" (GiB).
  const model_spec& m = config("meta-llama__Llama-2-7b-hf.config.json");
  const auto s = kvsize::size_cache(m, engine_kind::transformers, {.context = 4'196, .kv = kvsize::kv_dtypes::same(dtype::f16)});
  CHECK(rounded(s.kv_bytes.in(GiB), 2) == 2.05);
}

TEST_CASE("transformers: sliding layers keep W − 1 tokens; logits of every position", "[engines][transformers][sliding]") {
  // src/transformers/cache_utils.py, DynamicSlidingWindowLayer.update: "self.keys =
  // full_key_states[:, :, -self.sliding_window + 1 :, :]" (returns W, keeps W − 1).
  const auto s = kvsize::size_cache(gemma3_1b, engine_kind::transformers, {.context = 2'048});
  CHECK(s.kv_bytes_per_sequence == bytes{1'024} * (4 * 2'048 + 22 * 511));
  // A forward pass without logits_to_keep returns vocab logits for every position.
  CHECK(s.logits_bytes == bytes{2'048ULL * 262'144 * 2});
  const auto last = kvsize::size_cache(gemma3_1b, engine_kind::transformers,
                                       {.context = 2'048, .transformers = {.logits_to_keep = 1, .logits_float32 = true}});
  CHECK(last.logits_bytes == bytes{262'144ULL * 4});
}
