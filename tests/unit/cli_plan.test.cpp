// SPDX-License-Identifier: MIT
// The kvsize program's planner output: "plan" and "sweep" in --json, --csv rows that add up, an
// --svg chart that is well-formed XML and whose bars add up to the --json figures, the memory bar,
// and bad planner options exiting 2 with one message.
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"

using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::EndsWith;
using Catch::Matchers::StartsWith;
using kvsize::test::json_of;
using kvsize::test::run_cli;
using kvsize::test::run_result;
using kvsize::test::temp_path;
using kvsize::test::read_file;
using kvsize::test::require_refused;

namespace {

auto qwen() -> std::string { return kvsize::test::config("Qwen__Qwen2.5-1.5B.config.json"); }

/// A minimal XML well-formedness check: one root element, every start tag closed by its end tag in
/// order, attributes quoted, no stray '<' or '&' in text, entities among the five XML defines.
struct xml_element {
  std::string name;
  std::map<std::string, std::string> attributes;
  std::vector<xml_element> children;
};

class xml_checker {
 public:
  explicit xml_checker(std::string text) : text_(std::move(text)) {}

  /// The root element; throws std::runtime_error with the offset of the first defect.
  auto parse() -> xml_element {
    skip_space();
    if (text_.compare(pos_, 5, "<?xml") == 0) {
      const auto end = text_.find("?>", pos_);
      expect(end != std::string::npos, "unclosed XML declaration");
      pos_ = end + 2;
    }
    skip_space();
    xml_element root = element();
    skip_space();
    expect(pos_ == text_.size(), "content after the root element");
    return root;
  }

 private:
  void expect(bool ok, const char* what) const {
    if (!ok) {
      throw std::runtime_error(std::string{what} + " at offset " + std::to_string(pos_));
    }
  }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  static auto name_char(char c) -> bool {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == ':' || c == '.';
  }
  auto name() -> std::string {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && name_char(text_[pos_])) {
      ++pos_;
    }
    expect(pos_ > start, "expected a name");
    return text_.substr(start, pos_ - start);
  }
  void entity_text(std::size_t from, std::size_t to) const {
    for (std::size_t i = from; i < to; ++i) {
      if (text_[i] == '<') {
        throw std::runtime_error("'<' in text at offset " + std::to_string(i));
      }
      if (text_[i] == '&') {
        const std::size_t semi = text_.find(';', i);
        const std::string entity = semi == std::string::npos ? std::string{} : text_.substr(i, semi - i + 1);
        if (entity != "&amp;" && entity != "&lt;" && entity != "&gt;" && entity != "&quot;" && entity != "&apos;") {
          throw std::runtime_error("unknown entity at offset " + std::to_string(i));
        }
      }
    }
  }
  auto element() -> xml_element {
    expect(pos_ < text_.size() && text_[pos_] == '<', "expected '<'");
    ++pos_;
    xml_element e;
    e.name = name();
    while (true) {
      skip_space();
      expect(pos_ < text_.size(), "unclosed start tag");
      if (text_.compare(pos_, 2, "/>") == 0) {
        pos_ += 2;
        return e;
      }
      if (text_[pos_] == '>') {
        ++pos_;
        break;
      }
      const std::string attribute = name();
      skip_space();
      expect(pos_ < text_.size() && text_[pos_] == '=', "expected '=' after an attribute name");
      ++pos_;
      skip_space();
      expect(pos_ < text_.size() && (text_[pos_] == '"' || text_[pos_] == '\''), "unquoted attribute value");
      const char quote = text_[pos_++];
      const std::size_t end = text_.find(quote, pos_);
      expect(end != std::string::npos, "unclosed attribute value");
      entity_text(pos_, end);
      expect(e.attributes.emplace(attribute, text_.substr(pos_, end - pos_)).second, "duplicate attribute");
      pos_ = end + 1;
    }
    while (true) {
      const std::size_t lt = text_.find('<', pos_);
      expect(lt != std::string::npos, "unclosed element");
      entity_text(pos_, lt);
      pos_ = lt;
      if (text_.compare(pos_, 2, "</") == 0) {
        pos_ += 2;
        const std::string closing = name();
        expect(closing == e.name, "end tag does not match its start tag");
        skip_space();
        expect(pos_ < text_.size() && text_[pos_] == '>', "expected '>'");
        ++pos_;
        return e;
      }
      e.children.push_back(element());
    }
  }

  std::string text_;
  std::size_t pos_ = 0;
};

void collect(const xml_element& e, const std::string& cls, std::vector<const xml_element*>& out) {
  const auto it = e.attributes.find("class");
  if (it != e.attributes.end() && it->second == cls) {
    out.push_back(&e);
  }
  for (const auto& c : e.children) {
    collect(c, cls, out);
  }
}

auto u64(const std::string& text) -> std::uint64_t { return std::stoull(text); }

}  // namespace

TEST_CASE("xml_checker: accepts well-formed text and rejects the usual defects", "[cli][plan][svg]") {
  CHECK_NOTHROW(xml_checker{R"(<?xml version="1.0"?><a x="1"><b/><c>t &amp; u</c></a>)"}.parse());
  CHECK_THROWS(xml_checker{"<a><b></a></b>"}.parse());
  CHECK_THROWS(xml_checker{"<a x=1/>"}.parse());
  CHECK_THROWS(xml_checker{"<a>x < y</a>"}.parse());
  CHECK_THROWS(xml_checker{"<a>&nbsp;</a>"}.parse());
  CHECK_THROWS(xml_checker{"<a/><b/>"}.parse());
  CHECK_THROWS(xml_checker{"<a>"}.parse());
}

