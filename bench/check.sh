#!/usr/bin/env bash
# bench/check.sh - the regression guard run by `make bench-check`: a quick
# benchmark run (bench/run.sh --quick: N=1M calls, 5 repeats, no peers, no
# write test; about 30-40 s) whose ratios are compared with the ones committed
# in bench/RESULTS.md (its fenced json block).
#
# Only ratios measured in one run are compared, never absolute times, so a
# slower or faster machine does not trip it: cuprof's added ns per call over
# the floor's (plain, and into fresh memory) per scenario, and cuprof's per
# thread cost with 2 threads over 1. Each is taken from every configuration's
# fastest repeat (the json "robust" block: noise on a shared machine only
# ever adds time, so the minimum is the stable estimate). Lower is better for
# all. A ratio regresses when the new one exceeds the committed one by more
# than the noise: the larger of the two runs' relative spreads of that ratio
# over their repeats ((median - min) / median, the "ratios" block), and at
# least 100% (BENCH_CHECK_MIN_NOISE): two quick runs of identical code on
# this 2-vCPU VM moved these ratios by up to 85% (bench/README.md), so the
# guard fails when a ratio more than doubles (e.g. stamps back on
# clock_gettime plus page faults inside the calls: 3x), not on noise. A ratio whose spread in
# either run exceeds 50% (BENCH_CHECK_MAX_SPREAD) is reported, not compared:
# on this machine that is the plain floor's (a few ns, so cuprof / floor
# swings several-fold) and 2 threads / 1 (two threads and the prefault helper
# share 2 vCPUs); a guard that trips on noise would be ignored.
# Exit status: 0 no regression, 1 regression (each is named), 2 nothing to
# compare (no committed numbers, or the run failed).
#
#   bench/check.sh [--committed FILE.md] [--new FILE.json]
# --new: compare a results.json already measured instead of running.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
committed="$top/bench/RESULTS.md"
new=""
while [ $# -gt 0 ]; do
  case "$1" in
    --committed) committed=$2; shift ;;
    --new) new=$2; shift ;;
    *) echo "usage: bench/check.sh [--committed FILE.md] [--new FILE.json]" >&2; exit 2 ;;
  esac
  shift
done
MIN_NOISE=${BENCH_CHECK_MIN_NOISE:-1.0}
MAX_SPREAD=${BENCH_CHECK_MAX_SPREAD:-0.50}

[ -f "$committed" ] || { echo "bench-check: no $committed to compare with (run make bench)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/cuprof-check.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# "key value" lines of a results json's robust block
robust_of() {
  sed -n '/"robust": {/,/}/p' "$1" | grep -v '"robust"' |
    sed -n 's/^ *"\([a-z0-9_.]*\)": \([-0-9.]*\).*/\1 \2/p'
}
# "key relative-spread" from the ratios block: (median - min) / median
spread_of() {
  sed -n 's/^ *"\([a-z0-9_.]*\)": \[\([-0-9.]*\), \([-0-9.]*\), \([-0-9.]*\)\].*/\1 \2 \3/p' "$1" |
    awk '{ s = ($2 > 0) ? ($2 - $3) / $2 : 0; printf "%s %.3f\n", $1, s }'
}
sed -n '/^```json$/,/^```$/p' "$committed" | sed '1d;$d' > "$tmp/old.json"
robust_of "$tmp/old.json" | sort > "$tmp/old.txt"
[ -s "$tmp/old.txt" ] || { echo "bench-check: no robust ratios in $committed" >&2; exit 2; }

if [ -z "$new" ]; then
  new="$tmp/new.json"
  bash "$top/bench/run.sh" --quick --no-write --results "" --json "$new" > "$tmp/run.log" 2>&1 ||
    { cat "$tmp/run.log" >&2; echo "bench-check: the quick run failed" >&2; exit 2; }
fi
robust_of "$new" | sort > "$tmp/new.txt"
spread_of "$tmp/old.json" > "$tmp/old.spread"
spread_of "$new" > "$tmp/new.spread"

echo "bench-check: ratio (lower is better)          committed      now   allowed"
fail=0 compared=0
while read -r key old; do
  line=$(grep "^$key " "$tmp/new.txt") || continue
  now=${line#* }
  so=$(awk -v k="$key" '$1 == k {print $2}' "$tmp/old.spread"); so=${so:-0}
  sn=$(awk -v k="$key" '$1 == k {print $2}' "$tmp/new.spread"); sn=${sn:-0}
  verdict=$(awk -v o="$old" -v n="$now" -v so="$so" -v sn="$sn" -v floor="$MIN_NOISE" \
                -v maxs="$MAX_SPREAD" 'BEGIN {
      if (so > maxs || sn > maxs) { printf "noisy %.2f\n", (so > sn ? so : sn); exit }
      tol = floor; if (so > tol) tol = so; if (sn > tol) tol = sn
      base = (o < 1) ? 1 : o        # ratios near 0 (a floor as slow as cuprof): compare from 1
      allowed = o + base * tol
      printf "%s %.2f\n", (n > allowed ? "REGRESSED" : "ok"), allowed }')
  if [ "${verdict%% *}" = noisy ]; then
    printf '  %-40s %8s %8s %8s  not compared: spread %s over repeats\n' "$key" "$old" "$now" "-" "${verdict#* }"
    continue
  fi
  compared=$((compared + 1))
  printf '  %-40s %8s %8s %8s  %s\n' "$key" "$old" "$now" "${verdict#* }" "${verdict%% *}"
  [ "${verdict%% *}" = REGRESSED ] && fail=1
done < "$tmp/old.txt"

[ $compared -gt 0 ] || { echo "bench-check: no ratio in common with $committed" >&2; exit 2; }
if [ $fail = 1 ]; then
  echo "bench-check: FAILED: a ratio regressed beyond the measured noise (see above)" >&2
  exit 1
fi
echo "bench-check: ok ($compared ratios within noise of $committed)"
