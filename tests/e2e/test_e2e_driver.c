/*
 * test_e2e_driver.c - driver-API launches end to end on the simulated
 * device: bench/driver_launch loads a cubin and launches its kernel N times
 * with cuLaunchKernelEx, every driver function obtained through
 * cudaGetDriverEntryPointByVersion (as Triton and PyTorch reach the
 * driver). Through the entry-point hook the launches are hooked calls with
 * the kernel's name, and so are the functions found by a dlsym on the sim's
 * libcuda.so.1 (the dlsym hook, preload/hooks_dlsym.c, issue 39: before it
 * CUPTI alone saw them); with that hook off (CUPROF_DRIVER_HOOKS=0), CUPTI
 * alone still counts, names and times them; the launch census says which.
 */
#include "harness.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN_TIMEOUT_S 120
#define LAUNCHES 9

/* The copies row of a kind ("HtoD", "memset"), or NULL. */
static json_t *named_kind(json_t *rows, const char *kind)
{
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r) {
        const char *k = json_string_value(json_object_get(r, "kind"));
        if (k && !strcmp(k, kind))
            return r;
    }
    return NULL;
}

static json_t *named(json_t *rows, const char *name)
{
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r)
        if (!strcmp(e2e_str(r, "name"), name))
            return r;
    return NULL;
}

