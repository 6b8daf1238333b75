#!/usr/bin/env bash
# gate_runner.sh on bad usage (exit 2, saying what was wrong) and around a binary that
# fails (exit 1, naming the run). The runner around a real training, holding and failing
# for each planted cause: examples/my_training/planted_causes_test.sh.
#   gate_runner_test.sh GATE_RUNNER DIFF
set -uo pipefail
runner=$1 diff=$2
fails=0

# expect EXIT NEEDLE RUNNER ARGS...
expect() {
  local want=$1 needle=$2 out status
  shift 2
  out=$(TEST_UNDECLARED_OUTPUTS_DIR=$(mktemp -d -p "${TEST_TMPDIR:-/tmp}") "$runner" "$@" 2>&1)
  status=$?
  if [[ $status != "$want" || $out != *"$needle"* ]]; then
    echo "FAILED: $*: exit $status (want $want), output lacks '$needle':"
    echo "$out"
    fails=1
  else
    echo "ok: $* -> exit $status, '$needle'"
  fi
}

expect 2 "--binary and --diff are required" --diff="$diff"
expect 2 "--runs=1: expected an integer >= 2" --binary=/bin/true --diff="$diff" --runs=1
expect 2 "'two': expected comma-separated counts" --binary=/bin/true --diff="$diff" --workers=two
expect 2 "'3,x': expected comma-separated counts" --binary=/bin/true --diff="$diff" --resume_at=3,x
expect 2 "unknown argument '--frobnicate'" --binary=/bin/true --diff="$diff" --frobnicate
expect 1 "gate: the run 'base' failed" --binary=/bin/false --diff="$diff"
exit $fails
