/*
 * test_e2e_perfetto.c - NAME.perfetto-trace end to end on the simulated
 * device: read back with an independent decoder (pftrace.c), it follows
 * the protobuf trace's rules and holds what NAME.trace.json of the same
 * run holds: the same slices with the same names and nanosecond times on
 * the CPU and GPU tracks, one arrow per JSON arrow. --format picks the
 * files; a long run's trace counts every call. The Perfetto trace is read
 * as written by default (zstd blocks), with --compress zlib and none; the
 * JSON one also as --gzip writes it.
 */
#include "harness.h"
#include "pftrace.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define RUN_TIMEOUT_S 180

static e2e_prof profile_env(const char *const argv[], const char *format, int want,
                            const char *more)
{
    char env[64];
    snprintf(env, sizeof env, "CUPROF_FORMAT=%s", format);
    char more_env[128] = "";
    snprintf(more_env, sizeof more_env, "%s", more ? more : "");
    char *sp = strchr(more_env, ' ');   /* at most two, space-separated */
    if (sp)
        *sp++ = '\0';
    const char *envs[] = {env, more_env[0] ? more_env : NULL, sp, NULL};
    e2e_prof p = e2e_profile(1, argv, envs, RUN_TIMEOUT_S);
    ck_assert_msg(p.r.status == want && p.sum, "exit %d\n%s", p.r.status, p.r.err);
    return p;
}

static e2e_prof profile_status(const char *const argv[], const char *format, int want)
{
    return profile_env(argv, format, want, NULL);
}

static e2e_prof profile(const char *const argv[], const char *format)
{
    return profile_status(argv, format, 0);
}

static int has_file(const e2e_prof *p, const char *suffix)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/x.%s", p->dir, suffix);
    return access(path, F_OK) == 0;
}

/* x.trace.json.gz, read through the real libz: NULL when unreadable. */
static json_t *load_gz(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/x.trace.json.gz", dir);
    gzFile f = gzopen(path, "rb");
    if (!f)
        return NULL;
    size_t n = 0, cap = 1 << 20;
    char *b = malloc(cap);
    int k;
    while (b && (k = gzread(f, b + n, (unsigned)(cap - n))) > 0) {
        n += (size_t)k;
        if (n == cap) {
            char *nb = realloc(b, cap *= 2);
            if (!nb) {
                free(b);
                b = NULL;
            }
            b = nb;
        }
    }
    int gz_ok = gzclose(f) == Z_OK;
    json_t *j = b && gz_ok ? json_loadb(b, n, 0, NULL) : NULL;
    free(b);
    return j;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "name|t0|t1" keys, sorted. */
typedef struct keys {
    char **k;
    size_t n, cap;
} keys;

static void key_add(keys *ks, const char *name, uint64_t t0, uint64_t t1)
{
    if (ks->n == ks->cap) {
        ks->cap = ks->cap ? 2 * ks->cap : 256;
        ks->k = realloc(ks->k, ks->cap * sizeof *ks->k);
        ck_assert_ptr_nonnull(ks->k);
    }
    size_t len = strlen(name) + 48;
    ks->k[ks->n] = malloc(len);
    snprintf(ks->k[ks->n++], len, "%s|%llu|%llu", name, (unsigned long long)t0,
             (unsigned long long)t1);
}

static void keys_free(keys *ks)
{
    for (size_t i = 0; i < ks->n; i++)
        free(ks->k[i]);
    free(ks->k);
}

/* A call's arguments as text, one "key=value" per line, sorted: the JSON
 * trace's args object, or the Perfetto slice's annotations (pftrace.h's
 * rendering, which this one follows: [x,y,z] arrays, pointers as 0x-hex
 * strings in JSON). Owned. */
static char *sorted_lines(char *text)
{
    size_t n = 0, cap = 16;
    char **lines = malloc(cap * sizeof *lines);
    ck_assert_ptr_nonnull(lines);
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (n == cap)
            ck_assert_ptr_nonnull(lines = realloc(lines, (cap *= 2) * sizeof *lines));
        lines[n++] = l;
    }
    qsort(lines, n, sizeof *lines, cmp_str);
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(lines[i]) + 1;
    char *out = malloc(len), *o = out;
    ck_assert_ptr_nonnull(out);
    *o = '\0';
    for (size_t i = 0; i < n; i++)
        o += sprintf(o, "%s;", lines[i]);
    free(lines);
    return out;
}

