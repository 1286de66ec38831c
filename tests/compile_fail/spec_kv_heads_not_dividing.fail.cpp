// MESSAGE[attention_heads is not a multiple of kv_heads]
// SPDX-License-Identifier: MIT
// kv_bytes_per_sequence of a spec whose 5 KV heads do not divide its 32 query heads does not compile. Twin: spec_kv_heads_not_dividing.pass.cpp.
#include <kvsize/kv_cache.hpp>

constexpr kvsize::model_spec bad{.layers = 32, .attention_heads = 32, .kv_heads = 5, .head_dim = 128};
static_assert(kvsize::kv_bytes_per_sequence(bad, 4'096).count() != 0);
