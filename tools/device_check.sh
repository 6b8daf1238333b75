#!/usr/bin/env bash
# The GPU check: one command, one overall deadline, at most 8 files back. For a GPU host
# lent for minutes (the device tool: docs/GPU.md), from a bare copy of the working tree:
#
#   tools/device_check.sh "$OUT"                      # 9 minutes at most, everything
#   DEADLINE=300 ONLY=channels_last tools/device_check.sh /tmp/out
#   tools/device_check.sh --allow-cpu /tmp/out        # the same flow on the CPU (here)
#
# 1. the environment: GPU and driver (nvidia-smi), nvcc, torch's CUDA and cuDNN;
# 2. configure and build (CMake, CUDA on with a GPU) in BUILD_DIR, outside OUT_DIR, under
#    a limit taken from the deadline: a second run soon after reuses the build;
# 3. gpu_selftest (matmul TFLOP/s and copy GB/s against the published peaks);
# 4. the tricks through run_all, those with device-specific code first, one process
#    each, few rounds, within what is left of the deadline; 5. the report.
#
# What it leaves in OUT_DIR, whatever happens (a trap packs it on every exit path, a
# killed build or a signal included; never more than 8 files):
#   summary.txt      what ran, what it found, what failed and why, each step's seconds
#   report.md, report.html, report.json   the run's report (when tricks ran)
#   selftest.json    the device self-test (when it ran)
#   archive.tar.gz   the logs (this script's, the build's tail, each trick's), nvidia-smi,
#                    the environment, and the run folder (index, records, exports)
# Stopped by a signal or by its deadline, it stops its children (the build, run_all and
# the trick processes under them) before packing.
#
# Environment (all optional):
#   DEADLINE        seconds from start to the last file written (default 540)
#   BUILD_DIR       build folder (default: ${TMPDIR:-/tmp}/trickbench-device-<mode>-<hash of
#                   the source path>, mode cuda or cpu: the two never rebuild each other)
#   JOBS            build jobs (default: nproc)       LIBTORCH_HOME  (default: .venv, python3's)
#   ONLY / SKIP     trick ids, comma-separated        MIN_TIME (0.02 s)  ROUNDS (5)
#   TRICK_TIMEOUT   seconds per trick process (60)
#
# Exit status: 0 every trick measured or skipped; 1 a trick failed, or the deadline cut
# the run short; 2 bad usage, or the build failed or ran out of time; 3 no GPU here (and no
# --allow-cpu): everything up to the build was done and packed.
set -uo pipefail

usage() { sed -n '2,38p' "$0" | sed 's/^# \{0,1\}//'; }

allow_cpu=0
out_dir=""
for arg in "$@"; do
  case "$arg" in
    --allow-cpu) allow_cpu=1 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "device_check: unknown flag $arg" >&2; usage >&2; exit 2 ;;
    *) if [[ -n "$out_dir" ]]; then echo "device_check: one OUT_DIR only" >&2; exit 2; fi
       out_dir="$arg" ;;
  esac
done
if [[ -z "$out_dir" ]]; then usage >&2; exit 2; fi
for n in DEADLINE JOBS ROUNDS TRICK_TIMEOUT; do
  v=${!n:-1}
  if ! [[ "$v" =~ ^[0-9]+$ ]] || (( v < 1 )); then
    echo "device_check: $n must be a positive whole number, got '$v'" >&2; exit 2
  fi
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
start=$(date +%s)
deadline=$(( start + ${DEADLINE:-540} ))
min_time=${MIN_TIME:-0.02}
rounds=${ROUNDS:-5}
trick_timeout=${TRICK_TIMEOUT:-60}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 4)}
mkdir -p "$out_dir" || { echo "device_check: cannot create $out_dir" >&2; exit 2; }
out_dir=$(cd "$out_dir" && pwd)
if [[ -n "$(ls -A "$out_dir")" ]]; then
  echo "device_check: $out_dir is not empty (it gets at most 8 files: give an empty folder)" >&2
  exit 2
fi
# Everything is written in `work` and packed into OUT_DIR at the end.
work=$(mktemp -d "${TMPDIR:-/tmp}/trickbench-device-check.XXXXXX")
log="$work/device_check.log"
summary="$work/summary.txt"
: > "$log"
: > "$summary"
child=""

