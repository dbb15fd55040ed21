/*
 * place.c - where the run ran, in the outputs (place.h).
 */
#include "formats/place.h"
#include "model/gpu.h"

#include <stdio.h>

static void key(cuprof_out *o, const char *k, int first)
{
    if (!first)
        cuprof_out_putc(o, ',');
    cuprof_out_putc(o, '"');
    cuprof_out_puts(o, k);
    cuprof_out_puts(o, "\":");
}

static void str_or_null(cuprof_out *o, const char *k, const char *v)
{
    key(o, k, 0);
    if (v)
        cuprof_out_json_cstr(o, v);
    else
        cuprof_out_puts(o, "null");
}

static void i32(cuprof_out *o, const char *k, int32_t v, int first)
{
    key(o, k, first);
    cuprof_out_i64(o, v);
}

/* The devices the GPU records ran on, in order, as a JSON array. */
static void put_devices(cuprof_out *o, const cuprof_gpu_run *g)
{
    uint64_t seen = 0;   /* devices 0..63 */
    for (size_t i = 0; g && i < g->n_kernels; i++)
        seen |= g->kernels[i].device < 64 ? 1ull << g->kernels[i].device : 0;
    for (size_t i = 0; g && i < g->n_copies; i++)
        seen |= g->copies[i].device < 64 ? 1ull << g->copies[i].device : 0;
    cuprof_out_putc(o, '[');
    for (int d = 0, first = 1; d < 64; d++)
        if (seen >> d & 1) {
            if (!first)
                cuprof_out_putc(o, ',');
            cuprof_out_i64(o, d);
            first = 0;
        }
    cuprof_out_putc(o, ']');
}

void cuprof_put_place(cuprof_out *o, const cuprof_run *run)
{
    const cuprof_place *p = &run->place;
    int ranked = p->launcher != NULL;
    cuprof_out_putc(o, '{');
    key(o, "launcher", 1);
    if (ranked)
        cuprof_out_json_cstr(o, p->launcher);
    else
        cuprof_out_puts(o, "null");
    i32(o, "rank", ranked ? p->rank : -1, 0);
    i32(o, "world_size", ranked ? p->world_size : -1, 0);
    i32(o, "local_rank", ranked ? p->local_rank : -1, 0);
    i32(o, "local_size", ranked ? p->local_size : -1, 0);
    str_or_null(o, "host", p->host && p->host[0] ? p->host : NULL);
    str_or_null(o, "boot_id", p->boot_id && p->boot_id[0] ? p->boot_id : NULL);
    str_or_null(o, "cuda_visible_devices", p->visible_devices);
    key(o, "devices", 0);
    put_devices(o, run->gpu_run);
    key(o, "clocks", 0);
    cuprof_out_puts(o, "{\"monotonic_start_ns\":");
    cuprof_out_u64(o, p->mono_start);
    cuprof_out_puts(o, ",\"realtime_start_ns\":");
    cuprof_out_u64(o, p->real_start);
    cuprof_out_puts(o, ",\"monotonic_end_ns\":");
    cuprof_out_u64(o, p->mono_end);
    cuprof_out_puts(o, ",\"realtime_end_ns\":");
    cuprof_out_u64(o, p->real_end);
    cuprof_out_puts(o, "}}");
}

void cuprof_put_distributed_info(cuprof_out *o, const cuprof_run *run)
{
    const cuprof_place *p = &run->place;
    if (!p->launcher)
        return;
    cuprof_out_puts(o, ",\n\"distributedInfo\":{");
    i32(o, "rank", p->rank, 1);
    i32(o, "world_size", p->world_size, 0);
    i32(o, "local_rank", p->local_rank, 0);
    i32(o, "local_size", p->local_size, 0);
    str_or_null(o, "launcher", p->launcher);
    str_or_null(o, "host", p->host && p->host[0] ? p->host : NULL);
    cuprof_out_putc(o, '}');
}

const char *cuprof_place_rank_label(char *buf, size_t n, const cuprof_run *run)
{
    const cuprof_place *p = &run->place;
    if (!p->launcher)
        snprintf(buf, n, "%s", "");
    else if (p->world_size >= 0)
        snprintf(buf, n, "rank %d of %d", (int)p->rank, (int)p->world_size);
    else
        snprintf(buf, n, "rank %d", (int)p->rank);
    return buf;
}
