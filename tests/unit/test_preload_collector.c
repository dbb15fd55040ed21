/*
 * test_preload_collector.c - a fake collector for the hook tests: the
 * collector.h interface, recording into one array and dumping it at exit
 * (format in test_preload.h). Test-only; simple locks are fine here.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/collector.h"
#include "tests/unit/test_preload.h"

#define FAKE_MAX_EVENTS 65536
#define FAKE_MAX_KERNELS 1024

static cuprof_event events[FAKE_MAX_EVENTS];
static atomic_uint n_events;
static const cuprof_api_desc *api_table;
static size_t api_n;
static atomic_int begin_before_register, guard_enters, guard_leaves, guarded_begins, inits;
/* The capture window's profiler-API trigger: how many events had begun when
 * cudaProfilerStart / Stop told the collector (-1: never). */
static atomic_int capture_start_at = -1, capture_stop_at = -1;

static _Thread_local int guard_depth; /* > 0: the profiler's own calls */
static _Thread_local int call_depth;  /* nesting of recorded calls */

static pthread_mutex_t kernel_lock = PTHREAD_MUTEX_INITIALIZER;
static struct { const void *key; uint32_t id; } keys[2 * FAKE_MAX_KERNELS];
static char *kernel_names[FAKE_MAX_KERNELS + 1]; /* by id, from 1 */
static unsigned n_keys, n_kernels;

void cuprof_api_register(const cuprof_api_desc *table, size_t n)
{
    api_table = table;
    api_n = n;
}

cuprof_event *cuprof_begin(uint16_t api, uint8_t cls)
{
    if (api_table == NULL)
        atomic_fetch_add(&begin_before_register, 1);
    errno = TEST_PRELOAD_ERRNO;
    if (guard_depth > 0) {
        atomic_fetch_add(&guarded_begins, 1);
        return NULL;
    }
    unsigned i = atomic_fetch_add(&n_events, 1);
    if (i >= FAKE_MAX_EVENTS)
        return NULL;
    cuprof_event *ev = &events[i];
    memset(ev, 0, sizeof *ev); /* as the collector's: zeroed */
    ev->api = api;
    ev->cls = cls;
    ev->depth = (uint8_t)call_depth++;
    ev->result = -1;
    ev->t0 = 1;
    return ev;
}

void cuprof_end(cuprof_event *ev, int32_t result)
{
    errno = TEST_PRELOAD_ERRNO;
    if (ev == NULL)
        return;
    call_depth--;
    ev->result = result;
    ev->t1 = 2;
}

/* NVTX: events like the hooks', names interned as kernel names are (the
 * fake keeps one table; the dump shows ids). errno is clobbered on purpose:
 * nvtx.c must restore it. */
uint32_t cuprof_string_intern(const char *s)
{
    errno = TEST_PRELOAD_ERRNO;
    if (!s)
        return 0;
    for (unsigned i = 1; i <= n_kernels; i++)
        if (strcmp(kernel_names[i], s) == 0)
            return i;
    if (n_kernels >= FAKE_MAX_KERNELS)
        return 0;
    kernel_names[++n_kernels] = strdup(s);
    return n_kernels;
}

int cuprof_instant(uint16_t api, uint8_t cls, uint32_t name, uint32_t domain, uint64_t id)
{
    errno = TEST_PRELOAD_ERRNO;
    unsigned i = atomic_fetch_add(&n_events, 1);
    if (i >= FAKE_MAX_EVENTS)
        return -1;
    cuprof_event *ev = &events[i];
    memset(ev->a.raw, 0, sizeof ev->a.raw);
    ev->api = api;
    ev->cls = cls;
    ev->depth = (uint8_t)call_depth;
    ev->result = 0;
    ev->t0 = ev->t1 = 1;
    ev->a.nvtx.name = name;
    ev->a.nvtx.domain = domain;
    ev->a.nvtx.id = id;
    return 0;
}

void cuprof_capture_profiler_api(int start)
{
    errno = TEST_PRELOAD_ERRNO;   /* the hook must keep the program's errno */
    atomic_store(start ? &capture_start_at : &capture_stop_at, (int)atomic_load(&n_events));
}

