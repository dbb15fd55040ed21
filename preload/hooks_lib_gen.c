/*
 * hooks_lib_gen.c - every entry point of cuBLAS/cuBLASLt, cuFFT, cuRAND,
 * cuSPARSE and cuSOLVER that the hand-written hooks (hooks_blas.c: the GEMMs,
 * with their shapes) do not cover: the call is a row of its own
 * (cublasSetMatrix, cufftExecC2C, curandGenerateNormal, cusparseSpMV,
 * cusolverDnSgetrf...). One that may copy or launch (CUPROF_EV_LIB,
 * CUPROF_EV_MATH_LIB) pushes its event id, so the copies and kernels the
 * library's own static runtime makes (no hook sees them: seen on an H200)
 * are charged to it (issues 33 and 41). The lists are generated from the
 * toolkit's prototypes (preload/gen_lib_hooks.sh, build/preload/LIB_gen.h).
 *
 * A cuBLAS call keeps no argument. A math-library call is a CUPROF_EV_MATH
 * event whose a.math the PM_* macros fill, each from one parameter the
 * generator picked by its name and type (collector/event.h says what each
 * field means per library): before the call from the values passed; once the
 * call succeeded from what it wrote (a plan or descriptor made through an out
 * parameter, a plan's dims array): an array or out parameter is read only
 * after the library accepted it, so a bad pointer fails in the library as it
 * would without us, never in the hook. Nothing is kept between calls (the
 * model joins an exec to the call that made its handle: model/mathlib.h).
 * The locals' names are ones no parameter of these libraries has.
 */
#include "preload/hooks.h"

/* The legacy cuSPARSE prototypes use deprecated types (hooks.h). */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* A count or size as passed (int, int64_t or size_t), negative as 0. */
static inline uint64_t pm_u64(int64_t v)
{
    return v < 0 ? 0 : (uint64_t)v;
}

/* What a math call keeps (e_ is its event, not NULL here). */
#define PM_NONE
#define PM_M(x) e_->a.math.m = preload_u32((int64_t)(x));
#define PM_N(x) e_->a.math.n = preload_u32((int64_t)(x));
#define PM_K(x) e_->a.math.k = pm_u64((int64_t)(x));
#define PM_BATCH(x) e_->a.math.batch = preload_u32((int64_t)(x));
#define PM_KIND(x) e_->a.math.kind = (uint8_t)(x);
#define PM_DTYPE(x) e_->a.math.dtype = (uint8_t)((unsigned)(x) + 1u);
#define PM_ALGO(x) e_->a.math.algo = (uint8_t)(x);
/* cuFFT's direction: CUFFT_FORWARD is -1, CUFFT_INVERSE 1 */
#define PM_DIRECTION(x) e_->a.math.algo = (x) == CUFFT_FORWARD ? 1 : (x) == CUFFT_INVERSE ? 2 : 0;
/* the handle a call uses (a cufftHandle is an int, the others pointers) */
#define PM_HANDLE(x) e_->a.math.handle = (uint64_t)(uintptr_t)(x);
/* a second descriptor (SpMM's B, SpMV's x): kept in k */
#define PM_HANDLE2(x) e_->a.math.k = (uint64_t)(uintptr_t)(x);
/* the call gave the handle its sizes: the model joins its users to it */
#define PM_MADE e_->a.math.lib |= CUPROF_MATH_MADE;
/* the handle the call made, through its out parameter */
#define PM_HANDLE_OUT(p)                                          \
    if ((p) != NULL) {                                            \
        e_->a.math.handle = (uint64_t)(uintptr_t)*(p);            \
        e_->a.math.lib |= CUPROF_MATH_MADE;                       \
    }
/* a plan's dims, n[0..rank-1] (int or long long), up to three */
#define PM_DIMS(rank, n)                                                              \
    if ((n) != NULL && (rank) >= 1 && (rank) <= 3) {                                  \
        e_->a.math.m = preload_u32((int64_t)(n)[0]);                                  \
        e_->a.math.n = (rank) >= 2 ? preload_u32((int64_t)(n)[1]) : 0;                \
        e_->a.math.k = (rank) >= 3 ? pm_u64((int64_t)(n)[2]) : 0;                   \
    }

/* cuBLAS's hooks: the call and nothing of its arguments. */
#define PRELOAD_GEN_BODY(ret, name, params, args, missing, pre, post) \
    PRELOAD_PLAIN_HOOK(ret, name, params, args, missing)
PRELOAD_BLAS_GEN_BODIES(PRELOAD_GEN_BODY)

/* The math libraries' hooks: which library, and what pre and post keep. */
#define PRELOAD_MATH_BODY(mlib, ret, name, params, args, missing, pre, post)          \
    PRELOAD_EXPORT ret name params                                                  \
    {                                                                               \
        preload_##name##_fn preload_gen_real_ = PRELOAD_REAL(name);                 \
        preload_call preload_gen_call_ = HOOK_BEGIN(name);                          \
        cuprof_event *e_ = preload_gen_call_.ev;                                    \
        if (e_ != NULL) {                                                           \
            e_->a.math.lib = (uint8_t)((mlib) | ((int)PRELOAD_CLS_##name == (int)CUPROF_EV_MATH_LIB ? CUPROF_MATH_WORK : 0)); \
            pre                                                                     \
        }                                                                           \
        ret preload_gen_r_ = preload_gen_real_ ? preload_gen_real_ args : (missing); \
        if (e_ != NULL && (int)preload_gen_r_ == 0) {                               \
            post                                                                    \
        }                                                                           \
        return (ret)hook_end(preload_gen_call_, (int)preload_gen_r_);               \
    }
#define PRELOAD_FFT_BODY(...) PRELOAD_MATH_BODY(CUPROF_MATH_FFT, __VA_ARGS__)
#define PRELOAD_RAND_BODY(...) PRELOAD_MATH_BODY(CUPROF_MATH_RAND, __VA_ARGS__)
#define PRELOAD_SPARSE_BODY(...) PRELOAD_MATH_BODY(CUPROF_MATH_SPARSE, __VA_ARGS__)
#define PRELOAD_SOLVER_BODY(...) PRELOAD_MATH_BODY(CUPROF_MATH_SOLVER, __VA_ARGS__)
PRELOAD_FFT_GEN_BODIES(PRELOAD_FFT_BODY)
PRELOAD_RAND_GEN_BODIES(PRELOAD_RAND_BODY)
PRELOAD_SPARSE_GEN_BODIES(PRELOAD_SPARSE_BODY)
PRELOAD_SOLVER_GEN_BODIES(PRELOAD_SOLVER_BODY)
