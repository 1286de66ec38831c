// SPDX-License-Identifier: MIT
// kvsize/engines/vllm.hpp against public vLLM logs (engine_logs_support.hpp says how the cases read a log).
#include "engine_logs_support.hpp"  // Catch2, the kvsize headers, and the names the cases use

#include <catch2/matchers/catch_matchers_string.hpp>

using namespace kvsize::test::engine_logs;

namespace {

// Models not in configs/, from their config.json values.
// Qwen/Qwen3-14B: 40 layers, 40 heads, 8 KV heads, head_dim 128, bf16.
constexpr model_spec qwen3_14b{.layers = 40, .attention_heads = 40, .kv_heads = 8, .head_dim = 128,
                               .hidden_size = 5'120, .vocab_size = 151'936};
// ibm-granite/granite-4.0-micro: 40 layers ("attention" only), 40 heads, 8 KV heads, hidden 2560 → 64.
constexpr model_spec granite_4_micro{.layers = 40, .attention_heads = 40, .kv_heads = 8, .hidden_size = 2'560,
                                     .vocab_size = 100'352};
// mistralai/Mistral-Small-3.2-24B-Instruct-2506 text model: 40 layers, 32 heads, 8 KV heads, head_dim 128.
constexpr model_spec mistral_small_3_2{.layers = 40, .attention_heads = 32, .kv_heads = 8, .head_dim = 128,
                                       .hidden_size = 5'120, .vocab_size = 131'072};
// deepseek-ai/DeepSeek-R1-Distill-Qwen-14B (Qwen2.5-14B shape): 48 layers, 40 heads, 8 KV heads, 128.
constexpr model_spec r1_distill_qwen_14b{.layers = 48, .attention_heads = 40, .kv_heads = 8, .head_dim = 128,
                                         .hidden_size = 5'120, .vocab_size = 152'064};

}  // namespace

// ─────────────────────────────────────────────── vLLM ───────────────────────────────────────────────

TEST_CASE("vLLM A1: the v1 token and concurrency lines from num_blocks", "[engines][vllm]") {
  // vllm-project/vllm PR #13596 (https://github.com/vllm-project/vllm/pull/13596): "# GPU blocks:
  // 127626" became "GPU KV cache size: 2,042,016 tokens" / "Maximum concurrency for 2,048 tokens
  // per request: 997.08x". Model not stated; any uniform model with the same num_blocks prints the
  // same, so the budget is 127,626 pool blocks of Llama-3.1-8B (2 MiB each).
  const model_spec& m = config("meta-llama__Llama-3.1-8B.config.json");
  const engine_options o{.context = 2'048};
  const auto s = kvsize::size_cache(m, engine_kind::vllm, o);
  CHECK(s.vllm.pool_block_bytes == 2_MiB);
  const auto ls = lines(m, engine_kind::vllm, o, s.vllm.pool_block_bytes * 127'626);
  CHECK(has_line(ls, "GPU KV cache size: 2,042,016 tokens"));
  CHECK(has_line(ls, "Maximum concurrency for 2,048 tokens per request: 997.08x"));
}

TEST_CASE("vLLM A2: Llama-3.1-8B on an RTX 3090 at 20k and 29k tokens", "[engines][vllm][gqa]") {
  // vllm-project/vllm#10517 (https://github.com/vllm-project/vllm/issues/10517): v0 logs
  // "kv_cache_size=3.81GiB", "# GPU blocks: 1952", "Maximum concurrency for 20000 tokens per
  // request: 1.56x"; at 29000: "kv_cache_size=2.89GiB", "1478" blocks, "0.82x", "(23648)" tokens.
  // v0 printed tokens/max_len; v1's blocks / cdiv(len, 16) gives the same two decimals here.
  const model_spec& m = config("meta-llama__Llama-3.1-8B.config.json");
  engine_options o{.context = 20'000};
  CHECK(some_budget_prints_as(3.81, 2_MiB, [&](bytes b) {
    const auto c = kvsize::engine_capacity_for(m, engine_kind::vllm, o, b);
    return c.num_blocks == 1'952 && rounded(c.max_concurrency, 2) == 1.56;
  }));
  o.context = 29'000;
  CHECK(some_budget_prints_as(2.89, 2_MiB, [&](bytes b) {
    const auto c = kvsize::engine_capacity_for(m, engine_kind::vllm, o, b);
    return c.num_blocks == 1'478 && c.max_tokens == 23'648 && rounded(c.max_concurrency, 2) == 0.82;
  }));
}

TEST_CASE("vLLM A3: Qwen3-14B, 32k tokens", "[engines][vllm][gqa]") {
  // LMCache/LMCache#1739 (https://github.com/LMCache/LMCache/issues/1739): "Available KV cache
  // memory: 6.51 GiB", "GPU KV cache size: 42,656 tokens", "Maximum concurrency for 32,768 tokens
  // per request: 1.30x".
  CHECK(vllm_reproduces(qwen3_14b, {.context = 32'768}, 6.51,
                        {"GPU KV cache size: 42,656 tokens", "Maximum concurrency for 32,768 tokens per request: 1.30x"}));
}

TEST_CASE("vLLM A4: Qwen3-0.6B on an A100-80GB", "[engines][vllm][gqa]") {
  // vllm-project/vllm PR #24577 (https://github.com/vllm-project/vllm/pull/24577), mgoin's BF16
  // run: "Available KV cache memory: 69.66 GiB", "GPU KV cache size: 652,144 tokens",
  // "Maximum concurrency for 4,096 tokens per request: 159.21x".
  CHECK(vllm_reproduces(config("Qwen__Qwen3-0.6B.config.json"), {.context = 4'096}, 69.66,
                        {"GPU KV cache size: 652,144 tokens", "Maximum concurrency for 4,096 tokens per request: 159.21x"}));
}

TEST_CASE("vLLM A5: Qwen3-30B-A3B with an fp8 cache, and the max-length error", "[engines][vllm][fp8]") {
  // vllm-project/vllm#25350 (https://github.com/vllm-project/vllm/issues/25350): "Available KV
  // cache memory: 10.55 GiB", "GPU KV cache size: 230,528 tokens", "Maximum concurrency for
  // 100,000 tokens per request: 2.31x"; at --max-model-len 221000: "(10.12 GiB KV cache is
  // needed ...". The model is inferred from 49,152 B/token = 48 layers × 4 KV heads × 128 × 2 × 1 B.
  const model_spec& m = config("Qwen__Qwen3-30B-A3B.config.json");
  engine_options o{.context = 100'000, .kv = kvsize::kv_dtypes::same(dtype::fp8_e4m3)};
  CHECK(kvsize::size_cache(m, engine_kind::vllm, o).kv_bytes_per_token == bytes{49'152});
  CHECK(vllm_reproduces(m, o, 10.55,
                        {"GPU KV cache size: 230,528 tokens", "Maximum concurrency for 100,000 tokens per request: 2.31x"}));
  o.context = 221'000;
  CHECK(rounded(kvsize::size_cache(m, engine_kind::vllm, o).kv_bytes_per_sequence.in(GiB), 2) == 10.12);
}

TEST_CASE("vLLM A7: Llama-3.1-8B with an EAGLE draft layer in the same pool", "[engines][vllm][gqa]") {
  // vllm-project/vllm#19996 (https://github.com/vllm-project/vllm/issues/19996): "Available KV
  // cache memory: 51.63 GiB", "GPU KV cache size: 410,128 tokens", "Maximum concurrency for
  // 131,072 tokens per request: 3.13x". Only reproducible when the EAGLE draft's one decoder layer
  // (8 KV heads × 128) shares the group: 33 layers.
  model_spec m = config("meta-llama__Llama-3.1-8B.config.json");
  m.layers = 33;
  CHECK(vllm_reproduces(m, {.context = 131'072}, 51.63,
                        {"GPU KV cache size: 410,128 tokens", "Maximum concurrency for 131,072 tokens per request: 3.13x"}));
}

TEST_CASE("vLLM A8: granite-4.0-micro (head_dim 64), 131k tokens", "[engines][vllm][gqa]") {
  // IBM Cloud Code Engine fleet tutorial (vLLM 0.11.0 log): "Available KV cache memory:
  // 35.34 GiB", "GPU KV cache size: 463,136 tokens", "Maximum concurrency for 131,072 tokens per
  // request: 3.53x".
  CHECK(vllm_reproduces(granite_4_micro, {.context = 131'072}, 35.34,
                        {"GPU KV cache size: 463,136 tokens", "Maximum concurrency for 131,072 tokens per request: 3.53x"}));
}

TEST_CASE("vLLM A9: Qwen2.5-72B GPTQ on a 48 GB card (v0 budget line)", "[engines][vllm][gqa]") {
  // vllm-project/vllm#11230 (https://github.com/vllm-project/vllm/issues/11230): total 47.74 GiB,
  // peak_torch 40.87 GiB, non_torch 4.09 GiB, util 0.95 → "kv_cache_size=0.39GiB", "# GPU
  // blocks: 80", "Maximum concurrency for 8192 tokens per request: 0.16x", "(1280)" tokens.
  // v0 subtracts peak_torch (weights included) and non_torch: our weights = 40.87, overhead = 4.09.
  const model_spec& m = config("Qwen__Qwen2.5-72B.config.json");
  engine_options o{.context = 8'192, .vllm = {.gpu_memory_utilization = 0.95}};
  o.engine_overhead = bytes{static_cast<std::uint64_t>(4.09 * static_cast<double>(GiB.count()))};
  const bytes total{static_cast<std::uint64_t>(47.74 * static_cast<double>(GiB.count()))};
  const bytes weights{static_cast<std::uint64_t>(40.87 * static_cast<double>(GiB.count()))};
  const bytes budget = kvsize::engine_kv_budget(engine_kind::vllm, total, weights, o);
  CHECK(rounded(budget.in(GiB), 2) == 0.39);
  const auto c = kvsize::engine_capacity_for(m, engine_kind::vllm, o, budget);
  CHECK(c.num_blocks == 80);
  CHECK(c.max_tokens == 1'280);
  CHECK(rounded(c.max_concurrency, 2) == 0.16);
}

TEST_CASE("vLLM A10: gemma-3-1b, sliding-window groups and padding layers", "[engines][vllm][sliding]") {
  // A public README with a vLLM 0.13.0 log: "Available KV cache memory:
  // 25.39 GiB", "Add 2 padding layers, may waste at most 9.09% KV cache memory", "GPU KV cache
  // size: 950,864 tokens", "Maximum concurrency for 2,048 tokens per request: 461.21x".
  // 22 sliding + 4 full layers → groups of 4: 6 sliding groups (2 padding slots) + 1 full group.
  const engine_options o{.context = 2'048};
  const auto s = kvsize::size_cache(gemma3_1b, engine_kind::vllm, o);
  CHECK(s.vllm.kv_cache_groups == 7);
  CHECK(s.vllm.group_size == 4);
  CHECK(s.vllm.blocks_per_sequence == 128 + 6 * 129);  // full cdiv(2048,16); sliding cdiv(min(511+8192,2048),16)+1
  CHECK(vllm_reproduces(gemma3_1b, o, 25.39,
                        {"Add 2 padding layers, may waste at most 9.09% KV cache memory",
                         "GPU KV cache size: 950,864 tokens", "Maximum concurrency for 2,048 tokens per request: 461.21x"}));
}

TEST_CASE("vLLM A11: DeepSeek-V3.2 (latent, block 64) at TP 8 × PP 4", "[engines][vllm][latent]") {
  // vllm-project/vllm#31903 (https://github.com/vllm-project/vllm/issues/31903): "GPU KV cache
  // size: 1,214,464 tokens", "Maximum concurrency for 163,840 tokens per request: 7.41x". The
  // available memory is not in the excerpt: given 18,976 blocks (= 1,214,464 / 64). DeepSeek-R1's
  // config has V3.2's attention shape (61 layers, latent 512 + 64).
  const model_spec& m = config("deepseek-ai__DeepSeek-R1.config.json");
  const engine_options o{.context = 163'840, .tp = 8, .pp = 4};
  const auto s = kvsize::size_cache(m, engine_kind::vllm, o);
  CHECK(s.block_size == 64);
  CHECK(s.stage_layers == 16);  // 61 layers over 4 stages: 15, 15, 16, 15
  CHECK(s.kv_bytes_per_token == bytes{16 * 576 * 2});  // latent replicated on every TP rank
  const auto ls = lines(m, engine_kind::vllm, o, s.vllm.pool_block_bytes * 18'976);
  CHECK(has_line(ls, "GPU KV cache size: 1,214,464 tokens"));
  CHECK(has_line(ls, "Maximum concurrency for 163,840 tokens per request: 7.41x"));
}

TEST_CASE("vLLM A11 with DeepSeek-V3.2's own config: the indexer's key beside the latent", "[engines][vllm][latent]") {
  // vllm/model_executor/models/deepseek_v2.py: every layer's Indexer keeps a DeepseekV32IndexerCache of
  // head_dim index_head_dim + index_head_dim / 128 × 4 = 132 uint8 per token (an fp8 key and its float32
  // scale), an MLAAttentionSpec of its own: one type, two shapes, so one KV cache group whose block spans
  // both (the log's concurrency, 18,976 blocks / 2,560 per request = 7.41x, is that of one group).
  const model_spec& m = config("deepseek-ai__DeepSeek-V3.2.config.json");
  engine_options o{.context = 163'840, .tp = 8, .pp = 4};
  auto s = kvsize::size_cache(m, engine_kind::vllm, o);
  CHECK(s.block_size == 64);
  CHECK(s.vllm.kv_cache_groups == 1);
  CHECK(s.kv_bytes_per_token == bytes{16 * (576 * 2 + 132)});
  const auto ls = lines(m, engine_kind::vllm, o, s.vllm.pool_block_bytes * 18'976);
  CHECK(has_line(ls, "GPU KV cache size: 1,214,464 tokens"));
  CHECK(has_line(ls, "Maximum concurrency for 163,840 tokens per request: 7.41x"));
  // With the fp8_ds_mla latent (656 B: 512 fp8 + 4 float32 scales + 64 bf16 rope) the indexer stays 132 B.
  o.kv = kvsize::kv_dtypes::same(kvsize::dtype::fp8_e4m3);
  o.vllm.fp8_ds_mla = true;
  s = kvsize::size_cache(m, engine_kind::vllm, o);
  CHECK(s.kv_bytes_per_token == bytes{16 * (656 + 132)});
  // The whole model on one device: 61 × 1,284 = 78,324 B per token; SGLang's NSA pool adds the same
  // 132 B per layer (memory_pool.py NSATokenToKVPool.index_k_with_scale_buffer); exact keeps the
  // indexer key in the model dtype: 61 × (576 + 128) × 2 = 85,888.
  const engine_options one{.context = 4'096};
  CHECK(kvsize::size_cache(m, engine_kind::vllm, one).kv_bytes_per_token == bytes{61 * 1'284});
  CHECK(kvsize::size_cache(m, engine_kind::sglang, one).kv_bytes_per_token == bytes{61 * 1'284});
  CHECK(kvsize::size_cache(m, engine_kind::exact, one).kv_bytes_per_token == bytes{85'888});
  // GLM-5 (glm_moe_dsa), the same sparse attention in 78 layers.
  CHECK(kvsize::size_cache(config("zai-org__GLM-5.config.json"), engine_kind::vllm, one).kv_bytes_per_token ==
        bytes{78 * 1'284});
}

TEST_CASE("vLLM: a DSA model's fp8 latent, DeepSeek's fp8_ds_mla layout or a plain fp8 row, by release and device",
          "[engines][vllm][latent]") {
  // Per layer and token: fp8_ds_mla 656 B (512 fp8 NoPE + 4 float32 scales + 64 bf16 RoPE), plain fp8 576 B, and
  // the indexer's 132 B either way. The rule (engines/vllm_sparse_mla.hpp; vLLM's source at tags v0.17.1, v0.18.0,
  // v0.19.0): 0.11 – 0.17 DeepseekV32ForCausalLM's config hook converts any fp8 cache; from 0.18 the FLASHMLA_SPARSE
  // backend does, which is first on every device but SM100; on SM100 FLASHINFER_MLA_SPARSE (plain fp8) is first at
  // ≤ 16 heads a rank in 0.18 and for any fp8 cache from 0.19. DeepSeek-V3.2: 128 query heads, 61 layers.
  const model_spec& v32 = config("deepseek-ai__DeepSeek-V3.2.config.json");
  const model_spec& glm5 = config("zai-org__GLM-5.config.json");  // 64 query heads, 78 layers
  struct layout_case {
    std::uint32_t release, capability, tp;
    bool v32_checkpoint;
    std::uint64_t latent;  // bytes a token and layer, the indexer's 132 not included
  };
  const auto per_layer = [](const model_spec& m, const layout_case& c) {
    engine_options o{.context = 4'096, .tp = c.tp};
    o.kv = kvsize::kv_dtypes::same(kvsize::dtype::fp8_e4m3);
    o.vllm.release_minor = c.release;
    o.vllm.compute_capability = c.capability;
    o.vllm.deepseek_v32_checkpoint = c.v32_checkpoint;
    return kvsize::size_cache(m, engine_kind::vllm, o).kv_bytes_per_token.count() / m.layers - 132;
  };
  for (const layout_case& c : {layout_case{19, 0, 1, true, 656},     // no device: Hopper's rule
                               layout_case{19, 90, 8, true, 656},     // H100 / H200: FLASHMLA_SPARSE only
                               layout_case{19, 100, 1, true, 576},    // B200: FlashInfer first for fp8
                               layout_case{22, 100, 8, true, 576},
                               layout_case{18, 100, 8, true, 576},    // 16 heads a rank: FlashInfer first
                               layout_case{18, 100, 4, true, 656},    // 32: FlashMLA first
                               layout_case{17, 100, 8, true, 656},    // the config hook, before any backend
                               layout_case{11, 0, 1, true, 656}}) {
    INFO("0." << c.release << " sm" << c.capability << " tp " << c.tp << " v32 " << c.v32_checkpoint);
    CHECK(per_layer(v32, c) == c.latent);
  }
  CHECK(per_layer(glm5, {19, 90, 1, false, 0}) == 656);   // from 0.18 any DSA model
  CHECK(per_layer(glm5, {19, 100, 1, false, 0}) == 576);
  // 64 / 4 = 16 heads a rank: FlashInfer first, but its 0.18 supports_combination takes qk_nope_head_dim 128 only
  // (GLM-5's is 192; [128, 192] from 0.19): FLASHMLA_SPARSE's layout.
  CHECK(per_layer(glm5, {18, 100, 4, false, 0}) == 656);
  // What no backend serves is refused, with the reason (served_refusal, so size_cache and model_refusal agree):
  const auto refusal = [](const model_spec& m, engine_options o) {
    return std::string{kvsize::model_refusal(engine_kind::vllm, m, o)};
  };
  engine_options fp8{.context = 4'096};
  fp8.kv = kvsize::kv_dtypes::same(kvsize::dtype::fp8_e4m3);
  fp8.vllm.deepseek_v32_checkpoint = true;
  CHECK(refusal(v32, fp8).empty());
  auto e5m2 = fp8;  // neither sparse backend takes "fp8_e5m2" from 0.18 (0.17's hook converts it)
  e5m2.kv = kvsize::kv_dtypes::same(kvsize::dtype::fp8_e5m2);
  CHECK_THAT(refusal(v32, e5m2), Catch::Matchers::ContainsSubstring("not fp8_e5m2"));
  CHECK_THROWS(kvsize::size_cache(v32, engine_kind::vllm, e5m2));
  e5m2.vllm.release_minor = 17;
  CHECK(refusal(v32, e5m2).empty());
  auto glm_old = fp8;  // GLM-5's fp8 under 0.17: no hook, and no sparse backend takes "fp8"
  glm_old.vllm.deepseek_v32_checkpoint = false;
  glm_old.vllm.release_minor = 17;
  CHECK_THAT(refusal(glm5, glm_old), Catch::Matchers::ContainsSubstring("convert only DeepseekV32ForCausalLM"));
  auto a100 = fp8;  // compute capability 8.0: no sparse MLA backend, whatever the cache type
  a100.vllm.compute_capability = 80;
  a100.kv.reset();
  CHECK_THAT(refusal(v32, a100), Catch::Matchers::ContainsSubstring("need compute capability 9.x or 10.x"));
  auto rtx5090 = a100;
  rtx5090.vllm.compute_capability = 120;
  CHECK_FALSE(refusal(v32, rtx5090).empty());
  auto amd = fp8;  // ROCm's sparse backend: auto, float16, bfloat16
  amd.vllm.rocm = true;
  CHECK_THAT(refusal(v32, amd), Catch::Matchers::ContainsSubstring("rocm_aiter_mla_sparse"));
  amd.kv.reset();
  CHECK(refusal(v32, amd).empty());
  auto v010 = fp8;  // DeepseekV32ForCausalLM arrived in 0.11
  v010.vllm.release_minor = 10;
  CHECK_THAT(refusal(v32, v010), Catch::Matchers::ContainsSubstring("from 0.11"));
  amd.kv = kvsize::kv_dtypes::same(kvsize::dtype::fp8_e4m3);  // from 0.21 it keeps "fp8" / "fp8_e4m3", a plain row
  amd.vllm.release_minor = 21;
  CHECK(refusal(v32, amd).empty());
  CHECK(kvsize::size_cache(v32, engine_kind::vllm, amd).kv_bytes_per_token == bytes{61 * (576 + 132)});
  // A ModelOpt checkpoint's FP8 at auto reaches the backend as "fp8_e4m3": FLASHMLA_SPARSE (Hopper) refuses it,
  // FLASHINFER_MLA_SPARSE (SM100) keeps a plain row, and an unknown device takes SM100's rule; a typed fp8 is "fp8".
  engine_options declared{.context = 4'096};
  declared.checkpoint_kv = kvsize::checkpoint_kv_cache::modelopt_nvfp4_fp8;
  declared.vllm.deepseek_v32_checkpoint = true;
  CHECK(refusal(v32, declared).empty());
  CHECK(kvsize::size_cache(v32, engine_kind::vllm, declared).kv_bytes_per_token == bytes{61 * (576 + 132)});
  declared.vllm.compute_capability = 90;
  CHECK_THAT(refusal(v32, declared), Catch::Matchers::ContainsSubstring("not the fp8_e4m3"));
  declared.vllm.compute_capability = 100;
  CHECK(refusal(v32, declared).empty());
  CHECK(kvsize::size_cache(v32, engine_kind::vllm, declared).kv_bytes_per_token == bytes{61 * (576 + 132)});
  declared.vllm.compute_capability = 90;
  declared.kv = kvsize::kv_dtypes::same(kvsize::dtype::fp8_e4m3);  // the user typed fp8
  CHECK(kvsize::size_cache(v32, engine_kind::vllm, declared).kv_bytes_per_token == bytes{61 * (656 + 132)});
  declared.vllm.kv_cache_auto = true;  // ... or the command's resolved types: the checkpoint's name again
  CHECK_FALSE(refusal(v32, declared).empty());
  // A bf16 cache is never converted; an explicit backend decides (fp8_ds_mla set); DeepSeek-V3's MLA (no indexer)
  // (R1, V3's shape) keeps the dense backends' plain fp8 row.
  engine_options bf16{.context = 4'096};
  CHECK(kvsize::size_cache(v32, engine_kind::vllm, bf16).kv_bytes_per_token == bytes{61 * (1'152 + 132)});
  bf16.vllm.fp8_ds_mla = true;  // FLASHMLA_SPARSE rewrites only an fp8 cache (MLAAttention.__init__)
  CHECK(kvsize::size_cache(v32, engine_kind::vllm, bf16).kv_bytes_per_token == bytes{61 * (1'152 + 132)});
  engine_options forced{.context = 4'096};
  forced.kv = kvsize::kv_dtypes::same(kvsize::dtype::fp8_e4m3);
  forced.vllm.fp8_ds_mla = false;
  CHECK(kvsize::size_cache(v32, engine_kind::vllm, forced).kv_bytes_per_token == bytes{61 * (576 + 132)});
  forced.vllm.fp8_ds_mla = true;  // a sparse backend's layout needs a sparse model
  CHECK(kvsize::size_cache(config("deepseek-ai__DeepSeek-R1.config.json"), engine_kind::vllm, forced)
            .kv_bytes_per_token == bytes{61 * 576});
}

TEST_CASE("vLLM: sparse MLA backends by qk_nope_head_dim, model dtype and an explicit backend",
          "[engines][vllm][latent]") {
  // engines/vllm_sparse_mla.hpp sparse_mla_choice_of, from vLLM's source: FLASHINFER_MLA_SPARSE's
  // supports_combination takes qk_nope_head_dim 128 in 0.17 – 0.18 and [128, 192] from v0.19.0
  // (v1/attention/backends/mla/flashinfer_mla_sparse.py: "requires qk_nope_head_dim in [128, 192]");
  // FLASHMLA_SPARSE's supported_dtypes are bfloat16 only; FLASHINFER_MLA_SPARSE runs on 10.x only.
  using kvsize::engines::vllm::sparse_mla_case;
  using kvsize::engines::vllm::sparse_mla_choice_of;
  using kvsize::dtype;
  const auto at = [](std::uint32_t release, std::uint32_t capability) {
    engine_options o{.context = 4'096};
    o.vllm.release_minor = release;
    o.vllm.compute_capability = capability;
    return o;
  };
  const auto reason = [](const engine_options& o, const sparse_mla_case& c) {
    return std::string{sparse_mla_choice_of(o, c).refusal};
  };
  // GLM-5 (nope 192) served in float16 on a B200: only FlashInfer runs float16, and takes 192 from 0.19.
  const sparse_mla_case glm5_f16{.heads_per_rank = 64, .model = dtype::f16, .nope_head_dim = 192};
  CHECK_THAT(reason(at(18, 100), glm5_f16), Catch::Matchers::ContainsSubstring("192 (GLM-5's) from 0.19"));
  CHECK(reason(at(19, 100), glm5_f16).empty());
  // DeepSeek-V3.2's shape (nope 128) in float16: served from 0.17 on SM100, and on an unknown device (only
  // FlashInfer serves it, so SM100's rule), never on Hopper.
  const sparse_mla_case v32_f16{.heads_per_rank = 128, .model = dtype::f16, .nope_head_dim = 128};
  CHECK(reason(at(17, 100), v32_f16).empty());
  CHECK(reason(at(19, 0), v32_f16).empty());
  CHECK_THAT(reason(at(19, 90), v32_f16), Catch::Matchers::ContainsSubstring("--dtype bfloat16"));
  CHECK_FALSE(reason(at(16, 100), v32_f16).empty());
  // ... and its fp8 cache there is FlashInfer's plain row.
  auto v32_f16_fp8 = v32_f16;
  v32_f16_fp8.latent = dtype::fp8_e4m3;
  CHECK(reason(at(19, 0), v32_f16_fp8).empty());
  CHECK_FALSE(sparse_mla_choice_of(at(19, 0), v32_f16_fp8).fp8_ds_mla);
  // A nope dim FlashInfer never takes (64): SM100 falls back to FLASHMLA_SPARSE's fp8_ds_mla layout at 0.19.
  const sparse_mla_case nope_64{.heads_per_rank = 16, .latent = dtype::fp8_e4m3, .nope_head_dim = 64};
  CHECK(reason(at(19, 100), nope_64).empty());
  CHECK(sparse_mla_choice_of(at(19, 100), nope_64).fp8_ds_mla);
  // A checkpoint's fp8_e4m3 on Hopper: the refusal names FlashInfer's nope-dim rule where the model has 192.
  const sparse_mla_case glm5_ckpt{.heads_per_rank = 64, .latent = dtype::fp8_e4m3, .nope_head_dim = 192,
                                  .checkpoint_fp8 = true};
  CHECK_THAT(reason(at(18, 90), glm5_ckpt), Catch::Matchers::ContainsSubstring("only from 0.19"));
  CHECK_THAT(reason(at(19, 90), glm5_ckpt), Catch::Matchers::ContainsSubstring("--gpu b200"));
  // An explicit --attention-backend (vllm_knobs::fp8_ds_mla): FLASHMLA_SPARSE (true) runs bfloat16 models only and
  // takes "fp8", not a checkpoint's "fp8_e4m3"; FLASHINFER_MLA_SPARSE (false) keeps fp8 from 0.18 on 10.x only.
  auto flashmla = at(19, 100);
  flashmla.vllm.fp8_ds_mla = true;
  CHECK_THAT(reason(flashmla, v32_f16_fp8), Catch::Matchers::ContainsSubstring("bfloat16 model only"));
  auto v32_fp8 = v32_f16_fp8;
  v32_fp8.model = dtype::bf16;
  CHECK(reason(flashmla, v32_fp8).empty());
  CHECK(sparse_mla_choice_of(flashmla, v32_fp8).fp8_ds_mla);
  CHECK_THAT(reason(flashmla, glm5_ckpt), Catch::Matchers::ContainsSubstring("not the fp8_e4m3"));
  auto flashinfer = at(19, 90);
  flashinfer.vllm.fp8_ds_mla = false;
  CHECK_THAT(reason(flashinfer, v32_fp8), Catch::Matchers::ContainsSubstring("compute capability 10.x"));
  flashinfer.vllm.compute_capability = 100;
  CHECK(reason(flashinfer, v32_fp8).empty());
  CHECK_FALSE(sparse_mla_choice_of(flashinfer, v32_fp8).fp8_ds_mla);
  flashinfer.vllm.release_minor = 17;  // 0.17's FlashInfer backend keeps auto or bfloat16 caches only
  CHECK_FALSE(reason(flashinfer, v32_fp8).empty());
  auto e5m2 = v32_fp8;
  e5m2.latent = dtype::fp8_e5m2;
  CHECK_THAT(reason(flashmla, e5m2), Catch::Matchers::ContainsSubstring("not fp8_e5m2"));
  // The explicit backend's rules hold for a 16-bit cache too: FLASHMLA_SPARSE refuses a float16 model whatever the
  // cache, FLASHINFER_MLA_SPARSE refuses Hopper, a nope dim of 192 before 0.19, and releases before 0.17.
  CHECK_THAT(reason(flashmla, v32_f16), Catch::Matchers::ContainsSubstring("bfloat16 model only"));
  const sparse_mla_case v32_bf16{.heads_per_rank = 128, .nope_head_dim = 128};
  CHECK(reason(flashmla, v32_bf16).empty());
  CHECK_FALSE(sparse_mla_choice_of(flashmla, v32_bf16).fp8_ds_mla);
  auto flashinfer_16 = at(19, 90);
  flashinfer_16.vllm.fp8_ds_mla = false;
  CHECK_THAT(reason(flashinfer_16, v32_bf16), Catch::Matchers::ContainsSubstring("compute capability 10.x"));
  flashinfer_16.vllm.compute_capability = 100;
  CHECK(reason(flashinfer_16, v32_bf16).empty());
  CHECK(reason(flashinfer_16, glm5_f16).empty());
  flashinfer_16.vllm.release_minor = 18;
  CHECK_THAT(reason(flashinfer_16, glm5_f16), Catch::Matchers::ContainsSubstring("192 (GLM-5's) from 0.19"));
  flashinfer_16.vllm.release_minor = 16;
  CHECK_THAT(reason(flashinfer_16, v32_bf16), Catch::Matchers::ContainsSubstring("from 0.17"));
  // 0.17's FlashInfer backend keeps a 16-bit cache, not an fp8 one (the refusal says which).
  flashinfer_16.vllm.release_minor = 17;
  CHECK(reason(flashinfer_16, v32_bf16).empty());
  CHECK_THAT(reason(flashinfer_16, v32_fp8), Catch::Matchers::ContainsSubstring("0.17's takes auto or bfloat16"));
  // A float16 cache over a bfloat16 model (--kv-cache-dtype float16, 0.18 on): FLASHMLA_SPARSE's
  // supported_kv_cache_dtypes are auto, bfloat16, fp8_ds_mla and fp8 (flashmla_sparse.py at v0.18.0 – v0.22.0);
  // FLASHINFER_MLA_SPARSE's add float16 (flashinfer_mla_sparse.py), and ROCm's takes it.
  auto v32_f16_cache = v32_bf16;
  v32_f16_cache.latent = dtype::f16;
  CHECK_THAT(reason(at(19, 90), v32_f16_cache), Catch::Matchers::ContainsSubstring("not float16"));
  CHECK_THAT(reason(flashmla, v32_f16_cache), Catch::Matchers::ContainsSubstring("not float16"));
  CHECK(reason(at(19, 100), v32_f16_cache).empty());
  CHECK(reason(at(19, 0), v32_f16_cache).empty());  // an unknown device: only FlashInfer takes it, SM100's rule
  flashinfer_16.vllm.release_minor = 19;
  CHECK(reason(flashinfer_16, v32_f16_cache).empty());
  auto rocm = at(19, 0);
  rocm.vllm.rocm = true;
  CHECK(reason(rocm, v32_f16_cache).empty());
  auto glm5_f16_cache = v32_f16_cache;  // nope 192: FlashInfer only from 0.19
  glm5_f16_cache.nope_head_dim = 192;
  CHECK_THAT(reason(at(18, 100), glm5_f16_cache), Catch::Matchers::ContainsSubstring("not float16"));
  CHECK(reason(at(19, 100), glm5_f16_cache).empty());
}

TEST_CASE("vLLM A12: DeepSeek-R1-Distill-Qwen-14B on the CPU backend's 4 GiB", "[engines][vllm][gqa]") {
  // opea-project/GenAIExamples PR #1762 (https://github.com/opea-project/GenAIExamples/pull/1762):
  // "... the maximum number of tokens that can be stored in KV cache (21840)" with the default
  // VLLM_CPU_KVCACHE_SPACE of 4 GiB.
  const auto c = kvsize::engine_capacity_for(r1_distill_qwen_14b, engine_kind::vllm, {.context = 131'072}, 4_GiB);
  CHECK(c.num_blocks == 1'365);
  CHECK(c.max_tokens == 21'840);
}

TEST_CASE("vLLM A13: Qwen3-Next-80B hybrid (gated DeltaNet + attention) at TP 2", "[engines][vllm][hybrid]") {
  // A vLLM 0.10.2 log committed to a public repository: "Setting attention block size to 544
  // tokens ...", "Padding mamba page size by 1.49% ...", "Available KV cache memory: 44.59 GiB",
  // "GPU KV cache size: 973,760 tokens", "Maximum concurrency for 262,144 tokens per request:
  // 14.77x". Loaded from the Thinking variant's config (same architecture as Instruct).
  const model_spec& m = config("Qwen__Qwen3-Next-80B-A3B-Thinking.config.json");
  const engine_options o{.context = 262'144, .tp = 2};
  const auto s = kvsize::size_cache(m, engine_kind::vllm, o);
  CHECK(s.block_size == 544);
  CHECK(s.vllm.kv_cache_groups == 4);  // 12 attention layers: 1 group; 36 DeltaNet layers: 3 groups
  CHECK(s.vllm.blocks_per_sequence == 482 + 3);
  CHECK(vllm_reproduces(m, o, 44.59,
                        {"Setting attention block size to 544 tokens to ensure that attention page size is >= mamba "
                         "page size.",
                         "Padding mamba page size by 1.49% to ensure that mamba page size and attention page size are "
                         "exactly equal.",
                         "GPU KV cache size: 973,760 tokens",
                         "Maximum concurrency for 262,144 tokens per request: 14.77x"}));
}

TEST_CASE("vLLM: NemotronH keeps its SSM state in float32 (mamba_ssm_cache_dtype), its conv state in bf16",
          "[engines][vllm][hybrid]") {
  // vllm/model_executor/models/config.py NemotronHForCausalLMConfig.update_mamba_ssm_cache_dtype sets
  // mamba_ssm_cache_dtype from the config (0.13 to 0.19: float16 when absent); MambaStateDtypeCalculator keeps the
  // conv state in the model dtype. Hand-derived (no public log of these two yet):
  // Nemotron-3-Nano-30B-A3B: conv 3 × (64·64 + 2·8·128) = 18,432 bf16 = 36,864 B; SSM 64·64·128 =
  //   524,288 f32 = 2,097,152 B; page 2,134,016 B over attention's 2·2·128·2 = 1,024 B a token:
  //   cdiv(2,134,016, 1,024) = 2,084, rounded up to 16 → 2,096 tokens; padding 2,096·1,024 / 2,134,016 − 1
  //   = 0.58 %. (With a bf16 SSM state: 1,085,440 B → 1,072 tokens.)
  const model_spec& nano = config("nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.config.json");
  const engine_options o{.context = 4'096};
  const auto s = kvsize::size_cache(nano, engine_kind::vllm, o);
  CHECK(s.state.conv == dtype::bf16);
  CHECK(s.state.ssm == dtype::f32);
  CHECK(s.block_size == 2'096);
  const auto ls = lines(nano, engine_kind::vllm, o, 40_GiB);
  CHECK(has_line(ls, "Setting attention block size to 2096 tokens to ensure that attention page size is >= mamba "
                     "page size."));
  CHECK(has_line(ls, "Padding mamba page size by 0.58% to ensure that mamba page size and attention page size are "
                     "exactly equal."));
  // 24 layer slots (23 Mamba layers and 1 padding layer) of one 2,096 × 1,024 B page each.
  CHECK(s.state_bytes_per_sequence == 24 * 2'096 * 1'024_B);
  // --state-dtype bf16 (vLLM --mamba-cache-dtype / --mamba-ssm-cache-dtype bfloat16): releases
  // before vllm-project/vllm PR #29978 ignored the config key. vLLM v0.12.0 on one H100 at
  // max_model_len 262,144 (NVIDIA-NeMo/Nemotron usage-cookbook/Nemotron-3-Nano/vllm_cookbook.ipynb,
  // cell 9, https://github.com/NVIDIA-NeMo/Nemotron/blob/e27b37133d652f72dbf631ff8bb487df45f8f7d1/
  // usage-cookbook/Nemotron-3-Nano/vllm_cookbook.ipynb): "Setting attention block size to 1072
  // tokens", "Padding mamba page size by 1.13%", "Available KV cache memory: 7.37 GiB", "GPU KV
  // cache size: 257,280 tokens", "Maximum concurrency for 262,144 tokens per request: 4.82x".
  engine_options v0_12{.context = 262'144};
  v0_12.state_dtype = dtype::bf16;
  CHECK(kvsize::size_cache(nano, engine_kind::vllm, v0_12).block_size == 1'072);
  CHECK(vllm_reproduces(nano, v0_12, 7.37,
                        {"Setting attention block size to 1072 tokens to ensure that attention page size is >= "
                         "mamba page size.",
                         "Padding mamba page size by 1.13% to ensure that mamba page size and attention page size "
                         "are exactly equal.",
                         "GPU KV cache size: 257,280 tokens",
                         "Maximum concurrency for 262,144 tokens per request: 4.82x"}));
  // The same model under --engine-version 0.12 (before the hook): the state in the model dtype, as above.
  engine_options release_0_12{.context = 262'144};
  release_0_12.vllm.release_minor = 12;
  CHECK(kvsize::size_cache(nano, engine_kind::vllm, release_0_12).block_size == 1'072);
  CHECK(kvsize::size_cache(nano, engine_kind::vllm, release_0_12).state.ssm == dtype::bf16);
  CHECK(vllm_reproduces(nano, release_0_12, 7.37,
                        {"GPU KV cache size: 257,280 tokens",
                         "Maximum concurrency for 262,144 tokens per request: 4.82x"}));
  engine_options release_0_13 = release_0_12;  // the first release with the hook (PR #29978)
  release_0_13.vllm.release_minor = 13;
  CHECK(kvsize::size_cache(nano, engine_kind::vllm, release_0_13).state.ssm == dtype::f32);
  // Nemotron-H-56B (no mamba_ssm_cache_dtype key: float16 in 0.13 to 0.19, PR #29978's fallback; a
  // public 0.13.0 log prints "Updating mamba_ssm_cache_dtype to 'float16' for NemotronH model"):
  //   conv 3 × (16,384 + 2·8·256) = 61,440 bf16 = 122,880 B; SSM 256·64·256 = 4,194,304 f16 =
  //   8,388,608 B; 8,511,488 B over 2·8·128·2 = 4,096 B a token: 16 · cdiv(8,511,488, 16 · 4,096) =
  //   2,080 tokens; padding 8,192 / 8,511,488 = 0.10 %.
  const model_spec& h56 = config("nvidia__Nemotron-H-56B-Base-8K.config.json");
  CHECK(kvsize::size_cache(h56, engine_kind::vllm, o).state.ssm == dtype::f16);
  CHECK(kvsize::size_cache(h56, engine_kind::vllm, o).block_size == 2'080);
  // 0.20 (PR #39032, NemotronHForCausalLMConfig.DEFAULT_MAMBA_SSM_CACHE_DTYPE): float32 when the key is
  // absent: SSM 4,194,304 × 4 = 16,777,216 B; page 16,900,096 B → 16 · cdiv(16,900,096, 65,536) = 4,128
  // tokens. Nemotron-3-Nano names float32 itself: unchanged.
  engine_options release_0_20 = o;
  release_0_20.vllm.release_minor = 20;
  CHECK(kvsize::size_cache(h56, engine_kind::vllm, release_0_20).state.ssm == dtype::f32);
  CHECK(kvsize::size_cache(h56, engine_kind::vllm, release_0_20).block_size == 4'128);
  CHECK(kvsize::size_cache(nano, engine_kind::vllm, release_0_20).state.ssm == dtype::f32);
  CHECK(has_line(lines(h56, engine_kind::vllm, o, 40_GiB),
                 "Padding mamba page size by 0.10% to ensure that mamba page size and attention page size are "
                 "exactly equal."));
  // SGLang: conv bf16 (SGLANG_MAMBA_CONV_DTYPE), SSM float32 (its default; it reads mamba_ssm_dtype).
  const auto g = kvsize::size_cache(nano, engine_kind::sglang, o);
  CHECK(g.state.conv == dtype::bf16);
  CHECK(g.state.ssm == dtype::f32);
  // Qwen3.5 names its SSM dtype as mamba_ssm_dtype (float32 in every published config), which vLLM's
  // Qwen3_5ForConditionalGenerationConfig.verify_and_update_config copies into mamba_ssm_cache_dtype
  // (vllm/model_executor/models/config.py). Qwen3.5-35B-A3B: conv 3 × (2·16·128 + 32·128) = 24,576
  // bf16 = 49,152 B; SSM 32·128·128 = 524,288 f32 = 2,097,152 B; page 2,146,304 B over attention's
  // 2·256·2·2 = 2,048 B a token: cdiv = 1,048 → 1,056 tokens (a multiple of 16); 30 layers of one
  // 1,056 × 2,048 B page each. SGLang: the same dtypes, unpadded: 30 × 2,146,304 B.
  const model_spec& q35 = config("Qwen__Qwen3.5-35B-A3B.config.json");
  const auto v35 = kvsize::size_cache(q35, engine_kind::vllm, o);
  CHECK(v35.state.conv == dtype::bf16);
  CHECK(v35.state.ssm == dtype::f32);
  CHECK(v35.block_size == 1'056);
  CHECK(v35.state_bytes_per_sequence == 30 * 1'056 * 2'048_B);
  CHECK(kvsize::size_cache(q35, engine_kind::sglang, o).state_bytes_per_sequence == 30 * 2'146'304_B);
  // Qwen3-Next names none: vLLM keeps both states in the model dtype.
  const model_spec& next = config("Qwen__Qwen3-Next-80B-A3B-Thinking.config.json");
  CHECK(kvsize::size_cache(next, engine_kind::vllm, o).state.ssm == dtype::bf16);
}

TEST_CASE("vLLM A14: Mistral-Small-3.2-24B with --block-size 128", "[engines][vllm][gqa]") {
  // llm-d capacity planner validation (thread
  // https://github.com/llm-d-incubation/llm-d-planner/issues/194): "28.20 GiB / 184,832 tokens",
  // "1,444 total" blocks, "vLLM Actual 11.55x" at max-model-len 16000.
  const engine_options o{.context = 16'000, .block_size = 128};
  CHECK(some_budget_prints_as(28.20, 20_MiB, [&](bytes b) {
    const auto c = kvsize::engine_capacity_for(mistral_small_3_2, engine_kind::vllm, o, b);
    return c.num_blocks == 1'444 && c.max_tokens == 184'832 && rounded(c.max_concurrency, 2) == 11.55;
  }));
}

TEST_CASE("vLLM A15: the budget, util × total − weights − activations − non-torch", "[engines][vllm]") {
  // Same document as A14: H100 total 79.18 GiB. Llama-3.1-8B: weights 14.99, activation 4.76,
  // non-torch 0.13 → "51.38"; Qwen3-0.6B: 1.12 / 5.56 / 0.13 → "64.45"; Qwen3-32B TP 2:
  // 30.59 / 5.64 / 0.54 → "34.49"; Mistral-Small at util 0.95: 44.76 / 2.12 / 0.14 → "28.20".
  const auto gib = [](double v) { return bytes{static_cast<std::uint64_t>(std::llround(v * static_cast<double>(GiB.count())))}; };
  const auto budget = [&](double util, double weights, double act, double non_torch) {
    engine_options o{.vllm = {.gpu_memory_utilization = util}};
    o.engine_overhead = gib(act) + gib(non_torch);
    return rounded(kvsize::engine_kv_budget(engine_kind::vllm, gib(79.18), gib(weights), o).in(GiB), 2);
  };
  CHECK(budget(0.9, 14.99, 4.76, 0.13) == 51.38);
  CHECK(budget(0.9, 1.12, 5.56, 0.13) == 64.45);
  CHECK(budget(0.9, 30.59, 5.64, 0.54) == 34.49);
  CHECK(budget(0.95, 44.76, 2.12, 0.14) == 28.20);
}
