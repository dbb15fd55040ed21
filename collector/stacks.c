/*
 * stacks.c - taking and interning host call stacks (see stacks.h).
 *
 * Two tables, both open addressing in anonymous memory reserved at init
 * (only the pages touched count), read without locks and written under
 * one mutex (new entries publish their key last, with release):
 *  - marks: return address -> good / bad / last (+ up to 3 tail frames);
 *  - stacks: hash of the return-address chain -> id, the chain stored once
 *    in an arena.
 * Memory per distinct stack: 24 bytes of table + 8 bytes per frame.
 */
#include "collector/stacks.h"
#include "collector/pyframes.h"
#include "collector/config.h"
#include "collector/internal.h"
#include "collector/libc.h"
#include "collector/log.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

int cuprof_stacks_mode;

#define MARK_CAP (1u << 16)          /* return addresses with a mark */
#define STACK_CAP (1u << 18)         /* hash slots; at most half are used */
#define STACK_MAX (STACK_CAP / 2)    /* distinct stacks */
#define ARENA_BLOCK (1u << 20)
#define TAIL_MAX 3

enum { MARK_GOOD = 1, MARK_BAD = 2, MARK_LAST = 3 };

typedef struct mark {
    _Atomic uintptr_t ra;            /* key, 0 = empty; stored last */
    uint8_t kind;                    /* MARK_* */
    uint8_t ntail;                   /* MARK_LAST: frames after ra */
    uintptr_t tail[TAIL_MAX];
} mark;

typedef struct stack_ent {
    _Atomic uint64_t hash;           /* key (never 0), 0 = empty; stored last */
    uint32_t id;
    uint32_t n;
    const uintptr_t *pcs;
} stack_ent;

static mark *marks;
static stack_ent *stab;
static const stack_ent **by_id;      /* [id] */
static _Atomic uint32_t nstacks;
static _Atomic uint32_t nmarks;
static _Atomic uint64_t lost, by_fp, by_unwind, nframes;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *arena, *arena_end;      /* under lock */

static uintptr_t self_lo, self_hi;   /* the profiler's own code */
static int (*unw_backtrace_fn)(void **, int);

/* initial-exec: the library is preloaded (a general-dynamic access called
 * __tls_get_addr on every walk) */
#define TLS_IE __attribute__((tls_model("initial-exec")))
static __thread uintptr_t tls_lo TLS_IE, tls_hi TLS_IE;  /* this thread's stack */
static __thread int tls_bounds TLS_IE;   /* 0 unknown yet, 1 known, -1 none */

/* ---- set-up ------------------------------------------------------------ */

