/*
 * cufft.c - libcufft.so.12 of the simulated device: cuFFT's plans and
 * transforms (cufft.h). A plan (cufftPlan1d/2d/3d/Many, or cufftCreate then
 * cufftMakePlan*) keeps its sizes, layout, type and stream; an exec queues
 * one kernel per dimension on the plan's stream (plus a pre- or
 * post-processing kernel for the real transforms), each a traced
 * cudaLaunchKernel of the library's static runtime (simlib.h), and computes
 * the transform on the CPU in stream order, in double: unnormalized as
 * cuFFT's (a forward then an inverse transform gives n times the input),
 * with the basic and the advanced data layouts (inembed, stride, dist;
 * in-place real transforms padded as the documentation says). Radix 2 for
 * powers of two, the plain DFT otherwise; beyond CUSIM_COMPUTE_MAX, timed
 * only. The kernels are named as the ones an H200 ran for the corpus's
 * plans (exec() says which); the real library picks among many more.
 *
 * Work area: none for sizes made of 2, 3, 5 and 7 (the real library's
 * fast radices), two complex buffers of the transform otherwise (Bluestein);
 * allocated at plan time unless cufftSetAutoAllocation(plan, 0), then the
 * caller's (cufftSetWorkArea) must be set before an exec.
 */
#include "simlib.h"

#include <cufftXt.h>
#include <complex.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FFT_EXPORT __attribute__((visibility("default")))
#define MAX_PLANS 4096
#define PLAN_CPU_NS 50000u /* making a plan: its kernels chosen, its work sized */

typedef struct plan {
    int live, made;
    int rank, n[3];
    int has_embed, inembed[3], onembed[3];
    int istride, idist, ostride, odist;
    cufftType type;
    int batch;
    cudaStream_t stream;
    int auto_alloc;
    size_t work_size;
    void *work, *own_work;
} plan;

static plan plans[MAX_PLANS];
static int next_plan = 1;
static pthread_mutex_t plans_lock = PTHREAD_MUTEX_INITIALIZER;

static plan *plan_of(cufftHandle h)
{
    return h > 0 && h < MAX_PLANS && plans[h].live ? &plans[h] : NULL;
}

static int is_double(cufftType t)
{
    return t == CUFFT_Z2Z || t == CUFFT_D2Z || t == CUFFT_Z2D;
}
static int is_r2c(cufftType t)
{
    return t == CUFFT_R2C || t == CUFFT_D2Z;
}
static int is_c2r(cufftType t)
{
    return t == CUFFT_C2R || t == CUFFT_Z2D;
}
static int valid_type(cufftType t)
{
    return t == CUFFT_C2C || t == CUFFT_Z2Z || is_r2c(t) || is_c2r(t);
}

static int fast_size(int n)
{
    static const int radix[] = {2, 3, 5, 7};
    for (int i = 0; i < 4; i++)
        while (n % radix[i] == 0)
            n /= radix[i];
    return n == 1;
}

static long long prod(const int *n, int rank)
{
    long long p = 1;
    for (int i = 0; i < rank; i++)
        p *= n[i];
    return p;
}

/* ---- the transform, on the CPU ------------------------------------------ */

typedef struct fft_job {
    int rank, n[3];
    int has_embed, inembed[3], onembed[3];
    int istride, idist, ostride, odist;
    cufftType type;
    int dir;        /* CUFFT_FORWARD (-1) or CUFFT_INVERSE (1) */
    int batch;
    void *in, *out;
} fft_job;

