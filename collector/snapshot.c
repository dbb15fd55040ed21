/*
 * snapshot.c - the live collector turned into the model's input at exit
 * (see snapshot.h), and the demangler the model is given.
 */
#include "collector/snapshot.h"
#include "collector/place.h"
#include "collector/clock.h"
#include "collector/config.h"
#include "collector/internal.h"
#include "collector/log.h"
#include "collector/stacks.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The run and everything it owns; pub first so a cuprof_run * is one. */
typedef struct run_priv {
    cuprof_run pub;
    char *cmdline;                /* /proc/self/cmdline, NUL-separated */
    const char **argv;            /* pointers into cmdline */
    char exe[4096];
    cuprof_run_thread *threads;
    const cuprof_event **chunk_ptrs; /* [nthreads]: each thread's one block in arena */
    void *arena;                  /* the decoded events, all threads (mmap) */
    size_t arena_len;
    const char **knames;          /* [0..nkernels], raw names ([0] NULL) */
    const char **strs;            /* [0..nstrings], NVTX strings ([0] NULL) */
    char gpu_reason[512];
    uint64_t *dropped_by_api;     /* [napis] */
    void *stacks;                 /* the resolved stacks (stacks.h) */
} run_priv;

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
    close(fd);
    if (buf)
        buf[n] = '\0';
    *len = n;
    return buf;
}

/* Fills program/argv from /proc/self/cmdline (or the name glibc keeps). */
static int load_cmdline(run_priv *r)
{
    size_t len = 0;
    r->cmdline = read_proc("/proc/self/cmdline", &len);
    int count = 0;
    for (size_t i = 0; r->cmdline && i < len; i++)
        count += r->cmdline[i] == '\0';
    if (r->cmdline && len > 0 && r->cmdline[len - 1] != '\0')
        count++;   /* last argument without its NUL (cmdline cut short) */
    r->argv = calloc((size_t)count + 1, sizeof *r->argv);
    if (!r->argv)
        return -1;
    int k = 0;
    for (size_t i = 0; r->cmdline && i < len && k < count; i += strlen(r->cmdline + i) + 1)
        r->argv[k++] = r->cmdline + i;
    r->pub.program = k > 0 ? r->argv[0] : program_invocation_name;
    r->pub.argc = k > 0 ? k - 1 : 0;
    r->pub.argv = k > 0 ? r->argv + 1 : r->argv;
    ssize_t n = readlink("/proc/self/exe", r->exe, sizeof r->exe - 1);
    r->exe[n > 0 ? n : 0] = '\0';
    r->pub.exe = r->exe;
    return 0;
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
    close(fd);
    if (n <= 0)
        return;
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    buf[15] = '\0';
    memcpy(name, buf, 16);
}

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

/* __cxa_demangle from libstdc++ (loaded now, at exit only), or NULL. The C
 * library may not link libstdc++; a C++ program already has it loaded. */
static cxa_demangle_fn find_demangler(void)
{
    void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
    if (!h) {
        cuprof_debug(CUPROF_DBG_COLLECTOR, "no libstdc++: kernel names stay mangled");
        return NULL;
    }
    return (cxa_demangle_fn)(uintptr_t)dlsym(h, "__cxa_demangle");
}

char *cuprof_snapshot_demangle(const char *name)
{
    static cxa_demangle_fn fn;
    static int looked;
    if (!name || strncmp(name, "_Z", 2) != 0)
        return NULL;
    if (!looked) {
        fn = find_demangler();
        looked = 1;
    }
    if (!fn)
        return NULL;
    int status = -1;
    char *d = fn(name, NULL, NULL, &status);
    if (d && status == 0)
        return d;
    free(d);
    return NULL;
}

/* Kernel names as registered (the model demangles the ones it shows). */
static int load_kernel_names(run_priv *r)
{
    uint32_t nk = cuprof_kernel_count();
    r->knames = calloc((size_t)nk + 1, sizeof *r->knames);
    if (!r->knames)
        return -1;
    for (uint32_t id = 1; id <= nk; id++)
        r->knames[id] = cuprof_kernel_raw_name(id);
    r->pub.nkernels = nk;
    r->pub.kernel_names = r->knames;
    return 0;
}

/* NVTX names and domains (collector/strings.c). */
static int load_strings(run_priv *r)
{
    uint32_t n = cuprof_string_count();
    r->strs = calloc((size_t)n + 1, sizeof *r->strs);
    if (!r->strs)
        return -1;
    for (uint32_t id = 1; id <= n; id++)
        r->strs[id] = cuprof_string_get(id);
    r->pub.nstrings = n;
    r->pub.strings = r->strs;
    return 0;
}

/* Memory for n decoded events: anonymous up to the memory limit's worth
 * (CUPROF_MEM_LIMIT), else a file in the output directory, unlinked at
 * once (page cache the kernel can write back, as the spill file was), so
 * that a run whose records went past the limit does not need all of its
 * decoded events in anonymous memory at exit. NULL (reported) on failure. */
