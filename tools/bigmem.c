/*
 * bigmem.c - the report tools' large allocations on a file, their resident
 * set kept under a budget (bigmem.h says what and why).
 *
 * Every large block is a shared mapping of its own range of one unlinked
 * file, with a 64-byte header in front (its size and where it lies). The
 * table of blocks and of watched read-only mappings is guarded by one
 * mutex, which the trimmer holds while it drops pages: a range is taken
 * out of the table before it is unmapped, so the trimmer never drops the
 * pages of memory that is no longer ours (a private mapping made later at
 * the same address would lose its data).
 */

#include "tools/bigmem.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void __real_qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
void __real_qsort_r(void *base, size_t n, size_t size,
                    int (*cmp)(const void *, const void *, void *), void *arg);
void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __real_munmap(void *addr, size_t len);

void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
void __wrap_qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
void __wrap_qsort_r(void *base, size_t n, size_t size,
                    int (*cmp)(const void *, const void *, void *), void *arg);
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __wrap_munmap(void *addr, size_t len);

#define HDR 64                          /* keeps the block 64-byte aligned */
#define TRIM_EVERY_NS 1000000L          /* 1 ms: the peak is the budget plus what the
                                           threads map in one period and one drop (20-100 MB
                                           measured; more with read-ahead bursts: trimmer) */
#define DEFAULT_BUDGET_MB 128           /* under the 256 MB with room for what
                                           stays in libc's malloc (names, rows) */

typedef struct range {
    char *base;                         /* the mapping */
    size_t len;
    off_t off;                          /* its place in the file; -1: a watched mapping */
    off_t room;                         /* the file offsets it may grow into, to here
                                           (block_room) */
} range;

static struct {
    pthread_once_t once;
    pthread_mutex_t lock;
    int fd;                             /* the spill file, -1 none */
    off_t next_off;                     /* bump: a file range is never reused */
    range *r;
    size_t n, cap;
    _Atomic uintptr_t lo, hi;           /* span of every block: free()'s quick test */
    uint64_t budget;
    _Atomic int random;                 /* 1: blocks read without read-ahead (see trimmer) */
    _Atomic uint64_t gap_max, rss_max;  /* the trimmer's stats (it alone writes them) */
    long page;
    int said;                           /* the fallback's line is said once */
    char dir[PATH_MAX];
    char used[PATH_MAX];                /* where the spill file was made */
    cuprof_bigmem_stats st;
} bm = {.once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1};

void cuprof_bigmem_dir(const char *dir)
{
    if (dir && !bm.dir[0])
        snprintf(bm.dir, sizeof bm.dir, "%s", dir);
}

static uint64_t resident_bytes(int statm)
{
    char buf[128];
    ssize_t k = pread(statm, buf, sizeof buf - 1, 0);
    if (k <= 0)
        return 0;
    buf[k] = '\0';
    unsigned long long size = 0, res = 0;
    if (sscanf(buf, "%llu %llu", &size, &res) != 2)
        return 0;
    return (uint64_t)res * (uint64_t)bm.page;
}

/* Drops every watched page now (the trimmer's work; tests call it). */
void cuprof_bigmem_trim_now(void)
{
    pthread_mutex_lock(&bm.lock);
    for (size_t i = 0; i < bm.n; i++)
        madvise(bm.r[i].base, bm.r[i].len, MADV_DONTNEED);
    bm.st.trims++;
    pthread_mutex_unlock(&bm.lock);
}

/* Every block without read-ahead from now on (MADV_RANDOM; new ones too). */
static void no_readahead(void)
{
    pthread_mutex_lock(&bm.lock);
    atomic_store(&bm.random, 1);
    bm.st.random = 1;
    for (size_t i = 0; i < bm.n; i++)
        if (bm.r[i].off >= 0)
            madvise(bm.r[i].base, bm.r[i].len, MADV_RANDOM);
    pthread_mutex_unlock(&bm.lock);
}

