#!/usr/bin/env bash
# bench/py_stacks.sh - what Python frames cost under --stacks (issue 39),
# beside native frame-pointer stacks at the same depth, on the simulated
# device. bench/run.sh runs it (not --quick) and puts its table in
# RESULTS.md; alone it prints the table.
#
#   bench/py_stacks.sh [--repeats R] [--n N]
#
# A C extension (bench/py_calls.c, built here against the interpreter's
# headers) makes N cudaLaunchKernel calls in a C loop, called from a
# recursive Python function D deep (bench/py_calls.py; D + 2 Python frames
# with main and <module>), D = 10 and 30; each launch's stack is taken with
# its Python frames. Per repeat, interleaved, against that repeat's run with
# no hook: cuprof without stacks; --stacks=fp (the native walk stops at the
# interpreter, which keeps no frame pointers: the extension's frames, then
# the Python ones); --stacks (auto: libunwind through the interpreter, the
# Python frames spliced in); the same with CUPROF_STACKS_PYTHON=0 (native
# frames only). Beside them bench/calls --depth D (C, frame pointers) without
# stacks and with --stacks=fp. The Python frames' own cost: auto minus auto
# with CUPROF_STACKS_PYTHON=0, per repeat.
#
# Environment: BENCH_PYTHON (default: the newest pyenv 3.12, else 3.13, 3.11,
# 3.10, else python3), BENCH_PY_N (500000), BENCH_REPEATS (5).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
N=${BENCH_PY_N:-500000}
REPEATS=${BENCH_REPEATS:-5}
while [ $# -gt 0 ]; do
  case "$1" in
    --repeats) REPEATS=$2; shift ;;
    --n) N=$2; shift ;;
    *) echo "usage: bench/py_stacks.sh [--repeats R] [--n N]" >&2; exit 2 ;;
  esac
  shift
done
WARMUP=10000
B="$top/build"
LIB="$B/libcuprof.so"
CALLS="$B/bench/calls"
for f in "$LIB" "$CALLS" "$B/sim/libcudart.so.13"; do
  [ -e "$f" ] || { echo "py_stacks: $f is missing; run make first" >&2; exit 1; }
done
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}

py=${BENCH_PYTHON:-}
if [ -z "$py" ]; then
  root=${PYENV_ROOT:-$HOME/.pyenv}
  for m in 12 13 11 10; do
    py=$(ls -d "$root"/versions/3.$m.*/bin/python3 2>/dev/null | sort -V | tail -1)
    [ -n "$py" ] && break
  done
  [ -n "$py" ] || py=$(command -v python3)
fi
[ -n "$py" ] || { echo "py_stacks: no Python found (BENCH_PYTHON)" >&2; exit 1; }
pyver=$("$py" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
inc=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')

tmp=$(mktemp -d /tmp/cuprof-pybench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cc -shared -fPIC -O2 -g -fno-omit-frame-pointer -I"$inc" -I"$CUDA_HOME/include" \
   -o "$tmp/pycalls.so" bench/py_calls.c -L"$CUDA_HOME/lib64" -lcudart ||
  { echo "py_stacks: the extension did not build against $inc" >&2; exit 1; }
export LD_LIBRARY_PATH="$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CUSIM_LAUNCH_CPU_NS=0
unset CUDA_INJECTION64_PATH

# one run: prints ns per call
run() {  # kind(py|c) depth cfg
  local kind=$1 d=$2 cfg=$3 line env=()
  case $cfg in
    none) ;;
    cuprof) env=(LD_PRELOAD="$LIB" CUPROF_STACKS=0) ;;
    fp) env=(LD_PRELOAD="$LIB" CUPROF_STACKS=fp) ;;
    auto) env=(LD_PRELOAD="$LIB" CUPROF_STACKS=auto) ;;
    auto_nopy) env=(LD_PRELOAD="$LIB" CUPROF_STACKS=auto CUPROF_STACKS_PYTHON=0) ;;
  esac
  rm -rf "$tmp/out"
  if [ "$kind" = py ]; then
    line=$(env "${env[@]}" CUPROF_GPU=0 CUPROF_QUIET=1 CUPROF_OUT_DIR="$tmp/out" CUPROF_NAME=run \
           "$py" bench/py_calls.py "$tmp" "$d" "$N" "$WARMUP")
  else
    line=$(env "${env[@]}" CUPROF_GPU=0 CUPROF_QUIET=1 CUPROF_OUT_DIR="$tmp/out" CUPROF_NAME=run \
           "$CALLS" --api launch --depth "$d" --n "$N" --warmup "$WARMUP")
  fi
  sed -n 's/.*ns_per_call=\([0-9.]*\).*/\1/p' <<<"$line"
}

