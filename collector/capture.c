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
    /* standby (prof.sh trigger): what closes the window a trigger opened */
    uint64_t close_at;            /* duration: clock time, 0 = none */
    uint64_t calls_until;         /* calls: the recorded-call count that closes it, 0 = none */
    uint32_t steps_left;          /* steps: occurrences of the step range still to record */
    int steps_armed;              /* steps: the next occurrence opens the window */
    /* standby: the steps seen so far (prof.sh trigger --job lines the ranks up by them) */
    int64_t step_cur;             /* number of the last step begun (its "#K", else its
                                     occurrence from 0); -1 none yet */
    uint64_t step_count;          /* occurrences of the step range */
    uint64_t step_t;              /* when the last one began (clock ns) */
    uint64_t step_ns;             /* from the one before to it: a step's time */
    int64_t arm_from;             /* armed by a job trigger: opens at the first step numbered
                                     this or more; -1 at the next step */
    int64_t opened_step;          /* the step the last armed window opened at */
    uint64_t open_for_ns;         /* a job's timed window: its span once it opens */
    /* flight recorder: why each window was written ([opened], owned) */
    char **why;
    cuprof_flight_stats flight;   /* the ring when the last window was cut */
} cap = {.lock = PTHREAD_MUTEX_INITIALIZER, .step_cur = -1, .arm_from = -1, .opened_step = -1};

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
    cuprof_memheld_window_opened((uint32_t)cap.opened, cap.win[cap.opened - 1][0]);
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
    case CUPROF_CAPTURE_STANDBY: {
        snprintf(cap.trigger, sizeof cap.trigger, "prof.sh trigger");
        snprintf(cap.spec, sizeof cap.spec, "standby, windows opened by prof.sh trigger");
        /* the step range is followed from the start (a push compares a string
         * id): prof.sh trigger --job asks every rank which step it is in */
        const char *nm = c->step_name[0] ? c->step_name : "ProfilerStep";
        snprintf(cuprof_g_config.capture_name, sizeof cuprof_g_config.capture_name, "%.255s", nm);
        cap.name = cuprof_string_intern(cuprof_g_config.capture_name);
        cap.any_domain = 1;
        atomic_store(&cuprof_capture_nvtx_on, 1);
        break;
    }
    case CUPROF_CAPTURE_FLIGHT:   /* everything recorded; windows cut when asked for */
        snprintf(cap.trigger, sizeof cap.trigger, "flight recorder");
        snprintf(cap.spec, sizeof cap.spec, "flight recorder: the last %.3f s, in a ring of at most %llu MiB",
                 (double)c->flight_ns / 1e9, (unsigned long long)(c->flight_bytes >> 20));
        rec = CUPROF_REC_ON;
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
    int rec = cap.kind == CUPROF_CAPTURE_NONE || cap.kind == CUPROF_CAPTURE_FLIGHT || cap.open
                  ? CUPROF_REC_ON : CUPROF_REC_GATED;
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
    if (c->capture == CUPROF_CAPTURE_STANDBY ||   /* every trigger's window: its own files */
        c->capture == CUPROF_CAPTURE_FLIGHT)
        return atomic_load(&closed_windows);
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

/* The number of a step: the digits after its name's last '#'
 * (ProfilerStep#12 is 12), else its occurrence from 0; lock held. */
static int64_t step_number_locked(uint32_t name)
{
    const char *s = cuprof_string_get(name), *h = s ? strrchr(s, '#') : NULL;
    if (h && h[1] >= '0' && h[1] <= '9') {
        int64_t v = 0;
        for (h++; *h >= '0' && *h <= '9' && v < ((int64_t)1 << 55); h++)
            v = v * 10 + (*h - '0');
        if (!*h)
            return v;
    }
    return (int64_t)cap.step_count;
}

