/*
 * cuda_driver_mem.c - the simulated driver's memory calls: allocations
 * (cuMemAlloc, cuMemAllocPitch, cuMemAllocManaged, cuMemAllocHost,
 * cuMemHostAlloc and their frees), cuMemGetInfo, copies (blocking and
 * *Async, HtoD, DtoH, DtoD, unified) and memsets (D8, D16, D32, 2D, and their
 * Async forms), with the per-thread-default-stream forms (_ptds, _ptsz) the
 * real libcuda exports. Each call is traced in CUPTI's driver domain; each
 * copy and memset makes its record with the call's correlation id, and each
 * allocation and free its MEMORY2 record, as the runtime's do.
 *
 * Semantics from the driver API reference: the blocking copies return when
 * the copy is done; the synchronous memsets, like cudaMemset, return at once
 * for device memory (the record on the H200 starts after the call ended:
 * tests/fixtures/h200-580.159.04/driver_query); *Async calls queue on their
 * stream (pageable host memory still blocks, as in the runtime).
 */
#include "driver_internal.h"

#include <stdint.h>

#define DPTR(p) ((void *)(uintptr_t)(p))

/* An allocation of kind with its MEMORY2 record. */
static CUresult alloc(void **out, size_t bytes, enum cusim_mem_kind kind)
{
    if (out == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    void *p = cusim_mem_alloc(bytes, kind);
    if (p == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *out = p;
    cusim_memory_activity a = {.mem_kind = kind, .address = (uint64_t)(uintptr_t)p, .bytes = bytes};
    cusim_report_memory(&a);
    return CUDA_SUCCESS;
}

/* Frees p (an allocation of kind made here or by the runtime), its release
 * record first. */
static CUresult release(void *p, enum cusim_mem_kind kind)
{
    void *base = NULL;
    size_t size = 0;
    if (cusim_mem_find(p, &base, &size) != kind || base != p)
        return CUDA_ERROR_INVALID_VALUE;
    cusim_memory_activity a = {.release = 1, .mem_kind = kind, .address = (uint64_t)(uintptr_t)p, .bytes = size};
    cusim_report_memory(&a);
    return cusim_mem_free(p, kind) == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

DRV_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytes)
{
    DRV_CALL(cuMemAlloc_v2, "cuMemAlloc_v2", NULL);
    if (bytes == 0)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    DRV_RETURN(alloc((void **)dptr, bytes, CUSIM_MEM_DEVICE));
}

/* Rows of WidthInBytes padded to 512 bytes, as cudaMallocPitch's. */
DRV_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t width, size_t height,
                                       unsigned elem)
{
    DRV_CALL(cuMemAllocPitch_v2, "cuMemAllocPitch_v2", NULL);
    if (pitch == NULL || width == 0 || height == 0 || (elem != 4 && elem != 8 && elem != 16))
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    size_t p = (width + 511) / 512 * 512;
    CUresult r = alloc((void **)dptr, p * height, CUSIM_MEM_DEVICE);
    if (r == CUDA_SUCCESS)
        *pitch = p;
    DRV_RETURN(r);
}

DRV_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytes, unsigned flags)
{
    DRV_CALL(cuMemAllocManaged, "cuMemAllocManaged", NULL);
    if (bytes == 0 || (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST))
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    DRV_RETURN(alloc((void **)dptr, bytes, CUSIM_MEM_MANAGED));
}

DRV_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    DRV_CALL(cuMemFree_v2, "cuMemFree_v2", NULL);
    if (dptr == 0)
        DRV_RETURN(CUDA_SUCCESS);
    cusim_device_drain();   /* cuMemFree waits for the device, as cudaFree does */
    enum cusim_mem_kind k = cusim_mem_kind_of(DPTR(dptr));
    DRV_RETURN(release(DPTR(dptr), k == CUSIM_MEM_MANAGED ? k : CUSIM_MEM_DEVICE));
}

DRV_EXPORT CUresult cuMemAllocHost_v2(void **pp, size_t bytes)
{
    DRV_CALL(cuMemAllocHost_v2, "cuMemAllocHost_v2", NULL);
    DRV_RETURN(alloc(pp, bytes, CUSIM_MEM_PINNED));
}

