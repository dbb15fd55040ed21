/*
 * cusim.h - the simulated CUDA "driver": one simulated H100 shared by the
 * simulated libcudart, libcublas, libcublasLt and libcupti.
 *
 * It lives in libcusim.so, which every sim library links. Like the real
 * driver (libcuda.so) it holds all device state: memory, streams, events, the
 * device timeline and its timing model, correlation ids, and the hook a tool
 * (the simulated CUPTI) attaches to. The simulated cuBLAS/cuBLASLt call it
 * directly, never through the exported cudart symbols, just as the real ones
 * link cudart statically: an LD_PRELOAD hook on cudaLaunchKernel never sees
 * their work; only CUPTI does.
 *
 * Threading: every function here is thread-safe unless it says otherwise.
 * Clocks: "host ns" is CLOCK_MONOTONIC; "gpu ns" is the device/CUPTI clock,
 * which on purpose is NOT the host clock (see cusim_gpu_ns).
 */
#ifndef CUSIM_H
#define CUSIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUSIM_EXPORT __attribute__((visibility("default")))

/* ---- start-up ---------------------------------------------------------- */

/* Initializes the simulated driver once (thread-safe, idempotent, cheap after
 * the first call). The first call reads the CUSIM_* environment, and, like the
 * real driver, loads the library named by CUDA_INJECTION64_PATH (if set) and
 * calls its InitializeInjection() before any device work happens. Every
 * runtime/cuBLAS entry point calls this first. Returns 0 (always succeeds). */
CUSIM_EXPORT int cusim_init(void);

/* ---- clocks ------------------------------------------------------------ */

/* Host time, CLOCK_MONOTONIC, ns. */
CUSIM_EXPORT uint64_t cusim_host_ns(void);
/* Device (CUPTI) time for a host instant: host_ns + a fixed offset. The offset
 * defaults to a large value (the clock is nothing like the host's) and can be
 * set with CUSIM_CLOCK_OFFSET_NS (signed decimal). If a tool registered a
 * timestamp callback before init (cusim_tool_set_timestamp_fn), that function
 * is the device clock instead. */
CUSIM_EXPORT uint64_t cusim_gpu_ns_at(uint64_t host_ns);
CUSIM_EXPORT uint64_t cusim_gpu_ns(void);
/* Sleeps/spins the calling host thread until host time >= host_ns. */
CUSIM_EXPORT void cusim_wait_until_host(uint64_t host_ns);

/* ---- API tracing: what CUPTI's runtime domain sees ---------------------- */

/* One runtime-API call in flight. Filled by cusim_api_begin/end. */
typedef struct cusim_api_call {
    uint32_t cbid;           /* CUPTI_RUNTIME_TRACE_CBID_* of the entry point */
    const char *name;        /* entry point name, e.g. "cudaLaunchKernel" */
    uint32_t correlation_id; /* unique per call, process-wide, from 1 */
    uint64_t start_gpu_ns;   /* device clock at begin */
    uint64_t end_gpu_ns;     /* device clock at end */
    const void *params;      /* the entry point's parameter struct or NULL */
    int status;              /* cudaError_t returned (valid at end) */
    uint32_t thread_id;      /* gettid() of the caller */
    const char *symbol_name; /* kernel device name for launches, else NULL */
    int driver;              /* 1: a driver-API call (cbid is CUPTI_DRIVER_TRACE_CBID_*),
                              * as cuBLAS 13 makes its launches (cuLaunchKernelEx) */
} cusim_api_call;

/* Opens a traced runtime-API call on this thread: assigns a correlation id,
 * stamps the start, and calls the tool's api_enter hook (if any). While the
 * call is open, work submitted from this thread carries its correlation id.
 * Calls nest (cuBLAS opens its internal cudaLaunchKernel inside nothing, a
 * user's call inside nothing); the innermost open call is "current". */
CUSIM_EXPORT void cusim_api_begin(cusim_api_call *c, uint32_t cbid, const char *name,
                                  const void *params);
