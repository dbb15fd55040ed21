/*
 * lifecycle.c - starting the collector once, and writing the outputs once
 * when the process ends.
 *
 * Start: cuprof_collector_init() from the library's constructor and from the
 * first hook, whichever comes first (CUDA is often first called from another
 * library's static initializer). The state moves 0 -> 1 before the work and
 * 1 -> 2 after, so a re-entrant call returns at once and another thread
 * waits for the few microseconds the work takes.
 *
 * End: the exit path, registered at init through cuprof_cupti_set_exit_fn
 * (an atexit handler now, and again once CUDA is up so that it runs before
 * CUDA's own at-exit teardown: see collector/cupti.h), runs
 * cuprof_collector_finish() on return from main or exit() from any thread;
 * an atomic flag keeps it to one run. Other exit paths (signals, _exit,
 * abort) are issue 6.
 *
 * Fork: the child forgets the parent's records (they are the parent's to
 * write), takes its own pid and start time, and writes its own files.
 */
#include "collector/internal.h"
#include "collector/aggregate.h"
#include "collector/clock.h"
#include "collector/cupti.h"
#include "collector/log.h"
#include "collector/run.h"
#include "formats/formats.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct cuprof_state cuprof_g = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .threads_tail = &cuprof_g.threads,
    .gpu_reason = "CUPTI not started",
};

static __thread int tls_in_init;   /* this thread is running the init work */

static void on_process_exit(void)
{
    cuprof_collector_finish();
}

static void fork_prepare(void)
{
    pthread_mutex_lock(&cuprof_g.lock);
    cuprof_kernels_fork_prepare();
}

static void fork_parent(void)
{
    cuprof_kernels_fork_done(0);
    pthread_mutex_unlock(&cuprof_g.lock);
}

static void fork_child(void)
{
    cuprof_kernels_fork_done(1);
    pthread_mutex_init(&cuprof_g.lock, NULL);
    cuprof_buffers_reset_after_fork();
    cuprof_g.pid = getpid();
    cuprof_g.t_start = cuprof_clock_now();
}

void cuprof_collector_init(void)
{
    if (atomic_load_explicit(&cuprof_g.init, memory_order_acquire) == 2)
        return;
    int expected = 0;
    if (!atomic_compare_exchange_strong(&cuprof_g.init, &expected, 1)) {
        if (tls_in_init)
            return;   /* re-entered from our own init work */
        /* Another thread is initializing: wait (bounded: never hang). */
        for (int i = 0; i < 1000000 && atomic_load(&cuprof_g.init) != 2; i++)
            sched_yield();
        return;
    }
    tls_in_init = 1;
    int saved = errno;
    char warn[1024];
    cuprof_config_load(&cuprof_g_config, warn, sizeof warn);
    for (char *line = warn, *nl; *line; line = nl + 1) {
        nl = strchr(line, '\n');
        if (!nl)
            break;
        cuprof_log("%.*s", (int)(nl - line), line);
    }
    cuprof_g.pid = getpid();
    cuprof_g.t_start = cuprof_clock_now();
    if (cuprof_g_config.enabled) {
        /* Not plain atexit: CUDA registers its teardown later, and atexit
         * handlers run in reverse order; this one is registered again when
         * CUDA is up, so the records are flushed while CUDA still runs. */
        cuprof_cupti_set_exit_fn(on_process_exit);
        pthread_atfork(fork_prepare, fork_parent, fork_child);
        atomic_store(&cuprof_g.recording, 1);
    }
    cuprof_debug(CUPROF_DBG_COLLECTOR, "started in pid %ld, output %s, recording %s",
                 cuprof_g.pid, cuprof_g_config.out_dir, cuprof_g_config.enabled ? "on" : "off");
    errno = saved;
    tls_in_init = 0;
    atomic_store_explicit(&cuprof_g.init, 2, memory_order_release);
}

