/*
 * memory.c - device memory held over the run (memory.h).
 */
#include "model/memory.h"

#include <stdlib.h>
#include <string.h>

#define OOM_ERROR 2   /* cudaErrorMemoryAllocation */

/* One allocation or free call, in the order of its end. */
typedef struct mem_ev {
    uint64_t t, ptr, bytes;
    const char *api;
    uint32_t stack;
    uint8_t is_free, failed;   /* failed: an allocation out of memory */
    uint8_t live;              /* allocations: not freed yet (during a replay) */
    uint8_t baseline;          /* held when the capture window opened (made before it) */
} mem_ev;

static int cmp_ev(const void *a, const void *b)
{
    const mem_ev *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t;
}

/* Device allocations only: the host ones say so in their name. */
static int is_device_api(const char *name)
{
    return strstr(name, "Host") == NULL;
}

/* What an allocation or free call counts in. */
enum mem_pool { POOL_DEVICE, POOL_RESERVED, POOL_MAPPED };

static enum mem_pool pool_of(const char *api)
{
    if (!strcmp(api, "cuMemAddressReserve") || !strcmp(api, "cuMemAddressFree"))
        return POOL_RESERVED;
    if (!strcmp(api, "cuMemMap") || !strcmp(api, "cuMemUnmap"))
        return POOL_MAPPED;
    return POOL_DEVICE;
}

/* cuMemCreate's handle stands for a pointer, cuMemRelease frees it: kept
 * apart from the pointers (a handle's value could equal one) by the top bit,
 * which no x86-64 or arm64 user address has. */
static uint64_t key_of(const char *api, uint64_t ptr)
{
    return !strcmp(api, "cuMemCreate") || !strcmp(api, "cuMemRelease") ? ptr | (1ull << 63) : ptr;
}

/* A change of a range count: + at a reserve (map), - at a free (unmap). */
typedef struct range_step {
    uint64_t t;
    int64_t d;
    int pool;
} range_step;

static int cmp_range_step(const void *a, const void *b)
{
    const range_step *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t;
}

/* Whether th may hold allocations or frees (a thread of launches only: no
 * pass over its calls). */
static int has_mem(const cuprof_run_thread *th)
{
    return cuprof_run_thread_has(th, cuprof_run_class_bit(CUPROF_EV_ALLOC) |
                                         cuprof_run_class_bit(CUPROF_EV_FREE));
}

/* The address ranges, by the sizes the calls name (the driver frees and
 * unmaps whole ranges). */
static void count_ranges(const cuprof_run *run, cuprof_memory *m)
{
    typedef range_step step;
    step *st = NULL;
    size_t n = 0, cap = 0;
    for (size_t t = 0; t < run->nthreads; t++) {
        const cuprof_run_thread *th = &run->threads[t];
        for (uint64_t i = 0; has_mem(th) && i < th->n; i++) {
            const cuprof_event *ev = cuprof_run_event(th, i);
            if ((ev->cls != CUPROF_EV_ALLOC && ev->cls != CUPROF_EV_FREE) || ev->result != 0)
                continue;
            enum mem_pool p = pool_of(cuprof_run_api_name(run, ev->api));
            if (p == POOL_DEVICE)
                continue;
            if (n == cap) {
                size_t c = cap ? 2 * cap : 64;
                step *g = realloc(st, c * sizeof *g);
                if (!g)
                    break;
                st = g;
                cap = c;
            }
            int64_t b = (int64_t)ev->a.mem.bytes;
            st[n++] = (step){ev->t1, ev->cls == CUPROF_EV_FREE ? -b : b, p};
        }
    }
    if (n > 1)
        qsort(st, n, sizeof *st, cmp_range_step);
    int64_t held[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
        cuprof_mem_range *r = st[i].pool == POOL_RESERVED ? &m->reserved : &m->mapped;
        int64_t *h = &held[st[i].pool == POOL_RESERVED ? 0 : 1];
        *h += st[i].d;
        if (*h < 0)
            *h = 0;   /* a free of a range made before the run */
        if (st[i].d >= 0)
            r->calls++;
        else
            r->frees++;
        if ((uint64_t)*h > r->peak_bytes)
            r->peak_bytes = (uint64_t)*h;
        r->end_bytes = (uint64_t)*h;
    }
    free(st);
}

