#!/usr/bin/env bash
# bench/run.sh - cuprof's overhead benchmarks, run by `make bench`.
#
#   bench/run.sh [--quick] [--results FILE.md] [--json FILE.json] [--no-write]
#
# Everything is measured in one run on this machine, on the simulated device
# (LD_LIBRARY_PATH=build/sim, CUSIM_LAUNCH_CPU_NS=0, so a launch costs the
# sim's few tens of ns and what a hook adds stands out):
#   1. added cost per call, ns: bench/calls (N calls per thread, timed in the
#      program) without any hook and with each of: the floor
#      (build/bench/libfloor_hook.so), the floor into fresh memory
#      (libfloor_fresh.so), cuprof with CUPTI off (CUPROF_GPU=0), uftrace
#      (library-call tracing) and ltrace where installed, cuprof with CUPTI
#      on (the sim's CUPTI: measures the sim too), in each mode (all records,
#      and --gpu kernels). (with - without) / N, per
#      repeat against that repeat's own no-hook run; median, min, max over
#      BENCH_REPEATS repeats, the configurations interleaved within a repeat.
#   2. memory per event: the compact records' bytes per event (summary.json's
#      overhead.bytes_per_event), the peak RSS when the calls are done (with -
#      without, / events), the trace's bytes per event (the Perfetto trace:
#      these runs are past the million events where JSON stops), the peak RSS of 10
#      million launches (not --quick);
#   3. exit-time cost: bench/write_bench fills the collector with 1, 10 and
#      50 million launch events and times cuprof_collector_finish (the atexit
#      path: stamps to ns, run build, aggregation, trace.json, summary.txt,
#      summary.json), in events per second; and the trace's own share, as
#      JSON and as Perfetto, against the same exit path with no trace.
#   4. (not --quick) the HTML report of BENCH_HTML_N (10000000; 0: skip)
#      calls: its cost, its size and its load time in Chromium
#      (bench/report_html.sh).
#   5. (not --quick) Python frames under --stacks (bench/py_stacks.sh; BENCH_PY=0
#      skips it).
# Prints a table and writes the results (RESULTS.md by default, with a
# fenced json block that bench/check.sh compares against).
#
# Environment: BENCH_N (calls per thread, default 2000000), BENCH_REPEATS (5),
# BENCH_WRITE_SIZES ("1000000 10000000 50000000"), BENCH_WRITE_REPEATS (3),
# BENCH_TMP (scratch
# directory, default a fresh one under /tmp). --quick: N=1000000, 5 repeats, no
# peers, no CUPTI, no launch_2t, write sizes "1000000" (what bench/check.sh
# runs).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

quick=0
results="$top/bench/RESULTS.md"
json=""
do_write=1
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --results) results=$2; shift ;;
    --json) json=$2; shift ;;
    --no-write) do_write=0 ;;
    *) echo "usage: bench/run.sh [--quick] [--results FILE.md] [--json FILE] [--no-write]" >&2; exit 2 ;;
  esac
  shift
done

if [ $quick = 1 ]; then
  N=${BENCH_N:-1000000}; REPEATS=${BENCH_REPEATS:-5}; WRITE_SIZES=${BENCH_WRITE_SIZES:-1000000}
else
  N=${BENCH_N:-2000000}; REPEATS=${BENCH_REPEATS:-5}
  WRITE_SIZES=${BENCH_WRITE_SIZES:-"1000000 10000000 50000000"}
fi
WARMUP=10000

B="$top/build"
CALLS="$B/bench/calls"
LIB="$B/libcuprof.so"
FLOOR="$B/bench/libfloor_hook.so"
FLOOR_FRESH="$B/bench/libfloor_fresh.so"
WRITE_BENCH="$B/bench/write_bench"
for f in "$CALLS" "$LIB" "$FLOOR" "$FLOOR_FRESH" "$WRITE_BENCH" "$B/sim/libcudart.so.13"; do
  [ -e "$f" ] || { echo "bench: $f is missing; run make first" >&2; exit 1; }
done

tmp=${BENCH_TMP:-$(mktemp -d /tmp/cuprof-bench.XXXXXX)}
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
export LD_LIBRARY_PATH="$B/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CUSIM_LAUNCH_CPU_NS=0
unset CUDA_INJECTION64_PATH

notes=()

