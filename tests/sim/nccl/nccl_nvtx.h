/*
 * nccl_nvtx.h - the simulated NCCL's NVTX ranges (nccl_nvtx.c): as NCCL 2.28
 * marks its API calls (src/include/nvtx.h and nvtx_payload_schemas.h of
 * NCCL's public sources): a push/pop range per call in the domain "NCCL",
 * named by the function, whose extended payload (NVTX's payload extension)
 * holds the communicator's id, the message size and the reduction, root or
 * peer, under schemas registered with NCCL's static schema ids.
 */
#ifndef SIM_NCCL_NVTX_H
#define SIM_NCCL_NVTX_H

#include <nccl.h>
#include <stddef.h>
#include <stdint.h>

/* NCCL's static schema ids (NVTX_SID_*), from NVTX's static start. */
enum nccl_sid {
    SID_COMM_INIT_RANK = 0, SID_COMM_INIT_ALL = 1, SID_COMM_DESTROY = 2, SID_COMM_ABORT = 3,
    SID_ALL_GATHER = 4, SID_ALL_REDUCE = 5, SID_BROADCAST = 6, SID_REDUCE_SCATTER = 7,
    SID_REDUCE = 8, SID_SEND = 9, SID_RECV = 10,
    SID_NONE = -1,
};

/* The payloads, laid out as NCCL's structs. */
typedef struct { uint64_t comm; int nranks, myrank, cudaDev; } nvtx_comm_init_rank;
typedef struct { uint64_t comm; size_t bytes; } nvtx_all_gather;
typedef struct { uint64_t comm; size_t bytes; ncclRedOp_t op; } nvtx_all_reduce; /* and ReduceScatter */
typedef struct { uint64_t comm; size_t bytes; int root; } nvtx_broadcast;
typedef struct { uint64_t comm; size_t bytes; int root; ncclRedOp_t op; } nvtx_reduce;
typedef struct { uint64_t comm; size_t bytes; int peer; } nvtx_send_recv;

/* Opens func's range (sid SID_NONE: no payload); nvtx_pop closes it. */
void sim_nccl_nvtx_push(const char *func, enum nccl_sid sid, const void *payload, size_t size);
void sim_nccl_nvtx_pop(void);

#endif
