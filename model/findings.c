/*
 * findings.c - the rules of findings.h that read the summary's rows and the
 * GPU stats (overhead/compute-bound, cuda-startup, hotspot, many-calls,
 * kernel-spread, launch latency and gaps, copies), the list they fill, and
 * the entry point.
 * The rules that follow the calls' order are in findings_order.c; the
 * thresholds, each with why, in findings_int.h.
 *
 * Each rule adds at most a few findings; each has a message with the
 * numbers in words, the numbers themselves (for summary.json) and one line
 * of advice. Text is formatted with integer arithmetic only: printf's %f
 * follows the program's locale.
 */
#include "model/findings_int.h"
#include "model/graphs.h"
#include "model/memory.h"
#include "model/quantile.h"
#include "model/steps.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Time in torch.profiler's units, integer math (no locale). */
const char *cuprof_findings_fmt_ns(char *b, size_t n, uint64_t ns)
{
    unsigned long long v = ns;
    if (v < 1000)
        snprintf(b, n, "%lluns", v);
    else if (v < 1000000)
        snprintf(b, n, "%llu.%01lluus", v / 1000, v % 1000 / 100);
    else if (v < 1000000000)
        snprintf(b, n, "%llu.%02llums", v / 1000000, v % 1000000 / 10000);
    else
        snprintf(b, n, "%llu.%02llus", v / 1000000000, v % 1000000000 / 10000000);
    return b;
}

/* Bytes as "512 B", "1.50 KiB", "12.00 MiB", "3.25 GiB" (two decimals,
 * truncated). */
const char *cuprof_findings_fmt_bytes(char *b, size_t n, uint64_t bytes)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    unsigned long long v = bytes;
    int u = 0;
    while (u < 4 && v >= (1ull << (10 * (u + 1))))
        u++;
    if (u == 0)
        snprintf(b, n, "%llu B", v);
    else
        snprintf(b, n, "%llu.%02llu %s", v >> (10 * u), ((v & ((1ull << (10 * u)) - 1)) * 100) >> (10 * u),
                 unit[u]);
    return b;
}

const char *cuprof_findings_fmt_median(char *b, size_t n, uint64_t ns, int sketched)
{
    char t[32];
    snprintf(b, n, "%s%s", sketched ? "~" : "", cuprof_findings_fmt_ns(t, sizeof t, ns));
    return b;
}

/* A share in [0,1] as "91.2%". */
const char *cuprof_findings_fmt_pct(char *b, size_t n, double share)
{
    unsigned long long t = (unsigned long long)(share * 1000.0 + 0.5);
    snprintf(b, n, "%llu.%llu%%", t / 10, t % 10);
    return b;
}

/* A ratio as "14.2x". */
const char *cuprof_findings_fmt_x(char *b, size_t n, double r)
{
    unsigned long long t = (unsigned long long)(r * 10.0 + 0.5);
    snprintf(b, n, "%llu.%llux", t / 10, t % 10);
    return b;
}

/* Adds a finding; NULL when the list is full. */
cuprof_finding *cuprof_findings_add(fctx *c, const char *rule, const char *severity, const char *advice,
                           const char *fmt, ...)
{
    if (c->n == MAX_FINDINGS)
        return NULL;
    cuprof_finding *f = &c->out[c->n];
    finding_text *t = &c->text[c->n++];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->msg, sizeof t->msg, fmt, ap);
    va_end(ap);
    snprintf(t->adv, sizeof t->adv, "%s", advice);
    memset(f, 0, sizeof *f);
    f->rule = rule;
    f->severity = severity;
    f->message = t->msg;
    f->advice = t->adv;
    return f;
}

void cuprof_findings_num(cuprof_finding *f, const char *key, double v, int integer)
{
    if (f && f->nnums < CUPROF_FINDING_NUMS)
        f->nums[f->nnums++] = (cuprof_finding_num){key, v, integer};
}

void cuprof_findings_sketched(cuprof_finding *f, int sketched)
{
    if (sketched)
        cuprof_findings_num(f, "median_sketched", 1, 1);
}

/* ---- overhead-bound / compute-bound -------------------------------------- */

