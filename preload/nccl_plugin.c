/*
 * nccl_plugin.c - cuprof as NCCL's profiler plugin (preload/: NCCL calls
 * it as it calls a hook) (NCCL 2.23 and later:
 * NCCL_PROFILER_PLUGIN names a library, NCCL looks up ncclProfiler_vN in it;
 * prof.sh points it at libcuprof.so, already loaded by LD_PRELOAD, unless
 * the program set its own). Version 5 of the interface (NCCL 2.26 and later
 * look for it), written from NCCL's documented plugin headers
 * (ext-profiler/example/nccl/profiler_v5.h): the layouts below must match
 * them byte for byte.
 *
 * What it takes: the collective and point-to-point events (ncclProfileColl,
 * ncclProfileP2p). NCCL starts a collective's event where it enqueues it:
 * inside the program's ncclAllReduce (an implicit group) or inside its
 * ncclGroupEnd, on the calling thread, while the hook's call is open. The
 * algorithm, protocol and channel count NCCL chose ("RING/LL ch32") become
 * that call's name (event.name, an interned string): the trace's
 * args.algo and the Collectives table's "Algo" column. Nothing is kept per
 * event: the handle is NULL, stopEvent has nothing to do.
 *
 * Not taken yet: proxy (network) steps, kernel-channel events with their
 * GPU timestamps, group and API events.
 */
#include "collector/collector.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

typedef int plugin_result;   /* ncclResult_t: ncclSuccess 0, ncclInternalError 3 */
#define PLUGIN_OK 0

typedef void (*plugin_logger)(int level, unsigned long flags, const char *file, int line, const char *fmt, ...);

enum { PROFILE_COLL = 1 << 1, PROFILE_P2P = 1 << 2 };

typedef struct {
    uint64_t type;
    void *parentObj;
    int rank;
    union {
        struct { int graphCaptured; int groupDepth; } groupApi;
        struct { const char *func; size_t count; const char *datatype; int root; void *stream; bool graphCaptured; } collApi;
        struct { const char *func; size_t count; const char *datatype; void *stream; bool graphCaptured; } p2pApi;
        struct { void *stream; } kernelLaunch;
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
        struct { pid_t pid; uint8_t channelId; int peer; int nSteps; int chunkSize; int isSend; } proxyOp;
        struct { int step; } proxyStep;
        struct { uint8_t channelId; uint64_t pTimer; } kernelCh;
        struct { int64_t id; void *data; } netPlugin;
    };
} plugin_descr;

typedef union {
    struct { size_t transSize; } proxyStep;
    struct { int appendedProxyOps; } proxyCtrl;
    struct { void *data; } netPlugin;
    struct { uint64_t pTimer; } kernelCh;
} plugin_state_args;

typedef struct {
    const char *name;
    plugin_result (*init)(void **context, uint64_t commId, int *eActivationMask, const char *commName,
                          int nNodes, int nranks, int rank, plugin_logger logfn);
    plugin_result (*startEvent)(void *context, void **eHandle, plugin_descr *eDescr);
    plugin_result (*stopEvent)(void *eHandle);
    plugin_result (*recordEventState)(void *eHandle, int eState, plugin_state_args *eStateArgs);
    plugin_result (*finalize)(void *context);
} plugin_v5;

static int ctx_token;   /* the context NCCL hands back: nothing per communicator */

static plugin_result p_init(void **context, uint64_t commId, int *mask, const char *commName, int nNodes,
                            int nranks, int rank, plugin_logger logfn)
{
    (void)commId, (void)commName, (void)nNodes, (void)nranks, (void)rank, (void)logfn;
    *context = &ctx_token;
    *mask = PROFILE_COLL | PROFILE_P2P;
    return PLUGIN_OK;
}

static plugin_result p_start(void *context, void **handle, plugin_descr *d)
{
    (void)context;
    *handle = NULL;
    if (!d || d->type != PROFILE_COLL || !d->coll.algo)
        return PLUGIN_OK;
    int g = cuprof_guard_enter();
    char algo[96];
    snprintf(algo, sizeof algo, "%.24s/%.16s ch%u", d->coll.algo, d->coll.proto ? d->coll.proto : "?",
             (unsigned)d->coll.nChannels);
    uint32_t id = cuprof_string_intern(algo);
    if (id)
        (void)cuprof_open_call_name(CUPROF_EV_COLL, id);
    cuprof_guard_leave(g);
    return PLUGIN_OK;
}

static plugin_result p_stop(void *handle)
{
    (void)handle;
    return PLUGIN_OK;
}

static plugin_result p_state(void *handle, int state, plugin_state_args *args)
{
    (void)handle, (void)state, (void)args;
    return PLUGIN_OK;
}

static plugin_result p_finalize(void *context)
{
    (void)context;
    return PLUGIN_OK;
}

__attribute__((visibility("default"))) const plugin_v5 ncclProfiler_v5 = {
    "cuprof", p_init, p_start, p_stop, p_state, p_finalize,
};
