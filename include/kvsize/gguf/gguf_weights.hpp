// SPDX-License-Identifier: MIT
// A GGUF file's weights from its tensor table: exact bytes per tensor (ggml type and shape), with
// the token embedding, the output head and the routed experts apart (what an offload plan moves).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>        // std::array
#include <cstdint>      // std::uint64_t
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "../detail/checked.hpp"
#include "../model_spec.hpp"  // max_layers
#include "gguf_header.hpp"
#include "named_tensor.hpp"

namespace kvsize::gguf {

struct gguf_weights {
  std::uint64_t bytes = 0;            ///< Σ tensor bytes (unpadded)
  std::uint64_t elements = 0;         ///< Σ tensor elements: the parameter count
  std::uint64_t tensors = 0;
  std::uint64_t token_embedding = 0;  ///< token_embd.weight: llama.cpp keeps it on the host
  std::uint64_t output = 0;           ///< output.weight (absent when tied to the embedding)
  std::uint64_t experts = 0;          ///< *_exps / *_chexps tensors' bytes: what --n-cpu-moe moves to the host
  std::uint64_t expert_elements = 0;  ///< their elements (all experts of all layers)
  std::string file_type;              ///< general.file_type's name ("q4_K_M"), or ""
  // By llama.cpp's layer slot (src/llama-model.cpp load_tensors), for an offload plan:
  std::vector<std::uint64_t> block;          ///< Σ bytes of blk.<il>.* per block index il (< max_layers)
  std::vector<std::uint64_t> block_experts;  ///< of which blk.<il>.*_exps.* / *_chexps.* (same length as block)
  std::uint64_t output_slot = 0;  ///< every tensor outside the blocks and the input layer: the output layer's
  std::uint64_t other_input = 0;  ///< position_embd, token_types, per_layer_token_embd: the input layer's
  std::vector<named_tensor> named;  ///< every tensor's name and bytes, in file order (then the next shard's)
};

/// The input layer's tensors other than token_embd (src/llama-arch.cpp LLM_TENSOR_INFOS entries with
/// LLM_TENSOR_LAYER_INPUT), which llama.cpp keeps on the host (its dev_input is the CPU).
[[nodiscard]] constexpr auto is_other_input(std::string_view name) -> bool {
  return name == "position_embd.weight" || name == "token_types.weight" || name == "per_layer_token_embd.weight";
}

/// Whether a tensor holds routed experts as common/common.h's LLM_FFN_EXPS_REGEX
/// ("\\.ffn_(up|down|gate)_(ch|)exps", gate_up too) finds them: what --cpu-moe moves.
[[nodiscard]] constexpr auto is_experts(std::string_view name) -> bool {
  return name.find("_exps.") != std::string_view::npos || name.find("_chexps.") != std::string_view::npos;
}

/// The block index of a tensor named "blk.<il>.…" with il < max_layers, or max_layers.
[[nodiscard]] constexpr auto block_of(std::string_view name) -> std::uint32_t {
  constexpr std::string_view prefix = "blk.";
  if (!name.starts_with(prefix)) {
    return max_layers;
  }
  std::uint32_t il = 0;
  std::size_t i = prefix.size();
  for (; i < name.size() && name[i] >= '0' && name[i] <= '9' && il < max_layers; ++i) {
    il = il * 10 + static_cast<std::uint32_t>(name[i] - '0');
  }
  const bool well_formed = i > prefix.size() && i < name.size() && name[i] == '.';
  return well_formed && il < max_layers ? il : max_layers;
}

/// llama.h's llama_ftype names, by value (general.file_type); "" for an id llama.h leaves unnamed.
[[nodiscard]] constexpr auto file_type_name(std::uint64_t id) -> std::string_view {
  constexpr std::array<std::string_view, 42> names{
      "f32",    "f16",     "q4_0",    "q4_1",  "",       "",       "",      "q8_0",   "q5_0",   "q5_1",  "q2_K",
      "q3_K_S", "q3_K_M",  "q3_K_L",  "q4_K_S", "q4_K_M", "q5_K_S", "q5_K_M", "q6_K",  "iq2_xxs", "iq2_xs", "q2_K_S",
      "iq3_xs", "iq3_xxs", "iq1_s",   "iq4_nl", "iq3_s",  "iq3_m",  "iq2_s",  "iq2_m", "iq4_xs", "iq1_m",  "bf16",
      "",       "",        "",        "tq1_0",  "tq2_0",  "mxfp4_moe", "nvfp4", "q1_0", "q2_0"};
  return id < names.size() ? names[id] : std::string_view{};
}

/// sum += part, every count checked (kvsize::overflow_error rather than a wrap); the file type stays sum's.
/// Block il's share: `size` bytes, of which `experts` are routed experts.
inline void add_to_block(gguf_weights& w, std::size_t il, std::uint64_t size, std::uint64_t experts) {
  if (w.block.size() <= il) {
    w.block.resize(il + 1, 0);
    w.block_experts.resize(il + 1, 0);
  }
  w.block[il] = kvsize::detail::checked_add(w.block[il], size);
  w.block_experts[il] = kvsize::detail::checked_add(w.block_experts[il], experts);
}

inline void add(gguf_weights& sum, const gguf_weights& part) {
  using kvsize::detail::checked_add;
  sum.bytes = checked_add(sum.bytes, part.bytes);
  sum.elements = checked_add(sum.elements, part.elements);
  sum.tensors = checked_add(sum.tensors, part.tensors);
  sum.token_embedding = checked_add(sum.token_embedding, part.token_embedding);
  sum.output = checked_add(sum.output, part.output);
  sum.experts = checked_add(sum.experts, part.experts);
  sum.expert_elements = checked_add(sum.expert_elements, part.expert_elements);
  sum.output_slot = checked_add(sum.output_slot, part.output_slot);
  sum.other_input = checked_add(sum.other_input, part.other_input);
  for (std::size_t il = 0; il < part.block.size(); ++il) {
    add_to_block(sum, il, part.block[il], part.block_experts[il]);
  }
  sum.named.insert(sum.named.end(), part.named.begin(), part.named.end());
}

[[nodiscard]] inline auto weights_of(const gguf_header& h) -> gguf_weights {
  gguf_weights w;
  w.named.reserve(h.tensors.size());
  for (const auto& t : h.tensors) {
    gguf_weights one;  // this tensor alone, sorted into its role (its block's share: add_to_block)
    one.bytes = t.size;
    one.elements = t.elements();
    one.tensors = 1;
    const bool experts = is_experts(t.name);
    if (t.name == "token_embd.weight") {
      one.token_embedding = t.size;
    } else if (t.name == "output.weight") {
      one.output = t.size;
    } else if (experts) {
      one.experts = t.size;
      one.expert_elements = one.elements;
    }
    const std::uint32_t il = block_of(t.name);
    if (il == max_layers && is_other_input(t.name)) {
      one.other_input = t.size;
    } else if (il == max_layers && t.name != "token_embd.weight") {
      one.output_slot = t.size;
    }
    add(w, one);
    w.named.push_back({t.name, t.size});
    if (il < max_layers) {  // straight into the sum: no per-tensor vector
      add_to_block(w, il, t.size, experts ? t.size : 0);
    }
  }
  if (const gguf_kv* ft = h.find("general.file_type"); ft != nullptr && ft->value.type == gguf_type::u32) {
    w.file_type = std::string(file_type_name(ft->value.integers.front()));
  }
  return w;
}

}  // namespace kvsize::gguf
