/*
 * nccl.c - the simulated NCCL: libnccl.so.2 with the real library's export
 * names and version (2.28.9), for programs built against the toolkit's
 * nccl.h.
 *
 * What it does, as the real NCCL 2.28 does it under CUPTI (bench/H200.md,
 * tests/fixtures/h200-580.159.04/nccl1.*):
 *  - a communicator of one rank runs each collective as device copies
 *    (cudaMemcpyAsync, device to device, traced as the runtime call the
 *    real library's static cudart makes), made by the call itself even
 *    inside a group: no kernel;
 *  - a communicator of several ranks runs each collective as one kernel,
 *    named as NCCL 2.28 names them (ncclDevKernel_AllReduce_Sum_f32_RING_LL),
 *    launched with cuLaunchKernelEx (a driver-API record, as its static
 *    runtime makes it); inside ncclGroupStart/End the kernels are launched
 *    at ncclGroupEnd, one per call;
 *  - a kernel takes the modelled time of its bus traffic: nccl-tests' bus
 *    bytes over CUSIM_NCCL_BUS_GBPS (default 100 GB/s), plus
 *    CUSIM_NCCL_LATENCY_US (default 8 us).
 *
 * Also: ranks in other processes meet at each collective (a late rank
 * stretches the others' kernels), the profiler plugin is loaded and called
 * for collective events, and each API call is an NVTX range in the domain
 * "NCCL" with NCCL's payload (nccl_nvtx.c).
 *
 * Not modelled yet (tests/sim/README.md): the plugin's other events,
 * ncclCommSplit's grouping by color (the new communicator keeps the
 * parent's rank and size), and the entry points below the ones defined
 * here.
 */
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cupti_driver_cbid.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <cupti_runtime_cbid.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "cusim.h"
#include "nccl_nvtx.h"

#define EXPORT __attribute__((visibility("default")))
#define COMM_MAGIC 0x6e63636c636f6d6dull   /* "ncclcomm" */

/* Where the ranks of a communicator in different processes (or threads)
 * meet: a shared-memory file named by the ncclUniqueId's hash. Each rank
 * writes, for its k-th collective, its arrival (host clock: CLOCK_MONOTONIC
 * is one clock for every process of the machine) in slot k % MEET_SLOTS; a
 * rank waits in its call until every rank's slot says k (a rank passes k
 * only when all arrived at k, so a slot is never overwritten early). */
#define MEET_SLOTS 64
#define MEET_RANKS 64
typedef struct meet_slot {
    _Atomic uint64_t seq1;   /* k + 1 once this rank arrived at its k-th collective */
    _Atomic uint64_t t;      /* when (host ns) */
} meet_slot;
typedef struct meet_shm {
    meet_slot slot[MEET_SLOTS][MEET_RANKS];
} meet_shm;

/* ---- the profiler plugin (NCCL_PROFILER_PLUGIN), version 5 ---------------------------
 * Laid out as NCCL's documented ext-profiler/example/nccl/profiler_v5.h: the
 * sim loads the plugin as NCCL 2.28 does and calls it where NCCL does for
 * collective events (at enqueue: inside the call, or its ncclGroupEnd). */
enum { PROFILE_COLL = 1 << 1, PROFILE_P2P = 1 << 2 };
typedef struct {
    uint64_t type;
    void *parentObj;
    int rank;
    union {
        struct {
            uint64_t seqNumber;
            const char *func;
            void const *sendBuff;
            void *recvBuff;
            size_t count;
            int root;
            const char *datatype;
            uint8_t nChannels;
            uint8_t nWarps;
            const char *algo;
            const char *proto;
            void *parentGroup;
        } coll;
        struct { const char *func; void *buff; const char *datatype; size_t count; int peer; uint8_t nChannels; void *parentGroup; } p2p;
        char pad[96];
    };
} prof_descr;
typedef void (*prof_logger)(int, unsigned long, const char *, int, const char *, ...);
typedef struct {
    const char *name;
    ncclResult_t (*init)(void **context, uint64_t commId, int *mask, const char *commName, int nNodes, int nranks,
                         int rank, prof_logger logfn);
    ncclResult_t (*startEvent)(void *context, void **handle, prof_descr *d);
    ncclResult_t (*stopEvent)(void *handle);
    ncclResult_t (*recordEventState)(void *handle, int state, void *args);
    ncclResult_t (*finalize)(void *context);
} prof_v5;

