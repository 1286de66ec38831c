// SPDX-License-Identifier: MIT
// Compile-time facts of the engine profiles (compiling is passing): every figure below is a
// constant expression, computed without allocation.
#include <kvsize/engine.hpp>
#include <kvsize/presets.hpp>

using namespace kvsize::literals;
using kvsize::bytes;
using kvsize::engine_kind;
using kvsize::engine_options;

namespace {
constexpr kvsize::model_spec llama_8b = kvsize::presets::llama_3_8b;  // 32 layers, 8 KV heads, 128, bf16

// Names round-trip.
static_assert(kvsize::parse_engine("llama.cpp") == engine_kind::llama_cpp);
static_assert(kvsize::parse_engine("trtllm") == engine_kind::trtllm);
static_assert(!kvsize::parse_engine("ollama"));
// The other spellings each engine type lists (aliases), which --engine accepts after lowercasing.
static_assert(kvsize::parse_engine("llama_cpp") == engine_kind::llama_cpp);
static_assert(kvsize::parse_engine("tensorrt-llm") == engine_kind::trtllm);
static_assert(kvsize::parse_engine("hf") == engine_kind::transformers);
static_assert(kvsize::aliases(engine_kind::vllm).empty());
static_assert(!kvsize::parse_engine("HF"));  // exact: the CLI lowercases first
static_assert(kvsize::name(engine_kind::vllm) == "vllm");

// The same model, four per-token costs at TP 16 (> 8 KV heads): vLLM/SGLang replicate one head,
// TRT-LLM rounds up to one head, exact shards the bytes.
constexpr engine_options tp16{.tp = 16};
static_assert(kvsize::size_cache(llama_8b, engine_kind::vllm, tp16).kv_bytes_per_token == bytes{32 * 1 * 256 * 2});
static_assert(kvsize::size_cache(llama_8b, engine_kind::sglang, tp16).kv_bytes_per_token == bytes{32 * 1 * 256 * 2});
static_assert(kvsize::size_cache(llama_8b, engine_kind::trtllm, tp16).kv_bytes_per_token == bytes{32 * 1 * 256 * 2});
static_assert(kvsize::size_cache(llama_8b, engine_kind::exact, tp16).kv_bytes_per_token == 128_KiB / 16);

// vLLM rounds a sequence up to whole 16-token blocks; exact does not.
constexpr engine_options ctx_1000{.context = 1'000};
static_assert(kvsize::size_cache(llama_8b, engine_kind::vllm, ctx_1000).kv_bytes_per_sequence == 128_KiB * 1'008);
static_assert(kvsize::size_cache(llama_8b, engine_kind::exact, ctx_1000).kv_bytes_per_sequence == 128_KiB * 1'000);
// TRT-LLM: 32-token blocks.
static_assert(kvsize::size_cache(llama_8b, engine_kind::trtllm, ctx_1000).kv_bytes_per_sequence == 128_KiB * 1'024);
// llama.cpp pads n_ctx to 256 cells.
static_assert(kvsize::size_cache(llama_8b, engine_kind::llama_cpp, ctx_1000).kv_bytes == 128_KiB * 1'024);

// vLLM's capacity lines for a budget of exactly 1000 pool blocks (2 MiB each) at 2048 tokens.
constexpr auto vllm_capacity = kvsize::engine_capacity_for(llama_8b, engine_kind::vllm, {.context = 2'048}, 2_MiB * 1'000);
static_assert(vllm_capacity.num_blocks == 1'000);
static_assert(vllm_capacity.max_tokens == 16'000);
static_assert(vllm_capacity.max_concurrency == 1'000.0 / 128.0);

// A shared 1024-token prefix held once across 8 sequences saves 7 × 1024 tokens of KV.
constexpr engine_options shared{.context = 2'048, .batch = 8, .shared_prefix = 1'024};
static_assert(kvsize::size_cache(llama_8b, engine_kind::exact, shared).prefix_bytes_saved == 128_KiB * 7 * 1'024);
static_assert(kvsize::size_cache(llama_8b, engine_kind::vllm, shared).prefix_bytes_saved == 128_KiB * 7 * 1'024);

// SGLang's auto mem_fraction_static, 0.5.4.post1 – 0.5.9 (rule G): H100 (81,559 MiB) at TP 1 reserves
// 13,440 MiB → 0.835.
static_assert(kvsize::engines::sglang::auto_mem_fraction_static(kvsize::MiB * 81'559, 1, 1,
                                                                kvsize::engines::sglang::fraction_rule::v0_5) == 0.835);
// The rules of other releases on the same H100 (docs/research/sglang-fraction-history.md): E (0.4.7.post1 –
// 0.5.3rc1) at tp 8 reserves (9.5 + 4) GiB → 0.831; H (0.5.10+) adds the prefill graphs' 58 × 8 MiB at
// chunked 8192 → 0.830 at tp 1, 0.812 at tp 8, and 1.5 GiB for an MLA model → 0.799 at tp 8.
namespace sgl = kvsize::engines::sglang;
static_assert(sgl::auto_mem_fraction_static(kvsize::MiB * 81'559, 8, 1, sgl::fraction_rule::v0_4_7) == 0.831);
static_assert(sgl::auto_mem_fraction_static(kvsize::MiB * 81'559, 1, 1, sgl::fraction_rule::v0_5_10) == 0.830);
static_assert(sgl::auto_mem_fraction_static(kvsize::MiB * 81'559, 8, 1, sgl::fraction_rule::v0_5_10) == 0.812);
static_assert(sgl::auto_mem_fraction_static(kvsize::MiB * 81'559, 8, 1, sgl::fraction_rule::v0_5_10, true) == 0.799);
// The default (0.5.15+) is H with the graphs kept at pp > 1; 0.5.10 – 0.5.14 drop them there:
// tp 4 × pp 2 reserves 14,848 MiB (+ 464 at 0.5.15+) → 0.812 / 0.818.
static_assert(sgl::auto_mem_fraction_static(kvsize::MiB * 81'559, 1, 1) == 0.830);
static_assert(sgl::auto_mem_fraction_static(kvsize::MiB * 81'559, 4, 2) == 0.812);
static_assert(sgl::auto_mem_fraction_static(kvsize::MiB * 81'559, 4, 2, sgl::fraction_rule::v0_5_10) == 0.818);
// An MLA model without DSA: 0.5.15 – 0.5.17 turn its breakable prefill graphs off (14,848 MiB → 0.818); 0.5.18
// drops that rule (_disable_breakable_cudagraph_if_incompatible), so it reserves the 1.5 GiB again → 0.799.
static_assert(sgl::auto_mem_fraction_static(kvsize::MiB * 81'559, 8, 1, sgl::fraction_rule::v0_5_15, true, false, 0,
                                            sgl::release_0_5(17)) == 0.818);
static_assert(sgl::auto_mem_fraction_static(kvsize::MiB * 81'559, 8, 1, sgl::fraction_rule::v0_5_15, true, false, 0,
                                            sgl::release_0_5(18)) == 0.799);
// Python's round(x, 3) on the double's exact value: A100 40 GB (40,960 MiB) at tp 8 under rule E is
// 27,136 / 40,960 = 0.6625, stored just below, so SGLang gets 0.662 (x × 1000 + 0.5 would give 0.663).
static_assert(sgl::auto_mem_fraction_static(kvsize::MiB * 40'960, 8, 1, sgl::fraction_rule::v0_4_7) == 0.662);
// A vision model's factor (server_args.py adjust_mem_fraction_for_vlm), 0.95 · clamp(1 − 0.1 · (L·H² / (24·1024²) − 1),
// 0.8, 1.05), as Python computes it: Qwen3-VL (24, 1152) 0.9247656249999999, Qwen2.5-VL (24, 1280)
// 0.8965624999999999, Gemma 4 E2B (16, 768, clamped) 0.9974999999999999, CLIP ViT-L/14 (24, 1024) 0.95.
static_assert(sgl::vlm_fraction_factor({.multimodal = true, .layers = 24, .hidden = 1152}) == 0.9247656249999999);
static_assert(sgl::vlm_fraction_factor({.multimodal = true, .layers = 24, .hidden = 1280}) == 0.8965624999999999);
static_assert(sgl::vlm_fraction_factor({.multimodal = true, .layers = 16, .hidden = 768}) == 0.9974999999999999);
static_assert(sgl::vlm_fraction_factor({.multimodal = true, .layers = 24, .hidden = 1024}) == 0.95);
static_assert(sgl::vlm_fraction_factor({.multimodal = false, .layers = 24, .hidden = 1152}) == 1.0);
static_assert(sgl::python_round3(0.6625) == 0.662 && sgl::python_round3(0.8305) == 0.831);
static_assert(sgl::python_round3(0.0005) == 0.001 && sgl::python_round3(1.0) == 1.0);
static_assert(sgl::prefill_graph_sizes(2'048) == 42 && sgl::prefill_graph_sizes(4'096) == 50);
static_assert(sgl::prefill_graph_sizes(8'192) == 58 && sgl::prefill_graph_sizes(16'384) == 74);
// Releases: each range's rule, and the ones not modelled.
static_assert(sgl::rule_of(*sgl::parse_release("0.4.5.post2")) == sgl::fraction_rule::v0_4);
static_assert(!sgl::rule_of(*sgl::parse_release("0.4.5.post3")) && !sgl::rule_of(*sgl::parse_release("0.4.7")));
static_assert(sgl::rule_of(*sgl::parse_release("v0.4.7.post1")) == sgl::fraction_rule::v0_4_7);
static_assert(sgl::rule_of(*sgl::parse_release("0.5.3rc1")) == sgl::fraction_rule::v0_4_7);
static_assert(sgl::rule_of(*sgl::parse_release("0.5.3rc2")) == sgl::fraction_rule::v0_5_3);
static_assert(sgl::rule_of(*sgl::parse_release("0.5.4")) == sgl::fraction_rule::v0_5_3);
static_assert(sgl::rule_of(*sgl::parse_release("0.5.4.post1")) == sgl::fraction_rule::v0_5);
static_assert(sgl::rule_of(*sgl::parse_release("0.5.10rc0")) == sgl::fraction_rule::v0_5_10);
static_assert(sgl::rule_of(*sgl::parse_release("0.5.14.post1")) == sgl::fraction_rule::v0_5_10);
static_assert(sgl::rule_of(*sgl::parse_release("0.5.15rc0")) == sgl::fraction_rule::v0_5_15);
static_assert(sgl::rule_of(*sgl::parse_release("0.5.19")) == sgl::fraction_rule::v0_5_15);
static_assert(!sgl::rule_of(*sgl::parse_release("0.4.11")) && !sgl::parse_release("0.05.10"));
static_assert(!sgl::rule_of(*sgl::parse_release("0.5.20")) && !sgl::rule_of(*sgl::parse_release("0.3.6")));
static_assert(!sgl::parse_release("0.5") && !sgl::parse_release("0.5.10-rc1") && !sgl::parse_release("1.0.0"));
// Release order: rcN < the release < .postN; a rule alone stands for its newest release.
static_assert(sgl::at_least(*sgl::parse_release("0.5.3rc2"), sgl::release_0_5(3, 2)) &&
              !sgl::at_least(*sgl::parse_release("0.5.3rc1"), sgl::release_0_5(3, 2)));
static_assert(sgl::at_least(*sgl::parse_release("0.5.3.post1"), sgl::release_0_5(3)) &&
              !sgl::at_least(*sgl::parse_release("0.5.3"), *sgl::parse_release("0.5.3.post1")));
static_assert(sgl::at_least(*sgl::parse_release("0.5.10rc0"), sgl::release_0_5(9)) &&
              !sgl::at_least(*sgl::parse_release("0.4.10.post2"), sgl::release_0_5(0, 0)));
static_assert(sgl::rule_of(sgl::last_release_of(sgl::fraction_rule::v0_5)) == sgl::fraction_rule::v0_5 &&
              sgl::rule_of(sgl::last_release_of(sgl::fraction_rule::v0_4)) == sgl::fraction_rule::v0_4 &&
              sgl::rule_of(sgl::last_release_of(sgl::fraction_rule::v0_4_7)) == sgl::fraction_rule::v0_4_7);
// DeepSeek sparse attention's pool (engines/sglang_dsa.hpp): a 576-element latent, 1,152 B in bf16, 576 B in fp8.
namespace dsa {
using kvsize::dtype;
constexpr auto at(std::string_view release, std::uint32_t compute_capability, bool rocm = false) -> engine_options {
  engine_options o;
  o.sglang.version = *sgl::parse_release(release);
  o.sglang.release = *sgl::rule_of(*o.sglang.version);
  o.sglang.compute_capability = compute_capability;
  o.sglang.rocm = rocm;
  return o;
}
constexpr bytes fp8_row{576};
// Hopper, fp8_e4m3: DeepSeek's 656-byte rows at every release, counted at 576 until 0.5.17.
static_assert(sgl::dsa_pool_of(at("0.5.9", 90), dtype::fp8_e4m3, fp8_row).latent_row == bytes{656});
static_assert(sgl::dsa_pool_of(at("0.5.16", 90), dtype::fp8_e4m3, fp8_row).counted_row == fp8_row);
static_assert(sgl::dsa_pool_of(at("0.5.17", 90), dtype::fp8_e4m3, fp8_row).counted_row == bytes{656});
// B200: trtllm's plain rows from 0.5.10; fp8_e5m2 (allowed before 0.5.5) and MI300X's e4m3fnuz are plain.
static_assert(sgl::dsa_pool_of(at("0.5.9", 100), dtype::fp8_e4m3, fp8_row).latent_row == bytes{656});
static_assert(sgl::dsa_pool_of(at("0.5.10rc0", 100), dtype::fp8_e4m3, fp8_row).latent_row == fp8_row);
static_assert(sgl::dsa_pool_of(at("0.5.4", 90), dtype::fp8_e5m2, fp8_row).latent_row == fp8_row);
static_assert(sgl::dsa_pool_of(at("0.5.5", 0, true), dtype::fp8_e4m3, fp8_row).latent_row == fp8_row);
// The indexer counted from 0.5.3.post1; pages of 64, of 1 on HIP from 0.5.8.
static_assert(!sgl::dsa_pool_of(at("0.5.3", 90), dtype::bf16, bytes{1'152}).indexer_counted &&
              sgl::dsa_pool_of(at("0.5.3.post1", 90), dtype::bf16, bytes{1'152}).indexer_counted);
static_assert(sgl::dsa_pool_of(at("0.5.7", 0, true), dtype::bf16, bytes{1'152}).page_size == 64 &&
              sgl::dsa_pool_of(at("0.5.8", 0, true), dtype::bf16, bytes{1'152}).page_size == 1);
// The cache dtype: auto is bf16 on Hopper and fp8_e4m3 on 10+ from 0.5.4.post2; before, 10+ forces fp8_e4m3 over a
// named type and Hopper's auto is what other models get (here a checkpoint's FP8).
static_assert(sgl::dsa_cache_dtype(at("0.5.4.post1", 100), dtype::bf16, dtype::bf16) == dtype::fp8_e4m3 &&
              sgl::dsa_cache_dtype(at("0.5.4.post2", 100), dtype::bf16, dtype::bf16) == dtype::bf16);
static_assert(sgl::dsa_cache_dtype(at("0.5.5", 90), std::nullopt, dtype::fp8_e4m3) == dtype::bf16);
static_assert(sgl::dsa_cache_dtype(at("0.5.5", 100), std::nullopt, dtype::bf16) == dtype::fp8_e4m3);
static_assert(sgl::dsa_cache_dtype(at("0.5.5", 100), dtype::bf16, dtype::bf16) == dtype::bf16);
static_assert(sgl::dsa_cache_dtype(at("0.5.4", 100), dtype::bf16, dtype::bf16) == dtype::fp8_e4m3);
static_assert(sgl::dsa_cache_dtype(at("0.5.4", 90), std::nullopt, dtype::fp8_e4m3) == dtype::fp8_e4m3);
// Refused: before 0.5.3rc2; GLM-5 before 0.5.9; from 0.5.5 a type other than bf16 / fp8_e4m3.
static_assert(!sgl::dsa_refusal(at("0.5.3rc1", 90), std::nullopt).empty() &&
              sgl::dsa_refusal(at("0.5.3rc2", 90), std::nullopt).empty());
static_assert(sgl::dsa_refusal(at("0.5.4", 90), dtype::f16).empty() &&
              !sgl::dsa_refusal(at("0.5.5", 90), dtype::f16).empty());
constexpr auto glm_5(std::string_view release) -> engine_options {
  engine_options o = at(release, 90);
  o.glm_moe_dsa_checkpoint = true;
  return o;
}
static_assert(!sgl::dsa_refusal(glm_5("0.5.8"), std::nullopt).empty() &&
              sgl::dsa_refusal(glm_5("0.5.9"), std::nullopt).empty());
// GLM-5's fp8 on compute capability 12.x: trtllm's plain rows from 0.5.10, flashinfer_sparse_mla's 656 from 0.5.17.
constexpr auto glm_5_on(std::string_view release, std::uint32_t compute_capability) -> engine_options {
  engine_options o = glm_5(release);
  o.sglang.compute_capability = compute_capability;
  return o;
}
static_assert(sgl::dsa_pool_of(glm_5_on("0.5.16", 120), dtype::fp8_e4m3, fp8_row).latent_row == fp8_row &&
              sgl::dsa_pool_of(glm_5_on("0.5.17", 120), dtype::fp8_e4m3, fp8_row).latent_row == bytes{656} &&
              sgl::dsa_pool_of(glm_5_on("0.5.17", 100), dtype::fp8_e4m3, fp8_row).latent_row == fp8_row);
// mem_fraction_static 0.8 over a given value in 0.5.3rc2 – 0.5.3 for a DSA model.
constexpr auto sparse(std::string_view release, double fraction) -> engine_options {
  engine_options o = at(release, 90);
  o.sglang.sparse_index = true;
  o.sglang.mem_fraction_static = fraction;
  return o;
}
static_assert(sgl::mem_fraction_static(sparse("0.5.3", 0.9)) == 0.8 &&
              sgl::mem_fraction_static(sparse("0.5.3.post1", 0.9)) == 0.9);
}  // namespace dsa

// Budgets: vLLM takes a fraction of TOTAL memory, TRT-LLM of what is left after the weights.
constexpr engine_options defaults{};
static_assert(kvsize::engine_kv_budget(engine_kind::vllm, 80_GiB, 16_GiB, defaults) == 56_GiB);
static_assert(kvsize::engine_kv_budget(engine_kind::trtllm, 80_GiB, 16_GiB, defaults) ==
              bytes{static_cast<std::uint64_t>(static_cast<double>((64_GiB).count()) * 0.9)});
static_assert(kvsize::engine_kv_budget(engine_kind::llama_cpp, 80_GiB, 16_GiB, defaults) == 63_GiB);
}  // namespace
