#!/usr/bin/env bash
# The whole test suite (scripts/test.sh) RUNS times in a row while `stress-ng --cpu 8` loads the
# machine beside it: issue 44's check that no test races a wall clock (a test waits for an event,
# or a guard scaled by tests/support/timing.py, never a fixed deadline). Set up first with
# scripts/setup.sh; stress-ng comes from Debian (`apt-get install stress-ng`).
#
#   bash scripts/test-under-load.sh [RUNS (default 2)] [extra pytest arguments...]
#
# Each run's output goes to .refscore-out/under-load/runN.log and one line per run (exit status,
# seconds, load average at its start and end) to .refscore-out/under-load/summary.txt. On a 2-core
# machine a run takes about three times as long as an idle one, so the hang guards (and
# pytest-timeout's per-test limits) are scaled by REFSCORE_TEST_SLOWDOWN, 3 unless it is set: a guard
# only catches a hang, and no test may depend on one. Exit status: the first failed run's.
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-2}
shift || true
if ! command -v stress-ng >/dev/null 2>&1; then
  echo "test-under-load: stress-ng is not installed (apt-get install stress-ng)" >&2
  exit 2
fi
export REFSCORE_TEST_SLOWDOWN=${REFSCORE_TEST_SLOWDOWN:-3}
out=.refscore-out/under-load
mkdir -p "$out"
: >"$out/summary.txt"
stress-ng --cpu 8 --timeout 0 >"$out/stress-ng.log" 2>&1 &
load_pid=$!
trap 'kill "$load_pid" 2>/dev/null; wait "$load_pid" 2>/dev/null' EXIT
status=0
for ((run = 1; run <= runs; run++)); do
  started=$SECONDS
  before=$(cut -d' ' -f1-3 /proc/loadavg)
  bash scripts/test.sh "$@" >"$out/run$run.log" 2>&1
  code=$?
  line="run $run of $runs: exit $code in $((SECONDS - started)) s, load $before at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
  echo "$line" | tee -a "$out/summary.txt"
  grep -E "^(FAILED|ERROR) " "$out/run$run.log" | tee -a "$out/summary.txt"
  ((code != 0 && status == 0)) && status=$code
done
exit $status
