// SPDX-License-Identifier: MIT
// A GGUF writer for tests: builds headers byte by byte (little-endian), so that each test states
// exactly the file it reads, valid or hostile.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <kvsize/gguf.hpp>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

namespace kvsize_test {

class gguf_writer {
 public:
  explicit gguf_writer(std::uint32_t version = 3) {
    raw("GGUF");
    u32(version);
    tensor_count_at_ = bytes_.size();
    u64(0);
    kv_count_at_ = bytes_.size();
    u64(0);
  }

  // Primitive writes (little-endian).
  auto raw(const std::string& s) -> gguf_writer& { bytes_ += s; return *this; }
  auto le(std::uint64_t v, int n) -> gguf_writer& {
    for (int i = 0; i < n; ++i) {
      bytes_ += static_cast<char>((v >> (8 * i)) & 0xFFU);
    }
    return *this;
  }
  auto u8(std::uint64_t v) -> gguf_writer& { return le(v, 1); }
  auto u32(std::uint64_t v) -> gguf_writer& { return le(v, 4); }
  auto u64(std::uint64_t v) -> gguf_writer& { return le(v, 8); }
  auto str(const std::string& s) -> gguf_writer& { return u64(s.size()).raw(s); }

  // Key/value pairs; each bumps the stated count.
  auto kv_u32(const std::string& k, std::uint32_t v) -> gguf_writer& { return key(k, 4).u32(v); }
  auto kv_i32(const std::string& k, std::int32_t v) -> gguf_writer& {
    return key(k, 5).u32(static_cast<std::uint32_t>(v));
  }
  auto kv_f32(const std::string& k, float v) -> gguf_writer& {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &v, 4);
    return key(k, 6).u32(bits);
  }
  auto kv_bool(const std::string& k, bool v) -> gguf_writer& { return key(k, 7).u8(v ? 1 : 0); }
  auto kv_str(const std::string& k, const std::string& v) -> gguf_writer& { return key(k, 8).str(v); }
  auto kv_u64(const std::string& k, std::uint64_t v) -> gguf_writer& { return key(k, 10).u64(v); }
  /// An array of `type` (4 = UINT32, 5 = INT32, 7 = BOOL) from integers.
  auto kv_ints(const std::string& k, std::uint32_t type, const std::vector<std::int64_t>& v) -> gguf_writer& {
    key(k, 9).u32(type).u64(v.size());
    const int width = type == 7 || type == 0 || type == 1 ? 1 : type == 2 || type == 3 ? 2 : type >= 10 ? 8 : 4;
    for (const auto e : v) {
      le(static_cast<std::uint64_t>(e), width);
    }
    return *this;
  }
  auto kv_strs(const std::string& k, const std::vector<std::string>& v) -> gguf_writer& {
    key(k, 9).u32(8).u64(v.size());
    for (const auto& s : v) {
      str(s);
    }
    return *this;
  }
  /// The key and its type id only: the caller writes the value (hostile files).
  auto key(const std::string& k, std::uint32_t type) -> gguf_writer& {
    ++kv_count_;
    patch(kv_count_at_, kv_count_);
    return str(k).u32(type);
  }

  /// A tensor entry; offset by default where the previous tensor ends, padded to `alignment`.
  auto tensor(const std::string& name, std::initializer_list<std::uint64_t> ne, std::uint32_t type,
              std::uint64_t size_bytes, std::int64_t offset = -1) -> gguf_writer& {
    ++tensor_count_;
    patch(tensor_count_at_, tensor_count_);
    str(name).u32(ne.size());
    for (const auto d : ne) {
      u64(d);
    }
    u32(type);
    u64(offset >= 0 ? static_cast<std::uint64_t>(offset) : next_offset_);
    next_offset_ += (size_bytes + alignment - 1) / alignment * alignment;
    return *this;
  }

  /// The file: header, then (with tensors) the padding and `data` bytes of zeros.
  [[nodiscard]] auto bytes(bool with_padding = true, std::uint64_t data = 0) const -> std::string {
    std::string out = bytes_;
    if (tensor_count_ != 0 && with_padding) {
      out.append((alignment - out.size() % alignment) % alignment, '\0');
    }
    out.append(data, '\0');
    return out;
  }
  auto set_count(bool tensors, std::uint64_t n) -> gguf_writer& {
    patch(tensors ? tensor_count_at_ : kv_count_at_, n);
    return *this;
  }

  std::uint64_t alignment = 32;

 private:
  void patch(std::size_t at, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      bytes_[at + static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xFFU);
    }
  }
  std::string bytes_;
  std::size_t tensor_count_at_ = 0;
  std::size_t kv_count_at_ = 0;
  std::uint64_t tensor_count_ = 0;
  std::uint64_t kv_count_ = 0;
  std::uint64_t next_offset_ = 0;
};

/// read_gguf over an in-memory file.
inline auto read_bytes(const std::string& bytes, const kvsize::gguf::read_options& o = {})
    -> kvsize::gguf::gguf_header {
  std::istringstream in(bytes);
  return kvsize::gguf::read_gguf(in, "test.gguf", o);
}

