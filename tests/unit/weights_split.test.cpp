// SPDX-License-Identifier: MIT
// kvsize::weights_split (issue 13): the weights one tensor-parallel rank holds. vLLM and SGLang keep some tensors
// whole on every rank (ReplicatedLinear routers and MLA down-projections, norms, RowParallelLinear biases) and copy
// a KV head to tp / kv_heads ranks past the KV heads, so a rank holds more than weights / tp. The layer types:
// docs/research/replicated-weights.md (vllm model_executor/layers/linear.py, models/deepseek_v2.py, qwen3_moe.py,
// llama.py; sglang srt/models/deepseek_v2.py). Each figure is derived by hand beside it.
#include <kvsize/engines/vllm.hpp>
#include <kvsize/hf_config.hpp>
#include <kvsize/kvsize.hpp>
#include <kvsize/weights.hpp>

#include "weights_support.hpp"

#include <catch2/catch_test_macros.hpp>

#include <cstdint>
#include <filesystem>
#include <string>

using kvsize::bytes;
using kvsize::GiB;
using namespace kvsize::test::weights_configs;

TEST_CASE("weights_split: the three shares add up to weights_bytes for every bundled config", "[weights][tp]") {
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path{KVSIZE_SOURCE_DIR} / "configs")) {
    if (entry.path().extension() != ".json") {
      continue;
    }
    const auto c = kvsize::hf::load_config(entry.path());
    if (!c.weights_unknown_because.empty()) {
      continue;
    }
    CAPTURE(entry.path().filename().string());
    const auto bf16 = kvsize::published_weights(kvsize::dtype::bf16);
    CHECK(kvsize::weights_split_of(c.spec, bf16).total() == kvsize::weights_bytes(c.spec, bf16));
    if (c.quantization && c.quantization->format) {
      const auto& q = *c.quantization->format;
      const auto s = kvsize::weights_split_of(c.spec, q);
      CHECK(s.total() == kvsize::weights_bytes(c.spec, q));
      CHECK(s.per_rank(1) == s.total());  // one rank holds everything
    }
    ++checked;
  }
  CHECK(checked >= 55);
}

