/*
 * common.h - what the corpus programs share, as CUDA's samples do with
 * helper_cuda.h: a check macro that prints the failing call and exits.
 */
#ifndef CORPUS_COMMON_H
#define CORPUS_COMMON_H

#include <cstdio>
#include <cstdlib>
#include <cuda.h>
#include <cuda_runtime.h>

#define CHECK(call)                                                                      \
    do {                                                                                 \
        cudaError_t err_ = (call);                                                       \
        if (err_ != cudaSuccess) {                                                       \
            fprintf(stderr, "CUDA error at %s:%d: %s (%s)\n", __FILE__, __LINE__,        \
                    cudaGetErrorString(err_), cudaGetErrorName(err_));                   \
            exit(EXIT_FAILURE);                                                          \
        }                                                                                \
    } while (0)

#define CHECK_BLAS(call)                                                                 \
    do {                                                                                 \
        int st_ = (int)(call);                                                           \
        if (st_ != 0) {                                                                  \
            fprintf(stderr, "cuBLAS error %d at %s:%d\n", st_, __FILE__, __LINE__);      \
            exit(EXIT_FAILURE);                                                          \
        }                                                                                \
    } while (0)

/* The driver API's check (the programs that link -lcuda: driver_*.cu), as
 * NVIDIA's driver samples print a failing call: its code, name and string. */
#define CHECK_CU(call)                                                                   \
    do {                                                                                 \
        CUresult r_ = (call);                                                            \
        if (r_ != CUDA_SUCCESS) {                                                        \
            const char *n_ = 0, *s_ = 0;                                                 \
            cuGetErrorName(r_, &n_);                                                     \
            cuGetErrorString(r_, &s_);                                                   \
            fprintf(stderr, "CUDA driver error %d (%s: %s) at %s:%d\n", (int)r_,         \
                    n_ ? n_ : "?", s_ ? s_ : "?", __FILE__, __LINE__);                   \
            exit(EXIT_FAILURE);                                                          \
        }                                                                                \
    } while (0)

#endif
