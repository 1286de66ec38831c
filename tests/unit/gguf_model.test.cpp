// SPDX-License-Identifier: MIT
// kvsize::gguf::model_of: a model_spec from GGUF keys as llama.cpp's load_hparams and the
// architecture's load_arch_hparams read them (docs/research/gguf-arch-defaults.md), and the
// command line on GGUF files. Each expected figure's derivation is beside it.
#include <kvsize/engine.hpp>
#include <kvsize/engines_fmt.hpp>
#include <kvsize/gguf.hpp>
#include <kvsize/hf_config.hpp>
#include <kvsize/kv_cache.hpp>

#include "gguf_support.hpp"
#ifdef KVSIZE_CLI_PATH
#include "cli_support.hpp"
#endif

#include <unistd.h>  // getpid

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

using kvsize::bytes;
using kvsize::layer_kind;
using kvsize::gguf::gguf_errc;
using kvsize::gguf::gguf_error;
using kvsize_test::gguf_writer;
using kvsize_test::read_bytes;

using kvsize_test::gemma4_26b_header;

auto model(const gguf_writer& w) -> kvsize::gguf::gguf_model {
  return kvsize::gguf::model_of(read_bytes(w.bytes()), "test.gguf");
}

void require_model_refused(const gguf_writer& w, gguf_errc code, const std::string& words) {
  kvsize_test::require_gguf_refused([&] { return model(w); }, code, words);
}

}  // namespace