static void *reserve(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void cuprof_stacks_init(int mode, int python)
{
    if (mode == CUPROF_STACKS_OFF)
        return;
    marks = reserve((size_t)MARK_CAP * sizeof *marks);
    stab = reserve((size_t)STACK_CAP * sizeof *stab);
    by_id = reserve((size_t)(STACK_MAX + 1) * sizeof *by_id);
    if (!marks || !stab || !by_id) {
        cuprof_log("stacks: no memory for the stack tables; recording without stacks");
        return;
    }
    cuprof_self_text(&self_lo, &self_hi);
    if (mode != CUPROF_STACKS_FP) {
        /* RTLD_LOCAL: libunwind's _Unwind_* must not enter the global scope
         * (stacks.h). */
        int saved = errno;
        void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
        if (h)
            *(void **)&unw_backtrace_fn = cuprof_libc_dlsym(h, "unw_backtrace");
        errno = saved;
        if (!unw_backtrace_fn) {
            cuprof_log("stacks: libunwind.so.8 not found (apt-get install libunwind8); "
                       "frame pointers only: callers of code built without them are missing");
            mode = CUPROF_STACKS_FP;
        }
    }
    cuprof_py_init(python);
    cuprof_stacks_mode = mode;
}

/* ---- the marks --------------------------------------------------------- */

static inline uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static inline const mark *mark_find(uintptr_t ra)
{
    uint32_t i = (uint32_t)mix(ra) & (MARK_CAP - 1);
    for (uint32_t probe = 0; probe < 64; probe++, i = (i + 1) & (MARK_CAP - 1)) {
        uintptr_t k = atomic_load_explicit(&marks[i].ra, memory_order_acquire);
        if (k == ra)
            return &marks[i];
        if (k == 0)
            return NULL;
    }
    return NULL;
}

/* Under lock. A full neighbourhood leaves ra unmarked (it is learned again). */
static void mark_add(uintptr_t ra, int kind, const uintptr_t *tail, int ntail)
{
    uint32_t i = (uint32_t)mix(ra) & (MARK_CAP - 1);
    for (uint32_t probe = 0; probe < 64; probe++, i = (i + 1) & (MARK_CAP - 1)) {
        uintptr_t k = atomic_load_explicit(&marks[i].ra, memory_order_relaxed);
        if (k == ra)
            return;
        if (k != 0)
            continue;
        marks[i].kind = (uint8_t)kind;
        marks[i].ntail = (uint8_t)ntail;
        for (int j = 0; j < ntail; j++)
            marks[i].tail[j] = tail[j];
        atomic_store_explicit(&marks[i].ra, ra, memory_order_release);
        atomic_fetch_add_explicit(&nmarks, 1, memory_order_relaxed);
        return;
    }
}

/* ---- walking ----------------------------------------------------------- */

/* This thread's stack bounds, once. */
static int bounds(void)
{
    if (__builtin_expect(tls_bounds != 0, 1))
        return tls_bounds > 0;
    int saved = errno;
    pthread_attr_t attr;
    void *addr;
    size_t size;
    tls_bounds = -1;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        if (pthread_attr_getstack(&attr, &addr, &size) == 0 && size > 0) {
            tls_lo = (uintptr_t)addr;
            tls_hi = (uintptr_t)addr + size;
            tls_bounds = 1;
        }
        pthread_attr_destroy(&attr);
    }
    errno = saved;
    return tls_bounds > 0;
}

#define WALK_UNKNOWN (-1)   /* a return address without a mark: learn */
#define WALK_BAD (-2)       /* one marked bad, or no frame chain here: libunwind */

/* The frame-pointer chain from our caller up. checked: stop at a return
 * address not marked good (see the WALK_ codes). Every frame read lies in
 * the thread's stack, above the one before. */
static __attribute__((noinline)) int fp_walk(uintptr_t *pcs, int max, int checked)
{
    if (!bounds())
        return WALK_BAD;
    uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
    if (fp < tls_lo || fp + 16 > tls_hi)
        return WALK_BAD;   /* on a signal stack */
    int n = 0;
    while (n < max) {
        uintptr_t ra = ((const uintptr_t *)fp)[1];
        if (ra < 4096)
            break;
        pcs[n++] = ra;
        /* Our own frames (the hooks, the collector) keep frame pointers
         * (-fno-omit-frame-pointer in their makefiles): no mark needed. The
         * first one, the return into cuprof_stack_capture, is never met by
         * learn(), which is called from another place there. */
        if (checked && !(ra >= self_lo && ra < self_hi)) {
            const mark *m = mark_find(ra);
            if (!m)
                return WALK_UNKNOWN;
            if (m->kind == MARK_BAD)
                return WALK_BAD;
            if (m->kind == MARK_LAST) {
                for (int j = 0; j < m->ntail && n < max; j++)
                    pcs[n++] = m->tail[j];
                break;
            }
        }
        uintptr_t next = ((const uintptr_t *)fp)[0];
        if (next <= fp || next + 16 > tls_hi || (next & 7))
            break;
        fp = next;
    }
    return n;
}

/* libunwind's stack into pcs. */
static __attribute__((noinline)) int unwind(uintptr_t *pcs, int max)
{
    int saved = errno;
    int n = unw_backtrace_fn((void **)pcs, max);
    errno = saved;
    return n < 0 ? 0 : n;
}

/* A return address met for the first time: both stacks, compared frame by
 * frame, mark the addresses of the frame-pointer chain (stacks.h). Returns
 * libunwind's stack. */
