// nccl_ring: data-parallel gradient averaging as a training step does it,
// on a communicator of two ranks in one process (ncclCommInitAll, as
// NCCL's own single-process examples): per step an AllReduce of 4 MiB of
// floats on each rank inside a group, a Broadcast of 64 KiB from rank 0, and
// an AllGather of 256 KiB per rank; the simulated NCCL runs each as a
// kernel. Checks every call's result. nccl_ring [STEPS [SMALL]]: STEPS steps
// (3), each with SMALL more AllReduce of 16 KiB per rank (0): a model's many
// small gradients, not bucketed.
//@ api ncclCommInitAll 1
//@ api ncclAllReduce 6
//@ api ncclBroadcast 6
//@ api ncclAllGather 6
//@ api ncclGroupEnd 9
//@ kernel_prefix ncclDevKernel_AllReduce_Sum_f32 6
//@ kernel_prefix ncclDevKernel_Broadcast 6
//@ kernel_prefix ncclDevKernel_AllGather 6
#include "common.h"
#include <nccl.h>

#define CHECK_NCCL(call)                                                                 \
    do {                                                                                 \
        ncclResult_t r_ = (call);                                                        \
        if (r_ != ncclSuccess) {                                                         \
            fprintf(stderr, "NCCL error at %s:%d: %s\n", __FILE__, __LINE__,             \
                    ncclGetErrorString(r_));                                             \
            exit(EXIT_FAILURE);                                                          \
        }                                                                                \
    } while (0)

int main(int argc, char **argv)
{
    const int nranks = 2, steps = argc > 1 ? atoi(argv[1]) : 3, small = argc > 2 ? atoi(argv[2]) : 0;
    const size_t grad = 1 << 20, bcast = 1 << 14, gather = 1 << 16;   // floats
    int devs[nranks] = {0, 0};
    ncclComm_t comms[nranks];
    cudaStream_t streams[nranks];
    float *buf[nranks], *out[nranks];
    for (int r = 0; r < nranks; r++) {
        CHECK(cudaStreamCreate(&streams[r]));
        CHECK(cudaMalloc(&buf[r], grad * sizeof(float)));
        CHECK(cudaMalloc(&out[r], nranks * gather * sizeof(float)));
        CHECK(cudaMemset(buf[r], 0, grad * sizeof(float)));
    }
    CHECK_NCCL(ncclCommInitAll(comms, nranks, devs));
    for (int s = 0; s < steps; s++) {
        CHECK_NCCL(ncclGroupStart());
        for (int r = 0; r < nranks; r++)
            CHECK_NCCL(ncclAllReduce(buf[r], buf[r], grad, ncclFloat, ncclSum, comms[r], streams[r]));
        CHECK_NCCL(ncclGroupEnd());
        CHECK_NCCL(ncclGroupStart());
        for (int r = 0; r < nranks; r++)
            CHECK_NCCL(ncclBroadcast(buf[r], buf[r], bcast, ncclFloat, 0, comms[r], streams[r]));
        CHECK_NCCL(ncclGroupEnd());
        CHECK_NCCL(ncclGroupStart());
        for (int r = 0; r < nranks; r++)
            CHECK_NCCL(ncclAllGather(buf[r], out[r], gather, ncclFloat, comms[r], streams[r]));
        CHECK_NCCL(ncclGroupEnd());
        for (int k = 0; k < small; k++) {
            CHECK_NCCL(ncclGroupStart());
            for (int r = 0; r < nranks; r++)
                CHECK_NCCL(ncclAllReduce(buf[r], buf[r], 4096, ncclFloat, ncclSum, comms[r], streams[r]));
            CHECK_NCCL(ncclGroupEnd());
        }
    }
    for (int r = 0; r < nranks; r++)
        CHECK(cudaStreamSynchronize(streams[r]));
    for (int r = 0; r < nranks; r++) {
        CHECK_NCCL(ncclCommDestroy(comms[r]));
        CHECK(cudaFree(buf[r]));
        CHECK(cudaFree(out[r]));
        CHECK(cudaStreamDestroy(streams[r]));
    }
    printf("nccl_ring: %d steps of AllReduce, Broadcast and AllGather on %d ranks\n", steps, nranks);
    return 0;
}
