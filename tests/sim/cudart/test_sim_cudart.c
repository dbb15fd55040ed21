/*
 * test_sim_cudart.c - tests of the simulated libcudart.so.13 through its
 * public API, linked like a CUDA program (-lcudart), plus a recording tool
 * attached to the driver core, the CUDA injection path, the export table
 * against the real library, and an nvcc-built program run on the sim.
 *
 * Check forks each test: every test starts with a fresh, uninitialized sim.
 */
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include <cupti_runtime_cbid.h>

#include <check.h>
#include <cuda.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cusim.h"
#include "harness.h"

/* nvcc's registration entry points (crt/host_runtime.h, device_functions.h):
 * the test registers its own "kernels" the way generated code does. */
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **h);
void __cudaRegisterVar(void **h, char *hostVar, char *deviceAddress, const char *deviceName,
                       int ext, size_t size, int constant, int global);
void __cudaRegisterFunction(void **h, const char *hostFun, char *deviceFun,
                            const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *bDim, dim3 *gDim, int *wSize);
unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                     struct CUstream_st *stream);
cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                       void *stream);
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *fn);
cudaError_t __cudaLaunchKernel(cudaKernel_t k, dim3 g, dim3 b, void **args, size_t smem,
                               cudaStream_t s);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t k, dim3 g, dim3 b, void **args, size_t smem,
                                    cudaStream_t s);
cudaError_t cudaLaunchKernel_ptsz(const void *f, dim3 g, dim3 b, void **args, size_t smem,
                                  cudaStream_t s);

/* Host stubs standing in for __global__ functions. */
static void stub_axpy(void) {}
static void stub_big(void) {}
static void stub_unregistered(void) {}
static const char AXPY[] = "_Z4axpyfPfS_i";
static const char BIG[] = "_Z3bigPf";
static int dev_table[8]; /* host shadow of a __constant__ int dev_table[8] */

static void register_kernels(void)
{
    static char fatbin[16];
    void **h = __cudaRegisterFatBinary(fatbin);
    __cudaRegisterFunction(h, (const char *)stub_axpy, (char *)AXPY, AXPY, -1, NULL, NULL, NULL,
                           NULL, NULL);
    __cudaRegisterFunction(h, (const char *)stub_big, (char *)BIG, BIG, -1, NULL, NULL, NULL,
                           NULL, NULL);
    __cudaRegisterVar(h, (char *)&dev_table, (char *)"dev_table", "dev_table", 0,
                      sizeof dev_table, 1, 0);
    __cudaRegisterFatBinaryEnd(h);
}

static dim3 d3(unsigned x, unsigned y, unsigned z)
{
    dim3 d = {x, y, z};
    return d;
}

/* ---- a recording tool ----------------------------------------------------- */

#define REC_MAX 64
static struct {
    int n_api, n_kernel, n_copy, n_sync;
    cusim_api_call api[REC_MAX]; /* at exit */
    cusim_kernel_activity kernel[REC_MAX];
    const char *kernel_name[REC_MAX];
    cusim_copy_activity copy[REC_MAX];
    cusim_sync_activity sync[REC_MAX];
    int n_graph, n_mem, n_pool;
    cusim_memory_activity mem[REC_MAX];
    cusim_pool_activity pool[REC_MAX];
    cusim_graph_event graph[REC_MAX];
    uint64_t graph_node_id[REC_MAX], graph_original_id[REC_MAX];
} rec;

static void on_api_exit(const cusim_api_call *c)
{
    if (rec.n_api < REC_MAX)
        rec.api[rec.n_api++] = *c;
}
static void on_kernel(const cusim_kernel_activity *a)
{
    if (rec.n_kernel < REC_MAX) {
        rec.kernel_name[rec.n_kernel] = a->desc->name;
        rec.kernel[rec.n_kernel++] = *a;
    }
}
static void on_copy(const cusim_copy_activity *a)
{
    if (rec.n_copy < REC_MAX)
        rec.copy[rec.n_copy++] = *a;
}
static void on_sync(const cusim_sync_activity *a)
{
    if (rec.n_sync < REC_MAX)
        rec.sync[rec.n_sync++] = *a;
}
static void on_graph(const cusim_graph_event *e)
{
    if (rec.n_graph < REC_MAX) {
        rec.graph_node_id[rec.n_graph] = e->node ? cusim_graph_node_id(e->node) : 0;
        rec.graph_original_id[rec.n_graph] = e->original ? cusim_graph_node_id(e->original) : 0;
        rec.graph[rec.n_graph++] = *e;
    }
}
static void on_memory(const cusim_memory_activity *a)
{
    if (rec.n_mem < REC_MAX)
        rec.mem[rec.n_mem++] = *a;
}
static void on_pool(const cusim_pool_activity *a)
{
    if (rec.n_pool < REC_MAX)
        rec.pool[rec.n_pool++] = *a;
}
static const cusim_tool_ops recorder = {NULL, on_api_exit, on_kernel, on_copy, on_sync, on_graph, on_memory, on_pool};

/* The recorded api call with this cbid (the last one), or NULL. */
static const cusim_api_call *api_with(uint32_t cbid)
{
    for (int i = rec.n_api - 1; i >= 0; i--)
        if (rec.api[i].cbid == cbid)
            return &rec.api[i];
    return NULL;
}

/* ---- device ---------------------------------------------------------------- */

START_TEST(test_device_query)
{
    int n = -1, dev = -1, v = 0;
    ck_assert_int_eq(cudaGetDeviceCount(&n), cudaSuccess);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(cudaGetDevice(&dev), cudaSuccess);
    ck_assert_int_eq(dev, 0);
    ck_assert_int_eq(cudaSetDevice(0), cudaSuccess);
    ck_assert_int_eq(cudaSetDevice(1), cudaErrorInvalidDevice);
    ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidDevice);
    struct cudaDeviceProp p;
    ck_assert_int_eq(cudaGetDeviceProperties(&p, 0), cudaSuccess);
    ck_assert_str_eq(p.name, "NVIDIA H100 80GB HBM3");
    ck_assert_int_eq(p.major, 9);
    ck_assert_int_eq(p.minor, 0);
    ck_assert_int_eq(p.multiProcessorCount, 132);
    ck_assert_uint_eq(p.totalGlobalMem, 80ull << 30);
    ck_assert_int_eq(p.warpSize, 32);
    ck_assert_int_eq(p.maxThreadsPerBlock, 1024);
    ck_assert_uint_eq(p.sharedMemPerBlock, 48 * 1024);
    ck_assert_int_eq(p.regsPerBlock, 65536);
    ck_assert_int_eq(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
    ck_assert_int_eq(v, 132);
    ck_assert_int_eq(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, 0),
                     cudaSuccess);
    ck_assert_int_eq(v, 9);
    ck_assert_int_eq(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0),
                     cudaSuccess);
    ck_assert_int_eq(v, 227 * 1024);
    ck_assert_int_eq(cudaDriverGetVersion(&v), cudaSuccess);
    ck_assert_int_eq(v, 13000);
    ck_assert_int_eq(cudaRuntimeGetVersion(&v), cudaSuccess);
    ck_assert_int_eq(v, 13000);
    size_t fr = 0, tot = 0;
    ck_assert_int_eq(cudaMemGetInfo(&fr, &tot), cudaSuccess);
    ck_assert_uint_eq(tot, 80ull << 30);
    ck_assert_uint_eq(fr, tot);
    /* driver entry points: the sim's libcuda.so.1 answers every name the real
     * driver exports (one it does not model is a stub: not supported), and
     * no other */
    void *fn = (void *)1;
    enum cudaDriverEntryPointQueryResult st = cudaDriverEntryPointSuccess;
    ck_assert_int_ne(cudaGetDriverEntryPointByVersion("cuNoSuchFunction", &fn, 13000, 0, &st),
                     cudaSuccess);
    ck_assert_ptr_null(fn);
    ck_assert_int_eq(st, cudaDriverEntryPointSymbolNotFound);
    ck_assert_int_eq(cudaGetDriverEntryPointByVersion("cuGraphicsMapResources", &fn, 13000, 0, &st),
                     cudaSuccess);
    ck_assert_ptr_nonnull(fn);
    ck_assert_int_eq(((CUresult(*)(void))fn)(), CUDA_ERROR_NOT_SUPPORTED);
    ck_assert_int_eq(cudaGetDriverEntryPointByVersion("cuInit", &fn, 13000, 0, &st), cudaSuccess);
    ck_assert_ptr_nonnull(fn);
    ck_assert_int_eq(st, cudaDriverEntryPointSuccess);
    ck_assert_int_eq(((CUresult(*)(unsigned))fn)(0), CUDA_SUCCESS);
    char bus[32];
    ck_assert_int_eq(cudaDeviceGetPCIBusId(bus, sizeof bus, 0), cudaSuccess);
    ck_assert_int_eq(cudaDeviceGetByPCIBusId(&dev, bus), cudaSuccess);
    ck_assert_int_eq(dev, 0);
    ck_assert_int_eq(cudaDeviceGetByPCIBusId(&dev, "0000:01:00.0"), cudaErrorInvalidDevice);
    ck_assert_int_eq(cudaDeviceCanAccessPeer(&v, 0, 0), cudaSuccess);
    ck_assert_int_eq(v, 0);
    ck_assert_int_eq(cudaDeviceEnablePeerAccess(1, 0), cudaErrorInvalidDevice);
    ck_assert_int_eq(cudaProfilerStart(), cudaSuccess);
    ck_assert_int_eq(cudaProfilerStop(), cudaSuccess);
}
END_TEST

