/*
 * test_golden.c - the golden tests as Check tests: one per matmul_add mode,
 * each running tests/golden/golden.sh MODE (profile on the simulated device,
 * normalize the trace, summary.txt and summary.json, compare them with
 * tests/golden/expected/). A failure prints the diff.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

static void golden(const char *mode)
{
    const char *argv[] = {"/bin/bash", e2e_path("tests/golden/golden.sh"), mode, NULL};
    e2e_result r = e2e_run(argv, NULL, NULL, 120);
    ck_assert_msg(r.status == 0, "golden %s: exit %d\n%s%s", mode, r.status, r.out, r.err);
    e2e_result_free(&r);
}

START_TEST(golden_eager) { golden("eager"); }
END_TEST
START_TEST(golden_addmm) { golden("addmm"); }
END_TEST
START_TEST(golden_fused) { golden("fused"); }
END_TEST

int main(void)
{
    Suite *s = suite_create("golden");
    TCase *tc = tcase_create("matmul_add");
    tcase_set_timeout(tc, 180);
    tcase_add_test(tc, golden_eager);
    tcase_add_test(tc, golden_addmm);
    tcase_add_test(tc, golden_fused);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
