/*
 * buffers.c - per-thread event buffers: the hot path of every hook.
 *
 * cuprof_begin/cuprof_end touch only the calling thread's record (reached
 * through one thread-local pointer): no lock, no atomic read-modify-write,
 * one clock stamp each (rdtsc where the TSC is invariant, see clock.h). The
 * global lock is taken once per thread (to list its record); once per 1023
 * events a new chunk is taken (an atomic add to account its memory, and the
 * pool's mutex: its pages were faulted in beforehand, see chunk_take, rather
 * than one page fault per 64 calls inside the calls being timed).
 *
 * What bench/ measured here (bench/RESULTS.md) and why the code is so:
 *   - clock_gettime costs ~24 ns, rdtsc ~10: stamps are TSC ticks, turned
 *     into CLOCK_MONOTONIC ns at exit (cuprof_buffers_stamps_to_ns);
 *   - the first touch of a fresh page costs ~1.5 us, i.e. ~23 ns per event
 *     when taken as page faults inside the calls, and still ~30 ns per event
 *     with MAP_POPULATE: a helper thread faults chunks in ahead of need
 *     (below), so a busy thread only takes a ready one;
 *   - the thread-local record is initial-exec TLS: a general-dynamic access
 *     from a shared object is a __tls_get_addr call (~2-4 ns, twice per
 *     call). See `tls` below for why that is safe when dlopen'ed.
 */
#include "collector/internal.h"
#include "collector/clock.h"
#include "collector/cupti.h"
#include "collector/log.h"
#include "collector/stacks.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Everything the collector keeps per thread, in one place. */
struct cuprof_tls {
    cuprof_thread *thread;   /* this thread's record, NULL until its first event */
    int guard;               /* inside cuprof_guard_enter: record nothing */
    uint64_t pushed;         /* bit d: the open call at depth d pushed an
                                external correlation id (CUPTI may start
                                between a call's begin and its end) */
};

/* initial-exec: the 24 bytes live in the static TLS block, reached with one
 * %fs-relative load. libcuprof is LD_PRELOADed (loaded at start-up, so in the
 * static block by construction); when a driver dlopen()s it as the CUDA
 * injection library instead, glibc serves initial-exec TLS of dlopen'ed
 * objects from its surplus static TLS (1664 bytes and up, glibc >= 2.32),
 * which 24 bytes fit unless other libraries used it all, in which case
 * dlopen fails with "cannot allocate memory in static TLS block" and the
 * run goes without the injection path (LD_PRELOAD still works). */
static __thread struct cuprof_tls tls __attribute__((tls_model("initial-exec")));

int cuprof_guard_active(void)
{
    return tls.guard;
}

int cuprof_guard_enter(void)
{
    int saved = tls.guard;
    tls.guard = 1;
    return saved;
}

void cuprof_guard_leave(int saved)
{
    tls.guard = saved;
}

int cuprof_own_cuda_enter(void)
{
    int saved = cuprof_guard_enter();
    if (__atomic_load_n(&cuprof_cupti_active, __ATOMIC_RELAXED)) {
        cuprof_cupti_push_own();
        saved |= 2;   /* pushed: pop on leave */
    }
    return saved;
}

void cuprof_own_cuda_leave(int saved)
{
    if (saved & 2)
        cuprof_cupti_pop_slow();
    cuprof_guard_leave(saved & 1);
}

void cuprof_api_register(const cuprof_api_desc *table, size_t n)
{
    pthread_mutex_lock(&cuprof_g.lock);
    cuprof_g.apis = table;
    cuprof_g.napis = table ? n : 0;
    pthread_mutex_unlock(&cuprof_g.lock);
}

