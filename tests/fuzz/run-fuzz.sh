#!/usr/bin/env bash
# Builds the config.json parser fuzzer and the GGUF reader fuzzer with clang (libFuzzer +
# AddressSanitizer + UndefinedBehaviorSanitizer, UB aborts) and runs each on a corpus seeded from configs/.
# Usage: tests/fuzz/run-fuzz.sh [seconds=60] [libFuzzer flags...]   (env: CXX=clang++-NN, FUZZ_DIR=build dir)
#   seconds 0 runs until another limit stops it, e.g. tests/fuzz/run-fuzz.sh 0 -runs=10000000
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
seconds="${1:-60}"
shift || true
cxx="${CXX:-clang++}"
case "$("$cxx" --version 2>/dev/null | head -n1)" in
  *clang*) ;;
  *) echo "run-fuzz.sh: needs clang (set CXX=clang++ or clang++-NN), got '$cxx'" >&2; exit 2 ;;
esac
out="${FUZZ_DIR:-${TMPDIR:-/tmp}/kvsize-fuzz}"
mkdir -p "$out/corpus" "$out/artifacts"
"$cxx" -std=c++20 -O1 -g -fno-omit-frame-pointer \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$root/include" "$root/tests/fuzz/hf_config.fuzz.cpp" -o "$out/hf_config_fuzz"
# Seed: every real, quirk and invalid config (the fuzzer only adds to $out/corpus).
cp -f "$root"/configs/*.json "$root"/configs/quirks/*.json "$root"/configs/invalid/*.json "$root"/configs/weights_unknown/*.json "$out/corpus/" 2>/dev/null || true
if [ -d "$root/configs/synthetic" ]; then cp -f "$root"/configs/synthetic/*.json "$out/corpus/" 2>/dev/null || true; fi
# ASAN_OPTIONS / UBSAN_OPTIONS from the caller are appended (e.g. malloc_context_size=0 for speed).
UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}" \
ASAN_OPTIONS="detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
  "$out/hf_config_fuzz" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -dict="$root/tests/fuzz/json.dict" -artifact_prefix="$out/artifacts/" -print_final_stats=1 "$@" "$out/corpus"

# The GGUF reader, the same time: seeded with the first 64 KiB of each bundled GGUF (its header
# keys; the fuzzer cuts, grows and mutates them) and a few small files with tensor tables.
mkdir -p "$out/gguf-corpus"
"$cxx" -std=c++20 -O1 -g -fno-omit-frame-pointer \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$root/include" "$root/tests/fuzz/gguf.fuzz.cpp" -o "$out/gguf_fuzz"
for f in "$root"/configs/gguf/*.gguf; do head -c 65536 "$f" > "$out/gguf-corpus/$(basename "$f")"; done
UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}" \
ASAN_OPTIONS="detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
  "$out/gguf_fuzz" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -dict="$root/tests/fuzz/gguf.dict" -artifact_prefix="$out/artifacts/gguf-" -print_final_stats=1 "$@" \
  "$out/gguf-corpus"
