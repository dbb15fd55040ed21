/*
 * test_sim_trace.c - what the simulated device (and so CUPTI) sees of a
 * cuBLAS/cuBLASLt call: cuBLAS 13's call sequence per GEMM (a driver
 * cuLaunchKernelEx among runtime and driver queries, no occupancy query), the
 * kernel correlated to the launch, its name and launch shape, no dynamic
 * cudart calls, and the cold start on a handle's first GEMM.
 */
#include "test_util.h"

#include <cuda_runtime_api.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

START_TEST(test_lt_one_kernel_per_matmul)
{
    lt_case c = {CUDA_R_16BF, CUBLAS_OP_N, CUBLAS_OP_N, 64, 48, 32, CUBLASLT_EPILOGUE_BIAS, 0.0f};
    lt_run r;
    const cusim_kernel_desc *k;
    lt_setup(&r, &c);
    rec_start();
    ck_assert_int_eq(lt_matmul(&r, 0.0f), CUBLAS_STATUS_SUCCESS); /* cold */
    ck_assert_int_eq(rec.nkern, 1);
    expect_gemm_sequence(0, "first matmul");
    ck_assert_int_eq(lt_matmul(&r, 0.0f), CUBLAS_STATUS_SUCCESS); /* warm */
    ck_assert_int_eq(rec.nkern, 2);
    expect_gemm_sequence(GEMM_SEQ_CALLS, "second matmul");
    k = &rec.desc[1];
    ck_assert_int_eq(k->cls, CUSIM_KERNEL_GEMM);
    ck_assert(k->flops == 2.0 * 64 * 48 * 32);
    /* A + B + D + bias, 2 bytes each (beta 0: C not read) */
    ck_assert(k->bytes == 2.0 * (64 * 32 + 32 * 48 + 64 * 48 + 64));
    ck_assert_int_eq(k->tensor_dtype_bits, 16);
    ck_assert_uint_eq(k->grid[0], 1);
    ck_assert_uint_eq(k->grid[1], 1);
    ck_assert_uint_eq(k->grid[2], 1);
    ck_assert(k->block[0] == 128 || k->block[0] == 384);
    ck_assert_uint_gt(k->registers, 100);
    ck_assert_uint_gt(k->dynamic_smem, 32 * 1024);
    ck_assert_ptr_nonnull(strstr(k->name, "_h_bz_bias_NNT"));
    /* the same problem twice gives the same interned name */
    ck_assert_ptr_eq(rec.kern[0].desc->name, rec.kern[1].desc->name);
    rec_stop();
    lt_teardown(&r);
}
END_TEST

START_TEST(test_gemmex_sequence_and_no_cudart)
{
    cublasHandle_t h;
    float one = 1.0f, zero = 0.0f;
    void *A = fill(CUDA_R_16F, 256, 1), *C = dev(256 * 2);
    ck_assert_int_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
    rec_start();
    ck_assert_int_eq(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, 16, 16, 16, &one, A, CUDA_R_16F, 16,
                                  A, CUDA_R_16F, 16, &zero, C, CUDA_R_16F, 16, CUBLAS_COMPUTE_32F,
                                  CUBLAS_GEMM_DEFAULT),
                     CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(rec.nkern, 1);
    expect_gemm_sequence(0, "GemmEx");
    rec_stop();
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
}
END_TEST

/* ---- cudart stand-ins: what an LD_PRELOAD hook would see ------------------------
 * The test binary is linked with --export-dynamic, so these definitions would
 * interpose on any dynamic call the libraries made to the runtime, exactly as
 * a profiler's preloaded hooks do. The real cuBLAS links cudart statically and
 * never shows up there; neither must ours. */
static int cudart_calls; /* calls that reached the stand-ins */

cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t smem,
                             cudaStream_t stream)
{
    (void)func, (void)grid, (void)block, (void)args, (void)smem, (void)stream;
    cudart_calls++;
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *n, const void *func,
                                                                   int block, size_t smem,
                                                                   unsigned int flags)
{
    (void)func, (void)block, (void)smem, (void)flags;
    *n = 1;
    cudart_calls++;
    return cudaSuccess;
}

