/*
 * test_e2e_nccl.c - NCCL end to end on the simulated NCCL (issue 30):
 * tests/corpus/nccl_ring (two ranks in one process, ncclCommInitAll; per
 * step a grouped AllReduce of 4 MiB per rank, a Broadcast of 64 KiB, an
 * AllGather of 256 KiB per rank, and SMALL AllReduce of 16 KiB) under
 * prof.sh, with the sim's bus at 50 GB/s and no latency: the calls are
 * rows of category nccl with their arguments in the trace, the group's
 * kernels are charged to ncclGroupEnd, the Collectives table has each
 * operation's size as nccl-tests counts it and a bus bandwidth near the
 * modelled one, and the findings see the exposed communication and the
 * small, unbucketed collectives.
 *
 * And a job of two ranks with no MPI, as torchrun starts one
 * (tests/e2e/nccl_job: RANK and WORLD_SIZE, one process each, the
 * ncclUniqueId through a file), rank 1 late by 20 ms at every AllReduce:
 * the simulated NCCL makes the ranks meet, so rank 0's AllReduce kernels
 * stretch to wait for rank 1, and prof.sh merge names rank 1 the
 * straggler from the NCCL calls alone, without calling rank 0's waiting
 * "more GPU work".
 *
 * And bench/ddp_step, 4 ranks under scripts/launch.sh (torchrun's
 * variables): each rank's Collectives table has the calls and bytes the
 * program says it passed, bus bandwidth is nccl-tests' formula on the
 * recorded times, the exposed communication per step is clearly lower
 * with the buckets' all-reduces overlapped than with --no-overlap, merge
 * names --slow 2 the straggler, the job's status and output are the same
 * without cuprof, and a rank that fails in ncclCommInitRank gets its files.
 */
#include "harness.h"
#include "pftrace.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RUN_TIMEOUT_S 120

static json_t *row(json_t *rows, const char *op, long long size)
{
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r)
        if (!strcmp(json_string_value(json_object_get(r, "op")), op) &&
            json_integer_value(json_object_get(r, "size_bytes")) == size)
            return r;
    return NULL;
}

static json_t *api_row(json_t *sum, const char *name)
{
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(sum, "api"), i, r)
        if (!strcmp(json_string_value(json_object_get(r, "name")), name))
            return r;
    return NULL;
}

static int has_finding(json_t *sum, const char *rule)
{
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(sum, "findings"), i, f)
        if (!strcmp(json_string_value(json_object_get(f, "rule")), rule))
            return 1;
    return 0;
}

