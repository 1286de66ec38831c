// SPDX-License-Identifier: MIT
// The README's first C++ snippet, verbatim: if this stops compiling, the README is wrong.
#include <kvsize/kvsize.hpp>   // core: constexpr, standard library only
using namespace kvsize::literals;

constexpr kvsize::model_spec qwen{.layers = 28, .attention_heads = 12, .kv_heads = 2, .head_dim = 128,
                                  .hidden_size = 1'536, .vocab_size = 151'936};
static_assert(kvsize::kv_bytes_per_token(qwen) == 28_KiB);                     // 2 × 28 × 2 × 128 × 2 B
static_assert(kvsize::gqa_ratio(qwen) == 6.0);                                 // 12 query heads per 2 KV heads
static_assert(kvsize::kv_bytes_per_sequence(qwen, 2'048) == 56_MiB);
static_assert(kvsize::logits_bytes_prefill(qwen, 8'192) == 2'489'319'424_B);   // logits: 10.6 × the KV per token
static_assert(kvsize::max_sequences(qwen, 12'490_MB - 3'087'428'608_B, 2'048,  // the lesson's RTX 3060:
                                    kvsize::cache_format::of(qwen)) == 160);   // 160 users at 2,048 tokens
