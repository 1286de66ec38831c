// SPDX-License-Identifier: MIT
// The planner (kvsize/planner.hpp) and the workspace terms (kvsize/workspace.hpp): hand-derived
// cases, the lessons' capacity questions among them, then properties over every config in configs/.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <kvsize/hf_config.hpp>
#include <kvsize/kvsize.hpp>
#include <kvsize/planner.hpp>

using namespace kvsize::literals;
using Catch::Matchers::WithinRel;
using kvsize::bytes;
using kvsize::dtype;
using kvsize::engine_kind;
namespace presets = kvsize::presets;

namespace {

// Qwen2.5-1.5B in bf16: 1,543,714,304 parameters × 2 B (lesson 000 §6: "3.087 GB").
constexpr bytes qwen_1_5b_weights{3'087'428'608};
// Qwen2.5-7B in bf16: 7,615,616,512 × 2 B (lesson 000 §6: "about 15.2 GB").
constexpr bytes qwen_7b_weights{15'231'233'024};
// Llama-3-8B: 8,030,261,248 parameters; 4-bit as 0.5 B each, or GGUF q4_0 as 18 B per 32.
constexpr bytes llama_int4_weights{4'015'130'624};
constexpr bytes llama_q4_0_weights{4'517'021'952};

constexpr auto inputs(bytes weights, bytes memory, engine_kind e, std::uint64_t context, std::uint64_t users)
    -> kvsize::plan_inputs {
  kvsize::plan_inputs in{};
  in.weights = weights;
  in.device_memory = memory;
  in.engine = e;
  in.options.context = context;
  in.options.batch = users;
  return in;
}

}  // namespace

TEST_CASE("planner: the lesson's RTX 3060, Qwen2.5-1.5B, 160 users at 2,048 tokens", "[planner][lessons]") {
  constexpr auto m = presets::qwen2_5_1_5b;
  // Lesson 000 §6: "The RTX 3060 has 12.49 GB": 12,490,000,000 B. Engine exact: no workspace.
  // KV budget 12,490,000,000 − 3,087,428,608 = 9,402,571,392 B; one user at 2,048 tokens:
  // 2,048 × 28,672 = 58,720,256 B; 9,402,571,392 / 58,720,256 = 160.12 → 160 users.
  constexpr auto in = inputs(qwen_1_5b_weights, 12'490_MB, engine_kind::exact, 2'048, 160);
  // Every figure is a constant expression (the point, and a search over users); the whole plan runs
  // dozens of such searches, beyond Clang's default constexpr step limit, so it is checked at run time.
  constexpr auto point = kvsize::plan_at(m, in, 2'048, 160, 1);
  STATIC_REQUIRE(point.fits());
  STATIC_REQUIRE(point.kv == bytes{9'395'240'960});  // 160 × 58,720,256
  STATIC_REQUIRE(point.free() == bytes{7'330'432});  // 9,402,571,392 − 9,395,240,960
  STATIC_REQUIRE(point.workspace.total() == bytes{0});
  STATIC_REQUIRE(point.reserve == bytes{0});
  STATIC_REQUIRE(kvsize::plan_max_users(m, in, 2'048, 1) == 160);
  // One more user does not fit: 161 × 58,720,256 = 9,453,961,216 > 9,402,571,392.
  STATIC_REQUIRE(!kvsize::plan_at(m, in, 2'048, 161, 1).fits());
  STATIC_REQUIRE(kvsize::plan_at(m, in, 2'048, 161, 1).limited_by == kvsize::plan_limit::memory);
  const auto p = kvsize::plan(m, in);
  CHECK(p.point.fits());
  CHECK(p.max_users == 160);
  // Max context for 160 users: ⌊9,402,571,392 / 160 / 28,672⌋ = ⌊2,049.6⌋ = 2,049 (the CLI test's figure).
  CHECK(p.max_context == 2'049);
  CHECK(p.min_tp == 1);
  // An 8-bit cache halves the 28,672 B per token: ⌊9,402,571,392 / 29,360,128⌋ = 320 users; ⌊… / 160 /
  // 14,336⌋ = 4,099 tokens. A 4-bit cache (int4, no scales): ⌊9,402,571,392 / 14,680,064⌋ = 640.
  CHECK((p.kv_8bit.available && p.kv_8bit.kv.k == dtype::fp8_e4m3));
  CHECK(p.kv_8bit.max_users == 320);
  CHECK(p.kv_8bit.max_context == 4'099);
  CHECK((p.kv_4bit.available && p.kv_4bit.kv.k == dtype::int4));
  CHECK(p.kv_4bit.max_users == 640);
  // Decode: every weight and every user's KV once per step: 3,087,428,608 + 9,395,240,960 B.
  CHECK(p.decode.traffic.total() == bytes{12'482'669'568});
  CHECK(p.decode.seconds_per_token == 0);  // no bandwidth given

  SECTION("KV is one ceiling among several: the last position's logits cost one user") {
    // Lesson 000 §4: 151,936 × 2 B = 303,872 B of logits per position. Keeping the last position of
    // each user: 58,720,256 + 303,872 = 59,024,128 B per user; ⌊9,402,571,392 / 59,024,128⌋ = 159.
    auto with_logits = in;
    with_logits.workspace.logits_positions = kvsize::logits_kept::last;
    const auto q = kvsize::plan(m, with_logits);
    CHECK(q.point.workspace.logits == bytes{160ULL * 303'872});
    CHECK_FALSE(q.point.fits());
    CHECK(q.max_users == 159);
    CHECK(kvsize::plan_at(m, with_logits, 2'048, 159, 1).fits());
    // In float32 the same rows cost twice: 58,720,256 + 607,744 = 59,328,000 → ⌊158.5⌋ = 158.
    with_logits.workspace.logits_float32 = true;
    CHECK(kvsize::plan(m, with_logits).max_users == 158);
  }
  SECTION("the catalog's RTX 3060 is 12 GiB, not 12.49 GB") {
    // 12,884,901,888 − 3,087,428,608 = 9,797,473,280; / 58,720,256 = 166.85 → 166 users.
    auto catalog = in;
    catalog.device_memory = kvsize::gpu("rtx-3060").memory;
    catalog.bandwidth = kvsize::gpu("rtx-3060").bandwidth;
    const auto q = kvsize::plan(m, catalog);
    CHECK(q.max_users == 166);
    // At 360 GB/s a step of 12,482,669,568 B takes at least 34.67 ms.
    CHECK_THAT(q.decode.seconds_per_token, WithinRel(12'482'669'568.0 / 360e9, 1e-12));
    CHECK_THAT(q.decode.traffic.kv_share(), WithinRel(9'395'240'960.0 / 12'482'669'568.0, 1e-12));
  }
  SECTION("a runtime reserve comes off the budget") {
    // --reserve 512MiB: 9,402,571,392 − 536,870,912 = 8,865,700,480; / 58,720,256 = 150.98 → 150.
    auto reserved = in;
    reserved.workspace.runtime = 512_MiB;
    CHECK(kvsize::plan(m, reserved).max_users == 150);
  }
}

TEST_CASE("planner: the 7B at 16,000 tokens on a 24 GB GPU (lesson 000 self-check)", "[planner][lessons]") {
  constexpr auto m = presets::qwen2_5_7b;
  // 56 KiB per token × 16,000 = 917,504,000 B per user; weights 15,231,233,024 B.
  // "24 GB" = 24 × 10^9: (24,000,000,000 − 15,231,233,024) / 917,504,000 = 9.56 → 9 users.
  const auto si = kvsize::plan(m, inputs(qwen_7b_weights, 24_GB, engine_kind::exact, 16'000, 9));
  CHECK(si.point.fits());
  CHECK(si.max_users == 9);
  // "24 GB" that is 24 GiB: (25,769,803,776 − 15,231,233,024) / 917,504,000 = 11.49 → 11 users.
  const auto iec = kvsize::plan(m, inputs(qwen_7b_weights, 24_GiB, engine_kind::exact, 16'000, 9));
  CHECK(iec.max_users == 11);
  // Ten users at 24 × 10^9 do not fit. Shorter context: ⌊8,768,766,976 / 10 / 57,344⌋ = 15,291 tokens.
  // tp 2 halves the weights per device (7,615,616,512 B) and the KV per token (28,672 B):
  // ⌊(24e9 − 7,615,616,512) / (16,000 × 28,672)⌋ = ⌊35.7⌋ ≥ 10, so the smallest degree is 2.
  const auto ten = kvsize::plan(m, inputs(qwen_7b_weights, 24_GB, engine_kind::exact, 16'000, 10));
  CHECK_FALSE(ten.point.fits());
  CHECK(ten.point.limited_by == kvsize::plan_limit::memory);
  CHECK(ten.max_context == 15'291);
  CHECK(ten.min_tp == 2);
  CHECK(kvsize::plan_at(m, inputs(qwen_7b_weights, 24_GB, engine_kind::exact, 16'000, 10), 16'000, 35, 2).fits());
  CHECK_FALSE(kvsize::plan_at(m, inputs(qwen_7b_weights, 24_GB, engine_kind::exact, 16'000, 10), 16'000, 36, 2).fits());
  // "What else do you need to check": the logits of one naive 16,000-token prefill,
  // 16,000 × 152,064 × 2 = 4,866,048,000 B, leave (8,768,766,976 − 4,866,048,000) / 917,504,000 = 4.25 → 4.
  auto naive = inputs(qwen_7b_weights, 24_GB, engine_kind::exact, 16'000, 9);
  naive.workspace.logits = kvsize::logits_bytes_prefill(m, 16'000);
  CHECK(kvsize::plan(m, naive).max_users == 4);
  // On the 12.49 GB RTX 3060 the weights alone do not fit (lesson 000 §6).
  const auto small = kvsize::plan(m, inputs(qwen_7b_weights, 12'490_MB, engine_kind::exact, 2'048, 1));
  CHECK(small.point.limited_by == kvsize::plan_limit::weights);
  CHECK(small.max_users == 0);
  CHECK(small.max_context == 0);
  CHECK(small.min_tp == 2);  // 7,615,616,512 B of weights per device leave room for one user
}

TEST_CASE("planner: Llama-3-8B with 4-bit weights, 8,000-token requests on 24 GB (lesson 004)", "[planner][lessons]") {
  constexpr auto m = presets::llama_3_8b;
  // 131,072 B per token × 8,000 = 1,048,576,000 B per request.
  // int4 weights: ⌊(24e9 − 4,015,130,624) / 1,048,576,000⌋ = ⌊19.06⌋ = 19.
  CHECK(kvsize::plan(m, inputs(llama_int4_weights, 24_GB, engine_kind::exact, 8'000, 1)).max_users == 19);
  // q4_0 weights: ⌊(24e9 − 4,517,021,952) / 1,048,576,000⌋ = ⌊18.58⌋ = 18; with the 8-bit KV option
  // (fp8: 524,288,000 B per request) ⌊19,482,978,048 / 524,288,000⌋ = 37; 4-bit (int4) ⌊74.3⌋ = 74.
  const auto p = kvsize::plan(m, inputs(llama_q4_0_weights, 24_GB, engine_kind::exact, 8'000, 20));
  CHECK(p.max_users == 18);
  CHECK_FALSE(p.point.fits());
  CHECK(p.kv_8bit.max_users == 37);
  CHECK(p.kv_8bit.fits);
  CHECK(p.kv_4bit.max_users == 74);

  SECTION("the same on llama.cpp: slots of 8,192 cells, the compute buffer, the --fit margin") {
    // -np u -c 8,000·u: n_ctx_seq = pad256(8,000) = 8,192 cells per slot.
    // The compute buffer (float32; engines/llama_cpp_compute.hpp), the largest of its three peaks for a
    // 512-token ubatch over 16 streams (a mask of 8,192 cells × pad64(512 / 16) = 64 rows per stream:
    // 8,192 × 64 × 16 × 4 = 33,554,432 B, and its f16 cast 16,777,216 B):
    //   output     512 × (128,256 + 4,096) × 4 = 271,056,896 B   ← the peak
    //   attention  512 × (2·4,096 + 32·256) × 4 + mask + cast = 33,554,432 + 50,331,648 = 83,886,080 B
    //   MLP        512 × (2·4,096 + 3·14,336) × 4 + mask = 104,857,600 + 33,554,432 = 138,412,032 B
    // Budget: 24e9 − 4,517,021,952 − 271,056,896 − 1 GiB = 18,138,179,328 B.
    // f16: 8,192 × 131,072 = 1,073,741,824 B per slot → ⌊16.9⌋ = 16; q8_0 (34 B per 32): 8,192 × 69,632
    // → ⌊31.8⌋ = 31; q4_0 (18 B per 32): 8,192 × 36,864 → ⌊60.06⌋ = 60 (at 60 slots the mask is
    // 8,192 × 64 × 60 × 4 B = 125,829,120 B and the MLP peak 230,686,720 B: the output still rules).
    const auto l = kvsize::plan(m, inputs(llama_q4_0_weights, 24_GB, engine_kind::llama_cpp, 8'000, 16));
    CHECK(l.point.workspace.logits == bytes{271'056'896});
    CHECK(l.point.workspace.activations == bytes{138'412'032});
    CHECK(l.point.workspace.total() == bytes{271'056'896});
    CHECK(l.point.kv_budget == bytes{18'138'179'328});
    CHECK(l.point.reserve == 1_GiB);
    CHECK(l.point.kv == bytes{16ULL * 1'073'741'824});
    CHECK(l.point.fits());
    CHECK(l.max_users == 16);
    CHECK(l.kv_8bit.kv.k == dtype::q8_0);
    CHECK(l.kv_8bit.max_users == 31);
    CHECK(l.kv_4bit.kv.k == dtype::q4_0);
    CHECK(l.kv_4bit.max_users == 60);
  }
}

TEST_CASE("workspace: the engines' defaults, hand-derived", "[planner][workspace]") {
  constexpr auto m = presets::qwen2_5_1_5b;  // hidden 1,536, intermediate 8,960, 12 heads, 2 KV heads
  // One layer's peak per token: attention 3·1,536 + 12·256 + 2·256 = 8,192; MLP 3·1,536 + 3·8,960 = 31,488.
  STATIC_REQUIRE(kvsize::activation_peak_elements(m) == 31'488);
  // tp 2: MLP 3·1,536 + 3·4,480 = 18,048.
  STATIC_REQUIRE(kvsize::activation_peak_elements(m, 2) == 18'048);
  // The widest layer's query heads set the attention phase (layer_weights::query_heads, as Step-3.5's sliding
  // layers): with a narrow MLP (intermediate 1,024: 3·1,536 + 3·1,024 = 7,680), 12 heads give 8,192 and a layer
  // of 24 heads 3·1,536 + 24·256 + 2·256 = 11,264.
  constexpr auto widened = [] {
    auto w = presets::qwen2_5_1_5b;
    w.intermediate_size = 1'024;
    w.weights.layer[3].query_heads = 24;
    return w;
  }();
  STATIC_REQUIRE(kvsize::widest_query_heads(widened) == 24);
  STATIC_REQUIRE(kvsize::activation_peak_elements(widened) == 11'264);
  kvsize::engine_options o{};
  o.context = 2'048;
  o.batch = 160;
  o.device_memory = kvsize::gpu("rtx-3060").memory;  // < 70 GiB: vLLM's max_num_seqs is 256
  // vLLM 0.19 on a device under 70 GiB: max_num_seqs 256, max_num_batched_tokens 2,048
  // (vllm_startup.hpp). 256 rows of bf16 logits (77,791,232 B); the sampler warm-up's 12 B per
  // element of 256 × 151,936 (466,747,392 B) beside the kept (2,048 + 2·256) × 1,536 bf16 hidden
  // states (7,864,320 B) and the Triton scratch of min(256, 132) rows in float32 (80,222,208 B); a
  // forward pass of 2,048 tokens: 2,048 × 31,488 × 2 = 128,974,848 B; no runtime term; non-torch
  // 144 MiB at tp 1; the rotary cache 131,072 × 128 × 2 B loaded with the weights.
  constexpr auto vllm = engine_kind::vllm;
  const auto v = kvsize::engine_workspace(m, vllm, o);
  CHECK(v.logits == bytes{77'791'232});
  CHECK(v.sampler == bytes{466'747'392 + 7'864'320 + 80'222'208});
  CHECK(v.activations == bytes{128'974'848});
  CHECK(v.runtime == bytes{0});
  CHECK(v.non_torch == 144_MiB);
  CHECK(v.buffers == bytes{33'554'432});
  CHECK(v.phased);
  CHECK(v.total() == v.logits + v.sampler + 144_MiB + bytes{33'554'432});  // the sampler phase is the peak
  // transformers: every position of every sequence, 160 × 2,048 × 303,872 B, and the prompt of all
  // 160 sequences in one pass.
  const auto t = kvsize::engine_workspace(m, engine_kind::transformers, o);
  CHECK(t.logits_positions == kvsize::logits_kept::all);
  CHECK(t.logits == bytes{160ULL * 2'048 * 303'872});
  CHECK(t.activations == bytes{160ULL * 2'048 * 31'488 * 2});
  CHECK(t.sampler == bytes{160ULL * 151'936 * 4});
  // exact: nothing outside its rule.
  // SGLang: only the memory in use before its weights load (the CUDA context, NCCL), 615 MiB at tp 1.
  CHECK(kvsize::engine_workspace(m, engine_kind::sglang, o).total() == 615_MiB);
  CHECK(kvsize::engine_workspace(m, engine_kind::exact, o).total() == bytes{0});
  // Every term can be replaced.
  kvsize::workspace_overrides w{};
  w.logits = 1_MiB;
  w.activations = 2_MiB;
  w.sampler = 3_MiB;
  w.runtime = 4_MiB;
  // vLLM's peak is the larger phase: max(2, 1 + 3) MiB; then the runtime, non-torch and buffers.
  CHECK(kvsize::engine_workspace(m, vllm, o, w).total() == 8_MiB + v.non_torch + v.buffers);
  CHECK(kvsize::engine_workspace(m, engine_kind::trtllm, o, w).total() == 10_MiB);  // summed
  w = {};
  w.activation_tokens = 1'024;
  w.logits_positions = kvsize::logits_kept::none;
  w.sampler_rows = 1;
  const auto r = kvsize::engine_workspace(m, vllm, o, w);
  CHECK(r.activations == bytes{1'024ULL * 31'488 * 2});
  CHECK(r.logits == bytes{0});
  CHECK(r.sampler == v.sampler - bytes{255ULL * 151'936 * 12});  // one row instead of 256
}

TEST_CASE("planner: vLLM's scheduler cap is a ceiling of its own", "[planner][engines]") {
  // Qwen2.5-0.5B (12 KiB per token) on an H100: memory for thousands of 1,024-token users, but
  // max_num_seqs is 1,024 on a ≥ 70 GiB device.
  constexpr auto m = presets::qwen2_5_0_5b;
  auto in = inputs(bytes{988'000'000}, kvsize::gpu("h100-80gb").memory, engine_kind::vllm, 1'024, 2'000);
  const auto p = kvsize::plan(m, in);
  CHECK(p.point.limited_by == kvsize::plan_limit::slots);
  CHECK(p.point.slot_cap == 1'024);
  CHECK(p.max_users == 1'024);
  in.options.vllm.max_num_seqs = 4'096;
  CHECK(kvsize::plan(m, in).point.fits());
}

TEST_CASE("planner: prefix sharing holds the prefix once", "[planner][engines]") {
  // Exact engine, Qwen2.5-1.5B, 12.49 GB, 2,048 tokens of which 1,024 are shared by every user:
  // budget ≥ prefix + n × (per user − prefix): n ≤ (9,402,571,392 − 29,360,128) / (58,720,256 − 29,360,128)
  // = 319.25 → 319 users (160 without sharing). 200 users save 199 × 29,360,128 = 5,842,665,472 B.
  auto in = inputs(qwen_1_5b_weights, 12'490_MB, engine_kind::exact, 2'048, 200);
  in.options.shared_prefix = 1'024;
  const auto p = kvsize::plan(presets::qwen2_5_1_5b, in);
  CHECK(p.max_users == 160);
  CHECK(p.prefix.shared_prefix == 1'024);
  CHECK(p.prefix.max_users == 319);
  CHECK(p.prefix.saved == bytes{5'842'665'472});
}

TEST_CASE("planner: a decode step over a layer split reads every stage in turn", "[planner][engines]") {
  // Llama-3-8B (8,030,261,248 parameters, bf16: 16,060,522,496 B), 4 users × 4,096 tokens, 128 KiB of
  // KV a token over 32 layers: 2 GiB for the whole model. Split over two stages, each device holds half
  // the KV (vLLM's pp 2: 16 layers each; llama.cpp's two GPUs: 17 and 15 blocks), but a token passes both
  // stages in turn, so the step reads every weight and all 2 GiB: the bound is that of one device.
  constexpr auto m = presets::llama_3_8b;
  constexpr bytes weights{16'060'522'496};
  for (const engine_kind e : {engine_kind::vllm, engine_kind::llama_cpp}) {
    CAPTURE(e);
    auto in = inputs(weights, kvsize::gpu("h100-80gb").memory, e, 4'096, 4);
    const auto one = kvsize::plan(m, in);
    CHECK(one.decode.stages == 1);
    CHECK(one.decode.traffic.weights == weights);
    CHECK(one.decode.traffic.kv == kvsize::GiB * 2);
    if (e == engine_kind::vllm) {
      in.options.pp = 2;
    } else {
      in.options.tp = 2;  // llama.cpp splits layers over tp × pp devices
    }
    const auto two = kvsize::plan(m, in);
    CHECK(two.point.kv < one.point.kv);  // one device holds part of the cache
    CHECK(two.decode.stages == 2);
    CHECK(two.decode.traffic.weights == weights);
    CHECK(two.decode.traffic.kv == one.decode.traffic.kv);
  }
  // Tensor parallelism splits each step's reads across the ranks: vLLM at tp 2 reads half per rank.
  auto tp2 = inputs(weights, kvsize::gpu("h100-80gb").memory, engine_kind::vllm, 4'096, 4);
  tp2.options.tp = 2;
  const auto t = kvsize::plan(m, tp2);
  CHECK(t.decode.stages == 1);
  CHECK(t.decode.traffic.weights == weights / 2);
  CHECK(t.decode.traffic.kv == kvsize::GiB);
}

namespace {

auto configs() -> std::vector<std::filesystem::path> {
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::directory_iterator{std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs"}) {
    if (entry.path().extension() == ".json") {
      paths.push_back(entry.path());
    }
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

}  // namespace

TEST_CASE("planner: properties over every config, engine and context", "[planner][properties]") {
  // Weights are the caller's: a fixed 10 GiB keeps every model's question open on an H200.
  const auto device = kvsize::gpu("h200");
  std::size_t plans = 0;
  for (const auto& path : configs()) {
    const auto config = kvsize::hf::load_config(path);
    const kvsize::model_spec& m = config.spec;
    for (engine_kind e : {engine_kind::exact, engine_kind::vllm, engine_kind::sglang, engine_kind::llama_cpp,
                          engine_kind::trtllm}) {
      std::uint64_t previous_max_users = kvsize::unbounded;
      for (std::uint64_t context : {1'024ULL, 8'192ULL, 32'768ULL}) {
        INFO(path.filename().string() << " engine " << kvsize::name(e) << " context " << context);
        auto in = inputs(10_GiB, device.memory, e, context, 8);
        in.bandwidth = device.bandwidth;
        in.context_limit = 131'072;
        kvsize::plan_result p{};
        try {
          p = kvsize::plan(m, in);
        } catch (const kvsize::invalid_argument&) {
          continue;  // a configuration the engine refuses (e.g. pages vLLM cannot unify)
        }
        ++plans;
        const kvsize::plan_point& q = p.point;
        // The terms add up to the device: weights + workspace + reserve + KV budget = memory.
        if (q.limited_by != kvsize::plan_limit::weights) {
          CHECK(q.weights + q.workspace.total() + q.reserve + q.kv_budget == q.device_memory);
        }
        if (q.fits()) {
          CHECK(q.needed() + q.free() == q.device_memory);
          CHECK(p.max_users >= 8);
          CHECK(p.max_context >= context);
        } else {
          CHECK(p.max_users < 8);
        }
        // Max users at the context fit; one more does not (unless the search was bounded).
        if (p.max_users != 0 && p.max_users < (1ULL << 40)) {
          CHECK(kvsize::plan_at(m, in, context, p.max_users, 1).fits());
          CHECK_FALSE(kvsize::plan_at(m, in, context, p.max_users + 1, 1).fits());
        }
        // The max context fits the users; one token more does not (below the search limit).
        if (p.max_context != 0) {
          CHECK(kvsize::plan_at(m, in, p.max_context, 8, 1).fits());
          if (p.max_context < p.context_limit) {
            CHECK_FALSE(kvsize::plan_at(m, in, p.max_context + 1, 8, 1).fits());
          }
        }
        // Longer contexts never admit more users.
        CHECK(p.max_users <= previous_max_users);
        previous_max_users = p.max_users;
        // A smaller cache never admits fewer users; tp, when found, fits.
        if (p.kv_8bit.available && kvsize::traits(m.compute_dtype).block_bytes >= 2) {
          CHECK(p.kv_8bit.max_users >= p.max_users);
        }
        if (p.min_tp != 0) {
          CHECK(kvsize::plan_at(m, in, context, 8, p.min_tp).fits());
        }
        // Decode reads the device's weights and the users' KV.
        CHECK(p.decode.traffic.total() == q.weights + q.kv);
        CHECK(p.decode.seconds_per_token > 0);
      }
    }
  }
  CHECK(plans > 100);
}