static char *json_args_text(json_t *args)
{
    size_t len = 1, used = 0;
    char *text = calloc(1, len);
    const char *key;
    json_t *v;
    json_object_foreach(args, key, v) {
        char val[512];
        if (json_is_integer(v))
            snprintf(val, sizeof val, "%lld", (long long)json_integer_value(v));
        else if (json_is_boolean(v))
            snprintf(val, sizeof val, "%s", json_is_true(v) ? "true" : "false");
        else if (json_is_string(v))
            snprintf(val, sizeof val, "%s", json_string_value(v));
        else if (json_is_array(v) && json_array_size(v) == 3)
            snprintf(val, sizeof val, "[%lld,%lld,%lld]",
                     (long long)json_integer_value(json_array_get(v, 0)),
                     (long long)json_integer_value(json_array_get(v, 1)),
                     (long long)json_integer_value(json_array_get(v, 2)));
        else
            snprintf(val, sizeof val, "(%s)", json_is_real(v) ? "real" : "other");
        size_t need = strlen(key) + strlen(val) + 3;
        ck_assert_ptr_nonnull(text = realloc(text, len += need));
        used += (size_t)sprintf(text + used, "%s=%s\n", key, val);
    }
    char *out = sorted_lines(text);
    free(text);
    return out;
}

/* JSON's microseconds with three decimals as ns. */
static uint64_t us_to_ns(json_t *v)
{
    return (uint64_t)llround(json_number_value(v) * 1000.0);
}

/* ts + the trace's base: ns on the run's clock, as the Perfetto trace has. */
static uint64_t abs_ns(json_t *trace, json_t *ts)
{
    return (uint64_t)json_integer_value(json_object_get(trace, "baseTimeNanoseconds")) + us_to_ns(ts);
}

/* Both key lists hold the same entries. */
static void same_keys(keys *a, keys *b, const char *what)
{
    qsort(a->k, a->n, sizeof *a->k, cmp_str);
    qsort(b->k, b->n, sizeof *b->k, cmp_str);
    ck_assert_msg(a->n == b->n, "%s: %zu in trace.json, %zu in perfetto-trace", what, a->n, b->n);
    for (size_t i = 0; i < a->n; i++)
        ck_assert_msg(strcmp(a->k[i], b->k[i]) == 0, "%s: json %s, perfetto %s", what, a->k[i],
                      b->k[i]);
}

/* The counter tracks: "CUDA memory allocated" ends at what the trace's
 * cudaMalloc calls hold after its cudaFree calls (matched by pointer) and
 * never goes below 0; "GPU 0 busy" is never negative, ends at 0, and is
 * above 0 for as long as summary.json says the GPU was busy (within 1 ns
 * per record: the rows draw touching records 1 ns apart). */
