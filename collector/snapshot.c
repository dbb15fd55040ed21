/*
 * snapshot.c - the live collector's state written to the run file
 * (runfile.h): each thread's chunk being filled and its published count,
 * the kernel-name and NVTX string tables, the resolved host stacks, and
 * the run's metadata. The exit path calls it once the calls have stopped
 * (see snapshot.h); everything else went to the file while the program ran.
 */
#include "collector/snapshot.h"
#include "collector/libc.h"
#include "collector/place.h"
#include "collector/clock.h"
#include "collector/compact.h"
#include "collector/config.h"
#include "collector/cupti.h"
#include "collector/internal.h"
#include "collector/log.h"
#include "collector/runfile.h"
#include "collector/stacks.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Whole small /proc file into a malloc'd buffer; *len gets the size. */
static char *read_proc(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
        if (n == cap) {
            char *b = realloc(buf, cap * 2 + 1);
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
    }
    cuprof_libc_close(fd);
    if (buf)
        buf[n] = '\0';
    *len = n;
    return buf;
}

/* Current name of thread tid if it is still alive, else keep what we have. */
static void thread_name(uint32_t tid, char name[16])
{
    char path[64], buf[32];
    snprintf(path, sizeof path, "/proc/self/task/%u/comm", tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    cuprof_libc_close(fd);
    if (n <= 0)
        return;
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    buf[15] = '\0';
    memcpy(name, buf, 16);
}

/* The records of a chunk the run file could not take, counted per API as
 * calls not recorded (the table's counts stay exact). */
static void count_lost(const uint8_t *data, size_t used)
{
    cuprof_codec codec;
    memset(&codec, 0, sizeof codec);
    const uint8_t *p = data, *e = data + used;
    cuprof_event ev;
    uint64_t seq;
    while (cuprof_decode(&p, e, &codec, &ev, &seq) == 0)
        if (ev.api < CUPROF_MAX_APIS)
            atomic_fetch_add_explicit(&cuprof_dropped_api[ev.api], 1, memory_order_relaxed);
}

/* The walks over the thread records that use them outside cuprof_g.lock
 * (the flusher's round, the end's write_threads) against a thread's end
 * (cuprof_snapshot_thread_end): a record leaves the list under this lock
 * and cuprof_g.lock, and is freed after, so no walk ever holds a freed one.
 * Order: walk_lock, then the run file's lock or cuprof_g.lock. */
static pthread_mutex_t walk_lock = PTHREAD_MUTEX_INITIALIZER;
/* Published calls of the records given back at their thread's end. */
static _Atomic uint64_t ended_calls;

/* The listed threads, malloc'd (*k of them); NULL without memory. */
static cuprof_thread **list_threads(size_t *k)
{
    pthread_mutex_lock(&cuprof_g.lock);
    size_t nt = 0;
    for (cuprof_thread *t = cuprof_g.threads; t; t = t->next)
        nt++;   /* (nthreads numbers them: records given back are no longer listed) */
    cuprof_thread **recs = calloc(nt ? nt : 1, sizeof *recs);
    *k = 0;
    for (cuprof_thread *t = cuprof_g.threads; recs && t && *k < nt; t = t->next)
        recs[(*k)++] = t;
    pthread_mutex_unlock(&cuprof_g.lock);
    return recs;
}

/* t's THREAD block: its identity and committed published calls. */
static cuprof_rf_thread thread_block(const cuprof_thread *t, uint64_t committed)
{
    cuprof_rf_thread th = {.index = t->index, .tid = t->tid,
                           .first_stamp = t->first.stamp, .first_ns = t->first.ns,
                           .committed = committed,
                           .dropped = atomic_load_explicit(&t->dropped, memory_order_relaxed)};
    memcpy(th.name, t->name, sizeof th.name);
    return th;
}

/* Copies n bytes of a chunk the thread that owns it may be writing: a
 * seqlock read (the caller keeps the copy only if the chunk's generation did
 * not change). The bytes before the published write pointer are whole; a
 * write after it (or into a chunk being emptied) may share their words, so
 * the copy is by volatile words, not memcpy, and is not instrumented for
 * ThreadSanitizer, which cannot tell a seqlock's discarded read from a race. */
__attribute__((no_sanitize_thread, noinline)) static void copy_live(uint8_t *dst, const uint8_t *src,
                                                                    size_t n)
{
    const volatile uint8_t *s = src;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        const volatile uint64_t *sw = (const volatile uint64_t *)(const volatile void *)(s + i);
        if (((uintptr_t)(s + i) & 7u) == 0) {
            w = *sw;
        } else {
            uint8_t b[8];
            for (int j = 0; j < 8; j++)
                b[j] = s[i + (size_t)j];
            memcpy(&w, b, 8);
        }
        memcpy(dst + i, &w, 8);
    }
    for (; i < n; i++)
        dst[i] = s[i];
}

