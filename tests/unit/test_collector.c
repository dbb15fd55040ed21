/*
 * test_collector.c - unit tests of collector/: per-thread buffers (many
 * chunks, many threads, nothing lost, order kept), event ids, the guard,
 * depth and self time, min/median/max, the kernel-name table (also under
 * concurrent registration), the memory limit, configuration parsing, and the
 * exit path (files written once, none for a process without CUDA calls, a
 * forked child with its own events and name).
 *
 * Check runs each test in its own process, so each starts with a fresh
 * collector; the fixture points the output at a temporary directory and
 * keeps the exit handler from writing anything when a test did not ask for it.
 */
#include "collector/snapshot.h"
#include "tests/unit/runfile_back.h"
#include "collector/place.h"
#include "tests/unit/test_model.h"
#include "collector/internal.h"
#include "collector/runfile.h"
#include "collector/shm.h"
#include "formats/runfile/runfile_read.h"
#include "tools/recover.h"
#include "model/run.h"

#include <check.h>
#include <errno.h>
#include <jansson.h>
#include <dirent.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const cuprof_api_desc APIS[] = {
    {"cudaA", "cuda_runtime"}, {"cudaB", "cuda_runtime"}, {"cudaC", "cuda_runtime"},
    {"cudaD", "cuda_runtime"}, {"cublasGemmEx", "cublas"}, {"cublasLtMatmul", "cublaslt"},
    {"cudaLaunchKernel", "cuda_runtime"}, {"cudaMemcpy", "cuda_runtime"},
};
#define NAPIS (sizeof APIS / sizeof APIS[0])
/* Enough API entries for 16 threads each using its own index. */
static cuprof_api_desc many_apis[32];

static char tmpdir[256];

static void setup(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cuprof-tc.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    setenv("CUPROF_OUT_DIR", tmpdir, 1);
    setenv("CUPROF_QUIET", "1", 1);
    /* the exit path's cuprof-report (this binary holds the collector: the
     * tool is not beside it) */
    static char report[4200];
    const char *b = getenv("CUPROF_BUILD");
    snprintf(report, sizeof report, "%s/cuprof-report", b && *b ? b : "build");
    setenv("CUPROF_REPORT", report, 1);
    unsetenv("CUPROF_NAME");
    unsetenv("CUPROF_ROOT_PID");
    unsetenv("CUPROF_MEM_LIMIT");
    unsetenv("CUPROF_CLOCK");
    unsetenv("CUPROF_GPU");
    unsetenv("CUPROF_CAPTURE_RANGE");
    unsetenv("CUPROF_CAPTURE_RANGE_END");
    unsetenv("CUPROF_SKIP_FIRST");
    unsetenv("CUPROF_FLIGHT_RECORDER");
    unsetenv("CUPROF_FLIGHT_MEMORY");
}

/* For tests that write t0/t1 by hand: stamps must already be ns (with TSC
 * stamps the run build would convert the hand-written values). */
static void setup_ns_stamps(void)
{
    setup();
    setenv("CUPROF_CLOCK", "monotonic", 1);
}

/* Removes the files of tmpdir and the directory. */
static void rm_tmpdir(void)
{
    DIR *d = opendir(tmpdir);
    if (!d)
        return;
    struct dirent *e;
    char p[600];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
            unlink(p);
        }
    closedir(d);
    rmdir(tmpdir);
}

static void teardown(void)
{
    atomic_store(&cuprof_g.finished, 1);   /* no files from the test process itself */
    cuprof_runfile_quiesce();   /* the flusher's first META written (its descriptors closed) */
    rm_tmpdir();
}

/* Number of entries in tmpdir (without . and ..). */
static int count_files(const char *suffix)
{
    DIR *d = opendir(tmpdir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t l = strlen(e->d_name), s = suffix ? strlen(suffix) : 0;
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            (!suffix || (l >= s && strcmp(e->d_name + l - s, suffix) == 0)))
            n++;
    }
    if (d)
        closedir(d);
    return n;
}

static cuprof_event *rec(uint16_t api, uint8_t cls)
{
    cuprof_event *ev = cuprof_begin(api, cls);
    ck_assert_ptr_nonnull(ev);
    return ev;
}

static const cuprof_stat_api *row(const cuprof_summary *s, const char *name)
{
    for (size_t i = 0; i < s->napi; i++)
        if (strcmp(s->api[i].name, name) == 0)
            return &s->api[i];
    return NULL;
}

/* ---- buffers ------------------------------------------------------------ */

#define NTHREADS 16
#define PER_THREAD 100000

static uint64_t per_thread = PER_THREAD;   /* events record_many makes */

static void *record_many(void *arg)
{
    uint64_t me = (uint64_t)(uintptr_t)arg;
    for (uint64_t i = 0; i < per_thread; i++) {
        /* an allocation: its three arguments are kept (a.mem) */
        cuprof_event *ev = cuprof_begin((uint16_t)me, CUPROF_EV_ALLOC);
        if (!ev)
            return (void *)1;
        ev->a.mem.bytes = i;
        ev->a.mem.ptr = me;
        ev->a.mem.stream = cuprof_event_id(ev);
        cuprof_end(ev, 0);
    }
    return NULL;
}

/* NTHREADS threads record n events each at once; every event is in the run,
 * in order, its id maps back to it. */
static void threads_record_all(uint64_t n)
{
    per_thread = n;
    for (int i = 0; i < 32; i++) {
        static char names[32][16];
        snprintf(names[i], sizeof names[i], "api%d", i);
        many_apis[i].name = names[i];
        many_apis[i].category = "cuda_runtime";
    }
    cuprof_collector_init();
    cuprof_api_register(many_apis, 32);
    pthread_t th[NTHREADS];
    for (uintptr_t i = 0; i < NTHREADS; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, record_many, (void *)i), 0);
    for (int i = 0; i < NTHREADS; i++) {
        void *r;
        pthread_join(th[i], &r);
        ck_assert_ptr_null(r);
    }
    cuprof_run *run = test_run_read_back();
    ck_assert_ptr_nonnull(run);
    ck_assert_uint_eq(run->nthreads, NTHREADS);
    ck_assert_uint_eq(run->nevents, (uint64_t)NTHREADS * per_thread);
    ck_assert_uint_eq(run->dropped, 0);
    /* Plain comparisons in the loop: every ck_assert is a message to the
     * Check parent, too slow for 1.6 million events. */
    uint64_t bad = 0;
    for (size_t t = 0; t < run->nthreads; t++) {
        const cuprof_run_thread *th_ = &run->threads[t];
        ck_assert_uint_eq(th_->n, per_thread);
        uint64_t who = cuprof_run_event(th_, 0)->a.mem.ptr;
        uint64_t prev_t0 = 0;
        for (uint64_t i = 0; i < th_->n; i++) {
            const cuprof_event *ev = cuprof_run_event(th_, i);
            const cuprof_run_thread *found_th = NULL;
            bad += ev->a.mem.bytes != i;       /* in order, none missing */
            bad += ev->a.mem.ptr != who;       /* one thread's events only */
            bad += ev->api != who;
            bad += ev->t0 < prev_t0 || ev->t1 < ev->t0;
            bad += cuprof_run_find_event(run, ev->a.mem.stream, &found_th) != ev || found_th != th_;
            prev_t0 = ev->t0;
        }
    }
    ck_assert_uint_eq(bad, 0);
    cuprof_summary *s = test_summary_build(run);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(s->napi, NTHREADS);
    for (size_t i = 0; i < s->napi; i++)
        ck_assert_uint_eq(s->api[i].calls, per_thread);
    test_summary_destroy(s);
    test_run_free(run);
}

START_TEST(many_threads_nothing_lost)
{
    threads_record_all(PER_THREAD);
}
END_TEST

/* Sixteen threads fill chunks at once, each written to the run file as it
 * fills (one lock, blocks never interleaved) and read back: nothing lost
 * or reordered. */
START_TEST(many_threads_run_file_nothing_lost)
{
    threads_record_all(20000);
    ck_assert_uint_ge(cuprof_runfile_chunks(), NTHREADS);
}
END_TEST

/* The supervisor's part of the recording memory (tools/run.c makes it so):
 * a memfd, its header, CUPROF_SHM naming it; the descriptor. */
static int make_recording_memory(void)
{
    cuprof_shm_header h;
    memset(&h, 0, sizeof h);
    h.token = 0x1234abcd5678ef09ull;
    h.nslots = 8;
    h.nprocs = 4;
    h.names_bytes = 1u << 20;
    h.area_bytes = h.names_bytes;
    cuprof_shm_header_layout(&h);
    int fd = memfd_create("test-recording", 0);
    ck_assert(fd >= 0 && ftruncate(fd, (off_t)h.total_bytes) == 0 &&
              pwrite(fd, &h, sizeof h, 0) == (ssize_t)sizeof h);
    char v[96];
    snprintf(v, sizeof v, "%d:%ld:%llx", fd, (long)getpid(), (unsigned long long)h.token);
    setenv(CUPROF_SHM_ENV, v, 1);
    return fd;
}

/* A process killed outright under the supervisor (issue 42.2): its calls
 * since the flusher's last round, a string interned and an API first used
 * just before the kill, are in the recording memory; the recovery
 * (tools/recover.c) appends them to its run file: read back, every call it
 * had published is there, named, and the run says how it ended. */
#define KILLED_CALLS 20000
START_TEST(killed_recovered_from_the_recording_memory)
{
    int fd = make_recording_memory();
    int pp[2];
    ck_assert_int_eq(pipe(pp), 0);
    pid_t c = fork();
    ck_assert(c >= 0);
    if (c == 0) {
        cuprof_api_register(APIS, NAPIS);
        for (int i = 0; i < KILLED_CALLS; i++)
            cuprof_end(rec(0, CUPROF_EV_CALL), 0);
        uint32_t sid = cuprof_string_intern("the last words");
        cuprof_instant(3, CUPROF_EV_MARK, sid, 0, 0);
        cuprof_end(rec(5, CUPROF_EV_CALL), 0);   /* cublasLtMatmul: first used now */
        cuprof_event *open_call = cuprof_begin(1, CUPROF_EV_CALL);   /* open at the kill */
        (void)open_call;
        if (write(pp[1], "x", 1) != 1)
            _exit(2);
        for (;;)
            pause();
    }
    char x;
    ck_assert_int_eq(read(pp[0], &x, 1), 1);
    kill(c, SIGKILL);
    int st;
    waitpid(c, &st, 0);
    char path[600];
    snprintf(path, sizeof path, "%s/.cuprof-run.%d", tmpdir, (int)c);
    cuprof_rfread_info info;
    char err[512];
    cuprof_run *run = cuprof_rfread(path, &info, err, sizeof err);
    ck_assert_msg(run != NULL, "%s", err);
    uint64_t good = info.read_bytes;
    cuprof_rfread_free(run);
    cuprof_recover_end end = {.ended_by = "SIGKILL", .died_ns = 0};
    cuprof_recover_stats rst;
    ck_assert_int_eq(cuprof_recover_append(path, c, fd, good, &end, &rst, err, sizeof err), 0);
    ck_assert(rst.from_memory);
    ck_assert_uint_eq(rst.threads, 1);
    run = cuprof_rfread(path, &info, err, sizeof err);
    ck_assert_msg(run != NULL, "%s", err);
    ck_assert(info.recovered && !info.complete);
    ck_assert_uint_eq(run->nevents, KILLED_CALLS + 2);   /* the calls and the mark, not the open one */
    ck_assert_str_eq(run->ended_by, "SIGKILL");
    ck_assert(run->truncated && run->killed.recovered && run->killed.from_memory);
    ck_assert(!run->killed.oom);
    ck_assert_str_eq(cuprof_run_api_name(run, 5), "cublasLtMatmul");
    ck_assert_str_eq(cuprof_run_api_name(run, 0), "cudaA");
    const cuprof_run_thread *th = &run->threads[0];
    const cuprof_event *mark = cuprof_run_event(th, KILLED_CALLS);
    ck_assert_uint_eq(mark->cls, CUPROF_EV_MARK);
    ck_assert_uint_ge(run->nstrings, mark->a.nvtx.name);
    ck_assert_str_eq(run->strings[mark->a.nvtx.name], "the last words");
    /* stamps in order, the last one converted with the recovery's anchor */
    for (uint64_t i = 1; i < th->n; i++)
        ck_assert_uint_ge(cuprof_run_event(th, i)->t0, cuprof_run_event(th, i - 1)->t0);
    ck_assert_uint_le(cuprof_run_event(th, th->n - 1)->t1, run->t_end);
    cuprof_rfread_free(run);
    close(fd);
    unsetenv(CUPROF_SHM_ENV);
}
END_TEST

