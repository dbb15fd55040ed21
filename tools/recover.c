/*
 * recover.c - the run file of a process killed outright, completed from
 * the recording memory prof.sh's supervisor shared with it (issue 42.2,
 * 42.5; collector/shm.h has the layout).
 *
 * The process is gone: nothing writes its memory or its file any more, and
 * every store it made is there. What the file lacks is what the flusher had
 * not written yet (it writes every 0.1 s): each thread's calls since, in
 * the chunk it was filling; the names interned and the APIs first used
 * since; with the flight recorder, the whole ring (it writes only windows).
 * Appended, in this order, after the file's last whole block (a block torn
 * by the kill is cut off first):
 *   - the ring's blocks of the last CUPROF_FLIGHT_RECORDER seconds not in
 *     the file yet, each as it was kept (its checksums checked);
 *   - the names from the log, as KERNEL_NAMES and STRINGS blocks;
 *   - per thread slot of the process: its chunk up to its write pointer as
 *     a TAIL (none while the chunk was being emptied: its records were
 *     written as a CHUNK), and its THREAD block with its published count:
 *     the reader decodes exactly the calls the program had completed;
 *   - a CLOCK anchor taken now (the same machine, the same TSC), after
 *     every stamp the process made;
 *   - a RECOVERED block: how it ended (the supervisor's view: the signal,
 *     the OOM killer, its memory when last seen), the APIs the log names,
 *     and with the flight recorder the window that ends at its death.
 * Only the records' published part is trusted: a call open at the kill
 * (its record partly written, or not at all) is not among them.
 */
#include "tools/recover.h"
#include "collector/runfile.h"
#include "collector/shm.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

/* A growable byte buffer: the blocks to append. */
typedef struct buf {
    uint8_t *p;
    size_t n, cap;
    int failed;
} buf;

static void *grow(buf *b, size_t k)
{
    if (b->failed)
        return NULL;
    if (b->n + k > b->cap) {
        size_t cap = b->cap ? b->cap : 65536;
        while (cap < b->n + k)
            cap *= 2;
        uint8_t *q = realloc(b->p, cap);
        if (!q) {
            b->failed = 1;
            return NULL;
        }
        b->p = q;
        b->cap = cap;
    }
    void *at = b->p + b->n;
    b->n += k;
    return at;
}

static void put(buf *b, const void *p, size_t k)
{
    uint8_t *at = grow(b, k);
    if (at && k)
        memcpy(at, p, k);
}

/* A block of type whose payload is the two parts. */
static void block2(buf *b, uint32_t type, const void *a, size_t na, const void *c, size_t nc)
{
    cuprof_rf_block h = {.type = type, .len = na + nc};
    h.crc = cuprof_crc32c(cuprof_crc32c(0, a, na), c, nc);
    h.hcrc = cuprof_crc32c(0, &h, offsetof(cuprof_rf_block, hcrc));
    put(b, &h, sizeof h);
    put(b, a, na);
    put(b, c, nc);
    static const uint8_t zeros[8];
    if ((na + nc) & 7u)
        put(b, zeros, 8u - ((na + nc) & 7u));
}

static void tag(buf *b, uint16_t t, const void *v, uint32_t n)
{
    uint32_t h[2] = {t, n};
    put(b, h, 8);
    put(b, v, n);
}

static void tag_u64(buf *b, uint16_t t, uint64_t v)
{
    tag(b, t, &v, 8);
}

static void tag_str(buf *b, uint16_t t, const char *s)
{
    if (s && *s)
        tag(b, t, s, (uint32_t)strlen(s));
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__) || defined(__i386__)
static uint64_t read_tsc(void)
{
    return __rdtsc();
}
#endif

void cuprof_recover_anchor(uint64_t (*tsc)(void), uint64_t (*mono)(void), uint64_t *stamp,
                           uint64_t *ns)
{
    uint64_t best_w = UINT64_MAX;
    for (int i = 0; i < 5; i++) {   /* a preemption only widens the bracket it hits */
        uint64_t s0 = tsc();
        uint64_t n = mono();
        uint64_t s1 = tsc();
        if (s1 - s0 < best_w) {
            best_w = s1 - s0;
            *stamp = s0 + (s1 - s0) / 2;
            *ns = n;
        }
    }
}