static void *trimmer(void *arg)
{
    (void)arg;
    int statm = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (statm < 0)
        return NULL;
    struct timespec every = {0, TRIM_EVERY_NS};
    uint64_t last = 0;
    for (;;) {
        nanosleep(&every, NULL);
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
        /* the stats this thread alone writes: relaxed atomics, no lock */
        if (last && now - last > atomic_load_explicit(&bm.gap_max, memory_order_relaxed))
            atomic_store_explicit(&bm.gap_max, now - last, memory_order_relaxed);
        last = now;
        uint64_t rss = resident_bytes(statm);
        if (rss > atomic_load_explicit(&bm.rss_max, memory_order_relaxed))
            atomic_store_explicit(&bm.rss_max, rss, memory_order_relaxed);
        if (rss > 2 * bm.budget && !atomic_load(&bm.random)) {
            /* Twice the budget a millisecond after a drop: the pages come back
             * faster than they can be dropped. Seen at 50 M launches: one 3.2 GB
             * block (the events, most likely) with 650 MB mapped right after
             * drops; read-ahead's large folios and the fault-around are the
             * likely cause (not proven). Without read-ahead (MADV_RANDOM) it
             * stayed bounded, but each page is a fault: 2x the time at 50 M
             * launches with CUPTI, 4x at 200 M calls; so only from here on:
             * the first burst is past the budget already (278-846 MB at 50 M
             * launches). CUPROF_REPORT_READAHEAD=0 goes without from the
             * start (180 MB there, at 1.6x the time). */
            no_readahead();
        }
        if (rss > bm.budget)
            cuprof_bigmem_trim_now();
    }
    return NULL;
}

static int open_spill(const char *dir)
{
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
        return fd;
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/.cuprof-spill.XXXXXX", dir);
    fd = mkostemp(path, O_CLOEXEC);
    if (fd >= 0)
        unlink(path);
    return fd;
}

static void init(void)
{
    bm.page = sysconf(_SC_PAGESIZE);
    if (bm.page <= 0)
        bm.page = 4096;
    const char *mb = getenv("CUPROF_REPORT_RSS_MB");
    char *end = NULL;
    long long v = mb && *mb ? strtoll(mb, &end, 10) : DEFAULT_BUDGET_MB;
    if (mb && *mb && (*end || v < 0)) {
        fprintf(stderr, "cuprof: CUPROF_REPORT_RSS_MB=%s is not a number of MiB: using %d\n",
                mb, DEFAULT_BUDGET_MB);
        v = DEFAULT_BUDGET_MB;
    }
    bm.budget = (uint64_t)v << 20;
    bm.st.budget = bm.budget;
    const char *ra = getenv("CUPROF_REPORT_READAHEAD");
    if (ra && !strcmp(ra, "0"))
        atomic_store(&bm.random, 1), bm.st.random = 1;
    if (bm.budget == 0)   /* no budget: the run in memory, as before (fastest, if it fits) */
        return;
    /* CUPROF_REPORT_SPILL_DIR alone when set; else beside the run file,
     * then TMPDIR, then /tmp (a run file in a directory the report may not
     * write to still gets a spill file) */
    const char *set = getenv("CUPROF_REPORT_SPILL_DIR");
    const char *dirs[] = {set && *set ? set : bm.dir, set && *set ? NULL : getenv("TMPDIR"),
                          set && *set ? NULL : "/tmp"};
    const char *dir = NULL;   /* the first one tried, and why it failed: the line names it */
    int first_errno = 0;
    for (size_t i = 0; bm.fd < 0 && i < sizeof dirs / sizeof dirs[0]; i++)
        if (dirs[i] && dirs[i][0]) {
            bm.fd = open_spill(dirs[i]);
            if (bm.fd < 0 && !dir)
                dir = dirs[i], first_errno = errno;
            if (bm.fd >= 0)
                snprintf(bm.used, sizeof bm.used, "%s", dirs[i]);
        }
    if (bm.fd < 0) {
        fprintf(stderr, "cuprof: cannot make a spill file in %s (%s): the report keeps the run "
                "in memory (set CUPROF_REPORT_SPILL_DIR to a writable directory)\n",
                dir ? dir : "/tmp", strerror(first_errno));
        bm.said = 1;
        return;
    }
    if (bm.budget) {
        /* A round-robin real-time thread where that is allowed (root, or
         * CAP_SYS_NICE): on a machine whose cores are all busy an ordinary
         * one can wait tens of milliseconds for its turn, while the model's
         * passes bring back ~10 MB of pages a millisecond. It sleeps between
         * two reads of statm, so it takes next to nothing from anyone. */
        pthread_t t;
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&a, 64 << 10);
        struct sched_param sp = {.sched_priority = 1};
        pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
        pthread_attr_setschedpolicy(&a, SCHED_RR);
        pthread_attr_setschedparam(&a, &sp);
        if (pthread_create(&t, &a, trimmer, NULL) != 0) {
            pthread_attr_setinheritsched(&a, PTHREAD_INHERIT_SCHED);
            if (pthread_create(&t, &a, trimmer, NULL) != 0)
                bm.budget = 0;
        }
        pthread_attr_destroy(&a);
    }
}

