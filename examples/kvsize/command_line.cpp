// SPDX-License-Identifier: MIT
// kvsize command line: engine flags rewritten to kvsize options, and typo suggestions.
#include "command_line.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <numeric>

#include "options.hpp"

namespace kvsize::cli {
namespace {

auto alias_of(std::string_view spelling) -> const engine_alias* {
  const auto it = std::find_if(engine_aliases.begin(), engine_aliases.end(),
                               [&](const engine_alias& a) { return a.spelling == spelling; });
  return it == engine_aliases.end() ? nullptr : &*it;
}

/// "--max_seq_len" → "--max-seq-len" (long names only: vLLM's FlexibleArgumentParser does the same).
auto dashed(std::string_view name) -> std::string {
  std::string out(name);
  if (out.starts_with("--")) {
    std::replace(out.begin() + 2, out.end(), '_', '-');
  }
  return out;
}

/// Whether `spelling` (dashed) is one of vLLM's flags whose value its parser reads as a human-readable integer:
/// --max-model-len and --max-num-batched-tokens (vllm/engine/arg_utils.py, `human_readable_int` from 0.10,
/// `human_readable_int_or_auto` for --max-model-len from 0.14).
auto reads_human_readable_int(std::string_view spelling) -> bool {
  return spelling == "--max-model-len" || spelling == "--max-num-batched-tokens";
}

/// vLLM's own flags take its forms ("32k" is 32,000, "32K" 32,768); --max-model-len auto or -1 (0.14+, fit
/// max_model_len to memory: human_readable_int_or_auto) becomes the flag --context-auto.
void read_vllm_number(int argc, const char* const* argv, int& i, const std::string& typed_name, std::string& name,
                      std::optional<std::string>& value) {
  if (!value && i + 1 < argc) {
    value = argv[++i];  // the value as the next argument
  }
  if (!value) {
    return;
  }
  value = vllm_human_readable_int(typed_name, *value);
  if (name == "--context" && (*value == "-1" || lowercase(*value) == "auto")) {
    name = "--context-auto";
    value.reset();
  }
}

/// An option's name for messages: the hidden flags a value turns into (--context-auto, --context-model) are --context.
auto shown_name(const std::string& name) -> std::string {
  return name == "--context-auto" || name == "--context-model" ? std::string{"--context"} : name;
}

/// llama.cpp's -c / --ctx-size: 0 is "loaded from model" (common/arg.cpp), the flag --context-model; the value may
/// be the next argument.
void read_llama_context(int argc, const char* const* argv, int& i, std::string& name, std::optional<std::string>& value) {
  // llama.cpp's std::stoi reads "00" as 0 too.
  const auto zero = [](std::string_view t) { return !t.empty() && t.find_first_not_of('0') == std::string_view::npos; };
  if (!value && i + 1 < argc && zero(argv[i + 1])) {
    value = argv[++i];
  }
  if (value && zero(*value)) {
    name = "--context-model";
    value.reset();
  }
}

}  // namespace

auto vllm_human_readable_int(std::string_view flag, std::string_view value) -> std::string {
  // human_readable_int: value.strip(), then fullmatch (\d+(?:\.\d+)?)([kKmMgGtT]); anything else is left to int().
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front())) != 0) {
    value.remove_prefix(1);
  }
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back())) != 0) {
    value.remove_suffix(1);
  }
  if (value.size() < 2) {
    return std::string{value};
  }
  const char suffix = value.back();
  const std::string_view number = value.substr(0, value.size() - 1);
  const std::size_t dot = number.find('.');
  const std::string_view whole = number.substr(0, dot);
  const std::string_view fraction = dot == std::string_view::npos ? std::string_view{} : number.substr(dot + 1);
  const auto all_digits = [](std::string_view t) {
    return !t.empty() && t.find_first_not_of("0123456789") == std::string_view::npos;
  };
  const std::string_view decimal = "kmgt";
  const std::string_view binary = "KMGT";
  const bool suffixed = decimal.find(suffix) != std::string_view::npos || binary.find(suffix) != std::string_view::npos;
  if (!suffixed || !all_digits(whole) || (dot != std::string_view::npos && !all_digits(fraction)) || whole.size() > 15) {
    return std::string{value};  // not vLLM's form: the option's own check names what is wrong
  }
  if (const std::size_t power = binary.find(suffix); power != std::string_view::npos) {
    if (dot != std::string_view::npos) {
      throw usage_error{fmt::format("{}: '{}': vLLM allows no decimals with a binary suffix such as {} (did you mean "
                                    "{}{}?)",
                                    flag, value, suffix, number, static_cast<char>(decimal[power]))};
    }
    const unsigned shift = 10U * static_cast<unsigned>(power + 1);  // 1K = 2^10 ... 1T = 2^40
    const std::uint64_t n = std::stoull(std::string{whole});         // at most 15 digits
    if (n > (UINT64_MAX >> shift)) {
      throw usage_error{fmt::format("{}: '{}' is more than 2^64", flag, value)};
    }
    return fmt::format("{}", n << shift);
  }
  // int(float(number) * 10^(3(p+1))): the same IEEE double product Python forms, truncated toward zero
  // ("25.6k" → 25,600; "1.001k" → 1,000).
  const double scale = std::pow(10.0, 3.0 * static_cast<double>(decimal.find(suffix) + 1));
  const double product = std::strtod(std::string{number}.c_str(), nullptr) * scale;
  if (!(product < 18446744073709551616.0)) {  // 2^64
    throw usage_error{fmt::format("{}: '{}' is more than 2^64", flag, value)};
  }
  return fmt::format("{}", static_cast<std::uint64_t>(product));
}

