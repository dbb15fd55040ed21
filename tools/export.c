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
 *
 * In bounded memory whatever the trace's size (issue 40): the trace is read
 * twice, streamed (tools/json_stream.h), each event parsed alone. The first
 * read takes the top-level members (baseTimeNanoseconds, otherData: before
 * or after traceEvents) and the launch arrows' "s" ends into a private
 * temporary SQLite database (a file deleted at close, under SQLITE_TMPDIR,
 * else CUPROF_REPORT_SPILL_DIR, else beside OUT); the
 * second writes the rows in the trace's order, a runtime call's
 * correlationId looked up in that table, an async NVTX range's end set on
 * its row when its "e" comes (the open ones only are kept, by id).
 */
#include "tools/json_stream.h"
#include "tools/progress.h"

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
#include <sys/stat.h>
#include <unistd.h>

#define GPU_PID_BASE (1ll << 30)   /* formats/chrome_trace_int.h */

/* Why a read of the trace stopped (a jstream callback's return). */
enum { STREAM_TRACE = 1, STREAM_SPILL, STREAM_ROW };

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
    uint64_t in_bytes;       /* the trace file's size, for the progress line */
    int64_t pid;
    json_t *strings;         /* value -> id */
    int64_t next_id;
    sqlite3 *spill;          /* the launch arrows' starts (open_spill) */
    sqlite3_stmt *flow_add, *flow_find;
    int flows_of;            /* the traceEvents member flows holds */
    sqlite3_stmt *nvtx_end;  /* an async range's end, on its row */
    json_t *open;            /* async NVTX begins not yet ended: key -> rowid */
    int has_base;            /* baseTimeNanoseconds is an integer */
    int events;              /* traceEvents is an array */
    int nevents_arrays;      /* traceEvents members met in this read */
    int last_events_array;   /* the one that counts (the last, as jansson keeps) */
    int rows;                /* the second read: rows, not arrows */
    char err[512];           /* why an event could not be used */
} exporter;

static int fail(const char *what, const char *detail)
{
    cuprof_progress_hold();   /* (the progress line cleared first) */
    fprintf(stderr, "cuprof: export: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    cuprof_progress_release();
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

/* The correlation id of the arrow leaving [t0, t1] on tid: the first by
 * time, the first written among those at one time (the spill keeps it). */
static int64_t flow_corr(exporter *x, int64_t tid, int64_t t0, int64_t t1)
{
    sqlite3_stmt *st = x->flow_find;
    sqlite3_bind_int64(st, 1, tid);
    sqlite3_bind_int64(st, 2, t0 - x->base);
    int64_t corr = 0;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) <= t1 - x->base)
        corr = sqlite3_column_int64(st, 1);
    sqlite3_reset(st);
    return corr;
}

/* The key pairing an async "b" with its "e". */
static void async_key(json_t *e, char *key, size_t n)
{
    snprintf(key, n, "%s|%s|%s", sget(e, "cat"), sget(e, "name"),
             sget(json_object_get(e, "id2"), "local"));
}

/* An async NVTX "e": its time becomes the end of the open "b" of its key. */
static int async_end(exporter *x, json_t *e)
{
    char key[512];
    async_key(e, key, sizeof key);
    json_t *row = json_object_get(x->open, key);
    json_t *ts = json_object_get(e, "ts");
    if (!row)
        return 0;
    int rc = 0;
    if (ts) {
        sqlite3_bind_int64(x->nvtx_end, 1, ns(x, ts));
        sqlite3_bind_int64(x->nvtx_end, 2, json_integer_value(row));
        rc = step(x->nvtx_end);
    }
    json_object_del(x->open, key);
    return rc;
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
            /* its end: t0 until the "e" with its key comes (async_end) */
            sqlite3_bind_int64(st, 2, t0);
            sqlite3_bind_int64(st, 3, 60);   /* NvtxStartEndRange */
        } else {
            sqlite3_bind_null(st, 2);
            sqlite3_bind_int64(st, 3, 34);   /* NvtxMark */
        }
        sqlite3_bind_text(st, 4, name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 5, gtid);
        sqlite3_bind_int64(st, 6, 0);
        if (step(st) < 0)
            return -1;
        if (!strcmp(ph, "b")) {   /* a later "b" of the key replaces it, unended */
            char key[512];
            async_key(e, key, sizeof key);
            json_object_set_new(x->open, key, json_integer(sqlite3_last_insert_rowid(x->db)));
        }
        return 0;
    }
    if (!strcmp(cat, "nvtx") && !strcmp(ph, "e"))
        return async_end(x, e);
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
        "UPDATE NVTX_EVENTS SET end = ? WHERE rowid = ?",
    };
    sqlite3_stmt **st[] = {&x->str, &x->kernel, &x->memcpy_, &x->memset_, &x->runtime,
                           &x->cublas, &x->nvtx, &x->nvtx_end};
    for (size_t i = 0; i < sizeof sql / sizeof sql[0]; i++)
        if (sqlite3_prepare_v2(x->db, sql[i], -1, st[i], NULL) != SQLITE_OK)
            return -1;
    return 0;
}

