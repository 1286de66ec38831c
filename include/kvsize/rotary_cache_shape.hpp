// SPDX-License-Identifier: MIT
// kvsize::rotary_cache_shape: the rotary cos/sin table an engine builds for the rotating layers, as the config's
// rope keys shape it: its rows (positions) and width (rotated dims a head). No weight: a device buffer loaded with
// the weights (engines/vllm_startup.hpp loaded_buffers). Plain data like model_spec, usable as a template argument.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint32_t, std::uint64_t

namespace kvsize {

/// vLLM's rotary cache for the full-attention layers (layers/rotary_embedding/__init__.py get_rope: one table per
/// parameter set, max positions × rotary dim, cos and sin halves side by side), where the config sets it apart from
/// max_position_embeddings × head_dim in the model dtype. The defaults describe a plain (or llama3-scaled) rope.
struct rotary_cache_shape {
  /// Rows where the rope scaling decides them; 0: max_position_embeddings (model_spec::max_context). The classes'
  /// _compute_cos_sin_cache (torch.arange(n) holds ⌈n⌉ rows): linear ⌈max × factor⌉, dynamic with a factor
  /// ⌈max × factor⌉ (positions_dynamic), yarn and deepseek_yarn ⌈original_max_position_embeddings × factor⌉,
  /// longrope original + max (Phi3LongRoPEScaledRotaryEmbedding's short and long caches, concatenated).
  std::uint64_t positions = 0;
  /// The rotated dims a head (rotary_dim, or int(head_dim × partial_rotary_factor)); 0: the whole head dim (and,
  /// for a latent model, qk_rope_head_dim).
  std::uint32_t rotary_dim = 0;
  /// `positions` is DynamicNTKScalingRotaryEmbedding's max × factor, which vLLM 0.22 makes max again.
  bool positions_dynamic = false;
  /// Multimodal rope (mrope_section): MRotaryEmbedding caches 4 × its rows ("we enlarge max_position_embeddings to 4
  /// times", layers/rotary_embedding/mrope.py), every release from 0.10.
  bool multimodal = false;
  bool float32 = false;  ///< the model class asks for a float32 table (gpt_oss.py GptOssAttention: dtype=torch.float32)
  bool none = false;     ///< no rotary embedding at all (NoPE: Nemotron-H, Jamba; position_embedding_type "nope")
  /// Rows min(rows, max_model_len): MiniMaxText01ForCausalLM.__init__ (models/minimax_text_01.py) writes
  /// max_model_len over the config's max_position_embeddings before its layers build the rope.
  bool rows_max_model_len = false;
  /// With weights_shape::sliding_rope_apart, the sliding layers' table width where it differs from the full
  /// layers' (Step-3.5's partial_rotary_factors, one fraction a layer: models/step3p5.py Step3p5Attention); 0: as
  /// rotary_dim.
  std::uint32_t sliding_rotary_dim = 0;
  /// DeepSeek sparse attention's indexer builds a table of its own (models/deepseek_v2.py, indexer_rope_emb from
  /// vLLM 0.12): is_neox_style true where the MLA's is false, so get_rope caches it apart; none where
  /// indexer_rope_interleave makes the two alike (GLM-5).
  bool indexer_table = false;
  /// DeepseekScalingRotaryEmbedding (rope type yarn on DeepSeek's MLA, which deepseek_v2.py renames
  /// deepseek_yarn): from vLLM 0.14 its table stays float32 where the rotary custom op runs on CUDA (use_flashinfer:
  /// custom ops "all", which --enforce-eager sets; deepseek_scaling_rope.py).
  bool deepseek_scaling = false;

  friend constexpr auto operator==(const rotary_cache_shape&, const rotary_cache_shape&) -> bool = default;
};

}  // namespace kvsize
