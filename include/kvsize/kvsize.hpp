// SPDX-License-Identifier: MIT
// The kvsize core: constexpr, allocation-free, standard library only.
// Also standard-library only, but included on demand because they cost a third more to compile:
// the engine profiles (kvsize/engine.hpp) and the planner (kvsize/workspace.hpp, kvsize/planner.hpp).
// JSON reading (kvsize/hf_config.hpp) and formatting (kvsize/fmt.hpp) are opt-in.
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include "version.hpp"
#include "error.hpp"
#include "bytes.hpp"
#include "dtype.hpp"
#include "model_spec.hpp"
#include "kv_cache.hpp"
#include "logits.hpp"
#include "decode.hpp"
#include "parameters.hpp"
#include "weights.hpp"
#include "parse_size.hpp"
#include "capacity.hpp"
#include "gpus.hpp"
#include "presets.hpp"
