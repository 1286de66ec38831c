// SPDX-License-Identifier: MIT
// SGLang's releases and the default mem_fraction_static rule each applies (issue 13, --engine-version).
// Standard library only, constexpr, allocation-free.
//
// python/sglang/srt/server_args.py, by release tag of https://github.com/sgl-project/sglang (the rules,
// their constants and the tags: docs/research/sglang-fraction-history.md):
//   A  0.4.0 – 0.4.5.post2     ServerArgs.__post_init__: a table by tp alone
//   B–D 0.4.5.post3 – 0.4.7     short-lived memory-dependent variants (PRs #5604, #5893, #6718): not modelled
//   E  0.4.7.post1 – 0.5.3rc1  __post_init__ (PR #7054): a reserve by memory bucket and tp·pp
//   F  0.5.3rc2 – 0.5.4        _handle_gpu_memory_settings (PR #10975): a reserve from the chunked-prefill
//                              size, the CUDA-graph batch and tp·pp, at least 10 GiB above 60 GiB
//   G  0.5.4.post1 – 0.5.9     F with a graph batch of 24 (not 16) on devices under 35 GiB at tp < 4 (PR #12124)
//   H  0.5.10rc0 – 0.5.14     G plus a prefill CUDA-graph reserve before the floor (PR #16331), off at pp > 1
//   H' 0.5.15 – 0.5.19         H with the breakable prefill graphs (PR #29458): off for MLA models without
//                              DSA, kept at pp > 1. Tags read up to 0.5.18 (its KV budget also keeps a
//                              multimodal reserve: sglang_vlm.hpp); 0.5.19 (September 2026) is taken to
//                              follow 0.5.18, unverified.
#pragma once
#include "../detail/require_cxx20.hpp"  // first: a pre-C++20 compile stops there, with one #error

#include <cstdint>      // std::uint8_t, std::uint32_t
#include <optional>     // std::optional
#include <string_view>  // std::string_view

#include "../detail/release_text.hpp"

