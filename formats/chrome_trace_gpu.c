/*
 * chrome_trace_gpu.c - the GPU side of NAME.trace.json.
 *
 *  - One trace process per device ("GPU 0", pid CHROME_GPU_PID_BASE + device),
 *    one row per stream ("stream 7", tid = stream id). Perfetto drops "X"
 *    events that overlap on one row, so a record that starts before the
 *    previous one on its stream ended (programmatic dependent launch, clock
 *    jitter) goes to the first of the rows "stream 7 (overlap)",
 *    "stream 7 (overlap 2)", ... where it fits (tid 2^31 - 1 - (stream * 16
 *    + k): viewers keep 32 bits; gpu_rows.h).
 *  - Kernels, copies and memsets are "X" events with their CUPTI arguments.
 *  - Runtime calls only CUPTI saw (model/timeline.h) are "X" events on
 *    the CPU row of their thread, nested by time under the hooked call they
 *    ran in, cat "cuda_runtime", args.source "cupti".
 *  - Synchronizations CUPTI recorded are "X" events (cat "cuda_sync") on the
 *    CPU row of the thread that waited, inside its synchronize call.
 *  - NCCL's collectives on a row of their own per communicator (and rank) in the GPU's
 *    process ("NCCL comm 0x... (rank 0 of 4)", tid COMM_TID_BASE + its
 *    index, 8 overlap rows above it): each collective call as one "X" event
 *    (cat "nccl") over the device work charged to it (its group's, in one),
 *    with its sequence number on the communicator, size and algorithm.
 *  - Arrows from each launching call to its kernel, and from each copy call
 *    to its copy: flow events as Kineto writes them ("s" on the CPU call, "f"
 *    with "bp":"e" on the device record, cat "ac2g", id = correlation id),
 *    and at each end a process-scoped instant "ac2g" the DevTools engine
 *    binds the arrow to (put_flow_anchor).
 */
#include "formats/chrome_trace_int.h"
#include "formats/gpu_rows.h"
#include "formats/units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef cuprof_gpu_row_item gpu_item;
#define MAX_SUB CUPROF_GPU_MAX_ROWS

/* tid of a stream's row: the stream id for its own row; an overlap row's
 * counts down from INT32_MAX (2^31 - 1 - (stream * 16 + row)), since
 * viewers keep 32 bits of a tid and stream ids are small. */
static uint64_t row_tid(uint32_t stream, uint32_t sub)
{
    if (sub == 0)
        return stream;
    return 0x7fffffffu - ((uint64_t)(stream & 0x7ffffff) * MAX_SUB + sub) % 0x7fffffffu;
}

static void put_pid_tid(cuprof_out *o, int64_t pid, uint64_t tid)
{
    cuprof_out_puts(o, ",\"pid\":");
    cuprof_out_i64(o, pid);
    cuprof_out_puts(o, ",\"tid\":");
    cuprof_out_u64(o, tid);
}

static void meta(chrome_writer *cw, const char *what, int64_t pid, uint64_t tid, const char *argk,
                 const char *name, int64_t sort)
{
    cuprof_out *o = cw->base.out;
    cuprof_chrome_next_entry(cw);
    cuprof_out_puts(o, "{\"ph\":\"M\",\"name\":\"");
    cuprof_out_puts(o, what);
    cuprof_out_putc(o, '"');
    put_pid_tid(o, pid, tid);
    cuprof_out_puts(o, ",\"args\":{\"");
    cuprof_out_puts(o, argk);
    cuprof_out_puts(o, "\":");
    if (name)
        cuprof_out_json_cstr(o, name);
    else
        cuprof_out_i64(o, sort);
    cuprof_out_puts(o, "}}");
}