left() { echo $(( deadline - $(date +%s) )); }
elapsed() { echo $(( $(date +%s) - start )); }
say() { echo "device_check: [$(elapsed)s] $*" | tee -a "$log"; }
note() { echo "$*" >> "$summary"; say "$*"; }

# Runs a command under `timeout` in the background, so that the trap can stop it (and,
# through timeout, its process group: ninja and the compilers, run_all and the tricks).
bounded() {  # bounded SECONDS COMMAND...: the command's status, 124 when it ran out
  local limit=$1
  shift
  timeout --kill-after=10 "$limit" "$@" &
  child=$!
  wait "$child"
  local rc=$?
  child=""
  return $rc
}

pack() {  # on EXIT: every path leaves by `exit N`, so $? is the status
  local status=$?
  trap - EXIT INT TERM HUP
  stop_child
  note "exit status: $status after $(elapsed)s"
  cp "$summary" "$out_dir/summary.txt"
  for f in report.md report.html report.json selftest.json; do
    if [[ -f "$work/$f" ]]; then cp "$work/$f" "$out_dir/$f"; fi
  done
  tar -czf "$out_dir/archive.tar.gz" -C "$work" --exclude=report.md --exclude=report.html \
    --exclude=report.json --exclude=selftest.json --exclude=summary.txt . 2>/dev/null
  rm -rf "$work"
  exit "$status"
}
stop_child() {
  if [[ -n "$child" ]] && kill -0 "$child" 2>/dev/null; then
    kill -TERM "$child" 2>/dev/null   # timeout passes it to its command's process group
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$child" 2>/dev/null || break; sleep 1; done
    kill -KILL "$child" 2>/dev/null
    wait "$child" 2>/dev/null
    note "stopped the step in progress (pid $child) and its children"
  fi
  child=""
}
on_signal() {
  note "stopped by SIG$1 at $(elapsed)s"
  exit 1   # runs pack
}
trap pack EXIT
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM
trap 'on_signal HUP' HUP

note "trickbench device check: $(date -u +%FT%TZ), deadline $((deadline - start))s, source $root"
note "git: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet 2>/dev/null || echo ' (with local changes)')"

# --- 1. the environment -----------------------------------------------------------------
env_file="$work/environment.txt"
gpu="none"
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L > "$work/nvidia-smi-L.txt" 2>&1 &&
    grep -q '^GPU ' "$work/nvidia-smi-L.txt"; then
  gpu=$(head -1 "$work/nvidia-smi-L.txt")
  nvidia-smi -q > "$work/nvidia-smi-q.txt" 2>&1 || true
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu,utilization.gpu,memory.used \
    --format=csv > "$work/nvidia-smi-clocks.csv" 2>&1 || true
fi
note "GPU: $gpu"
if [[ "$gpu" != "none" ]]; then
  note "driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)"
fi
if ! command -v nvcc >/dev/null 2>&1; then
  for d in "${CUDA_HOME:-}" /usr/local/cuda; do
    if [[ -n "$d" && -x "$d/bin/nvcc" ]]; then export PATH="$d/bin:$PATH" CUDA_HOME="$d"; break; fi
  done
fi
note "nvcc: $(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*' || echo none)"
if [[ -z "${LIBTORCH_HOME:-}" ]]; then
  for candidate in "$root"/.venv/lib/python3*/site-packages/torch; do
    if [[ -d "$candidate/include/torch" ]]; then LIBTORCH_HOME=$candidate; break; fi
  done
fi
if [[ -z "${LIBTORCH_HOME:-}" ]] && command -v python3 >/dev/null 2>&1; then
  LIBTORCH_HOME=$(python3 -c 'import os, torch; print(os.path.dirname(torch.__file__))' 2>/dev/null || true)
fi
note "LibTorch: ${LIBTORCH_HOME:-none found, so Debian libtorch-dev (CPU only)}"
python=python3   # the repo's venv (tools/install_deps.sh) when there is one, else the host's
[[ -x "$root/.venv/bin/python3" ]] && python="$root/.venv/bin/python3"
if command -v "$python" >/dev/null 2>&1; then
  "$python" - > "$work/torch.txt" 2>&1 <<'EOF'
try:
    import torch
    cudnn = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
    print("torch %s, CUDA %s, cuDNN %s, cuda available %s, devices %d" % (
        torch.__version__, torch.version.cuda, cudnn, torch.cuda.is_available(),
        torch.cuda.device_count()))