/* The run file's API table names the APIs the run used, by their ids, and
 * leaves the others empty (run file 4.0's API_TABLE: some 2400 hooks'
 * names, most never called, in every META): here APIs 2 and 6 are used, the rest only registered. */
START_TEST(api_table_names_the_apis_used)
{
    cuprof_api_register(APIS, NAPIS);
    cuprof_end(rec(2, CUPROF_EV_CALL), 0);
    for (int i = 0; i < 3; i++)
        cuprof_end(rec(6, CUPROF_EV_LAUNCH), 0);
    cuprof_run *run = test_run_read_back();
    ck_assert_uint_eq(run->napis, NAPIS);
    for (size_t a = 0; a < NAPIS; a++) {
        int used = a == 2 || a == 6;
        ck_assert_str_eq(run->apis[a].name, used ? APIS[a].name : "");
        ck_assert_str_eq(run->apis[a].category, used ? APIS[a].category : "");
    }
    ck_assert_str_eq(cuprof_run_api_name(run, 6), "cudaLaunchKernel");
    test_run_free(run);
}
END_TEST

/* Threads that come and go, 8 at a time, while the flusher runs: each gives
 * its record and chunk back when it ends (the memory mapped for chunks is
 * back to none once they are joined), and every call of every thread is in
 * the run, in order (one ended after filling a chunk, one mid-chunk). */
static void *record_and_end(void *arg)
{
    uint64_t n = (uintptr_t)arg;
    for (uint64_t i = 0; i < n; i++) {
        cuprof_event *ev = cuprof_begin(0, CUPROF_EV_ALLOC);
        if (ev)
            ev->a.mem.bytes = i;
        cuprof_end(ev, 0);
    }
    return NULL;
}

START_TEST(threads_give_memory_back)
{
    cuprof_collector_init();
    cuprof_api_register(APIS, NAPIS);
    enum { WAVES = 25, AT_ONCE = 8 };
    uint64_t total = 0;
    for (int w = 0; w < WAVES; w++) {
        pthread_t th[AT_ONCE];
        for (uintptr_t k = 0; k < AT_ONCE; k++) {
            uintptr_t n = k == 0 ? 12000 : 50 + k;   /* one fills a chunk, the others do not */
            total += n;
            ck_assert_int_eq(pthread_create(&th[k], NULL, record_and_end, (void *)n), 0);
        }
        for (int k = 0; k < AT_ONCE; k++)
            pthread_join(th[k], NULL);
        ck_assert_uint_eq(atomic_load(&cuprof_g.mem_bytes), 0);
    }
    cuprof_run *run = test_run_read_back();
    ck_assert_ptr_nonnull(run);
    ck_assert_uint_eq(run->nthreads, WAVES * AT_ONCE);
    ck_assert_uint_eq(run->nevents, total);
    ck_assert_uint_eq(run->dropped, 0);
    uint64_t bad = 0;
    for (size_t t = 0; t < run->nthreads; t++)
        for (uint64_t i = 0; i < run->threads[t].n; i++)
            bad += cuprof_run_event(&run->threads[t], i)->a.mem.bytes != i;
    ck_assert_uint_eq(bad, 0);
    test_run_free(run);
}
END_TEST

/* The program's descriptor calls (collector.h's cuprof_fd_begin/end, which
 * libcuprof's close/dup2 & co call) against recording: a thread puts a
 * file of the program's on 40..70 and closes them again, over and over,
 * each call bracketed as the hooks do, while the main thread records and
 * the flusher writes. Every call is read back, and the program's file
 * never gets a byte. */
static char fd_victim[600];
static _Atomic int fd_stop;

static void *dup_and_close(void *arg)
{
    (void)arg;
    int f = open(fd_victim, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    ck_assert_int_ge(f, 0);
    while (!atomic_load(&fd_stop)) {
        for (int fd = 40; fd <= 70; fd++) {
            cuprof_fd_call c;
            cuprof_fd_begin(&c, (unsigned)fd, (unsigned)fd);
            if (fd != f)
                dup2(f, fd);
            cuprof_fd_end(&c);
        }
        cuprof_fd_call c;
        cuprof_fd_begin(&c, 40, 70);
        for (int fd = 40; fd <= 70; fd++)
            if (fd != f)
                close(fd);
        cuprof_fd_end(&c);
    }
    close(f);
    return NULL;
}

START_TEST(program_descriptor_calls)
{
    cuprof_collector_init();
    cuprof_api_register(APIS, NAPIS);
    snprintf(fd_victim, sizeof fd_victim, "%s/program-file", tmpdir);
    atomic_store(&fd_stop, 0);
    pthread_t th;
    enum { N = 150000 };
    for (int i = 0; i < N; i++) {
        if (i == 1000)   /* the run file is open by now */
            ck_assert_int_eq(pthread_create(&th, NULL, dup_and_close, NULL), 0);
        cuprof_event *ev = cuprof_begin(0, CUPROF_EV_ALLOC);
        if (ev)
            ev->a.mem.bytes = (uint64_t)i;
        cuprof_end(ev, 0);
    }
    usleep(250000);   /* two flusher rounds with the descriptors coming and going */
    atomic_store(&fd_stop, 1);
    pthread_join(th, NULL);
    cuprof_run *run = test_run_read_back();
    ck_assert_ptr_nonnull(run);
    ck_assert_uint_eq(run->nevents, N);
    ck_assert_uint_eq(run->dropped, 0);
    ck_assert_ptr_null(cuprof_runfile_failure());
    ck_assert_uint_gt(cuprof_runfile_reopened(), 0);   /* it was hit, and opened again */
    uint64_t bad = 0;
    for (uint64_t i = 0; i < run->threads[0].n; i++)
        bad += cuprof_run_event(&run->threads[0], i)->a.mem.bytes != i;
    ck_assert_uint_eq(bad, 0);
    test_run_free(run);
    struct stat st;
    ck_assert_int_eq(stat(fd_victim, &st), 0);
    ck_assert_int_eq(st.st_size, 0);
    unlink(fd_victim);
}
END_TEST

START_TEST(event_ids_unique_across_chunks)
{
    cuprof_api_register(APIS, NAPIS);
    enum { N = 30000 };   /* a few chunks */
    static uint64_t ids[N];
    uint64_t zero_ids = 0;
    for (int i = 0; i < N; i++) {
        cuprof_event *ev = rec(0, CUPROF_EV_ALLOC);
        ev->a.mem.bytes = (uint64_t)i;
        ev->a.mem.ptr = 0x7f0000000000ull + 4096ull * (uint64_t)(i * 7919 % 1000);
        ids[i] = cuprof_event_id(ev);
        zero_ids += ids[i] == 0;
        cuprof_end(ev, 0);
    }
    ck_assert_uint_eq(zero_ids, 0);
    for (int i = 1; i < N; i++)
        ck_assert_uint_gt(ids[i], ids[i - 1]);
    ck_assert_uint_eq(cuprof_event_id(NULL), 0);
    cuprof_run *run = test_run_read_back();
    ck_assert_uint_eq(run->nevents, N);
    ck_assert_uint_gt(run->event_bytes, CUPROF_CHUNK_DATA);   /* more than one chunk */
    uint64_t bad = 0;
    for (int i = 0; i < N; i++) {
        const cuprof_event *ev = cuprof_run_find_event(run, ids[i], NULL);
        bad += ev == NULL || ev->a.mem.bytes != (uint64_t)i ||
               ev->a.mem.ptr != 0x7f0000000000ull + 4096ull * (uint64_t)(i * 7919 % 1000);
    }
    ck_assert_uint_eq(bad, 0);
    ck_assert_ptr_null(cuprof_run_find_event(run, 0, NULL));
    ck_assert_ptr_null(cuprof_run_find_event(run, ids[N - 1] + 1, NULL));
    test_run_free(run);
}
END_TEST

/* ---- the compact form (compact.h) ---------------------------------------- */

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return rnd_state;
}

/* A value of up to `bits` random bits, often small, sometimes extreme. */
static uint64_t rnd_val(unsigned bits)
{
    uint64_t r = rnd(), mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
    switch (r % 4) {
    case 0: return 0;
    case 1: return (r >> 8) % 300;
    case 2: return mask;
    default: return rnd() & mask;
    }
}

/* The event as the compact form keeps it: the class's arguments only. */
static void keep_class_fields(cuprof_event *e)
{
    cuprof_event k;
    memset(&k, 0, sizeof k);
    k.t0 = e->t0;
    k.t1 = e->t1;
    k.api = e->api;
    k.depth = e->depth;
    k.cls = e->cls;
    k.result = e->result;
    k.stack = e->stack;
    k.name = e->name;
    switch (e->cls) {
    case CUPROF_EV_LAUNCH: k.a.launch = e->a.launch; k.a.launch._pad = 0; break;
    case CUPROF_EV_COPY: case CUPROF_EV_MEMSET:
        k.a.copy.bytes = e->a.copy.bytes; k.a.copy.stream = e->a.copy.stream;
        k.a.copy.dir = e->a.copy.dir & 7; k.a.copy.async = e->a.copy.async != 0; break;
    case CUPROF_EV_ALLOC: case CUPROF_EV_FREE: k.a.mem = e->a.mem; break;
    case CUPROF_EV_SYNC: case CUPROF_EV_EVENT: k.a.sync = e->a.sync; break;
    case CUPROF_EV_OCCUPANCY:
        k.a.occ.kernel = e->a.occ.kernel; k.a.occ.block_size = e->a.occ.block_size;
        k.a.occ.smem = e->a.occ.smem; k.a.occ.answer = e->a.occ.answer; break;
    case CUPROF_EV_BLAS:
        k.a.blas.m = e->a.blas.m; k.a.blas.n = e->a.blas.n; k.a.blas.k = e->a.blas.k;
        k.a.blas.batch = e->a.blas.batch; k.a.blas.transa = e->a.blas.transa & 3;
        k.a.blas.transb = e->a.blas.transb & 3; k.a.blas.atype = e->a.blas.atype;
        k.a.blas.ctype = e->a.blas.ctype; k.a.blas.compute = e->a.blas.compute;
        k.a.blas.epilogue = e->a.blas.epilogue; k.a.blas.beta_nonzero = e->a.blas.beta_nonzero != 0;
        break;
    case CUPROF_EV_CALL: break;
    case CUPROF_EV_COLL: k.a.coll = e->a.coll; break;
    case CUPROF_EV_MATH: k.a.math = e->a.math; break;
    default: k.a.nvtx = e->a.nvtx; break;
    }
    *e = k;
}

/* Random events of every class, with every field at its extremes (times
 * going back, t1 zero or before t0, any result, sequence numbers out of
 * order), encoded one after another and decoded back: equal, field by
 * field, to what the class keeps; never longer than CUPROF_REC_MAX. */
