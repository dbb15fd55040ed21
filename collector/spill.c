/*
 * spill.c - events beyond CUPROF_MEM_LIMIT go to a file, and come back at
 * exit, so a long run loses nothing and its memory stays bounded.
 *
 * When a thread fills its chunk and the limit allows no new one, it writes
 * its oldest chunk (its whole 64 KiB, as it is in memory: a 64-byte header,
 * then compact records, compact.h, every one of a call that ended) to the
 * spill file and reuses that memory as its new chunk. The file is
 * DIR/.cuprof-spill.PID (DIR = CUPROF_OUT_DIR), opened at the first spill:
 * a 4 KiB header (struct spill_header), then 64 KiB records, each at an
 * offset the writer reserved with one atomic add and filled with pwrite:
 * no lock shared with other threads beyond the file descriptor (the open,
 * once per process, takes a mutex). Records are page-aligned, so the exit
 * path maps the file (read-only, page cache) and decodes them like the
 * chunks in memory. A thread's records are in the file in the order
 * it wrote them, oldest first. The file is removed once the outputs are
 * written (a SIGKILLed run leaves it: a dot-file, never under a final
 * name).
 *
 * If a write fails (disk full, no directory), spilling stops for the
 * process: one "cuprof:" warning, the summary's header says so, and later
 * calls are counted (per API, so the table's counts stay exact) but not
 * recorded. The program is never disturbed: no signal (SIGXFSZ blocked
 * around the write), errno kept by the caller.
 */
#include "collector/internal.h"
#include "collector/log.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SPILL_MAGIC "CUPROFSPILL2"
#define SPILL_HEADER_BYTES 4096u

/* The file's first 4 KiB (rest zero). */
struct spill_header {
    char magic[16];          /* SPILL_MAGIC, NUL-padded */
    uint32_t event_bytes;    /* 0: compact records (compact.h) */
    uint32_t record_bytes;   /* CUPROF_CHUNK_BYTES: 65536 */
    int64_t pid;             /* the process that wrote it */
};

/* What a record's header pad holds (the chunk's pad[32] in memory). */
struct spill_tag {
    uint32_t thread;         /* cuprof_thread.index */
};
_Static_assert(sizeof(struct spill_tag) <= sizeof(((cuprof_chunk *)0)->pad), "tag fits the pad");

static struct {
    pthread_mutex_t open_lock;   /* the open only */
    _Atomic int fd;              /* -1 until opened */
    _Atomic int failed;          /* a write failed: no more spilling in this process */
    _Atomic uint64_t off;        /* next free offset */
    _Atomic uint64_t records;    /* records written */
    _Atomic int inflight;        /* spills between their check and their end */
    char path[PATH_MAX + 64];
    char why[256];               /* why spilling stopped, for the summary */
    dev_t dev;                   /* the file's identity: a program that closes */
    ino_t ino;                   /* every descriptor may reuse ours for its own */
    /* exit side: the file mapped */
    void *map;
    size_t map_len;
} sp = {.open_lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1};

static void spill_fail(const char *what, int err)
{
    if (atomic_exchange(&sp.failed, 1))
        return;
    snprintf(sp.why, sizeof sp.why, "%s %.180s: %s", what, sp.path[0] ? sp.path : cuprof_g_config.out_dir,
             strerror(err));
    cuprof_log("event memory limit reached and events cannot be spilled (%s): recording stops "
               "here; the summary counts every call, the trace has those recorded so far "
               "(free disk space, or raise CUPROF_MEM_LIMIT)", sp.why);
}

/* 1 when fd is still our spill file (never write into, map or close a
 * descriptor the program reused after closing ours). */
static int fd_is_ours(int fd)
{
    struct stat st;
    return fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == sp.dev && st.st_ino == sp.ino;
}

