/*
 * test_e2e_robust.c - the exit paths end to end on the simulated device: every way
 * a process ends writes complete, valid files exactly once, and the program
 * behaves as it does without the profiler.
 *
 * robust_prog (tests/e2e/robust_prog.c) ends in the way its argument says;
 * each case runs it plain and under prof.sh, single- and multi-threaded,
 * and compares: exit status (or signal), stdout byte for byte, stderr apart
 * from "cuprof:" lines; then checks the files: exactly one set, no temporary
 * file left, both JSON files valid, the calls counted exactly, ended_by and
 * truncated as expected (and summary.txt's TRUNCATED line).
 */
#include "harness.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TIMEOUT_S 60
#define CALLS 20   /* robust_prog's default: cudaMalloc + cudaFree each */

static char *dir;

static void setup(void)
{
    dir = e2e_tmpdir();
}

static void teardown(void)
{
    e2e_rmtree(dir);
    free(dir);
}

/* Appends [prof.sh -o dir] robust_prog ARGS to argv[n..] (max entries in
 * all, the NULL included) and ends it with NULL. */
static void prog_argv(const char **argv, int n, int max, int prof, const char *const args[])
{
    if (prof) {
        argv[n++] = e2e_path("prof.sh");
        argv[n++] = "-o";
        argv[n++] = dir;
    }
    argv[n++] = e2e_bpath("tests/robust_prog");
    for (int i = 0; args[i] && n < max - 1; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
}

/* robust_prog ARGS under prof.sh -o dir (prof = 1) or plain, on the sim,
 * with up to 4 extra env entries. */
static e2e_result run_prog(int prof, const char *const env[], const char *const args[])
{
    const char *argv[40];
    prog_argv(argv, 0, 40, prof, args);
    const char *envv[8] = {e2e_sim_env()};
    for (int i = 0; env && env[i] && i < 6; i++)
        envv[i + 1] = env[i];
    return e2e_run(argv, envv, NULL, TIMEOUT_S);
}

/* s without its lines that start with "cuprof:" (malloc'd). */
static char *strip_cuprof(const char *s)
{
    char *out = malloc(strlen(s) + 1), *o = out;
    for (const char *p = s; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
        if (strncmp(p, "cuprof:", 7) != 0) {
            memcpy(o, p, len);
            o += len;
        }
        p += len;
    }
    *o = '\0';
    return out;
}

/* Names in dir: final files (*.trace.json, *.summary.*) and temporaries. */
static int list_dir(const char *d, char names[][256], int max, int *ntmp)
{
    DIR *dp = opendir(d);
    int n = 0;
    *ntmp = 0;
    struct dirent *e;
    while (dp && (e = readdir(dp))) {
        if (e->d_name[0] == '.') {
            *ntmp += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
            continue;
        }
        if (n < max)
            snprintf(names[n++], 256, "%s", e->d_name);
    }
    if (dp)
        closedir(dp);
    return n;
}

/* Checks dir holds exactly `sets` complete sets of files and no temporary
 * file; returns the parsed summary.json of the set whose name contains
 * `pick` (or the first), owned by the caller. */
static json_t *check_sets(int sets, const char *pick)
{
    char names[64][256];
    int ntmp;
    int n = list_dir(dir, names, 64, &ntmp);
    ck_assert_msg(ntmp == 0, "%d temporary file(s) left in %s", ntmp, dir);
    /* a set: the run file and the four outputs (trace, summaries, report page) */
    ck_assert_msg(n == 5 * sets, "%d files in %s, want %d", n, dir, 5 * sets);
    json_t *picked = NULL;
    for (int i = 0; i < n; i++) {
        char path[20000];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (strstr(names[i], ".json")) {
            json_t *j = e2e_load_json(path);
            ck_assert_msg(j != NULL, "%s is not valid JSON", names[i]);
            if (strstr(names[i], ".summary.json") && !picked && (!pick || strstr(names[i], pick)))
                picked = j;
            else
                json_decref(j);
        } else if (strstr(names[i], ".cuprof")) {
            /* the run file: its header, and an END block last (completed);
             * read where they are, not whole (it may be large) */
            int fd = open(path, O_RDONLY);
            struct stat st;
            char head[16], tail[24];
            ck_assert(fd >= 0 && fstat(fd, &st) == 0);
            ck_assert_msg(st.st_size >= 88 && st.st_size < (1ll << 32),
                          "%s: %lld bytes", names[i], (long long)st.st_size);
            ck_assert(pread(fd, head, 16, 0) == 16 && pread(fd, tail, 24, st.st_size - 24) == 24);
            close(fd);
            ck_assert_msg(memcmp(head, "CUPROF-RUNFILE\n", 15) == 0, "%s is not a run file", names[i]);
            uint32_t type;
            uint64_t blen;
            memcpy(&type, tail, 4);
            memcpy(&blen, tail + 8, 8);
            ck_assert_msg(type == 16 && blen == 0, "%s was not completed", names[i]);
        } else if (strstr(names[i], ".report.html")) {   /* the page: complete, its data inside */
            char *t = e2e_read_file(path, NULL);
            ck_assert_msg(t && strstr(t, "<script id=\"cuprof-data\"") && strstr(t, "</body></html>\n"),
                          "%s is not a complete page", names[i]);
            free(t);
        } else {
            char *t = e2e_read_file(path, NULL);
            ck_assert_msg(t && strstr(t, "Self CPU time total"), "%s is not a complete table", names[i]);
            free(t);
        }
    }
    ck_assert(picked != NULL);
    return picked;
}

static long long jint(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    ck_assert_msg(json_is_integer(v), "summary.json has no integer %s", key);
    return json_integer_value(v);
}

/* ---- each exit path x single/multi-thread ------------------------------------------- */

static const struct exit_case {
    const char *end;        /* robust_prog's END */
    int status;             /* exit status, 128 + signal when killed */
    const char *ended_by;   /* summary.json */
    int truncated;
} cases[] = {
    {"return", 3, "exit", 0},
    {"exit", 3, "exit", 0},
    {"exit-thread", 3, "exit", 0},
    {"_exit", 4, "_exit", 0},
    {"_Exit", 4, "_Exit", 0},
    {"quick_exit", 4, "quick_exit", 0},
    {"SIGINT", 128 + SIGINT, "SIGINT", 0},
    {"SIGTERM", 128 + SIGTERM, "SIGTERM", 0},
    {"SIGHUP", 128 + SIGHUP, "SIGHUP", 0},
    {"SIGQUIT", 128 + SIGQUIT, "SIGQUIT", 0},
    {"abort", 128 + SIGABRT, "SIGABRT", 1},
    {"segv", 128 + SIGSEGV, "SIGSEGV", 1},
    {"segv-in-cuda", 128 + SIGSEGV, "SIGSEGV", 1},   /* inside cudaMemcpy (issue 29) */
    {"fpe", 128 + SIGFPE, "SIGFPE", 1},
    {"handler-exit", 5, "exit", 0},     /* the program's handler ran, and exited */
    {"handler-_exit", 6, "_exit", 0},
    {"ignore", 3, "exit", 0},           /* SIGINT ignored: the program lives on */
    {"handler-return", 3, "exit", 0},   /* its handler returned; it saw SIG_DFL back */
    {"vfork", 3, "exit", 0},            /* the vfork child's _exit is not the parent's */
};
#define N_CASES ((int)(sizeof cases / sizeof cases[0]))

/* One case: loop index i = case * 2 + (multi-threaded). */
START_TEST(exit_path_matrix)
{
    const struct exit_case *c = &cases[_i / 2];
    int threads = _i % 2 ? 3 : 0;
    char nt[8];
    snprintf(nt, sizeof nt, "%d", threads);
    const char *args[] = {"threads", nt, c->end, NULL};
    e2e_result plain = run_prog(0, NULL, args);
    e2e_result prof = run_prog(1, NULL, args);
    ck_assert_msg(plain.status == c->status, "%s plain: status %d", c->end, plain.status);
    ck_assert_msg(prof.status == c->status, "%s (%d threads) profiled: status %d, want %d; stderr:\n%s",
                  c->end, threads, prof.status, c->status, prof.err);
    ck_assert_str_eq(prof.out, plain.out);
    char *e1 = strip_cuprof(plain.err), *e2 = strip_cuprof(prof.err);
    ck_assert_str_eq(e2, e1);
    free(e1);
    free(e2);
    ck_assert_msg(strstr(prof.err, "cuprof: wrote "), "%s: no 'cuprof: wrote' line:\n%s", c->end, prof.err);

    json_t *sum = check_sets(1, NULL);
    ck_assert_str_eq(json_string_value(json_object_get(sum, "ended_by")), c->ended_by);
    ck_assert(json_is_boolean(json_object_get(sum, "truncated")));
    ck_assert_int_eq(json_is_true(json_object_get(sum, "truncated")), c->truncated);
    long long want = 2LL * CALLS * (1 + threads);
    if (!strcmp(c->end, "exit-thread"))   /* main keeps calling meanwhile */
        ck_assert_int_ge(jint(sum, "events"), want + 2 * CALLS);
    else
        ck_assert_int_eq(jint(sum, "events"), want);
    ck_assert_int_eq(jint(sum, "threads"), 1 + threads + !strcmp(c->end, "exit-thread"));
    json_decref(sum);

    char names[8][256];
    int ntmp, seen_txt = 0;
    int n = list_dir(dir, names, 8, &ntmp);
    for (int i = 0; i < n; i++)
        if (strstr(names[i], "summary.txt")) {
            seen_txt = 1;
            char path[20000];
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            char *t = e2e_read_file(path, NULL);
            ck_assert_int_eq(strstr(t, "\n  TRUNCATED:") != NULL, c->truncated);
            free(t);
        }
    ck_assert(seen_txt);
    e2e_result_free(&plain);
    e2e_result_free(&prof);
}
END_TEST

/* exit() on one thread while the others are still launching: the calls
 * they complete are written, the program's status stays. */
START_TEST(exit_while_threads_launch)
{
    const char *args[] = {"threads", "4", "live", "exit", NULL};
    e2e_result r = run_prog(1, NULL, args);
    ck_assert_int_eq(r.status, 3);
    json_t *sum = check_sets(1, NULL);
    ck_assert_int_ge(jint(sum, "events"), 2 * CALLS * 5);
    ck_assert_int_eq(jint(sum, "threads"), 5);
    json_decref(sum);
    e2e_result_free(&r);
}
END_TEST

/* A process whose libraries hold much TLS (libcublasLt.so.13 has 94 KiB; a
 * real GPU's libcuda adds more): glibc takes it out of every new thread's
 * stack, and cuprof's own threads were made with small fixed stacks (the run
 * file's flusher 128 KiB, the capture timer 64 KiB). On an H200 every
 * cuBLAS program died of SIGSEGV in the flusher; the timer did not start.
 * _i = 0: a whole run (the flusher ticks); 1: a timed window (the timer). */
START_TEST(threads_of_our_own_in_a_process_with_big_tls)
{
    const char *whole[] = {e2e_bpath("tests/tls_prog"), "300", NULL};
    const char *timed[] = {"--delay", "0.05", "--duration", "0.1", e2e_bpath("tests/tls_prog"),
                           "300", NULL};
    e2e_prof p = e2e_profile(1, _i ? timed : whole, NULL, TIMEOUT_S);
    ck_assert_msg(p.r.status == 0, "exit %d\n%s", p.r.status, p.r.err);
    ck_assert_str_eq(p.r.out, "tls_prog: 1 calls, tls 0\n");
    ck_assert_ptr_null(strstr(p.r.err, "cannot start"));
    ck_assert_ptr_nonnull(p.sum);
    ck_assert_int_ge(jint(p.sum, "events"), 2 * (_i ? 10 : 100));
    if (_i)
        ck_assert_ptr_nonnull(strstr(p.txt, "capture:"));
    e2e_prof_free(&p);
}
END_TEST

/* A signal sent to the process (any thread may take it) while every
 * thread is calling: written, then the signal's own death. */
START_TEST(external_signal_while_calling)
{
    static const int sigs[] = {SIGTERM, SIGINT};
    char s[8];
    snprintf(s, sizeof s, "%d", sigs[_i]);
    const char *args[] = {"threads", "2", "live", "kill", s, "-1", NULL};
    e2e_result r = run_prog(1, NULL, args);
    ck_assert_int_eq(r.status, 128 + sigs[_i]);
    json_t *sum = check_sets(1, NULL);
    ck_assert_str_eq(json_string_value(json_object_get(sum, "ended_by")), sigs[_i] == SIGTERM ? "SIGTERM" : "SIGINT");
    ck_assert_int_ge(jint(sum, "events"), 2 * CALLS * 3);
    json_decref(sum);
    e2e_result_free(&r);
}
END_TEST

/* The signal lands while a thread is inside a CUDA call that does not
 * return (a synchronize on a kernel that runs for hours; with the real
 * driver, any thread stopped inside CUDA holding its locks): the exit path's
 * own synchronize and flush would never return either. They are given a
 * bounded time, then the files are written with what CUPTI delivered, the
 * GPU timeline marked partial, and the process dies of its signal - in
 * seconds, not at the end of the handler's wait. */
START_TEST(signal_while_inside_cuda)
{
    static const int sigs[] = {SIGTERM, SIGINT};
    char s[8];
    snprintf(s, sizeof s, "%d", sigs[_i]);
    const char *args[] = {"kill-in-sync", s, NULL};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    e2e_result r = run_prog(1, NULL, args);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ck_assert_msg(r.status == 128 + sigs[_i], "status %d: %s", r.status, r.err);
    ck_assert_int_lt(t1.tv_sec - t0.tv_sec, 30);
    json_t *sum = check_sets(1, NULL);
    ck_assert_str_eq(json_string_value(json_object_get(sum, "ended_by")),
                     sigs[_i] == SIGTERM ? "SIGTERM" : "SIGINT");
    json_t *gt = json_object_get(sum, "gpu_timeline");
    ck_assert(json_is_true(json_object_get(gt, "captured")));
    const char *why = json_string_value(json_object_get(gt, "reason"));
    ck_assert_msg(why && strstr(why, "partial"), "reason: %s", why ? why : "(none)");
    ck_assert_int_ge(jint(sum, "events"), CALLS);
    json_decref(sum);
    e2e_result_free(&r);
}
END_TEST

/* SIGKILL while the trace is being written (seen as its temporary file
 * growing): the run file was complete before cuprof-report started, and
 * the report, a process of its own, finishes the outputs; at no time is a
 * partial file under a final name. */
START_TEST(sigkill_leaves_no_partial_file)
{
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        e2e_child_signals_default();
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        putenv((char *)e2e_sim_env());
        execl(e2e_path("prof.sh"), "prof.sh", "-q", "-o", dir, e2e_bpath("tests/robust_prog"),
              "calls", "200000", "kill", "15", "-1", (char *)NULL);
        _exit(127);
    }
    int seen_tmp = 0;
    for (int ms = 0; ms < 30000 && !seen_tmp; ms++) {
        DIR *dp = opendir(dir);
        struct dirent *e;
        while (dp && (e = readdir(dp)))
            if (e->d_name[0] == '.' && strstr(e->d_name, "trace.json")) {
                char path[20000];
                struct stat st;
                snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
                seen_tmp |= stat(path, &st) == 0 && st.st_size > (4 << 20);
            }
        if (dp)
            closedir(dp);
        if (!seen_tmp)
            usleep(1000);
    }
    kill(pid, SIGKILL);
    int st;
    waitpid(pid, &st, 0);
    ck_assert_msg(seen_tmp, "the trace was never seen being written under a temporary name");
    ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    char names[8][256];
    int ntmp = 1, n = 0;
    for (int ms = 0; ms < 60000 && ntmp; ms += 10) {
        n = list_dir(dir, names, 8, &ntmp);
        if (ntmp)
            usleep(10000);
    }
    ck_assert_int_eq(ntmp, 0);
    int runfile = 0;
    for (int i = 0; i < n; i++) {
        char path[20000];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        size_t l = strlen(names[i]);
        runfile += l > 7 && strcmp(names[i] + l - 7, ".cuprof") == 0;
        if (strstr(names[i], ".json")) {
            json_error_t err;
            json_t *j = json_load_file(path, 0, &err);
            ck_assert_msg(j != NULL, "%s is not whole: %s", names[i], err.text);
            json_decref(j);
        }
    }
    ck_assert_int_eq(runfile, 1);
}
END_TEST

