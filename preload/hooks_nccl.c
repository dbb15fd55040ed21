/*
 * hooks_nccl.c - NCCL: the communicator's life, the collectives and the
 * point-to-point calls, and the group around them.
 *
 * Each collective records its count, datatype, reduction, root or peer,
 * stream and communicator (an id the same on all its ranks, this rank, the
 * size: event.h's a.coll), and pushes its event id for CUPTI as a cuBLAS
 * call does: NCCL links the CUDA runtime statically, so its launches and
 * copies reach us only as CUPTI records, charged to the call that pushed.
 * Inside ncclGroupStart/End the work is launched at ncclGroupEnd, which is
 * recorded the same way (the model shares its GPU time among the group's
 * calls).
 *
 * The communicator's id: a hash of its ncclUniqueId (ncclCommInitRank and
 * its Config/Scalable forms: every rank passes the same one); for
 * ncclCommInitAll one id for the communicators it makes, for ncclCommSplit
 * a hash of the parent's and the color. A communicator first met in a
 * collective (made before the library was loaded, or by a path not hooked)
 * is asked its rank and size (ncclCommUserRank, ncclCommCount), id 0.
 */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "preload/hooks.h"

#define NCOMMS 256

typedef struct comm_info {
    ncclComm_t comm;
    uint64_t id;
    uint16_t rank, nranks;
} comm_info;

static comm_info comms[NCOMMS];
static _Atomic unsigned ncomms;   /* entries published (release) */
static pthread_mutex_t comms_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 1099511628211ull;
    return h;
}

static uint64_t id_of(const ncclUniqueId *u)
{
    uint64_t h = fnv(1469598103934665603ull, u->internal, sizeof u->internal);
    return h ? h : 1;
}

static void remember(ncclComm_t comm, uint64_t id, int rank, int nranks)
{
    if (comm == NULL)
        return;
    pthread_mutex_lock(&comms_lock);
    unsigned n = atomic_load(&ncomms), i;
    for (i = 0; i < n; i++)
        if (comms[i].comm == comm)
            break;
    if (i == n && n < NCOMMS)
        n++;
    if (i < NCOMMS) {
        comms[i] = (comm_info){comm, id, preload_u16((unsigned)rank), preload_u16((unsigned)nranks)};
        atomic_store_explicit(&ncomms, n, memory_order_release);
    }
    pthread_mutex_unlock(&comms_lock);
}

/* The communicator as known, else asked (outside the timed call, guarded,
 * errno kept). */
static comm_info comm_of(ncclComm_t comm)
{
    unsigned n = atomic_load_explicit(&ncomms, memory_order_acquire);
    for (unsigned i = n; i-- > 0;)
        if (comms[i].comm == comm)
            return comms[i];
    comm_info ci = {comm, 0, 0, 0};
    preload_ncclCommCount_fn count = PRELOAD_REAL(ncclCommCount);
    preload_ncclCommUserRank_fn urank = PRELOAD_REAL(ncclCommUserRank);
    if (comm == NULL || count == NULL || urank == NULL)
        return ci;
    int *errp = &errno, e = *errp;
    int g = cuprof_guard_enter();
    int nr = 0, r = 0;
    if (count(comm, &nr) == ncclSuccess && urank(comm, &r) == ncclSuccess) {
        ci.rank = preload_u16((unsigned)r);
        ci.nranks = preload_u16((unsigned)nr);
        remember(comm, 0, r, nr);
    }
    cuprof_guard_leave(g);
    *errp = e;
    return ci;
}

static void fill_coll(cuprof_event *ev, const comm_info *ci, size_t count, ncclDataType_t dt,
                      int op, int peer, cudaStream_t stream)
{
    ev->a.coll.count = count;
    ev->a.coll.stream = (uint64_t)(uintptr_t)stream;
    ev->a.coll.comm = ci->id;
    ev->a.coll.rank = ci->rank;
    ev->a.coll.nranks = ci->nranks;
    ev->a.coll.dtype = (uint8_t)dt;
    ev->a.coll.op = (uint8_t)op;
    ev->a.coll.peer = (int16_t)(peer < -1 ? -1 : peer > INT16_MAX ? INT16_MAX : peer);
}

