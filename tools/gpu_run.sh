#!/usr/bin/env bash
# One command for a GPU host with a PyTorch wheel (or a CUDA LibTorch), CMake and ninja,
# and no Bazel and no network: configure, build, GPU self-test, every trick with a short
# budget through run_all (the tricks with device-specific code first), the report, a
# summary. Everything lands in OUT_DIR.
#
#   tools/gpu_run.sh /tmp/trickbench-h200
#   LIBTORCH_HOME=/opt/libtorch tools/gpu_run.sh out          # a LibTorch instead of the wheel
#   ONLY=channels_last,cudnn_benchmark tools/gpu_run.sh out   # some tricks only
#
# Environment (all optional):
#   LIBTORCH_HOME   LibTorch folder or a wheel's torch/ folder (default: the repo's .venv
#                   from tools/install_deps.sh, else python3's torch, else Debian's)
#   BUILD_DIR       CMake build folder (default: OUT_DIR/build)
#   MIN_TIME        seconds per sample (default 0.03)   ROUNDS (default 8)   PROCESSES (default 3)
#   TRICK_TIMEOUT   seconds per trick (default 90)          RUN_BUDGET (default 480 s: self-
#                                                           test, tricks and report)
#   BUILD_BUDGET    seconds for the build (default: from the cold build measured on the CI
#                   machine, scaled by JOBS; see build_budget below)
#   JOBS            build jobs (default: nproc)             ONLY / SKIP: trick ids, comma-separated
#   FLUSH_L2=1      pass --flush_l2 to every trick (cold L2 before each timed iteration)
#
# Without a GPU (no nvidia-smi device) it still configures and builds (CUDA on when
# LibTorch and the toolkit have it), then says there is no GPU and exits 3, having run
# nothing: CI runs it that way. --allow-cpu builds without CUDA and runs the same flow on
# the CPU instead (the self-test says it has nothing to measure).
#
# Exit status: 0 every trick measured or skipped, 1 some trick failed, crashed, timed out
# or did not build (all results are still written), 2 bad usage or the build failed,
# 3 no GPU here (after the build).
set -uo pipefail

usage() { sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; }

allow_cpu=0
out_dir=""
for arg in "$@"; do
  case "$arg" in
    --allow-cpu) allow_cpu=1 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "gpu_run: unknown flag $arg" >&2; usage >&2; exit 2 ;;
    *) if [[ -n "$out_dir" ]]; then echo "gpu_run: one OUT_DIR only" >&2; exit 2; fi; out_dir="$arg" ;;
  esac
done
if [[ -z "$out_dir" ]]; then usage >&2; exit 2; fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
start=$(date +%s)
run_budget=${RUN_BUDGET:-${BUDGET:-480}}
min_time=${MIN_TIME:-0.03}
rounds=${ROUNDS:-8}
processes=${PROCESSES:-3}
trick_timeout=${TRICK_TIMEOUT:-90}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 4)}

# The build's budget, from a measurement: a cold CMake CUDA build of everything (every
# trick, run_all, gpu_selftest, report; torch/torch.h precompiled) took
# COLD_BUILD_CPU_S seconds of compiler CPU time (user+sys) on the CI machine (2 cores,
# ~2.5 GHz Xeon; see docs/GPU.md), of which COLD_BUILD_SERIAL_S is the part no number of
# jobs shortens (configure, the precompiled header, the last links). With JOBS jobs:
#   serial + cpu / JOBS, times 2 for a slower or busy host, plus 60 s.
# On the 16 cores of a GPU host that is ~300 s (2 cores: ~1160 s); an incremental build (the
# folder kept from a previous run) takes seconds.
COLD_BUILD_CPU_S=980
COLD_BUILD_SERIAL_S=60
build_budget=${BUILD_BUDGET:-$(( (COLD_BUILD_SERIAL_S + COLD_BUILD_CPU_S / jobs) * 2 + 60 ))}

