// SPDX-License-Identifier: MIT
// The per-layer keys of a config.json, read into a layer_plan: layer_types, block_configs
// (DeciLM / Nemotron-NAS), hybrid_override_pattern (Nemotron-H), layers_block_type (Granite 4
// hybrid). Each checks its key (one entry per layer) and gives every layer a kind and a reason.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>  // std::max
#include <cstdint>    // std::uint32_t
#include <string>   // std::string
#include <vector>   // std::vector

#include "layer_decision.hpp"

namespace kvsize::hf::detail::plan_detail {

/// A value as the reasons quote it: a string in quotes, anything else as describe() writes it.
inline auto str(const json& v) -> std::string { return v.is_string() ? "\"" + printable(v.get<std::string>()) + "\"" : describe(v); }

/// The reason of entry `i` of a per-layer list of strings: the previous layer's when the entry
/// repeats it (so equal runs group), else "{list}[i] = {entry}".
inline auto entry_reason(const slot& list, std::uint32_t i, layer_plan& p) -> std::uint32_t {
  const json& e = (*list.value)[i];
  return i > 0 && e == (*list.value)[i - 1] ? p.layer[i - 1].reason
                                            : p.intern({list.pointer(), reason_rule::list_element, str(e), {}});
}

/// layer_types: one entry per layer. Where the family allows `longer` lists (Step-3.5's checkpoint lists its MTP
/// layers too; vLLM's Step3p5Config keeps layer_types[:num_hidden_layers]), entries past the layers are checked,
/// not sized (an MTP layer caches only under speculative decoding).
inline void read_layer_types(const slot& lt, const plan_facts& f, layer_plan& p, bool longer = false) {
  const std::size_t listed = longer && lt.value->is_array() ? std::max<std::size_t>(lt.value->size(), f.layers) : f.layers;
  require_array(lt, listed,
                "one per layer, num_hidden_layers = " + std::to_string(f.layers) + (longer ? " or more" : ""));
  layer_decision mtp{};
  for (std::uint32_t i = 0; i < listed; ++i) {
    const slot e = element(lt, i);
    const std::string_view t = read_string_ref(e);
    auto& d = i < f.layers ? p.layer[i] : mtp;
    d.reason = i < f.layers ? entry_reason(lt, i, p) : 0U;
    if (t == "full_attention" || t == "attention") {
      d.kind = layer_kind::full;
    } else if (t == "sliding_attention") {
      d.kind = layer_kind::sliding;
    } else if (t == "chunked_attention") {
      d.kind = layer_kind::chunked;
    } else if (t == "linear_attention" || t == "mamba" || t == "conv") {
      d.kind = layer_kind::none;
      d.recurrent = true;
    } else {
      fail(config_errc::unsupported, e.pointer(),
           "expected one of \"full_attention\", \"attention\", \"sliding_attention\", \"chunked_attention\", "
           "\"linear_attention\", \"mamba\", \"conv\", got " + str(*e.value));
    }
  }
}

/// MiniMax-Text-01 / M1 (vLLM models/minimax_text_01.py MiniMaxText01Model.__init__): attn_type_list, or
/// decoder_attention_types, has one entry per layer: 0 a lightning-attention layer (no KV, a state), 1 a
/// softmax-attention layer (full K and V).
inline void read_attn_type_list(const slot& list, const plan_facts& f, layer_plan& p) {
  require_array(list, f.layers, "one per layer: 0 lightning attention, 1 softmax attention");
  for (std::uint32_t i = 0; i < f.layers; ++i) {
    const bool softmax = read_integer(element(list, i), 0, 1) == 1;
    p.layer[i] = {softmax ? layer_kind::full : layer_kind::none, !softmax, 0, entry_reason(list, i, p)};
  }
}

/// LFM2's older configs (before layer_types): full_attn_idxs lists the attention layers, each a
/// distinct index below num_hidden_layers; every other layer is a short convolution.
inline void read_full_attn_idxs(const slot& idxs, const plan_facts& f, layer_plan& p) {
  if (!idxs.value->is_array()) {
    fail(config_errc::wrong_type, idxs.pointer(), "expected an array of layer indices, got " + str(*idxs.value));
  }
  const std::uint32_t conv =
      p.intern({idxs.pointer(), reason_rule::note, "not in " + idxs.pointer() + ": a short convolution, no KV", {}});
  for (auto& d : p.layer) {
    d = {layer_kind::none, true, 0, conv};
  }
  for (std::uint32_t i = 0; i < idxs.value->size(); ++i) {
    const slot e = element(idxs, i);
    const std::uint64_t il = read_integer(e, 0, f.layers - 1ULL);
    if (p.layer[il].kind == layer_kind::full) {
      fail(config_errc::inconsistent, e.pointer(), "expected distinct layer indices, got " + std::to_string(il) + " twice");
    }
    p.layer[il] = {layer_kind::full, false, 0, entry_reason(idxs, i, p)};
  }
}

/// Kimi-Linear: linear_attn_config.full_attn_layers lists the attention layers, 1-based (KimiLinearConfig
/// is_kda_layer: layer_idx + 1 not in full_attn_layers), each MLA when the model is latent; every other
/// layer is a KDA layer (no KV, a state). kda_layers, when given, must be exactly the others.
inline void read_linear_attn_layers(const slot& lac, const plan_facts& f, layer_plan& p) {
  require_object(lac);
  const slot full = lookup(*lac.value, lac.pointer(), "full_attn_layers");
  if (!full.set() || !full.value->is_array()) {
    fail(full.set() ? config_errc::wrong_type : config_errc::missing_key, full.pointer(),
         "expected an array of 1-based layer numbers, got " + (full.set() ? str(*full.value) : std::string("nothing")));
  }
  const std::uint32_t kda =
      p.intern({full.pointer(), reason_rule::note, "not in " + full.pointer() + ": a KDA layer, no KV, a state", {}});
  for (auto& d : p.layer) {
    d = {layer_kind::none, true, 0, kda};
  }
  const std::uint32_t mla = f.latent ? p.intern(f.latent_reason) : 0;
  for (std::uint32_t i = 0; i < full.value->size(); ++i) {
    const slot e = element(full, i);
    const std::uint64_t il = read_integer(e, 1, f.layers) - 1;
    if (!p.layer[il].recurrent) {
      fail(config_errc::inconsistent, e.pointer(), "expected distinct layer numbers, got " + std::to_string(il + 1) + " twice");
    }
    p.layer[il] = {f.latent ? layer_kind::latent : layer_kind::full, false, 0,
                   f.latent ? mla : p.intern({full.pointer(), reason_rule::list_element, str(*e.value), {}})};
  }
  const slot listed = lookup(*lac.value, lac.pointer(), "kda_layers");
  if (!listed.set()) {
    return;
  }
  if (!listed.value->is_array()) {
    fail(config_errc::wrong_type, listed.pointer(), "expected an array of 1-based layer numbers, got " + str(*listed.value));
  }
  std::uint32_t kda_count = 0;
  for (const auto& d : p.layer) {
    kda_count += d.recurrent ? 1U : 0U;
  }
  std::vector<bool> seen(f.layers, false);
  for (std::uint32_t i = 0; i < listed.value->size(); ++i) {
    const slot e = element(listed, i);
    const std::uint64_t il = read_integer(e, 1, f.layers) - 1;
    if (!p.layer[il].recurrent || seen[il]) {
      fail(config_errc::inconsistent, e.pointer(),
           "expected a distinct layer not in " + full.pointer() + ", got " + std::to_string(il + 1));
    }
    seen[il] = true;
  }
  if (listed.value->size() != kda_count) {
    fail(config_errc::inconsistent, listed.pointer(),
         "expected the " + std::to_string(kda_count) + " layers not in " + full.pointer() + ", got " +
             std::to_string(listed.value->size()) + " entries");
  }
}

inline void read_block_configs(const slot& bc, const plan_facts& f, layer_plan& p) {
  require_array(bc, f.layers, "one per layer, num_hidden_layers = " + std::to_string(f.layers));
  for (std::uint32_t i = 0; i < f.layers; ++i) {
    const slot block = element(bc, i);
    require_object(block);
    const slot att = lookup(*block.value, block.pointer(), "attention");
    require_object(att);
    auto& d = p.layer[i];
    const slot no_op = lookup(*att.value, att.pointer(), "no_op");
    const slot linear = lookup(*att.value, att.pointer(), "replace_with_linear");
    if (read_bool_or(no_op, false)) {
      d.kind = layer_kind::none;
      d.reason = p.intern({bc.pointer(), reason_rule::block_entry, "no_op = true: no attention, no KV", {}});
      continue;
    }
    if (read_bool_or(linear, false)) {
      d.kind = layer_kind::none;
      d.reason = p.intern({bc.pointer(), reason_rule::block_entry, "replace_with_linear = true: a linear map, no KV", {}});
      continue;
    }
    const slot window = lookup(*att.value, att.pointer(), "window_length");
    if (window.set()) {
      fail(config_errc::unsupported, window.pointer(),
           "expected null (per-block attention windows are not supported), got " + describe(*window.value));
    }
    const slot group = lookup(*att.value, att.pointer(), "n_heads_in_group");
    const std::uint32_t n = read_u32(group, 1, f.heads);
    require_divisor(group, n, "num_attention_heads", f.heads);
    d.kind = layer_kind::full;
    d.kv_heads = f.heads / n;
    d.reason = p.intern({bc.pointer(), reason_rule::block_entry,
                         "n_heads_in_group = " + std::to_string(n) + ": " + std::to_string(f.heads) + " / " +
                             std::to_string(n) + " = " + std::to_string(d.kv_heads) + " KV heads",
                         {}});
  }
}

inline void read_hybrid_pattern(const slot& hop, const plan_facts& f, layer_plan& p) {
  const std::string pattern = read_string(hop);
  if (pattern.size() != f.layers) {
    fail(config_errc::inconsistent, hop.pointer(),
         "expected " + std::to_string(f.layers) + " characters (one per layer, num_hidden_layers), got " +
             std::to_string(pattern.size()));
  }
  std::uint32_t ids[4] = {};  // M, *, -, E: interned on first use
  bool have[4] = {};
  const auto reason = [&](std::size_t k, const char* text) {
    if (!have[k]) {
      ids[k] = p.intern({hop.pointer(), reason_rule::list_element, std::string("'") + text, {}});
      have[k] = true;
    }
    return ids[k];
  };
  for (std::uint32_t i = 0; i < f.layers; ++i) {
    auto& d = p.layer[i];
    const char c = pattern[i];
    switch (c) {
      case 'M': d = {layer_kind::none, true, 0, reason(0, "M': Mamba2 block, no KV")}; break;
      case '*': d = {layer_kind::full, false, 0, reason(1, "*': attention block")}; break;
      case '-': d = {layer_kind::none, false, 0, reason(2, "-': MLP block, no KV")}; break;
      case 'E': d = {layer_kind::none, false, 0, reason(3, "E': MoE block, no KV")}; break;
      default:
        fail(config_errc::unsupported, hop.pointer(),
             "expected only 'M' (Mamba2), '*' (attention), '-' (MLP) or 'E' (MoE), got '" +
                 printable(std::string(1, c)) + "' at index " + std::to_string(i));
    }
  }
}

/// layers_block_type. Granite 4 hybrids: "attention" or "mamba" mixers, each layer with its MLP or
/// MoE. With `one_block_per_layer` (NemotronHConfig.validate_layer_type, which also takes the
/// legacy names "attention" and "mamba" that remap_legacy_layer_types renames): a layer is one
/// block, "full_attention", "linear_attention" (Mamba2), "moe" or "mlp"; the blocks are also written
/// into p.hybrid_pattern in hybrid_override_pattern's letters (* M E -), from which the weights are read.
inline void read_block_types(const slot& lbt, const plan_facts& f, bool one_block_per_layer, layer_plan& p) {
  require_array(lbt, f.layers, "one per layer, num_hidden_layers = " + std::to_string(f.layers));
  p.hybrid_pattern.clear();
  for (std::uint32_t i = 0; i < f.layers; ++i) {
    const slot e = element(lbt, i);
    const std::string_view t = read_string_ref(e);
    auto& d = p.layer[i];
    d.reason = entry_reason(lbt, i, p);
    char block = 0;
    if (t == "attention" || (one_block_per_layer && t == "full_attention")) {
      d.kind = layer_kind::full;
      block = '*';
    } else if (t == "mamba" || (one_block_per_layer && t == "linear_attention")) {
      d.kind = layer_kind::none;
      d.recurrent = true;
      block = 'M';
    } else if (one_block_per_layer && (t == "moe" || t == "mlp")) {
      d.kind = layer_kind::none;
      block = t == "moe" ? 'E' : '-';
    } else {
      fail(config_errc::unsupported, e.pointer(),
           std::string(one_block_per_layer ? "expected \"full_attention\", \"linear_attention\", \"moe\" or \"mlp\" "
                                             "(or the legacy \"attention\" or \"mamba\")"
                                           : "expected \"attention\" or \"mamba\"") +
               ", got " + str(*e.value));
    }
    if (one_block_per_layer) {
      p.hybrid_pattern.push_back(block);
    }
  }
}

}  // namespace kvsize::hf::detail::plan_detail
