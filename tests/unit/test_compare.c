/*
 * test_compare.c - the summary reader and cuprof-compare.
 *
 * Each test writes its own summary.json fixtures (the three matmul_add modes:
 * eager = a GEMM kernel + a bias_add kernel per iteration, fused = one GEMM
 * kernel with the bias epilogue, addmm = a DtoD copy + a GEMM), runs
 * build/cuprof-compare on them and checks what it prints; the rejection
 * tests check that every kind of bad input gives exit status 1, exactly one
 * "cuprof:" line on stderr and nothing on stdout.
 */
#include <check.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/compare/compare.h"
#include "harness.h"
#include "formats/compare/summary_reader.h"

#define GEMM "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_execute_kernel__5x_cublas"
#define FUSED "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_bias_bf16_execute_kernel__5x_cublas"
#define BIAS "void bias_add<__nv_bfloat16>(__nv_bfloat16*, __nv_bfloat16 const*, int, int)"

static char *dir;   /* per-test scratch directory */

static void setup(void)
{
    dir = e2e_tmpdir();
    ck_assert_ptr_nonnull(dir);
}

static void teardown(void)
{
    e2e_rmtree(dir);
    free(dir);
}

/* ---- fixtures ---- */

static json_t *kernel(const char *name, json_int_t launches, json_int_t total, json_int_t med)
{
    return json_pack("{s:s, s:I, s:I, s:I, s:I, s:I}", "name", name, "launches", launches,
                     "gpu_total_ns", total, "min_ns", med, "median_ns", med, "max_ns", med);
}

static json_t *api(const char *name, json_int_t calls, json_int_t total, json_int_t self)
{
    return json_pack("{s:s, s:I, s:i, s:I, s:I, s:I, s:I, s:I, s:i, s:i}", "name", name,
                     "calls", calls, "errors", 0, "cpu_total_ns", total, "cpu_self_ns", self,
                     "min_ns", self / calls, "median_ns", self / calls, "max_ns", self / calls,
                     "cuda_self_ns", 0, "cuda_total_ns", 0);
}

static json_t *gemm_call(const char *fn, const char *epilogue)
{
    return json_pack("[{s:s, s:i, s:[{s:i, s:i, s:i, s:i, s:s, s:s, s:i}]}]", "name", fn,
                     "calls", 10, "shapes", "m", 64, "n", 64, "k", 64, "batch", 1, "dtype",
                     "bf16", "epilogue", epilogue, "calls", 10);
}

/* A matmul_add run in the given mode, 10 iterations, with a GPU timeline. */
static json_t *run_doc(const char *mode)
{
    json_t *kernels, *copies = json_pack("[{s:s, s:i, s:i, s:i}]", "kind", "HtoD", "calls", 2,
                                         "bytes", 16384, "gpu_total_ns", 3000);
    json_t *blas;
    json_int_t wall, self;
    if (strcmp(mode, "eager") == 0) {
        kernels = json_pack("[o, o]", kernel(GEMM, 10, 50000, 5000),
                            kernel(BIAS, 10, 20000, 2000));
        blas = gemm_call("cublasLtMatmul", "DEFAULT");
        wall = 2000000, self = 60000;
    } else if (strcmp(mode, "fused") == 0) {
        kernels = json_pack("[o]", kernel(FUSED, 10, 52000, 5200));
        blas = gemm_call("cublasLtMatmul", "BIAS");
        wall = 1500000, self = 30000;
    } else {
        kernels = json_pack("[o]", kernel(GEMM, 10, 50000, 5000));
        json_array_append_new(copies, json_pack("{s:s, s:i, s:i, s:i}", "kind", "DtoD", "calls",
                                                10, "bytes", 81920, "gpu_total_ns", 8000));
        blas = gemm_call("cublasGemmEx", "DEFAULT");
        wall = 1700000, self = 45000;
    }
    json_t *doc = json_pack(
        "{s:s, s:s, s:[s, s, s, s, s], s:i, s:I, s:{s:b, s:s}, s:[o, o], s:o, s:o, s:o,"
        " s:[{s:s, s:s, s:s}], s:{s:I, s:f, s:i}, s:i, s:s}",
        "schema", "cuprof.summary/1", "program", "bench/matmul_add", "argv",
        "bench/matmul_add", "--mode", mode, "--size", "64", "pid", 4242, "wall_ns", wall,
        "gpu_timeline", "captured", 1, "reason", "", "api",
        api("cudaLaunchKernel", 10, self, self), api("cublasLtMatmul", 10, 100000, 90000),
        "kernels", kernels, "copies", copies, "blas", blas, "findings", "rule",
        "overhead-bound", "severity", "warning", "message", "the GPU idles", "gpu", "busy_ns",
        wall / 4, "idle_share", 0.75, "launch_latency_median_ns", 4200, "iterations", 10,
        "future_field", "ignored");
    ck_assert_ptr_nonnull(doc);
    return doc;
}

/* Writes doc (taking it) to dir/name; returns the path (static rotating). */
static const char *write_doc(const char *name, json_t *doc)
{
    static char paths[4][4096];
    static int next;
    char *p = paths[next++ & 3];
    snprintf(p, sizeof paths[0], "%s/%s", dir, name);
    ck_assert_int_eq(json_dump_file(doc, p, JSON_COMPACT), 0);
    json_decref(doc);
    return p;
}

