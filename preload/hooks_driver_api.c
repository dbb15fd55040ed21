/*
 * hooks_driver_api.c - the driver API's copies, memsets, allocations, frees,
 * syncs and events, linked by a program (-lcuda: JAX/XLA, the driver
 * samples) or handed out by the entry points (hooks_driver.c), recorded with
 * the arguments the runtime's equivalents show (hooks_memory.c,
 * hooks_sync.c): a copy's bytes, direction and stream, a memset's bytes, an
 * allocation's size and pointer, a free's pointer, a sync's stream or event.
 * Category cuda_driver; each call's copies and memsets are charged to it
 * through CUPTI's driver record of the same name (model/timeline.c).
 *
 * Device memory (model/memory.h): cuMemAlloc, cuMemAllocPitch (pitch *
 * height), cuMemAllocManaged, cuMemAllocAsync, cuMemAllocFromPoolAsync and
 * cuMemCreate (physical memory: its handle stands for the pointer, and
 * cuMemRelease frees it) are told to the collector as the runtime's are;
 * the address ranges of cuMemAddressReserve and cuMemMap are recorded with
 * their size (a free's size is its range's) and counted apart by the model.
 */
#include "preload/hooks.h"

/* A driver hook: `pre` runs before the call is timed (a pointer query), `fill`
 * once it is open (c: the call; its event's arguments), `call` is the real
 * function's arguments, `after` runs once it returned r. */
#define CU_HOOK(name, sig, pre, fill, call, after)                                                   \
    PRELOAD_EXPORT CUresult name sig                                                                 \
    {                                                                                                \
        preload_##name##_fn real = PRELOAD_REAL(name);                                               \
        pre;                                                                                         \
        preload_call c = HOOK_BEGIN(name);                                                           \
        fill;                                                                                        \
        CUresult r = real ? real call : PRELOAD_CUDA_MISSING;                                        \
        after;                                                                                       \
        return (CUresult)hook_end(c, r);                                                             \
    }

/* ---- copies ---------------------------------------------------------------- */

/* Host or device side of a unified pointer, asked from the driver
 * (cuPointerGetAttribute) as the profiler's own call; -1 unknown. A pointer
 * the driver does not know is pageable host memory. */
static int drv_on_device(CUdeviceptr p)
{
    preload_cuPointerGetAttribute_fn attr = PRELOAD_REAL(cuPointerGetAttribute);
    if (attr == NULL)
        return -1;
    unsigned type = 0;
    int g = cuprof_own_cuda_enter();
    CUresult r = attr(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p);
    cuprof_own_cuda_leave(g);
    if (r == CUDA_ERROR_INVALID_VALUE)
        return 0;
    if (r != CUDA_SUCCESS)
        return -1;
    return type == CU_MEMORYTYPE_DEVICE || type == CU_MEMORYTYPE_ARRAY;
}

/* The direction of a copy between unified pointers. */
static uint8_t drv_unified_dir(CUdeviceptr dst, CUdeviceptr src)
{
    int *errp = &errno, e = *errp;
    int s = drv_on_device(src), d = s < 0 ? -1 : drv_on_device(dst);
    *errp = e;
    if (s < 0 || d < 0)
        return CUPROF_DIR_UNKNOWN;
    return s ? (d ? CUPROF_DIR_DTOD : CUPROF_DIR_DTOH) : (d ? CUPROF_DIR_HTOD : CUPROF_DIR_HTOH);
}

/* A copy's direction from a 2D/3D descriptor's memory types. */
static uint8_t drv_type_dir(CUmemorytype src, CUmemorytype dst, CUdeviceptr s, CUdeviceptr d)
{
    if (src == CU_MEMORYTYPE_UNIFIED || dst == CU_MEMORYTYPE_UNIFIED)
        return drv_unified_dir(d, s);
    int sd = src != CU_MEMORYTYPE_HOST, dd = dst != CU_MEMORYTYPE_HOST;
    return sd ? (dd ? CUPROF_DIR_DTOD : CUPROF_DIR_DTOH) : (dd ? CUPROF_DIR_HTOD : CUPROF_DIR_HTOH);
}

