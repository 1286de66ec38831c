// SPDX-License-Identifier: MIT
// The fixed state a recurrent layer keeps per sequence (kvsize::recurrent_state), from the
// Mamba / Mamba2 / gated-delta keys of a hybrid model's config.json.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint64_t
#include <string>   // std::string

#include "../detail/checked.hpp"
#include "../model_spec.hpp"
#include "aliases.hpp"
#include "config_view.hpp"
#include "json_reader.hpp"

namespace kvsize::hf::detail {

/// Which recurrence a hybrid's non-attention layers run.
enum class recurrence : std::uint8_t { mamba1, mamba2, gated_delta, short_conv, kda, lightning };

/// The state, with a sentence saying where each number came from.
struct state_reading {
  recurrent_state state;
  std::string note;
};

/// The SSM state dtype a family's config names (family::ssm_dtype_key), or the family's default.
struct ssm_dtype_reading {
  bool set = false;  ///< false: the family names none, or the value is "auto" (the engines' own rule)
  bool defaulted = false;  ///< the key is absent: `type` is the family's default (recurrent_state::ssm_dtype_defaulted)
  dtype type = dtype::f32;
  std::string pointer;
  std::string note;
};

namespace state_detail {
[[nodiscard]] inline auto mul(std::uint64_t a, std::uint64_t b) -> std::uint64_t {
  return kvsize::detail::checked_mul(a, b);  // every factor is < 2^31; products stay far below 2^64
}
}  // namespace state_detail

/// n_groups of a Mamba2 mixer, read once for its state and its weights. B and C are shared by
/// groups of heads, so the heads (mamba_num_heads, when given) must split into whole groups: the
/// kernels assert it (state-spaces/mamba mamba_ssm/ops/triton/selective_state_update.py,
/// selective_state_update: "assert nheads % ngroups == 0", as do the ssd_* chunk-scan kernels),
/// and transformers' Mamba2Mixer.torch_forward repeats B and C num_heads // n_groups times.
[[nodiscard]] inline auto read_mamba_groups(const json& cfg, const std::string& base) -> std::uint64_t {
  const slot g = lookup_first(cfg, base, keys::n_groups);
  const std::uint64_t groups = read_integer(g, 1, 1U << 20U);
  if (const slot heads = lookup_first(cfg, base, keys::mamba_heads); heads.set()) {
    const std::uint64_t h = read_integer(heads, 1, 1U << 20U);
    require_divisor(g, groups, heads.pointer(), h);
  }
  return groups;
}

/// The inner width of a Mamba mixer, read once for its state (read_mamba_state) and its weights
/// (weights_reader.hpp): d_inner = mamba_d_ssm, else mamba_num_heads × mamba_head_dim, else
/// expand × hidden_size; ssm_rows = n_heads × head_dim when both are given, else d_inner.
struct mamba_inner_width {
  std::uint64_t d_inner = 0;
  std::uint64_t ssm_rows = 0;
  std::string note;  ///< which keys decided d_inner
};
[[nodiscard]] inline auto read_mamba_inner_width(const json& cfg, const std::string& base, std::uint32_t hidden)
    -> mamba_inner_width {
  using state_detail::mul;
  const slot heads_s = lookup_first(cfg, base, keys::mamba_heads);
  const slot head_dim_s = lookup_first(cfg, base, keys::mamba_head_dim);
  const slot d_inner_s = lookup_first(cfg, base, keys::d_inner);
  std::uint64_t d_inner = 0;
  std::string inner_note;
  std::uint64_t ssm_rows = 0;  // n_heads × head_dim
  if (heads_s.set() && head_dim_s.set()) {
    const std::uint64_t h = read_integer(heads_s, 1, 1U << 20U);
    const std::uint64_t hd = read_integer(head_dim_s, 1, 1U << 20U);
    ssm_rows = mul(h, hd);
  }
  if (d_inner_s.set()) {
    d_inner = read_integer(d_inner_s, 1, 1U << 30U);
    inner_note = "d_inner from " + d_inner_s.pointer() + " = " + std::to_string(d_inner);
  } else if (ssm_rows != 0) {
    d_inner = ssm_rows;
    inner_note = "d_inner = " + heads_s.pointer() + " × " + head_dim_s.pointer() + " = " + std::to_string(d_inner);
  } else {
    const slot expand_s = lookup_first(cfg, base, keys::expand);
    if (!expand_s.set()) {
      fail(config_errc::missing_key, heads_s.pointer(),
           "expected the Mamba inner width: mamba_d_ssm, mamba_num_heads with mamba_head_dim, or "
           "mamba_expand/expand; got none of them");
    }
    d_inner = mul(read_integer(expand_s, 1, 64), hidden);
    inner_note = "d_inner = " + expand_s.pointer() + " × hidden_size = " + std::to_string(d_inner);
  }
  if (ssm_rows == 0) {
    ssm_rows = d_inner;
  }
  return {d_inner, ssm_rows, inner_note};
}

/// Mamba2 (Nemotron-H, Granite 4, Falcon-H1), per model_spec.hpp and llama.cpp n_embd_r/n_embd_s:
///   d_inner = mamba_d_ssm, else mamba_num_heads × mamba_head_dim, else expand × hidden_size
///   conv    = (d_conv − 1) × (d_inner + 2 × n_groups × d_state)
///   ssm     = n_heads × head_dim × d_state   (= d_inner × d_state when the heads are not given)
/// Mamba1 (Jamba, JambaConfig: mamba_d_state 16, mamba_d_conv 4, mamba_expand 2) is the same with
/// n_groups = 0 and d_inner = expand × hidden: conv = (d_conv − 1) × d_inner, ssm = d_inner × d_state.
/// family::ssm_dtype_key (NemotronH: mamba_ssm_cache_dtype): "float32", "float16" or "bfloat16";
/// "auto" leaves it to the engines; absent: the family's default (float16 for NemotronH, as vLLM 0.13 to 0.19 read it).
[[nodiscard]] inline auto read_ssm_dtype(const config_view& v) -> ssm_dtype_reading {
  const family& fam = v.facts();
  ssm_dtype_reading r;
  if (fam.ssm_dtype_key.empty()) {
    return r;
  }
  const slot key = v.get(fam.ssm_dtype_key);
  r.pointer = key.pointer();
  std::string name{fam.ssm_dtype_default};
  if (key.set()) {
    name = read_string(key);
  }
  if (name.empty() || name == "auto") {
    return r;
  }
  const auto t = kvsize::parse_dtype(name);
  if (!t || (*t != dtype::f32 && *t != dtype::f16 && *t != dtype::bf16)) {
    fail(config_errc::unsupported, key.pointer(),
         "expected \"auto\", \"float32\", \"float16\" or \"bfloat16\", got " + describe(*key.value));
  }
  r.set = true;
  r.defaulted = !key.set();
  r.type = *t;
  r.note = "SSM state in " + std::string{kvsize::name(*t)} + (key.set() ? " (" + r.pointer + ")" : " (" + r.pointer +
           " absent: the default)") + ", as " + std::string{fam.ssm_dtype_source} + " reads it";
  return r;
}

[[nodiscard]] inline auto read_mamba_state(const json& cfg, const std::string& base, std::uint32_t hidden,
                                           recurrence kind) -> state_reading {
  using state_detail::mul;
  const slot d_state_s = lookup_first(cfg, base, keys::ssm_state);
  const slot d_conv_s = lookup_first(cfg, base, keys::conv_kernel);
  const std::uint64_t d_state = read_integer(d_state_s, 1, 1U << 20U);
  const std::uint64_t d_conv = read_integer(d_conv_s, 1, 1U << 10U);
  std::uint64_t groups = 0;
  std::string groups_note = "n_groups = 0 (Mamba1)";
  if (kind == recurrence::mamba2) {
    groups = read_mamba_groups(cfg, base);
    groups_note = lookup_first(cfg, base, keys::n_groups).pointer() + " = " + std::to_string(groups);
  }
  const mamba_inner_width inner = read_mamba_inner_width(cfg, base, hidden);
  const std::uint64_t d_inner = inner.d_inner;
  const std::uint64_t ssm_rows = inner.ssm_rows;
  const std::string& inner_note = inner.note;
  state_reading r;
  r.state.conv_elements = mul(d_conv - 1, kvsize::detail::checked_add(d_inner, mul(mul(2, groups), d_state)));
  r.state.ssm_elements = mul(ssm_rows, d_state);
  r.note = std::string(kind == recurrence::mamba1 ? "Mamba1" : "Mamba2") + " state per sequence: conv = (" +
           d_conv_s.pointer() + " (" + std::to_string(d_conv) + ") − 1) × (d_inner + 2 × n_groups × " + d_state_s.pointer() +
           " (" + std::to_string(d_state) + ")) = " + std::to_string(r.state.conv_elements) + ", ssm = heads × head_dim (" +
           std::to_string(ssm_rows) + ") × d_state = " + std::to_string(r.state.ssm_elements) + " elements; " + inner_note +
           ", " + groups_note;
  return r;
}

/// Gated delta rule (Qwen3-Next linear_attention layers), per model_spec.hpp and llama.cpp:
///   conv = (linear_conv_kernel_dim − 1) × (2 × k_heads × k_dim + v_heads × v_dim)
///   ssm  = v_heads × k_dim × v_dim
/// Qwen3-Next-80B: conv = 3 × (2·16·128 + 32·128) = 24 576, ssm = 32·128·128 = 524 288.
[[nodiscard]] inline auto read_gated_delta_state(const json& cfg, const std::string& base) -> state_reading {
  using state_detail::mul;
  const slot kh = lookup(cfg, base, "linear_num_key_heads");
  const slot vh = lookup(cfg, base, "linear_num_value_heads");
  const slot kd = lookup(cfg, base, "linear_key_head_dim");
  const slot vd = lookup(cfg, base, "linear_value_head_dim");
  const slot cv = lookup(cfg, base, "linear_conv_kernel_dim");
  const std::uint64_t k_heads = read_integer(kh, 1, 1U << 16U);
  const std::uint64_t v_heads = read_integer(vh, 1, 1U << 16U);
  const std::uint64_t k_dim = read_integer(kd, 1, 1U << 16U);
  const std::uint64_t v_dim = read_integer(vd, 1, 1U << 16U);
  const std::uint64_t conv = read_integer(cv, 1, 1U << 10U);
  state_reading r;
  r.state.conv_elements = mul(conv - 1, mul(mul(2, k_heads), k_dim) + mul(v_heads, v_dim));
  r.state.ssm_elements = mul(mul(v_heads, k_dim), v_dim);
  r.note = "gated-delta state per sequence: conv (" + cv.pointer() + " − 1) × (2 × " + kh.pointer() + " × " + kd.pointer() +
           " + " + vh.pointer() + " × " + vd.pointer() + ") = " + std::to_string(r.state.conv_elements) + ", ssm = " +
           vh.pointer() + " × " + kd.pointer() + " × " + vd.pointer() + " = " + std::to_string(r.state.ssm_elements) +
           " elements";
  return r;
}

/// MiniMax-Text-01 / M1's lightning attention layers: no convolution, one H × d × d state per layer
/// (H = num_attention_heads, d = head_dim, else hidden_size / H): vLLM layers/mamba/mamba_utils.py
/// linear_attention_state_shape (num_heads // tp, head_dim, head_dim), in the model dtype
/// (linear_attention_state_dtype: mamba_cache_dtype "auto"); transformers' MiniMaxCache the same.
/// MiniMax-Text-01: 64 × 128 × 128 = 1,048,576 elements, 2 MiB in bf16.
[[nodiscard]] inline auto read_lightning_state(const json& cfg, const std::string& base, std::uint32_t heads,
                                               std::uint32_t head_dim) -> state_reading {
  using state_detail::mul;
  // heads and head_dim as the attention shape read and checked them (plan_facts), not read again.
  const std::string heads_key = lookup_first(cfg, base, keys::heads).pointer();
  state_reading r;
  r.state.ssm_elements = mul(mul(heads, head_dim), head_dim);
  r.note = "lightning-attention state per sequence: " + heads_key + " × head_dim² = " + std::to_string(heads) + " × " +
           std::to_string(head_dim) + "² = " + std::to_string(r.state.ssm_elements) + " elements, no convolution";
  return r;
}

/// Kimi-Linear's KDA (Kimi Delta Attention) layers, from linear_attn_config (num_heads H, head_dim d,
/// short_conv_kernel_size K): short convolutions over Q, K and V, each H × d channels, keep their last
/// K − 1 inputs, and the delta-rule state is H × d × d, always float32 in vLLM (vllm
/// layers/mamba/mamba_utils.py kda_state_shape, kda_state_dtype), SGLang (KimiLinearStateShape) and
/// llama.cpp (n_embd_r = 3 (K − 1) H d, n_embd_s = d d H); docs/research/kimi-linear.md.
[[nodiscard]] inline auto read_kda_state(const json& cfg, const std::string& base) -> state_reading {
  using state_detail::mul;
  const slot lac = lookup(cfg, base, "linear_attn_config");
  require_object(lac);
  const slot h = lookup(*lac.value, lac.pointer(), "num_heads");
  const slot d = lookup(*lac.value, lac.pointer(), "head_dim");
  const slot k = lookup(*lac.value, lac.pointer(), "short_conv_kernel_size");
  const std::uint64_t heads = read_integer(h, 1, 1U << 16U);
  const std::uint64_t head_dim = read_integer(d, 1, 1U << 16U);
  const std::uint64_t kernel = read_integer(k, 2, 1U << 10U);  // one tap keeps nothing: no such model
  state_reading r;
  r.state.conv_elements = mul(mul(3, kernel - 1), mul(heads, head_dim));
  r.state.ssm_elements = mul(mul(heads, head_dim), head_dim);
  r.state.ssm_dtype = dtype::f32;  // vLLM's kda_state_dtype: float32 whatever --mamba-ssm-cache-dtype says
  r.state.ssm_dtype_set = true;
  r.note = "KDA state per sequence: conv 3 × (" + k.pointer() + " − 1) × " + h.pointer() + " × " + d.pointer() + " = " +
           std::to_string(r.state.conv_elements) + ", recurrent " + h.pointer() + " × " + d.pointer() + "² = " +
           std::to_string(r.state.ssm_elements) + " elements (float32 in every engine)";
  return r;
}

/// LFM2's short-convolution layers (Lfm2Config, models/lfm2): a causal depthwise convolution of
/// conv_L_cache taps over conv_dim (else hidden_size) channels keeps its last conv_L_cache − 1 inputs
/// per sequence, and no SSM state: vLLM layers/mamba/short_conv.py ShortConv with
/// mamba_utils.py short_conv_state_shape ((conv_kernel − 1) × dim), llama.cpp's shortconv.l_cache.
[[nodiscard]] inline auto read_short_conv_state(const json& cfg, const std::string& base, std::uint32_t hidden)
    -> state_reading {
  using state_detail::mul;
  const slot l = lookup(cfg, base, "conv_L_cache");
  const std::uint64_t taps = read_integer(l, 2, 1U << 10U);  // one tap keeps nothing: no such model
  const slot dim_s = lookup(cfg, base, "conv_dim");
  const std::uint64_t dim = dim_s.set() ? read_integer(dim_s, 1, 1U << 20U) : hidden;
  state_reading r;
  r.state.conv_elements = mul(taps - 1, dim);
  r.state.ssm_elements = 0;
  r.note = "short-conv state per sequence: (" + l.pointer() + " − 1) × " +
           (dim_s.set() ? dim_s.pointer() : std::string{"hidden_size"}) + " = " + std::to_string(r.state.conv_elements) +
           " elements, no SSM state";
  return r;
}

}  // namespace kvsize::hf::detail
