// SPDX-License-Identifier: MIT
// The kvsize program's field tables (examples/kvsize/field_tables.hpp): every field has a JSON key
// and a CSV column of its own, and the text, --json and --csv of one run show the same values.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cstdint>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../../examples/kvsize/field_tables.hpp"
#include "cli_support.hpp"

using Catch::Matchers::ContainsSubstring;
using kvsize::test::config;
using kvsize::test::json_of;
using kvsize::test::run_cli;

namespace {

/// The cells of one CSV line (no quoting: the runs below print no comma inside a value).
auto split_csv(const std::string& line) -> std::vector<std::string> {
  std::vector<std::string> cells;
  std::string cell;
  for (char c : line) {
    if (c == ',') {
      cells.push_back(cell);
      cell.clear();
    } else {
      cell += c;
    }
  }
  cells.push_back(cell);
  return cells;
}

/// A --csv output: its header and rows.
struct csv_table {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;

  [[nodiscard]] auto cell(std::size_t row, std::string_view column) const -> std::string {
    const auto it = std::find(columns.begin(), columns.end(), column);
    REQUIRE(it != columns.end());
    return rows.at(row).at(static_cast<std::size_t>(it - columns.begin()));
  }
};

auto csv_of_run(const std::string& args) -> csv_table {
  const auto r = run_cli(args + " --csv");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::istringstream in(r.out);
  csv_table t;
  std::string line;
  REQUIRE(std::getline(in, line));
  t.columns = split_csv(line);
  while (std::getline(in, line)) {
    t.rows.push_back(split_csv(line));
    REQUIRE(t.rows.back().size() == t.columns.size());
  }
  return t;
}

/// A JSON value as --csv writes it: integers in full, true/false, null as an empty cell.
auto as_cell(const nlohmann::json& v) -> std::string {
  if (v.is_null()) {
    return {};
  }
  if (v.is_string()) {
    return v.get<std::string>();
  }
  return v.dump();
}

/// Whether a JSON value and a CSV cell are the same figure (a ratio compared as a number).
auto same_value(const nlohmann::json& v, const std::string& cell) -> bool {
  if (v.is_number_float()) {
    return !cell.empty() && std::stod(cell) == v.get<double>();
  }
  return as_cell(v) == cell;
}

template <typename M, std::size_t N>
auto keys_of(const std::array<kvsize::cli::field<M>, N>& table) -> std::vector<std::string> {
  std::vector<std::string> keys;
  for (const auto& f : table) {
    keys.emplace_back(f.json_key);
  }
  return keys;
}

}  // namespace

TEST_CASE("kvsize fields: every field has a name, a JSON key, a CSV column and a label of its own", "[cli][fields]") {
  std::set<std::string_view> columns;
  std::size_t fields = 0;
  const auto check = [&](const auto& table) {
    std::set<std::string_view> keys;
    for (const auto& f : table) {
      INFO(f.name);
      CHECK_FALSE(f.name.empty());
      CHECK_FALSE(f.json_key.empty());
      CHECK_FALSE(f.csv_column.empty());
      CHECK_FALSE(f.label.empty());
      CHECK(f.value != nullptr);
      CHECK(keys.insert(f.json_key).second);      // unique in its JSON object
      CHECK(columns.insert(f.csv_column).second);  // unique in the one --csv row
      ++fields;
    }
  };
  check(kvsize::cli::point_fields);
  check(kvsize::cli::figure_fields);
  check(kvsize::cli::model_fields);
  CHECK(columns.size() == fields);
}

TEST_CASE("kvsize fields: the placement check refuses a field the text would leave out", "[cli][fields]") {
  using namespace kvsize::cli;
  // The tables' static_asserts hold these; a placement that drops one list must fail the check.
  STATIC_REQUIRE(placed_once(point_fields, {plan_point_rows, plan_ceiling_rows, plan_point_elsewhere}));
  STATIC_REQUIRE_FALSE(placed_once(point_fields, {plan_point_rows, plan_ceiling_rows}));
  STATIC_REQUIRE_FALSE(placed_once(point_fields, {plan_point_rows, plan_point_rows, plan_ceiling_rows,
                                                  plan_point_elsewhere}));  // a row twice
  STATIC_REQUIRE(placed_once(figure_fields, {kv_rows, logits_rows, weights_rows, figure_elsewhere,
                                             figure_json_csv_only}));
  STATIC_REQUIRE_FALSE(placed_once(figure_fields, {kv_rows, logits_rows, weights_rows, figure_elsewhere}));
  STATIC_REQUIRE(placed_once(model_fields, {model_elsewhere, model_json_csv_only}));
  constexpr std::array<std::string_view, 1> unknown{"no_such_field"};
  STATIC_REQUIRE_FALSE(placed_once(model_fields, {model_elsewhere, model_json_csv_only, unknown}));
}