/* Appends e to *out (n of cap used, grown by doubling); -1 out of memory. */
static int push(mem_ev **out, size_t *n, size_t *cap, mem_ev e)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 256;
        mem_ev *g = realloc(*out, c * sizeof *g);
        if (!g)
            return -1;
        *out = g;
        *cap = c;
    }
    (*out)[(*n)++] = e;
    return 0;
}

static int gather(const cuprof_run *run, mem_ev **out, size_t *n)
{
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    for (size_t t = 0; t < run->nthreads; t++) {
        const cuprof_run_thread *th = &run->threads[t];
        for (uint64_t i = 0; has_mem(th) && i < th->n; i++) {
            const cuprof_event *ev = cuprof_run_event(th, i);
            if (ev->cls != CUPROF_EV_ALLOC && ev->cls != CUPROF_EV_FREE)
                continue;
            const char *api = cuprof_run_api_name(run, ev->api);
            int failed = ev->cls == CUPROF_EV_ALLOC && ev->result == OOM_ERROR;
            if (!is_device_api(api) || pool_of(api) != POOL_DEVICE ||
                (!failed && (ev->result != 0 || !ev->a.mem.ptr)))
                continue;
            if (push(out, n, &cap, (mem_ev){ev->t1, key_of(api, ev->a.mem.ptr), ev->a.mem.bytes, api, ev->stack,
                                             ev->cls == CUPROF_EV_FREE, (uint8_t)failed, 0, 0}) < 0)
                return -1;
        }
    }
    /* a capture window's run: what was held when its (first) window opened,
     * allocated before it (issue 33: the section started from nothing) */
    const cuprof_mem_held *h = NULL;
    for (size_t i = 0; run->capture.trigger && run->capture.nwindows && i < run->nmem_held; i++)
        if (run->mem_held[i].t == run->capture.windows[0][0])
            h = &run->mem_held[i];
    for (size_t i = 0; h && i < h->n; i++) {
        const char *api = cuprof_run_api_name(run, h->allocs[i].api);
        if (!is_device_api(api) || pool_of(api) != POOL_DEVICE)
            continue;
        if (push(out, n, &cap, (mem_ev){h->t, key_of(api, h->allocs[i].ptr), h->allocs[i].bytes, api, 0, 0, 0, 0, 1}) < 0)
            return -1;
    }
    size_t sorted = 1;   /* one thread's calls come in order: often no sort */
    while (sorted < *n && (*out)[sorted - 1].t <= (*out)[sorted].t)
        sorted++;
    if (sorted < *n)
        qsort(*out, *n, sizeof **out, cmp_ev);
    return 0;
}

/* Live allocations by pointer: open addressing, linear probing, deletion
 * by backward shift (a program may hold many allocations and free them in
 * any order: no scan of the ones before). */
typedef struct live_map {
    uint64_t *key;   /* 0: empty */
    size_t *val;
    size_t mask;
    size_t n;        /* keys held: the table doubles past half full (sized by the
                        allocations live at once, not by the calls: a program that
                        allocates and frees 100 M times holds a few) */
    int failed;      /* it could not grow: out of memory */
} live_map;

static int lm_alloc(live_map *m, size_t cap)
{
    m->key = calloc(cap, sizeof *m->key);
    m->val = calloc(cap, sizeof *m->val);
    m->mask = cap - 1;
    m->n = 0;
    return m->key && m->val ? 0 : -1;
}

static int lm_init(live_map *m, size_t n)
{
    (void)n;
    m->failed = 0;
    return lm_alloc(m, 1024);
}

static void lm_free(live_map *m)
{
    free(m->key);
    free(m->val);
}

static size_t lm_slot(const live_map *m, uint64_t key)
{
    return (size_t)((key >> 4) * 0x9e3779b97f4a7c15ull) & m->mask;
}

