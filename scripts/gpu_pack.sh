#!/usr/bin/env bash
# scripts/gpu_pack.sh - what a lent GPU machine needs to run scripts/gpu_check.sh,
# packed into .gpu/ (git ignores it; name it in the device tool's `carry`).
#
#   scripts/gpu_pack.sh          (after `make all` here)
#
# .gpu/build.tgz: build/ without the sanitizer trees, the sim, objects and the
# dry check's outputs, and bench/'s nvcc-built programs (the machine has nvcc and
# builds scripts/'s workloads itself). .gpu/lib/: Debian's libraries the tools
# link that the machine's image lacks (seen on 2026-11-28: libdw, libelf,
# libjansson, libsqlite3, libzstd). On the machine, as one command:
#
#   tar xzf .gpu/build.tgz && export LD_LIBRARY_PATH=$PWD/.gpu/lib &&
#   bash scripts/gpu_check.sh --capture-fixtures /tmp/gc/fx /tmp/gc
#
# then tar what $OUT should bring back (table.txt, measured.txt, the fixtures).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
[ -e build/libcuprof.so ] || { echo "cuprof: gpu_pack.sh: build/libcuprof.so is missing: run make first" >&2; exit 2; }
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo /.gpu/ >>.git/info/exclude
rm -rf .gpu/lib && mkdir -p .gpu/lib
bench_bins=$(for f in bench/ddp_step bench/driver_kernel.cubin bench/driver_launch bench/launch_overhead bench/matmul_add; do [ -e "$f" ] && echo "$f"; done)
# shellcheck disable=SC2086
tar czf .gpu/build.tgz --exclude=build/asan --exclude=build/tsan --exclude=build/fuzz \
  --exclude=build/gpu-check-dry --exclude=build/report-shots --exclude=build/sim \
  --exclude='*.o' --exclude='*.d' build $bench_bins
for l in libdw.so.1 libelf.so.1 libjansson.so.4 libsqlite3.so.0 libzstd.so.1; do
  p=$(ldconfig -p | awk -v l="$l" '$1 == l && /x86-64/ {print $NF; exit}')
  [ -n "$p" ] && cp -L "$p" .gpu/lib/
done
du -sh .gpu/build.tgz .gpu/lib