static inline void drv_fill_copy(preload_call c, uint64_t bytes, uint8_t dir, CUstream hs, uint8_t async)
{
    if (!c.ev)
        return;
    c.ev->a.copy.bytes = bytes;
    c.ev->a.copy.dir = dir;
    c.ev->a.copy.stream = (uint64_t)(uintptr_t)hs;
    c.ev->a.copy.async = async;
}

/* The 1-D copies: (dst, src, bytes[, stream]), direction known or unified. */
#define CU_COPY(name, sig, dir, async, sarg, call)                                                   \
    CU_HOOK(name, sig, uint8_t d_ = (dir), drv_fill_copy(c, ByteCount, d_, sarg, async), call, (void)r)
#define CU_HTOD(name) CU_COPY(name, PRELOAD_SIG_CU_HTOD, CUPROF_DIR_HTOD, 0, NULL, (dstDevice, srcHost, ByteCount))
#define CU_DTOH(name) CU_COPY(name, PRELOAD_SIG_CU_DTOH, CUPROF_DIR_DTOH, 0, NULL, (dstHost, srcDevice, ByteCount))
#define CU_DTOD(name) CU_COPY(name, PRELOAD_SIG_CU_DTOD, CUPROF_DIR_DTOD, 0, NULL, (dstDevice, srcDevice, ByteCount))
#define CU_UNI(name)                                                                                 \
    CU_COPY(name, PRELOAD_SIG_CU_DTOD, drv_unified_dir(dstDevice, srcDevice), 0, NULL,           \
            (dstDevice, srcDevice, ByteCount))
#define CU_HTODA(name)                                                                               \
    CU_COPY(name, PRELOAD_SIG_CU_HTODA, CUPROF_DIR_HTOD, 1, hStream, (dstDevice, srcHost, ByteCount, hStream))
#define CU_DTOHA(name)                                                                               \
    CU_COPY(name, PRELOAD_SIG_CU_DTOHA, CUPROF_DIR_DTOH, 1, hStream, (dstHost, srcDevice, ByteCount, hStream))
#define CU_DTODA(name)                                                                               \
    CU_COPY(name, PRELOAD_SIG_CU_DTODA, CUPROF_DIR_DTOD, 1, hStream, (dstDevice, srcDevice, ByteCount, hStream))
#define CU_UNIA(name)                                                                                \
    CU_COPY(name, PRELOAD_SIG_CU_DTODA, drv_unified_dir(dstDevice, srcDevice), 1, hStream,       \
            (dstDevice, srcDevice, ByteCount, hStream))
#define CU_PEER(name)                                                                                \
    CU_COPY(name, PRELOAD_SIG_CU_PEER, CUPROF_DIR_PTOP, 0, NULL,                                 \
            (dstDevice, dstContext, srcDevice, srcContext, ByteCount))
#define CU_PEERA(name)                                                                               \
    CU_COPY(name, PRELOAD_SIG_CU_PEERA, CUPROF_DIR_PTOP, 1, hStream,                             \
            (dstDevice, dstContext, srcDevice, srcContext, ByteCount, hStream))
CU_UNI(cuMemcpy)
CU_UNI(cuMemcpy_ptds)
CU_UNIA(cuMemcpyAsync)
CU_UNIA(cuMemcpyAsync_ptsz)
CU_HTOD(cuMemcpyHtoD_v2)
CU_HTOD(cuMemcpyHtoD_v2_ptds)
CU_DTOH(cuMemcpyDtoH_v2)
CU_DTOH(cuMemcpyDtoH_v2_ptds)
CU_DTOD(cuMemcpyDtoD_v2)
CU_DTOD(cuMemcpyDtoD_v2_ptds)
CU_HTODA(cuMemcpyHtoDAsync_v2)
CU_HTODA(cuMemcpyHtoDAsync_v2_ptsz)
CU_DTOHA(cuMemcpyDtoHAsync_v2)
CU_DTOHA(cuMemcpyDtoHAsync_v2_ptsz)
CU_DTODA(cuMemcpyDtoDAsync_v2)
CU_DTODA(cuMemcpyDtoDAsync_v2_ptsz)
CU_PEER(cuMemcpyPeer)
CU_PEER(cuMemcpyPeer_ptds)
CU_PEERA(cuMemcpyPeerAsync)
CU_PEERA(cuMemcpyPeerAsync_ptsz)

