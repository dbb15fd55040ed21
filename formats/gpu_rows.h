/*
 * gpu_rows.h - the GPU records as trace rows: every kernel, copy and memset
 * sorted by device, stream and start, each given a row of its stream.
 * Row 0 is the stream's own; a record that starts before the previous one
 * on its row ended (programmatic dependent launch, clock jitter) goes to
 * the first overlap row where it fits (greedy interval colouring), since
 * viewers drop slices that overlap on one row. An overlap of at most
 * CUPROF_GPU_JITTER_NS is the clocks' rounding, not concurrency (the sim
 * and CUPTI both show 1-30 ns): the record stays on the row and starts
 * 1 ns after the one before it ended, and records that touch (one ends where
 * the next starts) are shown 1 ns apart (start/end below; the model and the
 * tables keep the recorded times). Shared by the JSON and the Perfetto writers.
 */
#ifndef CUPROF_GPU_ROWS_H
#define CUPROF_GPU_ROWS_H

#include "model/gpu.h"

#include <stddef.h>
#include <stdint.h>

#define CUPROF_GPU_MAX_ROWS 16   /* rows per stream; more overlap shares the last */
#define CUPROF_GPU_JITTER_NS 50  /* an overlap this short keeps the row */

typedef struct cuprof_gpu_row_item {   /* a record as its row shows it (a view: rows_at) */
    uint64_t start, end;     /* as shown: the record's, moved past a jitter overlap */
    uint32_t stream;
    uint32_t idx;            /* in g->kernels[] or g->copies[] */
    uint16_t device;         /* as the kernel record keeps it (model/gpu.h) */
    uint8_t sub;             /* row: 0 = the stream's own (< CUPROF_GPU_MAX_ROWS) */
    uint8_t is_copy;
} cuprof_gpu_row_item;

/* What the rows keep of a record: 8 bytes (issue 40: the view above was
 * kept for every record, 32). The start shown is the recorded one plus
 * moved (at most CUPROF_GPU_JITTER_NS + 1); the end shown is the recorded
 * one, 1 ns sooner (touching the next), or the start shown (a record that
 * ended before its moved start); the stream and the device are the
 * record's. */
#define CUPROF_GPU_ROW_COPY 0x80000000u   /* in id: a copy (g->copies[]) */
enum { CUPROF_GPU_END_RECORDED, CUPROF_GPU_END_SOONER, CUPROF_GPU_END_AT_START };
typedef struct cuprof_gpu_row_ref {
    uint32_t id;             /* index in g->kernels[], or in g->copies[] | CUPROF_GPU_ROW_COPY */
    uint8_t sub;             /* its row */
    uint8_t moved;           /* start shown - start recorded, ns */
    uint8_t end;             /* CUPROF_GPU_END_*: the end shown */
    uint8_t _pad;
} cuprof_gpu_row_ref;
_Static_assert(sizeof(cuprof_gpu_row_ref) == 8, "a row's record is 8 bytes");

typedef struct cuprof_gpu_rows {
    const cuprof_gpu_run *g;
    cuprof_gpu_row_ref *r;   /* sorted by device, stream, start (then rows_sort's order) */
    size_t n;
} cuprof_gpu_rows;

/* The records of g in rows, into *rows: 0, or -1 when out of memory (or
 * past 2^31 kernels or copies); cuprof_gpu_rows_free either way. */
int cuprof_gpu_rows_make(const cuprof_gpu_run *g, cuprof_gpu_rows *rows);
void cuprof_gpu_rows_free(cuprof_gpu_rows *rows);

/* A ref of g's rows as its row shows it (from the ref's value alone: a
 * sort may hand its comparator a copy). */
static inline cuprof_gpu_row_item cuprof_gpu_row_of(const cuprof_gpu_run *g,
                                                    const cuprof_gpu_row_ref *f)
{
    cuprof_gpu_row_item x;
    uint32_t k = f->id & ~CUPROF_GPU_ROW_COPY;
    if (f->id & CUPROF_GPU_ROW_COPY) {
        const cuprof_gpu_copy *c = &g->copies[k];
        x.start = c->start_ns;
        x.end = c->end_ns;
        x.stream = c->stream;
        x.device = (uint16_t)c->device;
        x.is_copy = 1;
    } else {
        const cuprof_gpu_kernel *kr = &g->kernels[k];
        x.start = kr->start_ns;
        x.end = kr->end_ns;
        x.stream = kr->stream;
        x.device = kr->device;
        x.is_copy = 0;
    }
    x.start += f->moved;
    if (f->end == CUPROF_GPU_END_SOONER)
        x.end--;
    else if (f->end == CUPROF_GPU_END_AT_START)
        x.end = x.start;
    x.idx = k;
    x.sub = f->sub;
    return x;
}

/* Record i of the rows as its row shows it. */
static inline cuprof_gpu_row_item cuprof_gpu_rows_at(const cuprof_gpu_rows *rows, size_t i)
{
    return cuprof_gpu_row_of(rows->g, &rows->r[i]);
}

/* Sorts the rows by cmp of their views (stable, as qsort_r; skipped when
 * they are in its order already). */
void cuprof_gpu_rows_sort(cuprof_gpu_rows *rows,
                          int (*cmp)(const cuprof_gpu_row_item *, const cuprof_gpu_row_item *));

/* qsort(base, n, size, cmp), skipped when base is in cmp's order already
 * (the records come sorted by start: one pass instead of a sort of a
 * million). The same order either way: glibc's qsort is a merge sort, which
 * leaves such an array as it is. */
void cuprof_sort_unless_sorted(void *base, size_t n, size_t size,
                               int (*cmp)(const void *, const void *));

#endif /* CUPROF_GPU_ROWS_H */