cudaError_t cudaMalloc(void **p, size_t size)
{
    *p = malloc(size);
    cudart_calls++;
    return cudaSuccess;
}

/* dl_iterate_phdr callback: counts loaded objects named like libcudart. */
static int find_cudart(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    if (info->dlpi_name != NULL && strstr(info->dlpi_name, "libcudart") != NULL)
        ++*(int *)data;
    return 0;
}

START_TEST(test_no_cudart_calls)
{
    lt_case c = {CUDA_R_16BF, CUBLAS_OP_N, CUBLAS_OP_N, 16, 16, 16, CUBLASLT_EPILOGUE_BIAS, 0.0f};
    cublasHandle_t h;
    float one = 1.0f, *A = fill(CUDA_R_32F, 16, 1), *C = dev(16 * sizeof(float));
    int loaded = 0;
    lt_run r;
    lt_setup(&r, &c);
    ck_assert_int_eq(lt_matmul(&r, 0.0f), CUBLAS_STATUS_SUCCESS); /* cold */
    ck_assert_int_eq(lt_matmul(&r, 0.0f), CUBLAS_STATUS_SUCCESS); /* warm */
    lt_teardown(&r);
    ck_assert_int_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, A, 4, A, 4, &one, C,
                                 4),
                     CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cudart_calls, 0);
    /* nor is the exported runtime even loaded */
    dl_iterate_phdr(find_cudart, &loaded);
    ck_assert_int_eq(loaded, 0);
}
END_TEST

