/* kmatch.c - see kmatch.h. */
#include "model/kmatch.h"
#include "model/names.h"

#include <stdlib.h>
#include <string.h>

/* What a call made, or a record is: step 1 pairs equal kinds and keys. */
enum { K_KERNEL = 0, K_COPY = 1, K_MEMSET = 2, K_HOLDER = 3 /* step 2 only */ };

typedef struct kcall {
    uint64_t t0, t1, id;
    uint64_t bytes;     /* K_COPY, K_MEMSET: bytes; K_KERNEL: the name, interned */
    uint8_t kind;
    uint8_t dir;        /* K_COPY: enum cuprof_gpu_copy_kind */
    uint8_t holds;      /* K_HOLDER: HOLD_WORK (kernels, memsets), HOLD_COPY, or both */
} kcall;

/* What a holder may hold: a GEMM kernels and memsets; cuBLAS's other calls
 * copies too (their results, cublasGetVector's); its helpers that only move
 * data (cublasSetMatrix & co) copies only. */
/* HOLD_INSIDE: a math library's call (cuSOLVER's routines run half a dozen
 * kernels each, of unknown count): a kernel that began after it began and
 * before the next holder began is its own, before the rest are shared out by
 * order. Right when its kernels start before the next library call begins (a
 * device that keeps up: the sim's calls end with SIMLIB_TAIL_NS of host
 * work); a kernel queued behind others may go to the next call. */
enum { HOLD_WORK = 1, HOLD_COPY = 2, HOLD_INSIDE = 4 };

typedef struct krec {
    uint64_t start;
    uint64_t bytes;     /* as in kcall */
    uint64_t *out;      /* where its call's id goes */
    uint32_t corr;
    uint8_t kind;
    uint8_t dir;        /* K_COPY: enum cuprof_gpu_copy_kind */
    uint8_t own;        /* a kernel some hooked launch names: the program's own */
    long call;          /* index in the calls (sorted by kind, key, t0), -1 = none */
} krec;

/* What a call or record is, for step 1: kind, then the kernel's name (its
 * interned pointer: model/names.h, equal strings, equal pointers; no string
 * compare in the sorts, where mangled names share long prefixes) or the
 * bytes, and a copy's direction. */
typedef struct kkey {
    uint8_t kind, dir;
    uint64_t bytes;
} kkey;

#define KEY(x) ((kkey){(x)->kind, (x)->dir, (x)->bytes})

static int cmp_key(kkey a, kkey b)
{
    if (a.kind != b.kind)
        return a.kind < b.kind ? -1 : 1;
    if (a.bytes != b.bytes)
        return a.bytes < b.bytes ? -1 : 1;
    return (a.dir > b.dir) - (a.dir < b.dir);
}


static int cmp_call(const void *a, const void *b)
{
    const kcall *x = a, *y = b;
    int c = cmp_key(KEY(x), KEY(y));
    if (c)
        return c;
    return (x->t0 > y->t0) - (x->t0 < y->t0);
}

static int cmp_rec(const void *a, const void *b)
{
    const krec *x = a, *y = b;
    int c = cmp_key(KEY(x), KEY(y));
    if (c)
        return c;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->corr > y->corr) - (x->corr < y->corr);
}

