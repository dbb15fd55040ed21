// fft_roundtrip: the transforms of cuFFT's samples (simpleCUFFT, the 2-D
// and real-to-complex examples of the cuFFT guide) without their pointwise
// kernels (the simulated device does not run device code): a batch of 1-D
// complex transforms forward and back on a stream, a real signal through
// R2C and C2R in place with the padded layout, and a 2-D double transform
// made with cufftCreate + cufftMakePlan2d; each round trip must give the
// input times the transform's size, and a pure tone its one bin.
//@ link -lcufft
//@ api cufftPlan1d 3
//@ api cufftMakePlan2d 1
//@ api cufftExecC2C 3
//@ api cufftExecR2C 1
//@ api cufftExecC2R 1
//@ api cufftExecZ2Z 2
//@ kernel void vector_fft<256u, EPT<16u>, 1u, 32u, (padding_t)70, (twiddle_t)0, (loadstore_modifier_t)2, (layout_t)0, unsigned int, float, HostConfigPlaceholder> 4
//@ kernel void regular_fft<24u, EPT<4u, 6u>, 16u, 10u, (padding_t)14, (twiddle_t)0, (loadstore_modifier_t)2, (layout_t)0, unsigned int, double, HostConfigPlaceholder> 2
//@ kernel void regular_fft_r2c<1000u, EPT<10u>, 1u, 12u, (padding_t)6, (twiddle_t)0, (loadstore_modifier_t)2, (layout_t)0, unsigned int, float, HostConfigPlaceholder> 1
//@ kernel void regular_fft_c2r<1000u, EPT<10u>, 1u, 12u, (padding_t)6, (twiddle_t)0, (loadstore_modifier_t)2, (layout_t)0, unsigned int, float, HostConfigPlaceholder> 1
#include "common.h"
#include <cmath>
#include <cufft.h>

#define CHECK_FFT(call)                                                                  \
    do {                                                                                 \
        cufftResult r_ = (call);                                                         \
        if (r_ != CUFFT_SUCCESS) {                                                       \
            fprintf(stderr, "cuFFT error %d at %s:%d\n", (int)r_, __FILE__, __LINE__);   \
            exit(EXIT_FAILURE);                                                          \
        }                                                                                \
    } while (0)

