// SPDX-License-Identifier: MIT
// What llama.cpp hard-codes per architecture that decides the KV cache, as data: the sliding-window
// rule each src/models/<arch>.cpp sets in its load_arch_hparams, and which architectures keep a
// recurrent state. Read in llama.cpp's src/models/*.cpp and src/llama-arch.cpp (llm_arch_is_recurrent,
// llm_arch_is_hybrid); the table with quoted lines is docs/research/gguf-arch-defaults.md.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>        // std::array
#include <cstdint>      // std::uint8_t, std::uint32_t
#include <string_view>  // std::string_view

namespace kvsize::gguf {

/// How an architecture decides its sliding-window layers (llama_hparams::swa_type and the pattern).
enum class window_rule : std::uint8_t {
  pattern,        ///< standard SWA; load_swa_pattern(ml, period): the key's array or period, else `period`
  pattern_array,  ///< standard SWA; the sliding_window_pattern array is required (gemma4)
  when_window,    ///< as `pattern`, but only when attention.sliding_window is present and > 0 (gemma3)
  chunked,        ///< chunked attention of `default_window` tokens unless sliding_window = 0 (llama4)
  disabled,       ///< a window key is read and ignored: full attention (phi3, llama.cpp PR #13676)
};

struct arch_window {
  std::string_view arch;          ///< general.architecture
  window_rule rule;
  std::uint32_t period;           ///< load_swa_pattern's default n: layer il slides iff il % n < n − 1
  std::uint32_t default_window;   ///< n_swa before the key is read; 0: the key is required
  std::uint32_t only_with_layers; ///< nonzero: the rule applies only to models of this many layers
  std::uint32_t shared_from;      ///< nonzero: layers from this index read an earlier layer's KV (gemma3n)
  bool dense_first;               ///< set_swa_pattern(n, true): layer il slides iff il % n != 0
  std::string_view source;        ///< llama.cpp file that sets it
};

// clang-format off
inline constexpr std::array<arch_window, 17> arch_windows{{
    {"gemma2",       window_rule::pattern,       2, 4096, 0,  0, false, "src/models/gemma2.cpp"},
    {"gemma3",       window_rule::when_window,   6, 0,    0,  0, false, "src/models/gemma3.cpp"},
    {"gemma3n",      window_rule::pattern,       5, 0,    0, 20, false, "src/models/gemma3n.cpp (n_layer_kv_from_start = 20)"},
    {"gemma4",       window_rule::pattern_array, 0, 0,    0,  0, false, "src/models/gemma4.cpp"},
    {"step35",       window_rule::pattern_array, 0, 0,    0,  0, false, "src/models/step35.cpp"},
    {"cohere2",      window_rule::pattern,       4, 0,    0,  0, false, "src/models/cohere2.cpp"},
    {"cohere2moe",   window_rule::pattern,       4, 0,    0,  0, true,  "src/models/cohere2moe.cpp"},
    {"gpt-oss",      window_rule::pattern,       2, 0,    0,  0, false, "src/models/openai-moe.cpp"},
    {"llama4",       window_rule::chunked,       4, 8192, 0,  0, false, "src/models/llama4.cpp"},
    {"exaone4",      window_rule::pattern,       4, 4096, 64, 0, false, "src/models/exaone4.cpp (64-layer models only)"},
    {"exaone-moe",   window_rule::pattern,       4, 0,    0,  0, false, "src/models/exaone-moe.cpp"},
    {"muse-glimmer", window_rule::pattern,       4, 0,    0,  0, false, "src/models/muse-glimmer.cpp"},
    {"olmo2",        window_rule::when_window,   4, 0,    0,  0, false, "src/models/olmo2.cpp"},
    {"afmoe",        window_rule::when_window,   4, 0,    0,  0, false, "src/models/afmoe.cpp"},
    {"mellum",       window_rule::when_window,   4, 0,    0,  0, false, "src/models/mellum.cpp"},
    {"plamo3",       window_rule::when_window,   8, 0,    0,  0, false, "src/models/plamo3.cpp"},
    {"phi3",         window_rule::disabled,      1, 0,    0,  0, false, "src/models/phi3.cpp"},
}};
// clang-format on

/// Architectures whose src/models/<arch>.cpp sets a sliding-window type by a rule kvsize does not
/// encode yet: refused rather than sized as full attention.
inline constexpr std::array<std::string_view, 14> unencoded_window_archs{
    "deepseek4", "dflash", "dots3note", "gemma-embedding", "gemma4-assistant", "granite_swa", "laguna", "maple",
    "mimo2", "modern-bert", "smallthinker", "spark2_5", "graniteswitch", "nanbeige"};

/// How an architecture's layers keep a recurrent state (llama-arch.cpp llm_arch_is_recurrent /
/// llm_arch_is_hybrid, and the is_recr_impl rule of its src/models file).
enum class recurrent_rule : std::uint8_t {
  none,
  every_layer,          ///< mamba, mamba2: every layer keeps a Mamba state
  kv_less,              ///< jamba, granitehybrid: layers with head_count_kv 0 keep a Mamba state
  kv_and_ff_less,       ///< nemotron_h: layers with head_count_kv 0 and feed_forward_length 0 (else MLP-only)
  kv_less_short_conv,   ///< lfm2: layers with head_count_kv 0 keep a short-conv state; a window, if
                        ///< any, applies to every attention layer
  kv_less_kda,          ///< kimi-linear: layers with head_count_kv 0 keep a KDA (Kimi delta attention)
                        ///< state; the others are MLA (kimi-linear.cpp; llama-hparams.cpp n_embd_r/n_embd_s)
  interval,             ///< qwen3next, qwen35, qwen35moe (Gated DeltaNet): attention.recurrent_layers per
                        ///< layer, else every layer but each full_attention_interval-th (default 4) of
                        ///< the n_layer() trunk; the multi-token-prediction blocks are not recurrent
  lightning_interval,   ///< minimax-01 (lightning attention): the same layer rule with a default interval of 8
                        ///< (minimax-01.cpp), a state of key_length² × head_count and no conv (n_embd_s)
  unencoded,            ///< recurrent or hybrid by a rule kvsize does not encode yet: refused
};

struct arch_recurrence {
  std::string_view arch;
  recurrent_rule rule;
};

// clang-format off
inline constexpr std::array<arch_recurrence, 22> arch_recurrences{{
    {"mamba", recurrent_rule::every_layer},             {"mamba2", recurrent_rule::every_layer},
    {"jamba", recurrent_rule::kv_less},                 {"granitehybrid", recurrent_rule::kv_less},
    {"nemotron_h", recurrent_rule::kv_and_ff_less},     {"nemotron_h_moe", recurrent_rule::kv_and_ff_less},
    {"lfm2", recurrent_rule::kv_less_short_conv},       {"lfm2moe", recurrent_rule::kv_less_short_conv},
    {"rwkv6", recurrent_rule::unencoded},               {"rwkv6qwen2", recurrent_rule::unencoded},
    {"rwkv7", recurrent_rule::unencoded},               {"arwkv7", recurrent_rule::unencoded},
    {"falcon-h1", recurrent_rule::unencoded},           {"plamo2", recurrent_rule::unencoded},
    {"qwen3next", recurrent_rule::interval},            {"qwen35", recurrent_rule::interval},
    {"qwen35moe", recurrent_rule::interval},            {"kimi-linear", recurrent_rule::kv_less_kda},
    {"kimi-k3", recurrent_rule::unencoded},             {"bailingmoe3", recurrent_rule::unencoded},
    {"minimax-01", recurrent_rule::lightning_interval},          {"qwen4exp", recurrent_rule::unencoded},
}};
// clang-format on

[[nodiscard]] constexpr auto window_of(std::string_view arch) -> const arch_window* {
  for (const auto& w : arch_windows) {
    if (w.arch == arch) {
      return &w;
    }
  }
  return nullptr;
}

[[nodiscard]] constexpr auto recurrence_of(std::string_view arch) -> recurrent_rule {
  for (const auto& r : arch_recurrences) {
    if (r.arch == arch) {
      return r.rule;
    }
  }
  return recurrent_rule::none;
}

/// Architectures whose cache llama.cpp builds otherwise, by a rule kvsize does not encode yet
/// (docs/research/gguf-arch-defaults.md): an indexer key cache beside the latent one (DSA), or no
/// KV cache at all (encoders: llama_model::create_memory makes none). The words name what differs.
[[nodiscard]] constexpr auto unencoded_cache(std::string_view arch) -> const char* {
  for (const auto a : {"deepseek32", "glm-dsa", "hy_v4"}) {
    if (arch == a) {
      return "an indexer key cache beside its attention cache";
    }
  }
  for (const auto a : {"bert", "nomic-bert", "nomic-bert-moe", "jina-bert-v2", "jina-bert-v3", "neo-bert", "eurobert",
                       "dream", "llada", "llada-moe", "t5encoder"}) {
    if (arch == a) {
      return "no KV cache (an encoder or a diffusion model)";
    }
  }
  return nullptr;
}

[[nodiscard]] constexpr auto window_unencoded(std::string_view arch) -> bool {
  for (const auto a : unencoded_window_archs) {
    if (a == arch) {
      return true;
    }
  }
  return false;
}

}  // namespace kvsize::gguf
