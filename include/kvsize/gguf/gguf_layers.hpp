// SPDX-License-Identifier: MIT
// The attention shape and what each layer keeps, from GGUF keys, as llama.cpp decides them:
// load_hparams (src/llama-model.cpp) for the shape, the architecture's own rule (gguf_arch.hpp)
// for windows, recurrent and shared layers. Sources: docs/research/gguf-format.md §4.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint32_t, std::uint64_t
#include <string>   // std::string
#include <vector>   // std::vector

#include "../detail/checked.hpp"
#include "../model_spec.hpp"
#include "gguf_arch.hpp"
#include "gguf_error.hpp"
#include "gguf_keys.hpp"

namespace kvsize::gguf::detail {

[[nodiscard]] inline auto count_text(std::uint64_t n) -> std::string { return std::to_string(n); }

/// Layers, width, heads, head dimensions, vocabulary, context (load_hparams' first part).
inline void read_shape(const key_reader& k, kvsize::model_spec& m) {
  const std::string bc = k.arch_key("block_count");
  const std::uint32_t layers = k.required_u32(bc);
  if (layers == 0 || layers > kvsize::max_layers) {
    k.fail(layers == 0 ? gguf_errc::out_of_range : gguf_errc::unsupported, k.find(bc), bc,
           "expected 1 to 512 layers (llama.cpp's LLAMA_MAX_LAYERS), got " + count_text(layers));
  }
  m.layers = layers;
  m.hidden_size = k.required_u32(k.arch_key("embedding_length"));
  m.max_context = k.required_u32(k.arch_key("context_length"));
  // n_ff(il) 0 (hparams.n_ff_arr): llama.cpp builds no dense FFN there (nemotron_h's Mamba and attention
  // blocks, deci's no-op blocks, a MoE architecture without the key): ffn_kind::none, so that no layer is
  // taken for a dense MLP of unknown width (first_layer_without_mlp_width).
  const auto ff = k.per_layer(k.arch_key("feed_forward_length"), layers);
  m.intermediate_size = ff ? (*ff)[0] : 0U;
  for (std::uint32_t il = 0; il < layers; ++il) {  // a layer of its own width (deci, nemotron_h): widest_mlp_width
    const std::uint32_t n_ff = ff ? (*ff)[il] : 0U;
    if (n_ff == 0) {
      m.weights.layer[il].ffn = ffn_kind::none;
    } else if (n_ff != m.intermediate_size) {
      m.weights.layer[il].ffn_width = n_ff;
    }
  }
  const auto heads = k.per_layer(k.arch_key("attention.head_count"), layers);
  std::uint32_t h0 = 0;  // the first attention layer's heads: load_hparams' n_head(0) rule
  if (heads) {
    for (const std::uint32_t h : *heads) {
      if (h != 0 && h0 == 0) {
        h0 = h;
      }
    }
    // A layer of other query heads (step35: 96 on its sliding layers, 64 on the full ones; laguna, deci) keeps
    // them as its own (n_head(il)): Q, O and the head gate. The cache is n_head_kv(il) × the head sizes, which
    // come from key_length / value_length or layer 0's heads, so the KV does not depend on them.
    for (std::uint32_t il = 0; il < layers; ++il) {
      const std::uint32_t h = (*heads)[il];
      m.weights.layer[il].query_heads = h != 0 && h != h0 ? h : 0U;
    }
  }
  m.attention_heads = h0;
  if (const auto key_len = k.u32(k.arch_key("attention.key_length"))) {
    m.head_dim = *key_len;
  } else if (h0 != 0) {
    m.head_dim = m.hidden_size / h0;  // llama.cpp: n_embd / n_head(0), integer division
  }
  if (const auto v_len = k.u32(k.arch_key("attention.value_length"))) {
    m.head_dim_v = *v_len;
  } else if (h0 != 0 && m.head_dim != m.hidden_size / h0) {
    m.head_dim_v = m.hidden_size / h0;  // llama.cpp: V keeps n_embd / n_head(0) when only key_length is given
  }
  if (const auto v = k.u32(k.arch_key("vocab_size"))) {
    m.vocab_size = *v;
  } else if (const auto n = k.array_count("tokenizer.ggml.tokens"); n && *n != 0) {
    if (*n > 0xFFFFFFFFULL) {
      k.fail(gguf_errc::out_of_range, k.find("tokenizer.ggml.tokens"), "tokenizer.ggml.tokens",
             "more than 2^32 tokens");
    }
    m.vocab_size = static_cast<std::uint32_t>(*n);
  } else if (k.header().stopped_at == 0) {
    throw gguf_error(gguf_errc::missing_key, k.file(), 0, "key \"" + k.arch_key("vocab_size") + "\"",
                     "absent, and so is tokenizer.ggml.tokens: the vocabulary size is unknown");
  }
  if (const auto nextn = k.u32(k.arch_key("nextn_predict_layers")); nextn && *nextn >= layers) {
    k.fail(gguf_errc::out_of_range, k.find(k.arch_key("nextn_predict_layers")), k.arch_key("nextn_predict_layers"),
           "expected fewer than block_count (" + count_text(layers) + "), got " + count_text(*nextn));
  }
}

/// The Mamba / short-conv state of a recurrent layer (llama_hparams::n_embd_r, n_embd_s).
inline void read_state(const key_reader& k, recurrent_rule rule, kvsize::model_spec& m) {
  if (rule == recurrent_rule::kv_less_short_conv) {
    const std::uint32_t l_cache = k.required_u32(k.arch_key("shortconv.l_cache"));
    m.state.conv_elements = std::uint64_t{m.hidden_size} * (l_cache > 0 ? l_cache - 1 : 0);
    return;
  }
  using kvsize::detail::checked_add;
  using kvsize::detail::checked_mul;  // u32 keys: 2 × groups × d_state alone can pass 2^64
  if (rule == recurrent_rule::lightning_interval) {
    // minimax-01.cpp: n_embd_head_la = the K head size (key_length, else n_embd / n_head); llama_hparams::n_embd_s
    // = n_embd_head_la² × n_head(), and n_embd_r 0 (no convolution).
    const std::uint32_t d = kvsize::effective_head_dim(m);
    m.state.ssm_elements = checked_mul(checked_mul(std::uint64_t{d}, d), std::uint64_t{m.attention_heads});
    // The mixer is known here (unlike the other GGUF hybrids'): the engines that refuse lightning attention
    // (SGLang, TensorRT-LLM, vLLM 0.10) refuse this file too, and the formula counts its projections.
    m.weights.recurrent = {.kind = recurrent_kind::lightning, .heads = m.attention_heads, .head_dim = d};
    return;
  }
  if (rule == recurrent_rule::kv_less_kda) {
    // llama_hparams::n_embd_r: the Q, K and V short convolutions, 3 × (d_conv − 1) × n_head() × head_dim
    // (d_conv − 1 = 3 when the kernel is 0); n_embd_s: one head_dim × head_dim state per head. n_head()
    // is layer 0's head_count; kvsize takes the first non-zero count (read_shape refuses counts that
    // differ), which is the same for the scalar head_count the converter writes.
    const std::uint64_t head_dim = k.required_u32(k.arch_key("kda.head_dim"));
    const std::uint64_t d_conv = k.required_u32(k.arch_key("ssm.conv_kernel"));
    const std::uint64_t d_inner = checked_mul(std::uint64_t{m.attention_heads}, head_dim);
    m.state.conv_elements = checked_mul(3 * (d_conv > 0 ? d_conv - 1 : 3), d_inner);
    m.state.ssm_elements = checked_mul(head_dim, d_inner);
    return;
  }
  // Mamba-1 and Mamba-2, and Gated DeltaNet, whose converter writes its sizes as Mamba-2 keys
  // (conversion: conv_kernel = linear_conv_kernel_dim, state_size = linear_key_head_dim,
  // group_count = linear_num_key_heads, inner_size = linear_value_head_dim × linear_num_value_heads).
  const std::uint64_t d_conv = k.required_u32(k.arch_key("ssm.conv_kernel"));
  const std::uint64_t d_inner = k.required_u32(k.arch_key("ssm.inner_size"));
  const std::uint64_t d_state = k.required_u32(k.arch_key("ssm.state_size"));
  // Mamba-1 has no groups; Gated DeltaNet's loaders (qwen3next.cpp, qwen35*.cpp) require the key.
  const std::string groups_key = k.arch_key("ssm.group_count");
  const std::uint64_t groups =
      rule == recurrent_rule::interval ? k.required_u32(groups_key) : k.u32(groups_key).value_or(0);
  m.state.conv_elements =
      checked_mul(d_conv > 0 ? d_conv - 1 : 0, checked_add(d_inner, checked_mul(2 * groups, d_state)));
  m.state.ssm_elements = checked_mul(d_state, d_inner);
}

}  // namespace kvsize::gguf::detail
