/*
 * cusim_internal.h - what the pieces of libcusim.so share and nobody else
 * sees: the configuration read at start-up, the timing constants, the stream
 * and event structs, the per-thread state and the tool pointer.
 *
 * The unit test (tests/sim/core/test_sim_core.c) compiles the core sources
 * into itself, so it can reach these too.
 */
#ifndef CUSIM_INTERNAL_H
#define CUSIM_INTERNAL_H

#include "cusim.h"

#include <pthread.h>
#include <stdatomic.h>

#define CUSIM_INTERNAL __attribute__((visibility("hidden")))

/* ---- timing model constants (documented in tests/sim/README.md) ---------- */

#define CUSIM_LAUNCH_LATENCY_NS 4000u   /* api call -> earliest device start */
#define CUSIM_SUBMIT_NS 1500u           /* api call -> "submitted" stamp */
#define CUSIM_HBM_BPS 3.0e12            /* device memory bandwidth, bytes/s */
#define CUSIM_GEMM16_FLOPS 790e12       /* bf16/fp16 dense tensor-core rate */
#define CUSIM_GEMM32_FLOPS 395e12       /* tf32 tensor-core path for fp32 */
#define CUSIM_FP64_FLOPS 67e12          /* fp64 tensor-core rate (DGEMM, ZGEMM) */
#define CUSIM_GEMM_FIXED_NS 2500.0      /* GEMM prologue/epilogue/tail */
#define CUSIM_ELEM_FIXED_NS 1000.0      /* elementwise fixed cost */
#define CUSIM_ELEM_FLOOR_NS 2000.0      /* shortest elementwise/user kernel */
#define CUSIM_USER_BYTES_PER_THREAD 12.0 /* user kernels: 2 loads + 1 store */
#define CUSIM_PINNED_BPS 25e9           /* HtoD/DtoH, pinned host memory */
#define CUSIM_PAGEABLE_BPS 12e9         /* HtoD/DtoH/HtoH, pageable memory */
#define CUSIM_PAGEABLE_STAGE_NS 3000.0  /* staging-buffer setup, pageable */
#define CUSIM_DTOD_BPS 1.5e12           /* DtoD copy rate (reads + writes 3 TB/s) */
#define CUSIM_COPY_FIXED_NS 2000.0      /* every copy: DMA setup latency */
#define CUSIM_MEMSET_BPS 2.5e12         /* memset rate */
#define CUSIM_MEMSET_FIXED_NS 1000.0    /* memset fixed cost */
#define CUSIM_JITTER 0.03               /* +/- 3% uniform per operation */
#define CUSIM_OUTLIER_ONE_IN 200u       /* one kernel in ~200 is slow ... */
#define CUSIM_OUTLIER_MIN 1.5           /* ... by a factor in [1.5, 3.0) */
#define CUSIM_OUTLIER_MAX 3.0

#define CUSIM_DEFAULT_SEED 0x5eedc0dau
#define CUSIM_DEFAULT_CLOCK_OFFSET_NS 1700000000000000123LL
#define CUSIM_DEFAULT_LAUNCH_CPU_NS 2500u

/* CUpti_ActivitySynchronizationType values (cupti_activity.h). */
#define CUSIM_SYNC_EVENT 1
#define CUSIM_SYNC_STREAM_WAIT_EVENT 2
#define CUSIM_SYNC_STREAM 3
#define CUSIM_SYNC_CONTEXT 4

/* cudaStreamNonBlocking (driver_types.h). */
#define CUSIM_STREAM_NONBLOCKING 0x1u
/* cudaEventDisableTiming (driver_types.h). */
#define CUSIM_EVENT_DISABLE_TIMING 0x2u

/* ---- configuration, read once by cusim_init ------------------------------ */

