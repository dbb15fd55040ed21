/*
 * test_e2e_killed.c - a process killed outright under prof.sh (issue 42.2,
 * 42.5, 42.6), on the simulated device: its supervisor recovers every call
 * it had completed from the recording memory they share (collector/shm.h,
 * tools/recover.c), the flight recorder's last window, and names the
 * kernel's OOM killer. kill_prog counts its own calls in a MAP_SHARED file,
 * which the kill cannot take away: the outputs are checked against it.
 * Without the supervisor (CUPROF_SUPERVISE=0) nothing of it is used.
 *
 * The OOM test makes a memory cgroup of its own (cgroup v2 where
 * /sys/fs/cgroup is one with the memory controller, else v1's memory
 * controller) and runs prof.sh inside it; where neither can be made (not
 * root, a read-only cgroupfs, a container that does not delegate it) it
 * says SKIPPED and why.
 */
#include "harness.h"
#include "trace_check.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TIMEOUT_S 120
#define THREADS 2

static char *dir;

static void setup(void)
{
    dir = e2e_tmpdir();
    ck_assert_ptr_nonnull(dir);
}

static void teardown(void)
{
    e2e_rmtree(dir);
    free(dir);
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static char *path_in(const char *sub, const char *file)
{
    char *p = malloc(8400);
    snprintf(p, 8400, "%s/%s/%s", dir, sub, file);
    return p;
}

/* A try: kill_prog count under prof.sh (EXTRA options first), SIGKILL
 * after ms milliseconds; the program's own counts into own[]. Returns the
 * kill's time (CLOCK_MONOTONIC). */
static uint64_t kill_try_via(const char *sub, const char *const extra[], unsigned ms,
                             uint64_t own[THREADS], int via_sh);

static uint64_t kill_try(const char *sub, const char *const extra[], unsigned ms, uint64_t own[THREADS])
{
    return kill_try_via(sub, extra, ms, own, 0);
}

/* via_sh: the program exec'd by a shell prof.sh started (the shell maps the
 * recording memory and closes its descriptor; the program opens it again
 * through the supervisor's /proc/PID/fd). */
static uint64_t kill_try_via(const char *sub, const char *const extra[], unsigned ms,
                             uint64_t own[THREADS], int via_sh)
{
    char sd[4200], counts[4300], out[4300];
    snprintf(sd, sizeof sd, "%s/%s", dir, sub);
    mkdir(sd, 0755);
    snprintf(counts, sizeof counts, "%s/counts", sd);
    snprintf(out, sizeof out, "%s/out", sd);
    int fd = open(counts, O_RDWR | O_CREAT | O_TRUNC, 0644);
    ck_assert(fd >= 0 && ftruncate(fd, 64 * THREADS) == 0);
    close(fd);
    char nthreads[8];
    snprintf(nthreads, sizeof nthreads, "%d", THREADS);
    const char *args[32] = {"-o", out, "-n", "x"};
    int n = 4;
    for (int i = 0; extra && extra[i]; i++)
        args[n++] = extra[i];
    if (via_sh) {
        args[n++] = "/bin/sh";
        args[n++] = "-c";
        args[n++] = "exec \"$0\" \"$@\"";
    }
    args[n++] = e2e_bpath("tests/kill_prog");
    args[n++] = "count";
    args[n++] = counts;
    args[n++] = nthreads;
    args[n++] = "100";   /* a call every 0.1 ms on each thread */
    args[n] = NULL;
    pid_t prog;
    pid_t pid = e2e_start_profsh(args, NULL, "kill_prog", NULL, &prog);
    ck_assert_msg(pid > 0 && prog > 0, "%s: kill_prog did not start", sub);
    usleep(ms * 1000u);
    uint64_t killed = mono_ns();
    kill(prog, SIGKILL);
    int st = 0;
    waitpid(pid, &st, 0);
    ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "%s: prof.sh status %d", sub, st);
    fd = open(counts, O_RDONLY);
    ck_assert(fd >= 0);
    for (int k = 0; k < THREADS; k++)
        ck_assert(pread(fd, &own[k], 8, 64 * k) == 8);
    close(fd);
    return killed;
}

/* summary.json's row of API name (api[]), NULL when none. */
static json_t *api_row(json_t *sum, const char *name)
{
    json_t *rows = json_object_get(sum, "api"), *r;
    size_t i;
    json_array_foreach(rows, i, r) {
        const char *n = json_string_value(json_object_get(r, "name"));
        if (n && !strcmp(n, name))
            return r;
    }
    return NULL;
}

