// SPDX-License-Identifier: MIT
// llama.cpp's tensor overrides to the host (-ot "<pattern>=CPU"): gguf/gguf_overrides.hpp sorts the
// bytes a name rule keeps on the host by slot, engines/llama_cpp_offload.hpp places them, and the
// command line reads -ot as llama.cpp does. The rules (https://github.com/ggml-org/llama.cpp):
// src/llama-model-loader.cpp `create_tensor` tests each pattern with std::regex_search on every tensor
// it creates; common/arg.cpp `parse_tensor_buffer_overrides` splits the value on ',' and each piece
// at its first '='; src/llama-context.cpp keeps pipeline parallelism off when overrides are set.
// Expected figures are derived beside each check.
#include <kvsize/engine.hpp>
#include <kvsize/gguf.hpp>
#include <kvsize/hf_config.hpp>

#include "../gguf_support.hpp"
#include "llama_cpp_offload_support.hpp"
#ifdef KVSIZE_CLI_PATH
#include "../cli_support.hpp"
#endif

#include <unistd.h>  // getpid

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace {

using kvsize::bytes;
using kvsize::engines::llama_cpp::offload_request;
using kvsize::engines::llama_cpp::slot_weights;
using kvsize::engines::llama_cpp::split_layers;
using namespace kvsize::literals;

using kvsize_test::mib;

auto llama3() -> kvsize::model_spec { return kvsize_test::llama3_f16(); }
auto options() -> kvsize::engine_options { return kvsize_test::options_4k_f16(); }

template <std::size_t N>
constexpr auto filled(std::uint64_t value) {
  std::array<std::uint64_t, N> a{};
  a.fill(value);
  return a;
}

// Synthetic weights: 32 blocks of 100 MiB, 60 MiB of them experts; output slot 200 MiB; token_embd 250 MiB.
constexpr auto blocks = filled<32>(100 * mib);
constexpr auto experts = filled<32>(60 * mib);
// An -ot that keeps 10 MiB of every block's other tensors (say its attention) on the host, and the
// experts of blocks 0-15 (blk\.([0-9]|1[0-5])\.ffn_.*_exps).
constexpr auto kept = filled<32>(10 * mib);
constexpr auto kept_experts = [] {
  auto a = filled<32>(0);
  for (std::size_t il = 0; il < 16; ++il) {
    a.at(il) = 60 * mib;
  }
  return a;
}();

auto overridden() -> slot_weights {
  slot_weights w{blocks, experts, bytes{200 * mib}, bytes{250 * mib}, false};
  w.block_override = kept;
  w.block_override_experts = kept_experts;
  return w;
}

auto requested(std::uint32_t ngl) -> offload_request {
  offload_request r;
  r.n_gpu_layers = ngl;
  r.tensor_overrides = true;
  return r;
}

}  // namespace

