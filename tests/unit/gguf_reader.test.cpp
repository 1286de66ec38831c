// SPDX-License-Identifier: MIT
// kvsize::gguf: the GGUF header reader (issue 15, part 1). Real vocabulary-only headers from
// llama.cpp (configs/gguf/, SOURCES.md there) are compared key by key with an independent parser's
// reading of them (@huggingface/gguf 0.4.6, kept in tests/data/gguf-oracle/); synthetic files with
// tensor tables and every hostile class ggml's gguf_init_from_reader checks are written here
// (gguf_support.hpp). Figures: docs/research/gguf-format.md.
#include <kvsize/gguf.hpp>
#include <kvsize/kv_cache.hpp>

#include "gguf_support.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

namespace {

using kvsize::gguf::gguf_errc;
using kvsize::gguf::gguf_error;
using kvsize::gguf::gguf_type;
using kvsize_test::gguf_writer;
using kvsize_test::read_bytes;

auto source(const std::string& rel) -> std::filesystem::path { return std::filesystem::path{KVSIZE_SOURCE_DIR} / rel; }

/// The defect `bytes` must be refused with: its code, where it is, and words of the message.
void require_refused(const std::string& bytes, gguf_errc code, const std::string& words,
                     std::uint64_t offset = std::numeric_limits<std::uint64_t>::max()) {
  kvsize_test::require_gguf_refused([&] { return read_bytes(bytes); }, code, words, offset);
}

constexpr std::uint32_t f32_id = 0;
constexpr std::uint32_t q4_k_id = 12;

/// A small valid file with two tensors: 256 × 4 q4_K (4 rows × 144 B = 576 B) and 8 f32 (32 B).
auto two_tensor_file() -> gguf_writer {
  gguf_writer w = kvsize_test::llama_header("llama", 1);
  w.tensor("blk.0.attn_q.weight", {256, 4}, q4_k_id, 576).tensor("output_norm.weight", {8}, f32_id, 32);
  return w;
}

}  // namespace

TEST_CASE("GGUF: real vocabulary headers read as @huggingface/gguf reads them", "[gguf][oracle]") {
  for (const std::string name : {"ggml-vocab-gpt-2.gguf", "ggml-vocab-phi-3.gguf", "ggml-vocab-falcon.gguf"}) {
    INFO(name);
    const auto h = kvsize::gguf::load_gguf(source("configs/gguf/" + name));
    std::ifstream oracle_file(source("tests/data/gguf-oracle/" + name + ".json"));
    const auto oracle = nlohmann::json::parse(oracle_file);
    CHECK(h.version == oracle["version"].get<std::uint32_t>());
    CHECK(std::to_string(h.kv_count) == oracle["kv_count"].get<std::string>());
    CHECK(std::to_string(h.tensor_count) == oracle["tensor_count"].get<std::string>());
    CHECK(h.tensors.empty());
    // No tensors: ggml does not pad, so the data section starts at the end of the file (the
    // oracle pads to 32 regardless: docs/research/gguf-format.md §1.6).
    CHECK(h.data_offset == h.file_size);
    CHECK(h.data_offset == oracle["tensor_info_byte_range"][0].get<std::uint64_t>());
    REQUIRE(h.metadata.size() == oracle["metadata"].size());
    for (const auto& kv : h.metadata) {
      INFO(kv.key);
      REQUIRE(oracle["metadata"].contains(kv.key));
      const auto& o = oracle["metadata"][kv.key];
      const auto& v = kv.value;
      if (v.type != gguf_type::array) {
        CHECK(o["type"] == std::string(kvsize::gguf::name(v.type)));
        if (v.type == gguf_type::string) {
          CHECK(v.strings.front() == o["value"].get<std::string>());
        } else if (v.type == gguf_type::f32) {
          CHECK(v.reals.front() == o["value"].get<double>());  // both widen the same float
        } else if (v.type == gguf_type::boolean) {
          CHECK((v.integers.front() != 0) == o["value"].get<bool>());
        } else {
          CHECK(v.integers.front() == o["value"].get<std::uint64_t>());
        }
        continue;
      }
      CHECK(o["type"] == "ARRAY");
      CHECK(o["elem_type"] == std::string(kvsize::gguf::name(v.element)));
      CHECK(v.count == o["length"].get<std::uint64_t>());
      const auto& shown = o.contains("values") ? o["values"] : o["head"];
      if (!v.kept) {
        continue;  // a tokenizer array: counted and skipped
      }
      for (std::size_t i = 0; i < shown.size(); ++i) {
        if (v.element == gguf_type::string) {
          CHECK(v.strings[i] == shown[i].get<std::string>());
        } else if (v.element == gguf_type::f32) {
          CHECK(v.reals[i] == shown[i].get<double>());
        } else {
          CHECK(static_cast<std::int64_t>(v.integers[i]) == shown[i].get<std::int64_t>());
        }
      }
    }
  }
}

