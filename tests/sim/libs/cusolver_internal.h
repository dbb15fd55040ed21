/*
 * cusolver_internal.h - what the simulated cuSOLVER's files share (cusolver.c:
 * the handle, getrf/getrs/potrf/potrs, geqrf and syevd timed; cusolver_batched.c:
 * the batched Cholesky; cusolver_svd.c: gesvd): the handle, a routine's job, the
 * factorizations on doubles and the launch of a routine's kernels.
 */
#ifndef CUSOLVER_INTERNAL_H
#define CUSOLVER_INTERNAL_H

#include "simlib.h"

#include <cusolverDn.h>

#define SOLVER_EXPORT __attribute__((visibility("default")))
#define HANDLE_MAGIC 0x534f4c56u /* "SOLV" */

struct cusolverDnContext {
    uint32_t magic;
    cudaStream_t stream;
};

/* What a job computes; OP_OWN: its own_run does (cusolver_batched.c). */
enum op { OP_GETRF, OP_GETRS, OP_POTRF, OP_POTRS, OP_TIMED, OP_OWN };

/* One routine call, computed by a job deferred in stream order. */
typedef struct solve_job {
    enum op op;
    int dbl, compute;
    int m, n, nrhs;
    void *a, *b;
    int lda, ldb;
    int *ipiv;   /* getrf: out (NULL: no pivoting); getrs: in */
    int *info;
    int trans;   /* getrs */
    int upper;   /* potrf, potrs */
    /* OP_OWN: computes (when compute), writes info, frees j; j is then the
     * first member of a larger struct with the routine's arguments */
    void (*own_run)(struct solve_job *j);
} solve_job;

static inline double get(const void *p, int dbl, long long i)
{
    return dbl ? ((const double *)p)[i] : ((const float *)p)[i];
}

static inline void put(void *p, int dbl, long long i, double v)
{
    if (dbl)
        ((double *)p)[i] = v;
    else
        ((float *)p)[i] = (float)v;
}

#define WORK_PER_COL 64   /* the workspace the bufferSize calls ask for, in elements per column */

static inline cusolverDnHandle_t handle_of(cusolverDnHandle_t h)
{
    return h != NULL && h->magic == HANDLE_MAGIC ? h : NULL;
}

/* The rows x cols matrix at p (leading dimension ld) as doubles, column-major
 * with leading dimension rows; NULL out of memory. The caller frees it. */
double *solver_load(const void *p, int dbl, int rows, int cols, int ld);
/* Writes a (leading dimension rows) back to p. */
void solver_store(void *p, int dbl, const double *a, int rows, int cols, int ld);
/* Cholesky of the m x m matrix a in place (the lower or upper triangle):
 * 0, or LAPACK's info (the first minor not positive definite). */
int solver_potrf(double *a, int m, int upper);
/* Solves A X = B with a's Cholesky factor; b: m x nrhs. */
void solver_potrs(const double *a, int m, int upper, double *b, int nrhs);
/* The workspace geqrf, gesvd and syevd ask for (elements). */
int solver_big_work(int m, int n);
/* A zeroed job of op; NULL out of memory. */
solve_job *solver_job_new(enum op op, int dbl);
/* Queues routine `what` of j on the handle's stream (its kernels, the result
 * with the main one; j is the callee's from here). */
cusolverStatus_t solver_run(cusolverDnHandle_t h, const char *what, solve_job *j, double flops, double elems);

#endif
