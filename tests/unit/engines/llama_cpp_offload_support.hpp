// SPDX-License-Identifier: MIT
// What the llama.cpp offload tests share: Llama-3.1-8B's shape in llama.cpp's f16 cache at -c 4096.
#pragma once

#include <kvsize/engine.hpp>
#include <kvsize/hf_config.hpp>

#include <cstdint>
#include <filesystem>

namespace kvsize_test {

inline constexpr std::uint64_t mib = 1ULL << 20U;

/// Llama-3.1-8B's shape (32 layers, 8 KV heads × 128) in llama.cpp's f16 cache at -c 4096: every layer's
/// K and V take 2 × 8 × 128 × 2 B × 4,096 cells = 16 MiB (512 MiB in all, llama.cpp's "KV self size").
inline auto llama3_f16() -> kvsize::model_spec {
  auto m = kvsize::hf::load_config(std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs" /
                                   "meta-llama__Llama-3.1-8B.config.json")
               .spec;
  m.compute_dtype = kvsize::dtype::f16;
  return m;
}

/// llama.cpp's options at -c 4096 with an f16 cache.
inline auto options_4k_f16() -> kvsize::engine_options {
  kvsize::engine_options o{.context = 4'096};
  o.kv = kvsize::kv_dtypes::same(kvsize::dtype::f16);
  return o;
}

}  // namespace kvsize_test
