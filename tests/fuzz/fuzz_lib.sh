# Sourced by the fuzz_*.sh scripts: what each libFuzzer target shares.
# They set top, out, mode and secs first.

# fuzz_cc WHAT: sets cc (a clang that builds libFuzzer targets) and flags;
# where there is none, prints "skipped: ..." naming WHAT and exits 0, so
# the suite still runs.
fuzz_cc() {
  cc=""
  for c in ${FUZZ_CC:-} clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14; do
    if command -v "$c" >/dev/null 2>&1; then cc=$c; break; fi
  done
  if [ -z "$cc" ]; then
    echo "skipped: clang not installed (the $1 fuzz run needs clang with libFuzzer)"
    exit 0
  fi
  mkdir -p "$out"
  flags=(-std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined
         -fno-sanitize-recover=undefined -Wall -Wextra -Werror -I"$top")
  # clang without its libFuzzer runtime: say so instead of failing the suite.
  local probe="$out/.probe"
  printf '#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$probe.c"
  if ! "$cc" "${flags[@]}" -o "$probe" "$probe.c" >/dev/null 2>&1; then
    echo "skipped: $cc cannot build libFuzzer targets (install clang's runtime, e.g. libclang-rt-dev)"
    exit 0
  fi
  rm -f "$probe" "$probe.c"
}

# fuzz_built BIN STATUS: the build's outcome (exits 1 when it failed, 0 in
# build mode).
fuzz_built() {
  if [ "$2" -ne 0 ]; then
    echo "cuprof: fuzz: building $1 failed; see the compiler output above" >&2
    exit 1
  fi
  [ "$mode" = build ] && exit 0
  return 0
}

# fuzz_run WHAT BIN NAME MAXLEN [libFuzzer options...]: fuzzes BIN for secs
# seconds from tests/fuzz/NAME (the seeds, in git) and build/fuzz/NAME (its
# finds); a crash is build/fuzz/crash-*, and fails the run.
fuzz_run() {
  local what=$1 bin=$2 name=$3 maxlen=$4
  shift 4
  mkdir -p "$out/$name"
  local log="$out/$(basename "$bin").log"
  "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len="$maxlen" \
    "$@" -artifact_prefix="$out/" -print_final_stats=1 \
    "$out/$name" "$top/tests/fuzz/$name" >"$log" 2>&1
  local rc=$?
  local runs
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  if [ $rc -ne 0 ]; then
    tail -n 40 "$log" >&2
    echo "cuprof: fuzz: the $what failed after ${runs:-?} inputs (log: $log); replay the crash file named above with $bin FILE" >&2
    exit 1
  fi
  echo "fuzz: $what: ${runs:-?} inputs in ${secs}s, no crash, no leak"
}
