/*
 * summary_txt.c - NAME.summary.txt: a header block, then the table a
 * torch.profiler user already reads (key_averages().table() layout: same
 * columns, right-aligned cells 12 wide separated by two spaces, dash rules,
 * the two closing "Self ... time total" lines) plus Min/Median/Max, then
 * short sections for kernels, copies and BLAS shapes.
 */
#include "formats/place.h"
#include "formats/writer.h"
#include "formats/units.h"
#include "model/quantile.h"
#include "model/timeline.h"

#include <stdio.h>
#include <string.h>

#define COL_WIDTH 12        /* torch's DEFAULT_COLUMN_WIDTH */
#define NAME_MAX_WIDTH 55   /* torch's max_name_column_width */
#define NCOLS 14

static const char *const HEADERS[NCOLS] = {
    "Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
    "Self CUDA", "Self CUDA %", "CUDA total", "CUDA time avg", "# of Calls",
    "Min", "Median", "Max",
};

typedef struct txt_writer {
    cuprof_writer base;     /* first: the driver sees a cuprof_writer */
    int name_width;         /* width of the Name column */
} txt_writer;

/* Writes s with control characters shown as '?', so a hostile name cannot
 * break the table's lines. */
static void put_clean(cuprof_out *o, const char *s)
{
    for (; *s; s++)
        cuprof_out_putc(o, ((unsigned char)*s < 0x20 || *s == 0x7f) ? '?' : *s);
}

/* An argument as a shell would need it quoted. */
/* A median, "~" before it when approximate (model/quantile.h: the row had
 * more samples than the exact bound). */
static char *fmt_median(char *dst, size_t len, uint64_t ns, int sketched)
{
    char t[32];
    snprintf(dst, len, "%s%s", sketched ? "~" : "", cuprof_fmt_time(t, sizeof t, ns));
    return dst;
}

static void put_arg(cuprof_out *o, const char *a)
{
    int plain = *a != '\0';
    for (const char *p = a; *p && plain; p++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=:,+-@%",
                       *p) != NULL;
    if (plain) {
        put_clean(o, a);
        return;
    }
    cuprof_out_putc(o, '\'');
    for (const char *p = a; *p; p++) {
        if (*p == '\'')
            cuprof_out_puts(o, "'\\''");
        else
            cuprof_out_putc(o, ((unsigned char)*p < 0x20 || *p == 0x7f) ? '?' : *p);
    }
    cuprof_out_putc(o, '\'');
}

/* The header's GPU lines: busy and idle over the profiled window, launch
 * latency, records and drops, CUPTI's status (model/timeline.h). */
static void put_gpu_block(cuprof_writer *w)
{
    cuprof_out *o = w->out;
    const cuprof_timeline *tl = w->model->timeline;
    const cuprof_gpu_run *g = w->run->gpu_run;
    if (w->run->gpu.captured && g && g->status) {
        cuprof_out_puts(o, "  CUPTI:         ");
        put_clean(o, g->status);
        cuprof_out_putc(o, '\n');
    }
    if (!w->run->gpu.captured || !tl || !g)
        return;
    const cuprof_stat_device *dv = &w->sum->device;
    if (dv->name[0] || dv->peak_label) {
        cuprof_out_puts(o, "  GPU:           ");
        if (dv->name[0]) {
            put_clean(o, dv->name);
            cuprof_out_printf(o, ", %u SMs, %u MHz", dv->sms, dv->clock_khz / 1000);
        } else {
            cuprof_out_puts(o, "not described by CUPTI");
        }
        if (dv->peak_label) {
            cuprof_out_puts(o, "; peaks of the table's ");
            put_clean(o, dv->peak_label);
            cuprof_out_puts(o, " (");
            put_clean(o, dv->peak_source);
            cuprof_out_puts(o, ")\n");
        } else {
            cuprof_out_puts(o, "; no peak: ");
            put_clean(o, dv->peak_why);
            cuprof_out_putc(o, '\n');
        }
    }
    const cuprof_gpu_stats *st = &tl->stats;
    char a[32], b[32], c[32];
    uint64_t win = st->window_end_ns - st->window_start_ns;
    cuprof_out_printf(o, "  GPU busy:      %s (kernels, copies, memsets)\n",
                      cuprof_fmt_time(a, sizeof a, st->busy_ns));
    if (win)
        cuprof_out_printf(o, "  GPU idle:      %.1f%% of %s (first kernel launch to last kernel end; "
                             "busy %s of it)\n",
                          st->idle_share * 100.0, cuprof_fmt_time(b, sizeof b, win),
                          cuprof_fmt_time(c, sizeof c, st->busy_window_ns));
    if (st->latency_count)
        cuprof_out_printf(o, "  launch lat.:   median %s, max %s (kernel start - launching call "
                             "start, %llu kernels)\n",
                          fmt_median(a, sizeof a, st->latency_median_ns, st->latency_median_sketched),
                          cuprof_fmt_time(c, sizeof c, st->latency_max_ns),
                          (unsigned long long)st->latency_count);
    cuprof_out_printf(o, "  GPU records:   %zu kernels, %zu copies/memsets, %zu syncs, %zu runtime "
                         "calls (%zu not seen by a hook); %llu dropped by CUPTI%s\n",
                      g->n_kernels, g->n_copies, g->n_syncs, g->n_apis, tl->nderived,
                      (unsigned long long)g->dropped,
                      g->dropped ? " (CUDA columns miss them)" : "");
    const cuprof_census *cs = w->model->census;
    if (cs && cs->total_kernels) {
        char pct[32];
        cuprof_out_printf(o, "  coverage:      %s of kernel GPU time launched by calls the hooks saw with their "
                             "arguments (",
                          cuprof_fmt_pct(pct, sizeof pct, cs->seen_gpu_ns, cs->total_gpu_ns));
        for (int p = 0, first = 1; p < CUPROF_LAUNCH_NPATHS; p++)
            if (cs->kernels[p]) {
                cuprof_out_printf(o, "%s%llu %s", first ? "" : ", ", (unsigned long long)cs->kernels[p],
                                  cuprof_launch_path_words(p));
                first = 0;
            }
        cuprof_out_puts(o, ")\n");
    }
}