except Exception as e:  # no torch in this python: the build uses LIBTORCH_HOME
    print("python3 has no usable torch: %s" % e)
EOF
  note "python torch: $(tail -1 "$work/torch.txt")"
fi
{ uname -a; nproc; free -g 2>/dev/null; cmake --version 2>/dev/null | head -1
  ninja --version 2>/dev/null; g++ --version 2>/dev/null | head -1; env | grep -E '^(CUDA|LIBTORCH|PATH|LD_LIBRARY_PATH)=' ; } > "$env_file" 2>&1

if [[ "$gpu" == "none" ]]; then
  if (( allow_cpu )); then
    note "no GPU: the CPU flow (--allow-cpu); CUDA timing is not exercised"
    mode=cpu
  else
    note "no GPU here: configure and build only, then exit 3"
    mode=cuda
  fi
else
  mode=cuda
fi

# --- 2. configure and build ---------------------------------------------------------------
# Mode and source path name the folder: a CPU flow here never rebuilds the CUDA build
# (CI's), and two checkouts never share one.
build_dir=${BUILD_DIR:-${TMPDIR:-/tmp}/trickbench-device-$mode-$(echo "$root" | sha1sum | cut -c1-12)}
cuda_flag=$([[ "$mode" == cuda ]] && { [[ "$gpu" != "none" ]] && echo ON || echo AUTO; } || echo OFF)
generator=(-G Ninja)
command -v ninja >/dev/null 2>&1 || generator=(-G "Unix Makefiles")
# What the report and the tricks need: 150 s (self-test 60, run_all at least 60, report 30).
build_limit=$(( $(left) - 150 ))
if (( build_limit < 30 )); then
  note "FAILED: no time to build (deadline $((deadline - start))s)"
  exit 2
fi
step_start=$(date +%s)
note "build: $build_dir (CUDA $cuda_flag, $jobs jobs, at most ${build_limit}s)"
bounded "$build_limit" cmake -S "$root" -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DLIBTORCH_HOME="${LIBTORCH_HOME:-}" -DTRICKBENCH_CUDA="$cuda_flag" -DTRICKBENCH_BUNDLED_DEPS=ON \
  > "$work/configure.log" 2>&1
rc=$?
if (( rc != 0 )); then
  note "FAILED: CMake configure (exit $rc); configure.log in the archive:"
  tail -15 "$work/configure.log" | tee -a "$summary"
  exit 2
fi
cp "$build_dir/build_info.txt" "$work/" 2>/dev/null
build_limit=$(( $(left) - 150 ))
if (( build_limit < 5 )); then   # `timeout 0` would mean no limit at all
  note "FAILED: configured, but no time left to build (deadline $((deadline - start))s)"
  exit 2
fi
keep_going=(-k 0)
[[ "${generator[1]}" == Ninja ]] || keep_going=(-k)
targets=()
if [[ -n "${ONLY:-}" ]]; then
  IFS=, read -r -a targets <<< "$ONLY"
  targets=(--target "${targets[@]}" run_all gpu_selftest report)
fi
bounded "$build_limit" cmake --build "$build_dir" "${targets[@]}" -j "$jobs" -- "${keep_going[@]}" \
  > "$work/build_full.log" 2>&1
build_rc=$?
tail -200 "$work/build_full.log" > "$work/build.log"
grep -E 'FAILED|error:' "$work/build_full.log" | head -40 > "$work/build_errors.txt"
rm -f "$work/build_full.log"
note "build: exit $build_rc in $(( $(date +%s) - step_start ))s$( (( build_rc == 124 )) && echo ' (ran out of its limit: what it finished stays in the folder for the next run)')"
for tool in run_all gpu_selftest report; do
  if [[ ! -x "$build_dir/$tool" ]]; then
    note "FAILED: the build made no $tool; its first errors:"
    head -10 "$work/build_errors.txt" >> "$summary"
    exit 2
  fi
done
if [[ -f "$build_dir/skipped_tricks.txt" ]]; then
  cp "$build_dir/skipped_tricks.txt" "$work/"
  while IFS=$'\t' read -r id why; do
    [[ -n "$id" ]] && note "not built: $id: $why"
  done < "$build_dir/skipped_tricks.txt"
fi
if [[ "$gpu" == "none" ]] && (( ! allow_cpu )); then
  note "no GPU on this host: built, nothing run (on a GPU host the same command runs it all)"
  exit 3
