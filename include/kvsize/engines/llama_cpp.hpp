// SPDX-License-Identifier: MIT
// llama.cpp: caches reserved up front in cells (one token each), per stream; iSWA caches for
// sliding/chunked layers; recurrent state in f32 per sequence. Facts from src/llama-kv-cache.cpp,
// src/llama-kv-cache-iswa.cpp, src/llama-context.cpp, src/llama-model.cpp (see docs/engines.md).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>         // std::min
#include <string_view>  // std::string_view
#include <cstdint>           // std::uint32_t, std::uint64_t
#include <initializer_list>  // range-for over two parts

#include "../error.hpp"
#include "common.hpp"
#include "llama_cpp_compute.hpp"  // the compute buffer of its worst-case graph
#include "llama_cpp_context.hpp"  // n_ctx_train from a Hugging Face config
#include "engine_concept.hpp"

namespace kvsize::engines::llama_cpp {

/// K and V f16 whatever the model (common/common.h `cache_type_k` / `cache_type_v = GGML_TYPE_F16`; -ctk / -ctv change
/// them); both states float32 whatever is asked (src/llama-model.cpp `create_memory`: llama_memory_recurrent, F32 r, s).
[[nodiscard]] constexpr auto stage_types(const model_spec& /*m*/, const engine_options& o)
    -> kvsize::detail::stage_dtypes {
  return {kvsize::detail::kv_or(o, kv_dtypes::same(dtype::f16)), {dtype::f32, dtype::f32}};
}

inline constexpr std::uint32_t default_ubatch = 512;
inline constexpr std::uint32_t default_batch = 2'048;  ///< -b: n_ubatch = min(-ub, -b, n_ctx)
inline constexpr bytes fit_margin = MiB * 1'024;       ///< --fit leaves 1 GiB free per device

/// n_ctx, n_ctx_seq and the streams llama_context derives from -c, -np and -kvu.
struct context_plan {
  std::uint64_t n_ctx = 0;      ///< after padding (= n_ctx_seq × n_seq when not unified)
  std::uint64_t n_ctx_seq = 0;  ///< cells one sequence may use
  std::uint32_t n_seq = 1;      ///< -np
  std::uint32_t n_stream = 1;   ///< 1 when unified, else n_seq
  std::uint64_t n_ubatch = default_ubatch;
};

[[nodiscard]] constexpr auto plan(const model_spec& m, const engine_options& o) -> context_plan {
  using kvsize::detail::round_up;
  context_plan p{};
  const std::uint64_t pad = std::max<std::uint32_t>(o.llama_cpp.ctx_pad, 1);
  p.n_ctx = kvsize::detail::context_of(m, o);  // -c 0: the training context
  if (p.n_ctx == 0) {
    throw kvsize::invalid_argument("kvsize: llama.cpp needs a context (-c)");
  }
  p.n_ctx = round_up(p.n_ctx, pad);
  p.n_seq = o.llama_cpp.parallel;
  if (o.llama_cpp.kv_unified) {
    p.n_ctx_seq = p.n_ctx;
    p.n_stream = 1;
  } else {
    p.n_ctx_seq = round_up(p.n_ctx / p.n_seq, pad);
    p.n_ctx = p.n_ctx_seq * p.n_seq;
    p.n_stream = p.n_seq;
  }
  p.n_ubatch = std::min<std::uint64_t>({o.llama_cpp.ubatch, default_batch, p.n_ctx});
  return p;
}

/// The compute buffers of the context `o` asks for (engines/llama_cpp_compute.hpp): its padded
/// cells, streams, slots and ubatch as plan() gives them, -fa on or off.
[[nodiscard]] constexpr auto compute_buffers_for(const model_spec& m, engine_options o) -> compute_buffers {
  o.context = kvsize::detail::context_of(m, o);
  const context_plan c = plan(m, o);
  return compute_buffers_of(m, c.n_ctx, c.n_stream, c.n_seq, c.n_ubatch, o.llama_cpp.flash_attn);
}

/// Whether llama.cpp accepts `t` for --cache-type-k / --cache-type-v.
[[nodiscard]] constexpr auto is_cache_type(dtype t) -> bool {
  switch (t) {
    case dtype::f32:
    case dtype::f16:
    case dtype::bf16:
    case dtype::q8_0:
    case dtype::q4_0:
    case dtype::q4_1:
    case dtype::q5_0:
    case dtype::q5_1:
    case dtype::iq4_nl: return true;
    default: return false;
  }
}

namespace detail {
/// Whether llama.cpp builds an iSWA cache: some layers windowed, some not (an all-sliding model
/// such as Mistral-7B-v0.1 runs as arch LLAMA without swa_type: one full cache).
[[nodiscard]] constexpr auto is_iswa(const model_spec& m) -> bool {
  const std::uint32_t windowed = count_layers(m, layer_kind::sliding) + count_layers(m, layer_kind::chunked);
  return windowed != 0 && windowed != kv_layers(m);
}
}  // namespace detail

namespace detail {
/// The widest V row of any attention layer of the model (llama_hparams::n_embd_v_gqa_max, over all
/// layers, not one device's): what each layer's V row takes without flash attention. Gemma 4:
/// 4 KV heads × 512 on its full layers, 16 × 256 on its sliding ones (31B) → 16 × 256.
[[nodiscard]] constexpr auto widest_v_row(const model_spec& m, kv_dtypes t) -> bytes {
  bytes widest{0};
  for (std::uint32_t il = 0; il < m.layers; ++il) {
    const layer_kind k = kind_of_layer(m, il);
    if (k != layer_kind::latent && layer_keeps_kv(m, il)) {  // full, sliding, chunked, indexed
      widest = max(widest, kvsize::detail::layer_attention_row(m, il, kv_heads_of_layer(m, il), t).v);
    }
  }
  return widest;
}
}  // namespace detail

/// Which of llama.cpp's caches a layer range is asked about.
enum class cache_select : std::uint8_t { all, base, swa };

namespace detail {
/// The three caches of one device before they are filled from the layer groups: the non-SWA
/// cache, the SWA cache (iSWA models: min(n_ctx, W·(unified ? n_seq : 1) + n_ubatch) cells, padded,
/// unless --swa-full) and the recurrent state (one cell per sequence, f32).
struct caches {
  cache_part base{};
  cache_part swa{};
  cache_part rec{};
};
/// Cells per stream of the non-SWA and the SWA cache, and the SWA cache's window.
struct cache_cells {
  std::uint64_t base = 0;
  std::uint64_t swa = 0;
  std::uint32_t window = 0;
};
[[nodiscard]] constexpr auto cells_of(const model_spec& m, const engine_options& o, const context_plan& p, bool iswa,
                                      bool hybrid) -> cache_cells {
  using kvsize::detail::round_up;
  const std::uint32_t pad = std::max<std::uint32_t>(o.llama_cpp.ctx_pad, 1);
  cache_cells c{};
  // Hybrid memories size their attention cache from n_ctx, plain ones from n_ctx_seq.
  c.base = hybrid ? p.n_ctx : p.n_ctx_seq;
  c.swa = c.base;
  if (iswa) {
    c.window = count_layers(m, layer_kind::sliding) != 0 ? m.sliding_window : m.attention_chunk;
    if (!o.llama_cpp.swa_full) {
      const std::uint64_t want = std::uint64_t{c.window} * (o.llama_cpp.kv_unified ? p.n_seq : 1U) + p.n_ubatch;
      c.swa = round_up(std::min(c.base, want), pad);
    }
  }
  return c;
}
[[nodiscard]] constexpr auto empty_caches(const model_spec& m, const engine_options& o, const context_plan& p,
                                          kv_dtypes kv, bool iswa, bool hybrid) -> caches {
  const cache_cells cells = cells_of(m, o, p, iswa, hybrid);
  caches c{};
  c.base = kvsize::detail::part_of(group_kind::full, kv);
  c.base.cells = cells.base;
  c.base.streams = p.n_stream;
  c.swa = c.base;
  c.swa.group = count_layers(m, layer_kind::sliding) != 0 ? group_kind::sliding : group_kind::chunked;
  c.swa.window = cells.window;
  c.swa.cells = cells.swa;
  c.rec = kvsize::detail::part_of(group_kind::recurrent_state, kv_dtypes::same(dtype::f32));
  c.rec.cells = std::max<std::uint32_t>(1, p.n_seq);
  c.rec.streams = 1;
  return c;
}

/// What the context changes, from the parts (size_stage's last step, and all of with_context):
/// n_ctx and the cells per slot (plan), the cells of the non-SWA and SWA caches (cells_of), their
/// bytes (per token × cells × streams), and the shared prefix the cells hold. A state's cells
/// are one per sequence, which the context does not change.
constexpr void fill(const model_spec& m, const engine_options& o, engine_sizing& s) {
  const context_plan p = plan(m, o);
  s.context = p.n_ctx;
  s.llama_cpp.n_ctx_seq = p.n_ctx_seq;
  s.llama_cpp.n_seq = p.n_seq;
  const cache_cells cells = cells_of(m, o, p, is_iswa(m), recurrent_layers(m) != 0);
  bytes kv{0};
  bytes prefix{0};
  for (std::uint32_t i = 0; i < s.part_count; ++i) {
    cache_part& c = s.parts[i];
    if (c.group == group_kind::recurrent_state) {
      continue;
    }
    const bool windowed = is_windowed(c.group);  // only an iSWA model has a windowed part
    c.cells = windowed ? cells.swa : cells.base;
    c.k_bytes = c.k_per_token * (c.cells * c.streams);
    c.v_bytes = c.v_per_token * (c.cells * c.streams);
    kv += c.k_bytes + c.v_bytes;
    const std::uint64_t held = kvsize::detail::prefix_tokens_held(windowed ? c.group : group_kind::full, c.window,
                                                                  o.shared_prefix, std::min(o.context, c.cells));
    prefix += c.bytes_per_token * held;
  }
  s.kv_bytes = kv;
  s.kv_bytes_per_sequence = s.kv_bytes / p.n_seq;
  // Only a unified cache can hold one copy of a prefix for several sequences (llama_memory_seq_cp).
  if (o.llama_cpp.kv_unified) {
    s.prefix_bytes_per_sequence = prefix;
    s.prefix_bytes_saved = prefix * (p.n_seq - 1);
  }
}
}  // namespace detail

/// Sizes llama.cpp's caches for layers [r.first, r.first + r.count) (one device of a layer split):
/// every KV head on the device (no tensor parallelism), MLA stored as `mla_layout`, the state in f32.
/// Parts: the non-SWA cache, the SWA cache (iSWA models), the recurrent state (hybrid models).
[[nodiscard]] constexpr auto size_stage(const model_spec& m, const engine_options& o, kvsize::detail::stage_range r)
    -> engine_sizing {
  engine_sizing s = kvsize::detail::start_sizing(engine_kind::llama_cpp, m, o, r, stage_types(m, o));
  for (dtype t : {s.kv.k, s.kv.v}) {
    if (!is_cache_type(t)) {
      throw kvsize::invalid_argument("kvsize: llama.cpp's KV cache types are f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1");
    }
  }
  const context_plan p = plan(m, o);
  const bool iswa = detail::is_iswa(m);
  const bool hybrid = recurrent_layers(m) != 0;
  detail::caches caches = detail::empty_caches(m, o, p, s.kv, iswa, hybrid);
  cache_part& base = caches.base;  // references, not a structured binding: lambdas capture them
  cache_part& swa = caches.swa;
  cache_part& rec = caches.rec;

  // Without flash attention V is stored transposed, every layer's row as wide as the widest
  // (llama-kv-cache.cpp llama_kv_cache::llama_kv_cache, TAG_V_CACHE_VARIABLE: n_embd_v_gqa_max()).
  const bytes v_floor = o.llama_cpp.flash_attn ? bytes{0} : detail::widest_v_row(m, s.kv);
  const auto add_rows = [&](const layer_group& g) {
    cache_part& c = iswa && is_windowed(g.kind) ? swa : base;
    // An index cache (src/llama-kv-cache-msa.cpp @62c6171f: one head, K and V types) is its own: V not padded to the main's.
    const bool indexed = g.kind == group_kind::full && g.index_row.count() != 0;
    const bytes index_v = indexed ? g.index_row - kvsize::detail::sparse_index_row(m, s.kv.k) : bytes{0};
    const bytes v_row = g.kind == group_kind::latent ? g.v_row : max(g.v_row - index_v, v_floor) + index_v;
    c.layers += g.layers;
    c.k_per_token += g.k_row * g.layers;
    c.v_per_token += v_row * g.layers;
    s.kv_bytes_per_token += (g.k_row + v_row) * g.layers;
  };
  const auto add_state = [&](const layer_group& g) {
    rec.layers += g.layers;
    rec.k_per_token += g.conv_state * g.layers;  // R: conv
    rec.v_per_token += g.ssm_state * g.layers;   // S: ssm
  };
  for_each_group(kvsize::detail::engine_groups(m, o, s, head_split::none, o.llama_cpp.mla_layout, false, index_key_type::k_and_v),
                 add_rows, add_state);
  for (cache_part* c : {&base, &swa}) {
    c->bytes_per_token = c->k_per_token + c->v_per_token;
  }
  rec.k_bytes = rec.k_per_token * rec.cells;
  rec.v_bytes = rec.v_per_token * rec.cells;
  rec.bytes_per_token = rec.k_per_token + rec.v_per_token;
  if (base.layers != 0 || (!iswa && !hybrid)) {
    s.add_part(base);
  }
  if (iswa) {
    s.add_part(swa);
  }
  if (hybrid) {
    s.add_part(rec);
  }
  s.state_bytes_per_sequence = rec.bytes_per_token;
  detail::fill(m, o, s);
  return s;
}

/// The sizing `s` (size_stage's, made with options that differ from `o` in -c only) at o.context:
/// the caches' bytes per token do not depend on -c, so only their cells are redone (detail::fill).
/// -np is not the context: the planner's users (slots) are sized, not derived (with_users).
[[nodiscard]] constexpr auto with_context(const model_spec& m, const engine_options& o, engine_sizing s)
    -> engine_sizing {
  detail::fill(m, o, s);
  return s;
}

/// Bytes of llama.cpp's `which` cache(s) for layers [first, first + count): one device's
/// "KV buffer size" line when layers are split over devices.
[[nodiscard]] constexpr auto buffer_bytes(const model_spec& m, const engine_options& o, std::uint32_t first,
                                          std::uint32_t count, cache_select which = cache_select::all) -> bytes {
  const engine_sizing s = size_stage(m, o, {first, count});
  bytes total{0};
  for (std::uint32_t i = 0; i < s.part_count; ++i) {
    const cache_part& c = s.part(i);
    if (c.group == group_kind::recurrent_state) {
      continue;
    }
    const bool is_swa = is_windowed(c.group);
    if (which == cache_select::all || (which == cache_select::swa) == is_swa) {
      total += c.k_bytes + c.v_bytes;
    }
  }
  return total;
}

}  // namespace kvsize::engines::llama_cpp