static void put_header_block(cuprof_writer *w)
{
    cuprof_out *o = w->out;
    const cuprof_run *run = w->run;
    char t[32];
    cuprof_out_printf(o, "cuprof %s summary\n", cuprof_run_version(run));
    int said_end = 0;   /* the TRUNCATED line named how the process ended */
    if (run->truncated && run->run_file_lost) {   /* killed: rebuilt from its run file */
        cuprof_out_printf(o, "  TRUNCATED:     %s; calls open then are not here\n",
                          run->run_file_lost);
        said_end = 1;
    } else if (run->truncated && run->spill_failure) {   /* recording stopped before the end */
        cuprof_out_printf(o, "  TRUNCATED:     the run file stopped growing before the end (%s); "
                             "calls after that are counted, not recorded\n",
                          run->spill_failure);
    } else if (run->truncated) {   /* first, so nobody reads the numbers as a whole run */
        cuprof_out_printf(o, "  TRUNCATED:     the process crashed (%s); calls recorded before the "
                             "crash are here, calls open at the crash are not\n",
                          run->ended_by ? run->ended_by : "fatal signal");
        said_end = 1;
    }
    cuprof_out_puts(o, "  program:       ");
    put_clean(o, run->program);
    cuprof_out_puts(o, "\n  arguments:     ");
    if (run->argc == 0)
        cuprof_out_puts(o, "(none)");
    for (int i = 0; i < run->argc; i++) {
        if (i)
            cuprof_out_putc(o, ' ');
        put_arg(o, run->argv[i]);
    }
    cuprof_out_printf(o, "\n  pid:           %ld\n", run->pid);
    const cuprof_place *pl = &run->place;
    if (pl->launcher) {
        cuprof_out_printf(o, "  rank:          %d", (int)pl->rank);
        if (pl->world_size >= 0)
            cuprof_out_printf(o, " of %d", (int)pl->world_size);
        cuprof_out_printf(o, " (%s", pl->launcher);
        if (pl->local_rank >= 0)
            cuprof_out_printf(o, "; local rank %d", (int)pl->local_rank);
        cuprof_out_printf(o, ")%s%s\n", pl->host && pl->host[0] ? " on " : "",
                          pl->host ? pl->host : "");
    }
    cuprof_out_printf(o, "  wall time:     %s (profiler start to exit)\n",
                      cuprof_fmt_time(t, sizeof t, run->wall_ns));
    if (run->ended_by && !said_end && strcmp(run->ended_by, "exit") != 0)
        cuprof_out_printf(o, "  ended by:      %s\n", run->ended_by);
    cuprof_out_printf(o, "  calls:         %llu recorded on %zu thread%s\n",
                      (unsigned long long)run->nevents, run->nthreads, run->nthreads == 1 ? "" : "s");
    const cuprof_summary *sm = w->sum;
    /* failed calls, from the findings (model/findings_errors.c) */
    uint64_t failed = 0;
    for (size_t i = 0; i < sm->napi; i++)
        failed += sm->api[i].errors;
    const cuprof_finding *all_failed = NULL;
    for (size_t i = 0; i < sm->nfindings; i++)
        if (!strcmp(sm->findings[i].rule, "all-calls-failed"))
            all_failed = &sm->findings[i];
    if (all_failed)
        cuprof_out_printf(o, "  errors:        %s (see Findings)\n", all_failed->message);
    else if (failed)
        cuprof_out_printf(o, "  errors:        %llu call%s failed (see Findings)\n", (unsigned long long)failed,
                          failed == 1 ? "" : "s");
    if (sm->overhead_per_call_ns) {
        char per[32], all[32], pct[32];
        cuprof_out_printf(o, "  profiler:      about %s of overhead per call, %s in all (%s of the CPU time "
                             "in CUDA calls; measured at the first call, CUPTI's own cost not included)\n",
                          cuprof_fmt_time(per, sizeof per, sm->overhead_per_call_ns),
                          cuprof_fmt_time(all, sizeof all, sm->overhead_total_ns),
                          cuprof_fmt_pct(pct, sizeof pct, sm->overhead_total_ns, sm->self_cpu_total_ns));
    } else {
        cuprof_out_puts(o, "  profiler:      overhead not measured\n");
    }
    const cuprof_capture *cap = &run->capture;
    if (cap->trigger && cap->opened == 0) {
        cuprof_out_puts(o, "  CAPTURE WINDOW NEVER OPENED: ");
        put_clean(o, cap->trigger);
        cuprof_out_printf(o, " seen %llu time%s, %u to skip (%s); calls outside the window "
                             "are not recorded, so the tables are empty\n",
                          (unsigned long long)cap->seen, cap->seen == 1 ? "" : "s",
                          cap->skip_first, cap->spec);
    } else if (cap->trigger) {
        char rec[32];
        cuprof_out_puts(o, "  capture:       ");
        put_clean(o, cap->spec);
        cuprof_out_printf(o, ": %llu window%s, %s recorded of the wall time%s\n",
                          (unsigned long long)cap->opened, cap->opened == 1 ? "" : "s",
                          cuprof_fmt_time(rec, sizeof rec, cuprof_capture_recorded_ns(cap)),
                          cap->open_at_end ? " (the last still open at the end)" : "");
        if (cap->flight_ns) {
            char peak[32], bound[32];
            cuprof_out_puts(o, "  flight:        written because ");
            put_clean(o, cap->nwhy ? cap->window_why[cap->nwhy - 1] : "(not said)");
            cuprof_out_printf(o, "; the ring held %s at most (its bound: %s)%s\n",
                              cuprof_fmt_bytes(peak, sizeof peak, cap->flight_peak_bytes),
                              cuprof_fmt_bytes(bound, sizeof bound, cap->flight_bytes),
                              cap->flight_evicted_until
                                  ? "; it filled, so the window starts where the oldest record "
                                    "it still held does"
                                  : "");
        }
    }
    if (run->dropped)
        cuprof_out_printf(o, "  dropped:       %llu calls counted but not recorded (the run file "
                             "could not grow, or no memory): # of Calls counts them, the times "
                             "do not\n",
                          (unsigned long long)run->dropped);
    if (run->spill_failure)
        cuprof_out_printf(o, "  RECORDING STOPPED: the run file could not grow (%s); calls "
                             "after that are counted, not recorded\n", run->spill_failure);
    if (run->run_file) {
        const char *base = strrchr(run->run_file, '/');
        cuprof_out_printf(o, "  run file:      %s, %llu bytes (%.1f a call); prof.sh report builds "
                             "these files again from it, with other options\n",
                          base ? base + 1 : run->run_file,
                          (unsigned long long)run->run_file_bytes,
                          run->nevents ? (double)run->run_file_bytes / (double)run->nevents : 0.0);
        if (run->window_files)
            cuprof_out_printf(o, "  windows:       each in its own files too: %s\n",
                              run->window_files);
        int live = run->ended_by && !strncmp(run->ended_by, "still running", 13);
        if (run->run_file_lost && !run->truncated)   /* (truncated: said first) */
            cuprof_out_printf(o, "  %s%s\n", live ? "SNAPSHOT:      " : "RUN FILE CUT:  ",
                              run->run_file_lost);
    }
    cuprof_out_puts(o, "  GPU timeline:  ");
    cuprof_out_puts(o, run->gpu.captured ? "captured" : "not captured: ");
    if (!run->gpu.captured || (run->gpu.reason && run->gpu.reason[0])) {
        if (run->gpu.captured)
            cuprof_out_puts(o, " (");
        put_clean(o, run->gpu.reason ? run->gpu.reason : "unknown reason");
        if (run->gpu.captured)
            cuprof_out_putc(o, ')');
    }
    cuprof_out_putc(o, '\n');
    put_gpu_block(w);
    cuprof_out_putc(o, '\n');
}

