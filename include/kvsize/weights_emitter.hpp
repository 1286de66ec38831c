// SPDX-License-Identifier: MIT
// kvsize::detail::layer_emitter: how one step of for_each_weight (weights_enumeration.hpp) reports the
// tensors of a layer. Part of <kvsize/weights.hpp>.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint32_t, std::uint64_t

#include "model_spec.hpp"
#include "weights_shape.hpp"
#include "weights_tensor.hpp"

namespace kvsize::detail {

/// Reports the tensors of one decoder layer (or MTP module, `mtp` true: every part becomes
/// weight_part::mtp, and tp_max_ways still follows the part the tensor has in a decoder layer, so that an MTP
/// layer's router bias stays whole) to `f`, dropping empty ones. Its members are always inlined: with ~40 call sites
/// GCC 12 otherwise calls it, and `f` behind it, out of line, which made parameters() 1.3× slower
/// than the single-function emit_layer it replaced (BENCHMARKS.md, "Weights headers").
template <class F>
struct layer_emitter {
  const model_spec& m;
  std::uint32_t il;
  bool mtp;
  F& f;

  [[gnu::always_inline]] constexpr void matrix(weight_part part, tensor_role role, std::uint64_t rows, std::uint64_t cols,
                        std::uint64_t copies = 1) const {
    matrix_split(part, role, rows, cols, default_tp_max_ways(part, role), copies);
  }
  [[gnu::always_inline]] constexpr void vector(weight_part part, tensor_role role, std::uint64_t n, std::uint64_t copies = 1) const {
    matrix(part, role, 1, n, copies);
  }
  /// A matrix that tensor parallelism splits over at most `ways` ranks, whatever its role says
  /// (weight_tensor::tp_max_ways): 1 for one every rank holds whole, n for K or V of n heads.
  [[gnu::always_inline]] constexpr void matrix_split(weight_part part, tensor_role role, std::uint64_t rows,
                                                     std::uint64_t cols, std::uint32_t ways, std::uint64_t copies = 1) const {
    if (rows != 0 && cols != 0 && copies != 0) {
      weight_tensor t{mtp ? weight_part::mtp : part, role, il, rows, cols, copies};
      t.tp_max_ways = ways;
      f(t);
    }
  }
  /// A bias added after a RowParallelLinear (o_proj, down_proj, out_proj): every rank holds it whole and rank 0
  /// adds it (vllm layers/linear.py RowParallelLinear: "bias is not parallelized").
  [[gnu::always_inline]] constexpr void output_bias(weight_part part, std::uint64_t n, std::uint64_t copies = 1) const {
    matrix_split(part, tensor_role::vector, 1, n, 1, copies);
  }
  /// A normalization of `n` features: its weight, and its bias for a LayerNorm with bias.
  [[gnu::always_inline]] constexpr void norm(weight_part part, std::uint64_t n) const {
    vector(part, tensor_role::norm, n);
    if (m.weights.norm == norm_kind::layer_norm) {
      vector(part, tensor_role::norm, n);
    }
  }
};

}  // namespace kvsize::detail