START_TEST(compact_round_trip)
{
    enum { N = 200000 };
    static cuprof_event in[N];
    static uint64_t seqs[N];
    static uint8_t buf[N * CUPROF_REC_MAX];
    cuprof_codec enc, dec;
    memset(&enc, 0, sizeof enc);
    memset(&dec, 0, sizeof dec);
    uint8_t *p = buf;
    uint64_t t = 1ull << 40, seq = 0;
    size_t longest = 0;
    static const uint64_t streams[] = {0, 0x5555deadbee0ull, 0x5555deadbef0ull, 2, 0x7fffffffffffull};
    for (int i = 0; i < N; i++) {
        cuprof_event *e = &in[i];
        for (unsigned w = 0; w < sizeof *e / 8; w++)
            ((uint64_t *)e)[w] = rnd();
        e->cls = (uint8_t)(rnd() % 16);
        if (e->cls == 15)   /* (CUPROF_EV_LIB is never recorded) */
            e->cls = rnd() % 2 ? CUPROF_EV_COLL : CUPROF_EV_MATH;
        if (e->cls == CUPROF_EV_COLL && i > 0 && in[i - 1].cls == CUPROF_EV_COLL && rnd() % 2)
            e->a.coll.comm = in[i - 1].a.coll.comm, e->a.coll.rank = in[i - 1].a.coll.rank,
            e->a.coll.nranks = in[i - 1].a.coll.nranks;   /* the same communicator again */
        e->api = (uint16_t)(rnd() % 3 == 0 ? rnd() : rnd() % 4);
        e->depth = (uint8_t)(rnd() % 5 == 0 ? rnd() : 0);
        e->stack = (uint32_t)rnd_val(32);
        e->name = rnd() % 3 == 0 ? (uint32_t)rnd_val(32) : 0;   /* a symbol asked for */
        e->result = rnd() % 3 == 0 ? (int32_t)rnd() : 0;
        t += rnd_val(rnd() % 2 ? 12 : 63);
        e->t0 = rnd() % 50 == 0 ? rnd() : t;
        e->t1 = rnd() % 30 == 0 ? 0 : rnd() % 30 == 0 ? e->t0 - rnd_val(20) : e->t0 + rnd_val(20);
        if (rnd() % 3 == 0) {   /* the stream/event handles repeat, as in programs */
            e->a.launch.stream = streams[rnd() % 5];
            if (e->cls == CUPROF_EV_COPY || e->cls == CUPROF_EV_MEMSET)
                e->a.copy.stream = streams[rnd() % 5];
            if (e->cls == CUPROF_EV_ALLOC || e->cls == CUPROF_EV_FREE)
                e->a.mem.stream = streams[rnd() % 5];
            if (e->cls == CUPROF_EV_SYNC || e->cls == CUPROF_EV_EVENT)
                e->a.sync.stream = streams[rnd() % 5];
        }
        if (rnd() % 2 && i > 0 && in[i - 1].cls == CUPROF_EV_LAUNCH && e->cls == CUPROF_EV_LAUNCH)
            e->a.launch = in[i - 1].a.launch;   /* the same configuration again */
        seq = rnd() % 4 == 0 ? seq + rnd_val(40) - 3 : seq + 1;
        seqs[i] = seq;
        uint8_t *q = cuprof_encode(p, &enc, e, seq);
        if ((size_t)(q - p) > longest)
            longest = (size_t)(q - p);
        p = q;
        keep_class_fields(e);
    }
    ck_assert_uint_le(longest, CUPROF_REC_MAX);
    const uint8_t *r = buf;
    uint64_t bad = 0, first_bad = N;
    for (int i = 0; i < N; i++) {
        cuprof_event out;
        uint64_t s2;
        ck_assert_int_eq(cuprof_decode(&r, p, &dec, &out, &s2), 0);
        if (memcmp(&out, &in[i], sizeof out) != 0 || s2 != seqs[i]) {
            bad++;
            if (first_bad == N)
                first_bad = (uint64_t)i;
        }
    }
    ck_assert_msg(bad == 0, "%llu events differ, the first #%llu (class %d)",
                  (unsigned long long)bad, (unsigned long long)first_bad,
                  first_bad < N ? in[first_bad].cls : -1);
    ck_assert_ptr_eq(r, p);
    uint8_t zero = 0;
    const uint8_t *z = &zero;
    cuprof_event out;
    uint64_t s3;
    ck_assert_int_eq(cuprof_decode(&z, &zero + 1, &dec, &out, &s3), -1);   /* the chunk's end */
}
END_TEST

/* A repeated launch (same kernel, configuration and stream) takes a few
 * bytes: what makes the compact form worth it. */
/* A launch as a loop makes it: 4096 x 256 threads on a stream, 3 us of TSC
 * ticks. */
static cuprof_event loop_launch(void)
{
    cuprof_event e;
    memset(&e, 0, sizeof e);
    e.cls = CUPROF_EV_LAUNCH;
    e.api = 4;
    e.a.launch.kernel = 3;
    e.a.launch.grid_x = 4096;
    e.a.launch.grid_y = e.a.launch.grid_z = 1;
    e.a.launch.block[0] = 256;
    e.a.launch.block[1] = e.a.launch.block[2] = 1;
    e.a.launch.stream = 0x5555deadbee0ull;
    e.t0 = 1ull << 40;
    e.t1 = e.t0 + 9000;
    return e;
}

START_TEST(compact_repeated_launch_is_small)
{
    cuprof_codec c;
    memset(&c, 0, sizeof c);
    uint8_t buf[4 * CUPROF_REC_MAX], *p = buf;
    cuprof_event e = loop_launch();
    p = cuprof_encode(p, &c, &e, 0);
    uint8_t *second = p;
    e.t0 = e.t1 + 150;
    e.t1 = e.t0 + 9000;
    p = cuprof_encode(p, &c, &e, 1);
    ck_assert_int_le(p - second, 8);
}
END_TEST

/* The hot path's encoder (cuprof_encode_repeat) writes, for a repeated
 * launch, the very bytes cuprof_encode writes and leaves the codec in the
 * same state; anything that differs from the previous launch (another
 * kernel is fine: it is always written) makes it decline, writing nothing. */
START_TEST(compact_repeat_is_the_general_encoding)
{
    cuprof_codec a, b;
    memset(&a, 0, sizeof a);
    cuprof_event e = loop_launch();
    e.a.launch.grid_y = 2;
    e.a.launch.smem = 48;
    uint8_t x[CUPROF_REC_MAX], y[CUPROF_REC_MAX];
    ck_assert_ptr_null(cuprof_encode_repeat(x, &a, &e, 0));   /* nothing to repeat yet */
    (void)cuprof_encode(x, &a, &e, 0);
    for (int k = 0; k < 4; k++) {   /* k = 1: another kernel; 2: a long gap; 3: a long call */
        e.a.launch.kernel = k == 1 ? 300 : 3;
        e.t0 = e.t1 + (k == 2 ? (1ull << 35) : 150);
        e.t1 = e.t0 + (k == 3 ? (1ull << 30) : 9000);
        b = a;
        uint8_t *ex = cuprof_encode(x, &a, &e, 1 + (uint64_t)k);
        uint8_t *ey = cuprof_encode_repeat(y, &b, &e, 1 + (uint64_t)k);
        ck_assert_ptr_nonnull(ey);
        ck_assert_int_eq(ex - x, ey - y);
        ck_assert_int_eq(memcmp(x, y, (size_t)(ex - x)), 0);
        ck_assert_int_eq(memcmp(&a, &b, sizeof a), 0);
    }
    /* each difference from the previous launch: declined, codec untouched */
    for (int k = 0; k < 11; k++) {
        cuprof_event f = e;
        f.t0 = e.t1 + 100;
        f.t1 = f.t0 + 100;
        uint64_t seq = 5;
        switch (k) {
        case 0: f.api = 5; break;
        case 1: f.depth = 1; break;
        case 2: f.stack = 9; break;
        case 3: f.result = 2; break;
        case 4: f.t1 = f.t0 - 1; break;
        case 5: f.a.launch.grid_y = 3; break;
        case 6: f.a.launch.block[2] = 2; break;
        case 7: f.a.launch.smem = 0; break;
        case 8: f.a.launch.stream = 0x77; break;
        case 9: seq = 9; break;
        case 10: f.name = 4; break;
        }
        b = a;
        ck_assert_msg(cuprof_encode_repeat(y, &b, &f, seq) == NULL, "case %d taken", k);
        ck_assert_int_eq(memcmp(&a, &b, sizeof a), 0);
        f.cls = CUPROF_EV_OCCUPANCY;   /* not a launch at all */
        ck_assert_ptr_null(cuprof_encode_repeat(y, &b, &f, 5));
    }
}
END_TEST

/* A call whose end never came (a longjmp out of a callback): when the call
 * around it ends, it is written as it is (t1 0), nothing is lost, and the
 * depth heals. */
START_TEST(call_without_end_is_kept)
{
    cuprof_api_register(APIS, NAPIS);
    cuprof_event *outer = rec(0, CUPROF_EV_CALL);
    cuprof_event *lost = rec(1, CUPROF_EV_ALLOC);
    lost->a.mem.bytes = 77;
    (void)rec(2, CUPROF_EV_CALL);   /* inside the lost one, never ended either */
    cuprof_end(outer, 0);
    cuprof_end(rec(3, CUPROF_EV_CALL), 0);   /* at depth 0 again */
    cuprof_run *run = test_run_read_back();
    ck_assert_uint_eq(run->nevents, 4);
    const cuprof_run_thread *th = &run->threads[0];
    ck_assert_uint_eq(cuprof_run_event(th, 1)->api, 1);
    ck_assert_uint_eq(cuprof_run_event(th, 1)->a.mem.bytes, 77);
    ck_assert_uint_eq(cuprof_run_event(th, 1)->t1, 0);
    ck_assert_uint_eq(cuprof_run_event(th, 2)->depth, 2);
    ck_assert_uint_eq(cuprof_run_event(th, 3)->depth, 0);
    ck_assert_uint_ge(cuprof_run_event(th, 0)->t1, cuprof_run_event(th, 0)->t0);
    test_run_free(run);
}
END_TEST

START_TEST(open_calls_are_not_published)
{
    cuprof_api_register(APIS, NAPIS);
    cuprof_end(rec(0, CUPROF_EV_CALL), 0);
    cuprof_event *outer = rec(1, CUPROF_EV_CALL);
    cuprof_end(rec(2, CUPROF_EV_CALL), 0);   /* nested: complete, but outer is open */
    cuprof_run *run = test_run_read_back();
    ck_assert_uint_eq(run->nevents, 1);
    test_run_free(run);
    cuprof_end(outer, 0);
    run = test_run_read_back();
    ck_assert_uint_eq(run->nevents, 3);
    test_run_free(run);
}
END_TEST

START_TEST(guard_and_errno)
{
    cuprof_api_register(APIS, NAPIS);
    errno = 1234;
    cuprof_event *ev = rec(0, CUPROF_EV_CALL);   /* first event: registers the thread */
    cuprof_end(ev, 0);
    ck_assert_int_eq(errno, 1234);
    int g = cuprof_guard_enter();
    ck_assert_ptr_null(cuprof_begin(0, CUPROF_EV_CALL));
    int g2 = cuprof_guard_enter();   /* nests */
    cuprof_guard_leave(g2);
    ck_assert_ptr_null(cuprof_begin(0, CUPROF_EV_CALL));
    cuprof_guard_leave(g);
    cuprof_end(NULL, 0);   /* harmless */
    ev = rec(0, CUPROF_EV_CALL);
    cuprof_end(ev, 0);
    ck_assert_int_eq(errno, 1234);
    cuprof_run *run = test_run_read_back();
    ck_assert_uint_eq(run->nevents, 2);
    test_run_free(run);
}
END_TEST

/* The capture window on an NVTX range: nothing is recorded outside it (the
 * hooks get NULL), the skipped occurrence opens nothing, the range's push
 * is the window's first event and its pop the last, a nested push of the
 * same name does not count, and the window closes for good after
 * repeat:N windows. */
