/*
 * curand.c - libcurand.so.10 of the simulated device: cuRAND's host API
 * (curand.h). A device generator's numbers are made by a kernel on its
 * stream (one traced cudaLaunchKernel per generate call, simlib.h) and
 * computed on the CPU in stream order; a host generator's
 * (curandCreateGeneratorHost) in the call, on the host, with no kernel.
 *
 * The numbers: a counter-based generator (splitmix64 of the seed and the
 * element's index from the generator's offset), so the offset and the seed
 * behave as documented (same seed and offset: same numbers; the offset moves
 * by what each call made), but the values are not the real XORWOW's,
 * Philox's or Sobol's. Uniform in (0, 1], normal by Box-Muller over pairs,
 * log-normal its exp, Poisson by inversion (normal approximation above
 * lambda 64); quasi-random generators: a base-2 radical inverse per
 * dimension, dimension-major as cuRAND lays them out. Checks as documented:
 * a normal's count must be even for pseudo-random generators
 * (CURAND_STATUS_LENGTH_NOT_MULTIPLE), a quasi-random one's a multiple of its
 * dimensions, 64-bit integers only from 64-bit Sobol (TYPE_ERROR).
 */
#include "simlib.h"

#include <curand.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RAND_EXPORT __attribute__((visibility("default")))
#define GEN_MAGIC 0x43524e44u /* "CRND" */
#define SEED_CPU_NS 20000u    /* a generator's first use sets its states up */

struct curandGenerator_st {
    uint32_t magic;
    curandRngType_t type;
    int host;                 /* curandCreateGeneratorHost */
    unsigned long long seed, offset;
    curandOrdering_t ordering;
    unsigned dims;            /* quasi-random */
    cudaStream_t stream;
    int seeded;               /* the states are set up for this seed */
};

struct curandDiscreteDistribution_st {
    double lambda;
};

enum dist { D_BITS32, D_BITS64, D_UNIFORM, D_NORMAL, D_LOGNORMAL, D_POISSON };

typedef struct job {
    curandRngType_t type;
    unsigned long long seed, offset;
    unsigned dims;
    enum dist dist;
    int dbl;                  /* double output */
    double a, b;              /* mean, stddev; lambda */
    void *out;
    size_t n;
} job;

static int quasi(curandRngType_t t)
{
    return t >= CURAND_RNG_QUASI_DEFAULT;
}

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* 64 random bits of element i. */
static uint64_t bits(const job *j, size_t i)
{
    uint64_t k = j->offset + i;
    if (!quasi(j->type))
        return mix(mix(j->seed) ^ k);
    /* dimension-major: the first n/dims values are dimension 0 */
    size_t per = j->n / (j->dims ? j->dims : 1);
    uint64_t d = per ? i / per : 0, idx = j->offset / (j->dims ? j->dims : 1) + (per ? i % per : i) + 1;
    uint64_t r = 0;
    for (int b = 0; b < 64; b++, idx >>= 1)
        r |= (idx & 1) << (63 - b);
    if (d > 0 || j->type == CURAND_RNG_QUASI_SCRAMBLED_SOBOL32 || j->type == CURAND_RNG_QUASI_SCRAMBLED_SOBOL64)
        r ^= mix(d + 1) & ~(~0ull >> 1 >> 23); /* per-dimension scramble of the top bits */
    return r;
}

/* Uniform in (0, 1]. */
static double uniform(const job *j, size_t i)
{
    if (j->dbl)
        return ((bits(j, i) >> 11) + 1) * (1.0 / 9007199254740992.0);
    return ((bits(j, i) >> 40) + 1) * (1.0 / 16777216.0);
}

static double normal(const job *j, size_t i)
{
    if (quasi(j->type)) { /* inverse of the normal CDF would be exact; Box-Muller on u and a mixed twin */
        double u = uniform(j, i), v = (double)((mix(bits(j, i)) >> 11) + 1) / 9007199254740992.0;
        return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
    }
    size_t p = i & ~(size_t)1;
    double u = uniform(j, p), v = uniform(j, p + 1);
    double r = sqrt(-2.0 * log(u));
    return (i & 1) ? r * sin(2.0 * M_PI * v) : r * cos(2.0 * M_PI * v);
}

