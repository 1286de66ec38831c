// SPDX-License-Identifier: MIT
// quantization_config, read once: the scheme as written (parsed_config::quantization) and the
// weights_format kvsize sizes it with (GPTQ, AWQ, FP8, MXFP4, bitsandbytes, MLX; compressed-tensors
// pack-quantized int and ModelOpt NVFP4 and FP8 in their own headers), the KV cache it declares, plus which parts of the model modules_to_not_convert (or `ignore`,
// `exclude_modules`) keeps unquantized (module_patterns.hpp).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>    // std::find
#include <array>        // std::array
#include <cstdint>      // std::uint16_t, std::uint32_t, std::int64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "../dtype.hpp"
#include "../weights.hpp"
#include "aliases.hpp"
#include "compressed_tensors_reader.hpp"
#include "json_reader.hpp"
#include "modelopt_reader.hpp"
#include "module_patterns.hpp"
#include "parsed_config.hpp"

namespace kvsize::hf::detail {

/// The weights_format a quantization_config is sized with; nullopt for a scheme kvsize does not size.
[[nodiscard]] inline auto weights_format_of(const quantization_config& c) -> std::optional<weights_format> {
  std::optional<weights_format> f;
  if (c.method == "fp8") {
    f = c.weight_block_size ? fp8_weights((*c.weight_block_size)[0], (*c.weight_block_size)[1]) : fp8_weights(0, 0);
  } else if (c.method == "gptq" || c.method == "awq") {
    const std::uint32_t b = c.bits.value_or(4);
    const std::uint32_t g = c.group_size.value_or(128);
    f = c.method == "gptq" ? gptq_weights(b, g) : awq_weights(b, g);
  } else if (c.method == "mxfp4") {
    f = mxfp4_weights();
  } else if (c.method == "bitsandbytes" || c.load_in_4bit || c.load_in_8bit) {
    if (c.load_in_4bit) {
      f = bnb_4bit_weights(c.bnb_4bit_use_double_quant);
    } else if (c.load_in_8bit) {
      f = bnb_8bit_weights();
    }
  }
  return f;
}

/// An MLX `quantization` object (mlx-lm utils.py quantize_model / load_model): mode (absent before
/// mlx-lm 0.27: affine), bits and group_size, each defaulting to the mode's (affine 4-bit g64,
/// mxfp4 4-bit g32, nvfp4 4-bit g16, mxfp8 8-bit g32), as mlx's ops.cpp `quantize` accepts them.
/// Per-module entries (mixed recipes, modules left unquantized) are named in a warning: the
/// formula sizes every module at the top level's bits, the folder's headers give the exact bytes.
/// A value mlx refuses is a warning and no format: a weights-only problem never blocks the KV answer.
inline auto mlx_format_of(const slot& q, const quantization_config& c, std::vector<std::string>& warnings)
    -> std::optional<weights_format> {
  const slot mode_key = lookup(*q.value, q.pointer(), "mode");
  const std::string mode = mode_key.set() ? read_string(mode_key) : std::string{"affine"};
  std::optional<mlx_mode> m;
  for (std::size_t i = 0; i < mlx_mode_names.size(); ++i) {
    if (mode == mlx_mode_names[i]) {
      m = static_cast<mlx_mode>(i);
    }
  }
  if (!m) {
    warnings.push_back(q.pointer() + "/mode = \"" + printable(mode) +
                       "\": not an MLX mode (affine, mxfp4, nvfp4, mxfp8); the weights are not sized");
    return std::nullopt;
  }
  constexpr std::array<std::array<std::uint32_t, 2>, 4> defaults{{{4, 64}, {4, 32}, {4, 16}, {8, 32}}};
  const auto d = defaults[static_cast<std::uint8_t>(*m)];
  const std::uint32_t bits = c.bits.value_or(d[0]);
  const std::uint32_t group = c.group_size.value_or(d[1]);
  const bool affine = *m == mlx_mode::affine;
  const bool bits_ok = affine ? (bits >= 2 && bits <= 8 && bits != 7) : bits == d[0];
  const bool group_ok = affine ? (group == 32 || group == 64 || group == 128) : group == d[1];
  if (!bits_ok || !group_ok) {
    warnings.push_back(q.pointer() + ": MLX " + mode + " with " + std::to_string(bits) + " bits in groups of " +
                       std::to_string(group) + " is not a quantization mlx makes; the weights are not sized");
    return std::nullopt;
  }
  std::size_t per_module = 0;
  for (const auto& entry : q.value->items()) {
    const std::string& k = entry.key();
    if (k != "mode" && k != "bits" && k != "group_size" && k != "quant_method") {
      ++per_module;
    }
  }
  if (per_module != 0) {
    warnings.push_back(q.pointer() + ": " + std::to_string(per_module) +
                       " per-module entries (mixed bits, or modules left unquantized) are sized at the top level's " +
                       std::to_string(bits) + " bits; a model folder's safetensors headers give the exact bytes");
  }
  return mlx_weights(bits, group, *m);
}

/// Where the quantization settings are: quantization_config; mlx-lm's "quantization" (it writes that and a copy
/// as "quantization_config" without quant_method; an older mlx-lm only the first); else the language model's
/// sub-config `text`'s quantization_config (Kimi-K2.5). Not set where none is.
[[nodiscard]] inline auto find_quantization_config(const json& root, const slot& text) -> slot {
  slot q = lookup(root, "", "quantization_config");
  if (!q.set()) {
    q = lookup(root, "", "quantization");
  }
  if (!q.set() && text.set() && text.value->is_object()) {
    q = lookup(*text.value, text.pointer(), "quantization_config");
  }
  return q;
}

/// The FP8 KV cache quantization object `q` of `method` declares (parsed_config::checkpoint_kv, and the key in
/// checkpoint_kv_fp8), in the forms the engines' default cache dtype takes (engine_options::checkpoint_kv):
/// ModelOpt's kv_cache_scheme {"type": "float", "num_bits": 8, "dynamic": false} or "FP8", else, with no scheme, its
/// kv_cache_quant_algo "FP8" (hf_quant_config.json), in the order vLLM's get_kv_cache_quant_algo_string reads them;
/// compressed-tensors' kv_cache_scheme {"type": "float", "num_bits": 8}. Lenient, as the KV answer reads it: another
/// form is a warning, never an error.
inline void read_checkpoint_kv(const slot& q, std::string_view method, parsed_config& out) {
  const bool modelopt = is_modelopt(method);
  if (!modelopt && method != "compressed-tensors") {
    return;
  }
  const slot scheme = lookup(*q.value, q.pointer(), "kv_cache_scheme");
  const slot algo = lookup(*q.value, q.pointer(), "kv_cache_quant_algo");
  const auto has = [](const json& o, const char* key, const json& value) { return o.contains(key) && o[key] == value; };
  const auto float8 = [&](const json& s) { return s.is_object() && has(s, "type", "float") && has(s, "num_bits", 8); };
  const bool scheme_given = kv_scheme_given(scheme);
  const slot* declared = nullptr;
  if (!modelopt) {
    declared = scheme_given && float8(*scheme.value) ? &scheme : nullptr;
  } else if (scheme_given) {  // the scheme first; a dynamic one is not taken (the cache keeps the model's dtype)
    declared =
        (float8(*scheme.value) && has(*scheme.value, "dynamic", false)) || names_algo(scheme, "FP8") ? &scheme : nullptr;
  } else {
    declared = names_algo(algo, "FP8") ? &algo : nullptr;
  }
  if (declared != nullptr) {
    const slot weights_algo = lookup(*q.value, q.pointer(), "quant_algo");  // NVFP4 weights: SGLang's ModelOptFp4Config
    const bool nvfp4 =
        method == "modelopt_fp4" || names_algo(weights_algo, "NVFP4") || names_algo(weights_algo, "W4A16_NVFP4");
    out.checkpoint_kv = !modelopt ? checkpoint_kv_cache::compressed_tensors_fp8
                        : nvfp4   ? checkpoint_kv_cache::modelopt_nvfp4_fp8
                                  : checkpoint_kv_cache::modelopt_fp8;
    out.checkpoint_kv_fp8 = declared->pointer();
    return;
  }
  for (const slot* s : {&scheme, &algo}) {
    if (s->set() && (s != &scheme || scheme_given)) {
      const bool nvfp4 = names_algo(*s, "NVFP4");
      out.warnings.push_back(s->pointer() + ": a KV cache quantization kvsize does not take (only a static FP8 "
                                            "one); the cache is sized in each engine's default type" +
                             (nvfp4 ? std::string{", which is larger than the NVFP4 cache TensorRT-LLM keeps"} : ""));
    }
  }
}

/// The weights_format of quantization object `q`, read into `c` so far (every unquantized part in `kept`), by its
/// method: compressed-tensors, ModelOpt, MLX, or weights_format_of's; nullopt, with a warning, for the rest.
inline auto sized_format(const slot& q, quantization_config& c, kept_modules kept, parsed_config& out)
    -> std::optional<weights_format> {
  const auto key = [&](std::string_view k) { return lookup(*q.value, q.pointer(), k); };
  const bool modelopt = is_modelopt(c.method);
  std::optional<weights_format> f = c.method == "compressed-tensors" ? compressed_tensors_format(q)
                                    : modelopt                        ? modelopt_format_of(q, c, out.warnings)
                                                                      : weights_format_of(c);
  if (c.method == "compressed-tensors" || modelopt) {  // compressed-tensors' and ModelOpt's `ignore` (ModelOpt's
    std::vector<std::string> ignore_warnings;          // hf_quant_config.json form: exclude_modules); warnings
    kept |= parts_of_patterns(key("ignore"), c.modules_to_not_convert, ignore_warnings);  // only where it is sized
    kept |= parts_of_patterns(key("exclude_modules"), c.modules_to_not_convert, ignore_warnings);
    if (f) {
      out.warnings.insert(out.warnings.end(), ignore_warnings.begin(), ignore_warnings.end());
    }
  }
  const bool mlx = !f && c.method.empty() && (c.bits || c.group_size || key("mode").set());
  if (mlx) {
    f = mlx_format_of(q, c, out.warnings);
  }
  if (f) {
    f->unquantized_parts = kept.parts;
    f->unquantized_roles = kept.roles;
    if (out.dtype_key.empty()) {
      f->unquantized = kvsize::dtype::bf16;
      out.warnings.push_back(q.pointer() + ": the tensors " + (c.method.empty() ? std::string("the scheme") : c.method) +
                             " leaves unquantized are taken as bfloat16 (no dtype key)");
    }
  } else if (!mlx && !modelopt) {  // (mlx_format_of and modelopt_format_of have said why)
    out.warnings.push_back(q.pointer() + "/quant_method = \"" + printable(c.method) +
                           "\": a scheme kvsize does not size; weights_format left unset");
  }
  return f;
}

/// The quantization object `q` (a config.json's quantization_config; hf_quant_config.json's `quantization`, whose
/// method `implied_method` names as it has no quant_method) into out.quantization.
inline void read_quantization_object(const slot& q, std::string_view implied_method, parsed_config& out) {
  out.quantization_config_given = true;  // before any check: a config kvsize cannot read is still quantized
  require_object(q);
  quantization_config c;
  c.pointer = q.pointer();
  const auto key = [&](std::string_view k) { return lookup(*q.value, q.pointer(), k); };
  const auto str = [&](std::string_view k) -> std::string {
    const slot s = key(k);
    return s.set() ? read_string(s) : std::string{};
  };
  const auto boolean = [&](std::string_view k) -> std::optional<bool> {
    const slot s = key(k);
    return s.set() ? std::optional<bool>(read_bool(s)) : std::nullopt;
  };
  c.method = key("quant_method").set() ? str("quant_method") : std::string(implied_method);
  if (key("quant_method").set() || !implied_method.empty()) {
    out.quantization_method = c.method;  // before any other key: the KV dtype rule reads it (mxfp4)
  }
  read_checkpoint_kv(q, c.method, out);  // before any key only the weights read can throw
  const slot bits = lookup_first(*q.value, q.pointer(), keys::quant_bits);
  if (bits.set()) {
    c.bits = read_u32(bits, 1, 64);
  }
  const slot group = lookup_first(*q.value, q.pointer(), keys::quant_group);
  if (group.set()) {
    if (group.value->is_number_integer() && !group.value->is_number_unsigned() && group.value->get<std::int64_t>() == -1) {
      c.group_size = 0;  // -1: one group over all input features
    } else {
      c.group_size = read_u32(group, 1, 1U << 24U);
    }
  }
  c.desc_act = boolean("desc_act");
  c.sym = boolean("sym");
  c.zero_point = boolean("zero_point");
  c.fmt = str("fmt");
  c.activation_scheme = str("activation_scheme");
  c.version = str("version");
  c.quant_algo = str("quant_algo");
  if (const slot wbs = key("weight_block_size"); wbs.set()) {
    require_array(wbs, 2, "[output block, input block]");
    c.weight_block_size = std::array<std::uint32_t, 2>{read_u32(element(wbs, 0), 1, 1U << 20U),
                                                       read_u32(element(wbs, 1), 1, 1U << 20U)};
  }
  kept_modules kept = parts_of_patterns(key("modules_to_not_convert"), c.modules_to_not_convert, out.warnings);
  kept |= parts_of_patterns(key("llm_int8_skip_modules"), c.modules_to_not_convert, out.warnings);
  c.load_in_4bit = boolean("load_in_4bit").value_or(false);
  c.load_in_8bit = boolean("load_in_8bit").value_or(false);
  c.bnb_4bit_quant_type = str("bnb_4bit_quant_type");
  c.bnb_4bit_use_double_quant = boolean("bnb_4bit_use_double_quant").value_or(false);

  c.format = sized_format(q, c, kept, out);
  out.quantization_bits = c.bits;
  out.quantization = std::move(c);
}

/// quantization_config in full, and the weights_format kvsize sizes it with: the one read of the
/// object. parsed_config::quantization_method and quantization_bits are its method and bits. A composite
/// (multimodal) config may keep it in its language model's sub-config `text` instead (Kimi-K2.5:
/// text_config.quantization_config, compressed-tensors on the text model only).
inline void read_quantization_config(const json& root, const slot& text, parsed_config& out) {
  if (const slot q = find_quantization_config(root, text); q.set()) {
    read_quantization_object(q, "", out);
  }
}

}  // namespace kvsize::hf::detail

