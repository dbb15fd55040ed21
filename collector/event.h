/*
 * event.h - the event ABI: what one recorded call looks like in memory. The
 * hooks (preload/) fill it through collector.h; the model (model/) reads it
 * at exit. This is the one collector header model/ may include: plain types,
 * no functions.
 */
#ifndef CUPROF_EVENT_H
#define CUPROF_EVENT_H

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
    /* NVTX (preload/nvtx.c): instants, t1 == t0, never a parent of a call.
     * The model pairs them into ranges (model/ranges.h). */
    CUPROF_EV_RANGE_PUSH = 10,  /* nvtxRangePush*: a.nvtx (name, domain) */
    CUPROF_EV_RANGE_POP = 11,   /* nvtxRangePop: a.nvtx (domain) */
    CUPROF_EV_RANGE_START = 12, /* nvtxRangeStart*: a.nvtx (name, domain, id) */
    CUPROF_EV_RANGE_END = 13,   /* nvtxRangeEnd: a.nvtx (id) */
    CUPROF_EV_MARK = 14,        /* nvtxMark*: a.nvtx (name, domain) */
    /* What a hook asks for a library call with no arguments kept that may run
     * CUDA work inside it (every cuBLAS/cuBLASLt entry point but the GEMMs:
     * preload/gen_lib_hooks.sh): it pushes its event id as CUPTI's external
     * id, as a GEMM does (cuBLAS's own runtime is linked in: no hook sees its
     * launches and copies), and is recorded as a CUPROF_EV_BLAS with no shape
     * (m, n and k 0: cuprof_ev_is_gemm tells them apart; records hold classes
     * 0..14: collector/compact.h). Never in a recorded event. */
    CUPROF_EV_LIB = 15,
    /* An NCCL collective, point-to-point call or group end: a.coll (run
     * file 3.0: the record's head says class 16 with CUPROF_HEAD_CLS_HI). It
     * pushes its event id for CUPTI as a cuBLAS call does. */
    CUPROF_EV_COLL = 16,
    /* A cuFFT, cuRAND, cuSPARSE or cuSOLVER call: a.math (run file 4.0:
     * class 17, CUPROF_HEAD_CLS_HI). Its arguments are what the hook kept
     * (preload/gen_lib_hooks.sh); the model joins a call that names only a
     * handle (a plan, a generator, a descriptor) to the call that made it
     * (model/mathlib.h). Set-up and queries: no CUPTI id pushed. */
    CUPROF_EV_MATH = 17,
    /* What a hook asks for a math-library call that may copy or launch: it
     * pushes its event id for CUPTI (the library's static runtime makes its
     * launches: no hook sees them) and is recorded as a CUPROF_EV_MATH.
     * Never in a recorded event. */
    CUPROF_EV_MATH_LIB = 18,
};

/* The math libraries (cuprof_event.a.math.lib). */
enum cuprof_math_lib {
    CUPROF_MATH_NONE = 0, CUPROF_MATH_FFT = 1, CUPROF_MATH_RAND = 2, CUPROF_MATH_SPARSE = 3,
    CUPROF_MATH_SOLVER = 4,
};

/* a.math.lib's flag: this call made the handle (or gave it its sizes):
 * the calls that use the handle are joined to it. */
#define CUPROF_MATH_MADE 0x80u
/* a.math.lib's flag: the call may copy or launch (its hook pushed its id for
 * CUPTI): the kernels-only matching gives it the library's work. */
#define CUPROF_MATH_WORK 0x40u
#define CUPROF_MATH_LIB_MASK 0x3fu

/* cuRAND's distributions (a.math.kind of a generate call). */
enum cuprof_math_dist {
    CUPROF_DIST_BITS = 1, CUPROF_DIST_UNIFORM = 2, CUPROF_DIST_NORMAL = 3, CUPROF_DIST_LOGNORMAL = 4,
    CUPROF_DIST_POISSON = 5,
};

/* a.math.kind of a dense cuSPARSE descriptor (cusparseFormat_t stops at 7). */
#define CUPROF_MATH_DENSE 0x80u

/* A cuBLAS/cuBLASLt GEMM call with its shape (every CUPROF_EV_BLAS event
 * today; the writers and the shape tables ask it, not the class alone). */
#define cuprof_ev_is_gemm(ev) ((ev)->cls == CUPROF_EV_BLAS && ((ev)->a.blas.m | (ev)->a.blas.n | (ev)->a.blas.k) != 0)

/* An NVTX event (push, pop, start, end, mark): an instant, not a call. */
static inline int cuprof_ev_is_nvtx(unsigned cls)
{
    return cls >= CUPROF_EV_RANGE_PUSH && cls <= CUPROF_EV_MARK;
}

/* Copy directions, as the tables name them. */
enum cuprof_dir {
    CUPROF_DIR_HTOH = 0, CUPROF_DIR_HTOD = 1, CUPROF_DIR_DTOH = 2, CUPROF_DIR_DTOD = 3,
    CUPROF_DIR_PTOP = 4, CUPROF_DIR_UNKNOWN = 5, CUPROF_DIR_MEMSET = 6,
};

