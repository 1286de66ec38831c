// SPDX-License-Identifier: MIT
// Opt-in fmt formatters for kvsize types (needs fmt >= 9; CMake target kvsize::fmt).
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <fmt/format.h>

#include <algorithm>    // std::find_if
#include <array>        // std::array
#include <cstdint>      // std::uint64_t
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "kvsize.hpp"

namespace kvsize {

/// A byte count to be printed with SI units (kB, MB, GB: powers of 1000).
struct si_bytes {
  bytes value;
};
/// A byte count to be printed with IEC units (KiB, MiB, GiB: powers of 1024), the default.
struct iec_bytes {
  bytes value;
};
[[nodiscard]] constexpr auto as_si(bytes b) -> si_bytes { return {b}; }
[[nodiscard]] constexpr auto as_iec(bytes b) -> iec_bytes { return {b}; }

namespace detail {
/// "28 KiB", "296.8 KiB", "3.087 GB": the largest unit not above the value, at most 4
/// significant digits; whole bytes below the first unit ("512 B").
[[nodiscard]] inline auto scaled_text(bytes b, bool si) -> std::string {
  static constexpr std::array<std::string_view, 5> iec_names{"B", "KiB", "MiB", "GiB", "TiB"};
  static constexpr std::array<std::string_view, 5> si_names{"B", "kB", "MB", "GB", "TB"};
  const double step = si ? 1000.0 : 1024.0;
  double value = static_cast<double>(b.count());
  std::size_t unit = 0;
  while (value >= step && unit + 1 < iec_names.size()) {
    value /= step;
    ++unit;
  }
  const std::string_view name = si ? si_names[unit] : iec_names[unit];
  if (unit == 0) {
    return fmt::format("{} {}", b.count(), name);
  }
  if (value >= 1000.0) {
    return fmt::format("{:.0f} {}", value, name);
  }
  return fmt::format("{:.4g} {}", value, name);
}
}  // namespace detail

}  // namespace kvsize

// Fully qualified names throughout: fmt/format.h declares its own fmt::bytes.

/// `{}` of a kvsize::bytes: auto-scaled IEC ("28 KiB"); fill, align and width apply to the whole text.
template <>
struct fmt::formatter<kvsize::bytes> : fmt::formatter<fmt::string_view> {
  auto format(kvsize::bytes b, fmt::format_context& ctx) const -> decltype(ctx.out()) {
    return fmt::formatter<fmt::string_view>::format(kvsize::detail::scaled_text(b, false), ctx);
  }
};

/// `{}` of kvsize::as_si(b): auto-scaled SI ("3.087 GB").
template <>
struct fmt::formatter<kvsize::si_bytes> : fmt::formatter<fmt::string_view> {
  auto format(kvsize::si_bytes b, fmt::format_context& ctx) const -> decltype(ctx.out()) {
    return fmt::formatter<fmt::string_view>::format(kvsize::detail::scaled_text(b.value, true), ctx);
  }
};

/// `{}` of kvsize::as_iec(b): the same as a plain kvsize::bytes.
template <>
struct fmt::formatter<kvsize::iec_bytes> : fmt::formatter<fmt::string_view> {
  auto format(kvsize::iec_bytes b, fmt::format_context& ctx) const -> decltype(ctx.out()) {
    return fmt::formatter<fmt::string_view>::format(kvsize::detail::scaled_text(b.value, false), ctx);
  }
};

/// `{}` of a kvsize::dtype: its canonical name ("bf16", "q8_0").
template <>
struct fmt::formatter<kvsize::dtype> : fmt::formatter<fmt::string_view> {
  auto format(kvsize::dtype t, fmt::format_context& ctx) const -> decltype(ctx.out()) {
    return fmt::formatter<fmt::string_view>::format(kvsize::name(t), ctx);
  }
};

