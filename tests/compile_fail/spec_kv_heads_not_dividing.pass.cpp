// SPDX-License-Identifier: MIT
// Twin of spec_kv_heads_not_dividing.fail.cpp: 8 KV heads divide 32 query heads.
#include <kvsize/kv_cache.hpp>

constexpr kvsize::model_spec good{.layers = 32, .attention_heads = 32, .kv_heads = 8, .head_dim = 128};
static_assert(kvsize::kv_bytes_per_sequence(good, 4'096).count() == 4'096ULL * 2 * 32 * 8 * 128 * 2);
