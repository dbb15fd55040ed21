#!/usr/bin/env bash
# Builds and runs the libFuzzer target of the summary reader.
#   fuzz_reader.sh build         build build/fuzz/summary_reader
#   fuzz_reader.sh run SECONDS   build it, then fuzz for SECONDS (default 20)
# Needs clang with libFuzzer; where there is none it prints
# "skipped: clang not installed" and succeeds, so the suite still runs.
# Seeds: tests/fuzz/corpus (kept small, in git); what the fuzzer finds goes to
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
  echo "skipped: clang not installed (the summary reader fuzz run needs clang with libFuzzer)"
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

bin="$out/summary_reader"
f="$top/formats/compare"
if ! "$cc" "${flags[@]}" -I"$top" -o "$bin" "$f/fuzz_summary_reader.c" "$f/summary_reader.c" \
     "$f/compare.c" "$f/compare_diff.c" "$f/compare_text.c" "$f/compare_json.c" -ljansson; then
  echo "cuprof: fuzz: building $bin failed; see the compiler output above" >&2
  exit 1
fi
[ "$mode" = build ] && exit 0

mkdir -p "$out/corpus"
log="$out/summary_reader.log"
"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
  -dict="$top/tests/fuzz/summary.dict" -artifact_prefix="$out/" -print_final_stats=1 \
  "$out/corpus" "$top/tests/fuzz/corpus" >"$log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
if [ $rc -ne 0 ]; then
  tail -n 40 "$log" >&2
  echo "cuprof: fuzz: the summary reader failed after ${runs:-?} inputs (log: $log); replay the crash file named above with $bin FILE" >&2
  exit 1
fi
echo "fuzz: summary reader: ${runs:-?} inputs in ${secs}s, no crash, no leak"
