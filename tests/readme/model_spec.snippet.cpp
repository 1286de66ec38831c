#include <kvsize/model_spec.hpp>

#include <cstdio>

// Gemma-2-9B-like: alternate sliding (4,096-token window) and full layers.
constexpr kvsize::model_spec gemma = [] {
  kvsize::model_spec m{.layers = 42, .attention_heads = 16, .kv_heads = 8, .head_dim = 256,
                       .hidden_size = 3'584, .vocab_size = 256'000, .sliding_window = 4'096};
  for (std::uint32_t il = 0; il < m.layers; il += 2) {
    m.layer[il].kind = kvsize::layer_kind::sliding;
  }
  return m;
}();

int main() {
  kvsize::validate(gemma);  // throws kvsize::invalid_argument naming the first broken rule
  std::printf("%u sliding + %u full layers\n", kvsize::count_layers(gemma, kvsize::layer_kind::sliding),
              kvsize::count_layers(gemma, kvsize::layer_kind::full));
}