static unsigned poisson(const job *j, size_t i)
{
    double lambda = j->a;
    if (lambda > 64.0) {
        double x = floor(lambda + sqrt(lambda) * normal(j, i) + 0.5);
        return x < 0 ? 0 : (unsigned)x;
    }
    double u = uniform(j, i), p = exp(-lambda), s = p;
    unsigned k = 0;
    while (u > s && k < 1000) {
        k++;
        p *= lambda / k;
        s += p;
    }
    return k;
}

static void run(void *arg)
{
    job *j = arg;
    for (size_t i = 0; i < j->n; i++) {
        switch (j->dist) {
        case D_BITS32:
            ((unsigned *)j->out)[i] = (unsigned)(bits(j, i) >> 32);
            break;
        case D_BITS64:
            ((unsigned long long *)j->out)[i] = bits(j, i);
            break;
        case D_UNIFORM:
            if (j->dbl)
                ((double *)j->out)[i] = uniform(j, i);
            else
                ((float *)j->out)[i] = (float)uniform(j, i);
            break;
        case D_NORMAL:
        case D_LOGNORMAL: {
            double x = j->a + j->b * normal(j, i);
            if (j->dist == D_LOGNORMAL)
                x = exp(x);
            if (j->dbl)
                ((double *)j->out)[i] = x;
            else
                ((float *)j->out)[i] = (float)x;
            break;
        }
        case D_POISSON:
            ((unsigned *)j->out)[i] = poisson(j, i);
            break;
        }
    }
    free(j);
}

static curandGenerator_t gen_of(curandGenerator_t g)
{
    return g != NULL && g->magic == GEN_MAGIC ? g : NULL;
}

static const char *state_name(curandRngType_t t)
{
    switch (t) {
    case CURAND_RNG_PSEUDO_MRG32K3A: return "curandStateMRG32k3a";
    case CURAND_RNG_PSEUDO_MTGP32: return "curandStateMtgp32";
    case CURAND_RNG_PSEUDO_MT19937: return "curandStateMt19937";
    case CURAND_RNG_PSEUDO_PHILOX4_32_10: return "curandStatePhilox4_32_10";
    case CURAND_RNG_QUASI_DEFAULT:
    case CURAND_RNG_QUASI_SOBOL32: return "curandStateSobol32";
    case CURAND_RNG_QUASI_SCRAMBLED_SOBOL32: return "curandStateScrambledSobol32";
    case CURAND_RNG_QUASI_SOBOL64: return "curandStateSobol64";
    case CURAND_RNG_QUASI_SCRAMBLED_SOBOL64: return "curandStateScrambledSobol64";
    default: return "curandStateXORWOW";
    }
}

/* The set-up kernel of a generator's first use after (re)seeding. */
static curandStatus_t seed_states(curandGenerator_t g)
{
    if (g->seeded || g->host)
        return CURAND_STATUS_SUCCESS;
    char name[160];
    const char *st = state_name(g->type);
    /* a pseudo-random generator's: the name an H200 ran (mangled, as CUPTI
     * gives it: tests/fixtures/h200-580.159.04/rand_montecarlo), its state's
     * type put in */
    if (quasi(g->type))
        snprintf(name, sizeof name, "sobol_init<%s>", st);
    else
        snprintf(name, sizeof name, "_Z20generate_seed_pseudoI10rng_configI%zu%sL14curandOrdering101EEEvyyyS2_PS1_Pj",
                 strlen(st), st);
    simlib_kernel k = {.name = name, .threads = 64 * 1024, .block = 64, .cls = CUSIM_KERNEL_ELEMENTWISE,
                       .bytes = 64.0 * 1024 * 48};
    cusim_spin_ns(SEED_CPU_NS);
    if (simlib_launch(g->stream, &k, 0, NULL, NULL) != 0)
        return CURAND_STATUS_LAUNCH_FAILURE;
    g->seeded = 1;
    return CURAND_STATUS_SUCCESS;
}

