// SPDX-License-Identifier: MIT
// kvsize command line: Ollama's two ways to name a model. A local manifest
// (~/.ollama/models/manifests/<host>/<namespace>/<model>/<tag>) leads to the GGUF blob
// models/blobs/sha256-<hex> (ollama manifest/paths.go BlobsPath); the output of Ollama's /api/show
// (ollama server/routes.go GetModelInfo: "model_info" holds the GGUF keys, "tensors" name, type and
// shape) is read as a GGUF header.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include <kvsize/gguf.hpp>
#include <kvsize/hf_config.hpp>

namespace kvsize::cli {

/// What a JSON input is, by its top-level keys.
enum class json_input { config, ollama_manifest, ollama_show };
auto json_input_kind(const nlohmann::json& doc) -> json_input;

/// The model blob an Ollama manifest names; throws hf::config_error naming the manifest and the key.
/// Warnings (a projector blob that is not counted) go to `warnings`.
auto ollama_blob(const std::string& manifest_path, const nlohmann::json& doc, std::vector<std::string>& warnings)
    -> std::string;

/// A GGUF header from /api/show output: model_info's values typed as the GGUF file types them
/// (integers UINT32 where they fit, floats FLOAT32, arrays by their elements), tensors with their
/// exact bytes from type and shape. Throws hf::config_error for what cannot be read.
auto header_from_show(const std::string& path, const nlohmann::json& doc) -> gguf::gguf_header;

}  // namespace kvsize::cli
