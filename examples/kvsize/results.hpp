// SPDX-License-Identifier: MIT
// kvsize command line: the result model — plain values the sizing produces once, which every
// output (text, --json, --csv) renders through the field tables of field_tables.hpp. Nothing here
// computes a size: a builder (results.cpp) copies the figures out of the sizing, so that a figure
// another part computes differently (the one KV budget, structured layer reasons) changes in one
// place, the builder, and every output follows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <kvsize/bytes.hpp>

namespace kvsize::cli {

/// The model's attention shape, as the report's first line and --json's "model" show it.
struct model_result {
  std::string architecture;  ///< "Qwen2ForCausalLM", else the model_type, else "unknown"
  std::string model_type;
  std::uint32_t layers = 0;
  std::uint32_t kv_layers = 0;        ///< layers that keep K and V (or a latent)
  std::string layer_kinds;            ///< "28 full", "5 sliding, 1 full": layers per kind
  std::string own_shapes;             ///< " (5 full layers: 2 KV heads, head_dim 512)" or "" (own_layer_shapes)
  std::uint32_t attention_heads = 0;
  /// Heads the cache keeps K and V for: the config's KV heads, and 1 for a model with latent (MLA)
  /// layers, whose cache holds one latent per token that every query head reads (DeepSeek-V3/R1:
  /// 128 query heads, 1 latent). The text and --json both print this one figure.
  std::uint32_t kv_heads = 0;
  std::uint32_t head_dim = 0;         ///< of K
  std::uint32_t head_dim_v = 0;       ///< of V
  std::uint64_t vocab_size = 0;
  std::string dtype;                  ///< the model's compute dtype
  std::uint64_t max_context = 0;      ///< 0: the config gives none
};

/// The report's figure rows: the KV cache, the logits and the weights, per device.
struct figures_result {
  // What the labels name (not fields of their own: --json gives them as inputs).
  std::uint64_t context = 0;          ///< tokens per sequence
  std::uint64_t batch = 0;            ///< sequences held at once
  bool slots = false;                 ///< llama.cpp: the whole cache is sized for its slots
  std::uint64_t n_seq = 0;            ///< llama.cpp slots
  bool moe = false;                   ///< active parameters differ from the total

  bytes kv_per_token{0};
  bytes kv_per_token_mha{0};          ///< without GQA/MQA/MLA sharing
  double gqa_ratio = 0;               ///< query heads per KV head
  bytes kv_per_sequence{0};           ///< one sequence of `context` tokens
  bytes kv_bytes{0};                  ///< `batch` sequences (llama.cpp: the whole cache)
  bytes state_per_sequence{0};        ///< recurrent state; 0 if none
  std::uint32_t state_pages = 1;      ///< vLLM: state pages a request holds per group (2: Mamba cache mode align)
  std::uint32_t block_size = 0;       ///< the engine's allocation unit in tokens (1: none)
  std::uint32_t kv_heads_per_rank = 0;
  std::uint64_t shared_prefix = 0;    ///< --shared-prefix tokens
  bytes prefix_saved{0};
  bytes logits_per_token{0};
  bytes logits_prefill{0};            ///< all `context` positions of one sequence
  std::optional<std::uint64_t> parameters;  ///< absent for families kvsize cannot count
  std::uint64_t active_parameters = 0;
  std::uint64_t vision_parameters = 0;
  bool has_vision = false;
  std::uint64_t mtp_parameters = 0;   ///< multi-token prediction, embeddings included
  std::optional<std::string> weights_dtype;  ///< "bf16", "q4_K_M", "gptq-4bit-g128"
  std::optional<bytes> weights;       ///< all weights, all devices
  std::optional<bytes> checkpoint_weights;  ///< a model folder's safetensors, as stored
  std::string checkpoint_source;            ///< "safetensors, 4 shards"
};

/// One point of the plan (or of its sweep): one device's memory at `users` × `context`, and the
/// ceilings at that context and for those users. Budget and verdict figures are taken as given.
struct point_result {
  std::string engine;
  bytes device_memory{0};
  std::uint32_t tp = 1;
  std::uint32_t pp = 1;
  std::uint64_t context = 0;
  std::uint64_t users = 0;
  bytes weights{0};       ///< on this device
  bytes kv{0};
  bytes logits{0};
  bytes activations{0};
  bytes sampler{0};
  bytes runtime{0};
  bytes non_torch{0};     ///< memory outside the engine's allocator (vLLM: non_torch_increase)
  bytes buffers{0};       ///< device buffers loaded with the weights (vLLM: rotary cache, vocab padding)
  bytes cuda_graphs{0};   ///< CUDA-graph memory the engine subtracts (vLLM 0.20 – 0.22's estimate)
  bytes workspace{0};     ///< the allocator's peak (logits, activations, sampler) + runtime + non-torch + buffers
                          ///< + CUDA graphs
  bytes reserve{0};       ///< kept from the KV cache by the engine's budget rule
  bytes free{0};
  bytes needed{0};        ///< weights + KV + workspace + reserve
  bool fits = false;
  std::string limited_by;  ///< "weights", "memory", "slots"; empty when it fits
  std::uint64_t admitted = 0;      ///< sequences of `context` tokens the engine admits in its budget
  std::uint64_t max_users = 0;     ///< at `context`
  std::uint64_t max_context = 0;   ///< for `users`
  bytes kv_budget{0};              ///< the engine's KV budget on this device
  std::uint64_t slot_cap = 0;      ///< the scheduler's cap on running sequences; `unbounded`: none

  // Words the text report puts beside the figures (the plan's own point only; empty in a sweep).
  std::string logits_words;       ///< "256 last positions × vocab, bf16"
  std::string activations_words;  ///< "a forward pass of 8,192 tokens, ..." or "--activations"
  std::string sampler_words;
  std::string runtime_words;
  std::string non_torch_words;
  std::string buffers_words;
  std::string cuda_graphs_words;
  std::string reserve_words;      ///< the engine's budget rule in words
  std::uint64_t context_limit = 0;  ///< the search limit of max_context
};

}  // namespace kvsize::cli
