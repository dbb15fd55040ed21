/*
 * matmul_add.cu - the reference workload: y = x·w + b, the "matmul followed
 * by a bias add" of the PyTorch profiling story, in the three shapes a
 * framework produces:
 *
 *   eager  cublasGemmEx (beta = 0), then our own bias_add kernel (two kernels,
 *          what eager PyTorch runs)
 *   addmm  a device-to-device copy of the broadcast bias into y, then
 *          cublasGemmEx with beta = 1 (what torch.compile's Inductor emits)
 *   fused  one cublasLtMatmul with the BIAS epilogue (one kernel)
 *
 * Shapes are row-major as in PyTorch: x is m x k, w is k x n, b has n
 * entries (one per output column), y is m x n. cuBLAS is column-major, so we
 * compute y^T = w^T x^T: a row-major array read column-major is its
 * transpose, so no data is moved and no transpose flag is needed.
 *
 * Everything runs on one created stream. Like a training loop, the host
 * synchronizes once after the warm-up and once at the end; the timed
 * iterations are bracketed by events.
 *
 * Exit status: 0 ok (or check skipped), 1 result check failed, 2 usage error,
 * 3 CUDA / cuBLAS error (the message names the call).
 */
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_CHECK 1
#define EXIT_USAGE 2
#define EXIT_CUDA 3

/* Largest m*n*k we verify on the CPU: the sim's default compute threshold
 * (CUSIM_COMPUTE_MAX, 512^3); above it the sim only times the GEMM, and a
 * CPU reference would be slow anyway. */
#define CHECK_MAX_MNK (512.0 * 512.0 * 512.0)
/* cuBLASLt workspace, as PyTorch gives it on Hopper. */
#define LT_WORKSPACE_BYTES (32u << 20)
/* What the probe kernel writes when device code really runs. */
#define PROBE_VALUE 0x5eed1234

/* ---- errors ------------------------------------------------------------- */

static void die_cuda(const char *call, cudaError_t e)
{
    fprintf(stderr, "matmul_add: %s failed: %s (%d): %s\n", call, cudaGetErrorName(e), (int)e,
            cudaGetErrorString(e));
    exit(EXIT_CUDA);
}

/* Our own names for cuBLAS statuses (cuBLASLt shares them): the program
 * then needs nothing beyond the calls it makes from the libraries. */
static const char *blas_status_name(cublasStatus_t s)
{
    switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    default: return "unknown cuBLAS status";
    }
}

static void die_blas(const char *call, cublasStatus_t s)
{
    fprintf(stderr, "matmul_add: %s failed: %s (%d)\n", call, blas_status_name(s), (int)s);
    exit(EXIT_CUDA);
}

/* Each wrapper names the call in its message; cuBLASLt shares cuBLAS's
 * status codes, so one reporter serves both. */
#define CUDA_CALL(expr)                                                                       \
    do {                                                                                      \
        cudaError_t e_ = (expr);                                                              \
        if (e_ != cudaSuccess)                                                                \
            die_cuda(#expr, e_);                                                              \
    } while (0)
#define BLAS_CALL(expr)                                                                       \
    do {                                                                                      \
        cublasStatus_t s_ = (expr);                                                           \
        if (s_ != CUBLAS_STATUS_SUCCESS)                                                      \
            die_blas(#expr, s_);                                                              \
    } while (0)

/* ---- options ------------------------------------------------------------ */

enum dtype { DT_BF16, DT_FP16, DT_FP32 };
enum mode { MODE_EAGER, MODE_ADDMM, MODE_FUSED };
enum check { CHECK_AUTO, CHECK_ON, CHECK_OFF };

static const char *const dtype_names[] = {"bf16", "fp16", "fp32"};
static const char *const mode_names[] = {"eager", "addmm", "fused"};

struct opts {
    int m, n, k;      /* GEMM shape (row-major x: m x k, w: k x n) */
    enum dtype dtype; /* storage type of x, w, b, y */
    int iters;        /* timed iterations (>= 1) */
    int warmup;       /* untimed iterations before them */
    enum mode mode;   /* eager, addmm or fused (see the top of the file) */
    enum check check; /* whether to verify y against the CPU reference */
    int nvtx;         /* --nvtx: a "step" range per iteration, "matmul" and
                         "bias_add" (or the fused op's name) inside it */
    int graph;        /* --graph: the step captured once as a CUDA graph after
                         the warm-up, the timed iterations replay it */
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: matmul_add [--size N] [--m M] [--n N] [--k K] [--dtype bf16|fp16|fp32]\n"
            "                  [--iters I] [--warmup W] [--mode eager|addmm|fused]\n"
            "                  [--check auto|on|off] [--no-check] [--nvtx] [--graph]\n"
            "  y = x*w + b with x: M x K, w: K x N, b: N (defaults: size 64, bf16, 10 iters,\n"
            "  2 warm-up, eager, check auto). --m/--n/--k override --size per dimension.\n"
            "  --check auto verifies when the device computes the result (probing whether\n"
            "  user kernels run) and m*n*k <= 512^3; --check on always verifies (the CPU\n"
            "  reference is slow at large sizes); --no-check is --check off. --graph: one\n"
            "  step is captured as a CUDA graph after the warm-up and replayed each timed\n"
            "  iteration (cudaGraphLaunch).\n"
            "  exit: 0 ok, 1 check failed, 2 usage error, 3 CUDA/cuBLAS error.\n");
}

static void usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "matmul_add: %s%s%s\n", what, arg ? ": " : "", arg ? arg : "");
    usage(stderr);
    exit(EXIT_USAGE);
}