static void fft_line(double complex *a, int n, int dir, double complex *tmp)
{
    if ((n & (n - 1)) == 0) { /* radix 2, in place */
        for (int i = 1, j = 0; i < n; i++) {
            int bit = n >> 1;
            for (; j & bit; bit >>= 1)
                j ^= bit;
            j ^= bit;
            if (i < j) {
                double complex t = a[i];
                a[i] = a[j];
                a[j] = t;
            }
        }
        for (int len = 2; len <= n; len <<= 1) {
            double complex w = cexp(dir * 2.0 * M_PI * I / len);
            for (int i = 0; i < n; i += len) {
                double complex wk = 1;
                for (int k = 0; k < len / 2; k++, wk *= w) {
                    double complex u = a[i + k], v = a[i + k + len / 2] * wk;
                    a[i + k] = u + v;
                    a[i + k + len / 2] = u - v;
                }
            }
        }
        return;
    }
    for (int k = 0; k < n; k++) /* the twiddles first, in tmp[n..2n) */
        tmp[n + k] = cexp(dir * 2.0 * M_PI * I * k / n);
    for (int k = 0; k < n; k++) {
        double complex s = 0;
        for (int j = 0, jk = 0; j < n; j++, jk = (jk + k) % n)
            s += a[j] * tmp[n + jk];
        tmp[k] = s;
    }
    memcpy(a, tmp, sizeof *a * (size_t)n);
}

/* Offset of a logical index in an embedding (row-major, last fastest). */
static long long embed_off(const int *idx, const int *embed, int rank)
{
    long long off = 0;
    for (int d = 0; d < rank; d++)
        off = off * embed[d] + idx[d];
    return off;
}

static void unflatten(long long f, const int *dims, int rank, int *idx)
{
    for (int d = rank - 1; d >= 0; d--) {
        idx[d] = (int)(f % dims[d]);
        f /= dims[d];
    }
}

static void fft_run(void *arg)
{
    fft_job *j = arg;
    int rank = j->rank, last = rank - 1, dbl = is_double(j->type);
    long long N = prod(j->n, rank);
    int half[3], real_pad[3], cdims[3];
    memcpy(half, j->n, sizeof half);
    half[last] = j->n[last] / 2 + 1;
    int in_place = j->in == j->out;
    memcpy(real_pad, j->n, sizeof real_pad);
    if (in_place)
        real_pad[last] = 2 * half[last];
    /* the logical input and output shapes, and their basic embeddings */
    const int *in_dims = is_c2r(j->type) ? half : j->n;
    const int *out_dims = is_r2c(j->type) ? half : j->n;
    const int *in_embed = j->has_embed ? j->inembed : is_r2c(j->type) ? real_pad : in_dims;
    const int *out_embed = j->has_embed ? j->onembed : is_c2r(j->type) ? real_pad : out_dims;
    int istride = j->has_embed ? j->istride : 1, ostride = j->has_embed ? j->ostride : 1;
    long long idist = j->has_embed ? j->idist : prod(in_embed, rank);
    long long odist = j->has_embed ? j->odist : prod(out_embed, rank);
    int maxn = 1;
    for (int d = 0; d < rank; d++)
        maxn = j->n[d] > maxn ? j->n[d] : maxn;
    double complex *z = malloc(sizeof *z * (size_t)N), *line = malloc(sizeof *line * (size_t)maxn),
                   *tmp = malloc(sizeof *tmp * 2 * (size_t)maxn);
    if (z == NULL || line == NULL || tmp == NULL)
        goto out;
    for (int b = 0; b < j->batch; b++) {
        int idx[3];
        /* load */
        long long nin = prod(in_dims, rank);
        for (long long f = 0; f < nin; f++) {
            unflatten(f, in_dims, rank, idx);
            long long at = b * idist + embed_off(idx, in_embed, rank) * istride;
            double complex v;
            if (is_r2c(j->type))
                v = dbl ? ((double *)j->in)[at] : ((float *)j->in)[at];
            else if (dbl)
                v = ((double *)j->in)[2 * at] + I * ((double *)j->in)[2 * at + 1];
            else
                v = ((float *)j->in)[2 * at] + I * ((float *)j->in)[2 * at + 1];
            z[embed_off(idx, j->n, rank)] = v;
        }
        if (is_c2r(j->type)) { /* the redundant half: X[k] = conj(X[-k]) */
            for (long long f = 0; f < N; f++) {
                unflatten(f, j->n, rank, idx);
                if (idx[last] < half[last])
                    continue;
                int m[3];
                for (int d = 0; d < rank; d++)
                    m[d] = (j->n[d] - idx[d]) % j->n[d];
                z[f] = conj(z[embed_off(m, j->n, rank)]);
            }
        }
        /* the transform, one dimension at a time */
        for (int d = 0; d < rank; d++) {
            long long stride = prod(j->n + d + 1, rank - d - 1), nd = j->n[d];
            for (long long f = 0; f < N; f++) {
                if ((f / stride) % nd != 0)
                    continue; /* f starts a line along d */
                for (long long k = 0; k < nd; k++)
                    line[k] = z[f + k * stride];
                fft_line(line, (int)nd, j->dir, tmp);
                for (long long k = 0; k < nd; k++)
                    z[f + k * stride] = line[k];
            }
        }
        /* store */
        long long nout = prod(out_dims, rank);
        for (long long f = 0; f < nout; f++) {
            unflatten(f, out_dims, rank, cdims);
            long long at = b * odist + embed_off(cdims, out_embed, rank) * ostride;
            double complex v = z[embed_off(cdims, j->n, rank)];
            if (is_c2r(j->type)) {
                if (dbl)
                    ((double *)j->out)[at] = creal(v);
                else
                    ((float *)j->out)[at] = (float)creal(v);
            } else if (dbl) {
                ((double *)j->out)[2 * at] = creal(v);
                ((double *)j->out)[2 * at + 1] = cimag(v);
            } else {
                ((float *)j->out)[2 * at] = (float)creal(v);
                ((float *)j->out)[2 * at + 1] = (float)cimag(v);
            }
        }
    }
out:
    free(z);
    free(line);
    free(tmp);
    free(j);
}

