/*
 * collector.h - what preload/ (the hooks) may call: the event record, the
 * per-thread recording API, the kernel-name table and the API table.
 *
 * The collector is the only module with global state. Hooks know CUDA
 * signatures; they translate a call into one fixed-size cuprof_event in the
 * collector's vocabulary (a launch, a copy, a BLAS call, ...) and nothing else.
 * formats/ reads the recorded run at exit and knows nothing about CUDA calls.
 */
#ifndef CUPROF_COLLECTOR_H
#define CUPROF_COLLECTOR_H

#include <stddef.h>
#include <stdint.h>

/* What a recorded call is, for the tables (not which entry point: see api). */
enum cuprof_ev_class {
    CUPROF_EV_CALL = 0,      /* any other call: no arguments kept */
    CUPROF_EV_LAUNCH = 1,    /* kernel launch: a.launch */
    CUPROF_EV_COPY = 2,      /* memcpy of any shape: a.copy */
    CUPROF_EV_MEMSET = 3,    /* a.copy (dir = CUPROF_DIR_MEMSET) */
    CUPROF_EV_ALLOC = 4,     /* a.mem */
    CUPROF_EV_FREE = 5,      /* a.mem (bytes as allocated, 0 if unknown) */
    CUPROF_EV_SYNC = 6,      /* device/stream/event synchronize: a.sync */
    CUPROF_EV_OCCUPANCY = 7, /* occupancy query: a.occ */
    CUPROF_EV_BLAS = 8,      /* cuBLAS/cuBLASLt GEMM: a.blas */
    CUPROF_EV_EVENT = 9,     /* cudaEventRecord / cudaStreamWaitEvent: a.sync */
};

/* Copy directions, as the tables name them. */
enum cuprof_dir {
    CUPROF_DIR_HTOH = 0, CUPROF_DIR_HTOD = 1, CUPROF_DIR_DTOH = 2, CUPROF_DIR_DTOD = 3,
    CUPROF_DIR_PTOP = 4, CUPROF_DIR_UNKNOWN = 5, CUPROF_DIR_MEMSET = 6,
};

/*
 * One recorded call: exactly 64 bytes, arguments included (one cache line;
 * no pointers to heap data, names are interned ids).
 */
typedef struct cuprof_event {
    uint64_t t0;     /* host clock at entry (cuprof_clock_now) */
    uint64_t t1;     /* host clock at return */
    uint16_t api;    /* index in the API table (cuprof_api_register) */
    uint8_t depth;   /* nesting depth on this thread at entry, 0 = outermost */
    uint8_t cls;     /* enum cuprof_ev_class */
    int32_t result;  /* the call's return value (cudaError_t, cublasStatus_t) */
    union {
        struct {
            uint32_t kernel;   /* kernel-name id (cuprof_kernel_*), 0 = unknown */
            uint32_t grid[3];
            uint16_t block[3];
            uint16_t _pad;
            uint32_t smem;     /* dynamic shared memory, bytes */
            uint64_t stream;   /* cudaStream_t value as passed (ptsz noted by api) */
        } launch;
        struct {
            uint64_t bytes;
            uint64_t stream;
            uint8_t dir;       /* enum cuprof_dir, cudaMemcpyDefault resolved */
            uint8_t async;     /* 1 for the *Async variants */
        } copy;
        struct {
            uint64_t bytes;
            uint64_t ptr;
        } mem;
        struct {
            uint64_t stream;   /* or event handle for event syncs */
        } sync;
        struct {
            uint32_t kernel;   /* kernel-name id */
            int32_t block_size;
            uint64_t smem;
            int32_t answer;    /* blocks per SM the call returned */
        } occ;
        struct {
            uint32_t m, n, k, batch;
            uint8_t transa, transb; /* 0 = N, 1 = T, 2 = C */
            uint8_t atype, ctype;   /* cudaDataType_t */
            uint16_t compute;       /* cublasComputeType_t */
            uint16_t epilogue;      /* cublasLtEpilogue_t, 0 for cuBLAS */
            uint8_t beta_nonzero;   /* 1 when beta != 0 (known for host-side beta) */
        } blas;
        uint64_t raw[5];
    } a;
} cuprof_event;

_Static_assert(sizeof(cuprof_event) == 64, "cuprof_event must stay 64 bytes");

/* Describes one interposed entry point; preload/ owns the table. */
typedef struct cuprof_api_desc {
    const char *name;      /* entry point, e.g. "__cudaLaunchKernel" */
    const char *category;  /* "cuda_runtime", "cublas", "cublaslt" */
} cuprof_api_desc;

/* Registers preload's API table once (before the first cuprof_begin); the
 * table must outlive the process. Event.api indexes it. */
void cuprof_api_register(const cuprof_api_desc *table, size_t n);

/*
 * Opens a call on this thread: reserves the next event slot, stamps t0 and
 * depth, sets api and cls, and returns the slot for the hook to fill in
 * arguments. Returns NULL when this call must not be recorded (the profiler's
 * own call into CUDA, recording off, out of memory): the hook then just calls
 * the real function. Lock-free: touches only this thread's buffer.
 */
cuprof_event *cuprof_begin(uint16_t api, uint8_t cls);
/* Closes the call opened by cuprof_begin: stamps t1 and result. ev may be
 * NULL (then it does nothing). */
void cuprof_end(cuprof_event *ev, int32_t result);
/* Event id of a slot from cuprof_begin: unique in the process, never 0; used
 * as CUPTI's external correlation id. */
uint64_t cuprof_event_id(const cuprof_event *ev);

/* The profiler's own calls into CUDA (e.g. resolving a cudaMemcpyDefault
 * direction) are bracketed by these so they are not recorded:
 *     int g = cuprof_guard_enter(); ...real call...; cuprof_guard_leave(g); */
int cuprof_guard_enter(void);
void cuprof_guard_leave(int saved);
/* The same for the profiler's own calls CUPTI sees (runtime API calls such
 * as cudaPointerGetAttributes): also marks CUPTI's records of them as ours,
 * so the GPU timeline drops them instead of showing program calls. Costs a
 * CUPTI push/pop while CUPTI runs: not for hot paths. */
int cuprof_own_cuda_enter(void);
void cuprof_own_cuda_leave(int saved);

/* Kernel-name table. register: from __cudaRegisterFunction (host stub and
 * device name, which the table copies); handle: from __cudaGetKernel, binds a
 * cudaKernel_t to the stub it came from. lookup works with either a stub or a
 * handle and returns the name id, or 0 if unknown. Lock-free lookups. */
void cuprof_kernel_register(const void *host_fn, const char *device_name);
void cuprof_kernel_handle(const void *handle, const void *host_fn);
uint32_t cuprof_kernel_lookup(const void *host_fn_or_handle);

/* Starts the collector (reads CUPROF_* once, installs the exit path).
 * Idempotent and safe from any thread or constructor; every hook calls it
 * through cuprof_begin, the library's constructor calls it too. */
void cuprof_collector_init(void);

#endif /* CUPROF_COLLECTOR_H */
