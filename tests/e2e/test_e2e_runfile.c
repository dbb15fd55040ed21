/*
 * test_e2e_runfile.c - record once, report anywhere: the run file a
 * profiled run leaves (NAME.cuprof) and prof.sh report on it.
 *
 *   - prof.sh report rebuilds the very files the run wrote at exit;
 *   - --format perfetto on a run recorded with the JSON trace;
 *   - --capture-range on a fully recorded run gives what a run recorded
 *     through that window gives;
 *   - a run file cut at 20 offsets is reported up to its last whole block,
 *     with one line saying what was lost; a file that is not a run file,
 *     or of a newer version, gets one line and nothing is written;
 *   - --no-run-file removes it after the report;
 *   - CUPTI's records are in GPU_RECORDS blocks, compact (run file 5.0):
 *     every launch's kernel and API record decodes, in a few bytes each;
 *   - CRC-32C: the hardware path equals the table-free one.
 */
#include "collector/gpu_compact.h"
#include "collector/runfile.h"
#include "harness.h"
#include "trace_check.h"

#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TIMEOUT_S 120

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

/* prof.sh -o DIR/sub -n NAME [opts...] PROG ARGS (argv: the rest, NULL-ended). */
static e2e_result profile(const char *sub, const char *name, const char *const *rest,
                          const char *const *env)
{
    const char *argv[32];
    int n = 0;
    char out[4200];
    snprintf(out, sizeof out, "%s/%s", dir, sub);
    argv[n++] = e2e_path("prof.sh");
    argv[n++] = "-o";
    argv[n++] = strdup(out);
    argv[n++] = "-n";
    argv[n++] = name;
    for (int i = 0; rest[i] && n < 30; i++)
        argv[n++] = rest[i];
    argv[n] = NULL;
    const char *envs[8];
    int k = 0;
    envs[k++] = e2e_sim_env();
    for (int i = 0; env && env[i] && k < 7; i++)
        envs[k++] = env[i];
    envs[k] = NULL;
    e2e_result r = e2e_run(argv, envs, NULL, TIMEOUT_S);
    free((char *)argv[2]);
    return r;
}

