// SPDX-License-Identifier: MIT
// A catalog of accelerators: device memory as nvidia-smi / rocm-smi report it and as CUDA / HIP
// report it to a process, in exact bytes, and peak memory bandwidth.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>        // std::array
#include <cstdint>      // std::uint64_t, std::uint8_t
#include <optional>     // std::optional
#include <string_view>  // std::string_view

#include "error.hpp"
#include "bytes.hpp"

namespace kvsize {

/// Where a catalog entry's process-visible memory comes from.
enum class visible_memory_source : std::uint8_t {
  measured,  ///< printed by CUDA / PyTorch / vLLM on this board in a public log (docs/research/gpu-catalog.md)
  derived,   ///< no public log: nvidia-smi's total minus the reservation measured on a sibling board
};

/// One accelerator model.
struct gpu_spec {
  std::string_view id;          ///< what `--gpu` takes: "h100-80gb"
  std::string_view name;        ///< marketing name
  bytes memory;                 ///< total device memory as nvidia-smi / rocm-smi report it
  std::string_view marketed;    ///< the capacity as sold ("80 GB"); the "GB" counts GiB of DRAM
  std::uint64_t bandwidth;      ///< peak memory bandwidth, bytes per second (vendor data sheet)
  bytes visible_memory;         ///< the total CUDA / HIP report to a process: cudaMemGetInfo's
                                ///< total, torch.cuda.mem_get_info()[1], vLLM's total_gpu_memory
  visible_memory_source visible_source;  ///< whether visible_memory was measured or derived
  std::uint32_t compute_capability;      ///< CUDA compute capability × 10 (86: 8.6, 90: Hopper, 100: B200); 0: AMD

  /// The device total an engine budgets from (vLLM: total_gpu_memory × gpu_memory_utilization;
  /// SGLang: total × (1 − mem_fraction_static)): CUDA's total, below nvidia-smi's by the memory
  /// the driver keeps for itself (page tables, the context's own reservation).
  [[nodiscard]] constexpr auto process_visible_memory() const -> bytes { return visible_memory; }

