#!/usr/bin/env bash
# Builds and runs the libFuzzer target of the CUPROF_* environment parser
# (collector/fuzz_config.c), like fuzz_reader.sh does for the summary reader.
#   fuzz_config.sh build         build build/fuzz/config
#   fuzz_config.sh run SECONDS   build it, then fuzz for SECONDS (default 10)
# Without clang (or its libFuzzer runtime) it prints "skipped: ..." and
# succeeds. Seeds: tests/fuzz/corpus_config; finds go to
# build/fuzz/corpus_config, a crash to build/fuzz/crash-* (replay: the
# binary + file).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out="$top/build/fuzz"
mode=${1:-run}
secs=${2:-10}

cc=""
for c in ${FUZZ_CC:-} clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14; do
  if command -v "$c" >/dev/null 2>&1; then cc=$c; break; fi
done
if [ -z "$cc" ]; then
  echo "skipped: clang not installed (the config parser fuzz run needs clang with libFuzzer)"
  exit 0
fi
mkdir -p "$out"
flags=(-std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=undefined -Wall -Wextra -Werror -I"$top")
bin="$out/config"
if ! "$cc" "${flags[@]}" -o "$bin" "$top/collector/fuzz_config.c" "$top/collector/config.c" 2>"$out/config.build.log"; then
  if grep -q "fuzzer" "$out/config.build.log" && ! grep -q "error:" "$out/config.build.log"; then
    echo "skipped: $cc cannot build libFuzzer targets (install clang's runtime, e.g. libclang-rt-dev)"
    exit 0
  fi
  cat "$out/config.build.log" >&2
  echo "cuprof: fuzz: building $bin failed; see the compiler output above" >&2
  exit 1
fi
[ "$mode" = build ] && exit 0

mkdir -p "$out/corpus_config"
log="$out/config.log"
"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
  -artifact_prefix="$out/" -print_final_stats=1 \
  "$out/corpus_config" "$top/tests/fuzz/corpus_config" >"$log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
if [ $rc -ne 0 ]; then
  tail -n 40 "$log" >&2
  echo "cuprof: fuzz: the config parser failed after ${runs:-?} inputs (log: $log); replay the crash file named above with $bin FILE" >&2
  exit 1
fi
echo "fuzz: config parser: ${runs:-?} inputs in ${secs}s, no crash, no leak"
