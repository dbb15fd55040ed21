/*
 * test_e2e_nvtx.c - NVTX ranges end to end on the simulated device: prof.sh
 * points NVTX_INJECTION64_PATH at the library, the program's own NVTX
 * headers load it, and the ranges reach the table, summary.json and the
 * trace, with the GPU work launched inside each.
 */
#include "harness.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RUN_TIMEOUT_S 120

typedef e2e_prof prof_run;

/* prof.sh on the sim; the outputs must be there. */
static prof_run profile(const char *const argv[], const char *const env[])
{
    prof_run p = e2e_profile(1, argv, env, RUN_TIMEOUT_S);
    ck_assert_msg(p.trace && p.sum && p.txt, "outputs missing; exit %d, stderr:\n%s", p.r.status,
                  p.r.err);
    return p;
}

/* The ranges[] row of name (and domain), or NULL. */
static json_t *range_row(json_t *sum, const char *name, const char *domain)
{
    json_t *rows = json_object_get(sum, "ranges"), *r;
    size_t i;
    json_array_foreach(rows, i, r) {
        if (!strcmp(json_string_value(json_object_get(r, "name")), name) &&
            !strcmp(json_string_value(json_object_get(r, "domain")), domain))
            return r;
    }
    return NULL;
}

static json_int_t num(json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

/* Device time, in ns, of the trace's kernels whose args.range is name. The
 * trace writes times in us with 3 decimals: exact ns. */
static long long kernel_ns_in(json_t *trace, const char *name, int *count)
{
    long long sum = 0;
    json_t *evs = json_object_get(trace, "traceEvents"), *e;
    size_t i;
    json_array_foreach(evs, i, e) {
        const char *cat = json_string_value(json_object_get(e, "cat"));
        const char *r = json_string_value(json_object_get(json_object_get(e, "args"), "range"));
        if (cat && !strcmp(cat, "kernel") && r && !strcmp(r, name)) {
            sum += llround(json_number_value(json_object_get(e, "dur")) * 1000.0);
            (*count)++;
        }
    }
    return sum;
}

START_TEST(matmul_add_steps_carry_their_kernels)
{
    const char *args[] = {e2e_path("bench/matmul_add"), "--mode", "eager", "--nvtx", "--iters",
                          "5", "--warmup", "2", NULL};
    prof_run p = profile(args, NULL);
    ck_assert_msg(p.r.status == 0, "exit %d\n%s", p.r.status, p.r.err);
    json_t *step = range_row(p.sum, "step", ""), *mm = range_row(p.sum, "matmul", ""),
           *bias = range_row(p.sum, "bias_add", "");
    ck_assert_ptr_nonnull(step);
    ck_assert_ptr_nonnull(mm);
    ck_assert_ptr_nonnull(bias);
    ck_assert_int_eq(num(step, "calls"), 7);       /* 2 warm-up + 5 timed steps */
    ck_assert_int_eq(num(mm, "calls"), 7);
    ck_assert_int_eq(num(bias, "kernels"), 7);
    /* GPU time per range, to the ns, is its kernels' device time. */
    int n_mm = 0, n_bias = 0, n_step = 0;
    long long mm_ns = kernel_ns_in(p.trace, "matmul", &n_mm);
    long long bias_ns = kernel_ns_in(p.trace, "bias_add", &n_bias);
    long long step_ns = kernel_ns_in(p.trace, "step", &n_step);
    ck_assert_int_gt(n_mm, 0);
    ck_assert_int_eq(n_bias, 7);
    ck_assert_int_eq(num(mm, "gpu_total_ns"), mm_ns);
    ck_assert_int_eq(num(bias, "gpu_total_ns"), bias_ns);
    ck_assert_int_eq(num(step, "gpu_total_ns"), mm_ns + bias_ns + step_ns);
    ck_assert_int_eq(num(step, "kernels"), n_mm + n_bias + n_step);
    /* the table has them, and nvtx entry points are no rows of the API table */
    ck_assert_ptr_nonnull(strstr(p.txt, "NVTX ranges"));
    ck_assert_ptr_null(strstr(p.txt, "nvtxRangePush"));
    /* the trace: one slice per step on the CPU lane */
    int slices = 0;
    json_t *e;
    size_t i;
    json_array_foreach(json_object_get(p.trace, "traceEvents"), i, e) {
        const char *cat = json_string_value(json_object_get(e, "cat"));
        const char *nm = json_string_value(json_object_get(e, "name"));
        slices += cat && nm && !strcmp(cat, "nvtx") && !strcmp(nm, "step");
    }
    ck_assert_int_eq(slices, 7);
    e2e_prof_free(&p);
}
END_TEST

START_TEST(every_kind_of_range_is_captured)
{
    const char *args[] = {e2e_bpath("tests/nvtx_prog"), NULL};
    prof_run p = profile(args, NULL);
    ck_assert_msg(p.r.status == 3, "exit %d (the program's own is 3)\n%s", p.r.status, p.r.err);
    ck_assert_ptr_nonnull(strstr(p.r.out, "nvtx_prog done"));
    static const struct { const char *name, *domain; int calls; } want[] = {
        {"ctor", "", 1}, {"outer", "", 1}, {"inner", "", 1}, {"async", "", 1},
        {"worker", "", 3}, {"registered", "mydomain", 1}, {"wide \xc3\xa9", "", 1},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        json_t *r = range_row(p.sum, want[k].name, want[k].domain);
        ck_assert_msg(r != NULL, "no range %s@%s", want[k].name, want[k].domain);
        ck_assert_int_eq(num(r, "calls"), want[k].calls);
    }
    /* nested: outer's CPU time holds inner's; the memset is inside both */
    json_t *outer = range_row(p.sum, "outer", ""), *inner = range_row(p.sum, "inner", "");
    ck_assert_int_ge(num(outer, "cpu_total_ns"), num(inner, "cpu_total_ns"));
    ck_assert_int_eq(num(outer, "gpu_total_ns"), num(inner, "gpu_total_ns"));
    ck_assert_int_gt(num(inner, "gpu_total_ns"), 0);
    /* the start/end range owns its starting thread's calls until it ends */
    ck_assert_int_eq(num(range_row(p.sum, "async", ""), "gpu_total_ns"), num(inner, "gpu_total_ns"));
    /* the start/end range, ended on the worker thread, is an async slice pair */
    int b = 0, en = 0, marks = 0, memsets_in_inner = 0;
    json_t *e;
    size_t i;
    json_array_foreach(json_object_get(p.trace, "traceEvents"), i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        const char *nm = json_string_value(json_object_get(e, "name"));
        if (!ph || !nm)
            continue;
        b += !strcmp(ph, "b") && !strcmp(nm, "async");
        en += !strcmp(ph, "e") && !strcmp(nm, "async");
        marks += !strcmp(ph, "i") && !strcmp(nm, "mark");
        const char *cat = json_string_value(json_object_get(e, "cat"));
        const char *in = json_string_value(json_object_get(json_object_get(e, "args"), "range"));
        memsets_in_inner += cat && !strcmp(cat, "gpu_memset") && in && !strcmp(in, "inner");
    }
    ck_assert_int_eq(b, 1);
    ck_assert_int_eq(en, 1);
    ck_assert_int_eq(marks, 1);
    ck_assert_int_eq(memsets_in_inner, 1);   /* copies and memsets carry their range too */
    e2e_prof_free(&p);
}
END_TEST

/* A program that set its own NVTX tool keeps it; cuprof says so once. */
START_TEST(a_program_s_own_nvtx_tool_is_kept)
{
    const char *args[] = {e2e_bpath("tests/nvtx_prog"), NULL};
    const char *env[] = {"NVTX_INJECTION64_PATH=/nonexistent/libtool.so", NULL};
    prof_run p = profile(args, env);
    ck_assert_int_eq(p.r.status, 3);
    ck_assert_int_eq(e2e_count(p.r.err, "NVTX_INJECTION64_PATH is already set"), 1);
    ck_assert_uint_eq(json_array_size(json_object_get(p.sum, "ranges")), 0);
    e2e_prof_free(&p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("e2e_nvtx");
    TCase *tc = tcase_create("nvtx");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, matmul_add_steps_carry_their_kernels);
    tcase_add_test(tc, every_kind_of_range_is_captured);
    tcase_add_test(tc, a_program_s_own_nvtx_tool_is_kept);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
