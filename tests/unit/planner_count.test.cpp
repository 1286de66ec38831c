// SPDX-License-Identifier: MIT
// How many times the planner (kvsize/planner.hpp) sizes the cache for one request, counted with an
// engine type that wraps a real one and counts its size_stage calls; and the engine member the
// planner's users questions rest on (with_users: a sizing for another batch, without sizing).
#include <catch2/catch_test_macros.hpp>

#include <cstdint>

#include <kvsize/kvsize.hpp>
#include <kvsize/planner.hpp>

using namespace kvsize::literals;
using kvsize::bytes;
namespace presets = kvsize::presets;

namespace {

/// Engine `Base` with its stage sizings counted (everything else is Base's).
template <class Base>
struct counting : Base {
  static inline std::uint64_t sized = 0;
  [[nodiscard]] static auto size_stage(const kvsize::model_spec& m, const kvsize::engine_options& o,
                                       kvsize::detail::stage_range r) -> kvsize::engine_sizing {
    ++sized;
    return Base::size_stage(m, o, r);
  }
};
static_assert(kvsize::engine<counting<kvsize::vllm_engine>>);

// Qwen2.5-1.5B in bf16 (3,087,428,608 B of weights) on a 12 GiB RTX 3060, 160 users × 2,048 tokens.
auto qwen_inputs(kvsize::engine_kind e) -> kvsize::plan_inputs {
  kvsize::plan_inputs in{};
  in.weights = bytes{3'087'428'608};
  in.device_memory = 12_GiB;
  in.engine = e;
  in.options.context = 2'048;
  in.options.batch = 160;
  in.options.kv = kvsize::kv_dtypes::same(kvsize::dtype::bf16);
  return in;
}

auto same(const kvsize::plan_result& a, const kvsize::plan_result& b) -> bool {
  return a.point.admitted == b.point.admitted && a.point.kv == b.point.kv && a.point.kv_budget == b.point.kv_budget &&
         a.max_users == b.max_users && a.max_context == b.max_context && a.min_tp == b.min_tp &&
         a.kv_8bit.max_users == b.kv_8bit.max_users && a.kv_8bit.max_context == b.kv_8bit.max_context &&
         a.prefix.max_users == b.prefix.max_users;
}

/// Sizings of one whole plan_as for Base, with its result checked against the plain engine's.
template <class Base>
auto plan_sizings(const kvsize::plan_inputs& in) -> std::uint64_t {
  counting<Base>::sized = 0;
  const kvsize::plan_result counted = kvsize::plan_as<counting<Base>>(presets::qwen2_5_1_5b, in);
  const std::uint64_t n = counting<Base>::sized;
  CHECK(same(counted, kvsize::plan_as<Base>(presets::qwen2_5_1_5b, in)));
  return n;
}

/// A search over contexts up to `limit` probes at most 1 + ceil(log2(limit)) contexts.
constexpr auto context_search_bound(std::uint64_t limit) -> std::uint64_t {
  std::uint64_t probes = 1;
  for (std::uint64_t span = 1; span < limit; span *= 2) {
    ++probes;
  }
  return probes;
}

}  // namespace

TEST_CASE("planner_count: the users question is answered from one sizing", "[planner][count]") {
  kvsize::plan_inputs in = qwen_inputs(kvsize::engine_kind::vllm);
  in.options.shared_prefix = 512;
  counting<kvsize::vllm_engine>::sized = 0;
  const std::uint64_t users = kvsize::plan_max_users_as<counting<kvsize::vllm_engine>>(presets::qwen2_5_1_5b, in, 2'048, 1);
  CHECK(counting<kvsize::vllm_engine>::sized == 1);
  CHECK(users == kvsize::plan_max_users_as<kvsize::vllm_engine>(presets::qwen2_5_1_5b, in, 2'048, 1));
  CHECK(users == 130);  // 12 GiB under vLLM 0.19's start-up workspace; a search over many user counts
  counting<kvsize::sglang_engine>::sized = 0;
  (void)kvsize::plan_max_users_as<counting<kvsize::sglang_engine>>(presets::qwen2_5_1_5b, in, 2'048, 1, true);
  CHECK(counting<kvsize::sglang_engine>::sized == 1);
}

TEST_CASE("planner_count: a whole plan sizes once per point plus the context searches", "[planner][count]") {
  kvsize::plan_inputs in = qwen_inputs(kvsize::engine_kind::vllm);
  in.options.shared_prefix = 512;
  const std::uint64_t limit = presets::qwen2_5_1_5b.max_context;  // the plan's context_limit here
  // The point, and the 8-bit option's point: the users questions (max_users, the prefix's, the
  // option's, min_tp at the asked tp) reuse them; min_tp sizes the other tp degrees (at most 3:
  // 160 users do not fit at tp 1); each max_context is a search over contexts (one sizing each,
  // plus the probe at one token). Before the users questions reused the point, vLLM took 60.
  const std::uint64_t bound = 2 + 3 + 2 * (context_search_bound(limit) + 1);
  CHECK(plan_sizings<kvsize::vllm_engine>(in) <= bound);
  CHECK(plan_sizings<kvsize::sglang_engine>(in) <= bound);
  CHECK(plan_sizings<kvsize::trtllm_engine>(in) <= bound);
  CHECK(plan_sizings<kvsize::exact_engine>(in) <= bound + 1 + context_search_bound(limit) + 1);  // and its 4-bit option
  in.options.shared_prefix = 0;
  CHECK(plan_sizings<kvsize::transformers_engine>(in) <= bound);
}

TEST_CASE("planner_count: a whole plan sizes a handful of times", "[planner][count]") {
  // Issue 12's goal ("a handful, not 140"): the context searches redo only the context terms of a
  // sizing they have (with_context), so what is left is sizing the point, the 8-bit option's point and
  // the other tp degrees min_tp tries. Measured at this commit: 3 for vLLM, SGLang, TRT-LLM and exact,
  // 4 for transformers (its logits follow the batch); 39 for vLLM before with_context.
  kvsize::plan_inputs in = qwen_inputs(kvsize::engine_kind::vllm);
  in.options.shared_prefix = 512;
  CHECK(plan_sizings<kvsize::vllm_engine>(in) <= 4);
  CHECK(plan_sizings<kvsize::sglang_engine>(in) <= 4);
  CHECK(plan_sizings<kvsize::trtllm_engine>(in) <= 4);
  CHECK(plan_sizings<kvsize::exact_engine>(in) <= 4);
  in.options.shared_prefix = 0;
  CHECK(plan_sizings<kvsize::transformers_engine>(in) <= 5);
}

TEST_CASE("planner_count: llama.cpp's slots are sized per user count, with the same answer", "[planner][count]") {
  const kvsize::plan_inputs in = qwen_inputs(kvsize::engine_kind::llama_cpp);
  counting<kvsize::llama_cpp_engine>::sized = 0;
  const std::uint64_t users =
      kvsize::plan_max_users_as<counting<kvsize::llama_cpp_engine>>(presets::qwen2_5_1_5b, in, 2'048, 1);
  CHECK(users == kvsize::plan_max_users_as<kvsize::llama_cpp_engine>(presets::qwen2_5_1_5b, in, 2'048, 1));
  CHECK(counting<kvsize::llama_cpp_engine>::sized > 2);  // with_users is none: every probe is sized
}

TEST_CASE("planner_count: with_users equals a fresh sizing at the other batch", "[planner][count][engines]") {
  const auto check = [&]<class E>(E) {
    kvsize::engine_options one{.context = 2'048, .batch = 1};
    one.shared_prefix = 512;
    one.kv = kvsize::kv_dtypes::same(kvsize::dtype::bf16);
    const kvsize::engine_sizing base = kvsize::size_cache_as<E>(presets::qwen2_5_1_5b, one);
    for (std::uint64_t b : {1ULL, 2ULL, 7ULL, 160ULL, 4'096ULL}) {
      kvsize::engine_options o = one;
      o.batch = b;
      const kvsize::engine_sizing fresh = kvsize::size_cache_as<E>(presets::qwen2_5_1_5b, o);
      const auto s = E::with_users(presets::qwen2_5_1_5b, o, base);
      REQUIRE(s.has_value());
      CHECK(s->kv_bytes == fresh.kv_bytes);
      CHECK(s->prefix_bytes_saved == fresh.prefix_bytes_saved);
      CHECK(s->logits_bytes == fresh.logits_bytes);
      CHECK(s->kv_bytes_per_sequence == fresh.kv_bytes_per_sequence);
    }
  };
  check(kvsize::exact_engine{});
  check(kvsize::vllm_engine{});
  check(kvsize::sglang_engine{});
  check(kvsize::trtllm_engine{});
  check(kvsize::transformers_engine{});
  CHECK_FALSE(kvsize::llama_cpp_engine::with_users(presets::qwen2_5_1_5b, {}, {}).has_value());
}
