/*
 * test_e2e_stacks.c - host call stacks end to end on the simulated device
 * (prof.sh --stacks): the flame graphs add up to the run's GPU time to the
 * ns and name the functions that made the calls, with frame pointers or
 * without them (libunwind), deep stacks included; the trace's stackFrames
 * and the speedscope file hold together; libunwind changes nothing for C++
 * code the program loads later.
 */
#include "harness.h"
#include "viewers.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RUN_TIMEOUT_S 120

/* prof.sh on the sim with CUPROF_STACKS=mode; the outputs must be there. */
static e2e_prof profile(const char *const argv[], const char *mode)
{
    char env[64];
    snprintf(env, sizeof env, "CUPROF_STACKS=%s", mode);
    const char *envs[] = {env, NULL};
    e2e_prof p = e2e_profile(1, argv, envs, RUN_TIMEOUT_S);
    ck_assert_msg(p.trace && p.sum && p.txt, "outputs missing; exit %d, stderr:\n%s", p.r.status,
                  p.r.err);
    ck_assert_msg(p.r.status == 0, "exit %d\n%s", p.r.status, p.r.err);
    return p;
}

/* DIR/x.SUFFIX as a string (must exist). */
static char *out_file(const e2e_prof *p, const char *suffix)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/x.%s", p->dir, suffix);
    char *s = e2e_read_file(path, NULL);
    ck_assert_msg(s != NULL, "%s missing", path);
    return s;
}

