/*
 * findings_order.c - the rules of findings.h that follow the calls in the
 * order a thread made them, and the GPU records in time: cold-start (first
 * call vs median, and whether a sync separates it from the steady state),
 * heavyweight-kernels (an occupancy query before the launch, or a BLAS
 * call's kernel), sync-wait
 * (GPU busy time inside a synchronize), addmm-pattern and fusion-candidate
 * (what comes right after a DtoD copy / a GEMM).
 */
#include "model/graphs.h"
#include "model/findings_int.h"

#include <library_types.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An NVTX push, pop, start, end or mark: not a call (issue 33: a range's
 * pop between a GEMM and its bias kernel hid the pair from the rules). */
static int is_nvtx(uint8_t cls)
{
    return cuprof_ev_is_nvtx(cls);
}

/* Next event after i on th at depth <= depth, skipping plain calls
 * (cudaGetLastError and the like) and NVTX events; -1 if none. */
static int64_t next_sibling(const cuprof_run_thread *th, uint64_t i, uint8_t depth)
{
    for (uint64_t j = i + 1; j < th->n; j++) {
        const cuprof_event *e = cuprof_run_event(th, j);
        if (e->depth > depth || e->cls == CUPROF_EV_CALL || is_nvtx(e->cls))
            continue;
        return e->depth < depth ? -1 : (int64_t)j;
    }
    return -1;
}

/* Bytes of one element of a cudaDataType_t, 0 if unknown. */
static unsigned dtype_bytes(uint8_t t)
{
    switch (t) {
    case CUDA_R_8I: case CUDA_R_8U: case CUDA_R_8F_E4M3: case CUDA_R_8F_E5M2: return 1;
    case CUDA_R_16F: case CUDA_R_16BF: return 2;
    case CUDA_R_32F: case CUDA_R_32I: case CUDA_C_16F: case CUDA_C_16BF: return 4;
    case CUDA_R_64F: case CUDA_C_32F: return 8;
    case CUDA_C_64F: return 16;
    default: return 0;
    }
}

/* ---- cold-start ----------------------------------------------------------- */

/* The first call of each entry point (by start time, over all threads). */
typedef struct first_call {
    const cuprof_run_thread *th;   /* NULL: none yet */
    uint64_t index;
    uint64_t t0, t1;               /* its times (a copy: a streamed thread's events go
                                      with their blocks) */
} first_call;

/* Of th's calls of api: how many, and how many in the same phase as the one
 * at index `at`, a phase being the stretch between two synchronizing calls
 * (a program that warms up syncs between the warm-up and the steady state).
 * Returns 1 when that phase is the thread's steady state: the one with the
 * most launches and GEMMs (or the thread launches nothing); set-up calls
 * made only before the loop are not in it. */
static int phase_counts(const cuprof_run_thread *th, uint16_t api, uint64_t at, uint64_t *same,
                        uint64_t *all)
{
    uint64_t p_at = 0, phase = 0, work = 0, best = 0, best_work = 0;
    for (uint64_t i = 0; i <= at; i++)
        p_at += cuprof_run_event(th, i)->cls == CUPROF_EV_SYNC;
    *same = *all = 0;
    for (uint64_t i = 0; i < th->n; i++) {
        const cuprof_event *e = cuprof_run_event(th, i);
        if (e->cls == CUPROF_EV_SYNC) {
            if (work > best_work) {
                best = phase;
                best_work = work;
            }
            phase++;
            work = 0;
        }
        work += e->cls == CUPROF_EV_LAUNCH || e->cls == CUPROF_EV_BLAS;
        if (e->api != api)
            continue;
        (*all)++;
        *same += phase == p_at;
    }
    if (work > best_work) {
        best = phase;
        best_work = work;
    }
    return best_work == 0 || best == p_at;
}

