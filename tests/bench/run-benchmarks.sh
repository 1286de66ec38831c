#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Reruns every benchmark of BENCHMARKS.md (issue 7) and prints its tables (Markdown) on stdout:
#   1. the machine;  2. kvsize_bench (hot path, planner sweep, configs);  3. a whole `kvsize --json` process;
#   4. the compile cost of the headers.
# Usage: tests/bench/run-benchmarks.sh [--quick]      (from anywhere; builds in build/bench, Release)
# Environment: KVSIZE_BENCH_BUILD (build dir, default build/bench), KVSIZE_BENCH_NO_BUILD=1 (run what is built), CXX_LIST (compilers, default "g++ clang++"),
#              COMPILE_RUNS (compilations per figure, default 7), PROCESS_RUNS (default 200).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
quick=""
[[ "${1:-}" == "--quick" ]] && quick="--quick"
build="${KVSIZE_BENCH_BUILD:-build/bench}"
compile_runs="${COMPILE_RUNS:-7}"
process_runs="${PROCESS_RUNS:-200}"
[[ -n "$quick" ]] && compile_runs=3 && process_runs=30
config="configs/Qwen__Qwen2.5-7B.config.json"

if [[ -z "${KVSIZE_BENCH_NO_BUILD:-}" ]]; then  # set it to reuse what $build already holds
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKVSIZE_BUILD_BENCHMARKS=ON >/dev/null
  cmake --build "$build" --target kvsize_bench kvsize_cli >/dev/null
fi

# ---- 1. The machine --------------------------------------------------------------------------------------
echo "## Machine"
echo
echo "- CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores available"
echo "- Load average when the run started: $(cut -d' ' -f1-3 /proc/loadavg)"
for cxx in ${CXX_LIST:-g++ clang++}; do
  command -v "$cxx" >/dev/null && echo "- $cxx: $("$cxx" --version | head -1)"
done
echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC'); kvsize commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "- Build: CMake Release (-O3 -DNDEBUG), $(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")"
echo

# ---- 2. In-process benchmarks ----------------------------------------------------------------------------
# KVSIZE_BENCH_GGUF: more GGUF files to time (space-separated), e.g. llama.cpp's 15.8 MB ggml-vocab-gemma-4.gguf.
gguf_args=()
for f in ${KVSIZE_BENCH_GGUF:-}; do gguf_args+=(--gguf "$f"); done
"$build/tests/bench/kvsize_bench" $quick "${gguf_args[@]}"

# The same GGUF files parsed by @huggingface/gguf (an independent JS parser), when
# KVSIZE_GGUF_ORACLE_DIR names a folder where `npm install @huggingface/gguf@0.4.6` was run.
if [[ -n "${KVSIZE_GGUF_ORACLE_DIR:-}" ]] && command -v node >/dev/null; then
  cp tools/gguf-oracle.mjs "$KVSIZE_GGUF_ORACLE_DIR/gguf-oracle.mjs"
  echo "### @huggingface/gguf $(node -p "require('$KVSIZE_GGUF_ORACLE_DIR/node_modules/@huggingface/gguf/package.json').version") on the same files (node $(node --version); median of 5 full parses)"
  echo
  echo "| file | ms |"
  echo "|---|---:|"
  for f in configs/gguf/*.gguf ${KVSIZE_BENCH_GGUF:-}; do
    ms="$(node "$KVSIZE_GGUF_ORACLE_DIR/gguf-oracle.mjs" "$f" --time 5 | sed -n 's/.*"median_ms":\([0-9.]*\).*/\1/p')"
    echo "| $(basename "$f") | $ms |"
  done
  echo
fi

# ---- 3. A whole kvsize process ---------------------------------------------------------------------------
# Floors: a C++ program that does nothing (same compiler, flags and libstdc++), and `true`.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cxx="$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")"
echo 'int main() { return 0; }' >"$tmp/empty.cpp"
"$cxx" -O3 -o "$tmp/empty" "$tmp/empty.cpp"
cli="$build/kvsize"
[[ -x "$cli" ]] || cli="$(find "$build" -name kvsize -type f -perm -u+x | head -1)"

echo "### A whole \`kvsize --json\` process ($config)"
echo
if command -v hyperfine >/dev/null; then
  hyperfine -N --warmup 10 --runs "$process_runs" --style none --export-markdown "$tmp/process.md" \
    -n "kvsize --json" "$cli $config --json" \
    -n "kvsize --json --gpu h100-80gb --engine vllm" "$cli $config --json --gpu h100-80gb --engine vllm" \
    -n "floor: empty C++ program" "$tmp/empty" \
    -n "floor: /bin/true" "/bin/true" >/dev/null
  cat "$tmp/process.md"
