/*
 * test_e2e_corpus.c - the regression corpus (the .cu programs in tests/corpus, in
 * the style of CUDA's samples): each runs bare on the simulated device and
 * under prof.sh, and
 *   - starts and exits with the status it declares (`//@ exit N`, else 0);
 *   - exits with the same status, and prints the same stdout (numbers
 *     followed by "ms" masked: timings) and the same stderr (less cuprof's
 *     own `cuprof:` lines), profiled as bare;
 *   - has a profile that counts the calls the program makes: each
 *     `//@ api NAME N` (summary.json's api row), `//@ kernel NAME N` (the
 *     kernels' executions, NAME with or without its parameter list),
 *     `//@ kernel_prefix PREFIX N`, `//@ copy KIND N` (calls the hooks saw)
 *     and `//@ gpu_copy KIND N` (device records, copies made inside
 *     libraries included) line in its source; N may be ">=N".
 * The programs are found by listing tests/corpus, so a new one is tested by
 * being there.
 */
#include "harness.h"

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PROGS 64
#define MAX_EXPECT 32

static char *progs[MAX_PROGS]; /* names, without .cu, sorted */
static int nprogs;

typedef struct expect {
    char kind[16];
    char name[160];
    long n;
    int atleast;
} expect;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void find_programs(void)
{
    DIR *d = opendir(e2e_path("tests/corpus"));
    struct dirent *de;
    if (d == NULL)
        return;
    while ((de = readdir(d)) != NULL && nprogs < MAX_PROGS) {
        size_t l = strlen(de->d_name);
        if (l > 3 && strcmp(de->d_name + l - 3, ".cu") == 0)
            progs[nprogs++] = strndup(de->d_name, l - 3);
    }
    closedir(d);
    qsort(progs, (size_t)nprogs, sizeof *progs, cmp_str);
}

/* The `//@` lines of a source: expectations, and the exit status. */
static int parse_expects(const char *src, expect *ex, int *exit_status)
{
    int n = 0;
    *exit_status = 0;
    for (const char *l = src, *end; *l; l = end ? end + 1 : l + strlen(l)) {
        char line[256], *last;
        size_t len;
        end = strchr(l, '\n');
        len = end ? (size_t)(end - l) : strlen(l);
        if (strncmp(l, "//@ ", 4) != 0)
            continue;
        ck_assert_msg(len < sizeof line, "//@ line too long: %.60s...", l);
        memcpy(line, l + 4, len - 4);
        line[len - 4] = '\0';
        if (sscanf(line, "exit %d", exit_status) == 1)
            continue;
        if (strncmp(line, "link ", 5) == 0) /* the libraries it links (corpus.mk) */
            continue;
        ck_assert_int_lt(n, MAX_EXPECT);
        last = strrchr(line, ' ');
        ck_assert_msg(last != NULL, "bad //@ line: %s", line);
        *last++ = '\0';
        ex[n].atleast = strncmp(last, ">=", 2) == 0;
        ex[n].n = strtol(last + (ex[n].atleast ? 2 : 0), NULL, 10);
        ck_assert_msg(sscanf(line, "%15s", ex[n].kind) == 1, "bad //@ line: %s", line);
        ck_assert_msg(strcmp(ex[n].kind, "api") == 0 || strcmp(ex[n].kind, "kernel") == 0 ||
                          strcmp(ex[n].kind, "kernel_prefix") == 0 ||
                          strcmp(ex[n].kind, "copy") == 0 || strcmp(ex[n].kind, "gpu_copy") == 0,
                      "unknown //@ kind: %s", ex[n].kind);
        snprintf(ex[n].name, sizeof ex[n].name, "%s", line + strlen(ex[n].kind) + 1);
        n++;
    }
    return n;
}

/* out with every number followed by "ms" (after optional spaces) as "#". */
static char *mask_times(const char *s)
{
    char *out = malloc(strlen(s) + 1), *o = out;
    ck_assert_ptr_nonnull(out);
    while (*s) {
        size_t k = *s != '.' ? strspn(s, "0123456789.") : 0;
        const char *t = s + k;
        if (k == 0) {
            *o++ = *s++;
            continue;
        }
        while (*t == ' ')
            t++;
        if (strncmp(t, "ms", 2) == 0) {
            *o++ = '#';
        } else {
            memcpy(o, s, k);
            o += k;
        }
        s += k;
    }
    *o = '\0';
    return out;
}

