// SPDX-License-Identifier: MIT
// vLLM's prefix caching and, for models with recurrent layers, the Mamba cache mode it implies:
// how many state pages a request holds per Mamba group, and whether a shared prompt prefix is
// stored once. Part of the vLLM engine (engines/vllm.hpp). Standard library only, constexpr.
//
// Sources (vllm-project/vllm; docs/research/vllm-mamba-cache-mode.md has the release table):
// - vllm/config/model.py ModelConfig.is_prefix_caching_supported: off for hybrid and
//   attention-free models, on for the rest (vllm/engine/arg_utils.py
//   _set_default_chunked_prefill_and_prefix_caching_args); releases 0.10 to 0.19.
// - vllm/model_executor/models/config.py MambaModelConfig.verify_and_update_config (PR #30877,
//   0.15): with --enable-prefix-caching the mode becomes "all" for the classes that declare
//   SupportsMambaPrefixCaching (Mamba, Mamba2, Jamba, Bamba, Zamba2, Falcon-H1, Granite-4.0-H,
//   NemotronH: the Mamba1 and Mamba2 mixers) and "align" for the others (Qwen3-Next, Qwen3.5,
//   LFM2, Kimi-Linear). Releases 0.10 to 0.14 turned prefix caching off for the latter; 0.11 to
//   0.14 kept it for the former with per-block states, like "all".
// - vllm/v1/kv_cache_interface.py MambaSpec.max_memory_usage_bytes: a request holds 1 state page
//   per Mamba group in mode "none", 2 in "align" (the running state and the last block-aligned
//   one), cdiv(max_model_len, block_size) in "all".
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>      // std::uint32_t, std::uint8_t
#include <string_view>  // std::string_view

#include "../model_spec.hpp"
#include "engine_options.hpp"
#include "vllm_startup.hpp"  // release_of

