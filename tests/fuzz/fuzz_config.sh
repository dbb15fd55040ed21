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
. "$top/tests/fuzz/fuzz_lib.sh"

fuzz_cc "config parser"
bin="$out/config"
"$cc" "${flags[@]}" -o "$bin" "$top/collector/fuzz_config.c" "$top/collector/config.c"
fuzz_built "$bin" $?
fuzz_run "config parser" "$bin" corpus_config 4096
