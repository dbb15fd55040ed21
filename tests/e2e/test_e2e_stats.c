/*
 * test_e2e_stats.c - prof.sh stats on the summaries the demo writes
 * (matmul_add eager, addmm, fused): --sort cuda_total --limit 5 --csv gives
 * summary.json's five rows with the most CUDA time, largest first, with its
 * numbers; --filter, --report, --json; a bad column is one cuprof: line, and
 * so is --group-by-stack on a run without stacks (its rows are checked in
 * test_e2e_stacks.c).
 */
#include "harness.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN_TIMEOUT_S 120

static e2e_result stats(const char *const *opts, const char *summary)
{
    const char *argv[16] = {e2e_path("prof.sh"), "stats"};
    size_t n = 2;
    for (; *opts && n < 14; opts++)
        argv[n++] = *opts;
    argv[n++] = summary;
    argv[n] = NULL;
    return e2e_run(argv, NULL, NULL, 30);
}

START_TEST(sort_limit_csv_on_demo_summaries)
{
    static const char *const modes[] = {"eager", "addmm", "fused"};
    const char *args[] = {e2e_path("bench/matmul_add"), "--mode", modes[_i], "--size", "64", NULL};
    e2e_prof p = e2e_profile(1, args, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(p.r.status == 0 && p.sum, "exit %d\n%s", p.r.status, p.r.err);
    char sum[4096];
    snprintf(sum, sizeof sum, "%s/x.summary.json", p.dir);
    const char *opts[] = {"--sort", "cuda_total", "--limit", "5", "--csv", NULL};
    e2e_result r = stats(opts, sum);
    ck_assert_msg(r.status == 0, "exit %d\n%s", r.status, r.err);
    /* header, then at most 5 rows, cuda_total_ns (the last column) falling */
    char *line = strtok(r.out, "\n");
    ck_assert_ptr_nonnull(line);
    ck_assert_str_eq(line, "name,category,calls,errors,cpu_total_ns,cpu_self_ns,min_ns,median_ns,"
                           "max_ns,cuda_self_ns,cuda_total_ns");
    long long prev = -1;
    int rows = 0;
    while ((line = strtok(NULL, "\n"))) {
        rows++;
        const char *last = strrchr(line, ',');
        long long v = atoll(last + 1);
        if (prev >= 0)
            ck_assert_int_le(v, prev);
        prev = v;
        /* the row is summary.json's: same name, same CUDA total */
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(line, ","), line);
        size_t i;
        json_t *a;
        int found = 0;
        json_array_foreach(json_object_get(p.sum, "api"), i, a)
            if (!strcmp(json_string_value(json_object_get(a, "name")), name)) {
                ck_assert_int_eq(json_integer_value(json_object_get(a, "cuda_total_ns")), v);
                found = 1;
            }
        ck_assert_msg(found, "%s not in summary.json", name);
    }
    size_t napi = json_array_size(json_object_get(p.sum, "api"));
    ck_assert_int_eq(rows, napi < 5 ? (int)napi : 5);
    /* the largest CUDA total of all comes first */
    long long most = 0;
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(p.sum, "api"), i, a)
        if (json_integer_value(json_object_get(a, "cuda_total_ns")) > most)
            most = json_integer_value(json_object_get(a, "cuda_total_ns"));
    e2e_result_free(&r);
    const char *top1[] = {"--sort", "cuda_total_ns", "--limit", "1", "--json", NULL};
    r = stats(top1, sum);
    json_error_t jerr;
    json_t *j = json_loads(r.out, 0, &jerr);
    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq(json_array_size(j), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(j, 0), "cuda_total_ns")), most);
    json_decref(j);
    e2e_result_free(&r);
    e2e_prof_free(&p);
}
END_TEST

START_TEST(report_filter_and_errors)
{
    const char *args[] = {e2e_path("bench/matmul_add"), "--mode", "eager", "--size", "64", NULL};
    e2e_prof p = e2e_profile(1, args, NULL, RUN_TIMEOUT_S);
    ck_assert(p.r.status == 0 && p.sum);
    char sum[4096];
    snprintf(sum, sizeof sum, "%s/x.summary.json", p.dir);
    const char *k[] = {"--report", "kernels", "--filter", "^void bias_add", "--csv", NULL};
    e2e_result r = stats(k, sum);
    ck_assert_int_eq(r.status, 0);
    ck_assert_int_eq(e2e_count(r.out, "\n"), 2);   /* header + bias_add */
    ck_assert_ptr_nonnull(strstr(r.out, "\"void bias_add<__nv_bfloat16>("));
    e2e_result_free(&r);
    /* the table cuts bias_add's 86-character name and says so; CSV keeps it whole */
    const char *ktable[] = {"--report", "kernels", NULL};
    r = stats(ktable, sum);
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "void bias_add<__nv_bfloat16>(__nv_bfloat16*, __nv_bfloat1..."));
    ck_assert_ptr_nonnull(strstr(r.out, "(names longer than 60 characters end in \"...\" here"));
    e2e_result_free(&r);
    const char *table[] = {"--report", "copies", NULL};
    r = stats(table, sum);
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "HtoD"));
    ck_assert_ptr_nonnull(strstr(r.out, "us"));   /* torch's units in the table */
    e2e_result_free(&r);
    const char *bad[] = {"--sort", "nope", NULL};
    r = stats(bad, sum);
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "cuprof: stats: --sort nope: the api report has no such column"));
    ck_assert_str_eq(r.out, "");
    e2e_result_free(&r);
    /* --group-by-stack needs a run with --stacks, a count, and the api report */
    const char *gbs[] = {"--group-by-stack", "3", NULL};
    r = stats(gbs, sum);
    ck_assert_int_eq(r.status, 1);
    ck_assert_ptr_nonnull(strstr(r.err, "has no host stacks; profile with prof.sh --stacks"));
    ck_assert_int_eq(e2e_count(r.err, "\n"), 1);
    ck_assert_str_eq(r.out, "");
    e2e_result_free(&r);
    const char *gbs0[] = {"--group-by-stack", "0", NULL};
    r = stats(gbs0, sum);
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "cuprof: stats: --group-by-stack needs a frame count"));
    e2e_result_free(&r);
    const char *gbsk[] = {"--group-by-stack", "2", "--report", "kernels", NULL};
    r = stats(gbsk, sum);
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "--group-by-stack groups the api report"));
    e2e_result_free(&r);
    const char *none[] = {NULL};
    r = stats(none, e2e_path("README.md"));
    ck_assert_int_eq(r.status, 1);
    ck_assert_ptr_nonnull(strstr(r.err, "is not a cuprof summary.json"));
    e2e_result_free(&r);
    e2e_prof_free(&p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("e2e_stats");
    TCase *tc = tcase_create("stats");
    tcase_set_timeout(tc, 3 * RUN_TIMEOUT_S);
    tcase_add_loop_test(tc, sort_limit_csv_on_demo_summaries, 0, 3);
    tcase_add_test(tc, report_filter_and_errors);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
