// MESSAGE[Qwen2.5-7B in bf16 does not fit an RTX 3060]
// SPDX-License-Identifier: MIT
// A static_assert that a model fits a GPU it does not fit fails the build. Lesson 000 §6: the
// 7B's 15,231,233,024 B of bf16 weights exceed the RTX 3060's 12 GiB before any cache.
// Twin: model_does_not_fit.pass.cpp.
#include <kvsize/kvsize.hpp>

namespace p = kvsize::presets;
constexpr auto weights = kvsize::weights_bytes(kvsize::dense_decoder_parameters(p::qwen2_5_7b), kvsize::dtype::bf16);
static_assert(kvsize::check_fit(p::qwen2_5_7b, kvsize::gpu("rtx-3060").memory, 2'048, 1, weights).fits(),
              "Qwen2.5-7B in bf16 does not fit an RTX 3060");
