// SPDX-License-Identifier: MIT
// The families' layer rules: how a model places its layers when no per-layer key is set. The row
// of families.hpp selects one (layer_rule, and for layer_rule::window its window_rule); each
// function here fills every layer of the plan with a kind and a reason.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>  // std::min, std::max
#include <cstdint>    // std::uint32_t, std::int32_t
#include <limits>     // std::numeric_limits
#include <string>     // std::string
#include <string_view>  // std::string_view

#include "config_view.hpp"
#include "families.hpp"
#include "layer_decision.hpp"

namespace kvsize::hf::detail::plan_detail {

inline constexpr std::uint32_t max_window = static_cast<std::uint32_t>(std::numeric_limits<std::int32_t>::max());

/// Every `every`-th layer (1-based) is `on`, the others `off`: Qwen3-Next's full_attention_interval,
/// Gemma 3's sliding_window_pattern, Llama 4's no-RoPE interval.
inline void periodic(layer_plan& p, std::uint32_t every, const layer_decision& on, const layer_decision& off) {
  for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(p.layer.size()); ++i) {
    p.layer[i] = ((i + 1) % every == 0) ? on : off;
  }
}

/// "/key = value", the way a reason quotes a key.
inline auto text(const slot& s) -> std::string { return s.pointer() + " = " + describe(*s.value); }

/// What a 0 or a 1 of a per-layer flag array makes a layer, and the words its reason gives.
struct flag_meaning {
  layer_kind kind;
  const char* reason;
};

/// A per-layer 0/1 array of exactly one entry per layer (Llama 4's no_rope_layers, MiMo-V2-Flash's
/// hybrid_layer_pattern): layer i takes `one` where the entry is 1, else `zero`; each value's reason
/// is interned on first use, in layer order.
inline void plan_flag_array(const slot& a, const plan_facts& f, layer_plan& p, std::string_view size_meaning,
                            const flag_meaning& zero, const flag_meaning& one) {
  require_array(a, f.layers, size_meaning);
  std::uint32_t ids[2] = {};
  bool have[2] = {};
  for (std::uint32_t i = 0; i < f.layers; ++i) {
    const bool set = read_integer(element(a, i), 0, 1) == 1;
    const flag_meaning& m = set ? one : zero;
    if (!have[set]) {
      ids[set] = p.intern({a.pointer(), reason_rule::list_element, m.reason, {}});
      have[set] = true;
    }
    p.layer[i] = {m.kind, false, 0, ids[set]};
  }
}

/// Qwen3NextConfig: layer_types = ["linear_attention" if (i + 1) % full_attention_interval else
/// "full_attention"], full_attention_interval default 4.
inline void plan_full_attention_interval(const config_view& v, const plan_facts& f, layer_plan& p) {
  const slot fai = v.get("full_attention_interval");
  std::uint32_t every = 4;
  std::string why = "full_attention_interval absent: Qwen3NextConfig default 4";
  if (fai.set()) {
    every = read_u32(fai, 1, f.layers, config_errc::inconsistent);
    why = text(fai);
  } else {
    v.warn(v.base() + "/full_attention_interval is absent; took 4, the default of transformers' Qwen3NextConfig");
  }
  const std::string& at = fai.pointer();
  periodic(p, every, {layer_kind::full, false, 0, p.intern({at, reason_rule::layer_test, why + ": ", " is full attention"})},
           {layer_kind::none, true, 0,
            p.intern({at, reason_rule::layer_test, why + ": ", " is linear attention (gated delta), no KV"})});
}

/// JambaConfig: attention iff i % attn_layer_period == attn_layer_offset (defaults 8 and 4), else Mamba.
inline void plan_jamba_period(const config_view& v, const plan_facts& f, layer_plan& p) {
  const slot per = v.get("attn_layer_period");
  const slot off = v.get("attn_layer_offset");
  const std::uint32_t period = per.set() ? read_u32(per, 1, f.layers) : 8U;
  const std::uint32_t offset = off.set() ? read_u32(off, 0, f.layers) : 4U;
  if (offset >= period) {
    fail(config_errc::inconsistent, off.pointer(),
         "expected less than attn_layer_period (" + std::to_string(period) + "), got " + std::to_string(offset));
  }
  const auto why = [&](bool att) {
    return p.intern({per.pointer(), reason_rule::layer_test, "",
                     " % attn_layer_period (" + std::to_string(period) + ") " + (att ? "==" : "!=") +
                         " attn_layer_offset (" + std::to_string(offset) + "): " + (att ? "attention" : "Mamba, no KV")});
  };
  const std::uint32_t attention = why(true);
  const std::uint32_t mamba = why(false);
  for (std::uint32_t i = 0; i < f.layers; ++i) {
    const bool att = i % period == offset;
    p.layer[i] = {att ? layer_kind::full : layer_kind::none, !att, 0, att ? attention : mamba};
  }
}

