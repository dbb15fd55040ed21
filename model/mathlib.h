/*
 * mathlib.h - the math libraries' calls (cuFFT, cuRAND, cuSPARSE,
 * cuSOLVER) with the arguments that size their work: what a FLOP count or a
 * trace's args need, from one accessor.
 *
 * A hook keeps what the call's own parameters say (collector/event.h,
 * a.math; preload/gen_lib_hooks.sh picks them by name). An exec call often
 * names only a handle: cufftExecC2C its plan, curandGenerateNormal its
 * generator, cusparseSpMV its descriptors. The call that made the handle (or
 * gave it its sizes: cufftMakePlan2d after cufftCreate) is flagged
 * CUPROF_MATH_MADE; cuprof_math_args_of joins a user to the latest maker of
 * the same library and handle that ended before the user began, on any
 * thread, and fills in its sizes.
 */
#ifndef CUPROF_MODEL_MATHLIB_H
#define CUPROF_MODEL_MATHLIB_H

#include <stddef.h>
#include <stdint.h>

#include "model/run.h"
#include "model/summary.h"

/* What a call computes, by its name (the routines FLOPs are counted for;
 * the rest CUPROF_MOP_OTHER: set-up, queries, buffer sizes). */
enum cuprof_math_op {
    CUPROF_MOP_OTHER = 0,
    CUPROF_MOP_FFT_PLAN,     /* cufftPlan*, cufftMakePlan*, cufftXtMakePlanMany */
    CUPROF_MOP_FFT_EXEC,     /* cufftExec*, cufftXtExec*: 5 N log2 N per transform */
    CUPROF_MOP_RAND_GEN,     /* curandGenerate* (not Seeds) */
    CUPROF_MOP_SP_DESCR,     /* cusparseCreate{Csr,Coo,...,DnMat,DnVec} */
    CUPROF_MOP_SPMV,         /* cusparseSpMV: 2 nnz */
    CUPROF_MOP_SPMM,         /* cusparseSpMM: 2 nnz n (n: B's columns, b_cols) */
    CUPROF_MOP_SPGEMM,       /* cusparseSpGEMM_compute, cusparseSpGEMMreuse_compute */
    CUPROF_MOP_SPSV,         /* cusparseSpSV_solve */
    CUPROF_MOP_SPSM,         /* cusparseSpSM_solve */
    CUPROF_MOP_SDDMM,        /* cusparseSDDMM */
    CUPROF_MOP_GETRF,        /* LU: 2/3 n^3 (m = n) */
    CUPROF_MOP_GETRS,
    CUPROF_MOP_POTRF,        /* Cholesky: 1/3 n^3 */
    CUPROF_MOP_POTRS,
    CUPROF_MOP_GEQRF,        /* QR: 4/3 n^3 (m = n) */
    CUPROF_MOP_ORMQR,        /* ormqr, unmqr */
    CUPROF_MOP_GESVD,        /* gesvd, gesvdj, gesvda, gesvdp */
    CUPROF_MOP_SYEVD,        /* syevd, syevj, heevd, heevj, syevdx */
    CUPROF_MOP_TRTRS,        /* trtri, trtrs */
};

