/*
 * hooks_memory.c - copies, memsets and allocations.
 *
 * A copy records its bytes, its direction (cudaMemcpyDefault resolved from
 * the pointers), its stream and whether it was an *Async call. The _ptds /
 * _ptsz variants are what a program built with --default-stream per-thread
 * calls; they record under their own API id.
 */
#include <stdbool.h>

#include "preload/hooks.h"

/* Host or device side of a pointer, for cudaMemcpyDefault. */
static bool on_device(const struct cudaPointerAttributes *a)
{
    return a->type == cudaMemoryTypeDevice || a->type == cudaMemoryTypeManaged;
}

/*
 * Direction of a cudaMemcpyDefault copy, asked from the real runtime. Done
 * before the call is timed, inside the guard so nothing records it. The
 * query must leave no trace the program could see: errno is kept, it is
 * skipped when an error is already pending (cudaGetLastError would lose it),
 * and an error the query itself raises is cleared again.
 */
static uint8_t default_dir(void *dst, const void *src)
{
    preload_cudaPointerGetAttributes_fn attrs = PRELOAD_REAL(cudaPointerGetAttributes);
    preload_cudaPeekAtLastError_fn peek = PRELOAD_REAL(cudaPeekAtLastError);
    preload_cudaGetLastError_fn get = PRELOAD_REAL(cudaGetLastError);
    if (attrs == NULL || peek == NULL || get == NULL)
        return CUPROF_DIR_UNKNOWN;
    int *errp = &errno, e = *errp;
    int g = cuprof_own_cuda_enter();   /* CUPTI sees these queries: mark them ours */
    uint8_t dir = CUPROF_DIR_UNKNOWN;
    if (peek() == cudaSuccess) {
        struct cudaPointerAttributes s = {0}, d = {0};
        if (attrs(&s, src) != cudaSuccess || attrs(&d, dst) != cudaSuccess)
            (void)get();
        else if (!on_device(&s))
            dir = on_device(&d) ? CUPROF_DIR_HTOD : CUPROF_DIR_HTOH;
        else if (!on_device(&d))
            dir = CUPROF_DIR_DTOH;
        else
            dir = s.device == d.device ? CUPROF_DIR_DTOD : CUPROF_DIR_PTOP;
    }
    cuprof_own_cuda_leave(g);
    *errp = e;
    return dir;
}

static uint8_t copy_dir(void *dst, const void *src, enum cudaMemcpyKind kind)
{
    switch (kind) {
    case cudaMemcpyHostToHost: return CUPROF_DIR_HTOH;
    case cudaMemcpyHostToDevice: return CUPROF_DIR_HTOD;
    case cudaMemcpyDeviceToHost: return CUPROF_DIR_DTOH;
    case cudaMemcpyDeviceToDevice: return CUPROF_DIR_DTOD;
    case cudaMemcpyDefault: return default_dir(dst, src);
    }
    return CUPROF_DIR_UNKNOWN;
}

static inline void fill_copy(cuprof_event *ev, size_t bytes, uint8_t dir, cudaStream_t stream,
                             uint8_t async)
{
    ev->a.copy.bytes = bytes;
    ev->a.copy.dir = dir;
    ev->a.copy.stream = (uint64_t)(uintptr_t)stream;
    ev->a.copy.async = async;
}

/* One body for the four 1-D copies: sync ones pass stream 0, async 0. */
static cudaError_t copy1d(unsigned fn, void *dst, const void *src, size_t count,
                          enum cudaMemcpyKind kind, cudaStream_t stream, int async)
{
    void *real = preload_real(fn);
    uint8_t dir = copy_dir(dst, src, kind);
    preload_call c = hook_begin(fn, CUPROF_EV_COPY);
    if (c.ev)
        fill_copy(c.ev, count, dir, stream, (uint8_t)async);
    cudaError_t r;
    if (real == NULL)
        r = PRELOAD_CUDART_MISSING;
    else if (async)
        r = ((preload_cudaMemcpyAsync_fn)real)(dst, src, count, kind, stream);
    else
        r = ((preload_cudaMemcpy_fn)real)(dst, src, count, kind);
    return (cudaError_t)hook_end(c, r);
}

PRELOAD_EXPORT cudaError_t cudaMemcpy PRELOAD_SIG_MEMCPY
{
    return copy1d(PRELOAD_FN_cudaMemcpy, dst, src, count, kind, NULL, 0);
}
PRELOAD_EXPORT cudaError_t cudaMemcpy_ptds PRELOAD_SIG_MEMCPY
{
    return copy1d(PRELOAD_FN_cudaMemcpy_ptds, dst, src, count, kind, NULL, 0);
}
PRELOAD_EXPORT cudaError_t cudaMemcpyAsync PRELOAD_SIG_MEMCPYA
{
    return copy1d(PRELOAD_FN_cudaMemcpyAsync, dst, src, count, kind, stream, 1);
}
PRELOAD_EXPORT cudaError_t cudaMemcpyAsync_ptsz PRELOAD_SIG_MEMCPYA
{
    return copy1d(PRELOAD_FN_cudaMemcpyAsync_ptsz, dst, src, count, kind, stream, 1);
}

