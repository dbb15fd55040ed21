/*
 * cudart_mem.c - memory: allocation (device, pinned, managed, async), copies
 * (1D, 2D, symbols, peer; blocking and async; the _ptds/_ptsz per-thread
 * default-stream variants), memsets, pointer attributes.
 *
 * Device memory is host memory underneath (see cusim_mem_alloc), so every
 * copy moves real bytes and results round-trip.
 */
#include "cudart_internal.h"

#include <string.h>

/* ---- allocation ---------------------------------------------------------- */

static cudaError_t alloc(void **p, size_t size, enum cusim_mem_kind kind)
{
    if (p == NULL)
        return cudaErrorInvalidValue;
    *p = cusim_mem_alloc(size, kind);
    if (*p == NULL)
        return cudaErrorMemoryAllocation;
    cusim_memory_activity a = {.mem_kind = kind, .address = (uint64_t)(uintptr_t)*p, .bytes = size};
    cusim_report_memory(&a);
    return cudaSuccess;
}

/* The release record of a live allocation at p (before it is freed). */
static void report_release(void *p, const void *pool, uint32_t stream_id)
{
    void *base = NULL;
    size_t size = 0;
    enum cusim_mem_kind k = cusim_mem_find(p, &base, &size);
    if (k == CUSIM_MEM_UNKNOWN || base != p)
        return;
    cusim_memory_activity a = {.release = 1, .mem_kind = k, .address = (uint64_t)(uintptr_t)p, .bytes = size,
                               .stream_id = stream_id, .is_async = stream_id != 0, .pool = pool};
    cusim_report_memory(&a);
}

CUDART_EXPORT cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    API_ENTER(cudaMalloc, v3020, (&(cudaMalloc_v3020_params){devPtr, size}));
    API_RETURN(alloc(devPtr, size, CUSIM_MEM_DEVICE));
}

CUDART_EXPORT cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    API_ENTER(cudaMallocHost, v3020, (&(cudaMallocHost_v3020_params){ptr, size}));
    API_RETURN(alloc(ptr, size, CUSIM_MEM_PINNED));
}

CUDART_EXPORT cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    API_ENTER(cudaHostAlloc, v3020, (&(cudaHostAlloc_v3020_params){pHost, size, flags}));
    if (flags & ~0xfu) /* Portable | Mapped | WriteCombined | 0x8 (NUMA) */
        API_RETURN(cudaErrorInvalidValue);
    API_RETURN(alloc(pHost, size, CUSIM_MEM_PINNED));
}

CUDART_EXPORT cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    API_ENTER(cudaMallocManaged, v6000, (&(cudaMallocManaged_v6000_params){devPtr, size, flags}));
    if (flags != 0 && flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)
        API_RETURN(cudaErrorInvalidValue);
    if (size == 0) /* the real runtime refuses empty managed allocations */
        API_RETURN(cudaErrorInvalidValue);
    API_RETURN(alloc(devPtr, size, CUSIM_MEM_MANAGED));
}

CUDART_EXPORT cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width,
                                          size_t height)
{
    API_ENTER(cudaMallocPitch, v3020,
              (&(cudaMallocPitch_v3020_params){devPtr, pitch, width, height}));
    if (pitch == NULL)
        API_RETURN(cudaErrorInvalidValue);
    size_t p = (width + 511) / 512 * 512; /* texturePitchAlignment-friendly rows */
    *pitch = p;
    API_RETURN(alloc(devPtr, p * height, CUSIM_MEM_DEVICE));
}

