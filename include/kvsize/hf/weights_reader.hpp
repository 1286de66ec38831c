// SPDX-License-Identifier: MIT
// model_spec::weights from config.json: norms, biases, MoE, MLA's Q rank, recurrent mixers,
// MTP, the vision tower; and quantization_config in full. Sources per family are the
// transformers modeling files (models/<family>/modeling_<family>.py) and the remote code the
// checkpoints ship; each branch names its own.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>    // std::max
#include <array>        // std::array
#include <cmath>        // std::isfinite
#include <cstdint>      // std::uint32_t, std::uint64_t
#include <initializer_list>  // has_family
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "../detail/checked.hpp"
#include "../model_spec.hpp"
#include "../vision_tower.hpp"
#include "../weights.hpp"
#include "aliases.hpp"
#include "config_view.hpp"
#include "json_reader.hpp"
#include "layer_plan.hpp"
#include "model_reader.hpp"
#include "parsed_config.hpp"
#include "recurrent.hpp"

namespace kvsize::hf::detail {

namespace weights_keys {
// clang-format off
/// Routed experts: Mixtral/Llama 4/gpt-oss num_local_experts, Qwen-MoE num_experts, DeepSeek/GLM/Nemotron-H n_routed_experts.
inline constexpr std::array<std::string_view, 3> experts{"num_local_experts", "num_experts", "n_routed_experts"};
inline constexpr std::array<std::string_view, 2> experts_per_token{"num_experts_per_tok", "moe_topk"};
inline constexpr std::array<std::string_view, 1> expert_width{"moe_intermediate_size"};
/// Shared expert width: Qwen2-MoE/Qwen3-Next shared_expert_intermediate_size, Nemotron-H moe_shared_expert_intermediate_size.
inline constexpr std::array<std::string_view, 2> shared_width{"shared_expert_intermediate_size", "moe_shared_expert_intermediate_size"};
// clang-format on
}  // namespace weights_keys

namespace weights_detail {

[[nodiscard]] inline auto has_family(std::string_view mt, std::initializer_list<std::string_view> list) -> bool {
  for (const auto f : list) {
    if (mt == f) {
      return true;
    }
  }
  return false;
}

/// A count key that may be absent (nullopt); present keys are range-checked.
[[nodiscard]] inline auto optional_count(const slot& s, std::uint32_t min = 1, std::uint32_t max = 1U << 24U)
    -> std::optional<std::uint32_t> {
  if (!s.set()) {
    return std::nullopt;
  }
  return read_u32(s, min, max);
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

/// DeciLM (Nemotron-NAS) FFN width: _ffn_mult_to_intermediate_size(mult, hidden) =
/// find_multiple(int(2 * mult * hidden / 3), 256), evaluated in double as Python does.
[[nodiscard]] inline auto decilm_ffn_width(const slot& mult_slot, std::uint32_t hidden) -> std::uint32_t {
  if (!mult_slot.set() || !mult_slot.value->is_number()) {
    fail(mult_slot.set() ? config_errc::wrong_type : config_errc::missing_key, mult_slot.pointer(),
         "expected a positive number, got " + (mult_slot.set() ? describe(*mult_slot.value) : std::string("nothing")));
  }
  const double mult = mult_slot.value->get<double>();
  if (!std::isfinite(mult) || mult <= 0 || mult > 64) {
    fail(config_errc::out_of_range, mult_slot.pointer(), "expected a number in (0, 64], got " + describe(*mult_slot.value));
  }
  const double raw = 2 * mult * static_cast<double>(hidden) / 3;
  const auto i = static_cast<std::uint64_t>(raw);  // Python int(): truncation
  const std::uint64_t width = (i % 256 == 0) ? i : i + 256 - i % 256;
  return static_cast<std::uint32_t>(width);  // < 2^31: hidden < 2^24, mult <= 64
}

}  // namespace weights_detail

/// Parameters of the vision tower and its projector, from vision_config (0 and a warning when
/// the tower type is not known). `text_hidden` is the language model's width. The formulas are
/// the core's (kvsize/vision_tower.hpp); this reads the keys, in the order they are checked.
[[nodiscard]] inline auto read_vision(const json& root, std::uint32_t text_hidden, const std::string& top_type,
                                      std::vector<std::string>& warnings) -> std::uint64_t {
  const slot vc = lookup(root, "", "vision_config");
  if (!vc.present()) {
    return 0;
  }
  require_object(vc);
  const auto u = [&](std::string_view key, std::optional<std::uint64_t> fallback = std::nullopt) -> std::uint64_t {
    const slot s = lookup(*vc.value, vc.pointer(), key);
    if (!s.set() && fallback) {
      return *fallback;
    }
    return read_integer(s, 1, 1U << 24U);
  };
  const slot vt = lookup(*vc.value, vc.pointer(), "model_type");
  const std::string type = vt.set() ? read_string(vt) : std::string{};
  kvsize::vision_tower v;
  v.text_hidden = text_hidden;
  const auto read_vit = [&](kvsize::vision_tower_kind kind) {
    v.kind = kind;
    v.hidden = u("hidden_size");
    v.intermediate = u("intermediate_size");
    v.layers = u("num_hidden_layers");
    v.patch = u("patch_size");
    v.image = u("image_size");
    v.channels = u("num_channels", 3);
  };
  if (type == "clip_vision_model") {
    read_vit(kvsize::vision_tower_kind::clip);
    if (top_type == "llava" || top_type == "llava_next") {
      v.projector = kvsize::vision_projector_kind::llava_mlp;
    }
  } else if (type == "siglip_vision_model") {
    read_vit(kvsize::vision_tower_kind::siglip);
    const slot head = lookup(*vc.value, vc.pointer(), "vision_use_head");
    if (read_bool_or(head, true)) {
      warnings.push_back(head.pointer() + ": a SigLIP attention-pooling head is not counted");
    }
    if (top_type == "gemma3") {
      v.projector = kvsize::vision_projector_kind::gemma3;
    }
  } else if (type == "llama4_vision_model") {
    read_vit(kvsize::vision_tower_kind::llama4);
    v.projector_output = u("projector_output_dim");
    v.projector_input = u("projector_input_dim");
    v.output_dim = u("vision_output_dim");
    v.projector = kvsize::vision_projector_kind::llama4;
  } else if (top_type == "qwen2_5_vl") {
    v.kind = kvsize::vision_tower_kind::qwen2_5_vl;
    v.hidden = u("hidden_size");
    v.intermediate = u("intermediate_size");
    v.layers = u("depth");
    v.patch = u("patch_size");
    v.temporal_patch = u("temporal_patch_size", 2);
    v.spatial_merge = u("spatial_merge_size", 2);
    v.channels = u("in_chans", 3);
    v.output_dim = u("out_hidden_size");
  } else {
    warnings.push_back(vc.pointer() + (type.empty() ? std::string{} : " (model_type \"" + printable(type) + "\")") +
                       ": vision tower of an unknown kind; its parameters are not counted");
    return 0;
  }
  try {
    return kvsize::vision_tower_parameters(v);
  } catch (const kvsize::overflow_error&) {
    fail(config_errc::out_of_range, vc.pointer(), "the vision tower's parameter count overflows 2^64");
  }
}

/// Reads model_spec::weights. Runs after the layer plan (it needs which layers are which).
/// The per-layer keys (block_configs, hybrid_override_pattern) come from `plan`, as it checked them.
inline void read_weights_shape(const json& root, const config_view& v, const std::string& mt,
                               const std::string& top_type, const layer_plan& plan, parsed_config& out) {
  using weights_detail::has_family;
  using weights_detail::optional_count;
  auto& m = out.spec;
  auto& w = m.weights;
  const std::uint32_t L = m.layers;
  const auto flag = [&](std::string_view key, bool fallback) { return read_bool_or(v.get(key), fallback); };

  // Norms and block layout.
  if (has_family(mt, {"gpt2", "gpt_bigcode", "gpt_neox", "falcon", "RefinedWeb", "RefinedWebModel", "phi"})) {
    w.norm = norm_kind::layer_norm;
  } else if (mt == "mpt") {
    w.norm = flag("no_bias", false) ? norm_kind::layer_norm_no_bias : norm_kind::layer_norm;
  } else if (mt == "cohere" || mt == "cohere2") {
    w.norm = norm_kind::layer_norm_no_bias;  // CohereLayerNorm: weight only
  }
  if (has_family(mt, {"gemma2", "gemma3", "gemma3_text"})) {
    w.norms_per_mixer = 2;  // input_layernorm + post_attention_layernorm
    w.norms_per_ffn = 2;    // pre_feedforward_layernorm + post_feedforward_layernorm
  }
  if (mt == "cohere" || mt == "cohere2" || mt == "phi") {
    w.parallel_block = true;
    w.norms_per_ffn = 0;  // one input_layernorm feeds attention and MLP
  }
  if (mt == "falcon" || mt == "RefinedWeb" || mt == "RefinedWebModel") {
    // FalconDecoderLayer: new_decoder_architecture (RefinedWeb, i.e. 40B/180B) has ln_attn and
    // ln_mlp; otherwise input_layernorm, plus post_attention_layernorm unless parallel_attn.
    const bool new_arch = flag("new_decoder_architecture", mt == "RefinedWeb");
    const bool parallel = flag("parallel_attn", true);
    w.parallel_block = new_arch || parallel;
    w.norms_per_ffn = (new_arch || !parallel) ? 1 : 0;
    w.o_bias = m.qkv_bias;
    w.mlp_bias = m.qkv_bias;
  }

  // Position embeddings, fused tensors, biases.
  if (mt == "gpt2" || mt == "gpt_bigcode") {
    // GPT2Config n_positions 1024, GPTBigCodeConfig 2048: the rows of wpe.
    const slot np = v.get_first(std::array<std::string_view, 2>{"n_positions", "max_position_embeddings"});
    if (np.set()) {
      w.position_embeddings = read_u32(np, 1, 1U << 24U);
    } else {
      w.position_embeddings = mt == "gpt2" ? 1024U : 2048U;
      out.warnings.push_back(np.pointer() + " is absent; took " + std::to_string(w.position_embeddings) +
                             " position-embedding rows, the default of transformers' " +
                             (mt == "gpt2" ? "GPT2Config" : "GPTBigCodeConfig"));
    }
    w.o_bias = true;
    w.mlp_bias = true;
  }
  if (mt == "gpt_neox") {
    w.o_bias = true;
    w.mlp_bias = true;
  }
  if (mt == "mpt" && !flag("no_bias", false)) {
    w.o_bias = true;
    w.mlp_bias = true;
  }
  if (has_family(mt, {"gpt2", "gpt_bigcode", "gpt_neox", "falcon", "RefinedWeb", "RefinedWebModel", "mpt", "phi3", "chatglm"})) {
    w.fused_qkv = true;
  }
  if (mt == "phi3" || mt == "chatglm") {
    w.fused_gate_up = true;
  }
  if (mt == "chatglm") {
    const bool linear_bias = flag("add_bias_linear", false);
    w.o_bias = linear_bias;
    w.mlp_bias = linear_bias;
  }
  const slot attention_bias = v.get("attention_bias");
  if (attention_bias.set() && !has_family(mt, {"qwen2", "qwen2_moe", "qwen2_vl", "qwen2_5_vl", "qwen2_5_vl_text", "chatglm"})) {
    // LlamaAttention & co.: o_proj bias = attention_bias too; Glm4MoeAttention: o_proj without bias.
    w.o_bias = read_bool(attention_bias) && mt != "glm4_moe";
  }
  if (const slot mb = v.get("mlp_bias"); mb.set()) {
    w.mlp_bias = read_bool(mb);
  }
  if (mt == "gpt_oss") {
    w.attention_sinks = true;  // GptOssAttention.sinks: one logit per head
    w.moe.router_bias = true;  // GptOssTopKRouter: Linear with bias
    w.moe.expert_bias = true;  // gate_up_proj_bias, down_proj_bias
  }
  if (has_family(mt, {"qwen3", "qwen3_moe", "qwen3_next", "gemma3", "gemma3_text"}) ||
      (mt == "glm4_moe" && flag("use_qk_norm", false))) {
    w.qk_norm = qk_norm_kind::head;
  }
  if ((mt == "cohere" || mt == "cohere2") && flag("use_qk_norm", false)) {
    w.qk_norm = qk_norm_kind::full;  // CohereLayerNorm over (heads, head_dim)
  }
  if (mt == "qwen3_next") {
    w.output_gate = true;  // Qwen3NextAttention: q_proj → 2 × heads × head_dim (query and gate)
  }
  if (const slot ql = v.get("q_lora_rank"); ql.set() && m.latent.kv_lora_rank != 0) {
    w.q_lora_rank = read_u32(ql, 1, 1U << 20U);
  }

  // Mixture of experts. Where the architecture routes every MoE layer's tokens to experts, 0
  // experts is no model (transformers MixtralSparseMoeBlock / Qwen2MoeSparseMoeBlock /
  // DeepseekV3MoE take the top-k of a router with one logit per expert; vLLM's FusedMoE has no
  // 0-expert form), so 0 is out_of_range there. Elsewhere 0 means dense: GraniteMoeHybridDecoderLayer
  // builds block_sparse_moe only "if config.num_local_experts > 0", and JambaDecoderLayer uses
  // "JambaSparseMoeBlock if num_experts > 1 else JambaMLP" (so 1 expert is dense there too). A
  // Nemotron-H pattern with 'E' blocks routes as well.
  const slot experts = v.get_first(weights_keys::experts);
  const bool moe_blocks = plan.hybrid_pattern.find('E') != std::string::npos;
  const bool routes = moe_blocks || has_family(mt, {"mixtral", "qwen2_moe", "qwen3_moe", "qwen3_next", "deepseek_v2",
                                                    "deepseek_v3", "deepseek_v32", "kimi_k2", "gpt_oss", "llama4_text",
                                                    "llama4", "glm4_moe"});
  if (routes && !experts.set()) {
    // A routing architecture without its expert count would be sized as a dense model: a wrong
    // number. Every published config of these families names the count, so its absence is an error,
    // not a default. The pointer names the key the family spells (NemotronHConfig, DeepseekV3Config
    // and Glm4MoeConfig: n_routed_experts; Qwen-MoE: num_experts; the rest: num_local_experts).
    const std::string_view key = moe_blocks || has_family(mt, {"deepseek_v2", "deepseek_v3", "deepseek_v32",
                                                               "kimi_k2", "glm4_moe"})
                                     ? "n_routed_experts"
                                 : has_family(mt, {"qwen2_moe", "qwen3_moe", "qwen3_next"}) ? "num_experts"
                                                                                            : "num_local_experts";
    const std::string why = moe_blocks ? v.base() + "/hybrid_override_pattern has MoE blocks ('E')"
                                       : "model_type " + std::string(mt) + " routes tokens to experts";
    fail(experts.present() ? config_errc::wrong_type : config_errc::missing_key,
         experts.present() ? experts.pointer() : v.base() + "/" + std::string(key),
         "expected the number of routed experts (" + list_keys(weights_keys::experts) + ") as " + why + ", got " +
             (experts.present() ? describe(*experts.value) : std::string("nothing")));
  }
  const std::uint32_t routed = experts.set() ? read_u32(experts, routes ? 1 : 0, 1U << 16U) : 0;
  if (routed > (mt == "jamba" ? 1U : 0U)) {
    auto& e = w.moe;
    e.experts = routed;
    const slot k = v.get_first(weights_keys::experts_per_token);
    if (const auto top = optional_count(k, 1, 1U << 16U)) {
      if (*top > e.experts) {
        fail(config_errc::inconsistent, k.pointer(),
             "expected at most the number of experts (" + std::to_string(e.experts) + "), got " + std::to_string(*top));
      }
      e.experts_per_token = *top;
    } else {
      out.warnings.push_back(k.pointer() + " is absent: active parameters count every expert");
    }
    if (const auto width = optional_count(v.get_first(weights_keys::expert_width))) {
      e.expert_width = *width;
    }
    if (const auto sw = optional_count(v.get_first(weights_keys::shared_width), 0)) {
      e.shared_width = *sw;
    }
    if (const slot ns = v.get("n_shared_experts"); ns.set() && e.shared_width == 0) {
      const std::uint32_t n = read_u32(ns, 0, 1U << 10U);
      e.shared_width = static_cast<std::uint32_t>(kvsize::detail::checked_mul(n, e.expert_width != 0 ? e.expert_width : m.intermediate_size));
    }
    if (mt == "llama4_text" || mt == "llama4") {
      e.shared_width = m.intermediate_size;  // Llama4TextMoe.shared_expert: Llama4TextMLP of intermediate_size
    }
    if (has_family(mt, {"qwen2_moe", "qwen3_next"}) && e.shared_width != 0) {
      e.shared_gate = true;  // shared_expert_gate: Linear(hidden, 1)
    }
    const slot topk_method = v.get("topk_method");
    if ((topk_method.set() && read_string(topk_method) == "noaux_tc") || mt == "glm4_moe" || mt == "nemotron_h") {
      e.score_correction_bias = true;
    }
    const slot first = v.get("first_k_dense_replace");
    if (first.set()) {
      e.first_dense_layers = read_u32(first, 0, L, config_errc::inconsistent);
    }
    // Layers whose MLP stays dense, by family rule.
    const slot freq = v.get("moe_layer_freq");  // DeepSeek: MoE iff il >= k and il % freq == 0
    const slot step = v.get("decoder_sparse_step");  // Qwen-MoE: MoE iff (il + 1) % step == 0, not in mlp_only_layers
    const slot interleave = v.get("interleave_moe_layer_step");  // Llama 4: MoE iff (il + 1) % step == 0
    const std::vector<std::uint32_t> mlp_only = weights_detail::read_index_list(v.get("mlp_only_layers"), L);
    const std::uint32_t f = freq.set() ? read_u32(freq, 1, std::max<std::uint32_t>(L, 1)) : 1U;
    const std::uint32_t s = step.set() ? read_u32(step, 1, std::max<std::uint32_t>(L, 1)) : 1U;
    const std::uint32_t il4 = interleave.set() ? read_u32(interleave, 1, std::max<std::uint32_t>(L, 1)) : 1U;
    std::uint32_t dense_width = 0;
    if (mt == "llama4_text" || mt == "llama4") {
      if (const slot mlp = v.get("intermediate_size_mlp"); mlp.set()) {
        dense_width = read_u32(mlp, 1);
      }
    }
    // Jamba: MoE iff il % expert_layer_period == expert_layer_offset (JambaConfig: 2 and 1).
    const bool jamba = mt == "jamba";
    std::uint32_t jamba_period = 1;
    std::uint32_t jamba_offset = 0;
    if (jamba) {
      const slot period = v.get("expert_layer_period");
      const slot offset = v.get("expert_layer_offset");
      jamba_period = period.set() ? read_u32(period, 1, std::max<std::uint32_t>(L, 1)) : 2U;
      jamba_offset = offset.set() ? read_u32(offset, 0, 1U << 16U) : 1U;
      if (jamba_offset >= jamba_period) {
        fail(config_errc::inconsistent, offset.pointer(),
             "expected expert_layer_offset below expert_layer_period (" + std::to_string(jamba_period) + "), got " +
                 std::to_string(jamba_offset));
      }
    }
    for (std::uint32_t il = 0; il < L; ++il) {
      bool moe = il >= e.first_dense_layers;
      moe = moe && il % f == 0 && (il + 1) % s == 0 && (il + 1) % il4 == 0;
      moe = moe && (!jamba || il % jamba_period == jamba_offset);
      for (const auto i : mlp_only) {
        moe = moe && i != il;
      }
      if (!moe && il >= e.first_dense_layers) {
        w.layer[il].ffn = ffn_kind::dense;
        w.layer[il].ffn_width = dense_width;
      }
    }
  }

  // Per-layer structure from the plan's sources.
  if (plan.source == plan_source::block_configs) {
    // DeciLM: an FFN block is absent if no_op, else of width from ffn_mult. The plan checked that
    // block_configs is an array of L objects.
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
      w.layer[il].ffn_width = weights_detail::decilm_ffn_width(lookup(*ffn.value, ffn.pointer(), "ffn_mult"), m.hidden_size);
    }
  }
  if (plan.source == plan_source::hybrid_override_pattern) {
    // NemotronHBlock: one mixer per block ('M' Mamba2, '*' attention, '-' MLP, 'E' MoE), one norm.
    // The plan checked the pattern: one character of "M*-E" per layer.
    const std::string& pattern = plan.hybrid_pattern;
    w.norms_per_mixer = 1;
    w.norms_per_ffn = 1;
    for (std::uint32_t il = 0; il < L && il < pattern.size(); ++il) {
      const char c = pattern[il];
      w.layer[il].ffn = c == '-' ? ffn_kind::dense : (c == 'E' ? ffn_kind::moe : ffn_kind::none);
    }
  }

