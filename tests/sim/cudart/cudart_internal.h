/*
 * cudart_internal.h - shared by the simulated libcudart.so.13 sources.
 *
 * Every traced entry point has the same shape:
 *
 *     CUDART_EXPORT cudaError_t cudaFoo(int x)
 *     {
 *         API_ENTER(cudaFoo, v3020, &(cudaFoo_v3020_params){x});
 *         cudaError_t err = ...work...;
 *         API_RETURN(err);
 *     }
 *
 * API_ENTER initializes the driver (cusim_init, which runs a CUDA injection
 * the first time), opens a traced call with the CUPTI runtime cbid, and
 * API_RETURN records the per-thread last error, closes the call and returns.
 */
#ifndef CUDART_INTERNAL_H
#define CUDART_INTERNAL_H

#include <cuda_runtime_api.h>
#include <cupti_runtime_cbid.h>
#include <generated_cuda_runtime_api_meta.h>

#include "cusim.h"

#define CUDART_EXPORT __attribute__((visibility("default")))
#define CUDART_INTERNAL __attribute__((visibility("hidden")))

/* The runtime version this library reports (CUDA 13.0). */
#define CUDART_SIM_VERSION 13000

/* Records err as this thread's last error (the real runtime never clears it
 * on success, only cudaGetLastError does; cudaErrorNotReady is not kept). */
CUDART_INTERNAL void cudart_set_error(cudaError_t err);

#define API_ENTER_SYM(fn, ver, params, sym)                                                  \
    cusim_init();                                                                            \
    cusim_api_call api_call_;                                                                \
    cusim_api_begin_sym(&api_call_, CUPTI_RUNTIME_TRACE_CBID_##fn##_##ver, #fn, (params), (sym))
#define API_ENTER(fn, ver, params) API_ENTER_SYM(fn, ver, params, NULL)

#define API_RETURN(err)                                                                      \
    do {                                                                                     \
        cudaError_t api_err_ = (err);                                                        \
        if (api_err_ != cudaSuccess)                                                         \
            cudart_set_error(api_err_);                                                      \
        cusim_api_end(&api_call_, (int)api_err_);                                            \
        return api_err_;                                                                     \
    } while (0)

/* ---- kernels (cudart_launch.c) ------------------------------------------- */

/* One registered __global__ function. Its address is the cudaKernel_t and
 * cudaFunction_t handle we give out. */
typedef struct cudart_func {
    const void *host_fn;     /* host stub (what cudaLaunchKernel gets) */
    char *name;              /* device (mangled) name, owned */
    int registers;           /* invented, deterministic from the name: 16..64 */
    int max_dynamic_smem;    /* cudaFuncAttributeMaxDynamicSharedMemorySize */
    int carveout;            /* cudaFuncAttributePreferredSharedMemoryCarveout */
} cudart_func;

/* The function for a host stub or a handle we gave out, or NULL. */
CUDART_INTERNAL cudart_func *cudart_func_find(const void *fn_or_handle);

/* Validates a launch configuration and submits it to the device on the
 * stream named by cuda_stream (ptds: per-thread default stream semantics).
 * The caller has an open traced call. */
CUDART_INTERNAL cudaError_t cudart_launch(cudart_func *f, dim3 grid, dim3 block, size_t smem,
                                          cudaStream_t cuda_stream, int ptds);

/* Size of a registered __device__ variable (by its host shadow): 1 and
 * *size if known, else 0. */
CUDART_INTERNAL int cudart_var_size(const void *symbol, size_t *size);

/* Stream handle -> cusim stream; NULL if invalid. */
static inline cusim_stream *cudart_stream(cudaStream_t s, int ptds)
{
    return cusim_stream_get((const void *)s, ptds);
}

#endif /* CUDART_INTERNAL_H */