START_TEST(capture_window_gates_recording)
{
    setenv("CUPROF_GPU", "0", 1);
    /* window times are clock_gettime's; TSC stamps agree with them to tens
     * of ns after conversion, not to the ns this test checks */
    setenv("CUPROF_CLOCK", "monotonic", 1);
    setenv("CUPROF_CAPTURE_RANGE", "nvtx:step", 1);
    setenv("CUPROF_SKIP_FIRST", "1", 1);
    setenv("CUPROF_CAPTURE_RANGE_END", "repeat:2", 1);
    cuprof_api_register(APIS, NAPIS);
    uint32_t step = cuprof_string_intern("step"), other = cuprof_string_intern("other");
    ck_assert_ptr_null(cuprof_begin(0, CUPROF_EV_CALL));                  /* before any */
    ck_assert_int_eq(cuprof_instant(1, CUPROF_EV_RANGE_PUSH, step, 0, 0), -1);  /* skipped */
    ck_assert_ptr_null(cuprof_begin(0, CUPROF_EV_CALL));
    ck_assert_int_eq(cuprof_instant(1, CUPROF_EV_RANGE_POP, 0, 0, 0), -1);
    for (int w = 0; w < 2; w++) {   /* two windows */
        ck_assert_int_eq(cuprof_instant(1, CUPROF_EV_RANGE_PUSH, step, 0, 0), 0);
        cuprof_event *ev = cuprof_begin(0, CUPROF_EV_CALL);
        ck_assert_ptr_nonnull(ev);
        cuprof_end(ev, 0);
        ck_assert_int_eq(cuprof_instant(1, CUPROF_EV_RANGE_PUSH, step, 0, 0), 0);  /* nested */
        ck_assert_int_eq(cuprof_instant(1, CUPROF_EV_RANGE_PUSH, other, 0, 0), 0);
        ck_assert_int_eq(cuprof_instant(1, CUPROF_EV_RANGE_POP, 0, 0, 0), 0);
        ck_assert_int_eq(cuprof_instant(1, CUPROF_EV_RANGE_POP, 0, 0, 0), 0);
        ck_assert_ptr_nonnull((ev = cuprof_begin(0, CUPROF_EV_CALL)));      /* still open */
        cuprof_end(ev, 0);
        ck_assert_int_eq(cuprof_instant(1, CUPROF_EV_RANGE_POP, 0, 0, 0), 0);  /* closes */
        ck_assert_ptr_null(cuprof_begin(0, CUPROF_EV_CALL));
    }
    /* repeat:2 reached: a third occurrence opens nothing */
    ck_assert_int_eq(cuprof_instant(1, CUPROF_EV_RANGE_PUSH, step, 0, 0), -1);
    ck_assert_ptr_null(cuprof_begin(0, CUPROF_EV_CALL));
    cuprof_run *run = test_run_read_back();
    ck_assert_uint_eq(run->nevents, 2 * 8);
    ck_assert_uint_eq(run->dropped, 0);   /* gated calls are not drops */
    ck_assert_str_eq(run->capture.trigger, "NVTX range step");
    ck_assert_uint_eq(run->capture.seen, 3);
    ck_assert_uint_eq(run->capture.opened, 2);
    ck_assert_uint_eq(run->capture.nwindows, 2);
    ck_assert_int_eq(run->capture.open_at_end, 0);
    ck_assert(run->capture.outside_calls);
    const cuprof_run_thread *th = &run->threads[0];
    ck_assert_int_eq(cuprof_run_event(th, 0)->cls, CUPROF_EV_RANGE_PUSH);
    ck_assert_int_eq(cuprof_run_event(th, 7)->cls, CUPROF_EV_RANGE_POP);
    for (size_t w = 0; w < 2; w++) {   /* every event inside its window's span */
        for (uint64_t i = w * 8; i < w * 8 + 8; i++)
            ck_assert(cuprof_capture_contains(&run->capture, cuprof_run_event(th, i)->t0));
    }
    ck_assert_str_eq(run->step_range, "step");
    ck_assert_str_eq(run->step_domain, "");
    ck_assert_str_eq(run->step_range_from, "the capture range");
    test_run_free(run);
}
END_TEST

/* Each full chunk goes to the run file and its memory is filled again:
 * nothing lost, in order, stamps in ns, memory one chunk per thread
 * whatever the run's length; a nested call open across a chunk boundary is
 * written with the chunk it ends in. */
static uint64_t mono_ns_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

START_TEST(chunks_to_run_file_nothing_lost)
{
    cuprof_collector_init();
    cuprof_api_register(APIS, NAPIS);
    enum { N = 60000 };   /* several times what two chunks hold */
    uint64_t before = mono_ns_now(), nulls = 0, over = 0;
    for (int i = 0; i < N; i++) {
        cuprof_event *ev = cuprof_begin(0, CUPROF_EV_ALLOC);
        nulls += ev == NULL;
        if (ev)
            ev->a.mem.bytes = (uint64_t)i;
        cuprof_event *in = i % 7 == 0 ? cuprof_begin(1, CUPROF_EV_ALLOC) : NULL;
        if (in)
            in->a.mem.bytes = (uint64_t)i;
        cuprof_end(in, 0);
        cuprof_end(ev, 0);
        over += atomic_load(&cuprof_g.mem_bytes) > CUPROF_CHUNK_BYTES;
    }
    uint64_t after = mono_ns_now();
    ck_assert_uint_eq(nulls, 0);
    ck_assert_uint_eq(over, 0);
    cuprof_run *run = test_run_read_back();
    ck_assert_uint_eq(run->dropped, 0);
    ck_assert_uint_eq(run->nevents, N + (N + 6) / 7);
    ck_assert_uint_gt(cuprof_runfile_chunks(), 2);
    const cuprof_run_thread *th = &run->threads[0];
    uint64_t bad = 0, outer = 0, prev = 0;
    for (uint64_t i = 0; i < th->n; i++) {
        const cuprof_event *ev = cuprof_run_event(th, i);
        if (ev->api == 0)
            bad += ev->a.mem.bytes != outer++;
        else   /* the nested call: right after its outer call */
            bad += i == 0 || cuprof_run_event(th, i - 1)->a.mem.bytes != ev->a.mem.bytes ||
                   ev->depth != 1;
        bad += ev->t0 < before || ev->t1 > after || ev->t0 < prev;
        prev = ev->t0;
    }
    ck_assert_uint_eq(bad, 0);
    test_run_free(run);
}
END_TEST

/* When the run file cannot be written (its directory cannot be made),
 * calls beyond the first chunk are counted per API, not recorded, and the
 * run says why. */
START_TEST(run_file_unwritable_counts)
{
    char bad[700];
    snprintf(bad, sizeof bad, "%s/no/such", tmpdir);
    setenv("CUPROF_OUT_DIR", bad, 1);
    cuprof_collector_init();
    cuprof_api_register(APIS, NAPIS);
    enum { N = 100000 };   /* more than two chunks hold */
    int recorded = 0;
    for (int i = 0; i < N; i++) {
        cuprof_event *ev = cuprof_begin(i % 2, CUPROF_EV_CALL);
        recorded += ev != NULL;
        cuprof_end(ev, 0);
    }
    /* one chunk, compact: many more calls than the 1023 that 64-byte
     * events held, and not all */
    ck_assert_int_gt(recorded, 2 * 1023);
    ck_assert_int_lt(recorded, N);
    uint64_t calls = 0, dropped = 0;
    cuprof_snapshot_counts(&calls, &dropped);
    ck_assert_uint_eq(calls, (uint64_t)recorded);
    ck_assert_uint_eq(dropped, (uint64_t)(N - recorded));
    ck_assert_ptr_nonnull(cuprof_runfile_failure());
    ck_assert_ptr_nonnull(strstr(cuprof_runfile_failure(), "no/such"));
    /* the exit path says so and writes nothing */
    ck_assert_int_lt(cuprof_collector_finish(), 0);
}
END_TEST

/* ---- depth and self time ------------------------------------------------ */

/* Sets the times of the run's event i of thread 0 (the events are the
 * run's own decoded copies: the test writes what the clock would have). */
static void set_time(cuprof_run *run, uint64_t i, uint64_t t0, uint64_t t1)
{
    cuprof_event *ev = (cuprof_event *)cuprof_run_event(&run->threads[0], i);
    ev->t0 = t0;
    ev->t1 = t1;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Each chunk of a thread's records decodes alone, from a fresh codec (run
 * file 2.0): read the run file's CHUNK blocks one by one, each decoder
 * starting from zero, and find every call of the one API (whose records
 * after the first say "the API of the one before") with its sequence number
 * following the chunk before's. With the state running on across chunks a
 * chunk's first record decoded alone reads API 0 and sequence 0. */
START_TEST(chunks_decode_alone)
{
    cuprof_api_register(APIS, NAPIS);
    enum { N = 60000 };   /* several chunks */
    for (int i = 0; i < N; i++)
        cuprof_end(rec(2, CUPROF_EV_CALL), 0);
    cuprof_run *run = test_run_read_back();
    ck_assert_ptr_nonnull(run);
    ck_assert_uint_eq(run->nevents, N);
    test_run_free(run);
    FILE *f = fopen(cuprof_runfile_path(), "rb");
    ck_assert_ptr_nonnull(f);
    cuprof_rf_header h;
    ck_assert_uint_eq(fread(&h, sizeof h, 1, f), 1);
    ck_assert_uint_eq(h.major, CUPROF_RF_MAJOR);
    ck_assert_int_eq(fseek(f, (long)h.header_bytes, SEEK_SET), 0);
    uint64_t next_seq = 0, chunks = 0;
    cuprof_rf_block b;
    while (fread(&b, sizeof b, 1, f) == 1) {
        size_t padded = (size_t)((b.len + 7) & ~(uint64_t)7);
        uint8_t *pay = malloc(padded ? padded : 1);
        ck_assert_ptr_nonnull(pay);
        ck_assert_uint_eq(fread(pay, 1, padded, f), padded);
        if (b.type == CUPROF_RF_CHUNK) {
            cuprof_codec c;
            memset(&c, 0, sizeof c);
            const uint8_t *p = pay + sizeof(cuprof_rf_chunk), *e = pay + b.len;
            cuprof_event ev;
            uint64_t seq;
            while (cuprof_decode(&p, e, &c, &ev, &seq) == 0) {
                ck_assert_uint_eq(ev.api, 2);
                ck_assert_uint_eq(seq, next_seq);
                next_seq++;
            }
            chunks++;
        }
        free(pay);
    }
    fclose(f);
    ck_assert_uint_ge(chunks, 2);
    ck_assert_uint_gt(next_seq, 0);
}
END_TEST

/* Calls that outlive their chunk (a call open around the calls of several
 * chunks, written when it ends, in a later chunk than the calls after it)
 * read back in call order, with their depth and times, both with every
 * call decoded and streamed (test_run_read_back checks the streamed run
 * alike; formats/runfile/stream.c keeps such calls apart). */
START_TEST(calls_that_outlive_their_chunk)
{
    cuprof_api_register(APIS, NAPIS);
    enum { N = 30000 };   /* inner calls: several 64 KiB chunks */
    cuprof_event *outer = rec(1, CUPROF_EV_CALL);
    for (int i = 0; i < N; i++) {
        cuprof_event *mid = rec(3, CUPROF_EV_CALL);
        if (i % 1000 == 0)   /* now and then a call open over a few of the inner ones */
            for (int j = 0; j < 3; j++)
                cuprof_end(rec(2, CUPROF_EV_CALL), 0);
        cuprof_end(mid, 0);
    }
    cuprof_end(outer, 0);
    cuprof_end(rec(4, CUPROF_EV_CALL), 0);
    cuprof_run *run = test_run_read_back();
    ck_assert_ptr_nonnull(run);
    ck_assert_uint_eq(run->nthreads, 1);
    const cuprof_run_thread *th = &run->threads[0];
    ck_assert_uint_eq(th->n, 1 + N + 3 * (N / 1000) + 1);
    const cuprof_event *first = cuprof_run_event(th, 0), *last = cuprof_run_event(th, th->n - 1);
    ck_assert_uint_eq(first->api, 1);
    ck_assert_uint_eq(first->depth, 0);
    ck_assert_uint_eq(last->api, 4);
    ck_assert_uint_eq(last->depth, 0);
    /* the outer call began first and ended after every inner one */
    for (uint64_t i = 1; i + 1 < th->n; i++) {
        const cuprof_event *ev = cuprof_run_event(th, i);
        ck_assert_uint_ge(ev->depth, 1);
        ck_assert_uint_le(ev->t1, cuprof_run_event(th, 0)->t1);
    }
    test_run_free(run);
}
END_TEST

/* Sets the call count of every THREAD block of the run file at path to
 * claim, its checksums made again (a damaged or hostile file that still
 * reads as sound). Returns how many blocks it changed. */
