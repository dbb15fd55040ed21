/*
 * test_e2e_driver.c - driver-API launches end to end on the simulated
 * device: bench/driver_launch loads a cubin and launches its kernel N times
 * with cuLaunchKernelEx, every driver function obtained through
 * cudaGetDriverEntryPointByVersion (as Triton and PyTorch reach the
 * driver). Through the entry-point hook the launches are hooked calls with
 * the kernel's name; with that hook off (CUPROF_DRIVER_HOOKS=0), or with the
 * functions found by a dlsym on the sim's libcuda.so.1, CUPTI alone still
 * counts, names and times them; the launch census says which.
 */
#include "harness.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN_TIMEOUT_S 120
#define LAUNCHES 9

static json_t *named(json_t *rows, const char *name)
{
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r)
        if (!strcmp(e2e_str(r, "name"), name))
            return r;
    return NULL;
}

/* hooked: 1 with the entry-point hook, 0 with CUPTI alone (the hook off, or
 * the functions found with dlsym on libcuda: dlsym) */
static void check_run(int hooked, int dlsym)
{
    char n[16];
    snprintf(n, sizeof n, "%d", LAUNCHES);
    const char *argv[] = {e2e_path("bench/driver_launch"), "--launches", n, dlsym ? "--dlsym" : NULL, NULL};
    const char *env[] = {hooked || dlsym ? "CUPROF_DRIVER_HOOKS=1" : "CUPROF_DRIVER_HOOKS=0", NULL};
    e2e_prof p = e2e_profile(1, argv, env, RUN_TIMEOUT_S);
    ck_assert_msg(p.r.status == 0 && p.sum && p.trace && p.txt, "exit %d\n%s", p.r.status, p.r.err);
    ck_assert_msg(strstr(p.r.out, "driver_launch: 9 launches of scale"), "%s", p.r.out);

    /* counted, named, timed either way */
    json_t *k = named(json_object_get(p.sum, "kernels"), "scale");
    ck_assert_ptr_nonnull(k);
    ck_assert_int_eq(e2e_int(k, "launches"), LAUNCHES);
    ck_assert_int_gt(e2e_int(k, "gpu_total_ns"), 0);
    json_t *row = named(json_object_get(p.sum, "api"), "cuLaunchKernelEx");
    ck_assert_ptr_nonnull(row);
    ck_assert_int_eq(e2e_int(row, "calls"), LAUNCHES);
    ck_assert_int_eq(e2e_int(row, "cuda_total_ns"), e2e_int(k, "gpu_total_ns"));

    /* the census */
    json_t *c = json_object_get(p.sum, "launch_census");
    json_t *paths = json_object_get(c, "paths");
    ck_assert_uint_eq(json_array_size(paths), 1);
    ck_assert_str_eq(e2e_str(json_array_get(paths, 0), "path"), hooked ? "driver" : "cupti");
    ck_assert_int_eq(e2e_int(json_array_get(paths, 0), "kernels"), LAUNCHES);
    ck_assert(json_number_value(json_object_get(c, "coverage")) == (hooked ? 1.0 : 0.0));
    ck_assert_msg(strstr(p.txt, hooked ? "(9 driver launches through an entry point)"
                                       : "(9 launches seen by CUPTI only)"),
                  "%s", p.txt);

    /* the trace's launch calls: hooked ones name their kernel; CUPTI's are marked */
    size_t i, calls = 0;
    json_t *ev;
    size_t queries = 0, asked_launch = 0;
    json_array_foreach(json_object_get(p.trace, "traceEvents"), i, ev) {
        if (!strcmp(e2e_str(ev, "ph"), "X") &&
            !strcmp(e2e_str(ev, "name"), "cudaGetDriverEntryPointByVersion")) {
            /* each query names the symbol it asked for (issue 33.8) */
            json_t *sym = json_object_get(json_object_get(ev, "args"), "symbol");
            ck_assert_msg(json_is_string(sym), "an entry-point query without its symbol");
            queries++;
            asked_launch += !strcmp(json_string_value(sym), "cuLaunchKernelEx");
        }
        if (strcmp(e2e_str(ev, "ph"), "X") || strcmp(e2e_str(ev, "name"), "cuLaunchKernelEx"))
            continue;
        json_t *args = json_object_get(ev, "args");
        calls++;
        if (hooked) {
            ck_assert_str_eq(e2e_str(args, "kernel"), "scale");
            ck_assert_str_eq(e2e_str(ev, "cat"), "cuda_driver");
        } else {
            ck_assert_str_eq(e2e_str(args, "source"), "cupti");
        }
    }
    ck_assert_uint_eq(calls, LAUNCHES);
    if (!dlsym) {
        ck_assert_uint_gt(queries, 1);
        ck_assert_uint_eq(asked_launch, 1);
    } else {
        ck_assert_uint_eq(queries, 0);
    }

    /* its cuMemAlloc of 2^16 floats: device memory when the wrappers are on */
    json_t *mem = json_object_get(p.sum, "memory");
    if (hooked) {
        ck_assert_int_eq(e2e_int(mem, "peak_bytes"), 1 << 18);
        ck_assert_str_eq(e2e_str(json_array_get(json_object_get(mem, "owners"), 0), "api"), "cuMemAlloc_v2");
        ck_assert_int_eq(e2e_int(mem, "end_bytes"), 0);
    } else {
        ck_assert_int_eq(e2e_int(mem, "allocations"), 0);
    }
    e2e_prof_free(&p);
}

