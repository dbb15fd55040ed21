/*
 * test_e2e_graphs.c - CUDA graphs end to end on the simulated device:
 * matmul_add --graph captures one eager step (cublasGemmEx, then bias_add)
 * and replays it N times. The profile charges each replayed kernel to the
 * call it was captured from (the GEMM with its shape, the launch with its
 * kernel), N records each; the graph's GPU total is exactly what the
 * cudaGraphLaunch row holds; each replayed kernel in the trace names its
 * graph, node and origin.
 */
#include "harness.h"
#include "pftrace.h"
#include "trace_check.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN_TIMEOUT_S 120
#define REPLAYS 7

START_TEST(replays_charged_to_captured_calls)
{
    char iters[16];
    snprintf(iters, sizeof iters, "%d", REPLAYS);
    const char *argv[] = {e2e_path("bench/matmul_add"), "--graph", "--size", "64", "--dtype", "bf16",
                          "--iters", iters, "--warmup", "1", NULL};
    const char *env[] = {"CUPROF_FORMAT=both", NULL};
    e2e_prof p = e2e_profile(1, argv, env, RUN_TIMEOUT_S);
    ck_assert_msg(p.r.status == 0 && p.sum && p.trace && p.txt, "exit %d\n%s", p.r.status, p.r.err);

    json_t *graphs = json_object_get(p.sum, "graphs");
    ck_assert_uint_eq(json_array_size(graphs), 1);
    json_t *g = json_array_get(graphs, 0);
    ck_assert_int_eq(e2e_int(g, "launches"), REPLAYS);
    ck_assert_int_eq(e2e_int(g, "nodes"), 2);
    ck_assert_int_eq(e2e_int(g, "records"), 2 * REPLAYS);
    json_t *origins = json_object_get(g, "origins"), *o;
    ck_assert_uint_eq(json_array_size(origins), 2);
    size_t i;
    long long sum = 0;
    int gemm = 0, bias = 0;
    json_array_foreach(origins, i, o) {
        const char *label = e2e_str(o, "origin");
        ck_assert(json_is_true(json_object_get(o, "captured")));
        ck_assert_int_eq(e2e_int(o, "records"), REPLAYS);
        sum += e2e_int(o, "gpu_total_ns");
        if (!strcmp(label, "cublasGemmEx 64x64x64 bf16")) {
            gemm = 1;
            ck_assert_msg(strstr(e2e_str(o, "work"), "nvjet"), "the GEMM's kernel: %s", e2e_str(o, "work"));
        }
        if (!strncmp(label, "__cudaLaunchKernel ", 19) && strstr(label, "bias_add"))
            bias = 1;
    }
    ck_assert_msg(gemm && bias, "origins:\n%s", p.txt);
    ck_assert_int_eq(sum, e2e_int(g, "gpu_total_ns"));

    /* the graph holds exactly the GPU time of the cudaGraphLaunch row */
    json_t *row = NULL;
    json_array_foreach(json_object_get(p.sum, "api"), i, o)
        if (!strcmp(e2e_str(o, "name"), "cudaGraphLaunch"))
            row = o;
    ck_assert_ptr_nonnull(row);
    ck_assert_int_eq(e2e_int(row, "calls"), REPLAYS);
    ck_assert_int_eq(e2e_int(row, "cuda_total_ns"), e2e_int(g, "gpu_total_ns"));
    ck_assert_msg(strstr(p.txt, "\nCUDA graphs (") && strstr(p.txt, "cublasGemmEx 64x64x64 bf16 -> nvjet"), "%s",
                  p.txt);

    /* the trace: every replayed kernel names its graph, node and origin */
    int replayed = 0;
    json_t *ev;
    json_array_foreach(json_object_get(p.trace, "traceEvents"), i, ev) {
        json_t *args = json_object_get(ev, "args");
        if (strcmp(e2e_str(ev, "cat"), "kernel") || !json_object_get(args, "graph"))
            continue;
        replayed++;
        ck_assert_int_eq(e2e_int(args, "graph"), e2e_int(g, "id"));
        ck_assert_int_gt(e2e_int(args, "graph node"), 0);
        const char *from = e2e_str(args, "captured from");
        ck_assert_msg(!strcmp(from, "cublasGemmEx 64x64x64 bf16") || strstr(from, "bias_add"), "captured from %s",
                      from);
    }
    ck_assert_int_eq(replayed, 2 * REPLAYS);
    /* an arrow from the graph's launch to every replayed record: the second
     * node of each replay gets the launch's id + 2^32 */
    size_t second = 0;
    json_array_foreach(json_object_get(p.trace, "traceEvents"), i, ev)
        second += !strcmp(e2e_str(ev, "ph"), "f") && e2e_int(ev, "id") >= (1ll << 32);
    ck_assert_uint_eq(second, REPLAYS);
    char bad[2048];
    size_t nbad = trace_check(p.trace, bad, sizeof bad, 5);
    ck_assert_msg(nbad == 0, "the trace breaks %zu viewer rules:\n%s", nbad, bad);

    /* the Perfetto trace's replayed kernels say the same */
    char path[4200];
    snprintf(path, sizeof path, "%s/x.perfetto-trace", p.dir);
    pft pt;
    ck_assert_msg(pft_load(path, &pt) == 0, "%s: %s", path, pt.error);
    size_t pf_gemm = 0;
    for (size_t k = 0; k < pt.nslices; k++)
        pf_gemm += pt.slices[k].args && strstr(pt.slices[k].args, "captured from=cublasGemmEx 64x64x64 bf16\n") != NULL;
    ck_assert_uint_eq(pf_gemm, REPLAYS);
    pft_free(&pt);

    /* a replayed GEMM is still a GEMM for the findings (its origin says so) */
    json_array_foreach(json_object_get(p.sum, "findings"), i, ev) {
        const char *msg = e2e_str(ev, "message"), *light = strstr(msg, "elementwise/reduction-like");
        if (!strcmp(e2e_str(ev, "rule"), "heavyweight-kernels") && light)
            ck_assert_msg(!strstr(light, "nvjet"), "a replayed GEMM counted as light: %s", msg);
    }
    e2e_prof_free(&p);
}
END_TEST

