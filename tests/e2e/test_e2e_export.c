/*
 * test_e2e_export.c - prof.sh export sqlite end to end: the database of a
 * run, queried with Debian's sqlite3 command as an nsys user would, agrees
 * with the run's summary.json (kernel launches and GPU time per kernel,
 * copies), and its runtime calls join their kernels by correlationId;
 * the same for the database --export sqlite makes at exit (from a --gzip
 * trace, in a run that asked for the Perfetto trace: the JSON one is
 * written as well, since the export is made from it).
 * Skipped, with a note, only where the sqlite3 command is not installed
 * (scripts/deps.sh installs it).
 */
#include "harness.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RUN_TIMEOUT_S 120

static const char *sqlite3_cmd(void)
{
    return access("/usr/bin/sqlite3", X_OK) == 0 ? "/usr/bin/sqlite3" : NULL;
}

/* sqlite3 DB SQL: its output (owned). */
static char *query(const char *db, const char *sql)
{
    const char *argv[] = {sqlite3_cmd(), db, sql, NULL};
    e2e_result r = e2e_run(argv, NULL, NULL, 60);
    ck_assert_msg(r.status == 0, "sqlite3 %s: exit %d\n%s", sql, r.status, r.err);
    free(r.err);
    return r.out;
}

static long long query_num(const char *db, const char *sql)
{
    char *out = query(db, sql);
    long long v = atoll(out);
    free(out);
    return v;
}

START_TEST(export_agrees_with_the_summary)
{
    if (!sqlite3_cmd()) {
        fprintf(stderr, "SKIPPED export test: the sqlite3 command is not installed; "
                        "scripts/deps.sh installs it\n");
        return;
    }
    const char *modes[] = {"eager", "fused", "eager"};
    const char *args[] = {e2e_path("bench/matmul_add"), "--mode", modes[_i], NULL};
    int at_exit = _i == 2;
    const char *envs[] = {"CUPROF_EXPORT=sqlite", "CUPROF_GZIP=1", "CUPROF_FORMAT=perfetto", NULL};
    e2e_prof p = e2e_profile(1, args, at_exit ? envs : NULL, RUN_TIMEOUT_S);
    ck_assert_msg(p.r.status == 0 && (p.trace || at_exit) && p.sum, "exit %d\n%s", p.r.status,
                  p.r.err);
    char trace[4096], db[4096];
    snprintf(trace, sizeof trace, "%s/x.trace.json%s", p.dir, at_exit ? ".gz" : "");
    snprintf(db, sizeof db, "%s/x.sqlite", p.dir);
    if (at_exit) {   /* made by the run; both traces there */
        ck_assert_int_eq(access(trace, F_OK), 0);
        char pf[4096];
        snprintf(pf, sizeof pf, "%s/x.perfetto-trace", p.dir);
        ck_assert_int_eq(access(pf, F_OK), 0);
        ck_assert_msg(strstr(p.r.err, "cuprof: wrote") && strstr(p.r.err, "x.sqlite"), "%s", p.r.err);
    } else {
        const char *exp[] = {e2e_path("prof.sh"), "export", "sqlite", trace, NULL};
        e2e_result r = e2e_run(exp, NULL, NULL, RUN_TIMEOUT_S);
        ck_assert_msg(r.status == 0, "export: exit %d\n%s", r.status, r.err);
        ck_assert_ptr_nonnull(strstr(r.err, "cuprof: wrote"));
        e2e_result_free(&r);
    }
    ck_assert_int_eq(access(db, F_OK), 0);

    /* kernels: count, and per name launches and GPU time, as summary.json */
    long long launches = 0;
    size_t i;
    json_t *k;
    json_array_foreach(json_object_get(p.sum, "kernels"), i, k) {
        json_int_t n = json_integer_value(json_object_get(k, "launches"));
        json_int_t ns = json_integer_value(json_object_get(k, "gpu_total_ns"));
        launches += n;
        char sql[1024];
        snprintf(sql, sizeof sql,
                 "SELECT COUNT(*) || ' ' || SUM(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                 "JOIN StringIds s ON k.demangledName = s.id WHERE s.value = '%s';",
                 json_string_value(json_object_get(k, "name")));
        char *out = query(db, sql);
        long long qn = 0, qns = 0;
        ck_assert_int_eq(sscanf(out, "%lld %lld", &qn, &qns), 2);
        ck_assert_int_eq(qn, n);
        ck_assert_int_eq(qns, ns);
        free(out);
    }
    ck_assert_int_gt(launches, 0);
    ck_assert_int_eq(query_num(db, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL;"), launches);
    /* the nsys join: each kernel to the runtime call that launched it */
    ck_assert_int_eq(query_num(db, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN "
                                   "CUPTI_ACTIVITY_KIND_RUNTIME r USING (correlationId);"),
                     launches);
    /* copies: bytes by kind as summary.json's copies rows */
    long long bytes = 0;
    json_t *c;
    json_array_foreach(json_object_get(p.sum, "copies"), i, c)
        bytes += json_integer_value(json_object_get(c, "gpu_bytes"));
    ck_assert_int_eq(query_num(db, "SELECT (SELECT IFNULL(SUM(bytes), 0) FROM CUPTI_ACTIVITY_KIND_MEMCPY)"
                                   " + (SELECT IFNULL(SUM(bytes), 0) FROM CUPTI_ACTIVITY_KIND_MEMSET);"),
                     bytes);
    ck_assert_int_gt(query_num(db, "SELECT COUNT(*) FROM CUBLAS_EVENTS;"), 0);
    e2e_prof_free(&p);
}
END_TEST

START_TEST(export_refuses_what_is_not_a_trace)
{
    const char *exp[] = {e2e_path("prof.sh"), "export", "sqlite", e2e_path("README.md"), "/tmp/x.sqlite", NULL};
    e2e_result r = e2e_run(exp, NULL, NULL, 30);
    ck_assert_int_eq(r.status, 1);
    ck_assert_ptr_nonnull(strstr(r.err, "cuprof: export: cannot read the trace"));
    ck_assert_int_eq(access("/tmp/x.sqlite", F_OK), -1);
    e2e_result_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("e2e_export");
    TCase *tc = tcase_create("export");
    tcase_set_timeout(tc, 3 * RUN_TIMEOUT_S);
    tcase_add_loop_test(tc, export_agrees_with_the_summary, 0, 3);
    tcase_add_test(tc, export_refuses_what_is_not_a_trace);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
