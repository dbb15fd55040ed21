/*
 * test_pystacks.c - stacks with Python frames (python = 1, as the profiled
 * process records them: issue 39) and native frames with file:line, through
 * the model and every output that shows stacks, on a run built by hand:
 * the launch sites by Python line (Self CUDA, CUDA total, calls), the folded
 * files, speedscope's file and line, summary.json's by_stack, and the
 * Python function slices of the JSON trace and the Perfetto trace (read back
 * by tests/e2e/pftrace.c), derived from the stacks of consecutive calls.
 */
#include "tests/unit/test_model.h"
#include "tests/e2e/pftrace.h"
#include "formats/formats.h"
#include "model/run.h"

#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const cuprof_api_desc APIS[] = {{"cudaLaunchKernel", "cuda_runtime"}};

/* Frames: a C extension's scale() under the interpreter under app.py's
 * Python functions; encoder_block and forward each at two lines. */
enum { F_CUDART, F_SCALE, F_EVAL, F_ENC7, F_FWD14, F_MOD20, F_ENC8, F_FWD15, F_MAIN, F_HELPER,
       F_STUB, F_KWRAP, F_LAUNCHK, NF };
static const cuprof_run_frame FRAMES[NF] = {
    [F_CUDART] = {.pc = 0x7000, .module = "/usr/local/cuda/lib64/libcudart.so.13",
                  .symbol = "cudaLaunchKernel"},
    [F_SCALE] = {.pc = 0x5000, .module = "/x/gpuops.so", .symbol = "scale", .file = "/x/gpuops.c",
                 .line = 12},
    [F_EVAL] = {.pc = 0x6000, .module = "/usr/lib/libpython3.12.so.1.0",
                .symbol = "_PyEval_EvalFrameDefault"},
    [F_ENC7] = {.symbol = "Model.encoder_block", .file = "/src/app.py", .line = 7, .python = 1},
    [F_FWD14] = {.symbol = "Model.forward", .file = "/src/app.py", .line = 14, .python = 1},
    [F_MOD20] = {.symbol = "<module>", .file = "/src/app.py", .line = 20, .python = 1},
    [F_ENC8] = {.symbol = "Model.encoder_block", .file = "/src/app.py", .line = 8, .python = 1},
    [F_FWD15] = {.symbol = "Model.forward", .file = "/src/app.py", .line = 15, .python = 1},
    [F_MAIN] = {.pc = 0x1000, .module = "/usr/bin/python3.12", .symbol = "main"},
    /* a <<<>>> launch in a native program, with the CUDA header inlines DWARF gives */
    [F_HELPER] = {.pc = 0x2000, .module = "/x/prog", .symbol = "__cudaLaunchKernel_helper",
                  .file = "/usr/local/cuda/include/cuda_runtime.h", .line = 300},
    [F_STUB] = {.pc = 0x2000, .module = "/x/prog", .symbol = "_Z20__device_stub__Z1kPfPf",
                .file = "/tmp/k.cudafe1.stub.c", .line = 1},
    /* nvcc's host function named after the kernel, at its declaration line */
    [F_KWRAP] = {.pc = 0x2000, .module = "/x/prog", .symbol = "_Z1kPf", .file = "/x/k.cu", .line = 5},
    [F_LAUNCHK] = {.pc = 0x2100, .module = "/x/prog", .symbol = "launch_k", .file = "/x/k.cu",
                   .line = 30},
};

