// SPDX-License-Identifier: MIT
// Step-3.5's second attention shape (attention_other_setting): the layers of one layer type take their own
// query heads, KV heads and head width from it. The first reader is vLLM's models/step3p5.py; SGLang's
// models/step3p5.py and llama.cpp's conversion/step3.py (Step35Model.set_gguf_parameters, per-layer
// head_count) build the same shape.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>      // std::uint32_t
#include <string>       // std::string, std::to_string
#include <string_view>  // std::string_view

#include "config_view.hpp"
#include "layer_decision.hpp"

namespace kvsize::hf::detail::plan_detail {

/// vLLM models/step3p5.py Step3p5DecoderLayer.__init__ (@3b1ef03b): where layer_types[i] equals
/// attention_other_setting["attention_type"], the layer's attention takes the object's num_attention_heads,
/// num_attention_groups (its KV heads) and head_dim (K and V); the other layers the top-level keys. vLLM
/// does this only when layer_types is set, and so does kvsize. The query heads are weights only (Q, O and
/// the head gate); the KV heads and head_dim are the cache's. Step-3.5-Flash: sliding layers 96 / 8 / 128.
inline void apply_other_attention_setting(const config_view& v, const plan_facts& f, layer_plan& p) {
  if (!v.facts().step_attention_keys || p.source != plan_source::layer_types) {
    return;
  }
  const slot other = v.get("attention_other_setting");
  if (!other.set()) {
    return;
  }
  require_object(other);
  const json& o = *other.value;
  const slot type = lookup(o, other.pointer(), "attention_type");
  const std::string_view type_name = read_string_ref(type);
  const layer_kind kind = type_name == "sliding_attention" ? layer_kind::sliding
                          : type_name == "full_attention"  ? layer_kind::full
                                                           : layer_kind::none;
  if (kind == layer_kind::none) {
    fail(config_errc::unsupported, type.pointer(),
         "expected \"sliding_attention\" or \"full_attention\", got " + describe(*type.value));
  }
  // vLLM takes each value only when it is truthy ("x if x else config.x"): null, 0 or absent is the
  // top-level key's (0 here: the model's).
  const auto own = [](const slot& s, std::uint32_t most) {
    return !s.set() || (s.value->is_number() && *s.value == 0) ? 0U : read_u32(s, 1, most);
  };
  const slot heads = lookup(o, other.pointer(), "num_attention_heads");
  const slot groups = lookup(o, other.pointer(), "num_attention_groups");
  const slot hd = lookup(o, other.pointer(), "head_dim");
  const std::uint32_t q = own(heads, 1U << 20U);
  const std::uint32_t kv = own(groups, 0xFFFFU);
  const std::uint32_t d = own(hd, 0xFFFFU);
  const std::uint32_t q_of_layer = q != 0 ? q : f.heads;
  if (kv != 0) {
    require_divisor(groups, kv, q != 0 ? heads.pointer() : "num_attention_heads", q_of_layer);
  }
  for (auto& l : p.layer) {
    if (l.kind == kind) {
      l.query_heads = q;
      l.kv_heads = kv != 0 ? kv : l.kv_heads;
      l.head_dim = d;
      l.head_dim_v = d;
    }
  }
  std::string why;
  const auto add = [&why](const std::string& part) { why += (why.empty() ? "" : ", ") + part; };
  if (kv != 0) {
    add(std::to_string(kv) + " KV heads from " + groups.pointer());
  }
  if (d != 0) {
    add("head_dim " + std::to_string(d) + " from " + hd.pointer());
  }
  if (q != 0) {
    add(std::to_string(q) + " query heads (weights only) from " + heads.pointer());
  }
  if (why.empty()) {
    return;
  }
  p.append_reason([kind](const layer_decision& l) { return l.kind == kind; }, {other.pointer(), reason_rule::note, why, {}});
}

}  // namespace kvsize::hf::detail::plan_detail
