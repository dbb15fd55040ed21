/*
 * simblas.h - the GEMM engine shared by the simulated libcublas.so.13 and
 * libcublasLt.so.13: the problem description, the CPU computation, the choice
 * of a cuBLAS-style kernel, and the traced call sequence that puts it on the
 * simulated device.
 *
 * Each library compiles these sources into itself with hidden visibility (the
 * real cuBLAS also carries its own copy of cudart and kernels), so nothing
 * here is exported and neither library calls the other's public API for its
 * own work: a hook on cublasLtMatmul never sees a cublasGemmEx.
 */
#ifndef SIMBLAS_H
#define SIMBLAS_H

#include <library_types.h>
#include <stddef.h>
#include <stdint.h>

#include "cusim.h"

#define SIMBLAS_INTERNAL __attribute__((visibility("hidden")))

/* Host CPU costs of a GEMM call, spun on the calling thread (see README). */
#define SIMBLAS_COLD_START_NS 450000u /* first GEMM on a handle: heuristics + workspace */
#define SIMBLAS_CALL_CPU_NS 6000u     /* every GEMM: argument checks, heuristic cache hit */
#define SIMBLAS_WORKSPACE_BYTES (4u << 20) /* allocated on the device at cold start */
/* Default of CUSIM_COMPUTE_MAX: the largest m*n*k*batch computed on the CPU. */
#define SIMBLAS_COMPUTE_MAX_DEFAULT CUSIM_COMPUTE_MAX_DEFAULT

/* Epilogue flags (a subset of cuBLASLt's, in the same spirit). */
enum simblas_epilogue {
    SIMBLAS_EPI_BIAS = 1, /* + bias[row] */
    SIMBLAS_EPI_RELU = 2, /* then max(x, 0) */
    SIMBLAS_EPI_GELU = 4, /* then GELU, tanh approximation */
};

/* One operand, column-major. */
typedef struct simblas_matrix {
    const void *ptr;          /* batch 0 (strided batches follow at `stride`) */
    const void *const *array; /* per-batch pointers (cublasGemmBatchedEx), else NULL */
    cudaDataType type;        /* CUDA_R_32F, CUDA_R_16F or CUDA_R_16BF */
    int64_t ld;               /* leading dimension, elements */
    int64_t stride;           /* elements from one batch's matrix to the next */
} simblas_matrix;

/* D = epilogue(alpha * op(A) op(B) + beta * C [+ bias]); op(A) is m x k. */
typedef struct simblas_gemm {
    int trans_a, trans_b;   /* 0: as stored, 1: transposed (OP_T and OP_C alike) */
    int64_t m, n, k;
    int batch;              /* >= 1 */
    simblas_matrix a, b, c; /* c is read only when beta != 0 */
    simblas_matrix d;       /* output; may be the same memory as c */
    float alpha, beta;
    unsigned epilogue;          /* enum simblas_epilogue flags */
    const void *bias;           /* SIMBLAS_EPI_BIAS: m elements per batch */
    cudaDataType bias_type;     /* type of bias elements */
    int64_t bias_stride;        /* elements between batches' bias vectors */
    int tf32;                   /* fp32 inputs on the TF32 tensor-core path */
    int acc16;                  /* fp16 accumulation asked for (named f16; computed in fp32) */
} simblas_gemm;

/* What a handle remembers between GEMMs. Zero-initialized = cold. */
typedef struct simblas_ctx {
    int warm;        /* 1 after the first GEMM paid its cold start */
    void *workspace; /* device memory allocated at cold start (cusim_mem_alloc) */
} simblas_ctx;

/* The kernel chosen for a problem. */
typedef struct simblas_plan {
    int tile;                     /* index into the tile table */
    int tile_m, tile_n, tile_k;   /* tile in elements */
    int threads;                  /* block size */
    uint32_t dynamic_smem;        /* bytes */
    int blocks_per_sm;            /* from the occupancy model */
    float waves;                  /* CTAs / (SMs * blocks per SM) */
    size_t workspace;             /* bytes the kernel wants (split-K scratch) */
} simblas_plan;

/* ---- half precision (storage only) --------------------------------------- */

/* IEEE binary16 bits -> float (exact). */
static inline float simblas_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    uint32_t bits;
    float f;
    if (exp == 0) {
        /* zero or subnormal: man * 2^-24, exact in float */
        f = (float)man * (1.0f / 16777216.0f);
        return sign ? -f : f;
    }
    if (exp == 31)
        bits = sign | 0x7f800000u | (man << 13);
    else
        bits = sign | ((exp + 112u) << 23) | (man << 13);
    __builtin_memcpy(&f, &bits, sizeof f);
    return f;
}

