#include <fmt/core.h>

#include <kvsize/engines_fmt.hpp>  // needs fmt: target kvsize::fmt
#include <kvsize/gpus.hpp>
#include <kvsize/presets.hpp>

int main() {
  constexpr kvsize::engine_options o{.context = 32'768, .tp = 2};
  for (const auto& line : kvsize::engine_log_lines(kvsize::presets::llama_3_8b, kvsize::engine_kind::vllm, o,
                                                   44 * kvsize::GiB)) {
    fmt::print("{}\n", line);  // the lines vLLM itself logs
  }
}
