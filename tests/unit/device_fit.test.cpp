// SPDX-License-Identifier: MIT
// device_fit.hpp: one sizing gives one device's budget, its capacity and the same budget in the
// engine's start-up terms (startup_budget), for every registered engine.
#include <catch2/catch_test_macros.hpp>

#include <kvsize/device_fit.hpp>
#include <kvsize/presets.hpp>

using namespace kvsize::literals;
using kvsize::engine_kind;

TEST_CASE("fit_on_device: the start-up terms are the budget's, for every engine", "[device_fit]") {
  const kvsize::model_spec m = kvsize::presets::llama_3_8b;
  // Llama-3-8B in bf16: 8,030,261,248 parameters × 2 B.
  constexpr kvsize::bytes weights{16'060'522'496};
  for (const engine_kind e : {engine_kind::exact, engine_kind::vllm, engine_kind::sglang, engine_kind::llama_cpp,
                              engine_kind::trtllm, engine_kind::transformers}) {
    kvsize::engine_options o{.context = 8'192, .batch = 4};
    const auto s = kvsize::size_cache(m, e, o);
    const auto f = kvsize::fit_on_device(m, e, s, o, 80_GiB, weights);
    INFO(kvsize::name(e));
    CHECK(f.startup.kv == f.budget.kv);
    CHECK(f.startup.kv > 0_B);
    CHECK(f.startup.device == 80_GiB);
    // The weights as loaded are the weights and the buffers loaded with them (vLLM: the rotary cache);
    // the workspace is the rest of the start-up terms.
    CHECK(f.startup.weights == weights + f.workspace.buffers);
    CHECK(f.startup.activation_peak == f.workspace.peak());
    CHECK(f.startup.weights + f.startup.activation_peak + f.startup.non_torch + f.workspace.runtime ==
          weights + f.budget.workspace);
    CHECK(f.startup.balanced());
    CHECK(f.capacity.kv_budget == f.budget.kv);
  }
}

TEST_CASE("fit_on_device: weights larger than the device leave no KV budget, and say so", "[device_fit]") {
  const kvsize::model_spec m = kvsize::presets::llama_3_8b;
  kvsize::engine_options o{.context = 4'096};
  const auto s = kvsize::size_cache(m, engine_kind::vllm, o);
  const auto f = kvsize::fit_on_device(m, engine_kind::vllm, s, o, 8_GiB, 16_GiB);
  CHECK(f.startup.kv == 0_B);
  CHECK_FALSE(f.startup.balanced());  // the terms exceed what the device has
  CHECK(f.startup.unused == 0_B);
}
