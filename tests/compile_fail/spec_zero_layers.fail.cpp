// MESSAGE[layers must be positive]
// SPDX-License-Identifier: MIT
// max_sequences of a spec with 0 layers does not compile. Twin: spec_zero_layers.pass.cpp.
#include <kvsize/capacity.hpp>

constexpr kvsize::model_spec bad{.layers = 0, .attention_heads = 32, .kv_heads = 8, .head_dim = 128};
static_assert(kvsize::max_sequences(bad, kvsize::bytes{1ULL << 34U}, 4'096, kvsize::cache_format::of(bad)) != 0);
