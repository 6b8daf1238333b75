#!/usr/bin/env bash
# CI step: the CMake build (what GPU hosts without Bazel use, see docs/GPU.md) must keep
# working. Configures it as a GPU host does (the torch wheel's LibTorch from .venv, the
# bundled nlohmann/json, CUDA on when LibTorch and the toolkit have
# it) and builds everything: every trick, run_all, gpu_selftest, report, trace_diff. Then:
#   - every benches/<id>.cc is configured or left out with a reason (the glob works);
#   - every configured trick and tool was linked;
#   - CUDA build: each binary NEEDS libtorch_cuda, and the CUDA path's code is in them
#     (cuda::Compiled from cuda_timing_cuda.cc, the *_cuda.cc symbols). They cannot
#     start here: LibTorch's CUDA libraries need libraries only a GPU host has;
#   - CPU build (no toolkit): one trick runs through run_all and its JSON is checked.
#
#   tools/cmake_check.sh                      # build folder outside the tree (see below)
#   CMAKE_CHECK_DIR=/tmp/cm tools/cmake_check.sh
#   CMAKE_CHECK_CUDA=OFF tools/cmake_check.sh # the CPU build and its run check
#
# The build folder defaults to $TMPDIR/trickbench-cmake-<hash of the source path>, so a
# re-run in the same checkout is incremental; ccache is used when installed.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CMAKE_CHECK_DIR:-${TMPDIR:-/tmp}/trickbench-cmake-$(printf '%s' "$root" | sha1sum | cut -c1-12)}
cuda=${CMAKE_CHECK_CUDA:-AUTO}
trick=no_grad_inference
start=$(date +%s)
say() { echo "cmake_check: $*"; }

launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi

say "configuring $root in $build (CUDA: $cuda)"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRICKBENCH_BUNDLED_DEPS=ON \
  -DTRICKBENCH_CUDA="$cuda" "${launcher[@]}" > "$build.configure.log" 2>&1 || {
  cat "$build.configure.log"; say "FAILED: configure"; exit 1; }
sed 's/^/  /' "$build/build_info.txt"
with_cuda=0
if grep -q '^cuda: ON' "$build/build_info.txt"; then with_cuda=1; fi

# Every benches/<id>.cc is either configured or left out with a reason: the glob works.
expected=$(find "$root/benches" -maxdepth 1 -name '*.cc' ! -name '*_cuda.cc' ! -name '*_test.cc' | wc -l)
configured=$(wc -l < "$build/tricks.txt")
left_out=$(wc -l < "$build/skipped_tricks.txt")
if (( configured + left_out != expected )); then
  say "FAILED: benches/ has $expected tricks, CMake configured $configured and left out $left_out"
  exit 1
fi
grep -q "/benches/$trick\$" "$build/tricks.txt" || { say "FAILED: $trick not configured"; exit 1; }
say "$configured tricks configured, $left_out left out$( ((left_out)) && echo ": $(cut -f1 "$build/skipped_tricks.txt" | tr '\n' ' ')")"

say "building everything ($(nproc) cores)"
build_start=$(date +%s)
ninja -C "$build" > "$build.build.log" 2>&1 || {
  grep -A20 'FAILED' "$build.build.log" | head -60; say "FAILED: build"; exit 1; }
say "built in $(( $(date +%s) - build_start ))s"
if grep -c 'Winvalid-pch' "$build.build.log" > /dev/null; then
  grep -m5 'Winvalid-pch\|\.gch' "$build.build.log"
  say "FAILED: a target could not use the precompiled header (see above)"
  exit 1
fi

tools=(run_all gpu_selftest trace_diff)
if [[ -f "$root/reports/report_main.cc" ]]; then tools+=(report); fi
binaries=()
mapfile -t binaries < "$build/tricks.txt"
for tool in "${tools[@]}"; do binaries+=("$build/$tool"); done
for bin in "${binaries[@]}"; do
  [[ -x "$bin" ]] || { say "FAILED: $bin was not linked"; exit 1; }
done
say "${#binaries[@]} binaries linked"

# grep -c reads all of its input (grep -q would stop early, and under pipefail the
# writer's SIGPIPE would count as a failure).
contains() { "${@:2}" | grep -c -- "$1" > /dev/null; }
if (( with_cuda )); then
  # The CUDA path is in: LibTorch's CUDA half is linked into every binary, and the CUDA
  # sources' code is in the binaries that use it.
  for bin in "${binaries[@]}"; do
    contains 'NEEDED.*libtorch_cuda\.so' readelf -d "$bin" || {
      say "FAILED: $(basename "$bin") does not link libtorch_cuda"; exit 1; }
  done
  contains 'trickbench::cuda::IterationTimer::StopSeconds' nm -C "$build/gpu_selftest" || {
    say "FAILED: gpu_selftest has no CUDA event timer (cuda_timing_cuda.cc not linked)"; exit 1; }
  contains 'trickbench::cuda::TimeIterations' nm -C "$build/benches/$trick" || {
    say "FAILED: $trick has no CUDA timing path"; exit 1; }
  for cuda_src in "$root"/benches/*_cuda.cc; do
    id=$(basename "$cuda_src" _cuda.cc)
    ns="trickbench::${id}_cuda::"
    contains "$ns" nm -C "$build/benches/$id" || { say "FAILED: $id has no $ns code"; exit 1; }
  done
  say "CUDA path linked: libtorch_cuda in every binary; CUDA timing, gpu_selftest and the" \
      "benches/*_cuda.cc code present (they run on a GPU host: tools/device_check.sh)"
else
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
assert len(tb["rounds"]) == len(tb["cases"]), tb["rounds"]
# Google Benchmark's JSON beside the record, printed from its rounds.
gb = json.load(open(f"{out}/{trick}.gbench.json"))
names = {b["run_name"] for b in gb["benchmarks"]}
for case in tb["checks"]:
    for v in case["variants"]:
        name = "/".join(["BM_" + trick] + ([case["case"]] if case["case"] else []) + [v["name"]])
        assert name in names, f"{name} not among {sorted(names)}"
medians = [b for b in gb["benchmarks"] if b.get("aggregate_name") == "median"]
assert len(medians) == len(tb["variants"]), medians
assert all(b["real_time"] > 0 for b in medians)
print(f"cmake_check: {trick}: {len(gb['benchmarks'])} exported rows, variants {tb['variants']}, "
      f"torch {r['context'].get('torch_version')}, "
      f"reproducible={tb['reproducibility']['bitwise_reproducible']}")
EOF
  if [[ -x "$build/report" ]]; then
    "$build/report" "$out" --out_dir="$out" > "$out/report_tool.log" 2>&1 || {
      cat "$out/report_tool.log"; say "FAILED: report on the run"; exit 1; }
    say "report tool ran: $(cd "$out" && ls report.* | tr '\n' ' ')"
  fi
fi
say "ok ($(( $(date +%s) - start ))s)"