DRV_EXPORT CUresult cuMemHostAlloc(void **pp, size_t bytes, unsigned flags)
{
    DRV_CALL(cuMemHostAlloc, "cuMemHostAlloc", NULL);
    if (flags & ~0xfu)   /* PORTABLE | DEVICEMAP | WRITECOMBINED | 0x8 */
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    DRV_RETURN(alloc(pp, bytes, CUSIM_MEM_PINNED));
}

DRV_EXPORT CUresult cuMemFreeHost(void *p)
{
    DRV_CALL(cuMemFreeHost, "cuMemFreeHost", NULL);
    cusim_device_drain();
    DRV_RETURN(release(p, CUSIM_MEM_PINNED));
}

DRV_EXPORT CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
    DRV_CALL(cuMemGetInfo_v2, "cuMemGetInfo_v2", NULL);
    if (free_bytes == NULL || total == NULL)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    *free_bytes = (size_t)(CUSIM_DEVICE_MEM_BYTES - cusim_mem_device_used());
    *total = (size_t)CUSIM_DEVICE_MEM_BYTES;
    DRV_RETURN(CUDA_SUCCESS);
}

/* ---- copies ---------------------------------------------------------------- */

/* A copy on stream hs (ptds: NULL is this thread's stream); blocking for the
 * synchronous forms. kind 4 (unified): from the pointers. */
