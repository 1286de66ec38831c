// SPDX-License-Identifier: MIT
// The command line that starts an engine with the options kvsize sized: `vllm serve`,
// `python -m sglang.launch_server`, `llama-server`, `trtllm-serve`. Opt-in: needs fmt (target
// kvsize::fmt). Each engine's flags are its own CLI's, named where they are defined:
//   vLLM          vllm/engine/arg_utils.py EngineArgs (--max-model-len, --max-num-seqs, ...)
//   SGLang        python/sglang/srt/server_args.py ServerArgs (--context-length, --mem-fraction-static, ...)
//   llama.cpp     common/arg.cpp (-c, -np, -ngl, -ctk, -ctv, -kvu, -ub)
//   TensorRT-LLM  tensorrt_llm/commands/serve.py (--max_seq_len, --max_batch_size, --tp_size, ...)
// exact and transformers have no server command: the result is empty.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <fmt/format.h>

#include <algorithm>    // std::all_of
#include <cstdint>      // std::uint64_t
#include <string>       // std::string
#include <string_view>  // std::string_view

#include "engine.hpp"

namespace kvsize {

/// A budget rule's fraction as the engine shows it: SGLang's rounded ones with 3 decimals (0.683), the others in
/// full, shortest round-trip (0.9, 0.85, a vision model's 0.7486296874999999).
[[nodiscard]] inline auto fraction_text(const budget_rule& r) -> std::string {
  return r.decimals != 0 ? fmt::format("{:.{}f}", r.fraction, int{r.decimals}) : fmt::format("{}", r.fraction);
}

/// The environment variable without which engine `e` refuses to start at `o.context`, above its context limit
/// `limit` for the model (model_context_limit; 0: none): vLLM's VLLM_ALLOW_LONG_MAX_MODEL_LEN
/// (vllm/config/model.py _get_and_verify_max_len), SGLang's SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN
/// (python/sglang/srt/configs/model_config.py _derive_context_length; 0.4.4 – 0.5.0rc2 default it to true and only
/// warn), TensorRT-LLM's TLLM_ALLOW_LONG_MAX_MODEL_LEN (tensorrt_llm/_torch/pyexecutor/model_engine.py
/// _init_max_seq_len, newest releases: without it the length is lowered to the limit); "" where the context is within
/// the limit or the engine starts anyway.
[[nodiscard]] constexpr auto context_override_variable(engine_kind e, const engine_options& o, std::uint64_t limit)
    -> std::string_view {
  if (limit == 0 || o.context <= limit) {
    return "";
  }
  if (e == engine_kind::vllm) {
    return "VLLM_ALLOW_LONG_MAX_MODEL_LEN";
  }
  if (e == engine_kind::sglang && engines::sglang::refuses_longer_context(engines::sglang::version_of(o))) {
    return "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN";
  }
  if (e == engine_kind::trtllm) {
    return "TLLM_ALLOW_LONG_MAX_MODEL_LEN";  // without it, max_seq_len is lowered to the limit (a warning)
  }
  return "";
}

namespace detail {

/// "VAR=1 " for context_override_variable, "" where none is needed.
[[nodiscard]] inline auto context_override_prefix(engine_kind e, const engine_options& o, std::uint64_t limit)
    -> std::string {
  const std::string_view variable = context_override_variable(e, o, limit);
  return variable.empty() ? std::string{} : fmt::format("{}=1 ", variable);
}

/// " --flag value" when `on`; "" otherwise.
template <class T>
[[nodiscard]] inline auto flag_if(bool on, std::string_view flag, const T& value) -> std::string {
  return on ? fmt::format(" {} {}", flag, value) : std::string{};
}

/// vLLM's --kv-cache-dtype for the K type (it has one type for K and V): auto, fp8, fp8_e5m2; a 16-bit cache is
/// "auto" unless the release would take the checkpoint's FP8 there (engines::vllm::checkpoint_kv_dtype), where it
/// is named (vllm/config/cache.py CacheDType: "bfloat16"; "float16" from 0.18: a type vLLM cannot name there, float32
/// or float16 before 0.18, is refused first, engines::vllm::checkpoint_kv_type_refusal).
[[nodiscard]] inline auto vllm_cache_dtype(const engine_options& o) -> std::string_view {
  if (o.vllm.kv_cache_auto) {
    return "auto";  // the types are what auto resolved to: a checkpoint's FP8 stays the checkpoint's (fp8_e4m3)
  }
  if (!o.kv || o.kv->k == dtype::bf16 || o.kv->k == dtype::f16 || o.kv->k == dtype::f32) {
    const bool named = o.kv && engines::vllm::checkpoint_kv_dtype(o).has_value();
    return !named ? "auto" : o.kv->k == dtype::bf16 ? "bfloat16" : "float16";
  }
  return o.kv->k == dtype::fp8_e5m2 ? "fp8_e5m2" : "fp8";
}

/// The names a command line needs beyond the options: the model (a Hugging Face id, a path, or a
/// placeholder such as "<model>") and vLLM's --reasoning-parser, printed when
/// `o.vllm.reasoning_parser` is set ("<reasoning-parser>" when empty).
struct command_names {
  std::string_view model;
  std::string_view reasoning_parser{};
  std::uint64_t context_limit = 0;  ///< the engine's context limit for the model (model_context_limit); 0: none
};



template <engine E>
[[nodiscard]] inline auto command_of(E /*engine*/, const engine_options& /*o*/, const budget_rule& /*rule*/,
                                     const command_names& /*names*/)
    -> std::string {
  return {};
}

/// `word` as one shell word: as is when it holds only letters, digits and `_.-/:+`, else in single
/// quotes (a quote inside as '\''), so that a printed command line runs as typed.
[[nodiscard]] inline auto shell_word(std::string_view word) -> std::string {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view{"_.-/:+"}.find(c) != std::string_view::npos;
  });
  if (plain) {
    return std::string{word};
  }
  std::string quoted = "'";
  for (const char c : word) {
    quoted += c == '\'' ? std::string{"'\\''"} : std::string(1, c);
  }
  return quoted + "'";
}

