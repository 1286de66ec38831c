#include <kvsize/dtype.hpp>

#include <cstdio>

int main() {
  static_assert(kvsize::row_bytes(kvsize::dtype::q8_0, 4'096) == kvsize::bytes{4'352});  // 34 B per 32
  static_assert(kvsize::parse_dtype("bfloat16") == kvsize::dtype::bf16);
  constexpr kvsize::kv_dtypes llama_cpp{kvsize::dtype::q8_0, kvsize::dtype::f16};  // K and V may differ
  std::printf("K %s, V %s; q4_0 is %.1f bits per element\n", kvsize::name(llama_cpp.k).data(),
              kvsize::name(llama_cpp.v).data(), kvsize::bits_per_element(kvsize::dtype::q4_0));
}