static uint64_t u64_at(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static uint32_t u32_at(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* ---- the names log ---------------------------------------------------------------- */

typedef struct name_ref {
    uint32_t id;
    const char *s;     /* in the log (API: category, NUL, name) */
    uint32_t len;
} name_ref;

typedef struct names {
    name_ref *k, *s, *a;   /* kernels, strings, APIs */
    size_t nk, ns, na;
} names;

static int cmp_ref(const void *x, const void *y)
{
    const name_ref *a = x, *b = y;
    return a->id < b->id ? -1 : a->id > b->id;
}

static void read_log(const uint8_t *log, uint64_t used, uint64_t cap, names *out)
{
    memset(out, 0, sizeof *out);
    if (used > cap)
        used = cap;
    size_t max = (size_t)(used / sizeof(cuprof_shm_name)) + 1;
    out->k = calloc(max, sizeof *out->k);
    out->s = calloc(max, sizeof *out->s);
    out->a = calloc(max, sizeof *out->a);
    if (!out->k || !out->s || !out->a)
        return;
    for (uint64_t at = 0; at + sizeof(cuprof_shm_name) <= used;) {
        cuprof_shm_name e;
        memcpy(&e, log + at, sizeof e);
        if (e.bytes < sizeof e || (e.bytes & 7u) || at + e.bytes > used)
            break;   /* taken, never written: the kill came between */
        if (e.ready && e.len <= e.bytes - sizeof e) {
            name_ref r = {e.id, (const char *)log + at + sizeof e, e.len};
            if (e.kind == CUPROF_SHM_NAME_KERNEL && e.id)
                out->k[out->nk++] = r;
            else if (e.kind == CUPROF_SHM_NAME_STRING && e.id)
                out->s[out->ns++] = r;
            else if (e.kind == CUPROF_SHM_NAME_API)
                out->a[out->na++] = r;
        }
        at += e.bytes;
    }
    qsort(out->k, out->nk, sizeof *out->k, cmp_ref);
    qsort(out->s, out->ns, sizeof *out->s, cmp_ref);
    qsort(out->a, out->na, sizeof *out->a, cmp_ref);
}

/* KERNEL_NAMES / STRINGS blocks of the ids logged: one per run of
 * consecutive ids. */
static void name_blocks(buf *b, uint32_t type, const name_ref *r, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && r[j].id == r[j - 1].id + 1)
            j++;
        buf p = {0};
        uint32_t head[2] = {r[i].id, (uint32_t)(j - i)};
        put(&p, head, sizeof head);
        for (size_t k = i; k < j; k++) {
            put(&p, &r[k].len, 4);
            put(&p, r[k].s, r[k].len);
        }
        if (!p.failed)
            block2(b, type, p.p, p.n, NULL, 0);
        free(p.p);
        while (j < n && r[j].id == r[j - 1].id)   /* (an id logged twice) */
            j++;
        i = j;
    }
}

/* The API_TABLE tag (collector/runfile.h's front coding) naming the APIs
 * logged; the others empty. */
static void api_table(buf *b, const name_ref *a, size_t n)
{
    if (!n)
        return;
    uint32_t count = a[n - 1].id + 1;
    const char *cats[255];
    size_t ncats = 0;
    uint8_t *ci = calloc(n, 1);
    if (!ci)
        return;
    for (size_t i = 0; i < n; i++) {
        const char *c = a[i].s;   /* category, NUL, name */
        size_t k = 0;
        while (k < ncats && strcmp(cats[k], c))
            k++;
        if (k == ncats && ncats < 255)
            cats[ncats++] = c;
        ci[i] = (uint8_t)(k < ncats ? k : 0);
    }
    buf t = {0};
    put(&t, &count, 4);
    uint8_t nc = (uint8_t)ncats;
    put(&t, &nc, 1);
    for (size_t k = 0; k < ncats; k++)
        put(&t, cats[k], strlen(cats[k]) + 1);
    const char *prev = "";
    size_t i = 0;
    for (uint32_t id = 0; id < count; id++) {
        while (i < n && a[i].id < id)
            i++;
        const char *name = "";
        uint8_t cat = 0;
        if (i < n && a[i].id == id) {
            size_t cl = strnlen(a[i].s, a[i].len);
            name = cl < a[i].len ? a[i].s + cl + 1 : "";
            cat = ci[i];
        }
        size_t shared = 0;
        while (shared < 255 && prev[shared] && prev[shared] == name[shared])
            shared++;
        uint8_t hd[2] = {*name ? cat : 0, (uint8_t)shared};
        put(&t, hd, 2);
        put(&t, name + shared, strlen(name + shared) + 1);
        prev = name;
    }
    if (!t.failed)
        tag(b, CUPROF_RT_API_TABLE, t.p, (uint32_t)t.n);
    free(t.p);
    free(ci);
}