TEST_CASE("kvsize --json: the plan for the lesson's RTX 3060", "[cli][plan]") {
  const auto j = json_of(qwen() + " --gpu-memory 12.49GB --context 2048 --batch 160");
  const auto& p = j.at("plan");
  // Lesson 000 §6 (tests/unit/planner.test.cpp derives each figure): 160 users fit, 7,330,432 B left.
  CHECK(p.at("fits") == true);
  CHECK(p.at("limited_by").is_null());
  CHECK(p.at("users") == 160);
  CHECK(p.at("context") == 2'048);
  CHECK(p.at("weights_bytes") == 3'087'428'608ULL);
  CHECK(p.at("kv_bytes") == 9'395'240'960ULL);
  CHECK(p.at("workspace_bytes") == 0);
  CHECK(p.at("free_bytes") == 7'330'432);
  CHECK(p.at("max_users") == 160);
  CHECK(p.at("max_context") == 2'049);
  CHECK(p.at("min_tp") == 1);
  CHECK(p.at("options").at("kv_8bit").at("max_users") == 320);
  CHECK(p.at("options").at("kv_4bit").at("dtype") == "int4");
  CHECK(p.at("decode").at("bytes_per_step") == 12'482'669'568ULL);
  CHECK(p.at("decode").at("seconds_per_token").is_null());  // --gpu-memory has no bandwidth
  // The terms add up to the device.
  const auto sum = p.at("weights_bytes").get<std::uint64_t>() + p.at("kv_bytes").get<std::uint64_t>() +
                   p.at("workspace_bytes").get<std::uint64_t>() + p.at("reserve_bytes").get<std::uint64_t>() +
                   p.at("free_bytes").get<std::uint64_t>();
  CHECK(sum == p.at("device_memory_bytes").get<std::uint64_t>());
  CHECK_FALSE(j.contains("sweep"));
  // The contract's capacity block is unchanged by the plan.
  CHECK(j.at("capacity").at("max_sequences") == 160);
}

TEST_CASE("kvsize --json: --bandwidth times the decode step, with --gpu-memory or in place of --gpu's figure",
          "[cli][plan]") {
  // The lesson's 160 users on a 12.49 GB RTX 3060 read 12,482,669,568 B per decode step (the test
  // above). At 360 GB/s (3.6 × 10^11 B/s, the RTX 3060's data-sheet figure): 12,482,669,568 / 3.6e11 s.
  const auto j = json_of(qwen() + " --gpu-memory 12.49GB --context 2048 --batch 160 --bandwidth 360GB/s");
  const auto& decode = j.at("plan").at("decode");
  CHECK(decode.at("bandwidth_bytes_per_second") == 360'000'000'000ULL);
  CHECK(decode.at("seconds_per_token").get<double>() == Catch::Approx(12'482'669'568.0 / 3.6e11).epsilon(1e-12));
  // "/s" may be left out; IEC units are bytes per second too (1 TiB/s = 2^40 B/s).
  CHECK(json_of(qwen() + " --gpu-memory 24GiB --bandwidth 1TiB").at("plan").at("decode").at(
            "bandwidth_bytes_per_second") == 1'099'511'627'776ULL);
  // It replaces the catalog's figure for --gpu.
  CHECK(json_of(qwen() + " --gpu rtx-3060 --bandwidth 180GB/s").at("plan").at("decode").at(
            "bandwidth_bytes_per_second") == 180'000'000'000ULL);
  // Without a device there is no plan to time: a warning, and the sizing still succeeds.
  const auto r = run_cli(qwen() + " --json --bandwidth 1TB/s");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, ContainsSubstring("--bandwidth has no effect without --gpu or --gpu-memory"));
}

TEST_CASE("kvsize --json: --logits and --reserve are workspace terms; --reserve also leaves the KV budget",
          "[cli][plan]") {
  const auto j = json_of(qwen() + " --gpu-memory 12.49GB --context 2048 --batch 160 --logits last --reserve 512MiB");
  const auto& p = j.at("plan");
  // 160 × 303,872 B of logits and 536,870,912 B of runtime: 160 users no longer fit.
  CHECK(p.at("workspace").at("logits_bytes") == 48'619'520);
  CHECK(p.at("workspace").at("runtime_bytes") == 536'870'912);
  CHECK(p.at("fits") == false);
  CHECK(p.at("limited_by") == "memory");
  // ⌊(9,402,571,392 − 536,870,912) / (58,720,256 + 303,872)⌋ = ⌊150.2⌋ = 150.
  CHECK(p.at("max_users") == 150);
  // One budget per device (issue 12): the capacity block's budget is the plan's, after the whole
  // workspace (it used to subtract only --reserve: 9,402,571,392 − 536,870,912, a second budget).
  CHECK(j.at("capacity").at("kv_budget_bytes") == 9'402'571'392ULL - 536'870'912ULL - 48'619'520ULL);
  CHECK(j.at("capacity").at("kv_budget_bytes") == p.at("kv_budget_bytes"));
}

TEST_CASE("kvsize --csv: one row per point, every term in bytes, adding up", "[cli][plan][csv]") {
  const auto r = run_cli(qwen() + " --gpu rtx-3060 --engine vllm --sweep-context 1k:8k --sweep-batch 16:64 --csv");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::istringstream lines(r.out);
  std::string header;
  std::getline(lines, header);
  CHECK_THAT(header, StartsWith("engine,device_memory_bytes,tp,pp,context,users,weights_bytes,kv_bytes"));
  std::vector<std::string> columns;
  {
    std::istringstream h(header);
    for (std::string c; std::getline(h, c, ',');) {
      columns.push_back(c);
    }
  }
  const auto index = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(columns.begin(), columns.end(), name) - columns.begin());
  };
  std::vector<std::pair<std::uint64_t, std::uint64_t>> points;
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> cells;
    std::istringstream l(line);
    for (std::string c; std::getline(l, c, ',');) {
      cells.push_back(c);
    }
    if (line.back() == ',') {
      cells.emplace_back();
    }
    REQUIRE(cells.size() == columns.size());
    const auto at = [&](const std::string& name) { return u64(cells[index(name)]); };
    CHECK(cells[0] == "vllm");
    points.emplace_back(at("context"), at("users"));
    // vLLM's profile peaks in one phase at a time: the forward pass, or the logits and the sampler.
    CHECK(at("workspace_bytes") == std::max(at("activations_bytes"), at("logits_bytes") + at("sampler_bytes")) +
                                       at("runtime_bytes") + at("non_torch_bytes") + at("buffers_bytes"));
    CHECK(at("needed_bytes") == at("weights_bytes") + at("kv_bytes") + at("workspace_bytes") + at("reserve_bytes"));
    CHECK(at("runtime_bytes") == 0);               // vLLM subtracts no fixed buffer
    CHECK(at("non_torch_bytes") == 150'994'944);  // 144 MiB at tp 1 (vllm_startup.hpp)
    const bool fits = cells[index("fits")] == "true";
    CHECK(fits == (at("max_users_at_context") >= at("users")));
    if (fits) {
      CHECK(at("needed_bytes") + at("free_bytes") == at("device_memory_bytes"));
    }
  }
  // 1k = 1,024 tokens: 1,024, 2,048, 4,096, 8,192 × 16, 32, 64 users.
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> expected{
      {1'024, 16}, {1'024, 32}, {1'024, 64}, {2'048, 16}, {2'048, 32}, {2'048, 64},
      {4'096, 16}, {4'096, 32}, {4'096, 64}, {8'192, 16}, {8'192, 32}, {8'192, 64}};
  CHECK(points == expected);
}

TEST_CASE("kvsize --svg: well-formed XML whose bars add up to the --json figures", "[cli][plan][svg]") {
  for (const std::string engine : {"exact", "vllm", "llama.cpp"}) {
    INFO(engine);
    const auto svg_path = temp_path(".svg");
    const auto j = json_of(qwen() + " --gpu rtx-3060 --batch 32 --engine " + engine + " --sweep-context 1k:100k --svg '" +
                           svg_path.string() + "'");
    const std::string svg = read_file(svg_path);
    std::filesystem::remove(svg_path);
    REQUIRE_FALSE(svg.empty());
    xml_element root;
    REQUIRE_NOTHROW(root = xml_checker{svg}.parse());
    CHECK(root.name == "svg");
    CHECK(root.attributes.at("xmlns") == "http://www.w3.org/2000/svg");

    // The capacity line is the device's memory.
    std::vector<const xml_element*> capacity;
    collect(root, "capacity", capacity);
    REQUIRE(capacity.size() == 1);
    CHECK(u64(capacity[0]->attributes.at("data-bytes")) == j.at("plan").at("device_memory_bytes").get<std::uint64_t>());

    // One bar per swept context: 1,024 … 65,536 and 102,400 (100k = 102,400 tokens).
    std::vector<const xml_element*> bars;
    collect(root, "point", bars);
    const auto& points = j.at("sweep").at("points");
    REQUIRE(bars.size() == points.size());
    REQUIRE(bars.size() == 8);
    CHECK(points.back().at("context") == 102'400);
    for (std::size_t i = 0; i < bars.size(); ++i) {
      const auto& bar = *bars[i];
      const auto& point = points[i];
      CHECK(u64(bar.attributes.at("data-context")) == point.at("context").get<std::uint64_t>());
      CHECK(u64(bar.attributes.at("data-users")) == 32);
      std::map<std::string, std::uint64_t> terms;
      std::uint64_t total = 0;
      for (const auto& segment : bar.children) {
        if (segment.name == "rect") {
          terms[segment.attributes.at("data-term")] = u64(segment.attributes.at("data-bytes"));
          total += u64(segment.attributes.at("data-bytes"));
        }
      }
      CHECK(terms.size() == 4);
      CHECK(terms["weights"] == point.at("weights_bytes").get<std::uint64_t>());
      CHECK(terms["kv"] == point.at("kv_bytes").get<std::uint64_t>());
      CHECK(terms["workspace"] == point.at("workspace_bytes").get<std::uint64_t>());
      CHECK(terms["reserve"] == point.at("reserve_bytes").get<std::uint64_t>());
      CHECK(total == point.at("needed_bytes").get<std::uint64_t>());
      CHECK(u64(bar.attributes.at("data-needed")) == total);
      CHECK((bar.attributes.at("data-fits") == "true") == point.at("fits").get<bool>());
    }
  }
}

TEST_CASE("kvsize: the human report shows the plan with a memory bar", "[cli][plan]") {
  const auto r = run_cli(qwen() + " --gpu rtx-3060 --context 2048 --batch 160 --engine vllm --shared-prefix 512");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, ContainsSubstring("Plan: 160 users × 2,048 tokens on NVIDIA GeForce RTX 3060"));
  CHECK_THAT(r.out, ContainsSubstring("[WWWW"));
  CHECK_THAT(r.out, ContainsSubstring("W weights  K KV cache  a workspace  r engine reserve  . free"));
  CHECK_THAT(r.out, ContainsSubstring("sampler warm-up"));
  CHECK_THAT(r.out, ContainsSubstring("8-bit KV cache (fp8_e4m3)"));
  CHECK_THAT(r.out, ContainsSubstring("prefix sharing (512 tokens)"));
  CHECK_THAT(r.out, ContainsSubstring("time per output token (lower bound)"));
  CHECK_THAT(r.out, ContainsSubstring("at 360 GB/s"));
}

TEST_CASE("kvsize: bad planner options exit 2 with one message", "[cli][plan]") {
  struct bad_case {
    std::string args;
    std::string message_part;
  };
  const bad_case cases[] = {
      {qwen() + " --gpu rtx-3060 --sweep-context 8k:1k", "--sweep-context: '8k:1k' runs backwards"},
      {qwen() + " --gpu rtx-3060 --sweep-context 1k", "--sweep-context: '1k' is not a range"},
      {qwen() + " --gpu rtx-3060 --sweep-batch 0:4", "--sweep-batch: '0:4' is not a range"},
      {qwen() + " --gpu rtx-3060 --sweep-context 1q:2k", "--sweep-context"},
      {qwen() + " --csv", "--csv plans for a device"},
      {qwen() + " --svg /tmp/never.svg", "--svg plans for a device"},
      {qwen() + " --gpu rtx-3060 --json --csv", "pass one of them"},
      {qwen() + " --gpu rtx-3060 --logits some", "--logits: expected all, last or none"},
      {qwen() + " --gpu rtx-3060 --reserve 12gigs", "--reserve: '12gigs' is not a size"},
      {qwen() + " --gpu rtx-3060 --prefill-chunk 0", "--prefill-chunk"},
      {qwen() + " --gpu rtx-3060 --svg /nonexistent-dir/chart.svg", "--svg: cannot write"},
      {qwen() + " --gpu rtx-3060 --bandwidth fast", "--bandwidth: 'fast' is not a positive rate"},
      {qwen() + " --gpu rtx-3060 --bandwidth 0GB/s", "--bandwidth: '0GB/s' is not a positive rate"},
      {qwen() + " --gpu rtx-3060 --bandwidth 360GiB/ms", "--bandwidth: '360GiB/ms'"},
  };
  for (const auto& c : cases) {
    INFO(c.args);
    const auto r = run_cli(c.args);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, StartsWith("kvsize: "));
    CHECK_THAT(r.err, ContainsSubstring(c.message_part));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

TEST_CASE("kvsize --json: one KV budget per device: capacity, plan and log lines agree", "[cli][plan]") {
  // README's RTX 3060 vLLM example: the capacity block used to print 144 sequences in device memory
  // minus weights while the plan, after vLLM's workspace, admitted 129.
  for (const std::string engine : {"exact", "vllm", "sglang", "llama.cpp", "trtllm", "transformers"}) {
    CAPTURE(engine);
    const auto j = json_of(qwen() + " --gpu rtx-3060 --context 2048 --batch 160 --engine " + engine);
    const auto& c = j.at("capacity");
    const auto& p = j.at("plan");
    CHECK(c.at("kv_budget_bytes") == p.at("kv_budget_bytes"));
    if (engine != "llama.cpp") {  // llama.cpp's plan gives every one of 160 slots 2,048 cells
      CHECK(c.at("max_sequences") == p.at("admitted"));
    }
  }
  const auto vllm = json_of(qwen() + " --gpu rtx-3060 --context 2048 --batch 160 --engine vllm");
  // --gpu budgets from the total CUDA gives the process (gpus.hpp process_visible_memory: 12,349,876,469 B
  // for an RTX 3060, below nvidia-smi's 12,288 MiB by the driver's reservation); 0.9 of it
  // (11,114,888,822 B), less the weights (3,087,428,608 B) and vLLM 0.19's start-up workspace
  // (817,174,528 B: the sampler phase 632,625,152 B, non-torch 150,994,944 B, the rotary cache
  // 33,554,432 B; tests/unit/planner.test.cpp derives each), is 7,210,285,686 B; / 58,720,256 B per
  // sequence of 2,048 tokens = 122.
  CHECK(vllm.at("budget").at("device_bytes") == 12'349'876'469ULL);
  CHECK(vllm.at("budget").at("kv_bytes") == 7'210'285'686ULL);
  CHECK(vllm.at("budget").at("engine_version") == "0.19");
  CHECK(vllm.at("capacity").at("max_sequences") == 122);
  CHECK(vllm.at("plan").at("max_users") == 122);
  // vLLM's "Available KV cache memory" line is the same budget.
  const double gib = static_cast<double>(vllm.at("plan").at("kv_budget_bytes").get<std::uint64_t>()) / 1'073'741'824.0;
  bool logged = false;
  for (const auto& line : vllm.at("log_lines")) {
    if (line.get<std::string>().starts_with("Available KV cache memory: ")) {
      logged = true;
      CHECK(line.get<std::string>() == fmt::format("Available KV cache memory: {:.2f} GiB", gib));
    }
  }
  CHECK(logged);
}

TEST_CASE("kvsize --engine-version: vLLM's release picks its start-up rules", "[cli][plan]") {
  const std::string llama = "'" + std::string{KVSIZE_SOURCE_DIR} +
                            "/configs/meta-llama__Llama-3.1-8B.config.json' --gpu-memory 79.18GiB --context 16000";
  const std::string llama_vllm = llama + " --engine vllm";
  // 0.11's sort sampler holds 37 B per element of 1,024 × 128,256, 0.19's Triton path 12 B and its
  // scratch: docs/research/vllm-budget.md (0.11's log for this model: 51.38 GiB of KV).
  const auto v11 = json_of(llama_vllm + " --engine-version 0.11");
  const auto v19 = json_of(llama_vllm + " --engine-version v0.19.1");
  CHECK(v11.at("budget").at("engine_version") == "0.11");
  CHECK(v19.at("budget").at("engine_version") == "0.19");
  CHECK(v11.at("kv_budget_bytes").get<std::uint64_t>() < v19.at("kv_budget_bytes").get<std::uint64_t>());
  const double kv11 = static_cast<double>(v11.at("kv_budget_bytes").get<std::uint64_t>()) / 1'073'741'824.0;
  CHECK(kv11 < 51.38);
  CHECK(kv11 > 51.38 * 0.99);
  // The default is 0.19, and the verdict names it.
  CHECK(json_of(llama_vllm).at("budget").at("engine_version") == "0.19");
  CHECK_THAT(run_cli(llama_vllm).out, ContainsSubstring("0.19 at gpu_memory_utilization 0.9"));
  // Releases not modelled, and text that is no release: exit 2, the option named, nothing on stdout.
  for (const std::string bad : {"0.23", "0.25.1", "0.9.2", "1.0", "latest", "0.99999"}) {
    CAPTURE(bad);
    require_refused(run_cli(llama_vllm + " --engine-version " + bad), "--engine-version");
  }
  // Another engine: a warning, not an error.
  const auto other = run_cli(llama + " --engine-version 0.19 --engine llama.cpp");
  CHECK(other.exit_code == 0);
  CHECK_THAT(other.err, ContainsSubstring("--engine-version has no effect with --engine llama.cpp"));
}

TEST_CASE("kvsize --engine-version 0.20: the CUDA-graph estimate, from --enforce-eager or a log", "[cli][plan]") {
  const std::string llama = "'" + std::string{KVSIZE_SOURCE_DIR} +
                            "/configs/meta-llama__Llama-3.1-8B.config.json' --gpu-memory 79.18GiB --context 16000";
  const std::string v20 = llama + " --engine vllm --engine-version 0.20";
  // With a device and no way to know the estimate: exit 2 naming the options that give it.
  for (const std::string release : {"0.20", "v0.20.0", "0.20.2", "0.21", "0.21.0", "0.22"}) {
    CAPTURE(release);
    const auto r = run_cli(llama + " --engine vllm --engine-version " + release);
    require_refused(r, "--enforce-eager");
    CHECK_THAT(r.err, ContainsSubstring("--cuda-graph-memory"));
  }
  // Without a device there is no budget, and nothing to refuse.
  const std::string no_device = "'" + std::string{KVSIZE_SOURCE_DIR} +
                                "/configs/meta-llama__Llama-3.1-8B.config.json' --engine vllm --engine-version 0.20";
  CHECK(run_cli(no_device).exit_code == 0);
  // --enforce-eager: 0.19's terms at 0.20's default fraction, 0.92 (PR #38284).
  const auto eager = json_of(v20 + " --enforce-eager");
  CHECK(eager.at("budget").at("engine_version") == "0.20");
  CHECK(eager.at("budget").at("fraction").get<double>() == 0.92);
  CHECK(eager.at("budget").at("cuda_graphs_bytes") == 0);
  const auto v19 = json_of(llama + " --engine vllm --gpu-memory-utilization 0.92");
  CHECK(eager.at("kv_budget_bytes") == v19.at("kv_budget_bytes"));
  // 0.21 keeps 0.20's rule (vllm_startup.hpp: the budget's text is unchanged, and its two sampler warm-ups
  // run one after the other at 0.19's 12 B an element), under its own name.
  const std::string v21 = llama + " --engine vllm --engine-version 0.21";
  const auto eager21 = json_of(v21 + " --enforce-eager");
  CHECK(eager21.at("budget").at("engine_version") == "0.21");
  CHECK(eager21.at("kv_budget_bytes") == eager.at("kv_budget_bytes"));
  CHECK(json_of(v21 + " --cuda-graph-memory 0.55GiB").at("kv_budget_bytes") ==
        json_of(v20 + " --cuda-graph-memory 0.55GiB").at("kv_budget_bytes"));
  CHECK_THAT(run_cli(v21).err, ContainsSubstring("vLLM 0.21 subtracts"));
  const auto eager_text = run_cli(v20 + " --enforce-eager");
  CHECK_THAT(eager_text.out, ContainsSubstring("0.20 at gpu_memory_utilization 0.92"));
  CHECK_THAT(eager_text.out, ContainsSubstring("--enforce-eager"));  // in the engine's command line
  // --cuda-graph-memory: the log's figure comes off the budget, and is a term of the budget and plan.
  const auto given = json_of(v20 + " --cuda-graph-memory 0.55GiB");
  const std::uint64_t estimate = 1'073'741'824ULL * 55 / 100;
  CHECK(given.at("budget").at("cuda_graphs_bytes") == estimate);
  CHECK(given.at("kv_budget_bytes").get<std::uint64_t>() + estimate == eager.at("kv_budget_bytes").get<std::uint64_t>());
  CHECK(given.at("plan").at("cuda_graphs_bytes") == estimate);
  const auto given_text = run_cli(v20 + " --cuda-graph-memory 0.55GiB");
  CHECK_THAT(given_text.out, ContainsSubstring("Estimated CUDA graph memory: 0.55 GiB total"));
  CHECK_THAT(run_cli(v20 + " --cuda-graph-memory 0.55GiB --csv").out, ContainsSubstring(",cuda_graphs_bytes"));
  // 0 (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0) is a figure too.
  CHECK(json_of(v20 + " --cuda-graph-memory 0").at("kv_budget_bytes") == eager.at("kv_budget_bytes"));
  // An AMD GPU: ROCm skips the probe.
  const std::string mi300x = "'" + std::string{KVSIZE_SOURCE_DIR} +
                             "/configs/meta-llama__Llama-3.1-8B.config.json' --gpu mi300x --engine vllm "
                             "--engine-version 0.20";
  CHECK(json_of(mi300x).at("budget").at("cuda_graphs_bytes") == 0);
  // Bad figures: exit 2 naming the option.
  for (const std::string bad : {"-1GiB", "nan", "lots", "1e400GiB"}) {
    CAPTURE(bad);
    require_refused(run_cli(v20 + " --cuda-graph-memory " + bad), "--cuda-graph-memory");
  }
  // Before 0.20 the figure is not subtracted (a warning says so); another engine: no effect.
  const auto old = run_cli(llama + " --engine vllm --cuda-graph-memory 0.55GiB");
  CHECK(old.exit_code == 0);
  CHECK_THAT(old.err, ContainsSubstring("--cuda-graph-memory has no effect under vLLM 0.19"));
  const auto other = run_cli(llama + " --engine sglang --enforce-eager --cuda-graph-memory 1GiB");
  CHECK(other.exit_code == 0);
  CHECK_THAT(other.err, ContainsSubstring("--enforce-eager has no effect with --engine sglang"));
  CHECK_THAT(other.err, ContainsSubstring("--cuda-graph-memory has no effect with --engine sglang"));
}

TEST_CASE("kvsize --engine-version 0.22: Model Runner V2 for a dense Qwen3ForCausalLM", "[cli][plan]") {
  // engines/vllm_runner_v2.hpp; docs/research/vllm-model-runner-v2.md. Qwen3-8B on an H100 80 GB (T 8192,
  // R 1024): V2's profile peak is its sampler phase, 1,010,823,168 B, and it subtracts no CUDA-graph estimate.
  const std::string qwen3 = "'" + std::string{KVSIZE_SOURCE_DIR} +
                            "/configs/Qwen__Qwen3-8B.config.json' --gpu-memory 79.18GiB --context 16000 --engine vllm "
                            "--engine-version 0.22";
  const auto v2 = json_of(qwen3);
  CHECK(v2.at("budget").at("engine_version") == "0.22");
  CHECK(v2.at("budget").at("cuda_graphs_bytes") == 0);
  CHECK(v2.at("budget").at("fraction").get<double>() == 0.92);
  CHECK(v2.at("budget").at("activation_peak_bytes") == 1'010'823'168ULL);
  CHECK(v2.at("budget").at("model_runner") == "v2");
  CHECK_THAT(run_cli(qwen3).out, ContainsSubstring("Model Runner V2"));
  // vLLM's default choice: the printed command sets no runner.
  const auto command_of = [](const nlohmann::json& j) { return j.at("plan").at("command_line").get<std::string>(); };
  CHECK(command_of(v2).starts_with("vllm serve <model> --max-model-len 16000"));
  // A reasoning parser (vLLM's flag) or --model-runner v1 sends it to V1, which needs the graph estimate.
  require_refused(run_cli(qwen3 + " --reasoning-parser qwen3"), "--enforce-eager");
  require_refused(run_cli(qwen3 + " --model-runner v1"), "--enforce-eager");
  const auto v1 = json_of(qwen3 + " --model-runner v1 --enforce-eager");
  CHECK(v1.at("kv_budget_bytes").get<std::uint64_t>() < v2.at("kv_budget_bytes").get<std::uint64_t>());
  CHECK(v1.at("budget").at("model_runner") == "v1");
  // The command that realises the plan runs the runner that was sized: the variable set where the runner
  // was forced (vllm/envs.py VLLM_USE_V2_MODEL_RUNNER), the reasoning parser passed on as typed.
  CHECK(command_of(v1).starts_with("VLLM_USE_V2_MODEL_RUNNER=0 vllm serve <model> "));
  const auto parsed = json_of(qwen3 + " --reasoning-parser qwen3 --enforce-eager");
  CHECK(parsed.at("budget").at("model_runner") == "v1");
  CHECK(command_of(parsed).starts_with("vllm serve <model> "));
  CHECK_THAT(command_of(parsed), EndsWith("--enforce-eager --reasoning-parser qwen3"));
  CHECK_THAT(run_cli(qwen3 + " --reasoning-parser deepseek_r1 --enforce-eager").out,
             ContainsSubstring("--reasoning-parser deepseek_r1"));
  // A name a shell would split is quoted; an empty one, or one with a control character, is refused.
  CHECK_THAT(command_of(json_of(qwen3 + " --reasoning-parser \"my parser's\" --enforce-eager")),
             EndsWith("--reasoning-parser 'my parser'\\''s'"));
  require_refused(run_cli(qwen3 + " --reasoning-parser ''"), "--reasoning-parser");
  require_refused(run_cli(qwen3 + " --reasoning-parser \"$(printf 'a\\tb')\""), "--reasoning-parser");
  // On V2 a given graph estimate changes nothing, and says so.
  const auto given = run_cli(qwen3 + " --cuda-graph-memory 0.55GiB");
  CHECK(given.exit_code == 0);
  CHECK_THAT(given.err, ContainsSubstring("--cuda-graph-memory has no effect on vLLM 0.22's Model Runner V2"));
  // A MoE (Qwen3MoeForCausalLM) stays on V1 unless forced; a bad runner name is refused.
  const std::string moe = "'" + std::string{KVSIZE_SOURCE_DIR} +
                          "/configs/Qwen__Qwen3-30B-A3B.config.json' --gpu-memory 79.18GiB --engine vllm "
                          "--engine-version 0.22";
  require_refused(run_cli(moe), "--enforce-eager");
  CHECK(run_cli(moe + " --model-runner v2").exit_code == 0);
  CHECK(command_of(json_of(moe + " --model-runner v2")).starts_with("VLLM_USE_V2_MODEL_RUNNER=1 vllm serve <model> "));
  require_refused(run_cli(qwen3 + " --model-runner v3"), "--model-runner");
  const std::string qwen3_alone = "'" + std::string{KVSIZE_SOURCE_DIR} + "/configs/Qwen__Qwen3-8B.config.json'";
  const auto other = run_cli(qwen3_alone + " --engine sglang --model-runner v2 --reasoning-parser qwen3");
  CHECK(other.exit_code == 0);
  CHECK_THAT(other.err, ContainsSubstring("--model-runner has no effect with --engine sglang"));
  CHECK_THAT(other.err, ContainsSubstring("--reasoning-parser has no effect with --engine sglang"));
  const auto older = run_cli(qwen3_alone + " --engine vllm --model-runner v2");
  CHECK(older.exit_code == 0);
  CHECK_THAT(older.err, ContainsSubstring("--model-runner has no effect under vLLM 0.19"));
  const auto older_json =
      json_of(qwen3_alone + " --engine vllm --model-runner v2 --reasoning-parser qwen3 --gpu-memory 79.18GiB");
  CHECK(older_json.at("budget").at("model_runner").is_null());
  CHECK(command_of(older_json).starts_with("vllm serve <model> "));
  // Before 0.22 the parser decides nothing kvsize sizes: not in the printed line (vLLM would warn it is unused).
  CHECK(command_of(older_json).find("--reasoning-parser") == std::string::npos);
  // Forced onto V2, what vLLM's _validate_v2_model_runner refuses at start-up: exit 2 naming the option,
  // with or without a device.
  const std::string next = "'" + std::string{KVSIZE_SOURCE_DIR} +
                           "/configs/Qwen__Qwen3-Next-80B-A3B-Thinking.config.json' --engine vllm --engine-version 0.22 "
                           "--model-runner v2";
  require_refused(run_cli(next), "--model-runner");
  require_refused(run_cli(next + " --gpu-memory 79.18GiB"), "--model-runner");
  require_refused(run_cli(qwen3 + " --model-runner v2 --reasoning-parser qwen3"), "--model-runner");
  // A model folder (config.json beside its safetensors) is the same checkpoint: V2 too.
  const auto folder = kvsize::test::temp_path("-qwen3");
  std::filesystem::create_directories(folder);
  std::filesystem::copy_file(std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs" / "Qwen__Qwen3-8B.config.json",
                             folder / "config.json");
  {
    const std::string header = R"({"lm_head.weight":{"dtype":"BF16","shape":[1,1],"data_offsets":[0,2]}})";
    std::ofstream st(folder / "model.safetensors", std::ios::binary);
    const std::uint64_t n = header.size();
    for (int i = 0; i < 8; ++i) {
      st.put(static_cast<char>((n >> (8 * i)) & 0xFFU));
    }
    st << header << std::string(2, '\0');
  }
  const auto from_folder = json_of("'" + folder.string() + "' --gpu-memory 79.18GiB --context 16000 --engine vllm "
                                   "--engine-version 0.22");
  CHECK(from_folder.at("budget").at("cuda_graphs_bytes") == 0);
  CHECK(from_folder.at("budget").at("activation_peak_bytes") == 1'010'823'168ULL);
  // vLLM looks for Qwen3ForCausalLM in every entry of `architectures`, not only the first.
  {
    std::ifstream in(folder / "config.json");
    auto config = nlohmann::json::parse(in);
    config["architectures"] = nlohmann::json::array({"Qwen3Model", "Qwen3ForCausalLM"});
    std::ofstream(folder / "second.json") << config.dump();
  }
  const auto second = json_of("'" + (folder / "second.json").string() +
                              "' --gpu-memory 79.18GiB --context 16000 --engine vllm --engine-version 0.22");
  CHECK(second.at("budget").at("model_runner") == "v2");
  // A quantized checkpoint stays on V1 (ModelConfig.is_quantized), even one whose quantization_config kvsize
  // cannot read (its weights are then unknown, so only --kv-memory sizes it: the report names no V2).
  const auto with_quantization = [&](const char* name, const nlohmann::json& quantization) {
    std::ifstream in(folder / "config.json");
    auto config = nlohmann::json::parse(in);
    config["quantization_config"] = quantization;
    std::ofstream(folder / name) << config.dump();
    return "'" + (folder / name).string() + "' --context 16000 --engine vllm --engine-version 0.22";
  };
  const std::string fp8 =
      with_quantization("fp8.json", {{"quant_method", "fp8"}, {"activation_scheme", "dynamic"}}) + " --gpu-memory 79.18GiB";
  require_refused(run_cli(fp8), "--enforce-eager");
  CHECK(json_of(fp8 + " --enforce-eager").at("budget").at("model_runner") == "v1");
  const std::string unreadable = with_quantization("unreadable.json", 5) + " --kv-memory 10GiB";
  CHECK_THAT(run_cli(qwen3_alone + " --engine vllm --engine-version 0.22 --kv-memory 10GiB").out,
             ContainsSubstring("Model Runner V2"));
  const auto unreadable_run = run_cli(unreadable);
  CHECK(unreadable_run.exit_code == 0);
  CHECK_FALSE(unreadable_run.out.find("Model Runner V2") != std::string::npos);
  std::filesystem::remove_all(folder);
}

TEST_CASE("kvsize --enable-prefix-caching: vLLM's Mamba cache mode for a hybrid model", "[cli][plan]") {
  const std::string dir = "'" + std::string{KVSIZE_SOURCE_DIR} + "/configs/";
  // Qwen3.5-35B-A3B at 262,144 tokens on 55.72 GiB of KV under 0.18 (the public log in
  // tests/unit/engines/vllm_prefix_caching.test.cpp): 10.85x with the flag (mode align), 10.98x without.
  const std::string q35 = dir + "Qwen__Qwen3.5-35B-A3B.config.json' --engine vllm --engine-version 0.18 "
                                "--context 262144 --kv-memory 55.72GiB";
  const auto with = run_cli(q35 + " --enable-prefix-caching");
  CHECK(with.exit_code == 0);
  CHECK_THAT(with.out, ContainsSubstring("Maximum concurrency for 262,144 tokens per request: 10.85x"));
  CHECK_THAT(with.out, ContainsSubstring("129,761,280 B): 2 pages a request"));  // 30 × 2 × 1,056 × 2,048 B
  CHECK(json_of(q35 + " --enable-prefix-caching").at("state_pages_per_request") == 2);
  CHECK(json_of(q35).at("state_pages_per_request") == 1);
  CHECK_THAT(run_cli(q35).out, ContainsSubstring("Maximum concurrency for 262,144 tokens per request: 10.98x"));
  // The engine's command line carries the flag.
  const std::string q35_plan = dir + "Qwen__Qwen3.5-35B-A3B.config.json' --engine vllm --gpu h200 --context 32768";
  CHECK_THAT(run_cli(q35_plan + " --enable-prefix-caching --csv").out, ContainsSubstring(",state_pages_per_request,"));
  CHECK_THAT(run_cli(q35_plan + " --enable-prefix-caching").out, ContainsSubstring("--enable-prefix-caching"));
  CHECK_THAT(run_cli(q35_plan + " --no-enable-prefix-caching").out, ContainsSubstring("--no-enable-prefix-caching"));
  // A Mamba2 model with the flag: vLLM keeps a state per block, not modelled: exit 2, the flag named.
  const auto nano = run_cli(dir + "nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.config.json' --engine vllm "
                                  "--enable-prefix-caching");
  CHECK(nano.exit_code == 2);
  CHECK(nano.out.empty());
  CHECK_THAT(nano.err, ContainsSubstring("--enable-prefix-caching"));
  // Both flags, or false given to either (vLLM's flags take no value): a usage error; another engine: a warning.
  for (const std::string bad : {" --enable-prefix-caching --no-enable-prefix-caching", " --enable-prefix-caching=false",
                                " --no-enable-prefix-caching=false"}) {
    CAPTURE(bad);
    const auto r = run_cli(q35 + bad);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, ContainsSubstring("prefix-caching"));
  }
  // A value given to a flag says what to type instead.
  CHECK_THAT(run_cli(q35 + " --enable-prefix-caching=false").err,
             ContainsSubstring("--enable-prefix-caching takes no value (as in vLLM): give the flag alone; for no "
                               "prefix caching pass --no-enable-prefix-caching"));
  CHECK_THAT(run_cli(q35 + " --enforce-eager=0").err, ContainsSubstring("--enforce-eager takes no value"));
  const auto other = run_cli(dir + "Qwen__Qwen3.5-35B-A3B.config.json' --engine sglang --enable-prefix-caching");
  CHECK(other.exit_code == 0);
  CHECK_THAT(other.err, ContainsSubstring("--enable-prefix-caching has no effect with --engine sglang"));
}

TEST_CASE("kvsize --engine-version: SGLang's release picks its default mem_fraction_static rule", "[cli][plan]") {
  // Llama-3.1-8B on an H100 80 GB (nvidia-smi 81,559 MiB, which SGLang's rule reads) at tp 1
  // (docs/research/sglang-fraction-history.md): 0.5.2 (rule E) reserves 10 GiB → 0.874; 0.5.9 (G)
  // 13,440 MiB → 0.835; 0.5.10+ (H) add 58 prefill graphs × 8 MiB → 0.830 (the default, 0.5.15+);
  // 0.4.x (A) 0.88. With --gpu-memory (no catalog entry) the rule reads the figure given: 80 GiB is
  // 81,920 MiB → round(68,016 / 81,920, 3) = 0.830.
  const std::string config = "'" + std::string{KVSIZE_SOURCE_DIR} + "/configs/meta-llama__Llama-3.1-8B.config.json'";
  const std::string llama = config + " --gpu h100-80gb --engine sglang";
  const std::vector<std::tuple<std::string, std::string, double>> rows{
      {"", "0.5.15-0.5.19", 0.830},
      {" --engine-version 0.5.2", "0.4.7.post1-0.5.3rc1", 0.874},
      {" --engine-version v0.5.9", "0.5.4.post1-0.5.9", 0.835},
      {" --engine-version 0.5.12", "0.5.10rc0-0.5.14", 0.830},
      {" --engine-version 0.4.3.post2", "0.4.0-0.4.5.post2", 0.88},
  };
  for (const auto& [flag, name, fraction] : rows) {
    CAPTURE(flag);
    const auto j = json_of(llama + flag);
    CHECK(j.at("budget").at("engine_version") == name);
    CHECK(j.at("budget").at("fraction").get<double>() == fraction);
  }
  CHECK(json_of(config + " --gpu-memory 80GiB --engine sglang").at("budget").at("fraction").get<double>() == 0.830);
  // An MLA model with DSA (DeepSeek-V3.2, 8 × H100): 0.5.15+ reserve 1.5 GiB for its prefill graphs:
  // 512 + 12,288 + 1,024 + 1,024 + 1,536 = 16,384 MiB → 0.799. Kimi-K2 (MLA without DSA) has none in
  // 0.5.15 – 0.5.17 (their "MLA attention (non-DSA)" rule turns the graphs off): 14,848 MiB → 0.818; 0.5.10 –
  // 0.5.14 and, the rule dropped, 0.5.18+ (the default rule's newest release, 0.5.19) reserve it → 0.799.
  const std::string dir = "'" + std::string{KVSIZE_SOURCE_DIR} + "/configs/";
  const std::string v32 = dir + "deepseek-ai__DeepSeek-V3.2.config.json' --gpu h100-80gb --engine sglang --tp 8";
  const std::string k2 = dir + "moonshotai__Kimi-K2-Instruct.config.json' --gpu h100-80gb --engine sglang --tp 8";
  CHECK(json_of(v32).at("budget").at("fraction").get<double>() == 0.799);
  CHECK(json_of(k2).at("budget").at("fraction").get<double>() == 0.799);
  CHECK(json_of(k2 + " --engine-version 0.5.17").at("budget").at("fraction").get<double>() == 0.818);
  CHECK(json_of(k2 + " --engine-version 0.5.18").at("budget").at("fraction").get<double>() == 0.799);
  CHECK(json_of(k2 + " --engine-version 0.5.14").at("budget").at("fraction").get<double>() == 0.799);
  // Every place the text report names the fraction says the model's (the fit's rule), not the rule of
  // options that do not know the model is MLA: the verdict, the command line and the reserve row.
  // DeepSeek-R1 (MLA without DSA) fits 8 × H200 (143,771 MiB): 14,848 + 1,536 MiB → 0.886; as a non-MLA model it
  // would get 0.893.
  const std::string r1 = dir + "deepseek-ai__DeepSeek-R1.config.json' --gpu h200 --engine sglang --tp 8";
  const double r1_fraction = json_of(r1).at("budget").at("fraction").get<double>();
  CHECK(r1_fraction == 0.886);
  const auto r1_text = run_cli(r1 + " --context 8192 --batch 4");
  REQUIRE(r1_text.exit_code == 0);
  CHECK_THAT(r1_text.out, ContainsSubstring("at mem_fraction_static 0.886"));
  CHECK_THAT(r1_text.out, ContainsSubstring("--mem-fraction-static 0.886"));
  CHECK_THAT(r1_text.out, ContainsSubstring("1 − mem_fraction_static 0.886"));
  CHECK_THAT(r1_text.out, !ContainsSubstring("0.893"));
  for (const std::string bad : {"0.4.6", "0.4.11", "0.5.20", "0.6.0", "0.5", "0.05.10", "latest", "0.19"}) {
    CAPTURE(bad);
    const auto r = run_cli(llama + " --engine-version " + bad);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, ContainsSubstring("--engine-version"));
  }
}

TEST_CASE("kvsize: a phased workspace without sampler rows says so plainly (llama.cpp)", "[cli][plan]") {
  // llama.cpp's compute buffer is a peak of phases too, but it has no sampler warm-up: its sampler row
  // reads "0 rows × vocab, float32", never vLLM's per-element words.
  const auto r = run_cli(qwen() + " --gpu rtx-3060 --engine llama.cpp --batch 4");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, ContainsSubstring("0 rows × vocab, float32"));
  CHECK_THAT(r.out, !ContainsSubstring("sampler warm-up"));
}

TEST_CASE("kvsize --json: under tensor parallelism a device holds what every rank keeps whole (DeepSeek-R1 FP8)",
          "[cli][plan][tp]") {
  // weights_split: 1,138,633,568 B of R1's FP8 weights (MLA's q_a/kv_a projections, norms, routers) sit whole on
  // every rank (tests/unit/weights_split.test.cpp derives it); the rest splits over the 8 ranks.
  const std::string r1 = "'" + std::string{KVSIZE_SOURCE_DIR} + "/configs/deepseek-ai__DeepSeek-R1.config.json'";
  const auto tp8 = json_of(r1 + " --engine vllm --gpu h200 --tp 8");
  const auto& cap = tp8["capacity"];
  CHECK(cap["weights_whole_per_device_bytes"] == 1'138'633'568ULL);
  const auto all = tp8["weights_bytes"].get<std::uint64_t>();
  const auto per_device = cap["weights_per_device_bytes"].get<std::uint64_t>();
  CHECK(per_device > (all + 7) / 8 + 996'000'000ULL);  // 7/8 of the whole share more than an even split
  CHECK(per_device < (all + 7) / 8 + 996'304'373ULL);
  CHECK(tp8["plan"]["weights_bytes"] == per_device);  // the plan's point and the capacity agree
  // Over two pipeline stages each holds half of a rank's share; one GPU has no share to tell apart.
  const auto pp2 = json_of(r1 + " --engine vllm --gpu h200 --tp 8 --pp 2");
  CHECK(pp2["capacity"]["weights_whole_per_device_bytes"] == 1'138'633'568ULL / 2);
  CHECK(pp2["capacity"]["weights_per_device_bytes"] == (per_device + 1) / 2);
  const auto tp1 = json_of(r1 + " --engine vllm --gpu-memory 2000GiB");
  CHECK(tp1["capacity"]["weights_whole_per_device_bytes"].is_null());
  CHECK(tp1["capacity"]["weights_per_device_bytes"] == all);
}
