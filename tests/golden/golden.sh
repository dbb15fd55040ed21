#!/usr/bin/env bash
# tests/golden/golden.sh - the golden tests: profiles bench/matmul_add on the
# simulated device, reduces each output to what must hold from run to run
# (build/tests/golden_normalize) and compares it with tests/golden/expected/.
#
#   golden.sh [MODE...]            check (default: eager addmm fused); exit 1
#                                  and a diff on stderr when one differs
#   golden.sh --update [MODE...]   write the expected files anew (review the
#                                  diff with git before committing it)
#
# Run from anywhere; needs `make` to have built the library, the sim, the
# bench programs and the normalizer.
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$top" || exit 2
update=0
if [ "${1-}" = --update ]; then update=1; shift; fi
modes=${*:-eager addmm fused}
norm=build/tests/golden_normalize
for f in "$norm" bench/matmul_add build/libcuprof.so build/sim/libcudart.so.13; do
  [ -e "$f" ] || { echo "golden: $f is not built: run make first" >&2; exit 2; }
done
out=$(mktemp -d "${TMPDIR:-/tmp}/cuprof-golden.XXXXXX") || exit 2
trap 'rm -rf "$out"' EXIT
mkdir "$out/norm" || exit 2
status=0
for mode in $modes; do
  # Relative paths on purpose: the outputs quote the program and the CUPTI
  # library as they were given, and the expected files must not hold the
  # checkout's path.
  if ! LD_LIBRARY_PATH=build/sim ./prof.sh -q -o "$out" -n "$mode" \
       ./bench/matmul_add --mode "$mode" --size 64 --iters 3 --warmup 1 >"$out/$mode.stdout" 2>&1; then
    echo "golden: matmul_add --mode $mode failed under prof.sh:" >&2
    cat "$out/$mode.stdout" >&2
    status=1
    continue
  fi
  for kind in trace summary json; do
    case $kind in
      trace) file=$out/$mode.trace.json ;;
      summary) file=$out/$mode.summary.txt ;;
      json) file=$out/$mode.summary.json ;;
    esac
    expected=tests/golden/expected/$mode.$kind.txt
    if ! "$norm" "$kind" "$file" >"$out/norm/$mode.$kind.txt"; then
      echo "golden: could not normalize $file" >&2
      status=1
      continue
    fi
    if [ $update = 1 ]; then
      cp "$out/norm/$mode.$kind.txt" "$expected"
      echo "golden: wrote $expected"
    elif ! diff -u "$expected" "$out/norm/$mode.$kind.txt" >&2; then
      echo "golden: $mode's $kind differs from $expected (above: - expected, + this run)" >&2
      status=1
    fi
  done
done
exit $status
