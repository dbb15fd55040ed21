/*
 * test_e2e_python.c - Python frames in the stacks (issue 39), end to end on
 * the simulated device with the real interpreters: CPython 3.10, 3.11, 3.12
 * and 3.13 (harness.h's e2e_python finds them; an absent one says SKIPPED
 * and why).
 *
 * For each: tests/e2e/py/gpuops.c, a C extension, is built against that
 * interpreter's headers (sysconfig) and linked to build/tests/libpyk.so (a
 * kernel, a cuBLAS call); py/app.py calls it from methods, a recursion 40
 * deep, a thread, coroutines, generators (resumed from C and by a loop), a
 * callback from C into Python, functions made at run time one after the
 * other (exec: a code object may take a freed one's address), a forked
 * child and a spawned one; py/ct.py
 * reaches libcudart through ctypes (libffi). Each CUDA call takes its value
 * from mark() on the same line (py/mark.py), which prints that line's stack
 * as traceback.extract_stack() has it. Under prof.sh --stacks, for every
 * stack printed:
 *  - a line of NAME.cpu.folded (the process's own: NAME.PID.* for the
 *    children) has exactly those Python frames, in that order, as
 *    "qualname (file:line)" (the file's base name; 3.10: co_name, it has no
 *    qualified name, the printed qualname is the same then), contiguous
 *    (but for the callback,
 *    where the extension's through_c lies between), right after a native
 *    frame and right before the extension's (or ctypes') function;
 *  - the kernel and cuBLAS calls' lines are in NAME.gpu.folded too;
 *  - summary.txt's "Top launch sites" names the innermost Python frame;
 *  - the trace's stackFrames have it (the main process's).
 * A Python this cuprof does not read (3.9) gets one "cuprof:" line and
 * native frames only.
 */
#include "harness.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define RUN_TIMEOUT_S 240

/* The frames of a folded line as names (the last one holds " VALUE"). */
typedef struct fline {
    char **f;
    int n;
} fline;

static fline split(const char *line, size_t len)
{
    fline fl = {calloc(len + 1, sizeof(char *)), 0};
    const char *p = line, *end = line + len;
    /* the value after the last space */
    const char *sp = end;
    while (sp > line && sp[-1] != ' ')
        sp--;
    if (sp > line)
        end = sp - 1;
    while (p < end) {
        const char *semi = memchr(p, ';', (size_t)(end - p));
        const char *e = semi ? semi : end;
        fl.f[fl.n++] = strndup(p, (size_t)(e - p));
        p = semi ? semi + 1 : end;
    }
    return fl;
}

static void fline_free(fline *fl)
{
    for (int i = 0; i < fl->n; i++)
        free(fl->f[i]);
    free(fl->f);
}

/* A Python frame's name: "qualname (FILE:LINE)" where FILE is a .py file's
 * base name or a "<string>"-like one (a native frame with a line names a
 * .c, .h, .cc... file). */
static int python_frame(const char *name)
{
    size_t n = strlen(name);
    const char *open = NULL;
    for (const char *p = strstr(name, " ("); p; p = strstr(p + 1, " ("))
        open = p;
    if (n < 6 || name[n - 1] != ')' || !open)
        return 0;
    const char *file = open + 2, *colon = strrchr(file, ':');
    if (!colon)
        return 0;
    return (colon - file > 3 && !strncmp(colon - 3, ".py", 3)) || file[0] == '<';
}

/* What a printed stack must be in a folded file. */
typedef struct want {
    char *tag;
    long pid;
    char **frames;               /* "qualname (file:line)", outermost first */
    int n;
} want;

static void want_free(want *w)
{
    for (int i = 0; i < w->n; i++)
        free(w->frames[i]);
    free(w->frames);
    free(w->tag);
}

