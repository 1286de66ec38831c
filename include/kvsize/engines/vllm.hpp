// SPDX-License-Identifier: MIT
// vLLM (v1 engine): paged KV cache in blocks, layers grouped by spec, one shared block pool.
// Facts from vllm/v1/kv_cache_interface.py, vllm/v1/core/kv_cache_utils.py,
// vllm/model_executor/models/config.py, vllm/worker/gpu_worker.py (see docs/engines.md).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>  // std::max, std::min
#include <array>      // std::array
#include <cstdint>    // std::uint32_t, std::uint64_t

#include "../error.hpp"
#include "common.hpp"
#include "engine_concept.hpp"

namespace kvsize::engines::vllm {

inline constexpr std::uint32_t default_block_size = 16;      ///< CUDA platform default
inline constexpr std::uint32_t default_mla_block_size = 64;  ///< FlashMLA forces 64
inline constexpr std::uint64_t default_max_num_batched_tokens = 8'192;  ///< OpenAI server default
inline constexpr bytes fp8_ds_mla_bytes_per_token{656};  ///< 512 fp8 + 4×fp32 scales + 64 bf16 rope

/// max_num_seqs default: 1024 on devices with ≥ 70 GiB (H100, H200, ...), else 256.
[[nodiscard]] constexpr auto max_num_seqs(const engine_options& o) -> std::uint64_t {
  if (o.max_num_seqs != 0) {
    return o.max_num_seqs;
  }
  return o.device_memory >= GiB * 70 ? 1'024 : 256;
}

[[nodiscard]] constexpr auto max_num_batched_tokens(const engine_options& o) -> std::uint64_t {
  return o.max_num_batched_tokens != 0 ? o.max_num_batched_tokens : default_max_num_batched_tokens;
}

/// KV heads one TP rank holds: max(1, n_kv // tp) (replicated when tp > n_kv).
[[nodiscard]] constexpr auto heads_per_rank(std::uint32_t kv_heads, std::uint32_t tp) -> std::uint32_t {
  return std::max<std::uint32_t>(1, kv_heads / tp);
}

namespace detail {
using kvsize::detail::ceil_div;

struct spec {
  layer_kind kind = layer_kind::full;  // none = mamba
  bytes per_token{0};                  // attention: bytes per token of one layer; mamba: page
  std::uint32_t window = 0;
  std::uint32_t layers = 0;
  std::uint32_t block_size = 0;
  std::uint32_t groups = 0;
  std::uint64_t blocks = 0;  // per request, per group
  [[nodiscard]] constexpr auto mamba() const -> bool { return kind == layer_kind::none; }
};

/// Blocks one request of `len` tokens reserves in one group (the specs' max_memory_usage_bytes).
[[nodiscard]] constexpr auto blocks_per_request(const spec& s, std::uint64_t len, std::uint64_t mnbt)
    -> std::uint64_t {
  switch (s.kind) {
    case layer_kind::sliding:  // the window need not start on a block boundary: +1
      return ceil_div(std::min<std::uint64_t>(s.window - 1ULL + mnbt, len), s.block_size) + 1;
    case layer_kind::chunked: return ceil_div(std::min<std::uint64_t>(s.window + mnbt, len), s.block_size);
    case layer_kind::none: return 1;  // one state slot per request (mamba_cache_mode "none")
    default: return ceil_div(len, s.block_size);
  }
}
}  // namespace detail

/// Sizes the KV cache of layers [r.first, r.first + r.count) on one TP rank as vLLM v1 does.
[[nodiscard]] constexpr auto size_stage(const model_spec& m, const engine_options& o, kvsize::detail::stage_range r)
    -> engine_sizing {
  using detail::spec;
  engine_sizing s = kvsize::detail::start_sizing(engine_kind::vllm, m, o, r);
  kvsize::detail::require_plain_types(s.kv, "vllm");
  s.kv_heads_per_rank = heads_per_rank(effective_kv_heads(m), o.tp);
  if (s.context == 0) {
    throw kvsize::invalid_argument("kvsize: vLLM needs a context (max_model_len)");
  }
  const std::uint64_t mnbt = max_num_batched_tokens(o);
  // mamba_ssm_cache_dtype "auto": the serving dtype (a float32 config is served in bfloat16).
  const dtype state_type = o.state_dtype ? *o.state_dtype : serving_dtype(engine_kind::vllm, dtype_facts(m));

  // 1. One spec per layer, merged into distinct specs.
  std::array<spec, max_cache_parts> specs{};
  std::uint32_t n_specs = 0;
  bool any_latent = false;
  bool any_attention = false;
  bool any_mamba = false;
  std::uint32_t attention_kinds = 0;  // bit per kind, for disable_hybrid_kv_cache_manager
  const auto add = [&](spec x) {
    for (std::uint32_t i = 0; i < n_specs; ++i) {
      if (specs[i].kind == x.kind && specs[i].per_token == x.per_token && specs[i].window == x.window) {
        ++specs[i].layers;
        return;
      }
    }
    if (n_specs == specs.size()) {
      throw kvsize::invalid_argument("kvsize: too many distinct layer specs for vLLM");
    }
    x.layers = 1;
    specs[n_specs++] = x;
  };
  for (std::uint32_t il = r.first; il < r.first + r.count; ++il) {
    if (layer_keeps_kv(m, il)) {
      const layer_kind k = kind_of_layer(m, il);
      attention_kinds |= 1U << static_cast<std::uint32_t>(k);
    }
  }
  const bool unify = o.disable_hybrid_kv_cache_manager && (attention_kinds & (attention_kinds - 1)) != 0;
  for (std::uint32_t il = r.first; il < r.first + r.count; ++il) {
    if (layer_keeps_kv(m, il)) {
      layer_kind k = kind_of_layer(m, il);
      if (unify && (k == layer_kind::sliding || k == layer_kind::chunked)) {
        k = layer_kind::full;  // the hybrid manager off: windowed layers pay max_model_len
      }
      bytes per_token{0};
      if (k == layer_kind::latent) {
        any_latent = true;
        per_token = o.fp8_ds_mla ? fp8_ds_mla_bytes_per_token : row_bytes(s.kv.k, kvsize::detail::latent_width(m));
      } else {
        per_token = kvsize::detail::attention_bytes_per_token(m, heads_per_rank(kv_heads_of_layer(m, il), o.tp), s.kv);
      }
      any_attention = true;
      s.kv_bytes_per_token += per_token;
      add(spec{.kind = k, .per_token = per_token, .window = kvsize::detail::window_of(m, k)});
    }
    if (layer_keeps_state(m, il)) {
      any_mamba = true;
      const auto st = kvsize::detail::state_per_rank(m, o.tp);
      add(spec{.kind = layer_kind::none, .per_token = storage_bytes(state_type, st.conv) + storage_bytes(state_type, st.ssm)});
    }
  }

  // 2. Block size: the platform's, MLA's, or the one a mamba page forces on attention.
  std::uint32_t bs = o.block_size != 0 ? o.block_size : (any_latent ? default_mla_block_size : default_block_size);
  if (any_mamba && any_attention) {
    bytes attention_1tok{0};
    bytes mamba_page{0};
    for (std::uint32_t i = 0; i < n_specs; ++i) {
      if (specs[i].mamba()) {
        mamba_page = max(mamba_page, specs[i].per_token);
      } else if (attention_1tok.count() == 0) {
        attention_1tok = specs[i].per_token;
      }
    }
    const std::uint64_t align = any_latent ? 64 : 16;
    const std::uint64_t attention_block =
        align * kvsize::detail::ceil_div(mamba_page.count(), align * attention_1tok.count());
    if (bs < attention_block) {
      bs = static_cast<std::uint32_t>(attention_block);
      s.mamba_block_size = bs;
    }
    const bytes attention_page = attention_1tok * bs;
    s.mamba_padding_percent = 100.0 * static_cast<double>((attention_page - mamba_page).count()) /
                              static_cast<double>(mamba_page.count());
    for (std::uint32_t i = 0; i < n_specs; ++i) {
      if (specs[i].mamba()) {
        specs[i].per_token = attention_page;  // page_size_padded
      }
    }
  }
  s.block_size = bs;
  const auto page_of = [&](const spec& x) { return x.mamba() ? x.per_token : x.per_token * bs; };

  // 3. Groups.
  std::uint32_t distinct_types = 0;
  for (std::uint32_t i = 0; i < n_specs; ++i) {
    bool seen = false;
    for (std::uint32_t j = 0; j < i; ++j) {
      seen = seen || (specs[j].kind == specs[i].kind && specs[j].window == specs[i].window);
    }
    distinct_types += seen ? 0U : 1U;
  }
  std::uint64_t blocks_per_sequence = 0;
  if (n_specs == 0) {
    s.block_size = bs;
  } else if (distinct_types == 1) {
    // One spec, or one type of several shapes (UniformTypeKVCacheSpecs): a single group whose
    // pool block spans every layer.
    bytes pool{0};
    std::uint32_t layers = 0;
    for (std::uint32_t i = 0; i < n_specs; ++i) {
      specs[i].block_size = bs;
      specs[i].groups = 1;
      specs[i].blocks = detail::blocks_per_request(specs[i], s.context, mnbt);
      pool += page_of(specs[i]) * specs[i].layers;
      layers += specs[i].layers;
      blocks_per_sequence = std::max(blocks_per_sequence, specs[i].blocks);
    }
    s.kv_cache_groups = 1;
    s.group_size = layers;
    s.pool_block_bytes = pool;
    s.min_block_size = bs;
  } else {
    // Hybrid: unify page sizes (smaller pages hold more tokens), then layer groups of equal size.
    bytes max_page{0};
    std::uint32_t min_n = ~0U;
    std::uint32_t max_n = 0;
    for (std::uint32_t i = 0; i < n_specs; ++i) {
      max_page = max(max_page, page_of(specs[i]));
      min_n = std::min(min_n, specs[i].layers);
      max_n = std::max(max_n, specs[i].layers);
    }
    const std::uint32_t group_size = 2ULL * max_n < 3ULL * min_n ? max_n : min_n;
    s.min_block_size = ~0U;
    for (std::uint32_t i = 0; i < n_specs; ++i) {
      const bytes page = page_of(specs[i]);
      if (max_page % page != bytes{0} || (specs[i].mamba() && page != max_page)) {
        throw kvsize::invalid_argument("kvsize: vLLM cannot unify these layers' page sizes");
      }
      specs[i].block_size = bs * static_cast<std::uint32_t>(max_page / page);
      specs[i].groups = static_cast<std::uint32_t>(kvsize::detail::ceil_div(specs[i].layers, group_size));
      specs[i].blocks = detail::blocks_per_request(specs[i], s.context, mnbt);
      s.kv_cache_groups += specs[i].groups;
      blocks_per_sequence += specs[i].groups * specs[i].blocks;
      s.min_block_size = std::min(s.min_block_size, specs[i].block_size);
    }
    s.group_size = group_size;
    s.pool_block_bytes = max_page * group_size;
  }
  s.blocks_per_sequence = blocks_per_sequence;

  // 4. Bytes, and what prefix caching shares (whole blocks; off for hybrid mamba models).
  std::uint64_t prefix_blocks = 0;
  for (std::uint32_t i = 0; i < n_specs; ++i) {
    const spec& x = specs[i];
    const bytes charged = s.pool_block_bytes * (x.groups * x.blocks);
    if (x.mamba()) {
      s.state_bytes_per_sequence += charged;
    } else if (distinct_types > 1 || i == 0) {
      s.kv_bytes_per_sequence += distinct_types > 1 ? charged : s.pool_block_bytes * blocks_per_sequence;
    }
    if (!any_mamba && !x.mamba()) {
      const std::uint64_t shared = o.shared_prefix / x.block_size * x.block_size;
      const std::uint64_t held = kvsize::detail::prefix_tokens_held(x.kind, x.window, shared, s.context);
      const std::uint64_t blocks = held / x.block_size;
      prefix_blocks = distinct_types > 1 ? prefix_blocks + x.groups * blocks : std::max(prefix_blocks, blocks);
    }
    cache_part& p = s.add_part(cache_part{});
    p.kind = x.kind;
    p.layers = x.layers;
    p.window = x.window;
    p.block_size = x.block_size;
    p.groups = x.groups;
    p.padding_layers = distinct_types > 1 ? x.groups * s.group_size - x.layers : 0;
    p.blocks_per_sequence = x.blocks;
    p.bytes_per_token = x.mamba() ? x.per_token : x.per_token * x.layers;
    p.types = s.kv;
  }
  s.kv_bytes = s.kv_bytes_per_sequence * o.batch;
  s.prefix_bytes_per_sequence = s.pool_block_bytes * prefix_blocks;
  s.prefix_bytes_saved = s.prefix_bytes_per_sequence * (o.batch - 1);
  return s;
}

/// Blocks, the logged token count (per group: num_blocks // groups × min block size) and the
/// logged concurrency (num_blocks / blocks per request).
[[nodiscard]] constexpr auto capacity(const engine_sizing& s, const engine_options& o, bytes budget)
    -> engine_capacity {
  engine_capacity c{};
  c.kv_budget = budget;
  if (s.pool_block_bytes.count() == 0) {
    return kvsize::detail::plain_capacity(s, budget);
  }
  c.num_blocks = budget / s.pool_block_bytes;
  c.allocated = s.pool_block_bytes * c.num_blocks;
  c.max_tokens = c.num_blocks / s.kv_cache_groups * s.min_block_size;
  const std::uint64_t per_request = s.blocks_per_sequence;
  c.max_concurrency = static_cast<double>(c.num_blocks) / static_cast<double>(per_request);
  const std::uint64_t cap = max_num_seqs(o);
  c.max_sequences = std::min(c.num_blocks / per_request, cap);
  const std::uint64_t prefix_blocks = s.prefix_bytes_per_sequence / s.pool_block_bytes;
  if (prefix_blocks != 0 && prefix_blocks < per_request && c.num_blocks >= prefix_blocks) {
    c.max_sequences_shared = std::min((c.num_blocks - prefix_blocks) / (per_request - prefix_blocks), cap);
  } else {
    c.max_sequences_shared = c.max_sequences;
  }
  return c;
}

}  // namespace kvsize::engines::vllm

