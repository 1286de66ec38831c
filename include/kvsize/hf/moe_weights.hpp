// SPDX-License-Identifier: MIT
// model_spec::weights, the mixture of experts: the routed experts, top-k, expert and shared
// widths, and which layers keep a dense MLP (DeepSeek first_k_dense_replace / moe_layer_freq,
// Qwen-MoE decoder_sparse_step / mlp_only_layers, Llama 4 interleave_moe_layer_step, Jamba
// expert_layer_period). The family's row says whether it routes and how (families.hpp).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>    // std::max
#include <cstdint>      // std::uint32_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

#include "../detail/checked.hpp"
#include "../model_spec.hpp"
#include "aliases.hpp"
#include "config_view.hpp"
#include "families.hpp"
#include "layer_decision.hpp"
#include "parsed_config.hpp"

namespace kvsize::hf::detail::weights_detail {

/// A count key that may be absent (nullopt); present keys are range-checked.
[[nodiscard]] inline auto optional_count(const slot& s, std::uint32_t min = 1, std::uint32_t max = 1U << 24U)
    -> std::optional<std::uint32_t> {
  if (!s.set()) {
    return std::nullopt;
  }
  return read_u32(s, min, max);
}

/// A count that the family may give as one value per layer (family::moe_keys_per_layer: HunYuan's
/// moe_topk, moe_intermediate_size and num_shared_expert; vLLM models/hunyuan_v1.py takes entry layer_id):
/// an array of exactly `layers` entries. moe_shape holds one value for every MoE layer, so entries that
/// differ count every layer at the largest, with a warning that `bounded` (the parameter count, or the
/// active one) is then an upper bound (the KV cache does not depend on it).
[[nodiscard]] inline auto optional_layer_count(const config_view& v, const slot& s, std::uint32_t layers,
                                               std::uint32_t min, std::uint32_t max, std::string_view bounded,
                                               std::vector<std::string>& warnings) -> std::optional<std::uint32_t> {
  if (!s.set() || !s.value->is_array() || !v.facts().moe_keys_per_layer) {
    return optional_count(s, min, max);
  }
  if (s.value->size() != layers) {
    fail(config_errc::inconsistent, s.pointer(),
         "expected one entry per layer (" + std::to_string(layers) + " layers), got " + std::to_string(s.value->size()));
  }
  std::uint32_t lo = max;
  std::uint32_t hi = min;
  for (std::size_t i = 0; i < s.value->size(); ++i) {
    const std::uint32_t x = read_u32(element(s, i), min, max);
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  if (lo != hi) {
    warnings.push_back(s.pointer() + " differs between layers (" + std::to_string(lo) + " to " + std::to_string(hi) +
                       "); every MoE layer is counted at " + std::to_string(hi) + ", so " + std::string(bounded) +
                       " is an upper bound (the KV cache does not depend on it)");
  }
  return hi;
}

/// HunYuan's shared MLP (vLLM models/hunyuan_v1.py HunYuanSparseMoeBlock: "if config.use_mixed_mlp_moe > 0",
/// intermediate_size × num_shared_expert): its width, or 0 without use_mixed_mlp_moe.
[[nodiscard]] inline auto read_mixed_mlp_width(const config_view& v, const kvsize::model_spec& m,
                                               std::vector<std::string>& warnings) -> std::uint32_t {
  const slot mixed = v.get("use_mixed_mlp_moe");
  const bool on = mixed.set() && (mixed.value->is_boolean() ? read_bool(mixed) : read_u32(mixed, 0, 1U << 16U) != 0);
  if (!on) {
    return 0;
  }
  const slot count = v.get("num_shared_expert");
  const auto n = optional_layer_count(v, count, m.layers, 0, 1U << 10U, "the parameter count", warnings);
  if (!n) {
    warnings.push_back(count.pointer() + " is absent with use_mixed_mlp_moe; took 1 shared MLP of intermediate_size");
  }
  const std::uint64_t width = kvsize::detail::checked_mul(n.value_or(1), m.intermediate_size);
  if (width > 0xFFFF'FFFFU) {
    fail(config_errc::out_of_range, count.pointer(),
         "the shared MLP's width (num_shared_expert × intermediate_size = " + std::to_string(width) + ") exceeds 2^32 - 1");
  }
  return static_cast<std::uint32_t>(width);
}

/// Layer indices listed in an array (mlp_only_layers, moe_layers).
[[nodiscard]] inline auto read_index_list(const slot& s, std::uint32_t layers) -> std::vector<std::uint32_t> {
  std::vector<std::uint32_t> out;
  if (!s.set()) {
    return out;
  }
  if (!s.value->is_array()) {
    fail(config_errc::wrong_type, s.pointer(), "expected an array of layer indices, got " + describe(*s.value));
  }
  for (std::size_t i = 0; i < s.value->size(); ++i) {
    out.push_back(read_u32(element(s, i), 0, layers == 0 ? 0 : layers - 1));
  }
  return out;
}

/// The routed-expert count. Where the architecture routes every MoE layer's tokens to experts, 0
/// experts is no model (transformers MixtralSparseMoeBlock / Qwen2MoeSparseMoeBlock /
/// DeepseekV3MoE take the top-k of a router with one logit per expert; vLLM's FusedMoE has no
/// 0-expert form), so 0 is out_of_range there. Elsewhere 0 means dense: GraniteMoeHybridDecoderLayer
/// builds block_sparse_moe only "if config.num_local_experts > 0", and JambaDecoderLayer uses
/// "JambaSparseMoeBlock if num_experts > 1 else JambaMLP" (so 1 expert is dense there too). A
/// Nemotron-H pattern with 'E' blocks routes as well.
[[nodiscard]] inline auto read_routed_experts(const config_view& v, const layer_plan& plan, std::string_view mt)
    -> std::uint32_t {
  const family& fam = v.facts();
  slot experts = v.get_first(keys::experts);
  if (!experts.set() && !fam.experts_key.empty()) {  // the family's own spelling (Step-3.5: moe_num_experts)
    experts = v.get(fam.experts_key);
  }
  const bool moe_blocks = plan.hybrid_pattern.find('E') != std::string::npos;
  const bool routes = moe_blocks || !fam.experts_key.empty();
  if (routes && !experts.set()) {
    // A routing architecture without its expert count would be sized as a dense model: a wrong
    // number. Every published config of these families names the count, so its absence is an error,
    // not a default. The pointer names the key the family spells (its row's experts_key; NemotronHConfig:
    // n_routed_experts).
    const std::string_view key = moe_blocks ? std::string_view("n_routed_experts") : fam.experts_key;
    const std::string why = moe_blocks ? v.base() + (plan.source == plan_source::layers_block_type
                                                          ? "/layers_block_type has MoE blocks (\"moe\")"
                                                          : "/hybrid_override_pattern has MoE blocks ('E')")
                                       : "model_type " + std::string(mt) + " routes tokens to experts";
    fail(experts.present() ? config_errc::wrong_type : config_errc::missing_key,
         experts.present() ? experts.pointer() : v.base() + "/" + std::string(key),
         "expected the number of routed experts (" + list_keys(keys::experts) + ") as " + why + ", got " +
             (experts.present() ? describe(*experts.value) : std::string("nothing")));
  }
  return experts.set() ? read_u32(experts, routes ? 1 : 0, 1U << 16U) : 0;
}

/// Top-k, expert width, shared expert(s), router extras.
inline void read_expert_shape(const config_view& v, const kvsize::model_spec& m, kvsize::moe_shape& e,
                              std::vector<std::string>& warnings) {
  const family& fam = v.facts();
  const slot k = v.get_first(keys::experts_per_token);
  if (const auto top = optional_layer_count(v, k, m.layers, 1, 1U << 16U, "the active parameter count", warnings)) {
    if (*top > e.experts) {
      fail(config_errc::inconsistent, k.pointer(),
           "expected at most the number of experts (" + std::to_string(e.experts) + "), got " + std::to_string(*top));
    }
    e.experts_per_token = *top;
  } else {
    warnings.push_back(k.pointer() + " is absent: active parameters count every expert");
  }
  if (const auto width = optional_layer_count(v, v.get_first(keys::expert_width), m.layers, 1, 1U << 24U,
                                              "the parameter count", warnings)) {
    e.expert_width = *width;
  }
  if (fam.mixed_mlp_shared) {
    e.shared_width = read_mixed_mlp_width(v, m, warnings);
  }
  if (const auto sw = optional_count(v.get_first(keys::shared_expert_width), 0)) {
    e.shared_width = *sw;
  }
  if (const slot ns = v.get_first(keys::shared_expert_count); ns.set() && e.shared_width == 0) {
    const std::uint32_t n = read_u32(ns, 0, 1U << 10U);
    e.shared_width = static_cast<std::uint32_t>(
        kvsize::detail::checked_mul(n, e.expert_width != 0 ? e.expert_width : m.intermediate_size));
  }
  if (!fam.expert_latent_key.empty()) {  // null (NemotronHConfig's default): the experts work on hidden_size
    if (const auto latent = optional_count(v.get(fam.expert_latent_key))) {
      e.latent_width = *latent;
    }
  }
  if (fam.shared_expert_is_mlp) {
    e.shared_width = m.intermediate_size;
  }
  if (fam.shared_expert_gate && e.shared_width != 0) {
    e.shared_gate = true;
  }
  const slot topk_method = v.get("topk_method");
  if ((topk_method.set() && read_string(topk_method) == "noaux_tc") || fam.score_correction_bias) {
    e.score_correction_bias = true;
  }
  if (!fam.correction_bias_key.empty()) {
    if (const slot on = v.get(fam.correction_bias_key); on.set()) {
      e.score_correction_bias = read_bool(on);
    }
  }
  e.router_f32 = fam.router_f32;
}

/// Jamba: MoE iff il % expert_layer_period == expert_layer_offset (JambaConfig: 2 and 1); other
/// families: every layer ({1, 0}).
[[nodiscard]] inline auto read_expert_period(const config_view& v, std::uint32_t layers)
    -> std::pair<std::uint32_t, std::uint32_t> {
  if (!v.facts().expert_layer_period) {
    return {1, 0};
  }
  const slot period = v.get("expert_layer_period");
  const slot offset = v.get("expert_layer_offset");
  const std::uint32_t p = period.set() ? read_u32(period, 1, std::max<std::uint32_t>(layers, 1)) : 2U;
  const std::uint32_t o = offset.set() ? read_u32(offset, 0, 1U << 16U) : 1U;
  if (o >= p) {
    fail(config_errc::inconsistent, offset.pointer(),
         "expected expert_layer_offset below expert_layer_period (" + std::to_string(p) + "), got " +
             std::to_string(o));
  }
  return {p, o};
}

/// moe_layer_freq as one entry per layer, 1 (or true) where the layer's MLP is MoE: MiMo-V2-Flash and
/// MiniMax-M3 write it so (transformers models/mimo_v2_flash/modular_mimo_v2_flash.py,
/// MiMoV2FlashDecoderLayer: "if config.moe_layer_freq[layer_idx]"). Empty when the key is not an array.
[[nodiscard]] inline auto read_moe_layer_flags(const slot& freq, std::uint32_t L) -> std::vector<bool> {
  std::vector<bool> flags;
  if (!freq.set() || !freq.value->is_array()) {
    return flags;
  }
  if (freq.value->size() != L) {
    fail(config_errc::inconsistent, freq.pointer(),
         "expected one entry per layer (" + std::to_string(L) + " layers), got " + std::to_string(freq.value->size()));
  }
  for (std::size_t i = 0; i < L; ++i) {
    const slot entry = element(freq, i);
    flags.push_back(read_flag(entry));
  }
  return flags;
}

/// Step-3.5's moe_layers_enum, one flag per layer: a string of comma-separated layer indices whose MLP is MoE
/// (vLLM models/step3p5.py Step3p5DecoderLayer: [int(i) for i in moe_layers_enum.strip().split(",")], and
/// every layer but 0 when the key is absent); indices past the decoder (MTP layers) are not the decoder's.
/// Empty for the other families. The key is weights only: a value kvsize cannot read (vLLM's int() would
/// raise on it) is a config_error that read_weights_only turns into unknown weights, never a refusal.
[[nodiscard]] inline auto read_moe_layers_enum(const config_view& v, std::uint32_t L) -> std::vector<bool> {
  if (!v.facts().step_attention_keys) {
    return {};
  }
  std::vector<bool> moe(L, false);
  const auto every_but_first = [&moe] {
    std::fill(moe.begin(), moe.end(), true);
    if (!moe.empty()) {
      moe[0] = false;
    }
    return moe;
  };
  const slot s = v.get("moe_layers_enum");
  if (!s.set()) {
    return every_but_first();
  }
  const std::string_view text = s.value->is_string() ? std::string_view(s.value->get_ref<const std::string&>()) : "";
  std::size_t digits = 0;  // of the index being read
  std::uint64_t index = 0;  // saturates at L: an index past the decoder is not one of its layers
  bool ended = false;       // whitespace after the digits: only a comma may follow (Python's int() strips it)
  bool readable = s.value->is_string();
  for (std::size_t i = 0; readable && i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ',';
    if (c >= '0' && c <= '9' && !ended) {
      index = std::min<std::uint64_t>(index * 10 + static_cast<std::uint64_t>(c - '0'), L);
      ++digits;
    } else if (c == ',' && digits != 0) {
      if (index < L) {
        moe[index] = true;
      }
      digits = 0;
      index = 0;
      ended = false;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      ended = digits != 0;
    } else {
      readable = false;
    }
  }
  if (!readable) {
    fail(config_errc::wrong_type, s.pointer(),
         "expected a string of comma-separated layer indices, got " + describe(*s.value));
  }
  return moe;
}

/// ERNIE 4.5's MoE layers, [first, last] and every `interval`-th ((il + 1) % interval == 0), from
/// moe_layer_start_index, moe_layer_end_index (-1: the last layer) and moe_layer_interval, with
/// Ernie4_5_MoeConfig's defaults; {0, L − 1, 1} (every layer) for other families.
struct moe_layer_range {
  std::uint32_t first = 0;
  std::uint32_t last = 0;
  std::uint32_t interval = 1;
};
[[nodiscard]] inline auto read_moe_layer_range(const config_view& v, std::uint32_t layers) -> moe_layer_range {
  const std::uint32_t top = layers == 0 ? 0 : layers - 1;
  if (!v.facts().moe_layer_range) {
    return {0, top, 1};
  }
  const slot start = v.get("moe_layer_start_index");
  const slot end = v.get("moe_layer_end_index");
  const slot interval = v.get("moe_layer_interval");
  moe_layer_range r{start.set() ? read_u32(start, 0, 1U << 16U) : 1U, top,
                    interval.set() ? read_u32(interval, 1, std::max<std::uint32_t>(layers, 1)) : 1U};
  const bool last_layer = !end.set() || (end.value->is_number_integer() && !end.value->is_number_unsigned() &&
                                          end.value->get<std::int64_t>() == -1);
  r.last = last_layer ? top : read_u32(end, 0, 1U << 16U);
  return r;
}

/// Layers whose MLP stays dense, by the family rules the keys spell.
inline void read_dense_layers(const config_view& v, std::uint32_t L, const kvsize::moe_shape& e,
                              kvsize::weights_shape& w) {
  const slot freq = v.get("moe_layer_freq");  // DeepSeek: MoE iff il >= k and il % freq == 0; or one flag a layer
  const std::vector<bool> per_layer = read_moe_layer_flags(freq, L);
  const std::vector<bool> listed = read_moe_layers_enum(v, L);  // Step-3.5
  const slot step = v.get("decoder_sparse_step");  // Qwen-MoE: MoE iff (il + 1) % step == 0, not in mlp_only_layers
  const slot interleave = v.get("interleave_moe_layer_step");  // Llama 4: MoE iff (il + 1) % step == 0
  const std::vector<std::uint32_t> mlp_only = read_index_list(v.get("mlp_only_layers"), L);
  const std::uint32_t f = freq.set() && per_layer.empty() ? read_u32(freq, 1, std::max<std::uint32_t>(L, 1)) : 1U;
  const std::uint32_t s = step.set() ? read_u32(step, 1, std::max<std::uint32_t>(L, 1)) : 1U;
  const std::uint32_t il4 = interleave.set() ? read_u32(interleave, 1, std::max<std::uint32_t>(L, 1)) : 1U;
  std::uint32_t dense_width = 0;
  if (const std::string_view key = v.facts().dense_width_key; !key.empty()) {
    if (const slot mlp = v.get(key); mlp.set()) {
      dense_width = read_u32(mlp, 1);
    }
  }
  const auto [period, offset] = read_expert_period(v, L);
  const moe_layer_range range = read_moe_layer_range(v, L);
  for (std::uint32_t il = 0; il < L; ++il) {
    bool moe = il >= e.first_dense_layers && il >= range.first && il <= range.last && (il + 1) % range.interval == 0;
    moe = moe && il % f == 0 && (il + 1) % s == 0 && (il + 1) % il4 == 0;
    moe = moe && il % period == offset;
    moe = moe && (per_layer.empty() || per_layer[il]) && (listed.empty() || listed[il]);
    for (const auto i : mlp_only) {
      moe = moe && i != il;
    }
    // The first_k_dense_replace layers are dense by moe_shape; they take the dense width too where the
    // family has its own key for it (MiniMax-M3: dense_intermediate_size 12288, intermediate_size 3072).
    if (!moe && (il >= e.first_dense_layers || dense_width != 0)) {
      w.layer[il].ffn = ffn_kind::dense;
      w.layer[il].ffn_width = dense_width;
    }
  }
}

/// The mixture of experts, when the model has one (more than 0 experts; more than 1 where one
/// expert is a dense MLP).
inline void read_moe(const config_view& v, const layer_plan& plan, std::string_view mt, parsed_config& out) {
  auto& m = out.spec;
  auto& w = m.weights;
  const std::uint32_t routed = read_routed_experts(v, plan, mt);
  if (routed <= (v.facts().single_expert_dense ? 1U : 0U)) {
    return;
  }
  auto& e = w.moe;
  e.experts = routed;
  read_expert_shape(v, m, e, out.warnings);
  const slot first = v.get(v.facts().first_dense_key);
  if (first.set()) {
    e.first_dense_layers = read_u32(first, 0, m.layers, config_errc::inconsistent);
  } else if (const auto d = unset_class_default(v, first, v.facts().first_dense_key)) {
    e.first_dense_layers = std::min(*d, m.layers);
  }
  read_dense_layers(v, m.layers, e, w);
}

}  // namespace kvsize::hf::detail::weights_detail
