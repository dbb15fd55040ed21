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
#include <unistd.h>

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

/* What rewriting one rank's events needs. */
typedef struct rank_out {
    FILE *f;
    int *first;
    const mg_rank *r;
    long long pid, w;           /* its process in the merged trace; the world size */
    int64_t shift;              /* ts + shift = the aligned time from the merged base (ns) */
    row_map *map;               /* its GPU rows */
    size_t nmap;
    json_t *evs;                /* the whole trace when read whole; NULL when streamed */
    struct { long long pid; char name[200]; } pname[16];   /* streamed: GPU process names seen */
    size_t npname;
} rank_out;

/* One event of the rank's, rewritten into the merged file. */
static int put_event(rank_out *o, json_t *ev)
{
    const char *ph = json_string_value(json_object_get(ev, "ph"));
    const char *name = json_string_value(json_object_get(ev, "name"));
    long long opid = json_integer_value(json_object_get(ev, "pid"));
    long long otid = json_integer_value(json_object_get(ev, "tid"));
    int gpu = opid >= GPU_PID_BASE;
    char label[512];
    if (!ph)
        return 0;
    if (!strcmp(ph, "M") && name && !strcmp(name, "process_name") && gpu && !o->evs && o->npname < 16) {
        const char *pn = json_string_value(json_object_get(json_object_get(ev, "args"), "name"));
        o->pname[o->npname].pid = opid;
        snprintf(o->pname[o->npname++].name, sizeof o->pname[0].name, "%s", pn ? pn : "GPU");
    }
    if (!strcmp(ph, "M") && name && (!strcmp(name, "process_name") || !strcmp(name, "process_sort_index") ||
                                     !strcmp(name, "process_labels")))
        return 0;   /* the rank's process is named by put_rank */
    json_t *out = json_deep_copy(ev);
    if (!out)
        return -1;
    json_object_set_new(out, "pid", json_integer(o->pid));
    if (gpu) {
        long long nt = row_of(o->map, &o->nmap, opid, otid);
        json_object_set_new(out, "tid", json_integer(nt));
        if (!strcmp(ph, "M") && name && !strcmp(name, "thread_name")) {
            const char *pn = NULL;
            if (o->evs)
                pn = gpu_process_name(o->evs, opid);
            for (size_t k = 0; !o->evs && k < o->npname && !pn; k++)
                if (o->pname[k].pid == opid)
                    pn = o->pname[k].name;
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
        int64_t ns = llround(json_number_value(ts) * 1000.0) + o->shift;
        json_object_set_new(out, "ts", json_real((double)ns / 1000.0));
    }
    json_t *id = json_object_get(ev, "id");
    if (json_is_integer(id))
        json_object_set_new(out, "id", json_integer(json_integer_value(id) * o->w + o->r->rank));
    int rc = put(o->f, o->first, out);
    json_decref(out);
    return rc;
}

/* The trace's baseTimeNanoseconds, from its end (after traceEvents, as
 * cuprof writes it); 0 when not found there. */
static uint64_t tail_base(FILE *in)
{
    static const char key[] = "\"baseTimeNanoseconds\":";
    char buf[1 << 16];
    if (fseek(in, 0, SEEK_END) != 0)
        return 0;
    long size = ftell(in);
    long from = size > (long)sizeof buf - 1 ? size - (long)sizeof buf + 1 : 0;
    if (fseek(in, from, SEEK_SET) != 0)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, in);
    buf[n] = '\0';
    const char *p = strstr(buf, key);
    rewind(in);
    return p ? strtoull(p + sizeof key - 1, NULL, 10) : 0;
}

/* The rank's events read one line at a time, as cuprof writes its traces
 * (one event a line between "traceEvents":[ and ]): a thousand-rank merge
 * never holds a whole trace. 0 done, 1 not such a file (read it whole),
 * -1 a write failed. */
static int put_streamed(rank_out *o, const char *path)
{
    FILE *in = fopen(path, "r");
    if (!in)
        return 1;
    uint64_t base_ns = tail_base(in);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len = getline(&line, &cap, in);
    int rc = base_ns && len > 0 && !strncmp(line, "{\"traceEvents\":[", 16) ? 0 : 1;
    o->shift += (int64_t)base_ns;
    while (rc == 0 && (len = getline(&line, &cap, in)) > 0) {
        if (line[0] == ']')
            break;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == ',' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (len == 0)
            continue;
        json_t *ev = json_loadb(line, (size_t)len, 0, NULL);
        if (!ev) {
            rc = 1;   /* not one event a line: read whole (nothing was written yet only if first) */
            break;
        }
        rc = put_event(o, ev);
        json_decref(ev);
    }
    free(line);
    fclose(in);
    return rc;
}

