// SPDX-License-Identifier: MIT
// One tensor of a GGUF table by name: what rules that pick tensors by name (llama.cpp's
// `-ot <pattern>=CPU`, gguf_overrides.hpp) read. Its own header so that a reader's result can hold
// the table without the GGUF reader.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>  // std::uint64_t
#include <string>   // std::string

namespace kvsize::gguf {

struct named_tensor {
  std::string name;         ///< as stored: "blk.3.ffn_up_exps.weight"
  std::uint64_t bytes = 0;  ///< exact: elements / block_elements × block_bytes
};

}  // namespace kvsize::gguf
