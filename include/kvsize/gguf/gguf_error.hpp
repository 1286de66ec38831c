// SPDX-License-Identifier: MIT
// kvsize::gguf::gguf_error: the one exception type the GGUF reader throws.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>      // std::uint8_t, std::uint64_t
#include <stdexcept>    // std::runtime_error
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::move

namespace kvsize::gguf {

/// What kind of defect a GGUF file has.
enum class gguf_errc : std::uint8_t {
  not_gguf,      ///< no "GGUF" magic at byte 0
  truncated,     ///< the file ends inside something its header says is there
  out_of_range,  ///< a count, a length or a size beyond what the file or ggml allows
  invalid,       ///< a value ggml's reader refuses (an unknown type id, a duplicate key, a bad offset)
  wrong_type,    ///< a metadata key of the wrong GGUF type (llama.cpp reads keys type-strictly)
  missing_key,   ///< a key the model needs is absent
  unsupported,   ///< valid, but beyond what kvsize reads (GGUF v1, a big-endian file, an architecture)
  io,            ///< the file could not be opened, measured or read
};

[[nodiscard]] constexpr auto name(gguf_errc c) -> std::string_view {
  switch (c) {
    case gguf_errc::not_gguf: return "not_gguf";
    case gguf_errc::truncated: return "truncated";
    case gguf_errc::out_of_range: return "out_of_range";
    case gguf_errc::invalid: return "invalid";
    case gguf_errc::wrong_type: return "wrong_type";
    case gguf_errc::missing_key: return "missing_key";
    case gguf_errc::unsupported: return "unsupported";
    case gguf_errc::io: return "io";
  }
  return "?";
}

/// A defect in a GGUF file, located by byte offset and by the key or tensor it belongs to.
/// what() has one shape: "<file>: byte <offset>: <subject>: <message>", e.g.
///   model.gguf: byte 1234: key "llama.block_count": expected a UINT32, got a STRING
///   model.gguf: byte 88120: tensor "blk.0.attn_q.weight": ggml type 31 (q4_0_4_4) was removed ...
/// (": <subject>" is left out where the defect belongs to no key or tensor: the magic, the counts).
class gguf_error : public std::runtime_error {
 public:
  gguf_error(gguf_errc code, std::string file, std::uint64_t offset, std::string subject, std::string message)
      : std::runtime_error(compose(file, offset, subject, message)),
        code_(code),
        offset_(offset),
        file_(std::move(file)),
        subject_(std::move(subject)),
        message_(std::move(message)) {}

  [[nodiscard]] auto code() const noexcept -> gguf_errc { return code_; }
  /// Byte offset in the file where the offending item starts.
  [[nodiscard]] auto offset() const noexcept -> std::uint64_t { return offset_; }
  [[nodiscard]] auto file() const noexcept -> const std::string& { return file_; }
  /// `key "general.alignment"`, `tensor "output.weight"`, or "".
  [[nodiscard]] auto subject() const noexcept -> const std::string& { return subject_; }
  [[nodiscard]] auto message() const noexcept -> const std::string& { return message_; }

 private:
  static auto compose(const std::string& file, std::uint64_t offset, const std::string& subject,
                      const std::string& message) -> std::string {
    std::string s = file + ": byte " + std::to_string(offset) + ": ";
    if (!subject.empty()) {
      s += subject + ": ";
    }
    return s + message;
  }

  gguf_errc code_;
  std::uint64_t offset_;
  std::string file_;
  std::string subject_;
  std::string message_;
};

}  // namespace kvsize::gguf
