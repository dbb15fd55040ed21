/*
 * cusolver_svd.c - the simulated cuSOLVER's SVD, gesvd (S and D): A = U S VT
 * for m >= n (cuSOLVER's gesvd supports no other shape), with LAPACK's jobu
 * and jobvt ('A' all, 'S' the first n, 'O' overwriting A, 'N' none).
 * Computed on the CPU by the routine's job, in stream order, in double, by
 * one-sided Jacobi (Hestenes): columns of A rotated pairwise until
 * orthogonal; their norms are the singular values (sorted descending), the
 * normalized columns U's first columns, completed to an orthonormal basis
 * where a value is 0 or jobu asks for all m; the rotations make V. The real
 * library bidiagonalizes and runs QR iterations: the values agree to
 * rounding, the vectors up to their signs. Before (issue 41) gesvd was timed
 * only, its outputs untouched, and NVIDIA's example's residual read whatever
 * the memory held. Over CUSIM_COMPUTE_MAX, or with a buffer too small for
 * its size, timed only (devInfo 0).
 */
#include "cusolver_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define JACOBI_SWEEPS 60   /* a few dozen suffice in double for any size the sim computes */

typedef struct svd_job {
    solve_job j;              /* first: m, n, a, lda, info, dbl, compute */
    signed char jobu, jobvt;
    void *s, *u, *vt;
    int ldu, ldvt;
} svd_job;

/* Columns p and q of the rows x cols matrix x (leading dimension rows) after
 * the rotation (c, s). */
static void rotate(double *x, int rows, int p, int q, double c, double s)
{
    for (int i = 0; i < rows; i++) {
        double xp = x[i + (long long)p * rows], xq = x[i + (long long)q * rows];
        x[i + (long long)p * rows] = c * xp - s * xq;
        x[i + (long long)q * rows] = s * xp + c * xq;
    }
}

/* Orthogonalizes the columns of w (m x n) by rotations accumulated in v
 * (n x n, the identity on entry). 0 when converged, else n. */
static int jacobi(double *w, int m, int n, double *v)
{
    for (int sweep = 0; sweep < JACOBI_SWEEPS; sweep++) {
        int rotated = 0;
        for (int p = 0; p < n - 1; p++)
            for (int q = p + 1; q < n; q++) {
                double a = 0, b = 0, g = 0;
                for (int i = 0; i < m; i++) {
                    double xp = w[i + (long long)p * m], xq = w[i + (long long)q * m];
                    a += xp * xp, b += xq * xq, g += xp * xq;
                }
                if (g == 0 || fabs(g) <= 1e-15 * sqrt(a * b))
                    continue;
                double zeta = (b - a) / (2 * g);
                double t = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1 + zeta * zeta));
                double c = 1 / sqrt(1 + t * t), s = c * t;
                rotate(w, m, p, q, c, s);
                rotate(v, n, p, q, c, s);
                rotated = 1;
            }
        if (!rotated)
            return 0;
    }
    return n;
}

/* Makes column k of u (m rows) a unit vector orthogonal to columns 0..k-1,
 * from the first standard basis vector that is not in their span. */
static void complete(double *u, int m, int k)
{
    double *x = u + (long long)k * m;
    for (int e = 0; e < m; e++) {
        memset(x, 0, sizeof *x * (size_t)m);
        x[e] = 1;
        for (int pass = 0; pass < 2; pass++)   /* twice: Gram-Schmidt loses orthogonality once */
            for (int c = 0; c < k; c++) {
                const double *y = u + (long long)c * m;
                double d = 0;
                for (int i = 0; i < m; i++)
                    d += x[i] * y[i];
                for (int i = 0; i < m; i++)
                    x[i] -= d * y[i];
            }
        double nrm = 0;
        for (int i = 0; i < m; i++)
            nrm += x[i] * x[i];
        if (nrm > 1e-12) {
            for (int i = 0; i < m; i++)
                x[i] /= sqrt(nrm);
            return;
        }
    }
}

static int by_sigma_desc(const void *x, const void *y, void *sig)
{
    double a = ((const double *)sig)[*(const int *)x], b = ((const double *)sig)[*(const int *)y];
    return (a < b) - (a > b);
}

/* qsort_r is glibc's; a plain insertion sort is enough for the sizes computed. */
static void sort_desc(int *order, int n, const double *sig)
{
    for (int i = 1; i < n; i++)
        for (int k = i; k > 0 && by_sigma_desc(&order[k - 1], &order[k], (void *)sig) > 0; k--) {
            int t = order[k];
            order[k] = order[k - 1], order[k - 1] = t;
        }
}

/* 1 when the rows x cols matrix at p (leading dimension ld) fits its buffer. */
static int fits(const void *p, int dbl, int rows, int cols, int ld)
{
    return rows <= 0 || cols <= 0 || simlib_fits(p, ((size_t)ld * (size_t)(cols - 1) + (size_t)rows) * (dbl ? 8 : 4));
}

static int ucols(const svd_job *s)
{
    return s->jobu == 'A' ? s->j.m : s->jobu == 'N' ? 0 : s->j.n;
}

