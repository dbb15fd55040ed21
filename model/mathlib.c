/*
 * mathlib.c - the math libraries' calls with their sizes (mathlib.h): each
 * call's own arguments, and an exec's joined from its handle's maker.
 */
#include "model/mathlib.h"
#include "model/timeline.h"
#include "model/vocab.h"
#include "model/peak.h"

#include <stdlib.h>
#include <string.h>

#include <cufft.h>
#include <curand.h>
#include <library_types.h>

/* A maker: the call that made (or sized) a handle of a library. */
typedef struct maker {
    uint8_t lib;
    uint64_t handle, t1;
    uint64_t id;             /* its event id (an event's address is not kept: a
                                streamed thread's go with their blocks) */
} maker;

struct cuprof_math_index {
    maker *v;
    size_t n;
};

static int cmp_maker(const void *a, const void *b)
{
    const maker *x = a, *y = b;
    if (x->lib != y->lib)
        return x->lib < y->lib ? -1 : 1;
    if (x->handle != y->handle)
        return x->handle < y->handle ? -1 : 1;
    return x->t1 < y->t1 ? -1 : x->t1 > y->t1;
}

static int is_maker(const cuprof_event *ev)
{
    return ev->cls == CUPROF_EV_MATH && (ev->a.math.lib & CUPROF_MATH_MADE) && ev->a.math.handle != 0 &&
           ev->result == 0;
}

cuprof_math_index *cuprof_math_index_build(const cuprof_run *run)
{
    cuprof_math_index *ix = calloc(1, sizeof *ix);
    if (!ix)
        return NULL;
    size_t want = 0;
    const uint32_t math = cuprof_run_class_bit(CUPROF_EV_MATH);
    for (size_t t = 0; t < run->nthreads; t++)
        for (uint64_t i = 0; cuprof_run_thread_has(&run->threads[t], math) && i < run->threads[t].n; i++)
            want += (size_t)is_maker(cuprof_run_event(&run->threads[t], i));
    ix->v = malloc((want ? want : 1) * sizeof *ix->v);
    if (!ix->v) {
        free(ix);
        return NULL;
    }
    for (size_t t = 0; want && t < run->nthreads; t++)
        for (uint64_t i = 0; cuprof_run_thread_has(&run->threads[t], math) && i < run->threads[t].n; i++) {
            const cuprof_event *ev = cuprof_run_event(&run->threads[t], i);
            if (is_maker(ev))
                ix->v[ix->n++] = (maker){.lib = ev->a.math.lib & CUPROF_MATH_LIB_MASK,
                                         .handle = ev->a.math.handle, .t1 = ev->t1,
                                         .id = cuprof_event_id_make(run->threads[t].index, i)};
        }
    qsort(ix->v, ix->n, sizeof *ix->v, cmp_maker);
    return ix;
}

void cuprof_math_index_destroy(cuprof_math_index *ix)
{
    if (ix) {
        free(ix->v);
        free(ix);
    }
}

/* The latest maker of (lib, handle) that ended by t0; NULL none. */
static const cuprof_event *maker_of(const cuprof_math_index *ix, const cuprof_run *run, uint8_t lib,
                                    uint64_t handle, uint64_t t0)
{
    if (!ix || handle == 0)
        return NULL;
    size_t lo = 0, hi = ix->n;   /* first entry > (lib, handle, t0) */
    maker key = {.lib = lib, .handle = handle, .t1 = t0};
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_maker(&ix->v[mid], &key) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || ix->v[lo - 1].lib != lib || ix->v[lo - 1].handle != handle)
        return NULL;
    return cuprof_run_find_event(run, ix->v[lo - 1].id, NULL);
}

