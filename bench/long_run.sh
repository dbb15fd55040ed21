#!/usr/bin/env bash
# bench/long_run.sh - the long-run check of issue 6 (manual: minutes, and
# ~6 GB of disk for 50 million calls: a 3.2 GB spill file and the trace,
# NAME.perfetto-trace past a million calls; 8.5 GB more with CUPROF_FORMAT=json).
#
#   bench/long_run.sh [MILLION_CALLS] [MEM_LIMIT] [DIR]   (default 50 256M a temp dir:
#   256M is CUPROF_MEM_LIMIT's default)
#
# Past a million calls the trace is NAME.perfetto-trace (CUPROF_FORMAT=auto;
# export CUPROF_FORMAT=json for trace.json), counted by build/tests/pfcount.
#
# Runs tests/e2e/robust_prog on the simulated device under prof.sh with
# CUPROF_MEM_LIMIT and CUPROF_GPU=0 (the hooks alone: CUPTI's records are
# not bounded by the limit), MILLION_CALLS million cudaMalloc/cudaFree
# calls on one thread, and checks: the peak resident memory while recording
# (robust_prog's VmHWM just before it exits) stays under the limit plus
# 64 MiB, the summary counts exactly that many calls with none dropped,
# and the trace has one event per call. Prints the numbers; exit 1 on a
# failed check. make test runs the same path with 600 000 calls
# (tests/e2e/test_e2e_robust.c, long_run_spills_nothing_lost).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
millions=${1:-50}
limit=${2:-256M}
dir=${3:-$(mktemp -d)}
calls=$((millions * 1000000))
pairs=$((calls / 2))
prog="$top/build/tests/robust_prog"
[ -x "$prog" ] || { echo "cuprof: build first (make)" >&2; exit 2; }
limit_kb=$(( $(numfmt --from=iec "${limit%B}") / 1024 ))

echo "long run: $calls calls, CUPROF_MEM_LIMIT=$limit, output in $dir"
start=$(date +%s)
err=$(LD_LIBRARY_PATH="$top/build/sim" CUPROF_GPU=0 CUPROF_MEM_LIMIT="$limit" \
      "$top/prof.sh" -o "$dir" -n long "$prog" calls "$pairs" hwm exit 2>&1 >/dev/null) || true
end=$(date +%s)
echo "$err" | sed 's/^/  /'
hwm=$(echo "$err" | sed -n 's/.*hwm_kb=\([0-9]*\).*/\1/p')
sum="$dir/long.summary.json"
[ -f "$sum" ] || { echo "FAIL: no summary written" >&2; exit 1; }
events=$(grep -o '"events":[0-9]*' "$sum" | head -1 | cut -d: -f2)
dropped=$(grep -o '"dropped":[0-9]*' "$sum" | head -1 | cut -d: -f2)
spilled=$(grep -o '"spilled":[0-9]*' "$sum" | head -1 | cut -d: -f2)
# The trace: NAME.perfetto-trace past a million events (CUPROF_FORMAT=auto),
# counted by the tests' decoder; else trace.json's X events.
if [ -f "$dir/long.perfetto-trace" ]; then
  trace="$dir/long.perfetto-trace"
  counts=$("$top/build/tests/pfcount" "$trace") || { echo "FAIL: $trace: $counts" >&2; exit 1; }
  xs=$(sed -n 's/.* calls=\([0-9]*\).*/\1/p' <<<"$counts")
else
  trace="$dir/long.trace.json"
  xs=$(grep -o '"ph":"X"' "$trace" | wc -l)
fi
tbytes=$(stat -c %s "$trace")
echo "  trace $(basename "$trace"): $tbytes bytes, $(awk -v b="$tbytes" -v n="$calls" 'BEGIN{printf "%.1f", b / n}') bytes per call"
echo "  wall $((end - start)) s; peak memory while recording ${hwm} kB (limit ${limit_kb} kB)"
echo "  events $events, dropped $dropped, spilled $spilled, trace events $xs"
ok=1
[ "$events" = "$calls" ] || { echo "FAIL: $events events, want $calls"; ok=0; }
[ "$dropped" = 0 ] || { echo "FAIL: $dropped dropped"; ok=0; }
[ "$xs" = "$calls" ] || { echo "FAIL: $xs trace events, want $calls"; ok=0; }
[ -n "$hwm" ] && [ "$hwm" -lt $((limit_kb + 65536)) ] || { echo "FAIL: peak memory ${hwm} kB over the limit"; ok=0; }
[ $ok = 1 ] && echo "long run: OK"
[ $ok = 1 ]
