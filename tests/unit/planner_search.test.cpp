// SPDX-License-Identifier: MIT
// The context searches (kvsize/planner.hpp plan_max_context_as, kvsize/device_fit.hpp
// max_context_in_budget_as) size the cache once and derive every other context from that sizing
// (engine member with_context, through size_cache_from_as in kvsize/engine.hpp). Property tests
// over every config in configs/, every engine and a spread of options: (1) with_context gives
// the sizing a fresh size_cache_as gives, field by field, or the same error; (2) both searches
// give the answer of the binary search over fresh sizings they replaced (written out below as
// it was before the change).
#include <catch2/catch_test_macros.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <kvsize/device_fit.hpp>
#include <kvsize/hf_config.hpp>
#include <kvsize/kvsize.hpp>
#include <kvsize/planner.hpp>

#include "hf_support.hpp"

using namespace kvsize::literals;
using kvsize::bytes;
using kvsize::engine_options;
using kvsize::engine_sizing;

namespace {

auto same_part(const kvsize::cache_part& a, const kvsize::cache_part& b) -> bool {
  return a.layers == b.layers && a.window == b.window && a.block_size == b.block_size &&
         a.groups == b.groups && a.padding_layers == b.padding_layers &&
         a.blocks_per_sequence == b.blocks_per_sequence && a.cells == b.cells && a.streams == b.streams &&
         a.bytes_per_token == b.bytes_per_token && a.k_bytes == b.k_bytes && a.v_bytes == b.v_bytes &&
         a.k_per_token == b.k_per_token && a.v_per_token == b.v_per_token && a.types == b.types && a.group == b.group;
}

/// Every field of two sizings (the parts too).
auto same_sizing(const engine_sizing& a, const engine_sizing& b) -> bool {
  bool same = a.engine == b.engine && a.kv == b.kv && a.first_layer == b.first_layer &&
              a.stage_layers == b.stage_layers && a.kv_heads_per_rank == b.kv_heads_per_rank &&
              a.block_size == b.block_size && a.context == b.context && a.kv_bytes_per_token == b.kv_bytes_per_token &&
              a.kv_bytes_per_sequence == b.kv_bytes_per_sequence && a.kv_bytes == b.kv_bytes &&
              a.state_bytes_per_sequence == b.state_bytes_per_sequence && a.prefix_bytes_saved == b.prefix_bytes_saved &&
              a.prefix_bytes_per_sequence == b.prefix_bytes_per_sequence && a.logits_bytes == b.logits_bytes &&
              a.state == b.state && a.vllm == b.vllm &&
              a.llama_cpp == b.llama_cpp && a.part_count == b.part_count;
  for (std::uint32_t i = 0; same && i < a.part_count; ++i) {
    same = same_part(a.part(i), b.part(i));
  }
  return same;
}

/// A sizing, or which error sizing threw.
struct outcome {
  std::optional<engine_sizing> sizing{};
  int error = 0;  ///< 1: invalid_argument, 2: overflow_error
};
template <class F>
auto outcome_of(F f) -> outcome {
  try {
    return {f(), 0};
  } catch (const kvsize::overflow_error&) {
    return {std::nullopt, 2};
  } catch (const kvsize::invalid_argument&) {
    return {std::nullopt, 1};
  }
}

struct model {
  std::string name;
  kvsize::model_spec spec{};
  bytes weights{0};
};

auto bundled_models() -> std::vector<model> {
  std::vector<model> models;
  for (const auto& entry : std::filesystem::directory_iterator(kvsize::test::configs_dir())) {
    if (entry.path().extension() != ".json") {
      continue;
    }
    model x{entry.path().filename().string(), kvsize::hf::load_config(entry.path()).spec};
    try {
      x.weights = kvsize::weights_bytes(x.spec, kvsize::uniform_weights(kvsize::dtype::bf16));
    } catch (const kvsize::error&) {
      x.weights = bytes{0};
    }
    models.push_back(x);
  }
  return models;
}

template <class F, kvsize::engine... E>
void for_each_engine(kvsize::engine_list<E...> /*list*/, F f) {
  (f(E{}), ...);
}

/// Option variant `v` (0..3) for engine E: defaults; tp 2, a shared prefix and a block size;
/// an 8-bit cache and the engine's other knobs; two pipeline stages (the path that sizes).
template <class E>
auto variant(std::uint32_t v) -> engine_options {
  engine_options o{};
  o.batch = 3;
  const bool llama = E::kind == kvsize::engine_kind::llama_cpp;
  if (v == 1) {
    o.tp = 2;
    o.shared_prefix = 512;
    o.block_size = E::kind == kvsize::engine_kind::vllm     ? 32
                   : E::kind == kvsize::engine_kind::sglang ? 16
                   : E::kind == kvsize::engine_kind::trtllm ? 64
                                                            : 0;
    o.llama_cpp.parallel = 3;
    o.llama_cpp.kv_unified = true;
    o.transformers.logits_to_keep = 1;
  } else if (v == 2) {
    o.kv = kvsize::kv_dtypes::same(llama ? kvsize::dtype::q8_0 : kvsize::dtype::fp8_e4m3);
    o.shared_prefix = 100;
    o.vllm.max_num_batched_tokens = 2'048;
    o.vllm.disable_hybrid_kv_cache_manager = true;
    o.sglang.swa_pool = true;
    o.llama_cpp.parallel = 2;
    o.llama_cpp.swa_full = true;
    o.llama_cpp.ctx_pad = 1;
    o.llama_cpp.ubatch = 4'096;
  } else if (v == 3) {
    o.pp = 2;
  }
  return o;
}

/// The binary search plan_max_context_as was before it derived contexts: a fresh sizing per probe.
template <class E>
auto old_plan_max_context(const kvsize::model_spec& m, const kvsize::plan_inputs& in, std::uint64_t users,
                          std::uint32_t tp, std::uint64_t limit) -> std::uint64_t {
  kvsize::detail::check_model(m);
  if (limit == 0 || !kvsize::detail::plan_fits<E>(m, in, 1, users, tp)) {
    return 0;
  }
  return kvsize::detail::last_true(
      1, limit, [&](std::uint64_t t) { return kvsize::detail::plan_fits<E>(m, in, t, users, tp); });
}

/// The binary search max_context_in_budget_as was before: a fresh sizing per probe.
template <class E>
auto old_max_context_in_budget(const kvsize::model_spec& m, engine_options o, bytes kv_budget, std::uint64_t batch,
                               std::uint64_t limit) -> std::uint64_t {
  const auto fits = [&](std::uint64_t context) {
    o.context = context;
    try {
      return E::capacity(kvsize::size_cache_as<E>(m, o), o, kv_budget).max_sequences >= batch;
    } catch (const kvsize::overflow_error&) {
      return false;
    }
  };
  if (!fits(1)) {
    return 0;
  }
  return kvsize::detail::last_true(1, limit, fits);
}

constexpr std::uint64_t seed_contexts[] = {1, 4'096, 131'072};
constexpr std::uint64_t target_contexts[] = {1,     2,     15,    16,    17,     255,    256,    257,      1'000,
                                             2'047, 4'095, 4'096, 4'097, 8'191,  32'768, 40'000, 131'072, 1'000'000};

}  // namespace