START_TEST(test_error_strings)
{
    ck_assert_str_eq(cudaGetErrorString(cudaSuccess), "no error");
    ck_assert_str_eq(cudaGetErrorName(cudaSuccess), "cudaSuccess");
    ck_assert_str_eq(cudaGetErrorString(cudaErrorInvalidValue), "invalid argument");
    ck_assert_str_eq(cudaGetErrorString(cudaErrorMemoryAllocation), "out of memory");
    ck_assert_str_eq(cudaGetErrorString(cudaErrorInvalidConfiguration),
                     "invalid configuration argument");
    ck_assert_str_eq(cudaGetErrorString(cudaErrorInvalidDeviceFunction),
                     "invalid device function");
    ck_assert_str_eq(cudaGetErrorName(cudaErrorInvalidResourceHandle),
                     "cudaErrorInvalidResourceHandle");
    ck_assert_str_eq(cudaGetErrorString((cudaError_t)12345), "unrecognized error code");
}
END_TEST

/* ---- memory ----------------------------------------------------------------- */

START_TEST(test_memory_round_trip)
{
    enum { N = 4096 };
    static float h[N], back[N];
    for (int i = 0; i < N; i++)
        h[i] = (float)i * 0.5f;
    float *d1, *d2, *pinned;
    ck_assert_int_eq(cudaMalloc((void **)&d1, sizeof h), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&d2, sizeof h), cudaSuccess);
    ck_assert_int_eq(cudaMallocHost((void **)&pinned, sizeof h), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(d1, h, sizeof h, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(d2, d1, sizeof h, cudaMemcpyDeviceToDevice), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(back, d2, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
    ck_assert_mem_eq(back, h, sizeof h);
    /* cudaMemcpyDefault + async on a stream, through pinned memory */
    cudaStream_t s;
    ck_assert_int_eq(cudaStreamCreate(&s), cudaSuccess);
    ck_assert_int_eq(cudaMemsetAsync(d2, 0, sizeof h, s), cudaSuccess);
    ck_assert_int_eq(cudaMemcpyAsync(pinned, d2, sizeof h, cudaMemcpyDefault, s), cudaSuccess);
    ck_assert_int_eq(cudaStreamSynchronize(s), cudaSuccess);
    for (int i = 0; i < N; i++)
        ck_assert(pinned[i] == 0.0f);
    ck_assert_int_eq(cudaMemset(d1, 0xff, 8), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(back, d1, 16, cudaMemcpyDefault), cudaSuccess);
    unsigned char *b = (unsigned char *)back;
    ck_assert(b[0] == 0xff && b[7] == 0xff);
    ck_assert(back[2] == h[2] && back[3] == h[3]);
    /* 2D: columns 1..2 of a 4x4 float matrix */
    float m[16], out[8];
    for (int i = 0; i < 16; i++)
        m[i] = (float)i;
    ck_assert_int_eq(cudaMemcpy2D(d1, 2 * sizeof(float), m + 1, 4 * sizeof(float),
                                  2 * sizeof(float), 4, cudaMemcpyHostToDevice),
                     cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(out, d1, sizeof out, cudaMemcpyDeviceToHost), cudaSuccess);
    ck_assert(out[0] == 1 && out[1] == 2 && out[2] == 5 && out[7] == 14);
    ck_assert_int_eq(cudaMemcpy(back, d1, 4, (enum cudaMemcpyKind)7),
                     cudaErrorInvalidMemcpyDirection);
    ck_assert_int_eq(cudaMemset(h, 0, 4), cudaErrorInvalidValue); /* host memory */
    ck_assert_int_eq(cudaFree(d1), cudaSuccess);
    ck_assert_int_eq(cudaFree(d2), cudaSuccess);
    ck_assert_int_eq(cudaFree(h), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaFree(NULL), cudaSuccess);
    ck_assert_int_eq(cudaFreeHost(pinned), cudaSuccess);
    ck_assert_int_eq(cudaStreamDestroy(s), cudaSuccess);
}
END_TEST

START_TEST(test_symbols)
{
    register_kernels();
    int v[8] = {1, 2, 3, 4, 5, 6, 7, 8}, back[8] = {0};
    size_t size = 0;
    void *addr = NULL;
    ck_assert_int_eq(cudaGetSymbolSize(&size, dev_table), cudaSuccess);
    ck_assert_uint_eq(size, sizeof dev_table);
    ck_assert_int_eq(cudaGetSymbolAddress(&addr, dev_table), cudaSuccess);
    ck_assert_ptr_nonnull(addr);
    ck_assert_int_eq(cudaMemcpyToSymbol(dev_table, v, sizeof v, 0, cudaMemcpyHostToDevice),
                     cudaSuccess);
    ck_assert_int_eq(cudaMemcpyFromSymbol(back, dev_table, 2 * sizeof(int), 6 * sizeof(int),
                                          cudaMemcpyDeviceToHost),
                     cudaSuccess);
    ck_assert_int_eq(back[0], 7);
    ck_assert_int_eq(back[1], 8);
    ck_assert_int_eq(cudaMemcpyToSymbol(dev_table, v, sizeof v, 4, cudaMemcpyHostToDevice),
                     cudaErrorInvalidValue); /* past the end */
    ck_assert_int_eq(cudaMemcpyToSymbol(v, back, 4, 0, cudaMemcpyHostToDevice),
                     cudaErrorInvalidSymbol);
    ck_assert_int_eq(cudaGetSymbolSize(&size, v), cudaErrorInvalidSymbol);
}
END_TEST

START_TEST(test_pointer_attributes)
{
    void *d, *p, *m, *h = malloc(16);
    ck_assert_int_eq(cudaMalloc(&d, 100), cudaSuccess);
    ck_assert_int_eq(cudaHostAlloc(&p, 100, cudaHostAllocDefault), cudaSuccess);
    ck_assert_int_eq(cudaMallocManaged(&m, 100, cudaMemAttachGlobal), cudaSuccess);
    struct cudaPointerAttributes a;
    ck_assert_int_eq(cudaPointerGetAttributes(&a, (char *)d + 50), cudaSuccess);
    ck_assert_int_eq(a.type, cudaMemoryTypeDevice);
    ck_assert_int_eq(a.device, 0);
    ck_assert_int_eq(cudaPointerGetAttributes(&a, p), cudaSuccess);
    ck_assert_int_eq(a.type, cudaMemoryTypeHost);
    ck_assert_ptr_eq(a.hostPointer, p);
    ck_assert_int_eq(cudaPointerGetAttributes(&a, m), cudaSuccess);
    ck_assert_int_eq(a.type, cudaMemoryTypeManaged);
    ck_assert_int_eq(cudaPointerGetAttributes(&a, h), cudaSuccess);
    ck_assert_int_eq(a.type, cudaMemoryTypeUnregistered);
    ck_assert_int_eq(cusim_mem_kind_of((char *)m + 99), CUSIM_MEM_MANAGED);
    ck_assert_int_eq(cudaFree(m), cudaSuccess);
    ck_assert_int_eq(cudaFreeHost(d), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
    ck_assert_int_eq(cudaFreeHost(p), cudaSuccess);
    free(h);
}
END_TEST

/* ---- launches ---------------------------------------------------------------- */

START_TEST(test_launch_paths_carry_names)
{
    register_kernels();
    cusim_init();
    cusim_tool_set(&recorder);
    float x = 1;
    void *args[] = {&x};
    /* 1: by host stub */
    ck_assert_int_eq(cudaLaunchKernel((const void *)stub_axpy, d3(4, 1, 1), d3(256, 1, 1), args,
                                      0, NULL),
                     cudaSuccess);
    /* 2: by handle from cudaGetKernel */
    cudaKernel_t k = NULL;
    ck_assert_int_eq(cudaGetKernel(&k, (const void *)stub_big), cudaSuccess);
    ck_assert_ptr_nonnull(k);
    ck_assert_int_eq(cudaLaunchKernel((const void *)k, d3(2, 1, 1), d3(64, 1, 1), args, 0, NULL),
                     cudaSuccess);
    /* 3: what `axpy<<<8, 128>>>(...)` compiles to with nvcc 13 */
    cudaKernel_t h = NULL;
    ck_assert_int_eq(__cudaGetKernel(&h, (const void *)stub_axpy), cudaSuccess);
    ck_assert_uint_eq(__cudaPushCallConfiguration(d3(8, 1, 1), d3(128, 1, 1), 0, NULL), 0);
    dim3 g, b;
    size_t smem;
    cudaStream_t st;
    ck_assert_int_eq(__cudaPopCallConfiguration(&g, &b, &smem, &st), cudaSuccess);
    ck_assert_uint_eq(g.x, 8);
    ck_assert_uint_eq(b.x, 128);
    ck_assert_int_eq(__cudaLaunchKernel(h, g, b, args, smem, st), cudaSuccess);
    ck_assert_int_eq(__cudaPopCallConfiguration(&g, &b, &smem, &st),
                     cudaErrorMissingConfiguration);
    /* 4: per-thread default stream variants */
    ck_assert_int_eq(__cudaLaunchKernel_ptsz(h, g, b, args, 0, NULL), cudaSuccess);
    ck_assert_int_eq(cudaLaunchKernel_ptsz((const void *)stub_axpy, g, b, args, 0, NULL),
                     cudaSuccess);
    /* 5: cudaLaunchKernelExC */
    cudaLaunchConfig_t cfg = {.gridDim = d3(3, 1, 1), .blockDim = d3(32, 1, 1)};
    ck_assert_int_eq(cudaLaunchKernelExC(&cfg, (const void *)stub_big, args), cudaSuccess);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    cusim_tool_set(NULL);

    ck_assert_int_eq(rec.n_kernel, 6);
    const char *want[] = {AXPY, BIG, AXPY, AXPY, AXPY, BIG};
    const uint32_t cbid[] = {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                             CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                             /* <<<>>>: as the real CUPTI 13.0 reports it */
                             CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                             CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
                             CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
                             CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060};
    int launch_api = 0;
    for (int i = 0; i < rec.n_kernel; i++) {
        ck_assert_str_eq(rec.kernel_name[i], want[i]);
        /* find the api call with the kernel's correlation id */
        const cusim_api_call *c = NULL;
        for (int j = 0; j < rec.n_api; j++)
            if (rec.api[j].correlation_id == rec.kernel[i].correlation_id)
                c = &rec.api[j];
        ck_assert_ptr_nonnull(c);
        ck_assert_uint_eq(c->cbid, cbid[i]);
        ck_assert_str_eq(c->symbol_name, want[i]);
        ck_assert_int_eq(c->status, cudaSuccess);
        ck_assert_uint_ge(rec.kernel[i].start, c->start_gpu_ns);
        launch_api++;
    }
    ck_assert_int_eq(launch_api, 6);
    /* legacy stream is id 7; the per-thread stream is another one */
    ck_assert_uint_eq(rec.kernel[0].stream_id, 7);
    ck_assert_uint_ne(rec.kernel[3].stream_id, 7);
    ck_assert_uint_eq(rec.kernel[3].stream_id, rec.kernel[4].stream_id);
}
END_TEST

START_TEST(test_launch_errors_and_last_error)
{
    register_kernels();
    void *args[] = {NULL};
    ck_assert_int_eq(cudaPeekAtLastError(), cudaSuccess);
    ck_assert_int_eq(cudaLaunchKernel((const void *)stub_unregistered, d3(1, 1, 1),
                                      d3(32, 1, 1), args, 0, NULL),
                     cudaErrorInvalidDeviceFunction);
    ck_assert_int_eq(cudaLaunchKernel((const void *)stub_axpy, d3(1, 1, 1), d3(1025, 1, 1), args,
                                      0, NULL),
                     cudaErrorInvalidConfiguration);
    /* sticky until read: Peek keeps it, Get returns and clears it */
    ck_assert_int_eq(cudaPeekAtLastError(), cudaErrorInvalidConfiguration);
    ck_assert_int_eq(cudaPeekAtLastError(), cudaErrorInvalidConfiguration);
    ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidConfiguration);
    ck_assert_int_eq(cudaGetLastError(), cudaSuccess);
    /* a later success does not clear it */
    ck_assert_int_eq(cudaLaunchKernel((const void *)stub_axpy, d3(0, 1, 1), d3(32, 1, 1), args,
                                      0, NULL),
                     cudaErrorInvalidConfiguration);
    ck_assert_int_eq(cudaLaunchKernel((const void *)stub_axpy, d3(1, 1, 1), d3(32, 1, 1), args,
                                      0, NULL),
                     cudaSuccess);
    ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidConfiguration);
    ck_assert_int_eq(cudaLaunchKernel((const void *)stub_axpy, d3(1, 70000, 1), d3(32, 1, 1),
                                      args, 0, NULL),
                     cudaErrorInvalidConfiguration);
    ck_assert_int_eq(cudaLaunchKernel((const void *)stub_axpy, d3(1, 1, 1), d3(32, 1, 1), args,
                                      64 * 1024, NULL),
                     cudaErrorInvalidValue); /* > 48 KiB without opt-in */
    ck_assert_int_eq(cudaFuncSetAttribute((const void *)stub_axpy,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024),
                     cudaSuccess);
    ck_assert_int_eq(cudaLaunchKernel((const void *)stub_axpy, d3(1, 1, 1), d3(32, 1, 1), args,
                                      64 * 1024, NULL),
                     cudaSuccess);
    cudaStream_t s;
    ck_assert_int_eq(cudaStreamCreate(&s), cudaSuccess);
    ck_assert_int_eq(cudaStreamDestroy(s), cudaSuccess);
    ck_assert_int_eq(cudaLaunchKernel((const void *)stub_axpy, d3(1, 1, 1), d3(32, 1, 1), args,
                                      0, s),
                     cudaErrorInvalidResourceHandle);
    ck_assert_int_eq(cudaStreamDestroy(NULL), cudaErrorInvalidResourceHandle);
    /* the last error is per thread */
    ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidResourceHandle);
    /* NotReady is a status, not an error */
    ck_assert_int_eq(cudaLaunchKernel((const void *)stub_big, d3(1u << 20, 1, 1),
                                      d3(1024, 1, 1), args, 0, NULL),
                     cudaSuccess);
    ck_assert_int_eq(cudaStreamQuery(NULL), cudaErrorNotReady);
    ck_assert_int_eq(cudaPeekAtLastError(), cudaSuccess);
}
END_TEST