void cuprof_snapshot_flush(void)
{
    size_t k = 0, wrote = 0;
    pthread_mutex_lock(&walk_lock);
    cuprof_thread **recs = list_threads(&k);
    uint8_t *buf = recs ? malloc(CUPROF_CHUNK_DATA) : NULL;
    for (size_t i = 0; buf && i < k; i++) {
        cuprof_thread *t = recs[i];
        uint64_t committed = atomic_load_explicit(&t->committed, memory_order_acquire);
        if (committed == t->flushed)
            continue;
        /* a copy of the live chunk, kept only if it was not emptied meanwhile */
        uint64_t g1 = atomic_load_explicit(&t->gen, memory_order_acquire);
        if (g1 & 1)
            continue;
        cuprof_chunk *c = t->tail;
        uint8_t *wp = __atomic_load_n(&t->wp, __ATOMIC_ACQUIRE);   /* records before it are whole */
        int inside = wp >= c->data && wp <= c->data + CUPROF_CHUNK_DATA;
        size_t used = inside ? (size_t)(wp - c->data) : 0;
        cuprof_clock_anchor anchor = c->anchor;
        uint32_t chunk_no = (uint32_t)__atomic_load_n(&t->written, __ATOMIC_RELAXED);
        /* only what is new since the last copy of this chunk */
        size_t from = chunk_no == t->flushed_no && t->flushed_bytes <= used ? t->flushed_bytes : 0;
        copy_live(buf, c->data + from, used - from);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&t->gen, memory_order_relaxed) != g1)
            continue;   /* emptied while copied: the next round */
        cuprof_rf_thread th = thread_block(t, committed);
        if (cuprof_runfile_write_records(CUPROF_RF_TAIL, t->index, chunk_no, (uint32_t)from,
                                         anchor, buf, used - from) == 0 &&
            cuprof_runfile_put(CUPROF_RF_THREAD, &th, sizeof th) == 0) {
            t->flushed = committed;
            t->flushed_no = chunk_no;
            t->flushed_bytes = used;
            wrote++;
        }
    }
    free(buf);
    free(recs);
    pthread_mutex_unlock(&walk_lock);
    if (wrote) {   /* the calls just written convert with an anchor taken after them */
        cuprof_clock_anchor a = cuprof_clock_anchor_now();
        cuprof_rf_clock c = {a.stamp, a.ns};
        (void)cuprof_runfile_put(CUPROF_RF_CLOCK, &c, sizeof c);
    }
}

/* Each listed thread: its chunk being filled (TAIL) and its identity and
 * published count (THREAD). Adds to *calls and *dropped. */
static int write_threads(uint64_t *calls, uint64_t *dropped)
{
    size_t k = 0;
    pthread_mutex_lock(&walk_lock);
    cuprof_thread **recs = list_threads(&k);
    if (!recs) {
        pthread_mutex_unlock(&walk_lock);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < k && rc == 0; i++) {
        cuprof_thread *t = recs[i];
        uint64_t committed = atomic_load_explicit(&t->committed, memory_order_acquire);
        uint64_t drop = atomic_load_explicit(&t->dropped, memory_order_relaxed);
        if (committed == 0 && drop == 0)
            continue;   /* only open calls so far: nothing to show */
        /* The records of the published calls are all before wp (written
         * before the release of committed, which we acquired). */
        cuprof_chunk *c = t->tail;
        uint8_t *wp = __atomic_load_n(&t->wp, __ATOMIC_RELAXED);
        int inside = wp >= c->data && wp <= c->data + CUPROF_CHUNK_DATA;
        size_t used = inside ? (size_t)(wp - c->data) : 0;
        if (cuprof_runfile_write_chunk(CUPROF_RF_TAIL, t, c, used) != 0)
            count_lost(c->data, used);   /* the file is full: its calls count as not recorded */
        cuprof_rf_thread th = thread_block(t, committed);
        thread_name(t->tid, th.name);
        rc |= cuprof_runfile_put(CUPROF_RF_THREAD, &th, sizeof th);
        *calls += committed;
        *dropped += drop;
    }
    free(recs);
    pthread_mutex_unlock(&walk_lock);
    *calls += atomic_load(&ended_calls);
    return rc;
}