static void lm_put(live_map *m, uint64_t key, size_t val);

/* Twice the slots, every key placed again. */
static void lm_grow(live_map *m)
{
    live_map old = *m;
    if (lm_alloc(m, (old.mask + 1) * 2) < 0) {
        lm_free(m);
        *m = old;
        m->failed = 1;
        return;
    }
    for (size_t i = 0; i <= old.mask; i++)
        if (old.key[i])
            lm_put(m, old.key[i], old.val[i]);
    lm_free(&old);
}

static void lm_put(live_map *m, uint64_t key, size_t val)
{
    if ((m->n + 1) * 2 > m->mask + 1)
        lm_grow(m);
    if (m->n >= m->mask)   /* full, and it could not grow (m->failed) */
        return;
    size_t i = lm_slot(m, key);
    while (m->key[i] && m->key[i] != key)
        i = (i + 1) & m->mask;
    m->n += !m->key[i];
    m->key[i] = key;
    m->val[i] = val;
}

/* Removes key; its value, or -1 when absent. */
static long lm_take(live_map *m, uint64_t key)
{
    size_t i = lm_slot(m, key);
    while (m->key[i] && m->key[i] != key)
        i = (i + 1) & m->mask;
    if (!m->key[i])
        return -1;
    long val = (long)m->val[i];
    m->key[i] = 0;
    m->n--;
    /* shift back the entries after it that probed past the hole: one whose
     * home slot lies cyclically in (i, j] stays */
    for (size_t j = (i + 1) & m->mask; m->key[j]; j = (j + 1) & m->mask) {
        size_t k = lm_slot(m, m->key[j]);
        int stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (stays)
            continue;
        m->key[i] = m->key[j];
        m->val[i] = m->val[j];
        m->key[j] = 0;
        i = j;
    }
    return val;
}

/* Replays ev[0..upto) and returns the bytes then held; marks each
 * allocation live or not. A free takes the live allocation of its pointer
 * (the newest, should a pointer be allocated twice). */
static uint64_t replay(mem_ev *ev, size_t upto, uint64_t *nlive, live_map *m)
{
    uint64_t held = 0, live = 0;
    memset(m->key, 0, (m->mask + 1) * sizeof *m->key);
    m->n = 0;
    for (size_t i = 0; i < upto; i++) {
        if (ev[i].failed)
            continue;
        if (!ev[i].is_free) {
            ev[i].live = 1;
            held += ev[i].bytes;
            live++;
            lm_put(m, ev[i].ptr, i);
            continue;
        }
        long k = lm_take(m, ev[i].ptr);
        if (k >= 0) {
            ev[k].live = 0;
            held -= ev[k].bytes;
            live--;
        }
    }
    if (nlive)
        *nlive = live;
    return held;
}

static const char *site_of(const cuprof_stacks *stacks, uint32_t stack)
{
    return stacks && stacks->stack_site ? cuprof_stacks_site(stacks, stack) : NULL;
}