/* prof.sh report ARGS... with env entries (NULL-ended both; env may be NULL). */
static e2e_result report_env(const char *const *args, const char *const *env)
{
    const char *argv[24];
    int n = 0;
    argv[n++] = e2e_path("prof.sh");
    argv[n++] = "report";
    for (int i = 0; args[i] && n < 22; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    return e2e_run(argv, env, NULL, TIMEOUT_S);
}

/* prof.sh report ARGS... (NULL-ended). */
static e2e_result report(const char *const *args)
{
    return report_env(args, NULL);
}

/* Lines of s that start with "cuprof: " (a path may hold "x.cuprof:"). */
static int lines(const char *s)
{
    int n = 0;
    for (const char *p = s; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        n += strncmp(p, "cuprof: ", 8) == 0;
    return n;
}

static char *path_of(const char *sub, const char *file)
{
    char *p = malloc(8400);
    snprintf(p, 8400, "%s/%s/%s", dir, sub, file);
    return p;
}

static int exists(const char *sub, const char *file)
{
    char *p = path_of(sub, file);
    struct stat st;
    int ok = stat(p, &st) == 0;
    free(p);
    return ok;
}

/* 1 when the two files hold the same bytes. */
static int same_file(const char *a, const char *b)
{
    size_t la = 0, lb = 0;
    char *x = e2e_read_file(a, &la), *y = e2e_read_file(b, &lb);
    int same = x && y && la == lb && memcmp(x, y, la) == 0;
    free(x);
    free(y);
    return same;
}

static int files_in(const char *sub)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", dir, sub);
    DIR *d = opendir(p);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

START_TEST(report_rebuilds_the_same_files)
{
    const char *rest[] = {e2e_path("bench/matmul_add"), "--mode", "eager", "--size", "64",
                          "--iters", "3", NULL};
    e2e_result r = profile("a", "x", rest, NULL);
    ck_assert_msg(r.status == 0, "status %d\n%s", r.status, r.err);
    e2e_result_free(&r);
    ck_assert(exists("a", "x.cuprof"));
    char *rf = path_of("a", "x.cuprof"), *out = path_of("b", "");
    const char *args[] = {"-o", out, rf, NULL};
    r = report(args);
    ck_assert_msg(r.status == 0, "status %d\n%s", r.status, r.err);
    ck_assert_int_eq(lines(r.err), 1);   /* wrote ... */
    ck_assert_ptr_nonnull(strstr(r.err, "cuprof: wrote"));
    e2e_result_free(&r);
    static const char *const files[] = {"x.summary.txt", "x.summary.json", "x.trace.json"};
    for (size_t i = 0; i < 3; i++) {
        char *a = path_of("a", files[i]), *b = path_of("b", files[i]);
        ck_assert_msg(same_file(a, b), "%s differs between the run and its report", files[i]);
        free(a);
        free(b);
    }
    ck_assert(!exists("b", "x.cuprof"));   /* the report reads the run file, never writes one */
    /* Perfetto instead, from the same file, and no JSON trace */
    free(out);
    out = path_of("c", "");
    const char *pf[] = {"--format", "perfetto", "-o", out, rf, NULL};
    r = report(pf);
    ck_assert_msg(r.status == 0, "status %d\n%s", r.status, r.err);
    e2e_result_free(&r);
    ck_assert(exists("c", "x.perfetto-trace"));
    ck_assert(!exists("c", "x.trace.json"));
    char *a = path_of("a", "x.summary.json"), *c = path_of("c", "x.summary.json");
    ck_assert_msg(same_file(a, c), "the summary depends on the trace format");
    free(a);
    free(c);
    free(rf);
    free(out);
}
END_TEST

/* A long report says how far it has come (tools/progress.h): as lines for
 * a log (CUPROF_REPORT_PROGRESS=1), or on one line rewritten in place
 * (=tty; unset: when stderr is a terminal, from one second on), cleared
 * before the report's own messages; nothing when stderr is not a terminal
 * and nothing was asked, nor at exit under prof.sh -q. The files are the
 * same either way. */
START_TEST(report_says_its_progress)
{
    const char *rest[] = {e2e_path("bench/matmul_add"), "--mode", "eager", "--size", "64",
                          "--iters", "3", NULL};
    const char *shown[] = {"CUPROF_REPORT_PROGRESS=1", NULL};
    e2e_result r = profile("a", "x", rest, shown);   /* at exit too */
    ck_assert_msg(r.status == 0, "status %d\n%s", r.status, r.err);
    ck_assert_msg(strstr(r.err, "cuprof: report of x.cuprof: reading the run file "),
                  "no progress line at exit:\n%s", r.err);
    e2e_result_free(&r);
    const char *quiet[] = {"-q", e2e_path("bench/matmul_add"), "--mode", "eager", "--size", "64",
                           "--iters", "3", NULL};
    r = profile("q", "x", quiet, shown);
    ck_assert_msg(r.status == 0, "status %d\n%s", r.status, r.err);
    ck_assert_msg(!strstr(r.err, "report of"), "prof.sh -q showed the progress:\n%s", r.err);
    e2e_result_free(&r);

    char *rf = path_of("a", "x.cuprof"), *plain = path_of("p", ""), *ln = path_of("l", ""),
         *tty = path_of("t", "");
    const char *a0[] = {"-o", plain, rf, NULL}, *a1[] = {"-o", ln, rf, NULL},
               *a2[] = {"-o", tty, rf, NULL};
    r = report(a0);   /* stderr is a pipe here: no progress unless asked */
    ck_assert_msg(r.status == 0 && lines(r.err) == 1 && !strstr(r.err, "report of"),
                  "status %d\n%s", r.status, r.err);
    e2e_result_free(&r);

    r = report_env(a1, shown);
    ck_assert_msg(r.status == 0, "status %d\n%s", r.status, r.err);
    /* the first line is the reading's, the last the report's own */
    ck_assert_msg(!strncmp(r.err, "cuprof: report of x.cuprof: reading the run file ", 49),
                  "%s", r.err);
    const char *w = strstr(r.err, "cuprof: wrote");
    ck_assert_msg(w && !strchr(w, '\n')[1] && !strchr(r.err, '\r'), "%s", r.err);
    e2e_result_free(&r);

    const char *as_tty[] = {"CUPROF_REPORT_PROGRESS=tty", NULL};
    r = report_env(a2, as_tty);
    ck_assert_msg(r.status == 0, "status %d\n%s", r.status, r.err);
    ck_assert_msg(!strncmp(r.err, "\rcuprof: report of x.cuprof: reading the run file ", 50),
                  "%s", r.err);
    /* one line in all: the progress cleared (CR, erase to its end) before the message */
    w = strstr(r.err, "\r\033[Kcuprof: wrote");
    ck_assert_msg(w && strchr(r.err, '\n') == strchr(w, '\n') && !strchr(w, '\n')[1],
                  "%s", r.err);
    e2e_result_free(&r);

    static const char *const files[] = {"x.summary.txt", "x.summary.json", "x.trace.json"};
    for (size_t i = 0; i < 3; i++) {
        char *x = path_of("p", files[i]), *y = path_of("l", files[i]), *z = path_of("t", files[i]);
        ck_assert_msg(same_file(x, y) && same_file(x, z), "%s differs with the progress shown",
                      files[i]);
        free(x);
        free(y);
        free(z);
    }
    free(rf);
    free(plain);
    free(ln);
    free(tty);
}
END_TEST

/* A report of a streamed run (CUPROF_REPORT_STREAM=1: its calls decoded a
 * block at a time from the run file, formats/runfile/stream.c, with no
 * array of every call) writes what the report with every call decoded
 * writes, byte for byte: every output, for a run with the GPU timeline,
 * cuBLAS calls and stacks, and for one with NVTX ranges.
 * In blocks of 16 calls, each freed when put out (CUPROF_REPORT_STREAM_BLOCK):
 * a pass that kept a call past its block reads freed memory (ASan). */
START_TEST(streamed_report_is_the_same)
{
    const char *rest[] = {"--stacks", e2e_path("bench/matmul_add"), "--mode", "eager", "--size", "64",
                          "--iters", "40", NULL};
    const char *nvtx[] = {e2e_path("bench/matmul_add"), "--nvtx", "--mode", "addmm", "--size", "64",
                          "--iters", "40", NULL};
    e2e_result r = profile("a", "x", rest, NULL);
    ck_assert_msg(r.status == 0, "status %d\n%s", r.status, r.err);
    e2e_result_free(&r);
    r = profile("b", "x", nvtx, NULL);
    ck_assert_msg(r.status == 0, "status %d\n%s", r.status, r.err);
    e2e_result_free(&r);
    static const char *const files[] = {"x.summary.txt", "x.summary.json", "x.trace.json",
                                        "x.perfetto-trace", "x.report.html", "x.gpu.folded",
                                        "x.cpu.folded"};
    const char *subs[] = {"a", "b"};
    for (size_t s = 0; s < 2; s++) {
        char *rf = path_of(subs[s], "x.cuprof"), *whole = path_of(subs[s], "whole"),
             *streamed = path_of(subs[s], "streamed");
        const char *aw[] = {"-o", whole, "--format", "both", "--html", rf, NULL};
        const char *as[] = {"-o", streamed, "--format", "both", "--html", rf, NULL};
        const char *off[] = {"CUPROF_REPORT_STREAM=0", "CUPROF_REPORT_BIGMEM_STATS=1", NULL};
        const char *on[] = {"CUPROF_REPORT_STREAM=1", "CUPROF_REPORT_STREAM_BLOCK=16",
                            "CUPROF_REPORT_BIGMEM_STATS=1", NULL};
        r = report_env(aw, off);
        ck_assert_msg(r.status == 0, "status %d\n%s", r.status, r.err);
        ck_assert_msg(strstr(r.err, "cuprof: calls: threads=1 streamed=0\n"), "%s", r.err);
        e2e_result_free(&r);
        r = report_env(as, on);
        ck_assert_msg(r.status == 0, "status %d\n%s", r.status, r.err);
        ck_assert_msg(strstr(r.err, "cuprof: calls: threads=1 streamed=1\n"), "%s", r.err);
        e2e_result_free(&r);
        int compared = 0;
        for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
            char sub_w[64], sub_s[64];
            snprintf(sub_w, sizeof sub_w, "%s/whole", subs[s]);
            snprintf(sub_s, sizeof sub_s, "%s/streamed", subs[s]);
            if (!exists(sub_w, files[i])) {
                ck_assert_msg(!exists(sub_s, files[i]), "%s: only the streamed report wrote %s",
                              subs[s], files[i]);
                continue;
            }
            char *x = path_of(sub_w, files[i]), *y = path_of(sub_s, files[i]);
            ck_assert_msg(same_file(x, y), "%s: %s differs when the calls are streamed", subs[s],
                          files[i]);
            compared++;
            free(x);
            free(y);
        }
        ck_assert_int_ge(compared, 5);
        free(rf);
        free(whole);
        free(streamed);
    }
}
END_TEST

/* Api rows of a summary.json as "name calls" lines, sorted. */
static char *api_calls(json_t *sum)
{
    char *buf = calloc(1, 65536);
    json_t *api = json_object_get(sum, "api"), *row;
    size_t i;
    char lines[256][128];
    size_t n = 0;
    json_array_foreach(api, i, row)
        if (n < 256)
            snprintf(lines[n++], sizeof lines[0], "%s %lld\n", e2e_str(row, "name"),
                     e2e_int(row, "calls"));
    qsort(lines, n, sizeof lines[0], (int (*)(const void *, const void *))strcmp);
    for (size_t k = 0; k < n; k++)
        strcat(buf, lines[k]);
    return buf;
}

static json_t *row_named(json_t *sum, const char *list, const char *name)
{
    json_t *rows = json_object_get(sum, list), *row;
    size_t i;
    json_array_foreach(rows, i, row) {
        const char *n = json_string_value(json_object_get(row, "name"));
        if (!n)
            n = json_string_value(json_object_get(row, "kind"));   /* copies[] */
        if (n && !strcmp(n, name))
            return row;
    }
    return NULL;
}

/* nvtx_prog steps 8 (cudaProfilerStart before step 3, Stop after step 4):
 * recorded whole, then cut by prof.sh report, against recorded through
 * the window. */
START_TEST(capture_range_cut_after_the_fact)
{
    const char *whole[] = {e2e_bpath("tests/nvtx_prog"), "steps", "8", NULL};
    e2e_result r = profile("whole", "x", whole, NULL);
    ck_assert_msg(r.status == 3, "status %d\n%s", r.status, r.err);
    e2e_result_free(&r);
    const char *win[] = {"--capture-range", "cudaProfilerApi", e2e_bpath("tests/nvtx_prog"),
                         "steps", "8", NULL};
    r = profile("win", "x", win, NULL);
    ck_assert_msg(r.status == 3, "status %d\n%s", r.status, r.err);
    e2e_result_free(&r);
    char *rf = path_of("whole", "x.cuprof"), *out = path_of("cut", "");
    const char *args[] = {"--capture-range", "cudaProfilerApi", "-o", out, rf, NULL};
    r = report(args);
    ck_assert_msg(r.status == 0, "status %d\n%s", r.status, r.err);
    e2e_result_free(&r);
    char *pw = path_of("win", "x.summary.json"), *pc = path_of("cut", "x.summary.json");
    json_t *w = e2e_load_json(pw), *c = e2e_load_json(pc);
    ck_assert(w && c);
    char *aw = api_calls(w), *ac = api_calls(c);
    ck_assert_msg(!strcmp(aw, ac), "recorded through the window:\n%s\ncut afterwards:\n%s", aw, ac);
    json_t *mw = row_named(w, "copies", "memset"), *mc = row_named(c, "copies", "memset");
    ck_assert(mw && mc);
    ck_assert_int_eq(e2e_int(mc, "calls"), e2e_int(mw, "calls"));
    ck_assert_int_eq(e2e_int(mc, "bytes"), e2e_int(mw, "bytes"));
    ck_assert_int_eq(e2e_int(mc, "gpu_copies"), e2e_int(mw, "gpu_copies"));
    ck_assert_int_eq(e2e_int(json_object_get(c, "capture"), "windows"), 1);
    free(aw);
    free(ac);
    json_decref(w);
    json_decref(c);
    free(pw);
    free(pc);
    /* a window-recorded run cannot be cut again: one line, nothing written */
    char *rw = path_of("win", "x.cuprof"), *out2 = path_of("again", "");
    const char *again[] = {"--capture-range", "cudaProfilerApi", "-o", out2, rw, NULL};
    r = report(again);
    ck_assert_int_eq(r.status, 1);
    ck_assert_int_eq(lines(r.err), 1);
    ck_assert_ptr_nonnull(strstr(r.err, "recorded through a window already"));
    e2e_result_free(&r);
    ck_assert_int_eq(files_in("again"), 0);
    free(rw);
    free(out2);
    free(rf);
    free(out);
}
END_TEST

/* Copies the first len bytes of src to dst. */
static void cut_copy(const char *src, const char *dst, size_t len)
{
    size_t n = 0;
    char *b = e2e_read_file(src, &n);
    ck_assert(b && len <= n);
    FILE *f = fopen(dst, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(b, 1, len, f), len);
    fclose(f);
    free(b);
}

START_TEST(torn_run_file_reported_to_its_last_whole_block)
{
    /* a few chunks on two threads, and CUPTI's records */
    const char *rest[] = {e2e_bpath("tests/robust_prog"), "calls", "20000", "threads", "1", "exit",
                          NULL};
    e2e_result r = profile("a", "x", rest, NULL);
    ck_assert_msg(r.status == 3, "status %d\n%s", r.status, r.err);
    e2e_result_free(&r);
    char *rf = path_of("a", "x.cuprof"), *sum = path_of("a", "x.summary.json");
    json_t *full = e2e_load_json(sum);
    ck_assert_ptr_nonnull(full);
    long long all = e2e_int(full, "events");
    json_decref(full);
    size_t size = 0;
    free(e2e_read_file(rf, &size));
    ck_assert_uint_gt(size, 4 * 65536);
    srand(28);
    for (int k = 0; k < 20; k++) {
        /* 20 offsets: the first inside the header, the rest anywhere */
        size_t at = k == 0 ? 40 : 64 + (size_t)rand() % (size - 64);
        char cut[4300], out[4300], name[64];
        snprintf(name, sizeof name, "cut%d", k);
        snprintf(cut, sizeof cut, "%s/%s.cuprof", dir, name);
        snprintf(out, sizeof out, "%s/%s", dir, name);
        cut_copy(rf, cut, at);
        const char *args[] = {"-o", out, cut, NULL};
        r = report(args);
        if (k == 0) {
            ck_assert_int_eq(r.status, 1);
            ck_assert_int_eq(lines(r.err), 1);
            ck_assert_ptr_nonnull(strstr(r.err, "not a cuprof run file"));
            ck_assert_int_eq(files_in(name), 0);
            e2e_result_free(&r);
            continue;
        }
        ck_assert_msg(r.status == 0, "cut at %zu: status %d\n%s", at, r.status, r.err);
        /* what was lost, then where the files went */
        ck_assert_msg(lines(r.err) == 2 &&
                      (strstr(r.err, "torn") || strstr(r.err, "not completed")),
                      "cut at %zu:\n%s", at, r.err);
        e2e_result_free(&r);
        char sp[4400];
        snprintf(sp, sizeof sp, "%s/%s.summary.json", out, name);
        json_t *s = e2e_load_json(sp);
        ck_assert_msg(s != NULL, "cut at %zu: no summary", at);
        ck_assert_int_le(e2e_int(s, "events"), all);
        json_t *rfo = json_object_get(s, "run_file");
        ck_assert_ptr_nonnull(json_string_value(json_object_get(rfo, "lost")));
        json_decref(s);
    }
    free(rf);
    free(sum);
}
END_TEST

START_TEST(not_a_run_file_nor_a_newer_one)
{
    char p[4300], out[4300];
    snprintf(p, sizeof p, "%s/notes.cuprof", dir);
    FILE *f = fopen(p, "w");
    fputs("these are my notes, not a profile\n", f);
    fclose(f);
    snprintf(out, sizeof out, "%s/o", dir);
    const char *args[] = {"-o", out, p, NULL};
    e2e_result r = report(args);
    ck_assert_int_eq(r.status, 1);
    ck_assert_int_eq(lines(r.err), 1);
    ck_assert_ptr_nonnull(strstr(r.err, "not a cuprof run file"));
    e2e_result_free(&r);
    /* a header of version 99.0 */
    cuprof_rf_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, CUPROF_RF_MAGIC, sizeof h.magic);
    h.major = 99;
    h.header_bytes = sizeof h;
    h.block_header_bytes = sizeof(cuprof_rf_block);
    snprintf(p, sizeof p, "%s/new.cuprof", dir);
    f = fopen(p, "wb");
    fwrite(&h, sizeof h, 1, f);
    fclose(f);
    r = report(args);
    const char *args2[] = {"-o", out, p, NULL};
    e2e_result_free(&r);
    r = report(args2);
    ck_assert_int_eq(r.status, 1);
    ck_assert_int_eq(lines(r.err), 1);
    ck_assert_ptr_nonnull(strstr(r.err, "version 99.0, newer"));
    e2e_result_free(&r);
    ck_assert_int_eq(files_in("o"), 0);
    /* no file at all, and a bad option */
    const char *none[] = {"/nonexistent/x.cuprof", NULL};
    r = report(none);
    ck_assert_int_eq(r.status, 1);
    ck_assert_int_eq(lines(r.err), 1);
    e2e_result_free(&r);
    const char *bad[] = {"--format", "svg", p, NULL};
    r = report(bad);
    ck_assert_int_eq(r.status, 2);
    ck_assert_int_eq(lines(r.err), 1);
    e2e_result_free(&r);
    /* an option it does not know, last or not: "unknown option", never
     * "needs a value"; one that takes a value, given none: "needs a value" */
    const char *unknown_last[] = {p, "--no-report-html", NULL};
    const char *unknown_first[] = {"--frobnicate", p, NULL};
    const char *no_value[] = {p, "-o", NULL};
    const char *const *asks[] = {unknown_last, unknown_first, no_value};
    const char *says[] = {"cuprof: report: unknown option --no-report-html",
                          "cuprof: report: unknown option --frobnicate",
                          "cuprof: report: -o needs a value"};
    for (int k = 0; k < 3; k++) {
        r = report(asks[k]);
        ck_assert_int_eq(r.status, 2);
        ck_assert_int_eq(lines(r.err), 1);
        ck_assert_msg(strstr(r.err, says[k]), "%s", r.err);
        e2e_result_free(&r);
    }
}
END_TEST

