#!/usr/bin/env bash
# CI step: the CMake build (what GPU hosts without Bazel use, see docs/GPU.md) must keep
# working. Configures it against Debian's CPU LibTorch with the bundled Google Benchmark
# and nlohmann/json (as on a GPU host), builds one trick, run_all and the report tool,
# runs that trick through run_all with a tiny budget and checks its result; then
# compile-checks the CUDA-only code of the harness against LibTorch's c10/cuda headers
# when a CUDA toolkit is present (it cannot link here: there is no CUDA LibTorch).
#
#   tools/cmake_check.sh                 # build folder outside the tree (see below)
#   CMAKE_CHECK_DIR=/tmp/cm tools/cmake_check.sh
#
# The build folder defaults to $TMPDIR/trickbench-cmake-<hash of the source path>, so a
# re-run in the same checkout is incremental; ccache is used when installed.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CMAKE_CHECK_DIR:-${TMPDIR:-/tmp}/trickbench-cmake-$(printf '%s' "$root" | sha1sum | cut -c1-12)}
trick=no_grad_inference
start=$(date +%s)
say() { echo "cmake_check: $*"; }

launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi

say "configuring $root in $build"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRICKBENCH_BUNDLED_DEPS=ON \
  -DTRICKBENCH_CUDA=AUTO "${launcher[@]}" > "$build.configure.log" 2>&1 || {
  cat "$build.configure.log"; say "FAILED: configure"; exit 1; }

# Every benches/<id>.cc is either configured or left out with a reason: the glob works.
expected=$(find "$root/benches" -maxdepth 1 -name '*.cc' ! -name '*_cuda.cc' ! -name '*_test.cc' | wc -l)
configured=$(wc -l < "$build/tricks.txt")
left_out=$(wc -l < "$build/skipped_tricks.txt")
if (( configured + left_out != expected )); then
  say "FAILED: benches/ has $expected tricks, CMake configured $configured and left out $left_out"
  exit 1
fi
grep -q "/benches/$trick\$" "$build/tricks.txt" || { say "FAILED: $trick not configured"; exit 1; }
say "$configured tricks configured, $left_out left out (no library for them here)"

targets=("$trick" run_all)
if grep -q '^report$' <(ninja -C "$build" -t targets all 2>/dev/null | sed 's/:.*//'); then targets+=(report); fi
say "building ${targets[*]}"
ninja -C "$build" "${targets[@]}" > "$build.build.log" 2>&1 || {
  grep -A20 'FAILED' "$build.build.log" | head -60; say "FAILED: build"; exit 1; }

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
say "running $trick through run_all"
"$build/run_all" "$build/benches/$trick" --out_dir="$out" --min_time=0.001 --repetitions=3 \
  --threads=1 > "$out/run_all.txt" 2>&1 || { cat "$out/run_all.txt" "$out/$trick.log"; say "FAILED: run_all"; exit 1; }
python3 - "$out" "$trick" <<'EOF'
import json, sys
out, trick = sys.argv[1], sys.argv[2]
index = json.load(open(f"{out}/index.json"))
assert index["complete"], "index.json not complete"
[row] = index["tricks"]
assert row["outcome"] == "ok", f"outcome {row['outcome']}: {row['reason']}"
r = json.load(open(f"{out}/{trick}.json"))
tb = r["trickbench"]
assert tb["id"] == trick and tb["status"] == "ok", tb.get("reason")
names = {b["run_name"] for b in r["benchmarks"]}
for case in tb["checks"]:
    for v in case["variants"]:
        assert v["benchmark"] in names, f"{v['benchmark']} not among {sorted(names)}"
medians = [b for b in r["benchmarks"] if b.get("aggregate_name") == "median"]
assert len(medians) == len(tb["variants"]), medians
assert all(b["real_time"] > 0 for b in medians)
print(f"cmake_check: {trick}: {len(r['benchmarks'])} benchmark rows, variants {tb['variants']}, "
      f"reproducible={tb['reproducibility']['bitwise_reproducible']}")
EOF
if [[ -x "$build/report" ]]; then
  "$build/report" "$out" --out_dir="$out" > "$out/report_tool.log" 2>&1 || {
    cat "$out/report_tool.log"; say "FAILED: report on the run"; exit 1; }
  say "report tool ran: $(cd "$out" && ls report.* | tr '\n' ' ')"
fi

# The CUDA-only code of the harness, against LibTorch 1.13's c10/cuda headers and the
# CUDA toolkit's, syntax only. LibTorch's generated cuda_cmake_macros.h is missing from
# Debian's package; an equivalent one-line stand-in takes its place.
cuda_inc=""
for d in "${CUDA_HOME:-}" /usr/local/cuda; do
  if [[ -n "$d" && -f "$d/include/cuda_runtime_api.h" ]]; then cuda_inc="$d/include"; break; fi
done
if [[ -n "$cuda_inc" && -f /usr/include/c10/cuda/CUDAMacros.h ]]; then
  stand_in="$build/cuda_stand_in"
  mkdir -p "$stand_in/c10/cuda/impl"
  printf '#pragma once\n#define C10_CUDA_BUILD_SHARED_LIBS\n' > "$stand_in/c10/cuda/impl/cuda_cmake_macros.h"
  gb_inc="$root/third_party/benchmark/include"
  json_inc="$root/third_party/nlohmann_json/include"
  say "compile-checking the CUDA path (TRICKBENCH_CUDA=1) against $cuda_inc"
  printf '%s\n' harness/cuda_timing_cuda.cc harness/runner.cc harness/context.cc harness/gpu_selftest.cc |
    xargs -P "$(nproc)" -I{} sh -c "g++ -std=c++17 -fsyntax-only -Wall -Wextra \
      -Wno-unused-parameter -Wno-maybe-uninitialized -Wno-missing-field-initializers \
      -Wno-deprecated-declarations -DTRICKBENCH_CUDA=1 -DTRICKBENCH_HAVE_NVTX=1 \
      -I'$root' -I'$stand_in' -isystem /usr/include/torch/csrc/api/include \
      -isystem '$gb_inc' -isystem '$json_inc' -isystem '$cuda_inc' '$root/{}' \
      || { echo 'cmake_check: FAILED: CUDA syntax check of {}'; exit 255; }"
else
  say "no CUDA toolkit headers here: CUDA syntax check skipped"
fi
say "ok ($(( $(date +%s) - start ))s)"
