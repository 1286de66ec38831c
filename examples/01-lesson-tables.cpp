// SPDX-License-Identifier: MIT
// Prints the tables of the KV cache lesson this project started from (its Qwen2.5 and Llama-3-8B
// figures), from the library alone.
#include <fmt/format.h>

#include <kvsize/fmt.hpp>
#include <kvsize/kvsize.hpp>

namespace presets = kvsize::presets;

int main() {
  fmt::print("Qwen2.5 at 16-bit: KV per token, with and without sharing\n");
  fmt::print("{:<14}{:>4}{:>8}{:>6}{:>6}{:>12}{:>18}{:>8}\n", "model", "L", "heads", "N_kv", "d_h", "per token",
             "without sharing", "ratio");
  struct row {
    const char* name;
    kvsize::model_spec spec;
  };
  for (const row& r : {row{"Qwen2.5-0.5B", presets::qwen2_5_0_5b}, row{"Qwen2.5-1.5B", presets::qwen2_5_1_5b},
                       row{"Qwen2.5-7B", presets::qwen2_5_7b}}) {
    fmt::print("{:<14}{:>4}{:>8}{:>6}{:>6}{:>12}{:>18}{:>7.0f}x\n", r.name, r.spec.layers, r.spec.attention_heads,
               r.spec.kv_heads, r.spec.head_dim, kvsize::kv_bytes_per_token(r.spec),
               kvsize::kv_bytes_per_token_mha(r.spec), kvsize::gqa_ratio(r.spec));
  }

  constexpr auto m = presets::qwen2_5_1_5b;
  fmt::print("\nQwen2.5-1.5B: KV cache against context (bf16)\n");
  fmt::print("{:>8}{:>16}{:>12}{:>18}{:>14}\n", "context", "KV bytes", "KV", "logits bytes", "logits");
  for (std::uint64_t t : {512U, 1'024U, 2'048U, 4'096U, 8'192U}) {
    fmt::print("{:>8}{:>16}{:>12}{:>18}{:>14}\n", t, kvsize::kv_bytes_per_sequence(m, t).count(),
               kvsize::as_si(kvsize::kv_bytes_per_sequence(m, t)), kvsize::logits_bytes_prefill(m, t).count(),
               kvsize::as_si(kvsize::logits_bytes_prefill(m, t)));
  }

  fmt::print("\nWork without a KV cache (prompt 128)\n");
  fmt::print("{:>6}{:>14}{:>16}{:>8}\n", "N", "with cache", "without cache", "ratio");
  for (std::uint64_t n : {64U, 128U, 256U, 512U}) {
    fmt::print("{:>6}{:>14}{:>16}{:>7.0f}x\n", n, kvsize::positions_with_cache(128, n),
               kvsize::positions_without_cache(128, n), kvsize::no_cache_work_ratio(128, n));
  }

  using namespace kvsize::literals;
  constexpr auto weights = kvsize::weights_bytes(kvsize::dense_decoder_parameters(m), kvsize::dtype::bf16);
  constexpr auto budget = kvsize::kv_budget(12'490_MB, weights);
  fmt::print("\nRTX 3060 (12.49 GB as the lesson measured it) with Qwen2.5-1.5B\n");
  fmt::print("weights {} ({} B), left for KV {} ({} B)\n", kvsize::as_si(weights), weights.count(),
             kvsize::as_si(budget), budget.count());
  fmt::print("max tokens {}, users at 2,048 tokens {}\n",
             kvsize::max_tokens(m, budget, kvsize::kv_dtypes::same(kvsize::dtype::bf16)),
             kvsize::max_sequences(m, budget, 2'048, kvsize::cache_format::of(m)));
}
