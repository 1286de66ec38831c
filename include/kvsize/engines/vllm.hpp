// SPDX-License-Identifier: MIT
// vLLM (v1 engine): paged KV cache in blocks, layers grouped by spec, one shared block pool.
// Facts from vllm/v1/kv_cache_interface.py, vllm/v1/core/kv_cache_utils.py,
// vllm/model_executor/models/config.py, vllm/worker/gpu_worker.py (see docs/engines.md).
// long-header: one engine is one header (issue 12); vLLM's KV cache manager (specs, block size, groups,
// pages, the context terms with_context redoes) is most of what the engine is, and splitting it would
// spread the engine over two files.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <algorithm>  // std::max, std::min
#include <array>      // std::array
#include <cstdint>    // std::uint32_t, std::uint64_t
#include <optional>   // std::optional

#include "../error.hpp"
#include "common.hpp"
#include "dsa_fp8_layout.hpp"  // fp8_ds_mla's 656-byte row
#include "engine_concept.hpp"
#include "vllm_prefix_caching.hpp"  // the Mamba cache mode
#include "vllm_runner_v2.hpp"       // 0.22's Model Runner V2
#include "vllm_sparse_mla.hpp"      // DSA's fp8 latent layout
#include "vllm_context.hpp"   // max_model_len when none is given
#include "vllm_startup.hpp"  // the release, the device-dependent defaults, the profile run

