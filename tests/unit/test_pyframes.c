/*
 * test_pyframes.c - what collector/pyframes.c knows of CPython, against
 * the real interpreters (3.10, 3.11, 3.12, 3.13: e2e_python finds them;
 * a version that is absent says SKIPPED and why):
 *  - its layouts: tests/unit/py_offsets.c compiled against each
 *    interpreter's own headers (sysconfig's include path, the internal ones
 *    with Py_BUILD_CORE) prints offsetof of every field the reader uses;
 *    they must be the reader's table (cuprof_py_layout_text);
 *  - its line tables: tests/unit/py_linetables.py prints, for 3000 code
 *    objects of that interpreter's standard library, co_linetable and the
 *    line of every code unit as co_lines() gives it (PyCode_Addr2Line's
 *    ranges); cuprof_py_addr2line must give the same line for each.
 * The frames themselves (the chain, the splice, the outputs) are checked
 * end to end in tests/e2e/test_e2e_python.c.
 */
#include "collector/pyframes.h"
#include "harness.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static void layout_matches_headers(int minor)
{
    char why[512];
    const char *py = e2e_python(minor, why, sizeof why);
    if (!py) {
        printf("SKIPPED layout 3.%d: %s\n", minor, why);
        return;
    }
    char inc[4096], cmd[12000];
    ck_assert_int_eq(e2e_python_include(py, inc, sizeof inc), 0);
    char *dir = e2e_tmpdir();
    snprintf(cmd, sizeof cmd, "cc -std=c11 -I'%s' -I'%s/internal' -o '%s/off' '%s' 2>&1", inc, inc,
             dir, e2e_path("tests/unit/py_offsets.c"));
    const char *sh[] = {"/bin/sh", "-c", cmd, NULL};
    e2e_result r = e2e_run(sh, NULL, NULL, 120);
    ck_assert_msg(r.status == 0, "3.%d: %s\n%s", minor, cmd, r.out);
    e2e_result_free(&r);
    snprintf(cmd, sizeof cmd, "%s/off", dir);
    const char *run[] = {cmd, NULL};
    r = e2e_run(run, NULL, NULL, 60);
    ck_assert_int_eq(r.status, 0);
    char mine[4096];
    ck_assert_int_gt(cuprof_py_layout_text(minor, mine, sizeof mine), 0);
    /* the same lines, in any order */
    int n_mine = 0, n_theirs = 0;
    for (char *l = mine; *l; l = strchr(l, '\n') + 1) {
        n_mine++;
        char line[128];
        snprintf(line, sizeof line, "%.*s", (int)strcspn(l, "\n"), l);
        char needle[140];
        snprintf(needle, sizeof needle, "%s\n", line);
        ck_assert_msg(strstr(r.out, needle) != NULL, "3.%d: the reader has '%s', the headers:\n%s",
                      minor, line, r.out);
    }
    for (const char *l = r.out; *l; l = strchr(l, '\n') + 1)
        n_theirs++;
    ck_assert_msg(n_mine == n_theirs, "3.%d: %d fields read, %d from the headers:\n%s\nvs\n%s", minor,
                  n_mine, n_theirs, mine, r.out);
    printf("3.%d: %d offsets as its headers say (%s)\n", minor, n_mine, py);
    e2e_result_free(&r);
    e2e_rmtree(dir);
    free(dir);
}

START_TEST(layouts_are_the_headers)
{
    layout_matches_headers(10 + _i);
}
END_TEST

