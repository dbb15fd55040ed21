/*
 * test_fuzz_config.c - a bounded libFuzzer run of the CUPROF_* environment
 * parser (collector/config.c), as one Check test: tests/fuzz/fuzz_config.sh
 * does the work. FUZZ_CONFIG_SECONDS sets the time (default 10). Where clang
 * is missing the script says "skipped: ..." and the test passes, printing
 * that line.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

START_TEST(fuzz_config_parser)
{
    const char *secs = getenv("FUZZ_CONFIG_SECONDS");
    if (!secs || !*secs)
        secs = "10";
    const char *argv[] = {"/bin/bash", e2e_path("tests/fuzz/fuzz_config.sh"), "run", secs, NULL};
    e2e_result r = e2e_run(argv, NULL, NULL, atoi(secs) + 120);
    fputs(r.out, stdout);
    ck_assert_msg(r.status == 0, "fuzz run failed (exit %d):\n%s%s", r.status, r.out, r.err);
    ck_assert_msg(strstr(r.out, "skipped: ") || strstr(r.out, ", no crash, no leak"),
                  "unexpected fuzz output:\n%s%s", r.out, r.err);
    e2e_result_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fuzz_config");
    TCase *tc = tcase_create("fuzz");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, fuzz_config_parser);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