/* err without the lines that start with "cuprof:". */
static char *without_cuprof_lines(const char *s)
{
    char *out = malloc(strlen(s) + 1), *o = out;
    ck_assert_ptr_nonnull(out);
    while (*s) {
        const char *end = strchr(s, '\n');
        size_t len = end ? (size_t)(end - s + 1) : strlen(s);
        if (strncmp(s, "cuprof:", 7) != 0) {
            memcpy(o, s, len);
            o += len;
        }
        s += len;
    }
    *o = '\0';
    return out;
}

/* What the profile counts for one expectation. */
static long counted(json_t *sum, const expect *e)
{
    int gpu_copy = strcmp(e->kind, "gpu_copy") == 0;
    const char *list = strcmp(e->kind, "api") == 0                 ? "api"
                       : strcmp(e->kind, "copy") == 0 || gpu_copy ? "copies"
                                                                   : "kernels";
    json_t *rows = json_object_get(sum, list), *row;
    size_t i, nl = strlen(e->name);
    long total = 0;
    json_array_foreach(rows, i, row) {
        const char *name = json_string_value(
            json_object_get(row, strcmp(list, "copies") == 0 ? "kind" : "name"));
        int match;
        if (name == NULL)
            continue;
        if (strcmp(e->kind, "kernel") == 0)
            match = strcmp(name, e->name) == 0 ||
                    (strncmp(name, e->name, nl) == 0 && name[nl] == '(');
        else if (strcmp(e->kind, "kernel_prefix") == 0)
            match = strncmp(name, e->name, nl) == 0;
        else
            match = strcmp(name, e->name) == 0;
        if (match)
            total += (long)json_integer_value(json_object_get(
                row, strcmp(list, "kernels") == 0 ? "launches" : gpu_copy ? "gpu_copies" : "calls"));
    }
    return total;
}

/* summary.json's recorded calls ("events"). */
static long long iget_events(json_t *sum)
{
    return (long long)json_integer_value(json_object_get(sum, "events"));
}

START_TEST(corpus_program)
{
    const char *name = progs[_i];
    char rel[256], bin[256];
    expect ex[MAX_EXPECT];
    int nex, want_status;
    snprintf(rel, sizeof rel, "tests/corpus/%s.cu", name);
    char *src = e2e_read_file(e2e_path(rel), NULL);
    ck_assert_ptr_nonnull(src);
    nex = parse_expects(src, ex, &want_status);
    ck_assert_msg(nex > 0, "%s: no //@ expectations", name);
    snprintf(bin, sizeof bin, "%s", e2e_bpath(""));
    snprintf(bin + strlen(bin), sizeof bin - strlen(bin), "tests/corpus/%s", name);

    const char *argv[] = {bin, NULL};
    const char *env[] = {e2e_sim_env(), NULL};
    e2e_result bare = e2e_run(argv, env, NULL, 120);
    ck_assert_msg(bare.status == want_status, "%s bare: exit %d, want %d; stderr: %s", name,
                  bare.status, want_status, bare.err);
    e2e_prof p = e2e_profile(1, argv, NULL, 180);
    ck_assert_msg(p.r.status == bare.status, "%s profiled: exit %d, bare %d; stderr: %s", name,
                  p.r.status, bare.status, p.r.err);
    char *mb = mask_times(bare.out), *mp = mask_times(p.r.out);
    ck_assert_msg(strcmp(mb, mp) == 0, "%s: stdout differs\n--- bare\n%s--- profiled\n%s", name,
                  mb, mp);
    char *eb = without_cuprof_lines(bare.err), *ep = without_cuprof_lines(p.r.err);
    ck_assert_msg(strcmp(eb, ep) == 0, "%s: stderr differs\n--- bare\n%s--- profiled\n%s", name,
                  eb, ep);
    ck_assert_msg(p.sum != NULL, "%s: no summary.json", name);
    for (int i = 0; i < nex; i++) {
        long got = counted(p.sum, &ex[i]);
        ck_assert_msg(ex[i].atleast ? got >= ex[i].n : got == ex[i].n,
                      "%s: %s %s counted %ld, want %s%ld", name, ex[i].kind, ex[i].name, got,
                      ex[i].atleast ? ">=" : "", ex[i].n);
    }
    /* --gpu kernels: the same exit, and every device record charged to the
     * same call as with the API records (model/kmatch.h) */
    const char *kenv[] = {"CUPROF_GPU=kernels", NULL};
    e2e_prof k = e2e_profile(1, argv, kenv, 180);
    ck_assert_msg(k.r.status == bare.status, "%s --gpu kernels: exit %d, bare %d; stderr: %s",
                  name, k.r.status, bare.status, k.r.err);
    /* (a program whose CUDA calls no hook sees, device_query's queries, is
     * seen by CUPTI's API records only: with none, there is nothing to write) */
    ck_assert_msg(k.trace || !p.trace || iget_events(p.sum) == 0,
                  "%s: no trace with --gpu kernels", name);
    if (p.trace) {
        size_t na, nk = 0;
        char **ca = e2e_device_causes(p.trace, &na);
        char **ck = k.trace ? e2e_device_causes(k.trace, &nk) : NULL;
        ck_assert_msg(na == nk, "%s: %zu device records, %zu with --gpu kernels", name, na, nk);
        for (size_t i = 0; i < na; i++)
            ck_assert_msg(!strcmp(ca[i], ck[i]), "%s: %s, with --gpu kernels %s", name, ca[i],
                          ck[i]);
        e2e_strv_free(ca, na);
        e2e_strv_free(ck, nk);
    }
    e2e_prof_free(&k);
    free(mb);
    free(mp);
    free(eb);
    free(ep);
    free(src);
    e2e_prof_free(&p);
    e2e_result_free(&bare);
}
END_TEST