/* The 2-D and 3-D copies: WidthInBytes * Height (* Depth) bytes, the
 * direction from the descriptor. */
#define CU_COPY_ND(name, sig, async, sarg, call, extent)                                             \
    CU_HOOK(name, sig,                                                                               \
            uint8_t d_ = pCopy ? drv_type_dir(pCopy->srcMemoryType, pCopy->dstMemoryType, pCopy->srcDevice, \
                                              pCopy->dstDevice)                                      \
                               : CUPROF_DIR_UNKNOWN,                                                 \
            drv_fill_copy(c, pCopy ? (uint64_t)(extent) : 0, d_, sarg, async), call, (void)r)
#define CU_2D(name) CU_COPY_ND(name, PRELOAD_SIG_CU_2D, 0, NULL, (pCopy), pCopy->WidthInBytes * pCopy->Height)
#define CU_2DA(name)                                                                                 \
    CU_COPY_ND(name, PRELOAD_SIG_CU_2DA, 1, hStream, (pCopy, hStream), pCopy->WidthInBytes * pCopy->Height)
#define CU_3D(name)                                                                                  \
    CU_COPY_ND(name, PRELOAD_SIG_CU_3D, 0, NULL, (pCopy), pCopy->WidthInBytes * pCopy->Height * pCopy->Depth)
#define CU_3DA(name)                                                                                 \
    CU_COPY_ND(name, PRELOAD_SIG_CU_3DA, 1, hStream, (pCopy, hStream),                               \
               pCopy->WidthInBytes * pCopy->Height * pCopy->Depth)
CU_2D(cuMemcpy2D_v2)
CU_2D(cuMemcpy2D_v2_ptds)
CU_2D(cuMemcpy2DUnaligned_v2)
CU_2D(cuMemcpy2DUnaligned_v2_ptds)
CU_2DA(cuMemcpy2DAsync_v2)
CU_2DA(cuMemcpy2DAsync_v2_ptsz)
CU_3D(cuMemcpy3D_v2)
CU_3D(cuMemcpy3D_v2_ptds)
CU_3DA(cuMemcpy3DAsync_v2)
CU_3DA(cuMemcpy3DAsync_v2_ptsz)

/* ---- memsets: N elements of 1, 2 or 4 bytes (2-D: Width of them, Height rows) */

#define CU_SET(name, sig, elem, async, sarg, count, call)                                            \
    CU_HOOK(name, sig, (void)0, drv_fill_copy(c, (uint64_t)(count) * (elem), CUPROF_DIR_MEMSET, sarg, async), \
            call, (void)r)
#define CU_SET1(name, T, elem) CU_SET(name, PRELOAD_SIG_CU_SET(T), elem, 0, NULL, N, (dstDevice, value, N))
#define CU_SET1A(name, T, elem)                                                                      \
    CU_SET(name, PRELOAD_SIG_CU_SETA(T), elem, 1, hStream, N, (dstDevice, value, N, hStream))
#define CU_SET2(name, T, elem)                                                                       \
    CU_SET(name, PRELOAD_SIG_CU_SET2D(T), elem, 0, NULL, Width * Height, (dstDevice, dstPitch, value, Width, Height))
#define CU_SET2A(name, T, elem)                                                                      \
    CU_SET(name, PRELOAD_SIG_CU_SET2DA(T), elem, 1, hStream, Width * Height,                         \
           (dstDevice, dstPitch, value, Width, Height, hStream))