mkdir -p "$out_dir" || { echo "gpu_run: cannot create $out_dir" >&2; exit 2; }
out_dir=$(cd "$out_dir" && pwd)
build_dir=${BUILD_DIR:-$out_dir/build}
log="$out_dir/gpu_run.log"
: > "$log"
say() { echo "gpu_run: $*" | tee -a "$log"; }
elapsed() { echo $(( $(date +%s) - start )); }

# --- the GPU ---------------------------------------------------------------------------
gpu="none"
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L > "$out_dir/nvidia-smi-L.txt" 2>&1 \
    && grep -q '^GPU ' "$out_dir/nvidia-smi-L.txt"; then
  gpu=$(head -1 "$out_dir/nvidia-smi-L.txt")
  # Clocks, power limit, ECC, other processes: what explains a slow self-test.
  nvidia-smi -q > "$out_dir/nvidia-smi-q.txt" 2>&1 || true
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu,utilization.gpu,memory.used \
    --format=csv > "$out_dir/nvidia-smi-clocks.csv" 2>&1 || true
  say "GPU: $gpu"
else
  rm -f "$out_dir/nvidia-smi-L.txt"
  if (( allow_cpu )); then
    say "NO GPU on this host: building and running the CPU path (--allow-cpu); CUDA timing is not exercised"
  else
    say "NO GPU on this host (nvidia-smi missing or lists no GPU): building only, then exit 3"
  fi
fi

# --- LibTorch and the CUDA toolkit --------------------------------------------------------
if [[ -z "${LIBTORCH_HOME:-}" ]]; then
  for candidate in "$root"/.venv/lib/python3*/site-packages/torch; do
    if [[ -d "$candidate/include/torch" ]]; then LIBTORCH_HOME=$candidate; break; fi
  done
fi
if [[ -z "${LIBTORCH_HOME:-}" ]] && command -v python3 >/dev/null 2>&1; then
  LIBTORCH_HOME=$(python3 -c 'import os, torch; print(os.path.dirname(torch.__file__))' 2>/dev/null || true)
fi
if [[ -n "${LIBTORCH_HOME:-}" ]]; then
  say "LibTorch: $LIBTORCH_HOME"
else
  say "LibTorch: none given, no .venv and no python3 torch: Debian's libtorch-dev (CPU only)"
fi
if ! command -v nvcc >/dev/null 2>&1; then
  for d in "${CUDA_HOME:-}" /usr/local/cuda; do
    if [[ -n "$d" && -x "$d/bin/nvcc" ]]; then export PATH="$d/bin:$PATH"; export CUDA_HOME="$d"; break; fi
  done
fi
cuda_mode=AUTO
if [[ "$gpu" != "none" ]]; then
  cuda_mode=ON   # a GPU host must get the CUDA path, or fail loudly
elif (( allow_cpu )); then
  cuda_mode=OFF  # a CUDA build cannot start here (LibTorch's CUDA libraries need a GPU host's)
fi

generator=(-G Ninja)
if ! command -v ninja >/dev/null 2>&1; then
  say "ninja not found: using make"
  generator=(-G "Unix Makefiles")
fi

# --- configure and build -------------------------------------------------------------------
say "configuring in $build_dir (CUDA: $cuda_mode)"
if ! cmake -S "$root" -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
      -DLIBTORCH_HOME="${LIBTORCH_HOME:-}" -DTRICKBENCH_CUDA="$cuda_mode" \
      -DTRICKBENCH_BUNDLED_DEPS=ON >> "$log" 2>&1; then
  say "CMake configure FAILED; the end of $log:"
  tail -25 "$log"
  exit 2
fi
sed 's/^/  /' "$build_dir/build_info.txt" | tee -a "$log"

