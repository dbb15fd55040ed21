/*
 * log.c - stderr messages (see log.h).
 */
#include "collector/log.h"
#include "collector/config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
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
    const char *p = line;
    while (len > 0) {
        ssize_t w = write(STDERR_FILENO, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        p += w;
        len -= (size_t)w;
    }
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
