/*
 * merge_window.c - which files of each rank a merge reads (merge.h,
 * mg_pick_files): the run's own (NAME.rankR.summary.json), or a capture
 * window's (NAME.rankR.wK.summary.json, written by a --standby process when
 * a trigger's window closed); and which ranks it shows (mg_trace_ranks:
 * the merged trace's; mg_slowest: the slowest ranks, latest at the
 * collectives).
 *
 * By default: when DIR/.cuprof-job-last (prof.sh trigger --job's record:
 * the steps asked for, and each rank's answer with the window number it
 * would write) names this job, the window each rank armed for that trigger,
 * and a note for every rank that has none (it missed the step, never
 * reached it, did not answer); else, when any rank wrote windows, the
 * latest window of each rank; else the run's own files.
 */
#include "formats/merge/merge.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "NAME.rankR[.wK].summary.json" -> name length, R and K (0: no window);
 * 0 when it is not one. */
static int parse_file(const char *f, size_t *namelen, int *rank, unsigned long *window)
{
    static const char suffix[] = ".summary.json";
    size_t n = strlen(f), s = sizeof suffix - 1;
    if (n <= s || strcmp(f + n - s, suffix) != 0)
        return 0;
    size_t end = n - s, d = end;
    while (d > 0 && f[d - 1] >= '0' && f[d - 1] <= '9')
        d--;
    *window = 0;
    if (d < end && d >= 2 && f[d - 1] == 'w' && f[d - 2] == '.' && end - d <= 9) {
        *window = strtoul(f + d, NULL, 10);
        end = d - 2;
        d = end;
        while (d > 0 && f[d - 1] >= '0' && f[d - 1] <= '9')
            d--;
    }
    if (d == end || end - d > 9 || d < 6 || strncmp(f + d - 5, ".rank", 5) != 0)
        return 0;
    *namelen = d - 5;
    *rank = atoi(f + d);
    return *namelen > 0 && (*window > 0 || f[end] == '.');
}

typedef struct found {
    int rank;
    unsigned long window;
} found;

static int cmp_found(const void *a, const void *b)
{
    const found *x = a, *y = b;
    if (x->rank != y->rank)
        return (x->rank > y->rank) - (x->rank < y->rank);
    return (x->window > y->window) - (x->window < y->window);
}

static int has(const found *f, size_t n, int rank, unsigned long window)
{
    for (size_t i = 0; i < n; i++)
        if (f[i].rank == rank && f[i].window == window)
            return 1;
    return 0;
}

/* One line of prof.sh trigger --job's record: the value of key, or "". */
static void value(const char *line, const char *key, char *out, size_t n)
{
    char pat[32];
    snprintf(pat, sizeof pat, " %s=", key);
    int at_start = !strncmp(line, pat + 1, strlen(pat + 1));
    const char *p = at_start ? line + strlen(pat + 1) : strstr(line, pat);
    out[0] = '\0';
    if (!p)
        return;
    if (!at_start)
        p += strlen(pat);
    size_t len = strcmp(key, "answer") ? strcspn(p, " \n") : strcspn(p, "\n");
    if (len >= n)
        len = n - 1;
    memcpy(out, p, len);
    out[len] = '\0';
}

static int add_rank(mg_run *m, size_t *cap, int rank, unsigned long window)
{
    if (m->n == *cap) {
        *cap = *cap ? 2 * *cap : 8;
        mg_rank *g = realloc(m->r, *cap * sizeof *g);
        if (!g)
            return -1;
        m->r = g;
    }
    memset(&m->r[m->n], 0, sizeof m->r[m->n]);
    m->r[m->n].rank = rank;
    m->r[m->n++].window = window;
    return 0;
}