/* The 2-D copies: bytes moved = width * height. */
static cudaError_t copy2d(unsigned fn, void *dst, size_t dpitch, const void *src, size_t spitch,
                          size_t width, size_t height, enum cudaMemcpyKind kind,
                          cudaStream_t stream, int async)
{
    void *real = preload_real(fn);
    uint8_t dir = copy_dir(dst, src, kind);
    preload_call c = hook_begin(fn, CUPROF_EV_COPY);
    if (c.ev)
        fill_copy(c.ev, (uint64_t)width * height, dir, stream, (uint8_t)async);
    cudaError_t r;
    if (real == NULL)
        r = PRELOAD_CUDART_MISSING;
    else if (async)
        r = ((preload_cudaMemcpy2DAsync_fn)real)(dst, dpitch, src, spitch, width, height, kind,
                                                 stream);
    else
        r = ((preload_cudaMemcpy2D_fn)real)(dst, dpitch, src, spitch, width, height, kind);
    return (cudaError_t)hook_end(c, r);
}

PRELOAD_EXPORT cudaError_t cudaMemcpy2D PRELOAD_SIG_MEMCPY2D
{
    return copy2d(PRELOAD_FN_cudaMemcpy2D, dst, dpitch, src, spitch, width, height, kind, NULL, 0);
}
PRELOAD_EXPORT cudaError_t cudaMemcpy2D_ptds PRELOAD_SIG_MEMCPY2D
{
    return copy2d(PRELOAD_FN_cudaMemcpy2D_ptds, dst, dpitch, src, spitch, width, height, kind, NULL,
                  0);
}
PRELOAD_EXPORT cudaError_t cudaMemcpy2DAsync PRELOAD_SIG_MEMCPY2DA
{
    return copy2d(PRELOAD_FN_cudaMemcpy2DAsync, dst, dpitch, src, spitch, width, height, kind,
                  stream, 1);
}
PRELOAD_EXPORT cudaError_t cudaMemcpy2DAsync_ptsz PRELOAD_SIG_MEMCPY2DA
{
    return copy2d(PRELOAD_FN_cudaMemcpy2DAsync_ptsz, dst, dpitch, src, spitch, width, height, kind,
                  stream, 1);
}

/* Memsets: 1-D (pitch == 0 marks it) and 2-D (bytes = width * height). */
static cudaError_t memset_any(unsigned fn, void *ptr, size_t pitch, int value, size_t width,
                              size_t height, cudaStream_t stream, int async, int two_d)
{
    void *real = preload_real(fn);
    preload_call c = hook_begin(fn, CUPROF_EV_MEMSET);
    if (c.ev)
        fill_copy(c.ev, (uint64_t)width * height, CUPROF_DIR_MEMSET, stream, (uint8_t)async);
    cudaError_t r;
    if (real == NULL)
        r = PRELOAD_CUDART_MISSING;
    else if (two_d && async)
        r = ((preload_cudaMemset2DAsync_fn)real)(ptr, pitch, value, width, height, stream);
    else if (two_d)
        r = ((preload_cudaMemset2D_fn)real)(ptr, pitch, value, width, height);
    else if (async)
        r = ((preload_cudaMemsetAsync_fn)real)(ptr, value, width, stream);
    else
        r = ((preload_cudaMemset_fn)real)(ptr, value, width);
    return (cudaError_t)hook_end(c, r);
}

PRELOAD_EXPORT cudaError_t cudaMemset PRELOAD_SIG_MEMSET
{
    return memset_any(PRELOAD_FN_cudaMemset, devPtr, 0, value, count, 1, NULL, 0, 0);
}
PRELOAD_EXPORT cudaError_t cudaMemset_ptds PRELOAD_SIG_MEMSET
{
    return memset_any(PRELOAD_FN_cudaMemset_ptds, devPtr, 0, value, count, 1, NULL, 0, 0);
}
PRELOAD_EXPORT cudaError_t cudaMemsetAsync PRELOAD_SIG_MEMSETA
{
    return memset_any(PRELOAD_FN_cudaMemsetAsync, devPtr, 0, value, count, 1, stream, 1, 0);
}
PRELOAD_EXPORT cudaError_t cudaMemsetAsync_ptsz PRELOAD_SIG_MEMSETA
{
    return memset_any(PRELOAD_FN_cudaMemsetAsync_ptsz, devPtr, 0, value, count, 1, stream, 1, 0);
}
PRELOAD_EXPORT cudaError_t cudaMemset2D PRELOAD_SIG_MEMSET2D
{
    return memset_any(PRELOAD_FN_cudaMemset2D, devPtr, pitch, value, width, height, NULL, 0, 1);
}
PRELOAD_EXPORT cudaError_t cudaMemset2D_ptds PRELOAD_SIG_MEMSET2D
{
    return memset_any(PRELOAD_FN_cudaMemset2D_ptds, devPtr, pitch, value, width, height, NULL, 0,
                      1);
}
PRELOAD_EXPORT cudaError_t cudaMemset2DAsync PRELOAD_SIG_MEMSET2DA
{
    return memset_any(PRELOAD_FN_cudaMemset2DAsync, devPtr, pitch, value, width, height, stream, 1,
                      1);
}
PRELOAD_EXPORT cudaError_t cudaMemset2DAsync_ptsz PRELOAD_SIG_MEMSET2DA
{
    return memset_any(PRELOAD_FN_cudaMemset2DAsync_ptsz, devPtr, pitch, value, width, height,
                      stream, 1, 1);
}