TEST_CASE("kvsize fields: --json and --csv of one run agree on every field", "[cli][fields][csv]") {
  const std::string qwen = config("Qwen__Qwen2.5-1.5B.config.json");
  for (const std::string& args :
       {qwen + " --gpu rtx-3060 --engine vllm --sweep-context 1k:8k --sweep-batch 16:64",
        qwen + " --gpu rtx-3060 --engine llama.cpp --batch 4 --sweep-context 1k:4k",
        config("deepseek-ai__DeepSeek-R1.config.json") + " --gpu h200 --engine vllm --tp 8 --sweep-batch 1:8",
        config("google__gemma-3-4b-it.config.json") + " --gpu l4 --engine sglang --shared-prefix 256"}) {
    INFO(args);
    const auto j = json_of(args);
    const csv_table csv = csv_of_run(args);
    // One row per point: the sweep's, else the plan's own.
    const bool swept = j.contains("sweep");
    const std::size_t points = swept ? j.at("sweep").at("points").size() : 1;
    REQUIRE(csv.rows.size() == points);
    for (std::size_t i = 0; i < points; ++i) {
      const auto& point = swept ? j.at("sweep").at("points").at(i) : j.at("plan");
      for (const auto& f : kvsize::cli::point_fields) {
        INFO("point " << i << ": " << f.json_key << " / " << f.csv_column);
        REQUIRE(point.contains(std::string{f.json_key}));
        CHECK(same_value(point.at(std::string{f.json_key}), csv.cell(i, f.csv_column)));
      }
      for (const auto& f : kvsize::cli::figure_fields) {
        INFO(f.json_key << " / " << f.csv_column);
        REQUIRE(j.contains(std::string{f.json_key}));
        CHECK(same_value(j.at(std::string{f.json_key}), csv.cell(i, f.csv_column)));
      }
      for (const auto& f : kvsize::cli::model_fields) {
        INFO(f.json_key << " / " << f.csv_column);
        CHECK(same_value(j.at("model").at(std::string{f.json_key}), csv.cell(i, f.csv_column)));
      }
    }
    // The plan's own point agrees with its sweep point of the same context and users.
    if (swept) {
      for (const auto& q : j.at("sweep").at("points")) {
        if (q.at("context") == j.at("plan").at("context") && q.at("users") == j.at("plan").at("users")) {
          for (const std::string& key : keys_of(kvsize::cli::point_fields)) {
            INFO(key);
            CHECK(q.at(key) == j.at("plan").at(key));
          }
        }
      }
    }
  }
}

TEST_CASE("kvsize fields: the text's byte rows show --json's exact figures", "[cli][fields]") {
  const std::string args = config("Qwen__Qwen2.5-1.5B.config.json") + " --gpu rtx-3060 --engine vllm --batch 32";
  const auto j = json_of(args);
  const auto r = run_cli(args);
  REQUIRE(r.exit_code == 0);
  for (const std::string_view key : kvsize::cli::plan_point_rows) {
    const auto& f = kvsize::cli::point_fields[kvsize::cli::index_of(kvsize::cli::point_fields, key)];
    if (f.unit == kvsize::cli::field_unit::bytes) {
      INFO(key);
      CHECK_THAT(r.out, ContainsSubstring("(" + kvsize::cli::grouped(j.at("plan").at(std::string{key})) + " B)"));
    }
  }
  for (const auto& rows : {std::vector<std::string_view>(kvsize::cli::kv_rows.begin(), kvsize::cli::kv_rows.end()),
                           std::vector<std::string_view>(kvsize::cli::logits_rows.begin(), kvsize::cli::logits_rows.end())}) {
    for (const std::string_view key : rows) {
      const auto& f = kvsize::cli::figure_fields[kvsize::cli::index_of(kvsize::cli::figure_fields, key)];
      const std::uint64_t value = j.at(std::string{key});
      if (f.unit == kvsize::cli::field_unit::bytes && value != 0) {
        INFO(key);
        CHECK_THAT(r.out, ContainsSubstring("(" + kvsize::cli::grouped(value) + " B)"));
      }
    }
  }
}

