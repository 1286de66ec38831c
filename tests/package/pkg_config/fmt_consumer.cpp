// SPDX-License-Identifier: MIT
// A kvsize::fmt user built with `c++ fmt_consumer.cpp $(pkg-config --cflags --libs kvsize-fmt)` only
// (plain-compiler.cmake): fmt::print is compiled into libfmt, so this also checks the .pc links it.
#include <fmt/core.h>

#include <kvsize/fmt.hpp>
#include <kvsize/kv_cache.hpp>
#include <kvsize/presets.hpp>
#include <kvsize/version.hpp>

int main() {
  const kvsize::bytes per_token = kvsize::kv_bytes_per_token(kvsize::presets::qwen2_5_1_5b);
  fmt::print("kvsize {}: {} B = {} of KV per token\n", kvsize::version_string, per_token.count(), per_token);
  return 0;
}
