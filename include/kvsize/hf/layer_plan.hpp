// SPDX-License-Identifier: MIT
// What each layer keeps, decided from the config's per-layer keys, with the key that decided it.
// Sources, in order of precedence (one per model; shared/reference/style-anchors.md §6.6 rule 7):
//   kv_lora_rank (latent) > layer_types > block_configs > hybrid_override_pattern >
//   layers_block_type > full_attention_interval > attn_layer_period > Falcon-H1 > the family's
//   window rule (families.hpp); then num_kv_shared_layers (Gemma 3n) on top.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>  // std::min, std::max
#include <cstdint>    // std::uint32_t, std::int32_t
#include <limits>     // std::numeric_limits
#include <string>     // std::string
#include <utility>    // std::move, std::pair
#include <vector>     // std::vector

#include "../model_spec.hpp"
#include "config_view.hpp"
#include "recurrent.hpp"

namespace kvsize::hf::detail {

/// One layer's decision. Its reason is layer_plan::reasons[reason]; the text may hold "{i}",
/// replaced by the layer index (or range) when consecutive equal decisions are grouped.
struct layer_decision {
  layer_kind kind = layer_kind::full;
  bool recurrent = false;
  std::uint32_t kv_heads = 0;  ///< 0: the model's
  std::uint32_t reason = 0;    ///< index into layer_plan::reasons
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
};

/// The source plan_layers uses, from which keys are set (precedence as in the file comment).
[[nodiscard]] inline auto choose_plan_source(const config_view& v, std::string_view mt, bool latent) -> plan_source {
  if (latent) {
    return plan_source::latent;
  }
  if (v.get("layer_types").set()) {
    return plan_source::layer_types;
  }
  if (v.get("block_configs").set()) {
    return plan_source::block_configs;
  }
  if (v.get("hybrid_override_pattern").set()) {
    return plan_source::hybrid_override_pattern;
  }
  if (v.get("layers_block_type").set()) {
    return plan_source::layers_block_type;
  }
  if (v.get("full_attention_interval").set() || mt == "qwen3_next") {
    return plan_source::full_attention_interval;
  }
  if (mt == "jamba") {
    return plan_source::jamba_period;
  }
  if (mt == "falcon_h1") {
    return plan_source::falcon_h1;
  }
  return plan_source::uniform;
}

struct layer_plan {
  plan_source source = plan_source::uniform;
  /// The checked per-layer key, for the readers that need more of it than the plan does (the
  /// weights reader's FFN widths from block_configs): when source is block_configs, an array of
  /// exactly `layers` objects, each with an "attention" object. Absent otherwise.
  slot block_configs;
  /// When source is hybrid_override_pattern: the checked pattern, one of "M*-E" per layer.
  std::string hybrid_pattern;
  std::vector<layer_decision> layer;
  /// The distinct reasons (a model has a handful, not one per layer): equal texts have equal
  /// indices, so layers compare their reasons by index.
  std::vector<std::string> reasons;
  std::uint32_t sliding_window = 0;
  std::uint32_t attention_chunk = 0;
  recurrent_state state{};

