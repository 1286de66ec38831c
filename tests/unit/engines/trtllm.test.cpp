// SPDX-License-Identifier: MIT
// kvsize/engines/trtllm.hpp against public TensorRT-LLM logs (engine_logs_support.hpp says how the cases read a log).
#include "engine_logs_support.hpp"  // Catch2, the kvsize headers, and the names the cases use

using namespace kvsize::test::engine_logs;

// ─────────────────────────────────────────── TensorRT-LLM ───────────────────────────────────────────

namespace {
// Qwen/Qwen1.5-7B: 32 layers, 32 heads (MHA), 128.
constexpr model_spec qwen1_5_7b{.layers = 32, .attention_heads = 32, .hidden_size = 4'096, .vocab_size = 151'936};
// TinyLlama/TinyLlama-1.1B: 22 layers, 32 heads, 4 KV heads, hidden 2048 → 64.
constexpr model_spec tinyllama{.layers = 22, .attention_heads = 32, .kv_heads = 4, .hidden_size = 2'048, .vocab_size = 32'000};

/// TRT-LLM's budget from a printed "available: X GiB": some value in its interval gives `ok`.
auto trt_available(const model_spec& m, const engine_options& o, double available_gib,
                   const std::function<bool(const kvsize::engine_capacity&)>& ok) -> bool {
  return some_budget_prints_as(available_gib, bytes{4'096}, [&](bytes available) {
    const bytes budget = kvsize::engine_kv_budget(engine_kind::trtllm, available, bytes{0}, o);
    return ok(kvsize::engine_capacity_for(m, engine_kind::trtllm, o, budget));
  });
}
}  // namespace

TEST_CASE("TRT-LLM T1: Qwen1.5-7B (MHA), 64 tokens per block: 631 blocks of 21.89 GiB", "[engines][trtllm][mha]") {
  // NVIDIA/TensorRT-LLM#2268 (https://github.com/NVIDIA/TensorRT-LLM/issues/2268): "available:
  // 21.89 GiB", "Number of blocks in KV cache primary pool: 631" (fraction 0.9).
  const engine_options o{.block_size = 64};
  CHECK(trt_available(qwen1_5_7b, o, 21.89, [](const auto& c) { return c.num_blocks == 631; }));
}