static const prof_v5 *profiler;
static pthread_once_t profiler_once = PTHREAD_ONCE_INIT;

static void profiler_load(void)
{
    const char *n = getenv("NCCL_PROFILER_PLUGIN");
    if (!n || !*n)
        return;
    char lib[4096];
    if (strchr(n, '/') || strstr(n, ".so"))
        snprintf(lib, sizeof lib, "%s", n);
    else
        snprintf(lib, sizeof lib, "libnccl-profiler-%s.so", n);
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (h)
        profiler = dlsym(h, "ncclProfiler_v5");
}

static void no_log(int level, unsigned long flags, const char *file, int line, const char *fmt, ...)
{
    (void)level, (void)flags, (void)file, (void)line, (void)fmt;
}

struct ncclComm {
    uint64_t magic;
    int nranks, rank, device;
    ncclUniqueId id;
    meet_shm *meet;          /* NULL: no meeting (one rank, ncclCommInitAll, no shm) */
    char meet_name[64];      /* its shm name, unlinked when the rank leaves */
    uint64_t seq;            /* collectives so far on this rank */
    void *prof_ctx;          /* the profiler plugin's context, NULL without one */
    int prof_mask;
    uint64_t prof_seq;       /* its per-communicator sequence number */
    uint64_t hash;           /* the communicator's id: its ncclUniqueId's hash (the
                                plugin's commId, NVTX's "NCCL communicator ID") */
};

/* ---- errors, version ------------------------------------------------------------------ */

static __thread char last_error[256];

EXPORT const char *ncclGetErrorString(ncclResult_t r)
{
    switch (r) {
    case ncclSuccess: return "no error";
    case ncclUnhandledCudaError: return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
    case ncclSystemError: return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
    case ncclInternalError: return "internal error - please report this issue to the NCCL developers";
    case ncclInvalidArgument: return "invalid argument (run with NCCL_DEBUG=WARN for details)";
    case ncclInvalidUsage: return "invalid usage (run with NCCL_DEBUG=WARN for details)";
    case ncclRemoteError: return "remote process exited or there was a network error";
    case ncclInProgress: return "NCCL operation in progress";
    default: return "unknown result code";
    }
}

EXPORT const char *ncclGetLastError(ncclComm_t comm)
{
    (void)comm;
    return last_error;
}

static ncclResult_t fail(ncclResult_t r, const char *what)
{
    snprintf(last_error, sizeof last_error, "%s", what);
    return r;
}

EXPORT ncclResult_t ncclGetVersion(int *version)
{
    if (!version)
        return fail(ncclInvalidArgument, "ncclGetVersion: version is NULL");
    *version = NCCL_VERSION_CODE;
    return ncclSuccess;
}

/* ---- communicators ---------------------------------------------------------------------- */

static ncclResult_t unique_id(ncclUniqueId *uniqueId);

EXPORT ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId)
{
    return unique_id(uniqueId);
}

/* (called inside the library too: never through the exported symbol, which
 * a profiler may interpose, as the real library's internal calls are not) */
static ncclResult_t unique_id(ncclUniqueId *uniqueId)
{
    static _Atomic unsigned k;
    if (!uniqueId)
        return fail(ncclInvalidArgument, "ncclGetUniqueId: uniqueId is NULL");
    memset(uniqueId, 0, sizeof *uniqueId);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(uniqueId->internal, sizeof uniqueId->internal, "cusim-nccl %ld %ld.%09ld %u",
             (long)getpid(), (long)ts.tv_sec, ts.tv_nsec, atomic_fetch_add(&k, 1));
    return ncclSuccess;
}

