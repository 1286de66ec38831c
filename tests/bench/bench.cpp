// SPDX-License-Identifier: MIT
// kvsize's benchmark (issue 7): the hot path against a hand-written formula, a planner sweep, and
// parsing + sizing every config in configs/, parameters and weight bytes of each. Run on demand, never as a test:
//   tests/bench/run-benchmarks.sh          (builds in Release, runs this, then the process and compile figures)
//   build/bench/tests/bench/kvsize_bench [--quick] [CONFIG_DIR]
// Prints Markdown tables. Every figure is the median of several timed batches; allocations are counted
// by replacing the global operator new in this translation unit.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include <kvsize/engine.hpp>
#include <kvsize/gguf.hpp>
#include <kvsize/hf_config.hpp>
#include <kvsize/kvsize.hpp>
#include <nlohmann/json.hpp>


// ---------------------------------------------------------------------------------------------
// Allocation counting: every operator new of the program goes through here. GCC 12 sees the
// malloc/free inside these once inlined into std::allocator and calls the pair "mismatched".
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
namespace {
std::size_t g_allocations = 0;
}  // namespace

auto operator new(std::size_t size) -> void* {
  ++g_allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) {
    return p;
  }
  throw std::bad_alloc{};
}
auto operator new[](std::size_t size) -> void* { return operator new(size); }
auto operator new(std::size_t size, const std::nothrow_t&) noexcept -> void* {
  ++g_allocations;
  return std::malloc(size == 0 ? 1 : size);
}
auto operator new[](std::size_t size, const std::nothrow_t& t) noexcept -> void* { return operator new(size, t); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace {

// ---------------------------------------------------------------------------------------------
// Optimizer barriers (GCC and Clang).
template <class T>
inline void keep(const T& value) {
  asm volatile("" : : "r,m"(value) : "memory");
}
/// `p`, as a pointer the optimizer cannot see through: every field is loaded again after this.
template <class T>
[[nodiscard]] inline auto opaque(const T* p) -> const T* {
  asm volatile("" : "+r"(p) : : "memory");
  return p;
}
template <class T>
[[nodiscard]] inline auto opaque_value(T v) -> T {
  asm volatile("" : "+r"(v));
  return v;
}

using clock_type = std::chrono::steady_clock;

struct timing {
  double ns_per_call;       ///< median over the batches
  double allocs_per_call;   ///< allocations in one batch / calls
  std::uint64_t calls;      ///< calls per batch
};

bool g_quick = false;

/// Times `f(i)` for i = 0, 1, ...: finds a batch size that takes ~`target_ms`, then takes the median
/// of `batches` batches.
template <class F>
auto measure(F&& f, double target_ms = 20.0, int batches = 15) -> timing {
  if (g_quick) {
    target_ms /= 5;
    batches = 5;
  }
  std::uint64_t n = 1;
  for (;;) {  // calibrate
    const auto t0 = clock_type::now();
    for (std::uint64_t i = 0; i < n; ++i) {
      f(i);
    }
    const double ms = std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
    if (ms >= target_ms / 4 || n >= (std::uint64_t{1} << 40U)) {
      n = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(static_cast<double>(n) * target_ms / std::max(ms, 1e-3)));
      break;
    }
    n *= 4;
  }
  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(batches));
  std::size_t allocs = 0;
  for (int b = 0; b < batches; ++b) {
    const std::size_t a0 = g_allocations;
    const auto t0 = clock_type::now();
    for (std::uint64_t i = 0; i < n; ++i) {
      f(i);
    }
    const auto t1 = clock_type::now();
    allocs = g_allocations - a0;
    samples.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(n));
  }
  std::sort(samples.begin(), samples.end());
  return {samples[samples.size() / 2], static_cast<double>(allocs) / static_cast<double>(n), n};
}

