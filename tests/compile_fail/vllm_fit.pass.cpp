// SPDX-License-Identifier: MIT
// The compiling twin of vllm_fit.fail.cpp: the same check for 16,384 tokens x 8 users, which fit
// (7,516,192,768 B of KV blocks of 61,737,495,961 B), so the failure there comes from the numbers.
#include <cstdint>

#include <kvsize/engine.hpp>
#include <kvsize/gpus.hpp>
#include <kvsize/parameters.hpp>
#include <kvsize/static_check.hpp>
#include <kvsize_models/qwen2_5_7b.hpp>

namespace {
constexpr auto h100 = kvsize::gpu("h100-80gb");
constexpr kvsize::engine_options vllm{.context = 16'384, .batch = 8,
                                      .kv = kvsize::kv_dtypes::same(kvsize::dtype::bf16),
                                      .device_memory = h100.memory};
constexpr kvsize::bytes weights = kvsize::weights_bytes(qwen2_5_7b_parameters, kvsize::dtype::bf16);
constexpr kvsize::bytes needed = kvsize::size_cache(qwen2_5_7b, kvsize::engine_kind::vllm, vllm).kv_bytes;
constexpr kvsize::bytes available = kvsize::engine_kv_budget(kvsize::engine_kind::vllm, h100.memory, weights, vllm);
}  // namespace

KVSIZE_STATIC_REQUIRE_FIT(qwen2_5_7b_name, h100.name, needed, available);