static curandStatus_t generate(curandGenerator_t gen, void *out, size_t n, enum dist dist, int dbl, double a,
                               double b)
{
    curandGenerator_t g = gen_of(gen);
    if (g == NULL)
        return CURAND_STATUS_NOT_INITIALIZED;
    cusim_init();
    if (dist == D_BITS64 && g->type != CURAND_RNG_QUASI_SOBOL64 && g->type != CURAND_RNG_QUASI_SCRAMBLED_SOBOL64)
        return CURAND_STATUS_TYPE_ERROR;
    if (dist == D_BITS32 && (g->type == CURAND_RNG_QUASI_SOBOL64 || g->type == CURAND_RNG_QUASI_SCRAMBLED_SOBOL64))
        return CURAND_STATUS_TYPE_ERROR;
    if (quasi(g->type) && n % g->dims != 0)
        return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
    if (!quasi(g->type) && (dist == D_NORMAL || dist == D_LOGNORMAL) && n % 2 != 0)
        return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
    if (n == 0)
        return CURAND_STATUS_SUCCESS;
    if (out == NULL)
        return CURAND_STATUS_LAUNCH_FAILURE;
    job *j = malloc(sizeof *j);
    if (j == NULL)
        return CURAND_STATUS_ALLOCATION_FAILED;
    *j = (job){g->type, g->seed, g->offset, g->dims, dist, dbl, a, b, out, n};
    size_t es = dist == D_BITS64 || dbl ? 8 : 4;
    g->offset += n;
    if (g->host) { /* the host API: made here, on the CPU */
        run(j);
        return CURAND_STATUS_SUCCESS;
    }
    if (!simlib_device_ptr(out)) { /* a kernel writing pageable host memory faults */
        free(j);
        return CURAND_STATUS_LAUNCH_FAILURE;
    }
    curandStatus_t st = seed_states(g);
    if (st != CURAND_STATUS_SUCCESS) {
        free(j);
        return st;
    }
    static const char *const dist_name[] = {"bits32", "bits64", "uniform", "normal", "lognormal", "poisson"};
    /* The kernels an H200 ran (mangled: tests/fixtures/h200-580.159.04/
     * rand_montecarlo) for float uniform, double normal and Poisson draws,
     * the generator's state type put in; the others by a readable name. */
    const char *sn = state_name(g->type), *fmt = NULL;
    if (dist == D_UNIFORM && !dbl)
        fmt = "_Z13gen_sequencedI%zu%sfiXadL_Z21curand_uniform_noargsIS0_EfPT_iEE10rng_configIS0_L14curandOrdering"
              "101EEEvS3_PT0_mmT1_";
    else if (dist == D_NORMAL && dbl)
        fmt = "_Z13gen_sequencedI%zu%s7double221normal_args_double_stXadL_Z28curand_normal_scaled2_doubleIS0_ES1_PT"
              "_S2_EE10rng_configIS0_L14curandOrdering101EEEvS5_PT0_mmT1_";
    else if (dist == D_POISSON)
        fmt = "_Z13gen_sequencedI%zu%sjP28curandDistributionM2Shift_stXadL_Z25internal_curand_M2_doubleIS0_EjPT_S2_"
              "EE10rng_configIS0_L14curandOrdering101EEEvS5_PT0_mmT1_";
    char name[256];
    if (fmt != NULL && !quasi(g->type))
        snprintf(name, sizeof name, fmt, strlen(sn), sn);
    else
        snprintf(name, sizeof name, "gen_sequenced<%s, %s, %s>", sn,
                 dist == D_BITS32 || dist == D_POISSON ? "unsigned int"
                 : dist == D_BITS64                    ? "unsigned long long"
                 : dbl                                 ? "double"
                                                       : "float",
                 dist_name[dist]);
    simlib_kernel k = {.name = name, .threads = (double)n / 4, .block = 256, .cls = CUSIM_KERNEL_ELEMENTWISE,
                       .bytes = (double)n * es};
    if (!simlib_compute((double)n) || !simlib_fits(out, n * es)) { /* timed only */
        free(j);
        j = NULL;
    }
    if (simlib_launch(g->stream, &k, 1, j ? run : NULL, j) != 0)
        return CURAND_STATUS_LAUNCH_FAILURE;
    simlib_call_tail();
    return CURAND_STATUS_SUCCESS;
}