/* ---- chunks faulted in ahead of need ----------------------------------------
 *
 * Every event needs 64 bytes of fresh memory, and on this kind of machine
 * (bench/RESULTS.md: a KVM guest) the kernel's work to hand out a fresh page
 * costs ~30 ns per event even with MAP_POPULATE, more than the rest of the
 * hook. So once a thread has filled its first chunk, a helper thread
 * ("cuprof-prefault", started then, never in processes that make fewer calls)
 * keeps a few populated chunks ready; a thread that fills a chunk takes the
 * next from the pool under a mutex (once per 1023 calls) and maps one itself
 * only when the pool is empty. The helper makes no CUDA call, blocks every
 * signal and sleeps on a condition variable when the pool is full.
 * CUPROF_PREFAULT=0 turns it off (each thread then maps its own chunks).
 * Pool chunks are not counted against CUPROF_MEM_LIMIT until taken (at most
 * PREFAULT_POOL * 64 KiB = 1 MiB more). */
#define PREFAULT_POOL 16

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;           /* the helper waits here while the pool is full */
    void *ready[PREFAULT_POOL];    /* populated chunks */
    int n;                         /* how many */
    int started;                   /* the helper runs (in this process) */
    int failed;                    /* could not start it: threads map their own */
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, {0}, 0, 0, 0};

static void *chunk_map(void)
{
    return mmap(NULL, CUPROF_CHUNK_BYTES, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
}

static void *prefault_main(void *arg)
{
    (void)arg;
    prctl(PR_SET_NAME, "cuprof-prefault", 0, 0, 0);
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        while (pool.n >= PREFAULT_POOL)
            pthread_cond_wait(&pool.wake, &pool.lock);
        pthread_mutex_unlock(&pool.lock);
        void *p = chunk_map();   /* the page faults happen here, on this thread */
        pthread_mutex_lock(&pool.lock);
        if (p == MAP_FAILED) {
            pool.failed = 1;     /* out of memory: threads map (and fail) themselves */
            pool.started = 0;
            break;
        }
        if (pool.n < PREFAULT_POOL)
            pool.ready[pool.n++] = p;
        else
            munmap(p, CUPROF_CHUNK_BYTES);
    }
    pthread_mutex_unlock(&pool.lock);
    return NULL;
}

/* Starts the helper; pool.lock held. Every signal blocked in it (the
 * program's handlers must not run on our thread). */
static void prefault_start_locked(void)
{
    pthread_attr_t attr;
    sigset_t all, old;
    pthread_t th;
    pool.failed = 1;   /* unless the thread starts */
    if (pthread_attr_init(&attr) != 0)
        return;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    if (pthread_create(&th, &attr, prefault_main, NULL) == 0)
        pool.started = 1, pool.failed = 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
}

/* A populated chunk: from the pool when it has one (starting the helper if
 * start and it is not running), else mapped here. MAP_FAILED on failure. */
static void *chunk_take(int start)
{
    void *p = NULL;
    if (cuprof_g_config.prefault) {
        pthread_mutex_lock(&pool.lock);
        if (start && !pool.started && !pool.failed)
            prefault_start_locked();
        if (pool.n > 0)
            p = pool.ready[--pool.n];
        if (pool.started)
            pthread_cond_signal(&pool.wake);
        pthread_mutex_unlock(&pool.lock);
    }
    return p ? p : chunk_map();
}

/* A fresh chunk whose first event has sequence number base, within the
 * memory limit, its pages already faulted in (chunk_take: by the helper, or
 * here with MAP_POPULATE: one system call instead of 16 page faults spread
 * over the next 1023 calls). grow: the caller filled a chunk (may start the
 * helper). NULL (with a one-time warning) when over the limit or out of
 * memory.
 * (Tried: 2 MiB slabs on transparent huge pages. On this KVM guest zeroing a
 * fresh huge page cost more per event than 4 KiB pages, ~150 vs ~60 ns per
 * begin+end pair, so 64 KiB chunks of small pages it is.) */