static void check_counters(const pft *t, const e2e_prof *p)
{
    const pft_track *mem = NULL, *busy = NULL;
    for (size_t k = 0; k < t->ntracks; k++) {
        if (t->tracks[k].name && !strcmp(t->tracks[k].name, "CUDA memory allocated"))
            mem = &t->tracks[k];
        if (t->tracks[k].name && !strcmp(t->tracks[k].name, "GPU 0 busy (records running)"))
            busy = &t->tracks[k];
    }
    ck_assert_ptr_nonnull(mem);
    ck_assert_ptr_nonnull(busy);
    /* the JSON's allocations */
    json_t *live = json_object(), *e;
    long long held = 0;
    size_t i;
    json_array_foreach(json_object_get(p->trace, "traceEvents"), i, e) {
        const char *name = json_string_value(json_object_get(e, "name"));
        json_t *args = json_object_get(e, "args");
        const char *ptr = json_string_value(json_object_get(args, "ptr"));
        if (!name || !ptr || json_object_get(args, "result"))
            continue;
        if (!strcmp(name, "cudaMalloc")) {
            json_object_set_new(live, ptr, json_integer(json_integer_value(json_object_get(args, "bytes"))));
            held += json_integer_value(json_object_get(args, "bytes"));
        } else if (!strcmp(name, "cudaFree") && json_object_get(live, ptr)) {
            held -= json_integer_value(json_object_get(live, ptr));
            json_object_del(live, ptr);
        }
    }
    json_decref(live);
    long long last_mem = -1, peak = 0, last_busy = -1, busy_ns = 0, since = 0;
    size_t records = 0;
    for (size_t k = 0; k < t->ncounters; k++) {
        const pft_counter *c = &t->counters[k];
        if (c->track == mem->uuid) {
            ck_assert_int_ge(c->value, 0);
            last_mem = c->value;
            if (c->value > peak)
                peak = c->value;
        } else if (c->track == busy->uuid) {
            ck_assert_int_ge(c->value, 0);
            if (last_busy > 0)
                busy_ns += (long long)c->ts - since;
            since = (long long)c->ts;
            last_busy = c->value;
            records++;
        }
    }
    ck_assert_int_gt(peak, 0);
    ck_assert_int_eq(last_mem, held);
    ck_assert_int_eq(last_busy, 0);
    long long want = json_integer_value(json_object_get(json_object_get(p->sum, "gpu"), "busy_ns"));
    ck_assert_msg(llabs(busy_ns - want) <= (long long)records, "busy %lld ns, summary %lld", busy_ns,
                  want);
}

/* The runs compared: matmul_add eager and fused (kernels, cuBLAS, copies),
 * the NVTX program (push and start/end ranges, marks; it exits with 3),
 * and matmul_add's NVTX steps with two capture windows. */
static const char *const runs[][14] = {
    {"bench/matmul_add", "--mode", "eager", NULL},
    {"bench/matmul_add", "--mode", "fused", NULL},
    {"@tests/nvtx_prog", NULL},
    {"--capture-range", "nvtx:step", "--capture-range-end", "repeat:2", "--skip-first", "1",
     "bench/matmul_add", "--mode", "eager", "--nvtx", "--iters", "4", NULL},
    {"bench/matmul_add", "--mode", "eager", NULL},   /* --compress zlib --gzip */
};

