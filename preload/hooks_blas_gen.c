/*
 * hooks_blas_gen.c - every cuBLAS and cuBLASLt entry point the hand-written
 * hooks (hooks_blas.c: the GEMMs, with their shapes) do not cover, as plain
 * hooks: the call is a row of its own (cublasCreate, cublasSetStream,
 * cublasSetMatrix, level 1 and 2, TRSM, the batched LU family, cuBLASLt's
 * descriptors...); one that may copy or launch (CUPROF_EV_LIB) pushes its
 * event id, so the copies and kernels cuBLAS's own runtime makes (no hook
 * sees them: seen on an H200) are charged to it (issue 33). The list is
 * generated from the toolkit's prototypes (preload/gen_blas_hooks.sh,
 * build/preload/blas_gen.h); no argument is kept. The locals' names are
 * ones no cuBLAS parameter has (a parameter is called c, r or real).
 */
#include "preload/hooks.h"

#define PRELOAD_GEN_BODY(ret, name, params, args)                                   \
    PRELOAD_EXPORT ret name params                                                  \
    {                                                                               \
        preload_##name##_fn preload_gen_real_ = PRELOAD_REAL(name);                 \
        preload_call preload_gen_call_ = HOOK_BEGIN(name);                          \
        ret preload_gen_r_ = preload_gen_real_ ? preload_gen_real_ args : PRELOAD_CUBLAS_MISSING; \
        return (ret)hook_end(preload_gen_call_, (int)preload_gen_r_);               \
    }
PRELOAD_BLAS_GEN_BODIES(PRELOAD_GEN_BODY)