int main()
{
    /* 1-D C2C: 4 signals of 256, a tone at bin 5 in each */
    const int n = 256, batch = 4;
    cufftComplex *h = (cufftComplex *)malloc(sizeof(cufftComplex) * n * batch), *d;
    for (int b = 0; b < batch; b++)
        for (int i = 0; i < n; i++) {
            h[b * n + i].x = (float)cos(2 * M_PI * 5 * i / n) * (b + 1);
            h[b * n + i].y = (float)sin(2 * M_PI * 5 * i / n) * (b + 1);
        }
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMalloc(&d, sizeof(cufftComplex) * n * batch));
    CHECK(cudaMemcpy(d, h, sizeof(cufftComplex) * n * batch, cudaMemcpyHostToDevice));
    cufftHandle plan;
    CHECK_FFT(cufftPlan1d(&plan, n, CUFFT_C2C, batch));
    CHECK_FFT(cufftSetStream(plan, s));
    CHECK_FFT(cufftExecC2C(plan, d, d, CUFFT_FORWARD));
    cufftComplex *spec = (cufftComplex *)malloc(sizeof(cufftComplex) * n * batch);
    CHECK(cudaMemcpyAsync(spec, d, sizeof(cufftComplex) * n * batch, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    for (int b = 0; b < batch; b++)
        if (fabs(spec[b * n + 5].x - n * (b + 1)) > 1e-2 * n || fabs(spec[b * n + 6].x) > 1e-2 * n) {
            fprintf(stderr, "fft_roundtrip: signal %d: bin 5 = %g, bin 6 = %g\n", b, spec[b * n + 5].x,
                    spec[b * n + 6].x);
            return 1;
        }
    CHECK_FFT(cufftExecC2C(plan, d, d, CUFFT_INVERSE));
    CHECK(cudaMemcpy(spec, d, sizeof(cufftComplex) * n * batch, cudaMemcpyDeviceToHost));
    double err = 0;
    for (int i = 0; i < n * batch; i++)
        err = fmax(err, fabs(spec[i].x / n - h[i].x) + fabs(spec[i].y / n - h[i].y));
    CHECK_FFT(cufftDestroy(plan));
    printf("fft_roundtrip: C2C %d x %d: bin 5 holds each tone, round trip error %.1e\n", batch, n, err);
    if (err > 1e-4)
        return 1;

    /* R2C then C2R in place: 1000 points (not a power of two), padded to 2*(n/2+1) */
    const int m = 1000, padded = 2 * (m / 2 + 1);
    float *hr = (float *)malloc(sizeof(float) * padded), *dr;
    for (int i = 0; i < padded; i++)
        hr[i] = i < m ? (float)(1.0 + 0.5 * cos(2 * M_PI * 3 * i / m)) : 0.0f;
    CHECK(cudaMalloc(&dr, sizeof(float) * padded));
    CHECK(cudaMemcpy(dr, hr, sizeof(float) * padded, cudaMemcpyHostToDevice));
    cufftHandle r2c, c2r;
    CHECK_FFT(cufftPlan1d(&r2c, m, CUFFT_R2C, 1));
    CHECK_FFT(cufftPlan1d(&c2r, m, CUFFT_C2R, 1));
    CHECK_FFT(cufftExecR2C(r2c, dr, (cufftComplex *)dr));
    cufftComplex half[4];
    CHECK(cudaMemcpy(half, dr, sizeof half, cudaMemcpyDeviceToHost));
    CHECK_FFT(cufftExecC2R(c2r, (cufftComplex *)dr, dr));
    float *back = (float *)malloc(sizeof(float) * padded);
    CHECK(cudaMemcpy(back, dr, sizeof(float) * padded, cudaMemcpyDeviceToHost));
    err = 0;
    for (int i = 0; i < m; i++)
        err = fmax(err, fabs(back[i] / m - hr[i]));
    printf("fft_roundtrip: R2C/C2R %d in place: DC %.1f, bin 3 %.1f, round trip error %.1e\n", m, half[0].x,
           half[3].x, err);
    if (fabs(half[0].x - m) > 0.5 || fabs(half[3].x - m / 4.0) > 0.5 || err > 1e-4)
        return 1;
    CHECK_FFT(cufftDestroy(r2c));
    CHECK_FFT(cufftDestroy(c2r));

    /* 2-D Z2Z 12 x 24, made in two steps, with its work size asked */
    const int nx = 12, ny = 24;
    cufftDoubleComplex *hz = (cufftDoubleComplex *)malloc(sizeof(cufftDoubleComplex) * nx * ny), *dz;
    for (int i = 0; i < nx * ny; i++) {
        hz[i].x = sin(0.1 * i);
        hz[i].y = cos(0.07 * i);
    }
    CHECK(cudaMalloc(&dz, sizeof(cufftDoubleComplex) * nx * ny));
    CHECK(cudaMemcpy(dz, hz, sizeof(cufftDoubleComplex) * nx * ny, cudaMemcpyHostToDevice));
    cufftHandle p2;
    size_t work = 1;
    CHECK_FFT(cufftCreate(&p2));
    CHECK_FFT(cufftMakePlan2d(p2, nx, ny, CUFFT_Z2Z, &work));
    CHECK_FFT(cufftExecZ2Z(p2, dz, dz, CUFFT_FORWARD));
    CHECK_FFT(cufftExecZ2Z(p2, dz, dz, CUFFT_INVERSE));
    cufftDoubleComplex *bz = (cufftDoubleComplex *)malloc(sizeof(cufftDoubleComplex) * nx * ny);
    CHECK(cudaMemcpy(bz, dz, sizeof(cufftDoubleComplex) * nx * ny, cudaMemcpyDeviceToHost));
    err = 0;
    for (int i = 0; i < nx * ny; i++)
        err = fmax(err, fabs(bz[i].x / (nx * ny) - hz[i].x) + fabs(bz[i].y / (nx * ny) - hz[i].y));
    printf("fft_roundtrip: Z2Z %d x %d: work area %zu bytes, round trip error %.1e\n", nx, ny, work, err);
    if (err > 1e-9)
        return 1;
    CHECK_FFT(cufftDestroy(p2));
    if (cufftExecC2C(plan, d, d, CUFFT_FORWARD) != CUFFT_INVALID_PLAN) {
        fprintf(stderr, "fft_roundtrip: a destroyed plan ran\n");
        return 1;
    }
    CHECK(cudaFree(d));
    CHECK(cudaFree(dr));
    CHECK(cudaFree(dz));
    CHECK(cudaStreamDestroy(s));
    free(h), free(spec), free(hr), free(back), free(hz), free(bz);
    return 0;
}