static void rule_bound(fctx *c)
{
    const cuprof_summary *s = c->s;
    if (!c->g || !c->tl || c->tl->stats.window_end_ns <= c->tl->stats.window_start_ns ||
        s->self_cuda_total_ns == 0)
        return;
    const cuprof_gpu_stats *st = &c->tl->stats;
    double ratio = (double)s->self_cpu_total_ns / (double)s->self_cuda_total_ns;
    /* The steady state decides compute-bound (a warm-up and its sync are not
     * the loop); idle in either the whole window or the steady state, with
     * the CPU far ahead, is overhead. */
    findings_steady ss = {st->idle_share, st->window_end_ns - st->window_start_ns, 0};
    int steady = cuprof_findings_steady_state(c, &ss) == 0;
    double worst = ss.idle_share > st->idle_share ? ss.idle_share : st->idle_share;
    char a[32], b[32], p[32], x[32], w[32];
    cuprof_finding *f = NULL;
    if (ss.idle_share <= COMPUTE_IDLE_SHARE)
        f = cuprof_findings_add(c, "compute-bound", "info",
                "the kernels are the cost: start with the hotspot (shapes, dtype, a better "
                "algorithm or epilogue); CPU-side changes will not speed this up",
                "The GPU is busy %s of the %s %s (Self CUDA total %s, Self CPU total %s)",
                cuprof_findings_fmt_pct(p, sizeof p, 1.0 - ss.idle_share),
                cuprof_findings_fmt_ns(w, sizeof w, ss.window_ns),
                steady ? "of the steady state (the stretch between syncs with the most launches)"
                       : "from the first launch to the last kernel",
                cuprof_findings_fmt_ns(b, sizeof b, s->self_cuda_total_ns),
                cuprof_findings_fmt_ns(a, sizeof a, s->self_cpu_total_ns));
    else if (ratio >= OVERHEAD_CPU_CUDA_RATIO && worst >= OVERHEAD_IDLE_SHARE)
        f = cuprof_findings_add(c, "overhead-bound", "warning",
                "make each launch do more work (bigger or batched operations), fuse kernels, "
                "or replay the step as a CUDA graph",
                "Self CPU total %s is %s Self CUDA total %s, and the GPU is idle %s of the %s "
                "%s: the CPU spends more time dispatching than the GPU computing",
                cuprof_findings_fmt_ns(a, sizeof a, s->self_cpu_total_ns), cuprof_findings_fmt_x(x, sizeof x, ratio),
                cuprof_findings_fmt_ns(b, sizeof b, s->self_cuda_total_ns),
                cuprof_findings_fmt_pct(p, sizeof p, st->idle_share),
                cuprof_findings_fmt_ns(w, sizeof w, st->window_end_ns - st->window_start_ns),
                "from the first launch to the last kernel");
    cuprof_findings_num(f, "self_cpu_total_ns", (double)s->self_cpu_total_ns, 1);
    cuprof_findings_num(f, "self_cuda_total_ns", (double)s->self_cuda_total_ns, 1);
    cuprof_findings_num(f, "cpu_cuda_ratio", ratio, 0);
    cuprof_findings_num(f, "idle_share", st->idle_share, 0);
    cuprof_findings_num(f, "window_ns", (double)(st->window_end_ns - st->window_start_ns), 1);
    if (steady) {
        cuprof_findings_num(f, "steady_idle_share", ss.idle_share, 0);
        cuprof_findings_num(f, "steady_window_ns", (double)ss.window_ns, 1);
        cuprof_findings_num(f, "steady_kernels", (double)ss.kernels, 1);
    }
}

/* ---- cuda-startup ------------------------------------------------------------ */

/* The longest top-level call (hooked, or one only CUPTI saw) that ended
 * before the first kernel's launching call began. */
