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
#include <string>
#include <vector>

using kvsize::bytes;
using kvsize::GiB;
using namespace kvsize::test::weights_configs;

TEST_CASE("weights_split: a dense GQA model keeps only its norms whole (Llama-3.1-70B, bf16)", "[weights][tp]") {
  // 80 layers of hidden 8,192, 8 KV heads of 128: input and post-attention RMSNorm 2 × 8,192 × 2 B a layer and the
  // final norm 8,192 × 2 B: 80 × 32,768 + 16,384 = 2,637,824 B whole; K and V 2 × 8 × 128 × 8,192 × 2 B a layer:
  // 80 × 33,554,432 = 2,684,354,560 B split by KV head, which 8 ranks still split evenly.
  const auto m = load("meta-llama__Llama-3.1-70B").spec;
  const auto f = kvsize::uniform_weights(kvsize::dtype::bf16);
  const auto s = kvsize::weights_split_of(m, f);
  CHECK(s.whole == bytes{2'637'824});
  CHECK(s.by_kv_head[0].heads == 8);
  CHECK(s.by_kv_head[0].size == bytes{2'684'354'560});
  CHECK(s.kv_total() == bytes{2'684'354'560});
  CHECK(s.total() == kvsize::weights_bytes(m, f));
  CHECK(s.per_rank(1) == s.total());
  CHECK(s.per_rank(8) == s.split / 8 + s.whole + bytes{2'684'354'560 / 8});
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
  CHECK(s.by_kv_head[0].heads == 4);
  CHECK(s.kv_total() == bytes{788'529'152});
  CHECK(s.per_rank(8) == s.split / 8 + bytes{100'162'560} + bytes{788'529'152 / 4});
  CHECK(s.per_rank(4) == s.split / 4 + bytes{100'162'560} + bytes{788'529'152 / 4});
  CHECK(s.per_device(8, 2) == s.per_rank(8) / 2);
}

TEST_CASE("weights_split: data-parallel attention splits the attention over one rank's GPUs (Qwen3-235B-A22B)",
          "[weights][tp][dp]") {
  // SGLang's DP attention at tp 8, dp 2 (layers/dp_attention.py: attn_tp_size = 8 / 2 = 4). Per layer (94, bf16):
  // q_proj 4,096 × 8,192 and o_proj 8,192 × 4,096: 94 × 2 × 33,554,432 × 2 B = 12,616,466,432 B, split 4 ways, not 8;
  // K and V 788,529,152 B over min(4, 4 KV heads) = 4 ranks, as under TP; the embedding 151,936 × 4,096 × 2 B =
  // 1,244,659,712 B whole (SGLang to 0.5.8 for qwen2_moe.py) or over the 4 GPUs (0.5.9 on: use_attn_tp_group).
  const auto m = load("Qwen__Qwen3-235B-A22B").spec;
  const auto f = kvsize::uniform_weights(kvsize::dtype::bf16);
  const auto tp = kvsize::weights_split_of(m, f);
  const auto group = kvsize::weights_split_of(m, f, {4, kvsize::dp_embedding::attention_group});
  const auto whole = kvsize::weights_split_of(m, f, {4, kvsize::dp_embedding::whole});
  CHECK(group.total() == tp.total());
  CHECK(whole.total() == tp.total());
  CHECK(group.attention == bytes{12'616'466'432ULL + 1'244'659'712ULL});
  // Over TP: 12,616,466,432 / 8 + 1,244,659,712 / 8 more a GPU, and 7/8 of the embedding where it is whole.
  CHECK(group.per_rank(8) - tp.per_rank(8) == bytes{1'732'640'768ULL});
  CHECK(whole.per_rank(8) - tp.per_rank(8) == bytes{1'577'058'304ULL + 1'089'077'248ULL});
  // An attention group as wide as tp is tensor-parallel attention; one GPU a rank holds all of it (dp = tp).
  const auto same_as_tp = kvsize::weights_split_of(m, f, {8, kvsize::dp_embedding::tensor_parallel});
  CHECK(same_as_tp.per_rank(8) == tp.per_rank(8));
  const auto one_gpu = kvsize::weights_split_of(m, f, {1, kvsize::dp_embedding::attention_group});
  CHECK(one_gpu.per_rank(8) - tp.per_rank(8) == bytes{12'719'882'240ULL});
  // --enable-dp-lm-head: the LM head (151,936 × 4,096 × 2 B = 1,244,659,712 B) over the 4 GPUs, not 8.
  const auto head = kvsize::weights_split_of(m, f, {4, kvsize::dp_embedding::attention_group, true});
  CHECK(head.per_rank(8) - group.per_rank(8) == bytes{155'582'464ULL});
  // The planner's other tp: a group of 4 at tp 2 is the whole tp of 2.
  CHECK(group.per_rank(2) == tp.per_rank(2));
  // The embedding SGLang keeps whole only under DP attention: at tp 4 or less (one rank of 4: SGLang turns DP
  // attention off) it is split over tp as under TP.
  CHECK(whole.dp_whole == bytes{1'244'659'712ULL});
  CHECK(whole.whole == tp.whole);
  CHECK(whole.per_rank(4) == tp.per_rank(4));
  CHECK(whole.per_rank(2) == tp.per_rank(2));
  // What every GPU holds whole: the embedding under DP attention; at one GPU a rank also the attention, the
  // embedding split over the group and all K/V (4 KV heads: under TP at tp 8 no K/V is whole).
  CHECK(tp.whole_per_rank(8) == tp.whole);
  CHECK(whole.whole_per_rank(8) - tp.whole_per_rank(8) == bytes{1'244'659'712ULL});
  CHECK(whole.whole_per_rank(4) == tp.whole_per_rank(4));
  CHECK(one_gpu.whole_per_rank(8) - tp.whole_per_rank(8) ==
        bytes{12'616'466'432ULL + 1'244'659'712ULL + 788'529'152ULL});
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
  CHECK(s.kv_total() == bytes{0});  // MLA has no K/V projections of its own: kv_b_proj splits by query head
  CHECK(s.per_rank(8) == s.split / 8 + s.whole);
  // weights / 8 counted 142,329,196 B of it: 996,304,372 B (0.93 GiB) a GPU short.
  CHECK(s.whole - s.whole / 8 == bytes{996'304'372});
}

TEST_CASE("weights_split: DeepSeek-R1's MTP module keeps whole what a decoder layer keeps whole", "[weights][tp]") {
  // vLLM deepseek_mtp.py DeepSeekMultiTokenPredictorLayer: one decoder layer (a MoE layer: 15,175,392 + 3,671,040 B
  // whole, as above), enorm, hnorm and shared_head.norm (3 × 7,168 × 2 B = 43,008) and eh_proj, an nn.Linear of
  // 7,168 × 14,336 (bf16 in the checkpoint: an nn.Linear loads no FP8 scales): 205,520,896 B, whole on every rank.
  const auto r1 = load("deepseek-ai__DeepSeek-R1");
  REQUIRE(r1.quantization);
  REQUIRE(r1.quantization->format);
  REQUIRE(r1.spec.weights.mtp_layers == 1);
  auto with_mtp = *r1.quantization->format;
  with_mtp.include_mtp = true;
  const auto without = kvsize::weights_split_of(r1.spec, *r1.quantization->format);
  const auto with = kvsize::weights_split_of(r1.spec, with_mtp);
  CHECK(with.whole - without.whole == bytes{15'175'392ULL + 3'671'040 + 43'008 + 205'520'896});
  CHECK(with.total() == kvsize::weights_bytes(r1.spec, with_mtp));
}

TEST_CASE("weights_split: an MTP module's tensors take the share of their part in a decoder layer", "[weights][tp]") {
  // The emitter files an MTP module's tensors under weight_part::mtp; a router's bias (GptOssRouter-style, a
  // ReplicatedLinear's bias) stays whole, an attention projection split.
  const auto m = load("deepseek-ai__DeepSeek-R1").spec;
  std::vector<kvsize::weight_tensor> seen;
  auto keep = [&](const kvsize::weight_tensor& t) { seen.push_back(t); };
  const kvsize::detail::layer_emitter<decltype(keep)> mtp{m, m.layers, true, keep};
  mtp.vector(kvsize::weight_part::router, kvsize::tensor_role::vector, 256);
  mtp.matrix(kvsize::weight_part::attention, kvsize::tensor_role::attn_output, 7'168, 16'384);
  REQUIRE(seen.size() == 2);
  CHECK(seen[0].part == kvsize::weight_part::mtp);
  CHECK(seen[0].tp_max_ways == 1);
  CHECK(seen[1].part == kvsize::weight_part::mtp);
  CHECK(seen[1].tp_max_ways == 0);
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
  // 79.3125 GiB: 0.43 GiB (0.53 %) low. Of that, MLA's bf16 W_UK_T / W_UV, which vLLM builds from a dequantized
  // kv_b_proj after loading, would be about 0.24 GiB a rank at TP 8 (not confirmed on main: not modelled); the
  // rest is unexplained.
  CHECK(loaded < measured);
  CHECK((measured - loaded) / measured < 0.006);
  // An even split was 1.7 % low: 0.93 GiB more KV budget than the GPU has.
  const double even = gib(s.total() / 8 + buffers);
  CHECK((measured - even) / measured > 0.016);
}

TEST_CASE("weights_split: Gemma 4's full layers copy their 2 KV heads sooner than the sliding layers their 8",
          "[weights][tp]") {
  // google/gemma-4-26B-A4B (bf16): 25 sliding layers of 8 KV heads of 256: K and V 2 × 8 × 256 × 2,816 × 2 B =
  // 23,068,672 B a layer, 576,716,800 B; 5 full layers of 2 global KV heads of 512 with attention_k_eq_v (K only):
  // 2 × 512 × 2,816 × 2 B = 5,767,168 B a layer, 28,835,840 B. At tp 8 a rank holds 1/8 of the first and 1/2 of
  // the second: 72,089,600 + 14,417,920 = 86,507,520 B (one count for both would give 1/2 of all: 302,776,320 B).
  const auto m = load("google__gemma-4-26B-A4B").spec;
  const auto s = kvsize::weights_split_of(m, kvsize::uniform_weights(kvsize::dtype::bf16));
  CHECK(s.kv_total() == bytes{576'716'800 + 28'835'840});
  const auto no_kv = [&](std::uint32_t tp) { return s.split / tp + s.whole; };
  CHECK(s.per_rank(8) - no_kv(8) == bytes{86'507'520});
  CHECK(s.per_rank(2) - no_kv(2) == bytes{(576'716'800 + 28'835'840) / 2});
}

TEST_CASE("weights_split: more KV head counts than slots join the fewest, erring high", "[weights][tp]") {
  kvsize::weights_split s;
  s.add_kv(16, bytes{1'600});
  s.add_kv(8, bytes{800});
  s.add_kv(4, bytes{400});
  s.add_kv(2, bytes{200});
  s.add_kv(16, bytes{1'600});  // an existing count
  s.add_kv(32, bytes{3'200});  // a fifth: joins the 2-head slot
  CHECK(s.kv_total() == bytes{7'800});
  CHECK(s.per_rank(32) == bytes{3'200 / 16 + 800 / 8 + 400 / 4 + (200 + 3'200) / 2});
  CHECK(s.per_rank(1) == s.total());
}

TEST_CASE("weights_split: a latent MoE's projections are whole on every rank (Nemotron-3-Ultra)", "[weights][tp]") {
  // vLLM models/nemotron_h.py NemotronHMoE: fc1_latent_proj and fc2_latent_proj are ReplicatedLinear. Ultra: 48 MoE
  // layers, hidden 8,192, moe_latent_size 2,048: 48 × 2 × 2,048 × 8,192 × 2 B = 3,221,225,472 B (bf16), 2.63 GiB
  // a GPU that an even split at tp 8 left out.
  const auto m = load("nvidia__NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16").spec;
  std::uint64_t latent_elements = 0;
  bool all_whole = true;
  kvsize::for_each_weight(m, [&](const kvsize::weight_tensor& t) {
    if (t.part != kvsize::weight_part::mtp &&
        (t.role == kvsize::tensor_role::moe_latent_in || t.role == kvsize::tensor_role::moe_latent_out)) {
      latent_elements += t.elements();
      all_whole = all_whole && t.tp_max_ways == 1;
    }
  });
  CHECK(latent_elements * 2 == 3'221'225'472ULL);
  CHECK(all_whole);
  const auto s = kvsize::weights_split_of(m, kvsize::uniform_weights(kvsize::dtype::bf16));
  CHECK(s.whole > bytes{3'221'225'472});
}

TEST_CASE("weights_split: norms split by head stay split (Mamba-2's gated norm, full-width Q/K norms)",
          "[weights][tp]") {
  // Nemotron-3-Nano's Mamba-2 mixers (Mixer2RMSNormGated) are split with their heads, its block norms whole.
  // Command-R with use_qk_norm (CohereLayerNorm over heads × head_dim; vLLM shards it by head) splits q_norm over
  // every rank and k_norm by its KV heads.
  const auto count_norms = [](const kvsize::model_spec& m, std::uint32_t ways) {
    std::uint64_t n = 0;
    kvsize::for_each_weight(m, [&](const kvsize::weight_tensor& t) {
      n += t.role == kvsize::tensor_role::norm && t.tp_max_ways == ways ? 1U : 0U;
    });
    return n;
  };
  const auto nano = load("nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16").spec;
  CHECK(count_norms(nano, 0) > 0);
  CHECK(count_norms(nano, 1) > 0);
  auto command_r = load("CohereForAI__c4ai-command-r-v01").spec;
  REQUIRE(count_norms(command_r, 0) == 0);
  command_r.weights.qk_norm = kvsize::qk_norm_kind::full;
  CHECK(count_norms(command_r, 0) == command_r.layers);                      // q_norm
  CHECK(count_norms(command_r, command_r.kv_heads) == command_r.layers);     // k_norm
}