/* ---- plans -------------------------------------------------------------- */

FFT_EXPORT cufftResult cufftCreate(cufftHandle *handle)
{
    if (handle == NULL)
        return CUFFT_INVALID_VALUE;
    cusim_init();
    pthread_mutex_lock(&plans_lock);
    int h = 0;
    for (int i = 0; i < MAX_PLANS - 1 && h == 0; i++) {
        int c = (next_plan + i - 1) % (MAX_PLANS - 1) + 1;
        if (!plans[c].live)
            h = c;
    }
    if (h != 0) {
        memset(&plans[h], 0, sizeof plans[h]);
        plans[h].live = 1;
        plans[h].auto_alloc = 1;
        next_plan = h % (MAX_PLANS - 1) + 1;
    }
    pthread_mutex_unlock(&plans_lock);
    if (h == 0)
        return CUFFT_ALLOC_FAILED;
    *handle = h;
    return CUFFT_SUCCESS;
}

static size_t work_size(int rank, const int *n, cufftType type, int batch)
{
    for (int d = 0; d < rank; d++)
        if (!fast_size(n[d]))
            return (size_t)prod(n, rank) * (size_t)batch * (is_double(type) ? 16 : 8) * 2;
    return 0;
}

static cufftResult make_plan(cufftHandle h, int rank, const int *n, const int *inembed, int istride, int idist,
                             const int *onembed, int ostride, int odist, cufftType type, int batch,
                             size_t *workSize)
{
    plan *p = plan_of(h);
    if (p == NULL)
        return CUFFT_INVALID_PLAN;
    if (p->made)
        return CUFFT_INVALID_PLAN; /* a plan is made once */
    if (!valid_type(type))
        return CUFFT_INVALID_TYPE;
    if (rank < 1 || rank > 3 || n == NULL || batch < 1)
        return CUFFT_INVALID_SIZE;
    for (int d = 0; d < rank; d++)
        if (n[d] < 1)
            return CUFFT_INVALID_SIZE;
    if ((inembed == NULL) != (onembed == NULL))
        return CUFFT_INVALID_VALUE;
    cusim_spin_ns(PLAN_CPU_NS);
    p->rank = rank;
    memcpy(p->n, n, sizeof *n * (size_t)rank);
    p->has_embed = inembed != NULL;
    if (p->has_embed) {
        memcpy(p->inembed, inembed, sizeof *n * (size_t)rank);
        memcpy(p->onembed, onembed, sizeof *n * (size_t)rank);
        p->istride = istride;
        p->idist = idist;
        p->ostride = ostride;
        p->odist = odist;
    }
    p->type = type;
    p->batch = batch;
    p->work_size = work_size(rank, n, type, batch);
    if (p->auto_alloc && p->work_size > 0) {
        p->own_work = cusim_mem_alloc(p->work_size, CUSIM_MEM_DEVICE);
        if (p->own_work == NULL)
            return CUFFT_ALLOC_FAILED;
        p->work = p->own_work;
    }
    p->made = 1;
    if (workSize != NULL)
        *workSize = p->work_size;
    return CUFFT_SUCCESS;
}

