// SPDX-License-Identifier: MIT
// A bounded, buffered little-endian reader over a seekable stream: every read is checked against
// the bytes left in the file before anything is allocated, and skipping a large array seeks past
// it instead of reading it.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>    // std::min
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint64_t, std::uint8_t
#include <cstring>      // std::memcpy
#include <ios>          // std::ios, std::streamoff, std::streamsize
#include <istream>      // std::istream
#include <string>       // std::string
#include <type_traits>  // std::make_unsigned_t
#include <utility>      // std::move
#include <vector>       // std::vector

#include "gguf_error.hpp"

namespace kvsize::gguf::detail {

class byte_source {
 public:
  /// `in` positioned anywhere; the file is measured (a pipe cannot be: GGUF is read from a file).
  byte_source(std::istream& in, std::string file) : in_(in), file_(std::move(file)) {
    in_.clear();
    in_.seekg(0, std::ios::end);
    const std::streamoff end = in_.tellg();
    if (!in_ || end < 0) {
      throw gguf_error(gguf_errc::io, file_, 0, "",
                       "cannot measure the file (a GGUF is read from a regular file, not a pipe)");
    }
    size_ = static_cast<std::uint64_t>(end);
    in_.seekg(0, std::ios::beg);
  }

  [[nodiscard]] auto file() const -> const std::string& { return file_; }
  [[nodiscard]] auto size() const -> std::uint64_t { return size_; }
  [[nodiscard]] auto offset() const -> std::uint64_t { return pos_; }
  [[nodiscard]] auto remaining() const -> std::uint64_t { return size_ - pos_; }
  [[nodiscard]] auto bytes_read() const -> std::uint64_t { return fetched_; }

  /// Throws `truncated` unless `n` more bytes exist; `what` says what they were to hold. (`what` is a
  /// literal, made a string only for the error: the hot path of a 262,144-token array allocates nothing.)
  void require(std::uint64_t n, const std::string& subject, const char* what) const {
    if (n > remaining()) {
      throw gguf_error(gguf_errc::truncated, file_, pos_, subject,
                       "the file ends " + std::to_string(remaining()) + " bytes on, inside " + std::string(what) + " (" +
                           std::to_string(n) + " bytes)");
    }
  }

  void read(void* out, std::uint64_t n, const std::string& subject, const char* what) {
    require(n, subject, what);
    auto* dst = static_cast<std::uint8_t*>(out);
    while (n != 0) {
      if (head_ == buffer_.size()) {
        fill(subject);
      }
      const std::uint64_t take = std::min<std::uint64_t>(n, buffer_.size() - head_);
      std::memcpy(dst, buffer_.data() + head_, take);
      head_ += take;
      pos_ += take;
      dst += take;
      n -= take;
    }
  }

  template <class T>
  [[nodiscard]] auto scalar(const std::string& subject, const char* what) -> T {
    unsigned char raw[sizeof(T)];
    read(raw, sizeof(T), subject, what);
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) {  // little-endian, whatever the host is
      v |= std::uint64_t{raw[i]} << (8U * i);
    }
    if constexpr (sizeof(T) == 8) {
      return static_cast<T>(v);
    } else {
      return static_cast<T>(static_cast<std::make_unsigned_t<T>>(v));
    }
  }

  /// Moves `n` bytes on without keeping them: within the buffer, or by a seek past it.
  void skip(std::uint64_t n, const std::string& subject, const char* what) {
    require(n, subject, what);
    const std::uint64_t buffered = buffer_.size() - head_;
    if (n <= buffered) {
      head_ += n;
      pos_ += n;
      return;
    }
    pos_ += n;
    buffer_.clear();
    head_ = 0;
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(pos_), std::ios::beg);
    if (!in_) {
      throw gguf_error(gguf_errc::io, file_, pos_, subject, "cannot seek in the file");
    }
  }

 private:
  void fill(const std::string& subject) {
    const std::uint64_t want = std::min<std::uint64_t>(chunk, remaining());
    buffer_.resize(want);
    head_ = 0;
    in_.read(reinterpret_cast<char*>(buffer_.data()), static_cast<std::streamsize>(want));
    const auto got = static_cast<std::uint64_t>(in_.gcount());
    fetched_ += got;
    if (got != want) {
      throw gguf_error(gguf_errc::io, file_, pos_, subject,
                       "the file was shorter when read than when measured (" + std::to_string(got) + " of " +
                           std::to_string(want) + " bytes)");
    }
  }

  static constexpr std::uint64_t chunk = 64 * 1024;  // bytes per read from the stream
  std::istream& in_;
  std::string file_;
  std::uint64_t size_ = 0;
  std::uint64_t pos_ = 0;      // offset in the file of buffer_[head_]
  std::uint64_t fetched_ = 0;  // bytes read from the stream so far
  std::vector<std::uint8_t> buffer_;
  std::size_t head_ = 0;
};

}  // namespace kvsize::gguf::detail