# ---- peers: uftrace and ltrace from Debian -----------------------------------
have_uftrace=0 have_ltrace=0
if [ $quick = 0 ]; then
  if ! command -v uftrace >/dev/null || ! command -v ltrace >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "bench: installing uftrace and ltrace (apt-get) for the peer comparison" >&2
      apt-get install -y -q uftrace ltrace >/dev/null 2>&1 ||
        { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q uftrace ltrace >/dev/null 2>&1; }
    fi
  fi
  command -v uftrace >/dev/null && have_uftrace=1 || notes+=("uftrace not installed (not root, or apt-get failed): no uftrace column")
  command -v ltrace >/dev/null && have_ltrace=1 || notes+=("ltrace not installed: no ltrace column")
  command -v latrace >/dev/null || notes+=("latrace: not packaged in this Debian release, not measured")
fi
LTRACE_N=2000   # ltrace costs ~0.3 ms per call: fewer calls, same per-call figure

# ---- one measurement ---------------------------------------------------------
# run_calls CONFIG API THREADS: runs bench/calls once under CONFIG; prints
# "ns_per_call rss_kb trace_bytes events record_bytes_per_event" (the last
# two 0 but for cuprof: from its summary.json).
run_calls() {
  local cfg=$1 api=${2%@*} th=$3 n=${4:-$N} warm=$WARMUP out line tb=0 bpe=0
  local args=(--api "$api" --threads "$th")
  # API@D: the calls made D frames deep (the --stacks rows)
  [[ $2 == *@* ]] && args+=(--depth "${2#*@}")
  rm -rf "$tmp/out" "$tmp/uftrace.data"
  case "$cfg" in
    none)        line=$("$CALLS" "${args[@]}" --n $n --warmup $warm) ;;
    floor)       line=$(LD_PRELOAD="$FLOOR" "$CALLS" "${args[@]}" --n $n --warmup $warm) ;;
    floor_fresh) line=$(LD_PRELOAD="$FLOOR_FRESH" "$CALLS" "${args[@]}" --n $n --warmup $warm) ;;
    cuprof|cuprof_cupti|cuprof_cupti_k|cuprof_gated|cuprof_stk_*)
      local gpu=0 cap= stk=0; [ "$cfg" = cuprof_cupti ] && gpu=1
      [ "$cfg" = cuprof_cupti_k ] && gpu=kernels
      [[ $cfg == cuprof_stk_* ]] && stk=${cfg#cuprof_stk_}
      # gated: a capture window that never opens, so every call is outside it
      [ "$cfg" = cuprof_gated ] && cap=nvtx:never-pushed
      line=$(LD_PRELOAD="$LIB" CUPROF_GPU=$gpu CUPROF_QUIET=1 CUPROF_OUT_DIR="$tmp/out" \
             NVTX_INJECTION64_PATH="$LIB" CUPROF_CAPTURE_RANGE="$cap" CUPROF_STACKS=$stk \
             CUPROF_NAME=run CUPROF_MEM_LIMIT=8G "$CALLS" "${args[@]}" --n $n --warmup $warm)
      # the trace as written: trace.json up to a million events, the
      # Perfetto trace beyond (CUPROF_FORMAT=auto)
      tb=$(stat -c %s "$tmp/out/run.trace.json" 2>/dev/null ||
           stat -c %s "$tmp/out/run.perfetto-trace" 2>/dev/null || echo 0)
      bpe=$(grep -o '"bytes_per_event":[0-9.]*' "$tmp/out/run.summary.json" 2>/dev/null | cut -d: -f2)
      bpe=${bpe:-0} ;;
    uftrace)     line=$(uftrace record --force -d "$tmp/uftrace.data" "$CALLS" "${args[@]}" \
                        --n $n --warmup $warm 2>/dev/null) ;;
    ltrace)      n=$LTRACE_N; warm=100
                 line=$(ltrace -e cudaLaunchKernel+__cudaLaunchKernel+cudaOccupancyMaxActiveBlocksPerMultiprocessor \
                        -o /dev/null "$CALLS" "${args[@]}" --n $n --warmup $warm) ;;
  esac
  local ns rss
  ns=$(sed -n 's/.*ns_per_call=\([0-9.]*\).*/\1/p' <<<"$line")
  rss=$(sed -n 's/.*rss_kb=\([0-9]*\).*/\1/p' <<<"$line")
  [ -n "$ns" ] || { echo "bench: $cfg $api x$th failed: $line" >&2; echo "nan 0 0 0 0"; return; }
  echo "$ns $rss $tb $(( (n + warm) * th )) $bpe"
}

