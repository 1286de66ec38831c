// SPDX-License-Identifier: MIT
#include "ollama_input.hpp"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <limits>

#include <fmt/format.h>

namespace kvsize::cli {

namespace {

namespace fs = std::filesystem;
using hf::config_errc;
using hf::config_error;

constexpr const char* model_media_type = "application/vnd.ollama.image.model";
constexpr const char* projector_media_type = "application/vnd.ollama.image.projector";

/// "sha256:<64 hex>" (or "sha256-..."), as BlobsPath accepts it; "" otherwise.
auto blob_name(const std::string& digest) -> std::string {
  if (digest.size() != 71 || digest.compare(0, 6, "sha256") != 0 || (digest[6] != ':' && digest[6] != '-')) {
    return "";
  }
  for (std::size_t i = 7; i < digest.size(); ++i) {
    if (std::isxdigit(static_cast<unsigned char>(digest[i])) == 0) {
      return "";
    }
  }
  return "sha256-" + digest.substr(7);
}

/// Where blobs live for a manifest: the folder above its "manifests" ancestor (Ollama's models
/// folder), then $OLLAMA_MODELS, then ~/.ollama/models.
auto blob_folders(const std::string& manifest_path) -> std::vector<fs::path> {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::path p = fs::absolute(manifest_path, ec).parent_path(); !p.empty() && p != p.root_path();
       p = p.parent_path()) {
    if (p.filename() == "manifests") {
      out.push_back(p.parent_path() / "blobs");
      break;
    }
  }
  if (const char* env = std::getenv("OLLAMA_MODELS"); env != nullptr && *env != '\0') {
    out.push_back(fs::path(env) / "blobs");
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    out.push_back(fs::path(home) / ".ollama" / "models" / "blobs");
  }
  return out;
}

/// A JSON value of model_info as the GGUF value it was (Ollama decoded it from one).
auto gguf_value_of(const nlohmann::json& v, gguf::gguf_value& out) -> bool {
  using gguf::gguf_type;
  const auto scalar = [](const nlohmann::json& e, gguf::gguf_value& into) -> std::optional<gguf_type> {
    if (e.is_boolean()) {
      into.integers.push_back(e.get<bool>() ? 1 : 0);
      return gguf_type::boolean;
    }
    if (e.is_number_unsigned()) {
      const auto u = e.get<std::uint64_t>();
      into.integers.push_back(u);
      return u <= std::numeric_limits<std::uint32_t>::max() ? gguf_type::u32 : gguf_type::u64;
    }
    if (e.is_number_integer()) {
      const auto i = e.get<std::int64_t>();
      into.integers.push_back(static_cast<std::uint64_t>(i));
      return i >= std::numeric_limits<std::int32_t>::min() ? gguf_type::i32 : gguf_type::i64;
    }
    if (e.is_number_float()) {
      into.reals.push_back(e.get<double>());
      return gguf_type::f32;
    }
    if (e.is_string()) {
      into.strings.push_back(e.get<std::string>());
      return gguf_type::string;
    }
    return std::nullopt;
  };
  if (!v.is_array()) {
    const auto t = scalar(v, out);
    if (!t) {
      return false;
    }
    out.type = out.element = *t;
    return true;
  }
  out.type = gguf_type::array;
  out.element = gguf_type::u32;
  out.count = v.size();
  // One scalar type per array, as GGUF stores it; UINT32 and INT32 integers mix into INT32 (a
  // per-layer key takes either), anything else mixed is refused.
  std::optional<gguf_type> kind;
  for (const auto& e : v) {
    const auto t = scalar(e, out);
    if (!t || *t == gguf_type::u64 || *t == gguf_type::i64) {
      return false;
    }
    const bool integers = (*t == gguf_type::u32 || *t == gguf_type::i32);
    if (kind && *kind != *t && !(integers && (*kind == gguf_type::u32 || *kind == gguf_type::i32))) {
      return false;
    }
    kind = kind && integers && *kind != *t ? gguf_type::i32 : *t;
  }
  out.element = kind.value_or(gguf_type::u32);
  return true;
}

/// The on-disk ggml id of a type name as Ollama prints it ("Q4_K", "BF16"); nullopt if unknown.
auto ggml_id_of(const std::string& name) -> std::optional<std::uint32_t> {
  for (std::uint32_t id = 0; id < gguf::ggml_ids.size(); ++id) {
    const std::string_view known = gguf::ggml_ids[id].name;
    if (gguf::ggml_ids[id].block_elements != 0 && known.size() == name.size() &&
        std::equal(known.begin(), known.end(), name.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
        })) {
      return id;
    }
  }
  return std::nullopt;
}

