/*
 * test_e2e_sim.c - end-to-end tests of the simulated device: the bench
 * programs, built with nvcc against the real CUDA 13 headers, run unmodified
 * with LD_LIBRARY_PATH=build/sim, and we assert on what they print, on their
 * exit status, and on the CUPTI records a small client (cupti_client.c)
 * collects from the sim's libcupti.
 *
 * Exit statuses of the bench programs: 0 ok, 1 check failed, 2 usage,
 * 3 CUDA error.
 */
#include "harness.h"

#include <check.h>
#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RUN_TIMEOUT_S 60

/* ---- running the programs ------------------------------------------------ */

/* Runs bench/<prog> (or a build-relative path when prog starts with "build:")
 * with up to 15 args and the extra env (NULL-terminated, may be NULL). */
static e2e_result run_prog(const char *prog, const char *const args[], const char *const env[])
{
    const char *argv[16];
    char path[4096];
    if (!strncmp(prog, "build:", 6))
        snprintf(path, sizeof path, "%s", e2e_bpath(prog + 6));
    else
        snprintf(path, sizeof path, "%s/bench/%s", e2e_top(), prog);
    argv[0] = path;
    int n = 1;
    for (; args && args[n - 1] && n < 15; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    return e2e_run(argv, env, NULL, RUN_TIMEOUT_S);
}

/* Fails the test unless the run exited `want`, showing what it printed. */
#define ASSERT_STATUS(r, want)                                                                \
    do {                                                                                      \
        if ((r).status != (want))                                                             \
            fprintf(stderr, "-- exit %d, want %d\n-- stdout:\n%s-- stderr:\n%s", (r).status,   \
                    (want), (r).out ? (r).out : "", (r).err ? (r).err : "");                  \
        ck_assert_int_eq((r).status, (want));                                                 \
    } while (0)

/* Runs a program on the sim, adding up to 6 env entries (NULL-terminated,
 * may be NULL). Fails the test at once when the sim is not built. */
static e2e_result run_sim_env(const char *prog, const char *const args[], const char *const extra[])
{
    const char *env[8] = {e2e_sim_env()};
    for (int i = 0; extra && extra[i] && i < 6; i++)
        env[i + 1] = extra[i];
    const char *cudart = e2e_bpath("sim/libcudart.so.13");
    ck_assert_msg(access(cudart, R_OK) == 0, "no simulated device at %s: run make first", cudart);
    return run_prog(prog, args, env);
}

/* run_sim_env with one optional extra env entry. */
static e2e_result run_sim(const char *prog, const char *const args[], const char *extra)
{
    const char *env[] = {extra, NULL};
    return run_sim_env(prog, args, env);
}

/* Value printed after `key` in s (e.g. "time: "), or -1. */
static double num_after(const char *s, const char *key)
{
    const char *p = s ? strstr(s, key) : NULL;
    return p ? strtod(p + strlen(key), NULL) : -1;
}

/* ---- usage and real-library errors --------------------------------------- */

START_TEST(usage_errors_exit_2)
{
    static const char *const bad[][3] = {
        {"--mode", "bogus", NULL}, {"--dtype", "fp64", NULL}, {"--iters", "0", NULL},
        {"--size", NULL, NULL},    {"--frobnicate", NULL, NULL}, {"--size", "12x", NULL},
        {"--check", "maybe", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        e2e_result r = run_prog("matmul_add", bad[i], NULL); /* no CUDA needed */
        ASSERT_STATUS(r, 2);
        ck_assert_ptr_nonnull(strstr(r.err, "matmul_add: "));
        ck_assert_ptr_nonnull(strstr(r.err, "usage: matmul_add"));
        ck_assert_str_eq(r.out, "");
        e2e_result_free(&r);
    }
    const char *lo_bad[][3] = {{"--path", "sideways", NULL}, {"--n", "0", NULL}, {"-x", NULL, NULL}};
    for (size_t i = 0; i < 3; i++) {
        e2e_result r = run_prog("launch_overhead", lo_bad[i], NULL);
        ASSERT_STATUS(r, 2);
        ck_assert_ptr_nonnull(strstr(r.err, "usage: launch_overhead"));
        e2e_result_free(&r);
    }
    const char *help[] = {"--help", NULL};
    e2e_result r = run_prog("matmul_add", help, NULL);
    ASSERT_STATUS(r, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "usage: matmul_add"));
    e2e_result_free(&r);
}
END_TEST

/* Against NVIDIA's own libraries this machine has no driver (error 35); on a
 * GPU machine CUDA_VISIBLE_DEVICES="" makes it "no device" (100). Either way
 * the program must name the failing call and exit 3. */
START_TEST(real_libraries_report_cuda_error)
{
    char libpath[4200];
    const char *cuda = getenv("CUDA_HOME");
    snprintf(libpath, sizeof libpath, "LD_LIBRARY_PATH=%s/lib64", cuda && *cuda ? cuda : "/usr/local/cuda");
    const char *env[] = {libpath, "CUDA_VISIBLE_DEVICES=", NULL};
    const char *args[] = {"--mode", "fused", NULL};
    const char *progs[] = {"matmul_add", "launch_overhead"};
    for (int i = 0; i < 2; i++) {
        e2e_result r = run_prog(progs[i], args + (i ? 2 : 0), env);
        ASSERT_STATUS(r, 3);
        ck_assert_ptr_nonnull(strstr(r.err, "cudaGetDeviceProperties(&prop, 0) failed: cudaError"));
        ck_assert(strstr(r.err, "cudaErrorInsufficientDriver (35)") ||
                  strstr(r.err, "cudaErrorNoDevice (100)"));
        e2e_result_free(&r);
    }
}
END_TEST

/* ---- matmul_add on the sim ------------------------------------------------ */

struct mm_case {
    const char *mode, *dtype;
    const char *m, *n, *k;
    const char *expect; /* start of the check line */
};

static const struct mm_case mm_cases[] = {
    {"addmm", "bf16", "64", "64", "64", "check: passed"},
    {"addmm", "fp16", "64", "64", "64", "check: passed"},
    {"addmm", "fp32", "64", "64", "64", "check: passed"},
    {"fused", "bf16", "64", "64", "64", "check: passed"},
    {"fused", "fp16", "64", "64", "64", "check: passed"},
    {"fused", "fp32", "64", "64", "64", "check: passed"},
    {"addmm", "bf16", "127", "65", "33", "check: passed"},
    {"addmm", "fp16", "128", "96", "80", "check: passed"},
    {"addmm", "fp32", "127", "65", "33", "check: passed"},
    {"fused", "bf16", "127", "65", "33", "check: passed"},
    {"fused", "fp16", "128", "96", "80", "check: passed"},
    {"fused", "fp32", "127", "65", "33", "check: passed"},
    {"eager", "bf16", "64", "64", "64", "check: skipped (bias_add is a user kernel"},
    {"eager", "fp16", "64", "64", "64", "check: skipped (bias_add is a user kernel"},
    {"eager", "fp32", "127", "65", "33", "check: skipped (bias_add is a user kernel"},
};

START_TEST(matmul_add_modes)
{
    const struct mm_case *c = &mm_cases[_i];
    const char *args[] = {"--mode", c->mode, "--dtype", c->dtype, "--m", c->m, "--n", c->n,
                          "--k", c->k, "--iters", "3", "--warmup", "1", NULL};
    e2e_result r = run_sim("matmul_add", args, NULL);
    ASSERT_STATUS(r, 0);
    char head[256];
    snprintf(head, sizeof head, "matmul_add: mode=%s dtype=%s m=%s n=%s k=%s iters=3 warmup=1\n",
             c->mode, c->dtype, c->m, c->n, c->k);
    ck_assert_ptr_nonnull(strstr(r.out, head));
    ck_assert_ptr_nonnull(strstr(r.out, "device: NVIDIA H100 80GB HBM3 (sm_90)\n"));
    ck_assert_msg(strstr(r.out, c->expect), "no '%s' in:\n%s", c->expect, r.out);
    double us = num_after(r.out, "time: ");
    ck_assert_msg(us > 0 && us < 10000, "time per iter %g us", us);
    e2e_result_free(&r);
}
END_TEST

/* The check is real: when the sim does not compute (CUSIM_COMPUTE_MAX=0) or
 * the user kernel's bias add is missing (eager forced with --check on), the
 * result is wrong and the program says so with exit 1. */
START_TEST(check_catches_wrong_results)
{
    const char *fused[] = {"--mode", "fused", "--iters", "1", "--warmup", "0", NULL};
    const char *addmm[] = {"--mode", "addmm", "--dtype", "fp32", "--iters", "1", NULL};
    const char *eager[] = {"--mode", "eager", "--check", "on", "--iters", "1", NULL};
    const char *const *argss[] = {fused, addmm, eager};
    const char *envs[] = {"CUSIM_COMPUTE_MAX=0", "CUSIM_COMPUTE_MAX=0", NULL};
    for (int i = 0; i < 3; i++) {
        e2e_result r = run_sim("matmul_add", argss[i], envs[i]);
        ASSERT_STATUS(r, 1);
        ck_assert_ptr_nonnull(strstr(r.out, "check: FAILED ("));
        e2e_result_free(&r);
    }
}
END_TEST

/* Runs a mode in bf16 at size^3 (3 iters, 1 warm-up); returns the us per
 * iteration after checking the exit status and the check line. */
static double mode_time(const char *mode, const char *size, const char *check_line)
{
    const char *args[] = {"--mode", mode, "--size", size, "--iters", "3", "--warmup", "1", NULL};
    e2e_result r = run_sim("matmul_add", args, NULL);
    ASSERT_STATUS(r, 0);
    ck_assert_msg(strstr(r.out, check_line), "%s %s: no '%s' in:\n%s", mode, size, check_line,
                  r.out);
    double us = num_after(r.out, "time: ");
    e2e_result_free(&r);
    return us;
}

/* Above the compute threshold the GEMM is timing-only (no check), and the
 * time per iteration follows the H100 model: 2*4096^3 flops at ~790 TFLOP/s
 * is ~174 us (plus a 32 MiB copy or bias add in addmm/eager), far above the
 * small sizes, where launches dominate. The sim's own CPU work (computing
 * results, moving bytes) must not show on the device timeline: a 512^3 GEMM
 * takes microseconds on an H100. */
static const char *const timed_modes[] = {"eager", "addmm", "fused"};

START_TEST(time_follows_the_model)
{
    const char *mode = timed_modes[_i];
    const char *small_check = _i == 0 ? "check: skipped (bias_add" : "check: passed";
    double t4096 = mode_time(mode, "4096", "check: skipped (m*n*k above 512^3");
    double t512 = mode_time(mode, "512", small_check);
    double t64 = mode_time(mode, "64", small_check);
    ck_assert_msg(t4096 > 100 && t4096 < 2000, "%s 4096^3 bf16: %g us/iter", mode, t4096);
    ck_assert_msg(t512 > 0 && t512 < t4096, "%s 512: %g us/iter, 4096: %g", mode, t512, t4096);
    ck_assert_msg(t64 > 0 && t64 * 5 < t4096, "%s 64: %g us/iter, 4096: %g", mode, t64, t4096);
}
END_TEST

/* ---- launch_overhead ------------------------------------------------------ */

static void check_launch_line(const char *out, const char *path)
{
    char key[64];
    snprintf(key, sizeof key, "\n%-6s launches=20000 host_ns_per_launch=", path);
    double ns = num_after(out, key);
    /* a real H100 takes 2-4 us per launch; the sim models ~2.5 us of CPU */
    ck_assert_msg(ns > 500 && ns < 100000, "%s: %g ns per launch in:\n%s", path, ns, out);
}

START_TEST(launch_overhead_runs)
{
    const char *args[] = {"--n", "20000", NULL};
    const char *progs[] = {"launch_overhead", "build:tests/launch_overhead_ptsz"};
    for (int i = 0; i < 2; i++) {
        e2e_result r = run_sim(progs[i], args, NULL);
        ASSERT_STATUS(r, 0);
        ck_assert_ptr_nonnull(strstr(r.out, "launch_overhead: device=NVIDIA H100 80GB HBM3 n=20000\n"));
        check_launch_line(r.out, "triple");
        check_launch_line(r.out, "api");
        e2e_result_free(&r);
    }
    const char *api_only[] = {"--n", "20000", "--path", "api", NULL};
    e2e_result r = run_sim("launch_overhead", api_only, NULL);
    ASSERT_STATUS(r, 0);
    ck_assert_ptr_null(strstr(r.out, "triple"));
    check_launch_line(r.out, "api");
    e2e_result_free(&r);
}
END_TEST

/* ---- CUPTI records --------------------------------------------------------- */

/* One line of the client's output (see cupti_client.c). */
typedef struct rec {
    char type[16];      /* RUNTIME, KERNEL, MEMCPY, MEMSET, SYNC, EXTCORR, PUSH, END */
    unsigned cbid;      /* RUNTIME */
    unsigned corr;      /* correlation id */
    uint64_t start, end;
    uint64_t ext;       /* EXTCORR, PUSH */
    uint64_t mono, cupti; /* END */
    long dropped;       /* END */
    char name[512];     /* KERNEL */
} rec;

typedef struct trace {
    rec *v;
    int n;
    char *text; /* the whole file, for messages */
} trace;

static void parse_token(rec *r, const char *tok)
{
    const char *eq = strchr(tok, '=');
    if (!eq)
        return;
    size_t kl = (size_t)(eq - tok);
    const char *v = eq + 1;
    uint64_t u = strtoull(v, NULL, 10);
#define KEY(k) (kl == strlen(k) && !strncmp(tok, k, kl))
    if (KEY("cbid")) r->cbid = (unsigned)u;
    else if (KEY("corr")) r->corr = (unsigned)u;
    else if (KEY("start")) r->start = u;
    else if (KEY("end")) r->end = u;
    else if (KEY("ext")) r->ext = u;
    else if (KEY("mono")) r->mono = u;
    else if (KEY("cupti")) r->cupti = u;
    else if (KEY("dropped")) r->dropped = (long)u;
    else if (KEY("name")) snprintf(r->name, sizeof r->name, "%s", v);
#undef KEY
}

static trace load_trace(const char *path)
{
    trace t = {0};
    t.text = e2e_read_file(path, NULL);
    ck_assert_msg(t.text != NULL, "client wrote no %s", path);
    char *copy = strdup(t.text), *save = NULL;
    t.v = calloc((size_t)e2e_count(t.text, "\n") + 1, sizeof(rec));
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        rec *r = &t.v[t.n++];
        char *s2 = NULL, *tok = strtok_r(line, " ", &s2);
        snprintf(r->type, sizeof r->type, "%s", tok ? tok : "");
        while ((tok = strtok_r(NULL, " ", &s2)))
            parse_token(r, tok);
    }
    free(copy);
    return t;
}