static void *arena_map(size_t bytes)
{
    void *m = MAP_FAILED;
    if (bytes > cuprof_g_config.mem_limit) {
        int fd = open(cuprof_g_config.out_dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (fd >= 0) {
            if (ftruncate(fd, (off_t)bytes) == 0)
                m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            close(fd);
        }
    }
    if (m == MAP_FAILED)
        m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        cuprof_log("cannot get %zu bytes to read the events back (%s): the profile has none",
                   bytes, strerror(errno));
        return NULL;
    }
    return m;
}

/* Decodes the first `want` records of t (its spilled chunks, sp[0..ns),
 * then its chain in memory) into out[seq], stamps turned into ns (clock.h)
 * by the line from each chunk's anchor to the next one's. Returns the
 * number placed; *bytes gets the compact bytes they took, *from_spill the
 * records read from the spill file. */
static uint64_t decode_thread(cuprof_thread *t, uint64_t want, const cuprof_chunk *const *sp,
                              size_t ns, cuprof_event *out, cuprof_clock_anchor end,
                              uint64_t *bytes, uint64_t *from_spill)
{
    cuprof_codec codec;
    memset(&codec, 0, sizeof codec);
    cuprof_clock_line whole = cuprof_clock_line_make(t->first, end);
    uint64_t got = 0, placed = 0;
    const cuprof_chunk *c = ns ? sp[0] : t->head;
    for (size_t j = 0; c && got < want;) {
        const cuprof_chunk *next =
            j + 1 < ns ? sp[j + 1]
                       : j + 1 == ns ? t->head
                                     : atomic_load_explicit(&((cuprof_chunk *)c)->next,
                                                            memory_order_acquire);
        cuprof_clock_anchor b = next ? next->anchor : end;
        cuprof_clock_line seg = cuprof_clock_line_make(c->anchor, b);
        const uint8_t *p = c->data, *e = c->data + CUPROF_CHUNK_DATA;
        cuprof_event ev;
        uint64_t seq;
        while (got < want && cuprof_decode(&p, e, &codec, &ev, &seq) == 0) {
            got++;
            if (seq >= want)
                continue;   /* cannot be: a damaged chunk */
            ev.t0 = cuprof_buffers_stamp_ns(&seg, &whole, b.stamp, ev.t0);
            ev.t1 = cuprof_buffers_stamp_ns(&seg, &whole, b.stamp, ev.t1);
            out[seq] = ev;
            placed++;
        }
        *bytes += (uint64_t)(p - c->data);
        if (j < ns)
            *from_spill = got;
        c = next;
        j++;
    }
    return placed;
}

/* Every listed thread's published events, decoded (compact.h). */
static int load_threads(run_priv *r)
{
    pthread_mutex_lock(&cuprof_g.lock);
    size_t nt = cuprof_g.nthreads;
    cuprof_thread **recs = calloc(nt ? nt : 1, sizeof *recs);
    size_t k = 0;
    for (cuprof_thread *t = cuprof_g.threads; recs && t && k < nt; t = t->next)
        recs[k++] = t;
    r->pub.apis = cuprof_g.apis;
    r->pub.napis = cuprof_g.napis;
    r->pub.gpu.captured = cuprof_g.gpu_captured;
    memcpy(r->gpu_reason, cuprof_g.gpu_reason, sizeof r->gpu_reason);
    pthread_mutex_unlock(&cuprof_g.lock);
    r->pub.gpu.reason = r->gpu_reason;
    if (!recs)
        return -1;
    /* The stamps' source was chosen by the threads that recorded; this
     * orders our read of it after that choice. */
    cuprof_clock_init(!cuprof_g_config.clock_monotonic);

    uint64_t *committed = calloc(k ? k : 1, sizeof *committed);
    uint64_t total = 0;
    for (size_t i = 0; committed && i < k; i++) {
        committed[i] = atomic_load_explicit(&recs[i]->committed, memory_order_acquire);
        total += committed[i];
    }
    r->threads = calloc(k ? k : 1, sizeof *r->threads);
    r->chunk_ptrs = calloc(k ? k : 1, sizeof *r->chunk_ptrs);
    if (!committed || !r->threads || !r->chunk_ptrs) {
        free(recs);
        free(committed);
        return -1;
    }
    cuprof_event *arena = NULL;
    if (total) {
        r->arena_len = (size_t)total * sizeof(cuprof_event);
        r->arena = arena = arena_map(r->arena_len);
        if (!arena)
            r->arena_len = 0;
    }
    cuprof_clock_anchor end = cuprof_clock_anchor_now();
    cuprof_event *out = arena;
    size_t nth = 0;
    for (size_t i = 0; i < k; i++) {
        cuprof_thread *t = recs[i];
        uint64_t dropped = atomic_load_explicit(&t->dropped, memory_order_relaxed);
        if (committed[i] == 0 && dropped == 0)
            continue;   /* only open calls so far: nothing to show */
        cuprof_run_thread *th = &r->threads[nth];
        th->index = t->index;
        th->tid = t->tid;
        memcpy(th->name, t->name, sizeof th->name);
        thread_name(t->tid, th->name);
        th->dropped = dropped;
        th->per_chunk = committed[i] ? committed[i] : 1;
        th->chunks = &r->chunk_ptrs[nth];
        r->chunk_ptrs[nth] = out;
        nth++;
        if (!out || committed[i] == 0)
            continue;
        /* The oldest records first: the chunks spilled to the file
         * (spill.c), then the chain in memory. */
        const cuprof_chunk **sp = NULL;
        size_t ns = 0;
        if (t->spilled) {
            sp = calloc((size_t)t->spilled, sizeof *sp);
            ns = sp ? cuprof_spill_chunks(t, sp, (size_t)t->spilled) : 0;
        }
        if (ns != t->spilled) {
            free(sp);
            continue;   /* the spill file could not be read back (reported): the
                           thread's records cannot be decoded (each follows the last) */
        }
        uint64_t from_spill = 0;
        uint64_t placed = decode_thread(t, committed[i], sp, ns, out, end, &r->pub.event_bytes,
                                        &from_spill);
        free(sp);
        if (placed != committed[i])
            cuprof_debug(CUPROF_DBG_COLLECTOR, "thread %u: %llu of %llu events decoded", t->index,
                         (unsigned long long)placed, (unsigned long long)committed[i]);
        th->n = committed[i];
        r->pub.spilled_events += from_spill;
        out += committed[i];
        r->pub.nevents += th->n;
    }
    /* Drops by API (the table counts them); their sum is the run's. */
    r->dropped_by_api = calloc(r->pub.napis ? r->pub.napis : 1, sizeof *r->dropped_by_api);
    for (size_t a = 0; r->dropped_by_api && a < r->pub.napis && a < CUPROF_MAX_APIS; a++) {
        r->dropped_by_api[a] = atomic_load_explicit(&cuprof_dropped_api[a], memory_order_relaxed);
        r->pub.dropped += r->dropped_by_api[a];
    }
    r->pub.dropped_by_api = r->pub.dropped ? r->dropped_by_api : NULL;
    r->pub.spill_failure = cuprof_spill_failure();
    r->pub.threads = r->threads;
    r->pub.nthreads = nth;
    free(recs);
    free(committed);
    return 0;
}

