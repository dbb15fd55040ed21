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
 * A user frame is a Python frame, or a native frame that is the program's:
 * not in a CUDA library (libcudart, libcublas, ...) nor cuprof, not the
 * Python interpreter's own (libpython*, python3.x), and not code nvcc or
 * CUDA's headers put around a <<<>>> launch (__device_stub__*,
 * __cudaLaunchKernel_helper, the cudaLaunchKernel<> template, an inline
 * from CUDA's include directory). A stack's launch site is its innermost
 * Python frame when it has one, else its innermost user frame: "function
 * (file:line)" when the frame has a source line (a Python frame's, or a
 * native frame's from DWARF: formats/runfile/srcline.c), else "function
 * (module)".
 *
 * Python function slices (the trace's python_function rows) are derived
 * from the stacks of consecutive top-level calls on a thread, not from a
 * tracer: a Python function (name and file) present at the same depth in
 * the Python frames of consecutive calls is one slice from the first
 * call's start to the last one's end.
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
    const char *site;            /* "function (file:line)" or "function (module)" */
    uint64_t gpu_total_ns;       /* Self CUDA: GPU time of the work of the calls
                                    launched here (it is their launch site) */
    uint64_t cuda_total_ns;      /* CUDA total: GPU time of the work of every call
                                    with this site among its user frames */
    uint64_t kernels;            /* kernels among it */
    uint64_t calls;              /* outermost calls with a stack through it */
    uint64_t cpu_total_ns;       /* their time on the CPU */
} cuprof_stat_site;

/* One row of time by stack and hooked call (summary.json's by_stack, prof.sh
 * stats --group-by-stack N): torch's key_averages(group_by_stack_n). */
typedef struct cuprof_stack_api {
    uint32_t stack;              /* stack id (never 0) */
    uint16_t api;                /* the outermost hooked call's entry point */
    uint64_t calls;              /* outermost calls */
    uint64_t cpu_total_ns;       /* their CPU time */
    uint64_t cuda_total_ns;      /* GPU time of the work they caused */
} cuprof_stack_api;

/* One Python function slice on a thread (the trace's python_function). */
typedef struct cuprof_py_slice {
    uint32_t thread;             /* run->threads index */
    uint32_t depth;              /* 0 = outermost Python frame */
    uint32_t frame;              /* run->frames index of its first frame (name, file,
                                    the line it was at then) */
    uint64_t t0, t1;             /* first call's start, last call's end */
} cuprof_py_slice;

typedef struct cuprof_stacks {
    const cuprof_run *run;
    const char **frame;          /* [run->nframes] display name: demangled function
                                    (or "module+0xOFFSET"), then " (file:line)" when
                                    its source line is known */
    unsigned char *user;         /* [run->nframes] 1: a user frame (see above) */
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
    cuprof_stack_api *by_stack;  /* by stack, api */
    size_t nby_stack;
    cuprof_py_slice *slices;     /* by thread, then start, outer first */
    size_t nslices;
    int python;                  /* 1: some stack has a Python frame */
} cuprof_stacks;

/* Builds the rows (an empty cuprof_stacks when the run has no stacks).
 * NULL on out of memory. */
cuprof_stacks *cuprof_stacks_build(const cuprof_run *run, const cuprof_names *names,
                                   const cuprof_timeline *tl, cuprof_demangle_fn demangle);
void cuprof_stacks_destroy(cuprof_stacks *s);

/* The launch site of stack id ("function (file:line)" or "function
 * (module)"; "[no host stack]" for 0 or an id out of range). */
const char *cuprof_stacks_site(const cuprof_stacks *s, uint32_t stack);

/* Name of a GPU or CPU row's hooked call ("(no hooked call)" for none). */
const char *cuprof_stacks_api_name(const cuprof_stacks *s, const cuprof_stack_row *r);

/* Up to max user frames of stack id, innermost first, into out (frame
 * indexes); returns how many. */
size_t cuprof_stacks_user_frames(const cuprof_stacks *s, uint32_t stack, uint32_t *out,
                                 size_t max);

#endif /* CUPROF_STACKS_H */