namespace kvsize {

/// vLLM (v1) as an engine type (see engine_concept.hpp).
struct vllm_engine : engine_defaults<vllm_engine> {
  static constexpr engine_kind kind = engine_kind::vllm;
  static constexpr std::string_view name = "vllm";
  static constexpr std::string_view display_name = "vLLM";
  static constexpr engine_knob knobs = engine_knob::block_size | engine_knob::max_num_batched_tokens |
                                       engine_knob::max_num_seqs | engine_knob::gpu_memory_utilization;
  /// A float32 config (or one without dtype) is served in bfloat16: vllm/config/model.py
  /// `_resolve_auto_dtype` ("Downcast for float32 models": the platform's first supported dtype,
  /// bfloat16 on compute capability ≥ 8.0 per vllm/platforms/cuda.py `supported_dtypes`; float16
  /// before Ampere, same size). A config without dtype: `_find_dtype` reads the safetensors, else
  /// float32 → bfloat16.
  [[nodiscard]] static constexpr auto serving_dtype(const config_dtype_facts& f) -> dtype {
    return detail::given_or(f, detail::float32_config(f) ? dtype::bf16 : f.config_dtype);
  }
  /// CacheConfig's BlockSize literal, the choices of --block-size (vllm/config/cache.py, v0.11).
  [[nodiscard]] static constexpr auto block_size_refusal(std::uint32_t b) -> std::string_view {
    constexpr std::array<std::uint32_t, 7> allowed{1, 8, 16, 32, 64, 128, 256};
    for (std::uint32_t a : allowed) {
      if (a == b) {
        return {};
      }
    }
    return "vLLM's block size is one of 1, 8, 16, 32, 64, 128 or 256 tokens";
  }
  [[nodiscard]] static constexpr auto kv_type_refusal(dtype t) -> std::string_view {
    return traits(t).block_elements != 1 ? "vllm has no GGML block-quantized KV cache (q8_0, q4_0, ...); its 8-bit cache is fp8"
                                         : std::string_view{};
  }
  [[nodiscard]] static constexpr auto size_stage(const model_spec& m, const engine_options& o, detail::stage_range r)
      -> engine_sizing {
    return engines::vllm::size_stage(m, o, r);
  }
  /// gpu_memory_utilization × TOTAL memory − weights − (peak activations, non-torch memory: the
  /// caller's engine_overhead, which vLLM measures by profiling; vllm/v1/worker/gpu_worker.py
  /// `determine_available_memory`).
  [[nodiscard]] static constexpr auto budget(const engine_options& o) -> budget_rule {
    return {.fraction = o.gpu_memory_utilization, .setting = "gpu_memory_utilization"};
  }
  [[nodiscard]] static constexpr auto capacity(const engine_sizing& s, const engine_options& o, bytes budget)
      -> engine_capacity {
    return engines::vllm::capacity(s, o, budget);
  }
  /// The profile run (gpu_worker.py `determine_available_memory` → model_runner `profile_run`):
  /// logits of min(max_num_seqs, max_num_batched_tokens) last positions in the compute dtype, the
  /// same rows in float32 for the dummy sampler run, activations of a max_num_batched_tokens chunk;
  /// runtime: the 150 MiB redundancy buffer of its suggested --kv-cache-memory
  /// (requested − (weights + peak activations + non-torch + CUDA graphs) − 150 MiB).
  [[nodiscard]] static constexpr auto workspace(const model_spec& /*m*/, const engine_options& o)
      -> workspace_defaults {
    const std::uint64_t rows = std::min(engines::vllm::max_num_seqs(o), engines::vllm::max_num_batched_tokens(o));
    return {.positions = logits_kept::last,
            .last_rows = rows,
            .last_rows_fixed = true,
            .activation_tokens = engines::vllm::max_num_batched_tokens(o),
            .sampler_rows = rows,
            .runtime = runtime_buffer,
            .sequences = o.batch,
            .activation_tp = o.tp};
  }
  static constexpr bytes runtime_buffer = MiB * 150;
  /// The scheduler runs at most max_num_seqs sequences.
  [[nodiscard]] static constexpr auto slot_cap(const engine_options& o, const engine_capacity& /*c*/)
      -> std::uint64_t {
    return engines::vllm::max_num_seqs(o);
  }
};
static_assert(engine<vllm_engine>);

}  // namespace kvsize

// The registry and the dispatch, so that this header alone is usable (engine.hpp includes every
// engine header; this one is already complete here).
#include "../engine.hpp"
