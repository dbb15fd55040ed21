/*
 * flight.c - the flight recorder (CUPROF_FLIGHT_RECORDER, prof.sh
 * --flight-recorder S): the run file's big blocks (each thread's full
 * chunks, CUPTI's records) kept in a ring in memory instead of the file,
 * and only the last S seconds of them written, as a window, when it is
 * asked for: a CUDA call returned out-of-memory or a sticky error
 * (cuprof_flight_error, from the hot path's slow branch), `prof.sh trigger
 * PID --dump` (capture.c), or the process ends (lifecycle.c).
 *
 * The ring is one mapping of CUPROF_FLIGHT_MEMORY bytes (64 MiB default),
 * touched as it fills: memory stays within it whatever the run's length.
 * Each entry is a whole block as the file would hold it (header, payload,
 * padding) after a 16-byte entry header: when it was kept (clock ns) and
 * whether it is in the file already (a later window writes only what an
 * earlier one did not). Entries older than S (and a second) go at the next
 * put; when the ring is full the oldest go even within S, and the window's
 * start moves up to the newest that went (evicted_until), so the outputs
 * never claim calls they lack.
 *
 * Positions are absolute byte counts (head: the oldest entry, tail: where
 * the next goes; the ring holds [head, tail), tail - head <= cap); an entry
 * never wraps: the room left before the end, when too small, is a pad entry
 * (or, under 16 bytes, skipped by rule). Everything here runs under the
 * run file's lock (runfile.c), taken by whoever appends a block.
 */
#include "collector/internal.h"
#include "collector/log.h"
#include "collector/runfile.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>

#define ENTRY_HDR 16u
#define FLAG_WRITTEN 1u
#define FLAG_PAD 2u

typedef struct entry {
    uint64_t t;          /* clock ns when kept */
    uint32_t len;        /* the whole entry, header included, a multiple of 8 */
    uint32_t flags;
} entry;

static struct {
    uint8_t *mem;             /* cap bytes, or NULL (not mapped yet / failed) */
    uint64_t cap;
    uint64_t head, tail;      /* absolute positions */
    uint64_t peak;            /* the most bytes held at once */
    uint64_t evicted_until;   /* newest entry time that went for lack of room, 0 none */
    uint64_t lost;            /* blocks too big for the ring, or with no ring */
    int failed;               /* the mapping failed (said once) */
} ring;

int cuprof_flight_on(void)
{
    return cuprof_g_config.capture == CUPROF_CAPTURE_FLIGHT;
}

int cuprof_flight_keeps(uint32_t type)
{
    switch (type) {
    case CUPROF_RF_CHUNK:
    case CUPROF_RF_GPU_KERNELS:
    case CUPROF_RF_GPU_COPIES:
    case CUPROF_RF_GPU_APIS:
    case CUPROF_RF_GPU_SYNCS:
    case CUPROF_RF_GPU_EXTMAP:
    case CUPROF_RF_GPU_RECORDS:
        return cuprof_flight_on();
    default:
        return 0;   /* names, threads, tails, metadata, graph nodes: small, to the file */
    }
}

static entry *at(uint64_t pos)
{
    return (entry *)(ring.mem + pos % ring.cap);
}

/* Drops the oldest entry (or the skipped room before the end). */
static void evict_one(void)
{
    uint64_t left = ring.cap - ring.head % ring.cap;
    if (left < ENTRY_HDR) {
        ring.head += left;
        return;
    }
    entry *e = at(ring.head);
    if (!(e->flags & FLAG_PAD) && !(e->flags & FLAG_WRITTEN) && e->t > ring.evicted_until)
        ring.evicted_until = e->t;
    ring.head += e->len;
}

static void make_room(uint64_t need)
{
    while (ring.tail + need - ring.head > ring.cap && ring.head < ring.tail)
        evict_one();
}

/* Drops the entries kept before `older` (time), oldest first. */
static void expire(uint64_t older)
{
    while (ring.head < ring.tail) {
        uint64_t left = ring.cap - ring.head % ring.cap;
        if (left < ENTRY_HDR) {
            ring.head += left;
            continue;
        }
        entry *e = at(ring.head);
        if (!(e->flags & FLAG_PAD) && e->t >= older)
            break;
        ring.head += e->len;
    }
}

void cuprof_flight_put_locked(const struct iovec *v, int n, uint64_t now)
{
    uint64_t bytes = 0;
    for (int i = 0; i < n; i++)
        bytes += v[i].iov_len;
    if (!ring.mem && !ring.failed) {
        ring.cap = cuprof_g_config.flight_bytes & ~(uint64_t)7;
        void *p = mmap(NULL, ring.cap, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) {
            ring.failed = 1;
            cuprof_log("flight recorder: cannot map its ring of %llu bytes: nothing is kept "
                       "(choose a smaller --flight-memory)", (unsigned long long)ring.cap);
        } else {
            ring.mem = p;
        }
    }
    uint64_t need = (ENTRY_HDR + bytes + 7) & ~(uint64_t)7;
    if (!ring.mem || need > ring.cap / 2) {
        ring.lost++;
        return;
    }
    uint64_t span = cuprof_g_config.flight_ns;
    if (now > span + 1000000000ull)
        expire(now - span - 1000000000ull);
    uint64_t left = ring.cap - ring.tail % ring.cap;
    if (left < need) {   /* the room before the end: padding, then from the start */
        make_room(left);
        if (left >= ENTRY_HDR)
            *at(ring.tail) = (entry){.t = now, .len = (uint32_t)left, .flags = FLAG_PAD};
        ring.tail += left;
    }
    make_room(need);
    entry *e = at(ring.tail);
    *e = (entry){.t = now, .len = (uint32_t)need, .flags = 0};
    uint8_t *p = (uint8_t *)(e + 1);
    for (int i = 0; i < n; i++) {
        memcpy(p, v[i].iov_base, v[i].iov_len);
        p += v[i].iov_len;
    }
    ring.tail += need;
    if (ring.tail - ring.head > ring.peak)
        ring.peak = ring.tail - ring.head;
}

