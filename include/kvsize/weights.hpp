// SPDX-License-Identifier: MIT
// Parameters and weight bytes of a model_spec, exactly and in constant expressions: the umbrella
// of the weights headers (include this one; the parts below are one concept each).
//
//   constexpr kvsize::parameter_breakdown p = kvsize::parameters(spec);   // p.total, p.experts_routed, ...
//   constexpr kvsize::bytes w = kvsize::weights_bytes(spec, kvsize::gptq_weights(4, 128));
//
// Convention. `total` counts the module parameters of the language model, as
// model.num_parameters() of the *ForCausalLM class, keras-hub and GGUF general.parameter_count do:
// no buffers (rotary inv_freq, causal masks), a tied LM head once. Checkpoint extras are separate
// terms: multi-token-prediction modules (`mtp`, and `mtp_embeddings` for the embedding and head
// copies DeepSeek-V3 and GLM-4.5 store with them) and the vision tower with its projector
// (`vision`); `with_extras` adds them. A checkpoint that stores a tied head as its own tensor
// (Qwen3-0.6B, gemma-2b-it, Falcon) holds `embeddings` more than `total`; Llama-2's holds
// layers × head_dim / 2 rotary inv_freq floats more. Neither follows from config.json.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

// The parts, in dependency order:
//   weights_shape.hpp        what model_spec::weights says (norms, biases, MoE, recurrent mixers, MTP)
//   weights_tensor.hpp       weight_tensor, weight_part, tensor_role: one tensor and its vocabulary
//   weights_emitter.hpp      layer_emitter: how a step of the enumeration reports a layer's tensors
//   weights_mixers.hpp       the tensors of each recurrent mixer (Mamba2, Mamba1, gated delta, KDA, lightning)
//   weights_enumeration.hpp  for_each_weight: the one enumeration of the tensors (layer by layer)
//   weights_parameters.hpp   parameters(): parameter_breakdown, a sum over the enumeration
//   vision_tower.hpp         vision_tower_parameters(): a vision tower and projector from its shape
//   weights_format.hpp       weights_format, the schemes, llama.cpp presets, --weights-dtype parsing
//   weights_gguf.hpp         llama.cpp's per-tensor GGUF rules (llama_tensor_get_type)
//   weights_bytes.hpp        weights_bytes(): bytes in a format, a sum over the enumeration
// Element types and their sizes (dtype, ggml_type) are dtype.hpp's one table.
#include "weights_shape.hpp"
#include "weights_tensor.hpp"
#include "weights_enumeration.hpp"
#include "weights_parameters.hpp"
#include "vision_tower.hpp"
#include "weights_format.hpp"
#include "weights_gguf.hpp"
#include "weights_split.hpp"
#include "weights_bytes.hpp"
#include "weights_by_layer.hpp"
