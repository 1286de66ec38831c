// SPDX-License-Identifier: MIT
// Which engine, and its knobs: engine_kind, engine_options (what every engine reads) and one knob
// struct per engine (vllm_knobs, sglang_knobs, llama_cpp_knobs, trtllm_knobs, transformers_knobs).
// Standard library only, constexpr.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>   // std::uint8_t, std::uint32_t, std::uint64_t
#include <optional>  // std::optional

#include "../bytes.hpp"
#include "../checkpoint_kv.hpp"  // checkpoint_kv_cache
#include "../dtype.hpp"
#include "../layer_groups.hpp"  // mla_cache_layout
#include "llama_cpp_tensor_split.hpp"  // tensor_split
#include "sglang_aiter.hpp"            // hip_attention_class
#include "sglang_graph_class.hpp"      // prefill_graph_class
#include "sglang_release.hpp"          // fraction_rule
#include "sglang_vlm.hpp"              // vlm_tower

namespace kvsize {

/// A serving engine whose KV cache kvsize reproduces. `exact` is the mathematical minimum.
enum class engine_kind : std::uint8_t { exact, vllm, sglang, llama_cpp, trtllm, transformers };

/// vLLM's --enable-prefix-caching / --no-enable-prefix-caching, or neither (engines/vllm_prefix_caching.hpp).
enum class vllm_prefix_caching : std::uint8_t {
  automatic,  ///< vLLM's default: on, but off for models with recurrent layers
  enabled,    ///< --enable-prefix-caching (a hybrid model's Mamba cache mode follows from it)
  disabled,   ///< --no-enable-prefix-caching: a shared prefix is stored once per request
};

/// Which model runner vLLM 0.22+ uses (VLLM_USE_V2_MODEL_RUNNER; vllm/config/vllm.py
/// VllmConfig.use_v2_model_runner).
enum class vllm_model_runner : std::uint8_t {
  automatic,  ///< the environment variable unset: 0.22's rule (engines/vllm_runner_v2.hpp uses_model_runner_v2)
  v1,         ///< VLLM_USE_V2_MODEL_RUNNER=0
  v2,         ///< VLLM_USE_V2_MODEL_RUNNER=1
};

/// vLLM (v1) knobs: its engine arguments of the same names (vllm/engine/arg_utils.py EngineArgs).
struct vllm_knobs {
  std::uint64_t max_num_batched_tokens = 0;  ///< 0 → the API server's default (8192; 2048 on devices under 70 GiB and A100s)
  std::uint32_t max_num_seqs = 0;            ///< 0 → 1024 on ≥ 70 GiB devices but A100s, else 256
  double gpu_memory_utilization = 0;         ///< fraction of TOTAL device memory; 0 → the release's default
                                             ///< (0.9; 0.92 from 0.20: vllm_startup.hpp gpu_memory_utilization)
  /// DeepSeek sparse attention's fp8 latent in DeepSeek's 656-byte fp8_ds_mla layout (true) or a plain 576-byte
  /// fp8 row (false), as an explicit --attention-backend FLASHMLA_SPARSE / FLASHINFER_MLA_SPARSE gives it; none:
  /// vLLM's own choice by release, architecture and device (vllm_sparse_mla.hpp sparse_mla_choice_of).
  std::optional<bool> fp8_ds_mla{};
  /// `kv` holds what `--kv-cache-dtype auto` resolved to (the command passes its resolved types), not a type the
  /// user named: a ModelOpt checkpoint's FP8 cache reaches vLLM's backends as "fp8_e4m3" there, a typed one as "fp8".
  bool kv_cache_auto = false;
  /// The checkpoint's `architectures` holds DeepseekV32ForCausalLM, whose config hook gives an fp8 cache the
  /// fp8_ds_mla layout in 0.11 – 0.17 (the command sets it from config.json).
  bool deepseek_v32_checkpoint = false;
  /// The checkpoint's `architectures` names a text-only Gemma 3n / Gemma 4 class (Gemma3nForCausalLM,
  /// Gemma4ForCausalLM), which allocates no per_layer_embeddings buffer at load (gemma3n.py: only under
  /// kv_sharing_fast_prefill; gemma4.py: none); the multimodal classes every published E checkpoint names do
  /// (vllm_startup.hpp loaded_buffers). The command sets it from config.json.
  bool text_only_class = false;
  /// The device's CUDA compute capability × 10 (90: Hopper, 100: B200 / GB200); 0: not known. vLLM's attention
  /// backend priorities read it (the command sets it from the GPU catalog).
  std::uint32_t compute_capability = 0;
  bool disable_hybrid_kv_cache_manager = false;
  vllm_prefix_caching prefix_caching = vllm_prefix_caching::automatic;
  bool a100 = false;                 ///< the device is an A100 (vLLM gives it the small-device defaults)
  std::uint32_t release_minor = 0;   ///< the release 0.X whose start-up rules apply; 0 → 0.19 (vllm_startup.hpp)
  bool enforce_eager = false;        ///< --enforce-eager: no CUDA graphs, so 0.20+ measures no graph estimate
  bool rocm = false;                 ///< the device is an AMD GPU (HIP): 0.20+ measures no graph estimate there
  /// The "Estimated CUDA graph memory: X GiB total" of a start-up log, which 0.20 – 0.22 (V1) subtract
  /// from the budget (none: not known, and they are refused unless enforce_eager or rocm makes it 0).
  std::optional<bytes> cuda_graph_estimate{};
  vllm_model_runner model_runner = vllm_model_runner::automatic;  ///< 0.22+: V1 or Model Runner V2
  /// The checkpoint is one that 0.22 runs on Model Runner V2 by default, as far as config.json says:
  /// `architectures` holds Qwen3ForCausalLM and there is no `quantization_config`
  /// (VllmConfig._is_default_v2_model_runner_model; the expert count is the spec's). The command
  /// sets it from the config; a library caller sets it for such a checkpoint.
  bool v2_default_checkpoint = false;
  /// --reasoning-parser (or --reasoning-config) given: any reasoning config sends 0.22 to V1.
  bool reasoning_parser = false;
  /// --max-model-len auto (or -1; 0.14+): vLLM profiles at the max_model_len it derives from the config
  /// (vllm_context.hpp default_max_model_len) and only then fits max_model_len to the KV budget
  /// (vllm/v1/core/kv_cache_utils.py _auto_fit_max_model_len, after gpu_worker.py determine_available_memory):
  /// the workspace is sized at the derived length, the cache at `context`, the fitted one.
  bool auto_fit_context = false;
};

/// SGLang knobs: its server arguments of the same names (python/sglang/srt/server_args.py ServerArgs).
struct sglang_knobs {
  double mem_fraction_static = 0;          ///< 0 → SGLang's auto rule from device memory
  bool swa_pool = false;                   ///< hybrid SWA pool (disabled for Gemma 2/3, old gpt-oss)
  double swa_full_tokens_ratio = 0.8;      ///< SWA pool tokens / full pool tokens
  double mamba_full_memory_ratio = 0.9;    ///< state memory : KV memory
  std::uint64_t max_running_requests = 0;  ///< 0 → SGLang's rule
  /// --engine-version: the releases whose default mem_fraction_static rule applies (sglang_release.hpp).
  engines::sglang::fraction_rule release = engines::sglang::default_rule;
  /// The release itself, where a fact changes inside a rule's releases (DeepSeek sparse attention's pool,
  /// sglang_dsa.hpp); none: the newest release of `release` (last_release_of). The command sets both.
  std::optional<engines::sglang::release> version{};
  /// The device's CUDA compute capability × 10 (90: Hopper, 100: B200 / GB200); 0: not known (Hopper's rules are
  /// taken). SGLang's defaults for DeepSeek sparse attention read its major (server_args.py).
  std::uint32_t compute_capability = 0;
  /// The device is an AMD GPU (HIP; the aiter factor, sglang_aiter.hpp). Its fp8 is gfx94x's e4m3fnuz (MI300X /
  /// MI325X) unless `gfx950`: the MI355X's is float8_e4m3fn, which DeepSeek sparse attention's pool lays out as on
  /// CUDA where no HIP backend keeps the plain row (sglang_dsa.hpp).
  bool rocm = false;
  bool gfx950 = false;
  /// nvidia-smi's memory.total of the device, the figure the default rule reads (server_args.py
  /// get_nvgpu_memory_capacity), above CUDA's total; 0 → device_memory.
  bytes reported_memory{0};
  /// The model caches MLA latents (model_spec::latent.kv_lora_rank != 0), and with DSA's indexer
  /// (latent.index_head_dim != 0): the prefill CUDA-graph reserve of 0.5.10+ depends on them.
  /// fit_on_device sets both from the spec (engines::sglang::with_model_facts).
  bool latent_cache = false;
  bool sparse_index = false;
  /// The config's num_key_value_heads (MLA: the config's, not the latent's one) and SGLang's context_len where no
  /// context is given (sglang_context.hpp default_context_length): the aiter factor on an AMD GPU reads them
  /// (engines/sglang_aiter.hpp). with_model_facts sets both.
  std::uint32_t kv_heads = 0;
  std::uint64_t model_context = 0;
  /// The model class as SGLang's default attention backend on HIP sees it (hip_attention_class_of(architectures[0]));
  /// the command sets it, a library caller too (a gpt-oss, Olmo 2 or MiniMax-M3-Sparse model is otherwise taken as
  /// aiter's: a budget up to 15 % low on an AMD GPU).
  engines::sglang::hip_attention_class hip_attention = engines::sglang::hip_attention_class::generic;
  /// The model class as 0.5.10+'s prefill CUDA graphs see it (multimodal, allowlisted, blocked): the command sets it
  /// from config.json's architectures (prefill_graph_class_of); the default fraction's reserve follows it.
  engines::sglang::prefill_graph_class graph_class = engines::sglang::prefill_graph_class::text;
  /// A multimodal model and its vision tower as adjust_mem_fraction_for_vlm reads them: the default fraction's
  /// vision factor, and before 0.4.9 the runner's (engines/sglang_vlm.hpp). A caller sizing a vision model sets it,
  /// or gets no factor (a budget up to a quarter high), as the command does: vlm_tower_of(c.architecture,
  /// !c.text_config_pointer.empty(), c.vision_config_given, c.vision_num_hidden_layers.value,
  /// c.vision_hidden_size.value) for an hf::parsed_config c.
  engines::sglang::vlm_tower vlm{};
  /// --enable-dp-attention (with --dp N > 1): tp / N GPUs a data-parallel attention rank, which runs attention for
  /// its own requests with its own pool (layers/dp_attention.py compute_dp_attention_world_info), so the figures
  /// are one rank's (engines/sglang_dp.hpp); the default fraction reserves for it, also where that leaves one rank
  /// (tp 1, or attention_tp = tp), as SGLang's memory settings read the flag before they turn it off.
  bool dp_attention = false;
  /// --enable-dp-attention as given, at any dp: SGLang's memory settings reserve for it before, from 0.5.2, it
  /// turns DP attention off at dp 1 (server_args.py _handle_data_parallelism), so the default fraction reads this.
  /// Releases before 0.5.2 refuse the flag at dp 1, and before 0.4.4.post1 set dp = tp: the command refuses those
  /// (check_sglang_dp_release), the library does not check.
  bool dp_attention_flag = false;
  /// The GPUs one DP-attention rank runs attention over, attn_tp_size = tp / dp, from the --dp given; 0: none given
  /// (dp = tp under dp_attention). The planner keeps it as it tries other tp, so more GPUs make more ranks.
  std::uint32_t attention_tp = 0;
  /// --enable-dp-lm-head: the LM head over the attention-TP group (ParallelLMHead use_attn_tp_group), not over tp;
  /// SGLang asserts DP attention with it (server_args.py _handle_data_parallelism).
  bool dp_lm_head = false;
  /// --moe-dense-tp-size 1: a MoE model's dense MLP layers whole on every GPU (layers/communicator.py
  /// enable_moe_dense_fully_dp; the command keeps them whole in the weights per device).
  bool moe_dense_fully_dp = false;
};

/// llama.cpp knobs: llama-server's flags (common/arg.cpp) and one build-dependent constant.
struct llama_cpp_knobs {
  std::uint32_t parallel = 1;   ///< -np: sequences (slots)
  std::uint32_t ubatch = 512;   ///< -ub (the effective n_ubatch = min(-ub, -b, n_ctx))
  bool kv_unified = false;      ///< -kvu: one buffer shared by all slots
  bool swa_full = false;        ///< --swa-full: full-size sliding-window cache
  std::uint32_t ctx_pad = 256;  ///< n_ctx padding (256 since late 2025; 1 for older builds)
  bool flash_attn = true;       ///< -fa: on (and auto, which enables it where the device supports it) or off
  mla_cache_layout mla_layout = mla_cache_layout::latent_k_only;
  /// -ts: the shares of the layer-split devices (tp × pp of them); all 0, the default, splits as
  /// llama.cpp does by free memory, equal on like devices.
  engines::llama_cpp::tensor_split split{};
};

/// TensorRT-LLM knobs: KvCacheConfig's field of the same name.
struct trtllm_knobs {
  double free_gpu_memory_fraction = 0.9;  ///< fraction of FREE memory after the profiling run
};

/// transformers knobs: generate()'s / the forward pass's.
struct transformers_knobs {
  std::uint64_t logits_to_keep = 0;  ///< positions whose logits are kept; 0 → every position
  bool logits_float32 = false;       ///< the model upcasts logits to float32
};

/// What every engine reads (the request, the parallel split, the cache types, the device), and one
/// struct of knobs per engine, read by that engine only. A 0 means "the engine's default".
struct engine_options {
  std::uint64_t context = 4'096;  ///< tokens per sequence (vLLM max_model_len, llama.cpp -c; 0 → model max)
  std::uint64_t batch = 1;        ///< sequences held at once (llama.cpp uses `llama_cpp.parallel`)
  std::optional<kv_dtypes> kv{};  ///< K and V element types; none → the engine's default (checkpoint_kv_dtype for a
                                  ///< checkpoint that declares its cache, else default_kv_dtypes)
  std::uint32_t tp = 1;           ///< tensor-parallel degree
  std::uint32_t pp = 1;           ///< pipeline-parallel degree
  std::uint32_t block_size = 0;   ///< vLLM block / SGLang page / TRT-LLM tokens per block; 0 → default
  bytes device_memory{0};         ///< total memory of one device, when known (memory-dependent defaults)
  bytes engine_overhead{0};       ///< memory outside the KV budget (activations, graphs) for engine_kv_budget
  std::uint64_t shared_prefix = 0;     ///< S: a prompt prefix shared by all `batch` sequences
  std::optional<dtype> state_dtype{};  ///< recurrent-state dtype; none → the engine's default
  bool dtype_given = false;  ///< the spec's compute_dtype is the user's --dtype (not auto): served as is
                             ///< by vLLM, SGLang and TensorRT-LLM, whose auto rules would change float32
  /// The KV cache the checkpoint declares (hf::parsed_config::checkpoint_kv): vLLM, SGLang and TensorRT-LLM take
  /// it where `kv` is none (each engine's checkpoint_kv_dtype), and vLLM 0.15 – 0.21 even over `kv`.
  checkpoint_kv_cache checkpoint_kv = checkpoint_kv_cache::none;
  /// The checkpoint's `architectures` holds GlmMoeDsaForCausalLM (GLM-5), which vLLM registers from 0.16 and SGLang
  /// from 0.5.9 (the command sets it from config.json).
  bool glm_moe_dsa_checkpoint = false;

  vllm_knobs vllm{};
  sglang_knobs sglang{};
  llama_cpp_knobs llama_cpp{};
  trtllm_knobs trtllm{};
  transformers_knobs transformers{};
};

}  // namespace kvsize