static void free_trace(trace *t)
{
    free(t->v);
    free(t->text);
}

static int count_type(const trace *t, const char *type)
{
    int n = 0;
    for (int i = 0; i < t->n; i++)
        n += !strcmp(t->v[i].type, type);
    return n;
}

/* The RUNTIME record with this correlation id, or NULL. */
static const rec *runtime_by_corr(const trace *t, unsigned corr)
{
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->v[i].type, "RUNTIME") && t->v[i].corr == corr)
            return &t->v[i];
    return NULL;
}

/* The RUNTIME or DRIVER record with this correlation id, or NULL. */
static const rec *api_by_corr(const trace *t, unsigned corr)
{
    const rec *r = runtime_by_corr(t, corr);
    for (int i = 0; !r && i < t->n; i++)
        if (!strcmp(t->v[i].type, "DRIVER") && t->v[i].corr == corr)
            r = &t->v[i];
    return r;
}

static int count_cbid(const trace *t, unsigned cbid)
{
    int n = 0;
    for (int i = 0; i < t->n; i++)
        n += !strcmp(t->v[i].type, "RUNTIME") && t->v[i].cbid == cbid;
    return n;
}

static const rec *find_type(const trace *t, const char *type)
{
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->v[i].type, type))
            return &t->v[i];
    return NULL;
}

