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

static int cmp_item(const cuprof_gpu_row_item *x, const cuprof_gpu_row_item *y)
{
    if (x->device != y->device) return x->device < y->device ? -1 : 1;
    if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

typedef struct rows_cmp {
    const cuprof_gpu_rows *rows;
    int (*cmp)(const cuprof_gpu_row_item *, const cuprof_gpu_row_item *);
} rows_cmp;

/* (a and b may be copies of the refs, not in the array: tools/bigmem.c's
 * sort compares a copy held on its stack; an index from a - rows->r would
 * subtract pointers into two objects) */
static int cmp_refs(const void *a, const void *b, void *ctx)
{
    const rows_cmp *c = ctx;
    cuprof_gpu_row_item x = cuprof_gpu_row_of(c->rows->g, a);
    cuprof_gpu_row_item y = cuprof_gpu_row_of(c->rows->g, b);
    return c->cmp(&x, &y);
}

void cuprof_gpu_rows_sort(cuprof_gpu_rows *rows,
                          int (*cmp)(const cuprof_gpu_row_item *, const cuprof_gpu_row_item *))
{
    size_t i = 1;
    cuprof_gpu_row_item prev = rows->n ? cuprof_gpu_rows_at(rows, 0) : (cuprof_gpu_row_item){0};
    for (; i < rows->n; i++) {
        cuprof_gpu_row_item x = cuprof_gpu_rows_at(rows, i);
        if (cmp(&prev, &x) > 0)
            break;
        prev = x;
    }
    if (i < rows->n) {
        rows_cmp c = {rows, cmp};
        qsort_r(rows->r, rows->n, sizeof *rows->r, cmp_refs, &c);
    }
}

/* Records grouped by (device, stream) in start order; each gets the first
 * row whose last record has ended. */
static void assign_rows(cuprof_gpu_rows *rows)
{
    uint64_t row_end[CUPROF_GPU_MAX_ROWS];
    uint32_t nrows = 0;
    cuprof_gpu_row_item prev = {0};
    for (size_t i = 0; i < rows->n; i++) {
        cuprof_gpu_row_item x = cuprof_gpu_rows_at(rows, i);
        if (i == 0 || x.device != prev.device || x.stream != prev.stream)
            nrows = 0;
        prev = x;
        uint32_t r = 0;
        while (r < nrows && row_end[r] > x.start + CUPROF_GPU_JITTER_NS)
            r++;
        if (r < nrows && row_end[r] > x.start) {
            /* rounding: move it past, 1 ns clear of the end (speedscope
             * computes an end as ts + dur in floating point, and a start
             * equal to the end before it can come out first) */
            rows->r[i].moved = (uint8_t)(row_end[r] + 1 - x.start);   /* <= JITTER + 1 */
            x.start = row_end[r] + 1;
            if (x.end < x.start) {
                x.end = x.start;
                rows->r[i].end = CUPROF_GPU_END_AT_START;
            }
        }
        if (r == CUPROF_GPU_MAX_ROWS)
            r = CUPROF_GPU_MAX_ROWS - 1;
        if (r == nrows)
            row_end[nrows++] = x.end;
        else if (x.end > row_end[r])
            row_end[r] = x.end;
        rows->r[i].sub = (uint8_t)r;
    }
}

/* Records that touch on a row (one ends where the next starts) are shown
 * 1 ns apart: the earlier one ends 1 ns sooner. speedscope reads an end as
 * ts + dur in floating point and then finds it after the next start. */
static void part_touching(cuprof_gpu_rows *rows)
{
    size_t last[CUPROF_GPU_MAX_ROWS];
    int have[CUPROF_GPU_MAX_ROWS] = {0};
    cuprof_gpu_row_item prev = {0};
    for (size_t i = 0; i < rows->n; i++) {
        cuprof_gpu_row_item x = cuprof_gpu_rows_at(rows, i);
        if (i == 0 || x.device != prev.device || x.stream != prev.stream)
            memset(have, 0, sizeof have);
        prev = x;
        uint32_t r = x.sub;
        if (have[r]) {
            cuprof_gpu_row_item l = cuprof_gpu_rows_at(rows, last[r]);
            if (l.end == x.start && l.end > l.start + 1)   /* (so not END_AT_START) */
                rows->r[last[r]].end = CUPROF_GPU_END_SOONER;
        }
        last[r] = i;
        have[r] = 1;
    }
}

int cuprof_gpu_rows_make(const cuprof_gpu_run *g, cuprof_gpu_rows *rows)
{
    rows->g = g;
    rows->n = g->n_kernels + g->n_copies;
    rows->r = NULL;
    if (g->n_kernels >= CUPROF_GPU_ROW_COPY || g->n_copies >= CUPROF_GPU_ROW_COPY)
        return -1;
    rows->r = calloc(rows->n ? rows->n : 1, sizeof *rows->r);
    if (!rows->r)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < g->n_kernels; i++, k++)
        rows->r[k] = (cuprof_gpu_row_ref){.id = (uint32_t)i};
    for (size_t i = 0; i < g->n_copies; i++, k++)
        rows->r[k] = (cuprof_gpu_row_ref){.id = (uint32_t)i | CUPROF_GPU_ROW_COPY};
    cuprof_gpu_rows_sort(rows, cmp_item);
    assign_rows(rows);
    part_touching(rows);
    return 0;
}

void cuprof_gpu_rows_free(cuprof_gpu_rows *rows)
{
    free(rows->r);
    rows->r = NULL;
    rows->n = 0;
}