static const char *write_raw(const char *name, const void *data, size_t len)
{
    static char paths[4][4096];
    static int next;
    char *p = paths[next++ & 3];
    snprintf(p, sizeof paths[0], "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    fclose(f);
    return p;
}

/* Runs cuprof-compare with the given arguments (NULL-terminated). */
static e2e_result compare_run(const char *first, ...)
{
    const char *argv[32] = {e2e_bpath("cuprof-compare")};
    size_t n = 1;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && n < 31; a = va_arg(ap, const char *))
        argv[n++] = a;
    va_end(ap);
    argv[n] = NULL;
    return e2e_run(argv, NULL, NULL, 30);
}

/* Asserts that the row labelled label (first such row at or after anchor)
 * holds exactly the cells given, separated by single spaces. */
static void expect_row(const char *out, const char *anchor, const char *label,
                       const char *cells)
{
    const char *from = anchor ? strstr(out, anchor) : out;
    ck_assert_msg(from, "no \"%s\" in:\n%s", anchor, out);
    char key[256];
    snprintf(key, sizeof key, "\n%s  ", label);
    const char *line = strstr(from - (from > out ? 1 : 0), key);
    ck_assert_msg(line, "no row \"%s\" after \"%s\" in:\n%s", label, anchor ? anchor : "", out);
    line += strlen(key);
    const char *end = strchr(line, '\n');
    char got[512] = "";
    size_t used = 0;
    for (const char *p = line; p < end;) {
        while (p < end && *p == ' ')
            p++;
        if (p == end)
            break;
        if (used)
            got[used++] = ' ';
        while (p < end && *p != ' ' && used < sizeof got - 1)
            got[used++] = *p++;
    }
    got[used] = 0;
    ck_assert_msg(strcmp(got, cells) == 0, "row \"%s\": got \"%s\", want \"%s\"", label, got,
                  cells);
}

/* Asserts that some line of out holds exactly these words. */
static void expect_line(const char *out, const char *words)
{
    for (const char *p = out; *p;) {
        const char *end = strchr(p, '\n');
        if (!end)
            end = p + strlen(p);
        char got[512] = "";
        size_t used = 0;
        for (const char *q = p; q < end && used < sizeof got - 2;) {
            while (q < end && *q == ' ')
                q++;
            if (q == end)
                break;
            if (used)
                got[used++] = ' ';
            while (q < end && *q != ' ' && used < sizeof got - 1)
                got[used++] = *q++;
        }
        got[used] = 0;
        if (strcmp(got, words) == 0)
            return;
        p = *end ? end + 1 : end;
    }
    ck_abort_msg("no line \"%s\" in:\n%s", words, out);
}

static void expect_ok(const e2e_result *r)
{
    ck_assert_msg(r->status == 0, "exit %d, stderr: %s", r->status, r->err);
    ck_assert_str_eq(r->err, "");
}

/* ---- comparisons ---- */

START_TEST(eager_vs_fused_table)
{
    const char *a = write_doc("eager.summary.json", run_doc("eager"));
    const char *b = write_doc("fused.summary.json", run_doc("fused"));
    e2e_result r = compare_run(a, b, NULL);
    expect_ok(&r);
    const char *o = r.out;
    /* Columns: one per run, then delta and ratio against A. */
    ck_assert_ptr_nonnull(strstr(o, "  A  matmul_add --mode eager "));
    ck_assert_ptr_nonnull(strstr(o, "  B  matmul_add --mode fused "));
    expect_line(o, "A B B-A B/A");
    expect_row(o, "Overview", "  wall time", "2.000ms 1.500ms -500.000us 0.75x");
    expect_row(o, "Overview", "  CPU time in CUDA calls", "150.000us 120.000us -30.000us 0.80x");
    expect_row(o, "Overview", "  GPU busy time", "500.000us 375.000us -125.000us 0.75x");
    expect_row(o, "Overview", "  GPU idle share", "75.0% 75.0% +0.0pp 1.00x");
    expect_row(o, "Overview", "  kernel launches", "20 10 -10 0.50x");
    expect_row(o, "Per iteration (10 iterations", "  kernel launches / iteration",
               "2.00 1.00 -1.00 0.50x");
    expect_row(o, "Per iteration (10 iterations", "  wall time / iteration",
               "200.000us 150.000us -50.000us 0.75x");
    /* Kernels in only one run, in plain words, with full names. */
    ck_assert_ptr_nonnull(strstr(o, "\n  only in B: " FUSED " (10 launches)\n"));
    ck_assert_ptr_nonnull(strstr(o, "\n  only in A: " BIAS " (10 launches); gone from B\n"));
    ck_assert_ptr_nonnull(strstr(o, "\n  only in A: " GEMM " (10 launches); gone from B\n"));
    /* The epilogue change, said once. */
    ck_assert_int_eq(e2e_count(o, "now uses the BIAS epilogue"), 1);
    ck_assert_ptr_nonnull(strstr(o, "B: the GEMM 64x64x64 now uses the BIAS epilogue (A: DEFAULT)"));
    /* BLAS shapes with their epilogue, kernels with count, total, median. */
    expect_row(o, "cuBLAS", "    64x64x64 bf16 BIAS", "- 10 - -");
    expect_row(o, "cuBLAS", "    64x64x64 bf16 DEFAULT", "10 - - -");
    expect_row(o, "\n  " BIAS "\n", "    launches", "10 - - -");
    expect_row(o, "\n  " BIAS "\n", "    total", "20.000us - - -");
    expect_row(o, "\n  " BIAS "\n", "    median", "2.000us - - -");
    expect_row(o, "\n  " FUSED "\n", "    total", "- 52.000us - -");
    expect_row(o, "Runtime calls", "  cudaLaunchKernel", "10 10 0 1.00x");
    expect_row(o, "  cudaLaunchKernel  ", "    CPU total", "60.000us 30.000us -30.000us 0.50x");
    expect_row(o, "Findings", "  overhead-bound", "warning warning");
    e2e_result_free(&r);
}
END_TEST

