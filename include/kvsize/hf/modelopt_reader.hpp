// SPDX-License-Identifier: MIT
// NVIDIA ModelOpt's quantization_config (quant_method "modelopt", or hf_quant_config.json's `quantization`): the
// weights_format of its quant_algo (NVFP4, W4A16_NVFP4, the FP8 forms), and the k/v scales an export stores for a
// quantized KV cache.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>      // std::uint32_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "../detail/release_text.hpp"  // take_release_zero, take_release_number
#include "../dtype.hpp"                 // detail::ascii_iequal
#include "../weights.hpp"
#include "compressed_tensors_reader.hpp"  // first_config_group: ModelOpt writes compressed-tensors' config_groups
#include "json_prescan.hpp"               // printable
#include "json_reader.hpp"
#include "parsed_config.hpp"              // quantization_config

namespace kvsize::hf::detail {

/// The ModelOpt spelling of quant_method: "modelopt", and vLLM's "modelopt_fp4" / "modelopt_mixed".
[[nodiscard]] inline auto is_modelopt(std::string_view method) -> bool { return method.starts_with("modelopt"); }

/// Whether `s` is a string naming `name` in any case ("FP8", "fp8"): kv_cache_quant_algo, a string kv_cache_scheme.
[[nodiscard]] inline auto names_algo(const slot& s, std::string_view name) -> bool {
  return s.set() && s.value->is_string() && kvsize::detail::ascii_iequal(s.value->get<std::string>(), name);
}

/// Whether a kv_cache_scheme is given: set, and not an empty object (vLLM's `if kv_cache_scheme` reads {} as none).
[[nodiscard]] inline auto kv_scheme_given(const slot& scheme) -> bool {
  return scheme.set() && !(scheme.value->is_object() && scheme.value->empty());
}

/// The float32 scalars a ModelOpt export stores a quantized attention layer for its KV cache
/// (weights_format::kv_cache_scalars): k_proj.k_scale and v_proj.v_scale, 2, where quantization object `q` quantizes
/// the cache (a kv_cache_scheme, or kv_cache_quant_algo FP8 / NVFP4) and `producer` (ModelOpt's {"name", "version"})
/// names a release from 0.25 to 0.42. NVIDIA/Model-Optimizer's unified Hugging Face export
/// (modelopt/torch/export/quant_utils.py postprocess_state_dict, later _KV_CACHE_REPLACEMENTS) writes them in
/// float32 from 0.25 (0.23 left them in the activation dtype under NVFP4 weights, and nvidia/Llama-3.3-70B-Instruct-FP4's
/// published total, a 0.23.0 export, has none); 0.43's default KV recipe, fp8_cast (PR #1012), writes none. 0 for
/// anything else, an unreadable version included: the scalars are 8 B a layer, and never guessed.
[[nodiscard]] inline auto modelopt_kv_cache_scalars(const slot& q, const slot& producer) -> std::uint32_t {
  const slot scheme = lookup(*q.value, q.pointer(), "kv_cache_scheme");
  const slot algo = lookup(*q.value, q.pointer(), "kv_cache_quant_algo");
  if (!kv_scheme_given(scheme) && !names_algo(algo, "FP8") && !names_algo(algo, "NVFP4")) {
    return 0;
  }
  if (!producer.set() || !producer.value->is_object() || !producer.value->contains("version") ||
      !(*producer.value)["version"].is_string()) {
    return 0;
  }
  // "0.35.0", "0.40.0rc1": 0.MINOR, read as the engines' releases are (detail/release_text.hpp).
  const std::string version = (*producer.value)["version"].get<std::string>();
  std::string_view text = version;
  std::uint32_t minor = 0;
  if (!kvsize::detail::take_release_zero(text) || !kvsize::detail::take_release_number(text, minor) ||
      !(text.empty() || text.front() == '.')) {
    return 0;
  }
  return minor >= 25 && minor < 43 ? 2U : 0U;
}

/// NVIDIA ModelOpt (quant_method "modelopt"; vllm model_executor/layers/quantization/modelopt.py,
/// ModelOptQuantConfigBase.from_config and the Linear methods' create_weights), by quant_algo:
///   NVFP4 / W4A16_NVFP4        nvfp4, group_size (else config_groups' weights.group_size, else 16) and 2 / 1
///                              float32 scalars a matrix (weight_scale_2, and input_scale where activations are FP4)
///   FP8                        fp8, one float32 weight_scale and one input_scale a matrix
///   FP8_PER_CHANNEL_PER_TOKEN  fp8, a float32 scale per output row
///   FP8_PB_WO                  fp8, a float32 scale per 128 × 128 block
/// The rest (MIXED_PRECISION's per-layer list, MXFP8, the W4A8 forms) is nullopt, with a warning.
[[nodiscard]] inline auto modelopt_format_of(const slot& q, const quantization_config& c, std::vector<std::string>& warnings)
    -> std::optional<weights_format> {
  const auto is = [&](std::string_view name) { return kvsize::detail::ascii_iequal(c.quant_algo, name); };  // fp8_pb_wo
  const auto group_size = [&]() -> std::uint32_t {
    if (c.group_size) {
      return *c.group_size;
    }
    if (const slot& w = first_config_group(q).weights; w.set()) {  // the form ModelOpt writes into config.json
      if (const slot g = lookup(*w.value, w.pointer(), "group_size"); g.set()) {
        return read_u32(g, 1, 1U << 24U);
      }
    }
    return 16;  // vLLM's ModelOptNvFp4Config default
  };
  const std::uint32_t kv_scalars = modelopt_kv_cache_scalars(q, lookup(*q.value, q.pointer(), "producer"));
  const auto with_kv_scalars = [&](weights_format f) {
    f.kv_cache_scalars = kv_scalars;
    return f;
  };
  if (is("NVFP4") || is("W4A16_NVFP4")) {
    return with_kv_scalars(nvfp4_weights(group_size(), is("NVFP4") ? 2U : 1U));
  }
  if (is("FP8")) {
    weights_format f = fp8_weights(0, 0);
    f.tensor_scalars = 1;  // input_scale; weight_scale is the per-tensor block
    return with_kv_scalars(f);
  }
  if (is("FP8_PER_CHANNEL_PER_TOKEN")) {
    return with_kv_scalars(fp8_weights(1, 0));
  }
  if (is("FP8_PB_WO")) {
    return with_kv_scalars(fp8_weights(128, 128));
  }
  if (c.quant_algo.empty()) {
    warnings.push_back(q.pointer() + ": quant_method \"modelopt\" without quant_algo; the weights are not sized");
    return std::nullopt;
  }
  warnings.push_back(q.pointer() + "/quant_algo = \"" + printable(c.quant_algo) +
                     "\": a ModelOpt algorithm kvsize does not size (it sizes NVFP4, W4A16_NVFP4, FP8, "
                     "FP8_PER_CHANNEL_PER_TOKEN, FP8_PB_WO); the weights are not sized");
  return std::nullopt;
}

}  // namespace kvsize::hf::detail
