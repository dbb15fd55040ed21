/*
 * cusim_init.c - start-up of the simulated driver (environment, injection),
 * its clocks, and the tool attachment point.
 */
#include "cusim_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

cusim_config cusim_cfg = {
    .seed = CUSIM_DEFAULT_SEED,
    .clock_offset = CUSIM_DEFAULT_CLOCK_OFFSET_NS,
    .launch_cpu_ns = CUSIM_DEFAULT_LAUNCH_CPU_NS,
};
_Atomic(const cusim_tool_ops *) cusim_tool;
_Atomic(uint64_t (*)(void)) cusim_ts_fn;
_Thread_local cusim_thread cusim_self;

enum { INIT_NONE = 0, INIT_RUNNING = 1, INIT_DONE = 2 };
/* Where start-up is: INIT_DONE is the only state the fast path looks at. */
static _Atomic int init_state;
/* Serializes the first call; other threads wait here until it is done. */
static pthread_mutex_t init_mu = PTHREAD_MUTEX_INITIALIZER;

/* Reads an integer variable; keeps *out when unset or malformed. */
static void env_i64(const char *name, int64_t *out)
{
    const char *v = getenv(name);
    if (v == NULL || *v == '\0')
        return;
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 0);
    if (errno != 0 || *end != '\0') {
        fprintf(stderr, "cusim: ignoring %s=%s (not an integer)\n", name, v);
        return;
    }
    *out = x;
}

static void env_u64(const char *name, uint64_t *out)
{
    const char *v = getenv(name);
    if (v == NULL || *v == '\0')
        return;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 0);
    if (errno != 0 || *end != '\0' || *v == '-') {
        fprintf(stderr, "cusim: ignoring %s=%s (not an unsigned integer)\n", name, v);
        return;
    }
    *out = x;
}

/* Like the real driver: load CUDA_INJECTION64_PATH and run its
 * InitializeInjection() before any device work. The tool calls back into us
 * (cusim_tool_set, cusim_tool_set_timestamp_fn, even cusim_init through the
 * runtime): cusim_self.in_init makes those re-entrant calls return at once. */
static void load_injection(void)
{
    const char *path = getenv("CUDA_INJECTION64_PATH");
    if (path == NULL || *path == '\0')
        return;
    void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (h == NULL) {
        fprintf(stderr, "cusim: cannot load CUDA_INJECTION64_PATH=%s: %s\n", path, dlerror());
        return;
    }
    int (*init)(void);
    *(void **)&init = dlsym(h, "InitializeInjection");
    if (init == NULL) {
        fprintf(stderr, "cusim: %s has no InitializeInjection(); not injected\n", path);
        return;
    }
    if (init() == 0)
        fprintf(stderr, "cusim: InitializeInjection() of %s reported failure\n", path);
}

int cusim_init(void)
{
    if (atomic_load_explicit(&init_state, memory_order_acquire) == INIT_DONE)
        return 0;
    if (cusim_self.in_init)
        return 0; /* re-entered from InitializeInjection on this thread */
    pthread_mutex_lock(&init_mu);
    if (atomic_load_explicit(&init_state, memory_order_relaxed) != INIT_DONE) {
        cusim_self.in_init = 1;
        atomic_store(&init_state, INIT_RUNNING);
        uint64_t seed = cusim_cfg.seed, cpu = cusim_cfg.launch_cpu_ns;
        int64_t off = cusim_cfg.clock_offset;
        env_u64("CUSIM_SEED", &seed);
        env_i64("CUSIM_CLOCK_OFFSET_NS", &off);
        env_u64("CUSIM_LAUNCH_CPU_NS", &cpu);
        cusim_cfg.seed = seed;
        cusim_cfg.clock_offset = off;
        cusim_cfg.launch_cpu_ns = cpu;
        load_injection();
        atomic_store_explicit(&init_state, INIT_DONE, memory_order_release);
        cusim_self.in_init = 0;
    }
    pthread_mutex_unlock(&init_mu);
    return 0;
}

