/*
 * test_mathlib.c - model/mathlib.h: a math-library call's sizes, its own or
 * joined from the call that made its handle (issue 41), on a run filled by
 * hand: two threads, a plan made on one and used on the other, a plan
 * handle reused after cufftDestroy, cuSPARSE descriptors (SpMM's B), a
 * generator, a solver routine.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <cufft.h>
#include <curand.h>
#include <library_types.h>
#define DISABLE_CUSPARSE_DEPRECATED /* the generic API's enums only */
#include <cusparse.h>

#include "model/mathlib.h"

static const cuprof_api_desc APIS[] = {
    {"cufftPlan1d", "cufft"}, {"cufftExecC2C", "cufft"}, {"cufftCreate", "cufft"},
    {"cufftMakePlan2d", "cufft"}, {"curandCreateGenerator", "curand"}, {"curandGenerateNormal", "curand"},
    {"cusparseCreateCsr", "cusparse"}, {"cusparseCreateDnMat", "cusparse"}, {"cusparseSpMM", "cusparse"},
    {"cusolverDnSpotrf", "cusolver"}, {"cudaMalloc", "cuda_runtime"},
};
enum { A_PLAN1D, A_EXEC, A_CREATE, A_MAKE2D, A_GEN, A_NORMAL, A_CSR, A_DNMAT, A_SPMM, A_POTRF, A_MALLOC };

static cuprof_event ev0[8], ev1[8];
static const cuprof_event *chunk0[] = {ev0}, *chunk1[] = {ev1};
static cuprof_run_thread threads[2];
static cuprof_run run;

static cuprof_event math(uint64_t t0, int api, uint8_t lib, int made, uint64_t handle)
{
    cuprof_event e = {.t0 = t0, .t1 = t0 + 10, .api = (uint16_t)api, .cls = CUPROF_EV_MATH};
    e.a.math.lib = (uint8_t)(lib | (made ? CUPROF_MATH_MADE : 0));
    e.a.math.handle = handle;
    return e;
}

static void make_run(void)
{
    memset(ev0, 0, sizeof ev0);
    memset(ev1, 0, sizeof ev1);
    /* thread 1: plan 1 made (C2C 256 x 4), a 2-D plan made on plan 2 */
    ev0[0] = math(100, A_PLAN1D, CUPROF_MATH_FFT, 1, 1);
    ev0[0].a.math.m = 256, ev0[0].a.math.batch = 4, ev0[0].a.math.kind = CUFFT_C2C;
    ev0[1] = math(200, A_CREATE, CUPROF_MATH_FFT, 0, 0);
    ev0[2] = math(300, A_MAKE2D, CUPROF_MATH_FFT, 1, 2);
    ev0[2].a.math.m = 12, ev0[2].a.math.n = 24, ev0[2].a.math.kind = CUFFT_Z2Z;
    ev0[3] = math(400, A_GEN, CUPROF_MATH_RAND, 1, 0xabc0);
    ev0[3].a.math.kind = CURAND_RNG_PSEUDO_PHILOX4_32_10;
    ev0[4] = math(500, A_CSR, CUPROF_MATH_SPARSE, 1, 0x1000);
    ev0[4].a.math.m = 1000, ev0[4].a.math.n = 900, ev0[4].a.math.k = 2998, ev0[4].a.math.kind = CUSPARSE_FORMAT_CSR;
    ev0[5] = math(600, A_DNMAT, CUPROF_MATH_SPARSE, 1, 0x2000);
    ev0[5].a.math.m = 900, ev0[5].a.math.n = 4, ev0[5].a.math.kind = CUPROF_MATH_DENSE;
    /* plan 1 made again later, now 512 (a handle reused after cufftDestroy) */
    ev0[6] = math(5000, A_PLAN1D, CUPROF_MATH_FFT, 1, 1);
    ev0[6].a.math.m = 512, ev0[6].a.math.kind = CUFFT_R2C;
    ev0[7] = (cuprof_event){.t0 = 6000, .t1 = 6010, .api = A_MALLOC, .cls = CUPROF_EV_ALLOC};
    /* thread 2: the users */
    ev1[0] = math(1000, A_EXEC, CUPROF_MATH_FFT, 0, 1);
    ev1[0].a.math.algo = 1;   /* forward */
    ev1[1] = math(1100, A_EXEC, CUPROF_MATH_FFT, 0, 2);
    ev1[2] = math(1200, A_NORMAL, CUPROF_MATH_RAND, 0, 0xabc0);
    ev1[2].a.math.k = 1000000, ev1[2].a.math.kind = CUPROF_DIST_NORMAL;
    ev1[3] = math(1300, A_SPMM, CUPROF_MATH_SPARSE, 0, 0x1000);
    ev1[3].a.math.k = 0x2000, ev1[3].a.math.algo = 3;
    ev1[4] = math(1400, A_POTRF, CUPROF_MATH_SOLVER, 0, 0);
    ev1[4].a.math.n = 32;
    ev1[5] = math(7000, A_EXEC, CUPROF_MATH_FFT, 0, 1);
    ev1[6] = math(50, A_EXEC, CUPROF_MATH_FFT, 0, 1);        /* before any plan: no join */
    ev1[7] = math(1500, A_EXEC, CUPROF_MATH_FFT, 0, 77);     /* a plan never made */
    threads[0] = (cuprof_run_thread){.index = 1, .tid = 1, .n = 8, .per_chunk = 8, .chunks = chunk0};
    threads[1] = (cuprof_run_thread){.index = 2, .tid = 2, .n = 8, .per_chunk = 8, .chunks = chunk1};
    memset(&run, 0, sizeof run);
    run.napis = sizeof APIS / sizeof APIS[0];
    run.apis = APIS;
    run.threads = threads;
    run.nthreads = 2;
    run.nevents = 16;
}