/// "VLLM_USE_V2_MODEL_RUNNER=1 " or "=0 " where the runner is forced on a release that reads the
/// variable (0.22+, vllm/envs.py); "" where vLLM's own default choice applies.
[[nodiscard]] inline auto vllm_runner_prefix(const engine_options& o) -> std::string_view {
  if (!engines::vllm::chooses_model_runner(o) || o.vllm.model_runner == vllm_model_runner::automatic) {
    return "";
  }
  return o.vllm.model_runner == vllm_model_runner::v2 ? "VLLM_USE_V2_MODEL_RUNNER=1 " : "VLLM_USE_V2_MODEL_RUNNER=0 ";
}

/// `o.batch` users of `o.context` tokens: --max-num-seqs caps the running requests at the users.
[[nodiscard]] inline auto command_of(vllm_engine /*engine*/, const engine_options& o, const budget_rule& rule,
                                     const command_names& names)
    -> std::string {
  const std::string_view kv = vllm_cache_dtype(o);
  const vllm_prefix_caching pc = o.vllm.prefix_caching;
  // --reasoning-parser only where it decided the runner (0.22+); a placeholder for a caller without the name.
  const bool parser_flag = o.vllm.reasoning_parser && engines::vllm::chooses_model_runner(o);
  const std::string parser =
      names.reasoning_parser.empty() ? std::string{"<reasoning-parser>"} : shell_word(names.reasoning_parser);
  return fmt::format("{}{}vllm serve {} --max-model-len {} --max-num-seqs {} --gpu-memory-utilization {}{}{}{}{}{}{}{}",
                     context_override_prefix(engine_kind::vllm, o, names.context_limit), vllm_runner_prefix(o),
                     names.model, o.context, o.batch, fraction_text(rule),
                     flag_if(o.tp > 1, "--tensor-parallel-size", o.tp),
                     flag_if(o.pp > 1, "--pipeline-parallel-size", o.pp), flag_if(kv != "auto", "--kv-cache-dtype", kv),
                     flag_if(o.block_size != 0, "--block-size", o.block_size),
                     pc == vllm_prefix_caching::enabled    ? " --enable-prefix-caching"
                     : pc == vllm_prefix_caching::disabled ? " --no-enable-prefix-caching"
                                                           : "",
                     o.vllm.enforce_eager ? " --enforce-eager" : "",
                     flag_if(parser_flag, "--reasoning-parser", parser));
}

/// --mem-fraction-static as SGLang's rule gives it for this device (3 decimals, or in full: shown_decimals).
[[nodiscard]] inline auto command_of(sglang_engine /*engine*/, const engine_options& o, const budget_rule& rule,
                                     const command_names& names)
    -> std::string {
  const bool fp8 = o.kv && is_fp8(o.kv->k);
  // A bf16 cache where the release would take the checkpoint's FP8 at auto: "bf16" (server_args.py, PR #11749).
  // Or a bf16 cache of a DSA model where SGLang's default is fp8_e4m3 (compute capability 10+; sglang_dsa.hpp).
  const bool bf16_over_checkpoint =
      o.kv && o.kv->k == dtype::bf16 &&
      (engines::sglang::checkpoint_kv_dtype(o).has_value() || (o.sglang.sparse_index && engines::sglang::dsa_sm100(o)));
  // Under DP attention (dp ranks of tp / dp GPUs, asked for or set by the release for a DSA model) each rank runs
  // o.batch requests of its own, and SGLang divides --max-running-requests by dp (engines/sglang_dp.hpp): the
  // command names all of them, and asks for DP attention where the release does not set it.
  const std::uint32_t dp = engines::sglang::attention_dp(o, o.sglang.sparse_index);
  const bool asked = dp > 1 && !(o.sglang.sparse_index && engines::sglang::dsa_forces_dp_attention(o));
  return fmt::format(
      "{}python -m sglang.launch_server --model-path {} --context-length {} --max-running-requests {} "
      "--mem-fraction-static {}{}{}{}{}{}{}{}",
      context_override_prefix(engine_kind::sglang, o, names.context_limit), names.model, o.context,
      detail::checked_mul(o.batch, dp), fraction_text(rule),
      flag_if(o.tp > 1, "--tp-size", o.tp),
      asked ? fmt::format(" --dp {} --enable-dp-attention{}", dp, o.sglang.dp_lm_head ? " --enable-dp-lm-head" : "")
            : "",
      !asked && dp > 1 && o.sglang.dp_lm_head ? " --enable-dp-lm-head" : "",
      o.sglang.moe_dense_fully_dp ? " --moe-dense-tp-size 1" : "",
      flag_if(o.pp > 1, "--pp-size", o.pp),
      flag_if(fp8 || bf16_over_checkpoint, "--kv-cache-dtype",
              bf16_over_checkpoint ? "bf16" : o.kv && o.kv->k == dtype::fp8_e5m2 ? "fp8_e5m2" : "fp8_e4m3"),
      // A DSA model's page size is SGLang's own (64 over --page-size; sglang_dsa.hpp).
      flag_if(o.block_size > 1 && !o.sglang.sparse_index, "--page-size", o.block_size));
}

