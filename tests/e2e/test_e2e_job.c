/*
 * test_e2e_job.c - prof.sh trigger --job DIR: one trigger for every rank of
 * a running job, the same steps on each, on the simulated device.
 *
 *  - 4 ranks of bench/ddp_step (rank 2 slow) under scripts/launch.sh, each
 *    with prof.sh --standby -o DIR, triggered once with --job: every rank's
 *    window (NAME.rankR.w1.*) holds the same ProfilerStep#K numbers, K..K+2,
 *    and prof.sh merge DIR (which takes those windows by default) names
 *    rank 2 the straggler. Another user's trigger is refused in one
 *    cuprof: line and arms nothing (run as nobody with setpriv; SKIPPED
 *    when not root).
 *  - 4 ranks of nvtx_prog, rank 3 slower and shorter: armed for a step it
 *    never reaches, it ends as it would (the job is not held), and the merge
 *    says so; a second trigger while they wait is refused and leaves the
 *    first one's record; a request file others may read is not answered.
 *  - bench/merge_scale.sh 64: a synthetic job of 64 real-sized ranks (no
 *    timing asserted: bench/RESULTS.md has the numbers): its one line names
 *    the slow rank (40); the merged trace holds 3 ranks (straggler, fastest,
 *    median) and all 64 with --all-ranks; summary.txt has the slowest ranks
 *    and the heatmaps, not 64 rows; the page has heatmaps, no card a rank.
 */
#include "harness.h"

#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RUN_TIMEOUT_S 120

static int exists(const char *dir, const char *f)
{
    char p[4400];
    snprintf(p, sizeof p, "%.4000s/%.300s", dir, f);
    return access(p, F_OK) == 0;
}

/* Starts `bash -c script` in a process group of its own with the sim's
 * environment; its output goes to DIR/job.log. */