START_TEST(eager_vs_addmm_copies)
{
    const char *a = write_doc("eager.summary.json", run_doc("eager"));
    const char *b = write_doc("addmm.summary.json", run_doc("addmm"));
    e2e_result r = compare_run(a, b, NULL);
    expect_ok(&r);
    const char *o = r.out;
    expect_row(o, "Copies", "  HtoD", "2 2 0 1.00x");
    expect_row(o, "  HtoD  ", "    bytes", "16.00KiB 16.00KiB 0B 1.00x");
    expect_row(o, "Copies", "  DtoD", "- 10 - -");
    expect_row(o, "  DtoD  ", "    bytes", "- 80.00KiB - -");
    expect_row(o, "  DtoD  ", "    GPU time", "- 8.000us - -");
    expect_row(o, "cuBLAS", "  cublasGemmEx", "- 10 - -");
    ck_assert_ptr_nonnull(strstr(o, "only in A: " BIAS " (10 launches); gone from B"));
    /* Same GEMM kernel in both: no "only in" line for it, and no epilogue
     * change (DEFAULT in both, through different entry points). */
    ck_assert_ptr_null(strstr(o, "only in A: " GEMM));
    ck_assert_ptr_null(strstr(o, "epilogue ("));
    expect_row(o, "\n  " GEMM "\n", "    launches", "10 10 0 1.00x");
    e2e_result_free(&r);
}
END_TEST

START_TEST(three_runs)
{
    const char *a = write_doc("eager.summary.json", run_doc("eager"));
    const char *b = write_doc("fused.summary.json", run_doc("fused"));
    const char *c = write_doc("addmm.summary.json", run_doc("addmm"));
    e2e_result r = compare_run(a, b, c, NULL);
    expect_ok(&r);
    const char *o = r.out;
    expect_line(o, "A B C B-A B/A C-A C/A");
    ck_assert_ptr_nonnull(strstr(o, "  C  matmul_add --mode addmm "));
    expect_row(o, "Overview", "  wall time",
               "2.000ms 1.500ms 1.700ms -500.000us 0.75x -300.000us 0.85x");
    ck_assert_ptr_nonnull(strstr(o, "missing from B: " GEMM " (A: 10, C: 10 launches)"));
    ck_assert_ptr_nonnull(strstr(o, "only in A: " BIAS " (10 launches); gone from B, C"));
    ck_assert_ptr_nonnull(strstr(o, "only in B: " FUSED " (10 launches)"));
    e2e_result_free(&r);
}
END_TEST

static json_t *path_get(json_t *root, const char *a, const char *b)
{
    json_t *x = json_object_get(root, a);
    return b ? json_object_get(x, b) : x;
}