/// The library and the hand-written side of one row, timed in alternating batches (lib, raw, lib,
/// raw, ...) so that both see the same machine load; the ratio is the median of the per-pair ratios.
struct paired_timing {
  timing lib;
  timing raw;
  double ratio;
};
template <class L, class R>
auto measure_pair(L&& lib, R&& raw, int batches = 31) -> paired_timing {
  if (g_quick) {
    batches = 7;
  }
  const timing lib_calibration = measure(lib, 5.0, 1);  // batch sizes of ~5 ms each
  const timing raw_calibration = measure(raw, 5.0, 1);
  const auto batch = [](auto& f, std::uint64_t n) {
    const auto t0 = clock_type::now();
    for (std::uint64_t i = 0; i < n; ++i) {
      f(i);
    }
    return std::chrono::duration<double, std::nano>(clock_type::now() - t0).count() / static_cast<double>(n);
  };
  std::vector<double> lib_ns;
  std::vector<double> raw_ns;
  std::vector<double> ratios;
  std::size_t lib_allocs = 0;
  for (int b = 0; b < batches; ++b) {
    const std::size_t a0 = g_allocations;
    lib_ns.push_back(batch(lib, lib_calibration.calls));
    lib_allocs += g_allocations - a0;
    raw_ns.push_back(batch(raw, raw_calibration.calls));
    ratios.push_back(lib_ns.back() / raw_ns.back());
  }
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double calls = static_cast<double>(lib_calibration.calls) * batches;
  return {{median(lib_ns), static_cast<double>(lib_allocs) / calls, lib_calibration.calls},
          {median(raw_ns), 0.0, raw_calibration.calls},
          median(ratios)};
}

// ---------------------------------------------------------------------------------------------
// Inputs.