START_TEST(no_run_file_removes_it_after_the_report)
{
    const char *rest[] = {"--no-run-file", e2e_bpath("tests/robust_prog"), "exit", NULL};
    e2e_result r = profile("a", "x", rest, NULL);
    ck_assert_msg(r.status == 3, "status %d\n%s", r.status, r.err);
    e2e_result_free(&r);
    ck_assert(exists("a", "x.summary.json"));
    ck_assert(!exists("a", "x.cuprof"));
    ck_assert_int_eq(files_in("a"), 4);   /* trace, summaries, report page */
}
END_TEST

/* The report cannot be started: one line, the run file kept for prof.sh
 * report, the program's status its own; the report later gives the files. */
START_TEST(report_cannot_start_keeps_the_run_file)
{
    const char *rest[] = {e2e_bpath("tests/robust_prog"), "exit", NULL};
    const char *env[] = {"CUPROF_REPORT=/nonexistent/cuprof-report", NULL};
    e2e_result r = profile("a", "x", rest, env);
    ck_assert_msg(r.status == 3, "status %d\n%s", r.status, r.err);
    ck_assert_msg(lines(r.err) == 1 && strstr(r.err, "prof.sh report"), "stderr:\n%s", r.err);
    e2e_result_free(&r);
    ck_assert(exists("a", "x.cuprof"));
    ck_assert_int_eq(files_in("a"), 1);
    char *rf = path_of("a", "x.cuprof");
    const char *args[] = {rf, NULL};
    r = report(args);
    ck_assert_msg(r.status == 0, "status %d\n%s", r.status, r.err);
    e2e_result_free(&r);
    ck_assert(exists("a", "x.summary.json"));
    free(rf);
}
END_TEST

