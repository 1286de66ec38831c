// SPDX-License-Identifier: MIT
// kvsize::weights_by_layer: weights_bytes split by llama.cpp's layer slots (each decoder block, the
// output layer, the input layer), so a config.json and a weights format (a GGUF preset such as
// q4_K_M) can be planned for partial offload like a GGUF's tensor table. Part of <kvsize/weights.hpp>.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>    // std::array
#include <cstdint>  // std::uint64_t

#include "detail/checked.hpp"
#include "model_spec.hpp"
#include "weights_bytes.hpp"

namespace kvsize {

/// Weight bytes by slot, as llama.cpp's load_tensors places them: blk.<il>.* in block[il] (of which
/// the routed experts in experts[il]), token_embd and the other input-layer tensors (learned position
/// embeddings) apart, and the output layer (lm_head, the final norm) in output. The vision tower
/// (a separate mmproj file for llama.cpp) and the MTP modules (not loaded) are left out.
struct layer_weight_bytes {
  std::array<std::uint64_t, max_layers> block{};
  std::array<std::uint64_t, max_layers> experts{};
  std::uint64_t output = 0;
  std::uint64_t token_embedding = 0;
  std::uint64_t other_input = 0;
  bool tied = false;  ///< no lm_head stored: llama.cpp gives the output layer a copy of token_embd
};

/// weights_bytes(m, f), tensor by tensor, into the slots of layer_weight_bytes. Blocks past m.layers
/// never occur (the enumeration numbers MTP modules m.layers + i, and they are not stored here).
[[nodiscard]] constexpr auto weights_by_layer(const model_spec& m, const weights_format& f) -> layer_weight_bytes {
  using detail::checked_add;
  weights_format stored = f;  // llama.cpp loads neither: the vision tower is a separate mmproj file
  stored.include_mtp = false;
  stored.include_vision = false;
  layer_weight_bytes out;
  out.tied = m.tied_embeddings;
  detail::for_each_stored_tensor(m, stored, [&](const weight_tensor& t, const detail::weights_sum& one) {
    const std::uint64_t size = one.total();
    if (t.layer < m.layers) {
      out.block[t.layer] = checked_add(out.block[t.layer], size);
      if (t.part == weight_part::experts_routed) {
        out.experts[t.layer] = checked_add(out.experts[t.layer], size);
      }
    } else if (t.role == tensor_role::token_embedding) {
      out.token_embedding = checked_add(out.token_embedding, size);
    } else if (t.role == tensor_role::position_embedding || t.role == tensor_role::per_layer_embedding) {
      // llama.cpp keeps both on the host as input-layer tensors (per_layer_token_embd: LLM_TENSOR_LAYER_INPUT)
      out.other_input = checked_add(out.other_input, size);
    } else {
      out.output = checked_add(out.output, size);
    }
  });
  return out;
}

}  // namespace kvsize
