// SPDX-License-Identifier: MIT
// From the bytes of a config.json to a nlohmann::json document, tolerating the quirks real
// checkpoints have and enforcing the input limits: the pre-scan (json_prescan.hpp), then the SAX
// build (json_document.hpp). Only headers under kvsize/hf include nlohmann.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <nlohmann/json.hpp>

#include "error.hpp"
#include "json_document.hpp"
#include "json_prescan.hpp"

namespace kvsize::hf::detail {

/// Parses `text` into a document; every failure is a config_error (file name added by the caller).
/// Tolerates a UTF-8 BOM, CRLF and a missing final newline (all plain JSON whitespace to nlohmann
/// once the BOM is gone), and bare Infinity/NaN (see prepare). Comments and trailing commas are
/// syntax errors, as in Python's json.loads, which is what transformers uses. So are a second BOM
/// and any byte after the document but whitespace, a NUL included (nlohmann's lexer alone takes a
/// NUL byte for the end of the input and would ignore what follows it).
[[nodiscard]] inline auto parse_json_text(std::string_view text, const parse_limits& limits,
                                          std::vector<std::string>& warnings) -> json {
  if (text.size() > limits.max_bytes) {
    fail(config_errc::out_of_range, "",
         "expected at most " + std::to_string(limits.max_bytes) + " bytes of JSON, got " + std::to_string(text.size()));
  }
  static constexpr std::string_view bom = "\xEF\xBB\xBF";
  if (text.substr(0, 3) == bom) {
    text.remove_prefix(3);
    warnings.emplace_back("the file starts with a UTF-8 byte order mark; it was skipped");
    if (text.substr(0, 3) == bom) {
      fail(config_errc::syntax, "", "syntax error at line 1, column 1: a second UTF-8 byte order mark");
    }
  }
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    fail(config_errc::syntax, "",
         "syntax error at " + line_column(text, nul) + ": a NUL byte, which JSON text may not contain");
  }
  prepared_text p = prepare(text, limits);
  const std::string_view source = p.source(text);
  document_builder builder(p.nulls, warnings);
  bool parsed = false;
  try {
    parsed = json::sax_parse(source.begin(), source.end(), &builder, json::input_format_t::json, /*strict=*/true,
                             /*ignore_comments=*/false);
  } catch (const json::exception& e) {  // not expected from the SAX parser; a last line of defence
    fail(config_errc::syntax, "", std::string("syntax error: ") + printable(e.what(), 200));
  }
  if (!parsed) {
    // error_byte is the 1-based offset of the offending byte in the parsed bytes; map it back to `text`.
    std::size_t offset = builder.error_byte() > 0 ? builder.error_byte() - 1 : 0;
    std::size_t shift = 0;
    for (const std::size_t site : p.nan_sites) {
      shift += site < offset ? 1U : 0U;
    }
    offset -= shift;
    const std::string& what = builder.error_what();
    const std::size_t col = what.find("column ");
    const std::size_t colon = col == std::string::npos ? std::string::npos : what.find(": ", col);
    std::string detail = colon == std::string::npos ? what : what.substr(colon + 2);
    if (detail.rfind("syntax error ", 0) == 0) {
      detail.erase(0, 13);
    }
    fail(config_errc::syntax, "", "syntax error at " + line_column(text, offset) + ": " + printable(detail, 200));
  }
  builder.finish();
  for (auto& w : p.warnings) {
    warnings.push_back(std::move(w));
  }
  return std::move(builder.root());
}

}  // namespace kvsize::hf::detail