START_TEST(json_output)
{
    const char *a = write_doc("eager.summary.json", run_doc("eager"));
    const char *b = write_doc("fused.summary.json", run_doc("fused"));
    e2e_result r = compare_run("--json", a, b, NULL);
    expect_ok(&r);
    json_error_t je;
    json_t *doc = json_loads(r.out, JSON_REJECT_DUPLICATES, &je);
    ck_assert_msg(doc, "--json output is not JSON: %s", je.text);
    ck_assert_str_eq(json_string_value(json_object_get(doc, "schema")), COMPARE_SCHEMA);
    json_t *runs = json_object_get(doc, "runs");
    ck_assert_int_eq(json_array_size(runs), 2);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(runs, 1), "name")),
                     "matmul_add --mode fused");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(runs, 1), "label")), "B");
    json_t *wall = path_get(doc, "overview", "wall_ns");
    ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(wall, "values"), 0)),
                     2000000);
    ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(wall, "values"), 1)),
                     1500000);
    ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(wall, "delta"), 1)),
                     -500000);
    ck_assert_double_eq_tol(json_real_value(json_array_get(json_object_get(wall, "ratio"), 1)),
                            0.75, 1e-9);
    json_t *launches = path_get(doc, "overview", "kernel_launches");
    ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(launches, "values"), 0)), 20);
    json_t *idle = path_get(doc, "overview", "gpu_idle_share");
    ck_assert_double_eq_tol(json_real_value(json_array_get(json_object_get(idle, "values"), 1)),
                            0.75, 1e-9);
    json_t *pl = path_get(doc, "per_iteration", "kernel_launches");
    ck_assert_double_eq_tol(json_real_value(json_array_get(json_object_get(pl, "values"), 0)),
                            2.0, 1e-9);
    ck_assert_int_eq(json_integer_value(path_get(doc, "per_iteration", "iterations")), 10);
    /* Kernels: a missing run is null, not 0. */
    json_t *ks = json_object_get(doc, "kernels");
    bool seen_fused = false;
    for (size_t i = 0; i < json_array_size(ks); i++) {
        json_t *k = json_array_get(ks, i);
        if (strcmp(json_string_value(json_object_get(k, "name")), FUSED) != 0)
            continue;
        seen_fused = true;
        json_t *v = json_object_get(json_object_get(k, "launches"), "values");
        ck_assert(json_is_null(json_array_get(v, 0)));
        ck_assert_int_eq(json_integer_value(json_array_get(v, 1)), 10);
        json_t *t = json_object_get(json_object_get(k, "gpu_total_ns"), "values");
        ck_assert_int_eq(json_integer_value(json_array_get(t, 1)), 52000);
    }
    ck_assert(seen_fused);
    json_t *pres = json_object_get(doc, "kernels_not_in_every_run");
    ck_assert_int_eq(json_array_size(pres), 3);
    bool only_b = false;
    for (size_t i = 0; i < json_array_size(pres); i++) {
        json_t *p = json_array_get(pres, i);
        if (strcmp(json_string_value(json_object_get(p, "name")), FUSED) == 0) {
            only_b = true;
            ck_assert_str_eq(json_string_value(json_array_get(json_object_get(p, "in"), 0)), "B");
            ck_assert_str_eq(json_string_value(json_array_get(json_object_get(p, "missing"), 0)),
                             "A");
            ck_assert_str_eq(json_string_value(json_object_get(p, "message")),
                             "only in B: " FUSED " (10 launches)");
        }
    }
    ck_assert(only_b);
    json_t *ep = json_object_get(doc, "epilogue_changes");
    ck_assert_int_eq(json_array_size(ep), 1);
    json_t *e0 = json_array_get(ep, 0);
    ck_assert_str_eq(json_string_value(json_object_get(e0, "run")), "B");
    ck_assert_str_eq(json_string_value(json_object_get(e0, "from")), "DEFAULT");
    ck_assert_str_eq(json_string_value(json_object_get(e0, "to")), "BIAS");
    ck_assert_int_eq(json_integer_value(path_get(e0, "gemm", "m")), 64);
    json_t *bl = json_array_get(json_object_get(doc, "blas"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(bl, "name")), "cublasLtMatmul");
    ck_assert_int_eq(json_array_size(json_object_get(bl, "shapes")), 2);
    json_decref(doc);
    e2e_result_free(&r);
}
END_TEST

/* No "gpu" object, no timeline, no iterations: "-" where numbers are absent. */
START_TEST(absent_gpu_fields)
{
    json_t *a = run_doc("eager"), *b = run_doc("fused");
    json_t *docs[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        json_object_del(docs[i], "gpu");
        json_object_del(docs[i], "iterations");
        json_object_set_new(json_object_get(docs[i], "gpu_timeline"), "captured", json_false());
        json_object_set_new(json_object_get(docs[i], "gpu_timeline"), "reason",
                            json_string("CUPTI_ERROR_NOT_INITIALIZED: no driver"));
    }
    const char *pa = write_doc("a.summary.json", a);
    const char *pb = write_doc("b.summary.json", b);
    e2e_result r = compare_run(pa, pb, NULL);
    expect_ok(&r);
    expect_row(r.out, "Overview", "  GPU busy time", "- - - -");
    expect_row(r.out, "Overview", "  GPU idle share", "- - - -");
    expect_row(r.out, "Overview", "  kernel launches", "20 10 -10 0.50x");
    expect_row(r.out, "\n  " BIAS "\n", "    total", "- - - -");
    ck_assert_int_eq(e2e_count(r.out, "no GPU timeline: CUPTI_ERROR_NOT_INITIALIZED: no driver"), 2);
    ck_assert_ptr_null(strstr(r.out, "Per iteration"));
    e2e_result_free(&r);

    r = compare_run("--json", pa, pb, NULL);
    expect_ok(&r);
    json_t *doc = json_loads(r.out, 0, NULL);
    ck_assert_ptr_nonnull(doc);
    json_t *busy = path_get(doc, "overview", "gpu_busy_ns");
    ck_assert(json_is_null(json_array_get(json_object_get(busy, "values"), 0)));
    ck_assert(json_is_null(json_object_get(doc, "per_iteration")));
    json_decref(doc);
    e2e_result_free(&r);
}
END_TEST

START_TEST(different_iterations)
{
    json_t *b = run_doc("fused");
    json_object_set_new(b, "iterations", json_pack("{s:i}", "count", 20));
    const char *pa = write_doc("a.summary.json", run_doc("eager"));
    const char *pb = write_doc("b.summary.json", b);
    e2e_result r = compare_run(pa, pb, NULL);
    expect_ok(&r);
    ck_assert_ptr_null(strstr(r.out, "/ iteration"));
    ck_assert_ptr_nonnull(strstr(r.out, "Per iteration: not shown, the runs ran different numbers of iterations"));
    e2e_result_free(&r);
}
END_TEST