static int set_thread_claims(const char *path, uint64_t claim)
{
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    cuprof_rf_header h;
    ck_assert_uint_eq(fread(&h, sizeof h, 1, f), 1);
    ck_assert_int_eq(fseek(f, (long)h.header_bytes, SEEK_SET), 0);
    int changed = 0;
    cuprof_rf_block b;
    long at = ftell(f);
    while (fread(&b, sizeof b, 1, f) == 1) {
        size_t padded = (size_t)((b.len + 7) & ~(uint64_t)7);
        if (b.type == CUPROF_RF_THREAD && b.len == sizeof(cuprof_rf_thread)) {
            cuprof_rf_thread t;
            ck_assert_uint_eq(fread(&t, sizeof t, 1, f), 1);
            t.committed = claim;
            b.crc = cuprof_crc32c(0, &t, sizeof t);
            b.hcrc = cuprof_crc32c(0, &b, offsetof(cuprof_rf_block, hcrc));
            ck_assert_int_eq(fseek(f, at, SEEK_SET), 0);
            ck_assert_uint_eq(fwrite(&b, sizeof b, 1, f), 1);
            ck_assert_uint_eq(fwrite(&t, sizeof t, 1, f), 1);
            changed++;
        }
        at += (long)(sizeof b + padded);
        ck_assert_int_eq(fseek(f, at, SEEK_SET), 0);
    }
    ck_assert_int_eq(fclose(f), 0);
    return changed;
}

/* Reads the run file at path in a child whose address space may grow by
 * 256 MiB at most; its exit status: 0 when the run opens with exactly n
 * calls, all of API api on one thread, in order; 2 when it did not open. */
static int read_bounded(const char *path, uint64_t n, uint16_t api)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        long pages = 0;
        FILE *st = fopen("/proc/self/statm", "r");
        if (!st || fscanf(st, "%ld", &pages) != 1)
            _exit(9);
        fclose(st);
        rlim_t cap = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)256 << 20);
        struct rlimit rl = {cap, cap};
        if (setrlimit(RLIMIT_AS, &rl) != 0)
            _exit(9);
        cuprof_rfread_info info;
        char err[256];
        cuprof_run *run = cuprof_rfread(path, &info, err, sizeof err);
        if (!run) {
            fprintf(stderr, "read_bounded: %s\n", err);
            _exit(2);
        }
        int bad = run->nevents != n || run->nthreads != 1 || run->threads[0].n != n;
        for (uint64_t i = 0; !bad && i < n; i++)
            bad = cuprof_run_event(&run->threads[0], i)->api != api;
        _exit(bad ? 3 : 0);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status), "the reader died (signal %d)", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return WEXITSTATUS(status);
}

/* A THREAD block whose call count is far past what its chunks can hold
 * (CUPROF_REC_MIN bytes a record) does not size the reader's memory: the
 * run opens, in a bounded address space, with the calls that are there.
 * 2^26 calls would be a 4 GiB arena, 2^60 more than memory. */
START_TEST(thread_claim_past_its_chunks)
{
    /* CUPROF_REC_MIN is the encoder's least: a call of the API before it,
     * no time since and none taken */
    cuprof_codec c;
    memset(&c, 0, sizeof c);
    uint8_t buf[2 * CUPROF_REC_MAX], *p = buf;
    cuprof_event e = {.t0 = 1000, .t1 = 1000, .api = 2, .cls = CUPROF_EV_CALL};
    p = cuprof_encode(p, &c, &e, 0);
    uint8_t *second = p;
    p = cuprof_encode(p, &c, &e, 1);
    ck_assert_int_eq(p - second, CUPROF_REC_MIN);

    cuprof_api_register(APIS, NAPIS);
    enum { N = 20000 };   /* a few chunks */
    for (int i = 0; i < N; i++)
        cuprof_end(rec(2, CUPROF_EV_CALL), 0);
    cuprof_run *run = test_run_read_back();
    ck_assert_ptr_nonnull(run);
    ck_assert_uint_eq(run->nevents, N);
    test_run_free(run);
    /* a copy of the file: this process's flusher may still append a THREAD
     * block to the run file (its last count), after an edit of ours */
    char path[4096];
    snprintf(path, sizeof path, "%s.claims", cuprof_runfile_path());
    FILE *in = fopen(cuprof_runfile_path(), "rb"), *out = fopen(path, "wb");
    ck_assert_ptr_nonnull(in);
    ck_assert_ptr_nonnull(out);
    char blk[65536];
    size_t k;
    while ((k = fread(blk, 1, sizeof blk, in)) > 0)
        ck_assert_uint_eq(fwrite(blk, 1, k, out), k);
    fclose(in);
    ck_assert_int_eq(fclose(out), 0);
    ck_assert_int_eq(read_bounded(path, N, 2), 0);
    static const uint64_t claims[] = {1ull << 26, 1ull << 60, UINT64_MAX, N + 1};
    for (size_t i = 0; i < sizeof claims / sizeof claims[0]; i++) {
        ck_assert_int_ge(set_thread_claims(path, claims[i]), 1);
        ck_assert_msg(read_bounded(path, N, 2) == 0, "claim %llu: not the %d calls there",
                      (unsigned long long)claims[i], N);
    }
    /* a claim under what is there still counts: the first calls */
    set_thread_claims(path, N / 2);
    ck_assert_int_eq(read_bounded(path, N / 2, 2), 0);
    unlink(path);
}
END_TEST

/* ---- the flight recorder ---------------------------------------------------- */

/* The flight recorder keeps the chunks in a ring of CUPROF_FLIGHT_MEMORY
 * bytes, not the file: the ring never holds more than its bound, the file
 * stays small while the program runs, and a window written from it holds
 * the last calls, each one, in order, numbered from the first kept (the
 * reader takes a thread whose oldest chunks went). */
START_TEST(flight_ring_keeps_the_last_calls)
{
    setenv("CUPROF_FLIGHT_RECORDER", "60", 1);
    setenv("CUPROF_FLIGHT_MEMORY", "1M", 1);
    cuprof_collector_init();
    cuprof_api_register(APIS, NAPIS);
    ck_assert_int_eq(cuprof_g_config.capture, CUPROF_CAPTURE_FLIGHT);
    enum { N = 600000 };   /* about 4 MB of records: the ring lets the oldest go */
    for (int i = 0; i < N; i++) {
        cuprof_event *ev = rec(0, CUPROF_EV_ALLOC);
        ev->a.mem.bytes = (uint64_t)i;
        cuprof_end(ev, 0);
    }
    cuprof_flight_stats st;
    cuprof_runfile_flight_stats(&st);
    ck_assert_uint_le(st.peak, 1u << 20);
    ck_assert_uint_gt(st.peak, (1u << 20) - 2 * 65536);
    ck_assert_uint_gt(st.evicted_until, 0);
    struct stat sb;
    ck_assert_int_eq(stat(cuprof_runfile_path(), &sb), 0);
    ck_assert_int_lt(sb.st_size, 64 * 1024);   /* names and metadata only */
    uint64_t k = cuprof_capture_flight_window("a test asked");
    ck_assert_uint_eq(k, 1);
    ck_assert_int_eq(cuprof_runfile_flight_write(cuprof_capture_window_open(k)), 0);
    cuprof_run *run = test_run_read_back();
    ck_assert_ptr_nonnull(run);
    ck_assert_uint_eq(run->nthreads, 1);
    const cuprof_run_thread *th = &run->threads[0];
    ck_assert_uint_gt(th->n, 1000);
    ck_assert_uint_lt(th->n, N);
    uint64_t bad = 0;
    for (uint64_t i = 0; i < th->n; i++)   /* the last calls, each, in order */
        bad += cuprof_run_event(th, i)->a.mem.bytes != N - th->n + i;
    ck_assert_uint_eq(bad, 0);
    ck_assert_uint_eq(run->capture.flight_ns, 60000000000ull);
    ck_assert_uint_eq(run->capture.flight_bytes, 1u << 20);
    ck_assert_uint_eq(run->capture.nwindows, 1);
    ck_assert_uint_eq(run->capture.nwhy, 1);
    ck_assert_str_eq(run->capture.window_why[0], "a test asked");
    /* the window starts where the ring's oldest record does, not 60 s back */
    ck_assert_uint_gt(run->capture.windows[0][0], run->t_start);
    test_run_free(run);
}
END_TEST

/* A call that fails with out-of-memory asks for a window (once per error
 * code), one that fails otherwise does not. */
START_TEST(flight_error_asks_for_a_window)
{
    setenv("CUPROF_FLIGHT_RECORDER", "1", 1);
    cuprof_collector_init();
    cuprof_api_register(APIS, NAPIS);
    char why[256];
    cuprof_end(rec(1, CUPROF_EV_CALL), 1);   /* invalid value: no window */
    ck_assert_int_eq(cuprof_flight_take(why, sizeof why), 0);
    cuprof_end(rec(0, CUPROF_EV_ALLOC), 2);   /* out of memory */
    ck_assert_int_eq(cuprof_flight_take(why, sizeof why), 1);
    ck_assert_ptr_nonnull(strstr(why, "out of memory"));
    ck_assert_ptr_nonnull(strstr(why, APIS[0].name));
    cuprof_end(rec(0, CUPROF_EV_ALLOC), 2);   /* the same code again: no second window */
    ck_assert_int_eq(cuprof_flight_take(why, sizeof why), 0);
    cuprof_end(rec(1, CUPROF_EV_CALL), 700);  /* a sticky error: a window */
    ck_assert_int_eq(cuprof_flight_take(why, sizeof why), 1);
    ck_assert_ptr_nonnull(strstr(why, "sticky"));
}
END_TEST

/* Whatever the stamp source (TSC by default where invariant), the run holds
 * CLOCK_MONOTONIC ns: every event between readings taken around it, in
 * order, across chunks, and a second build converts only what is new. */
START_TEST(stamps_are_monotonic_ns)
{
    cuprof_api_register(APIS, NAPIS);
    const uint64_t slack = 20000;   /* anchors are read to within tens of ns */
    enum { N = 60000 };              /* several chunks */
    uint64_t before = mono_ns();
    for (int i = 0; i < N; i++)
        cuprof_end(rec(0, CUPROF_EV_CALL), 0);
    uint64_t mid = mono_ns();
    cuprof_run *run = test_run_read_back();
    ck_assert_ptr_nonnull(run);
    ck_assert_uint_eq(run->nevents, N);
    ck_assert_uint_gt(run->event_bytes, 2 * CUPROF_CHUNK_DATA);
    uint64_t prev = 0;
    for (uint64_t i = 0; i < run->threads[0].n; i++) {
        const cuprof_event *ev = cuprof_run_event(&run->threads[0], i);
        ck_assert_uint_ge(ev->t0 + slack, before);
        ck_assert_uint_le(ev->t1, mid + slack);
        ck_assert_uint_le(ev->t0, ev->t1);
        ck_assert_uint_ge(ev->t0 + slack, prev);
        prev = ev->t0;
    }
    uint64_t first_t0 = cuprof_run_event(&run->threads[0], 0)->t0;
    test_run_free(run);

    usleep(2000);
    uint64_t later = mono_ns();
    cuprof_end(rec(1, CUPROF_EV_CALL), 0);
    uint64_t after = mono_ns();
    run = test_run_read_back();
    ck_assert_uint_eq(run->nevents, N + 1);
    ck_assert_uint_eq(cuprof_run_event(&run->threads[0], 0)->t0, first_t0);   /* not twice */
    const cuprof_event *last = cuprof_run_event(&run->threads[0], run->threads[0].n - 1);
    ck_assert_uint_ge(last->t0 + slack, later);
    ck_assert_uint_le(last->t1, after + slack);
    test_run_free(run);
}
END_TEST

