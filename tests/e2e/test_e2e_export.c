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

/* The export of a day-long run's trace takes minutes: it says how far it
 * has come as cuprof-report does (tools/progress.h), as lines when asked
 * (CUPROF_REPORT_PROGRESS=1), never under CUPROF_QUIET; the database is the
 * same. */
START_TEST(export_says_its_progress)
{
    if (!sqlite3_cmd()) {
        fprintf(stderr, "SKIPPED export test: the sqlite3 command is not installed; "
                        "scripts/deps.sh installs it\n");
        return;
    }
    const char *args[] = {e2e_path("bench/matmul_add"), "--mode", "eager", NULL};
    e2e_prof p = e2e_profile(1, args, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(p.r.status == 0 && p.trace, "exit %d\n%s", p.r.status, p.r.err);
    char trace[4096], db1[4096], db2[4096];
    snprintf(trace, sizeof trace, "%s/x.trace.json", p.dir);
    snprintf(db1, sizeof db1, "%s/one.sqlite", p.dir);
    snprintf(db2, sizeof db2, "%s/two.sqlite", p.dir);
    const char *shown[] = {"CUPROF_REPORT_PROGRESS=1", NULL};
    const char *quiet[] = {"CUPROF_REPORT_PROGRESS=1", "CUPROF_QUIET=1", NULL};
    const char *e1[] = {e2e_path("prof.sh"), "export", "sqlite", trace, db1, NULL};
    e2e_result r = e2e_run(e1, shown, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(r.status == 0, "export: exit %d\n%s", r.status, r.err);
    ck_assert_msg(!strncmp(r.err, "cuprof: export of x.trace.json to one.sqlite 0% (", 49),
                  "%s", r.err);
    const char *w = strstr(r.err, "cuprof: wrote");
    ck_assert_msg(w && !strchr(w, '\n')[1] && !strchr(r.err, '\r'), "%s", r.err);
    e2e_result_free(&r);
    const char *e2[] = {e2e_path("prof.sh"), "export", "sqlite", trace, db2, NULL};
    r = e2e_run(e2, quiet, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(r.status == 0 && r.err[0] == '\0', "export: exit %d\n%s", r.status, r.err);
    e2e_result_free(&r);
    const char *sql = "SELECT COUNT(*) || ' ' || SUM(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL;";
    char *a = query(db1, sql), *b = query(db2, sql);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
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

/* A small trace, its events joined by sep: our writer's order (traceEvents
 * first) when writer_order, else its members first, spaced out, with an
 * unknown member whose strings hold braces and brackets. The events: a
 * launch with two arrows from one point (a graph replay: the first counts),
 * a copy whose arrow is another thread's (its own correlation then), a
 * launch whose arrow is written before it, cuBLAS, NVTX (a push/pop range,
 * an async range ended, one never ended, a mark), a kernel whose name has
 * braces, brackets, escaped quotes and \u escapes, nested args. */
static char *tiny_trace(int writer_order, const char *sep)
{
    static const char *const ev[] = {
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":42,\"tid\":0,\"args\":{\"name\":\"t}]\"}}",
        "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":11,\"pid\":42,\"tid\":7,\"ts\":31.000}",
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":42,\"tid\":7,"
        "\"ts\":10.000,\"dur\":5.000,\"args\":{\"kernel\":\"k{\",\"grid\":[1,1,1],\"nest\":{\"a\":[{}]}}}",
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpy\",\"pid\":42,\"tid\":7,"
        "\"ts\":20.000,\"dur\":2.000,\"args\":{\"correlation\":9}}",
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":42,\"tid\":7,"
        "\"ts\":30.000,\"dur\":4.000,\"args\":{\"kernel\":\"\\\"]\"}}",
        "{\"ph\":\"X\",\"cat\":\"cublas\",\"name\":\"cublasSgemm_v2\",\"pid\":42,\"tid\":7,"
        "\"ts\":40.000,\"dur\":1.000}",
        "{\"ph\":\"X\",\"cat\":\"nvtx\",\"name\":\"[range]\",\"pid\":42,\"tid\":7,\"ts\":45.000,"
        "\"dur\":3.000}",
        "{\"ph\":\"b\",\"cat\":\"nvtx\",\"name\":\"phase {1}\",\"id2\":{\"local\":\"0x1\"},\"pid\":42,"
        "\"tid\":7,\"ts\":50.000}",
        "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"nvtx\",\"name\":\"mark \\\"q\\\" \\u007b\",\"pid\":42,"
        "\"tid\":7,\"ts\":55.000}",
        "{\"ph\":\"e\",\"cat\":\"nvtx\",\"name\":\"phase {1}\",\"id2\":{\"local\":\"0x1\"},\"pid\":42,"
        "\"tid\":7,\"ts\":60.000}",
        "{\"ph\":\"b\",\"cat\":\"nvtx\",\"name\":\"open\",\"id2\":{\"local\":\"0x2\"},\"pid\":42,"
        "\"tid\":7,\"ts\":70.000}",
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void k<{[\\\"x\\\"]}>(int, \\u00e9\\\\)\","
        "\"pid\":1073741824,\"tid\":5,\"ts\":13.000,\"dur\":3.000,\"args\":{\"correlation\":7,"
        "\"device\":0,\"context\":1,\"stream\":5,\"grid\":[2,1,1],\"block\":[64,1,1],"
        "\"registers per thread\":32,\"dynamic shared memory\":16,\"mangled\":\"_Z1k{v\","
        "\"nested\":{\"a\":[1,{\"b\":\"}]\"}]}}}",
        "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":7,\"pid\":42,\"tid\":7,\"ts\":12.000}",
        "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":4294967303,\"pid\":42,\"tid\":7,"
        "\"ts\":12.000}",
        "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":7,\"pid\":1073741824,"
        "\"tid\":5,\"ts\":13.000}",
        "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD\",\"pid\":1073741824,\"tid\":5,"
        "\"ts\":23.000,\"dur\":1.000,\"args\":{\"correlation\":9,\"bytes\":4096,"
        "\"direction\":\"HtoD\",\"stream\":5}}",
        "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":9,\"pid\":42,\"tid\":8,\"ts\":21.000}",
        "{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"Memset\",\"pid\":1073741824,\"tid\":5,"
        "\"ts\":35.000,\"dur\":1.000,\"args\":{\"correlation\":11,\"bytes\":64,\"value\":255,"
        "\"recorded_start_ns\":34900,\"recorded_dur_ns\":1200}}",
    };
    static const char *const other =
        "\"otherData\":{\"tool\":\"cuprof\",\"pid\":42,\"argv\":[\"a\",\"{[\\\"]\\\\\"]}";
    static const char *const base = "\"baseTimeNanoseconds\":1000000000";
    size_t cap = 16384, n = 0;
    char *t = malloc(cap);
    ck_assert_ptr_nonnull(t);
    if (writer_order)
        n += (size_t)snprintf(t + n, cap - n, "{\"traceEvents\":[\n");
    else
        n += (size_t)snprintf(t + n, cap - n,
                              "{ %s ,\n \"stackFrames\" : {\"1\":{\"name\":\"f}{\\\"[\"}} ,\r\n"
                              " %s,\t\"traceEvents\" : [ ", other, base);
    for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++)
        n += (size_t)snprintf(t + n, cap - n, "%s%s", i ? sep : "", ev[i]);
    if (writer_order)
        n += (size_t)snprintf(t + n, cap - n, "\n],\n\"displayTimeUnit\":\"ns\",\n%s,\n%s}\n",
                              base, other);
    else
        n += (size_t)snprintf(t + n, cap - n, " ] , \"displayTimeUnit\" : \"ns\" }");
    ck_assert_int_lt(n, cap);
    return t;
}

static void write_file(const char *path, const char *text, size_t n)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fwrite(text, 1, n, f), n);
    ck_assert_int_eq(fclose(f), 0);
}

/* prof.sh export sqlite IN OUT: its exit status, its stderr in err. */
static int export_file(const char *in, const char *out, char *err, size_t cap)
{
    const char *exp[] = {e2e_path("prof.sh"), "export", "sqlite", in, out, NULL};
    e2e_result r = e2e_run(exp, NULL, NULL, 60);
    snprintf(err, cap, "%s", r.err ? r.err : "");
    int status = r.status;
    e2e_result_free(&r);
    return status;
}

/* The export streams the trace: the members in any order, the events'
 * strings holding braces, brackets, quotes and escapes, give the same
 * database; the arrows and async ranges paired wherever they are. */
START_TEST(export_reads_members_in_any_order)
{
    if (!sqlite3_cmd()) {
        fprintf(stderr, "SKIPPED export order test: the sqlite3 command is not installed\n");
        return;
    }
    char *dir = e2e_tmpdir(), in[4096], db[2][4096], err[4096];
    char *dump[2];
    for (int k = 0; k < 2; k++) {
        char *t = tiny_trace(k == 0, k == 0 ? ",\n" : " ,\r\n\t ");
        snprintf(in, sizeof in, "%s/t%d.trace.json", dir, k);
        snprintf(db[k], sizeof db[k], "%s/t%d.sqlite", dir, k);
        write_file(in, t, strlen(t));
        free(t);
        ck_assert_msg(export_file(in, db[k], err, sizeof err) == 0, "%s", err);
        dump[k] = query(db[k], ".dump");
    }
    ck_assert_str_eq(dump[0], dump[1]);
    free(dump[0]);
    free(dump[1]);
    char *out = query(db[0], "SELECT group_concat(correlationId) FROM (SELECT correlationId FROM "
                             "CUPTI_ACTIVITY_KIND_RUNTIME ORDER BY start);");
    ck_assert_str_eq(out, "7,9,11\n");   /* the replay's first arrow; own id; arrow written first */
    free(out);
    out = query(db[0], "SELECT group_concat(eventType || ':' || IFNULL(end - start, '-') || ':' || "
                       "text, '|') FROM NVTX_EVENTS;");
    ck_assert_str_eq(out, "59:3000:[range]|60:10000:phase {1}|34:-:mark \"q\" {|60:0:open\n");
    free(out);
    out = query(db[0], "SELECT s.value || '|' || m.value || '|' || k.gridX || k.blockX || "
                       "k.dynamicSharedMemory || '|' || k.globalPid || '|' || k.start FROM "
                       "CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName "
                       "JOIN StringIds m ON m.id = k.mangledName;");
    ck_assert_str_eq(out, "void k<{[\"x\"]}>(int, \xc3\xa9\\)|_Z1k{v|26416|704643072|1000013000\n");
    free(out);
    ck_assert_int_eq(query_num(db[0], "SELECT start - 1000000000 + 1000 * (end - start) FROM "
                                      "CUPTI_ACTIVITY_KIND_MEMSET;"), 34900 + 1200000);
    ck_assert_int_eq(query_num(db[0], "SELECT copyKind * 10000 + bytes FROM "
                                      "CUPTI_ACTIVITY_KIND_MEMCPY;"), 14096);
    e2e_rmtree(dir);
    free(dir);
}
END_TEST

/* A trace cut short anywhere (inside an event, a string, between members,
 * before the last brace), or with no base time, is refused in one cuprof:
 * line, and neither the database nor its temporary file is left. */
START_TEST(export_refuses_a_cut_trace)
{
    char *dir = e2e_tmpdir(), in[4096], db[4096], tmp[4200], err[4096];
    char *t = tiny_trace(1, ",\n");
    size_t len = strlen(t);
    const char *in_string = strstr(t, "phase {1}");
    size_t cuts[] = {len / 2, (size_t)(in_string - t) + 3, len - 2, 1, 0};
    snprintf(in, sizeof in, "%s/cut.trace.json", dir);
    snprintf(db, sizeof db, "%s/cut.sqlite", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", db);
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        write_file(in, t, cuts[i]);
        ck_assert_int_eq(export_file(in, db, err, sizeof err), 1);
        const char *why = strstr(err, "cuprof: export: cannot read the trace: ");
        ck_assert_msg(why && why[39] && why[39] != '\n' && e2e_count(err, "\n") == 1,
                      "cut at %zu: %s", cuts[i], err);   /* one line, saying why */
        ck_assert_int_eq(access(db, F_OK), -1);
        ck_assert_int_eq(access(tmp, F_OK), -1);
    }
    const char *nobase = "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cuda_runtime\"}],\"otherData\":{}}";
    write_file(in, nobase, strlen(nobase));
    ck_assert_int_eq(export_file(in, db, err, sizeof err), 1);
    ck_assert_msg(strstr(err, "cuprof: export: not a cuprof trace.json"), "%s", err);
    ck_assert_int_eq(access(db, F_OK), -1);
    ck_assert_int_eq(access(tmp, F_OK), -1);
    free(t);
    e2e_rmtree(dir);
    free(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("e2e_export");
    TCase *tc = tcase_create("export");
    tcase_set_timeout(tc, 3 * RUN_TIMEOUT_S);
    tcase_add_loop_test(tc, export_agrees_with_the_summary, 0, 3);
    tcase_add_test(tc, export_refuses_what_is_not_a_trace);
    tcase_add_test(tc, export_says_its_progress);
    tcase_add_test(tc, export_reads_members_in_any_order);
    tcase_add_test(tc, export_refuses_a_cut_trace);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
