// SPDX-License-Identifier: MIT
// Step-3.5-Flash (step3p5) under each engine: 12 full-attention layers and 33 sliding ones (window 512), every
// layer 8 KV heads of 128 (num_attention_groups on the full layers, attention_other_setting's on the sliding
// ones; vLLM models/step3p5.py Step3p5DecoderLayer.__init__), one 4,096-token sequence in bf16. A layer keeps
// 8 × 128 × 2 × 2 B = 4,096 B a token. Each figure's derivation is beside it; the engine rules are cited in
// docs/engines.md (Step-3.5-Flash).
#include "engine_logs_support.hpp"  // Catch2, the kvsize headers, and the names the cases use

using namespace kvsize::test::engine_logs;

TEST_CASE("Step-3.5-Flash per engine, one 4,096-token sequence", "[engines][step3p5]") {
  const auto c = kvsize::hf::load_config(std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs" /
                                         "stepfun-ai__Step-3.5-Flash.config.json");
  const model_spec& m = c.spec;
  REQUIRE(m.layers == 45);
  constexpr std::uint64_t full = 12ULL * 4'096;  // B a token of the 12 full layers
  constexpr std::uint64_t sliding = 33ULL * 4'096;
  const engine_options o{.context = 4'096};
  // exact and TensorRT-LLM: full layers the context, sliding layers the window (TRT-LLM's 32-token blocks
  // divide both): 12 × 4,096 × 4,096 + 33 × 4,096 × 512 = 201,326,592 + 69,206,016.
  CHECK(kvsize::size_cache(m, engine_kind::exact, o).kv_bytes_per_sequence == bytes{full * 4'096 + sliding * 512});
  CHECK(kvsize::size_cache(m, engine_kind::trtllm, o).kv_bytes_per_sequence == bytes{270'532'608ULL});
  // transformers: a sliding layer keeps window − 1 = 511 tokens.
  CHECK(kvsize::size_cache(m, engine_kind::transformers, o).kv_bytes_per_sequence ==
        bytes{full * 4'096 + sliding * 511});
  // llama.cpp (iSWA): the SWA cache holds window + n_ubatch (512) = 1,024 cells, padded to 256: 1,024.
  CHECK(kvsize::size_cache(m, engine_kind::llama_cpp, o).kv_bytes_per_sequence == bytes{full * 4'096 + sliding * 1'024});
  // SGLang without its hybrid SWA pool (off by default in the library): every layer holds the context.
  CHECK(kvsize::size_cache(m, engine_kind::sglang, o).kv_bytes_per_sequence == bytes{(full + sliding) * 4'096});
  // vLLM (hybrid allocator): pages of 16 tokens × 4,096 B = 65,536 B a layer; groups of 12 layers (the smaller
  // type's count): one full group, three sliding groups (33 layers and 3 padding slots), a block of a group
  // 12 × 65,536 = 786,432 B. A request holds 256 blocks of the full group and, per sliding group,
  // cdiv(min(511 + 8,192 batched tokens (the default without a device), 4,096), 16) + 1 = 257:
  // (256 + 3 × 257) × 786,432 = 807,665,664.
  CHECK(kvsize::size_cache(m, engine_kind::vllm, o).kv_bytes_per_sequence == bytes{(256ULL + 3 * 257) * 786'432});
  // With 2,048 batched tokens a sliding group holds cdiv(511 + 2,048, 16) + 1 = 161 blocks: 739 × 786,432.
  engine_options small = o;
  small.vllm.max_num_batched_tokens = 2'048;
  CHECK(kvsize::size_cache(m, engine_kind::vllm, small).kv_bytes_per_sequence == bytes{(256ULL + 3 * 161) * 786'432});
  // tp must split every layer's query heads (vLLM's Step3p5Attention asserts total_num_heads % tp == 0): 32 splits
  // 64 and 96, 64 does not split 96.
  CHECK(kvsize::valid_tp(engine_kind::vllm, m, 32, 1));
  CHECK_FALSE(kvsize::valid_tp(engine_kind::vllm, m, 64, 1));
  // Tensor parallel 8: one KV head a rank on every layer, an eighth of each figure.
  engine_options tp8 = o;
  tp8.tp = 8;
  CHECK(kvsize::size_cache(m, engine_kind::exact, tp8).kv_bytes_per_sequence == bytes{(full * 4'096 + sliding * 512) / 8});
}
