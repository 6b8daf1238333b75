#!/usr/bin/env bash
# The gate seen to pass and to fail: gate_runner.sh around example_training holds for
# the clean training, and each planted bug fails at the tier and step it breaks; bad
# usage exits 2. Args: gate_runner.sh example_training diff.
set -uo pipefail
runner=$1 binary=$2 diff=$3
fails=0

# expect EXIT NEEDLE [env...] -- runner args: runs the gate and checks both.
expect() {
  local want=$1 needle=$2
  shift 2
  local envs=()
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  local out status
  out=$(TEST_UNDECLARED_OUTPUTS_DIR=$(mktemp -d -p "${TEST_TMPDIR:-/tmp}") \
    env "${envs[@]}" "$runner" --binary="$binary" --diff="$diff" "$@" 2>&1)
  status=$?
  if [[ $status != "$want" || $out != *"$needle"* ]]; then
    echo "FAILED: ${envs[*]} $* : exit $status (want $want), output lacks '$needle':"
    echo "$out"
    fails=1
  else
    echo "ok: ${envs[*]:-clean} $* -> exit $status, '$needle'"
  fi
}

expect 0 "ok    fresh processes: run2 (bitwise equal)" -- --runs=2 --workers=2,0 --threads=1
expect 0 "ok    worker count: workers0 (bitwise equal)" -- --workers=2,0
# A missing seed: every fresh process draws other initial weights.
expect 1 "runs diverged at step 0, tensor param:0.weight" TRICKBENCH_EXAMPLE_PLANT=unseeded -- \
  --runs=2
# Augmentation from the global generator: the data depends on the worker count.
expect 1 "FAIL  worker count: workers0" TRICKBENCH_EXAMPLE_PLANT=global_augmentation -- \
  --runs=2 --workers=2,0
# A divergence is rerun recording the diverged step's ops: the report names the first op.
expect 1 "first op whose output differs" TRICKBENCH_EXAMPLE_PLANT=unseeded -- --runs=2
expect 2 "--runs=1: expected an integer >= 2" -- --runs=1
expect 2 "expected comma-separated counts" -- --workers=two
expect 2 "unknown argument" -- --frobnicate
exit $fails