/* Process and row names for every (device, stream, overlap row) used. */
static void lane_metadata(chrome_writer *cw, const cuprof_gpu_rows *rows)
{
    char label[64];
    uint32_t announced = 0;   /* overlap rows of the current stream named so far */
    gpu_item prev = {0};
    for (size_t i = 0; i < rows->n; i++) {
        const gpu_item x = cuprof_gpu_rows_at(rows, i);
        int64_t pid = CHROME_GPU_PID_BASE + x.device;
        if (i == 0 || x.device != prev.device) {
            snprintf(label, sizeof label, "GPU %u", x.device);
            meta(cw, "process_name", pid, 0, "name", label, 0);
            meta(cw, "process_sort_index", pid, 0, "sort_index", NULL, 1000 + x.device);
        }
        if (i == 0 || x.device != prev.device || x.stream != prev.stream)
            announced = 0;
        uint32_t sub = x.sub;
        prev = x;
        if (announced & (1u << sub))
            continue;
        announced |= 1u << sub;
        if (x.stream == CUPROF_GPU_NO_STREAM)
            snprintf(label, sizeof label, "stream ?");
        else
            snprintf(label, sizeof label, "stream %u", x.stream);
        if (sub == 1)
            snprintf(label + strlen(label), sizeof label - strlen(label), " (overlap)");
        else if (sub > 1)
            snprintf(label + strlen(label), sizeof label - strlen(label), " (overlap %u)", sub);
        meta(cw, "thread_name", pid, row_tid(x.stream, sub), "name", label, 0);
        meta(cw, "thread_sort_index", pid, row_tid(x.stream, sub), "sort_index", NULL,
             (int64_t)(x.stream % 1000000) * MAX_SUB + sub);
    }
}

static void x_head(chrome_writer *cw, const char *cat, const char *name, int64_t pid,
                   uint64_t tid, uint64_t t0, uint64_t t1)
{
    cuprof_out *o = cw->base.out;
    cuprof_out_puts(o, "{\"ph\":\"X\",\"cat\":\"");
    cuprof_out_puts(o, cat);
    cuprof_out_puts(o, "\",\"name\":");
    cuprof_out_json_cstr(o, name);
    put_pid_tid(o, pid, tid);
    cuprof_out_puts(o, ",\"ts\":");
    cuprof_out_ns_as_us(o, cuprof_chrome_rel(cw, t0));
    cuprof_out_puts(o, ",\"dur\":");
    cuprof_out_ns_as_us(o, t1 > t0 ? t1 - t0 : 0);
}

/* Where the row shows a record at other times than CUPTI's (gpu_rows.h:
 * rounding overlaps, touching records), the recorded ones, in ns from the
 * base: readers that need the exact times (prof.sh export) take these. */
static void put_recorded(chrome_writer *cw, const gpu_item *it, uint64_t t0, uint64_t t1)
{
    if (it->start == t0 && it->end == t1)
        return;
    cuprof_chrome_arg_u64(cw->base.out, "recorded_start_ns", cuprof_chrome_rel(cw, t0));
    cuprof_chrome_arg_u64(cw->base.out, "recorded_dur_ns", t1 > t0 ? t1 - t0 : 0);
}

/* "range": the innermost NVTX range the work was launched in, if any. */
static void put_range_arg(chrome_writer *cw, const gpu_item *it)
{
    const cuprof_ranges *rg = cw->base.model->ranges;
    const int32_t *of = rg ? (it->is_copy ? rg->copy_range : rg->kernel_range) : NULL;
    if (of && of[it->idx] >= 0)
        cuprof_chrome_arg_str(cw->base.out, "range",
                              cuprof_run_string(cw->base.run, rg->r[of[it->idx]].name));
}