/* What the call computes, by its name. */
static int op_of(uint8_t lib, const char *n)
{
    if (strstr(n, "ufferSize") || strstr(n, "_analysis") || strstr(n, "Estimate") || strstr(n, "GetSize"))
        return CUPROF_MOP_OTHER;
    switch (lib) {
    case CUPROF_MATH_FFT:
        if (!strncmp(n, "cufftExec", 9) || !strncmp(n, "cufftXtExec", 11))
            return CUPROF_MOP_FFT_EXEC;
        if (!strncmp(n, "cufftPlan", 9) || !strncmp(n, "cufftMakePlan", 13) || !strcmp(n, "cufftXtMakePlanMany"))
            return CUPROF_MOP_FFT_PLAN;
        return CUPROF_MOP_OTHER;
    case CUPROF_MATH_RAND:
        return !strncmp(n, "curandGenerate", 14) && strcmp(n, "curandGenerateSeeds") ? CUPROF_MOP_RAND_GEN
                                                                                      : CUPROF_MOP_OTHER;
    case CUPROF_MATH_SPARSE: {
        static const struct { const char *name; int op; } sp[] = {
            {"cusparseSpMV", CUPROF_MOP_SPMV}, {"cusparseSpMM", CUPROF_MOP_SPMM},
            {"cusparseSpGEMM_compute", CUPROF_MOP_SPGEMM}, {"cusparseSpGEMMreuse_compute", CUPROF_MOP_SPGEMM},
            {"cusparseSpSV_solve", CUPROF_MOP_SPSV}, {"cusparseSpSM_solve", CUPROF_MOP_SPSM},
            {"cusparseSDDMM", CUPROF_MOP_SDDMM},
        };
        for (size_t i = 0; i < sizeof sp / sizeof sp[0]; i++)
            if (!strcmp(n, sp[i].name))
                return sp[i].op;
        return !strncmp(n, "cusparseCreate", 14) && !strstr(n, "Descr") && strcmp(n, "cusparseCreate")
                   ? CUPROF_MOP_SP_DESCR
                   : CUPROF_MOP_OTHER;
    }
    case CUPROF_MATH_SOLVER: {
        static const struct { const char *part; int op; } so[] = {
            {"getrf", CUPROF_MOP_GETRF}, {"getrs", CUPROF_MOP_GETRS}, {"potrf", CUPROF_MOP_POTRF},
            {"potrs", CUPROF_MOP_POTRS}, {"geqrf", CUPROF_MOP_GEQRF}, {"ormqr", CUPROF_MOP_ORMQR},
            {"unmqr", CUPROF_MOP_ORMQR}, {"gesvd", CUPROF_MOP_GESVD}, {"syev", CUPROF_MOP_SYEVD},
            {"heev", CUPROF_MOP_SYEVD}, {"trtr", CUPROF_MOP_TRTRS}, {"Getrf", CUPROF_MOP_GETRF},
            {"Getrs", CUPROF_MOP_GETRS}, {"Potrf", CUPROF_MOP_POTRF}, {"Potrs", CUPROF_MOP_POTRS},
            {"Syevd", CUPROF_MOP_SYEVD},
        };
        for (size_t i = 0; i < sizeof so / sizeof so[0]; i++)
            if (strstr(n, so[i].part))
                return so[i].op;
        return CUPROF_MOP_OTHER;
    }
    default:
        return CUPROF_MOP_OTHER;
    }
}

/* An FFT plan's sizes (the event that made it, or the plan call itself). */
static void fft_sizes(const cuprof_event *p, cuprof_math_args *a)
{
    a->dims[0] = p->a.math.m;
    a->dims[1] = p->a.math.n;
    a->dims[2] = p->a.math.k;
    a->m = a->dims[0];
    a->n = a->dims[1];
    a->k = a->dims[2];
    a->rank = (uint8_t)(a->dims[0] ? a->dims[1] ? a->dims[2] ? 3 : 2 : 1 : 0);
    a->kind = p->a.math.kind;
    a->batch = p->a.math.batch ? p->a.math.batch : 1;
    a->dtype = p->a.math.dtype ? (int)p->a.math.dtype - 1 : -1;
    if (a->dtype < 0 && a->kind)   /* the type says it: the complex side's */
        a->dtype = a->kind == CUFFT_Z2Z || a->kind == CUFFT_D2Z || a->kind == CUFFT_Z2D ? CUDA_C_64F : CUDA_C_32F;
}

