// MESSAGE[require_fit.*Qwen/Qwen2\.5-1\.5B.*NVIDIA GeForce RTX 3060 12 GB.*13657074688, 12884901888]
// SPDX-License-Identifier: MIT
// KVSIZE_STATIC_REQUIRE_FIT with the core alone: Qwen2.5-1.5B in bf16, 180 users at 2,048 tokens
// need 3,087,428,608 B of weights + 180 x 56 MiB of KV = 13,657,074,688 B; an RTX 3060 has
// 12 GiB = 12,884,901,888 B. Twin: static_check.pass.cpp (160 users, the lesson's answer, which fit).
#include <cstdint>
#include <string_view>

#include <kvsize/kvsize.hpp>
#include <kvsize/static_check.hpp>

namespace {
constexpr std::string_view model_name = "Qwen/Qwen2.5-1.5B";
constexpr auto rtx_3060 = kvsize::gpu("rtx-3060");
constexpr auto model = kvsize::presets::qwen2_5_1_5b;
constexpr auto weights = kvsize::weights_bytes(kvsize::dense_decoder_parameters(model), kvsize::dtype::bf16);
constexpr auto plan = kvsize::check_fit(model, rtx_3060.memory, 2'048, 180, weights);
}  // namespace

KVSIZE_STATIC_REQUIRE_FIT(model_name, rtx_3060.name, plan.needed(), plan.available);