else
  echo "| command | mean [ms] |"
  echo "|---|---:|"
  for cmd in "$cli $config --json" "$tmp/empty" "/bin/true"; do
    start=$(date +%s%N)
    for ((i = 0; i < process_runs; ++i)); do $cmd >/dev/null; done
    end=$(date +%s%N)
    awk -v c="$cmd" -v ns=$((end - start)) -v n="$process_runs" 'BEGIN { printf "| `%s` | %.2f |\n", c, ns / n / 1e6 }'
  done
fi
echo
echo "Allocations of one run (valgrind): $(command -v valgrind >/dev/null &&
  valgrind "$cli" "$config" --json 2>&1 >/dev/null | sed -n 's/.*total heap usage: //p' || echo 'valgrind not installed')"
echo

# ---- 4. Compile cost ---------------------------------------------------------------------------------------
# Each TU holds 20 static_asserts; the baseline includes only <cstdint>.
asserts_core() {
  for i in $(seq 1 20); do
    echo "static_assert(kvsize::kv_bytes_per_sequence(kvsize::presets::qwen2_5_7b, $((i * 1024))).count() == $((i * 1024 * 57344))ULL);"
  done
}
asserts_plain() {
  for i in $(seq 1 20); do
    echo "static_assert(std::uint64_t{2} * 28 * 4 * 128 * 2 * $((i * 1024)) == $((i * 1024 * 57344))ULL);"
  done
}
{ echo '#include <cstdint>'; asserts_plain; } >"$tmp/baseline.cpp"
{ echo '#include <kvsize/kvsize.hpp>'; asserts_core; } >"$tmp/core.cpp"
{ echo '#include <cstdint>'; echo '#include <nlohmann/json.hpp>'; asserts_plain; } >"$tmp/nlohmann.cpp"
{ echo '#include <kvsize/hf_config.hpp>'; echo '#include <kvsize/kvsize.hpp>'; asserts_core; } >"$tmp/hf.cpp"

median_seconds() {  # median wall time of COMPILE_RUNS runs of "$@"
  local times=()
  for ((r = 0; r < compile_runs; ++r)); do
    local s e
    s=$(date +%s%N)
    "$@" >/dev/null
    e=$(date +%s%N)
    times+=($((e - s)))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { printf "%.3f", a[int((NR + 1) / 2)] / 1e9 }'
}

echo "### Compile cost of including the headers (median of $compile_runs, seconds)"
echo
echo "| translation unit | compiler | -fsyntax-only | -O2 -c |"
echo "|---|---|---:|---:|"
for cxx_name in ${CXX_LIST:-g++ clang++}; do
  command -v "$cxx_name" >/dev/null || continue
  for tu in baseline core nlohmann hf; do
    case $tu in
      baseline) label='`<cstdint>` + 20 static_asserts (floor)' ;;
      core) label='`<kvsize/kvsize.hpp>` + 20 static_asserts' ;;
      nlohmann) label='`<nlohmann/json.hpp>` + 20 static_asserts (JSON floor)' ;;
      hf) label='`<kvsize/hf_config.hpp>` + core + 20 static_asserts' ;;
    esac
    flags=(-std=c++20 -Iinclude)
    syntax=$(median_seconds "$cxx_name" "${flags[@]}" -fsyntax-only "$tmp/$tu.cpp")
    full=$(median_seconds "$cxx_name" "${flags[@]}" -O2 -c "$tmp/$tu.cpp" -o "$tmp/$tu.o")
    echo "| $label | $cxx_name | $syntax | $full |"
  done
done
echo

# ---- 5. What each header costs on its own --------------------------------------------------------------------
# One include per TU, g++ -fsyntax-only (the first compiler of CXX_LIST): where the umbrella's time goes.
first_cxx="$(echo "${CXX_LIST:-g++ clang++}" | cut -d' ' -f1)"
echo "### One header per translation unit ($first_cxx -fsyntax-only, median of $compile_runs, seconds)"
echo
echo "| header | seconds |"
echo "|---|---:|"
for h in '<cstdint>' '<exception>' '<string_view>' '<optional>' '<array>' '<stdexcept>' '<algorithm>' \
  '<kvsize/error.hpp>' '<kvsize/bytes.hpp>' '<kvsize/dtype.hpp>' '<kvsize/model_spec.hpp>' '<kvsize/kv_cache.hpp>' \
  '<kvsize/capacity.hpp>' '<kvsize/weights.hpp>' '<kvsize/gpus.hpp>' '<kvsize/kvsize.hpp>' '<kvsize/engine.hpp>' \
  '<kvsize/planner.hpp>'; do
  echo "#include $h" >"$tmp/one.cpp"
  echo "| \`$h\` | $(median_seconds "$first_cxx" -std=c++20 -Iinclude -fsyntax-only "$tmp/one.cpp") |"
done
echo