static void finalize(exporter *x)
{
    sqlite3_stmt *st[] = {x->str,     x->kernel,  x->memcpy_,   x->memset_,
                          x->runtime, x->cublas,  x->nvtx,      x->flow_add,
                          x->flow_find, x->nvtx_end};
    for (size_t i = 0; i < sizeof st / sizeof st[0]; i++)
        sqlite3_finalize(st[i]);
}

/* The first read: an arrow's "s" end into the spill's flows table. */
static int flow_add(exporter *x, json_t *e)
{
    if (strcmp(sget(e, "ph"), "s") != 0)
        return 0;
    sqlite3_stmt *st = x->flow_add;
    sqlite3_bind_int64(st, 1, iget(e, "tid"));
    sqlite3_bind_int64(st, 2, llround(json_number_value(json_object_get(e, "ts")) * 1000.0));
    sqlite3_bind_int64(st, 3, iget(e, "id"));
    return step(st) < 0 ? STREAM_SPILL : 0;
}

/* jstream: whether key's array is walked (traceEvents: counted). */
static int on_walk(void *arg, const char *key)
{
    exporter *x = arg;
    if (strcmp(key, "traceEvents") != 0)
        return 0;
    x->nevents_arrays++;
    if (!x->rows) {
        x->events = 1;
        x->last_events_array = x->nevents_arrays;
    }
    return 1;
}

/* jstream: a top-level member (the first read): checked, and kept if it is
 * baseTimeNanoseconds or otherData's pid (the last of a repeated key). */
static int on_member(void *arg, const char *key, const char *val, size_t n)
{
    exporter *x = arg;
    json_error_t jerr;
    json_t *v = json_loadb(val, n, JSON_DECODE_ANY, &jerr);
    if (!v) {
        snprintf(x->err, sizeof x->err, "%s (in %.64s)", jerr.text, key);
        return STREAM_TRACE;
    }
    if (!strcmp(key, "traceEvents")) {
        x->events = 0;   /* not an array */
    } else if (!strcmp(key, "baseTimeNanoseconds")) {
        x->has_base = json_is_integer(v);
        x->base = json_integer_value(v);
    } else if (!strcmp(key, "otherData")) {
        x->pid = iget(v, "pid");
    }
    json_decref(v);
    return 0;
}

/* Whether the event's bytes may hold the string value "s" (an arrow's
 * start): written plainly, not as a name (the instants' "s":"p"), or
 * anything escaped. */
static int may_be_arrow(const char *val, size_t n)
{
    if (memchr(val, '\\', n))
        return 1;
    for (const char *p = val, *end = val + n; (p = memmem(p, (size_t)(end - p), "\"s\"", 3));) {
        p += 3;
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
            p++;
        if (p == end || *p != ':')
            return 1;
    }
    return 0;
}

/* jstream: one element of traceEvents, parsed alone. The first read wants
 * the arrows' starts only: other events are left unparsed there (the
 * second read parses, and so checks, every one). */
static int on_event(void *arg, const char *key, const char *val, size_t n)
{
    exporter *x = arg;
    (void)key;
    if (x->rows && x->nevents_arrays != x->last_events_array)
        return 0;
    if (!x->rows && x->flows_of != x->nevents_arrays) {
        /* a repeated traceEvents: the last counts (jansson keeps the last
         * of a repeated key), so the arrows of one before it go */
        x->flows_of = x->nevents_arrays;
        if (x->flows_of > 1 &&
            sqlite3_exec(x->spill, "DELETE FROM flows;", NULL, NULL, NULL) != SQLITE_OK)
            return STREAM_SPILL;
    }
    if (!x->rows && !may_be_arrow(val, n))
        return 0;
    json_error_t jerr;
    json_t *e = json_loadb(val, n, JSON_DECODE_ANY, &jerr);
    if (!e) {
        snprintf(x->err, sizeof x->err, "%s (in an event of traceEvents)", jerr.text);
        return STREAM_TRACE;
    }
    int rc = x->rows ? (event(x, e) < 0 ? STREAM_ROW : 0) : flow_add(x, e);
    json_decref(e);
    return rc;
}

/* How far the two passes are: the first's bytes, then the second's, which
 * writes the rows and takes about 20 times as long (10 M calls: 2 s, 44 s). */
static void on_read(void *arg, unsigned long long off)
{
    const exporter *x = arg;
    cuprof_progress_work(x->rows ? x->in_bytes + 20 * (uint64_t)off : (uint64_t)off,
                         21 * x->in_bytes);
}