/* ---- the ring ----------------------------------------------------------------------- */

/* The ring's blocks kept at or after `from` and not in the file, oldest
 * first; the newest entry's time into *newest. */
static uint64_t ring_blocks(buf *b, const cuprof_shm_ring *r, const uint8_t *mem, uint64_t from,
                            uint64_t *newest)
{
    uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
    uint64_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
    uint64_t n = 0;
    if (!r->cap || tail < head || tail - head > r->cap)
        return 0;
    for (int pass = 0; pass < 2; pass++)
        for (uint64_t pos = head; pos < tail;) {
            uint64_t left = r->cap - pos % r->cap;
            if (left < sizeof(cuprof_shm_ring_entry)) {
                pos += left;
                continue;
            }
            cuprof_shm_ring_entry e;
            memcpy(&e, mem + pos % r->cap, sizeof e);
            if (e.len < sizeof e || (e.len & 7u) || e.len > left)
                break;   /* (cannot be: [head, tail) holds whole entries) */
            if (pass == 0) {
                if (!(e.flags & CUPROF_SHM_RING_PAD) && e.t > *newest)
                    *newest = e.t;
            } else if (!(e.flags & (CUPROF_SHM_RING_PAD | CUPROF_SHM_RING_WRITTEN)) && e.t >= from &&
                       e.len >= sizeof e + sizeof(cuprof_rf_block)) {
                const uint8_t *blk = mem + pos % r->cap + sizeof e;
                cuprof_rf_block h;
                memcpy(&h, blk, sizeof h);
                size_t whole = e.len - sizeof e;
                if (cuprof_crc32c(0, &h, offsetof(cuprof_rf_block, hcrc)) == h.hcrc &&
                    cuprof_rf_block_bytes(h.len) <= whole &&
                    cuprof_crc32c(0, blk + sizeof h, (size_t)h.len) == h.crc) {
                    put(b, blk, (size_t)cuprof_rf_block_bytes(h.len));
                    n++;
                }
            }
            pos += e.len;
        }
    return n;
}

/* ---- the threads -------------------------------------------------------------------- */

static uint32_t thread_blocks(buf *b, const cuprof_shm_header *h, const uint8_t *base,
                              uint32_t proc_ix, const cuprof_shm_layout *L)
{
    const uint32_t *states = (const uint32_t *)(base + h->slot_states_off);
    uint32_t n = 0;
    for (uint32_t i = 0; i < h->nslots; i++) {
        if (__atomic_load_n(&states[i], __ATOMIC_ACQUIRE) != proc_ix + 1)
            continue;
        const uint8_t *rec = base + h->slots_off + (uint64_t)i * CUPROF_SHM_SLOT_BYTES;
        const uint8_t *chunk = rec + CUPROF_SHM_REC_BYTES;
        uint32_t index = u32_at(rec + L->index);
        if (index == 0)
            continue;   /* taken, not registered yet: no call */
        cuprof_rf_thread th = {.index = index, .tid = u32_at(rec + L->tid),
                               .first_stamp = u64_at(rec + L->first),
                               .first_ns = u64_at(rec + L->first + 8),
                               .committed = u64_at(rec + L->committed),
                               .dropped = u64_at(rec + L->dropped)};
        memcpy(th.name, rec + L->name, sizeof th.name);
        th.name[sizeof th.name - 1] = '\0';
        uint64_t written = u64_at(rec + L->written), gen = u64_at(rec + L->gen);
        uint64_t tail = u64_at(rec + L->tail), wp = u64_at(rec + L->wp);
        /* its records end at the write pointer, in its address space: the
         * distance from its chunk's start is the same here */
        uint64_t used = wp - tail - L->chunk_data;
        if (wp < tail + L->chunk_data || used > L->chunk_data_bytes)
            used = 0;
        if (!(gen & 1) && used) {   /* (odd: written as a CHUNK, being emptied) */
            cuprof_rf_chunk c = {.thread = index, .chunk_no = (uint32_t)written,
                                 .anchor_stamp = u64_at(chunk + L->chunk_anchor),
                                 .anchor_ns = u64_at(chunk + L->chunk_anchor + 8)};
            block2(b, CUPROF_RF_TAIL, &c, sizeof c, chunk + L->chunk_data, (size_t)used);
        }
        block2(b, CUPROF_RF_THREAD, &th, sizeof th, NULL, 0);
        n++;
    }
    return n;
}

