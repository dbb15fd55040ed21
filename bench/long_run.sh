#!/usr/bin/env bash
# bench/long_run.sh - the long-run check (manual: minutes, and disk for 50
# million calls: a ~350 MB run file and the trace, NAME.perfetto-trace past a
# million calls; 8.5 GB more with CUPROF_FORMAT=json).
#
#   bench/long_run.sh [MILLION_CALLS] [DIR]   (default 50, a temp dir)
#
# Runs tests/e2e/robust_prog on the simulated device under prof.sh with
# CUPROF_GPU=0 (the hooks alone), MILLION_CALLS million cudaMalloc/cudaFree
# calls on one thread, and checks: the program's peak resident memory while
# recording (robust_prog's VmHWM just before it exits) stays under 64 MiB
# (one 64 KiB chunk per thread goes to the run file as it fills), the
# summary counts exactly that many calls with none dropped, and the trace
# has one event per call. Prints the numbers, with the report's own time
# and peak RSS (cuprof-report run again on the run file under
# /usr/bin/time, with what its spill file held: tools/bigmem.h), which must
# stay at most 256 MB whatever the run's size (issue 40); exit 1 on a
# failed check. make test runs the same path
# with 600 000 calls (tests/e2e/test_e2e_robust.c,
# long_run_to_run_file_nothing_lost).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
millions=${1:-50}
dir=${2:-$(mktemp -d)}
calls=$((millions * 1000000))
pairs=$((calls / 2))
prog="$top/build/tests/robust_prog"
[ -x "$prog" ] || { echo "cuprof: build first (make)" >&2; exit 2; }
limit_kb=65536

echo "long run: $calls calls, output in $dir"
start=$(date +%s)
err=$(LD_LIBRARY_PATH="$top/build/sim" CUPROF_GPU=0 \
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
echo "  run file: $(stat -c %s "$dir/long.cuprof") bytes"
report_limit_kb=262144   # issue 40: the report's peak RSS at most 256 MB, any run size
rep_rss=
if [ -x /usr/bin/time ]; then
  rep=$( { CUPROF_REPORT_BIGMEM_STATS=1 /usr/bin/time -f 'report_s=%e report_rss_kb=%M' \
           "$top/build/cuprof-report" -o "$dir/again" "$dir/long.cuprof" >/dev/null; } 2>&1 |
         grep -E 'report_s=|spill:' | tr '\n' ' ')
  echo "  cuprof-report on it again: $rep"
  rep_rss=$(sed -n 's/.*report_rss_kb=\([0-9]*\).*/\1/p' <<<"$rep")
fi
echo "  events $events, dropped $dropped, spilled $spilled, trace events $xs"
ok=1
[ "$events" = "$calls" ] || { echo "FAIL: $events events, want $calls"; ok=0; }
[ "$dropped" = 0 ] || { echo "FAIL: $dropped dropped"; ok=0; }
[ "$xs" = "$calls" ] || { echo "FAIL: $xs trace events, want $calls"; ok=0; }
[ -n "$hwm" ] && [ "$hwm" -lt "$limit_kb" ] || { echo "FAIL: peak memory ${hwm} kB over ${limit_kb} kB"; ok=0; }
[ -z "$rep_rss" ] || [ "$rep_rss" -le "$report_limit_kb" ] ||
  { echo "FAIL: the report's peak memory ${rep_rss} kB over ${report_limit_kb} kB"; ok=0; }
[ $ok = 1 ] && echo "long run: OK"
[ $ok = 1 ]