/* MemAvailable from /proc/meminfo, bytes; 0 unknown. */
static uint64_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "re");
    char line[128];
    unsigned long long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return (uint64_t)kb << 10;
}

int cuprof_bigmem_reading_done(void)
{
    pthread_once(&bm.once, init);
    pthread_mutex_lock(&bm.lock);
    uint64_t held = bm.st.bytes_now;
    int already = atomic_load(&bm.random), ours = bm.fd >= 0 && bm.budget > 0;
    pthread_mutex_unlock(&bm.lock);
    uint64_t avail = ours && !already && held ? mem_available() : 0;
    if (!avail || held > avail / 2)
        return 0;
    no_readahead();
    return 1;
}

int cuprof_bigmem_room_for(uint64_t need, char *line, size_t n)
{
    pthread_once(&bm.once, init);
    struct statvfs sv;
    if (bm.fd < 0 || bm.budget == 0 || fstatvfs(bm.fd, &sv) != 0)
        return 0;
    uint64_t room = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
    if (room >= need)
        return 0;
    const double gb = 1e9;
    char abs[PATH_MAX];   /* (the directory as given may be ".") */
    const char *dir = realpath(bm.used, abs) ? abs : bm.used;
    snprintf(line, n, "this report may need up to about %.1f GB of disk for its spill "
             "file in %s, which has %.1f GB free: what does not fit is held in memory, which "
             "may run out (set CUPROF_REPORT_SPILL_DIR to a directory on a larger disk)",
             (double)need / gb, dir, (double)room / gb);
    return 1;
}

/* Adds a range to the table (the lock held); -1 when the table cannot grow. */
static int add_range(char *base, size_t len, off_t off, off_t room)
{
    if (bm.n == bm.cap) {
        size_t cap = bm.cap ? bm.cap * 2 : 64;
        range *r = __real_realloc(bm.r, cap * sizeof *r);
        if (!r)
            return -1;
        bm.r = r, bm.cap = cap;
    }
    bm.r[bm.n++] = (range){base, len, off, room};
    if (off >= 0) {
        uintptr_t lo = atomic_load(&bm.lo), hi = atomic_load(&bm.hi);
        if (!lo || (uintptr_t)base < lo)
            atomic_store(&bm.lo, (uintptr_t)base);
        if ((uintptr_t)base + len > hi)
            atomic_store(&bm.hi, (uintptr_t)base + len);
    }
    return 0;
}

/* The block holding user pointer p (the lock held), or -1. */
static long find_block(const void *p)
{
    for (size_t i = 0; i < bm.n; i++)
        if (bm.r[i].off >= 0 && bm.r[i].base + HDR == (const char *)p)
            return (long)i;
    return -1;
}

static void say_fallback(int e)
{
    if (bm.said)
        return;
    bm.said = 1;
    fprintf(stderr, "cuprof: the spill file cannot grow (%s): the report keeps the rest in "
            "memory (free disk space where CUPROF_REPORT_SPILL_DIR points)\n", strerror(e));
}

static size_t block_len(size_t n)
{
    size_t pg = (size_t)bm.page;
    return (n + HDR + pg - 1) / pg * pg;
}

/* The file offsets a new block of len bytes at offset at takes: room to
 * grow where it is up to 64 times (1 GiB at least), so that a vector
 * doubling by realloc moves without a copy (its mapping moves, its pages
 * stay): the file is sparse, a hole costs nothing. Past ROOM_LIMIT of
 * offsets (1 TiB: under every Linux file system's largest file) the blocks
 * are packed, as they were. */