/* The CUPROF_PY lines of a run's stdout. */
static want *wants_of(const char *out, int *n_out)
{
    int cap = 64, n = 0;
    want *v = calloc((size_t)cap, sizeof *v);
    for (const char *l = out; (l = strstr(l, "CUPROF_PY ")); l++) {
        const char *nl = strchr(l, '\n');
        json_error_t err;
        json_t *j = json_loadb(l + 10, (size_t)(nl - l - 10), 0, &err);
        ck_assert_msg(j, "%.*s: %s", (int)(nl - l), l, err.text);
        json_t *frames = json_object_get(j, "frames");
        ck_assert(n < cap);
        want *w = &v[n++];
        w->tag = strdup(e2e_str(j, "tag"));
        w->pid = (long)e2e_int(j, "pid");
        w->n = (int)json_array_size(frames);
        w->frames = calloc((size_t)w->n, sizeof(char *));
        for (int i = 0; i < w->n; i++) {
            json_t *f = json_array_get(frames, (size_t)i);
            const char *q = json_string_value(json_array_get(f, 0));
            const char *name = json_string_value(json_array_get(f, 1));
            const char *file = json_string_value(json_array_get(f, 2));
            long line = (long)json_integer_value(json_array_get(f, 3));
            /* qualname's last part is extract_stack's name */
            const char *dot = strrchr(q, '.');
            ck_assert_str_eq(dot && strcmp(q, name) ? dot + 1 : q, name);
            /* as the outputs name it: the file's base name */
            const char *base = strrchr(file, '/');
            char buf[8192];
            snprintf(buf, sizeof buf, "%s (%s:%ld)", q, base ? base + 1 : file, line);
            w->frames[i] = strdup(buf);
        }
        json_decref(j);
    }
    *n_out = n;
    return v;
}

/* 1 when a line of folded has w's Python frames exactly. *after gets the
 * native frame right after the innermost Python frame (owned) and *between
 * 1 when a native frame lies between two Python frames. */
static int find_stack(const char *folded, const want *w, char **after, int *between)
{
    for (const char *l = folded; *l;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        fline fl = split(l, len);
        int k = 0, ok = 1, first = -1, last = -1, gap = 0;
        for (int i = 0; i < fl.n && ok; i++) {
            if (!python_frame(fl.f[i]))
                continue;
            if (k >= w->n || strcmp(fl.f[i], w->frames[k]))
                ok = 0;
            if (first < 0)
                first = i;
            else if (last != i - 1)
                gap = 1;
            last = i;
            k++;
        }
        if (ok && k == w->n && first > 0 && last + 1 < fl.n) {
            *after = strdup(fl.f[last + 1]);
            *between = gap;
            fline_free(&fl);
            return 1;
        }
        fline_free(&fl);
        l = nl ? nl + 1 : l + len;
    }
    return 0;
}

/* DIR/x.SUFFIX, or DIR/x.PID.SUFFIX for a child. */
static char *out_file(const char *dir, long pid, long main_pid, const char *suffix)
{
    char path[4200];
    if (pid == main_pid)
        snprintf(path, sizeof path, "%s/x.%s", dir, suffix);
    else
        snprintf(path, sizeof path, "%s/x.%ld.%s", dir, pid, suffix);
    char *s = e2e_read_file(path, NULL);
    ck_assert_msg(s != NULL, "%s missing", path);
    return s;
}

static int run_sh(const char *cmd)
{
    const char *sh[] = {"/bin/sh", "-c", cmd, NULL};
    e2e_result r = e2e_run(sh, NULL, NULL, 300);
    int st = r.status;
    if (st)
        fprintf(stderr, "%s:\n%s%s", cmd, r.out, r.err);
    e2e_result_free(&r);
    return st;
}

/* gpuops built against python's headers in dir, with mark.py beside it. */
static void build_ext(const char *python, const char *dir)
{
    char inc[4096], cmd[16384];
    ck_assert_int_eq(e2e_python_include(python, inc, sizeof inc), 0);
    snprintf(cmd, sizeof cmd,
             "cc -shared -fPIC -O2 -g -fno-omit-frame-pointer -I'%s' -o '%s/gpuops.so' '%s' "
             "-L'%s' -lpyk -Wl,-rpath,'%s' && cp '%s' '%s/'",
             inc, dir, e2e_path("tests/e2e/py/gpuops.c"), e2e_bpath("tests"), e2e_bpath("tests"),
             e2e_path("tests/e2e/py/mark.py"), dir);
    ck_assert_int_eq(run_sh(cmd), 0);
}

/* The name of the call a tag's line makes, as the frame after the
 * innermost Python frame. */
static const char *callee_of(const char *tag)
{
    if (!strncmp(tag, "ct_", 3))
        return "PyCFuncPtr_call";
    if (!strcmp(tag, "model_gemm"))
        return "gemm";
    return "scale";
}

