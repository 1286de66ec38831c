// SPDX-License-Identifier: MIT
// engines/llama_cpp_offload.hpp: llama.cpp's partial offload on one GPU, and the command line's
// offload section on a GGUF file. The placement rules (docs/research/llama-cpp-offload.md):
// n_layer + 1 slots; -ngl N takes the output slot first, then blocks from the top
// (src/llama-model.cpp load_tensors, since https://github.com/ggml-org/llama.cpp/pull/18148);
// token_embd stays on the host; a block's KV goes with the block; --n-cpu-moe N keeps blocks
// 0 … N−1's ffn_*_exps on the host. Expected figures are derived beside each check.
#include <kvsize/engine.hpp>
#include <kvsize/gguf.hpp>
#include <kvsize/hf_config.hpp>
#include <kvsize/weights.hpp>

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
#include <initializer_list>
#include <fstream>
#include <string>
#include <vector>

namespace {

using kvsize::bytes;
using kvsize::engines::llama_cpp::offload_request;
using kvsize::engines::llama_cpp::slot_weights;
using kvsize::engines::llama_cpp::split_layers;
namespace lc = kvsize::engines::llama_cpp;
using namespace kvsize::literals;

using kvsize_test::mib;

auto llama3() -> kvsize::model_spec { return kvsize_test::llama3_f16(); }
auto options() -> kvsize::engine_options { return kvsize_test::options_4k_f16(); }

// Synthetic weights: 100 MiB per block, of which 60 MiB experts; output slot 200 MiB; token_embd 250 MiB.
constexpr auto blocks = [] {
  std::array<std::uint64_t, 32> b{};
  b.fill(100 * mib);
  return b;
}();
constexpr auto experts = [] {
  std::array<std::uint64_t, 32> e{};
  e.fill(60 * mib);
  return e;
}();

auto weights(bool moe = false) -> slot_weights {
  return {blocks, moe ? std::span<const std::uint64_t>{experts} : std::span<const std::uint64_t>{}, bytes{200 * mib},
          bytes{250 * mib}, false};
}

auto ngl(std::uint32_t n) -> offload_request {
  offload_request r;
  r.n_gpu_layers = n;
  return r;
}

}  // namespace

