/*
 * gpu_rows.c - the GPU records as trace rows (gpu_rows.h).
 */
#include "formats/gpu_rows.h"

#include <stdlib.h>
#include <string.h>

void cuprof_sort_unless_sorted(void *base, size_t n, size_t size,
                               int (*cmp)(const void *, const void *))
{
    const char *p = base;
    size_t i = 1;
    while (i < n && cmp(p + (i - 1) * size, p + i * size) <= 0)
        i++;
    if (i < n)
        qsort(base, n, size, cmp);
}

static int cmp_item(const void *a, const void *b)
{
    const cuprof_gpu_row_item *x = a, *y = b;
    if (x->device != y->device) return x->device < y->device ? -1 : 1;
    if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* Items grouped by (device, stream) in start order; each gets the first
 * row whose last item has ended. */
static void assign_rows(cuprof_gpu_row_item *it, size_t n)
{
    uint64_t row_end[CUPROF_GPU_MAX_ROWS];
    uint32_t nrows = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || it[i].device != it[i - 1].device || it[i].stream != it[i - 1].stream)
            nrows = 0;
        uint32_t r = 0;
        while (r < nrows && row_end[r] > it[i].start + CUPROF_GPU_JITTER_NS)
            r++;
        if (r < nrows && row_end[r] > it[i].start) {
            /* rounding: move it past, 1 ns clear of the end (speedscope
             * computes an end as ts + dur in floating point, and a start
             * equal to the end before it can come out first) */
            it[i].start = row_end[r] + 1;
            if (it[i].end < it[i].start)
                it[i].end = it[i].start;
        }
        if (r == CUPROF_GPU_MAX_ROWS)
            r = CUPROF_GPU_MAX_ROWS - 1;
        if (r == nrows)
            row_end[nrows++] = it[i].end;
        else if (it[i].end > row_end[r])
            row_end[r] = it[i].end;
        it[i].sub = (uint8_t)r;
    }
}

/* Records that touch on a row (one ends where the next starts) are shown
 * 1 ns apart: the earlier one ends 1 ns sooner. speedscope reads an end as
 * ts + dur in floating point and then finds it after the next start. */
static void part_touching(cuprof_gpu_row_item *it, size_t n)
{
    size_t last[CUPROF_GPU_MAX_ROWS];
    int have[CUPROF_GPU_MAX_ROWS] = {0};
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || it[i].device != it[i - 1].device || it[i].stream != it[i - 1].stream)
            memset(have, 0, sizeof have);
        uint32_t r = it[i].sub;
        if (have[r] && it[last[r]].end == it[i].start && it[last[r]].end > it[last[r]].start + 1)
            it[last[r]].end--;
        last[r] = i;
        have[r] = 1;
    }
}

cuprof_gpu_row_item *cuprof_gpu_rows(const cuprof_gpu_run *g, size_t *n)
{
    *n = g->n_kernels + g->n_copies;
    if (*n > UINT32_MAX)
        return NULL;
    cuprof_gpu_row_item *it = calloc(*n ? *n : 1, sizeof *it);
    if (!it)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < g->n_kernels; i++, k++)
        it[k] = (cuprof_gpu_row_item){.start = g->kernels[i].start_ns, .end = g->kernels[i].end_ns,
                                      .stream = g->kernels[i].stream, .idx = (uint32_t)i,
                                      .device = g->kernels[i].device};
    for (size_t i = 0; i < g->n_copies; i++, k++)
        it[k] = (cuprof_gpu_row_item){.start = g->copies[i].start_ns, .end = g->copies[i].end_ns,
                                      .stream = g->copies[i].stream, .idx = (uint32_t)i,
                                      .device = (uint16_t)g->copies[i].device, .is_copy = 1};
    cuprof_sort_unless_sorted(it, *n, sizeof *it, cmp_item);
    assign_rows(it, *n);
    part_touching(it, *n);
    return it;
}
