// SPDX-License-Identifier: MIT
// kvsize/gpus.hpp: the GPU catalog. Sources of every figure: docs/research/gpu-catalog.md.
#include <catch2/catch_test_macros.hpp>

#include <kvsize/error.hpp>
#include <kvsize/gpus.hpp>

#include <algorithm>
#include <set>
#include <string>

using namespace kvsize::literals;
using kvsize::visible_memory_source;

TEST_CASE("gpus: catalog lookups by id, case-insensitive", "[gpus]") {
  REQUIRE(kvsize::find_gpu("H100-80GB")->memory == 81'559_MiB);
  REQUIRE(kvsize::find_gpu("rtx-3060")->memory == 12_GiB);
  REQUIRE(kvsize::find_gpu("T4")->id == "t4");
  REQUIRE_FALSE(kvsize::find_gpu("rtx-9999"));
  REQUIRE_FALSE(kvsize::find_gpu(""));
  REQUIRE_THROWS_AS(kvsize::gpu("rtx-9999"), kvsize::invalid_argument);
  static_assert(kvsize::gpu("a100-40gb").process_visible_memory() < kvsize::gpu("a100-40gb").memory);
  // A prefix names a family's variants (the command lists them for --gpu h100).
  static_assert(kvsize::gpu_id_starts_with("h100-nvl", "H100"));
  static_assert(kvsize::gpu_id_starts_with("h100-nvl", "h100-nvl"));
  static_assert(!kvsize::gpu_id_starts_with("h100-nvl", "h100-nvl2"));
  static_assert(!kvsize::gpu_id_starts_with("h200", "h100"));
  REQUIRE_FALSE(kvsize::find_gpu("h100"));
}

TEST_CASE("gpus: the ids the CLI and the docs already use stay in the catalog", "[gpus]") {
  for (const char* id : {"rtx-3060", "rtx-4090", "l4", "l40s", "a100-40gb", "a100-80gb", "h100-80gb", "h200", "b200",
                         "mi300x", "rtx-3090"}) {
    INFO(id);
    CHECK(kvsize::find_gpu(id));
  }
}

TEST_CASE("gpus: every entry is consistent: CUDA-visible < nvidia-smi <= sold capacity", "[gpus]") {
  std::set<std::string> ids;
  for (const auto& g : kvsize::gpu_catalog) {
    INFO(g.id);
    CHECK(ids.insert(std::string{g.id}).second);  // unique
    for (const char c : g.id) {                    // lower case, what --gpu documents
      CHECK(((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'));
    }
    CHECK_FALSE(g.name.empty());
    CHECK(g.bandwidth > 0);
    CHECK(g.marketed_memory() > 0_GiB);
    CHECK(g.memory <= g.marketed_memory());
    CHECK(g.process_visible_memory() < g.memory);
    // NVIDIA's driver keeps 450-900 MiB on the public boards; anything outside 256 MiB .. 1 GiB
    // would be a typo in a figure, not a driver. AMD's HIP shows the whole pool: the MI250X's
    // printed 63.98 GiB is its 65,520 MiB to the print's two decimals (under 10 MiB).
    const auto reservation = g.memory - g.process_visible_memory();
    const bool amd = g.name.starts_with("AMD");
    if (amd) {
      CHECK(reservation < 10_MiB);
    } else {
      CHECK(reservation >= 256_MiB);
      CHECK(reservation <= 1_GiB);
    }
    // nvidia-smi prints whole MiB; so is every catalog total.
    CHECK(g.memory.count() % (1ULL << 20) == 0);
  }
  CHECK(ids.size() == kvsize::gpu_catalog.size());
}

TEST_CASE("gpus: the catalog covers the boards issue 13 names", "[gpus]") {
  for (const char* id : {"a10", "a10g", "t4", "rtx-5090", "h100-nvl"}) {
    INFO(id);
    CHECK(kvsize::find_gpu(id));
  }
}

TEST_CASE("gpus: the boards added for issue 13's catalog gaps", "[gpus]") {
  // H20: nvidia-smi 97871MiB (https://github.com/NVIDIA/nvtrust/issues/128); torch OOM "total capacity
  // of 95.08 GiB" (https://github.com/sgl-project/sglang/issues/10736).
  CHECK(kvsize::gpu("h20").memory == 97'871_MiB);
  CHECK(kvsize::gpu("h20").process_visible_memory().count() == 9'508ULL * (1ULL << 30) / 100);
  // RTX 6000 Ada: 46068MiB and "total capacity of 44.43 GiB" (https://github.com/DINGYANB/MTVCrafter/issues/21).
  CHECK(kvsize::gpu("rtx-6000-ada").memory == 46'068_MiB);
  CHECK(kvsize::gpu("rtx-6000-ada").process_visible_memory() == kvsize::gpu_readings::rtx_6000_ada);
  // RTX 4080 SUPER: nvidia-smi -q FB Total 16376 MiB, Reserved 434 MiB (utkuozdemir/nvidia_gpu_exporter,
  // internal/captures/linux-x86_64__nvidia-geforce-rtx-4080-super__595.71.05.txt).
  CHECK(kvsize::gpu("rtx-4080-super").process_visible_memory() == 15'942_MiB);
}

TEST_CASE("gpus: the boards added from docs/research/gpu-catalog-additions.md", "[gpus]") {
  // H100 NVL: deviceQuery "Total amount of global memory: 95235 MBytes (99861594112 bytes)" beside
  // nvidia-smi's 95830MiB (thamada/gls@e20f22d, gls/H100NVLx2_*): a 594.6 MiB reservation, more than
  // the H100 SXM's 550 MiB it used to be derived from (which gave 44 MiB too much).
  CHECK(kvsize::gpu("h100-nvl").process_visible_memory() == kvsize::bytes{99'861'594'112});
  CHECK(kvsize::gpu("h100-nvl").memory - kvsize::gpu("h100-nvl").process_visible_memory() > 594_MiB);
  // GB200: "NVIDIA GB200, 189471 MiB" (NVIDIA/ISV-NCP-Validation-Suite isvtest/src/isvtest/core/nvidia.py)
  // and "GPU 3 has a total capacity of 184.31 GiB" (https://github.com/vllm-project/vllm/issues/43951).
  CHECK(kvsize::gpu("gb200").memory == 189'471_MiB);
  CHECK(kvsize::gpu("gb200").process_visible_memory().count() == 18'431ULL * (1ULL << 30) / 100);
  // MI250X, one GCD: rocminfo pool 67092480 KB = 65,520 MiB (ROCm/rocm_smi_lib#160) and "GPU 0 has a
  // total capacity of 63.98 GiB" (https://github.com/ROCm/ROCm/issues/3579): HIP shows it all.
  CHECK(kvsize::gpu("mi250x").memory == 65'520_MiB);
  CHECK(kvsize::gpu("mi250x").memory - kvsize::gpu("mi250x").process_visible_memory() < 10_MiB);
  // Driver totals: RTX A6000 ECC off 49140 MiB (noonghunna/club-3090#1047), RTX 4080 16376MiB
  // (NCCA/Lectures SEForMedia/PyTorch/slides.md), H100 PCIe 81559MiB (Beomi/BitNet-Transformers README).
  CHECK(kvsize::gpu("rtx-a6000").memory == 49'140_MiB);
  CHECK(kvsize::gpu("rtx-4080").memory == 16'376_MiB);
  CHECK(kvsize::gpu("h100-pcie").memory == 81'559_MiB);
  CHECK(kvsize::gpu("h100-pcie").bandwidth == 2'000'000'000'000ULL);
}

TEST_CASE("gpus: measured CUDA totals match the public logs they come from", "[gpus]") {
  // deviceQuery on an A100-SXM4-40GB: "Total amount of global memory: 40339 MBytes (42298834944 bytes)"
  // https://github.com/bottlerocket-os/bottlerocket/pull/3873
  CHECK(kvsize::gpu("a100-40gb").process_visible_memory().count() == 42'298'834'944);
  CHECK(kvsize::gpu("a100-40gb").visible_source == visible_memory_source::measured);
  // torch OOM on an H100: "GPU 0 has a total capacity of 79.11 GiB"
  // https://github.com/vllm-project/vllm/issues/27508
  const auto h100 = kvsize::gpu("h100-80gb").process_visible_memory();
  CHECK(h100.count() == 7'911ULL * (1ULL << 30) / 100);
  CHECK(kvsize::gpu("h100-80gb").memory - h100 > 550_MiB);  // nvidia-smi shows 79.65 GiB
  // torch OOM on a T4: "GPU 0 has a total capacity of 14.56 GiB"
  // https://github.com/Zheng-Chong/CatVTON/issues/133
  CHECK(kvsize::gpu("t4").process_visible_memory().count() == 1'456ULL * (1ULL << 30) / 100);
  // torch OOM on a Lambda A10: "GPU 0 has a total capacty of 21.99 GiB"
  // https://github.com/zai-org/CogVLM/issues/236
  CHECK(kvsize::gpu("a10").process_visible_memory().count() == 2'199ULL * (1ULL << 30) / 100);
  // nvidia-smi totals: H100 NVL 95830MiB (https://github.com/NVIDIA/gpu-admin-tools/issues/4),
  // RTX 5090 32607MiB (https://github.com/noonghunna/club-3090/issues/617),
  // A10G 23028MiB (https://github.com/NVIDIA/DCGM/issues/232), T4 15360MiB
  // (https://github.com/modal-labs/modal-client/pull/2797)
  CHECK(kvsize::gpu("h100-nvl").memory == 95'830_MiB);
  CHECK(kvsize::gpu("rtx-5090").memory == 32'607_MiB);
  CHECK(kvsize::gpu("a10g").memory == 23'028_MiB);
  CHECK(kvsize::gpu("t4").memory == 15'360_MiB);
}

TEST_CASE("gpus: CUDA totals from deviceQuery captures and HIP out-of-memory lines", "[gpus]") {
  // deviceQuery "Total amount of global memory: N MBytes (B bytes)", thamada/gls@e20f22d
  // (https://github.com/thamada/gls, gls/<board>_deviceQuery.py), beside the same machine's nvidia-smi.
  CHECK(kvsize::gpu("rtx-4090").process_visible_memory().count() == 25'386'352'640ULL);  // RTX4090: 24210 MBytes
  CHECK(kvsize::gpu("rtx-3090").process_visible_memory().count() == 25'327'697'920ULL);  // RTX3090: 24154 MBytes
  CHECK(kvsize::gpu("l4").process_visible_memory().count() == 23'570'219'008ULL);        // L4: 22478 MBytes
  CHECK(kvsize::gpu("h200").process_visible_memory().count() == 150'021'734'400ULL);     // H200: 143072 MBytes
  CHECK(kvsize::gpu("rtx-5090").process_visible_memory().count() == 33'680'457'728ULL);  // RTX5090: 32120 MBytes
  // The H200's, printed to two decimals, is the 139.72 GiB of its public OOM lines.
  const auto two_decimals = [](kvsize::bytes b) { return (b.count() * 100 + (1ULL << 29)) >> 30; };
  CHECK(two_decimals(kvsize::gpu("h200").process_visible_memory()) == 13'972);
  // L40S: three readings, the catalog keeps the lowest. nvidia-smi -q "Total 46068 MiB, Reserved 609 MiB"
  // on driver 595.80 (utkuozdemir/nvidia_gpu_exporter@e656cd8, internal/captures/linux-x86_64__nvidia-l40s__595.80.txt),
  // under gls's deviceQuery "45589 MBytes (47803596800 bytes)" on driver 550.127.05 and vllm#15598's
  // "total capacity of 44.53 GiB" (https://github.com/vllm-project/vllm/issues/15598).
  const auto l40s = kvsize::gpu("l40s").process_visible_memory();
  CHECK(l40s == 45'459_MiB);
  CHECK(l40s < kvsize::bytes{47'803'596'800ULL});
  CHECK(l40s < kvsize::gpu_readings::printed_gib(4'453));
  // HIP OOM lines: "GPU 0 has a total capacity of 191.98 GiB" on one MI300X (ROCm/rocm-blogs@9a8327dd,
  // blogs/artificial-intelligence/gptq/README.md) and "255.98 GiB" on an MI325X
  // (https://github.com/vllm-project/vllm/issues/41962).
  CHECK(kvsize::gpu("mi300x").process_visible_memory() == kvsize::gpu_readings::printed_gib(19'198));
  CHECK(kvsize::gpu("mi325x").process_visible_memory() == kvsize::gpu_readings::printed_gib(25'598));
  CHECK(kvsize::gpu("mi325x").memory == 262'124_MiB);  // no rocm-smi total found: HIP's, up to whole MiB
  // MI355X: rocminfo's pool, 301,973,504 KB (ROCm/rocm-libraries#9055) = 294,896 MiB; HIP's total derived from the
  // MI300X's (the whole pool, to the print's 0.01 GiB): 287.98 GiB.
  CHECK(kvsize::gpu("mi355x").memory == kvsize::B * (301'973'504ULL * 1'024));
  CHECK(kvsize::gpu("mi355x").memory - kvsize::gpu("mi355x").process_visible_memory() ==
        196'592_MiB - kvsize::gpu_readings::printed_gib(19'198));
}

TEST_CASE("gpus: a derived CUDA total is nvidia-smi's less its sibling's measured reservation", "[gpus]") {
  namespace r = kvsize::gpu_readings;
  // Hopper boards with no public CUDA total take the H100's 550 MiB.
  const auto pcie = kvsize::gpu("h100-pcie");
  CHECK(pcie.visible_source == visible_memory_source::derived);
  CHECK(pcie.memory - pcie.process_visible_memory() == r::hopper_reservation);
  CHECK(r::hopper_reservation == kvsize::gpu("h100-80gb").memory - kvsize::gpu("h100-80gb").process_visible_memory());
  // Ampere GDDR boards take the A10's (GA102) reservation: the A10G is the same chip and memory.
  CHECK(kvsize::gpu("a10g").process_visible_memory() == kvsize::gpu("a10").process_visible_memory());
  // The L20 (AD102, 46,068 MiB) takes the larger of its two measured siblings' reservations: the
  // L40S's 609 MiB over the RTX 6000 Ada's (44.43 GiB, https://github.com/DINGYANB/MTVCrafter/issues/21).
  CHECK(46'068_MiB - r::printed_gib(4'443) < 609_MiB);
  CHECK(r::ada_reservation == 609_MiB);
  const auto l20 = kvsize::gpu("l20");
  CHECK(l20.visible_source == visible_memory_source::derived);
  CHECK(l20.memory - l20.process_visible_memory() == r::ada_reservation);
  CHECK(l20.process_visible_memory() == kvsize::gpu("l40s").process_visible_memory());
  // A board with no measured sibling of its chip takes the largest reservation measured on GDDR,
  // so the derived figure errs low.
  kvsize::bytes largest_gddr{0};
  for (const char* id : {"a10", "t4", "rtx-4090", "rtx-3090", "l4", "l40s", "rtx-5090", "rtx-6000-ada",
                         "rtx-4080-super"}) {
    const auto g = kvsize::gpu(id);
    largest_gddr = std::max(largest_gddr, g.memory - g.process_visible_memory());
  }
  CHECK(r::gddr_reservation == largest_gddr);
  CHECK(kvsize::gpu("rtx-4080").memory - kvsize::gpu("rtx-4080").process_visible_memory() == largest_gddr);
  // Every entry says which it is; the measured ones are exactly the boards with a public CUDA total.
  std::set<std::string> derived;
  for (const auto& g : kvsize::gpu_catalog) {
    if (g.visible_source == visible_memory_source::derived) {
      derived.insert(std::string{g.id});
    }
  }
  CHECK(derived == std::set<std::string>{"rtx-3060", "a10g", "rtx-4080", "rtx-a6000", "h100-pcie", "l20", "mi355x"});
}
