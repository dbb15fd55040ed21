/*
 * test_fuzz.c - a bounded libFuzzer run as one Check test. The same source is
 * built once per fuzz target, with
 *   FUZZ_NAME     the target's name ("summary_reader", "config")
 *   FUZZ_SCRIPT   the script that builds and runs it (tests/fuzz/fuzz_*.sh)
 *   FUZZ_SECS_ENV the variable that sets the time, FUZZ_SECS_DEFAULT if unset
 * Where clang is missing the script says "skipped: ..." and the test passes,
 * printing that line.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

START_TEST(bounded_fuzz_run)
{
    const char *secs = getenv(FUZZ_SECS_ENV);
    if (!secs || !*secs)
        secs = FUZZ_SECS_DEFAULT;
    const char *argv[] = {"/bin/bash", e2e_path(FUZZ_SCRIPT), "run", secs, NULL};
    e2e_result r = e2e_run(argv, NULL, NULL, atoi(secs) + 120);
    fputs(r.out, stdout);
    int ok = r.status == 0 && (strstr(r.out, "skipped: ") || strstr(r.out, ", no crash, no leak"));
    if (!ok) {   /* the whole output here: Check's message has room for a line or two */
        fprintf(stdout, "fuzz run failed (exit %d):\n%s", r.status, r.err);
        fflush(stdout);
    }
    ck_assert_msg(ok, "fuzz run failed (exit %d); its output is above, the fuzzer's log in "
                  "build/fuzz/*.log, the input in build/fuzz/crash-*", r.status);
    e2e_result_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fuzz_" FUZZ_NAME);
    TCase *tc = tcase_create("fuzz");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, bounded_fuzz_run);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
