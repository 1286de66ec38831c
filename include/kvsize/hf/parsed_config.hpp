// SPDX-License-Identifier: MIT
// kvsize::hf::parsed_config: a model_spec read from a config.json, with the audit trail.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>     // std::array
#include <cstdint>   // std::uint32_t
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include "../checkpoint_kv.hpp"
#include "../gguf/named_tensor.hpp"
#include "../model_spec.hpp"
#include "../weights.hpp"
#include "layer_reason.hpp"

namespace kvsize::hf {

/// Consecutive layers that keep the same thing, and the key(s) that decided it, e.g.
///   {first_layer 3, count 1, sliding, false, "/layer_types[3] = \"sliding_attention\"; window from /sliding_window = 128",
///    {{"/layer_types", list_element, "\"sliding_attention\""}, {"/sliding_window", window_from, "128"}}}
struct layer_group_note {
  std::uint32_t first_layer = 0;
  std::uint32_t count = 0;
  kvsize::layer_kind kind = kvsize::layer_kind::full;  ///< resolved: never inherit
  bool recurrent = false;                              ///< keeps the model's recurrent state
  std::string reason;    ///< `why` rendered for these layers (render_reason, reason_index::layers)
  layer_reasons why;     ///< the same, as data: no layer index in it (layer_reason.hpp)
};

/// quantization_config, as written, and the weights_format kvsize sizes it with.
struct quantization_config {
  std::string pointer;                      ///< "/quantization_config"
  std::string method;                       ///< quant_method: "fp8", "gptq", "awq", "mxfp4", "bitsandbytes", "modelopt", ...
  std::optional<std::uint32_t> bits;        ///< bits / weight_bits / num_bits / w_bit
  std::optional<std::uint32_t> group_size;  ///< group_size / q_group_size; -1 is read as 0 (one group)
  std::optional<bool> desc_act;             ///< GPTQ act-order (does not change the bytes: g_idx is always stored)
  std::optional<bool> sym;                  ///< GPTQ symmetric (qzeros are stored either way)
  std::optional<bool> zero_point;           ///< AWQ
  std::string fmt;                          ///< FP8: "e4m3" / "e5m2"
  std::string activation_scheme;            ///< FP8: "dynamic" / "static"
  std::string version;                      ///< AWQ: "gemm" / "gemv"
  std::string quant_algo;                   ///< ModelOpt: "NVFP4", "W4A16_NVFP4", "FP8", "MIXED_PRECISION", ...
  std::optional<std::array<std::uint32_t, 2>> weight_block_size;  ///< FP8 block: [output, input]
  std::vector<std::string> modules_to_not_convert;                ///< and llm_int8_skip_modules
  bool load_in_4bit = false;                ///< bitsandbytes
  bool load_in_8bit = false;
  std::string bnb_4bit_quant_type;          ///< "nf4" / "fp4"
  bool bnb_4bit_use_double_quant = false;
  std::optional<kvsize::weights_format> format;  ///< nullopt: a scheme kvsize does not size (warned)
};

/// The weights as a checkpoint states them, tensor by tensor (a GGUF file's tensor table), where
/// the input is one: exact, and preferred to the formula over the config's shape.
struct checkpoint_weights {
  std::string source;            ///< "GGUF tensor table", "safetensors, 4 shards"
  /// The bytes as the engine loads them (llama.cpp and a GGUF): they replace the formula. A
  /// safetensors checkpoint is shown beside it instead: engines may convert it (vLLM serves a
  /// float32 checkpoint in bf16).
  bool as_loaded = false;
  std::string format;            ///< "q4_K_M" (GGUF general.file_type), or ""
  std::uint64_t bytes = 0;       ///< Σ tensor bytes
  std::uint64_t parameters = 0;  ///< Σ tensor elements
  std::uint64_t active_parameters = 0;  ///< what one token uses (MoE: the routed experts it takes)
  std::uint64_t tensors = 0;
  std::optional<std::uint64_t> stated_bytes;  ///< model.safetensors.index.json's metadata.total_size
  /// Non-empty when the input states its weights but they could not be counted (a vocabulary-only
  /// GGUF, a missing shard): the reason, and no formula stands in for them.
  std::string unknown_because;
  // By llama.cpp's layer slot, from a GGUF's tensor table (empty otherwise): what an offload plan moves.
  std::vector<std::uint64_t> block_bytes;         ///< Σ blk.<il>.* bytes per block
  std::vector<std::uint64_t> block_expert_bytes;  ///< of which blk.<il>.*_exps.*
  std::uint64_t output_slot_bytes = 0;            ///< every non-block tensor but token_embd.weight
  std::uint64_t token_embedding_bytes = 0;        ///< token_embd.weight (always host memory)
  std::uint64_t other_input_bytes = 0;            ///< the other input-layer tensors (host memory too)
  bool tied_output = false;                       ///< no output.weight: the output slot copies token_embd
  std::vector<gguf::named_tensor> named;          ///< every tensor's name and bytes (-ot's patterns read them)
};

/// One of vision_config's size keys (num_hidden_layers, hidden_size): its value where it is an integer from 1 to
/// 2^24, and whether it is there but not such an integer (a warning; the value is then absent).
struct vision_size_key {
  std::optional<std::uint32_t> value;
  bool malformed = false;
};

/// The result of reading a config.json.
struct parsed_config {
  kvsize::model_spec spec;            ///< validated (kvsize::validate passed)
  std::string model_type;             ///< the language model's: "qwen2", "gemma3_text"; "" if absent
  std::string architecture;           ///< architectures[0], or ""
  std::vector<std::string> architectures;  ///< every entry of `architectures` (vLLM's runner choice reads them all)
  std::string text_config_pointer;    ///< "" or "/text_config": where the language model was read
  /// vision_config is an object, and the num_hidden_layers and hidden_size it gives by those names, as SGLang's
  /// vision-model factor reads them (engines/sglang_vlm.hpp: vlm_tower_of).
  bool vision_config_given = false;
  vision_size_key vision_num_hidden_layers;
  vision_size_key vision_hidden_size;
  std::vector<std::string> warnings;  ///< every assumption or default applied, one sentence each
  std::vector<layer_group_note> layers;             ///< all layers, grouped
  std::optional<std::string> quantization_method;   ///< quantization_config.quant_method
  /// quantization_config (or mlx-lm's `quantization`) is in the config, whether or not kvsize could read it:
  /// the checkpoint is quantized (vLLM ModelConfig.is_quantized).
  bool quantization_config_given = false;
  std::optional<std::uint32_t> quantization_bits;   ///< quantization_config.bits / weight_bits / num_bits
  std::optional<quantization_config> quantization;  ///< quantization_config in full
  /// The key by which quantization_config declares an FP8 KV cache (ModelOpt's kv_cache_scheme or
  /// kv_cache_quant_algo, compressed-tensors' kv_cache_scheme), as "<pointer>" (or "<file>:<pointer>" from
  /// hf_quant_config.json); "" if none. Engines that keep it at their default cache dtype: docs/engines.md.
  std::string checkpoint_kv_fp8;
  /// The form of that declaration, which engine_options::checkpoint_kv takes; none where checkpoint_kv_fp8 is "".
  checkpoint_kv_cache checkpoint_kv = checkpoint_kv_cache::none;
  /// The file checkpoint_kv_fp8 names and begins with where it is not the input (a model folder's
  /// hf_quant_config.json); "" where the key is the input's own.
  std::string checkpoint_kv_file;
  std::string dtype_key;              ///< pointer of the key that gave compute_dtype; "" if defaulted
  std::optional<checkpoint_weights> checkpoint;  ///< a GGUF input's tensor table; absent for config.json
  /// Non-empty when a key that only the weights read is malformed (an expert count, an expert width,
  /// quantization_config, ...): "<JSON pointer>: <what is wrong>", the first such key. The KV cache, the
  /// recurrent state and the logits do not read those keys and stand; the weights of `spec` are then
  /// incomplete, so parameters(spec) and weights_bytes(spec, ...) must not be used.
  std::string weights_unknown_because;
  /// The file weights_unknown_because names and begins with, where the malformed key is not in the input itself (a
  /// model folder's hf_quant_config.json); "" where it is the input's own key.
  std::string weights_unknown_file;
  /// Non-empty when some layer's MLP width is unknown (no intermediate key and no class default while a
  /// dense layer needs one, or a malformed per-layer width): "<JSON pointer>: <why>". The weights are
  /// then unknown too (weights_unknown_because), and so is the MLP term of the activation peak and of
  /// llama.cpp's compute buffer, which read the widths (the command leaves those figures out).
  std::string mlp_width_unknown_because;
};

}  // namespace kvsize::hf
