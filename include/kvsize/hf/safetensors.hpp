// SPDX-License-Identifier: MIT
// The weights of a downloaded checkpoint, to the byte, from its safetensors headers: each shard
// starts with an 8-byte little-endian length N and N bytes of JSON, {name: {dtype, shape,
// data_offsets: [begin, end]}, "__metadata__": {...}}. Read and checked as the safetensors crate
// checks them (huggingface/safetensors safetensors/src/tensor.rs @ 24b0b285: MAX_HEADER_SIZE
// 100,000,000; Metadata::validate: tensors sorted by offset, contiguous from 0, end - begin =
// elements × the dtype's bits / 8; the data ends where the file does). Tensor data is never read.
// A model folder's shards come from model.safetensors.index.json's weight_map, or are the one
// model.safetensors.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>   // std::sort
#include <cstdint>     // std::uint64_t
#include <filesystem>  // std::filesystem::path
#include <fstream>     // std::ifstream
#include <map>         // std::map
#include <optional>    // std::optional
#include <string>      // std::string
#include <vector>      // std::vector

#include <nlohmann/json.hpp>

#include "../hf_config.hpp"
#include "error.hpp"
#include "parsed_config.hpp"

namespace kvsize::hf {

/// One tensor of a safetensors header.
struct safetensors_tensor {
  std::string name;
  std::string dtype;                ///< "BF16", "F8_E4M3", "I32", ...
  std::vector<std::uint64_t> shape;
  std::uint64_t begin = 0;          ///< data_offsets, relative to the byte after the header
  std::uint64_t end = 0;
};

/// One shard's header.
struct safetensors_header {
  std::uint64_t header_bytes = 0;  ///< N
  std::uint64_t data_bytes = 0;    ///< the last tensor's end
  std::vector<safetensors_tensor> tensors;  ///< by offset
};

namespace detail {

/// Bits per element of a safetensors dtype (tensor.rs Dtype::bitsize); 0 for a name it does not know.
[[nodiscard]] inline auto safetensors_bits(const std::string& dtype) -> std::uint64_t {
  static const std::map<std::string, std::uint64_t> bits{
      {"BOOL", 8},        {"F4", 4},           {"F6_E2M3", 6},      {"F6_E3M2", 6},  {"U8", 8},   {"I8", 8},
      {"F8_E5M2", 8},     {"F8_E4M3", 8},      {"F8_E8M0", 8},      {"F8_E4M3FNUZ", 8}, {"F8_E5M2FNUZ", 8},
      {"I16", 16},        {"U16", 16},         {"F16", 16},         {"BF16", 16},    {"I32", 32}, {"U32", 32},
      {"F32", 32},        {"C64", 64},         {"F64", 64},         {"I64", 64},     {"U64", 64}};
  const auto it = bits.find(dtype);
  return it == bits.end() ? 0 : it->second;
}

inline constexpr std::uint64_t safetensors_max_header = 100'000'000;  // tensor.rs MAX_HEADER_SIZE

/// One entry of the header (a tensor), checked; `pointer` is its JSON pointer.
[[nodiscard]] inline auto read_safetensors_entry(const std::string& name, const nlohmann::json& v,
                                                 const std::string& pointer) -> safetensors_tensor {
  safetensors_tensor t;
  t.name = name;
  if (!v.is_object() || !v.contains("dtype") || !v.contains("shape") || !v.contains("data_offsets")) {
    fail(config_errc::wrong_type, pointer, "expected an object with dtype, shape and data_offsets");
  }
  const auto& dtype = v["dtype"];
  if (!dtype.is_string() || safetensors_bits(dtype.get<std::string>()) == 0) {
    fail(config_errc::unsupported, pointer + "/dtype",
         "expected a safetensors dtype (BF16, F16, F32, F8_E4M3, I32, ...), got " + describe(dtype));
  }
  t.dtype = dtype.get<std::string>();
  const auto& shape = v["shape"];
  const auto& offsets = v["data_offsets"];
  if (!shape.is_array() || shape.size() > 64) {
    fail(config_errc::wrong_type, pointer + "/shape", "expected an array of dimensions");
  }
  for (const auto& d : shape) {
    if (!d.is_number_unsigned()) {
      fail(config_errc::wrong_type, pointer + "/shape", "expected non-negative integers, got " + describe(d));
    }
    t.shape.push_back(d.get<std::uint64_t>());
  }
  if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
      !offsets[1].is_number_unsigned()) {
    fail(config_errc::wrong_type, pointer + "/data_offsets", "expected [begin, end], two non-negative integers");
  }
  t.begin = offsets[0].get<std::uint64_t>();
  t.end = offsets[1].get<std::uint64_t>();
  std::uint64_t bits = safetensors_bits(t.dtype);
  if (std::find(t.shape.begin(), t.shape.end(), std::uint64_t{0}) != t.shape.end()) {
    bits = 0;  // an empty tensor, however large its other dimensions (the crate checks the product)
  }
  for (const std::uint64_t d : bits == 0 ? std::vector<std::uint64_t>{} : t.shape) {
    if (d != 0 && bits > UINT64_MAX / d) {
      fail(config_errc::out_of_range, pointer + "/shape", "the tensor's size exceeds 2^64 bits");
    }
    bits *= d;
  }
  if (t.end < t.begin || bits % 8 != 0 || t.end - t.begin != bits / 8) {
    fail(config_errc::inconsistent, pointer + "/data_offsets",
         "[" + std::to_string(t.begin) + ", " + std::to_string(t.end) + "] does not hold " +
             (bits % 8 != 0 ? "a whole number of bytes" : std::to_string(bits / 8) + " bytes") + " of " +
             t.dtype + " with this shape");
  }
  return t;
}

}  // namespace detail

