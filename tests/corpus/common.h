/*
 * common.h - what the corpus programs share, as CUDA's samples do with
 * helper_cuda.h: a check macro that prints the failing call and exits.
 */
#ifndef CORPUS_COMMON_H
#define CORPUS_COMMON_H

#include <cstdio>
#include <cstdlib>
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

#endif
