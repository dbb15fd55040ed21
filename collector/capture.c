/*
 * capture.c - the capture window: record only between cudaProfilerStart and
 * cudaProfilerStop, inside an NVTX range, or for a time span (config.h:
 * CUPROF_CAPTURE_RANGE, CUPROF_CAPTURE_RANGE_END, CUPROF_SKIP_FIRST,
 * CUPROF_DELAY, CUPROF_DURATION), as nsys's --capture-range does.
 *
 * The window is cuprof_g.recording itself: CUPROF_REC_ON while a window is
 * open, CUPROF_REC_GATED while none is. So outside the window a hook costs
 * what it costs with recording off: one load and a branch in slot_take
 * (buffers.c), then the real call. The triggers are rare (a profiler call,
 * an NVTX push or pop, a timer): they take this file's lock.
 *
 * CUPTI keeps running outside the window (enabling and disabling its
 * activity kinds costs milliseconds and loses records in flight); the model
 * drops the records of calls made outside every window (model/capture.c),
 * using the windows this file keeps.
 *
 * Fork: the child inherits the window's state; a timed window's timer
 * thread does not survive the fork, so in a child a timed window stays as
 * it was at the fork.
 */
#include "collector/internal.h"
#include "collector/cupti.h"
#include "collector/log.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

_Atomic int cuprof_capture_nvtx_on;

static struct {
    pthread_mutex_t lock;
    int kind;                     /* enum cuprof_capture_kind */
    int open;                     /* a window is open now */
    int done;                     /* no window will open again */
    uint64_t seen;                /* occurrences of the trigger */
    uint64_t opened;              /* windows opened */
    uint64_t (*win)[2];           /* [opened] open/close times (close 0 = open) */
    size_t cap;                   /* room in win */
    uint32_t name, domain;        /* nvtx: the range's string ids */
    int any_domain;               /* nvtx: "@*" */
    uint64_t owner_id;            /* nvtx start/end range holding the window open */
    char trigger[400];
    char spec[440];
} cap = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* nvtx: this thread's push level, and the level of the push range that
 * holds the window open when this thread pushed it (-1: not this thread). */
static _Thread_local int level;
static _Thread_local int owner_level = -1;

/* Set by the first call made outside every window: CUPTI is started then
 * (calls inside a window must find it running), and the files are written
 * even when no window opens. */
static _Atomic int outside;

/* Opens a window now; lock held. */
static void open_locked(void)
{
    if (cap.opened == cap.cap) {
        size_t n = cap.cap ? cap.cap * 2 : 16;
        void *p = realloc(cap.win, n * sizeof cap.win[0]);
        if (!p) {
            cuprof_log("out of memory for the capture windows' list: no window opens from here on");
            cap.done = 1;
            return;
        }
        cap.win = p;
        cap.cap = n;
    }
    cap.win[cap.opened][0] = cuprof_clock_now();
    cap.win[cap.opened][1] = 0;
    cap.opened++;
    cap.open = 1;
    int expected = CUPROF_REC_GATED;
    atomic_compare_exchange_strong(&cuprof_g.recording, &expected, CUPROF_REC_ON);
    cuprof_debug(CUPROF_DBG_COLLECTOR, "capture window %llu opened", (unsigned long long)cap.opened);
}

/* Closes the open window now; lock held. */
static _Atomic uint64_t closed_windows;   /* windows closed so far */

static void close_locked(void)
{
    if (!cap.open)
        return;
    int expected = CUPROF_REC_ON;
    atomic_compare_exchange_strong(&cuprof_g.recording, &expected, CUPROF_REC_GATED);
    cap.win[cap.opened - 1][1] = cuprof_clock_now();
    cap.open = 0;
    atomic_fetch_add(&closed_windows, 1);   /* the flusher writes its outputs */
    uint32_t repeat = cuprof_g_config.capture_repeat;
    if (cap.kind == CUPROF_CAPTURE_TIME || (repeat && cap.opened >= repeat))
        cap.done = 1;
    cuprof_debug(CUPROF_DBG_COLLECTOR, "capture window %llu closed%s",
                 (unsigned long long)cap.opened, cap.done ? " for good" : "");
}

/* One occurrence of the trigger: opens a window unless it is skipped;
 * lock held. 1 when it opened one. */
static int occurrence_locked(void)
{
    if (cap.open || cap.done)
        return 0;
    if (++cap.seen <= cuprof_g_config.skip_first)
        return 0;
    open_locked();
    return cap.open;
}