# stats: reads numbers, prints "median min max" (nan when empty).
stats() {
  sort -g | awk '{v[NR]=$1} END {
    if (NR == 0) { print "nan nan nan"; exit }
    m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2
    printf "%.2f %.2f %.2f\n", m, v[1], v[NR] }'
}

# ---- the matrix ----------------------------------------------------------------
# scenario: name api threads configs...
scenarios=(
  "launch_1t launch 1 floor floor_fresh cuprof uftrace ltrace cuprof_cupti cuprof_cupti_k"
  "klaunch_1t klaunch 1 floor floor_fresh cuprof"
  "occupancy_1t occupancy 1 floor floor_fresh cuprof"
  "occupancy_2t occupancy 2 floor floor_fresh cuprof"
  "launch_2t launch 2 floor cuprof"
  "nvtx_1t nvtx 1 cuprof"
  "nccl_1t nccl 1 cuprof cuprof_cupti"
  "driver_1t driver 1 cuprof"
  "math_1t math 1 cuprof"
  "gated_1t launch 1 floor cuprof_gated"
  "stacks_d10 launch@10 1 cuprof cuprof_stk_auto cuprof_stk_fp cuprof_stk_unwind"
  "stacks_d30 launch@30 1 cuprof cuprof_stk_auto cuprof_stk_fp cuprof_stk_unwind"
  "stacks_d60 launch@60 1 cuprof cuprof_stk_auto cuprof_stk_fp cuprof_stk_unwind"
)
declare -A added  # added[scenario.cfg] = newline-separated per-repeat values (ns)
declare -A rssd   # rssd[scenario.cfg] = per-repeat (rss with - without) * 1024 / events
declare -A ratio  # ratio[scenario.key] = per-repeat ratios
declare -A tbytes
declare -A cbytes # cbytes[scenario] = per-repeat compact record bytes per event
declare -A base
declare -A abs    # abs[scenario.cfg] = per-repeat ns per call with the hook

echo "bench: N=$N calls per thread, $REPEATS repeats, sim launch cost 0 (CUSIM_LAUNCH_CPU_NS=0)" >&2
t_start=$(date +%s)
# quick (CI): not launch_2t (the sim's lock, noise only), nor the NVTX, NCCL,
# driver, math-library and capture-window rows (measured, not guarded)
[ $quick = 1 ] && unset 'scenarios[4]' 'scenarios[5]' 'scenarios[6]' 'scenarios[7]' \
                        'scenarios[8]' 'scenarios[9]' 'scenarios[10]' 'scenarios[11]' \
                        'scenarios[12]'
for rep in $(seq 1 "$REPEATS"); do
  for sc in "${scenarios[@]}"; do
    set -- $sc
    name=$1 api=$2 th=$3; shift 3
    cfgs=("$@")
    read -r b_ns b_rss _ _ <<<"$(run_calls none "$api" "$th")"
    base[$name]+="$b_ns"$'\n'
    declare -A this=() call=()
    for cfg in "${cfgs[@]}"; do
      case "$cfg" in
        uftrace) [ $have_uftrace = 1 ] || continue ;;
        ltrace) [ $have_ltrace = 1 ] || continue ;;
        cuprof_cupti|cuprof_cupti_k) [ $quick = 0 ] || continue ;;
      esac
      read -r ns rss tb ev bpe <<<"$(run_calls "$cfg" "$api" "$th")"
      abs[$name.$cfg]+="$ns"$'\n'
      call[$cfg]=$ns
      a=$(awk -v x="$ns" -v y="$b_ns" 'BEGIN{printf "%.2f", x - y}')
      this[$cfg]=$a
      added[$name.$cfg]+="$a"$'\n'
      if [ "$cfg" = cuprof ]; then
        rssd[$name.$cfg]+="$(awk -v r="$rss" -v b="$b_rss" -v e="$ev" 'BEGIN{printf "%.2f", (r - b) * 1024 / e}')"$'\n'
        tbytes[$name]+="$(awk -v t="$tb" -v e="$ev" 'BEGIN{printf "%.1f", t / e}')"$'\n'
        cbytes[$name]+="$bpe"$'\n'
      fi
    done
    # per-repeat ratios, each against this repeat's own runs (not for two
    # threads launching: there the sim's launch lock dominates, see calls.c)
    if [ "$name" = occupancy_1t ]; then occ1=${this[cuprof]:-}; fi
    if [ "$name" = occupancy_2t ] && [ -n "${occ1:-}" ] && [ -n "${this[cuprof]:-}" ]; then
      ratio[occupancy.cuprof_2t_over_1t]+="$(awk -v a="${this[cuprof]}" -v b="$occ1" \
          'BEGIN{ if (b < 1) b = 1; printf "%.3f", a / b }')"$'\n'
    fi
    [ "$name" = launch_2t ] && { unset this; continue; }
    for ref in floor floor_fresh; do
      [ -n "${this[$ref]:-}" ] && [ -n "${this[cuprof]:-}" ] &&
        ratio[$name.cuprof_over_$ref]+="$(awk -v c="${this[cuprof]}" -v f="${this[$ref]}" \
            'BEGIN{ if (f < 1) f = 1; printf "%.3f", c / f }')"$'\n'
    done
    # the guard's ratios (bench/check.sh): ns per call with cuprof over ns per
    # call with the floor hook, both whole calls of this repeat: a denominator
    # of tens of ns, not the floor's few added ns that make cuprof / floor swing
    for ref in floor floor_fresh; do
      [ -n "${call[$ref]:-}" ] && [ -n "${call[cuprof]:-}" ] &&
        ratio[$name.cuprof_call_over_$ref]+="$(awk -v c="${call[cuprof]}" -v f="${call[$ref]}" \
            'BEGIN{ if (f < 1) f = 1; printf "%.3f", c / f }')"$'\n'
    done
    for peer in uftrace ltrace; do
      [ -n "${this[$peer]:-}" ] && [ -n "${this[cuprof]:-}" ] &&
        ratio[$name.${peer}_over_cuprof]+="$(awk -v c="${this[cuprof]}" -v p="${this[$peer]}" \
            'BEGIN{ if (c < 1) c = 1; printf "%.3f", p / c }')"$'\n'
    done
    unset this call
  done
  echo "bench: repeat $rep/$REPEATS done ($(( $(date +%s) - t_start )) s)" >&2
