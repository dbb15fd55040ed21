#!/usr/bin/env bash
# gen_blas_hooks.sh - a hook for every cuBLAS and cuBLASLt entry point the
# hand-written hooks do not cover (issue 33: only the GEMMs were rows; a
# cublasSetMatrix's copy showed as a CUPTI-only cudaMemcpy2D row), generated
# from the toolkit's own prototypes, as the sim's stubs are (gen_hooks.sh).
#
#   gen_blas_hooks.sh LIBCUBLAS LIBCUBLASLT CUBLAS_API_H CUBLASLT_H HOOKS_H > blas_gen.h
#
# A function is generated when its library exports it, its header declares it
# returning cublasStatus_t (the v2 API's and cuBLASLt's: the legacy v1 API of
# cublas.h, without a handle, is left out), and preload/hooks.h names it
# nowhere. Set-up and queries run no CUDA work: plain calls (CUPROF_EV_CALL),
# no CUPTI id pushed (a push costs about 1 us with the real CUPTI, and PyTorch
# sets the stream and the workspace before every op); the rest may copy or
# launch through cuBLAS's own runtime, which no hook sees: CUPROF_EV_LIB,
# which pushes. Lists: PRELOAD_BLAS_GEN_HOOKS, _BODIES, _COUNT.
set -euo pipefail
[ $# -eq 5 ] || { echo "usage: gen_blas_hooks.sh LIBCUBLAS LIBCUBLASLT CUBLAS_API_H CUBLASLT_H HOOKS_H" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
here=$(dirname "$0")
sym="$here/../scripts/cuda_symbols.sh"
bash "$sym" exports "$1" | sed 's/$/|PRELOAD_LIB_CUBLAS/' > "$tmp/lib"
bash "$sym" exports "$2" | sed 's/$/|PRELOAD_LIB_CUBLASLT/' >> "$tmp/lib"
bash "$sym" protos "$3" "$4" > "$tmp/protos"
setup='(Create|Destroy|Init|_internal|Desc|Layout|Preference|Heuristic|Algo|Logger|Version|Property|Status|Stream|MathMode|PointerMode|AtomicsMode|Workspace|SmCount|Emulation|Migrate)'
# Set/Get Matrix and Vector copy: not set-up, whatever "Set" suggests
bash "$here/gen_hooks.sh" BLAS cublasStatus_t cublas "$tmp/lib" "$tmp/protos" "$5" CUPROF_EV_LIB \
  "$setup" '(Set|Get)(Matrix|Vector)' "libcublas.so.13, libcublasLt.so.13, cublas_api.h and cublasLt.h"
