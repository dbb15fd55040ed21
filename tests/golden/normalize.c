/*
 * normalize.c - reduces cuprof's outputs to what must hold from one run of
 * a program to the next, for the golden tests (uftrace's runtest.py
 * chrome_sort is the model):
 *
 *   normalize trace FILE.trace.json      one line per slice, lane by lane
 *   normalize summary FILE.summary.txt   the text with times masked
 *   normalize json FILE.summary.json     every key path with its value,
 *                                        numbers that are times masked
 *
 * What is kept: phase, category, name, nesting depth, args (pointers,
 * times and bandwidths masked, correlation/external ids renumbered in order
 * of first appearance), which slice each launch arrow leaves and which it
 * reaches; the table's rows (sorted by name: their order follows timings),
 * counts, bytes, shapes, the findings' rule ids. What is dropped: every
 * timestamp, duration, pid, tid, pointer and percentage.
 *
 * The GPU's "(overlap)" lanes (records overlapping a few ns by rounding)
 * are folded back onto their stream: which records land there is timing.
 */
#include <jansson.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GPU_PID_BASE 1073741824LL /* 2^30: the trace's GPU processes */

/* ---- trace ------------------------------------------------------------- */

typedef struct slice {
    json_t *ev;        /* the X event */
    char lane[64];     /* "cpu 1", "gpu 0 stream 1" */
    long long ts, end; /* ns (us * 1000, rounded) */
    int depth;
    int arrow_out, arrow_in; /* renumbered flow ids, 0 = none */
    size_t order;      /* index in the file (ties) */
} slice;

typedef struct idmap {
    long long *keys;
    size_t n, cap;
} idmap;

/* Number of key in m by first appearance (1-based). */
static int idmap_get(idmap *m, long long key)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->keys[i] == key)
            return (int)i + 1;
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 64;
        m->keys = realloc(m->keys, m->cap * sizeof *m->keys);
        if (!m->keys)
            exit(2);
    }
    m->keys[m->n++] = key;
    return (int)m->n;
}

static long long to_ns(json_t *v)
{
    double d = json_number_value(v);
    return (long long)(d * 1000.0 + (d >= 0 ? 0.5 : -0.5));
}

static idmap cpu_tids, gpu_streams, corr_ids, ext_ids, flow_ids;

/* Lane name of an event: CPU threads numbered in order of appearance, GPU
 * streams likewise, overlap lanes folded onto their stream. */
static void lane_of(json_t *ev, char *out, size_t len)
{
    long long pid = json_integer_value(json_object_get(ev, "pid"));
    long long tid = json_integer_value(json_object_get(ev, "tid"));
    if (pid >= GPU_PID_BASE)
        snprintf(out, len, "gpu %lld stream %d", pid - GPU_PID_BASE,
                 idmap_get(&gpu_streams, tid & 0xffffffffLL));
    else
        snprintf(out, len, "cpu %d", idmap_get(&cpu_tids, tid));
}

static int cmp_slice(const void *a, const void *b)
{
    const slice *x = a, *y = b;
    int c = strcmp(x->lane, y->lane);
    if (c)
        return c;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1;   /* the enclosing one first */
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Args with pointers, times and bandwidths masked, ids renumbered, the
 * recorded times of a moved GPU record (formats/gpu_rows.h) left out. */
static json_t *norm_args(json_t *args)
{
    json_t *out = json_object();
    const char *k;
    json_t *v;
    json_object_foreach(args, k, v) {
        if (json_is_string(v) && strncmp(json_string_value(v), "0x", 2) == 0)
            json_object_set_new(out, k, json_string("<ptr>"));
        else if (!strncmp(k, "recorded_", 9))
            continue;   /* CUPTI's times where the row moved a record: times vary */
        else if (!strcmp(k, "GB/s"))
            json_object_set_new(out, k, json_string("<rate>"));
        else if (!strcmp(k, "correlation"))
            json_object_set_new(out, k, json_integer(idmap_get(&corr_ids, json_integer_value(v))));
        else if (!strcmp(k, "External id"))
            json_object_set_new(out, k, json_integer(idmap_get(&ext_ids, json_integer_value(v))));
        else
            json_object_set(out, k, v);
    }
    return out;
}

/* The innermost slice of lane containing ts (the slices are sorted). */
static slice *slice_at(slice *s, size_t n, const char *lane, long long ts)
{
    slice *best = NULL;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(s[i].lane, lane) && s[i].ts <= ts && ts <= s[i].end &&
            (!best || s[i].depth >= best->depth))
            best = &s[i];
    return best;
}

