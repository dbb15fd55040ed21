/*
 * cusim_lib.c - what the sim's libraries share: never-freed copies of keys
 * (cusim_intern: the kernel names and descriptors they hand to cusim_launch,
 * which the tool may read long after the call), and the largest problem
 * they compute on the CPU (cusim_compute_max).
 */
#include "cusim.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct intern_entry {
    struct intern_entry *next; /* chain */
    uint64_t hash;             /* FNV-1a of the key bytes */
    size_t len;                /* key bytes */
    /* followed by the key bytes */
} intern_entry;

#define INTERN_BUCKETS 1024
static intern_entry *intern_table[INTERN_BUCKETS];
static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t fnv1a(const void *p, size_t n)
{
    const unsigned char *s = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 1099511628211ull;
    return h;
}

const void *cusim_intern(const void *key, size_t n)
{
    uint64_t h = fnv1a(key, n);
    intern_entry *e;
    pthread_mutex_lock(&intern_lock);
    for (e = intern_table[h % INTERN_BUCKETS]; e != NULL; e = e->next)
        if (e->hash == h && e->len == n && memcmp(e + 1, key, n) == 0)
            break;
    if (e == NULL && (e = malloc(sizeof *e + n)) != NULL) {
        e->hash = h;
        e->len = n;
        memcpy(e + 1, key, n);
        e->next = intern_table[h % INTERN_BUCKETS];
        intern_table[h % INTERN_BUCKETS] = e;
    }
    pthread_mutex_unlock(&intern_lock);
    return e != NULL ? (const void *)(e + 1) : NULL;
}

const char *cusim_intern_name(const char *name)
{
    return cusim_intern(name, strlen(name) + 1);
}

/* CUSIM_COMPUTE_MAX, parsed once. */
static uint64_t compute_max = CUSIM_COMPUTE_MAX_DEFAULT;
static pthread_once_t compute_max_once = PTHREAD_ONCE_INIT;

static void compute_max_read(void)
{
    const char *s = getenv("CUSIM_COMPUTE_MAX");
    char *end;
    unsigned long long v;
    if (s == NULL || *s == '\0')
        return;
    errno = 0;
    v = strtoull(s, &end, 0);
    if (errno == 0 && *end == '\0')
        compute_max = v;
}

uint64_t cusim_compute_max(void)
{
    pthread_once(&compute_max_once, compute_max_read);
    return compute_max;
}