/* standby: the step range's pushes and pops (push/pop ranges only:
 * PyTorch's ProfilerStep#N), followed from the start. A steps trigger's
 * window opens at the first push after the trigger (a job trigger's: at
 * the first step numbered arm_from or more) and closes at the pop of the
 * steps_left-th step; a job's timed window closes open_for_ns after. */
static int standby_nvtx(uint8_t cls, uint32_t name, uint32_t domain)
{
    int closes = 0;
    if (cls == CUPROF_EV_RANGE_PUSH) {
        int l = level++;
        if (is_trigger(name, domain)) {
            uint64_t now = cuprof_clock_now();
            pthread_mutex_lock(&cap.lock);
            int64_t num = step_number_locked(name);
            cap.step_ns = cap.step_t ? now - cap.step_t : 0;
            cap.step_t = now;
            cap.step_cur = num;
            cap.step_count++;
            if (cap.steps_armed && !cap.open && (cap.arm_from < 0 || num >= cap.arm_from)) {
                open_locked();
                cap.steps_armed = 0;
                cap.opened_step = num;
                if (cap.open_for_ns)
                    cap.close_at = now + cap.open_for_ns, cap.open_for_ns = 0;
            }
            if (cap.open && cap.steps_left)
                owner_level = l;
            pthread_mutex_unlock(&cap.lock);
        }
    } else if (cls == CUPROF_EV_RANGE_POP) {
        if (level > 0)
            level--;
        if (owner_level >= 0 && owner_level == level) {
            owner_level = -1;
            pthread_mutex_lock(&cap.lock);
            if (cap.steps_left && --cap.steps_left == 0)
                closes = 1;
            pthread_mutex_unlock(&cap.lock);
        }
    }
    return closes;
}

int cuprof_capture_nvtx(uint8_t cls, uint32_t name, uint32_t domain, uint64_t id)
{
    int closes = 0;
    if (cap.kind == CUPROF_CAPTURE_STANDBY)
        return standby_nvtx(cls, name, domain);
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
        if (cap.kind == CUPROF_CAPTURE_FLIGHT) {
            out->flight_ns = cuprof_g_config.flight_ns;
            out->flight_bytes = cuprof_g_config.flight_bytes;
            out->flight_peak_bytes = cap.flight.peak;
            out->flight_evicted_until = cap.flight.evicted_until;
            out->window_why = (const char *const *)cap.why;
            out->nwhy = cap.why ? cap.opened : 0;
        }
    }
    pthread_mutex_unlock(&cap.lock);
}

/* ---- standby: windows opened from outside (prof.sh trigger) ------------------- */

/* Calls recorded so far, every thread (the committed records of each). */
static uint64_t calls_recorded(void)
{
    uint64_t n = 0;
    pthread_mutex_lock(&cuprof_g.lock);
    for (cuprof_thread *t = cuprof_g.threads; t; t = t->next)
        n += atomic_load_explicit(&t->committed, memory_order_relaxed);
    pthread_mutex_unlock(&cuprof_g.lock);
    return n;
}

void cuprof_capture_steps_now(int64_t *step, uint64_t *step_ns, uint64_t *next_window)
{
    pthread_mutex_lock(&cap.lock);
    *step = cap.kind == CUPROF_CAPTURE_STANDBY ? cap.step_cur : -1;
    *step_ns = cap.step_ns;
    *next_window = cap.opened + (cap.open ? 0 : 1);
    pthread_mutex_unlock(&cap.lock);
}

/* The step range a steps trigger names: followed from now on (a new name
 * starts the count again); lock held. */
static void follow_range_locked(const char *nm)
{
    if (strcmp(nm, cuprof_g_config.capture_name) != 0) {
        snprintf(cuprof_g_config.capture_name, sizeof cuprof_g_config.capture_name, "%.255s", nm);
        cap.step_cur = -1;
        cap.step_count = cap.step_t = cap.step_ns = 0;
    }
    cap.name = cuprof_string_intern(cuprof_g_config.capture_name);
    cap.any_domain = 1;
    atomic_store(&cuprof_capture_nvtx_on, 1);
}

