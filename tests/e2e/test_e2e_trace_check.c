/*
 * test_e2e_trace_check.c - the JSON traces follow the Trace Event Format
 * rules the viewers apply (trace_check.h): the demo's runs (matmul_add
 * eager, addmm and fused at sizes 64 and 4096, as make demo profiles them)
 * and the NVTX program's (push and start/end ranges, marks) give zero
 * violations. The checker itself is shown each rule broken.
 */
#include "harness.h"
#include "trace_check.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

#define RUN_TIMEOUT_S 180

static size_t check_text(const char *json, char *out, size_t len)
{
    json_error_t err;
    json_t *t = json_loads(json, 0, &err);
    ck_assert_msg(t != NULL, "%s", err.text);
    size_t n = trace_check(t, out, len, 8);
    json_decref(t);
    return n;
}

#define META "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"t\"}}"

START_TEST(checker_catches_each_rule)
{
    static const struct {
        const char *trace, *want;
    } bad[] = {
        {"{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":4294967303,\"ts\":1,\"dur\":1}]}",
         "wider than 32 bits"},
        {"{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":5},"
         "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":5}]}",
         "without nesting"},
        {"{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},"
         "{\"ph\":\"s\",\"cat\":\"c\",\"name\":\"f\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":9},"
         "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"c\",\"name\":\"f\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":1.5}]}",
         "no slice there to bind to"},
        {"{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},"
         "{\"ph\":\"s\",\"cat\":\"c\",\"name\":\"f\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":1.5}]}",
         "1 starts and 0 ends"},
        {"{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},"
         "{\"ph\":\"s\",\"cat\":\"c\",\"name\":\"f\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":1.5},"
         "{\"ph\":\"f\",\"cat\":\"c\",\"name\":\"f\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":1.5}]}",
         "no \"bp\":\"e\""},
        {"{\"traceEvents\":[{\"ph\":\"b\",\"cat\":\"c\",\"name\":\"r\",\"id2\":{\"local\":\"1\"},"
         "\"pid\":1,\"tid\":1,\"ts\":1}]}",
         "1 begins and 0 ends"},
        {"{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{}}]}",
         "without args.name"},
        /* bound by Perfetto's rule (inside a slice) but not by DevTools'
         * (no event of the flow's category at the flow's ts) */
        {"{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"a\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},"
         "{\"ph\":\"I\",\"s\":\"p\",\"cat\":\"c\",\"name\":\"f\",\"pid\":1,\"tid\":1,\"ts\":1.5},"
         "{\"ph\":\"s\",\"cat\":\"c\",\"name\":\"f\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":1.5},"
         "{\"ph\":\"X\",\"cat\":\"k\",\"name\":\"k\",\"pid\":2,\"tid\":7,\"ts\":6,\"dur\":1},"
         "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"c\",\"name\":\"f\",\"id\":1,\"pid\":2,\"tid\":7,\"ts\":6}]}",
         "flow end c|f|1 at 6000 on pid 2 tid 7: no X or I event of category \"c\""},
    };
    char out[2048];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(check_text(bad[i].trace, out, sizeof out) > 0, "case %zu passed", i);
        ck_assert_msg(strstr(out, bad[i].want), "case %zu: %s", i, out);
    }
    ck_assert_uint_eq(
        check_text("{\"traceEvents\":[" META ",{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,"
                   "\"ts\":1,\"dur\":4},{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":2,"
                   "\"dur\":1},{\"ph\":\"s\",\"cat\":\"c\",\"name\":\"f\",\"id\":1,\"pid\":1,"
                   "\"tid\":1,\"ts\":2.5},{\"ph\":\"X\",\"name\":\"k\",\"pid\":2,\"tid\":7,\"ts\":6,"
                   "\"dur\":1},{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"c\",\"name\":\"f\",\"id\":1,"
                   "\"pid\":2,\"tid\":7,\"ts\":6},{\"ph\":\"I\",\"s\":\"p\",\"cat\":\"c\",\"name\":\"f\","
                   "\"pid\":1,\"tid\":1,\"ts\":2.5},{\"ph\":\"I\",\"s\":\"p\",\"cat\":\"c\","
                   "\"name\":\"f\",\"pid\":2,\"tid\":7,\"ts\":6}]}",
                   out, sizeof out),
        0);
}
END_TEST

static void clean(const char *const argv[])
{
    e2e_prof p = e2e_profile(1, argv, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(p.trace, "no trace; exit %d\n%s", p.r.status, p.r.err);
    char out[4096];
    size_t n = trace_check(p.trace, out, sizeof out, 10);
    ck_assert_msg(n == 0, "%s: %zu violations:\n%s", argv[0], n, out);
    e2e_prof_free(&p);
}

/* The demo's nine runs. */
START_TEST(demo_traces_are_clean)
{
    static const char *const modes[] = {"eager", "addmm", "fused"};
    static const char *const sizes[] = {"64", "4096"};
    const char *args[] = {e2e_path("bench/matmul_add"), "--mode", modes[_i % 3], "--size",
                          sizes[_i / 3], "--dtype", "bf16", "--iters", "20", "--warmup", "2", NULL};
    clean(args);
}
END_TEST

START_TEST(nvtx_trace_is_clean)
{
    const char *args[] = {e2e_bpath("tests/nvtx_prog"), NULL};
    clean(args);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("e2e_trace_check");
    TCase *tc = tcase_create("trace_check");
    tcase_set_timeout(tc, 2 * RUN_TIMEOUT_S);
    tcase_add_test(tc, checker_catches_each_rule);
    tcase_add_loop_test(tc, demo_traces_are_clean, 0, 6);
    tcase_add_test(tc, nvtx_trace_is_clean);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