static curandStatus_t create(curandGenerator_t *generator, curandRngType_t type, int host)
{
    if (generator == NULL)
        return CURAND_STATUS_NOT_INITIALIZED;
    switch (type) {
    case CURAND_RNG_PSEUDO_DEFAULT: type = CURAND_RNG_PSEUDO_XORWOW; break;
    case CURAND_RNG_QUASI_DEFAULT: type = CURAND_RNG_QUASI_SOBOL32; break;
    case CURAND_RNG_PSEUDO_XORWOW:
    case CURAND_RNG_PSEUDO_MRG32K3A:
    case CURAND_RNG_PSEUDO_MTGP32:
    case CURAND_RNG_PSEUDO_MT19937:
    case CURAND_RNG_PSEUDO_PHILOX4_32_10:
    case CURAND_RNG_QUASI_SOBOL32:
    case CURAND_RNG_QUASI_SCRAMBLED_SOBOL32:
    case CURAND_RNG_QUASI_SOBOL64:
    case CURAND_RNG_QUASI_SCRAMBLED_SOBOL64: break;
    default: return CURAND_STATUS_TYPE_ERROR;
    }
    cusim_init();
    curandGenerator_t g = calloc(1, sizeof *g);
    if (g == NULL)
        return CURAND_STATUS_ALLOCATION_FAILED;
    g->magic = GEN_MAGIC;
    g->type = type;
    g->host = host;
    g->seed = 0;
    g->ordering = quasi(type) ? CURAND_ORDERING_QUASI_DEFAULT : CURAND_ORDERING_PSEUDO_DEFAULT;
    g->dims = 1;
    *generator = g;
    return CURAND_STATUS_SUCCESS;
}

RAND_EXPORT curandStatus_t curandCreateGenerator(curandGenerator_t *generator, curandRngType_t rng_type)
{
    return create(generator, rng_type, 0);
}

RAND_EXPORT curandStatus_t curandCreateGeneratorHost(curandGenerator_t *generator, curandRngType_t rng_type)
{
    return create(generator, rng_type, 1);
}

RAND_EXPORT curandStatus_t curandDestroyGenerator(curandGenerator_t generator)
{
    curandGenerator_t g = gen_of(generator);
    if (g == NULL)
        return CURAND_STATUS_NOT_INITIALIZED;
    g->magic = 0;
    free(g);
    return CURAND_STATUS_SUCCESS;
}

RAND_EXPORT curandStatus_t curandGetVersion(int *version)
{
    if (version == NULL)
        return CURAND_STATUS_OUT_OF_RANGE;
    *version = CURAND_VERSION;
    return CURAND_STATUS_SUCCESS;
}

RAND_EXPORT curandStatus_t curandGetProperty(libraryPropertyType type, int *value)
{
    int ok = simlib_property(type, CURAND_VER_MAJOR, CURAND_VER_MINOR, CURAND_VER_PATCH, value) == 0;
    return ok ? CURAND_STATUS_SUCCESS : CURAND_STATUS_OUT_OF_RANGE;
}

RAND_EXPORT curandStatus_t curandSetStream(curandGenerator_t generator, cudaStream_t stream)
{
    curandGenerator_t g = gen_of(generator);
    if (g == NULL)
        return CURAND_STATUS_NOT_INITIALIZED;
    g->stream = stream;
    return CURAND_STATUS_SUCCESS;
}

RAND_EXPORT curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t generator, unsigned long long seed)
{
    curandGenerator_t g = gen_of(generator);
    if (g == NULL)
        return CURAND_STATUS_NOT_INITIALIZED;
    if (quasi(g->type))
        return CURAND_STATUS_TYPE_ERROR;
    g->seed = seed;
    g->seeded = 0;
    return CURAND_STATUS_SUCCESS;
}

RAND_EXPORT curandStatus_t curandSetGeneratorOffset(curandGenerator_t generator, unsigned long long offset)
{
    curandGenerator_t g = gen_of(generator);
    if (g == NULL)
        return CURAND_STATUS_NOT_INITIALIZED;
    g->offset = offset;
    g->seeded = 0;
    return CURAND_STATUS_SUCCESS;
}

RAND_EXPORT curandStatus_t curandSetGeneratorOrdering(curandGenerator_t generator, curandOrdering_t order)
{
    curandGenerator_t g = gen_of(generator);
    if (g == NULL)
        return CURAND_STATUS_NOT_INITIALIZED;
    int q = order == CURAND_ORDERING_QUASI_DEFAULT;
    if (q != quasi(g->type) || (!q && (order < CURAND_ORDERING_PSEUDO_BEST || order > CURAND_ORDERING_PSEUDO_DYNAMIC)))
        return CURAND_STATUS_OUT_OF_RANGE;
    g->ordering = order;
    return CURAND_STATUS_SUCCESS;
}

