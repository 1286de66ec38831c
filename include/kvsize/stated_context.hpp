// SPDX-License-Identifier: MIT
// kvsize::stated_context: what config.json states of the context length, key by key, with the rope-scaling terms
// engines multiply it by. model_spec::max_context is the engine-neutral figure (the smallest key as written); each
// serving engine derives its own default context from these facts (the engine's default_context): vLLM the smallest
// key, model_max_length over all of them, times the rope factor; SGLang the first key of its own list, times the
// factor under other conditions. Plain data like model_spec, usable as a template argument.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>    // std::array
#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint8_t, std::uint64_t

#include "error.hpp"  // kvsize::invalid_argument

namespace kvsize {

/// The config keys that state a context length, in the order of the reader's list (hf/aliases.hpp
/// keys::max_context; tests/unit/context.test.cpp checks the two agree).
enum class context_key : std::uint8_t {
  max_position_embeddings,
  n_positions,
  max_seq_len,
  seq_length,
  model_max_length,
  max_target_positions,
  max_sequence_length,
  max_seq_length,
  seq_len,
  n_ctx,
};
inline constexpr std::size_t context_key_count = 10;

/// A rope type as the engines' context rules tell them apart (rope_type, or the legacy `type`).
enum class rope_kind : std::uint8_t {
  other,     ///< default, linear, dynamic, mrope, proportional, …: the factor, where given, scales the context
  yarn,      ///< yarn (and deepseek_yarn): vLLM scales original_max_position_embeddings by the factor
  longrope,  ///< longrope or su: vLLM leaves the context unscaled and defaults to the original length
  llama3,    ///< llama3: max_position_embeddings already states the scaled length
};

/// One set of rope parameters (a flat rope object, or one layer type's entry of a nested one).
struct stated_rope {
  rope_kind kind = rope_kind::other;
  double factor = 0;          ///< its "factor"; 0: absent
  bool original_set = false;  ///< it holds "original_max_position_embeddings"
  std::uint64_t original = 0;
  friend constexpr auto operator==(const stated_rope&, const stated_rope&) -> bool = default;
};

/// A family whose length an engine reads by its own rule rather than from the keys (the reader sets it from
/// family: hf/length_family.hpp). Only llama.cpp's converter has such rules today
/// (engines/llama_cpp_context.hpp).
enum class length_family : std::uint8_t {
  plain,
  falcon,     ///< falcon, RefinedWeb, RefinedWebModel: the GGUF converter writes 2,048 whatever the config states
  command_r,  ///< cohere (Command-R, Aya 23): the converter takes model_max_length before max_position_embeddings
  mamba,      ///< nemotron_h, granitemoehybrid: 2^20 where the model has Mamba layers (and so no rope)
  hunyuan_dynamic,  ///< HunYuan with a "dynamic" (NTK alpha) rope: the converter writes 262,144
  chatglm_hidden,   ///< ChatGLM whose file states no seq_length: the converter writes hidden_size
};

/// Layer types a nested rope object may name (Gemma 3 / 4 under transformers 5: full and sliding).
inline constexpr std::size_t max_rope_entries = 4;

struct stated_context {
  /// Each key's value as config.json writes it (the text config, with the family's defaults); 0: absent.
  std::array<std::uint64_t, context_key_count> keys{};
  /// The reader filled `keys`: false for a spec built by hand, whose engines take model_spec::max_context.
  bool keys_read = false;

  /// The rope object: rope_scaling when set, else rope_parameters (transformers 5's name). Nested per layer
  /// type ({"full_attention": {...}, ...}): one entry a layer type, in the file's order.
  std::array<stated_rope, max_rope_entries> rope{};
  std::uint8_t rope_entries = 0;  ///< 0: no rope object
  bool rope_nested = false;       ///< the object is per layer type
  bool rope_from_scaling = false; ///< the object is rope_scaling (transformers 4's config.rope_scaling reads only it)
  /// transformers 5 keeps this family's rope per layer type whatever the file writes (Gemma 3: a full and a
  /// sliding theta), and vLLM skips the factor for it ("gemma3" in model_type: Gemma 3's max_position_embeddings
  /// already states the scaled length).
  bool gemma3 = false;
  /// The family's own length rule, where an engine has one.
  length_family family = length_family::plain;
  /// The rope facts were read: false where the rope keys are malformed (a warning says so) or the spec was
  /// built by hand; the engines then apply no factor.
  bool rope_read = false;
  /// The top-level original_max_position_embeddings of a longrope (Phi-3 / Phi-4) or yarn model; 0: absent, or
  /// another rope type (no engine reads it then).
  std::uint64_t top_original = 0;

  friend constexpr auto operator==(const stated_context&, const stated_context&) -> bool = default;
};

/// The value config.json states for `k`; 0: absent.
[[nodiscard]] constexpr auto stated(const stated_context& c, context_key k) -> std::uint64_t {
  return c.keys[static_cast<std::size_t>(k)];
}

/// The largest rope factor a context is scaled by (the reader's bound on `factor`), and the first length too long
/// to scale: n < 2^41 and factor ≤ 1,024 keep n × factor below 2^51, where a double holds every integer.
inline constexpr double max_context_rope_factor = 1024.0;
inline constexpr std::uint64_t max_scaled_context_length = 1ULL << 41;

namespace detail {
/// n × factor as a double, for a factor in [0, 1,024] and n < 2^41; otherwise (a hand-built stated_context: the
/// reader bounds both) kvsize::invalid_argument, never a NaN or an out-of-range cast.
[[nodiscard]] constexpr auto context_product(std::uint64_t n, double factor) -> double {
  if (!(factor >= 0.0 && factor <= max_context_rope_factor) || n >= max_scaled_context_length) {
    throw invalid_argument("kvsize: a context scaled by a rope factor needs the factor in [0, 1024] (not NaN) and "
                           "the length below 2^41");
  }
  return static_cast<double>(n) * factor;
}
}  // namespace detail

/// ⌊n × factor⌋ as Python's int(n * factor) computes it (double product, truncated). Throws kvsize::invalid_argument
/// outside the bounds above.
[[nodiscard]] constexpr auto scaled_context(std::uint64_t n, double factor) -> std::uint64_t {
  return static_cast<std::uint64_t>(detail::context_product(n, factor));
}

/// ⌈n × factor⌉ as Python's int(math.ceil(n * factor)) computes it (std::ceil is not constexpr in C++20). Throws
/// kvsize::invalid_argument outside the bounds above.
[[nodiscard]] constexpr auto ceil_scaled_context(std::uint64_t n, double factor) -> std::uint64_t {
  const double product = detail::context_product(n, factor);
  const auto whole = static_cast<std::uint64_t>(product);
  return static_cast<double>(whole) < product ? whole + 1 : whole;
}

}  // namespace kvsize
