// SPDX-License-Identifier: MIT
// kvsize/engines/llama_cpp.hpp against public llama.cpp (and Ollama) logs (engine_logs_support.hpp says
// how the cases read a log).
#include "engine_logs_support.hpp"  // Catch2, the kvsize headers, and the names the cases use

using namespace kvsize::test::engine_logs;

// ───────────────────────────────────────────── llama.cpp ─────────────────────────────────────────────
// llama.cpp's lines are fully determined by the model and the command line: every figure exact.

namespace {
auto llama(const model_spec& m, const engine_options& o) -> std::vector<std::string> {
  return lines(m, engine_kind::llama_cpp, o);
}
auto mib(bytes b) -> double { return rounded(b.in(MiB), 2); }
// allenai/OLMoE-1B-7B-0125-Instruct: 16 layers, 16 heads (MHA), head_dim 128.
constexpr model_spec olmoe_1b_7b{.layers = 16, .attention_heads = 16, .hidden_size = 2'048, .vocab_size = 50'304};
// Qwen/Qwen1.5-72B-Chat: 80 layers, 64 heads, no GQA, 128.
constexpr model_spec qwen1_5_72b{.layers = 80, .attention_heads = 64, .hidden_size = 8'192, .vocab_size = 152'064};
// 01-ai/Yi-6B-200K: 32 layers, 32 heads, 4 KV heads, 128; Yi-34B-200K: 60 layers, 56 heads, 8 KV heads, 128.
constexpr model_spec yi_6b{.layers = 32, .attention_heads = 32, .kv_heads = 4, .hidden_size = 4'096, .vocab_size = 64'000};
constexpr model_spec yi_34b{.layers = 60, .attention_heads = 56, .kv_heads = 8, .hidden_size = 7'168, .vocab_size = 64'000};
// google/gemma-2-2b: 26 layers alternating sliding (even) / full (odd), W 4096; 8 heads, 4 KV heads, 256.
constexpr auto make_gemma2_2b() -> model_spec {
  model_spec m{.layers = 26, .attention_heads = 8, .kv_heads = 4, .head_dim = 256, .hidden_size = 2'304,
               .vocab_size = 256'000, .sliding_window = 4'096};
  for (std::uint32_t il = 0; il < 26; il += 2) {
    m.layer[il].kind = layer_kind::sliding;
  }
  return m;
}
constexpr model_spec gemma2_2b = make_gemma2_2b();
}  // namespace

