/*
 * test_e2e_viewers.c - the demo's trace.json files (matmul_add eager,
 * addmm, fused at sizes 64 and 4096) opened in the viewers people use:
 *  - speedscope (npm) in headless Chromium: imported with no warning or
 *    error (speedscope reports slices that do not nest, which large absolute
 *    timestamps and touching slices used to cause), one profile per CPU
 *    thread and GPU stream, each GPU stream's total the sum of its slices;
 *  - the trace engine of Chrome DevTools' Performance panel (npm, in node):
 *    an arrow for every GPU record, from its launching call to its start.
 * Each is skipped, with a note, only where node, Chromium or the npm
 * packages are not installed.
 */
#include "harness.h"
#include "viewers.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RUN_TIMEOUT_S 180

/* speedscope: imported with no warning, one profile per CPU thread and GPU
 * stream, each stream's total the sum of its slices. */
static void check_speedscope(const e2e_prof *pp)
{
    const e2e_prof p = *pp;
    char trace[4096], shot[4096];
    snprintf(trace, sizeof trace, "%s/x.trace.json", p.dir);
    snprintf(shot, sizeof shot, "%s/x.trace.png", p.dir);
    e2e_result r;
    json_t *seen = viewer_speedscope(trace, shot, NULL, &r);
    ck_assert_msg(r.status == 0, "speedscope: exit %d\n%s", r.status, r.out);
    json_t *w = json_object_get(seen, "warnings"), *e = json_object_get(seen, "errors");
    ck_assert_msg(json_array_size(w) == 0, "%zu warnings, the first: %s", json_array_size(w),
                  json_string_value(json_array_get(w, 0)));
    ck_assert_msg(json_array_size(e) == 0, "%zu errors, the first: %s", json_array_size(e),
                  json_string_value(json_array_get(e, 0)));

    /* the GPU streams' sums of slice durations, from the file */
    double stream_ns[64] = {0};
    int stream_id[64], nstreams = 0;
    size_t i;
    json_t *ev;
    json_array_foreach(json_object_get(p.trace, "traceEvents"), i, ev) {
        if (strcmp(json_string_value(json_object_get(ev, "ph")), "X") != 0 ||
            json_integer_value(json_object_get(ev, "pid")) < (1ll << 30))
            continue;
        int tid = (int)json_integer_value(json_object_get(ev, "tid")), k = 0;
        while (k < nstreams && stream_id[k] != tid)
            k++;
        if (k == nstreams && nstreams < 64)
            stream_id[nstreams++] = tid;
        stream_ns[k] += json_number_value(json_object_get(ev, "dur")) * 1000.0;
    }
    int main_seen = 0, streams_seen = 0;
    json_t *prof;
    json_array_foreach(json_object_get(seen, "profiles"), i, prof) {
        const char *name = json_string_value(json_object_get(prof, "name"));
        main_seen += strstr(name, "(main)") != NULL;
        /* "GPU 0 (pid P), stream 13 (overlap) (tid T)": the row is T (an
         * overlap row's tid is not its stream's id) */
        const char *st = strstr(name, "stream "), *tp = strstr(name, "(tid ");
        if (!st)
            continue;
        ck_assert_msg(tp != NULL, "speedscope's %s names no tid", name);
        int id = atoi(tp + 5), k = 0;
        while (k < nstreams && stream_id[k] != id)
            k++;
        ck_assert_msg(k < nstreams, "speedscope shows %s, not in the trace", name);
        double unit, v = viewer_shown_value(json_string_value(json_object_get(prof, "total")), &unit);
        ck_assert_msg(fabs(v - stream_ns[k]) <= unit * 0.51, "%s: speedscope %s, the trace %.0f ns",
                      name, json_string_value(json_object_get(prof, "total")), stream_ns[k]);
        streams_seen++;
    }
    ck_assert_int_eq(main_seen, 1);
    ck_assert_int_eq(streams_seen, nstreams);
    json_decref(seen);
    e2e_result_free(&r);
}

static int64_t ts_ns(json_t *ts)
{
    return llround(json_number_value(ts) * 1000.0);
}

/* Is (pid, tid, t) inside a call that launches work (a runtime or cuBLAS
 * call, not a wait) on the CPU rows of the trace? */
