// SPDX-License-Identifier: MIT
// kvsize::gguf::read_gguf: a GGUF header (v2 and v3, little-endian) read the way ggml's
// gguf_init_from_reader reads it, with every check ggml makes, from a stream it never reads tensor
// data from. Layout, checks and sources (ggml/src/gguf.cpp): docs/research/gguf-format.md §1.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>        // std::uint32_t, std::uint64_t, std::int32_t, std::int64_t
#include <filesystem>     // std::filesystem::path
#include <fstream>        // std::ifstream
#include <istream>        // std::istream
#include <string>         // std::string
#include <unordered_set>  // std::unordered_set
#include <utility>        // std::move

#include "byte_source.hpp"
#include "gguf_error.hpp"
#include "gguf_header.hpp"
#include "gguf_metadata.hpp"
#include "gguf_tensors.hpp"

namespace kvsize::gguf {


/// Reads the header of the GGUF in `in` (named `file` in errors). Throws gguf_error on any defect,
/// with the byte offset and the key or tensor it belongs to.
[[nodiscard]] inline auto read_gguf(std::istream& in, const std::string& file, const read_options& o = {})
    -> gguf_header {
  detail::byte_source src(in, file);
  gguf_header h;
  h.file_size = src.size();
  detail::read_preamble(src, h);
  std::unordered_set<std::string> keys;
  std::string block_count_key;
  for (std::uint64_t i = 0; i < h.kv_count; ++i) {
    gguf_kv kv;
    kv.offset = src.offset();
    kv.key = detail::read_string(src, "key #" + std::to_string(i), "a key");
    const std::string subject = "key " + detail::quote_name(kv.key);
    if (kv.key.empty()) {
      throw gguf_error(gguf_errc::invalid, file, kv.offset, "key #" + std::to_string(i), "an empty key");
    }
    if (!keys.insert(kv.key).second) {
      throw gguf_error(gguf_errc::invalid, file, kv.offset, subject, "a duplicate key (ggml refuses the file)");
    }
    if (o.metadata_only && !block_count_key.empty() && keys.count(block_count_key) != 0 &&
        kv.key.rfind("tokenizer.", 0) == 0) {
      h.stopped_at = kv.offset;
      h.bytes_read = src.bytes_read();
      return h;
    }
    detail::read_value(src, kv.value, o, subject);
    if (kv.key == "general.architecture" && kv.value.type == gguf_type::string) {
      block_count_key = kv.value.strings.front() + ".block_count";
    }
    h.metadata.push_back(std::move(kv));
  }
  detail::read_alignment(src, h);
  detail::read_tensor_table(src, h);
  h.bytes_read = src.bytes_read();
  return h;
}

/// read_gguf of the file at `path`; io errors name the path.
[[nodiscard]] inline auto load_gguf(const std::filesystem::path& path, const read_options& o = {}) -> gguf_header {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw gguf_error(gguf_errc::io, path.string(), 0, "", "cannot open the file for reading");
  }
  return read_gguf(in, path.string(), o);
}

}  // namespace kvsize::gguf