# Keep going past a trick that does not compile against this LibTorch: it is reported,
# the others run.
build_start=$(date +%s)
say "building with $jobs jobs (limit ${build_budget}s)"
keep_going=(-k 0)
if [[ "${generator[1]}" != "Ninja" ]]; then keep_going=(-k); fi
# With ONLY, just those tricks and the tools.
targets=()
if [[ -n "${ONLY:-}" ]]; then
  IFS=, read -r -a targets <<< "$ONLY"
  targets+=(run_all gpu_selftest)
  if [[ -f "$root/reports/report_main.cc" ]]; then targets+=(report); fi
  targets=(--target "${targets[@]}")
fi
timeout "$build_budget" cmake --build "$build_dir" "${targets[@]}" -j "$jobs" -- "${keep_going[@]}" > "$out_dir/build.log" 2>&1
build_rc=$?
if (( build_rc == 124 )); then
  say "the build ran out of its ${build_budget}s (BUILD_BUDGET); what it finished is kept in $build_dir"
fi
say "build finished (exit $build_rc) in $(( $(date +%s) - build_start ))s"
for tool in run_all gpu_selftest; do
  if [[ ! -x "$build_dir/$tool" ]]; then
    say "the build produced no $tool; see $out_dir/build.log:"
    grep -m5 -A5 'FAILED\|error:' "$out_dir/build.log"
    exit 2
  fi
done

if [[ "$gpu" == "none" ]] && (( ! allow_cpu )); then
  say "NO GPU on this host: built in $(elapsed)s, nothing run. Run this on a GPU host, or with"
  say "--allow-cpu to exercise the same flow on the CPU."
  exit 3
fi
run_start=$(date +%s)
left() { echo $(( run_budget - ($(date +%s) - run_start) )); }

# Which tricks exist, which were left out at configure time, which failed to build.
mapfile -t configured < "$build_dir/tricks.txt"
built=()
build_failures=0
: > "$out_dir/not_built.txt"
cat "$build_dir/skipped_tricks.txt" >> "$out_dir/not_built.txt"
for bin in "${configured[@]}"; do
  id=$(basename "$bin")
  if [[ -n "${ONLY:-}" && ",$ONLY," != *",$id,"* ]]; then continue; fi
  if [[ -n "${SKIP:-}" && ",$SKIP," == *",$id,"* ]]; then continue; fi
  if [[ -x "$bin" ]]; then
    built+=("$bin")
  else
    printf '%s\tdid not build (see build.log)\n' "$id" >> "$out_dir/not_built.txt"
    build_failures=$((build_failures + 1))
  fi
done

# Tricks with device-specific code (they need CUDA, have a <id>_cuda.cc, or branch on
# the device) first, so that a run cut short by the budget has measured those.
gpu_first=() others=()
for bin in "${built[@]}"; do
  id=$(basename "$bin")
  if [[ -f "$root/benches/${id}_cuda.cc" ]] ||
     grep -q 'NeedsCuda\|is_cuda\|TRICKBENCH_CUDA\|kCUDA' "$root/benches/$id.cc" 2>/dev/null; then
    gpu_first+=("$bin")
  else
    others+=("$bin")
  fi
done
built=("${gpu_first[@]}" "${others[@]}")

# --- device self-test -------------------------------------------------------------------
say "device self-test"
timeout 120 "$build_dir/gpu_selftest" --out="$out_dir/selftest.json" 2>&1 | tee -a "$log"
selftest_rc=${PIPESTATUS[0]}
if [[ "$gpu" != "none" && $selftest_rc -ne 0 ]]; then
  say "WARNING: the self-test failed (exit $selftest_rc): trick results below may not be trustworthy"
fi

# --- every trick ------------------------------------------------------------------------
run_dir="$out_dir/results"
run_limit=$(( $(left) - 30 ))  # 30 s for the report and the summary
flags=(--out_dir="$run_dir" --min_time="$min_time" --rounds="$rounds" --processes="$processes" --timeout="$trick_timeout")
if [[ "${FLUSH_L2:-0}" == 1 ]]; then
  if "$build_dir/run_all" --help | grep -q -- --flush_l2; then
    flags+=(--flush_l2)
  else
    say "FLUSH_L2=1 ignored: this run_all does not forward --flush_l2 (run a trick binary with it directly)"
  fi
