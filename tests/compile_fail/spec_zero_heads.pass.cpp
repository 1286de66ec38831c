// SPDX-License-Identifier: MIT
// Twin of spec_zero_heads.fail.cpp: the same spec with 32 heads.
#include <kvsize/kv_cache.hpp>

constexpr kvsize::model_spec good{.layers = 32, .attention_heads = 32, .kv_heads = 8, .head_dim = 128};
static_assert(kvsize::kv_bytes_per_token(good).count() == 2 * 32 * 8 * 128 * 2);