/* Closes the call: stamps the end, records status, calls the api_exit hook.
 * Must be called on the thread that began it, in LIFO order. */
CUSIM_EXPORT void cusim_api_end(cusim_api_call *c, int status);
/* Correlation id of this thread's innermost open call, or 0. */
CUSIM_EXPORT uint32_t cusim_current_correlation(void);
/* 1 when the innermost open call is an *Async entry point (cudaMemcpyAsync). */
CUSIM_EXPORT int cusim_current_call_async(void);
/* cusim_api_begin for a launch: symbol_name (the kernel's device name, kept by
 * the caller for the whole call) is set before the api_enter hook runs, as
 * CUPTI's callback data carries it at the enter site. */
CUSIM_EXPORT void cusim_api_begin_sym(cusim_api_call *c, uint32_t cbid, const char *name,
                                      const void *params, const char *symbol_name);
/* cusim_api_begin_sym for a driver-API call (cbid from cupti_driver_cbid.h):
 * what CUPTI's DRIVER activity kind and driver callback domain see. The
 * runtime's own entry points never make these (as with the real runtime,
 * whose internal driver calls CUPTI does not report); the simulated cuBLAS
 * does, as the real cuBLAS 13 does for its GEMM launches. */
CUSIM_EXPORT void cusim_api_begin_driver(cusim_api_call *c, uint32_t cbid, const char *name,
                                         const void *params, const char *symbol_name);
/* Note: start_gpu_ns / end_gpu_ns are stamped only while a tool is attached
 * (0 otherwise), which keeps an untraced call down to a few nanoseconds. */

/* Host CPU time a launch API call costs (CUSIM_LAUNCH_CPU_NS, default 2500);
 * the runtime's launch entry points spin for it with cusim_spin_ns. */
CUSIM_EXPORT uint64_t cusim_launch_cpu_ns(void);
/* Busy-waits the calling thread for ns nanoseconds (0: returns at once). */
CUSIM_EXPORT void cusim_spin_ns(uint64_t ns);

/* ---- device, memory ----------------------------------------------------- */

#define CUSIM_DEVICE_NAME "NVIDIA H100 80GB HBM3"
#define CUSIM_SM_COUNT 132
#define CUSIM_CC_MAJOR 9
#define CUSIM_CC_MINOR 0

enum cusim_mem_kind {
    CUSIM_MEM_UNKNOWN = 0, /* not ours: pageable host memory */
    CUSIM_MEM_DEVICE = 1,  /* cudaMalloc */
    CUSIM_MEM_PINNED = 2,  /* cudaMallocHost / cudaHostAlloc */
    CUSIM_MEM_MANAGED = 3, /* cudaMallocManaged */
};
/* Device memory is host memory underneath (so copies really move bytes);
 * allocations are registered so pointers can be classified. Returns NULL on
 * failure. size 0 gives a unique non-NULL pointer. */
CUSIM_EXPORT void *cusim_mem_alloc(size_t size, enum cusim_mem_kind kind);
/* Frees a pointer from cusim_mem_alloc; returns 0, or -1 if not ours. */
CUSIM_EXPORT int cusim_mem_free(void *p, enum cusim_mem_kind kind);
/* Memory is zeroed at allocation, as fresh memory on a GPU reads. */
/* Registers [base, base + size), memory the caller owns (the driver's
 * virtual-memory mappings), as kind, so pointers into it are classified; not
 * counted as used (cusim_mem_charge does that). 0, or -1 (NULL, taken). */
CUSIM_EXPORT int cusim_mem_register(void *base, size_t size, enum cusim_mem_kind kind);
/* Forgets a registered range (after the deferred work that may write it). */
CUSIM_EXPORT int cusim_mem_unregister(void *base);
/* Counts delta bytes more (or fewer) of device memory as used: the driver's
 * physical allocations (cuMemCreate). -1, unchanged, beyond the device's. */
