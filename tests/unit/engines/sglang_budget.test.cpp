// SPDX-License-Identifier: MIT
// engines/sglang_budget.hpp: SGLang's start-up KV budget (model_runner.py profile_max_num_token)
// against public start-up logs. Each case: the log's "Load weight begin/end … avail mem" figures as
// inputs, its "KV Cache is allocated. #tokens: N" times the cell size as the K+V actually allocated.
// SGLang prints GiB (2^30) with 2 decimals, so each printed input is ±0.005 GiB.
#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <cstdint>
#include <optional>

#include <kvsize/engine.hpp>
#include <kvsize/engines/sglang_budget.hpp>

using namespace kvsize::literals;
using kvsize::bytes;
using kvsize::engines::sglang::fraction_rule;

namespace {

/// Bytes of a printed GiB figure given in hundredths (63.48 GiB → 6348).
constexpr auto centi_gib(std::uint64_t hundredths) -> bytes { return kvsize::GiB * hundredths / 100; }

/// Relative error of the predicted budget against the K+V actually allocated (N · cell bytes).
auto relative_error(bytes predicted, std::uint64_t tokens, std::uint64_t cell) -> double {
  const double actual = static_cast<double>(tokens) * static_cast<double>(cell);
  return (static_cast<double>(predicted.count()) - actual) / actual;
}

}  // namespace

TEST_CASE("sglang_budget: S2 Llama-3.1-8B on 1×H100, default fraction of 0.4.x", "[sglang_budget]") {
  // https://github.com/sgl-project/sglang/pull/4760 (2025-03-25): "Load weight end … avail mem=63.48 GB,
  // mem usage=15.11 GB", "KV Cache is allocated. #tokens: 442750, K size: 27.02 GB, V size: 27.02 GB".
  // Pre-load free = 63.48 + 15.11 = 78.59 GiB; device 79.19 GiB (H100 80 GB SXM as CUDA reports it,
  // issue 13), so non-torch = 0.60 GiB. Cell = 32 layers · 8 kv heads · (128 + 128) · 2 B = 131 072 B.
  kvsize::engine_options o{};
  o.tp = 1;
  o.sglang.release = fraction_rule::v0_4;
  const auto b = kvsize::sglang_startup_budget(centi_gib(7919), centi_gib(60), centi_gib(1511), o);
  CHECK(b.fraction == 0.88);
  CHECK(b.engine_version == "0.4.0-0.4.5.post2");
  CHECK(b.balanced());
  const double err = relative_error(b.kv, 442'750, 131'072);
  // Tolerance: 63.48 and 15.11 each ±0.005 GiB → ±(0.005 + 0.12·0.01) GiB ≈ ±0.0062 GiB of 54.05 (0.012 %).
  CHECK(std::abs(err) < 0.00012);
}

TEST_CASE("sglang_budget: S3 QwQ-32B on 4×A10G, tp 4, default fraction of 0.4.x", "[sglang_budget]") {
  // Public README log (2025-03-08, SGLang ~0.4.3; docs/research/engine-logs.md S3): "Load weight begin.
  // avail mem=21.63 GB", "Load weight end … avail mem=6.09 GB, mem usage=15.54 GB", "#tokens: 46611".
  // The device total is not printed: device = pre-load free (non-torch 0), which leaves the rule's
  // arithmetic unchanged. Cell = 64 layers · 2 kv heads/rank · 256 · 2 B = 65 536 B.
  kvsize::engine_options o{};
  o.tp = 4;
  o.sglang.release = fraction_rule::v0_4;
  const auto b = kvsize::sglang_startup_budget(centi_gib(2163), 0_B, centi_gib(2163) - centi_gib(609), o);
  CHECK(b.fraction == 0.85);
  CHECK(b.balanced());
  // Tolerance: 6.09 ± 0.005 and 0.15 · (21.63 ± 0.005) → ±0.00575 GiB of 2.845 GiB (0.2 %).
  CHECK(std::abs(relative_error(b.kv, 46'611, 65'536)) < 0.002);
}