static void rule_startup(fctx *c)
{
    const cuprof_summary *s = c->s;
    if (!c->tl || c->tl->stats.window_start_ns == 0 || s->self_cpu_total_ns == 0)
        return;
    uint64_t before = c->tl->stats.window_start_ns, best = 0;
    const char *name = NULL;
    for (size_t t = 0; t < c->run->nthreads; t++) {
        const cuprof_run_thread *th = &c->run->threads[t];
        for (uint64_t i = 0; i < th->n; i++) {
            const cuprof_event *e = cuprof_run_event(th, i);
            if (e->t0 >= before)
                break;   /* in start order: the rest began later */
            if (e->depth == 0 && e->t1 <= before && findings_dur(e->t0, e->t1) > best) {
                best = findings_dur(e->t0, e->t1);
                name = cuprof_run_api_name(c->run, e->api);
            }
        }
    }
    for (size_t k = 0; k < c->tl->nderived; k++) {
        const cuprof_derived_call *d = &c->tl->derived[k];
        if (d->depth == 0 && d->t1 <= before && findings_dur(d->t0, d->t1) > best) {
            best = findings_dur(d->t0, d->t1);
            name = d->rec->name;
        }
    }
    if (!name || best < STARTUP_MIN_NS || (double)best < STARTUP_SHARE * (double)s->self_cpu_total_ns)
        return;
    char d[32], p[32], a[32];
    cuprof_finding *f = cuprof_findings_add(c, "cuda-startup", "info",
            "read the table without that row (set-up, not the loop), or start CUDA before the "
            "part you measure (cudaFree(0) at start-up) and leave it out of the capture",
            "%s took %s (%s of the Self CPU total %s) before the first kernel launch: CUDA "
            "creating its context and loading modules, once per process, not the program's "
            "per-step cost",
            name, cuprof_findings_fmt_ns(d, sizeof d, best),
            cuprof_findings_fmt_pct(p, sizeof p, (double)best / (double)s->self_cpu_total_ns),
            cuprof_findings_fmt_ns(a, sizeof a, s->self_cpu_total_ns));
    cuprof_findings_num(f, "startup_ns", (double)best, 1);
    cuprof_findings_num(f, "self_cpu_total_ns", (double)s->self_cpu_total_ns, 1);
}

/* ---- hotspot, many-calls, kernel-spread (from the rows) ------------------ */

static void rule_hotspot(fctx *c)
{
    const cuprof_summary *s = c->s;
    uint64_t total = 0;
    for (size_t i = 0; i < s->nkernels; i++)
        total += s->kernels[i].gpu_total_ns;
    if (!c->g || total == 0 || s->nkernels < 2)   /* one kernel: trivially "the" hotspot */
        return;
    const cuprof_stat_kernel *k = &s->kernels[0];   /* most GPU time first */
    double share = (double)k->gpu_total_ns / (double)total;
    if (share < HOTSPOT_SHARE)
        return;
    char p[32], t[32];
    cuprof_finding *f = cuprof_findings_add(c, "hotspot", "info",
                            "start optimizing there: its shape, dtype and algorithm decide the "
                            "run's GPU time",
                            "%s takes %s of the GPU kernel time (%s in %llu launches)",
                            k->name, cuprof_findings_fmt_pct(p, sizeof p, share), cuprof_findings_fmt_ns(t, sizeof t, k->gpu_total_ns),
                            (unsigned long long)k->launches);
    cuprof_findings_num(f, "share", share, 0);
    cuprof_findings_num(f, "gpu_total_ns", (double)k->gpu_total_ns, 1);
    cuprof_findings_num(f, "launches", (double)k->launches, 1);
    cuprof_findings_num(f, "kernels_gpu_total_ns", (double)total, 1);
}

static void rule_many_calls(fctx *c)
{
    const cuprof_summary *s = c->s;
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < s->napi; i++)
        if (s->api[i].calls >= MANY_CALLS && (best == SIZE_MAX || s->api[i].calls > s->api[best].calls))
            best = i;
    if (best == SIZE_MAX)
        return;
    const cuprof_stat_api *a = &s->api[best];
    char t[32], m[32];
    cuprof_finding *f = cuprof_findings_add(c, "many-calls", "warning",
                            "even cheap calls add up: batch the work, fuse kernels, or capture "
                            "the loop in a CUDA graph",
                            "%s was called %llu times (CPU total %s, median %s per call)",
                            a->name, (unsigned long long)a->calls,
                            cuprof_findings_fmt_ns(t, sizeof t, a->cpu_total_ns),
                            cuprof_findings_fmt_median(m, sizeof m, a->median_ns, a->median_sketched));
    cuprof_findings_num(f, "calls", (double)a->calls, 1);
    cuprof_findings_num(f, "cpu_total_ns", (double)a->cpu_total_ns, 1);
    cuprof_findings_num(f, "median_ns", (double)a->median_ns, 1);
    cuprof_findings_sketched(f, a->median_sketched);
}

