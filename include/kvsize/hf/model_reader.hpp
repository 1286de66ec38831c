// SPDX-License-Identifier: MIT
// From a parsed config.json document to a validated kvsize::model_spec: the model-wide keys
// (shape, dtype, context, weights facts, quantization), then layer_plan for the per-layer ones.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>      // std::uint32_t, std::uint64_t
#include <cstddef>      // std::size_t
#include <optional>     // std::optional
#include <algorithm>    // std::min
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "../dtype.hpp"
#include "../model_spec.hpp"
#include "aliases.hpp"
#include "class_context.hpp"
#include "config_view.hpp"
#include "families.hpp"
#include "layer_plan.hpp"
#include "length_family.hpp"
#include "mlp_width.hpp"
#include "parsed_config.hpp"
#include "weights_only.hpp"

namespace kvsize::hf::detail {

/// A required count under any of `aliases`; missing_key names every alias and the model_type.
[[nodiscard]] inline auto require_count(const config_view& v, std::span<const std::string_view> aliases,
                                        const std::string& model_type, std::uint32_t max = max_count) -> std::uint32_t {
  const slot s = v.get_first(aliases);
  if (!s.present()) {
    fail(config_errc::missing_key, s.pointer(),
         "expected one of " + list_keys(aliases) + ", got none of them (model_type " +
             (model_type.empty() ? std::string("absent") : "\"" + printable(model_type) + "\"") + ")");
  }
  return read_u32(s, 1, max);
}

/// The language model's object: text_config / llm_config / language_config / thinker_config.text_config.
[[nodiscard]] inline auto find_text_config(const json& root) -> slot {
  for (const auto key : keys::text_config) {
    const slot s = lookup(root, "", key);
    if (s.present()) {
      require_object(s);
      return s;
    }
  }
  const slot thinker = lookup(root, "", "thinker_config");
  if (thinker.present()) {
    require_object(thinker);
    const slot s = lookup(*thinker.value, thinker.pointer(), "text_config");
    if (s.present()) {
      require_object(s);
      return s;
    }
  }
  return {};
}

/// compute_dtype: `dtype` (transformers ≥ 4.56) over `torch_dtype`, the root before text_config
/// (vLLM _find_dtype). Absent: float32, with a warning, because that is what the config means:
/// PretrainedConfig leaves torch_dtype None and from_pretrained then loads torch's default float32,
/// and vLLM's _find_dtype falls back to float32 too. Engines then choose what they serve (vLLM's
/// dtype "auto" turns float32 into bfloat16 on Ampere and later): that is an engine setting, not
/// the model's, so pass the KV dtype explicitly to size a served GPT-2 or GPT-OSS.
inline void read_dtype(const json& root, const slot& text, parsed_config& out) {
  std::vector<slot> candidates;
  for (const auto key : keys::dtype) {
    candidates.push_back(lookup(root, "", key));
  }
  if (text.present()) {
    for (const auto key : keys::dtype) {
      candidates.push_back(lookup(*text.value, text.pointer(), key));
    }
  }
  for (const auto& s : candidates) {
    if (!s.set()) {
      continue;
    }
    const std::string name = read_string(s);
    const auto t = kvsize::parse_dtype(name);
    if (!t || (*t != kvsize::dtype::f32 && *t != kvsize::dtype::f16 && *t != kvsize::dtype::bf16)) {
      fail(config_errc::unsupported, s.pointer(),
           "expected \"float32\", \"float16\" or \"bfloat16\", got " + describe(*s.value));
    }
    out.spec.compute_dtype = *t;
    out.dtype_key = s.pointer();
    return;
  }
  out.spec.compute_dtype = kvsize::dtype::f32;
  out.warnings.emplace_back(
      "no dtype or torch_dtype key: compute dtype float32, as transformers loads such a model (torch's default); "
      "the engine profiles apply their own dtype=auto rule (vLLM and TensorRT-LLM serve it in bfloat16, SGLang in float16)");
}

/// K/V heads of a non-latent model, with the families' special keys first (vLLM get_total_num_kv_heads).
[[nodiscard]] inline auto read_kv_heads(const config_view& v, std::uint32_t heads, std::vector<std::string>& notes)
    -> std::uint32_t {
  const auto flag = [&](std::string_view key, bool fallback) { return read_bool_or(v.get(key), fallback); };
  const slot chain = v.get_first(keys::kv_heads);
  const kv_heads_rule rule = v.facts().kv_heads;
  const bool falcon = rule == kv_heads_rule::falcon_multi_query;
  const bool new_arch = flag("new_decoder_architecture", false);
  std::uint32_t kv = 0;
  slot decided = chain;
  if (rule == kv_heads_rule::mpt_attn_config) {
    const slot attn = v.get("attn_config");
    if (attn.present()) {
      require_object(attn);
      const slot type = lookup(*attn.value, attn.pointer(), "attn_type");
      const slot n = lookup(*attn.value, attn.pointer(), "kv_n_heads");
      if (type.set() && read_string(type) == "multiquery_attention") {
        notes.push_back(type.pointer() + " = \"multiquery_attention\": 1 KV head");
        return 1;
      }
      if (n.set()) {
        kv = read_u32(n, 1);
        decided = n;
      }
    }
  } else if (rule == kv_heads_rule::chatglm) {
    const slot mqa = v.get("multi_query_attention");
    if (!read_bool_or(mqa, false)) {
      notes.push_back(mqa.pointer() + " is not true: " + std::to_string(heads) + " KV heads (multi-head attention)");
      return heads;
    }
    decided = v.get("multi_query_group_num");
    kv = read_u32(decided, 1);
  } else if (!chain.set() && !new_arch && (v.get("multi_query").set() || falcon)) {
    const slot mq = v.get("multi_query");
    const bool on = read_bool_or(mq, falcon);  // FalconConfig: multi_query defaults to True
    if (!mq.present()) {
      v.warn(mq.pointer() + " is absent; took true, the default of transformers' FalconConfig");
    }
    notes.push_back(mq.pointer() + (on ? " = true: 1 KV head (multi-query)" : " = false: multi-head attention"));
    return on ? 1U : heads;
  }
  if (kv == 0) {
    if (!chain.set()) {
      // LlamaConfig and most others: "If it is not specified, will default to num_attention_heads".
      v.warn(chain.pointer() + (chain.present() ? " is null" : " is absent") +
             ": multi-head attention, KV heads = num_attention_heads (" + std::to_string(heads) + ")");
      notes.push_back(chain.pointer() + (chain.present() ? " = null" : " absent") + ": " + std::to_string(heads) +
                      " KV heads (multi-head attention)");
      return heads;
    }
    kv = read_u32(chain, 1);
    decided = chain;
  }
  require_divisor(decided, kv, "num_attention_heads", heads);
  notes.push_back(decided.pointer() + " = " + std::to_string(kv) + (kv == 1 ? " KV head" : " KV heads"));
  return kv;
}

/// Longest context: the minimum over the present keys (vLLM _get_and_verify_max_len), as written.
/// No rope_scaling factor is applied: max_position_embeddings already states the scaled length
/// for Llama 3.1 (131072) and gemma-3, and engines differ on the others.
/// Each key's value is kept too (model_spec::stated), for the engines' own default context.
inline void read_max_context(const config_view& v, parsed_config& out) {
  static_assert(keys::max_context.size() == kvsize::context_key_count, "one kvsize::context_key a key");
  std::uint64_t best = 0;
  for (std::size_t i = 0; i < keys::max_context.size(); ++i) {
    const slot s = v.get(keys::max_context[i]);
    if (s.set()) {
      const std::uint64_t n = read_integer(s, 1, std::uint64_t{1} << 40U);
      out.spec.stated.keys[i] = n;
      best = best == 0 ? n : std::min(best, n);
    }
  }
  out.spec.stated.keys_read = true;
  out.spec.stated.family = length_family_of(v);
  // The engines getattr() the loaded config, so a key the file leaves out has its class's default
  // (class_context.hpp): Jamba-v0.1 states only n_ctx, and JambaConfig's max_position_embeddings is 262,144.
  // model_spec::max_context stays what the file states.
  const std::optional<class_context> by_class = class_context_of(v.facts().model_type);
  std::uint64_t& class_key = out.spec.stated.keys[static_cast<std::size_t>(by_class ? by_class->key : context_key{})];
  // GPT2Config / GPTBigCodeConfig answer max_position_embeddings with n_positions (attribute_map): a stated one is it.
  const bool aliased = by_class && by_class->key == context_key::n_positions &&
                       out.spec.stated.keys[static_cast<std::size_t>(context_key::max_position_embeddings)] != 0;
  const bool class_fills = by_class && class_key == 0 && !aliased;
  if (class_fills) {
    class_key = by_class->length;
  }
  if (best == 0) {
    // TensorRT-LLM reads max_position_embeddings alone (engines/trtllm_context.hpp), else 2,048 too.
    const bool trtllm_too = !class_fills || by_class->key == context_key::max_position_embeddings ||
                            by_class->key == context_key::n_positions;  // GPT2Config's max_position_embeddings alias
    // llama.cpp's converter (engines/llama_cpp_context.hpp) takes a class default too, but for a family with a rule
    // of its own (hf/length_family.hpp converter_length_note).
    const std::string_view converter_note = converter_length_note(out.spec.stated.family);
    const bool llama_too = class_fills && converter_note.empty();
    const std::string engines_named = trtllm_too && llama_too ? "vLLM, SGLang, TensorRT-LLM and llama.cpp"
                                      : trtllm_too              ? "vLLM, SGLang and TensorRT-LLM"
                                      : llama_too               ? "vLLM, SGLang and llama.cpp"
                                                                : "vLLM and SGLang";
    const std::string engines =
        (class_fills ? "; " + engines_named + " take " + std::string(by_class->config_class) + "'s default " +
                           std::string(keys::max_context[static_cast<std::size_t>(by_class->key)]) + ", " +
                           std::to_string(by_class->length)
                     : "; " + engines_named + " take 2,048") +
        (converter_note.empty() ? std::string{} : "; " + std::string{converter_note});
    out.warnings.push_back("none of " + list_keys(keys::max_context) + " is set: max_context unknown (0)" + engines);
  }
  out.spec.max_context = best;
}

/// The Q/K/V bias and tied embeddings: weights only (read_weights_only).
inline void read_bias_and_tie(const json& root, const config_view& v, parsed_config& out) {
  const family& facts = v.facts();
  auto& m = out.spec;
  if (facts.qkv_bias_fixed) {
    m.qkv_bias = facts.qkv_bias;
  } else if (const slot b = v.get_first(keys::qkv_bias); b.set()) {
    m.qkv_bias = read_bool(b);
  } else if (const slot nb = v.get("no_bias"); nb.set()) {
    m.qkv_bias = !read_bool(nb);
  } else {
    m.qkv_bias = facts.qkv_bias;
  }
  slot tie = facts.tie_alias.empty() ? slot{} : v.get(facts.tie_alias);  // Lfm2Config's kwargs.get first
  if (!tie.set()) {
    tie = v.get("tie_word_embeddings");
  }
  if (!tie.set() && !v.base().empty()) {
    tie = lookup(root, "", "tie_word_embeddings");
  }
  if (tie.set()) {
    m.tied_embeddings = read_bool(tie);
  } else {
    m.tied_embeddings = facts.tied;
    out.warnings.push_back(std::string("tie_word_embeddings is absent; took ") + (m.tied_embeddings ? "true" : "false") +
                           ", the default of " + std::string(facts.source));
  }
}

inline void read_weights_facts(const json& root, const config_view& v, parsed_config& out) {
  const family& facts = v.facts();
  auto& m = out.spec;
  read_mlp_width(v, out);
  m.gated_mlp = facts.gated_mlp;
  read_weights_only(out, [&] { read_bias_and_tie(root, v, out); });  // weights only, unlike the MLP width
}

/// Latent attention (DeepSeek-V2/V3/R1, Kimi-K2): kv_lora_rank set and not null (vLLM is_deepseek_mla).
[[nodiscard]] inline auto read_latent(const config_view& v, const std::string& mt, kvsize::model_spec& m,
                                      layer_reason& reason) -> bool {
  const slot rank = v.get("kv_lora_rank");
  if (!rank.set()) {
    return false;
  }
  const slot rope = v.get("qk_rope_head_dim");
  const slot nope = v.get("qk_nope_head_dim");
  const slot vd = v.get("v_head_dim");
  m.latent.kv_lora_rank = read_u32(rank, 1, 1U << 20U);
  m.latent.rope_head_dim = read_u32(rope, 0, 1U << 16U);
  m.latent.nope_head_dim = read_u32(nope, 0, 1U << 16U);
  m.latent.v_head_dim = read_u32(vd, 1, 1U << 16U);
  if (m.latent.rope_head_dim + m.latent.nope_head_dim == 0) {
    fail(config_errc::inconsistent, nope.pointer(), "expected qk_nope_head_dim + qk_rope_head_dim > 0, got 0 + 0");
  }
  // DeepSeek sparse attention (DeepseekV32Config, GLM-5): the lightning indexer caches one key of
  // index_head_dim elements per token in every latent layer (vLLM DeepseekV32IndexerCache).
  const slot index = v.get("index_head_dim");
  if (index.set()) {
    m.latent.index_head_dim = read_u32(index, 1, 1U << 16U);
  }
  // What an engine that expands the latent stores: attention_heads × (nope + rope) for K and
  // attention_heads × v_head_dim for V (kv_bytes_per_token_mha).
  m.kv_heads = m.attention_heads;
  m.head_dim = m.latent.nope_head_dim + m.latent.rope_head_dim;
  m.head_dim_v = m.latent.v_head_dim;
  const slot kvh = v.get_first(keys::kv_heads);
  reason.pointer = rank.pointer();
  reason.rule = reason_rule::model_wide;
  reason.value = rank.pointer() + " (" + std::to_string(m.latent.kv_lora_rank) + ") + " + rope.pointer() + " (" +
           std::to_string(m.latent.rope_head_dim) + ") = " +
           std::to_string(m.latent.kv_lora_rank + m.latent.rope_head_dim) +
           " elements per token: latent attention, one vector for all heads" +
           (kvh.set() ? "; " + kvh.pointer() + " = " + describe(*kvh.value) + " is not used for the cache" : std::string{}) +
           (index.set() ? "; plus the sparse-attention indexer's key, " + index.pointer() + " (" +
                              std::to_string(m.latent.index_head_dim) + ") elements per token" : std::string{});
  if (!v.facts().latent) {
    v.warn("model_type \"" + printable(mt) + "\" has kv_lora_rank: read as multi-head latent attention (DeepSeek-V2 style)");
  }
  return true;
}

}  // namespace kvsize::hf::detail
