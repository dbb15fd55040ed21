/*
 * log.c - stderr messages (see log.h).
 */
#include "collector/log.h"
#include "collector/config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Formats "cuprof: <prefix><message>\n" into one buffer and writes it. */
static void log_line(const char *prefix, const char *fmt, va_list ap)
{
    int saved = errno;
    char line[1024];
    int n = snprintf(line, sizeof line, "cuprof: %s", prefix);
    if (n < 0)
        n = 0;
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof line - 2)
        len = sizeof line - 2;   /* truncated: still one whole line */
    if (len > 0 && line[len - 1] == '\n')
        len--;
    line[len++] = '\n';
    /* A stderr that is a closed pipe must not kill the program with the
     * SIGPIPE our own line raised: blocked around the write, and consumed
     * if we caused it (one pending before stays). */
    sigset_t pipe_set, old, pend;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    int was_pending = sigpending(&pend) == 0 && sigismember(&pend, SIGPIPE) == 1;
    const char *p = line;
    int broken = 0;
    while (len > 0) {
        ssize_t w = write(STDERR_FILENO, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            broken = w < 0 && errno == EPIPE;
            break;
        }
        p += w;
        len -= (size_t)w;
    }
    if (broken && !was_pending && sigpending(&pend) == 0 && sigismember(&pend, SIGPIPE) == 1) {
        struct timespec zero = {0, 0};
        sigtimedwait(&pipe_set, NULL, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
}

void cuprof_log(const char *fmt, ...)
{
    if (cuprof_config_get()->quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    log_line("", fmt, ap);
    va_end(ap);
}

int cuprof_debug_on(unsigned area)
{
    const cuprof_config *c = cuprof_config_get();
    return !c->quiet && (c->debug & area);
}

void cuprof_debug(unsigned area, const char *fmt, ...)
{
    if (!cuprof_debug_on(area))
        return;
    va_list ap;
    va_start(ap, fmt);
    log_line("debug: ", fmt, ap);
    va_end(ap);
}
