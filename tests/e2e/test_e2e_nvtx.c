/*
 * test_e2e_nvtx.c - NVTX ranges end to end on the simulated device: prof.sh
 * points NVTX_INJECTION64_PATH at the library, the program's own NVTX
 * headers load it, and the ranges reach the table, summary.json and the
 * trace, with the GPU work launched inside each; the steps; the capture
 * windows (--capture-range, --delay/--duration) keep exactly what ran
 * inside them.
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

/* Device time, in ns, of the trace's kernels whose args.range is name: the
 * slice's "dur" (us with 3 decimals: exact ns), or its args.recorded_dur_ns
 * where the row moved the slice (records that touch or overlap by rounding:
 * formats/gpu_rows.h; reading "dur" alone, this test failed once by 5 ns). */
static long long kernel_ns_in(json_t *trace, const char *name, int *count)
{
    long long sum = 0;
    json_t *evs = json_object_get(trace, "traceEvents"), *e;
    size_t i;
    json_array_foreach(evs, i, e) {
        const char *cat = json_string_value(json_object_get(e, "cat"));
        const char *r = json_string_value(json_object_get(json_object_get(e, "args"), "range"));
        if (cat && !strcmp(cat, "kernel") && r && !strcmp(r, name)) {
            json_t *rec = json_object_get(json_object_get(e, "args"), "recorded_dur_ns");
            sum += rec ? json_integer_value(rec) : llround(json_number_value(json_object_get(e, "dur")) * 1000.0);
            (*count)++;
        }
    }
    return sum;
}

/* NVTX's payload extension: a program's schema, enum and payloads decoded
 * into the text of each range's and mark's payload, in the trace; the
 * ranges counted as any others. */
START_TEST(payload_ranges_carry_their_text)
{
    const char *args[] = {e2e_bpath("tests/nvtx_prog"), "payload", NULL};
    prof_run p = profile(args, NULL);
    ck_assert_int_eq(p.r.status, 3);
    json_t *step = range_row(p.sum, "step", "train");
    ck_assert_ptr_nonnull(step);
    ck_assert_int_eq(num(step, "calls"), 3);
    static const char *const want[] = {
        "Iteration: 0, Loss: 0.5, Phase: forward, Model: mlp",
        "Iteration: 1, Loss: 0.25, Phase: backward, Model: mlp",
        "Iteration: 2, Loss: 0.166667, Phase: forward, Model: mlp"};
    int steps = 0, marks = 0;
    json_t *evs = json_object_get(p.trace, "traceEvents"), *e;
    size_t i;
    json_array_foreach(evs, i, e) {
        const char *name = json_string_value(json_object_get(e, "name"));
        const char *pl = json_string_value(json_object_get(json_object_get(e, "args"), "payload"));
        if (name && !strcmp(name, "step")) {
            ck_assert_int_lt(steps, 3);
            ck_assert_msg(pl && !strcmp(pl, want[steps]), "step %d: %s", steps, pl ? pl : "(none)");
            steps++;
        } else if (name && !strcmp(name, "checkpoint")) {
            ck_assert_msg(pl && !strcmp(pl, want[2]), "mark: %s", pl ? pl : "(none)");
            marks++;
        }
    }
    ck_assert_int_eq(steps, 3);
    ck_assert_int_eq(marks, 1);
    e2e_prof_free(&p);
}
END_TEST

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
    /* the steps, found by their name: one row and one entry per step whose
     * GPU time adds up to the range's */
    json_t *st = json_array_get(json_object_get(p.sum, "steps"), 0);
    ck_assert_ptr_nonnull(st);
    ck_assert_int_eq(num(st, "steps"), 7);
    ck_assert_str_eq(json_string_value(json_object_get(st, "chosen_by")), "its name");
    json_t *list = json_object_get(p.sum, "step_list");
    ck_assert_uint_eq(json_array_size(list), 7);
    long long gpu = 0;
    json_array_foreach(list, i, e)
        gpu += num(e, "gpu_ns");
    ck_assert_int_eq(gpu, num(step, "gpu_total_ns"));
    ck_assert_int_eq(num(json_array_get(list, 0), "dur_ns"), num(st, "first_ns"));
    ck_assert_ptr_nonnull(strstr(p.txt, "Steps (NVTX range step, chosen by its name): 7 steps"));
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