/* Allocations record the size asked for and, on success, the pointer; a
 * device allocation is also told to the collector, recorded or not, for
 * the memory held when a capture window opens (collector/memheld.c). */
static inline void alloc_done(preload_call c, cudaError_t r, void **out)
{
    if (c.ev && r == cudaSuccess && out != NULL)
        c.ev->a.mem.ptr = (uint64_t)(uintptr_t)*out;
}

static inline void device_alloc_done(preload_call c, unsigned fn, cudaError_t r, void **out, size_t bytes)
{
    alloc_done(c, r, out);
    if (r == cudaSuccess && out != NULL)
        preload_memheld(0, (uint64_t)(uintptr_t)*out, bytes, fn);
}

PRELOAD_EXPORT cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    preload_cudaMalloc_fn real = PRELOAD_REAL(cudaMalloc);
    preload_call c = HOOK_BEGIN(cudaMalloc);
    if (c.ev)
        c.ev->a.mem.bytes = size;
    cudaError_t r = real ? real(devPtr, size) : PRELOAD_CUDART_MISSING;
    device_alloc_done(c, PRELOAD_FN_cudaMalloc, r, devPtr, size);
    return (cudaError_t)hook_end(c, r);
}

PRELOAD_EXPORT cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    preload_cudaMallocHost_fn real = PRELOAD_REAL(cudaMallocHost);
    preload_call c = HOOK_BEGIN(cudaMallocHost);
    if (c.ev)
        c.ev->a.mem.bytes = size;
    cudaError_t r = real ? real(ptr, size) : PRELOAD_CUDART_MISSING;
    alloc_done(c, r, ptr);
    return (cudaError_t)hook_end(c, r);
}

PRELOAD_EXPORT cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    preload_cudaHostAlloc_fn real = PRELOAD_REAL(cudaHostAlloc);
    preload_call c = HOOK_BEGIN(cudaHostAlloc);
    if (c.ev)
        c.ev->a.mem.bytes = size;
    cudaError_t r = real ? real(pHost, size, flags) : PRELOAD_CUDART_MISSING;
    alloc_done(c, r, pHost);
    return (cudaError_t)hook_end(c, r);
}

PRELOAD_EXPORT cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    preload_cudaMallocManaged_fn real = PRELOAD_REAL(cudaMallocManaged);
    preload_call c = HOOK_BEGIN(cudaMallocManaged);
    if (c.ev)
        c.ev->a.mem.bytes = size;
    cudaError_t r = real ? real(devPtr, size, flags) : PRELOAD_CUDART_MISSING;
    device_alloc_done(c, PRELOAD_FN_cudaMallocManaged, r, devPtr, size);
    return (cudaError_t)hook_end(c, r);
}

/* Frees record the pointer; the size is the collector's to remember
 * (preload/ keeps no state). */
PRELOAD_EXPORT cudaError_t cudaFree(void *devPtr)
{
    preload_cudaFree_fn real = PRELOAD_REAL(cudaFree);
    preload_call c = HOOK_BEGIN(cudaFree);
    if (c.ev)
        c.ev->a.mem.ptr = (uint64_t)(uintptr_t)devPtr;
    cudaError_t r = real ? real(devPtr) : PRELOAD_CUDART_MISSING;
    if (r == cudaSuccess)
        preload_memheld(1, (uint64_t)(uintptr_t)devPtr, 0, PRELOAD_FN_cudaFree);
    return (cudaError_t)hook_end(c, r);
}

/* Stream-ordered allocations (cudaMallocAsync & co): the memory is the
 * program's from the call on, for the accounting (model/memory.h), as the
 * pool reserves it then. */