START_TEST(exec_joins_its_plan)
{
    make_run();
    cuprof_math_index *ix = cuprof_math_index_build(&run);
    ck_assert_ptr_nonnull(ix);
    cuprof_math_args a;
    ck_assert_int_eq(cuprof_math_args_of(ix, &run, &ev1[0], &a), 1);
    ck_assert_int_eq(a.lib, CUPROF_MATH_FFT);
    ck_assert_int_eq(a.op, CUPROF_MOP_FFT_EXEC);
    ck_assert_int_eq(a.joined, 1);
    ck_assert_int_eq(a.rank, 1);
    ck_assert_uint_eq(a.dims[0], 256);
    ck_assert_uint_eq(a.batch, 4);
    ck_assert_int_eq(a.kind, CUFFT_C2C);
    ck_assert_int_eq(a.direction, -1);
    /* cufftCreate + cufftMakePlan2d */
    ck_assert_int_eq(cuprof_math_args_of(ix, &run, &ev1[1], &a), 1);
    ck_assert_int_eq(a.rank, 2);
    ck_assert_uint_eq(a.dims[0], 12);
    ck_assert_uint_eq(a.dims[1], 24);
    ck_assert_uint_eq(a.batch, 1);
    ck_assert_int_eq(a.kind, CUFFT_Z2Z);
    /* the handle made again: the latest maker before the call */
    ck_assert_int_eq(cuprof_math_args_of(ix, &run, &ev1[5], &a), 1);
    ck_assert_uint_eq(a.dims[0], 512);
    ck_assert_int_eq(a.kind, CUFFT_R2C);
    /* nothing to join */
    ck_assert_int_eq(cuprof_math_args_of(ix, &run, &ev1[6], &a), 1);
    ck_assert_int_eq(a.joined, 0);
    ck_assert_int_eq(a.rank, 0);
    ck_assert_int_eq(cuprof_math_args_of(ix, &run, &ev1[7], &a), 1);
    ck_assert_int_eq(a.joined, 0);
    /* the plan call itself */
    ck_assert_int_eq(cuprof_math_args_of(ix, &run, &ev0[0], &a), 1);
    ck_assert_int_eq(a.made, 1);
    ck_assert_int_eq(a.op, CUPROF_MOP_FFT_PLAN);
    ck_assert_uint_eq(a.dims[0], 256);
    /* not a math call */
    ck_assert_int_eq(cuprof_math_args_of(ix, &run, &ev0[7], &a), 0);
    ck_assert_int_eq(a.lib, 0);
    cuprof_math_index_destroy(ix);
}
END_TEST

