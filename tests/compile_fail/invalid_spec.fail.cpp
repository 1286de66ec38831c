// MESSAGE[attention_heads is not a multiple of kv_heads]
// SPDX-License-Identifier: MIT
// validate() rejects an impossible spec at compile time with its reason. Twin: invalid_spec.pass.cpp.
#include <kvsize/model_spec.hpp>

constexpr kvsize::model_spec bad{.layers = 32, .attention_heads = 32, .kv_heads = 5, .head_dim = 128};
static_assert((kvsize::validate(bad), true));
