// SPDX-License-Identifier: MIT
// What each layer keeps, decided from the config's per-layer keys, with the key that decided it.
// Sources, in order of precedence (one per model):
//   linear_attn_config (Kimi-Linear) > kv_lora_rank (latent) > layer_types > block_configs > hybrid_override_pattern >
//   layers_block_type > full_attention_interval > the family's layer rule (families.hpp: Jamba's
//   attn_layer_period, Falcon-H1, or its window rule); then num_kv_shared_layers (Gemma 3n) on top.
// The per-layer keys are read in layer_keys.hpp, the family rules live in layer_rules.hpp.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint32_t
#include <string>   // std::string

#include "../model_spec.hpp"
#include "config_view.hpp"
#include "families.hpp"
#include "layer_decision.hpp"
#include "layer_keys.hpp"
#include "layer_rules.hpp"
#include "recurrent.hpp"
#include "sparse_attention.hpp"
#include "step_attention.hpp"

namespace kvsize::hf::detail {

/// MiniMax's per-layer attention kinds as vLLM's MiniMaxText01Model finds them: "getattr(config,
/// 'attn_type_list', False) or getattr(config, 'decoder_attention_types', False)", so an empty list falls
/// through to the next key; unset when neither holds one (then layer_types, then every layer softmax).
[[nodiscard]] inline auto attn_type_slot(const config_view& v) -> slot {
  for (const std::string_view key : keys::attn_type_list) {
    if (const slot s = v.get(key); s.set() && !(s.value->is_array() && s.value->empty())) {
      return s;
    }
  }
  return {};
}

/// The source plan_layers uses, from which keys are set (precedence as in the file comment).
[[nodiscard]] inline auto choose_plan_source(const config_view& v, bool latent) -> plan_source {
  if (v.get("linear_attn_config").set()) {  // before kv_lora_rank: its full layers are the latent ones
    return plan_source::linear_attn_config;
  }
  if (latent) {
    return plan_source::latent;
  }
  if (v.facts().mixer == mixer_rule::lightning && attn_type_slot(v).set()) {  // vLLM reads it first
    return plan_source::attn_type_list;
  }
  if (v.get("layer_types").set()) {
    return plan_source::layer_types;
  }
  if (v.get("block_configs").set()) {
    return plan_source::block_configs;
  }
  if (v.get("full_attn_idxs").set()) {
    return plan_source::full_attn_idxs;
  }
  if (v.get("hybrid_override_pattern").set()) {
    return plan_source::hybrid_override_pattern;
  }
  if (v.get("layers_block_type").set()) {
    return plan_source::layers_block_type;
  }
  const layer_rule rule = v.facts().layers;
  if (v.get("full_attention_interval").set() || rule == layer_rule::full_attention_interval) {
    return plan_source::full_attention_interval;
  }
  if (rule == layer_rule::jamba_period) {
    return plan_source::jamba_period;
  }
  if (rule == layer_rule::falcon_h1) {
    return plan_source::falcon_h1;
  }
  return plan_source::uniform;
}

namespace plan_detail {

/// Per-layer keys that lose to the source are not read; say so (a key of a different
/// architecture, or a conversion leftover).
inline void warn_unread_layer_keys(const config_view& v, bool latent) {
  const slot lt = v.get("layer_types");
  const slot bc = v.get("block_configs");
  const slot hop = v.get("hybrid_override_pattern");
  const slot lbt = v.get("layers_block_type");
  const slot hlp = v.get("hybrid_layer_pattern");
  const slot atl = attn_type_slot(v);
  const bool by_attn_types = v.facts().mixer == mixer_rule::lightning && atl.set();
  const char* decided_by = latent ? "kv_lora_rank" : by_attn_types ? atl.key.data() : lt.set() ? "layer_types"
                                                     : bc.set()    ? "block_configs"
                                                     : hop.set()   ? "hybrid_override_pattern"
                                                                   : "";
  for (const slot* other : {&lt, &bc, &hop, &lbt, &hlp}) {
    if (other->set() && *decided_by != '\0' && other->key != decided_by) {
      v.warn(other->pointer() + " is not read: the layers are decided by " + v.base() + "/" + decided_by +
             ", which takes precedence");
    }
  }
}

/// Fills p.layer from the source; returns the recurrence of its state-keeping layers.
inline auto plan_from_source(const config_view& v, const plan_facts& f, layer_plan& p) -> recurrence {
  const mixer_rule mixer = v.facts().mixer;
  recurrence rec = mixer == mixer_rule::mamba1       ? recurrence::mamba1
                   : mixer == mixer_rule::short_conv ? recurrence::short_conv
                   : mixer == mixer_rule::lightning  ? recurrence::lightning
                                                     : recurrence::mamba2;
  switch (p.source) {
    case plan_source::latent: {
      const std::uint32_t r = p.intern(f.latent_reason);
      for (auto& d : p.layer) {
        d = {layer_kind::latent, false, 0, r};
      }
      break;
    }
    case plan_source::layer_types: {
      const slot lt = v.get("layer_types");
      read_layer_types(lt, f, p, v.facts().step_attention_keys);  // Step-3.5 lists its MTP layers too
      for (std::uint32_t i = 0; i < f.layers; ++i) {
        if ((*lt.value)[i] == "linear_attention") {  // MiniMaxConfig's linear layers are lightning attention
          rec = mixer == mixer_rule::lightning ? recurrence::lightning : recurrence::gated_delta;
        } else if ((*lt.value)[i] == "conv") {
          rec = recurrence::short_conv;
        }
      }
      break;
    }
    case plan_source::full_attn_idxs:
      read_full_attn_idxs(v.get("full_attn_idxs"), f, p);
      rec = recurrence::short_conv;
      break;
    case plan_source::attn_type_list: read_attn_type_list(attn_type_slot(v), f, p); break;
    case plan_source::linear_attn_config:
      read_linear_attn_layers(v.get("linear_attn_config"), f, p);
      rec = recurrence::kda;
      break;
    case plan_source::block_configs:
      p.block_configs = v.get("block_configs");
      read_block_configs(p.block_configs, f, p);
      break;
    case plan_source::hybrid_override_pattern: {
      const slot hop = v.get("hybrid_override_pattern");
      read_hybrid_pattern(hop, f, p);
      p.hybrid_pattern = read_string(hop);
      break;
    }
    case plan_source::layers_block_type:
      read_block_types(v.get("layers_block_type"), f, v.facts().one_block_per_layer, p);
      break;
    case plan_source::full_attention_interval:
      plan_full_attention_interval(v, f, p);
      rec = recurrence::gated_delta;
      break;
    case plan_source::jamba_period:
    case plan_source::falcon_h1:
    case plan_source::uniform:
      if (mixer == mixer_rule::lightning) {
        v.warn(v.base() + "/attn_type_list and " + v.base() + "/layer_types are absent; took every layer as softmax attention "
               "(full K and V), as vLLM's MiniMaxText01Model does");
      }
      plan_by_family_rule(v, f, p);
      break;
  }
  return rec;
}

/// Gemma 3n / Gemma 4: the last num_kv_shared_layers layers read the cache of an earlier layer. HunYuan's
/// cross-layer attention (use_cla) is refused: its sharing layers are encoder-decoder attention in vLLM
/// (models/hunyuan_v1.py HunYuanDecoderLayer: layer_id % cla_share_factor != 0 → HunYuanCrossAttention),
/// whose cache kvsize does not model, and a figure without it would be wrong.
inline void apply_kv_sharing(const config_view& v, const plan_facts& f, layer_plan& p) {
  const slot cla = v.get("use_cla");
  const slot factor = v.get("cla_share_factor");  // _get_cla_factor: 1 unless given; 1 shares nothing
  if (v.facts().cross_layer_kv && read_bool_or(cla, false) && (factor.set() ? read_u32(factor, 1, f.layers) : 1U) > 1) {
    fail(config_errc::unsupported, cla.pointer(),
         "cross-layer attention (use_cla true: layers i % cla_share_factor != 0 reuse the K and V of the layer "
         "before, as vLLM's encoder-decoder attention) is not modelled yet "
         "(Hunyuan-A13B's config has use_cla false)");
  }
  const slot shared = v.get("num_kv_shared_layers");
  if (!shared.set()) {
    return;
  }
  const std::uint32_t n = read_u32(shared, 0, 1U << 30U);
  if (n >= f.layers) {
    fail(config_errc::inconsistent, shared.pointer(),
         "expected fewer than num_hidden_layers (" + std::to_string(f.layers) + "), got " + std::to_string(n));
  }
  const std::uint32_t r = p.intern(
      {shared.pointer(), reason_rule::layer_test, text(shared) + ": ", " reuses the KV of an earlier layer of its type"});
  for (std::uint32_t i = f.layers - n; i < f.layers; ++i) {
    // The K/V head count and head dimensions stay: the checkpoint holds the shared layers' projections
    // (Gemma 4: a full-attention layer's global_head_dim), which the weights count.
    p.layer[i].kind = layer_kind::shared;
    p.layer[i].recurrent = false;
    p.layer[i].reason = r;
  }
}

/// Gemma 4: the full-attention layers take global_head_dim for K and V and, with attention_k_eq_v,
/// num_global_key_value_heads KV heads (vLLM models/gemma4.py Gemma4DecoderLayer.__init__ and
/// transformers Gemma4TextAttention.__init__ read the global heads only under attention_k_eq_v).
inline void apply_global_attention_keys(const config_view& v, const plan_facts& f, layer_plan& p) {
  if (!v.facts().global_attention_keys) {
    return;
  }
  const slot ghd = v.get("global_head_dim");
  const slot k_eq_v = v.get("attention_k_eq_v");
  const slot gkv = v.get("num_global_key_value_heads");
  const bool shares = read_bool_or(k_eq_v, false);
  const std::uint32_t head_dim = ghd.set() ? read_u32(ghd, 1, 0xFFFFU) : 0U;
  // Read even where unused (no attention_k_eq_v): a broken count is an error, not a default.
  const std::uint32_t global_kv_heads = gkv.set() ? read_u32(gkv, 1, 0xFFFFU) : 0U;
  const std::uint32_t heads = shares ? global_kv_heads : 0U;
  if (heads != 0) {
    require_divisor(gkv, heads, "num_attention_heads", f.heads);
  }
  std::string why;
  if (head_dim != 0) {
    why = "head_dim " + std::to_string(head_dim) + " from " + ghd.pointer();
  }
  if (shares) {
    why += (why.empty() ? "" : "; ") + std::string("V is K's projection (") + k_eq_v.pointer() + ")" +
           (heads != 0 ? ", " + std::to_string(heads) + " KV heads from " + gkv.pointer() : std::string());
  }
  for (auto& d : p.layer) {
    if (d.kind == layer_kind::full) {
      d.head_dim = head_dim;
      d.kv_heads = heads != 0 ? heads : d.kv_heads;
      d.v_from_k = shares;
    }
  }
  if (!why.empty()) {
    p.append_reason([](const layer_decision& d) { return d.kind == layer_kind::full; },
                    {v.base(), reason_rule::note, why, {}});
  }
}

/// MiMo-V2-Flash: the sliding layers' own attention shape, as vLLM models/mimo_v2_flash.py
/// (MiMoV2FlashDecoderLayer.__init__) builds it: swa_num_key_value_heads KV heads, swa_head_dim for K
/// and swa_v_head_dim for V (absent: swa_head_dim, as MiMoV2Attention takes v_head_dim None), one sink
/// logit per head with add_swa_attention_sink_bias. An absent key leaves the full layers' value, with
/// a warning. The window is read_layer_sizes' (window_slot).
inline void apply_swa_attention_keys(const config_view& v, const plan_facts& f, layer_plan& p) {
  if (!v.facts().swa_attention_keys) {
    return;
  }
  const slot kv = v.get("swa_num_key_value_heads");
  const slot hd = v.get("swa_head_dim");
  const slot hdv = v.get("swa_v_head_dim");
  const slot heads = v.get("swa_num_attention_heads");
  const slot sinks = v.get("add_swa_attention_sink_bias");
  // The sliding layers' query heads: Q, O and sinks only (MiMoV2FlashAttention), never the cache.
  const std::uint32_t query_heads = heads.set() ? read_u32(heads, 1, 1U << 20U) : 0U;
  const std::uint32_t kv_heads = kv.set() ? read_u32(kv, 1, 0xFFFFU) : 0U;
  if (kv_heads != 0) {
    require_divisor(kv, kv_heads, query_heads != 0 ? heads.pointer() : "num_attention_heads",
                    query_heads != 0 ? query_heads : f.heads);
  }
  const std::uint32_t head_dim = hd.set() ? read_u32(hd, 1, 0xFFFFU) : 0U;
  const std::uint32_t head_dim_v = hdv.set() ? read_u32(hdv, 1, 0xFFFFU) : head_dim;
  // The sinks are weights only: a value that is not a bool is a warning, never a refusal of the KV answer.
  const bool sinks_readable = !sinks.set() || sinks.value->is_boolean();
  const bool with_sinks = sinks_readable && read_bool_or(sinks, false);
  if (!sinks_readable) {
    v.warn(sinks.pointer() + ": expected true or false, got " + describe(*sinks.value) +
           "; the sliding layers' attention sinks are not counted (one weight per query head and layer)");
  }
  bool sliding = false;
  for (auto& d : p.layer) {
    if (d.kind == layer_kind::sliding) {
      sliding = true;
      d.kv_heads = kv_heads;
      d.head_dim = head_dim;
      d.head_dim_v = head_dim_v;
      d.sinks = with_sinks;
      d.query_heads = query_heads;
    }
  }
  for (const slot* absent : {&kv, &hd}) {
    if (sliding && !absent->set()) {
      v.warn(absent->pointer() + " is absent; the sliding layers take the full layers' " +
             (absent == &kv ? "num_key_value_heads" : "head_dim and v_head_dim"));
    }
  }
  std::string why;
  const auto add = [&why](const std::string& part) { why += (why.empty() ? "" : "; ") + part; };
  if (kv_heads != 0) {
    add(std::to_string(kv_heads) + " KV heads from " + kv.pointer());
  }
  if (hd.set()) {
    add("K head_dim " + std::to_string(head_dim) + " from " + hd.pointer());
  }
  if (hdv.set() || hd.set()) {
    add("V head_dim " + std::to_string(head_dim_v) + " from " + (hdv.set() ? hdv.pointer() : hd.pointer()));
  }
  if (!why.empty()) {
    p.append_reason([](const layer_decision& d) { return d.kind == layer_kind::sliding; }, {v.base(), reason_rule::note, why, {}});
  }
}

/// The key the sliding window is read from: sliding_window, or for a family with the swa_* keys
/// (MiMo-V2-Flash) sliding_window_size when that is the only one set. Where both are set they must
/// agree: transformers reads sliding_window, vLLM and SGLang sliding_window_size.
[[nodiscard]] inline auto window_slot(const config_view& v) -> slot {
  const slot sw = v.get("sliding_window");
  if (!v.facts().swa_attention_keys) {
    return sw;
  }
  const slot sws = v.get("sliding_window_size");
  if (sw.set() && sws.set() && read_u32(sw, 1, max_window) != read_u32(sws, 1, max_window)) {
    fail(config_errc::inconsistent, sws.pointer(),
         "expected " + sw.pointer() + " (" + describe(*sw.value) + "): transformers reads that window, vLLM and SGLang this one, got " +
             describe(*sws.value));
  }
  return !sw.set() && sws.set() ? sws : sw;
}

/// Reads the window, chunk and recurrent-state sizes the planned layers need, and appends where
/// each came from to those layers' reasons.
inline void read_layer_sizes(const config_view& v, recurrence rec, const plan_facts& f, layer_plan& p) {
  const std::uint32_t hidden = f.hidden;
  bool sliding = false;
  bool chunked = false;
  bool recurrent = false;
  for (const auto& d : p.layer) {
    sliding = sliding || d.kind == layer_kind::sliding;
    chunked = chunked || d.kind == layer_kind::chunked;
    recurrent = recurrent || d.recurrent;
  }
  const slot sw = window_slot(v);
  if (!sliding && sw.set()) {
    // A window no layer uses must still be a window size (MistralConfig and Qwen2Config document
    // sliding_window as an int): a negative, fractional or non-finite value says the file is
    // broken, not that there is no window. null and 0 are both "no window" to transformers
    // (MistralAttention: sliding_window only "if config.sliding_window").
    (void)read_integer(sw, 0, max_window);
  }
  if (sliding) {
    p.sliding_window = read_u32(sw, 1);
    p.append_reason([](const layer_decision& d) { return d.kind == layer_kind::sliding; },
                    {sw.pointer(), reason_rule::window_from, std::to_string(p.sliding_window), {}});
  }
  if (chunked) {
    const slot chunk = v.get("attention_chunk_size");
    p.attention_chunk = read_u32(chunk, 1);
    p.append_reason([](const layer_decision& d) { return d.kind == layer_kind::chunked; },
                    {chunk.pointer(), reason_rule::chunk_from, std::to_string(p.attention_chunk), {}});
  }
  if (recurrent) {
    const state_reading s = rec == recurrence::gated_delta ? read_gated_delta_state(v.object(), v.base())
                            : rec == recurrence::short_conv ? read_short_conv_state(v.object(), v.base(), hidden)
                            : rec == recurrence::kda        ? read_kda_state(v.object(), v.base())
                            : rec == recurrence::lightning  ? read_lightning_state(v.object(), v.base(), f.heads, f.head_dim)
                                                            : read_mamba_state(v.object(), v.base(), hidden, rec);
    p.state = s.state;
    p.append_reason([](const layer_decision& d) { return d.recurrent; }, {v.base(), reason_rule::note, s.note, {}});
    if (const ssm_dtype_reading t = read_ssm_dtype(v); t.set) {
      p.state.ssm_dtype = t.type;
      p.state.ssm_dtype_set = true;
      p.state.ssm_dtype_defaulted = t.defaulted;
      p.append_reason([](const layer_decision& d) { return d.recurrent; }, {t.pointer, reason_rule::note, t.note, {}});
    }
  }
}

}  // namespace plan_detail

/// Decides every layer: the source (one per model), then KV sharing, then the sizes the layers
/// need. Reads the window, chunk and recurrent-state keys only when a layer needs them.
[[nodiscard]] inline auto plan_layers(const config_view& v, const plan_facts& f) -> layer_plan {
  using namespace plan_detail;
  layer_plan p;
  p.layer.assign(f.layers, layer_decision{layer_kind::full, false, 0, p.intern({"", reason_rule::no_layer_key, "", ""})});
  p.source = choose_plan_source(v, f.latent);
  warn_unread_layer_keys(v, f.latent);
  const recurrence rec = plan_from_source(v, f, p);
  apply_global_attention_keys(v, f, p);  // before the sharing, which keeps a shared layer's own shape (its weights)
  apply_kv_sharing(v, f, p);
  apply_swa_attention_keys(v, f, p);
  apply_other_attention_setting(v, f, p);
  apply_sparse_attention_config(v, f, p);
  read_layer_sizes(v, rec, f, p);
  return p;
}

}  // namespace kvsize::hf::detail