START_TEST(test_tool_correlates_work_with_calls)
{
    register_kernels();
    cusim_init();
    cusim_tool_set(&recorder);
    float *d, h[256] = {0};
    ck_assert_int_eq(cudaMalloc((void **)&d, sizeof h), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(cudaMemset(d, 0, sizeof h), cudaSuccess);
    void *args[] = {&d};
    ck_assert_int_eq(cudaLaunchKernel((const void *)stub_axpy, d3(1, 1, 1), d3(256, 1, 1), args,
                                      0, NULL),
                     cudaSuccess);
    cudaStream_t s;
    ck_assert_int_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    ck_assert_int_eq(cudaStreamSynchronize(s), cudaSuccess);
    cusim_tool_set(NULL);

    const cusim_api_call *cp = api_with(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020);
    const cusim_api_call *ms = api_with(CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020);
    const cusim_api_call *lk = api_with(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
    const cusim_api_call *sy = api_with(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020);
    const cusim_api_call *ma = api_with(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020);
    ck_assert_ptr_nonnull(cp);
    ck_assert_ptr_nonnull(ms);
    ck_assert_ptr_nonnull(lk);
    ck_assert_ptr_nonnull(sy);
    ck_assert_ptr_nonnull(ma);
    ck_assert_str_eq(cp->name, "cudaMemcpy");
    ck_assert_ptr_nonnull(cp->params);
    ck_assert_int_eq(rec.n_copy, 2);
    ck_assert_uint_eq(rec.copy[0].correlation_id, cp->correlation_id);
    ck_assert_int_eq(rec.copy[0].copy_kind, CUSIM_COPY_HTOD);
    ck_assert_uint_eq(rec.copy[0].bytes, sizeof h);
    ck_assert_uint_eq(rec.copy[1].correlation_id, ms->correlation_id);
    ck_assert_int_eq(rec.copy[1].is_memset, 1);
    ck_assert_int_eq(rec.n_kernel, 1);
    ck_assert_uint_eq(rec.kernel[0].correlation_id, lk->correlation_id);
    ck_assert_int_eq(rec.n_sync, 1);
    ck_assert_uint_eq(rec.sync[0].correlation_id, sy->correlation_id);
    /* ids increase call by call on one thread */
    for (int i = 1; i < rec.n_api; i++)
        ck_assert_uint_gt(rec.api[i].correlation_id, rec.api[i - 1].correlation_id);
    /* api times are on the device clock, not CLOCK_MONOTONIC */
    ck_assert_uint_gt(lk->start_gpu_ns, cusim_host_ns() + 1000000000ull);
}
END_TEST

/* Stream capture: the captured launches, copies and memsets become nodes
 * (no device work, the calls still traced), the tool hears of each node, of
 * the exec and of each clone; every replay's records carry the launch's
 * correlation id, the exec's graph id and the clones' node ids; an explicit
 * graph and a kernel node update in the exec; capture errors. */
START_TEST(test_graphs_capture_and_replay)
{
    register_kernels();
    cusim_init();
    memset(&rec, 0, sizeof rec);
    cusim_tool_set(&recorder);
    cudaStream_t s;
    ck_assert_int_eq(cudaStreamCreate(&s), cudaSuccess);
    float *d, h[64] = {0};
    ck_assert_int_eq(cudaMalloc((void **)&d, sizeof h), cudaSuccess);
    enum cudaStreamCaptureStatus st;
    ck_assert_int_eq(cudaStreamEndCapture(s, &(cudaGraph_t){0}), cudaErrorIllegalState);
    ck_assert_int_eq(cudaStreamBeginCapture(NULL, cudaStreamCaptureModeGlobal), cudaErrorStreamCaptureUnsupported);
    ck_assert_int_eq(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaErrorIllegalState);
    ck_assert_int_eq(cudaStreamIsCapturing(s, &st), cudaSuccess);
    ck_assert_int_eq(st, cudaStreamCaptureStatusActive);
    void *args[] = {&d};
    int copies0 = rec.n_copy, kernels0 = rec.n_kernel;
    ck_assert_int_eq(cudaMemsetAsync(d, 0, sizeof h, s), cudaSuccess);
    ck_assert_int_eq(cudaLaunchKernel((const void *)stub_axpy, d3(1, 1, 1), d3(64, 1, 1), args, 0, s), cudaSuccess);
    ck_assert_int_eq(cudaLaunchKernel((const void *)stub_axpy, d3(2, 1, 1), d3(64, 1, 1), args, 0, s), cudaSuccess);
    ck_assert_int_eq(rec.n_kernel, kernels0);   /* captured, not run */
    ck_assert_int_eq(rec.n_copy, copies0);
    cudaGraph_t g;
    ck_assert_int_eq(cudaStreamEndCapture(s, &g), cudaSuccess);
    ck_assert_int_eq(cudaStreamIsCapturing(s, &st), cudaSuccess);
    ck_assert_int_eq(st, cudaStreamCaptureStatusNone);
    size_t n = 0;
    ck_assert_int_eq(cudaGraphGetNodes(g, NULL, &n), cudaSuccess);
    ck_assert_uint_eq(n, 3);
    cudaGraphNode_t nodes[3];
    ck_assert_int_eq(cudaGraphGetNodes(g, nodes, &n), cudaSuccess);
    enum cudaGraphNodeType type;
    ck_assert_int_eq(cudaGraphNodeGetType(nodes[0], &type), cudaSuccess);
    ck_assert_int_eq(type, cudaGraphNodeTypeMemset);
    ck_assert_int_eq(cudaGraphNodeGetType(nodes[1], &type), cudaSuccess);
    ck_assert_int_eq(type, cudaGraphNodeTypeKernel);
    ck_assert_int_eq(rec.n_graph, 3);   /* one CREATED per node, in the capturing calls */
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(rec.graph[i].what, CUSIM_GRAPH_NODE_CREATED);
        ck_assert_uint_eq(rec.graph_node_id[i], cusim_graph_node_id(cusim_graph_node_get(nodes[i])));
    }

    cudaGraphExec_t e;
    ck_assert_int_eq(cudaGraphInstantiate(&e, g, 0), cudaSuccess);
    /* the exec, then per node CREATED and CLONED (as the real CUPTI 13) */
    ck_assert_int_eq(rec.n_graph, 10);
    ck_assert_int_eq(rec.graph[3].what, CUSIM_GRAPH_EXEC_CREATED);
    uint64_t clone[3];
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(rec.graph[4 + 2 * i].what, CUSIM_GRAPH_NODE_CREATED);
        ck_assert_uint_eq(rec.graph_original_id[4 + 2 * i], 0);
        ck_assert_int_eq(rec.graph[5 + 2 * i].what, CUSIM_GRAPH_NODE_CLONED);
        ck_assert_uint_eq(rec.graph_original_id[5 + 2 * i], rec.graph_node_id[i]);
        ck_assert_uint_eq(rec.graph_node_id[4 + 2 * i], rec.graph_node_id[5 + 2 * i]);
        clone[i] = rec.graph_node_id[5 + 2 * i];
        ck_assert_uint_ne(clone[i], rec.graph_node_id[i]);
        /* the graph's id in the high 32 bits, the node's index in the low */
        ck_assert_uint_eq(clone[i] & 0xffffffffu, (uint64_t)i);
        ck_assert_uint_eq(rec.graph_node_id[i] & 0xffffffffu, (uint64_t)i);
    }
    for (int r = 0; r < 2; r++)
        ck_assert_int_eq(cudaGraphLaunch(e, s), cudaSuccess);
    ck_assert_int_eq(cudaStreamSynchronize(s), cudaSuccess);
    ck_assert_int_eq(rec.n_kernel - kernels0, 4);
    ck_assert_int_eq(rec.n_copy - copies0, 2);
    const cusim_api_call *gl = api_with(CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000);
    ck_assert_ptr_nonnull(gl);
    for (int i = kernels0; i < rec.n_kernel; i++) {
        ck_assert_uint_ne(rec.kernel[i].graph_id, 0);
        ck_assert(rec.kernel[i].graph_node_id == clone[1] || rec.kernel[i].graph_node_id == clone[2]);
    }
    /* the second replay's records carry the second launch's correlation id */
    ck_assert_uint_eq(rec.kernel[rec.n_kernel - 1].correlation_id, gl->correlation_id);
    ck_assert_uint_eq(rec.copy[rec.n_copy - 1].correlation_id, gl->correlation_id);
    ck_assert_uint_eq(rec.copy[rec.n_copy - 1].graph_node_id, clone[0]);
    ck_assert_uint_eq(rec.kernel[rec.n_kernel - 2].correlation_id, gl->correlation_id);
    ck_assert_uint_ne(rec.kernel[kernels0].correlation_id, gl->correlation_id);
    /* replays run in order on the stream */
    ck_assert_uint_ge(rec.kernel[rec.n_kernel - 1].start, rec.kernel[rec.n_kernel - 2].end);

    /* an update of a kernel node in the exec: the next replay's grid */
    struct cudaKernelNodeParams kp = {(void *)stub_axpy, d3(7, 1, 1), d3(32, 1, 1), 0, args, NULL};
    ck_assert_int_eq(cudaGraphExecKernelNodeSetParams(e, nodes[1], &kp), cudaSuccess);
    ck_assert_int_eq(cudaGraphLaunch(e, s), cudaSuccess);
    ck_assert_int_eq(cudaStreamSynchronize(s), cudaSuccess);
    ck_assert_uint_eq(rec.kernel[rec.n_kernel - 2].desc->grid[0], 7);

    /* an explicit graph: kernel, 1D copy, memset nodes */
    cudaGraph_t x;
    cudaGraphNode_t kn, cn, mn;
    ck_assert_int_eq(cudaGraphCreate(&x, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphAddKernelNode(&kn, x, NULL, 0, &kp), cudaSuccess);
    ck_assert_int_eq(cudaGraphAddMemcpyNode1D(&cn, x, &kn, 1, d, d + 32, 32 * sizeof(float),
                                              cudaMemcpyDeviceToDevice), cudaSuccess);
    struct cudaMemsetParams mp = {d, 0, 0, 4, 16, 1};
    ck_assert_int_eq(cudaGraphAddMemsetNode(&mn, x, &cn, 1, &mp), cudaSuccess);
    cudaGraphExec_t xe;
    int k1 = rec.n_kernel, c1 = rec.n_copy;
    ck_assert_int_eq(cudaGraphInstantiate(&xe, x, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphLaunch(xe, s), cudaSuccess);
    ck_assert_int_eq(cudaStreamSynchronize(s), cudaSuccess);
    ck_assert_int_eq(rec.n_kernel - k1, 1);
    ck_assert_int_eq(rec.n_copy - c1, 2);
    ck_assert_int_eq(rec.copy[c1].copy_kind, CUSIM_COPY_DTOD);
    ck_assert_uint_eq(rec.copy[c1 + 1].bytes, 64);
    ck_assert_uint_ne(rec.kernel[k1].graph_id, rec.kernel[kernels0].graph_id);
    ck_assert_int_eq(cudaGraphExecDestroy(xe), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(x), cudaSuccess);
    ck_assert_int_eq(cudaGraphExecDestroy(e), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(g), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(g), cudaErrorInvalidValue);   /* stale handle */
    cusim_tool_set(NULL);
    cudaFree(d);
}
END_TEST

/* An exec outlives the graph it was made from (CUDA allows destroying the
 * graph once instantiated): its replays copy and set what the destroyed
 * graph's nodes said, and nothing reads the graph's freed memory (make
 * asan-test runs this file under AddressSanitizer). */
START_TEST(test_graph_exec_outlives_its_graph)
{
    register_kernels();
    cusim_init();
    memset(&rec, 0, sizeof rec);
    cusim_tool_set(&recorder);
    cudaStream_t s;
    ck_assert_int_eq(cudaStreamCreate(&s), cudaSuccess);
    float *d, h[64];
    for (int i = 0; i < 64; i++)
        h[i] = (float)i;
    ck_assert_int_eq(cudaMalloc((void **)&d, sizeof h), cudaSuccess);
    void *args[] = {&d};
    struct cudaKernelNodeParams kp = {(void *)stub_axpy, d3(2, 1, 1), d3(32, 1, 1), 0, args, NULL};
    cudaGraph_t g;
    cudaGraphNode_t kn, cn, mn, an;
    ck_assert_int_eq(cudaGraphCreate(&g, 0), cudaSuccess);
    struct cudaMemAllocNodeParams ap;
    memset(&ap, 0, sizeof ap);
    ap.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.poolProps.location.type = cudaMemLocationTypeDevice;
    ap.bytesize = 256;
    ck_assert_int_eq(cudaGraphAddMemAllocNode(&an, g, NULL, 0, &ap), cudaSuccess);
    ck_assert_int_eq(cudaGraphAddMemcpyNode1D(&cn, g, &an, 1, d, h, sizeof h, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(cudaGraphAddKernelNode(&kn, g, &cn, 1, &kp), cudaSuccess);
    struct cudaMemsetParams mp = {ap.dptr, 0, 7, 1, 256, 1};
    ck_assert_int_eq(cudaGraphAddMemsetNode(&mn, g, &kn, 1, &mp), cudaSuccess);
    cudaGraphExec_t e;
    /* the allocation outlives each launch: freed by the next (CUDA fails a
     * launch while it is still allocated otherwise) */
    ck_assert_int_eq(cudaGraphInstantiate(&e, g, cudaGraphInstantiateFlagAutoFreeOnLaunch), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(g), cudaSuccess);
    int k0 = rec.n_kernel, c0 = rec.n_copy;
    for (int r = 0; r < 3; r++)
        ck_assert_int_eq(cudaGraphLaunch(e, s), cudaSuccess);
    ck_assert_int_eq(cudaStreamSynchronize(s), cudaSuccess);
    ck_assert_int_eq(rec.n_kernel - k0, 3);
    ck_assert_int_eq(rec.n_copy - c0, 6);   /* the copy and the memset, each replay */
    float back[64];
    ck_assert_int_eq(cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost), cudaSuccess);
    ck_assert(back[63] == 63.0f);
    unsigned char set[256];
    ck_assert_int_eq(cudaMemcpy(set, ap.dptr, sizeof set, cudaMemcpyDeviceToHost), cudaSuccess);
    ck_assert_int_eq(set[255], 7);
    ck_assert_int_eq(cudaGraphExecDestroy(e), cudaSuccess);
    /* stale handles: an error, and nothing read (the sim keeps the live ones) */
    ck_assert_int_eq(cudaGraphLaunch(e, s), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaGraphExecDestroy(e), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaGraphExecKernelNodeSetParams(e, kn, &kp), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaGraphDestroy(g), cudaErrorInvalidValue);
    cusim_tool_set(NULL);
    cudaFree(ap.dptr);
    cudaFree(d);
}
END_TEST

/* MEMORY2 and MEMORY_POOL as CUPTI gives them: an allocation record per
 * allocation and a release per free, in the call (its correlation id),
 * stream-ordered ones with their stream and pool; pools created, trimmed,
 * destroyed. */
START_TEST(test_memory_records)
{
    cusim_init();
    memset(&rec, 0, sizeof rec);
    cusim_tool_set(&recorder);
    void *d, *a;
    ck_assert_int_eq(cudaMalloc(&d, 1000), cudaSuccess);
    const cusim_api_call *ma = api_with(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020);
    ck_assert_int_eq(rec.n_mem, 1);
    ck_assert_int_eq(rec.mem[0].release, 0);
    ck_assert_uint_eq(rec.mem[0].address, (uintptr_t)d);
    ck_assert_uint_eq(rec.mem[0].bytes, 1000);
    ck_assert_uint_eq(rec.mem[0].correlation_id, ma->correlation_id);
    ck_assert_ptr_null(rec.mem[0].pool);
    cudaStream_t s;
    ck_assert_int_eq(cudaStreamCreate(&s), cudaSuccess);
    ck_assert_int_eq(cudaMallocAsync(&a, 3000, s), cudaSuccess);
    ck_assert_int_eq(rec.n_mem, 2);
    ck_assert_int_eq(rec.mem[1].is_async, 1);
    ck_assert_uint_ne(rec.mem[1].stream_id, 0);
    ck_assert_ptr_nonnull(rec.mem[1].pool);
    ck_assert_int_eq(rec.mem[1].pool_is_default, 1);
    ck_assert_uint_eq(rec.mem[1].pool_used, 3000);
    ck_assert_int_eq(cudaFreeAsync(a, s), cudaSuccess);
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
    ck_assert_int_eq(rec.n_mem, 4);
    ck_assert_int_eq(rec.mem[2].release, 1);
    ck_assert_uint_eq(rec.mem[2].bytes, 3000);
    ck_assert_ptr_eq(rec.mem[2].pool, rec.mem[1].pool);
    ck_assert_int_eq(rec.mem[3].release, 1);
    ck_assert_uint_eq(rec.mem[3].address, (uintptr_t)d);
    ck_assert_uint_eq(rec.mem[3].bytes, 1000);

    cudaMemPool_t p;
    struct cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    ck_assert_int_eq(cudaMemPoolCreate(&p, &props), cudaSuccess);
    ck_assert_int_eq(cudaMemPoolTrimTo(p, 0), cudaSuccess);
    ck_assert_int_eq(cudaMemPoolDestroy(p), cudaSuccess);
    ck_assert_int_eq(rec.n_pool, 3);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(rec.pool[i].op, i == 0 ? 0 : i == 1 ? 2 : 1);
        ck_assert_ptr_eq(rec.pool[i].pool, (const void *)p);
    }
    cusim_tool_set(NULL);
}
END_TEST

START_TEST(test_sync_really_blocks)
{
    register_kernels();
    cusim_init();
    cusim_tool_set(&recorder);
    void *args[] = {NULL};
    /* 2^30 threads x 12 B at 3 TB/s: about 4.3 ms */
    ck_assert_int_eq(cudaLaunchKernel((const void *)stub_big, d3(1u << 20, 1, 1),
                                      d3(1024, 1, 1), args, 0, NULL),
                     cudaSuccess);
    uint64_t returned = cusim_gpu_ns();
    ck_assert_int_eq(rec.n_kernel, 1);
    uint64_t end = rec.kernel[0].end;
    ck_assert_uint_lt(returned, end); /* launch is asynchronous */
    ck_assert_uint_ge(end - rec.kernel[0].start, 4000000);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    ck_assert_uint_ge(cusim_gpu_ns(), end);
    ck_assert_int_eq(rec.n_sync, 1);
    ck_assert_uint_ge(rec.sync[0].end, end);
    cusim_tool_set(NULL);
}
END_TEST

START_TEST(test_events_and_stream_order)
{
    register_kernels();
    cusim_init();
    cusim_tool_set(&recorder);
    cudaStream_t s;
    cudaEvent_t a, b;
    ck_assert_int_eq(cudaStreamCreate(&s), cudaSuccess);
    ck_assert_int_eq(cudaEventCreate(&a), cudaSuccess);
    ck_assert_int_eq(cudaEventCreateWithFlags(&b, cudaEventDefault), cudaSuccess);
    float ms = 0;
    ck_assert_int_eq(cudaEventElapsedTime(&ms, a, b), cudaErrorInvalidResourceHandle);
    void *args[] = {NULL};
    ck_assert_int_eq(cudaEventRecord(a, s), cudaSuccess);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(cudaLaunchKernel((const void *)stub_big, d3(1u << 18, 1, 1),
                                          d3(1024, 1, 1), args, 0, s),
                         cudaSuccess);
    ck_assert_int_eq(cudaEventRecord(b, s), cudaSuccess);
    ck_assert_int_eq(cudaEventQuery(b), cudaErrorNotReady);
    ck_assert_int_eq(cudaEventSynchronize(b), cudaSuccess);
    ck_assert_int_eq(cudaEventQuery(b), cudaSuccess);
    ck_assert_int_eq(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
    cusim_tool_set(NULL);
    ck_assert_int_eq(rec.n_kernel, 4);
    double busy = 0;
    for (int i = 0; i < 4; i++) {
        busy += (double)(rec.kernel[i].end - rec.kernel[i].start);
        if (i > 0)
            ck_assert_uint_ge(rec.kernel[i].start, rec.kernel[i - 1].end);
    }
    double span = (double)(rec.kernel[3].end - rec.kernel[0].start) / 1e6;
    /* elapsed covers the kernels (plus the launch gap before the first) */
    ck_assert(ms >= span - 1e-3);
    ck_assert(ms < span + 0.1);
    ck_assert(busy / 1e6 <= ms);
    /* each ~1.07 ms, +/-3% or an outlier up to 3x */
    ck_assert(busy / 4 > 1.0e6 && busy / 4 < 3.4e6);
    ck_assert_int_eq(cudaEventDestroy(a), cudaSuccess);
    ck_assert_int_eq(cudaEventDestroy(b), cudaSuccess);
    ck_assert_int_eq(cudaStreamDestroy(s), cudaSuccess);
}
END_TEST

START_TEST(test_occupancy_and_attributes)
{
    register_kernels();
    struct cudaFuncAttributes fa;
    ck_assert_int_eq(cudaFuncGetAttributes(&fa, (const void *)stub_axpy), cudaSuccess);
    ck_assert_int_ge(fa.numRegs, 16);
    ck_assert_int_le(fa.numRegs, 64);
    ck_assert_int_eq(fa.maxDynamicSharedSizeBytes, 48 * 1024);
    struct cudaFuncAttributes fb;
    ck_assert_int_eq(cudaFuncGetAttributes(&fb, (const void *)stub_axpy), cudaSuccess);
    ck_assert_int_eq(fa.numRegs, fb.numRegs); /* deterministic */
    int n = -1;
    ck_assert_int_eq(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, (const void *)stub_axpy,
                                                                   256, 0),
                     cudaSuccess);
    ck_assert_int_eq(n, cusim_occupancy(256, 0, fa.numRegs, 0));
    ck_assert_int_ge(n, 1);
    ck_assert_int_le(n, 8);
    ck_assert_int_eq(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
                         &n, (const void *)stub_axpy, 128, 96 * 1024, cudaOccupancyDefault),
                     cudaSuccess);
    ck_assert_int_eq(n, 2);
    ck_assert_int_eq(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                         &n, (const void *)stub_unregistered, 128, 0),
                     cudaErrorInvalidDeviceFunction);
    const char *name = NULL;
    ck_assert_int_eq(cudaFuncGetName(&name, (const void *)stub_big), cudaSuccess);
    ck_assert_str_eq(name, BIG);
}
END_TEST