namespace kvsize::engines::vllm {

/// vLLM pages every request's max_model_len: a context of 0 (and a model without one) is refused.
inline constexpr const char* needs_context = "kvsize: vLLM needs a context (max_model_len)";

/// A float32 config (or one without dtype) is served in bfloat16: vllm/config/model.py
/// `_resolve_auto_dtype` ("Downcast for float32 models": the platform's first supported dtype,
/// bfloat16 on compute capability ≥ 8.0 per vllm/platforms/cuda.py `supported_dtypes`; float16
/// before Ampere, same size). A config without dtype: `_find_dtype` reads the safetensors, else
/// float32 → bfloat16.
[[nodiscard]] constexpr auto serving_dtype(const config_dtype_facts& f) -> dtype {
  return kvsize::detail::given_or(f, kvsize::detail::float32_config(f) ? dtype::bf16 : f.config_dtype);
}

/// The first release whose config hook reads the model's SSM-state dtype key: 0.13 for NemotronH's
/// mamba_ssm_cache_dtype (vllm-project/vllm PR #29978, December 2025; a public 0.13.0 log prints
/// "Updating mamba_ssm_cache_dtype to 'float16' for NemotronH model", a 0.12.0 log sizes the state
/// in bf16), 0.17 for Qwen3.5's mamba_ssm_dtype (PR #34489, February 2026, after the 0.16 branch):
/// the gated-DeltaNet family that has the key. Earlier releases keep the state in the model dtype.
[[nodiscard]] constexpr auto config_ssm_dtype_since(const model_spec& m) -> std::uint32_t {
  return m.weights.recurrent.kind == recurrent_kind::gated_delta ? 17U : 13U;
}

/// The first release whose NemotronH hook keeps the SSM state in float32 when the config names no
/// dtype (PR #39032; before it, float16).
inline constexpr std::uint32_t f32_ssm_default_since = 20;

/// The releases from which vLLM's `--kv-cache-dtype auto` takes the FP8 KV cache a checkpoint declares
/// (o.checkpoint_kv). ModelOpt's from 0.14: PR #30785 (commit 7b966ae2, after the 0.13 branch left main),
/// EngineArgs.create_engine_config resolving "auto" through vllm/utils/torch_utils.py get_kv_cache_quant_algo_string
/// ("fp8" → "fp8_e4m3"; the scheme first, FP8 only with dynamic false: PR #31895, also 0.14).
/// compressed-tensors' from 0.15: PR #30141, vllm/attention/layer.py Attention.__init__ sets "fp8" wherever the
/// quant config has a kv_cache_scheme, over an explicit --kv-cache-dtype too, until PR #42782 (0.22) applied it to
/// "auto" only.
inline constexpr std::uint32_t modelopt_kv_since = 14;
inline constexpr std::uint32_t compressed_tensors_kv_since = 15;
inline constexpr std::uint32_t explicit_kv_wins_since = 22;

/// The K/V type vLLM takes from the checkpoint at `--kv-cache-dtype auto`; nullopt where the release keeps the
/// serving dtype.
[[nodiscard]] constexpr auto checkpoint_kv_dtype(const engine_options& o) -> std::optional<dtype> {
  const std::uint32_t release = release_of(o);
  const bool takes =
      ((o.checkpoint_kv == checkpoint_kv_cache::modelopt_fp8 || o.checkpoint_kv == checkpoint_kv_cache::modelopt_nvfp4_fp8) &&
       release >= modelopt_kv_since) ||
      (o.checkpoint_kv == checkpoint_kv_cache::compressed_tensors_fp8 && release >= compressed_tensors_kv_since);
  return takes ? std::optional<dtype>{dtype::fp8_e4m3} : std::nullopt;
}

/// The declared cache as vLLM's attention layers of `m` read it: compressed-tensors' kv_cache_scheme reaches
/// Attention.__init__ only (vllm/attention/layer.py at v0.15.0, layers/attention/attention.py at v0.19.0), never
/// MLAAttention (layers/attention/mla_attention.py reads no kv_cache_scheme at any tag), so a model with latent
/// layers keeps its own cache type there; ModelOpt's, resolved in EngineArgs.create_engine_config, reaches both.
[[nodiscard]] constexpr auto checkpoint_kv_for(const model_spec& m, checkpoint_kv_cache c) -> checkpoint_kv_cache {
  return c == checkpoint_kv_cache::compressed_tensors_fp8 && count_layers(m, layer_kind::latent) != 0
             ? checkpoint_kv_cache::none
             : c;
}

/// The first release whose --kv-cache-dtype names "float16" (vllm/config/cache.py CacheDType, PR #37199, merged
/// 2026-03-16; tag v0.18.0 is the first release that contains it). Before it a 16-bit cache is "auto" or "bfloat16".
inline constexpr std::uint32_t float16_cache_name_since = 18;

/// vLLM 0.15 – 0.21 put compressed-tensors' FP8 cache over an explicit --kv-cache-dtype as well: over any of its
/// element types (a GGML block type, which vLLM has not, is refused before: size_stage's require_plain_types).
[[nodiscard]] constexpr auto checkpoint_kv_overrides_option(const engine_options& o) -> bool {
  const std::uint32_t release = release_of(o);
  const bool plain = !o.kv || (traits(o.kv->k).block_elements == 1 && traits(o.kv->v).block_elements == 1);
  return o.checkpoint_kv == checkpoint_kv_cache::compressed_tensors_fp8 && release >= compressed_tensors_kv_since &&
         release < explicit_kv_wins_since && plain;
}

/// An explicit K/V type vLLM cannot be given where its `auto` takes the checkpoint's FP8 cache (checkpoint_kv_dtype;
/// not where the release puts that FP8 over any type, checkpoint_kv_overrides_option): float32, which CacheDType
/// never names, and float16 before float16_cache_name_since. Empty: the type can be named (bfloat16, fp8, fp8_e5m2).
[[nodiscard]] constexpr auto checkpoint_kv_type_refusal(const engine_options& o) -> std::string_view {
  if (!o.kv || !checkpoint_kv_dtype(o) || checkpoint_kv_overrides_option(o)) {
    return {};
  }
  if (o.kv->k == dtype::f32 || o.kv->v == dtype::f32) {
    return "vLLM's --kv-cache-dtype auto takes the FP8 KV cache the checkpoint declares, and its other choices of a "
           "wider cache are bfloat16 and, from 0.18, float16 (vllm/config/cache.py CacheDType): no float32";
  }
  const bool f16_unnamed = release_of(o) < float16_cache_name_since;
  return f16_unnamed && (o.kv->k == dtype::f16 || o.kv->v == dtype::f16)
             ? "vLLM's --kv-cache-dtype auto takes the FP8 KV cache the checkpoint declares, and before 0.18 its "
               "other 16-bit choice is bfloat16 (vllm/config/cache.py CacheDType names float16 from 0.18): no float16"
             : std::string_view{};
}

/// K and V in the serving dtype (`--kv-cache-dtype auto`), or the FP8 cache the checkpoint declares where the
/// release takes it (checkpoint_kv_dtype, checkpoint_kv_overrides_option). The states, as
/// vllm/model_executor/layers/mamba/mamba_utils.py MambaStateDtypeCalculator._mamba_state_dtype
/// gives them: the conv state in mamba_cache_dtype ("auto": the model dtype), the SSM state in
/// mamba_ssm_cache_dtype ("auto": the conv's). `--state-dtype` sets both. A model whose config
/// hook sets mamba_ssm_cache_dtype (vllm/model_executor/models/config.py
/// NemotronHForCausalLMConfig: the config's mamba_ssm_cache_dtype, float16 when absent until PR
/// #39032 made it float32 in 0.20; Qwen3_5ForConditionalGenerationConfig: the config's
/// mamba_ssm_dtype) has its SSM state in that dtype, m.state.ssm_dtype, from the release that
/// brought the hook (config_ssm_dtype_since); where the key is absent (ssm_dtype_defaulted), from 0.20
/// float32, NemotronHForCausalLMConfig.DEFAULT_MAMBA_SSM_CACHE_DTYPE (PR #39032, merged 2026-04-06).
[[nodiscard]] constexpr auto stage_types(const model_spec& m, const engine_options& o)
    -> kvsize::detail::stage_dtypes {
  const dtype served = serving_dtype(dtype_facts(m, o));
  engine_options read = o;
  read.checkpoint_kv = checkpoint_kv_for(m, o.checkpoint_kv);
  const kv_dtypes kv = checkpoint_kv_overrides_option(read)
                           ? kv_dtypes::same(dtype::fp8_e4m3)
                           : kvsize::detail::kv_or(o, kv_dtypes::same(checkpoint_kv_dtype(read).value_or(served)));
  kvsize::detail::stage_dtypes t{kv, kvsize::detail::state_in(o, served)};
  if (!o.state_dtype && m.state.ssm_dtype_set && release_of(o) >= config_ssm_dtype_since(m)) {
    t.state.ssm = m.state.ssm_dtype_defaulted && release_of(o) >= f32_ssm_default_since ? dtype::f32 : m.state.ssm_dtype;
  }
  return t;
}

/// The sparse MLA backend's choice for a DSA model (latent layers with an indexer): the release, the device and the
/// cache type as vLLM is given it (vllm_sparse_mla.hpp). A ModelOpt checkpoint's FP8, taken at auto (o.kv unset, or
/// the command's resolved types with o.vllm.kv_cache_auto), reaches the backend as "fp8_e4m3"; compressed-tensors'
/// override sets "fp8" (Attention.__init__), as a typed --kv-cache-dtype fp8 does. Empty for other models.
[[nodiscard]] constexpr auto sparse_mla_of(const model_spec& m, const engine_options& o) -> sparse_mla_choice {
  if (m.latent.index_head_dim == 0 || count_layers(m, layer_kind::latent) == 0) {
    return {};
  }
  const bool modelopt = o.checkpoint_kv == checkpoint_kv_cache::modelopt_fp8 ||
                        o.checkpoint_kv == checkpoint_kv_cache::modelopt_nvfp4_fp8;
  const sparse_mla_case c{.heads_per_rank = m.attention_heads / std::max<std::uint32_t>(o.tp, 1U),
                          .latent = stage_types(m, o).kv.k,
                          .model = serving_dtype(dtype_facts(m, o)),
                          .nope_head_dim = m.latent.nope_head_dim,
                          .checkpoint_fp8 = modelopt && checkpoint_kv_dtype(o).has_value() &&
                                            (!o.kv || o.vllm.kv_cache_auto)};
  return sparse_mla_choice_of(o, c);
}

/// Why vLLM does not serve `m` under `o` as sized (empty: it does): model_refusal (the Mamba cache mode, lightning
/// attention), checkpoint_kv_type_refusal, then DeepSeek sparse attention's backends (sparse_mla_of).
[[nodiscard]] constexpr auto served_refusal(const model_spec& m, const engine_options& o) -> std::string_view {
  if (const std::string_view model = model_refusal(m, o); !model.empty()) {
    return model;
  }
  engine_options read = o;
  read.checkpoint_kv = checkpoint_kv_for(m, o.checkpoint_kv);
  if (const std::string_view type = checkpoint_kv_type_refusal(read); !type.empty()) {
    return type;
  }
  return sparse_mla_of(m, o).refusal;
}

inline constexpr std::uint32_t default_block_size = 16;      ///< CUDA platform default
inline constexpr std::uint32_t default_mla_block_size = 64;  ///< FlashMLA forces 64
/// MiniMax-M3's sparse layers: MiniMaxM3SparseBackend.get_supported_kernel_block_sizes() is [128] ("page
/// size == sparse block size"; models/minimax_m3/common/sparse_attention.py @040e4601), so the cache's
/// block size must be a multiple of 128; vLLM's recipes pass --block-size 128.
inline constexpr std::uint32_t sparse_index_block_size = 128;

namespace detail {
using kvsize::detail::ceil_div;

/// One KVCacheSpec as vLLM merges them (vllm/v1/core/kv_cache_utils.py): layers of one kind,
/// window and page, with the block size and KV cache groups vLLM gives them.
struct spec {
  group_kind kind = group_kind::full;
  bytes per_token{0};  // attention: bytes per token of one layer; mamba: the page (per request)
  std::uint32_t window = 0;
  std::uint32_t layers = 0;
  std::uint32_t block_size = 0;
  std::uint32_t groups = 0;
  [[nodiscard]] constexpr auto mamba() const -> bool { return kind == group_kind::recurrent_state; }
};

/// The distinct specs of a stage, and what the block size and grouping rules ask of them.
struct spec_list {
  std::array<spec, max_cache_parts> at{};
  std::uint32_t count = 0;
  bool any_latent = false;
  bool any_sparse_index = false;  ///< the model has indexed (MiniMax-M3 sparse) layers: block size sparse_index_block_size
  bool any_attention = false;
  bool any_mamba = false;
  constexpr void add(const spec& x) {
    for (std::uint32_t i = 0; i < count; ++i) {
      if (at[i].kind == x.kind && at[i].per_token == x.per_token && at[i].window == x.window) {
        at[i].layers += x.layers;
        return;
      }
    }
    if (count == at.size()) {
      throw kvsize::invalid_argument("kvsize: too many distinct layer specs for vLLM");
    }
    at[count++] = x;
  }
};

/// Blocks one request of `len` tokens reserves in one group of part `p` (its kind, window and block
/// size; the specs' max_memory_usage_bytes); a state group, `state_pages` (the Mamba cache mode's).
[[nodiscard]] constexpr auto blocks_per_request(const cache_part& p, std::uint64_t len, std::uint64_t mnbt,
                                                std::uint32_t state_pages) -> std::uint64_t {
  switch (p.group) {
    case group_kind::sliding:  // the window need not start on a block boundary: +1
      return ceil_div(std::min<std::uint64_t>(p.window - 1ULL + mnbt, len), p.block_size) + 1;
    case group_kind::chunked: return ceil_div(std::min<std::uint64_t>(p.window + mnbt, len), p.block_size);
    case group_kind::recurrent_state: return state_pages;
    case group_kind::full:
    case group_kind::latent: break;
  }
  return ceil_div(len, p.block_size);
}

/// The first release that caches V at its own width where it is narrower than K (PR #40045,
/// 2026-04-24: MiMoV2Attention gets the FlashAttentionDiffKV backend and a head_size_v). Before it,
/// models/mimo_v2_flash.py MiMoV2Attention.forward padded V to K's head size
/// (torch.nn.functional.pad(v, [0, head_dim − v_head_dim])) and the cache held both at K's width.
/// MiMo-V2-Flash's are the only non-latent layers kvsize knows with V narrower than K.
inline constexpr std::uint32_t diff_kv_since = 20;

/// One layer's K + V bytes per token as the release caches them (see diff_kv_since).
[[nodiscard]] constexpr auto attention_row(const layer_group& g, const engine_options& o) -> bytes {
  if (release_of(o) >= diff_kv_since || g.kind == group_kind::latent) {
    return g.row();
  }
  // K's own elements (an indexed layer's k_row holds its index key too); no block types in vLLM
  const std::uint64_t k_elements = (g.k_row - g.index_row).count() / traits(g.types.k).block_bytes;
  const bytes v_padded = storage_bytes(g.types.v, k_elements);
  return g.k_row + (v_padded > g.v_row ? v_padded : g.v_row);
}

/// 1. The specs of the layer groups. Latent layers cache the K-only latent (656 bytes where a DSA model's
/// `fp8_ds_mla` layout is used: `fp8_ds_mla`, sparse_mla_of's choice);
/// --disable-hybrid-kv-cache-manager with several attention kinds makes windowed layers full attention (they pay
/// max_model_len).
[[nodiscard]] constexpr auto specs_of(const layer_groups& groups, const engine_options& o, bool fp8_ds_mla)
    -> spec_list {
  std::uint32_t attention_kinds = 0;  // bit per kind
  for (const layer_group& g : groups) {
    attention_kinds |= g.kind == group_kind::recurrent_state ? 0U : 1U << static_cast<std::uint32_t>(g.kind);
  }
  const bool unify = o.vllm.disable_hybrid_kv_cache_manager && (attention_kinds & (attention_kinds - 1)) != 0;
  spec_list specs{};
  const auto add_attention = [&](const layer_group& g) {
    const bool full = unify && is_windowed(g.kind);
    const bool latent = g.kind == group_kind::latent;
    const bool ds_mla = latent && g.index_row != bytes{0} && fp8_ds_mla;  // DSA's layers carry an indexer key
    specs.any_attention = true;
    specs.any_latent = specs.any_latent || latent;
    specs.add(spec{.kind = full ? group_kind::full : g.kind,
                   .per_token = ds_mla ? dsa_fp8_latent_row + g.index_row : attention_row(g, o),
                   .window = full ? 0U : g.window,
                   .layers = g.layers});
  };
  const auto add_mamba = [&](const layer_group& g) {
    specs.any_mamba = true;
    specs.add(spec{.kind = g.kind, .per_token = g.state(), .layers = g.layers});
  };
  for_each_group(groups, add_attention, add_mamba);
  return specs;
}

/// 2. Block size: --block-size, else the platform's (16) or MLA's (64); with mamba and attention
/// layers, raised to the smallest multiple of 16 (MLA: 64) whose attention page holds the mamba
/// page, which is then padded to the attention page (vllm/model_executor/models/config.py
/// HybridAttentionMambaModelConfig.verify_and_update_config).
[[nodiscard]] constexpr auto block_size_of(spec_list& specs, const engine_options& o, engine_sizing& s)
    -> std::uint32_t {
  const std::uint32_t model_default = specs.any_sparse_index ? sparse_index_block_size
                                      : specs.any_latent      ? default_mla_block_size
                                                              : default_block_size;
  std::uint32_t bs = o.block_size != 0 ? o.block_size : model_default;
  if (specs.any_sparse_index && bs % sparse_index_block_size != 0) {
    throw kvsize::invalid_argument("kvsize: --block-size must be a multiple of 128 for MiniMax-M3's sparse layers "
                                   "(vLLM's MiniMaxM3SparseBackend pages 128 tokens per sparse block)");
  }
  if (!specs.any_mamba || !specs.any_attention) {
    return bs;
  }
  bytes attention_1tok{0};
  bytes mamba_page{0};
  for (std::uint32_t i = 0; i < specs.count; ++i) {
    if (specs.at[i].mamba()) {
      mamba_page = max(mamba_page, specs.at[i].per_token);
    } else if (attention_1tok.count() == 0) {
      attention_1tok = specs.at[i].per_token;
    }
  }
  const std::uint64_t align = specs.any_latent ? 64 : 16;
  const std::uint64_t attention_block = align * ceil_div(mamba_page.count(), align * attention_1tok.count());
  if (bs < attention_block) {
    bs = static_cast<std::uint32_t>(attention_block);
    s.vllm.mamba_block_size = bs;
  }
  const bytes attention_page = attention_1tok * bs;
  s.vllm.mamba_padding_percent =
      100.0 * static_cast<double>((attention_page - mamba_page).count()) / static_cast<double>(mamba_page.count());
  for (std::uint32_t i = 0; i < specs.count; ++i) {
    if (specs.at[i].mamba()) {
      specs.at[i].per_token = attention_page;  // page_size_padded
    }
  }
  return bs;
}

/// Bytes of one block of spec `x` with `bs` tokens (a mamba page is per request).
[[nodiscard]] constexpr auto page_of(const spec& x, std::uint32_t bs) -> bytes {
  return x.mamba() ? x.per_token : x.per_token * bs;
}

/// Specs of distinct type (kind and window): one type, however many shapes, is one KV cache group.
[[nodiscard]] constexpr auto distinct_types(const spec_list& specs) -> std::uint32_t {
  std::uint32_t n = 0;
  for (std::uint32_t i = 0; i < specs.count; ++i) {
    bool seen = false;
    for (std::uint32_t j = 0; j < i; ++j) {
      seen = seen || (specs.at[j].kind == specs.at[i].kind && specs.at[j].window == specs.at[i].window);
    }
    n += seen ? 0U : 1U;
  }
  return n;
}

/// 3a. One type (UniformTypeKVCacheSpecs): a single group whose pool block spans every layer.
constexpr void group_uniform(spec_list& specs, std::uint32_t bs, engine_sizing& s) {
  bytes pool{0};
  std::uint32_t layers = 0;
  for (std::uint32_t i = 0; i < specs.count; ++i) {
    spec& x = specs.at[i];
    x.block_size = bs;
    x.groups = 1;
    pool += page_of(x, bs) * x.layers;
    layers += x.layers;
  }
  s.vllm.kv_cache_groups = 1;
  s.vllm.group_size = layers;
  s.vllm.pool_block_bytes = pool;
  s.vllm.min_block_size = bs;
}

/// 3b. Hybrid: unify page sizes (smaller pages hold more tokens), then layer groups of equal size
/// (kv_cache_utils.py _get_kv_cache_groups_uniform_page_size: group_size = max layers of a type
/// when that wastes under half of the smallest, else min).
constexpr void group_hybrid(spec_list& specs, std::uint32_t bs, engine_sizing& s) {
  bytes max_page{0};
  std::uint32_t min_n = ~0U;
  std::uint32_t max_n = 0;
  for (std::uint32_t i = 0; i < specs.count; ++i) {
    max_page = max(max_page, page_of(specs.at[i], bs));
    min_n = std::min(min_n, specs.at[i].layers);
    max_n = std::max(max_n, specs.at[i].layers);
  }
  const std::uint32_t group_size = 2ULL * max_n < 3ULL * min_n ? max_n : min_n;
  s.vllm.min_block_size = ~0U;
  for (std::uint32_t i = 0; i < specs.count; ++i) {
    spec& x = specs.at[i];
    const bytes page = page_of(x, bs);
    if (max_page % page != bytes{0} || (x.mamba() && page != max_page)) {
      throw kvsize::invalid_argument("kvsize: vLLM cannot unify these layers' page sizes");
    }
    x.block_size = bs * static_cast<std::uint32_t>(max_page / page);
    x.groups = static_cast<std::uint32_t>(ceil_div(x.layers, group_size));
    s.vllm.kv_cache_groups += x.groups;
    s.vllm.min_block_size = std::min(s.vllm.min_block_size, x.block_size);
  }
  s.vllm.group_size = group_size;
  s.vllm.pool_block_bytes = max_page * group_size;
}

/// 4. One cache_part per spec: what the context does not change.
constexpr void parts_of(const spec_list& specs, std::uint32_t types, engine_sizing& s) {
  for (std::uint32_t i = 0; i < specs.count; ++i) {
    const spec& x = specs.at[i];
    cache_part& p = s.add_part(kvsize::detail::part_of(x.kind, s.kv));
    p.layers = x.layers;
    p.window = x.window;
    p.block_size = x.block_size;
    p.groups = x.groups;
    p.padding_layers = types > 1 ? x.groups * s.vllm.group_size - x.layers : 0;
    p.bytes_per_token = x.mamba() ? x.per_token : x.per_token * x.layers;
  }
}

/// 5. What the context changes, from the parts (size_stage's last step, and all of with_context):
/// blocks each request reserves per group (one type: the largest; hybrid: the sum over groups),
/// the bytes it is charged, and what prefix caching shares (whole blocks, when it is on; kvsize
/// shares none for models with a state). One type is one KV cache group; hybrid models have more.
constexpr void charge(const model_spec& m, const engine_options& o, engine_sizing& s) {
  const std::uint64_t mnbt = max_num_batched_tokens(o);
  const bool prefix_caching = prefix_caching_on(m, o);
  s.vllm.state_pages = state_pages_per_request(mamba_cache_mode_of(m, o));
  const bool hybrid = s.vllm.kv_cache_groups > 1;
  bool any_mamba = false;
  s.vllm.blocks_per_sequence = 0;
  for (std::uint32_t i = 0; i < s.part_count; ++i) {
    cache_part& p = s.parts[i];
    any_mamba = any_mamba || p.group == group_kind::recurrent_state;
    p.blocks_per_sequence = blocks_per_request(p, s.context, mnbt, s.vllm.state_pages);
    s.vllm.blocks_per_sequence =
        hybrid ? s.vllm.blocks_per_sequence + p.groups * p.blocks_per_sequence : std::max(s.vllm.blocks_per_sequence, p.blocks_per_sequence);
  }
  s.kv_bytes_per_sequence = bytes{0};
  s.state_bytes_per_sequence = bytes{0};
  std::uint64_t prefix_blocks = 0;
  for (std::uint32_t i = 0; i < s.part_count; ++i) {
    const cache_part& p = s.parts[i];
    const bool mamba = p.group == group_kind::recurrent_state;
    const bytes charged = s.vllm.pool_block_bytes * (p.groups * p.blocks_per_sequence);
    if (mamba) {
      s.state_bytes_per_sequence += charged;
    } else if (hybrid || i == 0) {
      s.kv_bytes_per_sequence += hybrid ? charged : s.vllm.pool_block_bytes * s.vllm.blocks_per_sequence;
    }
    if (prefix_caching && !any_mamba && !mamba) {
      const std::uint64_t shared = o.shared_prefix / p.block_size * p.block_size;
      const std::uint64_t held = kvsize::detail::prefix_tokens_held(p.group, p.window, shared, s.context);
      const std::uint64_t blocks = held / p.block_size;
      prefix_blocks = hybrid ? prefix_blocks + p.groups * blocks : std::max(prefix_blocks, blocks);
    }
  }
  s.kv_bytes = s.kv_bytes_per_sequence * o.batch;
  s.prefix_bytes_per_sequence = s.vllm.pool_block_bytes * prefix_blocks;
  s.prefix_bytes_saved = s.prefix_bytes_per_sequence * (o.batch - 1);
}
}  // namespace detail

/// Sizes the KV cache of layers [r.first, r.first + r.count) on one TP rank as vLLM v1 does:
/// KV heads max(1, n_kv // tp) (replicated when tp > n_kv), the state in mamba_ssm_cache_dtype
/// (auto: the serving dtype), then specs, block size, groups and charges (steps 1-4 above).
[[nodiscard]] constexpr auto size_stage(const model_spec& m, const engine_options& o, kvsize::detail::stage_range r)
    -> engine_sizing {
  kvsize::detail::require_served(served_refusal(m, o));
  engine_sizing s =
      kvsize::detail::start_plain_sizing(engine_kind::vllm, m, o, r, stage_types(m, o));
  kvsize::detail::require_context(s.context, needs_context);
  detail::spec_list specs =
      detail::specs_of(kvsize::detail::engine_groups(m, o, s, head_split::replicate, mla_cache_layout::latent_k_only,
                                                     true,  // DeepseekV32IndexerCache: fp8 + scales
                                                     // MiniMaxM3IndexerCache: attention_config.indexer_kv_dtype,
                                                     // "bf16" by default (common/indexer.py @0484480b)
                                                     index_key_type::fixed, dtype::bf16),
                       o, sparse_mla_of(m, o).fp8_ds_mla);
  for (std::uint32_t i = 0; i < specs.count; ++i) {
    s.kv_bytes_per_token += specs.at[i].mamba() ? bytes{0} : specs.at[i].per_token * specs.at[i].layers;
  }
  specs.any_sparse_index = count_layers(m, layer_kind::indexed) != 0;  // one block size for every stage
  const std::uint32_t bs = detail::block_size_of(specs, o, s);
  s.block_size = bs;
  const std::uint32_t types = detail::distinct_types(specs);
  if (types == 1) {
    detail::group_uniform(specs, bs, s);
  } else if (types > 1) {
    detail::group_hybrid(specs, bs, s);
  }
  detail::parts_of(specs, types, s);
  detail::charge(m, o, s);
  return s;
}

/// The sizing `s` (size_stage's, made with options that differ from `o` in the context only) at
/// o.context: the block size, groups and pages do not depend on the context, so step 5 alone is
/// redone (charge).
[[nodiscard]] constexpr auto with_context(const model_spec& m, const engine_options& o, engine_sizing s)
    -> engine_sizing {
  s.context = kvsize::detail::context_of(m, o);
  kvsize::detail::require_context(s.context, needs_context);
  detail::charge(m, o, s);
  return s;
}

/// Blocks, the logged token count (per group: num_blocks // groups × min block size) and the
/// logged concurrency (num_blocks / blocks per request).
[[nodiscard]] constexpr auto capacity(const engine_sizing& s, const engine_options& o, bytes budget)
    -> engine_capacity {
  engine_capacity c{};
  c.kv_budget = budget;
  if (s.vllm.pool_block_bytes.count() == 0) {
    return kvsize::detail::plain_capacity(s, budget);
  }
  c.num_blocks = budget / s.vllm.pool_block_bytes;
  c.allocated = s.vllm.pool_block_bytes * c.num_blocks;
  c.max_tokens = c.num_blocks / s.vllm.kv_cache_groups * s.vllm.min_block_size;
  const std::uint64_t per_request = s.vllm.blocks_per_sequence;
  c.max_concurrency = static_cast<double>(c.num_blocks) / static_cast<double>(per_request);
  const std::uint64_t cap = max_num_seqs(o);
  c.max_sequences = std::min(c.num_blocks / per_request, cap);
  const std::uint64_t prefix_blocks = s.prefix_bytes_per_sequence / s.vllm.pool_block_bytes;
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
                                       engine_knob::max_num_seqs | engine_knob::gpu_memory_utilization |
                                       engine_knob::engine_version | engine_knob::prefix_caching |
                                       engine_knob::cuda_graphs |
                                       engine_knob::model_runner;
  /// max_model_len when none is given: the smallest key, model_max_length over it, times the rope factor; a
  /// longrope model's original length from 0.11.1 (vllm_context.hpp).
  [[nodiscard]] static constexpr auto default_context(const model_spec& m, const engine_options& o) -> std::uint64_t {
    return engines::vllm::default_max_model_len(m, o);
  }
  /// The derived length: a longrope model defaults below it (vllm_context.hpp max_model_len_limit).
  [[nodiscard]] static constexpr auto context_limit(const model_spec& m, const engine_options& o) -> std::uint64_t {
    return engines::vllm::max_model_len_limit(m, o);
  }
  [[nodiscard]] static constexpr auto serving_dtype(const config_dtype_facts& f) -> dtype {
    return engines::vllm::serving_dtype(f);
  }
  [[nodiscard]] static constexpr auto checkpoint_kv_dtype(const engine_options& o) -> std::optional<dtype> {
    return engines::vllm::checkpoint_kv_dtype(o);
  }
  [[nodiscard]] static constexpr auto stage_types(const model_spec& m, const engine_options& o)
      -> detail::stage_dtypes {
    return engines::vllm::stage_types(m, o);
  }
  [[nodiscard]] static constexpr auto checkpoint_kv_type_refusal(const engine_options& o) -> std::string_view {
    return engines::vllm::checkpoint_kv_type_refusal(o);
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
  [[nodiscard]] static constexpr auto model_refusal(const model_spec& m, const engine_options& o) -> std::string_view {
    return engines::vllm::served_refusal(m, o);
  }
  [[nodiscard]] static constexpr auto size_stage(const model_spec& m, const engine_options& o, detail::stage_range r)
      -> engine_sizing {
    return engines::vllm::size_stage(m, detail::with_default_context(o, default_context(m, o)), r);
  }
  /// gpu_memory_utilization × TOTAL memory − weights − (peak activations, non-torch memory and, from
  /// 0.20, the CUDA-graph estimate: the caller's engine_overhead, which vLLM measures by profiling;
  /// vllm/v1/worker/gpu_worker.py `determine_available_memory`). The fraction's default is the
  /// release's (0.9; 0.92 from 0.20).
  [[nodiscard]] static constexpr auto budget(const engine_options& o) -> budget_rule {
    return {.fraction = engines::vllm::gpu_memory_utilization(o), .setting = "gpu_memory_utilization"};
  }
  [[nodiscard]] static constexpr auto capacity(const engine_sizing& s, const engine_options& o, bytes budget)
      -> engine_capacity {
    return engines::vllm::capacity(s, o, budget);
  }
  /// The profile run of release release_of(o) (vllm_startup.hpp; gpu_worker.py
  /// `determine_available_memory` → gpu_model_runner.py `profile_run`), phased: the peak is the larger
  /// of the forward pass (activations of max_num_batched_tokens tokens) and the sampler warm-up (R =
  /// min(max_num_seqs, max_num_batched_tokens) rows: the logits in the model dtype, then the sampler's
  /// bytes per element, beside the forward pass's kept output); non-torch memory by tp; the rotary
  /// cache and vocabulary padding as buffers loaded with the weights. No runtime term: the 150 MiB of
  /// vLLM's suggested --kv-cache-memory is never subtracted from the budget. From 0.20 the CUDA-graph
  /// estimate (cuda_graph_memory) is one more term; where it is not known the budget is refused. On
  /// 0.22's Model Runner V2 (uses_model_runner_v2) the sampler holds a float32 copy and Gumbel scratch
  /// (v2_sampler_phase_extra) and the graph term is 0 (profile_cudagraph_memory returns 0).
  [[nodiscard]] static constexpr auto workspace(const model_spec& m, const engine_options& given) -> workspace_defaults {
    using namespace engines::vllm;
    // No context given: max_model_len's default, which the batched-token cap and MiniMax's rope rows read; so too
    // under --max-model-len auto, whose profile run precedes the fit.
    engine_options o = kvsize::detail::with_default_context(given, default_context(m, given));
    if (given.vllm.auto_fit_context) {
      if (release_of(given) < auto_fit_since_minor) {
        throw kvsize::invalid_argument("vLLM 0.13 and older take no --max-model-len auto (-1): 0.14 added the fit");
      }
      o.context = default_context(m, given);
    }
    if (const std::string_view why = release_refusal(release_of(o)); !why.empty()) {
      throw kvsize::invalid_argument(why.data());  // a string literal: null-terminated
    }
    const bool v2 = uses_model_runner_v2(m, o);
    if (const std::string_view why = forced_model_runner_v2_refusal(m, o); !why.empty()) {
      throw kvsize::invalid_argument(why.data());  // a string literal: null-terminated
    }
    if (const std::string_view why = cuda_graph_refusal(o); !v2 && !why.empty()) {
      throw kvsize::invalid_argument(why.data());  // a string literal: null-terminated
    }
    const std::uint64_t rows = sampler_rows(o);
    const dtype served = serving_dtype(dtype_facts(m, o));
    return {.positions = logits_kept::last,
            .last_rows = rows,
            .last_rows_fixed = true,
            .activation_tokens = max_num_batched_tokens(o),
            .sampler_rows = rows,
            .runtime = bytes{0},
            .sequences = o.batch,
            .activation_tp = o.tp,
            .sampler_element_bytes = v2 ? v2_sampler_element_bytes : sampler_element_bytes(release_of(o), rows),
            .sampler_extra = v2 ? v2_sampler_phase_extra(m, o, served) : sampler_phase_extra(m, o, served),
            .phased = true,
            .non_torch = non_torch_memory(o),
            .buffers = loaded_buffers(m, o, served),
            .cuda_graphs = v2 ? bytes{0} : cuda_graph_memory(o).value_or(bytes{0})};
  }
  /// The release whose rules apply ("0.19"), for the budget and the report.
  [[nodiscard]] static constexpr auto version_name(const engine_options& o) -> std::string_view {
    return engines::vllm::release_name(engines::vllm::release_of(o));
  }
  /// The model runner whose profile run gives the budget: "v2" or "v1" from 0.22 (uses_model_runner_v2:
  /// VLLM_USE_V2_MODEL_RUNNER, else vllm/config/vllm.py use_v2_model_runner's default); empty before
  /// 0.22, where V1 is the only runner.
  [[nodiscard]] static constexpr auto runner_name(const model_spec& m, const engine_options& o) -> std::string_view {
    if (!engines::vllm::chooses_model_runner(o)) {
      return {};
    }
    return engines::vllm::uses_model_runner_v2(m, o) ? "v2" : "v1";
  }
  /// Its context terms follow from the sizing's parts (engines::vllm::with_context).
  [[nodiscard]] static constexpr auto with_context(const model_spec& m, const engine_options& o,
                                                   const engine_sizing& s) -> std::optional<engine_sizing> {
    return engines::vllm::with_context(m, detail::with_default_context(o, default_context(m, o)), s);
  }
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