static void rule_kernel_spread(fctx *c)
{
    const cuprof_summary *s = c->s;
    if (!c->g)
        return;
    for (size_t i = 0, shown = 0; i < s->nkernels && shown < 2; i++) {
        const cuprof_stat_kernel *k = &s->kernels[i];
        if (k->launches < SPREAD_MIN_LAUNCHES || k->median_ns == 0)
            continue;
        double mean = (double)k->gpu_total_ns / (double)k->launches;
        if ((double)k->max_ns < SPREAD_MAX_RATIO * (double)k->median_ns ||
            mean < SPREAD_MEAN_RATIO * (double)k->median_ns)
            continue;
        char md[32], mn[32], mx[32];
        cuprof_finding *f = cuprof_findings_add(c, "kernel-spread", "info",
                                "quote the median, and look at the slow executions in the trace "
                                "(clocks, power, contention, a different code path)",
                                "%s runs in a median %s but averages %s (max %s over "
                                "%llu runs): a reader who only saw the average would get it wrong",
                                k->name, cuprof_findings_fmt_median(md, sizeof md, k->median_ns, k->median_sketched),
                                cuprof_findings_fmt_ns(mn, sizeof mn, (uint64_t)mean), cuprof_findings_fmt_ns(mx, sizeof mx, k->max_ns),
                                (unsigned long long)k->launches);
        cuprof_findings_num(f, "median_ns", (double)k->median_ns, 1);
        cuprof_findings_num(f, "mean_ns", mean, 1);
        cuprof_findings_num(f, "max_ns", (double)k->max_ns, 1);
        cuprof_findings_num(f, "launches", (double)k->launches, 1);
        cuprof_findings_sketched(f, k->median_sketched);
        shown++;
    }
}

/* ---- launch-latency and launch-gaps -------------------------------------- */

static void rule_launch(fctx *c)
{
    if (!c->g || !c->tl)
        return;
    const cuprof_gpu_stats *st = &c->tl->stats;
    char a[32], b[32], x[32], g[32];
    if (st->latency_count && st->latency_median_ns >= LATENCY_QUEUE_NS) {
        cuprof_finding *f = cuprof_findings_add(c, "launch-latency", "info",
                                "expected when the GPU is the bottleneck; but time steps with CUDA "
                                "events or a sync, not CPU timers, which see only the queueing",
                                "Kernels start a median %s after their launching "
                                "call (max %s): the CPU queues work that far ahead of the GPU",
                                cuprof_findings_fmt_median(a, sizeof a, st->latency_median_ns, st->latency_median_sketched),
                                cuprof_findings_fmt_ns(b, sizeof b, st->latency_max_ns));
        cuprof_findings_num(f, "latency_median_ns", (double)st->latency_median_ns, 1);
        cuprof_findings_num(f, "latency_max_ns", (double)st->latency_max_ns, 1);
        cuprof_findings_sketched(f, st->latency_median_sketched);
    }
    size_t n = c->g->n_kernels;
    if (n < GAP_MIN_KERNELS)
        return;
    /* the upper middles of the gaps and of the kernels' durations: exact up to
     * the bound, within CUPROF_QUANTILE_REL_ERR past it (model/quantile.h) */
    cuprof_quantile gaps, durs;
    cuprof_quantile_init(&gaps, c->run->quantile_exact_max);
    cuprof_quantile_init(&durs, c->run->quantile_exact_max);
    uint64_t end = c->g->kernels[0].end_ns, total = 0;
    int oom = 0;
    for (size_t i = 0; i < n; i++) {   /* kernels are sorted by start */
        const cuprof_gpu_kernel *k = &c->g->kernels[i];
        oom |= cuprof_quantile_add(&durs, findings_dur(k->start_ns, k->end_ns));
        if (i) {
            uint64_t gap = k->start_ns > end ? k->start_ns - end : 0;
            oom |= cuprof_quantile_add(&gaps, gap);
            total += gap;
        }
        if (k->end_ns > end)
            end = k->end_ns;
    }
    uint64_t mg = cuprof_quantile_rank(&gaps, cuprof_quantile_count(&gaps) / 2);
    uint64_t mk = cuprof_quantile_rank(&durs, n / 2);
    int gs = cuprof_quantile_sketched(&gaps), ks = cuprof_quantile_sketched(&durs);
    cuprof_quantile_free(&gaps);
    cuprof_quantile_free(&durs);
    if (oom || mg < GAP_MIN_NS || mg < mk)
        return;
    cuprof_finding *f = cuprof_findings_add(c, "launch-gaps", "info",
                            "the launches do not keep up: fewer, larger kernels, less CPU work "
                            "between launches, or a CUDA graph",
                            "The GPU idles a median %s between consecutive kernels, "
                            "longer than the median kernel (%s, %s); %s idle in all between them",
                            cuprof_findings_fmt_median(a, sizeof a, mg, gs),
                            cuprof_findings_fmt_median(b, sizeof b, mk, ks),
                            cuprof_findings_fmt_x(x, sizeof x, mk ? (double)mg / (double)mk : 0),
                            cuprof_findings_fmt_ns(g, sizeof g, total));
    cuprof_findings_num(f, "gap_median_ns", (double)mg, 1);
    cuprof_findings_num(f, "kernel_median_ns", (double)mk, 1);
    cuprof_findings_num(f, "gaps_total_ns", (double)total, 1);
    cuprof_findings_sketched(f, gs || ks);
}

