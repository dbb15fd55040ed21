/*
 * progress.c - a long report's progress on stderr (progress.h).
 */
#include "tools/progress.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { MODE_OFF, MODE_TTY, MODE_LINES };

#define FIRST_NS 1000000000ull   /* unset: nothing for a report done within a second */
#define REDRAW_NS 500000000ull   /* the terminal's line rewritten twice a second */

static struct {
    int mode, started;
    uint64_t begin, delay;
    char name[256];
    char label[512];             /* cuprof_progress_start_work's; "" for a report */
    _Atomic uint64_t work_done, work_total;
    cuprof_rfread_progress read;
    _Atomic int stage, traces;
    pthread_t th;
    pthread_mutex_t mu;          /* stderr's writes, stop, shown, held */
    pthread_cond_t cv;
    int stop, shown, held;
} P = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

unsigned cuprof_progress_percent(uint64_t done, uint64_t total)
{
    if (total == 0)
        return 0;
    return done >= total ? 99 : (unsigned)(done * 100 / total);
}

void cuprof_progress_elapsed(char *buf, size_t n, uint64_t ns)
{
    uint64_t s = ns / 1000000000u;
    if (s < 60)
        snprintf(buf, n, "%llu s", (unsigned long long)s);
    else if (s < 3600)
        snprintf(buf, n, "%llu min %02llu s", (unsigned long long)(s / 60),
                 (unsigned long long)(s % 60));
    else
        snprintf(buf, n, "%llu h %02llu min", (unsigned long long)(s / 3600),
                 (unsigned long long)(s / 60 % 60));
}

void cuprof_progress_text(char *buf, size_t n, const char *name, enum cuprof_progress_stage s,
                          int traces_busy, unsigned pct)
{
    const char *main = NULL;
    switch (s) {
    case CUPROF_PROGRESS_READ:
        snprintf(buf, n, "report of %s: reading the run file %u%%", name, pct);
        return;
    case CUPROF_PROGRESS_JOIN:
        main = "joining the calls and the GPU records";
        break;
    case CUPROF_PROGRESS_SUMMARY:
        main = "building the summary";
        break;
    case CUPROF_PROGRESS_TABLES:
        main = "the findings and the tables";
        break;
    case CUPROF_PROGRESS_DONE:
        break;
    }
    const char *tr = traces_busy ? "writing the traces" : NULL;
    snprintf(buf, n, "report of %s: %s%s%s", name, main ? main : tr ? tr : "finishing",
             main && tr ? ", " : "", main && tr ? tr : "");
}

/* The line now (P.mu held). */
static void draw(uint64_t t, char *last, size_t lastn, unsigned *last_quarter)
{
    int s = atomic_load(&P.stage), tb = atomic_load(&P.traces);
    uint64_t done, total;
    if (P.label[0])   /* a tool's own work */
        done = atomic_load(&P.work_done), total = atomic_load(&P.work_total);
    else
        cuprof_rfread_work(&P.read, &done, &total);
    unsigned pct = cuprof_progress_percent(done, total);
    char text[600], el[64];
    if (P.label[0]) {   /* LABEL N% */
        s = CUPROF_PROGRESS_READ;   /* (its quarters are shown as the reading's) */
        snprintf(text, sizeof text, "%s %u%%", P.label, pct);
    } else {
        cuprof_progress_text(text, sizeof text, P.name, (enum cuprof_progress_stage)s, tb, pct);
    }
    cuprof_progress_elapsed(el, sizeof el, t - P.begin);
    if (P.mode == MODE_TTY) {
        fprintf(stderr, "\rcuprof: %s (%s)\033[K", text, el);
        fflush(stderr);
        P.shown = 1;
        return;
    }
    /* lines: a stage's first line, and the reading's each quarter */
    char key[600];
    if (P.label[0])
        snprintf(key, sizeof key, "%s", P.label);
    else
        cuprof_progress_text(key, sizeof key, P.name, (enum cuprof_progress_stage)s, tb, 0);
    unsigned q = pct / 25;
    if (strcmp(key, last) == 0 && (s != CUPROF_PROGRESS_READ || q <= *last_quarter))
        return;
    snprintf(last, lastn, "%s", key);
    *last_quarter = s == CUPROF_PROGRESS_READ ? q : 0;
    fprintf(stderr, "cuprof: %s (%s)\n", text, el);
    fflush(stderr);
}

