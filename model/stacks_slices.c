/*
 * stacks_slices.c - the Python function slices of each thread, derived
 * from the stacks of consecutive top-level calls (see stacks.h): what the
 * traces show as Kineto's python_function rows, without a tracer.
 */
#include "model/stacks.h"
#include "model/stacks_int.h"

#include <stdlib.h>
#include <string.h>

/* Pushes a slice; -1 on out of memory. */
static int slice_push(cuprof_stacks *s, size_t *cap, const cuprof_py_slice *x)
{
    if (s->nslices == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        cuprof_py_slice *v = realloc(s->slices, c * sizeof *v);
        if (!v)
            return -1;
        s->slices = v;
        *cap = c;
    }
    s->slices[s->nslices++] = *x;
    return 0;
}

/* Same Python function (name and file; its line may differ). */
static int same_function(const cuprof_run *run, uint32_t a, uint32_t b)
{
    const cuprof_run_frame *x = &run->frames[a], *y = &run->frames[b];
    return a == b || (x->symbol && y->symbol && !strcmp(x->symbol, y->symbol) &&
                      (x->file == y->file || (x->file && y->file && !strcmp(x->file, y->file))));
}

#define PY_DEPTH_MAX 256   /* Python frames followed per stack (deeper ones are cut) */

static int slice_cmp(const void *a, const void *b)
{
    const cuprof_py_slice *x = a, *y = b;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    if (x->t0 != y->t0)
        return x->t0 < y->t0 ? -1 : 1;
    return (x->depth > y->depth) - (x->depth < y->depth);
}

/* The Python function slices of one thread: walks its top-level calls in
 * order, keeping the slices open while the next call's Python frames
 * (outermost first) still hold the same function at the same depth. */
static int slices_thread(cuprof_stacks *s, const cuprof_run *run, uint32_t t, size_t *cap)
{
    static const size_t M = PY_DEPTH_MAX;
    cuprof_py_slice open[PY_DEPTH_MAX];
    size_t nopen = 0;
    const cuprof_run_thread *th = &run->threads[t];
    for (uint64_t i = 0; i <= th->n; i++) {
        const cuprof_event *ev = i < th->n ? cuprof_run_event(th, i) : NULL;
        if (ev && (ev->depth > 0 || !ev->stack || ev->stack > run->nstacks))
            continue;   /* nested, or no stack: says nothing of the Python frames */
        uint32_t py[PY_DEPTH_MAX];
        size_t np = 0;
        if (ev) {   /* its Python frames, outermost first */
            const cuprof_run_stack *st = &run->stacks[ev->stack];
            for (uint32_t k = st->n; k > 0 && np < M; k--)
                if (st->frames[k - 1] < run->nframes && run->frames[st->frames[k - 1]].python)
                    py[np++] = st->frames[k - 1];
        }
        size_t keep = 0;
        while (keep < nopen && keep < np && same_function(run, open[keep].frame, py[keep]))
            keep++;
        for (size_t d = nopen; d > keep; d--)   /* those that ended */
            if (slice_push(s, cap, &open[d - 1]) < 0)
                return -1;
        nopen = keep;
        for (size_t d = 0; d < keep; d++)
            open[d].t1 = ev->t1 > open[d].t1 ? ev->t1 : open[d].t1;
        for (size_t d = keep; d < np; d++)
            open[nopen++] = (cuprof_py_slice){.thread = t, .depth = (uint32_t)d,
                                              .frame = py[d], .t0 = ev->t0, .t1 = ev->t1};
    }
    return 0;
}

int cuprof_stacks_slices_build(cuprof_stacks *s, const cuprof_run *run)
{
    if (!s->python)
        return 0;
    size_t cap = 0;
    for (size_t t = 0; t < run->nthreads; t++)
        if (slices_thread(s, run, (uint32_t)t, &cap) < 0)
            return -1;
    if (s->nslices)
        qsort(s->slices, s->nslices, sizeof *s->slices, slice_cmp);
    return 0;
}