static ncclResult_t make_comm(ncclComm_t *out, int nranks, int rank, const ncclUniqueId *id)
{
    if (!out || nranks < 1 || rank < 0 || rank >= nranks)
        return fail(ncclInvalidArgument, "invalid communicator size or rank");
    struct ncclComm *c = calloc(1, sizeof *c);
    if (!c)
        return fail(ncclSystemError, "out of memory");
    c->magic = COMM_MAGIC;
    c->nranks = nranks;
    c->rank = rank;
    c->device = 0;   /* (not asked of cudart: the real library's static one is not hooked) */
    if (id)
        c->id = *id;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < sizeof c->id.internal; i++)
        h = (h ^ (unsigned char)c->id.internal[i]) * 1099511628211ull;
    c->hash = h;
    pthread_once(&profiler_once, profiler_load);
    if (profiler && profiler->init) {
        if (profiler->init(&c->prof_ctx, h, &c->prof_mask, "", 1, nranks, rank, no_log) != ncclSuccess)
            c->prof_ctx = NULL, c->prof_mask = 0;
    }
    *out = c;
    return ncclSuccess;
}

static int comm_ok(ncclComm_t c)
{
    return c != NULL && c->magic == COMM_MAGIC;
}

/* The communicator's meeting file, mapped (NULL when it cannot be). */
static meet_shm *meet_open(const ncclUniqueId *id, char name[64])
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < sizeof id->internal; i++)
        h = (h ^ (unsigned char)id->internal[i]) * 1099511628211ull;
    snprintf(name, 64, "/cusim-nccl-%016llx", (unsigned long long)h);
    int fd = shm_open(name, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return NULL;
    meet_shm *m = NULL;
    if (ftruncate(fd, sizeof *m) == 0) {
        void *p = mmap(NULL, sizeof *m, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        m = p == MAP_FAILED ? NULL : p;
    }
    close(fd);
    return m;
}

/* Rank `me` arrives at its k-th collective at `now`; returns when the last
 * rank arrived (host ns), waiting for it (CUSIM_NCCL_WAIT_S, default 30 s:
 * then as if the missing ranks had come now). */
static uint64_t meet(ncclComm_t c, uint64_t now)
{
    uint64_t k = c->seq++;
    meet_slot *row = c->meet->slot[k % MEET_SLOTS];
    atomic_store(&row[c->rank].t, now);
    atomic_store_explicit(&row[c->rank].seq1, k + 1, memory_order_release);
    const char *w = getenv("CUSIM_NCCL_WAIT_S");
    double wait_s = w && *w ? strtod(w, NULL) : 30.0;
    uint64_t deadline = now + (uint64_t)(wait_s * 1e9), last = now;
    for (int j = 0; j < c->nranks; j++) {
        while (atomic_load_explicit(&row[j].seq1, memory_order_acquire) < k + 1 && cusim_host_ns() < deadline) {
            struct timespec nap = {0, 20000};
            nanosleep(&nap, NULL);
        }
        uint64_t t = atomic_load_explicit(&row[j].seq1, memory_order_acquire) >= k + 1
                         ? atomic_load(&row[j].t) : cusim_host_ns();
        if (t > last)
            last = t;
    }
    return last;
}

/* A rank of a communicator whose other ranks may be other processes: they
 * meet at each collective (ncclCommInitAll's ranks, all on one thread, do not). */
static ncclResult_t make_meeting_comm(ncclComm_t *comm, int nranks, int rank, const ncclUniqueId *id)
{
    ncclResult_t r = make_comm(comm, nranks, rank, id);
    if (r == ncclSuccess && id && nranks > 1 && nranks <= MEET_RANKS)
        (*comm)->meet = meet_open(id, (*comm)->meet_name);
    return r;
}

/* make_meeting_comm inside func's NVTX range, with the communicator's
 * payload (its id: the unique id's hash, as make_comm computes it). */
static ncclResult_t init_ranged(const char *func, ncclComm_t *comm, int nranks, int rank, const ncclUniqueId *id)
{
    nvtx_comm_init_rank pl = {0, nranks, rank, 0};
    if (id) {
        uint64_t h = 1469598103934665603ull;
        for (size_t i = 0; i < sizeof id->internal; i++)
            h = (h ^ (unsigned char)id->internal[i]) * 1099511628211ull;
        pl.comm = h;
    }
    sim_nccl_nvtx_push(func, SID_COMM_INIT_RANK, &pl, sizeof pl);
    ncclResult_t r = make_meeting_comm(comm, nranks, rank, id);
    sim_nccl_nvtx_pop();
    return r;
}

EXPORT ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank)
{
    return init_ranged("ncclCommInitRank", comm, nranks, rank, &commId);
}

