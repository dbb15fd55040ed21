/*
 * kernels.c - the kernel-name table: host stub -> name id, kernel handle ->
 * host stub, id -> name.
 *
 * Lookups (on every launch) take no lock: two open-addressing hash tables of
 * pointer keys, each slot published by a release store of its key after its
 * value. Registration (once per kernel, from __cudaRegisterFunction while
 * modules load) takes the lock; a table that fills past half is replaced by
 * one twice the size, published atomically, and the old one is left in
 * place for readers that still hold it (never freed: at most the size of the
 * live table again). Names are interned: one copy per distinct name, ids
 * 1..count in registration order.
 */
#include "collector/internal.h"
#include "collector/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct kt_slot {
    _Atomic uintptr_t key;   /* pointer, 0 = empty; stored last (release) */
    _Atomic uint64_t val;    /* name id (stub table) or stub (handle table) */
} kt_slot;

typedef struct kt_table {
    size_t cap;              /* power of two */
    size_t used;             /* filled slots (writers, under kt_lock) */
    struct kt_table *retired; /* the table this one replaced: kept (reachable) for
                                 readers that may still probe it */
    kt_slot slot[];
} kt_table;

static pthread_mutex_t kt_lock = PTHREAD_MUTEX_INITIALIZER;   /* all writers */
static _Atomic(kt_table *) kt_by_stub;     /* host stub -> name id */
static _Atomic(kt_table *) kt_by_handle;   /* cudaKernel_t -> host stub */

/* Interned names (under kt_lock): kt_names[id - 1], and a string hash of ids
 * (kt_name_ix, 0 = empty) to find an existing name. */
static char **kt_names;
static uint32_t kt_nnames, kt_names_cap;
static uint32_t *kt_name_ix;
static size_t kt_name_ix_cap;

static size_t hash_ptr(uintptr_t p)
{
    uint64_t x = (uint64_t)p;   /* splitmix64 finalizer: stubs are aligned */
    x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27; x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return (size_t)x;
}

static size_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;   /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (size_t)h;
}

/* Lock-free lookup of key in *tabp: the value, or 0. */
static uint64_t kt_find(_Atomic(kt_table *) *tabp, uintptr_t key)
{
    kt_table *t = atomic_load_explicit(tabp, memory_order_acquire);
    if (!t || key == 0)
        return 0;
    size_t mask = t->cap - 1;
    for (size_t i = hash_ptr(key) & mask, n = 0; n < t->cap; i = (i + 1) & mask, n++) {
        uintptr_t k = atomic_load_explicit(&t->slot[i].key, memory_order_acquire);
        if (k == key)
            return atomic_load_explicit(&t->slot[i].val, memory_order_relaxed);
        if (k == 0)
            return 0;
    }
    return 0;
}

/* Puts key -> val into t (caller holds kt_lock and made sure there is room). */
static void kt_put_in(kt_table *t, uintptr_t key, uint64_t val)
{
    size_t mask = t->cap - 1;
    for (size_t i = hash_ptr(key) & mask;; i = (i + 1) & mask) {
        uintptr_t k = atomic_load_explicit(&t->slot[i].key, memory_order_relaxed);
        if (k == key) {
            atomic_store_explicit(&t->slot[i].val, val, memory_order_relaxed);
            return;
        }
        if (k == 0) {
            atomic_store_explicit(&t->slot[i].val, val, memory_order_relaxed);
            atomic_store_explicit(&t->slot[i].key, key, memory_order_release);
            t->used++;
            return;
        }
    }
}

/* Bumped by every change to the tables (kt_put), so that a thread's cache
 * of its last lookup (cuprof_kernel_lookup) is thrown away when a module
 * registers. */
static _Atomic uint64_t kt_gen;

/* Inserts or updates key -> val (caller holds kt_lock), growing the table.
 * -1 when out of memory. */
static int kt_put(_Atomic(kt_table *) *tabp, uintptr_t key, uint64_t val)
{
    kt_table *t = atomic_load_explicit(tabp, memory_order_relaxed);
    if (!t || (t->used + 1) * 2 > t->cap) {
        size_t cap = t ? t->cap * 2 : 1024;
        kt_table *n = calloc(1, sizeof *n + cap * sizeof(kt_slot));
        if (!n)
            return -1;
        n->cap = cap;
        n->retired = t;
        for (size_t i = 0; t && i < t->cap; i++) {
            uintptr_t k = atomic_load_explicit(&t->slot[i].key, memory_order_relaxed);
            if (k)
                kt_put_in(n, k, atomic_load_explicit(&t->slot[i].val, memory_order_relaxed));
        }
        atomic_store_explicit(tabp, n, memory_order_release);
        t = n;   /* the old table stays allocated (n->retired): a reader may be probing it */
    }
    kt_put_in(t, key, val);
    atomic_fetch_add_explicit(&kt_gen, 1, memory_order_release);
    return 0;
}