done

# Peak RSS for 10 million launches (one run each; not --quick)
if [ $quick = 0 ]; then
  read -r _ r0 _ _ _ <<<"$(run_calls none launch 1 10000000)"
  read -r _ r1 _ e1 b1 <<<"$(run_calls cuprof launch 1 10000000)"
  rss10m="without cuprof ${r0} kB, with cuprof (CUPTI off) ${r1} kB: $(( (r1 - r0) / 1024 )) MiB more, $(awk -v r="$r1" -v b="$r0" -v e="$e1" 'BEGIN{printf "%.1f", (r - b) * 1024 / e}') bytes per launch ($b1 bytes per event recorded)."
fi

# 2 threads vs 1 (per-thread added cost), from the medians of each
med() { printf '%s' "${1:-}" | grep -v '^$' | stats | cut -d' ' -f1; }
scal=$(awk -v a="$(med "${added[occupancy_2t.cuprof]:-}")" -v b="$(med "${added[occupancy_1t.cuprof]:-}")" \
       'BEGIN{ if (b < 1) b = 1; printf "%.3f", a / b }')
scal_floor=$(awk -v a="$(med "${added[occupancy_2t.floor]:-}")" -v b="$(med "${added[occupancy_1t.floor]:-}")" \
       'BEGIN{ if (b < 1) b = 1; printf "%.3f", a / b }')

# Robust ratios for bench/check.sh: from each configuration's fastest repeat
# (noise on a shared machine only ever adds time), (min with - min without)
# over the same for the reference.
minof() { printf '%s' "${1:-}" | grep -v '^$' | sort -g | head -1; }
declare -A robust
for sc in "${scenarios[@]}"; do
  set -- $sc; name=$1
  [ "$name" = launch_2t ] && continue
  b=$(minof "${base[$name]}")
  c=$(minof "${abs[$name.cuprof]:-}")
  [ -n "$c" ] || continue
  for ref in floor floor_fresh; do
    f=$(minof "${abs[$name.$ref]:-}")
    [ -n "$f" ] && robust[$name.cuprof_over_$ref]=$(awk -v c="$c" -v f="$f" -v b="$b" \
        'BEGIN{ d = f - b; if (d < 1) d = 1; printf "%.3f", (c - b) / d }')
    [ -n "$f" ] && robust[$name.cuprof_call_over_$ref]=$(awk -v c="$c" -v f="$f" \
        'BEGIN{ if (f < 1) f = 1; printf "%.3f", c / f }')
  done