/* One math-library call with its sizes, joined to its handle's maker. */
typedef struct cuprof_math_args {
    uint8_t lib;        /* enum cuprof_math_lib (collector/event.h); 0: not a math call */
    uint8_t op;         /* enum cuprof_math_op */
    uint8_t joined;     /* 1: the handle's maker was found and its sizes are below */
    uint8_t rank;       /* FFT: how many dims (1-3), 0 unknown */
    uint8_t made;       /* 1: this call made the handle (or gave it its sizes) */
    int kind;           /* FFT: cufftType (0 for cufftXt plans: see dtype); RAND:
                           curandRngType_t of the generator; SPARSE: cusparseFormat_t
                           of A (CUPROF_MATH_DENSE: a dense descriptor) */
    int dist;           /* RAND generate: enum cuprof_math_dist */
    int direction;      /* FFT exec: -1 forward, 1 inverse, 0 unknown */
    int dtype;          /* cudaDataType_t (FFT Xt, SPARSE value/compute type,
                           SOLVER X API, RAND output); -1 unknown */
    int algo;           /* SPARSE: the *Alg_t passed; -1 none */
    uint64_t m, n;      /* FFT: dims[0], dims[1]; SPARSE: rows, cols of A; SOLVER: m
                           (= n for square routines that pass n alone), n */
    uint64_t k;         /* FFT: dims[2]; SPARSE: nnz of A; RAND: count; SOLVER: nrhs */
    uint64_t batch;     /* FFT: transforms; SOLVER: batchSize; 1 when none was passed */
    uint64_t dims[3];   /* FFT: the transform's dims (n[0..rank-1]), 0 beyond rank */
    uint64_t handle;    /* the plan, generator or descriptor, 0 none */
    uint64_t b_cols;    /* SPARSE: columns of the second descriptor (SpMM's B), 0 unknown */
} cuprof_math_args;

typedef struct cuprof_math_index cuprof_math_index;

/* The makers of every handle in run, sorted for lookups. NULL on out of
 * memory. Owned: cuprof_math_index_destroy (NULL is fine). */
cuprof_math_index *cuprof_math_index_build(const cuprof_run *run);
void cuprof_math_index_destroy(cuprof_math_index *ix);

/* ev's arguments (ev: an event of run; ix: run's index, NULL: no joins).
 * Returns 1 with *out filled for a math-library call, else 0 (*out zeroed). */
int cuprof_math_args_of(const cuprof_math_index *ix, const cuprof_run *run, const cuprof_event *ev,
                        cuprof_math_args *out);

struct cuprof_timeline;

/* Fills s->math: the run's math-library calls that compute and succeeded,
 * grouped by entry point and size, with the device time charged to them or
 * to calls inside them (tl: the run's GPU records joined to the calls, NULL:
 * none), most GPU time first, then most calls. 0, or -1 on out of memory
 * (s->math empty). */
int cuprof_math_summarize(const cuprof_math_index *ix, const cuprof_run *run, const struct cuprof_timeline *tl,
                          cuprof_summary *s);

/* FLOPs of one call, as LAPACK's operation counts and the FFT literature
 * count them (0: not counted: set-up, cuRAND, SVD and eigen solvers, whose
 * work depends on the data): FFT 5 N log2 N per complex transform (half
 * for R2C/C2R/D2Z/Z2D), N the product of the dims; SpMV 2 nnz, SpMM
 * 2 nnz n, SpSV 2 nnz, SpSM 2 nnz n; getrf m n^2 - n^3/3 (2/3 n^3 square),
 * potrf n^3/3, geqrf 2 m n^2 - 2/3 n^3 (4/3 n^3 square), getrs and potrs
 * 2 n^2 nrhs, trtrs n^2 nrhs; x4 for complex solver types; x batch. */
uint64_t cuprof_math_flops(const cuprof_math_args *a);

/* The trace's args of a math call: up to CUPROF_MATH_FIELDS (key, value)
 * pairs, each a string (str) or a number (str NULL, u). Returns how many. */
#define CUPROF_MATH_FIELDS 14
typedef struct cuprof_math_field {
    const char *key;
    const char *str;
    uint64_t u;
} cuprof_math_field;
int cuprof_math_fields(const cuprof_math_args *a, const char *api_name, cuprof_math_field *f);

/* Names: "C2C", "XORWOW", "CSR", "normal"... ("" when unknown). */
const char *cuprof_fft_type_name(int type);
const char *cuprof_rng_type_name(int type);
const char *cuprof_sparse_format_name(int format);
const char *cuprof_rand_dist_name(int dist);

#endif /* CUPROF_MODEL_MATHLIB_H */
