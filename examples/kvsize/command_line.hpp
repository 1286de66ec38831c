// SPDX-License-Identifier: MIT
// kvsize command line: the engines' own flags (vLLM --max-model-len, llama.cpp -c / -ctk, SGLang
// --context-length, TensorRT-LLM --max_seq_len, ...) rewritten to the kvsize options they mean,
// before CLI11 parses; and the nearest known option for a typo.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}

namespace kvsize::cli {

/// One engine flag and the kvsize option it means.
struct engine_alias {
  std::string_view spelling;   ///< as the engine spells it: "--max-model-len", "-ctk"
  std::string_view canonical;  ///< the kvsize option: "--context", "--k-dtype"
  std::string_view engine;     ///< whose flag it is, for --help: "vLLM", "llama.cpp"
};

/// Flags that mean exactly what the kvsize option means. Single-dash multi-letter flags (-tp,
/// -ctk) are here because CLI11 2.1 reads "-tp" as the short flags -t -p (it has no option for
/// non-standard names), so they are rewritten before it parses. Long flags are also accepted with
/// underscores (TensorRT-LLM's trtllm-serve spells --max_seq_len; vLLM's parser takes both).
inline constexpr std::array<engine_alias, 32> engine_aliases{{
    {"--max-model-len", "--context", "vLLM"},
    {"--context-length", "--context", "SGLang"},
    {"-c", "--context", "llama.cpp"},
    {"--ctx-size", "--context", "llama.cpp"},
    {"--max-seq-len", "--context", "TensorRT-LLM"},
    {"--max-batch-size", "--batch", "TensorRT-LLM"},
    {"--kv-cache-dtype", "--kv-dtype", "vLLM/SGLang"},
    {"-ctk", "--k-dtype", "llama.cpp"},
    {"--cache-type-k", "--k-dtype", "llama.cpp"},
    {"-ctv", "--v-dtype", "llama.cpp"},
    {"--cache-type-v", "--v-dtype", "llama.cpp"},
    {"-tp", "--tp", "vLLM"},
    {"--tensor-parallel-size", "--tp", "vLLM/SGLang"},
    {"--tp-size", "--tp", "SGLang/TensorRT-LLM"},
    {"-pp", "--pp", "vLLM"},
    {"--pipeline-parallel-size", "--pp", "vLLM/SGLang"},
    {"--pp-size", "--pp", "SGLang/TensorRT-LLM"},
    {"--page-size", "--block-size", "SGLang"},
    {"--dp-size", "--dp", "SGLang"},
    {"-np", "--parallel", "llama.cpp"},
    {"-ub", "--ubatch", "llama.cpp"},
    {"--ubatch-size", "--ubatch", "llama.cpp"},
    {"-kvu", "--kv-unified", "llama.cpp"},
    {"--max-num-tokens", "--prefill-chunk", "TensorRT-LLM"},
    {"-fa", "--flash-attn", "llama.cpp"},
    {"-ngl", "--n-gpu-layers", "llama.cpp"},
    {"--gpu-layers", "--n-gpu-layers", "llama.cpp"},
    {"-ncmoe", "--n-cpu-moe", "llama.cpp"},
    {"-cmoe", "--cpu-moe", "llama.cpp"},
    {"-nkvo", "--no-kv-offload", "llama.cpp"},
    {"-ot", "--override-tensor", "llama.cpp"},
    {"-ts", "--tensor-split", "llama.cpp"},
}};

/// The command line as CLI11 gets it, and how the user spelled each option.
struct command_line {
  std::vector<std::string> args;  ///< argv[1..], engine flags rewritten to kvsize options
  /// The kvsize option → the spelling the user typed for it ("--context" → "--max-model-len").
  std::map<std::string, std::string, std::less<>> given_as;
  /// A rewritten argument → the argument as typed ("--max-seq-len=8" → "--max_seq_len=8").
  std::map<std::string, std::string, std::less<>> typed;

  /// `argument` as the user typed it.
  [[nodiscard]] auto typed_spelling(const std::string& argument) const -> std::string;
  /// A CLI11 message with every rewritten option named as the user typed it.
  [[nodiscard]] auto name_as_typed(std::string message) const -> std::string;
};

/// Rewrites argv[1..argc) for `app`: engine flags become the options they mean; `-fa` (with an
/// optional on|off|auto value, as llama.cpp takes it) becomes --flash-attn=VALUE. Throws
/// usage_error when one option that takes a value is given twice, under any spellings.
auto rewrite_command_line(int argc, const char* const* argv, const CLI::App& app) -> command_line;

/// The value of vLLM's --max-model-len or --max-num-batched-tokens (`flag`, as typed) as vLLM's parser reads it
/// (vllm/engine/arg_utils.py human_readable_int): "32k" → "32000" (k, m, g, t: powers of 1,000, decimals allowed,
/// the product truncated), "32K" → "32768" (K, M, G, T: powers of 1,024; a decimal is a usage_error, as in vLLM);
/// any other text as is, for the option's own check.
auto vllm_human_readable_int(std::string_view flag, std::string_view value) -> std::string;

/// `text` in lower case (ASCII), for names compared without case: engines, -fa values.
auto lowercase(std::string_view text) -> std::string;

/// llama.cpp's flash-attention setting: "on", "off" or "auto" for what -fa takes (llama-server:
/// on|off|auto; llama-bench: 1|0; also true|false, enabled|disabled), in any case; none otherwise.
auto flash_attn_setting(std::string_view text) -> std::optional<std::string_view>;

/// Damerau-Levenshtein distance (optimal string alignment): insertions, deletions, substitutions
/// and swaps of two neighbours each cost 1.
auto edit_distance(std::string_view a, std::string_view b) -> std::size_t;

/// The name in `names` nearest to `typed`, if it is close enough to be what was meant: at most 2
/// edits (3 for names of 12 characters or more).
auto nearest_name(std::string_view typed, const std::vector<std::string>& names) -> std::optional<std::string>;

}  // namespace kvsize::cli