/// `{}` of a kvsize::layer_kind: "full", "sliding", ...
template <>
struct fmt::formatter<kvsize::layer_kind> : fmt::formatter<fmt::string_view> {
  auto format(kvsize::layer_kind k, fmt::format_context& ctx) const -> decltype(ctx.out()) {
    return fmt::formatter<fmt::string_view>::format(kvsize::name(k), ctx);
  }
};

namespace kvsize {
/// "head_dim 128", or "head_dim 192 (K) / 128 (V)" where V's rows are narrower than K's.
[[nodiscard]] inline auto head_dims_text(std::uint32_t head_dim, std::uint32_t head_dim_v) -> std::string {
  return head_dim == head_dim_v ? fmt::format("head_dim {}", head_dim)
                                : fmt::format("head_dim {} (K) / {} (V)", head_dim, head_dim_v);
}

/// "" for a model whose attention layers share its shape; else the layers of another shape, by
/// shape (up to three), e.g. " (5 full layers: 2 KV heads, head_dim 512)" for Gemma 4.
[[nodiscard]] inline auto own_layer_shapes(const model_spec& m) -> std::string {
  struct shape {
    layer_kind kind;
    std::uint32_t heads, hd, hdv, layers;
  };
  std::vector<shape> seen;
  for (std::uint32_t il = 0; il < m.layers; ++il) {
    const layer_kind k = kind_of_layer(m, il);
    if (!layer_keeps_kv(m, il) || k == layer_kind::latent || layer_has_model_shape(m, il)) {
      continue;
    }
    const shape s{k, kv_heads_of_layer(m, il), head_dim_of_layer(m, il),
                  head_dim_v_of_layer(m, il), 1};
    auto it = std::find_if(seen.begin(), seen.end(), [&](const shape& o) {
      return o.kind == s.kind && o.heads == s.heads && o.hd == s.hd && o.hdv == s.hdv;
    });
    if (it != seen.end()) {
      ++it->layers;
    } else {
      seen.push_back(s);
    }
  }
  std::string out;
  for (std::size_t i = 0; i < seen.size() && i < 3; ++i) {
    const shape& s = seen[i];
    out += fmt::format("{}{} {} layer{}: {} KV heads, {}", i == 0 ? " (" : "; ", s.layers, name(s.kind),
                       s.layers == 1 ? "" : "s", s.heads, head_dims_text(s.hd, s.hdv));
  }
  if (seen.size() > 3) {
    out += fmt::format("; {} more shapes", seen.size() - 3);
  }
  return out.empty() ? out : out + ")";
}
}  // namespace kvsize

/// `{}` of a kvsize::model_spec: a one-line summary of the attention shape, e.g.
/// "28 layers (28 full), 12 heads, 2 KV heads, head_dim 128, vocab 151936, bf16". The KV heads are
/// those the cache keeps (cache_kv_heads: 1 for a latent/MLA model).
template <>
struct fmt::formatter<kvsize::model_spec> : fmt::formatter<fmt::string_view> {
  auto format(const kvsize::model_spec& m, fmt::format_context& ctx) const -> decltype(ctx.out()) {
    std::string kinds;
    for (kvsize::layer_kind k : {kvsize::layer_kind::full, kvsize::layer_kind::sliding, kvsize::layer_kind::chunked,
                                 kvsize::layer_kind::latent, kvsize::layer_kind::indexed, kvsize::layer_kind::shared,
                                 kvsize::layer_kind::none}) {
      const std::uint32_t n = kvsize::count_layers(m, k);
      if (n != 0) {
        kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", n, kvsize::name(k));
      }
    }
    const std::string dims = kvsize::head_dims_text(kvsize::effective_head_dim(m), kvsize::effective_head_dim_v(m));
    return fmt::formatter<fmt::string_view>::format(
        fmt::format("{} layers ({}), {} heads, {} KV heads, {}{}, vocab {}, {}", m.layers, kinds, m.attention_heads,
                    kvsize::cache_kv_heads(m), dims, kvsize::own_layer_shapes(m), m.vocab_size,
                    kvsize::name(m.compute_dtype)),
        ctx);
  }
};
