/*
 * runfile.c - the run file's writer (collector/runfile.h has the layout).
 *
 * Opened at the first block (a thread filled its first chunk, CUPTI handed
 * over its first buffer, or the exit path), as DIR/.cuprof-run.PID (a
 * dot-file: never under a final name while the process runs); the exit
 * path renames it DIR/NAME.cuprof once the run is complete and its name
 * chosen. Every block is appended under one lock at the offset the lock
 * guards, with one pwritev: blocks never interleave, so only the last can
 * be torn (a kill during its write).
 *
 * A write that fails (full disk, `ulimit -f`: SIGXFSZ is blocked around it,
 * a directory that cannot be written) stops the run file for the process:
 * one "cuprof:" warning, later calls are counted per API but not recorded,
 * and the summary says why ("RECORDING STOPPED") and that it is truncated.
 * The program is never disturbed: errno is the caller's to keep.
 *
 * The program's own descriptor handling (issue 42.3): a program may close
 * every descriptor it inherited (close(3..4095), closefrom, close_range),
 * dup2 one of its files onto our number, or clear FD_CLOEXEC on all of
 * them before an exec. Our descriptor is kept high (48 and up: the
 * program's own open() calls get the numbers they get without us) and is
 * only a handle: the file is known by its path and
 * identity (st_dev, st_ino). Losing the descriptor loses nothing: the next
 * block reopens the file by its path (no O_CREAT, no O_TRUNC) once it has
 * checked the identity, and appends where it left off. The program's files
 * never get a byte of ours:
 *   - the libc calls that close or replace descriptors (close, close_range,
 *     closefrom, dup2, dup3; preload/hooks_libc.c) ask cuprof_fd_begin
 *     first: one that covers our number takes the file's lock, so it cannot
 *     fall between our identity check and our write, and the number is
 *     given up (taken back afterwards if the call left it ours); while we
 *     open or reopen the file (`fd_busy`), every such call waits for the
 *     lock, and we wait for the ones already running (`fd_closers`), so a
 *     number we just got cannot be closed and reused under us;
 *   - a raw system call (no libc) is caught by the identity check (fstat)
 *     before every block: a descriptor that is not our file is never
 *     written, never closed by us.
 * Before an exec (and every flusher round) FD_CLOEXEC is set again on our
 * descriptor, so an exec'd image never inherits it.
 */
#include "collector/internal.h"
#include "collector/libc.h"
#include "collector/cupti.h"
#include "collector/log.h"
#include "collector/runfile.h"
#include "collector/snapshot.h"
#include "collector/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static struct {
    pthread_mutex_t lock;        /* the file: open, offset, every append */
    int fd;                      /* -1 until opened (read unlocked to skip the lock) */
    _Atomic int failed;          /* a write failed: no more chunks in this process */
    _Atomic int why_ready;       /* why is written (failed is set first, once) */
    int final;                   /* the exit path completes the file: small blocks are
                                    tried even after a failure */
    _Atomic int inflight;        /* chunk writes between their check and their end */
    int ended;                   /* END written: nothing more until a failed exec resumes */
    uint64_t off;                /* where the next block goes */
    _Atomic uint64_t chunks;     /* CHUNK blocks written */
    char path[PATH_MAX + 64];    /* where it is now */
    char why[320];               /* why it stopped, for the summary */
    dev_t dev;                   /* the file's identity: a program that closes */
    ino_t ino;                   /* every descriptor may reuse ours for its own */
    int created;                 /* the file exists (path, dev, ino, off hold): a lost
                                    descriptor is reopened, never the file created again */
    uint64_t reopened;           /* times the descriptor was lost and the file reopened */
} rf = {.lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1};

/* The program's close/dup2 & co (cuprof_fd_begin) against our opening of the
 * file: fd_busy is set (under the lock) while we open it and get our number;
 * a call that starts meanwhile waits for the lock. fd_closers counts the
 * calls in progress that did not take the lock: we wait for them to end
 * before we open (Dekker: each side writes its flag, then reads the
 * other's). */
static _Atomic int fd_busy;
static _Atomic int fd_closers;

/* close(2) itself: our own descriptor, closed by us, must not go through
 * the program's close (our hook, which would wait for the lock we hold). */
static void sys_close(int fd)
{
    int e = errno;
    syscall(SYS_close, fd);
    errno = e;
}

static void rf_fail(const char *what, int err)
{
    if (atomic_exchange(&rf.failed, 1))
        return;
    snprintf(rf.why, sizeof rf.why, "%s %.200s: %s", what,
             rf.path[0] ? rf.path : cuprof_g_config.out_dir, strerror(err));
    atomic_store_explicit(&rf.why_ready, 1, memory_order_release);
    if (cuprof_collector_finishing_here())
        return;   /* the exit path says it, in one line */
    cuprof_log("cannot write the run file (%s): recording stops here; the outputs will have the "
               "calls recorded so far and say TRUNCATED (free disk space, or choose another "
               "directory with -o)", rf.why);
}