START_TEST(same_command_twice)
{
    json_t *b = run_doc("eager");
    json_object_set_new(b, "pid", json_integer(777));
    const char *pa = write_doc("a.summary.json", run_doc("eager"));
    const char *pb = write_doc("b.summary.json", b);
    e2e_result r = compare_run(pa, pb, NULL);
    expect_ok(&r);
    ck_assert_ptr_nonnull(strstr(r.out, "  A  matmul_add (pid 4242) "));
    ck_assert_ptr_nonnull(strstr(r.out, "  B  matmul_add (pid 777) "));
    ck_assert_ptr_null(strstr(r.out, "Differences"));
    expect_row(r.out, "Overview", "  wall time", "2.000ms 2.000ms 0ns 1.00x");
    e2e_result_free(&r);
}
END_TEST

START_TEST(directory_argument)
{
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/eager", dir);
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    write_doc("eager/matmul_add.4242.summary.json", run_doc("eager"));
    write_doc("eager/matmul_add.4242.trace.json", json_pack("{s:[]}", "traceEvents"));
    const char *b = write_doc("fused.summary.json", run_doc("fused"));
    e2e_result r = compare_run(sub, b, NULL);
    expect_ok(&r);
    ck_assert_ptr_nonnull(strstr(r.out, "eager/matmul_add.4242.summary.json"));
    expect_row(r.out, "Overview", "  wall time", "2.000ms 1.500ms -500.000us 0.75x");
    e2e_result_free(&r);
}
END_TEST

/* A crafted kernel name must not reach the terminal raw. */
START_TEST(control_bytes_escaped)
{
    json_t *a = run_doc("eager");
    json_array_append_new(json_object_get(a, "kernels"), kernel("evil\x1b[2J\nname", 1, 1, 1));
    const char *pa = write_doc("a.summary.json", a);
    const char *pb = write_doc("b.summary.json", run_doc("fused"));
    e2e_result r = compare_run(pa, pb, NULL);
    expect_ok(&r);
    ck_assert_ptr_null(strchr(r.out, '\x1b'));
    ck_assert_ptr_nonnull(strstr(r.out, "only in A: evil?[2J?name (1 launch); gone from B"));
    e2e_result_free(&r);
}
END_TEST

/* ---- rejections ---- */

/* Exit status, one "cuprof:" line on stderr naming file and problem, and an
 * empty stdout. */
static void expect_rejected(e2e_result *r, int status, const char *file, const char *what)
{
    ck_assert_msg(r->status == status, "exit %d (want %d), stderr: %s", r->status, status,
                  r->err);
    ck_assert_msg(r->out[0] == 0, "stdout not empty: %s", r->out);
    ck_assert_msg(strncmp(r->err, "cuprof: ", 8) == 0, "stderr: %s", r->err);
    ck_assert_msg(e2e_count(r->err, "\n") == 1 && r->err[strlen(r->err) - 1] == '\n',
                  "not exactly one line: %s", r->err);
    ck_assert_msg(!file || strstr(r->err, file), "no \"%s\" in: %s", file, r->err);
    ck_assert_msg(strstr(r->err, what), "no \"%s\" in: %s", what, r->err);
    ck_assert_msg(strchr(r->err, ';'), "no advice in: %s", r->err);
    e2e_result_free(r);
}

/* Runs compare with a valid first run and bad as the second. */
static void reject_second(const char *bad, const char *what)
{
    const char *good = write_doc("good.summary.json", run_doc("eager"));
    e2e_result r = compare_run(good, bad, NULL);
    expect_rejected(&r, 1, bad, what);
    r = compare_run("--json", bad, good, NULL);
    expect_rejected(&r, 1, bad, what);
}

START_TEST(reject_truncated)
{
    json_t *doc = run_doc("eager");
    char *text = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    ck_assert_ptr_nonnull(text);
    reject_second(write_raw("cut.summary.json", text, strlen(text) / 2), "truncated");
    free(text);
}
END_TEST

START_TEST(reject_empty)
{
    reject_second(write_raw("empty.summary.json", "", 0), "the file is empty");
    reject_second(write_raw("blank.summary.json", "  \n\n", 4), "the file is empty");
}
END_TEST

START_TEST(reject_binary)
{
    unsigned char junk[512];
    unsigned v = 12345;
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (unsigned char)((v = v * 1103515245u + 12345u) >> 16);
    junk[0] = 0x7f, junk[1] = 'E', junk[2] = 'L', junk[3] = 'F';
    reject_second(write_raw("junk.summary.json", junk, sizeof junk), "binary data");
    /* High bytes only, no NUL: jansson's UTF-8 check catches it. */
    reject_second(write_raw("latin1.summary.json", "{\"schema\":\"\xff\xfe\"}", 16), "binary data");
}
END_TEST

START_TEST(reject_other_schema)
{
    reject_second(write_doc("other.json", json_pack("{s:s, s:[]}", "schema", "other.tool/3", "x")),
                  "not a cuprof summary (schema \"other.tool/3\"");
    reject_second(write_doc("trace.json", json_pack("{s:[]}", "traceEvents")),
                  "this is a Chrome trace");
    reject_second(write_doc("arr.json", json_pack("[i]", 1)), "the top level is an array");
    reject_second(write_doc("noschema.json", json_pack("{s:i}", "wall_ns", 1)),
                  "no \"schema\" field");
    json_t *v2 = run_doc("eager");
    json_object_set_new(v2, "schema", json_string("cuprof.summary/2"));
    reject_second(write_doc("v2.summary.json", v2), "written for schema \"cuprof.summary/2\"");
}
END_TEST

