// SPDX-License-Identifier: MIT
// Qwen2.5-7B, 16,384 tokens × 8 users, bf16 KV cache, on an H100 80 GB under vLLM's defaults:
// this file does not compile unless that fits. The model comes from its real config.json:
// kvsize_add_model() (CMakeLists.txt beside this file) generated <kvsize_models/qwen2_5_7b.hpp>
// from configs/Qwen__Qwen2.5-7B.config.json, and regenerates it when the file changes.
// tests/compile_fail/vllm_fit.fail.cpp is the same check for 131,072 tokens × 64 users.
#include <cstdint>  // std::uint64_t

#include <fmt/core.h>

#include <kvsize/engine.hpp>        // size_cache, engine_kv_budget
#include <kvsize/fmt.hpp>           // fmt::formatter<kvsize::bytes>
#include <kvsize/gpus.hpp>          // kvsize::gpu
#include <kvsize/parameters.hpp>    // weights_bytes
#include <kvsize/static_check.hpp>  // KVSIZE_STATIC_REQUIRE_FIT
#include <kvsize_models/qwen2_5_7b.hpp>  // qwen2_5_7b, qwen2_5_7b_name, qwen2_5_7b_parameters

namespace {

constexpr auto h100 = kvsize::gpu("h100-80gb");
constexpr std::uint64_t context = 16'384;
constexpr std::uint64_t users = 8;

// vLLM's defaults: the KV budget is gpu_memory_utilization (0.9) × the device's TOTAL memory −
// the weights; blocks of 16 tokens; each request holds the blocks of its whole context. (vLLM
// also subtracts the peak activations it measures by profiling: engine_overhead, 0 here.)
constexpr kvsize::engine_options vllm{.context = context,
                                      .batch = users,
                                      .kv = kvsize::kv_dtypes::same(kvsize::dtype::bf16),
                                      .device_memory = h100.memory};
constexpr kvsize::bytes weights = kvsize::weights_bytes(qwen2_5_7b_parameters, kvsize::dtype::bf16);
constexpr kvsize::engine_sizing cache = kvsize::size_cache(qwen2_5_7b, kvsize::engine_kind::vllm, vllm);
constexpr kvsize::bytes needed = cache.kv_bytes;
constexpr kvsize::bytes available = kvsize::engine_kv_budget(kvsize::engine_kind::vllm, h100.memory, weights, vllm);

}  // namespace

KVSIZE_STATIC_REQUIRE_FIT(qwen2_5_7b_name, h100.name, needed, available);

int main() {
  fmt::print("{}: {} users x {} tokens, bf16 KV, on one {} under vLLM's defaults\n", qwen2_5_7b_name, users,
             context, h100.name);
  fmt::print("  blocks per request: {} of {} tokens ({} per block)\n", cache.vllm.blocks_per_sequence, cache.block_size,
             cache.vllm.pool_block_bytes);
  fmt::print("  KV needed:    {} ({} B)\n", needed, needed.count());
  fmt::print("  KV available: {} ({} B) = 0.9 x {} - weights {}\n", available, available.count(), h100.memory,
             weights);
}
