/*
 * chrome_trace_int.h - what chrome_trace.c (CPU lanes) and
 * chrome_trace_gpu.c (GPU lanes) share. Only these two files include it.
 */
#ifndef CUPROF_CHROME_TRACE_INT_H
#define CUPROF_CHROME_TRACE_INT_H

#include "formats/writer.h"

typedef struct chrome_writer {
    cuprof_writer base;     /* first: the driver sees a cuprof_writer */
    int any;                /* an entry was written: the next needs a comma */
    uint64_t *sf;           /* [stack id]: its innermost node in stackFrames
                               (--stacks), NULL without stacks */
    uint64_t t_base;        /* ts 0: the run's start (baseTimeNanoseconds) */
} chrome_writer;

/* A time as the trace writes it: ns since the base (viewers read ts as a
 * double: small values keep the ns). */
static inline uint64_t cuprof_chrome_rel(const chrome_writer *cw, uint64_t t)
{
    return t > cw->t_base ? t - cw->t_base : 0;
}

/* pid of the trace process holding GPU n's lanes: above any Linux pid
 * (pid_max is at most 2^22), so it never collides with a CPU process. */
#define CHROME_GPU_PID_BASE (1ll << 30)

/* Starts the next traceEvents entry. */
void cuprof_chrome_next_entry(chrome_writer *cw);
/* ,"k": (k is a literal without anything to escape) */
void cuprof_chrome_key(cuprof_out *o, const char *k);
void cuprof_chrome_arg_u64(cuprof_out *o, const char *k, uint64_t v);
void cuprof_chrome_arg_str(cuprof_out *o, const char *k, const char *v);
void cuprof_chrome_arg_bool(cuprof_out *o, const char *k, int v);
/* Handles (streams, events, pointers) as hex strings: JSON numbers lose
 * precision above 2^53. */
void cuprof_chrome_arg_hex(cuprof_out *o, const char *k, uint64_t v);
void cuprof_chrome_arg_dim3(cuprof_out *o, const char *k, uint64_t x, uint64_t y, uint64_t z);

/* Everything from the GPU timeline (chrome_trace_gpu.c): GPU processes and
 * stream rows, kernels/copies/memsets, calls only CUPTI saw on the CPU rows,
 * synchronizations, launch arrows. Nothing when no timeline was captured.
 * Returns 0, or -1 on out of memory. */
int cuprof_chrome_gpu_events(chrome_writer *cw);

#endif /* CUPROF_CHROME_TRACE_INT_H */