/* ---- injection ---------------------------------------------------------------- */

START_TEST(test_injection_runs_before_first_call)
{
    setenv("CUDA_INJECTION64_PATH", e2e_bpath("tests/libsim_test_inject.so"), 1);
    int n = 0;
    ck_assert_int_eq(cudaGetDeviceCount(&n), cudaSuccess);
    int *calls = dlsym(RTLD_DEFAULT, "sim_test_inject_calls");
    int *reentry = dlsym(RTLD_DEFAULT, "sim_test_inject_reentry_ok");
    int *ts = dlsym(RTLD_DEFAULT, "sim_test_inject_ts_ok");
    ck_assert_ptr_nonnull(calls);
    ck_assert_int_eq(*calls, 1);
    ck_assert_int_eq(*reentry, 1);
    ck_assert_int_eq(*ts, 1);
    ck_assert_int_eq(cusim_initialized(), 1);
    ck_assert_int_eq(cudaGetDeviceCount(&n), cudaSuccess);
    ck_assert_int_eq(*calls, 1); /* once */
    /* the tool's clock is now the device clock; too late to change it */
    int64_t lead = (int64_t)(cusim_gpu_ns() - cusim_host_ns());
    ck_assert_int_ge(lead, 4900000000ll);
    ck_assert_int_le(lead, 5100000000ll);
    ck_assert_int_eq(cusim_tool_set_timestamp_fn(NULL), -1);
}
END_TEST