/* Runs prog with the CUPTI client injected and preloaded; returns its records. */
/* The program on the sim with the CUPTI client injected; driver = 1 asks the
 * client for DRIVER records too. */
static trace run_with_client_drv(const char *prog, const char *const args[], int driver)
{
    char *dir = e2e_tmpdir();
    char inj[4200], pre[4200], outv[4200], out[4096];
    const char *lib = e2e_bpath("tests/libcupti_client.so");
    snprintf(inj, sizeof inj, "CUDA_INJECTION64_PATH=%s", lib);
    snprintf(pre, sizeof pre, "LD_PRELOAD=%s", lib);
    snprintf(out, sizeof out, "%s/records.txt", dir);
    snprintf(outv, sizeof outv, "CUPTI_CLIENT_OUT=%s", out);
    const char *env[] = {inj, pre, outv, driver ? "CUPTI_CLIENT_DRIVER=1" : NULL, NULL};
    e2e_result r = run_sim_env(prog, args, env);
    ASSERT_STATUS(r, 0);
    ck_assert_msg(!strstr(r.err, "cupti_client:"), "client complained:\n%s", r.err);
    e2e_result_free(&r);
    trace t = load_trace(out);
    e2e_rmtree(dir);
    free(dir);
    const rec *end = find_type(&t, "END");
    ck_assert_msg(end != NULL, "no END line in:\n%s", t.text);
    ck_assert_int_eq(end->dropped, 0);
    return t;
}