/* ---- fork and exec --------------------------------------------------------------------- */

/* Forked workers that use CUDA: one set of files per process, each with
 * its own calls only (the parent's are not written twice). */
START_TEST(fork_workers_get_their_own_files)
{
    const char *args[] = {"fork", "3", NULL};
    e2e_result r = run_prog(1, NULL, args);
    ck_assert_int_eq(r.status, 3);
    char names[64][256];
    int ntmp;
    int n = list_dir(dir, names, 64, &ntmp);
    ck_assert_int_eq(n, 20);   /* 4 processes, 5 files each */
    ck_assert_int_eq(ntmp, 0);
    for (int i = 0; i < n; i++) {
        if (!strstr(names[i], "summary.json"))
            continue;
        char path[20000];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        json_t *j = e2e_load_json(path);
        ck_assert(j != NULL);
        ck_assert_int_eq(jint(j, "events"), 2 * CALLS);
        long long pid = jint(j, "pid");
        char want[64];
        snprintf(want, sizeof want, ".%lld.summary.json", pid);
        ck_assert_msg(strstr(names[i], want), "%s: file name without its pid %lld", names[i], pid);
        json_decref(j);
    }
    e2e_result_free(&r);
}
END_TEST

/* exec with an empty environment after CUDA work: the first image's files
 * are written before exec (ended_by "exec"), and the new image is profiled
 * again (LD_PRELOAD, CUDA_INJECTION64_PATH and CUPROF_* put back) into
 * the same directory, under a name that does not replace the first. */
