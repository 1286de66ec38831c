// SPDX-License-Identifier: MIT
// MiniMax-M3 (minimax_m3) under each engine: 60 GQA layers of 4 KV heads × 128, and on the 57 sparse layers
// (sparse_attention_freq 1: layers 3-59) one index key of 128 elements per token, one head replicated on
// every rank. In bf16 a layer's K and V are 4 × 128 × 2 × 2 B = 2,048 B a token and an index key 256 B:
// 60 × 2,048 + 57 × 256 = 122,880 + 14,592 = 137,472 B a token. The engines differ in the index key's
// element type; each rule is cited beside its figure and in docs/engines.md (MiniMax-M3).
#include <catch2/matchers/catch_matchers_string.hpp>

#include <fstream>
#include <iterator>
#include <string>

#include "engine_logs_support.hpp"  // Catch2, the kvsize headers, and the names the cases use

using namespace kvsize::test::engine_logs;

namespace {
auto minimax_m3() -> kvsize::hf::parsed_config {
  return kvsize::hf::load_config(std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs" / "MiniMaxAI__MiniMax-M3.config.json");
}
}  // namespace

TEST_CASE("MiniMax-M3 per engine, one 4,096-token sequence", "[engines][minimax_m3]") {
  const auto c = minimax_m3();
  const model_spec& m = c.spec;
  REQUIRE(m.layers == 60);
  REQUIRE(kvsize::count_layers(m, kvsize::layer_kind::indexed) == 57);
  const engine_options o{.context = 4'096};
  // exact: K, V and the index key in K's type, every token: 137,472 × 4,096.
  CHECK(kvsize::size_cache(m, engine_kind::exact, o).kv_bytes_per_sequence == bytes{137'472ULL * 4'096});
  // transformers (MiniMaxM3VLSparseCacheLayer: idx_keys in the activation dtype, bf16), SGLang (MiniMaxSparseKVPool:
  // index_k_pool in the model dtype) and TensorRT-LLM (INDEX_KEY buffer: bf16 beside a bf16 cache; 32-token blocks
  // divide 4,096): the same 563,085,312.
  CHECK(kvsize::size_cache(m, engine_kind::transformers, o).kv_bytes_per_sequence == bytes{563'085'312ULL});
  CHECK(kvsize::size_cache(m, engine_kind::sglang, o).kv_bytes_per_sequence == bytes{563'085'312ULL});
  CHECK(kvsize::size_cache(m, engine_kind::trtllm, o).kv_bytes_per_sequence == bytes{563'085'312ULL});
  // llama.cpp keeps the index keys in a cache of their own (llama_kv_cache_msa's kv_idx: one head of
  // indexer_head_size in type_k, and, being a plain llama_kv_cache, a V row of one head of n_embd_head_v in type_v;
  // src/llama-kv-cache-msa.cpp @62c6171f): f16, 57 × (128 + 128) × 2 B = 29,184 beside K and V (122,880): 152,064
  // × 4,096 cells.
  CHECK(kvsize::size_cache(m, engine_kind::llama_cpp, o).kv_bytes_per_sequence == bytes{152'064ULL * 4'096});
  // In q8_0 (34 B per 32 elements) both follow the cache types: K and V 60 × 2 × 544 = 65,280, the index cache
  // 57 × 2 × 136 = 15,504: 80,784 a cell (an F32 index key, as the first llama.cpp port kept it, would be 94,464).
  engine_options q8 = o;
  q8.kv = kvsize::kv_dtypes::same(dtype::q8_0);
  q8.llama_cpp.flash_attn = true;
  CHECK(kvsize::size_cache(m, engine_kind::llama_cpp, q8).kv_bytes_per_sequence == bytes{80'784ULL * 4'096});
  // vLLM: one KV cache group (UniformTypeKVCacheSpecs: the 60 FullAttentionSpecs and 57 MLAAttentionSpec index
  // caches share a block table), 128-token blocks (MiniMaxM3SparseBackend's only kernel block size), a pool block
  // 128 × 137,472 = 17,596,416 B. 4,096 tokens are 32 blocks: 563,085,312.
  CHECK(kvsize::size_cache(m, engine_kind::vllm, o).kv_bytes_per_sequence == bytes{32ULL * 17'596'416});
  CHECK(kvsize::size_cache(m, engine_kind::vllm, o).block_size == 128);
  // 4,000 tokens are still 32 blocks of 128 (with vLLM's usual 16-token blocks they would be 250: 549,888,000).
  engine_options t4000 = o;
  t4000.context = 4'000;
  CHECK(kvsize::size_cache(m, engine_kind::vllm, t4000).kv_bytes_per_sequence == bytes{32ULL * 17'596'416});
  CHECK(kvsize::size_cache(m, engine_kind::exact, t4000).kv_bytes_per_sequence == bytes{137'472ULL * 4'000});
  // A --block-size that is not a multiple of 128 is one vLLM cannot page the sparse layers in.
  engine_options bs16 = o;
  bs16.block_size = 16;
  CHECK_THROWS_WITH(kvsize::size_cache(m, engine_kind::vllm, bs16), Catch::Matchers::ContainsSubstring("multiple of 128"));
  engine_options bs256 = o;
  bs256.block_size = 256;
  CHECK(kvsize::size_cache(m, engine_kind::vllm, bs256).kv_bytes_per_sequence == bytes{16ULL * 256 * 137'472});
}

TEST_CASE("MiniMax-M3: an fp8 KV cache leaves the index key where each engine keeps it", "[engines][minimax_m3]") {
  const auto c = minimax_m3();
  engine_options o{.context = 4'096};
  o.kv = kvsize::kv_dtypes::same(kvsize::dtype::fp8_e4m3);
  // K and V in fp8: 60 × 4 × 128 × 2 × 1 B = 61,440. The index key stays bf16 under vLLM (indexer_kv_dtype
  // "bf16"), SGLang (the model dtype) and TensorRT-LLM (bf16 unless the cache is f16 or f32): + 14,592 = 76,032.
  for (const engine_kind e : {engine_kind::vllm, engine_kind::sglang, engine_kind::trtllm}) {
    INFO(kvsize::name(e));
    CHECK(kvsize::size_cache(c.spec, e, o).kv_bytes_per_sequence == bytes{76'032ULL * 4'096});
  }
  // The exact cache keeps the key in K's type: 61,440 + 57 × 128 × 1 = 68,736.
  CHECK(kvsize::size_cache(c.spec, engine_kind::exact, o).kv_bytes_per_sequence == bytes{68'736ULL * 4'096});
}

TEST_CASE("MiniMax-M3: tensor parallel 8 splits the KV heads, not the one index head", "[engines][minimax_m3]") {
  const auto c = minimax_m3();
  engine_options o{.context = 4'096};
  o.tp = 8;
  // 4 KV heads over 8 ranks: one a rank (replicated), 1 × 128 × 2 × 2 B = 512 B a layer; the index key (one head,
  // MiniMaxM3IndexerCache num_kv_heads = 1; SGLang's index_k_pool head_num = 1) whole on every rank: 256 B.
  // 60 × 512 + 57 × 256 = 45,312 B a token a rank.
  CHECK(kvsize::size_cache(c.spec, engine_kind::vllm, o).kv_bytes_per_sequence == bytes{45'312ULL * 4'096});
  CHECK(kvsize::size_cache(c.spec, engine_kind::sglang, o).kv_bytes_per_sequence == bytes{45'312ULL * 4'096});
}

TEST_CASE("MiniMax-M3: SGLang keeps the index key in the dtype it serves, not the config's", "[engines][minimax_m3]") {
  // A float32 config: SGLang serves it in float16 (model_config.py _get_and_verify_dtype), K, V and the index pool
  // alike: 2 B an element, 137,472 B a token, not the 152,064 of a float32 index key.
  std::string text;
  {
    std::ifstream in{std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs" / "MiniMaxAI__MiniMax-M3.config.json"};
    text.assign(std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{});
  }
  const auto at = text.find("\"bfloat16\"");
  REQUIRE(at != std::string::npos);
  text.replace(at, 10, "\"float32\"");
  const auto c = kvsize::hf::parse_config(text, "float32.json");
  REQUIRE(c.spec.compute_dtype == dtype::f32);
  const engine_options o{.context = 4'096};
  CHECK(kvsize::size_cache(c.spec, engine_kind::sglang, o).kv_bytes_per_token == bytes{137'472});
  // transformers runs a float32 model in float32: 4 B an element, K, V and idx_keys: 2 × 137,472.
  CHECK(kvsize::size_cache(c.spec, engine_kind::transformers, o).kv_bytes_per_token == bytes{274'944});
}
