/*
 * cudart_pool.c - stream-ordered memory pools: the device's default pool,
 * pools made with cudaMemPoolCreate, the device's current pool (what
 * cudaMallocAsync draws from), cudaMallocFromPoolAsync, and the pool
 * attributes programs read to account for memory (used / reserved, current
 * and high-water, the release threshold).
 *
 * The bookkeeping follows the CUDA programming guide's "Stream Ordered Memory
 * Allocator" chapter: "used" is what live allocations hold; "reserved" is what
 * the pool holds from the device, which grows in 2 MiB chunks with use and,
 * when allocations are freed, keeps up to the release threshold (default 0:
 * everything goes back at the next synchronization; the sim gives it back at
 * the free itself) until cudaMemPoolTrimTo. The *High attributes are
 * high-water marks that a program resets by setting them to 0. Reuse policies
 * and access descriptors are stored and read back; they change nothing here
 * (one device, and no kernel reads memory).
 */
#include "cudart_internal.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#define POOL_MAGIC 0x9001c0deu
#define POOL_CHUNK (2u << 20) /* reserved memory grows in 2 MiB steps */

struct CUmemPoolHandle_st {
    uint32_t magic;             /* POOL_MAGIC while alive */
    int reuse[3];               /* cudaMemPoolReuse* (attributes 1..3) */
    uint64_t threshold;         /* cudaMemPoolAttrReleaseThreshold */
    uint64_t used, used_high;   /* bytes in live allocations */
    uint64_t reserved, reserved_high;
    enum cudaMemAccessFlags access; /* device 0's access, as set */
};

static struct CUmemPoolHandle_st default_pool = {POOL_MAGIC, {1, 1, 1}, 0, 0, 0, 0, 0,
                                                  cudaMemAccessFlagsProtReadWrite};
static cudaMemPool_t current_pool = &default_pool;
static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;

/* Which pool each live stream-ordered allocation came from (chained hash). */
typedef struct pool_alloc {
    struct pool_alloc *next;
    void *ptr;
    uint64_t size;
    cudaMemPool_t pool;
} pool_alloc;
#define ALLOC_BUCKETS 1024
static pool_alloc *allocs[ALLOC_BUCKETS];

static size_t bucket(const void *p)
{
    return (size_t)(((uintptr_t)p >> 8) * 0x9e3779b97f4a7c15ull >> 54) % ALLOC_BUCKETS;
}

static int pool_ok(cudaMemPool_t p)
{
    return p != NULL && p->magic == POOL_MAGIC;
}

static uint64_t round_chunk(uint64_t b)
{
    return (b + POOL_CHUNK - 1) / POOL_CHUNK * POOL_CHUNK;
}

/* What the pool keeps after use went down: at least what is used, at most
 * what it had, and no more of the rest than `keep`. Caller holds pool_mu. */
static void shrink(cudaMemPool_t p, uint64_t keep)
{
    uint64_t floor = round_chunk(p->used);
    if (keep >= p->reserved) /* keeps everything (UINT64_MAX: never release) */
        return;
    keep = round_chunk(keep); /* keep < reserved: no overflow */
    if (keep < floor)
        keep = floor;
    if (keep < p->reserved)
        p->reserved = keep;
}

/* A MEMORY2 record of a stream-ordered allocation or release from pool. */
static void report(int release, void *ptr, uint64_t size, cudaMemPool_t pool, uint32_t stream_id)
{
    cusim_memory_activity a = {
        .release = release, .mem_kind = CUSIM_MEM_DEVICE, .address = (uint64_t)(uintptr_t)ptr,
        .bytes = size, .stream_id = stream_id, .is_async = 1, .pool = pool,
        .pool_is_default = pool == &default_pool, .pool_threshold = pool->threshold,
        .pool_reserved = pool->reserved, .pool_used = pool->used,
    };
    cusim_report_memory(&a);
}

/* A MEMORY_POOL record: op 0 created, 1 destroyed, 2 trimmed. */
static void report_pool(int op, cudaMemPool_t pool, uint64_t min_keep)
{
    cusim_pool_activity a = {.op = op, .pool = pool, .reserved = pool->reserved, .threshold = pool->threshold,
                             .used = pool->used, .min_keep = min_keep};
    cusim_report_pool(&a);
}

