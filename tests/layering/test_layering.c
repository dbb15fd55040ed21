/*
 * test_layering.c - the folders' dependency rules (check_layers.sh) hold on
 * this tree, and the checker catches each kind of violation on a small tree
 * made to break them (so a rule that stopped checking anything fails here).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static e2e_result check(const char *top, const char *build)
{
    const char *argv[] = {"/bin/bash", e2e_path("tests/layering/check_layers.sh"), top, build, NULL};
    return e2e_run(argv, NULL, NULL, 120);
}

START_TEST(this_tree_follows_the_rules)
{
    e2e_result r = check(e2e_top(), e2e_build());
    ck_assert_msg(r.status == 0, "layering violations:\n%s%s", r.out, r.err);
    ck_assert_ptr_nonnull(strstr(r.out, "layering: ok"));
    e2e_result_free(&r);
}
END_TEST

/* Writes text to dir/rel. */
static void put(const char *dir, const char *rel, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static void cc(const char *dir, const char *src, const char *obj)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cd %s && cc -c -fPIC -I. -o build/%s %s", dir, obj, src);
    ck_assert_int_eq(system(cmd), 0);
}

START_TEST(each_violation_is_caught)
{
    char *t = e2e_tmpdir();
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cd %s && mkdir -p collector model formats preload "
             "build/collector build/model build/formats build/preload", t);
    ck_assert_int_eq(system(cmd), 0);
    put(t, "collector/rec.c", "int cuprof_rec_count(void) { return 1; }\n");
    put(t, "collector/config.h", "/* a collector header */\n");
    /* model: calls back into the collector, keeps a counter, includes a
     * collector header other than the event ABI */
    put(t, "model/bad.c", "#include \"collector/internal.h\"\n");
    put(t, "model/calls.c", "int cuprof_rec_count(void);\nstatic int seen;\n"
        "int cuprof_model_x(void) { return seen++ + cuprof_rec_count(); }\n");
    put(t, "formats/w.c", "#include \"collector/config.h\"\nint cuprof_w(void);\n"
        "int cuprof_w(void) { return 0; }\n");
    put(t, "preload/p.c", "#include \"collector/process.h\"\n#include \"collector/collector.h\"\n");
    /* the collector calls the writers; the library carries model code */
    put(t, "collector/exit.c", "#include \"formats/formats.h\"\n#include \"model/run.h\"\n");
    put(t, "formats/rf.c", "#include \"collector/runfile.h\"\n");
    /* the model may read the shared types; the collector calls a libc name
     * the hooks interpose (up into preload/) */
    put(t, "model/types.c", "#include \"collector/runfile_types.h\"\n");
    put(t, "preload/hook.c", "int close(int fd);\nint close(int fd) { return fd; }\n");
    put(t, "collector/shut.c", "int close(int fd);\nint cuprof_shut(void) { return close(3); }\n");
    cc(t, "preload/hook.c", "preload/hook.o");
    cc(t, "collector/shut.c", "collector/shut.o");
    cc(t, "collector/rec.c", "collector/rec.o");
    cc(t, "model/calls.c", "model/calls.o");
    cc(t, "formats/w.c", "formats/w.o");
    snprintf(cmd, sizeof cmd, "cd %s && cc -shared -o build/libcuprof.so build/collector/rec.o "
             "build/model/calls.o", t);
    ck_assert_int_eq(system(cmd), 0);
    char build[4200];
    snprintf(build, sizeof build, "%s/build", t);
    e2e_result r = check(t, build);
    ck_assert_msg(r.status == 1, "exit %d:\n%s%s", r.status, r.out, r.err);
    static const char *const must[] = {
        "model/calls.o uses cuprof_rec_count, defined in collector/",
        "model/calls.o: seen is writable global state",
        "model/bad.c:1:#include \"collector/internal.h\": model/ includes no collector header",
        "formats/w.c:1:#include \"collector/config.h\": formats/ and tools/ read the model and the run file's ABI only",
        "collector/exit.c:1:#include \"formats/formats.h\": collector/ includes no formats/",
        "libcuprof.so defines cuprof_model_x, which model/ or formats/ defines",
        "preload/p.c:1:#include \"collector/process.h\": preload/ includes only collector/collector.h",
        "collector/exit.c:2:#include \"model/run.h\": collector/ includes no formats/, model/",
        "collector/shut.o uses close, defined in preload/",
    };
    for (size_t i = 0; i < sizeof must / sizeof *must; i++)
        ck_assert_msg(strstr(r.out, must[i]), "missing \"%s\" in:\n%s", must[i], r.out);
    ck_assert_msg(!strstr(r.out, "p.c:2:"), "collector.h is allowed in preload/:\n%s", r.out);
    ck_assert_msg(!strstr(r.out, "types.c:"), "runfile_types.h is allowed in model/:\n%s", r.out);
    ck_assert_msg(!strstr(r.out, "rf.c:"), "the run file's ABI is allowed in formats/:\n%s", r.out);
    e2e_result_free(&r);
    e2e_rmtree(t);
    free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("layering");
    TCase *tc = tcase_create("rules");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, this_tree_follows_the_rules);
    tcase_add_test(tc, each_violation_is_caught);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