static void put_kernel(chrome_writer *cw, const cuprof_gpu_kernel *k, const char *display,
                       const gpu_item *it, uint64_t ext)
{
    cuprof_out *o = cw->base.out;
    cuprof_chrome_next_entry(cw);
    x_head(cw, "kernel", display, CHROME_GPU_PID_BASE + k->device,
           row_tid(k->stream, it->sub), it->start, it->end);
    cuprof_out_puts(o, ",\"args\":{\"correlation\":");
    cuprof_out_u64(o, k->corr);
    cuprof_chrome_arg_u64(o, "External id", ext);
    cuprof_chrome_arg_u64(o, "device", k->device);
    cuprof_chrome_arg_u64(o, "context", k->context);
    cuprof_chrome_arg_u64(o, "stream", k->stream);
    const cuprof_gpu_launch_cfg *cf = cuprof_gpu_cfg(cw->base.model->timeline->gpu, k);
    cuprof_chrome_arg_dim3(o, "grid", cf->grid[0], cf->grid[1], cf->grid[2]);
    cuprof_chrome_arg_dim3(o, "block", cf->block[0], cf->block[1], cf->block[2]);
    cuprof_chrome_arg_u64(o, "registers per thread", cf->registers);
    cuprof_chrome_arg_u64(o, "static shared memory", cf->static_smem);
    cuprof_chrome_arg_u64(o, "dynamic shared memory", cf->dynamic_smem);
    if (k->graph) {   /* a graph's replay: which graph, node, and where it was captured */
        cuprof_chrome_arg_u64(o, "graph", k->graph_id ? k->graph_id : 1);
        if (k->graph_node_id)
            cuprof_chrome_arg_u64(o, "graph node", k->graph_node_id);
        const char *origin = cuprof_graphs_origin(cw->base.model->graphs, k->graph_node_id);
        if (origin)
            cuprof_chrome_arg_str(o, "captured from", origin);
    }
    if (k->device_launched)
        cuprof_chrome_arg_u64(o, "device launched", 1);
    if (strcmp(display, k->name) != 0)
        cuprof_chrome_arg_str(o, "mangled", k->name);
    put_recorded(cw, it, k->start_ns, k->end_ns);
    put_range_arg(cw, it);
    cuprof_out_puts(o, "}}");
}

/* bytes/ns = GB/s, with two decimals, without printf's locale. */
static void put_gbps(cuprof_out *o, uint64_t bytes, uint64_t ns)
{
    cuprof_chrome_key(o, "GB/s");
    uint64_t centi = ns ? (uint64_t)((double)bytes * 100.0 / (double)ns + 0.5) : 0;
    cuprof_out_u64(o, centi / 100);
    cuprof_out_putc(o, '.');
    cuprof_out_putc(o, (char)('0' + centi / 10 % 10));
    cuprof_out_putc(o, (char)('0' + centi % 10));
}

static void put_copy(chrome_writer *cw, const cuprof_gpu_copy *c, const gpu_item *it,
                     uint64_t ext)
{
    cuprof_out *o = cw->base.out;
    char name[96];
    int memset_ = c->kind == CUPROF_GPU_COPY_MEMSET;
    cuprof_gpu_copy_label(c, name, sizeof name);
    cuprof_chrome_next_entry(cw);
    x_head(cw, memset_ ? "gpu_memset" : "gpu_memcpy", name, CHROME_GPU_PID_BASE + c->device,
           row_tid(c->stream, it->sub), it->start, it->end);
    cuprof_out_puts(o, ",\"args\":{\"correlation\":");
    cuprof_out_u64(o, c->corr);
    cuprof_chrome_arg_u64(o, "External id", ext);
    cuprof_chrome_arg_u64(o, "device", c->device);
    cuprof_chrome_arg_u64(o, "context", c->context);
    cuprof_chrome_arg_u64(o, "stream", c->stream);
    cuprof_chrome_arg_u64(o, "bytes", c->bytes);
    cuprof_chrome_arg_str(o, "direction", cuprof_gpu_copy_kind_name(c->kind));
    if (memset_)
        cuprof_chrome_arg_u64(o, "value", c->value);
    else
        cuprof_chrome_arg_bool(o, "async", c->async);
    put_gbps(o, c->bytes, c->end_ns > c->start_ns ? c->end_ns - c->start_ns : 0);   /* recorded */
    put_recorded(cw, it, c->start_ns, c->end_ns);
    put_range_arg(cw, it);
    cuprof_out_puts(o, "}}");
}

/* Where a call's CPU-side "s" end goes: thread and a time inside its X
 * event (the derived call's, else the hooked call's). 0 when unknown. */
static int call_anchor(const cuprof_timeline *tl, const cuprof_gpu_api *a, uint32_t *tid,
                       uint64_t *ts)
{
    int32_t d = tl->api_derived[a - tl->gpu->apis];
    if (d >= 0) {
        *tid = tl->derived[d].tid;
        *ts = tl->derived[d].t0;
        return 1;
    }
    const cuprof_run_thread *th = NULL;
    uint64_t hooked = cuprof_timeline_api_hooked(tl, a);
    const cuprof_event *ev = hooked ? cuprof_run_find_event(tl->run, hooked, &th) : NULL;
    *tid = ev ? th->tid : a->thread_id;
    *ts = a->start_ns;
    if (ev && (*ts < ev->t0 || *ts >= ev->t1))
        *ts = ev->t0;
    return *ts != 0;
}