EXPORT ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank,
                                           ncclConfig_t *config)
{
    (void)config;
    return init_ranged("ncclCommInitRankConfig", comm, nranks, rank, &commId);
}

EXPORT ncclResult_t ncclCommInitRankScalable(ncclComm_t *newcomm, int nranks, int myrank, int nId,
                                             ncclUniqueId *commIds, ncclConfig_t *config)
{
    (void)config;
    return init_ranged("ncclCommInitRankScalable", newcomm, nranks, myrank, nId > 0 ? commIds : NULL);
}

EXPORT ncclResult_t ncclCommInitAll(ncclComm_t *comms, int ndev, const int *devlist)
{
    (void)devlist;
    if (!comms || ndev < 1)
        return fail(ncclInvalidArgument, "ncclCommInitAll: no communicators asked for");
    ncclUniqueId id;
    unique_id(&id);
    for (int i = 0; i < ndev; i++) {
        ncclResult_t r = make_comm(&comms[i], ndev, i, &id);
        if (r != ncclSuccess)
            return r;
    }
    return ncclSuccess;
}

EXPORT ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm,
                                  ncclConfig_t *config)
{
    (void)key;
    (void)config;
    if (!comm_ok(comm) || !newcomm)
        return fail(ncclInvalidArgument, "ncclCommSplit: invalid communicator");
    if (color == NCCL_SPLIT_NOCOLOR) {
        *newcomm = NULL;
        return ncclSuccess;
    }
    return make_comm(newcomm, comm->nranks, comm->rank, &comm->id);
}

static ncclResult_t end_comm(ncclComm_t comm, int free_it)
{
    if (!comm_ok(comm))
        return fail(ncclInvalidArgument, "invalid communicator");
    if (free_it) {
        if (profiler && comm->prof_ctx && profiler->finalize)
            profiler->finalize(comm->prof_ctx);
        if (comm->meet) {   /* (the ranks still in it keep their mapping) */
            munmap(comm->meet, sizeof *comm->meet);
            shm_unlink(comm->meet_name);
        }
        comm->magic = 0;
        free(comm);
    }
    return ncclSuccess;
}

/* end_comm inside func's NVTX range (sid SID_NONE: no payload). */
static ncclResult_t end_ranged(const char *func, enum nccl_sid sid, ncclComm_t comm, int free_it)
{
    nvtx_comm_init_rank pl = {0, 0, 0, 0};
    if (comm_ok(comm))
        pl = (nvtx_comm_init_rank){comm->hash, comm->nranks, comm->rank, comm->device};
    sim_nccl_nvtx_push(func, sid, &pl, sizeof pl);
    ncclResult_t r = end_comm(comm, free_it);
    sim_nccl_nvtx_pop();
    return r;
}

EXPORT ncclResult_t ncclCommFinalize(ncclComm_t comm) { return end_ranged("ncclCommFinalize", SID_NONE, comm, 0); }
EXPORT ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
    return end_ranged("ncclCommDestroy", SID_COMM_DESTROY, comm, 1);
}
EXPORT ncclResult_t ncclCommAbort(ncclComm_t comm) { return end_ranged("ncclCommAbort", SID_COMM_ABORT, comm, 1); }

