#include <kvsize/engine.hpp>
#include <kvsize/gpus.hpp>
#include <kvsize/parameters.hpp>
#include <kvsize/presets.hpp>

#include <cstdio>

int main() {
  constexpr auto m = kvsize::presets::llama_3_8b;
  constexpr auto h100 = kvsize::gpu("h100-80gb");
  constexpr kvsize::engine_options o{.context = 8'192, .device_memory = h100.memory};
  constexpr auto weights = kvsize::weights_bytes(kvsize::dense_decoder_parameters(m), kvsize::dtype::bf16);
  constexpr auto budget = kvsize::engine_kv_budget(kvsize::engine_kind::vllm, h100.memory, weights, o);
  constexpr auto c = kvsize::engine_capacity_for(m, kvsize::engine_kind::vllm, o, budget);
  std::printf("vLLM: GPU KV cache size: %llu tokens; maximum concurrency for 8,192 tokens: %.2fx\n",
              static_cast<unsigned long long>(c.max_tokens), c.max_concurrency);
}