START_TEST(config_gpu_and_clock)
{
    cuprof_config c;
    char warn[512];
    setenv("CUPROF_GPU", "0", 1);
    setenv("CUPROF_CLOCK", "monotonic", 1);
    cuprof_config_load(&c, warn, sizeof warn);
    ck_assert_int_eq(c.gpu, 0);
    ck_assert_int_eq(c.clock_monotonic, 1);
    ck_assert_str_eq(warn, "");
    setenv("CUPROF_GPU", "maybe", 1);
    setenv("CUPROF_CLOCK", "sundial", 1);
    cuprof_config_load(&c, warn, sizeof warn);
    ck_assert_int_eq(c.gpu, 1);
    ck_assert_int_eq(c.clock_monotonic, 0);
    ck_assert_ptr_nonnull(strstr(warn, "CUPROF_GPU"));
    ck_assert_ptr_nonnull(strstr(warn, "CUPROF_CLOCK"));
    setenv("CUPROF_GPU", "kernels", 1);
    cuprof_config_load(&c, warn, sizeof warn);
    ck_assert_int_eq(c.gpu, CUPROF_GPU_KERNELS);
    setenv("CUPROF_GPU", "All", 1);
    cuprof_config_load(&c, warn, sizeof warn);
    ck_assert_int_eq(c.gpu, CUPROF_GPU_ALL);
    setenv("CUPROF_GPU", "off", 1);
    cuprof_config_load(&c, warn, sizeof warn);
    ck_assert_int_eq(c.gpu, CUPROF_GPU_OFF);
    unsetenv("CUPROF_GPU");
    unsetenv("CUPROF_CLOCK");
    cuprof_config_load(&c, warn, sizeof warn);
    ck_assert_int_eq(c.gpu, 1);
    ck_assert_int_eq(c.clock_monotonic, 0);
}
END_TEST

START_TEST(depth_and_self_time)
{
    cuprof_api_register(APIS, NAPIS);
    /* A [1000,1100] { B [1010,1040] { C [1015,1025] }  D [1050,1060] }  A [1200,1210] */
    cuprof_event *a = rec(0, CUPROF_EV_CALL);
    cuprof_event *b = rec(1, CUPROF_EV_CALL);
    cuprof_event *c = rec(2, CUPROF_EV_CALL);
    cuprof_end(c, 0);
    cuprof_end(b, 0);
    cuprof_event *d = rec(3, CUPROF_EV_CALL);
    cuprof_end(d, 35);
    cuprof_end(a, 0);
    cuprof_end(rec(0, CUPROF_EV_CALL), 0);

    cuprof_run *run = test_run_read_back();
    ck_assert_uint_eq(run->nevents, 5);
    static const uint8_t depth[] = {0, 1, 2, 1, 0};   /* in the order the calls began */
    static const uint16_t api[] = {0, 1, 2, 3, 0};
    for (uint64_t i = 0; i < 5; i++) {
        ck_assert_uint_eq(cuprof_run_event(&run->threads[0], i)->depth, depth[i]);
        ck_assert_uint_eq(cuprof_run_event(&run->threads[0], i)->api, api[i]);
    }
    ck_assert_int_eq(cuprof_run_event(&run->threads[0], 3)->result, 35);
    set_time(run, 0, 1000, 1100);
    set_time(run, 1, 1010, 1040);
    set_time(run, 2, 1015, 1025);
    set_time(run, 3, 1050, 1060);
    set_time(run, 4, 1200, 1210);
    cuprof_summary *s = test_summary_build(run);
    const cuprof_stat_api *ra = row(s, "cudaA"), *rb = row(s, "cudaB"), *rc = row(s, "cudaC"),
                          *rd = row(s, "cudaD");
    ck_assert_ptr_nonnull(ra);
    ck_assert_uint_eq(ra->calls, 2);
    ck_assert_uint_eq(ra->cpu_total_ns, 110);
    ck_assert_uint_eq(ra->cpu_self_ns, 70);     /* 100 - 30 - 10, + 10 */
    ck_assert_uint_eq(ra->min_ns, 10);
    ck_assert_uint_eq(ra->max_ns, 100);
    ck_assert_uint_eq(ra->median_ns, 55);       /* even count: mean of the middle two */
    ck_assert_uint_eq(rb->cpu_total_ns, 30);
    ck_assert_uint_eq(rb->cpu_self_ns, 20);     /* C is B's child, not A's */
    ck_assert_uint_eq(rc->cpu_self_ns, 10);
    ck_assert_uint_eq(rd->cpu_self_ns, 10);
    ck_assert_uint_eq(rd->errors, 1);
    ck_assert_uint_eq(ra->errors, 0);
    ck_assert_uint_eq(s->self_cpu_total_ns, 110);   /* = the top-level calls' total */
    ck_assert_str_eq(s->api[0].name, "cudaA");      /* most expensive first */
    test_summary_destroy(s);
    test_run_free(run);
}
END_TEST

START_TEST(median_min_max)
{
    uint64_t v1[] = {5, 1, 3, 2, 4};
    ck_assert_uint_eq(cuprof_median_u64(v1, 5), 3);
    ck_assert_uint_eq(v1[0], 1);   /* sorted in place */
    ck_assert_uint_eq(v1[4], 5);
    uint64_t v2[] = {7, 1, 100, 3};
    ck_assert_uint_eq(cuprof_median_u64(v2, 4), 5);
    uint64_t v3[] = {42};
    ck_assert_uint_eq(cuprof_median_u64(v3, 1), 42);
    ck_assert_uint_eq(cuprof_median_u64(NULL, 0), 0);
    uint64_t v4[] = {UINT64_MAX, UINT64_MAX - 2};   /* no overflow in the mean */
    ck_assert_uint_eq(cuprof_median_u64(v4, 2), UINT64_MAX - 1);

    cuprof_api_register(APIS, NAPIS);
    uint64_t durs[] = {50, 10, 30, 20, 40, 60, 70};
    for (int i = 0; i < 7; i++)
        cuprof_end(rec(0, CUPROF_EV_CALL), 0);
    cuprof_run *run = test_run_read_back();
    for (uint64_t i = 0; i < 7; i++)
        set_time(run, i, 1000 * (i + 1), 1000 * (i + 1) + durs[i]);
    cuprof_summary *s = test_summary_build(run);
    ck_assert_uint_eq(s->api[0].min_ns, 10);
    ck_assert_uint_eq(s->api[0].median_ns, 40);
    ck_assert_uint_eq(s->api[0].max_ns, 70);
    ck_assert_uint_eq(s->api[0].cpu_total_ns, 280);
    test_summary_destroy(s);
    test_run_free(run);
}
END_TEST

/* ---- aggregation by class ----------------------------------------------- */

START_TEST(kernels_copies_blas)
{
    cuprof_api_register(APIS, NAPIS);
    static char stub1, stub2, handle2;
    cuprof_kernel_register(&stub1, "_Z10bias_add_kPfPKfi");
    cuprof_kernel_register(&stub2, "plain_c_kernel");
    cuprof_kernel_handle(&handle2, &stub2);
    for (int i = 0; i < 3; i++) {
        cuprof_event *ev = rec(6, CUPROF_EV_LAUNCH);
        ev->a.launch.kernel = cuprof_kernel_lookup(&stub1);
        cuprof_end(ev, 0);
    }
    cuprof_event *ev = rec(6, CUPROF_EV_LAUNCH);
    ev->a.launch.kernel = cuprof_kernel_lookup(&handle2);
    cuprof_end(ev, 0);
    ev = rec(6, CUPROF_EV_LAUNCH);   /* a kernel nobody registered */
    cuprof_end(ev, 0);
    struct { uint8_t cls, dir; uint64_t bytes; } copies[] = {
        {CUPROF_EV_COPY, CUPROF_DIR_HTOD, 100}, {CUPROF_EV_COPY, CUPROF_DIR_HTOD, 50},
        {CUPROF_EV_COPY, CUPROF_DIR_DTOH, 7}, {CUPROF_EV_MEMSET, CUPROF_DIR_MEMSET, 9},
    };
    for (size_t i = 0; i < 4; i++) {
        ev = rec(7, copies[i].cls);
        ev->a.copy.dir = copies[i].dir;
        ev->a.copy.bytes = copies[i].bytes;
        cuprof_end(ev, 0);
    }
    for (int i = 0; i < 5; i++) {   /* 3 calls of one shape, 2 of another */
        ev = rec(5, CUPROF_EV_BLAS);
        ev->a.blas.m = 64; ev->a.blas.n = 64; ev->a.blas.k = i < 3 ? 64 : 128;
        ev->a.blas.batch = 1;
        ev->a.blas.atype = 14;      /* CUDA_R_16BF */
        ev->a.blas.epilogue = 4;    /* CUBLASLT_EPILOGUE_BIAS */
        ev->a.blas.transa = 1;
        cuprof_end(ev, 0);
    }
    ev = rec(4, CUPROF_EV_BLAS);
    ev->a.blas.m = 8; ev->a.blas.n = 8; ev->a.blas.k = 8; ev->a.blas.batch = 4;
    ev->a.blas.atype = 2;   /* CUDA_R_16F */
    cuprof_end(ev, 0);

    cuprof_run *run = test_run_read_back();
    cuprof_summary *s = test_summary_build(run);
    ck_assert_uint_eq(s->nkernels, 3);
    ck_assert_str_eq(s->kernels[0].name, "bias_add_k(float*, float const*, int)");   /* demangled */
    ck_assert_uint_eq(s->kernels[0].launches, 3);
    ck_assert_uint_eq(s->kernels[0].gpu_total_ns, 0);
    int seen_plain = 0, seen_unknown = 0;
    for (size_t i = 1; i < 3; i++) {
        seen_plain += strcmp(s->kernels[i].name, "plain_c_kernel") == 0;
        seen_unknown += strcmp(s->kernels[i].name, "(unknown kernel)") == 0;
    }
    ck_assert_int_eq(seen_plain + seen_unknown, 2);
    ck_assert_uint_eq(s->ncopies, 3);
    ck_assert_str_eq(s->copies[0].kind, "HtoD");
    ck_assert_uint_eq(s->copies[0].calls, 2);
    ck_assert_uint_eq(s->copies[0].bytes, 150);
    ck_assert_str_eq(s->copies[1].kind, "DtoH");
    ck_assert_str_eq(s->copies[2].kind, "memset");
    ck_assert_uint_eq(s->copies[2].bytes, 9);
    ck_assert_uint_eq(s->nblas, 2);
    ck_assert_str_eq(s->blas[0].name, "cublasLtMatmul");
    ck_assert_uint_eq(s->blas[0].calls, 5);
    ck_assert_uint_eq(s->blas[0].nshapes, 2);
    ck_assert_uint_eq(s->blas[0].shapes[0].calls, 3);
    ck_assert_uint_eq(s->blas[0].shapes[0].k, 64);
    ck_assert_str_eq(s->blas[0].shapes[0].dtype, "bf16");
    ck_assert_str_eq(s->blas[0].shapes[0].epilogue, "BIAS");
    ck_assert_str_eq(s->blas[0].shapes[0].transa, "T");
    ck_assert_str_eq(s->blas[0].shapes[0].transb, "N");
    ck_assert_str_eq(s->blas[1].name, "cublasGemmEx");
    ck_assert_str_eq(s->blas[1].shapes[0].dtype, "fp16");
    ck_assert_str_eq(s->blas[1].shapes[0].epilogue, "DEFAULT");
    ck_assert_uint_eq(s->blas[1].shapes[0].batch, 4);
    test_summary_destroy(s);
    test_run_free(run);
}
END_TEST

START_TEST(vocabulary)
{
    ck_assert_str_eq(cuprof_dtype_name(14), "bf16");
    ck_assert_str_eq(cuprof_dtype_name(2), "fp16");
    ck_assert_str_eq(cuprof_dtype_name(0), "fp32");
    ck_assert_str_eq(cuprof_dtype_name(28), "fp8_e4m3");
    ck_assert_str_eq(cuprof_epilogue_name(0), "DEFAULT");
    ck_assert_str_eq(cuprof_epilogue_name(1), "DEFAULT");
    ck_assert_str_eq(cuprof_epilogue_name(6), "RELU_BIAS");
    ck_assert_str_eq(cuprof_epilogue_name(36), "GELU_BIAS");
    ck_assert_str_eq(cuprof_epilogue_name(999), "other");
    ck_assert_str_eq(cuprof_compute_name(68), "32F");
    ck_assert_str_eq(cuprof_dir_name(CUPROF_DIR_PTOP), "PtoP");
    ck_assert_str_eq(cuprof_trans_name(2), "C");
}
END_TEST

