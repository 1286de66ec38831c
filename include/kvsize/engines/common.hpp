// SPDX-License-Identifier: MIT
// The vocabulary every engine profile shares: which engine, its knobs, and what it allocates.
// Standard library only; every figure is computed in constant expressions without allocation.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>    // std::max, std::min
#include <array>        // std::array
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint8_t, std::uint32_t, std::uint64_t
#include <optional>     // std::optional
#include <string_view>  // std::string_view

#include "../error.hpp"
#include "../bytes.hpp"
#include "../detail/checked.hpp"
#include "../dtype.hpp"
#include "../kv_cache.hpp"
#include "../layer_groups.hpp"
#include "../model_spec.hpp"

namespace kvsize {

/// A serving engine whose KV cache kvsize reproduces. `exact` is the mathematical minimum.
enum class engine_kind : std::uint8_t { exact, vllm, sglang, llama_cpp, trtllm, transformers };


/// Every knob of the CLI contract, with the engines' defaults. A 0 means "the engine's default".
struct engine_options {
  std::uint64_t context = 4'096;  ///< tokens per sequence (vLLM max_model_len, llama.cpp -c; 0 → model max)
  std::uint64_t batch = 1;        ///< sequences held at once (llama.cpp uses `parallel`)
  std::optional<kv_dtypes> kv{};  ///< K and V element types; none → the engine's default (default_kv_dtypes)
  std::uint32_t tp = 1;           ///< tensor-parallel degree
  std::uint32_t pp = 1;           ///< pipeline-parallel degree
  std::uint32_t block_size = 0;   ///< vLLM block / SGLang page / TRT-LLM tokens per block; 0 → default
  bytes device_memory{0};         ///< total memory of one device, when known (memory-dependent defaults)
  bytes engine_overhead{0};       ///< memory outside the KV budget (activations, graphs) for engine_kv_budget
  std::uint64_t shared_prefix = 0;  ///< S: a prompt prefix shared by all `batch` sequences

  // vLLM (v1)
  std::uint64_t max_num_batched_tokens = 0;  ///< 0 → 8192 (the API server's default)
  std::uint32_t max_num_seqs = 0;            ///< 0 → 1024 on ≥ 70 GiB devices, else 256
  double gpu_memory_utilization = 0.9;       ///< fraction of TOTAL device memory
  bool fp8_ds_mla = false;                   ///< DeepSeek-V3.2's 656-byte fp8 latent format
  bool disable_hybrid_kv_cache_manager = false;
  std::optional<dtype> state_dtype{};  ///< recurrent-state dtype; none → the engine's default

  // SGLang
  double mem_fraction_static = 0;       ///< 0 → SGLang's auto rule from device memory
  bool swa_pool = false;                ///< SGLang hybrid SWA pool (disabled for Gemma 2/3, old gpt-oss)
  double swa_full_tokens_ratio = 0.8;   ///< SWA pool tokens / full pool tokens
  double mamba_full_memory_ratio = 0.9; ///< state memory : KV memory
  std::uint64_t max_running_requests = 0;  ///< 0 → SGLang's rule

  // llama.cpp
  std::uint32_t parallel = 1;   ///< -np: sequences (slots)
  std::uint32_t ubatch = 512;   ///< -ub (the effective n_ubatch = min(-ub, -b, n_ctx))
  bool kv_unified = false;      ///< -kvu: one buffer shared by all slots
  bool swa_full = false;        ///< --swa-full: full-size sliding-window cache
  std::uint32_t ctx_pad = 256;  ///< n_ctx padding (256 since late 2025; 1 for older builds)
  mla_cache_layout mla_layout = mla_cache_layout::latent_k_only;

  // TensorRT-LLM
  double free_gpu_memory_fraction = 0.9;  ///< fraction of FREE memory after the profiling run

