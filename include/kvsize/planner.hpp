// SPDX-License-Identifier: MIT
// The deployment planner: a model, a device, an engine, a context and a number of users — does it fit, term by
// term; how many users fit at that context; how long a context fits that many users; the smallest tensor-parallel
// degree that fits; the lesson's three options quantified (shorter context, fewer users, an 8-bit or 4-bit KV
// cache) plus prefix sharing; and the decode cost. Standard library only, constexpr.
//
//   kvsize::plan_inputs in{.weights = weights, .device_memory = kvsize::gpu("rtx-3060").memory,
//                          .bandwidth = kvsize::gpu("rtx-3060").bandwidth,
//                          .engine = kvsize::engine_kind::vllm,
//                          .options = {.context = 2'048, .batch = 160}};
//   const auto p = kvsize::plan(model, in);
//   p.point.fits; p.max_users; p.max_context; p.min_tp; p.kv_8bit.max_users; p.decode.seconds_per_token;
//
// Memory of one device is accounted as
//   device memory = weights + KV + workspace (logits, activations, sampler, runtime) + reserve + free
// where `reserve` is what the engine's budget rule keeps away from the KV cache beyond the weights and
// the workspace (vLLM (1 − gpu_memory_utilization) × memory, SGLang (1 − mem_fraction_static) ×
// memory, llama.cpp the --fit 1 GiB margin, TensorRT-LLM (1 − free_gpu_memory_fraction) of what is
// left), and `free` is the part of the KV budget these users leave unused. A point fits when the
// weights and workspace fit and the engine admits at least `users` sequences of `context` tokens in
// its budget (block rounding and scheduler slot caps included: vLLM max_num_seqs, SGLang
// max_running_requests).
//
// "context" is tokens per user and `options.batch` the users, for every engine. For llama.cpp the users
// are its slots: the planner sizes `-np users -c users × context`, so that every slot holds `context`
// tokens (`options.llama_cpp.parallel` is ignored).
#pragma once
#include "detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <array>      // std::array
#include <cstdint>    // std::uint8_t, std::uint32_t, std::uint64_t
#include <initializer_list>  // range-for over the tp degrees
#include <optional>   // std::optional
#include <string_view>

#include "error.hpp"
#include "bytes.hpp"
#include "capacity.hpp"
#include "decode.hpp"
#include "detail/checked.hpp"
#include "detail/search.hpp"
#include "dtype.hpp"
#include "device_fit.hpp"
#include "engine.hpp"
#include "model_spec.hpp"
#include "plan_types.hpp"
#include "workspace.hpp"