START_TEST(through_the_entry_point_hook)
{
    check_run(1, 0);
}
END_TEST

START_TEST(through_cupti_alone)
{
    check_run(0, 0);
}
END_TEST

/* dlsym on the driver library: no hook is on that path, CUPTI's records are */
START_TEST(dlsym_on_libcuda)
{
    check_run(0, 1);
}
END_TEST

/* Cooperative launches (issue 33): through the runtime (coop_prog: grid-wide
 * synchronisation with cooperative groups) and through the driver's entry
 * point (driver_launch --cooperative). Each launch is a hooked call with its
 * kernel: census path runtime/driver, coverage 1; with CUPTI off (_i = 1) the
 * calls are still there. */
static void check_coop(const char *const argv[], const char *api, const char *kernel, int n,
                       const char *path, int gpu_off)
{
    const char *env[] = {gpu_off ? "CUPROF_GPU=0" : "CUPROF_GPU=1", NULL};
    e2e_prof p = e2e_profile(1, argv, env, RUN_TIMEOUT_S);
    ck_assert_msg(p.r.status == 0 && p.sum, "exit %d\n%s", p.r.status, p.r.err);
    json_t *row = named(json_object_get(p.sum, "api"), api);
    ck_assert_msg(row != NULL, "no %s row", api);
    ck_assert_int_eq(e2e_int(row, "calls"), n);
    if (!gpu_off) {
        json_t *c = json_object_get(p.sum, "launch_census");
        ck_assert(json_number_value(json_object_get(c, "coverage")) == 1.0);
        json_t *k = named(json_object_get(c, "by_kernel"), kernel);
        ck_assert_msg(k != NULL, "no %s in the census", kernel);
        ck_assert_int_eq(e2e_int(k, "launches"), n);
        ck_assert_str_eq(e2e_str(k, "path"), path);
        ck_assert_int_eq(e2e_int(row, "cuda_total_ns"),
                         e2e_int(named(json_object_get(p.sum, "kernels"), kernel), "gpu_total_ns"));
    }
    e2e_prof_free(&p);
}

START_TEST(cooperative_runtime_launch)
{
    const char *argv[] = {e2e_bpath("tests/coop_prog"), "7", NULL};
    check_coop(argv, "cudaLaunchCooperativeKernel", "grid_sum(int*, int*)", 7, "runtime", _i);
}
END_TEST

START_TEST(cooperative_driver_launch)
{
    const char *argv[] = {e2e_path("bench/driver_launch"), "--launches", "6", "--cooperative", NULL};
    check_coop(argv, "cuLaunchCooperativeKernel", "scale", 6, "driver", _i);
}
END_TEST

/* A program of the driver API alone (drv_prog: devices, a context, copies
 * both ways, a memset, a stream, events) runs to its end on the sim, bare
 * and profiled, with the same output; its copies are CUPTI's driver records
 * (issue 31: it died at load). */
START_TEST(driver_api_program_runs_on_the_sim)
{
    const char *argv[] = {e2e_bpath("tests/drv_prog"), NULL};
    const char *env[] = {e2e_sim_env(), NULL};
    e2e_result bare = e2e_run(argv, env, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(bare.status == 0, "bare: exit %d\n%s", bare.status, bare.err);
    ck_assert_ptr_nonnull(strstr(bare.out, "round trip ok, memset ok, events ok"));
    e2e_prof p = e2e_profile(1, argv, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(p.r.status == 0 && p.sum, "profiled: exit %d\n%s", p.r.status, p.r.err);
    ck_assert_str_eq(p.r.out, bare.out);
    size_t i;
    json_t *c;
    long long dtoh = -1, memsets = -1;
    json_array_foreach(json_object_get(p.sum, "copies"), i, c) {
        if (!strcmp(e2e_str(c, "kind"), "DtoH"))
            dtoh = e2e_int(c, "gpu_copies");
        if (!strcmp(e2e_str(c, "kind"), "memset"))
            memsets = e2e_int(c, "gpu_copies");
    }
    ck_assert_int_eq(dtoh, 2);
    ck_assert_int_eq(memsets, 1);
    e2e_result_free(&bare);
    e2e_prof_free(&p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("e2e_driver");
    TCase *tc = tcase_create("driver");
    tcase_set_timeout(tc, 2 * RUN_TIMEOUT_S);
    tcase_add_test(tc, through_the_entry_point_hook);
    tcase_add_test(tc, through_cupti_alone);
    tcase_add_test(tc, dlsym_on_libcuda);
    tcase_add_loop_test(tc, cooperative_runtime_launch, 0, 2);
    tcase_add_loop_test(tc, cooperative_driver_launch, 0, 2);
    tcase_add_test(tc, driver_api_program_runs_on_the_sim);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
