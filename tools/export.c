/*
 * export.c - cuprof-export: a finished run's NAME.trace.json as an
 * SQLite database shaped like Nsight Systems' export where the two overlap,
 * so that nsys SQL queries run on cuprof data (`prof.sh export sqlite`).
 *
 *   cuprof-export sqlite TRACE.json[.gz] [OUT.sqlite]   (OUT: TRACE with .sqlite)
 *
 * Tables (nsys's names and columns; times in ns on the run's clock,
 * CLOCK_MONOTONIC; strings in StringIds):
 *   StringIds(id, value)
 *   CUPTI_ACTIVITY_KIND_KERNEL(start, end, deviceId, contextId, streamId,
 *       correlationId, globalPid, demangledName, shortName, mangledName,
 *       gridX, gridY, gridZ, blockX, blockY, blockZ, registersPerThread,
 *       staticSharedMemory, dynamicSharedMemory)
 *   CUPTI_ACTIVITY_KIND_MEMCPY(start, end, deviceId, contextId, streamId,
 *       correlationId, globalPid, bytes, copyKind)
 *   CUPTI_ACTIVITY_KIND_MEMSET(start, end, deviceId, contextId, streamId,
 *       correlationId, globalPid, value, bytes)
 *   CUPTI_ACTIVITY_KIND_RUNTIME(start, end, eventClass, globalTid,
 *       correlationId, nameId, returnValue): every CUDA runtime call (the
 *       hooked ones and those only CUPTI saw); correlationId from the
 *       launch arrow that leaves it, else its own, else 0
 *   CUBLAS_EVENTS(start, end, globalTid, nameId): cuBLAS and cuBLASLt calls
 *   NVTX_EVENTS(start, end, eventType, text, globalTid, domainId): push/pop
 *       ranges (eventType 59), start/end ranges (60), marks (34)
 *   TARGET_INFO_SESSION_START_TIME(utcEpochNs, utcTime, clockMonotonicNs)
 * globalPid = pid * 2^24, globalTid = globalPid + tid, as nsys encodes them.
 * Writes to OUT.tmp and renames, so no reader sees half a database.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <zlib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define GPU_PID_BASE (1ll << 30)   /* formats/chrome_trace_int.h */

static const char *const schema =
    "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,"
    " deviceId INTEGER, contextId INTEGER, streamId INTEGER, correlationId INTEGER,"
    " globalPid INTEGER, demangledName INTEGER, shortName INTEGER, mangledName INTEGER,"
    " gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER,"
    " blockZ INTEGER, registersPerThread INTEGER, staticSharedMemory INTEGER,"
    " dynamicSharedMemory INTEGER);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,"
    " deviceId INTEGER, contextId INTEGER, streamId INTEGER, correlationId INTEGER,"
    " globalPid INTEGER, bytes INTEGER, copyKind INTEGER);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL,"
    " deviceId INTEGER, contextId INTEGER, streamId INTEGER, correlationId INTEGER,"
    " globalPid INTEGER, value INTEGER, bytes INTEGER);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,"
    " eventClass INTEGER, globalTid INTEGER, correlationId INTEGER, nameId INTEGER,"
    " returnValue INTEGER);"
    "CREATE TABLE CUBLAS_EVENTS (start INTEGER NOT NULL, end INTEGER NOT NULL,"
    " globalTid INTEGER, nameId INTEGER);"
    "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER,"
    " text TEXT, globalTid INTEGER, domainId INTEGER);"
    "CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT,"
    " clockMonotonicNs INTEGER);";

typedef struct exporter {
    sqlite3 *db;
    sqlite3_stmt *str, *kernel, *memcpy_, *memset_, *runtime, *cublas, *nvtx;
    int64_t base;            /* baseTimeNanoseconds */
    int64_t pid;
    json_t *strings;         /* value -> id */
    int64_t next_id;
    /* launch arrows: (tid, ts ns) of each "s" with its correlation id */
    struct flow { int64_t tid, ts, corr; } *flows;
    size_t nflows;
} exporter;