/* A process killed by a signal no handler sees (SIGKILL) or whose default
 * ends it unhandled (SIGUSR1): prof.sh returns as the program died, with
 * the outputs built from its run file, saying so. */
START_TEST(killed_process_gets_its_outputs)
{
    static const int sigs[] = {9, 10};
    static const char *const names[] = {"SIGKILL", "SIGUSR1"};
    char sig[8];
    snprintf(sig, sizeof sig, "%d", sigs[_i]);
    const char *rest[] = {e2e_bpath("tests/robust_prog"), "calls", "20000", "kill", sig, "-1",
                          NULL};
    e2e_result r = profile("a", "x", rest, NULL);
    ck_assert_msg(r.status == 128 + sigs[_i], "status %d\n%s", r.status, r.err);
    char how[64];
    snprintf(how, sizeof how, "the process was killed (%s)", names[_i]);
    ck_assert_msg(strstr(r.err, how), "stderr:\n%s", r.err);
    e2e_result_free(&r);
    ck_assert(exists("a", "x.cuprof"));   /* renamed from .cuprof-run.PID */
    ck_assert_int_eq(files_in("a"), 5);
    ck_assert(exists("a", "x.report.html"));   /* built from the run file too */
    char *sp = path_of("a", "x.summary.json"), *tp = path_of("a", "x.summary.txt");
    json_t *sum = e2e_load_json(sp);
    ck_assert_ptr_nonnull(sum);
    ck_assert_str_eq(e2e_str(sum, "ended_by"), names[_i]);
    ck_assert(json_is_true(json_object_get(sum, "truncated")));
    ck_assert_int_gt(e2e_int(sum, "events"), 1000);
    const char *lost = json_string_value(json_object_get(json_object_get(sum, "run_file"), "lost"));
    ck_assert_msg(lost && strstr(lost, "recovered from the run file and its recording memory "
                                       "(every call it had completed): calls up to"), "lost: %s",
                  lost ? lost : "(none)");
    char *txt = e2e_read_file(tp, NULL);
    ck_assert_ptr_nonnull(strstr(txt, "TRUNCATED:     the process was killed"));
    free(txt);
    json_decref(sum);
    free(sp);
    free(tp);
}
END_TEST

/* exit() from two threads at about the same time (issue 29: 5 of 5 tries
 * wrote nothing before): the second waits for the process to end, so the
 * first's exit path writes the files; 10 tries. */
START_TEST(exit_from_two_threads_writes_the_files)
{
    for (int k = 0; k < 20; k++) {
        char sub[16];
        snprintf(sub, sizeof sub, "t%d", k);
        const char *rest[] = {e2e_bpath("tests/robust_prog"), "calls", "100", "exit-two", NULL};
        e2e_result r = profile(sub, "x", rest, NULL);
        ck_assert_msg(r.status == 3, "try %d: status %d\n%s", k, r.status, r.err);
        ck_assert_msg(strstr(r.err, "cuprof: wrote"), "try %d: stderr:\n%s", k, r.err);
        e2e_result_free(&r);
        ck_assert_msg(exists(sub, "x.summary.json"), "try %d: no summary", k);
        char *sp = path_of(sub, "x.summary.json");
        json_t *sum = e2e_load_json(sp);
        ck_assert_ptr_nonnull(sum);
        ck_assert_str_eq(e2e_str(sum, "ended_by"), "exit");
        /* main's 100 cudaMalloc + cudaFree; the other thread makes the same
         * 100 pairs before its exit(3), recorded as far as it got before
         * main's exit path stopped the recording: none when main ran first,
         * all when the machine was loaded and the thread ran first */
        long long ev = e2e_int(sum, "events");
        ck_assert_msg(ev >= 200 && ev <= 400, "try %d: %lld events", k, ev);
        json_decref(sum);
        free(sp);
    }
}
END_TEST