static void check_program(int minor, const char *prog, int n_tags_min)
{
    char why[512];
    const char *py = e2e_python(minor, why, sizeof why);
    if (!py) {
        printf("SKIPPED %s on 3.%d: %s\n", prog, minor, why);
        return;
    }
    char *ext = e2e_tmpdir();
    build_ext(py, ext);
    char script[512];
    snprintf(script, sizeof script, "tests/e2e/py/%s", prog);
    const char *argv[] = {py, e2e_path(script), ext, NULL};
    const char *env[] = {"CUPROF_STACKS=auto", "PYTHONDONTWRITEBYTECODE=1", NULL};
    e2e_prof p = e2e_profile(1, argv, env, RUN_TIMEOUT_S);
    ck_assert_msg(p.r.status == 0 && p.txt, "3.%d %s: exit %d\n%s\n%s", minor, prog, p.r.status,
                  p.r.out, p.r.err);
    ck_assert_msg(!strstr(p.r.err, "frames are not read"), "%s", p.r.err);
    int n = 0;
    want *w = wants_of(p.r.out, &n);
    ck_assert_int_ge(n, n_tags_min);
    long main_pid = 0;
    for (int i = 0; i < n; i++)
        if (!strncmp(w[i].tag, "model", 5) || !strncmp(w[i].tag, "ct_", 3))
            main_pid = w[i].pid;
    ck_assert_int_gt(main_pid, 0);
    const char *seen[32];
    int nseen = 0;
    for (int i = 0; i < n; i++) {
        char *cpu = out_file(p.dir, w[i].pid, main_pid, "cpu.folded");
        char *after = NULL;
        int between = 0;
        ck_assert_msg(find_stack(cpu, &w[i], &after, &between),
                      "3.%d %s: the stack of '%s' (innermost %s) is not in x%s.cpu.folded:\n%.3000s",
                      minor, prog, w[i].tag, w[i].frames[w[i].n - 1],
                      w[i].pid == main_pid ? "" : ".PID", cpu);
        /* the function, and its line when it has debug info */
        const char *callee = callee_of(w[i].tag);
        size_t cl = strlen(callee);
        ck_assert_msg(!strncmp(after, callee, cl) && (after[cl] == '\0' || after[cl] == ' '),
                      "3.%d '%s': %s after the innermost Python frame", minor, w[i].tag, after);
        /* native frames between two Pythons: the extension's own in the
         * callback, asyncio's C task in a coroutine; none elsewhere */
        if (strcmp(w[i].tag, "coro"))
            ck_assert_msg(between == !strcmp(w[i].tag, "callback"), "3.%d '%s': between %d",
                          minor, w[i].tag, between);
        if (!strcmp(w[i].tag, "callback"))
            ck_assert_msg(strstr(cpu, ";through_c"), "3.%d: no through_c in the callback's stack", minor);
        free(after);
        /* the GPU work of the kernels and the GEMM, charged to that stack
         * (not in the forked child: CUPTI does not survive a fork, its
         * outputs are CPU-side only) */
        if (strncmp(w[i].tag, "ct_", 3) && strcmp(w[i].tag, "fork")) {
            char *gpu = out_file(p.dir, w[i].pid, main_pid, "gpu.folded");
            char *a2 = NULL;
            ck_assert_msg(find_stack(gpu, &w[i], &a2, &between), "3.%d '%s' not in gpu.folded:\n%.3000s",
                          minor, w[i].tag, gpu);
            free(a2);
            free(gpu);
        }
        /* the innermost Python frame is the launch site */
        char *txt = out_file(p.dir, w[i].pid, main_pid, "summary.txt");
        char *sites = strstr(txt, "Top launch sites");
        ck_assert_ptr_nonnull(sites);
        ck_assert_msg(strstr(sites, w[i].frames[w[i].n - 1]), "3.%d '%s': site %s not in\n%.3000s",
                      minor, w[i].tag, w[i].frames[w[i].n - 1], sites);
        free(txt);
        free(cpu);
        int dup = 0;
        for (int k = 0; k < nseen; k++)
            dup |= !strcmp(seen[k], w[i].tag);
        if (!dup && nseen < 32)
            seen[nseen++] = w[i].tag;
    }
    /* the trace's stackFrames name them too (the main process's) */
    for (int i = 0; i < n; i++) {
        if (w[i].pid != main_pid || !p.trace)
            continue;
        json_t *sf = json_object_get(p.trace, "stackFrames");
        const char *k;
        json_t *v;
        int found = 0;
        json_object_foreach(sf, k, v) found |= !strcmp(e2e_str(v, "name"), w[i].frames[w[i].n - 1]);
        ck_assert_msg(found, "3.%d '%s': %s not in the trace's stackFrames", minor, w[i].tag,
                      w[i].frames[w[i].n - 1]);
    }
    printf("3.%d %s: %d stacks as traceback has them (%d kinds)\n", minor, prog, n, nseen);
    for (int i = 0; i < n; i++)
        want_free(&w[i]);
    free(w);
    e2e_prof_free(&p);
    e2e_rmtree(ext);
    free(ext);
}