stats() {
  sort -g | awk '{v[NR]=$1} END {
    if (NR == 0) { print "nan nan nan"; exit }
    m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2
    printf "%.2f %.2f %.2f\n", m, v[1], v[NR] }'
}

declare -A added base abs
PY_CFGS="cuprof fp auto auto_nopy"
C_CFGS="cuprof fp"
echo "py_stacks: Python $pyver ($py), N=$N, $REPEATS repeats" >&2
for rep in $(seq 1 "$REPEATS"); do
  for d in 10 30; do
    b=$(run py "$d" none); base[py$d]+="$b"$'\n'
    declare -A this=()
    for cfg in $PY_CFGS; do
      ns=$(run py "$d" "$cfg")
      abs[py$d.$cfg]+="$ns"$'\n'
      this[$cfg]=$(awk -v x="$ns" -v y="$b" 'BEGIN{printf "%.2f", x - y}')
      added[py$d.$cfg]+="${this[$cfg]}"$'\n'
    done
    added[py$d.pyown]+="$(awk -v a="${this[auto]}" -v b="${this[auto_nopy]}" 'BEGIN{printf "%.2f", a - b}')"$'\n'
    unset this
    b=$(run c "$d" none); base[c$d]+="$b"$'\n'
    for cfg in $C_CFGS; do
      ns=$(run c "$d" "$cfg")
      abs[c$d.$cfg]+="$ns"$'\n'
      added[c$d.$cfg]+="$(awk -v x="$ns" -v y="$b" 'BEGIN{printf "%.2f", x - y}')"$'\n'
    done
  done
  echo "py_stacks: repeat $rep/$REPEATS done" >&2
done

minof() { printf '%s' "${1:-}" | grep -v '^$' | sort -g | head -1; }
# fastest: a configuration's fastest repeat minus the fastest run with no hook
# (noise on a shared machine only ever adds time)
fastest() {  # kind depth cfg
  awk -v c="$(minof "${abs[$1$2.$3]:-}")" -v b="$(minof "${base[$1$2]:-}")" 'BEGIN{printf "%.2f", c - b}'
}
row() {  # kind depth cfg label
  local s; s=$(printf '%s' "${added[$1$2.$3]:-}" | grep -v '^$' | stats)
  printf '| %-50s | %8s | %8s | %8s | %8s |\n' "$4" $s "$(fastest "$1" "$2" "$3")"
}
echo "## Python frames under --stacks (bench/py_stacks.sh: Python $pyver; added ns per call)"
echo
echo "A C extension launching N=$N times in a C loop from a recursive Python function D deep"
echo "(bench/py_calls.c, .py), beside bench/calls --depth D (C, frame pointers), each against"
echo "its own run with no hook in the same repeat: median, min and max of $REPEATS repeats, and"
echo "from the fastest repeats (a configuration's fastest minus the fastest with no hook)."
echo
echo "| configuration                                      |   median |      min |      max |  fastest |"
echo "|----------------------------------------------------|----------|----------|----------|----------|"
for d in 10 30; do
  printf '| %-50s | %8s | %8s | %8s | %8s |\n' "Python depth $d: no hook (ns per call)" \
    $(printf '%s' "${base[py$d]}" | grep -v '^$' | stats) "$(minof "${base[py$d]}")"
  row py $d cuprof "Python depth $d: cuprof, no stacks"
  row py $d fp "Python depth $d: --stacks=fp, Python frames"
  row py $d auto "Python depth $d: --stacks (auto), Python frames"
  row py $d auto_nopy "Python depth $d: --stacks, CUPROF_STACKS_PYTHON=0"
  s=$(printf '%s' "${added[py$d.pyown]:-}" | grep -v '^$' | stats)
  printf '| %-50s | %8s | %8s | %8s | %8s |\n' "Python depth $d: the Python frames' own (auto - =0)" $s \
    "$(awk -v a="$(minof "${abs[py$d.auto]}")" -v b="$(minof "${abs[py$d.auto_nopy]}")" 'BEGIN{printf "%.2f", a - b}')"
  printf '| %-50s | %8s | %8s | %8s | %8s |\n' "C depth $d: no hook (ns per call)" \
    $(printf '%s' "${base[c$d]}" | grep -v '^$' | stats) "$(minof "${base[c$d]}")"
  row c $d cuprof "C depth $d: cuprof, no stacks"
  row c $d fp "C depth $d: --stacks=fp (frame pointers)"
  printf '| %-50s | %8s | %8s | %8s | %8s |\n' "C depth $d: the frame pointers' own (fp - cuprof)" - - - \
    "$(awk -v a="$(minof "${abs[c$d.fp]}")" -v b="$(minof "${abs[c$d.cuprof]}")" 'BEGIN{printf "%.2f", a - b}')"
done
