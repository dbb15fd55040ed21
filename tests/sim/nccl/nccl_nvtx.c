/*
 * nccl_nvtx.c - the simulated NCCL's NVTX ranges (nccl_nvtx.h), made with
 * the toolkit's NVTX v3 headers (header-only: they load the tool named by
 * NVTX_INJECTION64_PATH on the first call, as in the real library). The
 * schemas are NCCL 2.28's (nvtx_payload_schemas.h): entry names, types and
 * the static ids NCCL gives them; the reduction operation is an enum schema
 * (NCCL_REDOP, static id 11) with NCCL's names.
 */
#include "nccl_nvtx.h"

#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#define SID(x) (NVTX_PAYLOAD_SCHEMA_ID_STATIC_START + (uint64_t)(x))
#define REDOP_SID SID(11)

static nvtxDomainHandle_t domain;
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define COMM_ENTRY(s) {0, NVTX_PAYLOAD_ENTRY_TYPE_UINT64, "NCCL communicator ID", NULL, 0, offsetof(s, comm), NULL, NULL}
#define BYTES_ENTRY(s) {0, NVTX_PAYLOAD_ENTRY_TYPE_SIZE, "Message size [bytes]", NULL, 0, offsetof(s, bytes), NULL, NULL}
#define INT_ENTRY(s, f, name) {0, NVTX_PAYLOAD_ENTRY_TYPE_INT, name, NULL, 0, offsetof(s, f), NULL, NULL}
#define OP_ENTRY(s) {0, REDOP_SID, "Reduction operation", NULL, 0, offsetof(s, op), NULL, NULL}

static const nvtxPayloadSchemaEntry_t comm_init_rank[] = {
    COMM_ENTRY(nvtx_comm_init_rank), INT_ENTRY(nvtx_comm_init_rank, nranks, "No. of ranks"),
    INT_ENTRY(nvtx_comm_init_rank, myrank, "Rank"), INT_ENTRY(nvtx_comm_init_rank, cudaDev, "CUDA device")};
static const nvtxPayloadSchemaEntry_t all_gather[] = {COMM_ENTRY(nvtx_all_gather), BYTES_ENTRY(nvtx_all_gather)};
static const nvtxPayloadSchemaEntry_t all_reduce[] = {COMM_ENTRY(nvtx_all_reduce), BYTES_ENTRY(nvtx_all_reduce),
                                                      OP_ENTRY(nvtx_all_reduce)};
static const nvtxPayloadSchemaEntry_t broadcast[] = {COMM_ENTRY(nvtx_broadcast), BYTES_ENTRY(nvtx_broadcast),
                                                     INT_ENTRY(nvtx_broadcast, root, "Root")};
static const nvtxPayloadSchemaEntry_t reduce[] = {COMM_ENTRY(nvtx_reduce), BYTES_ENTRY(nvtx_reduce),
                                                  INT_ENTRY(nvtx_reduce, root, "Root"), OP_ENTRY(nvtx_reduce)};
static const nvtxPayloadSchemaEntry_t send_recv[] = {COMM_ENTRY(nvtx_send_recv), BYTES_ENTRY(nvtx_send_recv),
                                                     INT_ENTRY(nvtx_send_recv, peer, "Peer rank")};

static void register_schema(const nvtxPayloadSchemaEntry_t *e, size_t n, size_t size, enum nccl_sid sid,
                            const char *name)
{
    nvtxPayloadSchemaAttr_t a;
    memset(&a, 0, sizeof a);
    a.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                  NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE |
                  NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME;
    a.name = name;
    a.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
    a.entries = e;
    a.numEntries = n;
    a.payloadStaticSize = size;
    a.schemaId = SID(sid);
    nvtxPayloadSchemaRegister(domain, &a);
}

#define REGISTER(entries, type, sid, name) \
    register_schema(entries, sizeof entries / sizeof entries[0], sizeof(type), sid, name)

static void init(void)
{
    domain = nvtxDomainCreateA("NCCL");
    static const nvtxPayloadEnum_t ops[] = {
        {"Sum", ncclSum, 0}, {"Product", ncclProd, 0}, {"Max", ncclMax, 0}, {"Min", ncclMin, 0},
        {"Avg", ncclAvg, 0}};
    nvtxPayloadEnumAttr_t e;
    memset(&e, 0, sizeof e);
    e.fieldMask = NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES | NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES |
                  NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE | NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID;
    e.entries = ops;
    e.numEntries = sizeof ops / sizeof ops[0];
    e.sizeOfEnum = sizeof(ncclRedOp_t);
    e.schemaId = REDOP_SID;
    nvtxPayloadEnumRegister(domain, &e);
    REGISTER(comm_init_rank, nvtx_comm_init_rank, SID_COMM_INIT_RANK, "CommInitRank");
    REGISTER(comm_init_rank, nvtx_comm_init_rank, SID_COMM_DESTROY, "CommDestroy");
    REGISTER(comm_init_rank, nvtx_comm_init_rank, SID_COMM_ABORT, "CommAbort");
    REGISTER(all_gather, nvtx_all_gather, SID_ALL_GATHER, "AllGather");
    REGISTER(all_reduce, nvtx_all_reduce, SID_ALL_REDUCE, "AllReduce");
    REGISTER(broadcast, nvtx_broadcast, SID_BROADCAST, "Broadcast");
    REGISTER(all_reduce, nvtx_all_reduce, SID_REDUCE_SCATTER, "ReduceScatter");
    REGISTER(reduce, nvtx_reduce, SID_REDUCE, "Reduce");
    REGISTER(send_recv, nvtx_send_recv, SID_SEND, "Send");
    REGISTER(send_recv, nvtx_send_recv, SID_RECV, "Recv");
}

/* func's registered string, registered once (NCCL keeps one per function,
 * a static: no cost per call). Lookups read without the lock; an entry is
 * published by the count's release store after it is filled. */
static nvtxStringHandle_t registered(const char *func)
{
    static struct { const char *func; nvtxStringHandle_t h; } seen[32];
    static _Atomic int n;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    int k = atomic_load_explicit(&n, memory_order_acquire);
    for (int i = 0; i < k; i++)
        if (seen[i].func == func)
            return seen[i].h;
    nvtxStringHandle_t h = nvtxDomainRegisterStringA(domain, func);
    pthread_mutex_lock(&lock);
    k = atomic_load_explicit(&n, memory_order_relaxed);
    if (k < 32) {
        seen[k].func = func, seen[k].h = h;
        atomic_store_explicit(&n, k + 1, memory_order_release);
    }
    pthread_mutex_unlock(&lock);
    return h;
}

void sim_nccl_nvtx_push(const char *func, enum nccl_sid sid, const void *payload, size_t size)
{
    pthread_once(&once, init);
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = registered(func);
    nvtxPayloadData_t pd = {sid == SID_NONE ? 0 : SID(sid), size, payload};
    if (sid != SID_NONE && payload != NULL) {
        a.payloadType = NVTX_PAYLOAD_TYPE_EXT;
        a.reserved0 = 1;
        a.payload.ullValue = (uint64_t)(uintptr_t)&pd;
    }
    nvtxDomainRangePushEx(domain, &a);
}

void sim_nccl_nvtx_pop(void)
{
    nvtxDomainRangePop(domain);
}
