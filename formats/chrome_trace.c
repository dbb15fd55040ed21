/*
 * chrome_trace.c - NAME.trace.json: the Chrome trace event format (object
 * form), loadable in Perfetto UI and chrome://tracing.
 *
 * One process; one row per thread, named by "M" metadata events; each
 * recorded call is one complete ("X") event with ts/dur in microseconds (three
 * decimals: nanosecond precision), ts from baseTimeNanoseconds (the run's
 * start on the collector's clock: small values keep their ns in a double),
 * so a call made inside another nests under it by time alone. Arguments by event class go
 * into "args" (dim3 values as [x,y,z] arrays); the class itself is a
 * property of the entry point, written once in otherData.api_classes. One
 * event per line, so the file diffs and greps well.
 *
 * Bytes per event are the exit path's cost (bench/RESULTS.md: ~230 bytes
 * per launch, each paid again by the kernel's copy into the page cache), so
 * nothing is repeated that a reader can find once.
 * The GPU lanes, the calls only CUPTI saw and the launch arrows come from
 * chrome_trace_gpu.c, written before the footer.
 */
#include "formats/place.h"
#include "formats/chrome_trace_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cuprof_chrome_next_entry(chrome_writer *cw)
{
    cuprof_out_puts(cw->base.out, cw->any ? ",\n" : "\n");
    cw->any = 1;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static int chrome_header(cuprof_writer *w)
{
    chrome_writer *cw = (chrome_writer *)w;
    cuprof_out *o = w->out;
    const cuprof_run *run = w->run;
    cuprof_out_puts(o, "{\"traceEvents\":[");

    cuprof_chrome_next_entry(cw);
    cuprof_out_puts(o, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":");
    cuprof_out_i64(o, run->pid);
    cuprof_out_puts(o, ",\"tid\":0,\"args\":{\"name\":");
    char rank[48], pname[320];
    if (cuprof_place_rank_label(rank, sizeof rank, run)[0]) {
        snprintf(pname, sizeof pname, "%.255s (%s)", base_name(run->program), rank);
        cuprof_out_json_cstr(o, pname);
    } else {
        cuprof_out_json_cstr(o, base_name(run->program));
    }
    cuprof_out_puts(o, "}}");
    for (size_t t = 0; t < run->nthreads; t++) {
        const cuprof_run_thread *th = &run->threads[t];
        char label[64];
        snprintf(label, sizeof label, "%s%s", th->name[0] ? th->name : "thread",
                 (long)th->tid == run->pid ? " (main)" : "");
        cuprof_chrome_next_entry(cw);
        cuprof_out_puts(o, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":");
        cuprof_out_i64(o, run->pid);
        cuprof_out_puts(o, ",\"tid\":");
        cuprof_out_u64(o, th->tid);
        cuprof_out_puts(o, ",\"args\":{\"name\":");
        cuprof_out_json_cstr(o, label);
        cuprof_out_puts(o, "}}");
        cuprof_chrome_next_entry(cw);
        cuprof_out_puts(o, "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":");
        cuprof_out_i64(o, run->pid);
        cuprof_out_puts(o, ",\"tid\":");
        cuprof_out_u64(o, th->tid);
        cuprof_out_puts(o, ",\"args\":{\"sort_index\":");
        cuprof_out_u64(o, th->index);
        cuprof_out_puts(o, "}}");
    }
    if (run->capture.trigger) {   /* the capture windows' row (put_capture) */
        cuprof_chrome_next_entry(cw);
        cuprof_out_puts(o, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":");
        cuprof_out_i64(o, run->pid);
        cuprof_out_puts(o, ",\"tid\":0,\"args\":{\"name\":\"capture window\"}}");
    }
    return 0;
}

void cuprof_chrome_key(cuprof_out *o, const char *k)
{
    cuprof_out_puts(o, ",\"");
    cuprof_out_puts(o, k);
    cuprof_out_puts(o, "\":");
}

void cuprof_chrome_arg_u64(cuprof_out *o, const char *k, uint64_t v)
{
    cuprof_chrome_key(o, k);
    cuprof_out_u64(o, v);
}

void cuprof_chrome_arg_str(cuprof_out *o, const char *k, const char *v)
{
    cuprof_chrome_key(o, k);
    cuprof_out_json_cstr(o, v);
}

void cuprof_chrome_arg_bool(cuprof_out *o, const char *k, int v)
{
    cuprof_chrome_key(o, k);
    cuprof_out_puts(o, v ? "true" : "false");
}

void cuprof_chrome_arg_hex(cuprof_out *o, const char *k, uint64_t v)
{
    cuprof_chrome_key(o, k);
    cuprof_out_putc(o, '"');
    cuprof_out_hex(o, v);
    cuprof_out_putc(o, '"');
}

void cuprof_chrome_arg_dim3(cuprof_out *o, const char *k, uint64_t x, uint64_t y, uint64_t z)
{
    char buf[80], *p = buf;
    *p++ = ',';
    *p++ = '"';
    size_t kl = strlen(k);
    cuprof_out_write(o, buf, (size_t)(p - buf));
    cuprof_out_write(o, k, kl);
    p = CUPROF_FMT_LIT(buf, "\":[");
    p = cuprof_fmt_u64(p, x);
    *p++ = ',';
    p = cuprof_fmt_u64(p, y);
    *p++ = ',';
    p = cuprof_fmt_u64(p, z);
    *p++ = ']';
    cuprof_out_write(o, buf, (size_t)(p - buf));
}

/* ,"k": but without the comma for the first argument. */
static void arg_key(cuprof_out *o, int *first, const char *k)
{
    if (*first) {
        cuprof_out_putc(o, '"');
        cuprof_out_puts(o, k);
        cuprof_out_puts(o, "\":");
        *first = 0;
    } else {
        cuprof_chrome_key(o, k);
    }
}

static void arg_u64(cuprof_out *o, int *first, const char *k, uint64_t v)
{
    arg_key(o, first, k);
    cuprof_out_u64(o, v);
}

static void arg_str(cuprof_out *o, int *first, const char *k, const char *v)
{
    arg_key(o, first, k);
    cuprof_out_json_cstr(o, v);
}

static void arg_hex(cuprof_out *o, int *first, const char *k, uint64_t v)
{
    arg_key(o, first, k);
    cuprof_out_putc(o, '"');
    cuprof_out_hex(o, v);
    cuprof_out_putc(o, '"');
}

/* The arguments of the classes other than launch (chrome_cpu_events writes
 * those itself), comma-separated. */
static void event_args(cuprof_writer *w, const cuprof_event *ev, uint32_t payload)
{
    cuprof_out *o = w->out;
    int first = 1;
    switch (ev->cls) {
    case CUPROF_EV_LAUNCH:
        arg_str(o, &first, "kernel", cuprof_names_kernel(&w->model->names, ev->a.launch.kernel));
        cuprof_chrome_arg_dim3(o, "grid", ev->a.launch.grid_x, ev->a.launch.grid_y, ev->a.launch.grid_z);
        cuprof_chrome_arg_dim3(o, "block", ev->a.launch.block[0], ev->a.launch.block[1], ev->a.launch.block[2]);
        cuprof_chrome_arg_u64(o, "smem", ev->a.launch.smem);
        cuprof_chrome_arg_hex(o, "stream handle", ev->a.launch.stream);
        break;
    case CUPROF_EV_COPY:
    case CUPROF_EV_MEMSET:
        arg_u64(o, &first, "bytes", ev->a.copy.bytes);
        arg_str(o, &first, "kind", ev->cls == CUPROF_EV_MEMSET ? "memset" : cuprof_dir_name(ev->a.copy.dir));
        arg_hex(o, &first, "stream handle", ev->a.copy.stream);
        arg_key(o, &first, "async");
        cuprof_out_puts(o, ev->a.copy.async ? "true" : "false");
        break;
    case CUPROF_EV_ALLOC:
    case CUPROF_EV_FREE:
        arg_u64(o, &first, "bytes", ev->a.mem.bytes);
        arg_hex(o, &first, "ptr", ev->a.mem.ptr);
        break;
    case CUPROF_EV_SYNC:
    case CUPROF_EV_EVENT: {
        int handle = cuprof_run_sync_handle(w->run, ev);
        if (handle != CUPROF_SYNC_HANDLE_NONE)
            arg_hex(o, &first, handle == CUPROF_SYNC_HANDLE_EVENT ? "event handle" : "stream handle",
                    ev->a.sync.stream);
        break;
    }
    case CUPROF_EV_OCCUPANCY:
        arg_str(o, &first, "kernel", cuprof_names_kernel(&w->model->names, ev->a.occ.kernel));
        arg_key(o, &first, "block_size");
        cuprof_out_i64(o, ev->a.occ.block_size);
        arg_u64(o, &first, "smem", ev->a.occ.smem);
        arg_key(o, &first, "answer");
        cuprof_out_i64(o, ev->a.occ.answer);
        break;
    case CUPROF_EV_BLAS:
        if (!cuprof_ev_is_gemm(ev))
            break;   /* another cuBLAS call: no shape kept */
        arg_u64(o, &first, "m", ev->a.blas.m);
        arg_u64(o, &first, "n", ev->a.blas.n);
        arg_u64(o, &first, "k", ev->a.blas.k);
        arg_u64(o, &first, "batch", ev->a.blas.batch);
        arg_str(o, &first, "dtype", cuprof_dtype_name(ev->a.blas.atype));
        arg_str(o, &first, "ctype", cuprof_dtype_name(ev->a.blas.ctype));
        arg_str(o, &first, "compute", cuprof_compute_name(ev->a.blas.compute));
        arg_str(o, &first, "epilogue", cuprof_epilogue_name(ev->a.blas.epilogue));
        arg_str(o, &first, "transa", cuprof_trans_name(ev->a.blas.transa));
        arg_str(o, &first, "transb", cuprof_trans_name(ev->a.blas.transb));
        arg_key(o, &first, "beta_nonzero");
        cuprof_out_puts(o, ev->a.blas.beta_nonzero ? "true" : "false");
        break;
    case CUPROF_EV_COLL:
        if (ev->a.coll.count || ev->a.coll.nranks) {
            arg_u64(o, &first, "count", ev->a.coll.count);
            arg_str(o, &first, "dtype", cuprof_nccl_dtype_name(ev->a.coll.dtype));
            arg_str(o, &first, "op", cuprof_nccl_op_name(ev->a.coll.op));
            if (ev->a.coll.peer >= 0) {
                arg_key(o, &first, "root/peer");
                cuprof_out_i64(o, ev->a.coll.peer);
            }
            arg_hex(o, &first, "comm", ev->a.coll.comm);
            arg_u64(o, &first, "rank", ev->a.coll.rank);
            arg_u64(o, &first, "nranks", ev->a.coll.nranks);
            arg_hex(o, &first, "stream handle", ev->a.coll.stream);
        }
        break;
    case CUPROF_EV_MATH: {   /* its sizes, joined to its plan's or descriptor's */
        cuprof_math_args ma;
        cuprof_math_field mf[CUPROF_MATH_FIELDS];
        cuprof_math_args_of(w->model->math, w->run, ev, &ma);
        int nf = cuprof_math_fields(&ma, cuprof_run_api_name(w->run, ev->api), mf);
        for (int i = 0; i < nf; i++)
            if (mf[i].str)
                arg_str(o, &first, mf[i].key, mf[i].str);
            else
                arg_u64(o, &first, mf[i].key, mf[i].u);
        break;
    }
    default:
        break;
    }
    if (ev->name)   /* NCCL's call: its algorithm (preload/nccl_plugin.c) */
        arg_str(o, &first, ev->cls == CUPROF_EV_COLL ? "algo" : "symbol", cuprof_run_string(w->run, ev->name));
    if (ev->result != 0) {
        arg_key(o, &first, "result");
        cuprof_out_i64(o, ev->result);
    }
    if (ev->stack)
        arg_u64(o, &first, "stack", ev->stack);
    if (payload)   /* the library's NVTX range folded into the call (model/ranges.h) */
        arg_str(o, &first, "nvtx", cuprof_run_string(w->run, payload));
}

/* A string rendered once (JSON-escaped, with what surrounds it), reused by
 * every event that needs it. */
typedef struct chrome_str {
    char *s;
    size_t n;
} chrome_str;

/* Renders into *cs what fn writes to a memory output; 0 or -1. */
static int render(chrome_str *cs, void (*fn)(cuprof_out *, const void *), const void *arg)
{
    cuprof_out m;
    if (cuprof_out_open_mem(&m) < 0)
        return -1;
    fn(&m, arg);
    if (cuprof_out_commit(&m) < 0) {
        cuprof_out_discard(&m);
        return -1;
    }
    cs->s = m.buf;
    cs->n = m.len;
    return 0;
}

typedef struct prefix_arg {
    const cuprof_run *run;
    uint16_t api;
} prefix_arg;

/* ,\n{"ph":"X","cat":C,"name":N,"pid":P,"tid":  (always after another entry:
 * the header wrote the process name) */
static void put_prefix(cuprof_out *o, const void *arg)
{
    const prefix_arg *pa = arg;
    cuprof_out_puts(o, ",\n{\"ph\":\"X\",\"cat\":");
    cuprof_out_json_cstr(o, cuprof_run_api_category(pa->run, pa->api));
    cuprof_out_puts(o, ",\"name\":");
    cuprof_out_json_cstr(o, cuprof_run_api_name(pa->run, pa->api));
    cuprof_out_puts(o, ",\"pid\":");
    cuprof_out_i64(o, pa->run->pid);
    cuprof_out_puts(o, ",\"tid\":");
}

static void put_json_name(cuprof_out *o, const void *arg)
{
    cuprof_out_json_cstr(o, arg);
}

/* What the CPU events reuse: per API its line's start, per kernel id its
 * JSON name. Entries are rendered on first use. */
typedef struct chrome_cache {
    chrome_str *prefix;      /* [napis + 1]; the last for any api outside the table */
    chrome_str *kname;       /* [nkernels + 1] */
    size_t napis, nkernels;
} chrome_cache;

static void cache_free(chrome_cache *c)
{
    for (size_t i = 0; c->prefix && i <= c->napis; i++)
        free(c->prefix[i].s);
    for (size_t i = 0; c->kname && i <= c->nkernels; i++)
        free(c->kname[i].s);
    free(c->prefix);
    free(c->kname);
}

static const chrome_str *cached_prefix(chrome_cache *c, const cuprof_run *run, uint16_t api)
{
    if (api >= c->napis)
        return NULL;
    chrome_str *cs = &c->prefix[api];
    prefix_arg pa = {run, api};
    if (!cs->s && render(cs, put_prefix, &pa) < 0)
        return NULL;
    return cs;
}

static const chrome_str *cached_kname(chrome_cache *c, const cuprof_names *names, uint32_t id)
{
    if (id > c->nkernels)
        id = 0;   /* cuprof_names_kernel's "(unknown kernel)" */
    chrome_str *cs = &c->kname[id];
    if (!cs->s && render(cs, put_json_name, cuprof_names_kernel(names, id)) < 0)
        return NULL;
    return cs;
}

/* Room for the fixed-size parts of a line: tid, ts, dur, dim3s, smem,
 * stream, result and the literals around them. */
#define CHROME_LINE_ROOM 512

/* A launch's arguments after the kernel name, and the line's end. */
static char *launch_tail(char *p, const cuprof_event *ev)
{
    p = CUPROF_FMT_LIT(p, ",\"grid\":[");
    p = cuprof_fmt_u64(p, ev->a.launch.grid_x);
    *p++ = ',';
    p = cuprof_fmt_u64(p, ev->a.launch.grid_y);
    *p++ = ',';
    p = cuprof_fmt_u64(p, ev->a.launch.grid_z);
    p = CUPROF_FMT_LIT(p, "],\"block\":[");
    p = cuprof_fmt_u64(p, ev->a.launch.block[0]);
    *p++ = ',';
    p = cuprof_fmt_u64(p, ev->a.launch.block[1]);
    *p++ = ',';
    p = cuprof_fmt_u64(p, ev->a.launch.block[2]);
    p = CUPROF_FMT_LIT(p, "],\"smem\":");
    p = cuprof_fmt_u64(p, ev->a.launch.smem);
    p = CUPROF_FMT_LIT(p, ",\"stream handle\":\"");
    p = cuprof_fmt_hex(p, ev->a.launch.stream);
    *p++ = '"';
    if (ev->stack) {
        p = CUPROF_FMT_LIT(p, ",\"stack\":");
        p = cuprof_fmt_u64(p, ev->stack);
    }
    if (ev->result != 0) {
        p = CUPROF_FMT_LIT(p, ",\"result\":");
        if (ev->result < 0) {
            *p++ = '-';
            p = cuprof_fmt_u64(p, (uint64_t)0 - (uint64_t)(int64_t)ev->result);
        } else {
            p = cuprof_fmt_u64(p, (uint64_t)ev->result);
        }
    }
    *p++ = '}';
    *p++ = '}';
    return p;
}

/* One recorded call: an "X" event on its thread's row. The fixed-size parts
 * are formatted in place in the output buffer, the names copied from the
 * cache (this loop is most of the exit path: bench/RESULTS.md). */
static void cpu_event(chrome_writer *cw, chrome_cache *c, const cuprof_run_thread *th,
                      const cuprof_event *ev, uint32_t payload)
{
    cuprof_writer *w = &cw->base;
    cuprof_out *o = w->out;
    const chrome_str *pre = cached_prefix(c, w->run, ev->api);
    if (pre) {
        cuprof_out_write(o, pre->s, pre->n);
    } else {   /* outside the API table, or out of memory: the slow way */
        prefix_arg pa = {w->run, ev->api};
        put_prefix(o, &pa);
    }
    if (o->cap - o->len < CHROME_LINE_ROOM && cuprof_out_reserve(o, CHROME_LINE_ROOM) < 0)
        return;
    char *p = o->buf + o->len;
    p = cuprof_fmt_u64(p, th->tid);
    p = CUPROF_FMT_LIT(p, ",\"ts\":");
    p = cuprof_fmt_ns_as_us(p, cuprof_chrome_rel(cw, ev->t0));
    p = CUPROF_FMT_LIT(p, ",\"dur\":");
    p = cuprof_fmt_ns_as_us(p, ev->t1 > ev->t0 ? ev->t1 - ev->t0 : 0);
    if (ev->stack && cw->sf && ev->stack <= w->run->nstacks) {
        p = CUPROF_FMT_LIT(p, ",\"sf\":");
        p = cuprof_fmt_u64(p, cw->sf[ev->stack]);
    }
    p = CUPROF_FMT_LIT(p, ",\"args\":{");
    const chrome_str *kn;
    if (ev->cls == CUPROF_EV_LAUNCH && !payload &&
        (kn = cached_kname(c, &w->model->names, ev->a.launch.kernel))) {
        p = CUPROF_FMT_LIT(p, "\"kernel\":");
        o->len = (size_t)(p - o->buf);
        cuprof_out_write(o, kn->s, kn->n);
        if (o->cap - o->len < CHROME_LINE_ROOM && cuprof_out_reserve(o, CHROME_LINE_ROOM) < 0)
            return;
        o->len = (size_t)(launch_tail(o->buf + o->len, ev) - o->buf);
        return;
    }
    o->len = (size_t)(p - o->buf);
    event_args(w, ev, payload);
    cuprof_out_puts(o, "}}");
}

/* An nvtxMark: an instant on its thread's row. */
static void nvtx_mark(chrome_writer *cw, const cuprof_run_thread *th, const cuprof_event *ev)
{
    cuprof_writer *w = &cw->base;
    cuprof_out *o = w->out;
    cuprof_out_puts(o, ",\n{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"nvtx\",\"name\":");
    cuprof_out_json_cstr(o, cuprof_run_string(w->run, ev->a.nvtx.name));
    cuprof_out_puts(o, ",\"pid\":");
    cuprof_out_i64(o, w->run->pid);
    cuprof_out_puts(o, ",\"tid\":");
    cuprof_out_u64(o, th->tid);
    cuprof_out_puts(o, ",\"ts\":");
    cuprof_out_ns_as_us(o, cuprof_chrome_rel(cw, ev->t0));
    cuprof_out_puts(o, ",\"args\":{\"domain\":");
    cuprof_out_json_cstr(o, cuprof_run_string(w->run, ev->a.nvtx.domain));
    if (ev->a.nvtx.id) {   /* a mark's id: its payload's text */
        cuprof_out_puts(o, ",\"payload\":");
        cuprof_out_json_cstr(o, cuprof_run_string(w->run, (uint32_t)ev->a.nvtx.id));
    }
    cuprof_out_puts(o, "}}");
}

/* The capture windows: one slice each on a row of their own (tid 0), so
 * the trace shows what was recorded and the gaps that were not. */
static void put_capture(chrome_writer *cw)
{
    const cuprof_run *run = cw->base.run;
    cuprof_out *o = cw->base.out;
    const cuprof_capture *cap = &run->capture;
    for (size_t i = 0; cap->trigger && i < cap->nwindows; i++) {
        cuprof_out_puts(o, ",\n{\"ph\":\"X\",\"cat\":\"capture\",\"name\":\"capture window ");
        cuprof_out_u64(o, i + 1);
        cuprof_out_puts(o, "\",\"pid\":");
        cuprof_out_i64(o, run->pid);
        cuprof_out_puts(o, ",\"tid\":0,\"ts\":");
        cuprof_out_ns_as_us(o, cuprof_chrome_rel(cw, cap->windows[i][0]));
        cuprof_out_puts(o, ",\"dur\":");
        cuprof_out_ns_as_us(o, cap->windows[i][1] - cap->windows[i][0]);
        cuprof_out_puts(o, ",\"args\":{\"trigger\":");
        cuprof_out_json_cstr(o, cap->trigger);
        cuprof_out_puts(o, "}}");
    }
}

/* "CUDA memory allocated": the device memory the program held
 * (model/memory.h), a counter event ("C") per change, as Perfetto and
 * chrome://tracing draw counters; one value per time. */
static void put_memory(chrome_writer *cw)
{
    cuprof_out *o = cw->base.out;
    const cuprof_memory *mm = cw->base.model->memory;
    int64_t held = 0;
    for (size_t i = 0; mm && i < mm->nsteps; i++) {
        held += mm->steps[i].delta;
        if (i + 1 < mm->nsteps && mm->steps[i + 1].t == mm->steps[i].t)
            continue;
        cuprof_out_puts(o, ",\n{\"ph\":\"C\",\"name\":\"CUDA memory allocated\",\"pid\":");
        cuprof_out_i64(o, cw->base.run->pid);
        cuprof_out_puts(o, ",\"tid\":0,\"ts\":");
        cuprof_out_ns_as_us(o, cuprof_chrome_rel(cw, mm->steps[i].t));
        cuprof_out_puts(o, ",\"args\":{\"bytes\":");
        cuprof_out_i64(o, held);
        cuprof_out_puts(o, "}}");
    }
}

/* NVTX ranges: push ranges as slices on their thread's row (they nest with
 * the calls inside them), start/end ranges as async slices (b/e) opened on
 * their starting thread, since they may end on another thread. */
static void put_ranges(chrome_writer *cw)
{
    cuprof_writer *w = &cw->base;
    cuprof_out *o = w->out;
    const cuprof_ranges *rg = w->model->ranges;
    for (size_t k = 0; rg && k < rg->n; k++) {
        const cuprof_range *r = &rg->r[k];
        const char *name = cuprof_run_string(w->run, r->name);
        if (r->folded)   /* shown as the call it names (cpu_event's "nvtx") */
            continue;
        if (r->start_end) {
            for (int e = 0; e < 2; e++) {
                cuprof_out_puts(o, e ? ",\n{\"ph\":\"e\"" : ",\n{\"ph\":\"b\"");
                cuprof_out_puts(o, ",\"cat\":\"nvtx\",\"id2\":{\"local\":\"");
                cuprof_out_u64(o, k);
                cuprof_out_puts(o, "\"},\"name\":");
                cuprof_out_json_cstr(o, name[0] ? name : "(unnamed)");
                cuprof_out_puts(o, ",\"pid\":");
                cuprof_out_i64(o, w->run->pid);
                cuprof_out_puts(o, ",\"tid\":");
                cuprof_out_u64(o, w->run->threads[r->thread].tid);
                cuprof_out_puts(o, ",\"ts\":");
                cuprof_out_ns_as_us(o, cuprof_chrome_rel(cw, e ? r->t1 : r->t0));
                cuprof_out_putc(o, '}');
            }
            continue;
        }
        cuprof_out_puts(o, ",\n{\"ph\":\"X\",\"cat\":\"nvtx\",\"name\":");
        cuprof_out_json_cstr(o, name[0] ? name : "(unnamed)");
        cuprof_out_puts(o, ",\"pid\":");
        cuprof_out_i64(o, w->run->pid);
        cuprof_out_puts(o, ",\"tid\":");
        cuprof_out_u64(o, w->run->threads[r->thread].tid);
        cuprof_out_puts(o, ",\"ts\":");
        cuprof_out_ns_as_us(o, cuprof_chrome_rel(cw, r->t0));
        cuprof_out_puts(o, ",\"dur\":");
        cuprof_out_ns_as_us(o, r->t1 > r->t0 ? r->t1 - r->t0 : 0);
        cuprof_out_puts(o, ",\"args\":{\"domain\":");
        cuprof_out_json_cstr(o, cuprof_run_string(w->run, r->domain));
        cuprof_out_puts(o, ",\"gpu_ns\":");
        cuprof_out_u64(o, r->gpu_ns);
        cuprof_out_puts(o, ",\"kernels\":");
        cuprof_out_u64(o, r->kernels);
        if (!r->closed)
            cuprof_out_puts(o, ",\"open_at_exit\":true");
        if (r->payload) {
            cuprof_out_puts(o, ",\"payload\":");
            cuprof_out_json_cstr(o, cuprof_run_string(w->run, r->payload));
        }
        cuprof_out_puts(o, "}}");
    }
}

/* The Python function slices of thread t (model/stacks.h: derived from the
 * stacks of consecutive calls, not from a tracer), as Kineto's
 * python_function events; written before the thread's calls so a viewer
 * that keeps the file's order for equal times nests the calls inside. *k:
 * the next slice (they are sorted by thread). */
static void put_py_slices(chrome_writer *cw, size_t t, size_t *k)
{
    const cuprof_stacks *sk = cw->base.model->stacks;
    const cuprof_run *run = cw->base.run;
    cuprof_out *o = cw->base.out;
    for (; sk && *k < sk->nslices && sk->slices[*k].thread <= t; (*k)++) {
        const cuprof_py_slice *x = &sk->slices[*k];
        if (x->thread != t)
            continue;
        const cuprof_run_frame *f = &run->frames[x->frame];
        cuprof_out_puts(o, ",\n{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":");
        cuprof_out_json_cstr(o, f->symbol ? f->symbol : "?");
        cuprof_out_puts(o, ",\"pid\":");
        cuprof_out_i64(o, run->pid);
        cuprof_out_puts(o, ",\"tid\":");
        cuprof_out_u64(o, run->threads[t].tid);
        cuprof_out_puts(o, ",\"ts\":");
        cuprof_out_ns_as_us(o, cuprof_chrome_rel(cw, x->t0));
        cuprof_out_puts(o, ",\"dur\":");
        cuprof_out_ns_as_us(o, x->t1 - x->t0);
        cuprof_out_puts(o, ",\"args\":{\"file\":");
        cuprof_out_json_cstr(o, f->file ? f->file : "");
        cuprof_out_puts(o, ",\"line\":");
        cuprof_out_u64(o, f->line);
        cuprof_out_puts(o, ",\"source\":\"derived from the calls' stacks\"}}");
    }
}

/* Every recorded call, thread by thread, in order; each API's class is
 * noted in classes[] (by api) for otherData. Walks the chunks directly (no
 * per-event callback or division). Returns 0, or -1 on out of memory. */
static int chrome_cpu_events(chrome_writer *cw, uint8_t *classes, size_t nclasses)
{
    const cuprof_run *run = cw->base.run;
    chrome_cache c = {calloc(run->napis + 1, sizeof(chrome_str)),
                      calloc((size_t)run->nkernels + 1, sizeof(chrome_str)), run->napis,
                      run->nkernels};
    if (!c.prefix || !c.kname) {
        cache_free(&c);
        return -1;
    }
    size_t next_slice = 0;
    for (size_t t = 0; t < run->nthreads && !cw->base.out->err; t++) {
        const cuprof_run_thread *th = &run->threads[t];
        put_py_slices(cw, t, &next_slice);
        for (uint64_t i = 0; i < th->n; i++) {
            /* (again each call: cpu_event may read other blocks, run.h) */
            const cuprof_event *ev = cuprof_run_event(th, i);
            if (cuprof_ev_is_nvtx(ev->cls)) {   /* NVTX: put_ranges */
                if (ev->cls == CUPROF_EV_MARK)
                    nvtx_mark(cw, th, ev);
                continue;
            }
            if (ev->api < nclasses)
                classes[ev->api] = ev->cls + 1;
            cpu_event(cw, &c, th, ev, cuprof_ranges_call_payload(cw->base.model->ranges, t, i));
        }
    }
    put_ranges(cw);
    put_capture(cw);
    put_memory(cw);
    cw->any = 1;
    cache_free(&c);
    return 0;
}

/* "api_classes":{"cudaLaunchKernel":"launch",...}: the event class of each
 * entry point's calls in the trace (an entry point's calls all have one). */
static void put_classes(cuprof_writer *w, const uint8_t *classes, size_t n)
{
    cuprof_out *o = w->out;
    cuprof_out_puts(o, ",\"api_classes\":{");
    int first = 1;
    for (size_t a = 0; a < n; a++) {
        if (!classes[a])
            continue;
        if (!first)
            cuprof_out_putc(o, ',');
        first = 0;
        cuprof_out_json_cstr(o, cuprof_run_api_name(w->run, (uint16_t)a));
        cuprof_out_putc(o, ':');
        cuprof_out_json_cstr(o, cuprof_class_name((uint8_t)(classes[a] - 1)));
    }
    cuprof_out_putc(o, '}');
}

static void put_stack_frames(chrome_writer *cw);

/* The events (CPU rows, then the GPU side) and otherData. */
static int chrome_footer(cuprof_writer *w)
{
    cuprof_out *o = w->out;
    const cuprof_run *run = w->run;
    uint8_t *classes = calloc(UINT16_MAX + 1, 1);   /* [api]: class + 1, 0 = no call */
    if (!classes || chrome_cpu_events((chrome_writer *)w, classes, UINT16_MAX + 1) < 0 ||
        cuprof_chrome_gpu_events((chrome_writer *)w) < 0) {
        free(classes);
        return -1;
    }
    /* ts are relative to baseTimeNanoseconds (Kineto's key), here the run's
     * start on its clock (otherData.clock). */
    cuprof_out_puts(o, "\n],\n\"displayTimeUnit\":\"ns\",\n\"baseTimeNanoseconds\":");
    cuprof_out_u64(o, ((chrome_writer *)w)->t_base);
    cuprof_out_puts(o, ",\n\"otherData\":{\"tool\":\"cuprof\",\"version\":");
    cuprof_out_json_cstr(o, cuprof_run_version(run));
    cuprof_out_puts(o, ",\"program\":");
    cuprof_out_json_cstr(o, run->program);
    cuprof_out_puts(o, ",\"argv\":[");
    for (int i = 0; i < run->argc; i++) {
        if (i)
            cuprof_out_putc(o, ',');
        cuprof_out_json_cstr(o, run->argv[i]);
    }
    cuprof_out_puts(o, "],\"pid\":");
    cuprof_out_i64(o, run->pid);
    cuprof_out_puts(o, ",\"clock\":");
    cuprof_out_json_cstr(o, run->clock);
    cuprof_out_puts(o, ",\"start_us\":");
    cuprof_out_ns_as_us(o, run->t_start);
    cuprof_out_puts(o, ",\"wall_ns\":");
    cuprof_out_u64(o, run->wall_ns);
    cuprof_out_puts(o, ",\"events\":");
    cuprof_out_u64(o, run->nevents);
    cuprof_out_puts(o, ",\"dropped\":");
    cuprof_out_u64(o, run->dropped);
    if (run->capture.trigger) {
        cuprof_out_puts(o, ",\"capture\":{\"trigger\":");
        cuprof_out_json_cstr(o, run->capture.trigger);
        cuprof_out_puts(o, ",\"spec\":");
        cuprof_out_json_cstr(o, run->capture.spec);
        cuprof_out_puts(o, ",\"windows\":");
        cuprof_out_u64(o, run->capture.opened);
        cuprof_out_puts(o, ",\"recorded_ns\":");
        cuprof_out_u64(o, cuprof_capture_recorded_ns(&run->capture));
        cuprof_out_putc(o, '}');
    }
    cuprof_out_puts(o, ",\"distributed\":");
    cuprof_put_place(o, run);
    cuprof_out_puts(o, ",\"gpu_timeline\":{\"captured\":");
    cuprof_out_puts(o, run->gpu.captured ? "true" : "false");
    cuprof_out_puts(o, ",\"reason\":");
    cuprof_out_json_cstr(o, run->gpu.reason ? run->gpu.reason : "");
    cuprof_out_putc(o, '}');
    if (run->stacks_mode) {
        cuprof_out_puts(o, ",\"stacks\":{\"mode\":");
        cuprof_out_json_cstr(o, run->stacks_mode);
        cuprof_out_puts(o, ",\"stacks\":");
        cuprof_out_u64(o, run->nstacks);
        cuprof_out_puts(o, ",\"lost\":");
        cuprof_out_u64(o, run->stacks_lost);
        cuprof_out_putc(o, '}');
    }
    put_classes(w, classes, UINT16_MAX + 1);
    free(classes);
    cuprof_out_putc(o, '}');
    put_stack_frames((chrome_writer *)w);
    cuprof_put_distributed_info(o, run);
    cuprof_out_puts(o, "\n}\n");
    return 0;
}

/* The host stacks as the Trace Event Format's "stackFrames": stack s is a
 * chain of nodes, outermost first, from sf_base(s); its calls' "sf" names
 * the innermost. Node names are the frames' (model/stacks.h, with file:line
 * when known), categories their objects ("python" for a Python frame). */
static int stack_frames_index(chrome_writer *cw)
{
    const cuprof_run *run = cw->base.run;
    if (!run->stacks || run->nstacks == 0 || !cw->base.model->stacks)
        return 0;
    cw->sf = calloc((size_t)run->nstacks + 1, sizeof *cw->sf);
    if (!cw->sf)
        return -1;
    uint64_t next = 1;
    for (uint32_t id = 1; id <= run->nstacks; id++) {
        uint32_t n = run->stacks[id].n;
        cw->sf[id] = n ? next + n - 1 : 0;
        next += n;
    }
    return 0;
}

static void put_stack_frames(chrome_writer *cw)
{
    const cuprof_run *run = cw->base.run;
    const cuprof_stacks *st = cw->base.model->stacks;
    cuprof_out *o = cw->base.out;
    if (!cw->sf)
        return;
    cuprof_out_puts(o, ",\n\"stackFrames\":{");
    uint64_t node = 1;
    for (uint32_t id = 1; id <= run->nstacks; id++) {
        const cuprof_run_stack *s = &run->stacks[id];
        for (uint32_t k = s->n; k > 0; k--, node++) {
            uint32_t f = s->frames[k - 1];
            cuprof_out_puts(o, node > 1 ? ",\"" : "\"");
            cuprof_out_u64(o, node);
            cuprof_out_puts(o, "\":{\"name\":");
            cuprof_out_json_cstr(o, st->frame[f]);
            cuprof_out_puts(o, ",\"category\":");
            cuprof_out_json_cstr(o, run->frames[f].python ? "python" : st->module[f]);
            if (k < s->n) {
                cuprof_out_puts(o, ",\"parent\":\"");
                cuprof_out_u64(o, node - 1);
                cuprof_out_putc(o, '"');
            }
            cuprof_out_putc(o, '}');
        }
    }
    cuprof_out_putc(o, '}');
}

/* The metadata, then the events and otherData. */
static int chrome_write(cuprof_writer *w)
{
    chrome_writer *cw = (chrome_writer *)w;
    cw->t_base = w->run->t_start;
    int rc = stack_frames_index(cw);
    if (rc == 0)
        rc = chrome_header(w);
    if (rc == 0)
        rc = chrome_footer(w);
    free(cw->sf);
    cw->sf = NULL;
    return rc;
}

const cuprof_writer_ops cuprof_chrome_trace_ops = {
    .suffix = "trace.json",
    .size = sizeof(chrome_writer),
    .write = chrome_write,
    .wanted = cuprof_trace_json_wanted,
};

const cuprof_writer_ops cuprof_chrome_trace_gz_ops = {
    .suffix = "trace.json.gz",
    .size = sizeof(chrome_writer),
    .write = chrome_write,
    .wanted = cuprof_trace_json_gz_wanted,
    .plain = &cuprof_chrome_trace_ops,
};