CUDART_EXPORT cudaError_t cudaFree(void *devPtr)
{
    API_ENTER(cudaFree, v3020, (&(cudaFree_v3020_params){devPtr}));
    /* cudaFree synchronizes the device (cudaFree(0) is the classic way to
     * create the context). */
    cusim_device_drain();
    if (devPtr == NULL)
        API_RETURN(cudaSuccess);
    enum cusim_mem_kind k = cusim_mem_kind_of(devPtr);
    if (k != CUSIM_MEM_DEVICE && k != CUSIM_MEM_MANAGED)
        API_RETURN(cudaErrorInvalidValue);
    if (cusim_graph_mem_free(devPtr))   /* a graph allocation: unmapped, kept while a graph names it */
        API_RETURN(cudaSuccess);
    report_release(devPtr, NULL, 0);
    cudart_pool_forget(devPtr); /* if it came from a pool (cudaMallocAsync) */
    API_RETURN(cusim_mem_free(devPtr, k) == 0 ? cudaSuccess : cudaErrorInvalidValue);
}

CUDART_EXPORT cudaError_t cudaFreeHost(void *ptr)
{
    API_ENTER(cudaFreeHost, v3020, (&(cudaFreeHost_v3020_params){ptr}));
    cusim_device_drain();
    if (ptr == NULL)
        API_RETURN(cudaSuccess);
    if (cusim_mem_kind_of(ptr) == CUSIM_MEM_PINNED)
        report_release(ptr, NULL, 0);
    API_RETURN(cusim_mem_free(ptr, CUSIM_MEM_PINNED) == 0 ? cudaSuccess : cudaErrorInvalidValue);
}

/* On a capturing stream, cudaMallocAsync and cudaFreeAsync become an
 * allocation and a free node of the capture's graph (the programming guide's
 * "Graph Memory Nodes": stream capture), so the memory outlives the capture
 * for the graph's replays. */
static cudaError_t malloc_async(void **devPtr, size_t size, cudaStream_t stream, int ptds)
{
    cusim_stream *s = cudart_stream(stream, ptds);
    if (s == NULL)
        return cudaErrorInvalidResourceHandle;
    cusim_graph *g = cusim_stream_capture_graph(s);
    if (g != NULL) {
        struct cudaMemPoolProps props = {.location = {cudaMemLocationTypeDevice, 0}};
        cudaGraphNode_t node;
        if (devPtr == NULL)
            return cudaErrorInvalidValue;
        return cudart_graph_alloc_node(g, NULL, 0, &props, size, devPtr, &node);
    }
    return cudart_pool_alloc(devPtr, size, NULL, cusim_stream_id(s)); /* the device's current pool */
}

static cudaError_t free_async(void *devPtr, cudaStream_t stream, int ptds)
{
    cusim_stream *s = cudart_stream(stream, ptds);
    if (s == NULL)
        return cudaErrorInvalidResourceHandle;
    cusim_graph *g = cusim_stream_capture_graph(s);
    cudaGraphNode_t node;
    if (g != NULL)   /* only graph memory can be freed in a capture */
        return devPtr ? cudart_graph_free_node(g, devPtr, &node) : cudaErrorInvalidValue;
    /* No kernel ever reads the memory, so it can go at once. */
    if (devPtr == NULL)
        return cudaSuccess;
    if (cusim_graph_mem_free(devPtr))   /* a graph allocation, freed outside its graph */
        return cudaSuccess;
    /* out of the pool's accounting before the address can be reused */
    cudart_pool_release(devPtr, cusim_stream_id(s));
    return cusim_mem_free(devPtr, CUSIM_MEM_DEVICE) == 0 ? cudaSuccess : cudaErrorInvalidValue;
}

CUDART_EXPORT cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream)
{
    API_ENTER(cudaMallocAsync, v11020, (&(cudaMallocAsync_v11020_params){devPtr, size, hStream}));
    API_RETURN(malloc_async(devPtr, size, hStream, 0));
}

CUDART_EXPORT cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t hStream)
{
    API_ENTER(cudaMallocAsync_ptsz, v11020,
              (&(cudaMallocAsync_ptsz_v11020_params){devPtr, size, hStream}));
    API_RETURN(malloc_async(devPtr, size, hStream, 1));
}

CUDART_EXPORT cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream)
{
    API_ENTER(cudaFreeAsync, v11020, (&(cudaFreeAsync_v11020_params){devPtr, hStream}));
    API_RETURN(free_async(devPtr, hStream, 0));
}

