#include <kvsize/gguf.hpp>
#include <kvsize/kv_cache.hpp>

#include <cstdio>

int main() {
  // Any GGUF: the header is read, never the tensor data. This one is llama.cpp's gpt-2 vocabulary file.
  const kvsize::gguf::gguf_model g = kvsize::gguf::load_gguf_model("configs/gguf/ggml-vocab-gpt-2.gguf");
  const kvsize::bytes per_sequence = kvsize::kv_bytes_per_sequence(g.spec, 1024);  // f16, llama.cpp's default
  std::printf("%s: %u layers, KV %.0f KiB per 1,024-token sequence, %llu tensors\n", g.architecture.c_str(),
              g.spec.layers, per_sequence.in(kvsize::KiB),
              static_cast<unsigned long long>(g.weights ? g.weights->tensors : 0));
}