cuprof_run *cuprof_snapshot_build(void)
{
    run_priv *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->pub.t_end = cuprof_clock_now();
    r->pub.t_start = cuprof_g.t_start ? cuprof_g.t_start : r->pub.t_end;
    r->pub.wall_ns = r->pub.t_end - r->pub.t_start;
    cuprof_capture_snapshot(&r->pub.capture, r->pub.t_end);
    const cuprof_config *cfg = &cuprof_g_config;
    if (cfg->step_name[0]) {
        r->pub.step_range = cfg->step_name;
        r->pub.step_domain = cfg->step_domain;
        r->pub.step_range_from = "--step-range";
    } else if (cfg->capture == CUPROF_CAPTURE_NVTX) {
        r->pub.step_range = cfg->capture_name;
        r->pub.step_domain = cfg->capture_domain;
        r->pub.step_range_from = "the capture range";
    }
    r->pub.pid = cuprof_g.pid ? cuprof_g.pid : (long)getpid();
    r->pub.clock = CUPROF_CLOCK_NAME;
    cuprof_place_snapshot(&r->pub.place);
    r->pub.hook_ns = cuprof_g.hook_ns;
    r->pub.version = CUPROF_VERSION;
    if (load_cmdline(r) < 0 || load_threads(r) < 0 || load_kernel_names(r) < 0 ||
        load_strings(r) < 0) {
        cuprof_snapshot_destroy(&r->pub);
        return NULL;
    }
    r->pub.trace_format = cfg->trace_format;
    r->pub.trace_compress = cfg->trace_compress;
    r->pub.trace_gzip = cfg->trace_gzip;
    r->pub.export_sqlite = cfg->export_sqlite;
    if (cuprof_stacks_mode) {
        static const char *const modes[] = {"off", "auto", "fp", "unwind"};
        r->pub.stacks_mode = modes[cuprof_stacks_mode & 3];
        r->pub.stacks_counts = cfg->stacks_counts;
        r->stacks = cuprof_stacks_run_fill(&r->pub);
    }
    return &r->pub;
}

void cuprof_snapshot_destroy(cuprof_run *run)
{
    run_priv *r = (run_priv *)run;
    if (!r)
        return;
    cuprof_stacks_run_free(r->stacks);
    free(r->knames);
    free(r->strs);
    free(r->chunk_ptrs);
    if (r->arena)
        munmap(r->arena, r->arena_len);
    free(r->dropped_by_api);
    free(r->threads);
    free(r->argv);
    free(r->cmdline);
    free(r);
}

void cuprof_gpu_timeline_set(int captured, const char *reason)
{
    pthread_mutex_lock(&cuprof_g.lock);
    cuprof_g.gpu_captured = captured;
    snprintf(cuprof_g.gpu_reason, sizeof cuprof_g.gpu_reason, "%s", reason ? reason : "");
    pthread_mutex_unlock(&cuprof_g.lock);
}
