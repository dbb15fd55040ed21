/*
 * test_progress.c - a long report's progress line (tools/progress.c): the
 * words of each stage, the time so far, the reading's percent, and the
 * thread that draws them (as lines, and as one line rewritten in place,
 * cleared around the report's own messages).
 */
#include "tools/progress.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

START_TEST(words_of_each_stage)
{
    char b[256];
    cuprof_progress_text(b, sizeof b, "x.cuprof", CUPROF_PROGRESS_READ, 0, 34);
    ck_assert_str_eq(b, "report of x.cuprof: reading the run file 34%");
    cuprof_progress_text(b, sizeof b, "x.cuprof", CUPROF_PROGRESS_JOIN, 0, 0);
    ck_assert_str_eq(b, "report of x.cuprof: joining the calls and the GPU records");
    cuprof_progress_text(b, sizeof b, "x.cuprof", CUPROF_PROGRESS_SUMMARY, 1, 0);
    ck_assert_str_eq(b, "report of x.cuprof: building the summary, writing the traces");
    cuprof_progress_text(b, sizeof b, "x.cuprof", CUPROF_PROGRESS_TABLES, 0, 0);
    ck_assert_str_eq(b, "report of x.cuprof: the findings and the tables");
    cuprof_progress_text(b, sizeof b, "x.cuprof", CUPROF_PROGRESS_DONE, 1, 0);
    ck_assert_str_eq(b, "report of x.cuprof: writing the traces");
    cuprof_progress_text(b, sizeof b, "x.cuprof", CUPROF_PROGRESS_DONE, 0, 0);
    ck_assert_str_eq(b, "report of x.cuprof: finishing");
}
END_TEST

START_TEST(time_so_far)
{
    char b[64];
    cuprof_progress_elapsed(b, sizeof b, 999999999ull);
    ck_assert_str_eq(b, "0 s");
    cuprof_progress_elapsed(b, sizeof b, 59ull * 1000000000u);
    ck_assert_str_eq(b, "59 s");
    cuprof_progress_elapsed(b, sizeof b, 185ull * 1000000000u);
    ck_assert_str_eq(b, "3 min 05 s");
    cuprof_progress_elapsed(b, sizeof b, 7260ull * 1000000000u);
    ck_assert_str_eq(b, "2 h 01 min");
}
END_TEST

/* The reading's percent: cuprof_rfread_work's counts through
 * cuprof_progress_percent. */
static unsigned reading_pct(cuprof_rfread_progress *p)
{
    uint64_t done, total;
    cuprof_rfread_work(p, &done, &total);
    return cuprof_progress_percent(done, total);
}

/* The blocks read first (at most half, while the calls' bytes are not
 * known), then the calls decoded; never 100 while reading, never back. */
START_TEST(reading_percent)
{
    cuprof_rfread_progress p;
    memset(&p, 0, sizeof p);
    ck_assert_uint_eq(reading_pct(&p), 0);
    atomic_store(&p.file, 1000);
    atomic_store(&p.walked, 1000);
    ck_assert_uint_eq(reading_pct(&p), 50);
    atomic_store(&p.chunks, 800);   /* known now: the share grows */
    ck_assert_uint_eq(reading_pct(&p), 55);
    atomic_store(&p.decoded, 400);
    ck_assert_uint_eq(reading_pct(&p), 77);
    atomic_store(&p.decoded, 800);
    ck_assert_uint_eq(reading_pct(&p), 99);
    atomic_store(&p.decoded, 1600);   /* a part decoded again */
    ck_assert_uint_eq(reading_pct(&p), 99);
}
END_TEST

/* stderr into a file for the test's length; its text afterwards. */
static int saved_err = -1;
static char out_path[64];

static void capture(void)
{
    snprintf(out_path, sizeof out_path, "/tmp/cuprof-progress-XXXXXX");
    int fd = mkstemp(out_path);
    ck_assert_int_ge(fd, 0);
    fflush(stderr);
    saved_err = dup(2);
    dup2(fd, 2);
    close(fd);
}

static char *captured(void)
{
    fflush(stderr);
    dup2(saved_err, 2);
    close(saved_err);
    FILE *f = fopen(out_path, "r");
    ck_assert_ptr_nonnull(f);
    char *b = calloc(1, 65536);
    size_t n = fread(b, 1, 65535, f);
    b[n] = '\0';
    fclose(f);
    unlink(out_path);
    return b;
}

/* Each of want[] in t, in that order. */
static void in_order(const char *t, const char *const *want, size_t n)
{
    const char *at = t;
    for (size_t i = 0; i < n; i++) {
        const char *w = strstr(at, want[i]);
        ck_assert_msg(w, "line %zu (%s) missing or out of order in:\n%s", i, want[i], t);
        at = w + strlen(want[i]);
    }
}

static void pause_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

