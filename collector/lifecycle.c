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
 * an atomic flag keeps it to one run. The other exit paths (signals, _exit,
 * _Exit, quick_exit, abort and crashes, exec) are in process.c and end in
 * cuprof_collector_finish_as(); a failed exec resumes recording
 * (cuprof_collector_resume) and the files are written again at the end.
 *
 * Files are never written over another run's: the base name (PROGRAM.PID,
 * or CUPROF_NAME) gets ".1", ".2", ... when DIR already holds a file of
 * that name (a reused pid, the same -n twice, an image exec'd by the same
 * pid); a rewrite after a failed exec replaces this image's own files.
 *
 * Fork: the child forgets the parent's records (they are the parent's to
 * write), takes its own pid and start time, and writes its own files.
 */
#include "collector/internal.h"
#include "collector/libc.h"
#include "collector/clock.h"
#include "collector/cupti.h"
#include "collector/log.h"
#include "collector/place.h"
#include "collector/snapshot.h"
#include "collector/runfile.h"
#include "collector/spawn.h"
#include "collector/stacks.h"

#include "collector/process.h"

static void output_name(char *dst, size_t n, long pid);

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
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
static __thread int tls_finishing; /* this thread is running the exit path's work */

static void on_process_exit(void)
{
    cuprof_collector_finish();
}

static void fork_prepare(void)
{
    cuprof_runfile_fork_prepare();   /* first: a round takes the locks below */
    pthread_mutex_lock(&cuprof_g.lock);
    cuprof_kernels_fork_prepare();
    cuprof_strings_fork_prepare();
    cuprof_stacks_fork_prepare();
}

static void fork_parent(void)
{
    cuprof_stacks_fork_done(0);
    cuprof_strings_fork_done(0);
    cuprof_kernels_fork_done(0);
    pthread_mutex_unlock(&cuprof_g.lock);
    cuprof_runfile_fork_done(0);
}

static void fork_child(void)
{
    cuprof_stacks_fork_done(1);
    cuprof_strings_fork_done(1);
    cuprof_kernels_fork_done(1);
    cuprof_runfile_fork_done(1);
    cuprof_shm_atfork_child();   /* a process slot of its own, before its first thread */
    cuprof_memheld_atfork_child();
    cuprof_flight_reset_after_fork();
    pthread_mutex_init(&cuprof_g.lock, NULL);
    cuprof_buffers_reset_after_fork();
    cuprof_g.pid = getpid();
    cuprof_g.t_start = cuprof_clock_now();
    cuprof_place_start();
    cuprof_g.out_name[0] = '\0';
    /* a child of a process whose exit path ran writes nothing: nothing for
     * its _exit to wait for */
    atomic_store(&cuprof_g.finish_done, atomic_load(&cuprof_g.finished) ? 1 : 0);
    cuprof_process_exit_calls_reset();
    if (!atomic_load(&cuprof_g.finished))
        cuprof_process_fork_child();
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
    cuprof_place_start();
    if (cuprof_g_config.enabled) {
        /* Under prof.sh's supervisor: the memory it reads after a SIGKILL
         * (shm.c), before any thread records or any name is interned. */
        cuprof_shm_attach();
        /* Not plain atexit: CUDA registers its teardown later, and atexit
         * handlers run in reverse order; this one is registered again when
         * CUDA is up, so the records are flushed while CUDA still runs. */
        cuprof_cupti_set_exit_fn(on_process_exit);
        cuprof_cupti_set_origin_fn(cuprof_open_call_id);
        cuprof_cupti_set_kernels_only(cuprof_g_config.gpu == CUPROF_GPU_KERNELS);
        pthread_atfork(fork_prepare, fork_parent, fork_child);
        cuprof_process_init();   /* signals, _exit & co: process.h */
        cuprof_stacks_init(cuprof_g_config.stacks, cuprof_g_config.stacks_python);
        atomic_store(&cuprof_g.recording, cuprof_capture_init());
    }
    cuprof_debug(CUPROF_DBG_COLLECTOR, "started in pid %ld, output %s, recording %s",
                 cuprof_g.pid, cuprof_g_config.out_dir, cuprof_g_config.enabled ? "on" : "off");
    errno = saved;
    tls_in_init = 0;
    atomic_store_explicit(&cuprof_g.init, 2, memory_order_release);
}

/* Base name of the output files (see config.h, CUPROF_NAME), before the
 * no-clobber suffix (choose_name): NAME (PROGRAM.PID without one), with
 * ".rankR" after NAME (for PROGRAM) when a launcher gave the process a rank;
 * a process the named program started adds its pid. */
void cuprof_output_base(char *dst, size_t n)
{
    output_name(dst, n, cuprof_g.pid ? cuprof_g.pid : (long)getpid());
}