static int parse_int(const char *flag, const char *s, int min)
{
    char *end;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || !*s || *end || v < min || v > (1 << 30))
        usage_error(flag, s ? s : "missing value");
    return (int)v;
}

static int parse_name(const char *flag, const char *s, const char *const *names, int count)
{
    for (int i = 0; s && i < count; i++)
        if (!strcmp(s, names[i]))
            return i;
    usage_error(flag, s ? s : "missing value");
    return -1;
}

static struct opts parse_args(int argc, char **argv)
{
    static const char *const check_names[] = {"auto", "on", "off"};
    struct opts o = {0, 0, 0, DT_BF16, 10, 2, MODE_EAGER, CHECK_AUTO};
    int size = 64;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        }
        if (!strcmp(a, "--no-check")) {
            o.check = CHECK_OFF;
            continue;
        }
        if (!strcmp(a, "--nvtx")) {
            o.nvtx = 1;
            continue;
        }
        if (!strcmp(a, "--graph")) {
            o.graph = 1;
            continue;
        }
        if (!strcmp(a, "--size")) size = parse_int(a, v, 1);
        else if (!strcmp(a, "--m")) o.m = parse_int(a, v, 1);
        else if (!strcmp(a, "--n")) o.n = parse_int(a, v, 1);
        else if (!strcmp(a, "--k")) o.k = parse_int(a, v, 1);
        else if (!strcmp(a, "--iters")) o.iters = parse_int(a, v, 1);
        else if (!strcmp(a, "--warmup")) o.warmup = parse_int(a, v, 0);
        else if (!strcmp(a, "--dtype")) o.dtype = (enum dtype)parse_name(a, v, dtype_names, 3);
        else if (!strcmp(a, "--mode")) o.mode = (enum mode)parse_name(a, v, mode_names, 3);
        else if (!strcmp(a, "--check")) o.check = (enum check)parse_name(a, v, check_names, 3);
        else usage_error("unknown argument", a);
        i++; /* every other flag takes a value */
    }
    o.m = o.m ? o.m : size;
    o.n = o.n ? o.n : size;
    o.k = o.k ? o.k : size;
    return o;
}

/* ---- data types --------------------------------------------------------- */

static size_t dtype_size(enum dtype d) { return d == DT_FP32 ? 4 : 2; }

static cudaDataType_t dtype_cuda(enum dtype d)
{
    return d == DT_BF16 ? CUDA_R_16BF : d == DT_FP16 ? CUDA_R_16F : CUDA_R_32F;
}

/* Converts n floats into dtype storage at out (host). */
static void host_store(enum dtype d, const float *in, void *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (d == DT_BF16) ((__nv_bfloat16 *)out)[i] = __float2bfloat16(in[i]);
        else if (d == DT_FP16) ((__half *)out)[i] = __float2half(in[i]);
        else ((float *)out)[i] = in[i];
    }
}

/* Reads n dtype values at in back into floats (host). */
static void host_load(enum dtype d, const void *in, float *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (d == DT_BF16) out[i] = __bfloat162float(((const __nv_bfloat16 *)in)[i]);
        else if (d == DT_FP16) out[i] = __half2float(((const __half *)in)[i]);
        else out[i] = ((const float *)in)[i];
    }
}

