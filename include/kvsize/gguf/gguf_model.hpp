// SPDX-License-Identifier: MIT
// kvsize::gguf::model_of: a model_spec from a GGUF header, read the way llama.cpp's
// llama_model_base::load_hparams reads it (src/llama-model.cpp; docs/research/gguf-format.md §4),
// with the per-architecture rules of gguf_arch.hpp, and the weights as the tensor table states
// them, to the byte. Every layer's kind comes with the key (or the rule) that decided it.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>   // std::uint32_t, std::uint64_t
#include <cstdio>    // std::snprintf
#include <cstring>   // std::strlen
#include <filesystem>  // std::filesystem::path
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include "../error.hpp"
#include "../model_spec.hpp"
#include "gguf_arch.hpp"
#include "gguf_error.hpp"
#include "gguf_header.hpp"
#include "gguf_keys.hpp"
#include "gguf_layer_plan.hpp"
#include "gguf_reader.hpp"
#include "gguf_weights.hpp"

namespace kvsize::gguf {

/// A GGUF file's model, as kvsize sizes it.
struct gguf_model {
  kvsize::model_spec spec;            ///< validated; compute_dtype f16 (llama.cpp's default cache type)
  std::string architecture;           ///< general.architecture: "llama", "gemma4"
  std::string name;                   ///< general.name, or ""
  std::vector<std::string> warnings;  ///< every assumption, one sentence each
  std::vector<std::string> layer_reasons;  ///< per layer: the key or rule that decided what it keeps
  std::optional<gguf_weights> weights;     ///< absent after a metadata-only read
  std::uint32_t experts = 0;               ///< <arch>.expert_count (routed experts per MoE layer), or 0
  std::uint32_t experts_per_token = 0;     ///< <arch>.expert_used_count (layer 0's, where per layer)
  /// <arch>.nextn_predict_layers: the last blocks are multi-token-prediction heads, which llama.cpp
  /// creates with TENSOR_SKIP (src/llama-model.cpp load_tensors: "skip all tensors in the NextN
  /// layers"): in the file and in weights->block, never loaded.
  std::uint32_t unloaded_blocks = 0;

