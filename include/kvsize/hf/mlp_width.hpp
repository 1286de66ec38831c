// SPDX-License-Identifier: MIT
// kvsize::hf::detail::read_mlp_width: model_spec::intermediate_size from a config.json, the width of
// the dense MLP that every layer without its own width runs. Not a weights-only key: the activation
// peak (workspace.hpp) and llama.cpp's compute buffer (engines/llama_cpp_compute.hpp) read it.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>  // std::min
#include <cstdint>    // std::uint32_t, std::uint64_t
#include <optional>   // std::optional
#include <string>     // std::string, std::to_string

#include "../detail/checked.hpp"
#include "../model_spec.hpp"
#include "aliases.hpp"
#include "config_view.hpp"
#include "family.hpp"
#include "json_reader.hpp"
#include "parsed_config.hpp"

namespace kvsize::hf::detail {

/// LFM2's MLP width (Lfm2MLP: transformers models/lfm2/modeling_lfm2.py, SGLang models/lfm2.py):
/// w = block_ff_dim, else intermediate_size (Lfm2Config takes block_ff_dim first), else the class's
/// 12288. With block_auto_adjust_ff_dim (default true) w becomes int(2w / 3), and then, only when
/// block_ffn_dim_multiplier is not null (default 1.0), int(multiplier × w) rounded up to a multiple of
/// block_multiple_of (default 256), in double as Python evaluates it. LFM2-1.2B: 12288 → 8192.
/// vLLM's models/lfm2.py rounds to the multiple even with a null multiplier: the same width for every
/// published config (all give 1.0), so kvsize keeps the one rule.
[[nodiscard]] inline auto read_lfm2_mlp_width(const config_view& v, parsed_config& out) -> std::uint32_t {
  slot raw = v.get("block_ff_dim");
  if (!raw.set()) {
    raw = v.get("intermediate_size");
  }
  std::uint64_t width = 12288;
  if (raw.set()) {
    width = read_u32(raw, 1);
  } else {
    out.warnings.push_back(raw.pointer() + " and block_ff_dim are absent: took 12288, the default of " +
                           std::string(v.facts().source));
  }
  if (!read_bool_or(v.get("block_auto_adjust_ff_dim"), true)) {
    return static_cast<std::uint32_t>(width);
  }
  width = 2 * width / 3;  // int(2 * w / 3): exact in double for any 32-bit w, so the integer quotient
  const slot mult = v.get("block_ffn_dim_multiplier");
  if (!mult.present() || mult.set()) {  // absent: the default 1.0; null: no multiplier and no rounding
    const double factor = mult.set() ? read_width_multiplier(mult, "a number or null") : 1.0;
    const slot multiple_of = v.get("block_multiple_of");
    const std::uint64_t multiple = multiple_of.set() ? read_u32(multiple_of, 1, 1U << 20U) : 256U;
    width = static_cast<std::uint64_t>(factor * static_cast<double>(width));  // int(): truncation; < 2^38
    width = kvsize::detail::round_up(width, multiple);
  }
  if (width == 0 || width > max_count) {
    fail(config_errc::out_of_range, raw.set() ? raw.pointer() : v.base() + "/block_ff_dim",
         "expected an MLP width in [1, " + std::to_string(max_count) + "] after Lfm2MLP's adjustment, got " +
             std::to_string(width));
  }
  return static_cast<std::uint32_t>(width);
}

/// model_spec::intermediate_size: the family's own rule (LFM2), else the first intermediate key
/// (intermediate_size, ffn_hidden_size, n_inner), else 4 × hidden_size (GPT-2, Falcon), else
/// expansion_ratio × hidden_size (MPT), else the config class's default. Where none applies it is
/// left 0: a family whose layers all carry their own widths (DeciLM's block_configs, Qwen3.5's MoE
/// layers) needs none, and read_weights_shape checks that no dense layer is left without one.
inline void read_mlp_width(const config_view& v, parsed_config& out) {
  const family& facts = v.facts();
  auto& m = out.spec;
  const std::uint32_t hidden = m.hidden_size;
  const slot inter = v.get_first(keys::intermediate);
  if (facts.lfm2_mlp) {
    m.intermediate_size = read_lfm2_mlp_width(v, out);
  } else if (inter.set()) {
    m.intermediate_size = read_u32(inter, 1);
  } else if (facts.ffn_4x_hidden) {
    m.intermediate_size = static_cast<std::uint32_t>(std::min<std::uint64_t>(std::uint64_t{4} * hidden, max_count));
    out.warnings.push_back("no intermediate size key: took 4 × hidden_size = " + std::to_string(m.intermediate_size) +
                           ", the width a " + std::string(facts.source) + " model builds without one (n_inner None, "
                           "ffn_hidden_size absent)");
  } else if (const slot ratio = v.get("expansion_ratio"); ratio.set()) {
    m.intermediate_size = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(std::uint64_t{read_u32(ratio, 1, 64)} * hidden, max_count));
  } else if (const std::optional<std::uint32_t> d = unset_class_default(v, inter, "intermediate_size")) {
    m.intermediate_size = *d;  // transformers fills the attribute from its __init__ default (family::nested_defaults),
                               // and vLLM, SGLang and llama.cpp's converter read the attribute
  }  // else left 0: read_weights_shape's check_dense_widths says whether a layer needed it
}

}  // namespace kvsize::hf::detail