  // transformers
  std::uint64_t logits_to_keep = 0;  ///< positions whose logits are kept; 0 → every position
  bool logits_float32 = false;       ///< the model upcasts logits to float32
};

/// What the engines' `dtype="auto"` rules read from a config.json: the dtype it names (float32 when
/// it names none, as transformers and vLLM's _find_dtype read such a file), and two model facts that
/// SGLang's rule also reads.
struct config_dtype_facts {
  dtype config_dtype = dtype::f32;  ///< `dtype` / `torch_dtype`; f32 when absent
  bool named = true;                ///< the config names its dtype
  bool gemma = false;               ///< model_type starts with "gemma"
  bool mxfp4 = false;               ///< quantization_config.quant_method is "mxfp4" (gpt-oss)
  bool given = false;               ///< the user named the dtype (vLLM/SGLang `--dtype`, not auto):
                                    ///< every engine but llama.cpp then computes in it, float32 too
};

/// The facts a model_spec alone carries: its compute dtype, as named. Byte-exact for every rule
/// below (gemma and mxfp4 change SGLang's choice between f16 and bf16, never the size).
[[nodiscard]] constexpr auto dtype_facts(const model_spec& m) -> config_dtype_facts {
  return {m.compute_dtype, true, false, false};
}

/// The element type engine `e` computes in (its weights when unquantized, activations, and the
/// KV cache unless told otherwise) when started with its default `--dtype auto`. Each engine's rule,
/// with its source, is its type's `serving_dtype` (include/kvsize/engines/<engine>.hpp); this is the
/// dispatch, defined in <kvsize/engine.hpp> (declared here because start_sizing and the engines'
/// size_stage read it).
[[nodiscard]] constexpr auto serving_dtype(engine_kind e, const config_dtype_facts& f) -> dtype;

/// The K and V element types engine `e` gives its cache when told nothing (its type's
/// `default_kv_dtypes`); defined in <kvsize/engine.hpp>.
[[nodiscard]] constexpr auto default_kv_dtypes(engine_kind e, const config_dtype_facts& f) -> kv_dtypes;

/// Most distinct pools / caches / layer groups a sizing describes.
inline constexpr std::size_t max_cache_parts = 8;

/// One pool, cache or group kind as the engine allocates it (per device).
struct cache_part {
  layer_kind kind = layer_kind::full;  ///< full, sliding, chunked or latent; `none` for a recurrent state
  std::uint32_t layers = 0;            ///< real layers in this part (on this device)
  std::uint32_t window = 0;            ///< W or C of sliding / chunked parts
  std::uint32_t block_size = 0;        ///< tokens per block (vLLM after page unification; TRT tokens per block)
  std::uint32_t groups = 0;            ///< vLLM: KV cache groups of this kind
  std::uint32_t padding_layers = 0;    ///< vLLM: empty layer slots in those groups
  std::uint64_t blocks_per_sequence = 0;  ///< vLLM/TRT: blocks one sequence takes, per group
  std::uint64_t cells = 0;    ///< llama.cpp: cells per stream; SGLang: 0 until capacity is known
  std::uint32_t streams = 1;  ///< llama.cpp: streams (1 if unified); recurrent: sequences
  bytes bytes_per_token{0};   ///< K+V bytes one token costs across the part's layers (state: per sequence)
  bytes k_bytes{0};           ///< K (or R for a state) of the whole part, all streams
  bytes v_bytes{0};           ///< V (or S for a state) of the whole part, all streams
  bytes k_per_token{0};       ///< K bytes one token costs across the part's layers (R per cell for a state)
  bytes v_per_token{0};       ///< V bytes one token costs across the part's layers (S per cell for a state)
  kv_dtypes types{dtype::f16, dtype::f16};
  /// What the part holds, as a layer group kind: `recurrent_state` where `kind` says `none`. Readers
  /// of `kind` may move to this field; both are set by every engine.
  group_kind group = group_kind::full;
};

/// What one engine allocates for the KV cache of one model on ONE device (one TP rank, the
/// largest PP stage).
struct engine_sizing {
  engine_kind engine = engine_kind::exact;
  kv_dtypes kv{dtype::f16, dtype::f16};
  std::uint32_t first_layer = 0;   ///< first layer of the stage sized
  std::uint32_t stage_layers = 0;  ///< layers of the stage sized
  std::uint32_t kv_heads_per_rank = 0;
  std::uint32_t block_size = 1;    ///< allocation unit in tokens (llama.cpp, transformers: 1)
  std::uint64_t context = 0;       ///< context sized (llama.cpp: n_ctx after padding)