/* float -> binary16 bits, round to nearest even; overflow gives infinity. */
static inline uint16_t simblas_f32_to_f16(float f)
{
    uint32_t x, sign, ax, e, man, r, rem, half;
    int shift;
    __builtin_memcpy(&x, &f, sizeof x);
    sign = (x >> 16) & 0x8000u;
    ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) /* inf, nan (keep it a quiet nan) */
        return (uint16_t)(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0u));
    if (ax >= 0x477ff000u) /* >= 65520 rounds past the largest half */
        return (uint16_t)(sign | 0x7c00u);
    if (ax < 0x38800000u) { /* below 2^-14: subnormal half or zero */
        if (ax < 0x33000000u) /* <= 2^-25: rounds to zero */
            return (uint16_t)sign;
        e = ax >> 23;
        man = (ax & 0x7fffffu) | 0x800000u;
        shift = 126 - (int)e; /* value / 2^-24 = man * 2^(e - 126) */
        r = man >> shift;
        rem = man & ((1u << shift) - 1u);
        half = 1u << (shift - 1);
        if (rem > half || (rem == half && (r & 1u)))
            r++;
        return (uint16_t)(sign | r);
    }
    r = (((ax >> 23) - 112u) << 10) | ((ax >> 13) & 0x3ffu);
    rem = ax & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (r & 1u)))
        r++; /* a carry into the exponent is the right answer */
    return (uint16_t)(sign | r);
}

/* bfloat16 bits -> float (exact). */
static inline float simblas_bf16_to_f32(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    __builtin_memcpy(&f, &bits, sizeof f);
    return f;
}

/* float -> bfloat16 bits, round to nearest even. */
static inline uint16_t simblas_f32_to_bf16(float f)
{
    uint32_t x;
    __builtin_memcpy(&x, &f, sizeof x);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40u); /* quiet nan */
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

/* ---- gemm_cpu.c ---------------------------------------------------------- */

/* Bytes per element of a storage type we compute (0 if unsupported). */
SIMBLAS_INTERNAL size_t simblas_dtype_size(cudaDataType t);
/* m*n*k*batch limit for computing on the CPU: CUSIM_COMPUTE_MAX, read once. */
SIMBLAS_INTERNAL uint64_t simblas_compute_max(void);
/* Computes g on the CPU (fp32 accumulation) and writes D, unless the problem
 * is larger than simblas_compute_max(): then D is left untouched. Returns 1 if
 * computed, 0 if skipped (or out of host memory). */
SIMBLAS_INTERNAL int simblas_gemm_compute(const simblas_gemm *g);
/* Has g computed later, through the driver's cusim_defer(): the result is
 * there before any copy, memset, sync, query or free can observe it, and the
 * CPU time is not the API call's. Pointer arrays are copied now. Returns 1 if
 * it will be computed, 0 if the problem is timing only. */
SIMBLAS_INTERNAL int simblas_gemm_submit(const simblas_gemm *g);

/* ---- gemm_launch.c ------------------------------------------------------- */

/* Picks the kernel for g (tile by problem size; fills *p). `tile` >= 0 forces
 * that tile (an algo from cublasLtMatmulAlgoGetHeuristic), -1 chooses. */
SIMBLAS_INTERNAL void simblas_plan_gemm(const simblas_gemm *g, int tile, simblas_plan *p);
/* The kernel's device name for g on plan p; interned, valid forever. */
SIMBLAS_INTERNAL const char *simblas_kernel_name(const simblas_gemm *g, const simblas_plan *p);
/* Runs g as the real library does: cold start on the handle's first GEMM,
 * host cost, a traced cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags,
 * a traced cudaLaunchKernel that queues one kernel on `stream` (a
 * cudaStream_t value); then submits the CPU computation (deferred, see
 * simblas_gemm_submit). g's data pointers must stay valid until the program
 * observes the result, as on a GPU. Returns 0, or -1 if the stream is not a
 * live stream. */
SIMBLAS_INTERNAL int simblas_run(simblas_ctx *ctx, const void *stream, const simblas_gemm *g,
                                 int tile);
/* A cuBLAS routine the GEMM engine does not cover (level 1, 2, 3 in any
 * type, batched forms), run as one kernel of a cuBLAS-like name. */
typedef struct simblas_routine {
    const char *kernel; /* device name, e.g. "gemv_kernel<double>"; lives forever */
    int level;          /* 1, 2 or 3: which work model (README "cuBLAS routines") */
    int elem_bytes;     /* bytes per element: S 4, D 8, C 8, Z 16, H 2 */
    int prec_bits;      /* arithmetic: 16, 32 or 64 (the model's flop rate) */
} simblas_routine;

/* Runs routine r on `stream` as a kernel sized by m, n, k and batch (-1: not
 * a parameter of the routine; the model fills it in): cold start on the
 * handle's first call, the host cost, the traced cudaGetDevice and
 * cuLaunchKernelEx of simblas_run, then job(arg) deferred (it computes the
 * result and frees arg; NULL for timing only). No kernel when there is no
 * work (a zero size or batch); job still runs. Returns 0, or -1 if the stream
 * is not a live stream (job then does not run; arg is freed). */
SIMBLAS_INTERNAL int simblas_run_routine(simblas_ctx *ctx, const void *stream,
                                         const simblas_routine *r, int64_t m, int64_t n,
                                         int64_t k, int64_t batch, void (*job)(void *), void *arg);
/* Frees what the handle allocated (the workspace). */
SIMBLAS_INTERNAL void simblas_ctx_release(simblas_ctx *ctx);
/* Spins the calling thread for ns. */
SIMBLAS_INTERNAL void simblas_spin(uint64_t ns);

/* ---- status.c ------------------------------------------------------------ */

/* cublasGetStatusName / cublasGetStatusString (cublasStatus_t as int). */
SIMBLAS_INTERNAL const char *simblas_status_name(int status);
SIMBLAS_INTERNAL const char *simblas_status_string(int status);

#endif /* SIMBLAS_H */
