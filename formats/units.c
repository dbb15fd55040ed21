/*
 * units.c - human units for the tables (see units.h).
 */
#include "formats/units.h"

#include <stdio.h>

/* value / div with three decimals, rounded to nearest, then unit. */
static char *fixed3(char *dst, size_t len, uint64_t value, uint64_t div, const char *unit)
{
    uint64_t milli = div >= 1000 ? (value + div / 2000) / (div / 1000) : value * (1000 / div);
    snprintf(dst, len, "%llu.%03llu%s", (unsigned long long)(milli / 1000),
             (unsigned long long)(milli % 1000), unit);
    return dst;
}

char *cuprof_fmt_time(char *dst, size_t len, uint64_t ns)
{
    if (ns == 0)
        return fixed3(dst, len, 0, 1000, "us");
    if (ns < 1000) {
        snprintf(dst, len, "%lluns", (unsigned long long)ns);
        return dst;
    }
    if (ns < 1000000)
        return fixed3(dst, len, ns, 1000, "us");
    if (ns < 1000000000)
        return fixed3(dst, len, ns, 1000000, "ms");
    return fixed3(dst, len, ns, 1000000000, "s");
}

char *cuprof_fmt_pct(char *dst, size_t len, uint64_t part, uint64_t total)
{
    /* hundredths of a percent, rounded; long double keeps 64-bit inputs exact enough */
    unsigned long long h = total ? (unsigned long long)((long double)part * 10000.0L / total + 0.5L) : 0;
    snprintf(dst, len, "%llu.%02llu%%", h / 100, h % 100);
    return dst;
}

char *cuprof_fmt_bytes(char *dst, size_t len, uint64_t bytes)
{
    static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
    if (bytes < 1024) {
        snprintf(dst, len, "%llu B", (unsigned long long)bytes);
        return dst;
    }
    long double v = (long double)bytes / 1024.0L;
    int u = 0;
    while (v >= 1024.0L && u < 4) {
        v /= 1024.0L;
        u++;
    }
    snprintf(dst, len, "%.2Lf %s", v, unit[u]);
    return dst;
}

char *cuprof_fmt_count(char *dst, size_t len, double v)
{
    static const char prefix[] = " KMGTPE";
    int p = 0;
    while (v >= 999.95 && p < 6) {
        v /= 1000.0;
        p++;
    }
    if (p == 0)
        snprintf(dst, len, "%.0f", v);
    else
        snprintf(dst, len, v >= 99.95 ? "%.1f %c" : "%.2f %c", v, prefix[p]);
    return dst;
}
