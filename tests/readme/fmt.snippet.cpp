#include <fmt/core.h>

#include <kvsize/fmt.hpp>  // needs fmt: target kvsize::fmt
#include <kvsize/kvsize.hpp>

int main() {
  constexpr auto m = kvsize::presets::qwen2_5_1_5b;
  const auto kv = kvsize::kv_bytes(m, 2'048, 160);
  fmt::print("{} = {} = {} B\n", kv, kvsize::as_si(kv), kv.count());  // IEC by default, SI on request
  fmt::print("[{:>12}] {} {}\n", kvsize::kv_bytes_per_token(m), kvsize::dtype::bf16, kvsize::layer_kind::sliding);
}