typedef struct cusim_config {
    uint64_t seed;          /* CUSIM_SEED: jitter seed */
    int64_t clock_offset;   /* CUSIM_CLOCK_OFFSET_NS: device clock - host clock */
    uint64_t launch_cpu_ns; /* CUSIM_LAUNCH_CPU_NS: host cost of a launch call */
} cusim_config;
CUSIM_INTERNAL extern cusim_config cusim_cfg;

/* The attached tool, or NULL. Loaded with acquire so its ops are visible. */
CUSIM_INTERNAL extern _Atomic(const cusim_tool_ops *) cusim_tool;
/* The tool's device clock, or NULL (set only before init finished). */
CUSIM_INTERNAL extern _Atomic(uint64_t (*)(void)) cusim_ts_fn;

static inline const cusim_tool_ops *cusim_tool_get(void)
{
    return atomic_load_explicit(&cusim_tool, memory_order_acquire);
}

/* gpu ns - host ns right now: the clock offset, or the tool clock's lead. One
 * value per activity keeps its start/end consistent. */
CUSIM_INTERNAL int64_t cusim_gpu_delta(void);

/* ---- streams and events -------------------------------------------------- */

#define CUSIM_STREAM_MAGIC 0x5354524du /* "STRM" */
#define CUSIM_EVENT_MAGIC 0x4556544eu  /* "EVTN" */

enum cusim_stream_type {
    CUSIM_STREAM_LEGACY = 0, /* the NULL stream of the legacy default-stream mode */
    CUSIM_STREAM_PER_THREAD, /* a thread's per-thread default stream */
    CUSIM_STREAM_CREATED,    /* cudaStreamCreate* */
};

struct cusim_stream {
    uint32_t magic;   /* CUSIM_STREAM_MAGIC while alive, 0 once destroyed */
    uint32_t id;      /* CUPTI stream id */
    unsigned flags;   /* cudaStreamDefault / cudaStreamNonBlocking */
    int priority;     /* as created; not used by the model */
    enum cusim_stream_type type;
    uint64_t tail;    /* host ns when the last queued work ends (under dev lock) */
    struct cusim_graph *capture;   /* the graph being captured into, NULL: none */
    uint64_t capture_id;
    int capture_to;                /* the capture is into the program's graph (BeginCaptureToGraph),
                                    * or s joined another stream's: the graph is not s's */
    int capture_joined;            /* s joined a capture by waiting on a captured event */
    struct cusim_stream *all_next; /* every stream ever made (never freed) */
};

struct cusim_event {
    uint32_t magic;   /* CUSIM_EVENT_MAGIC while alive */
    unsigned flags;   /* cudaEventDisableTiming etc. */
    int recorded;     /* 1 once recorded */
    uint64_t time;    /* host ns when the recorded point is reached */
    struct cusim_graph *capture; /* recorded in a capture: its graph (a stream that waits
                                  * on it joins that capture), else NULL */
    uint64_t capture_id;
    struct cusim_event *all_next; /* every event ever made (never freed) */
};

/* ---- per-thread state ---------------------------------------------------- */

#define CUSIM_API_DEPTH 16 /* nesting we remember correlation ids for */

typedef struct cusim_thread {
    uint32_t corr_next, corr_end; /* this thread's block of correlation ids */
    uint32_t tid;                 /* gettid(), 0 until first asked */
    int depth;                    /* open api calls */
    uint32_t corr[CUSIM_API_DEPTH]; /* their correlation ids, innermost last */
    const char *name[CUSIM_API_DEPTH]; /* and their entry points' names */
    int in_init;                  /* this thread is running cusim_init */
    cusim_stream *ptds;           /* per-thread default stream, lazily made */
} cusim_thread;
CUSIM_INTERNAL extern _Thread_local cusim_thread cusim_self;

CUSIM_INTERNAL uint32_t cusim_gettid(void);

/* ---- deferred work (cusim_defer.c) ---------------------------------------- */

/* 1 while this thread is running deferred jobs (cusim_defer then runs its
 * argument inline, in the job's place in the order). */