TEST_CASE("weights_split: a dense GQA model keeps only its norms whole (Llama-3.1-70B, bf16)", "[weights][tp]") {
  // 80 layers of hidden 8,192, 8 KV heads of 128: input and post-attention RMSNorm 2 × 8,192 × 2 B a layer and the
  // final norm 8,192 × 2 B: 80 × 32,768 + 16,384 = 2,637,824 B whole; K and V 2 × 8 × 128 × 8,192 × 2 B a layer:
  // 80 × 33,554,432 = 2,684,354,560 B split by KV head, which 8 ranks still split evenly.
  const auto m = load("meta-llama__Llama-3.1-70B").spec;
  const auto f = kvsize::uniform_weights(kvsize::dtype::bf16);
  const auto s = kvsize::weights_split_of(m, f);
  CHECK(s.whole == bytes{2'637'824});
  CHECK(s.by_kv_head == bytes{2'684'354'560});
  CHECK(s.kv_heads == 8);
  CHECK(s.per_rank(8) == s.split / 8 + s.whole + s.by_kv_head / 8);
  // What weights / 8 missed: 7/8 of the norms, 2.3 MB.
  CHECK(s.per_rank(8) - kvsize::weights_bytes(m, f) / 8 == bytes{2'308'096});
}

TEST_CASE("weights_split: past its 4 KV heads Qwen3-235B-A22B copies K and V, and every rank holds the routers",
          "[weights][tp]") {
  // 94 MoE layers of hidden 4,096, 4 KV heads of 128, 128 experts, Q/K norms of 128 (bf16). Whole a layer: two
  // RMSNorms 2 × 4,096 × 2 B, q_norm and k_norm 2 × 128 × 2 B, the router 128 × 4,096 × 2 B (vLLM
  // Qwen3MoeSparseMoeBlock: ReplicatedLinear): 1,065,472 B; 94 layers and the final norm: 100,162,560 B.
  // K and V: 2 × 4 × 128 × 4,096 × 2 B = 8,388,608 B a layer, 788,529,152 B; at tp 8 each rank holds a quarter
  // (QKVParallelLinear: num_kv_head_replicas = 2).
  const auto m = load("Qwen__Qwen3-235B-A22B").spec;
  const auto s = kvsize::weights_split_of(m, kvsize::uniform_weights(kvsize::dtype::bf16));
  CHECK(s.whole == bytes{100'162'560});
  CHECK(s.by_kv_head == bytes{788'529'152});
  CHECK(s.kv_heads == 4);
  CHECK(s.per_rank(8) == s.split / 8 + bytes{100'162'560} + bytes{788'529'152 / 4});
  CHECK(s.per_rank(4) == s.split / 4 + bytes{100'162'560} + bytes{788'529'152 / 4});
  CHECK(s.per_device(8, 2) == s.per_rank(8) / 2);
}

TEST_CASE("weights_split: DeepSeek-R1 FP8 holds 1,138,633,568 B whole on every rank", "[weights][tp]") {
  // A layer (61): the fused q_a + kv_a projection, ReplicatedLinear in vLLM and SGLang, (1,536 + 576) × 7,168 × 1 B
  // = 15,138,816 and its block scales (12 + 5) × 56 × 4 B = 3,808; q_a_layernorm 1,536 × 2 B, kv_a_layernorm
  // 512 × 2 B, input and post-attention RMSNorm 2 × 7,168 × 2 B: 15,175,392. A MoE layer (58): the router
  // 256 × 7,168 × 2 B and e_score_correction_bias 256 × 4 B: 3,671,040. The final norm 7,168 × 2 B.
  const auto r1 = load("deepseek-ai__DeepSeek-R1");
  REQUIRE(r1.quantization);
  REQUIRE(r1.quantization->format);
  const auto s = kvsize::weights_split_of(r1.spec, *r1.quantization->format);
  CHECK(s.whole == bytes{61ULL * 15'175'392 + 58ULL * 3'671'040 + 14'336});
  CHECK(s.whole == bytes{1'138'633'568});
  CHECK(s.by_kv_head == bytes{0});  // MLA has no K/V projections of its own: kv_b_proj splits by query head
  CHECK(s.per_rank(8) == s.split / 8 + s.whole);
  // weights / 8 counted 142,329,196 B of it: 996,304,372 B (0.93 GiB) a GPU short.
  CHECK(s.whole - s.whole / 8 == bytes{996'304'372});
}

TEST_CASE("weights_split: vLLM 0.11.2's 'Model loading took 79.7390 GiB' for DeepSeek-R1-0528 FP8 at TP 8",
          "[weights][tp][vllm]") {
  // A public start-up log: deepseek-ai/DeepSeek-R1-0528, vLLM v0.11.2, tensor_parallel_size=8, quantization=fp8,
  // no speculative decoding, H200: "(Worker_TP0 pid=402) ... Model loading took 79.7390 GiB memory and 263.495895
  // seconds" (github.com/ashishkamra/vllm-memory-estimator @8b0e21d1ec49357383758a164129515209b37e7f,
  // tests/test_validation_db.py; docs/research/replicated-weights.md §10). R1-0528 has R1's config.
  // kvsize: the rank's weights (no MTP layer) and vLLM's loaded buffers (the rotary cache, 163,840 × 64 × 2 B).
  const auto r1 = load("deepseek-ai__DeepSeek-R1");
  const auto s = kvsize::weights_split_of(r1.spec, *r1.quantization->format);
  kvsize::engine_options o;
  o.tp = 8;
  const bytes buffers = kvsize::engines::vllm::loaded_buffers(r1.spec, o, kvsize::dtype::bf16);
  CHECK(buffers == bytes{163'840ULL * 64 * 2});
  const double measured = 79.7390;  // GiB, printed to 4 decimals
  const auto gib = [](bytes b) { return static_cast<double>(b.count()) / static_cast<double>(GiB.count()); };
  const double loaded = gib(s.per_rank(8) + buffers);
  CAPTURE(loaded);
  // 79.3125 GiB: 0.53 % low. What is left is what vLLM builds after loading (MLA's bf16 W_UK_T / W_UV from a
  // dequantized kv_b_proj, about 0.24 GiB a rank at TP 8, not confirmed on main: not modelled).
  CHECK(loaded < measured);
  CHECK((measured - loaded) / measured < 0.006);
  // An even split was 1.7 % low: 0.93 GiB more KV budget than the GPU has.
  const double even = gib(s.total() / 8 + buffers);
  CHECK((measured - even) / measured > 0.016);
}
