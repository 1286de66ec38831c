// SPDX-License-Identifier: MIT
// kvsize --engine all: one config under every engine, side by side.
#pragma once

#include <string>
#include <vector>

#include "options.hpp"

namespace kvsize::cli {

/// Whether --engine names every engine ("all", in any case).
auto is_engine_all(const options& opts) -> bool;

/// The table of every engine for the config and device of `opts`: a text table, or with --json an
/// object {"config", "source", "engines": [...]}. The config is read once. An engine that refuses
/// the request (a cache type it lacks, a block size) gets a row saying why; a problem of the input
/// itself (the config, an option every engine reads) is thrown as for one engine. Warnings that
/// one engine ignores a knob are left out (each knob is some engine's); the others go to
/// `stderr_warnings` once each.
auto engine_table(const options& opts, std::vector<std::string>& stderr_warnings) -> std::string;

}  // namespace kvsize::cli