namespace kvsize {

/// llama.cpp as an engine type (see engine_concept.hpp).
struct llama_cpp_engine : engine_defaults<llama_cpp_engine> {
  static constexpr engine_kind kind = engine_kind::llama_cpp;
  static constexpr std::string_view name = "llama.cpp";
  static constexpr std::string_view display_name = "llama.cpp";
  static constexpr std::array<std::string_view, 3> aliases{"llamacpp", "llama-cpp", "llama_cpp"};
  /// -c 0 sizes the model's n_ctx_train (common/arg.cpp; the converter's: default_context), which --fit may lower.
  static constexpr std::string_view default_context_setting = "-c 0";
  static constexpr std::string_view default_context_caveat = "or less with --fit";
  static constexpr engine_knob knobs = engine_knob::parallel | engine_knob::ubatch | engine_knob::kv_unified |
                                       engine_knob::swa_full | engine_knob::flash_attn | engine_knob::gpu_layers;
  [[nodiscard]] static constexpr auto default_context(const model_spec& m, const engine_options& /*o*/) -> std::uint64_t {
    return engines::llama_cpp::converted_context_length(m);
  }
  static constexpr std::optional<dtype> kv_8bit = dtype::q8_0;
  static constexpr std::optional<dtype> kv_4bit = dtype::q4_0;
  /// ggml computes activations and logits in f32 whatever the weights (its recurrent state is f32
  /// too), and `--dtype` is not a llama.cpp option.
  [[nodiscard]] static constexpr auto serving_dtype(const config_dtype_facts& /*f*/) -> dtype { return dtype::f32; }
  /// f16 for both, whatever the model (engines::llama_cpp::stage_types).
  [[nodiscard]] static constexpr auto default_kv_dtypes(const config_dtype_facts& /*f*/) -> kv_dtypes {
    return kv_dtypes::same(dtype::f16);
  }
  [[nodiscard]] static constexpr auto stage_types(const model_spec& m, const engine_options& o)
      -> detail::stage_dtypes {
    return engines::llama_cpp::stage_types(m, o);
  }
  /// The f16 GGUF convert_hf_to_gguf.py writes by default (--outtype f16).
  [[nodiscard]] static constexpr auto default_weights_dtype(const config_dtype_facts& /*f*/) -> dtype {
    return dtype::f16;
  }
  /// --cache-type-k / --cache-type-v (is_cache_type).
  [[nodiscard]] static constexpr auto kv_type_refusal(dtype t) -> std::string_view {
    return engines::llama_cpp::is_cache_type(t)
               ? std::string_view{}
               : "llama.cpp's KV cache types are f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0 and q5_1";
  }
  [[nodiscard]] static constexpr auto size_stage(const model_spec& m, const engine_options& o, detail::stage_range r)
      -> engine_sizing {
    return engines::llama_cpp::size_stage(m, o, r);
  }
  /// It splits layers, not heads: --tp and --pp both count layer-split devices (64-bit: the product never wraps).
  [[nodiscard]] static constexpr auto layer_split_devices(const engine_options& o) -> std::uint64_t {
    return std::uint64_t{o.tp} * o.pp;
  }
  /// Device `stage`'s blocks with every slot offloaded: llama.cpp's -ts rule (engines::llama_cpp::blocks_of_device).
  [[nodiscard]] static constexpr auto stage_layers(const model_spec& m, const engine_options& o, std::uint32_t stage,
                                                   std::uint32_t stages) -> detail::stage_range {
    return engines::llama_cpp::blocks_of_device(m.layers, o.llama_cpp.split, stages, stage);
  }
  /// No budget (the cache is what -c says); for capacity, --fit's 1 GiB margin: device − weights − overhead − 1 GiB.
  [[nodiscard]] static constexpr auto budget(const engine_options& /*o*/) -> budget_rule {
    return {.margin = engines::llama_cpp::fit_margin};
  }
  /// The compute buffer its worst-case graph reserves (engines/llama_cpp_compute.hpp): a ubatch of n_ubatch =
  /// min(-ub, -b, n_ctx) tokens, every one an output, float32; the graph allocator reuses memory, so the buffer is the
  /// largest of the output (logits, last norm), one layer's attention (with the KQ scores without flash attention)
  /// and one layer's MLP: phased. The output buffer (n_vocab × n_seq × 4 B) is host memory and not counted.
  [[nodiscard]] static constexpr auto workspace(const model_spec& m, const engine_options& o) -> workspace_defaults {
    engine_options p = o;
    p.context = kvsize::detail::context_of(m, o);
    const std::uint64_t ubatch = engines::llama_cpp::plan(m, p).n_ubatch;
    const engines::llama_cpp::compute_buffers b = engines::llama_cpp::compute_buffers_for(m, o);
    return {.positions = logits_kept::last,
            .logits_float32 = true,
            .last_rows = ubatch,
            .last_rows_fixed = true,
            .activation_tokens = ubatch,
            .activation_dtype = dtype::f32,
            .sequences = o.llama_cpp.parallel,
            .activation_tp = 1,  // each device of a layer split runs whole layers
            .phased = true,
            .activations_bytes = max(b.attention, b.mlp),
            .logits_bytes = b.output};
  }
  /// Layers, not heads, are split: tp × pp devices, each with at least one layer.
  [[nodiscard]] static constexpr auto valid_tp(const model_spec& m, std::uint32_t tp, std::uint32_t pp) -> bool {
    return tp != 0 && std::uint64_t{tp} * pp <= m.layers;
  }
  /// Users are slots: `-np users -c users × context`, so that every slot holds `context` cells.
  [[nodiscard]] static constexpr auto plan_options(engine_options o, std::uint64_t context, std::uint64_t users)
      -> engine_options {
    if (users > 0xFFFF'FFFFULL) {
      throw kvsize::overflow_error("kvsize: more llama.cpp slots than fit in 32 bits");
    }
    o.batch = users;
    o.llama_cpp.parallel = static_cast<std::uint32_t>(users);
    o.context = detail::checked_mul(context, users);
    return o;
  }
  /// Its cells follow from -c and the sizing's per-token rates (engines::llama_cpp::with_context).
  [[nodiscard]] static constexpr auto with_context(const model_spec& m, const engine_options& o,
                                                   const engine_sizing& s) -> std::optional<engine_sizing> {
    return engines::llama_cpp::with_context(m, o, s);
  }
  /// Not affine in the users: plan_options sets -c = users × context, which llama.cpp pads (n_ctx to a multiple of
  /// 256) and splits per slot, and the ubatch follows n_ctx; the planner sizes every user count it asks about.
  [[nodiscard]] static constexpr auto with_users(const model_spec& /*m*/, const engine_options& /*o*/,
                                                const engine_sizing& /*s*/) -> std::optional<engine_sizing> {
    return std::nullopt;
  }
};
static_assert(engine<llama_cpp_engine>);

}  // namespace kvsize

// The registry and the dispatch, so that this header alone is usable (engine.hpp includes every
// engine header; this one is already complete here).
#include "../engine.hpp"