  /// The index of `text` in `reasons`, added if new.
  auto intern(std::string text) -> std::uint32_t {
    for (std::size_t k = 0; k < reasons.size(); ++k) {
      if (reasons[k] == text) {
        return static_cast<std::uint32_t>(k);
      }
    }
    reasons.push_back(std::move(text));
    return static_cast<std::uint32_t>(reasons.size() - 1);
  }
  /// Sets every layer's reason to `text`.
  void set_all_reasons(std::string text) {
    const std::uint32_t r = intern(std::move(text));
    for (auto& d : layer) {
      d.reason = r;
    }
  }
  /// Appends `suffix` to the reason of every layer `pred` selects.
  template <class Pred>
  void append_reason(Pred pred, const std::string& suffix) {
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
        to = intern(reasons[d.reason] + suffix);
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
  bool latent = false;
  std::string latent_reason;
};

namespace plan_detail {

inline constexpr std::uint32_t max_window = static_cast<std::uint32_t>(std::numeric_limits<std::int32_t>::max());

inline auto str(const json& v) -> std::string { return v.is_string() ? "\"" + printable(v.get<std::string>()) + "\"" : describe(v); }

inline void read_layer_types(const config_view& v, const slot& lt, const plan_facts& f, layer_plan& p) {
  require_array(lt, f.layers, "one per layer, num_hidden_layers = " + std::to_string(f.layers));
  const std::string at = lt.pointer() + "[{i}] = ";
  for (std::uint32_t i = 0; i < f.layers; ++i) {
    const slot e = element(lt, i);
    const std::string_view t = read_string_ref(e);
    auto& d = p.layer[i];
    d.reason = i > 0 && *e.value == (*lt.value)[i - 1] ? p.layer[i - 1].reason : p.intern(at + str(*e.value));
    if (t == "full_attention" || t == "attention") {
      d.kind = layer_kind::full;
    } else if (t == "sliding_attention") {
      d.kind = layer_kind::sliding;
    } else if (t == "chunked_attention") {
      d.kind = layer_kind::chunked;
    } else if (t == "linear_attention" || t == "mamba") {
      d.kind = layer_kind::none;
      d.recurrent = true;
    } else {
      fail(config_errc::unsupported, e.pointer(),
           "expected one of \"full_attention\", \"attention\", \"sliding_attention\", \"chunked_attention\", "
           "\"linear_attention\", \"mamba\", got " + str(*e.value));
    }
  }
  (void)v;
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
      d.reason = p.intern(bc.pointer() + "/{i}/attention/no_op = true: no attention, no KV");
      continue;
    }
    if (read_bool_or(linear, false)) {
      d.kind = layer_kind::none;
      d.reason = p.intern(bc.pointer() + "/{i}/attention/replace_with_linear = true: a linear map, no KV");
      continue;
    }
    const slot window = lookup(*att.value, att.pointer(), "window_length");
    if (window.set()) {
      fail(config_errc::unsupported, window.pointer(),
           "expected null (per-block attention windows are not supported), got " + describe(*window.value));
    }
    const slot group = lookup(*att.value, att.pointer(), "n_heads_in_group");
    const std::uint32_t n = read_u32(group, 1, f.heads);
    if (f.heads % n != 0) {
      fail(config_errc::inconsistent, group.pointer(),
           "expected a divisor of num_attention_heads (" + std::to_string(f.heads) + "), got " + std::to_string(n));
    }
    d.kind = layer_kind::full;
    d.kv_heads = f.heads / n;
    d.reason = p.intern(bc.pointer() + "/{i}/attention/n_heads_in_group = " + std::to_string(n) + ": " +
                        std::to_string(f.heads) + " / " + std::to_string(n) + " = " + std::to_string(d.kv_heads) +
                        " KV heads");
  }
}

inline void read_hybrid_pattern(const slot& hop, const plan_facts& f, layer_plan& p) {
  const std::string pattern = read_string(hop);
  if (pattern.size() != f.layers) {
    fail(config_errc::inconsistent, hop.pointer(),
         "expected " + std::to_string(f.layers) + " characters (one per layer, num_hidden_layers), got " +
             std::to_string(pattern.size()));
  }
  const std::string at = hop.pointer() + "[{i}] = '";
  std::uint32_t ids[4] = {};  // M, *, -, E: interned on first use
  bool have[4] = {};
  const auto reason = [&](std::size_t k, const char* text) {
    if (!have[k]) {
      ids[k] = p.intern(at + text);
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

inline void read_block_types(const slot& lbt, const plan_facts& f, layer_plan& p) {
  require_array(lbt, f.layers, "one per layer, num_hidden_layers = " + std::to_string(f.layers));
  const std::string at = lbt.pointer() + "[{i}] = ";
  for (std::uint32_t i = 0; i < f.layers; ++i) {
    const slot e = element(lbt, i);
    const std::string_view t = read_string_ref(e);
    auto& d = p.layer[i];
    d.reason = i > 0 && *e.value == (*lbt.value)[i - 1] ? p.layer[i - 1].reason : p.intern(at + str(*e.value));
    if (t == "attention") {
      d.kind = layer_kind::full;
    } else if (t == "mamba") {
      d.kind = layer_kind::none;
      d.recurrent = true;
    } else {
      fail(config_errc::unsupported, e.pointer(), "expected \"attention\" or \"mamba\", got " + str(*e.value));
    }
  }
}

/// Every `every`-th layer (1-based) is `on`, the others `off`: Qwen3-Next's full_attention_interval,
/// Gemma 3's sliding_window_pattern, Llama 4's no-RoPE interval.
inline void periodic(layer_plan& p, std::uint32_t every, const layer_decision& on, const layer_decision& off) {
  for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(p.layer.size()); ++i) {
    p.layer[i] = ((i + 1) % every == 0) ? on : off;
  }
}

inline auto text(const slot& s) -> std::string { return s.pointer() + " = " + describe(*s.value); }

}  // namespace plan_detail

/// Decides every layer. Reads the window, chunk and recurrent-state keys only when a layer needs them.
[[nodiscard]] inline auto plan_layers(const config_view& v, const plan_facts& f) -> layer_plan {
  using namespace plan_detail;
  layer_plan p;
  p.layer.assign(f.layers, layer_decision{layer_kind::full, false, 0, p.intern("no per-layer key: full attention")});
  const window_rule rule = v.fam() != nullptr ? v.fam()->window : window_rule::plain;
  const std::string& mt = f.model_type;
  recurrence rec = mt == "jamba" ? recurrence::mamba1 : recurrence::mamba2;

  const slot lt = v.get("layer_types");
  const slot bc = v.get("block_configs");
  const slot hop = v.get("hybrid_override_pattern");
  const slot lbt = v.get("layers_block_type");
  const slot fai = v.get("full_attention_interval");
  p.source = choose_plan_source(v, mt, f.latent);
  // Per-layer keys that lose to the source are not read; say so (a key of a different architecture,
  // or a conversion leftover).
  const char* decided_by = f.latent ? "kv_lora_rank" : lt.set() ? "layer_types" : bc.set() ? "block_configs"
                                                                      : hop.set() ? "hybrid_override_pattern" : "";
  for (const slot* other : {&lt, &bc, &hop, &lbt}) {
    if (other->set() && *decided_by != '\0' && other->key != decided_by) {
      v.warn(other->pointer() + " is not read: the layers are decided by " + v.base() + "/" + decided_by +
             ", which takes precedence");
    }
  }
  if (f.latent) {
    const std::uint32_t r = p.intern(f.latent_reason);
    for (auto& d : p.layer) {
      d = {layer_kind::latent, false, 0, r};
    }
  } else if (lt.set()) {
    read_layer_types(v, lt, f, p);
    for (std::uint32_t i = 0; i < f.layers; ++i) {
      if ((*lt.value)[i] == "linear_attention") {
        rec = recurrence::gated_delta;
      }
    }
  } else if (bc.set()) {
    read_block_configs(bc, f, p);
    p.block_configs = bc;
  } else if (hop.set()) {
    read_hybrid_pattern(hop, f, p);
    p.hybrid_pattern = read_string(hop);
  } else if (lbt.set()) {
    read_block_types(lbt, f, p);
  } else if (fai.set() || mt == "qwen3_next") {
    // Qwen3NextConfig: layer_types = ["linear_attention" if (i + 1) % full_attention_interval else
    // "full_attention"], full_attention_interval default 4.
    std::uint32_t every = 4;
    std::string why = "full_attention_interval absent: Qwen3NextConfig default 4";
    if (fai.set()) {
      every = read_u32(fai, 1, f.layers, config_errc::inconsistent);
      why = text(fai);
    } else {
      v.warn(v.base() + "/full_attention_interval is absent; took 4, the default of transformers' Qwen3NextConfig");
    }
    rec = recurrence::gated_delta;
    periodic(p, every, {layer_kind::full, false, 0, p.intern(why + ": layer {i} is full attention")},
             {layer_kind::none, true, 0, p.intern(why + ": layer {i} is linear attention (gated delta), no KV")});
  } else if (mt == "jamba") {
    // JambaConfig: attention iff i % attn_layer_period == attn_layer_offset (defaults 8 and 4).
    const slot per = v.get("attn_layer_period");
    const slot off = v.get("attn_layer_offset");
    const std::uint32_t period = per.set() ? read_u32(per, 1, f.layers) : 8U;
    const std::uint32_t offset = off.set() ? read_u32(off, 0, f.layers) : 4U;
    if (offset >= period) {
      fail(config_errc::inconsistent, off.pointer(),
           "expected less than attn_layer_period (" + std::to_string(period) + "), got " + std::to_string(offset));
    }
    const auto why = [&](bool att) {
      return p.intern("layer {i} % attn_layer_period (" + std::to_string(period) + ") " + (att ? "==" : "!=") +
                      " attn_layer_offset (" + std::to_string(offset) + "): " + (att ? "attention" : "Mamba, no KV"));
    };
    const std::uint32_t attention = why(true);
    const std::uint32_t mamba = why(false);
    for (std::uint32_t i = 0; i < f.layers; ++i) {
      const bool att = i % period == offset;
      p.layer[i] = {att ? layer_kind::full : layer_kind::none, !att, 0, att ? attention : mamba};
    }
  } else if (mt == "falcon_h1") {
    const std::uint32_t r = p.intern("Falcon-H1: every layer runs attention and Mamba2 in parallel (KV and state)");
    for (auto& d : p.layer) {
      d = {layer_kind::full, true, 0, r};
    }
  } else if (rule == window_rule::qwen) {
    const slot use = v.get("use_sliding_window");
    const bool on = read_bool_or(use, false);
    const slot sw = v.get("sliding_window");
    if (!on) {
      const std::string why = use.set() ? text(use) : use.pointer() + " absent (Qwen2Config default false)";
      p.set_all_reasons(why + ": no window" + (sw.set() ? ", " + sw.pointer() + " is not used" : std::string{}));
    } else if (!sw.set()) {
      p.set_all_reasons(text(use) + " but " + sw.pointer() + " is " + (sw.present() ? "null" : "absent") + ": no window");
    } else {
      // HF Qwen2Attention: sliding_window applies iff use_sliding_window and layer_idx >= max_window_layers.
      const slot mwl = v.get("max_window_layers");
      std::uint32_t first = 28;  // Qwen2Config default
      if (mwl.set()) {
        first = read_u32(mwl, 0, f.layers == 0 ? 0U : 1U << 30U);
        if (first > f.layers) {
          fail(config_errc::inconsistent, mwl.pointer(),
               "expected at most num_hidden_layers (" + std::to_string(f.layers) + ") with use_sliding_window true, got " +
                   std::to_string(first));
        }
      } else {
        v.warn(mwl.pointer() + " is absent; took 28, the default of transformers' Qwen2Config");
        first = std::min<std::uint32_t>(first, f.layers);
      }
      const auto why = [&](bool slides) {
        return p.intern(text(use) + " and layer {i} " + (slides ? ">=" : "<") + " " + mwl.pointer() + " (" +
                        std::to_string(first) + ")");
      };
      const std::uint32_t sliding = why(true);
      const std::uint32_t full = why(false);
      for (std::uint32_t i = 0; i < f.layers; ++i) {
        const bool slides = i >= first;
        p.layer[i] = {slides ? layer_kind::sliding : layer_kind::full, false, 0, slides ? sliding : full};
      }
    }
  } else if (rule == window_rule::alternate || rule == window_rule::pattern) {
    // Gemma2Config / Cohere2Config / Gemma3TextConfig / Gemma3nTextConfig (transformers
    // models/<name>/configuration_<name>.py): layer_types absent → "sliding_attention" iff
    // (i + 1) % period != 0. Gemma 2's period is 2; Cohere2 and Gemma 3 take it from the older
    // sliding_window_pattern key (defaults 4 and 6); Gemma 3n's is a fixed 5 (no such key).
    const slot sw = v.get("sliding_window");
    std::uint32_t every = v.fam()->pattern;
    std::string why = rule == window_rule::alternate
                          ? std::string("Gemma 2 alternation (HF Gemma2Config.layer_types: (i + 1) % 2 != 0 slides)")
                          : "(i + 1) % " + std::to_string(every) + " != 0 slides, period from " + std::string(v.fam()->source);
    const bool fixed_period = mt == "gemma3n_text" || mt == "gemma3n";
    if (rule == window_rule::pattern && !fixed_period) {
      const slot pat = v.get("sliding_window_pattern");
      if (pat.set()) {
        every = read_u32(pat, 1, std::max<std::uint32_t>(f.layers, 1));
        why = "(i + 1) % " + pat.pointer() + " (" + std::to_string(every) + ") != 0 slides";
      }
    }
    if (sw.present() && sw.value->is_null()) {
      p.set_all_reasons(sw.pointer() + " = null: no window");
    } else {
      periodic(p, every, {layer_kind::full, false, 0, p.intern(why + "; layer {i} is global")},
               {layer_kind::sliding, false, 0, p.intern(why + "; layer {i} slides")});
    }
  } else if (rule == window_rule::chunked) {
    // Llama4TextConfig (transformers models/llama4/configuration_llama4.py): no_rope_layers, when
    // absent or empty ([] is falsy there), is int((i + 1) % no_rope_layer_interval != 0), interval
    // default 4; layer_types (newer transformers) is "chunked_attention" where no_rope_layers[i] is 1
    // (a RoPE layer), else "full_attention" (a NoPE layer, global).
    const slot chunk = v.get("attention_chunk_size");
    if (!chunk.set()) {
      p.set_all_reasons(chunk.pointer() + (chunk.present() ? " = null" : " absent") + ": no chunking");
    } else {
      const slot nrl = v.get("no_rope_layers");
      const bool empty = nrl.set() && nrl.value->is_array() && nrl.value->empty();
      if (nrl.set() && !empty) {
        require_array(nrl, f.layers, "one per layer");
        std::uint32_t ids[2] = {};  // NoPE, RoPE: interned on first use, in layer order
        bool have[2] = {};
        for (std::uint32_t i = 0; i < f.layers; ++i) {
          const slot e = element(nrl, i);
          const bool rope = read_integer(e, 0, 1) == 1;
          if (!have[rope]) {
            ids[rope] = p.intern(nrl.pointer() + "[{i}] = " + (rope ? "1: RoPE layer, chunked" : "0: NoPE layer, global"));
            have[rope] = true;
          }
          p.layer[i] = {rope ? layer_kind::chunked : layer_kind::full, false, 0, ids[rope]};
        }
      } else {
        const slot interval = v.get("no_rope_layer_interval");
        const std::uint32_t every = interval.set() ? read_u32(interval, 1, std::max<std::uint32_t>(f.layers, 1)) : 4U;
        const std::string why =
            nrl.pointer() + (empty ? " = [] (empty, so derived)" : " absent") + " and " +
            (interval.set() ? text(interval) : interval.pointer() + " absent (Llama4TextConfig default 4)") +
            ": (i + 1) % " + std::to_string(every);
        periodic(p, every, {layer_kind::full, false, 0, p.intern(why + " == 0 is a global NoPE layer")},
                 {layer_kind::chunked, false, 0, p.intern(why + " != 0 is a chunked RoPE layer")});
      }
    }
  } else {
    const slot use = v.get("use_sliding_window");
    const slot sw = v.get("sliding_window");
    if (use.set() && !read_bool(use)) {
      p.set_all_reasons(text(use) + ": no window");
    } else if (sw.present() && sw.value->is_null()) {
      p.set_all_reasons(sw.pointer() + " = null: no window");
    } else if (sw.present()) {
      if (v.fam() == nullptr) {
        v.warn("assumed " + sw.pointer() + " applies to every layer, as in Mistral v0.1 (unknown model_type)");
      }
      const std::uint32_t r = p.intern(sw.pointer() + " applies to every layer (HF " + (mt.empty() ? std::string("Mistral") : mt) + " attention)");
      for (auto& d : p.layer) {
        d = {layer_kind::sliding, false, 0, r};
      }
    }
  }

  // Gemma 3n: the last num_kv_shared_layers layers read the cache of an earlier layer.
  const slot shared = v.get("num_kv_shared_layers");
  if (shared.set()) {
    const std::uint32_t n = read_u32(shared, 0, 1U << 30U);
    if (n >= f.layers) {
      fail(config_errc::inconsistent, shared.pointer(),
           "expected fewer than num_hidden_layers (" + std::to_string(f.layers) + "), got " + std::to_string(n));
    }
    const std::uint32_t r = p.intern(text(shared) + ": layer {i} reuses the KV of an earlier layer of its type");
    for (std::uint32_t i = f.layers - n; i < f.layers; ++i) {
      p.layer[i] = {layer_kind::shared, false, 0, r};
    }
  }

  bool sliding = false;
  bool chunked = false;
  bool recurrent = false;
  for (const auto& d : p.layer) {
    sliding = sliding || d.kind == layer_kind::sliding;
    chunked = chunked || d.kind == layer_kind::chunked;
    recurrent = recurrent || d.recurrent;
  }
  const slot sw = v.get("sliding_window");
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
                    "; window from " + sw.pointer() + " = " + std::to_string(p.sliding_window));
  }
  if (chunked) {
    const slot chunk = v.get("attention_chunk_size");
    p.attention_chunk = read_u32(chunk, 1);
    p.append_reason([](const layer_decision& d) { return d.kind == layer_kind::chunked; },
                    "; chunk from " + chunk.pointer() + " = " + std::to_string(p.attention_chunk));
  }
  if (recurrent) {
    const state_reading s = rec == recurrence::gated_delta ? read_gated_delta_state(v.object(), v.base())
                                                           : read_mamba_state(v.object(), v.base(), f.hidden, rec);
    p.state = s.state;
    p.append_reason([](const layer_decision& d) { return d.recurrent; }, "; " + s.note);
  }
  return p;
}

}  // namespace kvsize::hf::detail