/* hooked: 1 with the entry-point hook or the functions found with dlsym on
 * libcuda (dlsym: 1), 0 with CUPTI alone (the entry-point hook off) */
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
    ck_assert_msg(strstr(p.txt, hooked ? "(9 driver API launches)"
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

/* dlsym on the driver library's handle: the dlsym hook hands out the
 * driver hooks, as linking with -lcuda gives them */
START_TEST(dlsym_on_libcuda)
{
    check_run(1, 1);
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
    /* linked with -lcuda, every call is a row (issue 41): the copies with
     * their bytes and the device time CUPTI's driver records give them */
    json_t *api = json_object_get(p.sum, "api"), *copy = named_kind(json_object_get(p.sum, "copies"), "DtoH");
    json_t *row = named(api, "cuMemcpyDtoH_v2");
    ck_assert_ptr_nonnull(row);
    ck_assert_ptr_nonnull(copy);
    ck_assert_int_eq(e2e_int(row, "calls"), 2);
    ck_assert_int_eq(e2e_int(copy, "calls"), 2);
    ck_assert_int_eq(e2e_int(copy, "bytes"), 2 * 4096);
    ck_assert_int_gt(e2e_int(row, "cuda_total_ns"), 0);
    ck_assert_int_eq(e2e_int(row, "cuda_total_ns"), e2e_int(copy, "gpu_total_ns"));
    static const char *const rows[] = {"cuInit", "cuDeviceGetCount", "cuDeviceTotalMem_v2", "cuMemAlloc_v2",
                                       "cuMemsetD8_v2", "cuEventRecord", "cuEventSynchronize",
                                       "cuEventElapsedTime_v2", "cuMemFree_v2", "cuStreamDestroy_v2"};
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++)
        ck_assert_msg(named(api, rows[k]) != NULL, "no %s row", rows[k]);
    ck_assert_int_eq(e2e_int(named(api, "cuEventRecord"), "calls"), 2);
    ck_assert_int_gt(e2e_int(named(api, "cuMemsetD8_v2"), "cuda_self_ns"), 0);
    json_t *mem = json_object_get(p.sum, "memory");
    ck_assert_int_eq(e2e_int(mem, "peak_bytes"), 4096);
    ck_assert_str_eq(e2e_str(json_array_get(json_object_get(mem, "owners"), 0), "api"), "cuMemAlloc_v2");
    ck_assert_int_eq(e2e_int(mem, "end_bytes"), 0);
    e2e_result_free(&bare);
    e2e_prof_free(&p);
}
END_TEST

/* The same driver functions linked and handed out by the runtime's entry
 * point, each called once both ways: one row of each, counted twice, never
 * more (the entry point hands out the hook of the very function), with the
 * copies charged; CUPROF_DRIVER_HOOKS=0 hands out the driver's own, whose
 * calls then are seen by CUPTI alone: the copy and the memset (CUPTI's
 * driver records of those are kept, and join the row of their name), not
 * the allocation, free and sync. */
START_TEST(linked_and_entry_point_counted_once)
{
    int hooks_on = _i == 0;
    const char *argv[] = {e2e_bpath("tests/drv_ep_prog"), NULL};
    const char *env[] = {hooks_on ? NULL : "CUPROF_DRIVER_HOOKS=0", NULL};
    e2e_prof p = e2e_profile(1, argv, env, RUN_TIMEOUT_S);
    ck_assert_msg(p.r.status == 0 && p.sum, "profiled: exit %d\n%s", p.r.status, p.r.err);
    ck_assert_ptr_nonnull(strstr(p.r.out, "drv_ep_prog: ok"));
    json_t *api = json_object_get(p.sum, "api");
    static const struct {
        const char *name;
        int cupti_sees;   /* CUPTI's driver record of it is kept */
    } both[] = {{"cuMemAlloc_v2", 0}, {"cuMemsetD32_v2", 1}, {"cuMemcpyHtoD_v2", 1},
                {"cuStreamSynchronize", 0}, {"cuMemFree_v2", 0}};
    for (size_t k = 0; k < sizeof both / sizeof both[0]; k++) {
        json_t *row = named(api, both[k].name);
        ck_assert_msg(row != NULL, "no %s row", both[k].name);
        ck_assert_msg(e2e_int(row, "calls") == (hooks_on || both[k].cupti_sees ? 2 : 1), "%s: %lld calls",
                      both[k].name, (long long)e2e_int(row, "calls"));
    }
    json_t *htod = named(api, "cuMemcpyHtoD_v2"), *copy = named_kind(json_object_get(p.sum, "copies"), "HtoD");
    ck_assert_ptr_nonnull(htod);
    ck_assert_ptr_nonnull(copy);
    ck_assert_int_eq(e2e_int(copy, "gpu_copies"), 2);
    ck_assert_int_eq(e2e_int(copy, "calls"), hooks_on ? 2 : 1);
    ck_assert_int_eq(e2e_int(htod, "cuda_total_ns"), e2e_int(copy, "gpu_total_ns"));
    json_t *mem = json_object_get(p.sum, "memory");
    ck_assert_int_eq(e2e_int(mem, "allocations"), hooks_on ? 2 : 1);
    ck_assert_int_eq(e2e_int(mem, "peak_bytes"), hooks_on ? 2 * 4096 : 4096);
    ck_assert_int_eq(e2e_int(mem, "end_bytes"), 0);
    e2e_prof_free(&p);
}
END_TEST

/* Device memory through the driver's virtual memory calls and its
 * stream-ordered allocator (tests/corpus/driver_vmm: a 16 MiB range
 * reserved, two 4 MiB pieces made and mapped, then cuMemAllocAsync of 1 MiB
 * and a 1000 x 64 pitched allocation, 1024-byte rows): the physical memory counts as device
 * memory, the address space reserved and mapped apart. */
START_TEST(driver_virtual_memory_counted)
{
    const char *argv[] = {e2e_bpath("tests/corpus/driver_vmm"), NULL};
    e2e_prof p = e2e_profile(1, argv, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(p.r.status == 0 && p.sum && p.txt, "profiled: exit %d\n%s", p.r.status, p.r.err);
    json_t *mem = json_object_get(p.sum, "memory");
    ck_assert_int_eq(e2e_int(mem, "allocations"), 4);
    ck_assert_int_eq(e2e_int(mem, "frees"), 4);
    ck_assert_int_eq(e2e_int(mem, "allocated_bytes"), (8 << 20) + (1 << 20) + 1024 * 64);
    ck_assert_int_eq(e2e_int(mem, "peak_bytes"), 8 << 20);
    ck_assert_int_eq(e2e_int(mem, "end_bytes"), 0);
    json_t *top = json_array_get(json_object_get(mem, "owners"), 0);
    ck_assert_str_eq(e2e_str(top, "api"), "cuMemCreate");
    ck_assert_int_eq(e2e_int(top, "allocations"), 2);
    json_t *res = json_object_get(mem, "reserved"), *map = json_object_get(mem, "mapped");
    ck_assert_int_eq(e2e_int(res, "calls"), 1);
    ck_assert_int_eq(e2e_int(res, "peak_bytes"), 16 << 20);
    ck_assert_int_eq(e2e_int(res, "end_bytes"), 0);
    ck_assert_int_eq(e2e_int(map, "calls"), 2);
    ck_assert_int_eq(e2e_int(map, "frees"), 2);
    ck_assert_int_eq(e2e_int(map, "peak_bytes"), 8 << 20);
    ck_assert_int_eq(e2e_int(map, "end_bytes"), 0);
    ck_assert_ptr_nonnull(strstr(p.txt, "address space: 16.00 MiB reserved at most (cuMemAddressReserve; 0 B at exit), "
                                        "8.00 MiB mapped at most (cuMemMap; 0 B at exit)"));
    e2e_prof_free(&p);
}
END_TEST

/* The dlsym hook's answers (dlsym_prog.c): a hooked name on a CUDA
 * library's own handle gives the hook (a call through it is recorded), the
 * entry-point query and a name not hooked the library's own, RTLD_NEXT and
 * RTLD_DEFAULT answer as for the program, a missing name still sets
 * dlerror; without the profiler every handle lookup is the library's. */
START_TEST(dlsym_lookups)
{
    const char *argv[] = {e2e_bpath("tests/dlsym_prog"), NULL};
    const char *env[] = {e2e_sim_env(), NULL};
    e2e_result plain = e2e_run(argv, env, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(plain.status == 0, "%s", plain.err);
    ck_assert_msg(strstr(plain.out, "handle:cuLaunchKernel -> libcuda.so.1\n") &&
                      strstr(plain.out, "handle:cudaMalloc -> libcudart.so") &&
                      strstr(plain.out, "default:cudaMalloc -> NULL\n"),
                  "%s", plain.out);
    e2e_result_free(&plain);
    const char *pargv[] = {e2e_bpath("tests/dlsym_prog"), NULL};
    e2e_prof p = e2e_profile(1, pargv, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(p.r.status == 0, "%s", p.r.err);
    const char *want[] = {"handle:cuLaunchKernel -> libcuprof.so\n",
                          "handle:cuGetProcAddress_v2 -> libcuda.so.1\n",
                          "handle:cudaMalloc -> libcuprof.so\n",
                          "handle:cudaGetErrorString -> libcudart.so",
                          "default:cudaMalloc -> libcuprof.so\n",
                          "next:dlsym -> libcuprof.so\n",
                          "handle:nosuch -> NULL, dlerror set\n"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_msg(strstr(p.r.out, want[i]), "'%s' not in:\n%s", want[i], p.r.out);
    /* the call through it is recorded */
    json_t *row = named(json_object_get(p.sum, "api"), "cudaMalloc");
    ck_assert_ptr_nonnull(row);
    ck_assert_int_eq(e2e_int(row, "calls"), 1);
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
    tcase_add_test(tc, dlsym_lookups);
    tcase_add_loop_test(tc, cooperative_runtime_launch, 0, 2);
    tcase_add_loop_test(tc, cooperative_driver_launch, 0, 2);
    tcase_add_test(tc, driver_api_program_runs_on_the_sim);
    tcase_add_loop_test(tc, linked_and_entry_point_counted_once, 0, 2);
    tcase_add_test(tc, driver_virtual_memory_counted);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