/* app.py: every kind of call prints its stack at least once: model_scale,
 * model_gemm, deep, thread, coro, gen, callback, dyn0..2, fork, spawn */
START_TEST(extension_frames_as_traceback_has_them)
{
    check_program(10 + _i, "app.py", 12);
}
END_TEST

START_TEST(ctypes_frames_as_traceback_has_them)
{
    check_program(10 + _i, "ct.py", 6);
}
END_TEST

/* A Python this cuprof does not read: one line, native frames only. */
START_TEST(other_versions_native_only)
{
    char why[512];
    const char *py = e2e_python(9, why, sizeof why);
    if (!py) {
        printf("SKIPPED 3.9 (a version not read): %s\n", why);
        return;
    }
    const char *argv[] = {py, e2e_path("tests/e2e/py/ct.py"), e2e_path("tests/e2e/py"), NULL};
    const char *env[] = {"CUPROF_STACKS=auto", "PYTHONDONTWRITEBYTECODE=1", NULL};
    e2e_prof p = e2e_profile(1, argv, env, RUN_TIMEOUT_S);
    ck_assert_msg(p.r.status == 0 && p.txt, "exit %d\n%s", p.r.status, p.r.err);
    ck_assert_int_eq(e2e_count(p.r.err, "cuprof: stacks: Python 3.9"), 1);
    ck_assert_msg(strstr(p.r.err, "reads CPython 3.10 to 3.13"), "%s", p.r.err);
    char path[4200];
    snprintf(path, sizeof path, "%s/x.cpu.folded", p.dir);
    char *cpu = e2e_read_file(path, NULL);
    ck_assert_ptr_nonnull(cpu);
    ck_assert_msg(strstr(cpu, "_PyEval_EvalFrameDefault") && !strstr(cpu, ".py:"), "%.3000s", cpu);
    free(cpu);
    e2e_prof_free(&p);
}
END_TEST

/* CUPROF_STACKS_PYTHON=0: native frames only, no line about it. */
START_TEST(python_frames_off)
{
    char why[512];
    const char *py = e2e_python(12, why, sizeof why);
    if (!py) {
        printf("SKIPPED CUPROF_STACKS_PYTHON=0: %s\n", why);
        return;
    }
    const char *argv[] = {py, e2e_path("tests/e2e/py/ct.py"), e2e_path("tests/e2e/py"), NULL};
    const char *env[] = {"CUPROF_STACKS=auto", "CUPROF_STACKS_PYTHON=0", "PYTHONDONTWRITEBYTECODE=1", NULL};
    e2e_prof p = e2e_profile(1, argv, env, RUN_TIMEOUT_S);
    ck_assert_msg(p.r.status == 0 && p.txt, "exit %d\n%s", p.r.status, p.r.err);
    ck_assert_msg(!strstr(p.r.err, "Python"), "%s", p.r.err);
    char path[4200];
    snprintf(path, sizeof path, "%s/x.cpu.folded", p.dir);
    char *cpu = e2e_read_file(path, NULL);
    ck_assert_ptr_nonnull(cpu);
    ck_assert_msg(strstr(cpu, "_PyEval_EvalFrameDefault") && !strstr(cpu, ".py:"), "%.3000s", cpu);
    free(cpu);
    e2e_prof_free(&p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("e2e_python");
    TCase *tc = tcase_create("python");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, extension_frames_as_traceback_has_them, 0, 4);
    tcase_add_loop_test(tc, ctypes_frames_as_traceback_has_them, 0, 4);
    tcase_add_test(tc, other_versions_native_only);
    tcase_add_test(tc, python_frames_off);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
