// SPDX-License-Identifier: MIT
// The max_seq_len TensorRT-LLM's PyTorch backend serves when --max_seq_len is not given (trtllm-serve passes None:
// tensorrt_llm/commands/serve.py, "If unspecified, the value is deduced from the model config"):
// PyTorchModelEngine._init_max_seq_len (tensorrt_llm/_torch/pyexecutor/model_engine.py) takes the model's
// infer_max_seq_len (DecoderModelForCausalLM.infer_max_seq_len, tensorrt_llm/_torch/models/modeling_utils.py;
// https://github.com/NVIDIA/TensorRT-LLM):
//   1. max_position_embeddings of the (text) config, else 2,048 (a GPT-2-style class answers it with n_positions,
//      its attribute_map's alias);
//   2. times rope_scaling's factor, rounded up, unless its type is su, longrope, llama3 or yarn (read from
//      rope_scaling only: the transformers 4 attribute);
//   3. Llama 4 (Llama4ForConditionalGeneration.infer_max_seq_len): 8,192 whatever the config says.
// A larger --max_seq_len is lowered to it with a warning ("Specified self.max_seq_len=... is larger than what the
// model can support"), unless TLLM_ALLOW_LONG_MAX_MODEL_LEN=1, which the newest releases (1.2 – 1.3) read.
// Not modelled: the one or more slots the executor adds for the overlap scheduler and draft tokens (a few tokens).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint64_t

#include "../model_spec.hpp"

namespace kvsize::engines::trtllm {

/// infer_max_seq_len's length where the config has no max_position_embeddings.
inline constexpr std::uint64_t no_length_key_default = 2048;
/// Llama4ForConditionalGeneration.infer_max_seq_len's fixed length ("TODO: implement chunked attention").
inline constexpr std::uint64_t llama4_max_seq_len = 8192;

/// The length infer_max_seq_len reads from the config (step 1): max_position_embeddings, or n_positions, its alias
/// on a GPT-2-style class; 0 where the config states neither (TensorRT-LLM then takes its 2,048).
[[nodiscard]] constexpr auto stated_max_seq_len(const stated_context& c) -> std::uint64_t {
  const std::uint64_t length = stated(c, context_key::max_position_embeddings);
  return length != 0 ? length : stated(c, context_key::n_positions);
}

/// Whether TensorRT-LLM finds no length in the config and takes no_length_key_default: Llama 4's fixed length
/// needs none.
[[nodiscard]] constexpr auto falls_back_to_default(const model_spec& m) -> bool {
  return m.stated.keys_read && m.attention_chunk == 0 && stated_max_seq_len(m.stated) == 0;
}

/// TensorRT-LLM's max_seq_len when none is given (steps 1–3 above); a spec built by hand: model_spec::max_context.
[[nodiscard]] constexpr auto default_max_seq_len(const model_spec& m) -> std::uint64_t {
  const stated_context& c = m.stated;
  if (!c.keys_read) {
    return m.max_context;
  }
  if (m.attention_chunk != 0) {  // chunked attention: Llama 4, the one family kvsize knows with it
    return llama4_max_seq_len;
  }
  const std::uint64_t length = falls_back_to_default(m) ? no_length_key_default : stated_max_seq_len(c);
  const bool flat_scaling = c.rope_read && c.rope_from_scaling && !c.rope_nested && c.rope_entries == 1;
  const stated_rope& rope = c.rope[0];
  if (!flat_scaling || rope.kind != rope_kind::other || rope.factor == 0 || rope.factor == 1.0) {
    return length;
  }
  return ceil_scaled_context(length, rope.factor);  // int(math.ceil(length * factor))
}

}  // namespace kvsize::engines::trtllm