static json_int_t num(json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

/* Sum of a folded file's values; kernels_only: lines whose leaf is not a
 * "[memcpy ...]"/"[memset]". */
static long long folded_sum(const char *text, int kernels_only)
{
    long long sum = 0;
    for (const char *l = text; *l;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        const char *sp = l + len;
        while (sp > l && sp[-1] != ' ')
            sp--;
        const char *leaf = sp - 1;
        while (leaf > l && leaf[-1] != ';')
            leaf--;
        if (!kernels_only || *leaf != '[')
            sum += atoll(sp);
        l = nl ? nl + 1 : l + len;
    }
    return sum;
}

static long long rows_sum(json_t *sum, const char *section, const char *key)
{
    long long s = 0;
    json_t *r;
    size_t i;
    json_array_foreach(json_object_get(sum, section), i, r)
        s += num(r, key);
    return s;
}

START_TEST(matmul_add_gpu_time_by_stack_adds_up)
{
    const char *args[] = {e2e_path("bench/matmul_add"), "--mode", "eager", NULL};
    e2e_prof p = profile(args, "auto");
    char *gpu = out_file(&p, "gpu.folded"), *cpu = out_file(&p, "cpu.folded");
    long long kernels = rows_sum(p.sum, "kernels", "gpu_total_ns");
    long long copies = rows_sum(p.sum, "copies", "gpu_total_ns");
    json_t *st = json_object_get(p.sum, "stacks");
    ck_assert_ptr_nonnull(st);
    ck_assert_str_eq(json_string_value(json_object_get(st, "mode")), "auto");
    ck_assert_int_gt(kernels, 0);
    /* every kernel, copy and memset, to the ns */
    ck_assert_int_eq(folded_sum(gpu, 1), kernels);
    ck_assert_int_eq(folded_sum(gpu, 0), kernels + copies);
    ck_assert_int_eq(num(st, "gpu_total_ns"), kernels + copies);
    ck_assert_int_eq(folded_sum(cpu, 0), num(st, "cpu_total_ns"));
    /* the functions that made the calls, under main */
    ck_assert_msg(strstr(gpu, ";main;step(work*);gemm(work*, float);cublasGemmEx;nvjet"), "%s", gpu);
    ck_assert_msg(strstr(gpu, ";main;step(work*);launch_bias_add(work*);__device_stub__"), "%s", gpu);
    ck_assert_msg(strstr(gpu, ";void bias_add<__nv_bfloat16>("), "%s", gpu);
    /* the two launch sites hold the kernels' time */
    json_t *sites = json_object_get(p.sum, "sites");
    ck_assert_int_ge(json_array_size(sites), 2);
    long long top2 = 0;
    for (size_t i = 0; i < 2; i++) {
        const char *s = json_string_value(json_object_get(json_array_get(sites, i), "site"));
        ck_assert_msg(!strcmp(s, "gemm(work*, float) (matmul_add)") ||
                          !strcmp(s, "launch_bias_add(work*) (matmul_add)"), "site %s", s);
        top2 += num(json_array_get(sites, i), "gpu_total_ns");
    }
    /* ... all of it but the probe kernel main launches */
    long long probe = 0;
    json_t *k;
    size_t ki;
    json_array_foreach(json_object_get(p.sum, "kernels"), ki, k)
        if (!strncmp(json_string_value(json_object_get(k, "name")), "probe_kernel", 12))
            probe += num(k, "gpu_total_ns");
    ck_assert_int_eq(top2, kernels - probe);
    ck_assert_msg(strstr(p.txt, "Top launch sites") && strstr(p.txt, "gemm(work*, float) (matmul_add)"),
                  "%s", p.txt);
    free(gpu);
    free(cpu);
    e2e_prof_free(&p);
}
END_TEST

/* The trace: each call's sf names a stackFrames node whose parents lead to
 * main; the cuBLAS call's to gemm. */
START_TEST(trace_stack_frames_lead_to_the_caller)
{
    const char *args[] = {e2e_path("bench/matmul_add"), "--mode", "eager", NULL};
    e2e_prof p = profile(args, "auto");
    json_t *frames = json_object_get(p.trace, "stackFrames"), *e;
    ck_assert_ptr_nonnull(frames);
    size_t i, with_sf = 0, gemm_seen = 0;
    json_array_foreach(json_object_get(p.trace, "traceEvents"), i, e) {
        json_t *sf = json_object_get(e, "sf");
        if (!sf)
            continue;
        with_sf++;
        ck_assert_int_gt(json_integer_value(json_object_get(json_object_get(e, "args"), "stack")), 0);
        char id[32];
        snprintf(id, sizeof id, "%lld", (long long)json_integer_value(sf));
        int main_seen = 0, gemm = 0, hops = 0;
        for (json_t *node = json_object_get(frames, id); node && hops < 200; hops++) {
            const char *name = json_string_value(json_object_get(node, "name"));
            main_seen |= !strcmp(name, "main");
            gemm |= !strcmp(name, "gemm(work*, float)");
            json_t *parent = json_object_get(node, "parent");
            node = parent ? json_object_get(frames, json_string_value(parent)) : NULL;
        }
        ck_assert_msg(main_seen, "event %zu: no main among its frames", i);
        if (!strcmp(json_string_value(json_object_get(e, "name")), "cublasGemmEx")) {
            ck_assert(gemm);
            gemm_seen++;
        }
    }
    ck_assert_int_gt(with_sf, 10);
    ck_assert_int_gt(gemm_seen, 0);
    e2e_prof_free(&p);
}
END_TEST

/* speedscope.json: three profiles over shared frames; the GPU one weighs
 * what the folded file does. */
START_TEST(speedscope_file_holds_together)
{
    const char *args[] = {e2e_path("bench/matmul_add"), "--mode", "eager", NULL};
    e2e_prof p = profile(args, "auto");
    char path[4096];
    snprintf(path, sizeof path, "%s/x.speedscope.json", p.dir);
    json_t *ss = e2e_load_json(path);
    ck_assert_ptr_nonnull(ss);
    ck_assert_str_eq(json_string_value(json_object_get(ss, "$schema")),
                     "https://www.speedscope.app/file-format-schema.json");
    size_t nframes = json_array_size(json_object_get(json_object_get(ss, "shared"), "frames"));
    json_t *profiles = json_object_get(ss, "profiles");
    ck_assert_int_eq(json_array_size(profiles), 3);
    json_t *gp = json_array_get(profiles, 0), *s, *w;
    ck_assert_str_eq(json_string_value(json_object_get(gp, "type")), "sampled");
    long long total = 0;
    size_t i, j;
    json_array_foreach(json_object_get(gp, "weights"), i, w)
        total += json_integer_value(w);
    json_array_foreach(json_object_get(gp, "samples"), i, s) {
        json_array_foreach(s, j, w)
            ck_assert_uint_lt((size_t)json_integer_value(w), nframes);
    }
    ck_assert_int_eq(total, num(json_object_get(p.sum, "stacks"), "gpu_total_ns"));
    ck_assert_int_eq(num(gp, "endValue"), total);
    json_decref(ss);
    e2e_prof_free(&p);
}
END_TEST

/* The speedscope file opened in speedscope (npm) in headless Chromium
 * (tests/viewers/speedscope.mjs): it reads the three profiles with the
 * totals the file holds, and its flame graph draws the functions of
 * matmul_add that made the calls. Skipped, with a note, only where Chromium,
 * node or the npm packages are not installed (scripts/deps.sh installs
 * them). */
START_TEST(speedscope_draws_it_in_chromium)
{
    const char *why = viewer_missing();
    if (why) {
        fprintf(stderr, "SKIPPED speedscope in Chromium: %s; scripts/deps.sh installs it\n", why);
        return;
    }
    const char *args[] = {e2e_path("bench/matmul_add"), "--mode", "eager", NULL};
    e2e_prof p = profile(args, "auto");
    char prof[4096], shot[4096];
    snprintf(prof, sizeof prof, "%s/x.speedscope.json", p.dir);
    snprintf(shot, sizeof shot, "%s/x.speedscope.png", p.dir);
    const char *names[] = {"main", "gemm(work*, float)", "launch_bias_add(work*)", NULL};
    e2e_result r;
    json_t *seen = viewer_speedscope(prof, shot, names, &r);
    ck_assert_msg(r.status == 0, "speedscope did not draw it (exit %d):\n%s\n%s", r.status, r.out,
                  r.err);
    ck_assert_int_eq(json_array_size(json_object_get(seen, "missing")), 0);
    ck_assert_int_eq(json_array_size(json_object_get(seen, "errors")), 0);
    ck_assert_int_ge(json_integer_value(json_object_get(seen, "fills")), 4);
    size_t shot_len = 0;
    free(e2e_read_file(shot, &shot_len));
    ck_assert_uint_gt(shot_len, 1000);

    /* Each profile's total as speedscope shows it is the file's sum of
     * weights, to the last digit it shows. */
    json_t *ss = e2e_load_json(prof);
    ck_assert_ptr_nonnull(ss);
    json_t *shown = json_object_get(seen, "profiles"), *fp, *w;
    ck_assert_int_eq(json_array_size(shown), 3);
    size_t i, j;
    json_array_foreach(json_object_get(ss, "profiles"), i, fp) {
        json_t *row = json_array_get(shown, i);
        ck_assert_str_eq(json_string_value(json_object_get(row, "name")),
                         json_string_value(json_object_get(fp, "name")));
        double sum = 0, unit;
        json_array_foreach(json_object_get(fp, "weights"), j, w)
            sum += (double)json_integer_value(w);
        const char *text = json_string_value(json_object_get(row, "total"));
        double v = viewer_shown_value(text, &unit);
        ck_assert_msg(fabs(v - sum) <= unit * 0.51, "%s: speedscope shows %s, the file sums to %.0f",
                      json_string_value(json_object_get(fp, "name")), text, sum);
    }
    /* ... and the GPU one is the run's GPU time in the calls' work. */
    double unit, gpu = viewer_shown_value(
        json_string_value(json_object_get(json_array_get(shown, 0), "total")), &unit);
    ck_assert_double_le(fabs(gpu - (double)num(json_object_get(p.sum, "stacks"), "gpu_total_ns")),
                        unit * 0.51);
    json_decref(ss);
    json_decref(seen);
    e2e_result_free(&r);
    e2e_prof_free(&p);
}
END_TEST

/* The line of file (under the checkout) that holds text (the first one). */
static int src_line(const char *file, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", e2e_top(), file);
    char *src = e2e_read_file(path, NULL);
    ck_assert_ptr_nonnull(src);
    const char *at = strstr(src, text);
    ck_assert_msg(at != NULL, "%s not in %s", text, file);
    int line = 1;
    for (const char *q = src; q < at; q++)
        line += *q == '\n';
    free(src);
    return line;
}

static int prog_line(const char *text)
{
    return src_line("tests/e2e/stacks_prog.c", text);
}

/* A CUDA program built with -g: each <<<>>> launch's site is the line of
 * the launch, past CUDA's header inlines (__cudaLaunchKernel_helper), nvcc's
 * stub and its host function named after the kernel; cuBLAS's at the line of
 * the cuBLAS call. */
START_TEST(cuda_launch_sites_by_line)
{
    const char *args[] = {e2e_bpath("tests/matmul_add_g"), "--mode", "eager", NULL};
    e2e_prof p = profile(args, "auto");
    char bias[128], gemm[128];
    snprintf(bias, sizeof bias, "launch_bias_add(work*) (matmul_add.cu:%d)",
             src_line("bench/matmul_add.cu", "bias_add<<<grid, block, 0, wk->stream>>>((__nv_bfloat16 *)"));
    snprintf(gemm, sizeof gemm, "gemm(work*, float) (matmul_add.cu:");
    json_t *sites = json_object_get(p.sum, "sites"), *x;
    size_t i;
    int seen_bias = 0, seen_gemm = 0;
    json_array_foreach(sites, i, x) {
        const char *s = json_string_value(json_object_get(x, "site"));
        ck_assert_msg(!strstr(s, "__cudaLaunchKernel_helper") && !strstr(s, "__device_stub") &&
                          !strstr(s, "bias_add<") && !strstr(s, "cudafe1"), "glue as a site: %s", s);
        seen_bias |= !strcmp(s, bias) && num(x, "kernels") > 0;
        seen_gemm |= !strncmp(s, gemm, strlen(gemm)) && num(x, "kernels") > 0;
    }
    ck_assert_msg(seen_bias && seen_gemm, "no site %s (or gemm's) in\n%s", bias, p.txt);
    ck_assert_msg(strstr(p.txt, bias), "%s", p.txt);
    e2e_prof_free(&p);
}
END_TEST

/* The same known chain of functions, with and without frame pointers, by
 * each way of taking stacks that must find it; built with -g, each frame
 * with the file:line of its call (DWARF, through libdw). */
static void expect_chain(const char *prog, const char *mode)
{
    const char *args[] = {e2e_bpath(prog), "--depth", "60", NULL};
    e2e_prof p = profile(args, mode);
    char *cpu = out_file(&p, "cpu.folded");
    char want[512];
    snprintf(want, sizeof want,
             ";main (stacks_prog.c:%d);outer_fn (stacks_prog.c:%d);middle_fn (stacks_prog.c:%d);"
             "inner_fn (stacks_prog.c:%d);cudaMemsetAsync ",
             prog_line("rc |= outer_fn(d, s)"), prog_line("int rc = middle_fn(d, s)"),
             prog_line("int rc = inner_fn(d, s)"), prog_line("cudaMemsetAsync(d, 1, 256, s)"));
    ck_assert_msg(strstr(cpu, want), "%s --stacks=%s: no %s in\n%s", prog, mode, want, cpu);
    snprintf(want, sizeof want, ";outer_fn (stacks_prog.c:%d);cudaStreamSynchronize ",
             prog_line("rc += cudaStreamSynchronize(s)"));
    ck_assert_msg(strstr(cpu, want), "no %s in\n%s", want, cpu);
    /* the launch site is the line of the call, in summary.txt and summary.json */
    snprintf(want, sizeof want, "inner_fn (stacks_prog.c:%d)", prog_line("cudaMemsetAsync(d, 1, 256, s)"));
    ck_assert_msg(strstr(p.txt, want), "no site %s in\n%s", want, p.txt);
    /* the memsets' GPU time under that line in the GPU flame graph */
    char *gpu = out_file(&p, "gpu.folded");
    snprintf(want, sizeof want, ";inner_fn (stacks_prog.c:%d);cudaMemsetAsync;[memset] ",
             prog_line("cudaMemsetAsync(d, 1, 256, s)"));
    ck_assert_msg(strstr(gpu, want), "no %s in\n%s", want, gpu);
    free(gpu);
    /* prof.sh stats --group-by-stack 2: the call keyed by its two innermost lines */
    char sum[4200];
    snprintf(sum, sizeof sum, "%s/x.summary.json", p.dir);
    const char *st[] = {e2e_path("prof.sh"), "stats", "--group-by-stack", "2", "--csv", sum, NULL};
    e2e_result r = e2e_run(st, NULL, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(r.status == 0, "%s", r.err);
    const char *row = strstr(r.out, "\ncudaMemsetAsync,3,");
    ck_assert_msg(row != NULL, "%s", r.out);
    long long cpu_ns = 0, cuda_ns = 0;
    char stack[256] = "";
    ck_assert_int_eq(sscanf(row, "\ncudaMemsetAsync,3,%lld,%lld,%255[^\n]", &cpu_ns, &cuda_ns, stack), 3);
    snprintf(want, sizeof want, "inner_fn (stacks_prog.c:%d) <- middle_fn (stacks_prog.c:%d)",
             prog_line("cudaMemsetAsync(d, 1, 256, s)"), prog_line("int rc = inner_fn(d, s)"));
    ck_assert_str_eq(stack, want);
    ck_assert_int_gt(cuda_ns, 0);
    e2e_result_free(&r);
    /* 60 nested calls: at least 55 frames of them (the compiler may fold the
     * last ones together) */
    snprintf(want, sizeof want, ";main (stacks_prog.c:%d);recurse_fn (", prog_line("rc |= recurse_fn(d, depth)"));
    const char *deep = strstr(cpu, want);
    ck_assert_msg(deep != NULL, "no %s in\n%s", want, cpu);
    const char *eol = strchr(deep, '\n');
    int n = 0;
    for (const char *q = deep; q && q < eol && (q = strstr(q, "recurse_fn (stacks_prog.c:")) && q < eol; q++)
        n++;
    ck_assert_msg(n >= 55 && n <= 60, "%d recurse_fn frames", n);
    free(cpu);
    e2e_prof_free(&p);
}

START_TEST(frame_pointers_auto) { expect_chain("tests/stacks_prog_fp", "auto"); }
END_TEST
START_TEST(frame_pointers_fp_only) { expect_chain("tests/stacks_prog_fp", "fp"); }
END_TEST
START_TEST(no_frame_pointers_auto) { expect_chain("tests/stacks_prog_nofp", "auto"); }
END_TEST
START_TEST(no_frame_pointers_unwind) { expect_chain("tests/stacks_prog_nofp", "unwind"); }
END_TEST

/* libunwind is loaded RTLD_LOCAL: C++ code loaded after it still unwinds
 * with libgcc_s, and the library exports none of its symbols. */
START_TEST(cxx_exceptions_keep_their_unwinder)
{
    const char *args[] = {e2e_bpath("tests/stacks_prog_fp"), "--exceptions", "2000",
                          e2e_bpath("tests/libthrow.so"), NULL};
    e2e_prof p = profile(args, "auto");
    ck_assert_msg(strstr(p.r.out, "exceptions 2000 caught"), "%s", p.r.out);
    ck_assert_msg(strstr(p.r.out, "unwinder ") && strstr(p.r.out, "libgcc_s"), "%s", p.r.out);
    e2e_prof_free(&p);

    char cmd[4200];
    snprintf(cmd, sizeof cmd, "nm -D --defined-only %s", e2e_bpath("libcuprof.so"));
    FILE *f = popen(cmd, "r");
    ck_assert_ptr_nonnull(f);
    char line[512];
    int exported = 0;
    while (fgets(line, sizeof line, f)) {
        exported++;
        ck_assert_msg(!strstr(line, "unw_") && !strstr(line, "_Unwind"), "exported: %s", line);
    }
    ck_assert_int_eq(pclose(f), 0);
    ck_assert_int_gt(exported, 10);
}
END_TEST

/* compare on two runs with stacks: the GPU time each launch site gained or
 * lost. Eager's bias_add launches vanish in the fused run (the epilogue). */
START_TEST(compare_shows_sites_side_by_side)
{
    const char *eager[] = {e2e_path("bench/matmul_add"), "--mode", "eager", NULL};
    const char *fused[] = {e2e_path("bench/matmul_add"), "--mode", "fused", NULL};
    e2e_prof a = profile(eager, "auto"), b = profile(fused, "auto");
    char pa[4096], pb[4096];
    snprintf(pa, sizeof pa, "%s/x.summary.json", a.dir);
    snprintf(pb, sizeof pb, "%s/x.summary.json", b.dir);
    const char *args[] = {e2e_path("prof.sh"), "compare", "--json", pa, pb, NULL};
    e2e_result r = e2e_run(args, NULL, NULL, 60);
    ck_assert_msg(r.status == 0, "%s", r.err);
    json_error_t err;
    json_t *doc = json_loads(r.out, 0, &err), *x;
    ck_assert_msg(doc != NULL, "%s", err.text);
    size_t i;
    int seen = 0;
    json_array_foreach(json_object_get(doc, "sites"), i, x) {
        if (strcmp(json_string_value(json_object_get(x, "site")), "launch_bias_add(work*) (matmul_add)"))
            continue;
        json_t *v = json_object_get(json_object_get(x, "gpu_total_ns"), "values");
        json_t *site_a = NULL, *row;
        size_t j;
        json_array_foreach(json_object_get(a.sum, "sites"), j, row)
            if (!strcmp(json_string_value(json_object_get(row, "site")),
                        "launch_bias_add(work*) (matmul_add)"))
                site_a = row;
        ck_assert_ptr_nonnull(site_a);
        ck_assert_int_eq(json_integer_value(json_array_get(v, 0)), num(site_a, "gpu_total_ns"));
        ck_assert_int_eq(json_integer_value(json_array_get(v, 1)), 0);
        seen = 1;
    }
    ck_assert(seen);
    json_decref(doc);
    e2e_result_free(&r);
    const char *targs[] = {e2e_path("prof.sh"), "compare", pa, pb, NULL};
    r = e2e_run(targs, NULL, NULL, 60);
    ck_assert_msg(strstr(r.out, "Launch sites (--stacks)"), "%s", r.out);
    e2e_result_free(&r);
    e2e_prof_free(&a);
    e2e_prof_free(&b);
}
END_TEST

/* prof.sh checks the option before anything runs. */
/* Runs a shell command; its exit status. */
static int sh(const char *cmd)
{
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    e2e_result r = e2e_run(argv, NULL, NULL, 60);
    int st = r.status;
    if (st)
        fprintf(stderr, "%s: %s\n", cmd, r.err);
    e2e_result_free(&r);
    return st;
}

/* The debug information may live apart (objcopy --only-keep-debug and a
 * .gnu_debuglink, as Debian's -dbgsym packages do by build id); and the
 * report checks the build id: an object rebuilt since the run gets no
 * file:line (its lines would be another build's), only its functions. */
START_TEST(debug_info_apart_and_build_id_checked)
{
    char *tmp = e2e_tmpdir(), cmd[16384];
    snprintf(cmd, sizeof cmd,
             "cd %s && cp %s prog && objcopy --only-keep-debug prog prog.debug && strip -g prog && "
             "objcopy --add-gnu-debuglink=prog.debug prog && ! readelf -S prog | grep -q debug_line",
             tmp, e2e_bpath("tests/stacks_prog_fp"));
    if (sh(cmd) != 0) {
        fprintf(stderr, "SKIPPED debug info apart: objcopy/strip/readelf (binutils) did not do it\n");
        e2e_rmtree(tmp);
        free(tmp);
        return;
    }
    char prog[4200], want[256];
    snprintf(prog, sizeof prog, "%s/prog", tmp);
    const char *args[] = {prog, NULL};
    e2e_prof p = profile(args, "fp");
    char *cpu = out_file(&p, "cpu.folded");
    snprintf(want, sizeof want, ";inner_fn (stacks_prog.c:%d);cudaMemsetAsync ",
             prog_line("cudaMemsetAsync(d, 1, 256, s)"));
    ck_assert_msg(strstr(cpu, want), "no %s in\n%s", want, cpu);
    free(cpu);
    /* the same path, another build: the run file's build id is not its */
    snprintf(cmd, sizeof cmd, "cp %s %s/prog && %s report -o %s/again -n y %s/x.cuprof",
             e2e_bpath("tests/stacks_prog_nofp"), tmp, e2e_path("prof.sh"), p.dir, p.dir);
    ck_assert_int_eq(sh(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/again/y.cpu.folded", p.dir);
    cpu = e2e_read_file(cmd, NULL);
    ck_assert_ptr_nonnull(cpu);
    ck_assert_msg(strstr(cpu, ";outer_fn;middle_fn;inner_fn;cudaMemsetAsync ") &&
                      !strstr(cpu, "stacks_prog.c:"), "%s", cpu);
    free(cpu);
    e2e_prof_free(&p);
    e2e_rmtree(tmp);
    free(tmp);
}
END_TEST

/* prof.sh compare names the sites by source line when the runs have one */
START_TEST(compare_shows_sites_by_line)
{
    const char *one[] = {e2e_bpath("tests/stacks_prog_fp"), "--depth", "3", NULL};
    const char *two[] = {e2e_bpath("tests/stacks_prog_fp"), "--depth", "5", NULL};
    e2e_prof a = profile(one, "auto"), b = profile(two, "auto");
    char pa[4096], pb[4096], want[256];
    snprintf(pa, sizeof pa, "%s/x.summary.json", a.dir);
    snprintf(pb, sizeof pb, "%s/x.summary.json", b.dir);
    const char *args[] = {e2e_path("prof.sh"), "compare", pa, pb, NULL};
    e2e_result r = e2e_run(args, NULL, NULL, 60);
    ck_assert_msg(r.status == 0, "%s", r.err);
    snprintf(want, sizeof want, "inner_fn (stacks_prog.c:%d)", prog_line("cudaMemsetAsync(d, 1, 256, s)"));
    const char *sites = strstr(r.out, "Launch sites (--stacks)");
    ck_assert_msg(sites && strstr(sites, want), "no %s in\n%s", want, r.out);
    /* -O2 makes the innermost cudaMemset a tail call: its return address,
     * and so the site, is the recursive call's line (else the memset's) */
    char alt[256];
    snprintf(want, sizeof want, "recurse_fn (stacks_prog.c:%d)", prog_line("int rc = recurse_fn(d, n - 1)"));
    snprintf(alt, sizeof alt, "recurse_fn (stacks_prog.c:%d)", prog_line("return cudaMemset(d, 2, 64)"));
    ck_assert_msg(strstr(sites, want) || strstr(sites, alt), "no %s in\n%s", want, r.out);
    e2e_result_free(&r);
    e2e_prof_free(&a);
    e2e_prof_free(&b);
}
END_TEST

START_TEST(profsh_refuses_a_bad_mode)
{
    const char *args[] = {e2e_path("prof.sh"), "--stacks=frames", "true", NULL};
    e2e_result r = e2e_run(args, NULL, NULL, 30);
    ck_assert_int_eq(r.status, 2);
    ck_assert_msg(strstr(r.err, "cuprof: --stacks=frames: expected auto, fp or unwind"), "%s", r.err);
    e2e_result_free(&r);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("e2e_stacks");
    TCase *tc = tcase_create("stacks");
    tcase_set_timeout(tc, 3 * RUN_TIMEOUT_S);
    tcase_add_test(tc, matmul_add_gpu_time_by_stack_adds_up);
    tcase_add_test(tc, trace_stack_frames_lead_to_the_caller);
    tcase_add_test(tc, speedscope_file_holds_together);
    tcase_add_test(tc, speedscope_draws_it_in_chromium);
    tcase_add_test(tc, frame_pointers_auto);
    tcase_add_test(tc, frame_pointers_fp_only);
    tcase_add_test(tc, no_frame_pointers_auto);
    tcase_add_test(tc, no_frame_pointers_unwind);
    tcase_add_test(tc, cxx_exceptions_keep_their_unwinder);
    tcase_add_test(tc, compare_shows_sites_side_by_side);
    tcase_add_test(tc, compare_shows_sites_by_line);
    tcase_add_test(tc, cuda_launch_sites_by_line);
    tcase_add_test(tc, debug_info_apart_and_build_id_checked);
    tcase_add_test(tc, profsh_refuses_a_bad_mode);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
