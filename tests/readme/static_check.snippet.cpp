#include <kvsize/kvsize.hpp>
#include <kvsize/static_check.hpp>

#include <cstdio>
#include <string_view>

constexpr std::string_view model_name = "Qwen/Qwen2.5-1.5B";
constexpr auto gpu = kvsize::gpu("rtx-3060");
constexpr auto m = kvsize::presets::qwen2_5_1_5b;
constexpr auto plan = kvsize::check_fit(m, gpu.memory, 2'048, 160,
                                        kvsize::weights_bytes(kvsize::dense_decoder_parameters(m), kvsize::dtype::bf16));
// With 180 users this does not compile, and the message shows the names and both byte counts.
KVSIZE_STATIC_REQUIRE_FIT(model_name, gpu.name, plan.needed(), plan.available);

int main() {
  std::printf("160 users fit: %llu of %llu B\n", static_cast<unsigned long long>(plan.needed().count()),
              static_cast<unsigned long long>(plan.available.count()));
}
