// MESSAGE[more layers than kvsize::max_layers]
// SPDX-License-Identifier: MIT
// kv_bytes_per_token of a spec with more layers than kvsize::max_layers (513 > 512) does not compile. Twin: spec_too_many_layers.pass.cpp.
#include <kvsize/kv_cache.hpp>

constexpr kvsize::model_spec bad{.layers = kvsize::max_layers + 1, .attention_heads = 32, .kv_heads = 8, .head_dim = 128};
static_assert(kvsize::kv_bytes_per_token(bad).count() != 0);