done
o1=$(awk -v c="$(minof "${abs[occupancy_1t.cuprof]:-}")" -v b="$(minof "${base[occupancy_1t]:-}")" 'BEGIN{printf "%.2f", c - b}')
o2=$(awk -v c="$(minof "${abs[occupancy_2t.cuprof]:-}")" -v b="$(minof "${base[occupancy_2t]:-}")" 'BEGIN{printf "%.2f", c - b}')
robust[occupancy.cuprof_2t_over_1t]=$(awk -v a="$o2" -v b="$o1" 'BEGIN{ if (b < 1) b = 1; printf "%.3f", a / b }')

# ---- the HTML report at scale (not --quick): bench/report_html.sh ------------------
html_md=""
if [ $quick = 0 ] && [ "${BENCH_HTML_N:-10000000}" != 0 ]; then
  html_md=$("$top/bench/report_html.sh" "${BENCH_HTML_N:-10000000}" 2>&1) || html_md="bench/report_html.sh failed: $html_md"
fi

# ---- exit-time write cost --------------------------------------------------------
# The same events written with no trace (CUPROF_FORMAT=none: the summaries
# only), as trace.json and as NAME.perfetto-trace, interleaved, WRITE_REPEATS
# times (median): the whole exit path each time (stamps, model, summaries,
# the trace), so a trace's own time is its run's minus the none run's.
WRITE_REPEATS=${BENCH_WRITE_REPEATS:-3}
declare -A wr wp wn wrs wps wns
if [ $do_write = 1 ]; then
  for n in $WRITE_SIZES; do
    for rep in $(seq 1 "$WRITE_REPEATS"); do
      for fmt in none json perfetto; do
        rm -rf "$tmp/wout"; mkdir -p "$tmp/wout"
        line=$(CUPROF_GPU=0 CUPROF_QUIET=1 CUPROF_OUT_DIR="$tmp/wout" CUPROF_NAME=w \
               CUPROF_FORMAT=$fmt "$WRITE_BENCH" "$n")
        tb=$(stat -c %s "$tmp/wout/w.trace.json" "$tmp/wout/w.perfetto-trace" 2>/dev/null | head -1)
        r="$(sed -n 's/.*write_s=\([0-9.]*\).*events_per_s=\([0-9]*\).* rss_kb=\([0-9]*\).*report_rss_kb=\([0-9]*\).*/\1 \2 \4 \3/p' <<<"$line") ${tb:-0}"
        case $fmt in
          none) wn[$n]=$r; wns[$n]+="${r%% *}"$'\n' ;;
          json) wr[$n]=$r; wrs[$n]+="${r%% *}"$'\n' ;;
          *) wp[$n]=$r; wps[$n]+="${r%% *}"$'\n' ;;
        esac
        echo "bench: wrote $n events ($fmt): $line" >&2
        rm -rf "$tmp/wout"
      done
    done
  done
fi
# median of the seconds of one size and format
wmed() { printf '%s' "$1" | grep -v '^$' | stats | cut -d' ' -f1; }

# ---- C++ exceptions under --stacks ---------------------------------------------------
# tests/stacks_prog (C) loads tests/libthrow.so (C++) that throws and catches:
# ns per throw without cuprof and with --stacks (libunwind loaded, RTLD_LOCAL:
# the throws must keep libgcc_s's unwinder and its speed).
EXC_PROG="$B/tests/stacks_prog_fp" EXC_LIB="$B/tests/libthrow.so"
exc_plain= exc_stk= exc_ratio=
if [ $quick = 0 ] && [ -x "$EXC_PROG" ] && [ -f "$EXC_LIB" ]; then
  for rep in $(seq 1 "$REPEATS"); do
    a=$("$EXC_PROG" --exceptions 20000 "$EXC_LIB" | sed -n 's/.*ns per throw \([0-9]*\).*/\1/p')
    b=$(LD_PRELOAD="$LIB" CUPROF_STACKS=auto CUPROF_QUIET=1 CUPROF_OUT_DIR="$tmp/out" \
        "$EXC_PROG" --exceptions 20000 "$EXC_LIB" | sed -n 's/.*ns per throw \([0-9]*\).*/\1/p')
    [ -n "$a" ] && [ -n "$b" ] || continue
    exc_plain+="$a"$'\n'; exc_stk+="$b"$'\n'
    exc_ratio+="$(awk -v a="$a" -v b="$b" 'BEGIN{ if (a < 1) a = 1; printf "%.3f", b / a }')"$'\n'
  done
fi

