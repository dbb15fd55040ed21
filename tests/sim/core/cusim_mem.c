/*
 * cusim_mem.c - simulated device, pinned and managed memory.
 *
 * Every allocation is ordinary host memory (so copies and the CPU GEMMs of
 * the cuBLAS sim work on real bytes), kept in an array sorted by address so
 * any pointer, interior ones included, can be classified in O(log n) under a
 * read lock.
 */
#include "cusim_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define MEM_ALIGN 256 /* cudaMalloc guarantees 256-byte alignment */
/* From this size on an allocation is its own anonymous mapping: zero pages
 * the kernel gives lazily, so a large allocation the program never touches
 * costs no host memory (below it, malloc'd and zeroed). */
#define MEM_MMAP_MIN (64u << 10)

typedef struct mem_range {
    uintptr_t base;          /* first byte */
    size_t size;             /* bytes asked for (0 allowed) */
    enum cusim_mem_kind kind;
    uint8_t mapped;          /* its own mapping of `mapped_len` bytes (munmap), else malloc'd */
    uint8_t external;        /* registered (cusim_mem_register): the memory is the caller's */
    size_t mapped_len;
} mem_range;

static pthread_rwlock_t mem_lock = PTHREAD_RWLOCK_INITIALIZER;
static mem_range *ranges;     /* sorted by base */
static size_t nranges, cap;   /* used / allocated entries */
static uint64_t device_used;  /* device + managed bytes (under mem_lock) */