/* A cuSOLVER routine's data type by its name's precision letter
 * (cusolverDnSgetrf, cusolverSpDcsrlsvqr, ...); -1 none (the X API passes
 * its own). */
static int solver_dtype(const char *n)
{
    if (strncmp(n, "cusolverDn", 10) && strncmp(n, "cusolverSp", 10))
        return -1;
    switch (n[10]) {
    case 'S': return CUDA_R_32F;
    case 'D': return CUDA_R_64F;
    case 'C': return CUDA_C_32F;
    case 'Z': return CUDA_C_64F;
    default: return -1;
    }
}

int cuprof_math_args_of(const cuprof_math_index *ix, const cuprof_run *run, const cuprof_event *ev,
                        cuprof_math_args *a)
{
    memset(a, 0, sizeof *a);
    if (ev->cls != CUPROF_EV_MATH)
        return 0;
    uint8_t lib = ev->a.math.lib & CUPROF_MATH_LIB_MASK;
    a->lib = lib;
    a->made = (ev->a.math.lib & CUPROF_MATH_MADE) != 0;
    a->op = (uint8_t)op_of(lib, cuprof_run_api_name(run, ev->api));
    a->handle = ev->a.math.handle;
    a->m = ev->a.math.m;
    a->n = ev->a.math.n;
    a->k = ev->a.math.k;
    a->batch = ev->a.math.batch ? ev->a.math.batch : 1;
    a->kind = ev->a.math.kind;
    a->dtype = ev->a.math.dtype ? (int)ev->a.math.dtype - 1 : -1;
    a->algo = -1;
    const cuprof_event *mk = a->made ? NULL : maker_of(ix, run, lib, ev->a.math.handle, ev->t0);
    switch (lib) {
    case CUPROF_MATH_FFT:
        a->direction = ev->a.math.algo == 1 ? -1 : ev->a.math.algo == 2 ? 1 : 0;
        if (a->made || a->op == CUPROF_MOP_FFT_PLAN)
            fft_sizes(ev, a);
        else if (mk) {
            fft_sizes(mk, a);
            a->joined = 1;
        }
        break;
    case CUPROF_MATH_RAND:
        if (a->op == CUPROF_MOP_RAND_GEN) {
            a->dist = a->kind;
            a->kind = 0;
            if (mk) {
                a->kind = mk->a.math.kind;
                a->joined = 1;
            }
        }
        break;
    case CUPROF_MATH_SPARSE:
        a->algo = a->made || a->op == CUPROF_MOP_OTHER ? -1 : ev->a.math.algo;
        if (!a->made && mk) {   /* a generic operation: A's sizes, the second descriptor's columns */
            const cuprof_event *b = maker_of(ix, run, lib, ev->a.math.k, ev->t0);
            a->m = mk->a.math.m;
            a->n = mk->a.math.n;
            a->k = mk->a.math.k;
            a->kind = mk->a.math.kind;
            if (a->dtype < 0 && mk->a.math.dtype)
                a->dtype = (int)mk->a.math.dtype - 1;
            a->b_cols = b ? (b->a.math.kind == CUPROF_MATH_DENSE && b->a.math.n ? b->a.math.n : 1) : 0;
            a->joined = 1;
        }
        break;
    case CUPROF_MATH_SOLVER:
        if (a->m == 0)
            a->m = a->n;   /* a square routine passes n alone */
        if (a->dtype < 0 && a->op != CUPROF_MOP_OTHER)
            a->dtype = solver_dtype(cuprof_run_api_name(run, ev->api));
        break;
    default:
        break;
    }
    return 1;
}

const char *cuprof_fft_type_name(int type)
{
    switch (type) {
    case CUFFT_R2C: return "R2C";
    case CUFFT_C2R: return "C2R";
    case CUFFT_C2C: return "C2C";
    case CUFFT_D2Z: return "D2Z";
    case CUFFT_Z2D: return "Z2D";
    case CUFFT_Z2Z: return "Z2Z";
    default: return "";
    }
}