/* ---- exports --------------------------------------------------------------------- */

/* Defined dynamic symbols of a library as "name version" lines. */
static char *exports(const char *lib)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "objdump -T '%s' | awk '$2 == \"g\" && $4 != \"*UND*\" "
                              "{print $NF, $(NF-1)}' | sort", lib);
    FILE *f = popen(cmd, "r");
    if (f == NULL)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len < 1024)
            buf = realloc(buf, cap *= 2);
    }
    buf[len] = '\0';
    pclose(f);
    return buf;
}

START_TEST(test_exports_match_real_library)
{
    char *ours = exports(e2e_bpath("sim/libcudart.so.13"));
    const char *cuda = getenv("CUDA_HOME") ? getenv("CUDA_HOME") : "/usr/local/cuda";
    char real_path[4096];
    snprintf(real_path, sizeof real_path, "%s/lib64/libcudart.so.13", cuda);
    char *real = exports(real_path);
    ck_assert_ptr_nonnull(ours);
    ck_assert_ptr_nonnull(real);
    int count = 0;
    for (char *line = strtok(ours, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        char name[256], ver[64];
        ck_assert_int_eq(sscanf(line, "%255s %63s", name, ver), 2);
        if (strcmp(name, "libcudart.so.13") == 0)
            continue; /* the version definition itself */
        ck_assert_msg(strcmp(ver, "libcudart.so.13") == 0, "%s has version %s", name, ver);
        char want[400];
        snprintf(want, sizeof want, "\n%s libcudart.so.13\n", name);
        ck_assert_msg(e2e_count(real, want) == 1 ||
                          strncmp(real, want + 1, strlen(want) - 1) == 0,
                      "%s is not exported by the real libcudart", name);
        count++;
    }
    ck_assert_int_gt(count, 100);
    free(ours);
    free(real);
}
END_TEST

/* ---- an nvcc-built program ------------------------------------------------------- */

static const char PROGRAM[] =
    "#include <cstdio>\n"
    "__constant__ float scale[4];\n"
    "__global__ void twice(float *a, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] *= 2; }\n"
    "int main() {\n"
    "  const int n = 1000; float h[n], g[n]; for (int i = 0; i < n; i++) h[i] = i;\n"
    "  float *d; cudaMalloc(&d, sizeof h);\n"
    "  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);\n"
    "  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);\n"
    "  cudaEventRecord(a);\n"
    "  twice<<<(n + 255) / 256, 256>>>(d, n);\n"
    "  cudaEventRecord(b);\n"
    "  printf(\"launch: %s\\n\", cudaGetErrorName(cudaGetLastError()));\n"
    "  twice<<<1, 4096>>>(d, n);\n"
    "  printf(\"bad: %s\\n\", cudaGetErrorString(cudaGetLastError()));\n"
    "  cudaMemcpy(g, d, sizeof g, cudaMemcpyDeviceToHost);\n"
    "  cudaEventSynchronize(b); float ms = -1; cudaEventElapsedTime(&ms, a, b);\n"
    "  cudaDeviceProp p; cudaGetDeviceProperties(&p, 0);\n"
    "  printf(\"%s sm_%d%d round-trip %s elapsed>0 %d\\n\", p.name, p.major, p.minor,\n"
    "         g[999] == 999.0f ? \"ok\" : \"bad\", ms > 0);\n"
    "  float sc[4] = {1, 2, 3, 4}, sb[4] = {0};\n"
    "  cudaMemcpyToSymbol(scale, sc, sizeof sc);\n"
    "  cudaMemcpyFromSymbol(sb, scale, sizeof sb);\n"
    "  printf(\"symbol %s\\n\", sb[3] == 4.0f ? \"ok\" : \"bad\");\n"
    "  cudaFree(d); return 0; }\n";

/* Builds PROGRAM with the given extra nvcc flag and runs it on the sim. */
static void build_and_run(const char *flag)
{
    char *dir = e2e_tmpdir();
    char src[4200], exe[4200];
    snprintf(src, sizeof src, "%s/prog.cu", dir);
    snprintf(exe, sizeof exe, "%s/prog", dir);
    FILE *f = fopen(src, "w");
    ck_assert_ptr_nonnull(f);
    fputs(PROGRAM, f);
    fclose(f);
    const char *cuda = getenv("CUDA_HOME") ? getenv("CUDA_HOME") : "/usr/local/cuda";
    char nvcc[4200];
    snprintf(nvcc, sizeof nvcc, "%s/bin/nvcc", cuda);
    const char *cc[] = {nvcc, "-cudart=shared", "-arch=sm_90", flag, "-o", exe, src, NULL};
    if (flag == NULL)
        cc[3] = "-O2";
    e2e_result r = e2e_run(cc, NULL, dir, 120);
    ck_assert_msg(r.status == 0, "nvcc failed: %s", r.err);
    e2e_result_free(&r);
    const char *run[] = {exe, NULL};
    const char *env[] = {e2e_sim_env(), NULL};
    r = e2e_run(run, env, dir, 30);
    ck_assert_msg(r.status == 0, "program failed (%d): %s", r.status, r.err);
    ck_assert_msg(strstr(r.out, "launch: cudaSuccess\n") != NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "bad: invalid configuration argument\n") != NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "NVIDIA H100 80GB HBM3 sm_90 round-trip ok elapsed>0 1\n") !=
                      NULL,
                  "%s", r.out);
    ck_assert_msg(strstr(r.out, "symbol ok\n") != NULL, "%s", r.out);
    /* the kernel did not run: device code is not simulated; the data only
     * round-tripped (g[999] == 999, not 1998) */
    e2e_result_free(&r);
    e2e_rmtree(dir);
    free(dir);
}