/* ---- kernel table ------------------------------------------------------- */

#define NSTUBS 20000
static char stubs[NSTUBS];
static char handles[NSTUBS];

START_TEST(kernel_table_lookups)
{
    char name[32];
    for (int i = 0; i < NSTUBS; i++) {
        snprintf(name, sizeof name, "k%d", i % 5000);   /* names repeat: interned once */
        cuprof_kernel_register(&stubs[i], name);
        cuprof_kernel_handle(&handles[i], &stubs[i]);
    }
    ck_assert_uint_eq(cuprof_kernel_count(), 5000);
    for (int i = 0; i < NSTUBS; i++) {
        uint32_t id = cuprof_kernel_lookup(&stubs[i]);
        ck_assert_uint_ne(id, 0);
        snprintf(name, sizeof name, "k%d", i % 5000);
        ck_assert_str_eq(cuprof_kernel_raw_name(id), name);
        ck_assert_uint_eq(cuprof_kernel_lookup(&handles[i]), id);
        if (i >= 5000)
            ck_assert_uint_eq(id, cuprof_kernel_lookup(&stubs[i - 5000]));
    }
    ck_assert_uint_eq(cuprof_kernel_lookup(NULL), 0);
    ck_assert_uint_eq(cuprof_kernel_lookup(&name), 0);
    ck_assert_ptr_null(cuprof_kernel_raw_name(0));
    cuprof_kernel_register(NULL, "x");      /* ignored */
    cuprof_kernel_register(&stubs[0], NULL);
    /* re-registration of a stub with another name rebinds it, even right
     * after a lookup of it (the thread's one-entry cache is dropped) */
    ck_assert_str_eq(cuprof_kernel_raw_name(cuprof_kernel_lookup(&stubs[1])), "k1");
    cuprof_kernel_register(&stubs[1], "renamed");
    ck_assert_str_eq(cuprof_kernel_raw_name(cuprof_kernel_lookup(&stubs[1])), "renamed");
    /* and a pointer looked up before it was registered is found after */
    static char late;
    ck_assert_uint_eq(cuprof_kernel_lookup(&late), 0);
    cuprof_kernel_register(&late, "late_kernel");
    ck_assert_str_eq(cuprof_kernel_raw_name(cuprof_kernel_lookup(&late)), "late_kernel");
}
END_TEST

static atomic_int published;   /* stubs[0..published) are registered */
static atomic_int stop_readers;

static void *lookup_loop(void *arg)
{
    (void)arg;
    long bad = 0, done = 0;
    while (!atomic_load(&stop_readers)) {
        int n = atomic_load(&published);
        for (int i = 0; i < n; i += 7) {
            uint32_t id = cuprof_kernel_lookup(&stubs[i]);
            bad += id == 0 || cuprof_kernel_lookup(&handles[i]) != id;
            done++;
        }
    }
    return (void *)(bad ? (intptr_t)bad : (done ? 0 : -1));
}

START_TEST(kernel_table_concurrent)
{
    pthread_t r[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&r[i], NULL, lookup_loop, NULL);
    char name[32];
    for (int i = 0; i < NSTUBS; i++) {
        snprintf(name, sizeof name, "kern_%d", i);
        cuprof_kernel_register(&stubs[i], name);
        cuprof_kernel_handle(&handles[i], &stubs[i]);
        atomic_store(&published, i + 1);
    }
    usleep(20000);
    atomic_store(&stop_readers, 1);
    for (int i = 0; i < 4; i++) {
        void *res;
        pthread_join(r[i], &res);
        ck_assert_ptr_null(res);
    }
    ck_assert_uint_eq(cuprof_kernel_count(), NSTUBS);
}
END_TEST

/* ---- configuration ------------------------------------------------------ */

START_TEST(config_parsing)
{
    uint64_t v;
    ck_assert_int_eq(cuprof_config_parse_size("512", &v), 0);
    ck_assert_uint_eq(v, 512);
    ck_assert_int_eq(cuprof_config_parse_size("64K", &v), 0);
    ck_assert_uint_eq(v, 65536);
    ck_assert_int_eq(cuprof_config_parse_size("2g", &v), 0);
    ck_assert_uint_eq(v, 2ull << 30);
    ck_assert_int_eq(cuprof_config_parse_size("1GiB", &v), 0);
    ck_assert_uint_eq(v, 1ull << 30);
    ck_assert_int_eq(cuprof_config_parse_size("", &v), -1);
    ck_assert_int_eq(cuprof_config_parse_size("12X", &v), -1);
    ck_assert_int_eq(cuprof_config_parse_size("-1", &v), -1);
    ck_assert_int_eq(cuprof_config_parse_size("99999999999999999999", &v), -1);

    cuprof_config c;
    char warn[1024];
    setenv("CUPROF_MEM_LIMIT", "lots", 1);
    setenv("CUPROF_QUIET", "maybe", 1);
    setenv("CUPROF_NAME", "a/b", 1);
    setenv("CUPROF_DEBUG", "collector,formats", 1);
    cuprof_config_load(&c, warn, sizeof warn);
    ck_assert_uint_eq(c.mem_limit, CUPROF_DEFAULT_MEM_LIMIT);
    ck_assert_int_eq(c.quiet, 0);
    ck_assert_str_eq(c.name, "");
    ck_assert_uint_eq(c.debug, CUPROF_DBG_COLLECTOR | CUPROF_DBG_FORMATS);
    ck_assert_ptr_nonnull(strstr(warn, "CUPROF_MEM_LIMIT"));
    ck_assert_ptr_nonnull(strstr(warn, "CUPROF_QUIET"));
    ck_assert_ptr_nonnull(strstr(warn, "CUPROF_NAME"));
    unsetenv("CUPROF_OUT_DIR");
    unsetenv("CUPROF_MEM_LIMIT");
    setenv("CUPROF_NAME", "run1", 1);
    setenv("CUPROF_ROOT_PID", "4242", 1);
    setenv("CUPROF_QUIET", "1", 1);
    cuprof_config_load(&c, warn, sizeof warn);
    ck_assert_str_eq(c.out_dir, CUPROF_DEFAULT_OUT_DIR);
    ck_assert_str_eq(c.name, "run1");
    ck_assert_int_eq(c.root_pid, 4242);
    ck_assert_int_eq(c.quiet, 1);
    ck_assert_str_eq(warn, "");
}
END_TEST

/* ---- lifecycle ---------------------------------------------------------- */

static void *exit_from_thread(void *arg)
{
    cuprof_event *ev = cuprof_begin(1, CUPROF_EV_CALL);
    cuprof_end(ev, 0);
    exit((int)(intptr_t)arg);
}

/* Runs body in a child process and returns its wait status. */
static int in_child(void (*body)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        body();
        exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return st;
}

static void child_records_then_exits_from_thread(void)
{
    setenv("CUPROF_NAME", "life", 1);
    cuprof_collector_init();
    cuprof_api_register(APIS, NAPIS);
    for (int i = 0; i < 10; i++)
        cuprof_end(cuprof_begin(0, CUPROF_EV_CALL), 0);
    pthread_t t;
    pthread_create(&t, NULL, exit_from_thread, (void *)(intptr_t)3);
    for (;;) {   /* keeps recording while the other thread exits */
        cuprof_end(cuprof_begin(2, CUPROF_EV_CALL), 0);
        usleep(10);
    }
}

START_TEST(exit_writes_files_once)
{
    int st = in_child(child_records_then_exits_from_thread);
    ck_assert(WIFEXITED(st));
    ck_assert_int_eq(WEXITSTATUS(st), 3);   /* the program's status, untouched */
    ck_assert_int_eq(count_files(NULL), 5);   /* the run file and the four outputs */
    ck_assert_int_eq(count_files(".report.html"), 1);
    ck_assert_int_eq(count_files(".cuprof"), 1);
    ck_assert_int_eq(count_files(".tmp"), 0);
    char p[600];
    snprintf(p, sizeof p, "%s/life.summary.json", tmpdir);
    json_error_t err;
    json_t *j = json_load_file(p, 0, &err);
    ck_assert_msg(j != NULL, "summary.json: %s", err.text);
    ck_assert_str_eq(json_string_value(json_object_get(j, "schema")), "cuprof.summary/1");
    json_t *api = json_object_get(j, "api");
    int found = 0;
    for (size_t i = 0; i < json_array_size(api); i++)
        if (strcmp(json_string_value(json_object_get(json_array_get(api, i), "name")), "cudaA") == 0)
            found = (int)json_integer_value(json_object_get(json_array_get(api, i), "calls"));
    ck_assert_int_eq(found, 10);
    json_decref(j);
    snprintf(p, sizeof p, "%s/life.trace.json", tmpdir);
    j = json_load_file(p, 0, &err);
    ck_assert_msg(j != NULL, "trace.json: %s", err.text);
    json_decref(j);
}
END_TEST

/* Nothing follows the END block: a kernel name interned after the exit
 * path completed the file (a CUPTI buffer the sim's teardown delivers, whose
 * callback writes the names new since the flusher's last round) must not be
 * appended after END (the file would read as a run not completed). */
static void child_names_after_end(void)
{
    static int stub_a, stub_b;
    setenv("CUPROF_NAME", "ended", 1);
    cuprof_collector_init();
    cuprof_api_register(APIS, NAPIS);
    cuprof_kernel_register(&stub_a, "before_end");
    for (int i = 0; i < 10; i++)
        cuprof_end(cuprof_begin(0, CUPROF_EV_CALL), 0);
    cuprof_collector_finish();
    cuprof_kernel_register(&stub_b, "after_end");
    cuprof_runfile_new_names();
    _exit(0);
}

START_TEST(nothing_after_end)
{
    int st = in_child(child_names_after_end);
    ck_assert(WIFEXITED(st));
    char p[600];
    snprintf(p, sizeof p, "%s/ended.cuprof", tmpdir);
    int fd = open(p, O_RDONLY);
    ck_assert_msg(fd >= 0, "no run file %s", p);
    struct stat sb;
    ck_assert_int_eq(fstat(fd, &sb), 0);
    cuprof_rf_block b;
    ck_assert(pread(fd, &b, sizeof b, sb.st_size - (off_t)sizeof b) == (ssize_t)sizeof b);
    close(fd);
    ck_assert_uint_eq(b.type, CUPROF_RF_END);
    ck_assert_uint_eq(b.len, 0);
}
END_TEST

static void child_without_cuda(void)
{
    cuprof_collector_init();   /* the constructor ran, but no CUDA call came */
}

START_TEST(no_cuda_no_files)
{
    int st = in_child(child_without_cuda);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    ck_assert_int_eq(count_files(NULL), 0);
}
END_TEST

static void child_disabled(void)
{
    setenv("CUPROF_ENABLE", "0", 1);
    cuprof_collector_init();
    ck_assert_ptr_null(cuprof_begin(0, CUPROF_EV_CALL));
}

START_TEST(disabled_records_nothing)
{
    int st = in_child(child_disabled);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    ck_assert_int_eq(count_files(NULL), 0);
}
END_TEST

static void child_forks(void)
{
    setenv("CUPROF_NAME", "fk", 1);
    char pid[32];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    setenv("CUPROF_ROOT_PID", pid, 1);
    cuprof_collector_init();
    cuprof_api_register(APIS, NAPIS);
    for (int i = 0; i < 10; i++)
        cuprof_end(cuprof_begin(0, CUPROF_EV_CALL), 0);
    fflush(NULL);
    pid_t c = fork();
    if (c == 0) {   /* starts empty, records its own, writes fk.<pid>.* */
        for (int i = 0; i < 3; i++)
            cuprof_end(cuprof_begin(1, CUPROF_EV_CALL), 0);
        cuprof_run *run = test_run_read_back();
        int ok = run->nevents == 3 && run->pid == (long)getpid();
        test_run_free(run);
        exit(ok ? 0 : 1);
    }
    int st;
    waitpid(c, &st, 0);
    cuprof_run *run = test_run_read_back();
    int ok = run->nevents == 10 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    test_run_free(run);
    exit(ok ? 0 : 1);
}

