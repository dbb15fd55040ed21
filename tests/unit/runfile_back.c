/*
 * runfile_back.c - the collector's state read back through the run file
 * (runfile_back.h).
 */
#include "tests/unit/runfile_back.h"
#include "collector/cupti.h"
#include "collector/internal.h"
#include "collector/snapshot.h"
#include "formats/runfile/runfile_read.h"

#include <stdio.h>
#include <string.h>

cuprof_run *test_run_read_back(void)
{
    cuprof_snapshot_info in = {.ended_by = "exit", .name = "test"};
    cuprof_runfile_ensure();
    (void)cuprof_cupti_write_info();
    (void)cuprof_snapshot_write(&in);
    cuprof_rfread_info info;
    char err[512];
    cuprof_run *run = cuprof_rfread(cuprof_runfile_path(), &info, err, sizeof err);
    if (!run)
        fprintf(stderr, "test_run_read_back: %s\n", err);
    if (run && test_run_streams_alike(cuprof_runfile_path(), run, err, sizeof err) != 0) {
        fprintf(stderr, "test_run_read_back: streamed, %s\n", err);
        cuprof_rfread_free(run);
        run = NULL;
    }
    cuprof_runfile_resume();   /* the run goes on (as after a failed exec) */
    return run;
}

/* Event i of thread t of both runs alike; -1 with why. */
static int same_event(const cuprof_run *a, const cuprof_run *b, size_t t, uint64_t i, char *why, size_t n)
{
    const cuprof_event *x = cuprof_run_event(&a->threads[t], i);
    const cuprof_event *y = cuprof_run_event(&b->threads[t], i);
    if (memcmp(x, y, sizeof *x) == 0)
        return 0;
    snprintf(why, n, "thread %zu call %llu differs (api %u/%u, t0 %llu/%llu, depth %u/%u)", t,
             (unsigned long long)i, x->api, y->api, (unsigned long long)x->t0,
             (unsigned long long)y->t0, x->depth, y->depth);
    return -1;
}

int test_run_streams_alike(const char *path, const cuprof_run *run, char *why, size_t n)
{
    cuprof_rfread_info info;
    cuprof_rfread_opts o = {.stream = 1, .stream_block = 64, .stream_slots = CUPROF_RUN_BLOCKS_HELD + 1,
                            .stream_free = 1};
    cuprof_run *s = cuprof_rfread_with(path, &info, &o, why, n);
    if (!s)
        return -1;
    int rc = -1;
    if (s->nthreads != run->nthreads || s->nevents != run->nevents ||
        s->spilled_events != run->spilled_events || s->event_bytes != run->event_bytes) {
        snprintf(why, n, "threads %zu/%zu, calls %llu/%llu, spilled %llu/%llu, bytes %llu/%llu",
                 run->nthreads, s->nthreads, (unsigned long long)run->nevents,
                 (unsigned long long)s->nevents, (unsigned long long)run->spilled_events,
                 (unsigned long long)s->spilled_events, (unsigned long long)run->event_bytes,
                 (unsigned long long)s->event_bytes);
        goto out;
    }
    for (size_t t = 0; t < run->nthreads; t++) {
        const cuprof_run_thread *a = &run->threads[t], *b = &s->threads[t];
        if (a->index != b->index || a->tid != b->tid || a->n != b->n || a->dropped != b->dropped ||
            a->classes != b->classes || a->api_end != b->api_end || memcmp(a->name, b->name, sizeof a->name) != 0 ||
            (run->nevents && b->chunks)) {
            snprintf(why, n, "thread %zu: index %u/%u, calls %llu/%llu, classes %x/%x%s", t, a->index,
                     b->index, (unsigned long long)a->n, (unsigned long long)b->n, a->classes,
                     b->classes, b->chunks ? ", not streamed" : "");
            goto out;
        }
        for (uint64_t i = 0; i < a->n; i++)   /* forward */
            if (same_event(run, s, t, i, why, n) != 0)
                goto out;
        for (uint64_t i = a->n; i > 0; i--)   /* backward */
            if (same_event(run, s, t, i - 1, why, n) != 0)
                goto out;
        for (uint64_t step = 7; step < a->n; step *= 5)   /* by strides, wrapping */
            for (uint64_t k = 0, i = 0; k < a->n && k < 4096; k++, i = (i + step) % a->n)
                if (same_event(run, s, t, i, why, n) != 0)
                    goto out;
    }
    rc = 0;
out:
    cuprof_rfread_free(s);
    return rc;
}

void test_run_free(cuprof_run *run)
{
    cuprof_rfread_free(run);
}

const cuprof_gpu_run *test_gpu_read_back(void)
{
    static cuprof_run *last;
    cuprof_rfread_free(last);
    cuprof_runfile_ensure();
    (void)cuprof_cupti_write_info();
    cuprof_rfread_info info;
    char err[512];
    last = cuprof_rfread(cuprof_runfile_path(), &info, err, sizeof err);
    if (!last) {
        fprintf(stderr, "test_gpu_read_back: %s\n", err);
        static cuprof_gpu_run none = {.status = "(run file unreadable)"};
        return &none;
    }
    return cuprof_rfread_gpu(last);
}
