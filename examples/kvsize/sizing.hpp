// SPDX-License-Identifier: MIT
// kvsize command line: every figure the reports print, computed once from the config and the options.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <kvsize/hf_config.hpp>
#include <kvsize/kvsize.hpp>

#include "options.hpp"

namespace kvsize::cli {

/// Memory available to the cache on one device and what fits in it.
struct capacity_figures {
  std::string source;                 ///< "RTX 3060 (--gpu rtx-3060)", "--gpu-memory 24GiB", "--kv-memory 8GiB"
  std::optional<bytes> device_memory; ///< absent with --kv-memory
  bytes kv_budget;                    ///< device memory − weights (exact engine), or --kv-memory
  std::uint64_t max_tokens = 0;       ///< floor(budget / KV bytes per token)
  std::uint64_t max_sequences = 0;    ///< floor(budget / (KV + state) of one sequence at --context)
  double max_concurrency = 0;         ///< budget / (KV + state) of one sequence at --context, unrounded
  std::uint64_t max_context = 0;      ///< longest context at which --batch sequences fit (≤ 2^24 searched)
  bool weights_fit = true;
};

struct sizing {
  hf::parsed_config config;
  std::string config_path;
  std::string engine;
  kv_dtypes kv;
  dtype state_dtype;
  std::uint64_t context = 0;
  std::uint64_t batch = 1;

  bytes kv_per_token;
  bytes kv_per_token_mha;
  double gqa_ratio = 0;
  bytes kv_per_sequence;
  bytes kv_total;
  bytes state_per_sequence;
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
