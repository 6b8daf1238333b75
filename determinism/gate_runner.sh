#!/usr/bin/env bash
# The reproducibility gate around a user's training binary (defs.bzl reproducibility_test
# runs it as a test). Runs the binary in fresh processes with the same seed, each writing
# its trace to $TRICKBENCH_TRACE, and compares every run with the first using the trace
# diff (//determinism:diff), tier by tier:
#   fresh processes   --runs=N copies of the base run: bitwise
#   worker counts     --workers=A,B,..: $TRICKBENCH_LOADER_WORKERS set to each: bitwise
#   thread counts     --threads=A,B,..: $TRICKBENCH_THREADS set to each: within
#                     --rtol/--atol (a reduction split over more threads adds in another
#                     order), reported as "within tolerance, not bitwise" when that is so
#   cost              --determinism_cost: one more fresh process ($TRICKBENCH_DETERMINISM_COST=1)
#                     that times its step with and without deterministic mode after the
#                     last step; compared bitwise like the others, and its cost printed
#   resumes           --resume_at=K,..: for each K, a run stopped after step K with a
#                     checkpoint ($TRICKBENCH_CHECKPOINT, $TRICKBENCH_STOP_AFTER_STEP=K),
#                     then a run resumed from it ($TRICKBENCH_RESUME=1), whose steps K+1..
#                     must equal the base run's: bitwise (determinism/gate_request.h)
# The base run uses the first value of each list. A tier that diverges at step S is run
# again, both sides, recording step S's ops, so the report names the first op whose
# output differs. Exit 0 when every tier holds, 1 with every failing tier's divergence
# report, 2 on bad usage.
#
#   gate_runner.sh --binary=PATH --diff=PATH [--runs=2] [--workers=0,2] [--threads=1,2]
#                  [--resume_at=3,5] [--determinism_cost] [--rtol=1e-5] [--atol=1e-8]
#                  [-- ARGS for the binary]
set -uo pipefail

binary="" diff="" runs=2 workers="" threads="" resume_at="" cost=0 rtol=1e-5 atol=1e-8
binary_args=()
while (($#)); do
  case $1 in
    --binary=*) binary=${1#*=} ;;
    --diff=*) diff=${1#*=} ;;
    --runs=*) runs=${1#*=} ;;
    --workers=*) workers=${1#*=} ;;
    --threads=*) threads=${1#*=} ;;
    --resume_at=*) resume_at=${1#*=} ;;
    --determinism_cost) cost=1 ;;
    --rtol=*) rtol=${1#*=} ;;
    --atol=*) atol=${1#*=} ;;
    --) shift; binary_args=("$@"); break ;;
    *) echo "gate_runner: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
if [[ -z $binary || -z $diff ]]; then
  echo "gate_runner: --binary and --diff are required" >&2
  exit 2
fi
if ! [[ $runs =~ ^[0-9]+$ ]] || ((runs < 2)); then
  echo "gate_runner: --runs=$runs: expected an integer >= 2" >&2
  exit 2
fi
for list in "$workers" "$threads" "$resume_at"; do
  if [[ -n $list && ! $list =~ ^[0-9]+(,[0-9]+)*$ ]]; then
    echo "gate_runner: '$list': expected comma-separated counts" >&2
    exit 2
  fi
done

out=${TEST_UNDECLARED_OUTPUTS_DIR:-${TEST_TMPDIR:-$(mktemp -d)}}
mkdir -p "$out"
IFS=, read -r -a worker_list <<<"$workers"
IFS=, read -r -a thread_list <<<"$threads"
IFS=, read -r -a resume_list <<<"$resume_at"
base_env=()
((${#worker_list[@]})) && base_env+=("TRICKBENCH_LOADER_WORKERS=${worker_list[0]}")
((${#thread_list[@]})) && base_env+=("TRICKBENCH_THREADS=${thread_list[0]}")

# run NAME [VAR=VALUE ...]: one fresh process of the binary, its trace at $out/NAME.json.
run() {
  local name=$1
  shift
  if ! env "${base_env[@]}" "$@" TRICKBENCH_TRACE="$out/$name.json" "$binary" \
    "${binary_args[@]}" >"$out/$name.log" 2>&1; then
    echo "gate: the run '$name' failed ($*):"
    tail -n 20 "$out/$name.log"
    return 1
  fi
}

failed=0
# check TIER NAME "VAR=VALUE ..." [diff flags]: runs NAME with those variables and diffs
# its trace against the base run's. A tier that diverged at step S runs both sides again
# recording step S's ops ($TRICKBENCH_OP_TRACE_STEP; a resumed side resumes from the same
# checkpoint), and that diff names the first op that differs.
check() {
  local tier=$1 name=$2 vars=$3 report step
  shift 3
  # shellcheck disable=SC2086  # $vars: zero or more VAR=VALUE words
  run "$name" $vars || { failed=1; return; }
  report=$("$diff" "$out/base.json" "$out/$name.json" "$@" 2>&1)
  case $? in
    0) echo "ok    $tier: $name ($(grep -m1 -o 'bitwise equal\|within tolerance, not bitwise' <<<"$report"))"
       grep '^determinism cost' <<<"$report" | sed 's/^/      /'
       return ;;
    1) echo "FAIL  $tier: $name" ;;
    *) echo "ERROR $tier: $name"; sed 's/^/      /' <<<"$report"; failed=1; return ;;
  esac
  failed=1
  step=$(grep -m1 -o 'runs diverged at step [0-9]*' <<<"$report" | grep -o '[0-9]*$')
  # shellcheck disable=SC2086
  if [[ -n $step ]] &&
    { [[ -f $out/base_ops$step.json ]] || run "base_ops$step" TRICKBENCH_OP_TRACE_STEP="$step"; } &&
    run "${name}_ops$step" $vars TRICKBENCH_OP_TRACE_STEP="$step"; then
    report=$("$diff" "$out/base_ops$step.json" "$out/${name}_ops$step.json" "$@" 2>&1)
  fi
  sed 's/^/      /' <<<"$report"
}

run base || exit 1
for ((k = 2; k <= runs; ++k)); do
  check "fresh processes" "run$k" ""
done
if ((cost)); then
  check "fresh processes" "cost" "TRICKBENCH_DETERMINISM_COST=1"
fi
for w in "${worker_list[@]:1}"; do
  check "worker count" "workers$w" "TRICKBENCH_LOADER_WORKERS=$w"
done
for t in "${thread_list[@]:1}"; do
  check "thread count" "threads$t" "TRICKBENCH_THREADS=$t" --rtol="$rtol" --atol="$atol"
done
for k in "${resume_list[@]}"; do
  checkpoint="$out/checkpoint$k"
  mkdir -p "$checkpoint"
  if ! run "stop$k" TRICKBENCH_CHECKPOINT="$checkpoint" TRICKBENCH_STOP_AFTER_STEP="$k"; then
    failed=1
    continue
  fi
  check "resume" "resume$k" "TRICKBENCH_CHECKPOINT=$checkpoint TRICKBENCH_RESUME=1" \
    --from_step=$((k + 1))
done
echo "gate: traces in $out"
exit $failed