/* Killed before a chunk filled: the flusher wrote the calls within a
 * second, so all 200 are recovered. */
START_TEST(killed_after_a_quiet_second_loses_no_call)
{
    const char *rest[] = {e2e_bpath("tests/robust_prog"), "calls", "100", "sleep-kill", "2500",
                          NULL};
    e2e_result r = profile("a", "x", rest, NULL);
    ck_assert_msg(r.status == 137, "status %d\n%s", r.status, r.err);
    e2e_result_free(&r);
    char *sp = path_of("a", "x.summary.json");
    json_t *sum = e2e_load_json(sp);
    ck_assert_ptr_nonnull(sum);
    ck_assert_int_eq(e2e_int(sum, "events"), 200);
    ck_assert_str_eq(e2e_str(sum, "ended_by"), "SIGKILL");
    json_decref(sum);
    free(sp);
}
END_TEST

/* prof.sh -o OUT -n x ARGS... (NULL-ended) started in the background, on
 * the sim, output to /dev/null; *prog gets the program's pid (prof.sh's
 * cuprof-run runs it as its child, named comm) once it is there. Returns
 * prof.sh's pid. */
static pid_t start_profsh(const char *out, const char *const args[], const char *comm,
                          pid_t *prog)
{
    const char *argv[32] = {"-o", out, "-n", "x"};
    int n = 4;
    for (int i = 0; args[i] && n < 31; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    pid_t pid = e2e_start_profsh(argv, NULL, comm, NULL, prog);
    ck_assert(pid >= 0);
    ck_assert_int_gt(*prog, 0);
    return pid;
}

/* prof.sh snapshot PID on a program that calls until it is stopped: the
 * outputs so far as x.snap1.*, the program runs on, and its own files come
 * when it ends. */
START_TEST(snapshot_of_a_running_process)
{
    char out[4200];
    snprintf(out, sizeof out, "%s/a", dir);
    const char *args[] = {"--format", "none", e2e_bpath("tests/robust_prog"), "spin", NULL};
    pid_t prog;
    pid_t pid = start_profsh(out, args, "robust_prog", &prog);
    usleep(1500000);   /* calls, and at least one round of the flusher */
    char target[32];
    snprintf(target, sizeof target, "%d", (int)prog);
    const char *argv[] = {e2e_path("prof.sh"), "snapshot", target, NULL};
    long long before = 1000;
    for (int k = 1; k <= 3; k++) {   /* three, each with more calls than the one before */
        e2e_result r = e2e_run(argv, NULL, NULL, TIMEOUT_S);
        ck_assert_msg(r.status == 0, "status %d\n%s", r.status, r.err);
        e2e_result_free(&r);
        ck_assert_int_eq(kill(prog, 0), 0);   /* it runs on */
        char f[64];
        snprintf(f, sizeof f, "x.snap%d.summary.json", k);
        char *sp = path_of("a", f);
        json_t *sum = e2e_load_json(sp);
        ck_assert_msg(sum != NULL, "no %s", f);
        ck_assert_int_gt(e2e_int(sum, "events"), before);
        before = e2e_int(sum, "events");
        ck_assert_str_eq(e2e_str(sum, "ended_by"), "still running (a snapshot)");
        const char *lost = json_string_value(json_object_get(json_object_get(sum, "run_file"), "lost"));
        ck_assert_msg(lost && strstr(lost, "the flush cost it"), "lost: %s", lost ? lost : "(none)");
        json_decref(sum);
        free(sp);
        usleep(300000);
    }
    kill(prog, SIGTERM);
    int st = 0;
    waitpid(pid, &st, 0);
    ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
    ck_assert(exists("a", "x.summary.json"));
    ck_assert(exists("a", "x.cuprof"));
}
END_TEST

/* Repeating capture windows (nvtx:ProfilerStep, repeat:3) of steps 400 ms
 * apart: each window's outputs appear as NAME.wK.* while the program still
 * runs, each with its own step's memsets; the run's own files at the end. */
START_TEST(windows_written_as_they_close)
{
    char out[4200];
    snprintf(out, sizeof out, "%s/a", dir);
    const char *args[] = {"--capture-range", "nvtx:ProfilerStep", "--capture-range-end",
                          "repeat:3", e2e_bpath("tests/nvtx_prog"), "steps", "5", "400", NULL};
    pid_t prog;
    pid_t pid = start_profsh(out, args, "nvtx_prog", &prog);
    int seen_running = 0;
    for (int ms = 0; ms < 20000 && !seen_running; ms += 20) {
        usleep(20000);
        if (exists("a", "x.w1.summary.json") && kill(prog, 0) == 0)
            seen_running = 1;
    }
    int st = 0;
    waitpid(pid, &st, 0);
    ck_assert_msg(seen_running, "x.w1.* did not appear while the program ran");
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 3);
    for (int k = 1; k <= 3; k++) {
        char f[64];
        snprintf(f, sizeof f, "x.w%d.summary.json", k);
        char *sp = path_of("a", f);
        json_t *sum = e2e_load_json(sp);
        ck_assert_msg(sum != NULL, "no %s", f);
        /* window k holds step k - 1: two memsets of k * 256 bytes */
        json_t *ms = row_named(sum, "copies", "memset");
        ck_assert_ptr_nonnull(ms);
        ck_assert_int_eq(e2e_int(ms, "calls"), 2);
        ck_assert_int_eq(e2e_int(ms, "bytes"), 2 * k * 256);
        json_decref(sum);
        free(sp);
    }
    ck_assert(!exists("a", "x.w4.summary.json"));
    ck_assert(exists("a", "x.summary.json"));
}
END_TEST

/* prof.sh trigger PID [--steps N | --duration T] into the file request of a
 * process started with --standby: status and its one line. */
static e2e_result trigger(pid_t prog, const char *opt, const char *val, const char *as_nobody_dir)
{
    char target[4300];
    if (as_nobody_dir)
        snprintf(target, sizeof target, "%s/.cuprof-run.%d", as_nobody_dir, (int)prog);
    else
        snprintf(target, sizeof target, "%d", (int)prog);
    const char *plain[] = {e2e_path("prof.sh"), "trigger", opt, val, target, NULL};
    const char *nobody[] = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                            e2e_path("prof.sh"), "trigger", opt, val, target, NULL};
    return e2e_run(as_nobody_dir ? nobody : plain, NULL, NULL, TIMEOUT_S);
}

/* --standby records nothing until prof.sh trigger opens a window: two
 * triggers (2 steps, then 1 step of nvtx_prog's ProfilerStep#N, 250 ms
 * apart) give two file sets written while the program runs, each with the
 * memsets of its steps only; a trigger from another user is refused and
 * opens nothing, as is one for a process not under cuprof. */