void cuprof_findings_rule_cold_start(fctx *c)
{
    const cuprof_run *run = c->run;
    const cuprof_summary *s = c->s;
    size_t span = run->napis;
    for (size_t r = 0; r < s->napi; r++)
        if (s->api[r].api != UINT16_MAX && (size_t)s->api[r].api + 1 > span)
            span = (size_t)s->api[r].api + 1;
    first_call *first = calloc(span ? span : 1, sizeof *first);
    /* the rows the rule reads (on[api] = 1); on[api] = t + 2 once thread t's
     * first call of it is seen: a thread's later calls began later, so its
     * pass ends when it has seen all of them */
    size_t *on = calloc(span ? span : 1, sizeof *on), need = 0;
    if (!first || !on) {
        free(first);
        free(on);
        return;
    }
    for (size_t r = 0; r < s->napi; r++)
        if (s->api[r].api != UINT16_MAX && s->api[r].api < span && s->api[r].calls >= COLD_MIN_CALLS &&
            !on[s->api[r].api])
            on[s->api[r].api] = 1, need++;
    for (size_t t = 0; t < run->nthreads; t++) {   /* each thread's first of each api */
        size_t seen = 0;
        for (uint64_t i = 0; i < run->threads[t].n && seen < need; i++) {
            const cuprof_event *e = cuprof_run_event(&run->threads[t], i);
            if (e->api >= span || !on[e->api] || on[e->api] == t + 2)
                continue;
            on[e->api] = t + 2;
            seen++;
            first_call *f = &first[e->api];
            if (!f->th || e->t0 < f->t0)
                *f = (first_call){&run->threads[t], i, e->t0, e->t1};
        }
    }
    free(on);
    size_t shown = 0;
    for (size_t r = 0; r < s->napi && shown < 3; r++) {
        const cuprof_stat_api *a = &s->api[r];
        if (a->api == UINT16_MAX || a->api >= span || a->calls < COLD_MIN_CALLS || !first[a->api].th)
            continue;
        const first_call *fc = &first[a->api];
        uint64_t d = findings_dur(fc->t0, fc->t1);
        if (d < COLD_RATIO * a->median_ns || d < a->median_ns + COLD_MIN_EXTRA_NS)
            continue;
        /* Warmed up: most of the thread's calls come after a sync that
         * follows the cold one, outside the steady state the program measures. */
        uint64_t same, all;
        if (!phase_counts(fc->th, a->api, fc->index, &same, &all) || 2 * same <= all)
            continue;
        char fd[32], md[32], x[32];
        cuprof_finding *f = cuprof_findings_add(c, "cold-start", "warning",
                                "run a few warm-up iterations (and synchronize) before the part "
                                "you measure, or narrow the capture to the steady state",
                                "The first %s took %s, %s its median %s over %llu calls, "
                                "with no warm-up before the steady state: one-time setup (cuBLAS "
                                "workspace and heuristics, lazy module loading) is in the measured loop",
                                a->name, cuprof_findings_fmt_ns(fd, sizeof fd, d),
                                cuprof_findings_fmt_x(x, sizeof x, a->median_ns ? (double)d / (double)a->median_ns : 0),
                                cuprof_findings_fmt_median(md, sizeof md, a->median_ns, a->median_sketched),
                                (unsigned long long)a->calls);
        cuprof_findings_num(f, "first_ns", (double)d, 1);
        cuprof_findings_num(f, "median_ns", (double)a->median_ns, 1);
        cuprof_findings_num(f, "calls", (double)a->calls, 1);
        cuprof_findings_num(f, "calls_in_same_phase", (double)same, 1);
        cuprof_findings_sketched(f, a->median_sketched);
        shown++;
    }
    free(first);
}

/* ---- heavyweight kernels (occupancy query before the launch, or a
 * kernel a BLAS library picked) ------------------------------------------ */

static int is_occupancy(const char *name)
{
    return strncmp(name, "cudaOccupancy", 13) == 0;
}

/* 1 when the kernel's launching call had an occupancy query just before it,
 * inside the same hooked call (cuBLAS's launch path) or as the previous
 * hooked call on the thread. */
