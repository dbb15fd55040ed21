/*
 * simlib.c - the launch path the simulated cuFFT, cuRAND, cuSPARSE and
 * cuSOLVER share (simlib.h).
 */
#include "simlib.h"

#include <cuda_runtime_api.h>
#include <library_types.h>
#include <cupti_runtime_cbid.h>
#include <generated_cuda_runtime_api_meta.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int simlib_launch(const void *stream, const simlib_kernel *k, int spin, void (*job)(void *), void *arg)
{
    cusim_init();
    cusim_stream *s = cusim_stream_get(stream, 0);
    if (s == NULL) {
        free(arg);
        return -1;
    }
    if (spin)
        cusim_spin_ns(SIMLIB_CALL_CPU_NS);
    cusim_kernel_desc d;
    memset(&d, 0, sizeof d); /* padding too: the bytes are the intern key */
    unsigned block = k->block ? k->block : 256;
    double blocks = ceil((k->threads < 1 ? 1 : k->threads) / block);
    d.name = cusim_intern_name(k->name);
    d.grid[0] = (uint32_t)fmin(2147483647.0, blocks);
    d.grid[1] = d.grid[2] = 1;
    d.block[0] = block;
    d.block[1] = d.block[2] = 1;
    d.dynamic_smem = k->dynamic_smem;
    d.registers = 64;
    d.cls = k->cls;
    d.flops = k->flops;
    d.bytes = k->bytes;
    d.tensor_dtype_bits = k->prec_bits ? k->prec_bits : 32;
    const cusim_kernel_desc *desc = cusim_intern(&d, sizeof d);
    if (desc == NULL || desc->name == NULL) {
        free(arg);
        return -1;
    }
    cudaLaunchKernel_v7000_params p = {
        .func = desc->name,
        .gridDim = {d.grid[0], 1, 1},
        .blockDim = {block, 1, 1},
        .args = NULL,
        .sharedMem = k->dynamic_smem,
        .stream = (cudaStream_t)stream,
    };
    cusim_api_call c;
    cusim_api_begin_sym(&c, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel", &p,
                        desc->name);
    cusim_launch(s, desc, cusim_current_correlation());
    cusim_api_end(&c, 0);
    if (job != NULL)
        cusim_defer(job, arg);
    else
        free(arg);
    return 0;
}

int simlib_compute(double work)
{
    return work <= (double)cusim_compute_max();
}

int simlib_device_ptr(const void *p)
{
    return p != NULL && cusim_mem_kind_of(p) != CUSIM_MEM_UNKNOWN;
}

int simlib_fits(const void *p, size_t bytes)
{
    void *base = NULL;
    size_t size = 0;
    if (p == NULL)
        return bytes == 0;
    if (cusim_mem_find(p, &base, &size) == CUSIM_MEM_UNKNOWN)
        return 0;
    size_t off = (size_t)((const char *)p - (const char *)base);
    return off <= size && bytes <= size - off;
}

int simlib_property(int type, int major, int minor, int patch, int *value)
{
    if (value == NULL)
        return -1;
    switch (type) {
    case MAJOR_VERSION: *value = major; return 0;
    case MINOR_VERSION: *value = minor; return 0;
    case PATCH_LEVEL: *value = patch; return 0;
    default: return -1;
    }
}

void simlib_call_tail(void)
{
    cusim_spin_ns(SIMLIB_TAIL_NS);
}