CUDART_EXPORT cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t hStream)
{
    API_ENTER(cudaFreeAsync_ptsz, v11020, (&(cudaFreeAsync_ptsz_v11020_params){devPtr, hStream}));
    API_RETURN(free_async(devPtr, hStream, 1));
}

CUDART_EXPORT cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    /* Accepted; the range is not reclassified as pinned (copies from it are
     * timed as pageable). */
    API_ENTER(cudaHostRegister, v4000, (&(cudaHostRegister_v4000_params){ptr, size, flags}));
    API_RETURN(ptr != NULL && size > 0 ? cudaSuccess : cudaErrorInvalidValue);
}

CUDART_EXPORT cudaError_t cudaHostUnregister(void *ptr)
{
    API_ENTER(cudaHostUnregister, v4000, (&(cudaHostUnregister_v4000_params){ptr}));
    API_RETURN(ptr != NULL ? cudaSuccess : cudaErrorInvalidValue);
}

CUDART_EXPORT cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost,
                                                   unsigned int flags)
{
    API_ENTER(cudaHostGetDevicePointer, v3020,
              (&(cudaHostGetDevicePointer_v3020_params){pDevice, pHost, flags}));
    if (pDevice == NULL || flags != 0 || cusim_mem_kind_of(pHost) != CUSIM_MEM_PINNED)
        API_RETURN(cudaErrorInvalidValue);
    *pDevice = pHost; /* unified addressing: same address */
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost)
{
    API_ENTER(cudaHostGetFlags, v3020, (&(cudaHostGetFlags_v3020_params){pFlags, pHost}));
    if (pFlags == NULL || cusim_mem_kind_of(pHost) != CUSIM_MEM_PINNED)
        API_RETURN(cudaErrorInvalidValue);
    *pFlags = cudaHostAllocMapped;
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaMemGetInfo(size_t *free, size_t *total)
{
    API_ENTER(cudaMemGetInfo, v3020, (&(cudaMemGetInfo_v3020_params){free, total}));
    uint64_t used = cusim_mem_device_used();
    if (free != NULL)
        *free = (size_t)(CUSIM_DEVICE_MEM_BYTES - used);
    if (total != NULL)
        *total = (size_t)CUSIM_DEVICE_MEM_BYTES;
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes,
                                                   const void *ptr)
{
    API_ENTER(cudaPointerGetAttributes, v4000,
              (&(cudaPointerGetAttributes_v4000_params){attributes, ptr}));
    if (attributes == NULL)
        API_RETURN(cudaErrorInvalidValue);
    memset(attributes, 0, sizeof(*attributes));
    switch (cusim_mem_kind_of(ptr)) {
    case CUSIM_MEM_DEVICE:
        attributes->type = cudaMemoryTypeDevice;
        attributes->devicePointer = (void *)ptr;
        break;
    case CUSIM_MEM_PINNED:
        attributes->type = cudaMemoryTypeHost;
        attributes->devicePointer = (void *)ptr;
        attributes->hostPointer = (void *)ptr;
        break;
    case CUSIM_MEM_MANAGED:
        attributes->type = cudaMemoryTypeManaged;
        attributes->devicePointer = (void *)ptr;
        attributes->hostPointer = (void *)ptr;
        break;
    default:
        attributes->type = cudaMemoryTypeUnregistered;
        attributes->device = -2; /* what the real runtime reports for host memory */
        break;
    }
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count,
                                               struct cudaMemLocation location,
                                               unsigned int flags, cudaStream_t stream)
{
    API_ENTER(cudaMemPrefetchAsync, v12020,
              (&(cudaMemPrefetchAsync_v12020_params){devPtr, count, location, flags, stream}));
    API_RETURN(cusim_mem_kind_of(devPtr) == CUSIM_MEM_MANAGED ? cudaSuccess
                                                              : cudaErrorInvalidValue);
}

CUDART_EXPORT cudaError_t cudaMemAdvise(const void *devPtr, size_t count,
                                        enum cudaMemoryAdvise advice,
                                        struct cudaMemLocation location)
{
    API_ENTER(cudaMemAdvise, v12020,
              (&(cudaMemAdvise_v12020_params){devPtr, count, advice, location}));
    API_RETURN(cusim_mem_kind_of(devPtr) == CUSIM_MEM_MANAGED ? cudaSuccess
                                                              : cudaErrorInvalidValue);
}

/* ---- copies --------------------------------------------------------------- */

/* All copies end here. blocking: cudaMemcpy semantics (the host waits). */
static cudaError_t copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                          size_t height, enum cudaMemcpyKind kind, cudaStream_t stream, int ptds,
                          int blocking)
{
    if ((unsigned)kind > cudaMemcpyDefault)
        return cudaErrorInvalidMemcpyDirection;
    if (height > 1 && (dpitch < width || spitch < width))
        return cudaErrorInvalidPitchValue;
    if (width == 0 || height == 0)
        return cudaSuccess;
    if (dst == NULL || src == NULL)
        return cudaErrorInvalidValue;
    cusim_stream *s = cudart_stream(stream, ptds);
    if (s == NULL)
        return cudaErrorInvalidResourceHandle;
    cusim_memcpy2d(s, dst, dpitch, src, spitch, width, height, (int)kind, blocking,
                   cusim_current_correlation());
    return cudaSuccess;
}

