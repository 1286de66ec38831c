// SPDX-License-Identifier: MIT
#include "model_input.hpp"

#include <filesystem>
#include <fstream>
#include <utility>

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
  if (g.weights) {
    hf::checkpoint_weights w;
    w.source = "GGUF tensor table";
    w.as_loaded = true;
    w.format = g.weights->file_type;
    w.bytes = g.weights->bytes;
    w.parameters = g.weights->elements;
    w.active_parameters = g.active_parameters();
    w.tensors = g.weights->tensors;
    out.checkpoint = w;
  }
  return out;
}

auto load_model(const std::string& path) -> hf::parsed_config {
  if (is_gguf_file(path)) {
    return parsed_from_gguf(gguf::load_gguf_model(path));
  }
  hf::parsed_config config = hf::load_config(path);
  std::error_code ec;
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
