/*
 * chrome_trace.c - NAME.trace.json: the Chrome trace event format (object
 * form), loadable in Perfetto UI and chrome://tracing.
 *
 * One process; one row per thread, named by "M" metadata events; each
 * recorded call is one complete ("X") event with ts/dur in microseconds (three
 * decimals: nanosecond precision) on the collector's clock, so a call made
 * inside another nests under it by time alone. Arguments by event class go
 * into "args". One event per line, so the file diffs and greps well.
 */
#include "formats/writer.h"
#include "collector/config.h"

#include <stdio.h>
#include <string.h>

typedef struct chrome_writer {
    cuprof_writer base;     /* first: the driver sees a cuprof_writer */
    int any;                /* an entry was written: the next needs a comma */
} chrome_writer;

/* Starts the next traceEvents entry. */
static void next_entry(chrome_writer *cw)
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

    next_entry(cw);
    cuprof_out_puts(o, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":");
    cuprof_out_i64(o, run->pid);
    cuprof_out_puts(o, ",\"tid\":0,\"args\":{\"name\":");
    cuprof_out_json_cstr(o, base_name(run->program));
    cuprof_out_puts(o, "}}");
    for (size_t t = 0; t < run->nthreads; t++) {
        const cuprof_run_thread *th = &run->threads[t];
        char label[64];
        snprintf(label, sizeof label, "%s%s", th->name[0] ? th->name : "thread",
                 (long)th->tid == run->pid ? " (main)" : "");
        next_entry(cw);
        cuprof_out_puts(o, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":");
        cuprof_out_i64(o, run->pid);
        cuprof_out_puts(o, ",\"tid\":");
        cuprof_out_u64(o, th->tid);
        cuprof_out_puts(o, ",\"args\":{\"name\":");
        cuprof_out_json_cstr(o, label);
        cuprof_out_puts(o, "}}");
        next_entry(cw);
        cuprof_out_puts(o, "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":");
        cuprof_out_i64(o, run->pid);
        cuprof_out_puts(o, ",\"tid\":");
        cuprof_out_u64(o, th->tid);
        cuprof_out_puts(o, ",\"args\":{\"sort_index\":");
        cuprof_out_u64(o, th->index);
        cuprof_out_puts(o, "}}");
    }
    return 0;
}

/* ,"key": (key is a literal without anything to escape) */
static void key(cuprof_out *o, const char *k)
{
    cuprof_out_puts(o, ",\"");
    cuprof_out_puts(o, k);
    cuprof_out_puts(o, "\":");
}

static void arg_u64(cuprof_out *o, const char *k, uint64_t v)
{
    key(o, k);
    cuprof_out_u64(o, v);
}

static void arg_str(cuprof_out *o, const char *k, const char *v)
{
    key(o, k);
    cuprof_out_json_cstr(o, v);
}

/* Handles (streams, events, pointers) as hex strings: JSON numbers lose
 * precision above 2^53. */
static void arg_hex(cuprof_out *o, const char *k, uint64_t v)
{
    key(o, k);
    cuprof_out_putc(o, '"');
    cuprof_out_hex(o, v);
    cuprof_out_putc(o, '"');
}

static void arg_dim3(cuprof_out *o, const char *k, uint64_t x, uint64_t y, uint64_t z)
{
    key(o, k);
    cuprof_out_puts(o, "\"[");
    cuprof_out_u64(o, x);
    cuprof_out_puts(o, ", ");
    cuprof_out_u64(o, y);
    cuprof_out_puts(o, ", ");
    cuprof_out_u64(o, z);
    cuprof_out_puts(o, "]\"");
}