static const uint32_t S1[] = {F_CUDART, F_SCALE, F_EVAL, F_ENC7, F_FWD14, F_MOD20, F_MAIN};
static const uint32_t S2[] = {F_CUDART, F_SCALE, F_EVAL, F_ENC8, F_FWD14, F_MOD20, F_MAIN};
static const uint32_t S3[] = {F_CUDART, F_SCALE, F_EVAL, F_ENC7, F_FWD15, F_MOD20, F_MAIN};
static const uint32_t S4[] = {F_CUDART, F_SCALE, F_EVAL, F_FWD14, F_MOD20, F_MAIN};
static const uint32_t S5[] = {F_CUDART, F_HELPER, F_STUB, F_KWRAP, F_LAUNCHK, F_MAIN};
#define ST(s) {sizeof s / sizeof s[0], s}
static const cuprof_run_stack STACKS[] = {{0, NULL}, ST(S1), ST(S2), ST(S3), ST(S4), ST(S5)};

/*
 * The calls, one launch each (kernel time K * (i + 1)):
 *   e0 [1000,1100] S1  <module>@20 > forward@14 > encoder_block@7 > scale
 *   e1 [1200,1300] S2  ... encoder_block@8
 *   e2 [1400,1500] S3  ... forward@15 > encoder_block@7
 *   e3 [1600,1700] S4  <module>@20 > forward@14 > scale
 *   e4 [2000,2100] S5  no Python: launch_k (k.cu:30) through CUDA's header inlines
 * Slices: <module> and Model.forward [1000,1700], Model.encoder_block [1000,1500].
 */
enum { NEV = 5 };
#define K 1000u
static cuprof_event evs[NEV];
static const cuprof_event *chunk_list[1] = {evs};
static cuprof_run_thread threads[1];
static cuprof_gpu_kernel kernels[NEV];
static cuprof_gpu_run gpu;
static const char *knames[2] = {"(unknown kernel)", "kern"};
static cuprof_run run;
static char dir[64];

static void make_run(void)
{
    memset(evs, 0, sizeof evs);
    static const uint64_t t0[NEV] = {1000, 1200, 1400, 1600, 2000};
    uint64_t base = 1000000;
    for (int i = 0; i < NEV; i++) {
        evs[i] = (cuprof_event){.t0 = base + t0[i], .t1 = base + t0[i] + 100, .api = 0,
                                .cls = CUPROF_EV_LAUNCH, .stack = (uint32_t)i + 1};
        evs[i].a.launch.kernel = 1;
        kernels[i] = (cuprof_gpu_kernel){.start_ns = base + t0[i] + 50,
                                         .end_ns = base + t0[i] + 50 + K * (i + 1),
                                         .ext = cuprof_event_id_make(1, (uint64_t)i),
                                         .corr = (uint32_t)i + 10, .stream = 7, .name = "kern"};
    }
    threads[0] = (cuprof_run_thread){.index = 1, .tid = 77, .n = NEV, .per_chunk = NEV,
                                     .chunks = chunk_list};
    gpu = (cuprof_gpu_run){.captured = 1, .status = "test", .kernels = kernels, .n_kernels = NEV};
    memset(&run, 0, sizeof run);
    run.program = "python3";
    run.exe = "/usr/bin/python3.12";
    run.pid = 77;
    run.t_start = base;
    run.t_end = base + 10000;
    run.wall_ns = run.t_end - run.t_start;
    run.clock = "CLOCK_MONOTONIC";
    run.napis = 1;
    run.apis = APIS;
    run.nkernels = 1;
    run.kernel_names = knames;
    run.nthreads = 1;
    run.threads = threads;
    run.nevents = NEV;
    run.gpu.captured = 1;
    run.gpu.reason = "";
    run.gpu_run = &gpu;
    run.stacks_mode = "auto";
    run.nstacks = sizeof STACKS / sizeof STACKS[0] - 1;
    run.stacks = STACKS;
    run.nframes = NF;
    run.frames = FRAMES;
    run.trace_format = CUPROF_TRACE_FORMAT_BOTH;
    run.report_html = 1;
}

static const cuprof_stat_site *site(const cuprof_stacks *sk, const char *name)
{
    for (size_t i = 0; i < sk->nsites; i++)
        if (!strcmp(sk->sites[i].site, name))
            return &sk->sites[i];
    ck_abort_msg("no site %s", name);
    return NULL;
}