  bytes kv_bytes_per_token{0};        ///< one more token of one sequence, every KV layer of the device
  bytes kv_bytes_per_sequence{0};     ///< one sequence of `context` tokens, as the engine charges it
  bytes kv_bytes{0};                  ///< the whole allocation for the batch (llama.cpp: the -c/-np cache)
  bytes state_bytes_per_sequence{0};  ///< recurrent state (as the engine pages it)
  bytes prefix_bytes_saved{0};        ///< bytes a shared prefix of S tokens saves across the batch
  bytes prefix_bytes_per_sequence{0}; ///< bytes of one sequence that the shared prefix accounts for
  bytes logits_bytes{0};              ///< transformers: logits of the forward pass over the batch

  // vLLM
  std::uint32_t kv_cache_groups = 0;      ///< groups drawing from the block pool
  std::uint32_t group_size = 0;           ///< layer slots per group
  bytes pool_block_bytes{0};              ///< bytes of one pool block (all layer slots of a group)
  std::uint64_t blocks_per_sequence = 0;  ///< pool blocks one request of `context` tokens reserves
  std::uint32_t min_block_size = 0;       ///< smallest block size over the groups
  std::uint32_t mamba_block_size = 0;     ///< attention block size forced by the mamba page (0: none)
  double mamba_padding_percent = 0;       ///< how much the mamba page was padded

  // llama.cpp
  std::uint64_t n_ctx_seq = 0;  ///< cells per sequence
  std::uint32_t n_seq = 1;      ///< sequences (slots)

  std::array<cache_part, max_cache_parts> parts{};
  std::uint32_t part_count = 0;