#define ROOM_LIMIT ((uint64_t)1 << 40)
static off_t block_room(size_t len, off_t at)
{
    uint64_t want = (uint64_t)len * 64;
    if (want < ((uint64_t)1 << 30))
        want = (uint64_t)1 << 30;
    if ((uint64_t)at + want > ROOM_LIMIT)
        want = len;
    return at + (off_t)want;
}

/* A zeroed block of n bytes on the file, or NULL (the caller falls back). */
static void *big_alloc(size_t n)
{
    pthread_once(&bm.once, init);
    if (bm.fd < 0 || n > SIZE_MAX / 2)
        return NULL;
    size_t len = block_len(n);
    /* Its file range is taken under the lock; the disk (fallocate, which can
     * wait on the journal behind gigabytes of writeback) and the mapping are
     * made without it: the trimmer must never wait behind them while another
     * thread brings pages in. */
    pthread_mutex_lock(&bm.lock);
    off_t off = bm.next_off;
    off_t room = block_room(len, off);
    bm.next_off = room;
    pthread_mutex_unlock(&bm.lock);
    int e = posix_fallocate(bm.fd, off, (off_t)len);
    char *base = MAP_FAILED;
    if (e == 0) {
        base = __real_mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, bm.fd, off);
        if (base == MAP_FAILED)
            e = errno;
        else if (atomic_load(&bm.random))
            madvise(base, len, MADV_RANDOM);
    }
    pthread_mutex_lock(&bm.lock);
    if (base != MAP_FAILED && add_range(base, len, off, room) < 0) {
        __real_munmap(base, len);
        base = MAP_FAILED, e = ENOMEM;
    }
    if (base == MAP_FAILED) {
        bm.st.fallbacks++;
        say_fallback(e);
        pthread_mutex_unlock(&bm.lock);
        fallocate(bm.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, (off_t)len);
        return NULL;
    }
    bm.st.allocs++;
    bm.st.bytes_now += len;
    if (bm.st.bytes_now > bm.st.bytes_peak)
        bm.st.bytes_peak = bm.st.bytes_now;
    pthread_mutex_unlock(&bm.lock);
    memcpy(base, &n, sizeof n);
    return base + HDR;
}

/* Takes block i out of the table (the lock held, and released here), then
 * gives its pages and its disk back: out of the table first, so the
 * trimmer never drops pages at an address that is no longer ours. */
static void drop_block_unlock(size_t i)
{
    range b = bm.r[i];
    bm.r[i] = bm.r[--bm.n];
    bm.st.bytes_now -= b.len;
    pthread_mutex_unlock(&bm.lock);
    __real_munmap(b.base, b.len);
    fallocate(bm.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, b.off, (off_t)b.len);
}

/* 1 when p may be a block (within the blocks' span): the lock is needed
 * to know. */
static int maybe_ours(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    return a >= atomic_load(&bm.lo) && a < atomic_load(&bm.hi);
}

void *__wrap_malloc(size_t n)
{
    if (n >= BIGMEM_MIN) {
        void *p = big_alloc(n);
        if (p)
            return p;
    }
    return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
    if (m && n > SIZE_MAX / m) {
        errno = ENOMEM;
        return NULL;
    }
    if (n * m >= BIGMEM_MIN) {
        void *p = big_alloc(n * m);
        if (p)
            return p;
    }
    return __real_calloc(n, m);
}

void __wrap_free(void *p)
{
    if (!p)
        return;
    if (maybe_ours(p)) {
        pthread_mutex_lock(&bm.lock);
        long i = find_block(p);
        if (i >= 0) {
            drop_block_unlock((size_t)i);
            return;
        }
        pthread_mutex_unlock(&bm.lock);
    }
    __real_free(p);
}