FFT_EXPORT cufftResult cufftMakePlan1d(cufftHandle plan, int nx, cufftType type, int batch, size_t *workSize)
{
    return make_plan(plan, 1, (int[]){nx}, NULL, 1, 0, NULL, 1, 0, type, batch, workSize);
}

FFT_EXPORT cufftResult cufftMakePlan2d(cufftHandle plan, int nx, int ny, cufftType type, size_t *workSize)
{
    return make_plan(plan, 2, (int[]){nx, ny}, NULL, 1, 0, NULL, 1, 0, type, 1, workSize);
}

FFT_EXPORT cufftResult cufftMakePlan3d(cufftHandle plan, int nx, int ny, int nz, cufftType type, size_t *workSize)
{
    return make_plan(plan, 3, (int[]){nx, ny, nz}, NULL, 1, 0, NULL, 1, 0, type, 1, workSize);
}

FFT_EXPORT cufftResult cufftMakePlanMany(cufftHandle plan, int rank, int *n, int *inembed, int istride, int idist,
                                         int *onembed, int ostride, int odist, cufftType type, int batch,
                                         size_t *workSize)
{
    return make_plan(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, workSize);
}

FFT_EXPORT cufftResult cufftMakePlanMany64(cufftHandle plan, int rank, long long int *n, long long int *inembed,
                                           long long int istride, long long int idist, long long int *onembed,
                                           long long int ostride, long long int odist, cufftType type,
                                           long long int batch, size_t *workSize)
{
    int n32[3], in32[3], on32[3];
    if (rank < 1 || rank > 3 || n == NULL)
        return CUFFT_INVALID_SIZE;
    for (int d = 0; d < rank; d++) {
        if (n[d] > 0x7fffffff || (inembed && inembed[d] > 0x7fffffff) || (onembed && onembed[d] > 0x7fffffff))
            return CUFFT_INVALID_SIZE; /* the sim's transforms are 32-bit sized */
        n32[d] = (int)n[d];
        in32[d] = inembed ? (int)inembed[d] : 0;
        on32[d] = onembed ? (int)onembed[d] : 0;
    }
    if (batch > 0x7fffffff || idist > 0x7fffffff || odist > 0x7fffffff)
        return CUFFT_INVALID_SIZE;
    return make_plan(plan, rank, n32, inembed ? in32 : NULL, (int)istride, (int)idist, onembed ? on32 : NULL,
                     (int)ostride, (int)odist, type, (int)batch, workSize);
}

static cufftResult plan_new(cufftHandle *plan, int rank, const int *n, const int *inembed, int istride, int idist,
                            const int *onembed, int ostride, int odist, cufftType type, int batch)
{
    cufftHandle h;
    cufftResult r = cufftCreate(&h);
    if (r != CUFFT_SUCCESS)
        return r;
    r = make_plan(h, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, NULL);
    if (r != CUFFT_SUCCESS) {
        plans[h].live = 0;
        return r;
    }
    *plan = h;
    return CUFFT_SUCCESS;
}

