// SPDX-License-Identifier: MIT
// The layer plan's data: what each layer keeps (layer_decision), which key decided (plan_source),
// and the plan itself with its distinct reasons. Filled by layer_plan.hpp.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint8_t, std::uint32_t
#include <string>   // std::string
#include <utility>  // std::move, std::pair
#include <vector>   // std::vector

#include "../model_spec.hpp"
#include "json_reader.hpp"
#include "layer_reason.hpp"

namespace kvsize::hf::detail {

/// One layer's decision. Its reason is layer_plan::reasons[reason] (layer_reason.hpp: data, with
/// the layer index put in when it is rendered).
struct layer_decision {
  layer_kind kind = layer_kind::full;
  bool recurrent = false;
  std::uint32_t kv_heads = 0;  ///< 0: the model's
  std::uint32_t reason = 0;    ///< index into layer_plan::reasons
  std::uint32_t head_dim = 0;  ///< K (and, unless head_dim_v is set, V) head dimension; 0: the model's
                               ///< (Gemma 4 global_head_dim, MiMo-V2-Flash swa_head_dim)
  bool v_from_k = false;       ///< no v_proj: V is K's projection (Gemma 4 attention_k_eq_v)
  bool sinks = false;          ///< one learned sink logit per query head (MiMo-V2-Flash's sliding layers)
  std::uint32_t query_heads = 0;  ///< this layer's query heads when they are its own (weights only); 0: the model's
  std::uint32_t head_dim_v = 0;  ///< V head dimension when head_dim is set and V differs (MiMo-V2-Flash swa_v_head_dim)
};

/// Which key decided the layers. One source per model: a per-layer key of lower precedence is not
/// read at all, by the plan or by the weights reader (a stray hybrid_override_pattern on a
/// DeepSeek config is no Nemotron-H layout), and a warning says it was ignored.
enum class plan_source : std::uint8_t {
  uniform,                  ///< no per-layer key: every layer alike (full, or the family's window rule)
  latent,                   ///< kv_lora_rank
  layer_types,              ///< layer_types
  block_configs,            ///< block_configs (DeciLM / Nemotron-NAS)
  hybrid_override_pattern,  ///< hybrid_override_pattern (Nemotron-H)
  layers_block_type,        ///< layers_block_type (Granite 4 hybrid)
  full_attention_interval,  ///< full_attention_interval (Qwen3-Next)
  jamba_period,             ///< attn_layer_period / attn_layer_offset (Jamba)
  falcon_h1,                ///< Falcon-H1: attention and Mamba2 in every layer
  full_attn_idxs,           ///< full_attn_idxs (LFM2 before layer_types): the rest are short convolutions
  linear_attn_config,       ///< linear_attn_config.full_attn_layers (Kimi-Linear): the rest are KDA layers
  attn_type_list,           ///< attn_type_list / decoder_attention_types (MiniMax-Text-01): 0 lightning, 1 softmax
};


struct layer_plan {
  plan_source source = plan_source::uniform;
  /// The checked per-layer key, for the readers that need more of it than the plan does (the
  /// weights reader's FFN widths from block_configs): when source is block_configs, an array of
  /// exactly `layers` objects, each with an "attention" object. Absent otherwise.
  slot block_configs;
  /// When source is hybrid_override_pattern, or layers_block_type of a one-block-per-layer family
  /// (NemotronH): the checked blocks, one of "M*-E" per layer.
  std::string hybrid_pattern;
  std::vector<layer_decision> layer;
  /// The distinct reasons (a model has a handful, not one per layer): equal reasons have equal
  /// indices, so layers compare their reasons by index.
  std::vector<layer_reasons> reasons;
  std::uint32_t sliding_window = 0;
  std::uint32_t attention_chunk = 0;
  std::uint32_t sparse_index_dim = 0;  ///< the index key of `indexed` layers (sparse_attention.hpp)
  recurrent_state state{};

  /// The index of `why` in `reasons`, added if new.
  auto intern(layer_reasons why) -> std::uint32_t {
    for (std::size_t k = 0; k < reasons.size(); ++k) {
      if (reasons[k] == why) {
        return static_cast<std::uint32_t>(k);
      }
    }
    reasons.push_back(std::move(why));
    return static_cast<std::uint32_t>(reasons.size() - 1);
  }
  /// The index of the one-clause reason `why`.
  auto intern(layer_reason why) -> std::uint32_t { return intern(layer_reasons{std::move(why)}); }
  /// Sets every layer's reason to `why`.
  void set_all_reasons(layer_reason why) {
    const std::uint32_t r = intern(std::move(why));
    for (auto& d : layer) {
      d.reason = r;
    }
  }
  /// Adds the clause `more` to the reason of every layer `pred` selects.
  template <class Pred>
  void append_reason(Pred pred, const layer_reason& more) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> done;  // old reason → new
    for (auto& d : layer) {
      if (!pred(d)) {
        continue;
      }
      std::uint32_t to = 0;
      bool found = false;
      for (const auto& [from, next] : done) {
        if (from == d.reason) {
          to = next;
          found = true;
          break;
        }
      }
      if (!found) {
        layer_reasons longer = reasons[d.reason];
        longer.push_back(more);
        to = intern(std::move(longer));
        done.emplace_back(d.reason, to);
      }
      d.reason = to;
    }
  }
};

/// What the plan needs from the model-wide reading.
struct plan_facts {
  std::string model_type;
  std::uint32_t layers = 0;
  std::uint32_t heads = 0;
  std::uint32_t hidden = 0;
  std::uint32_t head_dim = 0;  ///< the K head width as read (head_dim, the class default or hidden / heads); 0 when latent
  bool latent = false;
  layer_reason latent_reason;  ///< when latent: kv_lora_rank's reason
};

}  // namespace kvsize::hf::detail
