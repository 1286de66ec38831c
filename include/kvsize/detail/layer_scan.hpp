// SPDX-License-Identifier: MIT
// The scans over a model_spec's layer entries that the KV queries make (kv_cache.hpp): an OR of every entry
// and a count of each kind, written so that GCC and Clang vectorise them. Internal (kvsize::detail).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <bit>          // std::endian
#include <cstddef>      // std::size_t, offsetof
#include <cstdint>      // std::uint32_t, std::uint64_t
#include <cstring>      // std::memcpy
#include <type_traits>  // std::is_constant_evaluated, std::is_trivially_copyable_v

#include "../model_spec.hpp"

namespace kvsize::detail {
// At run time the scans below read each layer_spec as one 64-bit word (it is 8 bytes without
// padding): compilers vectorise a loop over words directly, where a loop over a struct's fields
// needs shuffles (or, with GCC 12, is not vectorised at all). In a constant expression, where
// memcpy is not allowed, they read field by field.
static_assert(sizeof(layer_spec) == 8 && offsetof(layer_spec, kind) == 0 && offsetof(layer_spec, recurrent) == 1 &&
                  offsetof(layer_spec, kv_heads) == 2 && offsetof(layer_spec, head_dim) == 4 &&
                  offsetof(layer_spec, head_dim_v) == 6 && std::is_trivially_copyable_v<layer_spec>,
              "layer_spec is scanned as 64-bit words: kind, recurrent, kv_heads, head_dim, head_dim_v");
static_assert(static_cast<std::uint32_t>(layer_kind::inherit) == 0, "an entry left as it is reads as 0");
inline constexpr bool little_endian = std::endian::native == std::endian::little;
inline constexpr unsigned layer_word_kind_shift = little_endian ? 0U : 56U;    ///< kind: byte 0
inline constexpr unsigned layer_word_recurrent_shift = little_endian ? 8U : 48U;  ///< recurrent: byte 1
inline constexpr unsigned layer_word_shape_shift = little_endian ? 16U : 0U;  ///< kv_heads, head_dim, head_dim_v: bytes 2-7

[[nodiscard]] inline auto layer_word(const model_spec& m, std::size_t il) -> std::uint64_t {
  std::uint64_t word = 0;
  std::memcpy(&word, reinterpret_cast<const unsigned char*>(m.layer.data()) + il * sizeof(layer_spec), sizeof word);
  return word;
}

/// What the first `listed` layer entries set, ORed together: non-zero `kinds` if any entry sets its
/// kind, `shape` if any sets its own KV heads or head dimensions, `recurrent` if any layer keeps a
/// state (which does not change the KV, but needs the model's state size: check_recurrent_state).
struct layer_entries_or {
  std::uint64_t kinds = 0;
  std::uint64_t shape = 0;
  std::uint64_t recurrent = 0;
};
[[nodiscard]] constexpr auto or_of_layer_entries(const model_spec& m, std::size_t listed) -> layer_entries_or {
  layer_entries_or r{};
  if (std::is_constant_evaluated()) {
    for (std::size_t il = 0; il < listed; ++il) {
      r.kinds |= static_cast<std::uint32_t>(m.layer[il].kind);
      r.shape |= std::uint64_t{m.layer[il].kv_heads} | m.layer[il].head_dim | m.layer[il].head_dim_v;
      r.recurrent |= static_cast<std::uint32_t>(m.layer[il].recurrent);
    }
    return r;
  }
  std::uint64_t any = 0;
  for (std::size_t il = 0; il < listed; ++il) {
    any |= layer_word(m, il);
  }
  r.kinds = (any >> layer_word_kind_shift) & 0xFFU;
  r.shape = (any >> layer_word_shape_shift) & 0xFFFF'FFFF'FFFFU;
  r.recurrent = (any >> layer_word_recurrent_shift) & 0xFFU;
  return r;
}

/// Layers among the first `listed` of each KV-holding kind, `inherit` read as `model_kind`.
struct kind_counts {
  std::uint32_t full = 0;
  std::uint32_t sliding = 0;
  std::uint32_t chunked = 0;
  std::uint32_t latent = 0;
  std::uint32_t indexed = 0;
};
/// `Indexed`: whether to count indexed layers too, a fifth compare per layer that a model whose kinds
/// cannot include one (no kind value with bit 2 set: full, sliding, chunked) skips (BENCHMARKS.md).
template <bool Indexed>
[[nodiscard]] constexpr auto count_kinds(const model_spec& m, std::size_t listed, layer_kind model_kind)
    -> kind_counts {
  // Plain locals, bool casts and no `?:`: GCC 12 vectorises neither `?:` nor sums into members.
  const auto inherited = static_cast<std::uint32_t>(model_kind);
  std::uint32_t full = 0;
  std::uint32_t sliding = 0;
  std::uint32_t chunked = 0;
  std::uint32_t latent = 0;
  std::uint32_t indexed = 0;
  const auto count = [&](std::uint32_t own) {
    const std::uint32_t k = own + inherited * static_cast<std::uint32_t>(own == 0);  // inherit is 0
    full += static_cast<std::uint32_t>(k == static_cast<std::uint32_t>(layer_kind::full));
    sliding += static_cast<std::uint32_t>(k == static_cast<std::uint32_t>(layer_kind::sliding));
    chunked += static_cast<std::uint32_t>(k == static_cast<std::uint32_t>(layer_kind::chunked));
    latent += static_cast<std::uint32_t>(k == static_cast<std::uint32_t>(layer_kind::latent));
    if constexpr (Indexed) {
      indexed += static_cast<std::uint32_t>(k == static_cast<std::uint32_t>(layer_kind::indexed));
    }
  };
  if (std::is_constant_evaluated()) {
    for (std::size_t il = 0; il < listed; ++il) {
      count(static_cast<std::uint32_t>(m.layer[il].kind));
    }
  } else {
    for (std::size_t il = 0; il < listed; ++il) {
      count(static_cast<std::uint32_t>((layer_word(m, il) >> layer_word_kind_shift) & 0xFFU));
    }
  }
  return {full, sliding, chunked, latent, indexed};
}

/// count_kinds, without the indexed compare where the kinds the OR found (`any_kind`, and the model's) cannot
/// include an indexed layer: indexed is 7, which has bit 2 set, as latent, none and shared have; full, sliding
/// and chunked (1-3) do not. That compare costs a mixed model's query about a tenth (BENCHMARKS.md).
[[nodiscard]] constexpr auto count_kinds_of(const model_spec& m, std::size_t listed, layer_kind model_kind,
                                            std::uint64_t any_kind) -> kind_counts {
  static_assert(static_cast<int>(layer_kind::indexed) == 7 && static_cast<int>(layer_kind::chunked) == 3);
  const bool maybe_indexed = ((any_kind | static_cast<std::uint64_t>(model_kind)) & 4U) != 0;
  return maybe_indexed ? count_kinds<true>(m, listed, model_kind) : count_kinds<false>(m, listed, model_kind);
}

}  // namespace kvsize::detail
