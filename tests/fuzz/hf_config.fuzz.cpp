// SPDX-License-Identifier: MIT
// libFuzzer target for kvsize::hf::parse_config. Any input must either parse into a spec that
// passes kvsize::validate, or throw kvsize::hf::config_error; nothing else may escape, and
// AddressSanitizer / UndefinedBehaviorSanitizer must stay silent. Build and run: run-fuzz.sh.
#include <kvsize/hf_config.hpp>
#include <kvsize/kv_cache.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const kvsize::hf::parsed_config c = kvsize::hf::parse_config(text, "fuzz.json");
    kvsize::validate(c.spec);  // the parser promises a validated spec
    std::uint32_t covered = 0;
    for (const auto& g : c.layers) {
      covered += g.count;
    }
    if (covered != c.spec.layers) {
      std::abort();  // layer notes must cover every layer
    }
    try {
      (void)kvsize::kv_bytes(c.spec, 131072, 64);  // may overflow 2^64 only by throwing
      (void)kvsize::state_bytes_per_sequence(c.spec);
    } catch (const kvsize::overflow_error&) {
    } catch (const kvsize::invalid_argument&) {  // a row that is not whole blocks (not for f16/bf16/f32)
    }
  } catch (const kvsize::hf::config_error&) {
  }
  return 0;
}
