// SPDX-License-Identifier: MIT
// The vocabulary every engine profile shares, one concept per header; this umbrella includes them
// all, so that an engine header (or a user) can keep including <kvsize/engines/common.hpp>:
//   engine_options.hpp  which engine (engine_kind) and its knobs (engine_options);
//   engine_sizing.hpp   what it allocates and what fits (cache_part, engine_sizing, engine_capacity);
//   dtype_rules.hpp     config_dtype_facts, the serving / default K/V dtype dispatch, state dtypes;
//   stage_sizing.hpp    the steps every size_stage shares (pp_stage, start_sizing, engine_groups, ...);
//   capacity_rules.hpp  budget arithmetic and the plain capacity rule.
// Standard library only; every figure is computed in constant expressions without allocation.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include "capacity_rules.hpp"
#include "dtype_rules.hpp"
#include "engine_options.hpp"
#include "engine_sizing.hpp"
#include "stage_sizing.hpp"
