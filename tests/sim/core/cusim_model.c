/*
 * cusim_model.c - how long things take on the simulated H100, and the
 * occupancy calculator. Pure functions; the constants are in
 * cusim_internal.h and explained in tests/sim/README.md ("Timing model").
 */
#include "cusim_internal.h"

#include <math.h>

double cusim_model_kernel_ns(const cusim_kernel_desc *k)
{
    switch (k->cls) {
    case CUSIM_KERNEL_GEMM: {
        double rate = k->tensor_dtype_bits <= 16   ? CUSIM_GEMM16_FLOPS
                      : k->tensor_dtype_bits <= 32 ? CUSIM_GEMM32_FLOPS
                                                   : CUSIM_FP64_FLOPS;
        double compute = k->flops / rate * 1e9;
        double memory = k->bytes / CUSIM_HBM_BPS * 1e9;
        return fmax(compute, memory) + CUSIM_GEMM_FIXED_NS;
    }
    case CUSIM_KERNEL_FIXED:
        return k->flops > 1 ? k->flops : 1;
    case CUSIM_KERNEL_ELEMENTWISE:
        return fmax(CUSIM_ELEM_FLOOR_NS, k->bytes / CUSIM_HBM_BPS * 1e9 + CUSIM_ELEM_FIXED_NS);
    case CUSIM_KERNEL_USER:
    default: {
        double threads = (double)k->grid[0] * k->grid[1] * k->grid[2] *
                         ((double)k->block[0] * k->block[1] * k->block[2]);
        double bytes = threads * CUSIM_USER_BYTES_PER_THREAD;
        return fmax(CUSIM_ELEM_FLOOR_NS, bytes / CUSIM_HBM_BPS * 1e9 + CUSIM_ELEM_FIXED_NS);
    }
    }
}

/* Host side of an HtoD/DtoH/HtoH copy is pageable unless it is ours. */
static int pageable(int mem)
{
    return mem == CUSIM_MEM_UNKNOWN;
}

double cusim_model_copy_ns(int copy_kind, int src_mem, int dst_mem, uint64_t bytes)
{
    double b = (double)bytes;
    switch (copy_kind) {
    case CUSIM_COPY_DTOD:
        return CUSIM_COPY_FIXED_NS + b / CUSIM_DTOD_BPS * 1e9;
    case CUSIM_COPY_HTOD:
        if (pageable(src_mem))
            return CUSIM_COPY_FIXED_NS + CUSIM_PAGEABLE_STAGE_NS + b / CUSIM_PAGEABLE_BPS * 1e9;
        return CUSIM_COPY_FIXED_NS + b / CUSIM_PINNED_BPS * 1e9;
    case CUSIM_COPY_DTOH:
        if (pageable(dst_mem))
            return CUSIM_COPY_FIXED_NS + CUSIM_PAGEABLE_STAGE_NS + b / CUSIM_PAGEABLE_BPS * 1e9;
        return CUSIM_COPY_FIXED_NS + b / CUSIM_PINNED_BPS * 1e9;
    case CUSIM_COPY_HTOH:
    default:
        return CUSIM_COPY_FIXED_NS + CUSIM_PAGEABLE_STAGE_NS + b / CUSIM_PAGEABLE_BPS * 1e9;
    }
}

double cusim_model_memset_ns(uint64_t bytes)
{
    return CUSIM_MEMSET_FIXED_NS + (double)bytes / CUSIM_MEMSET_BPS * 1e9;
}

/* splitmix64: a good 64-bit mix for counters. */
static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Uniform in [0, 1) from 53 bits. */
static double unit(uint64_t x)
{
    return (double)(x >> 11) * (1.0 / 9007199254740992.0);
}

double cusim_model_jitter(uint64_t seed, uint64_t seq, int outliers)
{
    uint64_t h = mix64(seed ^ mix64(seq));
    double f = 1.0 + CUSIM_JITTER * (2.0 * unit(h) - 1.0);
    if (outliers) {
        uint64_t h2 = mix64(h);
        if (h2 % CUSIM_OUTLIER_ONE_IN == 0)
            f *= CUSIM_OUTLIER_MIN + (CUSIM_OUTLIER_MAX - CUSIM_OUTLIER_MIN) * unit(mix64(h2));
    }
    return f;
}

/* ---- occupancy: sm_90 limits ---------------------------------------------- */

#define SM_MAX_THREADS 2048
#define SM_MAX_BLOCKS 32
#define SM_REGS 65536
#define SM_SMEM (228 * 1024)      /* shared memory per SM */
#define BLOCK_SMEM_MAX (227 * 1024) /* opt-in maximum per block */
#define SMEM_RESERVED 1024        /* the driver reserves 1 KiB per block */
#define SMEM_GRANULE 128
#define REG_GRANULE 256           /* registers are allocated per warp, 256 at a time */
#define MAX_REGS_PER_THREAD 255

int cusim_occupancy(int block_size, size_t dynamic_smem, int registers, size_t static_smem)
{
    if (block_size <= 0 || block_size > 1024 || registers > MAX_REGS_PER_THREAD)
        return 0;
    if (static_smem + dynamic_smem > BLOCK_SMEM_MAX)
        return 0;
    int warps = (block_size + 31) / 32;
    int by_threads = SM_MAX_THREADS / (warps * 32);
    int by_regs = SM_MAX_BLOCKS;
    if (registers > 0) {
        int per_warp = (registers * 32 + REG_GRANULE - 1) / REG_GRANULE * REG_GRANULE;
        by_regs = (SM_REGS / per_warp) / warps;
    }
    size_t smem = static_smem + dynamic_smem + SMEM_RESERVED;
    smem = (smem + SMEM_GRANULE - 1) / SMEM_GRANULE * SMEM_GRANULE;
    int by_smem = (int)(SM_SMEM / smem);
    int n = SM_MAX_BLOCKS;
    if (by_threads < n)
        n = by_threads;
    if (by_regs < n)
        n = by_regs;
    if (by_smem < n)
        n = by_smem;
    return n;
}