static cuprof_chunk *chunk_new(uint64_t base, int grow)
{
    uint64_t after = atomic_fetch_add_explicit(&cuprof_g.mem_bytes, CUPROF_CHUNK_BYTES,
                                               memory_order_relaxed) + CUPROF_CHUNK_BYTES;
    void *p = MAP_FAILED;
    /* A thread's first chunk is allowed past the limit (at most 64 KiB per
     * thread more): without one it could not record, nor spill its own. */
    if (after <= cuprof_g_config.mem_limit || base == 0)
        p = chunk_take(grow);
    if (p == MAP_FAILED) {
        atomic_fetch_sub_explicit(&cuprof_g.mem_bytes, CUPROF_CHUNK_BYTES, memory_order_relaxed);
        /* Over the limit: chunk_grow spills (spill.c says so). Out of
         * memory (mmap failed): the call is counted, not recorded. */
        if (after <= cuprof_g_config.mem_limit || base == 0)
            if (!atomic_exchange_explicit(&cuprof_g.mem_warned, 1, memory_order_relaxed))
                cuprof_log("out of memory for events (%llu bytes in use); calls that find "
                           "no room are counted, not recorded",
                           (unsigned long long)(after - CUPROF_CHUNK_BYTES));
        return NULL;
    }
    cuprof_chunk *c = p;   /* mmap'd memory is zeroed (a reused chunk is zeroed in chunk_grow) */
    c->base = base;
    c->anchor = cuprof_clock_anchor_now();
    return c;
}

/* Creates and lists the calling thread's record (first event on the thread).
 * NULL when memory is short: the call then goes unrecorded. */
static cuprof_thread *thread_register(void)
{
    cuprof_clock_init(!cuprof_g_config.clock_monotonic);   /* once, before any stamp */
    cuprof_thread *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->head = t->tail = chunk_new(0, 0);
    if (!t->head) {
        free(t);
        return NULL;
    }
    t->cur = t->head->ev;
    t->end = t->head->ev + CUPROF_CHUNK_EVENTS;
    t->conv_chunk = t->head;
    t->tid = (uint32_t)syscall(SYS_gettid);
    prctl(PR_GET_NAME, t->name, 0, 0, 0);
    t->name[sizeof t->name - 1] = '\0';

    pthread_mutex_lock(&cuprof_g.lock);
    t->index = ++cuprof_g.nthreads;
    *cuprof_g.threads_tail = t;
    cuprof_g.threads_tail = &t->next;
    pthread_mutex_unlock(&cuprof_g.lock);
    tls.thread = t;
    cuprof_debug(CUPROF_DBG_COLLECTOR, "thread %u (tid %u) registered", t->index, t->tid);
    return t;
}

/* Chains a new chunk after the full tail: a fresh one within the memory
 * limit, else the thread's oldest chunk once spill.c has written it to the
 * spill file (its memory is reused, so memory stays at the limit). 0 on
 * success, -1 when neither is possible (the caller counts a drop). */
static int chunk_grow(cuprof_thread *t)
{
    uint64_t base = t->tail->base + CUPROF_CHUNK_EVENTS;
    cuprof_chunk *c = chunk_new(base, 1);
    if (!c) {
        c = cuprof_spill_oldest(t);
        if (!c)
            return -1;
        /* Off the chain now (it was the head, or the only chunk): make it a
         * fresh tail. Zeroed like new memory (hooks rely on it for t1 and
         * the result of a call whose end never comes). */
        memset(c->ev, 0, sizeof c->ev);
        atomic_store_explicit(&c->next, NULL, memory_order_relaxed);
        c->base = base;
        c->anchor = cuprof_clock_anchor_now();
        if (c == t->tail) {   /* the thread's only chunk, reused in place */
            t->cur = c->ev;
            t->end = c->ev + CUPROF_CHUNK_EVENTS;
            return 0;
        }
    }
    /* release: a reader following next sees the chunk header initialized */
    atomic_store_explicit(&t->tail->next, c, memory_order_release);
    t->tail = c;
    t->cur = c->ev;
    t->end = c->ev + CUPROF_CHUNK_EVENTS;
    return 0;
}

/* The record the calibration runs on (cuprof_buffers_calibrate): it records
 * whatever the recording state, so that the measure is the same with a
 * capture window. Set only while the calibration runs, on its thread. */
static cuprof_thread *calibrating;
static _Atomic int calibrated;   /* the first call of the process has run it */
uint64_t cuprof_buffers_calibrate(void);

