// MESSAGE[a sliding layer needs sliding_window > 0]
// SPDX-License-Identifier: MIT
// An engine entry point (size_cache, vLLM) refuses the same spec at compile time: every engine checks the spec. Twin: spec_engine_sliding_window_zero.pass.cpp.
#include <kvsize/engine.hpp>

constexpr kvsize::model_spec bad{.layers = 32, .attention_heads = 32, .kv_heads = 8, .head_dim = 128,
                                  .attention = kvsize::layer_kind::sliding, .sliding_window = 0};
static_assert(kvsize::size_cache(bad, kvsize::engine_kind::vllm, {.context = 8'192}).kv_bytes_per_token.count() != 0);