static __attribute__((noinline)) int learn(uintptr_t *pcs, int max)
{
    uintptr_t f[CUPROF_STACK_NATIVE_MAX];
    int nf = fp_walk(f, max, 0);
    int nu = unwind(pcs, max);
    if (nf <= 0 || nu <= 0 || nu >= max)
        return nu;   /* nothing to compare, or libunwind's stack cut short */
    /* Both start inside this function; find their first common address. */
    int i0 = -1, j0 = -1;
    for (int i = 0; i < 4 && i < nf && i0 < 0; i++)
        for (int j = 0; j < 4 && j < nu; j++)
            if (f[i] == pcs[j]) {
                i0 = i;
                j0 = j;
                break;
            }
    if (i0 < 0)
        return nu;
    pthread_mutex_lock(&lock);
    for (int i = i0, j = j0; i < nf && j < nu && f[i] == pcs[j]; i++, j++) {
        int left = nu - (j + 1);   /* frames after this one, by libunwind */
        if (i + 1 < nf && left > 0 && f[i + 1] == pcs[j + 1]) {
            mark_add(f[i], MARK_GOOD, NULL, 0);
            continue;
        }
        if (left <= TAIL_MAX)
            mark_add(f[i], MARK_LAST, &pcs[j + 1], left);
        else
            mark_add(f[i], MARK_BAD, NULL, 0);
        break;
    }
    pthread_mutex_unlock(&lock);
    return nu;
}

/* ---- interning ---------------------------------------------------------- */

/* Four lanes of one multiply each, mixed at the end: a deep stack's hash
 * is not one long chain of dependent multiplies (it was a quarter of a
 * 30-frame capture). Every address counts, in its place. */
static uint64_t chain_hash(const uintptr_t *pcs, int n)
{
    const uint64_t k = 0x9e3779b97f4a7c15ull;
    uint64_t a = k ^ (uint64_t)n, b = 0x632be59bd9b4e019ull, c = 0xbf58476d1ce4e5b9ull,
             d = 0x94d049bb133111ebull;
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        a = (a ^ pcs[i]) * k;
        b = (b ^ pcs[i + 1]) * k;
        c = (c ^ pcs[i + 2]) * k;
        d = (d ^ pcs[i + 3]) * k;
    }
    for (; i < n; i++)
        a = (a ^ pcs[i]) * k + 1;
    uint64_t h = mix(a ^ (b << 16 | b >> 48) ^ (c << 32 | c >> 32) ^ (d << 48 | d >> 16));
    return h ? h : 1;
}

static inline int same(const stack_ent *e, uint64_t h, const uintptr_t *pcs, int n)
{
    return atomic_load_explicit(&e->hash, memory_order_acquire) == h && e->n == (uint32_t)n &&
           memcmp(e->pcs, pcs, (size_t)n * sizeof *pcs) == 0;
}

/* Under lock: room for n addresses in the arena. */
static uintptr_t *arena_take(int n)
{
    size_t bytes = (size_t)n * sizeof(uintptr_t);
    if (!arena || (size_t)(arena_end - arena) < bytes) {
        char *b = reserve(ARENA_BLOCK);
        if (!b)
            return NULL;
        arena = b;
        arena_end = b + ARENA_BLOCK;
    }
    uintptr_t *p = (uintptr_t *)arena;
    arena += bytes;
    return p;
}

/* The id of the stack pcs[0..n) (1..), 0 when the table is full; *added: 1
 * when it is new. */
static uint32_t intern(const uintptr_t *pcs, int n, int *added)
{
    uint64_t h = chain_hash(pcs, n);
    uint32_t i = (uint32_t)h & (STACK_CAP - 1);
    *added = 0;
    for (;; i = (i + 1) & (STACK_CAP - 1)) {
        uint64_t k = atomic_load_explicit(&stab[i].hash, memory_order_acquire);
        if (k == 0)
            break;
        if (same(&stab[i], h, pcs, n))
            return stab[i].id;
    }
    /* New: insert under the lock (another thread may have just done so). */
    int saved = errno;
    uint32_t id = 0;
    pthread_mutex_lock(&lock);
    for (i = (uint32_t)h & (STACK_CAP - 1);; i = (i + 1) & (STACK_CAP - 1)) {
        if (atomic_load_explicit(&stab[i].hash, memory_order_relaxed) == 0)
            break;
        if (same(&stab[i], h, pcs, n)) {
            id = stab[i].id;
            goto out;
        }
    }
    uint32_t count = atomic_load_explicit(&nstacks, memory_order_relaxed);
    uintptr_t *copy = count < STACK_MAX ? arena_take(n) : NULL;
    if (!copy)
        goto out;
    memcpy(copy, pcs, (size_t)n * sizeof *pcs);
    id = count + 1;
    stab[i].id = id;
    stab[i].n = (uint32_t)n;
    stab[i].pcs = copy;
    by_id[id] = &stab[i];
    atomic_store_explicit(&stab[i].hash, h, memory_order_release);
    atomic_store_explicit(&nstacks, id, memory_order_release);
    atomic_fetch_add_explicit(&nframes, (uint64_t)n, memory_order_relaxed);
    *added = 1;
out:
    pthread_mutex_unlock(&lock);
    errno = saved;
    return id;
}

