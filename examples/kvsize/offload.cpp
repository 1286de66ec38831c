// SPDX-License-Identifier: MIT
// llama.cpp's partial offload for the command line: a GGUF's weights by layer slot, the flags
// -ngl / --n-cpu-moe / --cpu-moe / -ot / -nkvo, and the device, into the split the report prints
// (engines/llama_cpp_offload.hpp has the rules and their sources).
#include <algorithm>
#include <charconv>
#include <limits>
#include <regex>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <kvsize/gguf/gguf_overrides.hpp>

#include "sizing.hpp"
#include "text.hpp"

namespace kvsize::cli {

namespace {

/// The llama.cpp options the split is sized at: the request's, with --batch users as -np slots of
/// --context cells each when -np is not given (as the plan and its verdict size them).
auto split_options(const options& opts, const sizing& s) -> engine_options {
  if (opts.parallel || s.batch <= 1) {
    return s.engine_opts;
  }
  return llama_cpp_engine::plan_options(s.engine_opts, s.context, s.batch);
}

/// A GGUF's (or Ollama model's) tensor table by slot.
auto table_slots(const hf::checkpoint_weights& w) -> engines::llama_cpp::slot_weights {
  return {w.block_bytes,         w.block_expert_bytes, bytes{w.output_slot_bytes},
          bytes{w.token_embedding_bytes}, w.tied_output,   bytes{w.other_input_bytes}};
}

/// A view of `by_layer`'s slots for a model of `layers` blocks.
auto layer_slots(const layer_weight_bytes& by_layer, std::uint32_t layers) -> engines::llama_cpp::slot_weights {
  return {std::span<const std::uint64_t>{by_layer.block.data(), layers},
          std::span<const std::uint64_t>{by_layer.experts.data(), layers},
          bytes{by_layer.output},
          bytes{by_layer.token_embedding},
          by_layer.tied,
          bytes{by_layer.other_input}};
}

/// The formula's bytes per slot in the weights format sized, into `by_layer` (which the view points
/// into), and a note saying where they come from.
auto formula_slots(sizing& s, layer_weight_bytes& by_layer) -> engines::llama_cpp::slot_weights {
  const model_spec& m = s.config.spec;
  by_layer = weights_by_layer(m, *s.formula_format);
  s.notes.push_back(fmt::format("offload: the weights of each layer are the formula's in {} (config.json has no "
                                "tensor table; a GGUF file gives them to the byte)",
                                s.weights_format.value_or("?")));
  return layer_slots(by_layer, m.layers);
}

/// One -ot entry, "<pattern>=CPU", and the tensors whose names it matches.
struct tensor_override {
  std::string text;  ///< as given
  std::regex pattern;
  std::uint64_t matched = 0;
};

/// The longest -ot pattern kvsize takes: a GGUF tensor name has at most 63 characters (GGML_MAX_NAME),
/// so no useful pattern is longer, and a bound keeps the regex compiler's recursion shallow.
constexpr std::size_t max_override_pattern = 1024;
/// The most -ot patterns kvsize compiles, over every -ot: one pattern of 1,024 characters can compile to
/// libstdc++'s limit of 100,000 states (about 4 MB; `(a{999}){90}`), so the count bounds the memory.
constexpr std::size_t max_override_patterns = 64;

/// The -ot entries as common/arg.cpp `parse_tensor_buffer_overrides` reads them: each value split on
/// ',' (common/common.h `string_split<std::string>`: every piece, a trailing empty one too), each piece
/// "<pattern>=<buffer type>" at its first '='; the pattern an ECMAScript std::regex, as llama.cpp
/// compiles it. Only the host's buffer type ("CPU") is planned: a GPU's (CUDA0, Vulkan1, ...) would pin
/// tensors to one device. A control character is refused: the pattern is printed back in the run-it line.
auto parse_overrides(const options& opts) -> std::vector<tensor_override> {
  const std::string flag = opts.flag("--override-tensor");
  // libstdc++'s polynomial mode (its breadth-first matcher) keeps a pattern such as (.*)*x from
  // backtracking for ever; it refuses back-references, which a tensor name needs none of.
  constexpr auto syntax = std::regex::ECMAScript
#if defined(__GLIBCXX__)
                          | std::regex_constants::__polynomial
#endif
      ;
  std::vector<tensor_override> out;
  for (const std::string& value : opts.override_tensor) {
    if (has_control_character(value)) {
      throw usage_error{fmt::format("{}: a value with a control character (a newline, a tab) is not a pattern", flag)};
    }
    for (std::size_t at = 0;;) {
      const std::size_t end = std::min(value.find(',', at), value.size());
      const std::string piece = value.substr(at, end - at);
      if (out.size() == max_override_patterns) {
        throw usage_error{fmt::format("{}: more than {} patterns (kvsize compiles at most {})", flag,
                                      max_override_patterns, max_override_patterns)};
      }
      const std::size_t eq = piece.find('=');
      if (eq == std::string::npos) {
        throw usage_error{fmt::format("{} '{}': '{}' is not <tensor name pattern>=<buffer type> (as in exps=CPU)",
                                      flag, value, piece)};
      }
      const std::string buffer = piece.substr(eq + 1);
      if (buffer != "CPU") {
        throw usage_error{fmt::format("{} '{}': kvsize plans tensors kept in host memory (=CPU) only; '{}' is "
                                      "another buffer type (a GPU's pins tensors to one device), which it does not place",
                                      flag, piece, buffer)};
      }
      if (eq > max_override_pattern) {
        throw usage_error{fmt::format("{} '{}…': a pattern of {} characters (at most {})", flag, piece.substr(0, 40),
                                      eq, max_override_pattern)};
      }
      try {
        out.push_back({piece, std::regex(piece.substr(0, eq), syntax), 0});
      } catch (const std::regex_error& e) {
        throw usage_error{fmt::format("{} '{}': '{}' is not a regular expression std::regex takes: {}", flag, piece,
                                      piece.substr(0, eq), e.what())};
      }
      if (end == value.size()) {
        break;
      }
      at = end + 1;
    }
  }
  return out;
}

/// The overrides' bytes by slot (into `kept`, which `slots` then views), and what the report says of them.
void apply_overrides(const options& opts, std::vector<tensor_override>& overrides, const hf::checkpoint_weights& table,
                     engines::llama_cpp::slot_weights& slots, gguf::host_overrides& kept, offload_figures& f,
                     std::vector<std::string>& notes) {
  kept = gguf::host_overrides_of(table.named, table.block_bytes, table.tied_output, [&](std::string_view name) {
    bool any = false;
    for (tensor_override& o : overrides) {  // each pattern's count: a pattern that matches nothing is named
      if (std::regex_search(name.begin(), name.end(), o.pattern)) {
        ++o.matched;
        any = true;
      }
    }
    return any;
  });
  slots.block_override = kept.block;
  slots.block_override_experts = kept.block_experts;
  slots.output_override = bytes{kept.output};
  slots.tied_copy_override = kept.tied_copy;
  f.override_tensor = opts.override_tensor;
  f.overridden_tensors = kept.tensors;
  f.overridden_bytes = bytes{gguf::kept_bytes(kept)};
  for (const tensor_override& o : overrides) {
    if (o.matched == 0) {
      notes.push_back(fmt::format("offload: -ot '{}' matches no tensor of the model (names as blk.0.ffn_up_exps.weight)",
                                  o.text));
    }
  }
}

/// The flags that decide where llama.cpp puts things, at every -ngl (n_gpu_layers left to the caller).
auto offload_request_of(const options& opts, const sizing& s) -> engines::llama_cpp::offload_request {
  engines::llama_cpp::offload_request r;
  r.tensor_overrides = !opts.override_tensor.empty();
  r.n_cpu_moe = opts.n_cpu_moe.value_or(0);
  r.cpu_moe = opts.cpu_moe;
  r.kv_offload = !opts.no_kv_offload;
  r.devices = static_cast<std::uint32_t>(s.engine_opts.tp * s.engine_opts.pp);  // ≤ 16 (check_llama_cpp_devices)
  r.split = s.engine_opts.llama_cpp.split;
  return r;
}

/// For a model with experts, the smallest --n-cpu-moe that fits at -ngl all (not with --cpu-moe, which
/// keeps them all on the host); and the notes the expert flags call for.
void add_expert_offload(const model_spec& m, const engines::llama_cpp::slot_weights& slots, offload_figures& f,
                        std::vector<std::string>& notes) {
  namespace lc = engines::llama_cpp;
  const lc::offload_request& r = f.request;
  f.has_experts =
      std::any_of(slots.block_experts.begin(), slots.block_experts.end(), [](std::uint64_t b) { return b != 0; });
  if (f.has_experts && !r.cpu_moe) {  // -ngl all with the fewest blocks' experts on the host
    lc::offload_request every_layer = r;
    every_layer.n_gpu_layers = std::numeric_limits<std::uint32_t>::max();
    f.cpu_moe = lc::smallest_fitting_cpu_moe(m, f.options, slots, every_layer, f.device);
  }
  if (!f.has_experts && (r.n_cpu_moe != 0 || r.cpu_moe)) {
    notes.push_back("offload: the model has no expert tensors (*_exps), so --n-cpu-moe / --cpu-moe move nothing");
  }
  if (r.tensor_overrides || r.cpu_moe || r.n_cpu_moe != 0) {
    notes.push_back("offload: llama.cpp's --fit does not lower -ngl when -ot, --n-cpu-moe or --cpu-moe is set "
                    "(common/fit.cpp: \"tensor_buft_overrides already set by user, abort\"): pass the -ngl shown");
  }
}

/// A GGUF's (or Ollama model's) tensor table by block, when the input has one that could be read.
auto tensor_table(const sizing& s) -> const hf::checkpoint_weights* {
  const hf::checkpoint_weights* w = s.config.checkpoint ? &*s.config.checkpoint : nullptr;
  return w != nullptr && !w->block_bytes.empty() && w->unknown_because.empty() ? w : nullptr;
}

}  // namespace

auto heaviest_gpu_weights(const sizing& s) -> std::optional<bytes> {
  namespace lc = engines::llama_cpp;
  const std::uint64_t devices = std::uint64_t{s.engine_opts.tp} * s.engine_opts.pp;
  if (s.engine != engine_kind::llama_cpp || devices <= 1 || devices > lc::max_devices) {
    return std::nullopt;
  }
  const model_spec& m = s.config.spec;
  const hf::checkpoint_weights* w = tensor_table(s);
  const bool table = w != nullptr && w->block_bytes.size() <= m.layers;
  layer_weight_bytes by_layer;  // the formula's, when there is no table (slots views it)
  lc::slot_weights slots;
  if (table) {
    slots = table_slots(*w);
  } else if (s.formula_format) {
    by_layer = weights_by_layer(m, *s.formula_format);
    slots = layer_slots(by_layer, m.layers);
  } else {
    return std::nullopt;
  }
  lc::offload_request r;  // every slot offloaded, as the plan sizes it
  r.devices = static_cast<std::uint32_t>(devices);
  r.split = s.engine_opts.llama_cpp.split;
  const lc::offload_split split = lc::split_layers(m, s.engine_opts, slots, r);
  bytes most{0};
  for (std::uint32_t d = 0; d < split.devices; ++d) {
    most = max(most, split.device.at(d).weights);
  }
  return most;
}

auto parse_tensor_split(const options& opts) -> std::optional<tensor_split_option> {
  if (!opts.tensor_split) {
    return std::nullopt;
  }
  const std::string& text = *opts.tensor_split;
  const std::string flag = opts.flag("--tensor-split");
  tensor_split_option out;
  std::size_t at = 0;
  if (text.find_first_of(",/") == 0) {  // std::regex_token_iterator yields an empty first piece: std::stof throws
    throw usage_error{fmt::format("{} '{}': a share before the first separator is missing (as in 3,1)", flag, text)};
  }
  while (at < text.size()) {
    const std::size_t end = std::min(text.find_first_of(",/", at), text.size());
    if (end > at) {
      if (out.count + 1 >= engines::llama_cpp::max_devices) {
        throw usage_error{fmt::format("{} {}: at most {} shares (llama.cpp refuses {} or more: \"got N input configs, "
                                      "but system only has 16 devices\")",
                                      flag, text, engines::llama_cpp::max_devices - 1, engines::llama_cpp::max_devices)};
      }
      float share = 0.0F;
      const char* first = text.data() + at;
      const char* last = text.data() + end;
      const auto [ptr, ec] = std::from_chars(first, last, share);
      // Stricter than std::stof (no sign, space, hex or trailing text); like it, no subnormal (ERANGE).
      const bool subnormal = share != 0.0F && share < std::numeric_limits<float>::min();
      if (ec != std::errc{} || ptr != last || !(share >= 0.0F) || share > std::numeric_limits<float>::max() ||
          subnormal) {
        throw usage_error{fmt::format("{} {}: '{}' is not a share (a finite number, 0 or more, as in 3,1 or 3/1)",
                                      flag, text, std::string(first, last))};
      }
      out.split.shares.at(out.count++) = share;
    }
    at = end + 1;
  }
  if (out.count == 0) {
    throw usage_error{fmt::format("{} '{}': no shares (expected numbers split by ',' or '/', as in 3,1)", flag, text)};
  }
  float total = 0.0F;
  for (std::uint32_t d = 0; d < out.count; ++d) {
    total += out.split.shares.at(d);
  }
  if (!(total <= std::numeric_limits<float>::max())) {
    throw usage_error{fmt::format("{} {}: the shares add up past a float", flag, text)};
  }
  return out;
}

auto layer_split_pp(const options& opts, const std::optional<tensor_split_option>& ts) -> std::uint32_t {
  return ts && opts.tp == 1 && opts.pp == 1 ? ts->count : opts.pp;
}

void compute_offload(const options& opts, sizing& s, std::optional<bytes> device_memory,
                     std::vector<std::string>& stderr_warnings) {
  namespace lc = engines::llama_cpp;
  const bool asked = (opts.gpu_layers && *opts.gpu_layers != "all") || opts.n_cpu_moe || opts.cpu_moe ||
                     opts.no_kv_offload || opts.tensor_split || !opts.override_tensor.empty();
  if (s.engine != engine_kind::llama_cpp) {
    return;  // the flags were reported as having no effect (engine_knob::gpu_layers)
  }
  std::vector<tensor_override> overrides = parse_overrides(opts);  // refused with exit 2 whatever the input
  const hf::checkpoint_weights* w = tensor_table(s);
  const bool table = w != nullptr;
  // Without a GGUF's table, the formula's bytes per layer in the weights format sized above (the f16
  // GGUF llama.cpp's converter writes, or --weights-dtype q4_K_M, ...), when the user asks for a split.
  const bool formula = !table && asked && s.formula_format.has_value();
  if (formula && !opts.override_tensor.empty()) {
    throw usage_error{fmt::format("{}: its patterns match a GGUF file's tensor names, and a config.json has none: "
                                  "give the GGUF file (or Ollama model)",
                                  opts.flag("--override-tensor"))};
  }
  if (!table && !formula) {
    if (asked && !s.config.weights_unknown_because.empty()) {
      stderr_warnings.push_back(fmt::format("the offload split needs the weights of each layer, which are not counted "
                                            "({}:{}); the report sizes every layer on the device",
                                            s.config_path, s.config.weights_unknown_because));
    } else if (asked) {
      stderr_warnings.push_back("the offload split needs the weights of each layer: a GGUF file's tensor table, or a "
                                "config.json whose weights format is known (--weights-dtype); the report sizes every "
                                "layer on the device");
    }
    return;
  }
  if (!device_memory) {
    if (asked) {
      stderr_warnings.emplace_back("the offload split needs the device: give --gpu or --gpu-memory");
    }
    return;
  }
  const model_spec& m = s.config.spec;
  if (table && w->block_bytes.size() > m.layers) {
    s.notes.push_back(fmt::format("offload: the GGUF has tensors of {} blocks but the model {} layers; no split",
                                  w->block_bytes.size(), m.layers));
    return;
  }
  layer_weight_bytes by_layer;  // the formula's, when there is no table (slots views it)
  lc::slot_weights slots = table ? table_slots(*w) : formula_slots(s, by_layer);
  offload_figures f;
  gguf::host_overrides kept;  // -ot's bytes by slot (slots views them)
  if (table && !opts.override_tensor.empty()) {
    apply_overrides(opts, overrides, *w, slots, kept, f, s.notes);
  }
  const lc::offload_request r = offload_request_of(opts, s);
  f.ngl = opts.gpu_layers.value_or("all");
  f.device = *device_memory;
  f.options = split_options(opts, s);
  f.largest = lc::largest_fitting_split(m, f.options, slots, r, *device_memory);
  if (f.ngl == "auto") {
    lc::offload_request none = r;
    none.n_gpu_layers = 0;
    f.asked = f.largest ? *f.largest : lc::split_layers(m, f.options, slots, none);
  } else {
    lc::offload_request given = r;
    if (f.ngl != "all") {  // digits only (checked with the other llama.cpp knobs), at most 9 of them
      std::uint32_t n = 0;
      std::from_chars(f.ngl.data(), f.ngl.data() + f.ngl.size(), n);
      given.n_gpu_layers = n;
    }
    f.asked = lc::split_layers(m, f.options, slots, given);
  }
  f.fits = f.asked.fits(f.device, lc::fit_margin);
  f.request = r;
  add_expert_offload(m, slots, f, s.notes);
  s.offload = f;
}

}  // namespace kvsize::cli