namespace kvsize::engines::vllm {

/// CacheConfig.mamba_cache_mode (vllm/config/cache.py): what a Mamba group keeps per request.
enum class mamba_cache_mode : std::uint8_t {
  none,     ///< the running state only: 1 page
  align,    ///< also the state at the last block boundary, for prefix-cache hits: 2 pages
  all,      ///< a state per block of the sequence (not modelled: refused)
  unknown,  ///< the mixer does not say which of align and all vLLM picks (refused)
};

/// The release that brought the "align" and "all" modes (PR #30877).
inline constexpr std::uint32_t mamba_cache_modes_release = 15;

/// The mixer of the model's recurrent layers is one vLLM gives prefix caching with a state per
/// block (SupportsMambaPrefixCaching: Mamba1 and Mamba2 mixers).
[[nodiscard]] constexpr auto state_per_block_mixer(const model_spec& m) -> bool {
  return m.weights.recurrent.kind == recurrent_kind::mamba1 || m.weights.recurrent.kind == recurrent_kind::mamba2;
}

/// The mixer is known not to declare SupportsMambaPrefixCaching: gated DeltaNet (Qwen3-Next,
/// Qwen3.5), KDA (Kimi-Linear), lightning attention (MiniMaxText01ForCausalLM), or LFM2's short
/// convolutions (their kind from a config.json; a GGUF's model has no mixer kind, and its conv-only
/// state says it). A model read from a GGUF with no mixer kind and no conv-only state is neither this
/// nor the above.
[[nodiscard]] constexpr auto aligned_state_mixer(const model_spec& m) -> bool {
  const recurrent_kind k = m.weights.recurrent.kind;
  return k == recurrent_kind::gated_delta || k == recurrent_kind::kda || k == recurrent_kind::lightning ||
         k == recurrent_kind::short_conv || (k == recurrent_kind::none && m.state.ssm_elements == 0 && m.state.conv_elements != 0);
}

/// Whether vLLM caches prefixes for this model: the knob, else on unless it has recurrent layers.
[[nodiscard]] constexpr auto prefix_caching_on(const model_spec& m, const engine_options& o) -> bool {
  switch (o.vllm.prefix_caching) {
    case vllm_prefix_caching::enabled: return true;
    case vllm_prefix_caching::disabled: return false;
    case vllm_prefix_caching::automatic: break;
  }
  return recurrent_layers(m) == 0;
}

/// The mode vLLM applies. 0.10 turns prefix caching off for every model with recurrent layers;
/// 0.11 to 0.14 for those without SupportsMambaPrefixCaching; a mixer kvsize cannot place on either
/// side (a GGUF input's) gives `unknown` wherever the side decides the mode.
[[nodiscard]] constexpr auto mamba_cache_mode_of(const model_spec& m, const engine_options& o) -> mamba_cache_mode {
  if (recurrent_layers(m) == 0 || !prefix_caching_on(m, o) || release_of(o) <= 10) {
    return mamba_cache_mode::none;
  }
  if (state_per_block_mixer(m)) {
    return mamba_cache_mode::all;
  }
  if (!aligned_state_mixer(m)) {
    return mamba_cache_mode::unknown;
  }
  return release_of(o) >= mamba_cache_modes_release ? mamba_cache_mode::align : mamba_cache_mode::none;
}

/// The release from which vLLM's V1 engine keeps MiniMax's lightning state as a Mamba-style page
/// (PR #22151, "[V1] [Hybrid] Support Minimax-Text-01 in V1", in 0.10.1); 0.10.0 ran the model on
/// the V0 engine with a MinimaxCacheManager of its own. kvsize names releases by minor, so 0.10 is refused.
inline constexpr std::uint32_t lightning_v1_release = 11;

/// Why vLLM's cache for this model under these options is not modelled or not served, in words; empty
/// when it is: lightning attention before lightning_v1_release, or with a float32 state, which
/// mamba_utils.py linear_attention_state_dtype refuses from PR #22928 (August 2025, in 0.11) until upstream
/// ed57f7719 (2026-04-28) removed the check, within the commits 0.20 was cut from (so 0.20 is not refused):
/// "fp32 state for minimax is not yet supported".
[[nodiscard]] constexpr auto lightning_refusal(const model_spec& m, const engine_options& o) -> std::string_view {
  if (m.weights.recurrent.kind != recurrent_kind::lightning) {
    return {};
  }
  if (release_of(o) < lightning_v1_release) {
    return "kvsize: vLLM ran MiniMax's lightning attention on its V0 engine (its own cache) until PR #22151 (in "
           "0.10.1) gave it the V1 state page kvsize models; kvsize names releases by minor, so pass "
           "--engine-version 0.11 or later";
  }
  if (o.state_dtype == dtype::f32 && release_of(o) <= 19) {
    return "kvsize: vLLM 0.11 to 0.19 refuse a float32 state for MiniMax's lightning attention "
           "(mamba_utils.py linear_attention_state_dtype: \"fp32 state for minimax is not yet supported\"); leave "
           "state_dtype unset (the model dtype)";
  }
  return {};
}

/// Why this model's Mamba cache mode under these options is not modelled, in words; empty when it
/// is (modes none and align).
[[nodiscard]] constexpr auto mamba_cache_refusal(const model_spec& m, const engine_options& o) -> std::string_view {
  switch (mamba_cache_mode_of(m, o)) {
    case mamba_cache_mode::all:
      return "kvsize: with --enable-prefix-caching vLLM (0.11.1 and later) keeps a state per block for this "
             "model's Mamba mixers (mamba_cache_mode \"all\", chunk-aligned blocks), which is not modelled; without "
             "the flag vLLM keeps one state per request";
    case mamba_cache_mode::unknown:
      return "kvsize: with --enable-prefix-caching vLLM's Mamba cache mode depends on the model class, and this "
             "model's recurrent mixer is not known (a GGUF input has no mixer kind); without the flag vLLM keeps "
             "one state per request";
    case mamba_cache_mode::none:
    case mamba_cache_mode::align: break;
  }
  return {};
}

/// Why vLLM's cache for this model under these options is not modelled or not served, in words; empty
/// when it is: the Mamba cache mode, then lightning attention.
[[nodiscard]] constexpr auto model_refusal(const model_spec& m, const engine_options& o) -> std::string_view {
  const std::string_view mode = mamba_cache_refusal(m, o);
  return !mode.empty() ? mode : lightning_refusal(m, o);
}

/// State pages one request holds per Mamba group (MambaSpec.max_memory_usage_bytes, no speculative
/// tokens): none 1, align 2.
[[nodiscard]] constexpr auto state_pages_per_request(mamba_cache_mode mode) -> std::uint32_t {
  return mode == mamba_cache_mode::align ? 2U : 1U;
}

}  // namespace kvsize::engines::vllm