/* ---- pageable-copy and blocking-copy ------------------------------------- */

static void rule_copies(fctx *c)
{
    if (!c->g || !c->tl)
        return;
    const cuprof_gpu_stats *st = &c->tl->stats;
    uint64_t np = 0, bp = 0, nb = 0, bb = 0, tp = 0, tb = 0;
    for (size_t i = 0; i < c->g->n_copies; i++) {
        const cuprof_gpu_copy *k = &c->g->copies[i];
        /* "in the middle": inside the GPU work's window, not set-up or tear-down */
        if (k->start_ns <= st->window_start_ns || k->end_ns >= st->window_end_ns)
            continue;
        if ((k->kind == CUPROF_GPU_COPY_HTOD || k->kind == CUPROF_GPU_COPY_DTOH) &&
            (k->src_mem == CUPROF_GPU_MEM_PAGEABLE || k->dst_mem == CUPROF_GPU_MEM_PAGEABLE)) {
            np++;
            bp += k->bytes;
            tp += findings_dur(k->start_ns, k->end_ns);
        } else if (k->kind == CUPROF_GPU_COPY_DTOH && !k->async) {
            nb++;
            bb += k->bytes;
            tb += findings_dur(k->start_ns, k->end_ns);
        }
    }
    char t[32];
    if (np) {
        cuprof_finding *f = cuprof_findings_add(c, "pageable-copy", "warning",
                                "allocate the host side with cudaMallocHost (pinned) so copies are "
                                "asynchronous and faster, and keep them out of the loop",
                                "%llu host<->device copies (%llu bytes, %s on the "
                                "GPU) from or to pageable host memory in the middle of the GPU work: "
                                "each is staged and blocks the CPU",
                                (unsigned long long)np, (unsigned long long)bp, cuprof_findings_fmt_ns(t, sizeof t, tp));
        cuprof_findings_num(f, "copies", (double)np, 1);
        cuprof_findings_num(f, "bytes", (double)bp, 1);
        cuprof_findings_num(f, "gpu_total_ns", (double)tp, 1);
    }
    if (nb) {
        cuprof_finding *f = cuprof_findings_add(c, "blocking-copy", "warning",
                                "use cudaMemcpyAsync into pinned memory and synchronize only where "
                                "the host needs the data",
                                "%llu device-to-host copies (%llu bytes, %s on the "
                                "GPU) made the CPU wait in the middle of the GPU work",
                                (unsigned long long)nb, (unsigned long long)bb, cuprof_findings_fmt_ns(t, sizeof t, tb));
        cuprof_findings_num(f, "copies", (double)nb, 1);
        cuprof_findings_num(f, "bytes", (double)bb, 1);
        cuprof_findings_num(f, "gpu_total_ns", (double)tb, 1);
    }
}

/* out-of-memory: a device allocation failed for lack of memory. First, as
 * the run may have ended because of it. */
