/*
 * nvtx_prog.c - NVTX every way a program uses it, for test_e2e_nvtx.c:
 * a range from a constructor (before main and before CUDA), nested push
 * ranges around CUDA calls, a start/end range ended on another thread, push
 * ranges on a second thread, a domain with a registered string, a wide
 * string, a mark. Exits with status 3, which the profiled run must keep.
 * Linked against the toolkit's libcudart; the test puts the sim first.
 *
 * For the capture window's tests, two more modes:
 *   nvtx_prog steps N   N steps, each a push range "ProfilerStep#i" (as
 *                       PyTorch numbers them) holding two memsets of
 *                       (i + 1) * 256 bytes, so the bytes tell which steps
 *                       were recorded; cudaProfilerStart before step 3's
 *                       range, cudaProfilerStop after step 4's. Exit 3.
 *   nvtx_prog steps N MS  the same, MS ms idle after each step.
 *   nvtx_prog timed MS  a 256-byte memset every millisecond for MS ms. Exit 3.
 *   nvtx_prog graph N   a graph of one 1 KiB memset node, launched N times
 *                       inside a push range "replay" (cudaGraphLaunch: a call
 *                       no hook sees, only CUPTI). Exit 3.
 */
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

__attribute__((constructor)) static void early(void)
{
    nvtxRangePushA("ctor");
    nvtxRangePop();
}

static void *worker(void *arg)
{
    nvtxRangeId_t id = *(nvtxRangeId_t *)arg;
    for (int i = 0; i < 3; i++) {
        nvtxRangePushA("worker");
        void *p = NULL;
        cudaMalloc(&p, 256);
        cudaFree(p);
        nvtxRangePop();
    }
    nvtxRangeEnd(id);
    return NULL;
}

static int steps(int n, int pause_ms)
{
    void *d = NULL;
    cudaMalloc(&d, (size_t)n * 256 + 256);
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "ProfilerStep#%d", i);
        if (i == 3)
            cudaProfilerStart();
        nvtxRangePushA(name);
        cudaMemset(d, 0, (size_t)(i + 1) * 256);
        cudaMemset(d, 1, (size_t)(i + 1) * 256);
        nvtxRangePop();
        if (i == 4)
            cudaProfilerStop();
        struct timespec ts = {pause_ms / 1000, (long)(pause_ms % 1000) * 1000000L};
        if (pause_ms)
            nanosleep(&ts, NULL);
    }
    cudaDeviceSynchronize();
    cudaFree(d);
    printf("nvtx_prog steps done\n");
    return 3;
}

static int timed(int ms)
{
    void *d = NULL;
    cudaMalloc(&d, 256);
    for (int i = 0; i < ms; i++) {
        cudaMemset(d, 0, 256);
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    cudaFree(d);
    printf("nvtx_prog timed done\n");
    return 3;
}

static int graph(int n)
{
    void *d = NULL;
    cudaStream_t s;
    cudaGraph_t g;
    cudaGraphNode_t node;
    cudaGraphExec_t e;
    cudaMalloc(&d, 1024);
    cudaStreamCreate(&s);
    cudaGraphCreate(&g, 0);
    struct cudaMemsetParams mp;
    memset(&mp, 0, sizeof mp);
    mp.dst = d, mp.value = 0, mp.elementSize = 1, mp.width = 1024, mp.height = 1;
    cudaGraphAddMemsetNode(&node, g, NULL, 0, &mp);
    cudaGraphInstantiate(&e, g, 0);
    nvtxRangePushA("replay");
    for (int i = 0; i < n; i++)
        cudaGraphLaunch(e, s);
    cudaStreamSynchronize(s);
    nvtxRangePop();
    cudaGraphExecDestroy(e);
    cudaGraphDestroy(g);
    cudaStreamDestroy(s);
    cudaFree(d);
    printf("nvtx_prog graph done\n");
    return 3;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "graph") == 0)
        return graph(atoi(argv[2]));
    if (argc == 3 && strcmp(argv[1], "steps") == 0)
        return steps(atoi(argv[2]), 0);
    if (argc == 4 && strcmp(argv[1], "steps") == 0)   /* MS ms idle after each step */
        return steps(atoi(argv[2]), atoi(argv[3]));
    if (argc == 3 && strcmp(argv[1], "timed") == 0)
        return timed(atoi(argv[2]));
    nvtxRangeId_t async = nvtxRangeStartA("async");
    void *d = NULL;
    nvtxRangePushA("outer");
    cudaMalloc(&d, 4096);
    nvtxRangePushA("inner");
    cudaMemset(d, 0, 4096);
    cudaDeviceSynchronize();
    nvtxRangePop();
    nvtxRangePop();

    pthread_t t;
    pthread_create(&t, NULL, worker, &async);
    pthread_join(t, NULL);

    nvtxDomainHandle_t dom = nvtxDomainCreateA("mydomain");
    nvtxStringHandle_t reg = nvtxDomainRegisterStringA(dom, "registered");
    nvtxEventAttributes_t a = {0};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = reg;
    nvtxDomainRangePushEx(dom, &a);
    cudaFree(d);
    nvtxDomainRangePop(dom);

    nvtxRangePushW(L"wide \u00e9");
    nvtxMarkA("mark");
    nvtxRangePop();
    printf("nvtx_prog done\n");
    return 3;
}