/* One rank's events, rewritten into f: streamed from its file when cuprof
 * wrote it, else read whole. */
static int put_rank(FILE *f, int *first, mg_rank *r, uint64_t base, long long w, char *err, size_t errlen)
{
    long long pid = r->rank + 1;
    char label[512];
    snprintf(label, sizeof label, "rank %d (%s, pid %ld)", r->rank, r->host[0] ? r->host : "host ?", r->pid);
    if (meta(f, first, "process_name", pid, 0, "name", json_string(label)) < 0 ||
        meta(f, first, "process_sort_index", pid, 0, "sort_index", json_integer(r->rank)) < 0)
        return -1;
    rank_out o = {f, first, r, pid, w, r->offset_ns - (int64_t)base, calloc(MAX_ROWS, sizeof(row_map)), 0,
                  NULL, {{0, ""}}, 0};
    if (!o.map)
        return -1;
    long pos = ftell(f);
    int was_first = *first;
    int rc = r->trace ? 1 : put_streamed(&o, r->trace_path);
    if (rc == 1) {   /* read whole: back to where this rank began */
        if (fflush(f) != 0 || ftruncate(fileno(f), pos) != 0 || fseek(f, pos, SEEK_SET) != 0) {
            free(o.map);
            return -1;
        }
        *first = was_first;
        o.nmap = 0;
        o.npname = 0;
        int read_here = !r->trace;
        if (mg_read_trace(r, 0, err, errlen) < 0) {
            free(o.map);
            return -2;
        }
        o.shift = (int64_t)r->base_ns + r->offset_ns - (int64_t)base;
        o.evs = json_object_get(r->trace, "traceEvents");
        json_t *ev;
        size_t i;
        rc = 0;
        json_array_foreach(o.evs, i, ev)
            if ((rc = put_event(&o, ev)) < 0)
                break;
        if (read_here) {
            json_decref(r->trace);
            r->trace = NULL;
        }
    }
    free(o.map);
    return rc;
}

int mg_write_trace(mg_run *m, const char *path, char *err, size_t errlen)
{
    /* the merged base: the earliest aligned start of the ranks in it (a
     * millisecond before: a trace's base is a little before its process's
     * start), so that no trace is read twice; a rank without clocks: its
     * trace's own base */
    uint64_t base = UINT64_MAX;
    long long w = m->world_size > 0 ? m->world_size : 1;
    size_t in = 0;
    for (size_t i = 0; i < m->n; i++) {
        mg_rank *r = &m->r[i];
        if (r->rank + 1 > w)
            w = r->rank + 1;
        if (!r->role || !r->trace_path)
            continue;
        in++;
        if (!r->mono_start && mg_read_trace(r, 0, err, errlen) < 0)
            return -1;
        int64_t b = r->mono_start ? (int64_t)r->mono_start - 1000000 + r->offset_ns
                                  : (int64_t)r->base_ns + r->offset_ns;
        if (b >= 0 && (uint64_t)b < base)
            base = (uint64_t)b;
    }
    if (!in || base == UINT64_MAX) {
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
    for (size_t i = 0; i < m->n && rc == 0; i++) {   /* one trace at a time, streamed */
        mg_rank *r = &m->r[i];
        if (!r->role || !r->trace_path)
            continue;
        if ((rc = put_rank(f, &first, r, base, w, err, errlen)) == -2) {
            fclose(f);
            remove(tmp);
            return -1;
        }
    }
    json_t *ranks = json_array();
    for (size_t i = 0; i < m->n; i++) {
        const mg_rank *r = &m->r[i];
        json_array_append_new(ranks, json_pack("{s:i,s:I,s:I,s:s,s:s,s:s?,s:I,s:s?}", "rank", r->rank, "process",
                                               (json_int_t)r->rank + 1, "pid", (json_int_t)r->pid, "host",
                                               r->host, "boot_id", r->boot_id, "trace", r->trace_path,
                                               "clock_offset_ns", (json_int_t)r->offset_ns, "in_trace",
                                               r->role && r->trace_path ? (r->role[0] ? r->role : "yes") : NULL));
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