RAND_EXPORT curandStatus_t curandSetQuasiRandomGeneratorDimensions(curandGenerator_t generator,
                                                                    unsigned int num_dimensions)
{
    curandGenerator_t g = gen_of(generator);
    if (g == NULL)
        return CURAND_STATUS_NOT_INITIALIZED;
    if (!quasi(g->type))
        return CURAND_STATUS_TYPE_ERROR;
    if (num_dimensions < 1 || num_dimensions > 20000)
        return CURAND_STATUS_OUT_OF_RANGE;
    g->dims = num_dimensions;
    g->seeded = 0;
    return CURAND_STATUS_SUCCESS;
}

RAND_EXPORT curandStatus_t curandGenerateSeeds(curandGenerator_t generator)
{
    curandGenerator_t g = gen_of(generator);
    if (g == NULL)
        return CURAND_STATUS_NOT_INITIALIZED;
    cusim_init();
    return seed_states(g);
}

RAND_EXPORT curandStatus_t curandGenerate(curandGenerator_t generator, unsigned int *outputPtr, size_t num)
{
    return generate(generator, outputPtr, num, D_BITS32, 0, 0, 0);
}

RAND_EXPORT curandStatus_t curandGenerateLongLong(curandGenerator_t generator, unsigned long long *outputPtr,
                                                  size_t num)
{
    return generate(generator, outputPtr, num, D_BITS64, 0, 0, 0);
}

RAND_EXPORT curandStatus_t curandGenerateUniform(curandGenerator_t generator, float *outputPtr, size_t num)
{
    return generate(generator, outputPtr, num, D_UNIFORM, 0, 0, 0);
}

RAND_EXPORT curandStatus_t curandGenerateUniformDouble(curandGenerator_t generator, double *outputPtr, size_t num)
{
    return generate(generator, outputPtr, num, D_UNIFORM, 1, 0, 0);
}

RAND_EXPORT curandStatus_t curandGenerateNormal(curandGenerator_t generator, float *outputPtr, size_t n, float mean,
                                                float stddev)
{
    return generate(generator, outputPtr, n, D_NORMAL, 0, mean, stddev);
}

RAND_EXPORT curandStatus_t curandGenerateNormalDouble(curandGenerator_t generator, double *outputPtr, size_t n,
                                                      double mean, double stddev)
{
    return generate(generator, outputPtr, n, D_NORMAL, 1, mean, stddev);
}

RAND_EXPORT curandStatus_t curandGenerateLogNormal(curandGenerator_t generator, float *outputPtr, size_t n,
                                                   float mean, float stddev)
{
    return generate(generator, outputPtr, n, D_LOGNORMAL, 0, mean, stddev);
}

RAND_EXPORT curandStatus_t curandGenerateLogNormalDouble(curandGenerator_t generator, double *outputPtr, size_t n,
                                                         double mean, double stddev)
{
    return generate(generator, outputPtr, n, D_LOGNORMAL, 1, mean, stddev);
}

RAND_EXPORT curandStatus_t curandGeneratePoisson(curandGenerator_t generator, unsigned int *outputPtr, size_t n,
                                                 double lambda)
{
    if (!(lambda > 0))
        return CURAND_STATUS_OUT_OF_RANGE;
    return generate(generator, outputPtr, n, D_POISSON, 0, lambda, 0);
}

RAND_EXPORT curandStatus_t curandGeneratePoissonMethod(curandGenerator_t generator, unsigned int *outputPtr,
                                                       size_t n, double lambda, curandMethod_t method)
{
    (void)method;
    return curandGeneratePoisson(generator, outputPtr, n, lambda);
}

RAND_EXPORT curandStatus_t curandCreatePoissonDistribution(double lambda,
                                                           curandDiscreteDistribution_t *discrete_distribution)
{
    if (discrete_distribution == NULL || !(lambda > 0))
        return CURAND_STATUS_OUT_OF_RANGE;
    curandDiscreteDistribution_t d = malloc(sizeof *d);
    if (d == NULL)
        return CURAND_STATUS_ALLOCATION_FAILED;
    d->lambda = lambda;
    *discrete_distribution = d;
    return CURAND_STATUS_SUCCESS;
}

RAND_EXPORT curandStatus_t curandDestroyDistribution(curandDiscreteDistribution_t discrete_distribution)
{
    free(discrete_distribution);
    return CURAND_STATUS_SUCCESS;
}
