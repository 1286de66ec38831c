// SPDX-License-Identifier: MIT
// libFuzzer target for kvsize::hf::parse_config. Any input must either parse into a spec that
// passes kvsize::validate, or throw kvsize::hf::config_error; nothing else may escape (an uncaught
// exception aborts, which libFuzzer reports), and AddressSanitizer / UndefinedBehaviorSanitizer
// must stay silent. A parsed config must also be usable: layer notes that cover every layer in
// order with the kinds the spec has, and sizes (KV, state, parameters) that either compute or
// throw kvsize::overflow_error. Build and run: run-fuzz.sh.
#include <kvsize/hf_config.hpp>
#include <kvsize/kv_cache.hpp>
#include <kvsize/weights.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const kvsize::hf::parsed_config c = kvsize::hf::parse_config(text, "fuzz.json");
    kvsize::validate(c.spec);  // the parser promises a validated spec (throws invalid_argument: escapes)
    std::uint32_t next = 0;
    for (const auto& g : c.layers) {
      if (g.first_layer != next || g.count == 0 || g.reason.empty()) {
        std::abort();  // layer notes must cover every layer, in order, each with its reason
      }
      for (std::uint32_t il = g.first_layer; il < g.first_layer + g.count; ++il) {
        if (kvsize::kind_of_layer(c.spec, il) != g.kind || kvsize::layer_keeps_state(c.spec, il) != g.recurrent) {
          std::abort();  // a note must say what the spec computes with
        }
      }
      next += g.count;
    }
    if (next != c.spec.layers) {
      std::abort();
    }
    try {
      (void)kvsize::kv_bytes(c.spec, 131072, 64);  // may overflow 2^64 only by throwing
      (void)kvsize::state_bytes_per_sequence(c.spec);
      (void)kvsize::parameters(c.spec);
    } catch (const kvsize::overflow_error&) {
    } catch (const kvsize::invalid_argument&) {  // a row that is not whole blocks (not for f16/bf16/f32)
    }
  } catch (const kvsize::hf::config_error&) {
  }
  return 0;
}
