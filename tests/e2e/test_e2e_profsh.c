/*
 * test_e2e_profsh.c - end-to-end tests of prof.sh, the front end: options
 * and their errors, refusals before anything runs (missing or
 * non-executable program, unusable output directory, library not built),
 * exit status and signals passed through, a program without CUDA calls runs
 * unchanged and writes no files, and a small CUDA program (profsh_prog)
 * writes its three files per process with the names documented in
 * collector/config.h.
 */
#include "harness.h"

#include <check.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *dir;   /* a fresh output directory per test */

static void setup(void)
{
    dir = e2e_tmpdir();
}

static void teardown(void)
{
    e2e_rmtree(dir);
    free(dir);
}

/* Runs prof.sh with up to 12 arguments (NULL-terminated list). */
static e2e_result profsh(const char *const env[], const char *a0, ...)
{
    const char *argv[16] = {e2e_path("prof.sh")};
    int n = 1;
    va_list ap;
    va_start(ap, a0);
    for (const char *a = a0; a && n < 15; a = va_arg(ap, const char *))
        argv[n++] = a;
    va_end(ap);
    argv[n] = NULL;
    return e2e_run(argv, env, NULL, 60);
}

static int count_in_dir(const char *d, const char *needle)
{
    DIR *dp = opendir(d);
    int n = 0;
    struct dirent *e;
    while (dp && (e = readdir(dp)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && (!needle || strstr(e->d_name, needle)))
            n++;
    if (dp)
        closedir(dp);
    return n;
}

/* Number of lines in s. */
static int lines(const char *s)
{
    return e2e_count(s, "\n");
}

START_TEST(help_and_version)
{
    e2e_result r = profsh(NULL, "--help", NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "Usage: prof.sh [options] [--] PROGRAM [ARGS...]"));
    ck_assert_str_eq(r.err, "");
    /* the supervisor's signal rules: once per sending, the repeated Ctrl-C */
    ck_assert_ptr_nonnull(strstr(r.out, "to the whole process group"));
    ck_assert_ptr_nonnull(strstr(r.out, "A second one while they are written is\n    absorbed"));
    ck_assert_ptr_nonnull(strstr(r.out, "stays\n    ignored in PROGRAM"));
    /* a process killed outright: its calls from the recording memory, the OOM killer named */
    ck_assert_ptr_nonnull(strstr(r.out, "file and the recording memory they share"));
    ck_assert_ptr_nonnull(strstr(r.out, "killer (its memory cgroup counted the kill)"));
    e2e_result_free(&r);
    const char *run_help[] = {e2e_bpath("cuprof-run"), "--help", NULL};
    r = e2e_run(run_help, NULL, NULL, 30);
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "Usage: cuprof-run"));
    ck_assert_ptr_nonnull(strstr(r.out, "sent to the whole process group"));
    ck_assert_ptr_nonnull(strstr(r.out, "a second one while the profile is written"));
    ck_assert_ptr_nonnull(strstr(r.out, "stays ignored in PROGRAM"));
    ck_assert_ptr_nonnull(strstr(r.out, "the recording memory this\n    process shares with it"));
    e2e_result_free(&r);
    r = profsh(NULL, "-h", NULL);
    ck_assert_int_eq(r.status, 0);
    e2e_result_free(&r);
    r = profsh(NULL, "--version", NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_ptr_nonnull(strstr(r.out, "cuprof 0."));
    e2e_result_free(&r);
}
END_TEST

START_TEST(option_errors)
{
    e2e_result r = profsh(NULL, "--frobnicate", "/bin/true", NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_int_eq(lines(r.err), 1);
    ck_assert_ptr_nonnull(strstr(r.err, "cuprof: unknown option '--frobnicate'"));
    ck_assert_str_eq(r.out, "");
    e2e_result_free(&r);
    r = profsh(NULL, "-o", NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "cuprof: option -o needs a directory"));
    e2e_result_free(&r);
    r = profsh(NULL, NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "cuprof: no program given"));
    e2e_result_free(&r);
    r = profsh(NULL, "-n", "a/b", "/bin/true", NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "cuprof: -n NAME must be a file name"));
    e2e_result_free(&r);
    const char *bad_env[] = {"CUPROF_MEM_LIMIT=lots", NULL};
    r = profsh(bad_env, "-o", dir, "/bin/true", NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "cuprof: CUPROF_MEM_LIMIT=lots"));
    e2e_result_free(&r);
}
END_TEST

