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

typedef struct cuprof_gpu_row_item {   /* 32 bytes: one a record (issue 40) */
    uint64_t start, end;     /* as shown: the record's, moved past a jitter overlap */
    uint32_t stream;
    uint32_t idx;            /* in g->kernels[] or g->copies[] */
    uint16_t device;         /* as the kernel record keeps it (model/gpu.h) */
    uint8_t sub;             /* row: 0 = the stream's own (< CUPROF_GPU_MAX_ROWS) */
    uint8_t is_copy;
} cuprof_gpu_row_item;

/* The records of g in rows; *n gets their number. Owned by the caller
 * (free); NULL when out of memory (or past 2^32 records). */
cuprof_gpu_row_item *cuprof_gpu_rows(const cuprof_gpu_run *g, size_t *n);

/* qsort(base, n, size, cmp), skipped when base is in cmp's order already
 * (the records come sorted by start: one pass instead of a sort of a
 * million). The same order either way: glibc's qsort is a merge sort, which
 * leaves such an array as it is. */
void cuprof_sort_unless_sorted(void *base, size_t n, size_t size,
                               int (*cmp)(const void *, const void *));

#endif /* CUPROF_GPU_ROWS_H */