static int fd_is_ours(int fd)
{
    struct stat st;
    int e = errno;
    int ours = fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == rf.dev && st.st_ino == rf.ino;
    errno = e;
    return ours;
}

/* The lowest number our descriptor may take: 48 (half the descriptor limit
 * when that is lower), above what most programs open, yet inside the
 * kernel's first descriptor table (64 entries): a number beyond it grows
 * the table, which in a process with threads waits for an RCU grace period
 * (milliseconds, with the file's lock held, stalling a recording thread's
 * chunk write). */
static int high_fd_base(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 0;
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= 96)
        return 48;
    return (int)(rl.rlim_cur / 2);
}

/* open(2) of our file, the descriptor then moved high (close-on-exec), with
 * the program's descriptor calls held off (fd_busy, fd_closers). The run
 * file's lock held. -1 with errno on failure. */
static int open_guarded(const char *path, int flags, mode_t mode)
{
    atomic_store(&fd_busy, 1);
    /* the calls that began before they could see fd_busy: each is one
     * system call; bounded anyway (a close that flushes to a slow NFS) */
    for (int i = 0; i < 100000 && atomic_load(&fd_closers) > 0; i++)
        sched_yield();
    int fd = open(path, flags, mode);
    int e = errno;
    int base = fd >= 0 ? high_fd_base() : 0;
    if (fd >= 0 && fd < base) {
        int hi = fcntl(fd, F_DUPFD_CLOEXEC, base);
        if (hi >= 0) {
            sys_close(fd);
            fd = hi;
        }
    }
    atomic_store(&fd_busy, 0);
    errno = e;
    return fd;
}

/* Writes every byte of iov at off; 0 or an errno. iov is consumed. The
 * caller has blocked SIGXFSZ (a size limit must give us EFBIG, not kill
 * the program); a SIGXFSZ our write raised is consumed here unless one was
 * pending before (old: the caller's mask before it blocked). */
static int write_all(int fd, struct iovec *iov, int n, uint64_t off, const sigset_t *old)
{
    int err = 0;
    while (n > 0) {
        ssize_t w = pwritev(fd, iov, n, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            err = w < 0 ? errno : ENOSPC;
            break;
        }
        off += (uint64_t)w;
        while (n > 0 && (size_t)w >= iov->iov_len) {
            w -= (ssize_t)iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (char *)iov->iov_base + w;
            iov->iov_len -= (size_t)w;
        }
    }
    sigset_t pend, x;
    sigemptyset(&x);
    sigaddset(&x, SIGXFSZ);
    if (err && sigpending(&pend) == 0 && sigismember(&pend, SIGXFSZ) == 1 &&
        !sigismember(old, SIGXFSZ)) {
        struct timespec zero = {0, 0};
        sigtimedwait(&x, NULL, &zero);   /* the SIGXFSZ our write raised */
    }
    return err;
}

/* Every asynchronous signal blocked while the file's lock is held: a
 * signal handled on this thread waits (cuprof's own handler waits for the
 * exit path's writer, which needs this lock) must not find it held. The
 * faults stay deliverable. */
void cuprof_block_async(sigset_t *old)
{
    sigset_t all;
    sigfillset(&all);
    sigdelset(&all, SIGSEGV);
    sigdelset(&all, SIGBUS);
    sigdelset(&all, SIGFPE);
    sigdelset(&all, SIGILL);
    pthread_sigmask(SIG_BLOCK, &all, old);
}

static void rf_lock(sigset_t *old)
{
    cuprof_block_async(old);
    pthread_mutex_lock(&rf.lock);
}

static void rf_unlock(const sigset_t *old)
{
    pthread_mutex_unlock(&rf.lock);
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* The program closed our descriptor (or put another file on its number):
 * the file opened again by its path, if it is still ours; lock held. -1
 * (reported: recording stops) when it is gone or another file took its
 * name. */
static int reopen_locked(void)
{
    int fd = open_guarded(rf.path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0);
    if (fd < 0) {
        rf_fail("the program closed the run file and it cannot be opened again:", errno);
        return -1;
    }
    if (!fd_is_ours(fd)) {
        sys_close(fd);   /* (our own: nothing could close it under fd_busy) */
        rf_fail("the program closed the run file and another file took its name:", ESTALE);
        return -1;
    }
    rf.reopened++;
    cuprof_debug(CUPROF_DBG_COLLECTOR, "run file reopened (descriptor lost %llu time(s))",
                 (unsigned long long)rf.reopened);
    __atomic_store_n(&rf.fd, fd, __ATOMIC_RELAXED);
    return fd;
}

/* Opens the file once per process (again after the program closed it);
 * lock held. -1 (reported) on failure. */
static int open_locked(void)
{
    if (rf.fd >= 0)
        return rf.fd;
    if (atomic_load(&rf.failed))
        return -1;
    if (rf.created)
        return reopen_locked();
    const char *dir = cuprof_g_config.out_dir;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        (void)0;   /* the open below says why */
    snprintf(rf.path, sizeof rf.path, "%s/.cuprof-run.%ld", dir, (long)cuprof_g.pid);
    int flags = O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
    int fd = open_guarded(rf.path, flags, 0644);
    if (fd < 0 && errno == EEXIST && unlink(rf.path) == 0)   /* a killed run of our pid */
        fd = open_guarded(rf.path, flags, 0644);
    if (fd < 0) {
        rf_fail("cannot create", errno);
        return -1;
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    cuprof_rf_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, CUPROF_RF_MAGIC, sizeof h.magic);
    h.major = CUPROF_RF_MAJOR;
    h.minor = CUPROF_RF_MINOR;
    h.header_bytes = sizeof h;
    h.block_header_bytes = sizeof(cuprof_rf_block);
    h.pid = cuprof_g.pid;
    h.real_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
    struct iovec v = {&h, sizeof h};
    sigset_t none;
    sigemptyset(&none);
    int err = write_all(fd, &v, 1, 0, &none);   /* under rf_lock: signals blocked */
    if (err) {
        sys_close(fd);
        unlink(rf.path);
        rf_fail("cannot write", err);
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) == 0) {
        rf.dev = st.st_dev;
        rf.ino = st.st_ino;
    }
    rf.created = 1;
    rf.off = sizeof h;
    __atomic_store_n(&rf.fd, fd, __ATOMIC_RELAXED);   /* read unlocked by append */
    return fd;
}

