// SPDX-License-Identifier: MIT
// The compiling twin of static_check.fail.cpp: 160 users (the lesson's answer) fit an RTX 3060,
// 12,482,669,568 B of 12,884,901,888 B, so the failure there comes from the 180 users.
#include <cstdint>
#include <string_view>

#include <kvsize/kvsize.hpp>
#include <kvsize/static_check.hpp>

namespace {
constexpr std::string_view model_name = "Qwen/Qwen2.5-1.5B";
constexpr auto rtx_3060 = kvsize::gpu("rtx-3060");
constexpr auto model = kvsize::presets::qwen2_5_1_5b;
constexpr auto weights = kvsize::weights_bytes(kvsize::dense_decoder_parameters(model), kvsize::dtype::bf16);
constexpr auto plan = kvsize::check_fit(model, rtx_3060.memory, 2'048, 160, weights);
}  // namespace

KVSIZE_STATIC_REQUIRE_FIT(model_name, rtx_3060.name, plan.needed(), plan.available);