int cusim_initialized(void)
{
    return atomic_load_explicit(&init_state, memory_order_acquire) == INIT_DONE;
}

/* ---- clocks -------------------------------------------------------------- */

uint64_t cusim_host_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The tool clock's offset from the host clock, measured once per clock
 * (the real CUPTI likewise maps device time to the tool's clock with a
 * calibrated conversion, not a reading per record): the best of a few
 * host/tool/host readings, the one whose host readings are closest, so that
 * a thread preempted between two readings does not move a record. */
static _Atomic(uint64_t (*)(void)) cal_fn;
static _Atomic int64_t cal_delta;

static int64_t calibrate(uint64_t (*fn)(void))
{
    uint64_t best_gap = UINT64_MAX;
    int64_t delta = 0;
    for (int i = 0; i < 7; i++) {
        uint64_t h0 = cusim_host_ns(), t = fn(), h1 = cusim_host_ns();
        if (h1 - h0 < best_gap) {
            best_gap = h1 - h0;
            delta = (int64_t)(t - (h0 + (h1 - h0) / 2));
        }
    }
    atomic_store_explicit(&cal_delta, delta, memory_order_relaxed);
    atomic_store_explicit(&cal_fn, fn, memory_order_release);
    return delta;
}

int64_t cusim_gpu_delta(void)
{
    uint64_t (*fn)(void) = atomic_load_explicit(&cusim_ts_fn, memory_order_acquire);
    if (fn == NULL)
        return cusim_cfg.clock_offset;
    if (atomic_load_explicit(&cal_fn, memory_order_acquire) == fn)
        return atomic_load_explicit(&cal_delta, memory_order_relaxed);
    return calibrate(fn);
}

uint64_t cusim_gpu_ns_at(uint64_t host_ns)
{
    return host_ns + (uint64_t)cusim_gpu_delta();
}

uint64_t cusim_gpu_ns(void)
{
    uint64_t (*fn)(void) = atomic_load_explicit(&cusim_ts_fn, memory_order_acquire);
    if (fn != NULL)
        return fn();
    return cusim_host_ns() + (uint64_t)cusim_cfg.clock_offset;
}

void cusim_wait_until_host(uint64_t host_ns)
{
    /* Sleep for the bulk, spin the last stretch: nanosleep overshoots by
     * ~50-100 us, and a sync that returns late skews every trace. */
    const uint64_t spin_ns = 100000;
    for (;;) {
        uint64_t now = cusim_host_ns();
        if (now >= host_ns)
            return;
        if (host_ns - now > spin_ns) {
            uint64_t until = host_ns - spin_ns;
            struct timespec ts = {(time_t)(until / 1000000000ull), (long)(until % 1000000000ull)};
            clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        }
    }
}

void cusim_spin_ns(uint64_t ns)
{
    if (ns == 0)
        return;
    uint64_t until = cusim_host_ns() + ns;
    while (cusim_host_ns() < until)
        ;
}

uint64_t cusim_launch_cpu_ns(void)
{
    return cusim_cfg.launch_cpu_ns;
}

uint32_t cusim_gettid(void)
{
    if (cusim_self.tid == 0)
        cusim_self.tid = (uint32_t)syscall(SYS_gettid);
    return cusim_self.tid;
}

/* ---- the tool ------------------------------------------------------------ */

void cusim_tool_set(const cusim_tool_ops *ops)
{
    atomic_store_explicit(&cusim_tool, ops, memory_order_release);
}

int cusim_tool_set_timestamp_fn(uint64_t (*fn)(void))
{
    /* The real CUPTI honours cuptiActivityRegisterTimestampCallback only
     * before the driver is up: so do we. */
    if (atomic_load_explicit(&init_state, memory_order_acquire) == INIT_DONE)
        return -1;
    atomic_store_explicit(&cusim_ts_fn, fn, memory_order_release);
    return 0;
}
