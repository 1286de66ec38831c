// SPDX-License-Identifier: MIT
// A small catalog of accelerators: memory in exact bytes and peak memory bandwidth.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>        // std::array
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <string_view>  // std::string_view

#include "error.hpp"
#include "bytes.hpp"

namespace kvsize {

/// One accelerator model.
struct gpu_spec {
  std::string_view id;          ///< what `--gpu` takes: "h100-80gb"
  std::string_view name;        ///< marketing name
  bytes memory;                 ///< total device memory as nvidia-smi / rocm-smi report it. CUDA's own
                                ///< total (cudaMemGetInfo, which vLLM and SGLang budget from) runs
                                ///< 300-700 MiB lower, depending on driver and host (docs/engines.md)
  std::string_view marketed;    ///< the capacity as sold ("80 GB"); often a GiB figure called GB
  std::uint64_t bandwidth;      ///< peak memory bandwidth, bytes per second (vendor data sheet)
};

// The "marketed" column shows why kvsize never trusts a "GB" label: an "80 GB" H100 has
// 80 GiB of HBM of which the driver exposes 81,559 MiB; a "12 GB" RTX 3060 has 12 GiB.
// Every memory and bandwidth figure below, with its public source (nvidia-smi / rocm-smi output for
// the named variant; vendor data sheet): docs/research/gpu-catalog.md.
// clang-format off
inline constexpr std::array<gpu_spec, 11> gpu_catalog{{
    {"rtx-3060",   "NVIDIA GeForce RTX 3060 12 GB", MiB * 12'288,  "12 GB",  360'000'000'000},
    {"rtx-4090",   "NVIDIA GeForce RTX 4090",       MiB * 24'564,  "24 GB",  1'008'000'000'000},
    {"l4",         "NVIDIA L4",                     MiB * 23'034,  "24 GB",  300'000'000'000},
    {"l40s",       "NVIDIA L40S",                   MiB * 46'068,  "48 GB",  864'000'000'000},
    {"a100-40gb",  "NVIDIA A100 40 GB (SXM4)",      MiB * 40'960,  "40 GB",  1'555'000'000'000},
    {"a100-80gb",  "NVIDIA A100 80 GB (SXM4)",      MiB * 81'920,  "80 GB",  2'039'000'000'000},
    {"h100-80gb",  "NVIDIA H100 80 GB (SXM5)",      MiB * 81'559,  "80 GB",  3'350'000'000'000},
    {"h200",       "NVIDIA H200 (SXM)",             MiB * 143'771, "141 GB", 4'800'000'000'000},
    {"b200",       "NVIDIA B200",                   MiB * 183'359, "180 GB", 8'000'000'000'000},
    {"mi300x",     "AMD Instinct MI300X",           MiB * 196'592, "192 GB", 5'300'000'000'000},
    {"rtx-3090",   "NVIDIA GeForce RTX 3090",       MiB * 24'576,  "24 GB",  936'000'000'000},
}};
// clang-format on

/// Looks a GPU up by its id ("h100-80gb"), ASCII case-insensitively; nullopt if unknown.
[[nodiscard]] constexpr auto find_gpu(std::string_view id) -> std::optional<gpu_spec> {
  const auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; };
  for (const auto& g : gpu_catalog) {
    if (g.id.size() != id.size()) {
      continue;
    }
    bool same = true;
    for (std::size_t i = 0; i < id.size() && same; ++i) {
      same = lower(id[i]) == g.id[i];
    }
    if (same) {
      return g;
    }
  }
  return std::nullopt;
}

/// The catalog entry for `id`; throws kvsize::invalid_argument if there is none (a compile error
/// in a constant expression).
[[nodiscard]] constexpr auto gpu(std::string_view id) -> gpu_spec {
  const auto g = find_gpu(id);
  if (!g) {
    throw kvsize::invalid_argument("kvsize: unknown GPU id (see kvsize::gpu_catalog)");
  }
  return *g;
}

}  // namespace kvsize
