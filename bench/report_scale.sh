#!/usr/bin/env bash
# bench/report_scale.sh - cuprof-report at scale (issue 40): seconds, peak
# RSS and events per second at several run sizes, CUPTI off and on, this
# checkout against another's cuprof-report (a "before"), interleaved.
#
#   bench/report_scale.sh [--before DIR] [--runs K] [--keep DIR] SIZE...
#
# SIZE: Noff (N million launches recorded by build/bench/write_bench, CUPTI
# off) or Non (N million cudaLaunchKernel calls of build/bench/calls on the
# simulated device with its CUPTI: a kernel record, a runtime-API record and
# a correlation per launch). Each run file is made once, then reported K
# times (default 3) by each cuprof-report, one after the other, into a
# scratch directory (the spill file goes beside the run file); prints one
# line per size and tool: the median seconds, user and system seconds,
# peak RSS, events per second (events: the calls, plus the GPU records
# with CUPTI on: summary.json's gpu.records), and what the spill file held (tools/bigmem.h)
# and how long the reading took (the stats line's stages). DIR's
# build/cuprof-report is the before (skipped for a size when its memory
# would not fit: 80 bytes a call, 370 a launch with CUPTI, over 3/4 of
# MemAvailable; never for a before that spills, tools/bigmem.h). Manual: a 50 M-launch run file with CUPTI takes minutes to
# record and ~25 GB of disk to report.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
before= runs=3 keep=
while [ $# -gt 0 ]; do
  case $1 in
    --before) before=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "usage: $0 [--before DIR] [--runs K] [--keep DIR] SIZE... (10off, 1on, ...)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "cuprof: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }
for f in "$top/build/cuprof-report" "$top/build/bench/write_bench" "$top/build/bench/calls"; do
  [ -x "$f" ] || { echo "cuprof: $f is missing: build first (make)" >&2; exit 2; }
done
work=${keep:-$(mktemp -d "${TMPDIR:-/tmp}/cuprof-scale.XXXXXX")}
mkdir -p "$work"
[ -n "$keep" ] || trap 'rm -rf "$work"' EXIT
avail_kb=$(awk '/MemAvailable/{print $2}' /proc/meminfo)

make_run() {   # SIZE -> path of its run file
  local size=$1 m=${1%o*} kind=${1#"${1%o*}"} d="$work/$1"
  if [ ! -f "$d/x.cuprof" ]; then
    mkdir -p "$d"
    if [ "$kind" = off ]; then
      CUPROF_OUT_DIR="$d" CUPROF_NAME=x \
        "$top/build/bench/write_bench" $((m * 1000000)) >/dev/null 2>&1
    else
      LD_LIBRARY_PATH="$top/build/sim" CUSIM_LAUNCH_CPU_NS=0 CUPROF_QUIET=1 \
        CUPROF_GPU=1 "$top/prof.sh" -q -o "$d" -n x -- \
        "$top/build/bench/calls" --api launch --n $((m * 1000000)) --warmup 0 >/dev/null 2>&1
    fi
    rm -f "$d"/x.summary.* "$d"/x.*trace* "$d"/x.report.html
  fi
  echo "$d/x.cuprof"
}

one() {   # TOOL RUNFILE OUT -> "s user sys rss_kb events spill"
  local out=$3
  rm -rf "$out"
  # each run from a clean page cache's point of view: the last run's dirty
  # pages (its outputs) written first, so no run pays for another's writeback
  sync; sleep 1
  local line
  line=$( { CUPROF_REPORT_BIGMEM_STATS=1 /usr/bin/time -f 'T %e %U %S %M' "$1" -o "$out" "$2" \
            >/dev/null; } 2>&1 | tr '\n' ' ')
  local t ev sp
  t=$(sed -n 's/.*T \([0-9.]*\) \([0-9.]*\) \([0-9.]*\) \([0-9]*\).*/\1 \2 \3 \4/p' <<<"$line")
  ev=$(grep -o '"events":[0-9]*' "$out/x.summary.json" | head -1 | cut -d: -f2)
  local gk gc ga
  gk=$(grep -o '"records":[0-9]*' "$out/x.summary.json" | head -1 | cut -d: -f2 || true)
  sp=$(sed -n 's/.*spill: allocs=[0-9]* fallbacks=[0-9]* peak_mb=\([0-9.]*\).*trims=\([0-9]*\).*/\1MB,\2trims/p' <<<"$line")
  grep -q 'random=1' <<<"$line" && sp="$sp,no-readahead"
  # the reading's share (the stats line's stages: tools/report.c)
  local rd
  rd=$(sed -n 's/.*stages: read=\([0-9.]*\).*/\1/p' <<<"$line")
  [ -n "$rd" ] && [ -n "$sp" ] && sp="$sp,read=${rd}s"
  echo "$t ${ev:-0} ${gk:-0} ${sp:--}"
}

median() { sort -n | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}'; }

printf '%-7s %-7s %8s %7s %7s %9s %12s %s\n' size tool seconds user sys rss_MB events/s spill
for size in "$@"; do
  rf=$(make_run "$size")
  [ -f "$rf" ] || { echo "cuprof: no run file for $size" >&2; exit 1; }
  m=${size%o*}
  tools="after:$top/build/cuprof-report"
  if [ -n "$before" ]; then
    per=80; [ "${size#*o}" = n ] && per=370
    need_kb=$((m * 1000000 * per / 1024))
    # a before that spills its model past a budget (tools/bigmem.h; it reads
    # CUPROF_REPORT_RSS_MB) fits whatever the size
    if grep -q CUPROF_REPORT_RSS_MB "$before/build/cuprof-report" 2>/dev/null || \
       [ "$need_kb" -lt $((avail_kb * 3 / 4)) ]; then
      tools="before:$before/build/cuprof-report $tools"
    else
      echo "$size: before skipped (needs ~$((need_kb / 1024)) MB, $((avail_kb / 1024)) MB available)"
    fi
  fi
  declare -A S U Y R E
  for tl in $tools; do S[${tl%%:*}]= U[${tl%%:*}]= Y[${tl%%:*}]= R[${tl%%:*}]= E[${tl%%:*}]=; done
  for ((k = 0; k < runs; k++)); do
    for tl in $tools; do
      name=${tl%%:*} tool=${tl#*:}
      read -r s u y r ev gk sp < <(one "$tool" "$rf" "$work/out.$name")
      S[$name]+="$s " U[$name]+="$u " Y[$name]+="$y " R[$name]+="$r "
      E[$name]=$((ev + gk)) SP=$sp
    done
  done
  for tl in $tools; do
    name=${tl%%:*}
    s=$(tr ' ' '\n' <<<"${S[$name]}" | grep . | median)
    u=$(tr ' ' '\n' <<<"${U[$name]}" | grep . | median)
    y=$(tr ' ' '\n' <<<"${Y[$name]}" | grep . | median)
    r=$(tr ' ' '\n' <<<"${R[$name]}" | grep . | sort -n | tail -1)
    printf '%-7s %-7s %8s %7s %7s %9.0f %12.0f %s\n' "$size" "$name" "$s" "$u" "$y" \
      "$(awk -v r="$r" 'BEGIN{print r / 1024}')" \
      "$(awk -v e="${E[$name]}" -v s="$s" 'BEGIN{print (s > 0 ? e / s : 0)}')" \
      "$([ "$name" = after ] && echo "${SP:--}" || echo -)"
  done
  unset S U Y R E
done