/// /api/show's tensors: [{name, type, shape}] into tensor infos with exact bytes.
void read_show_tensors(const std::string& path, const nlohmann::json& tensors, gguf::gguf_header& h) {
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const auto& t = tensors[i];
    const std::string at = "/tensors/" + std::to_string(i);
    if (!t.is_object() || !t.contains("name") || !t["name"].is_string() || !t.contains("type") ||
        !t["type"].is_string() || !t.contains("shape") || !t["shape"].is_array() || t["shape"].size() > 4) {
      throw config_error(config_errc::wrong_type, path, at, "expected {name, type, shape} with at most 4 dimensions");
    }
    gguf::gguf_tensor_info info;
    info.name = t["name"].get<std::string>();
    const auto id = ggml_id_of(t["type"].get<std::string>());
    if (!id) {
      throw config_error(config_errc::unsupported, path, at + "/type",
                         "not a ggml tensor type: " + hf::detail::describe(t["type"]));
    }
    info.type = *id;
    std::uint64_t elements = 1;
    for (std::size_t j = 0; j < t["shape"].size(); ++j) {
      if (!t["shape"][j].is_number_unsigned()) {
        throw config_error(config_errc::wrong_type, path, at + "/shape", "expected non-negative integers");
      }
      info.ne[j] = t["shape"][j].get<std::uint64_t>();
      elements = kvsize::detail::checked_mul(elements, info.ne[j]);
    }
    info.n_dims = static_cast<std::uint32_t>(t["shape"].size());
    const auto& traits = gguf::ggml_ids[*id];
    if (info.ne[0] % traits.block_elements != 0) {
      throw config_error(config_errc::inconsistent, path, at + "/shape",
                         "a row is not a whole number of " + std::string(traits.name) + " blocks");
    }
    info.size = kvsize::detail::checked_mul(elements / traits.block_elements, traits.block_bytes);
    h.tensors.push_back(std::move(info));
  }
  h.tensor_count = h.tensors.size();
}

}  // namespace

auto json_input_kind(const nlohmann::json& doc) -> json_input {
  if (doc.is_object() && doc.contains("schemaVersion") && doc.contains("layers") && doc["layers"].is_array()) {
    return json_input::ollama_manifest;
  }
  if (doc.is_object() && doc.contains("model_info") && doc["model_info"].is_object()) {
    return json_input::ollama_show;
  }
  return json_input::config;
}

auto ollama_blob(const std::string& manifest_path, const nlohmann::json& doc, std::vector<std::string>& warnings)
    -> std::string {
  std::string model;
  std::size_t model_layer = 0;
  const auto& layers = doc["layers"];
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const auto& l = layers[i];
    const std::string media = l.is_object() && l.contains("mediaType") && l["mediaType"].is_string()
                                  ? l["mediaType"].get<std::string>()
                                  : "";
    if (media == projector_media_type && l.contains("size") && l["size"].is_number_unsigned()) {
      warnings.push_back(fmt::format("the manifest's projector (vision) blob, {} bytes, is not counted in the weights",
                                     l["size"].get<std::uint64_t>()));
    }
    if (media != model_media_type) {
      continue;
    }
    if (!model.empty()) {
      throw config_error(config_errc::unsupported, manifest_path, "/layers/" + std::to_string(i),
                         "a second model layer (the first is /layers/" + std::to_string(model_layer) + ")");
    }
    const std::string digest = l.contains("digest") && l["digest"].is_string() ? l["digest"].get<std::string>() : "";
    model = blob_name(digest);
    model_layer = i;
    if (model.empty()) {
      throw config_error(config_errc::wrong_type, manifest_path, "/layers/" + std::to_string(i) + "/digest",
                         "expected \"sha256:\" and 64 hex digits, got " +
                             (l.contains("digest") ? hf::detail::describe(l["digest"]) : std::string("nothing")));
    }
  }
  if (model.empty()) {
    throw config_error(config_errc::missing_key, manifest_path, "/layers",
                       std::string("no layer of media type ") + model_media_type);
  }
  std::string looked;
  for (const auto& folder : blob_folders(manifest_path)) {
    std::error_code ec;
    if (fs::is_regular_file(folder / model, ec)) {
      return (folder / model).string();
    }
    looked += (looked.empty() ? "" : ", ") + folder.string();
  }
  throw config_error(config_errc::io, manifest_path, "/layers/" + std::to_string(model_layer) + "/digest",
                     "the model blob " + model + " is in none of: " + looked);
}

auto header_from_show(const std::string& path, const nlohmann::json& doc) -> gguf::gguf_header {
  gguf::gguf_header h;
  h.version = 3;
  for (const auto& [key, value] : doc["model_info"].items()) {
    gguf::gguf_kv kv;
    kv.key = key;
    if (!gguf_value_of(value, kv.value)) {
      throw config_error(config_errc::wrong_type, path, hf::detail::child_pointer("/model_info", key),
                         "not a value a GGUF key holds: " + hf::detail::describe(value) +
                             " (arrays hold one scalar type)");
    }
    h.metadata.push_back(std::move(kv));
  }
  h.kv_count = h.metadata.size();
  if (doc.contains("tensors") && doc["tensors"].is_array()) {
    read_show_tensors(path, doc["tensors"], h);
  } else {
    h.has_tensor_table = false;  // the weights are unknown, not zero
  }
  return h;
}

}  // namespace kvsize::cli