/* The api[] row of name, or NULL. */
static json_t *row_named(json_t *sum, const char *section, const char *name)
{
    json_t *rows = json_object_get(sum, section), *r;
    size_t i;
    json_array_foreach(rows, i, r) {
        const char *n = json_string_value(json_object_get(r, "name"));
        if (!n)
            n = json_string_value(json_object_get(r, "kind"));
        if (n && !strcmp(n, name))
            return r;
    }
    return NULL;
}

/* Kernel launches in summary.json (all kernels). */
static long long launches(json_t *sum)
{
    long long n = 0;
    json_t *r;
    size_t i;
    json_array_foreach(json_object_get(sum, "kernels"), i, r)
        n += num(r, "launches");
    return n;
}

START_TEST(nvtx_capture_keeps_exactly_the_window_s_steps)
{
    const char *args[] = {"--capture-range", "nvtx:step", "--skip-first", "2", "--steps", "3",
                          e2e_path("bench/matmul_add"), "--mode", "eager", "--nvtx", "--iters",
                          "5", "--warmup", "2", NULL};
    prof_run p = profile(args, NULL);
    ck_assert_msg(p.r.status == 0, "exit %d\n%s", p.r.status, p.r.err);
    /* steps 3..5 of 7: one GEMM and one bias_add each, nothing from outside
     * (the set-up's probe kernel, the warm-up steps, the final sync) */
    ck_assert_int_eq(launches(p.sum), 6);
    ck_assert_int_eq(num(row_named(p.sum, "api", "cublasGemmEx"), "calls"), 3);
    ck_assert_ptr_null(row_named(p.sum, "api", "cudaMalloc"));
    ck_assert_ptr_null(row_named(p.sum, "api", "cudaEventSynchronize"));
    ck_assert_int_eq(num(range_row(p.sum, "step", ""), "calls"), 3);
    json_t *cap = json_object_get(p.sum, "capture");
    ck_assert_ptr_nonnull(cap);
    ck_assert_int_eq(num(cap, "windows"), 3);
    ck_assert_int_eq(num(cap, "seen"), 5);
    ck_assert(json_is_true(json_object_get(cap, "opened")));
    ck_assert_uint_eq(json_array_size(json_object_get(cap, "spans")), 3);
    /* the steps are the capture range's */
    json_t *st = json_array_get(json_object_get(p.sum, "steps"), 0);
    ck_assert_ptr_nonnull(st);
    ck_assert_int_eq(num(st, "steps"), 3);
    ck_assert_str_eq(json_string_value(json_object_get(st, "chosen_by")), "the capture range");
    /* the files say which window was captured */
    ck_assert_ptr_nonnull(strstr(p.txt, "capture:       nvtx:step, end repeat:3, skip first 2: 3 windows"));
    int windows = 0;
    json_t *e;
    size_t i;
    json_array_foreach(json_object_get(p.trace, "traceEvents"), i, e) {
        const char *cat = json_string_value(json_object_get(e, "cat"));
        windows += cat && !strcmp(cat, "capture");
    }
    ck_assert_int_eq(windows, 3);
    e2e_prof_free(&p);
}
END_TEST

/* nvtx_prog steps 8: step i memsets (i + 1) * 256 bytes twice; profiler
 * start before step 3, stop after step 4. */
