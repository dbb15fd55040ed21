// driver_vmm: device memory the way PyTorch's expandable segments and
// JAX/XLA take it, through the driver API (-lcuda): a virtual range
// reserved with cuMemAddressReserve, physical memory made with cuMemCreate
// and mapped into it piece by piece (cuMemMap, cuMemSetAccess), used by a
// copy and a memset, unmapped and released; then the stream-ordered
// allocator (cuMemAllocAsync, cuMemFreeAsync) and cuMemAllocPitch.
//@ link -lcuda
//@ api cuMemAddressReserve 1
//@ api cuMemCreate 2
//@ api cuMemMap 2
//@ api cuMemSetAccess 1
//@ api cuMemUnmap 2
//@ api cuMemRelease 2
//@ api cuMemAddressFree 1
//@ api cuMemAllocAsync 1
//@ api cuMemFreeAsync 1
//@ api cuMemAllocPitch_v2 1
//@ api cuMemGetAllocationGranularity 1
//@ api cuMemsetD32_v2 1
//@ api cuMemsetD8Async 1
//@ api cuMemFree_v2 1
//@ copy memset 2
//@ copy DtoH 1
//@ gpu_copy memset 2
#include "common.h"
#include <cstring>

int main()
{
    CUdevice dev;
    CUcontext ctx;
    CHECK_CU(cuInit(0));
    CHECK_CU(cuDeviceGet(&dev, 0));
    CHECK_CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK_CU(cuCtxSetCurrent(ctx));

    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    size_t gran = 0;
    CHECK_CU(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    /* reserve room for four pieces, map two of them (a growing segment) */
    const size_t piece = gran * 2, reserved = piece * 4;
    CUdeviceptr base;
    CHECK_CU(cuMemAddressReserve(&base, reserved, 0, 0, 0));
    CUmemGenericAllocationHandle hd[2];
    for (int i = 0; i < 2; i++) {
        CHECK_CU(cuMemCreate(&hd[i], piece, &prop, 0));
        CHECK_CU(cuMemMap(base + i * piece, piece, 0, hd[i], 0));
    }
    CUmemAccessDesc acc;
    memset(&acc, 0, sizeof acc);
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CHECK_CU(cuMemSetAccess(base, 2 * piece, &acc, 1));
    printf("granularity %zu: %zu bytes reserved, %zu mapped\n", gran, reserved, 2 * piece);

    const size_t n = 2 * piece / sizeof(unsigned);
    unsigned *h = (unsigned *)malloc(2 * piece);
    CHECK_CU(cuMemsetD32(base, 7u, n));
    CHECK_CU(cuMemcpyDtoH(h, base, 2 * piece));
    int ok = h[0] == 7u && h[n - 1] == 7u;

    for (int i = 0; i < 2; i++) {
        CHECK_CU(cuMemUnmap(base + i * piece, piece));
        CHECK_CU(cuMemRelease(hd[i]));
    }
    CHECK_CU(cuMemAddressFree(base, reserved));

    /* the stream-ordered allocator, and a pitched allocation */
    CUstream s;
    CHECK_CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUdeviceptr p;
    CHECK_CU(cuMemAllocAsync(&p, 1 << 20, s));
    CHECK_CU(cuMemsetD8Async(p, 1, 1 << 20, s));
    CHECK_CU(cuMemFreeAsync(p, s));
    CHECK_CU(cuStreamSynchronize(s));
    CUdeviceptr pitched;
    size_t pitch = 0;
    CHECK_CU(cuMemAllocPitch(&pitched, &pitch, 1000, 64, 4));
    ok = ok && pitch >= 1000;
    CHECK_CU(cuMemFree(pitched));
    CHECK_CU(cuStreamDestroy(s));
    CHECK_CU(cuDevicePrimaryCtxRelease(dev));
    free(h);
    printf("Result = %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