START_TEST(standby_windows_opened_by_trigger)
{
    char out[4200];
    snprintf(out, sizeof out, "%s/a", dir);
    const char *args[] = {"--standby", e2e_bpath("tests/nvtx_prog"), "steps", "16", "250", NULL};
    pid_t prog;
    pid_t pid = start_profsh(out, args, "nvtx_prog", &prog);
    usleep(600000);   /* a few steps recorded by no one */
    e2e_result r = trigger(prog, "--steps", "2", NULL);
    ck_assert_msg(r.status == 0 && strstr(r.err, "cuprof: trigger: process") &&
                      strstr(r.err, "holds 2 steps"), "status %d\n%s", r.status, r.err);
    e2e_result_free(&r);
    for (int ms = 0; ms < 5000 && !exists("a", "x.w1.summary.json"); ms += 20)
        usleep(20000);
    ck_assert_msg(exists("a", "x.w1.summary.json") && kill(prog, 0) == 0,
                  "x.w1.* did not appear while the program ran");
    /* another user: refused in one line, nothing opened */
    if (access("/usr/bin/setpriv", X_OK) == 0 && getuid() == 0) {
        chmod(dir, 0755);
        chmod(out, 0755);
        r = trigger(prog, "--steps", "5", out);
        ck_assert_msg(r.status != 0 && strstr(r.err, "cuprof: trigger:") &&
                          strstr(r.err, "another user"), "status %d\n%s", r.status, r.err);
        ck_assert_int_eq(e2e_count(r.err, "\n"), 1);
        e2e_result_free(&r);
    } else {
        fprintf(stderr, "note: the other-user trigger check SKIPPED (needs root and setpriv)\n");
    }
    r = trigger(prog, "--steps", "1", NULL);
    ck_assert_msg(r.status == 0, "status %d\n%s", r.status, r.err);
    e2e_result_free(&r);
    for (int ms = 0; ms < 5000 && !exists("a", "x.w2.summary.json"); ms += 20)
        usleep(20000);
    ck_assert(exists("a", "x.w2.summary.json"));
    /* not a profiled process */
    r = trigger(1, "--steps", "1", NULL);
    ck_assert_msg(r.status != 0 && strstr(r.err, "cuprof: trigger: no run file"), "%s", r.err);
    e2e_result_free(&r);
    int st = 0;
    waitpid(pid, &st, 0);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 3);
    static const int memsets[] = {4, 2};
    for (int k = 1; k <= 2; k++) {
        char f[64];
        snprintf(f, sizeof f, "x.w%d.summary.json", k);
        char *sp = path_of("a", f);
        json_t *sum = e2e_load_json(sp);
        ck_assert_msg(sum != NULL, "no %s", f);
        json_t *ms = row_named(sum, "copies", "memset");
        ck_assert_ptr_nonnull(ms);
        ck_assert_int_eq(e2e_int(ms, "calls"), memsets[k - 1]);
        ck_assert_str_eq(e2e_str(sum, "ended_by"), "still running (a window written as it closed)");
        json_decref(sum);
        free(sp);
    }
    ck_assert(!exists("a", "x.w3.summary.json"));
    char *sp = path_of("a", "x.summary.json");
    json_t *sum = e2e_load_json(sp);
    ck_assert_ptr_nonnull(sum);
    ck_assert_int_eq(e2e_int(row_named(sum, "copies", "memset"), "calls"), 6);   /* both windows */
    json_decref(sum);
    free(sp);
}
END_TEST

/* A trigger for a process not started with --standby: the process refuses. */
START_TEST(trigger_refused_without_standby)
{
    char out[4200];
    snprintf(out, sizeof out, "%s/a", dir);
    const char *args[] = {e2e_bpath("tests/nvtx_prog"), "steps", "8", "150", NULL};
    pid_t prog;
    pid_t pid = start_profsh(out, args, "nvtx_prog", &prog);
    usleep(400000);
    e2e_result r = trigger(prog, "--duration", "1s", NULL);
    ck_assert_msg(r.status != 0 && strstr(r.err, "was not started with --standby"), "%d\n%s",
                  r.status, r.err);
    e2e_result_free(&r);
    const char *dump[] = {e2e_path("prof.sh"), "trigger", "--dump", NULL, NULL};
    char target[32];
    snprintf(target, sizeof target, "%d", (int)prog);
    dump[3] = target;
    r = e2e_run(dump, NULL, NULL, TIMEOUT_S);
    ck_assert_msg(r.status != 0 && strstr(r.err, "was not started with --flight-recorder"), "%d\n%s",
                  r.status, r.err);
    e2e_result_free(&r);
    int st = 0;
    waitpid(pid, &st, 0);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 3);
    ck_assert(!exists("a", "x.w1.summary.json"));
}
END_TEST

/* ---- the flight recorder ------------------------------------------------------------ */

/* VmHWM (KiB) the program printed ("robust_prog: hwm_kb=N"; the last one). */
static long hwm_kb(const char *err)
{
    long kb = -1;
    for (const char *p = err; (p = strstr(p, "hwm_kb=")); p += 7)
        kb = atol(p + 7);
    return kb;
}

static json_t *flight_of(json_t *sum)
{
    return json_object_get(json_object_get(sum, "capture"), "flight_recorder");
}

/* --flight-recorder 1 on a workload that fails with out-of-memory after 10 s
 * of calls: the outputs hold the last second only (its window, at most a
 * second), with the failing call and the out-of-memory finding; the ring
 * stays within its bound (16M here) and the process's peak memory within
 * that bound of a plain cuprof run's; the run file holds what was written,
 * not the 10 s; the exit status and stdout are the program's. */
START_TEST(flight_recorder_writes_the_last_second_on_oom)
{
    const char *base_args[] = {"--format", "none", e2e_bpath("tests/robust_prog"), "hwm", "oom",
                               "3000", NULL};
    e2e_result base = profile("b", "x", base_args, NULL);
    ck_assert_msg(base.status == 2, "status %d\n%s", base.status, base.err);
    const char *args[] = {"--format", "none", "--flight-recorder", "1s", "--flight-memory", "16M",
                          e2e_bpath("tests/robust_prog"), "hwm", "oom", "10000", NULL};
    e2e_result r = profile("a", "x", args, NULL);
    ck_assert_msg(r.status == 2, "status %d\n%s", r.status, r.err);
    ck_assert_msg(strstr(r.out, "robust_prog: second 9\n") &&
                      strstr(r.out, "robust_prog: cudaMalloc: out of memory\n"), "%s", r.out);
    long b = hwm_kb(base.err), f = hwm_kb(r.err);
    ck_assert_msg(b > 0 && f > 0, "no hwm line:\n%s\n%s", base.err, r.err);
    ck_assert_msg(f - b <= 16 * 1024 + 8192, "peak memory %ld KiB with the flight recorder, %ld "
                  "without: more than the ring's 16 MiB above it", f, b);
    char *sp = path_of("a", "x.summary.json");
    json_t *sum = e2e_load_json(sp);
    ck_assert_ptr_nonnull(sum);
    json_t *fl = flight_of(sum);
    ck_assert_ptr_nonnull(fl);
    ck_assert_int_eq(e2e_int(fl, "span_ns"), 1000000000);
    ck_assert_int_eq(e2e_int(fl, "memory_bound_bytes"), 16 << 20);
    ck_assert_int_le(e2e_int(fl, "ring_peak_bytes"), 16 << 20);
    ck_assert_int_gt(e2e_int(fl, "ring_peak_bytes"), 0);
    ck_assert_msg(strstr(e2e_str(fl, "why"), "the process ended (exit)"), "%s", e2e_str(fl, "why"));
    json_t *cap = json_object_get(sum, "capture");
    ck_assert_int_le(e2e_int(cap, "recorded_ns"), 1000000000);
    json_t *spans = json_object_get(cap, "spans");
    ck_assert_int_eq(json_array_size(spans), 1);
    long long open = json_integer_value(json_array_get(json_array_get(spans, 0), 0));
    long long close = json_integer_value(json_array_get(json_array_get(spans, 0), 1));
    ck_assert_int_le(close - open, 1000000000);
    /* the failing call and its finding are in it */
    char *tp = path_of("a", "x.summary.txt");
    char *txt = e2e_read_file(tp, NULL);
    ck_assert_ptr_nonnull(txt);
    ck_assert_msg(strstr(txt, "out-of-memory: cudaMalloc") && strstr(txt, "flight:"), "%s", txt);
    free(txt);
    free(tp);
    json_decref(sum);
    free(sp);
    /* the run file holds the ring's windows, not ten seconds of calls */
    struct stat st;
    char *rp = path_of("a", "x.cuprof");
    ck_assert_int_eq(stat(rp, &st), 0);
    ck_assert_int_le(st.st_size, 2 * (16 << 20) + (1 << 20));
    free(rp);
    e2e_result_free(&base);
    e2e_result_free(&r);
}
END_TEST