/*
 * One recorded call: exactly 64 bytes, arguments included (one cache line;
 * no pointers to heap data, names and stacks are interned ids). The form a
 * hook fills and the model reads; while the program runs a call is kept in
 * a compact form (collector/compact.h) that keeps, per class, the member of
 * `a` the class names (nothing for CUPROF_EV_CALL).
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
            uint32_t grid_x;
            uint16_t grid_y, grid_z;  /* CUDA's limit for both is 65535 on every GPU
                                         (larger values are kept as 65535: the
                                         launch failed anyway, result says so) */
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
            uint64_t stream;   /* stream-ordered allocations and frees, else 0 */
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
        struct {
            uint32_t name;     /* string id (collector's string table), 0 = none */
            uint32_t domain;   /* string id of the domain's name, 0 = the default one */
            uint64_t id;       /* start/end ranges: the nvtxRangeId_t */
        } nvtx;
        struct {
            uint64_t count;    /* elements (each rank's send count for AllGather,
                                  its receive count for ReduceScatter, as passed) */
            uint64_t stream;
            uint64_t comm;     /* the communicator's id, the same on all its ranks
                                  (a hash of its ncclUniqueId), 0 = unknown */
            uint16_t rank;     /* this rank in it */
            uint16_t nranks;   /* its size, 0 = unknown */
            uint8_t dtype;     /* ncclDataType_t */
            uint8_t op;        /* ncclRedOp_t (reductions), else 0 */
            int16_t peer;      /* root (Broadcast, Reduce, Gather, Scatter) or peer
                                  (Send, Recv), -1 none */
        } coll;
        /* A math-library call's arguments, as its parameters name them
         * (preload/gen_lib_hooks.sh's rules; 0 = not a parameter of it).
         * FFT: a plan's dims (m, n, k: n[0], n[1], n[2]; rank = how many are
         *   nonzero), batch, type (kind: cufftType); an exec's direction
         *   (algo: 1 forward, 2 inverse).
         * RAND: a generator's rng type (kind: curandRngType_t); a generate's
         *   count (k), distribution (kind: enum cuprof_math_dist) and output
         *   type (dtype, from its name).
         * SPARSE: a descriptor's rows (m), cols (n), nnz (k), format (kind:
         *   cusparseFormat_t; CUPROF_MATH_DENSE for a dense matrix or vector),
         *   value type (dtype); legacy routines' m, n, nnz; a generic
         *   operation's algorithm (algo) and its second descriptor (k: B of
         *   SpMM/SpGEMM/SDDMM, x of SpMV/SpSV).
         * SOLVER: m, n (n alone for a square routine), nrhs (k), batch
         *   (batchSize), dtype where the routine has a cudaDataType parameter.
         * handle: the plan, generator or descriptor the call makes (read from
         * its out parameter once it returned) or uses. The model joins a call
         * that uses a handle to the call that made it by (lib, handle). */
        struct {
            uint64_t handle;
            uint64_t k;        /* a third dimension, nnz, count, or a second descriptor */
            uint32_t m, n;
            uint32_t batch;
            uint8_t lib;       /* enum cuprof_math_lib | CUPROF_MATH_MADE | CUPROF_MATH_WORK */
            uint8_t kind;      /* per library, above */
            uint8_t dtype;     /* cudaDataType_t + 1, 0 = not known */
            uint8_t algo;      /* per library, above */
        } math;
        uint64_t raw[4];
    } a;
    uint32_t stack;  /* host call stack id (collector/stacks.h, --stacks), 0 = none */
    uint32_t name;   /* a string id the call names, 0 = none: the symbol a
                        cuGetProcAddress or cudaGetDriverEntryPoint* asked for */
} cuprof_event;

_Static_assert(sizeof(cuprof_event) == 64, "cuprof_event must stay 64 bytes");

/* Length of an NVTX range name without a "#digits" suffix (PyTorch numbers
 * its steps: ProfilerStep#12 is a "ProfilerStep"). The one place the rule
 * is written: the capture window (collector/capture.c) and the steps
 * (model/steps.c) both match names by it. */
static inline size_t cuprof_nvtx_base_len(const char *name)
{
    size_t n = 0, k;
    while (name[n])
        n++;
    for (k = n; k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9'; k--)
        ;
    return k > 0 && k < n && name[k - 1] == '#' ? k - 1 : n;
}

/* Describes one interposed entry point; preload/ owns the table. */
typedef struct cuprof_api_desc {
    const char *name;      /* entry point, e.g. "__cudaLaunchKernel" */
    const char *category;  /* "cuda_runtime", "cublas", "cublaslt" */
} cuprof_api_desc;

/*
 * Event ids: the thread's index (1-based registration order) in the high
 * bits, the event's sequence number on that thread + 1 in the low
 * CUPROF_EVENT_ID_SEQ_BITS. Unique in the process, never 0, decodable back
 * to the slot without any table. Used as CUPTI's external correlation id.
 * These three are the only places the layout is written down.
 */
#define CUPROF_EVENT_ID_SEQ_BITS 40

/* Id of event seq (0-based) of the thread with this index. */
static inline uint64_t cuprof_event_id_make(uint32_t thread_index, uint64_t seq)
{
    return ((uint64_t)thread_index << CUPROF_EVENT_ID_SEQ_BITS) | (seq + 1);
}

/* Thread index an id names. */
static inline uint32_t cuprof_event_id_thread(uint64_t id)
{
    return (uint32_t)(id >> CUPROF_EVENT_ID_SEQ_BITS);
}

/* 0-based sequence number an id names; UINT64_MAX for an id with none. */
static inline uint64_t cuprof_event_id_seq(uint64_t id)
{
    return (id & ((1ull << CUPROF_EVENT_ID_SEQ_BITS) - 1)) - 1;
}

#endif /* CUPROF_EVENT_H */
