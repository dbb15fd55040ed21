/*
 * merge_trace.c - NAME.merged.trace.json: every rank's trace.json on one
 * time axis, a process per rank (merge.h).
 *
 *  - Rank R is process R + 1, named "rank R (HOST, pid P)", sorted by rank.
 *    Its CPU threads keep their rows; its GPU rows (process 2^30 + device
 *    in the rank's file) become threads of the same process, named "GPU 0
 *    stream 7", tid 2^30 + k in the rank file's order, after the CPU rows.
 *  - Times: each rank's ts from its baseTimeNanoseconds, moved by its
 *    clock offset (mg_align), from the earliest aligned base, which is the
 *    merged file's baseTimeNanoseconds.
 *  - Launch arrows keep their ends: the flow id becomes id * W + R (W the
 *    world size), unique across ranks.
 *  - otherData says what was merged and how the clocks were aligned.
 */
#include "formats/merge/merge.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GPU_PID_BASE (1ll << 30)
#define MAX_ROWS 4096

typedef struct row_map {
    long long pid, tid;     /* in the rank's file */
    long long new_tid;
} row_map;

static long long row_of(row_map *map, size_t *n, long long pid, long long tid)
{
    for (size_t i = 0; i < *n; i++)
        if (map[i].pid == pid && map[i].tid == tid)
            return map[i].new_tid;
    if (*n == MAX_ROWS)
        return GPU_PID_BASE + MAX_ROWS;
    map[*n] = (row_map){pid, tid, GPU_PID_BASE + (long long)*n};
    return map[(*n)++].new_tid;
}

static const char *gpu_process_name(json_t *evs, long long pid)
{
    size_t i;
    json_t *ev;
    json_array_foreach(evs, i, ev) {
        const char *nm = json_string_value(json_object_get(ev, "name"));
        const char *ph = json_string_value(json_object_get(ev, "ph"));
        if (ph && !strcmp(ph, "M") && nm &&
            !strcmp(nm, "process_name") && json_integer_value(json_object_get(ev, "pid")) == pid)
            return json_string_value(json_object_get(json_object_get(ev, "args"), "name"));
    }
    return NULL;
}

static int put(FILE *f, int *first, json_t *ev)
{
    char *s = json_dumps(ev, JSON_COMPACT | JSON_REAL_PRECISION(15));
    if (!s)
        return -1;
    fputs(*first ? "\n" : ",\n", f);
    fputs(s, f);
    free(s);
    *first = 0;
    return 0;
}

static int meta(FILE *f, int *first, const char *what, long long pid, long long tid, const char *key,
                json_t *value)
{
    json_t *ev = json_pack("{s:s,s:s,s:I,s:I,s:{s:o}}", "ph", "M", "name", what, "pid", pid, "tid", tid,
                           "args", key, value);
    int rc = ev ? put(f, first, ev) : -1;
    json_decref(ev);
    return rc;
}