CU_SET1(cuMemsetD8_v2, unsigned char, 1)
CU_SET1(cuMemsetD8_v2_ptds, unsigned char, 1)
CU_SET1(cuMemsetD16_v2, unsigned short, 2)
CU_SET1(cuMemsetD16_v2_ptds, unsigned short, 2)
CU_SET1(cuMemsetD32_v2, unsigned int, 4)
CU_SET1(cuMemsetD32_v2_ptds, unsigned int, 4)
CU_SET1A(cuMemsetD8Async, unsigned char, 1)
CU_SET1A(cuMemsetD8Async_ptsz, unsigned char, 1)
CU_SET1A(cuMemsetD16Async, unsigned short, 2)
CU_SET1A(cuMemsetD16Async_ptsz, unsigned short, 2)
CU_SET1A(cuMemsetD32Async, unsigned int, 4)
CU_SET1A(cuMemsetD32Async_ptsz, unsigned int, 4)
CU_SET2(cuMemsetD2D8_v2, unsigned char, 1)
CU_SET2(cuMemsetD2D8_v2_ptds, unsigned char, 1)
CU_SET2(cuMemsetD2D16_v2, unsigned short, 2)
CU_SET2(cuMemsetD2D16_v2_ptds, unsigned short, 2)
CU_SET2(cuMemsetD2D32_v2, unsigned int, 4)
CU_SET2(cuMemsetD2D32_v2_ptds, unsigned int, 4)
CU_SET2A(cuMemsetD2D8Async, unsigned char, 1)
CU_SET2A(cuMemsetD2D8Async_ptsz, unsigned char, 1)
CU_SET2A(cuMemsetD2D16Async, unsigned short, 2)
CU_SET2A(cuMemsetD2D16Async_ptsz, unsigned short, 2)
CU_SET2A(cuMemsetD2D32Async, unsigned int, 4)
CU_SET2A(cuMemsetD2D32Async_ptsz, unsigned int, 4)

/* ---- allocations and frees ------------------------------------------------- */

/* An allocation of `bytes` at *out (when it succeeded); device memory is
 * told to the collector (a capture window's memory held, collector/memheld.c). */
static void drv_alloc_done(preload_call c, unsigned fn, CUresult r, uint64_t ptr, uint64_t bytes, int device)
{
    if (c.ev) {
        c.ev->a.mem.bytes = bytes;
        if (r == CUDA_SUCCESS)
            c.ev->a.mem.ptr = ptr;
    }
    if (r == CUDA_SUCCESS && device)
        preload_memheld(0, ptr, bytes, fn);
}

static void drv_free_done(preload_call c, unsigned fn, CUresult r, uint64_t ptr, uint64_t bytes, int device)
{
    if (c.ev) {
        c.ev->a.mem.ptr = ptr;
        c.ev->a.mem.bytes = bytes;
    }
    if (r == CUDA_SUCCESS && device)
        preload_memheld(1, ptr, 0, fn);
}

CUresult preload_drv_mem_alloc(void *real, CUdeviceptr *dptr, size_t bytes)
{
    preload_call c = HOOK_BEGIN(cuMemAlloc_v2);
    CUresult r = real ? ((preload_cuMemAlloc_v2_fn)real)(dptr, bytes) : PRELOAD_CUDA_MISSING;
    drv_alloc_done(c, PRELOAD_FN_cuMemAlloc_v2, r, dptr ? (uint64_t)*dptr : 0, bytes, dptr != NULL);
    /* CUDA_ERROR_OUT_OF_MEMORY is 2, as the runtime's cudaErrorMemoryAllocation:
     * the memory model's out-of-memory note reads both */
    return (CUresult)hook_end(c, r);
}
_Static_assert((int)CUDA_ERROR_OUT_OF_MEMORY == (int)cudaErrorMemoryAllocation, "out of memory is 2 in both APIs");