/* One table line: cells right-aligned, each followed by two spaces. */
static void put_row(txt_writer *tw, const char *const cells[NCOLS])
{
    cuprof_out *o = tw->base.out;
    for (int c = 0; c < NCOLS; c++) {
        cuprof_out_pad(o, cells[c], c == 0 ? tw->name_width : COL_WIDTH, 1);
        cuprof_out_puts(o, "  ");
    }
    cuprof_out_putc(o, '\n');
}

static void put_rule(txt_writer *tw)
{
    cuprof_out *o = tw->base.out;
    for (int c = 0; c < NCOLS; c++) {
        int n = c == 0 ? tw->name_width : COL_WIDTH;
        for (int i = 0; i < n; i++)
            cuprof_out_putc(o, '-');
        cuprof_out_puts(o, "  ");
    }
    cuprof_out_putc(o, '\n');
}

static void put_api_table(txt_writer *tw)
{
    cuprof_out *o = tw->base.out;
    const cuprof_summary *s = tw->base.sum;
    int gpu = tw->base.run->gpu.captured;
    size_t longest = 0;
    for (size_t i = 0; i < s->napi; i++)
        if (strlen(s->api[i].name) > longest)
            longest = strlen(s->api[i].name);
    tw->name_width = (int)(longest + 4 < NAME_MAX_WIDTH ? longest + 4 : NAME_MAX_WIDTH);
    if (tw->name_width < 8)
        tw->name_width = 8;

    put_rule(tw);
    put_row(tw, HEADERS);
    put_rule(tw);
    for (size_t i = 0; i < s->napi; i++) {
        const cuprof_stat_api *a = &s->api[i];
        char cell[NCOLS][64];
        const char *cells[NCOLS];
        uint64_t calls = a->calls > a->dropped ? a->calls - a->dropped : 1;   /* timed calls */
        if (strlen(a->name) >= NAME_MAX_WIDTH - 3)   /* torch trims the same way */
            snprintf(cell[0], sizeof cell[0], "%.*s...", NAME_MAX_WIDTH - 3, a->name);
        else
            snprintf(cell[0], sizeof cell[0], "%s", a->name);
        for (char *p = cell[0]; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                *p = '?';
        cuprof_fmt_pct(cell[1], 64, a->cpu_self_ns, s->self_cpu_total_ns);
        cuprof_fmt_time(cell[2], 64, a->cpu_self_ns);
        cuprof_fmt_pct(cell[3], 64, a->cpu_total_ns, s->self_cpu_total_ns);
        cuprof_fmt_time(cell[4], 64, a->cpu_total_ns);
        cuprof_fmt_time(cell[5], 64, a->cpu_total_ns / calls);
        if (gpu) {
            cuprof_fmt_time(cell[6], 64, a->cuda_self_ns);
            cuprof_fmt_pct(cell[7], 64, a->cuda_self_ns, s->self_cuda_total_ns);
            cuprof_fmt_time(cell[8], 64, a->cuda_total_ns);
            cuprof_fmt_time(cell[9], 64, a->cuda_total_ns / calls);
        } else {   /* empty until the GPU timeline is captured */
            for (int c = 6; c <= 9; c++)
                cell[c][0] = '\0';
        }
        snprintf(cell[10], 64, "%llu", (unsigned long long)a->calls);
        cuprof_fmt_time(cell[11], 64, a->min_ns);
        fmt_median(cell[12], 64, a->median_ns, a->median_sketched);
        cuprof_fmt_time(cell[13], 64, a->max_ns);
        for (int c = 0; c < NCOLS; c++)
            cells[c] = cell[c];
        put_row(tw, cells);
    }
    put_rule(tw);
    char t[32];
    cuprof_out_printf(o, "Self CPU time total: %s\n", cuprof_fmt_time(t, sizeof t, s->self_cpu_total_ns));
    cuprof_out_printf(o, "Self CUDA time total: %s%s\n", cuprof_fmt_time(t, sizeof t, s->self_cuda_total_ns),
                      gpu ? "" : " (no GPU timeline)");
    if (cuprof_summary_any_sketched(tw->base.run, tw->base.sum, tw->base.model->timeline))
        cuprof_out_printf(o, "~ median: approximate, within %.2f%% (a row of more than %llu samples keeps a "
                             "log-bucket sketch, not every duration; min and max are exact)\n",
                          100.0 * CUPROF_QUANTILE_REL_ERR,
                          (unsigned long long)(tw->base.run->quantile_exact_max ? tw->base.run->quantile_exact_max
                                                                                : CUPROF_QUANTILE_EXACT_MAX));
}

static void put_kernels(cuprof_writer *w)
{
    cuprof_out *o = w->out;
    const cuprof_summary *s = w->sum;
    if (s->nkernels == 0)
        return;
    int gpu = w->run->gpu.captured;
 cuprof_out_puts(o, gpu ? "\nKernels (launches: executions on the device; FLOPs are counted for library calls "
                            "only, a kernel of the program's own has none: its work is unknown)\n"
                          : "\nKernels (launches seen by the CPU; GPU times need the GPU timeline)\n");
    cuprof_out_printf(o, "  %10s", "Launches");
    if (gpu)
        cuprof_out_printf(o, "  %12s  %12s  %12s  %12s", "GPU total", "Min", "Median", "Max");
    cuprof_out_puts(o, "  Kernel\n");
    for (size_t i = 0; i < s->nkernels; i++) {
        const cuprof_stat_kernel *k = &s->kernels[i];
        cuprof_out_printf(o, "  %10llu", (unsigned long long)k->launches);
        if (gpu) {
            char a[32], b[32], c[32], d[32];
            cuprof_out_printf(o, "  %12s  %12s  %12s  %12s", cuprof_fmt_time(a, 32, k->gpu_total_ns),
                              cuprof_fmt_time(b, 32, k->min_ns), fmt_median(c, 32, k->median_ns, k->median_sketched),
                              cuprof_fmt_time(d, 32, k->max_ns));
        }
        cuprof_out_puts(o, "  ");
        put_clean(o, k->name);
        cuprof_out_putc(o, '\n');
    }
}

/* NCCL's collectives (model/collectives.h): per operation, datatype, size
 * and communicator size, with nccl-tests' algorithm and bus bandwidth; then
 * the NCCL kernel time no compute kernel hid. */
static void put_collectives(cuprof_writer *w)
{
    cuprof_out *o = w->out;
    const cuprof_collectives *c = w->model->colls;
    if (!c || c->nrows == 0)
        return;
    int gpu = w->run->gpu.captured;
    cuprof_out_puts(o, "\nCollectives (NCCL; size and bandwidth as nccl-tests counts them: busbw = algbw x "
                       "2(n-1)/n for AllReduce, (n-1)/n for AllGather, ReduceScatter, AlltoAll)\n");
    int algo = 0;
    for (size_t i = 0; i < c->nrows; i++)
        algo |= c->rows[i].algo[0] != 0;
    cuprof_out_printf(o, "  %8s  %-14s  %-6s  %10s  %5s", "Calls", "Operation", "Type", "Size", "Ranks");
    if (gpu)
        cuprof_out_printf(o, "  %12s  %12s  %12s  %12s  %9s  %9s", "GPU total", "Min", "Median", "Max",
                          "algbw", "busbw");
    if (algo)
        cuprof_out_puts(o, "  Algo (NCCL's profiler plugin)");
    cuprof_out_putc(o, '\n');
    for (size_t i = 0; i < c->nrows; i++) {
        const cuprof_coll_row *r = &c->rows[i];
        char sz[32], rk[16] = "?";
        if (r->nranks)
            snprintf(rk, sizeof rk, "%u", r->nranks);
        cuprof_out_printf(o, "  %8llu  %-14s  %-6s  %10s  %5s", (unsigned long long)r->calls, r->op, r->dtype,
                          cuprof_fmt_bytes(sz, sizeof sz, r->size), rk);
        if (gpu) {
            char a[32], b[32], m[32], d[32];
            cuprof_out_printf(o, "  %12s  %12s  %12s  %12s", cuprof_fmt_time(a, 32, r->gpu_total_ns),
                              cuprof_fmt_time(b, 32, r->gpu_min_ns), cuprof_fmt_time(m, 32, r->gpu_median_ns),
                              cuprof_fmt_time(d, 32, r->gpu_max_ns));
            if (r->gpu_median_ns)
                cuprof_out_printf(o, "  %5.1fGB/s  %5.1fGB/s", r->algbw_gbps, r->busbw_gbps);
            else
                cuprof_out_printf(o, "  %9s  %9s", "-", "-");
        }
        if (algo) {
            cuprof_out_puts(o, "  ");
            put_clean(o, r->algo[0] ? r->algo : "-");
        }
        cuprof_out_putc(o, '\n');
    }
    if (gpu && c->nccl_kernel_ns) {
        char a[32], b[32];
        cuprof_out_printf(o, "  exposed communication: %s of %s of NCCL kernel time (%.1f%%) ran with no "
                             "other kernel on its GPU\n",
                          cuprof_fmt_time(a, 32, c->exposed_ns), cuprof_fmt_time(b, 32, c->nccl_kernel_ns),
                          100.0 * (double)c->exposed_ns / (double)c->nccl_kernel_ns);
        if (c->nsteps && w->model->steps && w->model->steps->name)
            cuprof_out_printf(o, "  per step: exposed communication is a median %.1f%% of a %s (%zu steps)\n",
                              100.0 * c->step_share_median, w->model->steps->name, c->nsteps);
    }
}

/* NVTX ranges, one row per name (domain), like torch's record_function
 * rows but in a table of their own: their CPU time is the program's, not
 * CUDA's, and their CUDA time is already in the calls above. */
static void put_ranges(cuprof_writer *w)
{
    cuprof_out *o = w->out;
    const cuprof_summary *s = w->sum;
    if (s->nranges == 0)
        return;
    int gpu = w->run->gpu.captured;
    cuprof_out_puts(o, "\nNVTX ranges (CPU: push to pop; CUDA: device time of the work launched inside)\n");
    cuprof_out_printf(o, "  %8s  %12s  %12s  %12s  %12s", "Calls", "CPU total", "Min", "Median", "Max");
    if (gpu)
        cuprof_out_printf(o, "  %12s  %8s", "CUDA total", "Kernels");
    cuprof_out_puts(o, "  Range\n");
    for (size_t i = 0; i < s->nranges; i++) {
        const cuprof_stat_range *r = &s->ranges[i];
        char a[32], b[32], c[32], d[32];
        cuprof_out_printf(o, "  %8llu  %12s  %12s  %12s  %12s", (unsigned long long)r->calls,
                          cuprof_fmt_time(a, 32, r->cpu_total_ns), cuprof_fmt_time(b, 32, r->min_ns),
                          fmt_median(c, 32, r->median_ns, r->median_sketched), cuprof_fmt_time(d, 32, r->max_ns));
        if (gpu)
            cuprof_out_printf(o, "  %12s  %8llu", cuprof_fmt_time(a, 32, r->gpu_total_ns),
                              (unsigned long long)r->kernels);
        cuprof_out_puts(o, "  ");
        put_clean(o, r->name[0] ? r->name : "(unnamed)");
        if (r->domain[0]) {
            cuprof_out_puts(o, " @");
            put_clean(o, r->domain);
        }
        cuprof_out_putc(o, '\n');
    }
}

/* Steps (model/steps.h): the step range's statistics, then one line per
 * step (the first and last ones when there are many). */
#define STEPS_LISTED 24
static void put_steps(cuprof_writer *w)
{
    cuprof_out *o = w->out;
    const cuprof_summary *s = w->sum;
    const cuprof_steps *st = w->model->steps;
    if (s->nsteps == 0 || !st || st->n == 0)
        return;
    const cuprof_stat_step *r = &s->steps[0];
    int gpu = w->run->gpu.captured;
    char a[32], b[32], c[32], d[32], e[32];
    cuprof_out_puts(o, "\nSteps (NVTX range ");
    put_clean(o, r->name);
    if (r->domain[0]) {
        cuprof_out_puts(o, "@");
        put_clean(o, r->domain);
    }
    cuprof_out_printf(o, ", chosen by %s): %llu steps\n", r->chosen_by,
                      (unsigned long long)r->steps);
    cuprof_out_printf(o, "  step time:  median %s, min %s, max %s; first %s", cuprof_fmt_time(a, 32, r->median_ns),
                      cuprof_fmt_time(b, 32, r->min_ns), cuprof_fmt_time(c, 32, r->max_ns),
                      cuprof_fmt_time(d, 32, r->first_ns));
    if (r->steps > 1)
        cuprof_out_printf(o, ", then median %s", cuprof_fmt_time(e, 32, r->steady_median_ns));
    cuprof_out_putc(o, '\n');
    if (gpu)
        cuprof_out_printf(o, "  GPU:        busy %s of the median step; %s of GPU work launched "
                             "per step (median)\n",
                          cuprof_fmt_pct(a, 32, (uint64_t)(r->busy_median * 1e6 + 0.5), 1000000),
                          cuprof_fmt_time(b, 32, r->gpu_median_ns));
    cuprof_out_printf(o, "  %8s  %12s  %12s", "Step", "Start", "Duration");
    if (gpu)
        cuprof_out_printf(o, "  %10s  %12s  %8s", "GPU busy", "GPU work", "Kernels");
    cuprof_out_putc(o, '\n');
    for (size_t i = 0; i < st->n; i++) {
        if (st->n > STEPS_LISTED && i == STEPS_LISTED / 2) {
            cuprof_out_printf(o, "  %8s  (%zu more)\n", "...", st->n - STEPS_LISTED);
            i = st->n - STEPS_LISTED / 2;
        }
        const cuprof_step *x = &st->s[i];
        cuprof_out_printf(o, "  %8llu  %12s  %12s", (unsigned long long)x->index,
                          cuprof_fmt_time(a, 32, x->start_ns - st->s[0].start_ns),
                          cuprof_fmt_time(b, 32, x->dur_ns));
        if (gpu)
            cuprof_out_printf(o, "  %10s  %12s  %8llu", cuprof_fmt_pct(c, 32, x->busy_ns, x->dur_ns),
                              cuprof_fmt_time(d, 32, x->gpu_ns), (unsigned long long)x->kernels);
        cuprof_out_putc(o, '\n');
    }
}

static void put_copies(cuprof_writer *w)
{
    cuprof_out *o = w->out;
    const cuprof_summary *s = w->sum;
    if (s->ncopies == 0)
        return;
    int gpu = w->run->gpu.captured;
    cuprof_out_printf(o, "\nCopies and memsets\n  %-8s  %10s  %14s", "Kind", "Calls", "Bytes");
    if (gpu)
        cuprof_out_printf(o, "  %10s  %14s  %12s  %10s  %s", "On device", "Device bytes", "GPU total",
                          "GB/s", "of memory bandwidth");
    cuprof_out_putc(o, '\n');
    for (size_t i = 0; i < s->ncopies; i++) {
        const cuprof_stat_copy *c = &s->copies[i];
        char b[32], db[32], t[32];
        cuprof_out_printf(o, "  %-8s  %10llu  %14s", c->kind, (unsigned long long)c->calls,
                          cuprof_fmt_bytes(b, sizeof b, c->bytes));
        if (gpu)
        {
            cuprof_out_printf(o, "  %10llu  %14s  %12s  %10.2f", (unsigned long long)c->gpu_copies,
                              cuprof_fmt_bytes(db, sizeof db, c->gpu_bytes),
                              cuprof_fmt_time(t, sizeof t, c->gpu_total_ns), c->gb_per_s);
            if (c->mem_pct > 0)
                cuprof_out_printf(o, "  %.1f%% of %.0f GB/s", c->mem_pct, s->device.mem_gbps);
        }
        cuprof_out_putc(o, '\n');
    }
}

/* CUDA graphs: each replayed graph, and its GPU time by where its nodes
 * were captured from (model/graphs.h). */
static void put_graphs(cuprof_writer *w)
{
    cuprof_out *o = w->out;
    const cuprof_graphs *gs = w->model->graphs;
    if (!gs || gs->n == 0)
        return;
    char t[32];
    cuprof_out_puts(o, "\nCUDA graphs (replayed work by the call each node was captured from)\n");
    for (size_t i = 0; i < gs->n; i++) {
        const cuprof_graph *g = &gs->g[i];
        cuprof_out_printf(o, "  graph %u: %llu launch%s, %llu node%s ran, GPU total %s\n", g->id,
                          (unsigned long long)g->launches, g->launches == 1 ? "" : "es",
                          (unsigned long long)g->nodes, g->nodes == 1 ? "" : "s",
                          cuprof_fmt_time(t, sizeof t, g->gpu_total_ns));
        cuprof_out_printf(o, "    %8s  %12s  %s\n", "Records", "GPU total", "Captured from");
        for (size_t k = 0; k < g->norigins; k++) {
            const cuprof_graph_origin *x = &g->origins[k];
            cuprof_out_printf(o, "    %8llu  %12s  ", (unsigned long long)x->records,
                              cuprof_fmt_time(t, sizeof t, x->gpu_total_ns));
            put_clean(o, x->label);
            if (x->event && strcmp(x->label, x->work) != 0 && !strstr(x->label, x->work)) {
                cuprof_out_puts(o, " -> ");
                put_clean(o, x->work);
            }
            if (x->range) {
                cuprof_out_puts(o, " [in ");
                put_clean(o, x->range);
                cuprof_out_putc(o, ']');
            }
            if (x->site) {
                cuprof_out_puts(o, " at ");
                put_clean(o, x->site);
            }
            cuprof_out_putc(o, '\n');
        }
    }
}

/* Owners: "    16.00 MiB       2  cudaMallocAsync [at site]" */
static void put_owners(cuprof_out *o, const cuprof_mem_owner *top, size_t n)
{
    cuprof_out_printf(o, "    %12s  %7s  %s\n", "Bytes", "Allocs", "Allocated by");
    for (size_t i = 0; i < n; i++) {
        char b[32];
        cuprof_out_printf(o, "    %12s  %7llu  %s%s%s\n", cuprof_fmt_bytes(b, sizeof b, top[i].bytes),
                          (unsigned long long)top[i].allocations, top[i].api, top[i].site ? " at " : "",
                          top[i].site ? top[i].site : "");
    }
}

/* Device memory: the peak, who held it, and allocations that failed. */
static void put_memory(cuprof_writer *w)
{
    cuprof_out *o = w->out;
    const cuprof_memory *m = w->model->memory;
    if (!m || (m->allocations == 0 && m->noom == 0 && m->held_at_open_allocations == 0))
        return;
    char b[32], c[32], t[32], t2[32];
    cuprof_out_puts(o, "\nDevice memory (cudaMalloc and its kin, held from each allocation to its free)\n");
    if (m->held_at_open_allocations)
        cuprof_out_printf(o, "  at the window: %s held when it opened, in %llu allocation%s made before it\n",
                          cuprof_fmt_bytes(b, sizeof b, m->held_at_open_bytes),
                          (unsigned long long)m->held_at_open_allocations,
                          m->held_at_open_allocations == 1 ? "" : "s");
    cuprof_out_printf(o, "  peak:          %s at %s (%llu allocation%s live)\n",
                      cuprof_fmt_bytes(b, sizeof b, m->peak_bytes),
                      cuprof_fmt_time(t, sizeof t, m->peak_t > w->run->t_start ? m->peak_t - w->run->t_start : 0),
                      (unsigned long long)m->peak_allocations, m->peak_allocations == 1 ? "" : "s");
    cuprof_out_printf(o, "  allocations:   %llu (%s), %llu freed; %s still held at exit\n",
                      (unsigned long long)m->allocations, cuprof_fmt_bytes(b, sizeof b, m->allocated_bytes),
                      (unsigned long long)m->frees, cuprof_fmt_bytes(c, sizeof c, m->end_bytes));
    if (m->reserved.calls || m->mapped.calls)
        cuprof_out_printf(o, "  address space: %s reserved at most (cuMemAddressReserve; %s at exit), %s mapped at "
                          "most (cuMemMap; %s at exit); the memory mapped is cuMemCreate's, counted above\n",
                          cuprof_fmt_bytes(b, sizeof b, m->reserved.peak_bytes),
                          cuprof_fmt_bytes(c, sizeof c, m->reserved.end_bytes),
                          cuprof_fmt_bytes(t, sizeof t, m->mapped.peak_bytes),
                          cuprof_fmt_bytes(t2, sizeof t2, m->mapped.end_bytes));
    if (m->ntop) {
        cuprof_out_puts(o, "  held at the peak by:\n");
        put_owners(o, m->top, m->ntop);
    }
    for (size_t i = 0; i < m->noom; i++) {
        const cuprof_mem_oom *x = &m->oom[i];
        cuprof_out_printf(o, "  OUT OF MEMORY: %s of %s failed at %s%s%s; %s held then by %llu allocation%s\n",
                          x->api, cuprof_fmt_bytes(b, sizeof b, x->requested),
                          cuprof_fmt_time(t, sizeof t, x->t > w->run->t_start ? x->t - w->run->t_start : 0),
                          x->site ? " at " : "", x->site ? x->site : "", cuprof_fmt_bytes(c, sizeof c, x->live_bytes),
                          (unsigned long long)x->live_allocations, x->live_allocations == 1 ? "" : "s");
        if (x->ntop)
            put_owners(o, x->top, x->ntop);
    }
    if (m->oom_total > m->noom)
        cuprof_out_printf(o, "  (%llu failed allocations in all; the first %zu are shown)\n",
                          (unsigned long long)m->oom_total, m->noom);
}

/* A row's FLOPs per call, TFLOP/s and share of the peak as the tables
 * show them ("-" for what is not known; fl and rate: 32 bytes). */
static void put_rate(uint64_t flops, double tflops, const char *prec, double peak, double pct, char *fl,
                     char *rate, char *pk, size_t npk)
{
    if (flops)
        cuprof_fmt_count(fl, 32, (double)flops);
    else
        snprintf(fl, 32, "-");
    if (tflops > 0)
        snprintf(rate, 32, tflops >= 100 ? "%.1f" : tflops >= 1 ? "%.2f" : "%.2g", tflops);
    else
        snprintf(rate, 32, "-");
    if (peak > 0)
        snprintf(pk, npk, pct >= 1 ? "%.1f%% of %s %.0f" : "%.2g%% of %s %.0f", pct, prec, peak);
    else if (flops)
        snprintf(pk, npk, "- (%s)", prec && prec[0] ? prec : "unknown");
    else
        snprintf(pk, npk, "-");
}

static void put_blas(cuprof_writer *w)
{
    cuprof_out *o = w->out;
    const cuprof_summary *s = w->sum;
    if (s->nblas == 0)
        return;
    cuprof_out_puts(o, "\nBLAS calls by shape (FLOPs as torch counts them: 2mnk per matrix, x4 complex, "
                       "+mn for a bias epilogue; TFLOP/s over the calls' own kernels");
    if (s->device.peak_label) {
        cuprof_out_puts(o, "; % of the ");
        put_clean(o, s->device.peak_label);
        cuprof_out_puts(o, "'s dense peak)\n");
    } else {
        cuprof_out_puts(o, "; no peak known)\n");
    }
    for (size_t i = 0; i < s->nblas; i++) {
        const cuprof_stat_blas *b = &s->blas[i];
        cuprof_out_puts(o, "  ");
        put_clean(o, b->name);
        cuprof_out_printf(o, ": %llu call%s\n", (unsigned long long)b->calls, b->calls == 1 ? "" : "s");
        cuprof_out_printf(o, "    %10s  %8s  %8s  %8s  %6s  %-12s  %-14s  %-11s  %10s  %12s  %9s  %s\n", "Calls",
                          "m", "n", "k", "batch", "dtype", "epilogue", "op(A),op(B)", "FLOPs/call",
                          "GPU total", "TFLOP/s", "of peak");
        for (size_t j = 0; j < b->nshapes; j++) {
            const cuprof_stat_shape *sh = &b->shapes[j];
            char ops[16], fl[32], gt[32], rate[32], pk[48];
            snprintf(ops, sizeof ops, "%s,%s", sh->transa, sh->transb);
            if (sh->gpu_ns)
                cuprof_fmt_time(gt, sizeof gt, sh->gpu_ns);
            else
                snprintf(gt, sizeof gt, "-");
            put_rate(sh->flops_per_call, sh->tflops, sh->prec, sh->peak_tflops, sh->peak_pct, fl, rate,
                     pk, sizeof pk);
            cuprof_out_printf(o, "    %10llu  %8u  %8u  %8u  %6u  %-12s  %-14s  %-11s  %10s  %12s  %9s  %s\n",
                              (unsigned long long)sh->calls, sh->m, sh->n, sh->k, sh->batch, sh->dtype,
                              sh->epilogue, ops, fl, gt, rate, pk);
        }
    }
}

/* The math libraries' calls that compute, by size (model/mathlib.h). */
static void put_math(cuprof_writer *w)
{
    cuprof_out *o = w->out;
    const cuprof_summary *s = w->sum;
    if (s->nmath == 0)
        return;
    cuprof_out_puts(o, "\nMath library calls by size (cuFFT: type and dims; cuRAND: distribution and count; "
                       "cuSPARSE: format, m, n, nnz; cuSOLVER: m, n, nrhs; FLOPs as LAPACK and the FFT "
                       "literature count them, model/mathlib.h; TFLOP/s over the device time charged to "
                       "the calls)\n");
    cuprof_out_printf(o, "  %10s  %12s  %-10s  %10s  %10s  %10s  %6s  %-12s  %10s  %9s  %-22s  %s\n", "Calls",
                      "GPU total", "kind", "m", "n", "k/nnz", "batch", "dtype", "FLOPs/call", "TFLOP/s",
                      "of peak", "Entry point");
    for (size_t i = 0; i < s->nmath; i++) {
        const cuprof_stat_math *r = &s->math[i];
        char gpu[32], fl[32], rate[32], pk[48];
        cuprof_fmt_time(gpu, sizeof gpu, r->gpu_total_ns);
        put_rate(r->flops_per_call, r->tflops, r->prec, r->peak_tflops, r->peak_pct, fl, rate, pk,
                 sizeof pk);
        cuprof_out_printf(o, "  %10llu  %12s  %-10s  %10llu  %10llu  %10llu  %6llu  %-12s  %10s  %9s  %-22s  ",
                          (unsigned long long)r->calls, gpu, r->kind, (unsigned long long)r->m,
                          (unsigned long long)r->n, (unsigned long long)r->k, (unsigned long long)r->batch,
                          r->dtype, fl, rate, pk);
        put_clean(o, r->name);
        cuprof_out_putc(o, '\n');
    }
}

/* What the rules noticed (model/findings.h): one block per finding, the
 * message, then what to try. */
static void put_findings(cuprof_writer *w)
{
    cuprof_out *o = w->out;
    const cuprof_summary *s = w->sum;
    cuprof_out_puts(o, "\nFindings\n");
    if (s->nfindings == 0)
        cuprof_out_puts(o, "  (none)\n");
    for (size_t i = 0; i < s->nfindings; i++) {
        const cuprof_finding *f = &s->findings[i];
        cuprof_out_puts(o, "  [");
        put_clean(o, f->severity ? f->severity : "info");
        cuprof_out_puts(o, "] ");
        put_clean(o, f->rule ? f->rule : "?");
        cuprof_out_puts(o, ": ");
        put_clean(o, f->message ? f->message : "");
        cuprof_out_putc(o, '\n');
        if (f->advice && f->advice[0]) {
            cuprof_out_puts(o, "      try: ");
            put_clean(o, f->advice);
            cuprof_out_putc(o, '\n');
        }
    }
}

/* Launch sites (--stacks, model/stacks.h): where in the program the GPU
 * time was asked for, by GPU time. */
#define SITES_SHOWN 15
static void put_sites(cuprof_writer *w)
{
    cuprof_out *o = w->out;
    const cuprof_stacks *sk = w->model->stacks;
    if (!w->run->stacks_mode || !sk)
        return;
    cuprof_out_printf(o, "\nTop launch sites (host stacks, %s; by source line: the calls' "
                         "Python line, else their program frame's file:line; Self CUDA: the work "
                         "launched there, CUDA total: of every call through it)\n",
                      w->run->stacks_mode);
    if (sk->nsites == 0) {
        cuprof_out_puts(o, "  (no call with a stack)\n");
        return;
    }
    cuprof_out_printf(o, "  %12s  %6s  %12s  %8s  %8s  %12s  Site\n", "Self CUDA", "Self %",
                      "CUDA total", "Kernels", "Calls", "CPU total");
    size_t n = sk->nsites < SITES_SHOWN ? sk->nsites : SITES_SHOWN;
    for (size_t i = 0; i < n; i++) {
        const cuprof_stat_site *r = &sk->sites[i];
        char a[32], b[32], c[32];
        double pct = sk->gpu_total_ns ? 100.0 * (double)r->gpu_total_ns / (double)sk->gpu_total_ns : 0;
        cuprof_out_printf(o, "  %12s  %5.1f%%  %12s  %8llu  %8llu  %12s  ",
                          cuprof_fmt_time(a, 32, r->gpu_total_ns), pct,
                          cuprof_fmt_time(c, 32, r->cuda_total_ns),
                          (unsigned long long)r->kernels, (unsigned long long)r->calls,
                          cuprof_fmt_time(b, 32, r->cpu_total_ns));
        put_clean(o, r->site);
        cuprof_out_putc(o, '\n');
    }
    if (sk->nsites > n)
        cuprof_out_printf(o, "  ... %zu more sites in the summary.json and the flame graphs\n",
                          sk->nsites - n);
    if (w->run->stacks_lost)
        cuprof_out_printf(o, "  %llu calls got no stack (the stack table was full)\n",
                          (unsigned long long)w->run->stacks_lost);
}

static int txt_write(cuprof_writer *w)
{
    put_header_block(w);
    put_api_table((txt_writer *)w);
    put_ranges(w);
    put_steps(w);
    put_kernels(w);
    put_collectives(w);
    put_copies(w);
    put_graphs(w);
    put_memory(w);
    put_blas(w);
    put_math(w);
    put_sites(w);
    put_findings(w);
    return 0;
}

const cuprof_writer_ops cuprof_summary_txt_ops = {
    .suffix = "summary.txt",
    .size = sizeof(txt_writer),
    .write = txt_write,
};
