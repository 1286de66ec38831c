// SPDX-License-Identifier: MIT
// What each layer of a GGUF model keeps: attention K/V (full, sliding, chunked, latent), a
// recurrent state, another layer's cache, or nothing; decided as llama.cpp decides it (head_count_kv
// per layer, the architecture's window / recurrence / sharing rule in gguf_arch.hpp), with the
// key or rule that decided each layer.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint32_t
#include <string>   // std::string
#include <vector>   // std::vector

#include "../model_spec.hpp"
#include "gguf_arch.hpp"
#include "gguf_error.hpp"
#include "gguf_keys.hpp"
#include "gguf_layers.hpp"

namespace kvsize::gguf::detail {

/// Which layers slide (true) under the architecture's rule, or an empty vector for none;
/// `why` says what decided. llama.cpp load_swa_pattern: the pattern key as an array, else as a
/// UINT32 period, else the architecture's period; set_swa_pattern: il slides iff il % n < n − 1.
[[nodiscard]] inline auto sliding_layers(const key_reader& k, const arch_window& w, std::uint32_t layers,
                                         std::string& why) -> std::vector<bool> {
  const std::string key = k.arch_key("attention.sliding_window_pattern");
  const gguf_kv* kv = k.find(key);
  std::vector<bool> out(layers, false);
  if (kv != nullptr && kv->value.type == gguf_type::array) {
    const auto flags = *k.per_layer(key, layers);
    for (std::uint32_t il = 0; il < layers; ++il) {
      out[il] = flags[il] != 0;
    }
    why = key + "[i] = true";
    return out;
  }
  if (w.rule == window_rule::pattern_array) {
    throw gguf_error(kv == nullptr ? gguf_errc::missing_key : gguf_errc::wrong_type, k.file(),
                     kv != nullptr ? kv->offset : 0, "key \"" + key + "\"",
                     std::string("expected an array with one flag per layer (") + std::string(w.source) +
                         " requires it)");
  }
  const std::uint32_t period = k.u32(key).value_or(w.period);
  for (std::uint32_t il = 0; il < layers; ++il) {
    out[il] = period == 0 || (w.dense_first ? il % period != 0 : il % period < period - 1);
  }
  const std::string test = w.dense_first ? "i % " + count_text(period) + " != 0"
                                         : "i % " + count_text(period) + " < " + count_text(period - 1);
  why = (kv != nullptr ? key + " = " + count_text(period) : "period " + count_text(period) + " of " +
                                                                std::string(w.source)) +
        " (layer i slides iff " + (period == 0 ? std::string("always") : test) + ")";
  return out;
}

/// The window size, and whether the architecture's rule turns sliding layers on at all.
[[nodiscard]] inline auto window_size(const key_reader& k, const arch_window& w, std::string& from) -> std::uint32_t {
  const std::string key = k.arch_key("attention.sliding_window");
  const auto v = k.u32(key);
  if (w.rule == window_rule::chunked) {  // llama4: the key only switches chunking off (= 0)
    from = "the chunk of " + std::string(w.source);
    return v && *v == 0 ? 0 : w.default_window;
  }
  if (!v && w.default_window == 0 && w.rule != window_rule::when_window) {
    throw gguf_error(gguf_errc::missing_key, k.file(), 0, "key \"" + key + "\"",
                     "absent; " + std::string(w.source) + " requires it");
  }
  from = v ? key : "the default of " + std::string(w.source);
  return v.value_or(w.default_window);
}

/// Marks the windowed layers (sliding or chunked) of an architecture with a window rule, and gives
/// them the SWA head dims (attention.key_length_swa / value_length_swa) where those differ.
inline void apply_windows(const key_reader& k, kvsize::model_spec& m, std::vector<std::string>& why) {
  const arch_window* w = window_of(k.arch());
  const bool lfm2_window = recurrence_of(k.arch()) == recurrent_rule::kv_less_short_conv;
  const std::string window_key = k.arch_key("attention.sliding_window");
  if (w == nullptr && !lfm2_window) {
    return;  // llama.cpp sets no window type for this architecture (plan_layers warns of the key)
  }
  if (lfm2_window) {  // src/models/lfm2.cpp: a window > 0 applies to every attention layer
    const std::uint32_t size = k.u32(window_key).value_or(0);
    if (size == 0) {
      return;
    }
    m.sliding_window = size;
    for (std::uint32_t il = 0; il < m.layers; ++il) {
      if (m.layer[il].kind == layer_kind::full) {
        m.layer[il].kind = layer_kind::sliding;
        why[il] += "; window from " + window_key + " = " + count_text(size);
      }
    }
    return;
  }
  if (w->rule == window_rule::disabled || (w->only_with_layers != 0 && m.layers != w->only_with_layers)) {
    return;
  }
  std::string from;
  const std::uint32_t size = window_size(k, *w, from);
  if (size == 0) {
    return;  // gemma3 without a window, llama4 with sliding_window = 0: full attention
  }
  std::string pattern_why;
  const std::vector<bool> slides = sliding_layers(k, *w, m.layers, pattern_why);
  const bool chunked = w->rule == window_rule::chunked;
  (chunked ? m.attention_chunk : m.sliding_window) = size;
  const auto hd = k.u32(k.arch_key("attention.key_length_swa"));
  const auto hdv = k.u32(k.arch_key("attention.value_length_swa"));
  for (const char* name : {"attention.key_length_swa", "attention.value_length_swa"}) {
    const auto v = k.u32(k.arch_key(name));
    if (v && (*v == 0 || *v > 0xFFFFU)) {
      k.fail(gguf_errc::out_of_range, k.find(k.arch_key(name)), k.arch_key(name),
             "expected a head size of 1 to 65535, got " + count_text(*v));
    }
  }
  for (std::uint32_t il = 0; il < m.layers; ++il) {
    if (!slides[il] || m.layer[il].kind != layer_kind::full) {
      continue;
    }
    m.layer[il].kind = chunked ? layer_kind::chunked : layer_kind::sliding;
    why[il] += "; " + pattern_why + "; " + (chunked ? "chunk" : "window") + " " + count_text(size) + " from " + from;
    // llama.cpp (load_hparams): n_embd_head_k_swa / _v_swa default to the full layers' K and V sizes.
    const std::uint32_t k_swa = hd.value_or(effective_head_dim(m));
    const std::uint32_t v_swa = hdv.value_or(effective_head_dim_v(m));
    if (k_swa != effective_head_dim(m) || v_swa != effective_head_dim_v(m)) {
      m.layer[il].head_dim = static_cast<std::uint16_t>(k_swa);  // ≤ 0xFFFF: checked below
      m.layer[il].head_dim_v = static_cast<std::uint16_t>(v_swa);
    }
  }
}

/// Layers from n_layer_kv_from_start on read an earlier layer's cache: gemma3n from layer 20
/// (hard-coded), gemma4 from block_count − attention.shared_kv_layers.
inline void apply_shared(const key_reader& k, kvsize::model_spec& m, std::vector<std::string>& why) {
  std::uint32_t from = m.layers;
  std::string rule;
  if (const arch_window* w = window_of(k.arch()); w != nullptr && w->shared_from != 0) {
    from = w->shared_from;
    rule = std::string(w->source);
  } else if (const auto shared = k.arch() == "gemma4" ? k.u32(k.arch_key("attention.shared_kv_layers"))
                                                     : std::optional<std::uint32_t>{};  // gemma4.cpp reads it
             shared && *shared != 0) {
    if (*shared >= m.layers) {
      k.fail(gguf_errc::out_of_range, k.find(k.arch_key("attention.shared_kv_layers")),
             k.arch_key("attention.shared_kv_layers"),
             "expected fewer than block_count (" + count_text(m.layers) + "), got " + count_text(*shared));
    }
    from = m.layers - *shared;
    rule = k.arch_key("attention.shared_kv_layers") + " = " + count_text(*shared);
  }
  for (std::uint32_t il = from; il < m.layers; ++il) {
    if (m.layer[il].kind != layer_kind::none) {
      m.layer[il].kind = layer_kind::shared;
      why[il] = "reads an earlier layer's cache (" + rule + ")";
    }
  }
}

/// Multi-head latent attention (deepseek2, mistral4): one latent of kv_lora_rank + rope elements per
/// token, where the file has key_length_mla and value_length_mla (the converter writes the cache's
/// shape as key_length = kv_lora_rank + rope, value_length = kv_lora_rank, head_count_kv = 1, and
/// llama.cpp allocates no V: llama-kv-cache.cpp has_v = !is_mla). Without them, an ordinary cache.
inline auto latent_keys(const key_reader& k) -> bool {
  const auto rank = k.u32(k.arch_key("attention.kv_lora_rank"));
  return rank && *rank != 0 && k.find(k.arch_key("attention.key_length_mla")) != nullptr &&
         k.find(k.arch_key("attention.value_length_mla")) != nullptr;
}

inline void apply_latent(const key_reader& k, kvsize::model_spec& m) {
  if (!latent_keys(k)) {
    return;  // older files, minicpm3, plm: an ordinary cache from key_length / value_length
  }
  const std::uint32_t rank = *k.u32(k.arch_key("attention.kv_lora_rank"));
  const std::uint32_t rope = k.required_u32(k.arch_key("rope.dimension_count"));
  const std::uint32_t qk = *k.u32(k.arch_key("attention.key_length_mla"));
  const std::uint32_t v = *k.u32(k.arch_key("attention.value_length_mla"));
  if (qk <= rope) {
    k.fail(gguf_errc::invalid, k.find(k.arch_key("rope.dimension_count")), k.arch_key("rope.dimension_count"),
           "expected fewer than the K head dimension (" + count_text(qk) + "), got " + count_text(rope));
  }
  m.latent = {rank, rope, qk - rope, v, 0};
  m.head_dim = qk;
  m.head_dim_v = v;
}

/// minimax-m3 (llama.cpp src/llama-model.cpp llama_model::create_memory, case LLM_ARCH_MINIMAX_M3; src/models/
/// minimax-m3.cpp load_arch_hparams): a llama_kv_cache_msa whose index cache holds, on every layer from
/// leading_dense_block_count on (optional: 0), one key of attention.indexer.key_length elements (layer_kind::indexed).
/// conversion/minimax.py writes that count from moe_layer_freq's leading zeros and the width from sparse_index_dim.
inline void apply_sparse_index(const key_reader& k, kvsize::model_spec& m, std::vector<std::string>& why) {
  if (k.arch() != "minimax-m3") {
    return;
  }
  const std::string dense_key = k.arch_key("leading_dense_block_count");
  const std::string width_key = k.arch_key("attention.indexer.key_length");
  const std::uint32_t dense = k.u32(dense_key).value_or(0);
  m.sparse_index_dim = k.required_u32(width_key);
  if (m.sparse_index_dim == 0 || m.sparse_index_dim > 0xFFFFU) {
    k.fail(gguf_errc::out_of_range, k.find(width_key), width_key,
           "expected 1 to 65535 elements, got " + count_text(m.sparse_index_dim));
  }
  for (std::uint32_t il = dense; il < m.layers; ++il) {
    if (m.layer[il].kind == layer_kind::full) {
      m.layer[il].kind = layer_kind::indexed;
      why[il] += "; an index key of " + width_key + " = " + count_text(m.sparse_index_dim) + " (layer ≥ " +
                 dense_key + " = " + count_text(dense) + ")";
    }
  }
}

/// Which of the first `trunk` layers are recurrent by the interval rules, as load_hparams of qwen3next /
/// qwen35 / qwen35moe (Gated DeltaNet, recurrent_rule::interval) and minimax-01 (lightning attention,
/// recurrent_rule::lightning_interval) decides: the attention.recurrent_layers flags when the file has them,
/// else every layer but each full_attention_interval-th (default 4, and 8 for minimax-01: layers 3, 7, 11, …
/// or 7, 15, 23, … attend). `why` says which.
[[nodiscard]] inline auto interval_recurrent(const key_reader& k, std::uint32_t layers, std::uint32_t trunk,
                                             std::uint32_t default_interval, std::string& why) -> std::vector<bool> {
  std::vector<bool> out(layers, false);
  const std::string flags_key = k.arch_key("attention.recurrent_layers");
  if (const auto flags = k.per_layer(flags_key, layers, gguf_type::boolean)) {
    for (std::uint32_t il = 0; il < trunk; ++il) {
      out[il] = (*flags)[il] != 0;
    }
    why = flags_key + "[i] = true";
    return out;
  }
  const std::string interval_key = k.arch_key("full_attention_interval");
  const std::uint32_t interval = k.u32(interval_key).value_or(default_interval);
  if (interval == 0) {  // llama.cpp would divide by it
    k.fail(gguf_errc::out_of_range, k.find(interval_key), interval_key, "expected 1 or more, got 0");
  }
  for (std::uint32_t il = 0; il < trunk; ++il) {
    out[il] = (il + 1) % interval != 0;
  }
  why = (k.find(interval_key) != nullptr ? interval_key + " = " + count_text(interval)
                                         : interval_key + " absent: " + k.arch() + "'s default " +
                                               count_text(default_interval)) +
        ": layer i attends iff (i + 1) % " + count_text(interval) + " == 0";
  return out;
}

/// Refuses an architecture whose layers llama.cpp decides by a rule kvsize does not encode, by name.
inline void refuse_unencoded(const key_reader& k, recurrent_rule rec) {
  const char* unencoded = rec == recurrent_rule::unencoded ? "recurrent layers"
                          : window_unencoded(k.arch())     ? "sliding-window layers"
                                                           : unencoded_cache(k.arch());
  if (unencoded != nullptr) {
    throw gguf_error(gguf_errc::unsupported, k.file(), 0, "key \"general.architecture\"",
                     "\"" + k.arch() + "\": llama.cpp gives this architecture " + unencoded +
                         " by a rule kvsize does not encode yet");
  }
}

/// The recurrent state of the architecture's state-keeping layers, and the keys its loader requires.
inline void read_recurrence(const key_reader& k, recurrent_rule rec, kvsize::model_spec& m) {
  if (rec == recurrent_rule::none) {
    return;
  }
  read_state(k, rec, m);
  if (rec == recurrent_rule::kv_less_kda && !latent_keys(k)) {
    // kimi-linear.cpp's attention layers are MLA only: its loader requires the latent keys.
    for (const char* name : {"attention.kv_lora_rank", "attention.key_length_mla", "attention.value_length_mla"}) {
      (void)k.required_u32(k.arch_key(name));
    }
    k.fail(gguf_errc::out_of_range, k.find(k.arch_key("attention.kv_lora_rank")), k.arch_key("attention.kv_lora_rank"),
           "expected a latent rank above 0 (kimi-linear's attention layers are MLA)");
  }
  if (rec == recurrent_rule::every_layer && m.attention_heads == 0) {
    // Mamba files write head_count 0 (no attention anywhere): a one-head placeholder keeps the
    // spec valid; no layer keeps KV, so no figure uses it.
    m.attention_heads = 1;
    m.head_dim = m.hidden_size;
  }
}

/// Sets each layer's kind, KV heads and head dims in `m`; returns each layer's reason.
inline auto plan_layers(const key_reader& k, kvsize::model_spec& m, std::vector<std::string>& warnings)
    -> std::vector<std::string> {
  const std::uint32_t n = m.layers;
  const std::string kv_key = k.arch_key("attention.head_count_kv");
  const auto kv_read = k.per_layer(kv_key, n);  // load_hparams: a copy of head_count (per layer) unless given
  const auto kv = kv_read ? *kv_read
                          : k.per_layer(k.arch_key("attention.head_count"), n)
                                .value_or(std::vector<std::uint32_t>(n, m.attention_heads));
  const std::string kv_why = kv_read ? kv_key + " = " : kv_key + " absent: KV heads = head_count = ";
  const recurrent_rule rec = recurrence_of(k.arch());
  refuse_unencoded(k, rec);
  read_recurrence(k, rec, m);
  const auto ff = k.per_layer(k.arch_key("feed_forward_length"), n);
  const std::uint32_t latent_rank = latent_keys(k) ? *k.u32(k.arch_key("attention.kv_lora_rank")) : 0;
  // Blocks past n_layer() = block_count − nextn_predict_layers are multi-token-prediction heads:
  // llama.cpp's main context caches none of them (llama-model.cpp create_memory's layer filter).
  const std::uint32_t nextn = k.u32(k.arch_key("nextn_predict_layers")).value_or(0);
  const std::uint32_t cached = nextn < n ? n - nextn : n;
  std::string interval_why;
  const bool by_interval = rec == recurrent_rule::interval || rec == recurrent_rule::lightning_interval;
  const std::vector<bool> gated_delta =
      by_interval ? interval_recurrent(k, n, cached, rec == recurrent_rule::interval ? 4U : 8U, interval_why)
                  : std::vector<bool>(n, false);
  std::vector<std::string> why(n);
  std::uint32_t model_kv = 0;
  for (std::uint32_t il = 0; il < n; ++il) {
    layer_spec& l = m.layer[il];
    if (il >= cached) {
      l.kind = layer_kind::none;
      why[il] = "a multi-token-prediction block (" + k.arch_key("nextn_predict_layers") + " = " +
                count_text(nextn) + "): not cached by the main context";
      continue;
    }
    const bool kv_less = kv[il] == 0;
    if (rec == recurrent_rule::every_layer || gated_delta[il] ||
        (kv_less && (rec == recurrent_rule::kv_less || rec == recurrent_rule::kv_less_short_conv ||
                     rec == recurrent_rule::kv_less_kda ||
                     (rec == recurrent_rule::kv_and_ff_less && (!ff || (*ff)[il] == 0))))) {
      l.kind = layer_kind::none;
      l.recurrent = true;
      why[il] = "recurrent state (" + (rec == recurrent_rule::every_layer ? "every " + k.arch() + " layer"
                                       : by_interval                      ? interval_why
                                                                          : kv_key + "[i] = 0") + ")";
      continue;
    }
    if (kv_less) {
      l.kind = layer_kind::none;
      why[il] = kv_key + "[i] = 0: no attention";
      continue;
    }
    if (kv[il] > 0xFFFFU) {
      k.fail(gguf_errc::unsupported, k.find(kv_key), kv_key, "a layer's KV heads exceed 65535");
    }
    if (model_kv == 0) {
      model_kv = kv[il];
    }
    l.kind = latent_rank != 0 ? layer_kind::latent : layer_kind::full;
    l.kv_heads = static_cast<std::uint16_t>(kv[il] == model_kv ? 0 : kv[il]);
    why[il] = latent_rank != 0 ? k.arch_key("attention.kv_lora_rank") + " = " + count_text(latent_rank)
                               : kv_why + count_text(kv[il]);
  }
  m.kv_heads = model_kv != 0 ? model_kv : m.attention_heads;
  apply_latent(k, m);
  apply_sparse_index(k, m, why);
  apply_windows(k, m, why);
  apply_shared(k, m, why);
  if (window_of(k.arch()) == nullptr && recurrence_of(k.arch()) != recurrent_rule::kv_less_short_conv &&
      k.find(k.arch_key("attention.sliding_window")) != nullptr) {
    warnings.push_back(k.arch_key("attention.sliding_window") + " is not read: llama.cpp gives " + k.arch() +
                       " no sliding-window layers, so every attention layer keeps the whole context");
  }
  return why;
}

}  // namespace kvsize::gguf::detail