/* Every cuBLAS call is a row with its work (issue 33): level1_blas's
 * cublasSetVector/SetMatrix/GetVector own the copies CUPTI saw inside them
 * (they were CUPTI-only cudaMemcpy2D rows), its level-1 and 2 calls their
 * kernels (launch census: every kernel inside a hooked call). */
START_TEST(every_cublas_call_is_a_row_with_its_work)
{
    const char *argv[] = {e2e_bpath("tests/corpus/level1_blas"), NULL};
    e2e_prof p = e2e_profile(1, argv, NULL, 180);
    ck_assert_msg(p.r.status == 0 && p.sum, "exit %d\n%s", p.r.status, p.r.err);
    static const char *const owns[] = {"cublasSetVector", "cublasSetMatrix", "cublasGetVector",
                                       "cublasSaxpy_v2", "cublasSnrm2_v2", "cublasSgemv_v2"};
    long long copies = 0, owned = 0;
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(p.sum, "api"), i, r) {
        const char *n = e2e_str(r, "name");
        if (!strcmp(n, "cudaMemcpy2D"))
            copies = e2e_int(r, "cuda_self_ns");
        for (size_t k = 0; k < sizeof owns / sizeof owns[0]; k++)
            if (!strcmp(n, owns[k])) {
                ck_assert_msg(e2e_int(r, "cuda_total_ns") > 0, "%s owns no GPU time", n);
                if (k < 3)
                    owned += e2e_int(r, "cuda_total_ns");
            }
    }
    ck_assert_int_gt(copies, 0);
    ck_assert_int_eq(owned, copies);   /* the helpers' copies are theirs */
    json_t *c = json_object_get(p.sum, "launch_census");
    ck_assert(json_number_value(json_object_get(c, "coverage")) == 1.0);
    e2e_prof_free(&p);
}
END_TEST

/* Every cuFFT, cuRAND, cuSPARSE and cuSOLVER call is a row with its work and
 * its sizes (issue 41): the corpus's library programs' compute calls own GPU
 * time (their kernels were charged to the libraries' own cudaLaunchKernel),
 * every kernel was launched inside a hooked call, and the trace shows the
 * sizes of the call (an exec's joined to the plan or descriptor it names). */
static const struct {
    const char *prog, *call;        /* a call that must own GPU time */
    const char *key, *want;         /* and one of its trace args, as text */
    const char *key2;               /* and one as a number... */
    long long want2;                /* ...of this value */
} math_calls[] = {
    {"fft_roundtrip", "cufftExecC2C", "type", "C2C", "nx", 256},
    {"fft_roundtrip", "cufftExecZ2Z", "type", "Z2Z", "ny", 24},
    {"fft_roundtrip", "cufftExecR2C", "type", "R2C", "nx", 1000},
    {"rand_montecarlo", "curandGenerateUniform", "distribution", "uniform", "count", 400000},
    {"rand_montecarlo", "curandGeneratePoisson", "generator", "PSEUDO_DEFAULT", "count", 200000},
    {"sparse_spmv", "cusparseSpMV", "format", "CSR", "nnz", 2998},
    {"sparse_spmv", "cusparseSpMM", "format", "CSR", "b_cols", 4},
    {"solver_dense", "cusolverDnDgetrf", NULL, NULL, "n", 64},
    {"solver_dense", "cusolverDnSpotrf", NULL, NULL, "n", 32},
};