namespace kvsize {


namespace detail {

/// The engine's options for `users` sequences of `context` tokens at tensor-parallel degree `tp`. At
/// another degree than the request's, llama.cpp's -ts shares (one per device of the request) no longer
/// name the devices, so the layers are split equally, as llama.cpp splits them over like GPUs.
template <engine E>
[[nodiscard]] constexpr auto plan_options_at(const plan_inputs& in, std::uint64_t context, std::uint64_t users,
                                             std::uint32_t tp) -> engine_options {
  if (users == 0 || context == 0) {
    throw kvsize::invalid_argument("kvsize: a plan needs at least one user and one token");
  }
  engine_options base = in.options;
  if (tp != base.tp) {
    base.llama_cpp.split = {};
  }
  base.tp = tp;
  engine_options o = E::plan_options(base, context, users);
  o.device_memory = in.device_memory;
  return o;
}

/// Every term of the point whose options are `o` (plan_options_at), from the sizing `s` engine E
/// made with them: the device's budget and capacity (fit_on_device_as), no sizing.
template <engine E>
[[nodiscard]] constexpr auto plan_point_of(const model_spec& m, const plan_inputs& in, engine_options o,
                                           const engine_sizing& s, std::uint64_t context, std::uint64_t users,
                                           std::uint32_t tp) -> plan_point {
  plan_point p{};
  p.context = context;
  p.users = users;
  p.tp = tp;
  p.pp = o.pp;
  p.device_memory = in.device_memory;
  p.weights = in.weights_on_device(tp, o.pp);
  const device_fit f = fit_on_device_as<E>(m, s, o, in.device_memory, p.weights, in.workspace);
  o.engine_overhead = f.budget.workspace;
  p.workspace = f.workspace;
  p.kv = s.kv_bytes + s.state_bytes_per_sequence * users;
  p.prefix_saved = s.prefix_bytes_saved;
  p.kv_budget = f.budget.kv;
  p.rule = f.budget.rule;
  p.reserve = f.budget.reserve;
  const engine_capacity& c = f.capacity;
  p.admitted = c.max_sequences;
  p.admitted_shared = c.max_sequences_shared;
  p.slot_cap = E::slot_cap(o, c);
  if (!weights_fit(in.device_memory, p.weights, p.workspace.total())) {
    p.limited_by = plan_limit::weights;
  } else if (p.admitted < users) {
    p.limited_by = users > p.slot_cap && p.kv <= p.kv_budget ? plan_limit::slots : plan_limit::memory;
  }
  return p;
}

}  // namespace detail

/// Every term of `users` sequences of `context` tokens on one device at tensor-parallel degree `tp`,
/// for engine E: one sizing, its capacity in the engine's budget (nothing sized twice).
/// Throws kvsize::invalid_argument for an option the engine refuses, kvsize::overflow_error on overflow.
template <engine E>
[[nodiscard]] constexpr auto plan_at_as(const model_spec& m, const plan_inputs& in, std::uint64_t context,
                                        std::uint64_t users, std::uint32_t tp) -> plan_point {
  const engine_options o = detail::plan_options_at<E>(in, context, users, tp);
  return detail::plan_point_of<E>(m, in, o, size_cache_as<E>(m, o), context, users, tp);
}

/// plan_at_as for `in.engine`.
[[nodiscard]] constexpr auto plan_at(const model_spec& m, const plan_inputs& in, std::uint64_t context,
                                     std::uint64_t users, std::uint32_t tp) -> plan_point {
  return visit_engine(in.engine, [&]<engine E>(E) { return plan_at_as<E>(m, in, context, users, tp); });
}

namespace detail {

/// Whether a point fits (with the prefix held once if `shared`), given that computing it threw
/// nothing.
[[nodiscard]] constexpr auto point_fits(const plan_point& p, bool shared) -> bool {
  if (p.limited_by == plan_limit::weights) {
    return false;
  }
  return (shared ? p.admitted_shared : p.admitted) >= p.users;
}

/// Whether `users` fit at `context` (with the prefix held once if `shared`); an overflow or a
/// configuration the engine refuses counts as not fitting.
template <engine E>
[[nodiscard]] constexpr auto plan_fits(const model_spec& m, const plan_inputs& in, std::uint64_t context,
                                       std::uint64_t users, std::uint32_t tp, bool shared = false) -> bool {
  try {
    return point_fits(plan_at_as<E>(m, in, context, users, tp), shared);
  } catch (const kvsize::overflow_error&) {
    return false;
  } catch (const kvsize::invalid_argument&) {
    return false;
  }
}

/// Most users searched when nothing else bounds them.
inline constexpr std::uint64_t max_users_searched = 1ULL << 40;

/// The points of one (context, tp) for any number of users, from ONE sizing where engine E's sizing
/// is affine in the users (E::with_users): the sizing's batch terms are recomputed and the
/// workspace (closed-form in the users: workspace.hpp) and budget re-derived, so a search over the
/// users costs no sizing. Where it is not (llama.cpp: users are slots and change -c), or where the
/// layers are split over devices (size_cache_as keeps the stage with the most bytes, which the
/// batch can change), every point is sized as plan_at_as does.
template <engine E>
struct users_points {
  const model_spec& m;
  const plan_inputs& in;
  std::uint64_t context;
  std::uint32_t tp;
  std::optional<engine_sizing> sized{};  ///< a sizing at this context and tp, for some number of users