/* A call or NVTX event outside the capture window, the first of its thread
 * or the first call: what a window's first event would otherwise pay for
 * inside the window is done now (the thread's record and first chunk, and
 * CUPTI's start by the first call: capture.c). */
static __attribute__((noinline)) void gated_first(int cupti)
{
    if (tls.guard)
        return;
    int saved = errno;
    if (cupti && !cuprof_capture_outside_seen())
        cuprof_capture_outside();
    if (!tls.thread)
        thread_register();
    errno = saved;
}

/* The next slot of the calling thread, api and cls and depth set, or NULL
 * (not recording, inside the guard, or dropped: then counted). The common
 * part of cuprof_begin and cuprof_instant; cupti: a thread's first event
 * starts CUPTI (calls do; NVTX events, which need no device, do not). */
static inline __attribute__((always_inline)) cuprof_event *
slot_take(uint16_t api, uint8_t cls, int cupti, cuprof_thread **tp)
{
    /* recording is set only after init is done (lifecycle.c), so one relaxed
     * load covers both in the common case. */
    if (__builtin_expect(atomic_load_explicit(&cuprof_g.recording, memory_order_relaxed) !=
                         CUPROF_REC_ON, 0)) {
        if (atomic_load_explicit(&cuprof_g.init, memory_order_acquire) != 2)
            cuprof_collector_init();
        int rec = atomic_load_explicit(&cuprof_g.recording, memory_order_acquire);
        if (rec != CUPROF_REC_ON && !(calibrating && tls.thread == calibrating)) {
            if (rec == CUPROF_REC_GATED &&
                __builtin_expect(!tls.thread || (cupti && !cuprof_capture_outside_seen()), 0))
                gated_first(cupti);
            return NULL;
        }
    }
    if (tls.guard)
        return NULL;

    cuprof_thread *t = tls.thread;
    if (__builtin_expect(t == NULL || t->cur == t->end, 0)) {
        int saved = errno;   /* calloc/mmap must not leak an errno into the program */
        if (t == NULL) {
            /* The process's first call: what each call costs us, timed once
             * (only processes that call CUDA pay for it: ~0.1 ms). */
            if (!atomic_exchange_explicit(&calibrated, 1, memory_order_relaxed))
                cuprof_g.hook_ns = cuprof_buffers_calibrate();
            /* First call on this thread: start CUPTI if nothing did yet
             * (InitializeInjection normally has; idempotent, and only here,
             * so processes that never call CUDA never load CUPTI), unless
             * CUPROF_GPU=0 asked for the hooks alone. */
            if (cupti && cuprof_g_config.gpu)
                cuprof_cupti_start();
            t = thread_register();
        }
        else if (chunk_grow(t) < 0)
            atomic_fetch_add_explicit(&t->dropped, 1, memory_order_relaxed), t = NULL;
        errno = saved;
        if (t == NULL) {   /* not recorded, but counted: the table stays exact */
            atomic_fetch_add_explicit(&cuprof_dropped_api[api < CUPROF_MAX_APIS ? api : 0], 1,
                                      memory_order_relaxed);
            return NULL;
        }
    }

    /* The slot is zeroed memory (fresh mmap, or a spilled chunk zeroed for
     * reuse in chunk_grow): t1, result and the arguments already read as 0. */
    cuprof_event *ev = t->cur++;
    t->reserved++;
    ev->api = api;
    ev->depth = t->depth < 255 ? (uint8_t)t->depth : 255;
    ev->cls = cls;
    *tp = t;
    return ev;
}

/* The calls that get a host stack: the ones that put work on the GPU,
 * wait for it, or own its memory. */
#define STACK_CLASSES                                                                       \
    ((1u << CUPROF_EV_LAUNCH) | (1u << CUPROF_EV_COPY) | (1u << CUPROF_EV_MEMSET) |         \
     (1u << CUPROF_EV_ALLOC) | (1u << CUPROF_EV_FREE) | (1u << CUPROF_EV_SYNC) |            \
     (1u << CUPROF_EV_BLAS))