cudaError_t cudart_pool_alloc(void **ptr, size_t size, cudaMemPool_t pool, uint32_t stream_id)
{
    pool_alloc *a;
    if (ptr == NULL)
        return cudaErrorInvalidValue;
    if (pool == NULL)
        pool = current_pool;
    if (!pool_ok(pool))
        return cudaErrorInvalidValue;
    if ((a = malloc(sizeof *a)) == NULL)
        return cudaErrorMemoryAllocation;
    if ((*ptr = cusim_mem_alloc(size, CUSIM_MEM_DEVICE)) == NULL) {
        free(a);
        return cudaErrorMemoryAllocation;
    }
    a->ptr = *ptr;
    a->size = size;
    a->pool = pool;
    pthread_mutex_lock(&pool_mu);
    a->next = allocs[bucket(*ptr)];
    allocs[bucket(*ptr)] = a;
    pool->used += size;
    if (pool->used > pool->used_high)
        pool->used_high = pool->used;
    if (round_chunk(pool->used) > pool->reserved)
        pool->reserved = round_chunk(pool->used);
    if (pool->reserved > pool->reserved_high)
        pool->reserved_high = pool->reserved;
    pthread_mutex_unlock(&pool_mu);
    report(0, *ptr, size, pool, stream_id);
    return cudaSuccess;
}

void cudart_pool_release(void *ptr, uint32_t stream_id)
{
    cudaMemPool_t pool = NULL;
    uint64_t size = 0;
    pthread_mutex_lock(&pool_mu);
    for (pool_alloc *a = allocs[bucket(ptr)]; a != NULL; a = a->next)
        if (a->ptr == ptr) {
            pool = a->pool;
            size = a->size;
            break;
        }
    pthread_mutex_unlock(&pool_mu);
    if (pool != NULL)
        report(1, ptr, size, pool, stream_id);
    cudart_pool_forget(ptr);
}

void cudart_pool_forget(void *ptr)
{
    pool_alloc **pp, *a = NULL;
    pthread_mutex_lock(&pool_mu);
    for (pp = &allocs[bucket(ptr)]; *pp != NULL; pp = &(*pp)->next)
        if ((*pp)->ptr == ptr) {
            a = *pp;
            *pp = a->next;
            break;
        }
    if (a != NULL) {
        a->pool->used -= a->size;
        shrink(a->pool, a->pool->threshold);
    }
    pthread_mutex_unlock(&pool_mu);
    free(a);
}

/* ---- the device's pools --------------------------------------------------- */

CUDART_EXPORT cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device)
{
    API_ENTER(cudaDeviceGetDefaultMemPool, v11020,
              (&(cudaDeviceGetDefaultMemPool_v11020_params){memPool, device}));
    if (memPool == NULL)
        API_RETURN(cudaErrorInvalidValue);
    if (device != 0)
        API_RETURN(cudaErrorInvalidDevice);
    *memPool = &default_pool;
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device)
{
    API_ENTER(cudaDeviceGetMemPool, v11020,
              (&(cudaDeviceGetMemPool_v11020_params){memPool, device}));
    if (memPool == NULL)
        API_RETURN(cudaErrorInvalidValue);
    if (device != 0)
        API_RETURN(cudaErrorInvalidDevice);
    pthread_mutex_lock(&pool_mu);
    *memPool = current_pool;
    pthread_mutex_unlock(&pool_mu);
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool)
{
    API_ENTER(cudaDeviceSetMemPool, v11020,
              (&(cudaDeviceSetMemPool_v11020_params){device, memPool}));
    if (device != 0)
        API_RETURN(cudaErrorInvalidDevice);
    if (!pool_ok(memPool))
        API_RETURN(cudaErrorInvalidValue);
    pthread_mutex_lock(&pool_mu);
    current_pool = memPool;
    pthread_mutex_unlock(&pool_mu);
    API_RETURN(cudaSuccess);
}

/* CUDA 13's location-based forms: device 0's pool for pinned allocations. */
static int device_location(const struct cudaMemLocation *loc, enum cudaMemAllocationType type)
{
    return loc != NULL && loc->type == cudaMemLocationTypeDevice && loc->id == 0 &&
           type == cudaMemAllocationTypePinned;
}