/* prof.sh trigger PID --dump: a process under --flight-recorder writes its
 * last seconds as NAME.wK.* while it runs on (twice: two file sets, each
 * saying why), and its end writes the last ones as NAME.*; a process not
 * under the flight recorder refuses, and prof.sh refuses the recorder with
 * a capture window in one line. */
START_TEST(flight_recorder_dumps_on_trigger)
{
    char out[4200];
    snprintf(out, sizeof out, "%s/a", dir);
    const char *args[] = {"--format", "none", "--flight-recorder", "0.5", "--flight-memory", "8M",
                          e2e_bpath("tests/robust_prog"), "spin", NULL};
    pid_t prog;
    pid_t pid = start_profsh(out, args, "robust_prog", &prog);
    usleep(1200000);
    char target[32];
    snprintf(target, sizeof target, "%d", (int)prog);
    const char *argv[] = {e2e_path("prof.sh"), "trigger", target, "--dump", NULL};
    for (int k = 1; k <= 2; k++) {
        e2e_result r = e2e_run(argv, NULL, NULL, TIMEOUT_S);
        ck_assert_msg(r.status == 0 && strstr(r.err, "being written as window"), "status %d\n%s",
                      r.status, r.err);
        e2e_result_free(&r);
        char f[64];
        snprintf(f, sizeof f, "x.w%d.summary.json", k);
        for (int ms = 0; ms < 10000 && !exists("a", f); ms += 20)
            usleep(20000);
        ck_assert_msg(exists("a", f) && kill(prog, 0) == 0, "%s did not appear while the program ran", f);
        char *sp = path_of("a", f);
        json_t *sum = e2e_load_json(sp);
        ck_assert_ptr_nonnull(sum);
        ck_assert_str_eq(e2e_str(flight_of(sum), "why"), "prof.sh trigger --dump");
        ck_assert_str_eq(e2e_str(sum, "ended_by"), "still running (a window written as it closed)");
        ck_assert_int_gt(e2e_int(sum, "events"), 100);
        ck_assert_int_le(e2e_int(json_object_get(sum, "capture"), "recorded_ns"), 500000000);
        json_decref(sum);
        free(sp);
        usleep(300000);
    }
    kill(prog, SIGTERM);
    int st = 0;
    waitpid(pid, &st, 0);
    ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
    char *sp = path_of("a", "x.summary.json");
    json_t *sum = e2e_load_json(sp);
    ck_assert_ptr_nonnull(sum);
    ck_assert_str_eq(e2e_str(flight_of(sum), "why"), "the process ended (SIGTERM)");
    json_decref(sum);
    free(sp);
    char *tp = path_of("a", "x.summary.txt");
    char *txt = e2e_read_file(tp, NULL);
    ck_assert_msg(txt && strstr(txt, "x.w1.* .. x.w2.*"), "%s", txt ? txt : "(none)");
    free(txt);
    free(tp);
    ck_assert(!exists("a", "x.w3.summary.json"));
    /* prof.sh: not with a capture window; not 0 seconds */
    const char *bad1[] = {"--flight-recorder", "5", "--standby", e2e_bpath("tests/robust_prog"), NULL};
    const char *bad2[] = {"--flight-recorder", "0", e2e_bpath("tests/robust_prog"), NULL};
    const char *const *bads[] = {bad1, bad2};
    for (int i = 0; i < 2; i++) {
        e2e_result r = profile("c", "x", bads[i], NULL);
        ck_assert_msg(r.status == 2 && lines(r.err) == 1 && strstr(r.err, "--flight-recorder"),
                      "status %d\n%s", r.status, r.err);
        e2e_result_free(&r);
    }
}
END_TEST

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* SIGKILL at 10 random moments of a program that makes a call every
 * millisecond (a memset: a GPU record each), then SIGPIPE, SIGALRM and
 * SIGUSR1 with their default dispositions: prof.sh ends as the program did,
 * the recovered trace passes the trace checks, holds every call that ended
 * more than 100 ms before the kill (the flusher writes every 0.1 s; 20 ms of
 * slack for the clocks and this machine's scheduling) and every GPU record
 * CUPTI flushed more than a second before it (its flush period; 200 ms of
 * slack). */
START_TEST(sigkill_at_random_moments_keeps_all_but_the_last_tenth_second)
{
    static const int sigs[] = {SIGKILL, SIGKILL, SIGKILL, SIGKILL, SIGKILL, SIGKILL, SIGKILL,
                               SIGKILL, SIGKILL, SIGKILL, SIGPIPE, SIGALRM, SIGUSR1};
    srand(29);
    for (int k = 0; k < (int)(sizeof sigs / sizeof sigs[0]); k++) {
        char out[4200], sub[16];
        snprintf(sub, sizeof sub, "k%d", k);
        snprintf(out, sizeof out, "%s/%s", dir, sub);
        const char *args[] = {"--format", "json", e2e_bpath("tests/nvtx_prog"), "timed", "20000",
                              NULL};
        pid_t prog;
        pid_t pid = start_profsh(out, args, "nvtx_prog", &prog);
        usleep(300000 + (useconds_t)(rand() % 1700) * 1000u);
        uint64_t killed = mono_ns();
        kill(prog, sigs[k]);
        int st = 0;
        waitpid(pid, &st, 0);
        ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == sigs[k], "try %d: status %d", k, st);
        char *tp = path_of(sub, "x.trace.json");
        json_t *tr = e2e_load_json(tp);
        ck_assert_msg(tr != NULL, "try %d: no trace", k);
        char bad[2048];
        ck_assert_msg(trace_check(tr, bad, sizeof bad, 5) == 0, "try %d: %s", k, bad);
        json_t *base = json_object_get(tr, "baseTimeNanoseconds");
        uint64_t b = json_is_integer(base) ? (uint64_t)json_integer_value(base)
                                           : (uint64_t)json_real_value(base);
        double last = 0, last_gpu = 0;
        json_t *evs = json_object_get(tr, "traceEvents"), *ev;
        size_t i;
        json_array_foreach(evs, i, ev) {
            const char *ph = json_string_value(json_object_get(ev, "ph"));
            const char *name = json_string_value(json_object_get(ev, "name"));
            const char *cat = json_string_value(json_object_get(ev, "cat"));
            if (!ph || strcmp(ph, "X") || !name)
                continue;
            double end = json_number_value(json_object_get(ev, "ts")) +
                         json_number_value(json_object_get(ev, "dur"));
            if (!strcmp(name, "cudaMemset") && end > last)
                last = end;
            if (cat && !strcmp(cat, "gpu_memset") && end > last_gpu)
                last_gpu = end;
        }
        uint64_t last_ns = b + (uint64_t)(last * 1000.0), gpu_ns = b + (uint64_t)(last_gpu * 1000.0);
        ck_assert_msg(last_ns + 120000000u >= killed,
                      "try %d: the last call kept ended %.1f ms before the kill", k,
                      ((double)killed - (double)last_ns) / 1e6);
        /* a kill in the first 1.4 s may come before CUPTI's first flush */
        ck_assert_msg(killed < b + 1400000000u || (last_gpu > 0 && gpu_ns + 1200000000u >= killed),
                      "try %d: the last GPU record kept ended %.1f ms before the kill", k,
                      ((double)killed - (double)gpu_ns) / 1e6);
        json_decref(tr);
        free(tp);
    }
}
END_TEST

