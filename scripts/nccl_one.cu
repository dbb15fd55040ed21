// nccl_one.cu - NCCL on one GPU, one process: a communicator of one rank
// (ncclCommInitAll), then N rounds of AllReduce, AllGather, Broadcast and
// ReduceScatter on 1 MiB, each round in a group. For scripts/gpu_check.sh: the
// records a real NCCL leaves in CUPTI (its kernels, their names and streams),
// kept as a fixture for issue 30's hooks.
//   nvcc -cudart=shared -o nccl_one scripts/nccl_one.cu -lnccl
//   nccl_one [N]
#include <cuda_runtime.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "nccl_one: %s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)
#define NK(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { \
    fprintf(stderr, "nccl_one: %s: %s\n", #x, ncclGetErrorString(r_)); return 1; } } while (0)

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 5, dev = 0;
    size_t n = 1 << 18;   /* floats: 1 MiB */
    float *a, *b;
    cudaStream_t s;
    ncclComm_t comm;
    CK(cudaSetDevice(0));
    CK(cudaStreamCreate(&s));
    CK(cudaMalloc(&a, n * sizeof(float)));
    CK(cudaMalloc(&b, n * sizeof(float)));
    CK(cudaMemset(a, 0, n * sizeof(float)));
    NK(ncclCommInitAll(&comm, 1, &dev));
    for (int i = 0; i < rounds; i++) {
        NK(ncclAllReduce(a, b, n, ncclFloat, ncclSum, comm, s));
        NK(ncclAllGather(a, b, n, ncclFloat, comm, s));
        NK(ncclBroadcast(a, b, n, ncclFloat, 0, comm, s));
        NK(ncclGroupStart());
        NK(ncclReduceScatter(a, b, n, ncclFloat, ncclSum, comm, s));
        NK(ncclAllReduce(b, a, n, ncclFloat, ncclSum, comm, s));
        NK(ncclGroupEnd());
    }
    CK(cudaStreamSynchronize(s));
    NK(ncclCommDestroy(comm));
    printf("nccl_one: %d rounds\n", rounds);
    return 0;
}