CUDART_EXPORT cudaError_t cudaMemGetDefaultMemPool(cudaMemPool_t *memPool,
                                                   struct cudaMemLocation *location,
                                                   enum cudaMemAllocationType type)
{
    API_ENTER(cudaMemGetDefaultMemPool, v13000,
              (&(cudaMemGetDefaultMemPool_v13000_params){memPool, location, type}));
    if (memPool == NULL || !device_location(location, type))
        API_RETURN(cudaErrorInvalidValue);
    *memPool = &default_pool;
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaMemGetMemPool(cudaMemPool_t *memPool, struct cudaMemLocation *location,
                                            enum cudaMemAllocationType type)
{
    API_ENTER(cudaMemGetMemPool, v13000,
              (&(cudaMemGetMemPool_v13000_params){memPool, location, type}));
    if (memPool == NULL || !device_location(location, type))
        API_RETURN(cudaErrorInvalidValue);
    pthread_mutex_lock(&pool_mu);
    *memPool = current_pool;
    pthread_mutex_unlock(&pool_mu);
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaMemSetMemPool(struct cudaMemLocation *location,
                                            enum cudaMemAllocationType type, cudaMemPool_t memPool)
{
    API_ENTER(cudaMemSetMemPool, v13000,
              (&(cudaMemSetMemPool_v13000_params){location, type, memPool}));
    if (!device_location(location, type) || !pool_ok(memPool))
        API_RETURN(cudaErrorInvalidValue);
    pthread_mutex_lock(&pool_mu);
    current_pool = memPool;
    pthread_mutex_unlock(&pool_mu);
    API_RETURN(cudaSuccess);
}

/* ---- pools ---------------------------------------------------------------- */

CUDART_EXPORT cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool,
                                            const struct cudaMemPoolProps *poolProps)
{
    cudaMemPool_t p;
    API_ENTER(cudaMemPoolCreate, v11020, (&(cudaMemPoolCreate_v11020_params){memPool, poolProps}));
    if (memPool == NULL || poolProps == NULL ||
        poolProps->allocType != cudaMemAllocationTypePinned ||
        poolProps->location.type != cudaMemLocationTypeDevice)
        API_RETURN(cudaErrorInvalidValue);
    if (poolProps->location.id != 0)
        API_RETURN(cudaErrorInvalidDevice);
    if ((p = calloc(1, sizeof *p)) == NULL)
        API_RETURN(cudaErrorMemoryAllocation);
    *p = default_pool;
    p->used = p->used_high = p->reserved = p->reserved_high = p->threshold = 0;
    *memPool = p;
    report_pool(0, p, 0);
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool)
{
    API_ENTER(cudaMemPoolDestroy, v11020, (&(cudaMemPoolDestroy_v11020_params){memPool}));
    if (!pool_ok(memPool) || memPool == &default_pool)
        API_RETURN(cudaErrorInvalidValue);
    report_pool(1, memPool, 0);
    pthread_mutex_lock(&pool_mu);
    if (current_pool == memPool) /* the device falls back to its default pool */
        current_pool = &default_pool;
    /* live allocations keep the pool's memory until freed, as in CUDA: the
     * handle stays readable by them and is not freed */
    memPool->magic = memPool->used == 0 ? 0 : POOL_MAGIC ^ 1u;
    pthread_mutex_unlock(&pool_mu);
    if (memPool->magic == 0)
        free(memPool);
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep)
{
    API_ENTER(cudaMemPoolTrimTo, v11020,
              (&(cudaMemPoolTrimTo_v11020_params){memPool, minBytesToKeep}));
    if (!pool_ok(memPool))
        API_RETURN(cudaErrorInvalidValue);
    pthread_mutex_lock(&pool_mu);
    shrink(memPool, minBytesToKeep);
    pthread_mutex_unlock(&pool_mu);
    report_pool(2, memPool, minBytesToKeep);
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
                                                  void *value)
{
    cudaError_t err = cudaSuccess;
    API_ENTER(cudaMemPoolSetAttribute, v11020,
              (&(cudaMemPoolSetAttribute_v11020_params){memPool, attr, value}));
    if (!pool_ok(memPool) || value == NULL)
        API_RETURN(cudaErrorInvalidValue);
    pthread_mutex_lock(&pool_mu);
    switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
        memPool->reuse[attr - 1] = *(int *)value != 0;
        break;
    case cudaMemPoolAttrReleaseThreshold:
        memPool->threshold = *(uint64_t *)value;
        break;
    case cudaMemPoolAttrReservedMemHigh: /* only a reset to 0 is allowed */
    case cudaMemPoolAttrUsedMemHigh:
        if (*(uint64_t *)value != 0)
            err = cudaErrorInvalidValue;
        else if (attr == cudaMemPoolAttrUsedMemHigh)
            memPool->used_high = memPool->used;
        else
            memPool->reserved_high = memPool->reserved;
        break;
    default: /* the current amounts are read-only */
        err = cudaErrorInvalidValue;
        break;
    }
    pthread_mutex_unlock(&pool_mu);
    API_RETURN(err);
}