START_TEST(generate_sparse_solver)
{
    make_run();
    cuprof_math_index *ix = cuprof_math_index_build(&run);
    cuprof_math_args a;
    cuprof_math_args_of(ix, &run, &ev1[2], &a);
    ck_assert_int_eq(a.op, CUPROF_MOP_RAND_GEN);
    ck_assert_int_eq(a.dist, CUPROF_DIST_NORMAL);
    ck_assert_int_eq(a.kind, CURAND_RNG_PSEUDO_PHILOX4_32_10);
    ck_assert_uint_eq(a.k, 1000000);
    cuprof_math_args_of(ix, &run, &ev1[3], &a);
    ck_assert_int_eq(a.op, CUPROF_MOP_SPMM);
    ck_assert_uint_eq(a.m, 1000);
    ck_assert_uint_eq(a.n, 900);
    ck_assert_uint_eq(a.k, 2998);
    ck_assert_int_eq(a.kind, CUSPARSE_FORMAT_CSR);
    ck_assert_uint_eq(a.b_cols, 4);
    ck_assert_int_eq(a.algo, 3);
    cuprof_math_args_of(ix, &run, &ev1[4], &a);
    ck_assert_int_eq(a.op, CUPROF_MOP_POTRF);
    ck_assert_uint_eq(a.m, 32);
    ck_assert_uint_eq(a.n, 32);
    /* the trace's args say it in words */
    cuprof_math_field f[CUPROF_MATH_FIELDS];
    cuprof_math_args_of(ix, &run, &ev1[3], &a);
    int n = cuprof_math_fields(&a, "cusparseSpMM", f), seen = 0;
    for (int i = 0; i < n; i++)
        if (!strcmp(f[i].key, "format")) {
            ck_assert_str_eq(f[i].str, "CSR");
            seen++;
        } else if (!strcmp(f[i].key, "nnz")) {
            ck_assert_uint_eq(f[i].u, 2998);
            seen++;
        }
    ck_assert_int_eq(seen, 2);
    /* without an index: the call's own arguments */
    cuprof_math_args_of(NULL, &run, &ev1[0], &a);
    ck_assert_int_eq(a.joined, 0);
    cuprof_math_index_destroy(ix);
}
END_TEST

/* The summary's rows: the calls that compute, by entry point and size, most
 * calls first; set-up (plans, descriptors, generators) left out. */
START_TEST(summary_rows)
{
    make_run();
    cuprof_math_index *ix = cuprof_math_index_build(&run);
    cuprof_summary s;
    memset(&s, 0, sizeof s);
    ck_assert_int_eq(cuprof_math_summarize(ix, &run, NULL, &s), 0);
    /* 5 execs (two unjoined alike), a generate, an SpMM, a potrf */
    ck_assert_uint_eq(s.nmath, 7);
    ck_assert_uint_eq(s.math[0].calls, 2);
    ck_assert_str_eq(s.math[0].name, "cufftExecC2C");
    int seen = 0;
    for (size_t i = 0; i < s.nmath; i++) {
        const cuprof_stat_math *r = &s.math[i];
        ck_assert_msg(strcmp(r->name, "cufftPlan1d") && strcmp(r->name, "cusparseCreateCsr"), "%s", r->name);
        if (!strcmp(r->name, "cusparseSpMM")) {
            ck_assert_str_eq(r->kind, "CSR");
            ck_assert_str_eq(r->library, "cusparse");
            ck_assert_uint_eq(r->k, 2998);
            ck_assert_uint_eq(r->b_cols, 4);
            ck_assert_uint_eq(r->flops_per_call, 2 * 2998 * 4);   /* 2 nnz n */
            seen++;
        } else if (!strcmp(r->name, "cusolverDnSpotrf")) {
            ck_assert_str_eq(r->dtype, "fp32");
            ck_assert_uint_eq(r->m, 32);
            ck_assert_uint_eq(r->flops_per_call, 10923);   /* n^3 / 3, rounded */
            ck_assert_str_eq(r->prec, "fp32");
            ck_assert_double_eq(r->peak_pct, 0.0);         /* no GPU known here */
            seen++;
        } else if (r->m == 256) {
            ck_assert_str_eq(r->kind, "C2C");
            ck_assert_uint_eq(r->batch, 4);
            ck_assert_uint_eq(r->flops_per_call, 5 * 256 * 8 * 4);   /* 5 N log2 N x batch */
            seen++;
        }
    }
    ck_assert_int_eq(seen, 3);
    free(s.math);
    cuprof_math_index_destroy(ix);
}
END_TEST