  /// Parameters one token uses: every tensor but the routed experts, and experts_per_token of
  /// each layer's experts (the *_exps tensors stack them on their last dimension). All of them
  /// for a dense model or one whose expert keys are absent.
  [[nodiscard]] auto active_parameters() const -> std::uint64_t {
    if (!weights || experts == 0 || experts_per_token == 0 || experts_per_token >= experts) {
      return weights ? weights->elements : 0;
    }
    const std::uint64_t idle = weights->expert_elements / experts * (experts - experts_per_token);
    return weights->elements - idle;
  }
};

/// A GGUF model's blocks as llama.cpp loads them: weights->block and block_experts with the NextN
/// blocks (the last unloaded_blocks, created with TENSOR_SKIP) at 0 bytes, and the bytes so left
/// out. Empty without a tensor table.
struct loaded_blocks {
  std::vector<std::uint64_t> bytes;    ///< per block index, as gguf_weights::block
  std::vector<std::uint64_t> experts;  ///< of which routed experts, as gguf_weights::block_experts
  std::uint64_t skipped = 0;           ///< Σ bytes of the NextN blocks, in the file but never loaded
};

[[nodiscard]] inline auto loaded_blocks_of(const gguf_model& g) -> loaded_blocks {
  loaded_blocks out;
  if (!g.weights) {
    return out;
  }
  out.bytes = g.weights->block;
  out.experts = g.weights->block_experts;
  const std::size_t first_unloaded = g.unloaded_blocks < g.spec.layers ? g.spec.layers - g.unloaded_blocks : 0;
  for (std::size_t il = first_unloaded; il < out.bytes.size(); ++il) {
    out.skipped = kvsize::detail::checked_add(out.skipped, out.bytes[il]);
    out.bytes[il] = 0;
    out.experts[il] = 0;
  }
  return out;
}

/// The model in `h` (named `file` in errors). Throws gguf_error for a key of the wrong type, a
/// missing key llama.cpp requires, or an architecture whose cache rule kvsize does not encode.
[[nodiscard]] inline auto model_of(const gguf_header& h, const std::string& file) -> gguf_model {
  key_reader k(h, file);
  gguf_model out;
  const auto arch = k.string("general.architecture");
  if (!arch) {
    throw gguf_error(gguf_errc::missing_key, file, 0, "key \"general.architecture\"",
                     "absent; every GGUF model names its architecture");
  }
  out.architecture = *arch;
  k.set_arch(*arch);
  out.name = k.string("general.name").value_or("");
  kvsize::model_spec& m = out.spec;
  m.compute_dtype = kvsize::dtype::f16;
  try {
    detail::read_shape(k, m);
    out.layer_reasons = detail::plan_layers(k, m, out.warnings);
    if (h.stopped_at == 0 && h.has_tensor_table) {
      out.weights = weights_of(h);
    }
  } catch (const kvsize::overflow_error& e) {  // a state or weights sum past 2^64: the file's numbers
    throw gguf_error(gguf_errc::out_of_range, file, 0, "", std::string("a size exceeds 2^64: ") + e.what());
  }
  if (m.vocab_size == 0) {  // only after a metadata-only read (model_of refuses it otherwise)
    out.warnings.push_back("the vocabulary size is unknown: the read stopped before the tokenizer, so the logits "
                           "are not sized");
  }
  out.experts = k.u32(k.arch_key("expert_count")).value_or(0);
  out.unloaded_blocks = k.u32(k.arch_key("nextn_predict_layers")).value_or(0);  // < block_count (read_shape)
  if (const auto used = k.per_layer(k.arch_key("expert_used_count"), m.layers)) {
    out.experts_per_token = used->front();
  }
  try {
    kvsize::validate(m);
  } catch (const kvsize::invalid_argument& e) {
    throw gguf_error(gguf_errc::invalid, file, 0, "", std::string("the model's keys do not fit together: ") + e.what());
  }
  return out;
}

namespace detail {

/// A UINT16 key of the split file set (llama-model-loader.cpp reads them type-strictly), or nullopt.
[[nodiscard]] inline auto split_u16(const gguf_header& h, const std::string& file, const char* key)
    -> std::optional<std::uint32_t> {
  const gguf_kv* kv = h.find(key);
  if (kv == nullptr) {
    return std::nullopt;
  }
  if (kv->value.type != gguf_type::u16) {
    throw gguf_error(gguf_errc::wrong_type, file, kv->offset, std::string("key \"") + key + "\"",
                     "expected a UINT16, got " + key_reader::type_text(kv->value));
  }
  return static_cast<std::uint32_t>(kv->value.integers.front());
}

/// The weights of a split model (split.count > 1): every shard's tensor table, the shards named
/// as llama.cpp names them (llama_split_path: "<prefix>-%05d-of-%05d.gguf", numbered from 1).
/// A missing shard leaves the weights unknown (a warning), never a partial sum.
inline void read_split_weights(const std::filesystem::path& first, const gguf_header& h, gguf_model& g) {
  const std::string file = first.string();
  const auto count = split_u16(h, file, "split.count");
  if (!count || *count <= 1) {
    return;
  }
  const auto no = split_u16(h, file, "split.no").value_or(0);
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, "-%05u-of-%05u.gguf", no + 1, *count);
  const std::string name = first.filename().string();
  if (no != 0 || name.size() <= std::strlen(suffix) ||
      name.compare(name.size() - std::strlen(suffix), std::string::npos, suffix) != 0) {
    g.weights.reset();
    g.warnings.push_back("a split GGUF (split.count " + std::to_string(*count) +
                         ") whose first shard is not this file: give the -00001-of- file; weights not counted");
    return;
  }
  const std::string prefix = name.substr(0, name.size() - std::strlen(suffix));
  gguf_weights sum = *g.weights;
  for (std::uint32_t i = 1; i < *count; ++i) {
    std::snprintf(suffix, sizeof suffix, "-%05u-of-%05u.gguf", i + 1, *count);
    const auto shard_path = first.parent_path() / (prefix + suffix);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(shard_path, ec)) {
      g.weights.reset();
      g.warnings.push_back("shard " + shard_path.string() + " is missing: the weights are not counted");
      return;
    }
    const gguf_header shard = load_gguf(shard_path);
    if (split_u16(shard, shard_path.string(), "split.no").value_or(0) != i) {
      throw gguf_error(gguf_errc::invalid, shard_path.string(), 0, "key \"split.no\"",
                       "expected " + std::to_string(i) + " (its place in the file names)");
    }
    add(sum, weights_of(shard));
  }
  g.weights = sum;
}

}  // namespace detail

/// load_gguf then model_of; for a split model (the first of its "-0000k-of-0000n.gguf" shards), the
/// weights of every shard.
[[nodiscard]] inline auto load_gguf_model(const std::filesystem::path& path, const read_options& o = {})
    -> gguf_model {
  const gguf_header h = load_gguf(path, o);
  gguf_model g = model_of(h, path.string());
  if (g.weights) {
    detail::read_split_weights(path, h, g);
  }
  return g;
}

}  // namespace kvsize::gguf
