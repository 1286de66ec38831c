// SPDX-License-Identifier: MIT
// kvsize::hf::layer_reason: why a layer keeps what it keeps, as data (the key, the rule it was
// read by, the value), and the one function that renders it to text. A reason holds no layer
// index: the index is the layers' own (layer_group_note::first_layer, count), put in when the
// reason is rendered, either as the layers' indices or as "i" (the same for every layer).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <charconv>     // std::to_chars
#include <cstdint>      // std::uint8_t, std::uint32_t
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

namespace kvsize::hf {

/// How a key decided, which fixes the words of the sentence. I is the layer index as rendered.
enum class reason_rule : std::uint8_t {
  no_layer_key,  ///< "no per-layer key: full attention"
  model_wide,    ///< "{value}": a fact of the whole model (use_sliding_window = false, kv_lora_rank, ...)
  list_element,  ///< "{pointer}[I] = {value}": one entry per layer (layer_types, no_rope_layers, ...)
  block_entry,   ///< "{pointer}/I/attention/{value}": block_configs' per-block attention
  layer_test,    ///< "{value}layer I{then}": a rule over the index (period, offset, max_window_layers)
  window_from,   ///< "window from {pointer} = {value}"
  chunk_from,    ///< "chunk from {pointer} = {value}"
  note,          ///< "{value}": a note on the layer's KV heads or recurrent state
};

/// One clause of a layer's reason.
struct layer_reason {
  std::string pointer;  ///< the JSON pointer of the key that decided ("" when none did)
  reason_rule rule = reason_rule::model_wide;
  std::string value;    ///< the key's value and what it means (the rule's variable words)
  std::string then;     ///< layer_test only: the words after the layer index
  friend auto operator==(const layer_reason&, const layer_reason&) -> bool = default;
};

/// A layer's whole reason: its clauses, rendered joined by "; ".
using layer_reasons = std::vector<layer_reason>;

/// How the layer index is written when a reason is rendered.
enum class reason_index : std::uint8_t {
  layers,     ///< the layers' indices: "7", or "6..10" for a group
  any_layer,  ///< "i" where the reason reads the same for any one layer of the group: in "layer I",
              ///< and in a list element of one layer ("/layer_types[i]"); a block entry and a run of
              ///< equal list elements keep their indices ("/block_configs/6..7/", "[0..4]")
};

/// The text of `why` for the `count` layers from `first`: the one place reasons become prose.
[[nodiscard]] inline auto render_reason(const layer_reasons& why, std::uint32_t first, std::uint32_t count,
                                        reason_index style = reason_index::layers) -> std::string {
  char digits[24];  // "4294967295..4294967295"
  char* end = std::to_chars(digits, digits + 10, first).ptr;
  if (count != 1) {
    *end++ = '.';
    *end++ = '.';
    end = std::to_chars(end, end + 10, first + count - 1).ptr;
  }
  const std::string_view indices(digits, static_cast<std::size_t>(end - digits));
  const bool generic = style == reason_index::any_layer;
  std::string out;
  for (const auto& r : why) {
    if (!out.empty()) {
      out += "; ";
    }
    switch (r.rule) {
      case reason_rule::no_layer_key: out += "no per-layer key: full attention"; break;
      case reason_rule::model_wide:
      case reason_rule::note: out += r.value; break;
      case reason_rule::list_element:
        out += r.pointer;
        out += '[';
        out += generic && count == 1 ? std::string_view("i") : indices;
        out += "] = ";
        out += r.value;
        break;
      case reason_rule::block_entry:
        out += r.pointer;
        out += '/';
        out += indices;
        out += "/attention/";
        out += r.value;
        break;
      case reason_rule::layer_test:
        out += r.value;
        out += "layer ";
        out += generic ? std::string_view("i") : indices;
        out += r.then;
        break;
      case reason_rule::window_from: out += "window from " + r.pointer + " = " + r.value; break;
      case reason_rule::chunk_from: out += "chunk from " + r.pointer + " = " + r.value; break;
    }
  }
  return out;
}

}  // namespace kvsize::hf
