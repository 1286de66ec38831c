// SPDX-License-Identifier: MIT
// kvsize command line: the result model, copied out of the sizing (no figure is recomputed here).
#include "results_of.hpp"

#include <fmt/format.h>

#include <kvsize/fmt.hpp>

#include "report.hpp"

namespace kvsize::cli {

auto cache_kv_heads(const model_spec& m) -> std::uint32_t { return kvsize::cache_kv_heads(m); }

auto model_of(const sizing& s) -> model_result {
  const model_spec& m = s.config.spec;
  model_result r;
  r.architecture = model_name(s);
  r.model_type = s.config.model_type;
  r.layers = m.layers;
  r.kv_layers = kv_layers(m);
  for (layer_kind k : {layer_kind::full, layer_kind::sliding, layer_kind::chunked, layer_kind::latent, layer_kind::indexed,
                       layer_kind::shared, layer_kind::none}) {
    const std::uint32_t n = count_layers(m, k);
    if (n != 0) {
      r.layer_kinds += fmt::format("{}{} {}", r.layer_kinds.empty() ? "" : ", ", n, name(k));
    }
  }
  r.attention_heads = m.attention_heads;
  r.kv_heads = cli::cache_kv_heads(m);  // qualified: ADL would also find kvsize::cache_kv_heads
  r.head_dim = effective_head_dim(m);
  r.head_dim_v = effective_head_dim_v(m);
  r.own_shapes = own_layer_shapes(m);
  r.vocab_size = m.vocab_size;
  r.dtype = std::string{name(m.compute_dtype)};
  r.max_context = m.max_context;
  return r;
}

auto figures_of(const sizing& s) -> figures_result {
  const engine_sizing& c = s.cache;
  figures_result f;
  f.context = s.context;
  f.batch = s.batch;
  f.slots = reads_knob(s.engine, engine_knob::parallel);  // users are slots that share -c
  f.n_seq = c.llama_cpp.n_seq;
  f.kv_per_token = c.kv_bytes_per_token;
  f.kv_per_token_mha = s.kv_per_token_mha;
  f.gqa_ratio = s.gqa_ratio;
  f.kv_per_sequence = c.kv_bytes_per_sequence;
  f.kv_bytes = c.kv_bytes;
  f.state_per_sequence = c.state_bytes_per_sequence;
  f.state_pages = c.vllm.state_pages;  // 1 for every engine but vLLM (vllm_pool's default)
  f.block_size = c.block_size;
  f.kv_heads_per_rank = c.kv_heads_per_rank;
  f.shared_prefix = s.engine_opts.shared_prefix;
  f.prefix_saved = c.prefix_bytes_saved;
  f.logits_per_token = s.logits_per_token;
  f.logits_prefill = s.logits_prefill;
  f.parameters = s.parameters;
  const parameter_breakdown& t = s.parameter_terms;
  f.active_parameters = t.active;
  f.moe = t.active != t.total && t.active != 0;
  f.vision_parameters = t.vision;
  f.has_vision = t.has_vision;
  f.mtp_parameters = t.mtp + t.mtp_embeddings;
  f.weights_dtype = s.weights_format;
  f.weights = s.weights;
  f.checkpoint_weights = s.checkpoint_weights;
  f.checkpoint_source = s.checkpoint_source;
  return f;
}

auto point_of(const plan_point& p, std::string_view engine, std::uint64_t max_users, std::uint64_t max_context)
    -> point_result {
  point_result r;
  r.engine = std::string{engine};
  r.device_memory = p.device_memory;
  r.tp = p.tp;
  r.pp = p.pp;
  r.context = p.context;
  r.users = p.users;
  r.weights = p.weights;
  r.kv = p.kv;
  r.logits = p.workspace.logits;
  r.activations = p.workspace.activations;
  r.sampler = p.workspace.sampler;
  r.runtime = p.workspace.runtime;
  r.non_torch = p.workspace.non_torch;
  r.buffers = p.workspace.buffers;
  r.cuda_graphs = p.workspace.cuda_graphs;
  r.workspace = p.workspace.total();
  r.reserve = p.reserve;
  r.free = p.free();
  r.needed = p.needed();
  r.fits = p.fits();
  r.limited_by = p.fits() ? std::string{} : std::string{name(p.limited_by)};
  r.admitted = p.admitted;
  r.max_users = max_users;
  r.max_context = max_context;
  r.kv_budget = p.kv_budget;
  r.slot_cap = p.slot_cap;
  return r;
}

}  // namespace kvsize::cli