static cudaError_t copy1d(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                          cudaStream_t stream, int ptds, int blocking)
{
    return copy2d(dst, count, src, count, count, 1, kind, stream, ptds, blocking);
}

CUDART_EXPORT cudaError_t cudaMemcpy(void *dst, const void *src, size_t count,
                                     enum cudaMemcpyKind kind)
{
    API_ENTER(cudaMemcpy, v3020, (&(cudaMemcpy_v3020_params){dst, src, count, kind}));
    API_RETURN(copy1d(dst, src, count, kind, NULL, 0, 1));
}

CUDART_EXPORT cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count,
                                          enum cudaMemcpyKind kind)
{
    API_ENTER(cudaMemcpy_ptds, v7000, (&(cudaMemcpy_ptds_v7000_params){dst, src, count, kind}));
    API_RETURN(copy1d(dst, src, count, kind, NULL, 1, 1));
}

CUDART_EXPORT cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
                                          enum cudaMemcpyKind kind, cudaStream_t stream)
{
    API_ENTER(cudaMemcpyAsync, v3020,
              (&(cudaMemcpyAsync_v3020_params){dst, src, count, kind, stream}));
    API_RETURN(copy1d(dst, src, count, kind, stream, 0, 0));
}

CUDART_EXPORT cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count,
                                               enum cudaMemcpyKind kind, cudaStream_t stream)
{
    API_ENTER(cudaMemcpyAsync_ptsz, v7000,
              (&(cudaMemcpyAsync_ptsz_v7000_params){dst, src, count, kind, stream}));
    API_RETURN(copy1d(dst, src, count, kind, stream, 1, 0));
}

CUDART_EXPORT cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                                       size_t width, size_t height, enum cudaMemcpyKind kind)
{
    API_ENTER(cudaMemcpy2D, v3020,
              (&(cudaMemcpy2D_v3020_params){dst, dpitch, src, spitch, width, height, kind}));
    API_RETURN(copy2d(dst, dpitch, src, spitch, width, height, kind, NULL, 0, 1));
}

CUDART_EXPORT cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src,
                                            size_t spitch, size_t width, size_t height,
                                            enum cudaMemcpyKind kind)
{
    API_ENTER(cudaMemcpy2D_ptds, v7000,
              (&(cudaMemcpy2D_ptds_v7000_params){dst, dpitch, src, spitch, width, height, kind}));
    API_RETURN(copy2d(dst, dpitch, src, spitch, width, height, kind, NULL, 1, 1));
}