static long long memset_calls(json_t *sum)
{
    json_t *r = api_row(sum, "cudaMemset");
    return r ? e2e_int(r, "calls") : -1;
}

/* SIGKILL at 10 random moments of a program making calls on 2 threads (the
 * last one exec'd by a shell, which took the recording memory's descriptor
 * with it: the program finds the memory by the supervisor's /proc): the
 * outputs hold exactly the calls the program counted as returned (each
 * thread's call in flight, returned but not counted yet, at most more),
 * pass the trace checks, hold the GPU records CUPTI handed over (it flushes
 * once a second: the last ended within 1.2 s of the kill), and name the
 * NVTX marks made in the last moments (names interned after the flusher's
 * last round come from the names log). */
START_TEST(sigkill_at_random_moments_recovers_every_call)
{
    srand(42);
    for (int k = 0; k < 10; k++) {
        char sub[16];
        snprintf(sub, sizeof sub, "k%d", k);
        const char *extra[] = {"--format", "json", NULL};
        uint64_t own[THREADS];
        unsigned ms = 300 + (unsigned)(rand() % 1700);
        uint64_t killed = kill_try_via(sub, extra, ms, own, k == 9);   /* the last: exec'd */
        char *sp = path_in(sub, "out/x.summary.json");
        json_t *sum = e2e_load_json(sp);
        ck_assert_msg(sum != NULL, "try %d: no summary", k);
        ck_assert_str_eq(e2e_str(sum, "ended_by"), "SIGKILL");
        ck_assert(json_is_true(json_object_get(sum, "truncated")));
        json_t *kd = json_object_get(sum, "killed");
        ck_assert_msg(json_is_true(json_object_get(kd, "recovered_from_memory")),
                      "try %d: not recovered from the recording memory", k);
        ck_assert_str_eq(e2e_str(kd, "by"), "a signal");
        uint64_t total = own[0] + own[1];
        long long rec = memset_calls(sum);
        ck_assert_msg(rec >= (long long)total && rec <= (long long)total + THREADS,
                      "try %d (killed after %u ms): %lld cudaMemset calls recorded, the program "
                      "counted %llu", k, ms, rec, (unsigned long long)total);
        const char *lost = json_string_value(json_object_get(json_object_get(sum, "run_file"), "lost"));
        ck_assert_msg(lost && strstr(lost, "and its recording memory"), "try %d: %s", k,
                      lost ? lost : "(none)");
        json_decref(sum);
        free(sp);

        char *tp = path_in(sub, "out/x.trace.json");
        json_t *tr = e2e_load_json(tp);
        ck_assert_msg(tr != NULL, "try %d: no trace", k);
        char bad[2048];
        ck_assert_msg(trace_check(tr, bad, sizeof bad, 5) == 0, "try %d: %s", k, bad);
        json_t *base = json_object_get(tr, "baseTimeNanoseconds");
        uint64_t b = json_is_integer(base) ? (uint64_t)json_integer_value(base)
                                           : (uint64_t)json_real_value(base);
        double last_gpu = 0;
        uint64_t marks = 0, named = 0;
        json_t *evs = json_object_get(tr, "traceEvents"), *ev;
        size_t i;
        json_array_foreach(evs, i, ev) {
            const char *ph = json_string_value(json_object_get(ev, "ph"));
            const char *name = json_string_value(json_object_get(ev, "name"));
            const char *cat = json_string_value(json_object_get(ev, "cat"));
            if (ph && !strcmp(ph, "i") && cat && !strcmp(cat, "nvtx")) {
                unsigned t;
                unsigned long long c;
                marks++;
                named += name && sscanf(name, "t%u.%llu", &t, &c) == 2;
            }
            if (!ph || strcmp(ph, "X") || !cat || strcmp(cat, "gpu_memset"))
                continue;
            double end = json_number_value(json_object_get(ev, "ts")) +
                         json_number_value(json_object_get(ev, "dur"));
            if (end > last_gpu)
                last_gpu = end;
        }
        /* a mark follows every 1024th counted call (and may be the one in flight) */
        uint64_t want = own[0] / 1024 + own[1] / 1024;
        ck_assert_msg(marks >= want && marks <= want + THREADS && named == marks,
                      "try %d: %llu marks (%llu named), %llu made", k, (unsigned long long)marks,
                      (unsigned long long)named, (unsigned long long)want);
        uint64_t gpu_ns = b + (uint64_t)(last_gpu * 1000.0);
        /* a kill in the first 1.4 s may come before CUPTI's first flush */
        ck_assert_msg(killed < b + 1400000000u || (last_gpu > 0 && gpu_ns + 1200000000u >= killed),
                      "try %d: the last GPU record kept ended %.1f ms before the kill", k,
                      ((double)killed - (double)gpu_ns) / 1e6);
        json_decref(tr);
        free(tp);
    }
}
END_TEST

