/*
 * buffers.c - per-thread event buffers: the hot path of every hook.
 *
 * cuprof_begin/cuprof_end touch only the calling thread's record (reached
 * through one thread-local pointer): no lock, no atomic read-modify-write,
 * one clock stamp each (rdtsc where the TSC is invariant, see clock.h). An
 * open call lives in the thread's staging slot for its depth (cache-
 * resident); its end writes its compact record (compact.h, ~7-10 bytes)
 * into the thread's chunk. The global lock is taken once per thread (to
 * list its record); once per filled chunk the chunk is written to the run
 * file (runfile.c) and filled again: its pages stay faulted in, so no page
 * fault lands inside the calls being timed.
 *
 * What bench/ measured here (bench/RESULTS.md) and why the code is so:
 *   - clock_gettime costs ~24 ns, rdtsc ~10: stamps are TSC ticks, turned
 *     into CLOCK_MONOTONIC ns at exit (cuprof_buffers_stamps_to_ns);
 *   - the first touch of a fresh page costs ~1.5 us, i.e. ~23 ns per event
 *     when taken as page faults inside the calls, and still ~30 ns per event
 *     with MAP_POPULATE: a thread's one chunk is reused once written to the
 *     run file (below), so a busy thread touches no fresh page;
 *   - the thread-local record is initial-exec TLS: a general-dynamic access
 *     from a shared object is a __tls_get_addr call (~2-4 ns, twice per
 *     call). See `tls` below for why that is safe when dlopen'ed.
 */
#include "collector/internal.h"
#include "collector/clock.h"
#include "collector/cupti.h"
#include "collector/log.h"
#include "collector/shm.h"
#include "collector/snapshot.h"
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

/* ---- chunks ------------------------------------------------------------------
 *
 * Each thread has one 64 KiB chunk, mapped populated when it registers
 * (one system call instead of 16 page faults spread over its first calls).
 * When it is full, its records go to the run file as one block (runfile.c:
 * one pwritev under the file's lock, about 10-20 us for ~9000 calls) and
 * the same memory is filled again: no fresh page is ever touched after the
 * first chunk, and the memory recording takes is 64 KiB per thread
 * whatever the run's length. */
static cuprof_chunk *chunk_first(void *in_slot)
{
    void *p = in_slot ? in_slot
                      : mmap(NULL, CUPROF_CHUNK_BYTES, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) {
        if (!atomic_exchange_explicit(&cuprof_g.mem_warned, 1, memory_order_relaxed))
            cuprof_log("out of memory for events; calls that find no room are counted, "
                       "not recorded");
        return NULL;
    }
    atomic_fetch_add_explicit(&cuprof_g.mem_bytes, CUPROF_CHUNK_BYTES, memory_order_relaxed);
    cuprof_chunk *c = p;   /* mmap'd memory is zeroed, a thread slot too (shm.c) */
    c->anchor = cuprof_clock_anchor_now();
    return c;
}

/* ---- a thread's end (issue 42.4) -----------------------------------------------
 *
 * A thread that ends gives its record and chunk back, once its last calls
 * are in the run file (snapshot.c writes them as the end would): a program
 * that makes a thread per request keeps its memory flat. Kept instead (the
 * end writes them, as before) when a call is still open on it, when the
 * exit path runs, and in runs with a capture window or the flight
 * recorder, whose code reads records at its own times. */
static pthread_key_t end_key;
static pthread_once_t end_once = PTHREAD_ONCE_INIT;
static int end_key_ok;

