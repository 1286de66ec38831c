// SPDX-License-Identifier: MIT
// Twin of spec_too_many_layers.fail.cpp: exactly kvsize::max_layers layers is allowed.
#include <kvsize/kv_cache.hpp>

constexpr kvsize::model_spec good{.layers = kvsize::max_layers, .attention_heads = 32, .kv_heads = 8, .head_dim = 128};
static_assert(kvsize::kv_bytes_per_token(good).count() == 512ULL * 2 * 8 * 128 * 2);