# ---- Python frames under --stacks (issue 39) -------------------------------------------
# bench/py_stacks.sh: a C extension launching from a recursive Python function 10 and 30
# deep (its frames read at every launch), beside C frame-pointer stacks at the same depth,
# in the same repeats. BENCH_PY=0 skips it.
py_md=
if [ $quick = 0 ] && [ "${BENCH_PY:-1}" != 0 ]; then
  py_md=$(BENCH_REPEATS=$REPEATS "$top/bench/py_stacks.sh" 2>/dev/null) ||
    notes+=("bench/py_stacks.sh failed (no CPython 3.10-3.13 with headers?): no Python rows")
fi

# ---- report -------------------------------------------------------------------------
cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
ncpu=$(nproc)
hv=$(lscpu 2>/dev/null | sed -n 's/^Hypervisor vendor: *//p' | head -1)
kern=$(uname -r)
tsc=$(grep -q constant_tsc /proc/cpuinfo && grep -q nonstop_tsc /proc/cpuinfo && echo "invariant TSC" || echo "no invariant TSC")
when=$(date -u +%Y-%m-%dT%H:%MZ)

row() {  # name cfg label
  local s; s=$(printf '%s' "${added[$1.$2]:-}" | grep -v '^$' | stats)
  [ "$s" = "nan nan nan" ] && return
  set -- "$1" "$2" "$3" $s
  printf '| %-14s | %-28s | %8s | %8s | %8s |\n' "$1" "$3" "$4" "$5" "$6"
}
rrow() { # name key label
  local s; s=$(printf '%s' "${ratio[$1.$2]:-}" | grep -v '^$' | stats)
  [ "$s" = "nan nan nan" ] && return
  set -- "$1" "$2" "$3" $s
  printf '| %-14s | %-34s | %7s | %7s | %7s |\n' "$1" "$3" "$4" "$5" "$6"
}
label() {
  case $1 in
    floor) echo "floor (rdtsc, reused ring)" ;; floor_fresh) echo "floor, fresh memory" ;;
    cuprof) echo "cuprof (CUPTI off)" ;; uftrace) echo "uftrace record --force" ;;
    ltrace) echo "ltrace -e (N=$LTRACE_N)" ;; cuprof_cupti) echo "cuprof + sim CUPTI" ;;
    cuprof_cupti_k) echo "cuprof + sim CUPTI, --gpu kernels" ;;
    cuprof_gated) echo "cuprof, outside the window" ;;
    cuprof_stk_auto) echo "cuprof --stacks (auto)" ;;
    cuprof_stk_fp) echo "cuprof --stacks=fp" ;;
    cuprof_stk_unwind) echo "cuprof --stacks=unwind" ;;
  esac
}