/* fd (open_locked's) if it is still our file, else the file reopened (a
 * raw system call closed or replaced it: not ours any more, never written,
 * never closed by us); -1 when it cannot be. Lock held. */
static int usable_fd_locked(int fd)
{
    if (fd_is_ours(fd))
        return fd;
    __atomic_store_n(&rf.fd, -1, __ATOMIC_RELAXED);
    return open_locked();
}

int cuprof_runfile_append(uint32_t type, const struct iovec *parts, int nparts)
{
    if (nparts > 6)
        return -1;
    if (__atomic_load_n(&rf.fd, __ATOMIC_RELAXED) < 0 && cuprof_runfile_ensure() != 0)
        return -1;
    uint64_t len = 0;
    uint32_t crc = 0;
    for (int i = 0; i < nparts; i++) {
        len += parts[i].iov_len;
        crc = cuprof_crc32c(crc, parts[i].iov_base, parts[i].iov_len);
    }
    cuprof_rf_block b = {.type = type, .len = len, .crc = crc};
    b.hcrc = cuprof_crc32c(0, &b, offsetof(cuprof_rf_block, hcrc));
    static const uint8_t zeros[8];
    struct iovec v[8];
    int n = 0;
    v[n++] = (struct iovec){&b, sizeof b};
    for (int i = 0; i < nparts; i++)
        if (parts[i].iov_len)
            v[n++] = parts[i];
    if (len & 7u)
        v[n++] = (struct iovec){(void *)zeros, 8u - (len & 7u)};
    sigset_t old;
    rf_lock(&old);
    int rc = -1;
    int fd = open_locked();
    if (rf.ended) {
        /* nothing follows END (names a late CUPTI buffer brought, ...) */
        cuprof_debug(CUPROF_DBG_COLLECTOR, "block %u after the end: not written", type);
    } else if (fd >= 0 && cuprof_flight_keeps(type) && !atomic_load(&rf.failed)) {
        cuprof_flight_put_locked(v, n, cuprof_clock_now());   /* the ring, not the file */
        rc = 0;
    } else if (fd >= 0 && (!atomic_load(&rf.failed) || rf.final)) {
        fd = usable_fd_locked(fd);
        if (fd >= 0) {
            int err = write_all(fd, v, n, rf.off, &old);
            if (err) {
                /* Whatever part of the block reached the file is cut off
                 * again, so the file stays whole up to its last block. */
                if (ftruncate(fd, (off_t)rf.off) != 0)
                    (void)0;   /* then the reader finds a torn last block */
                rf_fail("cannot write to", err);
            } else {
                rf.off += cuprof_rf_block_bytes(len);
                rf.ended = type == CUPROF_RF_END;
                rc = 0;
            }
        }
    }
    rf_unlock(&old);
    return rc;
}

int cuprof_runfile_put(uint32_t type, const void *p, size_t n)
{
    struct iovec v = {(void *)p, n};
    return cuprof_runfile_append(type, &v, 1);
}

int cuprof_runfile_write_chunk(uint32_t type, const cuprof_thread *t, const cuprof_chunk *c,
                               size_t used)
{
    cuprof_rf_chunk h = {.thread = t->index, .chunk_no = (uint32_t)t->written,
                         .anchor_stamp = c->anchor.stamp, .anchor_ns = c->anchor.ns};
    struct iovec v[2] = {{&h, sizeof h}, {(void *)c->data, used}};
    return cuprof_runfile_append(type, v, 2);
}

/* ---- the flight recorder's ring to the file ---------------------------------------- */

typedef struct {
    int fd;
    const sigset_t *old;
} ring_out;

