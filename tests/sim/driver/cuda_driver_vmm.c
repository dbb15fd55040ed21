/*
 * cuda_driver_vmm.c - the simulated driver's virtual memory management and
 * stream-ordered allocator, as PyTorch's expandable segments and JAX/XLA use
 * them (the driver API reference, "Virtual Memory Management" and "Stream
 * Ordered Memory Allocator"):
 *
 *   cuMemGetAllocationGranularity  2 MiB, minimum and recommended (an H100's)
 *   cuMemAddressReserve / Free     a range of host address space, PROT_NONE,
 *                                  aligned to the granularity (or more)
 *   cuMemCreate / cuMemRelease     physical memory: a memfd of the size (a
 *                                  multiple of the granularity), counted as
 *                                  device memory used; freed when released and
 *                                  no longer mapped, as the driver does
 *   cuMemMap / cuMemUnmap          the memfd mapped shared at the address, so
 *                                  two mappings of one handle see the same bytes;
 *                                  the range is device memory for copies
 *   cuMemSetAccess                 accepted for mapped ranges (the sim's memory
 *                                  is readable once mapped)
 *   cuMemAllocAsync, cuMemAllocFromPoolAsync, cuMemFreeAsync (and _ptsz),
 *   cuDeviceGetDefaultMemPool, cuDeviceGetMemPool, cuMemPoolCreate/Destroy/TrimTo:
 *                                  device allocations with their MEMORY2 records
 *                                  (stream, async); the pools are handles only
 *                                  (no reserved/used accounting: the runtime's
 *                                  pools, cudart_pool.c, have it)
 *
 * Memory from cuMemCreate makes no MEMORY2 record.
 */
#include "driver_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define GRANULARITY (2u << 20)
#define HANDLE_MAGIC 0x564d4d48u   /* "VMMH" */
#define POOL_MAGIC 0x504f4f4cu     /* "POOL" */
#define MAX_RANGES 1024

/* Physical memory made by cuMemCreate. */
typedef struct vmm_handle {
    uint32_t magic;
    int fd;
    size_t size;
    int maps;        /* live mappings of it */
    int released;    /* cuMemRelease called: freed at its last unmap */
} vmm_handle;

/* A reserved range, or a mapping inside one. */
typedef struct vmm_range {
    uintptr_t base;
    size_t size;
    vmm_handle *h;   /* mappings: the memory mapped there; reservations: NULL */
} vmm_range;

static pthread_mutex_t vmm_mu = PTHREAD_MUTEX_INITIALIZER;
static vmm_range reserved[MAX_RANGES], mapped[MAX_RANGES];
static size_t nreserved, nmapped;

DRV_EXPORT CUresult cuMemGetAllocationGranularity(size_t *g, const CUmemAllocationProp *prop,
                                                  CUmemAllocationGranularity_flags option)
{
    DRV_CALL(cuMemGetAllocationGranularity, "cuMemGetAllocationGranularity", NULL);
    (void)option;
    if (g == NULL || prop == NULL || prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE || prop->location.id != 0)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    *g = GRANULARITY;
    DRV_RETURN(CUDA_SUCCESS);
}

/* The reservation holding [p, p + size), or NULL. Caller holds vmm_mu. */
static vmm_range *reservation_of(uintptr_t p, size_t size)
{
    for (size_t i = 0; i < nreserved; i++)
        if (p >= reserved[i].base && size <= reserved[i].size && p - reserved[i].base <= reserved[i].size - size)
            return &reserved[i];
    return NULL;
}

DRV_EXPORT CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t align, CUdeviceptr addr,
                                        unsigned long long flags)
{
    DRV_CALL(cuMemAddressReserve, "cuMemAddressReserve", NULL);
    (void)addr;   /* a hint: the sim takes what mmap gives */
    if (ptr == NULL || size == 0 || size % GRANULARITY || flags || (align & (align - 1)))
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (align < GRANULARITY)
        align = GRANULARITY;
    size_t span = size + align;
    char *m = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    uintptr_t base = ((uintptr_t)m + align - 1) & ~(uintptr_t)(align - 1);
    if (base > (uintptr_t)m)   /* keep only the aligned part */
        munmap(m, base - (uintptr_t)m);
    if ((uintptr_t)m + span > base + size)
        munmap((void *)(base + size), (uintptr_t)m + span - (base + size));
    pthread_mutex_lock(&vmm_mu);
    int full = nreserved == MAX_RANGES;
    if (!full)
        reserved[nreserved++] = (vmm_range){base, size, NULL};
    pthread_mutex_unlock(&vmm_mu);
    if (full) {
        munmap((void *)base, size);
        DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    }
    *ptr = (CUdeviceptr)base;
    DRV_RETURN(CUDA_SUCCESS);
}

