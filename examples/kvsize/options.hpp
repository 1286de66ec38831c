// SPDX-License-Identifier: MIT
// kvsize command line: the options of docs/cli-contract.md, as parsed, before any meaning is given.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kvsize::cli {

/// A bad command line or option value: exit code 2, one message on stderr.
struct usage_error {
  std::string message;
};

struct options {
  std::string config_path;
  std::optional<std::uint64_t> context;
  /// vLLM's --max-model-len auto (or -1), rewritten to --context-auto: vLLM 0.14+ fits max_model_len to the KV
  /// budget.
  bool context_auto = false;
  /// llama.cpp's -c 0 (or --ctx-size 0), rewritten to --context-model: the model's own context (n_ctx_train), the
  /// engine's default context.
  bool context_model = false;
  /// The second pass of --max-model-len auto: the length fitted in the first (sizing.cpp auto_fit_pass).
  std::optional<std::uint64_t> fitted_context;
  std::uint64_t batch = 1;
  std::optional<std::string> kv_dtype;
  std::optional<std::string> k_dtype;
  std::optional<std::string> v_dtype;
  std::optional<std::string> weights_dtype;
  std::optional<std::string> gpu;
  std::optional<std::string> gpu_memory;
  std::optional<std::string> kv_memory;
  std::optional<std::string> bandwidth;  ///< --bandwidth RATE, e.g. "3.35TB/s"
  std::string engine = "exact";
  std::uint32_t tp = 1;
  std::uint32_t pp = 1;
  std::optional<std::uint32_t> block_size;
  std::optional<std::uint64_t> max_num_batched_tokens;
  std::optional<double> gpu_memory_utilization;
  std::optional<double> mem_fraction_static;
  std::optional<std::uint32_t> parallel;
  std::optional<std::uint32_t> ubatch;
  std::optional<std::uint64_t> shared_prefix;
  std::optional<std::uint32_t> max_num_seqs;             ///< vLLM --max-num-seqs: scheduler cap on sequences
  std::optional<std::uint64_t> max_running_requests;     ///< SGLang --max-running-requests
  std::optional<std::uint32_t> dp;                       ///< SGLang --dp / --dp-size: data-parallel ranks
  bool enable_dp_attention = false;                      ///< SGLang --enable-dp-attention (--dp dividing --tp)
  bool enable_dp_lm_head = false;                        ///< SGLang --enable-dp-lm-head (with DP attention)
  std::optional<std::uint32_t> moe_dense_tp_size;        ///< SGLang --moe-dense-tp-size (1 only, as SGLang)
  std::optional<double> free_gpu_memory_fraction;        ///< TensorRT-LLM kv_cache_free_gpu_memory_fraction
  std::optional<std::string> model_dtype;                ///< --dtype: the dtype the model runs in (vLLM, SGLang)
  std::optional<std::string> flash_attn;                 ///< llama.cpp -fa on|off|auto
  std::optional<std::string> gpu_layers;                 ///< llama.cpp -ngl N|auto|all
  std::optional<std::uint32_t> n_cpu_moe;                ///< llama.cpp --n-cpu-moe N: blocks 0..N-1's experts on the host
  bool cpu_moe = false;                                  ///< llama.cpp --cpu-moe: every block's experts on the host
  bool no_kv_offload = false;                            ///< llama.cpp -nkvo: the KV cache in host memory
  std::vector<std::string> override_tensor;              ///< llama.cpp -ot "<pattern>=CPU,...", each as given
  std::optional<std::string> tensor_split;               ///< llama.cpp -ts: shares of the GPUs, "3,1" or "3/1"
  std::optional<std::string> engine_version;             ///< --engine-version V: the release whose rules apply (vLLM, SGLang)
  bool enable_prefix_caching = false;     ///< vLLM --enable-prefix-caching (a hybrid's Mamba cache mode)
  bool no_enable_prefix_caching = false;  ///< vLLM --no-enable-prefix-caching
  bool enforce_eager = false;             ///< vLLM --enforce-eager: no CUDA graphs
  std::optional<std::string> cuda_graph_memory;  ///< --cuda-graph-memory SIZE: a start-up log's graph estimate (vLLM 0.20 – 0.22)
  std::optional<std::string> model_runner;       ///< --model-runner auto|v1|v2: vLLM 0.22's VLLM_USE_V2_MODEL_RUNNER
  std::optional<std::string> reasoning_parser;   ///< --reasoning-parser NAME: vLLM's flag (0.22: Model Runner V1)
  bool kv_unified = false;
  bool swa_full = false;
  bool list_gpus = false;
  bool version = false;
  bool json = false;
  bool explain = false;

  // The planner: workspace terms (each overrides the engine's default), sweeps and charts.
  std::optional<std::string> reserve;      ///< --reserve SIZE: runtime / context overhead
  std::optional<std::string> logits;       ///< --logits all|last|none
  bool logits_f32 = false;                 ///< --logits-f32
  std::optional<std::string> activations;  ///< --activations SIZE
  std::optional<std::uint64_t> prefill_chunk;  ///< --prefill-chunk N: tokens of one forward pass
  std::optional<std::string> sampler;      ///< --sampler SIZE
  std::optional<std::string> sweep_context;  ///< --sweep-context A:B
  std::optional<std::string> sweep_batch;    ///< --sweep-batch A:B
  bool csv = false;
  std::optional<std::string> svg;          ///< --svg FILE

  /// The spelling the user typed for each option given under another name: "--tp" → "-tp" after
  /// `-tp 2`, "--context" → "--max-model-len". Filled by main.cpp; messages name options through flag().
  std::map<std::string, std::string, std::less<>> given_as;

  /// The option as the user spelled it ("--tp", or the alias given in its place).
  [[nodiscard]] auto flag(std::string_view canonical) const -> std::string {
    const auto it = given_as.find(canonical);
    return it != given_as.end() ? it->second : std::string{canonical};
  }
};

}  // namespace kvsize::cli