/// -c is shared by the -np slots; every layer on the GPU (-ngl 999); a quantized V cache needs -fa on;
/// -ts the shares of the tp × pp devices when given (llama.cpp's default splits by free memory).
/// A GGUF file, not a Hugging Face id: `model` stands for it.
[[nodiscard]] inline auto command_of(llama_cpp_engine /*engine*/, const engine_options& o, const budget_rule& /*rule*/,
                                     const command_names& names)
    -> std::string {
  const llama_cpp_knobs& k = o.llama_cpp;
  std::string types;
  if (o.kv && (o.kv->k != dtype::f16 || o.kv->v != dtype::f16)) {
    types = fmt::format(" -ctk {} -ctv {}", name(o.kv->k), name(o.kv->v));
    if (traits(o.kv->v).block_elements > 1) {
      types += " -fa on";
    }
  }
  std::string split;
  const std::uint64_t devices = std::uint64_t{o.tp} * o.pp;
  for (std::uint64_t d = 0; d < devices && d < k.split.shares.size(); ++d) {
    split += fmt::format("{}{}", d == 0 ? " -ts " : ",", k.split.shares[d]);
  }
  const bool even = std::all_of(k.split.shares.begin(), k.split.shares.end(), [](float x) { return x == 0.0F; });
  return fmt::format("llama-server -m {}.gguf -c {} -np {} -ngl 999{}{}{}{}{}", names.model, o.context, k.parallel, types,
                     k.kv_unified ? " -kvu" : "", k.swa_full ? " --swa-full" : "",
                     flag_if(k.ubatch != llama_cpp_knobs{}.ubatch, "-ub", k.ubatch), even ? "" : split);
}

[[nodiscard]] inline auto command_of(trtllm_engine /*engine*/, const engine_options& o, const budget_rule& rule,
                                     const command_names& names)
    -> std::string {
  return fmt::format("{}trtllm-serve {} --max_seq_len {} --max_batch_size {} --kv_cache_free_gpu_memory_fraction {}{}{}",
                     context_override_prefix(engine_kind::trtllm, o, names.context_limit), names.model, o.context,
                     o.batch, fraction_text(rule),
                     flag_if(o.tp > 1, "--tp_size", o.tp), flag_if(o.pp > 1, "--pp_size", o.pp));
}

}  // namespace detail

/// The command that starts engine `e` with options `o` as its plan_options makes them for a number
/// of users (vLLM, SGLang, TRT-LLM: o.batch users of o.context tokens; llama.cpp: -np slots sharing
/// -c), tp, pp, KV types and knobs, for model `model` (a Hugging Face id or a path); "" for engines
/// without a server command (exact, transformers). The fraction flag is `rule`'s: the rule the fit
/// applied (plan_point::rule, device_fit::budget.rule), which knows the model (SGLang's default
/// fraction depends on MLA and DSA) where `o` alone may not. llama.cpp has no fraction flag: any
/// rule does (budget_rule{}). vLLM 0.22+: a runner forced by `o.vllm.model_runner` is set by
/// VLLM_USE_V2_MODEL_RUNNER before the command; `o.vllm.reasoning_parser` adds --reasoning-parser
/// `reasoning_parser` (a placeholder when empty), which is what sends 0.22 to V1. `context_limit`, the engine's
/// limit for the model (model_context_limit; 0: none): a context above it is prefixed with the variable without
/// which vLLM or SGLang refuses to start, or TensorRT-LLM lowers it (detail::context_override_prefix).
[[nodiscard]] inline auto engine_command_line(engine_kind e, const engine_options& o, const budget_rule& rule,
                                              std::string_view model, std::string_view reasoning_parser = {},
                                              std::uint64_t context_limit = 0) -> std::string {
  const detail::command_names names{.model = model, .reasoning_parser = reasoning_parser, .context_limit = context_limit};
  return visit_engine(e, [&]<engine E>(E x) { return detail::command_of(x, o, rule, names); });
}

}  // namespace kvsize
