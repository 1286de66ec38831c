// SPDX-License-Identifier: MIT
// kvsize::engines::sglang: the factor SGLang puts on its default mem_fraction_static for a vision model, from the
// size of the vision tower. Part of the SGLang engine (engines/sglang.hpp). Standard library only, constexpr.
//
// Sources (sgl-project/sglang, python/sglang/srt/server_args.py; docs/research/sglang-fraction-history.md):
// - v0.4.9.post3 – v0.5.18 ServerArgs.adjust_mem_fraction_for_vlm (PR #6881), called where the default is computed
//   (`if self.mem_fraction_static is None`: __post_init__ to v0.5.3rc2, _handle_gpu_memory_settings from v0.5.3),
//   for model_config.is_multimodal (and not --language-only from v0.5.9, not a PD decode node from v0.5.17): with
//   L = getattr(vision_config, "num_hidden_layers", 24) and H = getattr(vision_config, "hidden_size", 1024),
//   fraction × 0.95 · clamp(1 − 0.1 · (L·H² / (24·1024²) − 1), 0.8, 1.05), after round(…, 3) and not rounded again.
//   The Qwen vision configs name their depth `depth` and define no num_hidden_layers: L is 24 for them.
// - v0.4.9 – v0.4.9.post2: × 0.90 on the default (PR #7748). Up to v0.4.8.post1 ModelRunner.__init__ multiplies the
//   fraction it runs with, a given one too, by 0.90 (0.95 up to v0.4.4.post3), not the printed server_args value
//   (runner_vlm_factor: the budget takes it, the command line gives the fraction before it).
// - v0.5.18 (mem_cache/kv_cache_configurator.py KVCacheConfigurator._profile_available_bytes, mm_runtime_reservation_gb)
//   also keeps a multimodal model's post-sizing allocations out of the KV pool after the fraction: SGLANG_VLM_CACHE_SIZE_MB
//   (environ.py, 100 by default), plus SGLANG_MM_FEATURE_CACHE_MB (1,024) under --mm-feature-transport cuda_ipc or
//   cuda_vmm, which a single node runs only when asked (server_args.py _handle_multimodal_feature_transport: cpu).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>    // std::clamp
#include <cstdint>      // std::uint32_t
#include <optional>     // std::optional
#include <string_view>  // std::string_view

#include "../bytes.hpp"
#include "sglang_graph_class.hpp"
#include "sglang_release.hpp"

