// SPDX-License-Identifier: MIT
// The context SGLang serves when --context-length is not given: ModelConfig._derive_context_length
// (python/sglang/srt/configs/model_config.py) calls get_context_length(hf_text_config)
// (srt/hf_transformers_utils.py, srt/utils/hf_transformers_utils.py from 0.5, srt/utils/hf_transformers/common.py
// by 0.5.18; the same function at every tag v0.4.0 – v0.5.18, https://github.com/sgl-project/sglang):
//   the first key present of max_sequence_length, seq_length, max_seq_len, model_max_length,
//   max_position_embeddings (in that order, not the smallest), times config.rope_scaling's factor, where
//   rope_scaling is set, holds no original_max_position_embeddings and its rope_type is not llama3; int() of the
//   product. Command-R: model_max_length 131,072 comes before max_position_embeddings 8,192.
// config.rope_scaling is transformers' attribute: under transformers 4 the file's rope_scaling; under transformers 5
// (pinned by 0.5.6.post1 and from 0.5.10rc0: python/pyproject.toml) an alias of rope_parameters, which transformers
// 5 keeps per layer type for Gemma 3 ({"full_attention": ..., "sliding_attention": ...}; no top-level factor).
// So Gemma 3's linear factor 8 makes its 131,072 positions 1,048,576 on the transformers 4 releases (SGLang PR
// #20387, "Fix gemma3 context calculation", describes the inflation) and leaves 131,072 on the others.
// Where none of the keys is found, 2,048 (no rope factor). A longer --context-length than the derived one is refused
// (_derive_context_length: "To allow overriding this maximum, set the env var
// SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1") except on 0.4.4 – 0.5.0rc2, whose variable defaults to true
// (get_bool_env_var(..., default="True")): those warn and serve it.
// A key the file leaves out has its config class's default where kvsize knows it (hf/class_context.hpp: SGLang's
// getattr sees it); classes whose default SGLang's own config class changes (step3p5, kimi_linear,
// granitemoehybrid) are left out there.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>    // std::array
#include <cstdint>  // std::uint64_t

#include "../model_spec.hpp"
#include "engine_options.hpp"
#include "sglang_dsa.hpp"      // version_of
#include "sglang_release.hpp"  // release, at_least, release_0_5

namespace kvsize::engines::sglang {

/// get_context_length's CONTEXT_LENGTH_KEYS, in its order of preference.
inline constexpr std::array<context_key, 5> context_length_keys{
    context_key::max_sequence_length, context_key::seq_length, context_key::max_seq_len,
    context_key::model_max_length, context_key::max_position_embeddings};

/// The first release that pins transformers 5 for good (0.5.6.post1 pinned 5.0.0rc0, 0.5.6.post2 went back to 4.57.1).
inline constexpr release transformers5_since = release_0_5(10, 0);

/// Whether release `r` runs transformers 5, whose config.rope_scaling is rope_parameters.
[[nodiscard]] constexpr auto runs_transformers5(const release& r) -> bool {
  const bool post1_of_0_5_6 = r.minor == 5 && r.patch == 6 && !r.candidate && r.post == 1;
  return post1_of_0_5_6 || at_least(r, transformers5_since);
}

/// The factor get_context_length puts on the length under release `r` (1 where none applies).
[[nodiscard]] constexpr auto context_rope_factor(const stated_context& c, const release& r) -> double {
  const bool transformers5 = runs_transformers5(r);
  // transformers 4 reads the file's rope_scaling only; 5 reads rope_parameters too, nested for Gemma 3.
  const bool seen = c.rope_read && c.rope_entries != 0 && (transformers5 || c.rope_from_scaling);
  const bool nested = c.rope_nested || (transformers5 && c.gemma3);
  if (!seen || nested) {
    return 1.0;
  }
  const stated_rope& rope = c.rope[0];
  if (rope.original_set || rope.kind == rope_kind::llama3 || rope.factor == 0) {
    return 1.0;
  }
  return rope.factor;
}

/// The length get_context_length returns where the config states none of its keys.
inline constexpr std::uint64_t no_length_key_default = 2048;

/// The first release whose SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN defaults to true, and the first after it that
/// defaults to false again (a longer --context-length is refused without it).
inline constexpr release longer_context_allowed_since{.minor = 4, .patch = 4};
inline constexpr release longer_context_refused_since = release_0_5(1);

/// Whether release `r` refuses a --context-length above default_context_length unless the variable is set.
[[nodiscard]] constexpr auto refuses_longer_context(const release& r) -> bool {
  return !at_least(r, longer_context_allowed_since) || at_least(r, longer_context_refused_since);
}

/// The length get_context_length finds in the config, before the rope factor: its first key present; 0 where it
/// finds none.
[[nodiscard]] constexpr auto stated_context_length(const stated_context& c) -> std::uint64_t {
  for (const context_key k : context_length_keys) {
    if (const std::uint64_t n = stated(c, k); n != 0) {
      return n;
    }
  }
  // GPT-2-style config classes (GPT2Config, GPTBigCodeConfig, GPTJConfig, CodeGenConfig) map max_position_embeddings
  // to n_positions (their attribute_map), which getattr then reads.
  return stated(c, context_key::n_positions);
}

/// SGLang's context_len when none is given, under the release in `o` (2,048 where the config states none of its
/// keys). A spec built by hand (stated.keys_read false) gives model_spec::max_context.
[[nodiscard]] constexpr auto default_context_length(const model_spec& m, const engine_options& o) -> std::uint64_t {
  const stated_context& c = m.stated;
  if (!c.keys_read) {
    return m.max_context;
  }
  const std::uint64_t n = stated_context_length(c);
  return n != 0 ? scaled_context(n, context_rope_factor(c, version_of(o))) : no_length_key_default;
}

}  // namespace kvsize::engines::sglang
