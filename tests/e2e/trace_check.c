/*
 * trace_check.c - the Trace Event Format rules the viewers apply, checked
 * on a Chrome JSON trace (trace_check.h).
 */
#include "trace_check.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct report {
    char *out;
    size_t len, used, max, n;
} report;

static void violation(report *r, const char *fmt, ...)
{
    if (r->n++ >= r->max || r->used + 1 >= r->len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(r->out + r->used, r->len - r->used, fmt, ap);
    va_end(ap);
    if (k > 0)
        r->used += (size_t)k < r->len - r->used ? (size_t)k : r->len - r->used - 1;
    if (r->used + 1 < r->len)
        r->out[r->used++] = '\n';
    r->out[r->used] = '\0';
}

/* An X event, in ns. */
typedef struct xev {
    int64_t pid, tid;
    int64_t t0, t1;
    const char *name;
} xev;

static int cmp_x(const void *a, const void *b)
{
    const xev *x = a, *y = b;
    if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    if (x->t0 != y->t0) return x->t0 < y->t0 ? -1 : 1;
    return x->t1 > y->t1 ? -1 : x->t1 < y->t1;   /* the outer first */
}

static int64_t ns_of(json_t *v)
{
    double d = json_number_value(v) * 1000.0;
    return (int64_t)(d < 0 ? d - 0.5 : d + 0.5);
}

static int fits32(json_t *v)
{
    if (!json_is_integer(v))
        return 0;
    json_int_t i = json_integer_value(v);
    return i >= INT32_MIN && i <= INT32_MAX;
}

/* Is there an X event of (pid, tid) with t0 <= t <= t1? (xs sorted) */
static int inside(const xev *xs, size_t n, int64_t pid, int64_t tid, int64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {   /* first of (pid, tid) */
        size_t mid = (lo + hi) / 2;
        if (xs[mid].pid < pid || (xs[mid].pid == pid && xs[mid].tid < tid)) lo = mid + 1;
        else hi = mid;
    }
    for (size_t i = lo; i < n && xs[i].pid == pid && xs[i].tid == tid && xs[i].t0 <= t; i++)
        if (t <= xs[i].t1)
            return 1;
    return 0;
}

/* A drawn event a DevTools flow can bind to: its (pid, tid, ts, cat). */
typedef struct anchor {
    int64_t pid, tid, ts;
    const char *cat;
} anchor;

static int cmp_anchor(const void *a, const void *b)
{
    const anchor *x = a, *y = b;
    if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return strcmp(x->cat, y->cat);
}

/* A flow end or async end, by its key. */
typedef struct fkey {
    char *key;
    int ph;          /* 's', 'f', 'b', 'e' */
    int64_t ts;
    size_t idx;
} fkey;

static int cmp_key(const void *a, const void *b)
{
    const fkey *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c) return c;
    if (x->ph != y->ph) return x->ph < y->ph ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static char *key_of(json_t *e, const char *id)
{
    const char *cat = json_string_value(json_object_get(e, "cat"));
    const char *name = json_string_value(json_object_get(e, "name"));
    size_t len = strlen(cat ? cat : "") + strlen(name ? name : "") + strlen(id) + 3;
    char *k = malloc(len);
    if (k)
        snprintf(k, len, "%s|%s|%s", cat ? cat : "", name ? name : "", id);
    return k;
}

/* The id of a flow or async event as text ("" when it has none). */
static void id_text(json_t *e, char *buf, size_t len)
{
    json_t *id = json_object_get(e, "id");
    json_t *id2 = json_object_get(e, "id2");
    if (id2)
        id = json_object_get(id2, "local") ? json_object_get(id2, "local") : json_object_get(id2, "global");
    if (json_is_integer(id))
        snprintf(buf, len, "%lld", (long long)json_integer_value(id));
    else if (json_is_string(id))
        snprintf(buf, len, "%s", json_string_value(id));
    else
        buf[0] = '\0';
}

size_t trace_check(json_t *trace, char *out, size_t out_len, size_t max)
{
    report r = {out, out_len, 0, max, 0};
    if (out_len)
        out[0] = '\0';
    json_t *evs = json_is_array(trace) ? trace : json_object_get(trace, "traceEvents");
    if (!json_is_array(evs)) {
        violation(&r, "no traceEvents array");
        return r.n;
    }
    size_t n = json_array_size(evs), nx = 0, nk = 0;
    xev *xs = calloc(n + 1, sizeof *xs);
    fkey *ks = calloc(n + 1, sizeof *ks);
    anchor *as = calloc(n + 1, sizeof *as);
    size_t na = 0;
    if (!xs || !ks || !as) {
        free(xs);
        free(ks);
        free(as);
        violation(&r, "out of memory");
        return r.n;
    }
    size_t i;
    json_t *e;
    json_array_foreach(evs, i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        const char *name = json_string_value(json_object_get(e, "name"));
        if (!ph || !ph[0] || ph[1]) {
            violation(&r, "event %zu: no phase", i);
            continue;
        }
        if (!strchr("XiIsfbeMC", ph[0]))
            continue;
        if (!fits32(json_object_get(e, "pid")) || !fits32(json_object_get(e, "tid"))) {
            violation(&r, "event %zu (%s %s): pid/tid missing or wider than 32 bits", i, ph,
                      name ? name : "");
            continue;
        }
        int64_t pid = json_integer_value(json_object_get(e, "pid"));
        int64_t tid = json_integer_value(json_object_get(e, "tid"));
        if (ph[0] == 'M') {
            json_t *args = json_object_get(e, "args");
            if (!name || !(json_is_string(json_object_get(args, "name")) ||
                           json_is_integer(json_object_get(args, "sort_index"))))
                violation(&r, "event %zu: metadata %s without args.name or args.sort_index", i,
                          name ? name : "(no name)");
            continue;
        }
        if (!json_is_number(json_object_get(e, "ts"))) {
            violation(&r, "event %zu (%s %s): no ts", i, ph, name ? name : "");
            continue;
        }
        int64_t ts = ns_of(json_object_get(e, "ts"));
        if (ph[0] == 'X' || ph[0] == 'I') {
            const char *cat = json_string_value(json_object_get(e, "cat"));
            as[na++] = (anchor){pid, tid, ts, cat ? cat : ""};
        }
        if (ph[0] == 'X') {
            json_t *dur = json_object_get(e, "dur");
            if (!json_is_number(dur) || json_number_value(dur) < 0) {
                violation(&r, "event %zu (X %s): no dur, or a negative one", i, name ? name : "");
                continue;
            }
            xs[nx++] = (xev){pid, tid, ts, ts + ns_of(dur), name ? name : ""};
        } else if (strchr("sfbe", ph[0])) {
            char id[64];
            id_text(e, id, sizeof id);
            if (!id[0]) {
                violation(&r, "event %zu (%s %s): no id", i, ph, name ? name : "");
                continue;
            }
            ks[nk] = (fkey){key_of(e, id), ph[0], ts, i};
            if (!ks[nk].key)
                break;
            nk++;
        }
    }
    qsort(xs, nx, sizeof *xs, cmp_x);
    qsort(as, na, sizeof *as, cmp_anchor);
    /* nesting on each (pid, tid) */
    size_t *stack = calloc(nx + 1, sizeof *stack), depth = 0;
    for (size_t k = 0; stack && k < nx; k++) {
        if (k == 0 || xs[k].pid != xs[k - 1].pid || xs[k].tid != xs[k - 1].tid)
            depth = 0;
        while (depth && xs[stack[depth - 1]].t1 <= xs[k].t0)
            depth--;
        if (depth && xs[k].t1 > xs[stack[depth - 1]].t1) {
            const xev *p = &xs[stack[depth - 1]];
            violation(&r, "pid %lld tid %lld: %s [%lld, %lld] overlaps %s [%lld, %lld] without nesting",
                      (long long)xs[k].pid, (long long)xs[k].tid, xs[k].name, (long long)xs[k].t0,
                      (long long)xs[k].t1, p->name, (long long)p->t0, (long long)p->t1);
            continue;
        }
        stack[depth++] = k;
    }
    free(stack);
    /* flow binding, then pairing */
    for (size_t k = 0; k < nk; k++) {
        if (ks[k].ph != 's' && ks[k].ph != 'f')
            continue;
        json_t *ev = json_array_get(evs, ks[k].idx);
        int64_t pid = json_integer_value(json_object_get(ev, "pid"));
        int64_t tid = json_integer_value(json_object_get(ev, "tid"));
        const char *bp = json_string_value(json_object_get(ev, "bp"));
        if (ks[k].ph == 'f' && (!bp || strcmp(bp, "e") != 0))
            violation(&r, "flow end %s: no \"bp\":\"e\" (it would bind to the next slice)", ks[k].key);
        else if (!inside(xs, nx, pid, tid, ks[k].ts))
            violation(&r, "flow %s %s at %lld on pid %lld tid %lld: no slice there to bind to",
                      ks[k].ph == 's' ? "start" : "end", ks[k].key, (long long)ks[k].ts,
                      (long long)pid, (long long)tid);
        const char *cat = json_string_value(json_object_get(ev, "cat"));
        anchor want = {pid, tid, ks[k].ts, cat ? cat : ""};
        if (!bsearch(&want, as, na, sizeof *as, cmp_anchor))
            violation(&r, "flow %s %s at %lld on pid %lld tid %lld: no X or I event of category "
                          "\"%s\" at that ts (the DevTools engine binds by ts, pid, tid and cat)",
                      ks[k].ph == 's' ? "start" : "end", ks[k].key, (long long)ks[k].ts,
                      (long long)pid, (long long)tid, want.cat);
    }
    qsort(ks, nk, sizeof *ks, cmp_key);
    for (size_t k = 0; k < nk;) {
        size_t j = k;
        size_t c[4] = {0};   /* b e f s */
        while (j < nk && strcmp(ks[j].key, ks[k].key) == 0) {
            c[ks[j].ph == 'b' ? 0 : ks[j].ph == 'e' ? 1 : ks[j].ph == 'f' ? 2 : 3]++;
            j++;
        }
        if (c[2] + c[3] && (c[2] != 1 || c[3] != 1))
            violation(&r, "flow %s: %zu starts and %zu ends (one each)", ks[k].key, c[3], c[2]);
        if (c[0] + c[1] && c[0] != c[1])
            violation(&r, "async %s: %zu begins and %zu ends", ks[k].key, c[0], c[1]);
        if (c[0] == 1 && c[1] == 1 && ks[k].ph == 'b' && ks[k + 1].ts < ks[k].ts)
            violation(&r, "async %s ends before it begins", ks[k].key);
        k = j;
    }
    for (size_t k = 0; k < nk; k++)
        free(ks[k].key);
    free(ks);
    free(xs);
    free(as);
    return r.n;
}