static trace run_with_client(const char *prog, const char *const args[])
{
    return run_with_client_drv(prog, args, 1);
}

/* Every timestamp is on the CUPTI clock: before the client's final reading of
 * it, within a minute of it, and nowhere near CLOCK_MONOTONIC. */
static void check_clock(const trace *t)
{
    const rec *end = find_type(t, "END");
    uint64_t gap = end->cupti > end->mono ? end->cupti - end->mono : end->mono - end->cupti;
    ck_assert_msg(gap > UINT64_C(1000000000000), "CUPTI clock %" PRIu64 " vs monotonic %" PRIu64,
                  end->cupti, end->mono);
    for (int i = 0; i < t->n; i++) {
        const rec *r = &t->v[i];
        if (!r->start)
            continue;
        ck_assert_msg(r->start <= r->end && r->end <= end->cupti &&
                          end->cupti - r->start < UINT64_C(60000000000),
                      "%s corr=%u: %" PRIu64 "..%" PRIu64 ", CUPTI now %" PRIu64, r->type,
                      r->corr, r->start, r->end, end->cupti);
    }
}

/* Issue 2's "done when": one fused iteration shows the runtime records, the
 * cuBLASLt kernel with its correlation id, and the external correlation. */
START_TEST(cupti_fused_iteration)
{
    const char *args[] = {"--mode", "fused", "--iters", "1", "--warmup", "0", NULL};
    trace t = run_with_client("matmul_add", args);
    check_clock(&t);

    /* cuBLAS 13's GEMM: runtime cudaGetDevice, driver queries, driver launch */
    ck_assert_int_ge(count_cbid(&t, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020), 2);
    ck_assert_int_eq(count_cbid(&t, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000), 0);
    ck_assert_int_ge(count_type(&t, "MEMCPY"), 3); /* x, w, b up; y down */
    ck_assert_int_ge(count_type(&t, "MEMSET"), 1);
    ck_assert_int_ge(count_type(&t, "SYNC"), 1);

    ck_assert_msg(count_type(&t, "KERNEL") == 1, "kernels:\n%s", t.text);
    const rec *k = find_type(&t, "KERNEL");
    ck_assert_msg(strstr(k->name, "bias") != NULL, "kernel %s has no bias epilogue", k->name);
    const rec *launch = api_by_corr(&t, k->corr);
    ck_assert_msg(launch && !strcmp(launch->type, "DRIVER") &&
                      launch->cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
                  "kernel corr %u is not a cuLaunchKernelEx record", k->corr);
    ck_assert_uint_gt(k->start, launch->start);

    ck_assert_int_eq(count_type(&t, "PUSH"), 1);
    uint64_t pushed = find_type(&t, "PUSH")->ext;
    int ext_kernel = 0, ext_n = 0;
    for (int i = 0; i < t.n; i++) {
        const rec *e = &t.v[i];
        if (strcmp(e->type, "EXTCORR"))
            continue;
        ck_assert_uint_eq(e->ext, pushed);
        ck_assert_msg(api_by_corr(&t, e->corr), "external id maps to unknown corr %u", e->corr);
        ext_kernel += e->corr == k->corr;
        ext_n++;
    }
    ck_assert_int_eq(ext_kernel, 1);
    ck_assert_int_ge(ext_n, 5); /* cuBLAS's queries and the launch */
    free_trace(&t);
}
END_TEST