START_TEST(reject_wrong_types)
{
    json_t *d = run_doc("eager");
    json_object_set_new(json_array_get(json_object_get(d, "kernels"), 1), "launches",
                        json_string("10"));
    reject_second(write_doc("t1.summary.json", d),
                  "kernels[1].launches is a string, expected an integer");

    d = run_doc("eager");
    json_object_set_new(d, "wall_ns", json_real(1.5));
    reject_second(write_doc("t2.summary.json", d), "wall_ns is a fraction, expected an integer");

    d = run_doc("eager");
    json_object_set_new(d, "api", json_object());
    reject_second(write_doc("t3.summary.json", d), "api is an object, expected an array");

    d = run_doc("eager");
    json_object_del(d, "wall_ns");
    reject_second(write_doc("t4.summary.json", d), "has no \"wall_ns\" field");

    d = run_doc("eager");
    json_t *shape = json_array_get(
        json_object_get(json_array_get(json_object_get(d, "blas"), 0), "shapes"), 0);
    json_object_set_new(shape, "epilogue", json_integer(1));
    reject_second(write_doc("t5.summary.json", d),
                  "blas[0].shapes[0].epilogue is an integer, expected a string");

    d = run_doc("eager");
    json_object_set_new(json_array_get(json_object_get(d, "copies"), 0), "bytes",
                        json_integer(-5));
    reject_second(write_doc("t6.summary.json", d), "copies[0].bytes is -5, expected a number >= 0");

    d = run_doc("eager");
    json_object_set_new(json_object_get(d, "gpu_timeline"), "captured", json_string("yes"));
    reject_second(write_doc("t7.summary.json", d),
                  "gpu_timeline.captured is a string, expected a boolean");

    d = run_doc("eager");
    json_array_append_new(json_object_get(d, "argv"), json_null());
    reject_second(write_doc("t8.summary.json", d), "argv[5] is null, expected a string");
}
END_TEST

START_TEST(reject_huge_number)
{
    const char *p = write_raw("huge.summary.json",
                              "{\"schema\":\"cuprof.summary/1\",\"wall_ns\":99999999999999999999}",
                              60);
    reject_second(p, "too large for 64 bits");
}
END_TEST

START_TEST(reject_directory_with_two)
{
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/out", dir);
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    write_doc("out/app.1.summary.json", run_doc("eager"));
    write_doc("out/app.2.summary.json", run_doc("fused"));
    e2e_result r = compare_run(sub, sub, NULL);
    expect_rejected(&r, 1, sub,
                    "2 summaries in this directory (app.1.summary.json, app.2.summary.json)");
    snprintf(sub, sizeof sub, "%s/none", dir);
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    r = compare_run(sub, sub, NULL);
    expect_rejected(&r, 1, sub, "no *.summary.json in this directory");
}
END_TEST

START_TEST(reject_missing_file)
{
    const char *good = write_doc("good.summary.json", run_doc("eager"));
    e2e_result r = compare_run(good, "/nonexistent/x.summary.json", NULL);
    expect_rejected(&r, 1, "/nonexistent/x.summary.json", "No such file or directory");
}
END_TEST

START_TEST(usage_errors)
{
    const char *good = write_doc("good.summary.json", run_doc("eager"));
    e2e_result r = compare_run(NULL);
    expect_rejected(&r, 2, NULL, "needs at least two runs");
    r = compare_run(good, NULL);
    expect_rejected(&r, 2, NULL, "needs at least two runs, got 1");
    r = compare_run("--bogus", good, good, NULL);
    expect_rejected(&r, 2, NULL, "unknown option --bogus");
    r = compare_run(good, good, "--html", NULL);
    expect_rejected(&r, 2, NULL, "--html needs the page's file name");
    /* a page that cannot be written: nothing on stdout, status 1 */
    r = compare_run("--html", "/nonexistent/dir/cmp.html", good, good, NULL);
    expect_rejected(&r, 1, "/nonexistent/dir/cmp.html", "check that the page's folder exists");
    r = compare_run("--help", NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "usage: cuprof-compare [--json] [--html FILE] RUN RUN"));
    e2e_result_free(&r);
}
END_TEST

/* ---- the reader and the units, in process ---- */

START_TEST(reader_fields)
{
    json_t *doc = run_doc("fused");
    char *text = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    summary *s = NULL;
    char err[SUMMARY_ERR_MAX];
    ck_assert_int_eq(cmp_summary_parse(text, strlen(text), "x", &s, err, sizeof err), 0);
    ck_assert_str_eq(s->program, "bench/matmul_add");
    ck_assert_uint_eq(s->argc, 5);
    ck_assert_str_eq(s->argv[2], "fused");
    ck_assert_int_eq(s->wall_ns, 1500000);
    ck_assert(s->gpu_captured);
    ck_assert_uint_eq(s->n_kernels, 1);
    ck_assert_str_eq(s->kernels[0].name, FUSED);
    ck_assert_int_eq(s->kernels[0].median_ns, 5200);
    ck_assert_uint_eq(s->n_blas, 1);
    ck_assert_str_eq(s->blas[0].shapes[0].epilogue, "BIAS");
    ck_assert(s->has_gpu && s->gpu.has_busy_ns && s->gpu.has_idle_share);
    ck_assert_int_eq(s->gpu.busy_ns, 375000);
    ck_assert_int_eq(s->gpu.launch_latency_median_ns, 4200);
    ck_assert(s->has_iterations);
    ck_assert_int_eq(s->iterations, 10);
    ck_assert_str_eq(s->findings[0].rule, "overhead-bound");
    cmp_summary_destroy(s);
    free(text);
}
END_TEST