static int outputs_fit(const svd_job *s)
{
    const solve_job *j = &s->j;
    return fits(j->a, j->dbl, j->m, j->n, j->lda) && fits(s->s, j->dbl, j->n, 1, j->n) &&
           (s->jobu != 'A' && s->jobu != 'S' ? 1 : fits(s->u, j->dbl, j->m, ucols(s), s->ldu)) &&
           (s->jobvt != 'A' && s->jobvt != 'S' ? 1 : fits(s->vt, j->dbl, j->n, j->n, s->ldvt));
}

static void svd_run(solve_job *sj)
{
    svd_job *s = (svd_job *)sj;
    int m = sj->m, n = sj->n, info = 0, uc = ucols(s);
    double *w = NULL, *v = calloc((size_t)n * n + 1, sizeof *v), *sig = calloc((size_t)n + 1, sizeof *sig);
    double *u = calloc((size_t)m * (uc > n ? uc : n) + 1, sizeof *u), *vt = calloc((size_t)n * n + 1, sizeof *vt);
    int *order = calloc((size_t)n + 1, sizeof *order);
    if (!sj->compute || !outputs_fit(s) || v == NULL || sig == NULL || u == NULL || vt == NULL || order == NULL ||
        (w = solver_load(sj->a, sj->dbl, m, n, sj->lda)) == NULL)
        goto out;
    for (int i = 0; i < n; i++)
        v[i + (long long)i * n] = 1, order[i] = i;
    info = jacobi(w, m, n, v);
    for (int c = 0; c < n; c++) {
        double nrm = 0;
        for (int i = 0; i < m; i++)
            nrm += w[i + (long long)c * m] * w[i + (long long)c * m];
        sig[c] = sqrt(nrm);
    }
    sort_desc(order, n, sig);
    double tol = (sig[order[0]] > 0 ? sig[order[0]] : 1) * 1e-14 * m;
    int k = 0;
    for (; k < n && sig[order[k]] > tol; k++)   /* U's columns for the nonzero values */
        for (int i = 0; i < m; i++)
            u[i + (long long)k * m] = w[i + (long long)order[k] * m] / sig[order[k]];
    for (int c = k; c < (uc > n ? uc : n); c++)
        complete(u, m, c);
    for (int r = 0; r < n; r++) {
        put(s->s, sj->dbl, r, r < k ? sig[order[r]] : 0);
        for (int c = 0; c < n; c++)
            vt[r + (long long)c * n] = v[c + (long long)order[r] * n];
    }
    if (s->jobu == 'A' || s->jobu == 'S')
        solver_store(s->u, sj->dbl, u, m, uc, s->ldu);
    else if (s->jobu == 'O')
        solver_store(sj->a, sj->dbl, u, m, n, sj->lda);
    if (s->jobvt == 'A' || s->jobvt == 'S')
        solver_store(s->vt, sj->dbl, vt, n, n, s->ldvt);
    else if (s->jobvt == 'O')
        solver_store(sj->a, sj->dbl, vt, n, n, sj->lda);
out:
    if (sj->info != NULL)
        *sj->info = info;
    free(w);
    free(v);
    free(sig);
    free(u);
    free(vt);
    free(order);
    free(s);
}

static int job_ok(signed char c)
{
    return c == 'A' || c == 'S' || c == 'O' || c == 'N';
}

static cusolverStatus_t gesvd(cusolverDnHandle_t h, int dbl, signed char jobu, signed char jobvt, int m, int n,
                              void *a, int lda, void *sv, void *u, int ldu, void *vt, int ldvt, void *work, int lwork,
                              int *info)
{
    if (handle_of(h) == NULL)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (n < 0 || m < n || !job_ok(jobu) || !job_ok(jobvt) || (jobu == 'O' && jobvt == 'O') || lda < (m > 1 ? m : 1) ||
        ((jobu == 'A' || jobu == 'S') && ldu < (m > 1 ? m : 1)) ||
        ((jobvt == 'A' || jobvt == 'S') && ldvt < (n > 1 ? n : 1)) || work == NULL ||
        lwork < solver_big_work(m, n) || info == NULL)
        return CUSOLVER_STATUS_INVALID_VALUE;   /* cuSOLVER's gesvd: m >= n only */
    svd_job *s = calloc(1, sizeof *s);
    if (s == NULL)
        return CUSOLVER_STATUS_ALLOC_FAILED;
    s->j = (solve_job){.op = OP_OWN, .dbl = dbl, .m = m, .n = n, .a = a, .lda = lda, .info = info,
                       .own_run = svd_run};
    s->jobu = jobu, s->jobvt = jobvt, s->s = sv, s->u = u, s->vt = vt, s->ldu = ldu, s->ldvt = ldvt;
    return solver_run(h, "gesvd", &s->j, 22.0 * m * n * n, (double)m * n);
}

#define GESVD(T, P, DBL)                                                                                          \
    SOLVER_EXPORT cusolverStatus_t cusolverDn##P##gesvd(cusolverDnHandle_t h, signed char jobu,                  \
                                                        signed char jobvt, int m, int n, T *a, int lda, T *s,    \
                                                        T *u, int ldu, T *vt, int ldvt, T *work, int lwork,      \
                                                        T *rwork, int *info)                                     \
    {                                                                                                             \
        (void)rwork;                                                                                              \
        return gesvd(h, DBL, jobu, jobvt, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, info);                  \
    }

GESVD(float, S, 0)
GESVD(double, D, 1)
