/*
 * chrome_trace.c - NAME.trace.json: the Chrome trace event format (object
 * form), loadable in Perfetto UI and chrome://tracing.
 *
 * One process; one row per thread, named by "M" metadata events; each
 * recorded call is one complete ("X") event with ts/dur in microseconds (three
 * decimals: nanosecond precision) on the collector's clock, so a call made
 * inside another nests under it by time alone. Arguments by event class go
 * into "args". One event per line, so the file diffs and greps well.
 * The GPU lanes, the calls only CUPTI saw and the launch arrows come from
 * chrome_trace_gpu.c, written before the footer.
 */
#include "formats/chrome_trace_int.h"
#include "collector/config.h"

#include <stdio.h>
#include <string.h>

void chrome_next_entry(chrome_writer *cw)
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

    chrome_next_entry(cw);
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
        chrome_next_entry(cw);
        cuprof_out_puts(o, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":");
        cuprof_out_i64(o, run->pid);
        cuprof_out_puts(o, ",\"tid\":");
        cuprof_out_u64(o, th->tid);
        cuprof_out_puts(o, ",\"args\":{\"name\":");
        cuprof_out_json_cstr(o, label);
        cuprof_out_puts(o, "}}");
        chrome_next_entry(cw);
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

void chrome_key(cuprof_out *o, const char *k)
{
    cuprof_out_puts(o, ",\"");
    cuprof_out_puts(o, k);
    cuprof_out_puts(o, "\":");
}

void chrome_arg_u64(cuprof_out *o, const char *k, uint64_t v)
{
    chrome_key(o, k);
    cuprof_out_u64(o, v);
}

void chrome_arg_str(cuprof_out *o, const char *k, const char *v)
{
    chrome_key(o, k);
    cuprof_out_json_cstr(o, v);
}

void chrome_arg_hex(cuprof_out *o, const char *k, uint64_t v)
{
    chrome_key(o, k);
    cuprof_out_putc(o, '"');
    cuprof_out_hex(o, v);
    cuprof_out_putc(o, '"');
}

void chrome_arg_dim3(cuprof_out *o, const char *k, uint64_t x, uint64_t y, uint64_t z)
{
    chrome_key(o, k);
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
        chrome_arg_str(o, "kernel", cuprof_run_kernel_name(w->run, ev->a.launch.kernel));
        chrome_arg_dim3(o, "grid", ev->a.launch.grid[0], ev->a.launch.grid[1], ev->a.launch.grid[2]);
        chrome_arg_dim3(o, "block", ev->a.launch.block[0], ev->a.launch.block[1], ev->a.launch.block[2]);
        chrome_arg_u64(o, "smem", ev->a.launch.smem);
        chrome_arg_hex(o, "stream", ev->a.launch.stream);
        break;
    case CUPROF_EV_COPY:
    case CUPROF_EV_MEMSET:
        chrome_arg_u64(o, "bytes", ev->a.copy.bytes);
        chrome_arg_str(o, "kind", ev->cls == CUPROF_EV_MEMSET ? "memset" : cuprof_dir_name(ev->a.copy.dir));
        chrome_arg_hex(o, "stream", ev->a.copy.stream);
        chrome_key(o, "async");
        cuprof_out_puts(o, ev->a.copy.async ? "true" : "false");
        break;
    case CUPROF_EV_ALLOC:
    case CUPROF_EV_FREE:
        chrome_arg_u64(o, "bytes", ev->a.mem.bytes);
        chrome_arg_hex(o, "ptr", ev->a.mem.ptr);
        break;
    case CUPROF_EV_SYNC:
    case CUPROF_EV_EVENT: {
        /* the handle is an event for event syncs, a stream otherwise */
        const char *api = cuprof_run_api_name(w->run, ev->api);
        int is_event = ev->cls == CUPROF_EV_SYNC && strstr(api, "Event") != NULL;
        if (ev->cls == CUPROF_EV_SYNC && strstr(api, "DeviceSynchronize"))
            break;
        chrome_arg_hex(o, is_event ? "event" : "stream", ev->a.sync.stream);
        break;
    }
    case CUPROF_EV_OCCUPANCY:
        chrome_arg_str(o, "kernel", cuprof_run_kernel_name(w->run, ev->a.occ.kernel));
        chrome_key(o, "block_size");
        cuprof_out_i64(o, ev->a.occ.block_size);
        chrome_arg_u64(o, "smem", ev->a.occ.smem);
        chrome_key(o, "answer");
        cuprof_out_i64(o, ev->a.occ.answer);
        break;
    case CUPROF_EV_BLAS:
        chrome_arg_u64(o, "m", ev->a.blas.m);
        chrome_arg_u64(o, "n", ev->a.blas.n);
        chrome_arg_u64(o, "k", ev->a.blas.k);
        chrome_arg_u64(o, "batch", ev->a.blas.batch);
        chrome_arg_str(o, "dtype", cuprof_dtype_name(ev->a.blas.atype));
        chrome_arg_str(o, "ctype", cuprof_dtype_name(ev->a.blas.ctype));
        chrome_arg_str(o, "compute", cuprof_compute_name(ev->a.blas.compute));
        chrome_arg_str(o, "epilogue", cuprof_epilogue_name(ev->a.blas.epilogue));
        chrome_arg_str(o, "transa", cuprof_trans_name(ev->a.blas.transa));
        chrome_arg_str(o, "transb", cuprof_trans_name(ev->a.blas.transb));
        chrome_key(o, "beta_nonzero");
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
    chrome_next_entry(cw);
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
        chrome_key(o, "result");
        cuprof_out_i64(o, ev->result);
    }
    cuprof_out_puts(o, "}}");
    return 0;
}

static int chrome_footer(cuprof_writer *w)
{
    cuprof_out *o = w->out;
    const cuprof_run *run = w->run;
    if (chrome_gpu_events((chrome_writer *)w) < 0)
        return -1;
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