/// FalconH1DecoderLayer: attention and a Mamba2 mixer side by side in every layer.
inline void plan_falcon_h1(layer_plan& p) {
  const std::uint32_t r = p.intern(
      {"", reason_rule::model_wide, "Falcon-H1: every layer runs attention and Mamba2 in parallel (KV and state)", {}});
  for (auto& d : p.layer) {
    d = {layer_kind::full, true, 0, r};
  }
}

/// HF Qwen2Attention: sliding_window applies iff use_sliding_window and layer_idx >= max_window_layers.
inline void plan_qwen_window(const config_view& v, const plan_facts& f, layer_plan& p) {
  const slot use = v.get("use_sliding_window");
  const bool on = read_bool_or(use, false);
  const slot sw = v.get("sliding_window");
  if (!on) {
    const std::string why = use.set() ? text(use) : use.pointer() + " absent (Qwen2Config default false)";
    p.set_all_reasons({use.pointer(), reason_rule::model_wide,
                       why + ": no window" + (sw.set() ? ", " + sw.pointer() + " is not used" : std::string{}), {}});
    return;
  }
  if (!sw.set()) {
    p.set_all_reasons({sw.pointer(), reason_rule::model_wide,
                       text(use) + " but " + sw.pointer() + " is " + (sw.present() ? "null" : "absent") + ": no window", {}});
    return;
  }
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
    return p.intern({mwl.pointer(), reason_rule::layer_test, text(use) + " and ",
                     std::string(" ") + (slides ? ">=" : "<") + " " + mwl.pointer() + " (" + std::to_string(first) + ")"});
  };
  const std::uint32_t sliding = why(true);
  const std::uint32_t full = why(false);
  for (std::uint32_t i = 0; i < f.layers; ++i) {
    const bool slides = i >= first;
    p.layer[i] = {slides ? layer_kind::sliding : layer_kind::full, false, 0, slides ? sliding : full};
  }
}

/// Gemma2Config / Cohere2Config / Gemma3TextConfig / Gemma3nTextConfig (transformers
/// models/<name>/configuration_<name>.py): layer_types absent → "sliding_attention" iff
/// (i + 1) % period != 0. Gemma 2's period is 2; Cohere2 and Gemma 3 take it from the older
/// sliding_window_pattern key (defaults 4 and 6); Gemma 3n's is a fixed 5 (no such key).
inline void plan_periodic_window(const config_view& v, const plan_facts& f, layer_plan& p) {
  const family& fam = v.facts();
  const slot sw = v.get("sliding_window");
  std::uint32_t every = fam.pattern;
  std::string at;  // the key that set the period, if one did
  std::string why = fam.window == window_rule::alternate
                        ? "even layers slide ((i + 1) % 2 != 0), as " + std::string(config_class(fam)) + "'s readers place them"
                        : "(i + 1) % " + std::to_string(every) + " != 0 slides, period from " + std::string(fam.source);
  if (fam.window == window_rule::pattern && fam.pattern_key) {
    const slot pat = v.get("sliding_window_pattern");
    if (pat.set()) {
      every = read_u32(pat, 1, std::max<std::uint32_t>(f.layers, 1));
      why = "(i + 1) % " + pat.pointer() + " (" + std::to_string(every) + ") != 0 slides";
      at = pat.pointer();
    }
  }
  if (sw.present() && sw.value->is_null()) {
    p.set_all_reasons({sw.pointer(), reason_rule::model_wide, sw.pointer() + " = null: no window", {}});
  } else {
    periodic(p, every, {layer_kind::full, false, 0, p.intern({at, reason_rule::layer_test, why + "; ", " is global"})},
             {layer_kind::sliding, false, 0, p.intern({at, reason_rule::layer_test, why + "; ", " slides"})});
  }
}

