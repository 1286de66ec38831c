// SPDX-License-Identifier: MIT
// Twin of spec_sliding_window_zero.fail.cpp: the same spec with a 4,096-token window holds 4,096 tokens per layer.
#include <kvsize/kv_cache.hpp>

constexpr kvsize::model_spec good{.layers = 32, .attention_heads = 32, .kv_heads = 8, .head_dim = 128,
                                   .attention = kvsize::layer_kind::sliding, .sliding_window = 4'096};
static_assert(kvsize::kv_bytes_per_sequence(good, 8'192).count() == 4'096ULL * 32 * 2 * 8 * 128 * 2);
