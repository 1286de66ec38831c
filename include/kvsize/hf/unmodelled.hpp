// SPDX-License-Identifier: MIT
// The model_types kvsize knows but does not size, refused by name (exit 2 at /model_type, or at the key that gives
// one away under another model_type) rather than sized as a generic decoder with a figure known to be wrong.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <string>       // std::string
#include <string_view>  // std::string_view

#include <nlohmann/json.hpp>

#include "error.hpp"
#include "families.hpp"
#include "json_reader.hpp"

namespace kvsize::hf::detail {

/// A model_type whose cache kvsize knows to differ from everything it models, and why.
struct unmodelled_family {
  std::string_view model_type;
  std::string_view reason;
};

/// Refused by name (unsupported, at /model_type) rather than sized as a generic decoder: for these the
/// generic figure is known to be wrong, as the research notes named measure. The GGUF reader refuses
/// the same architectures (gguf_arch.hpp).
inline constexpr unmodelled_family unmodelled_families[] = {
    {"deepseek_v4",
     "DeepSeek-V4's compressed attention (compress_ratios: a sliding window on every layer, entries compressed 4x "
     "or 128x, an indexer key on the 4x layers, a compressor state per sequence) is not modelled yet; as a "
     "sliding-window decoder it would be off by up to 19x (docs/research/deepseek-v4-plan.md)"},
};

/// Why `model_type` is refused by name (unmodelled_families), or empty.
[[nodiscard]] constexpr auto unmodelled_reason(std::string_view model_type) -> std::string_view {
  for (const auto& u : unmodelled_families) {
    if (u.model_type == model_type) {
      return u.reason;
    }
  }
  return {};
}

/// Refuses a configuration kvsize knows not to size: a model_type of unmodelled_families (the text model's `mt`
/// at `type_pointer`, or the top level's `top_type` at `top_pointer`), or DeepSeek-V4's compress_ratios under a
/// model_type kvsize does not know (sgl-project/DeepSeek-V4-Flash-FP8 says "deepseek_ref"), at that key.
inline void refuse_unmodelled(const json& root, const slot& text, const std::string& mt, const std::string& type_pointer,
                              const std::string& top_type, const std::string& top_pointer) {
  for (const auto& u : unmodelled_families) {
    if (mt == u.model_type || top_type == u.model_type) {
      fail(config_errc::unsupported, mt == u.model_type ? type_pointer : top_pointer,
           "model_type \"" + std::string(u.model_type) + "\" is known but not sized: " + std::string(u.reason));
    }
  }
  if (find_family(mt) == nullptr) {
    const slot ratios = text.present() ? lookup(*text.value, text.pointer(), "compress_ratios")
                                       : lookup(root, "", "compress_ratios");
    if (ratios.set()) {  // (null: no compression, as if absent)
      fail(config_errc::unsupported, ratios.pointer(),
           "model_type \"" + printable(mt) + "\" with compress_ratios: " + std::string(unmodelled_reason("deepseek_v4")));
    }
  }
}

}  // namespace kvsize::hf::detail