CUresult preload_drv_mem_free(void *real, CUdeviceptr dptr)
{
    preload_call c = HOOK_BEGIN(cuMemFree_v2);
    CUresult r = real ? ((preload_cuMemFree_v2_fn)real)(dptr) : PRELOAD_CUDA_MISSING;
    drv_free_done(c, PRELOAD_FN_cuMemFree_v2, r, (uint64_t)dptr, 0, 1);
    return (CUresult)hook_end(c, r);
}

PRELOAD_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    return preload_drv_mem_alloc(preload_real(PRELOAD_FN_cuMemAlloc_v2), dptr, bytesize);
}

PRELOAD_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    return preload_drv_mem_free(preload_real(PRELOAD_FN_cuMemFree_v2), dptr);
}

/* An allocation or free hook: `call` the real function's arguments, `sarg`
 * the stream it is ordered on (0: none), `done` what is recorded once it
 * returned r (drv_alloc_done / drv_free_done). */
#define CU_MEM(name, sig, sarg, call, done)                                                          \
    CU_HOOK(name, sig, (void)0, if (c.ev) c.ev->a.mem.stream = (uint64_t)(uintptr_t)(sarg), call, done)
#define DPTR_OF(p) ((p) ? (uint64_t)*(p) : 0)
#define HPTR_OF(p) ((p) ? (uint64_t)(uintptr_t)*(p) : 0)

/* A pitched allocation holds pitch * Height bytes. */
CU_MEM(cuMemAllocPitch_v2,
       (CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes, size_t Height, unsigned int ElementSizeBytes), 0,
       (dptr, pPitch, WidthInBytes, Height, ElementSizeBytes),
       drv_alloc_done(c, PRELOAD_FN_cuMemAllocPitch_v2, r, DPTR_OF(dptr),
                      (r == CUDA_SUCCESS && pPitch ? *pPitch : WidthInBytes) * (uint64_t)Height, dptr != NULL))
CU_MEM(cuMemAllocManaged, (CUdeviceptr *dptr, size_t bytesize, unsigned int flags), 0, (dptr, bytesize, flags),
       drv_alloc_done(c, PRELOAD_FN_cuMemAllocManaged, r, DPTR_OF(dptr), bytesize, dptr != NULL))
/* Pinned host memory: recorded, not device memory (its name says Host). */
CU_MEM(cuMemAllocHost_v2, (void **pp, size_t bytesize), 0, (pp, bytesize),
       drv_alloc_done(c, PRELOAD_FN_cuMemAllocHost_v2, r, HPTR_OF(pp), bytesize, 0))
CU_MEM(cuMemHostAlloc, (void **pp, size_t bytesize, unsigned int Flags), 0, (pp, bytesize, Flags),
       drv_alloc_done(c, PRELOAD_FN_cuMemHostAlloc, r, HPTR_OF(pp), bytesize, 0))
CU_MEM(cuMemFreeHost, (void *p), 0, (p), drv_free_done(c, PRELOAD_FN_cuMemFreeHost, r, (uint64_t)(uintptr_t)p, 0, 0))

/* Stream-ordered: the memory is the program's from the call on, for the
 * accounting, as the pool reserves it then (as cudaMallocAsync). */