static int ring_block_out(const void *block, size_t len, void *ctx)
{
    ring_out *o = ctx;
    struct iovec v = {(void *)block, len};
    int err = write_all(o->fd, &v, 1, rf.off, o->old);
    if (err) {
        if (ftruncate(o->fd, (off_t)rf.off) != 0)
            (void)0;
        rf_fail("cannot write to", err);
        return -1;
    }
    rf.off += len;
    return 0;
}

int cuprof_runfile_flight_write(uint64_t from)
{
    sigset_t old;
    rf_lock(&old);
    int rc = -1;
    int fd = open_locked();
    if (fd >= 0 && !rf.ended && !atomic_load(&rf.failed) && (fd = usable_fd_locked(fd)) >= 0) {
        ring_out o = {fd, &old};
        rc = cuprof_flight_each_locked(from, ring_block_out, &o);
    }
    rf_unlock(&old);
    return rc;
}

void cuprof_runfile_flight_stats(cuprof_flight_stats *s)
{
    sigset_t old;
    rf_lock(&old);
    cuprof_flight_stats_locked(s);
    rf_unlock(&old);
}

/* Kernel names and NVTX strings interned since the last call, as
 * KERNEL_NAMES / STRINGS blocks of the new ids: a run killed before its
 * end still names its kernels and ranges. One writer at a time (a busy
 * one will have written them). */
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t names_kernels, names_strings;   /* ids written so far (names_lock) */

void cuprof_runfile_new_names(void)
{
    if (pthread_mutex_trylock(&names_lock) != 0)
        return;
    uint32_t nk = cuprof_kernel_count(), ns = cuprof_string_count();
    if (nk > names_kernels &&
        cuprof_runfile_names(CUPROF_RF_KERNEL_NAMES, names_kernels + 1, nk - names_kernels,
                             cuprof_kernel_raw_name) == 0)
        names_kernels = nk;
    if (ns > names_strings &&
        cuprof_runfile_names(CUPROF_RF_STRINGS, names_strings + 1, ns - names_strings,
                             cuprof_string_get) == 0)
        names_strings = ns;
    pthread_mutex_unlock(&names_lock);
}

int cuprof_runfile_write_records(uint32_t type, uint32_t thread, uint32_t chunk_no,
                                 uint32_t offset, cuprof_clock_anchor anchor, const void *data,
                                 size_t used)
{
    cuprof_rf_chunk h = {.thread = thread, .chunk_no = chunk_no, .anchor_stamp = anchor.stamp,
                         .anchor_ns = anchor.ns, .offset = offset};
    struct iovec v[2] = {{&h, sizeof h}, {(void *)data, used}};
    return cuprof_runfile_append(type, v, 2);
}

/* ---- the flusher ---------------------------------------------------------------
 *
 * "cuprof-flush", started at the first recorded call: opens the run file at
 * once (its first META describes the run), then every CUPROF_RF_FLUSH_MS
 * (0.1 s) writes, for each thread whose published calls changed, what is new
 * in the chunk it is filling (a TAIL block) and its count (THREAD), and the
 * names interned since: a process killed outright loses at most that long
 * of calls (and a second of GPU records: CUPTI's flush period). It
 * takes part in the exit path's quiesce (inflight), so nothing follows
 * the END block. Every signal blocked; restarted in a forked child. */
#define CUPROF_RF_FLUSH_MS 100
static _Atomic int flusher_started;
void (*cuprof_runfile_round_hook)(void);

/* Held by the flusher through each round's work (its naps and the wait for
 * a window's cuprof-report aside), and taken by the fork's prepare handler:
 * the program forks between two rounds, so no lock the round takes is left
 * held in the child for good. glibc's malloc takes its own locks around
 * fork, but the allocators of ASan and TSan (GCC 12's) and some malloc
 * replacements do not: a child forked while our flusher was in malloc
 * waited forever at its own first malloc (seen under TSan). The fork's wait
 * is bounded (CUPROF_FORK_ROUND_WAIT_MS): a round held up inside CUDA
 * (CUPTI's flush), or by a snapshot of a large run, delays the program's
 * fork at most that long, then the fork goes on as it did before. */
#define CUPROF_FORK_ROUND_WAIT_MS 1000
static pthread_mutex_t round_lock = PTHREAD_MUTEX_INITIALIZER;
/* This thread, forking, holds round_lock (per thread: two threads may fork at once). */
static __thread int round_held_by_fork;

/* A snapshot asked for (prof.sh snapshot: DIR/.cuprof-ctl.PID exists):
 * CUPTI's buffers and every thread's calls to the file now, then the file
 * renamed .cuprof-ack.PID with what the flush cost the program. */