static json_t *flight_of(json_t *sum)
{
    return json_object_get(json_object_get(sum, "capture"), "flight_recorder");
}

/* --flight-recorder killed by SIGKILL leaves NAME.* with its last window,
 * marked with the signal: 30 s (longer than the run) holds every call the
 * program counted; 1 s after 2.5 s holds that last second only. */
START_TEST(flight_recorder_window_survives_sigkill)
{
    const char *long_span[] = {"--format", "none", "--flight-recorder", "30s", NULL};
    uint64_t own[THREADS];
    kill_try("a", long_span, 1500, own);
    char *sp = path_in("a", "out/x.summary.json");
    json_t *sum = e2e_load_json(sp);
    ck_assert_ptr_nonnull(sum);
    ck_assert_str_eq(e2e_str(sum, "ended_by"), "SIGKILL");
    ck_assert_str_eq(e2e_str(flight_of(sum), "why"), "the process was killed (SIGKILL)");
    long long rec = memset_calls(sum);
    uint64_t total = own[0] + own[1];
    ck_assert_msg(rec >= (long long)total && rec <= (long long)total + THREADS,
                  "%lld cudaMemset calls in the window, the program counted %llu", rec,
                  (unsigned long long)total);
    json_decref(sum);
    free(sp);

    const char *short_span[] = {"--format", "json", "--flight-recorder", "1s", NULL};
    uint64_t killed = kill_try("b", short_span, 2500, own);
    sp = path_in("b", "out/x.summary.json");
    sum = e2e_load_json(sp);
    ck_assert_ptr_nonnull(sum);
    ck_assert_str_eq(e2e_str(sum, "ended_by"), "SIGKILL");
    ck_assert_str_eq(e2e_str(flight_of(sum), "why"), "the process was killed (SIGKILL)");
    long long in_window = memset_calls(sum);
    total = own[0] + own[1];
    long long recorded_ns = e2e_int(json_object_get(sum, "capture"), "recorded_ns");
    ck_assert_msg(recorded_ns >= 900000000 && recorded_ns <= 1100000000, "window of %lld ns",
                  recorded_ns);
    ck_assert_msg(in_window > 0 && (uint64_t)in_window < total * 3 / 4,
                  "%lld calls in the last second of %llu", in_window, (unsigned long long)total);
    json_decref(sum);
    free(sp);
    /* the calls kept are the last second's */
    char *tp = path_in("b", "out/x.trace.json");
    json_t *tr = e2e_load_json(tp);
    ck_assert_ptr_nonnull(tr);
    json_t *base = json_object_get(tr, "baseTimeNanoseconds");
    uint64_t b = json_is_integer(base) ? (uint64_t)json_integer_value(base)
                                       : (uint64_t)json_real_value(base);
    double first = -1, last = 0;
    json_t *evs = json_object_get(tr, "traceEvents"), *ev;
    size_t i;
    json_array_foreach(evs, i, ev) {
        const char *name = json_string_value(json_object_get(ev, "name"));
        const char *ph = json_string_value(json_object_get(ev, "ph"));
        if (!name || !ph || strcmp(ph, "X") || strcmp(name, "cudaMemset"))
            continue;
        double ts = json_number_value(json_object_get(ev, "ts"));
        if (first < 0 || ts < first)
            first = ts;
        if (ts > last)
            last = ts;
    }
    /* signed: the program's threads run on until SIGKILL lands, a few µs after
     * the clock read before kill(), so the last call may start after it */
    uint64_t first_ns = b + (uint64_t)(first * 1000.0), last_ns = b + (uint64_t)(last * 1000.0);
    int64_t before_first = (int64_t)(killed - first_ns), before_last = (int64_t)(killed - last_ns);
    ck_assert_msg(first >= 0 && before_first < 1200000000 && before_last < 200000000 &&
                      before_last > -50000000,
                  "calls from %.1f ms to %.1f ms before the kill", (double)before_first / 1e6,
                  (double)before_last / 1e6);
    json_decref(tr);
    free(tp);
}
END_TEST

