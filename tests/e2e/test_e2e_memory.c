/*
 * test_e2e_memory.c - device memory end to end: mem_prog allocates a known
 * pattern (cudaMalloc, cudaMallocPitch, cudaMallocAsync,
 * cudaMallocFromPoolAsync; frees sync, async and from another thread; a
 * 1 TiB cudaMalloc that fails) and prints its own account. The profile's
 * peak, live allocations, what is held at exit and at the failure must be
 * the program's; the owners at the peak are the allocating calls (and with
 * --stacks the functions that made them); the failure is a finding and a
 * line of summary.txt; the trace's memory counter peaks at the same value.
 */
#include "harness.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN_TIMEOUT_S 120

typedef struct account {
    unsigned long long peak, peak_allocations, end, allocations, frees, oom_held, oom_live;
} account;

static account parse(const char *out)
{
    account a;
    memset(&a, 0, sizeof a);
    int n = sscanf(out, "peak=%llu peak_allocations=%llu end=%llu allocations=%llu frees=%llu\noom_held=%llu oom_live=%llu",
                   &a.peak, &a.peak_allocations, &a.end, &a.allocations, &a.frees, &a.oom_held, &a.oom_live);
    ck_assert_msg(n == 7, "mem_prog printed:\n%s", out);
    return a;
}

static long long field(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    ck_assert_msg(json_is_integer(v), "no integer %s", k);
    return json_integer_value(v);
}

static json_t *owner(json_t *list, const char *api)
{
    size_t i;
    json_t *o;
    json_array_foreach(list, i, o)
        if (!strcmp(json_string_value(json_object_get(o, "api")), api))
            return o;
    return NULL;
}

START_TEST(peak_owners_and_oom_are_the_programs)
{
    const char *argv[] = {e2e_bpath("tests/mem_prog"), NULL};
    e2e_prof p = e2e_profile(1, argv, NULL, RUN_TIMEOUT_S);
    ck_assert_msg(p.r.status == 0 && p.sum && p.trace && p.txt, "exit %d\n%s", p.r.status, p.r.err);
    account a = parse(p.r.out);
    const unsigned long long MiB = 1ull << 20;
    ck_assert_uint_gt(a.peak, 36 * MiB);   /* the pattern is what the program meant */

    json_t *m = json_object_get(p.sum, "memory");
    ck_assert_ptr_nonnull(m);
    ck_assert_uint_eq(field(m, "peak_bytes"), a.peak);
    ck_assert_uint_eq(field(m, "peak_allocations"), a.peak_allocations);
    ck_assert_uint_eq(field(m, "end_bytes"), a.end);
    ck_assert_uint_eq(field(m, "allocations"), a.allocations);
    ck_assert_uint_eq(field(m, "frees"), a.frees);
    ck_assert_int_eq(field(m, "failures"), 1);
    /* at the peak: 16 + 2 MiB stream-ordered, 6 MiB from the pool, 12 MiB
     * by cudaMalloc, the image by cudaMallocPitch */
    json_t *owners = json_object_get(m, "owners");
    ck_assert_int_eq(field(owner(owners, "cudaMallocAsync"), "bytes"), 18 * MiB);
    ck_assert_int_eq(field(owner(owners, "cudaMallocAsync"), "allocations"), 2);
    ck_assert_int_eq(field(owner(owners, "cudaMallocFromPoolAsync"), "bytes"), 6 * MiB);
    ck_assert_int_eq(field(owner(owners, "cudaMalloc"), "bytes"), 12 * MiB);
    ck_assert_int_eq(field(owner(owners, "cudaMallocPitch"), "bytes"), (long long)(a.peak - 36 * MiB));
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(owners, 0), "api")), "cudaMallocAsync");

    json_t *oom = json_array_get(json_object_get(m, "oom"), 0);
    ck_assert_ptr_nonnull(oom);
    ck_assert_str_eq(json_string_value(json_object_get(oom, "api")), "cudaMalloc");
    ck_assert_int_eq(field(oom, "requested_bytes"), 1ll << 40);
    ck_assert_uint_eq(field(oom, "held_bytes"), a.oom_held);
    ck_assert_uint_eq(field(oom, "held_allocations"), a.oom_live);

    /* the finding and the table */
    size_t i;
    json_t *f, *found = NULL;
    json_array_foreach(json_object_get(p.sum, "findings"), i, f)
        if (!strcmp(json_string_value(json_object_get(f, "rule")), "out-of-memory"))
            found = f;
    ck_assert_msg(found != NULL, "no out-of-memory finding:\n%s", p.txt);
    ck_assert_msg(strstr(json_string_value(json_object_get(found, "message")),
                         "cudaMalloc of 1.00 TiB failed for lack of device memory"),
                  "%s", json_string_value(json_object_get(found, "message")));
    ck_assert_msg(strstr(p.txt, "\nDevice memory (") && strstr(p.txt, "  OUT OF MEMORY: cudaMalloc of 1.00 TiB"),
                  "%s", p.txt);

    /* the trace's counter: its highest value is the peak */
    long long top = -1;
    size_t counters = 0;
    json_t *ev;
    json_array_foreach(json_object_get(p.trace, "traceEvents"), i, ev) {
        const char *ph = json_string_value(json_object_get(ev, "ph"));
        if (!ph || strcmp(ph, "C") != 0)
            continue;
        counters++;
        long long v = json_integer_value(json_object_get(json_object_get(ev, "args"), "bytes"));
        top = v > top ? v : top;
    }
    ck_assert_uint_eq(counters, a.allocations + a.frees);
    ck_assert_uint_eq((unsigned long long)top, a.peak);
    e2e_prof_free(&p);
}
END_TEST

START_TEST(owners_by_site_with_stacks)
{
    const char *argv[] = {e2e_bpath("tests/mem_prog"), NULL};
    const char *env[] = {"CUPROF_STACKS=fp", NULL};
    e2e_prof p = e2e_profile(1, argv, env, RUN_TIMEOUT_S);
    ck_assert_msg(p.r.status == 0 && p.sum, "exit %d\n%s", p.r.status, p.r.err);
    json_t *owners = json_object_get(json_object_get(p.sum, "memory"), "owners");
    /* mem_prog is built with -g: each site names its source line */
    static const char *const want[][2] = {{"cudaMallocAsync", "alloc_activations (mem_prog.c:"},
                                          {"cudaMallocFromPoolAsync", "alloc_from_pool (mem_prog.c:"},
                                          {"cudaMalloc", "alloc_weights (mem_prog.c:"},
                                          {"cudaMallocPitch", "alloc_image (mem_prog.c:"}};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        json_t *o = owner(owners, want[k][0]);
        ck_assert_msg(o != NULL, "no owner %s", want[k][0]);
        const char *site = json_string_value(json_object_get(o, "site"));
        ck_assert_msg(site && !strncmp(site, want[k][1], strlen(want[k][1])), "%s: site %s, not %s...)",
                      want[k][0], site ? site : "(none)", want[k][1]);
    }
    ck_assert_msg(strstr(p.txt, "cudaMallocAsync at alloc_activations (mem_prog.c:"), "%s", p.txt);
    e2e_prof_free(&p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("e2e_memory");
    TCase *tc = tcase_create("memory");
    tcase_set_timeout(tc, 2 * RUN_TIMEOUT_S);
    tcase_add_test(tc, peak_owners_and_oom_are_the_programs);
    tcase_add_test(tc, owners_by_site_with_stacks);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
