#!/usr/bin/env bash
# make asan-test's last part: cuprof-report built with ASan + UBSan
# (build/asan) reports run files streamed in blocks of 16 calls, each block
# freed when put out (CUPROF_REPORT_STREAM_BLOCK, formats/runfile/stream.c):
# a pass of the model or a writer that keeps a call past
# CUPROF_RUN_BLOCKS_HELD blocks (model/run.h) reads freed memory, which ASan
# reports. The outputs must be byte for byte the normal build's with every
# call decoded first. The run files come from the normal build (make first)
# on the simulated device: cuBLAS, cuBLASLt, NVTX, stacks, the GPU timeline.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
asan="$top/build/asan/cuprof-report" plain="$top/build/cuprof-report"
for f in "$asan" "$plain" "$top/bench/matmul_add" "$top/build/bench/calls"; do
  [ -x "$f" ] || { echo "cuprof: $f is missing: make, then make asan-test" >&2; exit 1; }
done
out=$(mktemp -d "${TMPDIR:-/tmp}/cuprof-asan-stream.XXXXXX")
trap 'rm -rf "$out"' EXIT
fail=0
run() {   # NAME PROG ARGS...: profiles it, then both reports, compared
  local name=$1; shift
  if ! LD_LIBRARY_PATH="$top/build/sim" "$top/prof.sh" -q -o "$out/$name" -n x --stacks -- "$@" \
       >/dev/null 2>"$out/$name.err"; then
    echo "cuprof: profiling $name failed:" >&2; cat "$out/$name.err" >&2; fail=1; return
  fi
  CUPROF_REPORT_STREAM=0 "$plain" -o "$out/$name/whole" --format both --html "$out/$name/x.cuprof" \
    >/dev/null 2>&1 || { echo "cuprof: $name: the plain report failed" >&2; fail=1; return; }
  if ! CUPROF_REPORT_STREAM=1 CUPROF_REPORT_STREAM_BLOCK=16 CUPROF_REPORT_BIGMEM_STATS=1 \
       ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
       "$asan" -o "$out/$name/streamed" --format both --html "$out/$name/x.cuprof" \
       >/dev/null 2>"$out/$name.asan"; then
    echo "cuprof: $name: the streamed report under ASan failed:" >&2; cat "$out/$name.asan" >&2
    fail=1; return
  fi
  grep -q "^cuprof: calls: threads=[1-9][0-9]* streamed=[1-9]" "$out/$name.asan" ||
    { echo "cuprof: $name: the calls were not streamed:" >&2; cat "$out/$name.asan" >&2; fail=1; return; }
  local n=0
  for f in "$out/$name/whole"/*; do
    n=$((n + 1))
    cmp -s "$f" "$out/$name/streamed/${f##*/}" ||
      { echo "cuprof: $name: ${f##*/} differs when the calls are streamed" >&2; fail=1; }
  done
  echo "$name: $n outputs alike, streamed in blocks of 16 under ASan"
}
run eager "$top/bench/matmul_add" --mode eager --size 64 --iters 40
run addmm-nvtx "$top/bench/matmul_add" --nvtx --mode addmm --size 64 --iters 40
run fused "$top/bench/matmul_add" --mode fused --size 64 --iters 40
run launches "$top/build/bench/calls" --api launch --n 3000 --warmup 0
exit $fail