void cuprof_gpu_timeline_set(int captured, const char *reason)
{
    pthread_mutex_lock(&cuprof_g.lock);
    cuprof_g.gpu_captured = captured;
    snprintf(cuprof_g.gpu_reason, sizeof cuprof_g.gpu_reason, "%s", reason ? reason : "");
    pthread_mutex_unlock(&cuprof_g.lock);
}

/* Base name of the output files (see config.h, CUPROF_NAME). */
static void output_name(char *dst, size_t n, const cuprof_run *run)
{
    const cuprof_config *c = &cuprof_g_config;
    if (c->name[0]) {
        if (c->root_pid == 0 || c->root_pid == run->pid)
            snprintf(dst, n, "%s", c->name);
        else
            snprintf(dst, n, "%s.%ld", c->name, run->pid);
        return;
    }
    const char *base = strrchr(run->program, '/');
    base = base ? base + 1 : run->program;
    snprintf(dst, n, "%.200s.%ld", *base ? base : "cuprof", run->pid);
}

/* Delivers every CUPTI record (synchronize, forced flush) and records
 * whether the GPU timeline was captured; returns the records. */
static const cuprof_gpu_run *finish_gpu(void)
{
    cuprof_cupti_finish();
    const cuprof_gpu_run *g = cuprof_cupti_records();
    if (g->captured) {
        cuprof_gpu_timeline_set(1, g->dropped ? "some GPU records were dropped by CUPTI" : "");
    } else {
        const char *why = cuprof_cupti_reason();
        cuprof_gpu_timeline_set(0, why && why[0] ? why : "CUPTI not started");
    }
    return g;
}

/* Builds, aggregates and writes; the caller has stopped recording. The GPU
 * records are delivered first, so the summary's CUDA columns and the trace's
 * GPU lanes see all of them. */
static int finish_work(void)
{
    const cuprof_gpu_run *gpu = finish_gpu();
    cuprof_run *run = cuprof_run_build();
    if (!run) {
        cuprof_log("out of memory at exit: no files written");
        return -1;
    }
    int rc = 0;
    if (run->nevents == 0 && run->dropped == 0 && gpu->n_apis == 0) {
        cuprof_debug(CUPROF_DBG_COLLECTOR, "pid %ld made no CUDA calls: no files", run->pid);
        cuprof_run_destroy(run);
        return 0;
    }
    run->gpu_run = gpu;
    if (!gpu->captured)   /* once: finish_work runs once per process */
        cuprof_log("GPU timeline not captured (%s); the outputs are CPU-side only", run->gpu.reason);
    cuprof_summary *sum = cuprof_summary_build(run);
    if (!sum) {
        cuprof_log("out of memory at exit: no files written");
        cuprof_run_destroy(run);
        return -1;
    }
    const char *dir = cuprof_g_config.out_dir;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        cuprof_debug(CUPROF_DBG_COLLECTOR, "mkdir %s: %s", dir, strerror(errno));
    char name[300], written[256], err[512];
    output_name(name, sizeof name, run);
    rc = cuprof_formats_write_all(run, sum, dir, name, written, sizeof written, err, sizeof err);
    if (rc > 0)
        cuprof_log("wrote %s/%s.%s (%llu calls, %zu thread%s)%s", dir, name, written,
                   (unsigned long long)run->nevents, run->nthreads, run->nthreads == 1 ? "" : "s",
                   run->dropped ? "; some calls were dropped, see the summary" : "");
    if (err[0])
        cuprof_log("%s", err);
    cuprof_summary_destroy(sum);
    cuprof_run_destroy(run);
    return rc;
}

int cuprof_collector_finish(void)
{
    if (atomic_load(&cuprof_g.init) != 2)
        return 0;   /* never started: nothing was recorded */
    if (atomic_exchange(&cuprof_g.finished, 1))
        return 0;
    int saved_errno = errno;
    int guard = cuprof_guard_enter();   /* our own work is not the program's */
    atomic_store(&cuprof_g.recording, 0);
    int rc = cuprof_g_config.enabled ? finish_work() : 0;
    cuprof_guard_leave(guard);
    errno = saved_errno;
    return rc;
}