/* 5.0: a run with the sim's CUPTI holds its GPU records in GPU_RECORDS
 * blocks only (none of the per-kind blocks of 4.x); they decode to a
 * kernel and a runtime-API record per launch, in at most 16 bytes a launch
 * (146 as CUPTI laid them out), and the report counts every kernel. */
START_TEST(gpu_records_are_compact)
{
    enum { N = 20000 };
    char n[16];
    snprintf(n, sizeof n, "%d", N);
    const char *rest[] = {"--format", "none", "--no-report-html", e2e_path("bench/launch_overhead"),
                          "--n", n, "--path", "api", NULL};
    const char *env[] = {"CUPROF_GPU=1", NULL};
    e2e_result r = profile("g", "x", rest, env);
    ck_assert_msg(r.status == 0, "status %d\n%s", r.status, r.err);
    e2e_result_free(&r);
    char *rf = path_of("g", "x.cuprof");
    size_t size = 0;
    uint8_t *m = (uint8_t *)e2e_read_file(rf, &size);
    ck_assert_ptr_nonnull(m);
    cuprof_rf_header h;
    memcpy(&h, m, sizeof h);
    ck_assert_uint_eq(h.major, 5);
    uint64_t gr_bytes = 0, kernels = 0, apis = 0, others = 0;
    for (size_t off = sizeof h; off + sizeof(cuprof_rf_block) <= size;) {
        cuprof_rf_block b;
        memcpy(&b, m + off, sizeof b);
        const uint8_t *p = m + off + sizeof b;
        ck_assert(b.type < CUPROF_RF_GPU_KERNELS || b.type > CUPROF_RF_GPU_EXTMAP);
        if (b.type == CUPROF_RF_GPU_RECORDS) {
            uint32_t head[2];
            memcpy(head, p, sizeof head);
            cuprof_gr_codec c;
            cuprof_gr_reset(&c);
            const uint8_t *q = p + 8, *end = p + b.len;
            for (uint32_t i = 0; i < head[0]; i++) {
                cuprof_gr_rec rec;
                ck_assert_int_eq(cuprof_gr_get(&q, end, &c, &rec), 0);
                kernels += rec.kind == CUPROF_GR_KERNEL;
                apis += rec.kind == CUPROF_GR_API;
                others += rec.kind != CUPROF_GR_KERNEL && rec.kind != CUPROF_GR_API;
            }
            ck_assert_ptr_eq(q, end);
            gr_bytes += cuprof_rf_block_bytes(b.len);
        }
        off += cuprof_rf_block_bytes(b.len);
    }
    ck_assert_uint_ge(kernels, N);
    ck_assert_uint_ge(apis, N);
    ck_assert_msg((double)gr_bytes / (double)kernels <= 16.0, "%.2f bytes of GPU records a launch",
                  (double)gr_bytes / (double)kernels);
    free(m);
    char *sp = path_of("g", "x.summary.json");
    char *txt = e2e_read_file(sp, NULL);
    ck_assert_ptr_nonnull(txt);
    char want[64];
    snprintf(want, sizeof want, "\"launches\":%llu", (unsigned long long)kernels);
    ck_assert_msg(strstr(txt, want), "summary.json has no kernel row with %s", want);
    free(txt);
    free(sp);
    free(rf);
    (void)others;
}
END_TEST

START_TEST(crc32c_paths_agree)
{
    /* RFC 3720's check value, and the two paths on odd lengths */
    ck_assert_uint_eq(cuprof_crc32c_sw(0, "123456789", 9), 0xE3069283u);
    ck_assert_uint_eq(cuprof_crc32c(0, "123456789", 9), 0xE3069283u);
    unsigned char buf[1000];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)(i * 131 + 7);
    for (size_t n = 0; n < sizeof buf; n += 37)
        ck_assert_uint_eq(cuprof_crc32c(0, buf, n), cuprof_crc32c_sw(0, buf, n));
    /* chained over two calls = one call */
    ck_assert_uint_eq(cuprof_crc32c(cuprof_crc32c(0, buf, 300), buf + 300, 700),
                      cuprof_crc32c(0, buf, 1000));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("e2e_runfile");
    TCase *t = tcase_create("runfile");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 300);
    tcase_add_test(t, report_rebuilds_the_same_files);
    tcase_add_test(t, report_says_its_progress);
    tcase_add_test(t, streamed_report_is_the_same);
    tcase_add_test(t, capture_range_cut_after_the_fact);
    tcase_add_test(t, torn_run_file_reported_to_its_last_whole_block);
    tcase_add_test(t, not_a_run_file_nor_a_newer_one);
    tcase_add_test(t, no_run_file_removes_it_after_the_report);
    tcase_add_test(t, report_cannot_start_keeps_the_run_file);
    tcase_add_loop_test(t, killed_process_gets_its_outputs, 0, 2);
    tcase_add_test(t, exit_from_two_threads_writes_the_files);
    tcase_add_test(t, killed_after_a_quiet_second_loses_no_call);
    tcase_add_test(t, snapshot_of_a_running_process);
    tcase_add_test(t, windows_written_as_they_close);
    tcase_add_test(t, standby_windows_opened_by_trigger);
    tcase_add_test(t, trigger_refused_without_standby);
    tcase_add_test(t, flight_recorder_writes_the_last_second_on_oom);
    tcase_add_test(t, flight_recorder_dumps_on_trigger);
    tcase_add_test(t, sigkill_at_random_moments_keeps_all_but_the_last_tenth_second);
    tcase_add_test(t, gpu_records_are_compact);
    tcase_add_test(t, crc32c_paths_agree);
    suite_add_tcase(s, t);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
