/*
 * test_recover.c - the end anchor cuprof-report --recover appends to a
 * killed process's run file (tools/recover.c): the TSC and CLOCK_MONOTONIC
 * read together, unaffected by a preemption between the two readings.
 * Seen in test_e2e_runfile under load (sigkill_at_random_moments...): a
 * single bracket taken while the machine was busy put the anchor some tens
 * of us off, and the slope of the last chunk's conversion with it: the
 * calls of a recovered run moved by 1-2 us against CUPTI's records of them
 * 55-115 ms into the run, and the trace showed them overlapping.
 */
#include "tools/recover.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>

/* Fake clocks: time advances 10 ns a reading; the TSC ticks once a ns and
 * CLOCK_MONOTONIC is the TSC + OFF. A preemption of `stall` ns lands
 * before the clock_gettime of the first `stalls` brackets. */
#define OFF 1000000000ull
static uint64_t now_ns, stall;
static int readings, stalls;

static uint64_t fake_tsc(void)
{
    now_ns += 10;
    readings++;
    return now_ns;
}

static uint64_t fake_mono(void)
{
    if (stalls > 0) {
        now_ns += stall;
        stalls--;
    }
    now_ns += 10;
    return now_ns + OFF;
}

/* |ns - (stamp + OFF)|: how far the anchor puts the two clocks apart */
static uint64_t anchor_error(void)
{
    uint64_t stamp = 0, ns = 0;
    cuprof_recover_anchor(fake_tsc, fake_mono, &stamp, &ns);
    int64_t d = (int64_t)(ns - (stamp + OFF));
    return (uint64_t)(d < 0 ? -d : d);
}

START_TEST(quiet_machine)
{
    now_ns = 5000000, stall = 0, stalls = 0, readings = 0;
    ck_assert_uint_le(anchor_error(), 20);
}
END_TEST

START_TEST(preempted_between_the_readings)
{
    now_ns = 5000000, stall = 40000, stalls = 1, readings = 0;   /* 40 us in the first */
    uint64_t err = anchor_error();
    ck_assert_msg(err <= 20, "the anchor is %llu ns off after a 40 us preemption",
                  (unsigned long long)err);
    now_ns = 5000000, stall = 30000, stalls = 4, readings = 0;   /* in all but the last */
    err = anchor_error();
    ck_assert_msg(err <= 20, "the anchor is %llu ns off after four preemptions",
                  (unsigned long long)err);
    ck_assert_int_ge(readings, 10);   /* five brackets, two TSC readings each */
}
END_TEST

static Suite *recover_suite(void)
{
    Suite *s = suite_create("recover");
    TCase *tc = tcase_create("anchor");
    tcase_add_test(tc, quiet_machine);
    tcase_add_test(tc, preempted_between_the_readings);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(recover_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