/* The class-specific arguments, each preceded by a comma. */
static void event_args(cuprof_writer *w, const cuprof_event *ev)
{
    cuprof_out *o = w->out;
    switch (ev->cls) {
    case CUPROF_EV_LAUNCH:
        arg_str(o, "kernel", cuprof_run_kernel_name(w->run, ev->a.launch.kernel));
        arg_dim3(o, "grid", ev->a.launch.grid[0], ev->a.launch.grid[1], ev->a.launch.grid[2]);
        arg_dim3(o, "block", ev->a.launch.block[0], ev->a.launch.block[1], ev->a.launch.block[2]);
        arg_u64(o, "smem", ev->a.launch.smem);
        arg_hex(o, "stream", ev->a.launch.stream);
        break;
    case CUPROF_EV_COPY:
    case CUPROF_EV_MEMSET:
        arg_u64(o, "bytes", ev->a.copy.bytes);
        arg_str(o, "kind", ev->cls == CUPROF_EV_MEMSET ? "memset" : cuprof_dir_name(ev->a.copy.dir));
        arg_hex(o, "stream", ev->a.copy.stream);
        key(o, "async");
        cuprof_out_puts(o, ev->a.copy.async ? "true" : "false");
        break;
    case CUPROF_EV_ALLOC:
    case CUPROF_EV_FREE:
        arg_u64(o, "bytes", ev->a.mem.bytes);
        arg_hex(o, "ptr", ev->a.mem.ptr);
        break;
    case CUPROF_EV_SYNC:
    case CUPROF_EV_EVENT: {
        /* the handle is an event for event syncs, a stream otherwise */
        const char *api = cuprof_run_api_name(w->run, ev->api);
        int is_event = ev->cls == CUPROF_EV_SYNC && strstr(api, "Event") != NULL;
        if (ev->cls == CUPROF_EV_SYNC && strstr(api, "DeviceSynchronize"))
            break;
        arg_hex(o, is_event ? "event" : "stream", ev->a.sync.stream);
        break;
    }
    case CUPROF_EV_OCCUPANCY:
        arg_str(o, "kernel", cuprof_run_kernel_name(w->run, ev->a.occ.kernel));
        key(o, "block_size");
        cuprof_out_i64(o, ev->a.occ.block_size);
        arg_u64(o, "smem", ev->a.occ.smem);
        key(o, "answer");
        cuprof_out_i64(o, ev->a.occ.answer);
        break;
    case CUPROF_EV_BLAS:
        arg_u64(o, "m", ev->a.blas.m);
        arg_u64(o, "n", ev->a.blas.n);
        arg_u64(o, "k", ev->a.blas.k);
        arg_u64(o, "batch", ev->a.blas.batch);
        arg_str(o, "dtype", cuprof_dtype_name(ev->a.blas.atype));
        arg_str(o, "ctype", cuprof_dtype_name(ev->a.blas.ctype));
        arg_str(o, "compute", cuprof_compute_name(ev->a.blas.compute));
        arg_str(o, "epilogue", cuprof_epilogue_name(ev->a.blas.epilogue));
        arg_str(o, "transa", cuprof_trans_name(ev->a.blas.transa));
        arg_str(o, "transb", cuprof_trans_name(ev->a.blas.transb));
        key(o, "beta_nonzero");
        cuprof_out_puts(o, ev->a.blas.beta_nonzero ? "true" : "false");
        break;
    default:
        break;
    }
}

static int chrome_event(cuprof_writer *w, const cuprof_run_thread *th, const cuprof_event *ev)
{
    chrome_writer *cw = (chrome_writer *)w;
    cuprof_out *o = w->out;
    next_entry(cw);
    cuprof_out_puts(o, "{\"ph\":\"X\",\"cat\":");
    cuprof_out_json_cstr(o, cuprof_run_api_category(w->run, ev->api));
    cuprof_out_puts(o, ",\"name\":");
    cuprof_out_json_cstr(o, cuprof_run_api_name(w->run, ev->api));
    cuprof_out_puts(o, ",\"pid\":");
    cuprof_out_i64(o, w->run->pid);
    cuprof_out_puts(o, ",\"tid\":");
    cuprof_out_u64(o, th->tid);
    cuprof_out_puts(o, ",\"ts\":");
    cuprof_out_ns_as_us(o, ev->t0);
    cuprof_out_puts(o, ",\"dur\":");
    cuprof_out_ns_as_us(o, ev->t1 > ev->t0 ? ev->t1 - ev->t0 : 0);
    cuprof_out_puts(o, ",\"args\":{\"class\":");
    cuprof_out_json_cstr(o, cuprof_class_name(ev->cls));
    event_args(w, ev);
    if (ev->result != 0) {
        key(o, "result");
        cuprof_out_i64(o, ev->result);
    }
    cuprof_out_puts(o, "}}");
    return 0;
}

static int chrome_footer(cuprof_writer *w)
{
    cuprof_out *o = w->out;
    const cuprof_run *run = w->run;
    cuprof_out_puts(o, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"tool\":\"cuprof\",\"version\":");
    cuprof_out_json_cstr(o, CUPROF_VERSION);
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
    cuprof_out_puts(o, ",\"gpu_timeline\":{\"captured\":");
    cuprof_out_puts(o, run->gpu.captured ? "true" : "false");
    cuprof_out_puts(o, ",\"reason\":");
    cuprof_out_json_cstr(o, run->gpu.reason ? run->gpu.reason : "");
    cuprof_out_puts(o, "}}\n}\n");
    return 0;
}

const cuprof_writer_ops cuprof_chrome_trace_ops = {
    .suffix = "trace.json",
    .size = sizeof(chrome_writer),
    .header = chrome_header,
    .event = chrome_event,
    .footer = chrome_footer,
};