static void lines_match(int minor)
{
    char why[512];
    const char *py = e2e_python(minor, why, sizeof why);
    if (!py) {
        printf("SKIPPED line tables 3.%d: %s\n", minor, why);
        return;
    }
    const char *argv[] = {py, e2e_path("tests/unit/py_linetables.py"), "3000", NULL};
    e2e_result r = e2e_run(argv, NULL, NULL, 120);
    ck_assert_msg(r.status == 0, "%s", r.err);
    size_t objects = 0, units = 0;
    uint8_t *table = malloc(1 << 20);
    for (char *l = r.out, *nl; *l; l = nl + 1) {
        nl = strchr(l, '\n');
        *nl = '\0';
        char *save, *tok = strtok_r(l, " ", &save);
        int first = atoi(tok);
        char *hex = strtok_r(NULL, " ", &save);
        size_t len = 0;
        for (const char *h = hex; strcmp(hex, "-") && h[0] && h[1] && len < (1 << 20); h += 2)
            table[len++] = (uint8_t)(hexval(h[0]) << 4 | hexval(h[1]));
        int i = 0;
        while ((tok = strtok_r(NULL, " ", &save))) {
            int want = atoi(tok);
            int got = cuprof_py_addr2line(minor, table, len, first, i * 2);
            ck_assert_msg(got == want, "3.%d: code object at line %d, unit %d: %d, CPython says %d",
                          minor, first, i, got, want);
            i++;
            units++;
        }
        objects++;
    }
    ck_assert_uint_gt(objects, 1000);
    printf("3.%d: %zu code objects, %zu code units: the lines CPython gives (%s)\n", minor, objects,
           units, py);
    free(table);
    e2e_result_free(&r);
}

START_TEST(line_tables_as_cpython_reads_them)
{
    lines_match(10 + _i);
}
END_TEST

/* By hand: 3.10's pairs and 3.11's entries, lines before the table, no
 * line, and a table cut short. */
START_TEST(line_tables_by_hand)
{
    /* 3.10: 6 bytes on line 10, 4 bytes no line, 2 bytes on line 12 (+2) */
    const uint8_t t10[] = {6, 0, 4, 0x80, 2, 2};
    ck_assert_int_eq(cuprof_py_addr2line(10, t10, sizeof t10, 10, 0), 10);
    ck_assert_int_eq(cuprof_py_addr2line(10, t10, sizeof t10, 10, 4), 10);
    ck_assert_int_eq(cuprof_py_addr2line(10, t10, sizeof t10, 10, 6), -1);
    ck_assert_int_eq(cuprof_py_addr2line(10, t10, sizeof t10, 10, 10), 12);
    ck_assert_int_eq(cuprof_py_addr2line(10, t10, sizeof t10, 10, 12), -1);   /* past the end */
    ck_assert_int_eq(cuprof_py_addr2line(10, t10, sizeof t10, 10, -2), 10);   /* not started */
    /* 3.11: short form (code 0, 2 units, same line), one-line form +1 (code
     * 11, 1 unit, 2 column bytes), no-columns -3 (code 13, signed varint
     * 7), no location (code 15) */
    const uint8_t t11[] = {0x80 | 0 << 3 | 1, 0x00, 0x80 | 11 << 3 | 0, 0, 0,
                           0x80 | 13 << 3 | 0, 7, 0x80 | 15 << 3 | 0};
    ck_assert_int_eq(cuprof_py_addr2line(11, t11, sizeof t11, 20, 0), 20);
    ck_assert_int_eq(cuprof_py_addr2line(11, t11, sizeof t11, 20, 2), 20);
    ck_assert_int_eq(cuprof_py_addr2line(11, t11, sizeof t11, 20, 4), 21);
    ck_assert_int_eq(cuprof_py_addr2line(11, t11, sizeof t11, 20, 6), 18);
    ck_assert_int_eq(cuprof_py_addr2line(11, t11, sizeof t11, 20, 8), -1);
    ck_assert_int_eq(cuprof_py_addr2line(11, t11, sizeof t11, 20, 10), -1);   /* past the end */
    ck_assert_int_eq(cuprof_py_addr2line(11, t11, 3, 20, 6), -1);            /* cut short */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pyframes");
    TCase *tc = tcase_create("cpython");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, layouts_are_the_headers, 0, 4);
    tcase_add_loop_test(tc, line_tables_as_cpython_reads_them, 0, 4);
    tcase_add_test(tc, line_tables_by_hand);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