  /// The point for `users`: plan_at_as(m, in, context, users, tp), the same terms and the same throws.
  [[nodiscard]] constexpr auto at(std::uint64_t users) -> plan_point {
    const engine_options o = plan_options_at<E>(in, context, users, tp);
    if (sized && E::layer_split_devices(o) == 1) {
      check_options(m, o);  // what size_cache_as checks first
      if (const std::optional<engine_sizing> s = E::with_users(m, o, *sized)) {
        return plan_point_of<E>(m, in, o, *s, context, users, tp);
      }
    }
    const engine_sizing s = size_cache_as<E>(m, o);
    sized = s;
    return plan_point_of<E>(m, in, o, s, context, users, tp);
  }
  /// plan_fits for `users`.
  [[nodiscard]] constexpr auto fits(std::uint64_t users, bool shared) -> bool {
    try {
      return point_fits(at(users), shared);
    } catch (const kvsize::overflow_error&) {
      return false;
    } catch (const kvsize::invalid_argument&) {
      return false;
    }
  }
};

/// plan_max_users_as through `points` (its context and tp): the most users that fit, 0 if not one.
template <engine E>
[[nodiscard]] constexpr auto max_users_of(users_points<E>& points, bool shared) -> std::uint64_t {
  if (!points.fits(1, shared)) {
    return 0;
  }
  const plan_point one = points.at(1);
  std::uint64_t hi = shared ? one.admitted_shared : one.admitted;
  hi = std::min(hi, max_users_searched);
  return last_true(1, hi, [&](std::uint64_t u) { return points.fits(u, shared); });
}

}  // namespace detail

/// The most users that fit at `context` (0 if not one does). Workspace grows with the users, so the
/// engine's admission at one user bounds the search from above. One sizing where the engine's
/// sizing is affine in the users (detail::users_points); else one per user count probed.
template <engine E>
[[nodiscard]] constexpr auto plan_max_users_as(const model_spec& m, const plan_inputs& in, std::uint64_t context,
                                               std::uint32_t tp, bool shared = false) -> std::uint64_t {
  detail::check_model(m);  // before plan_fits, which reads an invalid_argument as "does not fit"
  detail::users_points<E> points{m, in, context, tp};
  return detail::max_users_of(points, shared);
}

/// plan_max_users_as for `in.engine`.
[[nodiscard]] constexpr auto plan_max_users(const model_spec& m, const plan_inputs& in, std::uint64_t context,
                                            std::uint32_t tp, bool shared = false) -> std::uint64_t {
  return visit_engine(in.engine, [&]<engine E>(E) { return plan_max_users_as<E>(m, in, context, tp, shared); });
}

namespace detail {

/// The points of one (users, tp) for any context, from ONE sizing where engine E can recompute its
/// context terms from it (E::with_context, through size_cache_from_as); else every point is sized
/// as plan_at_as does. `sized` may start as a sizing at these users and tp (the plan's point).
template <engine E>
struct context_points {
  const model_spec& m;
  const plan_inputs& in;
  std::uint64_t users;
  std::uint32_t tp;
  std::optional<engine_sizing> sized{};  ///< a sizing at these users and tp, for some context