static int norm_trace(const char *path)
{
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    if (!root) {
        fprintf(stderr, "normalize: %s: %s (line %d)\n", path, err.text, err.line);
        return 2;
    }
    json_t *evs = json_object_get(root, "traceEvents");
    size_t n = json_array_size(evs), ns = 0;
    slice *s = calloc(n ? n : 1, sizeof *s);
    /* Lanes are numbered in the order the metadata names them. */
    for (size_t i = 0; i < n; i++) {
        json_t *ev = json_array_get(evs, i);
        const char *ph = json_string_value(json_object_get(ev, "ph"));
        char lane[64];
        if (ph && !strcmp(ph, "M") && json_object_get(ev, "tid") &&
            json_integer_value(json_object_get(ev, "tid")) != 0)
            lane_of(ev, lane, sizeof lane);
    }
    for (size_t i = 0; i < n; i++) {
        json_t *ev = json_array_get(evs, i);
        const char *ph = json_string_value(json_object_get(ev, "ph"));
        if (!ph || strcmp(ph, "X"))
            continue;
        slice *x = &s[ns++];
        x->ev = ev;
        lane_of(ev, x->lane, sizeof x->lane);
        x->ts = to_ns(json_object_get(ev, "ts"));
        x->end = x->ts + to_ns(json_object_get(ev, "dur"));
        x->order = i;
    }
    qsort(s, ns, sizeof *s, cmp_slice);
    /* Depth on CPU lanes: slices whose span holds this one. A GPU lane is
     * flat (records there do not nest). */
    long long stack[256];
    int top = 0;
    for (size_t i = 0; i < ns; i++) {
        if (i == 0 || strcmp(s[i].lane, s[i - 1].lane))
            top = 0;
        if (strncmp(s[i].lane, "cpu", 3))
            continue;
        while (top > 0 && stack[top - 1] < s[i].end)
            top--;
        s[i].depth = top;
        if (top < 256)
            stack[top++] = s[i].end;
    }
    /* Arrows: bind each s to the slice around it, each f (bp "e") to the
     * slice it starts with; numbered in the order of their source slices. */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++) {
            json_t *ev = json_array_get(evs, i);
            const char *ph = json_string_value(json_object_get(ev, "ph"));
            if (!ph || strcmp(ph, pass == 0 ? "s" : "f"))
                continue;
            char lane[64];
            lane_of(ev, lane, sizeof lane);
            slice *at = slice_at(s, ns, lane, to_ns(json_object_get(ev, "ts")));
            long long id = json_integer_value(json_object_get(ev, "id"));
            if (!at) {
                printf("arrow %s without a slice on %s\n", ph, lane);
                continue;
            }
            if (pass == 0)
                at->arrow_out = (int)id;
            else
                at->arrow_in = (int)id;
        }
    /* Flow ids renumbered by source order, then printed. */
    for (size_t i = 0; i < ns; i++)
        if (s[i].arrow_out)
            s[i].arrow_out = idmap_get(&flow_ids, s[i].arrow_out);
    for (size_t i = 0; i < ns; i++)
        if (s[i].arrow_in)
            s[i].arrow_in = idmap_get(&flow_ids, s[i].arrow_in);

    for (size_t i = 0; i < n; i++) {
        json_t *ev = json_array_get(evs, i);
        const char *ph = json_string_value(json_object_get(ev, "ph"));
        if (!ph || strcmp(ph, "M"))
            continue;
        const char *name = json_string_value(json_object_get(ev, "name"));
        long long pid = json_integer_value(json_object_get(ev, "pid"));
        long long tid = json_integer_value(json_object_get(ev, "tid"));
        json_t *args = json_object_get(ev, "args");
        char lane[64];
        if (tid == 0 && strcmp(name, "thread_name"))
            snprintf(lane, sizeof lane, "%s", pid >= GPU_PID_BASE ? "gpu process" : "cpu process");
        else
            lane_of(ev, lane, sizeof lane);
        if (pid >= GPU_PID_BASE && (tid >> 32) != 0)
            continue;   /* an overlap lane's name: folded */
        char *a = json_dumps(args, JSON_SORT_KEYS | JSON_COMPACT);
        printf("M %-18s %s %s\n", lane, name, a ? a : "{}");
        free(a);
    }
    for (size_t i = 0; i < ns; i++) {
        json_t *args = norm_args(json_object_get(s[i].ev, "args"));
        char *a = json_dumps(args, JSON_SORT_KEYS | JSON_COMPACT);
        printf("X %-18s %*s%s [%s]", s[i].lane, 2 * s[i].depth, "",
               json_string_value(json_object_get(s[i].ev, "name")),
               json_string_value(json_object_get(s[i].ev, "cat")));
        if (s[i].arrow_out)
            printf(" ->%d", s[i].arrow_out);
        if (s[i].arrow_in)
            printf(" <-%d", s[i].arrow_in);
        printf(" %s\n", a ? a : "{}");
        free(a);
        json_decref(args);
    }
    /* otherData: what the run was, without its pid, times and host. */
    json_t *other = json_deep_copy(json_object_get(root, "otherData"));
    static const char *const masked[] = {"pid", "start_us", "wall_ns", "distributed"};
    for (size_t i = 0; other && i < sizeof masked / sizeof *masked; i++)
        if (json_object_get(other, masked[i]))
            json_object_set_new(other, masked[i], json_string("<masked>"));
    char *o = json_dumps(other, JSON_SORT_KEYS | JSON_COMPACT);
    printf("otherData %s\n", o ? o : "null");
    printf("displayTimeUnit %s\n", json_string_value(json_object_get(root, "displayTimeUnit")));
    free(o);
    json_decref(other);
    json_decref(root);
    free(s);
    return 0;
}

