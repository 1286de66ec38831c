// SPDX-License-Identifier: MIT
// kvsize::gguf::model_of: a model_spec from a GGUF header, read the way llama.cpp's
// llama_model_base::load_hparams reads it (src/llama-model.cpp; docs/research/gguf-format.md §4),
// with the per-architecture rules of gguf_arch.hpp, and the weights as the tensor table states
// them, to the byte. Every layer's kind comes with the key (or the rule) that decided it.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>   // std::uint32_t, std::uint64_t
#include <filesystem>  // std::filesystem::path
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include "../error.hpp"
#include "../model_spec.hpp"
#include "gguf_arch.hpp"
#include "gguf_error.hpp"
#include "gguf_header.hpp"
#include "gguf_keys.hpp"
#include "gguf_layer_plan.hpp"
#include "gguf_reader.hpp"
#include "gguf_weights.hpp"

namespace kvsize::gguf {

/// A GGUF file's model, as kvsize sizes it.
struct gguf_model {
  kvsize::model_spec spec;            ///< validated; compute_dtype f16 (llama.cpp's default cache type)
  std::string architecture;           ///< general.architecture: "llama", "gemma4"
  std::string name;                   ///< general.name, or ""
  std::vector<std::string> warnings;  ///< every assumption, one sentence each
  std::vector<std::string> layer_reasons;  ///< per layer: the key or rule that decided what it keeps
  std::optional<gguf_weights> weights;     ///< absent after a metadata-only read
  std::uint32_t experts = 0;               ///< <arch>.expert_count (routed experts per MoE layer), or 0
  std::uint32_t experts_per_token = 0;     ///< <arch>.expert_used_count (layer 0's, where per layer)

  /// Parameters one token uses: every tensor but the routed experts, and experts_per_token of
  /// each layer's experts (the *_exps tensors stack them on their last dimension). All of them
  /// for a dense model or one whose expert keys are absent.
  [[nodiscard]] auto active_parameters() const -> std::uint64_t {
    if (!weights || experts == 0 || experts_per_token == 0 || experts_per_token >= experts) {
      return weights ? weights->elements : 0;
    }
    const std::uint64_t idle = weights->expert_elements / experts * (experts - experts_per_token);
    return weights->elements - idle;
  }
};

/// The model in `h` (named `file` in errors). Throws gguf_error for a key of the wrong type, a
/// missing key llama.cpp requires, or an architecture whose cache rule kvsize does not encode.
[[nodiscard]] inline auto model_of(const gguf_header& h, const std::string& file) -> gguf_model {
  key_reader k(h, file);
  gguf_model out;
  const auto arch = k.string("general.architecture");
  if (!arch) {
    throw gguf_error(gguf_errc::missing_key, file, 0, "key \"general.architecture\"",
                     "absent; every GGUF model names its architecture");
  }
  out.architecture = *arch;
  k.set_arch(*arch);
  out.name = k.string("general.name").value_or("");
  kvsize::model_spec& m = out.spec;
  m.compute_dtype = kvsize::dtype::f16;
  detail::read_shape(k, m);
  out.layer_reasons = detail::plan_layers(k, m, out.warnings);
  if (h.stopped_at == 0) {
    out.weights = weights_of(h);
  }
  out.experts = k.u32(k.arch_key("expert_count")).value_or(0);
  if (const auto used = k.per_layer(k.arch_key("expert_used_count"), m.layers)) {
    out.experts_per_token = used->front();
  }
  try {
    kvsize::validate(m);
  } catch (const kvsize::invalid_argument& e) {
    throw gguf_error(gguf_errc::invalid, file, 0, "", std::string("the model's keys do not fit together: ") + e.what());
  }
  return out;
}

/// load_gguf then model_of.
[[nodiscard]] inline auto load_gguf_model(const std::filesystem::path& path, const read_options& o = {})
    -> gguf_model {
  return model_of(load_gguf(path, o), path.string());
}

}  // namespace kvsize::gguf