static void answer_snapshot(const char *ctl)
{
    uint64_t t0 = cuprof_clock_now();
    uint64_t cupti_ns = cuprof_cupti_flush_now();
    if (cuprof_flight_on())   /* what the ring holds of the last seconds, then the tails */
        (void)cuprof_runfile_flight_write(t0 > cuprof_g_config.flight_ns ? t0 - cuprof_g_config.flight_ns : 0);
    cuprof_snapshot_flush();
    if (cuprof_flight_on())   /* a chunk that filled meanwhile (the tails are past it) */
        (void)cuprof_runfile_flight_write(t0 > cuprof_g_config.flight_ns ? t0 - cuprof_g_config.flight_ns : 0);
    cuprof_runfile_new_names();
    uint64_t ns = cuprof_clock_now() - t0;
    char ack[PATH_MAX + 64], line[128];
    snprintf(ack, sizeof ack, "%s/.cuprof-ack.%ld", cuprof_g_config.out_dir, (long)cuprof_g.pid);
    int fd = open(ctl, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        int n = snprintf(line, sizeof line, "flush_ns=%llu cupti_ns=%llu\n",
                         (unsigned long long)ns, (unsigned long long)cupti_ns);
        if (write(fd, line, (size_t)n) != n)
            (void)0;   /* the ack is the rename; its numbers are a courtesy */
        cuprof_libc_close(fd);
    }
    if (rename(ctl, ack) != 0)
        unlink(ctl);
}

/* A trigger asked for (prof.sh trigger: DIR/.cuprof-trigger.PID exists): its
 * request is read only from a regular file of our own user with no access
 * for others (mode 0600), never through a link; the answer (capture.c) is
 * written back and the file renamed .cuprof-tack.PID. */
static void answer_trigger(const char *req_path)
{
    char tack[PATH_MAX + 64], req[512] = "", answer[400];
    snprintf(tack, sizeof tack, "%s/.cuprof-tack.%ld", cuprof_g_config.out_dir, (long)cuprof_g.pid);
    int fd = open(req_path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            cuprof_libc_close(fd);
        unlink(req_path);   /* not a request we can read: gone */
        return;
    }
    if (st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
        snprintf(answer, sizeof answer, "refused: the request was not made by the user who started "
                 "the program, or others may read or write it (mode %03o)", (unsigned)(st.st_mode & 0777));
    } else {
        ssize_t n = pread(fd, req, sizeof req - 1, 0);
        req[n > 0 ? n : 0] = '\0';
        cuprof_capture_trigger(req, answer, sizeof answer);
    }
    if (ftruncate(fd, 0) == 0) {
        size_t len = strlen(answer);
        answer[len] = '\n';
        if (pwrite(fd, answer, len + 1, 0) != (ssize_t)(len + 1))
            (void)0;   /* the rename still says it was seen */
    }
    cuprof_libc_close(fd);
    if (rename(req_path, tack) != 0)
        unlink(req_path);
}

/* Windows written so far (NAME.wK.*), by the flusher; the end's META says
 * how many, so the report at exit writes the others. */
static _Atomic uint64_t windows_written;

uint64_t cuprof_runfile_windows_written(void)
{
    return atomic_load(&windows_written);
}

/* Repeating capture windows that closed since the last round: what they
 * recorded to the file (CUPTI flushed, the threads' calls, the metadata
 * with the windows), then cuprof-report --window K for each, waited for on
 * this thread while the program runs on. */
static void write_closed_windows(uint64_t closed)
{
    uint64_t from = atomic_load(&windows_written);
    (void)cuprof_cupti_flush_now();
    if (cuprof_flight_on())   /* the flight recorder's windows: what the ring holds of them */
        (void)cuprof_runfile_flight_write(cuprof_capture_window_open(from + 1));
    cuprof_snapshot_flush();
    if (cuprof_flight_on())   /* a chunk that filled while the ring was written: before the tail */
        (void)cuprof_runfile_flight_write(cuprof_capture_window_open(from + 1));
    cuprof_runfile_new_names();
    cuprof_snapshot_write_meta_now(closed);
    atomic_store(&windows_written, closed);
    pthread_mutex_unlock(&round_lock);   /* a fork need not wait for the reports */
    for (uint64_t k = from + 1; k <= closed; k++)
        cuprof_spawn_report_window(rf.path, k);
    pthread_mutex_lock(&round_lock);
}

/* A META again when APIs were used for the first time since the last one
 * the flusher wrote: its API table names only the APIs used (snapshot.c),
 * and a process killed before its end is described by its last META. */
static void meta_if_new_apis(void)
{
    static uint64_t written;   /* the flusher's own */
    uint64_t n = atomic_load_explicit(&cuprof_api_used_count, memory_order_acquire);
    if (n != written && cuprof_snapshot_write_meta_now_rc(atomic_load(&windows_written)) == 0)
        written = n;
}

/* One round of the flusher (tick: the rounds so far, this one included);
 * the caller holds round_lock. */
