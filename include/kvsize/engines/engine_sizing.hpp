// SPDX-License-Identifier: MIT
// What an engine allocates and what fits: cache_part (one pool, cache or group kind), engine_sizing
// (one device's KV cache) and engine_capacity (what a KV budget holds).
// Standard library only, constexpr and allocation-free: a fixed-capacity array of parts.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>    // std::array
#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint32_t, std::uint64_t

#include "../bytes.hpp"
#include "../dtype.hpp"
#include "../error.hpp"
#include "../layer_groups.hpp"  // group_kind
#include "engine_options.hpp"

namespace kvsize {

/// Most distinct pools / caches / layer groups a sizing describes.
inline constexpr std::size_t max_cache_parts = 8;

/// One pool, cache or group kind as the engine allocates it (per device).
struct cache_part {
  std::uint32_t layers = 0;            ///< real layers in this part (on this device)
  std::uint32_t window = 0;            ///< W or C of sliding / chunked parts
  std::uint32_t block_size = 0;        ///< tokens per block (vLLM after page unification; TRT tokens per block)
  std::uint32_t groups = 0;            ///< vLLM: KV cache groups of this kind
  std::uint32_t padding_layers = 0;    ///< vLLM: empty layer slots in those groups
  std::uint64_t blocks_per_sequence = 0;  ///< vLLM/TRT: blocks one sequence takes, per group
  std::uint64_t cells = 0;    ///< llama.cpp: cells per stream; SGLang: 0 until capacity is known
  std::uint32_t streams = 1;  ///< llama.cpp: streams (1 if unified); recurrent: sequences
  bytes bytes_per_token{0};   ///< K+V bytes one token costs across the part's layers (state: per sequence)
  /// SGLang: the bytes a token costs in the cell its token count divides the budget by, where the release counts
  /// other than it allocates (DeepSeek sparse attention before 0.5.17, sglang_dsa.hpp); 0: bytes_per_token.
  bytes counted_per_token{0};
  bytes k_bytes{0};           ///< K (or R for a state) of the whole part, all streams
  bytes v_bytes{0};           ///< V (or S for a state) of the whole part, all streams
  bytes k_per_token{0};       ///< K bytes one token costs across the part's layers (R per cell for a state)
  bytes v_per_token{0};       ///< V bytes one token costs across the part's layers (S per cell for a state)
  kv_dtypes types{dtype::f16, dtype::f16};
  group_kind group = group_kind::full;  ///< what the part holds: full, sliding, chunked, latent or a state
};

/// vLLM's block pool on one device (its KVCacheConfig: groups of layer slots sharing block tables).
struct vllm_pool {
  std::uint32_t kv_cache_groups = 0;      ///< groups drawing from the block pool
  std::uint32_t group_size = 0;           ///< layer slots per group
  bytes pool_block_bytes{0};              ///< bytes of one pool block (all layer slots of a group)
  std::uint64_t blocks_per_sequence = 0;  ///< pool blocks one request of `context` tokens reserves
  std::uint32_t min_block_size = 0;       ///< smallest block size over the groups
  std::uint32_t mamba_block_size = 0;     ///< attention block size forced by the mamba page (0: none)
  double mamba_padding_percent = 0;       ///< how much the mamba page was padded
  std::uint32_t state_pages = 1;          ///< pages a request holds per Mamba group (mamba_cache_mode none 1, align 2)
  friend constexpr auto operator==(const vllm_pool&, const vllm_pool&) -> bool = default;
};

/// llama.cpp's cells: -c shared by -np slots (streams unless unified).
struct llama_cpp_cells {
  std::uint64_t n_ctx_seq = 0;  ///< cells per sequence
  std::uint32_t n_seq = 1;      ///< sequences (slots)
  friend constexpr auto operator==(const llama_cpp_cells&, const llama_cpp_cells&) -> bool = default;
};

/// What one engine allocates for the KV cache of one model on ONE device (one TP rank, the
/// largest PP stage): what every engine fills, then the facts of one engine's own allocator.
struct engine_sizing {
  engine_kind engine = engine_kind::exact;
  kv_dtypes kv{dtype::f16, dtype::f16};
  state_dtypes state{};            ///< conv and SSM state element types (recurrent layers)
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

  vllm_pool vllm{};            ///< vLLM only
  llama_cpp_cells llama_cpp{};  ///< llama.cpp only

  std::array<cache_part, max_cache_parts> parts{};
  std::uint32_t part_count = 0;

  [[nodiscard]] constexpr auto part(std::uint32_t i) const -> const cache_part& { return parts[i]; }
  /// Tokens one sequence can hold: a slot's cells where the engine shares its context over slots
  /// (llama.cpp's n_ctx_seq), else the context sized.
  [[nodiscard]] constexpr auto tokens_per_sequence() const -> std::uint64_t {
    return llama_cpp.n_ctx_seq != 0 ? llama_cpp.n_ctx_seq : context;
  }
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

}  // namespace kvsize