/* Where the DevTools trace engine binds an arrow's end: it takes the
 * non-flow event with the flow event's ts, pid, tid and category, and the
 * launch ("cuda_runtime") and the kernel ("kernel") keep Kineto's categories,
 * which HTA reads. So each end gets a process-scoped instant in the arrow's
 * category at the same point: DevTools draws it on the thread's row;
 * Perfetto and chrome://tracing put process instants on a row of their own
 * and keep binding the arrow to the enclosing slice. Written after the flow
 * event, so that an importer binding to the innermost slice open at that ts
 * still finds the launch or the kernel. */
static void put_flow_anchor(chrome_writer *cw, int64_t pid, uint64_t tid, uint64_t ts)
{
    cuprof_out *o = cw->base.out;
    cuprof_chrome_next_entry(cw);
    cuprof_out_puts(o, "{\"ph\":\"I\",\"s\":\"p\",\"cat\":\"ac2g\",\"name\":\"ac2g\"");
    put_pid_tid(o, pid, tid);
    cuprof_out_puts(o, ",\"ts\":");
    cuprof_out_ns_as_us(o, cuprof_chrome_rel(cw, ts));
    cuprof_out_puts(o, "}");
}

/* The arrow from the call with corr to a device record at (pid, tid, ts):
 * once per correlation id (seen[] counts them by api index), except for a
 * graph's replay (graph != 0), whose records all share the launch's id: an
 * arrow to each, the k-th with id corr + k * 2^32 (flow ids pair one to one;
 * JSON keeps them exact while k < 2^21). */