START_TEST(perfetto_holds_what_json_holds)
{
    const char *args[16];
    size_t na = 0;
    for (const char *const *a = runs[_i]; *a; a++)
        args[na++] = (*a)[0] == '@' ? e2e_bpath(*a + 1)
                     : strchr(*a, '/') ? e2e_path(*a) : *a;
    args[na] = NULL;
    int gz = _i == 4;
    e2e_prof p = profile_env(args, "both", _i == 2 ? 3 : 0,
                             gz ? "CUPROF_COMPRESS=zlib CUPROF_GZIP=1" : NULL);
    ck_assert(has_file(&p, gz ? "trace.json.gz" : "trace.json") && has_file(&p, "perfetto-trace"));
    if (gz) {   /* the JSON trace only gzip'ed; read it so */
        ck_assert(!has_file(&p, "trace.json"));
        ck_assert_ptr_null(p.trace);
        p.trace = load_gz(p.dir);
        ck_assert_ptr_nonnull(p.trace);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/x.perfetto-trace", p.dir);
    pft t;
    int rc = pft_load(path, &t);
    ck_assert_msg(rc == 0, "%s", t.error);
    /* compressed in blocks: zstd by default, zlib when asked */
    ck_assert_uint_gt(gz ? t.zlib_blocks : t.zstd_blocks, 0);
    ck_assert_uint_eq(gz ? t.zstd_blocks : t.zlib_blocks, 0);
    ck_assert_int_eq(t.primary_clock, 3);   /* CLOCK_MONOTONIC, the recording clock */

    /* The JSON side, by kind: X events on the process's own rows (CPU), on
     * the GPU processes and the capture windows; NVTX start/end ranges
     * (b/e pairs); the arrows. */
    json_int_t pid = json_integer_value(json_object_get(json_object_get(p.trace, "otherData"), "pid"));
    keys j[4] = {{0}}, q[4] = {{0}};   /* cpu, gpu, async, capture */
    size_t jflows = 0, jargs = 0, i;
    json_t *e;
    json_array_foreach(json_object_get(p.trace, "traceEvents"), i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        const char *cat = json_string_value(json_object_get(e, "cat"));
        const char *name = json_string_value(json_object_get(e, "name"));
        if (!strcmp(ph, "s"))
            jflows++;
        if (!strcmp(ph, "b")) {   /* its e: same name and id2 */
            json_t *f;
            size_t k;
            json_array_foreach(json_object_get(p.trace, "traceEvents"), k, f)
                if (!strcmp(json_string_value(json_object_get(f, "ph")), "e") &&
                    json_equal(json_object_get(f, "id2"), json_object_get(e, "id2")))
                    key_add(&j[2], name, abs_ns(p.trace, json_object_get(e, "ts")),
                            abs_ns(p.trace, json_object_get(f, "ts")));
        }
        if (strcmp(ph, "X") != 0)
            continue;
        uint64_t t0 = abs_ns(p.trace, json_object_get(e, "ts"));
        uint64_t t1 = t0 + us_to_ns(json_object_get(e, "dur"));
        json_int_t epid = json_integer_value(json_object_get(e, "pid"));
        int jk = cat && !strcmp(cat, "capture") ? 3 : epid == pid ? 0 : 1;
        if (jk == 0) {   /* CPU calls: with their arguments */
            char *a = json_args_text(json_object_get(e, "args"));
            char *nm = malloc(strlen(name) + strlen(a) + 2);
            ck_assert_ptr_nonnull(nm);
            sprintf(nm, "%s|%s", name, a);
            key_add(&j[jk], nm, t0, t1);
            free(nm);
            free(a);
        } else
            key_add(&j[jk], name, t0, t1);
        if (jk == 1)   /* GPU records: the same arguments by name in both traces */
            jargs += json_object_size(json_object_get(e, "args"));
    }
    size_t pout = 0, pin = 0, kernels = 0, pargs = 0;
    for (size_t k = 0; k < t.nslices; k++) {
        const pft_slice *s = &t.slices[k];
        const pft_track *tr = pft_track_of(&t, s->track);
        ck_assert_ptr_nonnull(tr);
        pout += s->nflow_out;
        pin += s->nflow_in;
        if (!strcmp(s->cat, "kernel")) {   /* correlation, ids, grid, block, ... */
            ck_assert_uint_ge(s->nargs, 9);
            kernels++;
        }
        if (s->instant)
            continue;
        int kind = tr->tid >= 0 ? 0
                   : !strncmp(tr->name, "stream ", 7) ? 1
                   : !strncmp(tr->name, "NVTX ranges", 11) ? 2
                   : !strcmp(tr->name, "capture window") ? 3 : -1;
        ck_assert_msg(kind >= 0, "slice %s on track %s", s->name, tr->name);
        if (kind == 0)
            ck_assert_int_eq(tr->pid, pid);
        if (kind == 0) {
            char *text = strdup(s->args);
            ck_assert_ptr_nonnull(text);
            char *a = sorted_lines(text);
            char *nm = malloc(strlen(s->name) + strlen(a) + 2);
            ck_assert_ptr_nonnull(nm);
            sprintf(nm, "%s|%s", s->name, a);
            key_add(&q[kind], nm, s->t0, s->t1);
            free(nm);
            free(a);
            free(text);
        } else
            key_add(&q[kind], s->name, s->t0, s->t1);
        if (kind == 1)
            pargs += s->nargs;
    }
    static const char *const what[] = {"CPU slices", "GPU slices", "NVTX start/end ranges",
                                       "capture windows"};
    if (_i == 2)
        ck_assert_uint_gt(j[2].n, 0);   /* the NVTX program has start/end ranges */
    if (_i == 3)
        ck_assert_uint_eq(j[3].n, 2);   /* two capture windows */
    for (int k = 0; k < 4; k++) {
        same_keys(&j[k], &q[k], what[k]);
        keys_free(&j[k]);
        keys_free(&q[k]);
    }
    ck_assert_uint_eq(pout, jflows);
    ck_assert_uint_eq(pin, jflows);
    ck_assert_uint_eq(pargs, jargs);
    if (_i < 2 || gz) {
        ck_assert_uint_gt(jflows, 0);
        ck_assert_uint_gt(kernels, 0);
    }
    /* every flow that starts also ends */
    for (size_t k = 0; k < t.nslices; k++) {
        if (!t.slices[k].flow_out)
            continue;
        int ends = 0;
        for (size_t m = 0; m < t.nslices && !ends; m++)
            ends = t.slices[m].flow_in == t.slices[k].flow_out;
        ck_assert_msg(ends, "flow %llu from %s never ends",
                      (unsigned long long)t.slices[k].flow_out, t.slices[k].name);
    }
    if (_i < 2 || gz)
        check_counters(&t, &p);
    pft_free(&t);
    e2e_prof_free(&p);
}
END_TEST

/* --format picks the trace files; auto writes JSON for a small run. */
START_TEST(format_picks_the_files)
{
    const char *args[] = {e2e_path("bench/matmul_add"), "--mode", "eager", NULL};
    e2e_prof p = profile(args, "auto");
    ck_assert(has_file(&p, "trace.json") && !has_file(&p, "perfetto-trace"));
    e2e_prof_free(&p);
    p = profile(args, "perfetto");
    ck_assert(!has_file(&p, "trace.json") && has_file(&p, "perfetto-trace"));
    ck_assert_ptr_nonnull(strstr(p.r.err, "perfetto-trace"));
    e2e_prof_free(&p);

    const char *bad[] = {e2e_path("prof.sh"), "--format", "xml", e2e_path("bench/matmul_add"), NULL};
    e2e_result r = e2e_run(bad, NULL, NULL, 30);
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(
        strstr(r.err, "cuprof: --format xml: expected auto, json, perfetto, both or none"));
    e2e_result_free(&r);
    const char *badz[] = {e2e_path("prof.sh"), "--compress", "lz4", e2e_path("bench/matmul_add"), NULL};
    r = e2e_run(badz, NULL, NULL, 30);
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "cuprof: --compress lz4: expected auto, zstd, zlib or none"));
    e2e_result_free(&r);

    p = profile(args, "none");   /* the summaries only */
    ck_assert(!has_file(&p, "trace.json") && !has_file(&p, "perfetto-trace"));
    ck_assert(has_file(&p, "summary.txt"));
    e2e_prof_free(&p);
}
END_TEST

