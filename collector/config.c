/*
 * config.c - reads the CUPROF_* environment once (see config.h for the list).
 */
#include "collector/config.h"
#include "collector/internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The loaded configuration; defaults until cuprof_collector_init loads it. */
cuprof_config cuprof_g_config = {
    .out_dir = CUPROF_DEFAULT_OUT_DIR,
    .enabled = 1,
    .mem_limit = CUPROF_DEFAULT_MEM_LIMIT,
    .flight_bytes = CUPROF_DEFAULT_FLIGHT_BYTES,
    .gpu = 1,
    .prefault = 1,
    .keep_run_file = 1,
    .driver_hooks = 1,
    .capture_repeat = 1,
};

const cuprof_config *cuprof_config_get(void)
{
    return &cuprof_g_config;
}

int cuprof_config_parse_size(const char *s, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    uint64_t v = 0;
    for (; isdigit((unsigned char)*s); s++) {
        if (v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    unsigned shift = 0;
    switch (*s) {
    case 'k': case 'K': shift = 10; s++; break;
    case 'm': case 'M': shift = 20; s++; break;
    case 'g': case 'G': shift = 30; s++; break;
    default: break;
    }
    if (*s == 'i' || *s == 'I')   /* accept "Ki", "Mi", "Gi" too */
        s += shift ? 1 : 0;
    if (*s == 'b' || *s == 'B')
        s++;
    if (*s != '\0' || (shift && v > (UINT64_MAX >> shift)))
        return -1;
    *out = v << shift;
    return 0;
}

int cuprof_config_parse_seconds(const char *s, uint64_t *ns)
{
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    uint64_t whole = 0, frac = 0, scale = 1000000000ull;
    for (; isdigit((unsigned char)*s); s++) {
        if (whole > 1000000000ull)   /* 31 years: not a profiling window */
            return -1;
        whole = whole * 10 + (uint64_t)(*s - '0');
    }
    if (*s == '.') {
        s++;
        for (; isdigit((unsigned char)*s); s++) {
            if (scale == 1)
                return -1;
            scale /= 10;
            frac += (uint64_t)(*s - '0') * scale;
        }
    }
    if (*s != '\0')
        return -1;
    *ns = whole * 1000000000ull + frac;
    return 0;
}

int cuprof_config_split_range(const char *s, char *name, size_t nlen, char *domain, size_t dlen)
{
    const char *at = strrchr(s, '@');
    size_t n = at ? (size_t)(at - s) : strlen(s);
    const char *d = at ? at + 1 : "";
    if (n == 0 || n >= nlen || strlen(d) >= dlen || (at && !*d))
        return -1;
    memcpy(name, s, n);
    name[n] = '\0';
    strcpy(domain, d);
    return 0;
}

/* CUPROF_CAPTURE_RANGE into c; -1 when malformed. */
static int parse_capture(cuprof_config *c, const char *v)
{
    if (strcmp(v, "cudaProfilerApi") == 0) {
        c->capture = CUPROF_CAPTURE_PROFILER;
        return 0;
    }
    if (strncmp(v, "nvtx:", 5) == 0 &&
        cuprof_config_split_range(v + 5, c->capture_name, sizeof c->capture_name,
                                  c->capture_domain, sizeof c->capture_domain) == 0) {
        c->capture = CUPROF_CAPTURE_NVTX;
        return 0;
    }
    return -1;
}

/* CUPROF_CAPTURE_RANGE_END into c; -1 when malformed. */
static int parse_capture_end(cuprof_config *c, const char *v)
{
    char *end;
    if (strcmp(v, "stop") == 0)
        c->capture_repeat = 1;
    else if (strcmp(v, "none") == 0)
        c->capture_repeat = 0;
    else if (strncmp(v, "repeat:", 7) == 0 && isdigit((unsigned char)v[7])) {
        unsigned long n = strtoul(v + 7, &end, 10);
        if (*end != '\0' || n == 0 || n > UINT32_MAX)
            return -1;
        c->capture_repeat = (uint32_t)n;
    } else
        return -1;
    return 0;
}

/* Appends one warning line to warn (bounded). */
static void warn_add(char *warn, size_t len, const char *var, const char *val,
                     const char *what)
{
    if (!warn || len == 0)
        return;
    size_t used = strlen(warn);
    if (used < len)
        snprintf(warn + used, len - used, "%s=\"%.64s\" is not %s; using the default\n",
                 var, val, what);
}

/* 1 for "1"/"yes"/"true"/"on", 0 for "0"/"no"/"false"/"off"/"", -1 otherwise. */
static int parse_bool(const char *s)
{
    static const char *const yes[] = {"1", "yes", "true", "on"};
    static const char *const no[] = {"0", "no", "false", "off", ""};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        if (strcasecmp(s, yes[i]) == 0)
            return 1;
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        if (strcasecmp(s, no[i]) == 0)
            return 0;
    return -1;
}

/* The index of s in names (NULL-terminated), case-insensitive; -1 if absent. */
static int parse_choice(const char *s, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (strcasecmp(s, names[i]) == 0)
            return i;
    return -1;
}

/* Parses CUPROF_DEBUG: comma-separated area names. Unknown names: -1. */
static int parse_debug(const char *s, unsigned *out)
{
    unsigned bits = 0;
    int bad = 0;
    while (*s) {
        size_t n = strcspn(s, ",");
        if (n == 3 && strncmp(s, "all", 3) == 0) bits |= CUPROF_DBG_ALL;
        else if (n == 9 && strncmp(s, "collector", 9) == 0) bits |= CUPROF_DBG_COLLECTOR;
        else if (n == 7 && strncmp(s, "formats", 7) == 0) bits |= CUPROF_DBG_FORMATS;
        else if (n == 1 && *s == '1') bits |= CUPROF_DBG_ALL;
        else if (n != 0) bad = 1;
        s += n;
        if (*s == ',')
            s++;
    }
    *out = bits;
    return bad ? -1 : 0;
}

/* The capture window and the step range (config.h). A malformed one
 * leaves the whole run recorded: never an empty profile by mistake. */
static void load_capture(cuprof_config *c, char *warn, size_t warn_len)
{
    const char *v;
    if ((v = getenv("CUPROF_CAPTURE_RANGE")) && *v && parse_capture(c, v) < 0) {
        c->capture = CUPROF_CAPTURE_NONE;
        warn_add(warn, warn_len, "CUPROF_CAPTURE_RANGE", v, "cudaProfilerApi or nvtx:NAME[@DOMAIN]");
    }
    if ((v = getenv("CUPROF_CAPTURE_RANGE_END")) && *v && parse_capture_end(c, v) < 0)
        warn_add(warn, warn_len, "CUPROF_CAPTURE_RANGE_END", v, "stop, repeat:N or none");
    if ((v = getenv("CUPROF_SKIP_FIRST")) && *v) {
        char *end;
        unsigned long n = strtoul(v, &end, 10);
        if (!isdigit((unsigned char)*v) || *end != '\0' || n > UINT32_MAX)
            warn_add(warn, warn_len, "CUPROF_SKIP_FIRST", v, "a count");
        else
            c->skip_first = (uint32_t)n;
    }
    int timed = 0;
    if ((v = getenv("CUPROF_DELAY")) && *v) {
        if (cuprof_config_parse_seconds(v, &c->delay_ns) < 0)
            warn_add(warn, warn_len, "CUPROF_DELAY", v, "seconds like 2 or 0.5");
        else
            timed = 1;
    }
    if ((v = getenv("CUPROF_DURATION")) && *v) {
        if (cuprof_config_parse_seconds(v, &c->duration_ns) < 0 || c->duration_ns == 0)
            warn_add(warn, warn_len, "CUPROF_DURATION", v, "seconds like 2 or 0.5");
        else
            timed = 1;
    }
    if (timed && c->capture != CUPROF_CAPTURE_NONE) {
        warn_add(warn, warn_len, "CUPROF_DELAY/CUPROF_DURATION", "", "usable with CUPROF_CAPTURE_RANGE");
        c->delay_ns = c->duration_ns = 0;
    } else if (timed) {
        c->capture = CUPROF_CAPTURE_TIME;
    }
    if ((v = getenv("CUPROF_STANDBY")) && *v && strcmp(v, "0") != 0) {
        if (strcmp(v, "1") != 0)
            warn_add(warn, warn_len, "CUPROF_STANDBY", v, "1 or 0");
        else if (c->capture != CUPROF_CAPTURE_NONE)
            warn_add(warn, warn_len, "CUPROF_STANDBY", v, "not with a capture range or a timed window");
        else
            c->capture = CUPROF_CAPTURE_STANDBY, c->capture_repeat = 0;
    }
    if ((v = getenv("CUPROF_FLIGHT_RECORDER")) && *v && strcmp(v, "0") != 0) {
        uint64_t ns = 0;
        char secs[64];   /* "30s" as "30" */
        snprintf(secs, sizeof secs, "%s", v);
        size_t sl = strlen(secs);
        if (sl > 1 && secs[sl - 1] == 's')
            secs[sl - 1] = '\0';
        if (cuprof_config_parse_seconds(secs, &ns) < 0 || ns < 1000000)
            warn_add(warn, warn_len, "CUPROF_FLIGHT_RECORDER", v, "seconds like 30 or 0.5");
        else if (c->capture != CUPROF_CAPTURE_NONE)
            warn_add(warn, warn_len, "CUPROF_FLIGHT_RECORDER", v,
                     "not with a capture range, a timed window or --standby");
        else
            c->capture = CUPROF_CAPTURE_FLIGHT, c->capture_repeat = 0, c->flight_ns = ns;
    }
    if ((v = getenv("CUPROF_FLIGHT_MEMORY")) && *v) {
        uint64_t sz;
        if (cuprof_config_parse_size(v, &sz) == 0 && sz >= (1u << 20) && sz <= (64ull << 30))
            c->flight_bytes = sz;
        else
            warn_add(warn, warn_len, "CUPROF_FLIGHT_MEMORY", v, "a size from 1M to 64G, like 64M");
    }
    if ((v = getenv("CUPROF_STEP_RANGE")) && *v) {
        if (cuprof_config_split_range(v, c->step_name, sizeof c->step_name, c->step_domain,
                                      sizeof c->step_domain) < 0) {
            c->step_name[0] = c->step_domain[0] = '\0';
            warn_add(warn, warn_len, "CUPROF_STEP_RANGE", v, "NAME or NAME@DOMAIN");
        }
    }
}

void cuprof_config_load(cuprof_config *c, char *warn, size_t warn_len)
{
    const char *v;
    if (warn && warn_len)
        warn[0] = '\0';
    memset(c, 0, sizeof *c);
    strcpy(c->out_dir, CUPROF_DEFAULT_OUT_DIR);
    c->enabled = 1;
    c->mem_limit = CUPROF_DEFAULT_MEM_LIMIT;
    c->flight_bytes = CUPROF_DEFAULT_FLIGHT_BYTES;
    c->gpu = 1;
    c->prefault = 1;
    c->keep_run_file = 1;
    c->report_html = 1;   /* bench/report_html.sh: a few ms at any size */
    c->driver_hooks = 1;
    c->stacks_python = 1;
    c->capture_repeat = 1;

    if ((v = getenv("CUPROF_OUT_DIR")) && *v) {
        if (strlen(v) < sizeof c->out_dir - 64)   /* room for the file name */
            strcpy(c->out_dir, v);
        else
            warn_add(warn, warn_len, "CUPROF_OUT_DIR", v, "a usable path (too long)");
    }
    if ((v = getenv("CUPROF_NAME")) && *v) {
        if (strlen(v) < sizeof c->name && !strchr(v, '/'))
            strcpy(c->name, v);
        else
            warn_add(warn, warn_len, "CUPROF_NAME", v, "a file name (no '/', under 256 bytes)");
    }
    if ((v = getenv("CUPROF_ROOT_PID")) && *v) {
        char *end;
        long pid = strtol(v, &end, 10);
        if (*end == '\0' && pid > 0)
            c->root_pid = pid;
        else
            warn_add(warn, warn_len, "CUPROF_ROOT_PID", v, "a pid");
    }
    if ((v = getenv("CUPROF_SUPERVISOR_PID")) && *v) {
        char *end;
        long pid = strtol(v, &end, 10);
        if (*end == '\0' && pid > 0)
            c->supervisor_pid = pid;
        else
            warn_add(warn, warn_len, "CUPROF_SUPERVISOR_PID", v, "a pid");
    }
    if ((v = getenv("CUPROF_QUIET"))) {
        int b = parse_bool(v);
        if (b < 0)
            warn_add(warn, warn_len, "CUPROF_QUIET", v, "0 or 1");
        else
            c->quiet = b;
    }
    if ((v = getenv("CUPROF_ENABLE"))) {
        int b = parse_bool(v);
        if (b < 0)
            warn_add(warn, warn_len, "CUPROF_ENABLE", v, "0 or 1");
        else
            c->enabled = b || *v == '\0';
    }
    if ((v = getenv("CUPROF_GPU")) && *v) {
        int b = parse_bool(v);
        if (strcasecmp(v, "kernels") == 0)
            c->gpu = CUPROF_GPU_KERNELS;
        else if (strcasecmp(v, "all") == 0)
            c->gpu = CUPROF_GPU_ALL;
        else if (b < 0)
            warn_add(warn, warn_len, "CUPROF_GPU", v, "0, 1, all or kernels");
        else
            c->gpu = b ? CUPROF_GPU_ALL : CUPROF_GPU_OFF;
    }
    if ((v = getenv("CUPROF_DRIVER_HOOKS")) && *v) {
        int b = parse_bool(v);
        if (b < 0)
            warn_add(warn, warn_len, "CUPROF_DRIVER_HOOKS", v, "0 or 1");
        else
            c->driver_hooks = b;
    }
    if ((v = getenv("CUPROF_PREFAULT")) && *v) {
        int b = parse_bool(v);
        if (b < 0)
            warn_add(warn, warn_len, "CUPROF_PREFAULT", v, "0 or 1");
        else
            c->prefault = b;
    }
    if ((v = getenv("CUPROF_CLOCK")) && *v) {
        if (strcasecmp(v, "monotonic") == 0)
            c->clock_monotonic = 1;
        else if (strcasecmp(v, "auto") != 0 && strcasecmp(v, "tsc") != 0)
            warn_add(warn, warn_len, "CUPROF_CLOCK", v, "auto, tsc or monotonic");
    }
    if ((v = getenv("CUPROF_DEBUG")) && *v) {
        if (parse_debug(v, &c->debug) < 0)
            warn_add(warn, warn_len, "CUPROF_DEBUG", v, "a list of collector,formats,all");
    }
    if ((v = getenv("CUPROF_MEM_LIMIT")) && *v) {
        uint64_t sz;
        if (cuprof_config_parse_size(v, &sz) == 0 && sz > 0)
            c->mem_limit = sz;
        else
            warn_add(warn, warn_len, "CUPROF_MEM_LIMIT", v, "a size like 512M or 2G");
    }
    if ((v = getenv("CUPROF_STACKS")) && *v) {
        int b = parse_bool(v);
        if (b >= 0)
            c->stacks = b ? CUPROF_STACKS_AUTO : CUPROF_STACKS_OFF;
        else if (strcasecmp(v, "auto") == 0)
            c->stacks = CUPROF_STACKS_AUTO;
        else if (strcasecmp(v, "fp") == 0)
            c->stacks = CUPROF_STACKS_FP;
        else if (strcasecmp(v, "unwind") == 0)
            c->stacks = CUPROF_STACKS_UNWIND;
        else
            warn_add(warn, warn_len, "CUPROF_STACKS", v, "0, 1, auto, fp or unwind");
    }
    if ((v = getenv("CUPROF_STACKS_PYTHON")) && *v) {
        int b = parse_bool(v);
        if (b < 0)
            warn_add(warn, warn_len, "CUPROF_STACKS_PYTHON", v, "0 or 1");
        else
            c->stacks_python = b;
    }
    if ((v = getenv("CUPROF_STACKS_COUNTS")) && *v) {
        int b = parse_bool(v);
        if (b < 0)
            warn_add(warn, warn_len, "CUPROF_STACKS_COUNTS", v, "0 or 1");
        else
            c->stacks_counts = b;
    }
    if ((v = getenv("CUPROF_FORMAT")) && *v) {
        static const char *const names[] = {"auto", "json", "perfetto", "both", "none", NULL};
        int f = parse_choice(v, names);   /* index = CUPROF_TRACE_FORMAT_* */
        if (f < 0)
            warn_add(warn, warn_len, "CUPROF_FORMAT", v, "auto, json, perfetto, both or none");
        else
            c->trace_format = f;
    }
    if ((v = getenv("CUPROF_COMPRESS")) && *v) {
        static const char *const names[] = {"auto", "zstd", "zlib", "none", NULL};
        int f = parse_choice(v, names);   /* index = CUPROF_COMPRESS_* */
        if (f < 0)
            warn_add(warn, warn_len, "CUPROF_COMPRESS", v, "auto, zstd, zlib or none");
        else
            c->trace_compress = f;
    }
    if ((v = getenv("CUPROF_GZIP")) && *v) {
        int b = parse_bool(v);
        if (b < 0)
            warn_add(warn, warn_len, "CUPROF_GZIP", v, "0 or 1");
        else
            c->trace_gzip = b;
    }
    if ((v = getenv("CUPROF_RUN_FILE")) && *v) {
        int b = parse_bool(v);
        if (b < 0)
            warn_add(warn, warn_len, "CUPROF_RUN_FILE", v, "0 or 1");
        else
            c->keep_run_file = b;
    }
    if ((v = getenv("CUPROF_REPORT_HTML")) && *v) {
        int b = parse_bool(v);
        if (b < 0)
            warn_add(warn, warn_len, "CUPROF_REPORT_HTML", v, "0 or 1");
        else
            c->report_html = b;
    }
    if ((v = getenv("CUPROF_EXPORT")) && *v) {
        if (strcasecmp(v, "sqlite") == 0)
            c->export_sqlite = 1;
        else if (strcasecmp(v, "none") != 0)
            warn_add(warn, warn_len, "CUPROF_EXPORT", v, "sqlite or none");
    }
    load_capture(c, warn, warn_len);
}
