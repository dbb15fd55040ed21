/* compare_paths.c - turns cuprof-compare's arguments into summary files;
 * see cmp_resolve_path in compare.h. */
#include "formats/compare/compare.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define TODO_OOM "free some memory and try again"

/* Writes "cuprof: <arg>: <what>; <todo>" as one printable line; returns -1. */
static int fail(char *err, size_t errlen, const char *arg, const char *todo, const char *fmt,
                ...)
{
    char what[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (err && errlen) {
        snprintf(err, errlen, "cuprof: %s: %s; %s", arg, what, todo);
        for (char *p = err; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                *p = '?';
    }
    return -1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_summary_name(const char *name)
{
    static const char suffix[] = ".summary.json";
    size_t n = strlen(name), s = sizeof suffix - 1;
    return n > s && strcmp(name + n - s, suffix) == 0;
}

/* The *.summary.json regular files of dir, sorted, into *names (owned, with
 * *count entries). 0, or -1 (names freed) when the directory cannot be read
 * or memory runs out. */
static int list_summaries(const char *dir, char ***names, size_t *count, char *err,
                          size_t errlen)
{
    *names = NULL;
    *count = 0;
    DIR *d = opendir(dir);
    if (!d)
        return fail(err, errlen, dir, "check its permissions", "cannot list the directory (%s)",
                    strerror(errno));
    char **v = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d))) {
        if (!is_summary_name(e->d_name))
            continue;
        char full[4096];
        struct stat st;
        snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
        if (stat(full, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 8;
            char **nv = realloc(v, cap * sizeof *v);
            if (!nv) { rc = -1; break; }
            v = nv;
        }
        if (!(v[n] = strdup(e->d_name))) { rc = -1; break; }
        n++;
    }
    closedir(d);
    if (rc) {
        for (size_t i = 0; i < n; i++)
            free(v[i]);
        free(v);
        return fail(err, errlen, dir, TODO_OOM, "out of memory");
    }
    if (n)
        qsort(v, n, sizeof *v, by_name);
    *names = v;
    *count = n;
    return 0;
}

int cmp_resolve_path(const char *arg, char **path, char *err, size_t errlen)
{
    struct stat st;
    *path = NULL;
    if (stat(arg, &st) != 0)
        return fail(err, errlen, arg,
                    "pass a NAME.summary.json written by prof.sh or the directory holding it",
                    "%s", strerror(errno));
    if (!S_ISDIR(st.st_mode)) {
        *path = strdup(arg);
        return *path ? 0 : fail(err, errlen, arg, TODO_OOM, "out of memory");
    }
    char **names;
    size_t n;
    int rc = list_summaries(arg, &names, &n, err, errlen);
    if (rc == 0 && n == 0)
        rc = fail(err, errlen, arg, "pass the directory prof.sh wrote (-o DIR) or a summary file",
                  "no *.summary.json in this directory");
    if (rc == 0 && n > 1) {
        /* Name them all (within one line), so the user can pick one. */
        char list[480] = "";
        size_t used = 0;
        for (size_t i = 0; i < n && used < sizeof list - 1; i++) {
            int w = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", names[i]);
            used += w > 0 ? (size_t)w : 0;
        }
        if (used >= sizeof list - 1)
            strcpy(list + sizeof list - 5, "...");
        rc = fail(err, errlen, arg, "pass one of them as a file",
                  "%zu summaries in this directory (%s)", n, list);
    }
    if (rc == 0) {
        size_t alen = strlen(arg), len = alen + strlen(names[0]) + 2;
        if ((*path = malloc(len)))
            snprintf(*path, len, "%s%s%s", arg, arg[alen - 1] == '/' ? "" : "/", names[0]);
        else
            rc = fail(err, errlen, arg, TODO_OOM, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}
