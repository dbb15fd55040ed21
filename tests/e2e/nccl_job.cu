// nccl_job: one rank of a data-parallel job, as torchrun starts them (RANK,
// WORLD_SIZE in the environment, one process each, no MPI): per step a
// "forward/backward" kernel, then an AllReduce of the 4 MiB of gradients on
// the job's communicator. The ncclUniqueId goes from rank 0 to the others
// through a file in DIR (what torchrun's store does).
//   nccl_job DIR STEPS [slow RANK MS]   (rank RANK sleeps MS ms before each AllReduce)
#include <cuda_runtime.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "nccl_job: %s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)
#define NK(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { \
    fprintf(stderr, "nccl_job: %s: %s\n", #x, ncclGetErrorString(r_)); return 1; } } while (0)

__global__ void step_compute(float *g, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        g[i] = g[i] * 0.5f + 1.0f;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: nccl_job DIR STEPS [slow RANK MS]\n");
        return 2;
    }
    const char *r = getenv("RANK"), *w = getenv("WORLD_SIZE");
    int rank = r ? atoi(r) : 0, world = w ? atoi(w) : 1, steps = atoi(argv[2]);
    int slow = argc > 5 && !strcmp(argv[3], "slow") ? atoi(argv[4]) : -1, slow_ms = slow >= 0 ? atoi(argv[5]) : 0;
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/nccl_job.id", argv[1]);
    ncclUniqueId id;
    if (rank == 0) {
        NK(ncclGetUniqueId(&id));
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        FILE *f = fopen(tmp, "wb");
        if (!f || fwrite(&id, sizeof id, 1, f) != 1 || fclose(f) != 0 || rename(tmp, path) != 0) {
            perror("nccl_job: id file");
            return 1;
        }
    } else {
        FILE *f = NULL;
        for (int i = 0; i < 3000 && !(f = fopen(path, "rb")); i++)
            usleep(10000);
        if (!f || fread(&id, sizeof id, 1, f) != 1) {
            fprintf(stderr, "nccl_job: no id from rank 0 in %s\n", path);
            return 1;
        }
        fclose(f);
    }
    const int n = 1 << 20;
    float *g;
    cudaStream_t s;
    ncclComm_t comm;
    CK(cudaSetDevice(0));
    CK(cudaStreamCreate(&s));
    CK(cudaMalloc(&g, n * sizeof(float)));
    CK(cudaMemset(g, 0, n * sizeof(float)));
    NK(ncclCommInitRank(&comm, world, id, rank));
    for (int i = 0; i < steps; i++) {
        step_compute<<<n / 256, 256, 0, s>>>(g, n);
        if (rank == slow)
            usleep(slow_ms * 1000);
        NK(ncclAllReduce(g, g, n, ncclFloat, ncclSum, comm, s));
    }
    CK(cudaStreamSynchronize(s));
    NK(ncclCommDestroy(comm));
    CK(cudaFree(g));
    if (rank == 0)
        unlink(path);
    printf("nccl_job: rank %d of %d, %d steps\n", rank, world, steps);
    return 0;
}