const char *cuprof_rng_type_name(int type)
{
    switch (type) {
    case CURAND_RNG_PSEUDO_DEFAULT: return "PSEUDO_DEFAULT";
    case CURAND_RNG_PSEUDO_XORWOW: return "XORWOW";
    case CURAND_RNG_PSEUDO_MRG32K3A: return "MRG32K3A";
    case CURAND_RNG_PSEUDO_MTGP32: return "MTGP32";
    case CURAND_RNG_PSEUDO_MT19937: return "MT19937";
    case CURAND_RNG_PSEUDO_PHILOX4_32_10: return "PHILOX4_32_10";
    case CURAND_RNG_QUASI_DEFAULT: return "QUASI_DEFAULT";
    case CURAND_RNG_QUASI_SOBOL32: return "SOBOL32";
    case CURAND_RNG_QUASI_SCRAMBLED_SOBOL32: return "SCRAMBLED_SOBOL32";
    case CURAND_RNG_QUASI_SOBOL64: return "SOBOL64";
    case CURAND_RNG_QUASI_SCRAMBLED_SOBOL64: return "SCRAMBLED_SOBOL64";
    default: return "";
    }
}

const char *cuprof_sparse_format_name(int format)
{
    switch (format) {   /* cusparseFormat_t */
    case 1: return "CSR";
    case 2: return "CSC";
    case 3: return "COO";
    case 5: return "BLOCKED_ELL";
    case 6: return "BSR";
    case 7: return "SLICED_ELL";
    case CUPROF_MATH_DENSE: return "dense";
    default: return "";
    }
}

const char *cuprof_rand_dist_name(int dist)
{
    switch (dist) {
    case CUPROF_DIST_BITS: return "bits";
    case CUPROF_DIST_UNIFORM: return "uniform";
    case CUPROF_DIST_NORMAL: return "normal";
    case CUPROF_DIST_LOGNORMAL: return "lognormal";
    case CUPROF_DIST_POISSON: return "poisson";
    default: return "";
    }
}

/* Appends (key, str) when str is not empty, (key, u) when str is NULL. */
static int field(cuprof_math_field *f, int n, const char *key, const char *str, uint64_t u)
{
    if (n >= CUPROF_MATH_FIELDS || (str && !*str))
        return n;
    f[n] = (cuprof_math_field){.key = key, .str = str, .u = u};
    return n + 1;
}

int cuprof_math_fields(const cuprof_math_args *a, const char *api_name, cuprof_math_field *f)
{
    int n = 0;
    (void)api_name;
    switch (a->lib) {
    case CUPROF_MATH_FFT:
        if (a->rank) {
            n = field(f, n, "type", cuprof_fft_type_name(a->kind), 0);
            n = field(f, n, "rank", NULL, a->rank);
            for (int d = 0; d < a->rank; d++)
                n = field(f, n, d == 0 ? "nx" : d == 1 ? "ny" : "nz", NULL, a->dims[d]);
            n = field(f, n, "batch", NULL, a->batch);
        }
        if (a->direction)
            n = field(f, n, "direction", a->direction < 0 ? "forward" : "inverse", 0);
        break;
    case CUPROF_MATH_RAND:
        n = field(f, n, "generator", cuprof_rng_type_name(a->kind), 0);
        if (a->op == CUPROF_MOP_RAND_GEN) {
            n = field(f, n, "distribution", cuprof_rand_dist_name(a->dist), 0);
            n = field(f, n, "count", NULL, a->k);
        }
        break;
    case CUPROF_MATH_SPARSE:
        if (a->m || a->n || a->k) {
            n = field(f, n, "m", NULL, a->m);
            n = field(f, n, "n", NULL, a->n);
            if (a->kind != CUPROF_MATH_DENSE)
                n = field(f, n, "nnz", NULL, a->k);
            n = field(f, n, "format", cuprof_sparse_format_name(a->kind), 0);
        }
        if (a->b_cols)
            n = field(f, n, "b_cols", NULL, a->b_cols);
        if (a->algo >= 0)
            n = field(f, n, "algorithm", NULL, (uint64_t)a->algo);
        break;
    case CUPROF_MATH_SOLVER:
        if (a->m || a->n) {
            n = field(f, n, "m", NULL, a->m);
            n = field(f, n, "n", NULL, a->n);
        }
        if (a->k)
            n = field(f, n, "nrhs", NULL, a->k);
        if (a->batch > 1)
            n = field(f, n, "batch", NULL, a->batch);
        break;
    default:
        return 0;
    }
    if (a->dtype >= 0)
        n = field(f, n, "dtype", cuprof_dtype_name((uint8_t)a->dtype), 0);
    if (a->handle && a->lib != CUPROF_MATH_SOLVER)
        n = field(f, n, a->lib == CUPROF_MATH_FFT ? "plan" : a->lib == CUPROF_MATH_RAND ? "generator handle"
                                                                                   : "descriptor",
                  NULL, a->handle);
    return n;
}