  /// The sold capacity as bytes: the leading integer of `marketed` times 1 GiB (the label's "GB"
  /// is GiB of DRAM: an "80 GB" H100 carries 80 GiB of HBM3, of which nvidia-smi shows 79.65 GiB).
  [[nodiscard]] constexpr auto marketed_memory() const -> bytes {
    std::uint64_t n = 0;
    for (const char c : marketed) {
      if (c < '0' || c > '9') {
        break;
      }
      n = n * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return GiB * n;
  }
};

namespace gpu_readings {

/// A figure printed in GiB with two decimals ("79.11 GiB"), as bytes: hundredths × 2^30 / 100,
/// rounded down (the printed figure, not the true total, which lies within ±0.005 GiB of it).
[[nodiscard]] constexpr auto printed_gib(std::uint64_t hundredths) -> bytes {
  return B * ((GiB * hundredths).count() / 100);  // floor: bytes' own operator/ rounds up
}

// CUDA totals measured on public hardware (sources: docs/research/gpu-catalog.md, "Measured").
inline constexpr bytes a10 = printed_gib(2'199);              // zai-org/CogVLM#236, torch OOM on an A10
inline constexpr bytes a100_40gb = B * 42'298'834'944;        // bottlerocket-os/bottlerocket#3873, deviceQuery
inline constexpr bytes a100_80gb = printed_gib(7'914);        // lianqi1008/Control-GIC#6, torch OOM
inline constexpr bytes h100_80gb = printed_gib(7'911);        // vllm-project/vllm#27508, torch OOM
inline constexpr bytes t4 = printed_gib(1'456);               // Zheng-Chong/CatVTON#133, torch OOM
inline constexpr bytes b200 = printed_gib(17'835);            // pytorch/ao#4002, device properties
inline constexpr bytes h20 = printed_gib(9'508);              // sgl-project/sglang#10736, torch OOM
inline constexpr bytes gb200 = printed_gib(18'431);           // vllm-project/vllm#43951, torch OOM
inline constexpr bytes mi250x_gcd = printed_gib(6'398);       // ROCm/ROCm#3579, torch (HIP) OOM
inline constexpr bytes mi300x = printed_gib(19'198);           // ROCm/rocm-blogs@9a8327dd gptq README, HIP OOM
inline constexpr bytes mi325x = printed_gib(25'598);           // vllm-project/vllm#41962, HIP OOM
// deviceQuery's "Total amount of global memory", exact bytes, from captures of real machines in
// thamada/gls@e20f22d (gls/<board>_deviceQuery.py; the same machine's nvidia-smi -q beside it):
inline constexpr bytes h100_nvl = B * 99'861'594'112;   // H100NVLx2, driver 550.54.14
inline constexpr bytes rtx_4090 = B * 25'386'352'640;   // RTX4090, driver 550.127.05 (354 MiB reserved)
inline constexpr bytes rtx_3090 = B * 25'327'697'920;   // RTX3090, driver 560.35.03 (422 MiB reserved)
inline constexpr bytes l4 = B * 23'570'219'008;         // L4, driver 550.90.07 (556 MiB reserved)
inline constexpr bytes h200 = B * 150'021'734'400;      // H200, driver 550.90.12 (700 MiB reserved)
inline constexpr bytes rtx_5090 = B * 33'680'457'728;   // RTX5090, driver 570.124.06 (487 MiB reserved)
// nvidia-smi -q's FB "Total" less its "Reserved" (utkuozdemir/nvidia_gpu_exporter's captures):
inline constexpr bytes rtx_4080_super = MiB * (16'376 - 434);  // driver 595.71.05
// 609 MiB reserved on driver 595.80: the lowest of three L40S readings (thamada/gls's deviceQuery on
// driver 550.127.05, 47,803,596,800 B; vllm-project/vllm#15598's torch OOM, 44.53 GiB).
inline constexpr bytes l40s = MiB * (46'068 - 609);
// An AD102 board with the L40S's 46,068 MiB; torch prints two decimals, so this is its floor:
inline constexpr bytes rtx_6000_ada = printed_gib(4'443);     // DINGYANB/MTVCrafter#21, torch OOM

// The memory the driver keeps from a process (nvidia-smi total − CUDA total) on the measured
// boards; a board with no public CUDA total is derived from its nearest measured sibling.
inline constexpr bytes ampere_gddr_reservation = MiB * 23'028 - a10;         // 510 MiB (A10, GA102)
// AD102 with 46,068 MiB: the larger of the L40S's 609 MiB and the RTX 6000 Ada's 563 MiB.
inline constexpr bytes ada_reservation = MiB * 46'068 - (l40s < rtx_6000_ada ? l40s : rtx_6000_ada);
inline constexpr bytes hopper_reservation = MiB * 81'559 - h100_80gb;        // 550 MiB (H100 80 GB)
// AMD's HIP shows the whole HBM pool: the MI300X's 196,592 MiB less its printed 191.98 GiB is the print's rounding.
inline constexpr bytes amd_hbm_reservation = MiB * 196'592 - mi300x;         // 4.5 MiB (MI300X)
// A board with no measured sibling of its chip takes the largest reservation measured on its memory
// type (GDDR: the L40S's 609 MiB, above the RTX 6000 Ada's 563, the L4's 556, the A10's 510 and the
// other GDDR boards'), so a derived figure errs low, the safe direction for a budget.
inline constexpr bytes gddr_reservation = ada_reservation > ampere_gddr_reservation ? ada_reservation
                                                                                    : ampere_gddr_reservation;

}  // namespace gpu_readings

namespace detail {
/// A catalog entry whose process-visible total was measured.
[[nodiscard]] constexpr auto measured_gpu(std::string_view id, std::string_view name, bytes smi,
                                          std::string_view marketed, std::uint64_t bandwidth, bytes visible,
                                          std::uint32_t compute_capability) -> gpu_spec {
  return {id, name, smi, marketed, bandwidth, visible, visible_memory_source::measured, compute_capability};
}
/// A catalog entry whose process-visible total is nvidia-smi's less a sibling's measured reservation.
[[nodiscard]] constexpr auto derived_gpu(std::string_view id, std::string_view name, bytes smi,
                                         std::string_view marketed, std::uint64_t bandwidth, bytes reservation,
                                         std::uint32_t compute_capability) -> gpu_spec {
  return {id, name, smi, marketed, bandwidth, smi - reservation, visible_memory_source::derived, compute_capability};
}
}  // namespace detail

// The "marketed" column shows why kvsize never trusts a "GB" label: an "80 GB" H100 has
// 80 GiB of HBM of which the driver exposes 81,559 MiB; a "12 GB" RTX 3060 has 12 GiB.
// Every figure below, with its public source (nvidia-smi / rocm-smi output for the named variant,
// CUDA's total from a public log, vendor data sheet; the compute capability from NVIDIA's table,
// https://developer.nvidia.com/cuda-gpus): docs/research/gpu-catalog.md.
// clang-format off
inline constexpr std::array<gpu_spec, 27> gpu_catalog{{
    detail::derived_gpu ("rtx-3060",  "NVIDIA GeForce RTX 3060 12 GB", MiB * 12'288,  "12 GB",  360'000'000'000,   gpu_readings::ampere_gddr_reservation, 86),
    detail::measured_gpu("rtx-4090",  "NVIDIA GeForce RTX 4090",       MiB * 24'564,  "24 GB",  1'008'000'000'000, gpu_readings::rtx_4090, 89),
    detail::measured_gpu("l4",        "NVIDIA L4",                     MiB * 23'034,  "24 GB",  300'000'000'000,   gpu_readings::l4, 89),
    detail::measured_gpu("l40s",      "NVIDIA L40S",                   MiB * 46'068,  "48 GB",  864'000'000'000,   gpu_readings::l40s, 89),
    detail::measured_gpu("a100-40gb", "NVIDIA A100 40 GB (SXM4)",      MiB * 40'960,  "40 GB",  1'555'000'000'000, gpu_readings::a100_40gb, 80),
    detail::measured_gpu("a100-80gb", "NVIDIA A100 80 GB (SXM4)",      MiB * 81'920,  "80 GB",  2'039'000'000'000, gpu_readings::a100_80gb, 80),
    detail::measured_gpu("h100-80gb", "NVIDIA H100 80 GB (SXM5)",      MiB * 81'559,  "80 GB",  3'350'000'000'000, gpu_readings::h100_80gb, 90),
    detail::measured_gpu("h200",      "NVIDIA H200 (SXM)",             MiB * 143'771, "141 GB", 4'800'000'000'000, gpu_readings::h200, 90),
    detail::measured_gpu("b200",      "NVIDIA B200",                   MiB * 183'359, "180 GB", 8'000'000'000'000, gpu_readings::b200, 100),
    detail::measured_gpu("mi300x",    "AMD Instinct MI300X",           MiB * 196'592, "192 GB", 5'300'000'000'000, gpu_readings::mi300x, 0),
    detail::measured_gpu("rtx-3090",  "NVIDIA GeForce RTX 3090",       MiB * 24'576,  "24 GB",  936'000'000'000,   gpu_readings::rtx_3090, 86),
    detail::measured_gpu("a10",       "NVIDIA A10",                    MiB * 23'028,  "24 GB",  600'000'000'000,   gpu_readings::a10, 86),
    detail::derived_gpu ("a10g",      "NVIDIA A10G (AWS G5)",          MiB * 23'028,  "24 GB",  600'000'000'000,   gpu_readings::ampere_gddr_reservation, 86),
    detail::measured_gpu("t4",        "NVIDIA T4",                     MiB * 15'360,  "16 GB",  320'000'000'000,   gpu_readings::t4, 75),
    detail::measured_gpu("rtx-5090",  "NVIDIA GeForce RTX 5090",       MiB * 32'607,  "32 GB",  1'792'000'000'000, gpu_readings::rtx_5090, 120),
    detail::measured_gpu("h100-nvl",  "NVIDIA H100 NVL",               MiB * 95'830,  "94 GB",  3'900'000'000'000, gpu_readings::h100_nvl, 90),
    detail::measured_gpu("h20",       "NVIDIA H20",                    MiB * 97'871,  "96 GB",  4'000'000'000'000, gpu_readings::h20, 90),
    detail::measured_gpu("rtx-6000-ada", "NVIDIA RTX 6000 Ada Generation", MiB * 46'068, "48 GB", 960'000'000'000, gpu_readings::rtx_6000_ada, 89),
    detail::measured_gpu("rtx-4080-super", "NVIDIA GeForce RTX 4080 SUPER", MiB * 16'376, "16 GB", 736'000'000'000, gpu_readings::rtx_4080_super, 89),
    detail::derived_gpu ("rtx-4080",  "NVIDIA GeForce RTX 4080",       MiB * 16'376,  "16 GB",  716'800'000'000,   gpu_readings::gddr_reservation, 89),
    detail::derived_gpu ("rtx-a6000", "NVIDIA RTX A6000 (ECC off)",    MiB * 49'140,  "48 GB",  768'000'000'000,   gpu_readings::ampere_gddr_reservation, 86),
    detail::derived_gpu ("h100-pcie", "NVIDIA H100 PCIe 80 GB",        MiB * 81'559,  "80 GB",  2'000'000'000'000, gpu_readings::hopper_reservation, 90),
    detail::measured_gpu("gb200",     "NVIDIA GB200 (one Blackwell GPU)", MiB * 189'471, "186 GB", 8'000'000'000'000, gpu_readings::gb200, 100),
    detail::measured_gpu("mi250x",    "AMD Instinct MI250X (one GCD)", MiB * 65'520,  "64 GB",  1'600'000'000'000, gpu_readings::mi250x_gcd, 0),
    // L20: an AD102 board with the L40S's 46,068 MiB (ECC on); no public CUDA total cites it, so the
    // larger of the two AD102 46,068 MiB boards' reservations (ada_reservation).
    // Bandwidth: third-party listings only (no NVIDIA data sheet found).
    detail::derived_gpu ("l20",       "NVIDIA L20 (ECC on)",           MiB * 46'068,  "48 GB",  864'000'000'000,   gpu_readings::ada_reservation, 89),
    // MI325X: no public rocm-smi total, so HIP's measured 255.98 GiB rounded up to whole MiB stands
    // for it (on the MI300X and the MI250X, rocm-smi's and HIP's totals agree to 0.01 GiB).
    detail::measured_gpu("mi325x",    "AMD Instinct MI325X",           MiB * 262'124, "256 GB", 6'000'000'000'000, gpu_readings::mi325x, 0),
    // MI355X: rocminfo's pool (what SGLang's default rule reads) from a public capture; no citable HIP total, so
    // the MI300X's (derived: the whole pool less the print's rounding).
    detail::derived_gpu ("mi355x",    "AMD Instinct MI355X",           MiB * 294'896, "288 GB", 8'000'000'000'000, gpu_readings::amd_hbm_reservation, 0),
}};
// clang-format on
/// A catalog id (lower case) starts with `typed`, compared ASCII case-insensitively: "H100" names h100-80gb,
/// h100-nvl and h100-pcie.
[[nodiscard]] constexpr auto gpu_id_starts_with(std::string_view catalog_id, std::string_view typed) -> bool {
  if (typed.size() > catalog_id.size()) {
    return false;
  }
  for (std::size_t i = 0; i < typed.size(); ++i) {
    const char c = typed[i];
    if (((c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c) != catalog_id[i]) {
      return false;
    }
  }
  return true;
}

/// Looks a GPU up by its id ("h100-80gb"), ASCII case-insensitively; nullopt if unknown.
[[nodiscard]] constexpr auto find_gpu(std::string_view id) -> std::optional<gpu_spec> {
  for (const auto& g : gpu_catalog) {
    if (g.id.size() == id.size() && gpu_id_starts_with(g.id, id)) {
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
