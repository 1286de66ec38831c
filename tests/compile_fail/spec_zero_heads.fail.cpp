// MESSAGE[attention_heads must be positive]
// SPDX-License-Identifier: MIT
// kv_bytes_per_token of a spec with 0 attention heads does not compile: the spec's check names the rule. Twin: spec_zero_heads.pass.cpp.
#include <kvsize/kv_cache.hpp>

constexpr kvsize::model_spec bad{.layers = 32, .attention_heads = 0, .kv_heads = 8, .head_dim = 128};
static_assert(kvsize::kv_bytes_per_token(bad).count() != 0);
