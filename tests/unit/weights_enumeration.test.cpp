// SPDX-License-Identifier: MIT
// kvsize/weights_enumeration.hpp: for_each_weight's order and its per-layer steps, in constant
// expressions on small hand-made specs.
#include <catch2/catch_test_macros.hpp>

#include <array>
#include <cstddef>
#include <cstdint>

#include <kvsize/weights_enumeration.hpp>

namespace {
using kvsize::tensor_role;
using kvsize::weight_part;
using kvsize::weight_tensor;

/// The first 64 tensors of a spec, in enumeration order, and how many there were.
struct listing {
  std::array<weight_tensor, 64> t{};
  std::size_t n = 0;
};
constexpr auto list(const kvsize::model_spec& m) -> listing {
  listing l;
  kvsize::for_each_weight(m, [&](const weight_tensor& t) {
    if (l.n < l.t.size()) {
      l.t[l.n] = t;
    }
    ++l.n;
  });
  return l;
}

// 2 layers, 4 heads of 64 over 2 KV heads, hidden 256, FFN 512, vocab 512, untied.
constexpr kvsize::model_spec tiny{.layers = 2, .attention_heads = 4, .kv_heads = 2, .head_dim = 64,
                                  .hidden_size = 256, .vocab_size = 512, .intermediate_size = 512};

// llama.cpp's order: token embedding; per block: attention norm, Q, K, V, O, FFN norm, gate, up,
// down; the final norm; the LM head.
constexpr listing tiny_list = list(tiny);
static_assert(tiny_list.n == 1 + 2 * 9 + 1 + 1);
static_assert(tiny_list.t[0].role == tensor_role::token_embedding && tiny_list.t[0].rows == 512);
static_assert(tiny_list.t[1].role == tensor_role::norm && tiny_list.t[1].layer == 0);
static_assert(tiny_list.t[2].role == tensor_role::attn_q && tiny_list.t[2].rows == 256);
static_assert(tiny_list.t[3].role == tensor_role::attn_k && tiny_list.t[3].rows == 128);  // 2 KV heads × 64
static_assert(tiny_list.t[5].role == tensor_role::attn_output && tiny_list.t[5].cols == 256);
static_assert(tiny_list.t[7].role == tensor_role::ffn_gate && tiny_list.t[9].role == tensor_role::ffn_down);
static_assert(tiny_list.t[9].rows == 256 && tiny_list.t[9].cols == 512);
static_assert(tiny_list.t[10].layer == 1);
static_assert(tiny_list.t[19].role == tensor_role::norm && tiny_list.t[19].layer == kvsize::no_layer);
static_assert(tiny_list.t[20].role == tensor_role::output && tiny_list.t[20].part == weight_part::lm_head);

// A layer without an FFN has no FFN norm either (emit_ffn); a tied head is not a tensor.
constexpr kvsize::model_spec no_ffn = [] {
  kvsize::model_spec m = tiny;
  m.weights.layer[1].ffn = kvsize::ffn_kind::none;
  m.tied_embeddings = true;
  return m;
}();
static_assert(list(no_ffn).n == 1 + 9 + 5 + 1);

// An MTP module (emit_mtp_module): one more block numbered `layers`, every part mtp, then three
// norms and the 2·hidden → hidden projection.
constexpr kvsize::model_spec with_mtp = [] {
  kvsize::model_spec m = tiny;
  m.weights.mtp_layers = 1;
  return m;
}();
constexpr listing mtp_list = list(with_mtp);
static_assert(mtp_list.n == tiny_list.n + 9 + 3 + 1);
static_assert(mtp_list.t[21].layer == 2 && mtp_list.t[21].part == weight_part::mtp);
static_assert(mtp_list.t[mtp_list.n - 1].role == tensor_role::mtp_projection);
static_assert(mtp_list.t[mtp_list.n - 1].cols == 512);

// Mamba2 (emit_mamba2) on one recurrent layer: in_proj rows 2·d_inner + 2·groups·state + heads.
constexpr kvsize::model_spec mamba = [] {
  kvsize::model_spec m = tiny;
  m.layers = 1;
  m.layer[0].kind = kvsize::layer_kind::none;
  m.layer[0].recurrent = true;
  m.state.conv_elements = 1;  // a recurrent layer needs state sizes (validate); their values are not weights
  m.state.ssm_elements = 1;
  m.weights.recurrent = {.kind = kvsize::recurrent_kind::mamba2, .heads = 8, .head_dim = 64, .groups = 1,
                         .state_dim = 128, .conv_kernel = 4};
  m.weights.layer[0].ffn = kvsize::ffn_kind::none;
  return m;
}();
constexpr listing mamba_list = list(mamba);
static_assert(mamba_list.t[2].role == tensor_role::ssm_in && mamba_list.t[2].rows == 2 * 512 + 2 * 128 + 8);
static_assert(mamba_list.t[3].role == tensor_role::ssm_conv && mamba_list.t[3].rows == 512 + 256 &&
              mamba_list.t[3].cols == 4);
}  // namespace

TEST_CASE("for_each_weight: the order and the steps of a layer", "[weights][enumeration]") {
  // The same listing at run time, and the MoE step: experts as one tensor with copies, then the router.
  kvsize::model_spec moe = tiny;
  moe.weights.moe = {.experts = 8, .experts_per_token = 2, .expert_width = 128};
  const listing l = list(moe);
  REQUIRE(l.n == tiny_list.n + 2);  // + a router per layer
  CHECK(l.t[7].part == weight_part::experts_routed);
  CHECK(l.t[7].copies == 8);
  CHECK(l.t[7].rows == 128);
  CHECK(l.t[10].role == tensor_role::router);
  CHECK(l.t[10].rows == 8);
}