/* ---- the summary's rows ------------------------------------------------- */

static const char *library_name(int lib)
{
    static const char *const names[] = {"", "cufft", "curand", "cusparse", "cusolver"};
    return lib >= 0 && lib <= CUPROF_MATH_SOLVER ? names[lib] : "";
}

/* What the row says the call's kind is, in words. */
static const char *kind_name(const cuprof_math_args *a)
{
    switch (a->lib) {
    case CUPROF_MATH_FFT: return cuprof_fft_type_name(a->kind);
    case CUPROF_MATH_RAND: return cuprof_rand_dist_name(a->dist);
    case CUPROF_MATH_SPARSE: return cuprof_sparse_format_name(a->kind);
    default: return "";
    }
}

static int complex_type(int dtype)
{
    return dtype == CUDA_C_32F || dtype == CUDA_C_64F || dtype == CUDA_C_16F || dtype == CUDA_C_16BF;
}

/* log2 of x >= 1 without libm (the model links none): the exponent by
 * halving, the rest from ln(x) = 2 atanh((x - 1) / (x + 1)) on [1, 2). */
static double log2_of(double x)
{
    int e = 0;
    while (x >= 2.0) {
        x /= 2.0;
        e++;
    }
    double y = (x - 1.0) / (x + 1.0), y2 = y * y, term = y, sum = 0.0;
    for (int i = 1; i < 40; i += 2, term *= y2)
        sum += term / i;
    return e + 2.0 * sum / 0.69314718055994530942;
}

uint64_t cuprof_math_flops(const cuprof_math_args *a)
{
    double m = (double)a->m, n = (double)a->n, k = (double)a->k, f = 0.0;
    switch (a->op) {
    case CUPROF_MOP_FFT_EXEC: {
        double N = 1.0;
        int dims = 0;
        for (int i = 0; i < 3; i++)
            if (a->dims[i]) {
                N *= (double)a->dims[i];
                dims++;
            }
        if (!dims || N < 2)
            return 0;
        int real = a->kind == CUFFT_R2C || a->kind == CUFFT_C2R || a->kind == CUFFT_D2Z ||
                   a->kind == CUFFT_Z2D;
        f = (real ? 2.5 : 5.0) * N * log2_of(N);
        break;
    }
    case CUPROF_MOP_SPMV: case CUPROF_MOP_SPSV: f = 2.0 * k; break;
    case CUPROF_MOP_SPMM: case CUPROF_MOP_SPSM: f = 2.0 * k * (double)(a->b_cols ? a->b_cols : 1); break;
    case CUPROF_MOP_GETRF:
        if (m < n) { double t = m; m = n; n = t; }   /* min(m,n)^2 x max - min^3/3 */
        f = m * n * n - n * n * n / 3.0;
        break;
    case CUPROF_MOP_POTRF: f = n * n * n / 3.0; break;
    case CUPROF_MOP_GEQRF:
        if (m < n) { double t = m; m = n; n = t; }
        f = 2.0 * m * n * n - 2.0 / 3.0 * n * n * n;
        break;
    case CUPROF_MOP_GETRS: case CUPROF_MOP_POTRS: f = 2.0 * n * n * (k ? k : 1); break;
    case CUPROF_MOP_TRTRS: f = n * n * (k ? k : 1); break;
    default: return 0;   /* set-up, cuRAND, SpGEMM, SDDMM, ormqr, SVD, eigen: not counted */
    }
    if (a->lib == CUPROF_MATH_SOLVER && complex_type(a->dtype))
        f *= 4.0;
    return (uint64_t)(f * (double)(a->batch ? a->batch : 1) + 0.5);
}