static void flusher_round(unsigned tick)
{
    char ctl[PATH_MAX + 64];
    if (cuprof_runfile_round_hook)
        cuprof_runfile_round_hook();
    cuprof_shm_alive(cuprof_clock_now());   /* (the supervisor: when it was last seen) */
    snprintf(ctl, sizeof ctl, "%s/.cuprof-ctl.%ld", cuprof_g_config.out_dir, (long)cuprof_g.pid);
    int asked = access(ctl, F_OK) == 0;
    char trig[PATH_MAX + 64];   /* answered in every mode: a refusal says why */
    snprintf(trig, sizeof trig, "%s/.cuprof-trigger.%ld", cuprof_g_config.out_dir, (long)cuprof_g.pid);
    if (access(trig, F_OK) == 0)
        answer_trigger(trig);
    cuprof_job_poll();   /* prof.sh trigger --job: every process of the job */
    cuprof_capture_tick();
    char why[256];
    if (cuprof_flight_on() && cuprof_flight_take(why, sizeof why))
        (void)cuprof_capture_flight_window(why);
    uint64_t closed = cuprof_capture_closed();
    if (closed > atomic_load(&windows_written)) {
        atomic_fetch_add(&rf.inflight, 1);
        int on = atomic_load(&cuprof_g.recording) && !atomic_load(&rf.failed);
        atomic_fetch_sub(&rf.inflight, 1);
        if (on)
            write_closed_windows(closed);
    }
    if (tick % 10 == 0) {   /* a second: the GPU records completed by now */
        atomic_fetch_add(&rf.inflight, 1);
        if (atomic_load(&cuprof_g.recording) && !atomic_load(&rf.failed))
            cuprof_cupti_flush_completed();
        atomic_fetch_sub(&rf.inflight, 1);
    }
    if (!asked && tick % (CUPROF_RF_FLUSH_MS / 100) != 0)
        return;
    atomic_fetch_add(&rf.inflight, 1);
    if (atomic_load(&cuprof_g.recording) && !atomic_load(&rf.failed)) {
        if (asked) {
            answer_snapshot(ctl);
        } else if (!cuprof_flight_on()) {   /* flight: the calls stay in memory */
            cuprof_snapshot_flush();
            cuprof_runfile_new_names();
        } else {
            cuprof_runfile_new_names();
        }
        meta_if_new_apis();
        cuprof_memheld_flush();
    }
    atomic_fetch_sub(&rf.inflight, 1);
    cuprof_process_fds_cloexec();   /* a program that cleared it on every descriptor */
}

static void *flusher_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&round_lock);   /* the first round: the file opened, its first META */
    prctl(PR_SET_NAME, "cuprof-flush", 0, 0, 0);
    if (cuprof_runfile_round_hook)
        cuprof_runfile_round_hook();
    (void)cuprof_runfile_ensure();
    atomic_fetch_sub(&rf.inflight, 1);   /* taken by cuprof_runfile_flusher_start */
    pthread_mutex_unlock(&round_lock);
    for (unsigned tick = 1;; tick++) {
        struct timespec nap = {0, 100 * 1000000L};   /* calls, and a snapshot's request: 0.1 s */
        nanosleep(&nap, NULL);
        pthread_mutex_lock(&round_lock);
        flusher_round(tick);
        pthread_mutex_unlock(&round_lock);
    }
    return NULL;
}

void cuprof_runfile_fork_prepare(void)
{
    /* trylock and naps, not a timed lock: bounded on the monotonic clock,
     * and seen by the sanitizers' interceptors */
    struct timespec nap = {0, 200 * 1000L};
    int e = errno;   /* a fork that succeeds leaves the program's errno alone */
    round_held_by_fork = 0;
    for (int i = 0; i < CUPROF_FORK_ROUND_WAIT_MS * 5 && !round_held_by_fork; i++) {
        round_held_by_fork = pthread_mutex_trylock(&round_lock) == 0;
        if (!round_held_by_fork)
            nanosleep(&nap, NULL);
    }
    errno = e;
}

void cuprof_runfile_fork_done(int child)
{
    if (child)   /* only the forking thread exists there: a fresh lock */
        pthread_mutex_init(&round_lock, NULL);
    else if (round_held_by_fork)
        pthread_mutex_unlock(&round_lock);
    round_held_by_fork = 0;
}