/* Runs one tiny GEMM of the given kind on a fresh stream and returns its name. */
static const char *name_of(cudaDataType t, cublasOperation_t ta, int m, int n, int k)
{
    cublasHandle_t h;
    float one = 1.0f;
    /* operands are only read when the problem is small enough to compute */
    size_t big = (double)m * n * k > (double)SIMBLAS_COMPUTE_MAX_DEFAULT
                     ? 8
                     : (size_t)(m > k ? m : k) * (size_t)(n > k ? n : k);
    void *A = dev(big * esize(t)), *B = dev(big * esize(t)), *C = dev((size_t)m * n * esize(t));
    const char *name;
    ck_assert_int_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
    rec_start();
    ck_assert_int_eq(cublasGemmEx(h, ta, CUBLAS_OP_N, m, n, k, &one, A, t, ta == CUBLAS_OP_N ? m : k,
                                  B, t, k, &one, C, t, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                     CUBLAS_STATUS_SUCCESS);
    name = last_kernel();
    rec_stop();
    cublasDestroy(h);
    cusim_mem_free(A, CUSIM_MEM_DEVICE);
    cusim_mem_free(B, CUSIM_MEM_DEVICE);
    cusim_mem_free(C, CUSIM_MEM_DEVICE);
    return name;
}

/* Name of a matmul with this epilogue. */
static const char *lt_name_of(cublasLtEpilogue_t epi)
{
    lt_case c = {CUDA_R_16BF, CUBLAS_OP_N, CUBLAS_OP_N, 32, 32, 32, epi, 0.0f};
    lt_run r;
    const char *name;
    lt_setup(&r, &c);
    rec_start();
    ck_assert_int_eq(lt_matmul(&r, 0.0f), CUBLAS_STATUS_SUCCESS);
    name = last_kernel();
    rec_stop();
    lt_teardown(&r);
    return name;
}

START_TEST(test_kernel_names)
{
    const char *bf = name_of(CUDA_R_16BF, CUBLAS_OP_N, 64, 64, 64);
    const char *hf = name_of(CUDA_R_16F, CUBLAS_OP_N, 64, 64, 64);
    const char *f32 = name_of(CUDA_R_32F, CUBLAS_OP_N, 64, 64, 64);
    const char *bft = name_of(CUDA_R_16BF, CUBLAS_OP_T, 64, 64, 64);
    const char *big = name_of(CUDA_R_16BF, CUBLAS_OP_T, 4096, 4096, 4096); /* timing only */
    const char *def = lt_name_of(CUBLASLT_EPILOGUE_DEFAULT), *bias = lt_name_of(CUBLASLT_EPILOGUE_BIAS);
    const char *relu = lt_name_of(CUBLASLT_EPILOGUE_RELU_BIAS), *gelu = lt_name_of(CUBLASLT_EPILOGUE_GELU_BIAS);
    ck_assert_str_eq(bf, "nvjet_sm90_tst_64x64_64x4_1x1_h_badd_NNT");
    ck_assert_ptr_nonnull(strstr(hf, "_h_badd_"));
    ck_assert_ptr_nonnull(strstr(f32, "_s_badd_"));
    ck_assert_ptr_nonnull(strstr(f32, "_64x64_32x4_"));
    ck_assert_ptr_nonnull(strstr(bft, "_TNT"));
    ck_assert_str_eq(big, "nvjet_sm90_tst_128x256_64x4_1x1_h_badd_TNT");
    ck_assert_str_ne(bf, f32);
    ck_assert_str_ne(bf, bft);
    ck_assert_str_ne(def, bias);
    ck_assert_ptr_null(strstr(def, "_bias"));
    ck_assert_ptr_nonnull(strstr(bias, "_bz_bias_NNT"));
    ck_assert_ptr_nonnull(strstr(relu, "_bias_relu_"));
    ck_assert_ptr_nonnull(strstr(gelu, "_bias_gelu_"));
    ck_assert_str_ne(relu, gelu);
    ck_assert_str_ne(relu, bias);
}
END_TEST

START_TEST(test_big_tile_launch_shape)
{
    cublasHandle_t h;
    float one = 1.0f;
    void *A = dev(16), *C = dev(16); /* never read: timing only at this size */
    ck_assert_int_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
    rec_start();
    ck_assert_int_eq(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 4096, 4096, 4096, &one, A,
                                  CUDA_R_16BF, 4096, A, CUDA_R_16BF, 4096, &one, C, CUDA_R_16BF,
                                  4096, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                     CUBLAS_STATUS_SUCCESS);
    ck_assert_uint_eq(rec.desc[0].grid[0], 4096 / 128);
    ck_assert_uint_eq(rec.desc[0].grid[1], 4096 / 256);
    ck_assert_uint_eq(rec.desc[0].block[0], 384);
    ck_assert_uint_ge(rec.desc[0].dynamic_smem, 200 * 1024);
    ck_assert_uint_le(rec.desc[0].dynamic_smem, 227 * 1024);
    ck_assert(rec.desc[0].flops == 2.0 * 4096.0 * 4096.0 * 4096.0);
    rec_stop();
    cublasDestroy(h);
}
END_TEST

/* Host ns one successful call takes, into `out`. */
#define TIME_NS(out, call)                                                                         \
    do {                                                                                           \
        uint64_t t0_ = cusim_host_ns();                                                            \
        ck_assert_int_eq((call), CUBLAS_STATUS_SUCCESS);                                           \
        (out) = cusim_host_ns() - t0_;                                                             \
    } while (0)

START_TEST(test_cold_start)
{
    cublasHandle_t h;
    float one = 1.0f, *A = fill(CUDA_R_32F, 16, 1), *C = dev(16 * sizeof(float));
    uint64_t first, rest = UINT64_MAX, used0, used1;
    lt_case c = {CUDA_R_32F, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, CUBLASLT_EPILOGUE_DEFAULT, 0.0f};
    lt_run r;

    ck_assert_int_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
    used0 = cusim_mem_device_used();
    TIME_NS(first, cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, A, 4, A, 4, &one, C, 4));
    used1 = cusim_mem_device_used();
    for (int i = 0; i < 5; i++) {
        uint64_t t;
        TIME_NS(t, cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, A, 4, A, 4, &one, C, 4));
        rest = t < rest ? t : rest;
    }
    ck_assert_uint_ge(first, SIMBLAS_COLD_START_NS);
    ck_assert_uint_ge(rest, SIMBLAS_CALL_CPU_NS); /* every call costs some host time */
    /* generous: the best warm call is well below the cold start */
    ck_assert_msg(rest + SIMBLAS_COLD_START_NS / 2 < first, "first %llu ns, warm %llu ns",
                  (unsigned long long)first, (unsigned long long)rest);
    /* the cold start allocated the handle's workspace on the device */
    ck_assert_uint_ge(used1 - used0, SIMBLAS_WORKSPACE_BYTES);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    ck_assert_uint_eq(cusim_mem_device_used(), used0);

    /* cuBLASLt: per handle too */
    lt_setup(&r, &c);
    TIME_NS(first, lt_matmul(&r, 0.0f));
    rest = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        uint64_t t;
        TIME_NS(t, lt_matmul(&r, 0.0f));
        rest = t < rest ? t : rest;
    }
    ck_assert_uint_ge(first, SIMBLAS_COLD_START_NS);
    ck_assert_msg(rest + SIMBLAS_COLD_START_NS / 2 < first, "Lt first %llu ns, warm %llu ns",
                  (unsigned long long)first, (unsigned long long)rest);
    lt_teardown(&r);
}
END_TEST

