/*
 * test_e2e_findings.c - findings and `make demo` end to end on the simulated
 * device: scripts/demo.sh (with few iterations) prints what one step runs
 * in each mode, the compares and the findings, and names the overhead-bound
 * runs at size 64 and the compute-bound ones at 4096; the rules that tell
 * the modes apart fire where they should and not elsewhere; cold start shows
 * without warm-up and not with it.
 */
#include "harness.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEMO_TIMEOUT_S 120
#define RUN_TIMEOUT_S 60

/* Severity of rule in a summary.json's findings (NULL when absent); checks
 * that every finding carries its numbers and advice. */
static const char *finding(json_t *sum, const char *rule)
{
    json_t *arr = json_object_get(sum, "findings"), *f;
    size_t i;
    ck_assert(json_is_array(arr));
    const char *sev = NULL;
    json_array_foreach(arr, i, f) {
        ck_assert(json_is_string(json_object_get(f, "message")));
        ck_assert(json_is_string(json_object_get(f, "advice")));
        ck_assert(json_is_object(json_object_get(f, "numbers")));
        if (!strcmp(json_string_value(json_object_get(f, "rule")), rule))
            sev = json_string_value(json_object_get(f, "severity"));
    }
    return sev;
}

static json_t *load_run(const char *dir, const char *size, const char *mode)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s/%s.summary.json", dir, size, mode);
    json_t *j = e2e_load_json(path);
    ck_assert_msg(j != NULL, "%s missing or invalid", path);
    return j;
}

START_TEST(demo_tells_the_modes_apart)
{
    ck_assert_msg(access(e2e_bpath("sim/libcudart.so.13"), R_OK) == 0, "sim not built");
    char *dir = e2e_tmpdir();
    char out_env[4200];
    snprintf(out_env, sizeof out_env, "DEMO_OUT=%s", dir);
    const char *argv[] = {"/bin/bash", e2e_path("scripts/demo.sh"), NULL};
    const char *env[] = {"DEMO_ITERS=20", "DEMO_DEVICE=sim", out_env, NULL};
    e2e_result r = e2e_run(argv, env, e2e_top(), DEMO_TIMEOUT_S);
    ck_assert_msg(r.status == 0, "demo.sh exit %d; stderr:\n%s\nstdout:\n%s", r.status, r.err, r.out);
    const char *o = r.out;

    ck_assert_ptr_nonnull(strstr(o, "No GPU found: running on the simulated H100"));
    /* what one step runs, at both sizes */
    ck_assert_int_eq(e2e_count(o, "\n  eager  2 kernels  ("), 2);
    ck_assert_int_eq(e2e_count(o, "\n  addmm  1 DtoD copy + 1 kernel  ("), 2);
    ck_assert_int_eq(e2e_count(o, "\n  fused  1 kernel  ("), 2);
    /* the compare of the three modes, at both sizes */
    ck_assert_int_eq(e2e_count(o, "cuprof compare: 3 runs"), 2);
    ck_assert_ptr_nonnull(strstr(o, "only in A: void bias_add"));
    ck_assert_ptr_nonnull(strstr(o, "C: the GEMM 64x64x64 now uses the BIAS epilogue"));
    ck_assert_ptr_nonnull(strstr(o, "C: the GEMM 4096x4096x4096 now uses the BIAS epilogue"));
    /* the verdicts */
    ck_assert_ptr_nonnull(strstr(o, "Verdict at size 64: eager overhead-bound, addmm overhead-bound, "
                                    "fused overhead-bound"));
    const char *v = strstr(o, "Verdict at size 4096: ");
    ck_assert_ptr_nonnull(v);
    ck_assert_ptr_nonnull(strstr(v, "eager compute-bound, addmm compute-bound, fused compute-bound"));
    /* each run's findings, and the traces to open */
    ck_assert_int_eq(e2e_count(o, "[warning] overhead-bound: "), 3);
    ck_assert_int_eq(e2e_count(o, "[info] compute-bound: "), 3);
    ck_assert_int_eq(e2e_count(o, "Findings, "), 6);
    ck_assert_int_eq(e2e_count(o, ".trace.json\n"), 6);

    static const char *const sizes[] = {"64", "4096"};
    for (int i = 0; i < 2; i++) {
        json_t *eager = load_run(dir, sizes[i], "eager");
        json_t *addmm = load_run(dir, sizes[i], "addmm");
        json_t *fused = load_run(dir, sizes[i], "fused");
        ck_assert_ptr_nonnull(finding(eager, "fusion-candidate"));
        ck_assert_ptr_null(finding(addmm, "fusion-candidate"));
        ck_assert_ptr_null(finding(fused, "fusion-candidate"));
        ck_assert_ptr_nonnull(finding(addmm, "addmm-pattern"));
        ck_assert_ptr_null(finding(eager, "addmm-pattern"));
        ck_assert_ptr_null(finding(fused, "addmm-pattern"));
        ck_assert_ptr_nonnull(finding(fused, "heavyweight-kernels"));
        /* warm-up 2 (the demo's default): no cold start */
        ck_assert_ptr_null(finding(eager, "cold-start"));
        ck_assert_ptr_null(finding(fused, "cold-start"));
        char path[4200];
        snprintf(path, sizeof path, "%s/%s/eager.trace.json", dir, sizes[i]);
        ck_assert_msg(access(path, R_OK) == 0, "%s missing", path);
        json_decref(eager);
        json_decref(addmm);
        json_decref(fused);
    }
    json_t *e64 = load_run(dir, "64", "eager"), *e4k = load_run(dir, "4096", "eager");
    ck_assert_str_eq(finding(e64, "overhead-bound"), "warning");
    ck_assert_ptr_null(finding(e64, "compute-bound"));
    ck_assert_str_eq(finding(e4k, "compute-bound"), "info");
    ck_assert_ptr_null(finding(e4k, "overhead-bound"));
    json_decref(e64);
    json_decref(e4k);
    e2e_result_free(&r);
    e2e_rmtree(dir);
    free(dir);
}
END_TEST