static int cmp_corr(const void *a, const void *b)
{
    const krec *x = a, *y = b;
    if (x->corr != y->corr)
        return x->corr < y->corr ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* A hooked copy's direction as CUPTI names a copy's kind (an unresolved
 * one as OTHER, which array copies are too). */
static uint8_t copy_kind(uint8_t dir)
{
    switch (dir) {
    case CUPROF_DIR_HTOH: return CUPROF_GPU_COPY_HTOH;
    case CUPROF_DIR_HTOD: return CUPROF_GPU_COPY_HTOD;
    case CUPROF_DIR_DTOH: return CUPROF_GPU_COPY_DTOH;
    case CUPROF_DIR_DTOD: return CUPROF_GPU_COPY_DTOD;
    case CUPROF_DIR_PTOP: return CUPROF_GPU_COPY_PTOP;
    default: return CUPROF_GPU_COPY_OTHER;
    }
}

/* Event ids of the calls a capture took into a graph (they ran nothing). */
static uint64_t *graph_origins(const cuprof_gpu_run *g, size_t *n)
{
    uint64_t *o = malloc((g->n_graph_nodes ? g->n_graph_nodes : 1) * sizeof *o);
    *n = 0;
    for (size_t i = 0; o && i < g->n_graph_nodes; i++)
        if (g->graph_nodes[i].origin)
            o[(*n)++] = g->graph_nodes[i].origin;
    if (o)
        qsort(o, *n, sizeof *o, cmp_u64);
    return o;
}

/* What event ev (the i-th of th) is for matching: 1 with *k filled, or 0
 * when it makes no device work. */
static int call_of(const cuprof_run *run, const cuprof_run_thread *th, uint64_t i,
                   const cuprof_event *ev, const cuprof_names *nm, kcall *k, int *group)
{
    /* NCCL launches a group's work at its ncclGroupEnd: the calls inside
     * ncclGroupStart/End hold none (*group: the thread's open groups) */
    if (ev->cls == CUPROF_EV_CALL || ev->cls == CUPROF_EV_COLL) {
        const char *n = cuprof_run_api_name(run, ev->api);
        if (!strcmp(n, "ncclGroupStart")) {
            ++*group;
            return 0;
        }
        if (!strcmp(n, "ncclGroupEnd") && *group > 0 && --*group > 0)
            return 0;
        if (ev->cls == CUPROF_EV_COLL && (*group > 0 || !strncmp(n, "ncclComm", 8)))
            return 0;   /* (nor the communicator's life: too little to share the rest with) */
    }
    if (ev->result != 0 || ev->t1 == 0)
        return 0;
    *k = (kcall){.t0 = ev->t0, .t1 = ev->t1, .id = cuprof_event_id_make(th->index, i)};
    switch (ev->cls) {
    case CUPROF_EV_LAUNCH:
        if (ev->a.launch.kernel != 0 && ev->a.launch.kernel <= run->nkernels &&
            run->kernel_names[ev->a.launch.kernel]) {
            k->kind = K_KERNEL;
            k->bytes = (uint64_t)(uintptr_t)cuprof_names_kernel(nm, ev->a.launch.kernel);
        } else {
            k->kind = K_HOLDER;
            k->holds = HOLD_WORK;
        }
        return 1;
    case CUPROF_EV_COPY:
        k->kind = K_COPY;
        k->bytes = ev->a.copy.bytes;
        k->dir = copy_kind(ev->a.copy.dir);
        return 1;
    case CUPROF_EV_MEMSET:
        k->kind = K_MEMSET;
        k->bytes = ev->a.copy.bytes;
        return 1;
    case CUPROF_EV_BLAS:
        k->kind = K_HOLDER;
        if (cuprof_ev_is_gemm(ev)) {
            k->holds = HOLD_WORK;
        } else {
            const char *n = cuprof_run_api_name(run, ev->api);
            k->holds = strstr(n, "SetMatrix") || strstr(n, "GetMatrix") || strstr(n, "SetVector") ||
                               strstr(n, "GetVector")
                           ? HOLD_COPY
                           : HOLD_WORK | HOLD_COPY;
        }
        return 1;
    case CUPROF_EV_MATH:   /* cuFFT, cuRAND, cuSPARSE, cuSOLVER: their kernels and copies */
        if (!(ev->a.math.lib & CUPROF_MATH_WORK))
            return 0;   /* set-up and queries */
        k->kind = K_HOLDER;
        k->holds = HOLD_WORK | HOLD_COPY | HOLD_INSIDE;
        return 1;
    case CUPROF_EV_COLL:   /* NCCL: its kernels (several ranks) or copies (one) */
        k->kind = K_HOLDER;
        k->holds = HOLD_WORK | HOLD_COPY;
        return 1;
    default:
        return 0;
    }
}

/* The calls that make device work, or can hold a library's: one array
 * (counted first: in a long run they may be tens of millions). */
static kcall *collect_calls(const cuprof_run *run, const cuprof_gpu_run *g,
                            const cuprof_names *nm, size_t *n)
{
    size_t norig = 0, want = 0;
    kcall k;
    for (size_t t = 0; t < run->nthreads; t++) {
        int group = 0;
        for (uint64_t i = 0; i < run->threads[t].n; i++)
            want += (size_t)call_of(run, &run->threads[t], i,
                                    cuprof_run_event(&run->threads[t], i), nm, &k, &group);
    }
    uint64_t *orig = graph_origins(g, &norig);
    kcall *c = malloc((want ? want : 1) * sizeof *c);
    if (!orig || !c) {
        free(orig);
        free(c);
        return NULL;
    }
    *n = 0;
    for (size_t t = 0; t < run->nthreads; t++) {
        const cuprof_run_thread *th = &run->threads[t];
        int group = 0;
        for (uint64_t i = 0; i < th->n && *n < want; i++) {
            if (!call_of(run, th, i, cuprof_run_event(th, i), nm, &k, &group))
                continue;
            if (bsearch(&k.id, orig, norig, sizeof *orig, cmp_u64))
                continue;   /* captured into a graph: ran nothing then */
            c[(*n)++] = k;
        }
    }
    free(orig);
    return c;
}

/* Step 1: each group of equal kind and key, calls and records in time order. */
static void match_alike(kcall *calls, size_t nc, krec *recs, size_t nr, uint64_t tol)
{
    size_t i = 0;
    for (size_t r = 0; r < nr; r++) {
        krec *x = &recs[r];
        while (i < nc && cmp_key(KEY(&calls[i]), KEY(x)) < 0)
            i++;
        /* calls of its key exist (some may be taken already) */
        x->own = x->kind == K_KERNEL && i > 0 && cmp_key(KEY(&calls[i - 1]), KEY(x)) == 0;
        if (i == nc || cmp_key(KEY(&calls[i]), KEY(x)) != 0)
            continue;
        x->own = x->kind == K_KERNEL;
        if (x->start + tol < calls[i].t0)
            continue;   /* began before the call: an earlier call's, not recorded */
        x->call = (long)i++;
    }
}

/* Step 2: the leftovers (recs sorted by corr) to the holders (by t0). */
static void share_out(const kcall *calls, const krec *recs, size_t nr, krec **left, size_t nl,
                      const kcall **hold, size_t nh, uint64_t tol)
{
    /* anchors: the matched records, by corr (recs is) */
    size_t a = 0;   /* first matched record with corr > the current leftover's */
    size_t l = 0;
    while (l < nl) {
        uint32_t corr = left[l]->corr;
        while (a < nr && (recs[a].call < 0 || recs[a].corr <= corr))
            a++;
        /* the matched record before: scan back from a */
        size_t b = a;
        while (b > 0 && (recs[b - 1].call < 0 || recs[b - 1].corr > corr))
            b--;
        uint64_t lo = b > 0 ? calls[recs[b - 1].call].t0 : 0;
        uint64_t hi = a < nr ? calls[recs[a].call].t0 : UINT64_MAX;
        /* the leftovers between the same two anchors */
        size_t m = 1;
        while (l + m < nl && (a == nr || left[l + m]->corr < recs[a].corr))
            m++;
        /* holders that overlap [lo, hi] */
        size_t s = 0, e = nh;
        while (s < e) {   /* the first that began at lo or later */
            size_t mid = s + (e - s) / 2;
            if (hold[mid]->t0 < lo)
                s = mid + 1;
            else
                e = mid;
        }
        while (s > 0 && hold[s - 1]->t1 >= lo)   /* and those still open at lo */
            s--;
        for (e = s; e < nh && hold[e]->t0 <= hi; e++)
            ;
        for (size_t j = 0; e > s && j < m; j++) {
            krec *x = left[l + j];
            size_t h = s + j * (e - s) / m;
            while (h > s && hold[h]->t0 > x->start + tol)
                h--;
            if (hold[h]->t0 <= x->start + tol)
                *x->out = hold[h]->id;
        }
        l += m;
    }
}

static int cmp_hold(const void *a, const void *b)
{
    const kcall *x = *(const kcall *const *)a, *y = *(const kcall *const *)b;
    return (x->t0 > y->t0) - (x->t0 < y->t0);
}

/* Both steps, with the arrays allocated. */
static void match(const cuprof_gpu_run *g, uint64_t tol, const cuprof_names *nm, kcall *calls,
                  size_t nc, krec *recs, krec **left, const kcall **hold, uint64_t *kernel_hooked,
                  uint64_t *copy_hooked)
{
    size_t nr = 0, nl = 0, nh = 0;
    for (size_t i = 0; i < g->n_kernels; i++) {
        const cuprof_gpu_kernel *k = &g->kernels[i];
        kernel_hooked[i] = 0;
        if (k->graph_id == 0 && !k->device_launched)
            recs[nr++] = (krec){.start = k->start_ns,
                                .bytes = (uint64_t)(uintptr_t)cuprof_names_gpu(nm, k->name),
                                .out = &kernel_hooked[i], .corr = k->corr, .kind = K_KERNEL,
                                .call = -1};
    }
    for (size_t i = 0; i < g->n_copies; i++) {
        const cuprof_gpu_copy *c = &g->copies[i];
        copy_hooked[i] = 0;
        if (c->graph_id == 0)
            recs[nr++] = (krec){.start = c->start_ns, .bytes = c->bytes, .out = &copy_hooked[i],
                                .corr = c->corr, .call = -1,
                                .kind = c->kind == CUPROF_GPU_COPY_MEMSET ? K_MEMSET : K_COPY,
                                .dir = c->kind == CUPROF_GPU_COPY_MEMSET ? 0 : c->kind};
    }
    qsort(calls, nc, sizeof *calls, cmp_call);
    qsort(recs, nr, sizeof *recs, cmp_rec);
    match_alike(calls, nc, recs, nr, tol);
    for (size_t i = 0; i < nr; i++)
        if (recs[i].call >= 0)
            *recs[i].out = calls[recs[i].call].id;
    /* step 2, in CUPTI's order of the calls */
    qsort(recs, nr, sizeof *recs, cmp_corr);
    /* kernels and memsets to the holders of work; then the copies to the
     * holders of copies (cuBLAS's calls but the GEMMs, hooked since issue
     * 33): first the one a copy began inside (cuBLAS's copies are
     * synchronous; a math library's kernels: the last math call that began
     * before them, HOLD_INSIDE), the rest by order */
    for (int pass = 0; pass < 2; pass++) {
        nl = nh = 0;
        for (size_t i = 0; i < nc; i++)
            if (calls[i].kind == K_HOLDER && (calls[i].holds & (pass ? HOLD_COPY : HOLD_WORK)))
                hold[nh++] = &calls[i];
        qsort(hold, nh, sizeof *hold, cmp_hold);
        for (size_t i = 0; i < nr; i++) {
            krec *x = &recs[i];
            if (x->call >= 0 || x->own || (x->kind == K_COPY) != pass)
                continue;
            if (nh) {
                size_t lo = 0, hi = nh;   /* the last holder that began by its start */
                while (lo < hi) {
                    size_t mid = lo + (hi - lo) / 2;
                    if (hold[mid]->t0 <= x->start + tol)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                /* a copy: the holder it began inside; a kernel or memset:
                 * the math call that began last before it (its launches are
                 * asynchronous: it may start once the call returned) */
                const kcall *last = lo > 0 ? hold[lo - 1] : NULL;
                if (last && (pass ? last->t1 + tol >= x->start : (last->holds & HOLD_INSIDE) != 0)) {
                    *x->out = hold[lo - 1]->id;
                    continue;
                }
            }
            left[nl++] = x;
        }
        if (nl && nh)
            share_out(calls, recs, nr, left, nl, hold, nh, tol);
    }
}

int cuprof_kmatch(const cuprof_run *run, const cuprof_gpu_run *g, uint64_t tol,
                  uint64_t *kernel_hooked, uint64_t *copy_hooked)
{
    size_t nc = 0;
    cuprof_names nm;   /* raw names, interned (no demangler: display == raw) */
    if (cuprof_names_build(&nm, run, g, NULL) < 0) {
        cuprof_names_destroy(&nm);
        return -1;
    }
    kcall *calls = collect_calls(run, g, &nm, &nc);
    krec *recs = malloc((g->n_kernels + g->n_copies + 1) * sizeof *recs);
    krec **left = malloc((g->n_kernels + g->n_copies + 1) * sizeof *left);
    const kcall **hold = malloc((nc + 1) * sizeof *hold);
    int rc = calls && recs && left && hold ? 0 : -1;
    if (rc == 0)
        match(g, tol, &nm, calls, nc, recs, left, hold, kernel_hooked, copy_hooked);
    free(calls);
    free(recs);
    free(left);
    free(hold);
    cuprof_names_destroy(&nm);
    return rc;
}