CUDART_EXPORT cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src,
                                            size_t spitch, size_t width, size_t height,
                                            enum cudaMemcpyKind kind, cudaStream_t stream)
{
    API_ENTER(cudaMemcpy2DAsync, v3020,
              (&(cudaMemcpy2DAsync_v3020_params){dst, dpitch, src, spitch, width, height, kind,
                                                 stream}));
    API_RETURN(copy2d(dst, dpitch, src, spitch, width, height, kind, stream, 0, 0));
}

CUDART_EXPORT cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src,
                                                 size_t spitch, size_t width, size_t height,
                                                 enum cudaMemcpyKind kind, cudaStream_t stream)
{
    API_ENTER(cudaMemcpy2DAsync_ptsz, v7000,
              (&(cudaMemcpy2DAsync_ptsz_v7000_params){dst, dpitch, src, spitch, width, height,
                                                      kind, stream}));
    API_RETURN(copy2d(dst, dpitch, src, spitch, width, height, kind, stream, 1, 0));
}

CUDART_EXPORT cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice,
                                         size_t count)
{
    API_ENTER(cudaMemcpyPeer, v4000,
              (&(cudaMemcpyPeer_v4000_params){dst, dstDevice, src, srcDevice, count}));
    if (dstDevice != 0 || srcDevice != 0)
        API_RETURN(cudaErrorInvalidDevice);
    API_RETURN(copy1d(dst, src, count, cudaMemcpyDeviceToDevice, NULL, 0, 1));
}

CUDART_EXPORT cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src,
                                              int srcDevice, size_t count, cudaStream_t stream)
{
    API_ENTER(cudaMemcpyPeerAsync, v4000,
              (&(cudaMemcpyPeerAsync_v4000_params){dst, dstDevice, src, srcDevice, count,
                                                   stream}));
    if (dstDevice != 0 || srcDevice != 0)
        API_RETURN(cudaErrorInvalidDevice);
    API_RETURN(copy1d(dst, src, count, cudaMemcpyDeviceToDevice, stream, 0, 0));
}

/* __device__ / __constant__ variables: their host shadow is the storage (no
 * device code runs to read another copy). Timed as host<->device copies. */
static cudaError_t to_symbol(const void *symbol, const void *src, size_t count, size_t offset,
                             enum cudaMemcpyKind kind, cudaStream_t stream, int ptds, int blocking)
{
    size_t size;
    if (symbol == NULL || !cudart_var_size(symbol, &size))
        return cudaErrorInvalidSymbol;
    if (offset > size || count > size - offset)
        return cudaErrorInvalidValue;
    if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice &&
        kind != cudaMemcpyDefault)
        return cudaErrorInvalidMemcpyDirection;
    return copy1d((char *)symbol + offset, src, count,
                  kind == cudaMemcpyDefault ? cudaMemcpyHostToDevice : kind, stream, ptds,
                  blocking);
}

static cudaError_t from_symbol(void *dst, const void *symbol, size_t count, size_t offset,
                               enum cudaMemcpyKind kind, cudaStream_t stream, int ptds,
                               int blocking)
{
    size_t size;
    if (symbol == NULL || !cudart_var_size(symbol, &size))
        return cudaErrorInvalidSymbol;
    if (offset > size || count > size - offset)
        return cudaErrorInvalidValue;
    if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice &&
        kind != cudaMemcpyDefault)
        return cudaErrorInvalidMemcpyDirection;
    return copy1d(dst, (const char *)symbol + offset, count,
                  kind == cudaMemcpyDefault ? cudaMemcpyDeviceToHost : kind, stream, ptds,
                  blocking);
}

CUDART_EXPORT cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count,
                                             size_t offset, enum cudaMemcpyKind kind)
{
    API_ENTER(cudaMemcpyToSymbol, v3020,
              (&(cudaMemcpyToSymbol_v3020_params){symbol, src, count, offset, kind}));
    API_RETURN(to_symbol(symbol, src, count, offset, kind, NULL, 0, 1));
}