START_TEST(collectives_table_bus_bandwidth_and_findings)
{
    const char *argv[] = {e2e_bpath("tests/corpus/nccl_ring"), "4", "8", NULL};
    const char *env[] = {"CUSIM_NCCL_BUS_GBPS=50", "CUSIM_NCCL_LATENCY_US=0.001", NULL};
    e2e_prof p = e2e_profile(1, argv, env, RUN_TIMEOUT_S);
    ck_assert_msg(p.r.status == 0 && p.sum && p.trace && p.txt, "exit %d\n%s", p.r.status, p.r.err);
    /* the calls: rows of category nccl */
    json_t *ar = api_row(p.sum, "ncclAllReduce");
    ck_assert_ptr_nonnull(ar);
    ck_assert_int_eq(e2e_int(ar, "calls"), 4 * 2 + 4 * 8 * 2);
    ck_assert_str_eq(e2e_str(ar, "category"), "nccl");
    json_t *ge = api_row(p.sum, "ncclGroupEnd");
    ck_assert_ptr_nonnull(ge);
    ck_assert_int_gt(e2e_int(ge, "cuda_total_ns"), 0);   /* the group's kernels */
    /* the table */
    json_t *c = json_object_get(p.sum, "collectives");
    ck_assert_ptr_nonnull(c);
    json_t *rows = json_object_get(c, "rows");
    json_t *big = row(rows, "AllReduce", 4 << 20), *ag = row(rows, "AllGather", 512 << 10);
    json_t *bc = row(rows, "Broadcast", 64 << 10), *sm = row(rows, "AllReduce", 16 << 10);
    ck_assert_msg(big && ag && bc && sm, "rows: %s", json_dumps(rows, 0));
    ck_assert_int_eq(e2e_int(big, "calls"), 8);
    ck_assert_int_eq(e2e_int(big, "nranks"), 2);
    ck_assert_str_eq(e2e_str(big, "dtype"), "f32");
    ck_assert_int_eq(e2e_int(sm, "calls"), 64);
    /* NCCL's choice, through its profiler plugin (cuprof's, which prof.sh's
     * library names in NCCL_PROFILER_PLUGIN): the sim's tuner picks Simple
     * for 4 MiB and LL under 64 KiB; grouped calls take their group's */
    ck_assert_str_eq(e2e_str(big, "algo"), "RING/Simple ch32");
    ck_assert_str_eq(e2e_str(sm, "algo"), "RING/LL ch32");
    /* bus bandwidth as nccl-tests computes it: the modelled 50 GB/s (the
     * sim's few percent of jitter) for AllReduce and AllGather alike */
    double bw[] = {json_real_value(json_object_get(big, "busbw_gbps")),
                   json_real_value(json_object_get(ag, "busbw_gbps")),
                   json_real_value(json_object_get(bc, "busbw_gbps"))};
    for (int i = 0; i < 3; i++)
        ck_assert_msg(bw[i] > 40 && bw[i] < 60, "busbw %d: %.2f GB/s", i, bw[i]);
    /* AllGather's algorithm bandwidth is twice its bus bandwidth on 2 ranks */
    double alg = json_real_value(json_object_get(ag, "algbw_gbps"));
    ck_assert_msg(fabs(alg - 2 * bw[1]) < 0.01 * alg, "algbw %.2f busbw %.2f", alg, bw[1]);
    /* nothing computes: all of it is exposed */
    ck_assert_int_gt(e2e_int(c, "nccl_kernel_ns"), 0);
    ck_assert_int_eq(e2e_int(c, "exposed_ns"), e2e_int(c, "nccl_kernel_ns"));
    ck_assert(has_finding(p.sum, "exposed-communication"));
    ck_assert(has_finding(p.sum, "latency-bound-collectives"));
    ck_assert_ptr_nonnull(strstr(p.txt, "\nCollectives (NCCL"));
    /* the trace: each call with its arguments, both ranks on one communicator */
    size_t i;
    json_t *e;
    int ranks = 0;
    const char *comm = NULL;
    json_array_foreach(json_object_get(p.trace, "traceEvents"), i, e) {
        const char *n = json_string_value(json_object_get(e, "name"));
        if (!n || strcmp(n, "ncclAllReduce"))
            continue;
        ck_assert_str_eq(e2e_str(e, "cat"), "nccl");
        json_t *a = json_object_get(e, "args");
        if (e2e_int(a, "count") != 1 << 20)
            continue;
        ck_assert_str_eq(e2e_str(a, "dtype"), "f32");
        ck_assert_str_eq(e2e_str(a, "op"), "sum");
        ck_assert_int_eq(e2e_int(a, "nranks"), 2);
        ranks |= 1 << e2e_int(a, "rank");
        if (!comm)
            comm = e2e_str(a, "comm");
        ck_assert_str_eq(e2e_str(a, "comm"), comm);
    }
    ck_assert_int_eq(ranks, 3);
    ck_assert_str_ne(comm, "0x0");
    /* a row per communicator in the GPU's process: each collective over its
     * device work, numbered on its communicator (both ranks' calls, in one
     * process here: 2 x (4 + 4 + 4 + 32) calls, each rank's from 0) */
    int comm_rows = 0, on_gpu = 0;
    long long seqs = 0;
    json_array_foreach(json_object_get(p.trace, "traceEvents"), i, e) {
        const char *n = json_string_value(json_object_get(e, "name"));
        if (n && !strcmp(n, "thread_name") &&
            !strncmp(e2e_str(json_object_get(e, "args"), "name"), "NCCL comm 0x", 12))
            comm_rows++;
        const char *cat = json_string_value(json_object_get(e, "cat"));
        if (cat && !strcmp(cat, "nccl") && e2e_int(e, "pid") >= (1ll << 30)) {
            on_gpu++;
            seqs += e2e_int(json_object_get(e, "args"), "seq");
        }
    }
    /* a row per rank's communicator (and overlap rows: a call in a group shows the
     * group's span, which the next group's may overlap by a kernel's jitter) */
    ck_assert_int_ge(comm_rows, 2);
    ck_assert_int_eq(on_gpu, 2 * 44);
    ck_assert_int_eq(seqs, 2 * (43 * 44 / 2));   /* 0 + 1 + ... + 43 per rank */
    e2e_prof_free(&p);
}
END_TEST