static int cmp_math_key(const void *a, const void *b)
{
    const cuprof_stat_math *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    if ((c = strcmp(x->kind, y->kind)) || (c = strcmp(x->dtype, y->dtype)))
        return c;
    const uint64_t kx[] = {x->m, x->n, x->k, x->batch, x->b_cols}, ky[] = {y->m, y->n, y->k, y->batch, y->b_cols};
    for (int i = 0; i < 5; i++)
        if (kx[i] != ky[i])
            return kx[i] < ky[i] ? -1 : 1;
    return 0;
}

static int cmp_math_rank(const void *a, const void *b)
{
    const cuprof_stat_math *x = a, *y = b;
    if (x->gpu_total_ns != y->gpu_total_ns)
        return x->gpu_total_ns > y->gpu_total_ns ? -1 : 1;
    if (x->calls != y->calls)
        return x->calls > y->calls ? -1 : 1;
    return cmp_math_key(a, b);
}

/* 1 when a summary row counts ev: a math call that computes and succeeded. */
static int computes(const cuprof_math_index *ix, const cuprof_run *run, const cuprof_event *ev, cuprof_math_args *a)
{
    return cuprof_math_args_of(ix, run, ev, a) && ev->result == 0 && a->op != CUPROF_MOP_OTHER &&
           a->op != CUPROF_MOP_FFT_PLAN && a->op != CUPROF_MOP_SP_DESCR;
}

/* Device time charged to a math call: (the call's event id, ns). */
typedef struct charged {
    uint64_t id;
    uint64_t ns;
} charged;

static int cmp_charged(const void *a, const void *b)
{
    uint64_t x = ((const charged *)a)->id, y = ((const charged *)b)->id;
    return (x > y) - (x < y);
}

/* The event id of the math call that computes behind the hooked call `id`
 * (itself, or the nearest call around it: cuSOLVER's own cuBLAS calls), or 0. */
static uint64_t math_owner(const cuprof_math_index *ix, const cuprof_run *run, uint64_t id)
{
    const cuprof_run_thread *th = NULL;
    const cuprof_event *ev = id ? cuprof_run_find_event(run, id, &th) : NULL;
    if (!ev || !th)
        return 0;
    uint64_t i = cuprof_event_id_seq(id);
    for (int hops = 0; hops < 64; hops++) {
        cuprof_math_args a;
        if (computes(ix, run, ev, &a))
            return cuprof_event_id_make(th->index, i);
        if (ev->depth == 0 || i == 0)
            return 0;
        unsigned want = ev->depth - 1u;   /* the call around it: the nearest earlier one a level up */
        uint64_t j = i;
        while (j > 0 && cuprof_run_event(th, j - 1)->depth != want)
            j--;
        if (j == 0)
            return 0;
        i = j - 1;
        ev = cuprof_run_event(th, i);
    }
    return 0;
}

/* The device time of every GPU record charged to a math call that computes,
 * sorted by call (*n of them; NULL with *n 0 when none or out of memory). */
static charged *charges(const cuprof_math_index *ix, const cuprof_run *run, const cuprof_timeline *tl, size_t *n)
{
    *n = 0;
    const cuprof_gpu_run *g = tl ? tl->gpu : NULL;
    if (!g || !(g->n_kernels + g->n_copies))
        return NULL;
    charged *c = malloc((g->n_kernels + g->n_copies) * sizeof *c);
    if (!c)
        return NULL;
    for (size_t i = 0; i < g->n_kernels + g->n_copies; i++) {
        int k = i < g->n_kernels;
        size_t r = k ? i : i - g->n_kernels;
        const cuprof_cause cc = k ? cuprof_kernel_cause(tl, r) : cuprof_copy_cause(tl, r),
                           *cause = &cc;
        uint64_t owner = math_owner(ix, run, cause->hooked);
        uint64_t s = k ? g->kernels[r].start_ns : g->copies[r].start_ns, e = k ? g->kernels[r].end_ns : g->copies[r].end_ns;
        if (owner)
            c[(*n)++] = (charged){owner, e > s ? e - s : 0};
    }
    qsort(c, *n, sizeof *c, cmp_charged);
    return c;
}