START_TEST(sites_by_python_line)
{
    make_run();
    cuprof_summary *s = test_summary_build(&run);
    ck_assert_ptr_nonnull(s);
    const cuprof_stacks *sk = test_model_of(s)->stacks;
    ck_assert_str_eq(sk->frame[F_ENC7], "Model.encoder_block (app.py:7)");
    ck_assert_str_eq(sk->frame[F_SCALE], "scale (gpuops.c:12)");
    ck_assert_str_eq(sk->frame[F_EVAL], "_PyEval_EvalFrameDefault");
    /* the Python line first, not the extension's scale() */
    const cuprof_stat_site *x = site(sk, "Model.encoder_block (app.py:7)");
    ck_assert_uint_eq(x->gpu_total_ns, K * 1 + K * 3);
    ck_assert_uint_eq(x->cuda_total_ns, K * 1 + K * 3);
    ck_assert_uint_eq(x->calls, 2);
    x = site(sk, "Model.encoder_block (app.py:8)");
    ck_assert_uint_eq(x->gpu_total_ns, K * 2);
    ck_assert_uint_eq(x->calls, 1);
    /* forward at line 14: launched e3 itself; e0, e1 and e3 went through it */
    x = site(sk, "Model.forward (app.py:14)");
    ck_assert_uint_eq(x->gpu_total_ns, K * 4);
    ck_assert_uint_eq(x->cuda_total_ns, K * 1 + K * 2 + K * 4);
    ck_assert_uint_eq(x->calls, 1);
    /* a native launch: past the CUDA header inlines, nvcc's stub and the
     * kernel's host function */
    x = site(sk, "launch_k (k.cu:30)");
    ck_assert_uint_eq(x->gpu_total_ns, K * 5);
    ck_assert_str_eq(cuprof_stacks_site(sk, 5), "launch_k (k.cu:30)");
    ck_assert_uint_eq(sk->nsites, 4);
    /* user frames: the Python ones and scale; not CUDA's, the interpreter's */
    uint32_t f[8];
    ck_assert_uint_eq(cuprof_stacks_user_frames(sk, 1, f, 8), 4);
    ck_assert_uint_eq(f[0], F_SCALE);
    ck_assert_uint_eq(f[1], F_ENC7);
    ck_assert_uint_eq(f[3], F_MOD20);
    test_summary_destroy(s);
}
END_TEST

START_TEST(python_slices_from_consecutive_calls)
{
    make_run();
    cuprof_summary *s = test_summary_build(&run);
    const cuprof_stacks *sk = test_model_of(s)->stacks;
    ck_assert_uint_eq(sk->nslices, 3);
    const cuprof_py_slice *v = sk->slices;
    uint64_t b = run.t_start;
    ck_assert_uint_eq(v[0].frame, F_MOD20);
    ck_assert_uint_eq(v[0].depth, 0);
    ck_assert_uint_eq(v[0].t0 - b, 1000);
    ck_assert_uint_eq(v[0].t1 - b, 1700);
    ck_assert_str_eq(run.frames[v[1].frame].symbol, "Model.forward");
    ck_assert_uint_eq(v[1].t1 - b, 1700);
    ck_assert_str_eq(run.frames[v[2].frame].symbol, "Model.encoder_block");
    ck_assert_uint_eq(v[2].depth, 2);
    ck_assert_uint_eq(v[2].t0 - b, 1000);
    ck_assert_uint_eq(v[2].t1 - b, 1500);
    test_summary_destroy(s);
}
END_TEST

static char *slurp(const char *suffix)
{
    char p[256];
    snprintf(p, sizeof p, "%s/py.%s", dir, suffix);
    FILE *f = fopen(p, "rb");
    ck_assert_msg(f != NULL, "%s missing", p);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *t = malloc((size_t)n + 1);
    ck_assert_uint_eq(fread(t, 1, (size_t)n, f), (size_t)n);
    t[n] = '\0';
    fclose(f);
    return t;
}