cuprof_event *cuprof_begin(uint16_t api, uint8_t cls)
{
    cuprof_thread *t;
    cuprof_event *ev = slot_take(api, cls, 1, &t);
    if (!ev)
        return NULL;
    /* Only calls that run other CUDA calls inside them push an external id
     * (cuBLAS/cuBLASLt: their runtime and driver calls and kernels must
     * reach them), and calls nested in another hooked call. A top-level
     * runtime call does not: CUPTI's record of it (same name, same thread,
     * inside the call: timeline.c finds it by that) and the correlation id
     * its kernels, copies and syncs carry are enough, and a push/pop pair
     * costs about 1 us per call with the real CUPTI (bench/H100.md), a
     * quarter of a launch. (Every call pushes when CUPTI would not take our
     * clock or thread ids: the match needs both, see cupti.h.) */
    int cupti = __atomic_load_n(&cuprof_cupti_active, __ATOMIC_RELAXED);
    if (cupti && t->depth < 64 &&
        (cls == CUPROF_EV_BLAS || t->depth > 0 || cupti == CUPROF_CUPTI_PUSH_ALL)) {
        /* the id every CUPTI record this call causes is tied to
         * (== cuprof_event_id(ev): reserved is now the slot's seq + 1) */
        cuprof_cupti_push_slow(cuprof_event_id_make(t->index, t->reserved - 1));
        tls.pushed |= 1ull << t->depth;
    }
    /* The host stack (--stacks) of the outermost call only: calls made
     * inside it (cuBLAS's own launches) are charged to its stack. */
    if (__builtin_expect(cuprof_stacks_mode != 0, 0) && t->depth == 0 &&
        ((1u << cls) & STACK_CLASSES))
        ev->stack = cuprof_stack_capture();
    t->depth++;
    ev->t0 = cuprof_clock_stamp();   /* last, so our own bookkeeping is not in the call */
    return ev;
}

int cuprof_instant(uint16_t api, uint8_t cls, uint32_t name, uint32_t domain, uint64_t id)
{
    /* The capture window may open or close here (capture.c): its range's
     * push is recorded as the window's first event, its pop as the last. */
    int closes = 0;
    if (__builtin_expect(atomic_load_explicit(&cuprof_g.init, memory_order_acquire) != 2, 0))
        cuprof_collector_init();
    if (__builtin_expect(atomic_load_explicit(&cuprof_capture_nvtx_on, memory_order_relaxed), 0))
        closes = cuprof_capture_nvtx(cls, name, domain, id);
    cuprof_thread *t;
    cuprof_event *ev = slot_take(api, cls, 0, &t);
    if (ev) {
        ev->a.nvtx.name = name;
        ev->a.nvtx.domain = domain;
        ev->a.nvtx.id = id;
        ev->t0 = ev->t1 = cuprof_clock_stamp();
        if (t->depth == 0)   /* no call open: publish (this one included) */
            atomic_store_explicit(&t->committed, t->reserved, memory_order_release);
    }
    if (closes)
        cuprof_capture_close();
    return ev ? 0 : -1;
}

void cuprof_end(cuprof_event *ev, int32_t result)
{
    if (!ev)
        return;
    uint64_t now = cuprof_clock_stamp();   /* first, for the same reason */
    ev->t1 = now;
    ev->result = result;
    cuprof_thread *t = tls.thread;
    if (!t)
        return;   /* not from the thread that began it: nothing to update */
    /* Restore the depth at entry rather than decrement: heals a call whose
     * end never came (longjmp out of a callback). */
    t->depth = ev->depth < 255 ? ev->depth : (t->depth ? t->depth - 1 : 0);
    if (t->depth < 64 && (tls.pushed & (1ull << t->depth))) {
        tls.pushed &= ~(1ull << t->depth);
        cuprof_cupti_pop_slow();
    }
    if (t->depth == 0)   /* every call on the thread is closed: publish them */
        atomic_store_explicit(&t->committed, t->reserved, memory_order_release);
}

_Atomic uint64_t cuprof_dropped_api[CUPROF_MAX_APIS];

