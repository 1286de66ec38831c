// SPDX-License-Identifier: MIT
// kvsize::hf::detail::read_capped: a stream read to its end, refused one byte past a cap (16 MiB for config.json
// and hf_quant_config.json), for inputs with no size to ask for (pipes, devices) or none to trust.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstddef>  // std::size_t
#include <istream>  // std::istream
#include <string>   // std::string

#include "error.hpp"

namespace kvsize::hf::detail {

/// Reads `in` to its end, at most `cap` bytes: a stream may be a pipe or a device with no size to
/// ask for (file_size() fails on them with "Operation not supported"), or endless (/dev/zero), so
/// it is read in pieces and refused one byte past the cap instead of filling memory.
[[nodiscard]] inline auto read_capped(std::istream& in, const std::string& file, std::size_t cap) -> std::string {
  std::string text;
  char piece[65'536];
  while (in) {
    in.read(piece, sizeof piece);
    const auto got = static_cast<std::size_t>(in.gcount());
    if (text.size() + got > cap) {
      throw config_error(config_errc::io, file, "",
                         "expected at most 16 MiB (" + std::to_string(cap) +
                             " bytes) of JSON; the input is longer, so it was not read further");
    }
    text.append(piece, got);
  }
  if (in.bad()) {
    throw config_error(config_errc::io, file, "", "error while reading the input");
  }
  return text;
}

}  // namespace kvsize::hf::detail