/* Index of the last range with base <= p, or -1. Caller holds mem_lock. */
static long find_le(uintptr_t p)
{
    long lo = 0, hi = (long)nranges - 1, best = -1;
    while (lo <= hi) {
        long mid = lo + (hi - lo) / 2;
        if (ranges[mid].base <= p) {
            best = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return best;
}

static int insert_range(uintptr_t base, size_t size, enum cusim_mem_kind kind, int mapped, size_t mapped_len,
                        int external)
{
    if (nranges == cap) {
        size_t ncap = cap ? cap * 2 : 64;
        mem_range *n = realloc(ranges, ncap * sizeof(*n));
        if (n == NULL)
            return -1;
        ranges = n;
        cap = ncap;
    }
    size_t at = (size_t)(find_le(base) + 1);
    memmove(&ranges[at + 1], &ranges[at], (nranges - at) * sizeof(*ranges));
    ranges[at] = (mem_range){base, size, kind, (uint8_t)mapped, (uint8_t)external, mapped_len};
    nranges++;
    if (!external && (kind == CUSIM_MEM_DEVICE || kind == CUSIM_MEM_MANAGED))
        device_used += size;
    return 0;
}

void *cusim_mem_alloc(size_t size, enum cusim_mem_kind kind)
{
    if (kind == CUSIM_MEM_UNKNOWN)
        return NULL;
    if (kind != CUSIM_MEM_PINNED && size > CUSIM_DEVICE_MEM_BYTES)
        return NULL;
    /* Size 0 still takes one byte, so the pointer is unique and classifiable. */
    size_t real = size ? size : 1;
    real = (real + MEM_ALIGN - 1) / MEM_ALIGN * MEM_ALIGN;
    if (real < size)
        return NULL; /* overflow */
    /* Zeroed, as fresh memory on a GPU reads (issue 41): what a program reads
     * before writing must not depend on what the host heap held before, which
     * a profiler's own allocations change. */
    void *p = NULL;
    int mapped = real >= MEM_MMAP_MIN;
    if (mapped) {
        p = mmap(NULL, real, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
    } else {
        if (posix_memalign(&p, MEM_ALIGN, real) != 0)
            return NULL;
        memset(p, 0, real);
    }
    pthread_rwlock_wrlock(&mem_lock);
    int rc = 0;
    if ((kind == CUSIM_MEM_DEVICE || kind == CUSIM_MEM_MANAGED) &&
        device_used + size > CUSIM_DEVICE_MEM_BYTES)
        rc = -1; /* out of (simulated) device memory */
    else
        rc = insert_range((uintptr_t)p, size, kind, mapped, real, 0);
    pthread_rwlock_unlock(&mem_lock);
    if (rc != 0) {
        if (mapped)
            munmap(p, real);
        else
            free(p);
        return NULL;
    }
    return p;
}

int cusim_mem_register(void *base, size_t size, enum cusim_mem_kind kind)
{
    if (base == NULL || kind == CUSIM_MEM_UNKNOWN)
        return -1;
    pthread_rwlock_wrlock(&mem_lock);
    long i = find_le((uintptr_t)base);
    int rc = i >= 0 && ranges[i].base == (uintptr_t)base ? -1 : insert_range((uintptr_t)base, size, kind, 0, 0, 1);
    pthread_rwlock_unlock(&mem_lock);
    return rc;
}

int cusim_mem_unregister(void *base)
{
    cusim_defer_drain(); /* deferred work may still write there */
    pthread_rwlock_wrlock(&mem_lock);
    long i = find_le((uintptr_t)base);
    int ok = i >= 0 && ranges[i].base == (uintptr_t)base && ranges[i].external;
    if (ok) {
        memmove(&ranges[i], &ranges[i + 1], (nranges - (size_t)i - 1) * sizeof(*ranges));
        nranges--;
    }
    pthread_rwlock_unlock(&mem_lock);
    return ok ? 0 : -1;
}

int cusim_mem_charge(int64_t delta)
{
    pthread_rwlock_wrlock(&mem_lock);
    int rc = 0;
    if (delta > 0 && device_used + (uint64_t)delta > CUSIM_DEVICE_MEM_BYTES)
        rc = -1;
    else
        device_used += (uint64_t)delta;
    pthread_rwlock_unlock(&mem_lock);
    return rc;
}

int cusim_mem_free(void *p, enum cusim_mem_kind kind)
{
    if (p == NULL)
        return -1;
    cusim_defer_drain(); /* deferred work may still write to p */
    pthread_rwlock_wrlock(&mem_lock);
    long i = find_le((uintptr_t)p);
    int ok = i >= 0 && ranges[i].base == (uintptr_t)p && ranges[i].kind == kind && !ranges[i].external;
    mem_range r = ok ? ranges[i] : (mem_range){0};
    if (ok) {
        if (kind == CUSIM_MEM_DEVICE || kind == CUSIM_MEM_MANAGED)
            device_used -= ranges[i].size;
        memmove(&ranges[i], &ranges[i + 1], (nranges - (size_t)i - 1) * sizeof(*ranges));
        nranges--;
    }
    pthread_rwlock_unlock(&mem_lock);
    if (!ok)
        return -1;
    if (r.mapped)
        munmap(p, r.mapped_len);
    else
        free(p);
    return 0;
}

enum cusim_mem_kind cusim_mem_find(const void *p, void **base, size_t *size)
{
    if (p == NULL)
        return CUSIM_MEM_UNKNOWN;
    uintptr_t a = (uintptr_t)p;
    enum cusim_mem_kind kind = CUSIM_MEM_UNKNOWN;
    pthread_rwlock_rdlock(&mem_lock);
    long i = find_le(a);
    if (i >= 0) {
        size_t span = ranges[i].size ? ranges[i].size : 1;
        if (a - ranges[i].base < span) {
            kind = ranges[i].kind;
            if (base != NULL)
                *base = (void *)ranges[i].base;
            if (size != NULL)
                *size = ranges[i].size;
        }
    }
    pthread_rwlock_unlock(&mem_lock);
    return kind;
}

enum cusim_mem_kind cusim_mem_kind_of(const void *p)
{
    return cusim_mem_find(p, NULL, NULL);
}

uint64_t cusim_mem_device_used(void)
{
    pthread_rwlock_rdlock(&mem_lock);
    uint64_t n = device_used;
    pthread_rwlock_unlock(&mem_lock);
    return n;
}