CUSIM_INTERNAL int cusim_defer_running(void);

/* ---- timing model (cusim_model.c) ---------------------------------------- */

/* Duration in ns before jitter. */
CUSIM_INTERNAL double cusim_model_kernel_ns(const cusim_kernel_desc *k);
CUSIM_INTERNAL double cusim_model_copy_ns(int copy_kind, int src_mem, int dst_mem,
                                          uint64_t bytes);
CUSIM_INTERNAL double cusim_model_memset_ns(uint64_t bytes);
/* Multiplier for operation number `seq` under `seed`: 1 +/- CUSIM_JITTER, and
 * when outliers != 0, one in CUSIM_OUTLIER_ONE_IN is 1.5-3x. Pure function. */
CUSIM_INTERNAL double cusim_model_jitter(uint64_t seed, uint64_t seq, int outliers);

/* Graph replay on this thread (cusim_graph.c): the ids the activity of the
 * work being queued carries; 0 outside a replay. */
typedef struct cusim_replay {
    uint32_t graph_id;
    uint64_t node_id;
    int active;
} cusim_replay;
CUSIM_INTERNAL extern _Thread_local cusim_replay cusim_replaying;
/* Captured work (cusim_timeline.c calls these for a capturing stream). */
/* Graph memory (cusim_graph_mem.c): an address an allocation node handed
 * out, with the nodes naming it counted. */
typedef struct cusim_gmem cusim_gmem;
/* New device memory of bytes, named by one node; NULL when out of memory. */
CUSIM_INTERNAL cusim_gmem *cusim_gmem_new(size_t bytes);
/* m again, for one more node, when free_node freed it last (at construction)
 * and it holds bytes: 1; else 0. */
CUSIM_INTERNAL int cusim_gmem_reuse(cusim_gmem *m, const void *free_node, size_t bytes);
/* The entry of the address ptr, named by one more node; NULL: none. */
CUSIM_INTERNAL cusim_gmem *cusim_gmem_find_ref(const void *ptr);
/* free_node frees m (at construction): a later allocation node depending on it
 * may reuse the address. */
CUSIM_INTERNAL void cusim_gmem_set_freed_by(cusim_gmem *m, const void *free_node);
/* One node more or fewer names m; the host memory goes when none does and
 * it is not mapped. */
CUSIM_INTERNAL void cusim_gmem_ref(cusim_gmem *m);
CUSIM_INTERNAL void cusim_gmem_unref(cusim_gmem *m);
/* A launch reaching an allocation (map 1) or free node (map 0). */
CUSIM_INTERNAL void cusim_gmem_map(cusim_gmem *m, int map);
CUSIM_INTERNAL void *cusim_gmem_ptr(const cusim_gmem *m);
CUSIM_INTERNAL size_t cusim_gmem_bytes(const cusim_gmem *m);
/* 1 while a launch's allocation of m is not freed. */
CUSIM_INTERNAL int cusim_gmem_mapped(cusim_gmem *m);
/* Ends the capture `id` into g on every stream that joined it (all but the
 * one that began it); returns how many. */
CUSIM_INTERNAL int cusim_streams_leave_capture(struct cusim_graph *g, uint64_t id);
/* s joins the capture `id` into g (it waited on an event recorded in it). */
CUSIM_INTERNAL void cusim_stream_join_capture(cusim_stream *s, struct cusim_graph *g, uint64_t id);
CUSIM_INTERNAL void cusim_capture_kernel(struct cusim_graph *g, const cusim_kernel_desc *k);
CUSIM_INTERNAL void cusim_capture_copy(struct cusim_graph *g, void *dst, size_t dpitch, const void *src,
                                       size_t spitch, size_t width, size_t height, int kind);
CUSIM_INTERNAL void cusim_capture_memset(struct cusim_graph *g, void *dst, size_t pitch, int value,
                                         size_t width, size_t height);

#endif /* CUSIM_INTERNAL_H */