static void rule_out_of_memory(fctx *c)
{
    const cuprof_memory *m = c->mem;
    if (!m || m->noom == 0)
        return;
    const cuprof_mem_oom *o = &m->oom[0];
    char req[32], live[32], top[32], at[32];
    cuprof_findings_fmt_bytes(req, sizeof req, o->requested);
    cuprof_findings_fmt_bytes(live, sizeof live, o->live_bytes);
    cuprof_findings_fmt_ns(at, sizeof at, findings_dur(c->run->t_start, o->t));
    char who[320] = "";
    if (o->ntop)
        snprintf(who, sizeof who, ", most by %s%s%s (%s in %llu)", o->top[0].api,
                 o->top[0].site ? " at " : "", o->top[0].site ? o->top[0].site : "",
                 cuprof_findings_fmt_bytes(top, sizeof top, o->top[0].bytes),
                 (unsigned long long)o->top[0].allocations);
    cuprof_finding *f = cuprof_findings_add(
        c, "out-of-memory", "warning",
        "free or reuse buffers before this point, allocate less at once (a smaller batch), or "
        "let the memory pool give memory back (cudaMemPoolAttrReleaseThreshold); summary.txt's "
        "\"Device memory\" lists who held what",
        "%s of %s failed for lack of device memory %s after the start%s: %s was held then by "
        "%llu allocation%s%s", o->api, req, at,
        m->oom_total > 1 ? " (the first of several)" : "", live,
        (unsigned long long)o->live_allocations, o->live_allocations == 1 ? "" : "s", who);
    cuprof_findings_num(f, "requested_bytes", (double)o->requested, 1);
    cuprof_findings_num(f, "held_bytes", (double)o->live_bytes, 1);
    cuprof_findings_num(f, "failures", (double)m->oom_total, 1);
}

/* killed-by-oom: the kernel's OOM killer ended the process (prof.sh's
 * supervisor saw its memory cgroup count the kill as it died of SIGKILL):
 * the host's memory ran out, not the device's. What it held then, on both
 * sides, and who held the device memory. First of all: it is how the run
 * ended. */
static void rule_killed_by_oom(fctx *c)
{
    const cuprof_killed *k = &c->run->killed;
    if (!k->oom)
        return;
    const cuprof_memory *m = c->mem;
    char rss[32], peak[32], lim[32], held[32], host[200] = "", dev[600] = "";
    if (k->rss)
        snprintf(host, sizeof host, "its host memory (RSS) was %s when last seen (peak %s)%s%s",
                 cuprof_findings_fmt_bytes(rss, sizeof rss, k->rss),
                 cuprof_findings_fmt_bytes(peak, sizeof peak, k->rss_peak ? k->rss_peak : k->rss),
                 k->mem_limit ? ", its cgroup's limit " : "",
                 k->mem_limit ? cuprof_findings_fmt_bytes(lim, sizeof lim, k->mem_limit) : "");
    else
        snprintf(host, sizeof host, "its host memory was not seen%s%s",
                 k->mem_limit ? " (its cgroup's limit " : "",
                 k->mem_limit ? cuprof_findings_fmt_bytes(lim, sizeof lim, k->mem_limit) : "");
    if (!k->rss && k->mem_limit)
        strcat(host, ")");
    if (m && m->end_bytes) {
        size_t l = (size_t)snprintf(dev, sizeof dev, "; the device memory held then: %s in %llu "
                                    "allocation%s, largest owners ",
                                    cuprof_findings_fmt_bytes(held, sizeof held, m->end_bytes),
                                    (unsigned long long)m->end_allocations,
                                    m->end_allocations == 1 ? "" : "s");
        for (size_t i = 0; i < m->nend_top && i < 3 && l < sizeof dev; i++) {
            char b[32];
            const cuprof_mem_owner *o = &m->end_top[i];
            l += (size_t)snprintf(dev + l, sizeof dev - l, "%s%s%s%s (%s in %llu)", i ? ", " : "",
                                  o->api, o->site ? " at " : "", o->site ? o->site : "",
                                  cuprof_findings_fmt_bytes(b, sizeof b, o->bytes),
                                  (unsigned long long)o->allocations);
        }
    } else {
        snprintf(dev, sizeof dev, "; it held no device memory then");
    }
    cuprof_finding *f = cuprof_findings_add(
        c, "killed-by-oom", "warning",
        "the host ran out of memory, not the GPU: hold less on the host (data loader workers and "
        "their prefetch, pinned buffers, caches, copies of the data set), or raise the memory "
        "limit (the cgroup's, a container's request); the trace's last calls show what it was "
        "doing",
        "the process was killed by the kernel's OOM killer (its memory cgroup %s counted the "
        "kill): %s%s", k->cgroup ? k->cgroup : "(unknown)", host, dev);
    cuprof_findings_num(f, "rss_bytes", (double)k->rss, 1);
    cuprof_findings_num(f, "rss_peak_bytes", (double)k->rss_peak, 1);
    cuprof_findings_num(f, "memory_limit_bytes", (double)k->mem_limit, 1);
    cuprof_findings_num(f, "device_held_bytes", m ? (double)m->end_bytes : 0.0, 1);
    cuprof_findings_num(f, "device_allocations", m ? (double)m->end_allocations : 0.0, 1);
}