START_TEST(fork_child_starts_empty)
{
    int st = in_child(child_forks);
    ck_assert(WIFEXITED(st));
    ck_assert_int_eq(WEXITSTATUS(st), 0);
    ck_assert_int_eq(count_files("summary.json"), 2);
    char p[600];
    snprintf(p, sizeof p, "%s/fk.summary.json", tmpdir);   /* the root process: NAME */
    ck_assert_int_eq(access(p, F_OK), 0);
}
END_TEST

/* A fork while the flusher is inside a round leaves the locks it held then
 * held for good in the child. glibc's malloc takes its locks around fork;
 * the allocators of ASan and TSan (GCC 12's) and some malloc replacements
 * do not, and a child whose malloc needs a lock the parent's flusher held
 * waits forever (seen: fork_child_starts_empty under TSan, the parent's
 * flusher refilling TSan's allocator cache for its first META, the child
 * and its flusher stopped in that refill's lock). The hook stands for such
 * a lock: taken in the round and held a while; the child finds it free
 * only if the fork waited for the round. */
static pthread_mutex_t round_lock_seen = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int round_in;   /* the hook holds round_lock_seen */

static void slow_round(void)
{
    pthread_mutex_lock(&round_lock_seen);
    atomic_store(&round_in, 1);
    usleep(50 * 1000);
    atomic_store(&round_in, 0);
    pthread_mutex_unlock(&round_lock_seen);
}

static void child_forks_in_a_round(void)
{
    setenv("CUPROF_NAME", "fr", 1);
    cuprof_runfile_round_hook = slow_round;
    cuprof_collector_init();
    cuprof_api_register(APIS, NAPIS);
    cuprof_end(cuprof_begin(0, CUPROF_EV_CALL), 0);   /* the flusher starts: its first round */
    for (int i = 0; i < 100000 && !atomic_load(&round_in); i++)
        usleep(100);
    if (!atomic_load(&round_in))
        _exit(3);   /* the flusher never started */
    pid_t c = fork();
    if (c == 0)
        _exit(pthread_mutex_trylock(&round_lock_seen) == 0 ? 0 : 1);
    int st = 0;
    waitpid(c, &st, 0);
    _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 2);
}

START_TEST(fork_waits_for_the_flusher_round)
{
    int st = in_child(child_forks_in_a_round);
    ck_assert(WIFEXITED(st));
    ck_assert_msg(WEXITSTATUS(st) != 1, "the child was forked inside the flusher's round: "
                  "a lock the round held stays held in the child");
    ck_assert_int_eq(WEXITSTATUS(st), 0);
}
END_TEST

/* The overhead calibration (buffers.c) times the real hot path on a private
 * record: it measures something, and nothing of it is recorded: no thread,
 * no event, and the thread's own first event afterwards is event 1. */
static void *calibrate_then_record(void *arg)
{
    uint64_t *ns = arg;
    ns[0] = cuprof_buffers_calibrate();
    ns[1] = cuprof_buffers_calibrate();   /* again: still no record of its own */
    cuprof_event *ev = rec(0, CUPROF_EV_CALL);
    ns[2] = cuprof_event_id(ev);
    cuprof_end(ev, 0);
    ns[3] = cuprof_buffers_calibrate();   /* the thread records now: not measured */
    return NULL;
}

START_TEST(calibration_records_nothing)
{
    cuprof_api_register(APIS, NAPIS);
    cuprof_collector_init();
    cuprof_run *before = test_run_read_back();
    uint64_t n0 = before->nevents;
    size_t t0 = before->nthreads;
    test_run_free(before);
    uint64_t ns[4];
    pthread_t th;
    pthread_create(&th, NULL, calibrate_then_record, ns);
    pthread_join(th, NULL);
    ck_assert_uint_gt(ns[0], 0);
    ck_assert_uint_gt(ns[1], 0);
    ck_assert_uint_eq(ns[3], 0);
    cuprof_run *run = test_run_read_back();
    ck_assert_uint_eq(run->nthreads, t0 + 1);
    ck_assert_uint_eq(run->nevents, n0 + 1);   /* the thread's one call, no calibration pair */
    ck_assert_uint_eq(cuprof_event_id_seq(ns[2]), 0);
    ck_assert_uint_eq(run->threads[run->nthreads - 1].n, 1);
    test_run_free(run);
}
END_TEST

/* Outside a capture window (recording gated) the calibration still times
 * the recording path, and recording stays gated after it. */
static void *calibrate_only(void *arg)
{
    uint64_t *ns = arg;
    ns[0] = cuprof_buffers_calibrate();
    ns[1] = cuprof_begin(0, CUPROF_EV_CALL) == NULL;
    return NULL;
}

START_TEST(calibration_outside_the_window)
{
    setenv("CUPROF_CAPTURE_RANGE", "cudaProfilerApi", 1);
    cuprof_api_register(APIS, NAPIS);
    cuprof_collector_init();
    uint64_t ns[2];
    pthread_t th;
    pthread_create(&th, NULL, calibrate_only, ns);
    pthread_join(th, NULL);
    ck_assert_uint_gt(ns[0], 0);
    ck_assert_uint_eq(ns[1], 1);
    cuprof_run *run = test_run_read_back();
    ck_assert_uint_eq(run->nevents, 0);
    test_run_free(run);
}
END_TEST

/* ---- rank from the launcher's environment (place.c) ---------------------- */

static const char *const *fake_env;

static const char *fake_get(const char *name)
{
    for (size_t i = 0; fake_env && fake_env[i]; i += 2)
        if (!strcmp(fake_env[i], name))
            return fake_env[i + 1];
    return NULL;
}

static cuprof_place parse_env(const char *const *env)
{
    cuprof_place p;
    memset(&p, 0x5a, sizeof p);
    fake_env = env;
    cuprof_place_parse(&p, fake_get);
    return p;
}

START_TEST(rank_from_each_launcher)
{
    static const char *const ompi[] = {"OMPI_COMM_WORLD_RANK", "3", "OMPI_COMM_WORLD_SIZE", "4",
                                       "OMPI_COMM_WORLD_LOCAL_RANK", "1", "OMPI_COMM_WORLD_LOCAL_SIZE", "2",
                                       "PMIX_RANK", "3", "SLURM_PROCID", "0", NULL};
    cuprof_place p = parse_env(ompi);
    ck_assert_str_eq(p.launcher, "Open MPI");
    ck_assert_int_eq(p.rank, 3);
    ck_assert_int_eq(p.world_size, 4);
    ck_assert_int_eq(p.local_rank, 1);
    ck_assert_int_eq(p.local_size, 2);

    static const char *const torchrun[] = {"RANK", "5", "WORLD_SIZE", "8", "LOCAL_RANK", "1",
                                           "LOCAL_WORLD_SIZE", "4", "SLURM_PROCID", "1", NULL};
    p = parse_env(torchrun);   /* torchrun under srun: the process's rank, not the node's */
    ck_assert_str_eq(p.launcher, "torchrun");
    ck_assert_int_eq(p.rank, 5);
    ck_assert_int_eq(p.world_size, 8);
    ck_assert_int_eq(p.local_rank, 1);
    ck_assert_int_eq(p.local_size, 4);

    static const char *const slurm[] = {"SLURM_PROCID", "7", "SLURM_NTASKS", "16", "SLURM_LOCALID", "3",
                                        "RANK", "2", NULL};   /* RANK without WORLD_SIZE: not torchrun */
    p = parse_env(slurm);
    ck_assert_str_eq(p.launcher, "Slurm");
    ck_assert_int_eq(p.rank, 7);
    ck_assert_int_eq(p.world_size, 16);
    ck_assert_int_eq(p.local_rank, 3);
    ck_assert_int_eq(p.local_size, -1);

    static const char *const pmi[] = {"PMI_RANK", "1", "PMI_SIZE", "2", "MPI_LOCALRANKID", "0", NULL};
    p = parse_env(pmi);
    ck_assert_str_eq(p.launcher, "PMI");
    ck_assert_int_eq(p.rank, 1);
    ck_assert_int_eq(p.world_size, 2);
    ck_assert_int_eq(p.local_rank, 0);

    static const char *const pmix[] = {"PMIX_RANK", "9", NULL};
    p = parse_env(pmix);
    ck_assert_str_eq(p.launcher, "PMIx");
    ck_assert_int_eq(p.rank, 9);
    ck_assert_int_eq(p.world_size, -1);
}
END_TEST

START_TEST(no_rank_without_a_launcher)
{
    static const char *const none[] = {"HOME", "/root", NULL};
    cuprof_place p = parse_env(none);
    ck_assert_ptr_null(p.launcher);
    ck_assert_int_eq(p.rank, -1);
    ck_assert_int_eq(p.world_size, -1);
    /* not numbers, a rank past the size, a negative rank: no rank */
    static const char *const bad[] = {"OMPI_COMM_WORLD_RANK", "x1", "PMI_RANK", "4", "PMI_SIZE", "4",
                                      "RANK", "-1", "WORLD_SIZE", "2", "SLURM_PROCID", "1 ", NULL};
    p = parse_env(bad);
    ck_assert_ptr_null(p.launcher);
    ck_assert_int_eq(p.rank, -1);
}
END_TEST

Suite *collector_suite(void)
{
    Suite *s = suite_create("collector");
    TCase *tc = tcase_create("buffers");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, many_threads_nothing_lost);
    tcase_add_test(tc, many_threads_run_file_nothing_lost);
    tcase_add_test(tc, threads_give_memory_back);
    tcase_add_test(tc, program_descriptor_calls);
    tcase_add_test(tc, event_ids_unique_across_chunks);
    tcase_add_test(tc, api_table_names_the_apis_used);
    tcase_add_test(tc, open_calls_are_not_published);
    tcase_add_test(tc, compact_round_trip);
    tcase_add_test(tc, compact_repeated_launch_is_small);
    tcase_add_test(tc, compact_repeat_is_the_general_encoding);
    tcase_add_test(tc, call_without_end_is_kept);
    tcase_add_test(tc, guard_and_errno);
    tcase_add_test(tc, rank_from_each_launcher);
    tcase_add_test(tc, calibration_records_nothing);
    tcase_add_test(tc, calibration_outside_the_window);
    tcase_add_test(tc, no_rank_without_a_launcher);
    tcase_add_test(tc, capture_window_gates_recording);
    tcase_add_test(tc, chunks_to_run_file_nothing_lost);
    tcase_add_test(tc, run_file_unwritable_counts);
    tcase_add_test(tc, stamps_are_monotonic_ns);
    tcase_add_test(tc, chunks_decode_alone);
    tcase_add_test(tc, calls_that_outlive_their_chunk);
    tcase_add_test(tc, thread_claim_past_its_chunks);
    tcase_add_test(tc, killed_recovered_from_the_recording_memory);
    suite_add_tcase(s, tc);

    tc = tcase_create("aggregate");
    tcase_add_checked_fixture(tc, setup_ns_stamps, teardown);
    tcase_add_test(tc, depth_and_self_time);
    tcase_add_test(tc, median_min_max);
    tcase_add_test(tc, kernels_copies_blas);
    tcase_add_test(tc, vocabulary);
    suite_add_tcase(s, tc);

    tc = tcase_create("kernels");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, kernel_table_lookups);
    tcase_add_test(tc, kernel_table_concurrent);
    suite_add_tcase(s, tc);

    tc = tcase_create("lifecycle");
    /* as "buffers": the sanitizer builds under load (make tsan-test beside a
     * build) took more than Check's default 4 s for the flight ring's test */
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, config_parsing);
    tcase_add_test(tc, config_gpu_and_clock);
    tcase_add_test(tc, exit_writes_files_once);
    tcase_add_test(tc, nothing_after_end);
    tcase_add_test(tc, flight_ring_keeps_the_last_calls);
    tcase_add_test(tc, flight_error_asks_for_a_window);
    tcase_add_test(tc, no_cuda_no_files);
    tcase_add_test(tc, disabled_records_nothing);
    tcase_add_test(tc, fork_child_starts_empty);
    tcase_add_test(tc, fork_waits_for_the_flusher_round);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(collector_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
