// SPDX-License-Identifier: MIT
// Built by the embedding consumers (add_subdirectory, FetchContent): kvsize_add_model() works there,
// with kvsize-codegen built from kvsize's sources on demand. Compiling this file is the test.
#include <kvsize/kv_cache.hpp>
#include <kvsize_models/qwen2_5_7b.hpp>

static_assert(kvsize::kv_bytes_per_token(models::qwen2_5_7b) == 56 * kvsize::KiB);  // 2 × 28 × 4 × 128 × 2 B
static_assert(models::qwen2_5_7b_name == "Qwen/Qwen2.5-7B");
static_assert(models::qwen2_5_7b_parameters == 7'615'616'512);

int main() { return 0; }