TEST_CASE("GGUF: a metadata-only read stops at the tokenizer and touches one buffer", "[gguf]") {
  kvsize::gguf::read_options o;
  o.metadata_only = true;
  const auto path = source("configs/gguf/ggml-vocab-gpt-2.gguf");
  const auto partial = kvsize::gguf::load_gguf(path, o);
  const auto full = kvsize::gguf::load_gguf(path);
  CHECK(partial.stopped_at != 0);
  CHECK(partial.bytes_read <= 64 * 1024);  // of 1,766,807 bytes
  CHECK(full.bytes_read < full.file_size);  // the tokenizer's large arrays are seeked past
  REQUIRE(partial.find("gpt2.block_count") != nullptr);
  CHECK(partial.find("tokenizer.ggml.tokens") == nullptr);
  // The model is the same either way, but for the vocabulary (the tokenizer's count) and weights.
  const auto a = kvsize::gguf::model_of(full, "gpt-2");
  const auto b = kvsize::gguf::model_of(partial, "gpt-2");
  CHECK(kvsize::kv_bytes_per_token(a.spec) == kvsize::kv_bytes_per_token(b.spec));
  CHECK(a.spec.vocab_size == 50'257);
  CHECK(b.spec.vocab_size == 0);  // the token list is past the stop; said so
  REQUIRE_FALSE(b.warnings.empty());
  CHECK_THAT(b.warnings.back(), Catch::Matchers::ContainsSubstring("the vocabulary size is unknown"));
  CHECK(a.weights.has_value());
  CHECK_FALSE(b.weights.has_value());
}

TEST_CASE("GGUF: the models of the real headers", "[gguf][model]") {
  struct row {
    const char* file;
    const char* arch;
    std::uint64_t kv_per_token;  // f16, Σ layers × KV heads × (key_length + value_length) × 2 B
  };
  // gpt-2: 12 × 12 × (64 + 64) × 2; phi-3: 32 × 32 × (96 + 96) × 2; falcon-7b: 32 × 1 × (64 + 64) × 2.
  for (const row r : {row{"ggml-vocab-gpt-2.gguf", "gpt2", 36'864}, row{"ggml-vocab-phi-3.gguf", "phi3", 393'216},
                      row{"ggml-vocab-falcon.gguf", "falcon", 8'192}}) {
    INFO(r.file);
    const auto g = kvsize::gguf::load_gguf_model(source(std::string("configs/gguf/") + r.file));
    CHECK(g.architecture == r.arch);
    CHECK(kvsize::kv_bytes_per_token(g.spec) == kvsize::bytes{r.kv_per_token});
    CHECK(g.spec.compute_dtype == kvsize::dtype::f16);
    REQUIRE(g.weights.has_value());
    CHECK(g.weights->tensors == 0);
  }
}

TEST_CASE("GGUF: tensors, their exact bytes and ggml's offset rule", "[gguf]") {
  const auto h = read_bytes(two_tensor_file().bytes(true, 576 + 32 + 32));
  REQUIRE(h.tensors.size() == 2);
  CHECK(h.tensors[0].size == 576);  // 4 rows × 256/256 blocks × 144 B
  CHECK(h.tensors[1].size == 32);   // 8 × 4 B
  CHECK(h.tensors[1].data_offset == 576);  // 576 is a multiple of 32: no padding between
  CHECK(h.data_offset % 32 == 0);
  CHECK(h.data_size == 608);
  CHECK(h.data_present());
  const auto w = kvsize::gguf::weights_of(h);
  CHECK(w.bytes == 608);
  CHECK(w.elements == 1'024 + 8);
  // A header-only copy (no tensor data) is read too: kvsize never reads the data.
  CHECK_FALSE(read_bytes(two_tensor_file().bytes(true, 0)).data_present());
  // general.alignment 64 moves the second tensor to 576 → 576 (already aligned) and pads the data.
  gguf_writer aligned = kvsize_test::llama_header("llama", 1);
  aligned.alignment = 64;
  aligned.kv_u32("general.alignment", 64).tensor("a", {8}, f32_id, 32).tensor("b", {8}, f32_id, 32);
  const auto ha = read_bytes(aligned.bytes());
  CHECK(ha.alignment == 64);
  CHECK(ha.tensors[1].data_offset == 64);
  CHECK(ha.data_offset % 64 == 0);
  // Version 2 reads as version 3 (the layouts are the same for little-endian files).
  gguf_writer v2(2);
  v2.kv_str("general.architecture", "llama");
  CHECK(read_bytes(v2.bytes()).version == 2);
}

TEST_CASE("GGUF hostile: the preamble", "[gguf][hostile]") {
  require_refused("GGU", gguf_errc::not_gguf, "fewer than the 4-byte magic", 0);
  require_refused("GGML\x03\0\0\0", gguf_errc::not_gguf, "got 47 47 4d 4c", 0);
  require_refused(gguf_writer(1).bytes(), gguf_errc::unsupported, "v1 is no longer supported", 4);
  require_refused(gguf_writer(4).bytes(), gguf_errc::invalid, "GGUF version 4", 4);
  require_refused(gguf_writer(0x03000000).bytes(), gguf_errc::unsupported, "big-endian", 4);
  // Counts of 2^63 (negative as ggml's int64) and of more entries than the file can hold.
  require_refused(gguf_writer().set_count(true, std::uint64_t{1} << 63U).bytes(), gguf_errc::out_of_range,
                  "the tensor count is -9223372036854775808", 8);
  require_refused(gguf_writer().set_count(false, 1'000'000).bytes(), gguf_errc::out_of_range,
                  "the key count is 1000000", 16);
}

TEST_CASE("GGUF hostile: keys and values", "[gguf][hostile]") {
  // A string of 2^40 bytes: beyond ggml's 2^30 limit, refused before anything is allocated.
  require_refused(gguf_writer().set_count(false, 1).u64(std::uint64_t{1} << 40U).raw("k").bytes(false, 16),
                  gguf_errc::out_of_range, "ggml allows at most 2^30", 24);
  // A key length the file cannot hold.
  require_refused(gguf_writer().set_count(false, 1).u64(100).raw("abc").u32(4).u32(0).bytes(),
                  gguf_errc::truncated, "the file ends");
  require_refused(gguf_writer().key("k", 13).u32(0).bytes(), gguf_errc::invalid, "13 is not a GGUF type");
  require_refused(gguf_writer().key("nested", 9).u32(9).u64(1).bytes(), gguf_errc::invalid,
                  "key \"nested\": an array of arrays");
  require_refused(gguf_writer().key("a", 9).u32(4).u64((std::uint64_t{1} << 30U) + 1).bytes(),
                  gguf_errc::out_of_range, "at most 2^30");
  require_refused(gguf_writer().key("a", 9).u32(4).u64(1000).u32(1).bytes(), gguf_errc::truncated,
                  "only 4 bytes are left");
  require_refused(gguf_writer().kv_u32("x", 1).kv_u32("x", 2).bytes(), gguf_errc::invalid,
                  "key \"x\": a duplicate key");
  require_refused(gguf_writer().kv_u32("", 1).bytes(), gguf_errc::invalid, "an empty key", 24);
  // A skipped string element longer than 2^30 (a tokenizer array past the keep limit).
  gguf_writer long_element;
  long_element.key("tokenizer.ggml.tokens", 9).u32(8).u64(5000).u64(std::uint64_t{1} << 40U);
  require_refused(long_element.bytes(false, 5000 * 8), gguf_errc::out_of_range, "a string element of");
  // general.alignment: a UINT32, nonzero, a power of two.
  require_refused(gguf_writer().kv_u32("general.alignment", 0).bytes(), gguf_errc::invalid,
                  "key \"general.alignment\": expected a nonzero power of two, got 0", 24);
  require_refused(gguf_writer().kv_u32("general.alignment", 48).bytes(), gguf_errc::invalid, "got 48");
  require_refused(gguf_writer().kv_u64("general.alignment", 32).bytes(), gguf_errc::wrong_type,
                  "expected a UINT32, got UINT64");
  CHECK(read_bytes(gguf_writer().kv_u32("general.alignment", 1).bytes()).alignment == 1);  // as ggml
}

TEST_CASE("GGUF hostile: the tensor table", "[gguf][hostile]") {
  const auto one = [](const std::string& name, std::initializer_list<std::uint64_t> ne, std::uint32_t type,
                      std::uint64_t size, std::int64_t offset = -1) {
    gguf_writer w;
    w.tensor(name, ne, type, size, offset);
    return w;
  };
  require_refused(one(std::string(64, 'n'), {8}, f32_id, 32).bytes(), gguf_errc::out_of_range,
                  "a name of 64 bytes; ggml allows at most 63", 24);
  gguf_writer dup;
  dup.tensor("t", {8}, f32_id, 32).tensor("t", {8}, f32_id, 32);
  require_refused(dup.bytes(), gguf_errc::invalid, "tensor \"t\": a duplicate tensor name");
  gguf_writer five;
  five.set_count(true, 1).str("t").u32(5);
  require_refused(five.bytes(false, 32), gguf_errc::out_of_range, "5 dimensions");
  gguf_writer negative;
  negative.set_count(true, 1).str("t").u32(1).u64(static_cast<std::uint64_t>(-4)).u32(0).u64(0);
  require_refused(negative.bytes(), gguf_errc::out_of_range, "dimension 0 is -4");
  require_refused(one("t", {8}, 43, 32).bytes(), gguf_errc::invalid, "ggml type 43 is unknown");
  require_refused(one("t", {32}, 31, 32).bytes(), gguf_errc::invalid, "ggml type 31 (q4_0_4_4) was removed");
  require_refused(one("t", {100}, q4_k_id, 144).bytes(), gguf_errc::invalid,
                  "a row of 100 values is not a whole number of q4_K blocks");
  // Elements below 2^63 whose f32 bytes pass 2^64.
  require_refused(one("t", {std::uint64_t{1} << 31U, std::uint64_t{1} << 30U, 3}, f32_id, 0).bytes(),
                  gguf_errc::out_of_range, "byte size exceeds 2^64");
  require_refused(one("t", {std::uint64_t{1} << 32U, std::uint64_t{1} << 32U}, f32_id, 0).bytes(),
                  gguf_errc::out_of_range, "exceeds 2^63 - 1");
  // Offsets: a gap, an overlap, out of order.
  gguf_writer gap;
  gap.tensor("a", {8}, f32_id, 32).tensor("b", {8}, f32_id, 32, 64);
  require_refused(gap.bytes(), gguf_errc::invalid, "tensor \"b\": data offset 64, expected 32");
  gguf_writer overlap;
  overlap.tensor("a", {8}, f32_id, 32).tensor("b", {8}, f32_id, 32, 0);
  require_refused(overlap.bytes(), gguf_errc::invalid, "data offset 0, expected 32");
  gguf_writer first_late;
  first_late.tensor("a", {8}, f32_id, 32, 32);
  require_refused(first_late.bytes(), gguf_errc::invalid, "data offset 32, expected 0");
  // The padding before the data section must exist when there are tensors.
  require_refused(one("t", {8}, f32_id, 32).bytes(false), gguf_errc::truncated, "before the padding");
}

TEST_CASE("GGUF hostile: a file cut anywhere is refused, never read past its end", "[gguf][hostile]") {
  const std::string whole = two_tensor_file().bytes();
  for (std::size_t cut = 0; cut < whole.size(); ++cut) {
    INFO("cut at " << cut);
    try {
      (void)read_bytes(whole.substr(0, cut));
      FAIL("a truncated file was accepted");
    } catch (const gguf_error& e) {
      CHECK(e.offset() <= cut);
      CHECK((e.code() == gguf_errc::truncated || e.code() == gguf_errc::not_gguf ||
             e.code() == gguf_errc::out_of_range));
    }
  }
  CHECK(read_bytes(whole).tensors.size() == 2);
}
