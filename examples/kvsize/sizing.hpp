// SPDX-License-Identifier: MIT
// kvsize command line: every figure the reports print, computed once from the config and the options.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <kvsize/engine.hpp>
#include <kvsize/hf_config.hpp>
#include <kvsize/kvsize.hpp>

#include "options.hpp"

namespace kvsize::cli {

/// Memory available to the cache on one device and what fits in it.
struct capacity_figures {
  std::string source;                 ///< "RTX 3060 (--gpu rtx-3060)", "--gpu-memory 24GiB", "--kv-memory 8GiB"
  std::optional<bytes> device_memory; ///< absent with --kv-memory
  std::optional<bytes> weights_per_device;  ///< weights / (tp × pp), rounded up
  bytes kv_budget;                    ///< the engine's budget rule applied to device memory, or --kv-memory
  engine_capacity figures;            ///< max tokens, sequences, concurrency, blocks, as the engine counts
  std::uint64_t max_context = 0;      ///< longest context at which --batch sequences fit (≤ the model's maximum)
  bool weights_fit = true;
};

struct sizing {
  hf::parsed_config config;
  std::string config_path;
  engine_kind engine = engine_kind::exact;
  engine_options engine_opts;
  engine_sizing cache;                ///< what the engine allocates, per device
  kv_dtypes kv;
  dtype state_dtype;
  std::uint64_t context = 0;
  std::uint64_t batch = 1;

  bytes kv_per_token_mha;             ///< per device: the stage's layers, heads split over tp
  double gqa_ratio = 0;
  bytes logits_per_token;
  bytes logits_prefill;

  std::optional<std::uint64_t> parameters;  ///< absent for families kvsize cannot count yet
  std::optional<dtype> weights_dtype;
  std::optional<bytes> weights;

  std::optional<capacity_figures> capacity;
  std::vector<std::string> notes;  ///< assumptions and limits, printed under the report / in "warnings"
};

/// Computes every figure; throws usage_error for bad option values and hf::config_error for
/// config problems. Warnings meant for stderr (e.g. a context above the model's maximum) are
/// appended to `stderr_warnings`.
auto compute_sizing(const options& opts, std::vector<std::string>& stderr_warnings) -> sizing;

}  // namespace kvsize::cli