auto lowercase(std::string_view text) -> std::string {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); });
  return lower;
}

auto flash_attn_setting(std::string_view text) -> std::optional<std::string_view> {
  struct spelling {
    std::string_view text;
    std::string_view setting;
  };
  static constexpr spelling spellings[] = {
      {"on", "on"},     {"1", "on"},     {"true", "on"},      {"enabled", "on"},   {"enable", "on"},  {"auto", "auto"},
      {"off", "off"},   {"0", "off"},    {"false", "off"},    {"disabled", "off"}, {"disable", "off"},
  };
  const std::string lower = lowercase(text);
  for (const auto& sp : spellings) {
    if (sp.text == lower) {
      return sp.setting;
    }
  }
  return std::nullopt;
}

auto command_line::typed_spelling(const std::string& argument) const -> std::string {
  const auto it = typed.find(argument);
  return it != typed.end() ? it->second : argument;
}

auto command_line::name_as_typed(std::string message) const -> std::string {
  const auto name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_'; };
  for (const auto& [canonical, spelling] : given_as) {
    if (canonical == spelling) {
      continue;
    }
    std::size_t at = message.find(canonical);
    while (at != std::string::npos) {
      const std::size_t end = at + canonical.size();
      // Whole names only: "--tp" must not match inside "--tp-size".
      if (end == message.size() || !name_char(message[end])) {
        message.replace(at, canonical.size(), spelling);
        at = message.find(canonical, at + spelling.size());
      } else {
        at = message.find(canonical, end);
      }
    }
  }
  return message;
}

auto rewrite_command_line(int argc, const char* const* argv, const CLI::App& app) -> command_line {
  command_line line;
  const auto takes_value = [&](const std::string& name) {
    const CLI::Option* opt = app.get_option_no_throw(name);
    return opt != nullptr && opt->get_type_size() > 0;
  };
  const auto known = [&](const std::string& name) { return app.get_option_no_throw(name) != nullptr; };
  const auto emit = [&](std::string argument, const std::string& as_typed) {
    if (argument != as_typed) {
      line.typed.emplace(argument, as_typed);
    }
    line.args.push_back(std::move(argument));
  };
  std::map<std::string, std::string, std::less<>> first_spelling;  // value options seen: canonical → typed
  bool options_ended = false;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    const bool option_like = argument.size() > 1 && argument.front() == '-' && argument != "--";
    if (options_ended || !option_like) {
      options_ended = options_ended || argument == "--";
      line.args.push_back(argument);
      continue;
    }
    const std::size_t equals = argument.find('=');
    const std::string typed_name = argument.substr(0, equals);
    std::optional<std::string> value;
    if (equals != std::string::npos) {
      value = argument.substr(equals + 1);
    }
    std::string name = dashed(typed_name);
    std::string display = typed_name;  // how messages name the option
    if (const engine_alias* a = alias_of(name)) {
      name = std::string{a->canonical};
    } else if (!known(name)) {
      if (typed_name.size() > 2 && typed_name[1] == 'c' &&
          typed_name.find_first_not_of("0123456789", 2) == std::string::npos && !value) {
        // llama.cpp's -c8192: the short flag with its value attached.
        name = "--context";
        display = "-c";
        value = typed_name.substr(2);
      } else {
        line.args.push_back(argument);  // unknown: left to the extras check, which names it as typed
        continue;
      }
    }
    if (reads_human_readable_int(dashed(typed_name))) {
      read_vllm_number(argc, argv, i, typed_name, name, value);
    }
    if (name == "--context" && (display == "-c" || dashed(typed_name) == "--ctx-size")) {
      read_llama_context(argc, argv, i, name, value);
    }
    if (name == "--flash-attn" && !value) {
      // -fa alone means on (older llama.cpp: a plain flag); -fa on|off|auto takes the value.
      if (i + 1 < argc && flash_attn_setting(argv[i + 1])) {
        value = argv[++i];
      } else {
        value = "on";
      }
    }
    if (takes_value(name) && name != "--override-tensor") {  // -ot adds patterns each time, as in llama.cpp
      if (const auto seen = first_spelling.find(name); seen != first_spelling.end()) {
        throw usage_error{seen->second == display
                              ? fmt::format("{} is given twice; pass it once", display)
                              : fmt::format("{} and {} are the same option{}; pass one of them", seen->second,
                                            display,
                                            seen->second == name || display == name ? "" : " (" + shown_name(name) + ")")};
      }
      first_spelling.emplace(name, display);
    }
    line.given_as[name] = display;
    if (value) {
      emit(name + "=" + *value, argument);
    } else {
      emit(name, typed_name);
    }
  }
  return line;
}

auto edit_distance(std::string_view a, std::string_view b) -> std::size_t {
  // d[i][j]: edits turning a[0, i) into b[0, j); three rows suffice for the swap case.
  std::vector<std::size_t> before(b.size() + 1);
  std::vector<std::size_t> previous(b.size() + 1);
  std::vector<std::size_t> current(b.size() + 1);
  std::iota(previous.begin(), previous.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

auto nearest_name(std::string_view typed, const std::vector<std::string>& names) -> std::optional<std::string> {
  const std::string wanted = dashed(typed);
  std::optional<std::string> best;
  std::size_t best_distance = wanted.size() >= 12 ? 3 : 2;
  for (const auto& n : names) {
    const std::size_t d = edit_distance(wanted, n);
    if (d <= best_distance && (!best || d < best_distance)) {
      best = n;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace kvsize::cli