START_TEST(profiler_api_capture_keeps_what_is_between_start_and_stop)
{
    /* _i = 1: --gpu kernels (no API records: the memsets' records are told
     * apart by the calls they were matched to, model/kmatch.h; the sim's
     * device runs the early steps' memsets late, inside the window) */
    const char *args[] = {"--gpu", _i ? "kernels" : "all", "--capture-range", "cudaProfilerApi",
                          e2e_bpath("tests/nvtx_prog"), "steps", "8", NULL};
    prof_run p = profile(args, NULL);
    ck_assert_msg(p.r.status == 3, "exit %d (the program's own is 3)\n%s", p.r.status, p.r.err);
    json_t *ms = row_named(p.sum, "copies", "memset");
    ck_assert_ptr_nonnull(ms);
    ck_assert_int_eq(num(ms, "calls"), 4);
    ck_assert_int_eq(num(ms, "bytes"), 2 * 4 * 256 + 2 * 5 * 256);
    ck_assert_int_eq(num(ms, "gpu_copies"), 4);   /* the device records outside are dropped */
    ck_assert_int_eq(num(row_named(p.sum, "api", "cudaProfilerStart"), "calls"), 1);
    ck_assert_int_eq(num(row_named(p.sum, "api", "cudaProfilerStop"), "calls"), 1);
    ck_assert_ptr_null(row_named(p.sum, "api", "cudaMalloc"));
    ck_assert_int_eq(num(json_object_get(p.sum, "capture"), "windows"), 1);
    /* the memory held when the window opened: nvtx_prog's one cudaMalloc of
     * 8 * 256 + 256 bytes, made before it (issue 33: the section said 0) */
    json_t *mem = json_object_get(p.sum, "memory");
    ck_assert_int_eq(num(mem, "held_at_open_bytes"), 8 * 256 + 256);
    ck_assert_int_eq(num(mem, "held_at_open_allocations"), 1);
    ck_assert_int_eq(num(mem, "peak_bytes"), 8 * 256 + 256);
    ck_assert_int_eq(num(mem, "allocations"), 0);
    ck_assert_ptr_nonnull(strstr(p.txt, "  at the window: 2.25 KiB held when it opened, in 1 allocation made before it"));
    /* the overhead is measured as in any run (issue 33: "not measured" when
     * the process's first call came before the window) */
    ck_assert_int_gt(num(json_object_get(p.sum, "overhead"), "per_call_ns"), 0);
    ck_assert_ptr_null(strstr(p.txt, "overhead not measured"));
    e2e_prof_free(&p);
}
END_TEST

/* A range around calls no hook sees (cudaGraphLaunch, CUPTI's records only)
 * holds the device time of what they did, as a range around hooked calls
 * does (issue 33): 4 replays of a graph's 1 KiB memset. */
START_TEST(range_around_cupti_only_calls_gets_their_gpu_time)
{
    const char *args[] = {e2e_bpath("tests/nvtx_prog"), "graph", "4", NULL};
    prof_run p = profile(args, NULL);
    ck_assert_msg(p.r.status == 3, "exit %d\n%s", p.r.status, p.r.err);
    json_t *r = range_row(p.sum, "replay", "");
    ck_assert_ptr_nonnull(r);
    json_t *ms = row_named(p.sum, "copies", "memset");
    ck_assert_ptr_nonnull(ms);
    ck_assert_int_gt(num(ms, "gpu_total_ns"), 0);
    ck_assert_int_eq(num(r, "gpu_total_ns"), num(ms, "gpu_total_ns"));
    e2e_prof_free(&p);
}
END_TEST

/* PyTorch numbers its steps (ProfilerStep#N): the name matches them all,
 * and the steps carry the name without the number. */
START_TEST(numbered_steps_match_their_name)
{
    const char *args[] = {"--capture-range", "nvtx:ProfilerStep", "--skip-first", "2",
                          "--capture-range-end", "repeat:3", e2e_bpath("tests/nvtx_prog"),
                          "steps", "8", NULL};
    prof_run p = profile(args, NULL);
    ck_assert_int_eq(p.r.status, 3);
    json_t *ms = row_named(p.sum, "copies", "memset");
    ck_assert_ptr_nonnull(ms);
    ck_assert_int_eq(num(ms, "calls"), 6);
    ck_assert_int_eq(num(ms, "bytes"), 2 * 256 * (3 + 4 + 5));
    json_t *st = json_array_get(json_object_get(p.sum, "steps"), 0);
    ck_assert_ptr_nonnull(st);
    ck_assert_str_eq(json_string_value(json_object_get(st, "name")), "ProfilerStep");
    ck_assert_int_eq(num(st, "steps"), 3);
    ck_assert_uint_eq(json_array_size(json_object_get(p.sum, "step_list")), 3);
    e2e_prof_free(&p);
}
END_TEST

/* --step-range names the steps: any range, at any level, in its domain. */
START_TEST(step_range_option_chooses_the_steps)
{
    const char *args[] = {"--step-range", "worker", e2e_bpath("tests/nvtx_prog"), NULL};
    prof_run p = profile(args, NULL);
    ck_assert_int_eq(p.r.status, 3);
    json_t *st = json_array_get(json_object_get(p.sum, "steps"), 0);
    ck_assert_ptr_nonnull(st);
    ck_assert_str_eq(json_string_value(json_object_get(st, "name")), "worker");
    ck_assert_str_eq(json_string_value(json_object_get(st, "chosen_by")), "--step-range");
    ck_assert_int_eq(num(st, "steps"), 3);
    e2e_prof_free(&p);
    /* in another domain it is not there: no steps */
    const char *args2[] = {"--step-range", "worker@mydomain", e2e_bpath("tests/nvtx_prog"), NULL};
    p = profile(args2, NULL);
    ck_assert_uint_eq(json_array_size(json_object_get(p.sum, "steps")), 0);
    e2e_prof_free(&p);
}
END_TEST