/* Serializes conversions (two run builds at once: tests, a fork's child). */
static pthread_mutex_t convert_lock = PTHREAD_MUTEX_INITIALIZER;

void cuprof_buffers_stamps_to_ns(cuprof_thread *t, uint64_t upto)
{
    /* Already chosen by the thread that recorded these events; the call
     * orders our read of cuprof_clock_tsc after that choice. */
    cuprof_clock_init(!cuprof_g_config.clock_monotonic);
    if (!cuprof_clock_tsc)
        return;   /* stamps are CLOCK_MONOTONIC ns already */
    pthread_mutex_lock(&convert_lock);
    cuprof_clock_anchor end = cuprof_clock_anchor_now();
    /* For a stamp past its chunk's segment (the end of a call that outlived
     * the chunk): the line over the thread's whole life, whose slope is the
     * most precise one there is. */
    cuprof_clock_line whole = cuprof_clock_line_make(t->head->anchor, end);
    cuprof_chunk *c = t->conv_chunk;
    while (t->converted < upto && c) {
        cuprof_chunk *next = atomic_load_explicit(&c->next, memory_order_acquire);
        uint64_t stop = c->base + CUPROF_CHUNK_EVENTS;
        if (t->converted >= stop) {   /* resumed at a chunk converted to its end */
            c = next;
            continue;
        }
        cuprof_clock_anchor b = next ? next->anchor : end;
        cuprof_clock_line seg = cuprof_clock_line_make(c->anchor, b);
        uint64_t lim = upto < stop ? upto : stop;
        for (uint64_t i = t->converted; i < lim; i++) {
            cuprof_event *ev = &c->ev[i - c->base];
            ev->t0 = cuprof_clock_line_ns(ev->t0 <= b.stamp ? &seg : &whole, ev->t0);
            ev->t1 = cuprof_clock_line_ns(ev->t1 <= b.stamp ? &seg : &whole, ev->t1);
        }
        t->converted = lim;
        t->conv_chunk = c;
        if (lim == stop)
            c = next;
    }
    pthread_mutex_unlock(&convert_lock);
}

void cuprof_buffers_chunk_to_ns(cuprof_chunk *c, uint64_t n, cuprof_clock_anchor next)
{
    cuprof_clock_init(!cuprof_g_config.clock_monotonic);
    if (!cuprof_clock_tsc)
        return;
    cuprof_clock_line seg = cuprof_clock_line_make(c->anchor, next);
    cuprof_clock_line whole = cuprof_clock_line_make(c->anchor, cuprof_clock_anchor_now());
    for (uint64_t i = 0; i < n && i < CUPROF_CHUNK_EVENTS; i++) {
        cuprof_event *ev = &c->ev[i];
        ev->t0 = cuprof_clock_line_ns(ev->t0 <= next.stamp ? &seg : &whole, ev->t0);
        ev->t1 = cuprof_clock_line_ns(ev->t1 <= next.stamp ? &seg : &whole, ev->t1);
    }
}

/* Sequence number of ev in t's chunks (walking from head), or -1. */
static int64_t find_seq(cuprof_thread *t, const cuprof_event *ev)
{
    for (cuprof_chunk *c = t->head; c;
         c = atomic_load_explicit(&c->next, memory_order_acquire)) {
        if (ev >= c->ev && ev < c->ev + CUPROF_CHUNK_EVENTS)
            return (int64_t)(c->base + (uint64_t)(ev - c->ev));
    }
    return -1;
}

uint64_t cuprof_event_id(const cuprof_event *ev)
{
    if (!ev)
        return 0;
    cuprof_thread *t = tls.thread;
    if (t && ev >= t->tail->ev && ev < t->tail->ev + CUPROF_CHUNK_EVENTS)   /* usual case */
        return cuprof_event_id_make(t->index, t->tail->base + (uint64_t)(ev - t->tail->ev));
    uint64_t id = 0;
    pthread_mutex_lock(&cuprof_g.lock);
    for (cuprof_thread *r = cuprof_g.threads; r && !id; r = r->next) {
        int64_t seq = find_seq(r, ev);
        if (seq >= 0)
            id = cuprof_event_id_make(r->index, (uint64_t)seq);
    }
    pthread_mutex_unlock(&cuprof_g.lock);
    return id;
}