namespace kvsize::engines::sglang {

/// The default mem_fraction_static rule of a range of releases (the letters of the table above).
enum class fraction_rule : std::uint8_t {
  v0_4,     ///< A: 0.4.0 – 0.4.5.post2
  v0_4_7,   ///< E: 0.4.7.post1 – 0.5.3rc1
  v0_5_3,   ///< F: 0.5.3rc2 – 0.5.4
  v0_5,     ///< G: 0.5.4.post1 – 0.5.9
  v0_5_10,  ///< H: 0.5.10rc0 – 0.5.14
  v0_5_15,  ///< H': 0.5.15 – 0.5.19, the newest releases (the default)
};

/// The rule applied when no release is given: the newest releases' (0.5.15 – 0.5.19).
inline constexpr fraction_rule default_rule = fraction_rule::v0_5_15;

/// The releases of each rule, for the report and budget.engine_version.
[[nodiscard]] constexpr auto version_name(fraction_rule r) -> std::string_view {
  switch (r) {
    case fraction_rule::v0_4:
      return "0.4.0-0.4.5.post2";
    case fraction_rule::v0_4_7:
      return "0.4.7.post1-0.5.3rc1";
    case fraction_rule::v0_5_3:
      return "0.5.3rc2-0.5.4";
    case fraction_rule::v0_5:
      return "0.5.4.post1-0.5.9";
    case fraction_rule::v0_5_10:
      return "0.5.10rc0-0.5.14";
    case fraction_rule::v0_5_15:
      break;
  }
  return "0.5.15-0.5.19";
}

/// A release as SGLang tags it: 0.MINOR.PATCH, then rcN or .postN (v optional).
struct release {
  std::uint32_t minor = 0;
  std::uint32_t patch = 0;
  std::uint32_t rc = 0;       ///< N of rcN; 0 when not a release candidate
  bool candidate = false;     ///< rcN given (rc0 is a candidate too)
  std::uint32_t post = 0;     ///< N of .postN; 0 when none
};

/// "0.5.10", "v0.5.4.post1", "0.5.3rc2" → the release; none for any other text.
[[nodiscard]] constexpr auto parse_release(std::string_view text) -> std::optional<release> {
  release r;
  if (!detail::take_release_zero(text) || !detail::take_release_number(text, r.minor) || !text.starts_with(".")) {
    return std::nullopt;
  }
  text.remove_prefix(1);
  if (!detail::take_release_number(text, r.patch)) {
    return std::nullopt;
  }
  if (text.starts_with("rc")) {
    text.remove_prefix(2);
    r.candidate = true;
    if (!detail::take_release_number(text, r.rc)) {
      return std::nullopt;
    }
  } else if (text.starts_with(".post")) {
    text.remove_prefix(5);
    if (!detail::take_release_number(text, r.post)) {
      return std::nullopt;
    }
  }
  return text.empty() ? std::optional<release>{r} : std::nullopt;
}

/// Whether release `r` is `first` or later. Order within a patch: rcN < the release < .postN.
[[nodiscard]] constexpr auto at_least(const release& r, const release& first) -> bool {
  const auto stage = [](const release& x) { return x.candidate ? 0 : x.post != 0 ? 2 : 1; };
  const auto number = [](const release& x) { return x.candidate ? x.rc : x.post; };
  if (r.minor != first.minor) {
    return r.minor > first.minor;
  }
  if (r.patch != first.patch) {
    return r.patch > first.patch;
  }
  return stage(r) != stage(first) ? stage(r) > stage(first) : number(r) >= number(first);
}

/// 0.5.PATCH as a release; with `rc`, its release candidate rcN.
[[nodiscard]] constexpr auto release_0_5(std::uint32_t patch, std::optional<std::uint32_t> rc = std::nullopt)
    -> release {
  return {.minor = 5, .patch = patch, .rc = rc.value_or(0), .candidate = rc.has_value(), .post = 0};
}

/// The newest release of rule `r`: what a caller that names only the rule is taken to run, where a fact changes
/// inside a rule's releases (sglang_dsa.hpp). 0.5.19 for the newest rule, the default.
[[nodiscard]] constexpr auto last_release_of(fraction_rule r) -> release {
  switch (r) {
    case fraction_rule::v0_4:
      return {.minor = 4, .patch = 5, .rc = 0, .candidate = false, .post = 2};
    case fraction_rule::v0_4_7:
      return release_0_5(3, 1);
    case fraction_rule::v0_5_3:
      return release_0_5(4);
    case fraction_rule::v0_5:
      return release_0_5(9);
    case fraction_rule::v0_5_10:
      return release_0_5(14);
    case fraction_rule::v0_5_15:
      break;
  }
  return release_0_5(19);
}

/// The rule of release `r`; none for the releases kvsize does not model (release_refusal says why).
[[nodiscard]] constexpr auto rule_of(const release& r) -> std::optional<fraction_rule> {
  const auto since = [&](std::uint32_t patch, int stage, std::uint32_t n) {  // stage: 0 rc, 1 final, 2 post
    const release first{.minor = r.minor, .patch = patch, .rc = stage == 0 ? n : 0, .candidate = stage == 0,
                        .post = stage == 2 ? n : 0};
    return at_least(r, first);
  };
  if (r.minor == 4) {
    if (r.patch > 10) {
      return std::nullopt;  // the 0.4 series ended with 0.4.10.post2
    }
    if (!since(5, 2, 3)) {
      return fraction_rule::v0_4;  // 0.4.0 – 0.4.5.post2
    }
    if (!since(7, 2, 1)) {
      return std::nullopt;  // 0.4.5.post3 – 0.4.7: rules B – D
    }
    return fraction_rule::v0_4_7;
  }
  if (r.minor != 5) {
    return std::nullopt;
  }
  if (!since(3, 0, 2)) {
    return fraction_rule::v0_4_7;  // 0.5.0 – 0.5.3rc1
  }
  if (!since(4, 2, 1)) {
    return fraction_rule::v0_5_3;  // 0.5.3rc2 – 0.5.4
  }
  if (!since(10, 0, 0)) {
    return fraction_rule::v0_5;  // 0.5.4.post1 – 0.5.9
  }
  if (!since(15, 0, 0)) {
    return fraction_rule::v0_5_10;  // 0.5.10rc0 – 0.5.14
  }
  if (!since(20, 0, 0)) {
    return fraction_rule::v0_5_15;  // 0.5.15rc0 – 0.5.19
  }
  return std::nullopt;
}

/// Why release `r` is not modelled, in words; empty when it is.
[[nodiscard]] constexpr auto release_refusal(const release& r) -> std::string_view {
  if (rule_of(r)) {
    return {};
  }
  if (r.minor < 4) {
    return "SGLang releases before 0.4.0 are not modelled; modelled: 0.4.0 to 0.4.5.post2 and 0.4.7.post1 to 0.5.19";
  }
  if (r.minor == 4 && r.patch <= 10) {
    return "SGLang 0.4.5.post3 to 0.4.7 used short-lived default-fraction rules that kvsize does not model; "
           "modelled: 0.4.0 to 0.4.5.post2 and 0.4.7.post1 to 0.5.19";
  }
  if (r.minor == 4) {
    return "no such SGLang release (the 0.4 series ended with 0.4.10.post2); modelled: 0.4.0 to 0.4.5.post2 and "
           "0.4.7.post1 to 0.5.19";
  }
  return "newer than the SGLang releases kvsize knows (source read up to 0.5.18; 0.5.19 taken to follow it)"
         "; modelled: 0.4.0 to 0.4.5.post2 and 0.4.7.post1 to 0.5.19";
}

}  // namespace kvsize::engines::sglang