/* The Perfetto trace has the same rows per communicator: under the GPU's
 * track, each collective over its device work with its sequence number,
 * and pftrace.h's rules hold (slices end in order, time forward). */
START_TEST(perfetto_comm_rows)
{
    char *dir = e2e_tmpdir();
    const char *argv[] = {e2e_path("prof.sh"), "-o", dir, "-n", "x", "--format", "perfetto",
                          e2e_bpath("tests/corpus/nccl_ring"), NULL};
    const char *env[] = {e2e_sim_env(), NULL};
    e2e_result r = e2e_run(argv, env, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(r.status == 0, "exit %d\n%s", r.status, r.err);
    char path[4400];
    snprintf(path, sizeof path, "%s/x.perfetto-trace", dir);
    pft t;
    ck_assert_msg(pft_load(path, &t) == 0, "%s", t.error);
    size_t rows = 0, slices = 0;
    for (size_t i = 0; i < t.ntracks; i++)
        if (t.tracks[i].name && !strncmp(t.tracks[i].name, "NCCL comm 0x", 12)) {
            rows++;
            for (size_t k = 0; k < t.nslices; k++)
                if (t.slices[k].track == t.tracks[i].uuid) {
                    slices++;
                    ck_assert_str_eq(t.slices[k].cat, "nccl");
                    ck_assert_ptr_nonnull(strstr(t.slices[k].args, "seq="));
                }
        }
    ck_assert_uint_ge(rows, 2);
    ck_assert_uint_eq(slices, 2 * 9);   /* every collective of both ranks (3 steps of 3) */
    pft_free(&t);
    e2e_result_free(&r);
    e2e_rmtree(dir);
    free(dir);
}
END_TEST

/* NCCL's own NVTX ranges (domain "NCCL", one per API call, with its
 * payload) are shown once: folded into the hooked call they name, whose
 * trace event carries the payload's text (args.nvtx in both traces), and
 * not as ranges (no row in summary.json's ranges, no nvtx slice). The
 * payload's message size is the call's count times its datatype's size. */
START_TEST(nccl_nvtx_ranges_fold_into_calls)
{
    char *dir = e2e_tmpdir();
    /* 4 steps, each 8 small all-reduces besides the big one: the payloads
     * change size call after call (the decoder's per-thread cache) */
    const char *argv[] = {e2e_path("prof.sh"), "-o", dir, "-n", "x", "--format", "both",
                          e2e_bpath("tests/corpus/nccl_ring"), "4", "8", NULL};
    const char *env[] = {e2e_sim_env(), NULL};
    e2e_result r = e2e_run(argv, env, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(r.status == 0, "exit %d\n%s", r.status, r.err);
    char path[4400];
    snprintf(path, sizeof path, "%s/x.summary.json", dir);
    json_t *sum = e2e_load_json(path);
    snprintf(path, sizeof path, "%s/x.trace.json", dir);
    json_t *trace = e2e_load_json(path);
    ck_assert_ptr_nonnull(sum);
    ck_assert_ptr_nonnull(trace);
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(sum, "ranges"), i, e)
        ck_assert_msg(strcmp(e2e_str(e, "domain"), "NCCL") != 0, "NCCL range row %s", e2e_str(e, "name"));
    int calls = 0, nvtx_slices = 0;
    json_array_foreach(json_object_get(trace, "traceEvents"), i, e) {
        const char *cat = json_string_value(json_object_get(e, "cat"));
        const char *name = json_string_value(json_object_get(e, "name"));
        json_t *args = json_object_get(e, "args");
        if (cat && !strcmp(cat, "nvtx"))
            nvtx_slices++;
        if (!cat || strcmp(cat, "nccl") || !name || strcmp(name, "ncclAllReduce"))
            continue;
        const char *pl = json_string_value(json_object_get(args, "nvtx"));
        ck_assert_msg(pl != NULL, "an ncclAllReduce with no nvtx payload");
        char want[128];
        snprintf(want, sizeof want, "Message size [bytes]: %lld, Reduction operation: Sum",
                 (long long)json_integer_value(json_object_get(args, "count")) * 4);   /* f32 */
        ck_assert_msg(strstr(pl, want) && !strncmp(pl, "NCCL communicator ID: ", 22), "%s", pl);
        calls++;
    }
    ck_assert_int_eq(calls, 4 * 2 + 4 * 8 * 2);   /* 4 steps of 1 + 8, 2 ranks */
    ck_assert_int_eq(nvtx_slices, 0);
    snprintf(path, sizeof path, "%s/x.perfetto-trace", dir);
    pft t;
    ck_assert_msg(pft_load(path, &t) == 0, "%s", t.error);
    int pf_calls = 0;
    for (size_t k = 0; k < t.nslices; k++) {
        ck_assert_msg(!t.slices[k].cat || strcmp(t.slices[k].cat, "nvtx"), "nvtx slice %s", t.slices[k].name);
        if (t.slices[k].name && !strcmp(t.slices[k].name, "ncclAllReduce") && t.slices[k].cat &&
            !strcmp(t.slices[k].cat, "nccl")) {
            ck_assert_ptr_nonnull(strstr(t.slices[k].args, "nvtx=NCCL communicator ID: "));
            pf_calls++;
        }
    }
    ck_assert_int_eq(pf_calls, 4 * 2 + 4 * 8 * 2);
    pft_free(&t);
    json_decref(sum);
    json_decref(trace);
    e2e_result_free(&r);
    e2e_rmtree(dir);
    free(dir);
}
END_TEST

/* A program that names its own NCCL profiler plugin keeps it: one cuprof:
 * line says so, and the collectives have no algorithm from us. */
START_TEST(programs_own_profiler_plugin_kept)
{
    const char *argv[] = {e2e_bpath("tests/corpus/nccl_ring"), NULL};
    const char *env[] = {"NCCL_PROFILER_PLUGIN=/nonexistent/libnccl-profiler-mine.so", NULL};
    e2e_prof p = e2e_profile(1, argv, env, RUN_TIMEOUT_S);
    ck_assert_msg(p.r.status == 0 && p.sum, "exit %d\n%s", p.r.status, p.r.err);
    ck_assert_int_eq(e2e_count(p.r.err, "NCCL_PROFILER_PLUGIN is already set (/nonexistent/libnccl-profiler-mine.so)"), 1);
    json_t *r = row(json_object_get(json_object_get(p.sum, "collectives"), "rows"), "AllReduce", 4 << 20);
    ck_assert_ptr_nonnull(r);
    ck_assert_str_eq(e2e_str(r, "algo"), "");
    e2e_prof_free(&p);
}
END_TEST

static json_t *coll_row(const char *path, const char *op)
{
    json_t *sum = e2e_load_json(path);
    ck_assert_msg(sum != NULL, "no %s", path);
    json_t *r = row(json_object_get(json_object_get(sum, "collectives"), "rows"), op, 4 << 20);
    ck_assert_msg(r != NULL, "%s: no %s row", path, op);
    json_incref(r);
    json_decref(sum);
    return r;
}

START_TEST(job_without_mpi_straggler)
{
    char *dir = e2e_tmpdir();
    char script[8192];
    snprintf(script, sizeof script,
             "st=0; for r in 0 1; do RANK=$r WORLD_SIZE=2 LOCAL_RANK=$r LOCAL_WORLD_SIZE=2 '%s' -q -o '%s' "
             "-n job '%s' '%s' 6 slow 1 20 & pids=\"$pids $!\"; done; for p in $pids; do wait $p || st=1; "
             "done; exit $st",
             e2e_path("prof.sh"), dir, e2e_bpath("tests/nccl_job"), dir);
    const char *argv[] = {"/bin/bash", "-c", script, NULL};
    const char *env[] = {e2e_sim_env(), "CUSIM_NCCL_BUS_GBPS=50", NULL};
    e2e_result r = e2e_run(argv, env, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(r.status == 0, "exit %d\n%s\n%s", r.status, r.out, r.err);
    ck_assert(strstr(r.out, "nccl_job: rank 0 of 2, 6 steps") && strstr(r.out, "nccl_job: rank 1 of 2, 6 steps"));
    e2e_result_free(&r);
    /* rank 0's kernels wait for rank 1 (20 ms late each time); rank 1's do not */
    char p0[4200], p1[4200];
    snprintf(p0, sizeof p0, "%s/job.rank0.summary.json", dir);
    snprintf(p1, sizeof p1, "%s/job.rank1.summary.json", dir);
    json_t *r0 = coll_row(p0, "AllReduce"), *r1 = coll_row(p1, "AllReduce");
    ck_assert_int_eq(e2e_int(r0, "calls"), 6);
    ck_assert_int_eq(e2e_int(r0, "nranks"), 2);
    ck_assert_int_gt(e2e_int(r0, "gpu_median_ns"), 15000000);
    ck_assert_int_lt(e2e_int(r1, "gpu_median_ns"), 5000000);
    ck_assert_str_eq(e2e_str(r0, "algo"), "RING/Simple ch32");   /* not grouped: the call's own */
    json_decref(r0);
    json_decref(r1);
    /* merge: the straggler from the NCCL calls */
    const char *margv[] = {e2e_path("prof.sh"), "merge", dir, NULL};
    r = e2e_run(margv, NULL, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(r.status == 0, "merge exit %d\n%s", r.status, r.err);
    e2e_result_free(&r);
    char mp[4200];
    snprintf(mp, sizeof mp, "%s/job.merged.summary.json", dir);
    json_t *m = e2e_load_json(mp);
    ck_assert_ptr_nonnull(m);
    json_t *straggler = NULL, *f;
    size_t i;
    json_array_foreach(json_object_get(m, "findings"), i, f) {
        ck_assert_str_ne(e2e_str(f, "rule"), "load_imbalance");   /* waiting is not work */
        if (!strcmp(e2e_str(f, "rule"), "straggler"))
            straggler = f;
    }
    ck_assert_msg(straggler != NULL, "no straggler: %s", json_dumps(json_object_get(m, "findings"), 0));
    json_t *nums = json_object_get(straggler, "numbers");
    ck_assert_int_eq(e2e_int(nums, "rank"), 1);
    /* matched by (communicator, sequence number) */
    ck_assert_msg(!strncmp(e2e_str(nums, "collective"), "ncclAllReduce on comm 0x", 24), "%s",
                  e2e_str(nums, "collective"));
    ck_assert_int_eq(e2e_int(nums, "last_arrivals"), 6);
    ck_assert_int_gt(e2e_int(nums, "median_late_ns"), 15000000);
    json_decref(m);
    e2e_rmtree(dir);
    free(dir);
}
END_TEST

/* scripts/launch.sh --nproc 4 [prof.sh -o DIR -n NAME --] bench/ddp_step ARGS
 * (profiled when name is not NULL), with the sim's bus at 300 GB/s. */
static e2e_result ddp(const char *dir, const char *name, const char *args)
{
    static int job;   /* a port (store file) of its own per job */
    char script[8192], prof[4400] = "";
    if (name)
        snprintf(prof, sizeof prof, "'%s' -q -o '%s' -n %s --", e2e_path("prof.sh"), dir, name);
    snprintf(script, sizeof script, "DDP_STORE='%s' '%s' --nproc 4 --master-port %d -- %s '%s' --steps 4 %s",
             dir, e2e_path("scripts/launch.sh"), 29700 + (int)(getpid() % 100) * 10 + job++, prof,
             e2e_path("bench/ddp_step"), args);
    const char *argv[] = {"/bin/bash", "-c", script, NULL};
    const char *env[] = {e2e_sim_env(), "CUSIM_NCCL_BUS_GBPS=300", "CUSIM_NCCL_WAIT_S=2", NULL};
    return e2e_run(argv, env, NULL, RUN_TIMEOUT_S);
}

/* The lines of s, sorted (the ranks print in any order), as one string. */
static char *sorted_lines(const char *s)
{
    char *copy = strdup(s ? s : ""), *lines[64];
    size_t n = 0;
    for (char *save, *l = strtok_r(copy, "\n", &save); l && n < 64; l = strtok_r(NULL, "\n", &save))
        if (strncmp(l, "cuprof: ", 8) != 0)
            lines[n++] = l;
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(lines[j - 1], lines[j]) > 0; j--) {
            char *t = lines[j];
            lines[j] = lines[j - 1];
            lines[j - 1] = t;
        }
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(lines[i]) + 1;
    char *out = calloc(len, 1);
    for (size_t i = 0; i < n; i++) {
        strcat(out, lines[i]);
        strcat(out, "\n");
    }
    free(copy);
    return out;
}

/* The median over the 4 ranks of NAME.rankR's per-step exposed share, after
 * checking each rank's table against what the program passed. */
static double ddp_ranks(const char *dir, const char *name)
{
    double share[4];
    for (int r = 0; r < 4; r++) {
        char p[4400];
        snprintf(p, sizeof p, "%s/%s.rank%d.summary.json", dir, name, r);
        json_t *sum = e2e_load_json(p);
        ck_assert_msg(sum != NULL, "no %s", p);
        json_t *c = json_object_get(sum, "collectives"), *rows = json_object_get(c, "rows");
        json_t *big = row(rows, "AllReduce", 16 << 20), *one = row(rows, "AllReduce", 4);
        ck_assert_msg(big && one, "%s: rows %s", p, json_dumps(rows, 0));
        /* the program: 16 all-reduces of 16 MiB (4 steps x 4 buckets) and one of a float */
        ck_assert_int_eq(e2e_int(big, "calls"), 16);
        ck_assert_int_eq(e2e_int(one, "calls"), 1);
        ck_assert_int_eq(e2e_int(big, "nranks"), 4);
        /* busbw: nccl-tests' formula on the recorded median time */
        double alg = (double)(16 << 20) / (double)e2e_int(big, "gpu_median_ns");
        double got_alg = json_number_value(json_object_get(big, "algbw_gbps"));
        double got_bus = json_number_value(json_object_get(big, "busbw_gbps"));
        ck_assert_msg(fabs(got_alg - alg) < 0.01 * alg && fabs(got_bus - alg * 2 * 3 / 4) < 0.01 * alg,
                      "%s: algbw %.3f busbw %.3f, want %.3f and %.3f", p, got_alg, got_bus, alg, alg * 1.5);
        share[r] = json_real_value(json_object_get(c, "step_exposed_share_median"));
        json_decref(sum);
    }
    for (int i = 1; i < 4; i++)
        for (int j = i; j > 0 && share[j - 1] > share[j]; j--) {
            double t = share[j];
            share[j] = share[j - 1];
            share[j - 1] = t;
        }
    return (share[1] + share[2]) / 2;
}

START_TEST(ddp_step_four_ranks)
{
    char *dir = e2e_tmpdir();
    e2e_result bare = ddp(dir, NULL, "--batch 4096");
    e2e_result ov = ddp(dir, "ov", "--batch 4096");
    ck_assert_msg(bare.status == 0 && ov.status == 0, "status %d / %d\n%s", bare.status, ov.status, ov.err);
    char *a = sorted_lines(bare.out), *b = sorted_lines(ov.out);
    ck_assert_str_eq(b, a);   /* the job's output, as without cuprof */
    ck_assert_ptr_nonnull(strstr(a, "ncclAllReduce calls 17 bytes 268435460"));
    free(a);
    free(b);
    a = sorted_lines(bare.err);
    b = sorted_lines(ov.err);
    ck_assert_str_eq(b, a);
    free(a);
    free(b);
    e2e_result no = ddp(dir, "no", "--batch 4096 --no-overlap");
    ck_assert_int_eq(no.status, 0);
    double with = ddp_ranks(dir, "ov"), without = ddp_ranks(dir, "no");
    fprintf(stderr, "ddp_step, 4 ranks: exposed communication a median %.1f%% of a step overlapped, "
                    "%.1f%% not\n", 100 * with, 100 * without);
    ck_assert_msg(with < 0.5 * without, "overlapped %.3f, not %.3f", with, without);
    /* a slow rank, named by merge from the NCCL calls alone */
    e2e_result sl = ddp(dir, "slow", "--slow 2");
    ck_assert_int_eq(sl.status, 0);
    char mdir[4400];
    snprintf(mdir, sizeof mdir, "%s", dir);
    const char *margv[] = {e2e_path("prof.sh"), "merge", mdir, "-n", "slow", NULL};
    e2e_result m = e2e_run(margv, NULL, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(m.status == 0, "merge: %d\n%s", m.status, m.err);
    char mp[4400];
    snprintf(mp, sizeof mp, "%s/slow.merged.summary.json", dir);
    json_t *ms = e2e_load_json(mp);
    ck_assert_ptr_nonnull(ms);
    json_t *f, *st = NULL;
    size_t i;
    json_array_foreach(json_object_get(ms, "findings"), i, f)
        if (!strcmp(e2e_str(f, "rule"), "straggler"))
            st = f;
    ck_assert_msg(st != NULL, "no straggler: %s", json_dumps(json_object_get(ms, "findings"), 0));
    ck_assert_int_eq(e2e_int(json_object_get(st, "numbers"), "rank"), 2);
    json_decref(ms);
    /* the same job as if ranks 2 and 3 ran on another host whose realtime
     * clock is 3 s ahead: the NCCL kernels' ends (the ranks' kernels of a
     * collective end together) take the 3 s away, with no MPI call */
    char *two = e2e_tmpdir();
    ck_assert_int_eq(e2e_as_two_hosts(dir, "slow", 4, two), 0);
    const char *m2argv[] = {e2e_path("prof.sh"), "merge", two, "-n", "slow", NULL};
    e2e_result m2 = e2e_run(m2argv, NULL, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(m2.status == 0, "merge: %d\n%s", m2.status, m2.err);
    snprintf(mp, sizeof mp, "%s/slow.merged.summary.json", two);
    ms = e2e_load_json(mp);
    ck_assert_ptr_nonnull(ms);
    json_t *al = json_object_get(ms, "alignment"), *rk;
    ck_assert_msg(strstr(e2e_str(al, "method"), "refined by the ends of the collectives"), "%s",
                  e2e_str(al, "method"));
    json_array_foreach(json_object_get(ms, "ranks"), i, rk) {
        long long off = (long long)json_integer_value(json_object_get(rk, "clock_offset_ns"));
        ck_assert_msg(llabs(off) < 2000000, "rank %zu: offset %lld ns (one clock really)", i, off);
    }
    st = NULL;
    json_array_foreach(json_object_get(ms, "findings"), i, f)
        if (!strcmp(e2e_str(f, "rule"), "straggler"))
            st = f;
    ck_assert_msg(st && e2e_int(json_object_get(st, "numbers"), "rank") == 2, "two hosts: no straggler 2");
    json_decref(ms);
    e2e_result_free(&m2);
    e2e_rmtree(two);
    free(two);
    /* a rank that fails in ncclCommInitRank: its status, and its files */
    e2e_result fl = ddp(dir, "fail", "--fail-init 1");
    ck_assert_msg(fl.status == 1, "status %d\n%s", fl.status, fl.err);
    ck_assert_ptr_nonnull(strstr(fl.err, "ddp_step: ncclCommInitRank"));
    for (int r = 0; r < 4; r++) {
        char p[4400];
        snprintf(p, sizeof p, "%s/fail.rank%d.summary.json", dir, r);
        ck_assert_msg(access(p, F_OK) == 0, "no %s", p);
    }
    e2e_result_free(&bare);
    e2e_result_free(&ov);
    e2e_result_free(&no);
    e2e_result_free(&sl);
    e2e_result_free(&m);
    e2e_result_free(&fl);
    e2e_rmtree(dir);
    free(dir);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("e2e_nccl");
    TCase *t = tcase_create("nccl");
    tcase_set_timeout(t, RUN_TIMEOUT_S);
    tcase_add_test(t, collectives_table_bus_bandwidth_and_findings);
    tcase_add_test(t, job_without_mpi_straggler);
    tcase_add_test(t, programs_own_profiler_plugin_kept);
    tcase_add_test(t, perfetto_comm_rows);
    tcase_add_test(t, nccl_nvtx_ranges_fold_into_calls);
    tcase_add_test(t, ddp_step_four_ranks);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
