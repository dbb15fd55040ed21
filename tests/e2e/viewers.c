/*
 * viewers.c - speedscope in headless Chromium and the DevTools trace
 * engine in node, for the Check tests (viewers.h).
 */
#include "viewers.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define VIEWER_TIMEOUT_S 120

/* Where a program is on PATH, or NULL. Static storage. */
static const char *on_path(const char *prog)
{
    static char buf[4096];
    const char *path = getenv("PATH");
    for (const char *d = path ? path : ""; *d;) {
        size_t n = strcspn(d, ":");
        snprintf(buf, sizeof buf, "%.*s/%s", (int)n, d, prog);
        if (access(buf, X_OK) == 0)
            return buf;
        d += n + (d[n] == ':');
    }
    return NULL;
}

const char *viewer_missing(void)
{
    const char *chromium = getenv("CHROMIUM") ? getenv("CHROMIUM") : "/usr/bin/chromium";
    char mods[4096];
    snprintf(mods, sizeof mods, "%s/tests/viewers/node_modules/speedscope", e2e_top());
    return !on_path("node") ? "node is not installed"
           : access(chromium, X_OK) != 0 ? "Chromium is not installed (apt-get install chromium)"
           : access(mods, R_OK) != 0 ? "the npm packages are not installed (npm ci --prefix tests/viewers)"
                                     : NULL;
}

const char *devtools_missing(void)
{
    char mods[4096];
    snprintf(mods, sizeof mods, "%s/tests/viewers/node_modules/@paulirish/trace_engine", e2e_top());
    return !on_path("node") ? "node is not installed"
           : access(mods, R_OK) != 0 ? "the npm packages are not installed (npm ci --prefix tests/viewers)"
                                     : NULL;
}

json_t *viewer_devtools(const char *trace, e2e_result *r)
{
    char node[4096];
    snprintf(node, sizeof node, "%s", on_path("node"));
    const char *argv[] = {node, e2e_path("tests/viewers/devtools.mjs"), trace, NULL};
    *r = e2e_run(argv, NULL, NULL, VIEWER_TIMEOUT_S);
    json_error_t jerr;
    json_t *seen = json_loads(r->out, 0, &jerr);
    ck_assert_msg(seen != NULL, "devtools.mjs printed no JSON (exit %d):\n%.2000s\n%.2000s",
                  r->status, r->out, r->err);
    return seen;
}

json_t *viewer_speedscope(const char *profile, const char *shot, const char *const names[],
                          e2e_result *r)
{
    char node[4096];
    snprintf(node, sizeof node, "%s", on_path("node"));
    const char *argv[32] = {node, e2e_path("tests/viewers/speedscope.mjs"), profile, shot};
    size_t n = 4;
    for (; names && *names && n < 31; names++)
        argv[n++] = *names;
    argv[n] = NULL;
    *r = e2e_run(argv, NULL, NULL, VIEWER_TIMEOUT_S);
    json_error_t jerr;
    json_t *seen = json_loads(r->out, 0, &jerr);
    ck_assert_msg(seen != NULL, "viewer printed no JSON (exit %d):\n%s\n%s", r->status, r->out,
                  r->err);
    return seen;
}

json_t *viewer_report(const char *report, const char *shot, e2e_result *r)
{
    char node[4096];
    snprintf(node, sizeof node, "%s", on_path("node"));
    const char *argv[] = {node, e2e_path("tests/viewers/report.mjs"), report, shot, NULL};
    *r = e2e_run(argv, NULL, NULL, VIEWER_TIMEOUT_S);
    json_error_t jerr;
    json_t *seen = json_loads(r->out, 0, &jerr);
    ck_assert_msg(seen != NULL, "report.mjs printed no JSON (exit %d):\n%s\n%s", r->status, r->out,
                  r->err);
    return seen;
}

double viewer_shown_value(const char *text, double *unit)
{
    char digits[64];
    size_t k = 0;
    for (const char *c = text; *c && k + 1 < sizeof digits; c++)
        if (*c != ',')
            digits[k++] = *c;
    digits[k] = '\0';
    char *end;
    double v = strtod(digits, &end);
    double scale = 1;
    if (strcmp(end, "s") == 0)
        scale = 1e9;
    else if (strcmp(end, "ms") == 0)
        scale = 1e6;
    else if (strcmp(end, "\xC2\xB5s") == 0)
        scale = 1e3;
    else
        ck_assert_msg(strcmp(end, "ns") == 0 || *end == '\0', "unknown unit in %s", text);
    *unit = strchr(digits, '.') ? scale / 100 : 1;
    return v * scale;
}