/* graph-gaps: a graph whose replays leave much of their span idle between
 * nodes (the median replay idle GRAPH_GAP_SHARE of a span of at least
 * GRAPH_GAP_MIN_SPAN_NS, over 2 or more replays): the graph saves launch
 * cost, but its nodes still wait (host nodes, event waits, cross-stream
 * dependencies, tiny kernels whose own latency shows). */
#define GRAPH_GAP_SHARE 0.3
#define GRAPH_GAP_MIN_SPAN_NS 20000ull
static void rule_graph_gaps(fctx *c)
{
    const cuprof_graphs *gs = c->graphs;
    for (size_t i = 0; gs && i < gs->n; i++) {
        const cuprof_graph *g = &gs->g[i];
        if (g->launches < 2 || g->replay_span_ns < GRAPH_GAP_MIN_SPAN_NS ||
            g->replay_idle_share < GRAPH_GAP_SHARE)
            continue;
        char share[40], span[40], pct[32];
        /* both medians come from as many replays: sketched together */
        snprintf(share, sizeof share, "%s%s", g->replay_sketched ? "~" : "",
                 cuprof_findings_fmt_pct(pct, sizeof pct, g->replay_idle_share));
        cuprof_finding *f = cuprof_findings_add(
            c, "graph-gaps", "warning",
            "look at one replay in the trace for what the nodes wait on (host nodes, event waits, "
            "dependencies across streams); fuse small kernels, or put independent nodes on parallel "
            "branches",
            "CUDA graph %u's replays are idle %s of their %s span between nodes (median of %llu "
            "replays): the launch cost is saved, but its nodes still wait",
            g->id, share, cuprof_findings_fmt_median(span, sizeof span, g->replay_span_ns, g->replay_sketched),
            (unsigned long long)g->launches);
        cuprof_findings_num(f, "graph", g->id, 1);
        cuprof_findings_num(f, "idle_share", g->replay_idle_share, 0);
        cuprof_findings_num(f, "replay_span_ns", (double)g->replay_span_ns, 1);
        cuprof_findings_num(f, "replays", (double)g->launches, 1);
        cuprof_findings_sketched(f, g->replay_sketched);
    }
}

int cuprof_findings_build(const cuprof_run *run, const cuprof_names *names,
                          const cuprof_timeline *tl, const cuprof_steps *steps, const cuprof_memory *mem,
                          const cuprof_graphs *graphs, const struct cuprof_collectives *colls,
                          cuprof_summary *s)
{
    free(s->findings);
    s->findings = NULL;
    s->nfindings = 0;
    void *block = malloc(MAX_FINDINGS * (sizeof(cuprof_finding) + sizeof(finding_text)));
    if (!block)
        return -1;
    fctx c = {run, names, s, tl, NULL, steps && steps->n ? steps : NULL, mem, graphs, colls, block,
              (finding_text *)((char *)block + MAX_FINDINGS * sizeof(cuprof_finding)), 0};
    if (run->gpu.captured && run->gpu_run && tl)
        c.g = tl->gpu;
    rule_killed_by_oom(&c);   /* how the run ended, whatever else */
    if (cuprof_findings_rule_errors(&c) == 0) {   /* every CUDA call failed: nothing else to say */
    rule_out_of_memory(&c);
    rule_bound(&c);
    cuprof_findings_rule_steps(&c);
    cuprof_findings_rule_sequences(&c);
    cuprof_findings_rule_cold_start(&c);
    rule_startup(&c);
    cuprof_findings_rule_sync_wait(&c);
    rule_many_calls(&c);
    rule_copies(&c);
    rule_launch(&c);
    rule_hotspot(&c);
    cuprof_findings_rule_below_peak(&c);
    rule_graph_gaps(&c);
    cuprof_findings_rule_heavyweight(&c);
    rule_kernel_spread(&c);
    cuprof_findings_rule_collectives(&c);
    }
    if (c.n == 0) {
        free(block);
        return 0;
    }
    s->findings = block;
    s->nfindings = c.n;
    return 0;
}
