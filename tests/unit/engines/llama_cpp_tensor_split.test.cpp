// SPDX-License-Identifier: MIT
// llama.cpp's layer split over several GPUs (-ts): which slots each GPU gets, checked against the
// float32 rule of src/llama-model.cpp load_tensors and two public multi-GPU logs whose tensor
// tables can be rebuilt (docs/research/llama-cpp-tensor-split.md, section 5).
#include <kvsize/engine.hpp>
#include <kvsize/gguf.hpp>
#include <kvsize/hf_config.hpp>
#include <kvsize/planner.hpp>
#include <kvsize/presets.hpp>

#include "../gguf_support.hpp"
#ifdef KVSIZE_CLI_PATH
#include "../cli_support.hpp"

#include <unistd.h>  // getpid
#endif

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

namespace {

using kvsize::bytes;
namespace lc = kvsize::engines::llama_cpp;
using namespace kvsize::literals;

constexpr std::uint64_t mib = 1ULL << 20U;

auto config(const char* name) -> kvsize::model_spec {
  auto m = kvsize::hf::load_config(std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs" / name).spec;
  m.compute_dtype = kvsize::dtype::f16;
  return m;
}

/// -ts as llama.cpp reads it: one float share per device, the rest 0.
constexpr auto shares(std::initializer_list<float> values) -> lc::tensor_split {
  lc::tensor_split ts;
  std::size_t d = 0;
  for (const float v : values) {
    ts.shares.at(d++) = v;
  }
  return ts;
}

auto request(std::uint32_t ngl, std::uint32_t devices, lc::tensor_split ts, bool output_first = true)
    -> lc::offload_request {
  lc::offload_request r;
  r.n_gpu_layers = ngl;
  r.devices = devices;
  r.split = ts;
  r.output_layer_first = output_first;
  return r;
}

/// 1 MiB per block and per output slot: a GPU's weights in MiB count its slots.
const std::array<std::uint64_t, 80> one_mib_blocks = [] {
  std::array<std::uint64_t, 80> b{};
  b.fill(mib);
  return b;
}();

auto unit_slots(std::uint32_t layers) -> lc::slot_weights {
  return {std::span<const std::uint64_t>{one_mib_blocks.data(), layers}, {}, bytes{mib}, bytes{0}, false};
}

struct expected_device {
  std::uint32_t blocks;
  bool output;
};

}  // namespace

TEST_CASE("llama.cpp -ts: split points are float32 prefix sums over their total", "[engines][llama.cpp][tensor-split]") {
  static_assert(lc::split_points(shares({1, 1}), 2)[0] == 0.5F);
  static_assert(lc::split_points(shares({3, 1}), 2)[0] == 0.75F);
  static_assert(lc::split_points(shares({}), 4)[2] == 0.75F);  // all 0: equal shares
  static_assert(lc::split_points(shares({28, 0, 53}), 3)[2] == 1.0F);
  // A slot on a split point goes to the next device (std::upper_bound): 0.5/0.5 over 5 slots is 3/2,
  // 0.36/0.64 over 40 is 15/25 (https://github.com/ggml-org/llama.cpp/issues/23691).
  const auto half = lc::split_points(shares({0.5F, 0.5F}), 2);
  std::array<std::uint32_t, 2> count{};
  for (std::uint32_t j = 0; j < 5; ++j) {
    ++count.at(lc::device_of_slot(half, 2, j, 5));
  }
  CHECK(count == std::array<std::uint32_t, 2>{3, 2});
  const auto uneven = lc::split_points(shares({0.36F, 0.64F}), 2);
  count = {};
  for (std::uint32_t j = 0; j < 40; ++j) {
    ++count.at(lc::device_of_slot(uneven, 2, j, 40));
  }
  CHECK(count == std::array<std::uint32_t, 2>{15, 25});
  CHECK_THROWS_AS(lc::split_points(shares({}), 0), kvsize::invalid_argument);
  CHECK_THROWS_AS(lc::split_points(shares({}), 17), kvsize::invalid_argument);
  CHECK_THROWS_AS(lc::split_points(shares({1, -1}), 2), kvsize::invalid_argument);
  CHECK_THROWS_AS(lc::split_points(shares({1, std::numeric_limits<float>::quiet_NaN()}), 2), kvsize::invalid_argument);
  CHECK_THROWS_AS(lc::split_points(shares({1, std::numeric_limits<float>::infinity()}), 2), kvsize::invalid_argument);
  CHECK_THROWS_AS(lc::split_points(shares({3e38F, 3e38F}), 2), kvsize::invalid_argument);  // the sum is inf
}

TEST_CASE("llama.cpp -ts: a run of offloaded slots, placed", "[engines][llama.cpp][tensor-split]") {
  // 32 blocks + output, -ngl 20 since PR #18148: slots 13 … 32 (i_gpu_start 13), 20 of them over 2
  // equal GPUs: keys j/20 < 0.5 for j = 0 … 9, so blocks 13 … 22 on GPU 0, 23 … 31 and the output on GPU 1.
  constexpr lc::run_placement p = lc::place_run(32, shares({1, 1}), 2, 13, 20);
  static_assert(p.blocks[0].first == 13 && p.blocks[0].count == 10);
  static_assert(p.blocks[1].first == 23 && p.blocks[1].count == 9);
  static_assert(p.output_offloaded && p.output_device == 1);
  // Before PR #18148, -ngl 20 is blocks 12 … 31 (i_gpu_start = 32 − 20), the output on the host.
  constexpr lc::run_placement old = lc::place_run(32, shares({1, 1}), 2, 12, 20);
  static_assert(old.blocks[0].count == 10 && old.blocks[1].first == 22 && old.blocks[1].count == 10);
  static_assert(!old.output_offloaded);
  static_assert(lc::place_run(32, shares({1, 1}), 2, 33, 0).blocks[0].count == 0);  // -ngl 0
  // Every slot: the same runs as blocks_of_device (17 and 15 + output).
  static_assert(lc::blocks_of_device(32, shares({}), 2, 1).first == 17);
  CHECK_THROWS_AS(lc::place_run(32, shares({}), 2, 14, 20), kvsize::invalid_argument);  // past slot 32
  CHECK_THROWS_AS(lc::place_run(32, shares({}), 2, 34, 0), kvsize::invalid_argument);
}

TEST_CASE("llama.cpp -ts: blocks and the output slot per GPU", "[engines][llama.cpp][tensor-split]") {
  struct row {
    const char* config;
    std::uint32_t ngl;
    std::vector<float> ts;
    std::uint32_t devices;
    bool output_first;
    std::uint32_t host_blocks;
    std::vector<expected_device> gpus;
  };
  // Rows worked by hand from load_tensors' rule (key = float(il − i_gpu_start) / act_gpu_layers).
  const std::vector<row> rows{
      {"meta-llama__Llama-3.1-8B.config.json", 33, {1, 1}, 2, true, 0, {{17, false}, {15, true}}},
      {"meta-llama__Llama-3.1-8B.config.json", 33, {3, 1}, 2, true, 0, {{25, false}, {7, true}}},
      {"meta-llama__Llama-3.1-8B.config.json", 33, {}, 2, true, 0, {{17, false}, {15, true}}},
      {"meta-llama__Llama-2-70b-hf.config.json", 81, {1, 1}, 2, true, 0, {{41, false}, {39, true}}},
      {"meta-llama__Llama-2-70b-hf.config.json", 81, {28, 0, 53}, 3, true, 0, {{28, false}, {0, false}, {52, true}}},
      {"meta-llama__Llama-2-70b-hf.config.json", 40, {1, 1}, 2, true, 41, {{20, false}, {19, true}}},
      {"meta-llama__Llama-2-70b-hf.config.json", 40, {1, 1}, 2, false, 40, {{20, false}, {20, false}}},
      {"meta-llama__Llama-3.1-8B.config.json", 32, {1, 1, 1, 1}, 4, false, 0, {{8, false}, {8, false}, {8, false}, {8, false}}},
      {"meta-llama__Llama-3.1-8B.config.json", 32, {1, 1, 1, 1}, 4, true, 1, {{8, false}, {8, false}, {8, false}, {7, true}}},
      {"meta-llama__Llama-3.1-8B.config.json", 33, {1, 0}, 2, true, 0, {{32, true}, {0, false}}},
  };
  for (const row& x : rows) {
    CAPTURE(x.config, x.ngl, x.devices, x.output_first);
    const auto m = config(x.config);
    kvsize::engine_options o{.context = 4'096};
    lc::tensor_split ts;
    std::copy(x.ts.begin(), x.ts.end(), ts.shares.begin());
    const auto s = lc::split_layers(m, o, unit_slots(m.layers), request(x.ngl, x.devices, ts, x.output_first));
    CHECK(s.first_gpu_block == x.host_blocks);
    CHECK(s.host_weights == bytes{(x.host_blocks + (s.output_on_gpu ? 0U : 1U)) * mib});
    std::uint32_t next_block = x.host_blocks;
    for (std::uint32_t d = 0; d < x.devices; ++d) {
      CAPTURE(d);
      const lc::device_share& g = s.device.at(d);
      CHECK(g.blocks == x.gpus[d].blocks);
      CHECK(g.output == x.gpus[d].output);
      CHECK(g.weights == bytes{(g.blocks + (g.output ? 1U : 0U)) * mib});
      if (g.blocks > 0) {
        CHECK(g.first_block == next_block);  // contiguous runs, in device order
        next_block += g.blocks;
      }
      // Each GPU holds the KV of its blocks: 2 × 8 KV heads × 128 × 2 B × 4,096 cells = 16 MiB a layer.
      CHECK(g.kv == bytes{g.blocks * 16 * mib});
      if (g.blocks == 0 && !g.output) {
        CHECK(g.total() == 0_B);  // a GPU of share 0 holds nothing
      }
    }
    CHECK(next_block == m.layers);
  }
}

TEST_CASE("llama.cpp -ts: compute estimates, pipeline parallelism and the largest -ngl", "[engines][llama.cpp][tensor-split]") {
  const auto m = config("meta-llama__Llama-3.1-8B.config.json");
  kvsize::engine_options o{.context = 4'096};
  const auto b = lc::compute_buffers_for(m, o);
  const auto s = lc::split_layers(m, o, unit_slots(32), request(33, 2, shares({})));
  CHECK(s.device[0].compute == max(b.attention, b.mlp));
  CHECK(s.device[1].compute == max(max(b.attention, b.mlp), b.output));
  CHECK(s.pipeline_parallel);
  CHECK_FALSE(lc::split_layers(m, o, unit_slots(32), request(32, 2, shares({}))).pipeline_parallel);
  auto nkvo = request(33, 2, shares({}));
  nkvo.kv_offload = false;
  CHECK_FALSE(lc::split_layers(m, o, unit_slots(32), nkvo).pipeline_parallel);
  CHECK_FALSE(lc::split_layers(m, o, unit_slots(32), request(33, 1, shares({}))).pipeline_parallel);
  // -ngl 0 over two GPUs: the first reserves the whole buffer, as one GPU does.
  const auto none = lc::split_layers(m, o, unit_slots(32), request(0, 2, shares({})));
  CHECK(none.device[0].compute == b.device);
  CHECK(none.device[1].total() == 0_B);
  // The largest -ngl on two GPUs of a given size: it fits on both, and no larger -ngl does.
  const bytes gpu = s.device[1].total() - 40_MiB + lc::fit_margin;  // too small for the full split
  const auto best = lc::largest_fitting_split(m, o, unit_slots(32), request(0, 2, shares({})), gpu);
  REQUIRE(best.has_value());
  CHECK(best->fits(gpu, lc::fit_margin));
  CHECK(best->gpu_slots < 33);
  for (std::uint32_t n = best->gpu_slots + 1; n <= 33; ++n) {
    CAPTURE(n);
    CHECK_FALSE(lc::split_layers(m, o, unit_slots(32), request(n, 2, shares({}))).fits(gpu, lc::fit_margin));
  }
}

TEST_CASE("llama.cpp -ts: -ngl auto over GPUs whose use falls as -ngl grows", "[engines][llama.cpp][tensor-split]") {
  // Shares 3,1 and an output layer of 10 MiB beside 1 MiB blocks: at -ngl 3 the keys 0, 1/3, 2/3 all fall
  // below 0.75, so GPU 0 holds two blocks and the output layer (12 MiB); at -ngl 4 the output's key 0.75
  // moves it to GPU 1 and GPU 0 holds three blocks (3 MiB). A bisection over -ngl could stop below the
  // largest count that fits; the answer must be the largest n whose fullest GPU fits (a scan of every n).
  const auto m = config("meta-llama__Llama-3.1-8B.config.json");
  kvsize::engine_options o{.context = 4'096};
  const lc::slot_weights heavy_output{std::span<const std::uint64_t>{one_mib_blocks.data(), 32}, {},
                                      bytes{10 * mib}, bytes{0}, false};
  const auto use = [&](std::uint32_t n) {
    const auto s = lc::split_layers(m, o, heavy_output, request(n, 2, shares({3, 1})));
    return s.device.at(s.fullest_device()).total();
  };
  CHECK(use(4) < use(3));  // the case exists
  for (std::uint32_t n = 1; n <= 33; ++n) {
    CAPTURE(n);
    const bytes memory = use(n) + lc::fit_margin;  // n fits, exactly
    std::uint32_t expected = 0;
    for (std::uint32_t k = 0; k <= 33; ++k) {
      expected = use(k) <= use(n) ? k : expected;
    }
    const auto best = lc::largest_fitting_split(m, o, heavy_output, request(0, 2, shares({3, 1})), memory);
    REQUIRE(best.has_value());
    CHECK(best->gpu_slots == expected);
  }
}

namespace {

constexpr std::uint32_t f32_id = 0;
constexpr std::uint32_t f16_id = 1;
constexpr std::uint32_t q8_0_id = 8;

/// ggml's bytes: f32 4, f16 2, q8_0 34 per 32 elements (ggml-common.h block_q8_0).
auto put(kvsize_test::gguf_writer& w, const std::string& name, std::initializer_list<std::uint64_t> ne,
         std::uint32_t type) -> void {
  std::uint64_t n = 1;
  for (const auto d : ne) {
    n *= d;
  }
  const std::uint64_t size = type == f32_id ? n * 4 : type == f16_id ? n * 2 : n / 32 * 34;
  w.tensor(name, ne, type, size);
}

/// A Llama GGUF's tensor table: every matrix in `type`, norms f32.
auto llama_gguf(const kvsize_test::header_keys& keys, std::uint64_t ffn, std::uint32_t type) -> kvsize_test::gguf_writer {
  auto w = kvsize_test::model_header("llama", keys);
  w.kv_u32("llama.feed_forward_length", static_cast<std::uint32_t>(ffn));
  const std::uint64_t e = keys.embedding;
  const std::uint64_t kv = e / keys.heads * keys.kv_heads;
  put(w, "token_embd.weight", {e, keys.vocab}, type);
  for (std::uint32_t il = 0; il < keys.layers; ++il) {
    const std::string p = "blk." + std::to_string(il) + ".";
    put(w, p + "attn_norm.weight", {e}, f32_id);
    put(w, p + "ffn_norm.weight", {e}, f32_id);
    put(w, p + "attn_q.weight", {e, e}, type);
    put(w, p + "attn_k.weight", {e, kv}, type);
    put(w, p + "attn_v.weight", {e, kv}, type);
    put(w, p + "attn_output.weight", {e, e}, type);
    put(w, p + "ffn_gate.weight", {e, ffn}, type);
    put(w, p + "ffn_up.weight", {e, ffn}, type);
    put(w, p + "ffn_down.weight", {ffn, e}, type);
  }
  put(w, "output_norm.weight", {e}, f32_id);
  put(w, "output.weight", {e, keys.vocab}, type);
  return w;
}

auto split_of(const kvsize_test::gguf_writer& w, const kvsize::engine_options& o, const lc::offload_request& r)
    -> lc::offload_split {
  const auto g = kvsize::gguf::model_of(kvsize_test::read_bytes(w.bytes()), "test.gguf");
  REQUIRE(g.weights.has_value());
  const auto loaded = kvsize::gguf::loaded_blocks_of(g);
  const lc::slot_weights slots{loaded.bytes, loaded.experts, bytes{g.weights->output_slot},
                               bytes{g.weights->token_embedding}, g.weights->output == 0, bytes{g.weights->other_input}};
  return lc::split_layers(g.spec, o, slots, r);
}

/// bytes → MiB to the 0.01 llama.cpp prints (%.2f).
auto centi_mib(bytes b) -> std::uint64_t { return (b.count() * 100 + mib / 2) / mib; }

}  // namespace

TEST_CASE("llama.cpp -ts: public multi-GPU logs, to the printed 0.01 MiB", "[engines][llama.cpp][tensor-split]") {
  SECTION("Llama-2-7B F16 on 4 GPUs, -ngl 32 -c 4096, split by free memory (llama.cpp#9229, a 2024 build)") {
    // https://github.com/ggml-org/llama.cpp/issues/9229: "CUDA3 buffer size = 3088.25 MiB", "CUDAd KV buffer
    // size = 512.00 MiB" on each of 4, "CUDA1 compute buffer size = 296.00 MiB" (2 and 3 alike), "CUDA0
    // compute buffer size = 320.50 MiB". -ngl 32 = n_layer on a build before PR #18148: the output on the host.
    const auto w = llama_gguf({.layers = 32, .context = 4'096, .embedding = 4'096, .heads = 32, .kv_heads = 32,
                               .vocab = 32'000},
                              11'008, f16_id);
    kvsize::engine_options o{.context = 4'096};
    o.llama_cpp.flash_attn = false;  // off by default in 2024 builds
    const auto s = split_of(w, o, request(32, 4, shares({}), false));
    CHECK_FALSE(s.output_on_gpu);
    for (std::uint32_t d = 0; d < 4; ++d) {
      CAPTURE(d);
      CHECK(s.device.at(d).blocks == 8);
      CHECK(s.device.at(d).weights == bytes{8ULL * 404'783'104ULL});  // 386.03125 MiB a block
      CHECK(centi_mib(s.device.at(d).weights) == 308'825);             // "3088.25 MiB"
      CHECK(s.device.at(d).kv == 512_MiB);                              // 8 × 4,096 × 4,096 × 2 × 2 B
    }
    CHECK(centi_mib(s.device[1].compute) == 29'600);  // "296.00 MiB": one layer's attention, KQ in f32
    CHECK(s.device[0].compute <= bytes{320 * mib + mib / 2});  // "320.50": the first GPU also copies the input in
    CHECK_FALSE(s.pipeline_parallel);  // -ngl 32 < n_layer + 1
  }

  SECTION("Llama-3-70B Q8_0 over 3 GPUs, ollama's layer counts 28,0,53 (ollama#11986, full offload)") {
    // https://github.com/ollama/ollama/issues/11986: "offloaded 81/81 layers to GPU", "CUDA0 model buffer size =
    // 24277.75 MiB", "CUDA2 model buffer size = 46151.91 MiB", "CPU_Mapped model buffer size = 1064.62 MiB". ollama
    // passes per-GPU layer counts as tensor_split; CUDA1 got none.
    const auto w = llama_gguf({.layers = 80, .context = 8'192, .embedding = 8'192, .heads = 64, .kv_heads = 8,
                               .vocab = 128'256},
                              28'672, q8_0_id);
    const auto s = split_of(w, kvsize::engine_options{.context = 2'048}, request(81, 3, shares({28, 0, 53})));
    CHECK(s.device[0].blocks == 28);
    CHECK(s.device[0].weights == bytes{28ULL * 909'180'928ULL});  // 867.0625 MiB a block
    CHECK(centi_mib(s.device[0].weights) == 2'427'775);           // "24277.75 MiB"
    CHECK(s.device[1].total() == 0_B);
    CHECK(s.device[2].output);
    CHECK(centi_mib(s.device[2].weights) == 4'615'191);  // "46151.91 MiB": 52 blocks and the output layer
    CHECK(s.host_weights == bytes{1'116'340'224});        // token_embd: "1064.62 MiB" (1064.625)
    CHECK(s.pipeline_parallel);
  }
}

#ifdef KVSIZE_CLI_PATH
TEST_CASE("kvsize -ts: the offload split per GPU, and the KV per device above it", "[cli][tensor-split]") {
  namespace fs = std::filesystem;
  const fs::path file = fs::temp_directory_path() / ("kvsize-ts-" + std::to_string(::getpid()) + ".gguf");
  // 4 blocks of 1 MiB, output and token_embd 1 MiB each; 16 MiB of KV a layer at -c 4096.
  kvsize_test::write_mib_blocks_gguf(file, 4);
  const std::string base = "'" + file.string() + "' --engine llama.cpp --gpu-memory 4GiB";
  // -ts 1,1 on 5 slots: keys 0, 0.2, 0.4 go below 0.5 (GPU 0: blocks 0-2), 0.6 and 0.8 above (GPU 1: block 3
  // and the output layer). Two GPUs without --tp/--pp: as many as the shares.
  const auto j = kvsize::test::json_of(base + " -ts 1,1");
  REQUIRE(j.contains("offload"));
  const auto& devices = j["offload"]["asked"]["devices"];
  REQUIRE(devices.size() == 2);
  CHECK(devices[0]["blocks"] == 3);
  CHECK(devices[0]["weights_bytes"] == 3 * mib);
  CHECK(devices[0]["kv_bytes"] == 48 * mib);
  CHECK(devices[1]["first_block"] == 3);
  CHECK(devices[1]["output"] == true);
  CHECK(devices[1]["weights_bytes"] == 2 * mib);
  CHECK(devices[1]["kv_bytes"] == 16 * mib);
  CHECK(j["offload"]["asked"]["pipeline_parallel"] == true);
  CHECK(j["offload"]["asked"]["device_kv_bytes"] == 64 * mib);
  // The sections above size the fullest device by the same rule: GPU 0's three layers.
  CHECK(j["pp"] == 2);
  CHECK(j["kv_bytes"] == 48 * mib);
  // The same GPUs given as --tp 2, with uneven shares: GPU 0 all four blocks, GPU 1 the output layer.
  const auto uneven = kvsize::test::json_of(base + " --tp 2 --tensor-split 3,1");
  CHECK(uneven["offload"]["asked"]["devices"][0]["blocks"] == 4);
  CHECK(uneven["offload"]["asked"]["devices"][1]["blocks"] == 0);
  CHECK(uneven["kv_bytes"] == 64 * mib);
  const auto r = kvsize::test::run_cli(base + " -ts 3/1");
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("GPU 1 (the output layer)") != std::string::npos);
  CHECK(r.out.find("-ts 3,1") != std::string::npos);  // the run-it line carries the split
  // Another engine reads no -ts: a warning, whatever its text, never a refusal.
  const auto vllm = kvsize::test::run_cli("'" + file.string() + "' --engine vllm -ts abc");
  CHECK(vllm.exit_code == 0);
  CHECK(vllm.err.find("-ts has no effect") != std::string::npos);
  fs::remove(file);
}

TEST_CASE("kvsize -ts: llama.cpp's log lines over two GPUs", "[cli][tensor-split]") {
  // Llama-3.1-8B, -c 4096, two GPUs by free memory: 17 blocks on CUDA0, 15 and the output layer on CUDA1
  // (keys j/33 below 0.5). llama_kv_cache's size line covers all 32 layers (512 MiB: 16 MiB a layer),
  // one KV buffer per GPU: 17 × 16 = 272 MiB and 15 × 16 = 240 MiB.
  const auto j = kvsize::test::json_of("'" + std::string{KVSIZE_SOURCE_DIR} +
                                       "/configs/meta-llama__Llama-3.1-8B.config.json' --engine llama.cpp -c 4096 -ts 1,1");
  std::vector<std::string> lines;
  for (const auto& l : j["log_lines"]) {
    lines.push_back(l.get<std::string>());
  }
  const auto has = [&](const std::string& text) {
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(text) != std::string::npos; });
  };
  CHECK(has("llama_kv_cache: size =  512.00 MiB (  4096 cells,  32 layers"));
  CHECK(has("llama_kv_cache:      CUDA0 KV buffer size =   272.00 MiB"));
  CHECK(has("llama_kv_cache:      CUDA1 KV buffer size =   240.00 MiB"));
  CHECK(has("CUDA0 compute buffer size"));
  CHECK(has("CUDA1 compute buffer size"));
}

TEST_CASE("kvsize -ts: the plan's verdict uses the heaviest GPU's weights", "[cli][tensor-split]") {
  // Llama-3.1-70B in q4_K_M on two RTX 4090s: split 1,1 every GPU holds about half and it fits; split 3,1
  // puts 61 of 81 slots on GPU 0, about 30 GiB of weights on a 23.64 GiB board, which the plan and the
  // offload section both refuse (the weights over two GPUs, evenly, would have said it fits).
  const std::string base = "'" + std::string{KVSIZE_SOURCE_DIR} +
                           "/configs/meta-llama__Llama-3.1-70B.config.json' --engine llama.cpp --gpu rtx-4090 "
                           "--weights-dtype q4_K_M -c 8192";
  const auto even = kvsize::test::json_of(base + " -ts 1,1");
  CHECK(even["plan"]["fits"] == true);
  CHECK(even["offload"]["fits"] == true);
  const auto& gpus = even["offload"]["asked"]["devices"];
  const auto heaviest = std::max(gpus[0]["weights_bytes"].get<std::uint64_t>(), gpus[1]["weights_bytes"].get<std::uint64_t>());
  CHECK(even["capacity"]["weights_per_device_bytes"] == heaviest);
  CHECK(even["capacity"]["weights_whole_per_device_bytes"].is_null());  // a layer split replicates nothing
  const auto uneven = kvsize::test::json_of(base + " -ts 3,1");
  CHECK(uneven["plan"]["fits"] == false);
  CHECK(uneven["offload"]["fits"] == false);
  CHECK(uneven["capacity"]["weights_per_device_bytes"] == uneven["offload"]["asked"]["devices"][0]["weights_bytes"]);
}
#endif

TEST_CASE("llama.cpp -ts: the planner's other device counts split the layers equally", "[engines][llama.cpp][tensor-split]") {
  // Llama-3-8B (16,060,522,496 B of bf16 weights) for one user of 131,072 tokens (16 GiB of KV) on 12 GiB
  // GPUs, asked as -ts 1,0 over two: GPU 0 would hold every layer. The smallest device count that fits is
  // looked for with equal shares: -ts 1,0 names two devices, and at tp 2 (4 GPUs) the two added ones would
  // otherwise get share 0, leaving all 16 GiB of KV on GPU 0 at every count tried.
  kvsize::plan_inputs in{};
  in.engine = kvsize::engine_kind::llama_cpp;
  in.weights = kvsize::bytes{16'060'522'496};
  in.weights_per_device = in.weights;  // -ts 1,0: GPU 0 holds them all
  in.device_memory = kvsize::GiB * 12;
  in.options.context = 131'072;
  in.options.batch = 1;
  in.options.pp = 2;
  in.options.llama_cpp.split = shares({1, 0});
  const auto p = kvsize::plan(kvsize::presets::llama_3_8b, in);
  CHECK_FALSE(p.point.fits());
  CHECK(p.min_tp == 2);  // 4 GPUs, 8 blocks and 4 GiB of KV each
}