EXPORT ncclResult_t ncclCommCount(const ncclComm_t comm, int *count)
{
    if (!comm_ok(comm) || !count)
        return fail(ncclInvalidArgument, "ncclCommCount: invalid argument");
    *count = comm->nranks;
    return ncclSuccess;
}

EXPORT ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank)
{
    if (!comm_ok(comm) || !rank)
        return fail(ncclInvalidArgument, "ncclCommUserRank: invalid argument");
    *rank = comm->rank;
    return ncclSuccess;
}

EXPORT ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device)
{
    if (!comm_ok(comm) || !device)
        return fail(ncclInvalidArgument, "ncclCommCuDevice: invalid argument");
    *device = comm->device;
    return ncclSuccess;
}

EXPORT ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError)
{
    if (!comm_ok(comm) || !asyncError)
        return fail(ncclInvalidArgument, "ncclCommGetAsyncError: invalid argument");
    *asyncError = ncclSuccess;
    return ncclSuccess;
}

/* ---- collectives ------------------------------------------------------------------------ */

enum op_kind { K_ALLREDUCE, K_BROADCAST, K_REDUCE, K_ALLGATHER, K_REDUCESCATTER, K_ALLTOALL,
               K_GATHER, K_SCATTER, K_SEND, K_RECV };
static const char *const kind_name[] = {"AllReduce", "Broadcast", "Reduce", "AllGather",
                                        "ReduceScatter", "AlltoAll", "Gather", "Scatter",
                                        "SendRecv", "SendRecv"};

static size_t type_size(ncclDataType_t t)
{
    switch (t) {
    case ncclInt8: case ncclUint8: case ncclFloat8e4m3: case ncclFloat8e5m2: return 1;
    case ncclFloat16: case ncclBfloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    default: return 8;
    }
}

static const char *type_name(ncclDataType_t t)
{
    switch (t) {
    case ncclInt8: return "i8";
    case ncclUint8: return "u8";
    case ncclInt32: return "i32";
    case ncclUint32: return "u32";
    case ncclInt64: return "i64";
    case ncclUint64: return "u64";
    case ncclFloat16: return "f16";
    case ncclFloat32: return "f32";
    case ncclFloat64: return "f64";
    case ncclBfloat16: return "bf16";
    default: return "f8";
    }
}

static const char *red_name(int op)
{
    switch (op) {
    case ncclSum: return "Sum";
    case ncclProd: return "Prod";
    case ncclMax: return "MinMax";
    case ncclMin: return "MinMax";
    case ncclAvg: return "Sum";   /* averaged after a sum, as NCCL does */
    default: return "PreMulSum";
    }
}

/* nccl-tests' bus factor: the bytes each rank moves over the bus per byte
 * of the operation's size. */
static double bus_factor(enum op_kind k, int n)
{
    switch (k) {
    case K_ALLREDUCE: return 2.0 * (n - 1) / n;
    case K_ALLGATHER: case K_REDUCESCATTER: case K_ALLTOALL: return (double)(n - 1) / n;
    default: return 1.0;
    }
}

static double env_num(const char *name, double dflt)
{
    const char *v = getenv(name);
    double x = v && *v ? strtod(v, NULL) : 0;
    return x > 0 ? x : dflt;
}

typedef struct pending {
    enum op_kind kind;
    ncclDataType_t type;
    int op;
    size_t count;
    void *dst;
    const void *src;
    ncclComm_t comm;
    cudaStream_t stream;
} pending;

static __thread int group_depth;
static __thread pending *queued;
static __thread size_t nqueued, cap_queued;

/* The name a real NCCL 2.28 kernel has, interned (the sim keeps kernel
 * names forever). */