START_TEST(program_missing_or_not_executable)
{
    e2e_result r = profsh(NULL, "-o", dir, "/nonexistent/prog", NULL);
    ck_assert_int_eq(r.status, 127);
    ck_assert_ptr_nonnull(strstr(r.err, "cuprof: /nonexistent/prog: no such file"));
    e2e_result_free(&r);
    r = profsh(NULL, "-o", dir, "no-such-command-cuprof", NULL);
    ck_assert_int_eq(r.status, 127);
    ck_assert_ptr_nonnull(strstr(r.err, "command not found"));
    e2e_result_free(&r);
    char file[4200];
    snprintf(file, sizeof file, "%s/plain.txt", dir);
    FILE *f = fopen(file, "w");
    fputs("not a program\n", f);
    fclose(f);
    r = profsh(NULL, "-o", dir, file, NULL);
    ck_assert_int_eq(r.status, 126);
    ck_assert_ptr_nonnull(strstr(r.err, "not executable"));
    e2e_result_free(&r);
    r = profsh(NULL, "-o", dir, dir, NULL);
    ck_assert_int_eq(r.status, 126);
    ck_assert_ptr_nonnull(strstr(r.err, "is a directory"));
    e2e_result_free(&r);
}
END_TEST

START_TEST(output_dir_unusable)
{
    /* /proc refuses new entries even to root; a regular file is no directory. */
    e2e_result r = profsh(NULL, "-o", "/proc/cuprof-test-out", "/bin/true", NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "cuprof: cannot create output directory"));
    e2e_result_free(&r);
    char file[4200];
    snprintf(file, sizeof file, "%s/afile", dir);
    fclose(fopen(file, "w"));
    r = profsh(NULL, "-o", file, "/bin/true", NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "cuprof: "));
    e2e_result_free(&r);
    r = profsh(NULL, "-o", "/proc/self", "/bin/true", NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "not writable"));
    e2e_result_free(&r);
}
END_TEST

START_TEST(library_not_built)
{
    /* A copy of prof.sh in a tree without build/libcuprof.so. */
    char cmd[8500];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s/prof.sh'", e2e_path("prof.sh"), dir);
    ck_assert_int_eq(system(cmd), 0);
    char path[4200];
    snprintf(path, sizeof path, "%s/prof.sh", dir);
    const char *argv[] = {path, "/bin/true", NULL};
    e2e_result r = e2e_run(argv, NULL, NULL, 30);
    ck_assert_int_eq(r.status, 2);
    ck_assert_ptr_nonnull(strstr(r.err, "run make"));
    ck_assert_int_eq(lines(r.err), 1);
    e2e_result_free(&r);
}
END_TEST

START_TEST(status_and_signals_pass_through)
{
    e2e_result r = profsh(NULL, "-o", dir, "sh", "-c", "exit 7", NULL);
    ck_assert_int_eq(r.status, 7);
    e2e_result_free(&r);
    r = profsh(NULL, "-o", dir, "sh", "-c", "kill -TERM $$", NULL);
    ck_assert_int_eq(r.status, 128 + 15);
    e2e_result_free(&r);
    r = profsh(NULL, "-o", dir, "false", NULL);
    ck_assert_int_eq(r.status, 1);
    e2e_result_free(&r);
}
END_TEST