CUDART_EXPORT cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
                                                  void *value)
{
    cudaError_t err = cudaSuccess;
    API_ENTER(cudaMemPoolGetAttribute, v11020,
              (&(cudaMemPoolGetAttribute_v11020_params){memPool, attr, value}));
    if (!pool_ok(memPool) || value == NULL)
        API_RETURN(cudaErrorInvalidValue);
    pthread_mutex_lock(&pool_mu);
    switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
        *(int *)value = memPool->reuse[attr - 1];
        break;
    case cudaMemPoolAttrReleaseThreshold:
        *(uint64_t *)value = memPool->threshold;
        break;
    case cudaMemPoolAttrReservedMemCurrent:
        *(uint64_t *)value = memPool->reserved;
        break;
    case cudaMemPoolAttrReservedMemHigh:
        *(uint64_t *)value = memPool->reserved_high;
        break;
    case cudaMemPoolAttrUsedMemCurrent:
        *(uint64_t *)value = memPool->used;
        break;
    case cudaMemPoolAttrUsedMemHigh:
        *(uint64_t *)value = memPool->used_high;
        break;
    default:
        err = cudaErrorInvalidValue;
        break;
    }
    pthread_mutex_unlock(&pool_mu);
    API_RETURN(err);
}

CUDART_EXPORT cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool,
                                               const struct cudaMemAccessDesc *descList,
                                               size_t count)
{
    API_ENTER(cudaMemPoolSetAccess, v11020,
              (&(cudaMemPoolSetAccess_v11020_params){memPool, descList, count}));
    if (!pool_ok(memPool) || (count > 0 && descList == NULL))
        API_RETURN(cudaErrorInvalidValue);
    for (size_t i = 0; i < count; i++)
        if (descList[i].location.type != cudaMemLocationTypeDevice || descList[i].location.id != 0)
            API_RETURN(cudaErrorInvalidDevice);
    pthread_mutex_lock(&pool_mu);
    if (count > 0)
        memPool->access = descList[count - 1].flags;
    pthread_mutex_unlock(&pool_mu);
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaMemPoolGetAccess(enum cudaMemAccessFlags *flags,
                                               cudaMemPool_t memPool,
                                               struct cudaMemLocation *location)
{
    API_ENTER(cudaMemPoolGetAccess, v11020,
              (&(cudaMemPoolGetAccess_v11020_params){flags, memPool, location}));
    if (flags == NULL || !pool_ok(memPool) || location == NULL ||
        location->type != cudaMemLocationTypeDevice)
        API_RETURN(cudaErrorInvalidValue);
    if (location->id != 0)
        API_RETURN(cudaErrorInvalidDevice);
    *flags = memPool->access;
    API_RETURN(cudaSuccess);
}

static cudaError_t from_pool(void **ptr, size_t size, cudaMemPool_t pool, cudaStream_t stream,
                             int ptds)
{
    cusim_stream *s = cudart_stream(stream, ptds);
    if (s == NULL)
        return cudaErrorInvalidResourceHandle;
    if (!pool_ok(pool))
        return cudaErrorInvalidValue;
    cusim_graph *g = cusim_stream_capture_graph(s);
    if (g != NULL) {   /* captured: an allocation node (cudart_mem.c's malloc_async) */
        struct cudaMemPoolProps props = {.location = {cudaMemLocationTypeDevice, 0}};
        cudaGraphNode_t node;
        if (ptr == NULL)
            return cudaErrorInvalidValue;
        return cudart_graph_alloc_node(g, NULL, 0, &props, size, ptr, &node);
    }
    return cudart_pool_alloc(ptr, size, pool, cusim_stream_id(s));
}

CUDART_EXPORT cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool,
                                                  cudaStream_t stream)
{
    API_ENTER(cudaMallocFromPoolAsync, v11020,
              (&(cudaMallocFromPoolAsync_v11020_params){ptr, size, memPool, stream}));
    API_RETURN(from_pool(ptr, size, memPool, stream, 0));
}

CUDART_EXPORT cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size,
                                                       cudaMemPool_t memPool, cudaStream_t stream)
{
    API_ENTER(cudaMallocFromPoolAsync_ptsz, v11020,
              (&(cudaMallocFromPoolAsync_ptsz_v11020_params){ptr, size, memPool, stream}));
    API_RETURN(from_pool(ptr, size, memPool, stream, 1));
}
