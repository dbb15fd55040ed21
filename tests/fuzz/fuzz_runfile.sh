#!/usr/bin/env bash
# Builds and runs the libFuzzer target of the run file reader's GPU side
# (formats/runfile/fuzz_gpu_records.c: GPU_RECORDS, GPU_NAMES, GPU_INFO blocks).
#   fuzz_runfile.sh build         build build/fuzz/runfile_gpu
#   fuzz_runfile.sh run SECONDS   build it, then fuzz for SECONDS (default 20)
# Needs clang with libFuzzer; where there is none it prints
# "skipped: clang not installed" and succeeds, so the suite still runs.
# Seeds: tests/fuzz/corpus_runfile (kept small, in git); what the fuzzer finds goes to
# build/fuzz/corpus, a crash to build/fuzz/crash-* (replay: the binary + file).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out="$top/build/fuzz"
mode=${1:-run}
secs=${2:-20}

cc=""
for c in ${FUZZ_CC:-} clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14; do
  if command -v "$c" >/dev/null 2>&1; then cc=$c; break; fi
done
if [ -z "$cc" ]; then
  echo "skipped: clang not installed (the run file fuzz run needs clang with libFuzzer)"
  exit 0
fi
mkdir -p "$out"
flags=(-std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=undefined -Wall -Wextra -Werror)
# clang without its libFuzzer runtime: say so instead of failing the suite.
probe="$out/.probe"
printf '#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$probe.c"
if ! "$cc" "${flags[@]}" -o "$probe" "$probe.c" >/dev/null 2>&1; then
  echo "skipped: $cc cannot build libFuzzer targets (install clang's runtime, e.g. libclang-rt-dev)"
  exit 0
fi
rm -f "$probe" "$probe.c"

bin="$out/runfile_gpu"
if ! "$cc" "${flags[@]}" -I"$top" -I"${CUDA_HOME:-/usr/local/cuda}/include" -o "$bin" \
     "$top/formats/runfile/fuzz_gpu_records.c" "$top/formats/runfile/runfile_read.c" \
     "$top/formats/runfile/srcline.c" \
     "$top/model/gpu.c" "$top/model/run.c" "$top/model/vocab.c" -ldw -ldl; then
  echo "cuprof: fuzz: building $bin failed; see the compiler output above" >&2
  exit 1
fi
[ "$mode" = build ] && exit 0

mkdir -p "$out/corpus_runfile"
log="$out/runfile_gpu.log"
"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
  -artifact_prefix="$out/" -print_final_stats=1 \
  "$out/corpus_runfile" "$top/tests/fuzz/corpus_runfile" >"$log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
if [ $rc -ne 0 ]; then
  tail -n 40 "$log" >&2
  echo "cuprof: fuzz: the run file reader failed after ${runs:-?} inputs (log: $log); replay the crash file named above with $bin FILE" >&2
  exit 1
fi
echo "fuzz: run file reader (GPU blocks): ${runs:-?} inputs in ${secs}s, no crash, no leak"