TEST_CASE("GGUF Gemma 4: the same cache as its config.json, under every engine", "[gguf][model][gemma4]") {
  const auto g = model(gemma4_26b_header());
  const auto hf = kvsize::hf::load_config(std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs" /
                                          "google__gemma-4-26B-A4B.config.json");
  kvsize::model_spec from_hf = hf.spec;
  from_hf.compute_dtype = kvsize::dtype::f16;  // the GGUF is sized in llama.cpp's default f16 cache
  for (std::uint32_t il = 0; il < 30; ++il) {
    INFO("layer " << il);
    CHECK(kvsize::kind_of_layer(g.spec, il) == kvsize::kind_of_layer(from_hf, il));
    CHECK(kvsize::kv_heads_of_layer(g.spec, il) == kvsize::kv_heads_of_layer(from_hf, il));
    CHECK(kvsize::head_dim_of_layer(g.spec, il) == kvsize::head_dim_of_layer(from_hf, il));
    CHECK(kvsize::head_dim_v_of_layer(g.spec, il) == kvsize::head_dim_v_of_layer(from_hf, il));
  }
  CHECK(g.spec.sliding_window == 1'024);
  CHECK(g.spec.vocab_size == 262'144);
  const kvsize::engine_options o{.context = 4'096};
  // The figures of tests/unit/engines/gemma4.test.cpp: exact 20,480 × 4,096 + 204,800 × 1,024;
  // llama.cpp's SWA cache of PAD256(1,024 + 512) = 1,536 cells; without flash attention every V row
  // is padded to the widest (8 × 256 = 2 × 512 here... and 4,096 B per layer either way).
  CHECK(kvsize::size_cache(g.spec, kvsize::engine_kind::exact, o).kv_bytes_per_sequence == bytes{293'601'280});
  CHECK(kvsize::size_cache(g.spec, kvsize::engine_kind::llama_cpp, o).kv_bytes_per_sequence == bytes{398'458'880});
  kvsize::engine_options no_fa = o;
  no_fa.llama_cpp.flash_attn = false;
  CHECK(kvsize::size_cache(g.spec, kvsize::engine_kind::llama_cpp, no_fa).kv_bytes_per_sequence ==
        kvsize::size_cache(from_hf, kvsize::engine_kind::llama_cpp, no_fa).kv_bytes_per_sequence);
  // The reasons name the keys.
  CHECK_THAT(g.layer_reasons[0], Catch::Matchers::ContainsSubstring("gemma4.attention.sliding_window_pattern[i] = true"));
  CHECK_THAT(g.layer_reasons[5], Catch::Matchers::ContainsSubstring("gemma4.attention.head_count_kv = 2"));
}

TEST_CASE("GGUF: the architectures' window rules", "[gguf][model]") {
  // gemma2: set_swa_pattern(2) unless the key says otherwise; n_swa 4096 unless given.
  auto gemma2 = kvsize_test::llama_header("gemma2", 6);
  const auto g2 = model(gemma2);
  CHECK(g2.spec.sliding_window == 4'096);
  CHECK(kvsize::kind_of_layer(g2.spec, 0) == layer_kind::sliding);
  CHECK(kvsize::kind_of_layer(g2.spec, 1) == layer_kind::full);
  // gemma3: no window key → full attention everywhere; with one → period 6 (5 sliding : 1 full).
  CHECK(kvsize::count_layers(model(kvsize_test::llama_header("gemma3", 12)).spec, layer_kind::sliding) == 0);
  auto gemma3 = kvsize_test::llama_header("gemma3", 12);
  gemma3.kv_u32("gemma3.attention.sliding_window", 1'024);
  const auto g3 = model(gemma3);
  CHECK(kvsize::count_layers(g3.spec, layer_kind::sliding) == 10);
  CHECK(kvsize::kind_of_layer(g3.spec, 5) == layer_kind::full);
  // A period given as a UINT32 key replaces the architecture's.
  gemma3.kv_u32("gemma3.attention.sliding_window_pattern", 3);
  CHECK(kvsize::count_layers(model(gemma3).spec, layer_kind::sliding) == 8);
  // llama4: chunked attention of 8,192 tokens on 3 of 4 layers (the window key only turns it off).
  const auto l4 = model(kvsize_test::llama_header("llama4", 8));
  CHECK(l4.spec.attention_chunk == 8'192);
  CHECK(kvsize::count_layers(l4.spec, layer_kind::chunked) == 6);
  // cohere2moe: dense first (layer i slides iff i % 4 != 0).
  auto c2 = kvsize_test::llama_header("cohere2moe", 8);
  c2.kv_u32("cohere2moe.attention.sliding_window", 4'096);
  const auto c2m = model(c2);
  CHECK(kvsize::kind_of_layer(c2m.spec, 0) == layer_kind::full);
  CHECK(kvsize::kind_of_layer(c2m.spec, 1) == layer_kind::sliding);
  // phi3 reads a window and switches it off (llama.cpp PR #13676): full attention.
  auto phi3 = kvsize_test::llama_header("phi3", 4);
  phi3.kv_u32("phi3.attention.sliding_window", 2'047);
  CHECK(kvsize::count_layers(model(phi3).spec, layer_kind::sliding) == 0);
  // An architecture without a window rule: the key is not read, and the user is told.
  auto qwen2 = kvsize_test::llama_header("qwen2", 4);
  qwen2.kv_u32("qwen2.attention.sliding_window", 4'096);
  const auto q2 = model(qwen2);
  CHECK(kvsize::count_layers(q2.spec, layer_kind::sliding) == 0);
  REQUIRE(q2.warnings.size() == 1);
  CHECK_THAT(q2.warnings[0], Catch::Matchers::ContainsSubstring("qwen2.attention.sliding_window is not read"));
}

TEST_CASE("GGUF: recurrent, latent, shared and multi-token-prediction layers", "[gguf][model]") {
  // jamba: head_count_kv 0 → a Mamba state: conv (4 − 1) × 8,192, ssm 16 × 8,192 (no groups).
  auto j = kvsize_test::model_header("jamba", {.layers = 8, .kv_heads = 0, .vocab = 65'536});
  j.kv_ints("jamba.attention.head_count_kv", 4, {0, 0, 0, 0, 8, 0, 0, 0})
      .kv_u32("jamba.ssm.conv_kernel", 4)
      .kv_u32("jamba.ssm.inner_size", 8'192)
      .kv_u32("jamba.ssm.state_size", 16);
  const auto jm = model(j);
  CHECK(kvsize::count_layers(jm.spec, layer_kind::full) == 1);
  CHECK(jm.spec.state.conv_elements == 3 * 8'192);
  CHECK(jm.spec.state.ssm_elements == 16 * 8'192);
  CHECK(jm.spec.layer[0].recurrent);
  CHECK_FALSE(jm.spec.layer[4].recurrent);
  // deepseek2 with the _mla keys: a latent of kv_lora_rank 512 + rope 64 per token.
  auto ds = kvsize_test::llama_header("deepseek2", 4);
  ds.kv_u32("deepseek2.attention.kv_lora_rank", 512)
      .kv_u32("deepseek2.rope.dimension_count", 64)
      .kv_u32("deepseek2.attention.key_length_mla", 192)
      .kv_u32("deepseek2.attention.value_length_mla", 128);
  const auto dm = model(ds);
  CHECK(kvsize::count_layers(dm.spec, layer_kind::latent) == 4);
  CHECK(dm.spec.latent.kv_lora_rank == 512);
  CHECK(dm.spec.latent.rope_head_dim == 64);
  CHECK(dm.spec.latent.nope_head_dim == 128);
  // gemma4 shared_kv_layers 2 of 6: layers 4 and 5 read an earlier layer's cache.
  auto small = kvsize_test::model_header(
      "gemma4", {.layers = 6, .embedding = 1'536, .heads = 8, .kv_heads = 1, .vocab = 262'144});
  small.kv_u32("gemma4.attention.sliding_window", 512)
      .kv_u32("gemma4.attention.shared_kv_layers", 2)
      .kv_ints("gemma4.attention.sliding_window_pattern", 7, {1, 1, 0, 1, 1, 0});
  const auto sm = model(small);
  CHECK(kvsize::count_layers(sm.spec, layer_kind::shared) == 2);
  CHECK(kvsize::kind_of_layer(sm.spec, 3) == layer_kind::sliding);
  // glm4moe-style MTP: the last nextn_predict_layers blocks are not cached.
  auto mtp = kvsize_test::llama_header("glm4moe", 4);
  mtp.kv_u32("glm4moe.nextn_predict_layers", 1);
  const auto mm = model(mtp);
  CHECK(kvsize::kind_of_layer(mm.spec, 3) == layer_kind::none);
  CHECK(kvsize::kv_layers(mm.spec) == 3);
}

namespace {
/// The llama.cpp figures of a GGUF header and of the config.json it was converted from: the same
/// layers, the same state, the same bytes per sequence at -c 4096.
void require_same_as_config(const kvsize::gguf::gguf_model& g, const std::string& config) {
  const auto hf = kvsize::hf::load_config(std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs" / config);
  kvsize::model_spec from_hf = hf.spec;
  from_hf.compute_dtype = kvsize::dtype::f16;  // the GGUF is sized in llama.cpp's default f16 cache
  // A GGUF may hold the MTP blocks as more blocks (nextn_predict_layers): they keep nothing.
  REQUIRE(g.spec.layers >= from_hf.layers);
  for (std::uint32_t il = 0; il < g.spec.layers; ++il) {
    INFO("layer " << il);
    const bool mtp = il >= from_hf.layers;
    CHECK(kvsize::kind_of_layer(g.spec, il) == (mtp ? layer_kind::none : kvsize::kind_of_layer(from_hf, il)));
    CHECK(g.spec.layer[il].recurrent == (!mtp && from_hf.layer[il].recurrent));
  }
  kvsize::engine_options o;
  o.context = 4'096;
  const auto a = kvsize::size_cache(g.spec, kvsize::engine_kind::llama_cpp, o);
  const auto b = kvsize::size_cache(from_hf, kvsize::engine_kind::llama_cpp, o);
  CHECK(a.kv_bytes_per_sequence == b.kv_bytes_per_sequence);
  CHECK(a.state_bytes_per_sequence == b.state_bytes_per_sequence);
}
}  // namespace

TEST_CASE("GGUF: a layer of feed_forward_length 0 has no MLP, so llama.cpp's compute buffer is known",
          "[gguf][model][compute]") {
  // llama.cpp builds no dense FFN where n_ff(il) is 0 (nemotron_h's Mamba and attention blocks): such a layer
  // is not a dense MLP of unknown width, and the compute-buffer lines stay (engines_fmt.hpp).
  auto w = kvsize_test::model_header("llama", {.layers = 4, .context = 8'192, .vocab = 128'256});
  w.kv_ints("llama.feed_forward_length", 5, {0, 14'336, 0, 14'336});
  const auto g = model(w);
  CHECK(g.spec.weights.layer[0].ffn == kvsize::ffn_kind::none);
  CHECK(g.spec.weights.layer[1].ffn_width == 14'336);
  CHECK(kvsize::widest_mlp_width(g.spec) == 14'336);
  CHECK(kvsize::first_layer_without_mlp_width(g.spec) == 4);
  CHECK(kvsize::engines::llama_cpp::compute_buffer_known(g.spec));
  kvsize::engine_options o;
  o.context = 4'096;
  const auto lines = kvsize::engine_log_lines(g.spec, kvsize::engine_kind::llama_cpp, o);
  CHECK(std::count_if(lines.begin(), lines.end(), [](const std::string& l) {
          return l.find(" compute buffer size = ") != std::string::npos;
        }) == 2);
  // No feed_forward_length at all (a MoE architecture whose experts have their own key): no dense MLP either.
  const auto bare = model(kvsize_test::model_header("llama", {.layers = 2, .vocab = 32'000}));
  CHECK(bare.spec.weights.layer[1].ffn == kvsize::ffn_kind::none);
  CHECK(kvsize::engines::llama_cpp::compute_buffer_known(bare.spec));
}

TEST_CASE("GGUF Gated DeltaNet (qwen3next, qwen35, qwen35moe): every fourth layer attends", "[gguf][model]") {
  // Qwen3-Next-80B-A3B as convert_hf_to_gguf.py writes it: the linear-attention sizes as Mamba-2
  // keys (conv_kernel = linear_conv_kernel_dim 4, state_size = linear_key_head_dim 128, group_count =
  // linear_num_key_heads 16, inner_size = 128 × 32 value heads = 4,096); full_attention_interval 4.
  // llama.cpp (llama-hparams.cpp n_embd_r, n_embd_s): conv (4 − 1) × (4,096 + 2 × 16 × 128) = 24,576,
  // state 128 × 4,096 = 524,288 elements, f32, on each of the 36 recurrent layers.
  // Both Qwen3-Next-80B and Qwen3.5-35B-A3B's trunk: 2,048 wide, 16 heads / 2 KV heads of 256,
  // 16 key heads and 32 value heads of 128 (inner 4,096), conv 4, every fourth layer attending.
  const auto gated_delta_header = [](const std::string& arch, std::uint32_t layers, std::uint32_t vocab) {
    auto w = kvsize_test::model_header(
        arch, {.layers = layers, .context = 262'144, .embedding = 2'048, .heads = 16, .kv_heads = 2, .vocab = vocab});
    w.kv_u32(arch + ".attention.key_length", 256)
        .kv_u32(arch + ".attention.value_length", 256)
        .kv_u32(arch + ".ssm.conv_kernel", 4)
        .kv_u32(arch + ".ssm.state_size", 128)
        .kv_u32(arch + ".ssm.group_count", 16)
        .kv_u32(arch + ".ssm.inner_size", 4'096)
        .kv_u32(arch + ".full_attention_interval", 4);
    return w;
  };
  const auto q = gated_delta_header("qwen3next", 48, 151'936);
  const auto g = model(q);
  CHECK(kvsize::count_layers(g.spec, layer_kind::full) == 12);
  CHECK(kvsize::kind_of_layer(g.spec, 3) == layer_kind::full);
  CHECK(g.spec.layer[0].recurrent);
  CHECK_FALSE(g.spec.layer[3].recurrent);
  CHECK(g.spec.state.conv_elements == 24'576);
  CHECK(g.spec.state.ssm_elements == 524'288);
  CHECK_THAT(g.layer_reasons[0], Catch::Matchers::ContainsSubstring("qwen3next.full_attention_interval = 4"));
  require_same_as_config(g, "Qwen__Qwen3-Next-80B-A3B-Thinking.config.json");
  // Qwen3.5-35B-A3B (qwen35moe) as the converter writes it by default: 40 trunk blocks and the MTP block
  // (block_count 41, nextn_predict_layers 1); with --no-mtp, the 40 blocks alone.
  auto with_mtp = gated_delta_header("qwen35moe", 41, 248'320);
  with_mtp.kv_u32("qwen35moe.nextn_predict_layers", 1);
  require_same_as_config(model(with_mtp), "Qwen__Qwen3.5-35B-A3B.config.json");
  require_same_as_config(model(gated_delta_header("qwen35moe", 40, 248'320)), "Qwen__Qwen3.5-35B-A3B.config.json");
  // llama.cpp's Gated DeltaNet loaders require ssm.group_count (Mamba-1 files leave it out).
  auto no_groups = kvsize_test::model_header("qwen3next", {.layers = 4});
  no_groups.kv_u32("qwen3next.ssm.conv_kernel", 4)
      .kv_u32("qwen3next.ssm.state_size", 128)
      .kv_u32("qwen3next.ssm.inner_size", 4'096);
  require_model_refused(no_groups, gguf_errc::missing_key, "\"qwen3next.ssm.group_count\": absent");
  // The interval left out is 4 (load_hparams' default); the flags, when written, decide instead; the
  // multi-token-prediction block past the trunk is neither recurrent nor cached.
  auto flags = kvsize_test::model_header("qwen35", {.layers = 5, .embedding = 1'024, .heads = 8, .kv_heads = 2});
  flags.kv_u32("qwen35.ssm.conv_kernel", 4)
      .kv_u32("qwen35.ssm.state_size", 128)
      .kv_u32("qwen35.ssm.group_count", 16)
      .kv_u32("qwen35.ssm.inner_size", 2'048)
      .kv_u32("qwen35.nextn_predict_layers", 1);
  const auto by_default = model(flags);
  CHECK(kvsize::kind_of_layer(by_default.spec, 3) == layer_kind::full);
  CHECK(by_default.spec.layer[2].recurrent);
  CHECK_FALSE(by_default.spec.layer[4].recurrent);
  CHECK(kvsize::kind_of_layer(by_default.spec, 4) == layer_kind::none);
  CHECK_THAT(by_default.layer_reasons[0], Catch::Matchers::ContainsSubstring("default 4"));
  flags.kv_ints("qwen35.attention.recurrent_layers", 7, {0, 1, 1, 1, 1});
  const auto by_flags = model(flags);
  CHECK(kvsize::kind_of_layer(by_flags.spec, 0) == layer_kind::full);
  CHECK(by_flags.spec.layer[3].recurrent);
  CHECK_FALSE(by_flags.spec.layer[4].recurrent);  // the MTP block: never recurrent
  // The flags as one BOOL for every layer (llama.cpp's get_key_or_arr reads a scalar into the whole
  // array): every trunk layer recurrent, none attends; a UINT32 there is not a flag (llama.cpp's
  // BOOL type check refuses it too).
  const auto qwen35 = [](std::uint32_t layers) {
    auto w = kvsize_test::model_header("qwen35", {.layers = layers, .embedding = 1'024, .heads = 8, .kv_heads = 2});
    w.kv_u32("qwen35.ssm.conv_kernel", 4)
        .kv_u32("qwen35.ssm.state_size", 128)
        .kv_u32("qwen35.ssm.group_count", 16)
        .kv_u32("qwen35.ssm.inner_size", 2'048);
    return w;
  };
  auto one_flag = qwen35(4);
  one_flag.kv_bool("qwen35.attention.recurrent_layers", true);
  const auto all_recurrent = model(one_flag);
  CHECK(kvsize::kv_layers(all_recurrent.spec) == 0);
  CHECK(kvsize::recurrent_layers(all_recurrent.spec) == 4);
  auto u32_flag = qwen35(4);
  u32_flag.kv_u32("qwen35.attention.recurrent_layers", 1);
  require_model_refused(u32_flag, gguf_errc::wrong_type, "qwen35.attention.recurrent_layers");
  // An interval above block_count: (i + 1) % 8 is never 0 in 4 trunk layers, so none attends.
  auto wide = qwen35(4);
  wide.kv_u32("qwen35.full_attention_interval", 8);
  CHECK(kvsize::recurrent_layers(model(wide).spec) == 4);
  // An interval of 0 would divide by zero in llama.cpp: refused, the key named.
  auto zero = kvsize_test::model_header("qwen35moe", {.layers = 4});
  zero.kv_u32("qwen35moe.ssm.conv_kernel", 4)
      .kv_u32("qwen35moe.ssm.state_size", 128)
      .kv_u32("qwen35moe.ssm.group_count", 16)
      .kv_u32("qwen35moe.ssm.inner_size", 4'096)
      .kv_u32("qwen35moe.full_attention_interval", 0);
  require_model_refused(zero, gguf_errc::out_of_range, "qwen35moe.full_attention_interval");
}

TEST_CASE("GGUF Kimi-Linear: KDA layers keep a state, the others a latent", "[gguf][model]") {
  // Kimi-Linear-48B-A3B as the converter writes it: head_count_kv 1 on the MLA layers (1-based 4, 8,
  // …, 24, 27 in the config's full_attn_layers), 0 on the KDA layers; kda.head_dim 128, conv kernel 4.
  // llama.cpp (n_embd_r, n_embd_s): conv 3 × (4 − 1) × 32 × 128 = 36,864, state 128 × 128 × 32 =
  // 524,288 elements per KDA layer, f32.
  std::vector<std::int64_t> kv(27, 0);
  for (const int full : {4, 8, 12, 16, 20, 24, 27}) {
    kv[static_cast<std::size_t>(full - 1)] = 1;
  }
  const auto kimi_header = [](const std::vector<std::int64_t>& kv_heads, std::uint32_t conv_kernel) {
    auto w = kvsize_test::model_header(
        "kimi-linear", {.layers = static_cast<std::uint32_t>(kv_heads.size()), .context = 1'048'576,
                        .embedding = 2'304, .heads = 32, .kv_heads = 0, .vocab = 163'840});
    w.kv_ints("kimi-linear.attention.head_count_kv", 4, kv_heads)
        .kv_u32("kimi-linear.attention.kv_lora_rank", 512)
        .kv_u32("kimi-linear.rope.dimension_count", 64)
        .kv_u32("kimi-linear.attention.key_length", 576)
        .kv_u32("kimi-linear.attention.value_length", 512)
        .kv_u32("kimi-linear.attention.key_length_mla", 192)
        .kv_u32("kimi-linear.attention.value_length_mla", 128)
        .kv_u32("kimi-linear.kda.head_dim", 128)
        .kv_u32("kimi-linear.ssm.conv_kernel", conv_kernel);
    return w;
  };
  const auto k = kimi_header(kv, 4);
  const auto g = model(k);
  CHECK(kvsize::count_layers(g.spec, layer_kind::latent) == 7);
  CHECK(g.spec.layer[0].recurrent);
  CHECK(kvsize::kind_of_layer(g.spec, 26) == layer_kind::latent);
  CHECK(g.spec.state.conv_elements == 36'864);
  CHECK(g.spec.state.ssm_elements == 524'288);
  require_same_as_config(g, "moonshotai__Kimi-Linear-48B-A3B-Instruct.config.json");
  // Its attention layers are MLA only: without the latent keys the file is refused, never sized as an
  // ordinary 576 + 512 cache.
  auto no_mla = kvsize_test::model_header("kimi-linear", {.layers = 4, .kv_heads = 0});
  no_mla.kv_ints("kimi-linear.attention.head_count_kv", 4, {0, 0, 0, 1})
      .kv_u32("kimi-linear.kda.head_dim", 128)
      .kv_u32("kimi-linear.ssm.conv_kernel", 4)
      .kv_u32("kimi-linear.attention.kv_lora_rank", 512);
  require_model_refused(no_mla, gguf_errc::missing_key, "\"kimi-linear.attention.key_length_mla\": absent");
  // A conv kernel of 0: llama_hparams::n_embd_r takes d_conv − 1 = 3 (the default kernel of 4):
  // 3 × 3 × 32 × 128 = 36,864, as with the kernel of 4.
  const auto kernel_zero = kimi_header({0, 0, 0, 1}, 0);
  CHECK(model(kernel_zero).spec.state.conv_elements == 36'864);
}

TEST_CASE("GGUF MiniMax-Text-01 (minimax-01): lightning layers keep a state, every eighth layer attends", "[gguf][model]") {
  // llama.cpp (src/models/minimax-01.cpp; llama-hparams.cpp n_embd_s): the Gated DeltaNet layer rule with a default
  // full_attention_interval of 8, and a lightning state of n_embd_head_la² × n_head(), n_embd_head_la = the K head
  // size: 128² × 64 = 1,048,576 elements, no conv, float32. Two of MiniMax-Text-01's eight-layer groups here
  // (hidden 6,144, 64 heads, 8 KV heads of 128).
  const auto minimax = [](std::uint32_t layers) {
    auto w = kvsize_test::model_header(
        "minimax-01", {.layers = layers, .context = 1'048'576, .embedding = 6'144, .heads = 64, .kv_heads = 8, .vocab = 200'064});
    w.kv_u32("minimax-01.attention.key_length", 128).kv_u32("minimax-01.attention.value_length", 128);
    return w;
  };
  const auto g = model(minimax(16));
  for (std::uint32_t il = 0; il < 16; ++il) {
    CAPTURE(il);
    const bool attends = (il + 1) % 8 == 0;
    CHECK(kvsize::kind_of_layer(g.spec, il) == (attends ? layer_kind::full : layer_kind::none));
    CHECK(g.spec.layer[il].recurrent == !attends);
  }
  CHECK(g.spec.state.conv_elements == 0);
  CHECK(g.spec.state.ssm_elements == 1'048'576);
  // The mixer is named, so the engines that refuse lightning attention refuse the file too.
  CHECK(g.spec.weights.recurrent.kind == kvsize::recurrent_kind::lightning);
  CHECK_THROWS_AS(kvsize::size_cache(g.spec, kvsize::engine_kind::sglang, kvsize::engine_options{}), kvsize::invalid_argument);
  CHECK_THAT(g.layer_reasons[0], Catch::Matchers::ContainsSubstring("minimax-01's default 8"));
  // Under llama.cpp: K and V f16 on the 2 attention layers, 2 × 8 × 128 × 2 × 2 B a token; 14 float32 states.
  const auto s = kvsize::size_cache(g.spec, kvsize::engine_kind::llama_cpp, kvsize::engine_options{.context = 4'096});
  CHECK(s.kv_bytes_per_token == bytes{2 * 8 * 128 * 2 * 2});
  CHECK(s.state_bytes_per_sequence == bytes{14ULL * 1'048'576 * 4});
  // The interval, when written, decides.
  auto every_fourth = minimax(16);
  every_fourth.kv_u32("minimax-01.full_attention_interval", 4);
  CHECK(kvsize::count_layers(model(every_fourth).spec, layer_kind::full) == 4);
}

TEST_CASE("GGUF MiniMax-M3 (minimax-m3): an index cache on the layers past the leading dense ones", "[gguf][model]") {
  // As llama.cpp's conversion/minimax.py (MiniMaxM3Model.set_gguf_parameters) writes MiniMax-M3: leading_dense_block_count
  // from moe_layer_freq's leading zeros (3), attention.indexer.key_length from sparse_index_dim (128). llama_model::
  // create_memory builds a llama_kv_cache_msa whose index cache (filter_idx: il >= n_layer_dense_lead) keeps one head of
  // key_length in type_k and, not being MLA, a V row of one head of the V head size in type_v (src/llama-kv-cache-msa.cpp).
  // Six layers of the real model's heads: 4 KV heads of 128.
  const auto minimax = [] {
    auto w = kvsize_test::model_header(
        "minimax-m3", {.layers = 6, .context = 1'048'576, .embedding = 6'144, .heads = 64, .kv_heads = 4, .vocab = 200'064});
    w.kv_u32("minimax-m3.attention.key_length", 128).kv_u32("minimax-m3.attention.value_length", 128);
    w.kv_u32("minimax-m3.attention.indexer.head_count", 4).kv_u32("minimax-m3.attention.indexer.key_length", 128);
    return w;
  };
  auto three_dense = minimax();
  three_dense.kv_u32("minimax-m3.leading_dense_block_count", 3);
  const auto g = model(three_dense);
  for (std::uint32_t il = 0; il < 6; ++il) {
    CAPTURE(il);
    CHECK(kvsize::kind_of_layer(g.spec, il) == (il < 3 ? layer_kind::full : layer_kind::indexed));
  }
  CHECK(g.spec.sparse_index_dim == 128);
  CHECK_THAT(g.layer_reasons[4], Catch::Matchers::ContainsSubstring("minimax-m3.leading_dense_block_count = 3"));
  // Under llama.cpp, f16: K and V 6 × 4 × 128 × 2 × 2 B = 12,288 a cell; the index cache 3 × (128 + 128) × 2 B =
  // 1,536: 13,824.
  const auto s = kvsize::size_cache(g.spec, kvsize::engine_kind::llama_cpp, kvsize::engine_options{.context = 4'096});
  CHECK(s.kv_bytes_per_token == bytes{13'824});
  // Without the count every layer is sparse (the loader's default 0); without the key width the file is refused.
  CHECK(kvsize::count_layers(model(minimax()).spec, layer_kind::indexed) == 6);
  auto no_width = kvsize_test::model_header(
      "minimax-m3", {.layers = 6, .context = 4'096, .embedding = 6'144, .heads = 64, .kv_heads = 4, .vocab = 200'064});
  no_width.kv_u32("minimax-m3.attention.key_length", 128).kv_u32("minimax-m3.attention.value_length", 128);
  require_model_refused(no_width, gguf_errc::missing_key, "minimax-m3.attention.indexer.key_length");
}

TEST_CASE("GGUF Step-3.5-Flash (step35): per-layer query heads, the window by the pattern array", "[gguf][model]") {
  // As llama.cpp's conversion/step3.py (Step35Model.set_gguf_parameters) writes Step-3.5-Flash: 45 trunk blocks and
  // the 3 MTP blocks (block_count 48, nextn_predict_layers 3); head_count 64 on full layers and 96 on sliding ones
  // (attention_other_setting), head_count_kv 8 everywhere, sliding_window 512 and a sliding_window_pattern array
  // from layer_types; key and value length 128. src/models/step35.cpp: standard SWA, the pattern array and the
  // window key required.
  std::vector<std::int64_t> heads;
  std::vector<std::int64_t> kv_heads(48, 8);
  std::vector<std::int64_t> slides;
  for (int il = 0; il < 48; ++il) {
    heads.push_back(il % 4 == 0 ? 64 : 96);
    slides.push_back(il % 4 == 0 ? 0 : 1);
  }
  const auto step35 = [&](bool with_pattern) {
    auto w = kvsize_test::model_header("step35", {.layers = 48, .context = 262'144, .embedding = 4'096, .heads = 0,
                                                  .kv_heads = 0, .vocab = 128'896});
    w.kv_ints("step35.attention.head_count", 5, heads)
        .kv_ints("step35.attention.head_count_kv", 5, kv_heads)
        .kv_u32("step35.attention.key_length", 128)
        .kv_u32("step35.attention.value_length", 128)
        .kv_u32("step35.attention.sliding_window", 512)
        .kv_u32("step35.nextn_predict_layers", 3);
    if (with_pattern) {
      w.kv_ints("step35.attention.sliding_window_pattern", 7, slides);
    }
    return w;
  };
  const auto g = model(step35(true));
  CHECK(g.spec.attention_heads == 64);                // n_head(0)
  CHECK(g.spec.weights.layer[0].query_heads == 0);    // the model's 64
  CHECK(g.spec.weights.layer[1].query_heads == 96);   // a sliding layer's own
  CHECK(kvsize::kind_of_layer(g.spec, 1) == layer_kind::sliding);
  CHECK(g.spec.sliding_window == 512);
  // Under llama.cpp the same cache as the config.json's: 12 full layers of 4,096 cells and 33 sliding layers of
  // 1,024 (512 + n_ubatch), 4,096 B a layer and token (8 × 128 × 2 × 2 B, f16).
  require_same_as_config(g, "stepfun-ai__Step-3.5-Flash.config.json");
  const auto s = kvsize::size_cache(g.spec, kvsize::engine_kind::llama_cpp, kvsize::engine_options{.context = 4'096});
  CHECK(s.kv_bytes_per_sequence == bytes{12ULL * 4'096 * 4'096 + 33ULL * 4'096 * 1'024});
  // The pattern array is required (src/models/step35.cpp reads it with get_key_or_arr, no default).
  require_model_refused(step35(false), gguf_errc::missing_key, "step35.attention.sliding_window_pattern");
}

TEST_CASE("GGUF: llama.cpp's defaults for what a file leaves out", "[gguf][model]") {
  // SWA head sizes default to the full layers' K and V (load_hparams): gemma2 with key_length and
  // value_length 256 and key_length_swa 128 keeps V at 256 on its sliding layers.
  auto g2 = kvsize_test::llama_header("gemma2", 2);
  g2.kv_u32("gemma2.attention.key_length", 256)
      .kv_u32("gemma2.attention.value_length", 256)
      .kv_u32("gemma2.attention.key_length_swa", 128);
  const auto m2 = model(g2).spec;
  CHECK(kvsize::head_dim_of_layer(m2, 0) == 128);
  CHECK(kvsize::head_dim_v_of_layer(m2, 0) == 256);
  CHECK(kvsize::head_dim_v_of_layer(m2, 1) == 256);
  // A value_length left out is n_embd / n_head, not key_length: 4,096 / 32 = 128.
  auto kl = kvsize_test::llama_header("llama", 2);
  kl.kv_u32("llama.attention.key_length", 192);
  CHECK(kvsize::effective_head_dim_v(model(kl).spec) == 128);
  // shared_kv_layers is gemma4's key (src/models/gemma4.cpp): on another architecture it is not read.
  auto shared = kvsize_test::llama_header("llama", 4);
  shared.kv_u32("llama.attention.shared_kv_layers", 2);
  CHECK(kvsize::count_layers(model(shared).spec, layer_kind::shared) == 0);
  // Mamba files write head_count 0: every layer keeps the state, none a KV cache.
  auto mamba = kvsize_test::model_header(
      "mamba2", {.layers = 4, .context = 1'048'576, .embedding = 2'560, .heads = 0, .kv_heads = 0, .vocab = 50'288});
  mamba.kv_u32("mamba2.attention.head_count", 0)
      .kv_u32("mamba2.ssm.conv_kernel", 4)
      .kv_u32("mamba2.ssm.inner_size", 5'120)
      .kv_u32("mamba2.ssm.state_size", 128)
      .kv_u32("mamba2.ssm.group_count", 1);
  const auto mm = model(mamba).spec;
  CHECK(kvsize::kv_layers(mm) == 0);
  CHECK(mm.state.conv_elements == 3 * (5'120 + 2 * 128));  // (d_conv − 1) × (d_inner + 2 × groups × d_state)
  CHECK(mm.state.ssm_elements == 128 * 5'120);
}

TEST_CASE("GGUF: the weights and active parameters from the tensor table", "[gguf][model]") {
  // One layer: token_embd 64 × 100 f16, 8 experts stacked as 64 × 32 × 8 f32 (2 used per token).
  auto w = kvsize_test::llama_header("qwen3moe", 1);
  w.kv_u32("qwen3moe.expert_count", 8).kv_u32("qwen3moe.expert_used_count", 2);
  w.tensor("token_embd.weight", {64, 100}, 1, 64 * 100 * 2).tensor("blk.0.ffn_up_exps.weight", {64, 32, 8}, 0,
                                                                     64 * 32 * 8 * 4);
  const auto g = model(w);
  REQUIRE(g.weights.has_value());
  CHECK(g.weights->bytes == 12'800 + 65'536);
  CHECK(g.weights->token_embedding == 12'800);
  CHECK(g.weights->experts == 65'536);
  CHECK(g.weights->elements == 6'400 + 16'384);
  // Active: everything but 6 of the 8 experts' 2,048 elements each: 22,784 − 12,288.
  CHECK(g.active_parameters() == 22'784 - 12'288);
}

TEST_CASE("GGUF: a split model's weights are every shard's", "[gguf][model]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("kvsize-split-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto shard = [&](std::uint32_t no, std::uint32_t count, bool with_model) {
    gguf_writer w;
    if (with_model) {
      w = kvsize_test::llama_header("llama", 1);
    }
    w.key("split.no", 2).le(no, 2).key("split.count", 2).le(count, 2);
    w.tensor("t" + std::to_string(no), {8}, 0, 32);
    std::ofstream(dir / ("m-0000" + std::to_string(no + 1) + "-of-0000" + std::to_string(count) + ".gguf"),
                  std::ios::binary)
        << w.bytes(true, 32);
  };
  shard(0, 3, true);
  shard(1, 3, false);
  shard(2, 3, false);
  const auto g = kvsize::gguf::load_gguf_model(dir / "m-00001-of-00003.gguf");
  REQUIRE(g.weights.has_value());
  CHECK(g.weights->tensors == 3);
  CHECK(g.weights->bytes == 96);
  // A shard missing: the weights are unknown, said so, never the sum of the others.
  fs::remove(dir / "m-00003-of-00003.gguf");
  const auto partial = kvsize::gguf::load_gguf_model(dir / "m-00001-of-00003.gguf");
  CHECK_FALSE(partial.weights.has_value());
  REQUIRE_FALSE(partial.warnings.empty());
  CHECK_THAT(partial.warnings.back(), Catch::Matchers::ContainsSubstring("m-00003-of-00003.gguf is missing"));
  fs::remove_all(dir);
}

TEST_CASE("GGUF: keys the model needs, as strict as llama.cpp's loader", "[gguf][model][hostile]") {
  gguf_writer no_arch;
  no_arch.kv_u32("llama.block_count", 4);
  require_model_refused(no_arch, gguf_errc::missing_key, "key \"general.architecture\": absent");
  gguf_writer wrong;
  wrong.kv_str("general.architecture", "llama").kv_i32("llama.block_count", 4);
  require_model_refused(wrong, gguf_errc::wrong_type, "key \"llama.block_count\": expected a UINT32, got INT32");
  auto zero = kvsize_test::llama_header("llama", 0);
  require_model_refused(zero, gguf_errc::out_of_range, "expected 1 to 512 layers");
  auto big = kvsize_test::llama_header("llama", 513);
  require_model_refused(big, gguf_errc::unsupported, "got 513");
  auto bad_len = kvsize_test::model_header("llama", {.kv_heads = 0});
  bad_len.kv_ints("llama.attention.head_count_kv", 4, {8, 8, 8});
  require_model_refused(bad_len, gguf_errc::invalid, "an array of 3 elements; expected one per layer (4)");
  auto no_pattern = kvsize_test::llama_header("gemma4", 6);
  no_pattern.kv_u32("gemma4.attention.sliding_window", 512);
  require_model_refused(no_pattern, gguf_errc::missing_key, "gemma4.attention.sliding_window_pattern");
  require_model_refused(kvsize_test::llama_header("falcon-h1", 4), gguf_errc::unsupported,
                        "\"falcon-h1\": llama.cpp gives this architecture recurrent layers");
  require_model_refused(kvsize_test::llama_header("qwen3next", 4), gguf_errc::missing_key,
                        "\"qwen3next.ssm.conv_kernel\": absent");
  require_model_refused(kvsize_test::llama_header("deepseek32", 4), gguf_errc::unsupported, "an indexer key cache");
  require_model_refused(kvsize_test::llama_header("bert", 4), gguf_errc::unsupported, "no KV cache");
  auto wide = kvsize_test::llama_header("gemma2", 2);
  wide.kv_u32("gemma2.attention.key_length_swa", 65'664);  // would be 128 in 16 bits
  require_model_refused(wide, gguf_errc::out_of_range, "expected a head size of 1 to 65535, got 65664");
  auto huge_state =
      kvsize_test::model_header("mamba2", {.layers = 1, .embedding = 64, .heads = 0, .kv_heads = 0, .vocab = 100});
  huge_state.kv_u32("mamba2.ssm.conv_kernel", 3)
      .kv_u32("mamba2.ssm.inner_size", 8'192)
      .kv_u32("mamba2.ssm.state_size", 1U << 31U)
      .kv_u32("mamba2.ssm.group_count", 1U << 31U);
  require_model_refused(huge_state, gguf_errc::out_of_range, "exceeds 2^64");
  // A per-layer array the read did not keep (read_options::keep_elements below block_count).
  kvsize::gguf::read_options few;
  few.keep_elements = 2;
  auto kept = kvsize_test::model_header("llama", {.kv_heads = 0});
  kept.kv_ints("llama.attention.head_count_kv", 4, {8, 8, 8, 8});
  CHECK_THROWS_WITH(kvsize::gguf::model_of(read_bytes(kept.bytes(), few), "test.gguf"),
                    Catch::Matchers::ContainsSubstring("was not kept by the read"));
  const auto nd = kvsize_test::model_header("llama", {.kv_heads = 5});
  require_model_refused(nd, gguf_errc::invalid, "do not fit together");
}

#ifdef KVSIZE_CLI_PATH
TEST_CASE("kvsize on a GGUF file: the same report and JSON keys as a config.json", "[gguf][cli]") {
  using kvsize::test::json_of;
  using kvsize::test::run_cli;
  const std::string gpt2 = kvsize::test::config("gguf/ggml-vocab-gpt-2.gguf");
  const auto j = json_of(gpt2 + " --context 1024");
  CHECK(j["model"]["model_type"] == "gpt2");
  CHECK(j["model"]["layers"] == 12);
  CHECK(j["kv_bytes_per_token"] == 36'864);  // 12 × 12 × (64 + 64) × 2 B
  CHECK(j["kv_bytes"] == 36'864ULL * 1'024);
  const auto text = run_cli(gpt2);
  CHECK(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Matchers::ContainsSubstring("no tensors (a vocabulary-only file)"));
  // llama.cpp on it: the engine's own cells.
  CHECK(json_of(gpt2 + " --engine llama.cpp --context 1024")["engine"] == "llama.cpp");
  kvsize::test::require_refused(run_cli(gpt2 + " --weights-dtype q4_K_M"), "a GGUF file states its weights");
  // A synthetic model with tensors: the weights are the table's bytes.
  const auto path = kvsize::test::temp_path(".gguf");
  {
    auto w = kvsize_test::llama_header("llama", 1);
    w.tensor("token_embd.weight", {4'096, 128'256}, 1, 4'096ULL * 128'256 * 2);
    std::ofstream(path, std::ios::binary) << w.bytes();
  }
  const auto jw = json_of("'" + path.string() + "' --context 1024");
  CHECK(jw["weights_bytes"] == 4'096ULL * 128'256 * 2);
  CHECK(jw["weights_dtype"] == "GGUF tensor table");
  CHECK(jw["parameters"] == 4'096ULL * 128'256);
  // A hostile file: exit 2, nothing on stdout, the byte offset and the tensor named.
  {
    auto w = kvsize_test::llama_header("llama", 1);
    w.tensor("blk.0.attn_q.weight", {100}, 12, 144);
    std::ofstream(path, std::ios::binary) << w.bytes();
  }
  kvsize::test::require_refused(run_cli("'" + path.string() + "'"),
                                "tensor \"blk.0.attn_q.weight\": a row of 100 values");
  std::filesystem::remove(path);
}
#endif
