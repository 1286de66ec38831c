// SPDX-License-Identifier: MIT
// kvsize::parameters: a model_spec's parameter count by term, a sum over for_each_weight
// (weights_enumeration.hpp). The convention (what `total` counts, what the checkpoint extras are)
// is in <kvsize/weights.hpp>, of which this header is part.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>             // std::array
#include <cstdint>           // std::uint8_t, std::uint64_t
#include <initializer_list>  // range-for over a braced list

#include "detail/checked.hpp"
#include "model_spec.hpp"
#include "weights_enumeration.hpp"
#include "weights_tensor.hpp"

namespace kvsize {

/// Parameters by term. total = embeddings + lm_head + attention + mlp + experts_routed +
/// experts_shared + router + norms + recurrent; mtp, mtp_embeddings and vision are not in it.
struct parameter_breakdown {
  std::uint64_t embeddings = 0;
  std::uint64_t lm_head = 0;  ///< 0 when tied
  std::uint64_t attention = 0;
  std::uint64_t mlp = 0;
  std::uint64_t experts_routed = 0;
  std::uint64_t experts_shared = 0;
  std::uint64_t router = 0;
  std::uint64_t norms = 0;
  std::uint64_t recurrent = 0;
  std::uint64_t mtp = 0;             ///< MTP modules, without their embedding/head copies
  std::uint64_t mtp_embeddings = 0;  ///< the embedding and head copies stored with the MTP modules
  std::uint64_t vision = 0;          ///< vision tower + projector; has_vision says it is separate
  std::uint64_t total = 0;           ///< the language model's module parameters
  std::uint64_t active = 0;          ///< per token: total minus the routed experts outside the top-k
  std::uint64_t with_extras = 0;     ///< total + mtp + mtp_embeddings + vision: what the checkpoint holds
  bool has_vision = false;           ///< a vision tower is counted (in `vision`, never in `total`)
  friend constexpr auto operator==(const parameter_breakdown&, const parameter_breakdown&) -> bool = default;
};

/// Every parameter of `m`, by term.
/// Qwen2.5-1.5B: 1,543,714,304; Llama-3-8B: 8,030,261,248; DeepSeek-R1: 671,026,419,200.
[[nodiscard]] constexpr auto parameters(const model_spec& m) -> parameter_breakdown {
  using detail::checked_add;
  using detail::checked_mul;
  parameter_breakdown p;
  std::uint64_t inactive = 0;
  const std::uint64_t experts = m.weights.moe.experts;
  const std::uint64_t top_k = m.weights.moe.experts_per_token == 0 || m.weights.moe.experts_per_token > experts
                                  ? experts
                                  : m.weights.moe.experts_per_token;
  // One sum per weight_part, indexed by the part: a small per-tensor step that GCC inlines into
  // every emission site (a switch to a field pointer here was called out of line: 1.1× slower).
  std::array<std::uint64_t, weight_part_count> sums{};
  for_each_weight(m, [&](const weight_tensor& t) {
    if (t.role == tensor_role::buffer) {
      return;  // stored, but not a parameter (transformers' num_parameters() leaves buffers out)
    }
    auto& sum = sums[static_cast<std::uint8_t>(t.part)];
    sum = checked_add(sum, t.elements());
    if (t.part == weight_part::experts_routed && t.copies == experts && experts != 0) {
      inactive = checked_add(inactive, checked_mul(checked_mul(t.rows, t.cols), experts - top_k));
    }
  });
  const auto sum_of = [&](weight_part part) { return sums[static_cast<std::uint8_t>(part)]; };
  p.embeddings = sum_of(weight_part::embeddings);
  p.lm_head = sum_of(weight_part::lm_head);
  p.attention = sum_of(weight_part::attention);
  p.mlp = sum_of(weight_part::mlp);
  p.experts_routed = sum_of(weight_part::experts_routed);
  p.experts_shared = sum_of(weight_part::experts_shared);
  p.router = sum_of(weight_part::router);
  p.norms = sum_of(weight_part::norms);
  p.recurrent = sum_of(weight_part::recurrent);
  p.mtp = sum_of(weight_part::mtp);
  p.mtp_embeddings = sum_of(weight_part::mtp_embeddings);
  p.vision = sum_of(weight_part::vision);
  for (const std::uint64_t term : {p.embeddings, p.lm_head, p.attention, p.mlp, p.experts_routed, p.experts_shared,
                                   p.router, p.norms, p.recurrent}) {
    p.total = checked_add(p.total, term);
  }
  p.active = p.total - inactive;
  p.with_extras = checked_add(checked_add(p.total, p.mtp), checked_add(p.mtp_embeddings, p.vision));
  p.has_vision = p.vision != 0;
  return p;
}

}  // namespace kvsize