DRV_EXPORT CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
    DRV_CALL(cuMemAddressFree, "cuMemAddressFree", NULL);
    CUresult r = CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&vmm_mu);
    for (size_t i = 0; i < nreserved; i++)
        if (reserved[i].base == (uintptr_t)ptr && reserved[i].size == size) {
            int busy = 0;   /* a range still mapped cannot be freed */
            for (size_t k = 0; k < nmapped; k++)
                busy |= mapped[k].base >= ptr && mapped[k].base < ptr + size;
            if (!busy) {
                munmap((void *)(uintptr_t)ptr, size);
                reserved[i] = reserved[--nreserved];
                r = CUDA_SUCCESS;
            }
            break;
        }
    pthread_mutex_unlock(&vmm_mu);
    DRV_RETURN(r);
}

static vmm_handle *handle_of(CUmemGenericAllocationHandle h)
{
    vmm_handle *v = (vmm_handle *)(uintptr_t)h;
    return v != NULL && v->magic == HANDLE_MAGIC ? v : NULL;
}

DRV_EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop,
                                unsigned long long flags)
{
    DRV_CALL(cuMemCreate, "cuMemCreate", NULL);
    if (handle == NULL || prop == NULL || size == 0 || size % GRANULARITY || flags ||
        prop->type != CU_MEM_ALLOCATION_TYPE_PINNED || prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
        prop->location.id != 0)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    vmm_handle *v = calloc(1, sizeof *v);
    if (v == NULL)
        DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    v->fd = memfd_create("cusim-vmm", MFD_CLOEXEC);
    if (v->fd < 0 || ftruncate(v->fd, (off_t)size) != 0 || cusim_mem_charge((int64_t)size) != 0) {
        if (v->fd >= 0)
            close(v->fd);
        free(v);
        DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    }
    v->magic = HANDLE_MAGIC;
    v->size = size;
    *handle = (CUmemGenericAllocationHandle)(uintptr_t)v;
    DRV_RETURN(CUDA_SUCCESS);
}

/* Frees v once it is released and mapped nowhere. Caller holds vmm_mu. */
static void handle_settle(vmm_handle *v)
{
    if (!v->released || v->maps > 0)
        return;
    close(v->fd);
    cusim_mem_charge(-(int64_t)v->size);
    v->magic = 0;
    free(v);
}

DRV_EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
    DRV_CALL(cuMemRelease, "cuMemRelease", NULL);
    pthread_mutex_lock(&vmm_mu);
    vmm_handle *v = handle_of(handle);
    CUresult r = v != NULL && !v->released ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    if (r == CUDA_SUCCESS) {
        v->released = 1;
        handle_settle(v);
    }
    pthread_mutex_unlock(&vmm_mu);
    DRV_RETURN(r);
}

DRV_EXPORT CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
                             unsigned long long flags)
{
    DRV_CALL(cuMemMap, "cuMemMap", NULL);
    CUresult r = CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&vmm_mu);
    vmm_handle *v = handle_of(handle);
    int overlaps = 0;
    for (size_t k = 0; k < nmapped; k++)
        overlaps |= mapped[k].base < ptr + size && ptr < mapped[k].base + mapped[k].size;
    if (v != NULL && !v->released && !flags && size && size % GRANULARITY == 0 && offset % GRANULARITY == 0 &&
        offset <= v->size && size <= v->size - offset && reservation_of(ptr, size) != NULL && !overlaps &&
        nmapped < MAX_RANGES) {
        void *m = mmap((void *)(uintptr_t)ptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, v->fd,
                       (off_t)offset);
        if (m == MAP_FAILED) {
            r = CUDA_ERROR_OUT_OF_MEMORY;
        } else {
            mapped[nmapped++] = (vmm_range){ptr, size, v};
            v->maps++;
            cusim_mem_register(m, size, CUSIM_MEM_DEVICE);
            r = CUDA_SUCCESS;
        }
    }
    pthread_mutex_unlock(&vmm_mu);
    DRV_RETURN(r);
}