START_TEST(exec_writes_and_profiles_the_new_image)
{
    const char *args[] = {"exec", e2e_bpath("tests/robust_prog"), "calls", "5", "return", NULL};
    e2e_result r = run_prog(1, NULL, args);
    ck_assert_msg(r.status == 3, "status %d, stderr:\n%s", r.status, r.err);
    ck_assert_int_eq(e2e_count(r.out, "robust_prog: "), 2);
    json_t *before = check_sets(2, NULL);
    json_decref(before);
    char names[16][256];   /* two sets of five */
    int ntmp;
    int n = list_dir(dir, names, 16, &ntmp);
    int seen_exec = 0, seen_new = 0;
    for (int i = 0; i < n; i++) {
        if (!strstr(names[i], "summary.json"))
            continue;
        char path[20000];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        json_t *j = e2e_load_json(path);
        const char *how = json_string_value(json_object_get(j, "ended_by"));
        if (!strcmp(how, "exec")) {
            seen_exec = 1;
            ck_assert_int_eq(jint(j, "events"), 2 * CALLS);
        } else {
            seen_new = 1;
            ck_assert_str_eq(how, "exit");
            ck_assert_int_eq(jint(j, "events"), 2 * 5);
            ck_assert_msg(strstr(names[i], ".1.summary.json"), "new image's files: %s", names[i]);
        }
        json_decref(j);
    }
    ck_assert(seen_exec && seen_new);
    e2e_result_free(&r);
}
END_TEST

/* exec that fails: errno as without the profiler (perror's line is the
 * same), recording goes on, and the end rewrites the same files (one set,
 * ended_by "exit", every call). */
START_TEST(failed_exec_keeps_errno_and_recording)
{
    const char *args[] = {"exec", "/nonexistent/prog", NULL};
    e2e_result plain = run_prog(0, NULL, args);
    e2e_result prof = run_prog(1, NULL, args);
    ck_assert_int_eq(plain.status, 8);
    ck_assert_int_eq(prof.status, 8);
    char *e1 = strip_cuprof(plain.err), *e2 = strip_cuprof(prof.err);
    ck_assert_str_eq(e2, e1);
    ck_assert(strstr(e1, "execve: No such file or directory"));
    free(e1);
    free(e2);
    json_t *sum = check_sets(1, NULL);
    ck_assert_str_eq(json_string_value(json_object_get(sum, "ended_by")), "exit");
    ck_assert_int_eq(jint(sum, "events"), 2 * CALLS);
    json_decref(sum);
    e2e_result_free(&plain);
    e2e_result_free(&prof);
}
END_TEST

/* ---- threads --------------------------------------------------------------------------- */

/* A thread that renamed itself (pthread_setname_np) after its first call
 * appears under its new name when it is alive at exit; threads that ended
 * before exit are written too (the matrix counts their calls). */
START_TEST(thread_names_at_exit)
{
    const char *args[] = {"threads", "2", "live", "rename", "exit", NULL};
    e2e_result r = run_prog(1, NULL, args);
    ck_assert_int_eq(r.status, 3);
    json_decref(check_sets(1, NULL));
    char names[8][256];
    int ntmp;
    int n = list_dir(dir, names, 8, &ntmp);
    for (int i = 0; i < n; i++)
        if (strstr(names[i], "trace.json")) {
            char path[20000];
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            json_t *t = e2e_load_json(path);
            json_t *evs = json_object_get(t, "traceEvents"), *ev;
            size_t k;
            int seen = 0;
            json_array_foreach(evs, k, ev) {
                const char *nm = json_string_value(json_object_get(ev, "name"));
                if (nm && !strcmp(nm, "thread_name")) {
                    const char *tn = json_string_value(json_object_get(json_object_get(ev, "args"), "name"));
                    seen |= tn && !strcmp(tn, "worker-0") ? 1 : tn && !strcmp(tn, "worker-1") ? 2 : 0;
                }
            }
            ck_assert_msg(seen == 3, "renamed threads not under their new names (%d)", seen);
            json_decref(t);
        }
    e2e_result_free(&r);
}
END_TEST

/* ---- bad input ------------------------------------------------------------------------- */

static long long api_calls(json_t *sum, const char *name, long long *dropped);

/* An output directory that cannot be created: the program runs and exits
 * as always; cuprof says why there are no files. */
