// SPDX-License-Identifier: MIT
// kvsize/engines/vllm_prefix_caching.hpp: vLLM's prefix caching, and the Mamba cache mode it gives
// a model with recurrent layers, against a public log and vLLM's source
// (docs/research/vllm-mamba-cache-mode.md).
#include "engine_logs_support.hpp"  // Catch2, the kvsize headers, and the names the cases use

#include <catch2/matchers/catch_matchers_string.hpp>

using namespace kvsize::test::engine_logs;
namespace vllm = kvsize::engines::vllm;
using kvsize::vllm_prefix_caching;

TEST_CASE("vLLM --enable-prefix-caching: Qwen3.5's GDN groups hold two state pages (Mamba cache mode align)",
          "[engines][vllm][hybrid]") {
  // https://github.com/guardkit/guardkit/blob/fbd4f9935aea4590b018ef616c52d0d69f669233/docs/reviews/agentic-factory/qwen-run-2.md
  // vLLM 0.18.1rc1.dev147+g290809456 serving Qwen/Qwen3.5-35B-A3B-FP8 (the FP8 checkpoint of the bundled
  // config: kv_cache_dtype auto is bf16, the SSM state float32) on one GB10 with max_model_len 262,144 and
  // 'enable_prefix_caching': True in its non-default args, speculative_config=None. It logs "Mamba cache
  // mode is set to 'align' for Qwen3_5MoeForConditionalGeneration by default when prefix caching is
  // enabled" (vllm/model_executor/models/config.py MambaModelConfig.verify_and_update_config), then:
  //   "Setting attention block size to 1056 tokens ...", "Padding mamba page size by 0.76% ...",
  //   "Available KV cache memory: 55.72 GiB", "GPU KV cache size: 729,696 tokens",
  //   "Maximum concurrency for 262,144 tokens per request: 10.85x".
  // By hand: 10 attention and 30 GDN layers make 4 groups of 10; a request holds cdiv(262,144, 1,056)
  // = 249 attention blocks and, in mode align, 2 pages in each of the 3 GDN groups
  // (vllm/v1/kv_cache_interface.py MambaSpec.max_memory_usage_bytes): 255 blocks. 729,696 = 691 ×
  // 1,056 gives num_blocks 2,764 – 2,767, and 2,766 / 255 = 10.847 prints 10.85x; one page per group
  // (252 blocks) would print 10.98x.
  const model_spec& q35 = config("Qwen__Qwen3.5-35B-A3B.config.json");
  engine_options o{.context = 262'144};
  o.vllm.release_minor = 18;
  o.vllm.prefix_caching = vllm_prefix_caching::enabled;
  CHECK(vllm::mamba_cache_mode_of(q35, o) == vllm::mamba_cache_mode::align);
  const auto s = kvsize::size_cache(q35, engine_kind::vllm, o);
  CHECK(s.block_size == 1'056);
  CHECK(s.vllm.blocks_per_sequence == 249 + 3 * 2);
  CHECK(s.state_bytes_per_sequence == 30 * 2 * 1'056 * 2'048_B);  // 30 layer slots, 2 pages of 1,056 × 2,048 B
  CHECK(vllm_reproduces(q35, o, 55.72,
                        {"Setting attention block size to 1056 tokens to ensure that attention page size is >= mamba "
                         "page size.",
                         "Padding mamba page size by 0.76% to ensure that mamba page size and attention page size are "
                         "exactly equal.",
                         "GPU KV cache size: 729,696 tokens",
                         "Maximum concurrency for 262,144 tokens per request: 10.85x"}));

  // vLLM's default for a hybrid is no prefix caching: one page a group, and no budget that prints
  // 55.72 GiB gives the log's concurrency.
  engine_options plain = o;
  plain.vllm.prefix_caching = vllm_prefix_caching::automatic;
  CHECK(vllm::mamba_cache_mode_of(q35, plain) == vllm::mamba_cache_mode::none);
  CHECK(kvsize::size_cache(q35, engine_kind::vllm, plain).vllm.blocks_per_sequence == 252);
  CHECK_FALSE(vllm_reproduces(q35, plain, 55.72, {"Maximum concurrency for 262,144 tokens per request: 10.85x"}));

  // Before 0.15 (PR #30877) vLLM turned prefix caching off for models without
  // SupportsMambaPrefixCaching ("Hybrid or mamba-based model detected without support for prefix
  // caching: disabling."): one page, whatever the flag. Qwen3-Next (vLLM since 0.10.2; Qwen3.5 came in
  // 0.17): 48 layers, 12 attention + 36 GDN → 4 groups of 12 (1 attention + 3 GDN); its bf16 state,
  // 548,864 elements × 2 B = 1,097,728 B over 2 × 2 × 256 × 2 = 2,048 B a token, gives 544-token
  // blocks; cdiv(262,144, 544) = 482 attention blocks a request, and 1 or 2 pages in each GDN group.
  const model_spec& next = config("Qwen__Qwen3-Next-80B-A3B-Thinking.config.json");
  engine_options next_o = o;
  for (const std::uint32_t release : {14U, 15U}) {
    next_o.vllm.release_minor = release;
    CAPTURE(release);
    const auto sn = kvsize::size_cache(next, engine_kind::vllm, next_o);
    CHECK(sn.block_size == 544);
    CHECK(sn.vllm.blocks_per_sequence == 482 + 3 * (release >= 15 ? 2 : 1));
  }

  // Kimi-Linear's KDA layers and LFM2's short convolutions are no Mamba mixer either: align from 0.15.
  // LFM2-1.2B: 10 conv layers of (3 − 1) × 2,048 elements, bf16: 8,192 B each, twice over.
  CHECK(vllm::mamba_cache_mode_of(config("moonshotai__Kimi-Linear-48B-A3B-Instruct.config.json"), o) ==
        vllm::mamba_cache_mode::align);
  const model_spec& lfm2 = config("LiquidAI__LFM2-1.2B.config.json");
  CHECK(vllm::mamba_cache_mode_of(lfm2, o) == vllm::mamba_cache_mode::align);
  CHECK(kvsize::size_cache(lfm2, engine_kind::vllm, o).vllm.state_pages == 2);
}

TEST_CASE("vLLM --enable-prefix-caching: a state per block for Mamba mixers is refused, not sized",
          "[engines][vllm][hybrid]") {
  // NemotronH (Mamba2) and Jamba (Mamba1) declare SupportsMambaPrefixCaching: with the flag vLLM 0.15+
  // keeps a state per block ("all", chunk-aligned blocks), 0.11 – 0.14 did the same without the name;
  // 0.10 turned prefix caching off for every hybrid.
  const model_spec& nano = config("nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.config.json");
  const model_spec& jamba = config("ai21labs__Jamba-v0.1.config.json");
  engine_options o{.context = 8'192};
  o.vllm.prefix_caching = vllm_prefix_caching::enabled;
  for (const model_spec* m : {&nano, &jamba}) {
    CHECK(vllm::mamba_cache_mode_of(*m, o) == vllm::mamba_cache_mode::all);
    CHECK_FALSE(vllm::mamba_cache_refusal(*m, o).empty());
    CHECK_THROWS_AS(kvsize::size_cache(*m, engine_kind::vllm, o), kvsize::invalid_argument);
  }
  engine_options release_o = o;
  for (const std::uint32_t release : {11U, 14U, 15U, 19U}) {
    release_o.vllm.release_minor = release;
    CAPTURE(release);
    CHECK_THROWS_AS(kvsize::size_cache(nano, engine_kind::vllm, release_o), kvsize::invalid_argument);
  }
  release_o.vllm.release_minor = 10;
  CHECK(vllm::mamba_cache_refusal(nano, release_o).empty());
  CHECK(kvsize::size_cache(nano, engine_kind::vllm, release_o).vllm.state_pages == 1);
  // A state whose mixer is not known (a GGUF input: no mixer kind) could be either rule: refused from
  // 0.11, never guessed.
  model_spec unknown = nano;
  unknown.weights.recurrent.kind = kvsize::recurrent_kind::none;
  for (const std::uint32_t release : {11U, 14U, 15U, 19U}) {
    release_o.vllm.release_minor = release;
    CAPTURE(release);
    CHECK(vllm::mamba_cache_mode_of(unknown, release_o) == vllm::mamba_cache_mode::unknown);
    CHECK_THAT(std::string{vllm::mamba_cache_refusal(unknown, release_o)},
               Catch::Matchers::ContainsSubstring("recurrent mixer is not known"));
  }
  release_o.vllm.release_minor = 10;
  CHECK(vllm::mamba_cache_mode_of(unknown, release_o) == vllm::mamba_cache_mode::none);
  // Without the flag, or with --no-enable-prefix-caching: one state a request.
  for (const vllm_prefix_caching pc : {vllm_prefix_caching::automatic, vllm_prefix_caching::disabled}) {
    engine_options off = o;
    off.vllm.prefix_caching = pc;
    CHECK(kvsize::size_cache(nano, engine_kind::vllm, off).vllm.state_pages == 1);
  }
}

TEST_CASE("vLLM --no-enable-prefix-caching: a shared prefix is stored by every request",
          "[engines][vllm]") {
  // Llama-3.1-8B, 8 requests of 4,096 tokens sharing 2,048: with prefix caching (vLLM's default for
  // an attention-only model) the prefix's 128 blocks of 16 tokens are stored once; without it, by each.
  const model_spec& llama = config("meta-llama__Llama-3.1-8B.config.json");
  engine_options o{.context = 4'096, .batch = 8, .shared_prefix = 2'048};
  const auto shared = kvsize::size_cache(llama, engine_kind::vllm, o);
  CHECK(shared.prefix_bytes_per_sequence == shared.vllm.pool_block_bytes * 128);
  CHECK(shared.prefix_bytes_saved == shared.prefix_bytes_per_sequence * 7);
  o.vllm.prefix_caching = vllm_prefix_caching::disabled;
  const auto apart = kvsize::size_cache(llama, engine_kind::vllm, o);
  CHECK(apart.prefix_bytes_saved == 0_B);
  CHECK(apart.kv_bytes == shared.kv_bytes);  // what each request reserves does not change
  CHECK(vllm::mamba_cache_mode_of(llama, o) == vllm::mamba_cache_mode::none);
}