static void output_name(char *dst, size_t n, long pid)
{
    const cuprof_config *c = &cuprof_g_config;
    cuprof_place pl;
    cuprof_place_snapshot(&pl);
    char rank[24] = "";
    if (pl.launcher)
        snprintf(rank, sizeof rank, ".rank%d", (int)pl.rank);
    if (c->name[0]) {
        if (c->root_pid == 0 || c->root_pid == pid)
            snprintf(dst, n, "%.200s%s", c->name, rank);
        else
            snprintf(dst, n, "%.200s%s.%ld", c->name, rank, pid);
        return;
    }
    char prog[256] = "";
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t r = read(fd, prog, sizeof prog - 1);
        prog[r > 0 ? r : 0] = '\0';
        cuprof_libc_close(fd);
    }
    const char *program = prog[0] ? prog : program_invocation_name;
    const char *base = strrchr(program, '/');
    base = base ? base + 1 : program;
    if (rank[0] && (c->root_pid == 0 || c->root_pid == pid))
        snprintf(dst, n, "%.200s%s", *base ? base : "cuprof", rank);
    else
        snprintf(dst, n, "%.200s%s.%ld", *base ? base : "cuprof", rank, pid);
}

/* The name this image writes under: the one it used before (a rewrite after
 * a failed exec), else base, else base.1, base.2, ... the first with no
 * file in dir (a small window remains between this check and the rename). */
static void choose_name(char *dst, size_t n, const char *dir, const char *base)
{
    if (cuprof_g.out_name[0]) {
        snprintf(dst, n, "%s", cuprof_g.out_name);
        return;
    }
    snprintf(dst, n, "%s", base);
    for (int i = 1; i < 10000 && cuprof_rf_name_taken(dir, dst); i++)
        snprintf(dst, n, "%s.%d", base, i);
}

/* Delivers every CUPTI record (synchronize, forced flush) to the run file
 * and records whether the GPU timeline was captured. wait_ms < 0: no bound
 * (exit(): the other threads run on, any CUDA lock they hold is released).
 * Otherwise (a signal, _exit, exec: another thread may be stopped inside
 * CUDA holding its locks, and a synchronize or flush from here would wait
 * for it for good) the CUDA part is given wait_ms, then the outputs are
 * written with the records CUPTI delivered so far, marked partial. Returns
 * the API records written (0 when CUPTI did not run). */
static uint64_t finish_gpu(int wait_ms)
{
    int partial = cuprof_cupti_finish_within(wait_ms);
    uint64_t dropped = 0, apis = 0;
    int captured = cuprof_cupti_captured(&dropped, &apis);
    if (captured && partial) {
        char why[256];
        snprintf(why, sizeof why,
                 "GPU timeline partial: CUDA did not answer within %d ms at the end (a thread "
                 "was stopped inside a CUDA call, or the device was busy); records CUPTI had "
                 "not delivered are missing",
                 wait_ms);
        cuprof_gpu_timeline_set(1, why);
        cuprof_log("%s", why);
    } else if (captured) {
        cuprof_gpu_timeline_set(1, dropped ? "some GPU records were dropped by CUPTI" : "");
    } else {
        const char *why = cuprof_cupti_reason();
        cuprof_gpu_timeline_set(0, why && why[0] ? why : "CUPTI not started");
    }
    return captured ? apis : 0;
}

/* Completes the run file and has cuprof-report build the outputs from it;
 * the caller has stopped recording. The GPU records are delivered first,
 * so the summary's CUDA columns and the trace's GPU lanes see all of them. */
