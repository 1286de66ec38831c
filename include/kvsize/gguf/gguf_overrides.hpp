// SPDX-License-Identifier: MIT
// llama.cpp's tensor buffer overrides to the host (`-ot "<pattern>=CPU,..."`, --override-tensor)
// over a GGUF's tensor table: the bytes of each block, and of the output layer, that they keep in
// host memory whatever -ngl puts on a GPU. The caller decides which names match (kvsize's command
// tests them with std::regex_search, as llama.cpp does); this header only sorts the bytes.
// Facts (https://github.com/ggml-org/llama.cpp): src/llama-model-loader.cpp
// `llama_model_loader::create_tensor` tries each override's pattern with std::regex_search on the
// name of every tensor it creates, the first match deciding its buffer; a NextN block's tensors are
// never created (TENSOR_SKIP); with tied embeddings the output layer's copy of token_embd is created
// under the name "token_embd.weight" (TENSOR_DUPLICATED), so a pattern that matches that name sends
// the copy to the host, where create_tensor reuses the input layer's tensor already in that buffer
// type: the copy leaves the GPU and adds nothing to the host. common/arg.cpp
// `parse_tensor_buffer_overrides` reads the option.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint32_t, std::uint64_t
#include <span>         // std::span
#include <string_view>  // std::string_view
#include <utility>      // std::forward
#include <vector>       // std::vector

#include "../detail/checked.hpp"
#include "../model_spec.hpp"  // max_layers
#include "gguf_model.hpp"
#include "gguf_weights.hpp"
#include "named_tensor.hpp"

namespace kvsize::gguf {

/// What overrides keep on the host, by llama.cpp's layer slot (bytes). The input layer's tensors,
/// on the host anyway, are left out.
struct host_overrides {
  std::vector<std::uint64_t> block;          ///< per block: its tensors other than routed experts so kept
  std::vector<std::uint64_t> block_experts;  ///< per block: its routed experts (*_exps, *_chexps) so kept
  std::uint64_t output = 0;   ///< of the output slot's own tensors (output.weight, output_norm, ...)
  bool tied_copy = false;     ///< a tied output's copy of token_embd matched: it shares the host's tensor
  std::uint64_t tensors = 0;  ///< block and output-slot tensors matched (block, block_experts, output)
};

/// Every byte `kept` holds on the host: the output slot's and each block's, experts included.
/// Throws overflow_error past 2^64 − 1.
[[nodiscard]] inline auto kept_bytes(const host_overrides& kept) -> std::uint64_t {
  using kvsize::detail::checked_add;
  std::uint64_t total = kept.output;
  for (std::size_t il = 0; il < kept.block.size(); ++il) {
    total = checked_add(total, kept.block[il]);
    total = checked_add(total, il < kept.block_experts.size() ? kept.block_experts[il] : std::uint64_t{0});
  }
  return total;
}

/// The bytes `keeps_on_host(name)` keeps on the host. `loaded_blocks`: each block's loaded bytes
/// (loaded_blocks_of: a NextN block's are 0, and no override applies to a tensor never created);
/// `tied_output`: the table has no output.weight, so the output layer holds a copy of token_embd.
template <class KeepsOnHost>
[[nodiscard]] auto host_overrides_of(std::span<const named_tensor> tensors, std::span<const std::uint64_t> loaded_blocks,
                                     bool tied_output, KeepsOnHost&& keeps_on_host) -> host_overrides {
  using kvsize::detail::checked_add;
  host_overrides out;
  out.block.assign(loaded_blocks.size(), 0);
  out.block_experts.assign(loaded_blocks.size(), 0);
  for (const named_tensor& t : tensors) {
    const std::uint32_t il = block_of(t.name);
    const bool in_block = il < max_layers;
    if ((in_block && (il >= loaded_blocks.size() || loaded_blocks[il] == 0)) ||
        !keeps_on_host(std::string_view{t.name})) {
      continue;
    }
    if (t.name == "token_embd.weight" || (!in_block && is_other_input(t.name))) {
      out.tied_copy = out.tied_copy || (tied_output && t.name == "token_embd.weight");
      continue;  // the input layer's tensors stay on the host whatever -ot says
    }
    out.tensors = checked_add(out.tensors, std::uint64_t{1});
    std::uint64_t& part = !in_block ? out.output : is_experts(t.name) ? out.block_experts[il] : out.block[il];
    part = checked_add(part, t.bytes);
  }
  return out;
}

/// host_overrides_of over a GGUF model's table (empty without one).
template <class KeepsOnHost>
[[nodiscard]] auto host_overrides_of(const gguf_model& g, KeepsOnHost&& keeps_on_host) -> host_overrides {
  if (!g.weights) {
    return {};
  }
  const loaded_blocks loaded = loaded_blocks_of(g);
  return host_overrides_of(g.weights->named, loaded.bytes, g.weights->output == 0,
                           std::forward<KeepsOnHost>(keeps_on_host));
}

}  // namespace kvsize::gguf
