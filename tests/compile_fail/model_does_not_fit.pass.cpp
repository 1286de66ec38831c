// SPDX-License-Identifier: MIT
// Twin of model_does_not_fit.fail.cpp: the 1.5B (3,087,428,608 B of bf16 weights) with 100
// users at 2,048 tokens (100 × 58,720,256 B) fits the RTX 3060's 12 GiB.
#include <kvsize/kvsize.hpp>

namespace p = kvsize::presets;
constexpr auto weights = kvsize::weights_bytes(kvsize::dense_decoder_parameters(p::qwen2_5_1_5b), kvsize::dtype::bf16);
static_assert(kvsize::check_fit(p::qwen2_5_1_5b, kvsize::gpu("rtx-3060").memory, 2'048, 100, weights).fits(),
              "Qwen2.5-1.5B in bf16 does not fit an RTX 3060");