/* ---- the OOM killer ------------------------------------------------------------------ */

static int write_file(const char *path, const char *v)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, v, strlen(v));
    int e = errno;
    close(fd);
    errno = e;
    return n == (ssize_t)strlen(v) ? 0 : -1;
}

/* A memory cgroup of our own with a limit of `limit`: its directory into
 * cg, 0; or -1 with why. v2 first (/sys/fs/cgroup a cgroup2 with the memory
 * controller, delegated to a child of the root), else v1's memory
 * controller under our own memory cgroup. */
static int make_cgroup(char *cg, size_t n, const char *limit, char *why, size_t wn)
{
    struct statfs sf;
    if (geteuid() != 0) {
        snprintf(why, wn, "not root: a memory cgroup cannot be made");
        return -1;
    }
    if (statfs("/sys/fs/cgroup", &sf) == 0 && sf.f_type == 0x63677270 /* CGROUP2_SUPER_MAGIC */) {
        char *ctl = e2e_read_file("/sys/fs/cgroup/cgroup.controllers", NULL);
        int mem = ctl && strstr(ctl, "memory") != NULL;
        free(ctl);
        if (!mem) {
            snprintf(why, wn, "/sys/fs/cgroup is cgroup v2 without the memory controller");
            return -1;
        }
        (void)write_file("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
        snprintf(cg, n, "/sys/fs/cgroup/cuprof-oom-%d", (int)getpid());
        char f[4400];
        snprintf(f, sizeof f, "%s/memory.max", cg);
        if (mkdir(cg, 0755) != 0 || access(f, W_OK) != 0 || write_file(f, limit) != 0) {
            snprintf(why, wn, "/sys/fs/cgroup is cgroup v2 but %s cannot be made with a memory "
                     "limit (%s): not delegated here", cg, strerror(errno));
            rmdir(cg);
            return -1;
        }
        snprintf(f, sizeof f, "%s/memory.swap.max", cg);
        (void)write_file(f, "0");
        return 0;
    }
    /* v1: /sys/fs/cgroup/memory, under our own memory cgroup */
    char *self = e2e_read_file("/proc/self/cgroup", NULL), *path = NULL;
    for (char *l = self ? strtok(self, "\n") : NULL; l; l = strtok(NULL, "\n")) {
        char *a = strchr(l, ':'), *b = a ? strchr(a + 1, ':') : NULL;
        if (b && !strncmp(a + 1, "memory:", 7))
            path = b + 1;
    }
    if (!path || access("/sys/fs/cgroup/memory/memory.limit_in_bytes", F_OK) != 0) {
        snprintf(why, wn, "/sys/fs/cgroup is neither cgroup v2 nor has v1's memory controller");
        free(self);
        return -1;
    }
    snprintf(cg, n, "/sys/fs/cgroup/memory%s/cuprof-oom-%d", strcmp(path, "/") ? path : "",
             (int)getpid());
    free(self);
    char f[4400];
    snprintf(f, sizeof f, "%s/memory.limit_in_bytes", cg);
    if (mkdir(cg, 0755) != 0 || write_file(f, limit) != 0) {
        snprintf(why, wn, "cgroup v1's memory controller: %s cannot be made with a limit (%s)", cg,
                 strerror(errno));
        rmdir(cg);
        return -1;
    }
    snprintf(f, sizeof f, "%s/memory.swappiness", cg);
    (void)write_file(f, "0");
    return 0;
}

/* A program that grows its host memory until the kernel's OOM killer ends
 * it (a 256 MiB cgroup), under prof.sh: prof.sh ends as it did (SIGKILL),
 * the outputs say it was the OOM killer (summary.txt's TRUNCATED line,
 * summary.json's "killed", stderr), and the killed-by-oom finding gives the
 * host memory when last seen, the cgroup's limit, the device memory held
 * (16 MiB in 3 allocations) and its largest owners (cudaMalloc 12 MiB, then
 * cudaMallocManaged). */
START_TEST(oom_killer_named)
{
    char cg[4200], why[4400];
    if (make_cgroup(cg, sizeof cg, "268435456", why, sizeof why) != 0) {
        fprintf(stderr, "SKIPPED the OOM killer test: %s\n", why);
        return;
    }
    char out[4200], log[4300], cmd[13000];
    snprintf(out, sizeof out, "%s/oom", dir);
    snprintf(log, sizeof log, "%s/oom.log", dir);
    /* prof.sh and all it starts inside the cgroup, as a container runs them */
    snprintf(cmd, sizeof cmd, "echo $$ > %s/cgroup.procs && exec %s -o %s -n x --format none %s oom 16",
             cg, e2e_path("prof.sh"), out, e2e_bpath("tests/kill_prog"));
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    e2e_result r = e2e_run(argv, (const char *const[]){e2e_sim_env(), NULL}, NULL, TIMEOUT_S);
    rmdir(cg);
    ck_assert_msg(r.status == 128 + SIGKILL, "status %d\n%s\n%s", r.status, r.out, r.err);
    ck_assert_msg(strstr(r.out, "oom ready"), "%s", r.out);
    ck_assert_msg(strstr(r.err, "the process was killed by the OOM killer (SIGKILL; its memory cgroup"),
                  "stderr:\n%s", r.err);
    e2e_result_free(&r);
    char sp[4400], tp[4400];
    snprintf(sp, sizeof sp, "%s/x.summary.json", out);
    snprintf(tp, sizeof tp, "%s/x.summary.txt", out);
    json_t *sum = e2e_load_json(sp);
    ck_assert_ptr_nonnull(sum);
    ck_assert_str_eq(e2e_str(sum, "ended_by"), "SIGKILL");
    json_t *kd = json_object_get(sum, "killed");
    ck_assert_str_eq(e2e_str(kd, "by"), "the OOM killer");
    ck_assert_int_eq(e2e_int(kd, "memory_limit_bytes"), 268435456);
    ck_assert_int_gt(e2e_int(kd, "rss_bytes"), 64 << 20);
    json_t *fs = json_object_get(sum, "findings"), *f, *oom = NULL;
    size_t i;
    json_array_foreach(fs, i, f)
        if (!strcmp(e2e_str(f, "rule"), "killed-by-oom"))
            oom = f;
    ck_assert_msg(oom != NULL, "no killed-by-oom finding");
    const char *msg = e2e_str(oom, "message");
    ck_assert_msg(strstr(msg, "killed by the kernel's OOM killer") &&
                      strstr(msg, "16.00 MiB in 3 allocations") &&
                      strstr(msg, "largest owners cudaMalloc (12.00 MiB in 2), cudaMallocManaged "
                                  "(4.00 MiB in 1)") &&
                      strstr(msg, "its cgroup's limit 256.00 MiB"),
                  "%s", msg);
    json_t *nums = json_object_get(oom, "numbers");
    ck_assert_int_eq(e2e_int(nums, "device_held_bytes"), 16 << 20);
    ck_assert_int_gt(e2e_int(nums, "rss_bytes"), 64 << 20);
    json_decref(sum);
    char *txt = e2e_read_file(tp, NULL);
    ck_assert_msg(txt && strstr(txt, "TRUNCATED:     the process was killed by the OOM killer"), "%s",
                  txt ? txt : "(none)");
    free(txt);

    /* a worker the program forked is the one killed: the program ends well
     * (its own outputs), the worker's say the OOM killer too (cuprof-run
     * watches every recording process of the run) */
    if (make_cgroup(cg, sizeof cg, "268435456", why, sizeof why) != 0)
        ck_abort_msg("the cgroup cannot be made a second time: %s", why);
    snprintf(out, sizeof out, "%s/oomw", dir);
    snprintf(cmd, sizeof cmd, "echo $$ > %s/cgroup.procs && exec %s -o %s -n x --format none %s oom-worker 16",
             cg, e2e_path("prof.sh"), out, e2e_bpath("tests/kill_prog"));
    r = e2e_run(argv, (const char *const[]){e2e_sim_env(), NULL}, NULL, TIMEOUT_S);
    rmdir(cg);
    ck_assert_msg(r.status == 0 && strstr(r.out, "worker ended by signal 9"), "status %d\n%s\n%s",
                  r.status, r.out, r.err);
    ck_assert_msg(strstr(r.err, "killed by the OOM killer"), "stderr:\n%s", r.err);
    e2e_result_free(&r);
    snprintf(sp, sizeof sp, "%s/x.summary.json", out);
    sum = e2e_load_json(sp);
    ck_assert_ptr_nonnull(sum);
    ck_assert_str_eq(e2e_str(sum, "ended_by"), "exit");
    json_decref(sum);
    char *wp = NULL;   /* the worker's: x.PID.summary.json */
    DIR *d = opendir(out);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (!strncmp(e->d_name, "x.", 2) && strstr(e->d_name, ".summary.json") &&
            strcmp(e->d_name, "x.summary.json")) {
            wp = malloc(8400);
            snprintf(wp, 8400, "%s/%s", out, e->d_name);
        }
    if (d)
        closedir(d);
    ck_assert_msg(wp != NULL, "no worker summary in %s", out);
    sum = e2e_load_json(wp);
    ck_assert_ptr_nonnull(sum);
    ck_assert_str_eq(e2e_str(sum, "ended_by"), "SIGKILL");
    ck_assert_str_eq(e2e_str(json_object_get(sum, "killed"), "by"), "the OOM killer");
    ck_assert_int_gt(e2e_int(json_object_get(sum, "killed"), "rss_bytes"), 64 << 20);
    json_decref(sum);
    free(wp);
}
END_TEST

/* Without the supervisor (CUPROF_SUPERVISE=0) the program gets no recording
 * memory (recording is as before: a kill leaves the run file for prof.sh
 * report); with it, the memory's descriptor is closed at start, so the
 * program never sees it among its own. */
START_TEST(supervisor_memory_only_with_the_supervisor)
{
    char out[4200];
    snprintf(out, sizeof out, "%s/e", dir);
    const char *env_argv[] = {e2e_path("prof.sh"), "-o", out, "-n", "e", "/bin/sh", "-c",
                              "env; ls /proc/self/fd", NULL};
    const char *sup0[] = {"CUPROF_SUPERVISE=0", NULL};
    e2e_result r = e2e_run(env_argv, sup0, NULL, TIMEOUT_S);
    ck_assert_msg(r.status == 0 && !strstr(r.out, "CUPROF_SHM="), "%d\n%s", r.status, r.out);
    e2e_result_free(&r);
    r = e2e_run(env_argv, NULL, NULL, TIMEOUT_S);
    ck_assert_msg(r.status == 0 && strstr(r.out, "CUPROF_SHM="), "%d\n%s", r.status, r.out);
    int fd = -1;
    sscanf(strstr(r.out, "CUPROF_SHM=") + 11, "%d", &fd);
    ck_assert_int_ge(fd, 48);
    char line[16];
    snprintf(line, sizeof line, "\n%d\n", fd);
    ck_assert_msg(!strstr(r.out, line), "descriptor %d still open in the program:\n%s", fd, r.out);
    e2e_result_free(&r);

    /* SIGKILL without the supervisor: the run file stays, as before */
    char sd[4200], counts[4300], o2[4300];
    snprintf(sd, sizeof sd, "%s/n", dir);
    mkdir(sd, 0755);
    snprintf(counts, sizeof counts, "%s/counts", sd);
    snprintf(o2, sizeof o2, "%s/out", sd);
    fd = open(counts, O_RDWR | O_CREAT | O_TRUNC, 0644);
    ck_assert(fd >= 0 && ftruncate(fd, 64) == 0);
    close(fd);
    const char *args[] = {"-o", o2, "-n", "x", e2e_bpath("tests/kill_prog"), "count", counts, "1",
                          "100", NULL};
    pid_t prog;
    pid_t pid = e2e_start_profsh(args, sup0, "kill_prog", NULL, &prog);
    ck_assert(pid > 0);
    usleep(800000);
    kill(pid, SIGKILL);   /* (prof.sh exec'd the program: the same process) */
    int st;
    waitpid(pid, &st, 0);
    char rf[4400];
    snprintf(rf, sizeof rf, "%s/.cuprof-run.%d", o2, (int)pid);
    ck_assert_msg(access(rf, F_OK) == 0, "no %s", rf);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("e2e_killed");
    TCase *t = tcase_create("killed");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 600);
    tcase_add_test(t, sigkill_at_random_moments_recovers_every_call);
    tcase_add_test(t, flight_recorder_window_survives_sigkill);
    tcase_add_test(t, oom_killer_named);
    tcase_add_test(t, supervisor_memory_only_with_the_supervisor);
    suite_add_tcase(s, t);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
