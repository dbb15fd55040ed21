#!/usr/bin/env bash
# Runs the test binaries given as arguments, one after another, and fails if
# any of them fails. Each binary is a Check suite; CK_VERBOSITY=normal prints
# one line per suite and the failures.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
export CUPROF_TOP="$top" CUPROF_BUILD="$top/build"
export CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-120}
failed=()
for t in "$@"; do
  echo "== $t"
  if ! "$top/$t"; then failed+=("$t"); fi
done
if [ ${#failed[@]} -ne 0 ]; then
  echo "FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "all ${#} test programs passed"