void *__wrap_realloc(void *p, size_t n)
{
    if (!p)
        return __wrap_malloc(n);
    if (maybe_ours(p)) {
        pthread_mutex_lock(&bm.lock);
        long i = find_block(p);
        if (i >= 0) {
            range *b = &bm.r[i];
            size_t old;
            memcpy(&old, b->base, sizeof old);
            if (n + HDR <= b->len) {          /* fits (or shrinks): in place */
                memcpy(b->base, &n, sizeof n);
                size_t keep = block_len(n);
                if (b->len - keep < BIGMEM_MIN || b->off < 0 ||
                    mremap(b->base, b->len, keep, 0) == MAP_FAILED) {
                    pthread_mutex_unlock(&bm.lock);
                    return p;
                }
                /* shrunk by a megabyte or more (a vector fitted to its
                 * elements): the tail's pages and disk go back now */
                off_t tail = b->off + (off_t)keep;
                size_t gone = b->len - keep;
                b->len = keep;
                bm.st.bytes_now -= gone;
                pthread_mutex_unlock(&bm.lock);   /* (the range stays taken: a hole) */
                fallocate(bm.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, tail, (off_t)gone);
                return p;
            }
            size_t len = n <= SIZE_MAX / 2 ? block_len(n) : 0;
            if (len && b->off + (off_t)len > b->room && b->room == bm.next_off) {
                b->room = b->off + (off_t)len;   /* the file's last: its room grows */
                bm.next_off = b->room;
            }
            if (len && b->off + (off_t)len <= b->room) {
                /* it grows where it is in the file (into its room, its disk
                 * reserved without the lock), and the mapping moves without
                 * a copy */
                off_t boff = b->off;
                size_t blen = b->len;
                pthread_mutex_unlock(&bm.lock);
                int e = posix_fallocate(bm.fd, boff + (off_t)blen, (off_t)(len - blen));
                pthread_mutex_lock(&bm.lock);
                i = find_block(p);   /* (the table may have moved it) */
                b = &bm.r[i];
                char *nb = e == 0 ? mremap(b->base, b->len, len, MREMAP_MAYMOVE) : MAP_FAILED;
                if (nb != MAP_FAILED) {
                    bm.st.bytes_now += len - b->len;
                    if (bm.st.bytes_now > bm.st.bytes_peak)
                        bm.st.bytes_peak = bm.st.bytes_now;
                    b->base = nb, b->len = len;
                    if ((uintptr_t)nb < atomic_load(&bm.lo))
                        atomic_store(&bm.lo, (uintptr_t)nb);
                    if ((uintptr_t)nb + len > atomic_load(&bm.hi))
                        atomic_store(&bm.hi, (uintptr_t)nb + len);
                    memcpy(nb, &n, sizeof n);
                    pthread_mutex_unlock(&bm.lock);
                    return nb + HDR;
                }
                /* the range after it stays taken: a hole in the file */
                pthread_mutex_unlock(&bm.lock);
                fallocate(bm.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, boff + (off_t)blen,
                          (off_t)(len - blen));
                pthread_mutex_lock(&bm.lock);
            }
            pthread_mutex_unlock(&bm.lock);
            void *q = __wrap_malloc(n);   /* the lock is not held across the copy */
            if (!q)
                return NULL;
            memcpy(q, p, old < n ? old : n);
            __wrap_free(p);
            return q;
        }
        pthread_mutex_unlock(&bm.lock);
    }
    if (n >= BIGMEM_MIN) {
        size_t old = malloc_usable_size(p);
        void *q = big_alloc(n);
        if (q) {
            memcpy(q, p, old < n ? old : n);
            __real_free(p);
            return q;
        }
    }
    return __real_realloc(p, n);
}

void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    void *p = __real_mmap(addr, len, prot, flags, fd, off);
    /* a file read through a private read-only mapping (the run file): its
     * pages can be dropped and read again */
    if (p != MAP_FAILED && fd >= 0 && !(flags & MAP_ANONYMOUS) && !(prot & PROT_WRITE) &&
        (flags & MAP_PRIVATE) && len >= BIGMEM_MIN) {
        pthread_once(&bm.once, init);
        pthread_mutex_lock(&bm.lock);
        add_range(p, len, -1, -1);
        pthread_mutex_unlock(&bm.lock);
    }
    return p;
}

