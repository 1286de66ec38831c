// SPDX-License-Identifier: MIT
// The context length llama.cpp was told the model was trained for (n_ctx_train, the GGUF's <arch>.context_length),
// as its converter writes it from a Hugging Face config: what -c 0 serves (common/arg.cpp: "0 = loaded from model")
// and what llama.cpp warns above. A GGUF input states it (gguf/ reader: model_spec::max_context); for config.json
// input, https://github.com/ggml-org/llama.cpp convert_hf_to_gguf.py (the rule of each family: hf/length_family.hpp):
//   1. TextModel.set_gguf_parameters: the first of max_position_embeddings, n_ctx, n_positions, max_length,
//      max_sequence_length, model_max_length the config holds. ModelBase.load_hparams loads it through transformers'
//      AutoConfig where transformers has the class, so a key the file leaves out has its class's default
//      (model_spec::stated's filled keys); a remote-code config is read as the file writes it;
//   2. FalconModel.set_gguf_parameters (FalconForCausalLM, RWForCausalLM): 2,048 whatever the config states
//      ("not in config.json");
//   3. CommandR2Model.__init__ (CohereForCausalLM): model_max_length before max_position_embeddings (Command-R
//      v01 states 8,192 and 131,072: "max_position_embeddings = 8192 in config.json but model was actually trained
//      on 128k context length");
//   4. GraniteHybridModel.set_gguf_parameters (NemotronH, Granite 4.0-H: Mamba layers and no rope): 2^20, the
//      2^20 Mamba2Model writes "for those who use the default" (Nemotron-3-Nano's 262,144 is written as 1,048,576);
//   5. HunYuanMoEModel / HunYuanModel.set_gguf_parameters with a "dynamic" rope: 262,144 ("the config is
//      incorrectly set to 32k");
//   6. families that write their own key (MPTModel max_seq_len, ChatGLMModel seq_length): the smallest of the
//      other keys the config states (a class default included); ChatGLM, read as the
//      file writes it (remote code), gets hidden_size where it states no seq_length.
// Not modelled: max_length, which kvsize does not read (a transformers 4 config's generation default of 20 would
// come before max_sequence_length and model_max_length in step 1; no family kvsize reads reaches it); a class default
// the engines' own config classes set (class_context.hpp: Qwen3-Next, Qwen3.5, LFM2-MoE) where the converter's
// transformers lacks the class and reads the file as written.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>    // std::array
#include <cstdint>  // std::uint64_t

#include "../model_spec.hpp"

namespace kvsize::engines::llama_cpp {

/// FalconModel.set_gguf_parameters' fixed context length.
inline constexpr std::uint64_t falcon_context_length = 2048;
/// Mamba2Model's and GraniteHybridModel's 2^20.
inline constexpr std::uint64_t mamba_context_length = std::uint64_t{1} << 20U;
/// HunYuan's 256 × 1,024 under its dynamic (NTK alpha) rope.
inline constexpr std::uint64_t hunyuan_dynamic_context_length = 256ULL * 1024;

/// TextModel.set_gguf_parameters' keys, in its order, that kvsize reads (max_length is not one).
inline constexpr std::array<context_key, 5> converter_context_keys{
    context_key::max_position_embeddings, context_key::n_ctx, context_key::n_positions,
    context_key::max_sequence_length, context_key::model_max_length};

/// n_ctx_train as the converter writes it for this config (steps 1–6 above); 0 where the config states no length.
/// A spec built by hand, or read from a GGUF: model_spec::max_context.
[[nodiscard]] constexpr auto converted_context_length(const model_spec& m) -> std::uint64_t {
  const stated_context& c = m.stated;
  if (!c.keys_read) {
    return m.max_context;
  }
  if (c.family == length_family::falcon) {
    return falcon_context_length;
  }
  if (c.family == length_family::mamba && recurrent_layers(m) != 0) {  // a Granite 4.0 with no Mamba layer keeps rope
    return mamba_context_length;
  }
  if (c.family == length_family::hunyuan_dynamic) {
    return hunyuan_dynamic_context_length;
  }
  if (c.family == length_family::chatglm_hidden) {
    return m.hidden_size;  // hparams.get("seq_length", n_embed)
  }
  if (c.family == length_family::command_r) {
    const std::uint64_t trained = stated(c, context_key::model_max_length);
    if (trained != 0) {
      return trained;
    }
  }
  for (const context_key k : converter_context_keys) {
    if (const std::uint64_t length = stated(c, k); length != 0) {
      return length;
    }
  }
  // Step 6: the smallest other key, a class default included (MptConfig's max_seq_len); 0 where none is stated
  // (model_spec::max_context, the smallest key the file states, is 0 then too).
  std::uint64_t own_key = 0;
  for (const std::uint64_t length : c.keys) {
    own_key = length != 0 && (own_key == 0 || length < own_key) ? length : own_key;
  }
  return own_key;
}

}  // namespace kvsize::engines::llama_cpp