/* Unmaps every mapping inside [ptr, ptr + size); the range must cover whole
 * mappings, as the driver requires. */
DRV_EXPORT CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
    DRV_CALL(cuMemUnmap, "cuMemUnmap", NULL);
    int found = 0, partial = 0;
    pthread_mutex_lock(&vmm_mu);
    for (size_t k = 0; k < nmapped; k++) {
        vmm_range *m = &mapped[k];
        if (m->base < ptr + size && ptr < m->base + m->size)
            partial |= m->base < ptr || m->base + m->size > ptr + size;
    }
    for (size_t k = 0; !partial && k < nmapped;) {
        vmm_range m = mapped[k];
        if (m.base < ptr || m.base + m.size > ptr + size) {
            k++;
            continue;
        }
        found = 1;
        cusim_mem_unregister((void *)m.base);
        /* back to reserved address space */
        mmap((void *)m.base, m.size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
        m.h->maps--;
        handle_settle(m.h);
        mapped[k] = mapped[--nmapped];
    }
    pthread_mutex_unlock(&vmm_mu);
    DRV_RETURN(found && !partial ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

DRV_EXPORT CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count)
{
    DRV_CALL(cuMemSetAccess, "cuMemSetAccess", NULL);
    size_t covered = 0;
    pthread_mutex_lock(&vmm_mu);
    for (size_t k = 0; k < nmapped; k++)
        if (mapped[k].base >= ptr && mapped[k].base + mapped[k].size <= ptr + size)
            covered += mapped[k].size;
    pthread_mutex_unlock(&vmm_mu);
    int ok = desc != NULL && count > 0 && covered == size;
    for (size_t i = 0; ok && i < count; i++)
        ok = desc[i].location.type == CU_MEM_LOCATION_TYPE_DEVICE && desc[i].location.id == 0;
    DRV_RETURN(ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

/* ---- the stream-ordered allocator ------------------------------------------ */

typedef struct drv_pool {
    uint32_t magic;
    int is_default;
} drv_pool;
static drv_pool default_pool = {POOL_MAGIC, 1};

static drv_pool *pool_of(CUmemoryPool p)
{
    drv_pool *d = (drv_pool *)p;
    return d != NULL && d->magic == POOL_MAGIC ? d : NULL;
}

/* An allocation from pool, ordered on stream hs, with its MEMORY2 record. */
static CUresult alloc_async(CUdeviceptr *dptr, size_t size, drv_pool *pool, CUstream hs, int ptds)
{
    cusim_stream *s = cusim_stream_get(hs, ptds);
    if (s == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    if (dptr == NULL || pool == NULL || size == 0)
        return CUDA_ERROR_INVALID_VALUE;
    void *p = cusim_mem_alloc(size, CUSIM_MEM_DEVICE);
    if (p == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *dptr = (CUdeviceptr)(uintptr_t)p;
    cusim_memory_activity a = {.mem_kind = CUSIM_MEM_DEVICE, .address = *dptr, .bytes = size,
                               .stream_id = cusim_stream_id(s), .is_async = 1, .pool = pool,
                               .pool_is_default = pool->is_default};
    cusim_report_memory(&a);
    return CUDA_SUCCESS;
}

static CUresult free_async(CUdeviceptr dptr, CUstream hs, int ptds)
{
    cusim_stream *s = cusim_stream_get(hs, ptds);
    if (s == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    void *base = NULL;
    size_t size = 0;
    if (cusim_mem_find((void *)(uintptr_t)dptr, &base, &size) != CUSIM_MEM_DEVICE || base != (void *)(uintptr_t)dptr)
        return CUDA_ERROR_INVALID_VALUE;
    cusim_memory_activity a = {.release = 1, .mem_kind = CUSIM_MEM_DEVICE, .address = dptr, .bytes = size,
                               .stream_id = cusim_stream_id(s), .is_async = 1, .pool = &default_pool,
                               .pool_is_default = 1};
    cusim_report_memory(&a);
    return cusim_mem_free(base, CUSIM_MEM_DEVICE) == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

#define ALLOC_ASYNC(fn, ptds)                                                                \
    DRV_EXPORT CUresult fn(CUdeviceptr *dptr, size_t size, CUstream hs);                     \
    DRV_EXPORT CUresult fn(CUdeviceptr *dptr, size_t size, CUstream hs)                      \
    {                                                                                        \
        DRV_CALL(fn, #fn, NULL);                                                             \
        DRV_RETURN(alloc_async(dptr, size, &default_pool, hs, ptds));                        \
    }
#define ALLOC_POOL_ASYNC(fn, ptds)                                                           \
    DRV_EXPORT CUresult fn(CUdeviceptr *dptr, size_t size, CUmemoryPool pool, CUstream hs);  \
    DRV_EXPORT CUresult fn(CUdeviceptr *dptr, size_t size, CUmemoryPool pool, CUstream hs)   \
    {                                                                                        \
        DRV_CALL(fn, #fn, NULL);                                                             \
        DRV_RETURN(alloc_async(dptr, size, pool_of(pool), hs, ptds));                        \
    }
#define FREE_ASYNC(fn, ptds)                                                                 \
    DRV_EXPORT CUresult fn(CUdeviceptr dptr, CUstream hs);                                   \
    DRV_EXPORT CUresult fn(CUdeviceptr dptr, CUstream hs)                                    \
    {                                                                                        \
        DRV_CALL(fn, #fn, NULL);                                                             \
        DRV_RETURN(free_async(dptr, hs, ptds));                                              \
    }
ALLOC_ASYNC(cuMemAllocAsync, 0)
ALLOC_ASYNC(cuMemAllocAsync_ptsz, 1)
ALLOC_POOL_ASYNC(cuMemAllocFromPoolAsync, 0)
ALLOC_POOL_ASYNC(cuMemAllocFromPoolAsync_ptsz, 1)
FREE_ASYNC(cuMemFreeAsync, 0)
FREE_ASYNC(cuMemFreeAsync_ptsz, 1)

/* The device's pool (the default one: the sim's driver has no current-pool
 * setting of its own). */
static CUresult device_pool(CUmemoryPool *pool, CUdevice dev)
{
    if (pool == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    *pool = (CUmemoryPool)(void *)&default_pool;
    return CUDA_SUCCESS;
}

DRV_EXPORT CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice dev)
{
    DRV_CALL(cuDeviceGetDefaultMemPool, "cuDeviceGetDefaultMemPool", NULL);
    DRV_RETURN(device_pool(pool, dev));
}

DRV_EXPORT CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev)
{
    DRV_CALL(cuDeviceGetMemPool, "cuDeviceGetMemPool", NULL);
    DRV_RETURN(device_pool(pool, dev));
}

DRV_EXPORT CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props)
{
    DRV_CALL(cuMemPoolCreate, "cuMemPoolCreate", NULL);
    if (pool == NULL || props == NULL || props->location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
        props->location.id != 0)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    drv_pool *p = calloc(1, sizeof *p);
    if (p == NULL)
        DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    p->magic = POOL_MAGIC;
    *pool = (CUmemoryPool)(void *)p;
    DRV_RETURN(CUDA_SUCCESS);
}

DRV_EXPORT CUresult cuMemPoolDestroy(CUmemoryPool pool)
{
    DRV_CALL(cuMemPoolDestroy, "cuMemPoolDestroy", NULL);
    drv_pool *p = pool_of(pool);
    if (p == NULL || p->is_default)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    p->magic = 0;
    free(p);
    DRV_RETURN(CUDA_SUCCESS);
}

DRV_EXPORT CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t keep)
{
    DRV_CALL(cuMemPoolTrimTo, "cuMemPoolTrimTo", NULL);
    (void)keep;
    DRV_RETURN(pool_of(pool) != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}