TEST_CASE("TRT-LLM T2: Llama-3.1-8B with an 8-bit cache on a 32 GB GPU", "[engines][trtllm][fp8]") {
  // A public TensorRT-LLM log: "available: 17.83 GiB", "Number of blocks in KV cache primary pool:
  // 8219", "Number of tokens per block: 32.", "Allocated 16.05 GiB for max tokens in paged KV cache
  // (263008)" (no trailing period in that build).
  const model_spec& m = config("meta-llama__Llama-3.1-8B.config.json");
  const engine_options o{.kv = kvsize::kv_dtypes::same(dtype::fp8_e4m3)};
  CHECK(trt_available(m, o, 17.83, [](const auto& c) { return c.num_blocks == 8'219; }));
  const auto ls = lines(m, engine_kind::trtllm, o, bytes{8'219ULL * 32 * 65'536});
  CHECK(has_line(ls, "[TensorRT-LLM][INFO] Number of blocks in KV cache primary pool: 8219"));
  CHECK(has_line(ls, "[TensorRT-LLM][INFO] Number of tokens per block: 32."));
  CHECK(has_line(ls, "[TensorRT-LLM][INFO] [MemUsageChange] Allocated 16.05 GiB for max tokens in paged KV cache (263008)."));
}

TEST_CASE("TRT-LLM T3: Llama-3.1-8B, 64 tokens per block, 3445 blocks", "[engines][trtllm][gqa]") {
  // An NVIDIA Dynamo example (github.com/ai-dynamo/dynamo): "Number of tokens per block: 64.",
  // "[MemUsageChange] Allocated 26.91 GiB for max tokens in paged KV cache (220480)."
  const model_spec& m = config("meta-llama__Llama-3.1-8B.config.json");
  const engine_options o{.context = 131'072, .block_size = 64};
  CHECK(kvsize::size_cache(m, engine_kind::trtllm, o).part(0).blocks_per_sequence == 2'048);  // "pages per sequence: 2048"
  CHECK(has_line(lines(m, engine_kind::trtllm, o, bytes{3'445ULL * 64 * 131'072}),
                 "[TensorRT-LLM][INFO] [MemUsageChange] Allocated 26.91 GiB for max tokens in paged KV cache (220480)."));
}

TEST_CASE("TRT-LLM T4: Qwen3-0.6B (Qwen3-Reranker) on an H100", "[engines][trtllm][gqa]") {
  // A public TensorRT-LLM log: "[MemUsageChange] Allocated 68.69 GiB for max tokens in paged KV
  // cache (643136)." = 20,098 blocks of 32 tokens × 114,688 B.
  const model_spec& m = config("Qwen__Qwen3-0.6B.config.json");
  CHECK(has_line(lines(m, engine_kind::trtllm, {}, bytes{643'136ULL * 114'688}),
                 "[TensorRT-LLM][INFO] [MemUsageChange] Allocated 68.69 GiB for max tokens in paged KV cache (643136)."));
}

TEST_CASE("TRT-LLM T6: the memory FAQ's 7B MHA engine with an 8-bit cache", "[engines][trtllm][mha][fp8]") {
  // NVIDIA/TensorRT-LLM docs/source/reference/memory.md: "available: 70.48 GiB", "Number of blocks
  // in KV cache primary pool: 4060", "Number of tokens per block: 64.", "Allocated 63.44 GiB for
  // max tokens in paged KV cache (259840)." 262,144 B/token = Llama-2-7B with 1-byte K and V.
  const model_spec& m = config("meta-llama__Llama-2-7b-hf.config.json");
  const engine_options o{.kv = kvsize::kv_dtypes::same(dtype::int8), .block_size = 64};
  CHECK(trt_available(m, o, 70.48, [](const auto& c) {
    return c.num_blocks == 4'060 && c.max_tokens == 259'840 && rounded(c.allocated.in(GiB), 2) == 63.44;
  }));
}

TEST_CASE("TRT-LLM T8: 1.42 GiB free, 82 blocks", "[engines][trtllm][mha]") {
  // The GRPS guide: "available: 1.42 GiB", "Number of blocks in KV cache
  // primary pool: 82", "Allocated 1.28 GiB ..." at 64 tokens per block and 262,144 B/token.
  const model_spec& m = config("meta-llama__Llama-2-7b-hf.config.json");
  const engine_options o{.kv = kvsize::kv_dtypes::same(dtype::int8), .block_size = 64};
  CHECK(trt_available(m, o, 1.42, [](const auto& c) {
    return c.num_blocks == 82 && rounded(c.allocated.in(GiB), 2) == 1.28;
  }));
}

TEST_CASE("TRT-LLM T9: TinyLlama-1.1B, 116617 blocks", "[engines][trtllm][gqa]") {
  // triton-inference-server/tutorials PR #150 (https://github.com/triton-inference-server/tutorials/pull/150):
  // "primary blocks=116617", "Allocated 78.30 GiB for max tokens in paged KV cache (3731744)."
  // and "Max KV cache blocks per sequence: 65 [window size=2051]".
  const engine_options o{.context = 2'051};
  CHECK(kvsize::size_cache(tinyllama, engine_kind::trtllm, o).part(0).blocks_per_sequence == 65);
  CHECK(has_line(lines(tinyllama, engine_kind::trtllm, o, bytes{116'617ULL * 32 * 22'528}),
                 "[TensorRT-LLM][INFO] [MemUsageChange] Allocated 78.30 GiB for max tokens in paged KV cache (3731744)."));
}