/* The optional fields are read when well-formed and ignored otherwise. */
START_TEST(reader_optional_fields_tolerated)
{
    json_t *d = run_doc("eager");
    json_object_set_new(d, "gpu", json_pack("{s:s, s:f, s:[]}", "busy_ns", "lots",
                                            "idle_share", 0.25, "launch_latency_median_ns"));
    json_object_set_new(d, "iterations", json_string("ten"));
    char *text = json_dumps(d, JSON_COMPACT);
    json_decref(d);
    summary *s = NULL;
    char err[SUMMARY_ERR_MAX];
    ck_assert_msg(cmp_summary_parse(text, strlen(text), "x", &s, err, sizeof err) == 0, "%s", err);
    ck_assert(s->has_gpu);
    ck_assert(!s->gpu.has_busy_ns);
    ck_assert(!s->gpu.has_launch_latency_median_ns);
    ck_assert(s->gpu.has_idle_share);
    ck_assert_double_eq_tol(s->gpu.idle_share, 0.25, 1e-12);
    ck_assert(!s->has_iterations);
    cmp_summary_destroy(s);
    free(text);
}
END_TEST

START_TEST(reader_error_is_one_line)
{
    summary *s = (summary *)1;
    char err[SUMMARY_ERR_MAX];
    const char bad[] = "{\"schema\": \"cuprof.summary/1\",\n\n \"program\": 5}";
    ck_assert_int_eq(cmp_summary_parse(bad, sizeof bad - 1, "f\nx", &s, err, sizeof err), -1);
    ck_assert_ptr_null(s);
    ck_assert_ptr_null(strchr(err, '\n'));
    ck_assert_str_eq(err, "cuprof: f?x: the summary.program is an integer, expected a string; "
                          "the file does not follow cuprof.summary/1: profile the program "
                          "again with prof.sh");
}
END_TEST

START_TEST(human_units)
{
    char b[32];
    cmp_fmt_time(b, sizeof b, 850, 0);          ck_assert_str_eq(b, "850ns");
    cmp_fmt_time(b, sizeof b, 56000, 0);        ck_assert_str_eq(b, "56.000us");
    cmp_fmt_time(b, sizeof b, 1234000, 0);      ck_assert_str_eq(b, "1.234ms");
    cmp_fmt_time(b, sizeof b, 2500000000, 0);   ck_assert_str_eq(b, "2.500s");
    cmp_fmt_time(b, sizeof b, -1500, 1);        ck_assert_str_eq(b, "-1.500us");
    cmp_fmt_time(b, sizeof b, 1500, 1);         ck_assert_str_eq(b, "+1.500us");
    cmp_fmt_time(b, sizeof b, 0, 1);            ck_assert_str_eq(b, "0ns");
    cmp_fmt_time(b, sizeof b, INT64_MAX, 0);    ck_assert_str_eq(b, "9223372036.855s");
    cmp_fmt_bytes(b, sizeof b, 512, 0);         ck_assert_str_eq(b, "512B");
    cmp_fmt_bytes(b, sizeof b, 81920, 0);       ck_assert_str_eq(b, "80.00KiB");
    cmp_fmt_bytes(b, sizeof b, 3 << 20, 1);     ck_assert_str_eq(b, "+3.00MiB");
}
END_TEST

/* Sums saturate instead of wrapping when a file holds INT64_MAX everywhere. */
START_TEST(huge_values_saturate)
{
    json_t *a = run_doc("eager");
    json_t *apis = json_object_get(a, "api");
    for (size_t i = 0; i < json_array_size(apis); i++)
        json_object_set_new(json_array_get(apis, i), "cpu_self_ns", json_integer(INT64_MAX));
    const char *pa = write_doc("a.summary.json", a);
    const char *pb = write_doc("b.summary.json", run_doc("fused"));
    e2e_result r = compare_run("--json", pa, pb, NULL);
    expect_ok(&r);
    json_t *doc = json_loads(r.out, 0, NULL);
    ck_assert_ptr_nonnull(doc);
    json_t *cpu = path_get(doc, "overview", "cpu_in_cuda_calls_ns");
    ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(cpu, "values"), 0)),
                     INT64_MAX);
    json_decref(doc);
    e2e_result_free(&r);
}
END_TEST

/* A range row "step" (domain "") of 100 occurrences, median_ns med. */
static json_t *range_row(json_int_t med, int sketched)
{
    json_t *x = json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:I, s:I, s:I}", "name", "step", "domain", "",
                          "calls", 100, "cpu_total_ns", 1000000, "gpu_total_ns", 500000, "kernels", 200,
                          "min_ns", med, "median_ns", med, "max_ns", med);
    if (sketched)
        json_object_set_new(x, "median_sketched", json_true());
    return x;
}

/* A json array of one true/false per run, as "sketched" holds them. */
static void expect_sketched(json_t *series, int a, int b)
{
    json_t *sk = json_object_get(series, "sketched");
    ck_assert_msg(json_is_array(sk) && json_array_size(sk) == 2, "no \"sketched\" pair");
    ck_assert_int_eq(json_is_true(json_array_get(sk, 0)), a);
    ck_assert_int_eq(json_is_true(json_array_get(sk, 1)), b);
}