FFT_EXPORT cufftResult cufftPlan1d(cufftHandle *plan, int nx, cufftType type, int batch)
{
    if (plan == NULL)
        return CUFFT_INVALID_VALUE;
    return plan_new(plan, 1, (int[]){nx}, NULL, 1, 0, NULL, 1, 0, type, batch);
}

FFT_EXPORT cufftResult cufftPlan2d(cufftHandle *plan, int nx, int ny, cufftType type)
{
    if (plan == NULL)
        return CUFFT_INVALID_VALUE;
    return plan_new(plan, 2, (int[]){nx, ny}, NULL, 1, 0, NULL, 1, 0, type, 1);
}

FFT_EXPORT cufftResult cufftPlan3d(cufftHandle *plan, int nx, int ny, int nz, cufftType type)
{
    if (plan == NULL)
        return CUFFT_INVALID_VALUE;
    return plan_new(plan, 3, (int[]){nx, ny, nz}, NULL, 1, 0, NULL, 1, 0, type, 1);
}

FFT_EXPORT cufftResult cufftPlanMany(cufftHandle *plan, int rank, int *n, int *inembed, int istride, int idist,
                                     int *onembed, int ostride, int odist, cufftType type, int batch)
{
    if (plan == NULL)
        return CUFFT_INVALID_VALUE;
    return plan_new(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch);
}

/* cufftXt's plan (the samples' 16-bit and callback paths start with it):
 * the transform's kind from its three data types, as cufftXt.h documents;
 * the types this sim computes (32- and 64-bit real and complex) only. */