static void thread_ended(void *p)
{
    cuprof_thread *t = p;
    /* (a forked child's copy of a parent's record is not this thread's) */
    if (!t || t != tls.thread || t->depth != 0)
        return;
    if (cuprof_g_config.capture != CUPROF_CAPTURE_NONE || cuprof_g_config.flight_ns)
        return;
    int saved = errno;
    int guard = cuprof_guard_enter();
    sigset_t old;
    cuprof_block_async(&old);
    if (cuprof_snapshot_thread_end(t) == 0) {
        tls.thread = NULL;
        atomic_fetch_sub_explicit(&cuprof_g.mem_bytes, CUPROF_CHUNK_BYTES, memory_order_relaxed);
        if (cuprof_shm_slot_owns(t)) {   /* the record and its chunk: one slot */
            cuprof_shm_slot_give(t);
        } else {
            munmap(t->head, CUPROF_CHUNK_BYTES);
            free(t);
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    cuprof_guard_leave(guard);
    errno = saved;
}

static void end_key_create(void)
{
    end_key_ok = pthread_key_create(&end_key, thread_ended) == 0;
}

/* Creates and lists the calling thread's record (first event on the thread).
 * NULL when memory is short: the call then goes unrecorded. */
static cuprof_thread *thread_register(void)
{
    cuprof_clock_init(!cuprof_g_config.clock_monotonic);   /* once, before any stamp */
    /* Under prof.sh's supervisor, the record and its chunk live in the
     * memory it reads after a SIGKILL (a thread slot, shm.c: the same
     * struct, page-aligned); else private memory. */
    uint8_t *slot = cuprof_shm_slot_take();
    void *mem = slot;   /* cache-line aligned: the staging slots are lines */
    if (!mem && posix_memalign(&mem, 64, sizeof(cuprof_thread)) != 0)
        return NULL;
    cuprof_thread *t = mem;
    memset(t, 0, sizeof *t);
    t->head = t->tail = chunk_first(slot ? slot + CUPROF_SHM_REC_BYTES : NULL);
    if (!t->head) {
        free(t);
        return NULL;
    }
    t->wp = t->head->data;
    t->wend = t->head->data + CUPROF_CHUNK_DATA;
    t->first = t->head->anchor;
    t->tid = (uint32_t)syscall(SYS_gettid);
    prctl(PR_GET_NAME, t->name, 0, 0, 0);
    t->name[sizeof t->name - 1] = '\0';

    pthread_mutex_lock(&cuprof_g.lock);
    t->index = ++cuprof_g.nthreads;
    *cuprof_g.threads_tail = t;
    cuprof_g.threads_tail = &t->next;
    pthread_mutex_unlock(&cuprof_g.lock);
    tls.thread = t;
    pthread_once(&end_once, end_key_create);
    if (end_key_ok)
        pthread_setspecific(end_key, t);   /* thread_ended gives it back */
    cuprof_debug(CUPROF_DBG_COLLECTOR, "thread %u (tid %u) registered", t->index, t->tid);
    cuprof_runfile_flusher_start();   /* once per process: the file and its flusher */
    return t;
}

/* Closes the tail (a 0 after its last record), writes it to the run file
 * and starts it again, empty, with a new anchor. 0 on success, -1 when it
 * cannot be written (the exit path runs, or the run file failed: the
 * caller counts a drop). The records of calls still open go to the
 * emptied chunk when they end. */
static int chunk_grow(cuprof_thread *t)
{
    if (t->wp < t->wend)
        *t->wp = 0;
    if (cuprof_runfile_chunk_full(t) != 0)
        return -1;
    cuprof_chunk *c = t->tail;
    atomic_fetch_add_explicit(&t->gen, 1, memory_order_acq_rel);   /* odd: being emptied */
    c->anchor = cuprof_clock_anchor_now();
    c->nrec = 0;
    /* each chunk decodes alone (run file 2.0): a reader needs none before it,
     * and a lost chunk's records count right (snapshot.c's count_lost) */
    memset(&t->codec, 0, sizeof t->codec);
    __atomic_store_n(&t->wp, c->data, __ATOMIC_RELAXED);
    __atomic_store_n(&t->written, t->written + 1, __ATOMIC_RELAXED);
    atomic_fetch_add_explicit(&t->gen, 1, memory_order_release);
    return 0;
}

/* The record the calibration runs on (cuprof_buffers_calibrate): it records
 * whatever the recording state, so that the measure is the same with a
 * capture window. Set only while the calibration runs, on its thread. */
static cuprof_thread *calibrating;   /* read by every thread, written by one: atomics
                                       (relaxed: a thread only compares it with its own record) */
#define CALIBRATING() __atomic_load_n(&calibrating, __ATOMIC_RELAXED)
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
    if (!tls.thread) {
        /* the process's first call, before a capture window: what a call
         * costs us is timed here, as thread_take does in a whole run */
        if (!atomic_exchange_explicit(&calibrated, 1, memory_order_relaxed))
            __atomic_store_n(&cuprof_g.hook_ns, cuprof_buffers_calibrate(), __ATOMIC_RELAXED);
        thread_register();   /* the run file first: CUPTI's start writes its clock map there */
    }
    if (cupti && !cuprof_capture_outside_seen())
        cuprof_capture_outside();
    errno = saved;
}

/* Room for the record of every call open on t and of one more: each call
 * that has begun finds room when it ends (the records of open calls are
 * written as they end, in whichever chunk is the tail then). */
static inline __attribute__((always_inline)) int room_for_one_more(const cuprof_thread *t)
{
    return (size_t)(t->wend - t->wp) >= (size_t)(t->depth + 1) * CUPROF_REC_MAX;
}

/* The thread the next event of the calling thread goes to, with room for
 * it, and a sequence number taken, or NULL (not recording, inside the
 * guard, too deep, or dropped: then counted). The common part of
 * cuprof_begin and cuprof_instant; cupti: a thread's first event starts
 * CUPTI (calls do; NVTX events, which need no device, do not). */
static inline __attribute__((always_inline)) cuprof_thread *
thread_take(uint16_t api, int cupti)
{
    /* recording is set only after init is done (lifecycle.c), so one relaxed
     * load covers both in the common case. */
    if (__builtin_expect(atomic_load_explicit(&cuprof_g.recording, memory_order_relaxed) !=
                         CUPROF_REC_ON, 0)) {
        if (atomic_load_explicit(&cuprof_g.init, memory_order_acquire) != 2)
            cuprof_collector_init();
        int rec = atomic_load_explicit(&cuprof_g.recording, memory_order_acquire);
        if (rec != CUPROF_REC_ON && !(CALIBRATING() && tls.thread == CALIBRATING())) {
            if (rec == CUPROF_REC_GATED &&
                __builtin_expect(!tls.thread || (cupti && !cuprof_capture_outside_seen()), 0))
                gated_first(cupti);
            return NULL;
        }
    }
    if (tls.guard)
        return NULL;

    cuprof_thread *t = tls.thread;
    if (__builtin_expect(t == NULL || !room_for_one_more(t) || t->depth >= CUPROF_STAGE_DEPTH,
                         0)) {
        int saved = errno;   /* calloc/mmap must not leak an errno into the program */
        if (t == NULL) {
            /* The process's first call: what each call costs us, timed once
             * (only processes that call CUDA pay for it: ~0.1 ms). */
            if (!atomic_exchange_explicit(&calibrated, 1, memory_order_relaxed))
                __atomic_store_n(&cuprof_g.hook_ns, cuprof_buffers_calibrate(), __ATOMIC_RELAXED);
            /* First call on this thread: start CUPTI if nothing did yet
             * (InitializeInjection normally has; idempotent, and only here,
             * so processes that never call CUDA never load CUPTI), unless
             * CUPROF_GPU=0 asked for the hooks alone. */
            if (cupti && cuprof_g_config.gpu)
                cuprof_cupti_start();
            t = thread_register();
        }
        else if (t->depth >= CUPROF_STAGE_DEPTH || chunk_grow(t) < 0)
            atomic_fetch_add_explicit(&t->dropped, 1, memory_order_relaxed), t = NULL;
        errno = saved;
        if (t == NULL) {   /* not recorded, but counted: the table stays exact */
            atomic_fetch_add_explicit(&cuprof_dropped_api[api < CUPROF_MAX_APIS ? api : 0], 1,
                                      memory_order_relaxed);
            return NULL;
        }
    }
    return t;
}

/* The calls that get a host stack: the ones that put work on the GPU,
 * wait for it, or own its memory. */
#define STACK_CLASSES                                                                       \
    ((1u << CUPROF_EV_LAUNCH) | (1u << CUPROF_EV_COPY) | (1u << CUPROF_EV_MEMSET) |         \
     (1u << CUPROF_EV_ALLOC) | (1u << CUPROF_EV_FREE) | (1u << CUPROF_EV_SYNC) |            \
     (1u << CUPROF_EV_BLAS) | (1u << CUPROF_EV_LIB) | (1u << CUPROF_EV_COLL) |              \
     (1u << CUPROF_EV_MATH) | (1u << CUPROF_EV_MATH_LIB))

cuprof_event *cuprof_begin(uint16_t api, uint8_t cls)
{
    cuprof_thread *t = thread_take(api, 1);
    if (!t)
        return NULL;
    uint32_t d = t->depth;
    /* The staging slot of this depth (cache-resident, reused): zeroed, so
     * the arguments a hook does not fill read as 0. */
    cuprof_event *ev = &t->stage[d];
    memset(ev, 0, sizeof *ev);
    ev->api = api;
    ev->depth = (uint8_t)d;
    /* a shapeless cuBLAS call; a math-library call that pushes */
    ev->cls = cls == CUPROF_EV_LIB ? CUPROF_EV_BLAS : cls == CUPROF_EV_MATH_LIB ? CUPROF_EV_MATH : cls;
    t->stage_seq[d] = t->reserved++;
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
    if (cupti && (cls == CUPROF_EV_BLAS || cls == CUPROF_EV_LIB || cls == CUPROF_EV_COLL ||
                  cls == CUPROF_EV_MATH_LIB || d > 0 ||
                  cupti == CUPROF_CUPTI_PUSH_ALL)) {
        /* the id every CUPTI record this call causes is tied to
         * (== cuprof_event_id(ev)) */
        cuprof_cupti_push_slow(cuprof_event_id_make(t->index, t->stage_seq[d]));
        tls.pushed |= 1ull << d;
    }
    /* The host stack (--stacks) of the outermost call only: calls made
     * inside it (cuBLAS's own launches) are charged to its stack. */
    if (__builtin_expect(cuprof_stacks_mode != 0, 0) && d == 0 &&
        ((1u << cls) & STACK_CLASSES))
        ev->stack = cuprof_stack_capture();
    t->depth = d + 1;
    ev->t0 = cuprof_clock_stamp();   /* last, so our own bookkeeping is not in the call */
    return ev;
}

/* Writes the record of a complete event (room was kept: room_for_one_more).
 * Out of line: the hot path takes cuprof_encode_repeat first (cuprof_end),
 * and keeping the general encoder's every class out of cuprof_end keeps
 * that function small. */
static __attribute__((noinline)) void put(cuprof_thread *t, const cuprof_event *ev, uint64_t seq)
{
    if (t != CALIBRATING())   /* a repeated launch (cuprof_encode_repeat) has an API seen before */
        cuprof_api_mark(ev->api);
    /* release: the flusher copies [.., wp) from another thread */
    __atomic_store_n(&t->wp, cuprof_encode(t->wp, &t->codec, ev, seq), __ATOMIC_RELEASE);
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
    cuprof_thread *t = thread_take(api, 0);
    if (t) {
        cuprof_event ev;
        memset(&ev, 0, sizeof ev);
        ev.api = api;
        ev.cls = cls;
        ev.depth = (uint8_t)t->depth;
        ev.a.nvtx.name = name;
        ev.a.nvtx.domain = domain;
        ev.a.nvtx.id = id;
        ev.t0 = ev.t1 = cuprof_clock_stamp();
        put(t, &ev, t->reserved++);
        if (t->depth == 0)   /* no call open: publish (this one included) */
            atomic_store_explicit(&t->committed, t->reserved, memory_order_release);
    }
    if (closes)
        cuprof_capture_close();
    return t ? 0 : -1;
}

void cuprof_end(cuprof_event *ev, int32_t result)
{
    if (!ev)
        return;
    uint64_t now = cuprof_clock_stamp();   /* first, for the same reason */
    cuprof_thread *t = tls.thread;
    /* Only the thread that began a call ends it (its slot is that thread's:
     * an end from elsewhere is ignored, and the call stays open there). */
    if (!t || ev < t->stage || ev >= t->stage + CUPROF_STAGE_DEPTH)
        return;
    uint32_t d = (uint32_t)(ev - t->stage);
    ev->t1 = now;
    ev->result = result;
    /* Calls opened inside this one whose end never came (longjmp out of a
     * callback): written now as they are (t1 0), so nothing is lost and
     * the depth heals. */
    for (uint32_t k = t->depth; k-- > d + 1;) {
        put(t, &t->stage[k], t->stage_seq[k]);
        if (k < 64 && (tls.pushed & (1ull << k))) {
            tls.pushed &= ~(1ull << k);
            cuprof_cupti_pop_slow();
        }
    }
    uint8_t *w = cuprof_encode_repeat(t->wp, &t->codec, ev, t->stage_seq[d]);
    if (__builtin_expect(w != NULL, 1)) {
        __atomic_store_n(&t->wp, w, __ATOMIC_RELEASE);   /* a plain store on x86 */
    } else {
        put(t, ev, t->stage_seq[d]);
        /* (a failed call never takes the branch above: its result is not 0) */
        if (result != 0 && cuprof_g_config.capture == CUPROF_CAPTURE_FLIGHT)
            cuprof_flight_error(ev, result);
    }
    t->depth = d;
    if (d < 64 && (tls.pushed & (1ull << d))) {
        tls.pushed &= ~(1ull << d);
        cuprof_cupti_pop_slow();
    }
    if (d == 0)   /* every call on the thread is closed: publish them */
        atomic_store_explicit(&t->committed, t->reserved, memory_order_release);
}

_Atomic uint64_t cuprof_dropped_api[CUPROF_MAX_APIS];
_Atomic uint64_t cuprof_api_used[CUPROF_MAX_APIS / 64];
_Atomic uint64_t cuprof_api_used_count;

void cuprof_api_mark_first(uint16_t api)
{
    uint64_t bit = 1ull << (api & 63);
    if (!(atomic_fetch_or_explicit(&cuprof_api_used[api >> 6], bit, memory_order_relaxed) & bit)) {
        cuprof_shm_api_first_used(api);   /* its name where a SIGKILL leaves it (shm.c) */
        atomic_fetch_add_explicit(&cuprof_api_used_count, 1, memory_order_release);
    }
}

uint64_t cuprof_buffers_stamp_ns(const cuprof_clock_line *seg, const cuprof_clock_line *whole,
                                 uint64_t b_stamp, uint64_t s)
{
    if (!cuprof_clock_tsc || s == 0)
        return s;   /* stamps are CLOCK_MONOTONIC ns already (0: no end) */
    /* For a stamp past its chunk's segment (the end of a call that outlived
     * the chunk): the line over the thread's whole life, whose slope is the
     * most precise one there is. */
    return cuprof_clock_line_ns(s <= b_stamp ? seg : whole, s);
}

uint64_t cuprof_event_id(const cuprof_event *ev)
{
    if (!ev)
        return 0;
    cuprof_thread *t = tls.thread;
    if (t && ev >= t->stage && ev < t->stage + CUPROF_STAGE_DEPTH)   /* usual case */
        return cuprof_event_id_make(t->index, t->stage_seq[ev - t->stage]);
    uint64_t id = 0;
    pthread_mutex_lock(&cuprof_g.lock);
    for (cuprof_thread *r = cuprof_g.threads; r && !id; r = r->next)
        if (ev >= r->stage && ev < r->stage + CUPROF_STAGE_DEPTH)
            id = cuprof_event_id_make(r->index, r->stage_seq[ev - r->stage]);
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
    cuprof_runfile_reset_after_fork();
    cuprof_snapshot_reset_after_fork();
    tls.thread = NULL;
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
    if (tls.guard || tls.thread || CALIBRATING() ||
        __atomic_load_n(&cuprof_cupti_active, __ATOMIC_RELAXED) == CUPROF_CUPTI_PUSH_ALL)
        return 0;
    int saved = errno;
    cuprof_clock_init(!cuprof_g_config.clock_monotonic);
    uint64_t per[CALIB_ROUNDS];
    int rounds = 0;
    for (int r = 0; r < CALIB_ROUNDS; r++) {
        cuprof_chunk *c = mmap(NULL, CUPROF_CHUNK_BYTES, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (c == MAP_FAILED)
            break;
        static cuprof_thread cal;   /* ~2 KiB: not on the program's stack */
        memset(&cal, 0, sizeof cal);
        cal.head = cal.tail = c;
        cal.wp = c->data;
        cal.wend = c->data + CUPROF_CHUNK_DATA;
        __atomic_store_n(&calibrating, &cal, __ATOMIC_RELAXED);
        tls.thread = &cal;
        uint64_t t0 = cuprof_clock_now();
        for (int i = 0; i < CALIB_PAIRS; i++)
            cuprof_end(cuprof_begin(0, CUPROF_EV_CALL), 0);
        uint64_t t1 = cuprof_clock_now();
        tls.thread = NULL;
        __atomic_store_n(&calibrating, NULL, __ATOMIC_RELAXED);
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
    if (t == NULL || t->depth == 0 || t == CALIBRATING())
        return 0;
    return cuprof_event_id_make(t->index, t->stage_seq[0]);
}

int cuprof_open_call_name(uint8_t cls, uint32_t name)
{
    cuprof_thread *t = tls.thread;
    if (t == NULL || t->depth == 0 || t == CALIBRATING())
        return -1;
    for (uint32_t d = t->depth; d-- > 0;)   /* the innermost open call of that class */
        if (t->stage[d].cls == cls) {
            t->stage[d].name = name;
            return 0;
        }
    return -1;
}