CUSIM_EXPORT int cusim_mem_charge(int64_t delta);
/* Classifies any pointer (inside an allocation counts). */
CUSIM_EXPORT enum cusim_mem_kind cusim_mem_kind_of(const void *p);
/* Like cusim_mem_kind_of, and also gives the allocation holding p (base and
 * size; either out pointer may be NULL; untouched when not ours). */
CUSIM_EXPORT enum cusim_mem_kind cusim_mem_find(const void *p, void **base, size_t *size);
/* Bytes currently allocated as device + managed memory (cudaMemGetInfo). */
CUSIM_EXPORT uint64_t cusim_mem_device_used(void);
#define CUSIM_DEVICE_MEM_BYTES (80ull << 30) /* 80 GiB */

/* ---- streams, events ---------------------------------------------------- */

typedef struct cusim_stream cusim_stream; /* opaque; cudaStream_t in the sim */
typedef struct cusim_event cusim_event;   /* opaque; cudaEvent_t in the sim */

/* Maps a cudaStream_t value to a stream: NULL/0 = legacy default stream
 * (ptds != 0 turns NULL into this thread's per-thread stream),
 * cudaStreamLegacy (0x1), cudaStreamPerThread (0x2), else a created stream.
 * Returns NULL when the value is not a live stream (destroyed or garbage that
 * does not carry the stream's magic). */
CUSIM_EXPORT cusim_stream *cusim_stream_get(const void *cuda_stream, int ptds);
CUSIM_EXPORT cusim_stream *cusim_stream_create(unsigned flags, int priority);
CUSIM_EXPORT void cusim_stream_destroy(cusim_stream *s);
CUSIM_EXPORT uint32_t cusim_stream_id(const cusim_stream *s); /* CUPTI stream id */
CUSIM_EXPORT unsigned cusim_stream_flags(const cusim_stream *s); /* as created */
CUSIM_EXPORT int cusim_stream_priority(const cusim_stream *s);   /* as created */
/* Maps a cudaEvent_t value to an event, or NULL if it is not a live event. */
CUSIM_EXPORT cusim_event *cusim_event_get(const void *cuda_event);
/* cudaDeviceReset: waits for all queued work; memory, streams and events
 * stay valid (the sim does not tear its one context down). */
CUSIM_EXPORT void cusim_device_reset(void);
/* Blocks the host until all queued work is done, without reporting a
 * synchronization to the tool (cudaFree's implicit synchronization). */
CUSIM_EXPORT void cusim_device_drain(void);
/* Blocks the host until all work queued on s is done (device time). */
CUSIM_EXPORT void cusim_stream_sync(cusim_stream *s);
/* 1 if all work on s is done now, else 0. */
CUSIM_EXPORT int cusim_stream_query(cusim_stream *s);
CUSIM_EXPORT void cusim_device_sync(void);

CUSIM_EXPORT cusim_event *cusim_event_create(unsigned flags);
CUSIM_EXPORT void cusim_event_destroy(cusim_event *e);
CUSIM_EXPORT void cusim_event_record(cusim_event *e, cusim_stream *s);
CUSIM_EXPORT void cusim_event_sync(cusim_event *e);
CUSIM_EXPORT int cusim_event_query(cusim_event *e);
/* Device-time ms between two recorded events; -1 if either never recorded,
 * -2 if either was created with cudaEventDisableTiming, -3 if either is not
 * reached yet (cudaErrorNotReady). */
CUSIM_EXPORT float cusim_event_elapsed_ms(cusim_event *a, cusim_event *b);
/* Makes later work on s wait for e. */
CUSIM_EXPORT void cusim_stream_wait_event(cusim_stream *s, cusim_event *e);

/* ---- work on the device timeline ---------------------------------------- */

enum cusim_kernel_class {
    CUSIM_KERNEL_USER = 0,        /* user kernel: time from grid size */
    CUSIM_KERNEL_GEMM = 1,        /* time from flops and bytes (tensor cores) */
    CUSIM_KERNEL_ELEMENTWISE = 2, /* time from bytes plus a floor */
    CUSIM_KERNEL_FIXED = 3,       /* the time in `flops`, ns (the simulated NCCL's
                                     collectives: bytes over a modelled bus) */
};

