/*
 * test_sim_exports.c - the simulated libraries load every program the real
 * ones load: each function the toolkit's libcudart, libcublas, libcublasLt,
 * libcupti, libcufft, libcurand, libcusparse and libcusolver export
 * (objdump -T: name and version node) is exported by
 * the sim's library too; and an entry point the sim does not model says so
 * (one "cusim: NAME is not simulated" line, a count at exit) and returns the
 * library's "not supported" status (stub_prog.c).
 */
#include "harness.h"

#include <check.h>
#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <cupti_result.h>
#include <cufft.h>
#include <curand.h>
#include <cusolver_common.h>
#define DISABLE_CUSPARSE_DEPRECATED
#include <cusparse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "name@version" of each function lib exports, one per line, sorted; owned. */
static char *exports(const char *lib)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd,
             "objdump -T '%s' | awk '$2 == \"g\" && $3 ~ /F/ && $4 == \".text\" "
             "{ print $NF \"@\" $(NF - 1) }' | sort -u",
             lib);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t cap = 1 << 16, n = 0;
    char *out = malloc(cap);
    ck_assert_ptr_nonnull(out);
    size_t k;
    while ((k = fread(out + n, 1, cap - n - 1, p)) > 0)
        if ((n += k) + 1 == cap)
            ck_assert_ptr_nonnull(out = realloc(out, cap *= 2));
    out[n] = '\0';
    ck_assert_int_eq(pclose(p), 0);
    return out;
}

START_TEST(every_real_export_is_in_the_sim)
{
    static const char *const libs[] = {"libcudart.so.13",   "libcublas.so.13",  "libcublasLt.so.13",
                                       "libcupti.so.13",    "libcufft.so.12",   "libcurand.so.10",
                                       "libcusparse.so.12", "libcusolver.so.12"};
    const char *home = getenv("CUDA_HOME") ? getenv("CUDA_HOME") : "/usr/local/cuda";
    char real_path[4096], sim_path[4096];
    snprintf(real_path, sizeof real_path, "%s/lib64/%s", home, libs[_i]);
    snprintf(sim_path, sizeof sim_path, "%s/sim/%s", e2e_build(), libs[_i]);
    char *real = exports(real_path), *sim = exports(sim_path);
    size_t nreal = 0, missing = 0;
    char list[1024] = "";
    for (char *save = NULL, *l = strtok_r(real, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        nreal++;
        char line[512];
        snprintf(line, sizeof line, "\n%s\n", l);
        char head[512];
        snprintf(head, sizeof head, "%s\n", l);
        if (strncmp(sim, head, strlen(head)) != 0 && !strstr(sim, line)) {
            if (missing++ < 8)
                snprintf(list + strlen(list), sizeof list - strlen(list), " %s", l);
        }
    }
    ck_assert_msg(nreal > 20, "%s: only %zu exports read", real_path, nreal);
    ck_assert_msg(missing == 0, "%s: %zu of the real library's %zu functions are not exported:%s%s",
                  sim_path, missing, nreal, list, missing > 8 ? " ..." : "");
    free(real);
    free(sim);
}
END_TEST

/* The driver: every function the toolkit's stubs/libcuda.so exports (no
 * version nodes there: names only) is in the sim's libcuda.so.1, and its
 * cuGetProcAddress answers each (issue 31: driver-API programs died at load
 * with "undefined symbol: cuDeviceGetCount"). */
START_TEST(every_driver_export_is_in_the_sim)
{
    const char *home = getenv("CUDA_HOME") ? getenv("CUDA_HOME") : "/usr/local/cuda";
    char cmd[8400];
    snprintf(cmd, sizeof cmd,
             "objdump -T '%s/lib64/stubs/libcuda.so' | awk '$2 == \"g\" && $3 ~ /F/ && $4 == \".text\" "
             "{ print $NF }' | sort -u > '%s/real_cuda.txt' && "
             "objdump -T '%s/sim/libcuda.so.1' | awk '$2 == \"g\" && $3 ~ /F/ && $4 == \".text\" "
             "{ print $NF }' | sort -u > '%s/sim_cuda.txt' && "
             "wc -l < '%s/real_cuda.txt' && comm -23 '%s/real_cuda.txt' '%s/sim_cuda.txt' | head -8",
             home, e2e_build(), e2e_build(), e2e_build(), e2e_build(), e2e_build(), e2e_build());
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    char line[256], missing[1024] = "";
    long nreal = -1;
    while (fgets(line, sizeof line, p)) {
        if (nreal < 0)
            nreal = atol(line);
        else
            snprintf(missing + strlen(missing), sizeof missing - strlen(missing), " %s", strtok(line, "\n"));
    }
    ck_assert_int_eq(pclose(p), 0);
    ck_assert_msg(nreal > 500, "only %ld driver exports read", nreal);
    ck_assert_msg(missing[0] == '\0', "the sim's libcuda.so.1 lacks:%s", missing);
}
END_TEST

START_TEST(a_stub_says_not_supported)
{
    const char *argv[] = {e2e_bpath("tests/sim_stub_prog"), NULL};
    const char *env[] = {e2e_sim_env(), NULL};
    e2e_result r = e2e_run(argv, env, NULL, 60);
    ck_assert_msg(r.status == 0, "exit %d\n%s\n%s", r.status, r.out, r.err);
    char want[512];
    snprintf(want, sizeof want,
             "cudaGLGetDevices %d\ncudaGetLastError %d\ncublasXtCreate %d\n"
             "cuptiPCSamplingEnable %d\nInitializeInjectionNvtx2 0\n"
             "cufftXtSetGPUs %d\ncurandGetDirectionVectors32 %d\ncusparseSpSM_createDescr %d\n"
             "cusolverDnSgesvdj %d\n",
             (int)cudaErrorNotSupported, (int)cudaErrorNotSupported,
             (int)CUBLAS_STATUS_NOT_SUPPORTED, (int)CUPTI_ERROR_NOT_SUPPORTED, (int)CUFFT_NOT_SUPPORTED,
             (int)CURAND_STATUS_INTERNAL_ERROR, (int)CUSPARSE_STATUS_NOT_SUPPORTED,
             (int)CUSOLVER_STATUS_NOT_SUPPORTED);
    ck_assert_int_eq(e2e_count(r.out, want), 2);   /* the same both times */
    ck_assert_int_eq(e2e_count(r.err, "cusim: cudaGLGetDevices is not simulated"), 1);
    ck_assert_int_eq(e2e_count(r.err, "cusim: cuptiPCSamplingEnable is not simulated"), 1);
    ck_assert_int_eq(e2e_count(r.err, "cusim: cusolverDnSgesvdj is not simulated"), 1);
    ck_assert_int_eq(e2e_count(r.err, "is not simulated"), 8);
    ck_assert_int_eq(e2e_count(r.err, "cusim: 16 calls to 8 entry points that are not simulated\n"), 1);
    e2e_result_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sim_exports");
    TCase *tc = tcase_create("exports");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, every_real_export_is_in_the_sim, 0, 8);
    tcase_add_test(tc, every_driver_export_is_in_the_sim);
    tcase_add_test(tc, a_stub_says_not_supported);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