/* A graph built node by node (scripts/graph_explicit.cu: a memset node, a
 * kernel node, a memcpy node; launched 5 times): each node's work is charged
 * to the call that added it, the kernel node's with its kernel, as a captured
 * launch's is (issue 33: they were the kernel's own name, not captured). */
START_TEST(explicit_nodes_charged_to_the_adding_calls)
{
    const char *argv[] = {e2e_bpath("tests/graph_explicit"), "5", NULL};
    e2e_prof p = e2e_profile(1, argv, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(p.r.status == 0 && p.sum, "exit %d\n%s", p.r.status, p.r.err);
    json_t *g = json_array_get(json_object_get(p.sum, "graphs"), 0);
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(e2e_int(g, "launches"), 5);
    ck_assert_int_eq(e2e_int(g, "nodes"), 3);
    const char *want[] = {"cudaGraphAddKernelNode add_one(int*, int)", "cudaGraphAddMemsetNode",
                          "cudaGraphAddMemcpyNode1D"};
    for (int w = 0; w < 3; w++) {
        json_t *o, *found = NULL;
        size_t i;
        json_array_foreach(json_object_get(g, "origins"), i, o)
            if (!strcmp(e2e_str(o, "origin"), want[w]))
                found = o;
        ck_assert_msg(found != NULL, "no origin %s:\n%s", want[w], p.txt);
        ck_assert(json_is_true(json_object_get(found, "captured")));
        ck_assert_int_eq(e2e_int(found, "records"), 5);
    }
    e2e_prof_free(&p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("e2e_graphs");
    TCase *tc = tcase_create("graphs");
    tcase_set_timeout(tc, 2 * RUN_TIMEOUT_S);
    tcase_add_test(tc, replays_charged_to_captured_calls);
    tcase_add_test(tc, explicit_nodes_charged_to_the_adding_calls);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
