/*
 * nvtx_prog.c - NVTX every way a program uses it, for test_e2e_nvtx.c:
 * a range from a constructor (before main and before CUDA), nested push
 * ranges around CUDA calls, a start/end range ended on another thread, push
 * ranges on a second thread, a domain with a registered string, a wide
 * string, a mark. Exits with status 3, which the profiled run must keep.
 * Linked against the toolkit's libcudart; the test puts the sim first.
 */
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdio.h>
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

int main(void)
{
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