static cufftType xt_type(cudaDataType in, cudaDataType out, cudaDataType exec)
{
    static const struct {
        cudaDataType in, out, exec;
        cufftType type;
    } kinds[] = {
        {CUDA_C_32F, CUDA_C_32F, CUDA_C_32F, CUFFT_C2C}, {CUDA_R_32F, CUDA_C_32F, CUDA_C_32F, CUFFT_R2C},
        {CUDA_C_32F, CUDA_R_32F, CUDA_C_32F, CUFFT_C2R}, {CUDA_C_64F, CUDA_C_64F, CUDA_C_64F, CUFFT_Z2Z},
        {CUDA_R_64F, CUDA_C_64F, CUDA_C_64F, CUFFT_D2Z}, {CUDA_C_64F, CUDA_R_64F, CUDA_C_64F, CUFFT_Z2D},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (kinds[i].in == in && kinds[i].out == out && kinds[i].exec == exec)
            return kinds[i].type;
    return (cufftType)0;
}

FFT_EXPORT cufftResult cufftXtMakePlanMany(cufftHandle h, int rank, long long int *n, long long int *inembed,
                                           long long int istride, long long int idist, cudaDataType inputtype,
                                           long long int *onembed, long long int ostride, long long int odist,
                                           cudaDataType outputtype, long long int batch, size_t *workSize,
                                           cudaDataType executiontype)
{
    cufftType type = xt_type(inputtype, outputtype, executiontype);
    if (type == 0)
        return plan_of(h) ? CUFFT_NOT_SUPPORTED : CUFFT_INVALID_PLAN;   /* half and bf16: not simulated */
    return cufftMakePlanMany64(h, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch,
                               workSize);
}

FFT_EXPORT cufftResult cufftDestroy(cufftHandle h)
{
    plan *p = plan_of(h);
    if (p == NULL)
        return CUFFT_INVALID_PLAN;
    if (p->own_work != NULL)
        cusim_mem_free(p->own_work, CUSIM_MEM_DEVICE);
    pthread_mutex_lock(&plans_lock);
    p->live = 0;
    pthread_mutex_unlock(&plans_lock);
    return CUFFT_SUCCESS;
}

FFT_EXPORT cufftResult cufftSetStream(cufftHandle h, cudaStream_t stream)
{
    plan *p = plan_of(h);
    if (p == NULL)
        return CUFFT_INVALID_PLAN;
    p->stream = stream;
    return CUFFT_SUCCESS;
}

FFT_EXPORT cufftResult cufftGetSize(cufftHandle h, size_t *workSize)
{
    plan *p = plan_of(h);
    if (p == NULL)
        return CUFFT_INVALID_PLAN;
    if (workSize == NULL)
        return CUFFT_INVALID_VALUE;
    *workSize = p->work_size;
    return CUFFT_SUCCESS;
}

static cufftResult estimate(int rank, const int *n, cufftType type, int batch, size_t *workSize)
{
    if (workSize == NULL)
        return CUFFT_INVALID_VALUE;
    if (!valid_type(type))
        return CUFFT_INVALID_TYPE;
    for (int d = 0; d < rank; d++)
        if (n[d] < 1)
            return CUFFT_INVALID_SIZE;
    if (batch < 1)
        return CUFFT_INVALID_SIZE;
    *workSize = work_size(rank, n, type, batch);
    return CUFFT_SUCCESS;
}

FFT_EXPORT cufftResult cufftEstimate1d(int nx, cufftType type, int batch, size_t *workSize)
{
    return estimate(1, (int[]){nx}, type, batch, workSize);
}

FFT_EXPORT cufftResult cufftEstimate2d(int nx, int ny, cufftType type, size_t *workSize)
{
    return estimate(2, (int[]){nx, ny}, type, 1, workSize);
}

FFT_EXPORT cufftResult cufftEstimate3d(int nx, int ny, int nz, cufftType type, size_t *workSize)
{
    return estimate(3, (int[]){nx, ny, nz}, type, 1, workSize);
}

FFT_EXPORT cufftResult cufftGetSize1d(cufftHandle h, int nx, cufftType type, int batch, size_t *workSize)
{
    return plan_of(h) ? estimate(1, (int[]){nx}, type, batch, workSize) : CUFFT_INVALID_PLAN;
}

FFT_EXPORT cufftResult cufftGetSize2d(cufftHandle h, int nx, int ny, cufftType type, size_t *workSize)
{
    return plan_of(h) ? estimate(2, (int[]){nx, ny}, type, 1, workSize) : CUFFT_INVALID_PLAN;
}

FFT_EXPORT cufftResult cufftGetSize3d(cufftHandle h, int nx, int ny, int nz, cufftType type, size_t *workSize)
{
    return plan_of(h) ? estimate(3, (int[]){nx, ny, nz}, type, 1, workSize) : CUFFT_INVALID_PLAN;
}

FFT_EXPORT cufftResult cufftGetSizeMany(cufftHandle h, int rank, int *n, int *inembed, int istride, int idist,
                                        int *onembed, int ostride, int odist, cufftType type, int batch,
                                        size_t *workArea)
{
    (void)inembed, (void)istride, (void)idist, (void)onembed, (void)ostride, (void)odist;
    if (plan_of(h) == NULL)
        return CUFFT_INVALID_PLAN;
    if (rank < 1 || rank > 3 || n == NULL)
        return CUFFT_INVALID_SIZE;
    return estimate(rank, n, type, batch, workArea);
}

FFT_EXPORT cufftResult cufftSetAutoAllocation(cufftHandle h, int autoAllocate)
{
    plan *p = plan_of(h);
    if (p == NULL)
        return CUFFT_INVALID_PLAN;
    p->auto_alloc = autoAllocate != 0;
    return CUFFT_SUCCESS;
}

FFT_EXPORT cufftResult cufftSetWorkArea(cufftHandle h, void *workArea)
{
    plan *p = plan_of(h);
    if (p == NULL)
        return CUFFT_INVALID_PLAN;
    p->work = workArea;
    return CUFFT_SUCCESS;
}

FFT_EXPORT cufftResult cufftGetVersion(int *version)
{
    if (version == NULL)
        return CUFFT_INVALID_VALUE;
    *version = CUFFT_VERSION;
    return CUFFT_SUCCESS;
}

FFT_EXPORT cufftResult cufftGetProperty(libraryPropertyType type, int *value)
{
    int ok = simlib_property(type, CUFFT_VER_MAJOR, CUFFT_VER_MINOR, CUFFT_VER_PATCH, value) == 0;
    return ok ? CUFFT_SUCCESS : CUFFT_INVALID_TYPE;
}

/* ---- transforms --------------------------------------------------------- */

/* Bytes an exec reads (input) or writes of one side of p's layout, as
 * fft_run walks it: the last element of the last batch, plus one. */
static size_t side_bytes(const plan *p, int input, int in_place)
{
    int rank = p->rank, last = rank - 1, dims[3], embed[3];
    int real_side = input ? is_r2c(p->type) : is_c2r(p->type);
    int cplx_half = input ? is_c2r(p->type) : is_r2c(p->type);
    memcpy(dims, p->n, sizeof dims);
    if (cplx_half)
        dims[last] = p->n[last] / 2 + 1;
    memcpy(embed, dims, sizeof embed);
    if (p->has_embed)
        memcpy(embed, input ? p->inembed : p->onembed, sizeof embed);
    else if (real_side && in_place)
        embed[last] = 2 * (p->n[last] / 2 + 1);
    long long stride = p->has_embed ? (input ? p->istride : p->ostride) : 1;
    long long dist = p->has_embed ? (input ? p->idist : p->odist) : prod(embed, rank);
    int idx[3];
    for (int d = 0; d < rank; d++)
        idx[d] = dims[d] - 1;
    long long elems = (long long)(p->batch - 1) * dist + embed_off(idx, embed, rank) * stride + 1;
    size_t es = real_side ? (is_double(p->type) ? 8 : 4) : (is_double(p->type) ? 16 : 8);
    return elems > 0 ? (size_t)elems * es : 0;
}

static cufftResult exec(cufftHandle h, cufftType want, void *in, void *out, int dir)
{
    plan *p = plan_of(h);
    if (p == NULL || !p->made)
        return CUFFT_INVALID_PLAN;
    if (p->type != want)
        return CUFFT_INVALID_VALUE;
    if (dir != CUFFT_FORWARD && dir != CUFFT_INVERSE)
        return CUFFT_INVALID_VALUE;
    if (!simlib_device_ptr(in) || !simlib_device_ptr(out) || (p->work_size > 0 && p->work == NULL))
        return CUFFT_EXEC_FAILED;
    int dbl = is_double(p->type);
    double total = (double)prod(p->n, p->rank) * p->batch, elem = dbl ? 16 : 8, work = 0;
    char name[256];
    cusim_spin_ns(SIMLIB_CALL_CPU_NS);
    /* The kernels an H200 ran for these plans (tests/fixtures/h200-580.159.04/
     * fft_roundtrip: CUPTI's mangled names, the size and precision put in):
     * a 1-D complex transform two vector_fft passes, a 1-D real one one
     * regular_fft_r2c/c2r (their own pre/post processing), a 2-D or 3-D one
     * one regular_fft of its last dimension. */
    for (int d = 0; d < p->rank; d++) {
        int n = p->n[d];
        work += total * ((n & (n - 1)) == 0 ? log2(n > 1 ? n : 2) : n);
    }
    int last = p->n[p->rank - 1], passes = p->rank == 1 && !is_r2c(p->type) && !is_c2r(p->type) ? 2 : 1;
    const char *pc = dbl ? "d" : "f";
    if (p->rank > 1)
        snprintf(name, sizeof name, "_Z11regular_fftILj%dE3EPTIJLj4ELj6EEELj16ELj10EL9padding_t14EL9twiddle_t0E"
                 "L20loadstore_modifier_t2EL8layout_t0Ej%s21HostConfigPlaceholderEv18kernel_arguments_tIT7_E", last, pc);
    else if (is_r2c(p->type) || is_c2r(p->type))
        snprintf(name, sizeof name, "_Z15regular_fft_%sILj%dE3EPTIJLj10EEELj1ELj12EL9padding_t6EL9twiddle_t0E"
                 "L20loadstore_modifier_t2EL8layout_t0Ej%s21HostConfigPlaceholderEv18kernel_arguments_tIT7_E",
                 is_r2c(p->type) ? "r2c" : "c2r", last, pc);
    else
        snprintf(name, sizeof name, "_Z10vector_fftILj%dE3EPTIJLj16EEELj1ELj32EL9padding_t70EL9twiddle_t0E"
                 "L20loadstore_modifier_t2EL8layout_t0Ej%s21HostConfigPlaceholderEv18kernel_arguments_tIT7_E", last, pc);
    for (int i = 0; i < passes; i++) {
        simlib_kernel k = {.name = name, .threads = total / 4, .block = 256, .cls = CUSIM_KERNEL_GEMM,
                           .flops = 5.0 * total * log2(total / p->batch > 1 ? total / p->batch : 2) / passes,
                           .bytes = 2.0 * total * elem, .prec_bits = dbl ? 64 : 32};
        if (simlib_launch(p->stream, &k, i > 0, NULL, NULL) != 0)   /* the call's CPU cost is spun above */
            return CUFFT_EXEC_FAILED;
    }
    fft_job *j = NULL;
    int fits = simlib_fits(in, side_bytes(p, 1, in == out)) && simlib_fits(out, side_bytes(p, 0, in == out));
    if (fits && simlib_compute(work) && (j = malloc(sizeof *j)) != NULL) {
        *j = (fft_job){.rank = p->rank, .has_embed = p->has_embed, .istride = p->istride, .idist = p->idist,
                       .ostride = p->ostride, .odist = p->odist, .type = p->type, .dir = dir,
                       .batch = p->batch, .in = in, .out = out};
        memcpy(j->n, p->n, sizeof j->n);
        memcpy(j->inembed, p->inembed, sizeof j->inembed);
        memcpy(j->onembed, p->onembed, sizeof j->onembed);
    }
    /* the result lands with the last kernel: deferred behind it */
    if (j != NULL)
        cusim_defer(fft_run, j);
    simlib_call_tail();
    return CUFFT_SUCCESS;
}

FFT_EXPORT cufftResult cufftExecC2C(cufftHandle plan, cufftComplex *idata, cufftComplex *odata, int direction)
{
    return exec(plan, CUFFT_C2C, idata, odata, direction);
}

FFT_EXPORT cufftResult cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleComplex *odata,
                                    int direction)
{
    return exec(plan, CUFFT_Z2Z, idata, odata, direction);
}