TEST_CASE("planner_search: with_context equals a fresh sizing at the other context", "[planner][search][engines]") {
  const std::vector<model> models = bundled_models();
  REQUIRE(models.size() > 40);
  for_each_engine(kvsize::registered_engines{}, [&]<class E>(E) {
    std::uint64_t derived = 0;
    for (const model& x : models) {
      for (std::uint32_t v = 0; v < 4; ++v) {
        for (std::uint64_t c0 : seed_contexts) {
          engine_options o = variant<E>(v);
          o.context = c0;
          const outcome seed = outcome_of([&] { return kvsize::size_cache_as<E>(x.spec, o); });
          if (!seed.sizing) {
            continue;
          }
          for (std::uint64_t t : target_contexts) {
            o.context = t;
            const outcome fresh = outcome_of([&] { return kvsize::size_cache_as<E>(x.spec, o); });
            std::optional<engine_sizing> from = seed.sizing;
            const outcome got = outcome_of([&] { return kvsize::size_cache_from_as<E>(x.spec, o, from); });
            INFO(E::name << " " << x.name << " variant " << v << " from " << c0 << " to " << t);
            REQUIRE(got.error == fresh.error);
            if (fresh.sizing) {
              CHECK(same_sizing(*got.sizing, *fresh.sizing));
            }
            if (E::layer_split_devices(o) == 1 && E::with_context(x.spec, o, *seed.sizing)) {
              ++derived;
            }
          }
        }
      }
    }
    INFO(E::name);
    // Every engine but TensorRT-LLM (whose parts are windows that the context merges: sliding
    // windows ≥ the context join the full pool) and the ones listed derive every context on one
    // device; the others size.
    CHECK(derived > 0);
  });
}