/* The first complete event of the trace named name. */
static json_t *first_call(json_t *trace, const char *name)
{
    size_t i;
    json_t *ev;
    json_array_foreach(json_object_get(trace, "traceEvents"), i, ev) {
        const char *n = json_string_value(json_object_get(ev, "name"));
        const char *ph = json_string_value(json_object_get(ev, "ph"));
        if (n && ph && !strcmp(n, name) && !strcmp(ph, "X"))
            return ev;
    }
    return NULL;
}

START_TEST(every_math_call_is_a_row_with_its_work)
{
    const char *prog = NULL;
    e2e_prof p = {0};
    for (size_t c = 0; c < sizeof math_calls / sizeof math_calls[0]; c++) {
        if (prog == NULL || strcmp(prog, math_calls[c].prog)) {
            if (prog)
                e2e_prof_free(&p);
            prog = math_calls[c].prog;
            char rel[128];
            snprintf(rel, sizeof rel, "tests/corpus/%s", prog);
            const char *argv[] = {e2e_bpath(rel), NULL};
            p = e2e_profile(1, argv, NULL, 180);
            ck_assert_msg(p.r.status == 0 && p.sum && p.trace, "%s: exit %d\n%s", prog, p.r.status, p.r.err);
            json_t *census = json_object_get(p.sum, "launch_census");
            ck_assert_msg(json_number_value(json_object_get(census, "coverage")) == 1.0,
                          "%s: a kernel was launched outside every hooked call", prog);
        }
        long long owned = -1;
        size_t i;
        json_t *r;
        json_array_foreach(json_object_get(p.sum, "api"), i, r)
            if (!strcmp(e2e_str(r, "name"), math_calls[c].call))
                owned = e2e_int(r, "cuda_total_ns");
        ck_assert_msg(owned > 0, "%s: %s is no row with GPU time (%lld)", prog, math_calls[c].call, owned);
        json_t *ev = first_call(p.trace, math_calls[c].call), *args = json_object_get(ev, "args");
        ck_assert_msg(args != NULL, "%s: no %s in the trace", prog, math_calls[c].call);
        if (math_calls[c].key)
            ck_assert_str_eq(e2e_str(args, math_calls[c].key), math_calls[c].want);
        ck_assert_msg(e2e_int(args, math_calls[c].key2) == math_calls[c].want2, "%s: %s's %s is %lld, want %lld",
                      prog, math_calls[c].call, math_calls[c].key2, e2e_int(args, math_calls[c].key2),
                      math_calls[c].want2);
        /* and summary.json's math rows have it with its size, and all its GPU time */
        long long rows = 0, gpu = 0;
        json_array_foreach(json_object_get(p.sum, "math"), i, r)
            if (!strcmp(e2e_str(r, "name"), math_calls[c].call) && e2e_int(r, "calls") > 0 &&
                (e2e_int(r, "m") | e2e_int(r, "n") | e2e_int(r, "k")) != 0) {
                rows++;
                gpu += e2e_int(r, "gpu_total_ns");
            }
        ck_assert_msg(rows > 0, "%s: no math row of %s with its size", prog, math_calls[c].call);
        ck_assert_msg(gpu == owned, "%s: %s's math rows hold %lld ns, its api row %lld", prog, math_calls[c].call,
                      gpu, owned);
    }
    e2e_prof_free(&p);
}
END_TEST

/* The masking itself: timings go, other numbers stay. */
START_TEST(mask_only_timings)
{
    char *m = mask_times("4 streams:\t18.67 ms\nkernels took 0.051ms; 8 MiB\n");
    ck_assert_str_eq(m, "4 streams:\t# ms\nkernels took #ms; 8 MiB\n");
    free(m);
}
END_TEST

START_TEST(corpus_is_there)
{
    ck_assert_int_ge(nprogs, 12);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("e2e_corpus");
    TCase *tc = tcase_create("corpus");
    SRunner *sr;
    int failed;
    find_programs();
    tcase_set_timeout(tc, 400);
    tcase_add_test(tc, mask_only_timings);
    tcase_add_test(tc, corpus_is_there);
    tcase_add_test(tc, every_cublas_call_is_a_row_with_its_work);
    tcase_add_test(tc, every_math_call_is_a_row_with_its_work);
    tcase_add_loop_test(tc, corpus_program, 0, nprogs);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
