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
 *   nvtx_prog payload   NVTX's payload extension, as a training loop would
 *                       annotate itself: a schema (iteration, loss, an enum
 *                       phase, a name) registered in domain "train", three
 *                       push ranges "step" each with its payload around a
 *                       memset, and a mark with one. Exit 3.
 */
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>
#include <stddef.h>
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

typedef struct train_payload {
    int iteration;
    double loss;
    int phase;           /* an enum: 0 forward, 1 backward */
    const char *model;
} train_payload;

static int payload(void)
{
    nvtxDomainHandle_t dom = nvtxDomainCreateA("train");
    static const nvtxPayloadEnum_t phases[] = {{"forward", 0, 0}, {"backward", 1, 0}};
    nvtxPayloadEnumAttr_t ea;
    memset(&ea, 0, sizeof ea);
    ea.fieldMask = NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES | NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES |
                   NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE;
    ea.entries = phases;
    ea.numEntries = 2;
    ea.sizeOfEnum = sizeof(int);
    uint64_t phase_id = nvtxPayloadEnumRegister(dom, &ea);
    const nvtxPayloadSchemaEntry_t entries[] = {
        {0, NVTX_PAYLOAD_ENTRY_TYPE_INT, "Iteration", NULL, 0, offsetof(train_payload, iteration), NULL, NULL},
        {0, NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE, "Loss", NULL, 0, offsetof(train_payload, loss), NULL, NULL},
        {0, phase_id, "Phase", NULL, 0, offsetof(train_payload, phase), NULL, NULL},
        {0, NVTX_PAYLOAD_ENTRY_TYPE_CSTRING, "Model", NULL, 0, offsetof(train_payload, model), NULL, NULL}};
    nvtxPayloadSchemaAttr_t sa;
    memset(&sa, 0, sizeof sa);
    sa.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                   NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE;
    sa.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
    sa.entries = entries;
    sa.numEntries = 4;
    sa.payloadStaticSize = sizeof(train_payload);
    uint64_t schema = nvtxPayloadSchemaRegister(dom, &sa);
    void *d = NULL;
    cudaMalloc(&d, 1024);
    for (int i = 0; i < 3; i++) {
        train_payload pl = {i, 0.5 / (i + 1), i % 2, "mlp"};
        nvtxPayloadData_t pd = {schema, sizeof pl, &pl};
        nvtxEventAttributes_t a;
        memset(&a, 0, sizeof a);
        a.version = NVTX_VERSION;
        a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
        a.messageType = NVTX_MESSAGE_TYPE_ASCII;
        a.message.ascii = "step";
        a.payloadType = NVTX_PAYLOAD_TYPE_EXT;
        a.reserved0 = 1;
        a.payload.ullValue = (uint64_t)(uintptr_t)&pd;
        nvtxDomainRangePushEx(dom, &a);
        cudaMemset(d, i, 1024);
        cudaDeviceSynchronize();
        nvtxDomainRangePop(dom);
        if (i == 2) {
            a.message.ascii = "checkpoint";
            nvtxDomainMarkEx(dom, &a);
        }
    }
    cudaFree(d);
    printf("nvtx_prog payload done\n");
    return 3;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "payload") == 0)
        return payload();
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
