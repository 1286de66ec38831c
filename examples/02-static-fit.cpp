// SPDX-License-Identifier: MIT
// A build that refuses to compile when the deployment would not fit: static_assert on the
// same constexpr formulas. Change 100 users to 200 and this file stops compiling.
#include <fmt/format.h>

#include <kvsize/fmt.hpp>
#include <kvsize/kvsize.hpp>

namespace presets = kvsize::presets;

constexpr auto model = presets::qwen2_5_1_5b;
constexpr auto device = kvsize::gpu("rtx-3060");
constexpr std::uint64_t context = 2'048;
constexpr std::uint64_t users = 100;
constexpr auto weights = kvsize::weights_bytes(kvsize::dense_decoder_parameters(model), kvsize::dtype::bf16);
constexpr auto plan = kvsize::check_fit(model, device.memory, context, users, weights);

static_assert(plan.fits(), "Qwen2.5-1.5B with 100 users at 2,048 tokens must fit an RTX 3060");

int main() {
  fmt::print("{} users x {} tokens of Qwen2.5-1.5B on the {}:\n", users, context, device.name);
  fmt::print("  weights {} + KV {} = {} of {} ({} B of {} B)\n", plan.weights, plan.cache, plan.needed(),
             plan.available, plan.needed().count(), plan.available.count());
}