  /// The point at `context`: plan_at_as(m, in, context, users, tp), the same terms and the same throws.
  [[nodiscard]] constexpr auto at(std::uint64_t context) -> plan_point {
    const engine_options o = plan_options_at<E>(in, context, users, tp);
    return plan_point_of<E>(m, in, o, size_cache_from_as<E>(m, o, sized), context, users, tp);
  }
  /// plan_fits at `context`.
  [[nodiscard]] constexpr auto fits(std::uint64_t context) -> bool {
    try {
      return point_fits(at(context), false);
    } catch (const kvsize::overflow_error&) {
      return false;
    } catch (const kvsize::invalid_argument&) {
      return false;
    }
  }
};

/// plan_max_context_as through `points` (its users and tp): the same binary search over the same
/// contexts, each probe from the one sizing where the engine allows (so the same answer).
template <engine E>
[[nodiscard]] constexpr auto max_context_of(context_points<E>& points, std::uint64_t limit) -> std::uint64_t {
  if (limit == 0 || !points.fits(1)) {
    return 0;
  }
  return last_true(1, limit, [&](std::uint64_t t) { return points.fits(t); });
}

}  // namespace detail

/// The longest context (≤ limit) at which `users` fit (0 if not even one token does): a binary
/// search over the contexts, one sizing in all where the engine recomputes its context terms
/// (E::with_context: detail::context_points), else one per context probed.
template <engine E>
[[nodiscard]] constexpr auto plan_max_context_as(const model_spec& m, const plan_inputs& in, std::uint64_t users,
                                                 std::uint32_t tp, std::uint64_t limit) -> std::uint64_t {
  detail::check_model(m);  // before plan_fits, which reads an invalid_argument as "does not fit"
  detail::context_points<E> points{m, in, users, tp};
  return detail::max_context_of(points, limit);
}

/// plan_max_context_as for `in.engine`.
[[nodiscard]] constexpr auto plan_max_context(const model_spec& m, const plan_inputs& in, std::uint64_t users,
                                              std::uint32_t tp, std::uint64_t limit) -> std::uint64_t {
  return visit_engine(in.engine, [&]<engine E>(E) { return plan_max_context_as<E>(m, in, users, tp, limit); });
}

namespace detail {

template <engine E>
[[nodiscard]] constexpr auto plan_kv_option(const model_spec& m, plan_inputs in, std::uint64_t context,
                                          std::uint64_t users, dtype t, std::uint64_t limit) -> kv_option {
  kv_option k{};
  k.kv = kv_dtypes::same(t);
  in.options.kv = k.kv;
  users_points<E> points{m, in, context, in.options.tp};  // the point's sizing answers max_users too
  try {
    const plan_point p = points.at(users);
    k.available = true;
    k.fits = p.fits();
    k.kv_bytes = p.kv;
  } catch (const kvsize::invalid_argument&) {
    return k;  // not offered by the engine, or the model's rows are not whole blocks of `t`
  }
  context_points<E> contexts{m, in, users, in.options.tp, points.sized};  // and max_context
  k.max_users = max_users_of(points, false);
  k.max_context = max_context_of(contexts, limit);
  return k;
}

/// The bytes one decode step of point `p` reads, as a bound on its time: with one stage, the device's
/// weights and KV. With a layer split (pipeline stages; every llama.cpp device) a token passes the
/// stages in turn while each stage's tp ranks read in parallel, so the step takes at least the sum over
/// stages of one rank's bytes: the whole model's weights over the ranks of a stage, and every stage's
/// KV (each stage sized as the engine splits it), not the one device the capacity is sized for.
/// Returns the traffic and the stages; the caller sets the bandwidth and the time.
template <engine E>
[[nodiscard]] constexpr auto decode_cost_of(const model_spec& m, const plan_inputs& in, const plan_point& p,
                                            std::uint64_t context, std::uint64_t users, std::uint32_t tp)
    -> decode_cost {
  const engine_options o = plan_options_at<E>(in, context, users, tp);
  const std::uint64_t stages = E::layer_split_devices(o);
  decode_cost cost{};
  cost.stages = stages;
  if (stages <= 1 || stages > m.layers) {
    cost.traffic = {p.weights, p.kv};
    return cost;
  }
  bytes kv{0};
  for (std::uint32_t stage = 0; stage < stages; ++stage) {
    const stage_range layers = E::stage_layers(m, o, stage, static_cast<std::uint32_t>(stages));
    if (layers.count != 0) {
      const engine_sizing s = E::size_stage(m, o, layers);
      kv += s.kv_bytes + s.state_bytes_per_sequence * users;
    }
  }
  const std::uint64_t ranks_per_stage = std::max<std::uint64_t>(1, std::uint64_t{o.tp} * o.pp / stages);
  // One rank of each stage reads its weights: a tensor-parallel rank's share over the pp stages in all.
  cost.traffic = {in.split && stages == o.pp ? in.split->per_rank(o.tp) : in.weights / ranks_per_stage, kv};
  return cost;
}

}  // namespace detail

/// The plan for `in.options.batch` users of `in.options.context` tokens each, for engine E (for
/// llama.cpp too: its plan_options sets the slots and -c from them; `in.engine` is not read).
/// Throws kvsize::invalid_argument when the question itself is invalid for the engine (e.g. a GGML
/// cache type in vLLM), kvsize::overflow_error on overflow.
template <engine E>
[[nodiscard]] constexpr auto plan_as(const model_spec& m, const plan_inputs& in) -> plan_result {
  const std::uint64_t context =
      in.options.context != 0 ? in.options.context : kvsize::detail::model_context_as<E>(m, in.options);
  if (context == 0) {
    throw kvsize::invalid_argument("kvsize: a plan needs a context");
  }
  plan_inputs base = in;
  base.options.context = context;
  const std::uint64_t users = in.options.batch;
  const std::uint32_t tp = in.options.tp;
  plan_result r{};
  r.context_limit = in.context_limit != 0 ? in.context_limit : std::max(detail::model_limit_as<E>(m, in.options), context);
  detail::users_points<E> points{m, base, context, tp};  // the point's sizing answers every users question
  r.point = points.at(users);
  detail::context_points<E> contexts{m, base, users, tp, points.sized};  // and max_context, from the same sizing
  r.max_users = detail::max_users_of(points, false);
  r.max_context = detail::max_context_of(contexts, r.context_limit);
  for (std::uint32_t t : {1U, 2U, 4U, 8U}) {
    // At the asked tp the point itself answers (it was computed without a throw).
    if (E::valid_tp(m, t, in.options.pp) &&
        (t == tp ? detail::point_fits(r.point, false) : detail::plan_fits<E>(m, base, context, users, t))) {
      r.min_tp = t;
      break;
    }
  }
  // The engine's 8-bit and 4-bit caches; one it does not offer is reported unavailable.
  const auto option = [&](std::optional<dtype> t, dtype shown) {
    if (!t) {
      kv_option k{};
      k.kv = kv_dtypes::same(shown);
      return k;
    }
    return detail::plan_kv_option<E>(m, base, context, users, *t, r.context_limit);
  };
  r.kv_8bit = option(E::kv_8bit, dtype::fp8_e4m3);
  r.kv_4bit = option(E::kv_4bit, dtype::int4);
  r.prefix.shared_prefix = in.options.shared_prefix;
  r.prefix.saved = r.point.prefix_saved;
  r.prefix.max_users = in.options.shared_prefix != 0 ? detail::max_users_of(points, true) : r.max_users;
  r.decode = detail::decode_cost_of<E>(m, base, r.point, context, users, tp);
  r.decode.bandwidth = in.bandwidth;
  r.decode.seconds_per_token = in.bandwidth != 0 ? r.decode.traffic.seconds_at(in.bandwidth) : 0.0;
  return r;
}

/// plan_as for `in.engine`.
/// The options engine `in.engine` is started with to serve plan point `p` (its context, users and
/// tp on in.options, as the engine's plan_options maps users: llama.cpp's become -np slots sharing -c).
[[nodiscard]] constexpr auto point_options(const plan_inputs& in, const plan_point& p) -> engine_options {
  return visit_engine(in.engine,
                      [&]<engine E>(E) { return detail::plan_options_at<E>(in, p.context, p.users, p.tp); });
}

[[nodiscard]] constexpr auto plan(const model_spec& m, const plan_inputs& in) -> plan_result {
  return visit_engine(in.engine, [&]<engine E>(E) { return plan_as<E>(m, in); });
}

}  // namespace kvsize