static void write_files(cuprof_summary **s)
{
    make_run();
    *s = test_summary_build(&run);
    snprintf(dir, sizeof dir, "/tmp/cuprof-pystacks.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char written[512], err[512];
    ck_assert_int_gt(cuprof_formats_write_all(test_model_of(*s), dir, "py", written, sizeof written,
                                              err, sizeof err), 0);
    ck_assert_str_eq(err, "");
}

static void remove_files(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}

START_TEST(outputs_show_python_frames)
{
    cuprof_summary *s;
    write_files(&s);
    /* the GPU flame graph: outermost first, Python frames with their lines */
    char *g = slurp("gpu.folded"), want[512];
    snprintf(want, sizeof want,
             "main;<module> (app.py:20);Model.forward (app.py:14);Model.encoder_block (app.py:7);"
             "_PyEval_EvalFrameDefault;scale (gpuops.c:12);cudaLaunchKernel;cudaLaunchKernel;kern %u\n",
             K);
    ck_assert_msg(strstr(g, want), "no %s in\n%s", want, g);
    free(g);
    /* summary.txt's sites: Self CUDA, CUDA total, calls by Python line */
    char *t = slurp("summary.txt");
    ck_assert_msg(strstr(t, "Self CUDA") && strstr(t, "CUDA total"), "%s", t);
    ck_assert_msg(strstr(t, "4.000us   26.7%       7.000us         1         1         100ns  "
                            "Model.forward (app.py:14)\n"), "%s", t);
    free(t);
    /* speedscope: file and line of a frame */
    json_error_t je;
    char p[256];
    snprintf(p, sizeof p, "%s/py.speedscope.json", dir);
    json_t *ss = json_load_file(p, 0, &je), *fr;
    ck_assert_ptr_nonnull(ss);
    size_t i;
    int found = 0;
    json_array_foreach(json_object_get(json_object_get(ss, "shared"), "frames"), i, fr)
        if (!strcmp(json_string_value(json_object_get(fr, "name")), "Model.forward (app.py:15)")) {
            ck_assert_str_eq(json_string_value(json_object_get(fr, "file")), "app.py");
            ck_assert_int_eq(json_integer_value(json_object_get(fr, "line")), 15);
            found = 1;
        }
    ck_assert(found);
    json_decref(ss);
    /* summary.json's by_stack: each call's user frames, innermost first */
    snprintf(p, sizeof p, "%s/py.summary.json", dir);
    json_t *sum = json_load_file(p, 0, &je), *r;
    ck_assert_ptr_nonnull(sum);
    json_t *bs = json_object_get(sum, "by_stack");
    ck_assert_uint_eq(json_array_size(bs), 5);
    r = json_array_get(bs, 0);
    ck_assert_str_eq(json_string_value(json_object_get(r, "api")), "cudaLaunchKernel");
    json_t *frames = json_object_get(r, "frames");
    ck_assert_uint_eq(json_array_size(frames), 4);
    ck_assert_str_eq(json_string_value(json_array_get(frames, 0)), "scale (gpuops.c:12)");
    ck_assert_str_eq(json_string_value(json_array_get(frames, 1)), "Model.encoder_block (app.py:7)");
    ck_assert_int_eq(json_integer_value(json_object_get(r, "cuda_total_ns")), K);
    json_t *sites = json_object_get(sum, "sites");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(sites, 0), "site")),
                     "launch_k (k.cu:30)");
    json_decref(sum);
    /* the HTML report's flame graph: the same lines, Python frames in them */
    char *h = slurp("report.html");
    ck_assert_ptr_nonnull(strstr(h, "\\u003cmodule> (app.py:20);Model.forward (app.py:14);"
                                    "Model.encoder_block (app.py:7);"));
    free(h);
    test_summary_destroy(s);
    remove_files();
}
END_TEST