CUDART_EXPORT cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src,
                                                  size_t count, size_t offset,
                                                  enum cudaMemcpyKind kind)
{
    API_ENTER(cudaMemcpyToSymbol_ptds, v7000,
              (&(cudaMemcpyToSymbol_ptds_v7000_params){symbol, src, count, offset, kind}));
    API_RETURN(to_symbol(symbol, src, count, offset, kind, NULL, 1, 1));
}

CUDART_EXPORT cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count,
                                               size_t offset, enum cudaMemcpyKind kind)
{
    API_ENTER(cudaMemcpyFromSymbol, v3020,
              (&(cudaMemcpyFromSymbol_v3020_params){dst, symbol, count, offset, kind}));
    API_RETURN(from_symbol(dst, symbol, count, offset, kind, NULL, 0, 1));
}

CUDART_EXPORT cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t count,
                                                    size_t offset, enum cudaMemcpyKind kind)
{
    API_ENTER(cudaMemcpyFromSymbol_ptds, v7000,
              (&(cudaMemcpyFromSymbol_ptds_v7000_params){dst, symbol, count, offset, kind}));
    API_RETURN(from_symbol(dst, symbol, count, offset, kind, NULL, 1, 1));
}

CUDART_EXPORT cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src,
                                                  size_t count, size_t offset,
                                                  enum cudaMemcpyKind kind, cudaStream_t stream)
{
    API_ENTER(cudaMemcpyToSymbolAsync, v3020,
              (&(cudaMemcpyToSymbolAsync_v3020_params){symbol, src, count, offset, kind,
                                                       stream}));
    API_RETURN(to_symbol(symbol, src, count, offset, kind, stream, 0, 0));
}

CUDART_EXPORT cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src,
                                                       size_t count, size_t offset,
                                                       enum cudaMemcpyKind kind,
                                                       cudaStream_t stream)
{
    API_ENTER(cudaMemcpyToSymbolAsync_ptsz, v7000,
              (&(cudaMemcpyToSymbolAsync_ptsz_v7000_params){symbol, src, count, offset, kind,
                                                            stream}));
    API_RETURN(to_symbol(symbol, src, count, offset, kind, stream, 1, 0));
}

CUDART_EXPORT cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count,
                                                    size_t offset, enum cudaMemcpyKind kind,
                                                    cudaStream_t stream)
{
    API_ENTER(cudaMemcpyFromSymbolAsync, v3020,
              (&(cudaMemcpyFromSymbolAsync_v3020_params){dst, symbol, count, offset, kind,
                                                         stream}));
    API_RETURN(from_symbol(dst, symbol, count, offset, kind, stream, 0, 0));
}

CUDART_EXPORT cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol,
                                                         size_t count, size_t offset,
                                                         enum cudaMemcpyKind kind,
                                                         cudaStream_t stream)
{
    API_ENTER(cudaMemcpyFromSymbolAsync_ptsz, v7000,
              (&(cudaMemcpyFromSymbolAsync_ptsz_v7000_params){dst, symbol, count, offset, kind,
                                                              stream}));
    API_RETURN(from_symbol(dst, symbol, count, offset, kind, stream, 1, 0));
}

CUDART_EXPORT cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol)
{
    API_ENTER(cudaGetSymbolAddress, v3020,
              (&(cudaGetSymbolAddress_v3020_params){devPtr, symbol}));
    size_t size;
    if (devPtr == NULL)
        API_RETURN(cudaErrorInvalidValue);
    if (!cudart_var_size(symbol, &size))
        API_RETURN(cudaErrorInvalidSymbol);
    *devPtr = (void *)symbol;
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol)
{
    API_ENTER(cudaGetSymbolSize, v3020, (&(cudaGetSymbolSize_v3020_params){size, symbol}));
    if (size == NULL)
        API_RETURN(cudaErrorInvalidValue);
    API_RETURN(cudart_var_size(symbol, size) ? cudaSuccess : cudaErrorInvalidSymbol);
}

