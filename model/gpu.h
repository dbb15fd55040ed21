/*
 * gpu.h - the GPU side of a recorded run, as collector/cupti.c leaves it after
 * cuprof_cupti_finish(): kernels, copies, memsets, runtime-API calls and
 * synchronizations from CUPTI, normalized: the model's second input.
 *
 * Normalized means:
 *  - every timestamp is on the host clock (CLOCK_MONOTONIC ns, the clock of
 *    cuprof_event.t0/t1), whatever clock CUPTI used; 0 stays 0 ("unknown");
 *  - every record carries its CUPTI correlation id and the external id of the
 *    interposed call that caused it (cuprof_event_id of that call), or 0 when
 *    no hooked call was open (work inside cuBLAS started outside any hook, a
 *    program linked with static cudart, CUPTI's own calls);
 *  - each array is sorted by start time (ties by correlation id), and the
 *    correlation -> external map by correlation id;
 *  - strings are owned by the run and live until the process exits.
 * Nothing here depends on CUDA headers. Functions in model/gpu.c.
 */
#ifndef CUPROF_GPU_H
#define CUPROF_GPU_H

#include "collector/runfile_types.h"   /* copy and memory kinds */

#include <stddef.h>
#include <stdint.h>

/* Synchronization types (values of CUpti_ActivitySynchronizationType). */
enum cuprof_gpu_sync_type {
    CUPROF_GPU_SYNC_UNKNOWN = 0,
    CUPROF_GPU_SYNC_EVENT = 1,        /* cudaEventSynchronize */
    CUPROF_GPU_SYNC_STREAM_WAIT = 2,  /* cudaStreamWaitEvent */
    CUPROF_GPU_SYNC_STREAM = 3,       /* cudaStreamSynchronize */
    CUPROF_GPU_SYNC_CONTEXT = 4,      /* cudaDeviceSynchronize / cuCtxSynchronize */
};

/* Stream / event id CUPTI uses when a record has none. */
#define CUPROF_GPU_NO_STREAM UINT32_MAX
#define CUPROF_GPU_NO_EVENT UINT32_MAX

/* A kernel's launch configuration, kept once for the records that share it
 * (a run launches few of them). The block's dimensions (at most 1024) and
 * the registers (at most 255) fit 16 bits. */
typedef struct cuprof_gpu_launch_cfg {
    uint32_t grid[3];       /* grid dimensions */
    uint32_t static_smem;   /* static shared memory per block, bytes */
    uint32_t dynamic_smem;  /* dynamic shared memory per block, bytes */
    uint16_t block[3];      /* block dimensions */
    uint16_t registers;     /* registers per thread */
} cuprof_gpu_launch_cfg;

/* One kernel execution on the device. 64 bytes (the report holds one a
 * launch: issue 40); its configuration by index (cuprof_gpu_cfg). */
typedef struct cuprof_gpu_kernel {
    uint64_t start_ns;      /* host clock: kernel began on the device */
    uint64_t end_ns;        /* host clock: kernel finished */
    uint64_t ext;           /* external id of the causing call, 0 = none */
    const char *name;       /* device (mangled) name, owned by the run, never NULL */
    uint64_t graph_node_id; /* a graph's replay: the node's id (an instantiation's clone) */
    uint32_t corr;          /* CUPTI correlation id (of the launching API call) */
    uint32_t context;       /* CUPTI context id */
    uint32_t stream;        /* CUPTI stream id */
    uint32_t graph_id;      /* a graph's replay: the exec's graph id, else 0 */
    uint32_t cfg;           /* its configuration: run->cfgs[cfg]; 0 (or none there): all 0 */
    uint16_t device;        /* device ordinal */
    uint8_t device_launched;/* 1 when launched from the device (CDP) */
    uint8_t graph;          /* 1 when part of a CUDA graph */
} cuprof_gpu_kernel;
_Static_assert(sizeof(cuprof_gpu_kernel) == 64, "a kernel record is 64 bytes");

