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
. "$top/tests/fuzz/fuzz_lib.sh"

fuzz_cc "summary reader"
bin="$out/summary_reader"
f="$top/formats/compare"
"$cc" "${flags[@]}" -o "$bin" "$f/fuzz_summary_reader.c" "$f/summary_reader.c" \
  "$f/compare.c" "$f/compare_diff.c" "$f/compare_text.c" "$f/compare_json.c" -ljansson
fuzz_built "$bin" $?
fuzz_run "summary reader" "$bin" corpus 16384 -dict="$top/tests/fuzz/summary.dict"