/* ---- the hot path ------------------------------------------------------- */

uint32_t cuprof_stack_capture(void)
{
    uintptr_t pcs[CUPROF_STACK_NATIVE_MAX];
    int mode = cuprof_stacks_mode, n;
    /* one check: a process with no readable Python walks as before */
    int py = __atomic_load_n(&cuprof_py_ready, __ATOMIC_ACQUIRE);
    int max = py ? CUPROF_STACK_NATIVE_MAX : CUPROF_STACK_MAX_FRAMES;
    if (mode == CUPROF_STACKS_UNWIND) {
        n = unwind(pcs, max);
        atomic_fetch_add_explicit(&by_unwind, 1, memory_order_relaxed);
    }
    else {
        n = fp_walk(pcs, max, mode == CUPROF_STACKS_AUTO);
        if (n >= 0)
            atomic_fetch_add_explicit(&by_fp, 1, memory_order_relaxed);
        else {
            n = n == WALK_UNKNOWN ? learn(pcs, max) : unwind(pcs, max);
            atomic_fetch_add_explicit(&by_unwind, 1, memory_order_relaxed);
        }
    }
    int k = 0;
    while (k < n && pcs[k] >= self_lo && pcs[k] < self_hi)
        k++;   /* the profiler's own frames */
    if (k == n) {
        atomic_fetch_add_explicit(&lost, 1, memory_order_relaxed);
        return 0;
    }
    const uintptr_t *take = pcs + k;
    int nt = n - k, m = -1;
    uintptr_t spliced[CUPROF_STACK_MAX_FRAMES];
    if (py) {
        uint32_t same = 0;
        m = cuprof_py_splice(pcs + k, n - k, spliced, CUPROF_STACK_MAX_FRAMES, &same);
        if (m == 0)
            return same;   /* this thread's last stack again */
        if (m > 0) {
            take = spliced;
            nt = m;
        }
    }
    if (nt > CUPROF_STACK_MAX_FRAMES)
        nt = CUPROF_STACK_MAX_FRAMES;   /* the innermost frames */
    int added;
    uint32_t id = intern(take, nt, &added);
    if (!id)
        atomic_fetch_add_explicit(&lost, 1, memory_order_relaxed);
    else if (m > 0)
        cuprof_py_remember(id);
    else if (added && !py)
        cuprof_py_retry();
    return id;
}

/* ---- at exit -------------------------------------------------------------- */

const uintptr_t *cuprof_stack_pcs(uint32_t id, uint32_t *n)
{
    if (id == 0 || id > atomic_load_explicit(&nstacks, memory_order_acquire))
        return NULL;
    *n = by_id[id]->n;
    return by_id[id]->pcs;
}

void cuprof_stacks_stats_get(cuprof_stacks_stats *out)
{
    out->stacks = atomic_load(&nstacks);
    out->lost = atomic_load(&lost);
    out->by_fp = atomic_load(&by_fp);
    out->by_unwind = atomic_load(&by_unwind);
    out->frames = atomic_load(&nframes);
    out->addresses = atomic_load(&nmarks);
}

void cuprof_stacks_fork_prepare(void)
{
    cuprof_py_fork_prepare();
    pthread_mutex_lock(&lock);
}

void cuprof_stacks_fork_done(int child)
{
    if (child)
        pthread_mutex_init(&lock, NULL);
    else
        pthread_mutex_unlock(&lock);
    cuprof_py_fork_done(child);
}