static struct {
    char last[600];              /* lines: the last stage's words */
    unsigned quarter;            /* ... and the reading's quarter */
} L;

static void *progress_main(void *arg)
{
    (void)arg;
    char *last = L.last;
    unsigned quarter = L.quarter;
    uint64_t next = P.begin + P.delay;
    pthread_mutex_lock(&P.mu);
    while (!P.stop) {
        uint64_t t = now_ns();
        if (t >= next) {
            if (!P.held)
                draw(t, last, sizeof L.last, &quarter);
            next = t + (P.mode == MODE_TTY ? REDRAW_NS : REDRAW_NS / 5);
        }
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);   /* (the condition's clock) */
        uint64_t wait = next > t ? next - t : 1000000;
        until.tv_sec += (time_t)(wait / 1000000000u);
        until.tv_nsec += (long)(wait % 1000000000u);
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&P.cv, &P.mu, &until);
    }
    pthread_mutex_unlock(&P.mu);
    return NULL;
}

/* The terminal's line cleared (P.mu held). */
static void clear_line(void)
{
    if (P.shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        P.shown = 0;
    }
}

static void start(const char *file, const char *label, int quiet);

cuprof_rfread_progress *cuprof_progress_start(const char *file, int quiet)
{
    start(file, "", quiet);
    return &P.read;
}

void cuprof_progress_start_work(const char *label, int quiet)
{
    start("", label, quiet);
}

void cuprof_progress_work(uint64_t done, uint64_t total)
{
    atomic_store(&P.work_total, total);
    atomic_store(&P.work_done, done);
}

static void start(const char *file, const char *label, int quiet)
{
    memset(&P.read, 0, sizeof P.read);
    atomic_store(&P.work_done, 0);
    atomic_store(&P.work_total, 0);
    snprintf(P.label, sizeof P.label, "%s", label);
    atomic_store(&P.stage, CUPROF_PROGRESS_READ);
    atomic_store(&P.traces, 0);
    P.stop = P.shown = P.held = 0;
    P.started = 0;
    const char *v = getenv("CUPROF_REPORT_PROGRESS");
    if (quiet || (v && strcmp(v, "0") == 0))
        P.mode = MODE_OFF;
    else if (v && strcmp(v, "1") == 0)
        P.mode = MODE_LINES, P.delay = 0;
    else if (v && strcmp(v, "tty") == 0)
        P.mode = MODE_TTY, P.delay = 0;
    else
        P.mode = isatty(STDERR_FILENO) ? MODE_TTY : MODE_OFF, P.delay = FIRST_NS;
    if (P.mode == MODE_OFF)
        return;
    const char *slash = strrchr(file, '/');
    snprintf(P.name, sizeof P.name, "%s", slash ? slash + 1 : file);
    P.begin = now_ns();
    L.last[0] = '\0';
    L.quarter = 0;
    if (P.delay == 0) {   /* asked for: the first line now, before the reading starts */
        pthread_mutex_lock(&P.mu);
        draw(P.begin, L.last, sizeof L.last, &L.quarter);
        pthread_mutex_unlock(&P.mu);
    }
    sigset_t all, old;   /* no signals for it: they stay on the main thread */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    P.started = pthread_create(&P.th, NULL, progress_main, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!P.started) {   /* no thread: no line left behind either */
        pthread_mutex_lock(&P.mu);
        clear_line();
        pthread_mutex_unlock(&P.mu);
    }
}

void cuprof_progress_stage(enum cuprof_progress_stage s)
{
    atomic_store(&P.stage, (int)s);
}

void cuprof_progress_traces(int busy)
{
    atomic_store(&P.traces, busy);
}

void cuprof_progress_hold(void)
{
    if (!P.started)
        return;
    pthread_mutex_lock(&P.mu);
    clear_line();
    P.held++;
    pthread_mutex_unlock(&P.mu);
}

void cuprof_progress_release(void)
{
    if (!P.started)
        return;
    pthread_mutex_lock(&P.mu);
    if (P.held > 0)
        P.held--;
    pthread_mutex_unlock(&P.mu);
}

void cuprof_progress_end(void)
{
    if (!P.started)
        return;
    pthread_mutex_lock(&P.mu);
    P.stop = 1;
    pthread_cond_broadcast(&P.cv);
    pthread_mutex_unlock(&P.mu);
    pthread_join(P.th, NULL);
    pthread_mutex_lock(&P.mu);
    clear_line();
    pthread_mutex_unlock(&P.mu);
    P.started = 0;
}
