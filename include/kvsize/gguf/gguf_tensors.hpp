// SPDX-License-Identifier: MIT
// The fixed preamble (magic, version, counts), general.alignment and the tensor table of a GGUF
// header, with ggml's checks (gguf.cpp gguf_init_from_reader; docs/research/gguf-format.md §1.1,
// §1.4-1.7).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>        // std::uint32_t, std::uint64_t, std::int64_t
#include <limits>         // std::numeric_limits
#include <string>         // std::string
#include <unordered_set>  // std::unordered_set

#include "byte_source.hpp"
#include "ggml_ids.hpp"
#include "gguf_error.hpp"
#include "gguf_header.hpp"
#include "gguf_metadata.hpp"

namespace kvsize::gguf::detail {

/// Magic, version, tensor and key counts (24 bytes).
inline void read_preamble(byte_source& in, gguf_header& h) {
  unsigned char magic[4] = {0, 0, 0, 0};
  if (in.size() < 4) {
    throw gguf_error(gguf_errc::not_gguf, in.file(), 0, "",
                     "not a GGUF file: " + std::to_string(in.size()) + " bytes, fewer than the 4-byte magic");
  }
  in.read(magic, 4, "", "the magic");
  if (magic[0] != 'G' || magic[1] != 'G' || magic[2] != 'U' || magic[3] != 'F') {
    static constexpr char hex[] = "0123456789abcdef";
    std::string got;
    for (const unsigned char c : magic) {
      got += std::string(got.empty() ? "" : " ") + hex[c >> 4U] + hex[c & 15U];
    }
    throw gguf_error(gguf_errc::not_gguf, in.file(), 0, "",
                     "not a GGUF file: expected the magic 47 47 55 46 (\"GGUF\"), got " + got);
  }
  h.version = in.scalar<std::uint32_t>("", "the version");
  if (h.version != 0 && (h.version & 0xFFFFU) == 0) {
    throw gguf_error(gguf_errc::unsupported, in.file(), 4, "",
                     "version field " + std::to_string(h.version) +
                         " reads as a big-endian file; kvsize, like ggml, reads little-endian GGUF only");
  }
  if (h.version < 2 || h.version > 3) {
    throw gguf_error(h.version == 1 ? gguf_errc::unsupported : gguf_errc::invalid, in.file(), 4, "",
                     "GGUF version " + std::to_string(h.version) + "; kvsize, like ggml, reads versions 2 and 3" +
                         (h.version == 1 ? " (v1 is no longer supported)" : ""));
  }
  const auto count = [&](const char* what, std::uint64_t least) {
    const std::uint64_t at = in.offset();
    const auto n = in.scalar<std::int64_t>("", what);
    if (n < 0 || static_cast<std::uint64_t>(n) > in.remaining() / least) {
      throw gguf_error(gguf_errc::out_of_range, in.file(), at, "",
                       std::string(what) + " is " + std::to_string(n) + "; the " + std::to_string(in.remaining()) +
                           " bytes left hold at most " + std::to_string(in.remaining() / least));
    }
    return static_cast<std::uint64_t>(n);
  };
  h.tensor_count = count("the tensor count", min_tensor_bytes);
  h.kv_count = count("the key count", min_kv_bytes);
}

/// general.alignment: a UINT32, nonzero, a power of two (1, 2, 4 pass, as in ggml); default 32.
inline void read_alignment(const byte_source& in, gguf_header& h) {
  const gguf_kv* a = h.find("general.alignment");
  if (a == nullptr) {
    return;
  }
  const std::string subject = "key \"general.alignment\"";
  if (a->value.type != gguf_type::u32) {
    throw gguf_error(gguf_errc::wrong_type, in.file(), a->offset, subject,
                     "expected a UINT32, got " + std::string(name(a->value.type)));
  }
  const std::uint64_t v = a->value.integers.front();
  if (v == 0 || (v & (v - 1)) != 0) {
    throw gguf_error(gguf_errc::invalid, in.file(), a->offset, subject,
                     "expected a nonzero power of two, got " + std::to_string(v));
  }
  h.alignment = static_cast<std::uint32_t>(v);
}

[[nodiscard]] constexpr auto pad(std::uint64_t x, std::uint64_t alignment) -> std::uint64_t {
  return x + (alignment - x % alignment) % alignment;  // callers check x + alignment cannot wrap
}

/// One tensor entry: name, dims, type, offset; its exact bytes.
[[nodiscard]] inline auto read_tensor_info(byte_source& in, std::uint64_t index,
                                           std::unordered_set<std::string>& names) -> gguf_tensor_info {
  gguf_tensor_info t;
  t.info_offset = in.offset();
  const std::string numbered = "tensor #" + std::to_string(index);
  t.name = read_string(in, numbered, "a tensor name");
  const std::string subject = "tensor " + quote_name(t.name);
  const auto fail = [&](gguf_errc c, std::string message) {
    throw gguf_error(c, in.file(), t.info_offset, subject, std::move(message));
  };
  if (t.name.size() > max_tensor_name) {
    fail(gguf_errc::out_of_range, "a name of " + std::to_string(t.name.size()) + " bytes; ggml allows at most 63");
  }
  if (!names.insert(t.name).second) {
    fail(gguf_errc::invalid, "a duplicate tensor name (ggml refuses the file)");
  }
  t.n_dims = in.scalar<std::uint32_t>(subject, "the dimension count");
  if (t.n_dims > 4) {
    fail(gguf_errc::out_of_range, std::to_string(t.n_dims) + " dimensions; ggml allows at most 4");
  }
  std::uint64_t elements = 1;
  for (std::uint32_t j = 0; j < t.n_dims; ++j) {
    const auto ne = in.scalar<std::int64_t>(subject, "a dimension");
    if (ne < 0) {
      fail(gguf_errc::out_of_range, "dimension " + std::to_string(j) + " is " + std::to_string(ne));
    }
    t.ne[j] = static_cast<std::uint64_t>(ne);
    const auto limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (t.ne[j] != 0 && elements > limit / t.ne[j]) {
      fail(gguf_errc::out_of_range, "the shape's element count exceeds 2^63 - 1");
    }
    elements *= t.ne[j];
  }
  const std::uint64_t type_at = in.offset();
  const auto type = in.scalar<std::int32_t>(subject, "the ggml type");
  const auto traits = type >= 0 ? ggml_id(static_cast<std::uint32_t>(type)) : std::nullopt;
  if (!traits) {
    throw gguf_error(gguf_errc::invalid, in.file(), type_at, subject,
                     "ggml type " + std::to_string(type) + " is unknown (ids 0 to 42)");
  }
  if (traits->block_elements == 0) {
    throw gguf_error(gguf_errc::invalid, in.file(), type_at, subject,
                     "ggml type " + std::to_string(type) + " (" + std::string(traits->name) +
                         ") was removed from ggml; files cannot use it");
  }
  t.type = static_cast<std::uint32_t>(type);
  if (t.ne[0] % traits->block_elements != 0) {
    fail(gguf_errc::invalid, "a row of " + std::to_string(t.ne[0]) + " values is not a whole number of " +
                                 std::string(traits->name) + " blocks (" + std::to_string(traits->block_elements) +
                                 " values)");
  }
  // elements < 2^63 and block_bytes ≤ 292 per ≥ 1 value: / then × cannot wrap 2^64... except for
  // blocks larger than their element count (f32: 4 bytes per value), so check the product.
  const std::uint64_t blocks = elements / traits->block_elements;
  if (blocks > std::numeric_limits<std::uint64_t>::max() / traits->block_bytes) {
    fail(gguf_errc::out_of_range, "the tensor's byte size exceeds 2^64");
  }
  t.size = blocks * traits->block_bytes;
  t.data_offset = in.scalar<std::uint64_t>(subject, "the data offset");
  return t;
}

/// The tensor table, the data section's start, and ggml's offset rule: each tensor starts exactly
/// where the one before it ends, padded to the alignment (no gaps, no overlap, file order).
inline void read_tensor_table(byte_source& in, gguf_header& h) {
  std::unordered_set<std::string> names;
  h.tensors.reserve(h.tensor_count);  // ≤ remaining / 25 bytes: bounded by the file
  for (std::uint64_t i = 0; i < h.tensor_count; ++i) {
    h.tensors.push_back(read_tensor_info(in, i, names));
  }
  h.data_offset = in.offset();
  if (h.tensor_count == 0) {
    return;  // ggml pads only before tensor data; vocabulary-only files end at their last key
  }
  h.data_offset = pad(in.offset(), h.alignment);
  if (h.data_offset > in.size()) {
    throw gguf_error(gguf_errc::truncated, in.file(), in.offset(), "",
                     "the file ends before the padding to the data section (alignment " +
                         std::to_string(h.alignment) + ")");
  }
  std::uint64_t expected = 0;
  for (const auto& t : h.tensors) {
    if (t.data_offset != expected) {
      throw gguf_error(gguf_errc::invalid, in.file(), t.info_offset, "tensor " + quote_name(t.name),
                       "data offset " + std::to_string(t.data_offset) + ", expected " + std::to_string(expected) +
                           ": ggml requires each tensor to follow the one before it, padded to " +
                           std::to_string(h.alignment) + " bytes");
    }
    if (expected > std::numeric_limits<std::uint64_t>::max() - h.alignment ||
        t.size > std::numeric_limits<std::uint64_t>::max() - expected - h.alignment) {
      throw gguf_error(gguf_errc::out_of_range, in.file(), t.info_offset, "tensor " + quote_name(t.name),
                       "the tensor data ends past 2^64 bytes");
    }
    expected = pad(expected + t.size, h.alignment);
  }
  h.data_size = expected;
}

}  // namespace kvsize::gguf::detail