void cuprof_memheld_note(int is_free, uint64_t ptr, uint64_t bytes, uint16_t api)
{
    (void)is_free, (void)ptr, (void)bytes, (void)api;
    errno = TEST_PRELOAD_ERRNO;   /* the hook must keep the program's errno */
}

uint64_t cuprof_event_id(const cuprof_event *ev)
{
    return (uint64_t)(ev - events) + 1;
}

int cuprof_guard_enter(void)
{
    atomic_fetch_add(&guard_enters, 1);
    return guard_depth++;
}

void cuprof_guard_leave(int saved)
{
    atomic_fetch_add(&guard_leaves, 1);
    guard_depth = saved;
}

/* The hooks' own CUDA calls: a guard as far as these tests see (the real
 * one also marks CUPTI's records of them as ours). */
int cuprof_own_cuda_enter(void)
{
    return cuprof_guard_enter();
}

void cuprof_own_cuda_leave(int saved)
{
    cuprof_guard_leave(saved);
}

static uint32_t key_find(const void *key)
{
    for (unsigned i = 0; i < n_keys; i++)
        if (keys[i].key == key)
            return keys[i].id;
    return 0;
}

static void key_add(const void *key, uint32_t id)
{
    if (n_keys < sizeof keys / sizeof keys[0]) {
        keys[n_keys].key = key;
        keys[n_keys].id = id;
        n_keys++;
    }
}

void cuprof_kernel_register(const void *host_fn, const char *device_name)
{
    pthread_mutex_lock(&kernel_lock);
    if (key_find(host_fn) == 0 && n_kernels < FAKE_MAX_KERNELS) {
        kernel_names[++n_kernels] = strdup(device_name);
        key_add(host_fn, n_kernels);
    }
    pthread_mutex_unlock(&kernel_lock);
}

void cuprof_kernel_handle(const void *handle, const void *host_fn)
{
    pthread_mutex_lock(&kernel_lock);
    uint32_t id = key_find(host_fn);
    if (id != 0 && key_find(handle) == 0)
        key_add(handle, id);
    pthread_mutex_unlock(&kernel_lock);
}

uint32_t cuprof_kernel_lookup(const void *host_fn_or_handle)
{
    pthread_mutex_lock(&kernel_lock);
    uint32_t id = key_find(host_fn_or_handle);
    pthread_mutex_unlock(&kernel_lock);
    return id;
}

void cuprof_collector_init(void)
{
    atomic_fetch_add(&inits, 1);
}

__attribute__((destructor)) static void fake_dump(void)
{
    const char *path = getenv(TEST_PRELOAD_OUT_ENV);
    FILE *f = path ? fopen(path, "w") : NULL;
    if (f == NULL)
        return;
    for (size_t i = 0; i < api_n; i++)
        fprintf(f, "api %zu %s %s\n", i, api_table[i].name, api_table[i].category);
    for (unsigned i = 1; i <= n_kernels; i++)
        fprintf(f, "kernel %u %s\n", i, kernel_names[i]);
    fprintf(f, "stat begin_before_register %d\nstat guard_enters %d\nstat guard_leaves %d\n"
               "stat guarded_begins %d\nstat inits %d\nstat capture_start_at %d\n"
               "stat capture_stop_at %d\n",
            atomic_load(&begin_before_register), atomic_load(&guard_enters),
            atomic_load(&guard_leaves), atomic_load(&guarded_begins), atomic_load(&inits),
            atomic_load(&capture_start_at), atomic_load(&capture_stop_at));
    unsigned n = atomic_load(&n_events);
    for (unsigned i = 0; i < n && i < FAKE_MAX_EVENTS; i++) {
        const cuprof_event *e = &events[i];
        fprintf(f, "ev %u %u %u %" PRId32, e->api, e->cls, e->depth, e->result);
        uint64_t w[5];   /* the arguments, then the stack id word */
        memcpy(w, &e->a, sizeof w);
        for (int j = 0; j < 5; j++)
            fprintf(f, " %" PRIx64, w[j]);
        fputc('\n', f);
    }
    fclose(f);
}

int cuprof_open_call_name(uint8_t cls, uint32_t name)
{
    (void)cls;
    (void)name;
    return -1;
}