START_TEST(unusable_output_dir)
{
    char bad[4200], env[4300];
    snprintf(bad, sizeof bad, "%s/no/such/dir", dir);
    snprintf(env, sizeof env, "CUPROF_OUT_DIR=%s", bad);
    char pre[4300];
    snprintf(pre, sizeof pre, "LD_PRELOAD=%s", e2e_bpath("libcuprof.so"));
    const char *envs[] = {pre, env, NULL};
    const char *args[] = {"exit", NULL};
    e2e_result r = run_prog(0, envs, args);
    ck_assert_int_eq(r.status, 3);
    ck_assert_str_eq(r.out, "robust_prog: exit\n");
    ck_assert_msg(strstr(r.err, "cuprof: cannot create files in") &&
                  strstr(r.err, "no profile was written"), "stderr:\n%s", r.err);
    e2e_result_free(&r);
    /* A directory that vanished during the run (one level) is made again. */
    snprintf(bad, sizeof bad, "%s/gone", dir);
    snprintf(env, sizeof env, "CUPROF_OUT_DIR=%s", bad);
    r = run_prog(0, envs, args);
    ck_assert_int_eq(r.status, 3);
    char path[4400];
    snprintf(path, sizeof path, "%s/gone", dir);
    char names[8][256];
    int ntmp;
    char *keep = dir;
    dir = path;
    ck_assert_int_eq(list_dir(dir, names, 8, &ntmp), 5);
    dir = keep;
    e2e_result_free(&r);
}
END_TEST

/* A full disk, as a file-size limit (writes fail with EFBIG mid-file): the
 * program's status is its own (SIGXFSZ does not kill it), stderr says why,
 * no temporary and no partial block is left, and the outputs built from
 * what the run file took count every call. */
START_TEST(disk_full_while_writing)
{
    if (access("/usr/bin/prlimit", X_OK) != 0) {
        fprintf(stderr, "note: prlimit not installed; disk-full case skipped\n");
        return;
    }
    const char *argv[] = {"/usr/bin/prlimit", "--fsize=65536", e2e_path("prof.sh"), "-o", dir,
                          e2e_bpath("tests/robust_prog"), "calls", "5000", "exit", NULL};
    const char *env[] = {e2e_sim_env(), NULL};
    e2e_result r = e2e_run(argv, env, NULL, TIMEOUT_S);
    ck_assert_msg(r.status == 3, "status %d; stderr:\n%s", r.status, r.err);
    ck_assert_msg(strstr(r.err, "File too large") && strstr(r.err, "recording stops here"),
                  "stderr:\n%s", r.err);
    ck_assert_msg(!strstr(r.err, "counts every call"), "stderr:\n%s", r.err);
    char names[8][256];
    int ntmp;
    int n = list_dir(dir, names, 8, &ntmp);
    ck_assert_int_eq(ntmp, 0);
    int sums = 0;
    for (int i = 0; i < n; i++)
        if (strstr(names[i], "summary.json")) {
            char path[20000];
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            json_t *sum = e2e_load_json(path);
            ck_assert(sum != NULL);
            ck_assert_int_eq(api_calls(sum, "cudaMalloc", NULL), 5000);
            ck_assert(json_is_string(json_object_get(sum, "spill_failure")));
            ck_assert(json_is_true(json_object_get(sum, "truncated")));   /* calls were lost */
            json_decref(sum);
            sums++;
        }
    ck_assert_int_eq(sums, 1);
    e2e_result_free(&r);
}
END_TEST

/* Output files never replace another run's, nor follow a symlink planted
 * under a final name: a second run with the same -n gets NAME.1, and the
 * symlink's target is untouched. */
START_TEST(no_clobber_no_symlink)
{
    char victim[4300], link1[4300];
    snprintf(victim, sizeof victim, "%s/victim", dir);
    FILE *f = fopen(victim, "w");
    fputs("precious\n", f);
    fclose(f);
    snprintf(link1, sizeof link1, "%s/run.summary.json", dir);
    ck_assert_int_eq(symlink(victim, link1), 0);
    const char *argv[] = {e2e_path("prof.sh"), "-o", dir, "-n", "run", e2e_bpath("tests/robust_prog"), "return", NULL};
    const char *env[] = {e2e_sim_env(), NULL};
    e2e_result r = e2e_run(argv, env, NULL, TIMEOUT_S);
    ck_assert_int_eq(r.status, 3);
    ck_assert_msg(strstr(r.err, "/run.1.{"), "stderr:\n%s", r.err);
    char *v = e2e_read_file(victim, NULL);
    ck_assert_str_eq(v, "precious\n");
    free(v);
    e2e_result_free(&r);
    r = e2e_run(argv, env, NULL, TIMEOUT_S);
    ck_assert_msg(strstr(r.err, "/run.2.{"), "stderr:\n%s", r.err);
    e2e_result_free(&r);
}
END_TEST

/* Malformed CUPROF_* values: prof.sh refuses before the program starts. */
START_TEST(malformed_env_refused)
{
    static const char *const bad[] = {"CUPROF_QUIET=maybe", "CUPROF_ENABLE=2", "CUPROF_GPU=x",
                                      "CUPROF_PREFAULT=sometimes", "CUPROF_CLOCK=rdtsc",
                                      "CUPROF_DEBUG=collector,typo", "CUPROF_MEM_LIMIT=12X",
                                      "CUPROF_MEM_LIMIT=0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *args[] = {"return", NULL};
        const char *env[] = {bad[i], NULL};
        e2e_result r = run_prog(1, env, args);
        ck_assert_msg(r.status == 2, "%s: status %d", bad[i], r.status);
        ck_assert_str_eq(r.out, "");
        ck_assert_msg(strncmp(r.err, "cuprof: CUPROF_", 15) == 0, "%s: stderr %s", bad[i], r.err);
        ck_assert_int_eq(e2e_count(r.err, "\n"), 1);
        e2e_result_free(&r);
    }
}
END_TEST

/* CUPROF_QUIET=1: stderr is byte-for-byte the program's own. */
START_TEST(quiet_leaves_stderr_alone)
{
    const char *args[] = {"threads", "2", "SIGTERM", NULL};
    const char *env[] = {"CUPROF_QUIET=1", NULL};
    e2e_result plain = run_prog(0, NULL, args);
    e2e_result prof = run_prog(1, env, args);
    ck_assert_int_eq(prof.status, plain.status);
    ck_assert_str_eq(prof.out, plain.out);
    ck_assert_str_eq(prof.err, plain.err);
    json_decref(check_sets(1, NULL));
    e2e_result_free(&plain);
    e2e_result_free(&prof);
}
END_TEST

/* stderr is a pipe nobody reads (closed): cuprof's own "wrote" line must
 * not kill the program with SIGPIPE; its status stays its own. */