static cudaError_t malloc_async(unsigned fn, void **devPtr, size_t size, cudaStream_t stream)
{
    preload_cudaMallocAsync_fn real = PRELOAD_REAL_AS(cudaMallocAsync, fn);
    preload_call c = hook_begin(fn, CUPROF_EV_ALLOC);
    if (c.ev) {
        c.ev->a.mem.bytes = size;
        c.ev->a.mem.stream = (uint64_t)(uintptr_t)stream;
    }
    cudaError_t r = real ? real(devPtr, size, stream) : PRELOAD_CUDART_MISSING;
    device_alloc_done(c, fn, r, devPtr, size);
    return (cudaError_t)hook_end(c, r);
}

PRELOAD_EXPORT cudaError_t cudaMallocAsync PRELOAD_SIG_MALLOCA
{
    return malloc_async(PRELOAD_FN_cudaMallocAsync, devPtr, size, hStream);
}

PRELOAD_EXPORT cudaError_t cudaMallocAsync_ptsz PRELOAD_SIG_MALLOCA
{
    return malloc_async(PRELOAD_FN_cudaMallocAsync_ptsz, devPtr, size, hStream);
}

static cudaError_t malloc_pool(unsigned fn, void **ptr, size_t size, cudaMemPool_t pool, cudaStream_t stream)
{
    preload_cudaMallocFromPoolAsync_fn real = PRELOAD_REAL_AS(cudaMallocFromPoolAsync, fn);
    preload_call c = hook_begin(fn, CUPROF_EV_ALLOC);
    if (c.ev) {
        c.ev->a.mem.bytes = size;
        c.ev->a.mem.stream = (uint64_t)(uintptr_t)stream;
    }
    cudaError_t r = real ? real(ptr, size, pool, stream) : PRELOAD_CUDART_MISSING;
    device_alloc_done(c, fn, r, ptr, size);
    return (cudaError_t)hook_end(c, r);
}

PRELOAD_EXPORT cudaError_t cudaMallocFromPoolAsync PRELOAD_SIG_MALLOCPA
{
    return malloc_pool(PRELOAD_FN_cudaMallocFromPoolAsync, ptr, size, memPool, stream);
}

PRELOAD_EXPORT cudaError_t cudaMallocFromPoolAsync_ptsz PRELOAD_SIG_MALLOCPA
{
    return malloc_pool(PRELOAD_FN_cudaMallocFromPoolAsync_ptsz, ptr, size, memPool, stream);
}

static cudaError_t free_async(unsigned fn, void *devPtr, cudaStream_t stream)
{
    preload_cudaFreeAsync_fn real = PRELOAD_REAL_AS(cudaFreeAsync, fn);
    preload_call c = hook_begin(fn, CUPROF_EV_FREE);
    if (c.ev) {
        c.ev->a.mem.ptr = (uint64_t)(uintptr_t)devPtr;
        c.ev->a.mem.stream = (uint64_t)(uintptr_t)stream;
    }
    cudaError_t r = real ? real(devPtr, stream) : PRELOAD_CUDART_MISSING;
    if (r == cudaSuccess)
        preload_memheld(1, (uint64_t)(uintptr_t)devPtr, 0, fn);
    return (cudaError_t)hook_end(c, r);
}

PRELOAD_EXPORT cudaError_t cudaFreeAsync PRELOAD_SIG_FREEA
{
    return free_async(PRELOAD_FN_cudaFreeAsync, devPtr, hStream);
}

PRELOAD_EXPORT cudaError_t cudaFreeAsync_ptsz PRELOAD_SIG_FREEA
{
    return free_async(PRELOAD_FN_cudaFreeAsync_ptsz, devPtr, hStream);
}

/* A pitched allocation holds pitch * height bytes. */
PRELOAD_EXPORT cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
    preload_cudaMallocPitch_fn real = PRELOAD_REAL(cudaMallocPitch);
    preload_call c = HOOK_BEGIN(cudaMallocPitch);
    if (c.ev)
        c.ev->a.mem.bytes = width * height;
    cudaError_t r = real ? real(devPtr, pitch, width, height) : PRELOAD_CUDART_MISSING;
    if (c.ev && r == cudaSuccess && pitch != NULL)
        c.ev->a.mem.bytes = *pitch * height;
    device_alloc_done(c, PRELOAD_FN_cudaMallocPitch, r, devPtr, pitch ? *pitch * height : width * height);
    return (cudaError_t)hook_end(c, r);
}

PRELOAD_EXPORT cudaError_t cudaFreeHost(void *ptr)
{
    preload_cudaFreeHost_fn real = PRELOAD_REAL(cudaFreeHost);
    preload_call c = HOOK_BEGIN(cudaFreeHost);
    if (c.ev)
        c.ev->a.mem.ptr = (uint64_t)(uintptr_t)ptr;
    cudaError_t r = real ? real(ptr) : PRELOAD_CUDART_MISSING;
    return (cudaError_t)hook_end(c, r);
}
