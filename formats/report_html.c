/*
 * report_html.c - NAME.report.html (--report-html; prof.sh report --html):
 * one self-contained page a person takes in at a glance, that fetches
 * nothing. It holds, in this order: uPlot's CSS and the page's, the run as
 * JSON in <script id="cuprof-data" type="application/json">, uPlot's code
 * and the page's (formats/html/: report.js draws everything from the JSON).
 * The assets come into the library at build time (.incbin: formats.mk).
 *
 * The JSON: {"summary": summary.json's object, as that writer writes it,
 * "timeline": {"t0_ns", "bucket_ns", "n", "gpu": [{"device", "busy": [the
 * records' time in each interval over its length, capped at 1: records of
 * streams running at once add up, so a partly busy interval of concurrent
 * streams can read high]}], "streams": [{
 * "device", "stream", "busy": [...]}] (the first TL_MAX_STREAMS), "cpu":
 * [{"tid", "name", "calls": [outermost calls begun in each interval]}],
 * "memory": [[ns from t0, most bytes held in the interval], ...]}}: the
 * timeline is summarised into TL_BUCKETS intervals (never one point per
 * call), so a run of any length gives a page of about the same size; with
 * --stacks, "flame": [["outer;...;api;kernel", GPU ns], ...] (flame.c: the
 * FLAME_LINES heaviest stacks). Every
 * '<' in the JSON is written \u003c (they are all inside strings), so no
 * kernel name or argument can end the script element.
 */
#include "formats/html_page.h"
#include "formats/units.h"
#include "formats/writer.h"
#include "model/memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TL_BUCKETS 600
#define TL_MAX_DEVICES 16
#define TL_MAX_STREAMS 16   /* stream lanes past these are in their device's */
#define TL_MAX_THREADS 32
#define FLAME_LINES 2000   /* the heaviest stacks kept for the flame graph */

static int html_wanted(const cuprof_model *m)
{
    return m->run->report_html;
}

/* Adds the part of [a, b) inside each bucket to acc (ns). */
static void spread(double *acc, uint64_t t0, uint64_t bw, size_t n, uint64_t a, uint64_t b)
{
    if (b <= a || b <= t0)
        return;
    if (a < t0)
        a = t0;
    size_t i = (size_t)((a - t0) / bw);
    while (i < n && a < b) {
        uint64_t end = t0 + (i + 1) * bw, upto = b < end ? b : end;
        acc[i] += (double)(upto - a);
        a = upto;
        i++;
    }
}

static void put_share(cuprof_out *o, double v)
{
    if (v > 1)
        v = 1;
    cuprof_out_printf(o, "%.3f", v);
}

/* One busy lane: {"device", ["stream",] "busy": [share of each interval]}
 * of device d's records (stream NULL) or of one of its streams. acc: n
 * doubles of scratch. */
static void put_lane(cuprof_out *o, const cuprof_gpu_run *g, double *acc, uint64_t t0, uint64_t bw, size_t n,
                     uint32_t d, const uint32_t *stream, int first)
{
    memset(acc, 0, n * sizeof *acc);
    for (size_t k = 0; k < g->n_kernels; k++)
        if (g->kernels[k].device == d && (!stream || g->kernels[k].stream == *stream))
            spread(acc, t0, bw, n, g->kernels[k].start_ns, g->kernels[k].end_ns);
    for (size_t k = 0; k < g->n_copies; k++)
        if (g->copies[k].device == d && (!stream || g->copies[k].stream == *stream))
            spread(acc, t0, bw, n, g->copies[k].start_ns, g->copies[k].end_ns);
    cuprof_out_printf(o, "%s{\"device\":%u,", first ? "" : ",", d);
    if (stream)
        cuprof_out_printf(o, "\"stream\":%u,", *stream);
    cuprof_out_puts(o, "\"busy\":[");
    for (size_t i = 0; i < n; i++) {
        if (i)
            cuprof_out_putc(o, ',');
        put_share(o, acc[i] / (double)bw);
    }
    cuprof_out_puts(o, "]}");
}

