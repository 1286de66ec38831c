// SPDX-License-Identifier: MIT
// What kvsize knows per model_type, as data: one row per family, every per-family fact a named
// field (designated initialisers; a field left out has the generic decoder's value). The readers
// (model_reader.hpp, layer_plan.hpp, the weights readers) ask the row, never the model_type
// string. Adding a family = one row here (+ a layer rule in layer_rules.hpp only if it places its
// layers in a way no layer_rule of family.hpp describes).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <span>         // std::span
#include <string_view>  // std::string_view

#include "family.hpp"

namespace kvsize::hf::detail {

/// Who reads Qwen3.5's mamba_ssm_dtype: vLLM sets mamba_ssm_cache_dtype from it when that is "auto".
inline constexpr std::string_view qwen3_5_ssm_dtype_source =
    "vLLM 0.17+'s Qwen3_5ForConditionalGenerationConfig.verify_and_update_config (vllm/model_executor/models/config.py)";

/// The generic decoder: what a model_type kvsize does not know is sized as (tied embeddings is
/// PretrainedConfig's default).
inline constexpr family generic_family{.model_type = "", .source = "PretrainedConfig", .tied = true};

/// One family's row under another model_type and config class, where the two classes describe the same model
/// (a remote-code config and its transformers port): every fact is the row's.
[[nodiscard]] constexpr auto same_as(family row, std::string_view model_type, std::string_view source) -> family {
  row.model_type = model_type;
  row.source = source;
  return row;
}

// clang-format off
// MiniMax-Text-01 / M1 (the remote-code MiniMaxText01Config; vLLM models/minimax_text_01.py) and transformers'
// MiniMaxConfig (model_type "minimax", layer_types "linear_attention" / "full_attention"): attn_type_list's 0
// layers are lightning attention (a heads × head_dim² state, no K or V), its 1 layers softmax GQA; every
// layer routes to num_local_experts experts of intermediate_size (block_sparse_moe, as Mixtral; 1 expert is a
// dense MLP, MiniMaxText01DecoderLayer), with a shared MLP of shared_intermediate_size and its hidden → 1
// coefficient gate where that is not 0; untied. The router's weight is float32 in the checkpoint: MiniMax-M1's
// model.safetensors.index.json total_size, 912,210,767,872 B, is 2 B × 456,089,655,296 parameters + 2 B × 80 layers
// × 32 experts × 6,144 (MiniMax-AI/MiniMax-M1 @2abb4f45), and vLLM loads it in float32 (MiniMaxText01MoE.gate,
// params_dtype torch.float32).
inline constexpr family minimax_text_01_family{
    .model_type = "minimax_text_01", .source = "MiniMaxText01Config (MiniMax-Text-01 remote code)",
    .mixer = mixer_rule::lightning, .rotary_float32 = true, .rotary_rows_max_model_len = true,
    .experts_key = "num_local_experts", .single_expert_dense = true, .shared_expert_gate = true, .router_f32 = true};
// HunYuan (Hunyuan-A13B: Tencent's remote-code HunYuanConfig, model_type "hunyuan"; transformers'
// HunYuanMoEV1Config), read as vLLM's models/hunyuan_v1.py builds it: head_dim or attention_head_dim, RMSNorm
// over head_dim on Q and K when use_qk_norm, every layer MoE when num_experts > 1 (moe_topk,
// moe_intermediate_size and num_shared_expert may be one value per layer), a shared MLP with
// use_mixed_mlp_moe; use_cla (cross-layer KV) is refused.
inline constexpr family hunyuan_family{
    .model_type = "hunyuan", .source = "HunYuanConfig (Tencent-Hunyuan remote code configuration_hunyuan.py)",
    .qk_norm = qk_norm_rule::head_if_use_key, .single_expert_dense = true, .moe_keys_per_layer = true,
    .mixed_mlp_shared = true, .cross_layer_kv = true};

inline constexpr family families[] = {
    // Llama and relatives. LlamaConfig: vocab 32000, hidden 4096, intermediate 11008, 32 layers,
    // 32 heads, num_key_value_heads None (→ heads), max_position_embeddings 2048, untied.
    {.model_type = "llama", .source = "LlamaConfig (transformers models/llama/configuration_llama.py)",
     .nested_defaults = R"({"vocab_size":32000,"hidden_size":4096,"intermediate_size":11008,"num_hidden_layers":32,"num_attention_heads":32,"max_position_embeddings":2048})"},
    // SmolLM3Config (transformers models/smollm3/configuration_smollm3.py @008e5743): Llama's layer with
    // NoPE layers (no RoPE, no weights of their own), tied embeddings by default, no biases; a window only
    // with use_sliding_window, on the NoPE layers.
    {.model_type = "smollm3", .source = "SmolLM3Config (models/smollm3/configuration_smollm3.py)",
     .window = window_rule::nope_slides, .tied = true,
     .nested_defaults = R"({"intermediate_size":11008})"},
    {.model_type = "mistral", .source = "MistralConfig (models/mistral/configuration_mistral.py)",
     .nested_defaults = R"({"intermediate_size":14336})"},
    {.model_type = "mixtral", .source = "MixtralConfig (models/mixtral/configuration_mixtral.py)", .experts_key = "num_local_experts"},
    {.model_type = "ministral", .source = "MinistralConfig",
     .nested_defaults = R"({"intermediate_size":14336})"},
    // Phi3DecoderLayer: qkv_proj and gate_up_proj are fused.
    {.model_type = "phi3", .source = "Phi3Config (models/phi3/configuration_phi3.py)", .fused_qkv = true, .fused_gate_up = true,
     .nested_defaults = R"({"intermediate_size":8192})"},
    // PhiDecoderLayer: one LayerNorm feeds attention and a GELU fc1/fc2 MLP in parallel.
    {.model_type = "phi", .source = "PhiConfig (models/phi/configuration_phi.py)", .gated_mlp = false,
     .norm = norm_rule::layer_norm, .block = block_rule::parallel, .qkv_bias = true,
     .nested_defaults = R"({"intermediate_size":8192})"},
    {.model_type = "nemotron-nas", .source = "DeciLMConfig (nvidia remote code)"},
    // Qwen: Qwen2Attention has bias=True on q/k/v regardless of attention_bias; Qwen3 reads attention_bias.
    {.model_type = "qwen2", .source = "Qwen2Config (models/qwen2/configuration_qwen2.py)", .window = window_rule::qwen,
     .qkv_bias = true, .qkv_bias_fixed = true, .attention_bias = attention_bias_rule::ignored,
     .nested_defaults = R"({"intermediate_size":22016})"},
    {.model_type = "qwen2_moe", .source = "Qwen2MoeConfig (models/qwen2_moe/configuration_qwen2_moe.py)", .window = window_rule::qwen,
     .qkv_bias = true, .qkv_bias_fixed = true, .attention_bias = attention_bias_rule::ignored,
     .experts_key = "num_experts", .shared_expert_gate = true,
     .nested_defaults = R"({"intermediate_size":5632})"},
    {.model_type = "qwen2_vl", .source = "Qwen2VLConfig (models/qwen2_vl/configuration_qwen2_vl.py)", .window = window_rule::qwen,
     .qkv_bias = true, .qkv_bias_fixed = true, .attention_bias = attention_bias_rule::ignored},
    {.model_type = "qwen2_5_vl", .source = "Qwen2_5_VLConfig (models/qwen2_5_vl/configuration_qwen2_5_vl.py)", .window = window_rule::qwen,
     .qkv_bias = true, .qkv_bias_fixed = true, .attention_bias = attention_bias_rule::ignored},
    {.model_type = "qwen2_5_vl_text", .source = "Qwen2_5_VLTextConfig", .window = window_rule::qwen,
     .qkv_bias = true, .qkv_bias_fixed = true, .attention_bias = attention_bias_rule::ignored},
    // Qwen3Config: head_dim 128 by default (transformers @008e5743), whatever hidden_size / heads is;
    // Qwen3MoeConfig has no head_dim field (hidden_size / heads).
    {.model_type = "qwen3", .source = "Qwen3Config (models/qwen3/configuration_qwen3.py)", .window = window_rule::qwen,
     .qk_norm = qk_norm_rule::head, .nested_defaults = R"({"head_dim":128,"intermediate_size":22016})"},
    {.model_type = "qwen3_moe", .source = "Qwen3MoeConfig (models/qwen3_moe/configuration_qwen3_moe.py)", .window = window_rule::qwen,
     .qk_norm = qk_norm_rule::head, .experts_key = "num_experts",
     .nested_defaults = R"({"intermediate_size":6144})"},
    // Qwen3NextAttention: q_proj → 2 × heads × head_dim (query and gate). Qwen3-Next checkpoints
    // hold one MTP module (mtp.*), which vLLM's Qwen3NextMTP loads.
    {.model_type = "qwen3_next", .source = "Qwen3NextConfig (models/qwen3_next/configuration_qwen3_next.py)",
     .layers = layer_rule::full_attention_interval, .window = window_rule::qwen, .mixer = mixer_rule::gated_delta,
     .qk_norm = qk_norm_rule::head, .output_gate = true, .experts_key = "num_experts", .shared_expert_gate = true,
     .mtp_default = 1,
     .mtp_default_note = "Qwen3-Next checkpoints hold one MTP module (mtp.*), which vLLM's Qwen3NextMTP loads for "
                         "speculative decoding; it is in parameters().mtp, not in total",
     .nested_defaults = R"({"intermediate_size":5632})"},
    // Qwen3.5 (transformers models/qwen3_5, models/qwen3_5_moe @008e5743): Qwen3-Next's text model in a
    // text_config, layer_types written out (else full_attention_interval, default 4); the gated
    // delta projections split (in_proj_qkv, in_proj_z, in_proj_b, in_proj_a: the same elements as
    // Qwen3-Next's in_proj_qkvz and in_proj_ba); every layer of the MoE variant routes, with a gated
    // shared expert. MTP layers: mtp_num_hidden_layers (weights_reader.hpp read_mtp).
    {.model_type = "qwen3_5_text", .source = "Qwen3_5TextConfig (models/qwen3_5/configuration_qwen3_5.py)",
     .layers = layer_rule::full_attention_interval, .mixer = mixer_rule::gated_delta, .qk_norm = qk_norm_rule::head,
     .output_gate = true,
     .nested_defaults = R"({"vocab_size":248320,"hidden_size":4096,"intermediate_size":12288,"num_hidden_layers":32,"num_attention_heads":16,"num_key_value_heads":4,"head_dim":256,"max_position_embeddings":32768,"linear_conv_kernel_dim":4,"linear_key_head_dim":128,"linear_value_head_dim":128,"linear_num_key_heads":16,"linear_num_value_heads":32})",
     .ssm_dtype_key = "mamba_ssm_dtype", .ssm_dtype_source = qwen3_5_ssm_dtype_source},
    {.model_type = "qwen3_5_moe_text", .source = "Qwen3_5MoeTextConfig (models/qwen3_5_moe/configuration_qwen3_5_moe.py)",
     .layers = layer_rule::full_attention_interval, .mixer = mixer_rule::gated_delta, .qk_norm = qk_norm_rule::head,
     .output_gate = true, .experts_key = "num_experts", .shared_expert_gate = true,
     .nested_defaults = R"({"vocab_size":248320,"hidden_size":2048,"num_hidden_layers":40,"num_attention_heads":16,"num_key_value_heads":2,"head_dim":256,"max_position_embeddings":32768,"linear_conv_kernel_dim":4,"linear_key_head_dim":128,"linear_value_head_dim":128,"linear_num_key_heads":16,"linear_num_value_heads":32,"moe_intermediate_size":512,"shared_expert_intermediate_size":512,"num_experts_per_tok":8,"num_experts":256})",
     .ssm_dtype_key = "mamba_ssm_dtype", .ssm_dtype_source = qwen3_5_ssm_dtype_source},
    // Qwen3-VL (transformers models/qwen3_vl, models/qwen3_vl_moe): Qwen3's and Qwen3-MoE's text models in a
    // text_config (interleaved M-RoPE changes no weight and no cache).
    {.model_type = "qwen3_vl_text", .source = "Qwen3VLTextConfig (models/qwen3_vl/configuration_qwen3_vl.py)",
     .qk_norm = qk_norm_rule::head,
     .nested_defaults = R"({"vocab_size":151936,"hidden_size":4096,"intermediate_size":22016,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":32,"head_dim":128,"max_position_embeddings":128000})"},
    {.model_type = "qwen3_vl_moe_text", .source = "Qwen3VLMoeTextConfig (models/qwen3_vl_moe/configuration_qwen3_vl_moe.py)",
     .qk_norm = qk_norm_rule::head, .experts_key = "num_experts",
     .nested_defaults = R"({"vocab_size":151936,"hidden_size":2048,"intermediate_size":5632,"num_hidden_layers":24,"num_attention_heads":16,"num_key_value_heads":16,"max_position_embeddings":128000,"moe_intermediate_size":1408,"num_experts_per_tok":4,"num_experts":60})"},
    // Gemma: tie_word_embeddings defaults to True in every Gemma config class.
    {.model_type = "gemma", .source = "GemmaConfig (models/gemma/configuration_gemma.py)", .tied = true,
     .nested_defaults = R"({"intermediate_size":24576})"},
    // Gemma2Config (checked against transformers models/gemma2/configuration_gemma2.py @008e5743,
    // and @19f53461 before layer_types existed): vocab 256000, hidden 2304, intermediate 9216,
    // 26 layers, 8 heads, 4 KV heads, head_dim 256, max_position_embeddings 8192, sliding_window
    // 4096, tied; layer_types default: layer i slides iff (i + 1) % 2 != 0. See
    // docs/research/transformers-defaults.md. Gemma2DecoderLayer: input, post_attention,
    // pre_feedforward and post_feedforward layernorms.
    {.model_type = "gemma2", .source = "Gemma2Config (models/gemma2/configuration_gemma2.py)", .window = window_rule::alternate,
     .pattern = 2, .tied = true, .sandwich_norms = true,
     .nested_defaults = R"({"vocab_size":256000,"hidden_size":2304,"intermediate_size":9216,"num_hidden_layers":26,"num_attention_heads":8,"num_key_value_heads":4,"head_dim":256,"max_position_embeddings":8192,"sliding_window":4096})"},
    // Gemma3TextConfig: vocab 262208, hidden 2304, intermediate 9216, 26 layers, 8 heads, 4 kv heads,
    // head_dim 256, max_position_embeddings 131072, sliding_window 4096, sliding_window_pattern 6.
    {.model_type = "gemma3_text", .source = "Gemma3TextConfig (transformers models/gemma3/configuration_gemma3.py)",
     .window = window_rule::pattern, .pattern = 6, .tied = true, .sandwich_norms = true, .sliding_rope_apart = true,
     .qk_norm = qk_norm_rule::head,
     .nested_defaults = R"({"vocab_size":262208,"hidden_size":2304,"intermediate_size":9216,"num_hidden_layers":26,"num_attention_heads":8,"num_key_value_heads":4,"head_dim":256,"max_position_embeddings":131072,"sliding_window":4096,"sliding_window_pattern":6})"},
    {.model_type = "gemma3", .source = "Gemma3TextConfig (transformers models/gemma3/configuration_gemma3.py)",
     .window = window_rule::pattern, .pattern = 6, .tied = true, .sandwich_norms = true, .sliding_rope_apart = true,
     .qk_norm = qk_norm_rule::head},
    // Gemma3nTextConfig (transformers models/gemma3n/configuration_gemma3n.py @01854809, the same
    // in @c5d9fba1): vocab 262400, hidden 2048, intermediate 16384, 35 layers, 8 heads, 2 KV heads,
    // head_dim 256, max_position_embeddings 32768, sliding_window 512, num_kv_shared_layers 15, tied;
    // layer_types default: layer i is full iff (i + 1) % 5 == 0. No sliding_window_pattern key.
    {.model_type = "gemma3n_text", .source = "Gemma3nTextConfig (transformers models/gemma3n/configuration_gemma3n.py)",
     .window = window_rule::pattern, .pattern = 5, .pattern_key = false, .tied = true, .sliding_rope_apart = true,
     .per_layer_inputs = true,
     .per_layer_input_default = 256,
     .nested_defaults = R"({"vocab_size":262400,"hidden_size":2048,"intermediate_size":16384,"num_hidden_layers":35,"num_attention_heads":8,"num_key_value_heads":2,"head_dim":256,"max_position_embeddings":32768,"sliding_window":512,"num_kv_shared_layers":15})"},
    {.model_type = "gemma3n", .source = "Gemma3nTextConfig", .window = window_rule::pattern, .pattern = 5, .pattern_key = false,
     .tied = true, .sliding_rope_apart = true, .per_layer_inputs = true, .per_layer_input_default = 256},
    // Gemma4TextConfig (transformers models/gemma4/configuration_gemma4.py @008e5743): head_dim 256,
    // global_head_dim 512, num_global_key_value_heads None, attention_k_eq_v false,
    // num_kv_shared_layers 0, sliding_window 512, 30 layers, 4 KV heads, max_position_embeddings
    // 131072, tied; layer_types default: layer i slides iff (i + 1) % 6 != 0, the last layer full.
    // Gemma4TextAttention: full-attention layers use global_head_dim, and with attention_k_eq_v
    // num_global_key_value_heads KV heads and no v_proj (value = the raw K projection, v_norm'ed
    // apart, so the cache holds K and V). Gemma4TextDecoderLayer: with enable_moe_block, the dense MLP
    // of intermediate_size runs beside num_experts experts of moe_intermediate_size (top_k_experts); each
    // layer registers a one-element layer_scalar buffer, which the checkpoints store. The "E" models (Gemma4TextModel)
    // add per-layer inputs (hidden_size_per_layer_input, class default 256; the dense and MoE checkpoints write 0)
    // and, with use_double_wide_mlp, an MLP of twice
    // intermediate_size in the KV-shared layers (Gemma4TextMLP: layer_idx >= first_kv_shared_layer_idx > 0).
    {.model_type = "gemma4_text", .source = "Gemma4TextConfig (transformers models/gemma4/configuration_gemma4.py)",
     .window = window_rule::pattern, .pattern = 6, .pattern_key = false, .tied = true, .sandwich_norms = true, .layer_scalar = true,
     .sliding_rope_apart = true, .per_layer_inputs = true, .per_layer_input_default = 256, .double_wide_mlp_key = true, .qk_norm = qk_norm_rule::head,
     .shared_expert_is_mlp = true,
     .global_attention_keys = true,
     .nested_defaults = R"({"head_dim":256,"global_head_dim":512,"num_hidden_layers":30,"num_key_value_heads":4,"max_position_embeddings":131072,"sliding_window":512})"},
    {.model_type = "gemma4", .source = "Gemma4TextConfig (transformers models/gemma4/configuration_gemma4.py)",
     .window = window_rule::pattern, .pattern = 6, .pattern_key = false, .tied = true, .sandwich_norms = true, .layer_scalar = true,
     .sliding_rope_apart = true, .per_layer_inputs = true, .per_layer_input_default = 256, .double_wide_mlp_key = true, .qk_norm = qk_norm_rule::head,
     .shared_expert_is_mlp = true,
     .global_attention_keys = true},
    // MiniMaxM2Config (transformers models/minimax_m2/modular_minimax_m2.py @001f85b3): full attention on every
    // layer (no window, unlike Mixtral), every layer MoE of num_local_experts (Mixtral's blocks);
    // MiniMaxM2Attention (FlexOlmoAttention) norms Q and K over all their heads; MiniMaxM2SparseMoeBlock
    // registers e_score_correction_bias. The checkpoint's gate is float32 (NVIDIA-NeMo/Automodel PR #3674).
    {.model_type = "minimax_m2", .source = "MiniMaxM2Config (transformers models/minimax_m2/modular_minimax_m2.py)",
     .qk_norm = qk_norm_rule::full, .experts_key = "num_local_experts", .score_correction_bias = true, .router_f32 = true},
    // MiniMax-M3 (vLLM models/minimax_m3/nvidia/model.py @90215894, MiniMaxM3SparseAttention; SGLang
    // models/minimax_m3.py; transformers models/minimax_m3_vl MiniMaxM3VLTextConfig): GQA on every layer, and on
    // the sparse_attention_freq layers one index key per token (hf/sparse_attention.hpp). Q/K RMSNorm per head;
    // dense MLP of dense_intermediate_size on the moe_layer_freq 0 layers, else num_local_experts experts, a
    // shared MLP of shared_intermediate_size and a routing bias; routers "stored in fp32" (vLLM MiniMaxM3MoE @0443308a).
    // The 7 MTP modules are in no checkpoint.
    {.model_type = "minimax_m3", .source = "MiniMaxM3Config (vLLM transformers_utils/configs/minimax_m3.py)",
     .qk_norm = qk_norm_rule::head, .experts_key = "num_local_experts", .dense_width_key = "dense_intermediate_size",
     .score_correction_bias = true, .router_f32 = true, .sparse_attention_keys = true,
     .mtp_uncounted = "the published checkpoints ship no MTP tensors, and vLLM, SGLang and TensorRT-LLM skip "
                      "model.mtp.* when they load one"},
    minimax_text_01_family,
    same_as(minimax_text_01_family, "minimax_m1", "MiniMaxText01Config (MiniMax-M1 remote code)"),
    same_as(minimax_text_01_family, "minimax", "MiniMaxConfig (models/minimax/configuration_minimax.py)"),
    // Step-3.5-Flash (the remote-code Step3p5Config; vLLM models/step3p5.py @3b1ef03b, SGLang models/step3p5.py):
    // num_attention_groups KV heads; the layers of attention_other_setting's type (sliding) take its heads,
    // groups and head_dim; Q/K RMSNorm over head_dim on every layer; with use_head_wise_attn_gate a hidden →
    // heads g_proj; MoE on the moe_layers_enum layers (moe_num_experts of moe_intermediate_size, top
    // moe_top_k, a share_expert MLP, a float32 router_bias), a dense MLP of intermediate_size elsewhere.
    {.model_type = "step3p5", .source = "Step3p5Config (Step-3.5-Flash remote code configuration_step3p5.py)",
     .window = window_rule::alternate, .pattern = 2, .sliding_rope_apart = true, .qk_norm = qk_norm_rule::head,
     .experts_key = "moe_num_experts", .score_correction_bias = true, .step_attention_keys = true,
     .mtp_uncounted = "vLLM models/step3p5_mtp.py builds each as a dense, sliding Step3p5DecoderLayer with eh_proj, "
                      "norms and a head of its own, which kvsize's MTP module does not describe"},
    // ERNIE 4.5 (Ernie4_5Config, transformers models/ernie4_5; vLLM models/ernie45.py runs it as Llama): head_dim
    // its own key (the 0.3B's 128, where hidden_size / heads is 64), tied embeddings by default.
    {.model_type = "ernie4_5", .source = "Ernie4_5Config (models/ernie4_5/configuration_ernie4_5.py)", .tied = true,
     .nested_defaults = R"({"intermediate_size":3072})"},
    // ERNIE 4.5 MoE (Ernie4_5_MoeConfig; vLLM models/ernie45_moe.py Ernie4_5_MoeDecoderLayer): moe_num_experts
    // routed experts of moe_intermediate_size, top moe_k, moe_num_shared_experts of that width as one shared MLP,
    // Ernie4_5_MoeStatics' e_score_correction_bias, router and bias float32 (_keep_in_fp32_modules_strict); MoE on the layers moe_layer_start_index (1) <= il <=
    // moe_layer_end_index (-1: the last) with (il + 1) % moe_layer_interval (1) == 0, a dense MLP of
    // intermediate_size on the others.
    {.model_type = "ernie4_5_moe", .source = "Ernie4_5_MoeConfig (models/ernie4_5_moe/configuration_ernie4_5_moe.py)",
     .tied = true, .experts_key = "moe_num_experts", .moe_layer_range = true, .score_correction_bias = true,
     .router_f32 = true, .nested_defaults = R"({"intermediate_size":12288})"},
    // MiMoV2FlashConfig (transformers models/mimo_v2_flash/configuration_mimo_v2_flash.py @019770dd) and vLLM
    // models/mimo_v2_flash.py (MiMoV2FlashDecoderLayer.__init__): sliding layers where hybrid_layer_pattern is 1,
    // with their own KV heads and head widths (swa_*), window sliding_window_size, and sinks when
    // add_swa_attention_sink_bias; full layers num_key_value_heads × head_dim (K) / v_head_dim (V); MoE where
    // moe_layer_freq[i] is 1 (no shared expert); MiMoV2MoE's gate has e_score_correction_bias. The sliding layers
    // rotate at swa_rope_theta (MiMoV2Attention's get_rope): a rotary table of their own.
    {.model_type = "mimo_v2_flash", .source = "MiMoV2FlashConfig (transformers models/mimo_v2_flash/configuration_mimo_v2_flash.py)",
     .window = window_rule::hybrid_layer_pattern, .sliding_rope_apart = true, .experts_key = "n_routed_experts", .score_correction_bias = true,
     .swa_attention_keys = true,
     .nested_defaults = R"({"intermediate_size":16384})"},
    // CohereDecoderLayer: one CohereLayerNorm (weight only) feeds attention and MLP in parallel.
    {.model_type = "cohere", .source = "CohereConfig (models/cohere/configuration_cohere.py)", .tied = true,
     .norm = norm_rule::layer_norm_no_bias, .block = block_rule::parallel, .qk_norm = qk_norm_rule::full_if_use_key,
     .nested_defaults = R"({"intermediate_size":22528})"},
    // Cohere2Config (transformers models/cohere2/configuration_cohere2.py @008e5743; @eab64a0e had
    // sliding_window_pattern as an attribute, now it is read from the kwargs for old configs, default
    // 4 in both): vocab 256000, hidden 8192, intermediate 22528, 40 layers, 64 heads,
    // num_key_value_heads None (→ heads), head_dim always hidden / heads, max_position_embeddings
    // 8192, sliding_window 4096, tied.
    {.model_type = "cohere2", .source = "Cohere2Config (transformers models/cohere2/configuration_cohere2.py)",
     .window = window_rule::pattern, .pattern = 4, .tied = true, .norm = norm_rule::layer_norm_no_bias,
     .block = block_rule::parallel, .qk_norm = qk_norm_rule::full_if_use_key,
     .nested_defaults = R"({"vocab_size":256000,"hidden_size":8192,"intermediate_size":22528,"num_hidden_layers":40,"num_attention_heads":64,"max_position_embeddings":8192,"sliding_window":4096,"sliding_window_pattern":4})"},
    // Llama4TextConfig (transformers models/llama4/configuration_llama4.py @008e5743, the same
    // values in @b17cfe48): vocab 202048, hidden 5120, intermediate 8192, 48 layers, 40 heads, 8 KV
    // heads, head_dim 128, max_position_embeddings 131072, attention_chunk_size 8192,
    // no_rope_layer_interval 4, untied, num_local_experts 16, num_experts_per_tok 1,
    // intermediate_size_mlp 16384, interleave_moe_layer_step 1 (checked @008e5743: the dataclass
    // fields of Llama4TextConfig); no_rope_layers absent or [] → int((i + 1) % interval != 0),
    // and layer_types → "chunked_attention" where that is 1, else "full_attention".
    // Llama4TextMoe.shared_expert: a Llama4TextMLP of intermediate_size; dense layers use intermediate_size_mlp.
    {.model_type = "llama4_text", .source = "Llama4TextConfig (transformers models/llama4/configuration_llama4.py)",
     .window = window_rule::chunked, .pattern = 4, .experts_key = "num_local_experts", .shared_expert_is_mlp = true,
     .dense_width_key = "intermediate_size_mlp",
     .nested_defaults = R"({"vocab_size":202048,"hidden_size":5120,"intermediate_size":8192,"num_hidden_layers":48,"num_attention_heads":40,"num_key_value_heads":8,"head_dim":128,"max_position_embeddings":131072,"attention_chunk_size":8192,"num_local_experts":16,"num_experts_per_tok":1,"intermediate_size_mlp":16384,"interleave_moe_layer_step":1})"},
    {.model_type = "llama4", .source = "Llama4TextConfig", .window = window_rule::chunked, .pattern = 4,
     .experts_key = "num_local_experts", .shared_expert_is_mlp = true, .dense_width_key = "intermediate_size_mlp"},
    // GptOssAttention.sinks: one logit per head; GptOssTopKRouter: Linear with bias; experts'
    // gate_up_proj_bias and down_proj_bias.
    {.model_type = "gpt_oss", .source = "GptOssConfig (models/gpt_oss/configuration_gpt_oss.py)", .rotary_float32 = true,
     .attention_sinks = true,
     .qkv_bias = true, .experts_key = "num_local_experts", .expert_biases = true},
    // Latent attention: vLLM's MLA list (config/model.py is_deepseek_mla). DeepseekV3Config,
    // NemotronHConfig and Glm4MoeConfig spell the expert count n_routed_experts.
    {.model_type = "deepseek_v2", .source = "DeepseekV2Config", .latent = true, .experts_key = "n_routed_experts",
     .nested_defaults = R"({"intermediate_size":11008})"},
    {.model_type = "deepseek_v3", .source = "DeepseekV3Config (models/deepseek_v3/configuration_deepseek_v3.py)", .latent = true,
     .experts_key = "n_routed_experts", .mtp_embeddings = true,
     .nested_defaults = R"({"intermediate_size":18432})"},
    {.model_type = "deepseek_v32", .source = "DeepseekV32Config", .latent = true, .experts_key = "n_routed_experts",
     .mtp_embeddings = true,
     .nested_defaults = R"({"intermediate_size":18432,"index_n_heads":64})"},
    {.model_type = "kimi_k2", .source = "DeepseekV3Config (Kimi-K2 remote code)", .latent = true,
     .experts_key = "n_routed_experts", .mtp_embeddings = true},
    {.model_type = "longcat_flash", .source = "LongcatFlashConfig", .latent = true,
     .nested_defaults = R"({"intermediate_size":12288})"},
    // Kimi-K3 (the same model_type, configuration_kimi_k3.py; SGLang models/kimi_k3.py KimiK3MoE): the routed
    // experts work on routed_expert_hidden_size (routed_expert_down_proj / _up_proj around them).
    // KimiLinearConfig (moonshotai remote code configuration_kimi.py): MLA on the 1-based
    // linear_attn_config.full_attn_layers, KDA on the others (layer_keys.hpp read_linear_attn_layers);
    // KimiMoEGate: e_score_correction_bias.
    {.model_type = "kimi_linear", .source = "KimiLinearConfig (Kimi-Linear remote code)", .latent = true,
     .mixer = mixer_rule::kda, .rotary_none = true, .experts_key = "num_experts", .score_correction_bias = true,
     .expert_latent_key = "routed_expert_hidden_size"},
    {.model_type = "minicpm3", .source = "MiniCPM3Config", .latent = true},
    // Glm4MoeAttention: o_proj without bias; Glm4MoeTopkRouter: e_score_correction_bias.
    hunyuan_family,
    same_as(hunyuan_family, "hunyuan_v1_moe", "HunYuanMoEV1Config (models/hunyuan_v1_moe/configuration_hunyuan_v1_moe.py)"),
    // HunYuanDenseV1Config: the same attention, a dense MLP.
    {.model_type = "hunyuan_v1_dense", .source = "HunYuanDenseV1Config (models/hunyuan_v1_dense/configuration_hunyuan_v1_dense.py)",
     .qk_norm = qk_norm_rule::head_if_use_key, .cross_layer_kv = true,
     .nested_defaults = R"({"intermediate_size":11008})"},
    // LFM2 (Lfm2Config, models/lfm2): short-convolution layers beside attention layers, given by
    // layer_types ("conv") or, in the launch configs, full_attn_idxs; the MLP width is block_ff_dim
    // after Lfm2MLP's adjustment (read_lfm2_mlp_width); q_layernorm / k_layernorm of head_dim; tied by
    // default (tie_word_embeddings True in Lfm2Config.__init__, which takes a "tie_embedding" key first).
    {.model_type = "lfm2", .source = "Lfm2Config (models/lfm2/configuration_lfm2.py)", .mixer = mixer_rule::short_conv,
     .lfm2_mlp = true, .tied = true, .tie_alias = "tie_embedding", .qk_norm = qk_norm_rule::head},
    // LFM2-MoE (Lfm2MoeConfig; vLLM models/lfm2_moe.py; docs/research/lfm2-moe.md): LFM2's layers over hidden_size
    // channels; a dense MLP of intermediate_size, not adjusted, on the first num_dense_layers, else num_experts experts
    // of moe_intermediate_size and a float32 expert_bias where use_expert_bias (a persistent buffer).
    {.model_type = "lfm2_moe", .source = "Lfm2MoeConfig (models/lfm2_moe/configuration_lfm2_moe.py)",
     .mixer = mixer_rule::short_conv, .tied = true, .tie_alias = "tie_embedding", .qk_norm = qk_norm_rule::head,
     .experts_key = "num_experts", .first_dense_key = "num_dense_layers", .score_correction_bias = true,
     .correction_bias_key = "use_expert_bias", .nested_defaults = R"({"intermediate_size":7168,"num_dense_layers":2})"},
    // GLM-5: DeepSeek-V3.2's sparse attention (latent + the indexer's key, index_head_dim) in a GLM-4.5
    // MoE (GlmMoeDsaForCausalLM; vLLM runs it through models/deepseek_v2.py). Its MTP layer stores no embedding
    // or head of its own: the Hub's total, 753,864,139,008, has none (docs/research/param-counts.md).
    {.model_type = "glm_moe_dsa", .source = "GlmMoeDsaConfig (models/glm_moe_dsa/configuration_glm_moe_dsa.py)",
     .latent = true, .experts_key = "n_routed_experts", .score_correction_bias = true,
     .nested_defaults = R"({"intermediate_size":12288,"index_n_heads":32})"},
    {.model_type = "glm4_moe", .source = "Glm4MoeConfig (models/glm4_moe/configuration_glm4_moe.py)",
     .qk_norm = qk_norm_rule::head_if_use_key, .attention_bias = attention_bias_rule::no_o_bias,
     .experts_key = "n_routed_experts", .score_correction_bias = true, .mtp_embeddings = true,
     .nested_defaults = R"({"intermediate_size":10944})"},
    // ChatGLM (THUDM remote code, modeling_chatglm.py): query_key_value and dense_h_to_4h fused;
    // add_bias_linear for dense and the MLP; add_qkv_bias for query_key_value.
    {.model_type = "chatglm", .source = "ChatGLMConfig (THUDM remote code)", .kv_heads = kv_heads_rule::chatglm,
     .rotary_half = true, .fused_qkv = true, .fused_gate_up = true, .linear_bias = linear_bias_rule::add_bias_linear,
     .attention_bias = attention_bias_rule::ignored},
    // Two-matrix MLPs (GELU / ReLU²): gpt2, gpt_neox, falcon, mpt, nemotron_h. GPT2Config
    // n_positions 1024, GPTBigCodeConfig 2048: the rows of wpe.
    {.model_type = "gpt2", .source = "GPT2Config (models/gpt2/configuration_gpt2.py)", .gated_mlp = false, .ffn_4x_hidden = true,
     .tied = true, .learned_positions = 1024, .norm = norm_rule::layer_norm, .rotary_none = true, .fused_qkv = true,
     .qkv_bias = true,
     .linear_bias = linear_bias_rule::always},
    // GPTBigCodeBlock: inner_dim = n_inner, or 4 × hidden_size when None (transformers modeling_gpt_bigcode.py).
    {.model_type = "gpt_bigcode", .source = "GPTBigCodeConfig", .gated_mlp = false, .ffn_4x_hidden = true, .tied = true,
     .learned_positions = 2048,
     .norm = norm_rule::layer_norm, .rotary_none = true, .fused_qkv = true, .qkv_bias = true,
     .linear_bias = linear_bias_rule::always},
    {.model_type = "gpt_neox", .source = "GPTNeoXConfig (models/gpt_neox/configuration_gpt_neox.py)", .gated_mlp = false,
     .norm = norm_rule::layer_norm, .fused_qkv = true, .qkv_bias = true, .linear_bias = linear_bias_rule::always,
     .nested_defaults = R"({"intermediate_size":24576})"},
    // Falcon: FalconConfig (transformers) and RWConfig (tiiuae remote code, "RefinedWeb" = the
    // 40B/180B new decoder architecture, "RefinedWebModel" = 7B). multi_query defaults to true.
    {.model_type = "falcon", .source = "FalconConfig (models/falcon/configuration_falcon.py)",
     .kv_heads = kv_heads_rule::falcon_multi_query, .gated_mlp = false, .ffn_4x_hidden = true, .tied = true,
     .norm = norm_rule::layer_norm, .rotary_default_positions = 2'048, .block = block_rule::falcon, .fused_qkv = true, .linear_bias = linear_bias_rule::like_qkv},
    {.model_type = "RefinedWeb", .source = "RWConfig (tiiuae remote code)", .kv_heads = kv_heads_rule::falcon_multi_query,
     .gated_mlp = false, .ffn_4x_hidden = true, .tied = true, .norm = norm_rule::layer_norm, .rotary_default_positions = 8'192,
     .block = block_rule::falcon, .new_decoder_default = true, .fused_qkv = true, .linear_bias = linear_bias_rule::like_qkv},
    {.model_type = "RefinedWebModel", .source = "RWConfig (tiiuae remote code)", .kv_heads = kv_heads_rule::falcon_multi_query,
     .gated_mlp = false, .ffn_4x_hidden = true, .tied = true, .norm = norm_rule::layer_norm, .rotary_default_positions = 8'192,
     .block = block_rule::falcon, .fused_qkv = true, .linear_bias = linear_bias_rule::like_qkv},
    {.model_type = "mpt", .source = "MptConfig (models/mpt/configuration_mpt.py)", .kv_heads = kv_heads_rule::mpt_attn_config,
     .gated_mlp = false, .tied = true, .norm = norm_rule::layer_norm_unless_no_bias, .rotary_none = true, .fused_qkv = true,
     .linear_bias = linear_bias_rule::unless_no_bias},
    // NemotronH: routes only in its 'E' blocks (hybrid_override_pattern), with e_score_correction_bias.
    // vLLM reads mamba_ssm_cache_dtype (its SSM state dtype) in vllm/model_executor/models/config.py
    // NemotronHForCausalLMConfig.update_mamba_ssm_cache_dtype: float16 when absent from 0.13 (PR
    // #29978) to 0.19; float32 from 0.20 (PR #39032, merged after 0.19.0): the reader marks the default
    // (recurrent_state::ssm_dtype_defaulted) and engines/vllm.hpp stage_types replaces it from 0.20.
    {.model_type = "nemotron_h", .source = "NemotronHConfig (models/nemotron_h/configuration_nemotron_h.py)",
     .one_block_per_layer = true, .gated_mlp = false, .rotary_none = true, .score_correction_bias = true,
     .expert_latent_key = "moe_latent_size",
     .nested_defaults = R"({"intermediate_size":21504})",
     .ssm_dtype_key = "mamba_ssm_cache_dtype", .ssm_dtype_default = "float16",
     .ssm_dtype_source = "vLLM 0.13 to 0.19's NemotronHForCausalLMConfig.update_mamba_ssm_cache_dtype "
                         "(vllm/model_executor/models/config.py; float16 when absent, vllm-project/vllm PR #29978; "
                         "float32 from 0.20, PR #39032)"},
    // Hybrids with Mamba state.
    {.model_type = "jamba", .source = "JambaConfig (models/jamba/configuration_jamba.py)", .layers = layer_rule::jamba_period,
     .mixer = mixer_rule::mamba1, .rotary_none = true, .single_expert_dense = true, .expert_layer_period = true,
     .nested_defaults = R"({"intermediate_size":14336})"},
    // No intermediate_size default: GraniteMoeHybridDecoderLayer gives it to the experts only; the MLP every
    // layer has is shared_mlp, of shared_intermediate_size.
    {.model_type = "granitemoehybrid", .source = "GraniteMoeHybridConfig (models/granitemoehybrid/configuration_granitemoehybrid.py)"},
    {.model_type = "falcon_h1", .source = "FalconH1Config (models/falcon_h1/configuration_falcon_h1.py)", .layers = layer_rule::falcon_h1,
     .nested_defaults = R"({"intermediate_size":14336})"},
};
// clang-format on

/// The row of `model_type` in `table` (the built-in one unless a caller brings its own), or null.
[[nodiscard]] constexpr auto find_family(std::string_view model_type, std::span<const family> table = families)
    -> const family* {
  for (const auto& f : table) {
    if (f.model_type == model_type) {
      return &f;
    }
  }
  return nullptr;
}

/// The config class's name: the first word of `source` ("GPT2Config (models/...)" → "GPT2Config").
[[nodiscard]] constexpr auto config_class(const family& f) -> std::string_view {
  return f.source.substr(0, f.source.find(' '));
}

}  // namespace kvsize::hf::detail