/* Sites are compared by name: two stacks through one function are one site. */
static int same_site(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

static int cmp_owner(const void *a, const void *b)
{
    const cuprof_mem_owner *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    return strcmp(x->api, y->api);
}

/* The live allocations of ev[0..upto) (after replay) by owner, the top
 * CUPROF_MEM_TOP_OWNERS into top. */
static int owners(const mem_ev *ev, size_t upto, const cuprof_stacks *stacks, cuprof_mem_owner *top,
                  size_t *ntop)
{
    cuprof_mem_owner *o = calloc(upto ? upto : 1, sizeof *o);
    size_t n = 0;
    if (!o)
        return -1;
    for (size_t i = 0; i < upto; i++) {
        if (ev[i].is_free || ev[i].failed || !ev[i].live)
            continue;
        const char *site = site_of(stacks, ev[i].stack);
        size_t k = 0;
        while (k < n && (strcmp(o[k].api, ev[i].api) != 0 || !same_site(o[k].site, site)))
            k++;
        if (k == n)
            o[n++] = (cuprof_mem_owner){ev[i].api, site, 0, 0};
        o[k].bytes += ev[i].bytes;
        o[k].allocations++;
    }
    qsort(o, n, sizeof *o, cmp_owner);
    *ntop = n < CUPROF_MEM_TOP_OWNERS ? n : CUPROF_MEM_TOP_OWNERS;
    memcpy(top, o, *ntop * sizeof *top);
    free(o);
    return 0;
}

cuprof_memory *cuprof_memory_build(const cuprof_run *run, const cuprof_stacks *stacks)
{
    cuprof_memory *m = calloc(1, sizeof *m);
    mem_ev *ev = NULL;
    size_t n = 0;
    if (!m || gather(run, &ev, &n) < 0) {
        free(m);
        free(ev);
        return NULL;
    }
    m->steps = calloc(n ? n : 1, sizeof *m->steps);
    if (!m->steps) {
        free(ev);
        free(m);
        return NULL;
    }
    live_map lm;
    if (lm_init(&lm, n) < 0) {
        lm_free(&lm);
        free(ev);
        cuprof_memory_destroy(m);
        return NULL;
    }
    /* steps, the peak (its index: the events up to it rebuild who held it) */
    uint64_t held = 0;
    size_t peak_upto = 0;
    for (size_t i = 0; i < n; i++) {
        if (ev[i].failed)
            continue;
        if (!ev[i].is_free) {
            ev[i].live = 1;
            held += ev[i].bytes;
            if (ev[i].baseline) {
                m->held_at_open_bytes += ev[i].bytes;
                m->held_at_open_allocations++;
            } else {
                m->allocations++;
                m->allocated_bytes += ev[i].bytes;
            }
            m->steps[m->nsteps++] = (cuprof_mem_step){ev[i].t, (int64_t)ev[i].bytes};
            lm_put(&lm, ev[i].ptr, i);
            if (held > m->peak_bytes) {
                m->peak_bytes = held;
                m->peak_t = ev[i].t;
                peak_upto = i + 1;
            }
            continue;
        }
        long k = lm_take(&lm, ev[i].ptr);
        if (k >= 0) {
            ev[k].live = 0;
            held -= ev[k].bytes;
            m->frees++;
            m->steps[m->nsteps++] = (cuprof_mem_step){ev[i].t, -(int64_t)ev[k].bytes};
        }
    }
    m->end_bytes = held;
    int rc = 0;
    if (held) {   /* who holds it at the end (the live flags are the end's now) */
        for (size_t i = 0; i < n; i++)
            m->end_allocations += !ev[i].is_free && !ev[i].failed && ev[i].live;
        rc = owners(ev, n, stacks, m->end_top, &m->nend_top);
    }
    if (m->peak_bytes && rc == 0) {
        replay(ev, peak_upto, &m->peak_allocations, &lm);
        rc = owners(ev, peak_upto, stacks, m->top, &m->ntop);
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (!ev[i].failed)
            continue;
        if (m->noom++ >= CUPROF_MEM_MAX_OOM)
            continue;
        cuprof_mem_oom *o = &m->oom[m->noom - 1];
        o->t = ev[i].t;
        o->api = ev[i].api;
        o->site = site_of(stacks, ev[i].stack);
        o->requested = ev[i].bytes;
        o->live_bytes = replay(ev, i, &o->live_allocations, &lm);
        rc = owners(ev, i, stacks, o->top, &o->ntop);
    }
    m->oom_total = m->noom;
    count_ranges(run, m);
    if (m->noom > CUPROF_MEM_MAX_OOM)
        m->noom = CUPROF_MEM_MAX_OOM;
    if (lm.failed)   /* the live table could not grow: who held what is unknown */
        rc = -1;
    lm_free(&lm);
    free(ev);
    if (rc < 0) {
        cuprof_memory_destroy(m);
        return NULL;
    }
    return m;
}

void cuprof_memory_destroy(cuprof_memory *m)
{
    if (!m)
        return;
    free(m->steps);
    free(m);
}
