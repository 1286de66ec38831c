// SPDX-License-Identifier: MIT
// The object the language model is read from (the root, or a nested text_config), with the
// class defaults for the keys a nested config leaves out.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>      // std::uint32_t, std::uint64_t
#include <functional>   // std::less
#include <iterator>     // std::size, std::begin, std::end
#include <optional>     // std::optional
#include <set>          // std::set
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <nlohmann/json.hpp>

#include "families.hpp"
#include "json_reader.hpp"

namespace kvsize::hf::detail {

/// Why a nested config may omit keys: transformers saves a sub-config with to_diff_dict, which
/// drops every attribute equal to the sub-config class's default (PretrainedConfig.to_diff_dict,
/// configuration_utils.py). So gemma-3-4b-it's text_config has no num_attention_heads: it is
/// Gemma3TextConfig's 8. A top-level config is saved against PretrainedConfig's own defaults
/// and keeps every model key, so defaults are applied only to nested configs: an absent key at
/// the top level is an error, not a guess.
/// The class defaults of `fam` (a null json when it has none), parsed once per process from the
/// compiled-in text. A row of another table (a test's toy family) is parsed into `own`.
[[nodiscard]] inline auto nested_defaults(const family& fam, json& own) -> const json& {
  const std::less<const family*> before;  // a total order, also for pointers into other arrays
  if (before(&fam, std::begin(families)) || !before(&fam, std::end(families))) {
    own = fam.nested_defaults.empty() ? json() : json::parse(fam.nested_defaults);  // the caller's text
    return own;
  }
  static const std::vector<json> parsed = [] {
    std::vector<json> all;
    all.reserve(std::size(families));
    for (const auto& f : families) {
      all.push_back(f.nested_defaults.empty() ? json() : json::parse(f.nested_defaults));  // trusted text
    }
    return all;
  }();
  return parsed[static_cast<std::size_t>(&fam - families)];
}

/// The class default of `key` in `fam`'s nested_defaults, where it is a whole number of 32 bits.
[[nodiscard]] inline auto class_default_u32(const family& fam, std::string_view key) -> std::optional<std::uint32_t> {
  json own;
  const json& defaults = nested_defaults(fam, own);
  if (!defaults.is_object()) {
    return std::nullopt;
  }
  const auto it = defaults.find(key);
  if (it == defaults.end() || !it->is_number_unsigned() || it->get<std::uint64_t>() > 0xFFFF'FFFFULL) {
    return std::nullopt;
  }
  return it->get<std::uint32_t>();
}

class config_view {
 public:
  config_view(const json& object, std::string base, const family* fam, bool nested,
              std::vector<std::string>& warnings)
      : object_(object), base_(std::move(base)), family_(fam), warnings_(warnings) {
    if (nested && fam != nullptr && !fam->nested_defaults.empty()) {
      defaults_ = &nested_defaults(*fam, own_defaults_);
    }
  }
  config_view(const config_view&) = delete;
  auto operator=(const config_view&) -> config_view& = delete;

  [[nodiscard]] auto object() const -> const json& { return object_; }
  [[nodiscard]] auto base() const -> const std::string& { return base_; }
  /// The family's row; null for a model_type kvsize does not know.
  [[nodiscard]] auto fam() const -> const family* { return family_; }
  /// The family's facts: its row, or the generic decoder's for an unknown model_type.
  [[nodiscard]] auto facts() const -> const family& { return family_ != nullptr ? *family_ : generic_family; }

  /// The key, or the class default for it (recorded in the warnings once), or an absent slot.
  [[nodiscard]] auto get(std::string_view key) const -> slot {
    slot s = lookup(object_, base_, key);
    if (!s.present()) {
      apply_default(s, key);
    }
    return s;
  }

  /// The first present non-null alias; else a class default for one of them; else the first null.
  [[nodiscard]] auto get_first(std::span<const std::string_view> keys) const -> slot {
    slot s = lookup_first(object_, base_, keys);
    if (!s.present()) {
      for (const auto key : keys) {
        slot d;
        d.base = base_;
        d.key = key;
        d.has_key = true;
        if (apply_default(d, key)) {
          return d;
        }
      }
    }
    return s;
  }

  void warn(std::string sentence) const { warnings_.push_back(std::move(sentence)); }

 private:
  auto apply_default(slot& s, std::string_view key) const -> bool {
    if (defaults_ == nullptr || !defaults_->is_object()) {
      return false;
    }
    const auto it = defaults_->find(key);
    if (it == defaults_->end()) {
      return false;
    }
    s.value = &*it;
    if (warned_.insert(std::string(key)).second) {
      warnings_.push_back(s.pointer() + " is absent; took " + it->dump() + ", the default of transformers' " +
                          std::string(family_->source));
    }
    return true;
  }

  const json& object_;
  std::string base_;
  const family* family_;
  std::vector<std::string>& warnings_;
  json own_defaults_;  // a foreign row's parsed defaults
  const json* defaults_ = nullptr;
  mutable std::set<std::string> warned_;
};

/// The class default where a top-level key is unset: `s` absent or null and `fam`'s class giving `class_key` a whole
/// number (class_default_u32); then a warning names the key, whether it was absent or null, the value and the class
/// (`what`: what the value is taken for, appended). nullopt where the key is set or the class gives no default: the
/// caller reads the key (read_u32's error for a missing one) or keeps its own fallback.
[[nodiscard]] inline auto unset_class_default(const config_view& v, const slot& s, std::string_view class_key,
                                              std::string_view what = {}) -> std::optional<std::uint32_t> {
  if (s.set()) {
    return std::nullopt;
  }
  const std::optional<std::uint32_t> d = class_default_u32(v.facts(), class_key);
  if (d) {
    v.warn(s.pointer() + (s.present() ? " is null" : " is absent") + ": took " + std::to_string(*d) +
           ", the default of " + std::string(v.facts().source) + std::string(what));
  }
  return d;
}

}  // namespace kvsize::hf::detail