void cuprof_capture_follow(const char *name)
{
    pthread_mutex_lock(&cap.lock);
    if (cap.kind == CUPROF_CAPTURE_STANDBY && !cap.open && !cap.steps_armed && name && *name)
        follow_range_locked(name);
    pthread_mutex_unlock(&cap.lock);
}

int cuprof_capture_trigger(const char *req, char *answer, size_t n)
{
    unsigned long long v = 0;
    char what[16] = "", rest[300] = "", range[256] = "";
    long long from = -1;
    if (sscanf(req, "%15[a-z_]=%llu %299[^\n]", what, &v, rest) < 2 || v == 0) {
        snprintf(answer, n, "refused: the request is not duration_ns=N, calls=N or steps=N");
        return -1;
    }
    /* the rest: "from=K" (a job trigger's first step) and the range's name */
    for (char *save = NULL, *tok = strtok_r(rest, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        if (!strncmp(tok, "from=", 5))
            from = strtoll(tok + 5, NULL, 10);
        else
            snprintf(range, sizeof range, "%s", tok);
    }
    if (!strcmp(what, "dump")) {
        if (cap.kind != CUPROF_CAPTURE_FLIGHT) {
            snprintf(answer, n, "refused: process %ld was not started with --flight-recorder",
                     (long)cuprof_g.pid);
            return -1;
        }
        cuprof_flight_ask("prof.sh trigger --dump");
        snprintf(answer, n, "the flight recorder's last %.3f s are being written as window %llu",
                 (double)cuprof_g_config.flight_ns / 1e9,
                 (unsigned long long)atomic_load(&closed_windows) + 1);
        return 0;
    }
    uint64_t calls = strcmp(what, "calls") == 0 ? calls_recorded() : 0;
    pthread_mutex_lock(&cap.lock);
    int rc = 0;
    if (cap.kind == CUPROF_CAPTURE_FLIGHT) {
        snprintf(answer, n, "refused: process %ld runs the flight recorder: trigger --dump writes "
                 "its last seconds", (long)cuprof_g.pid);
        rc = -1;
    } else if (cap.kind != CUPROF_CAPTURE_STANDBY) {
        snprintf(answer, n, "refused: process %ld was not started with --standby", (long)cuprof_g.pid);
        rc = -1;
    } else if (cap.open || cap.steps_armed) {
        snprintf(answer, n, "refused: window %llu is still %s; trigger again when it has closed",
                 (unsigned long long)cap.opened + (cap.open ? 0 : 1), cap.open ? "open" : "waiting for its step");
        rc = -1;
    } else if (from >= 0 && cap.step_cur >= from && (range[0] == '\0' ||
                                                      !strcmp(range, cuprof_g_config.capture_name))) {
        snprintf(answer, n, "missed: step %lld has begun already (this process is at step %lld)", from,
                 (long long)cap.step_cur);
        rc = -1;
    } else if (!strcmp(what, "duration_ns") && from >= 0 && cap.step_count > 0) {
        cap.arm_from = from;   /* a job's: from its step on, for the span */
        cap.steps_left = 0;
        cap.steps_armed = 1;
        cap.open_for_ns = v;
        snprintf(answer, n, "window %llu opens at step %lld and lasts %.3f s",
                 (unsigned long long)cap.opened + 1, from, (double)v / 1e9);
    } else if (!strcmp(what, "duration_ns")) {
        open_locked();
        cap.close_at = cuprof_clock_now() + v;
        snprintf(answer, n, "window %llu opened for %.3f s", (unsigned long long)cap.opened, (double)v / 1e9);
    } else if (!strcmp(what, "calls")) {
        open_locked();
        cap.calls_until = calls + v;
        snprintf(answer, n, "window %llu opened for the next %llu calls (closed within 0.1 s of the last)",
                 (unsigned long long)cap.opened, v);
    } else if (!strcmp(what, "steps")) {
        follow_range_locked(range[0] ? range : cuprof_g_config.capture_name);
        cap.steps_left = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
        cap.steps_armed = 1;
        cap.arm_from = from;
        if (from >= 0)
            snprintf(answer, n, "window %llu opens at step %lld of NVTX range %s and holds %llu step%s",
                     (unsigned long long)cap.opened + 1, from, cuprof_g_config.capture_name, v,
                     v == 1 ? "" : "s");
        else
            snprintf(answer, n, "window %llu opens at the next NVTX range %s and holds %llu step%s",
                     (unsigned long long)cap.opened + 1, cuprof_g_config.capture_name, v, v == 1 ? "" : "s");
    } else {
        snprintf(answer, n, "refused: %s is not duration_ns, calls or steps", what);
        rc = -1;
    }
    pthread_mutex_unlock(&cap.lock);
    return rc;
}

void cuprof_capture_tick(void)
{
    if (cap.kind != CUPROF_CAPTURE_STANDBY)
        return;
    uint64_t until = __atomic_load_n(&cap.calls_until, __ATOMIC_RELAXED);
    uint64_t calls = until ? calls_recorded() : 0;
    pthread_mutex_lock(&cap.lock);
    if (cap.open && ((cap.close_at && cuprof_clock_now() >= cap.close_at) ||
                     (cap.calls_until && calls >= cap.calls_until))) {
        cap.close_at = cap.calls_until = 0;
        close_locked();
    }
    pthread_mutex_unlock(&cap.lock);
}

/* ---- the flight recorder's windows ---------------------------------------------------- */

uint64_t cuprof_capture_flight_window(const char *why)
{
    if (cap.kind != CUPROF_CAPTURE_FLIGHT)
        return 0;
    cuprof_flight_stats st;
    cuprof_runfile_flight_stats(&st);   /* the run file's lock: before ours */
    uint64_t now = cuprof_clock_now();
    uint64_t open = now > st.span_ns ? now - st.span_ns : 0;
    if (open < cuprof_g.t_start)
        open = cuprof_g.t_start;
    if (st.evicted_until >= open)   /* the ring was full: what it still holds */
        open = st.evicted_until + 1;
    pthread_mutex_lock(&cap.lock);
    if (cap.opened == cap.cap) {
        size_t n = cap.cap ? cap.cap * 2 : 16;
        void *p = realloc(cap.win, n * sizeof cap.win[0]);
        void *q = p ? realloc(cap.why, n * sizeof cap.why[0]) : NULL;
        if (p)
            cap.win = p;
        if (!p || !q) {
            pthread_mutex_unlock(&cap.lock);
            cuprof_log("flight recorder: out of memory for its windows' list: not written (%s)", why);
            return 0;
        }
        cap.why = q;
        cap.cap = n;
    }
    if (!cap.why) {   /* the list grew before (never for this kind), or is new */
        cap.why = calloc(cap.cap, sizeof cap.why[0]);
        if (!cap.why) {
            pthread_mutex_unlock(&cap.lock);
            return 0;
        }
    }
    cap.win[cap.opened][0] = open;
    cap.win[cap.opened][1] = now;
    cap.why[cap.opened] = strdup(why);
    cap.opened++;
    cap.seen++;
    cap.flight = st;
    uint64_t k = cap.opened;
    atomic_fetch_add(&closed_windows, 1);
    pthread_mutex_unlock(&cap.lock);
    cuprof_debug(CUPROF_DBG_COLLECTOR, "flight recorder: window %llu (%s)", (unsigned long long)k, why);
    return k;
}

uint64_t cuprof_capture_window_open(uint64_t k)
{
    pthread_mutex_lock(&cap.lock);
    uint64_t t = k >= 1 && k <= cap.opened ? cap.win[k - 1][0] : 0;
    pthread_mutex_unlock(&cap.lock);
    return t;
}