TEST_CASE("sglang_budget: S9 Grok-2 on 8×H100, tp 8, the default rule of its release", "[sglang_budget]") {
  // Committed server log (2025-09-11; docs/research/engine-logs.md S9): "Load weight begin. avail
  // mem=77.43 GB", "Load weight end … avail mem=40.69 GB", "#tokens: 903439". Cell = 64 layers · 1 kv
  // head/rank · 256 · 2 B = 32 768 B. The log implies f ≈ 0.831. Its date is v0.5.2's tag day, whose
  // rule (E, PR #7054) reserves (9.5 + 8/2) GiB = 13,824 MiB of nvidia-smi's 81,559 MiB:
  // round(67,735 / 81,559, 3) = 0.831 (docs/research/sglang-fraction-history.md). The K+V then comes out
  // 0.12 % over the log (27.60 vs 27.57 GiB), more than the printed rounding (±0.03 %) explains: SGLang
  // may take the least free memory of the 8 GPUs where the log shows GPU 0's.
  kvsize::engine_options o{};
  o.tp = 8;
  o.device_memory = centi_gib(7919);
  o.sglang.reported_memory = kvsize::MiB * 81'559;
  o.sglang.release = fraction_rule::v0_4_7;
  const auto b = kvsize::sglang_startup_budget(centi_gib(7919), centi_gib(7919) - centi_gib(7743),
                                               centi_gib(7743) - centi_gib(4069), o);
  CHECK(b.engine_version == "0.4.7.post1-0.5.3rc1");
  CHECK(b.fraction == 0.831);
  CHECK(b.balanced());
  const double err = relative_error(b.kv, 903'439, 32'768);
  CHECK(err > 0.0);
  CHECK(err < 0.0015);  // over by 0.12 %, within the 2 %
  // The later rules on the same device: G (0.5.4.post1 – 0.5.9) 0.818, H (0.5.10+) 0.812, so a
  // prediction for the wrong release would be about 4 % low.
  o.sglang.release = fraction_rule::v0_5;
  CHECK(kvsize::sglang_startup_budget(centi_gib(7919), 0_B, 0_B, o).fraction == 0.818);
  o.sglang.release = fraction_rule::v0_5_10;
  CHECK(kvsize::sglang_startup_budget(centi_gib(7919), 0_B, 0_B, o).fraction == 0.812);
  // With the user's fraction set to the implied 0.8306 the rule itself reproduces the log.
  o.sglang.mem_fraction_static = 0.8306;
  const auto given = kvsize::sglang_startup_budget(centi_gib(7919), centi_gib(7919) - centi_gib(7743),
                                                   centi_gib(7743) - centi_gib(4069), o);
  CHECK(std::abs(relative_error(given.kv, 903'439, 32'768)) < 0.002);
}

