// SPDX-License-Identifier: MIT
// Typed access to GGUF metadata, as strict as llama.cpp's loader: a scalar must have exactly its
// type (llama-model-loader.cpp GKV::get_kv: "key %s has wrong type"), a per-layer key is a scalar
// or an array of exactly block_count UINT32 / INT32 / BOOL elements (get_key_or_arr, get_arr).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>      // std::uint32_t, std::uint64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "gguf_error.hpp"
#include "gguf_header.hpp"

namespace kvsize::gguf {

/// A header, its file name and its architecture: reads `<arch>.<name>` keys with their checks.
class key_reader {
 public:
  key_reader(const gguf_header& h, std::string file) : h_(h), file_(std::move(file)) {}

  [[nodiscard]] auto file() const -> const std::string& { return file_; }
  [[nodiscard]] auto header() const -> const gguf_header& { return h_; }
  void set_arch(std::string arch) { arch_ = std::move(arch); }
  [[nodiscard]] auto arch() const -> const std::string& { return arch_; }
  /// "llama.block_count" for "block_count".
  [[nodiscard]] auto arch_key(std::string_view name) const -> std::string { return arch_ + "." + std::string(name); }
  [[nodiscard]] auto find(std::string_view key) const -> const gguf_kv* { return h_.find(key); }

  [[noreturn]] void fail(gguf_errc c, const gguf_kv* kv, const std::string& key, const std::string& message) const {
    throw gguf_error(c, file_, kv != nullptr ? kv->offset : 0, "key \"" + key + "\"", message);
  }

  /// A STRING key, or nullopt when absent.
  [[nodiscard]] auto string(const std::string& key) const -> std::optional<std::string> {
    const gguf_kv* kv = find(key);
    if (kv == nullptr) {
      return std::nullopt;
    }
    if (kv->value.type != gguf_type::string) {
      fail(gguf_errc::wrong_type, kv, key, "expected a STRING, got " + type_text(kv->value));
    }
    return kv->value.strings.front();
  }

  /// A UINT32 key (llama.cpp reads these type-strictly), or nullopt when absent.
  [[nodiscard]] auto u32(const std::string& key) const -> std::optional<std::uint32_t> {
    const gguf_kv* kv = find(key);
    if (kv == nullptr) {
      return std::nullopt;
    }
    if (kv->value.type != gguf_type::u32) {
      fail(gguf_errc::wrong_type, kv, key, "expected a UINT32, got " + type_text(kv->value));
    }
    return static_cast<std::uint32_t>(kv->value.integers.front());
  }

  [[nodiscard]] auto required_u32(const std::string& key) const -> std::uint32_t {
    const auto v = u32(key);
    if (!v) {
      throw gguf_error(gguf_errc::missing_key, file_, 0, "key \"" + key + "\"",
                       "absent; llama.cpp needs it to load a " + arch_ + " model");
    }
    return *v;
  }

  /// A per-layer key: a scalar of type `scalar` (UINT32 for counts, BOOL for flags, as llama.cpp's
  /// get_key_or_arr reads the key into its array type) repeated over `n` layers, or an array of
  /// exactly `n` UINT32 / INT32 / BOOL elements (a negative INT32 is refused); nullopt when absent.
  [[nodiscard]] auto per_layer(const std::string& key, std::uint32_t n, gguf_type scalar = gguf_type::u32) const
      -> std::optional<std::vector<std::uint32_t>> {
    const gguf_kv* kv = find(key);
    if (kv == nullptr) {
      return std::nullopt;
    }
    const gguf_value& v = kv->value;
    if (v.type != gguf_type::array) {
      if (v.type != scalar) {
        fail(gguf_errc::wrong_type, kv, key,
             std::string("expected ") + (scalar == gguf_type::boolean ? "a BOOL" : "a UINT32") + " or an array, got " +
                 type_text(v));
      }
      return std::vector<std::uint32_t>(n, static_cast<std::uint32_t>(v.integers.front()));  // a BOOL reads 0 or 1
    }
    if (v.element != gguf_type::u32 && v.element != gguf_type::i32 && v.element != gguf_type::boolean) {
      fail(gguf_errc::wrong_type, kv, key, "expected UINT32, INT32 or BOOL elements, got " + type_text(v));
    }
    if (v.count != n) {
      fail(gguf_errc::invalid, kv, key,
           "an array of " + std::to_string(v.count) + " elements; expected one per layer (" + std::to_string(n) + ")");
    }
    if (!v.kept || v.integers.size() != n) {  // read_options::keep_elements below block_count
      fail(gguf_errc::unsupported, kv, key,
           "the array was not kept by the read (read_options::keep_elements is below block_count)");
    }
    std::vector<std::uint32_t> out;
    out.reserve(n);
    for (const std::uint64_t e : v.integers) {
      if (e > 0xFFFFFFFFULL) {
        fail(gguf_errc::out_of_range, kv, key, "an element of " + std::to_string(static_cast<std::int64_t>(e)));
      }
      out.push_back(static_cast<std::uint32_t>(e));
    }
    return out;
  }

  /// The element count of an array key (the tokenizer's tokens), or nullopt when absent.
  [[nodiscard]] auto array_count(const std::string& key) const -> std::optional<std::uint64_t> {
    const gguf_kv* kv = find(key);
    if (kv == nullptr) {
      return std::nullopt;
    }
    if (kv->value.type != gguf_type::array) {
      fail(gguf_errc::wrong_type, kv, key, "expected an ARRAY, got " + type_text(kv->value));
    }
    return kv->value.count;
  }

  [[nodiscard]] static auto type_text(const gguf_value& v) -> std::string {
    return v.type == gguf_type::array ? "an ARRAY of " + std::string(name(v.element)) : std::string(name(v.type));
  }

 private:
  const gguf_header& h_;
  std::string file_;
  std::string arch_;
};

}  // namespace kvsize::gguf