TEST_CASE("planner_search: both context searches give the old binary search's answer", "[planner][search]") {
  const std::vector<model> models = bundled_models();
  const bytes devices[] = {16_GiB, 80_GiB, 640_GiB};
  const std::uint64_t users_of[] = {1, 24, 300};
  std::uint64_t compared = 0;
  std::uint64_t between = 0;  // answers strictly between 0 and the limit
  for_each_engine(kvsize::registered_engines{}, [&]<class E>(E) {
    for (std::size_t i = 0; i < models.size(); ++i) {
      const model& x = models[i];
      for (std::uint32_t v = 0; v < 4; ++v) {
        // Two of the nine (device, users) pairs per model and variant, varied over both.
        for (std::size_t k = 0; k < 2; ++k) {
          const std::size_t pick = (i * 7 + v * 3 + k * 4) % 9;
          kvsize::plan_inputs in{};
          in.weights = x.weights;
          in.device_memory = devices[pick / 3];
          in.engine = E::kind;
          in.options = variant<E>(v);
          in.options.context = 2'048;
          if (E::kind == kvsize::engine_kind::vllm && in.options.block_size != 0 &&
              kvsize::count_layers(x.spec, kvsize::layer_kind::indexed) != 0) {
            in.options.block_size = 128;  // vLLM pages MiniMax-M3's sparse layers in blocks of 128 only
          }
          if (!kvsize::model_refusal(E::kind, x.spec, in.options).empty()) {
            continue;  // not served as sized (SGLang's fixed MiniMax lightning cache): no answer to compare
          }
          const std::uint64_t users = users_of[pick % 3];
          const std::uint64_t limit = std::max<std::uint64_t>(x.spec.max_context, 2'048);
          INFO(E::name << " " << x.name << " variant " << v << " device " << in.device_memory.count() << " users "
                       << users);
          const std::uint64_t old = old_plan_max_context<E>(x.spec, in, users, in.options.tp, limit);
          CHECK(kvsize::plan_max_context_as<E>(x.spec, in, users, in.options.tp, limit) == old);
          between += old != 0 && old != limit ? 1 : 0;
          // The CLI's fixed-budget search, from the report's own sizing where it has one.
          engine_options o = in.options;
          o.batch = users;
          o.device_memory = in.device_memory;
          const bytes budget = in.device_memory / 4;
          const std::uint64_t old_budget = old_max_context_in_budget<E>(x.spec, o, budget, users, limit);
          const outcome report = outcome_of([&] { return kvsize::size_cache_as<E>(x.spec, o); });
          if (report.sizing) {
            CHECK(kvsize::max_context_in_budget_as<E>(x.spec, o, budget, users, limit, report.sizing) == old_budget);
          }
          CHECK(kvsize::max_context_in_budget_as<E>(x.spec, o, budget, users, limit) == old_budget);
          between += old_budget != 0 && old_budget != limit ? 1 : 0;
          ++compared;
        }
      }
    }
  });
  CHECK(compared > 1'000);
  CHECK(between > compared / 2);  // most answers are a real search, not an end of the range
}
