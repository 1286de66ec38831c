// SPDX-License-Identifier: MIT
#include "model_input.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <utility>

#include "ollama_input.hpp"

#include <fmt/format.h>

namespace kvsize::cli {

auto is_gguf_file(const std::string& path) -> bool {
  std::error_code ec;
  if (path == "-" || !std::filesystem::is_regular_file(path, ec)) {
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {0, 0, 0, 0};
  in.read(magic, 4);
  return in.gcount() == 4 && magic[0] == 'G' && magic[1] == 'G' && magic[2] == 'U' && magic[3] == 'F';
}

namespace {

/// Consecutive layers that keep the same thing for the same reason, as one note.
void group_layers(const gguf::gguf_model& g, hf::parsed_config& out) {
  const model_spec& m = g.spec;
  const auto same = [&](std::uint32_t a, std::uint32_t b) {
    return kind_of_layer(m, a) == kind_of_layer(m, b) && m.layer[a].recurrent == m.layer[b].recurrent &&
           kv_heads_of_layer(m, a) == kv_heads_of_layer(m, b) && head_dim_of_layer(m, a) == head_dim_of_layer(m, b) &&
           head_dim_v_of_layer(m, a) == head_dim_v_of_layer(m, b) && g.layer_reasons[a] == g.layer_reasons[b];
  };
  for (std::uint32_t il = 0; il < m.layers; ++il) {
    if (il == 0 || !same(il - 1, il)) {
      hf::layer_group_note note;
      note.first_layer = il;
      note.kind = kind_of_layer(m, il);
      note.recurrent = m.layer[il].recurrent;
      note.why = {{"", hf::reason_rule::note, g.layer_reasons[il], {}}};
      out.layers.push_back(std::move(note));
    }
    ++out.layers.back().count;
  }
  for (auto& note : out.layers) {
    note.reason = hf::render_reason(note.why, note.first_layer, note.count);
  }
}

}  // namespace

auto parsed_from_gguf(const gguf::gguf_model& g) -> hf::parsed_config {
  hf::parsed_config out;
  out.spec = g.spec;
  out.model_type = g.architecture;
  out.architecture = g.architecture;
  out.warnings = g.warnings;
  out.warnings.push_back(
      "a GGUF file: the KV cache is sized in f16, the cache type llama.cpp uses unless given --cache-type-k/-v; "
      "pass --engine llama.cpp for llama.cpp's own cells, padding and compute buffer");
  group_layers(g, out);
  hf::checkpoint_weights w;  // a GGUF states its weights: never the formula over a shape it only sketches
  w.source = "GGUF tensor table";
  w.as_loaded = true;
  if (!g.weights) {
    w.unknown_because = "the GGUF's weights could not be counted (see the warnings)";
  } else if (g.weights->tensors == 0) {
    w.unknown_because = "the GGUF file has no tensors (a vocabulary-only file), so its weights are unknown";
  }
  if (g.weights) {
    w.format = g.weights->file_type;
    w.bytes = g.weights->bytes;
    w.parameters = g.weights->elements;
    w.active_parameters = g.active_parameters();
    w.tensors = g.weights->tensors;
    const gguf::loaded_blocks loaded = gguf::loaded_blocks_of(g);
    w.block_bytes = loaded.bytes;
    w.block_expert_bytes = loaded.experts;
    if (loaded.skipped != 0) {
      out.warnings.push_back(fmt::format(
          "the last {} block(s) are multi-token-prediction heads ({}.nextn_predict_layers): their {} B are in the file "
          "but llama.cpp does not load them (TENSOR_SKIP), so the offload split leaves them out",
          g.unloaded_blocks, g.architecture, loaded.skipped));
    }
    w.output_slot_bytes = g.weights->output_slot;
    w.other_input_bytes = g.weights->other_input;
    w.token_embedding_bytes = g.weights->token_embedding;
    w.tied_output = g.weights->output == 0;
    w.named = g.weights->named;
  }
  out.checkpoint = w;
  return out;
}

namespace {

/// /api/show output as a GGUF model; a GGUF-key defect becomes a config_error at /model_info/<key>,
/// with Ollama's habit of emptying long arrays named where it explains the defect.
auto model_from_show(const std::string& path, const nlohmann::json& doc) -> hf::parsed_config {
  const gguf::gguf_header h = header_from_show(path, doc);
  try {
    hf::parsed_config out = parsed_from_gguf(gguf::model_of(h, path));
    if (!h.has_tensor_table) {
      out.warnings.push_back("the /api/show output lists no tensors, so the weights are not counted");
    }
    return out;
  } catch (const gguf::gguf_error& e) {
    std::string pointer = "/model_info";
    if (const auto q = e.subject().find('"'); q != std::string::npos && e.subject().rfind("key ", 0) == 0) {
      pointer = hf::detail::child_pointer("/model_info", e.subject().substr(q + 1, e.subject().size() - q - 2));
    }
    bool emptied = false;
    for (const auto& kv : h.metadata) {
      emptied = emptied || (kv.value.type == gguf::gguf_type::array && kv.value.count == 0);
    }
    throw hf::config_error(hf::config_errc::missing_key, path, pointer,
                           e.message() + (emptied ? " (/api/show empties arrays of more than 5 elements unless asked "
                                                    "with \"verbose\": true; `ollama show --verbose`)"
                                                  : ""));
  }
}

}  // namespace

auto load_model(const std::string& path) -> hf::parsed_config {
  if (is_gguf_file(path)) {
    return parsed_from_gguf(gguf::load_gguf_model(path));
  }
  std::error_code ec;
  if (path == "-" || std::filesystem::is_regular_file(path, ec)) {  // JSON: a config.json, or Ollama's
    const std::string name = path == "-" ? "<stdin>" : path;
    std::ifstream in;
    if (path != "-") {
      in.open(path, std::ios::binary);
    }
    if (path == "-" || in) {  // a file that cannot be opened is left to load_config, whose message says why
      const std::string text = hf::detail::read_capped(path == "-" ? std::cin : in, name, hf::parse_limits{}.max_bytes);
      // Only an Ollama document has these keys; a config.json is parsed once, by the config reader.
      if (text.find("\"schemaVersion\"") != std::string::npos || text.find("\"model_info\"") != std::string::npos) {
        const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
        const json_input kind = doc.is_discarded() ? json_input::config : json_input_kind(doc);
        if (kind == json_input::ollama_manifest) {
          std::vector<std::string> warnings;
          const std::string blob = ollama_blob(name, doc, warnings);
          hf::parsed_config out = parsed_from_gguf(gguf::load_gguf_model(blob));
          out.warnings.insert(out.warnings.begin(), "an Ollama manifest: its model blob is " + blob);
          out.warnings.insert(out.warnings.end(), warnings.begin(), warnings.end());
          return out;
        }
        if (kind == json_input::ollama_show) {
          return model_from_show(name, doc);
        }
      }
      return hf::parse_config(text, name);
    }
  }
  hf::parsed_config config = hf::load_config(path);
  if (path != "-" && std::filesystem::is_directory(path, ec)) {
    try {  // a weights-only problem never blocks the KV answer
      config.checkpoint = hf::read_checkpoint(path);
      if (config.checkpoint && config.checkpoint->stated_bytes &&
          *config.checkpoint->stated_bytes != config.checkpoint->bytes) {
        config.warnings.push_back(fmt::format(
            "{}/model.safetensors.index.json:/metadata/total_size is {}, but its shards hold {} bytes of tensors "
            "(the shards' headers are what kvsize counts)",
            path, *config.checkpoint->stated_bytes, config.checkpoint->bytes));
      }
    } catch (const hf::config_error& e) {
      config.warnings.push_back(fmt::format("the checkpoint's weights were not read: {}", e.what()));
    }
  }
  return config;
}

}  // namespace kvsize::cli