/* Medians a summary marks approximate (median_sketched on a kernel or
 * range row, launch_latency_median_sketched) on either side: "~" before
 * that run's value, one legend line under the table, and "sketched" in
 * the JSON series; exact medians (the other kernel, the exact runs) have
 * neither. */
START_TEST(sketched_medians)
{
    json_t *a = run_doc("eager"), *b = run_doc("eager");
    json_object_set_new(a, "ranges", json_pack("[o]", range_row(40000, 1)));   /* A's range */
    json_object_set_new(b, "ranges", json_pack("[o]", range_row(40000, 0)));
    json_object_set_new(json_array_get(json_object_get(b, "kernels"), 0), "median_sketched",
                        json_true());                                           /* B's GEMM */
    json_object_set_new(json_object_get(b, "gpu"), "launch_latency_median_sketched", json_true());
    const char *pa = write_doc("a.summary.json", a);
    const char *pb = write_doc("b.summary.json", b);
    e2e_result r = compare_run(pa, pb, NULL);
    expect_ok(&r);
    expect_row(r.out, "Overview", "  launch latency (median)", "4.200us ~4.200us 0ns 1.00x");
    expect_row(r.out, "\n  " GEMM "\n", "    median", "5.000us ~5.000us 0ns 1.00x");
    expect_row(r.out, "\n  " GEMM "\n", "    total", "50.000us 50.000us 0ns 1.00x");
    expect_row(r.out, "\n  " BIAS "\n", "    median", "2.000us 2.000us 0ns 1.00x");
    expect_row(r.out, "NVTX ranges", "    median", "~40.000us 40.000us 0ns 1.00x");
    ck_assert_int_eq(e2e_count(r.out, "\n~ median: approximate, within 0.78%"), 1);
    ck_assert_int_eq(e2e_count(r.out, "~"), 4);   /* three values and the legend */
    e2e_result_free(&r);

    r = compare_run("--json", pa, pb, NULL);
    expect_ok(&r);
    json_t *doc = json_loads(r.out, JSON_REJECT_DUPLICATES, NULL);
    ck_assert_ptr_nonnull(doc);
    expect_sketched(path_get(doc, "overview", "launch_latency_median_ns"), 0, 1);
    ck_assert_ptr_null(json_object_get(path_get(doc, "overview", "wall_ns"), "sketched"));
    json_t *ks = json_object_get(doc, "kernels");
    int seen = 0;
    for (size_t i = 0; i < json_array_size(ks); i++) {
        json_t *k = json_array_get(ks, i);
        json_t *med = json_object_get(k, "median_ns");
        if (strcmp(json_string_value(json_object_get(k, "name")), GEMM) == 0) {
            expect_sketched(med, 0, 1);
            seen++;
        } else {
            ck_assert_ptr_null(json_object_get(med, "sketched"));
        }
    }
    ck_assert_int_eq(seen, 1);
    expect_sketched(json_object_get(json_array_get(json_object_get(doc, "ranges"), 0), "median_ns"), 1, 0);
    json_decref(doc);
    e2e_result_free(&r);

    /* both exact: no mark, no legend, no "sketched" */
    pa = write_doc("c.summary.json", run_doc("eager"));
    pb = write_doc("d.summary.json", run_doc("fused"));
    r = compare_run(pa, pb, NULL);
    expect_ok(&r);
    ck_assert_ptr_null(strchr(r.out, '~'));
    e2e_result_free(&r);
    r = compare_run("--json", pa, pb, NULL);
    expect_ok(&r);
    ck_assert_ptr_null(strstr(r.out, "\"sketched\""));
    e2e_result_free(&r);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("compare");
    TCase *tc = tcase_create("compare");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, eager_vs_fused_table);
    tcase_add_test(tc, eager_vs_addmm_copies);
    tcase_add_test(tc, three_runs);
    tcase_add_test(tc, json_output);
    tcase_add_test(tc, absent_gpu_fields);
    tcase_add_test(tc, different_iterations);
    tcase_add_test(tc, same_command_twice);
    tcase_add_test(tc, directory_argument);
    tcase_add_test(tc, control_bytes_escaped);
    tcase_add_test(tc, huge_values_saturate);
    tcase_add_test(tc, sketched_medians);
    suite_add_tcase(s, tc);

    TCase *rj = tcase_create("reject");
    tcase_add_checked_fixture(rj, setup, teardown);
    tcase_set_timeout(rj, 60);
    tcase_add_test(rj, reject_truncated);
    tcase_add_test(rj, reject_empty);
    tcase_add_test(rj, reject_binary);
    tcase_add_test(rj, reject_other_schema);
    tcase_add_test(rj, reject_wrong_types);
    tcase_add_test(rj, reject_huge_number);
    tcase_add_test(rj, reject_directory_with_two);
    tcase_add_test(rj, reject_missing_file);
    tcase_add_test(rj, usage_errors);
    suite_add_tcase(s, rj);

    TCase *rd = tcase_create("reader");
    tcase_add_checked_fixture(rd, setup, teardown);
    tcase_add_test(rd, reader_fields);
    tcase_add_test(rd, reader_optional_fields_tolerated);
    tcase_add_test(rd, reader_error_is_one_line);
    tcase_add_test(rd, human_units);
    suite_add_tcase(s, rd);
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
