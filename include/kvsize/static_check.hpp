// SPDX-License-Identifier: MIT
// Build-time fit checks whose compiler message names the model, the GPU, the bytes needed and
// the bytes available. Standard library only.
//
//   KVSIZE_STATIC_REQUIRE_FIT(qwen2_5_7b_name, kvsize::gpu("h100-80gb").name, needed, available);
//
// A static_assert message must be a string literal (before C++26), so it cannot hold computed
// numbers. Instead the check fails by calling a function that is not constexpr, and the
// compilers print the values around that call:
//   GCC 12:   in 'constexpr' expansion of 'kvsize::require_fit<fit_name{"Qwen/Qwen2.5-7B", 15},
//             fit_name{"NVIDIA H100 80 GB (SXM5)", 24}, 481036337152, 61737495961>(...)'
//             (GCC prints template arguments as values, function arguments as source text);
//   Clang 14: note: in call to 'require_fit({15, &"Qwen/Qwen2.5-7B"[0]}, {24, &"NVIDIA H100 80 GB
//             (SXM5)"[0]}, 481036337152, 61737495961)'
//             (Clang prints function arguments as values, and a string held in a template
//             argument as a list of character codes).
// So the names and byte counts go in twice, as template and as function arguments, which is what
// the macro spares the caller. The names must be constant std::string_views that refer to string
// literals (a `constexpr std::string_view x = "...";`, a gpu_spec's name or id, or a literal).
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint64_t
#include <string_view>  // std::string_view

#include "error.hpp"
#include "bytes.hpp"

namespace kvsize {

/// A name (model or GPU) as a template argument: up to 63 characters, stored inline so that the
/// type is structural. Implicit from std::string_view, so `require_fit<name, ...>` takes one.
struct fit_name {
  static constexpr std::size_t capacity = 63;
  char text[capacity + 1]{};  // NOLINT: a structural type needs a public built-in array
  std::size_t size = 0;

  // NOLINTNEXTLINE(google-explicit-constructor): implicit on purpose, for template arguments
  consteval fit_name(std::string_view s) : size{s.size()} {
    if (s.size() > capacity) {
      throw kvsize::invalid_argument("kvsize::fit_name: a name in a fit check is longer than 63 characters");
    }
    for (std::size_t i = 0; i < s.size(); ++i) {
      text[i] = s[i];
    }
  }
  [[nodiscard]] constexpr auto view() const -> std::string_view { return {text, size}; }
};

namespace detail {

/// Never constexpr: reaching it in a constant expression is the compile error, and the
/// compilers show the arguments of the calls that led here.
inline void model_does_not_fit_gpu(std::string_view /*model*/, std::string_view /*gpu*/,
                                   std::uint64_t /*bytes_needed*/, std::uint64_t /*bytes_available*/) {}

}  // namespace detail

/// True if `bytes_needed <= bytes_available`; otherwise not a constant expression, and the
/// compiler message names the model, the GPU and both byte counts (see the top of this file).
/// The template arguments must repeat the function arguments (KVSIZE_STATIC_REQUIRE_FIT does it).
template <fit_name Model, fit_name Gpu, std::uint64_t BytesNeeded, std::uint64_t BytesAvailable>
consteval auto require_fit(std::string_view model, std::string_view gpu, std::uint64_t bytes_needed,
                           std::uint64_t bytes_available) -> bool {
  if (model != Model.view() || gpu != Gpu.view() || bytes_needed != BytesNeeded || bytes_available != BytesAvailable) {
    throw kvsize::invalid_argument("kvsize::require_fit: template and function arguments differ");
  }
  if (bytes_needed > bytes_available) {
    detail::model_does_not_fit_gpu(model, gpu, bytes_needed, bytes_available);
  }
  return true;
}

}  // namespace kvsize

/// static_assert that `bytes_needed <= bytes_available` (both kvsize::bytes constants), failing
/// with a message that names `model_name` and `gpu_name` (constant std::string_views that refer
/// to string literals) and shows both byte counts. A declaration: use it at namespace, class or
/// block scope.
#define KVSIZE_STATIC_REQUIRE_FIT(model_name, gpu_name, bytes_needed, bytes_available)                        \
  static_assert(::kvsize::require_fit<(model_name), (gpu_name), (bytes_needed).count(), (bytes_available).count()>( \
                    (model_name), (gpu_name), (bytes_needed).count(), (bytes_available).count()),                 \
                "kvsize: the model does not fit the GPU")
