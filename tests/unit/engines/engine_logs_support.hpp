// SPDX-License-Identifier: MIT
// Helpers for the engine-log tests (tests/unit/engines/<engine>.test.cpp): every case there
// reproduces figures an engine printed, to the printed precision, and names its source: the
// issue/PR/doc URL, or, for a log found in a public repository whose address the search did not
// give, what the document is and the log lines quoted from it. Arithmetic for each entry:
// docs/research/engine-logs.md (entry ids A*, S*, L*, T*, O1).
//
// Inputs that are themselves printed rounded (vLLM's "Available KV cache memory: 44.59 GiB",
// TRT-LLM's "available: 21.89 GiB") are taken as the interval they stand for: the case passes
// when some budget in that interval reproduces every other printed figure of the log, and the
// case says so. Models in configs/ are loaded through kvsize::hf::load_config, which checks the
// config parser too; others are written out from their config.json values.
#pragma once

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <kvsize/engine.hpp>
#include <kvsize/engines_fmt.hpp>
#include <kvsize/hf_config.hpp>
#include <kvsize/kvsize.hpp>

#ifndef KVSIZE_SOURCE_DIR
#error "define KVSIZE_SOURCE_DIR as the project root (the CMake build does)"
#endif

namespace kvsize::test::engine_logs {

// The names the cases use unqualified (a test file's `using namespace kvsize::test::engine_logs;`
// brings them in with the helpers).
using namespace kvsize::literals;
using kvsize::bytes;
using kvsize::dtype;
using kvsize::engine_kind;
using kvsize::engine_options;
using kvsize::GiB;
using kvsize::layer_kind;
using kvsize::MiB;
using kvsize::model_spec;

/// The spec of configs/<file>, read once.
inline auto config(const std::string& file) -> const model_spec& {
  static std::map<std::string, model_spec> cache;
  auto it = cache.find(file);
  if (it == cache.end()) {
    it = cache.emplace(file, kvsize::hf::load_config(std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs" / file).spec)
             .first;
  }
  return it->second;
}

inline auto lines(const model_spec& m, engine_kind e, const engine_options& o, std::optional<bytes> budget = std::nullopt)
    -> std::vector<std::string> {
  return kvsize::engine_log_lines(m, e, o, budget);
}

inline auto has_line(const std::vector<std::string>& ls, const std::string& line) -> bool {
  return std::find(ls.begin(), ls.end(), line) != ls.end();
}

/// The text of the line that ends with `tail` (llama.cpp's prefix changed names across versions).
inline auto has_tail(const std::vector<std::string>& ls, const std::string& tail) -> bool {
  return std::any_of(ls.begin(), ls.end(), [&](const std::string& l) {
    return l.size() >= tail.size() && l.compare(l.size() - tail.size(), tail.size(), tail) == 0;
  });
}

/// Every budget B that prints as `printed` GiB at 2 decimals, stepped by `step` bytes.
/// True if `ok(B)` for at least one of them.
inline auto some_budget_prints_as(double printed_gib, bytes step, const std::function<bool(bytes)>& ok) -> bool {
  const double unit = static_cast<double>(GiB.count());
  const auto lo = static_cast<std::uint64_t>(std::ceil((printed_gib - 0.005) * unit));
  const auto hi = static_cast<std::uint64_t>(std::floor((printed_gib + 0.005) * unit));
  for (std::uint64_t b = lo; b < hi; b += step.count()) {
    if (ok(bytes{b})) {
      return true;
    }
  }
  return ok(bytes{hi});
}

/// Some budget that vLLM prints as "Available KV cache memory: `available_gib` GiB" gives every
/// line of `expected` (stepped by one pool block: the budget's other bytes change nothing).
inline auto vllm_reproduces(const model_spec& m, const engine_options& o, double available_gib,
                            const std::vector<std::string>& expected) -> bool {
  const auto s = kvsize::size_cache(m, engine_kind::vllm, o);
  return some_budget_prints_as(available_gib, s.vllm.pool_block_bytes, [&](bytes b) {
    const auto ls = lines(m, engine_kind::vllm, o, b);
    return std::all_of(expected.begin(), expected.end(), [&](const std::string& e) { return has_line(ls, e); });
  });
}

inline auto rounded(double v, int decimals) -> double {
  const double scale = std::pow(10.0, decimals);
  return std::round(v * scale) / scale;
}
// Models used by more than one engine's cases, from their config.json values.
// google/gemma-3-1b-it: 26 layers, every 6th full (il % 6 == 5), the rest sliding (512); 4 heads,
// 1 KV head, head_dim 256.
constexpr auto gemma3_like(std::uint32_t layers, std::uint32_t heads, std::uint32_t kv_heads, std::uint32_t window,
                           std::uint32_t hidden) -> model_spec {
  model_spec m{.layers = layers, .attention_heads = heads, .kv_heads = kv_heads, .head_dim = 256,
               .hidden_size = hidden, .vocab_size = 262'144, .attention = layer_kind::sliding,
               .sliding_window = window};
  for (std::uint32_t il = 5; il < layers; il += 6) {
    m.layer[il].kind = layer_kind::full;
  }
  return m;
}
inline constexpr model_spec gemma3_1b = gemma3_like(26, 4, 1, 512, 1'152);
inline constexpr model_spec gemma3_270m = gemma3_like(18, 4, 1, 512, 640);
// Qwen/Qwen2.5-Coder-32B-Instruct: 64 layers, 40 heads, 8 KV heads, 128.
inline constexpr model_spec qwen2_5_32b{.layers = 64, .attention_heads = 40, .kv_heads = 8, .head_dim = 128,
                                 .hidden_size = 5'120, .vocab_size = 152'064};

}  // namespace kvsize::test::engine_logs