TEST_CASE("llama.cpp L1: OLMoE-1B-7B, q8_0 cache, 8192 cells over two NPU sessions", "[engines][llama.cpp][mha][quantized]") {
  // ggml-org/llama.cpp docs/backend/hexagon/README.md: "llama_kv_cache: size =  544.00 MiB (  8192
  // cells,  16 layers,  1/1 seqs), K (q8_0):  272.00 MiB, V (q8_0):  272.00 MiB"; "HTP1 KV buffer
  // size =   238.00 MiB" (7 layers), "HTP0 ... 306.00 MiB" (9 layers).
  const engine_options o{.context = 8'192, .kv = kvsize::kv_dtypes::same(dtype::q8_0)};
  CHECK(has_line(llama(olmoe_1b_7b, o), "llama_kv_cache: size =  544.00 MiB (  8192 cells,  16 layers,  1/1 seqs), "
                                        "K (q8_0):  272.00 MiB, V (q8_0):  272.00 MiB"));
  CHECK(mib(kvsize::engines::llama_cpp::buffer_bytes(olmoe_1b_7b, o, 0, 7)) == 238.00);
  CHECK(mib(kvsize::engines::llama_cpp::buffer_bytes(olmoe_1b_7b, o, 7, 9)) == 306.00);
}

TEST_CASE("llama.cpp L2: gpt-oss-20b iSWA, q8_0, -b 128 over four NPU sessions", "[engines][llama.cpp][sliding][quantized]") {
  // ggml-org/llama.cpp docs/backend/snapdragon/developer.md (the Hexagon NPU), `--ctx-size 8192
  // --batch-size 128 -ctk q8_0 -ctv q8_0`: n_ubatch = min(512, 128) = 128 → SWA cells pad256(128 + 128) = 256.
  const model_spec& m = config("openai__gpt-oss-20b.config.json");
  const engine_options o{.context = 8'192, .kv = kvsize::kv_dtypes::same(dtype::q8_0), .llama_cpp = {.ubatch = 128}};
  const auto ls = llama(m, o);
  CHECK(has_line(ls, "llama_kv_cache_iswa: creating non-SWA KV cache, size = 8192 cells"));
  CHECK(has_line(ls, "llama_kv_cache: size =  102.00 MiB (  8192 cells,  12 layers,  1/1 seqs), "
                     "K (q8_0):   51.00 MiB, V (q8_0):   51.00 MiB"));
  CHECK(has_line(ls, "llama_kv_cache_iswa: creating     SWA KV cache, size = 256 cells"));
  CHECK(has_line(ls, "llama_kv_cache: size =    3.19 MiB (   256 cells,  12 layers,  1/1 seqs), "
                     "K (q8_0):    1.59 MiB, V (q8_0):    1.59 MiB"));
  // Per device: HTP0 layers 0–6, HTP1 7–12, HTP2 13–18, HTP3 19–23.
  using kvsize::engines::llama_cpp::buffer_bytes;
  using kvsize::engines::llama_cpp::cache_select;
  CHECK(mib(buffer_bytes(m, o, 7, 6, cache_select::base)) == 25.50);
  CHECK(mib(buffer_bytes(m, o, 0, 7, cache_select::swa)) == 1.06);
  CHECK(mib(buffer_bytes(m, o, 7, 6, cache_select::swa)) == 0.80);
  CHECK(mib(buffer_bytes(m, o, 19, 5, cache_select::swa)) == 0.53);
}

TEST_CASE("llama.cpp L3: gpt-oss-20b at 131072 cells, ubatch 512 and 2048", "[engines][llama.cpp][sliding]") {
  // Two public llama-server logs on Metal: "size = 3072.00
  // MiB (131072 cells,  12 layers,  1/1 seqs), K (f16): 1536.00 MiB, V (f16): 1536.00 MiB";
  // SWA "size = 768 cells" / "18.00 MiB" at -ub 512 and "size = 2304 cells" / "54.00 MiB" at -ub 2048.
  const model_spec& m = config("openai__gpt-oss-20b.config.json");
  engine_options o{.context = 131'072, .kv = kvsize::kv_dtypes::same(dtype::f16)};
  auto ls = llama(m, o);
  CHECK(has_line(ls, "llama_kv_cache: size = 3072.00 MiB (131072 cells,  12 layers,  1/1 seqs), "
                     "K (f16): 1536.00 MiB, V (f16): 1536.00 MiB"));
  CHECK(has_line(ls, "llama_kv_cache_iswa: creating     SWA KV cache, size = 768 cells"));
  CHECK(has_line(ls, "llama_kv_cache: size =   18.00 MiB (   768 cells,  12 layers,  1/1 seqs), "
                     "K (f16):    9.00 MiB, V (f16):    9.00 MiB"));
  o.llama_cpp.ubatch = 2'048;
  ls = llama(m, o);
  CHECK(has_line(ls, "llama_kv_cache_iswa: creating     SWA KV cache, size = 2304 cells"));
  CHECK(has_line(ls, "llama_kv_cache: size =   54.00 MiB (  2304 cells,  12 layers,  1/1 seqs), "
                     "K (f16):   27.00 MiB, V (f16):   27.00 MiB"));
}

TEST_CASE("llama.cpp L4: Qwen2.5-Coder-32B, q8_0 K and V, 32768 cells on two GPUs", "[engines][llama.cpp][gqa][quantized]") {
  // ggml-org/llama.cpp#11200 (https://github.com/ggml-org/llama.cpp/issues/11200): "KV self size  =
  // 4352.00 MiB, K (q8_0): 2176.00 MiB, V (q8_0): 2176.00 MiB", "CUDA0 KV buffer size =  2788.00
  // MiB" (41 layers), "CUDA1 ... 1564.00 MiB" (23 layers). (Old line format; the figures match.)
  const engine_options o{.context = 32'768, .kv = kvsize::kv_dtypes::same(dtype::q8_0)};
  const auto s = kvsize::size_cache(qwen2_5_32b, engine_kind::llama_cpp, o);
  CHECK(mib(s.kv_bytes) == 4352.00);
  CHECK(mib(s.part(0).k_bytes) == 2176.00);
  CHECK(mib(s.part(0).v_bytes) == 2176.00);
  CHECK(mib(kvsize::engines::llama_cpp::buffer_bytes(qwen2_5_32b, o, 0, 41)) == 2788.00);
  CHECK(mib(kvsize::engines::llama_cpp::buffer_bytes(qwen2_5_32b, o, 41, 23)) == 1564.00);
}

TEST_CASE("llama.cpp L5: Llama-3.1-70B at 4096 over two RPC servers", "[engines][llama.cpp][gqa]") {
  // A public how-to README: "llama_kv_cache_unified: size = 1280.00 MiB (
  // 4096 cells,  80 layers,  1/1 seqs), K (f16):  640.00 MiB, V (f16):  640.00 MiB"; RPC buffers
  // 656.00 MiB (41 layers) and 624.00 MiB (39 layers). The class was named llama_kv_cache_unified.
  const model_spec& m = config("meta-llama__Llama-3.1-70B.config.json");
  const engine_options o{.context = 4'096, .kv = kvsize::kv_dtypes::same(dtype::f16)};
  CHECK(has_tail(llama(m, o), "size = 1280.00 MiB (  4096 cells,  80 layers,  1/1 seqs), K (f16):  640.00 MiB, "
                              "V (f16):  640.00 MiB"));
  CHECK(mib(kvsize::engines::llama_cpp::buffer_bytes(m, o, 0, 41)) == 656.00);
  CHECK(mib(kvsize::engines::llama_cpp::buffer_bytes(m, o, 41, 39)) == 624.00);
}

TEST_CASE("llama.cpp L6: Qwen3-8B (R1 distill) at 131072, unified, GPU + CPU", "[engines][llama.cpp][gqa]") {
  // A public LM Studio log: "size = 18432.00 MiB (131072 cells,  36 layers,
  // 1/ 1 seqs), K (f16): 9216.00 MiB, V (f16): 9216.00 MiB"; CUDA0 9728.00 MiB (19 layers), CPU
  // 8704.00 MiB (17 layers). That build printed "%2u/%2u seqs"; the figures are compared.
  const model_spec& m = config("Qwen__Qwen3-8B.config.json");
  const engine_options o{.context = 131'072, .kv = kvsize::kv_dtypes::same(dtype::f16), .llama_cpp = {.kv_unified = true}};
  const auto s = kvsize::size_cache(m, engine_kind::llama_cpp, o);
  CHECK(s.part(0).cells == 131'072);
  CHECK(mib(s.kv_bytes) == 18'432.00);
  CHECK(mib(s.part(0).k_bytes) == 9'216.00);
  CHECK(mib(kvsize::engines::llama_cpp::buffer_bytes(m, o, 0, 19)) == 9'728.00);
  CHECK(mib(kvsize::engines::llama_cpp::buffer_bytes(m, o, 19, 17)) == 8'704.00);
}

TEST_CASE("llama.cpp L7: gemma-2-2b, 4 unified slots: the SWA cache capped at n_ctx", "[engines][llama.cpp][sliding]") {
  // A public llama-server log, both caches "size =  416.00 MiB (  8192 cells,  13 layers,  4/1
  // seqs), K (f16):  208.00 MiB, V (f16):  208.00 MiB": pad256(min(8192, 4096·4 + 512)) = 8192.
  const engine_options o{.context = 8'192, .kv = kvsize::kv_dtypes::same(dtype::f16),
                         .llama_cpp = {.parallel = 4, .kv_unified = true}};
  const auto ls = llama(gemma2_2b, o);
  CHECK(has_line(ls, "llama_kv_cache_iswa: creating     SWA KV cache, size = 8192 cells"));
  CHECK(std::count(ls.begin(), ls.end(),
                   "llama_kv_cache: size =  416.00 MiB (  8192 cells,  13 layers,  4/1 seqs), K (f16):  208.00 MiB, "
                   "V (f16):  208.00 MiB") == 2);
}

TEST_CASE("llama.cpp L8: gemma-3-270m, -np 3 pads each slot up and allocates more", "[engines][llama.cpp][sliding]") {
  // unslothai/unsloth PR #7530 (https://github.com/unslothai/unsloth/pull/7530): "ctx 1024 with 3
  // slots allocates 1536 cells / 27.0 MiB, but 4 slots allocates 1024 cells / 18.0 MiB".
  engine_options o{.context = 1'024, .kv = kvsize::kv_dtypes::same(dtype::f16), .llama_cpp = {.parallel = 3}};
  auto s = kvsize::size_cache(gemma3_270m, engine_kind::llama_cpp, o);
  CHECK(s.llama_cpp.n_ctx_seq == 512);
  CHECK(s.part(0).cells * s.part(0).streams == 1'536);
  CHECK(rounded(s.kv_bytes.in(MiB), 1) == 27.0);
  o.llama_cpp.parallel = 4;
  s = kvsize::size_cache(gemma3_270m, engine_kind::llama_cpp, o);
  CHECK(s.part(0).cells * s.part(0).streams == 1'024);
  CHECK(rounded(s.kv_bytes.in(MiB), 1) == 18.0);
}

TEST_CASE("llama.cpp L10: DeepSeek-R1 in the early-2025 expanded layout", "[engines][llama.cpp][latent]") {
  // A public llama.cpp log: "KV self size  = 19520.00 MiB, K (f16): 11712.00 MiB, V (f16):
  // 7808.00 MiB" at n_ctx 4096 (per layer n_embd_k_gqa = 24576, n_embd_v_gqa = 16384).
  const model_spec& m = config("deepseek-ai__DeepSeek-R1.config.json");
  const engine_options o{.context = 4'096, .kv = kvsize::kv_dtypes::same(dtype::f16),
                         .llama_cpp = {.mla_layout = kvsize::mla_cache_layout::expanded}};
  const auto s = kvsize::size_cache(m, engine_kind::llama_cpp, o);
  CHECK(mib(s.kv_bytes) == 19'520.00);
  CHECK(mib(s.part(0).k_bytes) == 11'712.00);
  CHECK(mib(s.part(0).v_bytes) == 7'808.00);
}

TEST_CASE("llama.cpp L11: DeepSeek-R1 expanded, 4 × 2048 in one buffer over 8 GPUs", "[engines][llama.cpp][latent]") {
  // Two public llama.cpp logs: n_seq_max 4, n_ctx 8192 in one 8192-cell buffer
  // (that build's cache was unified): "KV self size  = 39040.00 MiB, K (f16): 23424.00 MiB, V (f16):
  // 15616.00 MiB"; ROCm0–5 5120.00 MiB (8 layers each), ROCm6 4480.00 (7), ROCm7 3840.00 (6).
  const model_spec& m = config("deepseek-ai__DeepSeek-R1.config.json");
  const engine_options o{.context = 8'192, .kv = kvsize::kv_dtypes::same(dtype::f16),
                         .llama_cpp = {.parallel = 4, .kv_unified = true,
                                       .mla_layout = kvsize::mla_cache_layout::expanded}};
  const auto s = kvsize::size_cache(m, engine_kind::llama_cpp, o);
  CHECK(mib(s.kv_bytes) == 39'040.00);
  CHECK(mib(s.part(0).k_bytes) == 23'424.00);
  CHECK(mib(s.part(0).v_bytes) == 15'616.00);
  CHECK(mib(kvsize::engines::llama_cpp::buffer_bytes(m, o, 0, 8)) == 5'120.00);
  CHECK(mib(kvsize::engines::llama_cpp::buffer_bytes(m, o, 48, 7)) == 4'480.00);
  CHECK(mib(kvsize::engines::llama_cpp::buffer_bytes(m, o, 55, 6)) == 3'840.00);
}

TEST_CASE("llama.cpp L12: DeepSeek-R1 with K in q5_0 and V in f16", "[engines][llama.cpp][latent][quantized]") {
  // A public llama.cpp log: "type_k = 'q5_0', type_v = 'f16'", "KV self size  = 11834.00 MiB,
  // K (q5_0): 4026.00 MiB, V (f16): 7808.00 MiB"; CUDA0 970.00 MiB (5 layers), CPU 10864.00 (56).
  const model_spec& m = config("deepseek-ai__DeepSeek-R1.config.json");
  const engine_options o{.context = 4'096, .kv = kvsize::kv_dtypes{dtype::q5_0, dtype::f16},
                         .llama_cpp = {.mla_layout = kvsize::mla_cache_layout::expanded}};
  const auto s = kvsize::size_cache(m, engine_kind::llama_cpp, o);
  CHECK(mib(s.kv_bytes) == 11'834.00);
  CHECK(mib(s.part(0).k_bytes) == 4'026.00);
  CHECK(mib(kvsize::engines::llama_cpp::buffer_bytes(m, o, 0, 5)) == 970.00);
  CHECK(mib(kvsize::engines::llama_cpp::buffer_bytes(m, o, 5, 56)) == 10'864.00);
}

TEST_CASE("llama.cpp L13: DeepSeek-R1 latent K 576 + V 512 (mid-2025), 16384 cells, 4 GPUs", "[engines][llama.cpp][latent]") {
  // A public llama.cpp log: "KV self size  = 2074.00 MiB, K (f16): 1098.00 MiB, V (f16):
  // 976.00 MiB"; CUDA0–3 510 / 408 / 408 / 748 MiB (15 / 12 / 12 / 22 layers).
  const model_spec& m = config("deepseek-ai__DeepSeek-R1.config.json");
  const engine_options o{.context = 16'384, .kv = kvsize::kv_dtypes::same(dtype::f16),
                         .llama_cpp = {.mla_layout = kvsize::mla_cache_layout::latent_k_and_v}};
  const auto s = kvsize::size_cache(m, engine_kind::llama_cpp, o);
  CHECK(mib(s.kv_bytes) == 2'074.00);
  CHECK(mib(s.part(0).k_bytes) == 1'098.00);
  CHECK(mib(s.part(0).v_bytes) == 976.00);
  using kvsize::engines::llama_cpp::buffer_bytes;
  CHECK(mib(buffer_bytes(m, o, 0, 15)) == 510.00);
  CHECK(mib(buffer_bytes(m, o, 15, 12)) == 408.00);
  CHECK(mib(buffer_bytes(m, o, 39, 22)) == 748.00);
  // The 2026 K-only layout (the default) drops V: 61 × 16384 × 576 × 2 B.
  const auto k_only = kvsize::size_cache(m, engine_kind::llama_cpp,
                                         {.context = 16'384, .kv = kvsize::kv_dtypes::same(dtype::f16)});
  CHECK(mib(k_only.kv_bytes) == 1'098.00);
}

TEST_CASE("llama.cpp L14: Qwen1.5-72B (MHA) at an unpadded 13000 cells", "[engines][llama.cpp][mha]") {
  // abetlen/llama-cpp-python#1161 (https://github.com/abetlen/llama-cpp-python/issues/1161):
  // "CUDA0 KV buffer size = 10968.75 MiB" for 27 of 80 layers in f16 (the requested q4_0 was
  // ignored). Builds of early 2024 did not pad n_ctx: ctx_pad = 1.
  const engine_options o{.context = 13'000, .kv = kvsize::kv_dtypes::same(dtype::f16), .llama_cpp = {.ctx_pad = 1}};
  CHECK(mib(kvsize::engines::llama_cpp::buffer_bytes(qwen1_5_72b, o, 0, 27)) == 10'968.75);
}

TEST_CASE("llama.cpp L16: Yi-6B-200K at -c 200000 and Yi-34B-200K at -c 50000", "[engines][llama.cpp][gqa]") {
  // https://huggingface.co/TheBloke/Yi-34B-200K-GGUF/discussions/1: "kv self size  = 12500.00 MB"
  // and "kv self size  = 11718.75 MB" (MB = MiB; unpadded n_ctx of late-2023 builds).
  const engine_options o6{.context = 200'000, .kv = kvsize::kv_dtypes::same(dtype::f16), .llama_cpp = {.ctx_pad = 1}};
  CHECK(mib(kvsize::size_cache(yi_6b, engine_kind::llama_cpp, o6).kv_bytes) == 12'500.00);
  const engine_options o34{.context = 50'000, .kv = kvsize::kv_dtypes::same(dtype::f16), .llama_cpp = {.ctx_pad = 1}};
  CHECK(mib(kvsize::size_cache(yi_34b, engine_kind::llama_cpp, o34).kv_bytes) == 11'718.75);
}

TEST_CASE("llama.cpp L17: seven models' keys at 2048 cells (MHA Command-R vs GQA)", "[engines][llama.cpp][mha][gqa]") {
  // https://huggingface.co/dranger003/c4ai-command-r-v01-iMat.GGUF/discussions/6: Keys 128 MiB
  // (Mixtral-8x7B, Llama-3-8B, Mistral-7B-based functionary), 320 MiB (Llama-3-70B), 1280 MiB
  // (c4ai-command-r-v01: 64 KV heads, no GQA).
  const engine_options o{.context = 2'048, .kv = kvsize::kv_dtypes::same(dtype::f16)};
  const auto keys = [&](const model_spec& m) { return mib(kvsize::size_cache(m, engine_kind::llama_cpp, o).part(0).k_bytes); };
  CHECK(keys(config("mistralai__Mixtral-8x7B-v0.1.config.json")) == 128.00);
  CHECK(keys(config("meta-llama__Llama-3.1-8B.config.json")) == 128.00);
  CHECK(keys(config("meta-llama__Llama-3.1-70B.config.json")) == 320.00);
  CHECK(keys(config("CohereForAI__c4ai-command-r-v01.config.json")) == 1'280.00);
}

TEST_CASE("llama.cpp O1: Llama-3.1-8B at 32K, f16 4 GiB vs q4_0 1.125 GiB (Ollama)", "[engines][llama.cpp][quantized]") {
  // ollama/ollama PR #6276 (https://github.com/ollama/ollama/pull/6276): "loading llama3.1 8b with a
  // 32K context drops vRAM usage by cache from 4GB to 1.1GB" (llama.cpp allocates q4_0 as 18/32 B).
  const model_spec& m = config("meta-llama__Llama-3.1-8B.config.json");
  engine_options o{.context = 32'768, .kv = kvsize::kv_dtypes::same(dtype::f16)};
  CHECK(kvsize::size_cache(m, engine_kind::llama_cpp, o).kv_bytes == 4_GiB);
  o.kv = kvsize::kv_dtypes::same(dtype::q4_0);
  CHECK(kvsize::size_cache(m, engine_kind::llama_cpp, o).kv_bytes == 1'152_MiB);
  CHECK(rounded(kvsize::size_cache(m, engine_kind::llama_cpp, o).kv_bytes.in(GiB), 1) == 1.1);
}

TEST_CASE("llama.cpp: a layer split of more devices than layers is refused, even one whose product needs 64 bits",
          "[engines][llama.cpp][errors]") {
  // --tp 65536 --pp 65536 is 2^32 devices: in 32 bits the product wraps to 0, and no stage was sized.
  const model_spec& m = config("Qwen__Qwen2.5-1.5B.config.json");
  engine_options o{.context = 4'096, .tp = 65'536, .pp = 65'536};
  STATIC_CHECK(kvsize::llama_cpp_engine::layer_split_devices(engine_options{.tp = 65'536, .pp = 65'536}) ==
               std::uint64_t{1} << 32);
  CHECK_THROWS_AS(kvsize::size_cache(m, engine_kind::llama_cpp, o), kvsize::invalid_argument);
  o.tp = 4;
  o.pp = 5;  // 20 devices: llama.cpp splits over at most 16 (llama_max_devices)
  CHECK_THROWS_AS(kvsize::size_cache(m, engine_kind::llama_cpp, o), kvsize::invalid_argument);
  o.pp = 4;  // 16 devices share 29 slots (28 blocks and the output layer): 1 or 2 blocks each
  CHECK(kvsize::size_cache(m, engine_kind::llama_cpp, o).stage_layers == 2);
}

// The compute buffers a context reserves (engines/llama_cpp_compute.hpp) against public logs that print
// them; the cases, their dimensions and the error table: docs/research/llama-cpp-compute.md.
namespace {
/// "X MiB" as llama.cpp prints it (two decimals) for a buffer of `b` bytes.
auto printed_mib(bytes b) -> double { return rounded(static_cast<double>(b.count()) / 1'048'576.0, 2); }
auto buffers(const model_spec& m, std::uint64_t n_ctx, bool flash_attn) -> kvsize::engines::llama_cpp::compute_buffers {
  return kvsize::engines::llama_cpp::compute_buffers_of(m, n_ctx, 1, 1, std::min<std::uint64_t>(512, n_ctx), flash_attn);
}
}  // namespace

TEST_CASE("llama.cpp compute buffer: Llama-3.2-1B, flash attention (auto, enabled), n_ctx 4096", "[engine_logs][llama_cpp]") {
  // A public RAG tutorial README with an Ollama (llama.cpp) log, late 2025 (repository not named;
  // docs/research/llama-cpp-compute.md A4): "Flash Attention was auto, set to enabled", "CUDA0 compute
  // buffer size = 254.50 MiB", "CUDA_Host compute buffer size = 12.01 MiB" (Ollama's default n_ctx 4096).
  // The output peak rules: 512 × (128,256 + 2,048) × 4 B = 266,862,592 B = 254.50 MiB.
  const auto b = buffers(config("meta-llama__Llama-3.2-1B-Instruct.config.json"), 4'096, true);
  CHECK(b.device == b.output);
  CHECK(printed_mib(b.device) == 254.50);
  // Host: the f32 mask 4,096 × 512 × 4 B + the embedding lookup 512 × 2,048 × 4 B = 12.00 MiB; the log's
  // 12.01 holds a few KiB of other inputs (positions, output ids).
  CHECK(std::abs(printed_mib(b.host) - 12.01) <= 0.011);
  // And the report prints the lines as llama.cpp does.
  engine_options o{.context = 4'096};
  const auto ls = lines(config("meta-llama__Llama-3.2-1B-Instruct.config.json"), engine_kind::llama_cpp, o);
  CHECK(has_line(ls, "llama_context:      CUDA0 compute buffer size =   254.50 MiB"));
  CHECK(has_line(ls, "llama_context:  CUDA_Host  output buffer size =     0.49 MiB"));
}

TEST_CASE("llama.cpp compute buffer: Llama-2-7B on the CPU, no flash attention, n_ctx 4096", "[engine_logs][llama_cpp]") {
  // Arm's learning path "Run a Large Language model (LLM) chatbot on Arm servers" (Llama-2-7B-Chat Q4_K_M on an
  // AWS Graviton3, 2024 build; https://github.com/ArmDeveloperEcosystem/arm-learning-paths, file
  // content/learning-paths/servers-and-cloud-computing/llama-cpu/llama-chatbot.md; docs/research/llama-cpp-compute.md
  // B1): "CPU compute buffer size = 296.01 MiB", "CPU output buffer size = 0.12 MiB".
  // Without flash attention the scores rule: KQ 4,096 × 512 × 32 × 4 B = 256 MiB, the mask 8 MiB, and
  // residual, normed input, Q and the attention output 512 × 4 × 4,096 × 4 B = 32 MiB: 296.00 MiB.
  const auto b = buffers(config("meta-llama__Llama-2-7b-hf.config.json"), 4'096, false);
  CHECK(b.device == b.attention);
  CHECK(std::abs(printed_mib(b.device) - 296.01) <= 0.011);
  CHECK(printed_mib(b.output_buffer) == 0.12);
  // With flash attention the same context needs no score matrix: the output peak, 512 × (32,000 + 4,096)
  // × 4 B = 70.5 MiB, or the MLP's.
  CHECK(buffers(config("meta-llama__Llama-2-7b-hf.config.json"), 4'096, true).device < b.device / 2);
}

TEST_CASE("llama.cpp compute buffer: Qwen2.5-0.5B on the CPU, no flash attention, n_ctx 4096", "[engine_logs][llama_cpp]") {
  // D-Robotics hobot_llamacpp README (RDK X5; https://github.com/D-Robotics/hobot_llamacpp, README_cn.md;
  // docs/research/llama-cpp-compute.md B2): "flash_attn = 0",
  // "CPU output buffer size = 0.58 MiB", "CPU compute buffer size = 299.74 MiB". kvsize: the output peak
  // 512 × (151,936 + 896) × 4 B = 298.50 MiB (−0.4 %).
  const auto b = buffers(config("Qwen__Qwen2.5-0.5B.config.json"), 4'096, false);
  CHECK(printed_mib(b.output_buffer) == 0.58);
  const double err = (printed_mib(b.device) - 299.74) / 299.74;
  CHECK(err < 0.0);
  CHECK(err > -0.01);
}

TEST_CASE("llama.cpp compute buffer: Pythia-2.8B on a V100, no flash attention, n_ctx 2048", "[engine_logs][llama_cpp]") {
  // ggml-org/ci's CUDA V100 run of llama.cpp build 4897 (github.com/ggml-org/ci, results branch,
  // llama.cpp/b3/c9a65673…/ggml-4-x86-cuda-v100/README.md; docs/research/llama-cpp-compute.md A2), with the
  // dimensions it prints: n_embd 2560, 32 heads, n_ff 10240 (ungated), n_vocab 50304. "CUDA0 compute buffer
  // size = 162.00 MiB", "CUDA_Host compute buffer size = 9.01 MiB". kvsize: KQ 128 MiB + mask 4 MiB + 20 MiB
  // = 152 MiB (−6.2 %: GPT-NeoX's fused QKV keeps two more n_embd-wide tensors alive).
  constexpr model_spec pythia{.layers = 32, .attention_heads = 32, .kv_heads = 32, .head_dim = 80,
                              .hidden_size = 2'560, .vocab_size = 50'304, .max_context = 2'048,
                              .intermediate_size = 10'240, .gated_mlp = false};
  const auto b = buffers(pythia, 2'048, false);
  CHECK(printed_mib(b.device) == 152.00);
  CHECK(std::abs(printed_mib(b.host) - 9.01) <= 0.011);
}

TEST_CASE("LFM2: short-convolution layers keep a conv state, each engine in its own dtype", "[engines][lfm2]") {
  // LFM2-1.2B (configs/, launch revision: full_attn_idxs): 10 short-conv layers of (conv_L_cache 3 − 1) ×
  // conv_dim 2,048 = 4,096 elements each. vLLM keeps it in the model dtype (mamba_utils.py
  // short_conv_state_shape, MambaStateDtypeCalculator: mamba_cache_dtype auto), llama.cpp in f32 (its
  // recurrent memory's R/S tensors), SGLang's conv state in bf16. 6 attention layers: 12,288 B per token.
  const model_spec& m = config("LiquidAI__LFM2-1.2B.config.json");
  const engine_options o{.context = 4'096};
  CHECK(kvsize::size_cache(m, engine_kind::exact, o).state_bytes_per_sequence == bytes{10 * 4'096 * 2});
  CHECK(kvsize::size_cache(m, engine_kind::llama_cpp, o).state_bytes_per_sequence == bytes{10 * 4'096 * 4});
  CHECK(kvsize::size_cache(m, engine_kind::sglang, o).state_bytes_per_sequence == bytes{10 * 4'096 * 2});
  const auto v = kvsize::size_cache(m, engine_kind::vllm, o);
  CHECK(v.kv_bytes_per_token == bytes{12'288});
  // vLLM: the attention block (16 tokens × 2,048 B = 32 KiB per layer) already holds the 8 KiB conv page,
  // which is padded to it; 6 attention layers and 10 conv layers group by 6: 1 + 2 groups of 6 × 32 KiB;
  // a request holds one block in each conv group.
  CHECK(v.block_size == 16);
  CHECK(v.vllm.kv_cache_groups == 3);
  CHECK(v.state_bytes_per_sequence == bytes{2 * 6 * 32'768});
}