int cuprof_flight_each_locked(uint64_t from, int (*fn)(const void *block, size_t len, void *ctx),
                              void *ctx)
{
    for (uint64_t pos = ring.head; pos < ring.tail;) {
        uint64_t left = ring.cap - pos % ring.cap;
        if (left < ENTRY_HDR) {
            pos += left;
            continue;
        }
        entry *e = at(pos);
        if (!(e->flags & (FLAG_PAD | FLAG_WRITTEN)) && e->t >= from) {
            int rc = fn(e + 1, e->len - ENTRY_HDR, ctx);
            if (rc != 0)
                return rc;
            e->flags |= FLAG_WRITTEN;
        }
        pos += e->len;
    }
    return 0;
}

void cuprof_flight_stats_locked(cuprof_flight_stats *s)
{
    s->span_ns = cuprof_g_config.flight_ns;
    s->bound = cuprof_g_config.flight_bytes;
    s->held = ring.tail - ring.head;
    s->peak = ring.peak;
    s->evicted_until = ring.evicted_until;
    s->lost = ring.lost;
}

void cuprof_flight_reset_after_fork(void)
{
    /* the parent's records are the parent's: the child's ring starts empty
     * (the mapping is the child's copy; reused) */
    ring.head = ring.tail = 0;
    ring.peak = ring.evicted_until = ring.lost = 0;
}

/* ---- what asks for a window ----------------------------------------------------------- */

static pthread_mutex_t ask_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int asked;
static char ask_why[256];
static int codes_seen[8];
static _Atomic int ncodes;

int cuprof_flight_ask(const char *why)
{
    pthread_mutex_lock(&ask_lock);
    int first = !atomic_load(&asked);
    size_t l = first ? 0 : strlen(ask_why);
    if (l + 8 < sizeof ask_why)   /* a second reason before the window is written: both */
        snprintf(ask_why + l, sizeof ask_why - l, "%s%s", first ? "" : "; then ", why);
    atomic_store(&asked, 1);
    pthread_mutex_unlock(&ask_lock);
    return first ? 0 : -1;
}

int cuprof_flight_take(char *why, size_t n)
{
    if (!atomic_load(&asked))
        return 0;
    pthread_mutex_lock(&ask_lock);
    snprintf(why, n, "%s", ask_why);
    atomic_store(&asked, 0);
    pthread_mutex_unlock(&ask_lock);
    return 1;
}

/* Out of memory and the errors that leave the context unusable ("sticky":
 * every later call returns them), as the runtime and the driver number
 * them; cuBLAS's allocation failure by its own. */
static const char *error_kind(const cuprof_event *ev, int32_t r)
{
    if (ev->cls == CUPROF_EV_BLAS || ev->cls == CUPROF_EV_LIB)
        return r == 3 ? "out of memory (CUBLAS_STATUS_ALLOC_FAILED)" : NULL;
    if (ev->cls == CUPROF_EV_MATH)   /* cuFFT, cuSPARSE, cuSOLVER number it 2; cuRAND has none */
        return r == 2 && (ev->a.math.lib & CUPROF_MATH_LIB_MASK) != CUPROF_MATH_RAND
                   ? "out of memory (the library's ALLOC_FAILED)"
                   : NULL;
    switch (r) {
    case 2: return "out of memory";
    case 214: return "a sticky error (uncorrectable ECC error)";
    case 700: return "a sticky error (illegal address)";
    case 710: return "a sticky error (device-side assert)";
    case 714: return "a sticky error (hardware stack error)";
    case 715: return "a sticky error (illegal instruction)";
    case 716: return "a sticky error (misaligned address)";
    case 717: return "a sticky error (invalid address space)";
    case 718: return "a sticky error (invalid program counter)";
    case 719: return "a sticky error (launch failure)";
    default: return NULL;
    }
}

void cuprof_flight_error(const cuprof_event *ev, int32_t result)
{
    const char *kind = error_kind(ev, result);
    if (!kind)
        return;
    /* one window per error code (a sticky error comes back from every
     * later call), at most 8 */
    int n = atomic_load(&ncodes);
    for (int i = 0; i < n && i < 8; i++)
        if (codes_seen[i] == result)
            return;
    pthread_mutex_lock(&ask_lock);
    n = atomic_load(&ncodes);
    for (int i = 0; i < n; i++)
        if (codes_seen[i] == result) {
            pthread_mutex_unlock(&ask_lock);
            return;
        }
    if (n == 8) {
        pthread_mutex_unlock(&ask_lock);
        return;
    }
    codes_seen[n] = result;
    atomic_store(&ncodes, n + 1);
    pthread_mutex_unlock(&ask_lock);
    const char *api = ev->api < cuprof_g.napis && cuprof_g.apis ? cuprof_g.apis[ev->api].name : "a call";
    char why[256];
    snprintf(why, sizeof why, "%s returned %d: %s", api, (int)result, kind);
    if (cuprof_flight_ask(why) == 0)
        cuprof_debug(CUPROF_DBG_COLLECTOR, "flight recorder: %s", why);
}