typedef struct cusim_kernel_desc {
    const char *name;  /* device (mangled) name, kept by the caller forever */
    uint32_t grid[3];
    uint32_t block[3];
    uint32_t dynamic_smem;
    uint32_t static_smem;
    uint16_t registers;  /* per thread */
    enum cusim_kernel_class cls;
    double flops;        /* GEMM */
    double bytes;        /* GEMM, elementwise */
    int tensor_dtype_bits; /* GEMM: 16 (bf16/fp16), 32 (tf32/fp32 path) or 64 (fp64) */
} cusim_kernel_desc;

/* Queues a kernel on s, attributed to correlation id `corr` (normally
 * cusim_current_correlation()). Start = max(stream tail, events waited on,
 * now + launch latency); duration from the timing model plus jitter. Emits the
 * kernel activity to the tool. Returns the device end time (gpu ns). */
CUSIM_EXPORT uint64_t cusim_launch(cusim_stream *s, const cusim_kernel_desc *k, uint32_t corr);
/* cusim_launch as submitted at host time `submitted` (0: now) and ending no
 * earlier than host time min_end (0: no bound): the simulated NCCL's kernel,
 * which cannot end before the communicator's last rank has called. */
CUSIM_EXPORT uint64_t cusim_launch_until(cusim_stream *s, const cusim_kernel_desc *k, uint32_t corr,
                                         uint64_t submitted, uint64_t min_end);

enum cusim_copy_kind { /* same values as cudaMemcpyKind / CUpti_ActivityMemcpyKind use */
    CUSIM_COPY_HTOH, CUSIM_COPY_HTOD, CUSIM_COPY_DTOH, CUSIM_COPY_DTOD,
};
/* Copies bytes for real (2D: `height` rows of `width` bytes with pitches;
 * 1D: height 1) and queues the transfer. kind 4 (cudaMemcpyDefault) is
 * resolved from the pointers. blocking != 0 (forced for pageable host memory):
 * the host waits until the copy is done on the device (cudaMemcpy), and the
 * bytes move in the call, after the deferred work. Otherwise the bytes move
 * later, through cusim_defer (in order, before anything can observe them), and
 * the call costs the host nothing. The device times come from the model and
 * the call's instant only. Emits the memcpy activity. Returns the device end
 * time. The memset calls below behave the same way. */
CUSIM_EXPORT uint64_t cusim_memcpy2d(cusim_stream *s, void *dst, size_t dpitch, const void *src,
                                     size_t spitch, size_t width, size_t height, int kind,
                                     int blocking, uint32_t corr);
CUSIM_EXPORT uint64_t cusim_memcpy(cusim_stream *s, void *dst, const void *src, size_t bytes,
                                   int kind, int blocking, uint32_t corr);
CUSIM_EXPORT uint64_t cusim_memset(cusim_stream *s, void *dst, int value, size_t bytes,
                                   int blocking, uint32_t corr);
/* 2D memset: `height` rows of `width` bytes, `pitch` apart; one activity. */
CUSIM_EXPORT uint64_t cusim_memset2d(cusim_stream *s, void *dst, size_t pitch, int value,
                                     size_t width, size_t height, int blocking, uint32_t corr);
/* cusim_memset2d with elements of elem bytes (1, 2 or 4: the driver's
 * cuMemsetD8/D16/D32 and their 2D forms): every element of each row (width
 * bytes) set to value; the record's value is the element. A stream that
 * captures takes byte memsets only (a wider one runs at once). */
CUSIM_EXPORT uint64_t cusim_memset_elems(cusim_stream *s, void *dst, size_t pitch, uint32_t value,
                                         int elem, size_t width, size_t height, int blocking,
                                         uint32_t corr);