/* One memcpy or memset on the device. */
typedef struct cuprof_gpu_copy {
    uint64_t start_ns;      /* host clock */
    uint64_t end_ns;        /* host clock */
    uint64_t bytes;         /* bytes copied or set */
    uint64_t ext;           /* external id of the causing call, 0 = none */
    uint32_t corr;          /* CUPTI correlation id */
    uint32_t device;        /* device ordinal (the destination's for peer copies) */
    uint32_t context;       /* CUPTI context id */
    uint32_t stream;        /* CUPTI stream id */
    uint8_t kind;           /* enum cuprof_gpu_copy_kind */
    uint8_t src_mem;        /* enum cuprof_gpu_mem (UNKNOWN for memsets) */
    uint8_t dst_mem;        /* enum cuprof_gpu_mem */
    uint8_t async;          /* 1 when the host did not wait for it */
    uint32_t value;         /* memset: the byte value */
    uint32_t graph_id;      /* as in cuprof_gpu_kernel */
    uint64_t graph_node_id;
} cuprof_gpu_copy;

/* A CUDA graph node as CUPTI's resource callbacks told of it: created (by
 * an API call, or captured from one) or cloned by an instantiation. */
typedef struct cuprof_gpu_graph_node {
    uint64_t id;            /* cuptiGetGraphNodeId */
    uint64_t original;      /* a clone: its original node's id; else 0 */
    uint64_t origin;        /* created: event id of the outermost hooked call open
                               on the creating thread (the captured call), 0 none */
    uint32_t graph;         /* the id of the graph it belongs to */
} cuprof_gpu_graph_node;

/* One runtime- or driver-API call as CUPTI saw it (hooked or not). Of the
 * driver API only launches, copies and memsets are kept (what cuBLAS 13
 * and Triton launch with). 48 bytes (the report holds one a launch: issue
 * 40); CUPTI's callback ids fit 16 bits (the largest, 13.0's, is under 1000). */
typedef struct cuprof_gpu_api {
    uint64_t start_ns;      /* host clock: entry */
    uint64_t end_ns;        /* host clock: return */
    uint64_t ext;           /* external id of the innermost interposed call
                             * open around it, 0 = none. That call is either
                             * this one (the hook's entry point has this name)
                             * or one that made it inside (cublasGemmEx ->
                             * cudaLaunchKernel): only the first is a call a
                             * hook saw; the others belong in the CPU lane
                             * under it. */
    const char *name;       /* from the cbid, e.g. "cudaLaunchKernel",
                             * "cuLaunchKernelEx"; never NULL */
    uint32_t corr;          /* CUPTI correlation id */
    uint32_t thread_id;     /* OS thread id (gettid) of the caller */
    int32_t result;         /* cudaError_t returned */
    uint16_t cbid;          /* CUPTI_RUNTIME_TRACE_CBID_*, or _DRIVER_ when driver */
    uint8_t is_launch;      /* launches device work with its correlation id */
    uint8_t driver;         /* 1: a driver-API call (cbid is a driver cbid) */
} cuprof_gpu_api;
_Static_assert(sizeof(cuprof_gpu_api) == 48, "an API record is 48 bytes");

/* One host-side wait CUPTI recorded. */
typedef struct cuprof_gpu_sync {
    uint64_t start_ns;      /* host clock */
    uint64_t end_ns;        /* host clock */
    uint64_t ext;           /* external id of the causing call, 0 = none */
    uint32_t corr;          /* CUPTI correlation id of the API call */
    uint32_t context;       /* CUPTI context id */
    uint32_t stream;        /* CUPTI stream id or CUPROF_GPU_NO_STREAM */
    uint32_t event;         /* CUPTI CUDA event id or CUPROF_GPU_NO_EVENT */
    uint8_t type;           /* enum cuprof_gpu_sync_type */
} cuprof_gpu_sync;

/* correlation id -> external id: every record CUPTI made while one of our
 * external ids was pushed on the calling thread (the innermost one). */
typedef struct cuprof_gpu_extmap {
    uint32_t corr;          /* CUPTI correlation id */
    uint64_t ext;           /* cuprof_event_id of the interposed call */
} cuprof_gpu_extmap;

