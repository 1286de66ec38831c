// SPDX-License-Identifier: MIT
// model_spec::weights, what the layer plan's per-layer keys and the recurrent mixers add: DeciLM's
// per-block FFNs (block_configs), Nemotron-H's one-mixer blocks (hybrid_override_pattern), and the
// Mamba1 / Mamba2 / gated-delta mixers' projections.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>      // std::uint32_t, std::uint64_t
#include <string>       // std::string

#include "../detail/checked.hpp"
#include "../model_spec.hpp"
#include "aliases.hpp"
#include "config_view.hpp"
#include "families.hpp"
#include "layer_decision.hpp"
#include "parsed_config.hpp"
#include "recurrent.hpp"

namespace kvsize::hf::detail::weights_detail {

/// DeciLM (Nemotron-NAS) FFN width: _ffn_mult_to_intermediate_size(mult, hidden) =
/// find_multiple(int(2 * mult * hidden / 3), 256), evaluated in double as Python does.
[[nodiscard]] inline auto decilm_ffn_width(const slot& mult_slot, std::uint32_t hidden) -> std::uint32_t {
  const double mult = read_width_multiplier(mult_slot);
  const double raw = 2 * mult * static_cast<double>(hidden) / 3;
  const auto i = static_cast<std::uint64_t>(raw);  // Python int(): truncation
  return static_cast<std::uint32_t>(kvsize::detail::round_up(i, 256));  // < 2^31: hidden < 2^24, mult <= 64
}
/// DeciLM: an FFN block is absent if no_op, else of width from ffn_mult. The plan checked that
/// block_configs is an array of L objects.
inline void read_block_config_ffns(const layer_plan& plan, kvsize::model_spec& m) {
  auto& w = m.weights;
  const std::uint32_t L = m.layers;
  const slot& bc = plan.block_configs;
  for (std::uint32_t il = 0; il < L; ++il) {
    const slot block = element(bc, il);
    require_object(block);
    const slot ffn = lookup(*block.value, block.pointer(), "ffn");
    require_object(ffn);
    if (read_bool_or(lookup(*ffn.value, ffn.pointer(), "no_op"), false)) {
      w.layer[il].ffn = ffn_kind::none;
      continue;
    }
    if (read_bool_or(lookup(*ffn.value, ffn.pointer(), "replace_with_linear"), false)) {
      fail(config_errc::unsupported, ffn.pointer() + "/replace_with_linear",
           "expected false (FFN blocks replaced by a linear map are not counted), got true");
    }
    w.layer[il].ffn = ffn_kind::dense;
    w.layer[il].ffn_width = decilm_ffn_width(lookup(*ffn.value, ffn.pointer(), "ffn_mult"), m.hidden_size);
  }
}

/// NemotronHBlock: one mixer per block ('M' Mamba2, '*' attention, '-' MLP, 'E' MoE), one norm.
/// The plan checked the pattern (hybrid_override_pattern, or layers_block_type in these letters):
/// one character of "M*-E" per layer.
inline void read_hybrid_blocks(const layer_plan& plan, kvsize::model_spec& m) {
  auto& w = m.weights;
  const std::string& pattern = plan.hybrid_pattern;
  w.norms_per_mixer = 1;
  w.norms_per_ffn = 1;
  for (std::uint32_t il = 0; il < m.layers && il < pattern.size(); ++il) {
    const char c = pattern[il];
    w.layer[il].ffn = c == '-' ? ffn_kind::dense : (c == 'E' ? ffn_kind::moe : ffn_kind::none);
  }
}

/// Per-layer structure from the plan's sources.
inline void read_per_layer_blocks(const layer_plan& plan, kvsize::model_spec& m) {
  if (plan.source == plan_source::block_configs) {
    read_block_config_ffns(plan, m);
  }
  if (!plan.hybrid_pattern.empty()) {  // hybrid_override_pattern, or NemotronH's layers_block_type
    read_hybrid_blocks(plan, m);
  }
}

/// Qwen3NextGatedDeltaNet: linear_num_value_heads × linear_value_head_dim values,
/// linear_num_key_heads × linear_key_head_dim keys, a conv of linear_conv_kernel_dim.
inline void read_gated_delta_mixer(const json& o, const std::string& base, kvsize::recurrent_shape& r) {
  r.kind = recurrent_kind::gated_delta;
  r.heads = read_u32(lookup(o, base, "linear_num_value_heads"), 1, 1U << 16U);
  r.head_dim = read_u32(lookup(o, base, "linear_value_head_dim"), 1, 1U << 16U);
  r.groups = read_u32(lookup(o, base, "linear_num_key_heads"), 1, 1U << 16U);
  r.state_dim = read_u32(lookup(o, base, "linear_key_head_dim"), 1, 1U << 16U);
  r.conv_kernel = read_u32(lookup(o, base, "linear_conv_kernel_dim"), 1, 1U << 10U);
}

/// KimiDeltaAttention: linear_attn_config's num_heads × head_dim, convs of short_conv_kernel_size (the
/// state reader checked them: recurrent.hpp read_kda_state).
inline void read_kda_mixer(const json& o, const std::string& base, kvsize::recurrent_shape& r) {
  const slot lac = lookup(o, base, "linear_attn_config");
  r.kind = recurrent_kind::kda;
  r.heads = read_u32(lookup(*lac.value, lac.pointer(), "num_heads"), 1, 1U << 16U);
  r.head_dim = read_u32(lookup(*lac.value, lac.pointer(), "head_dim"), 1, 1U << 16U);
  r.conv_kernel = read_u32(lookup(*lac.value, lac.pointer(), "short_conv_kernel_size"), 2, 1U << 10U);
}

/// JambaMambaMixer. The widths are the ones the state was read with (recurrent.hpp); JambaConfig
/// defaults: mamba_dt_rank "auto" = ceil(hidden_size / 16), mamba_conv_bias true, mamba_proj_bias false.
inline void read_mamba1_mixer(const json& o, const std::string& base, std::uint32_t hidden, kvsize::recurrent_shape& r) {
  r.kind = recurrent_kind::mamba1;
  const mamba_inner_width inner = read_mamba_inner_width(o, base, hidden);  // as the state read it
  if (inner.d_inner > (1U << 30U)) {
    fail(config_errc::out_of_range, base, "expected a Mamba inner width of at most 2^30, got " + inner.note);
  }
  r.head_dim = static_cast<std::uint32_t>(inner.d_inner);
  r.state_dim = read_u32(lookup_first(o, base, keys::ssm_state), 1, 1U << 20U);
  r.conv_kernel = read_u32(lookup_first(o, base, keys::conv_kernel), 1, 1U << 10U);
  const slot dt_rank = lookup(o, base, "mamba_dt_rank");
  if (dt_rank.set() && !dt_rank.value->is_string()) {
    r.dt_rank = read_u32(dt_rank, 1, 1U << 20U);
  } else {
    if (dt_rank.set() && read_string(dt_rank) != "auto") {
      fail(config_errc::wrong_type, dt_rank.pointer(),
           "expected an integer or \"auto\", got \"" + read_string(dt_rank) + "\"");
    }
    r.dt_rank = static_cast<std::uint32_t>(kvsize::detail::ceil_div(hidden, 16));
  }
  r.conv_bias = read_bool_or(lookup(o, base, "mamba_conv_bias"), true);
  r.proj_bias = read_bool_or(lookup(o, base, "mamba_proj_bias"), false);
}

/// Mamba2Mixer (Mamba2Config, NemotronH, FalconH1, GraniteMoeHybrid): counted only when both the
/// head count and the head width are set.
inline void read_mamba2_mixer(const json& o, const std::string& base, kvsize::recurrent_shape& r,
                              std::vector<std::string>& warnings) {
  const slot heads = lookup_first(o, base, keys::mamba_heads);
  const slot head_dim = lookup_first(o, base, keys::mamba_head_dim);
  if (!heads.set() || !head_dim.set()) {
    warnings.push_back(heads.pointer() + " and " + head_dim.pointer() +
                       " are not both set: the Mamba2 mixers' weights are not counted");
    return;
  }
  r.kind = recurrent_kind::mamba2;
  r.heads = read_u32(heads, 1, 1U << 20U);
  r.head_dim = read_u32(head_dim, 1, 1U << 20U);
  r.groups = static_cast<std::uint32_t>(read_mamba_groups(o, base));  // <= 2^20, as the state read it
  r.state_dim = read_u32(lookup_first(o, base, keys::ssm_state), 1, 1U << 20U);
  r.conv_kernel = read_u32(lookup_first(o, base, keys::conv_kernel), 1, 1U << 10U);
  r.conv_bias = read_bool_or(lookup(o, base, "use_conv_bias"), true);  // Mamba2Config default true
  r.proj_bias = read_bool_or(lookup(o, base, "use_bias"), false);
}

/// MiniMaxText01LinearAttention (vLLM layers/mamba/linear_attn.py): num_attention_heads heads of head_dim,
/// as the lightning state read them (the softmax layers use the same heads and head_dim).
inline void read_lightning_mixer(const kvsize::model_spec& m, kvsize::recurrent_shape& r) {
  r.kind = recurrent_kind::lightning;
  r.heads = m.attention_heads;
  r.head_dim = kvsize::effective_head_dim(m);
}

/// Lfm2ShortConv: in_proj (hidden → 3 × C), a depthwise conv of conv_L_cache taps, out_proj (C → hidden),
/// C = conv_dim, else hidden_size (as read_short_conv_state reads the state), each with a bias when
/// conv_bias (default false) is set.
inline void read_short_conv_mixer(const json& o, const std::string& base, std::uint32_t hidden,
                                  kvsize::recurrent_shape& r) {
  r.kind = recurrent_kind::short_conv;
  const slot dim = lookup(o, base, "conv_dim");
  r.heads = 1;
  r.head_dim = dim.set() ? read_u32(dim, 1, 1U << 20U) : hidden;
  r.conv_kernel = read_u32(lookup(o, base, "conv_L_cache"), 2, 1U << 10U);
  r.conv_bias = read_bool_or(lookup(o, base, "conv_bias"), false);
  r.proj_bias = r.conv_bias;
}

/// The recurrent mixers' projections, when some layer keeps state: the family's mixer, or gated
/// delta wherever its keys are set.
inline void read_recurrent_mixers(const config_view& v, parsed_config& out) {
  auto& m = out.spec;
  if (recurrent_layers(m) == 0) {
    return;
  }
  auto& r = m.weights.recurrent;
  const json& o = v.object();
  const std::string& base = v.base();
  const mixer_rule mixer = v.facts().mixer;
  if (mixer == mixer_rule::kda) {
    read_kda_mixer(o, base, r);
  } else if (mixer == mixer_rule::lightning) {
    read_lightning_mixer(m, r);
  } else if (mixer == mixer_rule::gated_delta || lookup(o, base, "linear_num_value_heads").set()) {
    read_gated_delta_mixer(o, base, r);
  } else if (mixer == mixer_rule::mamba1) {
    read_mamba1_mixer(o, base, m.hidden_size, r);
  } else if (mixer == mixer_rule::short_conv) {
    read_short_conv_mixer(o, base, m.hidden_size, r);
  } else {
    read_mamba2_mixer(o, base, r, out.warnings);
  }
}

}  // namespace kvsize::hf::detail::weights_detail