  // Recurrent mixers.
  if (recurrent_layers(m) != 0) {
    auto& r = w.recurrent;
    const json& o = v.object();
    const std::string& base = v.base();
    if (mt == "qwen3_next" || lookup(o, base, "linear_num_value_heads").set()) {
      r.kind = recurrent_kind::gated_delta;
      r.heads = read_u32(lookup(o, base, "linear_num_value_heads"), 1, 1U << 16U);
      r.head_dim = read_u32(lookup(o, base, "linear_value_head_dim"), 1, 1U << 16U);
      r.groups = read_u32(lookup(o, base, "linear_num_key_heads"), 1, 1U << 16U);
      r.state_dim = read_u32(lookup(o, base, "linear_key_head_dim"), 1, 1U << 16U);
      r.conv_kernel = read_u32(lookup(o, base, "linear_conv_kernel_dim"), 1, 1U << 10U);
    } else if (mt == "jamba") {
      // JambaMambaMixer. The widths are the ones the state was read with (recurrent.hpp); JambaConfig
      // defaults: mamba_dt_rank "auto" = ceil(hidden_size / 16), mamba_conv_bias true, mamba_proj_bias false.
      r.kind = recurrent_kind::mamba1;
      const mamba_inner_width inner = read_mamba_inner_width(o, base, m.hidden_size);  // as the state read it
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
        r.dt_rank = static_cast<std::uint32_t>(kvsize::detail::ceil_div(m.hidden_size, 16));
      }
      r.conv_bias = read_bool_or(lookup(o, base, "mamba_conv_bias"), true);
      r.proj_bias = read_bool_or(lookup(o, base, "mamba_proj_bias"), false);
    } else {
      const slot heads = lookup_first(o, base, keys::mamba_heads);
      const slot head_dim = lookup_first(o, base, keys::mamba_head_dim);
      if (heads.set() && head_dim.set()) {
        r.kind = recurrent_kind::mamba2;
        r.heads = read_u32(heads, 1, 1U << 20U);
        r.head_dim = read_u32(head_dim, 1, 1U << 20U);
        r.groups = static_cast<std::uint32_t>(read_mamba_groups(o, base));  // <= 2^20, as the state read it
        r.state_dim = read_u32(lookup_first(o, base, keys::ssm_state), 1, 1U << 20U);
        r.conv_kernel = read_u32(lookup_first(o, base, keys::conv_kernel), 1, 1U << 10U);
        r.conv_bias = read_bool_or(lookup(o, base, "use_conv_bias"), true);  // Mamba2Config default true
        r.proj_bias = read_bool_or(lookup(o, base, "use_bias"), false);
      } else {
        out.warnings.push_back(heads.pointer() + " and " + head_dim.pointer() +
                               " are not both set: the Mamba2 mixers' weights are not counted");
      }
    }
  }