/* Opens the spill file once per process; -1 (reported) on failure. */
static int spill_open(void)
{
    int fd = atomic_load(&sp.fd);
    if (fd >= 0)
        return fd;
    pthread_mutex_lock(&sp.open_lock);
    fd = atomic_load(&sp.fd);
    if (fd < 0 && !atomic_load(&sp.failed)) {
        const char *dir = cuprof_g_config.out_dir;
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
            (void)0;   /* the open below says why */
        snprintf(sp.path, sizeof sp.path, "%s/.cuprof-spill.%ld", dir, (long)cuprof_g.pid);
        int flags = O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
        fd = open(sp.path, flags, 0600);
        if (fd < 0 && errno == EEXIST && unlink(sp.path) == 0)   /* a killed run of our pid */
            fd = open(sp.path, flags, 0600);
        char head[SPILL_HEADER_BYTES];
        memset(head, 0, sizeof head);
        struct spill_header h = {.event_bytes = 0,
                                 .record_bytes = CUPROF_CHUNK_BYTES, .pid = cuprof_g.pid};
        memcpy(h.magic, SPILL_MAGIC, sizeof SPILL_MAGIC - 1);
        memcpy(head, &h, sizeof h);
        if (fd < 0) {
            spill_fail("cannot create", errno);
        } else if (pwrite(fd, head, sizeof head, 0) != (ssize_t)sizeof head) {
            int e = errno ? errno : EIO;
            close(fd);
            unlink(sp.path);
            fd = -1;
            spill_fail("cannot write", e);
        } else {
            struct stat st;
            if (fstat(fd, &st) == 0) {
                sp.dev = st.st_dev;
                sp.ino = st.st_ino;
            }
            atomic_store(&sp.off, SPILL_HEADER_BYTES);
            atomic_store(&sp.fd, fd);
            cuprof_log("event memory limit reached (%llu bytes, CUPROF_MEM_LIMIT): older events "
                       "go to %s and are merged at exit",
                       (unsigned long long)cuprof_g_config.mem_limit, sp.path);
        }
    }
    pthread_mutex_unlock(&sp.open_lock);
    return fd;
}

/* pwrite of the whole record; 0 or an errno. SIGXFSZ blocked around it: a
 * file-size limit must give us EFBIG, not kill the program. */
static int write_record(int fd, const void *rec, uint64_t off)
{
    sigset_t x, old;
    sigemptyset(&x);
    sigaddset(&x, SIGXFSZ);
    pthread_sigmask(SIG_BLOCK, &x, &old);
    const char *p = rec;
    size_t left = CUPROF_CHUNK_BYTES;
    int err = 0;
    while (left > 0) {
        ssize_t w = pwrite(fd, p, left, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            err = w < 0 ? errno : ENOSPC;
            break;
        }
        p += w;
        off += (uint64_t)w;
        left -= (size_t)w;
    }
    sigset_t pend;
    if (err && sigpending(&pend) == 0 && sigismember(&pend, SIGXFSZ) == 1 &&
        !sigismember(&old, SIGXFSZ)) {
        struct timespec zero = {0, 0};
        sigtimedwait(&x, NULL, &zero);   /* the SIGXFSZ our write raised */
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return err;
}

cuprof_chunk *cuprof_spill_oldest(cuprof_thread *t)
{
    cuprof_chunk *c = NULL;
    /* Dekker with the exit path: it clears recording, then waits for
     * inflight to drain; we count ourselves in, then look at recording. */
    atomic_fetch_add(&sp.inflight, 1);
    if (!atomic_load(&cuprof_g.recording) || atomic_load(&sp.failed))
        goto out;
    cuprof_chunk *old = t->head;
    int fd = spill_open();
    if (fd < 0)
        goto out;
    if (!fd_is_ours(fd)) {
        spill_fail("the program closed", EBADF);
        goto out;
    }
    struct spill_tag tag = {.thread = t->index};
    memcpy(old->pad, &tag, sizeof tag);
    uint64_t off = atomic_fetch_add(&sp.off, CUPROF_CHUNK_BYTES);
    int err = write_record(fd, old, off);
    memset(old->pad, 0, sizeof old->pad);
    if (err) {
        /* Part of the record may be in the file: its tag must not claim
         * it (a hole or a file cut short reads as thread 0 anyway). */
        ssize_t w = pwrite(fd, old, 64, (off_t)off);   /* header, pad zeroed */
        (void)w;
        spill_fail("cannot write to", err);
        goto out;
    }
    atomic_fetch_add(&sp.records, 1);
    /* Off the thread's chain (readers walk it under the lock). */
    pthread_mutex_lock(&cuprof_g.lock);
    cuprof_chunk *next = atomic_load_explicit(&old->next, memory_order_relaxed);
    if (next)
        t->head = next;
    t->spilled++;
    pthread_mutex_unlock(&cuprof_g.lock);
    c = old;
out:
    atomic_fetch_sub(&sp.inflight, 1);
    return c;
}

void cuprof_spill_quiesce(void)
{
    /* Spills that passed their recording check finish in microseconds (one
     * 64 KiB write); bounded anyway: a write stuck on a full NFS must not
     * hang the exit. */
    for (int i = 0; i < 20000 && atomic_load(&sp.inflight) > 0; i++)
        usleep(100);
}

const char *cuprof_spill_failure(void)
{
    return atomic_load(&sp.failed) ? sp.why : NULL;
}

uint64_t cuprof_spill_records(void)
{
    return atomic_load(&sp.records);
}

/* Maps the file once (exit side); NULL when nothing was spilled. */
static const char *spill_map(void)
{
    if (sp.map)
        return sp.map;
    int fd = atomic_load(&sp.fd);
    uint64_t n = atomic_load(&sp.records);
    if (fd < 0 || n == 0 || !fd_is_ours(fd))
        return NULL;
    /* Only what the file holds: a failed write reserved its offset but
     * may have written nothing (mapping past the end would fault). */
    struct stat st;
    if (fstat(fd, &st) != 0)
        return NULL;
    uint64_t len = (uint64_t)st.st_size < atomic_load(&sp.off) ? (uint64_t)st.st_size : atomic_load(&sp.off);
    if (len < SPILL_HEADER_BYTES + CUPROF_CHUNK_BYTES)
        return NULL;
    len = SPILL_HEADER_BYTES + (len - SPILL_HEADER_BYTES) / CUPROF_CHUNK_BYTES * CUPROF_CHUNK_BYTES;
    void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
        cuprof_log("cannot map the spill file %s (%s): its events are left out", sp.path,
                   strerror(errno));
        return NULL;
    }
    sp.map = m;
    sp.map_len = (size_t)len;
    return m;
}