/* ---- summary.txt and summary.json --------------------------------------- */

static regex_t re_time, re_pct, re_ratio, re_num;

static void compile_masks(void)
{
    regcomp(&re_time, "[0-9]+(\\.[0-9]+)?(ms|us|ns|s)\\b", REG_EXTENDED);
    regcomp(&re_pct, "[0-9]+(\\.[0-9]+)?(%|pp)", REG_EXTENDED);
    regcomp(&re_ratio, "[0-9]+(\\.[0-9]+)?x\\b", REG_EXTENDED);
    regcomp(&re_num, "\\b[0-9]+\\.[0-9]+\\b", REG_EXTENDED);
}

static void mask_text(char *buf, size_t len);

/* Findings whose firing depends on how the host's timings fell (a wait
 * that was or was not long, a first call that was or was not slow, the
 * CPU's time between launches against 5 us): left out of both summaries.
 * The others follow from what was called. */
static const char *const timing_rules[] = {"sync-wait", "cold-start", "kernel-spread",
                                           "launch-latency", "launch-gaps", NULL};

/* 1 when text (a finding's line, "[warning] sync-wait: ...", or a JSON
 * path ".findings[sync-wait]...") names a timing-dependent rule. */
static int timing_finding(const char *text)
{
    for (size_t i = 0; timing_rules[i]; i++) {
        char a[64], b[64];
        snprintf(a, sizeof a, "] %s: ", timing_rules[i]);
        snprintf(b, sizeof b, ".findings[%s]", timing_rules[i]);
        if (strstr(text, a) || !strncmp(text, b, strlen(b)))
            return 1;
    }
    return 0;
}

/* Replaces every match of re in line (in place, len bytes) with rep. */
static void mask(regex_t *re, char *line, size_t len, const char *rep)
{
    char buf[8192];
    size_t o = 0;
    const char *p = line;
    regmatch_t m;
    while (*p && regexec(re, p, 1, &m, p == line ? 0 : REG_NOTBOL) == 0 && m.rm_eo > 0) {
        size_t pre = (size_t)m.rm_so;
        if (o + pre + strlen(rep) + 1 >= sizeof buf)
            break;
        memcpy(buf + o, p, pre);
        o += pre;
        memcpy(buf + o, rep, strlen(rep));
        o += strlen(rep);
        p += m.rm_eo;
    }
    if (o + strlen(p) + 1 < sizeof buf) {
        strcpy(buf + o, p);
        snprintf(line, len, "%s", buf);
    }
}

/* Collapses runs of blanks to one and trims the ends (masking changes
 * widths, so alignment is not what the golden file checks). */
static void squeeze(char *line)
{
    char *w = line;
    int blank = 1;
    for (char *r = line; *r; r++) {
        if (*r == ' ' || *r == '\t') {
            if (!blank)
                *w++ = ' ';
            blank = 1;
        } else {
            *w++ = *r;
            blank = 0;
        }
    }
    if (w > line && w[-1] == ' ')
        w--;
    *w = '\0';
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int norm_summary(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return 2;
    }
    char line[8192];
    char *rows[4096];
    size_t nrows = 0;
    int dashes = 0;   /* dash rules seen in the main table: rows between 2nd and 3rd */
    int skip_try = 0; /* the finding just left out has its "try:" line next */
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (!strncmp(line, "  pid:", 6)) {
            printf("  pid: <pid>\n");
            continue;
        }
        if (!strncmp(line, "  run file:", 11)) {   /* NAME.PID.cuprof, its size */
            printf("run file: <run file>\n");
            continue;
        }
        int rule = line[0] == '-' && strspn(line, "- ") == strlen(line);
        mask_text(line, sizeof line);
        squeeze(line);
        if (rule) {
            dashes++;
            if (dashes == 3) {   /* end of the rows: sorted, their order is timing */
                qsort(rows, nrows, sizeof *rows, cmp_str);
                for (size_t i = 0; i < nrows; i++) {
                    printf("%s\n", rows[i]);
                    free(rows[i]);
                }
                nrows = 0;
            }
            printf("----\n");
            continue;
        }
        if (skip_try && !strncmp(line, "try:", 4))
            continue;
        skip_try = line[0] == '[' && timing_finding(line);
        if (skip_try)
            continue;
        if (dashes == 2 && nrows < sizeof rows / sizeof *rows) {
            rows[nrows++] = strdup(line);
            continue;
        }
        printf("%s\n", line);
    }
    for (size_t i = 0; i < nrows; i++) {
        printf("%s\n", rows[i]);
        free(rows[i]);
    }
    fclose(f);
    return 0;
}

