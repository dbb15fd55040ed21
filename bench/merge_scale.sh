#!/usr/bin/env bash
# bench/merge_scale.sh N [MERGE-OPTIONS...]: prof.sh merge at scale. Makes a
# synthetic job of N ranks without running N processes (build/bench/
# merge_scale, bench/merge_scale.c: each rank the size of a real one, 200
# steps, 100 000 calls with their GPU records, 8 ranks a host, one slow
# rank), merges it with build/cuprof-merge --html, and prints one line:
#
#   merge_scale ranks=N seconds=S peak_rss_kb=K straggler=R
#
# (the merge's wall time and peak RSS, the rank its straggler finding
# names). Exit 0 when that is the slow rank. The job is made in a temporary
# directory under $TMPDIR (about N x 110 KB and 60 MB), removed at the end
# unless MERGE_SCALE_KEEP=DIR names where to make it instead.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-}
if ! [[ $n =~ ^[1-9][0-9]{0,5}$ ]]; then
  echo "cuprof: merge_scale.sh: usage: bench/merge_scale.sh N [MERGE-OPTIONS...] (N ranks, 1 or more)" >&2
  exit 2
fi
shift
for b in "$top/build/bench/merge_scale" "$top/build/cuprof-merge"; do
  [ -x "$b" ] || { echo "cuprof: merge_scale.sh: $b is not built (run make in $top)" >&2; exit 2; }
done
if [ -n "${MERGE_SCALE_KEEP:-}" ]; then
  dir=$MERGE_SCALE_KEEP
  mkdir -p "$dir"
else
  dir=$(mktemp -d "${TMPDIR:-/tmp}/cuprof-merge-scale.XXXXXX")
  trap 'rm -rf "$dir"' EXIT
fi
"$top/build/bench/merge_scale" "$n" "$dir" "$top/build/cuprof-merge" --html "$@" "$dir"