START_TEST(test_nvcc_program_runs_on_sim)
{
    build_and_run(NULL);
}
END_TEST

START_TEST(test_nvcc_program_per_thread_stream)
{
    build_and_run("--default-stream=per-thread");
}
END_TEST

/* Memory pools: cudaMallocAsync draws from the device's current pool, whose
 * used/reserved amounts and high-water marks follow the allocations. */
START_TEST(test_memory_pools)
{
    cudaMemPool_t def = NULL, cur = NULL, mine = NULL;
    struct cudaMemPoolProps props;
    uint64_t used = 1, high = 0, reserved = 0, thr = 64u << 20;
    void *a, *b, *c;
    ck_assert_int_eq(cudaDeviceGetDefaultMemPool(&def, 0), cudaSuccess);
    ck_assert_int_eq(cudaDeviceGetMemPool(&cur, 0), cudaSuccess);
    ck_assert_ptr_eq(def, cur);
    ck_assert_int_eq(cudaDeviceGetDefaultMemPool(&def, 1), cudaErrorInvalidDevice);
    ck_assert_int_eq(cudaMemPoolGetAttribute(def, cudaMemPoolAttrUsedMemCurrent, &used),
                     cudaSuccess);
    ck_assert_uint_eq(used, 0);
    ck_assert_int_eq(cudaMallocAsync(&a, 3u << 20, NULL), cudaSuccess);
    ck_assert_int_eq(cudaMallocAsync(&b, 1u << 20, NULL), cudaSuccess);
    ck_assert_int_eq(cudaMemPoolGetAttribute(def, cudaMemPoolAttrUsedMemCurrent, &used),
                     cudaSuccess);
    ck_assert_uint_eq(used, 4u << 20);
    ck_assert_int_eq(cudaMemPoolGetAttribute(def, cudaMemPoolAttrReservedMemCurrent, &reserved),
                     cudaSuccess);
    ck_assert_uint_eq(reserved, 4u << 20); /* 2 MiB chunks */
    ck_assert_int_eq(cudaFreeAsync(a, NULL), cudaSuccess);
    ck_assert_int_eq(cudaMemPoolGetAttribute(def, cudaMemPoolAttrUsedMemCurrent, &used),
                     cudaSuccess);
    ck_assert_uint_eq(used, 1u << 20);
    ck_assert_int_eq(cudaMemPoolGetAttribute(def, cudaMemPoolAttrUsedMemHigh, &high), cudaSuccess);
    ck_assert_uint_eq(high, 4u << 20);
    high = 0; /* a reset goes to the current amount */
    ck_assert_int_eq(cudaMemPoolSetAttribute(def, cudaMemPoolAttrUsedMemHigh, &high), cudaSuccess);
    ck_assert_int_eq(cudaMemPoolGetAttribute(def, cudaMemPoolAttrUsedMemHigh, &high), cudaSuccess);
    ck_assert_uint_eq(high, 1u << 20);
    ck_assert_int_eq(cudaMemPoolSetAttribute(def, cudaMemPoolAttrUsedMemCurrent, &used),
                     cudaErrorInvalidValue);
    ck_assert_int_eq(cudaFree(b), cudaSuccess); /* cudaFree of a pool pointer counts too */
    ck_assert_int_eq(cudaMemPoolGetAttribute(def, cudaMemPoolAttrUsedMemCurrent, &used),
                     cudaSuccess);
    ck_assert_uint_eq(used, 0);

    /* a pool of our own, made current, keeps freed memory up to its threshold */
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    ck_assert_int_eq(cudaMemPoolCreate(&mine, &props), cudaSuccess);
    ck_assert_int_eq(cudaMemPoolSetAttribute(mine, cudaMemPoolAttrReleaseThreshold, &thr),
                     cudaSuccess);
    ck_assert_int_eq(cudaDeviceSetMemPool(0, mine), cudaSuccess);
    ck_assert_int_eq(cudaMallocAsync(&c, 10u << 20, NULL), cudaSuccess);
    ck_assert_int_eq(cudaFreeAsync(c, NULL), cudaSuccess);
    ck_assert_int_eq(cudaMemPoolGetAttribute(mine, cudaMemPoolAttrReservedMemCurrent, &reserved),
                     cudaSuccess);
    ck_assert_uint_eq(reserved, 10u << 20);
    ck_assert_int_eq(cudaMemPoolTrimTo(mine, 0), cudaSuccess);
    ck_assert_int_eq(cudaMemPoolGetAttribute(mine, cudaMemPoolAttrReservedMemCurrent, &reserved),
                     cudaSuccess);
    ck_assert_uint_eq(reserved, 0);
    ck_assert_int_eq(cudaMallocFromPoolAsync(&c, 1000, def, NULL), cudaSuccess);
    ck_assert_int_eq(cudaMemPoolGetAttribute(def, cudaMemPoolAttrUsedMemCurrent, &used),
                     cudaSuccess);
    ck_assert_uint_eq(used, 1000);
    ck_assert_int_eq(cudaFreeAsync(c, NULL), cudaSuccess);
    ck_assert_int_eq(cudaMemPoolDestroy(mine), cudaSuccess);
    ck_assert_int_eq(cudaDeviceGetMemPool(&cur, 0), cudaSuccess);
    ck_assert_ptr_eq(cur, def); /* back to the default pool */
    ck_assert_int_eq(cudaMemPoolDestroy(def), cudaErrorInvalidValue);
}
END_TEST


