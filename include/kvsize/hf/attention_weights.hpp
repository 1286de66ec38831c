// SPDX-License-Identifier: MIT
// model_spec::weights, the per-layer attention and block facts: norms and block layout, learned
// positions, fused tensors, biases, Q/K norms, output gates, sinks, MLA's Q rank. Each fact comes
// from the family's row (families.hpp) and the keys that may override it; sources per family are
// in the row's comment (transformers models/<family>/modeling_<family>.py).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>      // std::uint32_t
#include <string>       // std::string
#include <string_view>  // std::string_view

#include "../model_spec.hpp"
#include "aliases.hpp"
#include "config_view.hpp"
#include "families.hpp"
#include "parsed_config.hpp"

namespace kvsize::hf::detail::weights_detail {

[[nodiscard]] inline auto flag(const config_view& v, std::string_view key, bool fallback) -> bool {
  return read_bool_or(v.get(key), fallback);
}

/// Norm kind, norms per sub-block, parallel attention + MLP.
inline void read_norms_and_block(const config_view& v, kvsize::weights_shape& w) {
  const family& fam = v.facts();
  switch (fam.norm) {
    case norm_rule::rms: break;
    case norm_rule::layer_norm: w.norm = norm_kind::layer_norm; break;
    case norm_rule::layer_norm_no_bias: w.norm = norm_kind::layer_norm_no_bias; break;  // CohereLayerNorm: weight only
    case norm_rule::layer_norm_unless_no_bias:
      w.norm = flag(v, "no_bias", false) ? norm_kind::layer_norm_no_bias : norm_kind::layer_norm;
      break;
  }
  if (fam.sandwich_norms) {
    w.norms_per_mixer = 2;  // input_layernorm + post_attention_layernorm
    w.norms_per_ffn = 2;    // pre_feedforward_layernorm + post_feedforward_layernorm
  }
  w.layer_scalar = fam.layer_scalar;
  w.sliding_rope_apart = fam.sliding_rope_apart;
  if (fam.block == block_rule::parallel) {
    w.parallel_block = true;
    w.norms_per_ffn = 0;  // one input_layernorm feeds attention and MLP
  } else if (fam.block == block_rule::falcon) {
    // FalconDecoderLayer: new_decoder_architecture (RefinedWeb, i.e. 40B/180B) has ln_attn and
    // ln_mlp; otherwise input_layernorm, plus post_attention_layernorm unless parallel_attn.
    const bool new_arch = flag(v, "new_decoder_architecture", fam.new_decoder_default);
    const bool parallel = flag(v, "parallel_attn", true);
    w.parallel_block = new_arch || parallel;
    w.norms_per_ffn = (new_arch || !parallel) ? 1 : 0;
  }
}

/// Rows of a learned position table (GPT-2's wpe), from the key or the config class's default.
inline void read_learned_positions(const config_view& v, kvsize::weights_shape& w, std::vector<std::string>& warnings) {
  const family& fam = v.facts();
  if (fam.learned_positions == 0) {
    return;
  }
  const slot np = v.get_first(keys::positions);
  if (np.set()) {
    w.position_embeddings = read_u32(np, 1, 1U << 24U);
  } else {
    w.position_embeddings = fam.learned_positions;
    warnings.push_back(np.pointer() + " is absent; took " + std::to_string(w.position_embeddings) +
                       " position-embedding rows, the default of transformers' " + std::string(config_class(fam)));
  }
}

/// o_proj and MLP biases: the family's rule, then attention_bias and mlp_bias where they apply.
inline void read_linear_biases(const config_view& v, const kvsize::model_spec& m, kvsize::weights_shape& w) {
  const family& fam = v.facts();
  bool on = false;
  switch (fam.linear_bias) {
    case linear_bias_rule::none: break;
    case linear_bias_rule::always: on = true; break;
    case linear_bias_rule::unless_no_bias: on = !flag(v, "no_bias", false); break;
    case linear_bias_rule::add_bias_linear: on = flag(v, "add_bias_linear", false); break;
    case linear_bias_rule::like_qkv: on = m.qkv_bias; break;
  }
  w.o_bias = on;
  w.mlp_bias = on;
  const slot attention_bias = v.get("attention_bias");
  if (attention_bias.set() && fam.attention_bias != attention_bias_rule::ignored) {
    // LlamaAttention & co.: o_proj bias = attention_bias too; Glm4MoeAttention: o_proj without bias.
    w.o_bias = read_bool(attention_bias) && fam.attention_bias == attention_bias_rule::sets_o_bias;
  }
  if (const slot mb = v.get("mlp_bias"); mb.set()) {
    w.mlp_bias = read_bool(mb);
  }
}

/// Q/K norms, output gates, attention sinks, the router's and experts' biases, MLA's Q rank.
inline void read_attention_extras(const config_view& v, const kvsize::model_spec& m, kvsize::weights_shape& w) {
  const family& fam = v.facts();
  w.fused_qkv = fam.fused_qkv;
  w.fused_gate_up = fam.fused_gate_up;
  if (fam.expert_biases) {
    w.moe.router_bias = true;
    w.moe.expert_bias = true;
  }
  w.attention_sinks = fam.attention_sinks;
  switch (fam.qk_norm) {
    case qk_norm_rule::none: break;
    case qk_norm_rule::head: w.qk_norm = qk_norm_kind::head; break;
    case qk_norm_rule::head_if_use_key:
      if (flag(v, "use_qk_norm", false)) {
        w.qk_norm = qk_norm_kind::head;
      }
      break;
    case qk_norm_rule::full: w.qk_norm = qk_norm_kind::full; break;  // over (kv_)heads × head_dim, as Cohere's
    case qk_norm_rule::full_if_use_key:
      if (flag(v, "use_qk_norm", false)) {
        w.qk_norm = qk_norm_kind::full;  // CohereLayerNorm over (heads, head_dim)
      }
      break;
  }
  w.output_gate = fam.output_gate;
  if (const slot g = v.get("use_head_wise_attn_gate"); fam.step_attention_keys && g.set()) {  // Step3p5Attention.g_proj
    // Weights only: a value that is not a bool (vLLM tests its truthiness, so "false" would build the gate)
    // is a config_error that read_weights_only turns into unknown weights, never a refusal.
    w.head_gate = read_bool(g);
  }
  // MiniMax-M3's indexer query heads (vLLM MinimaxM3QKVParallelLinearWithIndexer asserts they equal the KV heads,
  // which is the value taken, with a warning, when the key is absent or not a count: weights only, never a refusal).
  if (const slot sac = v.get("sparse_attention_config"); m.sparse_index_dim != 0 && sac.set() && sac.value->is_object()) {
    const slot heads = lookup(*sac.value, sac.pointer(), "sparse_num_index_heads");
    const bool counted = heads.set() && heads.value->is_number_unsigned() && heads.value->get<std::uint64_t>() >= 1 &&
                         heads.value->get<std::uint64_t>() <= (1U << 16U);
    w.sparse_index_heads = counted ? static_cast<std::uint32_t>(heads.value->get<std::uint64_t>()) : effective_kv_heads(m);
    if (!counted) {
      v.warn(heads.pointer() +
             (heads.set() ? ": expected a head count from 1 to 65,536, got " + describe(*heads.value) : " is absent") +
             "; took the KV heads (" + std::to_string(w.sparse_index_heads) +
             "), as vLLM requires, for the indexer's index_q_proj");
    }
  }
  if (const slot ql = v.get("q_lora_rank"); ql.set() && m.latent.kv_lora_rank != 0) {
    w.q_lora_rank = read_u32(ql, 1, 1U << 20U);
  }
  // DeepSeek sparse attention (index_head_dim read with the cache): the indexer's heads, index_n_heads; absent, the
  // class default (DeepseekV32Config 64, GlmMoeDsaConfig 32) with a warning, else the weights are unknown.
  if (m.latent.index_head_dim != 0) {
    const slot heads = v.get("index_n_heads");
    if (const auto d = unset_class_default(v, heads, "index_n_heads", ", for the sparse-attention indexer's weights")) {
      w.dsa_index_heads = *d;
    } else {
      w.dsa_index_heads = read_u32(heads, 1, 1U << 16U);
    }
  }
}

}  // namespace kvsize::hf::detail::weights_detail