static int inside_launching_call(json_t *trace, int64_t pid, int64_t tid, int64_t t)
{
    size_t i;
    json_t *ev;
    json_array_foreach(json_object_get(trace, "traceEvents"), i, ev) {
        const char *cat = json_string_value(json_object_get(ev, "cat"));
        if (strcmp(json_string_value(json_object_get(ev, "ph")), "X") != 0 || !cat ||
            (strcmp(cat, "cuda_runtime") && strcmp(cat, "cublas") && strcmp(cat, "cublaslt")) ||
            json_integer_value(json_object_get(ev, "pid")) != pid ||
            json_integer_value(json_object_get(ev, "tid")) != tid)
            continue;
        int64_t t0 = ts_ns(json_object_get(ev, "ts"));
        if (t0 <= t && t <= t0 + ts_ns(json_object_get(ev, "dur")))
            return 1;
    }
    return 0;
}

/* The DevTools trace engine: one arrow per GPU record (each kernel, copy
 * and memset of these runs was launched by a call the trace shows), from
 * inside its launching call on the CPU row to the record's start on its
 * stream's row, and the records drawn on those rows. */
static void check_devtools(const e2e_prof *p)
{
    char trace[4096];
    snprintf(trace, sizeof trace, "%s/x.trace.json", p->dir);
    e2e_result r;
    json_t *seen = viewer_devtools(trace, &r);
    ck_assert_msg(r.status == 0, "devtools.mjs: exit %d\n%s", r.status, r.out);
    json_t *evs = json_object_get(p->trace, "traceEvents");
    ck_assert_int_eq(json_integer_value(json_object_get(seen, "events")), json_array_size(evs));

    /* the GPU records, and how many arrows arrive at each */
    size_t ngpu = 0, i;
    json_t *ev;
    json_array_foreach(evs, i, ev)
        ngpu += !strcmp(json_string_value(json_object_get(ev, "ph")), "X") &&
                json_integer_value(json_object_get(ev, "pid")) >= (1ll << 30);
    ck_assert_msg(ngpu > 0, "no GPU records in the trace");
    int *arrived = calloc(json_array_size(evs), sizeof *arrived);
    ck_assert_ptr_nonnull(arrived);

    json_t *flows = json_object_get(seen, "flows"), *flow;
    ck_assert_msg(json_array_size(flows) == ngpu, "DevTools binds %zu arrows; the trace has %zu GPU records",
                  json_array_size(flows), ngpu);
    json_array_foreach(flows, i, flow) {
        ck_assert_int_eq(json_array_size(flow), 2);
        json_t *from = json_array_get(flow, 0), *to = json_array_get(flow, 1);
        int64_t fpid = json_integer_value(json_object_get(from, "pid"));
        int64_t ftid = json_integer_value(json_object_get(from, "tid"));
        int64_t tpid = json_integer_value(json_object_get(to, "pid"));
        int64_t ttid = json_integer_value(json_object_get(to, "tid"));
        int64_t tts = ts_ns(json_object_get(to, "ts"));
        ck_assert_msg(fpid < (1ll << 30) && tpid >= (1ll << 30), "arrow %zu: from pid %lld to pid %lld",
                      i, (long long)fpid, (long long)tpid);
        ck_assert_msg(inside_launching_call(p->trace, fpid, ftid, ts_ns(json_object_get(from, "ts"))),
                      "arrow %zu leaves from no launching call (tid %lld ts %.3f)", i, (long long)ftid,
                      json_number_value(json_object_get(from, "ts")));
        size_t k, hits = 0;
        json_t *g;
        json_array_foreach(evs, k, g) {
            if (!strcmp(json_string_value(json_object_get(g, "ph")), "X") &&
                json_integer_value(json_object_get(g, "pid")) == tpid &&
                json_integer_value(json_object_get(g, "tid")) == ttid &&
                ts_ns(json_object_get(g, "ts")) == tts) {
                arrived[k]++;
                hits++;
            }
        }
        ck_assert_msg(hits == 1, "arrow %zu arrives at %zu GPU records (stream %lld ts %.3f)", i, hits,
                      (long long)ttid, json_number_value(json_object_get(to, "ts")));
    }
    json_array_foreach(evs, i, ev)
        if (!strcmp(json_string_value(json_object_get(ev, "ph")), "X") &&
            json_integer_value(json_object_get(ev, "pid")) >= (1ll << 30))
            ck_assert_msg(arrived[i] == 1, "%s at %.3f: %d arrows arrive",
                          json_string_value(json_object_get(ev, "name")),
                          json_number_value(json_object_get(ev, "ts")), arrived[i]);
    free(arrived);

    /* the rows DevTools draws: the GPU records as slices on their rows (the
     * arrows' instants are drawn there too, and are not counted) */
    size_t drawn = 0;
    json_t *th;
    json_array_foreach(json_object_get(seen, "threads"), i, th)
        if (json_integer_value(json_object_get(th, "pid")) >= (1ll << 30))
            drawn += (size_t)json_integer_value(json_object_get(th, "slices"));
    ck_assert_msg(drawn == ngpu, "DevTools draws %zu slices on GPU rows; the trace has %zu records",
                  drawn, ngpu);
    json_decref(seen);
    e2e_result_free(&r);
}

