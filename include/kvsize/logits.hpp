// SPDX-License-Identifier: MIT
// The logits buffer: vocab_size values per position that a forward pass returns.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint64_t

#include "bytes.hpp"
#include "dtype.hpp"
#include "model_spec.hpp"

namespace kvsize {

/// Bytes of the logits of one position: vocab_size × sizeof(t).
/// Qwen2.5 (151,936 tokens) in bf16: 303,872 B = 296.75 KiB, 10.6 × its 28 KiB of KV per token.
/// Checks the model-wide rules of validate() (it reads no layer).
[[nodiscard]] constexpr auto logits_bytes_per_token(const model_spec& m, dtype t) -> bytes {
  detail::check_model_shape(m);
  return storage_bytes(t, m.vocab_size);
}
/// ... in the model's compute dtype.
[[nodiscard]] constexpr auto logits_bytes_per_token(const model_spec& m) -> bytes {
  return logits_bytes_per_token(m, m.compute_dtype);
}

/// Logits of a naive forward pass over a prompt of `tokens` positions, all of them kept:
/// tokens × vocab_size × sizeof(t). This is what a hand-written loop allocates.
[[nodiscard]] constexpr auto logits_bytes_prefill(const model_spec& m, std::uint64_t tokens, dtype t) -> bytes {
  return logits_bytes_per_token(m, t) * tokens;
}
[[nodiscard]] constexpr auto logits_bytes_prefill(const model_spec& m, std::uint64_t tokens) -> bytes {
  return logits_bytes_prefill(m, tokens, m.compute_dtype);
}

/// Logits when only the last position of each of `batch` sequences is kept (what serving
/// engines do when decoding): batch × vocab_size × sizeof(t).
[[nodiscard]] constexpr auto logits_bytes_last(const model_spec& m, std::uint64_t batch, dtype t) -> bytes {
  return logits_bytes_per_token(m, t) * batch;
}
[[nodiscard]] constexpr auto logits_bytes_last(const model_spec& m, std::uint64_t batch) -> bytes {
  return logits_bytes_last(m, batch, m.compute_dtype);
}

}  // namespace kvsize
