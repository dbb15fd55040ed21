#!/usr/bin/env bash
# gen_driver_hooks.sh - a hook for every function libcuda exports that the
# hand-written driver hooks (hooks_driver_api.c: launches, copies, memsets,
# allocations, frees, syncs, events) do not cover: the driver API as programs
# link it (-lcuda: JAX/XLA, the driver samples), each call a row (issue 41).
#
#   gen_driver_hooks.sh LIBCUDA CUDA_INCLUDE_DIR HOOKS_H > driver_gen.h
#
# LIBCUDA: the toolkit's stubs/libcuda.so, whose exports are the real
# driver's. The prototypes come from cuda.h and cudaProfiler.h fully
# preprocessed, as a program sees them (cuda.h names most functions through
# macros: cuMemAlloc is cuMemAlloc_v2), then with
# CUDA_API_PER_THREAD_DEFAULT_STREAM (the _ptds/_ptsz forms), then with
# __CUDA_API_VERSION_INTERNAL (the legacy forms older binaries bind to:
# cuMemAlloc with a 32-bit size, cuCtxCreate without _v2...), the first
# declaration of a name winning. The legacy forms' own types (CUdeviceptr_v1,
# CUDA_MEMCPY2D_v1 ...) exist only under that macro: they are written as the
# types they are (unsigned int; a pointer to a legacy struct as void *: the
# hooks keep no argument, so only the ABI matters), and their names, macros
# for the newest form in a normal compile, are #undef'd first.
# Every generated hook is a plain call (CUPROF_EV_CALL): it pushes nothing;
# its GPU work (a CUPTI driver record of the same name around it in time) is
# joined to it by the model, as a top-level runtime call's is.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: gen_driver_hooks.sh LIBCUDA CUDA_INCLUDE_DIR HOOKS_H" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
here=$(dirname "$0")
sym="$here/../scripts/cuda_symbols.sh"
inc=$2
bash "$sym" exports "$1" | sed 's/$/|PRELOAD_LIB_CUDA/' > "$tmp/lib"
bash "$sym" cprotos CUresult "$inc/cuda.h" -I"$inc" > "$tmp/p1"
bash "$sym" cprotos CUresult "$inc/cuda.h" -I"$inc" -DCUDA_API_PER_THREAD_DEFAULT_STREAM > "$tmp/p2"
bash "$sym" cprotos CUresult "$inc/cudaProfiler.h" -I"$inc" > "$tmp/p3"
bash "$sym" cprotos CUresult "$inc/cuda.h" -I"$inc" -D__CUDA_API_VERSION_INTERNAL > "$tmp/p4"
cut -d'|' -f1 "$tmp/p1" "$tmp/p2" "$tmp/p3" | sort -u > "$tmp/normal"
# the legacy prototypes, their own types written as what they are
awk -F'|' 'NR == FNR { normal[$1] = 1; next } !($1 in normal)' "$tmp/normal" "$tmp/p4" |
  sed -E 's/\bCUdeviceptr_v1\b/unsigned int/g; s/\b[A-Za-z0-9_]+_v1\b *\*/void */g' > "$tmp/legacy"
cat "$tmp/p1" "$tmp/p2" "$tmp/p3" "$tmp/legacy" | awk -F'|' '!seen[$1]++' | sort -t'|' -k1,1 > "$tmp/protos"
echo "/* The legacy names cuda.h maps to their newest form (#define cuMemAlloc"
echo " * cuMemAlloc_v2): hooked under their own names. */"
cut -d'|' -f1 "$tmp/legacy" | sed 's/^/#undef /'
bash "$here/gen_hooks.sh" DRIVER CUresult cu "$tmp/lib" "$tmp/protos" "$3" CUPROF_EV_CALL "" "" \
  "stubs/libcuda.so, cuda.h and cudaProfiler.h (preload/gen_driver_hooks.sh)"
