#!/usr/bin/env bash
# bench/gpu_records.sh - what the GPU timeline costs in the run file (manual,
# issue 40.4; about a minute for a million launches on this machine).
#
#   bench/gpu_records.sh [LAUNCHES] [TOP]    (default 1000000, this checkout)
#
# Records LAUNCHES cudaLaunchKernel calls on one thread (build/bench/calls on
# the simulated device, CUPROF_FORMAT=none) twice: with the sim's CUPTI off
# and on. Prints the run file's bytes per launch each way (their difference
# is what the GPU records take: a kernel record, a runtime-API record and
# the correlation for each launch), then runs cuprof-report on the CUPTI run
# file under /usr/bin/time, with the summaries only and with the default
# trace (Perfetto past a million events), and prints its seconds and peak
# RSS, and the program's own ns per launch each way (the GPU records are
# encoded on CUPTI's thread, which shares the machine's cores). TOP names another checkout's build (a "before" to compare with: run
# both one after the other on the same machine).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-1000000}
top=${2:-$here}
B="$top/build"
for f in "$here/build/bench/calls" "$B/libcuprof.so" "$B/cuprof-report" "$top/prof.sh"; do
  [ -e "$f" ] || { echo "cuprof: $f is missing: build first (make)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "cuprof: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/cuprof-gpurec.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

record() {   # record GPU NAME: the run file's bytes
  LD_LIBRARY_PATH="$here/build/sim" CUSIM_LAUNCH_CPU_NS=0 CUPROF_FORMAT=none CUPROF_QUIET=1 \
    CUPROF_GPU="$1" CUPROF_REPORT_HTML=0 \
    "$top/prof.sh" -q -o "$tmp" -n "$2" -- "$here/build/bench/calls" --api launch --n "$n" --warmup 0 \
    >"$tmp/$2.out" 2>"$tmp/err" || { echo "cuprof: the $n-launch run failed:" >&2; cat "$tmp/err" >&2; exit 1; }
  [ -f "$tmp/$2.cuprof" ] || { echo "cuprof: no run file $tmp/$2.cuprof" >&2; exit 1; }
  stat -c %s "$tmp/$2.cuprof"
}
off=$(record 0 off)
on=$(record 1 on)
per() { awk -v b="$1" -v n="$n" 'BEGIN{printf "%.1f", b / n}'; }
echo "launches=$n top=$top"
echo "run_file_cupti_off_bytes=$off per_launch=$(per "$off")"
echo "run_file_cupti_on_bytes=$on per_launch=$(per "$on")"
echo "gpu_records_per_launch=$(per $((on - off)))"
ns() { sed -n 's/.*ns_per_call=\([0-9.]*\).*/\1/p' "$tmp/$1.out"; }
echo "program_ns_per_launch cupti_off=$(ns off) cupti_on=$(ns on)"
report() {   # report LABEL ARGS...: seconds and peak RSS of cuprof-report on the CUPTI run
  local label=$1
  shift
  rm -rf "$tmp/o"
  mkdir -p "$tmp/o"
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$B/cuprof-report" -o "$tmp/o" -n r "$@" \
    "$tmp/on.cuprof" >/dev/null 2>"$tmp/rerr" || { echo "cuprof: cuprof-report failed:" >&2; cat "$tmp/rerr" >&2; exit 1; }
  read -r s kb <"$tmp/time"
  echo "report_$label s=$s peak_rss_mb=$((kb / 1024))"
}
report summaries --format none
report trace