/* FLOPs as LAPACK and the FFT literature count them (cuprof_math_flops). */
START_TEST(flops_counted)
{
    cuprof_math_args a = {.lib = CUPROF_MATH_SOLVER, .op = CUPROF_MOP_GETRF, .m = 96, .n = 96, .batch = 1,
                          .dtype = CUDA_R_64F};
    ck_assert_uint_eq(cuprof_math_flops(&a), 2 * 96 * 96 * 96 / 3);
    a.m = 200, a.n = 100;   /* tall: m n^2 - n^3 / 3 */
    ck_assert_uint_eq(cuprof_math_flops(&a), (uint64_t)(200.0 * 100 * 100 - 1e6 / 3 + 0.5));
    a.m = a.n = 96, a.dtype = CUDA_C_64F, a.batch = 3;   /* complex x4, batched */
    ck_assert_uint_eq(cuprof_math_flops(&a), 3 * 4 * 2 * 96 * 96 * 96 / 3);
    a = (cuprof_math_args){.lib = CUPROF_MATH_SOLVER, .op = CUPROF_MOP_GEQRF, .m = 30, .n = 30, .batch = 1,
                           .dtype = CUDA_R_32F};
    ck_assert_uint_eq(cuprof_math_flops(&a), 36000);   /* 4/3 n^3 */
    a.op = CUPROF_MOP_GETRS, a.k = 5;
    ck_assert_uint_eq(cuprof_math_flops(&a), 2 * 30 * 30 * 5);
    a.op = CUPROF_MOP_GESVD;   /* data-dependent: not counted */
    ck_assert_uint_eq(cuprof_math_flops(&a), 0);
    a = (cuprof_math_args){.lib = CUPROF_MATH_FFT, .op = CUPROF_MOP_FFT_EXEC, .kind = CUFFT_C2C,
                           .dims = {64, 64, 0}, .batch = 2};
    ck_assert_uint_eq(cuprof_math_flops(&a), 2 * 5 * 4096 * 12);
    a.kind = CUFFT_R2C;   /* a real transform: half */
    ck_assert_uint_eq(cuprof_math_flops(&a), 2 * 5 * 4096 * 12 / 2);
    a = (cuprof_math_args){.lib = CUPROF_MATH_FFT, .op = CUPROF_MOP_FFT_EXEC, .kind = CUFFT_C2C,
                           .dims = {1000, 0, 0}, .batch = 1};   /* not a power of two */
    ck_assert_uint_eq(cuprof_math_flops(&a), 49829);   /* 5 x 1000 x 9.96578 */
    a = (cuprof_math_args){.lib = CUPROF_MATH_SPARSE, .op = CUPROF_MOP_SPMV, .k = 2998, .batch = 1};
    ck_assert_uint_eq(cuprof_math_flops(&a), 5996);
    a = (cuprof_math_args){.lib = CUPROF_MATH_RAND, .op = CUPROF_MOP_RAND_GEN, .k = 1000, .batch = 1};
    ck_assert_uint_eq(cuprof_math_flops(&a), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mathlib");
    TCase *t = tcase_create("joins");
    tcase_add_test(t, exec_joins_its_plan);
    tcase_add_test(t, generate_sparse_solver);
    tcase_add_test(t, summary_rows);
    tcase_add_test(t, flops_counted);
    suite_add_tcase(s, t);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
