// SPDX-License-Identifier: MIT
// The context vLLM (v1) serves when --max-model-len is not given: vllm/config/model.py _get_and_verify_max_len,
// with the keys from ModelArchConfigConvertorBase.derive_max_model_len_and_key
// (vllm/transformers_utils/model_arch_config_convertor.py from 0.14; vllm/config/model.py before, vllm/config.py in
// 0.10.0 and vllm/config/__init__.py in 0.10.1 – 0.10.2), at the tags v0.10.0 – v0.24.0
// (https://github.com/vllm-project/vllm):
//   1. the smallest of max_position_embeddings, n_positions, max_seq_len, seq_length, model_max_length,
//      max_target_positions, max_sequence_length, max_seq_length, seq_len (not n_ctx);
//   2. model_max_length, where set, over all of them ("For Command-R / Cohere, Cohere2 / Aya Vision models",
//      since 0.8.3): Command-R's 131,072 over its max_position_embeddings 8,192;
//   3. times the rope factor, unless model_type names gemma3 (its max_position_embeddings is already scaled): each
//      rope set whose type is not su, longrope or llama3 gives its factor, and yarn first replaces the length by
//      its original_max_position_embeddings. 0.10 – 0.11 read rope_scaling only; from 0.12 rope_parameters too, and
//      patch_rope_parameters (transformers_utils/config.py) copies a top-level original_max_position_embeddings
//      over the rope set's own;
//   4. from 0.11.1 (PR #27431, "In LongRoPE, decide short vs long based on max_model_len"), a longrope model
//      defaults to the top-level original_max_position_embeddings: Phi-4-mini-instruct serves 4,096 tokens, not
//      131,072. kvsize names a release by its minor, and takes 0.11 as 0.11.1 – 0.11.2 (0.11.0 alone lacks it).
// Where the config (and its class's defaults) states none of the keys of step 1, the length is 2,048
// (_get_and_verify_max_len's default_max_len; RWConfig, the class vLLM loads for Falcon-7B / 40B's RefinedWeb
// configs, sets none), then step 3 applies; a --max-model-len given is then taken as is, unchecked (-1, auto,
// too: the fit then fails, "Cannot auto-fit").
// Above the derived length, a --max-model-len is refused unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 (or it is at most
// the config's model_max_length).
// A key the file leaves out has its config class's default where kvsize knows it (hf/class_context.hpp). Not
// modelled: a platform's check_max_model_len.
// tokenizer_config.json's model_max_length is read for pooling models with absolute positions only
// (ModelConfig.get_and_verify_max_len), never for a generating model.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>  // std::min
#include <cstdint>    // std::uint32_t, std::uint64_t

#include "../model_spec.hpp"
#include "engine_options.hpp"
#include "vllm_startup.hpp"  // release_of

namespace kvsize::engines::vllm {

/// The first release whose longrope models default to original_max_position_embeddings (0.11.1: step 4).
inline constexpr std::uint32_t longrope_original_since_minor = 11;
/// The first release that reads rope_parameters and copies the top-level original length into it (step 3).
inline constexpr std::uint32_t rope_parameters_since_minor = 12;

/// The first release that takes --max-model-len auto (or -1) and fits max_model_len to the KV budget: the longest
/// length (at most the default below) whose one request fits (kv_cache_utils.py _auto_fit_max_model_len, a binary
/// search of _max_memory_usage_bytes_from_groups; kvsize's max_context_in_budget for 1 sequence, device_fit.hpp).
inline constexpr std::uint32_t auto_fit_since_minor = 14;

/// The length vLLM takes where the config states none of its keys (_get_and_verify_max_len's default_max_len).
inline constexpr std::uint64_t no_length_key_default = 2048;

/// The length steps 1 and 2 take from the config's keys (n_ctx is not one of vLLM's); 0 where it states none.
[[nodiscard]] constexpr auto stated_max_model_len(const stated_context& c) -> std::uint64_t {
  std::uint64_t derived = 0;
  for (std::size_t k = 0; k < context_key_count; ++k) {
    if (k != static_cast<std::size_t>(context_key::n_ctx) && c.keys[k] != 0) {
      derived = derived == 0 ? c.keys[k] : std::min(derived, c.keys[k]);
    }
  }
  if (const std::uint64_t model_max = stated(c, context_key::model_max_length); model_max != 0) {
    derived = model_max;
  }
  return derived;
}

/// The context vLLM `release` derives from the config (steps 1–3 above), before the longrope default: from
/// 2,048 where the config states no key (no_length_key_default).
[[nodiscard]] constexpr auto derived_max_model_len(const model_spec& m, std::uint32_t release) -> std::uint64_t {
  const stated_context& c = m.stated;
  const std::uint64_t stated_len = stated_max_model_len(c);
  std::uint64_t derived = stated_len != 0 ? stated_len : no_length_key_default;
  const bool rope_parameters_read = release >= rope_parameters_since_minor;
  if (!c.rope_read || c.rope_entries == 0 || c.gemma3 || (!rope_parameters_read && !c.rope_from_scaling)) {
    return derived;
  }
  double factor = 1.0;
  for (std::uint8_t i = 0; i < c.rope_entries; ++i) {
    const stated_rope& r = c.rope[i];
    if (r.kind == rope_kind::longrope || r.kind == rope_kind::llama3) {
      continue;
    }
    if (r.factor != 0) {
      factor = r.factor;
    }
    if (r.kind == rope_kind::yarn && rope_parameters_read && c.top_original != 0) {
      derived = c.top_original;  // patch_rope_parameters' copy over the set's own
    } else if (r.kind == rope_kind::yarn && r.original_set) {
      derived = r.original;
    }
  }
  return scaled_context(derived, factor);
}

/// The longest max_model_len vLLM takes without an override (VLLM_ALLOW_LONG_MAX_MODEL_LEN): the derived length,
/// above the longrope default (a longer --max-model-len up to it is accepted); 0 (none) where the config states no
/// length, as vLLM then takes a given one unchecked; a spec built by hand: max_context.
[[nodiscard]] constexpr auto max_model_len_limit(const model_spec& m, const engine_options& o) -> std::uint64_t {
  if (!m.stated.keys_read) {
    return m.max_context;
  }
  return stated_max_model_len(m.stated) != 0 ? derived_max_model_len(m, release_of(o)) : 0;
}

/// vLLM's max_model_len when none is given, for release `o` (2,048 × the rope factor where the config states no
/// length). A spec built by hand (stated.keys_read false) gives model_spec::max_context.
[[nodiscard]] constexpr auto default_max_model_len(const model_spec& m, const engine_options& o) -> std::uint64_t {
  const stated_context& c = m.stated;
  if (!c.keys_read) {
    return m.max_context;
  }
  const std::uint32_t release = release_of(o);
  const std::uint64_t derived = derived_max_model_len(m, release);
  bool longrope = false;
  for (std::uint8_t i = 0; i < c.rope_entries; ++i) {
    longrope = longrope || c.rope[i].kind == rope_kind::longrope;
  }
  // 0.11 tests rope_scaling's type only (rope_parameters is read from 0.12).
  const bool seen = c.rope_from_scaling || release >= rope_parameters_since_minor;
  if (c.rope_read && longrope && seen && release >= longrope_original_since_minor) {
    return c.top_original != 0 ? c.top_original : derived;
  }
  return derived;
}

}  // namespace kvsize::engines::vllm