/* matmul_add --mode MODE --size 64 --iters 5 --warmup W under prof.sh;
 * returns the parsed summary.json. */
static json_t *profile(const char *dir, const char *mode, const char *warmup)
{
    char name[64];
    snprintf(name, sizeof name, "%s.w%s", mode, warmup);
    const char *argv[] = {e2e_path("prof.sh"), "-q", "-o", dir, "-n", name,
                          e2e_path("bench/matmul_add"), "--mode", mode, "--size", "64",
                          "--iters", "5", "--warmup", warmup, NULL};
    const char *env[] = {e2e_sim_env(), NULL};
    e2e_result r = e2e_run(argv, env, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(r.status == 0, "matmul_add exit %d: %s", r.status, r.err);
    e2e_result_free(&r);
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.summary.json", dir, name);
    json_t *j = e2e_load_json(path);
    ck_assert_ptr_nonnull(j);
    return j;
}

START_TEST(cold_start_without_warmup_only)
{
    char *dir = e2e_tmpdir();
    static const char *const modes[] = {"eager", "fused"};
    for (int i = 0; i < 2; i++) {
        json_t *cold = profile(dir, modes[i], "0"), *warm = profile(dir, modes[i], "2");
        ck_assert_msg(finding(cold, "cold-start") != NULL, "%s --warmup 0: no cold-start", modes[i]);
        ck_assert_msg(finding(warm, "cold-start") == NULL, "%s --warmup 2: cold-start", modes[i]);
        json_decref(cold);
        json_decref(warm);
    }
    e2e_rmtree(dir);
    free(dir);
}
END_TEST

/* Failed calls (issue 33): on the real libraries without a driver every call
 * returns 35, and the run says so, naming the error and what to do, with no
 * other finding; on the sim one failing call among good ones is a finding
 * with its first failing call. */
START_TEST(every_call_failed_says_why)
{
    const char *argv[] = {e2e_bpath("tests/tls_prog"), "30", NULL};
    e2e_prof p = e2e_profile(0, argv, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(p.r.status == 0 && p.sum && p.txt, "exit %d\n%s", p.r.status, p.r.err);
    ck_assert_str_eq(finding(p.sum, "all-calls-failed"), "warning");
    ck_assert_ptr_null(finding(p.sum, "cold-start"));
    json_t *f = json_array_get(json_object_get(p.sum, "findings"), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(f, "numbers"), "error")), 35);
    ck_assert_ptr_nonnull(strstr(e2e_str(f, "message"), "cudaErrorInsufficientDriver"));
    ck_assert_ptr_nonnull(strstr(e2e_str(f, "advice"), "driver"));
    ck_assert_ptr_nonnull(strstr(p.txt, "  errors:        every one of the"));
    /* no kernel ran: the launch census has no share to give (it said 0.0) */
    ck_assert(json_is_null(json_object_get(json_object_get(p.sum, "launch_census"), "coverage")));
    e2e_prof_free(&p);
}
END_TEST

START_TEST(a_failed_call_among_good_ones)
{
    const char *argv[] = {e2e_bpath("tests/tls_prog"), "30", "bad-device", NULL};
    e2e_prof p = e2e_profile(1, argv, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(p.r.status == 0 && p.sum && p.txt, "exit %d\n%s", p.r.status, p.r.err);
    ck_assert_ptr_null(finding(p.sum, "all-calls-failed"));
    ck_assert_str_eq(finding(p.sum, "call-failed"), "warning");
    ck_assert_ptr_nonnull(strstr(p.txt, "1 call returned 101 (cudaErrorInvalidDevice): cudaSetDevice"));
    ck_assert_ptr_nonnull(strstr(p.txt, "  errors:        1 call failed"));
    e2e_prof_free(&p);
}
END_TEST

/* NVTX ranges between the calls (matmul_add --nvtx: "matmul" pops and
 * "bias_add" pushes between the GEMM and its bias kernel) do not hide the
 * pair from the rules that look at a call's neighbour (issue 33). */
START_TEST(nvtx_between_calls_hides_nothing)
{
    const char *argv[] = {e2e_path("bench/matmul_add"), "--mode", "eager", "--size", "64", "--nvtx",
                          "--iters", "5", NULL};
    e2e_prof p = e2e_profile(1, argv, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(p.r.status == 0 && p.sum, "exit %d\n%s", p.r.status, p.r.err);
    ck_assert_msg(finding(p.sum, "fusion-candidate") != NULL, "no fusion-candidate with --nvtx:\n%s",
                  p.txt);
    e2e_prof_free(&p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("e2e_findings");
    TCase *tc = tcase_create("demo");
    tcase_set_timeout(tc, DEMO_TIMEOUT_S + 30);
    tcase_add_test(tc, demo_tells_the_modes_apart);
    tcase_add_test(tc, cold_start_without_warmup_only);
    tcase_add_test(tc, every_call_failed_says_why);
    tcase_add_test(tc, a_failed_call_among_good_ones);
    tcase_add_test(tc, nvtx_between_calls_hides_nothing);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
