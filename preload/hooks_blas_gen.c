/*
 * hooks_blas_gen.c - every cuBLAS and cuBLASLt entry point the hand-written
 * hooks (hooks_blas.c: the GEMMs, with their shapes) do not cover, as plain
 * hooks: the call is a row of its own (cublasCreate, cublasSetStream,
 * cublasSetMatrix, level 1 and 2, TRSM, the batched LU family, cuBLASLt's
 * descriptors...); one that may copy or launch (CUPROF_EV_LIB) pushes its
 * event id, so the copies and kernels cuBLAS's own runtime makes (no hook
 * sees them: seen on an H200) are charged to it (issue 33). The list is
 * generated from the toolkit's prototypes (preload/gen_blas_hooks.sh,
 * build/preload/blas_gen.h); no argument is kept.
 */
#include "preload/hooks.h"

#define PRELOAD_BLAS_BODY(ret, name, params, args) PRELOAD_PLAIN_HOOK(ret, name, params, args, PRELOAD_CUBLAS_MISSING)
PRELOAD_BLAS_GEN_BODIES(PRELOAD_BLAS_BODY)
