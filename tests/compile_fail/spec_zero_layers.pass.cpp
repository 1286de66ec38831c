// SPDX-License-Identifier: MIT
// Twin of spec_zero_layers.fail.cpp: the same spec with 32 layers (2^34 B / 512 MiB per sequence = 32).
#include <kvsize/capacity.hpp>

constexpr kvsize::model_spec good{.layers = 32, .attention_heads = 32, .kv_heads = 8, .head_dim = 128};
static_assert(kvsize::max_sequences(good, kvsize::bytes{1ULL << 34U}, 4'096, kvsize::cache_format::of(good)) == 32);