/* The demo's runs, each trace.json in every viewer that can run here. */
START_TEST(demo_traces_in_viewers)
{
    const char *no_speedscope = viewer_missing(), *no_devtools = devtools_missing();
    if (no_speedscope)
        fprintf(stderr, "SKIPPED trace.json in speedscope: %s; scripts/deps.sh installs it\n",
                no_speedscope);
    if (no_devtools)
        fprintf(stderr, "SKIPPED trace.json in the DevTools trace engine: %s; scripts/deps.sh installs it\n",
                no_devtools);
    if (no_speedscope && no_devtools)
        return;
    static const char *const modes[] = {"eager", "addmm", "fused"};
    static const char *const sizes[] = {"64", "4096"};
    const char *args[] = {e2e_path("bench/matmul_add"), "--mode", modes[_i % 3], "--size",
                          sizes[_i / 3], "--dtype", "bf16", "--iters", "20", "--warmup", "2", NULL};
    e2e_prof p = e2e_profile(1, args, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(p.r.status == 0 && p.trace, "exit %d\n%s", p.r.status, p.r.err);
    if (!no_devtools)
        check_devtools(&p);
    if (!no_speedscope)
        check_speedscope(&p);
    e2e_prof_free(&p);
}
END_TEST

/* Opens a page in headless Chromium (report.mjs), saving its screenshot at
 * shot, and checks what every page must do: no request, no console error,
 * at least min_charts charts and every one painted. Returns what report.mjs
 * saw (the values shown, ...). */
static json_t *open_page(const char *page, const char *shot, int min_charts, e2e_result *r)
{
    json_t *seen = viewer_report(page, shot, r);
    ck_assert_msg(r->status == 0, "report.mjs: exit %d\n%s", r->status, r->out);
    ck_assert_msg(json_array_size(json_object_get(seen, "requests")) == 0, "requests: %s",
                  json_dumps(json_object_get(seen, "requests"), 0));
    ck_assert_msg(json_array_size(json_object_get(seen, "errors")) == 0, "errors: %s",
                  json_dumps(json_object_get(seen, "errors"), 0));
    long long charts = e2e_int(seen, "charts");
    ck_assert_int_ge(charts, min_charts);
    ck_assert_int_eq(e2e_int(seen, "drawn"), charts);
    return seen;
}

/* Where the screenshots go: build/report-shots/NAME.png. */
static void shot_path(char *buf, size_t len, const char *name)
{
    char shots[4200];
    snprintf(shots, sizeof shots, "%s/report-shots", e2e_build());
    mkdir(shots, 0755);
    snprintf(buf, len, "%s/%s.png", shots, name);
}

/* The demo's runs with --report-html: each NAME.report.html opened in
 * headless Chromium makes no request, logs no error, draws every chart it
 * has, and shows the wall time, GPU busy, top kernel and peak memory of
 * summary.json; the screenshots go to build/report-shots/ for a person. */
START_TEST(demo_reports_in_chromium)
{
    const char *no = viewer_missing();
    if (no) {
        fprintf(stderr, "SKIPPED report.html in Chromium: %s; scripts/deps.sh installs it\n", no);
        return;
    }
    static const char *const modes[] = {"eager", "addmm", "fused"};
    const char *args[] = {e2e_path("bench/matmul_add"), "--mode", modes[_i], "--size", "64", "--dtype",
                          "bf16", "--iters", "20", "--warmup", "2", NULL};
    const char *env[] = {"CUPROF_REPORT_HTML=1", NULL};
    e2e_prof p = e2e_profile(1, args, env, RUN_TIMEOUT_S);
    ck_assert_msg(p.r.status == 0 && p.sum, "exit %d\n%s", p.r.status, p.r.err);
    char report[4200], shot[4400];
    snprintf(report, sizeof report, "%s/x.report.html", p.dir);
    shot_path(shot, sizeof shot, modes[_i]);
    e2e_result r;
    json_t *seen = open_page(report, shot, 2, &r);   /* the timeline, device memory */
    json_t *v = json_object_get(seen, "values");
    char want[64];
    snprintf(want, sizeof want, "%lld", e2e_int(p.sum, "wall_ns"));
    ck_assert_str_eq(e2e_str(v, "wall"), want);
    snprintf(want, sizeof want, "%lld", e2e_int(json_object_get(p.sum, "gpu"), "busy_ns"));
    ck_assert_str_eq(e2e_str(v, "gpu-busy"), want);
    snprintf(want, sizeof want, "%lld", e2e_int(json_object_get(p.sum, "memory"), "peak_bytes"));
    ck_assert_str_eq(e2e_str(v, "peak-memory"), want);
    ck_assert_str_eq(e2e_str(v, "top-kernel"),
                     e2e_str(json_array_get(json_object_get(p.sum, "kernels"), 0), "name"));
    json_decref(seen);
    e2e_result_free(&r);
    e2e_prof_free(&p);
}
END_TEST

/* With --stacks the report has the flame graph: the page draws it, and its
 * lines (the data inside the page) add up to summary.json's stacks
 * gpu_total_ns, every kernel, copy and memset. */
START_TEST(stacks_report_has_flame_graph)
{
    const char *no = viewer_missing();
    if (no) {
        fprintf(stderr, "SKIPPED report.html's flame graph in Chromium: %s; scripts/deps.sh installs it\n", no);
        return;
    }
    const char *args[] = {e2e_path("bench/matmul_add"), "--mode", "eager", "--size", "64", "--iters", "10", NULL};
    const char *env[] = {"CUPROF_REPORT_HTML=1", "CUPROF_STACKS=auto", NULL};
    e2e_prof p = e2e_profile(1, args, env, RUN_TIMEOUT_S);
    ck_assert_msg(p.r.status == 0 && p.sum, "exit %d\n%s", p.r.status, p.r.err);
    char report[4200], shot[4400];
    snprintf(report, sizeof report, "%s/x.report.html", p.dir);
    shot_path(shot, sizeof shot, "stacks-flame");
    e2e_result r;
    json_t *seen = open_page(report, shot, 2, &r);
    json_t *sec, *sections = json_object_get(seen, "sections");
    size_t i;
    int flame = 0;
    json_array_foreach(sections, i, sec)
        flame |= !strcmp(json_string_value(sec), "flame");
    ck_assert_msg(flame, "no flame section: %s", json_dumps(sections, 0));
    size_t len;
    char *html = e2e_read_file(report, &len);
    ck_assert_ptr_nonnull(html);
    char *at = strstr(html, "<script id=\"cuprof-data\" type=\"application/json\">");
    ck_assert_ptr_nonnull(at);
    at = strchr(at, '>') + 1;
    *strstr(at, "</script>") = '\0';
    json_error_t jerr;
    json_t *data = json_loads(at, 0, &jerr);
    ck_assert_msg(data != NULL, "the page's data: %s", jerr.text);
    long long sum = 0;
    json_t *l;
    json_array_foreach(json_object_get(data, "flame"), i, l)
        sum += json_integer_value(json_array_get(l, 1));
    ck_assert_int_gt(sum, 0);
    ck_assert_int_eq(sum, e2e_int(json_object_get(p.sum, "stacks"), "gpu_total_ns"));
    json_decref(data);
    free(html);
    json_decref(seen);
    e2e_result_free(&r);
    e2e_prof_free(&p);
}
END_TEST

/* prof.sh compare --html on the demo's eager and fused runs: the page shows
 * each run's wall time, GPU busy, top kernel and peak memory as its
 * summary.json says, draws the overview and the kernels, and leads with
 * what changed (the fused GEMM's kernel is only in B). */
START_TEST(compare_page_in_chromium)
{
    const char *no = viewer_missing();
    if (no) {
        fprintf(stderr, "SKIPPED compare --html in Chromium: %s; scripts/deps.sh installs it\n", no);
        return;
    }
    static const char *const modes[] = {"eager", "fused"};
    e2e_prof p[2];
    for (int i = 0; i < 2; i++) {
        const char *args[] = {e2e_path("bench/matmul_add"), "--mode", modes[i], "--size", "64", "--dtype",
                              "bf16", "--iters", "20", "--warmup", "2", NULL};
        p[i] = e2e_profile(1, args, NULL, RUN_TIMEOUT_S);
        ck_assert_msg(p[i].r.status == 0 && p[i].sum, "exit %d\n%s", p[i].r.status, p[i].r.err);
    }
    char page[4400], shot[4400];
    snprintf(page, sizeof page, "%s/eager-vs-fused.html", p[0].dir);
    const char *argv[] = {e2e_path("prof.sh"), "compare", "--html", page, p[0].dir, p[1].dir, NULL};
    e2e_result c = e2e_run(argv, NULL, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(c.status == 0, "compare: %d\n%s", c.status, c.err);
    ck_assert_ptr_nonnull(strstr(c.out, "cuprof compare: 2 runs"));   /* the text, as without --html */
    shot_path(shot, sizeof shot, "compare-eager-fused");
    e2e_result r;
    json_t *seen = open_page(page, shot, 2, &r);   /* the overview, the kernels */
    json_t *v = json_object_get(seen, "values");
    for (int i = 0; i < 2; i++) {
        char key[64], want[64];
        const char L = (char)('A' + i);
        snprintf(key, sizeof key, "wall-%c", L);
        snprintf(want, sizeof want, "%lld", e2e_int(p[i].sum, "wall_ns"));
        ck_assert_str_eq(e2e_str(v, key), want);
        snprintf(key, sizeof key, "gpu-busy-%c", L);
        snprintf(want, sizeof want, "%lld", e2e_int(json_object_get(p[i].sum, "gpu"), "busy_ns"));
        ck_assert_str_eq(e2e_str(v, key), want);
        snprintf(key, sizeof key, "peak-memory-%c", L);
        snprintf(want, sizeof want, "%lld", e2e_int(json_object_get(p[i].sum, "memory"), "peak_bytes"));
        ck_assert_str_eq(e2e_str(v, key), want);
        snprintf(key, sizeof key, "top-kernel-%c", L);
        ck_assert_str_eq(e2e_str(v, key), e2e_str(json_array_get(json_object_get(p[i].sum, "kernels"), 0), "name"));
    }
    json_t *sections = json_object_get(seen, "sections");
    ck_assert_str_eq(json_string_value(json_array_get(sections, 0)), "changes");
    size_t len;
    char *html = e2e_read_file(page, &len);
    ck_assert_ptr_nonnull(html);
    ck_assert_ptr_nonnull(strstr(html, "only in B: nvjet"));   /* the fused GEMM's kernel, a difference */
    free(html);
    ck_assert_ptr_null(json_object_get(v, "sketched-legend"));   /* exact runs: no '~', no legend */
    json_decref(seen);
    e2e_result_free(&r);
    e2e_result_free(&c);

    /* B's launch latency 3x A's and a sketched median (a run past the exact
     * bound: made here by editing B's summary.json): the change says so with
     * '~', and the page explains the mark. */
    char sum_b[4400];
    snprintf(sum_b, sizeof sum_b, "%s/x.summary.json", p[1].dir);
    json_t *gb = json_object_get(p[1].sum, "gpu");
    long long lat_a = e2e_int(json_object_get(p[0].sum, "gpu"), "launch_latency_median_ns");
    ck_assert_int_gt(lat_a, 0);
    json_object_set_new(gb, "launch_latency_median_ns", json_integer(3 * lat_a));
    json_object_set_new(gb, "launch_latency_median_sketched", json_true());
    ck_assert_int_eq(json_dump_file(p[1].sum, sum_b, 0), 0);
    c = e2e_run(argv, NULL, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(c.status == 0, "compare: %d\n%s", c.status, c.err);
    shot_path(shot, sizeof shot, "compare-sketched");
    seen = open_page(page, shot, 2, &r);
    v = json_object_get(seen, "values");
    ck_assert_ptr_nonnull(json_object_get(v, "sketched-legend"));
    int marked = 0;
    const char *key;
    json_t *val;
    json_object_foreach(v, key, val)
        if (!strncmp(key, "change-", 7) && strstr(json_string_value(val), "launch latency (median)"))
            marked = strstr(json_string_value(val), "-> ~") != NULL;
    ck_assert_msg(marked, "no launch latency change with B's '~'");
    json_decref(seen);
    e2e_result_free(&r);
    e2e_result_free(&c);
    e2e_prof_free(&p[0]);
    e2e_prof_free(&p[1]);
}
END_TEST

/* prof.sh merge --html on a 4-rank job with no MPI (bench/ddp_step through
 * scripts/launch.sh, rank 2 slow): the page draws each rank's step times,
 * waits and the ranks side by side, names rank 2 as the straggler and shows
 * each rank's wall time as its summary.json says. */
START_TEST(merged_page_in_chromium)
{
    const char *no = viewer_missing();
    if (no) {
        fprintf(stderr, "SKIPPED merge --html in Chromium: %s; scripts/deps.sh installs it\n", no);
        return;
    }
    char *dir = e2e_tmpdir(), script[8192];
    snprintf(script, sizeof script, "DDP_STORE='%s' '%s' --nproc 4 --master-port %d -- '%s' -q -o '%s' -n job -- "
             "'%s' --steps 4 --slow 2", dir, e2e_path("scripts/launch.sh"), 29600 + (int)(getpid() % 100),
             e2e_path("prof.sh"), dir, e2e_path("bench/ddp_step"));
    const char *argv[] = {"/bin/bash", "-c", script, NULL};
    const char *env[] = {e2e_sim_env(), "CUSIM_NCCL_BUS_GBPS=300", "CUSIM_NCCL_WAIT_S=2", NULL};
    e2e_result job = e2e_run(argv, env, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(job.status == 0, "job: %d\n%s", job.status, job.err);
    const char *margv[] = {e2e_path("prof.sh"), "merge", "--html", dir, "-n", "job", NULL};
    e2e_result m = e2e_run(margv, NULL, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(m.status == 0, "merge: %d\n%s", m.status, m.err);
    char page[4400], shot[4400];
    snprintf(page, sizeof page, "%s/job.merged.report.html", dir);
    shot_path(shot, sizeof shot, "merged-4-ranks");
    e2e_result r;
    json_t *seen = open_page(page, shot, 3, &r);   /* steps, waits, ranks */
    json_t *v = json_object_get(seen, "values");
    ck_assert_str_eq(e2e_str(v, "ranks"), "4");
    ck_assert_str_eq(e2e_str(v, "straggler"), "2");
    for (int k = 0; k < 4; k++) {
        char path[4400], key[32], want[64];
        snprintf(path, sizeof path, "%s/job.rank%d.summary.json", dir, k);
        json_t *sum = e2e_load_json(path);
        ck_assert_ptr_nonnull(sum);
        snprintf(key, sizeof key, "wall-rank%d", k);
        snprintf(want, sizeof want, "%lld", e2e_int(sum, "wall_ns"));
        ck_assert_str_eq(e2e_str(v, key), want);
        json_decref(sum);
    }
    json_decref(seen);
    e2e_result_free(&r);
    e2e_result_free(&m);
    e2e_result_free(&job);
    e2e_rmtree(dir);
    free(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("e2e_viewers");
    TCase *tc = tcase_create("viewers");
    tcase_set_timeout(tc, 2 * RUN_TIMEOUT_S);
    tcase_add_loop_test(tc, demo_traces_in_viewers, 0, 6);
    tcase_add_loop_test(tc, demo_reports_in_chromium, 0, 3);
    tcase_add_test(tc, stacks_report_has_flame_graph);
    tcase_add_test(tc, compare_page_in_chromium);
    tcase_add_test(tc, merged_page_in_chromium);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
