// SPDX-License-Identifier: MIT
// The exceptions kvsize's core throws. All derive from kvsize::error, itself a std::exception.
//
// Why our own types and not <stdexcept>'s: std::overflow_error and its siblings hold a
// std::string, so <stdexcept> pulls in <string> and the allocators, about 0.2 s of every
// translation unit that includes <kvsize/kvsize.hpp> (BENCHMARKS.md, compile cost), more than
// the rest of the core together. Every message kvsize throws is a string literal, so a
// `const char*` is all an exception needs to keep: nothing to allocate, copy or free, and
// <exception> costs a few milliseconds.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <exception>  // std::exception

namespace kvsize {

/// Base of every kvsize exception: catch this for "kvsize refused the question".
/// `what()` is a message in static storage, e.g. "kvsize: multiplication overflows 2^64 bytes".
class error : public std::exception {
 public:
  /// `message` must outlive the exception: kvsize passes string literals only.
  explicit error(const char* message) noexcept : message_(message) {}
  [[nodiscard]] auto what() const noexcept -> const char* override { return message_; }

 private:
  const char* message_;
};

/// A byte count or product beyond 2^64 − 1: the question has no representable answer.
class overflow_error : public error {
 public:
  using error::error;
};

/// A subtraction of bytes that would go below zero.
class underflow_error : public error {
 public:
  using error::error;
};

/// A division by zero (a zero budget share, a zero block size).
class domain_error : public error {
 public:
  using error::error;
};

/// An argument or model spec the formulas cannot take: a broken invariant (validate), an unknown
/// GPU id, a row that is not whole quantization blocks, an option an engine refuses.
class invalid_argument : public error {
 public:
  using error::error;
};

}  // namespace kvsize