static void add_note(mg_run *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_note(mg_run *m, const char *fmt, ...)
{
    char line[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    char **g = realloc(m->notes, (m->nnotes + 1) * sizeof *g);
    if (!g)
        return;
    m->notes = g;
    if ((m->notes[m->nnotes] = strdup(line)) != NULL)
        m->nnotes++;
}

/* The job trigger's record, when it names this job: each rank it armed
 * gets its window; the others a note. 1 when used, 0 when not, -1 out of
 * memory. */
static int from_job(mg_run *m, const char *dir, const found *f, size_t nf, size_t *cap)
{
    char path[4200], *line = NULL;
    size_t lcap = 0;
    snprintf(path, sizeof path, "%s/.cuprof-job-last", dir);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return 0;
    int used = 0, rc = 0;
    char from[32] = "", steps[32] = "", dur[32] = "";
    for (int first = 1; getline(&line, &lcap, fp) > 0; first = 0) {
        if (first) {
            value(line, "from", from, sizeof from);
            value(line, "steps", steps, sizeof steps);
            value(line, "duration_ns", dur, sizeof dur);
            continue;
        }
        char name[320], rank[16], pid[24], win[24], ans[420], prefix[300];
        value(line, "name", name, sizeof name);
        value(line, "rank", rank, sizeof rank);
        value(line, "pid", pid, sizeof pid);
        value(line, "window", win, sizeof win);
        value(line, "answer", ans, sizeof ans);
        snprintf(prefix, sizeof prefix, "%s.rank%s", m->name, rank);
        if (strcmp(name, prefix) != 0)
            continue;   /* another job's, or another name */
        used = 1;
        int r = atoi(rank);
        unsigned long w = strtoul(win, NULL, 10);
        if (strncmp(ans, "window", 6) != 0)
            add_note(m, "rank %d (pid %s) recorded no window of the trigger's steps: %s", r, pid, ans);
        else if (!has(f, nf, r, w))
            add_note(m, "rank %d (pid %s) never reached step %s: it was armed for it (window %lu) and ended, or "
                        "has not got there yet, without recording it", r, pid, from, w);
        else if (add_rank(m, cap, r, w) < 0)
            rc = -1;
    }
    free(line);
    fclose(fp);
    if (used) {
        unsigned long long n = strtoull(steps, NULL, 10), t = strtoull(dur, NULL, 10);
        if (n)
            snprintf(m->window_desc, sizeof m->window_desc, "steps %s..%lld on every rank (prof.sh trigger --job)",
                     from, atoll(from) + (long long)n - 1);
        else
            snprintf(m->window_desc, sizeof m->window_desc, "%.3f s from step %s on every rank (prof.sh trigger --job)",
                     (double)t / 1e9, from);
    }
    return rc < 0 ? -1 : used;
}

int mg_pick_files(mg_run *m, const char *dir, const char *name, long window, char *err, size_t errlen)
{
    DIR *dp = opendir(dir);
    if (!dp) {
        snprintf(err, errlen, "cannot open %s: %s", dir, strerror(errno));
        return -1;
    }
    found *f = NULL;
    size_t nf = 0, fcap = 0;
    struct dirent *de;
    int rc = 0;
    while ((de = readdir(dp)) != NULL) {
        size_t nl;
        int rank;
        unsigned long w;
        if (!parse_file(de->d_name, &nl, &rank, &w))
            continue;
        if (name && (strlen(name) != nl || strncmp(name, de->d_name, nl) != 0))
            continue;
        if (!m->name) {
            m->name = strndup(de->d_name, nl);
        } else if (strlen(m->name) != nl || strncmp(m->name, de->d_name, nl) != 0) {
            snprintf(err, errlen, "%s holds the ranks of more than one job (%s, %.*s); name one with -n NAME",
                     dir, m->name, (int)nl, de->d_name);
            rc = -1;
            break;
        }
        if (nf == fcap) {
            fcap = fcap ? 2 * fcap : 64;
            found *g = realloc(f, fcap * sizeof *g);
            if (!g) {
                snprintf(err, errlen, "out of memory");
                rc = -1;
                break;
            }
            f = g;
        }
        f[nf].rank = rank;
        f[nf++].window = w;
    }
    closedir(dp);
    if (rc || nf == 0) {
        if (!rc)
            snprintf(err, errlen, "no NAME.rankR.summary.json in %s%s%s: run each rank under prof.sh with -o %s",
                     dir, name ? " for " : "", name ? name : "", dir);
        free(f);
        return -1;
    }
    qsort(f, nf, sizeof *f, cmp_found);
    size_t cap = 0;
    int job = 0, any_window = 0;
    for (size_t i = 0; i < nf; i++)
        any_window |= f[i].window > 0;
    if (window < 0 && any_window && (job = from_job(m, dir, f, nf, &cap)) < 0)
        rc = -1;
    if (!rc && !job) {
        for (size_t i = 0; i < nf && !rc; i++) {
            int last_of_rank = i + 1 == nf || f[i + 1].rank != f[i].rank;
            if (window >= 0 ? f[i].window == (unsigned long)window : any_window ? last_of_rank && f[i].window
                                                                                 : 1)
                rc = add_rank(m, &cap, f[i].rank, f[i].window);
            else if (window < 0 && any_window && last_of_rank && !f[i].window)
                add_note(m, "rank %d wrote no window (its run's own files only): not in this merge", f[i].rank);
        }
        if (rc)
            snprintf(err, errlen, "out of memory");
        else if (window > 0)
            snprintf(m->window_desc, sizeof m->window_desc, "window %ld of each rank", window);
        else if (any_window && window < 0)
            snprintf(m->window_desc, sizeof m->window_desc, "the latest window of each rank");
    }
    free(f);
    if (!rc && m->n == 0) {
        if (window > 0)
            snprintf(err, errlen, "no rank of %s wrote window %ld (NAME.rankR.w%ld.summary.json) in %s", m->name,
                     window, window, dir);
        else
            snprintf(err, errlen, "no rank of %s has a window of the last prof.sh trigger --job in %s (%zu note%s: "
                     "%s)", m->name, dir, m->nnotes, m->nnotes == 1 ? "" : "s", m->nnotes ? m->notes[0] : "");
        return -1;
    }
    return rc;
}

/* ---- the ranks of the merged trace ----------------------------------------- */

static int cmp_late(const void *a, const void *b, void *arg)
{
    const mg_run *m = arg;
    const mg_rank *x = &m->r[*(const size_t *)a], *y = &m->r[*(const size_t *)b];
    if (x->late_ns != y->late_ns)
        return x->late_ns < y->late_ns ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* A rank's steps' time in all (its wall time without steps). */
static int64_t step_total(const mg_rank *r)
{
    json_t *st;
    size_t i;
    int64_t t = 0;
    json_array_foreach(json_object_get(r->summary, "step_list"), i, st)
        t += json_integer_value(json_object_get(st, "dur_ns"));
    return t ? t : (int64_t)r->wall_ns;
}

int mg_trace_ranks(mg_run *m, int all, char *err, size_t errlen)
{
    uint64_t *v = calloc(m->n ? m->n : 1, sizeof *v);
    size_t *ord = calloc(m->n ? m->n : 1, sizeof *ord);
    if (!v || !ord) {
        free(v);
        free(ord);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t j = 0; j < m->n; j++)
        m->r[j].late_ns = 0;
    for (size_t k = 0; k < m->nmeets; k++) {
        memcpy(v, m->meets[k].arrival, m->n * sizeof *v);
        int64_t med = (int64_t)mg_median(v, m->n);
        for (size_t j = 0; j < m->n; j++)
            m->r[j].late_ns += (int64_t)m->meets[k].arrival[j] - med;
    }
    if (!m->nmeets)
        for (size_t j = 0; j < m->n; j++)
            m->r[j].late_ns = step_total(&m->r[j]);
    for (size_t j = 0; j < m->n; j++)
        ord[j] = j;
    qsort_r(ord, m->n, sizeof *ord, cmp_late, m);
    for (size_t j = 0; j < m->n; j++)
        m->r[j].role = all ? "" : NULL;
    if (!all && m->n) {
        m->r[ord[(m->n - 1) / 2]].role = "median";
        m->r[ord[0]].role = "fastest";
        m->r[ord[m->n - 1]].role = "straggler";
    }
    free(v);
    free(ord);
    for (size_t j = 0; j < m->n; j++)
        if (!m->r[j].role) {   /* not in the trace: its trace, if read, goes */
            json_decref(m->r[j].trace);
            m->r[j].trace = NULL;
        }
    (void)err;
    (void)errlen;
    return 0;
}

int mg_slowest(const mg_run *m, size_t *out, size_t k)
{
    size_t n = 0;
    for (size_t j = 0; j < m->n; j++) {
        size_t at = n < k ? n++ : k;
        if (at == k && (!k || m->r[j].late_ns <= m->r[out[k - 1]].late_ns))
            continue;
        if (at == k)
            at = k - 1;
        while (at > 0 && m->r[out[at - 1]].late_ns < m->r[j].late_ns) {
            out[at] = out[at - 1];
            at--;
        }
        out[at] = j;
    }
    return (int)n;
}