/* The device time charged to the call with event id `id` (c sorted by call). */
static uint64_t charged_to(const charged *c, size_t n, uint64_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {   /* the first entry of ev */
        size_t mid = lo + (hi - lo) / 2;
        if (c[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint64_t ns = 0;
    for (; lo < n && c[lo].id == id; lo++)
        ns += c[lo].ns;
    return ns;
}

int cuprof_math_summarize(const cuprof_math_index *ix, const cuprof_run *run, const cuprof_timeline *tl,
                          cuprof_summary *s)
{
    size_t n = 0, want = 0;
    free(s->math);
    s->math = NULL;
    s->nmath = 0;
    for (size_t t = 0; t < run->nthreads; t++)
        for (uint64_t i = 0; cuprof_run_thread_has(&run->threads[t], cuprof_run_class_bit(CUPROF_EV_MATH)) &&
                             i < run->threads[t].n; i++)
            want += cuprof_run_event(&run->threads[t], i)->cls == CUPROF_EV_MATH;
    if (want == 0)
        return 0;
    cuprof_stat_math *rows = malloc(want * sizeof *rows);
    size_t nc = 0;
    charged *c = rows ? charges(ix, run, tl, &nc) : NULL;
    if (!rows) {
        free(c);
        return -1;
    }
    for (size_t t = 0; t < run->nthreads; t++)
        for (uint64_t i = 0; i < run->threads[t].n; i++) {
            const cuprof_event *ev = cuprof_run_event(&run->threads[t], i);
            cuprof_math_args a;
            if (!computes(ix, run, ev, &a))
                continue;
            rows[n++] = (cuprof_stat_math){.name = cuprof_run_api_name(run, ev->api),
                                           .library = library_name(a.lib), .kind = kind_name(&a),
                                           .dtype = a.dtype >= 0 ? cuprof_dtype_name((uint8_t)a.dtype) : "",
                                           .m = a.m, .n = a.n, .k = a.k, .batch = a.batch, .b_cols = a.b_cols,
                                           .calls = 1,
                                           .gpu_total_ns = charged_to(c, nc, cuprof_event_id_make(run->threads[t].index, i)),
                                           .flops_per_call = cuprof_math_flops(&a),
                                           .prec_id = a.dtype >= 0 ? cuprof_gemm_prec((uint8_t)a.dtype, 0)
                                                                   : CUPROF_PREC_UNKNOWN};
            rows[n - 1].timed_calls = rows[n - 1].gpu_total_ns != 0;
        }
    qsort(rows, n, sizeof *rows, cmp_math_key);
    size_t g = 0;
    for (size_t i = 0; i < n; i++) {
        if (g > 0 && cmp_math_key(&rows[g - 1], &rows[i]) == 0) {
            rows[g - 1].calls++;
            rows[g - 1].gpu_total_ns += rows[i].gpu_total_ns;
            rows[g - 1].timed_calls += rows[i].timed_calls;
        } else {
            rows[g++] = rows[i];
        }
    }
    free(c);
    for (size_t i = 0; i < g; i++)   /* the rate and the share of the device's peak */
        cuprof_peak_rate(s->device.peak_label, rows[i].prec_id,
                         (double)rows[i].flops_per_call * (double)rows[i].timed_calls,
                         rows[i].flops_per_call ? rows[i].gpu_total_ns : 0, &rows[i].tflops,
                         &rows[i].prec, &rows[i].peak_tflops, &rows[i].peak_pct);
    qsort(rows, g, sizeof *rows, cmp_math_rank);
    s->math = rows;
    s->nmath = g;
    return 0;
}