START_TEST(stderr_closed_pipe_no_sigpipe)
{
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    close(p[0]);
    pid_t pid = fork();
    if (pid == 0) {
        e2e_child_signals_default();   /* SIGPIPE's default is what this tests */
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(p[1], 2);
        putenv((char *)e2e_sim_env());
        execl(e2e_path("prof.sh"), "prof.sh", "-o", dir, e2e_bpath("tests/profsh_prog"), "exit", "3",
              (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    int st;
    waitpid(pid, &st, 0);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 3, "status 0x%x", st);
    json_decref(check_sets(1, NULL));
}
END_TEST

/* ---- long runs ------------------------------------------------------------------------ */

/* api[] row `name`'s calls in a summary.json. */
static long long api_calls(json_t *sum, const char *name, long long *dropped)
{
    json_t *api = json_object_get(sum, "api"), *row;
    size_t i;
    json_array_foreach(api, i, row)
        if (!strcmp(json_string_value(json_object_get(row, "name")), name)) {
            if (dropped)
                *dropped = json_integer_value(json_object_get(row, "dropped"));
            return json_integer_value(json_object_get(row, "calls"));
        }
    return -1;
}

/* 600 000 calls on three threads: memory stays at one chunk per thread
 * while recording (robust_prog's VmHWM before it exits), the chunks go to
 * the run file as they fill, every call is in the table and the trace. */
START_TEST(long_run_to_run_file_nothing_lost)
{
    const char *args[] = {"calls", "100000", "threads", "2", "hwm", "exit", NULL};
    const char *env[] = {"CUPROF_GPU=0", NULL};
    e2e_result r = run_prog(1, env, args);
    ck_assert_msg(r.status == 3, "status %d; stderr:\n%s", r.status, r.err);
    const char *h = strstr(r.err, "hwm_kb=");
    ck_assert(h != NULL);
    long hwm = atol(h + 7);
    /* one 64 KiB chunk per thread + the libraries: kept in memory the same
     * run holds ~6 MB of compact records (38 MB as 64-byte events) */
    ck_assert_msg(hwm < 20 * 1024, "peak memory %ld kB while recording", hwm);
    json_t *sum = check_sets(1, NULL);
    ck_assert_int_eq(jint(sum, "events"), 600000);
    ck_assert_int_eq(jint(sum, "dropped"), 0);
    ck_assert_int_gt(jint(sum, "spilled"), 550000);   /* all but the last chunk of each thread */
    ck_assert_int_eq(api_calls(sum, "cudaMalloc", NULL), 300000);
    ck_assert_int_eq(api_calls(sum, "cudaFree", NULL), 300000);
    json_decref(sum);
    char names[8][256];
    int ntmp;
    int n = list_dir(dir, names, 8, &ntmp);
    for (int i = 0; i < n; i++)
        if (strstr(names[i], "trace.json")) {
            char path[20000];
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            char *t = e2e_read_file(path, NULL);
            ck_assert_int_eq(e2e_count(t, "\"ph\":\"X\""), 600000);
            free(t);
        }
    /* The same run file reported again with a 4 MiB budget for the report's
     * resident memory (tools/bigmem.h): its 38 MB of events and the model's
     * arrays live on the spill file, their pages dropped hundreds of times
     * over, and every output is byte for byte the same. */
    char again[20000], runfile[20000] = "";
    snprintf(again, sizeof again, "%s/again", dir);
    for (int i = 0; i < n; i++)
        if (strstr(names[i], ".cuprof") && !strstr(names[i], ".cuprof."))
            snprintf(runfile, sizeof runfile, "%s/%s", dir, names[i]);
    ck_assert_msg(runfile[0], "no run file in %s", dir);
    const char *rargv[] = {e2e_bpath("cuprof-report"), "-o", again, runfile, NULL};
    const char *renv[] = {"CUPROF_REPORT_RSS_MB=4", "CUPROF_REPORT_BIGMEM_STATS=1", NULL};
    e2e_result rr = e2e_run(rargv, renv, NULL, TIMEOUT_S);
    ck_assert_msg(rr.status == 0, "status %d; stderr:\n%s", rr.status, rr.err);
    const char *st = strstr(rr.err, "cuprof: spill: allocs=");
    ck_assert_msg(st && atol(st + strlen("cuprof: spill: allocs=")) > 0, "stderr:\n%s", rr.err);
    const char *tr = strstr(rr.err, "trims=");
    ck_assert_msg(tr && atol(tr + 6) > 0, "no page was dropped; stderr:\n%s", rr.err);
    int compared = 0;
    for (int i = 0; i < n; i++) {
        if (!strstr(names[i], "summary.") && !strstr(names[i], "trace"))
            continue;
        char a[20000], b[40000];
        snprintf(a, sizeof a, "%s/%s", dir, names[i]);
        snprintf(b, sizeof b, "%s/%s", again, names[i]);
        size_t la = 0, lb = 0;
        char *ta = e2e_read_file(a, &la), *tb = e2e_read_file(b, &lb);
        ck_assert_msg(ta && tb && la == lb && memcmp(ta, tb, la) == 0, "%s differs", names[i]);
        free(ta), free(tb);
        compared++;
    }
    ck_assert_int_ge(compared, 3);   /* both summaries and the trace */
    e2e_result_free(&rr);
    e2e_result_free(&r);
}
END_TEST

/* The run file cannot grow (a file-size limit standing in for a full
 * disk): a warning, recording stops, the table's counts stay exact, the
 * summary says so, the program's status is its own. */
START_TEST(run_file_full_counts_stay_exact)
{
    if (access("/usr/bin/prlimit", X_OK) != 0) {
        fprintf(stderr, "note: prlimit not installed; spill failure case skipped\n");
        return;
    }
    const char *argv[] = {"/usr/bin/prlimit", "--fsize=1048576", e2e_path("prof.sh"), "-o", dir,
                          e2e_bpath("tests/robust_prog"), "calls", "400000", "exit", NULL};
    const char *env[] = {e2e_sim_env(), "CUPROF_GPU=0", NULL};
    e2e_result r = e2e_run(argv, env, NULL, TIMEOUT_S);
    ck_assert_msg(r.status == 3, "status %d; stderr:\n%s", r.status, r.err);
    ck_assert_msg(strstr(r.err, "cuprof: cannot write the run file") &&
                  strstr(r.err, "File too large"), "stderr:\n%s", r.err);
    char names[8][256];
    int ntmp;
    int n = list_dir(dir, names, 8, &ntmp);
    ck_assert_int_eq(ntmp, 0);   /* no temporary, no partial block in the run file */
    for (int i = 0; i < n; i++) {
        char path[20000];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (strstr(names[i], "summary.json")) {
            json_t *sum = e2e_load_json(path);
            ck_assert(sum != NULL);
            long long dropped = 0;
            ck_assert_int_eq(api_calls(sum, "cudaMalloc", &dropped), 400000);
            ck_assert_int_gt(dropped, 0);
            ck_assert_int_eq(api_calls(sum, "cudaFree", NULL), 400000);
            ck_assert_int_eq(jint(sum, "events") + jint(sum, "dropped"), 800000);
            ck_assert(json_is_string(json_object_get(sum, "spill_failure")));
            ck_assert(json_is_true(json_object_get(sum, "truncated")));
            json_decref(sum);
        } else if (strstr(names[i], "summary.txt")) {
            char *t = e2e_read_file(path, NULL);
            ck_assert(strstr(t, "\n  RECORDING STOPPED: "));
            ck_assert(strstr(t, "\n  TRUNCATED:     the run file stopped growing"));
            free(t);
        }
    }
    e2e_result_free(&r);
}
END_TEST

/* ---- each end once: a signal from the program, prof.sh, the group, timeout -------------- */

static const int end_sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
enum { TO_PROG, TO_PROFSH, TO_GROUP, BY_TIMEOUT, N_WAYS };
static const char *const way_names[] = {"the program", "prof.sh", "the group", "timeout"};

/* Runs each way this many times: CUPROF_TEST_REPEAT, default 2 (make test);
 * tests/e2e/each_end_once.sh runs 20. */
static int repeats(void)
{
    const char *v = getenv("CUPROF_TEST_REPEAT");
    int n = v ? atoi(v) : 0;
    return n > 0 ? n : 2;
}

/* argv (a command, looked up on PATH) started as a job of its own (its own
 * process group, as a shell starts one), with the default signal
 * dispositions but `ignored` (may be NULL), which start ignored as under
 * nohup; no core file (SIGQUIT); stdout and stderr to the files out and
 * err; the sim's libraries first. */
static pid_t start_job(const char *const argv[], const sigset_t *ignored, const char *out,
                       const char *err)
{
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0);
        e2e_child_signals_default();
        for (int sig = 1; ignored && sig < NSIG; sig++)
            if (sigismember(ignored, sig) == 1)
                signal(sig, SIG_IGN);
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (o < 0 || e < 0)
            _exit(126);
        dup2(o, 1);
        dup2(e, 2);
        putenv((char *)e2e_sim_env());
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    setpgid(pid, pid);   /* on both sides: the group exists before anyone signals it */
    return pid;
}

/* 1 once the file at path holds what (at most s seconds). */
static int wait_for_text(const char *path, const char *what, int s)
{
    for (int ms = 0; ms < s * 1000; ms += 5) {
        char *t = e2e_read_file(path, NULL);
        int seen = t && strstr(t, what);
        free(t);
        if (seen)
            return 1;
        usleep(5000);
    }
    return 0;
}

/* pid's wait status; -1 when it has not ended after s seconds (its group is
 * then killed). */
static int wait_job(pid_t pid, int s)
{
    int st;
    for (int ms = 0; ms < s * 1000; ms += 5) {
        if (waitpid(pid, &st, WNOHANG) == pid)
            return st;
        usleep(5000);
    }
    kill(-pid, SIGKILL);
    waitpid(pid, &st, 0);
    return -1;
}

/* The first child of pid (the program under prof.sh's supervisor), 0 if
 * none comes within 10 s. */
static pid_t child_of(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/task/%ld/children", (long)pid, (long)pid);
    for (int ms = 0; ms < 10000; ms += 5) {
        char *t = e2e_read_file(path, NULL);
        long c = t ? atol(t) : 0;
        free(t);
        if (c > 0)
            return (pid_t)c;
        usleep(5000);
    }
    return 0;
}

/* "SIGINT" & co. */
static const char *sig_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "SIGQUIT";
}