TEST_CASE("llama.cpp offload: -ot keeps its tensors on the host wherever their layer is",
          "[engines][llama.cpp][offload][override]") {
  const auto m = llama3();
  const auto o = options();
  // Every slot on the GPU: each block leaves its 10 MiB there, blocks 0-15 their 60 MiB of experts too.
  const auto all = split_layers(m, o, overridden(), requested(33));
  CHECK(all.device_weights == bytes{(200 + 32 * 90 - 16 * 60) * mib});
  CHECK(all.host_weights == bytes{(250 + 32 * 10 + 16 * 60) * mib});
  // -ngl 10: the output layer and blocks 23-31 on the GPU (each without its 10 MiB; their experts are
  // not overridden); blocks 0-22 wholly on the host, counted once.
  const auto ten = split_layers(m, o, overridden(), requested(10));
  CHECK(ten.device_weights == bytes{(200 + 9 * 90) * mib});
  CHECK(ten.host_weights == bytes{(250 + 23 * 100 + 9 * 10) * mib});
  // With --n-cpu-moe 20 the host holds the union: blocks 0-19's experts once, not 0-15's twice.
  offload_request both = requested(33);
  both.n_cpu_moe = 20;
  CHECK(split_layers(m, o, overridden(), both).host_weights == bytes{(250 + 32 * 10 + 20 * 60) * mib});
  // --cpu-moe: every block's experts, the -ot's share of them included.
  offload_request cpu_moe = requested(33);
  cpu_moe.cpu_moe = true;
  CHECK(split_layers(m, o, overridden(), cpu_moe).device_weights == bytes{(200 + 32 * 30) * mib});
  // The output layer's override (output.weight=CPU): its bytes leave the GPU.
  slot_weights out = overridden();
  out.output_override = 150_MiB;
  CHECK(split_layers(m, o, out, requested(1)).device_weights == 50_MiB);
  CHECK(split_layers(m, o, out, requested(1)).host_weights == bytes{(250 + 3'200 + 150) * mib});
}

TEST_CASE("llama.cpp offload: -ot turns pipeline parallelism off, and bad override bytes are refused",
          "[engines][llama.cpp][offload][override]") {
  const auto m = llama3();
  const auto o = options();
  offload_request two = requested(33);
  two.devices = 2;
  CHECK_FALSE(split_layers(m, o, overridden(), two).pipeline_parallel);
  two.tensor_overrides = false;
  CHECK(split_layers(m, o, slot_weights{blocks, experts, 200_MiB, 250_MiB, false}, two).pipeline_parallel);
  // An override list of another length, more than a block's other tensors, more than its experts,
  // more than the output slot: invalid_argument, never a wrap.
  const std::array<std::uint64_t, 31> short_list{};
  slot_weights w = overridden();
  w.block_override = short_list;
  CHECK_THROWS_AS(split_layers(m, o, w, requested(33)), kvsize::invalid_argument);
  const auto too_much = filled<32>(41 * mib);  // 100 − 60 = 40 MiB of other tensors
  w = overridden();
  w.block_override = too_much;
  CHECK_THROWS_AS(split_layers(m, o, w, requested(33)), kvsize::invalid_argument);
  const auto too_many_experts = filled<32>(61 * mib);
  w = overridden();
  w.block_override_experts = too_many_experts;
  CHECK_THROWS_AS(split_layers(m, o, w, requested(0)), kvsize::invalid_argument);
  w = overridden();
  w.output_override = 201_MiB;
  CHECK_THROWS_AS(split_layers(m, o, w, requested(1)), kvsize::invalid_argument);
  CHECK_THROWS_AS(split_layers(m, o, w, requested(0)), kvsize::invalid_argument);  // the output slot on the host too
}

TEST_CASE("llama.cpp offload: the smallest --n-cpu-moe that fits with every layer on the GPU",
          "[engines][llama.cpp][offload][override]") {
  namespace lc = kvsize::engines::llama_cpp;
  const auto m = llama3();
  const auto o = options();
  const slot_weights w{blocks, experts, 200_MiB, 250_MiB, false};
  const bytes compute = lc::compute_buffers_for(m, o).device;
  // -ngl all with blocks 0 … N−1's 60 MiB of experts on the host: 200 + 3,200 − 60 N MiB of weights, 512 MiB
  // of KV and the compute buffer. A device of exactly that at N = 10 plus the 1 GiB margin: N = 10.
  const bytes device = compute + 1_GiB + bytes{(3'400 - 600 + 512) * mib};
  const auto ten = lc::smallest_fitting_cpu_moe(m, o, w, {}, device);
  REQUIRE(ten.has_value());
  CHECK(ten->n_cpu_moe == 10);
  CHECK(ten->split.device_total() + lc::fit_margin == device);
  CHECK(ten->split.gpu_slots == 33);
  CHECK(lc::smallest_fitting_cpu_moe(m, o, w, {}, device - 1_B).value().n_cpu_moe == 11);
  // The request's --cpu-moe is replaced, not kept.
  offload_request cpu_moe;
  cpu_moe.cpu_moe = true;
  CHECK(lc::smallest_fitting_cpu_moe(m, o, w, cpu_moe, device).value().n_cpu_moe == 10);
  // Everything fits: 0. Not even every block's experts on the host: none.
  CHECK(lc::smallest_fitting_cpu_moe(m, o, w, {}, 80_GiB).value().n_cpu_moe == 0);
  const bytes all_on_host = compute + 1_GiB + bytes{(3'400 - 32 * 60 + 512) * mib};
  CHECK(lc::smallest_fitting_cpu_moe(m, o, w, {}, all_on_host).value().n_cpu_moe == 32);
  CHECK_FALSE(lc::smallest_fitting_cpu_moe(m, o, w, {}, all_on_host - 1_B).has_value());
}

TEST_CASE("GGUF: the bytes a name rule keeps on the host, by slot", "[gguf][offload][override]") {
  using kvsize::gguf::named_tensor;
  // Three blocks, the last a NextN block llama.cpp never creates (its loaded bytes are 0); tied
  // embeddings (no output.weight), so the output layer's copy of token_embd answers to that name.
  const std::vector<named_tensor> table{{"token_embd.weight", 7},          {"output_norm.weight", 1},
                                        {"blk.0.attn_q.weight", 10},       {"blk.0.ffn_up_exps.weight", 20},
                                        {"blk.1.ffn_down_chexps.weight", 30}, {"blk.1.ffn_norm.weight", 2},
                                        {"blk.2.attn_q.weight", 40},       {"position_embd.weight", 5}};
  const std::array<std::uint64_t, 3> loaded{30, 32, 0};
  std::vector<std::string> asked;
  const auto everything = kvsize::gguf::host_overrides_of(table, loaded, true, [&](std::string_view name) {
    asked.emplace_back(name);
    return true;
  });
  CHECK(everything.block == std::vector<std::uint64_t>{10, 2, 0});
  CHECK(everything.block_experts == std::vector<std::uint64_t>{20, 30, 0});
  CHECK(everything.output == 1);  // output_norm; token_embd and position_embd are the input layer's
  CHECK(everything.tied_copy);    // the output layer's copy of token_embd: off the GPU, shared on the host
  CHECK(everything.tensors == 5);
  CHECK(kvsize::gguf::kept_bytes(everything) == 1 + 10 + 2 + 20 + 30);
  CHECK(asked.size() == 7);  // blk.2's tensor is never created, so never matched
  const std::regex exps{"exps"};
  const auto expert_only = kvsize::gguf::host_overrides_of(
      table, loaded, false, [&](std::string_view name) { return std::regex_search(name.begin(), name.end(), exps); });
  CHECK(expert_only.block == std::vector<std::uint64_t>{0, 0, 0});
  CHECK(expert_only.block_experts == std::vector<std::uint64_t>{20, 30, 0});
  CHECK(expert_only.output == 0);
  CHECK(kvsize::gguf::kept_bytes(expert_only) == 50);
  kvsize::gguf::host_overrides huge;
  huge.block = {~std::uint64_t{0}};
  huge.block_experts = {1};
  CHECK_THROWS_AS(kvsize::gguf::kept_bytes(huge), kvsize::overflow_error);
  // Untied, a token_embd match keeps only the input layer's tensor, which is on the host anyway.
  const auto untied = kvsize::gguf::host_overrides_of(table, loaded, false, [](std::string_view name) {
    return name == "token_embd.weight";
  });
  CHECK(untied.output == 0);
  CHECK_FALSE(untied.tied_copy);
  CHECK(untied.tensors == 0);
}

TEST_CASE("llama.cpp offload: a tied output's copy sent to the host by -ot leaves the GPU and adds nothing there",
          "[engines][llama.cpp][offload][override]") {
  const auto m = llama3();
  const auto o = options();
  slot_weights tied{blocks, {}, 5_MiB, 250_MiB, true};
  const auto copy_on_gpu = split_layers(m, o, tied, requested(1));
  CHECK(copy_on_gpu.device_weights == 255_MiB);  // output_norm & co. and the copy of token_embd
  tied.tied_copy_override = true;  // -ot token_embd=CPU: create_tensor reuses the host's token_embd
  const auto shared = split_layers(m, o, tied, requested(1));
  CHECK(shared.device_weights == 5_MiB);
  CHECK(shared.host_weights == copy_on_gpu.host_weights);
}

namespace {
/// A GGUF at `file`: four llama blocks, each a 1 MiB attn_q and a 2 MiB ffn_up_exps; token_embd 1 MiB and,
/// unless `tied`, an output.weight of 1 MiB.
void write_expert_gguf(const std::filesystem::path& file, bool tied = false) {
  auto w = kvsize_test::llama_header("llama", 4);
  w.tensor("token_embd.weight", {512, 512}, 0, mib);
  if (!tied) {
    w.tensor("output.weight", {512, 512}, 0, mib);
  }
  for (int il = 0; il < 4; ++il) {
    w.tensor("blk." + std::to_string(il) + ".attn_q.weight", {512, 512}, 0, mib);
    w.tensor("blk." + std::to_string(il) + ".ffn_up_exps.weight", {512, 1024}, 0, 2 * mib);
  }
  std::ofstream(file, std::ios::binary) << w.bytes(true, (tied ? 13 : 14) * mib);
}
}  // namespace

TEST_CASE("GGUF: host_overrides_of over a loaded model's table", "[gguf][offload][override]") {
  namespace fs = std::filesystem;
  const fs::path file = fs::temp_directory_path() / ("kvsize-ot-model-" + std::to_string(::getpid()) + ".gguf");
  write_expert_gguf(file);
  const auto g = kvsize::gguf::load_gguf_model(file);
  const std::regex exps{"exps"};
  const auto expert_kept = kvsize::gguf::host_overrides_of(
      g, [&](std::string_view name) { return std::regex_search(name.begin(), name.end(), exps); });
  CHECK(expert_kept.block == std::vector<std::uint64_t>{0, 0, 0, 0});
  CHECK(expert_kept.block_experts == std::vector<std::uint64_t>{2 * mib, 2 * mib, 2 * mib, 2 * mib});
  CHECK(expert_kept.output == 0);
  CHECK(expert_kept.tensors == 4);
  fs::remove(file);
}

#ifdef KVSIZE_CLI_PATH

TEST_CASE("kvsize -ot: the tensors whose names match stay on the host", "[cli][offload][override]") {
  namespace fs = std::filesystem;
  const fs::path file = fs::temp_directory_path() / ("kvsize-ot-" + std::to_string(::getpid()) + ".gguf");
  write_expert_gguf(file);
  const std::string model = "'" + file.string() + "'";
  const std::string base = " --engine llama.cpp --gpu-memory 4GiB";
  // The option before the model path takes one value only.
  const auto j = kvsize::test::json_of("-ot 'exps=CPU' " + model + base);
  REQUIRE(j.contains("offload"));
  CHECK(j["offload"]["asked"]["device_weights_bytes"] == 5 * mib);  // output + 4 × attn_q
  CHECK(j["offload"]["asked"]["host_weights_bytes"] == 9 * mib);    // token_embd + 4 × 2 MiB of experts
  CHECK(j["offload"]["override_tensor"] == std::vector<std::string>{"exps=CPU"});
  CHECK(j["offload"]["overridden_tensors"] == 4);
  CHECK(j["offload"]["overridden_bytes"] == 8 * mib);
  // Two -ot, one holding two patterns; one pattern matches nothing and is named.
  const auto two =
      kvsize::test::run_cli(model + base + R"( -ot 'blk\.0\.=CPU,blk\.1\.attn=CPU' --override-tensor 'nomatch=CPU')");
  REQUIRE(two.exit_code == 0);
  CHECK_THAT(two.out, Catch::Matchers::ContainsSubstring("of which -ot keeps"));
  CHECK_THAT(two.out, Catch::Matchers::ContainsSubstring("3 tensors, 4 MiB"));  // blk.0's two (3 MiB), blk.1's attn_q
  CHECK_THAT(two.out, Catch::Matchers::ContainsSubstring("-ot 'nomatch=CPU' matches no tensor"));
  // The run-it line, unwrapped (the report wraps at 100 columns), repeats each -ot in single quotes.
  std::string unwrapped;
  for (std::size_t i = 0; i < two.out.size(); ++i) {
    if (two.out[i] != '\n') {
      unwrapped += two.out[i];
      continue;
    }
    while (i + 1 < two.out.size() && two.out[i + 1] == ' ') {
      ++i;
    }
    unwrapped += ' ';
  }
  CHECK_THAT(unwrapped, Catch::Matchers::ContainsSubstring(
                            R"(run it: llama-server -m <model>.gguf -c 4096 -np 1 -ngl 5 -ot 'blk\.0\.=CPU,blk\.1\.attn=CPU' )"
                            R"(-ot 'nomatch=CPU')"));
  CHECK_THAT(two.out, Catch::Matchers::ContainsSubstring("--fit does not lower -ngl"));
  // The smallest --n-cpu-moe at -ngl all: the device that leaves exactly 1 GiB free with blocks 0-1's 2 MiB of
  // experts on the host (13 − 4 MiB of weights, the KV and compute buffers of the whole-model split) gets 2.
  const auto& whole = j["offload"]["asked"];
  const std::uint64_t two_on_host = whole["device_kv_bytes"].get<std::uint64_t>() +
                                    whole["device_compute_bytes"].get<std::uint64_t>() + 9 * mib + (1ULL << 30U);
  const auto fitted =
      kvsize::test::json_of(model + " --engine llama.cpp --gpu-memory " + std::to_string(two_on_host) + "B");
  CHECK(fitted["offload"]["smallest_n_cpu_moe"]["n_cpu_moe"] == 2);
  CHECK(fitted["offload"]["smallest_n_cpu_moe"]["split"]["device_total_bytes"] == two_on_host - (1ULL << 30U));
  const auto text = kvsize::test::run_cli(model + " --engine llama.cpp --gpu-memory " + std::to_string(two_on_host) + "B");
  CHECK_THAT(text.out, Catch::Matchers::ContainsSubstring("smallest --n-cpu-moe that fits       2 with every layer"));
  CHECK_THAT(text.out, Catch::Matchers::ContainsSubstring("-ngl 5 --n-cpu-moe 2"));
  // Tied embeddings: -ot token_embd=CPU takes the output layer's copy off the GPU and adds nothing to the host.
  const fs::path tied_file = fs::temp_directory_path() / ("kvsize-ot-tied-" + std::to_string(::getpid()) + ".gguf");
  write_expert_gguf(tied_file, true);
  const std::string tied = "'" + tied_file.string() + "'" + base;
  const auto copy = kvsize::test::json_of(tied)["offload"]["asked"];
  const auto shared = kvsize::test::json_of(tied + " -ot token_embd=CPU")["offload"];
  CHECK(copy["device_weights_bytes"] == 13 * mib);  // 4 × 3 MiB of blocks and the 1 MiB copy
  CHECK(shared["asked"]["device_weights_bytes"] == 12 * mib);
  CHECK(shared["asked"]["host_weights_bytes"] == copy["host_weights_bytes"]);
  CHECK(shared["overridden_tensors"] == 0);
  fs::remove(tied_file);
  // A pattern that would backtrack for ever on a backtracking matcher ends, matching nothing.
  const auto slow = kvsize::test::run_cli(model + base + " -ot '(.*)*x=CPU'");
  CHECK(slow.exit_code == 0);
  fs::remove(file);
}

TEST_CASE("kvsize -ot: what llama.cpp refuses or kvsize cannot place is exit 2, naming the option",
          "[cli][offload][override]") {
  namespace fs = std::filesystem;
  const fs::path file = fs::temp_directory_path() / ("kvsize-ot-bad-" + std::to_string(::getpid()) + ".gguf");
  write_expert_gguf(file);
  const std::string base = "'" + file.string() + "' --engine llama.cpp --gpu-memory 4GiB";
  const auto refused = [&](const std::string& args, const std::string& says) {
    const auto r = kvsize::test::run_cli(args);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Catch::Matchers::ContainsSubstring(says));
  };
  refused(base + " -ot 'exps=CUDA0'", "-ot 'exps=CUDA0': kvsize plans tensors kept in host memory (=CPU)");
  refused(base + " -ot 'exps'", "is not <tensor name pattern>=<buffer type>");
  refused(base + " -ot 'a=CPU,,b=CPU'", "'' is not <tensor name pattern>");
  refused(base + " --override-tensor ''", "--override-tensor '': '' is not <tensor name pattern>");
  refused(base + " -ot 'exps=CPU,'", "-ot 'exps=CPU,': '' is not <tensor name pattern>");  // llama.cpp: invalid value
  refused(base + " -ot 'a\tb=CPU'", "a control character");
  std::string many;
  for (int i = 0; i < 65; ++i) {
    many += (i == 0 ? "" : ",") + std::string("x=CPU");
  }
  refused(base + " -ot '" + many + "'", "more than 64 patterns");
  refused(base + " -ot '(=CPU'", "is not a regular expression");
  refused(base + R"( -ot '(a)\1=CPU')", "is not a regular expression");  // a back-reference
  refused(base + " -ot '" + std::string(1'025, 'a') + "=CPU'", "a pattern of 1025 characters (at most 1024)");
  // Without a device too, and on a config.json, whose tensors have no GGUF names.
  refused("'" + file.string() + "' --engine llama.cpp -ot 'x=CUDA1'", "-ot 'x=CUDA1'");
  refused("'" + kvsize::test::config("mistralai__Mistral-7B-v0.1.config.json") +
              "' --engine llama.cpp --weights-dtype q4_K_M --gpu-memory 8GiB -ot exps=CPU",
          "-ot: its patterns match a GGUF file's tensor names");
  fs::remove(file);
}
#endif
