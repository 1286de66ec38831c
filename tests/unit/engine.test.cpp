// SPDX-License-Identifier: MIT
// The engine registry (kvsize/engine.hpp) and the engine concept (kvsize/engines/engine_concept.hpp):
// every registered engine satisfies the concept and is reached by the one dispatch, and an engine
// defined here, in one type, runs through the generic code (sizing, capacity, workspace, planner).
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cstdint>
#include <string_view>

#include <kvsize/device_fit.hpp>
#include <kvsize/engine.hpp>
#include <kvsize/planner.hpp>
#include <kvsize/presets.hpp>
#include <kvsize/workspace.hpp>

using namespace kvsize::literals;
using kvsize::bytes;
using kvsize::engine_kind;

namespace {

/// A toy engine: every KV layer of a stage costs `row` bytes per token per device, whatever the model;
/// its budget is half the device minus weights and overhead; its scheduler runs at most 7 sequences;
/// its workspace is a 1 MiB runtime buffer. It counts how often it is asked to size a stage.
struct toy_engine : kvsize::engine_defaults<toy_engine> {
  static constexpr engine_kind kind = engine_kind::exact;  // unregistered: the enum is never dispatched on
  static constexpr std::string_view name = "toy";
  static constexpr std::string_view display_name = "Toy";
  static constexpr bytes row{1'000};
  static inline int stages_sized = 0;
  [[nodiscard]] static constexpr auto serving_dtype(const kvsize::config_dtype_facts& f) -> kvsize::dtype {
    return f.config_dtype;
  }
  [[nodiscard]] static constexpr auto default_kv_dtypes(const kvsize::config_dtype_facts& f) -> kvsize::kv_dtypes {
    return kvsize::kv_dtypes::same(serving_dtype(f));
  }
  [[nodiscard]] static constexpr auto default_weights_dtype(const kvsize::config_dtype_facts& f) -> kvsize::dtype {
    return serving_dtype(f);
  }
  [[nodiscard]] static auto size_stage(const kvsize::model_spec& m, const kvsize::engine_options& o,
                                       kvsize::detail::stage_range r) -> kvsize::engine_sizing {
    ++stages_sized;
    kvsize::engine_sizing s{};
    s.first_layer = r.first;
    s.stage_layers = r.count;
    s.context = o.context != 0 ? o.context : m.max_context;
    s.kv_bytes_per_token = row * r.count;
    s.kv_bytes_per_sequence = s.kv_bytes_per_token * s.context;
    s.kv_bytes = s.kv_bytes_per_sequence * o.batch;
    return s;
  }
  [[nodiscard]] static constexpr auto budget(const kvsize::engine_options& /*o*/) -> kvsize::budget_rule {
    return {.fraction = 0.5, .setting = "toy_fraction"};
  }
  [[nodiscard]] static constexpr auto kv_budget(bytes device, bytes weights, const kvsize::engine_options& o)
      -> bytes {
    return kvsize::apply_budget_rule(budget(o), device, weights, o.engine_overhead);
  }
  [[nodiscard]] static constexpr auto capacity(const kvsize::engine_sizing& s, const kvsize::engine_options& o,
                                               bytes budget) -> kvsize::engine_capacity {
    kvsize::engine_capacity c = kvsize::detail::plain_capacity(s, budget);
    c.max_sequences = std::min<std::uint64_t>(c.max_sequences, slot_cap(o, c));
    return c;
  }
  [[nodiscard]] static constexpr auto workspace(const kvsize::model_spec& /*m*/, const kvsize::engine_options& o)
      -> kvsize::workspace_defaults {
    return {.runtime = 1_MiB, .sequences = o.batch, .activation_tp = o.tp};
  }
  [[nodiscard]] static constexpr auto slot_cap(const kvsize::engine_options& /*o*/,
                                               const kvsize::engine_capacity& /*c*/) -> std::uint64_t {
    return 7;
  }
};
static_assert(kvsize::engine<toy_engine>);

struct not_an_engine : kvsize::engine_defaults<not_an_engine> {  // no identity, no sizing
};
static_assert(!kvsize::engine<not_an_engine>);
static_assert(!kvsize::engine<int>);

}  // namespace

TEST_CASE("engine: a toy engine defined in one type runs through the generic code", "[engine]") {
  const kvsize::model_spec& m = kvsize::presets::llama_3_8b;  // 32 layers
  toy_engine::stages_sized = 0;
  const kvsize::engine_options o{.context = 1'000, .batch = 2, .pp = 2};
  const kvsize::engine_sizing s = kvsize::size_cache_as<toy_engine>(m, o);
  CHECK(toy_engine::stages_sized == 2);  // one per pipeline stage
  CHECK(s.stage_layers == 16);
  CHECK(s.kv_bytes_per_sequence == bytes{16 * 1'000 * 1'000});
  CHECK(s.kv_bytes == bytes{2 * 16 * 1'000 * 1'000});

  // Capacity from that sizing: nothing is sized again.
  const kvsize::engine_capacity c = toy_engine::capacity(s, o, bytes{100'000'000});
  CHECK(toy_engine::stages_sized == 2);
  CHECK(c.max_sequences == 6);  // 100 MB / 16 MB

  const kvsize::workspace_terms w = kvsize::engine_workspace_as<toy_engine>(m, o);
  CHECK(w.total() == 1_MiB);

  // The planner: 16 GiB device, 4 GiB of weights on 1 device: budget = 8 GiB − 4 GiB − 1 MiB;
  // one user at 1,000 tokens costs 32 layers × 1,000 B × 1,000 = 32 MB, so 134 fit in memory,
  // and the scheduler's cap of 7 bounds them.
  kvsize::plan_inputs in{};
  in.weights = 4_GiB;
  in.device_memory = 16_GiB;
  in.options = {.context = 1'000, .batch = 5};
  const kvsize::plan_result r = kvsize::plan_as<toy_engine>(m, in);
  CHECK(r.point.kv_budget == 4_GiB - 1_MiB);
  CHECK(r.point.reserve == 8_GiB);
  CHECK(r.point.kv == bytes{5ULL * 32'000'000});
  CHECK(r.point.fits());
  CHECK(r.point.slot_cap == 7);
  CHECK(r.max_users == 7);
  CHECK(!r.kv_4bit.available);  // the defaults offer no 4-bit cache
  in.options.batch = 8;
  CHECK(kvsize::plan_at_as<toy_engine>(m, in, 1'000, 8, 1).limited_by == kvsize::plan_limit::slots);
}

TEST_CASE("engine: every registered engine is reached by the one dispatch", "[engine]") {
  for (engine_kind e : kvsize::all_engines) {
    CHECK(kvsize::visit_engine(e, []<kvsize::engine E>(E) { return E::kind; }) == e);
    CHECK(kvsize::parse_engine(kvsize::name(e)) == e);
  }
  CHECK(kvsize::all_engines.size() == kvsize::registered_engines::size);
  CHECK_THROWS_AS(kvsize::name(static_cast<engine_kind>(200)), kvsize::invalid_argument);
  STATIC_REQUIRE(kvsize::name(engine_kind::llama_cpp) == "llama.cpp");
  STATIC_REQUIRE(kvsize::display_name(engine_kind::trtllm) == "TensorRT-LLM");
}

TEST_CASE("engine: the knobs each engine reads", "[engine]") {
  using kvsize::engine_knob;
  using kvsize::reads_knob;
  CHECK(reads_knob(engine_kind::vllm, engine_knob::max_num_seqs));
  CHECK(!reads_knob(engine_kind::sglang, engine_knob::max_num_seqs));
  CHECK(reads_knob(engine_kind::sglang, engine_knob::mem_fraction_static));
  CHECK(reads_knob(engine_kind::trtllm, engine_knob::block_size));
  CHECK(!reads_knob(engine_kind::llama_cpp, engine_knob::block_size));
  CHECK(reads_knob(engine_kind::llama_cpp, engine_knob::kv_unified));
  for (engine_knob k : {engine_knob::block_size, engine_knob::parallel, engine_knob::gpu_memory_utilization}) {
    CHECK(!reads_knob(engine_kind::exact, k));
    CHECK(!reads_knob(engine_kind::transformers, k));
  }
}

TEST_CASE("engine: budget rules and their parts", "[engine]") {
  const kvsize::engine_options o{};
  const auto vllm = kvsize::engine_budget_rule(engine_kind::vllm, o);
  CHECK(vllm.fraction == 0.9);
  CHECK(!vllm.of_free);
  CHECK(vllm.setting == "gpu_memory_utilization");
  const auto trt = kvsize::engine_budget_rule(engine_kind::trtllm, o);
  CHECK(trt.of_free);
  CHECK(kvsize::engine_budget_rule(engine_kind::llama_cpp, o).margin == 1_GiB);
  CHECK(kvsize::engine_budget_rule(engine_kind::exact, o).setting.empty());
  // The rule applied is the engine's kv_budget ...
  for (engine_kind e : kvsize::all_engines) {
    if (e == engine_kind::sglang) {
      continue;
    }
    CHECK(kvsize::apply_budget_rule(kvsize::engine_budget_rule(e, o), 80_GiB, 16_GiB, 1_GiB) ==
          kvsize::engine_kv_budget(e, 80_GiB, 16_GiB, kvsize::engine_options{.engine_overhead = 1_GiB}));
  }
  // ... but SGLang's, whose fraction applies to the memory free before the weights load: device less
  // the non-torch memory (615 MiB at tp 1), which is part of the overhead; the rest (here 1 GiB − 615
  // MiB) is subtracted whole.
  const kvsize::engine_options sg{.engine_overhead = 1_GiB};
  const double f = kvsize::engine_budget_rule(engine_kind::sglang, sg).fraction;
  CHECK(kvsize::engine_kv_budget(engine_kind::sglang, 80_GiB, 16_GiB, sg) ==
        kvsize::detail::fraction_of(80_GiB - 615_MiB, f) - 16_GiB - (1_GiB - 615_MiB));
}

TEST_CASE("engine: one budget per device, from one sizing", "[engine][device_fit]") {
  const kvsize::model_spec& m = kvsize::presets::llama_3_8b;
  const kvsize::engine_options o{.context = 1'000, .batch = 5};
  toy_engine::stages_sized = 0;
  const kvsize::engine_sizing s = kvsize::size_cache_as<toy_engine>(m, o);
  const kvsize::device_fit f = kvsize::fit_on_device_as<toy_engine>(m, s, o, 16_GiB, 4_GiB);
  CHECK(toy_engine::stages_sized == 1);  // the fit sizes nothing
  CHECK(f.budget.workspace == 1_MiB);
  CHECK(f.budget.kv == 4_GiB - 1_MiB);
  CHECK(f.budget.reserve == 8_GiB);
  CHECK(f.budget.device_memory == f.budget.weights + f.budget.workspace + f.budget.reserve + f.budget.kv);
  CHECK(f.budget.rule.setting == "toy_fraction");
  CHECK(f.capacity.max_sequences == 7);  // 134 fit, the cap is 7

  // A plan point sizes once per pipeline stage and takes its budget from the same computation.
  kvsize::plan_inputs in{};
  in.weights = 4_GiB;
  in.device_memory = 16_GiB;
  in.options = o;
  toy_engine::stages_sized = 0;
  const kvsize::plan_point p = kvsize::plan_at_as<toy_engine>(m, in, 1'000, 5, 1);
  CHECK(toy_engine::stages_sized == 1);
  CHECK(p.kv_budget == f.budget.kv);
  CHECK(p.reserve == f.budget.reserve);

  // The same for a registered engine, through the enum.
  const kvsize::engine_options v{.context = 2'048, .batch = 160, .device_memory = 12_GiB};
  const kvsize::engine_sizing vs = kvsize::size_cache(m, engine_kind::vllm, v);
  const kvsize::device_fit vf = kvsize::fit_on_device(m, engine_kind::vllm, vs, v, 12_GiB, 4_GiB);
  CHECK(vf.budget.kv == kvsize::engine_kv_budget(engine_kind::vllm, 12_GiB, 4_GiB,
                                                 kvsize::engine_options{.engine_overhead = vf.budget.workspace}));
  CHECK(vf.capacity.num_blocks == kvsize::capacity_of(engine_kind::vllm, vs, v, vf.budget.kv).num_blocks);

  // The longest context in a fixed budget: 5 users at 32,000 B per token each fit in 4 GiB − 1 MiB
  // up to ⌊4,293,918,720 / (5 × 32,000)⌋ = 26,836 tokens; the search sizes about log2(limit) times.
  toy_engine::stages_sized = 0;
  CHECK(kvsize::max_context_in_budget_as<toy_engine>(m, o, 4_GiB - 1_MiB, 5, 100'000) == 26'836);
  CHECK(toy_engine::stages_sized <= 20);
}

TEST_CASE("engine: what each engine refuses, in its own words", "[engine]") {
  using kvsize::block_size_refusal;
  using kvsize::dtype;
  using kvsize::kv_type_refusal;
  CHECK(block_size_refusal(engine_kind::vllm, 16).empty());
  CHECK(block_size_refusal(engine_kind::vllm, 48) == "vLLM's block size is one of 1, 8, 16, 32, 64, 128 or 256 tokens");
  CHECK(block_size_refusal(engine_kind::trtllm, 64).empty());
  CHECK(!block_size_refusal(engine_kind::trtllm, 48).empty());
  CHECK(block_size_refusal(engine_kind::sglang, 48).empty());
  CHECK(kv_type_refusal(engine_kind::exact, dtype::q4_0).empty());
  CHECK(kv_type_refusal(engine_kind::llama_cpp, dtype::q4_0).empty());
  CHECK(!kv_type_refusal(engine_kind::llama_cpp, dtype::fp8_e4m3).empty());
  for (engine_kind e : {engine_kind::vllm, engine_kind::sglang, engine_kind::trtllm, engine_kind::transformers}) {
    CHECK(kv_type_refusal(e, dtype::fp8_e4m3).empty());
    CHECK(kv_type_refusal(e, dtype::q8_0).starts_with(kvsize::name(e)));
  }
  STATIC_REQUIRE(toy_engine::block_size_refusal(3).empty());  // the defaults accept everything
}