/* One collective or point-to-point call: `call` is the real call. */
#define COLL_CALL(name, comm_, count_, dt_, op_, peer_, stream_, call)      \
    do {                                                                    \
        preload_##name##_fn real = PRELOAD_REAL(name);                      \
        comm_info ci_ = comm_of(comm_);                                     \
        preload_call c_ = HOOK_BEGIN(name);                                 \
        if (c_.ev)                                                          \
            fill_coll(c_.ev, &ci_, count_, dt_, op_, peer_, stream_);       \
        ncclResult_t r_ = real ? call : PRELOAD_NCCL_MISSING;               \
        return (ncclResult_t)hook_end(c_, r_);                              \
    } while (0)

PRELOAD_EXPORT ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                                          ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                                          cudaStream_t stream)
{
    COLL_CALL(ncclAllReduce, comm, count, datatype, op, -1, stream,
              real(sendbuff, recvbuff, count, datatype, op, comm, stream));
}

PRELOAD_EXPORT ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
                                          ncclDataType_t datatype, int root, ncclComm_t comm,
                                          cudaStream_t stream)
{
    COLL_CALL(ncclBroadcast, comm, count, datatype, 0, root, stream,
              real(sendbuff, recvbuff, count, datatype, root, comm, stream));
}

PRELOAD_EXPORT ncclResult_t ncclBcast(void *buff, size_t count, ncclDataType_t datatype, int root,
                                      ncclComm_t comm, cudaStream_t stream)
{
    COLL_CALL(ncclBcast, comm, count, datatype, 0, root, stream,
              real(buff, count, datatype, root, comm, stream));
}

PRELOAD_EXPORT ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count,
                                       ncclDataType_t datatype, ncclRedOp_t op, int root,
                                       ncclComm_t comm, cudaStream_t stream)
{
    COLL_CALL(ncclReduce, comm, count, datatype, op, root, stream,
              real(sendbuff, recvbuff, count, datatype, op, root, comm, stream));
}

PRELOAD_EXPORT ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount,
                                          ncclDataType_t datatype, ncclComm_t comm,
                                          cudaStream_t stream)
{
    COLL_CALL(ncclAllGather, comm, sendcount, datatype, 0, -1, stream,
              real(sendbuff, recvbuff, sendcount, datatype, comm, stream));
}

PRELOAD_EXPORT ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount,
                                              ncclDataType_t datatype, ncclRedOp_t op,
                                              ncclComm_t comm, cudaStream_t stream)
{
    COLL_CALL(ncclReduceScatter, comm, recvcount, datatype, op, -1, stream,
              real(sendbuff, recvbuff, recvcount, datatype, op, comm, stream));
}

PRELOAD_EXPORT ncclResult_t ncclAlltoAll(const void *sendbuff, void *recvbuff, size_t count,
                                         ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream)
{
    COLL_CALL(ncclAlltoAll, comm, count, datatype, 0, -1, stream,
              real(sendbuff, recvbuff, count, datatype, comm, stream));
}

PRELOAD_EXPORT ncclResult_t ncclGather(const void *sendbuff, void *recvbuff, size_t count,
                                       ncclDataType_t datatype, int root, ncclComm_t comm,
                                       cudaStream_t stream)
{
    COLL_CALL(ncclGather, comm, count, datatype, 0, root, stream,
              real(sendbuff, recvbuff, count, datatype, root, comm, stream));
}

PRELOAD_EXPORT ncclResult_t ncclScatter(const void *sendbuff, void *recvbuff, size_t count,
                                        ncclDataType_t datatype, int root, ncclComm_t comm,
                                        cudaStream_t stream)
{
    COLL_CALL(ncclScatter, comm, count, datatype, 0, root, stream,
              real(sendbuff, recvbuff, count, datatype, root, comm, stream));
}

PRELOAD_EXPORT ncclResult_t ncclSend(const void *sendbuff, size_t count, ncclDataType_t datatype,
                                     int peer, ncclComm_t comm, cudaStream_t stream)
{
    COLL_CALL(ncclSend, comm, count, datatype, 0, peer, stream,
              real(sendbuff, count, datatype, peer, comm, stream));
}

PRELOAD_EXPORT ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype, int peer,
                                     ncclComm_t comm, cudaStream_t stream)
{
    COLL_CALL(ncclRecv, comm, count, datatype, 0, peer, stream,
              real(recvbuff, count, datatype, peer, comm, stream));
}

