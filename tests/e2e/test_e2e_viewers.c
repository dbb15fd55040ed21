/*
 * test_e2e_viewers.c - the demo's trace.json files (matmul_add eager,
 * addmm, fused at sizes 64 and 4096) opened in speedscope (npm) in headless
 * Chromium: imported with no warning or error (speedscope reports slices
 * that do not nest, which large absolute timestamps and touching slices
 * used to cause), one profile per CPU thread and GPU stream, each GPU
 * stream's total the sum of its slices. Skipped, with a note, only where
 * node, Chromium or the npm packages are not installed.
 */
#include "harness.h"
#include "viewers.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN_TIMEOUT_S 180

START_TEST(demo_traces_load_in_speedscope)
{
    const char *why = viewer_missing();
    if (why) {
        fprintf(stderr, "SKIPPED trace.json in speedscope: %s; scripts/deps.sh installs it\n", why);
        return;
    }
    static const char *const modes[] = {"eager", "addmm", "fused"};
    static const char *const sizes[] = {"64", "4096"};
    const char *args[] = {e2e_path("bench/matmul_add"), "--mode", modes[_i % 3], "--size",
                          sizes[_i / 3], "--dtype", "bf16", "--iters", "20", "--warmup", "2", NULL};
    e2e_prof p = e2e_profile(1, args, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(p.r.status == 0 && p.trace, "exit %d\n%s", p.r.status, p.r.err);
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
        const char *st = strstr(name, "stream ");
        if (!st)
            continue;
        int id = atoi(st + 7), k = 0;
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
    e2e_prof_free(&p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("e2e_viewers");
    TCase *tc = tcase_create("viewers");
    tcase_set_timeout(tc, 2 * RUN_TIMEOUT_S);
    tcase_add_loop_test(tc, demo_traces_load_in_speedscope, 0, 6);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