/* ---- device code -------------------------------------------------------- */

__device__ inline float to_f(float v) { return v; }
__device__ inline float to_f(__half v) { return __half2float(v); }
__device__ inline float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ inline void from_f(float *p, float v) { *p = v; }
__device__ inline void from_f(__half *p, float v) { *p = __float2half(v); }
__device__ inline void from_f(__nv_bfloat16 *p, float v) { *p = __float2bfloat16(v); }

/* y[r][c] += b[c] over a row-major rows x cols y: eager mode's second kernel. */
template <typename T>
__global__ void bias_add(T *y, const T *b, int cols, size_t total)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < total)
        from_f(&y[i], to_f(y[i]) + to_f(b[i % (size_t)cols]));
}

/* Writes a known value: tells a real GPU from a device that does not run
 * user kernels (the simulator records and times them only). */
__global__ void probe_kernel(int *p) { *p = PROBE_VALUE; }

/* ---- the workload ------------------------------------------------------- */

struct work {
    struct opts o;
    cudaStream_t stream;
    cublasHandle_t blas;
    cublasLtHandle_t lt;
    void *x, *w, *b, *y; /* device: inputs, bias vector, output */
    void *bias_mat;      /* device, addmm: b broadcast to m x n, made once */
    void *lt_ws;         /* device, fused: cuBLASLt workspace */
    cublasLtMatmulDesc_t lt_desc;
    cublasLtMatrixLayout_t lt_a, lt_b, lt_d;
    cublasLtMatmulHeuristicResult_t lt_algo;
    float *hx, *hw, *hb; /* host copies of the inputs, as stored (rounded) */
};

/* Fills a host array with small deterministic values in [-1, 1]. */
static void fill(float *v, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        v[i] = (float)((int)(seed >> 24) - 128) / 128.0f;
    }
}

/* Makes a device array from host floats in the work's dtype; rounds the host
 * copy to what was stored so the CPU reference sees the same numbers. */
static void *upload(const struct work *wk, float *h, size_t n, const char *what)
{
    size_t es = dtype_size(wk->o.dtype);
    void *tmp = malloc(n * es), *d = NULL;
    host_store(wk->o.dtype, h, tmp, n);
    host_load(wk->o.dtype, tmp, h, n);
    cudaError_t e = cudaMalloc(&d, n * es);
    if (e != cudaSuccess) die_cuda(what, e);
    CUDA_CALL(cudaMemcpyAsync(d, tmp, n * es, cudaMemcpyHostToDevice, wk->stream));
    CUDA_CALL(cudaStreamSynchronize(wk->stream));
    free(tmp);
    return d;
}