#define CU_ALLOCA(name)                                                                              \
    CU_MEM(name, PRELOAD_SIG_CU_ALLOCA, hStream, (dptr, bytesize, hStream),                          \
           drv_alloc_done(c, PRELOAD_FN_##name, r, DPTR_OF(dptr), bytesize, dptr != NULL))
#define CU_ALLOCPA(name)                                                                             \
    CU_MEM(name, PRELOAD_SIG_CU_ALLOCPA, hStream, (dptr, bytesize, pool, hStream),                   \
           drv_alloc_done(c, PRELOAD_FN_##name, r, DPTR_OF(dptr), bytesize, dptr != NULL))
#define CU_FREEA(name)                                                                               \
    CU_MEM(name, PRELOAD_SIG_CU_FREEA, hStream, (dptr, hStream),                                     \
           drv_free_done(c, PRELOAD_FN_##name, r, (uint64_t)dptr, 0, 1))
CU_ALLOCA(cuMemAllocAsync)
CU_ALLOCA(cuMemAllocAsync_ptsz)
CU_ALLOCPA(cuMemAllocFromPoolAsync)
CU_ALLOCPA(cuMemAllocFromPoolAsync_ptsz)
CU_FREEA(cuMemFreeAsync)
CU_FREEA(cuMemFreeAsync_ptsz)

/* Virtual memory management. Physical memory (cuMemCreate) is device memory
 * held until cuMemRelease, its handle standing for a pointer; the address
 * ranges reserved and mapped are recorded with their sizes (model/memory.c
 * counts them apart: reserved address space is not memory). */
CU_MEM(cuMemCreate,
       (CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop, unsigned long long flags),
       0, (handle, size, prop, flags),
       drv_alloc_done(c, PRELOAD_FN_cuMemCreate, r, DPTR_OF(handle), size, handle != NULL))
CU_MEM(cuMemRelease, (CUmemGenericAllocationHandle handle), 0, (handle),
       drv_free_done(c, PRELOAD_FN_cuMemRelease, r, (uint64_t)handle, 0, 1))
CU_MEM(cuMemAddressReserve,
       (CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr, unsigned long long flags), 0,
       (ptr, size, alignment, addr, flags), drv_alloc_done(c, PRELOAD_FN_cuMemAddressReserve, r, DPTR_OF(ptr), size, 0))
CU_MEM(cuMemAddressFree, (CUdeviceptr ptr, size_t size), 0, (ptr, size),
       drv_free_done(c, PRELOAD_FN_cuMemAddressFree, r, (uint64_t)ptr, size, 0))
CU_MEM(cuMemMap,
       (CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle, unsigned long long flags), 0,
       (ptr, size, offset, handle, flags), drv_alloc_done(c, PRELOAD_FN_cuMemMap, r, (uint64_t)ptr, size, 0))
CU_MEM(cuMemUnmap, (CUdeviceptr ptr, size_t size), 0, (ptr, size),
       drv_free_done(c, PRELOAD_FN_cuMemUnmap, r, (uint64_t)ptr, size, 0))

/* ---- syncs and events: the stream or event waited on or recorded ---------- */

#define CU_SYNC(name, sig, handle, call)                                                             \
    CU_HOOK(name, sig, (void)0, if (c.ev) c.ev->a.sync.stream = (uint64_t)(uintptr_t)(handle), call, (void)r)
CU_SYNC(cuCtxSynchronize, (void), 0, ())
CU_SYNC(cuStreamSynchronize, PRELOAD_SIG_CU_STREAM, hStream, (hStream))
CU_SYNC(cuStreamSynchronize_ptsz, PRELOAD_SIG_CU_STREAM, hStream, (hStream))
CU_SYNC(cuEventSynchronize, (CUevent hEvent), hEvent, (hEvent))
CU_SYNC(cuEventRecord, PRELOAD_SIG_CU_EVREC, hStream, (hEvent, hStream))
CU_SYNC(cuEventRecord_ptsz, PRELOAD_SIG_CU_EVREC, hStream, (hEvent, hStream))
CU_SYNC(cuEventRecordWithFlags, PRELOAD_SIG_CU_EVRECF, hStream, (hEvent, hStream, flags))
CU_SYNC(cuEventRecordWithFlags_ptsz, PRELOAD_SIG_CU_EVRECF, hStream, (hEvent, hStream, flags))
CU_SYNC(cuStreamWaitEvent, PRELOAD_SIG_CU_WAITEV, hStream, (hStream, hEvent, Flags))
CU_SYNC(cuStreamWaitEvent_ptsz, PRELOAD_SIG_CU_WAITEV, hStream, (hStream, hEvent, Flags))