static pid_t start_job(const char *dir, const char *script)
{
    pid_t pid = fork();
    if (pid == 0) {
        e2e_child_signals_default();
        setpgid(0, 0);
        char log[4400];
        snprintf(log, sizeof log, "%s/job.log", dir);
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        putenv((char *)e2e_sim_env());
        putenv("CUSIM_NCCL_BUS_GBPS=300");
        putenv("CUSIM_NCCL_WAIT_S=2");
        execl("/bin/bash", "bash", "-c", script, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* The job's exit status, waiting at most RUN_TIMEOUT_S (then killed: 137). */
static int wait_job(pid_t pid)
{
    for (int ms = 0; ms < RUN_TIMEOUT_S * 1000; ms += 50) {
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        usleep(50000);
    }
    kill(-pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return 137;
}

/* Waits until n processes have their run file (.cuprof-run.PID) in dir. */
static int wait_run_files(const char *dir, int n)
{
    for (int ms = 0; ms < 60000; ms += 50) {
        char cmd[4400];
        snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -c '^\\.cuprof-run\\.'", dir);
        FILE *p = popen(cmd, "r");
        int k = 0;
        if (p) {
            if (fscanf(p, "%d", &k) != 1)
                k = 0;
            pclose(p);
        }
        if (k >= n)
            return 1;
        usleep(50000);
    }
    return 0;
}

static e2e_result trigger(const char *dir, const char *steps, int as_nobody)
{
    const char *plain[] = {e2e_path("prof.sh"), "trigger", "--job", dir, "--steps", steps, NULL};
    const char *nobody[] = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                            e2e_path("prof.sh"), "trigger", "--job", dir, "--steps", steps, NULL};
    return e2e_run(as_nobody ? nobody : plain, NULL, NULL, RUN_TIMEOUT_S);
}

/* The ProfilerStep#K numbers in a trace, as "K,K,..." in order of K. */
static void step_numbers(const char *path, char *out, size_t n)
{
    json_t *t = e2e_load_json(path), *ev;
    ck_assert_msg(t != NULL, "no %s", path);
    long seen[64];
    size_t ns = 0, i;
    json_array_foreach(json_object_get(t, "traceEvents"), i, ev) {
        const char *name = e2e_str(ev, "name");
        if (strncmp(name, "ProfilerStep#", 13) != 0)
            continue;
        long k = atol(name + 13);
        size_t q = 0;
        while (q < ns && seen[q] != k)
            q++;
        if (q == ns && ns < 64)
            seen[ns++] = k;
    }
    json_decref(t);
    for (size_t a = 1; a < ns; a++)
        for (size_t b = a; b > 0 && seen[b - 1] > seen[b]; b--) {
            long x = seen[b];
            seen[b] = seen[b - 1];
            seen[b - 1] = x;
        }
    out[0] = '\0';
    for (size_t q = 0; q < ns; q++)
        snprintf(out + strlen(out), n - strlen(out), "%s%ld", q ? "," : "", seen[q]);
}

static json_t *finding(json_t *merged, const char *rule)
{
    json_t *f;
    size_t i;
    json_array_foreach(json_object_get(merged, "findings"), i, f)
        if (!strcmp(e2e_str(f, "rule"), rule))
            return f;
    return NULL;
}

START_TEST(job_trigger_same_steps_on_every_rank)
{
    char *dir = e2e_tmpdir();
    chmod(dir, 0755);
    char script[8192];
    snprintf(script, sizeof script,
             "DDP_STORE='%s' '%s' --nproc 4 --master-port %d -- '%s' -q --standby -o '%s' -n job -- '%s' "
             "--steps 400 --slow 2",
             dir, e2e_path("scripts/launch.sh"), 29100 + (int)(getpid() % 500), e2e_path("prof.sh"), dir,
             e2e_path("bench/ddp_step"));
    pid_t job = start_job(dir, script);
    ck_assert_msg(wait_run_files(dir, 4), "the 4 ranks did not start");
    usleep(300000);
    /* another user: one line, nothing armed */
    if (access("/usr/bin/setpriv", X_OK) == 0 && getuid() == 0) {
        e2e_result r = trigger(dir, "2", 1);
        ck_assert_msg(r.status != 0 && strstr(r.err, "cuprof: trigger:") && strstr(r.err, "another user"),
                      "status %d\n%s", r.status, r.err);
        ck_assert_int_eq(e2e_count(r.err, "\n"), 1);
        e2e_result_free(&r);
    } else {
        fprintf(stderr, "note: the other-user --job trigger check SKIPPED (needs root and setpriv)\n");
    }
    e2e_result r = trigger(dir, "3", 0);
    ck_assert_msg(r.status == 0 && strstr(r.err, "4 of 4 processes armed for steps "), "status %d\n%s", r.status,
                  r.err);
    ck_assert_int_eq(e2e_count(r.err, "\n"), 1);
    e2e_result_free(&r);
    ck_assert(!exists(dir, ".cuprof-job-trigger"));   /* the request is gone once answered */
    int st = wait_job(job);
    char log[4400];
    snprintf(log, sizeof log, "%s/job.log", dir);
    char *out = e2e_read_file(log, NULL);
    ck_assert_msg(st == 0, "job status %d\n%s", st, out ? out : "");
    free(out);
    /* every rank's window: the same three step numbers */
    char first[256] = "";
    for (int k = 0; k < 4; k++) {
        char p[4300], got[256];
        snprintf(p, sizeof p, "%s/job.rank%d.w1.trace.json", dir, k);
        step_numbers(p, got, sizeof got);
        long a = 0, b = 0, c = 0;
        ck_assert_msg(sscanf(got, "%ld,%ld,%ld", &a, &b, &c) == 3 && b == a + 1 && c == a + 2 &&
                          !strchr(got + strlen(got) - 1, ','),
                      "rank %d: steps %s", k, got);
        if (k == 0)
            snprintf(first, sizeof first, "%s", got);
        ck_assert_msg(!strcmp(got, first), "rank %d recorded steps %s, rank 0 %s", k, got, first);
        snprintf(p, sizeof p, "job.rank%d.w2.summary.json", k);
        ck_assert(!exists(dir, p));
    }
    /* merge: the windows by default, the slow rank named */
    const char *margv[] = {e2e_path("prof.sh"), "merge", dir, NULL};
    e2e_result m = e2e_run(margv, NULL, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(m.status == 0, "merge: %d\n%s", m.status, m.err);
    long a = atol(first);
    char want[128];
    snprintf(want, sizeof want, "windows:       steps %ld..%ld on every rank", a, a + 2);
    ck_assert_msg(strstr(m.out, want), "%s", m.out);
    char mp[4400];
    snprintf(mp, sizeof mp, "%s/job.merged.summary.json", dir);
    json_t *ms = e2e_load_json(mp), *rk;
    ck_assert_ptr_nonnull(ms);
    size_t i;
    json_array_foreach(json_object_get(ms, "ranks"), i, rk) {
        ck_assert_int_eq(e2e_int(rk, "window"), 1);
        /* the rank's wall time is its window's, as its other numbers are (not
         * the whole run's: the process ran 400 steps, the window 3) */
        char wp[4400];
        snprintf(wp, sizeof wp, "%s/job.rank%lld.w1.summary.json", dir, e2e_int(rk, "rank"));
        json_t *ws = e2e_load_json(wp);
        ck_assert_ptr_nonnull(ws);
        long long rec = e2e_int(json_object_get(ws, "capture"), "recorded_ns");
        ck_assert_int_gt(rec, 0);
        ck_assert_int_lt(rec, e2e_int(ws, "wall_ns"));
        ck_assert_int_eq(e2e_int(rk, "wall_ns"), rec);
        json_decref(ws);
    }
    ck_assert_msg(strstr(m.out, "Window"), "the ranks' table names the window's time\n%s", m.out);
    json_t *sf = finding(ms, "straggler");
    ck_assert_msg(sf && e2e_int(json_object_get(sf, "numbers"), "rank") == 2, "%s",
                  json_dumps(json_object_get(ms, "findings"), 0));
    ck_assert_ptr_null(finding(ms, "missed_window"));
    json_decref(ms);
    e2e_result_free(&m);
    e2e_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(job_trigger_rank_that_ends_before_the_step)
{
    char *dir = e2e_tmpdir();
    /* ranks 0-2: 300 steps 20 ms apart; rank 3: 40 steps 60 ms apart, so
     * it ends (at about 2.4 s) long before the step the others reach by then */
    char script[8192];
    snprintf(script, sizeof script,
             "'%s' --nproc 4 -- bash -c 'if [ \"$RANK\" = 3 ]; then n=40 ms=60; else n=300 ms=20; fi; "
             "exec \"$0\" -q --standby -o \"$1\" -n ex -- \"$2\" steps $n $ms' '%s' '%s' '%s'",
             e2e_path("scripts/launch.sh"), e2e_path("prof.sh"), dir, e2e_bpath("tests/nvtx_prog"));
    pid_t job = start_job(dir, script);
    ck_assert_msg(wait_run_files(dir, 4), "the 4 ranks did not start");
    usleep(300000);
    /* a request others may read is not a request: no answer */
    char req[4400];
    snprintf(req, sizeof req, "%s/.cuprof-job-trigger", dir);
    FILE *f = fopen(req, "w");
    ck_assert_ptr_nonnull(f);
    fputs("id=open ask=1\n", f);
    fclose(f);
    chmod(req, 0644);
    usleep(400000);
    char cmd[4600];
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -q '^\\.cuprof-jack\\.open\\.'", dir);
    ck_assert_msg(system(cmd) != 0, "a process answered a request others may read");
    unlink(req);
    e2e_result r = trigger(dir, "2", 0);
    ck_assert_msg(r.status == 0 && strstr(r.err, "4 of 4 processes armed"), "status %d\n%s", r.status, r.err);
    e2e_result_free(&r);
    /* again while they wait for the step: refused by each, one line, and the
     * record of the first (what merge reads) kept */
    char *first = e2e_read_file(strcat(strcpy(req, dir), "/.cuprof-job-last"), NULL);
    r = trigger(dir, "2", 0);
    ck_assert_msg(r.status != 0 && strstr(r.err, "no process armed") && strstr(r.err, "waiting for its step") &&
                      e2e_count(r.err, "\n") == 1, "status %d\n%s", r.status, r.err);
    e2e_result_free(&r);
    char *again = e2e_read_file(req, NULL);
    ck_assert_msg(first && again && !strcmp(first, again), "the record changed");
    free(first);
    free(again);
    int st = wait_job(job);
    ck_assert_int_eq(st, 3);   /* nvtx_prog's own status: every rank ended as it would */
    for (int k = 0; k < 3; k++) {
        char p[64];
        snprintf(p, sizeof p, "ex.rank%d.w1.summary.json", k);
        ck_assert_msg(exists(dir, p), "no %s", p);
    }
    ck_assert(!exists(dir, "ex.rank3.w1.summary.json"));
    ck_assert(exists(dir, "ex.rank3.summary.json"));
    const char *margv[] = {e2e_path("prof.sh"), "merge", dir, NULL};
    e2e_result m = e2e_run(margv, NULL, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(m.status == 0, "merge: %d\n%s", m.status, m.err);
    ck_assert_msg(strstr(m.out, "missed_window") && strstr(m.out, "rank 3 (pid") && strstr(m.out, "never reached step"),
                  "%s", m.out);
    char mp[4400];
    snprintf(mp, sizeof mp, "%s/ex.merged.summary.json", dir);
    json_t *ms = e2e_load_json(mp);
    ck_assert_ptr_nonnull(ms);
    ck_assert_int_eq(json_array_size(json_object_get(ms, "ranks")), 3);
    ck_assert_ptr_nonnull(finding(ms, "missed_window"));
    json_decref(ms);
    e2e_result_free(&m);
    e2e_rmtree(dir);
    free(dir);
}
END_TEST

/* The ranks named in a merged trace's otherData.ranks with in_trace. */
static int ranks_in_trace(const char *path, int *straggler)
{
    json_t *t = e2e_load_json(path), *r;
    ck_assert_msg(t != NULL, "no %s", path);
    size_t i;
    int n = 0;
    json_array_foreach(json_object_get(json_object_get(t, "otherData"), "ranks"), i, r)
        if (json_is_string(json_object_get(r, "in_trace"))) {
            n++;
            if (!strcmp(e2e_str(r, "in_trace"), "straggler"))
                *straggler = (int)e2e_int(r, "rank");
        }
    json_decref(t);
    return n;
}

START_TEST(merge_scale_64)
{
    char *dir = e2e_tmpdir();
    char env[4300];
    snprintf(env, sizeof env, "MERGE_SCALE_KEEP=%s", dir);
    const char *argv[] = {e2e_path("bench/merge_scale.sh"), "64", NULL};
    const char *envv[] = {env, NULL};
    e2e_result r = e2e_run(argv, envv, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(r.status == 0, "status %d\n%s%s", r.status, r.out, r.err);
    int n = 0, slow = -1;
    double secs = 0;
    long rss = 0;
    ck_assert_msg(sscanf(r.out, "merge_scale ranks=%d seconds=%lf peak_rss_kb=%ld straggler=%d", &n, &secs, &rss,
                         &slow) == 4 && e2e_count(r.out, "\n") == 1,
                  "%s", r.out);
    ck_assert_int_eq(n, 64);
    ck_assert_int_eq(slow, 40);
    fprintf(stderr, "merge_scale 64: %.2f s, %ld KB (not asserted)\n", secs, rss);
    e2e_result_free(&r);
    char p[4400];
    int tr = -1;
    snprintf(p, sizeof p, "%s/job.merged.trace.json", dir);
    ck_assert_int_eq(ranks_in_trace(p, &tr), 3);
    ck_assert_int_eq(tr, 40);
    snprintf(p, sizeof p, "%s/job.merged.summary.txt", dir);
    char *txt = e2e_read_file(p, NULL);
    ck_assert_ptr_nonnull(txt);
    ck_assert_ptr_nonnull(strstr(txt, "Ranks: the 10 latest at the collectives"));
    ck_assert_ptr_nonnull(strstr(txt, "   40  node0005"));
    ck_assert_ptr_nonnull(strstr(txt, "Step time (a cell"));
    ck_assert_ptr_nonnull(strstr(txt, "Waited in the collectives per step"));
    ck_assert_int_le(e2e_count(txt, "  node00"), 12);   /* 10 latest + median + fastest, not 64 */
    free(txt);
    snprintf(p, sizeof p, "%s/job.merged.report.html", dir);
    char *page = e2e_read_file(p, NULL);
    ck_assert_ptr_nonnull(page);
    ck_assert_ptr_nonnull(strstr(page, "\"heat\":{"));
    ck_assert_ptr_nonnull(strstr(page, "\"slowest_ranks\":[{\"rank\":40"));
    free(page);
    /* --all-ranks: every rank in the trace and the table (the traces of
     * ranks 9.. removed first: 64 traces of 38 MB would take minutes here) */
    for (int k = 9; k < 64; k++) {
        snprintf(p, sizeof p, "%s/job.rank%d.trace.json", dir, k);
        unlink(p);
    }
    const char *all[] = {e2e_bpath("cuprof-merge"), "--all-ranks", dir, NULL};
    e2e_result a = e2e_run(all, NULL, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(a.status == 0, "%s", a.err);
    snprintf(p, sizeof p, "%s/job.merged.trace.json", dir);
    ck_assert_int_eq(ranks_in_trace(p, &tr), 9);
    ck_assert_ptr_nonnull(strstr(a.err, "55 ranks wrote no trace.json"));
    ck_assert_int_eq(e2e_count(a.out, "  node00"), 64);
    e2e_result_free(&a);
    e2e_rmtree(dir);
    free(dir);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("e2e_job");
    TCase *t = tcase_create("job");
    tcase_set_timeout(t, RUN_TIMEOUT_S * 2);
    tcase_add_test(t, job_trigger_same_steps_on_every_rank);
    tcase_add_test(t, job_trigger_rank_that_ends_before_the_step);
    tcase_add_test(t, merge_scale_64);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