void cuprof_runfile_flusher_start(void)
{
    if (atomic_exchange(&flusher_started, 1))
        return;
    pthread_attr_t attr;
    sigset_t all, old;
    pthread_t th;
    if (pthread_attr_init(&attr) != 0)
        return;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    /* The default stack size, not a small fixed one: glibc takes every loaded
     * library's TLS out of a new thread's stack (libcublasLt's 94 KiB and a
     * real libcuda's left 128 KiB too little: SIGSEGV on an H200). */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    /* The flusher's first act (the file opened, its first META) counts in
     * the exit path's quiesce from now: an exit right after the first call
     * waits for it, so no META follows END. */
    atomic_fetch_add(&rf.inflight, 1);
    if (pthread_create(&th, &attr, flusher_main, NULL) != 0) {
        atomic_fetch_sub(&rf.inflight, 1);
        cuprof_debug(CUPROF_DBG_COLLECTOR, "no flusher thread: the run file grows by chunks only");
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
}

int cuprof_runfile_chunk_full(cuprof_thread *t)
{
    int rc = -1;
    /* Dekker with the exit path: it clears recording, then waits for
     * inflight to drain; we count ourselves in, then look at recording. */
    atomic_fetch_add(&rf.inflight, 1);
    if (atomic_load(&cuprof_g.recording) && !atomic_load(&rf.failed)) {
        cuprof_chunk *c = t->tail;
        cuprof_runfile_new_names();
        rc = cuprof_runfile_write_chunk(CUPROF_RF_CHUNK, t, c, (size_t)(t->wp - c->data));
        if (rc == 0)
            atomic_fetch_add(&rf.chunks, 1);
    }
    atomic_fetch_sub(&rf.inflight, 1);
    return rc;
}

int cuprof_runfile_hold(void)
{
    atomic_fetch_add(&rf.inflight, 1);   /* Dekker with the exit path, as chunk_full */
    if (atomic_load(&cuprof_g.recording) == CUPROF_REC_ON)
        return 1;
    atomic_fetch_sub(&rf.inflight, 1);
    return 0;
}

void cuprof_runfile_release(void)
{
    atomic_fetch_sub(&rf.inflight, 1);
}

void cuprof_runfile_quiesce(void)
{
    /* Writes that passed their recording check finish in microseconds (one
     * 64 KiB write); bounded anyway: a write stuck on a full NFS must not
     * hang the exit. */
    for (int i = 0; i < 20000 && atomic_load(&rf.inflight) > 0; i++)
        usleep(100);
}

const char *cuprof_runfile_failure(void)
{
    if (!atomic_load(&rf.failed))
        return NULL;
    return atomic_load_explicit(&rf.why_ready, memory_order_acquire) ? rf.why
                                                                      : "the run file cannot be written";
}

uint64_t cuprof_runfile_chunks(void)
{
    return atomic_load(&rf.chunks);
}

void cuprof_runfile_resume(void)
{
    sigset_t old;
    rf_lock(&old);
    rf.ended = 0;
    rf.final = 0;
    rf_unlock(&old);
}

void cuprof_runfile_final(void)
{
    sigset_t old;
    rf_lock(&old);
    rf.final = 1;
    rf_unlock(&old);
}

int cuprof_runfile_ensure(void)
{
    sigset_t old;
    rf_lock(&old);
    int opened = !rf.created;
    int fd = open_locked();
    opened &= fd >= 0;
    rf_unlock(&old);
    /* The run's metadata as known now, first of all (a run killed before
     * its end is still described: program, clock, API table, settings). */
    if (opened)
        cuprof_snapshot_write_start();
    return fd >= 0 ? 0 : -1;
}

/* ---- the program's descriptor calls (preload/hooks_libc.c) ------------------------- */

void cuprof_fd_begin(cuprof_fd_call *c, unsigned lo, unsigned hi)
{
    c->counted = 1;
    c->locked = 0;
    c->fd = -1;
    atomic_fetch_add(&fd_closers, 1);
    int fd = __atomic_load_n(&rf.fd, __ATOMIC_SEQ_CST);
    if (!atomic_load(&fd_busy) && !(fd >= 0 && (unsigned)fd >= lo && (unsigned)fd <= hi))
        return;   /* not ours, and we are not opening: the call runs as it is */
    atomic_fetch_sub(&fd_closers, 1);
    c->counted = 0;
    if (cuprof_process_is_vfork_child())
        return;   /* its descriptors are its own copy; our state is the parent's */
    int e = errno;
    rf_lock(&c->old);
    c->locked = 1;
    fd = rf.fd;
    if (fd >= 0 && (unsigned)fd >= lo && (unsigned)fd <= hi) {
        c->fd = fd;   /* the program's now; taken back in cuprof_fd_end if still ours */
        __atomic_store_n(&rf.fd, -1, __ATOMIC_RELAXED);
    } else {
        /* it only waited for our opening to end, and does not touch the new
         * number: counted as running (an opening after this waits for it),
         * it runs without the lock (a close that lingers must not hold it) */
        atomic_fetch_add(&fd_closers, 1);
        c->counted = 1;
        c->locked = 0;
        rf_unlock(&c->old);
    }
    errno = e;
}

void cuprof_fd_end(cuprof_fd_call *c)
{
    int e = errno;
    if (c->counted)
        atomic_fetch_sub(&fd_closers, 1);
    if (c->locked) {
        /* the call failed, or left the descriptor open (CLOSE_RANGE_CLOEXEC) */
        if (c->fd >= 0 && rf.fd < 0 && fd_is_ours(c->fd))
            __atomic_store_n(&rf.fd, c->fd, __ATOMIC_RELAXED);
        rf_unlock(&c->old);
    }
    errno = e;
}

void cuprof_process_fds_cloexec(void)
{
    int e = errno;
    if (cuprof_process_is_vfork_child()) {   /* its own table: no lock, no state */
        int fd = __atomic_load_n(&rf.fd, __ATOMIC_RELAXED);
        if (fd >= 0 && fd_is_ours(fd))
            fcntl(fd, F_SETFD, FD_CLOEXEC);
        errno = e;
        return;
    }
    sigset_t old;
    rf_lock(&old);
    if (rf.fd >= 0 && fd_is_ours(rf.fd)) {
        int fl = fcntl(rf.fd, F_GETFD);
        if (fl >= 0 && !(fl & FD_CLOEXEC))
            fcntl(rf.fd, F_SETFD, fl | FD_CLOEXEC);
    }
    rf_unlock(&old);
    errno = e;
}

uint64_t cuprof_runfile_reopened(void)
{
    return rf.reopened;
}

const char *cuprof_runfile_path(void)
{
    return rf.path;
}

int cuprof_runfile_rename(const char *to)
{
    sigset_t old;
    rf_lock(&old);
    int rc = -1;
    struct stat st;   /* the file at our path is ours (a program may have put another there) */
    if (rf.created && rf.path[0] && lstat(rf.path, &st) == 0 && st.st_dev == rf.dev &&
        st.st_ino == rf.ino) {
        if (strcmp(rf.path, to) == 0 || rename(rf.path, to) == 0) {
            snprintf(rf.path, sizeof rf.path, "%s", to);
            rc = 0;
        }
    }
    rf_unlock(&old);
    return rc;
}

void cuprof_runfile_forget(int remove)
{
    sigset_t old;
    rf_lock(&old);
    if (rf.created) {
        if (rf.fd >= 0 && fd_is_ours(rf.fd))
            sys_close(rf.fd);
        if (remove && rf.path[0])
            unlink(rf.path);
    }
    __atomic_store_n(&rf.fd, -1, __ATOMIC_RELAXED);
    rf.path[0] = '\0';
    rf.off = 0;
    rf.ended = 0;
    rf.created = 0;
    rf_unlock(&old);
}

void cuprof_runfile_reset_after_fork(void)
{
    /* The parent's file is the parent's: the child writes its own. The
     * number is closed only if it is still the file (the parent may have
     * put one of its own files there). */
    if (rf.fd >= 0 && fd_is_ours(rf.fd))
        sys_close(rf.fd);
    pthread_mutex_init(&rf.lock, NULL);
    rf.created = 0;
    rf.reopened = 0;
    atomic_store(&fd_busy, 0);
    atomic_store(&fd_closers, 0);
    __atomic_store_n(&rf.fd, -1, __ATOMIC_RELAXED);
    rf.off = 0;
    rf.final = 0;
    rf.ended = 0;
    rf.path[0] = rf.why[0] = '\0';
    atomic_store(&rf.failed, 0);
    atomic_store(&rf.why_ready, 0);
    atomic_store(&rf.inflight, 0);
    pthread_mutex_init(&names_lock, NULL);
    names_kernels = names_strings = 0;   /* the child's file has none yet */
    atomic_store(&flusher_started, 0);   /* the parent's flusher did not survive the fork */
    atomic_store(&windows_written, 0);
    atomic_store(&rf.chunks, 0);
}

/* ---- tagged fields (META, GPU_INFO, STACKS) --------------------------------- */

void cuprof_tags_raw(cuprof_tags *b, uint16_t tag, const void *p, size_t n)
{
    if (b->failed)
        return;
    size_t need = b->len + 8 + n;
    if (need > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < need)
            cap *= 2;
        uint8_t *q = realloc(b->p, cap);
        if (!q) {
            b->failed = 1;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    uint32_t hdr[2] = {tag, (uint32_t)n};
    memcpy(b->p + b->len, hdr, 8);
    if (n)
        memcpy(b->p + b->len + 8, p, n);
    b->len = need;
}

void cuprof_tags_u64(cuprof_tags *b, uint16_t tag, uint64_t v)
{
    cuprof_tags_raw(b, tag, &v, sizeof v);
}

void cuprof_tags_str(cuprof_tags *b, uint16_t tag, const char *s)
{
    if (s)
        cuprof_tags_raw(b, tag, s, strlen(s));
}

int cuprof_tags_write(cuprof_tags *b, uint32_t type)
{
    int rc = b->failed ? -1 : cuprof_runfile_put(type, b->p, b->len);
    free(b->p);
    memset(b, 0, sizeof *b);
    return rc;
}

/* ---- name tables ------------------------------------------------------------- */

int cuprof_runfile_names(uint32_t type, uint32_t first, uint32_t count,
                         const char *(*get)(uint32_t id))
{
    uint32_t head[2] = {first, count};
    size_t len = sizeof head;
    for (uint32_t i = 0; i < count; i++) {
        const char *s = get(first + i);
        len += 4 + (s ? strlen(s) : 0);
    }
    uint8_t *p = malloc(len ? len : 1);
    if (!p)
        return -1;
    memcpy(p, head, sizeof head);
    size_t at = sizeof head;
    for (uint32_t i = 0; i < count; i++) {
        const char *s = get(first + i);
        uint32_t n = s ? (uint32_t)strlen(s) : 0;
        memcpy(p + at, &n, 4);
        if (n)
            memcpy(p + at + 4, s, n);
        at += 4 + n;
    }
    int rc = cuprof_runfile_put(type, p, len);
    free(p);
    return rc;
}