/* Defers CPU work of the sim itself (the cuBLAS sim computing a GEMM result;
 * the bytes of async copies and memsets) off the caller's timeline: fn(arg)
 * runs later, in submission order, on the first thread that calls something
 * able to observe device memory or the device's completion (blocking
 * cusim_memcpy* / cusim_memset*, every sync and query, cusim_event_elapsed_ms,
 * cusim_mem_free, cusim_device_drain/reset), before that call does its work.
 * fn may call cusim functions (they do not drain again; work they would defer
 * runs inline, in fn's place in the order) but must not block on other
 * threads. Called from inside a running job, cusim_defer runs fn at once. */
CUSIM_EXPORT void cusim_defer(void (*fn)(void *arg), void *arg);
/* Runs all deferred work now (what the calls above do first). */
CUSIM_EXPORT void cusim_defer_drain(void);

/* A never-freed copy of the n key bytes, the same one for equal keys (a
 * kernel name, a cusim_kernel_desc: cusim_launch's desc and name must live
 * as long as the process, since the tool reads them after the call). NULL
 * when out of memory. A desc's padding is part of the key: memset it first. */
CUSIM_EXPORT const void *cusim_intern(const void *key, size_t n);
CUSIM_EXPORT const char *cusim_intern_name(const char *name);
/* The largest problem the libraries compute on the CPU (CUSIM_COMPUTE_MAX,
 * read once; a GEMM's m*n*k*batch, another routine's work in the same
 * units: its multiply-adds): above it a routine is timed only. */
#define CUSIM_COMPUTE_MAX_DEFAULT 134217728ull /* 512^3 */
CUSIM_EXPORT uint64_t cusim_compute_max(void);

/* Occupancy for a block size / dynamic smem on an sm_90 SM (deterministic
 * model: limited by threads, registers, shared memory). */
CUSIM_EXPORT int cusim_occupancy(int block_size, size_t dynamic_smem, int registers,
                                 size_t static_smem);

/* ---- graphs: stream capture, explicit construction, replay ------------- */

/* A graph is a list of nodes replayed in order on the launching stream (the
 * sim runs a graph's nodes one after another: dependencies are accepted and
 * not needed). While a stream captures, the kernels, copies and memsets
 * queued on it become nodes of its graph instead of running. Instantiation
 * clones the nodes (new ids; each remembers its original); a launch puts
 * the clones on the stream with the launch's correlation id, and their
 * activity carries the exec's graph id and the clone's node id. */
typedef struct cusim_graph cusim_graph;           /* cudaGraph_t in the sim */
typedef struct cusim_graph_exec cusim_graph_exec; /* cudaGraphExec_t */
typedef struct cusim_graph_node cusim_graph_node; /* cudaGraphNode_t */
enum cusim_node_type { /* CUgraphNodeType's values */
    CUSIM_NODE_KERNEL = 0, CUSIM_NODE_MEMCPY = 1, CUSIM_NODE_MEMSET = 2, CUSIM_NODE_HOST = 3,
    CUSIM_NODE_EMPTY = 5, CUSIM_NODE_MEM_ALLOC = 10, CUSIM_NODE_MEM_FREE = 11,
};
CUSIM_EXPORT cusim_graph *cusim_graph_create(void);
/* The graph a cudaGraph_t value is, or NULL (destroyed, garbage). */
CUSIM_EXPORT cusim_graph *cusim_graph_get(const void *h);
CUSIM_EXPORT void cusim_graph_destroy(cusim_graph *g);
CUSIM_EXPORT uint32_t cusim_graph_id(const cusim_graph *g);
/* Starts capturing s into a new graph: 0, or -1 when s captures already. */
CUSIM_EXPORT int cusim_stream_begin_capture(cusim_stream *s);
/* The same into an existing graph (cudaStreamBeginCaptureToGraph; into NULL:
 * a new one): the capture's nodes are added to it, and ending the capture
 * gives it back. */