fi

# Which tricks were built, those with device-specific code first (a run cut short by the
# deadline has measured those).
mapfile -t configured < "$build_dir/tricks.txt"
gpu_first=() others=() build_failures=0
for bin in "${configured[@]}"; do
  id=$(basename "$bin")
  if [[ -n "${ONLY:-}" && ",$ONLY," != *",$id,"* ]]; then continue; fi
  if [[ -n "${SKIP:-}" && ",$SKIP," == *",$id,"* ]]; then continue; fi
  if [[ ! -x "$bin" ]]; then
    note "did not build: $id (build.log in the archive)"
    build_failures=$((build_failures + 1))
  elif [[ -f "$root/benches/${id}_cuda.cc" ]] ||
       grep -q 'NeedsCuda\|is_cuda\|TRICKBENCH_CUDA\|kCUDA\|CudaCases\|OnCuda' "$root/benches/$id.cc" 2>/dev/null; then
    gpu_first+=("$bin")
  else
    others+=("$bin")
  fi
done
tricks=("${gpu_first[@]}" "${others[@]}")

# --- 3. the device self-test --------------------------------------------------------------
step_start=$(date +%s)
bounded 60 "$build_dir/gpu_selftest" --out="$work/selftest.json" > "$work/selftest.log" 2>&1
rc=$?
note "self-test: exit $rc in $(( $(date +%s) - step_start ))s"
if (( rc != 0 )); then   # say why here; the whole log is in the archive
  grep -v '^$' "$work/selftest.log" | tail -2 | sed 's/^/  /' >> "$summary"
fi
if [[ -f "$work/selftest.json" ]] && command -v python3 >/dev/null 2>&1; then
  python3 - "$work/selftest.json" >> "$summary" 2>&1 <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
for key, unit, value in (("matmul", "TFLOP/s", "tflops"), ("copy", "GB/s", "gbps")):
    m = r.get(key)
    if not m:
        continue
    share = "" if m.get("share_of_peak") is None else " (%.0f%% of the published %s)" % (
        100 * m["share_of_peak"], m["peak_" + value])
    print("  %-40s %.1f %s%s: %s" % (m["what"], m[value], unit, share, m["verdict"]))
EOF
fi

# --- 4. the tricks ----------------------------------------------------------------------
run_dir="$work/run"
run_limit=$(( $(left) - 40 ))   # the report and the packing
run_rc=1
if (( ${#tricks[@]} == 0 )); then
  note "no trick to run"
elif (( run_limit < 30 )); then
  note "no time left to run the tricks (${run_limit}s)"
else
  note "tricks: ${#tricks[@]} (${#gpu_first[@]} with device code first), 1 process x $rounds rounds of ${min_time}s, ${trick_timeout}s each, ${run_limit}s in all"
  step_start=$(date +%s)
  # run_all rewrites index.json after each trick: a run cut short keeps what it measured.
  bounded "$run_limit" "$build_dir/run_all" "${tricks[@]}" --out_dir="$run_dir" --processes=1 \
    --rounds="$rounds" --min_time="$min_time" --timeout="$trick_timeout" > "$work/run_all.log" 2>&1
  run_rc=$?
  note "run_all: exit $run_rc in $(( $(date +%s) - step_start ))s$( (( run_rc == 124 || run_rc == 137 )) && echo ' (cut at the deadline: the tricks after it did not run)')"
fi

# --- 5. the report ----------------------------------------------------------------------
if [[ -f "$run_dir/index.json" ]]; then
  bounded 30 "$build_dir/report" "$run_dir" --out_dir="$work" > "$work/report.log" 2>&1 ||
    note "the report failed: report.log in the archive"
  python3 - "$run_dir/index.json" >> "$summary" 2>&1 <<'EOF'
import collections, json, sys
index = json.load(open(sys.argv[1]))
counts = collections.Counter(t["outcome"] for t in index["tricks"])
print("tricks: " + ", ".join("%d %s" % (n, o) for o, n in sorted(counts.items()))
      + ("" if index.get("complete") else " (run cut short)"))
for t in index["tricks"]:
    if t["outcome"] not in ("ok", "skipped"):
        print("  %-26s %-8s %s" % (t["id"], t["outcome"], t["reason"][:200]))
EOF
fi
(( run_rc == 0 && build_failures == 0 )) && exit 0
exit 1