START_TEST(a_window_that_never_opens_is_reported)
{
    const char *args[] = {"--capture-range", "nvtx:nothing", e2e_bpath("tests/nvtx_prog"), "steps",
                          "4", NULL};
    prof_run p = profile(args, NULL);
    ck_assert_int_eq(p.r.status, 3);   /* the program's own */
    ck_assert_ptr_nonnull(strstr(p.r.out, "nvtx_prog steps done"));
    ck_assert_int_eq(e2e_count(p.r.err, "cuprof: the capture window never opened"), 1);
    json_t *cap = json_object_get(p.sum, "capture");
    ck_assert(json_is_false(json_object_get(cap, "opened")));
    ck_assert_int_eq(num(cap, "windows"), 0);
    ck_assert_uint_eq(json_array_size(json_object_get(p.sum, "api")), 0);
    ck_assert_ptr_nonnull(strstr(p.txt, "CAPTURE WINDOW NEVER OPENED"));
    e2e_prof_free(&p);
}
END_TEST

/* --delay/--duration: a memset every ms for 400 ms, the window from 100 to
 * 200 ms: some are recorded, not all, and every recorded one began inside
 * the window the trace shows. */
START_TEST(timed_window_records_only_inside_it)
{
    const char *args[] = {"--delay", "0.1", "--duration", "0.1", e2e_bpath("tests/nvtx_prog"),
                          "timed", "400", NULL};
    prof_run p = profile(args, NULL);
    ck_assert_int_eq(p.r.status, 3);
    json_t *ms = row_named(p.sum, "copies", "memset");
    ck_assert_ptr_nonnull(ms);
    ck_assert_int_gt(num(ms, "calls"), 0);
    ck_assert_int_lt(num(ms, "calls"), 400);
    json_t *span = json_array_get(json_object_get(json_object_get(p.sum, "capture"), "spans"), 0);
    ck_assert_ptr_nonnull(span);
    /* the spans are on the run's clock, the trace's ts from its base */
    double base = (double)json_integer_value(json_object_get(p.trace, "baseTimeNanoseconds"));
    ck_assert_double_gt(base, 0);
    double lo = ((double)json_integer_value(json_array_get(span, 0)) - base) / 1000.0;
    double hi = ((double)json_integer_value(json_array_get(span, 1)) - base) / 1000.0;
    ck_assert_double_gt(hi - lo, 90000.0);   /* us: 0.1 s, give or take the timer */
    int inside = 0;
    json_t *e;
    size_t i;
    json_array_foreach(json_object_get(p.trace, "traceEvents"), i, e) {
        const char *nm = json_string_value(json_object_get(e, "name"));
        const char *ph = json_string_value(json_object_get(e, "ph"));
        if (!nm || !ph || strcmp(nm, "cudaMemset") != 0 || strcmp(ph, "X") != 0)
            continue;
        double ts = json_number_value(json_object_get(e, "ts"));
        ck_assert_msg(ts >= lo - 1.0 && ts <= hi + 1.0, "memset at %.3f outside [%.3f, %.3f]", ts,
                      lo, hi);
        inside++;
    }
    ck_assert_int_eq(inside, num(ms, "calls"));
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
    tcase_add_test(tc, payload_ranges_carry_their_text);
    tcase_add_test(tc, every_kind_of_range_is_captured);
    tcase_add_test(tc, a_program_s_own_nvtx_tool_is_kept);
    tcase_add_test(tc, nvtx_capture_keeps_exactly_the_window_s_steps);
    tcase_add_loop_test(tc, profiler_api_capture_keeps_what_is_between_start_and_stop, 0, 2);
    tcase_add_test(tc, numbered_steps_match_their_name);
    tcase_add_test(tc, range_around_cupti_only_calls_gets_their_gpu_time);
    tcase_add_test(tc, step_range_option_chooses_the_steps);
    tcase_add_test(tc, a_window_that_never_opens_is_reported);
    tcase_add_test(tc, timed_window_records_only_inside_it);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