int cuprof_snapshot_thread_end(cuprof_thread *t)
{
    if (!cuprof_runfile_hold())
        return -1;   /* the exit path writes it (or a window gates recording) */
    pthread_mutex_lock(&walk_lock);
    /* the owner calls: its count and write pointer are exact */
    uint64_t committed = atomic_load_explicit(&t->committed, memory_order_acquire);
    uint64_t drop = atomic_load_explicit(&t->dropped, memory_order_relaxed);
    if (committed || drop) {
        cuprof_chunk *c = t->tail;
        size_t used = (size_t)(t->wp - c->data);
        if (cuprof_runfile_write_chunk(CUPROF_RF_TAIL, t, c, used) != 0)
            count_lost(c->data, used);   /* the file is full: counted as not recorded */
        cuprof_rf_thread th = thread_block(t, committed);
        thread_name(t->tid, th.name);
        (void)cuprof_runfile_put(CUPROF_RF_THREAD, &th, sizeof th);
    }
    atomic_fetch_add(&ended_calls, committed);
    pthread_mutex_lock(&cuprof_g.lock);
    cuprof_thread **pp = &cuprof_g.threads, *prev = NULL;
    while (*pp && *pp != t) {
        prev = *pp;
        pp = &(*pp)->next;
    }
    if (*pp) {
        *pp = t->next;
        if (cuprof_g.threads_tail == &t->next)
            cuprof_g.threads_tail = prev ? &prev->next : &cuprof_g.threads;
    }
    pthread_mutex_unlock(&cuprof_g.lock);
    pthread_mutex_unlock(&walk_lock);
    cuprof_runfile_release();
    return 0;
}

void cuprof_snapshot_reset_after_fork(void)
{
    pthread_mutex_init(&walk_lock, NULL);
    atomic_store(&ended_calls, 0);
}

/* The host stacks, resolved (stacks_sym.c), as a STACKS block. */
static int write_stacks(void)
{
    cuprof_stacks_resolved tmp;
    memset(&tmp, 0, sizeof tmp);
    void *owned = cuprof_stacks_run_fill(&tmp);
    cuprof_tags b = {0};
    cuprof_tags_u64(&b, CUPROF_RT_STACK_LOST, tmp.stacks_lost);
    for (uint32_t f = 0; f < tmp.nframes; f++) {
        const cuprof_run_frame *fr = &tmp.frames[f];
        if (fr->python) {
            /* after every native one (stacks_sym.c sorts them last): a
             * reader that skips this tag cuts a stack at its first Python
             * frame, as a damaged index */
            uint32_t line = fr->line;
            uint32_t ql = fr->symbol ? (uint32_t)strlen(fr->symbol) : 0;
            uint32_t fl = fr->file ? (uint32_t)strlen(fr->file) : 0;
            size_t n = 8 + 4 + 4 + ql + 4 + fl;
            uint8_t *p = malloc(n);
            if (!p) {
                b.failed = 1;
                break;
            }
            memcpy(p, &fr->pc, 8);
            memcpy(p + 8, &line, 4);
            memcpy(p + 12, &ql, 4);
            memcpy(p + 16, fr->symbol ? fr->symbol : "", ql);
            memcpy(p + 16 + ql, &fl, 4);
            memcpy(p + 20 + ql, fr->file ? fr->file : "", fl);
            cuprof_tags_raw(&b, CUPROF_RT_STACK_PYFRAME, p, n);
            free(p);
            continue;
        }
        uint32_t ml = fr->module ? (uint32_t)strlen(fr->module) : 0;
        uint32_t sl = fr->symbol ? (uint32_t)strlen(fr->symbol) + 1 : 0;
        size_t n = 16 + 4 + ml + 4 + (sl ? sl - 1 : 0);
        uint8_t *p = malloc(n);
        if (!p) {
            b.failed = 1;
            break;
        }
        memcpy(p, &fr->pc, 8);
        memcpy(p + 8, &fr->offset, 8);
        memcpy(p + 16, &ml, 4);
        memcpy(p + 20, fr->module ? fr->module : "", ml);
        memcpy(p + 20 + ml, &sl, 4);
        if (sl)
            memcpy(p + 24 + ml, fr->symbol, sl - 1);
        cuprof_tags_raw(&b, CUPROF_RT_STACK_FRAME, p, n);
        free(p);
    }
    for (uint32_t m = 0; m < tmp.nmodules && !b.failed; m++) {
        const cuprof_run_module *rm = &tmp.modules[m];
        uint32_t pl = (uint32_t)strlen(rm->path);
        size_t n = 8 + 4 + pl + rm->build_id_len;
        uint8_t *p = malloc(n);
        if (!p) {
            b.failed = 1;
            break;
        }
        memcpy(p, &rm->base, 8);
        memcpy(p + 8, &pl, 4);
        memcpy(p + 12, rm->path, pl);
        if (rm->build_id_len)
            memcpy(p + 12 + pl, rm->build_id, rm->build_id_len);
        cuprof_tags_raw(&b, CUPROF_RT_STACK_MODULE, p, n);
        free(p);
    }
    for (uint32_t s = 1; s <= tmp.nstacks && tmp.stacks; s++)
        cuprof_tags_raw(&b, CUPROF_RT_STACK, tmp.stacks[s].frames,
                        (size_t)tmp.stacks[s].n * sizeof(uint32_t));
    int rc = cuprof_tags_write(&b, CUPROF_RF_STACKS);
    cuprof_stacks_run_free(owned);
    return rc;
}

