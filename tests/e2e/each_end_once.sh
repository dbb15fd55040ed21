#!/usr/bin/env bash
# each_end_once.sh [N] - test_e2e_robust's each_end_once case N times each
# way (default 20; make test runs 2): SIGINT, SIGTERM, SIGHUP and SIGQUIT
# sent to the program, to prof.sh and to the whole group, and GNU timeout
# with each, on the simulated device; every run must give complete outputs
# (not TRUNCATED), the signal's own end, and one count of the signal.
# Prints Check's summary line; exit status 0 when every run passed.
# The last result is in tests/README.md.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-20}
cd "$top" || exit 2
make -s build/tests/test_e2e_robust build/tests/robust_prog build/libcuprof.so build/cuprof-run \
  build/cuprof-report >/dev/null || exit 2
start=$(date +%s)
CUPROF_TOP="$top" CUPROF_BUILD="$top/build" CUPROF_TEST_REPEAT="$n" CK_RUN_CASE=each_end_once \
  CK_VERBOSITY=normal CK_DEFAULT_TIMEOUT=3600 build/tests/test_e2e_robust
rc=$?
echo "each_end_once.sh: $n runs each of 16 ways, $(( $(date +%s) - start )) s, $([ $rc = 0 ] && echo passed || echo FAILED)"
exit $rc
