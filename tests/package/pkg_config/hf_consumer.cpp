// SPDX-License-Identifier: MIT
// A kvsize::hf user built with `c++ hf_consumer.cpp $(pkg-config --cflags --libs kvsize-hf)` only
// (plain-compiler.cmake): reads the config.json given as its argument.
#include <kvsize/hf_config.hpp>
#include <kvsize/kv_cache.hpp>

#include <cstdio>  // std::printf

int main(int argc, char** argv) {
  if (argc != 2) {
    return 2;
  }
  const kvsize::hf::parsed_config c = kvsize::hf::load_config(argv[1]);
  std::printf("%s: %llu B of KV per token\n", c.model_type.c_str(),
              static_cast<unsigned long long>(kvsize::kv_bytes_per_token(c.spec).count()));
  return 0;
}