  // Multi-token prediction.
  const slot nextn = v.get("num_nextn_predict_layers");
  if (nextn.set()) {
    w.mtp_layers = read_u32(nextn, 0, 16);
    w.mtp_embeddings = w.mtp_layers != 0 && has_family(mt, {"deepseek_v3", "deepseek_v32", "kimi_k2", "glm4_moe"});
  } else if (mt == "qwen3_next") {
    w.mtp_layers = 1;
    out.warnings.push_back(nextn.pointer() +
                           " is absent; took 1: Qwen3-Next checkpoints hold one MTP module (mtp.*), which vLLM's "
                           "Qwen3NextMTP loads for speculative decoding; it is in parameters().mtp, not in total");
  }

  w.vision = read_vision(root, m.hidden_size, top_type, out.warnings);
}

/// modules_to_not_convert / llm_int8_skip_modules patterns → weights_format::unquantized_parts.
[[nodiscard]] inline auto parts_of_patterns(const slot& s, std::vector<std::string>& names,
                                            std::vector<std::string>& warnings) -> std::uint16_t {
  std::uint16_t bits = 0;
  if (!s.set()) {
    return 0;
  }
  if (!s.value->is_array()) {
    fail(config_errc::wrong_type, s.pointer(), "expected an array of module names, got " + describe(*s.value));
  }
  for (std::size_t i = 0; i < s.value->size(); ++i) {
    const std::string name = read_string(element(s, i));
    names.push_back(name);
    const auto has = [&](std::string_view part) { return name.find(part) != std::string::npos; };
    const auto ends = [&](std::string_view tail) {
      return name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
    };
    if (has("lm_head")) {
      bits |= part_bit(weight_part::lm_head);
    } else if (has("embed")) {
      bits |= part_bit(weight_part::embeddings);
    } else if (has("self_attn") || has("attention") || ends("attn")) {
      bits |= part_bit(weight_part::attention);
    } else if (has("router") || ends(".gate") || name == "gate" || has("shared_expert_gate")) {
      bits |= part_bit(weight_part::router);
    } else if (has("shared_expert")) {
      bits |= part_bit(weight_part::experts_shared);
    } else if (has("vision") || has("visual") || has("multi_modal_projector")) {
      bits |= part_bit(weight_part::vision);
    } else {
      warnings.push_back(element(s, i).pointer() + " = \"" + printable(name) +
                         "\": not a module kvsize can map to a part of the model; assumed quantized");
    }
  }
  return bits;
}