static int after_occupancy(const fctx *c, cuprof_cause cause)
{
    if (cause.derived >= 0) {
        const cuprof_derived_call *d = &c->tl->derived[cause.derived];
        for (long j = cause.derived - 1; j >= 0 && j >= cause.derived - 8; j--) {
            const cuprof_derived_call *p = &c->tl->derived[j];
            if (p->parent == d->parent && p->tid == d->tid && is_occupancy(p->rec->name))
                return 1;
        }
    }
    const cuprof_run_thread *th = NULL;
    if (!cause.hooked || !(th = cuprof_run_thread_of(c->run, cause.hooked)))
        return 0;
    uint64_t i = cuprof_event_id_seq(cause.hooked);   /* index on th */
    while (i > 0 && is_nvtx(cuprof_run_event(th, i - 1)->cls))
        i--;   /* the previous call, whatever NVTX events lie between */
    return i > 0 && cuprof_run_event(th, i - 1)->cls == CUPROF_EV_OCCUPANCY;
}

/* 1 when a cuBLAS/cuBLASLt call caused the kernel: the library's heuristic
 * picked it for the shape. cuBLAS 11/12 queried occupancy before each such
 * launch (the pattern torch.profiler users know); cuBLAS 13's Hopper
 * kernels do not (an H100, 2026-11-24), so the library call itself says it. */
static int from_blas(const fctx *c, cuprof_cause cause)
{
    const cuprof_event *ev = cause.hooked ? cuprof_run_find_event(c->run, cause.hooked, NULL) : NULL;
    return ev != NULL && ev->cls == CUPROF_EV_BLAS;
}

/* A graph's replayed kernel: whether the call it was captured from was a
 * cuBLAS/cuBLASLt one (its launch, cudaGraphLaunch, says nothing). */
static int replayed_from_blas(const fctx *c, const cuprof_gpu_kernel *k)
{
    uint64_t origin = k->graph_node_id ? cuprof_graphs_node_origin_event(c->graphs, k->graph_node_id) : 0;
    const cuprof_event *ev = origin ? cuprof_run_find_event(c->run, origin, NULL) : NULL;
    return ev != NULL && ev->cls == CUPROF_EV_BLAS;
}

static void append_name(char *b, size_t n, const char *name, size_t *count)
{
    if ((*count)++ >= 3) {
        if (*count == 4 && strlen(b) + 6 < n)
            strcat(b, ", ...");
        return;
    }
    size_t l = strlen(b);
    snprintf(b + l, n - l, "%s%.*s", l ? ", " : "", 90, name);
}

void cuprof_findings_rule_heavyweight(fctx *c)
{
    if (!c->g || !c->tl || c->g->n_kernels == 0)
        return;
    size_t n = c->g->n_kernels;
    uint8_t *heavy = calloc(n, 1);
    if (!heavy)
        return;
    uint64_t nh = 0, nl = 0;
    for (size_t i = 0; i < n; i++) {
        cuprof_cause cause = cuprof_kernel_cause(c->tl, i);
        heavy[i] = (uint8_t)(after_occupancy(c, cause) || from_blas(c, cause) ||
                             replayed_from_blas(c, &c->g->kernels[i]));
        nh += heavy[i];
        nl += !heavy[i];
    }
    if (nh) {
        char hn[300] = "", ln[300] = "";   /* up to 3 names each */
        size_t ch = 0, cl = 0, nseen = 0;
        const char *seen_name[64];           /* distinct (name, class) pairs, first seen first */
        uint8_t seen_heavy[64];
        for (size_t i = 0; i < n; i++) {
            const char *kn = c->g->kernels[i].name;
            int seen = 0;
            for (size_t j = 0; j < nseen && !seen; j++)
                seen = seen_heavy[j] == heavy[i] && !strcmp(seen_name[j], kn);
            if (seen || nseen == 64)
                continue;
            seen_name[nseen] = kn;
            seen_heavy[nseen++] = heavy[i];
            append_name(heavy[i] ? hn : ln, 300, cuprof_names_gpu(c->names, c->g->kernels[i].name), heavy[i] ? &ch : &cl);
        }
        char rest[400];
        if (nl)
            snprintf(rest, sizeof rest, "%llu launch%s of %zu other kernel%s did not "
                     "(elementwise/reduction-like: %s)", (unsigned long long)nl,
                     nl == 1 ? "" : "es", cl, cl == 1 ? "" : "s", ln);
        else
            snprintf(rest, sizeof rest, "no other kernel ran");
        cuprof_finding *f = cuprof_findings_add(c, "heavyweight-kernels", "info",
                                "tune the heavyweight ones (shape, dtype, epilogue); the light "
                                "ones are fusion candidates",
                                "%llu launch%s of %zu kernel%s followed an occupancy query or "
                                "came from a cuBLAS/cuBLASLt call (adaptively launched, "
                                "GEMM/conv-like: %s); %s",
                                (unsigned long long)nh, nh == 1 ? "" : "es", ch, ch == 1 ? "" : "s",
                                hn, rest);
        cuprof_findings_num(f, "heavy_launches", (double)nh, 1);
        cuprof_findings_num(f, "light_launches", (double)nl, 1);
        cuprof_findings_num(f, "heavy_kernels", (double)ch, 1);
        cuprof_findings_num(f, "light_kernels", (double)cl, 1);
    }
    free(heavy);
}