/* The GEMM's CPU computation is not in the call (whose host time stays the
 * library's) but deferred to where the program first can observe the result;
 * pointer arrays are copied at the call. */
START_TEST(test_compute_deferred)
{
    enum { N = 320 }; /* ~33M multiply-adds: milliseconds of CPU */
    cublasHandle_t h;
    float one = 1.0f, zero = 0.0f;
    float *A = fill(CUDA_R_32F, N * N, 1), *B = fill(CUDA_R_32F, N * N, 2);
    float *C = dev(N * N * sizeof(float)), *C2 = dev(N * N * sizeof(float));
    const void *pa[1] = {A}, *pb[1] = {B};
    void *pc[1] = {C2};
    uint64_t t0, t_call, t_wait;
    ck_assert_int_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one, A, 1, B, 1, &zero, C,
                                 1),
                     CUBLAS_STATUS_SUCCESS); /* pays the cold start */
    wait_results();
    t0 = cusim_host_ns();
    ck_assert_int_eq(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, N, N, N, &one, A, N, B, N, &zero, C,
                                 N),
                     CUBLAS_STATUS_SUCCESS);
    t_call = cusim_host_ns() - t0;
    ck_assert_int_eq(cublasGemmBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one, pa, CUDA_R_32F,
                                         N, pb, CUDA_R_32F, N, &zero, pc, CUDA_R_32F, N, 1,
                                         CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                     CUBLAS_STATUS_SUCCESS);
    pa[0] = pb[0] = pc[0] = NULL; /* the program may reuse its arrays at once */
    t0 = cusim_host_ns();
    wait_results();
    t_wait = cusim_host_ns() - t0;
    ck_assert_msg(t_call < t_wait, "call %llu ns, wait %llu ns", (unsigned long long)t_call,
                  (unsigned long long)t_wait);
    for (int s = 0; s < 16; s++) {
        int i = (s * 37) % N, j = (s * 101) % N;
        double nt = 0, nn = 0;
        for (int l = 0; l < N; l++) {
            nt += (double)A[i + l * N] * B[j + l * N];
            nn += (double)A[i + l * N] * B[l + j * N];
        }
        expect_close(C[i + j * N], nt, CUDA_R_32F, "deferred NT", i, j);
        expect_close(C2[i + j * N], nn, CUDA_R_32F, "deferred batched", i, j);
    }
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
}
END_TEST

TCase *trace_tcase(void)
{
    TCase *tc = tcase_create("trace");
    tcase_add_test(tc, test_lt_one_kernel_per_matmul);
    tcase_add_test(tc, test_gemmex_sequence_and_no_cudart);
    tcase_add_test(tc, test_no_cudart_calls);
    tcase_add_test(tc, test_kernel_names);
    tcase_add_test(tc, test_big_tile_launch_shape);
    tcase_add_test(tc, test_cold_start);
    tcase_add_test(tc, test_compute_deferred);
    return tc;
}