CUSIM_EXPORT int cusim_stream_begin_capture_to(cusim_stream *s, cusim_graph *into);
/* 1 when s joined another stream's capture (it waited on an event recorded
 * in it): only the stream that began a capture can end it. */
CUSIM_EXPORT int cusim_stream_capture_joined(const cusim_stream *s);
/* 1 when s captures into the program's graph (cusim_stream_begin_capture_to). */
CUSIM_EXPORT int cusim_stream_capture_to(const cusim_stream *s);
/* 1 while a stream captures into g (it must not be destroyed then). */
CUSIM_EXPORT int cusim_graph_capturing(const cusim_graph *g);
/* Ends the capture: its graph, or NULL when s was not capturing. */
CUSIM_EXPORT cusim_graph *cusim_stream_end_capture(cusim_stream *s);
/* The graph s captures into (NULL: none), and the capture's id (0: none). */
CUSIM_EXPORT cusim_graph *cusim_stream_capture_graph(const cusim_stream *s);
CUSIM_EXPORT uint64_t cusim_stream_capture_id(const cusim_stream *s);
/* Explicit construction: a node of g (NULL when out of memory). */
CUSIM_EXPORT cusim_graph_node *cusim_graph_add_kernel(cusim_graph *g, const cusim_kernel_desc *k);
CUSIM_EXPORT cusim_graph_node *cusim_graph_add_memcpy(cusim_graph *g, void *dst, size_t dpitch,
                                                      const void *src, size_t spitch, size_t width,
                                                      size_t height, int kind);
CUSIM_EXPORT cusim_graph_node *cusim_graph_add_memset(cusim_graph *g, void *dst, size_t pitch, int value,
                                                      size_t width, size_t height);
CUSIM_EXPORT cusim_graph_node *cusim_graph_add_empty(cusim_graph *g);
/* A host node: a replay calls fn(data) in stream order, once the device's
 * earlier work is done. */
CUSIM_EXPORT cusim_graph_node *cusim_graph_add_host(cusim_graph *g, void (*fn)(void *), void *data);
/* A host node's function and argument: 0, or -1 for another type. */
CUSIM_EXPORT int cusim_graph_node_host(const cusim_graph_node *n, void (**fn)(void *), void **data);
/* Graph memory (cusim_graph.c's header comment). An allocation node of
 * bytes; *dptr gets its address, fixed for the life of g and its execs
 * (that of a free node among deps, of g, when it fits; else new device
 * memory). NULL when out of memory. */
CUSIM_EXPORT cusim_graph_node *cusim_graph_add_mem_alloc(cusim_graph *g, size_t bytes,
                                                         cusim_graph_node *const *deps, size_t ndeps,
                                                         void **dptr);
/* A free node of ptr, an address an allocation node gave (of any graph):
 * 0 and *out; -1 when ptr is no such address or g frees it already (its
 * last node naming it is a free); -2 when out of memory. */
CUSIM_EXPORT int cusim_graph_add_mem_free(cusim_graph *g, void *ptr, cusim_graph_node **out);
/* An allocation or free node's address and size: 0, or -1 for another type. */
CUSIM_EXPORT int cusim_graph_node_mem(const cusim_graph_node *n, void **ptr, size_t *bytes);
/* A free outside any graph (cudaFree, cudaFreeAsync) of ptr: 1 when ptr is
 * graph memory (now unmapped; its host memory goes when no node names it),
 * 0 when it is not (the caller frees it as usual). */
CUSIM_EXPORT int cusim_graph_mem_free(void *ptr);
/* The graph pool's memory (cudaDeviceGetGraphMemAttribute): used current and
 * high, reserved current and high, in bytes. The pool holds the most that
 * launches had mapped at once until trimmed; used and reserved are that. */