static void setup_lt(struct work *wk)
{
    const struct opts *o = &wk->o;
    cudaDataType_t t = dtype_cuda(o->dtype);
    cublasOperation_t op = CUBLAS_OP_N;
    cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_BIAS;
    uint64_t ws = LT_WORKSPACE_BYTES;
    cublasLtMatmulPreference_t pref;
    int found = 0;

    BLAS_CALL(cublasLtCreate(&wk->lt));
    CUDA_CALL(cudaMalloc(&wk->lt_ws, ws));
    BLAS_CALL(cublasLtMatmulDescCreate(&wk->lt_desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    BLAS_CALL(cublasLtMatmulDescSetAttribute(wk->lt_desc, CUBLASLT_MATMUL_DESC_TRANSA, &op, sizeof op));
    BLAS_CALL(cublasLtMatmulDescSetAttribute(wk->lt_desc, CUBLASLT_MATMUL_DESC_TRANSB, &op, sizeof op));
    BLAS_CALL(cublasLtMatmulDescSetAttribute(wk->lt_desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
    BLAS_CALL(cublasLtMatmulDescSetAttribute(wk->lt_desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &wk->b,
                                             sizeof wk->b));
    /* Column-major view: A = w^T (n x k), B = x^T (k x m), D = y^T (n x m). */
    BLAS_CALL(cublasLtMatrixLayoutCreate(&wk->lt_a, t, o->n, o->k, o->n));
    BLAS_CALL(cublasLtMatrixLayoutCreate(&wk->lt_b, t, o->k, o->m, o->k));
    BLAS_CALL(cublasLtMatrixLayoutCreate(&wk->lt_d, t, o->n, o->m, o->n));
    BLAS_CALL(cublasLtMatmulPreferenceCreate(&pref));
    BLAS_CALL(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                   &ws, sizeof ws));
    BLAS_CALL(cublasLtMatmulAlgoGetHeuristic(wk->lt, wk->lt_desc, wk->lt_a, wk->lt_b, wk->lt_d,
                                             wk->lt_d, pref, 1, &wk->lt_algo, &found));
    BLAS_CALL(cublasLtMatmulPreferenceDestroy(pref));
    if (found < 1) {
        fprintf(stderr, "matmul_add: cublasLtMatmulAlgoGetHeuristic found no algorithm\n");
        exit(EXIT_CUDA);
    }
}

/* Allocates and fills everything the mode needs; all on wk->stream. */
static void setup(struct work *wk)
{
    const struct opts *o = &wk->o;
    size_t mk = (size_t)o->m * o->k, kn = (size_t)o->k * o->n, mn = (size_t)o->m * o->n;
    size_t es = dtype_size(o->dtype);

    CUDA_CALL(cudaStreamCreateWithFlags(&wk->stream, cudaStreamNonBlocking));
    wk->hx = (float *)malloc(mk * sizeof(float));
    wk->hw = (float *)malloc(kn * sizeof(float));
    wk->hb = (float *)malloc(o->n * sizeof(float));
    fill(wk->hx, mk, 1);
    fill(wk->hw, kn, 2);
    fill(wk->hb, o->n, 3);
    wk->x = upload(wk, wk->hx, mk, "cudaMalloc(x)");
    wk->w = upload(wk, wk->hw, kn, "cudaMalloc(w)");
    wk->b = upload(wk, wk->hb, o->n, "cudaMalloc(b)");
    CUDA_CALL(cudaMalloc(&wk->y, mn * es));
    /* All-ones bytes are NaN in every dtype: a result never written fails. */
    CUDA_CALL(cudaMemsetAsync(wk->y, 0xff, mn * es, wk->stream));

    if (o->mode == MODE_ADDMM) {
        float *rows = (float *)malloc(mn * sizeof(float));
        for (size_t i = 0; i < mn; i++)
            rows[i] = wk->hb[i % o->n];
        wk->bias_mat = upload(wk, rows, mn, "cudaMalloc(bias_mat)");
        free(rows);
    }
    if (o->mode == MODE_FUSED) {
        setup_lt(wk);
    } else {
        BLAS_CALL(cublasCreate(&wk->blas));
        BLAS_CALL(cublasSetStream(wk->blas, wk->stream));
    }
    CUDA_CALL(cudaStreamSynchronize(wk->stream));
}

/* noinline: gemm and launch_bias_add stay frames of their own, so that
 * --stacks names the function that makes each call (as the source reads). */
__attribute__((noinline)) static void gemm(struct work *wk, float beta)
{
    const struct opts *o = &wk->o;
    cudaDataType_t t = dtype_cuda(o->dtype);
    float alpha = 1.0f;
    BLAS_CALL(cublasGemmEx(wk->blas, CUBLAS_OP_N, CUBLAS_OP_N, o->n, o->m, o->k, &alpha, wk->w, t,
                           o->n, wk->x, t, o->k, &beta, wk->y, t, o->n, CUBLAS_COMPUTE_32F,
                           CUBLAS_GEMM_DEFAULT));
}

__attribute__((noinline)) static void launch_bias_add(struct work *wk)
{
    const struct opts *o = &wk->o;
    size_t total = (size_t)o->m * o->n;
    unsigned block = 256, grid = (unsigned)((total + block - 1) / block);
    if (o->dtype == DT_BF16)
        bias_add<<<grid, block, 0, wk->stream>>>((__nv_bfloat16 *)wk->y,
                                                 (const __nv_bfloat16 *)wk->b, o->n, total);
    else if (o->dtype == DT_FP16)
        bias_add<<<grid, block, 0, wk->stream>>>((__half *)wk->y, (const __half *)wk->b, o->n,
                                                 total);
    else
        bias_add<<<grid, block, 0, wk->stream>>>((float *)wk->y, (const float *)wk->b, o->n,
                                                 total);
    CUDA_CALL(cudaGetLastError()); /* launch errors surface here for <<<>>> */
}

/* NVTX ranges like the guide's record_function labels (--nvtx only). */
static void range_push(const struct work *wk, const char *name)
{
    if (wk->o.nvtx)
        nvtxRangePushA(name);
}

static void range_pop(const struct work *wk)
{
    if (wk->o.nvtx)
        nvtxRangePop();
}

/* One iteration of the selected mode: y = x·w + b. */
static void step(struct work *wk)
{
    const struct opts *o = &wk->o;
    range_push(wk, "step");
    if (o->mode == MODE_EAGER) {
        range_push(wk, "matmul");
        gemm(wk, 0.0f);
        range_pop(wk);
        range_push(wk, "bias_add");
        launch_bias_add(wk);
        range_pop(wk);
    } else if (o->mode == MODE_ADDMM) {
        size_t bytes = (size_t)o->m * o->n * dtype_size(o->dtype);
        range_push(wk, "addmm");
        CUDA_CALL(cudaMemcpyAsync(wk->y, wk->bias_mat, bytes, cudaMemcpyDeviceToDevice, wk->stream));
        gemm(wk, 1.0f);
        range_pop(wk);
    } else {
        range_push(wk, "matmul_bias (fused)");
        float alpha = 1.0f, beta = 0.0f;
        BLAS_CALL(cublasLtMatmul(wk->lt, wk->lt_desc, &alpha, wk->w, wk->lt_a, wk->x, wk->lt_b,
                                 &beta, wk->y, wk->lt_d, wk->y, wk->lt_d, &wk->lt_algo.algo,
                                 wk->lt_ws, LT_WORKSPACE_BYTES, wk->stream));
        range_pop(wk);
    }
    range_pop(wk);
}

/* Runs warm-up and timed iterations; returns device ms per timed iteration. */
static double run(struct work *wk)
{
    cudaEvent_t start, stop;
    float ms = 0;
    CUDA_CALL(cudaEventCreate(&start));
    CUDA_CALL(cudaEventCreate(&stop));
    for (int i = 0; i < wk->o.warmup; i++)
        step(wk);
    CUDA_CALL(cudaStreamSynchronize(wk->stream));
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    if (wk->o.graph) {   /* one step captured, replayed below */
        CUDA_CALL(cudaStreamBeginCapture(wk->stream, cudaStreamCaptureModeThreadLocal));
        step(wk);
        CUDA_CALL(cudaStreamEndCapture(wk->stream, &graph));
        CUDA_CALL(cudaGraphInstantiate(&exec, graph, 0));
    }
    CUDA_CALL(cudaEventRecord(start, wk->stream));
    for (int i = 0; i < wk->o.iters; i++) {
        if (exec)
            CUDA_CALL(cudaGraphLaunch(exec, wk->stream));
        else
            step(wk);
    }
    CUDA_CALL(cudaEventRecord(stop, wk->stream));
    CUDA_CALL(cudaEventSynchronize(stop));
    CUDA_CALL(cudaEventElapsedTime(&ms, start, stop));
    CUDA_CALL(cudaEventDestroy(start));
    CUDA_CALL(cudaEventDestroy(stop));
    if (exec) {
        CUDA_CALL(cudaGraphExecDestroy(exec));
        CUDA_CALL(cudaGraphDestroy(graph));
    }
    return ms / wk->o.iters;
}

/* ---- result check ------------------------------------------------------- */

/* 1 if user kernels really execute on this device (a real GPU), else 0. */
static int user_kernels_run(cudaStream_t s)
{
    int *d = NULL, h = 0;
    CUDA_CALL(cudaMalloc(&d, sizeof *d));
    CUDA_CALL(cudaMemsetAsync(d, 0, sizeof *d, s));
    probe_kernel<<<1, 1, 0, s>>>(d);
    CUDA_CALL(cudaGetLastError());
    CUDA_CALL(cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost, s));
    CUDA_CALL(cudaStreamSynchronize(s));
    CUDA_CALL(cudaFree(d));
    return h == PROBE_VALUE;
}

/* NULL if the result should be checked, else why not (for the report). */
static const char *skip_reason(const struct opts *o, cudaStream_t s)
{
    if (o->check == CHECK_OFF)
        return "disabled by --no-check / --check off";
    if (o->check == CHECK_ON)
        return NULL;
    if ((double)o->m * o->n * o->k > CHECK_MAX_MNK)
        return "m*n*k above 512^3: no CPU reference at this size";
    if (o->mode == MODE_EAGER && !user_kernels_run(s))
        return "bias_add is a user kernel; a probe kernel's write did not arrive, so this"
               " device does not run user kernels: a simulator?";
    return NULL;
}

/* Compares y with a CPU reference (fp32 accumulation over the stored
 * inputs); prints the verdict; returns 1 if it passed. */
static int check_result(struct work *wk)
{
    const struct opts *o = &wk->o;
    size_t mn = (size_t)o->m * o->n;
    /* bf16 keeps 8 bits of mantissa, fp16 11: eager mode rounds twice. */
    float tol = o->dtype == DT_BF16 ? 2e-2f : o->dtype == DT_FP16 ? 4e-3f : 1e-4f;
    void *raw = malloc(mn * dtype_size(o->dtype));
    float *got = (float *)malloc(mn * sizeof(float)), *ref = (float *)calloc(mn, sizeof(float));
    CUDA_CALL(cudaMemcpy(raw, wk->y, mn * dtype_size(o->dtype), cudaMemcpyDeviceToHost));
    host_load(o->dtype, raw, got, mn);
    for (int i = 0; i < o->m; i++) {
        float *row = ref + (size_t)i * o->n;
        for (int p = 0; p < o->k; p++) {
            float a = wk->hx[(size_t)i * o->k + p];
            const float *wr = wk->hw + (size_t)p * o->n;
            for (int j = 0; j < o->n; j++)
                row[j] += a * wr[j];
        }
        for (int j = 0; j < o->n; j++)
            row[j] += wk->hb[j];
    }
    size_t bad = 0, first_bad = 0;
    double max_err = 0;
    for (size_t i = 0; i < mn; i++) {
        double err = fabs((double)got[i] - ref[i]);
        if (!(err <= tol * (1.0 + fabs(ref[i]))) && bad++ == 0) /* NaN fails too */
            first_bad = i;
        if (!(err <= max_err))
            max_err = err == err ? err : INFINITY;
    }
    if (bad)
        printf("check: FAILED (%zu of %zu elements off; first y[%zu][%zu] = %g, expected %g;"
               " tol %g)\n", bad, mn, first_bad / o->n, first_bad % o->n, got[first_bad],
               ref[first_bad], tol);
    else
        printf("check: passed (%zu elements, max abs err %.3g, tol %g)\n", mn, max_err, tol);
    free(raw); free(got); free(ref);
    return bad == 0;
}

int main(int argc, char **argv)
{
    struct work wk;
    memset(&wk, 0, sizeof wk);
    wk.o = parse_args(argc, argv);
    const struct opts *o = &wk.o;
    cudaDeviceProp prop;
    CUDA_CALL(cudaGetDeviceProperties(&prop, 0));
    setup(&wk);
    double ms = run(&wk);
    printf("matmul_add: mode=%s dtype=%s m=%d n=%d k=%d iters=%d warmup=%d\n",
           mode_names[o->mode], dtype_names[o->dtype], o->m, o->n, o->k, o->iters, o->warmup);
    printf("device: %s (sm_%d%d)\n", prop.name, prop.major, prop.minor);
    printf("time: %.3f us/iter (cudaEventElapsedTime over %d iters)\n", ms * 1e3, o->iters);
    const char *why = skip_reason(o, wk.stream);
    int ok = 1;
    if (why)
        printf("check: skipped (%s)\n", why);
    else
        ok = check_result(&wk);

    if (wk.lt) {
        BLAS_CALL(cublasLtMatrixLayoutDestroy(wk.lt_a));
        BLAS_CALL(cublasLtMatrixLayoutDestroy(wk.lt_b));
        BLAS_CALL(cublasLtMatrixLayoutDestroy(wk.lt_d));
        BLAS_CALL(cublasLtMatmulDescDestroy(wk.lt_desc));
        BLAS_CALL(cublasLtDestroy(wk.lt));
    }
    if (wk.blas)
        BLAS_CALL(cublasDestroy(wk.blas));
    void *bufs[] = {wk.x, wk.w, wk.b, wk.y, wk.bias_mat, wk.lt_ws};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i])
            CUDA_CALL(cudaFree(bufs[i]));
    CUDA_CALL(cudaStreamDestroy(wk.stream));
    free(wk.hx); free(wk.hw); free(wk.hb);
    return ok ? 0 : EXIT_CHECK;
}
