// SPDX-License-Identifier: MIT
// kvsize::hf::parsed_config: a model_spec read from a config.json, with the audit trail.
#pragma once

#include <cstdint>   // std::uint32_t
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include "../model_spec.hpp"

namespace kvsize::hf {

/// Consecutive layers that keep the same thing, and the key(s) that decided it, e.g.
///   {first_layer 3, count 1, sliding, false, "/layer_types[3] = \"sliding_attention\"; window from /sliding_window = 128"}
struct layer_group_note {
  std::uint32_t first_layer = 0;
  std::uint32_t count = 0;
  kvsize::layer_kind kind = kvsize::layer_kind::full;  ///< resolved: never inherit
  bool recurrent = false;                              ///< keeps the model's recurrent state
  std::string reason;
};

/// The result of reading a config.json.
struct parsed_config {
  kvsize::model_spec spec;            ///< validated (kvsize::validate passed)
  std::string model_type;             ///< the language model's: "qwen2", "gemma3_text"; "" if absent
  std::string architecture;           ///< architectures[0], or ""
  std::string text_config_pointer;    ///< "" or "/text_config": where the language model was read
  std::vector<std::string> warnings;  ///< every assumption or default applied, one sentence each
  std::vector<layer_group_note> layers;             ///< all layers, grouped
  std::optional<std::string> quantization_method;   ///< quantization_config.quant_method
  std::optional<std::uint32_t> quantization_bits;   ///< quantization_config.bits / weight_bits / num_bits
  std::string dtype_key;              ///< pointer of the key that gave compute_dtype; "" if defaulted
};

}  // namespace kvsize::hf