/* program, argv and exe from /proc/self. */
static void put_cmdline(cuprof_tags *b)
{
    size_t len = 0;
    char *cmd = read_proc("/proc/self/cmdline", &len);
    if (cmd && len > 0) {
        size_t i = 0;
        cuprof_tags_str(b, CUPROF_RT_PROGRAM, cmd);
        for (i = strlen(cmd) + 1; i < len; i += strlen(cmd + i) + 1)
            cuprof_tags_str(b, CUPROF_RT_ARG, cmd + i);
    } else {
        cuprof_tags_str(b, CUPROF_RT_PROGRAM, program_invocation_name);
    }
    free(cmd);
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    cuprof_tags_str(b, CUPROF_RT_EXE, exe);
}

static void put_place(cuprof_tags *b)
{
    cuprof_place pl;
    cuprof_place_snapshot(&pl);
    cuprof_tags_str(b, CUPROF_RT_PL_LAUNCHER, pl.launcher);
    cuprof_tags_u64(b, CUPROF_RT_PL_RANK, (uint64_t)(int64_t)pl.rank);
    cuprof_tags_u64(b, CUPROF_RT_PL_WORLD, (uint64_t)(int64_t)pl.world_size);
    cuprof_tags_u64(b, CUPROF_RT_PL_LOCAL_RANK, (uint64_t)(int64_t)pl.local_rank);
    cuprof_tags_u64(b, CUPROF_RT_PL_LOCAL_SIZE, (uint64_t)(int64_t)pl.local_size);
    cuprof_tags_str(b, CUPROF_RT_PL_HOST, pl.host);
    cuprof_tags_str(b, CUPROF_RT_PL_BOOT_ID, pl.boot_id);
    cuprof_tags_str(b, CUPROF_RT_PL_VISIBLE, pl.visible_devices);
    cuprof_tags_u64(b, CUPROF_RT_PL_MONO_START, pl.mono_start);
    cuprof_tags_u64(b, CUPROF_RT_PL_REAL_START, pl.real_start);
    cuprof_tags_u64(b, CUPROF_RT_PL_MONO_END, pl.mono_end);
    cuprof_tags_u64(b, CUPROF_RT_PL_REAL_END, pl.real_end);
}