{
  echo "## Added cost per call, ns ((with - without) / N; median, min, max of $REPEATS)"
  echo
  echo "| scenario       | hook                         |   median |      min |      max |"
  echo "|----------------|------------------------------|----------|----------|----------|"
  for sc in "${scenarios[@]}"; do
    set -- $sc; name=$1; shift 3
    b=$(printf '%s' "${base[$name]}" | grep -v '^$' | stats)
    printf '| %-14s | %-28s | %8s | %8s | %8s |\n' "$name" "(no hook: ns per call)" $b
    for cfg in "$@"; do row "$name" "$cfg" "$(label "$cfg")"; done
  done
  echo
  echo "## Ratios (per repeat, same run; median, min, max)"
  echo
  echo "| scenario       | ratio                              |  median |     min |     max |"
  echo "|----------------|------------------------------------|---------|---------|---------|"
  for sc in "${scenarios[@]}"; do
    set -- $sc; name=$1
    rrow "$name" cuprof_over_floor "cuprof / floor"
    rrow "$name" cuprof_over_floor_fresh "cuprof / floor (fresh memory)"
    rrow "$name" cuprof_call_over_floor "call with cuprof / with floor"
    rrow "$name" cuprof_call_over_floor_fresh "call: cuprof / floor (fresh)"
    rrow "$name" uftrace_over_cuprof "uftrace / cuprof"
    rrow "$name" ltrace_over_cuprof "ltrace / cuprof"
  done
  rrow occupancy cuprof_2t_over_1t "cuprof: 2 threads / 1 (per thread)"
  echo
  echo "2 threads vs 1 (occupancy, added ns per call per thread, ratio of the medians): cuprof ${scal}x, floor ${scal_floor}x"
  echo
  echo "From each configuration's fastest repeat (what bench/check.sh compares):"
  for k in $(printf '%s\n' "${!robust[@]}" | sort); do echo "- $k: ${robust[$k]}"; done
  echo
  if [ -n "$exc_ratio" ]; then
    echo "## C++ exceptions under --stacks (tests/stacks_prog loading tests/libthrow.so; median, min, max)"
    echo
    echo "| ns per throw                  |  median |     min |     max |"
    echo "|-------------------------------|---------|---------|---------|"
    printf '| %-29s | %7s | %7s | %7s |\n' "without cuprof" $(printf '%s' "$exc_plain" | grep -v '^$' | stats)
    printf '| %-29s | %7s | %7s | %7s |\n' "cuprof --stacks (auto)" $(printf '%s' "$exc_stk" | grep -v '^$' | stats)
    printf '| %-29s | %7s | %7s | %7s |\n' "ratio (per repeat)" $(printf '%s' "$exc_ratio" | grep -v '^$' | stats)
    echo
  fi
  if [ -n "$py_md" ]; then
    echo "$py_md"
    echo
  fi
  echo "## Memory and trace size per event (cuprof, CUPTI off)"
  echo
  echo "| scenario       | recorded bytes/event (compact) | RSS bytes/event (recording) | trace bytes/event (Perfetto, past 1 M events) |"
  echo "|----------------|--------------------------------|-----------------------------|------------------------|"
  for sc in "${scenarios[@]}"; do
    set -- $sc; name=$1
    [ -n "${rssd[$name.cuprof]:-}" ] || continue
    printf '| %-14s | %30s | %27s | %22s |\n' "$name" \
      "$(printf '%s' "${cbytes[$name]}" | grep -v '^$' | stats | cut -d' ' -f1)" \
      "$(printf '%s' "${rssd[$name.cuprof]}" | grep -v '^$' | stats | cut -d' ' -f1)" \
      "$(printf '%s' "${tbytes[$name]}" | grep -v '^$' | stats | cut -d' ' -f1)"
  done
  if [ -n "${rss10m:-}" ]; then
    echo
    echo "10 million launches on one thread (one run each): peak RSS when the calls are done,"
    echo "$rss10m"
  fi
  if [ $do_write = 1 ]; then
    echo
    echo "## Exit-time write (bench/write_bench: fill the collector, time cuprof_collector_finish:"
    echo "the run file completed, then cuprof-report building the files from it in its own process)"
    echo
    echo "| events     | seconds | events/s  | report peak RSS MB | report bytes/event | program peak RSS MB | trace.json bytes/event |"
    echo "|------------|---------|-----------|--------------------|--------------------|---------------------|------------------------|"
    for n in $WRITE_SIZES; do
      set -- ${wr[$n]}
      printf '| %10s | %7s | %9s | %18s | %18s | %19s | %22s |\n' "$n" "$1" "$2" \
        "$(awk -v r="$3" 'BEGIN{printf "%.0f", r / 1024}')" \
        "$(awk -v r="$3" -v n="$n" 'BEGIN{printf "%.1f", r * 1024 / n}')" \
        "$(awk -v r="$4" 'BEGIN{printf "%.1f", r / 1024}')" \
        "$(awk -v t="$5" -v n="$n" 'BEGIN{printf "%.1f", t / n}')"
    done
    echo
    echo "The trace's own cost: the same events with no trace (CUPROF_FORMAT=none), as trace.json"
    echo "and as NAME.perfetto-trace (zstd blocks, the default), interleaved, medians of"
    echo "$WRITE_REPEATS; trace seconds = the run's exit path minus the none run's:"
    echo
    echo "| events     | none s | JSON trace s | Perfetto trace s | JSON s / Perfetto s | JSON bytes/event | Perfetto bytes/event |"
    echo "|------------|--------|--------------|------------------|---------------------|------------------|----------------------|"
    for n in $WRITE_SIZES; do
      a=$(wmed "${wns[$n]}"); j=$(wmed "${wrs[$n]}"); q=$(wmed "${wps[$n]}")
      read -r _ _ _ _ jb <<<"${wr[$n]}"
      read -r _ _ _ _ pbytes <<<"${wp[$n]}"
      printf '| %10s | %6s | %12s | %16s | %19s | %16s | %20s |\n' "$n" "$a" \
        "$(awk -v x="$j" -v a="$a" 'BEGIN{printf "%.3f", x - a}')" \
        "$(awk -v x="$q" -v a="$a" 'BEGIN{printf "%.3f", x - a}')" \
        "$(awk -v j="$j" -v q="$q" -v a="$a" 'BEGIN{d = q - a; printf "%.2f", (d > 0 ? (j - a) / d : 0)}')" \
        "$(awk -v t="$jb" -v n="$n" 'BEGIN{printf "%.1f", t / n}')" \
        "$(awk -v t="$pbytes" -v n="$n" 'BEGIN{printf "%.2f", t / n}')"
    done
  fi
  if [ -n "$html_md" ]; then echo; echo "$html_md"; fi
  for note in "${notes[@]}"; do echo; echo "Note: $note"; done
} > "$tmp/table.md"
cat "$tmp/table.md"

