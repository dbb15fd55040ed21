/*
 * stacks.h - GPU and CPU time by the host call stack that caused it
 * (--stacks): the rows of the flame graphs, and the launch sites.
 *
 * Each device record (kernel, copy, memset) is charged to the stack of the
 * outermost hooked call behind it (timeline.h's cause): a cuBLAS call's own
 * launches take the cuBLAS call's stack. Work with no hooked call behind it,
 * or whose call has no stack, is charged to stack 0 ("[no host stack]"), so
 * the GPU rows always add up to the run's GPU time. The CPU rows charge each
 * outermost call with a stack its own time (t1 - t0).
 *
 * A launch site is the innermost frame of a stack that is the program's:
 * not in a CUDA library (libcudart, libcublas, ...) and not code nvcc wrote
 * for a <<<>>> launch (__device_stub__*, the cudaLaunchKernel<> template);
 * in a stack with Python frames, its innermost Python frame (the line of
 * the program's Python that made the call, through whatever extension).
 * A Python frame is named "qualname (file:line)" (file: co_filename), its
 * module the file's base name.
 */
#ifndef CUPROF_STACKS_H
#define CUPROF_STACKS_H

#include "model/names.h"
#include "model/run.h"
#include "model/timeline.h"

#include <stddef.h>
#include <stdint.h>

/* One flame-graph row: a stack, the hooked call at its top, and for GPU
 * rows what ran on the device. */
typedef struct cuprof_stack_row {
    uint32_t stack;              /* stack id; 0 = no host stack */
    uint16_t api;                /* the outermost hooked call's entry point (run
                                    api index); UINT16_MAX = no hooked call */
    const char *leaf;            /* GPU rows: kernel name or "[memcpy HtoD]"; CPU: NULL */
    uint64_t ns;                 /* GPU or CPU time */
    uint64_t count;              /* device records (GPU) or calls (CPU) */
} cuprof_stack_row;

/* One launch site (the rows of summary.txt's "Top launch sites"). */
typedef struct cuprof_stat_site {
    const char *site;            /* "function (module)" */
    uint64_t gpu_total_ns;       /* GPU time of the work its calls caused */
    uint64_t kernels;            /* kernels among it */
    uint64_t calls;              /* outermost calls with a stack through it */
    uint64_t cpu_total_ns;       /* their time on the CPU */
} cuprof_stat_site;

typedef struct cuprof_stacks {
    const cuprof_run *run;
    const char **frame;          /* [run->nframes] display name: demangled function,
                                    or "module+0xOFFSET" */
    const char **module;         /* [run->nframes] basename of its object, "" unknown */
    cuprof_stack_row *gpu;       /* by stack, api, leaf */
    size_t ngpu;
    cuprof_stack_row *cpu;       /* by stack, api */
    size_t ncpu;
    uint64_t gpu_total_ns;       /* sum of gpu[].ns: all device work */
    uint64_t cpu_total_ns;       /* sum of cpu[].ns */
    cuprof_stat_site *sites;     /* by GPU time, then CPU time, descending */
    size_t nsites;
    char *owned;                 /* frame names made here */
    char *site_names;            /* site names made here */
    const char **stack_site;     /* [run->nstacks + 1] each stack's launch site
                                    ("function (module)"); [0] the no-stack one */
    char **demangled;            /* [run->nframes] (NULL where not) */
} cuprof_stacks;

/* Builds the rows (an empty cuprof_stacks when the run has no stacks).
 * NULL on out of memory. */
cuprof_stacks *cuprof_stacks_build(const cuprof_run *run, const cuprof_names *names,
                                   const cuprof_timeline *tl, cuprof_demangle_fn demangle);
void cuprof_stacks_destroy(cuprof_stacks *s);

/* The launch site of stack id ("function (module)"; "[no host stack]" for 0
 * or an id out of range). */
const char *cuprof_stacks_site(const cuprof_stacks *s, uint32_t stack);

/* Name of a GPU or CPU row's hooked call ("(no hooked call)" for none). */
const char *cuprof_stacks_api_name(const cuprof_stacks *s, const cuprof_stack_row *r);

#endif /* CUPROF_STACKS_H */