TCase *graph_nodes_tcase(void);   /* test_sim_graph_nodes.c */

static Suite *cudart_suite(void)
{
    Suite *s = suite_create("sim_cudart");
    TCase *tc = tcase_create("device");
    tcase_add_test(tc, test_device_query);
    tcase_add_test(tc, test_error_strings);
    tcase_add_test(tc, test_exports_match_real_library);
    suite_add_tcase(s, tc);
    tc = tcase_create("memory");
    tcase_add_test(tc, test_memory_round_trip);
    tcase_add_test(tc, test_pointer_attributes);
    tcase_add_test(tc, test_symbols);
    suite_add_tcase(s, tc);
    tc = tcase_create("launch");
    tcase_add_test(tc, test_launch_paths_carry_names);
    tcase_add_test(tc, test_launch_errors_and_last_error);
    tcase_add_test(tc, test_occupancy_and_attributes);
    tcase_add_test(tc, test_memory_pools);
    suite_add_tcase(s, tc);
    tc = tcase_create("timeline");
    tcase_add_test(tc, test_tool_correlates_work_with_calls);
    tcase_add_test(tc, test_sync_really_blocks);
    tcase_add_test(tc, test_events_and_stream_order);
    tcase_add_test(tc, test_injection_runs_before_first_call);
    suite_add_tcase(s, tc);
    tc = tcase_create("nvcc");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, test_nvcc_program_runs_on_sim);
    tcase_add_test(tc, test_graphs_capture_and_replay);
    tcase_add_test(tc, test_graph_exec_outlives_its_graph);
    tcase_add_test(tc, test_memory_records);
    tcase_add_test(tc, test_nvcc_program_per_thread_stream);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, graph_nodes_tcase());
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(cudart_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