TEST_CASE("kvsize fields: the text's KV heads are --json's model.kv_heads, for every bundled config",
          "[cli][fields]") {
  // DeepSeek-R1 caches one latent per token for all 128 query heads: 1, in the text as in the JSON.
  const auto deepseek = json_of(config("deepseek-ai__DeepSeek-R1.config.json"));
  CHECK(deepseek.at("model").at("kv_heads") == 1);
  CHECK(deepseek.at("model").at("attention_heads") == 128);
  const auto text = run_cli(config("deepseek-ai__DeepSeek-R1.config.json"));
  CHECK_THAT(text.out, ContainsSubstring("128 heads, 1 KV heads,"));

  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs")) {
    const std::string file = entry.path().filename().string();
    if (!file.ends_with(".config.json")) {
      continue;
    }
    INFO(file);
    const auto r = run_cli(config(file));
    const auto j = nlohmann::json::parse(run_cli(config(file) + " --json").out);
    REQUIRE(r.exit_code == 0);
    const std::string heads = fmt::format("{} heads, {} KV heads,", j.at("model").at("attention_heads").get<std::uint32_t>(),
                                          j.at("model").at("kv_heads").get<std::uint32_t>());
    // The model line may wrap after a comma: compare with the line break undone.
    std::string unwrapped = r.out;
    for (std::size_t at = unwrapped.find(",\n"); at != std::string::npos; at = unwrapped.find(",\n", at)) {
      const std::size_t text_at = unwrapped.find_first_not_of(' ', at + 2);
      unwrapped.replace(at + 1, text_at - at - 1, " ");
    }
    CHECK_THAT(unwrapped, ContainsSubstring(heads));
  }
}

TEST_CASE("kvsize fields: how one value reads in the text, the JSON and the CSV", "[cli][fields]") {
  using namespace kvsize::cli;
  CHECK(csv_of(field_value{}).empty());
  CHECK(csv_of(field_value{std::uint64_t{18'446'744'073'709'551'615ULL}}) == "18446744073709551615");
  CHECK(csv_of(field_value{true}) == "true");
  CHECK(csv_of(field_value{6.0}) == "6");
  CHECK(csv_of(field_value{0.75}) == "0.75");
  CHECK(csv_of(field_value{std::string{"q4_K_M"}}) == "q4_K_M");
  CHECK(csv_of(field_value{std::string{"a,b \"c\""}}) == "\"a,b \"\"c\"\"\"");  // RFC 4180 quoting
  CHECK(plain_of(field_value{std::string{"a,b"}}) == "a,b");
  CHECK(json_of(field_value{}).is_null());
  CHECK(json_of(field_value{std::uint64_t{42}}) == 42);

  point_result p;
  p.users = 1;
  p.context = 131'072;
  p.device_memory = kvsize::bytes{12'490'000'000};
  p.max_users = kvsize::unbounded;
  p.max_context = 2'049;
  p.context_limit = 2'049;
  p.slot_cap = kvsize::unbounded;
  p.limited_by = "slots";
  const auto row = [&](std::string_view key) { return text_row(point_fields, key, p); };
  CHECK(row("device_memory_bytes")->second == "11.63 GiB (12,490,000,000 B)");
  CHECK(row("max_users")->first == "max users at 131,072 tokens");
  CHECK(row("max_users")->second == "unbounded");
  CHECK(row("max_context")->first == "max context for 1 user");
  CHECK(row("max_context")->second == "2,049 tokens (the search limit)");
  CHECK_FALSE(row("slot_cap").has_value());  // unbounded: no row, JSON null, an empty CSV cell
  CHECK(std::holds_alternative<std::monostate>(point_fields[index_of(point_fields, "slot_cap")].value(p)));
  p.slot_cap = 256;
  CHECK(row("slot_cap")->second == "256");
  CHECK(row("fits")->second == "NO: the scheduler runs at most 256 sequences at once");
  CHECK_THROWS_AS(filled("{no_such_slot}", p), std::logic_error);
  CHECK_THROWS_AS(row("no_such_field"), std::logic_error);

  figures_result f;
  CHECK(text_row(figure_fields, "parameters", f)->second == "unknown (see notes)");
  CHECK_FALSE(text_row(figure_fields, "weights_bytes", f).has_value());
  CHECK(json_of(figure_fields[index_of(figure_fields, "weights_bytes")].value(f)).is_null());
}