START_TEST(lines_for_a_log)
{
    setenv("CUPROF_REPORT_PROGRESS", "1", 1);
    capture();
    cuprof_rfread_progress *p = cuprof_progress_start("/some/where/x.cuprof", 0);
    ck_assert_ptr_nonnull(p);
    atomic_store(&p->file, 100);
    pause_ms(300);
    atomic_store(&p->walked, 100);
    atomic_store(&p->chunks, 100);
    atomic_store(&p->decoded, 60);   /* 80%: past three quarters */
    pause_ms(300);
    cuprof_progress_stage(CUPROF_PROGRESS_SUMMARY);
    cuprof_progress_traces(1);
    pause_ms(300);
    cuprof_progress_stage(CUPROF_PROGRESS_DONE);
    pause_ms(300);
    cuprof_progress_end();
    fprintf(stderr, "cuprof: wrote\n");
    char *t = captured();
    /* (the seconds after each are the machine's: not compared) */
    const char *want[] = {"cuprof: report of x.cuprof: reading the run file 0% (",
                          "cuprof: report of x.cuprof: reading the run file 80% (",
                          "cuprof: report of x.cuprof: building the summary, writing the traces (",
                          "cuprof: report of x.cuprof: writing the traces (",
                          "cuprof: wrote\n"};
    in_order(t, want, sizeof want / sizeof want[0]);
    ck_assert_msg(!strchr(t, '\r'), "a carriage return in a log:\n%s", t);
    free(t);
}
END_TEST

/* A tool's own work (cuprof-export): LABEL and the percent of its counts. */
START_TEST(a_tools_own_work)
{
    setenv("CUPROF_REPORT_PROGRESS", "1", 1);
    capture();
    cuprof_progress_start_work("export of x.trace.json to x.sqlite", 0);
    pause_ms(200);
    cuprof_progress_work(30, 100);
    pause_ms(300);
    cuprof_progress_work(100, 100);   /* done, yet not said so: 99 */
    pause_ms(300);
    cuprof_progress_end();
    char *t = captured();
    const char *want[] = {"cuprof: export of x.trace.json to x.sqlite 0% (",
                          "cuprof: export of x.trace.json to x.sqlite 30% (",
                          "cuprof: export of x.trace.json to x.sqlite 99% ("};
    in_order(t, want, sizeof want / sizeof want[0]);
    ck_assert_msg(!strstr(t, "report of"), "%s", t);
    free(t);
}
END_TEST

START_TEST(one_line_in_place)
{
    setenv("CUPROF_REPORT_PROGRESS", "tty", 1);
    capture();
    cuprof_progress_start("x.cuprof", 0);
    pause_ms(200);
    cuprof_progress_hold();   /* a message of the report's own */
    fprintf(stderr, "cuprof: a message\n");
    pause_ms(700);            /* held: not drawn again over it */
    cuprof_progress_release();
    pause_ms(700);
    cuprof_progress_end();
    char *t = captured();
    ck_assert_msg(!strncmp(t, "\rcuprof: report of x.cuprof: reading the run file 0% (", 54),
                  "%s", t);
    /* cleared before the message, drawn again after it, cleared at the end */
    const char *m = strstr(t, "\r\033[Kcuprof: a message\n");
    ck_assert_msg(m, "%s", t);
    const char *after = m + strlen("\r\033[Kcuprof: a message\n");
    ck_assert_msg(!strncmp(after, "\rcuprof: report of", 18), "held, yet drawn: %s", t);
    size_t n = strlen(t);
    ck_assert_msg(n > 4 && !strcmp(t + n - 4, "\r\033[K"), "not cleared at the end: %s", t);
    free(t);
}
END_TEST

START_TEST(nothing_when_quiet_or_off)
{
    capture();
    setenv("CUPROF_REPORT_PROGRESS", "1", 1);
    cuprof_progress_start("x.cuprof", 1);   /* CUPROF_QUIET at exit */
    pause_ms(150);
    cuprof_progress_end();
    setenv("CUPROF_REPORT_PROGRESS", "0", 1);
    cuprof_progress_start("x.cuprof", 0);
    pause_ms(150);
    cuprof_progress_end();
    unsetenv("CUPROF_REPORT_PROGRESS");   /* stderr is a file, not a terminal */
    cuprof_progress_start("x.cuprof", 0);
    pause_ms(150);
    cuprof_progress_end();
    char *t = captured();
    ck_assert_str_eq(t, "");
    free(t);
}
END_TEST

static Suite *progress_suite(void)
{
    Suite *s = suite_create("progress");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, words_of_each_stage);
    tcase_add_test(tc, time_so_far);
    tcase_add_test(tc, reading_percent);
    tcase_add_test(tc, lines_for_a_log);
    tcase_add_test(tc, a_tools_own_work);
    tcase_add_test(tc, one_line_in_place);
    tcase_add_test(tc, nothing_when_quiet_or_off);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(progress_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