TEST_CASE("llama.cpp offload: -ngl takes the output layer first, then blocks from the top", "[engines][llama.cpp][offload]") {
  const auto m = llama3();
  const auto o = options();
  const bytes compute = lc::compute_buffers_for(m, o).device;
  // -ngl 0: everything on the host: 32 × 100 + 200 + 250 MiB of weights, 512 MiB of KV; the GPU still
  // holds the compute buffer (a CUDA build reserves it for the matmuls it offloads).
  const auto none = split_layers(m, o, weights(), ngl(0));
  CHECK(none.gpu_slots == 0);
  CHECK(none.slots == 33);
  CHECK(none.device_total() == compute);
  CHECK(none.host_weights == bytes{3'650 * mib});
  CHECK(none.host_kv == 512_MiB);
  // -ngl 1: only the output slot (PR #18148's "offloaded 1/29 layers" has layer 28 = the output on CUDA0).
  const auto one = split_layers(m, o, weights(), ngl(1));
  CHECK(one.first_gpu_block == 32);
  CHECK(one.device_weights == 200_MiB);
  CHECK(one.device_kv == 0_B);
  CHECK(one.device_compute == compute);
  CHECK(one.host_weights == bytes{3'450 * mib});
  // -ngl 5: output + blocks 28-31: 200 + 4 × 100 MiB, 4 × 16 MiB of KV on the GPU, 28 × 16 on the host.
  const auto five = split_layers(m, o, weights(), ngl(5));
  CHECK(five.first_gpu_block == 28);
  CHECK(five.device_weights == 600_MiB);
  CHECK(five.device_kv == 64_MiB);
  CHECK(five.host_kv == 448_MiB);
  CHECK(five.host_weights == bytes{(28 * 100 + 250) * mib});
  // -ngl 33 and -ngl 999: every slot; token_embd stays on the host.
  for (const std::uint32_t n : {33U, 999U}) {
    const auto all = split_layers(m, o, weights(), ngl(n));
    CHECK(all.gpu_slots == 33);
    CHECK(all.first_gpu_block == 0);
    CHECK(all.device_weights == bytes{3'400 * mib});
    CHECK(all.device_kv == 512_MiB);
    CHECK(all.host_weights == 250_MiB);
    CHECK(all.host_kv == 0_B);
  }
  // -ngl 32 = n_layer: the output layer and blocks 1-31 now; all 32 blocks and no output layer before PR #18148.
  const auto n32 = split_layers(m, o, weights(), ngl(32));
  CHECK(n32.output_on_gpu);
  CHECK(n32.first_gpu_block == 1);
  offload_request old32 = ngl(32);
  old32.output_layer_first = false;
  const auto o32 = split_layers(m, o, weights(), old32);
  CHECK_FALSE(o32.output_on_gpu);
  CHECK(o32.first_gpu_block == 0);
  CHECK(o32.device_weights == bytes{3'200 * mib});
}

TEST_CASE("llama.cpp offload: GPU use never falls as -ngl grows, and the bisection finds what a scan finds",
          "[engines][llama.cpp][offload]") {
  const auto m = llama3();
  const auto o = options();
  slot_weights tied = weights(true);
  tied.tied_output = true;
  for (const bool output_first : {true, false}) {
    for (const int flags : {0, 1, 2, 3}) {
      offload_request r;
      r.output_layer_first = output_first;
      r.n_cpu_moe = flags == 1 ? 5 : 0;
      r.kv_offload = flags != 2;
      const slot_weights& w = flags == 3 ? tied : weights(true);
      INFO("output first " << output_first << ", flags " << flags);
      for (std::uint32_t n = 1; n <= 34; ++n) {
        offload_request a = r;
        a.n_gpu_layers = n - 1;
        offload_request b = r;
        b.n_gpu_layers = n;
        CHECK(split_layers(m, o, w, a).device_total() <= split_layers(m, o, w, b).device_total());
      }
      for (const std::uint64_t device_mib : {1'000ULL, 1'400ULL, 2'000ULL, 3'333ULL, 5'000ULL, 80'000ULL}) {
        const bytes device{device_mib * mib};
        std::optional<std::uint32_t> scan;
        for (std::uint32_t n = 0; n <= 33; ++n) {
          offload_request a = r;
          a.n_gpu_layers = n;
          if (split_layers(m, o, w, a).device_total() + lc::fit_margin <= device) {
            scan = n;
          }
        }
        const auto best = lc::largest_fitting_split(m, o, w, r, device);
        CHECK(best.has_value() == scan.has_value());
        if (best && scan) {
          CHECK(best->gpu_slots == *scan);
        }
      }
    }
  }
}

TEST_CASE("llama.cpp offload: the recurrent state goes with its layer", "[engines][llama.cpp][offload]") {
  // LFM2-1.2B: 16 layers, 6 of them attention, 10 short-conv layers each with a conv state of
  // (L_cache − 1) × 2,048 f32 elements per sequence (llama.cpp keeps states in f32).
  auto m = kvsize::hf::load_config(std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs" / "LiquidAI__LFM2-1.2B.config.json")
               .spec;
  m.compute_dtype = kvsize::dtype::f16;
  const auto o = options();
  std::array<std::uint64_t, 16> per_block{};
  per_block.fill(mib);
  const slot_weights w{per_block, {}, 0_B, 0_B, true};
  offload_request all;
  const auto on_gpu = split_layers(m, o, w, all);
  CHECK(on_gpu.device_state > 0_B);
  CHECK(on_gpu.host_state == 0_B);
  offload_request none = ngl(0);
  const auto on_host = split_layers(m, o, w, none);
  CHECK(on_host.host_state == on_gpu.device_state);
  CHECK(on_host.host_kv == on_gpu.device_kv);
  // Half the blocks: the two sides add up to the whole.
  const auto half = split_layers(m, o, w, ngl(9));
  CHECK(half.device_state + half.host_state == on_gpu.device_state);
  CHECK(half.device_kv + half.host_kv == on_gpu.device_kv);
}

TEST_CASE("llama.cpp offload: experts, -nkvo and tied embeddings", "[engines][llama.cpp][offload]") {
  const auto m = llama3();
  const auto o = options();
  // --n-cpu-moe 30 at -ngl all: blocks 0-29 keep their 60 MiB of experts on the host.
  offload_request r;
  r.n_cpu_moe = 30;
  const auto ncmoe = split_layers(m, o, weights(true), r);
  CHECK(ncmoe.device_weights == bytes{(200 + 32 * 100 - 30 * 60) * mib});
  CHECK(ncmoe.host_weights == bytes{(250 + 30 * 60) * mib});
  // --cpu-moe: every block's experts.
  r = {};
  r.cpu_moe = true;
  CHECK(split_layers(m, o, weights(true), r).device_weights == bytes{(200 + 32 * 40) * mib});
  // -nkvo: the whole cache on the host, the weights unchanged.
  r = {};
  r.kv_offload = false;
  const auto nkvo = split_layers(m, o, weights(), r);
  CHECK(nkvo.device_kv == 0_B);
  CHECK(nkvo.host_kv == 512_MiB);
  CHECK(nkvo.device_weights == bytes{3'400 * mib});
  // Tied embeddings: the output slot holds its own copy of token_embd (and the host keeps the original).
  slot_weights tied = weights();
  tied.output = 5_MiB;
  tied.tied_output = true;
  const auto t = split_layers(m, o, tied, ngl(1));
  CHECK(t.device_weights == 255_MiB);
  CHECK(t.host_weights == bytes{(3'200 + 250) * mib});
  // Weights that do not match the model are refused.
  const std::array<std::uint64_t, 33> too_many{};
  CHECK_THROWS_AS(split_layers(m, o, slot_weights{too_many, {}, 0_B, 0_B, false}, ngl(1)), kvsize::invalid_argument);
  std::array<std::uint64_t, 32> big_experts{};
  big_experts.fill(101 * mib);
  CHECK_THROWS_AS(split_layers(m, o, slot_weights{blocks, big_experts, 0_B, 0_B, false}, ngl(33)),
                  kvsize::invalid_argument);
  // Also when every block stays on the host (-ngl 0), and over two GPUs.
  CHECK_THROWS_AS(split_layers(m, o, slot_weights{blocks, big_experts, 0_B, 0_B, false}, ngl(0)),
                  kvsize::invalid_argument);
  offload_request two = ngl(20);
  two.devices = 2;
  CHECK_THROWS_AS(split_layers(m, o, slot_weights{blocks, big_experts, 0_B, 0_B, false}, two), kvsize::invalid_argument);
}

TEST_CASE("llama.cpp offload: the largest -ngl that leaves --fit's 1 GiB free", "[engines][llama.cpp][offload]") {
  const auto m = llama3();
  const auto o = options();
  const bytes compute = lc::compute_buffers_for(m, o).device;
  // -ngl 10 holds the output (200 MiB) and 9 blocks (9 × 100 MiB weights + 9 × 16 MiB KV) beside the
  // compute buffer: 1,244 MiB + compute. With the 1 GiB margin the device needs exactly 2,268 MiB + compute.
  const bytes device = compute + bytes{2'268 * mib};
  const auto best = lc::largest_fitting_split(m, o, weights(), {}, device);
  REQUIRE(best.has_value());
  CHECK(best->gpu_slots == 10);
  CHECK(best->device_total() + lc::fit_margin == device);
  CHECK(lc::largest_fitting_split(m, o, weights(), {}, device - 1_B)->gpu_slots == 9);
  // A device as large as everything takes every slot; one under the margin takes none.
  CHECK(lc::largest_fitting_split(m, o, weights(), {}, 80_GiB)->gpu_slots == 33);
  CHECK(lc::largest_fitting_split(m, o, weights(), {}, compute + 1_GiB)->gpu_slots == 0);
  CHECK_FALSE(lc::largest_fitting_split(m, o, weights(), {}, compute + 1_GiB - 1_B).has_value());
}

TEST_CASE("GGUF: weights by llama.cpp's layer slot", "[gguf][offload]") {
  CHECK(kvsize::gguf::block_of("blk.12.attn_q.weight") == 12);
  CHECK(kvsize::gguf::block_of("blk.0.ffn_up_exps.weight") == 0);
  CHECK(kvsize::gguf::block_of("blk.512.attn_q.weight") == kvsize::max_layers);
  CHECK(kvsize::gguf::block_of("blk.99999999999999999999.x") == kvsize::max_layers);
  CHECK(kvsize::gguf::block_of("blk.12") == kvsize::max_layers);
  CHECK(kvsize::gguf::block_of("blk..x") == kvsize::max_layers);
  CHECK(kvsize::gguf::block_of("output.weight") == kvsize::max_layers);
  auto w = kvsize_test::llama_header("llama", 2);
  w.tensor("token_embd.weight", {8, 4}, 0, 128)
      .tensor("blk.0.attn_q.weight", {8, 8}, 0, 256)
      .tensor("blk.1.attn_q.weight", {8, 8}, 0, 256)
      .tensor("blk.1.ffn_up_exps.weight", {8, 4, 2}, 0, 256)
      .tensor("blk.1.ffn_down_chexps.weight", {8, 2}, 0, 64)
      .tensor("per_layer_token_embd.weight", {8, 2}, 0, 64)
      .tensor("output_norm.weight", {8}, 0, 32)
      .tensor("rope_freqs.weight", {4}, 0, 16);
  const auto g = kvsize::gguf::model_of(kvsize_test::read_bytes(w.bytes()), "test.gguf");
  REQUIRE(g.weights.has_value());
  CHECK(g.weights->block == std::vector<std::uint64_t>{256, 576});
  CHECK(g.weights->block_experts == std::vector<std::uint64_t>{0, 320});  // _exps and GroveMoE's _chexps
  CHECK(g.weights->output_slot == 48);  // output_norm + rope_freqs; no output.weight: tied
  CHECK(g.weights->other_input == 64);  // per_layer_token_embd: an input-layer tensor, on the host
  CHECK(g.weights->output == 0);
  // Split shards with block lists of different lengths add block by block.
  kvsize::gguf::gguf_weights sum = *g.weights;
  kvsize::gguf::gguf_weights shard;
  kvsize::gguf::add_to_block(shard, 3, 100, 40);
  kvsize::gguf::add(sum, shard);
  CHECK(sum.block == std::vector<std::uint64_t>{256, 576, 0, 100});
  CHECK(sum.block_experts == std::vector<std::uint64_t>{0, 320, 0, 40});
}

namespace {

constexpr std::uint32_t f32_id = 0;
constexpr std::uint32_t f16_id = 1;
constexpr std::uint32_t q4_0_id = 2;
constexpr std::uint32_t q8_0_id = 8;
constexpr std::uint32_t q4_k_id = 12;
constexpr std::uint32_t q6_k_id = 14;

/// A tensor's bytes from ggml's block sizes (ggml-common.h): f32 4 B, f16 2 B, q4_0 18 B and q8_0 34 B
/// per 32 elements, q4_K 144 B and q6_K 210 B per 256.
auto size_of(std::uint32_t type, std::initializer_list<std::uint64_t> ne) -> std::uint64_t {
  std::uint64_t n = 1;
  for (const auto d : ne) {
    n *= d;
  }
  switch (type) {
    case f32_id: return n * 4;
    case f16_id: return n * 2;
    case q4_0_id: return n / 32 * 18;
    case q8_0_id: return n / 32 * 34;
    case q4_k_id: return n / 256 * 144;
    case q6_k_id: return n / 256 * 210;
    default: FAIL("no size for ggml type " << type); return 0;
  }
}

/// Adds tensor `name` of ggml type `type` and shape `ne` to `w`, sized by size_of.
auto put(kvsize_test::gguf_writer& w, const std::string& name, std::initializer_list<std::uint64_t> ne,
         std::uint32_t type) -> kvsize_test::gguf_writer& {
  return w.tensor(name, ne, type, size_of(type, ne));
}

/// The offload split of a GGUF header, through the reader: model_of's spec and tensor-table slots.
auto split_of(const kvsize_test::gguf_writer& w, const kvsize::engine_options& o, const offload_request& r)
    -> lc::offload_split {
  const auto g = kvsize::gguf::model_of(kvsize_test::read_bytes(w.bytes()), "test.gguf");
  REQUIRE(g.weights.has_value());
  const kvsize::gguf::loaded_blocks loaded = kvsize::gguf::loaded_blocks_of(g);
  const slot_weights slots{loaded.bytes, loaded.experts, bytes{g.weights->output_slot},
                           bytes{g.weights->token_embedding}, g.weights->output == 0, bytes{g.weights->other_input}};
  return split_layers(g.spec, o, slots, r);
}

}  // namespace

TEST_CASE("llama.cpp offload: public logs of builds before PR #18148, to the printed 0.01 MiB", "[engines][llama.cpp][offload]") {
  // Before PR #18148, -ngl N < n_layer + 1 put blocks n_layer − N … n_layer − 1 on the GPU and kept the
  // output layer on the host ("layer 32 assigned to device CPU").
  offload_request old_rule;
  old_rule.output_layer_first = false;

  SECTION("Mistral-7B-Instruct-v0.1 Q4_K_M, n_gpu_layers 20, n_ctx 768 (arXiv 2509.11947, Appendix B)") {
    // https://arxiv.org/abs/2509.11947: "offloaded 20/33 layers to GPU", "CUDA0 model buffer size = 2495.31 MiB",
    // "CUDA0 KV buffer size = 60.00 MiB", "CPU KV buffer size = 36.00 MiB". The Q4_K_M mix of llama-quantize:
    // q4_K (144 B per 256) everywhere but output (q6_K, 210 B per 256) and attn_v / ffn_down in q6_K on the
    // "more bits" blocks i < n/8 || i >= 7n/8 || (i − n/8) % 3 == 2 (16 of 32); norms f32.
    auto w = kvsize_test::model_header("llama", {.layers = 32, .context = 32'768, .vocab = 32'000});
    w.kv_u32("llama.feed_forward_length", 14'336);
    put(w, "token_embd.weight", {4'096, 32'000}, q4_k_id);
    for (std::uint32_t il = 0; il < 32; ++il) {
      const bool more_bits = il < 4 || il >= 28 || (il - 4) % 3 == 2;
      const std::string p = "blk." + std::to_string(il) + ".";
      put(w, p + "attn_norm.weight", {4'096}, f32_id);
      put(w, p + "ffn_norm.weight", {4'096}, f32_id);
      put(w, p + "attn_q.weight", {4'096, 4'096}, q4_k_id);
      put(w, p + "attn_output.weight", {4'096, 4'096}, q4_k_id);
      put(w, p + "attn_k.weight", {4'096, 1'024}, q4_k_id);
      put(w, p + "attn_v.weight", {4'096, 1'024}, more_bits ? q6_k_id : q4_k_id);
      put(w, p + "ffn_gate.weight", {4'096, 14'336}, q4_k_id);
      put(w, p + "ffn_up.weight", {4'096, 14'336}, q4_k_id);
      put(w, p + "ffn_down.weight", {14'336, 4'096}, more_bits ? q6_k_id : q4_k_id);
    }
    put(w, "output_norm.weight", {4'096}, f32_id);
    put(w, "output.weight", {4'096, 32'000}, q6_k_id);
    kvsize::engine_options o{.context = 768};
    o.llama_cpp.ubatch = 256;
    offload_request r = old_rule;
    r.n_gpu_layers = 20;
    const auto s = split_of(w, o, r);
    CHECK(s.gpu_slots == 20);
    CHECK(s.first_gpu_block == 12);  // "layer 12 assigned to device CUDA0" … "layer 32 assigned to device CPU"
    CHECK_FALSE(s.output_on_gpu);
    // 10 "more bits" blocks (12, 15, …, 27, 28-31) of 138,936,320 B and 10 plain of 122,716,160 B.
    CHECK(s.device_weights == bytes{2'616'524'800});
    CHECK((s.device_weights.count() * 100 + mib / 2) / mib == 249'531);  // "2495.31 MiB"
    CHECK(s.device_kv == 60_MiB);  // 20 × 768 × (1,024 + 1,024) × 2 B
    CHECK(s.host_kv == 36_MiB);
    // The log's "CPU_Mapped model buffer size = 4165.37 MiB" is the mapped span of the whole file;
    // the tensors that stay on the host (token_embd, blocks 0-11, output) are what kvsize counts.
    CHECK((s.device_weights + s.host_weights).count() * 100 / mib == 416'536);  // the whole table: 4165.36…
    // The same flags on a current build: the output layer and 19 blocks.
    r.output_layer_first = true;
    const auto now = split_of(w, o, r);
    CHECK(now.output_on_gpu);
    CHECK(now.first_gpu_block == 13);
  }

  SECTION("Mixtral-8x7B Q4_0, 23 layers (https://github.com/ollama/ollama/issues/3301)") {
    // "offloaded 23/33 layers to GPU", "CUDA0 buffer size = 17999.66 MiB": 23 blocks of 782.59375 MiB:
    // 8 experts × 3 in q4_0 (18 B per 32), attn_q / attn_output q4_0, attn_k / attn_v q8_0 (34 B per 32,
    // llama-quantize's rule for 8 experts), ffn_gate_inp f16, two f32 norms.
    auto w = kvsize_test::model_header("llama", {.layers = 32, .context = 32'768, .vocab = 32'000});
    w.kv_u32("llama.feed_forward_length", 14'336).kv_u32("llama.expert_count", 8).kv_u32("llama.expert_used_count", 2);
    put(w, "token_embd.weight", {4'096, 32'000}, q4_0_id);
    for (std::uint32_t il = 0; il < 32; ++il) {
      const std::string p = "blk." + std::to_string(il) + ".";
      put(w, p + "attn_norm.weight", {4'096}, f32_id);
      put(w, p + "ffn_norm.weight", {4'096}, f32_id);
      put(w, p + "attn_q.weight", {4'096, 4'096}, q4_0_id);
      put(w, p + "attn_output.weight", {4'096, 4'096}, q4_0_id);
      put(w, p + "attn_k.weight", {4'096, 1'024}, q8_0_id);
      put(w, p + "attn_v.weight", {4'096, 1'024}, q8_0_id);
      put(w, p + "ffn_gate_inp.weight", {4'096, 8}, f16_id);
      put(w, p + "ffn_gate_exps.weight", {4'096, 14'336, 8}, q4_0_id);
      put(w, p + "ffn_up_exps.weight", {4'096, 14'336, 8}, q4_0_id);
      put(w, p + "ffn_down_exps.weight", {14'336, 4'096, 8}, q4_0_id);
    }
    put(w, "output_norm.weight", {4'096}, f32_id);
    put(w, "output.weight", {4'096, 32'000}, q6_k_id);
    offload_request r = old_rule;
    r.n_gpu_layers = 23;
    const auto s = split_of(w, kvsize::engine_options{.context = 2'048}, r);
    CHECK(s.device_weights.count() == 23ULL * 820'609'024ULL);  // 782.59375 MiB a block
    CHECK((s.device_weights.count() * 100 + mib / 2) / mib == 1'799'966);  // "17999.66 MiB"
    // --n-cpu-moe 32 keeps every expert on the host: the 23 blocks bring attention, router and norms,
    // 2 × 9,437,184 (q4_0) + 2 × 4,456,448 (q8_0) + 65,536 (f16) + 32,768 B = 27,885,568 B each.
    r.n_cpu_moe = 32;
    CHECK(split_of(w, kvsize::engine_options{.context = 2'048}, r).device_weights.count() == 23ULL * 27'885'568ULL);
  }

  SECTION("Mixtral-8x7B-Instruct Q8_0, -ngl 15 -c 512 (https://github.com/ggml-org/llama.cpp/pull/4957)") {
    // "CUDA0 KV buffer size = 30.00 MiB", "CUDA_Host KV buffer size = 34.00 MiB": 2 MiB a block at 512 cells.
    const auto m = kvsize::hf::load_config(std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs" /
                                           "mistralai__Mixtral-8x7B-v0.1.config.json")
                       .spec;
    kvsize::engine_options o{.context = 512};
    o.kv = kvsize::kv_dtypes::same(kvsize::dtype::f16);
    const std::array<std::uint64_t, 32> one_each = [] {
      std::array<std::uint64_t, 32> a{};
      a.fill(1);
      return a;
    }();
    offload_request r = old_rule;
    r.n_gpu_layers = 15;
    const auto s = split_layers(m, o, slot_weights{one_each, {}, 0_B, 0_B, false}, r);
    CHECK(s.device_kv == 30_MiB);
    CHECK(s.host_kv == 34_MiB);
  }
}

TEST_CASE("llama.cpp offload from config.json: q4_K_M's bytes per layer reproduce the public log", "[engines][llama.cpp][offload]") {
  // Mistral-7B-v0.1's config (the Instruct-v0.1 GGUF of arXiv 2509.11947 has its shape) in kvsize's q4_K_M
  // preset (llama-quant.cpp's rules, weights_gguf.hpp): the file's 4.07 GiB ("file size = 4.07 GiB") and,
  // at n_gpu_layers 20 on a build before PR #18148, "CUDA0 model buffer size = 2495.31 MiB".
  const auto m = kvsize::hf::load_config(std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs" /
                                         "mistralai__Mistral-7B-v0.1.config.json")
                     .spec;
  const auto f = kvsize::gguf_weights(kvsize::gguf_ftype::q4_K_M);
  const auto lw = kvsize::weights_by_layer(m, f);
  std::uint64_t sum = lw.output + lw.token_embedding + lw.other_input;
  for (std::uint32_t il = 0; il < m.layers; ++il) {
    sum += lw.block[il];
  }
  CHECK(sum == kvsize::weights_bytes(m, f).count());
  CHECK(sum == 4'367'704'064ULL);
  CHECK_FALSE(lw.tied);
  const slot_weights w{std::span<const std::uint64_t>{lw.block.data(), m.layers}, {}, bytes{lw.output},
                       bytes{lw.token_embedding}, lw.tied, bytes{lw.other_input}};
  offload_request r;
  r.output_layer_first = false;
  r.n_gpu_layers = 20;
  kvsize::engine_options o{.context = 768};
  o.llama_cpp.ubatch = 256;
  CHECK(split_layers(m, o, w, r).device_weights == bytes{2'616'524'800});
}

TEST_CASE("GGUF: NextN blocks are in the file but not among the loaded blocks", "[gguf][offload]") {
  // glm4moe with 3 blocks, the last a multi-token-prediction head (nextn_predict_layers 1): llama.cpp
  // creates its tensors with TENSOR_SKIP (src/llama-model.cpp load_tensors).
  auto w = kvsize_test::llama_header("glm4moe", 3);
  w.kv_u32("glm4moe.nextn_predict_layers", 1);
  for (std::uint64_t il = 0; il < 3; ++il) {
    w.tensor("blk." + std::to_string(il) + ".attn_q.weight", {512, 512 * (il + 1)}, 0, (il + 1) * mib);
    w.tensor("blk." + std::to_string(il) + ".ffn_up_exps.weight", {512, 512}, 0, mib);
  }
  const auto g = kvsize::gguf::model_of(kvsize_test::read_bytes(w.bytes()), "test.gguf");
  const kvsize::gguf::loaded_blocks loaded = kvsize::gguf::loaded_blocks_of(g);
  CHECK(loaded.bytes == std::vector<std::uint64_t>{2 * mib, 3 * mib, 0});
  CHECK(loaded.experts == std::vector<std::uint64_t>{mib, mib, 0});
  CHECK(loaded.skipped == 4 * mib);
  CHECK(g.weights->block[2] == 4 * mib);  // the table itself keeps them: the file's bytes
}

#ifdef KVSIZE_CLI_PATH
TEST_CASE("kvsize on a GGUF with --engine llama.cpp and a device: the offload split", "[cli][offload]") {
  namespace fs = std::filesystem;
  const fs::path file = fs::temp_directory_path() / ("kvsize-offload-" + std::to_string(::getpid()) + ".gguf");
  // 4 blocks of 1 MiB, output 1 MiB, token_embd 1 MiB; 16 MiB of KV per layer at the default -c 4096.
  kvsize_test::write_mib_blocks_gguf(file, 4);
  const std::string base = "'" + file.string() + "' --engine llama.cpp --gpu-memory 4GiB";
  const auto j = kvsize::test::json_of(base + " -ngl 3");
  REQUIRE(j.contains("offload"));
  const auto& asked = j["offload"]["asked"];
  CHECK(asked["n_gpu_layers"] == 3);
  CHECK(asked["layers"] == 5);
  CHECK(asked["first_gpu_block"] == 2);
  CHECK(asked["device_weights_bytes"] == 3 * mib);  // output + blocks 2, 3
  CHECK(asked["device_kv_bytes"] == 32 * mib);
  CHECK(asked["host_weights_bytes"] == 3 * mib);    // token_embd + blocks 0, 1
  CHECK(asked["host_kv_bytes"] == 32 * mib);
  CHECK(j["offload"]["fits"] == true);
  CHECK(j["offload"]["largest_fitting"]["n_gpu_layers"] == 5);
  // -nkvo and auto, in the text report.
  const auto text = kvsize::test::run_cli(base + " -ngl auto -nkvo");
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Matchers::ContainsSubstring("llama.cpp offload (-ngl auto): offloaded 5/5 layers"));
  CHECK_THAT(text.out, Catch::Matchers::ContainsSubstring("host KV buffer"));
  // A device too small for the 1 GiB margin: said, not hidden.
  const auto small = kvsize::test::json_of("'" + file.string() + "' --engine llama.cpp --gpu-memory 1000MiB");
  CHECK(small["offload"]["fits"] == false);
  CHECK(small["offload"]["largest_fitting"].is_null());
  // A bad count is exit 2 naming the option.
  const auto bad = kvsize::test::run_cli(base + " --n-cpu-moe x");
  CHECK(bad.exit_code == 2);
  CHECK(bad.out.empty());
  CHECK_THAT(bad.err, Catch::Matchers::ContainsSubstring("--n-cpu-moe"));
  // The run-it line carries the offload flags, and the verdict names a -ngl as asked that fits.
  const auto flags = kvsize::test::run_cli(base + " -ngl 3 -nkvo --batch 2");
  REQUIRE(flags.exit_code == 0);
  CHECK_THAT(flags.out, Catch::Matchers::ContainsSubstring("run it: llama-server -m <model>.gguf -c 8192 -np 2 -ngl 5 -nkvo"));
  fs::remove(file);
}

TEST_CASE("kvsize offload from config.json and a weights format", "[cli][offload]") {
  // No tensor table: the formula's bytes per layer, said in a note; the same split the library gives.
  const std::string mistral = "'" + kvsize::test::config("mistralai__Mistral-7B-v0.1.config.json") + "'";
  const auto j = kvsize::test::json_of(mistral + " --engine llama.cpp --weights-dtype q4_K_M --gpu-memory 8GiB -ngl 20");
  REQUIRE(j.contains("offload"));
  const auto m = kvsize::hf::load_config(std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs" /
                                         "mistralai__Mistral-7B-v0.1.config.json")
                     .spec;
  const auto lw = kvsize::weights_by_layer(m, kvsize::gguf_weights(kvsize::gguf_ftype::q4_K_M));
  std::uint64_t top19 = lw.output;  // -ngl 20 now: the output layer and blocks 13-31
  for (std::uint32_t il = 13; il < 32; ++il) {
    top19 += lw.block[il];
  }
  CHECK(j["offload"]["asked"]["device_weights_bytes"] == top19);
  bool said = false;
  for (const auto& note : j["warnings"]) {
    said = said || note.get<std::string>().find("the formula's in q4_K_M") != std::string::npos;
  }
  CHECK(said);
  // Without -ngl (or with -ngl all), a config.json gets no split and no warning.
  CHECK_FALSE(kvsize::test::json_of(mistral + " --engine llama.cpp --gpu-memory 8GiB").contains("offload"));
}

TEST_CASE("kvsize offload: NextN blocks are in the file but never loaded", "[cli][offload]") {
  namespace fs = std::filesystem;
  const fs::path file = fs::temp_directory_path() / ("kvsize-nextn-" + std::to_string(::getpid()) + ".gguf");
  // glm4moe with 3 blocks, the last a multi-token-prediction head (nextn_predict_layers 1), which
  // llama.cpp creates with TENSOR_SKIP: its slot still counts (-ngl 2 is the output layer and the
  // empty block 2), its bytes are nowhere.
  auto w = kvsize_test::llama_header("glm4moe", 3);
  w.kv_u32("glm4moe.nextn_predict_layers", 1);
  w.tensor("token_embd.weight", {512, 512}, 0, mib).tensor("output.weight", {512, 512}, 0, mib);
  for (int il = 0; il < 3; ++il) {
    w.tensor("blk." + std::to_string(il) + ".attn_q.weight", {512, 512}, 0, mib);
  }
  std::ofstream(file, std::ios::binary) << w.bytes(true, 5 * mib);
  const auto j = kvsize::test::json_of("'" + file.string() + "' --engine llama.cpp --gpu-memory 4GiB -ngl 2");
  CHECK(j["offload"]["asked"]["device_weights_bytes"] == mib);    // the output layer; block 2 is not loaded
  CHECK(j["offload"]["asked"]["host_weights_bytes"] == 3 * mib);  // token_embd + blocks 0, 1
  const auto three = kvsize::test::json_of("'" + file.string() + "' --engine llama.cpp --gpu-memory 4GiB -ngl 3");
  CHECK(three["offload"]["asked"]["device_weights_bytes"] == 2 * mib);  // the output layer + block 1
  bool named = false;
  for (const auto& note : j["warnings"]) {
    named = named || note.get<std::string>().find("does not load them (TENSOR_SKIP)") != std::string::npos;
  }
  CHECK(named);
  fs::remove(file);
}
#endif