/* 1 when dir's summary.txt has the TRUNCATED line. */
static int summary_truncated(void)
{
    char names[8][256];
    int ntmp, n = list_dir(dir, names, 8, &ntmp), trunc = 0;
    for (int i = 0; i < n; i++)
        if (strstr(names[i], "summary.txt")) {
            char path[20000];
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            char *t = e2e_read_file(path, NULL);
            trunc |= !t || strstr(t, "\n  TRUNCATED:") != NULL;
            free(t);
        }
    return trunc;
}

/* One run of robust_prog ARGS (profiled under prof.sh when prof) ended by
 * sig sent the given way, once it is calling ("spinning"); its wait status.
 * *err gets its stderr, *out its stdout (malloc'd). */
static int run_signalled(int prof, const char *const args[], int sig, int way, char **out, char **err)
{
    char fo[PATH_MAX], fe[PATH_MAX], sigopt[32];
    snprintf(fo, sizeof fo, "%s.out", dir);
    snprintf(fe, sizeof fe, "%s.err", dir);
    snprintf(sigopt, sizeof sigopt, "--signal=%s", sig_name(sig) + 3);
    const char *argv[24];
    int n = 0;
    if (way == BY_TIMEOUT) {
        argv[n++] = "timeout";
        argv[n++] = sigopt;
        argv[n++] = "3";   /* the program calls by then, however loaded the machine */
    }
    prog_argv(argv, n, 24, prof, args);
    pid_t job = start_job(argv, NULL, fo, fe);
    if (way != BY_TIMEOUT) {
        ck_assert_msg(wait_for_text(fo, "spinning", 60), "the program did not start calling");
        pid_t target = job;
        if (way == TO_PROG && prof)
            target = child_of(job);
        else if (way == TO_GROUP)
            target = -job;
        ck_assert(target != 0);
        kill(target, sig);
    }
    int st = wait_job(job, 120);
    *out = e2e_read_file(fo, NULL);
    *err = e2e_read_file(fe, NULL);
    if (!*out)
        *out = strdup("");
    if (!*err)
        *err = strdup("");
    unlink(fo);
    unlink(fe);
    return st;
}

/* A program that catches nothing, ended by SIGINT, SIGTERM, SIGHUP or
 * SIGQUIT sent to it, to prof.sh, to the whole group (prof.sh's supervisor
 * relays its copy, the program gets the group's) or by GNU timeout (which
 * signals its child, then its group): each time the outputs are written
 * complete in the process (not recovered by the supervisor and marked
 * TRUNCATED), and the process ends by that signal. The copies of one
 * sending count once: no "one more Ctrl-C" line (a second signal absorbed)
 * but where the sender really sent twice (timeout). _i = way * 4 + signal. */
START_TEST(each_end_once)
{
    int sig = end_sigs[_i % 4], way = _i / 4, n = repeats();
    const char *args[] = {"threads", "2", "live", "pace", "spin", NULL};
    for (int r = 0; r < n; r++) {
        e2e_rmtree(dir);
        ck_assert_int_eq(mkdir(dir, 0700), 0);
        char *out, *err;
        int st = run_signalled(1, args, sig, way, &out, &err);
        if (way == BY_TIMEOUT)
            ck_assert_msg(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 124,
                          "%s by %s, run %d of %d: status %#x\n%s", sig_name(sig), way_names[way],
                          r + 1, n, st, err);
        else
            ck_assert_msg(st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == sig,
                          "%s to %s, run %d of %d: status %#x\n%s", sig_name(sig), way_names[way],
                          r + 1, n, st, err);
        json_t *sum = check_sets(1, NULL);
        ck_assert_msg(!json_is_true(json_object_get(sum, "truncated")) && !summary_truncated(),
                      "%s to %s, run %d of %d: outputs TRUNCATED\n%s", sig_name(sig),
                      way_names[way], r + 1, n, err);
        ck_assert_str_eq(e2e_str(sum, "ended_by"), sig_name(sig));
        ck_assert_int_ge(jint(sum, "events"), 2 * CALLS * 3);
        ck_assert_msg(!strstr(err, "one more Ctrl-C"), "%s to %s: counted twice\n%s",
                      sig_name(sig), way_names[way], err);
        json_decref(sum);
        free(out);
        free(err);
    }
}
END_TEST

/* 1 once dir holds a file whose name ends with suffix and does not start
 * with a dot (at most s seconds). */
static int wait_for_file(const char *suffix, int s)
{
    for (int ms = 0; ms < s * 1000; ms += 10) {
        char names[16][256];
        int ntmp, n = list_dir(dir, names, 16, &ntmp);
        for (int i = 0; i < n; i++) {
            size_t l = strlen(names[i]), k = strlen(suffix);
            if (l >= k && strcmp(names[i] + l - k, suffix) == 0)
                return 1;
        }
        usleep(10000);
    }
    return 0;
}

/* Ctrl-C again while the outputs are written (the run file complete, a
 * cuprof-report that takes 4 s to start): the second is absorbed (one
 * line says so) and the outputs are complete; a third ends the process at
 * once, by SIGINT, before the report is done, and the report, which the
 * signals do not reach, still finishes the files. _i = 0: two, 1: three. */