/* ---- memsets -------------------------------------------------------------- */

static cudaError_t set2d(void *dst, size_t pitch, int value, size_t width, size_t height,
                         cudaStream_t stream, int ptds, int blocking)
{
    if (width == 0 || height == 0)
        return cudaSuccess;
    if (height > 1 && pitch < width)
        return cudaErrorInvalidPitchValue;
    enum cusim_mem_kind k = cusim_mem_kind_of(dst);
    if (k == CUSIM_MEM_UNKNOWN)
        return cudaErrorInvalidValue; /* not device-accessible memory */
    cusim_stream *s = cudart_stream(stream, ptds);
    if (s == NULL)
        return cudaErrorInvalidResourceHandle;
    /* CUDA: cudaMemset "is asynchronous with respect to the host except if
     * devPtr refers to pinned host memory". */
    blocking = blocking && k == CUSIM_MEM_PINNED;
    cusim_memset2d(s, dst, pitch, value, width, height, blocking, cusim_current_correlation());
    return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
    API_ENTER(cudaMemset, v3020, (&(cudaMemset_v3020_params){devPtr, value, count}));
    API_RETURN(set2d(devPtr, count, value, count, 1, NULL, 0, 1));
}

CUDART_EXPORT cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count)
{
    API_ENTER(cudaMemset_ptds, v7000, (&(cudaMemset_ptds_v7000_params){devPtr, value, count}));
    API_RETURN(set2d(devPtr, count, value, count, 1, NULL, 1, 1));
}

CUDART_EXPORT cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count,
                                          cudaStream_t stream)
{
    API_ENTER(cudaMemsetAsync, v3020,
              (&(cudaMemsetAsync_v3020_params){devPtr, value, count, stream}));
    API_RETURN(set2d(devPtr, count, value, count, 1, stream, 0, 0));
}

CUDART_EXPORT cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count,
                                               cudaStream_t stream)
{
    API_ENTER(cudaMemsetAsync_ptsz, v7000,
              (&(cudaMemsetAsync_ptsz_v7000_params){devPtr, value, count, stream}));
    API_RETURN(set2d(devPtr, count, value, count, 1, stream, 1, 0));
}

CUDART_EXPORT cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width,
                                       size_t height)
{
    API_ENTER(cudaMemset2D, v3020,
              (&(cudaMemset2D_v3020_params){devPtr, pitch, value, width, height}));
    API_RETURN(set2d(devPtr, pitch, value, width, height, NULL, 0, 1));
}

CUDART_EXPORT cudaError_t cudaMemset2D_ptds(void *devPtr, size_t pitch, int value, size_t width,
                                            size_t height)
{
    API_ENTER(cudaMemset2D_ptds, v7000,
              (&(cudaMemset2D_ptds_v7000_params){devPtr, pitch, value, width, height}));
    API_RETURN(set2d(devPtr, pitch, value, width, height, NULL, 1, 1));
}

CUDART_EXPORT cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width,
                                            size_t height, cudaStream_t stream)
{
    API_ENTER(cudaMemset2DAsync, v3020,
              (&(cudaMemset2DAsync_v3020_params){devPtr, pitch, value, width, height, stream}));
    API_RETURN(set2d(devPtr, pitch, value, width, height, stream, 0, 0));
}

CUDART_EXPORT cudaError_t cudaMemset2DAsync_ptsz(void *devPtr, size_t pitch, int value,
                                                 size_t width, size_t height,
                                                 cudaStream_t stream)
{
    API_ENTER(cudaMemset2DAsync_ptsz, v7000,
              (&(cudaMemset2DAsync_ptsz_v7000_params){devPtr, pitch, value, width, height,
                                                      stream}));
    API_RETURN(set2d(devPtr, pitch, value, width, height, stream, 1, 0));
}
