// SPDX-License-Identifier: MIT
// kvsize command line: the human report and the JSON object of docs/cli-contract.md.
#pragma once

#include <string>

#include "sizing.hpp"

namespace kvsize::cli {

/// The readable report: aligned figures, exact bytes beside each scaled one.
auto human_report(const sizing& s, bool explain) -> std::string;

/// One JSON object with the contract's keys (and a few more); exact integers for bytes.
auto json_report(const sizing& s) -> std::string;

/// The architecture ("Qwen2ForCausalLM"), else the model_type, else "unknown".
auto model_name(const sizing& s) -> std::string;

/// The GPU catalog as `kvsize --list-gpus` prints it.
auto gpu_list() -> std::string;

}  // namespace kvsize::cli
