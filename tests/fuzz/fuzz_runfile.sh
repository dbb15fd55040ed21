#!/usr/bin/env bash
# Builds and runs the libFuzzer target of the run file reader's GPU side
# (formats/runfile/fuzz_gpu_records.c: GPU_RECORDS, GPU_NAMES, GPU_INFO blocks).
#   fuzz_runfile.sh build         build build/fuzz/runfile_gpu
#   fuzz_runfile.sh run SECONDS   build it, then fuzz for SECONDS (default 20)
# Needs clang with libFuzzer; where there is none it prints
# "skipped: clang not installed" and succeeds, so the suite still runs.
# Seeds: tests/fuzz/corpus_runfile (kept small, in git); what the fuzzer finds goes to
# build/fuzz/corpus_runfile, a crash to build/fuzz/crash-* (replay: the binary + file).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out="$top/build/fuzz"
mode=${1:-run}
secs=${2:-20}
. "$top/tests/fuzz/fuzz_lib.sh"

fuzz_cc "run file"
bin="$out/runfile_gpu"
"$cc" "${flags[@]}" -I"${CUDA_HOME:-/usr/local/cuda}/include" -o "$bin" \
  "$top/formats/runfile/fuzz_gpu_records.c" "$top/formats/runfile/runfile_read.c" \
  "$top/formats/runfile/stream.c" \
  "$top/formats/runfile/srcline.c" \
  "$top/model/gpu.c" "$top/model/run.c" "$top/model/vocab.c" -ldw -ldl
fuzz_built "$bin" $?
fuzz_run "run file reader (GPU blocks)" "$bin" corpus_runfile 16384