static CUresult copy(void *dst, const void *src, size_t bytes, int kind, CUstream hs, int ptds, int blocking,
                     uint32_t corr)
{
    if ((dst == NULL || src == NULL) && bytes)
        return CUDA_ERROR_INVALID_VALUE;
    cusim_stream *s = cusim_stream_get(hs, ptds);
    if (s == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    cusim_memcpy(s, dst, src, bytes, kind, blocking, corr);
    return CUDA_SUCCESS;
}

/* A copy fn(dst, src, bytes[, stream]): params its parameters, hs its stream
 * (NULL for the blocking forms, which wait). */
#define COPY(fn, params, dtype, stype, kind, hs, ptds, blocking)                             \
    DRV_EXPORT CUresult fn params;                                                           \
    DRV_EXPORT CUresult fn params                                                            \
    {                                                                                        \
        DRV_CALL(fn, #fn, NULL);                                                             \
        DRV_RETURN(copy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes, kind, hs, ptds, blocking, \
                        drv_call_.correlation_id));                                          \
    }
#define COPY_SYNC(fn, dtype, stype, kind, ptds) COPY(fn, (dtype dst, stype src, size_t bytes), dtype, stype, kind, NULL, ptds, 1)
#define COPY_ASYNC(fn, dtype, stype, kind, ptds)                                             \
    COPY(fn, (dtype dst, stype src, size_t bytes, CUstream hs), dtype, stype, kind, hs, ptds, 0)
COPY_SYNC(cuMemcpyHtoD_v2, CUdeviceptr, const void *, CUSIM_COPY_HTOD, 0)
COPY_SYNC(cuMemcpyHtoD_v2_ptds, CUdeviceptr, const void *, CUSIM_COPY_HTOD, 1)
COPY_SYNC(cuMemcpyDtoH_v2, void *, CUdeviceptr, CUSIM_COPY_DTOH, 0)
COPY_SYNC(cuMemcpyDtoH_v2_ptds, void *, CUdeviceptr, CUSIM_COPY_DTOH, 1)
COPY_SYNC(cuMemcpyDtoD_v2, CUdeviceptr, CUdeviceptr, CUSIM_COPY_DTOD, 0)
COPY_SYNC(cuMemcpyDtoD_v2_ptds, CUdeviceptr, CUdeviceptr, CUSIM_COPY_DTOD, 1)
COPY_SYNC(cuMemcpy, CUdeviceptr, CUdeviceptr, 4, 0)
COPY_SYNC(cuMemcpy_ptds, CUdeviceptr, CUdeviceptr, 4, 1)
COPY_ASYNC(cuMemcpyHtoDAsync_v2, CUdeviceptr, const void *, CUSIM_COPY_HTOD, 0)
COPY_ASYNC(cuMemcpyHtoDAsync_v2_ptsz, CUdeviceptr, const void *, CUSIM_COPY_HTOD, 1)
COPY_ASYNC(cuMemcpyDtoHAsync_v2, void *, CUdeviceptr, CUSIM_COPY_DTOH, 0)
COPY_ASYNC(cuMemcpyDtoHAsync_v2_ptsz, void *, CUdeviceptr, CUSIM_COPY_DTOH, 1)
COPY_ASYNC(cuMemcpyDtoDAsync_v2, CUdeviceptr, CUdeviceptr, CUSIM_COPY_DTOD, 0)
COPY_ASYNC(cuMemcpyDtoDAsync_v2_ptsz, CUdeviceptr, CUdeviceptr, CUSIM_COPY_DTOD, 1)
COPY_ASYNC(cuMemcpyAsync, CUdeviceptr, CUdeviceptr, 4, 0)
COPY_ASYNC(cuMemcpyAsync_ptsz, CUdeviceptr, CUdeviceptr, 4, 1)

/* ---- memsets --------------------------------------------------------------- */

/* n elements of elem bytes at dst (2D: height rows, pitch apart). */
static CUresult memset_elems(CUdeviceptr dst, size_t pitch, uint32_t v, int elem, size_t n, size_t height,
                             CUstream hs, int ptds, uint32_t corr)
{
    if (dst == 0 && n)
        return CUDA_ERROR_INVALID_VALUE;
    if (dst % (unsigned)elem != 0 || (height > 1 && pitch < n * (size_t)elem))
        return CUDA_ERROR_INVALID_VALUE;
    cusim_stream *s = cusim_stream_get(hs, ptds);
    if (s == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    cusim_memset_elems(s, DPTR(dst), height > 1 ? pitch : n * (size_t)elem, v, elem, n * (size_t)elem, height,
                       0, corr);
    return CUDA_SUCCESS;
}

#define MEMSET(fn, vtype, elem, ptds)                                                        \
    DRV_EXPORT CUresult fn(CUdeviceptr dst, vtype v, size_t n);                              \
    DRV_EXPORT CUresult fn(CUdeviceptr dst, vtype v, size_t n)                               \
    {                                                                                        \
        DRV_CALL(fn, #fn, NULL);                                                             \
        DRV_RETURN(memset_elems(dst, 0, v, elem, n, 1, NULL, ptds, drv_call_.correlation_id)); \
    }
#define MEMSET_ASYNC(fn, vtype, elem, ptds)                                                  \
    DRV_EXPORT CUresult fn(CUdeviceptr dst, vtype v, size_t n, CUstream hs);                 \
    DRV_EXPORT CUresult fn(CUdeviceptr dst, vtype v, size_t n, CUstream hs)                  \
    {                                                                                        \
        DRV_CALL(fn, #fn, NULL);                                                             \
        DRV_RETURN(memset_elems(dst, 0, v, elem, n, 1, hs, ptds, drv_call_.correlation_id)); \
    }
#define MEMSET_2D(fn, vtype, elem, ptds)                                                     \
    DRV_EXPORT CUresult fn(CUdeviceptr dst, size_t pitch, vtype v, size_t w, size_t h);      \
    DRV_EXPORT CUresult fn(CUdeviceptr dst, size_t pitch, vtype v, size_t w, size_t h)       \
    {                                                                                        \
        DRV_CALL(fn, #fn, NULL);                                                             \
        DRV_RETURN(memset_elems(dst, pitch, v, elem, w, h, NULL, ptds, drv_call_.correlation_id)); \
    }
#define MEMSET_2D_ASYNC(fn, vtype, elem, ptds)                                               \
    DRV_EXPORT CUresult fn(CUdeviceptr dst, size_t pitch, vtype v, size_t w, size_t h, CUstream hs); \
    DRV_EXPORT CUresult fn(CUdeviceptr dst, size_t pitch, vtype v, size_t w, size_t h, CUstream hs)  \
    {                                                                                        \
        DRV_CALL(fn, #fn, NULL);                                                             \
        DRV_RETURN(memset_elems(dst, pitch, v, elem, w, h, hs, ptds, drv_call_.correlation_id)); \
    }
MEMSET(cuMemsetD8_v2, unsigned char, 1, 0)
MEMSET(cuMemsetD8_v2_ptds, unsigned char, 1, 1)
MEMSET(cuMemsetD16_v2, unsigned short, 2, 0)
MEMSET(cuMemsetD16_v2_ptds, unsigned short, 2, 1)
MEMSET(cuMemsetD32_v2, unsigned int, 4, 0)
MEMSET(cuMemsetD32_v2_ptds, unsigned int, 4, 1)
MEMSET_ASYNC(cuMemsetD8Async, unsigned char, 1, 0)
MEMSET_ASYNC(cuMemsetD8Async_ptsz, unsigned char, 1, 1)
MEMSET_ASYNC(cuMemsetD16Async, unsigned short, 2, 0)
MEMSET_ASYNC(cuMemsetD16Async_ptsz, unsigned short, 2, 1)
MEMSET_ASYNC(cuMemsetD32Async, unsigned int, 4, 0)
MEMSET_ASYNC(cuMemsetD32Async_ptsz, unsigned int, 4, 1)
MEMSET_2D(cuMemsetD2D8_v2, unsigned char, 1, 0)
MEMSET_2D(cuMemsetD2D8_v2_ptds, unsigned char, 1, 1)
MEMSET_2D(cuMemsetD2D16_v2, unsigned short, 2, 0)
MEMSET_2D(cuMemsetD2D16_v2_ptds, unsigned short, 2, 1)
MEMSET_2D(cuMemsetD2D32_v2, unsigned int, 4, 0)
MEMSET_2D(cuMemsetD2D32_v2_ptds, unsigned int, 4, 1)
MEMSET_2D_ASYNC(cuMemsetD2D8Async, unsigned char, 1, 0)
MEMSET_2D_ASYNC(cuMemsetD2D8Async_ptsz, unsigned char, 1, 1)
MEMSET_2D_ASYNC(cuMemsetD2D16Async, unsigned short, 2, 0)
MEMSET_2D_ASYNC(cuMemsetD2D16Async_ptsz, unsigned short, 2, 1)
MEMSET_2D_ASYNC(cuMemsetD2D32Async, unsigned int, 4, 0)
MEMSET_2D_ASYNC(cuMemsetD2D32Async_ptsz, unsigned int, 4, 1)

/* ---- pointer attributes ------------------------------------------------------ */

/* The memory type of the sim's allocations (device and managed memory on the
 * device, pinned memory on the host); a pointer the driver does not know is
 * CUDA_ERROR_INVALID_VALUE, as pageable memory is on the real one. Attributes
 * answered: MEMORY_TYPE, DEVICE_POINTER, HOST_POINTER, IS_MANAGED,
 * DEVICE_ORDINAL, RANGE_START_ADDR, RANGE_SIZE, MAPPED; the rest is
 * CUDA_ERROR_NOT_SUPPORTED. */
DRV_EXPORT CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attr, CUdeviceptr ptr)
{
    DRV_CALL(cuPointerGetAttribute, "cuPointerGetAttribute", NULL);
    void *base = NULL;
    size_t size = 0;
    enum cusim_mem_kind k = cusim_mem_find(DPTR(ptr), &base, &size);
    if (data == NULL || k == CUSIM_MEM_UNKNOWN)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    switch (attr) {
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *(unsigned *)data = k == CUSIM_MEM_PINNED ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
        break;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: *(CUdeviceptr *)data = ptr; break;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER: *(void **)data = k == CUSIM_MEM_DEVICE ? NULL : DPTR(ptr); break;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED: *(unsigned *)data = k == CUSIM_MEM_MANAGED; break;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *(int *)data = 0; break;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: *(CUdeviceptr *)data = (CUdeviceptr)(uintptr_t)base; break;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *(size_t *)data = size; break;
    case CU_POINTER_ATTRIBUTE_MAPPED: *(unsigned *)data = 1; break;
    default: DRV_RETURN(CUDA_ERROR_NOT_SUPPORTED);
    }
    DRV_RETURN(CUDA_SUCCESS);
}
