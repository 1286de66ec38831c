// MESSAGE[require_fit.*Qwen/Qwen2\.5-7B.*NVIDIA H100 80 GB \(SXM5\).*481036337152, 61737495961]
// SPDX-License-Identifier: MIT
// Qwen2.5-7B (generated from configs/Qwen__Qwen2.5-7B.config.json by kvsize_add_model), 131,072
// tokens x 64 users, bf16 KV, on an H100 80 GB under vLLM's defaults does not fit: vLLM would hold
// 481,036,337,152 B of KV blocks and leaves 61,737,495,961 B (0.9 x memory - weights). The compiler
// message names the model, the GPU and both byte counts, on GCC and Clang. Twin: vllm_fit.pass.cpp.
#include <cstdint>

#include <kvsize/engine.hpp>
#include <kvsize/gpus.hpp>
#include <kvsize/parameters.hpp>
#include <kvsize/static_check.hpp>
#include <kvsize_models/qwen2_5_7b.hpp>

namespace {
constexpr auto h100 = kvsize::gpu("h100-80gb");
constexpr kvsize::engine_options vllm{.context = 131'072, .batch = 64,
                                      .kv = kvsize::kv_dtypes::same(kvsize::dtype::bf16),
                                      .device_memory = h100.memory};
constexpr kvsize::bytes weights = kvsize::weights_bytes(qwen2_5_7b_parameters, kvsize::dtype::bf16);
constexpr kvsize::bytes needed = kvsize::size_cache(qwen2_5_7b, kvsize::engine_kind::vllm, vllm).kv_bytes;
constexpr kvsize::bytes available = kvsize::engine_kv_budget(kvsize::engine_kind::vllm, h100.memory, weights, vllm);
}  // namespace

KVSIZE_STATIC_REQUIRE_FIT(qwen2_5_7b_name, h100.name, needed, available);
