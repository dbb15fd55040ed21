/*
 * buffers.c - per-thread event buffers: the hot path of every hook.
 *
 * cuprof_begin/cuprof_end touch only the calling thread's record (reached
 * through one thread-local pointer): no lock, no atomic read-modify-write,
 * one clock read each. The global lock is taken once per thread (to list its
 * record) and once per 1023 events (to account the new chunk's memory, which
 * is an atomic add, not even the lock).
 */
#include "collector/internal.h"
#include "collector/clock.h"
#include "collector/cupti.h"
#include "collector/log.h"

#include <errno.h>
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

static __thread struct cuprof_tls tls;

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

void cuprof_api_register(const cuprof_api_desc *table, size_t n)
{
    pthread_mutex_lock(&cuprof_g.lock);
    cuprof_g.apis = table;
    cuprof_g.napis = table ? n : 0;
    pthread_mutex_unlock(&cuprof_g.lock);
}

/* Maps a fresh chunk whose first event has sequence number base, within the
 * memory limit. NULL (with a one-time warning) when over the limit or out of
 * memory. */
static cuprof_chunk *chunk_new(uint64_t base)
{
    uint64_t after = atomic_fetch_add_explicit(&cuprof_g.mem_bytes, CUPROF_CHUNK_BYTES,
                                               memory_order_relaxed) + CUPROF_CHUNK_BYTES;
    void *p = MAP_FAILED;
    if (after <= cuprof_g_config.mem_limit)
        p = mmap(NULL, CUPROF_CHUNK_BYTES, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        atomic_fetch_sub_explicit(&cuprof_g.mem_bytes, CUPROF_CHUNK_BYTES, memory_order_relaxed);
        if (!atomic_exchange_explicit(&cuprof_g.mem_warned, 1, memory_order_relaxed))
            cuprof_log("event memory limit reached (%llu bytes, CUPROF_MEM_LIMIT); "
                       "further calls are counted as dropped, not recorded",
                       (unsigned long long)cuprof_g_config.mem_limit);
        return NULL;
    }
    cuprof_chunk *c = p;   /* mmap'd memory is zeroed */
    c->base = base;
    return c;
}

/* Creates and lists the calling thread's record (first event on the thread).
 * NULL when memory is short: the call then goes unrecorded. */
static cuprof_thread *thread_register(void)
{
    cuprof_thread *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->head = t->tail = chunk_new(0);
    if (!t->head) {
        free(t);
        return NULL;
    }
    t->cur = t->head->ev;
    t->end = t->head->ev + CUPROF_CHUNK_EVENTS;
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

/* Chains a new chunk after the full tail. 0 on success, -1 when none could
 * be had (the caller counts a drop). */
static int chunk_grow(cuprof_thread *t)
{
    cuprof_chunk *c = chunk_new(t->tail->base + CUPROF_CHUNK_EVENTS);
    if (!c)
        return -1;
    /* release: a reader following next sees the chunk header initialized */
    atomic_store_explicit(&t->tail->next, c, memory_order_release);
    t->tail = c;
    t->cur = c->ev;
    t->end = c->ev + CUPROF_CHUNK_EVENTS;
    return 0;
}

cuprof_event *cuprof_begin(uint16_t api, uint8_t cls)
{
    if (__builtin_expect(atomic_load_explicit(&cuprof_g.init, memory_order_acquire) != 2, 0))
        cuprof_collector_init();
    if (tls.guard || !atomic_load_explicit(&cuprof_g.recording, memory_order_relaxed))
        return NULL;

    cuprof_thread *t = tls.thread;
    if (__builtin_expect(t == NULL || t->cur == t->end, 0)) {
        int saved = errno;   /* calloc/mmap must not leak an errno into the program */
        if (t == NULL) {
            /* First call on this thread: start CUPTI if nothing did yet
             * (InitializeInjection normally has; idempotent, and only here,
             * so processes that never call CUDA never load CUPTI). */
            cuprof_cupti_start();
            t = thread_register();
        }
        else if (chunk_grow(t) < 0)
            atomic_fetch_add_explicit(&t->dropped, 1, memory_order_relaxed), t = NULL;
        errno = saved;
        if (t == NULL)
            return NULL;
    }

    cuprof_event *ev = t->cur++;
    t->reserved++;
    ev->t1 = 0;
    ev->api = api;
    ev->depth = t->depth < 255 ? (uint8_t)t->depth : 255;
    ev->cls = cls;
    ev->result = 0;
    memset(&ev->a, 0, sizeof ev->a);
    if (__atomic_load_n(&cuprof_cupti_active, __ATOMIC_RELAXED) && t->depth < 64) {
        /* the id every CUPTI record this call causes is tied to
         * (== cuprof_event_id(ev): reserved is now the slot's seq + 1) */
        cuprof_cupti_push_slow(((uint64_t)t->index << CUPROF_ID_SEQ_BITS) | t->reserved);
        tls.pushed |= 1ull << t->depth;
    }
    t->depth++;
    ev->t0 = cuprof_clock_now();   /* last, so our own bookkeeping is not in the call */
    return ev;
}

void cuprof_end(cuprof_event *ev, int32_t result)
{
    if (!ev)
        return;
    uint64_t now = cuprof_clock_now();   /* first, for the same reason */
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
        return ((uint64_t)t->index << CUPROF_ID_SEQ_BITS) |
               (t->tail->base + (uint64_t)(ev - t->tail->ev) + 1);
    uint64_t id = 0;
    pthread_mutex_lock(&cuprof_g.lock);
    for (cuprof_thread *r = cuprof_g.threads; r && !id; r = r->next) {
        int64_t seq = find_seq(r, ev);
        if (seq >= 0)
            id = ((uint64_t)r->index << CUPROF_ID_SEQ_BITS) | ((uint64_t)seq + 1);
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
    tls.thread = NULL;
}