static const char *kernel_name(const pending *p)
{
    char raw[160], mangled[200];
    if (p->kind == K_SEND || p->kind == K_RECV || p->kind == K_ALLTOALL || p->kind == K_GATHER ||
        p->kind == K_SCATTER)
        snprintf(raw, sizeof raw, "ncclDevKernel_SendRecv");
    else if (p->kind == K_ALLGATHER || p->kind == K_BROADCAST)
        snprintf(raw, sizeof raw, "ncclDevKernel_%s_RING_LL", kind_name[p->kind]);
    else
        snprintf(raw, sizeof raw, "ncclDevKernel_%s_%s_%s_RING_LL", kind_name[p->kind], red_name(p->op),
                 type_name(p->type));
    snprintf(mangled, sizeof mangled, "_Z%zu%s24ncclDevKernelArgsStorageILm4096EE", strlen(raw), raw);
    const char *found = cusim_intern_name(mangled);
    return found ? found : "ncclDevKernel_Generic";
}

/* NCCL's datatype names as its profiler events carry them. */
static const char *type_long_name(ncclDataType_t t)
{
    static const char *const names[] = {"ncclInt8", "ncclUint8", "ncclInt32", "ncclUint32", "ncclInt64",
                                        "ncclUint64", "ncclFloat16", "ncclFloat32", "ncclFloat64",
                                        "ncclBfloat16", "ncclFloat8e4m3", "ncclFloat8e5m2"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "ncclUnknown";
}

/* The collective's event to the profiler plugin, started and stopped where
 * NCCL enqueues it; the protocol as NCCL's tuner picks it by size (LL small,
 * LL128 middle, Simple large). */
static void profile_coll(const pending *p, size_t bytes)
{
    ncclComm_t c = p->comm;
    if (!profiler || !c->prof_ctx || !(c->prof_mask & PROFILE_COLL) || p->kind == K_SEND || p->kind == K_RECV ||
        c->nranks == 1)   /* one rank: no event (NCCL 2.28.3 on an H100 gave none) */
        return;
    prof_descr d;
    memset(&d, 0, sizeof d);
    d.type = PROFILE_COLL;
    d.rank = c->rank;
    d.coll.seqNumber = c->prof_seq++;
    d.coll.func = kind_name[p->kind];
    d.coll.sendBuff = p->src;
    d.coll.recvBuff = p->dst;
    d.coll.count = p->count;
    d.coll.root = 0;
    d.coll.datatype = type_long_name(p->type);
    d.coll.nChannels = 32;
    d.coll.nWarps = 16;
    d.coll.algo = "RING";
    d.coll.proto = bytes < (64u << 10) ? "LL" : bytes < (1u << 20) ? "LL128" : "Simple";
    void *h = NULL;
    if (profiler->startEvent(c->prof_ctx, &h, &d) == ncclSuccess && profiler->stopEvent)
        profiler->stopEvent(h);
}

static void run_one(const pending *p)
{
    cusim_stream *s = cusim_stream_get(p->stream, 0);
    if (!s)
        return;
    size_t bytes = p->count * type_size(p->type);
    int n = p->comm->nranks;
    profile_coll(p, bytes);
    if (n == 1) {   /* one rank: the data moves on the device, as copies */
        if (p->dst && p->src && p->dst != p->src && bytes) {
            cusim_api_call c;
            cusim_api_begin(&c, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, "cudaMemcpyAsync", NULL);
            cusim_memcpy(s, p->dst, p->src, bytes, CUSIM_COPY_DTOD, 0, cusim_current_correlation());
            cusim_api_end(&c, 0);
        }
        return;
    }
    /* the size nccl-tests divides by: the whole buffer for AllGather
     * (count per rank) and ReduceScatter (count per rank), else count */
    double size = (double)bytes * (p->kind == K_ALLGATHER || p->kind == K_REDUCESCATTER ? n : 1);
    double gbps = env_num("CUSIM_NCCL_BUS_GBPS", 100.0);
    double ns = env_num("CUSIM_NCCL_LATENCY_US", 8.0) * 1e3 + size * bus_factor(p->kind, n) / gbps;
    cusim_kernel_desc *d = calloc(1, sizeof *d);   /* the sim keeps descriptors forever */
    if (!d)
        return;
    d->name = kernel_name(p);
    d->grid[0] = 32;   /* channels */
    d->grid[1] = d->grid[2] = 1;
    d->block[0] = 640;
    d->block[1] = d->block[2] = 1;
    d->registers = 96;
    d->cls = CUSIM_KERNEL_FIXED;
    d->flops = ns;
    cusim_api_call launch;
    cusim_api_begin_driver(&launch, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, "cuLaunchKernelEx", NULL,
                           d->name);
    uint64_t submitted = cusim_host_ns(), min_end = 0;
    if (p->comm->meet)   /* the kernel cannot end before the last rank has called, and the
                            bytes move after that */
        min_end = meet(p->comm, submitted) + (uint64_t)ns;
    cusim_launch_until(s, d, cusim_current_correlation(), submitted, min_end);
    cusim_api_end(&launch, 0);
}

static ncclResult_t submit(enum op_kind kind, const void *src, void *dst, size_t count,
                           ncclDataType_t type, int op, int root, ncclComm_t comm, cudaStream_t stream)
{
    if (!comm_ok(comm))
        return fail(ncclInvalidArgument, "invalid communicator");
    if ((root >= 0 && root >= comm->nranks) || (int)type < 0 || type >= ncclNumTypes)
        return fail(ncclInvalidArgument, "invalid root, peer or datatype");
    if (!cusim_stream_get(stream, 0))
        return fail(ncclInvalidArgument, "invalid stream");
    pending p = {kind, type, op, count, dst, src, comm, stream};
    /* one rank: the copies are made by the call, even inside a group (the
     * real 2.28 on an H100: ncclGroupEnd's CUDA total 0) */
    if (group_depth == 0 || comm->nranks == 1) {
        run_one(&p);
        return ncclSuccess;
    }
    if (nqueued == cap_queued) {
        size_t nc = cap_queued ? cap_queued * 2 : 16;
        pending *q = realloc(queued, nc * sizeof *q);
        if (!q)
            return fail(ncclSystemError, "out of memory");
        queued = q;
        cap_queued = nc;
    }
    queued[nqueued++] = p;
    return ncclSuccess;
}

EXPORT ncclResult_t ncclGroupStart(void)
{
    sim_nccl_nvtx_push("ncclGroupStart", SID_NONE, NULL, 0);
    group_depth++;
    sim_nccl_nvtx_pop();
    return ncclSuccess;
}

EXPORT ncclResult_t ncclGroupEnd(void)
{
    if (group_depth == 0)
        return fail(ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart");
    sim_nccl_nvtx_push("ncclGroupEnd", SID_NONE, NULL, 0);
    if (--group_depth == 0) {
        for (size_t i = 0; i < nqueued; i++)
            run_one(&queued[i]);
        nqueued = 0;
    }
    sim_nccl_nvtx_pop();
    return ncclSuccess;
}

/* submit inside func's NVTX range, with NCCL's payload for kind: the
 * communicator, the message size (count elements), the reduction, root or
 * peer (AlltoAll, Gather and Scatter: a range with no payload). */
static ncclResult_t ranged(const char *func, enum op_kind kind, const void *src, void *dst, size_t count,
                           ncclDataType_t type, int op, int root, ncclComm_t comm, cudaStream_t stream)
{
    uint64_t id = comm_ok(comm) ? comm->hash : 0;
    size_t bytes = (int)type >= 0 && type < ncclNumTypes ? count * type_size(type) : 0;
    union {
        nvtx_all_reduce ar;
        nvtx_all_gather ag;
        nvtx_broadcast bc;
        nvtx_reduce rd;
        nvtx_send_recv sr;
    } pl;
    enum nccl_sid sid = SID_NONE;
    size_t size = 0;
    memset(&pl, 0, sizeof pl);
    switch (kind) {
    case K_ALLREDUCE:
    case K_REDUCESCATTER:
        pl.ar = (nvtx_all_reduce){id, bytes, (ncclRedOp_t)op};
        sid = kind == K_ALLREDUCE ? SID_ALL_REDUCE : SID_REDUCE_SCATTER, size = sizeof pl.ar;
        break;
    case K_ALLGATHER:
        pl.ag = (nvtx_all_gather){id, bytes};
        sid = SID_ALL_GATHER, size = sizeof pl.ag;
        break;
    case K_BROADCAST:
        pl.bc = (nvtx_broadcast){id, bytes, root};
        sid = SID_BROADCAST, size = sizeof pl.bc;
        break;
    case K_REDUCE:
        pl.rd = (nvtx_reduce){id, bytes, root, (ncclRedOp_t)op};
        sid = SID_REDUCE, size = sizeof pl.rd;
        break;
    case K_SEND:
    case K_RECV:
        pl.sr = (nvtx_send_recv){id, bytes, root};
        sid = kind == K_SEND ? SID_SEND : SID_RECV, size = sizeof pl.sr;
        break;
    default:
        break;
    }
    sim_nccl_nvtx_push(func, sid, sid == SID_NONE ? NULL : &pl, size);
    ncclResult_t r = submit(kind, src, dst, count, type, op, root, comm, stream);
    sim_nccl_nvtx_pop();
    return r;
}

EXPORT ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                                  ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)
{
    return ranged("ncclAllReduce", K_ALLREDUCE, sendbuff, recvbuff, count, datatype, op, -1, comm, stream);
}

EXPORT ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                                  int root, ncclComm_t comm, cudaStream_t stream)
{
    return ranged("ncclBroadcast", K_BROADCAST, sendbuff, recvbuff, count, datatype, 0, root, comm, stream);
}