static int finish_work(const char *ended_by, int truncated)
{
    /* exit() alone lets the other threads run on; see finish_gpu. */
    uint64_t gpu_apis = finish_gpu(strcmp(ended_by, "exit") == 0 ? -1 : CUPROF_EXIT_GPU_WAIT_MS);
    uint64_t calls = 0, dropped = 0;
    cuprof_snapshot_counts(&calls, &dropped);
    if (calls == 0 && dropped == 0 && gpu_apis == 0 && !cuprof_capture_outside_seen()) {
        cuprof_debug(CUPROF_DBG_COLLECTOR, "pid %ld made no CUDA calls: no files", cuprof_g.pid);
        cuprof_runfile_forget(1);
        return 0;
    }
    const char *dir = cuprof_g_config.out_dir;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        cuprof_debug(CUPROF_DBG_COLLECTOR, "mkdir %s: %s", dir, strerror(errno));
    char base[300], name[320], final[PATH_MAX + 400];
    output_name(base, sizeof base, cuprof_g.pid ? cuprof_g.pid : (long)getpid());
    choose_name(name, sizeof name, dir, base);
    cuprof_snapshot_info info = {.ended_by = ended_by, .truncated = truncated, .name = name};
    if (cuprof_flight_on()) {   /* the last seconds: the end's window, written now */
        char why[600], asked[256];
        int pending = cuprof_flight_take(asked, sizeof asked);
        snprintf(why, sizeof why, "%s%sthe process ended (%s)", pending ? asked : "",
                 pending ? "; then " : "", ended_by);
        uint64_t k = cuprof_capture_flight_window(why);
        if (k)
            (void)cuprof_runfile_flight_write(cuprof_capture_window_open(k));
    }
    cuprof_runfile_final();
    int rc = cuprof_cupti_write_info();
    rc |= cuprof_snapshot_write(&info);
    snprintf(final, sizeof final, "%s/%s.cuprof", dir, name);
    /* Not completed (the disk filled): the report makes the most of what
     * the file holds, and says what was lost. Not created: nothing to do. */
    if (cuprof_runfile_path()[0] == '\0' || cuprof_runfile_rename(final) != 0) {
        const char *why = cuprof_runfile_failure();
        if (why && strncmp(why, "cannot create", 13) == 0)
            cuprof_log("cannot create files in %s (%s); no profile was written for this run", dir,
                       why);
        else
            cuprof_log("cannot complete the run file %s (%s); no profile was written for this "
                       "run, no partial file was left", final, why ? why : strerror(errno));
        cuprof_runfile_forget(1);
        return -1;
    }
    if (rc != 0)
        cuprof_log("the run file %s could not be completed (%s); the outputs have what it holds",
                   final, cuprof_runfile_failure() ? cuprof_runfile_failure() : "write failed");
    snprintf(cuprof_g.out_name, sizeof cuprof_g.out_name, "%s", name);
    /* The file stays open: if an exec fails, recording resumes and appends
     * to it, and the end completes it again (the reader takes the last of
     * each table); a successful exec closes it (O_CLOEXEC). */
    int st = cuprof_spawn_report(final);
    return st == 0 ? 1 : -1;
}

/* Runs fn's file writing with SIGXFSZ blocked: a program running under a
 * file-size limit (RLIMIT_FSIZE) must get an error from our write, not be
 * killed by it. A SIGXFSZ our writes caused is consumed; one that was
 * pending before stays pending. */
static int finish_work_nosigxfsz(const char *ended_by, int truncated)
{
    sigset_t x, old, pend;
    sigemptyset(&x);
    sigaddset(&x, SIGXFSZ);
    pthread_sigmask(SIG_BLOCK, &x, &old);
    sigpending(&pend);
    int was_pending = sigismember(&pend, SIGXFSZ) == 1;
    int rc = finish_work(ended_by, truncated);
    sigpending(&pend);
    if (!was_pending && sigismember(&pend, SIGXFSZ) == 1) {
        struct timespec zero = {0, 0};
        sigtimedwait(&x, NULL, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

int cuprof_collector_finish_as(const char *ended_by, int truncated)
{
    if (atomic_load(&cuprof_g.init) != 2)
        return 0;   /* never started: nothing was recorded */
    if (atomic_exchange(&cuprof_g.finished, 1))
        return 0;
    int saved_errno = errno;
    int guard = cuprof_guard_enter();   /* our own work is not the program's */
    tls_finishing = 1;
    atomic_store(&cuprof_g.recording, CUPROF_REC_OFF);
    /* (read by a flusher writing the first META at the same moment) */
    __atomic_store_n(&cuprof_g.exit_ns, cuprof_clock_now(), __ATOMIC_RELAXED);
    cuprof_cupti_exit_begins();
    cuprof_runfile_quiesce();   /* no chunk is being written while the run is completed */
    int rc = cuprof_g_config.enabled ? finish_work_nosigxfsz(ended_by, truncated) : 0;
    cuprof_shm_set_done(1);   /* the run file holds it all: nothing for the supervisor */
    tls_finishing = 0;
    atomic_store(&cuprof_g.finish_done, 1);
    cuprof_guard_leave(guard);
    /* A SIGINT & co that arrived on this thread while it wrote (process.c
     * deferred it): it does now what it would have done. */
    int sig = atomic_exchange(&cuprof_g.pending_sig, 0);
    if (sig)
        cuprof_process_reraise(sig);
    errno = saved_errno;
    return rc;
}

int cuprof_collector_finish(void)
{
    return cuprof_collector_finish_as("exit", 0);
}

void cuprof_collector_resume(void)
{
    if (atomic_load(&cuprof_g.init) != 2 || !cuprof_g_config.enabled)
        return;
    cuprof_runfile_resume();
    cuprof_shm_set_done(0);
    atomic_store(&cuprof_g.finish_done, 0);
    atomic_store(&cuprof_g.finished, 0);
    atomic_store(&cuprof_g.recording, cuprof_capture_state());
}

/* For preload/inject.c (declared weak there): CUPROF_GPU as loaded. */
__attribute__((visibility("hidden"))) int cuprof_collector_gpu_enabled(void);
int cuprof_collector_gpu_enabled(void)
{
    return cuprof_g_config.gpu;
}

int cuprof_collector_finishing_here(void)
{
    return tls_finishing;
}

int cuprof_driver_hooks_on(void)
{
    cuprof_collector_init();
    return cuprof_g_config.driver_hooks;
}