static void put_timeline(cuprof_writer *w)
{
    const cuprof_run *run = w->run;
    const cuprof_model *m = w->model;
    cuprof_out *o = w->out;
    uint64_t t0 = run->t_start, t1 = run->t_end > run->t_start ? run->t_end : run->t_start + 1;
    uint64_t bw = (t1 - t0 + TL_BUCKETS - 1) / TL_BUCKETS;
    if (bw < 1000)
        bw = 1000;   /* intervals of at least 1 us */
    size_t n = (size_t)((t1 - t0 + bw - 1) / bw);
    if (n > TL_BUCKETS)
        n = TL_BUCKETS;
    cuprof_out_printf(o, ",\"timeline\":{\"t0_ns\":%llu,\"bucket_ns\":%llu,\"n\":%zu,\"gpu\":[",
                      (unsigned long long)t0, (unsigned long long)bw, n);
    const cuprof_gpu_run *g = m->timeline && run->gpu.captured ? m->timeline->gpu : NULL;
    double *acc = calloc(n ? n : 1, sizeof *acc);
    /* the lanes: each device (all its streams), then each (device, stream) */
    uint32_t devs[TL_MAX_DEVICES], sdev[TL_MAX_STREAMS], sid[TL_MAX_STREAMS];
    size_t ndev = 0, nstr = 0;
    for (size_t k = 0; g && k < g->n_kernels + g->n_copies; k++) {
        int kern = k < g->n_kernels;
        uint32_t d = kern ? g->kernels[k].device : g->copies[k - g->n_kernels].device;
        uint32_t st = kern ? g->kernels[k].stream : g->copies[k - g->n_kernels].stream;
        size_t j = 0;
        while (j < ndev && devs[j] != d)
            j++;
        if (j == ndev && ndev < TL_MAX_DEVICES)
            devs[ndev++] = d;
        for (j = 0; j < nstr && !(sdev[j] == d && sid[j] == st); j++)
            ;
        if (j == nstr && nstr < TL_MAX_STREAMS) {
            sdev[nstr] = d;
            sid[nstr++] = st;
        }
    }
    for (size_t j = 0; acc && j < ndev; j++)
        put_lane(o, g, acc, t0, bw, n, devs[j], NULL, j == 0);
    cuprof_out_puts(o, "],\"streams\":[");
    for (size_t j = 0; acc && j < nstr; j++)
        put_lane(o, g, acc, t0, bw, n, sdev[j], &sid[j], j == 0);
    cuprof_out_puts(o, "],\"cpu\":[");
    uint64_t *calls = calloc(n ? n : 1, sizeof *calls);
    for (size_t t = 0; calls && t < run->nthreads && t < TL_MAX_THREADS; t++) {
        const cuprof_run_thread *th = &run->threads[t];
        memset(calls, 0, n * sizeof *calls);
        for (uint64_t i = 0; i < th->n; i++) {
            const cuprof_event *ev = cuprof_run_event(th, i);
            if (ev->depth == 0 && !cuprof_ev_is_nvtx(ev->cls) && ev->t0 >= t0 && (ev->t0 - t0) / bw < n)
                calls[(ev->t0 - t0) / bw]++;
        }
        cuprof_out_printf(o, "%s{\"tid\":%u,\"name\":", t ? "," : "", th->tid);
        char name[40];
        size_t nl = 0;
        for (const char *c = th->name; *c && nl + 1 < sizeof name && c < th->name + sizeof th->name; c++)
            if (*c != '<')
                name[nl++] = *c;
        name[nl] = '\0';
        cuprof_out_json_cstr(o, name);
        cuprof_out_puts(o, ",\"calls\":[");
        for (size_t i = 0; i < n; i++) {
            if (i)
                cuprof_out_putc(o, ',');
            cuprof_out_u64(o, calls[i]);
        }
        cuprof_out_puts(o, "]}");
    }
    cuprof_out_puts(o, "],\"memory\":[");
    const cuprof_memory *mm = m->memory;
    if (mm && mm->nsteps) {   /* the most held in each interval, so the peak shows */
        int64_t held = 0;
        size_t k = 0, wrote = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t end = t0 + (i + 1) * bw;
            int64_t most = held;
            int any = 0;
            while (k < mm->nsteps && mm->steps[k].t < end) {
                held += mm->steps[k].delta;
                if (held > most)
                    most = held;
                k++;
                any = 1;
            }
            if (any || i == 0 || i + 1 == n) {
                cuprof_out_printf(o, "%s[%llu,%lld]", wrote++ ? "," : "", (unsigned long long)(i * bw),
                                  (long long)(most > 0 ? most : 0));
            }
        }
    }
    cuprof_out_puts(o, "]}");
    free(acc);
    free(calls);
}

static void put_out(void *ctx, const char *s, size_t n)
{
    cuprof_out_write(ctx, s, n);
}

static int html_write(cuprof_writer *w)
{
    cuprof_out data;
    if (cuprof_out_open_mem(&data) < 0)
        return -1;
    cuprof_out_puts(&data, "{\"summary\":");
    cuprof_writer tl = *w;   /* put_timeline writes to tl.out */
    tl.out = &data;
    if (cuprof_writer_run(&cuprof_summary_json_ops, &data, w->model) < 0) {
        cuprof_out_discard(&data);
        return -1;
    }
    while (data.len && (data.buf[data.len - 1] == '\n' || data.buf[data.len - 1] == ' '))
        data.len--;
    put_timeline(&tl);
    if (w->model->stacks && w->run->nstacks > 0) {   /* the flame graph's lines */
        cuprof_out_puts(&data, ",\"flame\":");
        if (cuprof_flame_json(&data, w->model, FLAME_LINES) < 0) {
            cuprof_out_discard(&data);
            return -1;
        }
    }
    cuprof_out_putc(&data, '}');
    if (cuprof_out_commit(&data) < 0) {
        cuprof_out_discard(&data);
        return -1;
    }
    const char *prog = w->run->program ? w->run->program : "?";
    const char *base = strrchr(prog, '/');
    char title[300];
    snprintf(title, sizeof title, "cuprof: %s", base ? base + 1 : prog);
    cuprof_html_page(put_out, w->out, CUPROF_HTML_REPORT, title, data.buf, data.len);
    cuprof_out_discard(&data);
    return 0;
}

const cuprof_writer_ops cuprof_report_html_ops = {
    .suffix = "report.html",
    .size = sizeof(cuprof_writer),
    .write = html_write,
    .wanted = html_wanted,
};