/* ---- the timed window ------------------------------------------------------- */

static void sleep_until(uint64_t t)
{
    struct timespec ts = {(time_t)(t / 1000000000ull), (long)(t % 1000000000ull)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

static void *timer_main(void *arg)
{
    (void)arg;
    prctl(PR_SET_NAME, "cuprof-capture", 0, 0, 0);
    const cuprof_config *c = &cuprof_g_config;
    uint64_t t0 = cuprof_g.t_start;
    if (c->delay_ns) {
        sleep_until(t0 + c->delay_ns);
        pthread_mutex_lock(&cap.lock);
        occurrence_locked();
        pthread_mutex_unlock(&cap.lock);
    }
    if (c->duration_ns) {
        sleep_until(t0 + c->delay_ns + c->duration_ns);
        pthread_mutex_lock(&cap.lock);
        close_locked();
        pthread_mutex_unlock(&cap.lock);
    }
    return NULL;
}

/* Starts the timer thread (every signal blocked in it: the program's
 * handlers must not run on our thread). -1 when it cannot start. */
static int timer_start(void)
{
    pthread_attr_t attr;
    sigset_t all, old;
    pthread_t th;
    if (pthread_attr_init(&attr) != 0)
        return -1;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    /* The default stack size, not a small fixed one: glibc takes every loaded
     * library's TLS out of a new thread's stack (libcublasLt's 94 KiB and a
     * real libcuda's left 128 KiB too little: SIGSEGV on an H200). */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&th, &attr, timer_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    return rc == 0 ? 0 : -1;
}

/* ---- the interface ------------------------------------------------------------ */

int cuprof_capture_init(void)
{
    const cuprof_config *c = &cuprof_g_config;
    pthread_mutex_lock(&cap.lock);
    cap.kind = c->capture;
    char end[32];
    if (c->capture_repeat == 0)
        snprintf(end, sizeof end, "none");
    else if (c->capture_repeat == 1)
        snprintf(end, sizeof end, "stop");
    else
        snprintf(end, sizeof end, "repeat:%u", c->capture_repeat);
    int rec = CUPROF_REC_GATED;
    switch (c->capture) {
    case CUPROF_CAPTURE_PROFILER:
        snprintf(cap.trigger, sizeof cap.trigger, "cudaProfilerStart/Stop");
        snprintf(cap.spec, sizeof cap.spec, "cudaProfilerApi, end %s, skip first %u", end,
                 c->skip_first);
        break;
    case CUPROF_CAPTURE_NVTX:
        cap.name = cuprof_string_intern(c->capture_name);
        cap.any_domain = strcmp(c->capture_domain, "*") == 0;
        cap.domain = c->capture_domain[0] && !cap.any_domain
                         ? cuprof_string_intern(c->capture_domain) : 0;
        snprintf(cap.trigger, sizeof cap.trigger, "NVTX range %.255s%s%.127s", c->capture_name,
                 c->capture_domain[0] ? "@" : "", c->capture_domain);
        snprintf(cap.spec, sizeof cap.spec, "nvtx:%.255s%s%.127s, end %s, skip first %u",
                 c->capture_name, c->capture_domain[0] ? "@" : "", c->capture_domain, end,
                 c->skip_first);
        atomic_store(&cuprof_capture_nvtx_on, 1);
        break;
    case CUPROF_CAPTURE_TIME:
        snprintf(cap.trigger, sizeof cap.trigger, "time");
        snprintf(cap.spec, sizeof cap.spec, "delay %.3f s, duration %s%.3f s",
                 (double)c->delay_ns / 1e9, c->duration_ns ? "" : "to the end, ",
                 (double)c->duration_ns / 1e9);
        if (c->delay_ns == 0)
            occurrence_locked(), rec = CUPROF_REC_ON;
        if ((c->delay_ns || c->duration_ns) && timer_start() < 0) {
            cuprof_log("cannot start the capture timer: recording the whole run");
            cap.kind = CUPROF_CAPTURE_NONE;
            rec = CUPROF_REC_ON;
        }
        break;
    default:
        rec = CUPROF_REC_ON;
        break;
    }
    pthread_mutex_unlock(&cap.lock);
    return rec;
}

int cuprof_capture_state(void)
{
    pthread_mutex_lock(&cap.lock);
    int rec = cap.kind == CUPROF_CAPTURE_NONE || cap.open ? CUPROF_REC_ON : CUPROF_REC_GATED;
    pthread_mutex_unlock(&cap.lock);
    return rec;
}

void cuprof_capture_outside(void)
{
    if (atomic_exchange(&outside, 1))
        return;
    /* A window may open later: CUPTI must be running by then (its start,
     * context creation and all, is not the window's to pay for). */
    if (cuprof_g_config.gpu) {
        int g = cuprof_guard_enter();
        cuprof_cupti_start();
        cuprof_guard_leave(g);
    }
}

uint64_t cuprof_capture_closed(void)
{
    /* windows written one by one only when they repeat (one window: the
     * run's own files are its outputs) */
    const cuprof_config *c = &cuprof_g_config;
    if (c->capture == CUPROF_CAPTURE_NONE || c->capture == CUPROF_CAPTURE_TIME ||
        c->capture_repeat == 1)
        return 0;
    return atomic_load(&closed_windows);
}

int cuprof_capture_outside_seen(void)
{
    return atomic_load_explicit(&outside, memory_order_relaxed);
}

void cuprof_capture_profiler_api(int start)
{
    int e = errno;
    if (atomic_load_explicit(&cuprof_g.init, memory_order_acquire) != 2)
        cuprof_collector_init();
    if (cap.kind != CUPROF_CAPTURE_PROFILER) {
        errno = e;
        return;
    }
    pthread_mutex_lock(&cap.lock);
    if (start)
        occurrence_locked();
    else if (cap.open && cuprof_g_config.capture_repeat != 0)
        close_locked();
    pthread_mutex_unlock(&cap.lock);
    errno = e;
}

/* 1 when (name, domain) is the capture range: the same name, or the name
 * followed by "#" and digits (cuprof_nvtx_base_len). */
static int is_trigger(uint32_t name, uint32_t domain)
{
    if (!cap.any_domain && domain != cap.domain)
        return 0;
    if (name == cap.name)
        return 1;
    const char *s = cuprof_string_get(name);
    size_t n = strlen(cuprof_g_config.capture_name);
    return s && cuprof_nvtx_base_len(s) == n && strncmp(s, cuprof_g_config.capture_name, n) == 0;
}

int cuprof_capture_nvtx(uint8_t cls, uint32_t name, uint32_t domain, uint64_t id)
{
    int closes = 0;
    switch (cls) {
    case CUPROF_EV_RANGE_PUSH: {
        int l = level++;
        if (is_trigger(name, domain)) {
            pthread_mutex_lock(&cap.lock);
            if (occurrence_locked())
                owner_level = l;
            pthread_mutex_unlock(&cap.lock);
        }
        break;
    }
    case CUPROF_EV_RANGE_POP:
        if (level > 0)
            level--;
        if (owner_level >= 0 && owner_level == level) {
            owner_level = -1;
            closes = cuprof_g_config.capture_repeat != 0;
        }
        break;
    case CUPROF_EV_RANGE_START:
        if (is_trigger(name, domain)) {
            pthread_mutex_lock(&cap.lock);
            if (occurrence_locked())
                cap.owner_id = id;
            pthread_mutex_unlock(&cap.lock);
        }
        break;
    case CUPROF_EV_RANGE_END:
        if (id && id == __atomic_load_n(&cap.owner_id, __ATOMIC_RELAXED)) {
            pthread_mutex_lock(&cap.lock);
            if (id == cap.owner_id) {
                cap.owner_id = 0;
                closes = cuprof_g_config.capture_repeat != 0;
            }
            pthread_mutex_unlock(&cap.lock);
        }
        break;
    default:
        break;
    }
    return closes;
}

void cuprof_capture_close(void)
{
    pthread_mutex_lock(&cap.lock);
    close_locked();
    pthread_mutex_unlock(&cap.lock);
}

void cuprof_capture_snapshot(cuprof_capture *out, uint64_t t_end)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&cap.lock);
    if (cap.kind != CUPROF_CAPTURE_NONE) {
        out->trigger = cap.trigger;
        out->spec = cap.spec;
        out->repeat = cuprof_g_config.capture_repeat;
        out->skip_first = cuprof_g_config.skip_first;
        out->seen = cap.seen;
        out->opened = cap.opened;
        out->nwindows = cap.opened;
        if (cap.open)   /* closes at the end of the run */
            cap.win[cap.opened - 1][1] = t_end;
        out->windows = (const uint64_t (*)[2])cap.win;
        out->open_at_end = cap.open;
        out->outside_calls = (uint64_t)atomic_load(&outside);
    }
    pthread_mutex_unlock(&cap.lock);
}