START_TEST(non_cuda_program_unchanged)
{
    e2e_result r = profsh(NULL, "-o", dir, "echo", "hello", "-o", "world", NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.out, "hello -o world\n");   /* options after PROGRAM are its own */
    ck_assert_str_eq(r.err, "");
    e2e_result_free(&r);
    r = profsh(NULL, "-o", dir, "--", "echo", "-n", "x", NULL);
    ck_assert_str_eq(r.out, "x");
    e2e_result_free(&r);
    ck_assert_int_eq(count_in_dir(dir, NULL), 0);   /* no CUDA call: no files */
    const char *env[] = {"LD_PRELOAD=libm.so.6", NULL};
    r = profsh(env, "-o", dir, "sh", "-c", "echo \"$LD_PRELOAD\"", NULL);
    ck_assert_ptr_nonnull(strstr(r.out, "libm.so.6:"));   /* appended, not replaced */
    ck_assert_ptr_nonnull(strstr(r.out, "/build/libcuprof.so\n"));
    e2e_result_free(&r);
}
END_TEST

START_TEST(cuda_program_writes_files)
{
    e2e_result r = profsh(NULL, "-o", dir, e2e_bpath("tests/profsh_prog"), "threads", "16", "exit", "5", NULL);
    ck_assert_int_eq(r.status, 5);
    ck_assert_str_eq(r.out, "ok\n");
    ck_assert_ptr_nonnull(strstr(r.err, "cuprof: wrote "));
    /* NVIDIA's libraries without a driver: CUPTI cannot start, which the
     * library says once, before where the files went. */
    ck_assert_ptr_nonnull(strstr(r.err, "cuprof: GPU timeline not captured (CUPTI"));
    ck_assert_int_eq(lines(r.err), 2);
    ck_assert_int_eq(count_in_dir(dir, "profsh_prog."), 5);   /* with NAME.cuprof and NAME.report.html */
    ck_assert_int_eq(count_in_dir(dir, ".tmp"), 0);
    DIR *dp = opendir(dir);
    struct dirent *e;
    int checked = 0;
    while ((e = readdir(dp))) {
        if (!strstr(e->d_name, ".json"))
            continue;
        char p[4500];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        json_t *j = e2e_load_json(p);
        ck_assert_msg(j != NULL, "%s is not valid JSON", e->d_name);
        if (strstr(e->d_name, "summary.json")) {
            json_t *api = json_object_get(j, "api");
            long calls = 0;
            for (size_t i = 0; i < json_array_size(api); i++)
                calls += (long)json_integer_value(json_object_get(json_array_get(api, i), "calls"));
            ck_assert_int_eq(calls, 17 * 30);   /* 17 threads x 10 x 3 calls, none lost */
        }
        json_decref(j);
        checked++;
    }
    closedir(dp);
    ck_assert_int_eq(checked, 2);
    e2e_result_free(&r);
}
END_TEST

START_TEST(names_quiet_and_children)
{
    e2e_result r = profsh(NULL, "-q", "-o", dir, "-n", "myrun", e2e_bpath("tests/profsh_prog"), "fork", NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_str_eq(r.err, "");   /* -q: not a word */
    char p[4200];
    snprintf(p, sizeof p, "%s/myrun.summary.json", dir);
    ck_assert_int_eq(access(p, F_OK), 0);        /* the program itself: NAME */
    ck_assert_int_eq(count_in_dir(dir, "summary.json"), 2);   /* its child: NAME.PID */
    ck_assert_int_eq(count_in_dir(dir, "myrun."), 10);   /* 5 each */
    e2e_result_free(&r);
}
END_TEST

Suite *profsh_suite(void)
{
    Suite *s = suite_create("prof.sh");
    TCase *tc = tcase_create("front end");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, help_and_version);
    tcase_add_test(tc, option_errors);
    tcase_add_test(tc, program_missing_or_not_executable);
    tcase_add_test(tc, output_dir_unusable);
    tcase_add_test(tc, library_not_built);
    tcase_add_test(tc, status_and_signals_pass_through);
    tcase_add_test(tc, non_cuda_program_unchanged);
    tcase_add_test(tc, cuda_program_writes_files);
    tcase_add_test(tc, names_quiet_and_children);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(profsh_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