/// What a NoPE and a RoPE layer become under one family's rule, and that family's config class.
/// Each reason is written "0: meaning" / "1: meaning", the flag's value first, as the array's reasons read;
/// the interval rule quotes the meaning after the "0: " / "1: ".
struct nope_split {
  flag_meaning nope;              ///< no_rope_layers[i] == 0
  flag_meaning rope;              ///< no_rope_layers[i] == 1
  std::string_view config_class;  ///< whose default interval (4) applies
  bool empty_derives;             ///< [] is falsy in the class (Llama 4), so the interval rule applies
};

/// The NoPE / RoPE split that Llama4TextConfig and SmolLM3Config share: no_rope_layers, one 0/1 flag per
/// layer (1 a RoPE layer), else int((i + 1) % no_rope_layer_interval != 0) with the interval defaulting to 4.
inline void plan_nope_split(const config_view& v, const plan_facts& f, layer_plan& p, const nope_split& s) {
  const slot nrl = v.get("no_rope_layers");
  const bool empty = s.empty_derives && nrl.set() && nrl.value->is_array() && nrl.value->empty();
  if (nrl.set() && !empty) {
    plan_flag_array(nrl, f, p, "one per layer: 1 RoPE, 0 NoPE", s.nope, s.rope);
    return;
  }
  const slot interval = v.get("no_rope_layer_interval");
  const std::uint32_t every = interval.set() ? read_u32(interval, 1, std::max<std::uint32_t>(f.layers, 1)) : 4U;
  const std::string why = nrl.pointer() + (empty ? " = [] (empty, so derived)" : " absent") + " and " +
                          (interval.set() ? text(interval)
                                          : interval.pointer() + " absent (" + std::string(s.config_class) + " default 4)") +
                          ": (i + 1) % " + std::to_string(every);
  const std::string& at = interval.pointer();
  const auto meaning = [](const flag_meaning& m) { return std::string(std::string_view(m.reason).substr(3)); };
  periodic(p, every, {s.nope.kind, false, 0, p.intern({at, reason_rule::model_wide, why + " == 0: " + meaning(s.nope), {}})},
           {s.rope.kind, false, 0, p.intern({at, reason_rule::model_wide, why + " != 0: " + meaning(s.rope), {}})});
}

/// Llama4TextConfig (transformers models/llama4/configuration_llama4.py): no_rope_layers, when
/// absent or empty ([] is falsy there), is int((i + 1) % no_rope_layer_interval != 0), interval
/// default 4; layer_types (newer transformers) is "chunked_attention" where no_rope_layers[i] is 1
/// (a RoPE layer), else "full_attention" (a NoPE layer, global).
inline void plan_chunked(const config_view& v, const plan_facts& f, layer_plan& p) {
  const slot chunk = v.get("attention_chunk_size");
  if (!chunk.set()) {
    p.set_all_reasons({chunk.pointer(), reason_rule::model_wide,
                       chunk.pointer() + (chunk.present() ? " = null" : " absent") + ": no chunking", {}});
    return;
  }
  plan_nope_split(v, f, p,
                  {{layer_kind::full, "0: NoPE layer, global"}, {layer_kind::chunked, "1: RoPE layer, chunked"}, "Llama4TextConfig", true});
}

/// SmolLM3Config.__post_init__ (transformers models/smollm3/configuration_smollm3.py): layer_types absent →
/// "sliding_attention" iff use_sliding_window (default false), sliding_window is not None and the layer is a
/// NoPE layer (no_rope_layers[i] == 0; absent: int((i + 1) % no_rope_layer_interval != 0), interval 4), else
/// "full_attention". An empty no_rope_layers is kept (only None is replaced), so it must have one entry per
/// layer. vLLM (models/llama.py, which serves SmolLM3ForCausalLM) reads those layer_types.
inline void plan_nope_window(const config_view& v, const plan_facts& f, layer_plan& p) {
  const slot use = v.get("use_sliding_window");
  const slot sw = v.get("sliding_window");
  if (!read_bool_or(use, false) || !sw.set()) {
    const std::string why = !use.set() ? use.pointer() + " absent (SmolLM3Config default false)"
                            : !read_bool(use) ? text(use)
                                              : text(use) + " but " + sw.pointer() + (sw.present() ? " = null" : " absent");
    p.set_all_reasons({use.pointer(), reason_rule::model_wide, why + ": no window", {}});
    return;
  }
  plan_nope_split(v, f, p,
                  {{layer_kind::sliding, "0: NoPE layer, slides"}, {layer_kind::full, "1: RoPE layer, full attention"},
                   "SmolLM3Config", false});
}

