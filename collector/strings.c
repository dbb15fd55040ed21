/*
 * strings.c - the string table of NVTX names and domains: one copy per
 * distinct string, ids 1..count in first-seen order (0 = no string).
 *
 * A range name is passed as a pointer whose bytes may change between calls
 * (a stack buffer, a formatted name), so strings are interned by content.
 * Each thread keeps a small direct-mapped cache of (hash, id): a repeated
 * name costs its hash and one strcmp against the interned copy, no lock;
 * a miss takes the table's lock. Interned copies are never freed or moved
 * (ids and pointers stay valid until exit).
 */
#include "collector/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t st_lock = PTHREAD_MUTEX_INITIALIZER;
static char **st_names;              /* [id - 1], under st_lock */
static _Atomic uint32_t st_count;    /* published after st_names[id - 1] */
static uint32_t st_cap;
static uint32_t *st_ix;              /* open addressing on the hash: ids, 0 = empty */
static size_t st_ix_cap;
/* The names array is replaced when it grows; readers outside the lock go
 * through this pointer, published after the copy (old arrays are kept). */
static _Atomic(char **) st_pub;

#define CACHE_SLOTS 64
/* Default TLS model: 1 KiB would eat the static TLS surplus a dlopen'ed
 * injection library needs (buffers.c). */
static _Thread_local struct {
    uint64_t hash;
    uint32_t id;
} st_cache[CACHE_SLOTS];

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;   /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h | 1;                          /* never 0: 0 marks an empty cache slot */
}

static const char *name_of(uint32_t id)
{
    char **names = atomic_load_explicit(&st_pub, memory_order_acquire);
    return names ? names[id - 1] : NULL;
}

/* Adds id to the hash index (under st_lock); grows it past half full. */
static int index_put(uint32_t id, uint64_t h)
{
    if ((st_count + 1) * 2 > st_ix_cap) {
        size_t cap = st_ix_cap ? st_ix_cap * 2 : 256;
        uint32_t *ix = calloc(cap, sizeof *ix);
        if (!ix)
            return -1;
        for (size_t i = 0; i < st_ix_cap; i++)
            if (st_ix[i]) {
                size_t j = hash_str(st_names[st_ix[i] - 1]) & (cap - 1);
                while (ix[j])
                    j = (j + 1) & (cap - 1);
                ix[j] = st_ix[i];
            }
        free(st_ix);
        st_ix = ix;
        st_ix_cap = cap;
    }
    size_t j = h & (st_ix_cap - 1);
    while (st_ix[j])
        j = (j + 1) & (st_ix_cap - 1);
    st_ix[j] = id;
    return 0;
}

static uint32_t intern_locked(const char *s, uint64_t h)
{
    if (st_ix_cap)
        for (size_t j = h & (st_ix_cap - 1); st_ix[j]; j = (j + 1) & (st_ix_cap - 1))
            if (strcmp(st_names[st_ix[j] - 1], s) == 0)
                return st_ix[j];
    uint32_t n = atomic_load_explicit(&st_count, memory_order_relaxed);
    if (n == UINT32_MAX - 1)
        return 0;
    if (n == st_cap) {
        uint32_t cap = st_cap ? st_cap * 2 : 64;
        char **names = malloc(cap * sizeof *names);
        if (!names)
            return 0;
        if (n)
            memcpy(names, st_names, n * sizeof *names);
        /* the old array stays reachable for readers that loaded it */
        st_names = names;
        st_cap = cap;
    }
    char *copy = strdup(s);
    if (!copy)
        return 0;
    st_names[n] = copy;
    if (index_put(n + 1, h) < 0) {
        free(copy);
        return 0;
    }
    atomic_store_explicit(&st_pub, st_names, memory_order_release);
    atomic_store_explicit(&st_count, n + 1, memory_order_release);
    cuprof_shm_name_string(n + 1, copy);   /* where a SIGKILL leaves it (shm.c) */
    return n + 1;
}

uint32_t cuprof_string_intern(const char *s)
{
    if (!s)
        return 0;
    uint64_t h = hash_str(s);
    unsigned slot = (unsigned)(h >> 7) % CACHE_SLOTS;
    uint32_t id = st_cache[slot].id;
    if (id && st_cache[slot].hash == h && strcmp(name_of(id), s) == 0)
        return id;
    int saved = errno;
    pthread_mutex_lock(&st_lock);
    id = intern_locked(s, h);
    pthread_mutex_unlock(&st_lock);
    errno = saved;
    if (id) {
        st_cache[slot].hash = h;
        st_cache[slot].id = id;
    }
    return id;
}

uint32_t cuprof_string_count(void)
{
    return atomic_load_explicit(&st_count, memory_order_acquire);
}

const char *cuprof_string_get(uint32_t id)
{
    return id >= 1 && id <= cuprof_string_count() ? name_of(id) : NULL;
}

void cuprof_strings_fork_prepare(void)
{
    pthread_mutex_lock(&st_lock);
}

void cuprof_strings_fork_done(int child)
{
    if (child)
        pthread_mutex_init(&st_lock, NULL);
    else
        pthread_mutex_unlock(&st_lock);
}