  [[nodiscard]] constexpr auto part(std::uint32_t i) const -> const cache_part& { return parts[i]; }
  constexpr auto add_part(const cache_part& p) -> cache_part& {
    if (part_count >= max_cache_parts) {
      throw kvsize::invalid_argument("kvsize: too many cache parts");
    }
    parts[part_count] = p;
    return parts[part_count++];
  }
};

/// What fits in a KV budget on one device, as the engine counts it.
struct engine_capacity {
  bytes kv_budget{0};                  ///< bytes available to the KV cache on one device
  std::uint64_t max_tokens = 0;        ///< tokens that fit (vLLM: its "GPU KV cache size")
  std::uint64_t max_sequences = 0;     ///< sequences of `context` tokens at once (engine caps applied)
  double max_concurrency = 0;          ///< sequences of `context` tokens, fractional (vLLM's figure)
  std::uint64_t max_sequences_shared = 0;  ///< the same with the shared prefix held once
  std::uint64_t num_blocks = 0;        ///< vLLM / TRT-LLM: blocks in the pool
  bytes allocated{0};                  ///< bytes the engine allocates for the pool
  std::uint64_t swa_tokens = 0;        ///< SGLang SWA pool tokens
  std::uint64_t state_slots = 0;       ///< SGLang: max_mamba_cache_size
  std::uint64_t max_running_requests = 0;  ///< SGLang's default cap
};

namespace detail {

/// Layers [first, first + count) of PP stage `stage` of `pp` (vLLM's get_pp_indices: the
/// remainder goes to the stages before the last). stage_range is layer_groups.hpp's.
[[nodiscard]] constexpr auto pp_stage(std::uint32_t layers, std::uint32_t pp, std::uint32_t stage) -> stage_range {
  if (pp == 0 || stage >= pp) {
    throw kvsize::invalid_argument("kvsize: pipeline stage out of range");
  }
  const std::uint32_t base = layers / pp;
  const std::uint32_t rest = layers % pp;
  // stages pp-1-rest .. pp-2 get one more layer.
  stage_range r{};
  for (std::uint32_t s = 0; s <= stage; ++s) {
    const bool extra = rest != 0 && s + 1 + rest >= pp && s + 1 < pp;
    const std::uint32_t n = base + (extra ? 1U : 0U);
    if (s == stage) {
      r.count = n;
    } else {
      r.first += n;
    }
  }
  return r;
}

/// K and V element types of stage sizing: `o.kv`, else the engine's own default for this model.
[[nodiscard]] constexpr auto kv_types(engine_kind e, const model_spec& m, const engine_options& o) -> kv_dtypes {
  return o.kv ? *o.kv : default_kv_dtypes(e, dtype_facts(m));
}
/// What every engine's sizing of stage `r` starts from: the engine, the K/V element types, the
/// stage's layers, and the context (--context, or the model's maximum when 0; llama.cpp then
/// replaces it with its padded n_ctx).
[[nodiscard]] constexpr auto start_sizing(engine_kind e, const model_spec& m, const engine_options& o,
                                          stage_range r) -> engine_sizing {
  check_model(m);  // every engine's size_stage starts here: none sizes an invalid spec
  engine_sizing s{};
  s.engine = e;
  s.kv = kv_types(e, m, o);
  s.first_layer = r.first;
  s.stage_layers = r.count;
  s.context = o.context != 0 ? o.context : m.max_context;
  return s;
}

/// The element types engine `e` keeps a recurrent state in (the one state-dtype rule):
///   vLLM (mamba_ssm_cache_dtype / mamba_cache_dtype "auto"), TensorRT-LLM, transformers, exact:
///     `--state-dtype`, else the serving dtype (vLLM serves a float32 config in bfloat16).
///   SGLang: conv in the serving dtype; SSM in `--state-dtype`, else float32 (server_args.py
///     `mamba_ssm_dtype` "float32").
///   llama.cpp: float32 for both whatever is asked (src/llama-model.cpp `create_memory` makes its
///     llama_memory_recurrent with GGML_TYPE_F32 for the r and s tensors).
[[nodiscard]] constexpr auto state_types(engine_kind e, const model_spec& m, const engine_options& o)
    -> state_dtypes {
  const dtype served = serving_dtype(e, dtype_facts(m));
  switch (e) {
    case engine_kind::llama_cpp: return {dtype::f32, dtype::f32};
    case engine_kind::sglang: return {served, o.state_dtype ? *o.state_dtype : dtype::f32};
    case engine_kind::exact:
    case engine_kind::vllm:
    case engine_kind::trtllm:
    case engine_kind::transformers: break;
  }
  const dtype t = o.state_dtype ? *o.state_dtype : served;
  return {t, t};
}

/// The layer groups of stage `r` as engine `e` shapes them: `s.kv` K/V types, state_types, `o.tp`
/// ranks split by `split`, MLA stored as `mla`. For a spec start_sizing has checked.
[[nodiscard]] constexpr auto engine_groups(engine_kind e, const model_spec& m, const engine_options& o,
                                           const engine_sizing& s, head_split split,
                                           mla_cache_layout mla = mla_cache_layout::latent_k_only) -> layer_groups {
  const group_choices c{.kv = s.kv, .state = state_types(e, m, o), .tp = o.tp, .split = split, .mla = mla};
  return group_layers(m, {s.first_layer, s.stage_layers}, c);
}

/// The cache_part kinds of a group kind: `layer_kind::none` is how a part says "recurrent state".
[[nodiscard]] constexpr auto part_kind(group_kind k) -> layer_kind {
  switch (k) {
    case group_kind::full: return layer_kind::full;
    case group_kind::sliding: return layer_kind::sliding;
    case group_kind::chunked: return layer_kind::chunked;
    case group_kind::latent: return layer_kind::latent;
    case group_kind::recurrent_state: break;
  }
  return layer_kind::none;
}
/// A cache_part of kind `k` with `types`.
[[nodiscard]] constexpr auto part_of(group_kind k, kv_dtypes types) -> cache_part {
  cache_part p{};
  p.kind = part_kind(k);
  p.group = k;
  p.types = types;
  return p;
}

/// Serving engines that store one element per byte-addressable unit (no GGML blocks).
constexpr void require_plain_types(kv_dtypes t, std::string_view engine) {
  if (traits(t.k).block_elements != 1 || traits(t.v).block_elements != 1) {
    (void)engine;
    throw kvsize::invalid_argument("kvsize: this engine has no GGML block-quantized KV cache (q8_0, q4_0, ...)");
  }
}

/// Tokens of a shared prefix of `s` tokens still held by a group of kind `k` at `context` tokens:
/// windowed groups hold the part of the prefix inside their last `window` tokens; a state none.
[[nodiscard]] constexpr auto prefix_tokens_held(group_kind k, std::uint64_t window, std::uint64_t s,
                                                std::uint64_t context) -> std::uint64_t {
  s = std::min(s, context);
  switch (k) {
    case group_kind::sliding:
    case group_kind::chunked: {
      const std::uint64_t oldest = context > window ? context - window : 0;  // first position still held
      return s > oldest ? s - oldest : 0;
    }
    case group_kind::recurrent_state: return 0;
    case group_kind::full:
    case group_kind::latent: break;
  }
  return s;
}

constexpr void check_options(const model_spec& m, const engine_options& o) {
  validate(m);
  if (o.tp == 0 || o.pp == 0) {
    throw kvsize::invalid_argument("kvsize: --tp and --pp must be positive");
  }
  if (o.pp > m.layers) {
    throw kvsize::invalid_argument("kvsize: more pipeline stages than layers");
  }
  if (o.batch == 0 || o.parallel == 0) {
    throw kvsize::invalid_argument("kvsize: batch and parallel must be positive");
  }
}

}  // namespace detail
}  // namespace kvsize