EXPORT ncclResult_t ncclBcast(void *buff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm,
                              cudaStream_t stream)
{
    return ranged("ncclBcast", K_BROADCAST, buff, buff, count, datatype, 0, root, comm, stream);
}

EXPORT ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                               ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream)
{
    return ranged("ncclReduce", K_REDUCE, sendbuff, recvbuff, count, datatype, op, root, comm, stream);
}

EXPORT ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount,
                                  ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream)
{
    return ranged("ncclAllGather", K_ALLGATHER, sendbuff, recvbuff, sendcount, datatype, 0, -1, comm, stream);
}

EXPORT ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount,
                                      ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                                      cudaStream_t stream)
{
    return ranged("ncclReduceScatter", K_REDUCESCATTER, sendbuff, recvbuff, recvcount, datatype, op, -1, comm, stream);
}

EXPORT ncclResult_t ncclAlltoAll(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                                 ncclComm_t comm, cudaStream_t stream)
{
    return ranged("ncclAlltoAll", K_ALLTOALL, sendbuff, recvbuff, count, datatype, 0, -1, comm, stream);
}

EXPORT ncclResult_t ncclGather(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                               int root, ncclComm_t comm, cudaStream_t stream)
{
    return ranged("ncclGather", K_GATHER, sendbuff, recvbuff, count, datatype, 0, root, comm, stream);
}

EXPORT ncclResult_t ncclScatter(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                                int root, ncclComm_t comm, cudaStream_t stream)
{
    return ranged("ncclScatter", K_SCATTER, sendbuff, recvbuff, count, datatype, 0, root, comm, stream);
}

EXPORT ncclResult_t ncclSend(const void *sendbuff, size_t count, ncclDataType_t datatype, int peer,
                             ncclComm_t comm, cudaStream_t stream)
{
    return ranged("ncclSend", K_SEND, sendbuff, NULL, count, datatype, 0, peer, comm, stream);
}

EXPORT ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                             cudaStream_t stream)
{
    return ranged("ncclRecv", K_RECV, NULL, recvbuff, count, datatype, 0, peer, comm, stream);
}