fi
run_rc=2
if (( ${#built[@]} == 0 )); then
  say "no trick binary to run"
elif (( run_limit < 30 )); then
  say "no time left to run the tricks (${run_limit}s)"
else
  say "running ${#built[@]} tricks (${processes} processes x ${rounds} rounds of ${min_time}s samples, ${trick_timeout}s per process, ${run_limit}s in all)"
  # run_all rewrites index.json after each trick: a run cut short keeps what it measured.
  timeout --signal=TERM --kill-after=10 "$run_limit" "$build_dir/run_all" "${built[@]}" "${flags[@]}" 2>&1 | tee -a "$log"
  run_rc=${PIPESTATUS[0]}
  if (( run_rc == 124 || run_rc == 137 )); then say "run_all stopped at the time budget: the remaining tricks did not run"; fi
fi

# --- report ------------------------------------------------------------------------------
if [[ -x "$build_dir/report" && -f "$run_dir/index.json" ]]; then
  say "report"
  if "$build_dir/report" "$run_dir" --out_dir="$out_dir" >> "$log" 2>&1; then
    say "report written: $(ls "$out_dir"/report.* 2>/dev/null | tr '\n' ' ')"
  else
    say "the report tool failed (see $log); the per-trick JSON files are in $run_dir"
  fi
else
  say "no report: $( [[ -x "$build_dir/report" ]] && echo "no results to report" || echo "the build has no report tool (reports/report_main.cc)")"
fi

# --- summary -----------------------------------------------------------------------------
echo
say "summary ($(elapsed)s in all; run budget ${run_budget}s, build budget ${build_budget}s)"
say "  GPU: $gpu"
if [[ -f "$out_dir/selftest.json" ]] && command -v python3 >/dev/null 2>&1; then
  python3 - "$out_dir/selftest.json" <<'EOF' | tee -a "$log"
import json, sys
r = json.load(open(sys.argv[1]))
for key, unit, value in (("matmul", "TFLOP/s", "tflops"), ("copy", "GB/s", "gbps")):
    m = r[key]
    share = "" if m["share_of_peak"] is None else " (%.0f%% of %s %s)" % (100 * m["share_of_peak"], m["peak_" + value], unit)
    print("gpu_run:   self-test %-40s %.1f %s%s: %s" % (m["what"], m[value], unit, share, m["verdict"]))
EOF
fi
if [[ -f "$run_dir/index.json" ]] && command -v python3 >/dev/null 2>&1; then
  python3 - "$run_dir/index.json" <<'EOF' | tee -a "$log"
import collections, json, sys
index = json.load(open(sys.argv[1]))
counts = collections.Counter(t["outcome"] for t in index["tricks"])
print("gpu_run:   tricks: " + ", ".join("%d %s" % (n, o) for o, n in sorted(counts.items()))
      + ("" if index.get("complete") else " (run cut short)"))
for t in index["tricks"]:
    if t["outcome"] not in ("ok", "skipped"):
        print("gpu_run:     %-26s %-8s %s" % (t["id"], t["outcome"], t["reason"][:140]))
EOF
fi
if [[ -s "$out_dir/not_built.txt" ]]; then
  say "  not built: $(cut -f1 "$out_dir/not_built.txt" | tr '\n' ' ')(reasons: $out_dir/not_built.txt)"
fi
say "  everything is in $out_dir (gpu_run.log, build.log, selftest.json, results/, report.*)"

# A trick left out for a library this host lacks is reported, not failed; one that did
# not compile is a failure.
if (( run_rc != 0 || build_failures > 0 )); then exit 1; fi
exit 0