CUSIM_EXPORT void cusim_graph_mem_usage(uint64_t out[4]);
/* cudaDeviceGraphMemTrim: the pool keeps only what is mapped. */
CUSIM_EXPORT void cusim_graph_mem_trim(void);
/* Setting a high-water attribute (to 0): it restarts from the current amount. */
CUSIM_EXPORT void cusim_graph_mem_reset_high(void);
/* The node a cudaGraphNode_t value is, or NULL. */
CUSIM_EXPORT cusim_graph_node *cusim_graph_node_get(const void *h);
CUSIM_EXPORT uint64_t cusim_graph_node_id(const cusim_graph_node *n);
CUSIM_EXPORT int cusim_graph_node_type(const cusim_graph_node *n);
/* The nodes of g in order: up to cap into out; returns how many g has. */
CUSIM_EXPORT size_t cusim_graph_nodes(const cusim_graph *g, cusim_graph_node **out, size_t cap);
CUSIM_EXPORT cusim_graph_exec *cusim_graph_instantiate(cusim_graph *g);
/* 1 when g has an allocation or free node (CUDA clones no such graph). */
CUSIM_EXPORT int cusim_graph_has_mem_nodes(const cusim_graph *g);
/* cudaGraphClone: a new graph with copies of g's nodes (NULL when out of memory). */
CUSIM_EXPORT cusim_graph *cusim_graph_clone(const cusim_graph *g);
CUSIM_EXPORT cusim_graph_exec *cusim_graph_exec_get(const void *h);
/* The exec's graph id: the graphId of its replays' records. */
CUSIM_EXPORT uint32_t cusim_graph_exec_id(const cusim_graph_exec *e);
CUSIM_EXPORT void cusim_graph_exec_destroy(cusim_graph_exec *e);
/* Replaces the kernel of the exec's clone of node (cudaGraphExecKernelNodeSetParams):
 * 0, or -1 when node is not a kernel node of the exec's graph. */
CUSIM_EXPORT int cusim_graph_exec_set_kernel(cusim_graph_exec *e, const cusim_graph_node *node,
                                             const cusim_kernel_desc *k);
/* cudaGraphInstantiateFlagAutoFreeOnLaunch: each launch first frees what a
 * previous one allocated and nothing freed. */
CUSIM_EXPORT void cusim_graph_exec_set_auto_free(cusim_graph_exec *e, int on);
/* Before a launch: 1 when an allocation of a previous launch of e is still
 * not freed (CUDA: the launch fails with cudaErrorInvalidValue), unless e
 * frees them on launch (then they are freed, and 0). */
CUSIM_EXPORT int cusim_graph_exec_unfreed(cusim_graph_exec *e);
/* Replays e's nodes on s, attributed to corr (the launch's correlation id). */
CUSIM_EXPORT void cusim_graph_launch(cusim_graph_exec *e, cusim_stream *s, uint32_t corr);

/* ---- the tool hook (the simulated CUPTI attaches here) ------------------ */

/* Activity the device produced; all times are gpu ns. */
typedef struct cusim_kernel_activity {
    const cusim_kernel_desc *desc;
    uint64_t queued, submitted, start, end;
    uint32_t stream_id, correlation_id;
    uint32_t graph_id;       /* a graph's replay: the exec's graph id, else 0 */
    uint64_t graph_node_id;  /* and the node's id, else 0 */
} cusim_kernel_activity;

typedef struct cusim_copy_activity {
    int is_memset;       /* 1: memset, 0: memcpy */
    int copy_kind;       /* enum cusim_copy_kind (memcpy) */
    int src_mem, dst_mem;/* enum cusim_mem_kind */
    int value;           /* memset */
    uint64_t bytes, start, end;
    uint32_t stream_id, correlation_id;
    uint32_t graph_id;       /* as in cusim_kernel_activity */
    uint64_t graph_node_id;
    int is_async;            /* made by an *Async call or a graph replay (CUPTI's
                                MEMCPY_ASYNC / MEMSET_ASYNC flag, as on an H200) */
} cusim_copy_activity;

typedef struct cusim_sync_activity {
    int type;            /* CUpti_ActivitySynchronizationType */
    uint64_t start, end; /* host wait, on the device clock */
    uint32_t stream_id;  /* or UINT32_MAX */
    uint32_t correlation_id;
} cusim_sync_activity;

