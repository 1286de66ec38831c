// SPDX-License-Identifier: MIT
// kvsize command line: the model a path names, whatever it is: a config.json, a model folder, "-"
// (a config.json on standard input) or a GGUF file.
#pragma once

#include <string>

#include <kvsize/gguf.hpp>
#include <kvsize/hf_config.hpp>
#include <kvsize/hf/safetensors.hpp>

namespace kvsize::cli {

/// Whether `path` is a GGUF file: a regular file whose first four bytes are "GGUF".
auto is_gguf_file(const std::string& path) -> bool;

/// A GGUF model in the form the reports take from a config.json: the spec, the layers grouped
/// with the key that decided each group, and the weights from the tensor table.
auto parsed_from_gguf(const gguf::gguf_model& g) -> hf::parsed_config;

/// Reads the model at `path`; throws hf::config_error (config.json) or gguf::gguf_error (GGUF).
auto load_model(const std::string& path) -> hf::parsed_config;

}  // namespace kvsize::cli