/// quantization_config in full, and the weights_format kvsize sizes it with.
inline void read_quantization_config(const json& root, parsed_config& out) {
  const slot q = lookup(root, "", "quantization_config");
  if (!q.set()) {
    return;
  }
  require_object(q);
  quantization_config c;
  c.pointer = q.pointer();
  const auto key = [&](std::string_view k) { return lookup(*q.value, q.pointer(), k); };
  const auto str = [&](std::string_view k) -> std::string {
    const slot s = key(k);
    return s.set() ? read_string(s) : std::string{};
  };
  const auto boolean = [&](std::string_view k) -> std::optional<bool> {
    const slot s = key(k);
    return s.set() ? std::optional<bool>(read_bool(s)) : std::nullopt;
  };
  c.method = str("quant_method");
  const slot bits = lookup_first(*q.value, q.pointer(), std::array<std::string_view, 4>{"bits", "weight_bits", "num_bits", "w_bit"});
  if (bits.set()) {
    c.bits = read_u32(bits, 1, 64);
  }
  const slot group = lookup_first(*q.value, q.pointer(), std::array<std::string_view, 2>{"group_size", "q_group_size"});
  if (group.set()) {
    if (group.value->is_number_integer() && !group.value->is_number_unsigned() && group.value->get<std::int64_t>() == -1) {
      c.group_size = 0;  // -1: one group over all input features
    } else {
      c.group_size = read_u32(group, 1, 1U << 24U);
    }
  }
  c.desc_act = boolean("desc_act");
  c.sym = boolean("sym");
  c.zero_point = boolean("zero_point");
  c.fmt = str("fmt");
  c.activation_scheme = str("activation_scheme");
  c.version = str("version");
  if (const slot wbs = key("weight_block_size"); wbs.set()) {
    require_array(wbs, 2, "[output block, input block]");
    c.weight_block_size = std::array<std::uint32_t, 2>{read_u32(element(wbs, 0), 1, 1U << 20U),
                                                       read_u32(element(wbs, 1), 1, 1U << 20U)};
  }
  std::uint16_t kept = parts_of_patterns(key("modules_to_not_convert"), c.modules_to_not_convert, out.warnings);
  kept |= parts_of_patterns(key("llm_int8_skip_modules"), c.modules_to_not_convert, out.warnings);
  c.load_in_4bit = boolean("load_in_4bit").value_or(false);
  c.load_in_8bit = boolean("load_in_8bit").value_or(false);
  c.bnb_4bit_quant_type = str("bnb_4bit_quant_type");
  c.bnb_4bit_use_double_quant = boolean("bnb_4bit_use_double_quant").value_or(false);

  std::optional<weights_format> f;
  if (c.method == "fp8") {
    f = c.weight_block_size ? fp8_weights((*c.weight_block_size)[0], (*c.weight_block_size)[1]) : fp8_weights(0, 0);
  } else if (c.method == "gptq" || c.method == "awq") {
    const std::uint32_t b = c.bits.value_or(4);
    const std::uint32_t g = c.group_size.value_or(128);
    f = c.method == "gptq" ? gptq_weights(b, g) : awq_weights(b, g);
  } else if (c.method == "mxfp4") {
    f = mxfp4_weights();
  } else if (c.method == "bitsandbytes" || c.load_in_4bit || c.load_in_8bit) {
    if (c.load_in_4bit) {
      f = bnb_4bit_weights(c.bnb_4bit_use_double_quant);
    } else if (c.load_in_8bit) {
      f = bnb_8bit_weights();
    }
  }
  if (f) {
    f->unquantized_parts = kept;
    if (out.dtype_key.empty()) {
      f->unquantized = kvsize::dtype::bf16;
      out.warnings.push_back(q.pointer() + ": the tensors " + (c.method.empty() ? std::string("the scheme") : c.method) +
                             " leaves unquantized are taken as bfloat16 (no dtype key)");
    }
  } else {
    out.warnings.push_back(q.pointer() + "/quant_method = \"" + printable(c.method) +
                           "\": a scheme kvsize does not size; weights_format left unset");
  }
  c.format = f;
  out.quantization = std::move(c);
}

}  // namespace kvsize::hf::detail