/* One rank's events, rewritten into f. */
static int put_rank(FILE *f, int *first, const mg_run *m, const mg_rank *r, uint64_t base, long long w)
{
    long long pid = r->rank + 1;
    char label[512];
    snprintf(label, sizeof label, "rank %d (%s, pid %ld)", r->rank, r->host[0] ? r->host : "host ?", r->pid);
    if (meta(f, first, "process_name", pid, 0, "name", json_string(label)) < 0 ||
        meta(f, first, "process_sort_index", pid, 0, "sort_index", json_integer(r->rank)) < 0)
        return -1;
    json_t *evs = json_object_get(r->trace, "traceEvents"), *ev;
    row_map *map = calloc(MAX_ROWS, sizeof *map);
    size_t nmap = 0, i;
    if (!map)
        return -1;
    /* ts + shift = the aligned time from the merged base, in ns */
    int64_t shift = (int64_t)r->base_ns + r->offset_ns - (int64_t)base;
    int rc = 0;
    json_array_foreach(evs, i, ev) {
        const char *ph = json_string_value(json_object_get(ev, "ph"));
        const char *name = json_string_value(json_object_get(ev, "name"));
        long long opid = json_integer_value(json_object_get(ev, "pid"));
        long long otid = json_integer_value(json_object_get(ev, "tid"));
        int gpu = opid >= GPU_PID_BASE;
        if (!ph)
            continue;
        if (!strcmp(ph, "M") && name && (!strcmp(name, "process_name") || !strcmp(name, "process_sort_index") ||
                                         !strcmp(name, "process_labels")))
            continue;   /* the rank's process is named above */
        json_t *out = json_deep_copy(ev);
        if (!out) {
            rc = -1;
            break;
        }
        json_object_set_new(out, "pid", json_integer(pid));
        if (gpu) {
            long long nt = row_of(map, &nmap, opid, otid);
            json_object_set_new(out, "tid", json_integer(nt));
            if (!strcmp(ph, "M") && name && !strcmp(name, "thread_name")) {
                const char *pn = gpu_process_name(evs, opid);
                const char *tn = json_string_value(json_object_get(json_object_get(ev, "args"), "name"));
                snprintf(label, sizeof label, "%s %s", pn ? pn : "GPU", tn ? tn : "");
                json_object_set_new(json_object_get(out, "args"), "name", json_string(label));
            } else if (!strcmp(ph, "M") && name && !strcmp(name, "thread_sort_index")) {
                json_object_set_new(json_object_get(out, "args"), "sort_index",
                                    json_integer(1000000 + nt - GPU_PID_BASE));
            }
        }
        json_t *ts = json_object_get(ev, "ts");
        if (json_is_number(ts)) {
            int64_t ns = llround(json_number_value(ts) * 1000.0) + shift;
            json_object_set_new(out, "ts", json_real((double)ns / 1000.0));
        }
        json_t *id = json_object_get(ev, "id");
        if (json_is_integer(id))
            json_object_set_new(out, "id", json_integer(json_integer_value(id) * w + r->rank));
        rc = put(f, first, out);
        json_decref(out);
        if (rc < 0)
            break;
    }
    free(map);
    (void)m;
    return rc;
}

int mg_write_trace(const mg_run *m, const char *path, char *err, size_t errlen)
{
    uint64_t base = UINT64_MAX;
    long long w = m->world_size > 0 ? m->world_size : 1;
    for (size_t i = 0; i < m->n; i++) {
        const mg_rank *r = &m->r[i];
        if (r->rank + 1 > w)
            w = r->rank + 1;
        if (r->trace) {
            int64_t b = (int64_t)r->base_ns + r->offset_ns;
            if (b >= 0 && (uint64_t)b < base)
                base = (uint64_t)b;
        }
    }
    if (base == UINT64_MAX) {
        snprintf(err, errlen, "no rank wrote a trace.json (run with --format json or both)");
        return -1;
    }
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    int first = 1, rc = 0;
    fputs("{\"traceEvents\":[", f);
    for (size_t i = 0; i < m->n && rc == 0; i++)
        if (m->r[i].trace)
            rc = put_rank(f, &first, m, &m->r[i], base, w);
    json_t *ranks = json_array();
    for (size_t i = 0; i < m->n; i++) {
        const mg_rank *r = &m->r[i];
        json_array_append_new(ranks, json_pack("{s:i,s:I,s:I,s:s,s:s,s:s?,s:I,s:s?}", "rank", r->rank, "process",
                                               (json_int_t)r->rank + 1, "pid", (json_int_t)r->pid, "host",
                                               r->host, "boot_id", r->boot_id, "trace", r->trace_path,
                                               "clock_offset_ns", (json_int_t)r->offset_ns, "in_trace",
                                               r->trace ? (r->role && r->role[0] ? r->role : "yes") : NULL));
    }
    json_t *other = json_pack("{s:s,s:s,s:I,s:{s:s,s:I,s:I},s:o}", "tool", "cuprof", "merged", m->name,
                              "world_size", (json_int_t)m->world_size, "alignment", "method", m->method,
                              "error_ns", (json_int_t)m->error_ns, "refined_by", (json_int_t)m->refined_by,
                              "ranks", ranks);
    char *o = other ? json_dumps(other, JSON_COMPACT) : NULL;
    fprintf(f, "\n],\n\"displayTimeUnit\":\"ns\",\n\"baseTimeNanoseconds\":%llu,\n\"otherData\":%s\n}\n",
            (unsigned long long)base, o ? o : "{}");
    free(o);
    json_decref(other);
    if (rc < 0 || ferror(f)) {
        fclose(f);
        remove(tmp);
        snprintf(err, errlen, "cannot write %s", path);
        return -1;
    }
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        remove(tmp);
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}