/* Id of name, interning a copy if new (caller holds kt_lock). 0 on OOM. */
static uint32_t intern(const char *name)
{
    if (kt_name_ix_cap == 0 || (size_t)(kt_nnames + 1) * 2 > kt_name_ix_cap) {
        size_t cap = kt_name_ix_cap ? kt_name_ix_cap * 2 : 1024;
        uint32_t *ix = calloc(cap, sizeof *ix);
        if (!ix)
            return 0;
        for (uint32_t id = 1; id <= kt_nnames; id++) {
            size_t i = hash_str(kt_names[id - 1]) & (cap - 1);
            while (ix[i])
                i = (i + 1) & (cap - 1);
            ix[i] = id;
        }
        free(kt_name_ix);
        kt_name_ix = ix;
        kt_name_ix_cap = cap;
    }
    size_t mask = kt_name_ix_cap - 1, i = hash_str(name) & mask;
    for (; kt_name_ix[i]; i = (i + 1) & mask)
        if (strcmp(kt_names[kt_name_ix[i] - 1], name) == 0)
            return kt_name_ix[i];
    if (kt_nnames == kt_names_cap) {
        uint32_t cap = kt_names_cap ? kt_names_cap * 2 : 256;
        char **names = realloc(kt_names, cap * sizeof *names);
        if (!names)
            return 0;
        kt_names = names;
        kt_names_cap = cap;
    }
    char *copy = strdup(name);
    if (!copy)
        return 0;
    kt_names[kt_nnames++] = copy;
    kt_name_ix[i] = kt_nnames;
    cuprof_shm_name_kernel(kt_nnames, copy);   /* where a SIGKILL leaves it (shm.c) */
    return kt_nnames;
}

void cuprof_kernel_register(const void *host_fn, const char *device_name)
{
    if (!host_fn || !device_name)
        return;
    int saved = errno;
    pthread_mutex_lock(&kt_lock);
    uint32_t id = intern(device_name);
    if (id == 0 || kt_put(&kt_by_stub, (uintptr_t)host_fn, id) < 0)
        cuprof_debug(CUPROF_DBG_COLLECTOR, "out of memory registering kernel %.200s", device_name);
    pthread_mutex_unlock(&kt_lock);
    errno = saved;
}

void cuprof_kernel_handle(const void *handle, const void *host_fn)
{
    if (!handle || !host_fn || handle == host_fn)
        return;
    int saved = errno;
    pthread_mutex_lock(&kt_lock);
    if (kt_put(&kt_by_handle, (uintptr_t)handle, (uintptr_t)host_fn) < 0)
        cuprof_debug(CUPROF_DBG_COLLECTOR, "out of memory registering a kernel handle");
    pthread_mutex_unlock(&kt_lock);
    errno = saved;
}

/* This thread's last lookup: a loop launching one kernel (most programs'
 * inner loop) finds its id with two compares instead of hashing. */
static __thread struct {
    uintptr_t key;
    uint64_t gen;
    uint32_t id;
} kt_last __attribute__((tls_model("initial-exec")));

uint32_t cuprof_kernel_lookup(const void *host_fn_or_handle)
{
    uintptr_t p = (uintptr_t)host_fn_or_handle;
    uint64_t gen = atomic_load_explicit(&kt_gen, memory_order_acquire);
    if (kt_last.key == p && kt_last.gen == gen && p)
        return kt_last.id;
    uint32_t id = (uint32_t)kt_find(&kt_by_stub, p);
    if (!id) {
        uintptr_t stub = (uintptr_t)kt_find(&kt_by_handle, p);
        id = stub ? (uint32_t)kt_find(&kt_by_stub, stub) : 0;
    }
    kt_last.key = p;
    kt_last.gen = gen;
    kt_last.id = id;
    return id;
}

uint32_t cuprof_kernel_count(void)
{
    pthread_mutex_lock(&kt_lock);
    uint32_t n = kt_nnames;
    pthread_mutex_unlock(&kt_lock);
    return n;
}

const char *cuprof_kernel_raw_name(uint32_t id)
{
    pthread_mutex_lock(&kt_lock);
    const char *s = (id >= 1 && id <= kt_nnames) ? kt_names[id - 1] : NULL;
    pthread_mutex_unlock(&kt_lock);
    return s;
}

void cuprof_kernels_fork_prepare(void)
{
    pthread_mutex_lock(&kt_lock);   /* the child gets a consistent table */
}

void cuprof_kernels_fork_done(int child)
{
    if (child)   /* only the forking thread exists there: start with a fresh lock */
        pthread_mutex_init(&kt_lock, NULL);
    else
        pthread_mutex_unlock(&kt_lock);
}
