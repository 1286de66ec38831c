// SPDX-License-Identifier: MIT
// kvsize command line: from options and config.json to figures (the exact engine).
#include "sizing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>

#include <kvsize/fmt.hpp>

namespace kvsize::cli {
namespace {

auto dtype_list() -> std::string {
  std::string list;
  for (dtype t : all_dtypes) {
    list += fmt::format("{}{}", list.empty() ? "" : ", ", name(t));
  }
  return list + ", auto";
}

/// An element-type option: a name from the contract, or "auto" for the model's own dtype.
auto dtype_option(std::string_view flag, const std::string& text, dtype model_dtype) -> dtype {
  if (text == "auto") {
    return model_dtype;
  }
  if (const auto t = parse_dtype(text)) {
    return *t;
  }
  throw usage_error{fmt::format("{}: unknown element type '{}' (expected one of {})", flag, text, dtype_list())};
}

auto size_option(std::string_view flag, const std::string& text) -> bytes {
  if (const auto b = parse_size(text)) {
    return *b;
  }
  throw usage_error{fmt::format("{}: '{}' is not a size (expected a number with a unit: B, KiB, MiB, GiB, TiB, "
                                "kB, MB, GB, TB, e.g. 24GiB or 12.49GB)",
                                flag, text)};
}

// Families whose weights dense_decoder_parameters() counts exactly (Llama / Mistral / Qwen2
// blocks: RMSNorm, rotary positions, gated MLP, no other tensors). Other families are issue #5.
constexpr std::array<std::string_view, 3> dense_families{"llama", "mistral", "qwen2"};

}  // namespace

auto compute_sizing(const options& opts, std::vector<std::string>& stderr_warnings) -> sizing {
  if (opts.engine != "exact") {
    const std::array<std::string_view, 5> later{"vllm", "sglang", "llama.cpp", "trtllm", "transformers"};
    if (std::find(later.begin(), later.end(), opts.engine) != later.end()) {
      throw usage_error{fmt::format("--engine {}: this engine profile is not implemented yet; use --engine exact",
                                    opts.engine)};
    }
    throw usage_error{fmt::format(
        "--engine: unknown engine '{}' (expected exact, vllm, sglang, llama.cpp, trtllm or transformers)",
        opts.engine)};
  }
  if (opts.tp != 1 || opts.pp != 1) {
    throw usage_error{"--tp/--pp: tensor and pipeline parallelism are not implemented yet; use 1"};
  }
  if (opts.batch == 0) {
    throw usage_error{"--batch: expected a positive number of sequences, got 0"};
  }
  if (opts.context && *opts.context == 0) {
    throw usage_error{"--context: expected a positive number of tokens, got 0"};
  }
  if (opts.gpu_memory && opts.gpu) {
    throw usage_error{"--gpu and --gpu-memory both give the device's memory; pass one of them"};
  }

  sizing s;
  s.config = hf::load_config(opts.config_path);
  s.config_path = opts.config_path;
  s.engine = opts.engine;
  const model_spec& m = s.config.spec;
  const dtype model_dtype = m.compute_dtype;

  // Element types: --k-dtype / --v-dtype override --kv-dtype, which overrides the model's dtype.
  const dtype kv_all = opts.kv_dtype ? dtype_option("--kv-dtype", *opts.kv_dtype, model_dtype) : model_dtype;
  s.kv.k = opts.k_dtype ? dtype_option("--k-dtype", *opts.k_dtype, model_dtype) : kv_all;
  s.kv.v = opts.v_dtype ? dtype_option("--v-dtype", *opts.v_dtype, model_dtype) : kv_all;
  s.state_dtype = model_dtype;
  const auto check_rows = [&](dtype t, std::string_view which) {
    // A quantized cache stores whole blocks: every row must be a multiple of the block.
    try {
      (void)kv_bytes_per_token(m, kv_dtypes::same(t));
    } catch (const std::invalid_argument&) {
      throw usage_error{fmt::format("{}: {} stores blocks of {} elements, which do not divide this model's "
                                    "K/V rows (head_dim {}, {} KV heads)",
                                    which, name(t), traits(t).block_elements, effective_head_dim(m),
                                    effective_kv_heads(m))};
    }
  };
  check_rows(s.kv.k, "--k-dtype");
  check_rows(s.kv.v, "--v-dtype");

  // Context: 4,096 by default, capped at the model's maximum; a larger explicit value is honoured.
  s.context = opts.context.value_or(4'096);
  if (!opts.context && m.max_context != 0 && m.max_context < s.context) {
    s.context = m.max_context;
  }
  if (opts.context && m.max_context != 0 && *opts.context > m.max_context) {
    stderr_warnings.push_back(fmt::format("--context {} exceeds the model's maximum of {} tokens; sizing it anyway",
                                          *opts.context, m.max_context));
  }
  s.batch = opts.batch;

  s.kv_per_token = kv_bytes_per_token(m, s.kv);
  s.kv_per_token_mha = kv_bytes_per_token_mha(m, s.kv);
  s.gqa_ratio = gqa_ratio(m);
  s.kv_per_sequence = kv_bytes_per_sequence(m, s.context, s.kv);
  s.kv_total = s.kv_per_sequence * s.batch;
  s.state_per_sequence = state_bytes_per_sequence(m, s.state_dtype);
  s.logits_per_token = logits_bytes_per_token(m);
  s.logits_prefill = logits_bytes_prefill(m, s.context);

  // Weights.
  const bool dense = std::find(dense_families.begin(), dense_families.end(), s.config.model_type) !=
                     dense_families.end();
  if (dense) {
    s.parameters = dense_decoder_parameters(m);
  } else {
    s.notes.push_back(fmt::format("parameter count: model_type '{}' is not yet counted (only {}); weights unknown",
                                  s.config.model_type.empty() ? "?" : s.config.model_type, "llama, mistral, qwen2"));
  }
  if (opts.weights_dtype) {
    s.weights_dtype = dtype_option("--weights-dtype", *opts.weights_dtype, model_dtype);
  } else if (!s.config.quantization_method) {
    s.weights_dtype = model_dtype;
  } else {
    s.notes.push_back(fmt::format("weights: quantized checkpoint ({}); pass --weights-dtype to size its weights",
                                  *s.config.quantization_method));
  }
  if (s.parameters && s.weights_dtype) {
    s.weights = weights_bytes(*s.parameters, *s.weights_dtype);
  }

  // Capacity.
  if (opts.gpu || opts.gpu_memory || opts.kv_memory) {
    capacity_figures c;
    if (opts.kv_memory) {
      c.kv_budget = size_option("--kv-memory", *opts.kv_memory);
      c.source = fmt::format("--kv-memory {}", *opts.kv_memory);
    } else {
      if (opts.gpu) {
        const auto g = find_gpu(*opts.gpu);
        if (!g) {
          std::string ids;
          for (const auto& entry : gpu_catalog) {
            ids += fmt::format("{}{}", ids.empty() ? "" : ", ", entry.id);
          }
          throw usage_error{fmt::format("--gpu: unknown GPU '{}' (known: {}; or give --gpu-memory SIZE)", *opts.gpu, ids)};
        }
        c.device_memory = g->memory;
        c.source = fmt::format("{} (--gpu {})", g->name, g->id);
      } else {
        c.device_memory = size_option("--gpu-memory", *opts.gpu_memory);
        c.source = fmt::format("--gpu-memory {}", *opts.gpu_memory);
      }
      if (!s.weights) {
        throw usage_error{fmt::format("{}: the weights of this model cannot be sized yet, so the memory left for "
                                      "the KV cache is unknown; give --kv-memory SIZE instead",
                                      opts.gpu ? "--gpu" : "--gpu-memory")};
      }
      c.weights_fit = weights_fit(*c.device_memory, *s.weights);
      c.kv_budget = kv_budget(*c.device_memory, *s.weights);
    }
    const cache_format format{s.kv, s.state_dtype};
    c.max_tokens = max_tokens(m, c.kv_budget, s.kv);
    c.max_sequences = max_sequences(m, c.kv_budget, s.context, format);
    const bytes per_sequence = cache_bytes_per_sequence(m, s.context, format);
    c.max_concurrency = per_sequence.count() == 0
                            ? 0.0
                            : static_cast<double>(c.kv_budget.count()) / static_cast<double>(per_sequence.count());
    const std::uint64_t limit = std::max<std::uint64_t>(m.max_context, s.context);
    c.max_context = max_context(m, c.kv_budget, s.batch, format, limit);
    s.capacity = c;
  }
  return s;
}

}  // namespace kvsize::cli