namespace kvsize::engines::sglang {

/// A model SGLang takes as multimodal (ModelConfig.is_multimodal: not Gemma 3, Llama 4, Step3-VL or Inkling by default) and its vision
/// tower as adjust_mem_fraction_for_vlm reads it: vision_config's num_hidden_layers (24 where the config has none)
/// and hidden_size (1024 where none, or 0); layers 0: no vision_config, no factor from 0.4.9.post3.
struct vlm_tower {
  bool multimodal = false;
  std::uint32_t layers = 0;
  std::uint32_t hidden = 0;
  /// A class mm_disabled_models turns off from 0.4.6 (Gemma 3, Llama 4): multimodal to the releases before it.
  bool multimodal_before_0_4_6 = false;
  /// Llama4ForConditionalGeneration: multimodal to 0.4.5.post1 – 0.4.5.post2 only (0.4.5's list leaves it out).
  bool llama4 = false;
};

/// ModelConfig.is_multimodal (model_config.py): a class of multimodal_model_archs (graph_lists::sglang_multimodal_archs)
/// or a config that keeps its language model in a text_config of its own, except the classes mm_disabled_models turns
/// off from 0.4.6 (Gemma 3, Llama 4, Step3-VL, Inkling). A text class on a graph list (MiniMaxM3SparseForCausalLM,
/// Qwen3-Next) is not.
[[nodiscard]] constexpr auto is_multimodal(std::string_view architecture, bool text_config_apart) -> bool {
  return !graph_lists::names(graph_lists::sglang_multimodal_off_by_default, architecture) &&
         (text_config_apart || graph_lists::names(graph_lists::sglang_multimodal_archs, architecture));
}

/// The first release with mm_disabled_models (model_config.py): before it Gemma 3 and Llama 4 count as multimodal.
inline constexpr release mm_disabled_models_since{.minor = 4, .patch = 6, .rc = 0, .candidate = false, .post = 0};

/// The tower as adjust_mem_fraction_for_vlm reads it, from config.json: architectures[0] and whether the language
/// model sits in a text_config of its own (is_multimodal), whether vision_config is
/// an object, and its num_hidden_layers and hidden_size by those names where given
/// (hf::parsed_config::vision_num_hidden_layers, vision_hidden_size); getattr's 24 and 1024 where not (the Qwen
/// towers name their depth `depth`, which SGLang does not read, so L is 24 for them). No vision_config: layers 0.
[[nodiscard]] constexpr auto vlm_tower_of(std::string_view architecture, bool text_config_apart, bool vision_config_given,
                                          std::optional<std::uint32_t> layers, std::optional<std::uint32_t> hidden)
    -> vlm_tower {
  vlm_tower t;
  t.multimodal = is_multimodal(architecture, text_config_apart);
  t.multimodal_before_0_4_6 =
      t.multimodal || graph_lists::names(graph_lists::sglang_multimodal_off_by_default, architecture);
  t.llama4 = architecture == "Llama4ForConditionalGeneration";
  if (t.multimodal && vision_config_given) {
    t.layers = layers.value_or(24);
    t.hidden = hidden.value_or(1024);
  }
  return t;
}

/// 0.95 · clamp(1 − 0.1 · (L·H² / (24·1024²) − 1), 0.8, 1.05), in Python's order of operations (the product L·H² is
/// exact in a double below 2^53). Qwen3-VL (L 24, H 1152): 0.924765625; CLIP ViT-L/14 (24, 1024): 0.95.
[[nodiscard]] constexpr auto vlm_fraction_factor(vlm_tower t) -> double {
  if (!t.multimodal || t.layers == 0) {
    return 1.0;
  }
  const double hidden = t.hidden == 0 ? 1024.0 : static_cast<double>(t.hidden);  // getattr's default
  const double complexity = static_cast<double>(t.layers) * hidden * hidden;
  const double ratio = complexity / (24.0 * 1024.0 * 1024.0);
  const double dynamic = std::clamp(1.0 - 0.1 * (ratio - 1.0), 0.8, 1.05);
  return 0.95 * dynamic;
}

/// The first release with adjust_mem_fraction_for_vlm, and the first with the flat × 0.90 on the default.
inline constexpr release vlm_tower_factor_since{.minor = 4, .patch = 9, .rc = 0, .candidate = false, .post = 3};
inline constexpr release vlm_default_factor_since{.minor = 4, .patch = 9, .rc = 0, .candidate = false, .post = 0};
/// Before 0.4.9 ModelRunner scales the fraction it runs with, a given one too, for a multimodal model: by 0.90 from
/// 0.4.4.post4, 0.95 before (not the value server_args prints; runner_vlm_factor).
inline constexpr release vlm_runner_0_90_since{.minor = 4, .patch = 4, .rc = 0, .candidate = false, .post = 4};

/// The factor release `v` puts on the default fraction of model `t` (1: none). Releases before 0.4.9 scale the
/// fraction the runner uses instead (runner_vlm_factor).
[[nodiscard]] constexpr auto vlm_default_factor(vlm_tower t, const release& v) -> double {
  if (!t.multimodal || !at_least(v, vlm_default_factor_since)) {
    return 1.0;
  }
  return at_least(v, vlm_tower_factor_since) ? vlm_fraction_factor(t) : 0.90;
}

/// The first release whose multimodal test lets Llama 4 through (0.4.5.post1 compares a list to a string, so its
/// exclusion never holds; 0.4.5's list leaves Llama 4 out with a TODO; 0.4.6's mm_disabled_models turns it off).
inline constexpr release llama4_multimodal_since{.minor = 4, .patch = 5, .rc = 0, .candidate = false, .post = 1};

/// The factor ModelRunner of release `v` (model_runner.py, __init__; model_specific_adjustment from 0.4.3.post4)
/// puts on the fraction it runs with, a given one too, for model `t` (`if self.is_multimodal:
/// self.mem_fraction_static *= …`, before 0.4.9; server_args prints the fraction unscaled): 0.95 to 0.4.4.post3,
/// 0.90 from 0.4.4.post4; Gemma 3 counts before 0.4.6, Llama 4 in 0.4.5.post1 – 0.4.5.post2. 1 from 0.4.9, which
/// scales the default instead (vlm_default_factor).
[[nodiscard]] constexpr auto runner_vlm_factor(vlm_tower t, const release& v) -> double {
  if (at_least(v, vlm_default_factor_since)) {
    return 1.0;
  }
  const bool before_0_4_6 = t.multimodal_before_0_4_6 && (!t.llama4 || at_least(v, llama4_multimodal_since));
  if (!(at_least(v, mm_disabled_models_since) ? t.multimodal : before_0_4_6)) {
    return 1.0;
  }
  return at_least(v, vlm_runner_0_90_since) ? 0.90 : 0.95;
}

/// The first release that reserves a multimodal model's embedding cache out of the KV budget (0.5.18,
/// mm_runtime_reservation_gb: "Reserving 0.10 GB of the KV budget for post-sizing multimodal allocations").
inline constexpr release multimodal_reserve_since = release_0_5(18);
/// SGLANG_VLM_CACHE_SIZE_MB's default, 100 MiB: rest_memory (GiB) loses reserved_mb / 1024, and int(rest × 2^30) makes
/// it 100 × 2^20 bytes exactly. The feature-transport pools' 1,024 MiB are not in it (opt-in on one node).
inline constexpr bytes vlm_cache_reserve = MiB * 100;

/// What release `v` keeps out of the KV pool for model `t` beyond the fraction: vlm_cache_reserve for a multimodal
/// model from 0.5.18, else nothing.
[[nodiscard]] constexpr auto multimodal_reserve(vlm_tower t, const release& v) -> bytes {
  return t.multimodal && at_least(v, multimodal_reserve_since) ? vlm_cache_reserve : bytes{0};
}

}  // namespace kvsize::engines::sglang