/* How CUPTI timestamps were put on the host clock. */
enum cuprof_gpu_clock {
    CUPROF_GPU_CLOCK_NONE = 0,     /* not captured */
    CUPROF_GPU_CLOCK_CALLBACK = 1, /* CUPTI called our clock (timestamp callback) */
    CUPROF_GPU_CLOCK_OFFSET = 2,   /* CUPTI's clock, shifted by a measured offset */
};

/* The whole GPU side of the run. Arrays are NULL when their count is 0. */
/* A GPU as CUPTI described it (its DEVICE record; run file 4.0). */
typedef struct cuprof_gpu_device {
    uint32_t id;                   /* CUDA's device ordinal (records' deviceId) */
    const char *name;              /* "NVIDIA H100 80GB HBM3" */
    uint32_t sms;                  /* multiprocessors */
    uint32_t clock_khz;            /* core clock */
    uint32_t cc_major, cc_minor;   /* compute capability */
    uint64_t mem_bytes;            /* device memory */
    uint64_t mem_bw_kbps;          /* device memory bandwidth, KB/s, as CUPTI gives it */
    uint64_t l2_bytes;
    int mig;                       /* 1: a MIG instance */
} cuprof_gpu_device;

typedef struct cuprof_gpu_run {
    int captured;                  /* 1 when CUPTI ran (records may still be 0) */
    int kernels_only;              /* 1: kernel, memcpy and memset records only (no API
                                      records, no external ids): model/kmatch.h */
    const char *status;            /* one line for the header, never NULL */
    const cuprof_gpu_kernel *kernels; size_t n_kernels;
    const cuprof_gpu_launch_cfg *cfgs; size_t n_cfgs;  /* the kernels' configurations:
                                                          [0] all 0 */
    const cuprof_gpu_copy *copies;    size_t n_copies;  /* memsets included */
    const cuprof_gpu_api *apis;       size_t n_apis;
    const cuprof_gpu_sync *syncs;     size_t n_syncs;
    const cuprof_gpu_extmap *extmap;  size_t n_extmap;
    const cuprof_gpu_graph_node *graph_nodes; size_t n_graph_nodes;  /* by id */
    const cuprof_gpu_device *devices; size_t n_devices;  /* by id, one per id */
    uint64_t dropped;              /* records CUPTI dropped (no buffer space) */
    uint64_t late;                 /* records delivered after finish, not kept */
    int clock;                     /* enum cuprof_gpu_clock */
    int64_t clock_offset_ns;       /* host = cupti + offset (at start; 0 with CALLBACK) */
    uint64_t clock_error_ns;       /* half-width of the offset measurement */
} cuprof_gpu_run;

/* The launch configuration of kernel k of g (all 0 when g has none for it). */
static inline const cuprof_gpu_launch_cfg *cuprof_gpu_cfg(const cuprof_gpu_run *g,
                                                         const cuprof_gpu_kernel *k)
{
    static const cuprof_gpu_launch_cfg none;
    return g && k->cfg < g->n_cfgs ? &g->cfgs[k->cfg] : &none;
}

/* External id for a correlation id, 0 if none. O(log n). */
uint64_t cuprof_gpu_ext_of(const cuprof_gpu_run *run, uint32_t corr);
/* The same in a map m[0..n) sorted by corr (while the run is being built). */
uint64_t cuprof_gpu_extmap_find(const cuprof_gpu_extmap *m, size_t n, uint32_t corr);

/* Names for tables: "HtoD", "DtoH", ..., "Memset"; "pageable", "pinned",
 * "device", ...; "stream sync", ...  Never NULL. */
const char *cuprof_gpu_copy_kind_name(int kind);
const char *cuprof_gpu_mem_name(int mem);
const char *cuprof_gpu_sync_name(int type);
/* A copy or memset record as the traces name it: "Memcpy HtoD (pageable ->
 * device)", "Memset (device)". Writes into buf; returns buf. */
const char *cuprof_gpu_copy_label(const cuprof_gpu_copy *c, char *buf, size_t len);

#endif /* CUPROF_GPU_H */