/* args profiled on the sim with envs, exiting with status: its profile,
 * and its Perfetto trace read into *t. */
static e2e_prof profile_perfetto(const char *const args[], const char *const envs[], int status, pft *t)
{
    e2e_prof p = e2e_profile(1, args, envs, RUN_TIMEOUT_S);
    ck_assert_msg(p.r.status == status && p.sum, "exit %d\n%s", p.r.status, p.r.err);
    char path[4096];
    snprintf(path, sizeof path, "%s/x.perfetto-trace", p.dir);
    int rc = pft_load(path, t);
    ck_assert_msg(rc == 0, "%s", t->error);
    return p;
}

/* A run of 200 000 calls: every call is one slice of the Perfetto trace,
 * with its arguments. */
START_TEST(long_run_counts_every_call)
{
    const char *args[] = {e2e_bpath("tests/robust_prog"), "calls", "100000", "return", NULL};
    const char *envs[] = {"CUPROF_FORMAT=perfetto", "CUPROF_GPU=0", "CUPROF_COMPRESS=none", NULL};
    pft t;
    e2e_prof p = profile_perfetto(args, envs, 3, &t);
    ck_assert_uint_eq(t.zstd_blocks + t.zlib_blocks, 0);   /* --compress none */
    json_int_t events = json_integer_value(json_object_get(p.sum, "events"));
    ck_assert_int_ge(events, 200000);
    size_t calls = 0;
    for (size_t k = 0; k < t.nslices; k++)
        calls += !strcmp(t.slices[k].cat, "cuda_runtime") && t.slices[k].nargs >= 1;
    ck_assert_uint_eq(calls, (size_t)events);
    pft_free(&t);
    e2e_prof_free(&p);
}
END_TEST