# machine-readable: the ratios bench/check.sh compares (median, min, max)
{
  echo "{"
  echo "  \"machine\": \"$cpu, $ncpu CPUs${hv:+, $hv guest}\","
  echo "  \"n\": $N, \"repeats\": $REPEATS, \"quick\": $quick,"
  echo "  \"ratios\": {"
  first=1
  for k in "${!ratio[@]}"; do
    s=$(printf '%s' "${ratio[$k]}" | grep -v '^$' | stats)
    set -- $s
    [ $first = 1 ] || echo ","
    printf '    "%s": [%s, %s, %s]' "$k" "$1" "$2" "$3"
    first=0
  done
  echo
  echo "  },"
  echo "  \"robust\": {"
  first=1
  for k in "${!robust[@]}"; do
    [ $first = 1 ] || echo ","
    printf '    "%s": %s' "$k" "${robust[$k]}"
    first=0
  done
  echo
  echo "  },"
  echo "  \"threads2_over_1\": $scal,"
  echo "  \"added_ns_median\": {"
  first=1
  for k in "${!added[@]}"; do
    [ $first = 1 ] || echo ","
    printf '    "%s": %s' "$k" "$(printf '%s' "${added[$k]}" | grep -v '^$' | stats | cut -d' ' -f1)"
    first=0
  done
  echo
  echo "  }"
  echo "}"
} > "$tmp/results.json"
[ -n "$json" ] && cp "$tmp/results.json" "$json"

if [ -n "$results" ]; then
  {
    echo "# cuprof benchmark results"
    echo
    echo "Generated by \`make bench\` (bench/run.sh) on $when. Machine: $cpu, $ncpu CPUs"
    echo "${hv:+($hv guest), }Linux $kern, $tsc. Simulated device (build/sim) with"
    echo "CUSIM_LAUNCH_CPU_NS=0; $N calls per thread after $WARMUP warm-up calls; $REPEATS repeats,"
    echo "configurations interleaved within each repeat; \"added\" = ns per call with the hook"
    echo "minus ns per call without it, in the same repeat."
    echo
    echo "Commands (LD_LIBRARY_PATH=build/sim CUSIM_LAUNCH_CPU_NS=0):"
    echo
    echo '```'
    echo "build/bench/calls --api launch|klaunch|occupancy --threads T --n $N        # no hook"
    echo "LD_PRELOAD=build/bench/libfloor_hook.so build/bench/calls ...            # floor"
    echo "LD_PRELOAD=build/bench/libfloor_fresh.so build/bench/calls ...           # floor, fresh memory"
    echo "LD_PRELOAD=build/libcuprof.so CUPROF_GPU=0 build/bench/calls ...         # cuprof, CUPTI off"
    echo "LD_PRELOAD=build/libcuprof.so CUPROF_GPU=1 build/bench/calls ...         # cuprof + sim CUPTI"
    echo "LD_PRELOAD=build/libcuprof.so CUPROF_GPU=kernels build/bench/calls ...   # the same, --gpu kernels"
    echo "uftrace record --force -d DIR build/bench/calls ...                      # peer"
    echo "ltrace -e cudaLaunchKernel+... -o /dev/null build/bench/calls --n $LTRACE_N ... # peer"
    echo "build/bench/write_bench N                                         # exit-time write"
    echo '```'
    echo
    cat "$tmp/table.md"
    echo
    echo "Machine-readable (bench/check.sh compares the \"robust\" ratios with a fresh quick run; \"ratios\" gives their spread):"
    echo
    echo '```json'
    cat "$tmp/results.json"
    echo '```'
  } > "$results.tmp"
  if [ -f "$top/bench/RESULTS.notes.md" ] && [ "$results" = "$top/bench/RESULTS.md" ]; then
    { echo; cat "$top/bench/RESULTS.notes.md"; } >> "$results.tmp"
  fi
  mv "$results.tmp" "$results"
  echo "bench: wrote $results" >&2
fi