/* Eager: the GEMM comes from cuBLAS's internal cuLaunchKernelEx (driver
 * API), bias_add from our <<<>>> launch, reported as cudaLaunchKernel as the
 * real CUPTI 13.0 does, with its device name from __cudaRegisterFunction. */
START_TEST(cupti_eager_iteration)
{
    const char *args[] = {"--mode", "eager", "--iters", "1", "--warmup", "0", "--no-check", NULL};
    trace t = run_with_client("matmul_add", args);
    check_clock(&t);
    ck_assert_msg(count_type(&t, "KERNEL") == 2, "kernels:\n%s", t.text);
    ck_assert_int_eq(count_type(&t, "EXTCORR"), 0);
    int gemm = 0, bias = 0;
    for (int i = 0; i < t.n; i++) {
        const rec *k = &t.v[i];
        if (strcmp(k->type, "KERNEL"))
            continue;
        const rec *api = api_by_corr(&t, k->corr);
        ck_assert_msg(api != NULL, "kernel %s: no API record for corr %u", k->name, k->corr);
        ck_assert_uint_gt(k->start, api->start);
        if (strstr(k->name, "bias_add")) {
            bias++;
            ck_assert_str_eq(api->type, "RUNTIME");
            ck_assert_uint_eq(api->cbid, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
        } else if (strstr(k->name, "nvjet_sm90_")) {
            gemm++;
            ck_assert_str_eq(api->type, "DRIVER");
            ck_assert_uint_eq(api->cbid, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx);
        }
    }
    ck_assert_int_eq(gemm, 1);
    ck_assert_int_eq(bias, 1);
    free_trace(&t);
}
END_TEST

/* Without the DRIVER kind, a cuBLAS 13 GEMM kernel carries the correlation
 * id of a call CUPTI made no record of, and no external id maps to it: what
 * a real H100 shows (scripts/cupti_probe.cu), and why cuprof enables it. */
START_TEST(cupti_gemm_without_driver_kind)
{
    const char *args[] = {"--mode", "fused", "--iters", "1", "--warmup", "0", NULL};
    trace t = run_with_client_drv("matmul_add", args, 0);
    ck_assert_int_eq(count_type(&t, "DRIVER"), 0);
    ck_assert_msg(count_type(&t, "KERNEL") == 1, "kernels:\n%s", t.text);
    const rec *k = find_type(&t, "KERNEL");
    ck_assert_ptr_null(api_by_corr(&t, k->corr));
    for (int i = 0; i < t.n; i++)
        if (!strcmp(t.v[i].type, "EXTCORR"))
            ck_assert_uint_ne(t.v[i].corr, k->corr);
    free_trace(&t);
}
END_TEST

/* Both launch paths, default and per-thread stream builds: every launch is a
 * kernel record tied to a launch runtime record of the expected entry point. */
START_TEST(cupti_launch_paths)
{
    const char *args[] = {"--n", "50", NULL};
    const char *progs[] = {"launch_overhead", "build:tests/launch_overhead_ptsz"};
    const unsigned api_cbid[] = {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                                 CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000};
    for (int p = 0; p < 2; p++) {
        trace t = run_with_client(progs[p], args);
        check_clock(&t);
        ck_assert_msg(count_type(&t, "KERNEL") == 102, "%s: %d kernels", progs[p],
                      count_type(&t, "KERNEL"));
        /* both paths: <<<>>> is reported as cudaLaunchKernel[_ptsz] too */
        ck_assert_int_eq(count_cbid(&t, api_cbid[p]), 102);
        for (int i = 0; i < t.n; i++)
            if (!strcmp(t.v[i].type, "KERNEL"))
                ck_assert_msg(runtime_by_corr(&t, t.v[i].corr), "%s: kernel corr %u unmatched",
                              progs[p], t.v[i].corr);
        free_trace(&t);
    }
}
END_TEST

static Suite *e2e_suite(void)
{
    Suite *s = suite_create("e2e_sim");
    TCase *tc = tcase_create("programs");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, usage_errors_exit_2);
    tcase_add_test(tc, real_libraries_report_cuda_error);
    tcase_add_loop_test(tc, matmul_add_modes, 0, (int)(sizeof mm_cases / sizeof mm_cases[0]));
    tcase_add_test(tc, check_catches_wrong_results);
    tcase_add_loop_test(tc, time_follows_the_model, 0, 3);
    tcase_add_test(tc, launch_overhead_runs);
    suite_add_tcase(s, tc);
    TCase *tc2 = tcase_create("cupti");
    tcase_set_timeout(tc2, 120);
    tcase_add_test(tc2, cupti_fused_iteration);
    tcase_add_test(tc2, cupti_eager_iteration);
    tcase_add_test(tc2, cupti_gemm_without_driver_kind);
    tcase_add_test(tc2, cupti_launch_paths);
    suite_add_tcase(s, tc2);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(e2e_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