/* A read of the trace: 0, or 1 with the cuprof: line said. */
static int read_trace(exporter *x, const char *in, int rows)
{
    static const jstream_ops first = {on_walk, on_event, on_member, on_read};
    static const jstream_ops second = {on_walk, on_event, NULL, on_read};
    char err[512];
    x->rows = rows;
    x->nevents_arrays = 0;
    int rc = jstream_read(in, rows ? &second : &first, x, err, sizeof err);
    switch (rc) {
    case 0: return 0;
    case JSTREAM_NOT_OBJECT: return fail("not a cuprof trace.json (no traceEvents or baseTimeNanoseconds)", in);
    case STREAM_TRACE: return fail("cannot read the trace", x->err);
    case STREAM_SPILL: return fail("cannot keep the launch arrows", sqlite3_errmsg(x->spill));
    case STREAM_ROW: return fail("cannot write a row", sqlite3_errmsg(x->db));
    default: return fail("cannot read the trace", err);
    }
}

/* The spill: a private temporary database (a file, deleted at close) whose
 * flows table holds each arrow's start: (tid, ts from the base in ns), the
 * first written kept among those at one point (as the stable sort of the
 * arrows did), and its id. */
static int open_spill(exporter *x)
{
    if (sqlite3_open("", &x->spill) != SQLITE_OK ||
        sqlite3_exec(x->spill,
                     "PRAGMA cache_size=-16384; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                     "BEGIN; CREATE TABLE flows (tid INTEGER, ts INTEGER, corr INTEGER,"
                     " PRIMARY KEY (tid, ts)) WITHOUT ROWID;",
                     NULL, NULL, NULL) != SQLITE_OK)
        return -1;
    const char *sql[] = {
        "INSERT OR IGNORE INTO flows VALUES (?,?,?)",
        "SELECT ts, corr FROM flows WHERE tid = ? AND ts >= ? ORDER BY ts LIMIT 1",
    };
    sqlite3_stmt **st[] = {&x->flow_add, &x->flow_find};
    for (size_t i = 0; i < 2; i++)
        if (sqlite3_prepare_v2(x->spill, sql[i], -1, st[i], NULL) != SQLITE_OK)
            return -1;
    return 0;
}

/* SQLite's temporary files (the spill) beside the output unless told
 * otherwise (SQLITE_TMPDIR, CUPROF_REPORT_SPILL_DIR): /tmp may be memory.
 * Before SQLite's first use, which reads the variable once. */
static void spill_dir(const char *out)
{
    const char *d = getenv("CUPROF_REPORT_SPILL_DIR");
    if (getenv("SQLITE_TMPDIR"))
        return;
    if (d && d[0]) {
        setenv("SQLITE_TMPDIR", d, 0);
        return;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", out);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = 0;
    else
        *slash = 0;
    setenv("SQLITE_TMPDIR", dir, 0);
}

static int export_sqlite(const char *in, const char *out, int quiet)
{
    errno = 0;
    gzFile gz = gzopen(in, "rb");
    if (!gz)
        return fail("cannot read the trace", strerror(errno ? errno : ENOENT));
    gzclose(gz);
    spill_dir(out);
    exporter x = {0};
    struct stat st;
    x.in_bytes = stat(in, &st) == 0 ? (uint64_t)st.st_size : 0;
    {   /* a day-long run's trace takes minutes: tools/progress.h */
        const char *a = strrchr(in, '/'), *b = strrchr(out, '/');
        char label[600];
        snprintf(label, sizeof label, "export of %.250s to %.250s", a ? a + 1 : in, b ? b + 1 : out);
        cuprof_progress_start_work(label, quiet);
    }
    x.strings = json_object();
    x.open = json_object();
    x.next_id = 1;
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", out);
    int rc = 0;
    if (open_spill(&x) < 0)
        rc = fail("cannot make a temporary database", sqlite3_errmsg(x.spill));
    if (!rc)
        rc = read_trace(&x, in, 0);
    if (!rc && (!x.events || !x.has_base))
        rc = fail("not a cuprof trace.json (no traceEvents or baseTimeNanoseconds)", in);
    if (!rc) {
        remove(tmp);
        if (sqlite3_open(tmp, &x.db) != SQLITE_OK ||
            sqlite3_exec(x.db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;", NULL,
                         NULL, NULL) != SQLITE_OK ||
            sqlite3_exec(x.db, schema, NULL, NULL, NULL) != SQLITE_OK || prepare(&x) < 0)
            rc = fail("cannot create the database", sqlite3_errmsg(x.db));
        if (!rc)
            rc = read_trace(&x, in, 1);
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
    if (x.db) {
        sqlite3_close(x.db);
        if (!rc && rename(tmp, out) != 0)
            rc = fail("cannot write", strerror(errno));
        if (rc)
            remove(tmp);
    }
    sqlite3_close(x.spill);
    json_decref(x.open);
    json_decref(x.strings);
    cuprof_progress_end();
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
    /* quiet as the profiled run was (--export sqlite runs us at its exit) */
    const char *q = getenv("CUPROF_QUIET");
    int quiet = q && (!strcmp(q, "1") || !strcasecmp(q, "yes") || !strcasecmp(q, "true") ||
                      !strcasecmp(q, "on"));
    int rc = export_sqlite(in, out, quiet);
    if (rc == 0 && !quiet)
        fprintf(stderr, "cuprof: wrote %s\n", out);
    return rc;
}