static void put_capture(cuprof_tags *b, uint64_t t_end)
{
    cuprof_capture cap;
    cuprof_capture_snapshot(&cap, t_end);
    if (!cap.trigger)
        return;
    cuprof_tags_str(b, CUPROF_RT_CAP_TRIGGER, cap.trigger);
    cuprof_tags_str(b, CUPROF_RT_CAP_SPEC, cap.spec);
    cuprof_tags_u64(b, CUPROF_RT_CAP_REPEAT, cap.repeat);
    cuprof_tags_u64(b, CUPROF_RT_CAP_SKIP, cap.skip_first);
    cuprof_tags_u64(b, CUPROF_RT_CAP_SEEN, cap.seen);
    cuprof_tags_u64(b, CUPROF_RT_CAP_OPENED, cap.opened);
    for (size_t w = 0; w < cap.nwindows; w++)
        cuprof_tags_raw(b, CUPROF_RT_CAP_WINDOW, cap.windows[w], 16);
    cuprof_tags_u64(b, CUPROF_RT_CAP_OPEN_AT_END, (uint64_t)cap.open_at_end);
    cuprof_tags_u64(b, CUPROF_RT_CAP_OUTSIDE, cap.outside_calls);
    for (size_t w = 0; w < cap.nwhy; w++)
        cuprof_tags_str(b, CUPROF_RT_CAP_WHY, cap.window_why[w] ? cap.window_why[w] : "");
    if (cap.flight_ns) {
        cuprof_tags_u64(b, CUPROF_RT_CAP_FLIGHT_NS, cap.flight_ns);
        cuprof_tags_u64(b, CUPROF_RT_CAP_FLIGHT_BYTES, cap.flight_bytes);
        cuprof_tags_u64(b, CUPROF_RT_CAP_FLIGHT_PEAK, cap.flight_peak_bytes);
        cuprof_tags_u64(b, CUPROF_RT_CAP_FLIGHT_EVICTED, cap.flight_evicted_until);
    }
}

/* Whether the run used API id a: a record written or an allocation in the
 * memory-held map (cuprof_api_used), or a call not recorded. */
static int api_used(size_t a)
{
    return a >= CUPROF_MAX_APIS ||
           (atomic_load_explicit(&cuprof_api_used[a >> 6], memory_order_relaxed) >> (a & 63) & 1) ||
           atomic_load_explicit(&cuprof_dropped_api[a], memory_order_relaxed) != 0;
}

/* The API table as one CUPROF_RT_API_TABLE tag (runfile.h: front-coded;
 * categories by index, at most 255 of them). An API the run did not use is
 * an empty entry (category 0, nothing shared, an empty name: 3 bytes), its
 * id kept: the table of some 2400 hooks names only the few dozen a run
 * calls. */
static void put_api_table(cuprof_tags *b, const cuprof_api_desc *apis, size_t napis)
{
    enum { MAX_CATS = 32 };
    const char *cats[MAX_CATS];
    size_t ncats = 0, len = 5;
    uint8_t *idx = malloc(napis ? napis : 1);
    if (!idx)
        return;
    for (size_t a = 0; a < napis; a++) {
        const char *c = apis[a].category ? apis[a].category : "", *n = apis[a].name ? apis[a].name : "";
        size_t k = 0;
        while (k < ncats && strcmp(cats[k], c))
            k++;
        if (k == ncats && ncats < MAX_CATS) {
            cats[ncats++] = c;
            len += strlen(c) + 1;
        }
        idx[a] = (uint8_t)(k < ncats ? k : 0);
        len += 2 + strlen(n) + 1;
    }
    uint8_t *p = malloc(len), *q = p;
    if (!p) {
        free(idx);
        return;
    }
    uint32_t count = (uint32_t)napis;
    memcpy(q, &count, 4);
    q += 4;
    *q++ = (uint8_t)ncats;
    for (size_t k = 0; k < ncats; k++) {
        size_t l = strlen(cats[k]) + 1;
        memcpy(q, cats[k], l);
        q += l;
    }
    const char *prev = "";
    for (size_t a = 0; a < napis; a++) {
        int used = api_used(a);
        const char *n = used && apis[a].name ? apis[a].name : "";
        size_t shared = 0;
        while (shared < 255 && prev[shared] && prev[shared] == n[shared])
            shared++;
        *q++ = used ? idx[a] : 0;
        *q++ = (uint8_t)shared;
        size_t l = strlen(n + shared) + 1;
        memcpy(q, n + shared, l);
        q += l;
        prev = n;
    }
    cuprof_tags_raw(b, CUPROF_RT_API_TABLE, p, (size_t)(q - p));
    free(p);
    free(idx);
}