/// Gemma-2-9B-style: 42 layers, every other one sliding (window 4,096), 8 KV heads × 256, bf16.
constexpr auto make_gemma() -> kvsize::model_spec {
  kvsize::model_spec m{.layers = 42, .attention_heads = 16, .kv_heads = 8, .head_dim = 256, .hidden_size = 3'584,
                       .vocab_size = 256'000, .max_context = 8'192, .sliding_window = 4'096};
  for (std::uint32_t il = 0; il < m.layers; il += 2) {
    m.layer[il].kind = kvsize::layer_kind::sliding;
  }
  return m;
}

const kvsize::model_spec g_qwen = kvsize::presets::qwen2_5_7b;
const kvsize::model_spec g_gemma = make_gemma();

/// Contexts and budgets the calls cycle through (a power of two long, so the index is a mask).
constexpr std::size_t n_inputs = 1024;
std::array<std::uint64_t, n_inputs> g_context{};
std::array<std::uint64_t, n_inputs> g_budget{};

void make_inputs() {
  std::uint64_t x = 0x9E3779B97F4A7C15ULL;
  for (std::size_t i = 0; i < n_inputs; ++i) {
    x ^= x << 13U;
    x ^= x >> 7U;
    x ^= x << 17U;
    g_context[i] = 1 + x % 32'768;                         // 1 .. 32k tokens
    g_budget[i] = (8ULL << 30U) + (x >> 20U) % (64ULL << 30U);  // 8 .. 72 GiB
  }
}

// ---------------------------------------------------------------------------------------------
// Hand-written formulas: what a caller would write inline for one known model, reading the same
// fields of the same spec.

/// Uniform model (Qwen2.5-7B): 2 × layers × kv_heads × head_dim × 2 B × context.
inline auto raw_uniform_kv(const kvsize::model_spec& m, std::uint64_t context) -> std::uint64_t {
  return std::uint64_t{2} * m.layers * m.kv_heads * m.head_dim * 2 * context;
}
/// Gemma-2 style: half the layers sliding, the other half full.
inline auto raw_gemma_kv(const kvsize::model_spec& m, std::uint64_t context) -> std::uint64_t {
  const std::uint64_t per_layer_token = std::uint64_t{2} * m.kv_heads * m.head_dim * 2;
  const std::uint64_t sliding = m.layers / 2;
  const std::uint64_t full = m.layers - sliding;
  return per_layer_token * (full * context + sliding * std::min<std::uint64_t>(context, m.sliding_window));
}

/// What a caller would write given only the spec, not knowing the model: a loop over its layers
/// (inherit resolved to the model's kind; full and sliding layers with the model's heads, as both
/// benchmark models have), unchecked arithmetic.
inline auto raw_layer_loop_kv(const kvsize::model_spec& m, std::uint64_t context) -> std::uint64_t {
  const std::uint64_t per_layer_token = std::uint64_t{2} * m.kv_heads * m.head_dim * 2;
  const std::uint64_t windowed = std::min<std::uint64_t>(context, m.sliding_window);
  std::uint64_t total = 0;
  for (std::uint32_t il = 0; il < m.layers; ++il) {
    const kvsize::layer_kind own = m.layer[il].kind;
    const kvsize::layer_kind k = own == kvsize::layer_kind::inherit ? m.attention : own;
    total += per_layer_token * (k == kvsize::layer_kind::sliding ? windowed : context);
  }
  return total;
}

struct row {
  std::string what;
  paired_timing t;
};

void print_hot_path() {
  std::vector<row> rows;
  const auto lib_kv = [](const kvsize::model_spec& spec) {
    return [&spec](std::uint64_t i) {
      const auto* m = opaque(&spec);
      keep(kvsize::kv_bytes_per_sequence(*m, g_context[i & (n_inputs - 1)]));
    };
  };
  const auto lib_cap = [](const kvsize::model_spec& spec) {
    return [&spec](std::uint64_t i) {
      const auto* m = opaque(&spec);
      const std::size_t k = i & (n_inputs - 1);
      keep(kvsize::max_sequences(*m, kvsize::bytes{g_budget[k]}, g_context[k], kvsize::cache_format::of(*m)));
    };
  };
  const auto raw_kv = [](const kvsize::model_spec& spec, auto formula) {
    return [&spec, formula](std::uint64_t i) {
      const auto* m = opaque(&spec);
      keep(formula(*m, g_context[i & (n_inputs - 1)]));
    };
  };
  const auto raw_cap = [](const kvsize::model_spec& spec, auto formula) {
    return [&spec, formula](std::uint64_t i) {
      const auto* m = opaque(&spec);
      const std::size_t k = i & (n_inputs - 1);
      const std::uint64_t per_sequence = formula(*m, g_context[k]);
      keep(g_budget[k] / per_sequence);
    };
  };
  // The same queries on a sequence_cost computed once per model (what a scheduler keeps).
  const auto cost_kv = [](const kvsize::sequence_cost& cost) {
    return [&cost](std::uint64_t i) {
      const auto* c = opaque(&cost);
      keep(c->kv.per_sequence(g_context[i & (n_inputs - 1)]));
    };
  };
  const auto cost_cap = [](const kvsize::sequence_cost& cost) {
    return [&cost](std::uint64_t i) {
      const auto* c = opaque(&cost);
      const std::size_t k = i & (n_inputs - 1);
      keep(kvsize::max_sequences(*c, kvsize::bytes{g_budget[k]}, g_context[k]));
    };
  };
  const auto qwen_cost = kvsize::sequence_cost::of(g_qwen, kvsize::cache_format::of(g_qwen));
  const auto gemma_cost = kvsize::sequence_cost::of(g_gemma, kvsize::cache_format::of(g_gemma));
  const auto uniform = [](const kvsize::model_spec& m, std::uint64_t c) { return raw_uniform_kv(m, c); };
  const auto gemma = [](const kvsize::model_spec& m, std::uint64_t c) { return raw_gemma_kv(m, c); };

  const auto layer_loop = [](const kvsize::model_spec& m, std::uint64_t c) { return raw_layer_loop_kv(m, c); };

  // Check that the hand-written formulas are the library's figures before timing them.
  for (std::size_t k = 0; k < n_inputs; ++k) {
    if (kvsize::kv_bytes_per_sequence(g_qwen, g_context[k]).count() != raw_uniform_kv(g_qwen, g_context[k]) ||
        kvsize::kv_bytes_per_sequence(g_gemma, g_context[k]).count() != raw_gemma_kv(g_gemma, g_context[k]) ||
        raw_layer_loop_kv(g_qwen, g_context[k]) != raw_uniform_kv(g_qwen, g_context[k]) ||
        raw_layer_loop_kv(g_gemma, g_context[k]) != raw_gemma_kv(g_gemma, g_context[k])) {
      std::fprintf(stderr, "kvsize_bench: a hand-written formula disagrees with the library\n");
      std::exit(1);
    }
  }

  rows.push_back({"kv_bytes_per_sequence, Qwen2.5-7B (28 uniform layers)",
                  measure_pair(lib_kv(g_qwen), raw_kv(g_qwen, uniform))});
  rows.push_back({"max_sequences, Qwen2.5-7B",
                  measure_pair(lib_cap(g_qwen), raw_cap(g_qwen, uniform))});
  rows.push_back({"kv_bytes_per_sequence, Gemma-2-9B-style (42 layers, 21 sliding)",
                  measure_pair(lib_kv(g_gemma), raw_kv(g_gemma, gemma))});
  rows.push_back({"max_sequences, Gemma-2-9B-style",
                  measure_pair(lib_cap(g_gemma), raw_cap(g_gemma, gemma))});
  rows.push_back({"kv_bytes_per_sequence, Qwen2.5-7B, against a hand-written loop over the spec's layers",
                  measure_pair(lib_kv(g_qwen), raw_kv(g_qwen, layer_loop))});
  rows.push_back({"kv_bytes_per_sequence, Gemma-2-9B-style, against a hand-written loop over the spec's layers",
                  measure_pair(lib_kv(g_gemma), raw_kv(g_gemma, layer_loop))});
  rows.push_back({"sequence_cost::kv.per_sequence, Qwen2.5-7B (cost computed once)",
                  measure_pair(cost_kv(qwen_cost), raw_kv(g_qwen, uniform))});
  rows.push_back({"max_sequences(sequence_cost), Qwen2.5-7B",
                  measure_pair(cost_cap(qwen_cost), raw_cap(g_qwen, uniform))});
  rows.push_back({"sequence_cost::kv.per_sequence, Gemma-2-9B-style",
                  measure_pair(cost_kv(gemma_cost), raw_kv(g_gemma, gemma))});
  rows.push_back({"max_sequences(sequence_cost), Gemma-2-9B-style",
                  measure_pair(cost_cap(gemma_cost), raw_cap(g_gemma, gemma))});

  std::printf("### Hot path: one query, against the hand-written formula\n\n");
  std::printf("| query | kvsize ns/call | hand-written ns/call | ratio | kvsize allocations/call |\n");
  std::printf("|---|---:|---:|---:|---:|\n");
  for (const auto& r : rows) {
    std::printf("| %s | %.2f | %.2f | %.2f× | %.0f |\n", r.what.c_str(), r.t.lib.ns_per_call, r.t.raw.ns_per_call,
                r.t.ratio, r.t.lib.allocs_per_call);
  }
  std::printf("\n");
}

// ---------------------------------------------------------------------------------------------
// A sweep of 1,000,000 (context, batch) points through the planner: does it fit, and if not, the
// longest context that does and the most sequences at this context.
void print_sweep() {
  struct sweep_result {
    const char* what;
    double ms;
    double allocs;
  };
  std::vector<sweep_result> results;
  const auto sweep = [](const kvsize::model_spec& spec, const char* what, bool precomputed,
                        std::vector<sweep_result>& out) {
    constexpr std::uint64_t contexts = 1'000;
    constexpr std::uint64_t batches = 1'000;
    const kvsize::bytes memory = kvsize::gpu("h100-80gb").memory;
    const kvsize::bytes weights{15'231'233'024};
    std::vector<double> samples;
    std::size_t allocs = 0;
    for (int rep = 0; rep < (g_quick ? 1 : 5); ++rep) {
      std::uint64_t checksum = 0;
      const std::size_t a0 = g_allocations;
      const auto t0 = clock_type::now();
      const auto* m = opaque(&spec);
      const auto f = kvsize::cache_format::of(*m);
      const auto cost = kvsize::sequence_cost::of(*m, f);
      for (std::uint64_t c = 0; c < contexts; ++c) {
        const std::uint64_t context = 128 * (c + 1);  // 128 .. 128,000 tokens
        for (std::uint64_t b = 1; b <= batches; ++b) {
          const kvsize::bytes budget = kvsize::kv_budget(memory, weights);
          if (precomputed) {
            const auto& sc = *opaque(&cost);
            if (kvsize::check_fit(sc, memory, context, b, weights).fits()) {
              ++checksum;
            } else {
              checksum += kvsize::max_sequences(sc, budget, context);
              checksum += kvsize::max_context(sc, budget, b, context);
            }
          } else if (kvsize::check_fit(*m, memory, context, b, weights, f).fits()) {
            ++checksum;
          } else {
            checksum += kvsize::max_sequences(*m, budget, context, f);
            checksum += kvsize::max_context(*m, budget, b, f, context);
          }
        }
      }
      const auto t1 = clock_type::now();
      allocs = g_allocations - a0;
      keep(checksum);
      samples.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::sort(samples.begin(), samples.end());
    out.push_back({what, samples[samples.size() / 2], static_cast<double>(allocs)});
  };
  sweep(g_qwen, "Qwen2.5-7B, on the spec", false, results);
  sweep(g_qwen, "Qwen2.5-7B, on a sequence_cost", true, results);
  sweep(g_gemma, "Gemma-2-9B-style, on the spec", false, results);
  sweep(g_gemma, "Gemma-2-9B-style, on a sequence_cost", true, results);
  std::printf("### Planner sweep: 1,000,000 (context, batch) points on an H100 80 GB (81,559 MiB)\n\n");
  std::printf("Each point: check_fit; where it does not fit, max_sequences at that context and max_context at that batch.\n\n");
  std::printf("| model | ms per sweep | ns per point | allocations |\n|---|---:|---:|---:|\n");
  for (const auto& r : results) {
    std::printf("| %s | %.1f | %.1f | %.0f |\n", r.what, r.ms, r.ms * 1e6 / 1e6 /* 10^6 points */, r.allocs);
  }
  std::printf("\n");
}

// ---------------------------------------------------------------------------------------------
// Parsing + sizing every config in configs/.
void print_configs(const std::filesystem::path& dir) {
  std::vector<std::pair<std::string, std::string>> files;  // name, text
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") {
      std::ifstream in(entry.path(), std::ios::binary);
      files.emplace_back(entry.path().filename().string(),
                         std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
    }
  }
  std::sort(files.begin(), files.end());
  std::size_t total_bytes = 0;
  for (const auto& [name, text] : files) {
    total_bytes += text.size();
  }
  const double mb = static_cast<double>(total_bytes) / 1e6;
  const auto n = static_cast<double>(files.size());

  // The floor: nlohmann::json::parse alone on the same bytes (after the pre-scan's replacement of
  // bare Infinity/NaN, which nlohmann refuses; the same length).
  std::vector<std::string> plain;
  for (const auto& f : files) {
    plain.emplace_back(kvsize::hf::detail::prepare(f.second, kvsize::hf::parse_limits{}).source(f.second));
  }
  const timing floor = measure([&](std::uint64_t) {
    for (const auto& text : plain) {
      keep(nlohmann::json::parse(text));
    }
  }, 50.0, 9);
  // kvsize: parse_config (pre-scan, parse, read) and size (per token, per sequence, capacity).
  const timing full = measure([&](std::uint64_t) {
    for (const auto& f : files) {
      const auto c = kvsize::hf::parse_config(f.second, f.first);
      keep(kvsize::kv_bytes_per_token(c.spec));
      keep(kvsize::kv_bytes_per_sequence(c.spec, 4'096));
      keep(kvsize::max_sequences(c.spec, kvsize::bytes{80ULL << 30U}, 4'096, kvsize::cache_format::of(c.spec)));
    }
  }, 50.0, 9);
  // The stages of parse_config, to see where the time goes.
  const timing pre = measure([&](std::uint64_t) {
    for (const auto& f : files) {
      keep(kvsize::hf::detail::prepare(f.second, kvsize::hf::parse_limits{}));
    }
  }, 50.0, 9);
  std::vector<nlohmann::json> docs;
  for (const auto& text : plain) {
    docs.push_back(nlohmann::json::parse(text));
  }
  const timing read = measure([&](std::uint64_t) {
    for (const auto& d : docs) {
      keep(kvsize::hf::detail::read_document(d, {}));
    }
  }, 50.0, 9);

  std::printf("### Parsing + sizing every config in configs/ (%zu files, %.1f kB of JSON)\n\n", files.size(),
              static_cast<double>(total_bytes) / 1e3);
  std::printf("| stage | µs per config | MB/s of JSON | allocations per config |\n|---|---:|---:|---:|\n");
  const auto line = [&](const char* what, const timing& t) {
    const double us = t.ns_per_call / 1e3 / n;
    std::printf("| %s | %.1f | %.1f | %.0f |\n", what, us, mb / (t.ns_per_call / 1e9), t.allocs_per_call / n);
  };
  line("**kvsize: parse_config + sizing**", full);
  line("floor: nlohmann::json::parse alone", floor);
  line("of which: pre-scan (`prepare`)", pre);
  line("of which: reading the document (`read_document`)", read);
  std::printf("\nRatio parse_config + sizing / nlohmann::json::parse: %.2f×\n\n", full.ns_per_call / floor.ns_per_call);
}

// ---------------------------------------------------------------------------------------------
// Parameters and weight bytes of every config in configs/ (the tensor enumeration of weights.hpp).
void print_weights(const std::filesystem::path& dir) {
  std::vector<kvsize::model_spec> specs;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") {
      specs.push_back(kvsize::hf::load_config(entry.path()).spec);
    }
  }
  const auto n = static_cast<double>(specs.size());
  struct weights_row {
    const char* what;
    kvsize::weights_format format;
  };
  const std::array<weights_row, 5> rows{{
      {"weights_bytes, uniform bf16", kvsize::uniform_weights(kvsize::dtype::bf16)},
      {"weights_bytes, GGUF q4_K_M (per-tensor rules)", kvsize::gguf_weights(kvsize::gguf_ftype::q4_K_M)},
      {"weights_bytes, GPTQ 4-bit, group 128", kvsize::gptq_weights(4, 128)},
      {"weights_bytes, FP8 128 × 128 blocks", kvsize::fp8_weights()},
      {"weights_bytes, bitsandbytes NF4", kvsize::bnb_4bit_weights()},
  }};
  std::printf("### Parameters and weight bytes of every config in configs/ (%zu specs, parsed once)\n\n", specs.size());
  std::printf("| query | ns per config | allocations per config |\n|---|---:|---:|\n");
  const timing params = measure([&](std::uint64_t) {
    for (const auto& m : specs) {
      keep(kvsize::parameters(*opaque(&m)).total);
    }
  });
  std::printf("| parameters | %.0f | %.0f |\n", params.ns_per_call / n, params.allocs_per_call / n);
  for (const auto& r : rows) {
    const timing t = measure([&](std::uint64_t) {
      for (const auto& m : specs) {
        keep(kvsize::weights_bytes(*opaque(&m), *opaque(&r.format)));
      }
    });
    std::printf("| %s | %.0f | %.0f |\n", r.what, t.ns_per_call / n, t.allocs_per_call / n);
  }
  std::printf("\n");
}

/// Reading GGUF headers (issue 15): the metadata-only and the full header read against their floor,
/// reading the file once (and its first 64 KiB, what the metadata-only read takes).
void print_gguf(const std::vector<std::filesystem::path>& files) {
  std::printf("### Reading GGUF headers (page cache warm; median of batches)\n\n");
  std::printf("| file | MB | read | ms | × its floor | bytes read from the file |\n|---|---:|---|---:|---:|---:|\n");
  for (const auto& path : files) {
    const double mb = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
    std::vector<char> buffer(std::filesystem::file_size(path));
    const auto read_prefix = [&](std::size_t n) {
      std::ifstream in(path, std::ios::binary);
      in.read(buffer.data(), static_cast<std::streamsize>(n));
      keep(static_cast<std::uint64_t>(in.gcount()));
    };
    const timing whole = measure([&](std::uint64_t) { read_prefix(buffer.size()); }, 50.0, 9);
    const timing head = measure([&](std::uint64_t) { read_prefix(std::min<std::size_t>(buffer.size(), 65'536)); });
    kvsize::gguf::read_options meta;
    meta.metadata_only = true;
    std::uint64_t meta_bytes = 0;
    std::uint64_t full_bytes = 0;
    const timing m = measure([&](std::uint64_t) { meta_bytes = kvsize::gguf::load_gguf(path, meta).bytes_read; });
    const timing f = measure([&](std::uint64_t) { full_bytes = kvsize::gguf::load_gguf(path).bytes_read; }, 50.0, 9);
    const std::string name = path.filename().string();
    std::printf("| %s | %.1f | floor: the whole file | %.3f | 1.00 | %zu |\n", name.c_str(), mb, whole.ns_per_call / 1e6,
                buffer.size());
    std::printf("| | | floor: its first 64 KiB | %.3f | 1.00 | %zu |\n", head.ns_per_call / 1e6,
                std::min<std::size_t>(buffer.size(), 65'536));
    std::printf("| | | metadata only | %.3f | %.2f (of 64 KiB) | %llu |\n", m.ns_per_call / 1e6,
                m.ns_per_call / head.ns_per_call, static_cast<unsigned long long>(meta_bytes));
    std::printf("| | | full header | %.3f | %.2f (of the file) | %llu |\n", f.ns_per_call / 1e6,
                f.ns_per_call / whole.ns_per_call, static_cast<unsigned long long>(full_bytes));
  }
  std::printf("\n");
}

/// llama.cpp's offload planning (issue 15): one placement (split_layers) on one GPU and over four,
/// and the -ngl search (largest_fitting_split: bisection on one GPU of 24 GiB, a scan from the top over
/// four of 8 GiB, which hold 56 of the 81 slots, so the scan places 26 splits), for Llama-2-70B (80
/// blocks) at 4,096 tokens with 0.49 GB per block (a Q4_K_M-sized block).
void print_offload(const std::filesystem::path& dir) {
  namespace lc = kvsize::engines::llama_cpp;
  const kvsize::model_spec m = kvsize::hf::load_config(dir / "meta-llama__Llama-2-70b-hf.config.json").spec;
  const std::vector<std::uint64_t> blocks(m.layers, 490'000'000);
  lc::slot_weights w;
  w.block = blocks;
  w.output = kvsize::bytes{430'000'000};
  w.token_embedding = kvsize::bytes{270'000'000};
  kvsize::engine_options o;
  o.context = 4'096;
  lc::offload_request one;
  one.n_gpu_layers = 40;
  lc::offload_request four;
  four.devices = 4;
  const kvsize::bytes gpu = kvsize::GiB * 24;
  const kvsize::bytes small_gpu = kvsize::GiB * 8;
  struct offload_row {
    const char* what;
    timing t;
  };
  const std::array<offload_row, 4> rows{{
      {"split_layers, 1 GPU, -ngl 40",
       measure([&](std::uint64_t) { keep(lc::split_layers(*opaque(&m), o, w, *opaque(&one)).device_total()); })},
      {"split_layers, 4 GPUs, every slot",
       measure([&](std::uint64_t) { keep(lc::split_layers(*opaque(&m), o, w, *opaque(&four)).device_total()); })},
      {"largest_fitting_split, 1 GPU of 24 GiB (bisection)",
       measure([&](std::uint64_t) { keep(lc::largest_fitting_split(*opaque(&m), o, w, *opaque(&one), gpu).has_value()); })},
      {"largest_fitting_split, 4 GPUs of 8 GiB (scan from the top)",
       measure([&](std::uint64_t) {
         keep(lc::largest_fitting_split(*opaque(&m), o, w, *opaque(&four), small_gpu).has_value());
       })},
  }};
  const auto found_one = lc::largest_fitting_split(m, o, w, one, gpu);
  const auto found_four = lc::largest_fitting_split(m, o, w, four, small_gpu);
  std::printf("### llama.cpp offload planning, Llama-2-70B (80 blocks), 4,096 tokens\n\n");
  std::printf("-ngl found: %u of %u on 1 × 24 GiB, %u of %u on 4 × 8 GiB.\n\n", found_one ? found_one->gpu_slots : 0U,
              m.layers + 1, found_four ? found_four->gpu_slots : 0U, m.layers + 1);
  std::printf("| query | µs per call | × one placement on 1 GPU | allocations per call |\n|---|---:|---:|---:|\n");
  for (const auto& r : rows) {
    std::printf("| %s | %.2f | %.1f | %.0f |\n", r.what, r.t.ns_per_call / 1e3, r.t.ns_per_call / rows[0].t.ns_per_call,
                r.t.allocs_per_call);
  }
  std::printf("\n");
}

}  // namespace

auto main(int argc, char** argv) -> int {
  std::filesystem::path configs = KVSIZE_BENCH_CONFIG_DIR;
  std::vector<std::filesystem::path> extra_gguf;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--quick") {
      g_quick = true;
    } else if (a == "--help" || a == "-h") {
      std::printf("usage: kvsize_bench [--quick] [--gguf FILE]... [CONFIG_DIR]\n"
                  "Prints the hot-path, planner-sweep, config-parsing and weights tables of BENCHMARKS.md.\n"
                  "CONFIG_DIR: a directory of config.json files (default: the repository's configs/);\n"
                  "--gguf FILE: also time reading this GGUF (beside CONFIG_DIR/gguf/*.gguf).\n");
      return 0;
    } else if (a == "--gguf" && i + 1 < argc) {
      extra_gguf.emplace_back(argv[++i]);
    } else if (a.starts_with("-")) {
      std::fprintf(stderr, "kvsize_bench: unknown option %s (try --help)\n", argv[i]);
      return 2;
    } else {
      configs = a;
    }
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(configs, ec)) {
    std::fprintf(stderr, "kvsize_bench: %s is not a directory of config.json files\n", configs.string().c_str());
    return 2;
  }
  make_inputs();
  const auto stage = [](const char* what, auto f) {
    const auto t0 = clock_type::now();
    f();
    std::fprintf(stderr, "kvsize_bench: %s took %.1f s\n", what,
                 std::chrono::duration<double>(clock_type::now() - t0).count());
  };
  stage("hot path", print_hot_path);
  stage("sweep", print_sweep);
  stage("configs", [&] { print_configs(configs); });
  stage("weights", [&] { print_weights(configs); });
  std::vector<std::filesystem::path> gguf_files;
  for (const auto& e : std::filesystem::directory_iterator(configs / "gguf", ec)) {
    if (e.path().extension() == ".gguf") {
      gguf_files.push_back(e.path());
    }
  }
  std::sort(gguf_files.begin(), gguf_files.end());
  gguf_files.insert(gguf_files.end(), extra_gguf.begin(), extra_gguf.end());
  stage("gguf", [&] { print_gguf(gguf_files); });
  stage("offload", [&] { print_offload(configs); });
  return 0;
}