/* ---- the file ------------------------------------------------------------------------- */

int cuprof_recover_append(const char *path, long pid, int shm_fd, uint64_t good,
                          const cuprof_recover_end *end, cuprof_recover_stats *st, char *err,
                          size_t errlen)
{
    memset(st, 0, sizeof *st);
    err[0] = '\0';
    buf b = {0}, rec = {0};
    uint8_t *base = NULL;
    size_t map_len = 0;
    const cuprof_shm_proc *p = NULL;
    uint32_t proc_ix = 0;
    cuprof_shm_header h;
    struct stat sst;
    if (shm_fd >= 0 && fstat(shm_fd, &sst) == 0 &&
        pread(shm_fd, &h, sizeof h, 0) == (ssize_t)sizeof h &&
        !memcmp(h.magic, CUPROF_SHM_MAGIC, sizeof CUPROF_SHM_MAGIC) && h.version == CUPROF_SHM_VERSION &&
        h.header_bytes == sizeof h && h.total_bytes <= (uint64_t)sst.st_size) {
        void *m = mmap(NULL, h.total_bytes, PROT_READ, MAP_SHARED | MAP_NORESERVE, shm_fd, 0);
        if (m != MAP_FAILED) {
            base = m;
            map_len = h.total_bytes;
            /* pid's live slot (the newest, should there be two) */
            for (uint32_t i = 0; i < h.nprocs; i++) {
                const cuprof_shm_proc *q =
                    (const cuprof_shm_proc *)(base + h.procs_off + (uint64_t)i * h.proc_bytes);
                if (__atomic_load_n(&q->state, __ATOMIC_ACQUIRE) == CUPROF_SHM_LIVE &&
                    q->pid == pid && (!p || q->t_start > p->t_start))
                    p = q, proc_ix = i;
            }
        }
    }
    uint64_t now = mono_ns();
    uint64_t died = end && end->died_ns ? end->died_ns : 0;
    if (p) {
        st->from_memory = 1;
        const uint8_t *area = base + h.area_off + (uint64_t)proc_ix * h.area_bytes;
        /* the flight recorder's window: its last span before its death
         * (when the supervisor saw it; else before it was last seen alive:
         * the newest block kept, the flusher's last round, and to now, which
         * the reader brings back to its last record) */
        cuprof_shm_ring r = p->ring;
        if (r.cap && r.cap <= h.ring_bytes) {
            uint64_t newest = __atomic_load_n(&p->alive_ns, __ATOMIC_RELAXED);
            ring_blocks(&b, &r, area + h.names_bytes, UINT64_MAX, &newest);   /* (newest only) */
            uint64_t close = died ? died : now;
            if (close < newest)
                close = newest;
            uint64_t last = died ? close : newest;
            uint64_t open = last > r.span_ns ? last - r.span_ns : 0;
            if (open < p->t_start)
                open = p->t_start;
            if (r.evicted_until >= open)
                open = r.evicted_until + 1;
            st->ring_blocks = ring_blocks(&b, &r, area + h.names_bytes, open, &newest);
            uint64_t w[2] = {open, close};
            tag(&rec, CUPROF_RT_CAP_WINDOW, w, sizeof w);
            char why[200];
            snprintf(why, sizeof why, "the process was killed (%s)",
                     end && end->oom_kills ? "by the OOM killer, SIGKILL"
                     : end && end->ended_by ? end->ended_by : "by a signal cuprof cannot catch");
            tag_str(&rec, CUPROF_RT_CAP_WHY, why);
            tag_u64(&rec, CUPROF_RT_CAP_FLIGHT_PEAK, r.peak);
            tag_u64(&rec, CUPROF_RT_CAP_FLIGHT_EVICTED, r.evicted_until);
        }
        names nm;
        read_log(area, __atomic_load_n(&p->names_used, __ATOMIC_RELAXED), h.names_bytes, &nm);
        name_blocks(&b, CUPROF_RF_KERNEL_NAMES, nm.k, nm.nk);
        name_blocks(&b, CUPROF_RF_STRINGS, nm.s, nm.ns);
        api_table(&rec, nm.a, nm.na);
        st->names = (uint32_t)(nm.nk + nm.ns + nm.na);
        free(nm.k);
        free(nm.s);
        free(nm.a);
        cuprof_shm_layout L = p->rec;
        if (L.chunk_data_bytes && L.chunk_data + L.chunk_data_bytes <= CUPROF_SHM_SLOT_BYTES - CUPROF_SHM_REC_BYTES)
            st->threads = thread_blocks(&b, &h, base, proc_ix, &L);
        /* an anchor after every stamp it made: both clocks now (its records'
         * stamps are this machine's TSC or CLOCK_MONOTONIC) */
        if (p->stamps) {
            cuprof_rf_clock c = {now, now};
#if defined(__x86_64__) || defined(__i386__)
            if (p->stamps == 2)
                cuprof_recover_anchor(read_tsc, mono_ns, &c.stamp, &c.ns);
#endif
            block2(&b, CUPROF_RF_CLOCK, &c, sizeof c, NULL, 0);
        }
    }
    tag_str(&rec, CUPROF_RT_REC_ENDED_BY, end && end->ended_by ? end->ended_by : NULL);
    if (died)
        tag_u64(&rec, CUPROF_RT_REC_DIED_NS, died);
    if (end && end->oom_kills)
        tag_u64(&rec, CUPROF_RT_REC_OOM_KILLS, end->oom_kills);
    if (end && end->cgroup) {
        tag_str(&rec, CUPROF_RT_REC_CGROUP, end->cgroup);
        tag_u64(&rec, CUPROF_RT_REC_MEM_LIMIT, end->mem_limit);
    }
    if (end && end->rss) {
        tag_u64(&rec, CUPROF_RT_REC_RSS, end->rss);
        tag_u64(&rec, CUPROF_RT_REC_RSS_PEAK, end->rss_peak);
        tag_u64(&rec, CUPROF_RT_REC_RSS_NS, end->rss_ns);
    }
    if (st->from_memory) {   /* (absent: its memory was not found) */
        tag_u64(&rec, CUPROF_RT_REC_THREADS, st->threads);
        tag_u64(&rec, CUPROF_RT_REC_RING_BLOCKS, st->ring_blocks);
    }
    block2(&b, CUPROF_RF_RECOVERED, rec.p, rec.n, NULL, 0);
    if (base)
        munmap(base, map_len);
    int rc = -1;
    if (b.failed || rec.failed) {
        snprintf(err, errlen, "out of memory recovering %s", path);
    } else {
        /* a file-size limit (ulimit -f) makes the write fail, not end this
         * process: SIGXFSZ blocked, and consumed if the write raised it */
        sigset_t x, old, pend;
        sigemptyset(&x);
        sigaddset(&x, SIGXFSZ);
        sigprocmask(SIG_BLOCK, &x, &old);
        sigpending(&pend);
        int was_pending = sigismember(&pend, SIGXFSZ) == 1;
        int fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
        struct stat fst;
        if (fd < 0 || fstat(fd, &fst) != 0) {
            snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        } else {
            /* the block the kill tore is cut off: the reader stops at it */
            if ((uint64_t)fst.st_size > good && ftruncate(fd, (off_t)good) != 0)
                snprintf(err, errlen, "cannot cut %s to its last whole block: %s", path,
                         strerror(errno));
            else if (pwrite(fd, b.p, b.n, (off_t)good) != (ssize_t)b.n)
                snprintf(err, errlen, "cannot write to %s: %s", path, strerror(errno));
            else
                rc = 0;
            if (rc != 0 && ftruncate(fd, (off_t)good) != 0)
                (void)0;   /* the reader then stops at the torn block */
        }
        if (fd >= 0)
            close(fd);
        sigpending(&pend);
        if (!was_pending && sigismember(&pend, SIGXFSZ) == 1) {
            struct timespec zero = {0, 0};
            sigtimedwait(&x, NULL, &zero);
        }
        sigprocmask(SIG_SETMASK, &old, NULL);
    }
    free(b.p);
    free(rec.p);
    return rc;
}