/// The keys every model header has, as llama.cpp's converter writes them ("<arch>.block_count", ...).
/// A zero `heads`, `kv_heads` or `vocab` leaves that key out (a test writes its own form of it).
struct header_keys {
  std::uint32_t layers = 4;
  std::uint32_t context = 4'096;
  std::uint32_t embedding = 4'096;
  std::uint32_t heads = 32;
  std::uint32_t kv_heads = 8;
  std::uint32_t vocab = 32'000;
};

inline auto model_header(const std::string& arch, const header_keys& k) -> gguf_writer {
  gguf_writer w;
  w.kv_str("general.architecture", arch)
      .kv_u32(arch + ".block_count", k.layers)
      .kv_u32(arch + ".context_length", k.context)
      .kv_u32(arch + ".embedding_length", k.embedding);
  if (k.heads != 0) {
    w.kv_u32(arch + ".attention.head_count", k.heads);
  }
  if (k.kv_heads != 0) {
    w.kv_u32(arch + ".attention.head_count_kv", k.kv_heads);
  }
  if (k.vocab != 0) {
    w.kv_u32(arch + ".vocab_size", k.vocab);
  }
  return w;
}

/// A llama-style model header: `layers` blocks of 32 heads, 8 KV heads (Llama-3-8B's shape).
inline auto llama_header(const std::string& arch = "llama", std::uint32_t layers = 4) -> gguf_writer {
  auto w = model_header(arch, {.layers = layers, .context = 8'192, .vocab = 128'256});
  w.kv_u32(arch + ".feed_forward_length", 14'336);
  return w;
}

/// A GGUF file at `file` for the offload tests: llama_header's shape with `layers` blocks of one 1 MiB
/// f32 tensor (512 × 512) each, token_embd and output 1 MiB each (8 KV heads × 128 in f16: 16 MiB a
/// layer at -c 4096).
inline void write_mib_blocks_gguf(const std::filesystem::path& file, std::uint32_t layers) {
  constexpr std::uint64_t mib = 1ULL << 20U;
  auto w = llama_header("llama", layers);
  w.tensor("token_embd.weight", {512, 512}, 0, mib).tensor("output.weight", {512, 512}, 0, mib);
  for (std::uint32_t il = 0; il < layers; ++il) {
    w.tensor("blk." + std::to_string(il) + ".attn_q.weight", {512, 512}, 0, mib);
  }
  std::ofstream(file, std::ios::binary) << w.bytes(true, (layers + 2) * mib);
}

/// The attention keys of llama.cpp's ggml-vocab-gemma-4.gguf (Gemma-4-26B-A4B's header, read with
/// @huggingface/gguf; its tokenizer is left out), written as the converter writes them.
inline auto gemma4_26b_header() -> gguf_writer {
  std::vector<std::int64_t> kv_heads;
  std::vector<std::int64_t> slides;
  for (int il = 0; il < 30; ++il) {
    kv_heads.push_back(il % 6 == 5 ? 2 : 8);
    slides.push_back(il % 6 == 5 ? 0 : 1);
  }
  auto w = model_header("gemma4", {.layers = 30, .context = 262'144, .embedding = 2'816, .heads = 16, .kv_heads = 0,
                                   .vocab = 0});
  w.kv_ints("gemma4.attention.head_count_kv", 5, kv_heads)
      .kv_u32("gemma4.feed_forward_length", 2'112)
      .kv_u32("gemma4.expert_count", 128)
      .kv_u32("gemma4.expert_used_count", 8)
      .kv_u32("gemma4.attention.key_length", 512)
      .kv_u32("gemma4.attention.value_length", 512)
      .kv_u32("general.file_type", 1)
      .kv_u32("gemma4.attention.sliding_window", 1'024)
      .kv_u32("gemma4.attention.shared_kv_layers", 0)
      .kv_ints("gemma4.attention.sliding_window_pattern", 7, slides)
      .kv_u32("gemma4.attention.key_length_swa", 256)
      .kv_u32("gemma4.attention.value_length_swa", 256)
      .kv_u32("gemma4.rope.dimension_count", 512)
      .kv_strs("tokenizer.ggml.tokens", std::vector<std::string>(262'144, "t"));
  return w;
}

/// `read()` must throw a gguf_error of `code` whose message names "test.gguf", contains `words`
/// and, when `offset` is given, locates the defect at that byte.
template <class Read>
void require_gguf_refused(Read&& read, kvsize::gguf::gguf_errc code, const std::string& words,
                          std::uint64_t offset = std::numeric_limits<std::uint64_t>::max()) {
  try {
    (void)read();
    FAIL("accepted a file that should be refused: " << words);
  } catch (const kvsize::gguf::gguf_error& e) {
    INFO(e.what());
    CHECK(e.code() == code);
    CHECK_THAT(e.what(), Catch::Matchers::ContainsSubstring(words));
    CHECK_THAT(e.what(), Catch::Matchers::StartsWith("test.gguf: byte "));
    if (offset != std::numeric_limits<std::uint64_t>::max()) {
      CHECK(e.offset() == offset);
    }
  }
}

}  // namespace kvsize_test