/* ---- sync-wait ------------------------------------------------------------ */

/* overlap() reads kernels and copies alike through their first two fields. */
_Static_assert(offsetof(cuprof_gpu_kernel, start_ns) == 0 && offsetof(cuprof_gpu_kernel, end_ns) == 8 &&
               offsetof(cuprof_gpu_copy, start_ns) == 0 && offsetof(cuprof_gpu_copy, end_ns) == 8,
               "records start with start_ns, end_ns");

/* The records of one sorted-by-start array that may overlap [t0, t1): from
 * the first whose start is at least t0 - the longest record (a binary
 * search) to the first that starts at t1 or later; their number. */
static size_t overlap_span(const void *base, size_t n, size_t size, uint64_t longest, uint64_t t0,
                           uint64_t t1, size_t *first)
{
    /* both record structs start with start_ns, end_ns */
#define REC_START(i) (((const uint64_t *)((const char *)base + (i) * size))[0])
    uint64_t from = t0 > longest ? t0 - longest : 0;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (REC_START(mid) < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t i = lo;
    while (i < n && REC_START(i) < t1)
        i++;
    *first = lo;
    return i - lo;
#undef REC_START
}

/* GPU busy time inside [t0, t1): the records that may overlap it, merged
 * in start order (issue 40: an array of 16 bytes a record was made for
 * this, whether or not a sync was long). */
static uint64_t busy_in(const cuprof_gpu_run *g, uint64_t klong, uint64_t clong, uint64_t t0,
                        uint64_t t1)
{
    size_t kf, cf;
    size_t nk = overlap_span(g->kernels, g->n_kernels, sizeof *g->kernels, klong, t0, t1, &kf);
    size_t nc = overlap_span(g->copies, g->n_copies, sizeof *g->copies, clong, t0, t1, &cf);
    return cuprof_gpu_busy_span(g, kf, nk, cf, nc, t0, t1);
}

void cuprof_findings_rule_sync_wait(fctx *c)
{
    if (!c->g)
        return;
    const cuprof_gpu_run *g = c->g;
    int any = 0;   /* (a run without syncs reads no GPU record here) */
    for (size_t t = 0; t < c->run->nthreads && !any; t++)
        any = cuprof_run_thread_has(&c->run->threads[t], cuprof_run_class_bit(CUPROF_EV_SYNC));
    if (!any)
        return;
    uint64_t klong = 0, clong = 0;   /* longest kernel / copy, at the first long sync */
    int have_long = 0;
    cuprof_event worst_ev;   /* (a copy: a streamed thread's events go with their blocks) */
    const cuprof_event *worst = NULL;
    uint64_t worst_busy = 0, count = 0;
    for (size_t t = 0; t < c->run->nthreads; t++)
        for (uint64_t i = 0; i < c->run->threads[t].n; i++) {
            const cuprof_event *e = cuprof_run_event(&c->run->threads[t], i);
            uint64_t d = findings_dur(e->t0, e->t1);
            if (e->cls != CUPROF_EV_SYNC || d < SYNC_MIN_NS)
                continue;
            if (c->tl && (e->t1 <= c->tl->stats.window_start_ns ||   /* set-up, not the run */
                          e->t0 >= c->tl->stats.window_end_ns + SYNC_MIN_NS))
                continue;
            if (!have_long) {
                for (size_t k = 0; k < g->n_kernels; k++)
                    if (findings_dur(g->kernels[k].start_ns, g->kernels[k].end_ns) > klong)
                        klong = findings_dur(g->kernels[k].start_ns, g->kernels[k].end_ns);
                for (size_t k = 0; k < g->n_copies; k++)
                    if (findings_dur(g->copies[k].start_ns, g->copies[k].end_ns) > clong)
                        clong = findings_dur(g->copies[k].start_ns, g->copies[k].end_ns);
                have_long = 1;
            }
            uint64_t b = busy_in(g, klong, clong, e->t0, e->t1);
            if ((double)b > SYNC_BUSY_SHARE * (double)d)
                continue;
            count++;
            if (!worst || d > findings_dur(worst->t0, worst->t1)) {
                worst_ev = *e;
                worst = &worst_ev;
                worst_busy = b;
            }
        }
    if (!worst)
        return;
    uint64_t d = findings_dur(worst->t0, worst->t1);
    char a[32], b[32], p[32];
    cuprof_finding *f = cuprof_findings_add(c, "sync-wait", "warning",
                            "open the call in the trace: with nothing queued on the GPU the time is "
                            "host-side (lazy setup, library work deferred to the sync); keep the "
                            "GPU fed instead of waiting",
                            "%s blocked the CPU %s while the GPU was busy only %s of it "
                            "(%s)%s: the wait was not for GPU work",
                            cuprof_run_api_name(c->run, worst->api), cuprof_findings_fmt_ns(a, sizeof a, d),
                            cuprof_findings_fmt_ns(b, sizeof b, worst_busy),
                            cuprof_findings_fmt_pct(p, sizeof p, (double)worst_busy / (double)d),
                            count > 1 ? " (the longest of several)" : "");
    cuprof_findings_num(f, "sync_ns", (double)d, 1);
    cuprof_findings_num(f, "gpu_busy_ns", (double)worst_busy, 1);
    cuprof_findings_num(f, "syncs", (double)count, 1);
}

/* ---- addmm-pattern and fusion-candidate (call order) ---------------------- */

void cuprof_findings_rule_sequences(fctx *c)
{
    const cuprof_run *run = c->run;
    uint64_t addmm = 0, addmm_bytes = 0, fuse = 0, fuse_m = 0, fuse_n = 0;
    uint32_t fuse_kernel = 0;
    for (size_t t = 0; t < run->nthreads; t++) {
        const cuprof_run_thread *th = &run->threads[t];
        if (!cuprof_run_thread_has(th, cuprof_run_class_bit(CUPROF_EV_COPY) |
                                           cuprof_run_class_bit(CUPROF_EV_BLAS)))
            continue;   /* both patterns start at a copy or a GEMM */
        for (uint64_t i = 0; i < th->n; i++) {
            const cuprof_event *e = cuprof_run_event(th, i);
            cuprof_event here;   /* e, kept while next_sibling reads on */
            if ((e->cls == CUPROF_EV_COPY && e->a.copy.dir == CUPROF_DIR_DTOD) || e->cls == CUPROF_EV_BLAS) {
                here = *e;
                e = &here;
            }
            if (e->cls == CUPROF_EV_COPY && e->a.copy.dir == CUPROF_DIR_DTOD) {
                int64_t j = next_sibling(th, i, e->depth);
                const cuprof_event *b = j >= 0 ? cuprof_run_event(th, (uint64_t)j) : NULL;
                if (!b || b->cls != CUPROF_EV_BLAS || !b->a.blas.beta_nonzero)
                    continue;
                uint64_t elems = (uint64_t)b->a.blas.m * b->a.blas.n *
                                 (b->a.blas.batch ? b->a.blas.batch : 1);
                unsigned es = dtype_bytes(b->a.blas.ctype);
                int same = es ? e->a.copy.bytes == elems * es
                              : elems && e->a.copy.bytes % elems == 0 && e->a.copy.bytes / elems <= 16;
                if (same) {
                    addmm++;
                    addmm_bytes += e->a.copy.bytes;
                }
            } else if (e->cls == CUPROF_EV_BLAS) {
                int64_t j = next_sibling(th, i, e->depth);
                const cuprof_event *l = j >= 0 ? cuprof_run_event(th, (uint64_t)j) : NULL;
                if (!l || l->cls != CUPROF_EV_LAUNCH)
                    continue;
                uint64_t out = (uint64_t)e->a.blas.m * e->a.blas.n *
                               (e->a.blas.batch ? e->a.blas.batch : 1);
                uint64_t blk = (uint64_t)l->a.launch.block[0] * l->a.launch.block[1] *
                               l->a.launch.block[2];
                uint64_t thr = (uint64_t)l->a.launch.grid_x * l->a.launch.grid_y *
                               l->a.launch.grid_z * blk;
                if (out && thr * FUSE_MIN_DIV >= out && thr <= FUSE_MAX_MUL * out + blk) {
                    fuse++;
                    fuse_kernel = l->a.launch.kernel;
                    fuse_m = e->a.blas.m;
                    fuse_n = e->a.blas.n;
                }
            }
        }
    }
    const cuprof_stat_copy *dtod = NULL;
    for (size_t i = 0; i < c->s->ncopies; i++)
        if (c->s->copies[i].dir == CUPROF_DIR_DTOD)
            dtod = &c->s->copies[i];
    if (addmm) {
        char t[32];
        cuprof_finding *f = cuprof_findings_add(c, "addmm-pattern", "warning",
                                "let the GEMM add the bias itself: cublasLtMatmul with "
                                "CUBLASLT_EPILOGUE_BIAS (beta = 0) drops the copy and its memory traffic",
                                "%llu times a device-to-device copy of the output's "
                                "size (%llu bytes) right before a GEMM with beta != 0: the bias is "
                                "copied into the output, then accumulated by the GEMM (DtoD copies "
                                "on the GPU: %s)",
                                (unsigned long long)addmm, (unsigned long long)(addmm_bytes / addmm),
                                dtod && dtod->gpu_total_ns ? cuprof_findings_fmt_ns(t, sizeof t, dtod->gpu_total_ns)
                                                           : "unknown");
        cuprof_findings_num(f, "occurrences", (double)addmm, 1);
        cuprof_findings_num(f, "bytes", (double)addmm_bytes, 1);
        cuprof_findings_num(f, "dtod_gpu_total_ns", dtod ? (double)dtod->gpu_total_ns : 0, 1);
    }
    if (fuse) {
        const char *kn = cuprof_names_kernel(c->names, fuse_kernel);
        uint64_t kt = 0;
        for (size_t i = 0; i < c->s->nkernels; i++)
            if (!strcmp(c->s->kernels[i].name, kn))
                kt = c->s->kernels[i].gpu_total_ns;
        char t[32];
        cuprof_finding *f = cuprof_findings_add(c, "fusion-candidate", "warning",
                                "fuse it into the GEMM: a cuBLASLt epilogue (BIAS, RELU_BIAS, "
                                "GELU_BIAS) or a compiler that fuses (torch.compile)",
                                "%s is launched right after %llu GEMMs with one "
                                "thread per output element or so (%llux%llu): an elementwise pass "
                                "over the GEMM's output (GPU time %s)",
                                kn, (unsigned long long)fuse, (unsigned long long)fuse_m,
                                (unsigned long long)fuse_n, kt ? cuprof_findings_fmt_ns(t, sizeof t, kt) : "unknown");
        cuprof_findings_num(f, "occurrences", (double)fuse, 1);
        cuprof_findings_num(f, "kernel_gpu_total_ns", (double)kt, 1);
    }
}

/* ---- the steady state (for overhead-/compute-bound) ----------------------- */

/* Phase of a call at t on thread ti: the synchronizing calls of that thread
 * that ended by t (sync_t1[off[ti] .. off[ti + 1]) sorted). */
static uint64_t phase_at(const uint64_t *sync_t1, const size_t *off, size_t ti, uint64_t t)
{
    size_t lo = off[ti], hi = off[ti + 1];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sync_t1[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - off[ti];
}

static int cmp_key(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Kernel i's (thread, phase) key and its launching call's start; 0 = unknown. */
static uint64_t kernel_key(const fctx *c, const uint64_t *sync_t1, const size_t *off, size_t i,
                           uint64_t *t0)
{
    cuprof_cause cause = cuprof_kernel_cause(c->tl, i);
    const cuprof_run_thread *th = NULL;
    const cuprof_event *e = cause.hooked ? cuprof_run_find_event(c->run, cause.hooked, &th) : NULL;
    if (!e || !th)
        return 0;
    size_t ti = (size_t)(th - c->run->threads);
    *t0 = e->t0;
    return ((uint64_t)(ti + 1) << 40) | phase_at(sync_t1, off, ti, e->t0);
}

int cuprof_findings_steady_state(const fctx *c, findings_steady *st)
{
    const cuprof_run *run = c->run;
    const cuprof_gpu_run *g = c->g;
    size_t n = g ? g->n_kernels : 0, nsync = 0, cap = 0;
    if (n < STEADY_MIN_KERNELS || !c->tl)
        return -1;
    size_t *off = calloc(run->nthreads + 1, sizeof *off);
    uint64_t *sync_t1 = NULL, *count = NULL;
    int rc = -1;
    if (!off)
        goto out;
    for (size_t t = 0; t < run->nthreads; t++) {   /* each thread's syncs' ends, in one pass */
        const cuprof_run_thread *th = &run->threads[t];
        for (uint64_t i = 0; cuprof_run_thread_has(th, cuprof_run_class_bit(CUPROF_EV_SYNC)) && i < th->n;
             i++) {
            const cuprof_event *e = cuprof_run_event(th, i);
            if (e->cls != CUPROF_EV_SYNC)
                continue;
            if (nsync == cap) {
                size_t nc = cap ? cap * 2 : 64;
                uint64_t *p = realloc(sync_t1, nc * sizeof *p);
                if (!p)
                    goto out;
                sync_t1 = p;
                cap = nc;
            }
            sync_t1[nsync++] = e->t1;
        }
        off[t + 1] = nsync;
        if (nsync > off[t])
            qsort(sync_t1 + off[t], nsync - off[t], sizeof *sync_t1, cmp_key);
    }
    /* kernels per (thread, phase): thread ti's phases 0..its syncs at
     * off[ti] + ti (issue 40: the keys of every kernel were sorted, 16
     * bytes a kernel with the sort's scratch) */
    if (!(count = calloc(nsync + run->nthreads, sizeof *count)))
        goto out;
    uint64_t t0;
    for (size_t i = 0; i < n; i++) {
        uint64_t key = kernel_key(c, sync_t1, off, i, &t0);
        if (key) {
            size_t ti = (size_t)(key >> 40) - 1;
            count[off[ti] + ti + (key & ((1ull << 40) - 1))]++;
        }
    }
    uint64_t best = 0;
    size_t best_n = 0;
    for (size_t ti = 0; ti < run->nthreads; ti++)   /* the key with the most kernels, the */
        for (size_t p = 0; p <= off[ti + 1] - off[ti]; p++)   /* lowest of equals */
            if (count[off[ti] + ti + p] > best_n) {
                best = ((uint64_t)(ti + 1) << 40) | p;
                best_n = count[off[ti] + ti + p];
            }
    if (best_n < STEADY_MIN_KERNELS)
        goto out;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < n; i++) {   /* (best is not 0: no key) */
        if (kernel_key(c, sync_t1, off, i, &t0) != best)
            continue;
        lo = t0 < lo ? t0 : lo;
        hi = g->kernels[i].end_ns > hi ? g->kernels[i].end_ns : hi;
    }
    if (lo >= hi)
        goto out;
    uint64_t busy = cuprof_gpu_busy(g, lo, hi);   /* every kernel and copy, clipped */
    st->kernels = best_n;
    st->window_ns = hi - lo;
    st->idle_share = busy >= hi - lo ? 0.0 : 1.0 - (double)busy / (double)(hi - lo);
    rc = 0;
out:
    free(off);
    free(sync_t1);
    free(count);
    return rc;
}
