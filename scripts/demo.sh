#!/usr/bin/env bash
# make demo: profile the reference workload (bench/matmul_add, y = x*w + b)
# in its three modes at a small and a large size, and show what cuprof says.
#
#   eager  cublasGemmEx, then our own bias_add kernel   (two kernels)
#   addmm  DtoD copy of the bias into y, GEMM beta = 1  (a copy and a kernel)
#   fused  cublasLtMatmul with the BIAS epilogue        (one kernel)
#
# Runs on the GPU when there is one (nvidia-smi lists one, or /dev/nvidia0
# exists), else on the simulated H100 (build/sim). Writes
# DEMO_OUT/<size>/<mode>.{trace.json,summary.txt,summary.json} and prints,
# per size: what one iteration runs, the compare of the three modes, and
# each run's findings; then the traces to open in ui.perfetto.dev.
#
# Environment: DEMO_ITERS (timed iterations, default 20), DEMO_WARMUP
# (default 2), DEMO_SIZES (default "64 4096"), DEMO_OUT (default
# prof-out/demo), DEMO_DEVICE=sim|gpu (default: detect).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
iters=${DEMO_ITERS:-20}
warmup=${DEMO_WARMUP:-2}
sizes=${DEMO_SIZES:-64 4096}
out=${DEMO_OUT:-prof-out/demo}
modes="eager addmm fused"
bench="$top/bench/matmul_add"
compare="$top/build/cuprof-compare"

die() { echo "cuprof demo: $1" >&2; exit 1; }
[[ $iters =~ ^[1-9][0-9]*$ ]] || die "DEMO_ITERS=$iters is not a positive integer"
[[ $warmup =~ ^[0-9]+$ ]] || die "DEMO_WARMUP=$warmup is not an integer"
for f in "$bench" "$compare" "$top/build/libcuprof.so"; do
  [ -x "$f" ] || [ -f "$f" ] || die "$f is not built: run make first (make demo builds everything)"
done

device=${DEMO_DEVICE:-}
if [ -z "$device" ]; then
  if { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; } ||
     [ -e /dev/nvidia0 ]; then
    device=gpu
  else
    device=sim
  fi
fi
if [ "$device" = sim ]; then
  export LD_LIBRARY_PATH="$top/build/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  echo "No GPU found: running on the simulated H100 (build/sim; timings follow its model)."
else
  echo "Running on the GPU: $(nvidia-smi -L 2>/dev/null | head -n 1 || echo /dev/nvidia0)"
fi
steps=$((iters + warmup))
echo "Workload: bench/matmul_add, y = x*w + b in bf16, $iters timed iterations after $warmup warm-up ($steps steps in each profile)."

# What one step runs: kernel executions and DtoD copies per step, from the
# summary's Kernels and Copies sections (kernels that ran fewer times than
# there are steps, like eager's probe kernel, are not part of the step).
per_step() {
  awk -v steps="$steps" '
    /^Kernels/ { sec = "k"; next }
    /^Copies/  { sec = "c"; next }
    /^[^ ]/    { sec = ""; next }
    sec == "k" && $1 ~ /^[0-9]+$/ && $1 + 0 >= steps {
      name = $0   # the name follows 5 columns: launches, total, min, median, max
      for (i = 0; i < 5; i++) sub(/^ *[^ ]+/, "", name)
      sub(/^ +/, "", name)
      if (length(name) > 70) name = substr(name, 1, 67) "..."
      nk += int($1 / steps); kn = kn (kn ? "; " : "") name
    }
    sec == "c" && $1 == "DtoD" && $2 + 0 >= steps { nc = int($2 / steps) }
    END {
      s = ""
      if (nc) s = nc " DtoD copy" (nc > 1 ? "ies" : "") " + "
      printf "%s%d kernel%s  (%s)\n", s, nk, nk == 1 ? "" : "s", kn
    }' "$1"
}

# Findings section of a summary.txt, indented.
findings() {
  sed -n '/^Findings$/,$p' "$1" | tail -n +2 | sed 's/^/  /'
}

# The compare without its per-call-name section (long; the full table is
# one prof.sh compare away).
compare_brief() {
  "$compare" "$@" | awk '
    /^Runtime calls by name/ { skip = 1; next }
    /^[^ ]/ { skip = 0 }
    !skip'
}

rule() { printf '%s\n' "======================================================================"; }

for size in $sizes; do
  dir="$out/$size"
  mkdir -p "$dir"
  for mode in $modes; do
    rm -f "$dir/$mode".{trace.json,summary.txt,summary.json,cuprof}
    if ! "$top/prof.sh" -q -o "$dir" -n "$mode" "$bench" --mode "$mode" --size "$size" \
         --dtype bf16 --iters "$iters" --warmup "$warmup" >"$dir/$mode.stdout" 2>"$dir/$mode.stderr"; then
      cat "$dir/$mode.stderr" >&2
      die "matmul_add --mode $mode --size $size failed (output in $dir/$mode.stdout, .stderr)"
    fi
    [ -f "$dir/$mode.summary.json" ] || die "no profile written for $mode at size $size (see $dir/$mode.stderr)"
  done

  echo
  rule
  echo "Size $size: x, w ${size}x${size}, bf16"
  rule
  echo "One step runs:"
  for mode in $modes; do
    printf '  %-6s %s\n' "$mode" "$(per_step "$dir/$mode.summary.txt")"
  done
  echo
  compare_brief --html "$dir/compare.html" "$dir/eager.summary.json" "$dir/addmm.summary.json" \
    "$dir/fused.summary.json"
  echo "  (all runtime calls: ./prof.sh compare $dir/{eager,addmm,fused}.summary.json;"
  echo "   as a web page: $dir/compare.html)"
  echo
  verdict=""
  for mode in $modes; do
    echo "Findings, $mode (size $size):"
    findings "$dir/$mode.summary.txt"
    b=$(sed -n 's/^  \[[a-z]*\] \(overhead-bound\|compute-bound\):.*/\1/p' "$dir/$mode.summary.txt" | head -n 1)
    verdict="$verdict${verdict:+, }$mode ${b:-neither overhead- nor compute-bound}"
  done
  echo
  echo "Verdict at size $size: $verdict"
done

echo
rule
echo "Traces: open in https://ui.perfetto.dev (Open trace file):"
for size in $sizes; do
  for mode in $modes; do
    echo "  $out/$size/$mode.trace.json"
  done
done
echo
echo "Reports: one page per run, offline (open in any browser), and each size's compare page:"
for size in $sizes; do
  echo "  $out/$size/{$(echo $modes | tr ' ' ',')}.report.html  $out/$size/compare.html"
done
echo
echo "Run files: each output above was built from NAME.cuprof, recorded while the program ran."
echo "Build them again, another way, without running anything, e.g.:"
echo "  ./prof.sh report --format perfetto -o $out/64/perfetto $out/64/eager.cuprof"