void cuprof_buffers_reset_after_fork(void)
{
    /* The parent's records and chunks stay mapped (copy-on-write, untouched);
     * the child simply stops listing them. */
    if (cuprof_g.threads) {
        *cuprof_g.threads_tail = cuprof_g.inherited;   /* older generations after */
        cuprof_g.inherited = cuprof_g.threads;
    }
    cuprof_g.threads = NULL;
    cuprof_g.threads_tail = &cuprof_g.threads;
    cuprof_g.nthreads = 0;
    atomic_store(&cuprof_g.mem_bytes, 0);
    atomic_store(&cuprof_g.mem_warned, 0);
    for (size_t i = 0; i < CUPROF_MAX_APIS; i++)
        atomic_store_explicit(&cuprof_dropped_api[i], 0, memory_order_relaxed);
    cuprof_spill_reset_after_fork();
    tls.thread = NULL;
    /* The helper did not survive the fork, and may have held the lock: the
     * child starts its own pool (the inherited chunks are shared
     * copy-on-write with the parent; writing them would copy: forget them). */
    pthread_mutex_init(&pool.lock, NULL);
    pthread_cond_init(&pool.wake, NULL);
    pool.n = pool.started = pool.failed = 0;
}

/* ---- what a call costs us ---------------------------------------------------
 *
 * The hot path timed at the process's first call: CALIB_PAIRS
 * cuprof_begin/cuprof_end pairs
 * (a plain call: no arguments, no stack, no CUPTI id) on a private record
 * whose chunk is fresh populated memory, as a prefaulted chunk is; the
 * median of CALIB_ROUNDS rounds. The record is listed nowhere and freed:
 * nothing of it reaches the outputs. */
#define CALIB_PAIRS 1000
#define CALIB_ROUNDS 3

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

uint64_t cuprof_buffers_calibrate(void)
{
    /* only before this thread's first event, and not where every call pushes
     * a CUPTI id (the pairs would push ids of events that do not exist) */
    if (tls.guard || tls.thread || calibrating ||
        __atomic_load_n(&cuprof_cupti_active, __ATOMIC_RELAXED) == CUPROF_CUPTI_PUSH_ALL)
        return 0;
    int saved = errno;
    cuprof_clock_init(!cuprof_g_config.clock_monotonic);
    uint64_t per[CALIB_ROUNDS];
    int rounds = 0;
    for (int r = 0; r < CALIB_ROUNDS; r++) {
        cuprof_chunk *c = chunk_map();
        if (c == MAP_FAILED)
            break;
        cuprof_thread cal;
        memset(&cal, 0, sizeof cal);
        cal.head = cal.tail = c;
        cal.cur = c->ev;
        cal.end = c->ev + CUPROF_CHUNK_EVENTS;
        calibrating = &cal;
        tls.thread = &cal;
        uint64_t t0 = cuprof_clock_now();
        for (int i = 0; i < CALIB_PAIRS; i++)
            cuprof_end(cuprof_begin(0, CUPROF_EV_CALL), 0);
        uint64_t t1 = cuprof_clock_now();
        tls.thread = NULL;
        calibrating = NULL;
        munmap(c, CUPROF_CHUNK_BYTES);
        per[rounds++] = (t1 - t0) / CALIB_PAIRS;
    }
    errno = saved;
    if (!rounds)
        return 0;
    qsort(per, (size_t)rounds, sizeof per[0], cmp_u64);
    return per[(rounds - 1) / 2];
}

uint64_t cuprof_open_call_id(void)
{
    cuprof_thread *t = tls.thread;
    if (t == NULL || t->depth == 0 || t == calibrating)
        return 0;
    /* events are published when the outermost call ends: the first one not
     * published is the outermost call open now */
    return cuprof_event_id_make(t->index, atomic_load_explicit(&t->committed, memory_order_relaxed));
}
