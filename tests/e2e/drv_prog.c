/*
 * drv_prog.c - a program written against the CUDA driver API alone (linked
 * with -lcuda, no runtime), as samples and bindings are: devices, a context,
 * memory, copies both ways and a memset, a stream and two events. Prints what
 * it found and whether the bytes came back; exit 0, or 3 when a call fails.
 * On the sim (tests/sim/driver) it runs as on a GPU (issue 31: such programs
 * died at load: "undefined symbol: cuDeviceGetCount").
 */
#include <cuda.h>
#include <stdio.h>
#include <string.h>

#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { \
    fprintf(stderr, "drv_prog: %s failed: %d\n", #x, (int)r_); return 3; } } while (0)

int main(void)
{
    int n = 0, major = 0, minor = 0;
    CUdevice dev;
    CUcontext ctx;
    char name[128];
    size_t total = 0;
    CK(cuInit(0));
    CK(cuDeviceGetCount(&n));
    CK(cuDeviceGet(&dev, 0));
    CK(cuDeviceGetName(name, sizeof name, dev));
    CK(cuDeviceTotalMem(&total, dev));
    CK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    unsigned char host[4096], back[4096];
    for (size_t i = 0; i < sizeof host; i++)
        host[i] = (unsigned char)(i * 7);
    CUdeviceptr d;
    CK(cuMemAlloc(&d, sizeof host));
    CUstream s;
    CUevent a, b;
    CK(cuStreamCreate(&s, 0));
    CK(cuEventCreate(&a, 0));
    CK(cuEventCreate(&b, 0));
    CK(cuEventRecord(a, s));
    CK(cuMemcpyHtoD(d, host, sizeof host));
    CK(cuMemcpyDtoH(back, d, sizeof back));
    int same = memcmp(host, back, sizeof host) == 0;
    CK(cuMemsetD8(d, 0x5a, sizeof host));
    CK(cuMemcpyDtoH(back, d, sizeof back));
    int set = back[0] == 0x5a && back[sizeof back - 1] == 0x5a;
    CK(cuEventRecord(b, s));
    CK(cuEventSynchronize(b));
    float ms = -1;
    CK(cuEventElapsedTime(&ms, a, b));
    CK(cuEventDestroy(a));
    CK(cuEventDestroy(b));
    CK(cuStreamDestroy(s));
    CK(cuMemFree(d));
    CK(cuDevicePrimaryCtxRelease(dev));
    printf("drv_prog: %d device(s), %s, sm_%d%d, %zu MiB; round trip %s, memset %s, events %s\n", n,
           name, major, minor, total >> 20, same ? "ok" : "BAD", set ? "ok" : "BAD",
           ms >= 0 ? "ok" : "BAD");
    return same && set && ms >= 0 ? 0 : 3;
}
