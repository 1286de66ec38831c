// SPDX-License-Identifier: MIT
// libFuzzer target for kvsize::gguf::read_gguf and model_of. Any input must either read into a
// header whose tensors lie inside the data section ggml's offset rule gives, and a model that
// passes kvsize::validate with one reason per layer and sizes that compute or throw
// kvsize::overflow_error; or throw kvsize::gguf::gguf_error. Nothing else may escape, and
// AddressSanitizer / UndefinedBehaviorSanitizer must stay silent. Build and run: run-fuzz.sh.
#include <kvsize/gguf.hpp>
#include <kvsize/kv_cache.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  for (const bool metadata_only : {false, true}) {
    try {
      kvsize::gguf::read_options o;
      o.metadata_only = metadata_only;
      o.keep_elements = 64;  // exercise the skipping path on small inputs too
      in.clear();
      in.seekg(0);
      const kvsize::gguf::gguf_header h = kvsize::gguf::read_gguf(in, "fuzz.gguf", o);
      for (const auto& t : h.tensors) {
        if (t.data_offset > h.data_size || t.size > h.data_size - t.data_offset) {
          std::abort();  // a tensor outside the data section the offsets add up to
        }
      }
      const kvsize::gguf::gguf_model g = kvsize::gguf::model_of(h, "fuzz.gguf");
      kvsize::validate(g.spec);
      if (g.layer_reasons.size() != g.spec.layers) {
        std::abort();
      }
      try {
        (void)kvsize::kv_bytes(g.spec, 131072, 64);
        (void)kvsize::state_bytes_per_sequence(g.spec);
        (void)g.active_parameters();
      } catch (const kvsize::overflow_error&) {
      }
    } catch (const kvsize::gguf::gguf_error&) {
    }
  }
  return 0;
}