int __wrap_munmap(void *addr, size_t len)
{
    char *a = addr;
    pthread_mutex_lock(&bm.lock);
    for (size_t i = 0; i < bm.n;)   /* out of the table before it is unmapped */
        if (bm.r[i].off < 0 && bm.r[i].base < a + len && a < bm.r[i].base + bm.r[i].len)
            bm.r[i] = bm.r[--bm.n];
        else
            i++;
    int rc = __real_munmap(addr, len);
    pthread_mutex_unlock(&bm.lock);
    return rc;
}

/* ---- qsort: a stable merge sort, its scratch on the file -------------------------- */

typedef struct sorter {
    size_t size;
    int (*cmp)(const void *, const void *, void *);
    int (*cmp2)(const void *, const void *);
    void *arg;
    char *tmp;
} sorter;

static inline int cmp_of(const sorter *s, const void *a, const void *b)
{
    return s->cmp ? s->cmp(a, b, s->arg) : s->cmp2(a, b);
}

/* Sorts b[0..n) stably (glibc's msort does the same: equal elements keep
 * their order, so the result is the one glibc's qsort gives). */
static void msort(const sorter *s, char *b, size_t n)
{
    size_t sz = s->size;
    if (n <= 16) {   /* insertion sort, stable */
        char t[256];
        for (size_t i = 1; i < n; i++) {
            size_t j = i;
            if (sz <= sizeof t) {
                memcpy(t, b + i * sz, sz);
                while (j > 0 && cmp_of(s, b + (j - 1) * sz, t) > 0) {
                    memcpy(b + j * sz, b + (j - 1) * sz, sz);
                    j--;
                }
                memcpy(b + j * sz, t, sz);
            } else {
                for (; j > 0 && cmp_of(s, b + (j - 1) * sz, b + j * sz) > 0; j--) {
                    memcpy(s->tmp, b + j * sz, sz);
                    memcpy(b + j * sz, b + (j - 1) * sz, sz);
                    memcpy(b + (j - 1) * sz, s->tmp, sz);
                }
            }
        }
        return;
    }
    size_t n1 = n / 2, n2 = n - n1;
    char *b1 = b, *b2 = b + n1 * sz;
    msort(s, b1, n1);
    msort(s, b2, n2);
    if (cmp_of(s, b2 - sz, b2) <= 0)   /* already in order */
        return;
    char *t = s->tmp;
    while (n1 > 0 && n2 > 0) {
        if (cmp_of(s, b1, b2) <= 0) {
            memcpy(t, b1, sz);
            b1 += sz, n1--;
        } else {
            memcpy(t, b2, sz);
            b2 += sz, n2--;
        }
        t += sz;
    }
    if (n1 > 0)
        memcpy(t, b1, n1 * sz);
    memcpy(b, s->tmp, (n - n2) * sz);
}

static int sort_big(void *base, size_t n, size_t size, sorter *s)
{
    if (n < 2 || size == 0 || n > SIZE_MAX / size || n * size < BIGMEM_MIN)
        return -1;
    s->size = size;
    s->tmp = __wrap_malloc(n * size + (size > 256 ? size : 0));
    if (!s->tmp)
        return -1;
    msort(s, base, n);
    __wrap_free(s->tmp);
    return 0;
}

void __wrap_qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    sorter s = {.cmp2 = cmp};
    if (sort_big(base, n, size, &s) < 0)
        __real_qsort(base, n, size, cmp);
}

void __wrap_qsort_r(void *base, size_t n, size_t size,
                    int (*cmp)(const void *, const void *, void *), void *arg)
{
    sorter s = {.cmp = cmp, .arg = arg};
    if (sort_big(base, n, size, &s) < 0)
        __real_qsort_r(base, n, size, cmp, arg);
}

uint64_t cuprof_bigmem_budget(void)
{
    pthread_once(&bm.once, init);
    return bm.budget;
}

void cuprof_bigmem_get_stats(cuprof_bigmem_stats *s)
{
    pthread_mutex_lock(&bm.lock);
    *s = bm.st;
    s->budget = bm.budget;
    s->longest_gap_ns = atomic_load_explicit(&bm.gap_max, memory_order_relaxed);
    s->rss_seen_max = atomic_load_explicit(&bm.rss_max, memory_order_relaxed);
    pthread_mutex_unlock(&bm.lock);
}
