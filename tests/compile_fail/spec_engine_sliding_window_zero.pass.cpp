// SPDX-License-Identifier: MIT
// Twin of spec_engine_sliding_window_zero.fail.cpp: with a 4,096-token window vLLM sizes it.
#include <kvsize/engine.hpp>

constexpr kvsize::model_spec good{.layers = 32, .attention_heads = 32, .kv_heads = 8, .head_dim = 128,
                                   .attention = kvsize::layer_kind::sliding, .sliding_window = 4'096};
static_assert(kvsize::size_cache(good, kvsize::engine_kind::vllm, {.context = 8'192}).kv_bytes_per_token.count() != 0);
