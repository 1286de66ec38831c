// SPDX-License-Identifier: MIT
// kvsize command line: the result model (results.hpp) built from the sizing, once per run.
#pragma once

#include <cstdint>
#include <string_view>

#include "results.hpp"
#include "sizing.hpp"

namespace kvsize::cli {

/// Heads the KV cache keeps K and V for (the library's kvsize::cache_kv_heads: 1 for a model with
/// latent (MLA) layers, else the config's KV heads). The one figure the text and --json print.
auto cache_kv_heads(const model_spec& m) -> std::uint32_t;

auto model_of(const sizing& s) -> model_result;
auto figures_of(const sizing& s) -> figures_result;

/// A plan or sweep point's figures, with its ceilings (max users at its context, max context for
/// its users); the words of the text report are left empty (plan_report.cpp fills the plan's own).
auto point_of(const plan_point& p, std::string_view engine, std::uint64_t max_users, std::uint64_t max_context)
    -> point_result;

}  // namespace kvsize::cli