size_t cuprof_spill_chunks(const cuprof_thread *t, const cuprof_chunk **out, size_t max)
{
    if (t->spilled == 0)
        return 0;
    const char *m = spill_map();
    if (!m)
        return 0;
    size_t n = 0;
    uint64_t nrec = (sp.map_len - SPILL_HEADER_BYTES) / CUPROF_CHUNK_BYTES;
    /* The owner writes its records one after another: its first `spilled`
     * are the complete ones (one cut short by an exit in the middle of its
     * write comes after them, and its chunk is still in memory). */
    if (max > t->spilled)
        max = (size_t)t->spilled;
    for (uint64_t r = 0; r < nrec && n < max; r++) {
        const cuprof_chunk *c = (const cuprof_chunk *)(m + SPILL_HEADER_BYTES + r * CUPROF_CHUNK_BYTES);
        struct spill_tag tag;
        memcpy(&tag, c->pad, sizeof tag);
        if (tag.thread == t->index && tag.thread != 0)
            out[n++] = c;
    }
    return n;
}

void cuprof_spill_release(int remove)
{
    if (sp.map) {
        munmap(sp.map, sp.map_len);
        sp.map = NULL;
        sp.map_len = 0;
    }
    if (!remove) {
        /* exec: if it fails, the records are merged again at the end
         * (through the descriptor); if it succeeds, O_CLOEXEC closes the
         * last reference and the file is gone with the old image. */
        if (sp.path[0])
            unlink(sp.path);
        return;
    }
    int fd = atomic_exchange(&sp.fd, -1);
    if (fd >= 0) {
        if (fd_is_ours(fd))
            close(fd);
        unlink(sp.path);
    }
}

void cuprof_spill_reset_after_fork(void)
{
    /* The parent's file is the parent's: the child spills to its own. */
    int fd = atomic_exchange(&sp.fd, -1);
    if (fd >= 0)
        close(fd);
    sp.map = NULL;   /* (a fork during the exit path: not ours to unmap) */
    sp.map_len = 0;
    pthread_mutex_init(&sp.open_lock, NULL);
    atomic_store(&sp.failed, 0);
    atomic_store(&sp.off, 0);
    atomic_store(&sp.records, 0);
    atomic_store(&sp.inflight, 0);
    sp.path[0] = sp.why[0] = '\0';
}