TEST_CASE("sglang_budget: held-out logs, each at its release's default fraction", "[sglang_budget]") {
  // Public start-up logs that print the default mem_fraction_static in server_args (collected in
  // docs/research/sglang-logs-cases.md; no constant was fitted to them). Each: the release (as the issue's
  // environment gives it) → its rule → the fraction, then the budget from the logged before/after figures.
  // The device total is not printed, so device = "avail before" (non-torch 0; the rule's arithmetic is the
  // same). Cells: Qwen3-0.6B 28 L · 8 kvh · 128 · 2 · 2 B = 114,688; Qwen2.5-7B 28 · 4 · 128 · 2 · 2 =
  // 57,344; DeepSeek-V2-Lite (MLA) 27 · (512 + 64) · 2 = 31,104.
  struct logged {
    const char* url;
    const char* release;
    std::uint64_t reported_mib;  // nvidia-smi's total, which rules after 0.4.5 read
    double printed_fraction;
    std::uint64_t before, after;  // "avail mem" before and after the weights, GiB × 100
    std::uint64_t tokens, cell;
  };
  const logged cases[] = {
      // Qwen3-0.6B-FP8 on an H100 80 GB: rule E, (81,559 − 10,240) / 81,559 → 0.874.
      {"https://github.com/sgl-project/sglang/issues/7495", "0.4.7.post1", 81'559, 0.874, 7'502, 7'428, 606'832,
       114'688},
      // Qwen2.5-7B-Instruct on a ~40 GB GPU: rule A, 0.88 at tp 1.
      {"https://github.com/sgl-project/sglang/issues/4094", "0.4.3.post2", 0, 0.88, 3'897, 2'459, 372'945, 57'344},
      // DeepSeek-V2-Lite (MLA) on an A40: rule A, 0.88.
      {"https://github.com/sgl-project/sglang/issues/3451", "0.4.2.post3", 0, 0.88, 4'385, 1'434, 313'444, 31'104},
  };
  namespace sgl = kvsize::engines::sglang;
  for (const logged& c : cases) {
    CAPTURE(c.url);
    const auto release = sgl::parse_release(c.release);
    REQUIRE(release.has_value());
    const auto rule = sgl::rule_of(*release);
    REQUIRE(rule.has_value());
    kvsize::engine_options o{};
    o.sglang.release = *rule;
    o.sglang.reported_memory = kvsize::MiB * c.reported_mib;
    const auto b = kvsize::sglang_startup_budget(centi_gib(c.before), 0_B, centi_gib(c.before) - centi_gib(c.after), o);
    CHECK(b.fraction == c.printed_fraction);
    // The printed figures (±0.005 GiB each) explain ±0.01 – 0.03 %; C2 is +0.017 %.
    CHECK(std::abs(relative_error(b.kv, c.tokens, c.cell)) < 0.0005);
  }
}

TEST_CASE("sglang_budget: C12, an AMD GPU's aiter factor on the default fraction", "[sglang_budget][rocm]") {
  // https://github.com/sgl-project/sglang/issues/18262 (docs/research/sglang-logs-cases.md C12): image
  // rocm/sgl-dev:v0.5.7-rocm700-mi35x (0.5.7, rule G), one MI355X (rocminfo's 294,896 MiB, which rule G reads), a
  // 5-layer cut of Qwen3-30B-A3B-Instruct-2507 (5 L · 4 kvh · 128 · 2 · 2 B = 10,240 B a token; context_len its
  // 262,144 positions). "Load weight begin … avail mem=287.20 GB", "Load weight end … avail mem=274.42 GB",
  // "KV Cache is allocated. #tokens: 21985288". Rule G's 0.911, times 0.85 (server_args.py
  // _handle_attention_backend_compatibility: aiter, the HIP default, and context_len > 8192): 0.77435; without the
  // factor the budget would be 18.7 % high.
  kvsize::engine_options o{.context = 262'144};
  o.sglang.release = fraction_rule::v0_5;
  o.sglang.version = kvsize::engines::sglang::release_0_5(7);
  o.sglang.reported_memory = kvsize::MiB * 294'896;
  o.sglang.rocm = true;
  const auto b = kvsize::sglang_startup_budget(centi_gib(28'720), 0_B, centi_gib(28'720) - centi_gib(27'442), o);
  CHECK(b.fraction == 0.911 * 0.85);
  CHECK(std::abs(relative_error(b.kv, 21'985'288, 10'240)) < 0.0005);  // −0.026 %
  o.sglang.rocm = false;
  CHECK(relative_error(kvsize::sglang_startup_budget(centi_gib(28'720), 0_B, centi_gib(28'720) - centi_gib(27'442), o).kv,
                       21'985'288, 10'240) > 0.17);
}

TEST_CASE("sglang_budget: C11, the runner's factor on a multimodal model before 0.4.9", "[sglang_budget][vlm]") {
  // https://github.com/sgl-project/sglang/pull/4826 (docs/research/sglang-logs-cases.md C11): main of 2025-03-27
  // (0.4.4.post2 – post3, rule A), google/gemma-3-4b-it on one GPU: "server_args=ServerArgs(…
  // mem_fraction_static=0.88 …)", "Load weight end … avail mem=131.08 GB, mem usage=8.13 GB" (139.21 before), "KV
  // Cache is allocated. #tokens: 834615" of 34 L · 4 kvh · 256 · 2 · 2 B = 139,264 B a token. ModelRunner.__init__
  // scales its own copy by 0.95 for a multimodal model (Gemma 3 counts before 0.4.6), so server_args prints 0.88 and
  // the pool is sized at 0.836 (+0.000 %).
  kvsize::engine_options o{};
  o.sglang.release = fraction_rule::v0_4;
  o.sglang.version = kvsize::engines::sglang::parse_release("0.4.4.post2");
  o.sglang.vlm = kvsize::engines::sglang::vlm_tower_of("Gemma3ForConditionalGeneration", true, true, 27U, 1152U);
  const auto b = kvsize::sglang_startup_budget(centi_gib(13'921), 0_B, centi_gib(13'921) - centi_gib(13'108), o);
  CHECK(b.fraction == 0.88 * 0.95);
  CHECK(std::abs(relative_error(b.kv, 834'615, 139'264)) < 0.0001);
  // From 0.4.6 Gemma 3 is not multimodal to SGLang (mm_disabled_models): no factor.
  o.sglang.version = kvsize::engines::sglang::parse_release("0.4.6");
  CHECK(kvsize::sglang_startup_budget(centi_gib(13'921), 0_B, centi_gib(13'921) - centi_gib(13'108), o).fraction == 0.88);
}

TEST_CASE("sglang_budget: 0.5.18's multimodal reserve", "[sglang_budget][vlm]") {
  // mem_cache/kv_cache_configurator.py KVCacheConfigurator._profile_available_bytes (v0.5.18, PR #34141): rest loses
  // mm_runtime_reservation_gb, SGLANG_VLM_CACHE_SIZE_MB / 1024 GiB (100 by default) for a multimodal model, so
  // int(rest × 2^30) is 100 × 2^20 bytes lower. 80 GiB, 1 GiB non-torch, 16 GiB of weights, fraction 0.9.
  namespace sglang = kvsize::engines::sglang;
  kvsize::engine_options o{};
  o.sglang.mem_fraction_static = 0.9;
  o.sglang.vlm = sglang::vlm_tower_of("Qwen2_5_VLForConditionalGeneration", false, true, std::nullopt, 1280U);
  REQUIRE(o.sglang.vlm.multimodal);
  const auto newest = kvsize::sglang_startup_budget(80_GiB, 1_GiB, 16_GiB, o);  // no release: 0.5.19, the newest
  o.sglang.version = sglang::parse_release("0.5.18");
  const auto first = kvsize::sglang_startup_budget(80_GiB, 1_GiB, 16_GiB, o);
  o.sglang.version = sglang::parse_release("0.5.17");
  const auto before = kvsize::sglang_startup_budget(80_GiB, 1_GiB, 16_GiB, o);
  CHECK(before.reserve == 0_B);
  CHECK(first.reserve == bytes{104'857'600});
  CHECK(newest.reserve == first.reserve);
  CHECK(before.kv - first.kv == bytes{104'857'600});
  CHECK(first.unused == before.unused);
  CHECK((first.balanced() && before.balanced()));
  // The engine's own rule (sglang_engine::kv_budget, the plan's and the report's budget) keeps the same 100 MiB.
  o.sglang.version.reset();
  const bytes vlm_budget = kvsize::engine_kv_budget(kvsize::engine_kind::sglang, 80_GiB, 16_GiB, o);
  CHECK(kvsize::engine_budget_rule(kvsize::engine_kind::sglang, o).margin == bytes{104'857'600});
  o.sglang.vlm = {};  // a text model: no reserve in any release
  CHECK(kvsize::sglang_startup_budget(80_GiB, 1_GiB, 16_GiB, o).reserve == 0_B);
  CHECK(kvsize::engine_kv_budget(kvsize::engine_kind::sglang, 80_GiB, 16_GiB, o) - vlm_budget == bytes{104'857'600});
  // Less than the reserve left after the fraction: kv 0 (SGLang raises), the terms still balanced.
  o.sglang.vlm = sglang::vlm_tower_of("Qwen2_5_VLForConditionalGeneration", false, true, std::nullopt, 1280U);
  o.sglang.mem_fraction_static = 0.5;
  const auto tight = kvsize::sglang_startup_budget(2_GiB, 0_B, 1_GiB - 50_MiB, o);
  CHECK(tight.kv == 0_B);
  CHECK(tight.reserve == 50_MiB);
  CHECK(tight.balanced());
}

TEST_CASE("sglang_budget: identity, out of memory and bad input", "[sglang_budget]") {
  kvsize::engine_options o{};
  o.sglang.mem_fraction_static = 0.9;
  // Identity: 80 GiB, 1 GiB non-torch, 10 GiB weights → unused 7.9 GiB, kv 61.1 GiB.
  constexpr auto fit = [] {
    kvsize::engine_options p{};
    p.sglang.mem_fraction_static = 0.5;
    return kvsize::sglang_startup_budget(80_GiB, 0_B, 10_GiB, p);
  }();
  static_assert(fit.kv == 30_GiB && fit.unused == 40_GiB && fit.balanced());
  const auto b = kvsize::sglang_startup_budget(80_GiB, 1_GiB, 10_GiB, o);
  CHECK(b.balanced());
  CHECK(b.kv + b.unused == 69_GiB);
  // rest_memory < 0 (SGLang: "Not enough memory"): kv 0, never a wrap, still balanced.
  const auto tight = kvsize::sglang_startup_budget(80_GiB, 1_GiB, 75_GiB, o);
  CHECK(tight.kv == 0_B);
  CHECK(tight.balanced());
  // Weights larger than what was free: kv 0.
  const auto oom = kvsize::sglang_startup_budget(80_GiB, 1_GiB, 100_GiB, o);
  CHECK(oom.kv == 0_B);
  CHECK(oom.balanced());
  // Huge figures do not wrap.
  const auto huge = kvsize::sglang_startup_budget(bytes{UINT64_MAX}, 0_B, 0_B, o);
  CHECK(huge.balanced());
  CHECK(huge.kv < huge.device);
  CHECK_THROWS_AS(kvsize::sglang_startup_budget(1_GiB, 2_GiB, 0_B, o), kvsize::invalid_argument);
  o.sglang.mem_fraction_static = 1.5;
  CHECK_THROWS_AS(kvsize::sglang_startup_budget(80_GiB, 0_B, 0_B, o), kvsize::invalid_argument);
  o.sglang.mem_fraction_static = NAN;
  CHECK_THROWS_AS(kvsize::sglang_startup_budget(80_GiB, 0_B, 0_B, o), kvsize::invalid_argument);
}
