#include <kvsize/gpus.hpp>
#include <kvsize/parameters.hpp>
#include <kvsize/planner.hpp>
#include <kvsize/presets.hpp>

#include <cstdio>

int main() {
  constexpr auto m = kvsize::presets::qwen2_5_1_5b;
  constexpr auto gpu = kvsize::gpu("rtx-3060");
  kvsize::plan_inputs in{};
  in.weights = kvsize::weights_bytes(kvsize::dense_decoder_parameters(m), kvsize::dtype::bf16);
  in.device_memory = gpu.memory;
  in.bandwidth = gpu.bandwidth;
  in.engine = kvsize::engine_kind::vllm;
  in.options.context = 2'048;  // tokens per user
  in.options.batch = 160;      // users
  const auto p = kvsize::plan(m, in);
  std::printf("fits: %s; max users %llu; max context %llu; fp8 KV: %llu users; >= %.1f ms per token\n",
              p.point.fits() ? "yes" : "no", static_cast<unsigned long long>(p.max_users),
              static_cast<unsigned long long>(p.max_context), static_cast<unsigned long long>(p.kv_8bit.max_users),
              p.decode.seconds_per_token * 1e3);
}
