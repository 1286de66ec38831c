// SPDX-License-Identifier: MIT
// compressed-tensors' quantization_config (quant_method "compressed-tensors"): its config_groups, the first of which
// ModelOpt also writes into config.json, and the pack-quantized int form kvsize sizes (weights_format packed_int).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint32_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view

#include "../weights.hpp"
#include "json_reader.hpp"

namespace kvsize::hf::detail {

/// The first entry of quantization object `q`'s config_groups (compressed-tensors' form, which ModelOpt also writes
/// into config.json) and that group's `weights`; `groups` counts the entries (0: no config_groups, or none in it).
/// Strict: a config_groups, group or weights that is not an object is a wrong_type error at its pointer.
struct config_group_view {
  std::size_t groups = 0;
  slot group;
  slot weights;  ///< unset where the group has none
};
[[nodiscard]] inline auto first_config_group(const slot& q) -> config_group_view {
  config_group_view v;
  const slot groups = lookup(*q.value, q.pointer(), "config_groups");
  if (!groups.set()) {
    return v;
  }
  require_object(groups);
  v.groups = groups.value->size();
  if (v.groups == 0) {
    return v;
  }
  v.group = lookup(*groups.value, groups.pointer(), groups.value->begin().key());
  require_object(v.group);
  v.weights = lookup(*v.group.value, v.group.pointer(), "weights");
  if (v.weights.set()) {
    require_object(v.weights);
  }
  return v;
}


/// compressed-tensors (quant_method "compressed-tensors"): the pack-quantized form of one config group of
/// symmetric "int" weights with strategy "group" (or "channel": one group) and no activation order; nullopt for
/// the rest (float-quantized, asymmetric, several groups), which kvsize does not size yet.
[[nodiscard]] inline auto compressed_tensors_format(const slot& q) -> std::optional<weights_format> {
  const slot format = lookup(*q.value, q.pointer(), "format");
  if (!format.set() || read_string(format) != "pack-quantized") {
    return std::nullopt;
  }
  const config_group_view first = first_config_group(q);
  if (first.groups != 1) {
    return std::nullopt;
  }
  const slot& w = first.weights;
  const slot targets = lookup(*first.group.value, first.group.pointer(), "targets");
  if (!w.set() || !targets.set() || !targets.value->is_array() || *targets.value != json::array({"Linear"})) {
    return std::nullopt;  // the group quantizes other modules than every Linear less `ignore`
  }
  const auto field = [&](std::string_view k) { return lookup(*w.value, w.pointer(), k); };
  const slot type = field("type");
  const slot strategy = field("strategy");
  const slot symmetric = field("symmetric");
  const slot actorder = field("actorder");
  if (!type.set() || read_string(type) != "int" || !symmetric.set() || !read_bool(symmetric) ||
      (actorder.set() && !(actorder.value->is_boolean() && !actorder.value->get<bool>())) || !strategy.set()) {
    return std::nullopt;
  }
  const std::string how = read_string(strategy);
  // compressed-tensors' pack_to_int32 packs at most 8 bits into each int32 word: a larger num_bits is no packed form.
  const std::uint32_t bits = read_u32(field("num_bits"), 1, 8);
  if (how == "channel") {
    return packed_int_weights(bits, 0);
  }
  if (how != "group") {
    return std::nullopt;
  }
  return packed_int_weights(bits, read_u32(field("group_size"), 1, 1U << 24U));
}

}  // namespace kvsize::hf::detail