static int fail(const char *what, const char *detail)
{
    fprintf(stderr, "cuprof: export: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    return 1;
}

static int64_t ns(const exporter *x, json_t *us)
{
    return x->base + (int64_t)llround(json_number_value(us) * 1000.0);
}

static int64_t iget(json_t *o, const char *k)
{
    return (int64_t)json_integer_value(json_object_get(o, k));
}

static const char *sget(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

/* The StringIds id of s (added on first use). */
static int64_t string_id(exporter *x, const char *s)
{
    json_t *id = json_object_get(x->strings, s);
    if (id)
        return json_integer_value(id);
    int64_t n = x->next_id++;
    json_object_set_new(x->strings, s, json_integer(n));
    sqlite3_bind_int64(x->str, 1, n);
    sqlite3_bind_text(x->str, 2, s, -1, SQLITE_TRANSIENT);
    sqlite3_step(x->str);
    sqlite3_reset(x->str);
    return n;
}

static void bind_dim3(sqlite3_stmt *st, int col, json_t *a)
{
    for (int i = 0; i < 3; i++)
        sqlite3_bind_int64(st, col + i, (int64_t)json_integer_value(json_array_get(a, (size_t)i)));
}

/* CUPTI_ActivityMemcpyKind of a direction name. */
static int copy_kind(const char *d)
{
    static const char *const names[] = {"", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                        "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
    for (int i = 1; i < (int)(sizeof names / sizeof names[0]); i++)
        if (strcmp(d, names[i]) == 0)
            return i;
    return 0;
}

static int step(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int cmp_flow(const void *a, const void *b)
{
    const struct flow *x = a, *y = b;
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* The correlation id of the arrow leaving [t0, t1] on tid (the first). */
static int64_t flow_corr(const exporter *x, int64_t tid, int64_t t0, int64_t t1)
{
    size_t lo = 0, hi = x->nflows;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (x->flows[mid].tid < tid || (x->flows[mid].tid == tid && x->flows[mid].ts < t0))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < x->nflows && x->flows[lo].tid == tid && x->flows[lo].ts <= t1 ? x->flows[lo].corr : 0;
}

static int event(exporter *x, json_t *e)
{
    const char *ph = sget(e, "ph"), *cat = sget(e, "cat"), *name = sget(e, "name");
    json_t *args = json_object_get(e, "args");
    int64_t pid = iget(e, "pid"), tid = iget(e, "tid");
    int64_t gtid = x->pid * (1ll << 24) + tid;   /* nsys: globalPid + tid */
    if (strcmp(ph, "X") == 0) {
        int64_t t0 = ns(x, json_object_get(e, "ts"));
        int64_t t1 = t0 + (int64_t)llround(json_number_value(json_object_get(e, "dur")) * 1000.0);
        if (json_is_integer(json_object_get(args, "recorded_dur_ns"))) {
            /* the trace drew it at other times (formats/gpu_rows.h): CUPTI's */
            t0 = x->base + iget(args, "recorded_start_ns");
            t1 = t0 + iget(args, "recorded_dur_ns");
        }
        sqlite3_stmt *st;
        if (pid >= GPU_PID_BASE && !strcmp(cat, "kernel")) {
            st = x->kernel;
            const char *mangled = sget(args, "mangled");
            size_t short_len = strcspn(name, "(");
            char *shortn = strndup(name, short_len);
            sqlite3_bind_int64(st, 8, string_id(x, name));
            sqlite3_bind_int64(st, 9, string_id(x, shortn ? shortn : name));
            sqlite3_bind_int64(st, 10, string_id(x, mangled[0] ? mangled : name));
            free(shortn);
            bind_dim3(st, 11, json_object_get(args, "grid"));
            bind_dim3(st, 14, json_object_get(args, "block"));
            sqlite3_bind_int64(st, 17, iget(args, "registers per thread"));
            sqlite3_bind_int64(st, 18, iget(args, "static shared memory"));
            sqlite3_bind_int64(st, 19, iget(args, "dynamic shared memory"));
        } else if (pid >= GPU_PID_BASE && !strcmp(cat, "gpu_memcpy")) {
            st = x->memcpy_;
            sqlite3_bind_int64(st, 8, iget(args, "bytes"));
            sqlite3_bind_int64(st, 9, copy_kind(sget(args, "direction")));
        } else if (pid >= GPU_PID_BASE && !strcmp(cat, "gpu_memset")) {
            st = x->memset_;
            sqlite3_bind_int64(st, 8, iget(args, "value"));
            sqlite3_bind_int64(st, 9, iget(args, "bytes"));
        } else if (!strcmp(cat, "cuda_runtime")) {
            st = x->runtime;
            int64_t corr = flow_corr(x, tid, t0, t1);
            if (!corr)
                corr = iget(args, "correlation");
            sqlite3_bind_int64(st, 1, t0);
            sqlite3_bind_int64(st, 2, t1);
            sqlite3_bind_int64(st, 3, 0);   /* the CUDA runtime's event class */
            sqlite3_bind_int64(st, 4, gtid);
            sqlite3_bind_int64(st, 5, corr);
            sqlite3_bind_int64(st, 6, string_id(x, name));
            sqlite3_bind_int64(st, 7, iget(args, "result"));
            return step(st);
        } else if (!strcmp(cat, "cublas") || !strcmp(cat, "cublaslt")) {
            st = x->cublas;
            sqlite3_bind_int64(st, 1, t0);
            sqlite3_bind_int64(st, 2, t1);
            sqlite3_bind_int64(st, 3, gtid);
            sqlite3_bind_int64(st, 4, string_id(x, name));
            return step(st);
        } else if (!strcmp(cat, "nvtx")) {
            st = x->nvtx;
            sqlite3_bind_int64(st, 1, t0);
            sqlite3_bind_int64(st, 2, t1);
            sqlite3_bind_int64(st, 3, 59);   /* NvtxPushPopRange */
            sqlite3_bind_text(st, 4, name, -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(st, 5, gtid);
            sqlite3_bind_int64(st, 6, 0);
            return step(st);
        } else {
            return 0;   /* syncs, capture windows: no nsys table of their own here */
        }
        sqlite3_bind_int64(st, 1, t0);
        sqlite3_bind_int64(st, 2, t1);
        sqlite3_bind_int64(st, 3, iget(args, "device"));
        sqlite3_bind_int64(st, 4, iget(args, "context"));
        sqlite3_bind_int64(st, 5, iget(args, "stream"));
        sqlite3_bind_int64(st, 6, iget(args, "correlation"));
        sqlite3_bind_int64(st, 7, x->pid * (1ll << 24));   /* globalPid */
        return step(st);
    }
    if (!strcmp(cat, "nvtx") && (!strcmp(ph, "i") || !strcmp(ph, "b"))) {
        sqlite3_stmt *st = x->nvtx;
        int64_t t0 = ns(x, json_object_get(e, "ts"));
        sqlite3_bind_int64(st, 1, t0);
        if (!strcmp(ph, "b")) {
            /* its end: the "e" with the same id2 (found by the caller) */
            json_t *end = json_object_get(e, "__end");
            sqlite3_bind_int64(st, 2, end ? ns(x, end) : t0);
            sqlite3_bind_int64(st, 3, 60);   /* NvtxStartEndRange */
        } else {
            sqlite3_bind_null(st, 2);
            sqlite3_bind_int64(st, 3, 34);   /* NvtxMark */
        }
        sqlite3_bind_text(st, 4, name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 5, gtid);
        sqlite3_bind_int64(st, 6, 0);
        return step(st);
    }
    return 0;
}

static int prepare(exporter *x)
{
    const char *sql[] = {
        "INSERT INTO StringIds VALUES (?,?)",
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?,?,?,?,?,?,?,?,?)",
        "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (?,?,?,?,?,?,?,?,?)",
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,?,?,?,?,?)",
        "INSERT INTO CUBLAS_EVENTS VALUES (?,?,?,?)",
        "INSERT INTO NVTX_EVENTS VALUES (?,?,?,?,?,?)",
    };
    sqlite3_stmt **st[] = {&x->str, &x->kernel, &x->memcpy_, &x->memset_,
                           &x->runtime, &x->cublas, &x->nvtx};
    for (size_t i = 0; i < sizeof sql / sizeof sql[0]; i++)
        if (sqlite3_prepare_v2(x->db, sql[i], -1, st[i], NULL) != SQLITE_OK)
            return -1;
    return 0;
}

static void finalize(exporter *x)
{
    sqlite3_stmt *st[] = {x->str, x->kernel, x->memcpy_, x->memset_, x->runtime, x->cublas, x->nvtx};
    for (size_t i = 0; i < sizeof st / sizeof st[0]; i++)
        sqlite3_finalize(st[i]);
}

/* Pairs each async NVTX "b" with its "e" (args.__end on the "b"). */
static void pair_async(json_t *evs)
{
    json_t *open = json_object();
    size_t i;
    json_t *e;
    json_array_foreach(evs, i, e) {
        const char *ph = sget(e, "ph");
        if (strcmp(ph, "b") && strcmp(ph, "e"))
            continue;
        const char *id = sget(json_object_get(e, "id2"), "local");
        char key[512];
        snprintf(key, sizeof key, "%s|%s|%s", sget(e, "cat"), sget(e, "name"), id);
        if (!strcmp(ph, "b"))
            json_object_set(open, key, e);
        else if (json_object_get(open, key)) {
            json_object_set(json_object_get(open, key), "__end", json_object_get(e, "ts"));
            json_object_del(open, key);
        }
    }
    json_decref(open);
}

/* jansson's read callback over zlib's gzread, which reads a gzip'ed file
 * (trace.json.gz, --gzip) and a plain one alike. */
static size_t gz_read(void *buf, size_t n, void *arg)
{
    int k = gzread((gzFile)arg, buf, n > (1u << 30) ? 1u << 30 : (unsigned)n);
    return k < 0 ? (size_t)-1 : (size_t)k;
}

static int export_sqlite(const char *in, const char *out)
{
    json_error_t jerr;
    gzFile gz = gzopen(in, "rb");
    if (!gz)
        return fail("cannot read the trace", strerror(errno ? errno : ENOENT));
    gzbuffer(gz, 1u << 20);
    json_t *trace = json_load_callback(gz_read, gz, 0, &jerr);
    gzclose(gz);
    if (!trace)
        return fail("cannot read the trace", jerr.text);
    json_t *evs = json_object_get(trace, "traceEvents");
    json_t *od = json_object_get(trace, "otherData");
    if (!json_is_array(evs) || !json_is_integer(json_object_get(trace, "baseTimeNanoseconds"))) {
        json_decref(trace);
        return fail("not a cuprof trace.json (no traceEvents or baseTimeNanoseconds)", in);
    }
    exporter x = {0};
    x.base = iget(trace, "baseTimeNanoseconds");
    x.pid = iget(od, "pid");
    x.strings = json_object();
    x.next_id = 1;
    x.flows = calloc(json_array_size(evs) + 1, sizeof *x.flows);
    size_t i;
    json_t *e;
    json_array_foreach(evs, i, e)
        if (!strcmp(sget(e, "ph"), "s"))
            x.flows[x.nflows++] = (struct flow){iget(e, "tid"), ns(&x, json_object_get(e, "ts")),
                                                iget(e, "id")};
    qsort(x.flows, x.nflows, sizeof *x.flows, cmp_flow);
    pair_async(evs);

    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", out);
    remove(tmp);
    int rc = 0;
    if (sqlite3_open(tmp, &x.db) != SQLITE_OK ||
        sqlite3_exec(x.db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;", NULL, NULL,
                     NULL) != SQLITE_OK ||
        sqlite3_exec(x.db, schema, NULL, NULL, NULL) != SQLITE_OK || prepare(&x) < 0) {
        rc = fail("cannot create the database", sqlite3_errmsg(x.db));
    }
    json_array_foreach(evs, i, e) {
        if (rc)
            break;
        if (event(&x, e) < 0)
            rc = fail("cannot write a row", sqlite3_errmsg(x.db));
    }
    if (!rc) {
        char sql[256];
        snprintf(sql, sizeof sql,
                 "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (NULL, NULL, %lld);",
                 (long long)x.base);
        if (sqlite3_exec(x.db, sql, NULL, NULL, NULL) != SQLITE_OK ||
            sqlite3_exec(x.db, "COMMIT;", NULL, NULL, NULL) != SQLITE_OK)
            rc = fail("cannot write the database", sqlite3_errmsg(x.db));
    }
    finalize(&x);
    sqlite3_close(x.db);
    if (!rc && rename(tmp, out) != 0)
        rc = fail("cannot write", strerror(errno));
    if (rc)
        remove(tmp);
    free(x.flows);
    json_decref(x.strings);
    json_decref(trace);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4 || strcmp(argv[1], "sqlite") != 0) {
        fprintf(stderr, "cuprof: usage: prof.sh export sqlite NAME.trace.json[.gz] [OUT.sqlite]\n");
        return 2;
    }
    const char *in = argv[2];
    char out[4096];
    if (argc == 4) {
        snprintf(out, sizeof out, "%s", argv[3]);
    } else {
        size_t n = strlen(in);
        static const char *const suffixes[] = {".trace.json.gz", ".trace.json"};
        for (int i = 0; i < 2; i++) {
            size_t sl = strlen(suffixes[i]);
            if (n > sl && strcmp(in + n - sl, suffixes[i]) == 0) {
                n -= sl;
                break;
            }
        }
        snprintf(out, sizeof out, "%.*s.sqlite", (int)n, in);
    }
    int rc = export_sqlite(in, out);
    /* quiet as the profiled run was (--export sqlite runs us at its exit) */
    const char *q = getenv("CUPROF_QUIET");
    int quiet = q && (!strcmp(q, "1") || !strcasecmp(q, "yes") || !strcasecmp(q, "true") ||
                      !strcasecmp(q, "on"));
    if (rc == 0 && !quiet)
        fprintf(stderr, "cuprof: wrote %s\n", out);
    return rc;
}
