// SPDX-License-Identifier: MIT
// model_spec::stated's family (kvsize::length_family): a model whose length an engine takes by a rule of its own
// rather than from the length keys. Only llama.cpp's converter has such rules (https://github.com/ggml-org/llama.cpp
// convert_hf_to_gguf.py, classes registered by architecture; engines/llama_cpp_context.hpp applies them):
//   - FalconModel (FalconForCausalLM, RWForCausalLM: model_type falcon, RefinedWeb, RefinedWebModel): 2,048;
//   - CommandR2Model (CohereForCausalLM: cohere; Cohere2ForCausalLM takes the generic rule): model_max_length first;
//   - GraniteHybridModel / NemotronHModel (GraniteMoeHybridForCausalLM, NemotronHForCausalLM): 2^20 where the model
//     has Mamba layers (BambaForCausalLM keeps its rope and the generic rule);
//   - HunYuanMoEModel / HunYuanModel (hunyuan, hunyuan_v1_moe, hunyuan_v1_dense) when the rope type is "dynamic":
//     262,144;
//   - ChatGLMModel (ChatGLMModel, remote code, so the file as written): seq_length, else hidden_size.
// Keyed by the family table's model_type (config_view::facts), so only families kvsize reads are named: a pure Mamba
// config (MambaModel, Mamba2Model: 2^20 too) is refused before its length matters.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <string>       // std::string
#include <string_view>  // std::string_view

#include "../stated_context.hpp"
#include "config_view.hpp"
#include "json_reader.hpp"

namespace kvsize::hf::detail {

/// Whether the flat rope object names type `wanted` in rope_type or the legacy `type`: rope_parameters
/// (transformers 5's name) where the key is present, even null, else rope_scaling, as the converter's
/// hparams.get("rope_parameters", hparams.get("rope_scaling")) or {} reads them. Never throws: a malformed rope
/// object is the rope readers' to refuse or warn of, and names no type here.
[[nodiscard]] inline auto flat_rope_type_is(const config_view& v, std::string_view wanted) -> bool {
  for (const char* key : {"rope_parameters", "rope_scaling"}) {
    const slot rope = v.get(key);
    if (!rope.present()) {
      continue;
    }
    if (!rope.value->is_object()) {
      return false;
    }
    for (const char* type_key : {"rope_type", "type"}) {
      const auto it = rope.value->find(type_key);
      if (it != rope.value->end()) {
        return it->is_string() && it->get_ref<const std::string&>() == wanted;
      }
    }
    return false;
  }
  return false;
}

/// The length rule of the config in `v` (its family's model_type, and HunYuan's rope type).
[[nodiscard]] inline auto length_family_of(const config_view& v) -> length_family {
  const std::string_view model_type = v.facts().model_type;
  if (model_type == "falcon" || model_type == "RefinedWeb" || model_type == "RefinedWebModel") {
    return length_family::falcon;
  }
  if (model_type == "nemotron_h" || model_type == "granitemoehybrid") {
    return length_family::mamba;
  }
  if ((model_type == "hunyuan" || model_type == "hunyuan_v1_moe" || model_type == "hunyuan_v1_dense") &&
      flat_rope_type_is(v, "dynamic")) {
    return length_family::hunyuan_dynamic;
  }
  if (model_type == "chatglm" && !v.get("seq_length").set()) {
    return length_family::chatglm_hidden;
  }
  return model_type == "cohere" ? length_family::command_r : length_family::plain;
}

/// What llama.cpp's converter writes for a family with a rule of its own, for the reader's no-length warning; ""
/// for a family that takes the keys (and so a class default, where transformers has the class).
[[nodiscard]] constexpr auto converter_length_note(length_family f) -> std::string_view {
  switch (f) {
    case length_family::falcon: return "llama.cpp's converter writes 2,048 for any Falcon";
    case length_family::mamba: return "llama.cpp's converter writes 2^20 where the model has Mamba layers";
    case length_family::hunyuan_dynamic: return "llama.cpp's converter writes 262,144 for its dynamic rope";
    case length_family::chatglm_hidden: return "llama.cpp's converter writes hidden_size";
    case length_family::plain:
    case length_family::command_r: break;
  }
  return {};
}

}  // namespace kvsize::hf::detail
