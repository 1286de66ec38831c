// SPDX-License-Identifier: MIT
// kvsize::hf::read_hf_quant_config: a ModelOpt export's hf_quant_config.json, read where config.json has no
// quantization_config. ModelOpt 0.29 and earlier wrote its settings only there (NVIDIA's older FP8 and FP4
// repositories: Llama-3.3-70B-Instruct-FP4, DeepSeek-R1-FP4), and vLLM then takes them from it
// (vllm/transformers_utils/config.py `get_config`: "ModelOpt 0.29.0 and before saves the quantization config in a
// separate hf_quant_config.json"). Its `quantization` object holds quant_algo, group_size, exclude_modules and
// kv_cache_quant_algo, which quantization_reader.hpp reads as a config.json's ModelOpt quantization_config.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstddef>       // std::size_t
#include <filesystem>    // std::filesystem::path, is_regular_file
#include <fstream>       // std::ifstream
#include <string>        // std::string
#include <system_error>  // std::error_code
#include <vector>        // std::vector

#include "capped_read.hpp"
#include "error.hpp"
#include "json_reader.hpp"
#include "json_text.hpp"
#include "parsed_config.hpp"
#include "quantization_reader.hpp"
#include "weights_only.hpp"

namespace kvsize::hf::detail {

/// Reads `folder`/hf_quant_config.json into `out` where config.json had no quantization_config; nothing where the
/// file is absent. A defect in it is a weights-only problem: a warning naming the file and the key, the weights
/// unknown, the KV answer kept.
inline void read_hf_quant_config(const std::filesystem::path& folder, parsed_config& out) {
  const std::filesystem::path path = folder / "hf_quant_config.json";
  std::error_code ec;
  if (out.quantization_config_given || !std::filesystem::is_regular_file(path, ec)) {
    return;
  }
  const std::string file = path.string();
  const std::size_t first_warning = out.warnings.size();
  const bool weights_known = out.weights_unknown_because.empty();
  read_weights_only(out, [&] {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      fail(config_errc::io, "", "cannot open it for reading");
    }
    std::vector<std::string> notes;  // what the JSON reader tolerated (a BOM, bare NaN), as for config.json
    const json doc = parse_json_text(read_capped(in, file, parse_limits{}.max_bytes), parse_limits{}, notes);
    out.warnings.insert(out.warnings.end(), notes.begin(), notes.end());
    const slot q = lookup(doc, "", "quantization");
    if (!q.set()) {
      fail(config_errc::missing_key, "/quantization", "expected ModelOpt's quantization object");
    }
    read_quantization_object(q, "modelopt", out);
    if (out.quantization && out.quantization->format) {  // the producer stands beside "quantization" here
      out.quantization->format->kv_cache_scalars = modelopt_kv_cache_scalars(q, lookup(doc, "", "producer"));
    }
  });
  const auto in_file = [&](const std::string& said) {  // "/quantization/quant_algo: …", or ": …" for the file
    return file + (said.starts_with(": ") ? "" : ":") + said;
  };
  for (std::size_t i = first_warning; i < out.warnings.size(); ++i) {
    out.warnings[i] = in_file(out.warnings[i]);
  }
  if (weights_known && !out.weights_unknown_because.empty()) {
    out.weights_unknown_because = in_file(out.weights_unknown_because);
    out.weights_unknown_file = file;
  }
  if (!out.checkpoint_kv_fp8.empty()) {  // config.json declared none (it has no quantization_config)
    out.checkpoint_kv_fp8 = file + ":" + out.checkpoint_kv_fp8;
    out.checkpoint_kv_file = file;
  }
}

/// Given a config.json file rather than its folder: where it has no quantization_config and an hf_quant_config.json
/// lies beside it, a warning that the folder would be read with it (an older ModelOpt export is otherwise sized
/// unquantized).
inline void note_hf_quant_config_beside(const std::filesystem::path& config_file, parsed_config& out) {
  const std::filesystem::path beside = config_file.parent_path() / "hf_quant_config.json";
  std::error_code ec;
  if (!out.quantization_config_given && config_file.filename() == "config.json" &&
      std::filesystem::is_regular_file(beside, ec)) {
    const std::string folder = config_file.has_parent_path() ? config_file.parent_path().string() : ".";
    out.warnings.push_back(beside.string() + ": a quantization config beside this config.json, which has none; "
                           "kvsize reads it when given the folder (" + folder + ")");
  }
}

}  // namespace kvsize::hf::detail
