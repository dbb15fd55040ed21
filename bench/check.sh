#!/usr/bin/env bash
# bench/check.sh - the regression guard run by `make bench-check`: a quick
# benchmark run (bench/run.sh --quick: N=1M calls, 5 repeats, no peers, no
# write test; about 30-40 s) whose ratios are compared with the ones committed
# in bench/RESULTS.md (its fenced json block).
#
# Only ratios measured in one run are compared, never absolute times, so a
# slower or faster machine does not trip it: ns per call with cuprof over ns
# per call with the floor hook (plain, and into fresh memory), the two
# measured in turn in each repeat (cuprof_call_over_*: the steadiest, their
# denominator is a whole call); cuprof's added ns per call over the floor's
# (cuprof_over_*: the floor adds a few ns, so these swing and are mostly
# too noisy to judge); and cuprof's per thread cost with 2 threads over 1.
# Each is taken from every configuration's fastest repeat (the json "robust"
# block: noise on a shared machine only ever adds time, so the minimum is the
# stable estimate). Lower is better for all. A ratio regresses when the new
# one exceeds the committed one by more than the noise AND lies outside the
# committed spread (the new run's fastest repeat slower than the committed
# run's slowest: noise slows some repeats, a regression slows every one).
# The noise: the larger of the two runs' relative spreads of that ratio over
# their repeats ((median - min) / median, the "ratios" block), and at
# least 100% (BENCH_CHECK_MIN_NOISE; 50% for the call ratios,
# BENCH_CHECK_MIN_NOISE_CALL): two quick runs of identical code on
# this 2-vCPU VM moved these ratios by up to 85% (bench/README.md), so the
# guard fails when a ratio more than doubles (e.g. stamps back on
# clock_gettime plus page faults inside the calls: 3x), not on noise. A ratio
# whose spread in either run exceeds 50% (BENCH_CHECK_MAX_SPREAD) is
# reported, not compared:
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
# the call ratios (cuprof_call_over_*) stayed within 0.76-1.08x of the
# committed ones in 20 runs of unchanged code: half the bar catches 1.5x
MIN_NOISE_CALL=${BENCH_CHECK_MIN_NOISE_CALL:-0.5}
MAX_SPREAD=${BENCH_CHECK_MAX_SPREAD:-0.50}

[ -f "$committed" ] || { echo "bench-check: no $committed to compare with (run make bench)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/cuprof-check.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# "key value" lines of a results json's robust block
robust_of() {
  sed -n '/"robust": {/,/}/p' "$1" | grep -v '"robust"' |
    sed -n 's/^ *"\([a-z0-9_.]*\)": \([-0-9.]*\).*/\1 \2/p'
}
# "key min max" of the per-repeat ratios, from the ratios block
range_of() {
  sed -n 's/^ *"\([a-z0-9_.]*\)": \[\([-0-9.]*\), \([-0-9.]*\), \([-0-9.]*\)\].*/\1 \3 \4/p' "$1"
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
range_of "$tmp/old.json" > "$tmp/old.range"
range_of "$new" > "$tmp/new.range"

echo "bench-check: ratio (lower is better)          committed      now   allowed"
fail=0 compared=0
while read -r key old; do
  line=$(grep "^$key " "$tmp/new.txt") || continue
  now=${line#* }
  so=$(awk -v k="$key" '$1 == k {print $2}' "$tmp/old.spread"); so=${so:-0}
  sn=$(awk -v k="$key" '$1 == k {print $2}' "$tmp/new.spread"); sn=${sn:-0}
  omax=$(awk -v k="$key" '$1 == k {print $3}' "$tmp/old.range"); omax=${omax:-0}
  nmin=$(awk -v k="$key" '$1 == k {print $2}' "$tmp/new.range"); nmin=${nmin:-$now}
  fl=$MIN_NOISE; [[ $key == *.cuprof_call_over_* ]] && fl=$MIN_NOISE_CALL
  verdict=$(awk -v o="$old" -v n="$now" -v so="$so" -v sn="$sn" -v floor="$fl" \
                -v maxs="$MAX_SPREAD" -v omax="$omax" -v nmin="$nmin" 'BEGIN {
      if (so > maxs || sn > maxs) { printf "noisy %.2f\n", (so > sn ? so : sn); exit }
      tol = floor; if (so > tol) tol = so; if (sn > tol) tol = sn
      base = (o < 1) ? 1 : o        # ratios near 0 (a floor as slow as cuprof): compare from 1
      allowed = o + base * tol
      # a regression is outside the spread: its fastest repeat beyond the
      # slowest repeat of the committed run (noise slows some repeats, not all)
      if (n > allowed && nmin > omax) v = "REGRESSED"
      else if (n > allowed) v = "ok-in-spread"
      else v = "ok"
      printf "%s %.2f\n", v, allowed }')
  if [ "${verdict%% *}" = noisy ]; then
    printf '  %-40s %8s %8s %8s  not compared: spread %s over repeats\n' "$key" "$old" "$now" "-" "${verdict#* }"
    continue
  fi
  compared=$((compared + 1))
  v=${verdict%% *}
  [ "$v" = ok-in-spread ] && v="ok: beyond allowed, but its fastest repeat ($nmin) is inside the committed repeats (max $omax)"
  printf '  %-40s %8s %8s %8s  %s\n' "$key" "$old" "$now" "${verdict#* }" "$v"
  [ "${verdict%% *}" = REGRESSED ] && fail=1
done < "$tmp/old.txt"

[ $compared -gt 0 ] || { echo "bench-check: no ratio in common with $committed" >&2; exit 2; }
if [ $fail = 1 ]; then
  echo "bench-check: FAILED: a ratio regressed beyond the measured noise (see above)" >&2
  exit 1
fi
echo "bench-check: ok ($compared ratios within noise of $committed)"