namespace kvsize::detail {

/// max(0, a − b) for budgets.
[[nodiscard]] constexpr auto saturating_sub(bytes a, bytes b) -> bytes { return a > b ? a - b : bytes{0}; }

/// floor(fraction × b), for the engines' budget fractions (0 ≤ fraction ≤ 1).
[[nodiscard]] constexpr auto fraction_of(bytes b, double fraction) -> bytes {
  if (!(fraction >= 0.0 && fraction <= 1.0)) {
    throw kvsize::invalid_argument("kvsize: a memory fraction must lie in [0, 1]");
  }
  return bytes{static_cast<std::uint64_t>(static_cast<double>(b.count()) * fraction)};
}

/// The capacity of an engine whose only rule is "sequences × bytes per sequence ≤ budget".
[[nodiscard]] constexpr auto plain_capacity(const engine_sizing& s, bytes budget) -> engine_capacity {
  engine_capacity c{};
  c.kv_budget = budget;
  c.max_tokens = s.kv_bytes_per_token.count() == 0 ? ~std::uint64_t{0} : budget / s.kv_bytes_per_token;
  const bytes per_sequence = s.kv_bytes_per_sequence + s.state_bytes_per_sequence;
  if (per_sequence.count() == 0) {
    c.max_sequences = ~std::uint64_t{0};
    c.max_sequences_shared = c.max_sequences;
    c.max_concurrency = 0;
    return c;
  }
  c.max_sequences = budget / per_sequence;
  c.max_concurrency = static_cast<double>(budget.count()) / static_cast<double>(per_sequence.count());
  // A shared prefix is held once: budget ≥ prefix + n × (per_sequence − prefix).
  const bytes prefix = s.prefix_bytes_per_sequence;
  if (prefix.count() != 0 && prefix < per_sequence && budget >= prefix) {
    c.max_sequences_shared = (budget - prefix) / (per_sequence - prefix);
  } else {
    c.max_sequences_shared = c.max_sequences;
  }
  c.allocated = per_sequence * c.max_sequences;
  return c;
}

}  // namespace kvsize::detail
