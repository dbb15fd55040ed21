/*
 * simlib.h - what the simulated cuFFT, cuRAND, cuSPARSE and cuSOLVER share:
 * how one of their kernels reaches the simulated device, and their host CPU
 * cost per call.
 *
 * The real libraries link the CUDA runtime statically and launch their
 * kernels through it: CUPTI sees each launch as a runtime cudaLaunchKernel
 * (an LD_PRELOAD hook on the exported symbol does not). simlib_launch makes
 * that call, traced, on the simulated driver, and defers the kernel's result
 * (computed on the CPU, as the cuBLAS sim does) until the program can observe
 * it (cusim_defer).
 */
#ifndef SIMLIB_H
#define SIMLIB_H

#include "cusim.h"

#include <stdint.h>

/* Host CPU time of a library call that launches work (checks, plan lookup):
 * about what cuBLAS's level-1 and level-2 calls cost. */
#define SIMLIB_CALL_CPU_NS 3000u

typedef struct simlib_kernel {
    const char *name;             /* device name (interned by simlib_launch) */
    double threads;               /* threads in the grid (>= 1) */
    unsigned block;               /* threads per block (0: 256) */
    enum cusim_kernel_class cls;  /* CUSIM_KERNEL_GEMM: flops and bytes; ELEMENTWISE: bytes */
    double flops, bytes;
    int prec_bits;                /* GEMM class: 32 or 64 */
    unsigned dynamic_smem;
} simlib_kernel;

/* Queues k on stream (a cudaStream_t value; 0 is the legacy stream) as the
 * library's static runtime does: a traced cudaLaunchKernel (runtime cbid
 * 211) with the kernel's name, its kernel record carrying that call's
 * correlation id. Then job(arg) is deferred (run in stream order before
 * anything can observe device memory; job NULL: none) and takes arg. Costs
 * the caller SIMLIB_CALL_CPU_NS when `spin`. Returns 0, or -1 when stream
 * is not a live stream (job not run; arg freed). */
int simlib_launch(const void *stream, const simlib_kernel *k, int spin, void (*job)(void *), void *arg);

/* The host work a library call does after its launches (SIMLIB_TAIL_NS of
 * CPU): its kernels start before it returns, on a device that keeps up, as
 * they mostly do on a GPU for a call of a few launches (a profiler that has
 * only the kernels, cuprof --gpu kernels, takes a kernel that began inside
 * a library call as that call's). */
#define SIMLIB_TAIL_NS 6000u
void simlib_call_tail(void);

/* 1 when a problem of `work` multiply-adds is within CUSIM_COMPUTE_MAX (the
 * result is computed), 0 when it is timed only. */
int simlib_compute(double work);

/* 1 when p lies in memory the device can write (device, managed, pinned). */
int simlib_device_ptr(const void *p);

/* 1 when [p, p + bytes) lies inside one allocation the device can reach:
 * what a kernel may read or write. A job whose buffers do not fit is not
 * run (the kernel is still timed): a wrong size or pointer from a program
 * must not crash the sim (a real kernel would fault, an error the sim does
 * not model). */
int simlib_fits(const void *p, size_t bytes);

/* libraryPropertyType's answer for a library of version major.minor.patch:
 * 0 with *value set, -1 for an unknown type or a NULL value. */
int simlib_property(int type, int major, int minor, int patch, int *value);

#endif