/// MiMo-V2-Flash (vLLM models/mimo_v2_flash.py, MiMoV2FlashDecoderLayer.is_compressed_softmax_layer):
/// layer i slides iff hybrid_layer_pattern[i] == 1, else it is full attention. Without the key,
/// MiMoV2FlashConfig.__post_init__'s layer_types: full iff i == 0 or (i + 1) % 6 == 0.
inline void plan_hybrid_layer_pattern(const config_view& v, const plan_facts& f, layer_plan& p) {
  const slot hlp = v.get("hybrid_layer_pattern");
  if (hlp.set()) {
    plan_flag_array(hlp, f, p, "one per layer: 0 full attention, 1 sliding window",
                    {layer_kind::full, "0: full attention"}, {layer_kind::sliding, "1: sliding window"});
    return;
  }
  v.warn(hlp.pointer() + " is absent; took MiMoV2FlashConfig's default: layer 0 and every 6th layer full, the others sliding");
  const std::string why = hlp.pointer() + " absent (MiMoV2FlashConfig: full iff i == 0 or (i + 1) % 6 == 0): ";
  const std::uint32_t full = p.intern({hlp.pointer(), reason_rule::layer_test, why, " is full attention"});
  const std::uint32_t sliding = p.intern({hlp.pointer(), reason_rule::layer_test, why, " slides"});
  for (std::uint32_t i = 0; i < f.layers; ++i) {
    const bool slides = i != 0 && (i + 1) % 6 != 0;
    p.layer[i] = {slides ? layer_kind::sliding : layer_kind::full, false, 0, slides ? sliding : full};
  }
}

/// MistralAttention / Phi3Attention & co.: a non-null sliding_window applies to every layer, unless
/// use_sliding_window is false.
inline void plan_plain_window(const config_view& v, const plan_facts& f, layer_plan& p) {
  const slot use = v.get("use_sliding_window");
  const slot sw = v.get("sliding_window");
  if (use.set() && !read_bool(use)) {
    p.set_all_reasons({use.pointer(), reason_rule::model_wide, text(use) + ": no window", {}});
  } else if (sw.present() && sw.value->is_null()) {
    p.set_all_reasons({sw.pointer(), reason_rule::model_wide, sw.pointer() + " = null: no window", {}});
  } else if (sw.present()) {
    if (v.fam() == nullptr) {
      v.warn("assumed " + sw.pointer() + " applies to every layer, as in Mistral v0.1 (unknown model_type)");
    }
    const std::uint32_t r = p.intern({sw.pointer(), reason_rule::model_wide,
                                      sw.pointer() + " applies to every layer (HF " +
                                          (f.model_type.empty() ? std::string("Mistral") : f.model_type) + " attention)",
                                      {}});
    for (auto& d : p.layer) {
      d = {layer_kind::sliding, false, 0, r};
    }
  }
}

/// The family's rule, as its row selects it.
inline void plan_by_family_rule(const config_view& v, const plan_facts& f, layer_plan& p) {
  const family& fam = v.facts();
  switch (fam.layers) {
    case layer_rule::full_attention_interval: plan_full_attention_interval(v, f, p); return;
    case layer_rule::jamba_period: plan_jamba_period(v, f, p); return;
    case layer_rule::falcon_h1: plan_falcon_h1(p); return;
    case layer_rule::window: break;
  }
  switch (fam.window) {
    case window_rule::qwen: plan_qwen_window(v, f, p); return;
    case window_rule::alternate:
    case window_rule::pattern: plan_periodic_window(v, f, p); return;
    case window_rule::chunked: plan_chunked(v, f, p); return;
    case window_rule::plain: plan_plain_window(v, f, p); return;
    case window_rule::hybrid_layer_pattern: plan_hybrid_layer_pattern(v, f, p); return;
    case window_rule::nope_slides: plan_nope_window(v, f, p); return;
  }
}

}  // namespace kvsize::hf::detail::plan_detail