FFT_EXPORT cufftResult cufftExecR2C(cufftHandle plan, cufftReal *idata, cufftComplex *odata)
{
    return exec(plan, CUFFT_R2C, idata, odata, CUFFT_FORWARD);
}

FFT_EXPORT cufftResult cufftExecD2Z(cufftHandle plan, cufftDoubleReal *idata, cufftDoubleComplex *odata)
{
    return exec(plan, CUFFT_D2Z, idata, odata, CUFFT_FORWARD);
}

FFT_EXPORT cufftResult cufftExecC2R(cufftHandle plan, cufftComplex *idata, cufftReal *odata)
{
    return exec(plan, CUFFT_C2R, idata, odata, CUFFT_INVERSE);
}

FFT_EXPORT cufftResult cufftExecZ2D(cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleReal *odata)
{
    return exec(plan, CUFFT_Z2D, idata, odata, CUFFT_INVERSE);
}

/* cufftXt's exec of any plan: the plan's own kind; the direction of a real
 * transform is its kind's. */
FFT_EXPORT cufftResult cufftXtExec(cufftHandle h, void *input, void *output, int direction)
{
    plan *p = plan_of(h);
    if (p == NULL || !p->made)
        return CUFFT_INVALID_PLAN;
    int dir = is_r2c(p->type) ? CUFFT_FORWARD : is_c2r(p->type) ? CUFFT_INVERSE : direction;
    return exec(h, p->type, input, output, dir);
}
