// SPDX-License-Identifier: MIT
// kvsize::hf::detail::read_weights_only: a config key that only the weights read, when malformed,
// leaves the weights unknown instead of refusing the config (the KV answer never waits on the weights).
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <string>   // std::string
#include <utility>  // std::forward, std::move

#include "error.hpp"
#include "parsed_config.hpp"

namespace kvsize::hf::detail {

/// Runs `read`, a reader of keys only the weights need. A malformed key there does not refuse the
/// config (a weights-only problem never blocks the KV answer): the KV cache, the recurrent state, the
/// logits and the activation and compute-buffer estimates read none of those keys, so they stand, and
/// the weights are unknown (parsed_config::weights_unknown_because names the first such key, as
/// "<pointer>: <what is wrong>", the pointer empty for the document itself); a warning names the first
/// error of each reader (a reader stops at its first).
/// What the KV side does read stays outside: intermediate_size (activations, llama.cpp's compute
/// buffer), each layer's query heads (the layer plan), and the keys the recurrent state shares with
/// its mixer (d_state, the conv kernel, the heads: read, and refused if malformed, with the plan). The
/// recurrent mixer's kind, which the engines read to page each kind's state, is set by each mixer
/// reader before it reads a key. tie_word_embeddings is read by vLLM's loaded buffers too, a term of a
/// device's budget, which unknown weights refuse anyway.
template <class Read>
void read_weights_only(parsed_config& out, Read&& read) {
  try {
    std::forward<Read>(read)();
  } catch (const config_error& e) {
    std::string because = e.pointer() + ": " + e.message();
    out.warnings.push_back(because + "; a key only the weights read, so the weights are not counted (the parameter "
                                     "count and the weight bytes are unknown, and with them a device's KV budget); "
                                     "the KV cache per token and per sequence do not read it");
    if (out.weights_unknown_because.empty()) {
      out.weights_unknown_because = std::move(because);
    }
  }
}

}  // namespace kvsize::hf::detail