START_TEST(trace_has_python_function_slices)
{
    cuprof_summary *s;
    write_files(&s);
    char p[256];
    snprintf(p, sizeof p, "%s/py.trace.json", dir);
    json_error_t je;
    json_t *tr = json_load_file(p, 0, &je), *ev;
    ck_assert_msg(tr != NULL, "%s", je.text);
    size_t i, n = 0;
    json_array_foreach(json_object_get(tr, "traceEvents"), i, ev) {
        const char *cat = json_string_value(json_object_get(ev, "cat"));
        if (!cat || strcmp(cat, "python_function"))
            continue;
        const char *name = json_string_value(json_object_get(ev, "name"));
        double ts = json_number_value(json_object_get(ev, "ts"));
        double dur = json_number_value(json_object_get(ev, "dur"));
        ck_assert_int_eq(json_integer_value(json_object_get(ev, "tid")), 77);
        ck_assert_str_eq(json_string_value(json_object_get(json_object_get(ev, "args"), "file")),
                         "/src/app.py");
        if (!strcmp(name, "Model.encoder_block")) {
            ck_assert_double_eq_tol(ts, 1.0, 1e-9);
            ck_assert_double_eq_tol(dur, 0.5, 1e-9);
            ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(ev, "args"), "line")), 7);
        }
        else
            ck_assert_double_eq_tol(dur, 0.7, 1e-9);
        n++;
    }
    ck_assert_uint_eq(n, 3);
    /* stackFrames: a Python frame's category is "python" */
    const char *k;
    json_t *node;
    n = 0;
    json_object_foreach(json_object_get(tr, "stackFrames"), k, node)
        if (!strcmp(json_string_value(json_object_get(node, "name")), "Model.forward (app.py:14)")) {
            ck_assert_str_eq(json_string_value(json_object_get(node, "category")), "python");
            n++;
        }
    ck_assert_uint_gt(n, 0);
    json_decref(tr);

    /* Perfetto: forward > encoder_block > the calls, on the thread's track */
    pft t;
    snprintf(p, sizeof p, "%s/py.perfetto-trace", dir);
    ck_assert_msg(pft_load(p, &t) == 0, "%s", t.error);
    const pft_slice *enc = NULL, *fwd = NULL, *mod = NULL;
    size_t calls_inside = 0;
    for (i = 0; i < t.nslices; i++) {
        const pft_slice *x = &t.slices[i];
        if (x->cat && !strcmp(x->cat, "python_function")) {
            if (!strcmp(x->name, "Model.encoder_block")) enc = x;
            if (!strcmp(x->name, "Model.forward")) fwd = x;
            if (!strcmp(x->name, "<module>")) mod = x;
        }
    }
    ck_assert(enc && fwd && mod);
    ck_assert_uint_eq(enc->track, fwd->track);
    ck_assert_uint_eq(mod->t0, fwd->t0);
    ck_assert_uint_eq(fwd->t1 - fwd->t0, 700);
    ck_assert_uint_eq(enc->t1 - enc->t0, 500);
    ck_assert_ptr_nonnull(strstr(enc->args, "line=7\n"));
    for (i = 0; i < t.nslices; i++) {
        const pft_slice *x = &t.slices[i];
        if (x->name && !strcmp(x->name, "cudaLaunchKernel") && x->t0 >= enc->t0 && x->t1 <= enc->t1)
            calls_inside++;
    }
    ck_assert_uint_eq(calls_inside, 3);
    pft_free(&t);
    test_summary_destroy(s);
    remove_files();
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("pystacks");
    TCase *tc = tcase_create("pystacks");
    tcase_add_test(tc, sites_by_python_line);
    tcase_add_test(tc, python_slices_from_consecutive_calls);
    tcase_add_test(tc, outputs_show_python_frames);
    tcase_add_test(tc, trace_has_python_function_slices);
    suite_add_tcase(s, tc);
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