START_TEST(repeated_ctrl_c)
{
    char slow[PATH_MAX], fo[PATH_MAX], fe[PATH_MAX];
    snprintf(slow, sizeof slow, "%s.slow-report", dir);
    snprintf(fo, sizeof fo, "%s.out", dir);
    snprintf(fe, sizeof fe, "%s.err", dir);
    FILE *f = fopen(slow, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "#!/bin/sh\nsleep 4\nexec '%s' \"$@\"\n", e2e_bpath("cuprof-report"));
    fclose(f);
    chmod(slow, 0700);
    setenv("CUPROF_REPORT", slow, 1);   /* (this test's own process) */
    const char *argv[] = {e2e_path("prof.sh"), "-o", dir, e2e_bpath("tests/robust_prog"),
                          "threads", "2", "live", "pace", "spin", NULL};
    pid_t job = start_job(argv, NULL, fo, fe);
    ck_assert(wait_for_text(fo, "spinning", 60));
    pid_t prog = child_of(job);
    ck_assert(prog > 0);
    kill(prog, SIGINT);
    ck_assert_msg(wait_for_file(".cuprof", 60), "the run file was not completed");
    int presses = _i ? 3 : 2;
    for (int k = 1; k < presses; k++) {
        usleep(100000);
        kill(prog, SIGINT);
    }
    int st = wait_job(job, 120);
    char *err = e2e_read_file(fe, NULL);
    ck_assert_msg(st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGINT, "status %#x\n%s", st,
                  err ? err : "");
    ck_assert_int_eq(e2e_count(err, "one more Ctrl-C"), 1);
    if (_i) {   /* ended before the report: it finishes on its own */
        ck_assert_msg(!wait_for_file(".summary.json", 0), "the third Ctrl-C waited for the report");
        char names[16][256];
        int ntmp = 1;
        for (int ms = 0; ms < 60000 && (list_dir(dir, names, 16, &ntmp) < 5 || ntmp); ms += 10)
            usleep(10000);
    }
    json_t *sum = check_sets(1, NULL);
    ck_assert_str_eq(e2e_str(sum, "ended_by"), "SIGINT");
    ck_assert(!json_is_true(json_object_get(sum, "truncated")));
    json_decref(sum);
    free(err);
    unlink(slow);
    unlink(fo);
    unlink(fe);
}
END_TEST

/* A program with its own handler for the four signals: a signal sent to the
 * whole group reaches it once, as without prof.sh (the relayed copy
 * dropped), shown as sent by its sender (si_code SI_USER). Under timeout,
 * which signals its child and then its group, a plain program sees one or
 * two (the kernel merges the second when the first is still pending): the
 * profiled one sees one. A one-shot handler (sysv_signal: SA_RESETHAND)
 * is back to SIG_DFL after it: a copy let through would end the process.
 * _i = (timeout) * 4 + signal, then 8 + signal: one-shot, to the group. */
START_TEST(own_handler_sees_each_signal_once)
{
    int sig = end_sigs[_i % 4], way = _i / 4 == 1 ? BY_TIMEOUT : TO_GROUP;
    const char *args[] = {"pace", "count-spin", _i >= 8 ? "sysv" : NULL, NULL};
    char *out0, *err0, *out1, *err1;
    int st0 = run_signalled(0, args, sig, way, &out0, &err0);
    int st1 = run_signalled(1, args, sig, way, &out1, &err1);
    int want = way == BY_TIMEOUT ? 124 : 3;
    ck_assert_msg(st0 != -1 && WIFEXITED(st0) && WEXITSTATUS(st0) == want, "plain: %#x", st0);
    ck_assert_msg(st1 != -1 && WIFEXITED(st1) && WEXITSTATUS(st1) == want, "profiled: %#x\n%s", st1, err1);
    if (way == TO_GROUP)
        ck_assert_str_eq(out1, out0);
    ck_assert_msg(strstr(out1, "robust_prog: 1 signal(s)") && strstr(out1, "si_code SI_USER"),
                  "profiled: %s", out1);
    json_t *sum = check_sets(1, NULL);
    ck_assert_str_eq(e2e_str(sum, "ended_by"), "exit");
    json_decref(sum);
    free(out0);
    free(err0);
    free(out1);
    free(err1);
}
END_TEST

/* Started with a signal ignored (nohup, a script's background job: SIGHUP,
 * SIGINT, SIGQUIT; SIGTERM too), a profiled program keeps it ignored: it
 * raises it and lives on to return 3, as it does without the profiler, and
 * its outputs say it ended by exit. _i = signal. */
START_TEST(ignored_signal_stays_ignored)
{
    int sig = end_sigs[_i];
    char fo[PATH_MAX], fe[PATH_MAX];
    snprintf(fo, sizeof fo, "%s.out", dir);
    snprintf(fe, sizeof fe, "%s.err", dir);
    sigset_t ign;
    sigemptyset(&ign);
    sigaddset(&ign, sig);
    for (int prof = 0; prof < 2; prof++) {
        const char *argv[] = {e2e_path("prof.sh"), "-o", dir, e2e_bpath("tests/robust_prog"),
                              "threads", "2", sig_name(sig), NULL};
        int st = wait_job(start_job(prof ? argv : argv + 3, &ign, fo, fe), 120);
        char *e = e2e_read_file(fe, NULL);
        ck_assert_msg(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 3, "%s ignored, %s: status %#x\n%s",
                      sig_name(sig), prof ? "profiled" : "plain", st, e ? e : "");
        free(e);
    }
    unlink(fo);
    unlink(fe);
    json_t *sum = check_sets(1, NULL);
    ck_assert_str_eq(e2e_str(sum, "ended_by"), "exit");
    ck_assert(!json_is_true(json_object_get(sum, "truncated")));
    ck_assert_int_eq(jint(sum, "events"), 2 * CALLS * 3);
    json_decref(sum);
}
END_TEST

/* ---- the program's own descriptor handling (issue 42.3) ---------------------------------- */

#define FDS_AFTER 20000   /* pairs after the descriptors are handled, on main and on a worker */

static const struct fds_case {
    const char *how;   /* robust_prog fds HOW */
    int at;            /* pairs before it */
} fds_cases[] = {
    {"close", 0},          /* close(3..4095) before any call: nothing of ours open yet */
    {"close", 1000},       /* ... after the run file was opened */
    {"close", 50000},      /* ... after chunks went to it */
    {"closefrom", 1000},
    {"closerange", 1000},  /* close_range(3, ~0, 0): Python's os.closerange */
    {"dup2", 1000},        /* a file of the program's dup2'ed onto the run file's number */
    {"dup2", 50000},
    {"rawclose", 1000},    /* the system calls themselves, no libc function to see them */
    {"rawdup", 1000},
    {"hammer", 1000},      /* dup2 onto 40..70 and close, over and over, while calling */
};
#define N_FDS_CASES ((int)(sizeof fds_cases / sizeof fds_cases[0]))

/* A program that closes every descriptor it inherited, or puts one of its
 * own files on the run file's number, then opens its own file (it may get
 * the number the run file had) and writes to it while it and a worker
 * thread go on calling: every call is counted and recorded (the run file
 * is opened again by its path), nothing is truncated, the program's file is
 * byte for byte what a plain run writes, its output and status its own. */
START_TEST(program_closes_its_descriptors)
{
    const struct fds_case *c = &fds_cases[_i];
    char at[16], after[16], own[2][PATH_MAX];
    snprintf(at, sizeof at, "%d", c->at);
    snprintf(after, sizeof after, "%d", FDS_AFTER);
    e2e_result r[2];
    for (int prof = 0; prof < 2; prof++) {
        snprintf(own[prof], sizeof own[prof], "%s.own%d", dir, prof);
        const char *args[] = {"fds", c->how, at, after, own[prof], NULL};
        r[prof] = run_prog(prof, NULL, args);
        ck_assert_msg(r[prof].status == 3, "%s after %d, %s: status %d\n%s", c->how, c->at,
                      prof ? "profiled" : "plain", r[prof].status, r[prof].err);
    }
    ck_assert_str_eq(r[1].out, r[0].out);
    char *e0 = strip_cuprof(r[0].err), *e1 = strip_cuprof(r[1].err);
    ck_assert_str_eq(e1, e0);
    free(e0);
    free(e1);
    ck_assert_msg(!strstr(r[1].err, "cannot write the run file") && !strstr(r[1].err, "could not"),
                  "%s after %d: %s", c->how, c->at, r[1].err);
    size_t n0 = 0, n1 = 0;
    char *f0 = e2e_read_file(own[0], &n0), *f1 = e2e_read_file(own[1], &n1);
    ck_assert_msg(f0 && f1 && n0 > 0, "the program's file was not written");
    ck_assert_msg(n0 == n1 && memcmp(f0, f1, n0) == 0,
                  "%s after %d: the program's file differs from a plain run's (%zu and %zu bytes)",
                  c->how, c->at, n0, n1);
    free(f0);
    free(f1);
    unlink(own[0]);
    unlink(own[1]);
    json_t *sum = check_sets(1, NULL);
    ck_assert_int_eq(jint(sum, "events"), 2LL * (CALLS + c->at + 2 * FDS_AFTER));
    ck_assert_int_eq(jint(sum, "dropped"), 0);
    ck_assert_int_eq(jint(sum, "threads"), 2);
    ck_assert(!json_is_true(json_object_get(sum, "truncated")));
    ck_assert_ptr_null(json_object_get(sum, "spill_failure"));
    json_decref(sum);
    e2e_result_free(&r[0]);
    e2e_result_free(&r[1]);
}
END_TEST

