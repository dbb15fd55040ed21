// driver_query: NVIDIA's deviceQueryDrv sample's shape, on the driver API
// alone (linked with -lcuda, as JAX/XLA and the driver samples are): the
// driver's version, the device's name, memory and attributes, a context,
// then what such programs do next: cuMemAlloc, a copy in and out, a memset,
// an async copy on a stream of its own and its sync, the error strings.
//@ link -lcuda
//@ api cuInit 1
//@ api cuDriverGetVersion 1
//@ api cuDeviceGetCount 1
//@ api cuDeviceGetName 1
//@ api cuDeviceTotalMem_v2 1
//@ api cuDeviceGetAttribute 4
//@ api cuMemAlloc_v2 2
//@ api cuMemcpyHtoD_v2 1
//@ api cuMemsetD32_v2 1
//@ api cuMemcpyDtoH_v2 2
//@ api cuMemcpyHtoDAsync_v2 1
//@ api cuStreamSynchronize 1
//@ api cuMemFree_v2 2
//@ api cuStreamCreate 1
//@ api cuGetErrorName 1
//@ api cuGetErrorString 1
//@ copy HtoD 2
//@ copy DtoH 2
//@ copy memset 1
//@ gpu_copy HtoD 2
//@ gpu_copy DtoH 2
#include "common.h"
#include <cstring>

int main()
{
    int count = 0, version = 0, major = 0, minor = 0, sms = 0, l2 = 0;
    char name[256];
    size_t total = 0;
    CUdevice dev;
    CUcontext ctx;
    CHECK_CU(cuInit(0));
    CHECK_CU(cuDriverGetVersion(&version));
    CHECK_CU(cuDeviceGetCount(&count));
    printf("CUDA Device Query (Driver API) statically linked version\n");
    printf("Detected %d CUDA Capable device(s)\n", count);
    if (count == 0)
        return 1;
    CHECK_CU(cuDeviceGet(&dev, 0));
    CHECK_CU(cuDeviceGetName(name, (int)sizeof name, dev));
    printf("Device 0: \"%s\"\n", name);
    printf("  CUDA Driver Version:                           %d.%d\n", version / 1000,
           (version % 100) / 10);
    CHECK_CU(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CHECK_CU(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    CHECK_CU(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    CHECK_CU(cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev));
    CHECK_CU(cuDeviceTotalMem(&total, dev));
    printf("  CUDA Capability Major/Minor version number:    %d.%d\n", major, minor);
    printf("  Total amount of global memory:                 %.0f MBytes\n",
           (double)total / 1048576.0);
    printf("  Multiprocessors, L2 cache (bytes):             %d, %d\n", sms, l2);

    CHECK_CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK_CU(cuCtxSetCurrent(ctx));
    const size_t n = 1 << 20;
    unsigned *h = (unsigned *)malloc(n * sizeof *h), *back = (unsigned *)malloc(n * sizeof *back);
    for (size_t i = 0; i < n; i++)
        h[i] = (unsigned)i;
    CUdeviceptr a, b;
    CHECK_CU(cuMemAlloc(&a, n * sizeof *h));
    CHECK_CU(cuMemAlloc(&b, n * sizeof *h));
    CHECK_CU(cuMemcpyHtoD(a, h, n * sizeof *h));
    CHECK_CU(cuMemsetD32(b, 0xabcdu, n));
    CHECK_CU(cuMemcpyDtoH(back, b, n * sizeof *back));
    int ok = back[0] == 0xabcdu && back[n - 1] == 0xabcdu;
    CUstream s;
    CHECK_CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CHECK_CU(cuMemcpyHtoDAsync(b, h, n * sizeof *h, s));
    CHECK_CU(cuStreamSynchronize(s));
    CHECK_CU(cuMemcpyDtoH(back, b, n * sizeof *back));
    ok = ok && memcmp(back, h, n * sizeof *h) == 0;
    CHECK_CU(cuStreamDestroy(s));
    CHECK_CU(cuMemFree(a));
    CHECK_CU(cuMemFree(b));
    /* what a driver program prints for an error it expects */
    const char *ename = 0, *estr = 0;
    CHECK_CU(cuGetErrorName(CUDA_ERROR_OUT_OF_MEMORY, &ename));
    CHECK_CU(cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &estr));
    printf("  error 2 is %s (%s)\n", ename, estr);
    CHECK_CU(cuDevicePrimaryCtxRelease(dev));
    free(h);
    free(back);
    printf("Result = %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