/* An allocation or release of memory the device can reach (CUPTI's MEMORY2
 * records): what the runtime's and driver's allocation calls hand out. */
typedef struct cusim_memory_activity {
    int release;             /* 0: allocation, 1: release */
    int mem_kind;            /* enum cusim_mem_kind */
    uint64_t address, bytes;
    uint64_t timestamp;      /* gpu ns (set by cusim_report_memory) */
    uint32_t correlation_id; /* the call's (set by cusim_report_memory) */
    uint32_t stream_id;      /* stream-ordered (cudaMallocAsync & co): the stream */
    int is_async;
    const void *pool;        /* stream-ordered: the pool, else NULL */
    int pool_is_default;     /* the device's default pool */
    uint64_t pool_threshold, pool_reserved, pool_used;
} cusim_memory_activity;

/* A memory pool created, destroyed or trimmed (CUPTI's MEMORY_POOL records). */
typedef struct cusim_pool_activity {
    int op;                  /* 0: created, 1: destroyed, 2: trimmed */
    const void *pool;
    uint64_t reserved, threshold, used, min_keep;
    uint64_t timestamp;      /* set by cusim_report_pool */
    uint32_t correlation_id;
} cusim_pool_activity;

/* Stamp a (time, the current call's correlation id) and give it to the tool. */
CUSIM_EXPORT void cusim_report_memory(cusim_memory_activity *a);
CUSIM_EXPORT void cusim_report_pool(cusim_pool_activity *a);

/* A graph or node came to be (CUPTI's resource callbacks). */
enum cusim_graph_what {
    CUSIM_GRAPH_NODE_CREATED = 0,   /* added, or captured, on the calling thread */
    CUSIM_GRAPH_NODE_CLONED = 1,    /* instantiation cloned original into node */
    CUSIM_GRAPH_EXEC_CREATED = 2,   /* graph instantiated into exec */
};
typedef struct cusim_graph_event {
    enum cusim_graph_what what;
    cusim_graph *graph;             /* the node's graph (CREATED), the source (EXEC) */
    cusim_graph_node *node;         /* CREATED, CLONED */
    cusim_graph_node *original;     /* CLONED: the node it copies */
    cusim_graph_exec *exec;         /* CLONED, EXEC_CREATED */
    int node_type;                  /* enum cusim_node_type */
} cusim_graph_event;

typedef struct cusim_tool_ops {
    void (*api_enter)(const cusim_api_call *c);
    void (*api_exit)(const cusim_api_call *c);
    void (*kernel)(const cusim_kernel_activity *a);
    void (*copy)(const cusim_copy_activity *a);
    void (*sync)(const cusim_sync_activity *a);
    void (*graph)(const cusim_graph_event *e);   /* may be NULL */
    void (*memory)(const cusim_memory_activity *a); /* may be NULL */
    void (*pool)(const cusim_pool_activity *a);     /* may be NULL */
} cusim_tool_ops;

/* Attaches (ops != NULL) or detaches the tool. The ops struct must outlive
 * the process. Hooks run on the thread doing the work and must not call back
 * into cusim_api_begin. */
CUSIM_EXPORT void cusim_tool_set(const cusim_tool_ops *ops);
/* Device clock override (CUPTI's RegisterTimestampCallback). Honoured only
 * when set before cusim_init() has finished, as the real CUPTI requires;
 * returns 0 if taken, -1 if too late. */
CUSIM_EXPORT int cusim_tool_set_timestamp_fn(uint64_t (*fn)(void));
/* 1 once cusim_init() has run (the driver is up). */
CUSIM_EXPORT int cusim_initialized(void);
/* A pointer's hash, for the sim's handle tables (the runtime's function
 * table, the graphs' live handles): spread over all bits. */
CUSIM_EXPORT uint64_t cusim_ptr_hash(const void *p);

#ifdef __cplusplus
}
#endif
#endif /* CUSIM_H */