/* A program that clears FD_CLOEXEC on every descriptor, then execs: the
 * new image sees the descriptors a plain run's does (the run file's is not
 * among them), both images count every call, the program's file is a plain
 * run's. */
START_TEST(exec_after_cloexec_cleared)
{
    char own[2][PATH_MAX];
    e2e_result r[2];
    for (int prof = 0; prof < 2; prof++) {
        snprintf(own[prof], sizeof own[prof], "%s.own%d", dir, prof);
        const char *args[] = {"fds", "cloexec", "1000", "0", own[prof], NULL};
        r[prof] = run_prog(prof, NULL, args);
        ck_assert_msg(r[prof].status == 3, "%s: status %d\n%s", prof ? "profiled" : "plain",
                      r[prof].status, r[prof].err);
    }
    ck_assert_msg(strstr(r[0].out, "descriptor(s) above 2 open after exec"), "%s", r[0].out);
    ck_assert_str_eq(r[1].out, r[0].out);
    size_t n0 = 0, n1 = 0;
    char *f0 = e2e_read_file(own[0], &n0), *f1 = e2e_read_file(own[1], &n1);
    ck_assert(f0 && f1 && n0 > 0 && n0 == n1 && memcmp(f0, f1, n0) == 0);
    free(f0);
    free(f1);
    unlink(own[0]);
    unlink(own[1]);
    json_decref(check_sets(2, NULL));
    char names[16][256];
    int ntmp, seen = 0;
    int n = list_dir(dir, names, 16, &ntmp);
    for (int i = 0; i < n; i++) {
        if (!strstr(names[i], "summary.json"))
            continue;
        char path[20000];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        json_t *j = e2e_load_json(path);
        const char *how = json_string_value(json_object_get(j, "ended_by"));
        ck_assert_int_eq(jint(j, "events"), !strcmp(how, "exec") ? 2 * (CALLS + 1000) : 2 * 5);
        ck_assert(!json_is_true(json_object_get(j, "truncated")));
        seen |= !strcmp(how, "exec") ? 1 : 2;
        json_decref(j);
    }
    ck_assert_int_eq(seen, 3);
    e2e_result_free(&r[0]);
    e2e_result_free(&r[1]);
}
END_TEST

/* ---- threads that come and go (issue 42.4) ------------------------------------------------ */

#define CHURN_THREADS 20000

static long hwm_of(const char *err)
{
    const char *h = strstr(err, "hwm_kb=");
    ck_assert_msg(h != NULL, "no hwm line:\n%s", err);
    return atol(h + 7);
}

/* 20 000 short-lived threads, 4 at a time, 5 cudaMalloc/cudaFree pairs
 * each: each gives its recording memory back when it ends, so the
 * program's peak memory stays within a few MB of 4 long-lived threads
 * making the same calls, and every call is counted, on every thread.
 * _i = 0: CUPTI off (cuprof's own memory alone), 1: on. */
START_TEST(threads_come_and_go)
{
    char n[16];
    snprintf(n, sizeof n, "%d", CHURN_THREADS);
    const char *env[] = {_i ? "CUPROF_GPU=1" : "CUPROF_GPU=0", NULL};
    long hwm[2];
    for (int churn = 0; churn < 2; churn++) {
        const char *args[] = {churn ? "churn" : "steady", n, NULL};
        e2e_result r = run_prog(1, env, args);
        ck_assert_msg(r.status == 3, "%s: status %d\n%s", args[0], r.status, r.err);
        hwm[churn] = hwm_of(r.err);
        json_t *sum = check_sets(1, NULL);
        ck_assert_int_eq(jint(sum, "events"), 2LL * (CALLS + 5LL * CHURN_THREADS));
        ck_assert_int_eq(jint(sum, "dropped"), 0);
        ck_assert_int_eq(jint(sum, "threads"), 1 + (churn ? CHURN_THREADS : 4));
        ck_assert(!json_is_true(json_object_get(sum, "truncated")));
        json_decref(sum);
        e2e_result_free(&r);
        e2e_rmtree(dir);
        ck_assert_int_eq(mkdir(dir, 0700), 0);
    }
    ck_assert_msg(hwm[1] <= hwm[0] + 4096, "peak memory: %ld kB with %d threads that come and go, "
                  "%ld kB with 4 long-lived ones", hwm[1], CHURN_THREADS, hwm[0]);
}
END_TEST

static Suite *robust_suite(void)
{
    Suite *s = suite_create("e2e_robust");
    TCase *t = tcase_create("exit_paths");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 120);
    tcase_add_loop_test(t, exit_path_matrix, 0, 2 * N_CASES);
    tcase_add_test(t, exit_while_threads_launch);
    tcase_add_loop_test(t, external_signal_while_calling, 0, 2);
    tcase_add_loop_test(t, signal_while_inside_cuda, 0, 2);
    tcase_add_test(t, sigkill_leaves_no_partial_file);
    suite_add_tcase(s, t);

    t = tcase_create("each_end_once");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 3600);   /* CUPROF_TEST_REPEAT=20: some 20 runs a case */
    tcase_add_loop_test(t, each_end_once, 0, 4 * N_WAYS);
    tcase_add_loop_test(t, own_handler_sees_each_signal_once, 0, 12);
    tcase_add_loop_test(t, ignored_signal_stays_ignored, 0, 4);
    tcase_add_loop_test(t, repeated_ctrl_c, 0, 2);
    suite_add_tcase(s, t);

    t = tcase_create("fork_exec_threads");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, fork_workers_get_their_own_files);
    tcase_add_test(t, exec_writes_and_profiles_the_new_image);
    tcase_add_test(t, failed_exec_keeps_errno_and_recording);
    tcase_add_test(t, thread_names_at_exit);
    suite_add_tcase(s, t);

    t = tcase_create("descriptors");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 300);
    tcase_add_loop_test(t, program_closes_its_descriptors, 0, N_FDS_CASES);
    tcase_add_test(t, exec_after_cloexec_cleared);
    suite_add_tcase(s, t);

    t = tcase_create("threads_come_and_go");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 300);
    tcase_add_loop_test(t, threads_come_and_go, 0, 2);
    suite_add_tcase(s, t);

    t = tcase_create("bad_input");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, unusable_output_dir);
    tcase_add_test(t, disk_full_while_writing);
    tcase_add_test(t, no_clobber_no_symlink);
    tcase_add_test(t, malformed_env_refused);
    tcase_add_test(t, quiet_leaves_stderr_alone);
    tcase_add_test(t, stderr_closed_pipe_no_sigpipe);
    suite_add_tcase(s, t);

    t = tcase_create("long_runs");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, long_run_to_run_file_nothing_lost);
    tcase_add_test(t, run_file_full_counts_stay_exact);
    tcase_add_loop_test(t, threads_of_our_own_in_a_process_with_big_tls, 0, 2);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(robust_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