static void put_flow(chrome_writer *cw, const cuprof_timeline *tl, uint32_t *seen, uint32_t corr,
                     int need_launch, int graph, int64_t pid, uint64_t tid, uint64_t ts,
                     uint64_t hooked)
{
    const cuprof_gpu_api *a = cuprof_timeline_api(tl, corr);
    uint32_t ctid, k = 0;
    uint64_t cts;
    if (!a && tl->gpu->kernels_only && hooked && corr) {
        /* no API records: from the call model/kmatch.h matched it to, one
         * arrow per record (each has its own correlation id) */
        const cuprof_run_thread *th = NULL;
        const cuprof_event *ev = cuprof_run_find_event(tl->run, hooked, &th);
        if (!ev)
            return;
        ctid = th->tid;
        cts = ev->t0;
    } else {
        if (!a || (need_launch && !a->is_launch))
            return;
        k = seen[a - tl->gpu->apis];
        if (k && (!graph || k >= (1u << 21)))
            return;
        if (!call_anchor(tl, a, &ctid, &cts))
            return;
        seen[a - tl->gpu->apis] = k + 1;
    }
    uint64_t id = corr + ((uint64_t)k << 32);
    cuprof_out *o = cw->base.out;
    cuprof_chrome_next_entry(cw);
    cuprof_out_puts(o, "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":");
    cuprof_out_u64(o, id);
    put_pid_tid(o, cw->base.run->pid, ctid);
    cuprof_out_puts(o, ",\"ts\":");
    cuprof_out_ns_as_us(o, cuprof_chrome_rel(cw, cts));
    cuprof_out_puts(o, "}");
    put_flow_anchor(cw, cw->base.run->pid, ctid, cts);
    cuprof_chrome_next_entry(cw);
    cuprof_out_puts(o, "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":");
    cuprof_out_u64(o, id);
    put_pid_tid(o, pid, tid);
    cuprof_out_puts(o, ",\"ts\":");
    cuprof_out_ns_as_us(o, cuprof_chrome_rel(cw, ts));
    cuprof_out_puts(o, "}");
    put_flow_anchor(cw, pid, tid, ts);
}

/* Calls only CUPTI saw, on their thread's CPU row; rows for threads that
 * made no hooked call get a name (once: named[] holds the last 64). */
static void put_derived(chrome_writer *cw, const cuprof_timeline *tl)
{
    cuprof_out *o = cw->base.out;
    const cuprof_run *run = cw->base.run;
    uint32_t named[64];
    unsigned nnamed = 0;
    for (size_t k = 0; k < tl->nderived; k++) {
        const cuprof_derived_call *d = &tl->derived[k];
        int known = 0;
        for (size_t t = 0; t < run->nthreads && !known; t++)
            known = run->threads[t].tid == d->tid;
        for (unsigned j = 0; j < nnamed && j < 64 && !known; j++)
            known = named[j] == d->tid;
        if (!known) {
            char label[32];
            snprintf(label, sizeof label, "thread %u", d->tid);
            meta(cw, "thread_name", run->pid, d->tid, "name", label, 0);
            named[nnamed++ % 64] = d->tid;
        }
        cuprof_chrome_next_entry(cw);
        x_head(cw, "cuda_runtime", d->rec->name, run->pid, d->tid, d->t0, d->t1);
        cuprof_out_puts(o, ",\"args\":{\"source\":\"cupti\"");
        cuprof_chrome_arg_u64(o, "correlation", d->rec->corr);
        cuprof_chrome_arg_u64(o, "External id", d->rec->ext);
        cuprof_chrome_arg_u64(o, "cbid", d->rec->cbid);
        if (d->rec->driver)
            cuprof_out_puts(o, ",\"domain\":\"driver\"");
        if (d->rec->result != 0) {
            cuprof_chrome_key(o, "result");
            cuprof_out_i64(o, d->rec->result);
        }
        cuprof_out_puts(o, "}}");
    }
}

/* Host-side waits, inside the synchronize call that waited. */
static void put_syncs(chrome_writer *cw, const cuprof_timeline *tl)
{
    cuprof_out *o = cw->base.out;
    const cuprof_gpu_run *g = tl->gpu;
    for (size_t i = 0; i < g->n_syncs; i++) {
        const cuprof_gpu_sync *s = &g->syncs[i];
        uint32_t tid;
        uint64_t t0, t1;
        if (!cuprof_timeline_sync_place(tl, s, &tid, &t0, &t1))
            continue;   /* no thread to show it on */
        const cuprof_gpu_api *a = cuprof_timeline_api(tl, s->corr);
        cuprof_chrome_next_entry(cw);
        x_head(cw, "cuda_sync", cuprof_gpu_sync_name(s->type), cw->base.run->pid, tid, t0, t1);
        cuprof_out_puts(o, ",\"args\":{\"correlation\":");
        cuprof_out_u64(o, s->corr);
        cuprof_chrome_arg_str(o, "call", a->name);
        if (s->stream != CUPROF_GPU_NO_STREAM)
            cuprof_chrome_arg_u64(o, "stream", s->stream);
        if (s->event != CUPROF_GPU_NO_EVENT)
            cuprof_chrome_arg_u64(o, "event", s->event);
        cuprof_out_puts(o, "}}");
    }
}

#define COMM_TID_BASE 0x40000000u
#define COMM_ROWS 8
#define MAX_COMMS 64

/* The collectives' rows: one per communicator (and overlap rows, as the
 * streams have, where a group's calls share one span). */
static void put_comm_tracks(chrome_writer *cw)
{
    const cuprof_collectives *c = cw->base.model->colls;
    if (!c || !c->ncalls)
        return;
    uint64_t comms[MAX_COMMS], last_end[MAX_COMMS][COMM_ROWS];
    uint32_t dev_of[MAX_COMMS], rank_of[MAX_COMMS], named[MAX_COMMS];
    size_t ncomm = 0;
    memset(last_end, 0, sizeof last_end);
    cuprof_out *o = cw->base.out;
    for (size_t i = 0; i < c->ncalls; i++) {
        const cuprof_coll_call *k = &c->by_call[i];
        if (!k->gpu_end_ns)
            continue;
        size_t ci = 0;
        while (ci < ncomm && (comms[ci] != k->comm || rank_of[ci] != k->rank))
            ci++;
        if (ci == ncomm) {   /* (a communicator's rank: one process may hold several) */
            if (ncomm == MAX_COMMS)
                continue;
            comms[ncomm] = k->comm;
            rank_of[ncomm] = k->rank;
            named[ncomm] = 0;
            dev_of[ncomm++] = k->device;
        }
        uint32_t row = 0;
        while (row < COMM_ROWS - 1 && k->gpu_start_ns < last_end[ci][row])
            row++;
        last_end[ci][row] = k->gpu_end_ns;
        if (!(named[ci] & (1u << row))) {   /* a row is named when first used */
            named[ci] |= 1u << row;
            char label[128];
            int l = snprintf(label, sizeof label, "NCCL comm 0x%llx (rank %u of %u)",
                             (unsigned long long)k->comm, k->rank, k->nranks);
            if (row && l > 0 && (size_t)l < sizeof label)
                snprintf(label + l, sizeof label - (size_t)l, " (overlap %u)", row);
            int64_t pid = CHROME_GPU_PID_BASE + dev_of[ci];
            meta(cw, "thread_name", pid, COMM_TID_BASE + ci * COMM_ROWS + row, "name", label, 0);
            meta(cw, "thread_sort_index", pid, COMM_TID_BASE + ci * COMM_ROWS + row, "sort_index", NULL,
                 -1000 + (int64_t)(ci * COMM_ROWS + row));
        }
        char name[96], sz[32];
        snprintf(name, sizeof name, "%s %s", k->op, cuprof_fmt_bytes(sz, sizeof sz, k->size));
        cuprof_chrome_next_entry(cw);
        x_head(cw, "nccl", name, CHROME_GPU_PID_BASE + dev_of[ci], COMM_TID_BASE + ci * COMM_ROWS + row,
               k->gpu_start_ns, k->gpu_end_ns);
        cuprof_out_puts(o, ",\"args\":{\"seq\":");
        cuprof_out_u64(o, k->seq);
        cuprof_chrome_arg_hex(o, "comm", k->comm);
        cuprof_chrome_arg_u64(o, "size_bytes", k->size);
        cuprof_chrome_arg_str(o, "dtype", k->dtype);
        if (k->algo && k->algo[0])
            cuprof_chrome_arg_str(o, "algo", k->algo);
        cuprof_chrome_arg_u64(o, "External id", k->id);
        cuprof_out_puts(o, "}}");
    }
}

int cuprof_chrome_gpu_events(chrome_writer *cw)
{
    const cuprof_run *run = cw->base.run;
    const cuprof_model *m = cw->base.model;
    const cuprof_timeline *tl = m->timeline;
    if (!run->gpu.captured || !run->gpu_run || !tl)
        return 0;
    const cuprof_gpu_run *g = tl->gpu;
    cuprof_gpu_rows rows;
    int made = cuprof_gpu_rows_make(g, &rows);
    uint32_t *seen = calloc(g->n_apis ? g->n_apis : 1, sizeof *seen);
    if (made < 0 || !seen) {
        cuprof_gpu_rows_free(&rows);
        free(seen);
        return -1;
    }
    lane_metadata(cw, &rows);
    put_comm_tracks(cw);
    put_derived(cw, tl);
    put_syncs(cw, tl);
    for (size_t i = 0; i < rows.n; i++) {
        const gpu_item x = cuprof_gpu_rows_at(&rows, i);
        int64_t pid = CHROME_GPU_PID_BASE + x.device;
        uint64_t tid = row_tid(x.stream, x.sub);
        if (x.is_copy) {
            const cuprof_gpu_copy *c = &g->copies[x.idx];
            /* "External id": the hooked call that caused it (pushed or matched) */
            put_copy(cw, c, &x, tl->copy_hooked[x.idx]);
            put_flow(cw, tl, seen, c->corr, 0, c->graph_id != 0, pid, tid, x.start,
                     tl->copy_hooked[x.idx]);
        } else {
            const cuprof_gpu_kernel *kr = &g->kernels[x.idx];
            put_kernel(cw, kr, cuprof_names_gpu(&m->names, kr->name), &x,
                       tl->kernel_hooked[x.idx]);
            put_flow(cw, tl, seen, kr->corr, 1, kr->graph_id != 0, pid, tid, x.start,
                     tl->kernel_hooked[x.idx]);
        }
    }
    cuprof_gpu_rows_free(&rows);
    free(seen);
    return 0;
}