/* Masks a string value the way the text is masked (messages quote times). */
static void mask_text(char *buf, size_t len)
{
    mask(&re_time, buf, len, "<t>");
    mask(&re_pct, buf, len, "<%>");
    mask(&re_ratio, buf, len, "<r>x");
    mask(&re_num, buf, len, "<n>");
}

/* 1 when key names a time or a quantity derived from times. */
static int timed_key(const char *key)
{
    size_t n = strlen(key);
    return (n > 3 && !strcmp(key + n - 3, "_ns")) || (n > 3 && !strcmp(key + n - 3, "_us")) ||
           strstr(key, "share") || strstr(key, "ratio") || strstr(key, "per_s") ||
           !strcmp(key, "pid") || !strcmp(key, "exe") || !strcmp(key, "host") ||
           !strcmp(key, "boot_id") || !strcmp(key, "cuda_visible_devices") ||
           !strcmp(key, "event_bytes");   /* varint lengths follow the times */
}

static char *lines[65536];
static size_t nlines;

/* One "path value" line per leaf. Arrays of objects are keyed by the
 * object's name (or kind, or rule) rather than by position: their order
 * follows timings. */
static void flatten(const char *path, const char *key, json_t *v)
{
    char buf[8192];
    if (key && !strcmp(key, "run_file")) {   /* its name has the pid, its size the times */
        if (nlines < sizeof lines / sizeof *lines && asprintf(&lines[nlines], "%s <run file>", path) > 0)
            nlines++;
        return;
    }
    if (json_is_object(v)) {
        const char *k;
        json_t *c;
        json_object_foreach(v, k, c) {
            snprintf(buf, sizeof buf, "%s.%s", path, k);
            flatten(buf, k, c);
        }
        return;
    }
    if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++) {
            json_t *c = json_array_get(v, i);
            const char *id = NULL;
            static const char *const ids[] = {"name", "kind", "rule"};
            for (size_t j = 0; json_is_object(c) && !id && j < 3; j++)
                id = json_string_value(json_object_get(c, ids[j]));
            if (id)
                snprintf(buf, sizeof buf, "%s[%s]", path, id);
            else
                snprintf(buf, sizeof buf, "%s[%zu]", path, i);
            flatten(buf, key, c);
        }
        return;
    }
    char val[8192];
    if (timed_key(key) || json_is_real(v))
        snprintf(val, sizeof val, "<masked>");
    else if (json_is_string(v)) {
        snprintf(val, sizeof val, "\"%s\"", json_string_value(v));
        mask_text(val, sizeof val);
    } else {
        char *d = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
        snprintf(val, sizeof val, "%s", d ? d : "?");
        free(d);
    }
    if (timing_finding(path))
        return;
    if (nlines < sizeof lines / sizeof *lines && asprintf(&lines[nlines], "%s %s", path, val) > 0)
        nlines++;
}

static int norm_json(const char *path)
{
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    if (!root) {
        fprintf(stderr, "normalize: %s: %s (line %d)\n", path, err.text, err.line);
        return 2;
    }
    flatten("", "", root);
    qsort(lines, nlines, sizeof *lines, cmp_str);
    for (size_t i = 0; i < nlines; i++) {
        printf("%s\n", lines[i]);
        free(lines[i]);
    }
    json_decref(root);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: normalize trace|summary|json FILE\n");
        return 2;
    }
    compile_masks();
    if (!strcmp(argv[1], "trace"))
        return norm_trace(argv[2]);
    if (!strcmp(argv[1], "summary"))
        return norm_summary(argv[2]);
    if (!strcmp(argv[1], "json"))
        return norm_json(argv[2]);
    fprintf(stderr, "normalize: unknown kind %s (trace, summary or json)\n", argv[1]);
    return 2;
}
