// SPDX-License-Identifier: MIT
// llama.cpp's layer split over several GPUs (-sm layer, the default, with -ts/--tensor-split): which
// device each layer slot goes to. Facts (docs/research/llama-cpp-tensor-split.md):
// src/llama-model.cpp `load_tensors` at ggml-org/llama.cpp@749f688f: the split points are the float32
// inclusive prefix sums of the -ts shares (or, when every share is 0, of each device's free memory),
// each divided by the float32 total; slot il of the offloaded run goes to the first device whose
// point is strictly greater than float(il − i_gpu_start) / act_gpu_layers (std::upper_bound).
// common/arg.cpp reads -ts with std::stof, split on ',' or '/', missing shares 0, at most 15 values.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>    // std::array
#include <cstdint>  // std::uint32_t

#include "../error.hpp"
#include "../layer_groups.hpp"  // detail::stage_range

namespace kvsize::engines::llama_cpp {

/// llama_max_devices(): the most devices llama.cpp splits over (src/llama.cpp).
inline constexpr std::uint32_t max_devices = 16;

/// -ts's shares, one per device in llama.cpp's device order (proportions: `3,1` is `75,25`). All zero
/// (the default) is llama.cpp's split by each device's free memory, which kvsize takes as equal: the
/// devices of one plan are alike. Real free memory differs by a few MiB between devices (a display,
/// another process), which can move a layer whose start falls exactly on a split point.
struct tensor_split {
  std::array<float, max_devices> shares{};
};

/// The float32 split points of `devices` devices, as load_tensors computes them: the inclusive prefix
/// sums of the shares, each divided by their float32 total (so the last is exactly 1). Throws
/// invalid_argument for 0 or more than max_devices devices, a negative or non-finite share, or a
/// total that is not finite.
[[nodiscard]] constexpr auto split_points(const tensor_split& ts, std::uint32_t devices)
    -> std::array<float, max_devices> {
  if (devices == 0 || devices > max_devices) {
    throw kvsize::invalid_argument("kvsize: llama.cpp splits layers over 1 to 16 devices");
  }
  bool all_zero = true;
  for (std::uint32_t d = 0; d < devices; ++d) {
    const float x = ts.shares[d];
    if (!(x >= 0.0F) || x > 3.4e38F) {  // NaN fails x >= 0
      throw kvsize::invalid_argument("kvsize: a tensor-split share is negative or not finite");
    }
    all_zero = all_zero && x == 0.0F;
  }
  std::array<float, max_devices> points{};
  float sum = 0.0F;
  for (std::uint32_t d = 0; d < devices; ++d) {
    sum += all_zero ? 1.0F : ts.shares[d];
    points[d] = sum;
  }
  if (!(sum <= 3.4e38F)) {
    throw kvsize::invalid_argument("kvsize: the tensor-split shares add up past a float");
  }
  for (std::uint32_t d = 0; d < devices; ++d) {
    points[d] /= sum;
  }
  return points;
}

/// The device of slot `slot` of a run of `run` offloaded slots (0 ≤ slot < run): the first device
/// whose split point is strictly greater than float(slot) / run. A slot on a split point goes to the
/// next device; a device of share 0 gets nothing.
[[nodiscard]] constexpr auto device_of_slot(const std::array<float, max_devices>& points, std::uint32_t devices,
                                            std::uint32_t slot, std::uint32_t run) -> std::uint32_t {
  const float key = static_cast<float>(slot) / static_cast<float>(run);
  for (std::uint32_t d = 0; d < devices; ++d) {
    if (points[d] > key) {
      return d;
    }
  }
  return devices - 1;  // unreachable: the last point is 1 and key < 1
}

/// Where a run of offloaded slots goes: each device's contiguous run of blocks, and the device of the
/// output slot when the run reaches it.
struct run_placement {
  std::array<detail::stage_range, max_devices> blocks{};  ///< device d's blocks (count 0: none)
  bool output_offloaded = false;                          ///< the run includes the output slot n_layer
  std::uint32_t output_device = 0;                        ///< its device, when output_offloaded
};

/// Slots [start, start + run) of a model's n_layer + 1 (blocks 0 … n_layer−1, then the output slot)
/// offloaded over `devices` devices by `ts`: slot il goes to device_of_slot(il − start) of the run, as
/// load_tensors places it (i_gpu_start = start, act_gpu_layers = run). A run of 0 places nothing.
/// Throws invalid_argument as split_points does, or for a run past the n_layer + 1 slots.
[[nodiscard]] constexpr auto place_run(std::uint32_t layers, const tensor_split& ts, std::uint32_t devices,
                                       std::uint32_t start, std::uint32_t run) -> run_placement {
  const std::array<float, max_devices> points = split_points(ts, devices);
  if (start > layers + 1 || run > layers + 1 - start) {
    throw kvsize::invalid_argument("kvsize: an offloaded run past the model's layer slots");
  }
  run_placement p{};
  for (std::uint32_t il = start; il < start + run; ++il) {
    const std::uint32_t d = device_of_slot(points, devices, il - start, run);
    if (il == layers) {
      p.output_offloaded = true;
      p.output_device = d;
      continue;
    }
    detail::stage_range& r = p.blocks[d];
    r.first = r.count == 0 ? il : r.first;
    ++r.count;
  }
  return p;
}

/// The blocks of device `device` of `devices` when every slot is offloaded (-ngl all): place_run over
/// all n_layer + 1 slots, so with equal shares the first devices get the extra block and the last the
/// output layer (32 blocks on 2 GPUs: 17, and 15 + output). A device of share 0 gets none (count 0).
/// Throws invalid_argument as split_points does (past max_devices devices).
[[nodiscard]] constexpr auto blocks_of_device(std::uint32_t layers, const tensor_split& ts, std::uint32_t devices,
                                              std::uint32_t device) -> detail::stage_range {
  const run_placement p = place_run(layers, ts, devices, 0, layers + 1);
  return device < max_devices ? p.blocks[device] : detail::stage_range{};
}

}  // namespace kvsize::engines::llama_cpp