/* The run's metadata as a META block. */
static int write_meta(const cuprof_snapshot_info *in, uint64_t t_end)
{
    const cuprof_config *cfg = &cuprof_g_config;
    cuprof_tags b = {0};
    put_cmdline(&b);
    cuprof_tags_u64(&b, CUPROF_RT_PID, (uint64_t)(cuprof_g.pid ? cuprof_g.pid : (long)getpid()));
    cuprof_tags_u64(&b, CUPROF_RT_T_START, cuprof_g.t_start ? cuprof_g.t_start : t_end);
    cuprof_tags_u64(&b, CUPROF_RT_T_END, t_end);
    uint64_t exit_ns = __atomic_load_n(&cuprof_g.exit_ns, __ATOMIC_RELAXED);
    if (exit_ns)
        cuprof_tags_u64(&b, CUPROF_RT_EXIT_NS, exit_ns);
    cuprof_tags_str(&b, CUPROF_RT_CLOCK, CUPROF_CLOCK_NAME);
    cuprof_tags_str(&b, CUPROF_RT_VERSION, CUPROF_VERSION);
    cuprof_tags_u64(&b, CUPROF_RT_TSC, (uint64_t)cuprof_clock_tsc);
    cuprof_clock_anchor end = cuprof_clock_anchor_now();
    cuprof_tags_u64(&b, CUPROF_RT_END_STAMP, end.stamp);
    cuprof_tags_u64(&b, CUPROF_RT_END_NS, end.ns);
    pthread_mutex_lock(&cuprof_g.lock);
    const cuprof_api_desc *apis = cuprof_g.apis;
    size_t napis = cuprof_g.napis;
    int gpu_captured = cuprof_g.gpu_captured;
    char reason[sizeof cuprof_g.gpu_reason];
    memcpy(reason, cuprof_g.gpu_reason, sizeof reason);
    pthread_mutex_unlock(&cuprof_g.lock);
    if (!gpu_captured) {
        /* decided at the end; while the process runs (a snapshot, a window
         * written as it closed), CUPTI recording now says it */
        uint64_t dropped = 0, apis_seen = 0;
        if (cuprof_cupti_captured(&dropped, &apis_seen))
            gpu_captured = 1, reason[0] = '\0';
    }
    put_api_table(&b, apis, napis);
    for (size_t a = 0; a < napis && a < CUPROF_MAX_APIS; a++) {
        uint64_t d = atomic_load_explicit(&cuprof_dropped_api[a], memory_order_relaxed);
        if (d) {
            uint64_t v[2] = {a, d};
            cuprof_tags_raw(&b, CUPROF_RT_DROPPED_API, v, sizeof v);
        }
    }
    cuprof_tags_str(&b, CUPROF_RT_RECORD_FAILURE, cuprof_runfile_failure());
    cuprof_tags_str(&b, CUPROF_RT_ENDED_BY, in->ended_by);
    /* a run file that stopped growing lost the calls after it (counted, not
     * recorded): truncated too, the failure saying why */
    cuprof_tags_u64(&b, CUPROF_RT_TRUNCATED,
                    (uint64_t)(in->truncated || cuprof_runfile_failure() != NULL));
    put_capture(&b, t_end);
    if (cfg->step_name[0]) {
        cuprof_tags_str(&b, CUPROF_RT_STEP_RANGE, cfg->step_name);
        cuprof_tags_str(&b, CUPROF_RT_STEP_DOMAIN, cfg->step_domain);
        cuprof_tags_str(&b, CUPROF_RT_STEP_FROM, "--step-range");
    } else if (cfg->capture == CUPROF_CAPTURE_NVTX) {
        cuprof_tags_str(&b, CUPROF_RT_STEP_RANGE, cfg->capture_name);
        cuprof_tags_str(&b, CUPROF_RT_STEP_DOMAIN, cfg->capture_domain);
        cuprof_tags_str(&b, CUPROF_RT_STEP_FROM, "the capture range");
    }
    if (cuprof_stacks_mode) {
        static const char *const modes[] = {"off", "auto", "fp", "unwind"};
        cuprof_tags_str(&b, CUPROF_RT_STACKS_MODE, modes[cuprof_stacks_mode & 3]);
        cuprof_tags_u64(&b, CUPROF_RT_STACKS_COUNTS, (uint64_t)cfg->stacks_counts);
    }
    cuprof_tags_u64(&b, CUPROF_RT_TRACE_FORMAT, (uint64_t)cfg->trace_format);
    cuprof_tags_u64(&b, CUPROF_RT_TRACE_COMPRESS, (uint64_t)cfg->trace_compress);
    cuprof_tags_u64(&b, CUPROF_RT_TRACE_GZIP, (uint64_t)cfg->trace_gzip);
    cuprof_tags_u64(&b, CUPROF_RT_EXPORT_SQLITE, (uint64_t)cfg->export_sqlite);
    cuprof_tags_u64(&b, CUPROF_RT_REPORT_HTML, (uint64_t)cfg->report_html);
    put_place(&b);
    /* set by the process's first call, which may still be timing it when the
     * flusher (started by another thread) writes the first META: 0 then */
    cuprof_tags_u64(&b, CUPROF_RT_HOOK_NS, __atomic_load_n(&cuprof_g.hook_ns, __ATOMIC_RELAXED));
    cuprof_tags_u64(&b, CUPROF_RT_GPU_CAPTURED, (uint64_t)gpu_captured);
    cuprof_tags_str(&b, CUPROF_RT_GPU_REASON, reason);
    cuprof_tags_str(&b, CUPROF_RT_NAME, in->name);
    cuprof_tags_u64(&b, CUPROF_RT_WINDOWS_WRITTEN,
                    in->windows_written ? in->windows_written : cuprof_runfile_windows_written());
    char base[320];
    cuprof_output_base(base, sizeof base);
    cuprof_tags_str(&b, CUPROF_RT_NAME_BASE, base);
    if (cfg->root_pid)
        cuprof_tags_u64(&b, CUPROF_RT_ROOT_PID, (uint64_t)cfg->root_pid);
    cuprof_tags_str(&b, CUPROF_RT_OUT_DIR, cfg->out_dir);
    cuprof_tags_u64(&b, CUPROF_RT_KEEP_RUN_FILE, (uint64_t)cfg->keep_run_file);
    return cuprof_tags_write(&b, CUPROF_RF_META);
}