PRELOAD_PLAIN_HOOK(ncclResult_t, ncclGroupStart, (void), (), PRELOAD_NCCL_MISSING)
PRELOAD_PLAIN_HOOK(ncclResult_t, ncclGroupEnd, (void), (), PRELOAD_NCCL_MISSING)
PRELOAD_PLAIN_HOOK(ncclResult_t, ncclGetUniqueId, (ncclUniqueId * uniqueId), (uniqueId), PRELOAD_NCCL_MISSING)

/* ---- the communicator's life ---------------------------------------------------- */

/* An init or teardown call on communicator (id, rank, nranks): recorded
 * with them, its CUDA work charged to it. */
#define COMM_CALL(name, id_, rank_, nranks_, call, after)                   \
    do {                                                                    \
        preload_##name##_fn real = PRELOAD_REAL(name);                      \
        comm_info ci_ = {NULL, id_, preload_u16((unsigned)(rank_)),         \
                         preload_u16((unsigned)(nranks_))};                 \
        preload_call c_ = HOOK_BEGIN(name);                                 \
        if (c_.ev)                                                          \
            fill_coll(c_.ev, &ci_, 0, (ncclDataType_t)0, 0, -1, NULL);      \
        ncclResult_t r_ = real ? call : PRELOAD_NCCL_MISSING;               \
        if (r_ == ncclSuccess) {                                            \
            int *ep_ = &errno, e_ = *ep_;                                   \
            after;                                                          \
            *ep_ = e_;                                                      \
        }                                                                   \
        return (ncclResult_t)hook_end(c_, r_);                              \
    } while (0)

PRELOAD_EXPORT ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank)
{
    uint64_t id = id_of(&commId);
    COMM_CALL(ncclCommInitRank, id, rank, nranks, real(comm, nranks, commId, rank),
              remember(comm ? *comm : NULL, id, rank, nranks));
}

PRELOAD_EXPORT ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId commId,
                                                   int rank, ncclConfig_t *config)
{
    uint64_t id = id_of(&commId);
    COMM_CALL(ncclCommInitRankConfig, id, rank, nranks, real(comm, nranks, commId, rank, config),
              remember(comm ? *comm : NULL, id, rank, nranks));
}

PRELOAD_EXPORT ncclResult_t ncclCommInitRankScalable(ncclComm_t *newcomm, int nranks, int myrank, int nId,
                                                     ncclUniqueId *commIds, ncclConfig_t *config)
{
    uint64_t id = nId > 0 && commIds ? id_of(&commIds[0]) : 0;
    COMM_CALL(ncclCommInitRankScalable, id, myrank, nranks,
              real(newcomm, nranks, myrank, nId, commIds, config),
              remember(newcomm ? *newcomm : NULL, id, myrank, nranks));
}

PRELOAD_EXPORT ncclResult_t ncclCommInitAll(ncclComm_t *comm, int ndev, const int *devlist)
{
    static _Atomic unsigned made;
    struct {
        long pid;
        unsigned k;
    } key = {(long)getpid(), atomic_fetch_add(&made, 1)};
    uint64_t id = fnv(1469598103934665603ull ^ 0x6e63636c, &key, sizeof key);
    COMM_CALL(ncclCommInitAll, id, 0, ndev, real(comm, ndev, devlist),
              for (int i_ = 0; comm && i_ < ndev; i_++) remember(comm[i_], id, i_, ndev));
}

PRELOAD_EXPORT ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm,
                                          ncclConfig_t *config)
{
    comm_info parent = comm_of(comm);
    uint64_t id = fnv(parent.id ^ 0x73706c6974ull, &color, sizeof color);
    COMM_CALL(ncclCommSplit, id, parent.rank, parent.nranks, real(comm, color, key, newcomm, config),
              if (newcomm && *newcomm) {
                  comm_info nc_ = comm_of(*newcomm);   /* its rank and size, asked */
                  remember(*newcomm, color < 0 ? 0 : id, nc_.rank, nc_.nranks);
              });
}

#define COMM_END(name)                                                                 \
    PRELOAD_EXPORT ncclResult_t name(ncclComm_t comm)                                   \
    {                                                                                  \
        comm_info ci = comm_of(comm);                                                  \
        COMM_CALL(name, ci.id, ci.rank, ci.nranks, real(comm), (void)0);               \
    }
COMM_END(ncclCommFinalize)
COMM_END(ncclCommDestroy)
COMM_END(ncclCommAbort)