/// The header of one safetensors file. Throws config_error (file = the shard, pointer = the
/// entry) for anything the safetensors crate refuses.
[[nodiscard]] inline auto read_safetensors_header(const std::filesystem::path& path) -> safetensors_header {
  const std::string file = path.string();
  return detail::with_file(file, [&] {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      detail::fail(config_errc::io, "", "cannot open the file for reading");
    }
    std::error_code ec;
    const std::uint64_t size = std::filesystem::file_size(path, ec);
    unsigned char len[8] = {};
    in.read(reinterpret_cast<char*>(len), 8);
    if (ec || in.gcount() != 8) {
      detail::fail(config_errc::io, "", "not a safetensors file: shorter than its 8-byte header length");
    }
    safetensors_header h;
    for (int i = 7; i >= 0; --i) {
      h.header_bytes = (h.header_bytes << 8U) | len[i];
    }
    if (h.header_bytes > detail::safetensors_max_header || h.header_bytes > size - 8) {
      detail::fail(config_errc::out_of_range, "",
                   "a header of " + std::to_string(h.header_bytes) + " bytes; safetensors allows 100,000,000, and " +
                       std::to_string(size - 8) + " bytes follow the length");
    }
    std::string text(h.header_bytes, '\0');
    in.read(text.data(), static_cast<std::streamsize>(h.header_bytes));
    const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
      detail::fail(config_errc::syntax, "", "the header is not a JSON object");
    }
    for (const auto& [name, value] : doc.items()) {
      if (name == "__metadata__") {
        continue;  // free-form strings ("format": "pt")
      }
      h.tensors.push_back(detail::read_safetensors_entry(name, value, detail::child_pointer("", name)));
    }
    std::sort(h.tensors.begin(), h.tensors.end(), [](const safetensors_tensor& a, const safetensors_tensor& b) {
      return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;  // the crate's (begin, end) order
    });
    for (const auto& t : h.tensors) {  // contiguous from 0, in offset order
      if (t.begin != h.data_bytes) {
        detail::fail(config_errc::inconsistent, detail::child_pointer("", t.name) + "/data_offsets",
                     "begins at " + std::to_string(t.begin) + ", expected " + std::to_string(h.data_bytes) +
                         " (tensors follow each other with no gap or overlap)");
      }
      h.data_bytes = t.end;
    }
    if (8 + h.header_bytes + h.data_bytes != size) {
      detail::fail(config_errc::inconsistent, "",
                   "the tensors end at byte " + std::to_string(8 + h.header_bytes + h.data_bytes) +
                       " but the file has " + std::to_string(size));
    }
    return h;
  });
}

/// The checkpoint in model folder `dir`: every shard model.safetensors.index.json names (or the one
/// model.safetensors), summed. nullopt when the folder has neither. Throws config_error for a
/// broken index or shard (the caller decides: kvsize warns and sizes the KV anyway).
[[nodiscard]] inline auto read_checkpoint(const std::filesystem::path& dir) -> std::optional<checkpoint_weights> {
  std::error_code ec;
  const auto index = dir / "model.safetensors.index.json";
  std::vector<std::filesystem::path> shards;
  std::optional<std::uint64_t> stated;
  if (std::filesystem::is_regular_file(index, ec)) {
    detail::with_file(index.string(), [&] {
      std::ifstream in(index, std::ios::binary);
      const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
      if (doc.is_discarded() || !doc.is_object() || !doc.contains("weight_map") || !doc["weight_map"].is_object()) {
        detail::fail(config_errc::syntax, "/weight_map", "expected a JSON object with a weight_map object");
      }
      std::vector<std::string> names;
      if (doc.contains("metadata") && doc["metadata"].is_object() && doc["metadata"].contains("total_size") &&
          doc["metadata"]["total_size"].is_number_unsigned()) {
        stated = doc["metadata"]["total_size"].get<std::uint64_t>();
      }
      for (const auto& [tensor, shard] : doc["weight_map"].items()) {
        if (!shard.is_string() || shard.get<std::string>().find('/') != std::string::npos) {
          detail::fail(config_errc::wrong_type, detail::child_pointer("/weight_map", tensor),
                       "expected a shard file name in this folder");
        }
        names.push_back(shard.get<std::string>());
      }
      std::sort(names.begin(), names.end());
      names.erase(std::unique(names.begin(), names.end()), names.end());
      for (const auto& n : names) {
        shards.push_back(dir / n);
      }
      return 0;
    });
  } else if (std::filesystem::is_regular_file(dir / "model.safetensors", ec)) {
    shards.push_back(dir / "model.safetensors");
  } else {
    return std::nullopt;
  }
  checkpoint_weights w;
  w.source = "safetensors, " + std::to_string(shards.size()) + (shards.size() == 1 ? " file" : " shards");
  for (const auto& shard : shards) {
    for (const auto& t : read_safetensors_header(shard).tensors) {
      std::uint64_t elements = 1;
      for (const std::uint64_t d : t.shape) {
        elements *= d;  // ≤ bits, checked by the header reader
      }
      w.bytes += t.end - t.begin;
      w.parameters += elements;
      ++w.tensors;
    }
  }
  w.active_parameters = w.parameters;
  w.stated_bytes = stated;
  return w;
}

}  // namespace kvsize::hf