int cuprof_snapshot_counts(uint64_t *calls, uint64_t *dropped)
{
    *calls = *dropped = 0;
    pthread_mutex_lock(&cuprof_g.lock);
    for (cuprof_thread *t = cuprof_g.threads; t; t = t->next)
        *calls += atomic_load_explicit(&t->committed, memory_order_acquire);
    pthread_mutex_unlock(&cuprof_g.lock);
    *calls += atomic_load(&ended_calls);
    for (size_t a = 0; a < CUPROF_MAX_APIS; a++)   /* every drop is counted by API */
        *dropped += atomic_load_explicit(&cuprof_dropped_api[a], memory_order_relaxed);
    return 0;
}

void cuprof_snapshot_write_meta_now(uint64_t windows_written)
{
    (void)cuprof_snapshot_write_meta_now_rc(windows_written);
}

int cuprof_snapshot_write_meta_now_rc(uint64_t windows_written)
{
    cuprof_snapshot_info in = {.windows_written = windows_written};
    return write_meta(&in, cuprof_clock_now());
}

void cuprof_snapshot_write_start(void)
{
    cuprof_snapshot_info in = {0};
    (void)write_meta(&in, cuprof_clock_now());
}

int cuprof_snapshot_write(const cuprof_snapshot_info *in)
{
    uint64_t t_end = cuprof_clock_now();
    cuprof_memheld_flush();   /* a window opened since the flusher's last round */
    uint64_t calls = 0, dropped = 0;
    /* Each block is tried even when one before it failed (a full disk
     * may still take the small ones): the reader makes the most of what
     * is there. The threads first: a chunk the file cannot take is then
     * counted in the metadata's drops. */
    int rc = write_threads(&calls, &dropped);
    rc |= cuprof_runfile_names(CUPROF_RF_KERNEL_NAMES, 1, cuprof_kernel_count(),
                               cuprof_kernel_raw_name);
    rc |= cuprof_runfile_names(CUPROF_RF_STRINGS, 1, cuprof_string_count(), cuprof_string_get);
    if (cuprof_stacks_mode)
        rc |= write_stacks();
    rc |= write_meta(in, t_end);
    if (rc == 0)
        rc = cuprof_runfile_put(CUPROF_RF_END, NULL, 0);
    return rc;
}
void cuprof_gpu_timeline_set(int captured, const char *reason)
{
    pthread_mutex_lock(&cuprof_g.lock);
    cuprof_g.gpu_captured = captured;
    snprintf(cuprof_g.gpu_reason, sizeof cuprof_g.gpu_reason, "%s", reason ? reason : "");
    pthread_mutex_unlock(&cuprof_g.lock);
}
