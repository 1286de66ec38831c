// SPDX-License-Identifier: MIT
// Twin of invalid_spec.fail.cpp: 8 KV heads divide 32 query heads.
#include <kvsize/model_spec.hpp>

constexpr kvsize::model_spec good{.layers = 32, .attention_heads = 32, .kv_heads = 8, .head_dim = 128};
static_assert((kvsize::validate(good), true));
