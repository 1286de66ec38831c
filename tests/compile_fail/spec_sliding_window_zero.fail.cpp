// MESSAGE[a sliding layer needs sliding_window > 0]
// SPDX-License-Identifier: MIT
// kv_bytes_per_sequence of a spec with sliding layers and no window does not compile. Twin: spec_sliding_window_zero.pass.cpp.
#include <kvsize/kv_cache.hpp>

constexpr kvsize::model_spec bad{.layers = 32, .attention_heads = 32, .kv_heads = 8, .head_dim = 128,
                                  .attention = kvsize::layer_kind::sliding, .sliding_window = 0};
static_assert(kvsize::kv_bytes_per_sequence(bad, 8'192).count() != 0);
