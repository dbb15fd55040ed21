// rand_montecarlo: cuRAND's host API as its guide's example and the
// MonteCarloPi samples use it: a XORWOW generator on a stream estimates pi
// from uniform points, draws normal doubles whose mean and deviation are
// checked, and Poisson counts; reseeding gives the same numbers again; an
// odd count of normals is refused as documented; a host Philox generator
// fills host memory with no kernel.
//@ link -lcurand
//@ api curandCreateGenerator 1
//@ api curandGenerateUniform 3
//@ api curandGenerateNormalDouble 2
//@ api curandGeneratePoisson 1
//@ kernel void generate_seed_pseudo<rng_config<curandStateXORWOW, (curandOrdering)101> > 2
//@ kernel_prefix void gen_sequenced<curandStateXORWOW, float, int 2
//@ kernel_prefix void gen_sequenced<curandStateXORWOW, double2, normal_args_double_st 1
//@ kernel_prefix void gen_sequenced<curandStateXORWOW, unsigned int, curandDistributionM2Shift_st* 1
#include "common.h"
#include <cmath>
#include <cstring>
#include <curand.h>

#define CHECK_RAND(call)                                                                 \
    do {                                                                                 \
        curandStatus_t r_ = (call);                                                      \
        if (r_ != CURAND_STATUS_SUCCESS) {                                               \
            fprintf(stderr, "cuRAND error %d at %s:%d\n", (int)r_, __FILE__, __LINE__);  \
            exit(EXIT_FAILURE);                                                          \
        }                                                                                \
    } while (0)

int main()
{
    const size_t n = 200000;
    float *d, *h = (float *)malloc(sizeof(float) * 2 * n), *again = (float *)malloc(sizeof(float) * 2 * n);
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMalloc(&d, sizeof(float) * 2 * n));
    curandGenerator_t g;
    CHECK_RAND(curandCreateGenerator(&g, CURAND_RNG_PSEUDO_DEFAULT));
    CHECK_RAND(curandSetStream(g, s));
    CHECK_RAND(curandSetPseudoRandomGeneratorSeed(g, 1234ULL));
    CHECK_RAND(curandGenerateUniform(g, d, 2 * n));
    CHECK(cudaMemcpyAsync(h, d, sizeof(float) * 2 * n, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    size_t inside = 0;
    for (size_t i = 0; i < n; i++) {
        if (h[2 * i] <= 0.0f || h[2 * i] > 1.0f) {
            fprintf(stderr, "rand_montecarlo: uniform %g out of (0, 1]\n", h[2 * i]);
            return 1;
        }
        inside += h[2 * i] * h[2 * i] + h[2 * i + 1] * h[2 * i + 1] <= 1.0f;
    }
    double pi = 4.0 * inside / n;
    printf("rand_montecarlo: pi ~ %.2f from %zu points\n", pi, n);
    if (fabs(pi - M_PI) > 0.02)
        return 1;

    /* the same seed again: the same numbers */
    CHECK_RAND(curandSetPseudoRandomGeneratorSeed(g, 1234ULL));
    CHECK_RAND(curandSetGeneratorOffset(g, 0));
    CHECK_RAND(curandGenerateUniform(g, d, 2 * n));
    CHECK(cudaMemcpy(again, d, sizeof(float) * 2 * n, cudaMemcpyDeviceToHost));
    if (memcmp(h, again, sizeof(float) * 2 * n) != 0) {
        fprintf(stderr, "rand_montecarlo: reseeding gave other numbers\n");
        return 1;
    }

    /* normal doubles */
    double *dn, *hn = (double *)malloc(sizeof(double) * n);
    CHECK(cudaMalloc(&dn, sizeof(double) * n));
    if (curandGenerateNormalDouble(g, dn, n - 1, 0.0, 1.0) != CURAND_STATUS_LENGTH_NOT_MULTIPLE) {
        fprintf(stderr, "rand_montecarlo: an odd count of normals was taken\n");
        return 1;
    }
    CHECK_RAND(curandGenerateNormalDouble(g, dn, n, 2.0, 0.5));
    CHECK(cudaMemcpy(hn, dn, sizeof(double) * n, cudaMemcpyDeviceToHost));
    double mean = 0, var = 0;
    for (size_t i = 0; i < n; i++)
        mean += hn[i] / n;
    for (size_t i = 0; i < n; i++)
        var += (hn[i] - mean) * (hn[i] - mean) / n;
    printf("rand_montecarlo: normal mean %.2f, deviation %.2f\n", mean, sqrt(var));
    if (fabs(mean - 2.0) > 0.01 || fabs(sqrt(var) - 0.5) > 0.01)
        return 1;

    /* Poisson counts, lambda 4 */
    unsigned *dp, *hp = (unsigned *)malloc(sizeof(unsigned) * n);
    CHECK(cudaMalloc(&dp, sizeof(unsigned) * n));
    CHECK_RAND(curandGeneratePoisson(g, dp, n, 4.0));
    CHECK(cudaMemcpy(hp, dp, sizeof(unsigned) * n, cudaMemcpyDeviceToHost));
    double pm = 0;
    for (size_t i = 0; i < n; i++)
        pm += (double)hp[i] / n;
    printf("rand_montecarlo: poisson mean %.1f\n", pm);
    if (fabs(pm - 4.0) > 0.05)
        return 1;
    CHECK_RAND(curandDestroyGenerator(g));

    /* the host API: host memory, no kernel */
    curandGenerator_t hg;
    CHECK_RAND(curandCreateGeneratorHost(&hg, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    CHECK_RAND(curandSetPseudoRandomGeneratorSeed(hg, 42ULL));
    CHECK_RAND(curandGenerateUniform(hg, h, 1000));
    float lo = 1, hi = 0;
    for (int i = 0; i < 1000; i++)
        lo = fminf(lo, h[i]), hi = fmaxf(hi, h[i]);
    printf("rand_montecarlo: host generator: 1000 numbers in [%.2f, %.2f]\n", lo, hi);
    CHECK_RAND(curandDestroyGenerator(hg));
    int version;
    CHECK_RAND(curandGetVersion(&version));
    CHECK(cudaFree(d));
    CHECK(cudaFree(dn));
    CHECK(cudaFree(dp));
    CHECK(cudaStreamDestroy(s));
    free(h), free(again), free(hn), free(hp);
    return version >= 10000 ? 0 : 1;
}