static int cmp_u64_step(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;   /* {t, delta} */
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* 60 000 launches: the "GPU 0 busy" counter has more steps than its 100 000
 * points, so it holds one value per 1/100 000 of the span, the last in it:
 * the running count of the kernels (as their slices show them) started less
 * the ended, through that time. Computed here from the trace's own kernel
 * slices, the sorted way, and compared point by point. */
START_TEST(busy_counter_past_its_points)
{
    const char *args[] = {e2e_bpath("bench/calls"), "--api", "launch", "--n", "60000", "--warmup", "0", NULL};
    const char *envs[] = {"CUPROF_FORMAT=perfetto", "CUPROF_COMPRESS=none", "CUSIM_LAUNCH_CPU_NS=0", NULL};
    pft t;
    e2e_prof p = profile_perfetto(args, envs, 0, &t);
    const pft_track *busy = NULL;
    for (size_t k = 0; k < t.ntracks; k++)
        if (t.tracks[k].name && !strcmp(t.tracks[k].name, "GPU 0 busy (records running)"))
            busy = &t.tracks[k];
    ck_assert_ptr_nonnull(busy);
    size_t n = 0;
    int64_t (*st)[2] = malloc(2 * t.nslices * sizeof *st);
    ck_assert_ptr_nonnull(st);
    for (size_t k = 0; k < t.nslices; k++)
        if (!strcmp(t.slices[k].cat, "kernel")) {
            st[n][0] = (int64_t)t.slices[k].t0, st[n++][1] = 1;
            st[n][0] = (int64_t)t.slices[k].t1, st[n++][1] = -1;
        }
    ck_assert_uint_ge(n, 120000);   /* past the 100 000 points */
    qsort(st, n, sizeof *st, cmp_u64_step);
    int64_t bucket = (st[n - 1][0] - st[0][0]) / 100000 + 1, v = 0;
    size_t c = 0, points = 0;
    for (size_t i = 0; i < n; i++) {
        v += st[i][1];
        if (i + 1 < n && (st[i + 1][0] - st[0][0]) / bucket == (st[i][0] - st[0][0]) / bucket)
            continue;
        while (c < t.ncounters && t.counters[c].track != busy->uuid)
            c++;
        ck_assert_msg(c < t.ncounters, "the counter ends after %zu points", points);
        ck_assert_msg(t.counters[c].ts == (uint64_t)st[i][0] && t.counters[c].value == v,
                      "point %zu: %llu = %lld, want %lld = %lld", points,
                      (unsigned long long)t.counters[c].ts, (long long)t.counters[c].value,
                      (long long)st[i][0], (long long)v);
        c++, points++;
    }
    ck_assert_uint_le(points, 100001);
    ck_assert_int_eq(v, 0);
    while (c < t.ncounters && t.counters[c].track != busy->uuid)
        c++;
    ck_assert_msg(c == t.ncounters, "more points than the steps make");
    free(st);
    pft_free(&t);
    e2e_prof_free(&p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("e2e_perfetto");
    TCase *tc = tcase_create("perfetto");
    tcase_set_timeout(tc, 3 * RUN_TIMEOUT_S);
    tcase_add_loop_test(tc, perfetto_holds_what_json_holds, 0, 5);
    tcase_add_test(tc, format_picks_the_files);
    tcase_add_test(tc, long_run_counts_every_call);
    tcase_add_test(tc, busy_counter_past_its_points);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
